"""Reproduce Table 1 of Konen & Bagheri (seed 000): TD-FARL against no-FARL on seven games.

For every row, ``runs`` agents are trained with final adaptation and as
many without (``LearnerConfig.paper(game, farl=...)`` with
``paper_game_params(game)``, seeds ``0 .. runs-1``; run ``k`` of both columns
uses seed ``k``, so they share their n-tuples and evaluation random
numbers). Each final agent is evaluated greedily as the paper does
(``docs/notes/learner_spec.md`` §14):

==========  ==========================================  ======================================
row         opponents                                   protocol
==========  ==========================================  ======================================
2048        --                                          mean score of greedy play
tictactoe   Max-N depth 10 (perfect)                    start + every 1-ply start, both seats
connect4    AB and AB-DL (perfect)                      initial position, both seats (as second
                                                        player the agent loses: 50 % is best)
hex         MCTS 10,000 iterations                      initial position, both seats
othello     Edax depth 1 (if installed), Bench, and     the 244 4-ply openings, both colours
            Bench as GBG plays it (``bench-gbg``)
nim         Max-N depth 15 (perfect)                    start + every 1-ply start, both seats
nim3p       Max-N depth 15, MCTS 5,000                  start + 1-ply starts, mean score over
                                                        the 3 seatings
==========  ==========================================  ======================================

Everything is cached on disk, one resumable training run per folder
(:mod:`farl_agents.experiments.run`)::

    OUT/table1.md                               paper vs ours (mean ± s.e. of the mean over runs)
    OUT/table1_<row>.png                        learning curves, FARL vs no-FARL (mean ± s.e. band)
    OUT/table1_runs/<row>/<farl|nofarl>-seed<k>/    run.json, agent.npz, curve.csv, checkpoint.json,
                                                final_eval.json and result.json once finished

so running the command again skips finished runs, resumes unfinished ones
and rewrites the table from everything finished so far. The ``quick``
budget (a small version that runs in minutes) writes ``table1_quick.md``,
``table1_quick_<row>.png`` and ``table1_quick_runs/`` instead, so its
numbers never mix with the paper-budget ones; ``smoke`` (seconds, for
tests) likewise.

Runs go to local worker processes (``concurrent.futures``) or, with
``backend="ray"``, to Ray tasks.
"""
from __future__ import annotations

import concurrent.futures as cf
import datetime
import json
import math
import multiprocessing
import os
import signal
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import farl_envs
from farl_agents.atomic import atomic_write_json, atomic_write_text
from farl_agents.experiments.run import (
    LostCheckpoint,
    Run,
    RunError,
    RunSpec,
    StopRequest,
    ensure_writable,
    evaluate_agent,
    read_curve,
)
from farl_agents.learners import LearnerConfig, paper_game_params

#: Seed 000, Table 1 (Konen & Bagheri, "Final Adaptation Reinforcement Learning for N-Player Games"):
#: (row, opponent) -> ((FARL mean, ± s.e.), (no-FARL mean, ± s.e.)); win rates as fractions.
PAPER_TABLE1 = {
    ("2048", "alone"): ((142_000, 1_000), (122_000, 900)),
    ("tictactoe", "maxn10"): ((0.49, 0.05), (0.18, 0.06)),
    ("connect4", "ab"): ((0.495, 0.005), (0.035, 0.001)),
    ("connect4", "ab-dl"): ((0.465, 0.005), (0.000, 0.001)),
    ("hex", "mcts10000"): ((0.81, 0.05), (0.000, 0.002)),
    ("othello", "edax1"): ((0.55, 0.01), (0.53, 0.01)),
    ("othello", "bench"): ((0.95, 0.003), (0.96, 0.002)),
    # the paper's Bench is GBG's, which bench-gbg reproduces (see farl_agents.opponents.bench)
    ("othello", "bench-gbg"): ((0.95, 0.003), (0.96, 0.002)),
    ("nim", "maxn15"): ((0.50, 0.01), (0.12, 0.06)),
    ("nim3p", "maxn15"): ((0.33, 0.03), (0.03, 0.01)),
    ("nim3p", "mcts5000"): ((0.78, 0.02), (0.09, 0.02)),
}
BUDGETS = ("paper", "quick", "smoke")


