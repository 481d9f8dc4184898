"""The exact Connect Four solver as a Python object, its score convention,
and the file format of its opening book.

Score convention (that of the usual Connect Four solver benchmarks)
------------------------------------------------------------------
``0`` for a draw.  If the player to move can force a win, ``22 - k`` where
``k`` is the number of discs that player has on the board after its winning
move under best play by both sides (winning with the 4th disc scores 18, with
the 21st and last disc 1).  If the player to move loses, minus the opponent's
such score.  So larger is better for the mover, a faster win scores more and
a slower loss scores more (is less negative).  With ``n`` discs on the board a
win by the mover's very next disc scores ``(43 - n) // 2``.

What this module gives
----------------------
* ``Solver``: the transposition table, the book arrays and a node budget
  around the compiled search of
  :mod:`~farl_agents.opponents.connect_four.search`, with queries on bitboard
  positions (``score``, ``at_least``, ``move_scores``, ``best_moves`` ...);
  ``default_solver()`` is one shared instance with the packaged book.
* ``solve(moves)`` / ``analyze(moves)``: the exact score of the position
  after a string of 1-based column digits ("4453"), and of each of its seven
  moves.  Always exact, however long that takes.
* ``loss_delay``: how many plies a losing score leaves until the end.
* The book file: ``DEFAULT_BOOK_PATH`` (the packaged
  ``farl_agents/opponents/data/c4_book.npz``), ``load_book`` and
  ``save_book``.  A book maps canonical position keys
  (:func:`~farl_agents.opponents.connect_four.bitboard.canonical_key`) to
  exact scores; the file is an ``.npz`` with ``keys`` (sorted ``uint64``),
  ``scores`` (``int8``), ``max_ply``, ``format`` (``BOOK_FORMAT``) and the
  builder's metadata.  The builder
  (:mod:`farl_agents.opponents.connect_four.book`) imports this module, never
  the reverse.
"""
from __future__ import annotations

import os
from typing import Optional

import numpy as np

from farl_agents.opponents.connect_four import search
from farl_agents.opponents.connect_four.bitboard import N_CELLS, WIDTH, position_from_moves

#: Default number of transposition-table entries (int64 each: 128 MiB).
DEFAULT_TT_ENTRIES = 1 << 24

#: The packaged opening book (listed in pyproject's package data).
DEFAULT_BOOK_PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data",
                                 "c4_book.npz")
#: Version of the book file layout; ``load_book`` refuses other versions.
BOOK_FORMAT = 1


# --------------------------------------------------------------------------
# Book file
# --------------------------------------------------------------------------
def load_book(path) -> tuple[np.ndarray, np.ndarray, int]:
    """``(keys int64 sorted, scores int8, max_ply)`` from a book file."""
    with np.load(path) as z:
        if int(z["format"]) != BOOK_FORMAT:
            raise ValueError(f"{path}: unsupported book format {int(z['format'])}")
        keys = z["keys"].astype(np.int64)
        scores = z["scores"].astype(np.int8)
        max_ply = int(z["max_ply"])
    return keys, scores, max_ply


def save_book(path, table: dict, max_ply: int, **meta) -> None:
    """Write ``{canonical key: score}`` as a sorted, compressed ``.npz``
    (atomically: a temporary file is renamed over ``path``)."""
    keys = np.array(sorted(table), dtype=np.uint64)
    scores = np.array([table[int(k)] for k in keys], dtype=np.int8)
    os.makedirs(os.path.dirname(os.path.abspath(path)) or ".", exist_ok=True)
    tmp = str(path) + ".tmp.npz"
    np.savez_compressed(tmp, keys=keys, scores=scores, max_ply=np.int64(max_ply),
                        format=np.int64(BOOK_FORMAT),
                        **{k: np.asarray(v) for k, v in meta.items()})
    os.replace(tmp, path)


# --------------------------------------------------------------------------
# Solver object (owns the transposition table and the book)
# --------------------------------------------------------------------------
class SearchAborted(RuntimeError):
    """A search ran out of its node budget (``Solver.set_budget``)."""


