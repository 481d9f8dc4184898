"""Alpha-beta with the learned evaluation: iterative deepening (ID) with move ordering, or a fixed depth.

The comparison search of Cohen-Solal 2020 (Sec. 3.2 and 6.2) and the match player of
its protocol ("alpha-beta at fixed depth"). Values are from the first
player's point of view (max for the first player, min for the second).

Completion is folded into one number: a terminal state of result w and
heuristic value f scores ``w · BIG + f``, a non-terminal leaf its f_θ value,
with ``BIG`` larger than twice any value; the minimax of these numbers is the
lexicographic minimax of the pairs (r, v) of Alg. 9, so a proven win is
preferred to any unresolved value and a proven loss is avoided.

Move ordering: at every inner node the children are tried best first by
their static value (f_θ or the terminal score), after the best move of the
previous, shallower iteration (kept in a table keyed by the state bytes).
Expansions are cached for the whole move, so deeper iterations do not
recompute children.

``tree_data()`` gives the states searched in the last completed iteration
whose value is exact (inside the alpha-beta window), for tree learning with ID.
"""
from __future__ import annotations

import time

import numpy as np

from farl_agents.descent.expand import Expander


class _Timeout(Exception):
    pass


class AlphaBeta:
    """Alpha-beta over f_θ (``evaluation``) and f_t (``heuristic``); see the module docstring."""

    clock = staticmethod(time.perf_counter)
    """The clock of the time budget (the trainer sets ``time.process_time`` for CPU-second budgets)."""

    def __init__(self, game, evaluation, heuristic):
        self.game = game
        self.evaluation = evaluation
        self.heuristic = heuristic
        self.expander = Expander(game)
        self.big = 10.0 * heuristic.scale
        self._cache: dict[bytes, tuple] = {}
        self._best: dict[bytes, int] = {}
        self._exact: dict[bytes, tuple] = {}
        self.depth_reached = 0
        self.nodes = 0

    def clear(self) -> None:
        self._cache, self._best, self._exact = {}, {}, {}

    def _children(self, key: bytes, state: np.ndarray):
        got = self._cache.get(key)
        if got is None:
            acts, states, boards, term, res, pieces = self.expander(state)
            static = np.empty(len(acts))
            live = np.flatnonzero(term == 0)
            if len(live):
                static[live] = self.evaluation.values(boards[live])
            h = self.heuristic
            for k in np.flatnonzero(term):
                static[k] = res[k] * self.big + h.value(int(res[k]), int(states[k][2]), int(pieces[k, 0]),
                                                        int(pieces[k, 1]), state=states[k])
            got = (acts, states, boards, term, static)
            self._cache[key] = got
        return got

    def _ab(self, key, state, board, depth, alpha, beta):
        self.nodes += 1
        if self._deadline is not None and (self.nodes & 63) == 0 and self.clock() > self._deadline:
            raise _Timeout
        acts, states, boards, term, static = self._children(key, state)
        first = state[0] == 0
        order = np.argsort(-static if first else static, kind="stable")
        prev = self._best.get(key)
        if prev is not None:
            order = np.concatenate(([prev], order[order != prev]))
        a0, b0 = alpha, beta
        best, best_i = (-np.inf if first else np.inf), int(order[0])
        for i in order:
            if term[i] or depth <= 1:
                v = static[i]
            else:
                st = states[i]
                v = self._ab(st.tobytes(), st, boards[i], depth - 1, alpha, beta)
            if first:
                if v > best:
                    best, best_i = v, int(i)
                alpha = max(alpha, v)
            else:
                if v < best:
                    best, best_i = v, int(i)
                beta = min(beta, v)
            if alpha >= beta:
                break
        self._best[key] = best_i
        if a0 < best < b0:
            self._exact[key] = (board, best)
        return best

    def search(self, state: np.ndarray, depth: int | None = None, seconds: float | None = None,
               max_depth: int = 64):
        """Best action and its value: fixed ``depth``, or iterative deepening for ``seconds``.

        ID returns the result of the deepest completed iteration (depth 1 always completes).
        """
        if depth is None and seconds is None:
            raise ValueError("give a depth or a time budget in seconds")
        state = np.ascontiguousarray(state, dtype=np.int32)
        if state[1]:
            raise ValueError("no move in a terminal position")
        self._cache, self._best = {}, {}
        key = state.tobytes()
        board = self.expander.board(state)
        self.nodes = 0
        if depth is not None:
            self._deadline = None
            self._exact = {}
            v = self._ab(key, state, board, int(depth), -np.inf, np.inf)
            self.depth_reached = int(depth)
            return int(self._cache[key][0][self._best[key]]), v
        self._deadline = self.clock() + seconds
        result = None
        for d in range(1, max_depth + 1):
            exact_before = self._exact
            self._exact = {}
            try:
                v = self._ab(key, state, board, d, -np.inf, np.inf)
            except _Timeout:
                self._exact = exact_before
                if result is not None:
                    break
                self._deadline = None  # depth 1 must finish
                v = self._ab(key, state, board, 1, -np.inf, np.inf)
            result = (int(self._cache[key][0][self._best[key]]), v)
            self.depth_reached = d
            if abs(v) >= self.big / 2 or self._deadline is None:  # proven result or forced finish
                break
            if d >= self.game.max_plies - int(state[2]):  # the whole game tree fits in this depth
                break
        self._deadline = None
        return result

    def root_children(self, state: np.ndarray):
        """(actions, completed values) of the root's children after a search (deeper values where searched)."""
        key = np.ascontiguousarray(state, dtype=np.int32).tobytes()
        acts, states, boards, term, static = self._cache[key]
        return acts, static

    def tree_data(self):
        """(boards, values) of the exact values of the last completed iteration (first player's view)."""
        if not self._exact:
            return np.zeros((0, self.game.n_cells), dtype=np.int32), np.zeros(0)
        boards = np.stack([b for b, _ in self._exact.values()])
        vals = np.array([v for _, v in self._exact.values()])
        r = np.round(vals / self.big)
        return boards, vals - r * self.big
