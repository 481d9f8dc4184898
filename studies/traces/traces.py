"""Reproduce Table I and Fig. 6 of Thill, Bagheri, Koch & Konen 2014: eligibility traces on Connect Four.

Each variant (:data:`VARIANTS`: the paper's Table I rows, farl's presets ``tcl-rr`` etc., plus ``tdl-std``)
is trained ``runs`` times by self-play (seeds ``0 .. runs-1``) and measured as the paper does: every
10,000 training games, the *success rate* of the greedy agent in 200 games against the perfect player, the
agent moving first and the perfect player choosing at random among the moves that keep its result in its
first 12 plies (farl's ``c4-seed002`` protocol, :func:`farl_agents.evaluate.evaluate`; a win scores 1, a
draw 0.5). :mod:`studies.traces.traces_report` turns the curves into the time to learn (last
crossing of 80 % by the smoothed success rate) and the asymptotic success, and writes the page.

Everything runs as Table 1 does (:mod:`studies.table1.table1`): one resumable
:class:`~farl_agents.runs.Run` folder per variant and seed, trained through
:func:`farl_agents.backend.run_tasks` (local workers or Ray), cached once finished::

    OUT/eligibility_traces[_BUDGET].md                 the table beside the paper's, the claims
    OUT/eligibility_traces[_BUDGET]_box.png           time to learn per variant (Fig. 6)
    OUT/eligibility_traces[_BUDGET]_runs/<variant>/seed<k>/   run.json, curve.csv, checkpoint.json,
                                                      success.csv (one row per measurement), result.json

With ``OUT`` = ``docs/results`` the runs train under ``runs/`` and copy all but their agents to ``OUT``
(:func:`~studies.table1.table1_rows.agents_root`). ``success.csv`` rows beyond the run's last
checkpoint are dropped on resume; training resumes bit-identically and the evaluations are seeded, so the
rows come back the same.
"""
from __future__ import annotations

import datetime
import json
import os
import shutil
import time
import traceback
from pathlib import Path

import numpy as np

import farl_envs
from farl_agents.atomic import atomic_write_json
from farl_agents.backend import STREAM_SECONDS, check_backend, check_jobs, local_workers, run_tasks
from farl_agents.evaluate import evaluate
from farl_agents.runs import Run, RunError, RunSpec, read_spec
from farl_agents.runs.run import ensure_writable
from farl_agents.safety import StopRequest
from farl_envs.core.rng import make_rng
from studies import ship_to_ray
from studies.table1.table1_rows import agents_root
from studies.traces.traces_rows import (  # noqa: F401  (the study's names, also used through this module)
    BUDGETS,
    CENTRE,
    DEFAULT_VARIANTS,
    LEVEL,
    PAPER_TABLE,
    PROTOCOL,
    SUCCESS_FIELDS,
    VARIANTS,
    Plan,
    parse_variants,
    prefix,
    read_success,
    run_folder,
    run_spec,
    write_success,
)

_PERFECT = {}


def perfect_player(game):
    """The protocol's perfect player, one per process: its solver's table stays warm from one measurement to
    the next (exact moves never depend on the table's contents, so the success rates are the same)."""
    if "player" not in _PERFECT:
        from farl_agents.opponents import connect_four_player

        _PERFECT["player"] = connect_four_player("ab", game, random_plies=12)
    return _PERFECT["player"]


def measure(agent, games: int, seed: int) -> tuple[float, float]:
    """Success rate ± s.e. of ``agent`` in ``games`` games of the paper's protocol."""
    res = evaluate(agent.game, agent, perfect_player(agent.game), protocol=PROTOCOL, n_games=games, seed=seed)
    m = res.matchups[0]
    return float(m.score), float(m.score_se)


def opening(agent) -> int:
    """The column of ``agent``'s greedy first move on the empty board (a tie, e.g. between mirror columns, broken
    by a fixed draw)."""
    g = agent.game
    return int(agent.act(g, g.initial_state(g.p, make_rng(0)), make_rng(1)))


