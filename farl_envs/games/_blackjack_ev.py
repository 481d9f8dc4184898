"""Blackjack's basic strategy and exact expected returns under the infinite shoe (dynamic programming).

With cards drawn with replacement (ace .. nine 1/13 each, ten-valued 4/13) a hand's future depends only on
its hard total, whether it holds an ace, and whether it may still double or split; the dealer's final total
depends only on his up card (and on the peek having ruled out a blackjack). So the expected return of a
policy, and the best one, are short sums over those few states (Griffin 1999, *The Theory of Blackjack*,
ch. 2, for the method; Wizard of Odds, "Expected Returns with Infinite Decks" (wizardofodds.com, Blackjack
appendix 5), for the published figures: with the dealer standing on soft 17, double after split, unlimited
resplits and one card to split aces the house edge is 0.5093975 %, and that page's table of each two-card
hand's return is matched hand by hand in ``tests/test_blackjack_rules.py``).

:func:`expected_return` computes the return of a round under farl's rules (:mod:`farl_envs.games.blackjack`:
one split, split aces one card each) or with unlimited resplits (``resplits=None``), for ``policy="optimal"``
or ``"basic"``, the chart below. :data:`HARD`, :data:`SOFT`, :data:`PAIRS` are the standard basic strategy of
a multi-deck game where the dealer stands on soft 17 and doubling after a split is allowed, as GBG's
``BasicStrategyChart`` has it (its surrender cells, which farl's rules do not offer, read as hit);
:func:`chart_action` reads it for a state of the game, compiled, for the ``basic-strategy`` opponent and the
Monte-Carlo tests.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from numba import njit

from farl_envs.games import blackjack as bj
from farl_envs.games.blackjack import (
    ACTIVE,
    DECIDED,
    DOUBLE,
    H_ACE,
    H_CARDS,
    H_HARD,
    H_N,
    HIT,
    PHASE,
    SETTLE,
    SPLIT,
    STAND,
    UP,
    _hand,
    best_total,
    can_split,
    is_soft,
)

CARD_P = np.array([0.0] + [1 / 13] * 9 + [4 / 13])
"""``CARD_P[v]``: the probability of drawing a card of value ``v`` (1 ace .. 10) from the infinite shoe."""

# the chart: rows by the player's hand, columns the dealer's up card 2 .. 10, ace; H hit, S stand,
# D double else hit, d double else stand, P split
_UPS = "2 3 4 5 6 7 8 9 10 A".split()
_HARD_ROWS = {9: "HDDDDHHHHH", 10: "DDDDDDDDHH", 11: "DDDDDDDDDH", 12: "HHSSSHHHHH"}
_HARD_ROWS.update({t: "SSSSSHHHHH" for t in range(13, 17)})
_SOFT_ROWS = {13: "HHHDDHHHHH", 14: "HHHDDHHHHH", 15: "HHDDDHHHHH", 16: "HHDDDHHHHH", 17: "HDDDDHHHHH",
              18: "SddddSSHHH"}
_PAIR_ROWS = {1: "PPPPPPPPPP", 2: "PPPPPPHHHH", 3: "PPPPPPHHHH", 4: "HHHPPHHHHH", 5: "DDDDDDDDHH",
              6: "PPPPPHHHHH", 7: "PPPPPPHHHH", 8: "PPPPPPPPPP", 9: "PPPPPSPPSS", 10: "SSSSSSSSSS"}
CODES = {"H": 0, "S": 1, "D": 2, "d": 3, "P": 4}
C_HIT, C_STAND, C_DOUBLE_HIT, C_DOUBLE_STAND, C_SPLIT = range(5)


def _table(rows: dict, first: int, last: int, default: str) -> np.ndarray:
    """``table[total, up]`` (up 1 = ace .. 10) from rows written in the order 2 .. 10, ace."""
    out = np.full((last + 1, 11), CODES[default], dtype=np.int64)
    for t, row in rows.items():
        for j, ch in enumerate(row):
            out[t, 1 if j == 9 else j + 2] = CODES[ch]
    out[:first] = CODES["H"]
    return out


HARD = _table(_HARD_ROWS, 4, 21, "S")
HARD[4:9] = CODES["H"]
SOFT = _table(_SOFT_ROWS, 12, 21, "S")
SOFT[12] = CODES["H"]
PAIRS = _table(_PAIR_ROWS, 1, 10, "S")


@njit(cache=True)
def chart_code(hard, ace, up, two_cards, pair_card, hard_chart, soft_chart, pair_chart):
    """The chart's move for a hand (``pair_card`` > 0: a pair that may be split): one of the codes above,
    double / split already reduced to what is allowed (``two_cards``: double allowed)."""
    if pair_card > 0 and pair_chart[pair_card, up] == C_SPLIT:
        return C_SPLIT
    t = best_total(hard, ace)
    code = soft_chart[t, up] if is_soft(hard, ace) else hard_chart[t, up]
    if code == C_DOUBLE_HIT:
        return C_DOUBLE_HIT if two_cards else C_HIT
    if code == C_DOUBLE_STAND:
        return C_DOUBLE_STAND if two_cards else C_STAND
    return code


@njit(cache=True)
def chart_action(p, s, hard_chart, soft_chart, pair_chart):
    """The basic-strategy action in the game state ``s`` (``settle`` once the round is decided)."""
    if s[PHASE] == DECIDED:
        return SETTLE
    b = _hand(s[ACTIVE])
    n = s[b + H_N]
    pair = s[b + H_CARDS] if can_split(s) else 0
    code = chart_code(s[b + H_HARD], s[b + H_ACE], s[UP], n == 2, pair, hard_chart, soft_chart, pair_chart)
    if code == C_SPLIT:
        return SPLIT
    if code == C_DOUBLE_HIT or code == C_DOUBLE_STAND:
        return DOUBLE
    return STAND if code == C_STAND else HIT


def basic_strategy_action(game, state) -> int:
    """The basic-strategy action of ``game``'s (a blackjack spec) state ``state``."""
    return int(chart_action(game.p, state, HARD, SOFT, PAIRS))


