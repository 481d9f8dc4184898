"""Cohen-Solal 2020's Tables 2-4 on any two-player game: resumable cells cached on disk.

A **training cell** is one (game, variant, repetition): the variant of
:data:`~studies.descent.paper_games.VARIANTS` trained with seed =
repetition for the game's budget, in the run folder ``OUT/GAME/VARIANT/rK``
(``agent.npz``; ``cell.json`` written last marks it done). A **tournament
cell** is one (game, experiment, repetition): the all-play-all of that
experiment's variants of repetition K (:func:`~farl_agents.descent.tournament.all_play_all`:
fixed-depth alpha-beta over each f_θ, random openings, both seats), cached in
``OUT/GAME/tournaments/EXP-rK.json``. A variant's win % in a repetition is its
mean score there; the tables give the mean over repetitions ± its standard
error over repetitions (training runs differ much more than games do).

All budgets are CPU seconds of the training process (``DescentConfig.cpu_clock``), so cells that
ran while the machine was busy got the same computation as the others; a cell trained with another
budget than the one asked for is refused, not mixed in.

Nothing is shared between games while running: each game is one job
(``jobs`` at a time), every cell writes only its own files, and
:func:`collect` merges whatever is finished into one summary. Killing a job
loses at most the cell it was in (a training cell resumes from its last
checkpoint), so the same command continues where it stopped.
"""
from __future__ import annotations

import json
import math
import time
from pathlib import Path

import numpy as np

import farl_envs
from farl_agents.atomic import atomic_write_json
from farl_agents.descent.run import train_run
from farl_agents.descent.tournament import all_play_all
from farl_agents.descent.trainer import DescentConfig
from studies.descent.paper_games import EXPERIMENTS, VARIANTS, setup, trained_variants, variants_of

TRAIN_KEYS = ("train_seconds", "move_seconds")
"""The budget entries a training cell depends on (the others are the tournament's)."""


def cell_folder(out, key: str, variant: str, rep: int) -> Path:
    return Path(out) / key / variant / f"r{rep}"


def tournament_file(out, key: str, exp: str, rep: int) -> Path:
    return Path(out) / key / "tournaments" / f"{exp}-r{rep}.json"


def _read(path: Path):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def budget(gs, overrides: dict) -> dict:
    """The per-run budget of a game: its table entry, with ``overrides`` (CLI) on top."""
    b = {"train_seconds": gs.train_seconds, "move_seconds": gs.move_seconds, "depth": gs.depth,
         "openings": gs.openings, "opening_plies": gs.opening_plies}
    b.update({k: v for k, v in overrides.items() if v is not None})
    return b


def train_cell(out, gs, variant: str, rep: int, b: dict, log=print) -> dict:
    """Train one cell (or return its cached record)."""
    folder = cell_folder(out, gs.key, variant, rep)
    done = _read(folder / "cell.json")
    if done is not None:
        got, want = ({k: d[k] for k in TRAIN_KEYS} for d in (done["budget"], b))
        if got != want:
            raise ValueError(f"{folder} was trained with {got}, not {want}: use another --out or the same budget")
        return done
    cfg = DescentConfig(game=gs.game, game_params=dict(gs.params), minutes=b["train_seconds"] / 60.0,
                        move_seconds=b["move_seconds"], seed=rep, cpu_clock=True, **VARIANTS[variant])
    t0, c0 = time.time(), time.process_time()
    run = train_run(cfg, folder, eval_every=0)
    if not run.finished:  # stopped (Ctrl-C / SIGTERM): the checkpoint is kept, the cell is not done
        raise KeyboardInterrupt(f"{folder}: stopped before its budget; rerun to continue")
    tr = run.trainer.agent
    rec = {"game": gs.key, "variant": variant, "rep": rep, "games": tr.games, "plies": tr.plies,
           "train_seconds": tr.elapsed, "wall_seconds": time.time() - t0, "cpu_seconds": time.process_time() - c0,
           "results_first_draw_second": list(tr.results), "budget": b}
    atomic_write_json(folder / "cell.json", rec)
    log(f"[cell] {gs.key} {variant} r{rep}: {tr.games} games, {tr.elapsed:.0f} s training, "
        f"{rec['cpu_seconds']:.0f} s CPU", flush=True)
    return rec


