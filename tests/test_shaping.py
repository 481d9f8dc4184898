"""Progress shaping (``LearnerConfig.shaping``, learners/td_farl.py): off it is the paper's learner bit for bit, on
both drivers learn the same weights, and it makes Chinese Checkers learnable at all.

Every test here that trains on Chinese Checkers or EWN runs with ``-m slow`` only: each of those games' compiled
TD loop (~40 CPU s cold) is needed by no test of the default run, so the default run checks the refusals and the
shaped value, and CI's slow tier the drivers' agreement and the learning.
"""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

import farl_envs
from farl_agents.evaluate import evaluate
from farl_agents.learners import NTupleAgent, paper_config
from farl_agents.learners.config import LearnerConfig
from farl_agents.learners.presets import nplayer_config
from farl_agents.players import RandomPlayer


def _fingerprint(agent: NTupleAgent) -> str:
    h = hashlib.sha1(agent.net.weights.tobytes())
    if agent.net.tcl_n.size:
        h.update(agent.net.tcl_n.tobytes())
    h.update(agent.agent_rng.tobytes())
    return h.hexdigest()[:16]


@pytest.mark.parametrize("game,config,expected", [
    ("tictactoe", paper_config("tictactoe", episodes=300), "6a3556e70b0bfbe1"),
    ("nim3p", paper_config("nim3p", episodes=300, trace_mode="rr"), "ae9a8c14f5a28546"),
])
def test_shaping_off_learns_the_weights_of_the_learner_before_it(game, config, expected):
    """The fingerprints were taken at commit 437ac07, before the shaping field existed (tests/test_equivalence.py
    pins the two drivers against each other with shaping off)."""
    assert config.shaping == 0.0
    agent = NTupleAgent(game, config)
    agent.train(config.episodes)
    assert _fingerprint(agent) == expected


SHAPED = [
    # three players, the game's race heuristic as Φ; 40 turns so that most games hit the move limit
    pytest.param("chinese_checkers", {"players": 3, "max_moves": 40},
                 LearnerConfig(shaping=10.0, epsilon=0.3, alpha=1.0, lam=0.5, trace_mode="res", tcl="id",
                               ntuple_count=8, ntuple_length=4, use_symmetry=False, episodes=3, seed=3),
                 id="chinese_checkers3p", marks=pytest.mark.slow),
    # a die roll after every move: Φ of the afterstate before chance in both drivers
    pytest.param("einstein_wurfelt_nicht", {}, LearnerConfig(shaping=2.0, epsilon=0.2, ntuple_count=6, ntuple_length=3,
                                                              use_symmetry=False, episodes=20, seed=5),
                 id="ewn", marks=pytest.mark.slow),
]


@pytest.mark.parametrize("game,params,config", SHAPED)
def test_both_drivers_learn_the_same_weights_with_shaping(game, params, config):
    fast = NTupleAgent(game, config, **params)
    fast.train(config.episodes)
    generic = NTupleAgent(game, config, **params)
    generic.train_aec(farl_envs.make(game, **params), config.episodes)
    assert np.count_nonzero(fast.net.weights) > 0
    assert np.array_equal(fast.net.weights, generic.net.weights)
    assert np.array_equal(fast.agent_rng, generic.agent_rng)


@pytest.mark.slow
@pytest.mark.parametrize("algo", ["td", "sarsa"])
def test_learning_through_the_aec_loop_still_matches_the_compiled_loop_on_capped_games(algo):
    """TD-FARL and SARSA-FARL on Chinese Checkers
    with a cap hit in every game: both drivers learn the same weights (the AEC driver ends the episode on a
    truncation as the compiled loop does on the kernel's terminal flag)."""
    config = nplayer_config("chinese_checkers3p", algo=algo, episodes=6, ntuple_count=4, ntuple_length=3)
    params = {"players": 3, "max_moves": 12}
    fast = NTupleAgent("chinese_checkers", config, **params)
    generic = NTupleAgent("chinese_checkers", config, **params)
    start = np.random.default_rng(0).normal(0.0, 0.1, fast.net.weights.shape)
    fast.net.weights[:] = start  # zero weights and zero rewards would learn nothing at all
    generic.net.weights[:] = start
    fast.train(6)
    generic.train_aec(farl_envs.make("chinese_checkers", **params), 6)
    assert np.count_nonzero(fast.net.weights != start) > 0
    assert np.array_equal(fast.net.weights, generic.net.weights)
    assert np.array_equal(fast.agent_rng, generic.agent_rng)


def test_shaping_refuses_games_without_a_heuristic_and_other_learners():
    with pytest.raises(ValueError, match="heuristic"):
        NTupleAgent("tictactoe", LearnerConfig(shaping=1.0))
    with pytest.raises(ValueError, match="shaping"):
        LearnerConfig(shaping=1.0, algo="sarsa")
    with pytest.raises(ValueError, match="shaping"):
        LearnerConfig(shaping=-1.0)


def test_shaped_agent_values_an_afterstate_as_its_tables_plus_the_weighted_potential():
    game = farl_envs.game_spec("chinese_checkers", players=3, max_moves=300)
    agent = NTupleAgent(game, LearnerConfig(shaping=4.0, ntuple_count=4, ntuple_length=3, use_symmetry=False))
    s = game.initial_state(game.p, np.zeros(1, np.uint64))
    mask = np.zeros(game.n_actions, np.int8)
    game.legal_actions(game.p, s, mask)
    after, rewards, h = np.zeros_like(s), np.zeros(3), np.zeros(3)
    game.afterstate(game.p, s, int(np.flatnonzero(mask)[0]), after, rewards)
    game.heuristic(game.p, after, h)
    assert h[0] != 0.0
    assert agent.afterstate_value(after, 0) == 4.0 * h[0]  # zero tables


def _wins_against_random(agent, game, games_per_seat) -> float:
    """The share of games ``agent`` wins against two random players, every seat."""
    m = evaluate(game, agent, RandomPlayer(), n_games=games_per_seat, seed=11).matchups[0]
    return m.wins / m.n_games


@pytest.mark.slow
def test_shaping_makes_chinese_checkers_learnable():
    """Without shaping there is nothing to learn from: an agent on zero tables plays at random (every candidate
    scores 0), and random players never finish a game inside 300 turns, so every reward and every weight stays 0
    (nplayer_learning.md, section 5: 0 of 2,000 self-play episodes). With shaping most self-play games end and
    the agent wins almost every game against two random players."""
    game = farl_envs.game_spec("chinese_checkers", players=3, max_moves=300)
    rnd = RandomPlayer()
    random_play = evaluate(game, rnd, rnd, n_games=10, seed=3).matchups[0]
    assert random_play.n_games == 30 and random_play.wins == 0 and random_play.losses == 0
    base = dict(epsilon=0.15, alpha=1.0, alpha_final=0.5, lam=0.5, trace_mode="res", tcl="id", ntuple_count=40,
                ntuple_length=6, use_symmetry=False, episodes=300, seed=2)
    shaped = NTupleAgent(game, LearnerConfig(**base, shaping=10.0))
    ended_shaped = np.any(shaped.train(300)[:, :3] != 0, axis=1).sum()
    assert ended_shaped >= 200
    assert _wins_against_random(shaped, game, 4) >= 0.75
