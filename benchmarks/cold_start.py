"""Cold-start cost of farl's main entry points: what numba's compiling costs a new user.  Run:
python benchmarks/cold_start.py [--only NAME,...] [--json FILE] [--before FILE] [--tree DIR]

Each entry point runs in a fresh process with an empty numba cache (*cold*: everything it needs is compiled),
then once more with the cache that run left (*warm*: loaded from the cache). For each, the wall seconds and the
CPU seconds of the process and its children (user + system, e.g. `make run`'s worker processes) are recorded.
CPU seconds barely depend on what else the machine runs; wall seconds do (the page states the load average,
and the ratio of the two shows how much of the machine a command had). For `farl train` entries the run's own
training seconds (curve.csv) are read too: compiling must not be counted in them.

``--tree DIR`` runs the entry points from another checkout of farl (e.g. a ``git worktree`` of an older commit:
its packages and tests come first on ``PYTHONPATH``) to measure a *before*; ``--json FILE`` keeps the figures;
``--before FILE`` puts such a file's figures beside this run's on the page; ``--from FILE`` takes this run's
figures from such a file instead of measuring. ``--profile`` adds where the cold compile of TicTacToe's TD loop
spends its time (under cProfile, with and without farl's cheaper IR copies, ``farl_envs/numba_setup.py``).
Writes ``docs/results/cold_start.md`` (and ``.json``) unless ``--only`` or ``--tree`` is given.

The page of this commit: a snapshot of the commit before this work and one of this work (``git archive`` into
two folders, each run with ``--tree``: other people's uncommitted edits of the working tree stay out), then
``--from AFTER.json --before BEFORE.json``.
"""
from __future__ import annotations

import argparse
import csv
import datetime
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "results" / "cold_start.md"
PY = sys.executable
FARL = [PY, "-m", "farl_agents"]
AEC = ("import farl_envs; from farl_agents.learners import NTupleAgent, paper_config; "
       "NTupleAgent('tictactoe', paper_config('tictactoe')).train_aec(farl_envs.make('tictactoe'), 200)")

# (name, what it is, argv with {out} for a fresh output folder and {tree} for the checkout's root)
ENTRIES = [
    ("train-ttt-eval", "`farl train tictactoe --episodes 3000 --eval-vs maxn10` (the issue's first command)",
     [*FARL, "train", "tictactoe", "--episodes", "3000", "--eval-vs", "maxn10", "--quiet", "--out", "{out}"]),
    ("train-ttt", "`farl train tictactoe --episodes 3000`",
     [*FARL, "train", "tictactoe", "--episodes", "3000", "--quiet", "--out", "{out}"]),
    ("train-ttt-sarsa", "`farl train tictactoe --algo sarsa-farl --episodes 3000`",
     [*FARL, "train", "tictactoe", "--algo", "sarsa-farl", "--episodes", "3000", "--quiet", "--out", "{out}"]),
    ("train-c4", "`farl train connect_four --preset paper --episodes 2000`",
     [*FARL, "train", "connect_four", "--preset", "paper", "--episodes", "2000", "--quiet", "--out", "{out}"]),
    ("train-nim3p-q", "`farl train nim3p --preset paper --algo q-farl --episodes 3000`",
     [*FARL, "train", "nim3p", "--preset", "paper", "--algo", "q-farl", "--episodes", "3000", "--quiet", "--out",
      "{out}"]),
    ("train-breakthrough", "`farl train breakthrough --episodes 500`",
     [*FARL, "train", "breakthrough", "--episodes", "500", "--quiet", "--out", "{out}"]),
    ("train-sim3p", "`farl train sim --param players=3 --episodes 2000` (3-player Sim)",
     [*FARL, "train", "sim", "--param", "players=3", "--episodes", "2000", "--quiet", "--out", "{out}"]),
    ("train-nemesh", "`farl train connect_four --algo nemesh --preset quick --fraction 0.01`",
     [*FARL, "train", "connect_four", "--algo", "nemesh", "--preset", "quick", "--fraction", "0.01", "--quiet",
      "--out", "{out}"]),
    ("train-descent", "`farl train tictactoe --algo descent --minutes 0.1`",
     [*FARL, "train", "tictactoe", "--algo", "descent", "--minutes", "0.1", "--quiet", "--out", "{out}"]),
    ("train-aec", "`NTupleAgent.train_aec` (TicTacToe, 200 episodes through the AEC env)", [PY, "-c", AEC]),
    ("eval-maxn", "`farl eval random --game tictactoe --vs maxn10 --games 1`",
     [*FARL, "eval", "random", "--game", "tictactoe", "--vs", "maxn10", "--games", "1"]),
    ("eval-mcts", "`farl eval random --game nim3p --vs mcts5000 --games 1`",
     [*FARL, "eval", "random", "--game", "nim3p", "--vs", "mcts5000", "--games", "1"]),
    ("eval-paranoid", "`farl eval random --game sim --param players=3 --vs paranoid3 --games 1`",
     [*FARL, "eval", "random", "--game", "sim", "--param", "players=3", "--vs", "paranoid3", "--games", "1"]),
    ("eval-ab", "`farl eval random --game connect_four --vs ab --games 1`",
     [*FARL, "eval", "random", "--game", "connect_four", "--vs", "ab", "--games", "1"]),
    ("make-run", "`make run` (`farl reproduce table1 --rows tictactoe,nim3p --budget quick --runs 3`, 2 workers)",
     [*FARL, "reproduce", "table1", "--rows", "tictactoe,nim3p", "--budget", "quick", "--runs", "3", "--quiet",
      "--out", "{out}"]),
    ("test-warmup", "the test suite's warm-up (`tests/numba_warmup.py` 0 and 1, in parallel as conftest.py runs them)",
     "warmup"),
]
NAMES = [e[0] for e in ENTRIES]


