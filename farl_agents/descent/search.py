"""UBFM, descent, completion and UBFMs over a transposition table (Cohen-Solal 2020, Alg. 1 and 8-11).

The tree is a dictionary ``table`` (T in the paper) from the state's bytes to
a :class:`Node`. Values are from the **first player's** point of view: the
first player maximises, the second minimises (``best_action`` of Alg. 1).

* ``algorithm="ubfm"`` (Alg. 1): an iteration walks from the root along the
  best children to a leaf and expands it (all its children are evaluated by
  f_θ, or by f_t when terminal), then backs the minimax values up the path.
* ``algorithm="descent"`` (Alg. 8): the same walk, but after expanding a
  leaf it keeps going through the best child, expanding, until a terminal
  state: every iteration extends the best line to the end of the game.
* ``completion=True`` (Alg. 9): every node also carries a resolved value
  r ∈ {−1, 0, 1} (terminal: the result w; unresolved leaf: 0; inner node:
  the minimax of its children's r) and nodes are compared by the pair (r, v)
  in lexicographic order. A node is *solved* when r ≠ 0 (a proven win or
  loss) or when all its children are solved (e.g. a proven draw).
  **Resolution stop**: an iteration never enters a solved child, and the
  search stops as soon as the root is solved. The seed does not say which
  child to enter when the best one is solved but its parent is not (a solved
  draw beside unresolved children); we enter the best *unsolved* child.
  With ``completion=False`` nodes are compared by v only (Alg. 1 and 8 as
  printed) and solved children are still entered.
* Decision: ``best`` (UBFM / descent: the child of best (r, v)) or ``safest``
  (UBFMs, Alg. 11): a winning resolved child if there is one, else the child
  selected most often from this state (n(s, a), counted from the start of the
  game since the table lives for the whole game), ties broken by the best
  (r, v); losing resolved children are avoided when another child exists.

Ties between children of equal value go to the first in action order (the
paper's footnote: how ties are decided changes the exploration; this is
deterministic, so the search is reproducible).

Cumulative mobility needs the path to a terminal state, which a state does
not record: the search passes the sums of legal-move counts (c₁, c₂) down
its walk, starting from ``root_mobility``; a terminal state reached along
two paths keeps the value of the first (a transposition-table approximation).
"""
from __future__ import annotations

import time

import numpy as np

from farl_agents.descent.expand import Expander

ALGORITHMS = ("ubfm", "descent")
DECISIONS = ("best", "safest")


class Node:
    """One state of the tree: value v, resolved value r, solved flag, children and selection counts."""

    __slots__ = ("state", "board", "v", "r", "solved", "terminal", "expanded", "actions", "children", "counts",
                 "first")

    def __init__(self, state, board, v, r=0, terminal=False):
        self.state = state
        self.board = board
        self.v = float(v)
        self.r = int(r)
        self.terminal = bool(terminal)
        self.solved = bool(terminal)
        self.expanded = False
        self.actions = None
        self.children = None
        self.counts = None
        self.first = int(state[0]) == 0


