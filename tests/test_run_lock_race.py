"""Two processes taking one run's lock at the same instant: exactly one may hold it, in every round.

Each round has its own folder, empty, holding a stale lock (a dead process's) or holding an empty lock
file (a process that died between creating the file and writing its name). Both processes wait at a
barrier, call :meth:`RunLock.acquire`, wait again while any winner still holds the lock, and report.
"""
from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys

import pytest

from farl_agents.runs import RunError
from farl_agents.safety import RunLock

ROUNDS = 1000
"""Rounds per starting state: the lock before flock let both processes in 3 to 19 of them (about 2 s in all)."""


def _racer(folders, barrier, results):
    held = []
    for folder in folders:
        lock = RunLock(folder)
        barrier.wait()
        try:
            lock.acquire()
        except RunError:
            pass
        barrier.wait()  # the other process has tried while any winner still holds the lock
        held.append(lock.held)
        lock.release()
        barrier.wait()  # released before the next round's folder is raced
    results.put((os.getpid(), held))


def _dead_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True)
    return int(done.stdout)


@pytest.mark.parametrize("start", ["free", "stale", "empty"])
def test_two_processes_racing_for_the_lock_never_both_hold_it(tmp_path, start):
    ctx = multiprocessing.get_context("fork")
    folders = []
    dead = _dead_pid()
    for i in range(ROUNDS):
        folder = tmp_path / f"r{i}"
        folder.mkdir()
        if start == "stale":
            (folder / RunLock.NAME).write_text(f"{dead} {os.uname().nodename}\n")
        elif start == "empty":
            (folder / RunLock.NAME).write_text("")
        folders.append(folder)
    barrier, results = ctx.Barrier(2, timeout=60), ctx.Queue()
    racers = [ctx.Process(target=_racer, args=(folders, barrier, results)) for _ in range(2)]
    for p in racers:
        p.start()
    reports = [results.get(timeout=120) for _ in racers]
    for p in racers:
        p.join(timeout=30)
        assert p.exitcode == 0
    both = [i for i, (a, b) in enumerate(zip(reports[0][1], reports[1][1])) if a and b]
    neither = [i for i, (a, b) in enumerate(zip(reports[0][1], reports[1][1])) if not (a or b)]
    assert not both, f"both processes held the lock in {len(both)} of {ROUNDS} rounds"
    assert not neither, f"neither process got the lock in {len(neither)} of {ROUNDS} rounds"
    assert not any((f / RunLock.NAME).exists() for f in folders)  # every winner released it


def test_a_held_lock_names_its_owner_and_a_released_one_is_free(tmp_path):
    first, second = RunLock(tmp_path), RunLock(tmp_path)
    first.acquire()
    with pytest.raises(RunError, match=f"PID {os.getpid()}"):
        second.acquire()
    first.release()
    second.acquire()
    assert second.held and (tmp_path / RunLock.NAME).read_text().split()[0] == str(os.getpid())
    second.release()
    assert not (tmp_path / RunLock.NAME).exists()
