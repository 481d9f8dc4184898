"""Train TD-FARL through the plain PettingZoo AEC loop, then evaluate it against perfect play.

``NTupleAgent.train_aec`` steps the env with ``agent_iter()`` / ``last()`` / ``step()`` and reads the
afterstate extension (``env.unwrapped.afterstates()``: every legal move's board, rewards and end flag)
to pick and learn its moves. ``NTupleAgent.train`` runs the same algorithm compiled, far faster; from the
same seed both end with bit-identical weights. Run:

    python examples/td_farl_aec.py --episodes 3000
"""
import argparse

import farl_envs
from farl_agents.evaluate import evaluate
from farl_agents.learners import NTupleAgent, paper_config
from farl_agents.opponents import make_opponent

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--episodes", type=int, default=3000, help="self-play episodes through the AEC loop")
parser.add_argument("--games", type=int, default=20, help="evaluation games per seat")
parser.add_argument("--opponents", default="random,maxn10", help="comma-separated opponents to evaluate against")
args = parser.parse_args()

# Konen & Bagheri 2020's TicTacToe settings (their Appendix A.6), with our episode budget
config = paper_config("tictactoe", episodes=args.episodes)
agent = NTupleAgent("tictactoe", config)

env = farl_envs.make("tictactoe")              # any AEC env with the afterstate extension works here
results = agent.train_aec(env, args.episodes)  # one dict {agent: final reward} per episode
draws = sum(r["player_0"] == 0 for r in results[-500:])
print(f"{args.episodes} self-play episodes; draws among the last {min(500, len(results))}: {draws}")

# the evaluation harness plays the agent in every seat; Max-N with depth 10 plays TicTacToe perfectly,
# so 50 % (all draws) is the best score there is
for opponent in args.opponents.split(","):
    result = evaluate("tictactoe", agent, make_opponent(opponent, "tictactoe"), n_games=args.games, seed=1)
    print(result.table())
