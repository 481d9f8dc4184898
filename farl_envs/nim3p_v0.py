"""Three-player Nim (Nim3P) as a PettingZoo AEC environment (see :mod:`farl_envs.games.nim`)."""
from farl_envs.core.factory import env_classes
from farl_envs.games import nim

raw_env, env = env_classes(nim.make_spec_3p, "nim3p_v0", __name__, nim.__doc__)
