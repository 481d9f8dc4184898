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

from farl_agents.learners.td_farl import random_opening
from farl_agents.ntuple.network import board_indices, value
from farl_agents.ntuple.traces import adapt, clear_traces
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


def make_memory(n_players: int, n_actions: int, n_sym: int, m: int) -> QMemory:
    return QMemory(np.zeros((n_players, n_sym, m), np.int64), np.zeros(n_players, np.int64),
                   np.zeros(n_players, np.bool_), np.zeros(n_players, np.bool_), np.zeros(n_players),
                   np.zeros(n_players), np.zeros((n_sym, m), np.int64), np.zeros(n_actions, np.int64),
                   np.zeros(n_actions))


@njit(cache=True)
def select(net, prm, mem, player, n_legal, epsilon, rng):
    """ε-greedy action on Q_player(current state, ·); ties uniformly at random. Returns (action, was_random)."""
    if epsilon > 0.0 and rng_uniform(rng) < epsilon:
        return mem.legal[rng_below(rng, n_legal)], True
    for k in range(n_legal):
        mem.scores[k] = value(net, player, mem.legal[k], mem.state_idx, prm.tanh_output)
    return mem.legal[rng_argmax(mem.scores, n_legal, rng)], False


@njit(cache=True)
def _max_q(net, prm, mem, player, n_legal):
    best = -np.inf
    for k in range(n_legal):
        best = max(best, value(net, player, mem.legal[k], mem.state_idx, prm.tanh_output))
    return best


@njit(cache=True)
def _adapt_pair(net, traces, prm, player, idx, action, target, alpha):
    q = value(net, player, action, idx, prm.tanh_output)
    grad = 1.0 - q * q if prm.tanh_output else 1.0
    adapt(net, traces, player, action, idx, target - q, grad, alpha, prm.lam, prm.trace_mode,
          prm.tcl_exp, prm.tcl_beta)


@njit(cache=True)
def start(net, prm, mem, traces, player, n_legal, epsilon, rng, carry_traces):
    """Begin an episode in the state held in ``mem.state_idx``/``mem.legal``: choose a_0, set its player's s_last."""
    mem.has_last[:] = False
    mem.cum[:] = 0.0
    mem.last_cum[:] = 0.0
    if not carry_traces:
        clear_traces(traces)
    a, rnd = select(net, prm, mem, player, n_legal, epsilon, rng)
    mem.last_idx[player] = mem.state_idx
    mem.last_action[player] = a
    mem.last_random[player] = rnd
    mem.has_last[player] = True
    return a


@njit(cache=True)
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
                clear_traces(traces)
        else:
            _adapt_pair(net, traces, prm, player, mem.last_idx[player], mem.last_action[player], target, alpha)
    if not terminal and (not sarsa or reselect):
        nxt, rnd = select(net, prm, mem, player, n_legal, epsilon, rng)
    mem.last_idx[player] = mem.state_idx
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


@njit  # no cache: numba cannot cache functions that take kernels as arguments
def _load_state(legal_actions, board_fn, p, s, net, mem, mask, board):
    """Put the indices and legal actions of kernel state ``s`` into ``mem``; return the number of legal actions."""
    board_fn(p, s, board)
    board_indices(net, board, mem.state_idx)
    legal_actions(p, s, mask)
    n = 0
    for a in range(mask.shape[0]):
        if mask[a]:
            mem.legal[n] = a
            n += 1
    return n


@njit  # no cache: numba cannot cache functions that take kernels as arguments
def self_play(initial_state, legal_actions, afterstate, chance, board_fn, p, n_cells, net, prm, mem, traces,
              alphas, epsilons, start_prob, start_plies, carry_traces, sarsa, reselect, agent_rng, env_rng, results):
    """Compiled SARSA/Q self-play for ``len(alphas)`` episodes; ``results`` as in TD's ``self_play``."""
    n_players = mem.cum.shape[0]
    mask = np.zeros(mem.legal.shape[0], np.int8)
    rewards = np.zeros(n_players)
    board = np.zeros(n_cells, np.int32)
    for e in range(alphas.shape[0]):
        s = initial_state(p, env_rng)
        if start_prob > 0.0 and rng_uniform(agent_rng) < start_prob:
            random_opening(legal_actions, afterstate, chance, p, s, start_plies, mask, rewards, agent_rng, env_rng)
        plies = 0
        mem.cum[:] = 0.0
        if s[TERMINAL] == 0:
            n = _load_state(legal_actions, board_fn, p, s, net, mem, mask, board)
            a = start(net, prm, mem, traces, s[TO_MOVE], n, epsilons[e], agent_rng, carry_traces)
            while s[TERMINAL] == 0:
                afterstate(p, s, a, s, rewards)
                if s[TERMINAL] == 0:
                    chance(p, s, env_rng)
                n = _load_state(legal_actions, board_fn, p, s, net, mem, mask, board)
                a = transition(net, traces, prm, mem, s[TO_MOVE], n, s[TERMINAL] != 0, rewards, epsilons[e],
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
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        env.step(int(action))
        for i, ag in enumerate(agents):
            step_rewards[i] = raw.rewards.get(ag, 0.0)
            totals[ag] += step_rewards[i]
        terminal = all(raw.terminations.values())
        n = _load_from_env(raw, net, mem)
        action = transition(net, traces, prm, mem, agents.index(raw.agent_selection), n, terminal, step_rewards,
                            epsilon, alpha, agent_rng, sarsa, reselect, train)
    return totals
