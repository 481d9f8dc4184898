"""Training speed of the n-tuple learners.  Run:  python benchmarks/train_speed.py [--games connect_four,...] [--extra]

For each game's paper preset (Konen & Bagheri 2020, Appendix A.6), in a fresh process on one core:
* the time of the first call of the self-play loop (numba's disk cache loaded, or a compile when it is cold);
* compiled self-play games per CPU-second over the first N episodes of a fresh agent, repeated (median, range);
* the generic AEC path (plain PettingZoo loop, afterstate extension) on the same first M episodes (CPU time) —
  the two paths play identical games, so the ratio is exact;
* peak RSS of the process and the agent's size on disk (``agent.save``).
Then the start of ``farl train tictactoe --episodes 3000 --quiet`` with an empty numba cache and again with the
cache it left (``--skip-start`` leaves this out), and, with ``--cli``, ``farl train connect_four --preset paper
--episodes 200000 --quiet`` against the loop's own speed. The load average of the machine is written with the
figures: other processes share the cores. Writes ``docs/results/train_speed.md``.

``--extra`` measures the N-player presets (``sim3p`` ...) and the descent paper's games (a stated generic
random-walk setting, :func:`generic_config`) the same way and writes them as one section of the existing page,
leaving its other measurements alone.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from farl_agents.atomic import atomic_write_text

ROOT = Path(__file__).resolve().parents[1]
# episodes timed on the fast path, on the AEC path
BUDGET = {"connect_four": (20_000, 300), "tictactoe": (200_000, 2_000), "hex": (5_000, 300), "othello": (1_000, 50),
          "nim": (200_000, 2_000), "nim3p": (200_000, 2_000), "game2048": (200, 20)}
# The N-player presets (farl_agents/learners/presets.py, beyond the paper) and the games of Cohen-Solal 2020's
# descent paper, which have no n-tuple preset: those get GENERIC_TUPLES random-walk tuples, each as long as fits
# (at most 6 cells, P^length <= GENERIC_ENTRIES), and LearnerConfig's defaults for everything else.
NPLAYER_BUDGET = {"sim3p": (20_000, 300), "yavalath3p": (1_000, 50), "chinese_checkers3p": (60, 5),
                  "ewn3p": (10_000, 200)}
GENERIC_BUDGET = {"amazons": (10, 2), "breakthrough": (2_000, 50), "clobber": (20_000, 300),
                  "lines_of_action": (200, 10), "outer_open_gomoku": (300, 10), "santorini": (500, 20),
                  "surakarta": (100, 5)}
GENERIC_TUPLES = 20
GENERIC_ENTRIES = 1 << 16
EXTRA_SECTION = "## N-player presets and the descent paper's games"
REPEATS = 3
FARL = [sys.executable, "-m", "farl_agents"]

# What the profile of the compiled loop found (docs/results/train_speed.md explains it): TicTacToe paper preset,
# 30,000 episodes, CPU µs per ply, each row with the change before it applied (measured 2026-11-24 on this
# machine, scratch copies of the loop; the last row is the committed code).
FINDINGS = [
    ("before (the loop as it was, its compile excluded)", 3.90, 29_000),
    ("the same with numba's reference counts made non-atomic (a measurement only, not a change)", 2.13, 54_000),
    ("the steps inlined into the loop (`inline=\"always\"`): no call passing 25 arrays of the Net, Memory and "
     "Traces tuples", 2.26, 51_000),
    ("`raw_value` reads `weights[o, p, k]`, not a view `weights[o, p]` per symmetric board", 1.99, 58_000),
    ("no `np.empty` per update (the ring's newer slots are computed, not stored)", 1.80, 64_000),
    ("borrowed arrays: the loop's arguments without their owner, so numba counts no references", 0.67, 173_000),
    ("committed: the same, the game's kernels called through the cached `Kernels` type", 0.62, 187_000),
]

# The second profile (2026-11-25, `perf record` of the paper presets, share of the training's CPU samples) and the
# changes it led to; docs/results/train_speed.md explains them.
PROFILE_2 = [
    ("libm `tanh` (the output sigmoid of every candidate's value)", "11 %", "21 %", "(below)"),
    ("libm `exp` (TC-EXP's step factor, once per table entry of every adapted state)", "—", "—", "33 % (with tanh)"),
    ("calls of the game's kernels: each array passed on the stack, one reference-count call per array on "
     "entry and exit", "8 %", "29 %", "small"),
    ("candidate indices from the position's (`board_indices_from`), incl. a slice copy", "20 %", "not split out",
     "10 %"),
    ("the position's own indices (`board_indices`, an AVX-512 gather per tuple)", "7 %", "not split out", "small"),
    ("value sums (`raw_value`: loads from the tables, one dependent add each)", "small", "small", "16 %"),
    ("TD update with TCL (`apply_change`)", "small", "small", "20 %"),
]
# (game, before median, before min, after median, after min): CPU µs per ply, /tmp scripts of 2026-11-25 that time
# NTupleAgent.train on the paper preset (TicTacToe and Nim 200,000 games, Othello 1,000, Connect Four 20,000, after
# a quarter of that as warm-up), the committed loop before (git archive of 751c5ce) and after, alternately.
ROUND_2 = [
    ("tictactoe", 0.694, 0.690, 0.556, 0.545),
    ("nim", 0.672, 0.670, 0.687, 0.684),
    ("othello", 49.73, 49.33, 40.25, 39.55),
    ("connect_four", 8.40, 8.30, 6.50, 6.50),
]
ROUND_2_NOTES = [
    "What changed:",
    "* **The game's kernels inlined where every candidate calls them** (`legal_actions`, `afterstate`, `board` in",
    "  `fill_candidates_known`; `board` and `chance` once per ply): `kernels.py` hands numba an `inline=\"always\"`",
    "  copy of the game's own function, so no array crosses a call. The afterstate of the chosen move, the",
    "  random opening and `initial_state` stay calls: every inlined copy adds to the loop's compile time.",
    "* **The position's indices carried over**: after a move without a chance event the next position is the",
    "  chosen candidate, whose indices `fill_candidates` has already derived; they are copied instead of",
    "  recomputed from the board (`board_indices`: n_sym · m · n multiply-adds; 2048 still recomputes them).",
    "* **V(s') not computed twice**: a greedy move's TD target reuses the value the choice computed",
    "  (`mem.cand_value`; no weight changes between the two).",
    "* **`board_indices_from` copies the base indices element by element** (a 2-D slice assignment checked",
    "  overlap and broadcast, about 12 % of a TicTacToe ply).",
    "* **TC-EXP's `exp` only where its result is used**: not for a duplicate visit (index inhibition leaves its",
    "  weight alone), and not when |N|/A is exactly 1 (entries whose changes so far all had one sign, and new",
    "  ones), where exp(β · 0) = 1 exactly.",
    "",
    "Tried in between and measured faster but not kept: inlining *every* kernel call of the loop, which gave",
    "TicTacToe 0.52 µs and Nim 0.55 µs per ply (before: 0.69-0.79) but raised the cold compile of",
    "`farl train tictactoe` by about 15 % of CPU (30.4 -> 35.1 CPU s, one pair). The kept version may still cost",
    "more to compile: the first `train` call of TicTacToe with an empty numba cache took 28.0, 27.4, 29.5 CPU s",
    "before, and 30.6, 30.9, 29.3 with the chosen move's afterstate inlined too (+8 % at the medians); the",
    "kept version, measured later without a paired baseline and under more load, 32.1-34.1. All figures are",
    "from a machine shared with up to a dozen other processes, so a single pair moves by ±15 %: Nim's pair",
    "shows no gain (an earlier pair, with every call inlined, 0.79 -> 0.55).",
    "",
    "Where an Othello ply went before these changes (the profile above; 29 µs on a quiet machine): a third is",
    "libm's `exp` for TC-EXP (50 tuples × 8 boards = 400 entries per adapted state, up to 7 states with",
    "λ = 0.5 and the horizon), a fifth the TCL update loop around it, a sixth the value sums (400 table reads",
    "per candidate, summed in order into one float64: each add waits for the one before), a tenth the",
    "candidates' indices. Keeping every float as it was rules out the two large remedies: a cheaper `exp`",
    "(a different last bit changes the learning) and summing in several accumulators (a different order of",
    "the adds). The same holds for `tanh`, a fifth of a Nim ply.",
]

def _cpu() -> float:
    return time.process_time()


def generic_config(game: str, episodes: int):
    """The stated generic setting of a game without a preset: ``GENERIC_TUPLES`` random-walk tuples as long as
    ``P^length <= GENERIC_ENTRIES`` allows (at most 6), LearnerConfig's defaults otherwise (TD-FARL)."""
    import farl_envs
    from farl_agents.learners import LearnerConfig
    from farl_agents.learners.presets import fitting_tuple_length

    length = fitting_tuple_length(farl_envs.game_spec(game).n_cell_values, GENERIC_ENTRIES)
    return LearnerConfig(ntuples="random-walk", ntuple_count=GENERIC_TUPLES, ntuple_length=length, episodes=episodes)


