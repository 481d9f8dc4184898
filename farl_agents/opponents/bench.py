"""Othello "Bench": the positional benchmark player of van der Ree & Wiering (2013).

Bench looks one ply ahead: for every legal move it evaluates the resulting
board with a fixed weighted piece counter,

    score(board) = sum_c w[c] * (+1 if c holds the mover's disc,
                                 -1 if it holds the opponent's, 0 if empty),

and plays a move with the highest score, drawing uniformly among equal
scores (Table 1's "Bench [14]"). No look-ahead beyond the move, no special
treatment of game-ending moves (as in GBG, whose "strong" option is off).

GBG's own Bench, the one the paper played, differs in one case: it scores
the board for the opponent of whoever is to move after the move, and in GBG
the mover stays to move when the opponent has no move, which includes the
game's last move. So after a move that forces the opponent to pass or ends
the game, GBG's Bench counts the board from the opponent's side, i.e. with
the wrong sign (it avoids such moves when they are good and seeks them when
they are bad). ``BenchPlayer(gbg=True)`` (opponent name ``"bench-gbg"``)
reproduces that to compare with the paper's figures; the default is the
player as described above. Our trained agents score 1-2 points more
against the GBG version (measured on six Table 1 agents).

Source of the weights (facts, not code): GBG, ``src/games/Othello/
ConfigOthello.java``, ``BENCHMARKPLAYERMAPPING[1]`` ("mode=1: BenchPlayer"),
used by ``BenchmarkPlayer/BenchMarkPlayer.java``; this is the player GBG
evaluates against in the paper (Konen & Bagheri 2020, Table 1). GBG indexes the board as
``gameState[i][j]`` -> ``8 * i + j`` with white on ``[3][3]`` and ``[4][4]``
and black (who moves first) on ``[3][4]`` and ``[4][3]``, exactly farl's
``cell = 8 * row + col`` with white on d4 = 27 and e5 = 36, so the table is
used as is. Note that this table is *not* symmetric (it was learned, not
designed). GBG's other mode (``BENCHMARKPLAYERMAPPING[0]``, "HeurPlayer",
the classic symmetric table with corners 100 and X/C squares -25) is
available as ``BenchPlayer(table="heur")``.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from farl_agents.opponents.search_hooks import search_kernels
from farl_envs.core.kernels import afterstate, legal_actions
from farl_envs.core.rng import rng_below
from farl_envs.core.spec import HEADER, TERMINAL, TO_MOVE, GameSpec

# GBG ConfigOthello.BENCHMARKPLAYERMAPPING[1], row-major, row 0 = rank 1 (a1..h1)
BENCH_WEIGHTS = np.array([
    80, -26, 24, -1, -5, 28, -18, 76,
    -23, -39, -18, -9, -6, -8, -39, -1,
    46, -16, 4, 1, -3, 6, -20, 52,
    -13, -5, 2, -1, 4, 3, -12, -2,
    -5, -6, 1, -2, -3, 0, -9, -5,
    48, -13, 12, 5, 0, 5, -24, 41,
    -27, -53, -11, -1, -11, -16, -58, -15,
    87, -25, 27, -1, 5, 36, -3, 100,
], dtype=np.float64)

# GBG ConfigOthello.BENCHMARKPLAYERMAPPING[0] ("HeurPlayer"), symmetric
HEUR_WEIGHTS = np.array([
    100, -25, 10, 5, 5, 10, -25, 100,
    -25, -25, 2, 2, 2, 2, -25, -25,
    10, 2, 5, 1, 1, 5, 2, 10,
    5, 2, 1, 2, 2, 1, 2, 5,
    5, 2, 1, 2, 2, 1, 2, 5,
    10, 2, 5, 1, 1, 5, 2, 10,
    -25, -25, 2, 2, 2, 2, -25, -25,
    100, -25, 10, 5, 5, 10, -25, 100,
], dtype=np.float64)

TABLES = {"bench": BENCH_WEIGHTS, "heur": HEUR_WEIGHTS}


@njit(cache=True)
def weighted_count(s, weights, seat):
    """The weighted piece count of the board in ``s`` from ``seat``'s side (disc ``seat + 1``)."""
    total = 0.0
    me = seat + 1
    for c in range(weights.shape[0]):
        v = s[HEADER + c]
        if v == me:
            total += weights[c]
        elif v != 0:
            total -= weights[c]
    return total


