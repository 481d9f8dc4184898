"""Connect Four as a PettingZoo AEC environment (see :mod:`farl_envs.games.connect_four`)."""
from farl_envs.core.factory import env_classes
from farl_envs.games import connect_four

raw_env, env = env_classes(connect_four.make_spec, "connect_four_v0", __name__, connect_four.__doc__)
