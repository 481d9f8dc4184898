"""Othello kernel speed, before and after the bitboard kernel.  Run:  python benchmarks/othello_kernel_speed.py

Compares the Othello kernel of the working tree with an earlier one (by default the last commit with the
cell-scan kernel) on two figures, each in a fresh process on one core, in CPU seconds (``time.process_time``,
so other load on a shared machine slows the wall clock but not the figures much):

* random-playout plies per CPU-second through :mod:`farl_envs.core.playout` (after compiling);
* TD-FARL training games per CPU-second with Othello's paper preset, measured by
  ``benchmarks/train_speed.py``'s ``measure`` (fresh agents, first episodes, after compiling; it repeats
  ``train_speed.REPEATS`` times).

Each figure is taken several times; the page reports the minimum and the median.  The earlier kernel is
read with ``git show REV:farl_envs/games/othello.py`` into a folder under the temporary directory (named by
the revision, so numba's cache of the learners' loop finds it again on the next run) and installed as
``farl_envs.games.othello`` before anything imports the game, so the environment, the learners and the
playouts all run on it.  Further kernels (e.g. a prototype) can be added with ``--variant LABEL=FILE``.
Writes ``docs/results/othello_kernel_speed.md``.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from farl_agents.atomic import atomic_write_text

ROOT = Path(__file__).resolve().parents[1]
MODULE = "farl_envs/games/othello.py"
#: the last commit whose Othello kernel scans cells (before the bitboards)
CELL_SCAN_REV = "d648826c3d5640ce6ef431321ffdef1cf1742a99"


DESIGN = """\
The kernels (`farl_envs/games/othello.py`) keep the state layout of `farl_envs.core.spec` (header + 64 cells
0/1/2) and pack the cells into two `uint64` bitboards at the start of each call (`discs`: one pass over the
cells that LLVM vectorises, a few ns). Legal moves: the mover's discs are shifted one step in each of the 8
directions through runs of opponent discs (6 steps at most), and the steps that land on an empty cell are
the moves; the opponent's board is masked to files b..g for the directions with a sideways component, so no
run wraps around an edge. Flips: from the placed disc, each direction's run of opponent discs is kept when an
own disc closes it. The lowest set bit and the disc counts come from LLVM's `cttz` and `ctpop`. A move writes
back only the cells it changes.

The alternative, the two words stored in the state as 4 extra `int32` kept in sync by `initial_state` and
`afterstate`, was prototyped (a copy of the module with `STATE_SIZE = 3 + 64 + 4`, `discs` reading the words
and `afterstate` writing them) and measured with `--variant` (the table's extra row and the line below, on
a page made with it): it skips the packing, so random playouts gain, but the learners' self-play copies the
state for every candidate move, and there it lost. Storing the words would also have lengthened the state
that saved positions, opening lists, hand-built test positions and `validate` rely on, so the kernels pack
the cells per call.
"""


def install_kernel(path: str) -> None:
    """Make ``path`` the module ``farl_envs.games.othello`` of this process (call before importing the game)."""
    spec = importlib.util.spec_from_file_location("farl_envs.games.othello", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["farl_envs.games.othello"] = module
    spec.loader.exec_module(module)


def playout_rate(min_cpu_s: float) -> float:
    """Random-playout plies per CPU-second from the start position over at least ``min_cpu_s``."""
    import farl_envs
    from farl_envs.core.playout import playouts
    from farl_envs.core.rng import make_rng

    game = farl_envs.game_spec("othello")
    rng = make_rng(2026)
    playouts(game, 10, rng)  # compile
    plies = 0
    cpu = 0.0
    batch = 100
    while cpu < min_cpu_s:
        t = time.process_time()
        plies += playouts(game, batch, rng)
        cpu += time.process_time() - t
        batch *= 2
    return plies / cpu


def measure_kernel(repeats: int, min_cpu_s: float) -> dict:
    """Both figures ``repeats`` times for the kernel installed in this process."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import train_speed

    import farl_envs

    source = farl_envs.game_spec("othello").afterstate.py_func.__code__.co_filename
    from farl_envs.core.playout import playouts
    from farl_envs.core.rng import make_rng

    # the plies of 1,000 seeded random games: equal for kernels that play by the same rules
    check_plies = playouts(farl_envs.game_spec("othello"), 1000, make_rng(7))
    playout = [playout_rate(min_cpu_s) for _ in range(repeats)]
    row = train_speed.measure("othello")  # CPU time, train_speed.REPEATS runs
    return {"source": source, "playout_plies_per_s": playout, "check_plies": check_plies,
            "train_min": row["games_per_s_range"][0], "train_median": row["games_per_s"],
            "train_repeats": train_speed.REPEATS, "train_episodes": row["episodes"], "load": os.getloadavg()}


