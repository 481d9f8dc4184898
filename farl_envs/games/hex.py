"""Hex rules as numba kernels, on rhombus boards from 2x2 to 13x13.

==================  ===========================================
parameters          ``size=6`` (2..13)
players             2 (``player_0`` moves first); no swap rule
goals               ``player_0`` (X) connects the **top** and
                    **bottom** rows, ``player_1`` (O) the **left**
                    and **right** columns
actions             ``size * size``: ``cell = size * row + col``;
                    legal while the cell is empty. Names ``"a1"``,
                    ``"b1"``, ... (column letter, row number from 1)
rewards             +1 win / -1 loss at the move that connects;
                    Hex has no draws (a full board always holds exactly
                    one connection)
observation         ``int8[size, size, 2]``: plane 0 the observer's
                    stones, plane 1 the opponent's
n-tuple board       ``size * size`` cells, values 0 empty /
                    1 ``player_0`` / 2 ``player_1`` (P = 3)
symmetries          2 (identity and the 180-degree rotation
                    ``cell -> size*size - 1 - cell``, which maps each
                    player's pair of goal edges onto itself)
==================  ===========================================

Cell numbering and the rhombus, shown for ``size = 4`` (each row sits half a
cell further right than the one above)::

     a  b  c  d
     0  1  2  3           row 1   (player_0's top edge)
       4  5  6  7         row 2
         8  9 10 11       row 3
          12 13 14 15     row 4   (player_0's bottom edge)
    player_1's edges: column a (left) and column d (right)

Cell (r, c) touches its six neighbours (r, c-1), (r, c+1), (r-1, c),
(r-1, c+1), (r+1, c-1) and (r+1, c); (r-1, c-1) and (r+1, c+1) are *not*
neighbours. With this layout the board is the usual Hex rhombus.

State: the common header (:mod:`farl_envs.core.spec`) followed by the
``size * size`` cells (0 empty, 1 ``player_0``, 2 ``player_1``). A win is
found by a flood fill from the stone just placed (only its group can have
become connecting); the fill marks visited stones in the output state itself
and restores them, so no scratch memory is needed.

Version history: v0, first release.
"""
from __future__ import annotations

from collections import deque

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
from farl_envs.games._grid import cell_action_symmetries, stone_planes, text_grid

MIN_SIZE = 2
MAX_SIZE = 13
COLUMN_LETTERS = "abcdefghijklm"

# the six neighbour directions (drow, dcol); direction d and d ^ 1 are opposite
DR = np.array([0, 0, -1, 1, -1, 1], dtype=np.int64)
DC = np.array([-1, 1, 0, 0, 1, -1], dtype=np.int64)
_VISITED = 3  # cell value VISITED + d: a visited stone whose parent lies in direction d
_ROOT = _VISITED + 6  # the placed stone, where the search started


@njit(cache=True)
def initial_state(p, rng):
    """The empty board (``int32[3 + size*size]``, all zeros); ``rng`` is unused."""
    n = p[0]
    return np.zeros(HEADER + n * n, dtype=np.int32)


@njit(cache=True)
def legal_actions(p, s, mask):
    """Mark the empty cells in ``mask`` (``int8[size*size]``); return their count."""
    n = p[0]
    if s[TERMINAL]:
        mask[:] = 0
        return 0
    count = 0
    for i in range(n * n):
        if s[HEADER + i] == 0:
            mask[i] = 1
            count += 1
        else:
            mask[i] = 0
    return count


@njit(cache=True)
def _edges(n, r, c, mark):
    """Bit 1 when (r, c) lies on the first goal edge of ``mark``, bit 2 on the second."""
    if mark == 1:
        return (1 if r == 0 else 0) | (2 if r == n - 1 else 0)
    return (1 if c == 0 else 0) | (2 if c == n - 1 else 0)


