"""Poker hand evaluation: the value of the best five cards out of five, six or seven, as one comparable integer.

A card is an int ``rank * 4 + suit``: rank 0 .. 12 for 2, 3, ..., K, A and suit 0 .. 3. The value is
``category << 20`` plus up to five ranks of 4 bits each, most significant first, so a larger value is a better
hand and equal values split the pot. Categories:

==  ===============  ==========================================================
 0  high card        the five highest ranks
 1  one pair         the pair, then three kickers
 2  two pair         the higher pair, the lower pair, one kicker
 3  three of a kind  the trips, then two kickers
 4  straight         the highest card (5 for the wheel A-2-3-4-5)
 5  flush            the five highest ranks of the flush suit
 6  full house       the trips, then the pair (a second trips counts as pair)
 7  four of a kind   the quads, then one kicker
 8  straight flush   the highest card (a royal flush is the ace-high one)
==  ===============  ==========================================================

Used by GBG's Poker (``farl_envs.games.poker``: its showdown); checked against the known counts of all
2,598,960 five-card hands in ``tests/test_poker_hands.py``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

HIGH_CARD, ONE_PAIR, TWO_PAIR, THREE_OF_A_KIND, STRAIGHT, FLUSH, FULL_HOUSE, FOUR_OF_A_KIND, STRAIGHT_FLUSH = range(9)
CATEGORY_NAMES = ("high card", "one pair", "two pair", "three of a kind", "straight", "flush", "full house",
                  "four of a kind", "straight flush")
RANKS = "23456789TJQKA"
SUITS = "cdhs"


def card(text: str) -> int:
    """The card of a two-letter name such as ``"As"`` or ``"Td"``."""
    return RANKS.index(text[0].upper()) * 4 + SUITS.index(text[1].lower())


@njit(cache=True)
def _straight_high(mask):
    """The rank of the highest card of the best straight in a 13-bit rank mask, or -1 if there is none."""
    for high in range(12, 3, -1):
        run = 0x1F << (high - 4)
        if mask & run == run:
            return high
    if mask & 0x100F == 0x100F:  # the wheel A-2-3-4-5 is five-high
        return 3
    return -1


@njit(cache=True)
def _top_ranks(mask, count, skip1, skip2):
    """The ``count`` highest ranks of a rank mask, ranks ``skip1`` and ``skip2`` left out, packed 4 bits each."""
    packed = 0
    taken = 0
    for rank in range(12, -1, -1):
        if taken == count:
            break
        if mask >> rank & 1 and rank != skip1 and rank != skip2:
            packed = packed << 4 | rank
            taken += 1
    return packed


@njit(cache=True)
def hand_value(cards):
    """The value of the best five-card hand among ``cards`` (int array of 5 .. 7 distinct cards): larger wins."""
    counts = np.zeros(13, np.int64)
    suit_masks = np.zeros(4, np.int64)
    suit_counts = np.zeros(4, np.int64)
    mask = 0
    for c in cards:
        rank = c >> 2
        suit = c & 3
        counts[rank] += 1
        suit_masks[suit] |= 1 << rank
        suit_counts[suit] += 1
        mask |= 1 << rank
    flush_suit = -1
    for suit in range(4):
        if suit_counts[suit] >= 5:
            flush_suit = suit
    if flush_suit >= 0:
        high = _straight_high(suit_masks[flush_suit])
        if high >= 0:
            return STRAIGHT_FLUSH << 20 | high << 16
    quads = -1
    trips = -1
    trips2 = -1
    pair = -1
    pair2 = -1
    for rank in range(12, -1, -1):
        n = counts[rank]
        if n == 4 and quads < 0:
            quads = rank
        elif n == 3:
            if trips < 0:
                trips = rank
            elif trips2 < 0:
                trips2 = rank
        elif n == 2:
            if pair < 0:
                pair = rank
            elif pair2 < 0:
                pair2 = rank
    if quads >= 0:
        return FOUR_OF_A_KIND << 20 | quads << 16 | _top_ranks(mask, 1, quads, -1) << 12
    if trips >= 0 and (trips2 >= 0 or pair >= 0):
        second = max(trips2, pair)
        return FULL_HOUSE << 20 | trips << 16 | second << 12
    if flush_suit >= 0:
        return FLUSH << 20 | _top_ranks(suit_masks[flush_suit], 5, -1, -1)
    high = _straight_high(mask)
    if high >= 0:
        return STRAIGHT << 20 | high << 16
    if trips >= 0:
        return THREE_OF_A_KIND << 20 | trips << 16 | _top_ranks(mask, 2, trips, -1) << 8
    if pair >= 0 and pair2 >= 0:
        return TWO_PAIR << 20 | pair << 16 | pair2 << 12 | _top_ranks(mask, 1, pair, pair2) << 8
    if pair >= 0:
        return ONE_PAIR << 20 | pair << 16 | _top_ranks(mask, 3, pair, -1) << 4
    return HIGH_CARD << 20 | _top_ranks(mask, 5, -1, -1)


def category(value: int) -> int:
    """The category (0 high card .. 8 straight flush) of a hand value."""
    return value >> 20


@njit(cache=True)
def five_card_category_counts():
    """How many of the 2,598,960 five-card hands fall in each category (int64[9]), and the royal flushes."""
    counts = np.zeros(9, np.int64)
    royal = 0
    hand = np.zeros(5, np.int64)
    for a in range(52):
        hand[0] = a
        for b in range(a + 1, 52):
            hand[1] = b
            for c in range(b + 1, 52):
                hand[2] = c
                for d in range(c + 1, 52):
                    hand[3] = d
                    for e in range(d + 1, 52):
                        hand[4] = e
                        value = hand_value(hand)
                        counts[value >> 20] += 1
                        if value == (STRAIGHT_FLUSH << 20 | 12 << 16):
                            royal += 1
    return counts, royal
