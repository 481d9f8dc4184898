"""Breakthrough (Dan Troyka, 2000) as numba kernels, OpenSpiel's variant.

==================  ===========================================
parameters          ``rows=8`` (2..26), ``columns=8`` (2..26),
                    named as OpenSpiel's ``breakthrough`` names them
players             2: ``player_0`` is black (``b``), starts on the top
                    rows and moves first; ``player_1`` is white (``w``)
actions             ``rows * columns * 12``, numbered as OpenSpiel
                    numbers them (see "Actions")
rewards             +1 / -1 at the winning move, 0 at every other move;
                    Breakthrough has no draws
observation         ``int8[rows, columns, 3]``: plane 0 the observer's
                    pieces, plane 1 the opponent's, plane 2 the
                    observer's goal row (all ones on it)
n-tuple board       ``rows * columns`` cells: 0 empty, 1 black
                    (``player_0``), 2 white (``player_1``); P = 3
symmetries          2: identity and the left-right mirror
==================  ===========================================

Rules (as in OpenSpiel's ``breakthrough``, whose C++ source was read for
every decision below). Rows are numbered from the top: row 0 is rank
``rows`` in OpenSpiel's text, row ``rows - 1`` is rank 1.

* Start: black fills rows 0 and 1, white rows ``rows - 2`` and ``rows - 1``.
  With fewer than 6 rows each side gets one row only (row 0 and row
  ``rows - 1``), as in OpenSpiel.
* Black moves down the board (row + 1), white up (row - 1). A move takes
  one of the mover's pieces one row forward, straight or diagonally.
  Straight ahead the target must be empty. Diagonally the target may be
  empty (a plain move) or hold an opponent piece, which is captured
  (removed). Nobody captures straight ahead, and moving is compulsory.
* A player wins by moving a piece onto the far row (row ``rows - 1`` for
  black, row 0 for white) or by capturing the opponent's last piece.
  The game ends at once; the mover gets +1, the other player -1.
* A player who is to move always has a move: the mover's most advanced
  piece is not on its goal row (the game would be over) and at least one
  of its diagonal targets is on the board (``columns >= 2``), and a
  diagonal target can only be blocked by a piece of the mover's own,
  which would be more advanced. So there are no passes and no draws.

Actions. OpenSpiel ranks a move ``(row, col, direction, capture)`` in the
mixed base ``(rows, columns, 6, 2)``::

    action = ((row * columns + col) * 6 + direction) * 2 + capture

``(row, col)`` is the square the piece leaves. Directions 0, 1, 2 are
black's (row + 1 with column - 1, + 0, + 1), 3, 4, 5 white's (row - 1 with
column - 1, + 0, + 1). ``capture`` is 1 exactly when the target holds an
opponent piece. The two capture bits of the same move are separate actions
of which at most one is legal, so a legal action tells its capture
outright, as in OpenSpiel. Action names follow OpenSpiel's
``ActionToString``: from and to squares as column letter and rank
(rank = ``rows - row``), ``*`` for a capture, e.g. ``"a7b6"``, ``"c2d3*"``.
With 10 or more rows the rank is written in decimal (OpenSpiel writes a
single character there).

Observation. For seat ``o``: plane 0 marks ``o``'s pieces, plane 1 the
opponent's, and plane 2 the row where ``o`` wins (row ``rows - 1`` for
``player_0``, row 0 for ``player_1``), so a policy sees the board relative
to itself and still knows which way its pieces run. (OpenSpiel's tensor
is ``[black, white, empty]`` in absolute colours.)

n-tuple encoding and symmetries. Cells are in board order (``columns * row
+ col``), values 0 / 1 / 2 as above. The rules are unchanged by the
left-right mirror, which maps a direction ``column - 1`` to ``column + 1``
(0 <-> 2, 3 <-> 5) and keeps the capture bit. The vertical flip swaps the
roles of the two players, so it is no symmetry of a position with a given
player to move; the board has no other symmetry.

Heuristic of the descent paper (Cohen-Solal 2020, "presence"): the number
of the player's pieces minus the opponent's, which :func:`piece_counts`
gives.

State: the common header (:mod:`farl_envs.core.spec`) followed by the
``rows * columns`` cells. The player to move is ``ply % 2``.

Game length bound (``max_plies``): every move takes a piece one row forward
and no piece goes past its goal row, so a side's moves are at most the rows
its pieces can cover together, ``columns * (2 * rows - 3)`` with two start
rows (fewer with one); ``max_plies`` is OpenSpiel's ``MaxGameLength``,
twice that plus one.

What ``validate`` checks: cells hold 0, 1 or 2; the player to move is
``ply % 2``; neither side has more pieces than it started with, nor lost
more than the opponent has moved; the forward distance the pieces have
covered does not exceed the moves their side has made; a piece on its goal
row appears only in a finished game won by the player who moved last (at
most one such piece), as does a side without pieces; the terminal flag is
set exactly when one of those two things holds.

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
from farl_envs.games._grid import mirror_columns

MIN_SIZE = 2
MAX_SIZE = 26
#: boards with at least this many rows start with two rows of pieces per side
FULL_ROWS = 6
N_DIRECTIONS = 6
#: row and column step of each direction (0..2 black's, 3..5 white's)
DIR_ROW = np.array([1, 1, 1, -1, -1, -1], dtype=np.int64)
DIR_COL = np.array([-1, 0, 1, -1, 0, 1], dtype=np.int64)
#: the direction each direction becomes in the left-right mirror
MIRROR_DIR = (2, 1, 0, 5, 4, 3)
COLUMN_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def encode_action(cols: int, row: int, col: int, direction: int, capture: int) -> int:
    """OpenSpiel's action number of a move (see the module docstring)."""
    return ((row * cols + col) * N_DIRECTIONS + direction) * 2 + capture


