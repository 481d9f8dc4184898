"""Othello as a PettingZoo AEC environment (see :mod:`farl_envs.games.othello`)."""
from farl_envs.core.factory import env_classes
from farl_envs.games import othello

raw_env, env = env_classes(othello.make_spec, "othello_v0", __name__, othello.__doc__)
