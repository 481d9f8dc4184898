"""2048 as a single-player PettingZoo AEC environment (see :mod:`farl_envs.games.game2048`)."""
from farl_envs.core.factory import env_classes
from farl_envs.games import game2048

raw_env, env = env_classes(game2048.make_spec, "game2048_v0", __name__, game2048.__doc__)
