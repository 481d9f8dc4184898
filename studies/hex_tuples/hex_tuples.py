"""Hex 6x6, Table 1's FARL cell, with GBG's random-walk rule for the n-tuples: does it close the gap to the paper?

Table 1's first Hex runs (``docs/results/archive/table1_hex_border_walk_runs``, out of git since issue 38:
``docs/results/archive.md``) were trained with
random-walk tuples grown by a uniform pick from the tuple's free border, which makes stretched tuples; GBG grows
them from a random cell of the tuple, which makes compact ones (``docs/notes/hex_gap_audit.md``).
``farl_agents.ntuple.sets.random_walk_set`` now follows GBG. This trains the paper preset again per seed (the
same command as ``farl train hex --preset paper --seed S``) and evaluates it as Table 1 does (50 games per seat
against MCTS10000 from the empty board, evaluation seed 0), then writes the per-seed, per-seat comparison with
those first runs, read from ``--old-runs`` (without it their columns stay empty)::

    python -m studies.hex_tuples.hex_tuples --seeds 0 1 2 3 4 5 6 7 8 9 \
        --old-runs docs/results/archive/table1_hex_border_walk_runs --out docs/results

Resumable: a seed whose ``eval.json`` exists is skipped, an unfinished training resumes. Runs live under
``--runs-dir`` (default ``runs/hex_walk``), one ``seed<k>`` folder each (agents stay out of git); the page is
``OUT/hex_tuples.md`` (default ``runs/hex_tuples``; the shipped page: ``--out docs/results``).
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
from pathlib import Path

import numpy as np

from farl_agents import cli
from farl_agents.atomic import atomic_write_text
from farl_agents.ntuple.sets import adjacency
from studies.formatting import mean_se, pct_mean_se
from studies.table1.table1_rows import PAPER_TABLE1

RUNS = Path("runs/hex_walk")  # the default --runs-dir
GAMES_PER_SEAT = 50
OPPONENT = "mcts10000"
PAPER = PAPER_TABLE1[("hex", OPPONENT)][0]  # Konen & Bagheri 2020, Table 1, Hex 6x6 FARL: win rate, s.e.


def run_seed(seed: int, runs: Path = RUNS) -> dict:
    """Train (or resume) and evaluate one seed; returns its evaluation (cached in ``eval.json``)."""
    folder = runs / f"seed{seed}"
    done = folder / "eval.json"
    if not done.exists():
        resume = ["--resume"] if (folder / "run.json").exists() else []
        code = cli.main(["train", "hex", "--preset", "paper", "--seed", str(seed), "--out", str(folder), "--quiet",
                         *resume])
        if code != 0:
            raise RuntimeError(f"training seed {seed} stopped with exit code {code}; run again to resume")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = cli.main(["eval", str(folder), "--vs", OPPONENT, "--games", str(GAMES_PER_SEAT), "--seed", "0",
                             "--jobs", "1", "--json"])
        if code != 0:
            raise RuntimeError(f"evaluating seed {seed} stopped with exit code {code}")
        atomic_write_text(done, out.getvalue())
    return json.loads(done.read_text())


def compactness(tuples: np.ndarray) -> float:
    """Mean number of adjacent cell pairs inside a tuple (Hex 6x6 adjacency)."""
    import farl_envs

    nbrs = adjacency(farl_envs.game_spec("hex", size=6))
    return float(np.mean([sum(1 for i, x in enumerate(t) for y in t[i + 1:] if y in nbrs[x])
                          for t in np.asarray(tuples).tolist()]))


def _rates(evaluation: dict) -> tuple[float, float, float]:
    m = evaluation["matchups"][0]
    seats = {s["seat"]: s["win_rate"] for s in m["per_seat"]}
    return m["win_rate"], seats[0], seats[1]


def write_page(seeds: list[int], runs: Path = RUNS, old_runs: Path | None = None,
               page: Path = Path("runs/hex_tuples/hex_tuples.md")) -> Path:
    """The per-seed table: Table 1's first runs (old walk rule, read from ``old_runs``: their folder left git
    with the archive, so it is an argument; ``None`` leaves their columns empty) beside the runs with GBG's
    rule."""
    import farl_envs  # noqa: F401  (registers the games for NTupleAgent.load)
    from farl_agents.learners import NTupleAgent

    lines = ["# Hex 6x6: the random-walk rule of the n-tuples", "",
             "Table 1's FARL cell for Hex 6x6 (TD-FARL, 300,000 episodes, paper preset) against MCTS10000, 50 games "
             "per seat from the empty board, evaluation seed 0: Table 1's first runs (archived: "
             "[archive.md](archive.md)), whose random-walk tuples were grown by a uniform "
             "pick from the tuple's free border, beside runs whose tuples grow as GBG's do (a random "
             "cell of the tuple, then a free neighbour of it; `docs/notes/hex_gap_audit.md`). Same seeds, same "
             "settings otherwise. *Compactness*: adjacent cell pairs inside a 6-tuple, mean over the run's 25 "
             f"tuples. The paper: {100 * PAPER[0]:.0f} % ± {100 * PAPER[1]:.0f}.", "",
             "Made by", "", f"    python -m studies.hex_tuples.hex_tuples --seeds {' '.join(map(str, seeds))}"
             + (f" --old-runs {old_runs}" if old_runs is not None else "") + f" --out {page.parent}", "",
             "| seed | first Table 1 run: win rate | first seat | second seat | runs with GBG's rule: win rate | "
             "first seat | second seat | compactness |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    old_by_seed, new_by_seed = [], []
    for seed in seeds:
        old_file = old_runs / f"farl-seed{seed}" / "final_eval.json" if old_runs is not None else None
        new_file = runs / f"seed{seed}" / "eval.json"
        old = _rates(json.loads(old_file.read_text())) if old_file is not None and old_file.exists() else None
        new = _rates(json.loads(new_file.read_text())) if new_file.exists() else None
        comp = "–"
        if new is not None and (runs / f"seed{seed}" / "agent.npz").exists():
            comp = f"{compactness(NTupleAgent.load(runs / f'seed{seed}' / 'agent.npz').tuples):.2f}"
        old_by_seed.append(old)
        new_by_seed.append(new)
        cells = [" | ".join(f"{100 * x:.0f} %" for x in r) if r else "– | – | –" for r in (old, new)]
        lines.append(f"| {seed} | {cells[0]} | {cells[1]} | {comp} |")
    old_all, new_all = [r for r in old_by_seed if r], [r for r in new_by_seed if r]
    summary = []
    for rows in (old_all, new_all):
        summary.append(" | ".join(pct_mean_se([r[k] for r in rows]) if len(rows) > 1 else "–" for k in range(3)))
    lines.append(f"| mean ± s.e. ({len(old_all)} / {len(new_all)} runs) | {summary[0]} | {summary[1]} | |")
    pairs = [(o[0], n[0]) for o, n in zip(old_by_seed, new_by_seed) if o and n]
    if len(pairs) > 1:
        gain, se, _ = mean_se([n - o for o, n in pairs])
        new_mean = mean_se([r[0] for r in new_all])[0]
        lines += ["", f"Paired by seed ({len(pairs)} seeds), GBG's rule minus the first Table 1 runs: "
                      f"{100 * gain:+.1f} points ± {100 * se:.1f} (s.e.) in the win rate: "
                      + ("more than two standard errors." if abs(gain) > 2 * se else
                         "within two standard errors, so these seeds alone do not prove the rule matters.")
                  + f" With GBG's rule the cell is {100 * new_mean:.1f} %, "
                  + ("within" if abs(new_mean - PAPER[0]) <= PAPER[1] else "outside")
                  + f" the paper's {100 * PAPER[0]:.0f} % ± {100 * PAPER[1]:.0f}."]
    atomic_write_text(page, "\n".join(lines) + "\n")
    return page


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=list(range(10)))
    ap.add_argument("--table-only", action="store_true", help="write the page from the runs on disk")
    ap.add_argument("--runs-dir", type=Path, default=RUNS, help="where the seeds train (default runs/hex_walk)")
    ap.add_argument("--out", type=Path, default=Path("runs/hex_tuples"),
                    help="the page's folder (default runs/hex_tuples; the shipped page: --out docs/results)")
    ap.add_argument("--old-runs", type=Path, default=None,
                    help="Table 1's first Hex runs (docs/results/archive/table1_hex_border_walk_runs, out of git)")
    args = ap.parse_args(argv)
    if not args.table_only:
        for seed in args.seeds:
            run_seed(seed, args.runs_dir)
    page = write_page(args.seeds, args.runs_dir, old_runs=args.old_runs, page=args.out / "hex_tuples.md")
    print(f"wrote {page}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
