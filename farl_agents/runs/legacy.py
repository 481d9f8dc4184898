"""Run folders written by farl 0.1's Nemesh and Descent commands, brought into the common layout.

farl 0.1 had three run stacks. Its n-tuple run folders already have the
common layout (:mod:`farl_agents.runs.run`); its Nemesh folders held
``run.json`` (``"algo": "nemesh"``) and ``checkpoint.npz``; its Descent
folders ``run.json`` (``"algo": "descent"``), ``agent.npz``, ``state.npz`` and
a ``curve.csv`` with other columns. :func:`upgrade` rewrites such a folder in
place, the old ``run.json`` kept as ``run-farl-0.1.json``:

* the checkpoint files are copied under ``checkpoints/`` first, then the
  marker is written, and the new ``run.json`` last, so a folder killed during
  the upgrade is simply upgraded again;
* a Descent curve keeps its rows (score and standard error against its
  opponent, training seconds, games).
"""
from __future__ import annotations

import csv
import shutil
from pathlib import Path

from farl_agents.atomic import atomic_write_json
from farl_agents.runs.curve import write_curve
from farl_agents.safe_files import read_json

OLD_RECORD = "run-farl-0.1.json"


def needs_upgrade(folder: Path) -> str | None:
    """``"nemesh"`` or ``"descent"`` for a farl 0.1 folder of that family, else None."""
    try:
        record = read_json(Path(folder) / "run.json")
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("format") == "farl-run":
        return None
    algo = record.get("algo")
    return algo if algo in ("nemesh", "descent") else None


def upgrade(folder) -> bool:
    """Rewrite a farl 0.1 Nemesh or Descent run folder in the common layout; False if it needs none."""
    folder = Path(folder)
    family = needs_upgrade(folder)
    if family is None:
        return False
    record = read_json(folder / "run.json")
    if family == "nemesh":
        spec, files, done, episodes, rows = _nemesh(folder, record)
    else:
        spec, files, done, episodes, rows = _descent(folder, record)
    ck = folder / "checkpoints"
    ck.mkdir(exist_ok=True)
    names = []
    for src, name in files:
        shutil.copyfile(src, ck / name)
        names.append(f"checkpoints/{name}")
    if family == "nemesh":  # farl 0.1 wrote agent.npz only at the end of a Nemesh run
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
    for old in ("checkpoint.npz", "state.npz"):
        (folder / old).unlink(missing_ok=True)
    return True


def _nemesh(folder: Path, record: dict):
    from farl_agents.nemesh.family import NemeshConfig
    from farl_agents.runs.spec import RunSpec

    s = record["settings"]
    config = NemeshConfig(preset=record["preset"], fraction=float(record["fraction"]), depth=int(s["depth"]),
                          alpha0=float(s["alpha0"]), gamma=float(s["gamma"]), seed=int(s["seed"]))
    spec = RunSpec(record["game"], record["game_params"], config, family="nemesh")
    games = int(record["games_done"])
    return spec, [(folder / "checkpoint.npz", f"agent-{games:012d}.npz")], games, games, []


def _descent(folder: Path, record: dict):
    from farl_agents.descent.agent import read_agent_file
    from farl_agents.descent.trainer import DescentConfig
    from farl_agents.runs.spec import RunSpec

    config = DescentConfig.from_dict(record["config"])
    curve = record.get("curve") or {}
    enabled = bool(curve) and curve.get("every_seconds", 0) > 0
    plies = int(curve.get("opening_plies", 2))
    vs = curve.get("vs", "mcts100")
    spec = RunSpec(config.game, config.game_params, config, eval_vs=(vs,) if enabled else (),
                   eval_every=float(curve.get("every_seconds", 0)) if enabled else 0,
                   eval_games=int(curve.get("games", 10)), eval_starts=f"random:{plies}" if plies else "initial",
                   eval_seed=int(curve.get("seed", 0)), eval_depth=int(curve.get("depth", 2)), family="descent")
    meta = read_agent_file(folder / "agent.npz")[0]
    games, seconds = int(meta["info"]["games"]), float(meta["info"]["train_seconds"])
    rows = []
    if enabled and (folder / "curve.csv").exists():
        with open(folder / "curve.csv", newline="") as fh:
            for r in csv.DictReader(fh):
                if int(r["games"]) <= games:
                    rows.append({"episode": int(r["games"]), "train_seconds": float(r["train_seconds"]),
                                 "wall_seconds": None, "train_reward": None, "train_plies": None,
                                 f"score_{vs}": float(r["score"]), f"se_{vs}": float(r["se"])})
    stem = f"agent-{games:012d}-{int(1000 * seconds):012d}ms"
    files = [(folder / "agent.npz", f"{stem}.npz"), (folder / "state.npz", f"{stem}-state.npz")]
    return spec, files, seconds, games, rows