PART = ("import resource, runpy, sys; sys.argv = [{script!r}, '{part}']; "
        "runpy.run_path({script!r}, run_name='__main__'); "
        "r = resource.getrusage(resource.RUSAGE_SELF); print('part CPU', r.ru_utime + r.ru_stime)")
"""One part of the test warm-up, printing its CPU seconds last."""


def run_once(argv, env: dict, cwd: Path, out: Path) -> dict:
    """Wall and CPU seconds of one command (CPU: user + system of it and its waited-for children)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    parts = None
    if argv == "warmup":  # each part reports its own CPU seconds: on two free cores the slower part is the wall time
        script = cwd / "tests" / "numba_warmup.py"
        procs = [subprocess.Popen([PY, "-c", PART.format(script=str(script), part=part)], env=env, cwd=cwd,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for part in (0, 1)]
        outputs = [p.communicate()[0] for p in procs]
        code = max(p.returncode for p in procs)
        text = "\n".join(outputs)
        parts = [float(o.strip().splitlines()[-1].split()[-1]) if code == 0 else None for o in outputs]
    else:
        argv = [a.replace("{out}", str(out)) for a in argv]
        proc = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True)
        code, text = proc.returncode, proc.stdout + proc.stderr
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if code != 0:
        raise RuntimeError(f"{argv} failed ({code}):\n{text[-2000:]}")
    result = {"wall": wall, "cpu": cpu}
    if parts is not None:
        result["parts_cpu"] = parts
    curve = out / "curve.csv"
    if curve.exists():
        with open(curve) as f:
            rows = list(csv.DictReader(f))
        if rows and rows[-1].get("train_seconds"):
            result["train_seconds"] = float(rows[-1]["train_seconds"])
    return result


def measure(names: list, tree: Path | None) -> dict:
    """Cold then warm figures of each entry, each entry with its own empty numba cache."""
    cwd = tree or ROOT
    env = {**os.environ}
    if tree is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(tree), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    results = {}
    with tempfile.TemporaryDirectory(prefix="farl-cold-") as scratch:
        for name, _, argv in ENTRIES:
            if name not in names:
                continue
            cache = Path(scratch) / name / "numba"
            runs = {}
            for kind in ("cold", "warm"):
                out = Path(scratch) / name / f"run-{kind}"
                runs[kind] = run_once(argv, {**env, "NUMBA_CACHE_DIR": str(cache)}, cwd, out)
                print(f"{name:20s} {kind}: {runs[kind]['wall']:7.1f} s wall, {runs[kind]['cpu']:7.1f} CPU s"
                      + (f", curve train_seconds {runs[kind]['train_seconds']:.2f}" if "train_seconds" in runs[kind]
                         else ""), flush=True)
            results[name] = runs
            shutil.rmtree(Path(scratch) / name, ignore_errors=True)
    return results


PROFILE_CODE = r"""
import cProfile, pstats, sys, time
from farl_agents.compile_notice import CompileWatch
from farl_agents.learners import NTupleAgent, paper_config
agent = NTupleAgent("tictactoe", paper_config("tictactoe"))
prof = cProfile.Profile()
c = time.process_time()
prof.enable()
with CompileWatch():
    agent.compile()