def setup(key: str):
    """``(game, params, config, budget)`` of a row: a paper game, an N-player preset or a generic game."""
    from farl_agents.learners.presets import nplayer_config, nplayer_game, paper_config, paper_game_params

    if key in BUDGET:
        return key, paper_game_params(key), paper_config(key), BUDGET[key]
    if key in NPLAYER_BUDGET:
        game, params = nplayer_game(key)
        return game, params, nplayer_config(key), NPLAYER_BUDGET[key]
    return key, {}, generic_config(key, GENERIC_BUDGET[key][0]), GENERIC_BUDGET[key]


def measure(key: str) -> dict:
    import farl_envs
    from farl_agents.learners import NTupleAgent, sarsa_farl, td_farl
    from farl_agents.ntuple.network import stored_bytes

    game, params, cfg, (n_fast, n_aec) = setup(key)
    loop = td_farl.self_play if cfg.algo == "td" else sarsa_farl.self_play
    t = time.perf_counter()  # the first call: loads the loop from numba's cache, or compiles it
    NTupleAgent(game, cfg, **params).train(2)
    first_call_s = time.perf_counter() - t
    from_cache = sum(loop.stats.cache_hits.values()) > 0
    runs, agent = [], None
    for _ in range(REPEATS):
        agent = None  # one network in memory at a time (2048's is 768 MB)
        agent = NTupleAgent(game, cfg, **params)
        t = _cpu()
        res = agent.train(n_fast)
        runs.append(_cpu() - t)
    fast_s = statistics.median(runs)
    plies = float(res[:, -1].sum())
    peak_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    with tempfile.TemporaryDirectory() as d:
        size = agent.save(Path(d) / "agent.npz").stat().st_size
    weights_mb = stored_bytes(agent.net) / 2**20
    agent = None
    # the same first n_aec episodes on both paths
    a = NTupleAgent(game, cfg, **params)
    t = _cpu()
    a.train(n_aec)
    fast_first = _cpu() - t
    env = farl_envs.make(game, **params)
    NTupleAgent(game, cfg, **params).train_aec(env, 1)  # warm-up: the AEC path's compiled steps load (or compile)
    b = NTupleAgent(game, cfg, **params)
    t = _cpu()
    b.train_aec(env, n_aec)
    aec_first = _cpu() - t
    return {
        "game": key, "setting": f"{cfg.ntuple_count} x {cfg.ntuple_length}-tuples" if cfg.ntuples == "random-walk"
        else cfg.ntuples, "first_call_s": first_call_s, "from_cache": from_cache, "episodes": n_fast,
        "games_per_s": n_fast / fast_s, "games_per_s_range": [n_fast / max(runs), n_fast / min(runs)],
        "plies_per_s": plies / fast_s, "us_per_ply": 1e6 * fast_s / plies, "mean_plies": plies / n_fast,
        "aec_episodes": n_aec, "aec_games_per_s": n_aec / aec_first, "fast_over_aec": aec_first / fast_first,
        "peak_rss_mb": peak_rss, "weights_mb": weights_mb, "file_mb": size / 2**20,
    }


