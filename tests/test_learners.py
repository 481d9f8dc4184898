"""The n-tuple update (Eq. 3, Alg. 7), hand-computed episodes of Alg. 2 and Alg. 5, and learning on TicTacToe."""
from __future__ import annotations

import math

import numpy as np
import pytest
from ttt_perfect import agent_policy, suboptimal_fraction, worst_outcome

from farl_agents.learners import LearnerConfig, NTupleAgent, paper_config
from farl_agents.ntuple.network import board_indices, build_net, value
from farl_agents.ntuple.traces import adapt, horizon_entries, make_traces
from farl_envs.games._grid import cell_action_symmetries, square_symmetries


def _net(tuples, n_values, n_sym_perms, tcl=False):
    perms = n_sym_perms
    return build_net(np.array(tuples), n_values, 1, 1, perms, cell_action_symmetries(perms, perms.shape[1]),
                     True, tcl, 1e-4)


@pytest.mark.parametrize("tuples", [[[0, 1, 2]], [[0, 4, 8], [1, 2, 3], [4, 5, 6, 7]][:2], [[c] for c in range(9)]])
@pytest.mark.parametrize("board", [[0] * 9, [1, 0, 2, 0, 1, 0, 0, 2, 0], [1, 2, 1, 2, 1, 2, 0, 0, 0]])
def test_one_update_with_identity_output_hits_the_target(tuples, board):
    """Eq. 3: σ = id, α = 1, λ = 0: one update puts V exactly on the target, for any m and N_S."""
    net = _net(tuples, 3, square_symmetries(3))
    rng = np.random.default_rng(1)
    net.weights[...] = rng.normal(size=net.weights.shape).astype(np.float32)
    idx = np.empty((8, len(tuples)), np.int64)
    board_indices(net, np.array(board, np.int32), idx)
    traces = make_traces(1, 1, 8, len(tuples))
    for target in (0.75, -2.0):
        v = value(net, 0, 0, idx, False)
        adapt(net, traces, 0, 0, idx, target - v, 1.0, 1.0, 0.0, 0, False, 0.0)
        assert value(net, 0, 0, idx, False) == pytest.approx(target, abs=1e-5)


def test_index_inhibition_updates_a_shared_index_once():
    """The empty board looks the same in all 8 symmetries: its index must change once, not 8 times."""
    net = _net([[0, 1, 2, 3, 4, 5, 6, 7, 8]], 3, square_symmetries(3))
    idx = np.empty((8, 1), np.int64)
    board_indices(net, np.zeros(9, np.int32), idx)
    assert len(set(idx[:, 0])) == 1
    traces = make_traces(1, 1, 8, 1)
    adapt(net, traces, 0, 0, idx, 1.0, 1.0, 1.0, 0.0, 0, False, 0.0)
    assert np.count_nonzero(net.weights) == 1
    assert net.weights[0, 0, idx[0, 0]] == pytest.approx(1 / 8)  # α/(m·N_S), once
    assert value(net, 0, 0, idx, False) == pytest.approx(1.0)


def test_tcl_factor_follows_sign_agreement():
    """TC-id: the first change uses factor 1; after +r then -r the factor is TC-init/(TC-init + 2r)."""
    net = _net([[0]], 3, square_symmetries(3)[:1], tcl=True)
    idx = np.zeros((1, 1), np.int64)
    traces = make_traces(1, 1, 1, 1)
    adapt(net, traces, 0, 0, idx, 0.5, 1.0, 1.0, 0.0, 0, False, 0.0)
    assert net.weights[0, 0, 0] == pytest.approx(0.5)
    adapt(net, traces, 0, 0, idx, -0.5, 1.0, 1.0, 0.0, 0, False, 0.0)   # factor |1e-4+.5|/(1e-4+.5) = 1
    assert net.weights[0, 0, 0] == pytest.approx(0.0, abs=1e-6)
    before = net.weights[0, 0, 0]
    adapt(net, traces, 0, 0, idx, 1.0, 1.0, 1.0, 0.0, 0, False, 0.0)
    assert net.weights[0, 0, 0] - before == pytest.approx(1e-4 / (1e-4 + 1.0), rel=1e-3)


