"""Reference opponents of the paper's Table 1, and a registry of them by name.

======================  ==============================================  =================
name (``make_opponent``)  player                                        games
======================  ==============================================  =================
``random``              :class:`~farl_agents.players.RandomPlayer`      all
``maxn`` / ``maxn15``   :class:`MaxN` (depth 15 unless given)           no chance (TTT, Nim, Nim3P)
``mcts`` / ``mcts5000`` :class:`MCTS` (1000 iterations unless given)    all
``bench`` / ``heur``    :class:`BenchPlayer`                            Othello
``bench-gbg``           :class:`BenchPlayer` as GBG plays it (``gbg``)  Othello
``edax`` / ``edax1``    :class:`EdaxPlayer` (depth 1 unless given)      Othello (binary needed)
``bouton``              :class:`BoutonPlayer`                           two-player Nim
``ab`` / ``ab-dl``      Connect Four solver (perfect; AB-DL delays      Connect Four
                        losses), from :mod:`farl_agents.opponents.connect_four`
======================  ==============================================  =================

Hyphens, underscores and case are ignored in the numeric forms
(``"Max-N10"``, ``"MCTS_10000"``, ``"edax-d1"``). The Connect Four solver
module is imported only when asked for; it must provide
``make_player(name, game, **kw) -> Player`` with ``name`` in
``{"ab", "ab-dl"}`` (``kw`` may carry ``random_plies``, see
:mod:`farl_agents.evaluate`).
"""
from __future__ import annotations

import importlib
import re

import numpy as np

from farl_agents.opponents.bench import BenchPlayer
from farl_agents.opponents.edax import EdaxPlayer
from farl_agents.opponents.maxn import MaxN
from farl_agents.opponents.mcts import MCTS
from farl_agents.opponents.nim import BoutonPlayer, nim3p_player
from farl_agents.players import RandomPlayer

__all__ = ["MaxN", "MCTS", "BenchPlayer", "EdaxPlayer", "BoutonPlayer", "RandomPlayer",
           "nim3p_player", "make_opponent", "connect_four_player", "OPPONENT_NAMES"]

OPPONENT_NAMES = ("random", "maxn<depth>", "mcts<iterations>", "bench", "bench-gbg", "heur", "edax<depth>",
                  "bouton", "ab", "ab-dl")


def _game(game):
    if isinstance(game, str):
        import farl_envs
        return farl_envs.game_spec(game)
    if not hasattr(game, "n_actions") or not hasattr(game, "name"):
        raise ValueError(f"game must be a game name or a GameSpec, got {game!r}")
    return game


def connect_four_player(name: str, game, **kw):
    """The perfect Connect Four player ``"ab"`` or ``"ab-dl"`` (imported lazily)."""
    try:
        mod = importlib.import_module("farl_agents.opponents.connect_four")
    except ImportError as exc:
        raise ValueError(f"opponent {name!r} needs farl_agents.opponents.connect_four, "
                         f"which cannot be imported: {exc}") from exc
    make = getattr(mod, "make_player", None)
    if make is not None:
        return make(name, _game(game), **kw)
    return PerfectConnectFour(name, _game(game), **kw)


class PerfectConnectFour:
    """The solver's AB / AB-DL players behind the harness protocol ``act(game, state, rng)``.

    The kernel state's cells (row 0 at the top, 1 = player_0, 2 = player_1)
    are the board the solver reads; the farl generator seeds the numpy
    generator the solver's players draw their random choices from.
    ``random_plies=k`` makes the player follow seed 002's opening rule for
    the first k plies.
    """

    def __init__(self, name: str, game, random_plies: int = 0):
        from farl_agents.opponents import connect_four as c4

        key = name.lower().replace("_", "-")
        if key not in ("ab", "ab-dl"):
            raise ValueError(f"unknown Connect Four player {name!r}; use 'ab' or 'ab-dl'")
        if game.name != "connect_four" or game.params != {"rows": 6, "cols": 7}:
            raise ValueError(f"the perfect player plays Connect Four 6x7 only, not {game.id} {game.params}")
        self.name = "AB" if key == "ab" else "AB-DL"
        cls = c4.ABPlayer if key == "ab" else c4.ABDLPlayer
        self._player = cls(opening_plies=random_plies)

    def act(self, game, state, rng) -> int:
        from farl_envs.core.rng import rng_next
        from farl_envs.core.spec import HEADER, TO_MOVE

        rows, cols = int(game.p[0]), int(game.p[1])
        board = np.asarray(state[HEADER + cols:HEADER + cols + rows * cols]).reshape(rows, cols)
        seed = int(rng_next(rng))
        return int(self._player.choose(board, int(state[TO_MOVE]), np.random.default_rng(seed)))

    def __repr__(self) -> str:
        return self.name


def _require(game, names, spec):
    if game.name not in names:
        raise ValueError(f"opponent {spec!r} plays {' / '.join(names)} only, not {game.id}")


def make_opponent(spec: str, game):
    """Build the opponent named ``spec`` (see the module table) for ``game`` (name or GameSpec).

    Raises ``ValueError`` for unknown names and for opponents that cannot
    play ``game``; ``EdaxPlayer`` raises ``RuntimeError`` when Edax is missing.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"opponent spec must be a non-empty string, got {spec!r}")
    g = _game(game)
    key = spec.strip().lower()
    flat = re.sub(r"[-_ ]", "", key)
    if flat == "random":
        return RandomPlayer()
    m = re.fullmatch(r"maxn(\d+)?", flat)
    if m:
        if g.has_chance:
            raise ValueError(f"opponent {spec!r}: Max-N cannot play {g.id} (chance events)")
        return MaxN(int(m.group(1)) if m.group(1) else 15)
    m = re.fullmatch(r"mcts(\d+)?", flat)
    if m:
        return MCTS(int(m.group(1)) if m.group(1) else 1000)
    if flat in ("bench", "heur"):
        _require(g, ("othello",), spec)
        return BenchPlayer(flat)
    if flat == "benchgbg":
        _require(g, ("othello",), spec)
        return BenchPlayer("bench", gbg=True)
    m = re.fullmatch(r"edax(?:d)?(\d+)?", flat)
    if m:
        _require(g, ("othello",), spec)
        return EdaxPlayer(int(m.group(1)) if m.group(1) else 1)
    if flat == "bouton":
        _require(g, ("nim",), spec)
        return BoutonPlayer()
    if flat in ("ab", "abdl", "alphabeta"):
        _require(g, ("connect_four",), spec)
        return connect_four_player("ab-dl" if flat == "abdl" else "ab", g)
    raise ValueError(f"unknown opponent {spec!r}; known: {', '.join(OPPONENT_NAMES)}")
