"""How many workers: one check of ``--jobs`` for every command, and the cap on local worker processes.

``--jobs`` says how many tasks may run at once. A value below 1 or above
:data:`MAX_JOBS` is a typing mistake and is refused with one line; a large
but sane value is accepted and capped where processes are started: more
local processes than tasks or CPUs only cost memory and start-up time
(:func:`local_workers`). A Ray cluster decides its own parallelism from the
CPUs given to ``ray start``.
"""
from __future__ import annotations

import operator
import os

MAX_JOBS = 1024
"""More workers than this is a typing mistake, not a machine."""


def check_jobs(jobs, flag: str = "--jobs") -> int:
    """``jobs`` as an int, or ValueError naming ``flag`` when it is not a whole number in 1..MAX_JOBS."""
    try:
        value = operator.index(jobs)  # int and numpy integers; not floats or strings
    except TypeError:
        value = None
    if isinstance(jobs, bool) or value is None or not 1 <= value <= MAX_JOBS:
        raise ValueError(f"{flag} must be an integer in 1..{MAX_JOBS}, got {jobs!r}")
    return value


def cpus() -> int:
    """The CPUs this process may use (its affinity mask where the OS tells, else the machine's count)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def local_workers(jobs: int, tasks: int) -> int:
    """Worker processes to start for ``tasks`` tasks: ``jobs``, at most one per task and per CPU, at least 1."""
    return max(1, min(check_jobs(jobs), tasks, cpus()))
