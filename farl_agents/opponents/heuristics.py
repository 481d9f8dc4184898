"""Leaf evaluations of the depth-limited searches (Max-N, Paranoid) for the N-player games.

A search that stops ``depth`` plies below the root values a non-terminal
leaf by ``heuristic(p, s, out)``: one number per player (``out``,
``float64[n_players]``), the player's expected *future* reward as far as the
position shows it. Every value lies strictly inside (-0.5, 0.5), so a win or
a loss the search sees (a reward of +-1 or more) always outweighs it, and a
player who is already out (3-player Sim and Yavalath) gets 0: nothing more
can happen to him. Each heuristic rates every player by one *score* and
returns the player's score against the mean of the other players still in
(squashed by ``tanh`` or scaled), so in a 2-player game the vector sums to
zero like the rewards.

========================  ===================================================================
game                      score of a player (higher is better)
========================  ===================================================================
``sim``                   minus the uncoloured edges the player can no longer take: edges
                          that would close a path of two edges of his own colour (a
                          triangle, hence his loss). Fewer such "dead" edges leave him more
                          safe moves for the end of the game, where Sim is decided.
``yavalath``              open 4-lines minus own 3-traps: every window of 4 cells in a line
                          holding only his stones and empty cells counts 1 with 2 stones and
                          3 with 3 stones (the 3-stone window is a win threat); every empty
                          cell where his stone would make exactly three (and not four), a
                          cell he can never play, counts -1
``chinese_checkers``      race progress: his pegs' summed distance (in moves on the hex
                          grid) to the tip of his target point, scaled to 0 at the start
                          position and 1 with the target filled
``einstein_wurfelt_nicht``  for his side (2 players: himself; 3 players: ``player_0`` +
                          ``player_1`` against ``player_2``; 4 players: 0 + 2 against 1 + 3):
                          the threat of the side's best cube (1 - its distance in moves to its
                          goal corner / (size - 1); 0 for a side without goal corner, the
                          3-player pair) and its weakest member's cube count / K; a side loses
                          when one member has no cube left
========================  ===================================================================

Scales: Sim ``0.5 tanh((mean_others - own) / 4)`` in dead edges; Yavalath
``0.5 tanh((own - mean_others) / 5)``; Chinese Checkers ``0.45 (own -
mean_others)`` in progress, clipped to +-0.49; EWN ``0.25 dthreat + 0.2
dcubes`` (at most 0.45). These are plain hand-set estimates, not fitted; the
tests (``tests/test_search_heuristics.py``) check that each prefers what its
row says on hand-built positions.

The functions are ``@njit(cache=True)`` and called through
:mod:`~farl_agents.opponents.search_hooks`; :data:`HEURISTICS` maps a game
name to its function. Games not listed are valued by :func:`zero_heuristic`.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from farl_envs.core.spec import HEADER
from farl_envs.games import chinese_checkers as cc
from farl_envs.games import einstein_wurfelt_nicht as ewn
from farl_envs.games import sim
from farl_envs.games import yavalath as yav


@njit(cache=True)
def zero_heuristic(p, s, out):
    """No evaluation: every player's future reward is taken as 0."""
    out[:] = 0.0


@njit(cache=True, inline="always")
def _relative(score, alive, out):
    """``out[q]`` = ``score[q]`` minus the mean score of the other players alive (0 for players not alive)."""
    n = score.shape[0]
    total = 0.0
    count = 0
    for q in range(n):
        if alive[q]:
            total += score[q]
            count += 1
    for q in range(n):
        if alive[q] and count > 1:
            out[q] = score[q] - (total - score[q]) / (count - 1)
        else:
            out[q] = 0.0


# ------------------------------------------------------------------------------------------------ Sim
@njit(cache=True)
def sim_heuristic(p, s, out):
    """Sim: ``0.5 tanh((mean dead edges of the others - own dead edges) / 4)`` (see the module table)."""
    players, m, n = p[sim.P_PLAYERS], p[sim.P_EDGES], p[sim.P_NODES]
    gone = s[HEADER + m]
    dead = np.zeros(players)
    alive = np.zeros(players, dtype=np.bool_)
    for q in range(players):
        alive[q] = not (gone >> q) & 1
    for e in range(m):
        if s[HEADER + e] != 0:
            continue
        i, j = sim._end_a(p, e), sim._end_b(p, e)
        seen = 0
        for k in range(n):
            if k != i and k != j:
                c = s[HEADER + sim._edge(p, i, k)]
                if c != 0 and c == s[HEADER + sim._edge(p, j, k)]:
                    seen |= 1 << (c - 1)
        for q in range(players):
            if (seen >> q) & 1:
                dead[q] += 1.0
    _relative(-dead, alive, out)
    for q in range(players):
        out[q] = 0.5 * math.tanh(out[q] / 4.0)


# ------------------------------------------------------------------------------------------- Yavalath
@njit(cache=True)
def yavalath_scores(p, s, score):
    """Each player's Yavalath score into ``score``: 4-windows (2 stones: 1, 3 stones: 3) minus 3-traps."""
    n, players, base = p[yav.P_CELLS], p[yav.P_PLAYERS], p[yav.P_BASE]
    score[:] = 0.0
    count = np.zeros(players + 1, dtype=np.int64)
    for c in range(n):
        for axis in range(3):  # the window c, c1, c2, c3 along the axis
            c1 = yav.NEIGHBOURS[base + c, axis]
            c2 = yav.NEIGHBOURS[base + c1, axis] if c1 >= 0 else -1
            c3 = yav.NEIGHBOURS[base + c2, axis] if c2 >= 0 else -1
            if c3 < 0:
                continue
            count[:] = 0
            count[s[HEADER + c]] += 1
            count[s[HEADER + c1]] += 1
            count[s[HEADER + c2]] += 1
            count[s[HEADER + c3]] += 1
            for q in range(players):
                if count[q + 1] >= 2 and count[q + 1] + count[0] == 4:
                    score[q] += 1.0 if count[q + 1] == 2 else 3.0
        if s[HEADER + c] == 0:
            for q in range(players):
                if yav._line_made(s, base, c, q + 1) == yav.THREE:
                    score[q] -= 1.0


