"""farl_agents.backend: tasks that run away from their run folders and whose files come home.

The fast tests use a fake in-process backend: the task runs on copies in
another temporary folder (as on another node without a shared disk) and talks
to an in-process :class:`Home`. The cluster test builds a real two-node Ray
cluster on this machine, runs ``farl reproduce table1 --backend ray
--ray-address ...`` on it, kills one node's raylet during the run and checks
the table and the agents against a local run (it skips where Ray is not
installed).
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from farl_agents.backend import run_tasks, transfer
from farl_agents.backend.shipping import Home, bring_home, resumed, run_shipped
from farl_agents.backend.transfer import FolderDelta, apply_delta, diff, read_folder, snapshot
from farl_agents.evaluate import evaluate
from farl_agents.learners import NTupleAgent, paper_config


# ---------------------------------------------------------------- a small run-like task
def toy_run(task: dict) -> dict:
    """A resumable 'training run' in ``task["folder"]`` with the layout of farl_agents.runs.

    Its state after ``steps`` steps is a hash chain from the seed; every step
    writes ``checkpoints/agent-<step>.bin``, then ``checkpoint.json`` naming it
    (the marker), then drops the older file. It resumes from the marker. With
    ``die_after`` it raises once that step's checkpoint has reached
    ``task["home"]`` (a node dying after its checkpoint came home).
    """
    folder = Path(task["folder"])
    folder.mkdir(parents=True, exist_ok=True)
    if (folder / "result.json").exists():
        return {**json.loads((folder / "result.json").read_text()), "status": "cached"}
    marker = folder / "checkpoint.json"
    if marker.exists():
        m = json.loads(marker.read_text())
        step, state = m["step"], (folder / m["files"][0]).read_bytes()
    else:
        transfer._write_atomic(folder / "run.json", json.dumps({"seed": task["seed"]}).encode())
        step, state = 0, str(task["seed"]).encode()
    first = step
    while step < task["steps"]:
        state = hashlib.sha256(state).digest()
        step += 1
        name = f"checkpoints/agent-{step:04d}.bin"
        transfer._write_atomic(folder / name, state)
        transfer._write_atomic(folder / "curve.csv", "".join(f"{i}\n" for i in range(step + 1)).encode())
        transfer._write_atomic(marker, json.dumps({"step": step, "done": step, "files": [name]}).encode())
        for old in (folder / "checkpoints").glob("agent-*"):
            if old.name != name.split("/")[1]:
                old.unlink()
        if task.get("die_after") == step:
            home_marker = Path(task["home"]) / "checkpoint.json"
            for _ in range(1000):  # the stream sends it within a few of its 10 ms periods
                if home_marker.exists() and json.loads(home_marker.read_text())["step"] == step:
                    break
                time.sleep(0.01)
            raise RuntimeError("the node died")
    result = {"seed": task["seed"], "agent": state.hex(), "steps_here": step - first}
    transfer._write_atomic(folder / "result.json", json.dumps(result).encode())
    return {**result, "status": "done"}


def fake_remote(fn, task, home: Home, node_tmp: Path, stream_seconds: float = 0.01) -> dict:
    """A fake backend: ``fn(task)`` shipped to 'another node' (``node_tmp``), results brought home."""
    node_tmp.mkdir(parents=True, exist_ok=True)
    envelope = run_shipped(fn, task, ("folder",), home.fetch, home.push, stream_seconds=stream_seconds,
                           stop_requested=home.stop_requested, scratch_root=node_tmp)
    return envelope


def folder_bytes(folder: Path) -> dict:
    return read_folder(folder)


# ---------------------------------------------------------------- transfer
def test_diff_then_apply_turns_one_folder_into_the_other(tmp_path):
    old, new = tmp_path / "old", tmp_path / "new"
    transfer.write_folder(old, {"a.txt": b"1", "checkpoints/agent-1.bin": b"x", "keep": b"same"})
    transfer.write_folder(new, {"a.txt": b"2", "checkpoints/agent-2.bin": b"y", "keep": b"same", "b/c": b"z"})
    delta = diff(read_folder(old), read_folder(new))
    assert set(delta.files) == {"a.txt", "checkpoints/agent-2.bin", "b/c"}  # "keep" did not change: not sent
    assert delta.removed == ["checkpoints/agent-1.bin"]
    apply_delta(old, delta)
    assert read_folder(old) == read_folder(new)
    assert not diff(read_folder(old), read_folder(new))


def test_lock_and_temporary_files_are_not_shipped(tmp_path):
    transfer.write_folder(tmp_path, {"run.json": b"{}", ".lock": b"123 host", ".curve.csv.abc.tmp": b"half"})
    assert set(read_folder(tmp_path)) == {"run.json"}


def test_shipped_paths_must_stay_in_the_run_folder(tmp_path):
    for bad in ("../escape", "/etc/x", "a/../../b"):
        with pytest.raises(ValueError, match="inside the run folder"):
            apply_delta(tmp_path / "run", FolderDelta({bad: b"x"}, []))
    assert not (tmp_path / "escape").exists()


def test_markers_are_written_after_the_files_and_deletions_come_last(tmp_path, monkeypatch):
    folder = tmp_path / "run"
    transfer.write_folder(folder, {"checkpoints/agent-1.bin": b"1",
                                   "checkpoint.json": b'{"files": ["checkpoints/agent-1.bin"]}'})
    events = []
    real_replace, real_unlink = os.replace, Path.unlink
    monkeypatch.setattr(os, "replace", lambda a, b: (events.append(("write", Path(b).name)),
                                                     real_replace(a, b)))
    monkeypatch.setattr(Path, "unlink", lambda self, missing_ok=False: (events.append(("delete", self.name)),
                                                                        real_unlink(self, missing_ok=missing_ok)))
    delta = FolderDelta({"result.json": b"{}", "checkpoint.json": b'{"files": ["checkpoints/agent-2.bin"]}',
                         "checkpoints/agent-2.bin": b"2", "curve.csv": b"0\n"}, ["checkpoints/agent-1.bin"])
    apply_delta(folder, delta)
    assert events == [("write", "agent-2.bin"), ("write", "curve.csv"), ("write", "checkpoint.json"),
                      ("write", "result.json"), ("delete", "agent-1.bin")]


def test_a_crash_while_writing_a_delta_leaves_the_previous_checkpoint_usable(tmp_path, monkeypatch):
    folder = tmp_path / "run"
    old_marker = b'{"files": ["checkpoints/agent-1.bin"]}'
    transfer.write_folder(folder, {"checkpoints/agent-1.bin": b"1", "checkpoint.json": old_marker})
    real_replace = os.replace

    def dies_at_the_marker(src, dst):
        if Path(dst).name == "checkpoint.json":
            raise KeyboardInterrupt  # the driver killed between the files and the marker
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", dies_at_the_marker)  # every atomic write ends in os.replace
    with pytest.raises(KeyboardInterrupt):
        apply_delta(folder, FolderDelta({"checkpoints/agent-2.bin": b"2",
                                         "checkpoint.json": b'{"files": ["checkpoints/agent-2.bin"]}'},
                                        ["checkpoints/agent-1.bin"]))
    files = read_folder(folder)
    assert files["checkpoint.json"] == old_marker and files["checkpoints/agent-1.bin"] == b"1"
    assert not [p for p in folder.rglob("*.tmp")]  # the temporary marker was removed


def test_snapshot_refuses_a_marker_whose_files_are_missing(tmp_path):
    transfer.write_folder(tmp_path, {"checkpoint.json": b'{"files": ["checkpoints/agent-9.bin"]}'})
    assert snapshot(tmp_path, attempts=2, wait=0.0) is None
    transfer.write_folder(tmp_path, {"checkpoints/agent-9.bin": b"9"})
    assert set(snapshot(tmp_path, attempts=1, wait=0.0)) == {"checkpoint.json", "checkpoints/agent-9.bin"}


# ---------------------------------------------------------------- shipped tasks
def test_a_shipped_task_works_elsewhere_and_its_folder_comes_home_identical(tmp_path):
    in_place = tmp_path / "in_place"
    direct = toy_run({"folder": str(in_place), "seed": 3, "steps": 20})
    home_folder = tmp_path / "driver" / "run"
    seen = []

    def spy(task):
        seen.append(task["folder"])
        return toy_run(task)

    envelope = fake_remote(spy, {"folder": str(home_folder), "seed": 3, "steps": 20}, Home(), tmp_path / "node2")
    # before bring_home the driver's folder holds only what the stream pushed: a consistent checkpoint (the
    # stream may already have carried the finished state, result.json included, when the task ended quickly)
    assert not home_folder.exists() or snapshot(home_folder, attempts=1, wait=0.0) is not None
    result = bring_home(envelope)
    assert Path(seen[0]).is_relative_to(tmp_path / "node2")
    assert result["agent"] == direct["agent"]
    assert folder_bytes(home_folder) == folder_bytes(in_place)
    assert list((tmp_path / "node2").iterdir()) == []  # the scratch folder is cleaned up


def test_a_task_retried_after_its_node_died_resumes_from_the_checkpoint_that_came_home(tmp_path):
    uninterrupted = toy_run({"folder": str(tmp_path / "plain"), "seed": 5, "steps": 30})
    home_folder = tmp_path / "driver" / "run"
    home = Home()
    task = {"folder": str(home_folder), "seed": 5, "steps": 30, "die_after": 12, "home": str(home_folder)}
    with pytest.raises(RuntimeError, match="node died"):
        fake_remote(toy_run, task, home, tmp_path / "node2")
    assert json.loads((home_folder / "checkpoint.json").read_text())["step"] == 12
    assert home.pushes() >= 1
    retry = {**task, "die_after": None}  # Ray runs the same task again, on another node
    envelope = fake_remote(toy_run, retry, home, tmp_path / "node1")
    assert resumed(envelope) == {str(home_folder.resolve()): 12}
    result = bring_home(envelope)
    assert result["steps_here"] == 18  # resumed, not restarted
    assert result["agent"] == uninterrupted["agent"]
    here, there = folder_bytes(home_folder), folder_bytes(tmp_path / "plain")
    assert here.pop("result.json") != there.pop("result.json")  # only its steps_here differs
    assert here == there


def test_a_task_queued_when_the_driver_stopped_does_not_start(tmp_path):
    home = Home()
    home.request_stop()
    envelope = fake_remote(toy_run, {"folder": str(tmp_path / "run"), "seed": 1, "steps": 3}, home, tmp_path / "n")
    assert bring_home(envelope)["status"] == "interrupted"
    assert not (tmp_path / "run").exists()


# ---------------------------------------------------------------- run_tasks
def test_run_tasks_local_runs_every_task_in_place(tmp_path):
    tasks = [{"folder": str(tmp_path / f"s{s}"), "seed": s, "steps": 4} for s in range(3)]
    results = run_tasks(toy_run, tasks, backend="local", jobs=1, progress=False)
    assert [r["seed"] for r in results] == [0, 1, 2] and {r["status"] for r in results} == {"done"}
    again = run_tasks(toy_run, tasks, backend="local", jobs=1, progress=False)
    assert {r["status"] for r in again} == {"cached"}


def test_jobs_are_checked_once_and_local_workers_capped(monkeypatch):
    from farl_agents.backend import jobs

    for bad in (0, -1, 1025, 100_000, 2.0, "4", True, None):
        with pytest.raises(ValueError, match=r"--jobs must be an integer in 1\.\.1024"):
            jobs.check_jobs(bad)
    assert jobs.check_jobs(np.int64(3)) == 3 and jobs.check_jobs(1024) == 1024
    monkeypatch.setattr(jobs, "cpus", lambda: 4)
    assert [jobs.local_workers(j, t) for j, t in ((1, 10), (8, 10), (8, 3), (1024, 100), (3, 0))] == [1, 4, 3, 4, 1]


def test_run_tasks_rejects_bad_settings():
    with pytest.raises(ValueError, match="local, ray"):
        run_tasks(toy_run, [], backend="spark")
    with pytest.raises(ValueError, match="--jobs"):
        run_tasks(toy_run, [], jobs=0)
    with pytest.raises(ValueError, match="--jobs"):
        run_tasks(toy_run, [], jobs=5000)
    with pytest.raises(ValueError, match="--backend ray"):
        run_tasks(toy_run, [], backend="local", ray_address="auto")


class _FailsOnItsThirdMove:
    """A player that raises in a worker, as a broken agent would."""

    name = "fails"

    def __init__(self):
        self.moves = 0

    def reset(self):
        self.moves = 0

    def act(self, game, state, rng):
        self.moves += 1
        if self.moves == 3:
            raise ArithmeticError("broken agent")
        from farl_agents.players import legal_mask

        return int(np.flatnonzero(legal_mask(game, state))[0])


def test_an_evaluation_on_local_workers_raises_what_a_game_raised():
    with pytest.raises(ArithmeticError, match="broken agent"):
        evaluate("tictactoe", _FailsOnItsThirdMove(), ["random"], n_games=4, jobs=2)


def test_joining_a_cluster_passes_no_resource_arguments(monkeypatch):
    """Issue 24 item 1, without Ray: connect() joins --ray-address, else RAY_ADDRESS, with no resource
    arguments (Ray refuses them when connecting); only without either does it start a local instance."""
    from farl_agents.backend.ray_cluster import connect

    class FakeRay:
        def __init__(self):
            self.calls = []

        def is_initialized(self):
            return False

        def init(self, **kw):
            self.calls.append(kw)

        def cluster_resources(self):
            return {"CPU": 16.0}

        def nodes(self):
            return [{}, {}]

    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    logs, ray = [], FakeRay()
    assert connect(ray, 4, "10.0.0.1:6379", logs.append)
    monkeypatch.setenv("RAY_ADDRESS", "10.0.0.2:6379")
    assert connect(ray, 4, None, logs.append)
    assert connect(ray, 4, "auto", logs.append)  # the option wins over the environment
    monkeypatch.delenv("RAY_ADDRESS")
    assert connect(ray, 4, None, logs.append)
    assert ray.calls == [{"address": "10.0.0.1:6379", "log_to_driver": False},
                         {"address": "10.0.0.2:6379", "log_to_driver": False},
                         {"address": "auto", "log_to_driver": False},
                         {"num_cpus": 4, "include_dashboard": False, "log_to_driver": False}]
    assert logs[0] == "joined the Ray cluster at 10.0.0.1:6379: 2 node(s), 16 CPU(s)"


# ---------------------------------------------------------------- a real two-node Ray cluster
def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _raylet_pids(node_manager_port: int) -> list[int]:
    """PIDs of the raylet listening on ``node_manager_port`` (the second node's)."""
    pids = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmd = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if cmd and cmd[0].endswith(b"raylet") and f"--node_manager_port={node_manager_port}".encode() in cmd:
            pids.append(int(proc.name))
    return pids


def _run_folders(out: Path, runs: int) -> list[Path]:
    from studies.table1.table1_rows import find_row, run_folder

    row = find_row("tictactoe")
    return [run_folder(out, "quick", row, farl, seed) for seed in range(runs) for farl in (True, False)]


def _running_there_with_a_checkpoint_home(folders: list[Path], node_tmp: Path) -> bool:
    """Whether a run trains on the second node now (its scratch folder, under that node's TMPDIR, has no result
    yet) while a checkpoint of it past episode 0 has come home (same run.json, a marker and no result at home)."""
    for scratch in node_tmp.glob("farl-task-*/folder"):
        try:
            spec = (scratch / "run.json").read_bytes()
        except OSError:
            continue
        if (scratch / "result.json").exists():
            continue
        for home in folders:
            try:
                if (home / "run.json").read_bytes() == spec and not (home / "result.json").exists() and \
                        json.loads((home / "checkpoint.json").read_text())["done"] > 0:
                    return True
            except (OSError, ValueError):  # not there yet, or being replaced
                continue
    return False


def _kill_node_when_checkpoints_came_home(folders: list[Path], port: int, node_tmp: Path, killed: list,
                                         done: threading.Event, timeout: float = 600):
    """Kill the second node's raylet while one of its runs has a checkpoint at home, then its workers too (a
    worker outliving its raylet can still hand its result over: not a dead node)."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout and not done.is_set():
        if _running_there_with_a_checkpoint_home(folders, node_tmp):
            for pid in _raylet_pids(port):
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            for pid in _pids_started_with([node_tmp]):
                os.kill(pid, signal.SIGKILL)
            return
        time.sleep(0.05)


def _curve_without_times(folder: Path) -> list[dict]:
    from farl_agents.runs import read_curve

    return [{k: v for k, v in row.items() if k not in ("train_seconds", "wall_seconds")}
            for row in read_curve(folder / "curve.csv")]


@pytest.mark.slow  # 40 s, most of it starting two Ray nodes; with test_eval_compare_and_tournament_run_as_ray_tasks
# (a private Ray instance) the Ray backend's tests run with `pytest -m slow`
def test_table1_on_a_two_node_ray_cluster_survives_a_dead_node(tmp_path, monkeypatch):
    """Issue 24 item 5, the command as a user types it: a head and a second node (each with its own temporary
    folder), ``farl reproduce table1 --rows tictactoe --budget quick --runs 2 --backend ray --ray-address
    127.0.0.1:P``, the second node's raylet killed once during the run; the table is complete, the runs resumed
    from checkpoints that had come home, the run folders hold the files and agents of a local run with the same
    seeds, and only the Ray processes the test started are stopped."""
    pytest.importorskip("ray")
    ray_cli, farl_cli = (str(Path(sys.executable).parent / name) for name in ("ray", "farl"))
    port, node_port = _free_port(), _free_port()
    # short folders: Ray's socket paths must stay under 108 characters
    head_tmp, node_tmp = (Path(tempfile.mkdtemp(prefix=f"farl-ray-{name}-", dir="/tmp")) for name in ("head", "node"))
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")  # a throw-away cluster on 127.0.0.1: no token to share
    env = dict(os.environ)
    # compile TicTacToe's TD loop and the Max-N search of its evaluation into the numba cache the Ray workers share
    # (NUMBA_CACHE_DIR, tests/conftest.py) once, here: else both workers compile them at the same time (~35 CPU s each)
    warm = NTupleAgent("tictactoe", paper_config("tictactoe", episodes=2))
    warm.train(2)
    evaluate("tictactoe", [warm], ["maxn10"], n_games=1)
    started = []
    try:
        subprocess.run([ray_cli, "start", "--head", "--port", str(port), "--num-cpus", "1", "--disable-usage-stats",
                        "--include-dashboard", "false", "--temp-dir", str(head_tmp / "ray")],
                       env={**env, "TMPDIR": str(head_tmp)}, check=True, capture_output=True, cwd=head_tmp)  # noqa: S603
        started.append(head_tmp)
        subprocess.run([ray_cli, "start", "--address", f"127.0.0.1:{port}", "--num-cpus", "1",
                        "--node-manager-port", str(node_port), "--disable-usage-stats"],
                       env={**env, "TMPDIR": str(node_tmp)}, check=True, capture_output=True, cwd=node_tmp)
        started.append(node_tmp)
        out = tmp_path / "cluster"
        folders = _run_folders(out, runs=2)
        killed, done = [], threading.Event()
        killer = threading.Thread(target=_kill_node_when_checkpoints_came_home,
                                  args=(folders, node_port, node_tmp, killed, done), daemon=True)
        killer.start()
        t0 = time.perf_counter()
        proc = subprocess.run([farl_cli, "reproduce", "table1", "--rows", "tictactoe", "--budget", "quick",  # noqa: S603
                               "--runs", "2", "--backend", "ray", "--ray-address", f"127.0.0.1:{port}",
                               "--out", str(out), "--quiet", "--stream-seconds", "0.5"],
                              env=env, capture_output=True, text=True, cwd=tmp_path, timeout=900)
        cluster_seconds = time.perf_counter() - t0
        done.set()
        killer.join()
        print(f"cluster: {cluster_seconds:.1f} s; killed raylet {killed}\n{proc.stdout}\n{proc.stderr}")
        assert proc.returncode == 0, proc.stderr
        assert killed, "the second node's raylet was never found or killed"
        assert "joined the Ray cluster at 127.0.0.1" in proc.stdout
        assert "resumed from the checkpoint" in proc.stdout  # resumed, not restarted
        table = (out / "table1_quick.md").read_text()
        ttt = next(line for line in table.splitlines() if line.startswith("| TicTacToe"))
        assert ttt.count("(2 runs)") == 2, ttt  # both cells complete

        local = tmp_path / "local"
        from farl_agents import cli

        assert cli.main(["reproduce", "table1", "--rows", "tictactoe", "--budget", "quick", "--runs", "2",
                         "--jobs", "1", "--out", str(local), "--quiet"]) == 0
        for here in folders:
            there = local / here.relative_to(out)
            assert sorted(p.relative_to(here).as_posix() for p in here.rglob("*")) == \
                sorted(p.relative_to(there).as_posix() for p in there.rglob("*"))
            with np.load(here / "agent.npz") as a, np.load(there / "agent.npz") as b:
                assert sorted(a.files) == sorted(b.files)
                for key in a.files:
                    assert a[key].dtype == b[key].dtype and a[key].tobytes() == b[key].tobytes(), key
            assert _curve_without_times(here) == _curve_without_times(there)
            mine, theirs = (json.loads((f / "result.json").read_text()) for f in (here, there))
            assert mine["scores"] == theirs["scores"] and mine["se"] == theirs["se"]
    finally:
        _stop_processes_started_with(started)
        for folder in (head_tmp, node_tmp):
            shutil.rmtree(folder, ignore_errors=True)
    assert not _pids_started_with(started)  # every process the test started is gone


def _pids_started_with(tmpdirs: list[Path]) -> list[int]:
    """The processes whose TMPDIR is one of ``tmpdirs`` (what this test's ``ray start`` calls launched)."""
    marks = {f"TMPDIR={d}".encode() for d in tmpdirs}
    pids = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit() and int(proc.name) != os.getpid():
            try:
                env = set((proc / "environ").read_bytes().split(b"\0"))
            except OSError:
                continue
            if env & marks:
                pids.append(int(proc.name))
    return pids


def _stop_processes_started_with(tmpdirs: list[Path]) -> None:
    """End the Ray processes this test started, and only those: ``ray stop`` would end every Ray process of the
    machine, so they are found by the TMPDIR their ``ray start`` gave them (workers inherit it)."""
    def ours() -> list[int]:
        return _pids_started_with(tmpdirs)

    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in ours():
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        for _ in range(50):
            if not ours():
                return
            time.sleep(0.1)


# ---------------------------------------------------------------- the other commands on the same backend
@pytest.mark.slow  # ~24 s, most of it starting Ray; the default run checks run_tasks' local path and shipping
def test_eval_compare_and_tournament_run_as_ray_tasks(tmp_path):
    """Issue 24 item 4: evaluations, `farl compare`'s runs and `farl tournament`'s variants on the Ray backend
    (a private Ray instance): the same games as one process, every run back in order, run folders at home."""
    ray = pytest.importorskip("ray")
    from farl_agents import cli
    from farl_agents.evaluate import evaluate
    from studies.compare.compare import compare

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        kw = dict(n_games=5, start_states="all-1ply", seed=3)
        here = evaluate("tictactoe", "maxn2", ["random", "mcts20"], jobs=1, **kw)
        there = evaluate("tictactoe", "maxn2", ["random", "mcts20"], jobs=2, backend="ray", **kw)
        assert [m.games for m in there.matchups] == [m.games for m in here.matchups]
        assert len(there.matchups[1].games) == 10

        out = compare("nim", budget_steps=300, runs=2, learners=["td-farl"], out_md=False, eval_points=1,
                      eval_games=2, final_games=2, verbose=False, backend="ray", jobs=2)
        records = out["results"]["td-farl"]
        assert [r["seed"] for r in records] == [0, 1] and all(r["equal_steps"]["steps"] >= 300 for r in records)

        tdir = tmp_path / "t"
        assert cli.main(["tournament", "tictactoe", "--variant", "tree:learning=tree", "--variant",
                         "terminal:learning=terminal,move_iterations=10", "--minutes", "0.01", "--depth", "1",
                         "--openings", "2", "--out", str(tdir), "--quiet", "--eval-vs", "random",
                         "--backend", "ray", "--jobs", "2"]) == 0
        for name in ("tree", "terminal"):
            assert {"run.json", "agent.npz", "curve.csv"} <= {p.name for p in (tdir / name).iterdir()}
        assert len(json.loads((tdir / "tournament.json").read_text())["variants"]) == 2
    finally:
        ray.shutdown()
