"""Heads-up Texas Hold'em's rules as compiled kernels: the state layout, the deal, the betting, the pots and the
chance events enumerated (the game, its parameters and its page, with the rules and where they come from:
:mod:`farl_envs.games.poker`).

(Longer than farl's usual 400 lines: one game's kernels, which share the state layout and the pot and deck
helpers; beside the game module, whose docstring is the game's page, to keep each under 600 lines.)

Every chip amount is a multiple of 5 (the start stacks, the blinds, the bets, and every split of a pot two
players contributed to equally), so the state keeps chips as exact integers.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from farl_envs.core.kernel_utils import copy_state
from farl_envs.core.rng import rng_below
from farl_envs.core.spec import HEADER, PLY, TERMINAL, TO_MOVE
from farl_envs.games._poker_hands import hand_value

N_SEATS = 2
START_CHIPS = 100
SMALL_BLIND = 5
BIG_BLIND = 10
CHIP_UNIT = 5
"""Every amount is a multiple of it; the observation and the n-tuple board count chips in these units."""
TOTAL_CHIPS = N_SEATS * START_CHIPS
DECK = 52

FOLD, CHECK, BET, CALL, RAISE, ALL_IN, SHOWDOWN = range(7)
ACTION_NAMES = ("fold", "check", "bet", "call", "raise", "all-in", "showdown")
BETTING, CARDS, SHOWN, NEW_HAND, OVER = range(5)
PHASE_NAMES = ("betting", "cards owed", "showdown", "next hand owed", "over")
STREET_NAMES = ("pre-flop", "flop", "turn", "river")

P_HANDS, P_MAX_HANDS = 0, 1

# state layout
PHASE = HEADER
HAND = HEADER + 1          # hands started so far (1 during the first hand)
BUTTON = HEADER + 2        # GBG's dealer of the hand (heads-up he posts the big blind)
STREET = HEADER + 3        # 0 pre-flop, 1 flop, 2 turn, 3 river
MOVER = HEADER + 4         # the seat that made the last move of the game, -1 before any
CHIPS = HEADER + 5         # each seat's stack
CONTRIB = CHIPS + N_SEATS  # each seat's chips in the pot of this hand
FOLDED = CONTRIB + N_SEATS
PENDING = FOLDED + N_SEATS  # 1: the seat still has to act in this betting round
HOLE = PENDING + N_SEATS    # two hole cards per seat (rank * 4 + suit, as _poker_hands)
BOARD = HOLE + 2 * N_SEATS  # five community cards, -1 while not dealt
STATE_SIZE = BOARD + 5

MAX_PLIES_PER_HAND = 60
"""A bound on the moves of one hand: every bet or raise lifts the highest contribution by a big blind (an all-in
at least by a chip unit, once per seat), so at most 22 of them fit under the 200 chips, each answered at most
once, plus two checks per street and the showdown step."""

N_CELLS = 13
N_VALUES = 53


# ------------------------------------------------------------------------------------------------- helpers
@njit(cache=True, inline="always")
def to_call(s, q):
    """The chips seat ``q`` must add to match the highest contribution of the hand (GBG's ``getOpenPlayer``)."""
    top = 0
    for k in range(N_SEATS):
        top = max(top, s[CONTRIB + k])
    return top - s[CONTRIB + q]


@njit(cache=True, inline="always")
def is_active(s, q):
    """Seat ``q`` still makes betting decisions: not folded and not all-in."""
    return s[FOLDED + q] == 0 and s[CHIPS + q] > 0


@njit(cache=True)
def active_count(s):
    """The number of seats that still make betting decisions."""
    n = 0
    for q in range(N_SEATS):
        if is_active(s, q):
            n += 1
    return n


@njit(cache=True, inline="always")
def _put(s, q, amount):
    """Seat ``q`` moves ``amount`` chips from its stack into the pot."""
    s[CHIPS + q] -= amount
    s[CONTRIB + q] += amount


@njit(cache=True)
def _next_pending(s, start):
    """The first seat from ``start`` on, in seat order, that still has to act; -1 if none."""
    for k in range(N_SEATS):
        q = (start + k) % N_SEATS
        if s[PENDING + q]:
            return q
    return -1


@njit(cache=True)
def _reopen(s, mover):
    """A bet or raise: every other seat that still decides has to act again."""
    for q in range(N_SEATS):
        s[PENDING + q] = 1 if (q != mover and is_active(s, q)) else 0


@njit(cache=True)
def _open_round(s, first):
    """Start a betting round with ``first`` (or the next seat that decides): every active seat acts once, or,
    with fewer than two active seats, only one who still owes chips (facing an all-in); False when nobody acts."""
    several = active_count(s) >= 2
    for q in range(N_SEATS):
        s[PENDING + q] = 1 if is_active(s, q) and (several or to_call(s, q) > 0) else 0
    q = _next_pending(s, first)
    if q < 0:
        return False
    s[PHASE] = BETTING
    s[TO_MOVE] = q
    return True


@njit(cache=True)
def _draw(s, rng, digits):
    """One card uniformly from those not yet dealt: the rng's draw, or (``digits[0] >= 0``) the next digit of an
    enumerated outcome (its mixed-radix number over the deck sizes); ``digits[1]`` multiplies up the deck sizes."""
    used = np.zeros(DECK, dtype=np.int8)
    left = DECK
    for i in range(HOLE, BOARD + 5):
        if s[i] >= 0:
            used[s[i]] = 1
            left -= 1
    if digits[0] >= 0:
        k = digits[0] % left
        digits[0] //= left
    else:
        k = rng_below(rng, left)
    digits[1] *= left
    for c in range(DECK):
        if used[c] == 0:
            if k == 0:
                return c
            k -= 1
    return -1  # never reached: at most 9 of the 52 cards are out


@njit(cache=True)
def _start_hand(p, s, rng, digits):
    """GBG's ``initRound`` heads-up: the button moves on, two hole cards to each seat, the seat after the button
    posts the small blind and acts first, the button posts the big blind (a short stack posts what it has)."""
    s[HAND] += 1
    s[BUTTON] = (s[HAND] - 1) % N_SEATS
    s[STREET] = 0
    for q in range(N_SEATS):
        s[CONTRIB + q] = 0
        s[FOLDED + q] = 0
        s[PENDING + q] = 0
    for i in range(HOLE, BOARD + 5):
        s[i] = -1
    for q in range(N_SEATS):
        for j in range(2):
            s[HOLE + 2 * q + j] = _draw(s, rng, digits)
    sb = (s[BUTTON] + 1) % N_SEATS
    bb = (sb + 1) % N_SEATS
    _put(s, sb, min(SMALL_BLIND, s[CHIPS + sb]))
    _put(s, bb, min(BIG_BLIND, s[CHIPS + bb]))
    if not _open_round(s, (bb + 1) % N_SEATS):
        s[PHASE] = CARDS


@njit(cache=True)
def _advance(p, s, rng, digits):
    """The chance event after an afterstate: the next hand's deal, and the streets owed until somebody must act
    or the board is out for the showdown. Returns the outcome code (bit 0: a new hand; board card i as
    ``(card + 1) << (1 + 6 i)``), -1 when nothing was dealt."""
    code = -1
    if s[PHASE] == NEW_HAND:
        _start_hand(p, s, rng, digits)
        code = 1
    while s[PHASE] == CARDS:
        if code < 0:
            code = 0
        if s[STREET] == 3:
            s[PHASE] = SHOWN
            s[TO_MOVE] = (s[MOVER] + 1) % N_SEATS
            break
        s[STREET] += 1
        first, last = (0, 3) if s[STREET] == 1 else (s[STREET] + 1, s[STREET] + 2)
        for i in range(first, last):
            c = _draw(s, rng, digits)
            s[BOARD + i] = c
            code += (c + 1) << (1 + 6 * i)
        if active_count(s) >= 2:
            _open_round(s, (s[MOVER] + 1) % N_SEATS)  # GBG: the seat after the one who closed the last round
    return code


@njit(cache=True)
def _end_hand(p, s, won, rewards):
    """The pot is shared out as ``won`` and the stacks paid; then the game ends (a seat broke, the hands played
    out, or the cap), each seat's reward its chip change over the game divided by the start chips (GBG's final
    game score, scaled), or the next deal is owed (no reward: GBG's Poker is a final-reward game)."""
    broke = False
    for q in range(N_SEATS):
        s[CHIPS + q] += won[q]
        s[CONTRIB + q] = 0
        s[PENDING + q] = 0
        if s[CHIPS + q] == 0:
            broke = True
    hands, cap = p[P_HANDS], p[P_MAX_HANDS]
    if broke or (hands > 0 and s[HAND] >= hands) or (hands == 0 and s[HAND] >= cap):
        s[PHASE] = OVER
        s[TERMINAL] = 1
        for q in range(N_SEATS):
            rewards[q] = (s[CHIPS + q] - START_CHIPS) / START_CHIPS
    else:
        s[PHASE] = NEW_HAND


@njit(cache=True)
def hand_values(s, values):
    """Each seat's best five of seven at the showdown (-1 for a folded seat; the board must be out)."""
    cards = np.zeros(7, dtype=np.int64)
    for i in range(5):
        cards[2 + i] = s[BOARD + i]
    for q in range(N_SEATS):
        if s[FOLDED + q]:
            values[q] = -1
        else:
            cards[0] = s[HOLE + 2 * q]
            cards[1] = s[HOLE + 2 * q + 1]
            values[q] = hand_value(cards)


@njit(cache=True)
def share_pot(s, values, won):
    """The pot as side pots: for each contribution level, the chips everybody put in up to it go to the best
    hand (``values``, -1 folded) among the seats that put in that much and did not fold, split evenly on a tie;
    a level no such seat reached (never, heads-up) goes to the best hand still in."""
    for q in range(N_SEATS):
        won[q] = 0
    prev = 0
    while True:
        level = -1
        for q in range(N_SEATS):
            c = s[CONTRIB + q]
            if c > prev and (level < 0 or c < level):
                level = c
        if level < 0:
            return
        layer = 0
        for q in range(N_SEATS):
            layer += min(s[CONTRIB + q], level) - min(s[CONTRIB + q], prev)
        reach = False  # some seat still in put in this much
        for q in range(N_SEATS):
            if values[q] >= 0 and s[CONTRIB + q] >= level:
                reach = True
        best, n_best = -1, 0
        for q in range(N_SEATS):
            if values[q] >= 0 and (s[CONTRIB + q] >= level or not reach):
                if values[q] > best:
                    best, n_best = values[q], 1
                elif values[q] == best:
                    n_best += 1
        for q in range(N_SEATS):
            if values[q] == best and (s[CONTRIB + q] >= level or not reach):
                won[q] += layer // n_best
        prev = level


# ------------------------------------------------------------------------------------------------- kernels
@njit(cache=True)
def initial_state(p, rng):
    """The first hand dealt: 100 chips each, GBG's first dealer ``player_0``, the blinds posted."""
    s = np.zeros(STATE_SIZE, dtype=np.int32)
    s[MOVER] = -1
    for q in range(N_SEATS):
        s[CHIPS + q] = START_CHIPS
    s[PHASE] = NEW_HAND
    digits = np.array([-1, 1], dtype=np.int64)
    _advance(p, s, rng, digits)
    return s


@njit(cache=True)
def legal_actions(p, s, mask):
    """GBG's ``setAvailableActions``: fold and all-in always; check, or bet when the stack exceeds a big blind,
    while nothing is owed; call when the stack exceeds what is owed, raise when it exceeds that plus a big blind.
    ``showdown`` alone once the board is out."""
    mask[:] = 0
    if s[TERMINAL]:
        return 0
    if s[PHASE] == SHOWN:
        mask[SHOWDOWN] = 1
        return 1
    if s[PHASE] != BETTING:
        return 0  # an afterstate waiting for its chance event
    q = s[TO_MOVE]
    owed, chips = to_call(s, q), s[CHIPS + q]
    mask[FOLD] = 1
    mask[ALL_IN] = 1
    n = 2
    if owed == 0:
        mask[CHECK] = 1
        n += 1
        if chips > BIG_BLIND:
            mask[BET] = 1
            n += 1
    else:
        if chips > owed:
            mask[CALL] = 1
            n += 1
        if chips > owed + BIG_BLIND:
            mask[RAISE] = 1
            n += 1
    return n


@njit(cache=True)
def afterstate(p, s, a, out, rewards):
    """The action ``a`` of the seat to act with nothing dealt yet; a fold or the showdown shares out the pot, and
    when that ends the game every seat gets its chip change over the game (over the start chips)."""
    copy_state(s, out)
    rewards[:] = 0.0
    mover = out[TO_MOVE]
    out[PLY] += 1
    out[MOVER] = mover
    won = np.zeros(N_SEATS, dtype=np.int64)
    values = np.zeros(N_SEATS, dtype=np.int64)
    if a == SHOWDOWN:
        hand_values(out, values)
        share_pot(out, values, won)
        _end_hand(p, out, won, rewards)
        out[TO_MOVE] = (mover + 1) % N_SEATS
        return
    out[PENDING + mover] = 0
    owed = to_call(out, mover)
    if a == FOLD:
        out[FOLDED + mover] = 1
        live, pot = 0, 0
        for q in range(N_SEATS):
            pot += out[CONTRIB + q]
            if out[FOLDED + q] == 0:
                live += 1
        if live == 1:  # the last seat in takes the pot
            for q in range(N_SEATS):
                if out[FOLDED + q] == 0:
                    won[q] = pot
            _end_hand(p, out, won, rewards)
            out[TO_MOVE] = (mover + 1) % N_SEATS
            return
    elif a == BET:
        _put(out, mover, BIG_BLIND)
        _reopen(out, mover)
    elif a == CALL:
        _put(out, mover, owed)
    elif a == RAISE:
        _put(out, mover, owed + BIG_BLIND)
        _reopen(out, mover)
    elif a == ALL_IN:
        chips = out[CHIPS + mover]
        _put(out, mover, chips)
        if chips > owed:
            _reopen(out, mover)
    nxt = _next_pending(out, (mover + 1) % N_SEATS)
    if nxt >= 0:
        out[TO_MOVE] = nxt
    else:
        out[PHASE] = CARDS
        out[TO_MOVE] = (mover + 1) % N_SEATS


@njit(cache=True)
def chance(p, s, rng):
    """Deal what is owed before the next decision (see :func:`_advance`)."""
    digits = np.array([-1, 1], dtype=np.int64)
    return _advance(p, s, rng, digits)


@njit(cache=True)
def chance_outcome_count(p, s):
    """The number of card sequences the chance event after the afterstate ``s`` may deal (each card uniform over
    the cards not dealt, in order: a falling product of deck sizes); 0 when nothing is owed."""
    if s[PHASE] != NEW_HAND and s[PHASE] != CARDS:
        return 0
    t = s.copy()
    digits = np.array([0, 1], dtype=np.int64)
    _advance(p, t, np.zeros(1, dtype=np.uint64), digits)
    return digits[1]


@njit(cache=True)
def apply_chance_outcome(p, s, i):
    """Deal the ``i``-th card sequence (its digits over the deck sizes, first card lowest) in place; every
    sequence has the same probability, returned."""
    digits = np.array([i, 1], dtype=np.int64)
    _advance(p, s, np.zeros(1, dtype=np.uint64), digits)
    return 1.0 / digits[1]


@njit(cache=True)
def board(p, s, out):
    """The last mover's view (his hole cards + 1; 0 before any move), the board (card + 1, 0 not dealt), his and
    the other seat's stacks and contributions in chip units, the phase and the street."""
    me = s[MOVER]
    for j in range(2):
        out[j] = 0 if me < 0 else s[HOLE + 2 * me + j] + 1
    for i in range(5):
        out[2 + i] = s[BOARD + i] + 1
    m = 0 if me < 0 else me
    o = (m + 1) % N_SEATS
    out[7] = s[CHIPS + m] // CHIP_UNIT
    out[8] = s[CHIPS + o] // CHIP_UNIT
    out[9] = s[CONTRIB + m] // CHIP_UNIT
    out[10] = s[CONTRIB + o] // CHIP_UNIT
    out[11] = s[PHASE]
    out[12] = s[STREET]


@njit(cache=True)
def observe(p, s, seat, out):
    """``seat``'s view, ``int8[OBS_SIZE]``: its hole cards (one-hot over 52), the board (one-hot over 52), the
    street (one-hot), its and the other seat's stack and contribution in chip units, the button (1 if its
    own), the phase (one-hot), the hands left (``hands`` > 0; at most 40)."""
    out[:] = 0
    for j in range(2):
        c = s[HOLE + 2 * seat + j]
        if c >= 0:
            out[c] = 1
    for i in range(5):
        c = s[BOARD + i]
        if c >= 0:
            out[DECK + c] = 1
    o = 2 * DECK
    out[o + s[STREET]] = 1
    other = (seat + 1) % N_SEATS
    out[o + 4] = s[CHIPS + seat] // CHIP_UNIT
    out[o + 5] = s[CHIPS + other] // CHIP_UNIT
    out[o + 6] = s[CONTRIB + seat] // CHIP_UNIT
    out[o + 7] = s[CONTRIB + other] // CHIP_UNIT
    out[o + 8] = 1 if s[BUTTON] == seat else 0
    out[o + 9 + s[PHASE]] = 1
    if p[P_HANDS] > 0:
        out[o + 14] = min(40, max(0, p[P_HANDS] - s[HAND]))


OBS_SIZE = 2 * DECK + 15
OBS_HIGH = TOTAL_CHIPS // CHIP_UNIT
