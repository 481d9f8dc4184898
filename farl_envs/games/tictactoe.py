"""TicTacToe rules as numba kernels.

==================  ===========================================
players             2 (``player_0`` plays X and moves first)
actions             9: ``cell = 3 * row + col``, row 0 at the top
rewards             +1 win / -1 loss / 0 draw, at the last move
observation         ``int8[3, 3, 2]``: plane 0 the observer's marks,
                    plane 1 the opponent's
n-tuple board       9 cells, values 0 empty / 1 X / 2 O (P = 3)
symmetries          8 (rotations and reflections of the square)
==================  ===========================================

Cell numbering::

    0 | 1 | 2
    --+---+--
    3 | 4 | 5
    --+---+--
    6 | 7 | 8

State: the common header (:mod:`farl_envs.core.spec`) followed by the 9
cells (0 empty, 1 X, 2 O).

Version history: v0, first release.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from farl_envs.core.kernel_utils import copy_state
from farl_envs.core.spec import HEADER, PLY, TERMINAL, TO_MOVE, GameSpec, check_header
from farl_envs.games._fixed_ntuples import TICTACTOE
from farl_envs.games._grid import cell_action_symmetries, square_symmetries, text_grid

N_CELLS = 9
STATE_SIZE = HEADER + N_CELLS

LINES = np.array(
    [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]],
    dtype=np.int64,
)


@njit(cache=True)
def initial_state(p, rng):
    return np.zeros(STATE_SIZE, dtype=np.int32)


@njit(cache=True)
def legal_actions(p, s, mask):
    mask[:] = 0
    if s[TERMINAL]:
        return 0
    n = 0
    for c in range(N_CELLS):
        if s[HEADER + c] == 0:
            mask[c] = 1
            n += 1
    return n


@njit(cache=True)
def _wins_through(s, cell, mark):
    """True when the line(s) through ``cell`` are full of ``mark``."""
    for li in range(LINES.shape[0]):
        a, b, c = LINES[li, 0], LINES[li, 1], LINES[li, 2]
        if a == cell or b == cell or c == cell:
            if s[HEADER + a] == mark and s[HEADER + b] == mark and s[HEADER + c] == mark:
                return True
    return False


@njit(cache=True)
def afterstate(p, s, a, out, rewards):
    copy_state(s, out)
    mover = s[TO_MOVE]
    mark = mover + 1
    out[HEADER + a] = mark
    out[PLY] = s[PLY] + 1
    rewards[:] = 0.0
    if _wins_through(out, a, mark):
        out[TERMINAL] = 1
        rewards[mover] = 1.0
        rewards[1 - mover] = -1.0
    elif out[PLY] == N_CELLS:
        out[TERMINAL] = 1
    out[TO_MOVE] = 1 - mover


@njit(cache=True)
def observe(p, s, seat, out):
    out[:] = 0
    for c in range(N_CELLS):
        v = s[HEADER + c]
        if v != 0:
            out[c // 3, c % 3, 0 if v == seat + 1 else 1] = 1


def _winner(cells: np.ndarray) -> int:
    """Mark (1 or 2) that owns a full line, 0 if none, 3 if both do."""
    found = 0
    for a, b, c in LINES:
        if cells[a] != 0 and cells[a] == cells[b] == cells[c]:
            found |= int(cells[a])
    return found


def validate(p, s) -> str:
    msg = check_header(s, 2, STATE_SIZE)
    if msg:
        return msg
    cells = s[HEADER:]
    if np.any((cells < 0) | (cells > 2)):
        return "cells must be 0 (empty), 1 (X) or 2 (O)"
    nx, no = int(np.sum(cells == 1)), int(np.sum(cells == 2))
    if nx not in (no, no + 1):
        return f"X has {nx} marks and O {no}: X moves first, so X must have as many as O or one more"
    if s[PLY] != nx + no:
        return f"ply count {s[PLY]} does not match the {nx + no} marks on the board"
    if s[TO_MOVE] != (nx + no) % 2:
        return "player to move does not match the number of marks"
    w = _winner(cells)
    if w == 3:
        return "both players have three in a row"
    if w == 1 and nx != no + 1:
        return "X has three in a row but O has moved since"
    if w == 2 and nx != no:
        return "O has three in a row but X has moved since"
    over = w != 0 or nx + no == N_CELLS
    if bool(s[TERMINAL]) != over:
        return "terminal flag does not match the board"
    return ""


def render_text(p, s) -> str:
    return text_grid(s[HEADER:], 3, 3, ".XO")


def symmetries(p) -> np.ndarray:
    return square_symmetries(3)


def action_symmetries(p) -> np.ndarray:
    """Actions are cells, so each symmetry maps them like the cells."""
    return cell_action_symmetries(symmetries(p), 9)


def make_spec() -> GameSpec:
    """The TicTacToe spec (the game has no parameters)."""
    return GameSpec(
        name="tictactoe", version=0, params={}, p=np.zeros(1, dtype=np.int64),
        n_players=2, n_actions=9, state_size=STATE_SIZE, n_cells=N_CELLS, n_cell_values=3,
        obs_shape=(3, 3, 2), obs_high=1, max_plies=9, reward_range=(-1.0, 1.0),
        initial_state=initial_state, legal_actions=legal_actions, afterstate=afterstate,
        observe=observe, validate=validate,
        render_text=render_text, symmetries=symmetries, action_symmetries=action_symmetries,
        action_names=tuple(f"{'abc'[c % 3]}{c // 3 + 1}" for c in range(9)),
        cell_colors=((230, 230, 230), (200, 40, 40), (40, 80, 200)), grid_shape=(3, 3),
        fixed_ntuples=TICTACTOE, evaluation_starts="start+1ply", view="tictactoe", counts_pieces=True,
    )
