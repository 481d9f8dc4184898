"""The N-player Table 1 rerun's EWN agents with a search around them at test time.

The rerun (``docs/results/table1_nplayer.md``) trains five TD-FARL and five no-FARL agents on 3-player EinStein
würfelt nicht! (``ewn3p_large``: 60 walks of 6 squares, GBG's schedule, 1,000,000 episodes). Bare, the FARL agents
score −0.160 ± 0.045 against two MCTS1000 players, MCTS1000 itself about −0.09 in the same seats. This study
asks whether a search at test time (the strength issue's wrappers, ``farl_agents.opponents.wrappers``) lifts
them above MCTS1000, and whether it closes the gap final adaptation opened (the no-FARL agents searched the same
way). A third column holds the rerun's per-ply agents (``ewn3p_large-ply``): a search values the positions other
players made, which a player-centred agent never learned to value (its tables for player i only ever saw i's
own afterstates) and a per-ply agent did (one weight set per valuer and maker).

Every figure is one ``farl eval`` per agent (``RUN+WRAPPER --vs mcts1000``, 20 games per seat, seed 0), kept in
``--runs-dir`` (default ``runs/nplayer_searched``) so that a stopped study resumes; a column's figure is the mean
± s.e. over its five agents, as Table 1 reports its runs. MCTS1000 itself is measured in the same seats, seed and
protocol with 100 games per seat, and plain MCTS3000 with 40 (the control of PUCT 3,000: as many iterations
without the agent)::

    python -m studies.nplayer.searched --out docs/results          # every cell, then the page
    python -m studies.nplayer.searched --wrappers expectimax2      # some wrappers ("" is the bare agent)
    python -m studies.nplayer.searched --table-only --out docs/results

The agents are the rerun's run folders (``--agents-dir``, default ``runs/table1_nplayer_long_runs/ewn3p_large``,
and the per-ply ones beside it in ``ewn3p_large-ply``): ``farl reproduce table1 --rows ewn3p_large,ewn3p_large-ply
--budget paper --runs 5`` trains them where they are missing.
"""
from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from farl_agents.atomic import atomic_write_text
from studies.strength.strength import Row, run_row

GAME = "einstein_wurfelt_nicht"
PARAMS = ("players=3", "size=6", "cell_coding=1")
OPPONENT = "mcts1000"
GAMES_PER_SEAT = 20
REFERENCE_GAMES_PER_SEAT = 100
SEEDS = (0, 1, 2, 3, 4)
COLUMNS = ("farl", "nofarl", "ply")
"""The rerun's columns: TD-FARL, the same without final adaptation, the per-ply chain (no FARL)."""
LABELS = {"farl": "FARL", "nofarl": "no-FARL", "ply": "per ply (no FARL)"}
WRAPPERS = ("", "expectimax2", "mcts300", "mcts1000", "mcts3000")
"""The bare agent, expectimax-N two plies deep, PUCT with 300, 1,000 and 3,000 iterations (the agent's values and
priors at its leaves; 1,000 as many as the MCTS opponents' own)."""
WHAT = {"": "bare", "expectimax2": "expectimax-N, depth 2", "mcts300": "PUCT, 300 iterations",
        "mcts1000": "PUCT, 1,000 iterations", "mcts3000": "PUCT, 3,000 iterations"}
AGENTS = Path("runs/table1_nplayer_long_runs/ewn3p_large")
RUNS = Path("runs/nplayer_searched")


def agent_row(agents: Path, column: str, seed: int, wrapper: str) -> Row:
    """The evaluation of the rerun's ``column`` agent of ``seed``, searched with ``wrapper`` ("" for none)."""
    if column == "ply":  # the per-ply row's runs, trained without FARL, sit beside the row's own
        folder = agents.with_name(agents.name + "-ply") / f"nofarl-seed{seed}"
    else:
        folder = agents / f"{column}-seed{seed}"
    player = str(folder) + (f"+{wrapper}" if wrapper else "")
    name = f"ewn3p_large-{column}-seed{seed}" + (f"+{wrapper}" if wrapper else "")
    return Row(f"{name}-vs-{OPPONENT}", GAME, player, OPPONENT, "initial", GAMES_PER_SEAT, PARAMS)


REFERENCE = Row(f"ewn3p-{OPPONENT}-vs-{OPPONENT}", GAME, OPPONENT, OPPONENT, "initial", REFERENCE_GAMES_PER_SEAT,
                PARAMS)
