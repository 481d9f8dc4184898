"""Reference players of GBG's heads-up Hold'em (``poker``): a hand-strength rule player and a calling station.

Both read only what the player to move may see: the game's own observation of his seat
(:func:`farl_envs.games.poker.observe`: his two hole cards, the board, the stacks and the chips in the pot) and
the legal actions (public). Neither ever reads the other seat's hole cards from the kernel state.

``equity`` (:class:`EquityPlayer`), a documented rule player:

1. Its *equity* ``e`` is the share of the pot its hand wins at the showdown against one random hand: a
   Monte-Carlo estimate over ``samples`` draws (default 300, s.e. at most 0.03) of the other's two cards and the
   board cards still to come, uniformly from the cards it cannot see, a tie counting one half; drawn from the
   harness's rng, so a seeded evaluation repeats. Before the flop the same estimate over the two hole cards alone
   (e.g. about 0.85 for two aces, 0.35 for seven-two offsuit).
2. ``e >= all_in_at`` (0.9): all-in (the nuts on the river, aces before the flop).
3. ``e >= raise_at`` (0.65): bet, or raise when something is owed; when the stack is too short for that, all-in.
   Against an opponent who is already all-in it only calls (a raise there comes back unplayed).
4. Nothing owed: check (it never folds when checking is free).
5. Something owed: call when ``e`` reaches both the pot odds ``owed / (pot + owed)`` (the share of the pot after
   the call that the call pays for) and ``call_at`` (0.4; equity against a *random* hand overrates a hand
   facing a bet, so the weakest hands fold even at a good price); a stack too short to call calls all-in on the
   same test. Otherwise fold.
6. The ``showdown`` step when it is the only action.

``call`` (:class:`CallPlayer`): always check or call (all-in when the stack cannot cover a call), never bets,
raises or folds; the showdown when due. A calling station: the second reference, which punishes bluffs and
pays off value bets.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from farl_agents.players import legal_mask
from farl_envs.core.rng import rng_below
from farl_envs.core.spec import TO_MOVE, GameSpec
from farl_envs.games._poker_hands import hand_value
from farl_envs.games.poker import ALL_IN, BET, CALL, CHECK, CHIP_UNIT, DECK, FOLD, OBS_SIZE, RAISE, SHOWDOWN

__all__ = ["EquityPlayer", "CallPlayer", "SeatView", "seat_view", "equity"]

# the layout of the seat's observation (farl_envs.games.poker.observe): own hole cards one-hot, the board one-hot,
# then the street (one-hot, 4), own and other stack, own and other chips in the pot (units of CHIP_UNIT)
_OWN, _BOARD = 0, DECK
_STACKS = 2 * DECK + 4


class SeatView:
    """What the seat to move sees, read from its observation: its cards, the board, stacks and pot in chips."""

    __slots__ = ("seat", "hole", "board", "stack", "other_stack", "put_in", "other_put_in")

    def __init__(self, seat, hole, board, stack, other_stack, put_in, other_put_in):
        self.seat, self.hole, self.board = seat, hole, board
        self.stack, self.other_stack, self.put_in, self.other_put_in = stack, other_stack, put_in, other_put_in

    @property
    def owed(self) -> int:
        return max(0, self.other_put_in - self.put_in)

    @property
    def pot(self) -> int:
        return self.put_in + self.other_put_in


def seat_view(game: GameSpec, state: np.ndarray) -> SeatView:
    """The view of the seat to move in ``state``, built from the game's observation of that seat only."""
    seat = int(state[TO_MOVE])
    obs = np.zeros(OBS_SIZE, dtype=np.int8)
    game.observe(game.p, state, seat, obs)
    hole = [int(c) for c in np.flatnonzero(obs[_OWN:_OWN + DECK])]
    board = [int(c) for c in np.flatnonzero(obs[_BOARD:_BOARD + DECK])]
    stack, other_stack, put_in, other_put_in = (int(x) * CHIP_UNIT for x in obs[_STACKS:_STACKS + 4])
    return SeatView(seat, hole, board, stack, other_stack, put_in, other_put_in)


