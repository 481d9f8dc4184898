"""Symmetry augmentation of AlphaZero's training positions, from the game's declared symmetries.

A game declares its symmetries as permutations of its n-tuple board (``GameSpec.symmetries``: ``board[perm]``
is the board seen in symmetry ``k``) and of its actions (``GameSpec.action_symmetries``). The network sees
observation planes, not the board, so a symmetry can be applied to a training position only where the planes
follow the board cell by cell: observations of shape ``rows x cols x planes`` with ``rows * cols`` board
cells, and the planes at grid cell ``i`` (row-major) a function of board cell ``i`` and the observing seat
alone. :func:`observation_symmetries` checks that on positions of random games and returns the permutations
when it holds (TicTacToe's 8, Connect Four's mirror, Hex's rotation, Othello's 8 ...); otherwise (Nim's
heaps, Sim's edges, Chinese Checkers' star) it returns None and the family trains without augmentation.

Under symmetry ``k`` a position's planes become ``planes[perm_k]`` (over the grid cells), its policy target
``pi'[amap_k[a]] = pi[a]`` and its legal mask likewise; the value target does not change.
"""
from __future__ import annotations

import numpy as np

from farl_envs.core.rng import make_rng
from farl_envs.core.spec import TERMINAL

CHECK_POSITIONS = 300
"""Positions of random games on which :func:`observation_symmetries` checks the planes against the board."""


def _random_positions(game, n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    frng = make_rng(seed)
    mask = np.zeros(game.n_actions, dtype=np.int8)
    rew = np.zeros(game.n_players)
    out = []
    games = 0
    while len(out) < n and games < 10 * n:
        games += 1
        s = game.initial_state(game.p, frng)
        plies = 0
        while not s[TERMINAL] and len(out) < n and plies < 400:
            out.append(s.copy())
            if game.legal_actions(game.p, s, mask) == 0:
                break
            game.afterstate(game.p, s, int(rng.choice(np.flatnonzero(mask))), s, rew)
            if game.has_chance and not s[TERMINAL]:
                game.chance(game.p, s, frng)
            plies += 1
    return out


def observation_symmetries(game) -> tuple[np.ndarray, np.ndarray] | None:
    """``(cell_perms int64[n_sym, cells], action_maps int64[n_sym, n_actions])`` for augmenting observations,
    or None when the observation planes do not follow the board (module docstring) or the game declares no
    action symmetries or only the identity."""
    if game.action_symmetries is None or len(game.obs_shape) != 3:
        return None
    rows, cols, planes = (int(x) for x in game.obs_shape)
    if rows * cols != game.n_cells:
        return None
    perms = np.asarray(game.symmetries(game.p), dtype=np.int64)
    amaps = np.asarray(game.action_symmetries(game.p), dtype=np.int64)
    if perms.shape[0] < 2 or perms.shape != (amaps.shape[0], game.n_cells) or amaps.shape[1] != game.n_actions:
        return None
    seen: dict = {}
    obs = np.zeros(game.obs_shape, dtype=np.int8)
    board = np.zeros(game.n_cells, dtype=np.int32)
    for s in _random_positions(game, CHECK_POSITIONS):
        seat = int(s[0])
        obs[:] = 0
        game.observe(game.p, s, seat, obs)
        game.board(game.p, s, board)
        flat = obs.reshape(rows * cols, planes)
        for i in range(game.n_cells):
            key = (seat, int(board[i]))
            view = flat[i].tobytes()
            if seen.setdefault(key, view) != view:
                return None
    return perms, amaps


class Augmenter:
    """Random symmetries applied to batches of training positions (``rng``: a numpy Generator)."""

    def __init__(self, game, symmetries):
        self.perms, self.amaps = symmetries
        rows, cols, planes = (int(x) for x in game.obs_shape)
        self.cells, self.planes = rows * cols, planes
        self.n_sym = self.perms.shape[0]

    def __call__(self, obs: np.ndarray, pi: np.ndarray, masks: np.ndarray, rng: np.random.Generator):
        """``(obs, pi, masks)`` with one random symmetry per row (row 0 of the symmetries is the identity)."""
        n = obs.shape[0]
        k = rng.integers(0, self.n_sym, size=n)
        flat = obs.reshape(n, self.cells, self.planes)
        new_obs = flat[np.arange(n)[:, None], self.perms[k]].reshape(obs.shape)
        dest = self.amaps[k]
        new_pi = np.zeros_like(pi)
        new_masks = np.zeros_like(masks)
        np.put_along_axis(new_pi, dest, pi, axis=1)
        np.put_along_axis(new_masks, dest, masks, axis=1)
        return new_obs, new_pi, new_masks