def decode_action(cols: int, action: int) -> tuple:
    """``(row, col, direction, capture)`` of an action number."""
    capture = action % 2
    direction = (action // 2) % N_DIRECTIONS
    cell = action // (2 * N_DIRECTIONS)
    return cell // cols, cell % cols, direction, capture


def start_rows(rows: int) -> int:
    """Rows of pieces each side starts with (2, or 1 on boards under 6 rows)."""
    return 2 if rows >= FULL_ROWS else 1


@njit(cache=True)
def initial_state(p, rng):
    """Black on the top row(s), white on the bottom row(s); ``rng`` is unused."""
    rows, cols = p[0], p[1]
    s = np.zeros(HEADER + rows * cols, dtype=np.int32)
    depth = 2 if rows >= FULL_ROWS else 1
    for r in range(depth):
        for c in range(cols):
            s[HEADER + r * cols + c] = 1
            s[HEADER + (rows - 1 - r) * cols + c] = 2
    return s


@njit(cache=True)
def legal_actions(p, s, mask):
    # On bit boards of a few whole rows at a time (bit j = square r0 * cols + j,
    # at most 63 squares): the mover's pieces, and the empty and opponent
    # squares one row ahead of each square, give every kind of move for all
    # pieces at once with a few shifts and ANDs. Each piece with a move then
    # writes its five entries (0 or 1: stores rather than tests, which random
    # play would mispredict); the entry of a straight capture stays 0.
    mask[:] = 0
    if s[TERMINAL]:
        return 0
    rows, cols = p[0], p[1]
    mover = s[TO_MOVE]
    me = mover + 1
    them = 2 - mover
    ahead = cols if mover == 0 else -cols  # from a square to the one in front of it
    chunk = 63 // cols  # rows per bit board (at least 2: columns <= 26)
    n = 0
    # black moves from rows 0..rows-2, white from rows 1..rows-1
    last = rows - 1 + mover
    for r0 in range(mover, last, chunk):
        k = min(chunk, last - r0)
        count = k * cols
        start = HEADER + r0 * cols
        own = row_bits(s, start, count, me)
        empty = row_bits(s, start + ahead, count, 0)
        opp = row_bits(s, start + ahead, count, them)
        left = first_column(k, cols)
        right = left << (cols - 1)
        straight = own & empty
        west = own & ~left  # pieces with a column to their left
        west_move, west_take = west & (empty << 1), west & (opp << 1)
        east = own & ~right
        east_move, east_take = east & (empty >> 1), east & (opp >> 1)
        movers = straight | west_move | west_take | east_move | east_take
        # the action of square r0 * cols in the mover's first direction (3 * mover), no capture
        first = (r0 * cols * N_DIRECTIONS + 3 * mover) * 2
        while movers:
            j = lowest_bit(movers)
            movers &= movers - 1
            base = first + j * 2 * N_DIRECTIONS
            to_west, takes_west = (west_move >> j) & 1, (west_take >> j) & 1
            to_east, takes_east = (east_move >> j) & 1, (east_take >> j) & 1
            forward = (straight >> j) & 1
            mask[base] = to_west
            mask[base + 1] = takes_west
            mask[base + 2] = forward
            mask[base + 4] = to_east
            mask[base + 5] = takes_east
            n += to_west + takes_west + forward + to_east + takes_east
    return n


@njit(cache=True)
def afterstate(p, s, a, out, rewards):
    rows, cols = p[0], p[1]
    mover = s[TO_MOVE]
    ply = s[PLY]
    copy_state(s, out)
    capture = a % 2
    direction = (a // 2) % N_DIRECTIONS
    cell = a // (2 * N_DIRECTIONS)
    r2 = cell // cols + DIR_ROW[direction]
    c2 = cell % cols + DIR_COL[direction]
    out[HEADER + cell] = 0
    out[HEADER + r2 * cols + c2] = mover + 1
    out[PLY] = ply + 1
    out[TO_MOVE] = 1 - mover
    rewards[:] = 0.0
    won = r2 == (rows - 1 if mover == 0 else 0)
    if not won and capture:
        # the opponent lost a piece: did it have any left? (searched from its
        # home side, where its pieces usually are, so the search stops early)
        them = 2 - mover
        won = True
        n = rows * cols
        for k in range(n):
            i = n - 1 - k if mover == 0 else k
            if out[HEADER + i] == them:
                won = False
                break
    if won:
        out[TERMINAL] = 1
        rewards[mover] = 1.0
        rewards[1 - mover] = -1.0


@njit(cache=True)
def observe(p, s, seat, out):
    rows, cols = p[0], p[1]
    out[:] = 0
    for i in range(rows * cols):
        v = s[HEADER + i]
        if v != 0:
            out[i // cols, i % cols, 0 if v == seat + 1 else 1] = 1
    goal = rows - 1 if seat == 0 else 0
    for c in range(cols):
        out[goal, c, 2] = 1


def piece_counts(p, s) -> tuple:
    """``(black pieces, white pieces)``: the descent paper's "presence" is the
    mover's count minus the opponent's."""
    cells = np.asarray(s[HEADER:])
    return int(np.sum(cells == 1)), int(np.sum(cells == 2))


def validate(p, s) -> str:
    """Empty when ``s`` passes the checks listed in the module docstring, else the reason."""
    rows, cols = int(p[0]), int(p[1])
    msg = check_header(s, 2, HEADER + rows * cols)
    if msg:
        return msg
    cells = np.asarray(s[HEADER:]).reshape(rows, cols)
    if np.any((cells < 0) | (cells > 2)):
        return "cells must be 0 (empty), 1 (black, player_0) or 2 (white, player_1)"
    ply = int(s[PLY])
    if s[TO_MOVE] != ply % 2:
        return "player to move must be ply % 2 (black moves first and the players alternate)"
    moves = ((ply + 1) // 2, ply // 2)  # moves made by black, white
    start = start_rows(rows) * cols
    first_row = (start_rows(rows) - 1, rows - start_rows(rows))  # the most advanced start row of each side
    for seat, name in ((0, "black"), (1, "white")):
        pieces = int(np.sum(cells == seat + 1))
        if pieces > start:
            return f"{name} has {pieces} pieces but starts with {start}"
        if start - pieces > moves[1 - seat]:
            return (f"{name} lost {start - pieces} pieces but the opponent made only "
                    f"{moves[1 - seat]} moves (one capture at most each)")
        where = np.nonzero(cells == seat + 1)[0]
        advance = where - first_row[0] if seat == 0 else first_row[1] - where
        covered = int(np.sum(np.maximum(advance, 0)))
        if covered > moves[seat]:
            return (f"{name}'s pieces stand {covered} rows beyond its start rows but {name} "
                    f"made only {moves[seat]} moves (one row each)")
    last = 1 - int(s[TO_MOVE])  # the player who moved last
    on_goal = (int(np.sum(cells[rows - 1] == 1)), int(np.sum(cells[0] == 2)))
    wiped = (not np.any(cells == 1), not np.any(cells == 2))
    if ply == 0:
        return "" if not s[TERMINAL] else "the start position is not terminal"
    if on_goal[1 - last] or wiped[last]:
        return "the game was already won by the player to move before the last move"
    if on_goal[last] > 1:
        return "the game ends when the first piece reaches its goal row; there are several"
    over = bool(on_goal[last]) or wiped[1 - last]
    if bool(s[TERMINAL]) != over:
        return ("terminal flag is set but no piece reached its goal row and both sides have pieces"
                if s[TERMINAL] else "the game is won (a goal row reached or a side without pieces), "
                "so the terminal flag must be set")
    if not over:
        mask = np.zeros(rows * cols * 2 * N_DIRECTIONS, dtype=np.int8)
        if legal_actions(p, np.asarray(s, dtype=np.int32), mask) == 0:
            return "the player to move has no move"
    return ""


def _rank(rows: int, row: int) -> str:
    return str(rows - row)


def render_text(p, s) -> str:
    """The board as OpenSpiel prints it: rank labels left, ``b`` black, ``w`` white, ``.`` empty."""
    rows, cols = int(p[0]), int(p[1])
    width = len(str(rows))
    lines = []
    for r in range(rows):
        row = "".join(".bw"[int(s[HEADER + r * cols + c])] for c in range(cols))
        lines.append(_rank(rows, r).rjust(width) + row)
    lines.append(" " * width + COLUMN_LETTERS[:cols])
    return "\n".join(lines)


def action_name(rows: int, cols: int, action: int) -> str:
    """OpenSpiel's name of an action, e.g. ``"a7b6"`` or ``"c2d3*"`` (decimal ranks)."""
    r, c, d, cap = decode_action(cols, action)
    r2, c2 = r + int(DIR_ROW[d]), c + int(DIR_COL[d])
    if not (0 <= r2 < rows and 0 <= c2 < cols):
        return f"{COLUMN_LETTERS[c]}{_rank(rows, r)}-off-board"
    return f"{COLUMN_LETTERS[c]}{_rank(rows, r)}{COLUMN_LETTERS[c2]}{_rank(rows, r2)}" + ("*" if cap else "")


def symmetries(p) -> np.ndarray:
    """``int32[2, rows * columns]``: identity and the left-right mirror."""
    return mirror_columns(int(p[0]), int(p[1]))


def action_symmetries(p) -> np.ndarray:
    """The mirror takes the piece's square to the mirrored square and swaps the diagonals."""
    rows, cols = int(p[0]), int(p[1])
    n = rows * cols * 2 * N_DIRECTIONS
    out = np.zeros((2, n), dtype=np.int32)
    out[0] = np.arange(n)
    for a in range(n):
        r, c, d, cap = decode_action(cols, a)
        out[1, a] = encode_action(cols, r, cols - 1 - c, MIRROR_DIR[d], cap)
    return out


def make_spec(rows: int = 8, columns: int = 8) -> GameSpec:
    """The Breakthrough spec for a ``rows x columns`` board (each 2..26; ``ValueError`` otherwise)."""
    rows = check_int_param("rows", rows, MIN_SIZE, MAX_SIZE)
    columns = check_int_param("columns", columns, MIN_SIZE, MAX_SIZE)
    n = rows * columns
    n_actions = n * 2 * N_DIRECTIONS
    return GameSpec(
        name="breakthrough", version=0, params={"rows": rows, "columns": columns},
        p=np.array([rows, columns], dtype=np.int64),
        n_players=2, n_actions=n_actions, state_size=HEADER + n, n_cells=n, n_cell_values=3,
        obs_shape=(rows, columns, 3), obs_high=1, max_plies=2 * columns * (2 * rows - 3) + 1,
        reward_range=(-1.0, 1.0),
        initial_state=initial_state, legal_actions=legal_actions, afterstate=afterstate,
        observe=observe, validate=validate,
        render_text=render_text, symmetries=symmetries, action_symmetries=action_symmetries,
        action_names=tuple(action_name(rows, columns, a) for a in range(n_actions)), counts_pieces=True,
        cell_colors=((200, 170, 120), (25, 25, 25), (240, 240, 240)),
        grid_shape=(rows, columns),
    )