prof.disable()
cpu = time.process_time() - c
stats = pstats.Stats(prof).stats
def cum(fragment):
    return max((v[3] for k, v in stats.items() if fragment in f"{k[0]}:{k[2]}"), default=0.0)
total = cum("farl_agents/learners/agent.py:compile")
inlining = cum("inline_closurecall.py:inline_function")
typing = cum("typed_passes.py:type_inference_stage")
parts = {"inlining (numba's InlineInlinables: the steps copied into the loop)": inlining,
         "of which IR copies (copy.deepcopy of the callee's blocks)": cum("inline_closurecall.py:copy_ir"),
         "type inference": typing,
         "the rest: lowering to LLVM IR, LLVM's optimisation, machine code": total - inlining - typing}
import json
print(json.dumps({"cpu": cpu, "profiled": total, "parts": parts}))
"""


def profile(tree: Path | None) -> dict:
    """Where the cold compile of TicTacToe's TD loop goes, with numba's generic IR copies and with farl's."""
    out = {}
    env = {**os.environ}
    if tree is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(tree), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    for label, fast in (("numba's copies", "0"), ("farl's copies", "1")):
        with tempfile.TemporaryDirectory(prefix="farl-prof-") as cache:
            env = {**env, "NUMBA_CACHE_DIR": cache, "FARL_NUMBA_FAST_COPY": fast}
            proc = subprocess.run([PY, "-c", PROFILE_CODE], env=env, capture_output=True, text=True, check=True)
            out[label] = json.loads(proc.stdout.strip().splitlines()[-1])
            print(f"profile with {label}: {out[label]['cpu']:.1f} CPU s under cProfile", flush=True)
    return out


def loads() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def cell(runs: dict | None, kind: str) -> str:
    if not runs or kind not in runs:
        return "–"
    r = runs[kind]
    text = f"{r['wall']:.0f} / {r['cpu']:.0f}" if r["wall"] >= 10 else f"{r['wall']:.1f} / {r['cpu']:.1f}"
    if r.get("parts_cpu") and kind == "cold":
        text += " (parts " + ", ".join(f"{c:.0f}" for c in r["parts_cpu"]) + ")"
    return text


