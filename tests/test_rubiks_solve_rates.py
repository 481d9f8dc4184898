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
    s[3:27] = np.arange(24)
    g.afterstate(g.p, s, twist, s, np.zeros(1))
    s[2], s[27] = 0, 0  # the scrambled start: no twist played yet
    assert greedy_no_undo(_FlatAgent(), g, s, -1, make_rng(1)) == inverse  # free first twist: the solving one
    for seed in range(20):  # with the last twist known, its inverse is never chosen (ties drawn among the rest)
        assert greedy_no_undo(_FlatAgent(), g, s, twist, make_rng(seed)) != inverse


def test_no_undo_needs_a_bare_ntuple_agent():
    g = farl_envs.game_spec("rubiks_cube", size=2, metric="half")
    with pytest.raises(ValueError, match="no-undo"):
        solve_rate(make_opponent("random", g), 2, "half", 1, 1, 5, no_undo=True)


@pytest.mark.slow  # compiles the cube's TD loop, which no default test needs otherwise (~40 CPU s)
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
    solved[3:27] = np.arange(24)
    after, values = np.zeros_like(solved), []
    for a in range(g.n_actions):  # the start is one of the nine cubes one twist from solved
        g.afterstate(g.p, solved, a, after, np.zeros(1))
        after[1], after[2], after[27] = 0, 0, 0
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


def _one_twist_from_solved(g, twist):
    """The solved cube after ``twist`` with that twist recorded as the last one played (ply 1)."""
    s = np.zeros(g.state_size, dtype=np.int32)
    s[3:27] = np.arange(24)
    g.afterstate(g.p, s, twist, s, np.zeros(1))
    return s


@pytest.mark.parametrize("allow_undo", [False, True])
def test_the_agents_own_greedy_move_follows_the_games_rule(allow_undo):
    """After U the solving twist is U'. An agent of the default cube (no undoing) never plays it, however much
    the +1 tempts it; one trained on the cube with ``allow_undo`` always does (every other twist scores -0.04)."""
    from farl_agents.learners.agent import NTupleAgent
    from farl_agents.learners.config import LearnerConfig

    g = farl_envs.game_spec("rubiks_cube", size=2, metric="half", allow_undo=allow_undo)
    agent = NTupleAgent(g, LearnerConfig(epsilon=0.0, tanh_output=False, ntuples="random-walk", ntuple_count=3,
                                         ntuple_length=4, episodes=1))
    s = _one_twist_from_solved(g, g.action_names.index("U"))
    moves = {agent.act(g, s, make_rng(seed)) for seed in range(20)}
    assert (moves == {g.action_names.index("U'")}) == allow_undo
    assert len(moves) == 1 if allow_undo else g.action_names.index("U'") not in moves and len(moves) > 3


def test_the_cube_preset_is_the_pages_command(tmp_path):
    """`--preset cube2_htm` trains what docs/results/rubiks_cube.md's command line spells out flag by flag."""
    import json

    from farl_agents import cli

    page = ["--param", "size=2", "--param", "metric=half", "--param", "scramble_max=13", "--alpha", "0.25",
            "--alpha-final", "0.25", "--epsilon", "0", "--lam", "0", "--no-tanh-output", "--ntuples", "random-walk",
            "--ntuple-count", "60", "--ntuple-length", "7", "--tcl", "none", "--episode-plies", "16",
            "--episodes", "3000000"]
    specs = []
    for name, flags in (("page", page), ("preset", ["--preset", "cube2_htm"])):
        out = tmp_path / name
        assert cli.main(["train", "rubiks_cube", *flags, "--stop-after", "0", "--quiet", "--out", str(out)]) == 0
        run = json.loads((out / "run.json").read_text())
        specs.append((run["game_params"], run["config"]))
    assert specs[0] == specs[1]
    assert specs[1][0]["allow_undo"] is False and specs[1][1]["episode_plies"] == 16


def test_a_cube_cards_lines_are_solve_rates_at_their_depths():
    """The pretrained builder's card lines for the cube: the solve-rate study's share at each planned depth,
    its binomial s.e., solved cubes as the one seat's wins."""
    import math

    from farl_agents.learners.agent import NTupleAgent
    from farl_agents.learners.config import LearnerConfig
    from studies.pretrained.build import STRENGTH_PLAN, SolveRate, measure, solve_rate_line

    assert [m.starts for m in STRENGTH_PLAN["rubiks_cube"]] == ["scramble 5", "scramble 9", "scramble 13"]
    g = farl_envs.game_spec("rubiks_cube", size=2, metric="half", scramble_max=13)
    agent = NTupleAgent(g, LearnerConfig(epsilon=0.0, tanh_output=False, ntuple_count=3, ntuple_length=4))
    line = solve_rate_line(agent, SolveRate(1, 40))
    # an untrained agent still sees the solving twist's +1: every cube one twist from solved is solved at once
    assert line["score"] == 1.0 and line["wins"] == 40 and line["mean_twists"] == 1.0 and line["se"] == 0.0
    deep = solve_rate_line(agent, SolveRate(6, 40))
    rate, _ = solve_rate(agent, 2, "half", 6, 40, 50)
    assert deep["score"] == rate < 1 and deep["se"] == pytest.approx(math.sqrt(rate * (1 - rate) / 40))
    assert deep["wins"] + deep["losses"] == 40 == deep["per_seat"][0]["games"]
    lines = measure(agent, "rubiks_cube")
    assert [(x["opponent"], x["starts"], x["metric"]) for x in lines] == [
        ("alone", f"scramble {d}", "solve_rate") for d in (5, 9, 13)]
