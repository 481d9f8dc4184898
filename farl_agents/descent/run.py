"""A training run in a folder: atomic checkpoints, run.json with ``"algo": "descent"``, resume.

Folder layout::

    DIR/agent.npz   the agent file (format farl-descent-agent) of the last checkpoint
    DIR/state.npz   what resuming needs besides the weights: replay memory, generators
    DIR/run.json    algo, config, learning-curve settings, games, training seconds, status
                    ("running" / "done"), written last, so a checkpoint counts only once it is complete
    DIR/curve.csv   the learning curve (see :mod:`farl_agents.descent.curves`), and curve.png

``farl train --resume DIR`` (or :func:`run_training` with ``resume=True``)
reloads the three files and trains on until the budget T is used up. A curve
point is taken every S training seconds (evaluation time is not training
time) and each point is followed by a checkpoint; on resume the curve keeps
only the rows up to the resumed checkpoint.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from farl_agents.atomic import atomic_file, atomic_write_json
from farl_agents.descent.agent import read_agent_file, save_agent
from farl_agents.descent.curves import CurveLog, CurveSettings
from farl_agents.descent.trainer import DescentConfig, DescentTrainer

ALGO = "descent"


def _save(trainer: DescentTrainer, out: Path, status: str, curve: CurveSettings | None = None) -> None:
    with atomic_file(out / "state.npz", "wb") as fh:
        np.savez_compressed(fh, **trainer.state_arrays())
    save_agent(out / "agent.npz", trainer.game, trainer.evaluation, trainer.config.heuristic, trainer.info())
    record = {"algo": ALGO, "config": trainer.config.to_dict(), "status": status, "games": trainer.games,
              "train_seconds": round(trainer.elapsed, 3), "results_first_draw_second": trainer.results,
              "curve": curve.to_dict() if curve is not None else None,
              "last_fit_mse": trainer.last_error, "saved_at": time.strftime("%Y-%m-%dT%H:%M:%S")}
    atomic_write_json(out / "run.json", record)


def load_record(out: Path) -> dict:
    """``run.json`` of the descent run in ``out`` (``ValueError`` if there is none)."""
    try:
        record = json.loads((out / "run.json").read_text())
    except (OSError, ValueError):
        raise ValueError(f"{out} holds no descent run (run.json missing or unreadable)") from None
    if record.get("algo") != ALGO:
        raise ValueError(f"{out}/run.json is a {record.get('algo')!r} run, not a descent run")
    return record


def load_trainer(out: Path) -> DescentTrainer:
    """The trainer of the last checkpoint in ``out``."""
    record = load_record(out)
    trainer = DescentTrainer(DescentConfig.from_dict(record["config"]))
    meta, _, ev, _, _ = read_agent_file(out / "agent.npz", trainer.game)
    trainer.evaluation = ev
    trainer.rebuild_engine()
    try:
        with np.load(out / "state.npz", allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
    except (OSError, ValueError) as exc:
        raise ValueError(f"{out}/state.npz is unreadable ({exc}); the run cannot be resumed") from None
    trainer.restore(arrays, meta["info"])
    return trainer


def run_training(config: DescentConfig | None, out, resume: bool = False, progress: bool = True,
                 checkpoint_seconds: float = 30.0, curve: CurveSettings | None = CurveSettings()) -> DescentTrainer:
    """Train ``config`` into folder ``out`` (or continue the run there with ``resume``).

    ``curve``: how to measure the learning curve (``DIR/curve.csv``, ``DIR/curve.png``); None or
    ``every_seconds=0`` for none. On resume the settings stored in ``run.json`` are used instead.
    """
    out = Path(out)
    if resume:
        record = load_record(out)
        trainer = load_trainer(out)
        curve = CurveSettings.from_dict(record.get("curve"))
    else:
        if (out / "run.json").exists():
            raise ValueError(f"{out} already holds a run; continue it with --resume {out} or choose another --out")
        trainer = DescentTrainer(config)
        if curve is not None:
            curve = curve.check(trainer.game)
        out.mkdir(parents=True, exist_ok=True)
        _save(trainer, out, "running", curve)
    log = None
    if curve is not None and curve.enabled:
        log = CurveLog(out, curve, f"{trainer.game.name} {trainer.config.search}/{trainer.config.learning}")
        log.align(trainer.games)
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=round(trainer.total_seconds), initial=round(trainer.elapsed), unit="s",
                   desc=f"descent {trainer.game.name}", leave=True)
    shown = [trainer.elapsed]

    def on_game(tr):
        if bar is not None:
            step = round(tr.elapsed) - round(shown[0])
            if step > 0:
                bar.update(step)
                shown[0] = tr.elapsed
            post = dict(games=tr.games, mse=f"{tr.last_error:.3g}")
            if log is not None and log.rows:
                post["vs_" + curve.vs] = f"{log.rows[-1]['score']:.2f}"
            bar.set_postfix(**post, refresh=False)

    def point(final: bool = False) -> None:
        if log is not None and log.due(trainer, final):
            log.record(trainer)
            _save(trainer, out, "running", curve)

    try:
        while trainer.elapsed < trainer.total_seconds:
            point()
            stop = checkpoint_seconds
            if log is not None:
                stop = min(stop, max(log.seconds_to_next(trainer), 1e-9))
            trainer.run(stop, on_game)
            _save(trainer, out, "running", curve)
        point(final=True)
    except KeyboardInterrupt:
        _save(trainer, out, "running", curve)
        raise
    finally:
        if bar is not None:
            bar.close()
    _save(trainer, out, "done", curve)
    return trainer
