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
