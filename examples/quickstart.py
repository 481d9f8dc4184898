"""A first tour of farl_envs: play a game through the PettingZoo AEC loop and
use the afterstate extension. Run:  python examples/quickstart.py
"""
import numpy as np

import farl_envs

print("games:", ", ".join(farl_envs.list_games()))

env = farl_envs.make("connect_four", render_mode="ansi")
env.reset(seed=42)
rng = np.random.default_rng(42)
raw = env.unwrapped                      # the afterstate extension lives on the raw env
last_afterstate = {}
for agent in env.agent_iter():
    obs, reward, terminated, truncated, info = env.last()
    if terminated or truncated:
        print(f"{agent} finished with reward {reward:+.0f}")
        env.step(None)
        continue
    # look ahead one ply without stepping: every legal action's afterstate and rewards
    options = raw.afterstates()
    winning = [a for a, after in options.items() if after.rewards[agent] > 0]
    action = winning[0] if winning else int(rng.choice(list(options)))
    env.step(action)
    last_afterstate[agent] = raw.infos[agent]["afterstate"]   # what this move produced

print(env.render())
cells = last_afterstate["player_0"].board.reshape(6, 7)
print("player_0's last afterstate in n-tuple cells (3 = empty and reachable):")
print("\n".join(" ".join(map(str, row)) for row in cells))

# 2048: the afterstate is the slid board; the random tile comes after it
env = farl_envs.make("game2048")
env.reset(seed=1)
env.step(env.unwrapped.legal_actions()[0])
info = env.infos["player_0"]
print("2048 merge reward", info["afterstate"].rewards["player_0"],
      "then a", info["chance"][1], "appeared on cell", info["chance"][0])
