"""Reproduce Table 1 of Konen & Bagheri 2020 (FARL): TD-FARL against no-FARL on seven games.

For every row (:mod:`studies.table1.table1_rows`), ``runs`` agents
are trained with final adaptation and as many without
(``paper_config(game, farl=...)`` with ``paper_game_params(game)``, seeds
``0 .. runs-1``; run ``k`` of both columns uses seed ``k``, so they share
their n-tuples and evaluation random numbers), and each final agent is
evaluated greedily as the paper does.

Everything is cached on disk, one resumable training run per folder
(:mod:`farl_agents.runs`)::

    OUT/table1.md                               paper vs ours (mean ± s.e. of the mean over runs)
    OUT/table1_<row>.png                        learning curves, FARL vs no-FARL (mean ± s.e. band)
    OUT/table1_runs/<row>/<farl|nofarl>-seed<k>/    run.json, curve.csv, checkpoint.json, eval.json,
                                                final_eval.json and result.json once finished;
                                                agent.npz and checkpoints/ too unless OUT is docs/results

``OUT`` is ``runs/table1`` unless ``--out`` names another folder. With ``OUT`` = ``docs/results`` (the
shipped pages, kept in git) the runs train in ``runs/table1_runs/...`` instead and copy everything but their agents to
``OUT`` (:func:`~studies.table1.table1_rows.agents_root`). Running
the command again skips finished runs (a ``result.json`` in ``OUT`` is
enough; the agent is not needed), resumes unfinished ones and rewrites the
table from everything finished so far. An unfinished run whose training
folder or checkpoint agent is gone (a fresh clone) starts again from
episode 0. The ``quick`` budget (minutes) writes ``table1_quick.md``,
``table1_quick_<row>.png`` and ``table1_quick_runs/`` instead, so its
numbers never mix with the paper-budget ones; ``smoke`` (seconds, for
tests) likewise.

The N-player rows beyond the paper (``--rows nplayer``, or ``sim3p,yavalath3p,chinese_checkers3p,ewn3p``;
:data:`~studies.table1.table1_rows.NPLAYER_ROWS`) run the same way with their own presets
(:func:`~farl_agents.learners.presets.nplayer_config`) and write ``table1_nplayer_<budget>.md``, curves and
runs under that prefix instead (``table1_nplayer_long`` for ``--budget paper``). The per-ply rows (``--rows
ply``, or ``connect4-ply`` etc.; :data:`~studies.table1.table1_rows.PLY_ROWS`) repeat the paper's
rows with the per-ply TD chain (Thill, Bagheri, Koch & Konen 2014's; on Nim3P its three-player extension) and
write ``table1_ply.md``
(paper budget) beside our player-centred runs of the same budget.

Runs go through :func:`farl_agents.backend.run_tasks`: local worker
processes, or with ``backend="ray"`` Ray tasks on a private Ray instance or
on a cluster joined with ``ray_address`` (their files come home to the
run folders here; docs/cluster.md). The table itself is written by
:mod:`studies.table1.table1_report`; the names the command line
uses (``ROWS``, ``BUDGETS``, ``parse_rows``, ``tabulate``, ``update_readme``,
``reproduce``) are all importable from here.
"""
from __future__ import annotations

import datetime
import json
import os
import shutil
import time
import traceback
from pathlib import Path

import farl_envs
from farl_agents.atomic import atomic_write_json
from farl_agents.backend import STREAM_SECONDS, check_backend, check_jobs, local_workers, run_tasks
from farl_agents.compile_notice import CompileWatch, game_title, notice
from farl_agents.runs import Run, RunError, RunSpec, read_spec
from farl_agents.runs.evaluation import evaluate_agent
from farl_agents.runs.run import ensure_writable
from studies import ship_to_ray
from studies.table1.table1_report import tabulate, update_readme, write_table
from studies.table1.table1_rows import (
    BUDGETS,
    PAPER_TABLE1,
    PUBLISHED_FILES,
    ROWS,
    Opponent,
    Row,
    agents_root,
    check_budget,
    find_row,
    parse_rows,
    plan,
    prefix,
    run_folder,
)

__all__ = ["BUDGETS", "PAPER_TABLE1", "ROWS", "Opponent", "Row", "parse_rows", "plan", "prefix", "run_folder",
           "run_spec", "run_task", "reproduce", "tabulate", "update_readme", "write_table"]

#: A run in progress writes a checkpoint at least this often.
CHECKPOINT_MINUTES = 5.0


def run_spec(row: Row, farl: bool, seed: int, budget: str) -> RunSpec:
    """The training run of one cell and seed (curve evaluations against the row's first opponent)."""
    p = plan(row, budget)
    cfg = row.config(farl, seed=seed, episodes=p.episodes)
    return RunSpec(row.game, row.game_params, cfg, eval_vs=(row.curve_opponent.name,),
                   eval_every=p.eval_every, eval_games=p.curve_games, eval_starts=row.starts, eval_seed=seed)


def available(opp: Opponent) -> bool:
    if not opp.optional:
        return True
    if opp.name.startswith("edax"):  # the binary and its weights (a run fails at its end without them)
        from farl_agents.opponents.edax import find_edax, find_eval_file
        binary = find_edax()
        return binary is not None and find_eval_file(binary) is not None
    return True


