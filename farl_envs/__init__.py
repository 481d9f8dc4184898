"""farl_envs: board games as PettingZoo AEC environments with an afterstate extension.

>>> import farl_envs
>>> env = farl_envs.make("connect_four", cols=8)
>>> farl_envs.list_games()[:2]
['amazons_v0', 'breakthrough_v0']

The registry (:data:`GAMES`) is one line per game; the versioned env module of
each game (``farl_envs.tictactoe_v0``, PettingZoo's convention: ``raw_env``,
``env``) is made from that line on first import, so a game is its rules module
in ``farl_envs/games/`` plus its line (docs/adding_a_game.md).
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import inspect
import re
import sys
from importlib.metadata import version as _installed_version
from typing import TYPE_CHECKING, Callable, NamedTuple

from farl_envs import numba_setup as _numba_setup

_numba_setup.use_user_cache()  # one numba cache per user, set before any farl module compiles

if TYPE_CHECKING:  # the env classes import numba and pettingzoo: only when a game is made
    from farl_envs.core.aec import FarlAECEnv
    from farl_envs.core.factory import FastOrderEnforcingWrapper

#: farl's version; pyproject.toml holds the only copy (farl is always installed, editable in development)
__version__ = _installed_version("farl-rl")


class GameEntry(NamedTuple):
    """One line of the registry: what farl needs to know of a game before building it."""

    version: int
    """The rules' version, the ``_v<k>`` of the game's id: it changes only when the game's behaviour does."""
    gymnasium_id: str
    """Its single-agent Gymnasium id (``farl/<Name>-v<k>``); "" for none."""
    make_spec: str | Callable
    """``"module:function"`` of the function building its :class:`~farl_envs.core.spec.GameSpec` from the
    game's parameters, imported when the game is first made; or that function itself (:func:`register`)."""


#: The registry, in listing order: short name -> (version, Gymnasium id, the function building its GameSpec).
#: A game is its rules module in farl_envs/games/ plus one line here (docs/adding_a_game.md).
GAMES: dict[str, GameEntry] = {
    "amazons": GameEntry(0, "farl/Amazons-v0", "farl_envs.games.amazons:make_spec"),
    "blackjack": GameEntry(0, "farl/Blackjack-v0", "farl_envs.games.blackjack:make_spec"),
    "breakthrough": GameEntry(0, "farl/Breakthrough-v0", "farl_envs.games.breakthrough:make_spec"),
    "chinese_checkers": GameEntry(0, "farl/ChineseCheckers-v0", "farl_envs.games.chinese_checkers:make_spec"),
    "clobber": GameEntry(0, "farl/Clobber-v0", "farl_envs.games.clobber:make_spec"),
    "connect_four": GameEntry(0, "farl/ConnectFour-v0", "farl_envs.games.connect_four:make_spec"),
    "einstein_wurfelt_nicht": GameEntry(0, "farl/EinsteinWurfeltNicht-v0",
                                        "farl_envs.games.einstein_wurfelt_nicht:make_spec"),
    "game2048": GameEntry(0, "farl/2048-v0", "farl_envs.games.game2048:make_spec"),
    "hex": GameEntry(0, "farl/Hex-v0", "farl_envs.games.hex:make_spec"),
    "kuhn_poker": GameEntry(0, "farl/KuhnPoker-v0", "farl_envs.games.kuhn_poker:make_spec"),
    "lines_of_action": GameEntry(0, "farl/LinesOfAction-v0", "farl_envs.games.lines_of_action:make_spec"),
    "nim": GameEntry(0, "farl/Nim-v0", "farl_envs.games.nim:make_spec_2p"),
    "nim3p": GameEntry(0, "farl/Nim3P-v0", "farl_envs.games.nim:make_spec_3p"),
    "othello": GameEntry(0, "farl/Othello-v0", "farl_envs.games.othello:make_spec"),
    "outer_open_gomoku": GameEntry(0, "farl/OuterOpenGomoku-v0", "farl_envs.games.outer_open_gomoku:make_spec"),
    "poker": GameEntry(0, "farl/Poker-v0", "farl_envs.games.poker:make_spec"),
    "rubiks_cube": GameEntry(0, "farl/RubiksCube-v0", "farl_envs.games.rubiks_cube:make_spec"),
    "santorini": GameEntry(0, "farl/Santorini-v0", "farl_envs.games.santorini:make_spec"),
    "sim": GameEntry(0, "farl/Sim-v0", "farl_envs.games.sim:make_spec"),
    "surakarta": GameEntry(0, "farl/Surakarta-v0", "farl_envs.games.surakarta:make_spec"),
    "tictactoe": GameEntry(0, "farl/TicTacToe-v0", "farl_envs.games.tictactoe:make_spec"),
    "yavalath": GameEntry(0, "farl/Yavalath-v0", "farl_envs.games.yavalath:make_spec"),
}

