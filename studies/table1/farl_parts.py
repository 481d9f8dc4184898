"""Which part of final adaptation changes an N-player row's result: part 1 alone, part 2 alone.

Konen & Bagheri 2020's FARL has two parts (``LearnerConfig.farl``: every other player's last afterstate
towards its final reward; ``farl_terminal``: the mover's terminal afterstate towards 0, their footnote 7).
Table 1 switches both together; this trains one agent per seed with one part only, with the row's preset
otherwise, and prints its mean score against the row's first opponent (every seat)::

    python -m studies.table1.farl_parts yavalath3p --part 1 --seeds 0 1 2 --episodes 5000 --games 10
"""
from __future__ import annotations

import argparse
import json

import farl_envs
from farl_agents.learners import NTupleAgent
from farl_agents.learners.presets import nplayer_config, nplayer_game
from farl_agents.runs.evaluation import evaluate_agent
from studies.table1.table1_rows import NPLAYER_ROWS


def score_with_part(row_key: str, part: int, seed: int, episodes: int, games: int) -> float:
    """Mean score of a TD agent of ``row_key`` trained with FARL part ``part`` (1 or 2) only."""
    if part not in (1, 2):
        raise ValueError(f"part must be 1 or 2, got {part!r}")
    row = NPLAYER_ROWS[row_key]
    game, params = nplayer_game(row_key)
    cfg = nplayer_config(row_key, farl=part == 1, farl_terminal=part == 2, seed=seed, episodes=episodes)
    agent = NTupleAgent(farl_envs.game_spec(game, **params), cfg)
    agent.train(episodes)
    res = evaluate_agent(agent, [row.curve_opponent.name], row.starts, games, seed=seed)
    return float(res.matchups[0].score)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("row", choices=list(NPLAYER_ROWS))
    ap.add_argument("--part", type=int, choices=(1, 2), required=True)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--episodes", type=int, default=5000)
    ap.add_argument("--games", type=int, default=10, help="games per seat")
    args = ap.parse_args(argv)
    for seed in args.seeds:
        score = score_with_part(args.row, args.part, seed, args.episodes, args.games)
        print(json.dumps({"row": args.row, "part": args.part, "seed": seed, "score": score}), flush=True)


if __name__ == "__main__":
    main()
