"""``rgb_array`` rendering shared by all games: coloured cells on a grid, numpy only."""
from __future__ import annotations

import numpy as np

from farl_envs.core.spec import GameSpec

CELL = 32  # pixels per cell
GAP = 2


def render_rgb(game: GameSpec, state: np.ndarray) -> np.ndarray:
    """Draw ``state`` as an ``uint8[H, W, 3]`` image.

    Each cell becomes a square coloured by ``game.cell_colors`` (indexed by
    the cell's n-tuple value, or by ``game.paint``'s value when the game
    provides one); Hex rows are shifted by half a cell each to show the
    rhombus.
    """
    if game.paint is not None:
        grid = np.asarray(game.paint(game.p, state))
    else:
        cells = np.empty(game.n_cells, dtype=np.int32)
        game.board(game.p, state, cells)
        grid = cells.reshape(game.grid_shape)
    rows, cols = grid.shape
    shift = CELL // 2 if game.hex_grid else 0
    height = rows * CELL + GAP
    width = cols * CELL + GAP + shift * (rows - 1)
    img = np.full((height, width, 3), 40, dtype=np.uint8)
    palette = np.array(game.cell_colors, dtype=np.uint8)
    for r in range(rows):
        for c in range(cols):
            y, x = r * CELL + GAP, c * CELL + GAP + r * shift
            v = min(int(grid[r, c]), len(palette) - 1)
            img[y:y + CELL - GAP, x:x + CELL - GAP] = palette[v]
    return img
