"""Yavalath for 2 or 3 players as a PettingZoo AEC environment (see :mod:`farl_envs.games.yavalath`)."""
from farl_envs.core.factory import env_classes
from farl_envs.games import yavalath

raw_env, env = env_classes(yavalath.make_spec, "yavalath_v0", __name__, yavalath.__doc__)