# ------------------------------------------------------------------------------------------------- the dealer
def dealer_distribution(up: int, hits_soft17: bool = False, peeked: bool = True) -> dict:
    """The dealer's final total for up card ``up`` (1 ace .. 10): ``{17: p, .., 21: p, 22: p_bust}``, plus
    ``"blackjack"`` when not ``peeked``; with ``peeked`` (he has checked and has no blackjack) conditioned on
    that."""
    @lru_cache(maxsize=None)
    def play(hard: int, ace: bool) -> tuple:
        t = best_total(hard, ace)
        if t > 21:
            return ((22, 1.0),)
        if t > 17 or (t == 17 and not (hits_soft17 and is_soft(hard, ace))):
            return ((t, 1.0),)
        out: dict = {}
        for c in range(1, 11):
            for f, q in play(hard + c, ace or c == 1):
                out[f] = out.get(f, 0.0) + CARD_P[c] * q
        return tuple(out.items())

    dist: dict = {}
    for hole in range(1, 11):
        q = CARD_P[hole]
        if up + hole == 11 and up in (1, 10):
            if not peeked:
                dist["blackjack"] = dist.get("blackjack", 0.0) + q
            continue
        for f, r in play(up + hole, up == 1 or hole == 1):
            dist[f] = dist.get(f, 0.0) + q * r
    total = sum(dist.values())
    return {k: v / total for k, v in dist.items()}


def blackjack_probability(up: int) -> float:
    """The chance that the dealer has a blackjack under up card ``up`` (what his peek finds)."""
    return CARD_P[10] if up == 1 else (CARD_P[1] if up == 10 else 0.0)


