"""SARSA-FARL (Konen & Bagheri 2020, Alg. 5) and Q-FARL (Alg. 3 with final adaptation).

Each player q learns Q_q(s, a) on the states where q is to move, with one
network output per action. When q is to move in s'', the pair
(s_last[q], a_last[q]) of q's previous turn is adapted towards
r + γ·M, where r is q's reward since then and

* SARSA: M = Q_q(s'', a'') for the ε-greedy action a'' q will play,
* Q-learning: M = max_a Q_q(s'', a),

and M = 0 when s'' ends the game. Final adaptation (part 1) adapts every
other player's last pair towards its final reward; SARSA and Q have no part 2
(the value of a terminal state is never used, footnote 8).

As in :mod:`farl_agents.learners.td_farl` the algorithm is written once as
``@njit`` steps (:func:`start`, :func:`transition`) and driven either by the
compiled :func:`self_play` or by the AEC loop :func:`play_episode_aec`
(which reads the current position with the env's ``board()``).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from farl_agents.learners import kernels as K
from farl_agents.learners.td_farl import copy_indices, random_opening
from farl_agents.ntuple.network import board_indices, one_layout, value
from farl_agents.ntuple.traces import adapt, clear_traces, cut_traces
from farl_envs.core.kernel_utils import borrowed, copy_state
from farl_envs.core.rng import rng_argmax, rng_below, rng_uniform
from farl_envs.core.spec import TERMINAL, TO_MOVE


class QMemory(NamedTuple):
    """Per-episode bookkeeping of every player (s_last, a_last ...) and scratch."""

    last_idx: np.ndarray     # int64[N, n_sym, m]  s_last[q]
    last_action: np.ndarray  # int64[N]            a_last[q]
    last_random: np.ndarray  # bool[N]             a_last[q] was an explorative move
    has_last: np.ndarray     # bool[N]
    last_cum: np.ndarray     # float64[N]
    cum: np.ndarray          # float64[N]
    state_idx: np.ndarray    # int64[n_sym, m]     indices of the current state
    legal: np.ndarray        # int64[n_actions]    legal actions of the current state
    scores: np.ndarray       # float64[n_actions]
    state: np.ndarray        # int32[state_size]   the compiled loop's position
    board: np.ndarray        # int32[n_cells]      scratch: the position's board
    mask: np.ndarray         # int8[n_actions]     scratch: legal actions
    rewards: np.ndarray      # float64[N]          scratch: a step's reward deltas


def make_memory(n_players: int, n_actions: int, n_sym: int, m: int, n_cells: int, state_size: int) -> QMemory:
    return QMemory(np.zeros((n_players, n_sym, m), np.int64), np.zeros(n_players, np.int64),
                   np.zeros(n_players, np.bool_), np.zeros(n_players, np.bool_), np.zeros(n_players),
                   np.zeros(n_players), np.zeros((n_sym, m), np.int64), np.zeros(n_actions, np.int64),
                   np.zeros(n_actions), np.zeros(state_size, np.int32), np.zeros(n_cells, np.int32),
                   np.zeros(n_actions, np.int8), np.zeros(n_players))


@njit(cache=True, inline="always")
def select(net, prm, mem, player, n_legal, epsilon, rng):
    """ε-greedy action on Q_player(current state, ·); ties uniformly at random. Returns (action, was_random)."""
    if epsilon > 0.0 and rng_uniform(rng) < epsilon:
        return mem.legal[rng_below(rng, n_legal)], True
    for k in range(n_legal):
        mem.scores[k] = value(net, player, mem.legal[k], mem.state_idx, prm.tanh_output)
    return mem.legal[rng_argmax(mem.scores, n_legal, rng)], False


@njit(cache=True, inline="always")
def _max_q(net, prm, mem, player, n_legal):
    best = -np.inf
    for k in range(n_legal):
        best = max(best, value(net, player, mem.legal[k], mem.state_idx, prm.tanh_output))
    return best


@njit(cache=True, inline="always")
def _adapt_pair(net, traces, prm, player, idx, action, target, alpha):
    q = value(net, player, action, idx, prm.tanh_output)
    grad = 1.0 - q * q if prm.tanh_output else 1.0
    adapt(net, traces, player, action, idx, target - q, grad, alpha, prm.lam, prm.trace_mode,
          prm.tcl_exp, prm.tcl_beta)


@njit(cache=True, inline="always")
def start(net, prm, mem, traces, player, n_legal, epsilon, rng, carry_traces):
    """Begin an episode in the state held in ``mem.state_idx``/``mem.legal``: choose a_0, set its player's s_last."""
    mem.has_last[:] = False
    mem.cum[:] = 0.0
    mem.last_cum[:] = 0.0
    if not carry_traces:
        clear_traces(traces)
    a, rnd = select(net, prm, mem, player, n_legal, epsilon, rng)
    copy_indices(mem.state_idx, mem.last_idx[player])  # a loop compiles seconds faster than a slice assignment
    mem.last_action[player] = a
    mem.last_random[player] = rnd
    mem.has_last[player] = True
    return a