def start_times() -> dict:
    """Wall seconds of ``farl train tictactoe --episodes 3000 --quiet``: empty numba cache, then the cache it left."""
    out = {}
    with tempfile.TemporaryDirectory() as d:
        env = {**os.environ, "NUMBA_CACHE_DIR": str(Path(d) / "numba")}
        for name in ("cold", "warm"):
            t = time.perf_counter()
            subprocess.run([*FARL, "train", "tictactoe", "--episodes", "3000", "--quiet", "--out",
                            str(Path(d) / f"run-{name}")], check=True, env=env, capture_output=True)
            out[name] = time.perf_counter() - t
    return out


def direct_cpu(game: str, episodes: int) -> float:
    """CPU seconds of ``NTupleAgent.train(episodes)`` in one call (paper preset with that budget; loop loaded)."""
    from farl_agents.learners import NTupleAgent, paper_config, paper_game_params

    cfg, params = paper_config(game, episodes=episodes), paper_game_params(game)
    NTupleAgent(game, cfg, **params).train(1)
    agent = NTupleAgent(game, cfg, **params)
    t = _cpu()
    agent.train(episodes)
    return _cpu() - t


def cli_speed(episodes: int = 200_000) -> dict:
    """``farl train connect_four --preset paper --quiet`` against the same episodes in one ``NTupleAgent.train`` call.

    Both in CPU seconds of their process; the command's include its start, checkpoints and curve plot.
    """
    out = subprocess.run([sys.executable, __file__, "--direct", str(episodes)], capture_output=True, text=True,
                         check=True)
    direct = float(out.stdout.strip().splitlines()[-1])
    with tempfile.TemporaryDirectory() as d:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run([*FARL, "train", "connect_four", "--preset", "paper", "--episodes", str(episodes), "--quiet",
                        "--out", str(Path(d) / "run")], check=True, capture_output=True)
        wall = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        with open(Path(d) / "run" / "curve.csv") as f:
            rows = list(csv.DictReader(f))
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    # inside the run: from its first curve point after the start to its last, in the run's own wall clock (every
    # chunk, curve point and checkpoint in between; the process start and the final save and plot left out)
    first, last = rows[1], rows[-1]
    inside = (int(last["episode"]) - int(first["episode"])) / (float(last["wall_seconds"]) -
                                                               float(first["wall_seconds"]))
    return {"episodes": episodes, "wall_s": wall, "cpu_s": cpu, "points": len(rows),
            "games_per_s": episodes / cpu, "direct_games_per_s": episodes / direct, "inside_games_per_s": inside}