def report(results: dict, before: dict | None, prof: dict | None, meta: dict) -> str:
    made = (f"Made by `python benchmarks/cold_start.py --tree DIR --json FILE --profile` on a snapshot of "
            f"{meta.get('label')} (*after*)" if before else f"Made by `{meta['command']}`")
    lines = ["# Cold start: what compiling costs a new user", "",
             f"{made}; {platform.machine()}, {os.cpu_count()} cores, Python "
             f"{platform.python_version()}, {meta['date']}; load average (1, 5, 15 min) {meta['load_before']} "
             f"before and {meta['load_after']} after. Other people's jobs shared the two cores, so read the CPU "
             "seconds (the process and its children, user + system: they barely change with load) before the wall "
             "seconds (which do; on a quiet machine they come close to CPU seconds for one process, and to about "
             "half of them for `make run` and the test warm-up, which use both cores).", "",
             "*Cold*: a fresh process with an empty numba cache, so it compiles everything it calls. *Warm*: the "
             "same command again with the cache the cold run left: the loops are loaded, not compiled. Each entry "
             "starts from its own empty cache. Cells are wall seconds / CPU seconds.", ""]
    if before:
        lines += [f"*Before*: the same entry points run from a snapshot of {before['meta'].get('label')} "
                  f"({before['meta']['date']}, load average {before['meta']['load_before']} before and "
                  f"{before['meta']['load_after']} after). `python benchmarks/cold_start.py --from "
                  "docs/results/cold_start.json --before docs/results/cold_start_before.json` writes this page "
                  "again from the two runs' figures.", "",
                  "| entry point | before: cold | after: cold | before: warm | after: warm | training s (curve) |",
                  "|---|---:|---:|---:|---:|---:|"]
    else:
        lines += ["| entry point | cold | warm | training s (curve) |", "|---|---:|---:|---:|"]
    for name, what, _ in ENTRIES:
        runs = results.get(name)
        if runs is None:
            continue
        train = runs["cold"].get("train_seconds")
        train = f"{train:.2f}" if train is not None else "–"
        if before:
            old = before["results"].get(name)
            old_train = old["cold"].get("train_seconds") if old else None
            if old_train is not None:
                train = f"{old_train:.1f} → {train}"
            lines.append(f"| {what} | {cell(old, 'cold')} | {cell(runs, 'cold')} | {cell(old, 'warm')} | "
                         f"{cell(runs, 'warm')} | {train} |")
        else:
            lines.append(f"| {what} | {cell(runs, 'cold')} | {cell(runs, 'warm')} | {train} |")
    for side, m in (("before", (before or {}).get("meta", {})), ("after" if before else "", meta)):
        for again in m.get("remeasured", []):
            lines += ["", f"{', '.join(again['entries'])}{' (' + side + ')' if side else ''}: measured again "
                      f"{again['date']}, load average {again['load_before']} before and {again['load_after']} after "
                      "(the figures above are these)."]
    lines += ["", "*Training s (curve)*: the cold run's `train_seconds` at its last curve point (curve.csv), "
              "which should hold training only; before this work it held the loop's compiling too. *Parts*: the "
              "CPU seconds of each of the warm-up's two processes; on two free cores the slower one is its wall "
              "time."]
    if prof:
        lines += ["", "## Where a cold compile goes", "",
                  "`NTupleAgent.compile()` of TicTacToe's TD-FARL loop (paper preset) on an empty cache, under "
                  "cProfile (which slows Python-heavy parts most, so read the shares, not the seconds), with numba's "
                  "generic deep copies of the IR scope and with farl's (`farl_envs/numba_setup.py`):", "",
                  "| part (cumulative, overlapping) | " + " | ".join(prof) + " |",
                  "|---|" + "---:|" * len(prof)]
        labels = list(next(iter(prof.values()))["parts"])
        for label in labels:
            cells = []
            for p in prof.values():
                share = 100 * p["parts"][label] / p["profiled"] if p["profiled"] else 0
                cells.append(f"{p['parts'][label]:.1f} s ({share:.0f} %)")
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
        lines.append("| the whole compile (CPU s under cProfile) | "
                     + " | ".join(f"{p['cpu']:.1f} s" for p in prof.values()) + " |")
    lines += [""] + meta.get("notes", [])
    return "\n".join(lines) + "\n"