@njit(cache=True, inline="always")
def transition(net, traces, prm, mem, player, n_legal, terminal, step_rewards, epsilon, alpha, rng,
               sarsa, reselect, train):
    """Everything after a move, from the view of ``player``, who is to move in the new state s''.

    ``mem.state_idx``/``mem.legal`` describe s''; ``terminal`` says whether it
    ends the game. Returns the action ``player`` plays next (-1 at the end).
    """
    for i in range(mem.cum.shape[0]):
        mem.cum[i] += step_rewards[i] * prm.reward_scale
    nxt, rnd = -1, False
    m_value = 0.0
    if not terminal:
        if sarsa:
            nxt, rnd = select(net, prm, mem, player, n_legal, epsilon, rng)
            m_value = value(net, player, nxt, mem.state_idx, prm.tanh_output)
        else:
            m_value = _max_q(net, prm, mem, player, n_legal)
    if train and mem.has_last[player]:
        target = mem.cum[player] - mem.last_cum[player] + prm.gamma * m_value
        if mem.last_random[player] and not prm.learn_from_random and not terminal:
            if prm.trace_mode == 1 or prm.trace_mode == 3:
                cut_traces(traces, player, prm.reset_all)
        else:
            _adapt_pair(net, traces, prm, player, mem.last_idx[player], mem.last_action[player], target, alpha)
    if not terminal and (not sarsa or reselect):
        nxt, rnd = select(net, prm, mem, player, n_legal, epsilon, rng)
    copy_indices(mem.state_idx, mem.last_idx[player])  # a loop compiles seconds faster than a slice assignment
    mem.last_action[player] = nxt
    mem.last_random[player] = rnd
    mem.has_last[player] = True
    mem.last_cum[player] = mem.cum[player]
    if train and terminal and prm.farl:
        for n in range(mem.cum.shape[0]):
            if n != player and mem.has_last[n]:
                _adapt_pair(net, traces, prm, n, mem.last_idx[n], mem.last_action[n],
                            mem.cum[n] - mem.last_cum[n], alpha)
    return nxt


@njit(cache=True, inline="always")
def _load_state(kernels, p, s, net, mem):
    """Put the indices and legal actions of kernel state ``s`` into ``mem``; return the number of legal actions."""
    K.board(kernels, p, s, mem.board)
    board_indices(net, mem.board, mem.state_idx)
    K.legal_actions(kernels, p, s, mem.mask)
    n = 0
    for a in range(mem.mask.shape[0]):
        if mem.mask[a]:
            mem.legal[n] = a
            n += 1
    return n


@njit(cache=True)
def self_play(kernels, p, net, prm, mem, traces, alphas, epsilons, start_prob, start_plies, carry_traces, sarsa,
              reselect, agent_rng, env_rng, results):
    """Compiled SARSA/Q self-play for ``len(alphas)`` episodes; arguments and ``results`` as in TD's ``self_play``
    (which says why the loop is :func:`self_play_loop`, behind an outer call per table layout)."""
    self_play_loop(kernels, p, one_layout(net), prm, mem, traces, alphas, epsilons, start_prob, start_plies,
                   carry_traces, sarsa, reselect, agent_rng, env_rng, results)


