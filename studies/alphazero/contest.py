"""AlphaZero against n-tuple TD-FARL, descent and MaskablePPO at equal CPU time (issue 44).

The question (Scheiermann & Konen 2022 frame their MCTS wrapper as "AlphaZero-inspired", search only at test
time): does n-tuple TD-FARL plus a test-time search get AlphaZero's strength at a fraction of its training
cost? Every contestant trains by self-play for the same CPU minutes on one core, through farl's one run stack
(``farl train``'s run folders: checkpoints, curves, agent files), and its agent file is then measured by one
harness, played as ``farl eval`` plays it:

==================  ===============================================================  ===========================
contestant          training (``farl train --algo``)                                 play
==================  ===============================================================  ===========================
``td-farl``         n-tuple TD-FARL, the paper preset (Konen & Bagheri 2020)          greedy on its afterstates
``td-farl+mcts``    the same agent                                                   PUCT with the agent's values
                                                                                     (:data:`SIMULATIONS` per move)
``alphazero``       farl's AlphaZero (Silver et al. 2018), batched PUCT self-play    PUCT with its network
                                                                                     (:data:`SIMULATIONS` per move)
``descent``         descent (Cohen-Solal 2020)                                       UBFMs on f_θ (``farl eval``'s
                                                                                     200 iterations per move)
``maskable-ppo``    sb3-contrib's MaskablePPO against a frozen copy of itself        its policy's likeliest move
==================  ===============================================================  ===========================

**Equal CPU time.** AlphaZero and descent count their budget in CPU seconds of their process (``cpu_clock``).
The two learners whose budget is a count (TD-FARL's episodes, PPO's environment steps) get the count their
own measured speed buys in that time: :func:`calibrate` trains a throw-away learner for
:data:`CALIBRATION_SECONDS` of CPU time and the budget is that rate times the minutes (kept in
``calibration.json``, so every seed of a game gets the same count). Every run's measured training seconds
are in its result, so the table shows how close each came.

**Resumable.** A task is one (game, budget, contestant, seed); its run folder is
``OUT/<game>/<minutes>min/<learner>-seed<k>/`` and its ``result.json`` is written last. Rerunning the same
command skips finished tasks and resumes an unfinished run from its last checkpoint.

Run ``python -m studies.alphazero.contest --help`` (or ``farl reproduce alphazero``).
"""
from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import farl_envs
from farl_agents import families
from farl_agents.atomic import atomic_write_json
from farl_agents.runs.evaluation import evaluate_agent
from farl_agents.runs.run import Run
from farl_agents.runs.spec import RunSpec

LEARNERS = ("td-farl", "alphazero", "descent", "maskable-ppo")
"""The trained contestants (``farl train --algo`` names); ``td-farl+mcts`` is the first one with a search."""
SIMULATIONS = 100
"""PUCT simulations per move of the searching contestants at play (AlphaZero and TD-FARL + MCTS)."""
CALIBRATION_SECONDS = 20.0
"""CPU seconds of the throw-away run that measures a counted learner's speed."""
CURVE_POINTS = 4
"""Curve points per run after the start (evaluations every quarter of the budget)."""


@dataclass(frozen=True)
class Arena:
    """One game of the contest: its budgets and how its contestants are measured."""

    game: str
    params: dict
    budgets: tuple
    """CPU minutes of training per run (each budget its own runs: the learners' schedules follow it)."""
    references: tuple
    """Fixed opponents of the final evaluation (``make_opponent`` names)."""
    curve_vs: str
    """The opponent of the curve points."""
    starts: str
    """Start positions of every evaluation (``farl train --eval-starts``): deterministic players need
    openings to play more than one game per seat."""
    final_games: int = 25
    """Games per seat and reference at the end of a run."""
    curve_games: int = 10
    """Games per seat at each curve point."""


ARENAS = {
    "tictactoe": Arena("tictactoe", {}, (0.5, 2.0), ("maxn10", "random"), "maxn10", "start+1ply"),
    "connect_four": Arena("connect_four", {}, (2.0, 8.0), ("ab-dl", "mcts200", "random"), "mcts200", "random:2"),
    "hex": Arena("hex", {"size": 6}, (2.0, 8.0), ("mcts1000", "random"), "mcts200", "random:2"),
}
"""The games of the contest, smallest first."""


