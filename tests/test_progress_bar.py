"""`farl train`'s progress bar counts the run's own unit and never passes its total.

SB3's PPO trains whole rollouts (8 envs x 256 steps), so its last chunk may end
past the budget; a timed run's chunk ends a little after its time. The bar
used to count games against a total in steps, and timed runs showed
``60.061000000000014/60 [01:33<-00:00]``.
"""
from __future__ import annotations

import importlib.util
import re

import pytest

from farl_agents import cli

HAVE_SB3 = all(importlib.util.find_spec(m) for m in ("stable_baselines3", "sb3_contrib", "torch"))


def bar_counts(err: str) -> list[tuple[str, str, str]]:
    """(n, total, unit) of every bar line in stderr."""
    return re.findall(r"\| *([\d.]+)/([\d.]+) \[[^\]]*?([a-z]+)/s", err.replace("\r", "\n"))


@pytest.mark.slow  # ~5 s of PPO training; the timed bar's test stays in the default run
@pytest.mark.skipif(not HAVE_SB3, reason="needs the optional extra 'baselines'")
def test_sb3_bar_counts_steps_and_stops_at_the_budget(tmp_path, capsys):
    assert cli.main(["train", "tictactoe", "--algo", "maskable-ppo", "--timesteps", "3000", "--eval-every", "3000",
                     "--eval-vs", "random", "--eval-games", "2", "--out", str(tmp_path / "r")]) == 0
    counts = bar_counts(capsys.readouterr().err)
    assert counts, "no progress bar"
    assert all(unit == "step" and total == "3000" for _, total, unit in counts), counts
    assert counts[-1][0] == "3000"  # PPO's second rollout ends at 4,096 steps; the bar stops at its total


def test_timed_bar_shows_whole_seconds_up_to_its_total(tmp_path, capsys):
    assert cli.main(["train", "tictactoe", "--algo", "descent", "--minutes", "0.03", "--move-iterations", "8",
                     "--eval-every", "0.9", "--eval-vs", "random", "--eval-games", "2",
                     "--out", str(tmp_path / "d")]) == 0
    counts = bar_counts(capsys.readouterr().err)
    assert counts, "no progress bar"
    for n, total, unit in counts:
        assert unit == "s" and "." not in n and int(n) <= int(total) == 2, counts


def test_curve_summaries_of_every_kind_of_score_read_alike():
    from farl_agents.runs.evaluation import ALONE, describe_row

    assert describe_row({"score_maxn10": 0.5, "se_maxn10": 0.0}, ["maxn10"]) == "vs maxn10 50.0%±0.0%"
    nplayer = describe_row({"score_mcts100": 1.0, "se_mcts100": 0.0}, ["mcts100"], percent=False)
    assert nplayer == "vs mcts100 score +1.00±0.00"  # was "vs mcts100 1±0"
    assert describe_row({f"score_{ALONE}": 2480.4, f"se_{ALONE}": 310.2}, [ALONE], percent=False) == \
        "score 2,480±310"