@njit(cache=True)
def self_play_loop(kernels, p, net, prm, mem, traces, alphas, epsilons, start_prob, start_plies, carry_traces,
                   sarsa, reselect, agent_rng, env_rng, results):
    """The loop of :func:`self_play`."""
    p, net, mem, traces = borrowed(p), borrowed(net), borrowed(mem), borrowed(traces)
    alphas, epsilons, results = borrowed(alphas), borrowed(epsilons), borrowed(results)
    agent_rng, env_rng = borrowed(agent_rng), borrowed(env_rng)
    n_players = mem.cum.shape[0]
    s = mem.state
    for e in range(alphas.shape[0]):
        copy_state(K.initial_state(kernels, p, env_rng), s)
        if start_prob > 0.0 and rng_uniform(agent_rng) < start_prob:
            random_opening(kernels, p, s, start_plies, mem.mask, mem.rewards, agent_rng, env_rng)
        plies = 0
        mem.cum[:] = 0.0
        if s[TERMINAL] == 0:
            n = _load_state(kernels, p, s, net, mem)
            a = start(net, prm, mem, traces, s[TO_MOVE], n, epsilons[e], agent_rng, carry_traces)
            while s[TERMINAL] == 0 and (prm.episode_plies == 0 or plies < prm.episode_plies):
                K.afterstate(kernels, p, s, a, s, mem.rewards)
                if s[TERMINAL] == 0:
                    K.chance(kernels, p, s, env_rng)
                n = _load_state(kernels, p, s, net, mem)
                a = transition(net, traces, prm, mem, s[TO_MOVE], n, s[TERMINAL] != 0, mem.rewards, epsilons[e],
                               alphas[e], agent_rng, sarsa, reselect, True)
                plies += 1
        for i in range(n_players):
            results[e, i] = mem.cum[i] / prm.reward_scale
        results[e, n_players] = plies


def _load_from_env(raw, net, mem) -> int:
    board_indices(net, np.asarray(raw.board(), dtype=np.int32), mem.state_idx)
    legal = np.flatnonzero(raw.action_mask())
    mem.legal[: legal.shape[0]] = legal
    return int(legal.shape[0])


def play_episode_aec(env, net, prm, mem, traces, alpha: float, epsilon: float, agent_rng, sarsa: bool,
                     reselect: bool, start_prob: float = 0.0, start_plies: int = 0,
                     carry_traces: bool = False, train: bool = True) -> dict:
    """One SARSA/Q self-play episode through ``env``'s AEC loop (``env`` reset by the caller)."""
    from farl_envs.core.rng import rng_choice_mask

    raw = env.unwrapped
    agents = list(raw.possible_agents)
    if start_prob > 0.0 and rng_uniform(agent_rng) < start_prob:
        for _ in range(start_plies):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                break
            env.step(int(rng_choice_mask(agent_rng, np.asarray(obs["action_mask"], dtype=np.int8))))
    mem.cum[:] = 0.0
    totals = dict.fromkeys(agents, 0.0)
    step_rewards = np.zeros(len(agents))
    obs, _, term, trunc, _ = env.last()
    if term or trunc:
        return totals
    n = _load_from_env(raw, net, mem)
    action = start(net, prm, mem, traces, agents.index(raw.agent_selection), n, epsilon, agent_rng, carry_traces)
    plies = 0
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        if prm.episode_plies and plies >= prm.episode_plies:  # a time limit of training: no final update
            break
        plies += 1
        env.step(int(action))
        for i, ag in enumerate(agents):
            step_rewards[i] = raw.rewards.get(ag, 0.0)
            totals[ag] += step_rewards[i]
        # the game is over for every agent still in it: ended by a rule, or truncated by a move cap (the
        # compiled loop ends both on the kernel's terminal flag)
        terminal = all(done or raw.truncations[a] for a, done in raw.terminations.items())
        n = _load_from_env(raw, net, mem)
        action = transition(net, traces, prm, mem, agents.index(raw.agent_selection), n, terminal, step_rewards,
                            epsilon, alpha, agent_rng, sarsa, reselect, train)
    return totals
