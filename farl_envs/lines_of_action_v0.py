"""Lines of Action as a PettingZoo AEC environment (see :mod:`farl_envs.games.lines_of_action`)."""
from farl_envs.core.factory import env_classes
from farl_envs.games import lines_of_action

raw_env, env = env_classes(lines_of_action.make_spec, "lines_of_action_v0", __name__, lines_of_action.__doc__)
