"""The baselines' default evaluation opponents; runs without the ``baselines`` extra (torch, SB3).

The SB3 comparison of Connect Four once listed its opponents behind a check
that was never true, so the perfect player never appeared in
``docs/results/compare_connect_four.md``. These tests pin the list.
"""
import subprocess
import sys

import pytest

import farl_envs
from farl_agents.baselines.measure import Evaluator, eval_opponents
from farl_agents.opponents import make_opponent
from farl_agents.players import RandomPlayer, check_player


def test_standard_connect_four_is_judged_against_the_perfect_players():
    game = farl_envs.game_spec("connect_four")
    assert game.params == {"rows": 6, "cols": 7}
    names = eval_opponents(game)
    assert names == ["ab", "ab-dl", "mcts200", "random"]
    for name in names:
        check_player(make_opponent(name, game), name)


def test_other_connect_four_boards_have_no_perfect_player():
    for params in ({"rows": 7, "cols": 8}, {"rows": 6, "cols": 8}):
        names = eval_opponents(farl_envs.game_spec("connect_four", **params))
        assert "ab" not in names and "ab-dl" not in names
        assert names == ["mcts200", "random"]


def test_the_evaluator_lists_the_perfect_player():
    assert Evaluator(farl_envs.game_spec("connect_four"), n_games=2).labels == ["ab", "ab-dl", "mcts200", "random"]


@pytest.mark.slow  # ~16 s, the perfect Connect Four players' search (the list: the test above)
def test_the_evaluator_plays_the_perfect_player():
    game = farl_envs.game_spec("connect_four")
    evaluator = Evaluator(game, n_games=2)
    assert evaluator.labels == ["ab", "ab-dl", "mcts200", "random"]
    scores = evaluator(RandomPlayer())
    assert set(scores) == set(evaluator.labels)
    # a random mover against the perfect player: lost games (score 0) in both seats
    assert scores["ab"][0] == 0.0 and scores["ab-dl"][0] == 0.0


def test_the_opponent_list_needs_no_torch():
    code = ("import sys; sys.modules['torch'] = None; sys.modules['stable_baselines3'] = None; "
            "sys.modules['sb3_contrib'] = None\n"
            "import farl_envs\n"
            "from farl_agents.baselines.measure import eval_opponents\n"
            "assert 'ab' in eval_opponents(farl_envs.game_spec('connect_four'))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr


def test_the_report_says_what_the_perfect_players_allow():
    from studies.compare.compare import report

    labels = ["ab", "ab-dl", "mcts200", "random"]
    row = {"steps": 100, "seconds": 1.0, "episodes": 5, "checkpoint": "steps",
           **{lb: 0.25 for lb in labels}, **{f"{lb}_se": 0.01 for lb in labels}}
    out = {"game": "connect_four", "params": {"rows": 6, "cols": 7}, "budget_steps": 100, "budget_minutes": None,
           "runs": 1, "labels": labels, "eval_games": 2, "final_games": 2, "opponent": "self-play",
           "results": {"td-farl": [{"seed": 0, "curve": [row], "equal_steps": row, "equal_time": None,
                                    "compile_seconds": 1.0}]},
           "reference": row, "seconds": 60.0, "command": "farl compare connect_four", "load": (None, None)}
    text = report(out, "x.png")
    assert "| td-farl | 100 | 1.00 | 5 | 25.0% ± 1.0 | 25.0% ± 1.0 | 25.0% ± 1.0 | 25.0% ± 1.0 |" in text
    assert "at most 50 %" in text and "delay the loss longest" in text
    out["labels"] = ["mcts200", "random"]
    assert "at most 50 %" not in report(out, "x.png")
