"""Agent Nemesh at the report's whole curriculum on Connect Four 6x8, against TD-FARL (``docs/results/nemesh_full.md``).

:mod:`studies.nemesh.experiments` compares the two on a fiftieth of Nemesh's curriculum. This script runs the
whole of it once (Shalita, Saranga & Haim 2013, section 4.1.3: 301,000 games, the last 100,000 searched at depth 5)
on the report's own 6x8 board, and sets it against TD-FARL twice::

    python -m studies.nemesh.full_budget          # every stage; after a stop, the same command continues
    python -m studies.nemesh.full_budget --stages report --out docs/results/nemesh_full.md  # the shipped page
    python -m studies.nemesh.full_budget --jobs 2 # the evaluation's games on 2 worker processes

Stages, in order (each is a resumable run folder or a JSON file under ``--work``; a finished stage is skipped):

``tdfarl``
    TD-FARL at its own full budget: Konen & Bagheri 2020's Connect Four settings (5,000,000 self-play
    episodes, ε 0.1 -> 0), with 70 random-walk 8-tuples, as the fixed set exists for 7x6 only.
``nemesh``
    Nemesh's whole curriculum (the ``report`` preset of ``farl train --algo nemesh``).
``tdfarl-same-time``
    TD-FARL given Nemesh's training time: as many episodes as fit in Nemesh's CPU seconds at TD-FARL's rate
    in stage ``tdfarl``, its ε and α schedules stretched over them.
``eval``
    the three agents against random and MCTS, and Nemesh against each TD-FARL agent from random 2-ply
    openings (two deterministic players would otherwise replay one game), every seat.
``report``
    writes the results page from the stages' files.

Training times are CPU seconds of this process (``time.process_time`` around each training call), so other
jobs on a shared machine do not stretch them; a run folder's ``cpu.json`` keeps the sum across restarts.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from farl_agents.atomic import atomic_write_json, atomic_write_text
from farl_agents.backend import check_jobs
from farl_agents.runs import Run, RunSpec
from studies.formatting import pct
from studies.nemesh.experiments import eval_table, matchup_row

COMMAND = "python -m studies.nemesh.full_budget"
STAGES = ("tdfarl", "nemesh", "tdfarl-same-time", "eval", "report")
BOARD = {"rows": 6, "cols": 8}
#: units per training call: each call ends with a checkpoint, which ``cpu.json`` is written beside
STEP = {"ntuple": 500_000, "nemesh": 200}


# ------------------------------------------------------------------ the runs
def nemesh_spec(seed: int, fraction: float = 1.0) -> RunSpec:
    """The report's curriculum (game counts times ``fraction``: 1 is the whole of it)."""
    from farl_agents.nemesh.family import NemeshConfig

    return RunSpec("connect_four", BOARD, NemeshConfig(preset="report", fraction=fraction, seed=seed),
                   family="nemesh")


def tdfarl_spec(seed: int, episodes: int | None = None) -> RunSpec:
    """Table 1's Connect Four settings with random-walk 8-tuples; ``episodes`` stretches its schedules."""
    from farl_agents.learners import paper_config

    extra = {} if episodes is None else {"episodes": int(episodes)}
    config = paper_config("connect_four", seed=seed, ntuples="random-walk", ntuple_count=70, ntuple_length=8,
                          **extra)
    return RunSpec("connect_four", BOARD, config)


def read_cpu(folder: Path) -> dict:
    path = Path(folder) / "cpu.json"
    return json.loads(path.read_text()) if path.is_file() else {"cpu_seconds": 0.0, "done": 0, "estimated": 0}


