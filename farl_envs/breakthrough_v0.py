"""Breakthrough as a PettingZoo AEC environment (see :mod:`farl_envs.games.breakthrough`)."""
from farl_envs.core.factory import env_classes
from farl_envs.games import breakthrough

raw_env, env = env_classes(breakthrough.make_spec, "breakthrough_v0", __name__, breakthrough.__doc__)
