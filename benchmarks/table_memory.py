"""How much memory do 2048's n-tuple tables need, dense and paged?  Run:
    python benchmarks/table_memory.py [--episodes 3000] [--repeats 3] [--agent runs/pretrained/game2048/agent.npz]

2048's paper setting (Konen & Bagheri 2020, Appendix A.6) has four 6-tuples over 16 cell values: 67 million
entries of weight and two TCL accumulators, 768 MiB when every entry has its place. The paged layout
(:mod:`farl_agents.ntuple.network`) gives a page of ``PAGE_SIZE`` entries its place only when one of them is first
written. This script measures three things and writes ``docs/results/table_memory.md``:

1. **Training from scratch**: ``--episodes`` paper-preset games in fresh processes, dense and paged alternately
   (``--repeats`` each): CPU seconds, plies per CPU second, the process's peak resident memory, the bytes the
   tables hold, and a hash of the learned weights (the two layouts must agree to the bit).
2. **Live entries after a long run** (``--agent``, an agent file saved with its TCL accumulators, e.g. the run
   folder ``farl pretrained build game2048 --budget paper`` trains: ``runs/pretrained/game2048/agent.npz``): the
   share of entries ever written (those whose TCL sum of absolute changes left its start) and the memory pages of
   1, 2, 4, ... entries would need, page table included.
3. **Loading the shipped agent** (``farl_agents/pretrained/game2048.npz``, weights only): peak memory and table
   bytes, dense and paged.

Memory figures are the process's own (``ru_maxrss``), so they include Python, numpy and numba (~100-150 MB).
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path

from farl_agents.atomic import atomic_write_text

ROOT = Path(__file__).resolve().parents[1]
PAGE_SIZES = (2, 4, 8, 16, 64)


def one_training(layout: str, episodes: int) -> dict:
    """Train the 2048 paper preset from scratch in this process; the figures of one run."""
    import hashlib
    import resource
    import time

    from farl_agents.learners import NTupleAgent, paper_config
    from farl_agents.ntuple import network

    agent = NTupleAgent("game2048", paper_config("game2048"), layout=layout)
    agent.train(2)  # the loop is compiled (or loaded from numba's cache) here, outside the timing
    start = time.process_time()
    results = agent.train(episodes)
    cpu = time.process_time() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    digest = hashlib.sha256(network.as_dense(agent.net, agent.net.weights).tobytes()).hexdigest()[:16]
    return {"layout": layout, "episodes": episodes, "cpu_s": cpu, "plies_per_cpu_s": results[:, -1].sum() / cpu,
            "peak_rss_mb": peak, "tables_mb": network.stored_bytes(agent.net) / 2**20, "weights_sha256": digest}


def one_load(layout: str) -> dict:
    """Load the shipped 2048 agent in this process; peak memory and table bytes."""
    import resource

    from farl_agents.learners import NTupleAgent
    from farl_agents.ntuple import network
    from farl_agents.zoo import agent_path

    agent = NTupleAgent.load(agent_path("game2048"), game="game2048", layout=layout)
    return {"layout": layout, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "tables_mb": network.stored_bytes(agent.net) / 2**20}


def in_fresh_process(*args: str) -> dict:
    out = subprocess.run([sys.executable, __file__, "--one", *args], check=True, capture_output=True, text=True,
                         cwd=ROOT, env={**os.environ, "OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"})
    return json.loads(out.stdout.strip().splitlines()[-1])


def live_pages(agent_file: Path) -> dict:
    """Share of entries written, and the memory of pages of each size, for a trained agent with TCL."""
    import numpy as np

    from farl_agents.learners import NTupleAgent
    from farl_agents.ntuple import network

    agent = NTupleAgent.load(agent_file, layout="paged")
    if not agent.net.tcl_a.size:
        raise SystemExit(f"{agent_file} has no TCL accumulators: give an agent trained and saved with TCL")
    keys, slots = network.written(agent.net)
    touched = np.zeros(network.lut_size(agent.net), dtype=bool)
    touched[keys[agent.net.tcl_a[0, 0, slots] != np.float32(agent.config.tcl_init)]] = True
    dense_mb = network.lut_size(agent.net) * 12 / 2**20
    rows = []
    for size in PAGE_SIZES:
        pages = touched[: touched.size // size * size].reshape(-1, size).any(axis=1)
        table_mb = pages.size * 4 / 2**20  # the page table: one int32 per page
        rows.append({"page_size": size, "pages_live": float(pages.mean()),
                     "mb": table_mb + pages.sum() * size * 12 / 2**20})
    return {"agent": str(agent_file), "episodes": agent.episodes_done, "live": float(touched.mean()),
            "dense_mb": dense_mb, "pages": rows}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=3000, help="training games per run")
    ap.add_argument("--repeats", type=int, default=3, help="fresh processes per layout")
    ap.add_argument("--agent", type=Path, help="a 2048 agent file with TCL accumulators (section 2)")
    ap.add_argument("--out", default=str(ROOT / "docs/results/table_memory.md"))
    ap.add_argument("--one", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        what, layout, *rest = args.one
        print(json.dumps(one_training(layout, int(rest[0])) if what == "train" else one_load(layout)))
        return 0

    from farl_agents.ntuple.network import PAGE_SIZE

    runs = []
    for r in range(args.repeats):
        for layout in ("dense", "paged"):
            runs.append(in_fresh_process("train", layout, str(args.episodes)))
            print(f"run {r + 1}/{args.repeats} {layout}: {runs[-1]}", flush=True)
    loads = [in_fresh_process("load", layout) for layout in ("dense", "paged")]
    long_run = live_pages(args.agent) if args.agent else None

    def med(layout: str, key: str) -> float:
        return statistics.median(r[key] for r in runs if r["layout"] == layout)

    same = len({r["weights_sha256"] for r in runs}) == 1
    lines = ["# 2048's tables: dense and paged", "",
             f"Made by `python benchmarks/table_memory.py --episodes {args.episodes} --repeats {args.repeats}"
             + (f" --agent {args.agent}" if args.agent else "") + f"` on {platform.machine()}, "
             f"{os.cpu_count()} cores, {datetime.date.today().isoformat()}. The paged layout "
             f"(`farl_agents/ntuple/network.py`, pages of {PAGE_SIZE} entries) is what `NTupleAgent` uses for "
             "tables that would take 256 MiB or more dense (`layout=\"auto\"`): 2048's paper net (4 6-tuples over "
             "16 values, 768 MiB with TCL). Peak memory is the whole process's (Python, numpy and numba included).",
             "", f"## Training from scratch ({args.episodes:,} paper-preset games, median of {args.repeats} fresh "
             "processes per layout, alternating)", "",
             "| layout | CPU s | plies / CPU-s | peak memory | tables hold |", "|---|---:|---:|---:|---:|"]
    for layout in ("dense", "paged"):
        lines.append(f"| {layout} | {med(layout, 'cpu_s'):.2f} | {med(layout, 'plies_per_cpu_s'):,.0f} | "
                     f"{med(layout, 'peak_rss_mb'):,.0f} MB | {med(layout, 'tables_mb'):,.0f} MB |")
    lines += ["", f"The learned weights are {'identical in every run (one hash)' if same else 'NOT identical'}"
              f" across layouts and runs. Paged training costs {med('paged', 'cpu_s') / med('dense', 'cpu_s'):.2f}x "
              "the CPU time of dense: every read of an entry first reads its page's place.", ""]
    lines += ["## Loading the shipped agent (weights only, no TCL)", "",
              "| layout | peak memory | tables hold |", "|---|---:|---:|"]
    lines += [f"| {x['layout']} | {x['peak_rss_mb']:,.0f} MB | {x['tables_mb']:,.0f} MB |" for x in loads]
    if long_run:
        lines += ["", f"## Entries written after a long run ({long_run['episodes']:,} games)", "",
                  f"`{long_run['agent']}`: {100 * long_run['live']:.1f} % of the entries were ever written (their "
                  "TCL sum of absolute changes left its start). The memory the tables (weight, N, A) would need "
                  f"with pages of each size, the page table included (dense: {long_run['dense_mb']:,.0f} MiB):", "",
                  "| entries per page | pages written | memory |", "|---:|---:|---:|"]
        lines += [f"| {p['page_size']} | {100 * p['pages_live']:.1f} % | {p['mb']:,.0f} MiB |"
                  for p in long_run["pages"]]
    atomic_write_text(args.out, "\n".join(lines) + "\n")
    print("\n".join(lines))
    print(f"wrote {args.out}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
