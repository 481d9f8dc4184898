"""Reproduce Table I and Fig. 6 of Thill, Bagheri, Koch & Konen 2014: eligibility traces on Connect Four.

Each variant (:data:`VARIANTS`: the paper's Table I rows, farl's presets ``tcl-rr`` etc., plus ``tdl-std``)
is trained ``runs`` times by self-play (seeds ``0 .. runs-1``) and measured as the paper does: every
10,000 training games, the *success rate* of the greedy agent in 200 games against the perfect player, the
agent moving first and the perfect player choosing at random among the moves that keep its result in its
first 12 plies (farl's ``c4-seed002`` protocol, :func:`farl_agents.evaluate.evaluate`; a win scores 1, a
draw 0.5). :mod:`farl_agents.experiments.traces_report` turns the curves into the time to learn (last
crossing of 80 % by the smoothed success rate) and the asymptotic success, and writes the page.

Everything runs as Table 1 does (:mod:`farl_agents.experiments.table1`): one resumable
:class:`~farl_agents.runs.Run` folder per variant and seed, trained through
:func:`farl_agents.backend.run_tasks` (local workers or Ray), cached once finished::

    OUT/eligibility_traces[_BUDGET].md                 the table beside the paper's, the claims
    OUT/eligibility_traces[_BUDGET]_box.png           time to learn per variant (Fig. 6)
    OUT/eligibility_traces[_BUDGET]_runs/<variant>/seed<k>/   run.json, curve.csv, checkpoint.json,
                                                      success.csv (one row per measurement), result.json

With ``OUT`` = ``docs/results`` the runs train under ``runs/`` and copy all but their agents to ``OUT``
(:func:`~farl_agents.experiments.table1_rows.agents_root`). ``success.csv`` rows beyond the run's last
checkpoint are dropped on resume; training resumes bit-identically and the evaluations are seeded, so the
rows come back the same.
"""
from __future__ import annotations

import csv
import datetime
import json
import os
import shutil
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

import farl_envs
from farl_agents.atomic import atomic_write_json, atomic_write_text
from farl_agents.backend import STREAM_SECONDS, check_backend, check_jobs, local_workers, run_tasks
from farl_agents.evaluate import evaluate
from farl_agents.experiments.table1_rows import RESULTS_DIR, agents_root
from farl_agents.learners.presets import paper_config, paper_game_params
from farl_agents.runs import LostCheckpoint, Run, RunError, RunSpec, read_spec
from farl_agents.runs.run import ensure_writable

#: variant key -> (label, farl preset, overrides). TDL-STD is TDL[et] without traces (λ = 0).
VARIANTS = {
    "tdl-std": ("TDL-STD", "tdl-et", {"lam": 0.0}),
    "tdl-et": ("TDL[et]", "tdl-et", {}),
    "tdl-rr": ("TDL[rr]", "tdl-rr", {}),
    "tcl-std": ("TCL-STD", "tcl-std", {}),
    "tcl-et": ("TCL[et]", "tcl-et", {}),
    "tcl-res": ("TCL[res]", "tcl-res", {}),
    "tcl-rep": ("TCL[rep]", "tcl-rep", {}),
    "tcl-rr": ("TCL[rr]", "tcl-rr", {}),
    "tcl-m-et": ("TCL-M[et]", "tcl-m-et", {}),
    "tcl-m-rr": ("TCL-M[rr]", "tcl-m-rr", {}),
}
#: the five variants issue 23 asks for (``--variants`` default)
DEFAULT_VARIANTS = ("tdl-std", "tcl-std", "tcl-et", "tcl-rr", "tcl-m-rr")
#: Thill et al. 2014, Table I: time to learn [80 %], median of 20 runs: (games, minutes on one i7-3770 core)
PAPER_TABLE = {
    "tdl-std": (565_000, 68.0), "tdl-et": (370_000, 48.3), "tdl-rr": (305_000, 44.1),
    "tcl-std": (430_000, 54.6), "tcl-et": (230_000, 37.9), "tcl-res": (220_000, 28.5),
    "tcl-rep": (215_000, 34.8), "tcl-rr": (175_000, 26.1), "tcl-m-et": (145_000, 38.0),
    "tcl-m-rr": (115_000, 25.5),
}
PROTOCOL = "c4-seed002"
LEVEL = 0.8
SUCCESS_FIELDS = ("episode", "success", "se", "train_seconds", "eval_seconds")


@dataclass(frozen=True)
class Plan:
    """One run under a budget: training games, games between measurements, games per measurement."""

    episodes: int
    every: int
    games: int


#: paper: 1,000,000 games (the paper trained 2,000,000; the issue asks for at least 1,000,000)
BUDGETS = {"paper": Plan(1_000_000, 10_000, 200), "long": Plan(2_000_000, 10_000, 200),
           "quick": Plan(100_000, 10_000, 50), "smoke": Plan(300, 100, 2)}


def prefix(budget: str) -> str:
    return "eligibility_traces" if budget == "paper" else f"eligibility_traces_{budget}"


def run_folder(root, budget: str, variant: str, seed: int) -> Path:
    return Path(root) / f"{prefix(budget)}_runs" / variant / f"seed{seed}"