PAPER_RUN_JSON = ROOT / "docs/results/train_speed_paper_run.json"


def paper_run(chunk: int = 500_000) -> dict:
    """Connect Four's whole paper run (5,000,000 episodes of its preset) in this process, training only (no curve
    points): CPU seconds and plies per chunk of ``chunk`` episodes."""
    from farl_agents.learners import NTupleAgent, paper_config, paper_game_params

    cfg = paper_config("connect_four")
    agent = NTupleAgent("connect_four", cfg, **paper_game_params("connect_four"))
    agent.train(0)  # loads (or compiles) the loop outside the timing
    chunks = []
    while agent.episodes_done < cfg.episodes:
        n = min(chunk, cfg.episodes - agent.episodes_done)
        t = _cpu()
        res = agent.train(n)
        chunks.append({"episodes_done": agent.episodes_done, "cpu_s": _cpu() - t, "plies": float(res[:, -1].sum())})
        print(json.dumps(chunks[-1]), file=sys.stderr, flush=True)
    cpu = sum(c["cpu_s"] for c in chunks)
    return {"game": "connect_four", "episodes": cfg.episodes, "cpu_s": cpu, "cpu_minutes": cpu / 60,
            "games_per_cpu_s": cfg.episodes / cpu, "us_per_ply": 1e6 * cpu / sum(c["plies"] for c in chunks),
            "chunks": chunks, "date": time.strftime("%Y-%m-%d"), "load_before": _load()}


def paper_run_section() -> list[str]:
    """The page's section on the whole paper run, from :data:`PAPER_RUN_JSON` (empty when never measured)."""
    if not PAPER_RUN_JSON.exists():
        return []
    r = json.loads(PAPER_RUN_JSON.read_text())
    first, last = r["chunks"][0], r["chunks"][-1]
    last_games = last["episodes_done"] - r["chunks"][-2]["episodes_done"]
    return ["", "## The paper's whole Connect Four run", "",
            f"All {r['episodes']:,} episodes of the Connect Four paper preset in one process, training only (no "
            f"curve points), in chunks of {first['episodes_done']:,}: **{r['cpu_minutes']:.1f} CPU minutes** "
            f"({r['games_per_cpu_s']:,.0f} games per CPU second, {r['us_per_ply']:.2f} µs per ply; the first "
            f"chunk {first['plies'] / first['episodes_done']:.1f} plies a game at "
            f"{1e6 * first['cpu_s'] / first['plies']:.2f} µs per ply, the last {last['plies'] / last_games:.1f} at "
            f"{1e6 * last['cpu_s'] / last['plies']:.2f}). Measured {r['date']} (load average {r['load_before']} "
            f"before) by `python benchmarks/train_speed.py --paper-run`, which writes `{PAPER_RUN_JSON.name}`."]


def _load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


QUIET_LOAD = 1.5  # a 1-minute load average below this on both ends of a run counts as a quiet machine


