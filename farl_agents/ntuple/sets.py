"""n-tuple sets: the game's fixed set, random walks and random points.

A set is an ``int[m, n]`` array of board cells (in the game's n-tuple cell
numbering, see each game module). Random sets are drawn from a seed, so the
same config always gives the same set; the set is also saved with the agent.
"""
from __future__ import annotations

import numpy as np

import farl_envs
from farl_envs.core.spec import GameSpec


def fixed_set(game: GameSpec) -> np.ndarray:
    """The fixed n-tuple set ``game`` declares (``GameSpec.fixed_ntuples``).

    farl's games declare Konen & Bagheri 2020's sets (A.6): Connect Four 6x7 70×8, Othello 50×6, 2048 4×6,
    Nim with 3 heaps 1×3, Nim3P with 3 heaps 2×3, TicTacToe 1×9.
    """
    if not game.fixed_ntuples:
        default = farl_envs.game_spec(game.name)  # a game may have its set at its default parameters only
        if not default.fixed_ntuples:
            raise ValueError(f"{game.name} has no fixed n-tuple set; use random-walk or random-points")
        need = ", ".join(f"{k}={v!r}" for k, v in default.params.items() if game.params.get(k) != v)
        raise ValueError(f"the fixed {game.name} n-tuple set needs {need}, this game has {game.params}")
    return np.array(game.fixed_ntuples, dtype=np.int32)


def adjacency(game: GameSpec) -> list[list[int]]:
    """Neighbour lists of the n-tuple cells used by random walks.

    A game may give its own graph (``GameSpec.cell_neighbours``: Sim's edges,
    a star board's holes, Nim's heaps, each a neighbour of every other). Grid games: the 8 surrounding cells
    (king moves; GBG's Connect Four set is 8-connected). Hex: the 6 neighbours of the rhombus. Games without a
    grid: every cell is a neighbour of every other.
    """
    n = game.n_cells
    if game.cell_neighbours is not None:
        return [list(map(int, nb)) for nb in game.cell_neighbours(game.p)]
    if not game.grid_shape:
        return [[j for j in range(n) if j != i] for i in range(n)]
    rows, cols = game.grid_shape
    if game.hex_grid:
        steps = [(0, -1), (0, 1), (-1, 0), (1, 0), (-1, 1), (1, -1)]
    else:
        steps = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0)]
    out = []
    for i in range(n):
        r, c = divmod(i, cols)
        out.append([rr * cols + cc for dr, dc in steps
                    for rr, cc in [(r + dr, c + dc)] if 0 <= rr < rows and 0 <= cc < cols])
    return out


def random_walk_set(game: GameSpec, count: int, length: int, seed: int) -> np.ndarray:
    """``count`` tuples of ``length`` connected cells, each grown by a random walk.

    Start at a uniformly random cell; then repeatedly pick a random cell of the
    tuple and add one of its neighbours not yet in it, until ``length`` cells
    are in. Cells are listed in ascending order.
    """
    _check_size(game, length)
    rng = np.random.default_rng(seed)
    nbrs = adjacency(game)
    tuples = []
    for _ in range(count):
        cells = [int(rng.integers(game.n_cells))]
        while len(cells) < length:
            # a cell of the tuple, then one of its free neighbours (another cell if it has none). This is the
            # rule of GBG's random walks: a cell with several neighbours in the tuple is reached more often
            # than under a uniform pick from the tuple's whole free border, so the tuples come out compact
            # (docs/notes/hex_gap_audit.md, 3.2)
            free = [j for j in nbrs[cells[int(rng.integers(len(cells)))]] if j not in cells]
            if free:
                cells.append(int(free[int(rng.integers(len(free)))]))
        tuples.append(sorted(cells))
    return np.array(tuples, dtype=np.int32)


def random_points_set(game: GameSpec, count: int, length: int, seed: int) -> np.ndarray:
    """``count`` tuples of ``length`` distinct cells drawn uniformly (not necessarily connected)."""
    _check_size(game, length)
    rng = np.random.default_rng(seed)
    return np.array([sorted(rng.choice(game.n_cells, size=length, replace=False)) for _ in range(count)],
                    dtype=np.int32)


def _check_size(game: GameSpec, length: int) -> None:
    if not 1 <= length <= game.n_cells:
        raise ValueError(f"n-tuple length must be in 1..{game.n_cells} for {game.id}, got {length}")


def make_set(game: GameSpec, kind: str, count: int, length: int, seed: int, cells=()) -> np.ndarray:
    """The n-tuple set a :class:`~farl_agents.learners.config.LearnerConfig` asks for."""
    if kind == "fixed":
        return fixed_set(game)
    if kind == "random-walk":
        return random_walk_set(game, count, length, seed)
    if kind == "random-points":
        return random_points_set(game, count, length, seed)
    if kind == "explicit":
        lengths = sorted({len(t) for t in cells})
        if len(lengths) > 1:
            raise ValueError(f"explicit n-tuples must be equally long; got lengths {lengths}")
        arr = np.array(cells, dtype=np.int32)
        if arr.ndim != 2 or arr.size == 0:
            raise ValueError("explicit n-tuples must be a non-empty list of equally long cell lists")
        if arr.min() < 0 or arr.max() >= game.n_cells:
            raise ValueError(f"n-tuple cells must be in 0..{game.n_cells - 1}")
        return arr
    raise ValueError(f"unknown n-tuple kind {kind!r}")