@njit(cache=True)
def yavalath_heuristic(p, s, out):
    """Yavalath: ``0.5 tanh((own score - mean score of the others in) / 5)`` (see the module table)."""
    n, players = p[yav.P_CELLS], p[yav.P_PLAYERS]
    gone = s[HEADER + n] if players == 3 else 0
    score = np.zeros(players)
    alive = np.zeros(players, dtype=np.bool_)
    for q in range(players):
        alive[q] = not (gone >> q) & 1
    yavalath_scores(p, s, score)
    _relative(score, alive, out)
    for q in range(players):
        out[q] = 0.5 * math.tanh(out[q] / 5.0)


# ----------------------------------------------------------------------------------- Chinese Checkers
def _tip_distances() -> np.ndarray:
    """``int64[6, 121]``: moves on the hex grid from each hole to the tip of each point (its hole farthest out)."""
    out = np.zeros((6, cc.N_HOLES), dtype=np.int64)
    for k in range(6):
        holes = cc.POINTS[k]
        tip = holes[np.argmax(np.abs(cc.ROW[holes] - 8) + np.abs(cc.COL[holes] - 12))]
        dr = np.abs(cc.ROW - cc.ROW[tip])
        dc = np.abs(cc.COL - cc.COL[tip])
        out[k] = dr + np.maximum(0, (dc - dr) // 2)
    return out


TIP_DISTANCE = _tip_distances()
"""``TIP_DISTANCE[k, h]``: moves from hole ``h`` to the tip of point ``k`` (the peg-distance of the heuristic)."""


@njit(cache=True)
def chinese_checkers_progress(p, s, progress):
    """Each player's race progress into ``progress``: 0 at the start, 1 with the target point filled."""
    for q in range(p[cc.P_PLAYERS]):
        home = p[cc.P_HOMES + q]
        target = (home + 3) % 6
        start = 0
        best = 0
        for i in range(cc.PEGS):
            start += TIP_DISTANCE[target, cc.POINTS[home, i]]
            best += TIP_DISTANCE[target, cc.POINTS[target, i]]
        now = 0
        for h in range(cc.N_HOLES):
            if s[cc.CELLS + h] == q + 1:
                now += TIP_DISTANCE[target, h]
        progress[q] = (start - now) / (start - best)


@njit(cache=True)
def chinese_checkers_heuristic(p, s, out):
    """Chinese Checkers: ``0.45 (own progress - mean progress of the others)``, clipped to +-0.49."""
    players = p[cc.P_PLAYERS]
    progress = np.zeros(players)
    alive = np.ones(players, dtype=np.bool_)
    chinese_checkers_progress(p, s, progress)
    _relative(progress, alive, out)
    for q in range(players):
        out[q] = min(0.49, max(-0.49, 0.45 * out[q]))


# ---------------------------------------------------------------------------- EinStein würfelt nicht!
@njit(cache=True)
def ewn_side_terms(p, s, threat, cubes):
    """Per side (0, 1 as in the game's teams): best-cube threat (0..1) and weakest member's cube share (0..1)."""
    players, size, k = p[ewn.P_PLAYERS], p[ewn.P_SIZE], p[ewn.P_CUBES]
    n2 = size * size
    dist = np.full(players, 1 << 20, dtype=np.int64)
    count = np.zeros(players, dtype=np.int64)
    for i in range(n2):
        v = s[ewn.CELLS + i]
        if v == 0:
            continue
        q = (v - 1) // k
        count[q] += 1
        t = p[ewn.P_TARGET + q]
        if t >= 0:  # 3 players: only player_2 has a goal corner
            d = max(abs(i // size - t // size), abs(i % size - t % size))
            dist[q] = min(dist[q], d)
    for side in range(2):
        threat[side] = 0.0
        cubes[side] = 1.0
    for q in range(players):
        side = ewn._team(players, q)
        if dist[q] < (1 << 20):
            threat[side] = max(threat[side], 1.0 - dist[q] / (size - 1))
        cubes[side] = min(cubes[side], count[q] / k)


@njit(cache=True)
def ewn_heuristic(p, s, out):
    """EinStein würfelt nicht!: ``0.25 (threat - threat of the other side) + 0.2 (cubes - other side's cubes)``."""
    players = p[ewn.P_PLAYERS]
    threat = np.zeros(2)
    cubes = np.zeros(2)
    ewn_side_terms(p, s, threat, cubes)
    adv = 0.25 * (threat[0] - threat[1]) + 0.2 * (cubes[0] - cubes[1])
    for q in range(players):
        out[q] = adv if ewn._team(players, q) == 0 else -adv


HEURISTICS = {"sim": sim_heuristic, "yavalath": yavalath_heuristic, "chinese_checkers": chinese_checkers_heuristic,
              "einstein_wurfelt_nicht": ewn_heuristic}
"""The leaf evaluation of each game that has one (by game name)."""