@dataclass(frozen=True)
class Opponent:
    name: str
    """:func:`~farl_agents.opponents.make_opponent` name (``"alone"``: 2048 plays by itself)."""
    label: str
    """As printed in Table 1."""
    optional: bool = False
    """Played only when available (Edax needs its binary)."""


@dataclass(frozen=True)
class Row:
    """One Table 1 row: its game, opponents, protocol and budgets."""

    key: str
    """Name on the command line (``--rows``)."""
    game: str
    title: str
    opponents: tuple
    starts: str
    """Start-state set of the evaluations (:func:`farl_agents.experiments.run.start_states`)."""
    num_eval: int
    """The paper's evaluation interval (learner_spec §13): curve points of the paper budget."""
    final_games: int
    """Paper budget: games per seat and opponent in the final evaluation."""
    curve_games: int
    """Paper budget: games per seat at each curve point (first opponent only)."""
    quick: tuple
    """The quick budget: (episodes, episodes between curve points, curve games, final games per seat)."""

    @property
    def curve_opponent(self) -> Opponent:
        return next(o for o in self.opponents if not o.optional)


ROWS = {r.key: r for r in (
    Row("2048", "game2048", "2048", (Opponent("alone", "average score"),), "initial",
        5_000, 250, 10, quick=(1_000, 200, 5, 20)),
    Row("tictactoe", "tictactoe", "TicTacToe", (Opponent("maxn10", "Max-N10"),), "start+1ply",
        1_000, 100, 10, quick=(30_000, 3_000, 10, 20)),
    Row("connect4", "connect_four", "ConnectFour", (Opponent("ab", "AB"), Opponent("ab-dl", "AB-DL")), "initial",
        100_000, 50, 10, quick=(10_000, 2_000, 4, 10)),
    Row("hex", "hex", "Hex 6x6", (Opponent("mcts10000", "MCTS10000"),), "initial",
        10_000, 50, 10, quick=(10_000, 2_500, 2, 10)),
    Row("othello", "othello", "Othello", (Opponent("edax1", "Edax d1", optional=True), Opponent("bench", "Bench"),
                                          Opponent("bench-gbg", "Bench as in GBG")),
        "othello-4ply", 2_000, 244, 20, quick=(2_000, 250, 10, 24)),
    Row("nim", "nim", "Nim 3x5", (Opponent("maxn15", "Max-N15"),), "start+1ply",
        1_000, 96, 16, quick=(20_000, 2_000, 16, 32)),
    Row("nim3p", "nim3p", "Nim3P 3x5", (Opponent("maxn15", "Max-N15"), Opponent("mcts5000", "MCTS5000")),
        "start+1ply", 10_000, 48, 16, quick=(50_000, 5_000, 16, 16)),
)}


@dataclass(frozen=True)
class Plan:
    """How much one run of a row does under a budget."""

    episodes: int
    eval_every: int
    curve_games: int
    final_games: int


def plan(row: Row, budget: str) -> Plan:
    """The episodes and evaluation sizes of one run of ``row`` under ``budget``."""
    if budget == "paper":
        episodes = LearnerConfig.paper(row.game).episodes
        return Plan(episodes, row.num_eval, row.curve_games, row.final_games)
    if budget == "quick":
        return Plan(*row.quick)
    if budget == "smoke":
        return Plan(200 if row.key != "2048" else 20, 100 if row.key != "2048" else 10, 1, 2)
    raise ValueError(f"unknown budget {budget!r}; use one of {', '.join(BUDGETS)}")


def parse_rows(text: str) -> list[Row]:
    """``"tictactoe,nim"`` -> rows, in the order given (``all``: every row)."""
    keys = [k.strip() for k in text.split(",") if k.strip()]
    if keys == ["all"]:
        return list(ROWS.values())
    unknown = [k for k in keys if k not in ROWS]
    if unknown or not keys:
        raise ValueError(f"unknown Table 1 row(s) {', '.join(unknown) or '(none given)'}; "
                         f"choose from {','.join(ROWS)} or all")
    return [ROWS[k] for k in dict.fromkeys(keys)]


def prefix(budget: str) -> str:
    """File-name stem of a budget's outputs: ``table1`` for the paper budget, else ``table1_<budget>``."""
    return "table1" if budget == "paper" else f"table1_{budget}"


