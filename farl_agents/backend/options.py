"""The command-line options of the backend, the same in every command: ``--backend``, ``--ray-address``, ``--jobs``.

Only :mod:`argparse`: the ``farl`` commands (:mod:`farl_agents.cli`) and
``python -m farl_agents.baselines`` both add them with
:func:`add_backend_options` and read them back, checked, with
:func:`backend_args` (keyword arguments of
:func:`~farl_agents.backend.run_tasks`).
"""
from __future__ import annotations

from farl_agents.backend.jobs import MAX_JOBS, check_jobs

BACKENDS = ("local", "ray")


def check_backend(backend: str, ray_address: str | None = None) -> None:
    """ValueError for an unknown backend, an empty Ray address, or a Ray address without the Ray backend."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; use one of {', '.join(BACKENDS)}")
    if ray_address is not None and backend != "ray":
        raise ValueError("--ray-address needs --backend ray")
    if ray_address is not None and not ray_address.strip():
        raise ValueError("--ray-address is empty; give auto or HOST:PORT")


def add_backend_options(parser, what: str, jobs_default: int = 1, note: str = "") -> None:
    """Add ``--backend``, ``--ray-address`` and ``--jobs`` to ``parser``.

    ``what`` names the tasks in the help (e.g. "runs"); ``note`` is a sentence added to ``--backend``'s help.
    """
    parser.add_argument("--backend", choices=BACKENDS, default="local",
                        help=f"what runs the {what}: local worker processes, or Ray tasks on a private Ray instance "
                             f"or a cluster (--ray-address; pip install 'farl-rl[ray]'; docs/cluster.md)"
                             + (f". {note}" if note else ""))
    parser.add_argument("--ray-address", metavar="auto|HOST:PORT", default=None,
                        help="--backend ray: join this running Ray cluster (default: RAY_ADDRESS when set, else a "
                             "private Ray instance of this machine with --jobs CPUs)")
    parser.add_argument("--jobs", type=int, default=jobs_default, metavar="J",
                        help=f"{what} at a time on this machine, 1..{MAX_JOBS} (never more processes than {what} "
                             f"or CPUs; a joined Ray cluster runs as many as it has CPUs)")


def backend_args(args, error=ValueError) -> dict:
    """``{"backend", "jobs", "ray_address"}`` from parsed options; ``error`` (one line) for impossible values."""
    try:
        jobs = check_jobs(args.jobs)
        check_backend(args.backend, args.ray_address)
    except ValueError as exc:
        raise error(str(exc)) from None
    return {"backend": args.backend, "jobs": jobs, "ray_address": args.ray_address}
