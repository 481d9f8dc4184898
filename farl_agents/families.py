"""Learner families besides the n-tuple TD/SARSA/Q learners, and how the CLI finds them.

farl's main learners (``farl_agents.learners``) are trained by ``farl train
GAME --algo td-farl|sarsa|...``. Other learner families (Nemesh, seed 003;
Descent/UBFM, seed 004) have their own settings and agent files, so each
family owns its part of the command line. A family is a module that
provides:

``ALGOS``
    tuple of the ``--algo`` names it trains (e.g. ``("nemesh",)``).
``FORMATS``
    tuple of the ``format`` strings its agent files carry in their ``meta``
    JSON (the same ``.npz`` + JSON layout as :mod:`farl_agents.learners.agent_io`).
``train_main(argv: list[str]) -> int``
    runs ``farl train ...`` for its algorithms: ``argv`` is everything after
    ``train``; the family parses it with its own ``argparse`` parser
    (``prog="farl train"``). Bad input raises ``ValueError`` (or
    :class:`farl_agents.cli.CliError`), which the CLI turns into a one-line
    error with exit code 2.
``load_player(path, game=None) -> (player, GameSpec)``
    reads one of its agent files as a harness player
    (:mod:`farl_agents.players`); ``game`` (a GameSpec), when given, must match.
``register(subparsers)`` (optional)
    adds further ``farl`` commands (e.g. ``farl tournament``).
``INFO`` (optional)
    one line per algorithm for ``farl info``: ``{algo: text}``.

A family whose module is missing is simply absent; one that fails to import
costs its own commands only (``farl`` prints a warning).
"""
from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from types import ModuleType

FAMILIES = ("farl_agents.nemesh.cli", "farl_agents.descent.cli")
"""Modules of the learner families, in the order ``farl info`` lists them."""

PLUGINS = ("farl_agents.baselines.cli",) + FAMILIES
"""Modules whose ``register(subparsers)`` may add ``farl`` commands."""


def load_module(name: str, warn: bool = True) -> ModuleType | None:
    """The module ``name``, or ``None`` when it is not installed (or broken, with a warning)."""
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        if exc.name is not None and name.startswith(exc.name):
            return None  # the module itself (or its package) does not exist
        if warn:
            print(f"farl: warning: {name} cannot be loaded (ImportError: {exc}); its commands are missing",
                  file=sys.stderr)
        return None
    except Exception as exc:  # a family under construction must not take the whole CLI down
        if warn:
            print(f"farl: warning: {name} cannot be loaded ({type(exc).__name__}: {exc}); "
                  f"its commands are missing", file=sys.stderr)
        return None


def families(warn: bool = False) -> list[ModuleType]:
    """The family modules that load."""
    return [m for m in (load_module(name, warn) for name in FAMILIES) if m is not None]


def family_algos() -> dict[str, ModuleType]:
    """``--algo`` name -> family module, for every loadable family."""
    return {algo: fam for fam in families() for algo in getattr(fam, "ALGOS", ())}


def algo_in_argv(argv: list[str]) -> str | None:
    """The value of ``--algo`` in a ``farl train`` argv (``--algo X`` or ``--algo=X``), if any."""
    for i, arg in enumerate(argv):
        if arg == "--algo" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--algo="):
            return arg.split("=", 1)[1]
    return None


def resumed_algo(argv: list[str]) -> str | None:
    """The ``algo`` recorded in ``DIR/run.json`` of ``--resume DIR`` (``--resume=DIR``), if any.

    A family's run folder records its ``--algo`` name there as ``"algo"``, so
    ``farl train --resume DIR`` finds the family without being told.
    """
    folder = None
    for i, arg in enumerate(argv):
        if arg == "--resume" and i + 1 < len(argv):
            folder = argv[i + 1]
        elif arg.startswith("--resume="):
            folder = arg.split("=", 1)[1]
    if folder is None:
        return None
    try:
        record = json.loads((Path(folder) / "run.json").read_text())
    except (OSError, ValueError):
        return None
    algo = record.get("algo") if isinstance(record, dict) else None
    return algo if isinstance(algo, str) else None


def file_format(path) -> str | None:
    """The ``format`` in the ``meta`` JSON of a farl ``.npz`` file; ``None`` if it has none or is unreadable."""
    path = Path(path)
    if not path.is_file():
        return None
    from farl_agents.learners.agent_io import UNREADABLE, read_npz_with_meta

    try:
        _, meta = read_npz_with_meta(path)
    except UNREADABLE:
        return None
    return meta.get("format") if isinstance(meta, dict) else None


def family_for_file(path) -> ModuleType | None:
    """The family whose agent-file format ``path`` has, or ``None`` (then it may be an n-tuple agent)."""
    fmt = file_format(path)
    if fmt is None:
        return None
    for fam in families():
        if fmt in getattr(fam, "FORMATS", ()):
            return fam
    return None
