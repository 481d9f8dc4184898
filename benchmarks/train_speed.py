"""Training speed of the n-tuple learners.  Run:  python benchmarks/train_speed.py [--games connect_four,...]

For each game's paper preset (Konen & Bagheri 2020, Appendix A.6), in a fresh process on one core:
* compile time of the self-play loop;
* compiled self-play games/s over the first N episodes of a fresh agent (after compile);
* the generic AEC path (plain PettingZoo loop, afterstate extension) on the same first M
  episodes — the two paths play identical games, so the ratio is exact;
* peak RSS of the process and the agent's size on disk (``agent.save``).
Writes ``docs/results/train_speed.md``.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from farl_agents.atomic import atomic_write_text

ROOT = Path(__file__).resolve().parents[1]
# episodes timed on the fast path, on the AEC path
BUDGET = {"connect_four": (20_000, 300), "tictactoe": (30_000, 2_000), "hex": (5_000, 300), "othello": (1_000, 50),
          "nim": (20_000, 2_000), "nim3p": (30_000, 2_000), "game2048": (200, 20)}


def measure(game: str) -> dict:
    import farl_envs
    from farl_agents.learners import NTupleAgent, paper_config, paper_game_params

    params = paper_game_params(game)
    cfg = paper_config(game)
    n_fast, n_aec = BUDGET[game]
    t = time.perf_counter()  # compile on a one-cell network: same types, no big tables
    NTupleAgent(game, cfg.replace(ntuples="explicit", ntuple_cells=((0,),)), **params).train(2)
    compile_s = time.perf_counter() - t
    agent = NTupleAgent(game, cfg, **params)
    t = time.perf_counter()
    res = agent.train(n_fast)
    fast_s = time.perf_counter() - t
    plies = float(res[:, -1].sum())
    peak_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # one agent in this process so far
    # the same first n_aec episodes on both paths
    a = NTupleAgent(game, cfg, **params)
    t = time.perf_counter()
    a.train(n_aec)
    fast_first = time.perf_counter() - t
    b = NTupleAgent(game, cfg, **params)
    env = farl_envs.make(game, **params)
    t = time.perf_counter()
    b.train_aec(env, n_aec)
    aec_first = time.perf_counter() - t
    with tempfile.TemporaryDirectory() as d:
        size = agent.save(Path(d) / "agent.npz").stat().st_size
    return {
        "game": game, "compile_s": compile_s, "episodes": n_fast, "games_per_s": n_fast / fast_s,
        "plies_per_s": plies / fast_s, "mean_plies": plies / n_fast,
        "aec_episodes": n_aec, "aec_games_per_s": n_aec / aec_first, "fast_over_aec": aec_first / fast_first,
        "peak_rss_mb": peak_rss,
        "weights_mb": agent.net.weights.nbytes / 2**20 + 2 * agent.net.tcl_n.nbytes / 2**20,
        "file_mb": size / 2**20, "episodes_done": agent.episodes_done,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", default=",".join(BUDGET))
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--out", default=str(ROOT / "docs/results/train_speed.md"))
    args = ap.parse_args(argv)
    if args.one:
        print(json.dumps(measure(args.one)))
        return 0
    rows = []
    for game in args.games.split(","):
        if game not in BUDGET:
            ap.error(f"unknown game {game!r}; choose from {', '.join(BUDGET)}")
        out = subprocess.run([sys.executable, __file__, "--one", game], capture_output=True, text=True, check=True,
                             env={**os.environ, "OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"})
        row = json.loads(out.stdout.strip().splitlines()[-1])
        rows.append(row)
        print(f"{game:13s} {row['games_per_s']:9.0f} games/s ({row['plies_per_s'] / 1e3:6.0f} k plies/s, "
              f"{row['mean_plies']:.0f} plies/game)  AEC {row['aec_games_per_s']:7.0f} games/s  "
              f"fast/AEC {row['fast_over_aec']:5.0f}x  RSS {row['peak_rss_mb']:5.0f} MB  "
              f"file {row['file_mb']:6.2f} MB  "
              f"compile {row['compile_s']:.1f} s", flush=True)
    lines = [
        "# Training speed",
        "",
        f"Made by `python benchmarks/train_speed.py` on {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, {time.strftime('%Y-%m-%d')}.",
        "Each game runs in a fresh process on one core with its paper preset (Konen & Bagheri 2020, Appendix A.6:",
        "n-tuple set, TCL, FARL, symmetry); the throughput is over the first *episodes* of a fresh agent, after",
        "compiling. The AEC column plays the *same* first games through the PettingZoo loop (they are identical to",
        "the compiled ones, see tests/test_equivalence.py).",
        "",
        "| game | episodes | games/s | plies/s | plies/game | AEC games/s | compiled ÷ AEC | peak RSS (process) "
        "| weights (+TCL) in RAM | agent file | compile |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(f"| {r['game']} | {r['episodes']:,} | {r['games_per_s']:,.0f} | {r['plies_per_s']:,.0f} | "
                     f"{r['mean_plies']:.1f} | {r['aec_games_per_s']:,.0f} | {r['fast_over_aec']:.0f}× | "
                     f"{r['peak_rss_mb']:.0f} MB | {r['weights_mb']:.0f} MB | {r['file_mb']:.2f} MB | "
                     f"{r['compile_s']:.1f} s |")
    lines += ["", "Games get longer as agents learn (Connect Four and Othello towards full boards, 2048 by orders of",
              "magnitude), so games/s falls over a long run; plies/s is the steadier figure."]
    atomic_write_text(args.out, "\n".join(lines) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