def load_sentence(load_before: str, load_after: str) -> str:
    """The page's words for the machine's load: quiet only when the 1-minute average stayed below QUIET_LOAD."""
    busiest = max(float(load_before.split(",")[0]), float(load_after.split(",")[0]))
    return ("the machine was otherwise quiet" if busiest < QUIET_LOAD else
            "other processes shared the machine, so these figures are lower than on a quiet machine")


def write_extra_section(out: str, rows: list, load_before: str, load_after: str, games: str) -> None:
    """Put the rows of ``--extra`` into ``out`` as the section :data:`EXTRA_SECTION` (replacing an older copy of it,
    else before "## Start of a run"); everything else on the page stays as it is."""
    lines = [EXTRA_SECTION, "",
             f"Made by `python benchmarks/train_speed.py --extra --games {games}` on {platform.machine()}, "
             f"{os.cpu_count()} cores, Python {platform.python_version()}, {time.strftime('%Y-%m-%d')}; load average "
             f"(1, 5, 15 min) {load_before} before and {load_after} after: {load_sentence(load_before, load_after)}.",
             "Same protocol as the table above (fresh process, one core, CPU seconds, first *episodes* of a fresh "
             f"agent, median of {REPEATS}). Settings: the N-player presets `sim3p`, `yavalath3p`, "
             "`chinese_checkers3p`, `ewn3p` of `farl_agents/learners/presets.py` (TD-FARL, random-walk tuples, "
             "with their game parameters: Sim K6, Yavalath 5, Chinese Checkers with a 300-turn limit, EWN 6x6, "
             "3 players each); the descent paper's games (Cohen-Solal 2020) have no n-tuple preset and run TD-FARL "
             f"with `LearnerConfig`'s defaults and {GENERIC_TUPLES} random-walk n-tuples, each of the largest "
             f"length <= 6 with P^length <= {GENERIC_ENTRIES:,} (P the game's cell values): 6 for P <= 6, 4 for "
             "Santorini's 13 values.", "",
             "| game | setting | episodes | games / CPU-s | µs / ply | plies/game | AEC games / CPU-s "
             "| compiled ÷ AEC | peak RSS | weights (+TCL) in RAM | agent file | first call |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lo, hi = r["games_per_s_range"]
        lines.append(f"| {r['game']} | {r['setting']} | {r['episodes']:,} | {r['games_per_s']:,.1f} "
                     f"({lo:,.1f}–{hi:,.1f}) | {r['us_per_ply']:.2f} | {r['mean_plies']:.1f} | "
                     f"{r['aec_games_per_s']:,.1f} | {r['fast_over_aec']:.0f}× | {r['peak_rss_mb']:.0f} MB | "
                     f"{r['weights_mb']:.1f} MB | {r['file_mb']:.2f} MB | {r['first_call_s']:.1f} s "
                     f"({'cache' if r['from_cache'] else 'compiled'}) |")
    lines += ["", "A ply evaluates the afterstate of every legal action, so µs per ply grows with the number of legal "
              "actions and the board's size (Outer-Open Gomoku: up to 225 candidates on 225 cells); games that "
              "split a turn into several actions (Amazons: queen, destination, arrow; Chinese Checkers: one hop "
              "per action) have cheap plies but many per game."]
    page = Path(out).read_text()
    head, section, after = split_extra_section(page)
    if section:
        page = head + "\n".join(lines) + "\n" + after
    else:
        marker = "## Start of a run"
        head, sep, rest = page.partition(marker)
        page = (head + "\n".join(lines) + "\n\n" + sep + rest) if sep else page.rstrip("\n") + "\n\n" + \
            "\n".join(lines) + "\n"
    atomic_write_text(out, page)
    print(f"wrote {out}")


def split_extra_section(page: str) -> tuple[str, str, str]:
    """``page`` as (text before :data:`EXTRA_SECTION`, the section up to the next one, the rest); the section and
    the rest are "" when the page has none."""
    head, sep, rest = page.partition(EXTRA_SECTION)
    if not sep:
        return page, "", ""
    nxt = rest.find("\n## ")
    if nxt < 0:
        return head, sep + rest, ""
    return head, sep + rest[:nxt + 1], rest[nxt + 1:]


def kept_extra_section(out: str) -> str:
    """The :data:`EXTRA_SECTION` of the page at ``out`` (up to the next section), or "" when it has none."""
    return split_extra_section(Path(out).read_text() if Path(out).exists() else "")[1].rstrip("\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", default=",".join(BUDGET))
    ap.add_argument("--skip-start", action="store_true", help="do not measure the cold and warm start of farl train")
    ap.add_argument("--cli", action="store_true", help="also time farl train connect_four --preset paper")
    ap.add_argument("--paper-run", action="store_true",
                    help="instead: time Connect Four's whole 5,000,000-episode paper run (training only) and write "
                         "docs/results/train_speed_paper_run.json, which the page quotes")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--direct", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--extra", action="store_true",
                    help="measure the N-player presets and the descent paper's games (or those of --games) and "
                         "write them as one section into the existing page, keeping its other measurements")
    ap.add_argument("--out", default=str(ROOT / "docs/results/train_speed.md"))
    args = ap.parse_args(argv)
    known = {**BUDGET, **NPLAYER_BUDGET, **GENERIC_BUDGET}
    if args.extra and args.games == ",".join(BUDGET):
        args.games = ",".join([*NPLAYER_BUDGET, *GENERIC_BUDGET])
    if args.one:
        print(json.dumps(measure(args.one)))
        return 0
    if args.paper_run:
        out = subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); import train_speed, "
                              "json; print(json.dumps(train_speed.paper_run()))", str(Path(__file__).parent)],
                             stdout=subprocess.PIPE, text=True, check=True,
                             env={**os.environ, "OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"})
        result = json.loads(out.stdout.strip().splitlines()[-1])
        atomic_write_text(PAPER_RUN_JSON, json.dumps(result, indent=1) + "\n")
        print("\n".join(paper_run_section()))
        return 0
    if args.direct:
        print(direct_cpu("connect_four", args.direct))
        return 0
    load_before = _load()
    rows = []
    for game in args.games.split(","):
        if game not in known:
            ap.error(f"unknown game {game!r}; choose from {', '.join(known)}")
        out = subprocess.run([sys.executable, __file__, "--one", game], capture_output=True, text=True, check=True,
                             env={**os.environ, "OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"})
        row = json.loads(out.stdout.strip().splitlines()[-1])
        rows.append(row)
        print(f"{game:13s} {row['games_per_s']:9.0f} games/CPU-s ({row['us_per_ply']:6.2f} µs/ply, "
              f"{row['mean_plies']:.0f} plies/game)  AEC {row['aec_games_per_s']:7.0f} games/CPU-s  "
              f"fast/AEC {row['fast_over_aec']:5.0f}x  RSS {row['peak_rss_mb']:5.0f} MB  "
              f"file {row['file_mb']:6.2f} MB  first call {row['first_call_s']:.1f} s "
              f"({'cache' if row['from_cache'] else 'compiled'})", flush=True)
    if args.extra:
        write_extra_section(args.out, rows, load_before, _load(), args.games)
        return 0
    starts = None if args.skip_start else start_times()
    if starts:
        print(f"farl train tictactoe --episodes 3000: {starts['cold']:.1f} s cold, {starts['warm']:.1f} s warm")
    cli = cli_speed() if args.cli else None
    if cli:
        print(f"farl train connect_four --preset paper: {cli['games_per_s']:.0f} games/CPU-s, inside the run "
              f"{cli['inside_games_per_s']:.0f} games/s, one train call {cli['direct_games_per_s']:.0f}")
    load_after = _load()
    lines = [
        "# Training speed",
        "",
        f"Made by `python benchmarks/train_speed.py` on {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, {time.strftime('%Y-%m-%d')}; load average (1, 5, 15 min) "
        f"{load_before} before and {load_after} after: {load_sentence(load_before, load_after)}.",
        "Each game runs in a fresh process on one core with its paper preset (Konen & Bagheri 2020, Appendix A.6:",
        "n-tuple set, TCL, FARL, symmetry). Throughput is in games per *CPU* second of that process, over the first",
        f"*episodes* of a fresh agent, the median of {REPEATS} fresh agents (range in brackets); the loop is loaded or",
        "compiled before (*first call*). The AEC column plays the *same* first games through the PettingZoo loop (they",
        "are identical to the compiled ones, see tests/test_equivalence.py).",
        "",
        "| game | episodes | games / CPU-s | µs / ply | plies/game | AEC games / CPU-s | compiled ÷ AEC "
        "| peak RSS (process, with any compiling) | weights (+TCL) in RAM | agent file | first call |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lo, hi = r["games_per_s_range"]
        lines.append(f"| {r['game']} | {r['episodes']:,} | {r['games_per_s']:,.0f} ({lo:,.0f}–{hi:,.0f}) | "
                     f"{r['us_per_ply']:.2f} | {r['mean_plies']:.1f} | {r['aec_games_per_s']:,.0f} | "
                     f"{r['fast_over_aec']:.0f}× | {r['peak_rss_mb']:.0f} MB | {r['weights_mb']:.0f} MB | "
                     f"{r['file_mb']:.2f} MB | {r['first_call_s']:.1f} s "
                     f"({'cache' if r['from_cache'] else 'compiled'}) |")
    lines += ["", "Games get longer as agents learn (Connect Four and Othello towards full boards, 2048 by orders of",
              "magnitude), so games/s falls over a long run; µs per ply is the steadier figure."]
    extra = kept_extra_section(args.out)
    if extra:  # measured by --extra at another time: kept as it was
        lines += ["", extra]
    if starts:
        lines += ["", "## Start of a run", "",
                  "Wall seconds of the whole `farl train tictactoe --episodes 3000 --quiet` (start, training, the "
                  "curve points' evaluations, files):",
                  "", "| numba cache | wall seconds |", "|---|---:|",
                  f"| empty (compiles the loop and what it calls) | {starts['cold']:.1f} |",
                  f"| as the first run left it | {starts['warm']:.1f} |",
                  "", "The self-play loops (`td_farl.self_play`, `sarsa_farl.self_play`) are cached by numba per game",
                  "and learner (`farl_agents/learners/kernels.py`) in one folder per user, shared by the command",
                  "line, the library and the tests: `NUMBA_CACHE_DIR` if set, else `$FARL_CACHE_DIR/numba`, else",
                  "`~/.cache/farl/numba` (`farl_envs/numba_setup.py`; docs/results/cold_start.md).", "",
                  "Half of a cold compile was numba's inliner copying the learner's steps into the loop: every call",
                  "site of an `inline=\"always\"` function gets a copy of its whole body, and the TD update (with its",
                  "trace loop and TCL) had three sites in the loop (the move's update and the two parts of final",
                  "adaptation), each with two sites of the table update. One site each (final adaptation loops over",
                  "its updates; the trace loop picks the skip list, then calls once) halved the first `train` call of",
                  "TicTacToe with an empty cache: 20.4, 22.6, 24.2, 21.8, 23.5 CPU s before, 11.9 after the change",
                  "(alternating fresh processes on core 0, 2026-11-25, quiet machine). The learned floats are the",
                  "same bit for bit (weights and TCL sums after Othello, Nim3P TD and Q, Connect Four with",
                  "reset-and-replace traces, TicTacToe SARSA, Nim with replacing traces), and so is the speed:",
                  "TicTacToe 235,000 against 237,000 games per CPU-second, Connect Four 10,100 against 10,200,",
                  "Othello 608 against 603 (medians of 3-4 alternating pairs). Merging the move's update into the",
                  "same loop as well would have brought the compile to 10 s but cost TicTacToe 5 % per ply; it was",
                  "not kept."]
    lines += paper_run_section()
    if cli:
        lines += ["", "## The command line", "",
                  f"`farl train connect_four --preset paper --quiet --episodes {cli['episodes']:,}` "
                  f"({cli['points']} curve points, no evaluations): {cli['games_per_s']:,.0f} games per CPU second "
                  f"of the whole command (start, chunks, checkpoints, curve plot; {cli['cpu_s']:.1f} CPU s, "
                  f"{cli['wall_s']:.1f} s wall); the same episodes in one `NTupleAgent.train` call: "
                  f"{cli['direct_games_per_s']:,.0f} games per CPU second, so the command reaches "
                  f"{100 * cli['games_per_s'] / cli['direct_games_per_s']:.0f} % of it. Inside the run, from its "
                  f"first curve point to its last (every chunk, curve point and checkpoint between them; the "
                  f"process start, the final save and the plot left out), it trains {cli['inside_games_per_s']:,.0f} "
                  f"games per second of its wall clock: "
                  f"{100 * cli['inside_games_per_s'] / cli['direct_games_per_s']:.0f} % of the one call. (These games "
                  "are longer than the first 20,000 of the table above: 31 plies at the end.)",
                  "",
                  "Found on the way: every curve point wrote a checkpoint, and saving the 105 MB Connect Four network",
                  "takes about a second; with 20 points in a 200,000-episode run that was 20 s of an 80 s run (wall",
                  "seconds minus training seconds of the curve, measured 2026-11-24). A point without evaluation now",
                  "rewrites only curve.csv and the checkpoint keeps its cadence (`--checkpoint-minutes`, at the end,",
                  "on Ctrl-C): the same run spends 0.3 s outside training. The chunks grow to about 2 s",
                  "(`CHUNK_SECONDS`) within five chunks; per chunk the run does only its statistics."]
    lines += ["", "## Where a ply's time went", "",
              "A profile of the compiled loop (`perf` on TicTacToe's paper preset) found 43 % of the samples on two",
              "instructions: numba's atomic reference-count increment and decrement. Every array that enters a",
              "compiled function as an argument, comes out of a named tuple or is sliced gets its owner's count",
              "raised and lowered with atomic instructions, and the learners pass three named tuples of 25 arrays",
              "to every step. The changes, one after the other (TicTacToe, CPU µs per ply):", "",
              "| change | µs / ply | games / CPU-s |", "|---|---:|---:|"]
    lines += [f"| {name} | {us:.2f} | {gps:,} |" for name, us, gps in FINDINGS]
    lines += ["", "Inlining and borrowing need each other: borrowed arrays without inlining gave 2.14 µs per ply",
              "(the calls still pass every field of the tuples), inlining without borrowing 1.80 µs. Connect Four's",
              "paper preset went from 8.4 to 5.2 µs per ply (5,900 to 9,400 games per CPU-second over its first",
              "10,000 episodes): its ply is dominated by the table work of 70 8-tuples on 2 boards with TC-EXP.",
              "Two more costs were outside the loop: the benchmark's warm-up compiled the loop for a network whose",
              "`sym_cells` were C-ordered while the real one's were Fortran-ordered, so the timed run compiled it a",
              "second time (the table's TicTacToe figure of 6,581 games/s in the previous version of this page",
              "included ~2 s of compiling); and `NTupleAgent.schedules` computed α and ε per episode in Python",
              "(~2 µs an episode, a third of a TicTacToe chunk), now one compiled loop with the same floats."]
    lines += ["", "## Second round: what every small-game ply still paid", "",
              "A second `perf` profile of the loop as committed above (2026-11-25; the JIT code mapped by dumping it",
              "from the process and disassembling it) split a ply's CPU time as follows, before the changes below:",
              "", "| where | TicTacToe | Nim | Othello |", "|---|---:|---:|---:|"]
    lines += [f"| {where} | {ttt} | {nim} | {oth} |" for where, ttt, nim, oth in PROFILE_2]
    lines += ["", "The changes (each keeps every float and every random draw; tests/test_equivalence.py and",
              "tests/test_learners.py pass), CPU µs per ply, the loop before and after them measured alternately",
              "in fresh processes on core 0 of the shared machine (load average 10-13; median of 3 runs, the",
              "minimum in brackets):", "",
              "| game | before | after | speed-up |", "|---|---:|---:|---:|"]
    lines += [f"| {g} | {b:.2f} ({bm:.2f}) | {a:.2f} ({am:.2f}) | {b / a:.2f}× |" for g, b, bm, a, am in ROUND_2]
    lines += ["", *ROUND_2_NOTES]
    lines += ["", "## 2048's tables", "",
              "2048's paper setting has 4 fixed 6-tuples over 16 cell values: 4 × 16⁶ = 67 M entries of weight, N",
              "and A (float32, 768 MB). A zero-filled dense table saves little, because the entries written early",
              "are spread over most of the table's memory pages (measured 2026-11-24: after 2,000 games 1.9 % of the",
              "entries, on 28 % of its 4 KB pages and 66 % of its 2 MB pages). Since 2026-11-26 such tables are",
              "*paged* (`farl_agents/ntuple/network.py`): a page of 4 entries gets its place when first written,",
              "handed out in order, so the memory follows the entries written; the floats are the same. The",
              "measurements (training from scratch, loading the shipped agent, the pages a 200,000-game agent",
              "writes) are in `table_memory.md` (`python benchmarks/table_memory.py`): e.g. a process peak of 261",
              "against 935 MB after 3,000 games, about 332 MiB of tables after 200,000 games, at 1.1-1.2x the CPU",
              "time per game. The 2048 row above is measured with the paged tables (its first 200 games read mostly",
              "page 0 and run about as fast as dense ones)."]
    atomic_write_text(args.out, "\n".join(lines) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
