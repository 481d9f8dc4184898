"""Compiled random play on any game kernel (MCTS rollouts, benchmarks, tests).

The kernel functions are passed in as arguments; numba compiles one
specialised copy per game, so the calls inline as if the loop were written
for that game alone.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from farl_envs.core.rng import rng_choice_mask
from farl_envs.core.spec import TERMINAL


@njit  # no cache: numba cannot cache functions that take kernels as arguments
def random_playout(legal_actions, afterstate, chance, p, s, mask, rewards, total, rng):
    """Play uniformly random moves from ``s`` (modified in place) to the end.

    ``mask`` (``int8[n_actions]``) and ``rewards`` (``float64[n_players]``) are
    scratch; ``total`` receives the summed reward deltas of every player.
    Returns the number of plies played.
    """
    total[:] = 0.0
    plies = 0
    while s[TERMINAL] == 0:
        legal_actions(p, s, mask)
        a = rng_choice_mask(rng, mask)
        afterstate(p, s, a, s, rewards)
        if s[TERMINAL] == 0:
            chance(p, s, rng)
        for i in range(total.shape[0]):
            total[i] += rewards[i]
        plies += 1
    return plies


@njit  # no cache: numba cannot cache functions that take kernels as arguments
def random_playouts(legal_actions, afterstate, chance, p, start, n_games, n_actions, n_players, rng):
    """Play ``n_games`` random games from ``start``; return the total number of plies."""
    s = np.empty_like(start)
    mask = np.zeros(n_actions, dtype=np.int8)
    rewards = np.zeros(n_players)
    total = np.zeros(n_players)
    plies = 0
    for _ in range(n_games):
        s[:] = start
        plies += random_playout(legal_actions, afterstate, chance, p, s, mask, rewards, total, rng)
    return plies


def playouts(game, n_games: int, rng, start=None) -> int:
    """Python entry: ``n_games`` random games of ``game`` (a GameSpec); returns plies played."""
    if start is None:
        start = game.initial_state(game.p, rng)
    return int(random_playouts(game.legal_actions, game.afterstate, game.chance, game.p, start,
                               n_games, game.n_actions, game.n_players, rng))
