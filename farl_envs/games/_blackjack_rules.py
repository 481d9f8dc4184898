"""Blackjack's rules as compiled kernels: the state layout, the cards, the deal, the dealer's play and the chance
event enumerated for searches (the game, its parameters and its page: :mod:`farl_envs.games.blackjack`).

(Longer than farl's usual 400 lines: one game's kernels, which share the state layout and the card helpers;
beside the game module, whose docstring is the game's page, to keep each under 600 lines.)
"""
from __future__ import annotations

import numpy as np
from numba import njit

from farl_envs.core.kernel_utils import copy_state
from farl_envs.core.rng import rng_below
from farl_envs.core.spec import HEADER, PLY, TERMINAL

STAND, HIT, DOUBLE, SPLIT, SETTLE = 0, 1, 2, 3, 4
ACTION_NAMES = ("stand", "hit", "double", "split", "settle")
ACT, CARD_OWED, DEALER_TO_PLAY, DECIDED, OVER = 0, 1, 2, 3, 4
PHASE_NAMES = ("player to act", "card owed", "dealer to play", "decided", "over")
BUST = 22
DEALER_BLACKJACK = 1
MAX_CARDS = 21
"""A hand hits only below 21 (hard total at most 20, twenty aces at most), so it holds at most 21 cards; the
dealer draws below 17 and holds fewer."""
MAX_DECKS = 8
CARD_NAMES = ("?", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10")

P_DECKS, P_H17 = 0, 1

# state layout
PHASE = HEADER
SPLIT_DONE = HEADER + 1
ACTIVE = HEADER + 2
UP = HEADER + 3
HOLE = HEADER + 4
DEALER_FINAL = HEADER + 5
HANDS = HEADER + 6
H_HARD, H_ACE, H_N, H_DOUBLED, H_DONE, H_CARDS = 0, 1, 2, 3, 4, 5
HAND_SIZE = H_CARDS + MAX_CARDS
DEALER_N = HANDS + 2 * HAND_SIZE
DEALER_CARDS = DEALER_N + 1
SHOE = DEALER_CARDS + MAX_CARDS
STATE_SIZE = SHOE + 10
N_CELLS = 12
N_VALUES = 23


# ------------------------------------------------------------------------------------------------- hand totals
@njit(cache=True, inline="always")
def best_total(hard, ace):
    """A hand's total: the hard total (aces as 1) plus 10 when it has an ace and that stays at most 21."""
    if ace and hard + 10 <= 21:
        return hard + 10
    return hard


@njit(cache=True, inline="always")
def is_soft(hard, ace):
    """True when one ace of the hand counts 11."""
    return ace and hard + 10 <= 21


@njit(cache=True, inline="always")
def _hand(h):
    return HANDS + h * HAND_SIZE


@njit(cache=True)
def draw_card(p, s, rng):
    """One card from the shoe: the value 1 (ace) .. 10; the infinite shoe draws with replacement."""
    if p[P_DECKS] == 0:
        return min(rng_below(rng, 13) + 1, 10)
    left = 0
    for v in range(10):
        left += s[SHOE + v]
    k = rng_below(rng, left)
    for v in range(10):
        if k < s[SHOE + v]:
            s[SHOE + v] -= 1
            return v + 1
        k -= s[SHOE + v]
    return 10  # never reached: the shoe of one round never runs out


@njit(cache=True)
def _add_card(s, h, c):
    b = _hand(h)
    s[b + H_CARDS + s[b + H_N]] = c
    s[b + H_N] += 1
    s[b + H_HARD] += c
    if c == 1:
        s[b + H_ACE] = 1


@njit(cache=True)
def hand_total(s, h):
    """Total of hand ``h`` (0 or 1) of state ``s`` (22 or more: bust)."""
    b = _hand(h)
    return best_total(s[b + H_HARD], s[b + H_ACE])


@njit(cache=True)
def player_blackjack(s):
    """True when the player holds a blackjack: 21 in two cards of an unsplit hand."""
    b = _hand(0)
    return s[SPLIT_DONE] == 0 and s[b + H_N] == 2 and best_total(s[b + H_HARD], s[b + H_ACE]) == 21


@njit(cache=True)
def can_split(s):
    """True when the active hand is the unsplit first hand holding a pair (two cards of one value)."""
    b = _hand(0)
    return s[SPLIT_DONE] == 0 and s[b + H_N] == 2 and s[b + H_CARDS] == s[b + H_CARDS + 1]


# ------------------------------------------------------------------------------------------------- kernels
@njit(cache=True)
def initial_state(p, rng):
    """Deal the round: the player's two cards and the dealer's up card; the peek under an ace or a ten."""
    s = np.zeros(STATE_SIZE, dtype=np.int32)
    decks = p[P_DECKS]
    if decks > 0:
        for v in range(9):
            s[SHOE + v] = 4 * decks
        s[SHOE + 9] = 16 * decks
    _add_card(s, 0, draw_card(p, s, rng))
    up = draw_card(p, s, rng)
    s[UP] = up
    s[DEALER_CARDS] = up
    s[DEALER_N] = 1
    _add_card(s, 0, draw_card(p, s, rng))
    if decks > 0:
        s[HOLE] = draw_card(p, s, rng)  # dealt face down, hidden from the player
    if up == 1 or up == 10:
        hole = s[HOLE]
        if decks == 0:
            hole = draw_card(p, s, rng)  # the peek; kept only when it makes a blackjack
        if hole + up == 11:
            s[HOLE] = hole
            s[DEALER_CARDS + 1] = hole
            s[DEALER_N] = 2
            s[DEALER_FINAL] = DEALER_BLACKJACK
    if s[DEALER_FINAL] == DEALER_BLACKJACK or player_blackjack(s):
        s[PHASE] = DECIDED
    return s


@njit(cache=True)
def legal_actions(p, s, mask):
    """``settle`` alone once the round is decided; else stand, hit, double on two cards, split a pair."""
    mask[:] = 0
    if s[TERMINAL]:
        return 0
    if s[PHASE] == DECIDED:
        mask[SETTLE] = 1
        return 1
    if s[PHASE] != ACT:
        return 0  # an afterstate waiting for its chance event
    b = _hand(s[ACTIVE])
    mask[STAND] = 1
    mask[HIT] = 1
    n = 2
    if s[b + H_N] == 2:
        mask[DOUBLE] = 1
        n += 1
        if can_split(s):
            mask[SPLIT] = 1
            n += 1
    return n


@njit(cache=True)
def _hand_finished(s):
    """The active hand is finished: the next one gets its second card, or the dealer plays (or nobody, when
    every hand busted)."""
    h = s[ACTIVE]
    s[_hand(h) + H_DONE] = 1
    if s[SPLIT_DONE] == 1 and h == 0:
        s[ACTIVE] = 1
        s[PHASE] = CARD_OWED
        return
    live = False
    for k in range(1 + s[SPLIT_DONE]):
        if hand_total(s, k) <= 21:
            live = True
    s[PHASE] = DEALER_TO_PLAY if live else DECIDED


@njit(cache=True)
def payout(p, s):
    """The chips the player wins (negative: loses) in the decided round ``s``, on a bet of 1 per hand."""
    if s[DEALER_FINAL] == DEALER_BLACKJACK:
        return 0.0 if player_blackjack(s) else -1.0
    if player_blackjack(s):
        return 1.5
    dealer = s[DEALER_FINAL]
    total = 0.0
    for h in range(1 + s[SPLIT_DONE]):
        b = _hand(h)
        bet = 2.0 if s[b + H_DOUBLED] else 1.0
        t = best_total(s[b + H_HARD], s[b + H_ACE])
        if t > 21:
            total -= bet
        elif dealer == BUST or t > dealer:
            total += bet
        elif t < dealer:
            total -= bet
    return total


@njit(cache=True)
def afterstate(p, s, a, out, rewards):
    """The player's decision ``a`` with nothing drawn yet; ``settle`` pays the decided round and ends it."""
    copy_state(s, out)
    rewards[:] = 0.0
    out[PLY] += 1
    b = _hand(out[ACTIVE])
    if a == SETTLE:
        rewards[0] = payout(p, out)
        out[PHASE] = OVER
        out[TERMINAL] = 1
    elif a == STAND:
        _hand_finished(out)
    elif a == HIT:
        out[PHASE] = CARD_OWED
    elif a == DOUBLE:
        out[b + H_DOUBLED] = 1
        out[PHASE] = CARD_OWED
    else:  # SPLIT: the second card starts the second hand
        c = out[b + H_CARDS + 1]
        out[b + H_CARDS + 1] = 0
        out[b + H_N] = 1
        out[b + H_HARD] = c
        out[SPLIT_DONE] = 1
        _add_card(out, 1, c)
        out[PHASE] = CARD_OWED


@njit(cache=True)
def dealer_play(p, s, rng):
    """The dealer turns his face-down card (drawn now with the infinite shoe, never one that would have made
    the blackjack his peek ruled out) and draws to 17 (hitting a soft 17 when ``p`` says so); returns his
    final total (22: bust)."""
    up = s[UP]
    hole = s[HOLE]
    if hole == 0:
        hole = draw_card(p, s, rng)
        while (up == 1 or up == 10) and hole + up == 11:
            hole = draw_card(p, s, rng)
        s[HOLE] = hole
    s[DEALER_CARDS + 1] = hole
    n = 2
    hard = up + hole
    ace = up == 1 or hole == 1
    while True:
        t = best_total(hard, ace)
        if t > 17 or (t == 17 and not (p[P_H17] and is_soft(hard, ace))):
            break
        c = draw_card(p, s, rng)
        s[DEALER_CARDS + n] = c
        n += 1
        hard += c
        if c == 1:
            ace = True
    s[DEALER_N] = n
    t = best_total(hard, ace)
    final = BUST if t > 21 else t
    s[DEALER_FINAL] = final
    return final


@njit(cache=True)
def _give_card(s, c):
    """Deal ``c`` to the active hand; finish the hand when doubled, a split ace's, or at 21 or more."""
    h = s[ACTIVE]
    b = _hand(h)
    _add_card(s, h, c)
    split_aces = s[SPLIT_DONE] == 1 and s[b + H_CARDS] == 1 and s[b + H_N] == 2
    if s[b + H_DOUBLED] or split_aces or hand_total(s, h) >= 21:
        _hand_finished(s)
    else:
        s[PHASE] = ACT


@njit(cache=True)
def chance(p, s, rng):
    """Deal what is owed before the player's next decision (see the module docstring); the outcome code is
    ``card + 11 * next_hand_card + 121 * dealer_total`` (0 for each part not dealt)."""
    cards = 0
    code = 0
    while True:
        phase = s[PHASE]
        if phase == CARD_OWED:
            c = draw_card(p, s, rng)
            _give_card(s, c)
            code += c if cards == 0 else 11 * c
            cards += 1
        elif phase == DEALER_TO_PLAY:
            code += 121 * dealer_play(p, s, rng)
            s[PHASE] = DECIDED
        else:
            return code


# ---- the chance event enumerated (the infinite shoe's probabilities), for searches over the outcomes
@njit(cache=True)
def card_probability(c):
    """The infinite shoe's chance of drawing value ``c``: 1/13, or 4/13 for a ten-valued card."""
    return 4.0 / 13.0 if c == 10 else 1.0 / 13.0


@njit(cache=True)
def dealer_final_probabilities(p, up, out):
    """``out[k]``: the chance that the dealer with up card ``up`` ends on 17 + k (k = 5: bust), his peek
    having found no blackjack (infinite shoe)."""
    mass = np.zeros((32, 2))
    norm = 0.0
    for hole in range(1, 11):
        if (up == 1 or up == 10) and up + hole == 11:
            continue
        norm += card_probability(hole)
        mass[up + hole, 1 if (up == 1 or hole == 1) else 0] += card_probability(hole)
    out[:] = 0.0
    for hard in range(2, 32):
        for ace in range(2):
            q = mass[hard, ace] / norm
            if q == 0.0:
                continue
            t = best_total(hard, ace == 1)
            if t > 21:
                out[5] += q
            elif t > 17 or (t == 17 and not (p[P_H17] and is_soft(hard, ace == 1))):
                out[t - 17] += q
            else:
                for c in range(1, 11):
                    mass[hard + c, 1 if (ace == 1 or c == 1) else 0] += q * norm * card_probability(c)


@njit(cache=True)
def _walk_outcomes(p, s, target):
    """Enumerate the outcomes of the chance event after the afterstate ``s`` (cards owed, in turn, then the
    dealer's final total): with ``target`` < 0 count them, else apply outcome ``target`` to ``s`` and return
    its probability."""
    finals = np.zeros(6)
    dealer_final_probabilities(p, s[UP], finals)
    if s[PHASE] == DEALER_TO_PLAY:
        if target < 0:
            return 6.0
        s[DEALER_FINAL] = 17 + target
        s[PHASE] = DECIDED
        return finals[target]
    count = 0
    for c in range(1, 11):
        t = s.copy()
        _give_card(t, c)
        n2 = 1 if t[PHASE] != CARD_OWED else 10
        for c2 in range(1, n2 + 1):
            t2 = t.copy()
            q = card_probability(c)
            if n2 > 1:
                _give_card(t2, c2)
                q *= card_probability(c2)
            n3 = 6 if t2[PHASE] == DEALER_TO_PLAY else 1
            if target >= count and target < count + n3:
                if n3 == 6:
                    k = target - count
                    t2[DEALER_FINAL] = 17 + k
                    t2[PHASE] = DECIDED
                    q *= finals[k]
                copy_state(t2, s)
                return q
            count += n3
    return float(count)


@njit(cache=True)
def chance_outcome_count(p, s):
    """The number of outcomes of the chance event after the non-terminal afterstate ``s``: each card owed
    (10 values, a second for the next split hand when the first is finished) and the dealer's final total
    (17 .. 21, bust) when every hand is finished."""
    if s[PHASE] != CARD_OWED and s[PHASE] != DEALER_TO_PLAY:
        return 0
    return int(_walk_outcomes(p, s, -1))


@njit(cache=True)
def apply_chance_outcome(p, s, i):
    """Apply outcome ``i`` in place and return its probability (the infinite shoe's; the dealer's play is
    recorded by its final total alone, his cards beyond the up card are not written)."""
    return _walk_outcomes(p, s, i)


@njit(cache=True)
def board(p, s, out):
    """The 12 cells of the module docstring's table (never the dealer's face-down card before he plays)."""
    out[0] = s[PHASE]
    out[1] = s[UP]
    out[2] = s[DEALER_FINAL]
    out[3] = 0 if s[SPLIT_DONE] == 0 else 1 + s[ACTIVE]
    for h in range(2):
        b = _hand(h)
        n = s[b + H_N]
        o = 4 + 4 * h
        if n == 0:
            for k in range(4):
                out[o + k] = 0
            continue
        t = best_total(s[b + H_HARD], s[b + H_ACE])
        out[o] = BUST if t > 21 else t
        out[o + 1] = 1 if is_soft(s[b + H_HARD], s[b + H_ACE]) else 0
        if s[b + H_DOUBLED]:
            code = 5
        elif n >= 3:
            code = 4
        elif n == 2:
            code = 2 if (h == 0 and can_split(s)) else 3
        else:
            code = 1
        out[o + 2] = code
        out[o + 3] = s[b + H_DONE]


@njit(cache=True)
def observe(p, s, seat, out):
    """The n-tuple board as ``int8`` (the player's whole view)."""
    board(p, s, out)
