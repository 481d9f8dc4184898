"""Outer-Open Gomoku rules as numba kernels, on square boards from 5x5 to 19x19.

Gomoku (five in a row) with one opening restriction: the **first stone** of
the game must be placed on the outer band of the board, the two outermost
lines on each side. It is one of the nine games of Cohen-Solal 2020,
"Learning to Play Two-Player Perfect-Information Games without Knowledge",
which names the game but states no rules; farl follows the two public
implementations of the variant (below), which agree.

==================  ===========================================
parameters          ``size=15`` (5..19); 15x15 is the board of both
                    implementations below
players             2 (``player_0``, black, moves first)
opening             the first stone must lie on one of the two
                    outermost rows or columns: ``min(r, c, size-1-r,
                    size-1-c) <= 1`` (on 15x15: 225 - 11*11 = 104
                    cells; the central 11x11 square is forbidden).
                    From the second stone on, any empty cell is legal
win                 a line of **five or more** of one's own stones,
                    horizontally, vertically or diagonally: overlines
                    (six or more) also win ("free-style" Gomoku); no
                    other restrictions (no three-three, four-four)
draw                the board is full and nobody has five
actions             ``size * size``: ``cell = size * row + col``;
                    legal while the cell is empty (and, at ply 0, in
                    the outer band). Names ``"a1"``, ``"b1"``, ...
                    (column letter, row number from 1)
rewards             +1 win / -1 loss at the move that makes five;
                    0 / 0 for a draw
observation         ``int8[size, size, 2]``: plane 0 the observer's
                    stones, plane 1 the opponent's
n-tuple board       ``size * size`` cells, values 0 empty /
                    1 ``player_0`` / 2 ``player_1`` (P = 3)
symmetries          the 8 symmetries of the square (the outer band
                    and the lines are invariant under all of them)
==================  ===========================================

Rule decisions and their sources:

* The outer-open restriction and its band of two lines: Polygames
  (facebookarchive/Polygames,
  ``src/games/outeropengomoku_new.h``: the first move is restricted to rows and
  columns 0, 1, 13, 14 of the 15x15 board) and Ludii's ``Gomoku.lud``
  "Open-Outer" opening option (first move ``expand (sites Outer)``: the outer
  ring and the ring next to it; the option's one-line description says
  "cannot open" there, the opposite of its own rule code and of the name).
  The rule exists to weaken black's opening advantage without a swap.
* Overlines win: Polygames counts ``>= 4`` neighbours in a line besides the new
  stone, i.e. five or more. (Ludii offers "exactly five" and "five or more"
  as an option independent of the opening; Polygames, which implements the
  variant as a game of its own, counts overlines.)
* A full board is a draw (Polygames: no legal action left and no winner).
* Board size: the variant is defined on 15x15; other sizes keep the band of
  two lines, so that the rule reads the same on every board (a parameter of
  farl, for fast tests and small experiments).

Cohen-Solal 2020 uses Outer-Open Gomoku with the classic terminal evaluation
and the depth heuristics; its Table 4 leaves out score, mobility and presence
for it, as for Hex: there is no score, stones are never captured, and both
players always have the same empty cells to play.

State: the common header (:mod:`farl_envs.core.spec`) followed by the
``size * size`` cells (0 empty, 1 ``player_0``, 2 ``player_1``). The ply count
``state[2]`` tells whether the opening restriction applies (ply 0). A win is
found by counting, in each of the 4 line directions, the mover's stones that
touch the new stone.

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
from farl_envs.games._grid import cell_action_symmetries, square_symmetries, stone_planes, text_grid

MIN_SIZE = 5
MAX_SIZE = 19
DEFAULT_SIZE = 15
WIN_LENGTH = 5
OUTER_BAND = 2
"""Width of the band of outer lines where the first stone must go."""
COLUMN_LETTERS = "abcdefghijklmnopqrs"

# the four line directions (drow, dcol): horizontal, vertical, two diagonals
LINE_DR = np.array([0, 1, 1, 1], dtype=np.int64)
LINE_DC = np.array([1, 0, 1, -1], dtype=np.int64)


@njit(cache=True)
def in_outer_band(n, cell):
    """True when ``cell`` lies on one of the two outermost rows or columns of an ``n x n`` board."""
    r = cell // n
    c = cell % n
    return min(min(r, c), min(n - 1 - r, n - 1 - c)) < OUTER_BAND


@njit(cache=True)
def initial_state(p, rng):
    """The empty board (``int32[3 + size*size]``, all zeros); ``rng`` is unused."""
    n = p[0]
    return np.zeros(HEADER + n * n, dtype=np.int32)


@njit(cache=True)
def legal_actions(p, s, mask):
    """Mark the legal cells in ``mask`` (``int8[size*size]``); return their count.

    Every empty cell, except at ply 0 where only the outer band is allowed.
    """
    n = p[0]
    if s[TERMINAL]:
        mask[:] = 0
        return 0
    opening = s[PLY] == 0
    count = 0
    for i in range(n * n):
        if s[HEADER + i] == 0 and (not opening or in_outer_band(n, i)):
            mask[i] = 1
            count += 1
        else:
            mask[i] = 0
    return count


@njit(cache=True)
def _run_through(s, n, cell, dr, dc, mark):
    """Length of the line of ``mark`` stones through ``cell`` along (dr, dc), ``cell`` included."""
    r0 = cell // n
    c0 = cell % n
    length = 1
    for sign in (-1, 1):
        r = r0 + sign * dr
        c = c0 + sign * dc
        while 0 <= r < n and 0 <= c < n and s[HEADER + r * n + c] == mark:
            length += 1
            r += sign * dr
            c += sign * dc
    return length


@njit(cache=True)
def makes_five(s, n, cell, mark):
    """True when the ``mark`` stone on ``cell`` is part of a line of five or more."""
    for d in range(4):
        if _run_through(s, n, cell, LINE_DR[d], LINE_DC[d], mark) >= WIN_LENGTH:
            return True
    return False


@njit(cache=True)
def afterstate(p, s, a, out, rewards):
    """Place the mover's stone on cell ``a`` (must be legal).

    Writes the next state into ``out`` (``int32``, may be ``s`` itself) and
    the reward deltas into ``rewards`` (``float64[2]``).
    """
    n = p[0]
    mover = s[TO_MOVE]
    ply = s[PLY] + 1
    copy_state(s, out)
    mark = mover + 1
    out[HEADER + a] = mark
    out[PLY] = ply
    out[TO_MOVE] = 1 - mover
    rewards[0] = 0.0
    rewards[1] = 0.0
    # five stones of the mover need at least 9 plies (black) or 10 (white)
    if ply >= 2 * WIN_LENGTH - 1 and makes_five(out, n, a, mark):
        out[TERMINAL] = 1
        rewards[mover] = 1.0
        rewards[1 - mover] = -1.0
    elif ply == n * n:
        out[TERMINAL] = 1  # full board, nobody has five: a draw


@njit(cache=True)
def observe(p, s, seat, out):
    """``seat``'s view into ``out`` (``int8[size, size, 2]``): own stones, then the opponent's."""
    stone_planes(s, HEADER, p[0], p[0], seat, out)


# ------------------------------------------------------------ Python helpers
def _has_five(grid: np.ndarray, mark: int) -> bool:
    """True when ``grid`` (``[size, size]``) holds a line of five or more ``mark`` stones."""
    n = grid.shape[0]
    hit = grid == mark
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        for r in range(n):
            for c in range(n):
                er, ec = r + (WIN_LENGTH - 1) * dr, c + (WIN_LENGTH - 1) * dc
                if 0 <= er < n and 0 <= ec < n and all(hit[r + k * dr, c + k * dc] for k in range(WIN_LENGTH)):
                    return True
    return False


def _band_stones(grid: np.ndarray) -> set:
    """The cells of ``player_0`` stones in the outer band (where the first stone went)."""
    n = grid.shape[0]
    return {int(c) for c in np.flatnonzero(grid.ravel() == 1) if in_outer_band(n, int(c))}


def validate(p, s) -> str:
    """Empty string when ``s`` is a legal position of the game ``p``, else the reason.

    Checks the layout, stone counts against the ply count and the player to
    move, the opening rule (some ``player_0`` stone lies in the outer band:
    the first one did), and the game-over rules: at most one player has five,
    that player made the last move, the game did not go on after the five (some
    stone of the winner can be the last one: removing it leaves no five and
    still a first stone in the band), and the terminal flag is set exactly when
    someone has five or the board is full.
    """
    n = int(p[0])
    msg = check_header(s, 2, HEADER + n * n)
    if msg:
        return msg
    grid = s[HEADER:].reshape(n, n)
    if np.any((grid < 0) | (grid > 2)):
        return "cells must be 0 (empty), 1 (player_0) or 2 (player_1)"
    n0, n1 = int(np.sum(grid == 1)), int(np.sum(grid == 2))
    if n0 not in (n1, n1 + 1):
        return f"player_0 has {n0} stones and player_1 {n1}: player_0 moves first, so it must have as many or one more"
    if s[PLY] != n0 + n1:
        return f"ply count {s[PLY]} does not match the {n0 + n1} stones on the board"
    if s[TO_MOVE] != (n0 + n1) % 2:
        return "player to move does not match the number of stones"
    band = _band_stones(grid)
    if n0 and not band:
        return "no player_0 stone in the outer band: the first stone must be on the two outermost lines"
    w0, w1 = _has_five(grid, 1), _has_five(grid, 2)
    if w0 and w1:
        return "both players have five in a row"
    if w0 and n0 != n1 + 1:
        return "player_0 has five in a row but player_1 has moved since"
    if w1 and n0 != n1:
        return "player_1 has five in a row but player_0 has moved since"
    if w0 or w1:
        mark = 1 if w0 else 2
        for cell in np.flatnonzero(grid.ravel() == mark):
            g = grid.copy()
            g.flat[cell] = 0
            first_still_in_band = bool(band - {int(cell)}) or n0 + n1 == 1
            if not _has_five(g, mark) and first_still_in_band:
                break
        else:
            return "the game went on after five in a row (no last move of the winner makes it)"
    over = w0 or w1 or n0 + n1 == n * n
    if bool(s[TERMINAL]) != over:
        return "terminal flag does not match the board"
    return ""


def render_text(p, s) -> str:
    """The board as text: column letters on top, ``.`` empty, ``X`` player_0, ``O`` player_1, row numbers right."""
    n = int(p[0])
    rows = text_grid(s[HEADER:], n, n, ".XO", COLUMN_LETTERS[:n]).split("\n")
    return "\n".join([rows[0]] + [f"{line}  {r + 1}" for r, line in enumerate(rows[1:])])


def symmetries(p) -> np.ndarray:
    """``int32[8, size*size]``: the rotations and reflections of the square."""
    return square_symmetries(int(p[0]))


def action_symmetries(p) -> np.ndarray:
    """``int32[8, size*size]``: actions are cells, so they map like the cells."""
    n = int(p[0])
    return cell_action_symmetries(symmetries(p), n * n)


def make_spec(size: int = DEFAULT_SIZE) -> GameSpec:
    """The Outer-Open Gomoku spec for a ``size x size`` board (5..19; ``ValueError`` otherwise)."""
    size = check_int_param("size", size, MIN_SIZE, MAX_SIZE)
    n = size * size
    return GameSpec(
        name="outer_open_gomoku", version=0, params={"size": size}, p=np.array([size], dtype=np.int64),
        n_players=2, n_actions=n, state_size=HEADER + n, n_cells=n, n_cell_values=3,
        obs_shape=(size, size, 2), obs_high=1, max_plies=n, reward_range=(-1.0, 1.0),
        initial_state=initial_state, legal_actions=legal_actions, afterstate=afterstate,
        observe=observe, validate=validate,
        render_text=render_text, symmetries=symmetries, action_symmetries=action_symmetries,
        action_names=tuple(f"{COLUMN_LETTERS[c % size]}{c // size + 1}" for c in range(n)),
        cell_colors=((215, 180, 110), (20, 20, 20), (245, 245, 245)),
        grid_shape=(size, size),
    )