def run_folder(out: Path, budget: str, row: Row, farl: bool, seed: int) -> Path:
    return Path(out) / f"{prefix(budget)}_runs" / row.key / f"{'farl' if farl else 'nofarl'}-seed{seed}"


def run_spec(row: Row, farl: bool, seed: int, budget: str) -> RunSpec:
    """The training run of one cell and seed (curve evaluations against the row's first opponent)."""
    p = plan(row, budget)
    cfg = LearnerConfig.paper(row.game, farl=farl, seed=seed, episodes=p.episodes)
    return RunSpec(row.game, paper_game_params(row.game), cfg, eval_vs=(row.curve_opponent.name,),
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

    ``task`` = ``{"row", "farl", "seed", "budget", "folder"}``. Returns the
    run's result with a ``status``: ``done``/``cached``, ``interrupted`` or
    ``failed`` (with ``error``; the traceback goes to ``folder/error.txt``).
    """
    folder = Path(task["folder"])
    try:
        return _run_task(task, folder)
    except Exception as exc:  # reported per run: one failing run must not stop the others
        try:
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "error.txt").write_text(traceback.format_exc())
        except OSError:
            pass
        return {**_task_id(task), "status": "failed", "error": f"{type(exc).__name__}: {exc}"}


def _task_id(task: dict) -> dict:
    return {k: task[k] for k in ("row", "farl", "seed", "budget")}


def _run_task(task: dict, folder: Path) -> dict:
    result_path = folder / "result.json"
    if result_path.exists():
        return {**json.loads(result_path.read_text()), "status": "cached"}
    row = ROWS[task["row"]]
    spec = run_spec(row, task["farl"], task["seed"], task["budget"])
    restarted = None
    if (folder / "run.json").exists():
        try:
            run = Run.open(folder)
        except LostCheckpoint as exc:  # e.g. a fresh clone of a repository holding an unfinished run
            restarted = f"its checkpoint agent {exc.agent_file} is missing"
            run = Run.restart(folder)
        if run.spec != spec:
            raise RunError(f"{folder} holds a run with other settings than this farl's {task['budget']} budget; "
                           f"move it away to rerun")
    else:
        run = Run.create(folder, spec, command=f"farl reproduce table1 --rows {row.key} --budget {task['budget']}")
    status = run.train(progress=False, checkpoint_minutes=task.get("checkpoint_minutes", 5.0))
    if status != "done":
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
    atomic_write_json(result_path, result)
    return {**result, "status": "done", "restarted": restarted}


def _ignore_sigint() -> None:
    """Worker initializer: idle workers ignore Ctrl-C (a run in progress installs its own handler)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


# ------------------------------------------------------------- the whole table
def reproduce(rows: list[Row], runs: int = 10, jobs: int | None = None, budget: str = "paper",
              out="docs/results", backend: str = "local", command: str | None = None,
              progress: bool = True, log=print) -> int:
    """Train, evaluate and tabulate; returns 0 (all done), 1 (some runs failed) or 130 (interrupted)."""
    if budget not in BUDGETS:
        raise ValueError(f"unknown budget {budget!r}; use one of {', '.join(BUDGETS)}")
    if runs < 1:
        raise ValueError("--runs must be >= 1")
    jobs = jobs or os.cpu_count() or 1
    if jobs < 1:
        raise ValueError("--jobs must be >= 1")
    out = ensure_writable(Path(out))
    tasks = [{"row": row.key, "farl": farl, "seed": seed, "budget": budget,
              "folder": str(run_folder(out, budget, row, farl, seed))}
             for row in rows for seed in range(runs) for farl in (True, False)]
    todo = [t for t in tasks if not (Path(t["folder"]) / "result.json").exists()]
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


def tabulate(out: Path, budget: str, rows: list[Row], command: str | None, seconds: float | None = None,
             log=print) -> Path:
    """Write ``OUT/<prefix>.md`` and the curves of ``rows`` from the runs on disk, and log the short
    table of ``rows``; returns the path of the markdown file."""
    md = write_table(out, budget, command, seconds=seconds)
    for row in rows:
        plot_row(out, budget, row)
    log("\n" + readme_table(out, budget, rows) + "\n")
    log(f"wrote {md} (the full table) and the learning curves {out / prefix(budget)}_<row>.png")
    return md


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
                    done, pending = cf.wait(pending, timeout=0.5, return_when=cf.FIRST_COMPLETED)
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


# ------------------------------------------------------------- the report
def finished_results(out: Path, budget: str, row: Row) -> list[dict]:
    """``result.json`` of every finished run of ``row`` under ``budget`` (all seeds found on disk)."""
    base = Path(out) / f"{prefix(budget)}_runs" / row.key
    found = []
    for path in sorted(base.glob("*-seed*/result.json")):
        try:
            found.append(json.loads(path.read_text()))
        except (OSError, json.JSONDecodeError):
            continue
    return found


def unfinished_progress(folder: Path, row: Row, episodes: int) -> str | None:
    """How far an unfinished run got: episodes of its last checkpoint and its last curve point.

    Only facts read from the run folder (``checkpoint.json``, ``curve.csv``);
    None when the run has no checkpoint yet.
    """
    try:
        marker = json.loads((folder / "checkpoint.json").read_text())
        done = int(marker["episodes_done"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    text = f"{done:,} of {episodes:,} episodes at its last checkpoint"
    opp = row.curve_opponent
    try:
        points = [r for r in read_curve(folder / "curve.csv")
                  if r.get(f"score_{opp.name}") is not None and r["episode"] <= done]
    except (OSError, ValueError, KeyError):
        points = []
    if points:
        last = points[-1]
        value = last[f"score_{opp.name}"]
        percent = row.game not in ("game2048", "nim3p")
        shown = f"{100 * value:.1f} %" if percent else f"{value:,.0f}" if row.game == "game2048" else f"{value:.3f}"
        what = opp.label if row.game != "game2048" else "average score"
        text += f"; latest curve point (episode {last['episode']:,}): {shown} ({what})"
    return text


def mean_se(values) -> tuple[float, float | None, int]:
    """Mean, standard error of the mean (None for one value) and count."""
    v = np.asarray(values, dtype=float)
    if v.size == 0:
        return math.nan, None, 0
    return float(v.mean()), (float(v.std(ddof=1) / math.sqrt(v.size)) if v.size > 1 else None), int(v.size)


def _fmt(x: float, se, percent: bool, big: bool) -> str:
    if percent:
        s = f"{100 * x:.1f} %"
        return s if se is None else f"{100 * x:.1f} % ± {100 * se:.1f} %"
    if big:
        return f"{x:,.0f}" if se is None else f"{x:,.0f} ± {se:,.0f}"
    return f"{x:.3f}" if se is None else f"{x:.3f} ± {se:.3f}"


def _fmt_paper(value: tuple, percent: bool, big: bool) -> str:
    x, se = value
    if percent:
        return f"{100 * x:g} % ± {100 * se:g} %"
    if big:
        return f"{x:,.0f} ± {se:,.0f}"
    return f"{x:g} ± {se:g}"


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.1f} min" if seconds >= 60 else f"{seconds:.0f} s"


def cell_lines(row: Row, res: list[dict]) -> list[dict]:
    """One line of the table per opponent of ``row``: the paper's cells and ours (formatted) from the
    finished runs ``res``; ``runs`` counts our runs behind the line (FARL plus no-FARL)."""
    percent = row.game not in ("game2048", "nim3p")
    big = row.game == "game2048"
    out = []
    for opp in row.opponents:
        paper = PAPER_TABLE1[(row.key, opp.name)]
        cells, runs = [], 0
        for farl in (True, False):
            vals = [r["scores"][opp.name] for r in res if r["farl"] == farl and opp.name in r["scores"]]
            m, se, n = mean_se(vals)
            runs += n
            cells.append("not run" if n == 0 else f"{_fmt(m, se, percent, big)} ({n} run{'s' if n > 1 else ''})")
        skipped = (any(opp.name in r.get("skipped", ()) for r in res)
                   and all(opp.name not in r["scores"] for r in res))
        out.append({"label": opp.label, "opponent": opp.name, "paper_farl": _fmt_paper(paper[0], percent, big),
                    "paper_nofarl": _fmt_paper(paper[1], percent, big), "farl": cells[0], "nofarl": cells[1],
                    "runs": runs, "skipped_everywhere": skipped})
    return out


README_START = "<!-- table1:{budget} start -->"
README_END = "<!-- table1:{budget} end -->"


def readme_table(out: Path, budget: str, rows: list[Row] | None = None) -> str:
    """The short form of ``OUT/<prefix>.md`` for the README: game, opponent, the paper's cells and ours,
    for ``rows`` (default all), only lines with at least one finished run."""
    lines = ["| game | vs. | paper FARL | paper no-FARL | ours FARL | ours no-FARL |",
             "|---|---|---|---|---|---|"]
    for row in rows or ROWS.values():
        for line in cell_lines(row, finished_results(out, budget, row)):
            if line["runs"]:
                lines.append(f"| {row.title} | {line['label']} | {line['paper_farl']} | {line['paper_nofarl']} | "
                             f"{line['farl']} | {line['nofarl']} |")
    return "\n".join(lines)


def update_readme(readme: Path, out: Path, budget: str, rows: list[Row] | None = None) -> Path:
    """Replace the block between the ``table1:<budget>`` markers of ``readme`` by ``readme_table``."""
    readme = Path(readme)
    text = readme.read_text()
    start, end = README_START.format(budget=budget), README_END.format(budget=budget)
    i, j = text.find(start), text.find(end)
    if i < 0 or j < i:
        raise ValueError(f"{readme} has no table block for the {budget} budget: put the lines {start} and {end} "
                         f"where the table belongs")
    atomic_write_text(readme, text[:i + len(start)] + "\n" + readme_table(out, budget, rows) + "\n" + text[j:])
    return readme


def write_table(out: Path, budget: str, command: str | None, seconds: float | None = None) -> Path:
    """Write ``OUT/<prefix>.md`` from every finished run on disk; returns its path."""
    out = Path(out)
    lines = [f"# Table 1 reproduction ({budget} budget)", "",
             "TD-FARL (Alg. 2) against no-FARL, seed 000 Table 1 (Konen & Bagheri) beside ours. Each of our",
             "cells is the mean ± standard error of the mean over the finished training runs (the number of",
             "runs is given per cell; one run has no error bar). Win rates count a draw as half a win; against",
             "a perfect opponent 50 % is the best possible. See `farl_agents/experiments/table1.py` for the",
             "protocol and `docs/notes/learner_spec.md` §13-14 for the paper's settings.", ""]
    if budget != "paper":
        lines += [f"**This is the `{budget}` budget: fewer training episodes than the paper for the slower games "
                  "(see the episodes column) and far fewer evaluation games, so its numbers are rough.**", ""]
    lines += ["| game | evaluated vs. | paper FARL | paper no-FARL | ours FARL | ours no-FARL | episodes per run "
              "(paper) | time per row |",
              "|---|---|---|---|---|---|---|---|"]
    notes = []
    for row in ROWS.values():
        res = finished_results(out, budget, row)
        p = plan(row, budget)
        started = list((out / f"{prefix(budget)}_runs" / row.key).glob("*-seed*/run.json"))
        unfinished = len(started) - len(res)
        if unfinished > 0:
            notes.append(f"{row.title}: {unfinished} more run{'s are' if unfinished > 1 else ' is'} unfinished "
                         f"(checkpointed or failed; run the command again to continue).")
            for run_json in sorted(started):
                folder = run_json.parent
                progress = None if (folder / "result.json").exists() else unfinished_progress(folder, row, p.episodes)
                if progress:
                    notes.append(f"{row.title}, unfinished run `{folder.name}`: {progress}.")
        t_row = sum(r.get("train_seconds", 0) + r.get("eval_seconds", 0) for r in res)
        paper_episodes = LearnerConfig.paper(row.game).episodes
        episodes = f"{p.episodes:,}" + ("" if p.episodes == paper_episodes else f" ({paper_episodes:,})")
        first = True
        for line in cell_lines(row, res):
            if line["skipped_everywhere"]:
                notes.append(f"{row.title} vs {line['label']}: not played ({line['opponent']} is not installed here).")
            timing = ""
            if first and res:
                timing = f"{_minutes(t_row)} ({_minutes(t_row / len(res))} per run)"
            lines.append(f"| {row.title if first else ''} | {line['label']} | {line['paper_farl']} | "
                         f"{line['paper_nofarl']} | {line['farl']} | {line['nofarl']} | "
                         f"{episodes if first else ''} | {timing} |")
            first = False
    lines += ["", "Protocol per row (games are per seat and opponent in the final evaluation):", ""]
    for row in ROWS.values():
        p = plan(row, budget)
        alone = row.game == "game2048"
        per = "" if alone else " per seat"
        vs = "" if alone else f" vs {row.curve_opponent.label}"
        lines.append(f"* {row.title}: starts `{row.starts}`, {p.final_games} games{per} "
                     f"against {', '.join(o.label for o in row.opponents) if not alone else 'nobody (greedy play)'}; "
                     f"curve points every {p.eval_every:,} episodes ({p.curve_games} "
                     f"game{'s' if p.curve_games > 1 else ''}{per}{vs}).")
    if notes:
        lines += [""] + [f"* {n}" for n in notes]
    lines += ["", "Time per row is the wall time of its finished runs (training and evaluation) added up; runs",
              f"ran in parallel. Learning curves: `{prefix(budget)}_<row>.png`; the runs: `{prefix(budget)}_runs/`.",
              ""]
    made_by = set()
    for run_json in (out / f"{prefix(budget)}_runs").glob("*/*-seed*/run.json"):
        try:
            made_by.add(json.loads(run_json.read_text()).get("command"))
        except (OSError, json.JSONDecodeError):
            continue
    made_by.discard(None)
    if made_by:
        lines += ["The runs were started by these commands; each continues its unfinished runs and, with",
                  "`--runs N`, adds seeds (finished runs are cached):", "", "```", *sorted(made_by), "```", ""]
    if command:
        lines += [f"This file was written by `{command}`.", ""]
    stamp = datetime.datetime.now().isoformat(timespec="seconds")
    extra = f", this invocation took {_minutes(seconds)}" if seconds is not None else ""
    lines += [f"Written {stamp} by farl {farl_envs.__version__} on {os.cpu_count()} CPU(s){extra}.", ""]
    path = out / f"{prefix(budget)}.md"
    atomic_write_text(path, "\n".join(lines))
    return path


def plot_row(out: Path, budget: str, row: Row) -> Path | None:
    """Learning curves of ``row`` (first opponent): mean ± s.e. over runs, FARL vs no-FARL, paper as dashes."""
    base = Path(out) / f"{prefix(budget)}_runs" / row.key
    opp = row.curve_opponent
    col = f"score_{opp.name}"
    series = {}
    for farl in (True, False):
        by_episode = {}
        for path in sorted(base.glob(f"{'farl' if farl else 'nofarl'}-seed*/curve.csv")):
            try:
                for r in read_curve(path):
                    if r.get(col) is not None:
                        by_episode.setdefault(r["episode"], []).append(r[col])
            except (OSError, ValueError, KeyError):
                continue
        if by_episode:
            xs = sorted(by_episode)
            stats = [mean_se(by_episode[x]) for x in xs]
            series[farl] = (np.array(xs), np.array([s[0] for s in stats]),
                            np.array([s[1] or 0.0 for s in stats]), max(s[2] for s in stats))
    if not series:
        return None
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    percent = row.game not in ("game2048", "nim3p")
    k = 100.0 if percent else 1.0
    fig, ax = plt.subplots(figsize=(7, 4.2))
    paper = PAPER_TABLE1[(row.key, opp.name)]
    for farl, color in ((True, "tab:blue"), (False, "tab:orange")):
        name = "FARL" if farl else "no-FARL"
        if farl in series:
            x, m, se, n = series[farl]
            ax.plot(x, k * m, color=color, marker="o", ms=3, label=f"{name} ({n} run{'s' if n > 1 else ''})")
            ax.fill_between(x, k * (m - se), k * (m + se), color=color, alpha=0.25)
        ax.axhline(k * paper[0 if farl else 1][0], color=color, ls="--", lw=1, label=f"paper {name} (final)")
    ax.set_xlabel("training episodes")
    what = "win rate (%)" if percent else "mean score"
    ax.set_ylabel(f"{what} vs {opp.label}" if opp.name != "alone" else "average score (greedy)")
    ax.set_title(f"{row.title}: TD-FARL vs no-FARL ({budget} budget, mean ± s.e. over runs)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = Path(out) / f"{prefix(budget)}_{row.key}.png"
    tmp = path.with_name("." + path.name + ".tmp.png")
    fig.savefig(tmp, dpi=100)
    plt.close(fig)
    os.replace(tmp, path)
    return path