def tournament_cell(out, gs, exp: str, rep: int, b: dict, log=print) -> dict:
    """The all-play-all of ``exp``'s variants of repetition ``rep`` (or its cached result)."""
    path = tournament_file(out, gs.key, exp, rep)
    done = _read(path)
    if done is not None:
        return done
    game = farl_envs.game_spec(gs.game, **gs.params)
    files = {v: str(cell_folder(out, gs.key, v, rep) / "agent.npz") for v in variants_of(exp, gs)}
    t0, c0 = time.time(), time.process_time()
    res = all_play_all(game, files, depth=b["depth"], openings=b["openings"], opening_plies=b["opening_plies"],
                       seed=rep)
    res.update(game=gs.key, experiment=exp, rep=rep, wall_seconds=time.time() - t0,
               cpu_seconds=time.process_time() - c0)
    atomic_write_json(path, res)
    log(f"[tournament] {gs.key} {exp} r{rep}: " + ", ".join(
        f"{v} {r['win_pct']:.0f}" for v, r in res["variants"].items()) + f" ({res['cpu_seconds']:.0f} s CPU)",
        flush=True)
    return res


def run_game(out, key: str, reps, experiments=None, overrides=None, log=print) -> str:
    """Every cell of one game, repetition by repetition (so finished repetitions are complete)."""
    gs = setup(key)
    b = budget(gs, overrides or {})
    exps = list(experiments or EXPERIMENTS)
    for rep in reps:
        for v in trained_variants(gs, exps):
            train_cell(out, gs, v, rep, b, log)
        for exp in exps:
            tournament_cell(out, gs, exp, rep, b, log)
    return key


def _job(task):
    out, key, reps, exps, overrides = task
    return run_game(out, key, reps, exps, overrides)


def run(out, keys, reps, experiments=None, overrides=None, jobs: int = 1) -> None:
    """All games' cells; ``jobs`` games at a time (spawned processes), cheapest first."""
    tasks = [(str(out), k, list(reps), experiments, overrides) for k in keys]
    if jobs > 1 and len(tasks) > 1:
        import multiprocessing

        with multiprocessing.get_context("spawn").Pool(min(jobs, len(tasks)), maxtasksperchild=1) as pool:
            for key in pool.imap_unordered(_job, tasks):
                print(f"[game] {key}: every cell done", flush=True)
    else:
        for t in tasks:
            _job(t)


def _se(x) -> float:
    return float(np.std(x, ddof=1) / math.sqrt(len(x))) if len(x) > 1 else float("nan")


def collect(out, keys, reps) -> dict:
    """Merge every finished cell under ``out`` into one summary (JSON-ready)."""
    out = Path(out)
    summary = {"reps": list(reps), "games": {}}
    for key in keys:
        gs = setup(key)
        entry = {"game": gs.game, "params": gs.params, "title": gs.title, "heuristics": list(gs.heuristics),
                 "training": {}, "experiments": {}, "budget": None}
        for v in trained_variants(gs):
            cells = [c for c in (_read(cell_folder(out, key, v, r) / "cell.json") for r in reps) if c]
            if cells:
                entry["budget"] = entry["budget"] or cells[0]["budget"]
                entry["training"][v] = {
                    "reps": len(cells), "games_mean": float(np.mean([c["games"] for c in cells])),
                    "games": [c["games"] for c in cells],
                    "cpu_seconds_mean": float(np.mean([c["cpu_seconds"] for c in cells])),
                    "train_seconds_mean": float(np.mean([c["train_seconds"] for c in cells]))}
        for exp in EXPERIMENTS:
            names = variants_of(exp, gs)
            tours = [t for t in (_read(tournament_file(out, key, exp, r)) for r in reps) if t]
            per = {}
            for n in names:
                x = [t["variants"][n]["win_pct"] for t in tours]
                per[n] = {"mean": float(np.mean(x)) if x else float("nan"), "se": _se(x), "per_rep": x,
                          "games": int(sum(t["variants"][n]["games"] for t in tours))}
            entry["experiments"][exp] = {
                "variants": per, "reps_done": [t["rep"] for t in tours],
                "cpu_seconds": float(sum(t.get("cpu_seconds", 0.0) for t in tours)),
                "match": ({k: tours[0][k] for k in ("depth", "openings", "opening_plies")} if tours else None)}
        summary["games"][key] = entry
    return summary