@njit(cache=True)
def greedy_positional(kernels, p, s, weights, mask, out, rew, rng, gbg, mask2):
    """One-ply greedy move on ``weighted_count``, ties drawn uniformly from ``rng``.

    ``kernels`` is the game's :func:`~farl_agents.opponents.search_hooks.search_kernels`.

    ``gbg``: negate the count after a move that ends the game or leaves the
    opponent only the pass (action ``mask2.shape[0] - 1``), as GBG's Bench
    does (see the module docstring); ``mask2`` is scratch for that test.
    """
    legal_actions(kernels, p, s, mask)
    mover = s[TO_MOVE]
    pass_action = mask2.shape[0] - 1
    best = -np.inf
    count = 0
    choice = -1
    for a in range(mask.shape[0]):
        if mask[a] == 0:
            continue
        afterstate(kernels, p, s, a, out, rew)
        v = weighted_count(out, weights, mover)
        if gbg:
            if out[TERMINAL]:
                v = -v
            else:
                legal_actions(kernels, p, out, mask2)
                if mask2[pass_action]:
                    v = -v
        if v > best:
            best = v
            choice = a
            count = 1
        elif v == best:
            count += 1
            if rng_below(rng, count) == 0:  # reservoir sampling: uniform among the ties
                choice = a
    return choice


class BenchPlayer:
    """Othello Bench player (1-ply greedy on a positional weight table).

    Args:
        table: ``"bench"`` (default, the BenchPlayer of GBG / van der Ree &
            Wiering) or ``"heur"`` (GBG's symmetric HeurPlayer table), or
            an array of 64 weights (``cell = 8 * row + col``).
        name: display name, default ``"Bench"`` (or ``"Heur"``; ``"Bench-GBG"``
            with ``gbg``).
        gbg: score moves after which the opponent must pass or the game ends
            with the opposite sign, as GBG's BenchMarkPlayer does (the paper's
            opponent); see the module docstring.
    """

    def __init__(self, table="bench", name: str | None = None, gbg: bool = False):
        if isinstance(table, str):
            if table not in TABLES:
                raise ValueError(f"table must be one of {sorted(TABLES)} or 64 weights, got {table!r}")
            self.weights = TABLES[table].copy()
            default = "Bench" if table == "bench" else "Heur"
        else:
            w = np.asarray(table, dtype=np.float64)
            if w.shape != (64,) or not np.all(np.isfinite(w)):
                raise ValueError(f"a weight table must be 64 finite numbers, got shape {w.shape}")
            self.weights = w.copy()
            default = "Positional"
        self.gbg = bool(gbg)
        if self.gbg and name is None:
            default += "-GBG"
        self.name = name if name is not None else default
        self._key = None

    def __repr__(self) -> str:
        return f"BenchPlayer(name={self.name!r})"

    def act(self, game: GameSpec, state: np.ndarray, rng: np.ndarray) -> int:
        if game.name != "othello":
            raise ValueError(f"BenchPlayer plays Othello only, got {game.id}")
        if state[TERMINAL]:
            raise ValueError(f"{game.id}: no move in a terminal position")
        if self._key is None:
            self._bufs = (np.zeros(game.n_actions, dtype=np.int8), np.zeros(game.state_size, dtype=np.int32),
                          np.zeros(game.n_players), np.zeros(game.n_actions, dtype=np.int8))
            self._key = game.id
        mask, out, rew, mask2 = self._bufs
        return int(greedy_positional(search_kernels(game), game.p,
                                     np.ascontiguousarray(state, dtype=np.int32), self.weights,
                                     mask, out, rew, rng, self.gbg, mask2))

    score_kind = "positional score after the move"
    """What :meth:`move_scores` gives (``farl serve`` shows it beside the scores)."""

    def move_scores(self, game: GameSpec, state: np.ndarray, rng: np.ndarray) -> np.ndarray:
        """``float64[65]``: the score :meth:`act` maximises for each legal move (the weighted piece count
        of the board after the move, from the mover's side; with ``gbg`` negated after a move that ends
        the game or leaves the opponent only the pass), NaN for illegal moves. ``rng`` is not used."""
        if game.name != "othello":
            raise ValueError(f"BenchPlayer plays Othello only, got {game.id}")
        mask, mask2 = np.zeros(game.n_actions, dtype=np.int8), np.zeros(game.n_actions, dtype=np.int8)
        after, rew = np.zeros(game.state_size, dtype=np.int32), np.zeros(game.n_players)
        game.legal_actions(game.p, state, mask)
        mover = int(state[TO_MOVE])
        scores = np.full(game.n_actions, np.nan)
        for a in np.flatnonzero(mask):
            game.afterstate(game.p, state, int(a), after, rew)
            v = weighted_count(after, self.weights, mover)
            if self.gbg:
                if not after[TERMINAL]:
                    game.legal_actions(game.p, after, mask2)
                if after[TERMINAL] or mask2[game.n_actions - 1]:
                    v = -v
            scores[a] = v
        return scores
