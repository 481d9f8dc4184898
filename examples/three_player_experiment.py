"""A 3-player experiment: TD-FARL against TD without Final Adaptation on 3-player Nim, evaluated in every seat.

Konen & Bagheri 2020 (Table 1) found that Final Adaptation (FARL: every player learns from the game's
final rewards, not only the player who moved last) lifts Nim3P from near 0 to the perfect score against
Max-N. This script trains one agent of each kind with the paper's settings at a small budget, then lets
each play every seat against two copies of the same opponent. Run:

    python examples/three_player_experiment.py --episodes 20000
"""
import argparse

from farl_agents.evaluate import evaluate
from farl_agents.learners import NTupleAgent, paper_config, paper_game_params
from farl_agents.opponents import make_opponent

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--episodes", type=int, default=20_000, help="self-play episodes per agent")
parser.add_argument("--games", type=int, default=50, help="evaluation games per seat")
parser.add_argument("--opponent", default="maxn15", help="the opponent in both other seats, e.g. maxn15, mcts500")
args = parser.parse_args()

game_params = paper_game_params("nim3p")       # 3 heaps of 5, take up to 5, the paper's extra rule
agents = []
for farl in (True, False):                     # the agents are named "td-farl" and "td" in the table
    config = paper_config("nim3p", farl=farl, episodes=args.episodes, seed=7)
    agent = NTupleAgent("nim3p", config, **game_params)
    agent.train(args.episodes)                  # compiled self-play; train_aec would give the same weights
    agents.append(agent)

opponent = make_opponent(args.opponent, agents[0].game)
# seats=None: each agent takes seat 0, 1 and 2 in turn; the opponent fills the other two seats.
# The score of a game is the agent's reward (1 for taking the last object, 0.2 for the third player, ...)
result = evaluate("nim3p", agents, opponent, n_games=args.games, seed=1)
print(result.table())
