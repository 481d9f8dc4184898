"""EinStein würfelt nicht!'s leaf value for the depth-limited searches (and progress shaping): the race of
2 players, the sides' threat and cubes of 3 and 4 players.

:mod:`farl_envs.games.einstein_wurfelt_nicht` (whose docstring describes both values and what they measured)
declares :func:`heuristic` on its ``GameSpec``; the values read the board only, no move rules.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from farl_envs.core.spec import TO_MOVE
from farl_envs.games._einstein_wurfelt_nicht_board import CELLS, P_CUBES, P_DIE_RULE, P_PLAYERS, P_SIZE, P_TARGET, team


@njit(cache=True)
def side_terms(p, s, threat, cubes):
    """Per side (0, 1 as in :func:`team`): the best cube's threat (0..1) and the weakest member's cube share
    (0..1), the terms of the searches' leaf value."""
    players, size, k = p[P_PLAYERS], p[P_SIZE], p[P_CUBES]
    n2 = size * size
    dist = np.full(players, 1 << 20, dtype=np.int64)
    count = np.zeros(players, dtype=np.int64)
    for i in range(n2):
        v = s[CELLS + i]
        if v == 0:
            continue
        q = (v - 1) // k
        count[q] += 1
        t = p[P_TARGET + q]
        if t >= 0:  # 3 players: only player_2 has a goal corner
            d = max(abs(i // size - t // size), abs(i % size - t % size))
            dist[q] = min(dist[q], d)
    for side in range(2):
        threat[side] = 0.0
        cubes[side] = 1.0
    for q in range(players):
        side = team(players, q)
        if dist[q] < (1 << 20):
            threat[side] = max(threat[side], 1.0 - dist[q] / (size - 1))
        cubes[side] = min(cubes[side], count[q] / k)


RACE_SLOPE = 0.6
"""How steeply the 2-player leaf value follows the difference of the race times, per turn (set by hand: a lead of
one turn is valued 0.45 tanh(0.6) = 0.24, a win 1)."""


@njit(cache=True)
def die_faces(p, present, faces):
    """Fill ``faces[c]`` with the number of die faces on which cube ``c`` may be moved, ``present[1..K]`` marking
    the cubes a player still has: its own number, and every missing number for which ``c`` is the nearest present
    cube above or below (``die_rule="gbg"``: only the nearer of the two unless both are equally near). One pass
    over the K rolls, each given to the cube or cubes it lets move."""
    k = p[P_CUBES]
    faces[:] = 0
    for roll in range(1, k + 1):
        if present[roll]:
            faces[roll] += 1
            continue
        low, high = roll - 1, roll + 1
        while low >= 1 and not present[low]:
            low -= 1
        while high <= k and not present[high]:
            high += 1
        if p[P_DIE_RULE] == 1 and low >= 1 and high <= k:
            if roll - low < high - roll:
                high = k + 1
            elif high - roll < roll - low:
                low = 0
        if low >= 1:
            faces[low] += 1
        if high <= k:
            faces[high] += 1


@njit(cache=True)
def race_turns(p, s, q):
    """Player ``q``'s expected number of own turns to bring a cube to its goal corner, ``1 / sum_c f_c / (K
    d_c)`` over its cubes (``f_c`` the die faces that move cube ``c``, ``d_c`` its distance in moves); ``inf``
    when it has no cube or no goal corner."""
    size, k, goal = p[P_SIZE], p[P_CUBES], p[P_TARGET + q]
    present = np.zeros(k + 2, dtype=np.int64)
    dist = np.zeros(k + 2, dtype=np.int64)
    for i in range(size * size):
        v = s[CELLS + i]
        if v != 0 and (v - 1) // k == q:
            c = (v - 1) % k + 1
            present[c] = 1
            dist[c] = max(abs(i // size - goal // size), abs(i % size - goal % size))
    rate = 0.0
    if goal >= 0:
        faces = np.zeros(k + 2, dtype=np.int64)
        die_faces(p, present, faces)
        for c in range(1, k + 1):
            if present[c] and dist[c] > 0:
                rate += faces[c] / (k * dist[c])
    return 1.0 / rate if rate > 0.0 else np.inf


@njit(cache=True)
def heuristic(p, s, out):
    """The searches' leaf value (see the module docstring): the race for 2 players, the sides' threat and cubes,
    ``0.25 (threat - threat of the other side) + 0.2 (cubes - other side's cubes)``, for 3 and 4."""
    players = p[P_PLAYERS]
    if players == 2:
        own = race_turns(p, s, 0) - (0.5 if s[TO_MOVE] == 0 else 0.0)
        other = race_turns(p, s, 1) - (0.5 if s[TO_MOVE] == 1 else 0.0)
        out[0] = 0.45 * np.tanh(RACE_SLOPE * (other - own))  # a side without cubes (inf) has lost: -0.45
        out[1] = -out[0]
        return
    threat = np.zeros(2)
    cubes = np.zeros(2)
    side_terms(p, s, threat, cubes)
    adv = 0.25 * (threat[0] - threat[1]) + 0.2 * (cubes[0] - cubes[1])
    for q in range(players):
        out[q] = adv if team(players, q) == 0 else -adv
