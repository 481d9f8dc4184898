"""Chinese Checkers for 2, 3, 4 or 6 players as a PettingZoo AEC environment.

The rules: :mod:`farl_envs.games.chinese_checkers`.
"""
from farl_envs.core.factory import env_classes
from farl_envs.games import chinese_checkers

raw_env, env = env_classes(chinese_checkers.make_spec, "chinese_checkers_v0", __name__, chinese_checkers.__doc__)
