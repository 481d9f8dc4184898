"""Exact expected return per round of Blackjack players under the infinite shoe, beside basic strategy and the
optimal policy (docs/results/blackjack.md).

Each player (an agent file or run folder, anything ``farl eval`` takes that plays by the board) is asked its
action once per n-tuple board and the game tree is summed through the game's kernels
(:func:`farl_agents.opponents.blackjack.exact_return`): no sampling error. Basic strategy and the optimum come
from the dynamic program (:func:`~farl_agents.opponents.blackjack.expected_return`).

    python -m studies.blackjack.exact_returns runs/blackjack/q runs/blackjack/td --json runs/blackjack/exact.json
"""
from __future__ import annotations

import argparse
import json
import sys

from farl_agents.atomic import atomic_write_text
from farl_agents.loading import load_player
from farl_agents.opponents.blackjack import exact_return, expected_return
from farl_envs.core.rng import make_rng


def player_return(text: str) -> float:
    """The exact return of the player ``text`` names (its greedy choice asked once per board)."""
    player, game = load_player(text)
    rng = make_rng(0)
    return exact_return(game, lambda s: player.act(game, s, rng))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("players", nargs="*", help="agent files or run folders of blackjack (infinite shoe)")
    parser.add_argument("--json", help="also write the figures to this JSON file")
    args = parser.parse_args(argv)
    out = {"optimal (DP)": expected_return("optimal"), "basic-strategy (DP)": expected_return("basic")}
    for name, value in out.items():
        print(f"{name}: {100 * value:+.4f} %", flush=True)
    for text in args.players:
        out[text] = player_return(text)
        print(f"{text}: {100 * out[text]:+.4f} %", flush=True)
    if args.json:
        atomic_write_text(args.json, json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
