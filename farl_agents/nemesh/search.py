"""Nemesh's move choice: forced moves, then alpha-beta minimax over the linear evaluation.

Shalita, Saranga & Haim 2013, sections 2.2, 4.2.2 and 5.3. For the player to move (the *root
player*, weights ``w``, ``float64[36]``):

1. **win**: a move that wins at once is played (random among several);
2. **block**: else, a column where the opponent would win at once is
   played (random among several -- the game is lost anyway if there are two);
3. **prohibited moves**: a move after which the opponent has a winning reply
   is dropped from the candidates unless every legal move is prohibited;
4. with probability ``epsilon`` a random remaining candidate (the
   AGENT's exploration; TRAINER and the playing agent use 0);
5. otherwise the candidate with the best alpha-beta value at ``depth`` plies.

The search scores a non-terminal leaf ``w . phi(leaf)`` from the root
player's point of view (the opponent minimises the same number). Decision:
a game that ends inside the tree scores ``result * (WIN_SCORE + plies
left)`` (``result`` +1/0/-1 for the root player), so a win found by the
search beats any evaluation and a quicker win beats a slower one; the report
evaluates such leaves with the features too, which cannot see a finished
four. Moves are tried in a freshly shuffled order at every node
(``rng``), so among equally good moves the choice is random (section 5.3).

All rules (legal moves, the result of a move, wins) come from the Connect
Four kernel; nothing here re-implements them.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from farl_agents.nemesh.features import N_FEATURES, features
from farl_envs.core.kernel_utils import copy_state
from farl_envs.core.rng import rng_below, rng_uniform
from farl_envs.core.spec import HEADER, TERMINAL, TO_MOVE
from farl_envs.games.connect_four import afterstate

WIN_SCORE = 1.0e6
"""Value of a win found by the search (plus the plies left, so quicker wins score higher)."""

FORCED_WIN, FORCED_BLOCK, EXPLORED, SEARCHED = 0, 1, 2, 3
"""How :func:`choose_move` picked its move (second value it returns)."""


class SearchScratch:
    """Preallocated arrays for one search of at most ``max_depth`` plies on a ``rows x cols`` board."""

    def __init__(self, rows: int, cols: int, max_depth: int):
        size = HEADER + cols + rows * cols
        self.states = np.zeros((max_depth + 2, size), dtype=np.int32)
        self.order = np.zeros((max_depth + 2, cols), dtype=np.int64)
        self.feats = np.zeros(N_FEATURES)
        self.win = np.zeros((2, rows * cols), dtype=np.int8)
        self.rewards = np.zeros(2)
        self.allowed = np.zeros(cols, dtype=np.int8)
        self.bounds = np.zeros((3, max_depth + 2))
        self.counters = np.zeros((2, max_depth + 2), dtype=np.int64)
        self.max_depth = max_depth

    def arrays(self):
        """The buffers in the order :func:`choose_move` takes them (after ``epsilon``)."""
        return self.states, self.order, self.feats, self.win, self.rewards, self.allowed, self.bounds, self.counters


@njit(cache=True)
def linear_value(p, s, w, feats, win):
    """``w . phi(s)``: the linear evaluation of the kernel state ``s``."""
    features(p, s, feats, win)
    v = 0.0
    for i in range(feats.shape[0]):
        v += w[i] * feats[i]
    return v


@njit(cache=True)
def _shuffled_moves(p, s, order_row, rng):
    """Write the legal columns of ``s`` into ``order_row`` in random order; return their count."""
    rows, cols = p[0], p[1]
    n = 0
    for c in range(cols):
        if s[HEADER + c] < rows:
            order_row[n] = c
            n += 1
    for i in range(n - 1, 0, -1):
        j = rng_below(rng, i + 1)
        t = order_row[i]
        order_row[i] = order_row[j]
        order_row[j] = t
    return n


@njit(cache=True)
def _update(states, k, v, root, bounds):
    """Fold the value ``v`` of a child into frame ``k`` (bounds rows: alpha, beta, best)."""
    if states[k, TO_MOVE] == root:
        if v > bounds[2, k]:
            bounds[2, k] = v
        if bounds[2, k] > bounds[0, k]:
            bounds[0, k] = bounds[2, k]
    else:
        if v < bounds[2, k]:
            bounds[2, k] = v
        if bounds[2, k] < bounds[1, k]:
            bounds[1, k] = bounds[2, k]


@njit(cache=True)
def _open_frame(p, states, order, k, alpha, beta, root, bounds, counters, rng):
    counters[0, k] = _shuffled_moves(p, states[k], order[k], rng)
    counters[1, k] = 0
    bounds[0, k] = alpha
    bounds[1, k] = beta
    bounds[2, k] = -np.inf if states[k, TO_MOVE] == root else np.inf


@njit(cache=True)
def _alphabeta(p, states, order, k0, depth, alpha, beta, w, root, feats, win, rewards, bounds, counters, rng):
    """Alpha-beta value (root's view) of the non-terminal ``states[k0]`` searched ``depth`` (>= 1) plies.

    Iterative (an explicit stack of frames ``k0 .. k0 + depth - 1`` in
    ``states``/``order``/``bounds``/``counters``): numba's disk cache cannot
    hold recursive functions. Frame k keeps its legal moves in shuffled
    order, the next move to try, and alpha, beta and the best value so far.
    """
    k = k0
    _open_frame(p, states, order, k, alpha, beta, root, bounds, counters, rng)
    while True:
        if counters[1, k] < counters[0, k] and bounds[0, k] < bounds[1, k]:
            a = order[k, counters[1, k]]
            counters[1, k] += 1
            afterstate(p, states[k], a, states[k + 1], rewards)
            left = depth - (k - k0) - 1
            if states[k + 1, TERMINAL]:
                v = rewards[root] * (WIN_SCORE + left)
            elif left == 0:
                v = linear_value(p, states[k + 1], w, feats, win)
            else:
                k += 1
                _open_frame(p, states, order, k, bounds[0, k - 1], bounds[1, k - 1], root, bounds, counters, rng)
                continue
            _update(states, k, v, root, bounds)
        else:
            v = bounds[2, k]
            if k == k0:
                return v
            k -= 1
            _update(states, k, v, root, bounds)


@njit(cache=True)
def search_root(p, s, w, depth, allowed, states, order, feats, win, rewards, bounds, counters, rng):
    """Best of the ``allowed`` columns (``int8[cols]`` mask) of ``s`` by alpha-beta at ``depth`` plies.

    Returns ``(column, value)``; the value is exact (the full window is used
    at the root). Ties go to the first best move in a random order.
    """
    copy_state(s, states[0])
    root = s[TO_MOVE]
    n = _shuffled_moves(p, s, order[0], rng)
    best = -np.inf
    best_move = -1
    alpha = -np.inf
    for i in range(n):
        a = order[0, i]
        if allowed[a] == 0:
            continue
        afterstate(p, states[0], a, states[1], rewards)
        if states[1, TERMINAL]:
            v = rewards[root] * (WIN_SCORE + depth - 1)
        elif depth == 1:
            v = linear_value(p, states[1], w, feats, win)
        else:
            v = _alphabeta(p, states, order, 1, depth - 1, alpha, np.inf, w, root, feats, win, rewards,
                           bounds, counters, rng)
        if v > best or best_move < 0:
            best = v
            best_move = a
        if best > alpha:
            alpha = best
    return best_move, best


@njit(cache=True)
def _wins_now(p, s, c, mover, tmp, rewards):
    """True when ``mover`` would win by dropping a disc into the legal column ``c`` of ``s``."""
    copy_state(s, tmp)
    tmp[TO_MOVE] = mover
    afterstate(p, tmp, c, tmp, rewards)
    return rewards[mover] > 0.0


@njit(cache=True)
def _pick(mask, n, rng):
    """A uniformly random index among the ``n`` non-zero entries of ``mask``."""
    k = rng_below(rng, n)
    for c in range(mask.shape[0]):
        if mask[c]:
            if k == 0:
                return c
            k -= 1
    return -1


@njit(cache=True)
def choose_move(p, s, w, depth, epsilon, states, order, feats, win, rewards, allowed, bounds, counters, rng):
    """Nemesh's move in the non-terminal ``s``: forced moves, exploration, then search (module docstring).

    Returns ``(column, how)`` with ``how`` one of FORCED_WIN, FORCED_BLOCK,
    EXPLORED, SEARCHED. The buffers come from :class:`SearchScratch` (at
    least ``depth`` plies).
    """
    rows, cols = p[0], p[1]
    mover = s[TO_MOVE]
    tmp = states[1]
    after = states[0]
    # 1. win at once
    n = 0
    for c in range(cols):
        allowed[c] = 0
        if s[HEADER + c] < rows and _wins_now(p, s, c, mover, tmp, rewards):
            allowed[c] = 1
            n += 1
    if n > 0:
        return _pick(allowed, n, rng), FORCED_WIN
    # 2. block the opponent's immediate win
    for c in range(cols):
        if s[HEADER + c] < rows and _wins_now(p, s, c, 1 - mover, tmp, rewards):
            allowed[c] = 1
            n += 1
    if n > 0:
        return _pick(allowed, n, rng), FORCED_BLOCK
    # 3. drop moves that let the opponent win on the next ply
    legal = 0
    for c in range(cols):
        if s[HEADER + c] >= rows:
            continue
        legal += 1
        afterstate(p, s, c, after, rewards)
        safe = True
        if not after[TERMINAL]:
            for c2 in range(cols):
                if after[HEADER + c2] < rows and _wins_now(p, after, c2, 1 - mover, tmp, rewards):
                    safe = False
                    break
        if safe:
            allowed[c] = 1
            n += 1
    if n == 0:
        for c in range(cols):
            allowed[c] = 1 if s[HEADER + c] < rows else 0
        n = legal
    # 4. explore
    if epsilon > 0.0 and rng_uniform(rng) < epsilon:
        return _pick(allowed, n, rng), EXPLORED
    if n == 1:
        return _pick(allowed, n, rng), SEARCHED
    # 5. search
    a, _ = search_root(p, s, w, depth, allowed, states, order, feats, win, rewards, bounds, counters, rng)
    return a, SEARCHED


@njit(cache=True)
def alphabeta_value(p, s, w, depth, states, order, feats, win, rewards, allowed, bounds, counters, rng):
    """The alpha-beta value of ``s`` for the player to move at ``depth`` plies, over all legal moves.

    No forced-move rules: this is the plain search, for tests against
    minimax and for analysis.
    """
    rows, cols = p[0], p[1]
    for c in range(cols):
        allowed[c] = 1 if s[HEADER + c] < rows else 0
    _, v = search_root(p, s, w, depth, allowed, states, order, feats, win, rewards, bounds, counters, rng)
    return v
