"""Stable-Baselines3's MaskablePPO on a farl Gymnasium env, with the env's action masks.

The learner plays one seat of TicTacToe (``seat="alternate"``: the first seat, then the second, ...);
the other seat is a uniformly random player inside ``step``. MaskablePPO asks the env for
``action_masks()`` before every move, so it never picks an occupied cell. The trained policy then plays
greedy games against the same random player, in both seats. Needs the ``baselines`` extra
(``pip install "farl-rl[baselines]"``). Run:

    python examples/sb3_maskable_ppo.py --timesteps 20000
"""
import argparse

import gymnasium
from sb3_contrib import MaskablePPO

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--timesteps", type=int, default=20_000, help="environment steps of training")
parser.add_argument("--games", type=int, default=50, help="evaluation games (seats alternate)")
args = parser.parse_args()

# "farl_envs:" makes gymnasium import farl_envs, which registers the farl/... ids
env = gymnasium.make("farl_envs:farl/TicTacToe-v0", seat="alternate")
model = MaskablePPO("MlpPolicy", env, n_steps=256, batch_size=64, seed=0, verbose=0)
model.learn(total_timesteps=args.timesteps)

# evaluation: greedy moves, the masks asked from the env through gymnasium.make's wrappers, seats alternating
outcomes = {+1: 0, 0: 0, -1: 0}
for game in range(args.games):
    obs, info = env.reset(seed=1000 + game)
    terminated = truncated = False
    while not (terminated or truncated):
        mask = env.get_wrapper_attr("action_masks")()
        action, _ = model.predict(obs, action_masks=mask, deterministic=True)
        obs, reward, terminated, truncated, info = env.step(int(action))
    outcomes[int(reward)] += 1
print(f"{args.timesteps} steps of MaskablePPO; against random play in {args.games} games: "
      f"{outcomes[1]} won, {outcomes[0]} drawn, {outcomes[-1]} lost")