"""MCTS1000 in the agents' seats, games and seed."""
CONTROL_GAMES_PER_SEAT = 40
CONTROL = Row(f"ewn3p-mcts3000-vs-{OPPONENT}", GAME, "mcts3000", OPPONENT, "initial", CONTROL_GAMES_PER_SEAT, PARAMS)
"""Plain MCTS with the 3,000 iterations of the widest PUCT wrapper, in the same seats, games and seed: whether
the agent's values add to a search of that size."""
REFERENCES = ((REFERENCE, "MCTS1000"), (CONTROL, "MCTS3000"))
"""The plain searches measured beside the agents, with their names on the page."""


def _load(runs: Path, row: Row) -> dict | None:
    path = runs / f"{row.id}.json"
    return json.loads(path.read_text()) if path.exists() else None


def _mean_se(values: list[float]) -> str:
    if len(values) < 2:
        return f"{values[0]:+.3f} (1 agent)" if values else "to run"
    mean = statistics.fmean(values)
    return f"{mean:+.3f} ± {statistics.stdev(values) / len(values) ** 0.5:.3f}"


def table(runs: Path, agents: Path, wrappers=WRAPPERS) -> list[str]:
    """The page's table: per wrapper and column, the mean ± s.e. over the agents and the mean per seat."""
    lines = ["| search at test time | column | mean score ± s.e. over the agents | agents' scores "
             "| per seat 0 / 1 / 2 |", "|---|---|---|---|---|"]
    for wrapper in wrappers:
        for column in COLUMNS:
            results = [r for r in (_load(runs, agent_row(agents, column, s, wrapper)) for s in SEEDS) if r]
            scores = [r["matchups"][0]["mean_score"] for r in results]
            seats = [statistics.fmean(ps["mean_score"] for r in results for ps in r["matchups"][0]["per_seat"]
                                      if ps["seat"] == seat) for seat in range(3)] if results else []
            lines.append(f"| {WHAT[wrapper]} | {LABELS[column]} | {_mean_se(scores)} | "
                         f"{', '.join(f'{x:+.2f}' for x in scores) or '–'} | "
                         f"{' / '.join(f'{x:+.2f}' for x in seats) or '–'} |")
    for row, label in REFERENCES:
        ref = _load(runs, row)
        if ref:
            m = ref["matchups"][0]
            seats = " / ".join(f"{ps['mean_score']:+.2f}" for ps in m["per_seat"])
            lines.append(f"| {label} itself ({row.games} games per seat) | – | "
                         f"{m['mean_score']:+.3f} ± {m['score_se']:.3f} (over its games) | – | {seats} |")
    return lines


def write_page(runs: Path, agents: Path, out: Path) -> Path:
    """``out/nplayer_searched.md`` from the finished evaluations (the missing ones show as "to run")."""
    text = ["# EWN, 3 players: the Table 1 rerun's agents searched at test time", "",
            "Written by `python -m studies.nplayer.searched --table-only --out docs/results` from the evaluations "
            "of `python -m studies.nplayer.searched --out docs/results` (module docstring: what and why). "
            f"Each agent in every seat against two MCTS1000 players, {GAMES_PER_SEAT} games per seat, seed 0; the "
            "agents are the five FARL and five no-FARL runs of the rerun's `ewn3p_large` row and the five runs "
            "of its per-ply row `ewn3p_large-ply` "
            "([table1_nplayer.md](table1_nplayer.md)). A column's figure is the mean ± s.e. over its agents.", "",
            *table(runs, agents), ""]
    page = out / "nplayer_searched.md"
    atomic_write_text(page, "\n".join(text))
    return page


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m studies.nplayer.searched", description=__doc__.split("\n")[0])
    ap.add_argument("--wrappers", nargs="*", default=list(WRAPPERS), choices=WRAPPERS,
                    help="searches to measure ('' for the bare agents)")
    ap.add_argument("--columns", nargs="*", default=list(COLUMNS), choices=COLUMNS,
                    help="the rerun's columns to measure (none: only MCTS1000 and MCTS3000 themselves)")
    ap.add_argument("--agents-dir", type=Path, default=AGENTS)
    ap.add_argument("--runs-dir", type=Path, default=RUNS)
    ap.add_argument("--out", type=Path, help="write nplayer_searched.md here")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--table-only", action="store_true", help="only write the page from the finished evaluations")
    args = ap.parse_args(argv)
    if not args.table_only:
        for row in [agent_row(args.agents_dir, c, s, w) for w in args.wrappers for c in args.columns
                    for s in SEEDS] + [row for row, _ in REFERENCES]:
            result = run_row(row, args.runs_dir, jobs=args.jobs)
            print(f"{row.id}: {result['matchups'][0]['mean_score']:+.3f}", flush=True)
    print("\n".join(table(args.runs_dir, args.agents_dir)))
    if args.out:
        print(f"wrote {write_page(args.runs_dir, args.agents_dir, args.out)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