@pytest.mark.parametrize("lam,cut,entries", [(0.0, 0.01, 1), (0.5, 0.1, 4), (0.5, 0.01, 7), (0.8, 0.001, 31)])
def test_horizon_length(lam, cut, entries):
    assert horizon_entries(lam, cut) == entries
    if lam:
        assert lam ** (entries - 1) >= cut > lam ** entries


def test_eligibility_reaches_older_states_with_lambda_powers():
    """λ = 0.5, three updates of distinct states: the oldest gets δ·λ² (identity output, α = 1, one cell tuple)."""
    net = _net([[0]], 3, square_symmetries(3)[:1])
    traces = make_traces(1, 3, 1, 1)
    idx = [np.array([[k]], np.int64) for k in range(3)]
    for k in range(3):
        adapt(net, traces, 0, 0, idx[k], 1.0, 1.0, 1.0, 0.5, 0, False, 0.0)
    assert list(net.weights[0, 0, :3]) == pytest.approx([1 + 0.5 + 0.25, 1 + 0.5, 1.0])


def test_replacing_trace_changes_a_repeated_state_once():
    net = _net([[0]], 3, square_symmetries(3)[:1])
    traces = make_traces(1, 3, 1, 1)
    same = np.array([[1]], np.int64)
    adapt(net, traces, 0, 0, same, 1.0, 1.0, 1.0, 0.5, 2, False, 0.0)
    adapt(net, traces, 0, 0, same, 1.0, 1.0, 1.0, 0.5, 2, False, 0.0)
    assert net.weights[0, 0, 1] == pytest.approx(2.0)  # accumulating would give 1 + 1 + 0.5


# ---------------------------------------------------------------- hand-computed episodes on a toy game
TOY = dict(heaps=1, heap_size=4, max_take=1)  # Nim3P: exactly 4 plies, p0 takes the last item


def _toy_agent(algo, **kw):
    # TC-id is on but changes nothing here: its step factor |N|/A is exactly 1 until an entry's second change, and
    # these episodes change each entry at most once. With TCL tables the agent has the paper presets' memory
    # layout, so it runs the compiled loop that Nim3P's paper agents use (one numba compile less for the suite).
    cfg = LearnerConfig(algo=algo, alpha=1.0, epsilon=0.0, tanh_output=False, use_symmetry=False, ntuples="explicit",
                        ntuple_cells=((0,),), episodes=1, tcl="id", **kw)
    return NTupleAgent("nim3p", cfg, **TOY)


@pytest.mark.parametrize("farl,farl_terminal", [(True, True), (False, False), (True, False)])
def test_td_farl_episode_by_hand(farl, farl_terminal):
    """Alg. 2 on Nim3P with one heap of 4: p0 3, p1 2, p2 1, p0 0 (p0 took the last: p1 gets 1, p2 0.2, p0 0).

    Regular update: p0's afterstate 3 → 0 (reward 0, terminal next). FARL part 1: p1's
    afterstate 2 → 1, p2's afterstate 1 → 0.2. Part 2: p0's terminal afterstate 0 → 0.
    """
    agent = _toy_agent("td", farl=farl, farl_terminal=farl_terminal)
    w = agent.net.weights[0]  # [player, heap count]
    w[:, :] = 0.4
    w[0, 3], w[1, 2], w[2, 1], w[0, 0] = 0.7, -0.3, 0.9, 0.5
    agent.train(1)
    expect = np.full((3, 5), 0.4, np.float32)
    expect[0, 3] = 0.0
    expect[1, 2] = 1.0 if farl else -0.3
    expect[2, 1] = 0.2 if farl else 0.9
    expect[0, 0] = 0.0 if farl_terminal else 0.5
    np.testing.assert_allclose(w, expect, atol=1e-6)