def run_child(label: str, path: str | None, repeats: int, min_cpu_s: float) -> dict:
    cmd = [sys.executable, __file__, "--one", path or "", "--repeats", str(repeats), "--min-cpu-s", str(min_cpu_s)]
    out = subprocess.run(cmd, capture_output=True, text=True,
                         env={**os.environ, "OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"})
    if out.returncode:
        raise SystemExit(f"measuring {label} failed:\n{out.stderr}")
    return {"label": label, **json.loads(out.stdout.strip().splitlines()[-1])}


def _fig(values: list, fmt: str) -> str:
    return f"{format(min(values), fmt)} / {format(statistics.median(values), fmt)}"


def _train(row: dict) -> str:
    return f"{row['train_min']:,.1f} / {row['train_median']:,.1f}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", default=CELL_SCAN_REV, help="git revision of the earlier kernel")
    ap.add_argument("--variant", action="append", default=[], metavar="LABEL=FILE",
                    help="another othello.py to measure as well (repeatable)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--min-cpu-s", type=float, default=3.0, help="CPU seconds of random playouts per repeat")
    ap.add_argument("--out", default=str(ROOT / "docs/results/othello_kernel_speed.md"))
    ap.add_argument("--one", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one is not None:
        if args.one:
            install_kernel(args.one)
        print(json.dumps(measure_kernel(args.repeats, args.min_cpu_s)))
        return 0
    variants = []
    for v in args.variant:
        label, sep, path = v.partition("=")
        if not sep or not Path(path).is_file():
            ap.error(f"--variant wants LABEL=FILE with an existing file, got {v!r}")
        variants.append((label, str(Path(path).resolve())))
    load_before = os.getloadavg()
    rows = []
    src = subprocess.run(["git", "-C", str(ROOT), "show", f"{args.baseline}:{MODULE}"],
                         capture_output=True, text=True, check=True).stdout
    old = Path(tempfile.gettempdir()) / f"farl-othello-{args.baseline[:12]}" / "othello.py"
    old.parent.mkdir(exist_ok=True)
    old.write_text(src)
    for label, path in [(f"before ({args.baseline[:10]}, cell scan)", str(old)),
                        ("after (working tree, bitboards)", None), *variants]:
        row = run_child(label, path, args.repeats, args.min_cpu_s)
        rows.append(row)
        print(f"{label:45s} playout {_fig(row['playout_plies_per_s'], ',.0f')} plies/CPU-s   "
              f"training {_train(row)} games/CPU-s", flush=True)
    base = rows[0]
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True).stdout.strip()
    lines = [
        "# Othello kernel speed: cell scan vs bitboards",
        "",
        f"Made by `python benchmarks/othello_kernel_speed.py --repeats {args.repeats} --min-cpu-s {args.min_cpu_s}"
        + "".join(f" --variant {shlex.quote(v)}" for v in args.variant) + "`",
        f"on {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{time.strftime('%Y-%m-%d %H:%M')} (working tree at {head}).",
        f"Machine load (1/5/15-minute averages) at the start: {'/'.join(f'{x:.1f}' for x in load_before)}, "
        f"at the end: {'/'.join(f'{x:.1f}' for x in os.getloadavg())} — the machine is shared, so every figure is",
        "CPU time of one process on one core (`time.process_time`), not wall time.",
        "",
        f"Each kernel runs in a fresh process; every figure is shown as min / median of {args.repeats} "
        f"(playouts) or {base['train_repeats']} (training) measurements.",
        "*Playout*: uniformly random games from the start position through `farl_envs.core.playout` "
        f"(at least {args.min_cpu_s:g} CPU-s per repeat, after compiling).",
        "*Training*: TD-FARL self-play games with Othello's paper preset (Konen & Bagheri 2020, A.6), as timed by",
        f"`benchmarks/train_speed.py`'s `measure` (first {base['train_episodes']:,} episodes of a fresh agent, "
        "after compiling).",
        "",
        "| kernel | playout plies / CPU-s | × | training games / CPU-s | × |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        p_x = statistics.median(r["playout_plies_per_s"]) / statistics.median(base["playout_plies_per_s"])
        t_x = r["train_median"] / base["train_median"]
        lines.append(f"| {r['label']} | {_fig(r['playout_plies_per_s'], ',.0f')} | {p_x:.1f} | "
                     f"{_train(r)} | {t_x:.2f} |")
    same = all(r["check_plies"] == base["check_plies"] for r in rows)
    lines += ["", f"Rule check: 1,000 seeded random games take {base['check_plies']:,} plies with the first kernel "
              + ("and exactly as many with every other, as they must when the rules agree (tests/test_othello_rules.py"
                 " checks the rules move by move)." if same
                 else "but a different number with another kernel: the rules differ!")]
    lines += ["", "## Design", "", DESIGN]
    after = rows[1]
    for r in rows[2:]:
        p_x = statistics.median(r["playout_plies_per_s"]) / statistics.median(after["playout_plies_per_s"]) - 1
        t_x = r["train_median"] / after["train_median"] - 1
        lines += ["", f"*{r['label']}* against the working tree's kernel: random playouts {p_x:+.0%}, "
                  f"training games {t_x:+.0%} (medians)."]
    atomic_write_text(args.out, "\n".join(lines) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
