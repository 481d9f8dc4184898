"""Small helpers shared by the grid games: symmetry permutations, text boards and the two-plane stone view."""
from __future__ import annotations

import numpy as np
from numba import njit


def square_symmetries(n: int) -> np.ndarray:
    """The 8 symmetries of an ``n x n`` board as cell permutations.

    Cells are numbered ``n*row + col``. Row ``k`` of the result maps each cell
    of the transformed board to the cell of the original board it shows, so
    ``board[perms[k]]`` is the board under symmetry ``k``; row 0 is the
    identity. The 8 are the rotations by 0/90/180/270 degrees and their
    mirror images.
    """
    grid = np.arange(n * n, dtype=np.int32).reshape(n, n)
    out = []
    g = grid
    for _ in range(4):
        out.append(g.ravel().copy())
        out.append(g[:, ::-1].ravel().copy())
        g = np.rot90(g)
    return np.array(out, dtype=np.int32)


def cell_action_symmetries(perms: np.ndarray, n_actions: int) -> np.ndarray:
    """Action maps for games whose actions ``0..n_cells-1`` are cells.

    If ``board_k = board[perm]``, the cell ``c`` of the original board sits at
    position ``i`` with ``perm[i] == c`` of board k, so the action maps are the
    inverse permutations. Actions beyond the cells (Othello's pass) map to
    themselves.
    """
    n_sym, n_cells = perms.shape
    out = np.tile(np.arange(n_actions, dtype=np.int32), (n_sym, 1))
    for k in range(n_sym):
        out[k, perms[k]] = np.arange(n_cells, dtype=np.int32)
    return out


def mirror_columns(rows: int, cols: int) -> np.ndarray:
    """Identity and left-right mirror of a ``rows x cols`` board (cell = cols*row + col)."""
    grid = np.arange(rows * cols, dtype=np.int32).reshape(rows, cols)
    return np.array([grid.ravel(), grid[:, ::-1].ravel()], dtype=np.int32)


def text_grid(cells: np.ndarray, rows: int, cols: int, symbols: str, col_labels: str = "") -> str:
    """Draw ``cells`` (row-major, values index into ``symbols``) as lines of text."""
    lines = []
    if col_labels:
        lines.append(" ".join(col_labels[c] for c in range(cols)))
    for r in range(rows):
        lines.append(" ".join(symbols[int(cells[r * cols + c])] for c in range(cols)))
    return "\n".join(lines)


@njit(cache=True)
def stone_planes(s, base, rows, cols, seat, out):
    """``seat``'s view of a board of stones into ``out`` (``int8[rows, cols, 2]``): its own, then the opponent's.

    The board is ``rows * cols`` cells of ``s`` from ``base``, row-major: 0 empty, ``k + 1`` a stone of seat ``k``.
    """
    own = seat + 1
    for r in range(rows):
        for c in range(cols):
            v = s[base + r * cols + c]
            out[r, c, 0] = 1 if v == own else 0
            out[r, c, 1] = 1 if v != 0 and v != own else 0
