"""Hex as a PettingZoo AEC environment (see :mod:`farl_envs.games.hex`)."""
from farl_envs.core.factory import env_classes
from farl_envs.games import hex

raw_env, env = env_classes(hex.make_spec, "hex_v0", __name__, hex.__doc__)
