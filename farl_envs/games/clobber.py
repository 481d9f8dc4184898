"""Clobber (Albert, Grossman & Nowakowski, 2001) as numba kernels, OpenSpiel's variant.

==================  ===========================================
parameters          ``rows=5`` (2..99), ``columns=6`` (2..26), named as
                    OpenSpiel's ``clobber`` names them (OpenSpiel
                    accepts 1 but then fails ranking its actions, so
                    single rows and columns are left out)
players             2: ``player_0`` is white (``o``) and moves first,
                    ``player_1`` is black (``x``)
actions             ``rows * columns * 4``, numbered as OpenSpiel
                    numbers them (see "Actions")
rewards             +1 to the player who makes the last move, -1 to the
                    other, at that move; 0 at every other move
observation         ``int8[rows, columns, 3]``: plane 0 the observer's
                    pieces, plane 1 the opponent's, plane 2 the empty
                    squares (OpenSpiel's observation tensor, channels
                    last)
n-tuple board       ``rows * columns`` cells: 0 empty, 1 white
                    (``player_0``), 2 black (``player_1``); P = 3
symmetries          4 on a rectangle (identity, the two mirrors, the
                    half turn), 8 on a square (and the quarter turns
                    and diagonal mirrors)
==================  ===========================================

Rules (as in OpenSpiel's ``clobber``, whose C++ source was read for every
decision below). 8 x 8 and 10 x 10 boards are common choices besides
OpenSpiel's default.

* Start: the board is full, white and black in a checkerboard pattern
  with white on the bottom-left square (row ``rows - 1``, column 0; rows
  are numbered from the top, row 0 being rank ``rows`` in OpenSpiel's
  text). So square ``(row, col)`` is white when ``row + rows - 1 + col``
  is even.
* A move takes one of the mover's pieces one square up, right, down or
  left onto a square holding an opponent piece, which is removed (it is
  "clobbered"); the moving piece's old square becomes empty. There is no
  other kind of move.
* Normal play: a player who cannot move loses. The game ends as soon as
  no piece stands orthogonally next to a piece of the other colour; since
  that relation is symmetric, the player to move then has no move, and
  the player who moved last wins (+1, the other -1). No draws.

Actions. OpenSpiel ranks a move ``(row, col, direction)`` in the mixed base
``(rows, columns, 4)``::

    action = (row * columns + col) * 4 + direction

``(row, col)`` is the square the piece leaves; directions are 0 up (row
- 1), 1 right (column + 1), 2 down (row + 1), 3 left (column - 1). Names are
OpenSpiel's ``ActionToString``: from and to squares as column letter and
rank (rank = ``rows - row``), e.g. ``"a5b5"``.

n-tuple encoding and symmetries. Cells are in board order (``columns * row
+ col``), values 0 / 1 / 2 as above. The rules treat all four directions
alike, so every symmetry of the rectangle (of the square when ``rows ==
columns``) maps positions to equivalent positions with the same player to
move; a move's direction turns with the board. (The start position is
itself symmetric only under some of them, which does not matter for
learning.)

Heuristics of the descent paper (Cohen-Solal 2020), computed from the
state by :func:`piece_counts` and :func:`mobility`. "Presence" compares the
players' pieces: every move removes exactly one opponent piece, so the
counts after ``k`` plies are fixed by ``k`` (white has lost ``k // 2``
pieces, black ``(k + 1) // 2``), and at the end of a game presence is a
function of the game's length alone. "Mobility" compares the players'
numbers of moves: in any one position each pair of orthogonally adjacent
opposite pieces is one move for each player, so both players have the same
number of moves; only a sum over the positions where each player was to
move (as :mod:`farl_agents.descent.heuristics` takes it) tells them apart.

State: the common header (:mod:`farl_envs.core.spec`) followed by the
``rows * columns`` cells. The player to move is ``ply % 2``. A game lasts
at most ``rows * columns - 1`` plies (each removes a piece and at least one
piece remains), OpenSpiel's ``MaxGameLength``.

What ``validate`` checks: cells hold 0, 1 or 2; the player to move is
``ply % 2``; the number of empty squares is the ply count and each side has
exactly its start count minus the opponent's moves (so white has
``start_white - ply // 2`` pieces); the terminal flag is set exactly when
no two opposite pieces are orthogonal neighbours (never at the start). It
cannot tell whether the pieces' squares are reachable (a piece's path is
not recorded), so it accepts some unreachable positions with the right
counts.

Version history: v0, first release.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from farl_envs.core.bits import first_column, lowest_bit, row_bits
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

MIN_SIZE = 2
MAX_ROWS = 99
MAX_COLUMNS = 26
N_DIRECTIONS = 4
#: row and column step of directions up, right, down, left
DIR_ROW = (-1, 0, 1, 0)
DIR_COL = (0, 1, 0, -1)
UP, RIGHT, DOWN, LEFT = 0, 1, 2, 3
COLUMN_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def encode_action(cols: int, row: int, col: int, direction: int) -> int:
    """OpenSpiel's action number of a move (see the module docstring)."""
    return (row * cols + col) * N_DIRECTIONS + direction