NOTES = """## The targets

* First `farl train tictactoe --episodes 3000` on an empty cache, at most 60 s wall on a quiet 2-core
  machine: 20 CPU s now (36 before), 28 CPU s with `--eval-vs maxn10` (47 before). One process, so on a
  quiet machine its wall time is its CPU time: met. Its curve's training seconds: 0.04 (54 before).
* The README's main job (`make run`) at most 5 min with its compile: 46 s wall, 73 CPU s cold (272 s,
  218 CPU s before); its first line about compiling comes 0.7 s after the start (the
  `compiling the training loops and evaluations of TicTacToe, Nim3P ...` notice): met.
* The test suite's warm-up at most 2 min: its two processes take 82 and 80 CPU s (124 and 132 before); on
  two free cores the slower part is the wall time, about 1.4 min: met on a quiet machine. The wall figures
  above are not: other people's test runs held both cores (load average 3-8), which stretched the same CPU
  seconds to 164 s (load 2.5) and 328 s (load 8.5) of wall time.
* One numba cache per user, shared by the command line, the library and the tests: `NUMBA_CACHE_DIR` if
  set, else `$FARL_CACHE_DIR/numba`, else `$XDG_CACHE_HOME/farl/numba` (`~/.cache/farl/numba`); the tests
  used `.numba_cache/` in the checkout and compiled again what `make run` had compiled.

## What was cut, and why these parts

The profile above was the first finding: numba's inliner (`inline="always"`, which the learners' speed
depends on: docs/results/train_speed.md) copies the callee's IR for every call site, one block at a time,
and each block's `copy.deepcopy` also copied the whole variable scope of the function: 4.7 million `Var`
copies for TicTacToe's loop, 60 % of its compile under the profiler. `farl_envs/numba_setup.py` gives
numba's `Scope` a copy that shares the `Var` objects (the inliner only reads their names and locations)
while farl compiles; the learned weights are bit-identical (tests/test_equivalence.py,
tests/test_compile_notice.py). Second: an array slice assignment from an array (`a[i] = b`) makes numba
compile the f-string of its shape-mismatch error, about 2 CPU s once per process (a one-line function:
2.4 CPU s to compile against 0.5 for the same copy as a loop); the learners' and MCTS's few such lines are
now loops.

What is left is numba's own work on one big function, the loop with every step inlined: lowering and
LLVM's optimisation (63 % of what remains) and type inference (18 %), once per game and learner. The per-game
loops cannot share a specialisation (each is compiled around its game's kernels, which is what makes them
fast), so a new game or learner costs one such compile, once per user.

`make run` compiles its rows' loops and opponents first, one row per worker (`table1.warm_up`): before,
both workers started with TicTacToe runs and compiled the same loop at the same moment, then both did the
same for Nim3P. `farl train` compiles its loop before its clock starts, under a notice ("compiling the
TicTacToe TD-FARL loop (once; cached for next time)", with a spinner on a terminal); the curve's training
seconds, the progress bar's rate and ETA, Table 1's time per row and Descent's time budget leave compiling
out. A Ctrl-C while compiling or evaluating stops at once (nothing has changed that a checkpoint would
need: 0.6 s from the signal to the exit, was 49 s during a cold compile), during training after the
chunk under way (chunks aim at one second; 0.6-0.8 s, was 2-3 s).
"""


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--only", help=f"comma list of entries, of {', '.join(NAMES)}")
    p.add_argument("--tree", help="run the entry points from this checkout of farl (a 'before')")
    p.add_argument("--json", help="write the figures to this file too")
    p.add_argument("--before", help="a --json file of a 'before' run to set beside these figures")
    p.add_argument("--label", help="what the measured code is, for the page (e.g. 'commit abc1234')")
    p.add_argument("--from", dest="source", help="take the figures from this --json file instead of measuring")
    p.add_argument("--profile", action="store_true", help="add the profile of a cold TicTacToe compile")
    p.add_argument("--out", default=str(OUT), help="the results page")
    args = p.parse_args(argv)
    names = NAMES if not args.only else [n for n in args.only.split(",") if n]
    unknown = [n for n in names if n not in NAMES]
    if unknown:
        p.error(f"unknown entries {', '.join(unknown)}; choose from {', '.join(NAMES)}")
    tree = Path(args.tree).resolve() if args.tree else None
    if args.source:
        data = json.loads(Path(args.source).read_text())
        meta, results, prof = data["meta"], data["results"], data.get("profile")
    else:
        meta = {"command": "python benchmarks/cold_start.py " + " ".join(sys.argv[1:] if argv is None else argv),
                "date": datetime.date.today().isoformat(), "load_before": loads(), "tree": str(tree or ROOT),
                "label": args.label or "the working tree"}
        results = measure(names, tree)
        prof = profile(tree) if args.profile else None
        meta["load_after"] = loads()
        data = {"meta": meta, "results": results, "profile": prof}
    meta["notes"] = NOTES.splitlines()
    if args.json:
        if args.only and not args.source and Path(args.json).exists():  # measured again: replace those entries
            kept = json.loads(Path(args.json).read_text())
            kept["results"].update(results)
            kept["meta"].setdefault("remeasured", []).append({"entries": names, **meta})
            data, results = kept, kept["results"]
        Path(args.json).write_text(json.dumps(data, indent=1) + "\n")
    before = json.loads(Path(args.before).read_text()) if args.before else None
    page = report(results, before, prof, meta)
    print(page)
    if not args.only and (tree is None or args.source):
        from farl_agents.atomic import atomic_write_text

        atomic_write_text(Path(args.out), page)
        atomic_write_text(Path(args.out).with_suffix(".json"), json.dumps(data, indent=1) + "\n")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
