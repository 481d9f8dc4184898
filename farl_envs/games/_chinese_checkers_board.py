"""Chinese Checkers' board: the six-pointed star of 121 holes, its tables, distances, mirror and drawing.

Geometry only, no rules: :mod:`farl_envs.games.chinese_checkers` (whose
docstring describes the star, its numbering and directions) plays on these
tables. A hole is ``(row, col)`` in doubled coordinates; holes are numbered row
by row from the top (OpenSpiel's numbering).
"""
from __future__ import annotations

import numpy as np

N_HOLES = 121
N_DIRECTIONS = 6
N_ROWS = 17
N_COLS = 25
PEGS = 10
"""Holes of a point (a camp), and pegs of a player."""

# directions d: 0 up-left, 1 up-right, 2 left, 3 right, 4 down-left, 5 down-right, as steps in doubled coordinates
DR = (-1, -1, 0, 0, 1, 1)
DC = (-1, 1, -2, 2, -1, 1)
MIRROR_DIRECTION = (1, 0, 3, 2, 5, 4)
"""The direction a left-right mirror turns direction ``d`` into."""


def _on_star(r: int, c: int) -> bool:
    """Is doubled coordinate (r, c) a hole of the star (union of the up and down triangles)?"""
    if (r + c) % 2:
        return False
    up = 0 <= r <= 12 and abs(c - 12) <= r
    down = 4 <= r <= 16 and abs(c - 12) <= 16 - r
    return up or down


def _build_board():
    """Hole coordinates, neighbour and hop tables, and the six points, all from the star's shape."""
    coords = [(r, c) for r in range(N_ROWS) for c in range(N_COLS) if _on_star(r, c)]
    index = {rc: i for i, rc in enumerate(coords)}
    neighbour = np.full((N_HOLES, N_DIRECTIONS), -1, dtype=np.int64)
    hop = np.full((N_HOLES, N_DIRECTIONS), -1, dtype=np.int64)
    for i, (r, c) in enumerate(coords):
        for d in range(N_DIRECTIONS):
            neighbour[i, d] = index.get((r + DR[d], c + DC[d]), -1)
            hop[i, d] = index.get((r + 2 * DR[d], c + 2 * DC[d]), -1) if neighbour[i, d] >= 0 else -1
    points = [[] for _ in range(6)]
    for i, (r, c) in enumerate(coords):
        if r <= 3:
            points[0].append(i)
        elif r >= 13:
            points[3].append(i)
        elif r <= 7 and abs(c - 12) > r:  # outside the up triangle: the north-east / north-west points
            points[1 if c > 12 else 5].append(i)
        elif r >= 9 and abs(c - 12) > 16 - r:  # outside the down triangle: south-east / south-west
            points[2 if c > 12 else 4].append(i)
    rows = np.array([rc[0] for rc in coords], dtype=np.int64)
    cols = np.array([rc[1] for rc in coords], dtype=np.int64)
    return rows, cols, neighbour, hop, np.array([sorted(pt) for pt in points], dtype=np.int64)


ROW, COL, NEIGHBOUR, HOP, POINTS = _build_board()
"""``ROW``/``COL``: doubled coordinates of each hole; ``NEIGHBOUR[h, d]``/``HOP[h, d]``: the
adjacent hole and the hop landing in direction ``d`` (-1 off the star); ``POINTS[k]``: the 10
holes of point ``k``."""


def _tip_distances() -> np.ndarray:
    """``int64[6, 121]``: moves on the hex grid from each hole to the tip of each point (its hole farthest out)."""
    def moves(row, col, to_row, to_col):  # steps on the hex grid between holes in doubled coordinates
        dr = np.abs(row - to_row)
        return dr + np.maximum(0, (np.abs(col - to_col) - dr) // 2)

    out = np.zeros((6, N_HOLES), dtype=np.int64)
    for k in range(6):
        holes = POINTS[k]
        # farthest from the centre hole (row 8, col 12) in moves: the south tip (16, 12) is 8 moves out, the
        # corners of its base (13, 9) and (13, 15) only 5 (in |row| + |col| of doubled coordinates all three tie)
        tip = holes[np.argmax(moves(ROW[holes], COL[holes], 8, 12))]
        out[k] = moves(ROW, COL, ROW[tip], COL[tip])
    return out


TIP_DISTANCE = _tip_distances()
"""``TIP_DISTANCE[k, h]``: moves from hole ``h`` to the tip of point ``k`` (the searches' race distance)."""


def mirror_holes() -> np.ndarray:
    """``m[h]``: the hole the left-right mirror (col -> 24 - col) takes hole ``h`` to."""
    index = {(int(r), int(c)): h for h, (r, c) in enumerate(zip(ROW, COL))}
    return np.array([index[(int(ROW[h]), 24 - int(COL[h]))] for h in range(N_HOLES)], dtype=np.int32)


def longest_turn() -> int:
    """An upper bound on the actions of one turn: the hops of a chain land on distinct holes that
    all lie on the start hole's sublattice (a hop moves two holes), then maybe a pass."""
    sublattice = {}
    for r, c in zip(ROW, COL):
        key = (int(r) % 2, ((int(c) - int(r)) // 2) % 2)
        sublattice[key] = sublattice.get(key, 0) + 1
    return max(sublattice.values())  # (holes of the sublattice - start hole) hops + 1 pass


def star_text(values: np.ndarray) -> list[str]:
    """The star as text lines in doubled coordinates: ``.`` an empty hole, else the hole's value (1..6)."""
    lines = []
    for r in range(N_ROWS):
        line = [" "] * N_COLS
        for h in np.flatnonzero(ROW == r):
            v = int(values[h])
            line[int(COL[h])] = "." if v == 0 else str(v)
        lines.append("".join(line).rstrip())
    return lines


def star_picture(values: np.ndarray, left: list[int]) -> np.ndarray:
    """Colour indices of the 17 x 25 drawing grid: 0 background, 1 empty hole, 2 an empty hole of ``left``
    (those a hop chain has left), ``2 + v`` a hole of value ``v`` (a peg of ``player_{v-1}``)."""
    grid = np.zeros((N_ROWS, N_COLS), dtype=np.int32)
    grid[ROW, COL] = np.where(values > 0, values + 2, 1)
    for h in left:
        if values[h] == 0:
            grid[ROW[h], COL[h]] = 2
    return grid