@njit(cache=True)
def initial_state(p, rng):
    """The full checkerboard, white on the bottom-left square; ``rng`` is unused."""
    rows, cols = p[0], p[1]
    s = np.zeros(HEADER + rows * cols, dtype=np.int32)
    for r in range(rows):
        for c in range(cols):
            s[HEADER + r * cols + c] = 1 if (r + rows - 1 + c) % 2 == 0 else 2
    return s


@njit(cache=True)
def legal_actions(p, s, mask):
    # On bit boards of a few whole rows at a time (bit j = square r0 * cols + j,
    # at most 63 squares): the mover's pieces next to an opponent piece in
    # each direction are found with a few shifts and ANDs, then each piece
    # with a move writes its four entries (0 or 1: stores rather than tests,
    # which random play would mispredict).
    mask[:] = 0
    if s[TERMINAL]:
        return 0
    rows, cols = p[0], p[1]
    me = s[TO_MOVE] + 1
    them = 3 - me
    end = HEADER + rows * cols
    chunk = 63 // cols  # rows per bit board (at least 2: columns <= 26)
    n = 0
    for r0 in range(0, rows, chunk):
        k = min(chunk, rows - r0)
        count = k * cols
        start = HEADER + r0 * cols
        own = row_bits(s, start, count, me)
        opp = row_bits(s, start, count, them)
        # the opponent's pieces one row below / above each square
        below = row_bits(s, start + cols, min(count, end - start - cols), them)
        if r0 > 0:
            above = row_bits(s, start - cols, count, them)
        else:
            above = row_bits(s, start, count - cols, them) << cols
        left = first_column(k, cols)
        right = left << (cols - 1)
        up = own & above
        east = own & ~right & (opp >> 1)
        down = own & below
        west = own & ~left & (opp << 1)
        movers = up | east | down | west
        while movers:
            j = lowest_bit(movers)
            movers &= movers - 1
            base = (r0 * cols + j) * N_DIRECTIONS
            to_up, to_east, to_down, to_west = (up >> j) & 1, (east >> j) & 1, (down >> j) & 1, (west >> j) & 1
            mask[base + UP] = to_up
            mask[base + RIGHT] = to_east
            mask[base + DOWN] = to_down
            mask[base + LEFT] = to_west
            n += to_up + to_east + to_down + to_west
    return n


@njit(cache=True, inline="always")
def _any_move(rows, cols, s):
    """True when two opposite pieces are orthogonal neighbours somewhere.

    On bit boards of ``step + 1`` rows (at most 63 squares; columns <= 26)
    that overlap by one row, so every vertical pair lies inside one of them.
    """
    step = 63 // cols - 1
    found = False
    r0 = 0
    while r0 < rows and not found:
        k = min(step + 1, rows - r0)
        count = k * cols
        start = HEADER + r0 * cols
        white = row_bits(s, start, count, 1)
        black = row_bits(s, start, count, 2)
        inner = ~(first_column(k, cols) << (cols - 1))  # squares with a right neighbour
        found = ((white & (black >> 1) & inner) | (black & (white >> 1) & inner)
                 | (white & (black >> cols)) | (black & (white >> cols))) != 0
        r0 += step
    return found