# ------------------------------------------------------------------------------------------------- the player
class _Hands:
    """The values of a player's hands against one up card, the dealer having no blackjack."""

    def __init__(self, up: int, policy: str, hits_soft17: bool, resplits, resplit_aces: bool):
        self.up, self.policy, self.resplits, self.resplit_aces = up, policy, resplits, resplit_aces
        dist = dealer_distribution(up, hits_soft17)
        self.stand_table = {}
        for t in range(4, 22):
            self.stand_table[t] = sum(q for f, q in dist.items() if f == 22 or f < t) \
                - sum(q for f, q in dist.items() if f != 22 and f > t)
        self.cache: dict = {}

    def stand(self, hard: int, ace: bool) -> float:
        t = best_total(hard, ace)
        return -1.0 if t > 21 else self.stand_table[t]

    def options(self, hard: int, ace: bool, two_cards: bool) -> dict:
        """The value of each allowed action of a hand still to play (no split here)."""
        opts = {C_STAND: self.stand(hard, ace), C_HIT: sum(CARD_P[c] * self.value(hard + c, ace or c == 1, False)
                                                           for c in range(1, 11))}
        if two_cards:
            opts[C_DOUBLE_HIT] = 2 * sum(CARD_P[c] * self.stand(hard + c, ace or c == 1) for c in range(1, 11))
        return opts

    def choose(self, opts: dict, hard: int, ace: bool, two_cards: bool, pair_card: int) -> float:
        if self.policy == "optimal":
            return max(opts.values())
        code = chart_code(hard, ace, self.up, two_cards, pair_card, HARD, SOFT, PAIRS)
        if code == C_DOUBLE_STAND:
            code = C_DOUBLE_HIT
        return opts[code]

    def value(self, hard: int, ace: bool, two_cards: bool) -> float:
        """A hand that is not a pair to split: 21 or more is finished, else the policy's choice."""
        key = (hard, ace, two_cards)
        if key not in self.cache:
            t = best_total(hard, ace)
            if t >= 21:
                v = self.stand(hard, ace)
            else:
                v = self.choose(self.options(hard, ace, two_cards), hard, ace, two_cards, 0)
            self.cache[key] = v
        return self.cache[key]

    def split_hand(self, c: int, resplits) -> float:
        """One hand grown from a split card ``c`` (its expected payout), ``resplits`` more splits allowed
        (``None``: unlimited)."""
        def second(x: int) -> float:
            if c == 1:
                return self.stand(1 + x, True)  # split aces: one card each
            return self.value(c + x, c == 1 or x == 1, True)

        rest = sum(CARD_P[x] * second(x) for x in range(1, 11) if x != c)
        keep = second(c)
        if resplits == 0 or c == 1 and not self.resplit_aces:
            return rest + CARD_P[c] * keep
        if resplits is None:  # H = rest + p_c * max(keep, 2 H): the fixed point, iterated
            h = rest + CARD_P[c] * keep
            for _ in range(200):
                h = rest + CARD_P[c] * self.pick_resplit(keep, 2 * h, c)
            return h
        return rest + CARD_P[c] * self.pick_resplit(keep, 2 * self.split_hand(c, resplits - 1), c)

    def pick_resplit(self, keep: float, resplit: float, c: int) -> float:
        if self.policy == "optimal":
            return max(keep, resplit)
        return resplit if PAIRS[c, self.up] == C_SPLIT else keep

    def two_card(self, c1: int, c2: int) -> float:
        """The first two cards ``c1``, ``c2`` (not a blackjack), the dealer having none."""
        hard, ace = c1 + c2, c1 == 1 or c2 == 1
        opts = self.options(hard, ace, True)
        if c1 == c2:
            opts[C_SPLIT] = 2 * self.split_hand(c1, self.resplits)
            return self.choose(opts, hard, ace, True, c1)
        if best_total(hard, ace) == 21:
            return self.stand(hard, ace)
        return self.choose(opts, hard, ace, True, 0)


def hand_values(up: int, policy: str = "optimal", hits_soft17: bool = False, resplits=0,
                resplit_aces: bool = False) -> dict:
    """``{(c1, c2): value}`` of every two-card start (c1 <= c2, no blackjack) against ``up``, the dealer having
    no blackjack: the payout the policy expects (the Wizard of Odds table's entries)."""
    hands = _Hands(up, policy, hits_soft17, resplits, resplit_aces)
    return {(c1, c2): hands.two_card(c1, c2) for c1 in range(1, 11) for c2 in range(c1, 11)
            if not (c1 + c2 == 11 and 1 in (c1, c2))}


