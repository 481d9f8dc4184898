"""Resumable training runs: stopped, interrupted or killed runs end with the weights of uninterrupted ones."""
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from farl_agents import cli
from farl_agents.learners import NTupleAgent, paper_config
from farl_agents.runs import Run, RunError, RunSpec, read_curve
from farl_agents.runs import run as run_module

# Nim3P with the paper's settings (TC-id, λ 0.5) and then TC-EXP with RESET traces, so that the TCL accumulators
# and the eligibility lists have to survive a checkpoint too; a second set carries traces across episodes. (Nim3P's
# compiled loops with TCL tables are the ones the README's main job and test_equivalence.py use: the suite
# compiles them once.)
GAME = "nim3p"
SETTINGS = {
    "tcl-traces": ["--tcl", "exp", "--lam", "0.5", "--trace-mode", "res"],
    "carried-traces": ["--lam", "0.5", "--carry-traces"],
    "sarsa": ["--algo", "sarsa-farl", "--lam", "0.5", "--tcl", "id"],  # act() shares the Q learner's memory
}
EPISODES = 3000


def farl(*args) -> int:
    return cli.main([str(a) for a in args])


def train_args(out, extra, *more):
    return ["train", GAME, "--preset", "paper", "--episodes", EPISODES, "--eval-every", 500,
            "--eval-vs", "random", "--eval-games", 3, "--quiet", "--out", out, *extra, *more]


def assert_same_agent(a_path, b_path):
    a, b = NTupleAgent.load(a_path), NTupleAgent.load(b_path)
    assert a.episodes_done == b.episodes_done == EPISODES
    assert np.array_equal(a.net.weights, b.net.weights)
    assert np.array_equal(a.net.tcl_n, b.net.tcl_n) and np.array_equal(a.net.tcl_a, b.net.tcl_a)
    assert np.array_equal(a.agent_rng, b.agent_rng) and np.array_equal(a.env_rng, b.env_rng)
    assert np.any(a.net.weights != 0)


def assert_same_curve(a_dir, b_dir):
    strip = lambda rows: [{k: v for k, v in r.items() if not k.endswith("_seconds")} for r in rows]  # noqa: E731
    a, b = strip(read_curve(a_dir / "curve.csv")), strip(read_curve(b_dir / "curve.csv"))
    assert [r["episode"] for r in a] == list(range(0, EPISODES + 1, 500))
    assert a == b


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """One uninterrupted run per setting."""
    base = tmp_path_factory.mktemp("reference")
    for name, extra in SETTINGS.items():
        assert farl(*train_args(base / name, extra)) == 0
    return base


@pytest.mark.parametrize("setting", list(SETTINGS))
def test_stop_after_then_resume_is_bit_identical(tmp_path, reference, setting, capsys):
    out = tmp_path / "run"
    assert farl(*train_args(out, SETTINGS[setting], "--stop-after", 1234)) == 0
    marker = json.loads((out / "checkpoint.json").read_text())
    assert marker["episodes_done"] == 1234 and not marker["finished"]
    assert "--resume" in capsys.readouterr().out
    assert farl("train", "--resume", out, "--stop-after", 2000, "--quiet") == 0  # a second stop
    assert farl("train", "--resume", out, "--quiet") == 0
    assert_same_agent(reference / setting / "agent.npz", out / "agent.npz")
    assert_same_curve(reference / setting, out)
    assert json.loads((out / "checkpoint.json").read_text())["finished"]


def test_resume_without_checkpoints_folder_uses_the_published_agent(tmp_path, reference, capsys):
    """As in a fresh clone of a repository that commits run folders but not ``checkpoints/``."""
    import shutil

    out = tmp_path / "run"
    assert farl(*train_args(out, SETTINGS["tcl-traces"], "--stop-after", 1234)) == 0
    shutil.rmtree(out / "checkpoints")
    assert farl("train", "--resume", out, "--quiet") == 0
    assert_same_agent(reference / "tcl-traces" / "agent.npz", out / "agent.npz")
    assert_same_curve(reference / "tcl-traces", out)
    # without the published copy either, --resume says what is missing, in one line
    out2 = tmp_path / "run2"
    assert farl(*train_args(out2, SETTINGS["tcl-traces"], "--stop-after", 1234)) == 0
    shutil.rmtree(out2 / "checkpoints")
    (out2 / "agent.npz").unlink()
    capsys.readouterr()
    assert farl("train", "--resume", out2) == 2
    err = capsys.readouterr().err.strip()
    assert "is missing" in err and "\n" not in err


def test_evaluations_do_not_change_training(tmp_path, reference):
    extra = SETTINGS["tcl-traces"]
    assert farl("train", GAME, "--preset", "paper", "--episodes", EPISODES, "--quiet", "--out",
                tmp_path / "noeval", *extra) == 0
    assert_same_agent(reference / "tcl-traces" / "agent.npz", tmp_path / "noeval" / "agent.npz")
    rows = read_curve(tmp_path / "noeval" / "curve.csv")
    assert "score_random" not in rows[0] and rows[-1]["train_reward"] is not None


