"""Train TD-FARL on PettingZoo's own connect_four_v3 (not farl's env), then test the agent against random play.

The adapter (farl_envs.adapters) gives PettingZoo's env farl's afterstate
extension; the agent is an ordinary farl Connect Four agent, so farl's
evaluation harness can play it. Needs pettingzoo[classic] (pygame). Run:

    python examples/train_on_pettingzoo_connect_four.py --episodes 300
"""
import argparse

from pettingzoo.classic.connect_four import connect_four

from farl_agents.evaluate import evaluate
from farl_agents.learners import NTupleAgent, paper_config
from farl_envs.adapters import adapt_connect_four_v3

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--episodes", type=int, default=300, help="self-play episodes on connect_four_v3")
parser.add_argument("--games", type=int, default=50, help="evaluation games per seat against random play")
args = parser.parse_args()

env = adapt_connect_four_v3(connect_four.env())     # PettingZoo's env, seen as farl's connect_four
config = paper_config("connect_four", episodes=args.episodes)
agent = NTupleAgent(env.game, config)               # env.game: farl's Connect Four spec (sizes, symmetries)
results = agent.train_aec(env, args.episodes)       # every step checked against the afterstate predicted for it
first_wins = sum(r["player_0"] > 0 for r in results)
print(f"{args.episodes} self-play games on connect_four_v3: the first player won {first_wins}")

score = evaluate("connect_four", agent, "random", n_games=args.games, seed=1)
print(score.table())
