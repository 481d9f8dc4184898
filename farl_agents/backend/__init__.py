"""One way to run many long tasks (training runs, evaluations) for every command: ``run_tasks``.

``farl reproduce table1``, and the other long experiments as they move here,
hand a picklable module-level function and a list of task dicts to
:func:`run_tasks` and get the results back in completion order:

* ``backend="local"``: ``jobs`` worker processes of this machine; tasks
  read and write their run folders in place (:mod:`~farl_agents.backend.local`);
* ``backend="ray"``: Ray tasks on a local Ray instance, or on an existing
  cluster (``ray_address``: ``auto`` or ``HOST:PORT``; else ``RAY_ADDRESS``).
  Tasks run in scratch folders of their nodes and their files come home to the
  driver's run folders, atomically, checkpoints included while they run
  (:mod:`~farl_agents.backend.ray_cluster`, :mod:`~farl_agents.backend.shipping`,
  :mod:`~farl_agents.backend.transfer`); see docs/cluster.md.

A task is a dict; the values under ``folder_keys`` (default ``folder`` and
``publish``; None skips one) are the folders it works in. ``fn(task)`` must
return a dict with a ``status`` (``done``, ``cached``, ``interrupted`` or
``failed``); a task that could not report one (its worker died, its retries
ran out) comes back as ``{**task, "status": "failed", "error": ...}``, and one
never started after a Ctrl-C as ``{**task, "status": "interrupted"}`` or not
at all (callers count missing results as interrupted).
"""
from __future__ import annotations

from farl_agents.backend.local import run_local
from farl_agents.backend.ray_cluster import run_ray
from farl_agents.backend.shipping import STREAM_SECONDS

BACKENDS = ("local", "ray")
FOLDER_KEYS = ("folder", "publish")

__all__ = ["BACKENDS", "FOLDER_KEYS", "STREAM_SECONDS", "run_tasks"]


def run_tasks(fn, tasks: list, *, backend: str = "local", jobs: int = 1, ray_address: str | None = None,
              progress: bool = True, log=print, desc: str = "runs", describe=None,
              folder_keys=FOLDER_KEYS, stream_seconds: float = STREAM_SECONDS) -> list:
    """Run ``fn(task)`` for every task on ``backend``; the results in completion order.

    ``describe(result)`` is the progress bar's text for a finished task
    (default: its status). ``stream_seconds``: how often a Ray task sends a
    new checkpoint home.
    """
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; use one of {', '.join(BACKENDS)}")
    if jobs < 1:
        raise ValueError("--jobs must be >= 1")
    if ray_address is not None and backend != "ray":
        raise ValueError("--ray-address needs --backend ray")
    bar = _bar(len(tasks), progress, desc)
    describe = describe or (lambda r: r["status"])

    def report(r: dict) -> None:
        if bar is not None:
            bar.update(1)
            bar.set_postfix_str(describe(r))

    try:
        if backend == "local":
            return run_local(fn, tasks, jobs, report, log)
        return run_ray(fn, tasks, jobs, ray_address, folder_keys, report, log, stream_seconds=stream_seconds)
    finally:
        if bar is not None:
            bar.close()


def _bar(total: int, progress: bool, desc: str):
    if not progress:
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit="run", desc=desc, dynamic_ncols=True)