def opening_values(agent) -> list[float]:
    """The first player's values of the seven afterstates of the first move."""
    g = agent.game
    start = g.initial_state(g.p, make_rng(0))
    after, rewards = np.empty_like(start), np.zeros(g.n_players)
    out = []
    for a in range(g.n_actions):
        g.afterstate(g.p, start, a, after, rewards)
        out.append(float(agent.afterstate_value(after, 0)))
    return out


# ------------------------------------------------------------- one run
def run_task(task: dict) -> dict:
    """Train (or resume) one run, measuring success every ``plan.every`` games; cached in ``task["folder"]``.

    ``task`` = ``{"variant", "seed", "budget", "folder", "publish"}`` (as Table 1's tasks). Returns the
    result with a ``status``: ``done``/``cached``, ``interrupted`` or ``failed`` (traceback in error.txt).
    """
    folder = Path(task["folder"])
    try:
        return _run_task(task, folder, Path(task["publish"]) if task.get("publish") else None)
    except Exception as exc:  # one failing run must not stop the others
        try:
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "error.txt").write_text(traceback.format_exc())
        except OSError:
            pass
        return {**_task_id(task), "status": "failed", "error": f"{type(exc).__name__}: {exc}"}


PUBLISHED = ("run.json", "checkpoint.json", "curve.csv", "success.csv", "result.json")


def _task_id(task: dict) -> dict:
    return {k: task[k] for k in ("variant", "seed", "budget")}


def _publish(folder: Path, publish: Path | None) -> None:
    if publish is None:
        return
    publish.mkdir(parents=True, exist_ok=True)
    for name in PUBLISHED:  # result.json last: a cut copy never looks finished
        if (folder / name).is_file():
            tmp = publish / f".{name}.tmp"
            shutil.copyfile(folder / name, tmp)
            os.replace(tmp, publish / name)


def _open_run(task: dict, folder: Path, publish: Path | None, spec: RunSpec) -> Run:
    if not (folder / "run.json").exists() and publish is not None and (publish / "run.json").exists() \
            and read_spec(publish) != spec:
        raise RunError(f"{publish} holds a run with other settings; move it away to rerun")
    command = f"farl reproduce traces --variants {task['variant']} --budget {task['budget']}"
    return Run.open_or_create(folder, spec, command, f"other settings than this farl's {task['budget']} budget")[0]