# ------------------------------------------------------------- settings of one run
def _config(learner: str, arena: Arena, minutes: float, seed: int, count: int | None):
    """The family's settings of one run, built as ``farl train`` builds them (preset, algo, overrides)."""
    family = families.of_algo(learner)
    hooks = family.hooks()
    preset = "paper" if family.name == "ntuple" else None
    base, params = hooks.base_config(learner, arena.game, preset)
    fields = {**base, **hooks.algo_fields(learner), "seed": seed}
    if family.name == "ntuple":
        fields["episodes"] = int(count)
    elif family.name == "sb3":
        fields["timesteps"] = int(count)
    elif family.name == "alphazero":
        fields.update(minutes=minutes, cpu_clock=True, play_simulations=SIMULATIONS)
    elif family.name == "descent":
        fields.update(minutes=minutes, cpu_clock=True)
    game = farl_envs.game_spec(arena.game, **{**params, **arena.params})
    config = hooks.finish_config(hooks.Trainer.config_class.from_dict(fields), game)
    return config, dict(game.params), family.name


def run_spec(learner: str, arena: Arena, minutes: float, seed: int, count: int | None = None) -> RunSpec:
    """The run of one task; ``count``: episodes (TD-FARL) or steps (PPO) from :func:`calibrate`."""
    config, params, family = _config(learner, arena, minutes, seed, count)
    every = max(1, count // CURVE_POINTS) if family in ("ntuple", "sb3") else 60.0 * minutes / CURVE_POINTS
    return RunSpec(arena.game, params, config, eval_vs=(arena.curve_vs,), eval_every=every,
                   eval_games=arena.curve_games, eval_starts=arena.starts, eval_seed=seed, family=family)


def counted(learner: str) -> bool:
    """Whether the learner's budget is a count (then :func:`calibrate` converts minutes into it)."""
    return families.of_algo(learner).name in ("ntuple", "sb3")


# ------------------------------------------------------------- calibration
def calibrate(learner: str, arena: Arena, seconds: float | None = None) -> float:
    """Units (episodes or steps) per CPU second of ``learner`` on the arena's game, measured on a throw-away
    learner after its first chunk (which compiles): chunks of about a second for ``seconds`` (default
    :data:`CALIBRATION_SECONDS`) of CPU time."""
    seconds = CALIBRATION_SECONDS if seconds is None else seconds
    spec = run_spec(learner, arena, 1.0, 0, 10**9)
    trainer = families.get(spec.family).trainer().create(spec)
    trainer.train_chunk(trainer.first_chunk)  # compiles (or loads numba's cache) and sets up: not measured
    amount, done, cpu = float(trainer.first_chunk), 0.0, 0.0
    while cpu < seconds:
        t = time.process_time()
        before = trainer.done
        trainer.train_chunk(amount)
        dt = time.process_time() - t
        done += trainer.done - before
        cpu += dt
        amount = max(1.0, (trainer.done - before) / max(dt, 1e-3))  # about one second per chunk
    return done / cpu


def _calibration(out: Path, learner: str, arena: Arena) -> float:
    """The measured rate of ``learner`` on the arena, from ``out/calibration.json`` or measured now."""
    path = out / "calibration.json"
    table = json.loads(path.read_text()) if path.exists() else {}
    key = f"{arena.game}/{learner}"
    if key not in table:
        rate = calibrate(learner, arena)
        table = json.loads(path.read_text()) if path.exists() else {}
        table[key] = {"units_per_cpu_second": rate, "measured": datetime.datetime.now().isoformat("T", "seconds"),
                      "load": _load()}
        atomic_write_json(path, table)
    return float(table[key]["units_per_cpu_second"])


# ------------------------------------------------------------- one task
def folder_of(out: Path, game: str, minutes: float, learner: str, seed: int) -> Path:
    return out / game / f"{minutes:g}min" / f"{learner}-seed{seed}"


def run_task(out: Path, arena: Arena, minutes: float, learner: str, seed: int, log=print) -> dict:
    """Train (or resume) one run and measure its agent(s) against the references; cached in the run folder."""
    folder = folder_of(out, arena.game, minutes, learner, seed)
    if (folder / "result.json").exists():
        return json.loads((folder / "result.json").read_text())
    count = None
    if counted(learner):
        count = max(1, int(round(_calibration(out, learner, arena) * 60.0 * minutes)))
    spec = run_spec(learner, arena, minutes, seed, count)
    run, _ = Run.open_or_create(folder, spec, command=f"python -m studies.alphazero.contest --games {arena.game}")
    cpu0 = time.process_time()
    status = run.train(progress=False, checkpoint_minutes=2.0)
    if status != "done":
        return {"status": status}
    session_cpu = time.process_time() - cpu0
    from farl_agents.loading import load_player

    game = farl_envs.game_spec(spec.game, **spec.game_params)
    names = [learner] + (["td-farl+mcts"] if learner == "td-farl" else [])
    players = {name: load_player(str(folder) + (f"+mcts{SIMULATIONS}" if name.endswith("+mcts") else ""), game)[0]
               for name in names}  # the agent file as `farl eval` plays it
    scores = {}
    for name, player in players.items():
        t0 = time.perf_counter()
        res = evaluate_agent(player, list(arena.references), arena.starts, arena.final_games, seed=1000 + seed,
                             game=game)
        scores[name] = {"eval_seconds": time.perf_counter() - t0,
                        **{ref: {"score": float(m.score), "se": float(m.win_rate_se)}
                           for ref, m in zip(arena.references, res.matchups)}}
        log(f"[contest] {arena.game} {minutes:g} min {name} seed {seed}: "
            + ", ".join(f"{r} {100 * scores[name][r]['score']:.0f}%" for r in arena.references))
    result = {"status": "done", "game": arena.game, "minutes": minutes, "learner": learner, "seed": seed,
              "count": count, "train_seconds": run.train_seconds, "wall_seconds": run.wall_seconds,
              "session_cpu_seconds": session_cpu, "episodes": run.trainer.episodes, "scores": scores,
              "curve": [{k: v for k, v in row.items()} for row in run.rows],
              "finished": datetime.datetime.now().isoformat("T", "seconds"), "load": _load()}
    atomic_write_json(folder / "result.json", result)
    return result


def _load() -> float | None:
    try:
        return round(float(os.getloadavg()[0]), 2)
    except (AttributeError, OSError):
        return None


# ------------------------------------------------------------- the whole contest
def tasks(games, seeds: int, learners=LEARNERS) -> list[tuple]:
    """(arena, minutes, learner, seed) in the order they run: game by game, the smaller budget first, then
    seed by seed (so a stopped contest has whole seeds of the cheaper cells)."""
    return [(ARENAS[g], m, lr, s) for g in games for m in ARENAS[g].budgets for s in range(seeds)
            for lr in learners]


def contest(games, seeds: int = 3, out="runs/alphazero", learners=LEARNERS, log=print) -> list[dict]:
    """Run every task not yet finished; a failing task is logged (its traceback in ``error.txt``) and skipped."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    results = []
    for arena, minutes, learner, seed in tasks(games, seeds, learners):
        folder = folder_of(out, arena.game, minutes, learner, seed)
        try:
            r = run_task(out, arena, minutes, learner, seed, log=log)
        except KeyboardInterrupt:
            log("[contest] stopped: the same command continues")
            raise
        except Exception as exc:  # noqa: BLE001 - one failing run must not stop the others; kept in error.txt
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "error.txt").write_text(traceback.format_exc())
            log(f"[contest] {arena.game} {minutes:g} min {learner} seed {seed} failed: {type(exc).__name__}: {exc}")
            continue
        if r["status"] != "done":  # stopped by Ctrl-C or SIGTERM at a safe point: the contest stops with it
            log(f"[contest] {arena.game} {minutes:g} min {learner} seed {seed}: {r['status']}; the same command "
                f"continues")
            raise KeyboardInterrupt
        results.append(r)
    return results


LADDER_GAMES = 10
"""Games per seating of each pair in a ladder."""


def ladder_players(out, arena: Arena) -> dict:
    """``{label: player name}`` of the arena's ladder: each contestant's seed-0 agent of the largest budget
    (TD-FARL also with its search), then the references."""
    minutes = max(arena.budgets)
    players = {}
    for learner in LEARNERS:
        folder = folder_of(Path(out), arena.game, minutes, learner, 0)
        players[f"{learner} ({minutes:g} min)"] = str(folder)
        if learner == "td-farl":
            players[f"td-farl+mcts ({minutes:g} min)"] = f"{folder}+mcts{SIMULATIONS}"
    for ref in dict.fromkeys(arena.references + ("random",)):
        players[ref] = ref
    return players


def ladders(games, out="runs/alphazero", log=print) -> None:
    """One Elo ladder per game (resumable: its finished matches are kept) once its seed-0 runs of the largest
    budget are finished; a game whose runs are not is skipped with a note."""
    from farl_agents.ladder import ladder

    for g in games:
        arena = ARENAS[g]
        players = ladder_players(out, arena)
        missing = [lb for lb, name in players.items() if name.startswith(str(out)) and
                   not (Path(name.split("+")[0]) / "result.json").exists()]
        if missing:
            log(f"[contest] {g}: no ladder yet, unfinished: {', '.join(missing)}")
            continue
        ladder(arena.game, list(players.values()), LADDER_GAMES, Path(out) / g / "ladder", params=arena.params,
               openings=arena.starts, log=log,
               command=f"python -m studies.alphazero.contest --out {out} --ladder --games {g}")


def finished(out, game: str) -> list[dict]:
    """The finished results of one game under ``out``."""
    base = Path(out) / game
    return [json.loads(p.read_text()) for p in sorted(base.glob("*min/*/result.json"))] if base.exists() else []


def mean_se(values) -> tuple[float, float]:
    """Mean and standard error over runs (0 for one run)."""
    v = np.asarray(values, dtype=float)
    return float(v.mean()), (float(v.std(ddof=1) / math.sqrt(len(v))) if len(v) > 1 else 0.0)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="python -m studies.alphazero.contest", description=__doc__.split("\n\n")[0])
    p.add_argument("--games", default=",".join(ARENAS), help=f"comma list of {', '.join(ARENAS)}")
    p.add_argument("--seeds", type=int, default=3, help="runs per contestant and budget (default 3)")
    p.add_argument("--learners", default=",".join(LEARNERS), help="comma list (default all)")
    p.add_argument("--out", default="runs/alphazero", help="the contest's folder (default runs/alphazero)")
    p.add_argument("--report", default=None, help="write the results page here (e.g. "
                   "docs/results/alphazero_vs_ntuple.md) from what is finished, training nothing more "
                   "unless --train is given too")
    p.add_argument("--train", action="store_true", help="with --report or --ladder: train first")
    p.add_argument("--ladder", action="store_true", help="play each game's ladder (its seed-0 agents of the "
                   "largest budget and the references) where those runs are finished")
    a = p.parse_args(argv)
    games = [g for g in a.games.split(",") if g]
    unknown = [g for g in games if g not in ARENAS]
    if unknown:
        p.error(f"unknown game(s) {', '.join(unknown)}; the contest has {', '.join(ARENAS)}")
    learners = [x for x in a.learners.split(",") if x]
    bad = [x for x in learners if x not in LEARNERS]
    if bad:
        p.error(f"unknown learner(s) {', '.join(bad)}; the contest has {', '.join(LEARNERS)}")
    if a.seeds < 1:
        p.error("--seeds must be >= 1")
    if (a.report is None and not a.ladder) or a.train:
        contest(games, a.seeds, a.out, learners)
    if a.ladder:
        ladders(games, a.out)
    if a.report is not None:
        from studies.alphazero.contest_report import write_report

        print(f"wrote {write_report(a.out, a.report, games)}")


if __name__ == "__main__":
    main()
