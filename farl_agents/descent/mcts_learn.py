"""UCT with the learned evaluation, as a *learning* search (Cohen-Solal 2020, Sec. 3.3 and 4.2 comparisons).

The paper compares descent with MCTS (UCT, its exploration constant lost in
the text) used inside the same learning loop. Here MCTS evaluates a new
leaf with f_θ instead of a random playout (the AlphaZero-style use of a value
function; the seed's MCTS learns f_θ, so it must consume it somewhere), and
a terminal state with f_t. Values are the first player's, scaled by the
heuristic's scale inside the UCT formula:

    score(c) = ± Q(c) / scale + C · sqrt(ln(N(s) + 1) / (N(c) + 1)),

with Q(c) = W(c) / N(c) once visited and f_θ(c) before (children are
evaluated when their parent is expanded). The decision is the most visited
child; tree learning uses every visited state with its mean value W / N.
"""
from __future__ import annotations

import math
import time

import numpy as np

from farl_agents.descent.expand import Expander


class _MNode:
    __slots__ = ("state", "board", "f", "w", "n", "r", "terminal", "children", "first")

    def __init__(self, state, board, f, r=0, terminal=False):
        self.state, self.board, self.f = state, board, float(f)
        self.w, self.n, self.r, self.terminal = 0.0, 0, int(r), bool(terminal)
        self.children = None
        self.first = int(state[0]) == 0

    @property
    def q(self) -> float:
        return self.w / self.n if self.n else self.f


class EvalMCTS:
    """UCT over f_θ / f_t with a transposition table (see the module docstring)."""

    clock = staticmethod(time.perf_counter)
    """The clock of the per-move budget (the trainer sets ``time.process_time`` for CPU-second budgets)."""

    def __init__(self, game, evaluation, heuristic, c: float = 1.0):
        self.game, self.evaluation, self.heuristic, self.c = game, evaluation, heuristic, float(c)
        self.expander = Expander(game)
        self.table: dict[bytes, _MNode] = {}
        self.root_mobility = (0, 0)
        self.iterations_done = 0

    def clear(self) -> None:
        self.table = {}

    def node(self, state) -> _MNode:
        key = state.tobytes()
        nd = self.table.get(key)
        if nd is None:
            state = np.array(state, dtype=np.int32)
            board = self.expander.board(state)
            nd = _MNode(state, board, self.evaluation.values(board[None, :])[0])
            self.table[key] = nd
        return nd

    def _expand(self, nd: _MNode, c1: int, c2: int) -> None:
        acts, states, boards, term, res, pieces = self.expander(nd.state)
        if nd.first:
            c1 += len(acts)
        else:
            c2 += len(acts)
        rows, brows = list(states), list(boards)
        keys = [row.tobytes() for row in rows]
        term_l = term.tolist()
        children = [self.table.get(k) for k in keys]
        fresh = [k for k in range(len(acts)) if children[k] is None and not term_l[k]]
        if fresh:
            for k, v in zip(fresh, self.evaluation.values(boards[fresh]).tolist()):
                children[k] = self.table[keys[k]] = _MNode(rows[k], brows[k], v)
        for k in range(len(acts)):
            if children[k] is None:
                w = int(res[k])
                fv = self.heuristic.value(w, int(rows[k][2]), int(pieces[k, 0]), int(pieces[k, 1]), c1, c2,
                                          state=rows[k])
                children[k] = self.table[keys[k]] = _MNode(rows[k], brows[k], fv, w, terminal=True)
        nd.children = children

    def _select(self, nd: _MNode) -> int:
        sign = 1.0 if nd.first else -1.0
        log_n = math.log(nd.n + 1)
        best, best_score = 0, -math.inf
        inv = 1.0 / self.heuristic.scale
        for i, ch in enumerate(nd.children):
            score = sign * ch.q * inv + self.c * math.sqrt(log_n / (ch.n + 1))
            if score > best_score:
                best, best_score = i, score
        return best

    def _iterate(self, root: _MNode) -> None:
        path = [root]
        nd = root
        c1, c2 = self.root_mobility
        while not nd.terminal:
            if nd.children is None:
                self._expand(nd, c1, c2)
                break
            if nd.first:
                c1 += len(nd.children)
            else:
                c2 += len(nd.children)
            nd = nd.children[self._select(nd)]
            path.append(nd)
        value = nd.f  # a terminal state's f_t, or f_θ of the node just expanded
        for p in path:
            p.w += value
            p.n += 1

    def search(self, state, iterations=None, seconds=None) -> _MNode:
        root = self.node(state)
        deadline = None if seconds is None else self.clock() + seconds
        done = 0
        while True:
            self._iterate(root)
            done += 1
            if iterations is not None and done >= iterations:
                break
            if deadline is not None and self.clock() >= deadline:
                break
        self.iterations_done = done
        return root

    def tree_data(self):
        nodes = [nd for nd in self.table.values() if nd.n > 0]
        if not nodes:
            return np.zeros((0, self.game.n_cells), dtype=np.int32), np.zeros(0)
        return np.stack([nd.board for nd in nodes]), np.array([nd.w / nd.n for nd in nodes])
