"""Compiled random play on any game kernel (MCTS rollouts, benchmarks, tests).

The loops take the game's kernels as one :class:`~farl_envs.core.kernels.Kernels`
value (:func:`~farl_envs.core.kernels.kernels_of`) and call them through its
stubs: numba compiles one specialised copy per game, the calls inline as if
the loop were written for that game alone, and the copy is cached on disk
(compiled once per game and set of sources, not once per process).

The playout works on *borrowed* arrays
(:func:`~farl_envs.core.kernel_utils.borrowed`): numba counts the
references to every array a compiled function receives with atomic
instructions, and a ply passes the same few arrays through the kernel stubs,
the kernels and the random choice several times; on a shared virtual
machine those counts cost more than the rules themselves (Amazons: 60 % of a
ply). The caller holds the arrays until the playout returns, so nothing
needs counting.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from farl_envs.core.kernel_utils import borrowed
from farl_envs.core.kernels import afterstate, chance, kernels_of, legal_actions
from farl_envs.core.rng import rng_choice_mask_counted
from farl_envs.core.spec import TERMINAL


@njit(cache=True)
def random_playout(kernels, p, s, mask, rewards, total, rng):
    """Play uniformly random moves from ``s`` (modified in place) to the end.

    ``kernels`` is the game's :func:`~farl_envs.core.kernels.kernels_of`.
    ``mask`` (``int8[n_actions]``) and ``rewards`` (``float64[n_players]``) are
    scratch; ``total`` receives the summed reward deltas of every player.
    Returns the number of plies played.
    """
    # the caller holds every array until we return: borrow them (no reference counting, see the module docstring)
    p, s, mask = borrowed(p), borrowed(s), borrowed(mask)
    rewards, total, rng = borrowed(rewards), borrowed(total), borrowed(rng)
    total[:] = 0.0
    plies = 0
    while s[TERMINAL] == 0:
        a = rng_choice_mask_counted(rng, mask, legal_actions(kernels, p, s, mask))
        afterstate(kernels, p, s, a, s, rewards)
        if s[TERMINAL] == 0:
            chance(kernels, p, s, rng)
        for i in range(total.shape[0]):
            total[i] += rewards[i]
        plies += 1
    return plies


@njit(cache=True)
def random_playouts(kernels, p, start, n_games, n_actions, n_players, rng):
    """Play ``n_games`` random games from ``start``; return the total number of plies."""
    s = np.empty_like(start)
    mask = np.zeros(n_actions, dtype=np.int8)
    rewards = np.zeros(n_players)
    total = np.zeros(n_players)
    plies = 0
    for _ in range(n_games):
        s[:] = start
        plies += random_playout(kernels, p, s, mask, rewards, total, rng)
    return plies


def playouts(game, n_games: int, rng, start=None) -> int:
    """Python entry: ``n_games`` random games of ``game`` (a GameSpec); returns plies played."""
    if start is None:
        start = game.initial_state(game.p, rng)
    return int(random_playouts(kernels_of(game), game.p, start, n_games, game.n_actions, game.n_players, rng))
