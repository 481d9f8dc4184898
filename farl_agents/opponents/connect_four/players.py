"""The perfect Connect Four players AB and AB-DL and the opening rule of
Thill, Bagheri, Koch & Konen 2014.

The players read a farl board (``(6, 7)``, row 0 at the top) or a bitboard
position and answer from the shared
:func:`~farl_agents.opponents.connect_four.solver.default_solver` (or a
solver they are given).  :mod:`farl_agents.opponents.connect_four.harness`
puts them behind the harness protocol ``act(game, state, rng)``.

Cost of exact answers, and what the players do about it
-------------------------------------------------------
Measured on this project's machine (numba, ~15 M nodes/s, cold table), the
exact best-move set of a position takes ~10-100 ms after 12 or more discs,
~0.1-1 s after 10, seconds after 6-8, and minutes after 1-4 discs (the exact
scores of the seven first moves took ~8 CPU minutes).  An opening book that
holds every position up to ply k is therefore out of reach for k >= 3 or so;
the packaged book holds the positions a perfect player meets against any
opponent (:mod:`~farl_agents.opponents.connect_four.book`: complete through
ply 9, and the opening rule's tree through ply 5).

The players are exact at every move by default: book positions are
instant, later ones are searched on the shared table, which warms up over an
evaluation.  The price is speed before ply ~10 outside the book (see
``benchmarks/opponents_speed.py``, whose AB vs AB-DL games also check
perfect play: every one must end with a first-player win at ply 41).  A node
budget (``ABPlayer(max_nodes=...)``) makes early moves fast but not always
perfect (see ``ABPlayer``).
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from farl_agents.opponents.connect_four import search
from farl_agents.opponents.connect_four.bitboard import WIDTH, legal_columns, position_from_board
from farl_agents.opponents.connect_four.solver import SearchAborted, Solver, default_solver, loss_delay

#: Plies from which the players always search exactly (see ``ABPlayer``).
EXACT_FROM_PLY = 10
#: Node budget of a bounded move (positions before ``EXACT_FROM_PLY``); ``None``
#: (the default): every move is exact, i.e. the players are perfect.  A budget
#: (e.g. 250_000) trades perfection for speed, see ``ABPlayer``.
DEFAULT_MAX_NODES = None
#: Table size of a player's private solver for bounded moves (4 MiB).
PRIVATE_TT_ENTRIES = 1 << 19
#: Positions whose exact candidate columns a player remembers (emptied when full; ~200 bytes each).
EXACT_CACHE_ENTRIES = 500_000


def _min_score_for_delay(n: int, delay: int) -> int:
    """Smallest losing move score whose loss is at least ``delay`` plies away
    (``loss_delay`` is increasing in the score)."""
    for s in range(-21, 0):
        if loss_delay(s, n) >= delay:
            return s
    return 0


def _pick(cols, rng: np.random.Generator) -> int:
    return int(cols[int(rng.integers(len(cols)))])


def keep_draw_opening_choice(cur: int, mask: int, n: int, rng: np.random.Generator,
                             solver: Optional[Solver] = None, min_delay: int = 12) -> int:
    """Move of the perfect player under the opening rule of the Connect Four
    evaluation of Thill, Bagheri, Koch & Konen 2014 (random among the good
    moves, so that the games of an evaluation differ).

    Interpretation (used for the first 12 plies of the game, i.e. while fewer
    than 12 discs are on the board):

    1. Let ``S`` be the columns whose exact score is >= 0 ("keep at least a
       draw": winning or drawing moves, NOT only the best ones).  If ``S`` is
       not empty, play a uniformly random column of ``S``.
    2. Otherwise (every move loses) let ``D`` be the columns after which the
       winner needs at least ``min_delay`` (12) more plies, counted from the
       current position and including both this move and the winning disc
       (``loss_delay(score, n) >= 12``).  Play a uniformly random column of
       ``D``.
    3. If ``D`` is empty too, play uniformly among the moves that delay the
       loss the longest (the AB-DL choice).

    Only threshold tests are needed, never exact scores, which keeps this
    cheaper.  Exact (uses ``solver`` without a budget unless the caller set
    one, then it may raise ``SearchAborted``).  Returns a 0-based column.
    """
    return _pick(keep_draw_candidates(cur, mask, n, solver or default_solver(), min_delay), rng)


def keep_draw_candidates(cur: int, mask: int, n: int, s: Solver, min_delay: int = 12) -> list:
    """The columns :func:`keep_draw_opening_choice` picks from (the set of its step 1, 2 or 3)."""
    legal = legal_columns(mask)
    # A lost position (the common case for the second player) has no move
    # keeping the draw: one test of it spares the seven proofs near 0.
    keep = []
    if s.at_least(cur, mask, n, 0):
        keep = [c for c in legal if s.move_at_least(cur, mask, n, c, 0)]
    if keep:
        return keep
    t = _min_score_for_delay(n, min_delay)
    if t < 0:
        slow = [c for c in legal if s.move_at_least(cur, mask, n, c, t)]
        if slow:
            return slow
    _, cols = s.best_moves(cur, mask, n, exact_when_lost=True)
    return cols


def _exact_candidates(s: Solver, kind: str, cur: int, mask: int, n: int) -> list:
    """The columns an exact choice picks from: ``kind`` is "ab", "dl" or "keep_draw"."""
    if kind == "keep_draw":
        return keep_draw_candidates(cur, mask, n, s)
    _, cols = s.best_moves(cur, mask, n, exact_when_lost=(kind == "dl"))
    return cols or legal_columns(mask)


def _exact_choice(s: Solver, kind: str, cur: int, mask: int, n: int,
                  rng: np.random.Generator) -> int:
    """Exact move choice: ``kind`` is "ab", "dl" or "keep_draw"."""
    return _pick(_exact_candidates(s, kind, cur, mask, n), rng)


def _horizon_choice(vals: list, kind: str, cur: int, mask: int, n: int,
                    rng: np.random.Generator, min_delay: int = 12) -> int:
    """Fallback choice from ``Solver.horizon_scores`` values (non-zero values
    are exact, 0 = draw or unresolved)."""
    legal = [c for c in range(WIDTH) if vals[c] is not None]
    if kind == "keep_draw":
        keep = [c for c in legal if vals[c] >= 0]
        if keep:
            return _pick(keep, rng)
        slow = [c for c in legal if loss_delay(vals[c], n) >= min_delay]
        if slow:
            return _pick(slow, rng)
    best = max(vals[c] for c in legal)
    if best < 0 and kind == "ab":
        return _pick(legal, rng)
    cands = [c for c in legal if vals[c] == best]
    if best == 0 and len(cands) > 1:  # unresolved: prefer the search's ordering
        order = search.static_order(cur, mask)
        top = max(order[c] for c in cands)
        cands = [c for c in cands if order[c] == top]
    return _pick(cands, rng)


class ABPlayer:
    """Perfect player "AB".

    Plays uniformly at random among the moves with the best exact score: it
    wins as fast as possible, draws when it cannot win.  When every move
    loses it plays a uniformly random legal move (no delaying).

    Options:

    * ``opening_plies=k``: while fewer than k discs are on the board, follow
      ``keep_draw_opening_choice`` instead (k=12 in the evaluation of Thill
      et al. 2014, farl's ``c4-seed002`` protocol).
    * ``max_nodes`` / ``exact_from_ply`` (speed, off by default): every move
      is exact unless ``max_nodes`` is given.  Exact answers for positions
      before ply 10 that the opening book does not hold take from a fraction
      of a second to tens of seconds (they get faster as the solver's table
      warms up over an evaluation).  With ``max_nodes=N`` a position with
      fewer than ``exact_from_ply`` discs is searched with a budget of N
      nodes in all, on a private, freshly cleared table (book positions stay
      instant and exact): a quarter for the exact search; if that does not
      finish, the rest for depth-limited searches (``Solver.horizon_scores``):
      forced wins and losses within the horizon are still handled exactly
      (fastest win, longest delay), otherwise the player keeps to moves that
      do not lose within the horizon and prefers the one the solver's
      ordering ranks first (more threats, then nearer the centre); under the
      opening rule unresolved moves count as keeping the draw.  Such moves
      may be imperfect: with ``max_nodes=250_000`` and the book through ply
      4, AB (first) against AB (second, random once lost) won 14 of 16 games
      from the empty board, 2 million nodes did no better, while exact play
      won all 8 games tried (the first player wins with perfect play).  The
      fresh private table makes a bounded choice depend only on the position
      and ``rng``; exact choices never depend on the table's contents.

    All randomness comes from the ``rng`` passed to ``choose``.
    """

    name = "AB"
    delay_loss = False

    def __init__(self, solver: Optional[Solver] = None, opening_plies: int = 0,
                 max_nodes: Optional[int] = DEFAULT_MAX_NODES,
                 exact_from_ply: int = EXACT_FROM_PLY):
        self._solver = solver
        self._private: Optional[Solver] = None
        self.opening_plies = int(opening_plies)
        self.max_nodes = None if max_nodes is None else int(max_nodes)
        self.exact_from_ply = int(exact_from_ply)
        #: how the last move was chosen: "exact", "bounded" or "horizon"
        self.last_mode = ""
        # (kind, position) -> the columns an exact choice picks from. Exact answers depend only on the
        # position, so a position met again (every game of an evaluation starts from the same few) costs
        # a lookup instead of solver calls; the random pick among them is made each time, as before.
        self._exact_cache: dict = {}

    @property
    def solver(self) -> Solver:
        if self._solver is None:
            self._solver = default_solver()
        return self._solver

    def _private_solver(self) -> Solver:
        main = self.solver
        if self._private is None:
            self._private = Solver(tt_entries=PRIVATE_TT_ENTRIES, book=False)
        if self._private.book_keys is not main.book_keys:
            self._private.book_keys = main.book_keys
            self._private.book_vals = main.book_vals
            self._private.book_ply = main.book_ply
        return self._private

    def choose(self, board: np.ndarray, player: int, rng: np.random.Generator) -> int:
        """0-based column to play on ``board`` (row 0 at the top) for
        ``player`` (0 = first player, discs 1; 1 = second, discs 2)."""
        cur, mask, n = position_from_board(board, player)
        return self.choose_position(cur, mask, n, rng)

    def choose_position(self, cur: int, mask: int, n: int, rng: np.random.Generator) -> int:
        """Same as ``choose`` on a bitboard position."""
        if n < self.opening_plies:
            kind = "keep_draw"
        else:
            kind = "dl" if self.delay_loss else "ab"
        if self.max_nodes is None or n >= self.exact_from_ply:
            self.last_mode = "exact"
            key = (kind, cur, mask)
            cols = self._exact_cache.get(key)
            if cols is None:
                cols = _exact_candidates(self.solver, kind, cur, mask, n)
                if len(self._exact_cache) >= EXACT_CACHE_ENTRIES:
                    self._exact_cache.clear()
                self._exact_cache[key] = cols
            return _pick(cols, rng)
        priv = self._private_solver()
        priv.clear()
        priv.set_budget(max(1, self.max_nodes // 4))
        try:
            col = _exact_choice(priv, kind, cur, mask, n, rng)
            self.last_mode = "bounded"
            return col
        except SearchAborted:
            pass
        finally:
            priv.set_budget(None)
        vals = priv.horizon_scores(cur, mask, n, self.max_nodes - self.max_nodes // 4)
        self.last_mode = "horizon"
        return _horizon_choice(vals, kind, cur, mask, n, rng)


    def move_scores(self, cur: int, mask: int, n: int, max_nodes: Optional[int] = None) -> list[Optional[int]]:
        """The solver's score of each column for the mover (None for a full column): positive wins, the
        larger the sooner; 0 draws; negative loses, the more negative the sooner.

        Exact (``last_mode`` "exact") unless ``max_nodes`` is given and the exact scores need more than
        a quarter of it; then the depth-limited scores of ``Solver.horizon_scores`` within the rest, as
        in a bounded move (``last_mode`` "horizon": 0 there means "draw or not resolved"). Exact scores
        of a position a perfect player meets come from the book at once; others can take seconds to
        minutes before ply 10 (module docstring), hence the budget for callers that must answer soon.
        """
        main = self.solver
        main.set_budget(None if max_nodes is None else max(1, max_nodes // 4))
        try:
            vals = main.move_scores(cur, mask, n)
            self.last_mode = "exact"
            return vals
        except SearchAborted:
            pass
        finally:
            main.set_budget(None)
        self.last_mode = "horizon"
        return self._private_solver().horizon_scores(cur, mask, n, max_nodes - max_nodes // 4)


class ABDLPlayer(ABPlayer):
    """Perfect player "AB-DL": like ``ABPlayer`` but, when every move loses,
    plays (uniformly at random among) the moves that delay the loss longest."""

    name = "AB-DL"
    delay_loss = True
