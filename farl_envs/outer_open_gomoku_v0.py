"""Outer-Open Gomoku as a PettingZoo AEC environment (see :mod:`farl_envs.games.outer_open_gomoku`)."""
from farl_envs.core.factory import env_classes
from farl_envs.games import outer_open_gomoku

raw_env, env = env_classes(outer_open_gomoku.make_spec, "outer_open_gomoku_v0", __name__, outer_open_gomoku.__doc__)