def parse_variants(text: str) -> list[str]:
    """``"tcl-rr,tcl-et"`` or ``"default"`` / ``"all"`` -> variant keys (checked)."""
    keys = list(DEFAULT_VARIANTS) if text == "default" else list(VARIANTS) if text == "all" else \
        [k.strip() for k in text.split(",") if k.strip()]
    bad = [k for k in keys if k not in VARIANTS]
    if bad or not keys:
        raise ValueError(f"unknown variant(s) {', '.join(bad) or text!r}; known: {', '.join(VARIANTS)} "
                         f"(or default, all)")
    return keys


def run_spec(variant: str, seed: int, budget: str) -> RunSpec:
    """The training run of one variant and seed: no built-in evaluation (the runner measures success)."""
    if budget not in BUDGETS:
        raise ValueError(f"unknown budget {budget!r}; known: {', '.join(BUDGETS)}")
    _, preset, overrides = VARIANTS[variant]
    plan = BUDGETS[budget]
    cfg = paper_config(preset, seed=seed, episodes=plan.episodes, **overrides)
    return RunSpec("connect_four", paper_game_params(preset), cfg, eval_every=plan.every)


def read_success(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    with open(path, newline="") as f:
        return [{k: (int(v) if k == "episode" else float(v)) for k, v in row.items()} for row in csv.DictReader(f)]


def write_success(path: Path, rows: list[dict]) -> None:
    lines = [",".join(SUCCESS_FIELDS)] + [",".join(str(r[k]) for k in SUCCESS_FIELDS) for r in rows]
    atomic_write_text(path, "\n".join(lines) + "\n")


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
    if (folder / "run.json").exists():
        try:
            run = Run.open(folder)
        except LostCheckpoint:
            run = Run.restart(folder)
        if run.spec != spec:
            raise RunError(f"{folder} holds a run with other settings than this farl's {task['budget']} budget; "
                           f"move it away to rerun")
        return run
    if publish is not None and (publish / "run.json").exists() and read_spec(publish) != spec:
        raise RunError(f"{publish} holds a run with other settings; move it away to rerun")
    command = f"farl reproduce traces --variants {task['variant']} --budget {task['budget']}"
    return Run.create(folder, spec, command=command)


def _run_task(task: dict, folder: Path, publish: Path | None) -> dict:
    for where in (publish, folder):
        if where is not None and (where / "result.json").exists():
            if where == folder:
                _publish(folder, publish)
            return {**json.loads((where / "result.json").read_text()), "status": "cached"}
    from farl_agents.experiments.traces_report import run_summary

    plan = BUDGETS[task["budget"]]
    spec = run_spec(task["variant"], task["seed"], task["budget"])
    run = _open_run(task, folder, publish, spec)
    rows = [r for r in read_success(folder / "success.csv") if r["episode"] <= run.episodes_done]
    status = "stopped"
    while True:
        if not rows or rows[-1]["episode"] < run.episodes_done:
            t0 = time.perf_counter()
            try:
                success, se = measure(run.agent, plan.games, task["seed"])
            except KeyboardInterrupt:
                return {**_task_id(task), "status": "interrupted", "episodes_done": run.episodes_done}
            rows.append({"episode": run.episodes_done, "success": success, "se": se,
                         "train_seconds": round(run.train_seconds, 3),
                         "eval_seconds": round(time.perf_counter() - t0, 3)})
            write_success(folder / "success.csv", rows)
        if status == "done":
            break
        target = min(plan.episodes, (run.episodes_done // plan.every + 1) * plan.every)
        status = run.train(stop_after=target, progress=False, checkpoint_minutes=10.0)
        if status == "interrupted":
            _publish(folder, publish)
            return {**_task_id(task), "status": status, "episodes_done": run.episodes_done}
    result = {**_task_id(task), "episodes": plan.episodes, **run_summary(rows, plan.episodes),
              "train_seconds": run.train_seconds, "wall_seconds": run.wall_seconds,
              "finished": datetime.datetime.now().isoformat(timespec="seconds"),
              "farl_version": farl_envs.__version__}
    atomic_write_json(folder / "result.json", result)
    _publish(folder, publish)
    return {**result, "status": "done"}


# ------------------------------------------------------------- the study
def reproduce(variants: list[str], runs: int = 3, budget: str = "paper", out=RESULTS_DIR, jobs: int | None = None,
              backend: str = "local", command: str | None = None, progress: bool = True, log=print,
              agents=None, ray_address: str | None = None, stream_seconds: float = STREAM_SECONDS) -> int:
    """Train, measure and report; 0 (all done), 1 (some failed) or 130 (interrupted: run again to resume)."""
    from farl_agents.experiments.traces_report import write_report

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
def cost(variant: str = "tcl-rr", games: int = 50_000, seed: int = 0) -> dict:
    """CPU seconds of ``games`` training games of ``variant`` and of one 200-game measurement after them, with
    a fresh perfect player (cold solver table) and then with the same one again (warm), as the runs use it."""
    from farl_agents.learners import NTupleAgent

    spec = run_spec(variant, seed, "paper")
    agent = NTupleAgent(farl_envs.game_spec(spec.game, **spec.game_params), spec.config)
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


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description="Cost of the eligibility-trace study: training and one measurement")
    ap.add_argument("--variant", default="tcl-rr", choices=list(VARIANTS))
    ap.add_argument("--games", type=int, default=50_000)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    print(json.dumps(cost(a.variant, a.games, a.seed)))
