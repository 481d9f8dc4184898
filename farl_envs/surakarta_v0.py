"""Surakarta as a PettingZoo AEC environment (see :mod:`farl_envs.games.surakarta`)."""
from farl_envs.core.factory import env_classes
from farl_envs.games import surakarta

raw_env, env = env_classes(surakarta.make_spec, "surakarta_v0", __name__, surakarta.__doc__)