# ------------------------------------------------------------- one run
def run_task(task: dict) -> dict:
    """Train (or resume) one run and evaluate its final agent; everything cached in ``task["folder"]``.

    ``task`` = ``{"row", "farl", "seed", "budget", "folder", "publish"}``:
    the run trains in ``folder``; ``publish`` (None: the same folder) is the
    folder under ``OUT`` that gets a copy of its :data:`PUBLISHED_FILES`.
    Returns the run's result with a ``status``: ``done``/``cached``,
    ``interrupted`` or ``failed`` (with ``error``; the traceback goes to
    ``folder/error.txt``).
    """
    folder = Path(task["folder"])
    try:
        return _run_task(task, folder, Path(task["publish"]) if task.get("publish") else None)
    except Exception as exc:  # reported per run: one failing run must not stop the others
        try:
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "error.txt").write_text(traceback.format_exc())
        except OSError:
            pass
        return {**_task_id(task), "status": "failed", "error": f"{type(exc).__name__}: {exc}"}


def _task_id(task: dict) -> dict:
    return {k: task[k] for k in ("row", "farl", "seed", "budget")}


def _publish(folder: Path, publish: Path | None) -> None:
    """Copy the run's files but its agents from ``folder`` to ``publish`` (``result.json`` last)."""
    if publish is None:
        return
    publish.mkdir(parents=True, exist_ok=True)
    for name in PUBLISHED_FILES:
        src = folder / name
        if src.is_file():
            tmp = publish / f".{name}.tmp"
            shutil.copyfile(src, tmp)
            os.replace(tmp, publish / name)


def _open_run(task: dict, folder: Path, publish: Path | None, spec: RunSpec) -> tuple[Run, str | None]:
    """The run of ``task`` in ``folder``, resumed, restarted or new; and why it starts again from 0 (or None)."""
    command = f"farl reproduce table1 --rows {task['row']} --budget {task['budget']}"
    if (folder / "run.json").exists():
        return Run.open_or_create(folder, spec, command,
                                  f"other settings than this farl's {task['budget']} budget")
    restarted = None
    if publish is not None and (publish / "run.json").exists():  # published progress, training folder gone
        if read_spec(publish) != spec:
            raise RunError(f"{publish} holds a run with other settings than this farl's {task['budget']} budget; "
                           f"move it away to rerun")
        restarted = f"its training folder {folder} (with the agent) is not here"
    return Run.create(folder, spec, command=command), restarted


def _run_task(task: dict, folder: Path, publish: Path | None) -> dict:
    if publish is not None and (publish / "result.json").exists():  # the agent need not be here
        return {**json.loads((publish / "result.json").read_text()), "status": "cached"}
    if (folder / "result.json").exists():
        _publish(folder, publish)  # e.g. interrupted while copying
        return {**json.loads((folder / "result.json").read_text()), "status": "cached"}
    row = find_row(task["row"])
    spec = run_spec(row, task["farl"], task["seed"], task["budget"])
    run, restarted = _open_run(task, folder, publish, spec)
    status = run.train(progress=False, checkpoint_minutes=task.get("checkpoint_minutes", CHECKPOINT_MINUTES))
    if status != "done":
        _publish(folder, publish)
        return {**_task_id(task), "status": status, "episodes_done": run.trainer.episodes, "restarted": restarted}
    opps = [o for o in row.opponents if available(o)]
    skipped = [o.name for o in row.opponents if not available(o)]
    t0 = time.perf_counter()
    with CompileWatch() as watch:  # normally loaded from the cache (warm_task); if not, compiling is not timed
        res = evaluate_agent(run.trainer.agent, [o.name for o in opps], row.starts,
                             plan(row, task["budget"]).final_games, seed=task["seed"])
    eval_seconds = time.perf_counter() - t0 - watch.seconds
    res.to_json(folder / "final_eval.json")
    scores, ses = {}, {}
    for o, m in zip(opps, res.matchups):
        scores[o.name] = float(m.score)
        ses[o.name] = float(m.win_rate_se if m.win_rate is not None else m.score_se)
    result = {**_task_id(task), "episodes": run.spec.config.episodes, "scores": scores, "se": ses,
              "skipped": skipped, "train_seconds": run.train_seconds, "eval_seconds": eval_seconds,
              "wall_seconds": run.wall_seconds, "compile_seconds": run.compile_seconds + watch.seconds,
              "finished": datetime.datetime.now().isoformat(timespec="seconds"),
              "farl_version": farl_envs.__version__}
    atomic_write_json(folder / "result.json", result)
    _publish(folder, publish)
    return {**result, "status": "done", "restarted": restarted}