def _run_task(task: dict, folder: Path, publish: Path | None) -> dict:
    for where in (publish, folder):
        if where is not None and (where / "result.json").exists():
            if where == folder:
                _publish(folder, publish)
            return {**json.loads((where / "result.json").read_text()), "status": "cached"}
    from studies.traces.traces_report import run_summary

    plan = BUDGETS[task["budget"]]
    spec = run_spec(task["variant"], task["seed"], task["budget"])
    run = _open_run(task, folder, publish, spec)
    rows = [r for r in read_success(folder / "success.csv") if r["episode"] <= run.trainer.episodes]
    status = "stopped"
    # Ctrl-C / SIGTERM during a measurement (most of a run's time) stops the run after it, as one during the
    # training pieces does (their Run.train has its own handler); without this a worker process, which ignores
    # Ctrl-C outside a run's training, would go on to the end of its run
    with StopRequest() as stop:
        while True:
            if not rows or rows[-1]["episode"] < run.trainer.episodes:
                t0 = time.perf_counter()
                try:
                    success, se = measure(run.trainer.agent, plan.games, task["seed"])
                except KeyboardInterrupt:  # a second Ctrl-C
                    return {**_task_id(task), "status": "interrupted", "episodes_done": run.trainer.episodes}
                rows.append({"episode": run.trainer.episodes, "success": success, "se": se,
                             "train_seconds": round(run.train_seconds, 3),
                             "eval_seconds": round(time.perf_counter() - t0, 3), "opening": opening(run.trainer.agent)})
                write_success(folder / "success.csv", rows)
            if status == "done":
                break
            if stop.requested:
                status = "interrupted"
            else:
                target = min(plan.episodes, (run.trainer.episodes // plan.every + 1) * plan.every)
                status = run.train(stop_after=target, progress=False, checkpoint_minutes=10.0)
            if status == "interrupted":
                _publish(folder, publish)
                return {**_task_id(task), "status": status, "episodes_done": run.trainer.episodes}
    result = {**_task_id(task), "episodes": plan.episodes, **run_summary(rows, plan.episodes),
              "train_seconds": run.train_seconds, "wall_seconds": run.wall_seconds,
              "finished": datetime.datetime.now().isoformat(timespec="seconds"),
              "farl_version": farl_envs.__version__}
    atomic_write_json(folder / "result.json", result)
    _publish(folder, publish)
    return {**result, "status": "done"}


# ------------------------------------------------------------- the study
def reproduce(variants: list[str], runs: int = 3, budget: str = "paper", out=None, jobs: int | None = None,
              backend: str = "local", command: str | None = None, progress: bool = True, log=print,
              agents=None, ray_address: str | None = None, stream_seconds: float = STREAM_SECONDS) -> int:
    """Train, measure and report; 0 (all done), 1 (some failed) or 130 (interrupted: run again to resume).

    ``out`` (the page's folder; ``docs/results`` for the shipped page) must be given: no folder is implied."""
    from studies.traces.traces_report import write_report

    if out is None:
        raise ValueError("out: the folder of the page and the runs (docs/results for the shipped page)")
    if budget not in BUDGETS:
        raise ValueError(f"unknown budget {budget!r}; known: {', '.join(BUDGETS)}")
    if runs < 1:
        raise ValueError("--runs must be >= 1")
    jobs = check_jobs(jobs or os.cpu_count() or 1)
    check_backend(backend, ray_address)
    out = ensure_writable(Path(out))
    home = agents_root(out, agents)
    if home != out:
        ensure_writable(home)
    tasks = [{"variant": v, "seed": seed, "budget": budget,
              "folder": str(run_folder(home, budget, v, seed)),
              "publish": None if home == out else str(run_folder(out, budget, v, seed))}
             for seed in range(runs) for v in variants]
    todo = [t for t in tasks if not (Path(t["publish"] or t["folder"]) / "result.json").exists()]
    where = f"{local_workers(jobs, len(todo))} local worker(s)" if backend == "local" else "Ray"
    log(f"Eligibility traces ({budget} budget): {len(tasks)} runs, {len(tasks) - len(todo)} already finished, "
        f"{len(todo)} to train on {where}")
    ship_to_ray(backend)
    results = run_tasks(run_task, todo, backend=backend, jobs=jobs, ray_address=ray_address, progress=progress,
                        log=log, desc="traces", describe=lambda r: f"{r['variant']} s{r['seed']}: {r['status']}",
                        stream_seconds=stream_seconds)
    failed = [r for r in results if r["status"] == "failed"]
    for r in failed:
        log(f"run {r['variant']} seed {r['seed']} failed: {r['error']}")
    log(f"wrote {write_report(out, budget, variants, command)}")
    if any(r["status"] == "interrupted" for r in results) or len(results) < len(todo):
        log("interrupted: finished runs are cached, unfinished ones checkpointed; run the same command again")
        return 130
    return 1 if failed else 0


# ------------------------------------------------------------- cost of the study
def fresh_agent(variant: str, seed: int = 0, **overrides):
    """An untrained agent with ``variant``'s paper-budget settings (``overrides`` change some of them)."""
    from farl_agents.learners import NTupleAgent

    spec = run_spec(variant, seed, "paper")
    return NTupleAgent(farl_envs.game_spec(spec.game, **spec.game_params), spec.config.replace(**overrides))


def cost(variant: str = "tcl-rr", games: int = 50_000, seed: int = 0) -> dict:
    """CPU seconds of ``games`` training games of ``variant`` and of one 200-game measurement after them, with
    a fresh perfect player (cold solver table) and then with the same one again (warm), as the runs use it."""
    agent = fresh_agent(variant, seed)
    t = time.process_time()
    agent.train(games)
    out = {"variant": variant, "games": games, "train_cpu": time.process_time() - t}
    _PERFECT.clear()
    for kind in ("cold", "warm"):
        t = time.process_time()
        out[f"success_{kind}"], _ = measure(agent, 200, seed)
        out[f"measure_cpu_{kind}"] = time.process_time() - t
    plan = BUDGETS["paper"]
    points = plan.episodes // plan.every
    out["projected_run_cpu_minutes"] = (out["train_cpu"] * plan.episodes / games
                                        + points * out["measure_cpu_warm"] + out["measure_cpu_cold"]) / 60
    return out


def weight_growth(variant: str = "tcl-rr", games: int = 300_000, every: int = 25_000, seed: int = 0,
                  **overrides) -> list[tuple[int, float]]:
    """``(games, largest |weight|)`` every ``every`` training games of ``variant`` (no measurements): a check that
    the tables stay bounded. ``overrides`` change the variant's settings (e.g. ``trace_mode="rep"``)."""
    agent = fresh_agent(variant, seed, **overrides)
    out = []
    while agent.episodes_done < games:
        agent.train(min(every, games - agent.episodes_done))
        out.append((agent.episodes_done, float(abs(agent.net.weights).max())))
    return out


def opening_probe(variant: str = "tcl-std", games: int = 300_000, every: int = 10_000, seed: int = 0,
                  log=print) -> dict:
    """Train ``variant`` and measure its success every ``every`` games as the study does, with the agent's opening
    move and the values of the seven first moves; returns the mean success with and without the centre opening."""
    agent = fresh_agent(variant, seed)
    by_opening = {True: [], False: []}
    while agent.episodes_done < games:
        agent.train(min(every, games - agent.episodes_done))
        success, _ = measure(agent, 200, seed)
        first = opening(agent)
        by_opening[first == CENTRE].append(success)
        log(f"{variant} {agent.episodes_done:>9,} games: success {100 * success:5.1f} %, opening column {first}, "
            "values of the first moves " + " ".join(f"{v:+.2f}" for v in opening_values(agent)))
    summary = {("centre" if k else "off_centre"): {"measurements": len(v), "mean_success": float(np.mean(v)) if v
                                                   else None, "min_success": min(v, default=None),
                                                   "max_success": max(v, default=None)}
               for k, v in by_opening.items()}
    log(json.dumps(summary))
    return summary


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description="Cost of the eligibility-trace study (training and one measurement), "
                                             "with --growth the largest weight during training, or with --openings "
                                             "the success rate beside the agent's opening move")
    ap.add_argument("--variant", default="tcl-rr", choices=list(VARIANTS))
    ap.add_argument("--games", type=int, default=50_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--growth", action="store_true", help="print the largest |weight| every 25,000 games instead")
    ap.add_argument("--openings", action="store_true",
                    help="measure success every 10,000 games with the agent's opening move and first-move values")
    ap.add_argument("--trace-mode", help="with --growth: another trace mode (et, res, rep, rr)")
    ap.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE",
                    help="with --growth: change one more LearnerConfig setting (a JSON value or a word), e.g. "
                         "--set tcl=none --set epsilon=0; repeatable")
    a = ap.parse_args()
    if a.openings:
        opening_probe(a.variant, a.games, seed=a.seed)
    elif a.growth:
        extra = {"trace_mode": a.trace_mode} if a.trace_mode else {}
        for item in a.set:
            field, sep, text = item.partition("=")
            if not sep:
                ap.error(f"--set takes FIELD=VALUE, got {item!r}")
            try:
                extra[field] = json.loads(text)
            except json.JSONDecodeError:
                extra[field] = text
        label = " ".join(f"{k}={v}" for k, v in extra.items())
        for g, w in weight_growth(a.variant, a.games, seed=a.seed, **extra):
            print(f"{a.variant} {label} {g:>9,} games: largest |weight| {w:.2f}", flush=True)
    else:
        print(json.dumps(cost(a.variant, a.games, a.seed)))
