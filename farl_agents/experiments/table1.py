"""Reproduce Table 1 of Konen & Bagheri 2020 (FARL): TD-FARL against no-FARL on seven games.

For every row (:mod:`farl_agents.experiments.table1_rows`), ``runs`` agents
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

With the default ``OUT`` (``docs/results``, kept in git) the runs train in
``runs/table1_runs/...`` instead and copy everything but their agents to
``OUT`` (:func:`~farl_agents.experiments.table1_rows.agents_root`). Running
the command again skips finished runs (a ``result.json`` in ``OUT`` is
enough; the agent is not needed), resumes unfinished ones and rewrites the
table from everything finished so far. An unfinished run whose training
folder or checkpoint agent is gone (a fresh clone) starts again from
episode 0. The ``quick`` budget (minutes) writes ``table1_quick.md``,
``table1_quick_<row>.png`` and ``table1_quick_runs/`` instead, so its
numbers never mix with the paper-budget ones; ``smoke`` (seconds, for
tests) likewise.

The N-player rows beyond the paper (``--rows nplayer``, or ``sim3p,yavalath3p,chinese_checkers3p,ewn3p``;
:data:`~farl_agents.experiments.table1_rows.NPLAYER_ROWS`) run the same way with their own presets
(:func:`~farl_agents.learners.presets.nplayer_config`) and write ``table1_nplayer_<budget>.md``, curves and
runs under that prefix instead (``table1_nplayer_long`` for ``--budget paper``).

Runs go to local worker processes (``concurrent.futures``) or, with
``backend="ray"``, to Ray tasks. The table itself is written by
:mod:`farl_agents.experiments.table1_report`; the names the command line
uses (``ROWS``, ``BUDGETS``, ``parse_rows``, ``tabulate``, ``update_readme``,
``reproduce``) are all importable from here.
"""
from __future__ import annotations

import concurrent.futures as cf
import datetime
import json
import multiprocessing
import os
import shutil
import signal
import time
import traceback
from pathlib import Path

