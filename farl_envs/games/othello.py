"""Othello (Reversi on the 8x8 board) rules as numba kernels.

==================  ===========================================
players             2 (``player_0`` plays black and moves first)
actions             65: ``cell = 8 * row + col`` (row 0 = rank 1,
                    col 0 = file a), named ``"a1"`` .. ``"h8"``;
                    action 64 ``"pass"``, legal only when the mover
                    has no other legal move
rewards             +1 / -1 / 0 by disc count (more discs wins), at the
                    move that ends the game; 0 at every other move
observation         ``int8[8, 8, 2]``: plane 0 the observer's discs,
                    plane 1 the opponent's; row 0 (rank 1) at the top
n-tuple board       64 cells: 0 empty, 1 black, 2 white, 3 empty where
                    the next disc may go (P = 4)
symmetries          8 (rotations and reflections of the square)
==================  ===========================================

Rules. The game starts with white on d4 and e5, black on e4 and d5. A move
puts a disc of the mover's colour on an empty cell such that, in at least
one of the 8 directions, one or more opponent discs lie in an unbroken line
between it and another disc of the mover's; every such line (in all
directions at once) is flipped to the mover's colour. A player without such
a move must pass (action 64), and may pass only then. The game ends when
neither player can move, which includes the full board; it is detected
right after each move, so a position where neither side can move is always
terminal and no "pass, pass" sequence is ever played. The player with more
discs wins; equal counts are a draw. (Empty cells are not awarded to the
winner: the reward depends only on who has more discs.)

Cell numbering (Othello diagrams put rank 1 at the top; black's four
opening moves are d3 = 19, c4 = 26, f5 = 37 and e6 = 44)::

         a  b  c  d  e  f  g  h
      1  0  1  2  3  4  5  6  7
      2  8  9 10 11 12 13 14 15
      3 16 17 18 19 20 21 22 23
      4 24 25 26 27 28 29 30 31        d4 = 27 white, e4 = 28 black
      5 32 33 34 35 36 37 38 39        d5 = 35 black, e5 = 36 white
      6 40 41 42 43 44 45 46 47
      7 48 49 50 51 52 53 54 55
      8 56 57 58 59 60 61 62 63

State: the common header (:mod:`farl_envs.core.spec`) followed by the 64
cells (0 empty, 1 black = ``player_0``, 2 white = ``player_1``). A pass
counts as a ply and hands the move to the other player, so the player to
move is always ``ply % 2``.

What ``validate`` checks. Passes leave no trace on the board, so the exact
move history cannot be recovered; it checks the facts every reachable
position satisfies:

* cells hold 0, 1 or 2, and the four centre cells are occupied (discs are
  never removed);
* the occupied cells form one 8-connected group (every disc is placed next
  to an existing one);
* with ``d`` discs on the board, ``d - 4`` disc-placing moves were played,
  and passes are never consecutive and never the first move, so
  ``d - 4 <= ply <= 2 * (d - 4)``;
* the player to move is ``ply % 2``;
* the terminal flag is set exactly when neither side has a legal move.

It cannot tell which colour placed which disc, so it accepts some
positions that no game reaches (e.g. the start position with colours
swapped).

Version history: v0, first release.  The n-tuple board (not the
environment's observation) gained value 3, the legal cells of the next
mover, as Konen & Bagheri 2020, A.6, specifies (P = 4); agents saved with the earlier
three-valued board no longer load.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from farl_envs.core.kernel_utils import copy_state
from farl_envs.core.spec import HEADER, PLY, TERMINAL, TO_MOVE, GameSpec, check_header
from farl_envs.games._grid import cell_action_symmetries, square_symmetries

SIZE = 8
N_CELLS = SIZE * SIZE
PASS = N_CELLS
N_ACTIONS = N_CELLS + 1
STATE_SIZE = HEADER + N_CELLS
CENTRE = (27, 28, 35, 36)
#: the longest game: 60 disc moves, each preceded by at most one pass
MAX_PLIES = 2 * (N_CELLS - 4)

#: the 8 directions as (row step, column step); a module constant so that the
#: kernels need no allocation
DIRECTIONS = np.array(
    [[-1, -1], [-1, 0], [-1, 1], [0, -1], [0, 1], [1, -1], [1, 0], [1, 1]], dtype=np.int64,
)


@njit(cache=True)
def initial_state(p, rng):
    s = np.zeros(STATE_SIZE, dtype=np.int32)
    s[HEADER + 27] = 2  # d4 white
    s[HEADER + 28] = 1  # e4 black
    s[HEADER + 35] = 1  # d5 black
    s[HEADER + 36] = 2  # e5 white
    return s


@njit(cache=True)
def _bracketed(s, row, col, dr, dc, me, opp):
    """How many ``opp`` discs, going from (row, col) in direction (dr, dc),
    lie in an unbroken line closed by a ``me`` disc (0 if the line is not
    closed)."""
    n = 0
    r = row + dr
    c = col + dc
    while 0 <= r < SIZE and 0 <= c < SIZE:
        v = s[HEADER + SIZE * r + c]
        if v == opp:
            n += 1
        elif v == me:
            return n
        else:
            return 0
        r += dr
        c += dc
    return 0


@njit(cache=True)
def _is_move(s, cell, me, opp):
    """True when ``me`` may place a disc on ``cell``."""
    if s[HEADER + cell] != 0:
        return False
    row = cell // SIZE
    col = cell % SIZE
    for d in range(DIRECTIONS.shape[0]):
        if _bracketed(s, row, col, DIRECTIONS[d, 0], DIRECTIONS[d, 1], me, opp) > 0:
            return True
    return False


@njit(cache=True)
def _has_move(s, seat):
    """True when ``seat`` has a disc-placing move (passes not counted)."""
    me = seat + 1
    opp = 2 - seat
    for cell in range(N_CELLS):
        if _is_move(s, cell, me, opp):
            return True
    return False


@njit(cache=True)
def legal_actions(p, s, mask):
    mask[:] = 0
    if s[TERMINAL]:
        return 0
    seat = s[TO_MOVE]
    me = seat + 1
    opp = 2 - seat
    n = 0
    for cell in range(N_CELLS):
        if _is_move(s, cell, me, opp):
            mask[cell] = 1
            n += 1
    if n == 0:
        mask[PASS] = 1
        n = 1
    return n


@njit(cache=True)
def afterstate(p, s, a, out, rewards):
    mover = s[TO_MOVE]
    ply = s[PLY]
    copy_state(s, out)
    me = mover + 1
    opp = 2 - mover
    if a != PASS:
        row = a // SIZE
        col = a % SIZE
        out[HEADER + a] = me
        # flipping one direction never touches the cells of another, so the
        # lines can be found and flipped one direction at a time
        for d in range(DIRECTIONS.shape[0]):
            dr = DIRECTIONS[d, 0]
            dc = DIRECTIONS[d, 1]
            k = _bracketed(out, row, col, dr, dc, me, opp)
            for i in range(1, k + 1):
                out[HEADER + SIZE * (row + i * dr) + col + i * dc] = me
    out[PLY] = ply + 1
    out[TO_MOVE] = 1 - mover
    rewards[:] = 0.0
    # the game is over when neither side can move (the next player is tried
    # first: when it can move, which is the usual case, one scan suffices)
    if not _has_move(out, 1 - mover) and not _has_move(out, mover):
        out[TERMINAL] = 1
        black = 0
        white = 0
        for c in range(N_CELLS):
            v = out[HEADER + c]
            if v == 1:
                black += 1
            elif v == 2:
                white += 1
        if black > white:
            rewards[0] = 1.0
            rewards[1] = -1.0
        elif white > black:
            rewards[0] = -1.0
            rewards[1] = 1.0


@njit(cache=True)
def chance(p, s, rng):
    return -1


@njit(cache=True)
def board(p, s, out):
    """The n-tuple board: 1 black, 2 white, 3 an empty cell where the next
    disc may go, 0 any other empty cell (P = 4, as in Konen & Bagheri 2020, A.6, and GBG).

    "The next disc" is that of the player to move, or, when that player must
    pass, of the other player, who places the next disc; a finished game
    has no 3s.  Marking the legal cells hands the value function the
    mobility of the side to move, which the disc pattern alone shows only
    through long-range lines (Othello's n-tuples are 6 cells long).
    """
    for c in range(N_CELLS):
        out[c] = s[HEADER + c]
    if s[TERMINAL]:
        return
    seat = s[TO_MOVE]
    marked = 0
    for c in range(N_CELLS):
        if _is_move(s, c, seat + 1, 2 - seat):
            out[c] = 3
            marked += 1
    if marked == 0:  # the player to move must pass: the other one moves next
        for c in range(N_CELLS):
            if _is_move(s, c, 2 - seat, seat + 1):
                out[c] = 3


@njit(cache=True)
def observe(p, s, seat, out):
    out[:] = 0
    for c in range(N_CELLS):
        v = s[HEADER + c]
        if v != 0:
            out[c // SIZE, c % SIZE, 0 if v == seat + 1 else 1] = 1


def _connected(cells: np.ndarray) -> bool:
    """True when the occupied cells form one 8-connected group."""
    occupied = set(int(c) for c in np.flatnonzero(cells))
    if not occupied:
        return False
    start = next(iter(occupied))
    seen, todo = {start}, [start]
    while todo:
        c = todo.pop()
        r, k = divmod(c, SIZE)
        for dr, dc in DIRECTIONS:
            rr, kk = r + int(dr), k + int(dc)
            n = SIZE * rr + kk
            if 0 <= rr < SIZE and 0 <= kk < SIZE and n in occupied and n not in seen:
                seen.add(n)
                todo.append(n)
    return len(seen) == len(occupied)


def validate(p, s) -> str:
    """Empty when ``s`` passes the checks listed in the module docstring, else the reason."""
    msg = check_header(s, 2, STATE_SIZE)
    if msg:
        return msg
    cells = s[HEADER:]
    if np.any((cells < 0) | (cells > 2)):
        return "cells must be 0 (empty), 1 (black) or 2 (white)"
    if any(cells[c] == 0 for c in CENTRE):
        return "the four centre cells d4, e4, d5, e5 must be occupied"
    if not _connected(cells):
        return "the discs must form one connected group (each disc is placed next to another)"
    moves = int(np.count_nonzero(cells)) - 4
    if not moves <= s[PLY] <= 2 * moves:
        return (f"ply count {s[PLY]} impossible with {moves + 4} discs: {moves} disc moves "
                f"and at most as many passes were played, so ply must be in {moves}..{2 * moves}")
    if s[TO_MOVE] != s[PLY] % 2:
        return "player to move must be ply % 2 (every move, a pass too, hands over the turn)"
    over = not _has_move(s, 0) and not _has_move(s, 1)
    if bool(s[TERMINAL]) != over:
        return ("terminal flag is set but a player can still move" if s[TERMINAL]
                else "neither player can move, so the terminal flag must be set")
    return ""


def render_text(p, s) -> str:
    """The board as text, rank 1 on top: ``.`` empty, ``X`` black, ``O`` white."""
    lines = ["  a b c d e f g h"]
    for r in range(SIZE):
        row = " ".join(".XO"[int(s[HEADER + SIZE * r + c])] for c in range(SIZE))
        lines.append(f"{r + 1} {row}")
    return "\n".join(lines)


def symmetries(p) -> np.ndarray:
    """``int32[8, 64]``: the rotations and reflections of the square."""
    return square_symmetries(SIZE)


def action_symmetries(p) -> np.ndarray:
    """Actions are cells, so each symmetry maps them like the cells (pass stays pass)."""
    return cell_action_symmetries(symmetries(p), 65)


def make_spec() -> GameSpec:
    """The Othello spec (the game has no parameters)."""
    names = tuple(f"{'abcdefgh'[c % SIZE]}{c // SIZE + 1}" for c in range(N_CELLS)) + ("pass",)
    return GameSpec(
        name="othello", version=0, params={}, p=np.zeros(1, dtype=np.int64),
        n_players=2, n_actions=N_ACTIONS, state_size=STATE_SIZE, n_cells=N_CELLS, n_cell_values=4,
        obs_shape=(SIZE, SIZE, 2), obs_high=1, max_plies=MAX_PLIES, has_chance=False,
        reward_range=(-1.0, 1.0),
        initial_state=initial_state, legal_actions=legal_actions, afterstate=afterstate,
        chance=chance, board=board, observe=observe, validate=validate,
        render_text=render_text, symmetries=symmetries, action_symmetries=action_symmetries,
        action_names=names,
        cell_colors=((30, 120, 60), (20, 20, 20), (240, 240, 240)), grid_shape=(SIZE, SIZE),
    )