@pytest.mark.parametrize("algo", ["sarsa", "q"])
@pytest.mark.parametrize("farl", [True, False])
def test_sarsa_and_q_episode_by_hand(algo, farl):
    """Alg. 5 on the same toy (states are heap counts with the player to move).

    p0 is in 4 then 1; p1 in 3; p2 in 2; p1 is "to move" in the terminal state 0.
    Q0(4) → Q0(1) (before Q0(1) changes); Q1(3) → 1 (terminal, M = 0); FARL: Q0(1) → 0, Q2(2) → 0.2.
    """
    agent = _toy_agent(algo, farl=farl)
    q = agent.net.weights[0]  # the only action's table [player, heap count]
    q[:, :] = 0.4
    q[0, 1], q[0, 4], q[1, 3], q[2, 2] = 0.6, 0.1, -0.5, 0.9
    agent.train(1)
    expect = np.full((3, 5), 0.4, np.float32)
    expect[0, 4] = 0.6
    expect[1, 3] = 1.0
    expect[0, 1] = 0.0 if farl else 0.6
    expect[2, 2] = 0.2 if farl else 0.9
    np.testing.assert_allclose(q, expect, atol=1e-6)


# ---------------------------------------------------------------- learning TicTacToe with the paper preset
@pytest.fixture(scope="module")
def ttt_agents():
    out = {}
    for farl in (True, False):
        agent = NTupleAgent("tictactoe", paper_config("tictactoe", farl=farl, seed=0))
        agent.train(agent.config.episodes)
        out[farl] = agent_policy(agent)
    return out


def test_td_farl_never_loses_tictactoe_against_a_perfect_player(ttt_agents):
    policy = ttt_agents[True]
    assert worst_outcome(policy, agent_mark=1) >= 0  # as X, over every line of perfect play
    assert worst_outcome(policy, agent_mark=2) >= 0  # as O


def test_without_farl_tictactoe_is_learned_much_worse(ttt_agents):
    with_farl = suboptimal_fraction(ttt_agents[True])
    without = suboptimal_fraction(ttt_agents[False])
    assert with_farl < 0.04           # measured ~0.016 (seeds 0-5: 0.008-0.016)
    assert without > 3 * with_farl    # measured ~0.13-0.17
    assert worst_outcome(ttt_agents[False], agent_mark=2) < 0 or without > 0.08


def test_schedules_reach_their_final_values():
    cfg = LearnerConfig(alpha=1.0, alpha_final=0.5, epsilon=0.1, epsilon_final=0.0, episodes=100)
    assert cfg.alpha_at(0) == 1.0 and cfg.alpha_at(100) == pytest.approx(0.5)
    assert cfg.alpha_at(50) == pytest.approx(math.sqrt(0.5))  # exponential (GBG)
    assert cfg.epsilon_at(50) == pytest.approx(0.05)           # linear


@pytest.mark.parametrize("schedule", ["linear", "exponential"])
def test_the_compiled_schedules_are_the_configs_to_the_bit(schedule):
    cfg = LearnerConfig(alpha=3.7, alpha_final=0.37, alpha_schedule=schedule, epsilon=0.3, epsilon_final=0.01,
                        epsilon_schedule=schedule, episodes=997)
    agent = NTupleAgent("tictactoe", cfg.replace(ntuples="explicit", ntuple_cells=((0, 1, 2),)))
    agent.episodes_done = 900  # runs past the end of the schedule, where the final value holds
    alphas, epsilons = agent.schedules(200)
    assert [cfg.alpha_at(k) for k in range(900, 1100)] == alphas.tolist()
    assert [cfg.epsilon_at(k) for k in range(900, 1100)] == epsilons.tolist()
    assert alphas[-1] == cfg.alpha_at(10**6) and epsilons[0] != epsilons[-1]


@pytest.mark.parametrize("bad", [dict(algo="dqn"), dict(alpha=0), dict(lam=1.0), dict(trace_mode="x"),
                                 dict(tcl="foo"), dict(ntuples="explicit"), dict(epsilon=2)])
def test_bad_config_is_refused(bad):
    with pytest.raises(ValueError):
        LearnerConfig(**bad)


def test_fixed_set_needs_the_paper_board():
    with pytest.raises(ValueError, match="cols=7"):
        NTupleAgent("connect_four", LearnerConfig(ntuples="fixed"), cols=8)
