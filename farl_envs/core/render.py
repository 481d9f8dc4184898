"""Rendering shared by all games: ``rgb_array`` images (coloured cells on a grid, numpy only) and the
``human`` window that shows them (pygame, an optional extra: ``pip install "farl-rl[render]"``).

Checkers try every render mode an env advertises (Gymnasium's ``check_env``, PettingZoo's
``render_test``), so ``"human"`` is advertised (:data:`RENDER_MODES`) only where pygame can be imported.
``render_mode="human"`` is still accepted without pygame (PettingZoo's ``render_test`` builds an env with
it before it reads the advertised modes); drawing then raises an error that names the extra to install.
"""
from __future__ import annotations

import importlib.util

import numpy as np

from farl_envs.core.spec import GameSpec

CELL = 40  # pixels per cell: a 15x15 board is a 600-pixel image
GAP = 2


def pygame_available() -> bool:
    """Whether pygame can be imported here (found without importing it: importing pygame prints a banner)."""
    try:
        return importlib.util.find_spec("pygame") is not None
    except (ImportError, ValueError):  # a blocked or half-imported pygame
        return False


ACCEPTED_RENDER_MODES = ("ansi", "human", "rgb_array")
"""What ``render_mode=`` takes (``"human"``: a pygame window; without pygame, drawing raises the install hint)."""
RENDER_MODES = ACCEPTED_RENDER_MODES if pygame_available() else ("ansi", "rgb_array")
"""What the envs advertise in ``metadata["render_modes"]``: ``"human"`` only when pygame can be imported."""


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


class HumanWindow:
    """A pygame window that shows ``rgb_array`` images at most ``fps`` times a second (``render_mode="human"``).

    pygame is imported on first use, so farl works without it until a window
    is asked for; without a screen (CI) set ``SDL_VIDEODRIVER=dummy``.
    """

    def __init__(self, title: str, fps: float):
        self.title = title
        self.fps = fps
        self._screen = None
        self._clock = None

    def show(self, image: np.ndarray) -> None:
        try:
            import pygame
        except ImportError:
            raise RuntimeError('render_mode="human" opens a window with pygame: pip install "farl-rl[render]" '
                               '(or use render_mode="ansi" for text)') from None
        height, width = image.shape[:2]
        if self._screen is None or self._screen.get_size() != (width, height):
            pygame.init()
            pygame.display.set_caption(self.title)
            self._screen = pygame.display.set_mode((width, height))
            self._clock = pygame.time.Clock()
        pygame.event.pump()
        surface = pygame.surfarray.make_surface(np.ascontiguousarray(image.transpose(1, 0, 2)))
        self._screen.blit(surface, (0, 0))
        pygame.display.flip()
        self._clock.tick(self.fps)

    def close(self) -> None:
        if self._screen is not None:
            import pygame

            pygame.display.quit()
            self._screen = None