@njit(cache=True)
def _connects(s, n, cell, mark):
    """True when the group of ``mark`` stones through ``cell`` touches both of ``mark``'s goal edges.

    Depth-first search without a stack: each visited stone is rewritten as
    ``_VISITED + d`` where ``d`` is the direction back to the stone it was
    reached from, so the path back is stored in the board itself. All
    visited stones are restored to ``mark`` before returning.
    """
    cur = cell
    s[HEADER + cur] = _ROOT
    touched = _edges(n, cur // n, cur % n, mark)
    d = 0
    while touched != 3:
        r, c = cur // n, cur % n
        moved = False
        while d < 6:
            nr, nc = r + DR[d], c + DC[d]
            if 0 <= nr < n and 0 <= nc < n and s[HEADER + nr * n + nc] == mark:
                cur = nr * n + nc
                s[HEADER + cur] = _VISITED + (d ^ 1)
                touched |= _edges(n, nr, nc, mark)
                d = 0
                moved = True
                break
            d += 1
        if not moved:
            v = s[HEADER + cur]
            if v == _ROOT:
                break
            back = v - _VISITED
            cur = (r + DR[back]) * n + (c + DC[back])
            d = (back ^ 1) + 1  # continue the parent with the direction after the one that led here
    for i in range(HEADER, HEADER + n * n):
        if s[i] >= _VISITED:
            s[i] = mark
    return touched == 3


@njit(cache=True)
def afterstate(p, s, a, out, rewards):
    """Place the mover's stone on cell ``a`` (must be empty).

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
    # a connection needs at least ``size`` stones of the mover
    if (ply + 1 - mover) // 2 >= n and _connects(out, n, a, mark):
        out[TERMINAL] = 1
        rewards[mover] = 1.0
        rewards[1 - mover] = -1.0


@njit(cache=True)
def observe(p, s, seat, out):
    """``seat``'s view into ``out`` (``int8[size, size, 2]``): own stones, then the opponent's."""
    stone_planes(s, HEADER, p[0], p[0], seat, out)


# ------------------------------------------------------------ Python helpers
def _connected(grid: np.ndarray, mark: int) -> bool:
    """True when ``mark``'s stones join its two goal edges in ``grid`` (``[size, size]``); BFS."""
    n = grid.shape[0]
    g = grid if mark == 1 else grid.T  # player_1's left/right is player_0's top/bottom transposed
    seen = np.zeros((n, n), dtype=bool)
    queue = deque((0, c) for c in range(n) if g[0, c] == mark)
    for _, c in queue:
        seen[0, c] = True
    while queue:
        r, c = queue.popleft()
        if r == n - 1:
            return True
        for d in range(6):
            nr, nc = r + int(DR[d]), c + int(DC[d])
            if 0 <= nr < n and 0 <= nc < n and not seen[nr, nc] and g[nr, nc] == mark:
                seen[nr, nc] = True
                queue.append((nr, nc))
    return False


def validate(p, s) -> str:
    """Empty string when ``s`` is a legal position of the game ``p``, else the reason.

    Checks the layout, stone counts against the ply count and the player to
    move, and the game-over rules: at most one player is connected, that
    player made the last move, the game did not go on after the connection
    (some stone of the winner can be taken back leaving no connection), and
    the terminal flag is set exactly when someone is connected.
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
    w0, w1 = _connected(grid, 1), _connected(grid, 2)
    if w0 and w1:
        return "both players connect their edges"
    if w0 and n0 != n1 + 1:
        return "player_0 connects top and bottom but player_1 has moved since"
    if w1 and n0 != n1:
        return "player_1 connects left and right but player_0 has moved since"
    if w0 or w1:
        mark = 1 if w0 else 2
        for cell in np.flatnonzero(grid.ravel() == mark):
            g = grid.copy()
            g.flat[cell] = 0
            if not _connected(g, mark):
                break
        else:
            return "the game went on after a connection (no last move of the winner makes it)"
    if bool(s[TERMINAL]) != (w0 or w1):
        return "terminal flag does not match the board"
    return ""


def render_text(p, s) -> str:
    """The rhombus as text: column letters on top, each row indented one more space.

    ``.`` empty, ``X`` player_0 (top to bottom), ``O`` player_1 (left to
    right); the row number ends each line.
    """
    n = int(p[0])
    rows = text_grid(s[HEADER:], n, n, ".XO", COLUMN_LETTERS[:n]).split("\n")
    lines = [rows[0]] + [" " * r + line + f"  {r + 1}" for r, line in enumerate(rows[1:])]
    return "\n".join(lines)


def symmetries(p) -> np.ndarray:
    """``int32[2, size*size]``: the identity and the 180-degree rotation."""
    n = int(p[0])
    ident = np.arange(n * n, dtype=np.int32)
    return np.stack([ident, ident[::-1]])


def action_symmetries(p) -> np.ndarray:
    """``int32[2, size*size]``: actions are cells, so they map like the cells."""
    n = int(p[0])
    return cell_action_symmetries(symmetries(p), n * n)


def make_spec(size: int = 6) -> GameSpec:
    """The Hex spec for a ``size x size`` rhombus (2..13; ``ValueError`` otherwise)."""
    size = check_int_param("size", size, MIN_SIZE, MAX_SIZE)
    n = size * size
    return GameSpec(
        name="hex", version=0, params={"size": size}, p=np.array([size], dtype=np.int64),
        n_players=2, n_actions=n, state_size=HEADER + n, n_cells=n, n_cell_values=3,
        obs_shape=(size, size, 2), obs_high=1, max_plies=n, reward_range=(-1.0, 1.0),
        initial_state=initial_state, legal_actions=legal_actions, afterstate=afterstate,
        observe=observe, validate=validate,
        render_text=render_text, symmetries=symmetries, action_symmetries=action_symmetries,
        action_names=tuple(f"{COLUMN_LETTERS[c % size]}{c // size + 1}" for c in range(n)),
        cell_colors=((225, 225, 225), (200, 40, 40), (40, 80, 200)),
        grid_shape=(size, size), hex_grid=True, view="hex", counts_pieces=True,
    )
