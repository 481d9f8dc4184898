"""Run folders written by farl 0.1's Nemesh and Descent commands, brought into the common layout.

farl 0.1 had three run stacks. Its n-tuple run folders already have the
common layout (:mod:`farl_agents.runs.run`); its Nemesh folders held
``run.json`` (``"algo": "nemesh"``) and ``checkpoint.npz``; its Descent
folders ``run.json`` (``"algo": "descent"``), ``agent.npz``, ``state.npz`` and
a ``curve.csv`` with other columns. :func:`upgrade` rewrites such a folder in
place, the old ``run.json`` kept as ``run-farl-0.1.json``; what each family's
folder held is read by that family's hooks (``legacy_run(folder, record)`` in
:mod:`farl_agents.nemesh.family` and :mod:`farl_agents.descent.family`), so
this module knows the common layout only:

* the checkpoint files are copied under ``checkpoints/`` first, then the
  marker is written, and the new ``run.json`` last, so a folder killed during
  the upgrade is simply upgraded again;
* a Descent curve keeps its rows (score and standard error against its
  opponent, training seconds, games);
* ``agent.npz`` is the newest checkpoint: a family whose old folder has none
  (farl 0.1 wrote a Nemesh ``agent.npz`` only at the end) gets a copy there.
"""
from __future__ import annotations

import shutil
from pathlib import Path

from farl_agents import families
from farl_agents.atomic import atomic_write_json
from farl_agents.runs.curve import write_curve
from farl_agents.runs.spec import RunSpec
from farl_agents.safe_files import read_json

OLD_RECORD = "run-farl-0.1.json"


def needs_upgrade(folder: Path) -> str | None:
    """The family of a farl 0.1 folder whose hooks can upgrade it (``"nemesh"``, ``"descent"``), else None."""
    try:
        record = read_json(Path(folder) / "run.json")
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("format") == "farl-run":
        return None
    algo = record.get("algo")
    if algo not in {fam.name for fam in families.FAMILIES}:
        return None
    return algo if hasattr(families.get(algo).hooks(), "legacy_run") else None


def upgrade(folder) -> bool:
    """Rewrite a farl 0.1 Nemesh or Descent run folder in the common layout; False if it needs none."""
    folder = Path(folder)
    family = needs_upgrade(folder)
    if family is None:
        return False
    record = read_json(folder / "run.json")
    old = families.get(family).hooks().legacy_run(folder, record)
    spec = RunSpec(**old["spec"], family=family)
    files, done, episodes, rows = old["files"], old["done"], old["episodes"], old["rows"]
    ck = folder / "checkpoints"
    ck.mkdir(exist_ok=True)
    names = []
    for src, name in files:
        shutil.copyfile(src, ck / name)
        names.append(f"checkpoints/{name}")
    if folder / "agent.npz" not in [src for src, _ in files]:  # the newest checkpoint is published as agent.npz
        shutil.copyfile(folder / names[0], folder / "agent.npz")
    if rows:
        write_curve(folder / "curve.csv", rows, spec.eval_vs)
    marker = {"format": "farl-run-checkpoint", "version": 1, "episodes_done": episodes, "done": done,
              "agent": names[0], "files": names, "finished": record.get("status") == "done",
              "wall_seconds": float(record.get("wall_seconds", record.get("train_seconds", 0.0))),
              "train_seconds": float(record.get("train_seconds", 0.0)),
              "pending": {"episodes": 0, "reward_sum": 0.0, "plies_sum": None}, "rows": rows,
              "time": record.get("saved_at")}
    atomic_write_json(folder / "checkpoint.json", marker)
    atomic_write_json(folder / OLD_RECORD, record)
    info = {"format": "farl-run", "farl_version": record.get("farl_version"), "created": record.get("saved_at"),
            "command": record.get("command"), "upgraded_from": "farl 0.1", **spec.to_dict()}
    atomic_write_json(folder / "run.json", info)
    for old_file in ("checkpoint.npz", "state.npz"):
        (folder / old_file).unlink(missing_ok=True)
    return True
