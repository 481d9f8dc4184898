"""Sim for 2 or 3 players as a PettingZoo AEC environment (see :mod:`farl_envs.games.sim`)."""
from farl_envs.core.factory import env_classes
from farl_envs.games import sim

raw_env, env = env_classes(sim.make_spec, "sim_v0", __name__, sim.__doc__)
