"""TicTacToe as a PettingZoo AEC environment (see :mod:`farl_envs.games.tictactoe`)."""
from farl_envs.core.factory import env_classes
from farl_envs.games import tictactoe

raw_env, env = env_classes(tictactoe.make_spec, "tictactoe_v0", __name__, tictactoe.__doc__)
