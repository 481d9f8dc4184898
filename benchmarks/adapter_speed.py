"""How fast does TD-FARL train through the AEC loop on farl's envs and on the adapted envs of others?  Run:
    python benchmarks/adapter_speed.py [--seconds 5] [--rounds 3]

``NTupleAgent.train_aec`` drives the plain PettingZoo loop; on an env written elsewhere it reads the afterstates
through :mod:`farl_envs.adapters`, which steps a copy of the env once per legal move. This script trains the
paper's TD-FARL settings (Konen & Bagheri 2020) through that loop on:

* TicTacToe: farl's ``tictactoe``, PettingZoo's ``tictactoe_v3`` (``adapt_tictactoe_v3``) and OpenSpiel's
  ``tic_tac_toe`` through shimmy (``adapt_openspiel_tic_tac_toe``);
* Connect Four: farl's ``connect_four`` and PettingZoo's ``connect_four_v3`` (``adapt_connect_four_v3``).

Each env trains for about ``--seconds`` CPU seconds per round, the envs of a game taking turns over ``--rounds``
rounds (so a change in the machine's load falls on all of them); the figure is the median over rounds of
episodes per CPU second of this process (``time.process_time``: on a shared machine, the wall clock mostly
measures the other processes). For comparison, the same agent's compiled self-play (``NTupleAgent.train``) is
timed the same way. Envs whose packages are missing (PettingZoo's classic games need pygame; OpenSpiel's needs
shimmy and open_spiel) are reported as such. Prints a table and writes ``docs/results/adapter_speed.md``.
"""
from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import sys
import time
from pathlib import Path

from farl_agents.atomic import atomic_write_text

ROOT = Path(__file__).resolve().parents[1]


def _farl_env(game: str):
    import farl_envs

    return farl_envs.make(game)


def _pettingzoo_tictactoe():
    from farl_envs.adapters import adapt_tictactoe_v3

    return adapt_tictactoe_v3()


def _pettingzoo_connect_four():
    from farl_envs.adapters import adapt_connect_four_v3

    return adapt_connect_four_v3()


def _openspiel_tictactoe():
    from farl_envs.adapters import adapt_openspiel_tic_tac_toe

    return adapt_openspiel_tic_tac_toe()


#: per game: (label, a function that builds the env, or None for the compiled self-play loop)
ENVS = {
    "tictactoe": [("farl's env", lambda: _farl_env("tictactoe")),
                  ("PettingZoo tictactoe_v3, adapted", _pettingzoo_tictactoe),
                  ("OpenSpiel tic_tac_toe via shimmy, adapted", _openspiel_tictactoe),
                  ("compiled self-play (no AEC loop)", None)],
    "connect_four": [("farl's env", lambda: _farl_env("connect_four")),
                     ("PettingZoo connect_four_v3, adapted", _pettingzoo_connect_four),
                     ("compiled self-play (no AEC loop)", None)],
}


def episodes_per_cpu_second(game: str, make_env, seconds: float, seed: int) -> float:
    """Train a fresh paper-preset TD-FARL agent for about ``seconds`` CPU seconds (in chunks of episodes, after
    one warm-up chunk that compiles the kernels), through ``make_env()``'s AEC loop or, for ``None``, the
    compiled self-play loop; its episodes per CPU second."""
    from farl_agents.learners import NTupleAgent, paper_config

    agent = NTupleAgent(game, paper_config(game, seed=seed))
    env = make_env() if make_env is not None else None

    def train(n: int) -> None:
        if env is None:
            agent.train(n)
        else:
            agent.train_aec(env, n)

    train(5)  # compile, or load from numba's cache, outside the timing
    chunk, done, used = 5, 0, 0.0
    while used < seconds:
        start = time.process_time()
        train(chunk)
        used += time.process_time() - start
        done += chunk
        if used < seconds / 10:
            chunk *= 2
    return done / used


def measure(seconds: float, rounds: int, games: list[str]) -> dict:
    """``{game: [(label, median episodes/CPU-s or None, reason if not measured)]}``."""
    results = {}
    for game in games:
        rates = {label: [] for label, _ in ENVS[game]}
        missing = {}
        for r in range(rounds):
            for label, make_env in ENVS[game]:
                if label in missing:
                    continue
                try:
                    rate = episodes_per_cpu_second(game, make_env, seconds, seed=r)
                except ImportError as exc:  # an optional package of somebody else's env
                    missing[label] = f"not installed ({exc.name or exc})"
                    continue
                rates[label].append(rate)
                print(f"{game:13s} round {r + 1}: {label:45s} {rate:9.1f} episodes/CPU-s", flush=True)
        results[game] = [(label, statistics.median(rates[label]) if rates[label] else None, missing.get(label))
                         for label, _ in ENVS[game]]
    return results


def report(results: dict, seconds: float, rounds: int) -> str:
    load = os.getloadavg()[0]
    lines = ["# TD-FARL through the AEC loop: farl's envs and adapted ones", "",
             f"Made by `python benchmarks/adapter_speed.py --seconds {seconds:g} --rounds {rounds}` on "
             f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
             f"{datetime.date.today().isoformat()}; 1-minute load average {load:.1f} at the end. Each figure is the "
             "median over the rounds of episodes of the paper's TD-FARL settings (Konen & Bagheri 2020) per CPU "
             "second of the process; read the ratios within a game, which the rounds take in turn.", "",
             "| game | env | episodes/CPU-s | ÷ farl's env |", "|---|---|---:|---:|"]
    for game, rows in results.items():
        base = rows[0][1]
        for label, rate, why in rows:
            if rate is None:
                lines.append(f"| {game} | {label} | {why} | – |")
            else:
                ratio = f"{rate / base:.2f}" if base else "–"
                lines.append(f"| {game} | {label} | {rate:,.0f} | {ratio} |")
    lines += ["", "The adapters step a copy of the env for every legal move to learn its afterstate, so their cost "
              "grows with the other env's step time times the number of legal moves; farl's envs compute the "
              "afterstates in their compiled kernels. The compiled self-play loop (`NTupleAgent.train`) plays "
              "without the AEC loop at all."]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seconds", type=float, default=5.0, help="CPU seconds of training per env and round")
    p.add_argument("--rounds", type=int, default=3, help="rounds; the envs of a game take turns in each")
    p.add_argument("--games", default=",".join(ENVS), help=f"games to time, of {', '.join(ENVS)}")
    p.add_argument("--out", default=str(ROOT / "docs" / "results" / "adapter_speed.md"), help="the results page")
    args = p.parse_args(argv)
    games = [g for g in args.games.split(",") if g]
    unknown = [g for g in games if g not in ENVS]
    if unknown:
        p.error(f"unknown game(s) {', '.join(unknown)}; choose from {', '.join(ENVS)}")
    if args.seconds <= 0 or args.rounds < 1:
        p.error("--seconds must be positive and --rounds at least 1")
    page = report(measure(args.seconds, args.rounds, games), args.seconds, args.rounds)
    atomic_write_text(Path(args.out), page)
    print(page)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