def test_ctrl_c_writes_checkpoint_exits_130_and_resumes(tmp_path, reference, monkeypatch, capsys):
    """The first SIGINT asks for a stop at the next chunk boundary: checkpoint, exit code 130."""
    calls = {"n": 0}
    original = Run._add_training

    def add_and_interrupt(self, *stats):
        original(self, *stats)
        calls["n"] += 1
        if calls["n"] == 3:
            os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(Run, "_add_training", add_and_interrupt)
    out = tmp_path / "run"
    before = signal.getsignal(signal.SIGINT)  # default_int_handler, or SIG_IGN under a background shell
    assert farl(*train_args(out, SETTINGS["tcl-traces"])) == 130
    assert signal.getsignal(signal.SIGINT) is before  # the run put the previous handler back
    text = capsys.readouterr().out
    assert "interrupted" in text and f"farl train --resume {out}" in text
    marker = json.loads((out / "checkpoint.json").read_text())
    assert 0 < marker["episodes_done"] < EPISODES
    monkeypatch.setattr(Run, "_add_training", original)
    assert farl("train", "--resume", out, "--quiet") == 0
    assert_same_agent(reference / "tcl-traces" / "agent.npz", out / "agent.npz")
    assert_same_curve(reference / "tcl-traces", out)


def test_interrupt_during_an_evaluation_redoes_it(tmp_path, reference, monkeypatch):
    """A KeyboardInterrupt inside a curve-point evaluation keeps the state before it; resume redoes it."""
    calls = {"n": 0}
    original = run_module.evaluate_agent

    def flaky(*args, **kw):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return original(*args, **kw)

    monkeypatch.setattr(run_module, "evaluate_agent", flaky)
    out = tmp_path / "run"
    assert farl(*train_args(out, SETTINGS["tcl-traces"])) == 130
    marker = json.loads((out / "checkpoint.json").read_text())
    assert marker["episodes_done"] == 1000 and [r["episode"] for r in marker["rows"]] == [0, 500]
    assert farl("train", "--resume", out, "--quiet") == 0
    assert_same_agent(reference / "tcl-traces" / "agent.npz", out / "agent.npz")
    assert_same_curve(reference / "tcl-traces", out)


@pytest.mark.slow
def test_sigkill_mid_run_then_resume(tmp_path, reference):
    """Kill -9 a `farl train` process at an arbitrary point after its first checkpoints; resume.

    Marked slow: a fresh process compiles the learner and the resumed run trains to the end (~100 s).
    """
    out = tmp_path / "run"
    episodes = 3000
    args = [sys.executable, "-m", "farl_agents", *map(str, train_args(out, SETTINGS["tcl-traces"])),
            "--checkpoint-minutes", "0.0001", "--eval-every", "100"]
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    marker_path = out / "checkpoint.json"
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                if json.loads(marker_path.read_text())["episodes_done"] >= 200:
                    break
            except (FileNotFoundError, json.JSONDecodeError, KeyError):
                pass
            time.sleep(0.005)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL, proc.stderr.read().decode()[-2000:]
    killed_at = json.loads(marker_path.read_text())["episodes_done"]
    assert 200 <= killed_at < episodes
    assert farl("train", "--resume", out, "--quiet") == 0
    assert_same_agent(reference / "tcl-traces" / "agent.npz", out / "agent.npz")
    rows = read_curve(out / "curve.csv")
    assert [r["episode"] for r in rows] == list(range(0, EPISODES + 1, 100))


def test_resume_refuses_changed_settings_and_foreign_folders(tmp_path, reference, capsys):
    assert farl("train", "--resume", reference / "tcl-traces", "--alpha", "0.5") == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("farl: error: --resume continues") and "--alpha" in err and "\n" not in err
    assert farl("train", "--resume", tmp_path) == 2
    assert "not a farl run folder" in capsys.readouterr().err
    # a finished run resumes to "done" at once
    assert farl("train", "--resume", reference / "tcl-traces", "--quiet") == 0
    # an agent file that does not match run.json is refused
    spec = RunSpec("tictactoe", {}, paper_config("tictactoe", episodes=100))
    r = Run.create(tmp_path / "x", spec)
    r.train(stop_after=50, progress=False)
    marker = json.loads((tmp_path / "x" / "checkpoint.json").read_text())
    other = NTupleAgent("tictactoe", paper_config("tictactoe", episodes=100, seed=5))
    other.episodes_done = 50
    other.save(tmp_path / "x" / marker["agent"])
    with pytest.raises(RunError, match="does not match run.json"):
        Run.open(tmp_path / "x")


def test_run_without_checkpoint_starts_over(tmp_path):
    spec = RunSpec("tictactoe", {}, paper_config("tictactoe", episodes=300), eval_every=100)
    Run.create(tmp_path / "r", spec)  # killed before its first checkpoint
    run = Run.open(tmp_path / "r")
    assert run.trainer.episodes == 0 and run.rows == []
    assert run.train(progress=False) == "done"
    assert [r["episode"] for r in run.rows] == [0, 100, 200, 300]
    assert run.finished


def test_a_run_with_nothing_to_train_compiles_nothing(tmp_path, monkeypatch):
    """`--stop-after 0` writes the run folder without compiling the loop (on an empty cache that is ~30 s for
    nothing); its resume compiles and trains as any other."""
    compiled = []
    real = NTupleAgent.compile
    monkeypatch.setattr(NTupleAgent, "compile", lambda self: compiled.append(1) or real(self))
    out = tmp_path / "run"
    assert farl("train", "tictactoe", "--preset", "paper", "--episodes", 40, "--stop-after", 0, "--quiet",
                "--out", out) == 0
    assert compiled == [] and json.loads((out / "run.json").read_text())["config"]["episodes"] == 40
    assert farl("train", "--resume", out, "--quiet") == 0
    assert compiled == [1] and NTupleAgent.load(out / "agent.npz").episodes_done == 40