def train_timed(folder: Path, spec: RunSpec, command: str, log=print) -> dict | None:
    """Train (or continue) the run in ``folder`` to its end, adding up its CPU seconds in ``cpu.json``.

    Returns ``{"cpu_seconds", "done", "estimated", "wall_seconds"}``, or None when it was interrupted (Ctrl-C /
    SIGTERM: the run has a checkpoint; the same call continues it). ``estimated`` counts units whose CPU time was
    lost (the process ended after a checkpoint, before ``cpu.json``) and was extrapolated from the last call.
    """
    folder = Path(folder)
    if (folder / "run.json").exists():
        run = Run.open(folder)
        if run.spec != spec:
            raise ValueError(f"{folder} holds a run with other settings; move it away to rerun this stage")
    else:
        run = Run.create(folder, spec, command=command)
    cpu = read_cpu(folder)
    if cpu["done"] > run.trainer.done:
        raise ValueError(f"{folder}/cpu.json counts {cpu['done']} units, the run's checkpoint {run.trainer.done}: "
                         f"the folder was changed by hand; move it away to rerun")
    if cpu["done"] < run.trainer.done:  # a checkpoint without its CPU record
        rate = cpu.get("last_rate") or 0.0
        cpu["cpu_seconds"] += rate * (run.trainer.done - cpu["done"])
        cpu["estimated"] += run.trainer.done - cpu["done"]
        cpu["done"] = run.trainer.done
    step = STEP[spec.family]
    while not run.finished:
        before, t = run.trainer.done, time.process_time()
        status = run.train(stop_after=min(run.trainer.total, run.trainer.done + step), progress=False,
                           checkpoint_minutes=60.0)
        spent = time.process_time() - t
        cpu["cpu_seconds"] += spent
        if run.trainer.done > before:
            cpu["last_rate"] = spent / (run.trainer.done - before)
        cpu["done"] = run.trainer.done
        atomic_write_json(folder / "cpu.json", cpu)
        log(f"{folder.name}: {run.trainer.done:,.0f} / {run.trainer.total:,.0f} {run.trainer.unit}, "
            f"{cpu['cpu_seconds'] / 60:.1f} CPU min")
        if status == "interrupted":
            return None
    return {**cpu, "wall_seconds": run.wall_seconds}


# ------------------------------------------------------------------ stages
def _path(args, name: str) -> Path:
    return Path(args.work) / name


def _stage_json(args, stage: str) -> dict | None:
    path = _path(args, f"{stage}.json")
    return json.loads(path.read_text()) if path.is_file() else None


def _need(args, stage: str) -> dict:
    got = _stage_json(args, stage)
    if got is None:
        raise ValueError(f"stage {stage} has not finished yet: {COMMAND} --stages {stage}")
    return got


def stage_tdfarl(args) -> dict | None:
    spec = tdfarl_spec(args.seed, args.td_episodes)
    cpu = train_timed(_path(args, "tdfarl"), spec, f"{COMMAND} --stages tdfarl")
    return None if cpu is None else {**cpu, "episodes": spec.config.episodes}


def stage_nemesh(args) -> dict | None:
    cpu = train_timed(_path(args, "nemesh"), nemesh_spec(args.seed, args.fraction), f"{COMMAND} --stages nemesh")
    return None if cpu is None else {**cpu, "games": cpu["done"]}


def same_time_episodes(nemesh_cpu: float, td_cpu: float, td_episodes: int) -> int:
    """TD-FARL episodes that take ``nemesh_cpu`` seconds at the rate of ``td_episodes`` in ``td_cpu`` seconds."""
    if nemesh_cpu <= 0 or td_cpu <= 0 or td_episodes <= 0:
        raise ValueError("both training times and the episode count must be positive")
    return max(1, round(td_episodes * nemesh_cpu / td_cpu))


def stage_same_time(args) -> dict | None:
    td, nm = _need(args, "tdfarl"), _need(args, "nemesh")
    episodes = same_time_episodes(nm["cpu_seconds"], td["cpu_seconds"], td["episodes"])
    cpu = train_timed(_path(args, "tdfarl-same-time"), tdfarl_spec(args.seed, episodes),
                      f"{COMMAND} --stages tdfarl-same-time")
    return None if cpu is None else {**cpu, "episodes": episodes, "target_cpu_seconds": nm["cpu_seconds"]}


def _agents(args):
    nemesh = Run.open(_path(args, "nemesh")).trainer.agent
    nemesh.name = f"nemesh-d{nemesh.depth}"
    tds = {"td-farl-full": Run.open(_path(args, "tdfarl")).trainer.agent}
    if _path(args, "tdfarl-same-time.json").is_file():
        tds["td-farl-same-time"] = Run.open(_path(args, "tdfarl-same-time")).trainer.agent
    return nemesh, tds


