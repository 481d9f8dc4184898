"""The solve-rate study's GBG rule of play (``--no-undo``): the greedy twist never undoes the twist before."""
from __future__ import annotations

import numpy as np
import pytest

import farl_envs
from farl_agents.opponents import make_opponent
from farl_envs.core.rng import make_rng
from studies.rubiks.solve_rates import greedy_no_undo, solve_rate


class _FlatAgent:
    """Every unsolved afterstate is worth 0: only the solving twist's reward separates the twists."""

    def afterstate_value(self, state, player):
        return 0.0


@pytest.mark.parametrize("metric, twist, inverse", [("half", 0, 2), ("half", 4, 4), ("quarter", 0, 1)])
def test_the_inverse_of_the_last_twist_is_skipped_even_when_it_solves(metric, twist, inverse):
    g = farl_envs.game_spec("rubiks_cube", size=2, metric=metric)
    s = np.zeros(g.state_size, dtype=np.int32)
    s[3:] = np.arange(24)
    g.afterstate(g.p, s, twist, s, np.zeros(1))
    s[2] = 0  # the scrambled start: no twist played yet
    assert greedy_no_undo(_FlatAgent(), g, s, -1, make_rng(1)) == inverse  # free first twist: the solving one
    for seed in range(20):  # with the last twist known, its inverse is never chosen (ties drawn among the rest)
        assert greedy_no_undo(_FlatAgent(), g, s, twist, make_rng(seed)) != inverse


def test_no_undo_needs_a_bare_ntuple_agent():
    g = farl_envs.game_spec("rubiks_cube", size=2, metric="half")
    with pytest.raises(ValueError, match="no-undo"):
        solve_rate(make_opponent("random", g), 2, "half", 1, 1, 5, no_undo=True)


@pytest.mark.parametrize("learn_start, expected", [(True, 0.96), (False, 0.0)])
def test_learn_start_trains_the_scrambled_start_from_the_first_twist(learn_start, expected):
    """One episode on a cube one twist from solved: the greedy first twist solves it (+1 - 0.04). Only with
    ``learn_start`` (GBG's learner) does anything learn, V(start) -> 0.96 at α = 1 (the one update is split over
    the m tuples); farl's default learner has no afterstate before the solving twist."""
    from farl_agents.learners.agent import NTupleAgent
    from farl_agents.learners.config import LearnerConfig

    g = farl_envs.game_spec("rubiks_cube", size=2, metric="half", scramble_max=1)
    cfg = LearnerConfig(alpha=1.0, alpha_final=1.0, epsilon=0.0, lam=0.0, tanh_output=False, farl_terminal=False,
                        ntuples="random-walk", ntuple_count=3, ntuple_length=4, episodes=1, learn_start=learn_start)
    agent = NTupleAgent(g, cfg)
    agent.train(1)
    solved = np.zeros(g.state_size, dtype=np.int32)
    solved[3:] = np.arange(24)
    after, values = np.zeros_like(solved), []
    for a in range(g.n_actions):  # the start is one of the nine cubes one twist from solved
        g.afterstate(g.p, solved, a, after, np.zeros(1))
        after[1], after[2] = 0, 0
        values.append(agent.afterstate_value(after, 0))
    assert max(values) == pytest.approx(expected)
    with pytest.raises(ValueError, match="learn_start"):
        LearnerConfig(algo="sarsa", learn_start=True)


def test_gbg_quarter_turn_scrambles_may_undo_a_twist_and_farls_never_do():
    """Three quarter twists one twist from solved: farl's scrambles only by U U U (a face turned thrice, 1/25),
    GBG's as coded far more often (an L, L', F or F' may be undone by the next twist)."""
    from studies.rubiks.solve_rates import gbg_scramble

    g = farl_envs.game_spec("rubiks_cube", size=2, metric="quarter", scramble_min=3, scramble_max=3)
    after, rewards = np.zeros(g.state_size, dtype=np.int32), np.zeros(1)

    def one_twist_from_solved(s):
        for a in range(g.n_actions):
            g.afterstate(g.p, s, a, after, rewards)
            if rewards[0] > 0:
                return True
        return False

    n = 400
    gbg = sum(one_twist_from_solved(gbg_scramble(g, 3, make_rng(k))) for k in range(n)) / n
    farl = sum(one_twist_from_solved(g.initial_state(g.p, make_rng(k))) for k in range(n)) / n
    assert farl < 0.08 < 0.15 < gbg