@njit(cache=True)
def _equity(hole, board, samples, rng):
    """Monte-Carlo showdown equity of ``hole`` (int64[2]) with ``board`` (int64[0..5]) against one random hand:
    each sample draws the other's two cards and the missing board cards from the unseen cards (a partial
    Fisher-Yates shuffle of ``rng``, uint64[1]); wins 1, ties 1/2."""
    seen = np.zeros(DECK, dtype=np.int8)
    for c in hole:
        seen[c] = 1
    for c in board:
        seen[c] = 1
    deck = np.empty(DECK, dtype=np.int64)
    n = 0
    for c in range(DECK):
        if seen[c] == 0:
            deck[n] = c
            n += 1
    known = board.shape[0]
    need = 2 + 5 - known
    mine = np.empty(7, dtype=np.int64)
    theirs = np.empty(7, dtype=np.int64)
    mine[0], mine[1] = hole[0], hole[1]
    for k in range(known):
        mine[2 + k] = board[k]
        theirs[2 + k] = board[k]
    total = 0.0
    for _ in range(samples):
        for i in range(need):
            j = i + rng_below(rng, n - i)
            deck[i], deck[j] = deck[j], deck[i]
        theirs[0], theirs[1] = deck[0], deck[1]
        for k in range(5 - known):
            mine[2 + known + k] = deck[2 + k]
            theirs[2 + known + k] = deck[2 + k]
        mv, tv = hand_value(mine), hand_value(theirs)
        if mv > tv:
            total += 1.0
        elif mv == tv:
            total += 0.5
    return total / samples


def equity(hole, board, samples: int, rng: np.ndarray) -> float:
    """The showdown equity of two hole cards with 0, 3, 4 or 5 board cards against one random hand (cards as
    ``rank * 4 + suit``), estimated from ``samples`` draws of ``rng`` (a farl ``uint64[1]`` generator)."""
    hole = np.asarray(hole, dtype=np.int64)
    board = np.asarray(board, dtype=np.int64)
    cards = np.concatenate([hole, board])
    if hole.shape != (2,) or board.shape[0] not in (0, 3, 4, 5) or len(set(cards.tolist())) != cards.shape[0] \
            or cards.min() < 0 or cards.max() >= DECK:
        raise ValueError(f"need two hole cards and 0, 3, 4 or 5 board cards, all distinct in 0..51; got "
                         f"{hole.tolist()} and {board.tolist()}")
    if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)) or samples < 1:
        raise ValueError(f"samples must be a positive integer, got {samples!r}")
    return float(_equity(hole, board, int(samples), rng))


def _check_poker(game: GameSpec, who: str) -> None:
    if game.name != "poker":
        raise ValueError(f"the {who} player plays poker only, not {game.id}")


class EquityPlayer:
    """The hand-strength rule player of the module docstring (thresholds on the Monte-Carlo equity)."""

    def __init__(self, samples: int = 300, call_at: float = 0.4, raise_at: float = 0.65, all_in_at: float = 0.9,
                 name: str = "equity"):
        if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)) or samples < 1:
            raise ValueError(f"samples must be a positive integer, got {samples!r}")
        if not 0.0 <= call_at <= raise_at <= all_in_at <= 1.0:
            raise ValueError(f"need 0 <= call_at <= raise_at <= all_in_at <= 1, got {call_at}, {raise_at}, "
                             f"{all_in_at}")
        self.samples, self.call_at, self.raise_at, self.all_in_at = int(samples), call_at, raise_at, all_in_at
        self.name = name

    def __repr__(self) -> str:
        return (f"EquityPlayer(samples={self.samples}, call_at={self.call_at}, raise_at={self.raise_at}, "
                f"all_in_at={self.all_in_at})")

    def act(self, game: GameSpec, state: np.ndarray, rng: np.ndarray) -> int:
        _check_poker(game, "equity")
        mask = legal_mask(game, state)
        if mask[SHOWDOWN]:
            return SHOWDOWN
        view = seat_view(game, state)
        e = equity(view.hole, view.board, self.samples, rng)
        return self.decide(view, mask, e)

    def decide(self, view: SeatView, mask: np.ndarray, e: float) -> int:
        """The action for equity ``e`` in ``view`` with legal actions ``mask`` (rules 2-5 of the module)."""
        owed = view.owed
        other_all_in = view.other_stack == 0
        if e >= self.raise_at and not other_all_in:
            if e >= self.all_in_at:
                return ALL_IN
            for a in (BET, RAISE):
                if mask[a]:
                    return a
            return ALL_IN  # too short for a bet or raise of one big blind
        if owed == 0:
            return CHECK
        if e >= max(self.call_at, owed / (view.pot + owed)):
            return CALL if mask[CALL] else ALL_IN  # all-in: the stack cannot cover the call
        return FOLD


class CallPlayer:
    """Always check or call (all-in when the stack cannot cover a call); the showdown when due."""

    name = "call"

    def __repr__(self) -> str:
        return "CallPlayer()"

    def act(self, game: GameSpec, state: np.ndarray, rng: np.ndarray) -> int:
        _check_poker(game, "call")
        mask = legal_mask(game, state)
        for a in (SHOWDOWN, CHECK, CALL, ALL_IN):
            if mask[a]:
                return a
        raise AssertionError("all-in is always legal while betting")