class TreeSearch:
    """UBFM / descent search with an optional completion, over one game's transposition table.

    Args:
        game: a two-player GameSpec.
        evaluation: f_θ, an object with ``values(boards) -> float[k]`` (first player's view).
        heuristic: f_t, a :class:`~farl_agents.descent.heuristics.Heuristic`.
        algorithm: ``"ubfm"`` or ``"descent"``.
        completion: compare (r, v) and stop in solved subtrees (Alg. 9).
        decision: ``"best"`` or ``"safest"`` (UBFMs).
    """

    clock = staticmethod(time.perf_counter)
    """The clock of the per-move budget (the trainer sets ``time.process_time`` for CPU-second budgets)."""

    def __init__(self, game, evaluation, heuristic, algorithm: str = "descent", completion: bool = True,
                 decision: str = "best"):
        if algorithm not in ALGORITHMS:
            raise ValueError(f"algorithm must be one of {ALGORITHMS}, got {algorithm!r}")
        if decision not in DECISIONS:
            raise ValueError(f"decision must be one of {DECISIONS}, got {decision!r}")
        self.game = game
        self.evaluation = evaluation
        self.heuristic = heuristic
        self.algorithm = algorithm
        self.completion = bool(completion)
        self.decision = decision
        self.expander = Expander(game)
        self.table: dict[bytes, Node] = {}
        self.root_mobility = (0, 0)
        self.iterations_done = 0

    def clear(self) -> None:
        """Forget the tree (a new game)."""
        self.table = {}

    # ------------------------------------------------------------ nodes
    def node(self, state: np.ndarray) -> Node:
        """The node of ``state``, created (and evaluated) if it is not in T."""
        key = state.tobytes()
        nd = self.table.get(key)
        if nd is None:
            state = np.array(state, dtype=np.int32)
            board = self.expander.board(state)
            if state[1]:
                raise ValueError("the root of a search must not be terminal")
            nd = Node(state, board, self.evaluation.values(board[None, :])[0])
            self.table[key] = nd
        return nd

    def _expand(self, nd: Node, c1: int, c2: int) -> None:
        acts, states, boards, term, res, pieces = self.expander(nd.state)
        n = len(acts)
        if nd.first:
            c1 += n
        else:
            c2 += n
        rows, brows = list(states), list(boards)
        keys = [row.tobytes() for row in rows]
        term_l = term.tolist()
        table = self.table
        children = [table.get(k) for k in keys]
        fresh = [k for k in range(n) if children[k] is None and not term_l[k]]
        if fresh:
            vals = self.evaluation.values(boards[fresh]).tolist()
            for k, v in zip(fresh, vals):
                children[k] = table[keys[k]] = Node(rows[k], brows[k], v)
        if any(term_l):
            h = self.heuristic
            for k in range(n):
                if term_l[k] and children[k] is None:
                    w = int(res[k])
                    fv = h.value(w, int(rows[k][2]), int(pieces[k, 0]), int(pieces[k, 1]), c1, c2, state=rows[k])
                    children[k] = table[keys[k]] = Node(rows[k], brows[k], fv, w, terminal=True)
        nd.actions = acts
        nd.children = children
        nd.counts = np.zeros(n, dtype=np.int64)
        nd.expanded = True
        self._backup(nd)

    def _key(self, ch: Node):
        return (ch.r, ch.v) if self.completion else ch.v

    def best_index(self, nd: Node, unsolved_only: bool = False) -> int:
        """Index of the best child of an expanded node: max (first player) / min of (r, v) or v; -1 if none."""
        best, best_key = -1, None
        first = nd.first
        for i, ch in enumerate(nd.children):
            if unsolved_only and ch.solved:
                continue
            k = (ch.r, ch.v) if self.completion else ch.v
            if best < 0 or (k > best_key if first else k < best_key):
                best, best_key = i, k
        return best

    def _backup(self, nd: Node) -> None:
        """v(s) from the best child; r(s) the minimax of the children's r; solved flag."""
        children = nd.children
        i = self.best_index(nd)
        nd.v = children[i].v
        rs = [ch.r for ch in children]
        nd.r = max(rs) if nd.first else min(rs)
        nd.solved = nd.r != 0 or all(ch.solved for ch in children)

    # -------------------------------------------------------- iterations
    def _iterate(self, nd: Node, c1: int, c2: int) -> None:
        """One UBFM / descent iteration from ``nd`` (Alg. 1 / 8, with Alg. 9's stop when completing)."""
        if nd.terminal or (self.completion and nd.solved):
            return
        if not nd.expanded:
            self._expand(nd, c1, c2)
            if self.algorithm == "ubfm" or (self.completion and nd.solved):
                return
        i = self.best_index(nd, unsolved_only=self.completion)
        if i < 0:  # every child solved through another path: refresh this node's stale flags
            self._backup(nd)
            return
        nd.counts[i] += 1
        if nd.first:
            c1 += len(nd.children)
        else:
            c2 += len(nd.children)
        self._iterate(nd.children[i], c1, c2)
        self._backup(nd)

    def search(self, state: np.ndarray, iterations: int | None = None, seconds: float | None = None) -> Node:
        """Extend the tree from ``state`` for ``iterations`` iterations or ``seconds`` (at least one iteration).

        Stops early once the root is solved (completion). Returns the root node.
        """
        if iterations is None and seconds is None:
            raise ValueError("give a budget: iterations or seconds")
        root = self.node(state)
        deadline = None if seconds is None else self.clock() + seconds
        c1, c2 = self.root_mobility
        done = 0
        while True:
            if self.completion and root.solved and root.expanded:
                break
            self._iterate(root, c1, c2)
            done += 1
            if iterations is not None and done >= iterations:
                break
            if deadline is not None and self.clock() >= deadline:
                break
        self.iterations_done = done
        return root

    # ---------------------------------------------------------- decisions
    def safest_index(self, nd: Node) -> int:
        """UBFMs' decision (Alg. 11): winning resolved child, else the most selected non-losing one."""
        win = 1 if nd.first else -1
        children = nd.children
        winning = [i for i, ch in enumerate(children) if ch.r == win and ch.solved]
        pool = winning or [i for i, ch in enumerate(children) if ch.r != -win] or list(range(len(children)))
        sign = 1 if nd.first else -1
        if winning:
            return max(pool, key=lambda i: (sign * children[i].v, -i))
        return max(pool, key=lambda i: (nd.counts[i], sign * children[i].r, sign * children[i].v, -i))

    def decide(self, nd: Node) -> int:
        """The action chosen at an expanded node by this search's decision rule."""
        i = self.safest_index(nd) if self.decision == "safest" else self.best_index(nd)
        return int(nd.actions[i])

    def act(self, state: np.ndarray, iterations: int | None = None, seconds: float | None = None) -> int:
        return self.decide(self.search(state, iterations, seconds))

    # ------------------------------------------------------ learning data
    def tree_data(self):
        """(boards, values) of every state of T that is a non-leaf or terminal (tree learning's set)."""
        nodes = [nd for nd in self.table.values() if nd.expanded or nd.terminal]
        if not nodes:
            return np.zeros((0, self.game.n_cells), dtype=np.int32), np.zeros(0)
        return np.stack([nd.board for nd in nodes]), np.array([nd.v for nd in nodes])
