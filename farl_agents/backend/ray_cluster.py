"""The Ray backend: a local Ray instance, or an existing cluster joined with ``--ray-address`` / ``RAY_ADDRESS``.

Each task runs as a Ray task (one CPU) through
:func:`~farl_agents.backend.shipping.run_shipped`: in a scratch folder of
whichever node Ray picks, fed with its run folders' current files and
sending new checkpoints home every ``stream_seconds``. The driver's side
(:class:`~farl_agents.backend.shipping.Home`) is an actor pinned to the
driver's node, so it reads and writes the driver's disk whatever node the
task runs on; no shared file system is needed. A task whose node dies is
retried (``max_retries``) and fetches the last checkpoint that came home.
"""
from __future__ import annotations

import contextlib
import os
import time

from farl_agents.backend.jobs import local_workers
from farl_agents.backend.shipping import (
    STREAM_SECONDS,
    Home,
    bring_home,
    folders_of,
    interrupt_main_thread,
    resumed,
    run_shipped,
)
from farl_agents.safety import StopRequest

MAX_RETRIES = 3
"""Ray retries of a task whose worker or node died (each resumes from the last checkpoint at home)."""
POLL_SECONDS = 0.5
STOP_GRACE_SECONDS = 120.0
"""After a Ctrl-C, how long the driver waits for running tasks to checkpoint and send their files home."""


def import_ray():
    try:
        import ray
    except ImportError:
        raise ValueError("--backend ray needs Ray: pip install 'farl-rl[ray]'") from None
    return ray


def connect(ray, jobs: int, ray_address: str | None, log) -> bool:
    """Join the cluster at ``ray_address`` (else ``RAY_ADDRESS``), or start a local instance with ``jobs`` CPUs
    (already capped by the caller at the tasks and this machine's CPUs).

    Returns whether this call started Ray (then the caller shuts it down).
    Resource arguments are passed only to a local instance: Ray refuses them
    when connecting to a running cluster.
    """
    if ray.is_initialized():
        return False
    address = ray_address or os.environ.get("RAY_ADDRESS") or None
    if address:
        ray.init(address=address, log_to_driver=False)
        cpus = ray.cluster_resources().get("CPU", 0)
        log(f"joined the Ray cluster at {address}: {len(ray.nodes())} node(s), {cpus:g} CPU(s)")
    else:
        ray.init(num_cpus=jobs, include_dashboard=False, log_to_driver=False)
    return True


def _ray_entry(fn, task: dict, folder_keys, home, stream_seconds: float) -> dict:
    """What a Ray task runs: ``fn(task)`` shipped, talking to the driver's :class:`Home` actor."""
    import ray

    return run_shipped(fn, task, folder_keys,
                       fetch=lambda folder: ray.get(home.fetch.remote(folder)),
                       push=lambda folder, delta: ray.get(home.push.remote(folder, delta)),
                       stream_seconds=stream_seconds,
                       stop_requested=lambda: ray.get(home.stop_requested.remote()),
                       on_stop=interrupt_main_thread)


def run_ray(fn, tasks: list, jobs: int, ray_address: str | None, folder_keys, report, log,
            stream_seconds: float = STREAM_SECONDS, max_retries: int = MAX_RETRIES, stoppable: bool = True) -> list:
    """``fn(task)`` for each task as Ray tasks; every file they make lands in the driver's folders.

    ``stoppable``: the first Ctrl-C asks the tasks to stop (see
    :func:`~farl_agents.backend.local.run_local`); else it is left to the caller.
    """
    ray = import_ray()
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    started = connect(ray, local_workers(jobs, len(tasks)), ray_address, log)
    try:
        here = ray.get_runtime_context().get_node_id()
        home = ray.remote(num_cpus=0, scheduling_strategy=NodeAffinitySchedulingStrategy(here, soft=False))(
            Home).remote()
        remote = ray.remote(num_cpus=1, max_retries=max_retries, retry_exceptions=False)(_ray_entry)
        refs = {}
        for t in tasks:
            shipped = {**t, **folders_of(t, folder_keys)}  # absolute paths: the Home actor's cwd is not ours
            refs[remote.remote(fn, shipped, tuple(folder_keys), home, stream_seconds)] = t
        results = []
        pending = list(refs)
        deadline = None
        with StopRequest(log) if stoppable else contextlib.nullcontext() as stop:
            while pending:
                done, pending = ray.wait(pending, num_returns=1, timeout=POLL_SECONDS)
                for ref in done:
                    task = refs[ref]
                    try:
                        envelope = ray.get(ref)
                    except Exception as exc:  # retries exhausted, or fn raised
                        r = {**task, "status": "failed", "error": f"ray task failed: {type(exc).__name__}: {exc}"}
                    else:
                        for folder, progress in resumed(envelope).items():
                            log(f"{folder}: resumed from the checkpoint at {progress:g} that had come home")
                        r = bring_home(envelope)
                    results.append(r)
                    report(r)
                if stop is not None and stop.requested and deadline is None:
                    home.request_stop.remote()  # running tasks checkpoint and come home; queued ones do not start
                    deadline = time.monotonic() + STOP_GRACE_SECONDS
                if deadline is not None and time.monotonic() > deadline:
                    log(f"{len(pending)} task(s) did not stop in {STOP_GRACE_SECONDS:g} s: their last checkpoints "
                        f"that came home are kept")
                    break
        return results
    finally:
        if started:
            ray.shutdown()
