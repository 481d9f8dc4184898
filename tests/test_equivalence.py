"""The compiled self-play loop and the plain AEC loop give the same weights from the same seed.

Both drivers call the same compiled steps; what this pins is that they feed
them the same afterstates, rewards, terminal flags and random numbers, in the
same order, for every game and learner family.
"""
from __future__ import annotations

import numpy as np
import pytest

import farl_envs
from farl_agents.learners import NTupleAgent, paper_config


def _case(game, config, slow=False):
    return pytest.param(game, config, id=f"{game}-{config.algo}", marks=[pytest.mark.slow] if slow else [])


CASES = [
    _case("tictactoe", paper_config("tictactoe", episodes=200, learn_from_random_moves=False)),
    _case("connect_four", paper_config("connect_four", episodes=200)),
    # the per-ply chain (Thill et al. 2014's Alg. 1) with reset + replacing traces, on small tuples
    _case("connect_four", paper_config("connect_four", episodes=200, td_chain="ply", trace_mode="rr")),
    _case("nim3p", paper_config("nim3p", episodes=200, trace_mode="rr")),
    # the per-ply chain with three players (every player's tables learn on every ply)
    _case("nim3p", paper_config("nim3p", episodes=200, td_chain="ply", trace_mode="et")),
    # long episodes: 10 are enough; 2048's loop is compiled for this case alone (~40 CPU s): with ``-m slow``
    _case("game2048", paper_config("game2048", episodes=10, epsilon=0.05), slow=True),
    # Othello's loop is compiled for this case alone (~25 CPU s of the default suite): with ``-m slow``
    _case("othello", paper_config("othello", episodes=10, trace_mode="rep"), slow=True),
    # SARSA on Nim3P: the loop tests/test_resume.py compiles anyway (TicTacToe's SARSA loop: -m slow)
    _case("nim3p", paper_config("nim3p", algo="sarsa", episodes=200)),
    _case("tictactoe", paper_config("tictactoe", algo="sarsa", episodes=200), slow=True),
    _case("nim3p", paper_config("nim3p", algo="q", episodes=200)),
]


@pytest.mark.parametrize("game,config", CASES)
def test_fast_and_aec_paths_learn_identical_weights(game, config):
    fast = NTupleAgent(game, config)
    fast.train(config.episodes)
    generic = NTupleAgent(game, config)
    generic.train_aec(farl_envs.make(game), config.episodes)
    assert np.count_nonzero(fast.net.weights) > 0
    assert np.array_equal(fast.net.weights, generic.net.weights)
    if fast.net.tcl_n.size:
        assert np.array_equal(fast.net.tcl_n, generic.net.tcl_n)
    assert np.array_equal(fast.agent_rng, generic.agent_rng)
