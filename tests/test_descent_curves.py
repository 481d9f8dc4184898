"""Descent learning curves: rows on the training-time grid, resume consistency, flag errors."""
from __future__ import annotations

import json
import time

import pytest

from farl_agents import cli
from farl_agents.descent import curves as curves_mod
from farl_agents.descent import run as run_mod
from farl_agents.descent.curves import CurveSettings, read_curve
from farl_agents.descent.run import run_training
from farl_agents.descent.trainer import DescentConfig

EVERY = 0.5
CONFIG = DescentConfig(game="tictactoe", minutes=2.0 / 60, move_iterations=10, seed=1)  # T = 2 s
CURVE = CurveSettings(every_seconds=EVERY, vs="random", games=3, depth=1, seed=0)


def check_grid(rows, trainer_games, total=2.0):
    """Points 0..n-1, point k at the first game end with t >= k·S, one per grid step, the last at the end."""
    assert [r["point"] for r in rows] == list(range(len(rows)))
    assert len(rows) == round(total / EVERY) + 1
    assert rows[0]["games"] == 0 and rows[0]["train_seconds"] == 0
    for k, r in enumerate(rows):
        assert k * EVERY <= r["train_seconds"] < k * EVERY + 0.3, (k, r)
        assert 0 <= r["score"] <= 1 and r["se"] >= 0 and r["wins"] + r["draws"] + r["losses"] == 2 * CURVE.games
        assert r["opponent"] == "random"
    assert all(a["games"] < b["games"] for a, b in zip(rows, rows[1:]))
    assert rows[-1]["games"] == trainer_games


def test_curve_rows_on_a_tiny_budget_and_measuring_is_not_training_time(tmp_path, monkeypatch):
    slow = []
    real = curves_mod.measure

    def slow_measure(trainer, settings):
        time.sleep(0.4)  # a measurement slower than a grid step must not eat training time
        slow.append(trainer.elapsed)
        return real(trainer, settings)

    monkeypatch.setattr(curves_mod, "measure", slow_measure)
    tr = run_training(CONFIG, tmp_path / "run", progress=False, curve=CURVE)
    rows = read_curve(tmp_path / "run" / "curve.csv")
    check_grid(rows, tr.games)
    assert len(slow) == len(rows) and tr.elapsed < 2.0 + 0.3
    rec = json.loads((tmp_path / "run" / "run.json").read_text())
    assert rec["status"] == "done" and rec["curve"]["every_seconds"] == EVERY
    assert (tmp_path / "run" / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


class Killed(Exception):
    """Stands for a hard kill: nothing after it runs, no handler saves anything."""


def test_kill_and_resume_keeps_the_curve_consistent(tmp_path, monkeypatch):
    out = tmp_path / "run"
    real_save = run_mod._save
    calls = []

    def dying_save(*args, **kwargs):
        calls.append(1)
        if len(calls) == 5:  # initial, after point 0, slice end, after point 1, -> killed at the next slice end
            raise Killed
        real_save(*args, **kwargs)

    monkeypatch.setattr(run_mod, "_save", dying_save)
    with pytest.raises(Killed):
        run_training(CONFIG, out, progress=False, curve=CURVE)
    monkeypatch.setattr(run_mod, "_save", real_save)
    before = read_curve(out / "curve.csv")
    rec = json.loads((out / "run.json").read_text())
    assert [r["point"] for r in before] == [0, 1] and before[-1]["games"] == rec["games"]
    # a row written by a process that died before its checkpoint landed: past the resumed checkpoint
    with open(out / "curve.csv", "a") as fh:
        fh.write(f"2,{EVERY * 2 + 0.01},{10 ** 6},1.0,0.0,6,0,0,random,0.1\n")
    # resume through the CLI: the stored curve settings are used
    assert cli.main(["train", "--resume", str(out), "--no-progress"]) == 0
    rows = read_curve(out / "curve.csv")
    rec = json.loads((out / "run.json").read_text())
    check_grid(rows, rec["games"])
    assert rows[:2] == before and all(r["games"] < 10 ** 6 for r in rows)
    # resuming a finished run adds nothing
    assert cli.main(["train", "--resume", str(out), "--no-progress"]) == 0
    assert read_curve(out / "curve.csv") == rows


@pytest.mark.parametrize("flags,needle", [
    (["--eval-every-seconds", "-1"], "--eval-every-seconds must be"),
    (["--eval-every-seconds", "nan"], "--eval-every-seconds must be"),
    (["--eval-every-seconds", "soon"], "--eval-every-seconds"),
    (["--eval-vs", "nobody"], "--eval-vs nobody: unknown opponent"),
    (["--eval-vs", "bench"], "--eval-vs bench"),
    (["--eval-games", "0"], "--eval-games must be"),
    (["--eval-depth", "0"], "--eval-depth must be"),
])
def test_bad_curve_flags_give_a_one_line_error_and_no_folder(tmp_path, capsys, flags, needle):
    out = tmp_path / "run"
    assert cli.main(["train", "tictactoe", "--algo", "descent", "--out", str(out), "--no-progress", *flags]) == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and len(err.splitlines()) == 1, err
    assert not out.exists()


def test_curve_flags_on_resume_are_refused_and_zero_means_no_curve(tmp_path, capsys):
    out = tmp_path / "run"
    assert cli.main(["train", "tictactoe", "--algo", "descent", "--minutes", "0.01", "--move-iterations", "5",
                     "--eval-every-seconds", "0", "--out", str(out), "--no-progress"]) == 0
    assert not (out / "curve.csv").exists() and (out / "run.json").exists()
    capsys.readouterr()
    assert cli.main(["train", "--resume", str(out), "--eval-vs", "random"]) == 2
    err = capsys.readouterr().err.strip()
    assert "drop --eval-vs" in err and len(err.splitlines()) == 1
