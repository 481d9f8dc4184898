"""Solve rate by scramble depth: how often a player solves the cube scrambled by exactly ``p`` twists.

For each depth ``p`` in ``1..--pmax``, ``--games`` cubes scrambled by ``p`` twists (the game's own scrambles:
``scramble_min = scramble_max = p``, so GBG's rule of no twist undoing or merging with the one before), each
played by the player until solved or ``--twists`` twists (GBG evaluates with episodes of 50). The players are
anything ``farl eval`` takes: agent files, run folders, search wrappers around them (``RUN+mcts100``), or
``random``. Konen 2023 reports GBG's n-tuple agents this way (its Figure of solved rate against p).

    python -m studies.rubiks.solve_rates runs/cube2-htm runs/cube2-htm+mcts100 --size 2 --metric half --pmax 13

Writes a Markdown table (and ``--json``) atomically; prints each row as it is measured.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

import farl_envs
from farl_agents.atomic import atomic_write_text
from farl_agents.loading import load_player
from farl_agents.players import reset_player
from farl_envs.core.rng import make_rng
from farl_envs.core.spec import TERMINAL


def solve_rate(player, size: int, metric: str, p: int, games: int, twists: int, seed: int = 0) -> tuple[float, float]:
    """``(share solved, mean twists of the solved ones)`` over ``games`` cubes scrambled by ``p`` twists."""
    g = farl_envs.game_spec("rubiks_cube", size=size, metric=metric, scramble_min=p, scramble_max=p,
                            max_twists=twists)
    rewards = np.zeros(1)
    solved, lengths = 0, []
    for k in range(games):
        s = np.array(g.initial_state(g.p, make_rng(seed * 1_000_003 + 7919 * p + k)))
        rng = make_rng(seed + 1 + k)
        reset_player(player)
        for t in range(twists):
            a = player.act(g, s, rng)
            g.afterstate(g.p, s, a, s, rewards)
            if rewards[0] > 0:  # the solving twist's +1 (the game may also end at its twist cap)
                solved += 1
                lengths.append(t + 1)
                break
            if s[TERMINAL]:
                break
    return solved / games, float(np.mean(lengths)) if lengths else float("nan")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("players", nargs="+", help="agent files, run folders, wrapped players (RUN+mcts100), random")
    ap.add_argument("--size", type=int, default=2)
    ap.add_argument("--metric", default="half", choices=("half", "quarter"))
    ap.add_argument("--pmax", type=int, default=13, help="deepest scramble (default 13)")
    ap.add_argument("--games", type=int, default=200, help="cubes per depth")
    ap.add_argument("--twists", type=int, default=50, help="twists allowed per cube (GBG: 50)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", help="Markdown file to write")
    ap.add_argument("--json", help="JSON file to write")
    args = ap.parse_args(argv)
    game = farl_envs.game_spec("rubiks_cube", size=args.size, metric=args.metric)
    depths = list(range(1, args.pmax + 1))
    rows = {}
    for text in args.players:
        player, _ = load_player(text, None if not text.startswith("random") else game)
        rates = []
        for p in depths:
            rate, mean_len = solve_rate(player, args.size, args.metric, p, args.games, args.twists, args.seed)
            rates.append(rate)
            print(f"{text}  p={p:2d}  solved {100 * rate:5.1f} %  (mean {mean_len:.1f} twists)", flush=True)
        rows[text] = rates
    command = "python -m studies.rubiks.solve_rates " + " ".join(sys.argv[1:] if argv is None else argv)
    lines = [f"Solve rate (%) by scramble depth p, {args.size}x{args.size}x{args.size}, {args.metric}-turn metric, "
             f"{args.games} cubes per depth, at most {args.twists} twists. Made by `{command}`.", "",
             "| player | " + " | ".join(f"p={p}" for p in depths) + " |", "|---|" + "---:|" * len(depths)]
    lines += [f"| `{t}` | " + " | ".join(f"{100 * r:.0f}" for r in rates) + " |" for t, rates in rows.items()]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        atomic_write_text(Path(args.out), text)
    if args.json:
        atomic_write_text(Path(args.json), json.dumps({"size": args.size, "metric": args.metric, "games": args.games,
                                                       "twists": args.twists, "rates": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
