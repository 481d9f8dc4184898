"""Random play in every registered farl game through the plain PettingZoo AEC loop.

The loop is the one every PettingZoo user writes: ``agent_iter()``, ``last()``, then ``step`` with an action
drawn from the observation's ``action_mask`` (``step(None)`` for an agent whose game is over). Run:

    python examples/random_loop.py               # 3 games of each
    python examples/random_loop.py --games 1 --only tictactoe,nim3p
"""
import argparse
import time

import numpy as np

import farl_envs

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--games", type=int, default=3, help="random games per env")
parser.add_argument("--only", default="", help="comma-separated game names (default: every registered game)")
parser.add_argument("--seed", type=int, default=0)
args = parser.parse_args()

names = args.only.split(",") if args.only else farl_envs.list_games()
rng = np.random.default_rng(args.seed)
print(f"{'game':28s} {'players':>7s} {'plies/game':>10s}  mean return per seat")
for name in names:
    env = farl_envs.make(name)
    totals = {}
    plies = 0
    start = time.perf_counter()
    for game in range(args.games):
        env.reset(seed=args.seed + game)
        for agent in env.agent_iter():
            observation, reward, terminated, truncated, info = env.last()
            # reward: what the agent got since its own last move; summed, the return of its game
            totals[agent] = totals.get(agent, 0.0) + reward
            if terminated or truncated:
                env.step(None)                                     # AEC: a finished agent takes a dead step
                continue
            legal = np.flatnonzero(observation["action_mask"])
            env.step(int(rng.choice(legal)))
            plies += 1
    rewards = "  ".join(f"{a}: {totals.get(a, 0.0) / args.games:+.2f}" for a in env.possible_agents)
    print(f"{name:28s} {len(env.possible_agents):7d} {plies / args.games:10.1f}  {rewards}"
          f"   ({time.perf_counter() - start:.2f} s)")
