"""Santorini (base game, 2 players) as a PettingZoo AEC environment (see :mod:`farl_envs.games.santorini`)."""
from farl_envs.core.factory import env_classes
from farl_envs.games import santorini

raw_env, env = env_classes(santorini.make_spec, "santorini_v0", __name__, santorini.__doc__)