def expected_return(policy: str = "optimal", hits_soft17: bool = False, resplits=0,
                    resplit_aces: bool = False) -> float:
    """The expected payout of one round (a bet of 1) under the infinite shoe: ``policy`` ``"optimal"`` (the
    best policy, which knows the same as the chart: totals, the up card, what is allowed) or ``"basic"`` (the
    chart). ``resplits``: more splits allowed after the first (0, farl's rule; ``None`` unlimited);
    ``resplit_aces``: whether aces may be split again."""
    if policy not in ("optimal", "basic"):
        raise ValueError(f"policy must be 'optimal' or 'basic', got {policy!r}")
    total = 0.0
    p_player_bj = 2 * CARD_P[1] * CARD_P[10]
    for up in range(1, 11):
        q_bj = blackjack_probability(up)
        values = hand_values(up, policy, hits_soft17, resplits, resplit_aces)
        live = p_player_bj * 1.5
        for (c1, c2), v in values.items():
            live += CARD_P[c1] * CARD_P[c2] * (1 if c1 == c2 else 2) * v
        total += CARD_P[up] * (q_bj * -(1 - p_player_bj) + (1 - q_bj) * live)
    return total


# ------------------------------------------------------------------------------------------------- any player
def dealt_state(c1: int, up: int, c2: int, dealer_blackjack: bool = False) -> np.ndarray:
    """The infinite-shoe state right after a deal of ``c1``, ``c2`` to the player and ``up`` to the dealer (after
    his peek: ``dealer_blackjack`` says what it found), as :func:`~farl_envs.games.blackjack.initial_state` leaves
    it."""
    s = np.zeros(bj.STATE_SIZE, dtype=np.int32)
    bj._add_card(s, 0, c1)
    bj._add_card(s, 0, c2)
    s[bj.UP] = up
    s[bj.DEALER_CARDS] = up
    s[bj.DEALER_N] = 1
    if dealer_blackjack:
        s[bj.HOLE] = 11 - up
        s[bj.DEALER_CARDS + 1] = 11 - up
        s[bj.DEALER_N] = 2
        s[bj.DEALER_FINAL] = bj.DEALER_BLACKJACK
    if dealer_blackjack or bj.player_blackjack(s):
        s[bj.PHASE] = bj.DECIDED
    return s


def exact_return(game, choose) -> float:
    """The exact expected payout of a round under the infinite shoe when the player plays ``choose(state) ->
    action`` (a deterministic function of the n-tuple board, as an n-tuple agent's greedy choice is; it is
    asked once per board): the game tree walked through the game's own kernels, every chance event by its
    enumeration (``chance_outcome_count`` / ``apply_chance_outcome``)."""
    if game.name != "blackjack" or game.params["decks"] != 0:
        raise ValueError(f"exact_return needs blackjack with the infinite shoe, not {game.id} {game.params}")
    p = game.p
    memo: dict = {}
    cells = np.zeros(bj.N_CELLS, dtype=np.int32)
    rewards = np.zeros(1)

    def value(s: np.ndarray) -> float:
        bj.board(p, s, cells)
        key = cells.tobytes()
        if key in memo:
            return memo[key]
        a = int(choose(s))
        after = s.copy()
        bj.afterstate(p, s, a, after, rewards)
        v = float(rewards[0])
        if not after[bj.TERMINAL]:
            for i in range(bj.chance_outcome_count(p, after)):
                t = after.copy()
                q = bj.apply_chance_outcome(p, t, i)
                v += q * value(t)
        memo[key] = v
        return v

    total = 0.0
    for c1 in range(1, 11):
        for up in range(1, 11):
            for c2 in range(1, 11):
                q = CARD_P[c1] * CARD_P[up] * CARD_P[c2]
                q_bj = blackjack_probability(up)
                if q_bj:
                    total += q * q_bj * value(dealt_state(c1, up, c2, True))
                total += q * (1 - q_bj) * value(dealt_state(c1, up, c2))
    return total
