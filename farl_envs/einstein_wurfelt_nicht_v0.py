"""EinStein würfelt nicht! (2, 3 or 4 players) as a PettingZoo AEC environment.

See :mod:`farl_envs.games.einstein_wurfelt_nicht` for the rules.
"""
from farl_envs.core.factory import env_classes
from farl_envs.games import einstein_wurfelt_nicht

raw_env, env = env_classes(einstein_wurfelt_nicht.make_spec, "einstein_wurfelt_nicht_v0", __name__,
                           einstein_wurfelt_nicht.__doc__)
