"""The local backend: worker processes of this machine (``concurrent.futures``), tasks run in place."""
from __future__ import annotations

import concurrent.futures as cf
import contextlib
import multiprocessing
import signal

from farl_agents.backend.jobs import local_workers
from farl_agents.safety import StopRequest, follow_parent_stop

POLL_SECONDS = 0.5
"""How often the parent process looks for finished tasks and a Ctrl-C."""


def _init_worker(parent_stop) -> None:
    """Worker initializer: idle workers ignore Ctrl-C (a run in progress installs its own handler), and the
    worker's stop requests follow the parent's (``parent_stop``, an event)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    follow_parent_stop(parent_stop)


def run_local(fn, tasks: list, jobs: int, report, log, start_method: str = "spawn", stoppable: bool = True) -> list:
    """``fn(task)`` for each task in worker processes (in this process when only one worker is useful).

    Workers: ``jobs``, at most one per task and per CPU (:func:`~farl_agents.backend.jobs.local_workers`),
    started with ``start_method`` (``spawn``: a clean interpreter, what training runs need; ``fork``: the
    workers inherit what the caller compiled, what short evaluations want).

    Stops after the first ``interrupted`` result when sequential; in parallel,
    the first Ctrl-C cancels the tasks not started yet and lets the running
    ones checkpoint (with ``stoppable`` False, Ctrl-C is left to the caller's
    handler: an evaluation inside a training run finishes its games and the
    run stops after it). A Ctrl-C in a terminal reaches the workers too, a
    SIGTERM (``kill``) only this process: so the stop is also passed to the
    workers as an event every :class:`~farl_agents.safety.StopRequest` in them
    reads, which stops the running tasks at their next safe point and a task
    that starts afterwards (the executor may have handed it to a worker
    already) at its first. A second Ctrl-C aborts: the workers are ended at once and ``KeyboardInterrupt``
    propagates. ``report(result)`` is called as each result arrives.
    """
    results = []
    workers = local_workers(jobs, len(tasks))
    if workers == 1:
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
    ctx = multiprocessing.get_context(start_method)
    with StopRequest(log) if stoppable else contextlib.nullcontext() as stop:
        parent_stop = ctx.Event()
        with cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_init_worker,
                                    initargs=(parent_stop,)) as pool:
            futures = {pool.submit(fn, t): t for t in tasks}
            try:
                _collect(futures, stop, parent_stop, report, results)
            except KeyboardInterrupt:  # a second Ctrl-C: abort now, not when the running tasks end
                _terminate_workers(pool)
                raise
    return results


def _collect(futures: dict, stop, parent_stop, report, results: list) -> None:
    """Wait for ``futures`` (future -> task), appending and reporting each result; on a stop request, pass it to
    the workers (``parent_stop``) and cancel the tasks not started."""
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
        if stop is not None and stop.requested:
            parent_stop.set()
            for f in pending:
                f.cancel()


def _terminate_workers(pool: cf.ProcessPoolExecutor) -> None:
    """End ``pool``'s worker processes at once (the tasks they run are lost, as an abort means; farl's files are
    written atomically, so none is left half-written), so that leaving the executor does not wait for them."""
    workers = list((pool._processes or {}).values())  # no public way before Python 3.14; shutdown forgets them
    for process in workers:
        if process.is_alive():
            process.terminate()
    pool.shutdown(wait=False, cancel_futures=True)
