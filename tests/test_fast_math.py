"""LearnerConfig.fast_math: the cheaper arithmetic of the compiled loops (farl_agents/ntuple/network.py).

The default (exact) arithmetic is covered to the bit by tests/test_equivalence.py, test_learners.py and the
resume tests; here: the fast pieces are accurate, the setting is recorded in agent files (old files load as
exact), and (slow: each compiles a loop of its own) a fast agent learns as the exact one does.
"""
from __future__ import annotations

import numpy as np
import pytest
from numba import njit
from ttt_perfect import agent_policy, suboptimal_fraction, worst_outcome

from farl_agents.learners import LearnerConfig, NTupleAgent, paper_config
from farl_agents.learners.agent_io import read_agent_file
from farl_agents.ntuple import network
from farl_agents.ntuple.network import EXACT, FAST, fast_exp, fast_tanh, fast_weight_sum, is_fast


def test_exact_is_the_default_and_old_settings_load_as_exact():
    assert LearnerConfig().fast_math is False
    old = LearnerConfig().to_dict()
    del old["fast_math"]  # a file written before the field existed
    assert LearnerConfig.from_dict(old).fast_math is False
    assert LearnerConfig.from_dict(LearnerConfig(fast_math=True).to_dict()).fast_math is True
    with pytest.raises(TypeError):
        LearnerConfig(fast_math=1)


def test_the_agent_file_records_the_arithmetic(tmp_path):
    for fast in (False, True):
        agent = NTupleAgent("tictactoe", paper_config("tictactoe").replace(fast_math=fast))
        assert agent.net.arithmetic is (FAST if fast else EXACT)
        path = agent.save(tmp_path / f"a{fast}.npz")
        meta, _ = read_agent_file(path)
        assert meta["config"]["fast_math"] is fast
        assert NTupleAgent.load(path).net.arithmetic is (FAST if fast else EXACT)


@njit(cache=True)
def _fast_functions(xs, exps, tanhs):
    for i in range(xs.shape[0]):
        exps[i] = fast_exp(xs[i])
        tanhs[i] = fast_tanh(xs[i])


@njit(cache=True)
def _flags(a, b):
    return is_fast(a), is_fast(b)


def test_the_fast_exp_and_tanh_are_accurate_far_below_a_float32_weight():
    xs = np.concatenate([np.linspace(-2.7, 0.0, 20001), np.linspace(-25.0, 25.0, 20001),
                         np.linspace(-1e-3, 1e-3, 101), [-800.0, 800.0, 0.0]])
    exps, tanhs = np.empty_like(xs), np.empty_like(xs)
    _fast_functions(xs, exps, tanhs)
    finite = np.abs(xs) < 700
    np.testing.assert_allclose(exps[finite], np.exp(xs[finite]), rtol=1e-11, atol=0)
    assert exps[xs == -800.0] == 0.0 and np.isinf(exps[xs == 800.0]).all()
    np.testing.assert_allclose(tanhs, np.tanh(xs), rtol=1e-10, atol=1e-14)
    assert _flags(EXACT, FAST) == (False, True)


def test_the_fast_value_sum_reads_the_same_entries():
    agent = NTupleAgent("othello", paper_config("othello"))
    net = agent.net
    rng = np.random.default_rng(0)
    net.weights[...] = rng.normal(size=net.weights.shape).astype(np.float32)
    idx = rng.integers(0, network.lut_size(net), size=net.sym_cells.shape[:2])
    exact = float(sum(float(net.weights[0, 1, k]) for k in idx.ravel()))
    assert fast_weight_sum(net.weights, net.page_of, net.action_sym, 1, 0, idx) == pytest.approx(exact, rel=1e-12)


# ------------------------------------------------------------------ slow: each compiles a loop of its own
@pytest.mark.slow
def test_fast_math_learns_tictactoe_as_the_exact_mode_does():
    agent = NTupleAgent("tictactoe", paper_config("tictactoe", seed=0).replace(fast_math=True))
    agent.train(agent.config.episodes)
    policy = agent_policy(agent)
    assert worst_outcome(policy, agent_mark=1) >= 0 and worst_outcome(policy, agent_mark=2) >= 0
    assert suboptimal_fraction(policy) < 0.04  # the exact mode's bound in tests/test_learners.py


@pytest.mark.slow
def test_fast_math_othello_weights_are_close_to_the_exact_ones():
    agents = {}
    for fast in (False, True):
        agents[fast] = NTupleAgent("othello", paper_config("othello").replace(fast_math=fast))
        agents[fast].train(30)
    exact, fast = agents[False].net.weights, agents[True].net.weights
    scale = np.abs(exact).max()
    assert scale > 0
    assert np.abs(fast - exact).max() <= 1e-3 * scale  # the last bits may differ; the learning is the same


def test_the_benchmarks_learning_table_compares_the_two_modes():
    from script_modules import load_script

    vs_gbg = load_script("benchmarks", "vs_gbg")
    runs = [{"row": "nim", "farl": True, "seed": s, "fast_math": f, "episodes": 100, "episodes_asked": 100,
             "scores": {"maxn15": [x, 0.05]}}
            for s, f, x in ((0, False, 0.4), (1, False, 0.6), (0, True, 0.5), (1, True, 0.7))]
    table = vs_gbg.learning_table(runs, ["nim"], 100)
    assert "| nim | FARL | maxn15 | 100 | 0.500 ± 0.100 (2) | 0.600 ± 0.100 (2) | +0.71 |" in table
