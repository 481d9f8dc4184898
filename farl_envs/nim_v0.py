"""Two-player Nim as a PettingZoo AEC environment (see :mod:`farl_envs.games.nim`)."""
from farl_envs.core.factory import env_classes
from farl_envs.games import nim

raw_env, env = env_classes(nim.make_spec_2p, "nim_v0", __name__, nim.__doc__)
