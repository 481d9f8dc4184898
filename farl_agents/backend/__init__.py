"""One way to run many long tasks (training runs, evaluations) for every command: ``run_tasks``.

``farl reproduce table1`` (its runs), ``farl compare`` (its learner x seed
runs), ``farl tournament`` (its variants' training runs) and ``farl eval
--jobs`` (chunks of games, :func:`farl_agents.evaluate.evaluate`) hand a
picklable module-level function and a list of task dicts to :func:`run_tasks`
and get the results back in completion order; their ``--backend``,
``--ray-address`` and ``--jobs`` options mean the same everywhere
(``--jobs`` is checked by :func:`~farl_agents.backend.jobs.check_jobs`):

* ``backend="local"``: worker processes of this machine (``jobs``, at most
  one per task and per CPU); tasks read and write their run folders in place
  (:mod:`~farl_agents.backend.local`);
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

from farl_agents.backend.jobs import MAX_JOBS, check_jobs, local_workers
from farl_agents.backend.local import run_local
from farl_agents.backend.options import BACKENDS, check_backend
from farl_agents.backend.ray_cluster import run_ray
from farl_agents.backend.shipping import STREAM_SECONDS

FOLDER_KEYS = ("folder", "publish")

__all__ = ["BACKENDS", "FOLDER_KEYS", "MAX_JOBS", "STREAM_SECONDS", "check_backend", "check_jobs", "local_workers",
           "run_tasks"]


def run_tasks(fn, tasks: list, *, backend: str = "local", jobs: int = 1, ray_address: str | None = None,
              progress: bool = True, log=print, desc: str = "runs", describe=None,
              folder_keys=FOLDER_KEYS, stream_seconds: float = STREAM_SECONDS, start_method: str = "spawn",
              stoppable: bool = True, on_result=None) -> list:
    """Run ``fn(task)`` for every task on ``backend``; the results in completion order.

    ``jobs``: tasks at once on this machine (local worker processes, capped at
    the tasks and the CPUs; the CPUs of a private Ray instance); a joined
    cluster runs as many as it has CPUs. ``describe(result)`` is the progress
    bar's text for a finished task (default: its status). ``stream_seconds``:
    how often a Ray task sends a new checkpoint home. ``start_method``: how
    local workers start (``spawn`` or ``fork``, see
    :func:`~farl_agents.backend.local.run_local`). ``stoppable``: the first
    Ctrl-C asks the tasks to stop (running ones checkpoint, queued ones do not
    start); False leaves Ctrl-C to the caller's own handler. ``on_result(result)`` runs here, in this
    process, as each task finishes (to keep finished work before the others end: resumable studies).
    """
    check_backend(backend, ray_address)
    jobs = check_jobs(jobs)
    if not stream_seconds > 0:
        raise ValueError(f"the checkpoint stream period must be > 0 seconds, got {stream_seconds!r}")
    bar = _bar(len(tasks), progress, desc)
    describe = describe or (lambda r: r["status"])

    def report(r: dict) -> None:
        if on_result is not None:
            on_result(r)
        if bar is not None:
            bar.update(1)
            bar.set_postfix_str(describe(r))

    try:
        if backend == "local":
            return run_local(fn, tasks, jobs, report, log, start_method=start_method, stoppable=stoppable)
        return run_ray(fn, tasks, jobs, ray_address, folder_keys, report, log, stream_seconds=stream_seconds,
                       stoppable=stoppable)
    finally:
        if bar is not None:
            bar.close()


def _bar(total: int, progress: bool, desc: str):
    if not progress:
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit="run", desc=desc, dynamic_ncols=True)