_VERSIONED = re.compile(r"(?P<name>\w+?)_v(?P<version>\d+)")


def list_games() -> list[str]:
    """The versioned names of all games, e.g. ``"tictactoe_v0"``."""
    return [f"{name}_v{entry.version}" for name, entry in GAMES.items()]


def _short_name(name: str) -> str:
    """The registry key of ``name`` (``"tictactoe"`` or, with the game's own version, ``"tictactoe_v0"``)."""
    m = _VERSIONED.fullmatch(name)
    if name in GAMES:
        return name
    if m and m["name"] in GAMES and int(m["version"]) == GAMES[m["name"]].version:
        return m["name"]
    raise ValueError(f"unknown game {name!r}; known games: {', '.join(list_games())}")


def make_spec_function(name: str) -> Callable:
    """The function that builds game ``name``'s :class:`~farl_envs.core.spec.GameSpec` from its parameters."""
    found = GAMES[_short_name(name)].make_spec
    if callable(found):
        return found
    module, _, function = found.partition(":")
    return getattr(importlib.import_module(module), function)


def env_module(name: str):
    """The versioned env module of game ``name`` (``farl_envs.tictactoe_v0``), holding ``env`` and ``raw_env``."""
    key = _short_name(name)
    return importlib.import_module(f"{__name__}.{key}_v{GAMES[key].version}")


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
    return GAMES[_short_name(name)].gymnasium_id


def register(name: str, make_spec: Callable, version: int = 0, gymnasium_id: str = "") -> None:
    """Add a game defined outside farl to the registry, as one of farl's own (``make``, ``list_games``, the
    ``farl_envs.<name>_v<version>`` module, and the Gymnasium id when one is given).

    ``make_spec(**params)`` builds the game's :class:`~farl_envs.core.spec.GameSpec`; for compiled loops
    (learners, searches) its kernels must be module-level ``@njit`` functions of an importable module.
    farl's own games are lines of :data:`GAMES` instead (docs/adding_a_game.md).
    """
    if not (isinstance(name, str) and name.isidentifier() and _VERSIONED.fullmatch(name) is None):
        raise ValueError(f"a game name is a Python identifier without a _v<k> suffix, got {name!r}")
    if name in GAMES:
        raise ValueError(f"{name!r} is already registered")
    if isinstance(version, bool) or not isinstance(version, int) or version < 0:
        raise ValueError(f"version must be an integer >= 0, got {version!r}")
    if not callable(make_spec):
        raise TypeError(f"make_spec must be the function building the game's GameSpec, got {make_spec!r}")
    GAMES[name] = GameEntry(version, gymnasium_id, make_spec)
    if gymnasium_id:
        _register_gymnasium({name: GAMES[name]})


class _VersionedEnvModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Makes ``farl_envs.<game>_v<k>`` importable for every registered game: a module holding ``raw_env`` and
    ``env`` (PettingZoo's convention, ``from farl_envs import tictactoe_v0``), built from the game's registry line
    when first imported, so no game needs a file for it. Consulted only after Python's own finders found no file
    of that name."""

    def find_spec(self, fullname, path=None, target=None):
        package, _, versioned = fullname.rpartition(".")
        if package != __name__ or _VERSIONED.fullmatch(versioned) is None:
            return None
        try:
            _short_name(versioned)
        except ValueError:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec):
        return None  # Python's default module object

    def exec_module(self, module) -> None:
        from farl_envs.core.factory import env_classes

        versioned = module.__name__.rpartition(".")[2]
        make_spec = make_spec_function(versioned)
        rules = inspect.getmodule(make_spec)
        doc = (rules.__doc__ if rules is not None else None) or make_spec.__doc__ or ""
        module.raw_env, module.env = env_classes(make_spec, versioned, module.__name__, doc)
        module.__doc__ = (f"``{versioned}`` as a PettingZoo AEC environment: ``raw_env`` and ``env``, made from "
                          f"farl_envs' registry and ``{make_spec.__module__}.{make_spec.__qualname__}``.")


def _register_gymnasium(games: dict) -> None:
    import gymnasium

    for key, entry in games.items():
        if entry.gymnasium_id and entry.gymnasium_id not in gymnasium.registry:
            gymnasium.register(id=entry.gymnasium_id, entry_point="farl_envs.gym_env:SingleAgentEnv",
                               kwargs={"game": key}, disable_env_checker=True,
                               # batched: gymnasium.make_vec(id, num_envs=N), one compiled step (farl_envs.vector)
                               vector_entry_point="farl_envs.vector.gym:vector_env")


if not any(isinstance(finder, _VersionedEnvModules) for finder in sys.meta_path):
    sys.meta_path.append(_VersionedEnvModules())
_register_gymnasium(GAMES)
