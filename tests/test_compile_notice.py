"""Compiling is said out loud and never counted as training (issue 39, items 1-2).

numba compiles a game's loop once (tens of CPU seconds on an empty cache) and loads it from its disk
cache afterwards. These tests fake a slow compilation by sending numba's own ``numba:compile``
events around a sleep, so they check the accounting without depending on the cache's state.
"""
from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
from numba import njit
from numba.core import event

from farl_agents.compile_notice import CompileWatch, notice
from farl_agents.learners import NTupleAgent, paper_config
from farl_agents.learners import family as ntuple_family
from farl_agents.runs import Run, RunSpec
from farl_agents.runs import run as run_module
from studies.table1 import table1

FAKE_COMPILE = 1.0
"""Seconds of a faked compilation."""


def fake_compile(seconds: float = FAKE_COMPILE) -> None:
    """What a numba compilation looks like to farl: a ``numba:compile`` event lasting ``seconds``."""
    with event.trigger_event("numba:compile", data={"dispatcher": None, "args": (), "return_type": None}):
        time.sleep(seconds)


def spec(episodes: int = 400, **plan) -> RunSpec:
    return RunSpec("tictactoe", {}, paper_config("tictactoe", episodes=episodes, seed=3),
                   **{"eval_every": episodes // 2, **plan})


def test_watch_counts_a_real_compilation_and_says_so_once():
    @njit(cache=False)
    def fresh(x):  # a function no process has compiled: numba compiles it on the first call
        return x * 2 + 1

    out = io.StringIO()
    with CompileWatch("the test loop", show="line", stream=out) as watch:
        assert fresh(20) == 41
    assert watch.compilations == 1 and watch.seconds > 0
    text = out.getvalue()
    assert text.startswith("compiling the test loop (once; cached for next time) ...\n")
    assert "compiled the test loop in" in text and text.count("\n") == 2
    again = io.StringIO()
    with CompileWatch("the test loop", show="line", stream=again) as watch:
        assert fresh(1) == 3  # compiled already: no event, no notice
    assert watch.compilations == 0 and watch.seconds == 0 and again.getvalue() == ""


def test_spinner_on_a_terminal_and_silence_when_asked():
    class Tty(io.StringIO):
        def isatty(self):
            return True

    tty = Tty()
    with CompileWatch("the spun loop", stream=tty):
        fake_compile(0.6)
    text = tty.getvalue()
    assert "\r| compiling the spun loop (once; cached for next time) 0 s" in text
    assert text.rstrip().endswith("compiled the spun loop in 1 s (cached for next time)")
    quiet = io.StringIO()
    with CompileWatch("the quiet loop", show="none", stream=quiet) as watch:
        fake_compile(0.1)
    assert quiet.getvalue() == "" and watch.seconds >= 0.1
    lines = []
    with notice("preparing", show="line", write=lines.append) as shown:
        shown.done("prepared")
    assert lines == ["preparing ...", "prepared"]


def test_compile_changes_nothing_and_loads_what_train_uses():
    agent = NTupleAgent("tictactoe", paper_config("tictactoe", episodes=50, seed=1))
    before = (agent.net.weights.copy(), agent.agent_rng.copy(), agent.env_rng.copy(), agent.episodes_done)
    agent.compile()
    assert np.array_equal(agent.net.weights, before[0]) and agent.agent_rng[0] == before[1][0]
    assert agent.env_rng[0] == before[2][0] and agent.episodes_done == before[3] == 0
    with CompileWatch() as watch:
        agent.train(5)
    assert watch.compilations == 0  # train(5) runs the very code compile() made ready
    fresh = NTupleAgent("tictactoe", paper_config("tictactoe", episodes=50, seed=1))
    fresh.train(5)
    assert np.array_equal(fresh.net.weights, agent.net.weights)


def test_training_time_leaves_out_compiling(tmp_path, monkeypatch):
    """A run whose loop takes a second to compile: the second is in the wall time and compile_seconds, not in
    train_seconds, the curve's train_seconds or the bar's clock; the same for a compile inside a chunk."""
    real_chunk = ntuple_family.Trainer.train_chunk
    calls = []

    def slow_prepare(self):
        fake_compile()
        self.agent.compile()

    def chunk_that_compiles_once(self, amount):
        calls.append(amount)
        if len(calls) == 2:
            fake_compile()
        return real_chunk(self, amount)

    monkeypatch.setattr(ntuple_family.Trainer, "prepare", slow_prepare, raising=False)
    monkeypatch.setattr(ntuple_family.Trainer, "train_chunk", chunk_that_compiles_once)
    run = Run.create(tmp_path / "r", spec(episodes=400))
    assert run.train(progress=True, chunk_seconds=0.05) == "done"
    assert run.train_seconds < FAKE_COMPILE  # 400 TicTacToe episodes take milliseconds
    assert len(calls) >= 2 and run.wall_seconds >= 2 * FAKE_COMPILE
    curve = (tmp_path / "r" / "curve.csv").read_text().splitlines()
    column = curve[0].split(",").index("train_seconds")
    assert all(float(line.split(",")[column]) < FAKE_COMPILE for line in curve[1:])
    assert run.compile_seconds >= 2 * FAKE_COMPILE


def test_resumed_run_time_only_grows(tmp_path):
    folder = tmp_path / "r"
    run = Run.create(folder, spec(episodes=600, eval_vs=("random",), eval_games=2))
    assert run.train(progress=False, stop_after=300) == "stopped"
    reported = (run.wall_seconds, run.train_seconds)  # what `farl train` prints after the session
    time.sleep(0.2)
    assert (run.wall_seconds, run.train_seconds) == reported  # the clock runs only while training
    marker = json.loads((folder / "checkpoint.json").read_text())
    assert (marker["wall_seconds"], marker["train_seconds"]) == reported
    resumed = Run.open(folder)
    assert (resumed.wall_seconds, resumed.train_seconds) == reported
    assert resumed.train(progress=False) == "done"
    assert resumed.wall_seconds > reported[0] and resumed.train_seconds >= reported[1]
    walls = [r["wall_seconds"] for r in resumed.rows]
    assert walls == sorted(walls)


def interrupt_after(seconds: float) -> threading.Timer:
    timer = threading.Timer(seconds, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    return timer


def test_ctrl_c_while_compiling_stops_at_once(tmp_path, monkeypatch):
    def endless_compile(self):
        fake_compile(30.0)

    monkeypatch.setattr(ntuple_family.Trainer, "prepare", endless_compile, raising=False)
    run = Run.create(tmp_path / "r", spec())
    timer = interrupt_after(0.3)
    t = time.perf_counter()
    try:
        status = run.train(progress=False)
    finally:
        timer.cancel()
    assert status == "interrupted" and run.interrupt_signal == signal.SIGINT
    assert time.perf_counter() - t < 2.0
    assert (tmp_path / "r" / "checkpoint.json").exists() and run.trainer.episodes == 0


def test_ctrl_c_during_an_evaluation_gives_it_up_and_the_resume_makes_it(tmp_path, monkeypatch):
    real = run_module.evaluate_agent
    slow = {"on": True}

    def slow_evaluation(*args, **kwargs):
        if slow["on"]:
            time.sleep(30.0)
        return real(*args, **kwargs)

    monkeypatch.setattr(run_module, "evaluate_agent", slow_evaluation)
    folder = tmp_path / "r"
    run = Run.create(folder, spec(eval_vs=("random",), eval_games=2))
    timer = interrupt_after(0.3)
    t = time.perf_counter()
    try:
        status = run.train(progress=False)
    finally:
        timer.cancel()
    assert status == "interrupted" and time.perf_counter() - t < 2.0 and run.rows == []
    slow["on"] = False
    resumed = Run.open(folder)
    assert resumed.train(progress=False) == "done"
    assert [r["episode"] for r in resumed.rows] == [0, 200, 400]


def test_table1_times_count_training_only(tmp_path, monkeypatch):
    real_chunk = ntuple_family.Trainer.train_chunk

    def chunk_that_compiles(self, amount):  # a loop compiled in the first chunk (no prepare step)
        if self.agent.episodes_done == 0:
            fake_compile()
        return real_chunk(self, amount)

    monkeypatch.setattr(ntuple_family.Trainer, "train_chunk", chunk_that_compiles)
    folder = tmp_path / "run"
    result = table1.run_task({"row": "tictactoe", "farl": True, "seed": 0, "budget": "smoke", "folder": str(folder),
                              "publish": None})
    assert result["status"] == "done", result
    assert result["train_seconds"] + result["eval_seconds"] < FAKE_COMPILE
    assert result["compile_seconds"] >= FAKE_COMPILE and result["wall_seconds"] >= FAKE_COMPILE


def test_one_numba_cache_per_user(tmp_path):
    """Without NUMBA_CACHE_DIR, farl puts numba's cache in FARL_CACHE_DIR/numba (else the user's cache folder),
    also when numba was imported first; NUMBA_CACHE_DIR, when set, wins."""
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "FARL_CACHE_DIR")}
    code = ("import numba, farl_agents.learners.agent as a; from numba.core import config; print(config.CACHE_DIR); "
            "a._schedule_values(0.1, 0.2, True, 0, 3, 10)")
    out = subprocess.run([sys.executable, "-c", code], env={**env, "FARL_CACHE_DIR": str(tmp_path / "farl")},
                         capture_output=True, text=True, check=True).stdout.strip()
    assert out == str(tmp_path / "farl" / "numba")
    assert list((tmp_path / "farl" / "numba").rglob("*_schedule_values*.nbi"))  # the compiled function landed there
    out = subprocess.run([sys.executable, "-c", code], env={**env, "NUMBA_CACHE_DIR": str(tmp_path / "mine")},
                         capture_output=True, text=True, check=True).stdout.strip()
    assert out == str(tmp_path / "mine")
    code = "import farl_envs, os; print(os.environ['NUMBA_CACHE_DIR'])"
    out = subprocess.run([sys.executable, "-c", code], env={**env, "XDG_CACHE_HOME": str(tmp_path / "xdg")},
                         capture_output=True, text=True, check=True).stdout.strip()
    assert out == str(tmp_path / "xdg" / "farl" / "numba")


@pytest.mark.parametrize("fast", [True, False])
def test_inlining_with_fast_copies_compiles_the_same_function(fast, monkeypatch):
    """A loop over nested ``inline="always"`` steps (the learners' shape) gives the same results with numba's
    generic scope copies and with farl's (farl_envs.numba_setup); outside a watch numba is left as it was."""
    from numba.core import ir

    monkeypatch.setenv("FARL_NUMBA_FAST_COPY", "1" if fast else "0")

    @njit(inline="always")
    def step(a, i, x):
        y = x
        for j in range(a.shape[1]):
            if a[i, j] > y:
                y = a[i, j] - y * 0.5
            else:
                y += 1.0
        return y

    @njit(inline="always")
    def two_steps(a, i, x):
        x = step(a, i, x)
        return step(a, (i + 1) % a.shape[0], x) * 0.9

    @njit
    def loop(a, n):
        x = 0.0
        for k in range(n):
            x = two_steps(a, k % a.shape[0], x)
        return x

    def by_hand(a, n):
        x = 0.0
        for k in range(n):
            for i in (k % a.shape[0], (k % a.shape[0] + 1) % a.shape[0]):
                for v in a[i]:
                    x = v - x * 0.5 if v > x else x + 1.0
            x *= 0.9
        return x

    a = np.random.default_rng(5).normal(size=(7, 5))
    expected = by_hand(a, 50)
    original = ir.Scope.__dict__.get("__deepcopy__")
    with CompileWatch() as watch:
        assert (ir.Scope.__dict__.get("__deepcopy__") is not None) == fast
        assert loop(a, 50) == pytest.approx(expected, rel=1e-12)
    assert watch.compilations == 1
    assert ir.Scope.__dict__.get("__deepcopy__") is original
