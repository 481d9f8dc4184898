"""Tasks that run away from their run folders: the worker side and the driver side of the transfer.

The driver owns the run folders. A shipped task (:func:`run_shipped`, on any
node) asks the driver's :class:`Home` for the current files of each of its
folders, works on copies in a scratch folder of its node, pushes every new
consistent checkpoint home while it runs (every ``stream_seconds``) and
returns the rest of its changes with its result (:func:`bring_home` writes
them). A task that starts again after its node died therefore fetches the
last checkpoint that came home and resumes from there: runs are
deterministic across a resume (:mod:`farl_agents.runs.run`), so the result is
the one an uninterrupted run gives.

:class:`Home` is plain Python: the Ray backend runs it as an actor on the
driver's node, the tests call it in-process.
"""
from __future__ import annotations

import json
import os
import signal
import tempfile
import threading
from pathlib import Path

from farl_agents.backend.transfer import apply_delta, diff, read_folder, remove_tree, snapshot, write_folder

STREAM_SECONDS = 60.0
"""How often a shipped task looks for a new checkpoint to send home."""


class Home:
    """The driver's side of the transfer: reads and writes the run folders on the driver's disk.

    Folders are absolute paths on the driver's machine. ``stop`` is the
    driver's Ctrl-C, relayed to the tasks that poll :meth:`stop_requested`.
    """

    def __init__(self):
        self.stop = False
        self.pushed = 0
        """Deltas received so far (the tests check that streaming happened)."""

    def fetch(self, folder: str) -> dict:
        return read_folder(folder)

    def push(self, folder: str, delta) -> None:
        apply_delta(folder, delta)
        self.pushed += 1

    def request_stop(self) -> None:
        self.stop = True

    def stop_requested(self) -> bool:
        return self.stop

    def pushes(self) -> int:
        return self.pushed


def folders_of(task: dict, folder_keys) -> dict:
    """``{key: absolute folder}`` for the keys of ``task`` that name a folder (None values are skipped)."""
    return {k: str(Path(task[k]).resolve()) for k in folder_keys if task.get(k) is not None}


def progress_of(files: dict):
    """The progress recorded by the checkpoint marker among ``files`` (None: no checkpoint)."""
    marker = files.get("checkpoint.json")
    return None if marker is None else json.loads(marker).get("done")


class _Streamer(threading.Thread):
    """Sends each new consistent checkpoint of the scratch folders home; relays the driver's stop."""

    def __init__(self, scratch: dict, homes: dict, base: dict, push, every: float, stop_requested, on_stop):
        super().__init__(daemon=True, name="farl-checkpoint-stream")
        self.scratch, self.homes, self.base, self.push = scratch, homes, base, push
        self.every, self.stop_requested, self.on_stop = every, stop_requested, on_stop
        self.finished = threading.Event()

    def send_new_checkpoints(self) -> None:
        for key, folder in self.scratch.items():
            files = snapshot(folder)
            if files is None or files.get("checkpoint.json") == self.base[key].get("checkpoint.json"):
                continue  # no consistent state now, or no new checkpoint since the last push
            self.push(self.homes[key], diff(self.base[key], files))
            self.base[key] = files

    def run(self) -> None:
        stopping = False
        while not self.finished.wait(self.every):
            try:
                self.send_new_checkpoints()
                if not stopping and self.stop_requested is not None and self.stop_requested():
                    stopping = True
                    if self.on_stop is not None:
                        self.on_stop()
            except Exception:  # noqa: BLE001 - a failed push is retried at the next period; the result still comes home
                continue

    def close(self) -> None:
        self.finished.set()
        self.join()


def interrupt_main_thread() -> None:
    """Ask the task to stop as Ctrl-C does (a run checkpoints and returns ``interrupted``)."""
    os.kill(os.getpid(), signal.SIGINT)


def run_shipped(fn, task: dict, folder_keys, fetch, push, stream_seconds: float = STREAM_SECONDS,
                stop_requested=None, on_stop=None, scratch_root=None) -> dict:
    """Run ``fn(task)`` on copies of the task's folders in a scratch folder of this node.

    ``fetch(folder) -> files`` and ``push(folder, delta)`` reach the driver's
    :class:`Home`. Returns the envelope :func:`bring_home` unpacks:
    ``{"result", "deltas": {folder: FolderDelta}, "started_from": {folder: progress}}``.
    A task started after the driver asked to stop returns ``interrupted`` at once.
    """
    homes = folders_of(task, folder_keys)
    if stop_requested is not None and stop_requested():
        return {"result": {**task, "status": "interrupted"}, "deltas": {}, "started_from": {}}
    scratch_dir = Path(tempfile.mkdtemp(prefix="farl-task-", dir=scratch_root))
    try:
        local_task, scratch, base, started = dict(task), {}, {}, {}
        for key, home in homes.items():
            files = fetch(home)
            scratch[key] = scratch_dir / key
            write_folder(scratch[key], files)
            local_task[key] = str(scratch[key])
            base[key] = files
            started[home] = progress_of(files)
        streamer = _Streamer(scratch, homes, base, push, stream_seconds, stop_requested, on_stop)
        streamer.start()
        try:
            result = fn(local_task)
        finally:
            streamer.close()
        deltas = {homes[k]: diff(base[k], read_folder(scratch[k])) for k in scratch}
        return {"result": result, "deltas": deltas, "started_from": started}
    finally:
        remove_tree(scratch_dir)


def bring_home(envelope: dict) -> dict:
    """Write a shipped task's remaining changes into the driver's folders; return the task's result."""
    for folder, delta in envelope["deltas"].items():
        if delta:
            apply_delta(folder, delta)
    return envelope["result"]


def resumed(envelope: dict) -> dict:
    """``{folder: progress}`` of the folders whose task started from a checkpoint that had come home."""
    return {f: p for f, p in envelope["started_from"].items() if p}