def stage_eval(args) -> dict:
    """Every matchup once, each row saved as it finishes (a stopped evaluation continues at the next row)."""
    from farl_agents.evaluate import evaluate
    from farl_agents.opponents import make_opponent

    nemesh, tds = _agents(args)
    game = nemesh.game
    g = args.games
    players = [("nemesh", nemesh)] + list(tds.items())
    plan = [(label, p, "random", g, "initial") for label, p in players]
    for n in args.mcts:
        plan += [(label, p, f"mcts{n}", max(1, g // 2), "initial") for label, p in players]
    plan += [("nemesh", nemesh, label, g, ("random", 2)) for label in tds]
    partial = _path(args, "eval.partial.json")
    rows = json.loads(partial.read_text())["rows"] if partial.is_file() else []
    done = {(r["player"], r["opponent"]) for r in rows}
    for label, player, opp, n, starts in plan:
        if (label, opp) in done:
            continue
        opponent = tds[opp] if opp in tds else make_opponent(opp, game)
        res = evaluate(game, player, opponent, n_games=n, start_states=starts, seed=args.seed, jobs=args.jobs,
                       keep_games=False)
        row = matchup_row(res, f"{label} vs {opp}")
        row.update(player=label, opponent=opp, starts=starts if isinstance(starts, str) else f"random:{starts[1]}")
        rows.append(row)
        atomic_write_json(partial, {"rows": rows})
        print(f"{row['label']}: {row['win_rate']:.3f} +- {row['se']:.3f} ({row['games']} games, {row['seconds']} s)",
              flush=True)
    return {"rows": rows, "nemesh_depth": nemesh.depth, "same_time": "td-farl-same-time" in tds}


# ------------------------------------------------------------------ the page
def _minutes(s: float) -> str:
    return f"{s / 60:,.1f} CPU min"


def in_short(ev: dict, td: dict, nm: dict, same: dict) -> list[str]:
    """The page's findings, read off the evaluation rows: head to head, then against the strongest MCTS."""
    rows = {(r["player"], r["opponent"]): r for r in ev["rows"]}

    def rate(player, opponent):
        r = rows.get((player, opponent))
        return "not measured" if r is None else pct(r["win_rate"], se=r["se"])

    mcts = max((r["opponent"] for r in ev["rows"] if r["opponent"].startswith("mcts")),
               key=lambda o: int(o[4:]), default=None)
    out = ["## In short", "",
           f"* **Head to head**, from random 2-ply openings in both seats, Nemesh (its {nm['games']:,} games, "
           f"{_minutes(nm['cpu_seconds'])}) scores {rate('nemesh', 'td-farl-full')} against TD-FARL at its own "
           f"budget ({td['episodes']:,} episodes, {_minutes(td['cpu_seconds'])}) and "
           f"{rate('nemesh', 'td-farl-same-time')} against TD-FARL given Nemesh's training time "
           f"({same['episodes']:,} episodes); a draw counts half."]
    if mcts:
        out.append(f"* **Against {mcts.upper()}** (every seat): Nemesh {rate('nemesh', mcts)}, TD-FARL at its "
                   f"own budget {rate('td-farl-full', mcts)}, TD-FARL at Nemesh's time "
                   f"{rate('td-farl-same-time', mcts)}.")
    return out


def write_report(args) -> str:
    lines = ["# Agent Nemesh's whole curriculum on Connect Four 6x8, against TD-FARL", "",
             "Shalita, Saranga & Haim 2013 (section 4.1.3) train Nemesh with 1,000 games against a random player "
             "and then 100,000 self-play games at each of the search depths 3, 4 and 5. This page runs that "
             "curriculum once on the report's 6x8 board and sets the agent against TD-FARL (Konen & Bagheri "
             "2020's Connect Four settings, 70 random-walk 8-tuples) trained twice: for its own full budget of "
             "5,000,000 episodes, and for as long as Nemesh trained. Times are CPU seconds of the training "
             "process; the runs shared a 2-core machine with other long jobs, which CPU time does not count. "
             "`nemesh.md` has the same comparison at a fiftieth of the curriculum, and on 7x6.", "",
             "Made by", "", f"    {COMMAND}", "",
             f"(`--work {args.work}` holds the run folders and the stages' JSON; not committed.)", "",
             "## Training", "", "| agent | budget | games | training time |", "|---|---|---:|---:|"]
    td, nm, same = (_stage_json(args, s) for s in ("tdfarl", "nemesh", "tdfarl-same-time"))
    if td:
        lines.append(f"| TD-FARL, full budget | its own (Table 1) | {td['episodes']:,} | "
                     f"{_minutes(td['cpu_seconds'])} |")
    if nm:
        lines.append(f"| Nemesh | the report's curriculum | {nm['games']:,} | {_minutes(nm['cpu_seconds'])} |")
    if same:
        lines.append(f"| TD-FARL, same time | Nemesh's training time | {same['episodes']:,} | "
                     f"{_minutes(same['cpu_seconds'])} |")
    missing = [s for s, got in zip(STAGES, (td, nm, same)) if not got]
    if missing:
        lines += ["", f"Still to train: {', '.join(missing)} (`{COMMAND}` continues)."]
        for stage in missing:
            cpu = read_cpu(_path(args, stage))
            if cpu["done"]:
                lines.append(f"Stage {stage} so far: {cpu['done']:,} {'games' if stage == 'nemesh' else 'episodes'}"
                             f" in {_minutes(cpu['cpu_seconds'])}.")
    ev = _stage_json(args, "eval")
    if ev and td and nm and same:
        lines[lines.index("## Training"):lines.index("## Training")] = in_short(ev, td, nm, same) + [""]
    if ev:
        lines += ["", f"## Strength (Nemesh searches at depth {ev['nemesh_depth']}; every seat)", ""] + eval_table(ev)
    else:
        lines += ["", "## Strength", "", "Not measured yet (stage `eval`)."]
    text = "\n".join(lines) + "\n"
    atomic_write_text(args.out, text)
    return text


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog=COMMAND, description=__doc__.split("\n\n")[0])
    p.add_argument("--stages", default=",".join(STAGES), help=f"comma list of {', '.join(STAGES)}")
    p.add_argument("--games", type=int, default=100, help="games per seat against random and head to head; half "
                                                          "of it against each MCTS")
    p.add_argument("--mcts", default="100,1000", help="MCTS iteration budgets")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=1, help="eval stage: worker processes for the games (the results "
                                                       "are the same for any number)")
    p.add_argument("--fraction", type=float, default=1.0, help="Nemesh's curriculum times this (1: the whole)")
    p.add_argument("--td-episodes", type=int, default=None, help="TD-FARL's own budget (default: Table 1's)")
    p.add_argument("--work", default="runs/nemesh_full", help="folder for the runs and the stages' JSON")
    p.add_argument("--out", default="runs/nemesh_full/nemesh_full.md",
                   help="the results page (default under --work's folder; the shipped page: "
                        "--out docs/results/nemesh_full.md)")
    args = p.parse_args(argv)
    args.mcts = [int(x) for x in str(args.mcts).split(",") if x]
    try:
        args.jobs = check_jobs(args.jobs)
    except ValueError as exc:
        p.error(str(exc))
    stages = [s.strip() for s in args.stages.split(",") if s.strip()]
    bad = [s for s in stages if s not in STAGES]
    if bad:
        p.error(f"unknown stage(s) {', '.join(bad)}; the stages are {', '.join(STAGES)}")
    Path(args.work).mkdir(parents=True, exist_ok=True)
    run = {"tdfarl": stage_tdfarl, "nemesh": stage_nemesh, "tdfarl-same-time": stage_same_time, "eval": stage_eval}
    for stage in stages:
        if stage == "report":
            write_report(args)
            print(f"wrote {args.out}")
            continue
        if _stage_json(args, stage) is not None:
            print(f"{stage}: done before, skipped")
            continue
        result = run[stage](args)
        if result is None:
            print(f"{stage}: interrupted; run the same command again to continue", file=sys.stderr)
            return 130
        atomic_write_json(_path(args, f"{stage}.json"), result)
        print(f"{stage}: done", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