@njit(cache=True, inline="always")
def _target(cell, direction, cols):
    """The square a move in ``direction`` from ``cell`` lands on.

    Computed without branches (a random move's direction is unpredictable):
    up and left go back (-1), right and down forward (+1), up and down a
    whole row of ``cols`` squares, right and left one square.
    """
    sign = ((direction + 1) & 2) - 1
    return cell + sign * (1 + (cols - 1) * (1 - (direction & 1)))


@njit(cache=True)
def afterstate(p, s, a, out, rewards):
    rows, cols = p[0], p[1]
    mover = s[TO_MOVE]
    ply = s[PLY]
    copy_state(s, out)
    cell = a // N_DIRECTIONS
    target = _target(cell, a % N_DIRECTIONS, cols)
    out[HEADER + cell] = 0
    out[HEADER + target] = mover + 1
    out[PLY] = ply + 1
    out[TO_MOVE] = 1 - mover
    rewards[0] = 0.0
    rewards[1] = 0.0
    # the whole board on bit boards costs less than a square-by-square
    # search, even one that first looks around the moved piece
    if not _any_move(rows, cols, out):
        out[TERMINAL] = 1
        rewards[mover] = 1.0
        rewards[1 - mover] = -1.0


@njit(cache=True)
def observe(p, s, seat, out):
    rows, cols = p[0], p[1]
    out[:] = 0
    for i in range(rows * cols):
        v = s[HEADER + i]
        plane = 2 if v == 0 else (0 if v == seat + 1 else 1)
        out[i // cols, i % cols, plane] = 1


def start_counts(rows: int, cols: int) -> tuple:
    """``(white, black)`` pieces at the start (white has the extra one on odd boards)."""
    white = sum(1 for r in range(rows) for c in range(cols) if (r + rows - 1 + c) % 2 == 0)
    return white, rows * cols - white


def piece_counts(p, s) -> tuple:
    """``(white pieces, black pieces)``; the descent paper's "presence" is the
    mover's count minus the opponent's (see the module docstring)."""
    cells = np.asarray(s[HEADER:])
    return int(np.sum(cells == 1)), int(np.sum(cells == 2))


def mobility(p, s) -> tuple:
    """``(white's moves, black's moves)`` in ``s`` whoever is to move (always equal, see above)."""
    rows, cols = int(p[0]), int(p[1])
    cells = np.asarray(s[HEADER:]).reshape(rows, cols)
    pairs = int(np.sum(cells[:, :-1] + cells[:, 1:] == 3) + np.sum(cells[:-1, :] + cells[1:, :] == 3))
    return pairs, pairs


def validate(p, s) -> str:
    """Empty when ``s`` passes the checks listed in the module docstring, else the reason."""
    rows, cols = int(p[0]), int(p[1])
    msg = check_header(s, 2, HEADER + rows * cols)
    if msg:
        return msg
    cells = np.asarray(s[HEADER:])
    if np.any((cells < 0) | (cells > 2)):
        return "cells must be 0 (empty), 1 (white, player_0) or 2 (black, player_1)"
    ply = int(s[PLY])
    if s[TO_MOVE] != ply % 2:
        return "player to move must be ply % 2 (white moves first and the players alternate)"
    empty = int(np.sum(cells == 0))
    if empty != ply:
        return f"{empty} empty squares after {ply} plies: every move empties exactly one square"
    white0, black0 = start_counts(rows, cols)
    white, black = piece_counts(p, s)
    if (white, black) != (white0 - ply // 2, black0 - (ply + 1) // 2):
        return (f"after {ply} plies white must have {white0 - ply // 2} pieces and black "
                f"{black0 - (ply + 1) // 2} (each move removes one opponent piece), got {white} and {black}")
    over = mobility(p, s)[0] == 0
    if bool(s[TERMINAL]) != over:
        return ("terminal flag is set but two opposite pieces are still neighbours" if s[TERMINAL]
                else "no two opposite pieces are neighbours, so the terminal flag must be set")
    return ""


def render_text(p, s) -> str:
    """The board as OpenSpiel prints it: rank labels left, ``o`` white, ``x`` black, ``.`` empty."""
    rows, cols = int(p[0]), int(p[1])
    width = len(str(rows))
    lines = []
    for r in range(rows):
        row = "".join(".ox"[int(s[HEADER + r * cols + c])] for c in range(cols))
        lines.append(str(rows - r).rjust(width) + row)
    lines.append(" " * width + COLUMN_LETTERS[:cols])
    return "\n".join(lines)


def action_name(rows: int, cols: int, action: int) -> str:
    """OpenSpiel's name of an action, e.g. ``"a5b5"``."""
    cell, d = divmod(action, N_DIRECTIONS)
    r, c = divmod(cell, cols)
    r2, c2 = r + DIR_ROW[d], c + DIR_COL[d]
    if not (0 <= r2 < rows and 0 <= c2 < cols):
        return f"{COLUMN_LETTERS[c]}{rows - r}-off-board"
    return f"{COLUMN_LETTERS[c]}{rows - r}{COLUMN_LETTERS[c2]}{rows - r2}"


def _transforms(rows: int, cols: int) -> list:
    """The board symmetries as (square map, step map) pairs; the identity first."""
    out = [
        (lambda r, c: (r, c), lambda dr, dc: (dr, dc)),
        (lambda r, c: (r, cols - 1 - c), lambda dr, dc: (dr, -dc)),
        (lambda r, c: (rows - 1 - r, c), lambda dr, dc: (-dr, dc)),
        (lambda r, c: (rows - 1 - r, cols - 1 - c), lambda dr, dc: (-dr, -dc)),
    ]
    if rows == cols:
        n = rows
        out += [
            (lambda r, c: (c, r), lambda dr, dc: (dc, dr)),
            (lambda r, c: (n - 1 - c, n - 1 - r), lambda dr, dc: (-dc, -dr)),
            (lambda r, c: (c, n - 1 - r), lambda dr, dc: (dc, -dr)),
            (lambda r, c: (n - 1 - c, r), lambda dr, dc: (-dc, dr)),
        ]
    return out


def symmetries(p) -> np.ndarray:
    """``int32[4 or 8, rows * columns]``: ``board[perm]`` is the board seen in each symmetry."""
    rows, cols = int(p[0]), int(p[1])
    transforms = _transforms(rows, cols)
    perms = np.zeros((len(transforms), rows * cols), dtype=np.int32)
    for k, (square, _) in enumerate(transforms):
        for r in range(rows):
            for c in range(cols):
                r2, c2 = square(r, c)
                perms[k, r2 * cols + c2] = r * cols + c  # the square that shows (r, c) in view k
    return perms


def action_symmetries(p) -> np.ndarray:
    """Row ``k`` maps each action to the same move on the board seen in symmetry ``k``."""
    rows, cols = int(p[0]), int(p[1])
    steps = list(zip(DIR_ROW, DIR_COL))
    transforms = _transforms(rows, cols)
    out = np.zeros((len(transforms), rows * cols * N_DIRECTIONS), dtype=np.int32)
    for k, (square, step) in enumerate(transforms):
        for a in range(out.shape[1]):
            cell, d = divmod(a, N_DIRECTIONS)
            r2, c2 = square(*divmod(cell, cols))
            out[k, a] = encode_action(cols, r2, c2, steps.index(step(*steps[d])))
    return out


def make_spec(rows: int = 5, columns: int = 6) -> GameSpec:
    """The Clobber spec for a ``rows x columns`` board (rows 2..99, columns 2..26; ``ValueError`` otherwise)."""
    rows = check_int_param("rows", rows, MIN_SIZE, MAX_ROWS)
    columns = check_int_param("columns", columns, MIN_SIZE, MAX_COLUMNS)
    n = rows * columns
    n_actions = n * N_DIRECTIONS
    return GameSpec(
        name="clobber", version=0, params={"rows": rows, "columns": columns},
        p=np.array([rows, columns], dtype=np.int64),
        n_players=2, n_actions=n_actions, state_size=HEADER + n, n_cells=n, n_cell_values=3,
        obs_shape=(rows, columns, 3), obs_high=1, max_plies=n - 1,
        reward_range=(-1.0, 1.0),
        initial_state=initial_state, legal_actions=legal_actions, afterstate=afterstate,
        observe=observe, validate=validate,
        render_text=render_text, symmetries=symmetries, action_symmetries=action_symmetries,
        action_names=tuple(action_name(rows, columns, a) for a in range(n_actions)), counts_pieces=True,
        cell_colors=((200, 170, 120), (240, 240, 240), (25, 25, 25)),
        grid_shape=(rows, columns),
    )
