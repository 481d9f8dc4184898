"""farl's training speed beside GBG's, per CPU-second, one core each.  Run:
    python benchmarks/vs_gbg.py --gbg PATH_TO_GBG_CHECKOUT [--games connect_four,...] [--repeats 3]

GBG (github WolfgangKonen/GBG) is the Java framework of Konen & Bagheri 2020; its shipped agent files hold the
paper's settings. This script compiles farl's small driver (benchmarks/gbg_driver/TrainSpeed.java) against the
checkout the user gives, then for each game alternates, ``--repeats`` times, one fresh GBG process and one fresh
farl process, each pinned to core 0 (``taskset -c 0``). GBG first trains a throwaway agent for a few CPU-seconds
(JIT warm-up); then both build an untrained agent with the same settings, play the same number of warm-up
self-play games (farl compiles its loop here), then time the next games with no evaluation: GBG by the CPU time
of its training thread (ThreadMXBean), farl by ``time.process_time``. The table gives min / median / max games
per CPU-second and the ratio. GBG itself is never copied into farl.

Without java/javac, or without a GBG checkout, it prints "skipped: ..." and exits 0.
docs/results/vs_gbg.md has the measured table and what makes the comparison uneven.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:  # train_speed sits beside this file (run as a script or loaded by path in tests)
    sys.path.insert(0, str(HERE))
import train_speed  # noqa: E402

DRIVER = HERE / "gbg_driver" / "TrainSpeed.java"

# farl game -> (GBG game, agent file in the checkout, driver settings). The settings give GBG's scalable game
# parameters and, for 2048, the paper's values where GBG's only shipped TD-3 agent file differs from them
# (Konen & Bagheri 2020, Appendix A.6: alpha 1, no output sigmoid, fixed mode-2 6-tuples, TC-id).
GBG_AGENTS = {
    "connect_four": ("ConnectFour", "agents/ConnectFour/TCL-EXP-NT3-al37-lam000-6000k-epsfin0.stub.agt.zip", ()),
    "tictactoe": ("TicTacToe", "agents/TicTacToe/tdntuple3.agt.zip", ()),
    "othello": ("Othello", "agents/Othello/TCL3-fixed6_250k-lam05_P4_H001-diff.stub.agt.zip", ()),
    "hex": ("Hex", "agents/Hex/06/TDNT3-TCLid-25_6-300k-eps02.agt.zip", ("scapar=6",)),
    "nim": ("Nim", "agents/Nim/N03-S05-M05/multiTest-FA.agt.zip", ("scapar=3,5,5",)),
    "nim3p": ("Nim3P", "agents/Nim3P/N03-S05-ExtraYes/TDNT3-extra-lam05-RESET-mode2.agt.zip", ("scapar=3,5,true",)),
    "game2048": ("2048", "agents/2048/TDNT3-forGitHub.stub.agt.zip",
                 ("alpha=1.0", "alpha_final=1.0", "sigmoid=false", "ntuple_random=false", "ntuple_fixed_mode=2",
                  "tcl=true", "tcl_exp=false")),
}

_MISSING_PACKAGE = re.compile(r"^(?P<file>.+?\.java):(?P<line>\d+): error: package (?P<pkg>[\w.]+) does not exist")


def budget(game: str, scale: float = 1.0) -> tuple[int, int]:
    """(warm-up games, timed games): the timed count is train_speed's compiled-path budget times ``scale``, the
    warm-up a quarter of it."""
    games = max(4, round(train_speed.BUDGET[game][0] * scale))
    return games // 4, games


def skip_reason(gbg: str | None) -> str | None:
    """Why the benchmark cannot run here, or None."""
    for tool in ("java", "javac"):
        if shutil.which(tool) is None:
            return f"{tool} not found on PATH (install a JDK 17 or newer)"
    if not gbg:
        return "no GBG checkout given (--gbg PATH; git clone https://github.com/WolfgangKonen/GBG)"
    if not (Path(gbg) / "src" / "starters" / "SetupGBG.java").is_file():
        return f"no GBG checkout at {gbg} (src/starters/SetupGBG.java not found)"
    return None


def build_driver(gbg: Path, out: Path, log=print, driver: Path = DRIVER) -> str:
    """Compile the driver (default farl's training-speed driver; studies/gbg_agents passes its exporter) and the
    GBG classes it reaches; return the java class path.

    GBG's sources mix UTF-8 and Latin-1 (non-ASCII only in comments and strings), so they are read as Latin-1,
    which decodes every byte. A few GBG classes import, without using them, types from jars GBG does not ship
    (Ludii, Batik); for each such import an empty placeholder class is written under ``out/stubs`` and the
    compile repeated. If a placeholder were actually used, javac fails and the error is raised.
    """
    jars = sorted(str(p) for p in (gbg / "lib").rglob("*.jar"))
    classes, stubs = out / "classes", out / "stubs"
    classes.mkdir(parents=True, exist_ok=True)
    stubs.mkdir(parents=True, exist_ok=True)
    cp = os.pathsep.join([str(classes), *jars])
    for _ in range(5):
        proc = subprocess.run(["javac", "-nowarn", "-encoding", "ISO-8859-1", "-d", str(classes), "-cp", cp,
                               "-sourcepath", os.pathsep.join([str(gbg / "src"), str(stubs)]), str(driver)],
                              capture_output=True, text=True, cwd=gbg)
        if proc.returncode == 0:
            return cp
        added = []
        for line in proc.stderr.splitlines():
            m = _MISSING_PACKAGE.match(line)
            if not m:
                continue
            path = Path(m["file"]) if Path(m["file"]).is_absolute() else gbg / m["file"]
            src = path.read_text(encoding="latin-1").splitlines()[int(m["line"]) - 1]
            name = re.match(rf"\s*import\s+{re.escape(m['pkg'])}\.(\w+)\s*;", src)
            if name is None:
                continue
            stub = stubs.joinpath(*m["pkg"].split("."), name[1] + ".java")
            if not stub.exists():
                stub.parent.mkdir(parents=True, exist_ok=True)
                stub.write_text(f"package {m['pkg']};\n\n/** Placeholder for an unused import. */\n"
                                f"public class {name[1]} {{\n}}\n")
                added.append(f"{m['pkg']}.{name[1]}")
        if not added:
            raise RuntimeError("javac failed:\n" + proc.stderr[-4000:])
        log(f"placeholders for unused imports of jars GBG does not ship: {', '.join(added)}")
    raise RuntimeError("javac failed after writing placeholders:\n" + proc.stderr[-4000:])


def pin() -> list[str]:
    """The command prefix that pins a process to core 0 (empty where taskset is missing)."""
    return ["taskset", "-c", "0"] if shutil.which("taskset") else []


def run_gbg(gbg: Path, cp: str, game: str, java_opts: list[str], jit_seconds: float, scale: float) -> dict:
    """One fresh JVM: a throwaway agent trains ``jit_seconds`` of CPU (JIT warm-up), then GBG's agent for ``game``
    plays the warm-up games and the timed training games."""
    gbg_game, agent_file, settings = GBG_AGENTS[game]
    from farl_agents.learners import paper_config

    warmup, games = budget(game, scale)
    cmd = [*pin(), "java", "-Djava.awt.headless=true", *java_opts, "-cp", cp, "TrainSpeed", gbg_game, agent_file,
           str(paper_config(game).episodes), str(warmup), str(games), f"jit_seconds={jit_seconds}", *settings]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=gbg)
    if proc.returncode != 0:
        raise RuntimeError(f"GBG driver failed for {game}:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    row = json.loads(proc.stdout.strip().splitlines()[-1])
    row["games_per_cpu_s"] = row["games"] / row["thread_cpu_s"]
    row["games_per_process_cpu_s"] = row["games"] / row["process_cpu_s"]
    row["plies_per_game"] = row["moves"] / row["games"]
    return row


def measure_farl(game: str, scale: float, table_layout: str = "auto") -> dict:
    """farl's paper preset for ``game``: warm-up (compiles the loop), then timed games, in this process.

    ``table_layout`` (``LearnerConfig.table_layout``): ``auto`` is farl's default (2048's tables paged),
    ``dense`` holds every table entry from the start, as GBG does."""
    from farl_agents.learners import NTupleAgent, paper_config, paper_game_params

    cfg = paper_config(game).replace(table_layout=table_layout)
    warmup, games = budget(game, scale)
    agent = NTupleAgent(game, cfg, **paper_game_params(game))
    agent.train(warmup)
    wall, t = time.perf_counter(), time.process_time()
    res = agent.train(games)
    cpu, wall = time.process_time() - t, time.perf_counter() - wall
    m, n = agent.tuples.shape
    return {
        "game": game, "warmup": warmup, "games": games, "process_cpu_s": cpu, "wall_s": wall,
        "games_per_cpu_s": games / cpu,
        "plies_per_game": float(res[:, -1].mean()), "ntuples": f"{m} x {n}", "n_sym": int(agent.net.sym_cells.shape[0]),
        "config": cfg.to_dict() | {"ntuple_cells": len(cfg.ntuple_cells)},
    }


def run_farl(game: str, scale: float, table_layout: str = "auto") -> dict:
    """One fresh Python process pinned to core 0 running :func:`measure_farl`."""
    proc = subprocess.run([*pin(), sys.executable, __file__, "--farl-one", game, "--scale", str(scale),
                           "--table-layout", table_layout],
                          capture_output=True, text=True,
                          env={**os.environ, "OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"})
    if proc.returncode != 0:
        raise RuntimeError(f"farl measurement failed for {game}:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def spread(values: list[float]) -> tuple[float, float, float]:
    """(min, median, max)."""
    return min(values), statistics.median(values), max(values)


def _rate(x: float) -> str:
    return f"{x:,.0f}" if x >= 100 else f"{x:.3g}"


def format_table(rows: list[dict]) -> str:
    """Markdown table from rows of ``{"game", "gbg": [games/CPU-s...], "farl": [...], "gbg_process": [...],
    "gbg_plies", "farl_plies"}``; rates as min / median / max, the ratio as median (lowest–highest)."""
    lines = ["| game | GBG games / CPU-s (min / median / max) | farl games / CPU-s (min / median / max) "
             "| farl ÷ GBG, median (range) | GBG games / JVM process CPU-s (median) | plies / game GBG, farl |",
             "|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        g, f = spread(r["gbg"]), spread(r["farl"])
        ratio = f"{f[1] / g[1]:.2f} ({f[0] / g[2]:.2f}–{f[2] / g[0]:.2f})"
        lines.append(f"| {r['game']} | {' / '.join(map(_rate, g))} | {' / '.join(map(_rate, f))} | {ratio} | "
                     f"{_rate(statistics.median(r['gbg_process']))} | {r['gbg_plies']:.1f}, {r['farl_plies']:.1f} |")
    return "\n".join(lines)


def gbg_commit(gbg: Path) -> str:
    """The checkout's commit (honours GIT_DIR, for a work tree exported from a bare clone), or 'unknown'."""
    proc = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=gbg)
    return proc.stdout.strip() if proc.returncode == 0 else "unknown (not a git checkout)"


