"""Small helpers shared by the grid games: symmetry permutations and text boards."""
from __future__ import annotations

import numpy as np


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
