"""GameSpec.start_params: parameters that change only the start, so an agent trained under other values plays on.

The cube's scramble depths choose the starting position only; a 2x2x2 agent trained on scrambles of 1..13 twists
is measured on cubes scrambled by exactly p twists, bare and inside a search (studies/rubiks/solve_rates.py).
"""
import pytest

import farl_envs
from farl_agents.learners import LearnerConfig, NTupleAgent
from farl_agents.opponents.leaf_sources import agent_leaf


def cube(**params):
    return farl_envs.game_spec("rubiks_cube", size=2, metric="half", **params)


def test_same_rules_ignores_only_the_start_parameters():
    trained = cube(scramble_min=1, scramble_max=13)
    assert trained.same_rules(cube(scramble_min=5, scramble_max=5))
    assert not trained.same_rules(cube(scramble_min=1, scramble_max=13, max_twists=16))  # the cap ends games
    assert not trained.same_rules(farl_envs.game_spec("rubiks_cube", size=2, metric="quarter", scramble_max=13))
    c4 = farl_envs.game_spec("connect_four")
    assert c4.same_rules(farl_envs.game_spec("connect_four")) and not c4.same_rules(
        farl_envs.game_spec("connect_four", cols=8))
    assert not c4.same_rules(trained)


def test_a_search_takes_an_agent_of_other_scrambles_and_refuses_one_of_another_cap():
    agent = NTupleAgent(cube(scramble_min=1, scramble_max=13), LearnerConfig(ntuple_count=2, ntuple_length=3))
    assert agent_leaf(agent, cube(scramble_min=3, scramble_max=3)) is not None
    with pytest.raises(ValueError, match="max_twists"):
        agent_leaf(agent, cube(scramble_min=3, scramble_max=3, max_twists=20))
