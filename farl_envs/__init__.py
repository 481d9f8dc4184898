"""farl_envs: board games as PettingZoo AEC environments with an afterstate extension.

>>> import farl_envs
>>> env = farl_envs.make("connect_four", cols=8)
>>> farl_envs.list_games()[:2]
['connect_four_v0', 'game2048_v0']
"""
from __future__ import annotations

import importlib
from importlib.metadata import version as _installed_version
from typing import TYPE_CHECKING

from farl_envs import numba_setup as _numba_setup

_numba_setup.use_user_cache()  # one numba cache per user, set before any farl module compiles

if TYPE_CHECKING:  # the env classes import numba and pettingzoo: only when a game is made
    from farl_envs.core.aec import FarlAECEnv
    from farl_envs.core.factory import FastOrderEnforcingWrapper

#: farl's version; pyproject.toml holds the only copy (farl is always installed, editable in development)
__version__ = _installed_version("farl-rl")

#: short name -> (module of the versioned env, Gymnasium id), in listing order
_GAMES = {
    "amazons": ("farl_envs.amazons_v0", "farl/Amazons-v0"),
    "breakthrough": ("farl_envs.breakthrough_v0", "farl/Breakthrough-v0"),
    "chinese_checkers": ("farl_envs.chinese_checkers_v0", "farl/ChineseCheckers-v0"),
    "clobber": ("farl_envs.clobber_v0", "farl/Clobber-v0"),
    "connect_four": ("farl_envs.connect_four_v0", "farl/ConnectFour-v0"),
    "einstein_wurfelt_nicht": ("farl_envs.einstein_wurfelt_nicht_v0", "farl/EinsteinWurfeltNicht-v0"),
    "game2048": ("farl_envs.game2048_v0", "farl/2048-v0"),
    "hex": ("farl_envs.hex_v0", "farl/Hex-v0"),
    "lines_of_action": ("farl_envs.lines_of_action_v0", "farl/LinesOfAction-v0"),
    "nim": ("farl_envs.nim_v0", "farl/Nim-v0"),
    "nim3p": ("farl_envs.nim3p_v0", "farl/Nim3P-v0"),
    "othello": ("farl_envs.othello_v0", "farl/Othello-v0"),
    "outer_open_gomoku": ("farl_envs.outer_open_gomoku_v0", "farl/OuterOpenGomoku-v0"),
    "santorini": ("farl_envs.santorini_v0", "farl/Santorini-v0"),
    "sim": ("farl_envs.sim_v0", "farl/Sim-v0"),
    "surakarta": ("farl_envs.surakarta_v0", "farl/Surakarta-v0"),
    "tictactoe": ("farl_envs.tictactoe_v0", "farl/TicTacToe-v0"),
    "yavalath": ("farl_envs.yavalath_v0", "farl/Yavalath-v0"),
}
_VERSION = "_v0"


def list_games() -> list[str]:
    """The versioned names of all games, e.g. ``"tictactoe_v0"``."""
    return [name + _VERSION for name in _GAMES]


def _short_name(name: str) -> str:
    key = name[: -len(_VERSION)] if name.endswith(_VERSION) else name
    if key not in _GAMES:
        raise ValueError(f"unknown game {name!r}; known games: {', '.join(list_games())}")
    return key


def env_module(name: str):
    """The module of game ``name`` (with or without ``_v0``), holding ``env`` and ``raw_env``."""
    return importlib.import_module(_GAMES[_short_name(name)][0])


def make(name: str, **params) -> FastOrderEnforcingWrapper:
    """Create the AEC environment of game ``name``, e.g. ``make("connect_four", cols=8)``.

    It is the raw env (:func:`make_raw`, reached again by ``.unwrapped``) inside PettingZoo's
    order-enforcing checks, as PettingZoo's own ``env()`` functions return it.
    """
    return env_module(name).env(**params)


def make_raw(name: str, **params) -> FarlAECEnv:
    """Create the unwrapped AEC environment (the afterstate extension's home)."""
    return env_module(name).raw_env(**params)


def game_spec(name: str, **params):
    """The :class:`~farl_envs.core.spec.GameSpec` (kernels and sizes) of game ``name``."""
    key = _short_name(name)
    return make_raw(key, **params).game


def gymnasium_id(name: str) -> str:
    """The registered Gymnasium id of game ``name``, e.g. ``"farl/TicTacToe-v0"``."""
    return _GAMES[_short_name(name)][1]


def _register_gymnasium() -> None:
    import gymnasium

    for key, (_, gym_id) in _GAMES.items():
        if gym_id not in gymnasium.registry:
            gymnasium.register(id=gym_id, entry_point="farl_envs.gym_env:SingleAgentEnv",
                               kwargs={"game": key}, disable_env_checker=True)


_register_gymnasium()
