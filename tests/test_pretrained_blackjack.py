"""Blackjack's pretrained card line: the exact expected return per round (studies/pretrained/build.py,
ExactReturn), checked against the dynamic program on the basic-strategy chart."""
from __future__ import annotations

import pytest

import farl_envs
from farl_agents.opponents.blackjack import BasicStrategyPlayer, expected_return
from studies.pretrained.build import STRENGTH_PLAN, ExactReturn, exact_return_line, preset_of


class _ChartAgent:
    """The basic-strategy chart dressed as an agent (``game`` and ``act``), as the card's line reads one."""

    def __init__(self, game):
        self.game = game
        self.chart = BasicStrategyPlayer()

    def act(self, game, state, rng):
        return self.chart.act(game, state, rng)


@pytest.mark.parametrize("h17", [False, True])
def test_the_exact_line_of_the_chart_is_the_dynamic_programs_value(h17):
    """Walking the game tree through the kernels with the chart's choices gives the DP's basic-strategy value
    (two independent computations: the chart's return -0.5712 % under farl's rules, -0.7912 % with H17)."""
    g = farl_envs.game_spec("blackjack", dealer_hits_soft17=h17)
    line = exact_return_line(_ChartAgent(g))
    assert line["score"] == pytest.approx(expected_return("basic", h17), abs=1e-12)
    assert line["basic_strategy"] == pytest.approx(-0.007912 if h17 else -0.005712, abs=5e-7)
    assert line["optimal"] > line["basic_strategy"]
    assert (line["opponent"], line["starts"], line["metric"], line["se"]) == (
        "alone", ExactReturn.starts, "exact_return", 0.0)
    assert sum(s["games"] for s in line["per_seat"]) == line["wins"] + line["draws"] + line["losses"] == 0


def test_blackjacks_build_is_the_td_row_of_its_results_page():
    config, params, where = preset_of("blackjack")
    assert (config.algo, config.farl, config.ntuples, config.tanh_output) == ("td", False, "fixed", False)
    assert (config.alpha, config.alpha_final, config.epsilon, config.epsilon_final) == (0.05, 0.0005, 0.2, 0.0)
    assert params == {} and "blackjack.md" in where
    assert [type(m) for m in STRENGTH_PLAN["blackjack"]] == [ExactReturn]
