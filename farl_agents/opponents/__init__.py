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
``ab`` / ``ab-dl``      :class:`PerfectConnectFour` (perfect; AB-DL     Connect Four 6x7
                        delays losses), from
                        :mod:`farl_agents.opponents.connect_four`
``pretrained``          the agent shipped for the game                  those listed by
                        (:mod:`farl_agents.pretrained`)                 ``farl pretrained list``
======================  ==============================================  =================

Hyphens, underscores and case are ignored in the numeric forms
(``"Max-N10"``, ``"MCTS_10000"``, ``"edax-d1"``). ``connect_four_player``
builds the Connect Four players with options (``random_plies``: the opening
rule of Thill et al. 2014, see :mod:`farl_agents.evaluate`).
"""
from __future__ import annotations

import re

import farl_envs
from farl_agents.opponents.bench import BenchPlayer
from farl_agents.opponents.connect_four.harness import PerfectConnectFour
from farl_agents.opponents.edax import EdaxPlayer
from farl_agents.opponents.maxn import MaxN
from farl_agents.opponents.mcts import MCTS
from farl_agents.opponents.nim import BoutonPlayer, nim3p_player
from farl_agents.players import RandomPlayer
from farl_envs.core.spec import GameSpec

__all__ = ["MaxN", "MCTS", "BenchPlayer", "EdaxPlayer", "BoutonPlayer", "RandomPlayer", "PerfectConnectFour",
           "nim3p_player", "make_opponent", "connect_four_player", "OPPONENT_NAMES"]

OPPONENT_NAMES = ("random", "maxn<depth>", "mcts<iterations>", "bench", "bench-gbg", "heur", "edax<depth>",
                  "bouton", "ab", "ab-dl", "pretrained")


def _game(game) -> GameSpec:
    if isinstance(game, str):
        return farl_envs.game_spec(game)
    if not isinstance(game, GameSpec):
        raise ValueError(f"game must be a game name or a GameSpec, got {game!r}")
    return game


def connect_four_player(name: str, game, **kw) -> PerfectConnectFour:
    """The perfect Connect Four player ``"ab"`` or ``"ab-dl"`` for ``game`` (name or GameSpec).

    ``kw`` goes to :class:`PerfectConnectFour` (``random_plies``, see
    :mod:`farl_agents.evaluate`).
    """
    return PerfectConnectFour(name, _game(game), **kw)


def _require(game, names, spec):
    if game.name not in names:
        raise ValueError(f"opponent {spec!r} plays {' / '.join(names)} only, not {game.id}")


def make_opponent(spec: str, game):
    """Build the opponent named ``spec`` (see the module table) for ``game`` (name or GameSpec).

    Raises ``ValueError`` for unknown names and for opponents that cannot
    play ``game`` (``pretrained``: a game without a shipped agent, or with other parameters than the
    agent's); ``EdaxPlayer`` raises ``RuntimeError`` when Edax is missing.
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
        return PerfectConnectFour("ab-dl" if flat == "abdl" else "ab", g)
    if flat == "pretrained":
        from farl_agents.pretrained import load

        agent = load(g.name)
        if not isinstance(game, str) and agent.game.params != g.params:  # a name means the agent's parameters
            raise ValueError(f"the pretrained {g.name} agent plays {agent.game.params}, not {g.params}")
        return agent
    raise ValueError(f"unknown opponent {spec!r}; known: {', '.join(OPPONENT_NAMES)}")
