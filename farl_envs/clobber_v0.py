"""Clobber as a PettingZoo AEC environment (see :mod:`farl_envs.games.clobber`)."""
from farl_envs.core.factory import env_classes
from farl_envs.games import clobber

raw_env, env = env_classes(clobber.make_spec, "clobber_v0", __name__, clobber.__doc__)