class Solver:
    """Exact Connect Four solver with its transposition table and book.

    The table (``tt_entries`` int64 entries, rounded to twice a prime, plus
    the small near-end region, see ``search.NEAR_END_PLY``) is reused
    between calls: its entries are true bounds, so it only ever speeds later
    searches up (moves of the same game share most of their trees).
    ``book`` is a path to a book file (``load_book``; built by
    :func:`farl_agents.opponents.connect_four.book.build_book`), ``None`` for
    the packaged book when it exists, or ``False`` for no book.
    """

    def __init__(self, tt_entries: int = DEFAULT_TT_ENTRIES, book=None):
        big = _next_prime(max(2, int(tt_entries)) // 2)
        self.tt = np.full(2 * (search.NEAR_END_BUCKETS + big), -1, dtype=np.int64)
        # ctx: nodes searched, root ply, node limit (0 = none), aborted flag
        self.ctx = np.zeros(4, dtype=np.int64)
        self.scratch = np.zeros((N_CELLS + 2, 16), dtype=np.int64)
        self.horizon = search.NO_HORIZON
        self.book_keys = np.zeros(0, dtype=np.int64)
        self.book_vals = np.zeros(0, dtype=np.int8)
        self.book_ply = -1
        if book is None:
            book = DEFAULT_BOOK_PATH if os.path.exists(DEFAULT_BOOK_PATH) else False
        if book is not False:
            self.load_book(book)

    # -- book ---------------------------------------------------------------
    def load_book(self, path) -> None:
        """Use the book file at ``path`` (see ``load_book``) from now on."""
        keys, vals, max_ply = load_book(path)
        self.set_book(keys, vals, max_ply)

    def set_book(self, keys: np.ndarray, vals: np.ndarray, max_ply: int) -> None:
        """Use sorted canonical ``keys`` with exact ``vals`` (plies <= max_ply)."""
        keys = np.ascontiguousarray(keys, dtype=np.int64)
        vals = np.ascontiguousarray(vals, dtype=np.int8)
        if keys.shape != vals.shape:
            raise ValueError("book keys and values differ in length")
        if keys.size > 1 and not np.all(keys[1:] > keys[:-1]):
            raise ValueError("book keys must be strictly increasing")
        self.book_keys, self.book_vals = keys, vals
        self.book_ply = int(max_ply) if keys.size else -1

    @property
    def book_size(self) -> int:
        return int(self.book_keys.size)

    # -- table and budget -----------------------------------------------------
    def clear(self) -> None:
        """Forget the transposition table (e.g. to time a search cold)."""
        self.tt.fill(-1)

    @property
    def nodes(self) -> int:
        """Search nodes visited since creation (or since ``nodes = 0``)."""
        return int(self.ctx[0])

    @nodes.setter
    def nodes(self, value: int) -> None:
        self.ctx[0] = value

    def set_budget(self, max_nodes: Optional[int]) -> None:
        """Allow at most ``max_nodes`` more search nodes over the following
        queries (None: unlimited).  A query that runs out raises
        ``SearchAborted``; the table stays valid."""
        self.ctx[3] = 0
        self.ctx[2] = 0 if max_nodes is None else self.ctx[0] + max(1, int(max_nodes))

    def _args(self):
        return (self.horizon, self.tt, self.book_keys, self.book_vals, self.book_ply,
                self.ctx, self.scratch)

    def _check(self) -> None:
        if self.ctx[3]:
            raise SearchAborted("node budget exhausted")

    # -- queries on bitboard positions ---------------------------------------
    def score(self, cur: int, mask: int, n: int) -> int:
        """Exact score of a valid unfinished position (mover's view)."""
        v = int(search.exact_score(cur, mask, n, -64, 64, *self._args()))
        self._check()
        return v

    def at_least(self, cur: int, mask: int, n: int, t: int) -> bool:
        """Whether the position's exact score is >= t (cheaper than score)."""
        v = bool(search.at_least(cur, mask, n, t, *self._args()))
        self._check()
        return v

    def move_at_least(self, cur: int, mask: int, n: int, col: int, t: int) -> bool:
        """Whether playing the legal 0-based column ``col`` scores >= t."""
        v = bool(search.move_at_least(cur, mask, n, col, t, *self._args()))
        self._check()
        return v

    def move_scores(self, cur: int, mask: int, n: int) -> list[Optional[int]]:
        """Exact score of each column for the mover; None for full columns."""
        out = search.move_scores(cur, mask, n, *self._args())
        self._check()
        return [None if v == -127 else int(v) for v in out]

    def best_moves(self, cur: int, mask: int, n: int, exact_when_lost: bool = True):
        """``(v, cols)``: exact score and the 0-based columns achieving it.

        With ``exact_when_lost=False`` a lost position returns ``(-1, [])``
        without computing how long the loss can be delayed.
        """
        v, best = search.best_moves(cur, mask, n, exact_when_lost, *self._args())
        self._check()
        return int(v), [c for c in range(WIDTH) if best[c]]

    def horizon_scores(self, cur: int, mask: int, n: int, max_nodes: int) -> list[Optional[int]]:
        """Column scores from depth-limited searches, deepened 2 plies at a
        time until the node budget runs out (the deepest finished ones are
        returned).  A non-zero value is exact (the win or loss is forced
        within the horizon, and anything unresolved would score 0, which the
        side to move there would prefer); 0 means "draw or not resolved".
        Uses and clears this solver's table: use a private solver.
        """
        vals = None
        try:
            for h in range(n + 2, N_CELLS + 2, 2):
                self.clear()
                self.horizon = h
                if vals is not None and self.ctx[2] == 0:
                    # the 2-ply search always finishes; the budget (shared
                    # by all deeper iterations) starts after it
                    self.set_budget(max_nodes)
                try:
                    cur_vals = self.move_scores(cur, mask, n)
                except SearchAborted:
                    break
                vals = cur_vals
                if h >= N_CELLS or all(v != 0 for v in vals if v is not None):
                    break
        finally:
            self.horizon = search.NO_HORIZON
            self.set_budget(None)
            self.clear()
        return vals


_DEFAULT_SOLVER: Optional[Solver] = None


def _next_prime(k: int) -> int:
    """Smallest prime >= k (bucket count: ``key % prime`` mixes all columns)."""
    k = max(k, 2)
    while any(k % d == 0 for d in range(2, int(k ** 0.5) + 1)):
        k += 1
    return k


def default_solver() -> Solver:
    """The shared module-level solver (created on first use, with the book)."""
    global _DEFAULT_SOLVER
    if _DEFAULT_SOLVER is None:
        _DEFAULT_SOLVER = Solver()
    return _DEFAULT_SOLVER



# --------------------------------------------------------------------------
# Public string API
# --------------------------------------------------------------------------
def solve(moves: str, solver: Optional[Solver] = None) -> int:
    """Exact score of the position after ``moves`` (1-based column digits
    from the empty board), from the point of view of the player to move.

    0 = draw; ``22 - k`` if the mover wins with its k-th disc; minus the
    opponent's such score if the mover loses.  ``solve("") == 1``.
    Raises ValueError for invalid or finished games (see
    ``position_from_moves``).
    """
    cur, mask, n = position_from_moves(moves)
    return (solver or default_solver()).score(cur, mask, n)


def analyze(moves: str, solver: Optional[Solver] = None) -> list[Optional[int]]:
    """Score of each of the 7 columns (index 0 = column "1") for the player
    to move after ``moves``, in the ``solve`` convention from that player's
    point of view; None for a full column."""
    cur, mask, n = position_from_moves(moves)
    return (solver or default_solver()).move_scores(cur, mask, n)


def loss_delay(score: int, n: int) -> int:
    """Plies from a position with ``n`` discs until the game ends when the
    mover makes a move scoring ``score`` < 0 and the winner then wins as fast
    as possible (the mover's move and the winning disc both count).

    The winner (the opponent) places its k-th disc as its win, ``k = 22 +
    score``.  It is the first player iff ``n`` is odd, so the game ends with
    ``2k - 1`` discs if ``n`` is odd, ``2k`` if even.
    """
    k = 22 + score
    end = 2 * k - 1 if n % 2 == 1 else 2 * k
    return end - n
