"""The baselines' default evaluation opponents; runs without the ``baselines`` extra (torch, SB3).

The SB3 comparison of Connect Four once listed its opponents behind a check
that was never true, so the perfect player never appeared in
``docs/results/compare_connect_four.md``. These tests pin the list.
"""
import subprocess
import sys

import farl_envs
from farl_agents.baselines.train import Evaluator, eval_opponents
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
            "from farl_agents.baselines.train import eval_opponents\n"
            "assert 'ab' in eval_opponents(farl_envs.game_spec('connect_four'))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
