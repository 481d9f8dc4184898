"""The local backend: worker processes of this machine (``concurrent.futures``), tasks run in place."""
from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import signal

from farl_agents.runs.safety import StopRequest

POLL_SECONDS = 0.5
"""How often the parent process looks for finished tasks and a Ctrl-C."""


def _ignore_sigint() -> None:
    """Worker initializer: idle workers ignore Ctrl-C (a run in progress installs its own handler)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run_local(fn, tasks: list, jobs: int, report, log) -> list:
    """``fn(task)`` for each task in ``jobs`` spawned processes (in this process when ``jobs`` is 1).

    Stops after the first ``interrupted`` result when sequential; in parallel,
    the first Ctrl-C cancels the tasks not started yet and lets the running
    ones checkpoint. ``report(result)`` is called as each result arrives.
    """
    results = []
    if jobs == 1 or len(tasks) <= 1:
        for t in tasks:
            try:
                r = fn(t)
            except KeyboardInterrupt:  # a second Ctrl-C, or one during a final evaluation
                results.append({**t, "status": "interrupted"})
                break
            results.append(r)
            report(r)
            if r["status"] == "interrupted":
                break
        return results
    ctx = multiprocessing.get_context("spawn")
    with StopRequest(log) as stop:
        with cf.ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_ignore_sigint) as pool:
            futures = {pool.submit(fn, t): t for t in tasks}
            pending = set(futures)
            while pending:
                done, pending = cf.wait(pending, timeout=POLL_SECONDS, return_when=cf.FIRST_COMPLETED)
                for f in done:
                    if f.cancelled():
                        continue
                    try:
                        r = f.result()
                    except Exception as exc:  # a worker died (e.g. killed): report the task as failed
                        r = {**futures[f], "status": "failed", "error": f"worker died: {exc}"}
                    results.append(r)
                    report(r)
                if stop.requested:
                    for f in pending:
                        f.cancel()
    return results
