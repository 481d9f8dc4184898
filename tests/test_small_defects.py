"""`farl train` mistakes and damaged run folders: one line and exit code 2, never a traceback or a silent surprise.

* ``--eval-every inf`` (and other infinite or negative curve spacings);
* ``--ntuple-cells`` without ``--ntuples explicit`` (the cells imply an explicit set; with another set named
  they are refused);
* a damaged ``checkpoint.json`` (fields of the wrong type, a list instead of a table, a file name outside
  the run folder, nesting bombs).
"""
from __future__ import annotations

import json

import pytest

from farl_agents import cli
from farl_agents.learners import paper_config
from farl_agents.runs import Run, RunError, RunSpec


def farl(*args) -> int:
    return cli.main([str(a) for a in args])


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert err.startswith("farl: error:") and "\n" not in err, err
    return err


@pytest.mark.parametrize("every", ["inf", "-inf", "nan", "-5"])
@pytest.mark.parametrize("algo", ["td-farl", "descent"])
def test_eval_every_must_be_a_finite_number(tmp_path, capsys, every, algo):
    assert farl("train", "tictactoe", "--algo", algo, "--eval-every", every, "--quiet", "--out", tmp_path / "r") == 2
    assert "--eval-every" in one_line_error(capsys)
    assert not (tmp_path / "r").exists()


def test_a_fractional_eval_every_of_a_counted_run_trains_in_whole_chunks(tmp_path):
    """A run counting episodes with ``eval_every`` 2.5 puts its curve points at whole episodes (3, 6, 9, 10):
    at 2.5 the point after 2 was half an episode away and every chunk until 3 was one episode (a 200,000-episode
    run given eval_every = total / 4 took minutes instead of seconds)."""
    spec = RunSpec("tictactoe", {}, paper_config("tictactoe", seed=0).replace(episodes=10), eval_every=2.5)
    assert spec.curve_points(10) == [0, 3, 6, 9, 10]
    run = Run.create(tmp_path / "r", spec)
    assert run.train(progress=False) == "done"
    assert [row["episode"] for row in run.rows] == [0, 3, 6, 9, 10]
    assert RunSpec("tictactoe", {}, spec.config, eval_every=2.5).curve_points(10.0) == [0, 2.5, 5.0, 7.5, 10.0]


@pytest.mark.parametrize("how", [["--ntuple-cells", "[[0,1,2],[3,4,5]]"], ["--config", "c.toml"]])
def test_ntuple_cells_alone_imply_an_explicit_set(tmp_path, monkeypatch, how):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.toml").write_text("ntuple_cells = [[0, 1, 2], [3, 4, 5]]\n")
    out = tmp_path / "r"
    assert farl("train", "tictactoe", *how, "--episodes", 20, "--quiet", "--out", out) == 0
    config = json.loads((out / "run.json").read_text())["config"]
    assert config["ntuples"] == "explicit" and config["ntuple_cells"] == [[0, 1, 2], [3, 4, 5]]


def test_ntuple_cells_off_the_board_are_refused_even_without_ntuples_explicit(tmp_path, capsys):
    assert farl("train", "tictactoe", "--ntuple-cells", "[[99]]", "--episodes", 20, "--quiet",
                "--out", tmp_path / "r") == 2
    assert "cells must be in 0..8" in one_line_error(capsys)
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("how", [["--ntuples", "random-walk"], ["--set", "ntuples=fixed"], ["--config", "c.json"]])
def test_ntuple_cells_with_another_set_named_are_refused(tmp_path, capsys, monkeypatch, how):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.json").write_text(json.dumps({"ntuples": "random-walk"}))
    assert farl("train", "tictactoe", *how, "--ntuple-cells", "[[0,1,2]]", "--episodes", 20, "--quiet",
                "--out", tmp_path / "r") == 2
    err = one_line_error(capsys)
    assert "ntuple" in err and "explicit" in err


@pytest.fixture(scope="module")
def stopped_run(tmp_path_factory):
    """A TicTacToe run stopped half-way (its checkpoint.json is what the tests damage)."""
    folder = tmp_path_factory.mktemp("run") / "r"
    spec = RunSpec("tictactoe", {}, paper_config("tictactoe", episodes=100), eval_every=25)
    Run.create(folder, spec).train(stop_after=50, progress=False)
    return folder


def _with_marker(stopped_run, tmp_path, change):
    import shutil

    folder = tmp_path / "copy"
    shutil.copytree(stopped_run, folder)
    path = folder / "checkpoint.json"
    marker = json.loads(path.read_text())
    marker = change(marker)
    path.write_text(marker if isinstance(marker, str) else json.dumps(marker))
    return folder


def _set(key, value):
    return lambda m: {**m, key: value}


@pytest.mark.parametrize("what,change", [
    ("rows as text", _set("rows", "abc")),
    ("rows of numbers", _set("rows", [1, 2])),
    ("a row without its progress", lambda m: {**m, "rows": [{"train_seconds": 0.0}]}),
    ("a row with text progress", lambda m: {**m, "rows": [{**m["rows"][0], "episode": "ten"}]}),
    ("pending null", _set("pending", None)),
    ("pending with text", lambda m: {**m, "pending": {**m["pending"], "episodes": "x"}}),
    ("a list", lambda m: []),
    ("a number", lambda m: 7),
    ("wall seconds as text", _set("wall_seconds", "soon")),
    ("files not a list", _set("files", "checkpoints/a.npz")),
    ("a file outside the run", _set("files", ["../../elsewhere.npz"])),
    ("done as text", _set("done", "half")),
    ("deep nesting", lambda m: "[" * 100_000 + "]" * 100_000),
    ("not JSON", lambda m: "{rows: "),
])
def test_a_damaged_checkpoint_marker_is_one_clear_error(stopped_run, tmp_path, capsys, what, change):
    folder = _with_marker(stopped_run, tmp_path, change)
    with pytest.raises(RunError, match="checkpoint"):
        Run.open(folder)
    assert farl("train", "--resume", folder, "--quiet") == 2
    err = one_line_error(capsys)
    assert str(folder) in err and "checkpoint" in err


def test_the_untouched_marker_resumes(stopped_run, tmp_path):
    folder = _with_marker(stopped_run, tmp_path, lambda m: m)
    run = Run.open(folder)
    assert run.trainer.episodes == 50 and [r["episode"] for r in run.rows] == [0, 25, 50]
    assert run.train(progress=False) == "done"
