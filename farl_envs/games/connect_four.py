"""Connect Four rules as numba kernels, on boards from 4x4 to 10x10.

==================  ===========================================
parameters          ``rows=6``, ``cols=7`` (each 4..10)
players             2 (``player_0`` moves first)
actions             ``cols``: drop a disc into column ``0 .. cols-1``
                    (left to right); legal while the column is not
                    full. Names ``"a"``, ``"b"``, ... as in the usual
                    Connect Four notation
rewards             +1 win / -1 loss at the move that completes four
                    in a row (horizontal, vertical or diagonal);
                    0 / 0 when the board fills without a four
observation         ``int8[rows, cols, 2]``: plane 0 the observer's
                    discs, plane 1 the opponent's; row 0 at the top
                    (the layout of PettingZoo's ``connect_four_v3``)
n-tuple board       ``rows * cols`` cells, values 0 empty and not yet
                    reachable / 1 ``player_0`` / 2 ``player_1`` /
                    3 empty and reachable, i.e. the lowest empty cell
                    of a column that is not full (P = 4)
symmetries          2 (identity and the left-right mirror, which
                    maps column ``c`` to ``cols - 1 - c``)
==================  ===========================================

Cell numbering (``cell = cols * row + col``, row 0 at the **top**, so a disc
dropped into an empty column lands in row ``rows - 1``), shown for 6x7::

     a  b  c  d  e  f  g
     0  1  2  3  4  5  6     <- top row
     7  8  9 10 11 12 13
    14 15 16 17 18 19 20
    21 22 23 24 25 26 27
    28 29 30 31 32 33 34
    35 36 37 38 39 40 41     <- bottom row, filled first

The n-tuple encoding distinguishes the two kinds of empty cell because they
mean different things to a player: a reachable cell can be taken now, an
unreachable one only after the cells below it are filled (this is the
encoding of the n-tuple Connect Four papers).

State: the common header (:mod:`farl_envs.core.spec`), then the ``cols``
column heights (number of discs in each column; kept so that a move and its
legality need no search of the column), then the ``rows * cols`` cells
(0 empty, 1 ``player_0``, 2 ``player_1``)::

    state[3 : 3+cols]                    heights
    state[3+cols : 3+cols+rows*cols]     cells

Version history: v0, first release.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from farl_envs.core.kernel_utils import copy_state
from farl_envs.core.spec import (
    HEADER,
    PLY,
    TERMINAL,
    TO_MOVE,
    GameSpec,
    check_header,
    check_int_param,
)
from farl_envs.games._fixed_ntuples import CONNECT_FOUR_6X7
from farl_envs.games._grid import mirror_columns, stone_planes, text_grid

MIN_SIZE = 4
MAX_SIZE = 10
COLUMN_LETTERS = "abcdefghij"


def state_size(rows: int, cols: int) -> int:
    """Length of a state: header + ``cols`` heights + ``rows * cols`` cells."""
    return HEADER + cols + rows * cols


@njit(cache=True)
def initial_state(p, rng):
    """The empty board (``int32[3 + cols + rows*cols]``, all zeros); ``rng`` is unused."""
    rows, cols = p[0], p[1]
    return np.zeros(HEADER + cols + rows * cols, dtype=np.int32)


@njit(cache=True)
def legal_actions(p, s, mask):
    """Mark the columns that are not full in ``mask`` (``int8[cols]``); return their count."""
    rows, cols = p[0], p[1]
    if s[TERMINAL]:
        mask[:] = 0
        return 0
    n = 0
    for c in range(cols):
        if s[HEADER + c] < rows:
            mask[c] = 1
            n += 1
        else:
            mask[c] = 0
    return n


@njit(cache=True)
def _run(s, i, step, limit, mark):
    """How many consecutive cells after index ``i`` (by ``step``, at most ``limit`` <= 3) hold ``mark``.

    Written without data-dependent branches (cells past the edge read the
    own cell and are masked out): random playouts make those branches
    unpredictable, and mispredictions would dominate the cost of a move.
    """
    n = 0
    ok = True
    for k in range(1, 4):
        inside = k <= limit
        j = i + k * step if inside else i
        ok = ok & inside & (s[j] == mark)
        n += ok
    return n


@njit(cache=True)
def _four_through(s, rows, cols, r, c, mark):
    """True when the disc ``mark`` at (r, c) is part of four in a row.

    Only the four lines through (r, c) are looked at, which is all a move
    can change, and each is walked at most three cells either way, limited
    by the board's edges. Vertically only the discs below can match
    (nothing lies above the disc just played).
    """
    i = HEADER + cols + r * cols + c
    up, down = min(r, 3), min(rows - 1 - r, 3)
    left, right = min(c, 3), min(cols - 1 - c, 3)
    vertical = _run(s, i, cols, down, mark)
    horizontal = _run(s, i, -1, left, mark) + _run(s, i, 1, right, mark)
    diagonal = _run(s, i, -cols - 1, min(up, left), mark) + _run(s, i, cols + 1, min(down, right), mark)
    anti = _run(s, i, -cols + 1, min(up, right), mark) + _run(s, i, cols - 1, min(down, left), mark)
    return max(max(vertical, horizontal), max(diagonal, anti)) >= 3


@njit(cache=True)
def afterstate(p, s, a, out, rewards):
    """Drop the mover's disc into column ``a`` (must be legal).

    Writes the next state into ``out`` (``int32``, may be ``s`` itself) and
    the reward deltas into ``rewards`` (``float64[2]``).
    """
    rows, cols = p[0], p[1]
    mover = s[TO_MOVE]
    h = s[HEADER + a]
    ply = s[PLY] + 1
    copy_state(s, out)
    mark = mover + 1
    r = rows - 1 - h
    out[HEADER + cols + r * cols + a] = mark
    out[HEADER + a] = h + 1
    out[PLY] = ply
    out[TO_MOVE] = 1 - mover
    rewards[0] = 0.0
    rewards[1] = 0.0
    if ply >= 7 and _four_through(out, rows, cols, r, a, mark):
        out[TERMINAL] = 1
        rewards[mover] = 1.0
        rewards[1 - mover] = -1.0
    elif ply == rows * cols:
        out[TERMINAL] = 1


@njit(cache=True)
def board(p, s, out):
    """The n-tuple board into ``out`` (``int32[rows*cols]``): 0 / 1 / 2 / 3 as in the table above."""
    rows, cols = p[0], p[1]
    base = HEADER + cols
    for i in range(rows * cols):
        out[i] = s[base + i]
    for c in range(cols):
        h = s[HEADER + c]
        if h < rows:
            out[(rows - 1 - h) * cols + c] = 3


@njit(cache=True)
def observe(p, s, seat, out):
    """``seat``'s view into ``out`` (``int8[rows, cols, 2]``): own discs, then the opponent's."""
    rows, cols = p[0], p[1]
    stone_planes(s, HEADER + cols, rows, cols, seat, out)


# ------------------------------------------------------------ Python helpers
def _fours(grid: np.ndarray, mark: int) -> bool:
    """True when ``grid`` (``[rows, cols]``) holds four ``mark`` discs in a row anywhere."""
    m = grid == mark
    if np.any(m[:, :-3] & m[:, 1:-2] & m[:, 2:-1] & m[:, 3:]):
        return True
    if np.any(m[:-3] & m[1:-2] & m[2:-1] & m[3:]):
        return True
    if np.any(m[:-3, :-3] & m[1:-2, 1:-2] & m[2:-1, 2:-1] & m[3:, 3:]):
        return True
    return bool(np.any(m[:-3, 3:] & m[1:-2, 2:-1] & m[2:-1, 1:-2] & m[3:, :-3]))


def validate(p, s) -> str:
    """Empty string when ``s`` is a legal position of the game ``p``, else the reason.

    Checks the layout, gravity (no floating discs; heights agree with the
    cells), disc counts against the ply count and the player to move, and
    the game-over rules: at most one player has four in a row, that player
    made the last move, and the game did not go on after it (some top disc
    of the winner can be taken back leaving no four). These are necessary
    conditions; a position passing them is not proved to be reachable by
    an alternating sequence of moves.
    """
    rows, cols = int(p[0]), int(p[1])
    msg = check_header(s, 2, state_size(rows, cols))
    if msg:
        return msg
    heights = s[HEADER:HEADER + cols]
    grid = s[HEADER + cols:].reshape(rows, cols)
    if np.any((grid < 0) | (grid > 2)):
        return "cells must be 0 (empty), 1 (player_0) or 2 (player_1)"
    if np.any((heights < 0) | (heights > rows)):
        return f"column heights must be in 0..{rows}"
    for c in range(cols):
        filled = grid[:, c] != 0
        for r in range(rows - 1):
            if filled[r] and not filled[r + 1]:
                return f"floating disc in column {COLUMN_LETTERS[c]} (row {r} has a disc, row {r + 1} below is empty)"
        if int(filled.sum()) != heights[c]:
            return f"height of column {COLUMN_LETTERS[c]} is {heights[c]} but it holds {int(filled.sum())} discs"
    n0, n1 = int(np.sum(grid == 1)), int(np.sum(grid == 2))
    if n0 not in (n1, n1 + 1):
        return f"player_0 has {n0} discs and player_1 {n1}: player_0 moves first, so it must have as many or one more"
    if s[PLY] != n0 + n1:
        return f"ply count {s[PLY]} does not match the {n0 + n1} discs on the board"
    if s[TO_MOVE] != (n0 + n1) % 2:
        return "player to move does not match the number of discs"
    w0, w1 = _fours(grid, 1), _fours(grid, 2)
    if w0 and w1:
        return "both players have four in a row"
    if w0 and n0 != n1 + 1:
        return "player_0 has four in a row but player_1 has moved since"
    if w1 and n0 != n1:
        return "player_1 has four in a row but player_0 has moved since"
    if w0 or w1:
        mark = 1 if w0 else 2
        last_move_possible = False
        for c in range(cols):
            h = int(heights[c])
            if h and grid[rows - h, c] == mark:
                g = grid.copy()
                g[rows - h, c] = 0
                if not _fours(g, mark):
                    last_move_possible = True
                    break
        if not last_move_possible:
            return "the game went on after four in a row (no last move of the winner completes it)"
    over = w0 or w1 or n0 + n1 == rows * cols
    if bool(s[TERMINAL]) != over:
        return "terminal flag does not match the board"
    return ""


def render_text(p, s) -> str:
    """The board as text: column letters on top, ``.`` empty, ``X`` player_0, ``O`` player_1."""
    rows, cols = int(p[0]), int(p[1])
    return text_grid(s[HEADER + cols:], rows, cols, ".XO", COLUMN_LETTERS[:cols])


def symmetries(p) -> np.ndarray:
    """``int32[2, rows*cols]``: the identity and the left-right mirror."""
    return mirror_columns(int(p[0]), int(p[1]))


def action_symmetries(p) -> np.ndarray:
    """``int32[2, cols]``: column ``c`` stays ``c`` and becomes ``cols-1-c`` in the mirror."""
    cols = int(p[1])
    ident = np.arange(cols, dtype=np.int32)
    return np.stack([ident, ident[::-1]])


def make_spec(rows: int = 6, cols: int = 7) -> GameSpec:
    """The Connect Four spec for a ``rows x cols`` board (each 4..10; ``ValueError`` otherwise)."""
    rows = check_int_param("rows", rows, MIN_SIZE, MAX_SIZE)
    cols = check_int_param("cols", cols, MIN_SIZE, MAX_SIZE)
    n = rows * cols
    return GameSpec(
        name="connect_four", version=0, params={"rows": rows, "cols": cols},
        p=np.array([rows, cols], dtype=np.int64),
        n_players=2, n_actions=cols, state_size=state_size(rows, cols), n_cells=n, n_cell_values=4,
        obs_shape=(rows, cols, 2), obs_high=1, max_plies=n, reward_range=(-1.0, 1.0),
        initial_state=initial_state, legal_actions=legal_actions, afterstate=afterstate,
        board=board, observe=observe, validate=validate,
        render_text=render_text, symmetries=symmetries, action_symmetries=action_symmetries,
        action_names=tuple(COLUMN_LETTERS[:cols]),
        cell_colors=((225, 225, 225), (200, 40, 40), (230, 190, 30), (245, 245, 245)),
        grid_shape=(rows, cols),
        fixed_ntuples=CONNECT_FOUR_6X7 if (rows, cols) == (6, 7) else (), view="connect_four", counts_pieces=True,
    )
