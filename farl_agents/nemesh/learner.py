"""SARSA on Nemesh's linear Q (Shalita, Saranga & Haim 2013, sections 2.1, 4.1, 4.2.1, 5.1, 6.1-6.2), compiled whole.

Each seat p has its own weight vector ``w_p`` (``float64[36]``) over the
36 features of :mod:`farl_agents.nemesh.features`. The report's update is

    theta <- theta + alpha [r_t + gamma Q(s_t+1, a_t+1) - Q(s_t, a_t)] phi

Decisions taken here where the report is open:

* **Q(s, a) = w_p . phi(s (+) a)**, the linear value of the position right
  after p's move (the afterstate), and ``phi`` is that afterstate's
  features. The report's own text uses the state *before* the action as
  ``vector(s_t)``; that vector is the same for every action in s_t and so
  cannot tell moves apart, while the afterstate is what the search's depth-1
  leaves evaluate.
* **What s_t+1 is** (section 6.2's question, settled as in the report):
  p's update waits for the opponent's reply; s_t+1 is p's next position
  and a_t+1 the move p then actually plays (on-policy), so the target is
  ``gamma * w_p . phi(next afterstate of p)``; the rewards in between are 0.
* **Terminal** (section 6.1): when the game ends, the immediate reward
  carries the result (+1 win, -1 loss, 0 draw) and the expected return after
  the end is 0: the last afterstate of each learning seat is moved towards
  its reward alone -- the winner's at its winning move, the loser's at the
  opponent's winning move.
* **Learning rate by turns** (4.1.1): a turn is one move of each player;
  ``alpha = alpha0 / (1 + T0 + k)`` for an update of p's afterstate made in
  the game's turn ``k`` (0-based), where ``T0`` is the session's starting
  turn count (0, 10, 20 in the report's curriculum). The report gives the
  offsets but not the function; reading the turns as turns *of a game*
  makes offsets of 10 and 20 (a 6x8 game lasts up to 24 turns) change the
  rate noticeably, which is what the report says they are for.
* **Exploration** (5.1.3): epsilon = sqrt(1 / t), t = number of moves the
  seat has made in the current session (1 at its first move); forced moves
  come first (4.2.2), so exploration never skips a win or a block.
* **Discount** gamma = 0.8 (4.1.1).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from farl_agents.nemesh.features import (
    ALL_THREES,
    DIAG_BASE,
    HOLE1,
    HOLE2,
    N_FEATURES,
    N_PER_PLAYER,
    ONE_MOVE_TO_WIN,
    ONE_MOVE_TO_WIN_HOLE,
    ONE_SIDE,
    POTENTIAL_FOUR,
    PROHIBITED,
    ROW_BASE,
    THREE_IN_COL,
    TWO_SIDE,
    TWOS,
    WIN_COLUMNS,
    features,
)
from farl_agents.nemesh.search import choose_move
from farl_envs.core.rng import rng_choice_mask
from farl_envs.core.spec import HEADER, PLY, TERMINAL, TO_MOVE
from farl_envs.games.connect_four import afterstate, legal_actions

RANDOM, TRAINER, AGENT = 0, 1, 2
"""Kinds of player (section 7.3's TrainPlayer): uniformly random; alpha-beta with the seat's current
weights, always exploiting, not learning; the learning agent (epsilon-greedy around the search)."""
KIND_NAMES = {"random": RANDOM, "trainer": TRAINER, "agent": AGENT}

GAMMA = 0.8
"""The report's discount rate."""
ALPHA0 = 0.1
"""Default alpha0 of the schedule alpha0 / (1 + T0 + turn). The report's rate reaches 1 at T0 = 0 on
its own feature scale, which it does not give; on these counts alpha0 = 1 diverges, 0.1 does not
(python -m studies.nemesh.experiments --stages alpha)."""


def goodness() -> np.ndarray:
    """How good each of a player's 18 features is for that player (sign and rough size; decision).

    Section 4.2.1 fixes only the signs: positive for the player's own good
    features, negative for its opponent's. ProhibitedMoves is a bad feature
    of its owner, so its sign is reversed. The sizes are ours: immediate
    wins and double threats weigh most, open threes more than one-sided
    ones, twos and counts of deep cells least; all well below the reward of 1.
    """
    g = np.zeros(N_PER_PLAYER)
    for base in (ROW_BASE, DIAG_BASE):
        g[base + TWO_SIDE] = 0.3
        g[base + ONE_SIDE] = 0.15
        g[base + ALL_THREES] = 0.05
        g[base + HOLE1] = 0.05
        g[base + HOLE2] = 0.03
        g[base + TWOS] = 0.02
    g[THREE_IN_COL] = 0.1
    g[ONE_MOVE_TO_WIN] = 0.5
    g[PROHIBITED] = -0.3
    g[POTENTIAL_FOUR] = 0.05
    g[WIN_COLUMNS] = 0.5
    g[ONE_MOVE_TO_WIN_HOLE] = 0.1
    return g


def initial_weights() -> np.ndarray:
    """``float64[2, 36]``: player 1's weights ``[+g, -g]`` and player 2's reversed ``[-g, +g]`` (section 4.2.1)."""
    g = goodness()
    w = np.zeros((2, N_FEATURES))
    w[0, :N_PER_PLAYER], w[0, N_PER_PLAYER:] = g, -g
    w[1] = -w[0]
    return w


def learning_rate(alpha0: float, turn_start: int, turn: int) -> float:
    """alpha = alpha0 / (1 + T0 + turn) (see the module docstring)."""
    return alpha0 / (1.0 + turn_start + turn)


def exploration(moves_made: int) -> float:
    """epsilon = sqrt(1 / t) for the t-th move of the session (t >= 1)."""
    return math.sqrt(1.0 / max(moves_made, 1))


@njit(cache=True)
def sarsa_step(w, phi, target, alpha):
    """``w += alpha * (target - w . phi) * phi``; returns the TD error."""
    q = 0.0
    for i in range(phi.shape[0]):
        q += w[i] * phi[i]
    delta = target - q
    for i in range(phi.shape[0]):
        w[i] += alpha * delta * phi[i]
    return delta


@njit(cache=True)
def _dot(w, phi):
    v = 0.0
    for i in range(phi.shape[0]):
        v += w[i] * phi[i]
    return v


@njit(cache=True)
def play_games(p, n_games, kinds, depths, weights, turn_start, alpha0, gamma, moves_made, rng,
               states, order, feats, win, rewards, allowed, bounds, counters, results):
    """Play ``n_games`` games of Connect Four ``p`` between the two seats and learn (compiled loop).

    Args:
        kinds: ``int64[2]`` RANDOM / TRAINER / AGENT per seat (only AGENT learns).
        depths: ``int64[2]`` search depth per seat.
        weights: ``float64[2, 36]``, seat p's weights in row p (AGENT rows are updated in place).
        turn_start: T0 of the learning-rate schedule.
        moves_made: ``int64[2]`` moves each seat made this session (epsilon's t), updated.
        rng: the ``uint64[1]`` stream for exploration, shuffles, random players.
        states, order, feats, win, rewards, allowed, bounds, counters: search scratch
            (:class:`~farl_agents.nemesh.search.SearchScratch` for the larger depth).
        results: ``float64[n_games, 3]``: player 1's and player 2's final reward, plies.
    """
    rows, cols = p[0], p[1]
    size = HEADER + cols + rows * cols
    s = np.zeros(size, dtype=np.int32)
    mask = np.zeros(cols, dtype=np.int8)
    prev_phi = np.zeros((2, feats.shape[0]))
    prev_turn = np.zeros(2, dtype=np.int64)
    has_prev = np.zeros(2, dtype=np.bool_)
    step_rewards = np.zeros(2)
    for g in range(n_games):
        for i in range(size):
            s[i] = 0
        has_prev[:] = False
        while not s[TERMINAL]:
            mover = s[TO_MOVE]
            kind = kinds[mover]
            if kind == RANDOM:
                legal_actions(p, s, mask)
                a = rng_choice_mask(rng, mask)
            else:
                eps = 0.0
                if kind == AGENT:
                    moves_made[mover] += 1
                    eps = math.sqrt(1.0 / moves_made[mover])
                a, _ = choose_move(p, s, weights[mover], depths[mover], eps, states, order, feats, win,
                                   rewards, allowed, bounds, counters, rng)
            turn = s[PLY] // 2
            afterstate(p, s, a, s, step_rewards)
            if kind == AGENT:
                features(p, s, feats, win)
                w = weights[mover]
                if has_prev[mover]:
                    target = gamma * _dot(w, feats)
                    alpha = alpha0 / (1.0 + turn_start + prev_turn[mover])
                    sarsa_step(w, prev_phi[mover], target, alpha)
                for i in range(feats.shape[0]):
                    prev_phi[mover, i] = feats[i]
                prev_turn[mover] = turn
                has_prev[mover] = True
            if s[TERMINAL]:
                for q in range(2):
                    if kinds[q] == AGENT and has_prev[q]:
                        alpha = alpha0 / (1.0 + turn_start + prev_turn[q])
                        sarsa_step(weights[q], prev_phi[q], step_rewards[q], alpha)
                results[g, 0] = step_rewards[0]
                results[g, 1] = step_rewards[1]
                results[g, 2] = s[PLY]
