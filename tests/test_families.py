"""The CLI's learner-family hook (farl_agents.families): train, resume and agent files reach the family."""
import json
import sys
import types

import numpy as np
import pytest

from farl_agents import cli, families


@pytest.fixture
def toy_family(monkeypatch):
    mod = types.ModuleType("toy_family_cli")
    mod.ALGOS = ("toy",)
    mod.FORMATS = ("farl-toy-agent",)
    mod.INFO = {"toy": "a toy family for tests"}
    mod.calls = []

    def train_main(argv):
        mod.calls.append(("train", list(argv)))
        return 0

    def load_player(path, game=None):
        mod.calls.append(("load", str(path)))
        import farl_envs
        from farl_agents.players import RandomPlayer
        return RandomPlayer("toy"), farl_envs.game_spec("tictactoe")

    mod.train_main, mod.load_player = train_main, load_player
    monkeypatch.setitem(sys.modules, "toy_family_cli", mod)
    monkeypatch.setattr(families, "FAMILIES", ("toy_family_cli",))
    return mod


def test_train_with_a_family_algo_goes_to_the_family(toy_family):
    assert cli.main(["train", "tictactoe", "--algo", "toy", "--depth", "3"]) == 0
    assert toy_family.calls == [("train", ["tictactoe", "--algo", "toy", "--depth", "3"])]
    assert cli.main(["train", "tictactoe", "--algo=toy"]) == 0
    assert toy_family.calls[-1] == ("train", ["tictactoe", "--algo=toy"])


def test_resume_finds_the_family_from_run_json(toy_family, tmp_path):
    (tmp_path / "run.json").write_text(json.dumps({"algo": "toy"}))
    assert cli.main(["train", "--resume", str(tmp_path)]) == 0
    assert toy_family.calls == [("train", ["--resume", str(tmp_path)])]


def test_unknown_algo_is_still_a_one_line_error(toy_family, capsys):
    assert cli.main(["train", "tictactoe", "--algo", "nosuch"]) == 2
    err = capsys.readouterr().err
    assert "invalid choice" in err and "Traceback" not in err
    assert toy_family.calls == []


def test_agent_files_of_a_family_load_through_it(toy_family, tmp_path):
    path = tmp_path / "toy.npz"
    np.savez(path, meta=np.array(json.dumps({"format": "farl-toy-agent"})))
    player, game = cli.load_player(str(path))
    assert player.name == "toy" and game.name == "tictactoe"
    assert toy_family.calls == [("load", str(path))]
    other = tmp_path / "other.npz"
    np.savez(other, meta=np.array(json.dumps({"format": "something-else"})))
    assert families.family_for_file(other) is None
    assert families.file_format(tmp_path / "missing.npz") is None


def test_info_lists_family_algorithms(toy_family, capsys):
    assert cli.main(["info"]) == 0
    assert "a toy family for tests" in capsys.readouterr().out


def test_a_missing_family_module_is_silently_absent(monkeypatch, capsys):
    monkeypatch.setattr(families, "FAMILIES", ("farl_agents.no_such_family.cli",))
    assert families.families(warn=True) == []
    assert capsys.readouterr().err == ""