import farl_envs
from farl_agents.atomic import atomic_write_json
from farl_agents.experiments.table1_report import tabulate, update_readme, write_table
from farl_agents.experiments.table1_rows import (
    BUDGETS,
    PAPER_TABLE1,
    PUBLISHED_FILES,
    RESULTS_DIR,
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
from farl_agents.runs import LostCheckpoint, Run, RunError, RunSpec, read_spec
from farl_agents.runs.evaluation import evaluate_agent
from farl_agents.runs.run import StopRequest, ensure_writable

__all__ = ["BUDGETS", "PAPER_TABLE1", "ROWS", "Opponent", "Row", "parse_rows", "plan", "prefix", "run_folder",
           "run_spec", "run_task", "reproduce", "tabulate", "update_readme", "write_table"]

#: A run in progress writes a checkpoint at least this often.
CHECKPOINT_MINUTES = 5.0
#: How often the parent process looks for finished runs and a Ctrl-C (local worker processes).
POLL_SECONDS = 0.5


def run_spec(row: Row, farl: bool, seed: int, budget: str) -> RunSpec:
    """The training run of one cell and seed (curve evaluations against the row's first opponent)."""
    p = plan(row, budget)
    cfg = row.config(farl, seed=seed, episodes=p.episodes)
    return RunSpec(row.game, row.game_params, cfg, eval_vs=(row.curve_opponent.name,),
                   eval_every=p.eval_every, eval_games=p.curve_games, eval_starts=row.starts, eval_seed=seed)


def available(opp: Opponent) -> bool:
    if not opp.optional:
        return True
    if opp.name.startswith("edax"):
        from farl_agents.opponents.edax import find_edax
        return find_edax() is not None
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
    if (folder / "run.json").exists():
        restarted = None
        try:
            run = Run.open(folder)
        except LostCheckpoint as exc:  # e.g. a fresh clone of a repository holding an unfinished run
            restarted = f"its checkpoint agent {exc.agent_file} is missing"
            run = Run.restart(folder)
        if run.spec != spec:
            raise RunError(f"{folder} holds a run with other settings than this farl's {task['budget']} budget; "
                           f"move it away to rerun")
        return run, restarted
    restarted = None
    if publish is not None and (publish / "run.json").exists():  # published progress, training folder gone
        if read_spec(publish) != spec:
            raise RunError(f"{publish} holds a run with other settings than this farl's {task['budget']} budget; "
                           f"move it away to rerun")
        restarted = f"its training folder {folder} (with the agent) is not here"
    command = f"farl reproduce table1 --rows {task['row']} --budget {task['budget']}"
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
        return {**_task_id(task), "status": status, "episodes_done": run.episodes_done, "restarted": restarted}
    train_seconds = run.wall_seconds
    opps = [o for o in row.opponents if available(o)]
    skipped = [o.name for o in row.opponents if not available(o)]
    t0 = time.perf_counter()
    res = evaluate_agent(run.agent, [o.name for o in opps], row.starts, plan(row, task["budget"]).final_games,
                         seed=task["seed"])
    res.to_json(folder / "final_eval.json")
    scores, ses = {}, {}
    for o, m in zip(opps, res.matchups):
        scores[o.name] = float(m.score)
        ses[o.name] = float(m.win_rate_se if m.win_rate is not None else m.score_se)
    result = {**_task_id(task), "episodes": run.spec.config.episodes, "scores": scores, "se": ses,
              "skipped": skipped, "train_seconds": train_seconds, "eval_seconds": time.perf_counter() - t0,
              "finished": datetime.datetime.now().isoformat(timespec="seconds"),
              "farl_version": farl_envs.__version__}
    atomic_write_json(folder / "result.json", result)
    _publish(folder, publish)
    return {**result, "status": "done", "restarted": restarted}


def _ignore_sigint() -> None:
    """Worker initializer: idle workers ignore Ctrl-C (a run in progress installs its own handler)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


# ------------------------------------------------------------- the whole table
def reproduce(rows: list[Row], runs: int = 10, jobs: int | None = None, budget: str = "paper",
              out=RESULTS_DIR, backend: str = "local", command: str | None = None,
              progress: bool = True, log=print, agents=None) -> int:
    """Train, evaluate and tabulate; returns 0 (all done), 1 (some runs failed) or 130 (interrupted).

    The runs train under ``agents`` (default :func:`agents_root` of ``out``:
    ``runs/`` for ``docs/results``, else ``out``); the table goes to ``out``.
    """
    check_budget(budget)
    if runs < 1:
        raise ValueError("--runs must be >= 1")
    jobs = jobs or os.cpu_count() or 1
    if jobs < 1:
        raise ValueError("--jobs must be >= 1")
    out = ensure_writable(Path(out))
    home = agents_root(out, agents)
    if home != out:
        ensure_writable(home)
    tasks = [{"row": row.key, "farl": farl, "seed": seed, "budget": budget,
              "folder": str(run_folder(home, budget, row, farl, seed)),
              "publish": None if home == out else str(run_folder(out, budget, row, farl, seed))}
             for row in rows for seed in range(runs) for farl in (True, False)]
    todo = [t for t in tasks if not (Path(t["publish"] or t["folder"]) / "result.json").exists()]
    log(f"Table 1 ({budget} budget): {len(tasks)} runs, {len(tasks) - len(todo)} already finished, "
        f"{len(todo)} to train on {jobs if backend == 'local' else 'ray'} worker(s)")
    t0 = time.perf_counter()
    if backend == "ray":
        results = _run_ray(todo, jobs, progress, log)
    elif backend == "local":
        results = _run_local(todo, jobs, progress, log)
    else:
        raise ValueError(f"unknown backend {backend!r}; use local or ray")
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


def _bar(total: int, progress: bool):
    if not progress:
        return None
    from tqdm import tqdm
    return tqdm(total=total, unit="run", desc="Table 1", dynamic_ncols=True)


def _run_local(tasks: list, jobs: int, progress: bool, log) -> list:
    results = []
    bar = _bar(len(tasks), progress)
    try:
        if jobs == 1 or len(tasks) <= 1:
            for t in tasks:
                try:
                    r = run_task(t)
                except KeyboardInterrupt:  # a second Ctrl-C, or one during a final evaluation
                    results.append({**_task_id(t), "status": "interrupted"})
                    break
                results.append(r)
                if bar is not None:
                    bar.update(1)
                    bar.set_postfix_str(_describe(r))
                if r["status"] == "interrupted":
                    break
            return results
        ctx = multiprocessing.get_context("spawn")
        with StopRequest(log) as stop:
            with cf.ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_ignore_sigint) as pool:
                futures = {pool.submit(run_task, t): t for t in tasks}
                pending = set(futures)
                while pending:
                    done, pending = cf.wait(pending, timeout=POLL_SECONDS, return_when=cf.FIRST_COMPLETED)
                    for f in done:
                        if f.cancelled():
                            continue
                        try:
                            r = f.result()
                        except Exception as exc:  # a worker died (e.g. killed): report the run as failed
                            r = {**_task_id(futures[f]), "status": "failed", "error": f"worker died: {exc}"}
                        results.append(r)
                        if bar is not None:
                            bar.update(1)
                            bar.set_postfix_str(_describe(r))
                    if stop.requested:
                        for f in pending:
                            f.cancel()
        return results
    finally:
        if bar is not None:
            bar.close()


def _run_ray(tasks: list, jobs: int, progress: bool, log) -> list:
    try:
        import ray
    except ImportError:
        raise ValueError("--backend ray needs Ray: pip install 'farl[ray]'") from None
    if not ray.is_initialized():
        ray.init(num_cpus=jobs, include_dashboard=False, log_to_driver=False)
    remote = ray.remote(num_cpus=1)(run_task)
    refs = {remote.remote(t): t for t in tasks}
    results = []
    bar = _bar(len(tasks), progress)
    try:
        pending = list(refs)
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                try:
                    r = ray.get(ref)
                except Exception as exc:
                    r = {**_task_id(refs[ref]), "status": "failed", "error": f"ray task failed: {exc}"}
                results.append(r)
                if bar is not None:
                    bar.update(1)
                    bar.set_postfix_str(_describe(r))
    finally:
        if bar is not None:
            bar.close()
    return results
