"""Perfect Connect Four (7 columns x 6 rows): an exact solver, its opening
book, and the perfect players AB and AB-DL of Table 1.

Modules, in import order (each imports only those above it; this
``__init__`` re-exports the public names of all but ``book``, which only
the book's builders need):

================  ==========================================================
``bitboard``      positions as bitboards: layout, the solver's own fast
                  rule kernels (cross-tested against the game kernel),
                  conversions from move strings, keys, boards, kernel states
``search``        the compiled negamax search, transposition table, book
                  probe and the drivers that give exact answers
``solver``        ``Solver`` (table, book arrays, node budget), the score
                  convention, ``solve`` / ``analyze``, the book file format
``players``       ``ABPlayer``, ``ABDLPlayer`` and the opening rule of Thill,
                  Bagheri, Koch & Konen 2014 (``keep_draw_opening_choice``)
``book``          building, merging and checking the opening book
                  (``python -m farl_agents.opponents.connect_four.book``)
``harness``       ``PerfectConnectFour``: the players behind farl's
                  ``act(game, state, rng)`` protocol
================  ==========================================================

Quick use::

    from farl_agents.opponents.connect_four import solve, analyze
    solve("")        # 1: the first player wins with its 21st disc
    analyze("")      # [-2, -1, 0, 1, 0, -1, -2]: only the centre wins

The packaged book is ``farl_agents/opponents/data/c4_book.npz``.
"""
from __future__ import annotations

from farl_agents.opponents.connect_four.bitboard import (
    legal_columns,
    position_from_board,
    position_from_moves,
    position_from_state,
)
from farl_agents.opponents.connect_four.harness import PerfectConnectFour
from farl_agents.opponents.connect_four.players import ABDLPlayer, ABPlayer, keep_draw_opening_choice
from farl_agents.opponents.connect_four.solver import (
    DEFAULT_BOOK_PATH,
    SearchAborted,
    Solver,
    analyze,
    default_solver,
    load_book,
    loss_delay,
    solve,
)

__all__ = ["ABDLPlayer", "ABPlayer", "DEFAULT_BOOK_PATH", "PerfectConnectFour", "SearchAborted", "Solver",
           "analyze", "default_solver", "keep_draw_opening_choice", "legal_columns", "load_book", "loss_delay",
           "position_from_board", "position_from_moves", "position_from_state", "solve"]
