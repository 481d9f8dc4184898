"""Stopping `run_local`'s workers: a SIGTERM to the parent (`kill PID`) stops the running tasks at a safe point.

A Ctrl-C in a terminal goes to the whole process group; `kill` goes to one process. The parent passes the stop on
to its workers, or a killed `farl reproduce` would let its running trainings go on to their last episode.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from farl_agents.safety import StopRequest

TASK_SECONDS = 120.0


def wait_for_stop(task: dict) -> dict:
    """A task that works until asked to stop (as a training run does), for at most TASK_SECONDS."""
    Path(task["started"]).touch()
    with StopRequest() as stop:
        end = time.monotonic() + TASK_SECONDS
        while not stop.requested and time.monotonic() < end:
            time.sleep(0.05)
    return {**task, "status": "interrupted" if stop.requested else "done"}


PARENT = """
import json, os, signal, sys, threading, time
from pathlib import Path
sys.path.insert(0, {tests!r})
from farl_agents.backend.local import run_local
from test_backend_stop import wait_for_stop

folder = Path({folder!r})
tasks = [dict(started=str(folder / f"started{{i}}")) for i in range(3)]

def stop_when_both_run():
    while sum(Path(t["started"]).exists() for t in tasks) < 2:
        time.sleep(0.05)
    os.kill(os.getpid(), signal.SIGTERM)

threading.Thread(target=stop_when_both_run, daemon=True).start()
results = run_local(wait_for_stop, tasks, jobs=2, report=lambda r: None, log=lambda m: None)
print(json.dumps([r["status"] for r in results]))
"""


def test_a_sigterm_to_the_parent_stops_every_task(tmp_path):
    script = PARENT.format(tests=str(Path(__file__).parent), folder=str(tmp_path))
    start = time.monotonic()
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=3 * TASK_SECONDS)
    assert out.returncode == 0, out.stderr
    # the third task is cancelled, or, if the executor had already handed it to a worker, stops at once
    assert set(json.loads(out.stdout.splitlines()[-1])) == {"interrupted"}
    assert time.monotonic() - start < TASK_SECONDS


def ignore_stop(task: dict) -> dict:
    """A task that never reads a stop request (as an evaluation's games do), for TASK_SECONDS."""
    Path(task["started"]).write_text(str(os.getpid()))
    time.sleep(TASK_SECONDS)
    return {**task, "status": "done"}


ABORT = """
import os, signal, sys, threading, time
from pathlib import Path
sys.path.insert(0, {tests!r})
from farl_agents.backend.local import run_local
from test_backend_stop import ignore_stop

folder = Path({folder!r})
tasks = [dict(started=str(folder / f"started{{i}}")) for i in range(2)]

def press_ctrl_c_twice():
    while sum(Path(t["started"]).exists() for t in tasks) < 2:
        time.sleep(0.05)
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(1.0)
    os.kill(os.getpid(), signal.SIGINT)

threading.Thread(target=press_ctrl_c_twice, daemon=True).start()
run_local(ignore_stop, tasks, jobs=2, report=lambda r: None, log=lambda m: None)
"""


def test_a_second_ctrl_c_aborts_tasks_that_ignore_the_stop(tmp_path):
    script = ABORT.format(tests=str(Path(__file__).parent), folder=str(tmp_path))
    start = time.monotonic()
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=3 * TASK_SECONDS)
    assert "KeyboardInterrupt" in out.stderr and out.returncode != 0
    assert time.monotonic() - start < TASK_SECONDS / 2  # the running tasks were not waited for
    workers = [int((tmp_path / f"started{i}").read_text()) for i in range(2)]
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(Path(f"/proc/{pid}").exists() for pid in workers):
        time.sleep(0.1)
    assert not any(Path(f"/proc/{pid}").exists() for pid in workers)