# ------------------------------------------------------------- compiling first
def warm_task(task: dict) -> dict:
    """Compile (or load from numba's cache) what the runs of one row need, training and evaluating nothing.

    ``task`` = ``{"row", "budget"}``. The row's training loop (``Trainer.prepare``) and one game of a fresh
    agent against each of its opponents (the agent's moves and the opponents' searches). Run once per row
    before the runs, one row per worker, so that two workers never compile the same loop at the same time
    and each run loads everything from the cache. Returns the seconds numba spent compiling.
    """
    from farl_agents import families

    row = find_row(task["row"])
    spec = run_spec(row, True, 0, task["budget"])
    with CompileWatch() as watch:
        trainer = families.get(spec.family).trainer().create(spec)
        prepare = getattr(trainer, "prepare", None)
        if prepare is not None:
            prepare()
        evaluate_agent(trainer.player(spec), [o.name for o in row.opponents if available(o)], "initial", 1)
    return {**task, "status": "done", "compile_seconds": watch.seconds, "compilations": watch.compilations}


def warm_up(rows: list, budget: str, jobs: int, progress: bool, log=print) -> float:
    """Run :func:`warm_task` for ``rows`` on local workers under a notice; returns the compile seconds."""
    titles = ", ".join(dict.fromkeys(game_title(r.game) for r in rows))
    tasks = [{"row": r.key, "budget": budget} for r in rows]
    with notice(f"compiling the training loops and evaluations of {titles} where numba's cache lacks them "
                f"(once; cached for next time)", show="auto" if progress else "line", write=None if progress else log
                ) as shown:
        results = run_tasks(warm_task, tasks, backend="local", jobs=jobs, progress=False, log=log,
                            desc="compiling")
        seconds = sum(r.get("compile_seconds", 0.0) for r in results)
        compiled = sum(r.get("compilations", 0) for r in results)
        shown.done(f"compiled {compiled} functions in {shown.seconds:.0f} s (cached for next time)" if compiled
                   else f"loaded everything from numba's cache in {shown.seconds:.0f} s")
    return seconds


# ------------------------------------------------------------- the whole table
def reproduce(rows: list[Row], runs: int = 10, jobs: int | None = None, budget: str = "paper",
              out=None, backend: str = "local", command: str | None = None,
              progress: bool = True, log=print, agents=None, ray_address: str | None = None,
              stream_seconds: float = STREAM_SECONDS) -> int:
    """Train, evaluate and tabulate; returns 0 (all done), 1 (some runs failed) or 130 (interrupted).

    The runs train under ``agents`` (default :func:`agents_root` of ``out``:
    ``runs/`` for ``docs/results``, else ``out``); the table goes to ``out``, which must be given (the shipped
    pages: ``docs/results``; there is no default folder, so nothing lands in the current one unasked).
    ``backend``, ``jobs``, ``ray_address`` and ``stream_seconds`` are those of
    :func:`farl_agents.backend.run_tasks`.
    """
    check_budget(budget)
    if out is None:
        raise ValueError("out: the folder of the table and the runs (docs/results for the shipped pages)")
    if runs < 1:
        raise ValueError("--runs must be >= 1")
    jobs = check_jobs(jobs or os.cpu_count() or 1)
    check_backend(backend, ray_address)
    out = ensure_writable(Path(out))
    home = agents_root(out, agents)
    if home != out:
        ensure_writable(home)
    tasks = [{"row": row.key, "farl": farl, "seed": seed, "budget": budget,
              "folder": str(run_folder(home, budget, row, farl, seed)),
              "publish": None if home == out else str(run_folder(out, budget, row, farl, seed))}
             for row in rows for seed in range(runs) for farl in row.farl_cells]
    todo = [t for t in tasks if not (Path(t["publish"] or t["folder"]) / "result.json").exists()]
    where = f"{local_workers(jobs, len(todo))} local worker(s)" if backend == "local" else "Ray"
    log(f"Table 1 ({budget} budget): {len(tasks)} runs, {len(tasks) - len(todo)} already finished, "
        f"{len(todo)} to train on {where}")
    t0 = time.perf_counter()
    if todo and backend == "local":  # a cluster's nodes have their own caches: each compiles what it meets
        warm_up([find_row(k) for k in dict.fromkeys(t["row"] for t in todo)], budget, jobs, progress, log)
    ship_to_ray(backend)
    results = run_tasks(run_task, todo, backend=backend, jobs=jobs, ray_address=ray_address, progress=progress,
                        log=log, desc="Table 1", describe=_describe, stream_seconds=stream_seconds)
    failed = [r for r in results if r["status"] == "failed"]
    interrupted = [r for r in results if r["status"] == "interrupted"] or len(results) < len(todo)
    for r in results:
        if r.get("restarted"):
            log(f"run {_run_name(r)} started again from episode 0: {r['restarted']}")
    for r in failed:
        log(f"run {_run_name(r)} failed: {r['error']}")
    tabulate(out, budget, rows, command, seconds=time.perf_counter() - t0, log=log)
    if interrupted:
        log("interrupted: finished runs are cached and unfinished ones checkpointed; run the same command "
            "again to continue")
        return 130
    return 1 if failed else 0


def _run_name(r: dict) -> str:
    return f"{r['row']} {'farl' if r['farl'] else 'nofarl'} seed {r['seed']}"


def _describe(r: dict) -> str:
    return f"{r['row']} {'farl' if r['farl'] else 'nofarl'} s{r['seed']}: {r['status']}"
