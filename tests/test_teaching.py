"""Training with a teacher (LearnerConfig.teacher, farl_agents/learners/teaching.py): only the learning seat learns,
a teacher's win reaches the learner through final adaptation, runs resume exactly, bad settings are refused."""
from __future__ import annotations

import numpy as np
import pytest

import farl_envs
from farl_agents.learners import LearnerConfig, NTupleAgent
from farl_agents.learners.family import finish_config
from farl_agents.players import RandomPlayer


def _agent(**changes) -> NTupleAgent:
    cfg = dict(ntuple_count=4, ntuple_length=3, use_symmetry=False, teacher="random", seed=1, alpha=0.5,
               epsilon=0.0)
    agent = NTupleAgent("tictactoe", LearnerConfig(**{**cfg, **changes}))
    agent.teacher_player = RandomPlayer()
    return agent


def test_only_the_learning_seat_learns_and_a_teachers_win_reaches_it():
    """Episode k's learning seat is k mod 2, the other the random teacher: after episode 0 only seat 0's table
    has changed; over games the teacher wins, the learner's table takes the -1 of final adaptation (nothing else
    gives seat 0 a negative reward in TicTacToe); every result is a legal TicTacToe result."""
    agent = _agent()
    w = agent.net.weights  # [output, seat, entry]
    out = agent.train(1)
    assert np.abs(w[0, 0]).sum() > 0 and np.abs(w[0, 1]).sum() == 0.0
    assert 5 <= out[0, 2] <= 9
    for _ in range(40):  # even episodes only: seat 0 learns, seat 1 is the teacher
        agent.episodes_done += 1  # skip the odd episode (seat 1 learning)
        out = agent.train(1)
        assert np.abs(w[0, 1]).sum() == 0.0
        if out[0, 1] > 0:
            break
    assert out[0, 1] > 0, "the random teacher never won in 40 games"
    assert w[0, 0].min() < 0


def test_on_the_per_ply_chain_a_teachers_moves_are_plies_of_the_chain():
    """With td_chain="ply" there is no learning seat to protect: the teacher's afterstates enter the one chain, so
    a decisive game moves both seats' tables, and a teacher's win reaches the learner's last afterstate through
    the chain's last update (final adaptation is not used on this chain)."""
    agent = _agent(td_chain="ply", farl=False, lam=0.5)
    w = agent.net.weights
    for _ in range(40):
        out = agent.train(1)
        if out[0, 0] != 0:
            break
    assert out[0, 0] != 0, "40 draws in a row"
    assert np.abs(w[0, 0]).sum() > 0 and np.abs(w[0, 1]).sum() > 0
    player_centred = _agent(farl=False, lam=0.5)
    player_centred.train(int(agent.episodes_done))
    assert not np.array_equal(player_centred.net.weights, w)


def test_a_teacher_run_resumes_exactly_from_its_file(tmp_path):
    """Train 30 + save + load + 30 equals 60 straight: every draw comes from the agent's saved generators."""
    straight = _agent(epsilon=0.2, episodes=60)
    straight.train(60)
    first = _agent(epsilon=0.2, episodes=60)
    first.train(30)
    path = first.save(tmp_path / "a.npz")
    resumed = NTupleAgent.load(path)
    assert resumed.config.teacher == "random"
    with pytest.raises(ValueError, match="set agent.teacher_player"):
        resumed.train(1)
    resumed.teacher_player = RandomPlayer()
    resumed.train(30)
    assert np.array_equal(straight.net.weights, resumed.net.weights)


def test_bad_teacher_settings_are_refused():
    with pytest.raises(ValueError, match="a teacher trains TD"):
        LearnerConfig(teacher="maxn1", algo="sarsa")
    with pytest.raises(ValueError, match="teacher_share"):
        LearnerConfig(teacher="maxn1", teacher_share=1.5)
    with pytest.raises(ValueError, match="unknown opponent"):
        finish_config(LearnerConfig(teacher="no-such-player"), farl_envs.game_spec("tictactoe"))
    with pytest.raises(ValueError, match="one player"):
        NTupleAgent("game2048", LearnerConfig(teacher="random"))
