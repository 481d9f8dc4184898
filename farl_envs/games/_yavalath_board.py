"""Yavalath's board: the hexagon of hexagons, its numbering, lines, symmetries, names and pictures.

Geometry only, no rules: :mod:`farl_envs.games.yavalath` (whose docstring
describes the board) builds its kernels' neighbour tables from
:func:`neighbour_table` and hands the drawing and naming functions below to
its spec. A cell is ``(r, c)`` on a ``(2*size-1)``-square grid with
``size-1 <= r + c <= 3*size-3``, numbered row by row.
"""
from __future__ import annotations

import numpy as np

ROW_LETTERS = "abcdefghijklmnopqrs"

# the six directions (dr, dc); direction d and d + 3 are opposite, axis d % 3
DR = (0, 1, 1, 0, -1, -1)
DC = (1, 0, -1, -1, 0, 1)


def n_cells_of(size: int) -> int:
    """Cells of the hexagon with ``size`` cells per edge: ``3*size*(size-1) + 1``."""
    return 3 * size * (size - 1) + 1


def cell_coords(size: int) -> list[tuple[int, int]]:
    """``(r, c)`` of every cell, in cell (action) order."""
    m = 2 * size - 1
    return [(r, c) for r in range(m) for c in range(m) if size - 1 <= r + c <= 3 * size - 3]


def neighbour_table(size: int) -> np.ndarray:
    """``int64[n_cells, 6]``: the neighbour of each cell in direction d, -1 off the board."""
    coords = cell_coords(size)
    index = {rc: i for i, rc in enumerate(coords)}
    table = np.full((len(coords), 6), -1, dtype=np.int64)
    for i, (r, c) in enumerate(coords):
        for d in range(6):
            table[i, d] = index.get((r + DR[d], c + DC[d]), -1)
    return table


def lines(cells: np.ndarray, size: int) -> dict:
    """The lines of stones on a board: ``{"longest": {mark: length of its longest line}, "three": {marks with a
    line of exactly 3}}``."""
    coords = cell_coords(size)
    where = {rc: int(v) for rc, v in zip(coords, cells)}
    longest: dict[int, int] = {}
    three: set[int] = set()
    for (r, c), v in where.items():
        if v == 0:
            continue
        for dr, dc in ((0, 1), (1, 0), (1, -1)):
            if where.get((r - dr, c - dc)) == v:
                continue  # not the start of the line
            k = 1
            while where.get((r + k * dr, c + k * dc)) == v:
                k += 1
            longest[v] = max(longest.get(v, 0), k)
            if k == 3:
                three.add(v)
    return {"longest": longest, "three": three}


def text(size: int, cells: np.ndarray, outs: tuple) -> str:
    """The hexagon as text, one line per row with its letter; ``.`` empty, ``X`` ``O`` ``T`` seats 0, 1, 2; the
    seats in ``outs`` listed below the board."""
    symbols = ".XOT"
    coords = cell_coords(size)
    n = len(coords)
    rows = []
    i = 0
    for r in range(2 * size - 1):
        row = []
        while i < n and coords[i][0] == r:
            row.append(symbols[int(cells[i])])
            i += 1
        rows.append(" " * abs(r - (size - 1)) + ROW_LETTERS[r] + " " + " ".join(row))
    if outs:
        rows.append("out: " + ", ".join(f"player_{q}" for q in outs))
    return "\n".join(rows)


def symmetries(size: int) -> np.ndarray:
    """``int32[12, n_cells]``: the 6 rotations, then each mirrored; row 0 the identity.

    Row ``k`` maps position ``i`` of the transformed board to the cell of the
    original board shown there (``board[perm]``). In cube coordinates
    ``(x, y, z)`` (sum 0, centre 0) a rotation by 60 degrees is
    ``(x, y, z) -> (-z, -x, -y)`` and the mirror swaps ``y`` and ``z``.
    """
    k = size - 1
    cube = [(c - k, k - r - c + k, r - k) for r, c in cell_coords(size)]
    index = {xyz: i for i, xyz in enumerate(cube)}
    rows = []
    for mirror in (False, True):
        for turns in range(6):
            perm = []
            for xyz in cube:
                x, y, z = xyz
                if mirror:
                    y, z = z, y
                for _ in range(turns):
                    x, y, z = -z, -x, -y
                perm.append(index[(x, y, z)])
            rows.append(perm)
    return np.array(rows, dtype=np.int32)


def inverse_permutations(perms: np.ndarray) -> np.ndarray:
    """Each row's inverse permutation (actions are cells: the action map of a cell symmetry)."""
    out = np.empty_like(perms)
    for k in range(perms.shape[0]):
        out[k, perms[k]] = np.arange(perms.shape[1], dtype=np.int32)
    return out


def cell_neighbours(size: int) -> list[list[int]]:
    """The hexagonal neighbours of every cell (2 to 6 of them)."""
    return [[int(x) for x in row if x >= 0] for row in neighbour_table(size)]


def picture(size: int, cells: np.ndarray, background: int) -> np.ndarray:
    """The ``(2*size-1)^2`` grid for ``rgb_array``: the cell values, ``background`` off the hexagon."""
    m = 2 * size - 1
    grid = np.full((m, m), background, dtype=np.int32)
    for i, (r, c) in enumerate(cell_coords(size)):
        grid[r, c] = cells[i]
    return grid


def action_names(size: int) -> tuple:
    """``"a1"``, ``"a2"``, ...: row letter and place in the row from 1, in cell order."""
    names, place, last_row = [], 0, -1
    for r, _ in cell_coords(size):
        place = place + 1 if r == last_row else 1
        last_row = r
        names.append(f"{ROW_LETTERS[r]}{place}")
    return tuple(names)