def farl_commit() -> str:
    """farl's commit, marked when the learner or game code has uncommitted changes."""
    import farl_agents

    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    git = ["git", "-C", str(Path(farl_agents.__file__).resolve().parents[1])]
    head = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, env=env)
    dirty = subprocess.run([*git, "status", "--porcelain", "--", "farl_agents", "farl_envs"], capture_output=True,
                           text=True, env=env)
    if head.returncode != 0:
        return "unknown"
    return head.stdout.strip() + (" + uncommitted changes" if dirty.stdout.strip() else "")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gbg", help="path of a GBG checkout (github WolfgangKonen/GBG)")
    ap.add_argument("--games", default=",".join(GBG_AGENTS))
    ap.add_argument("--repeats", type=int, default=3, help="fresh processes per side and game (>= 3)")
    ap.add_argument("--build-dir", help="where to compile the driver (default: a temporary folder)")
    ap.add_argument("--scale", type=float, default=1.0,
                    help="multiply the warm-up and timed games (benchmarks/train_speed.py's budget) by this")
    ap.add_argument("--jit-seconds", type=float, default=3.0,
                    help="CPU seconds a throwaway GBG agent trains first so the JIT has compiled GBG's code")
    ap.add_argument("--java-opts", default="", help="extra JVM options, e.g. -Xmx4g")
    ap.add_argument("--json", help="also write every run's measurements to this file")
    ap.add_argument("--table-layout", choices=("auto", "dense", "paged"), default="auto",
                    help="farl's weight tables: auto (farl's default: 2048's paged) or dense (like GBG's) or paged")
    ap.add_argument("--farl-one", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.farl_one:
        print(json.dumps(measure_farl(args.farl_one, args.scale, args.table_layout)))
        return 0
    games = args.games.split(",")
    for game in games:
        if game not in GBG_AGENTS:
            ap.error(f"unknown game {game!r}; choose from {', '.join(GBG_AGENTS)}")
    if args.repeats < 1 or args.scale <= 0:
        ap.error("--repeats must be >= 1 and --scale > 0")
    reason = skip_reason(args.gbg)
    if reason:
        print(f"skipped: {reason}")
        return 0
    gbg = Path(args.gbg).resolve()
    for game in games:
        if not (gbg / GBG_AGENTS[game][1]).is_file():
            print(f"skipped: GBG's agent file {GBG_AGENTS[game][1]} is not in {gbg}")
            return 0
    print(f"GBG {gbg} at commit {gbg_commit(gbg)}; farl at {farl_commit()}; {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.2f}; pinning: {' '.join(pin()) or 'none (taskset not found)'}",
          flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        cp = build_driver(gbg, Path(args.build_dir or tmp))
        runs: dict[str, dict[str, list]] = {g: {"gbg": [], "farl": []} for g in games}
        for game in games:
            for rep in range(args.repeats):  # the two sides alternate, so a change in load hits both
                a = run_gbg(gbg, cp, game, args.java_opts.split(), args.jit_seconds, args.scale)
                b = run_farl(game, args.scale, args.table_layout)
                runs[game]["gbg"].append(a)
                runs[game]["farl"].append(b)
                print(f"{game:13s} run {rep + 1}: GBG {a['games_per_cpu_s']:9.1f} games/CPU-s "
                      f"({a['plies_per_game']:.1f} plies/game)   farl {b['games_per_cpu_s']:9.1f} games/CPU-s "
                      f"({b['plies_per_game']:.1f} plies/game)   load {os.getloadavg()[0]:.2f}", flush=True)
    rows = [{"game": g, "gbg": [r["games_per_cpu_s"] for r in runs[g]["gbg"]],
             "farl": [r["games_per_cpu_s"] for r in runs[g]["farl"]],
             "gbg_process": [r["games_per_process_cpu_s"] for r in runs[g]["gbg"]],
             "gbg_plies": statistics.mean(r["plies_per_game"] for r in runs[g]["gbg"]),
             "farl_plies": statistics.mean(r["plies_per_game"] for r in runs[g]["farl"])} for g in games]
    print()
    print(format_table(rows))
    print(f"\nload average at the end {os.getloadavg()[0]:.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps({"gbg_commit": gbg_commit(gbg), "farl_commit": farl_commit(),
                                               "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                                               "runs": runs}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
