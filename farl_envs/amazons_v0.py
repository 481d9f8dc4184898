"""Amazons as a PettingZoo AEC environment (see :mod:`farl_envs.games.amazons`)."""
from farl_envs.core.factory import env_classes
from farl_envs.games import amazons

raw_env, env = env_classes(amazons.make_spec, "amazons_v0", __name__, amazons.__doc__)
