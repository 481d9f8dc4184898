"""Reference opponents of the paper's Table 1, and a registry of them by name.

======================  ==============================================  =================
name (``make_opponent``)  player                                        games
======================  ==============================================  =================
``random``              :class:`~farl_agents.players.RandomPlayer`      all
``maxn`` / ``maxn15``   :class:`MaxN` (depth 15 unless given;           all of perfect
                        the games' leaf heuristics)                     information (expectimax-N
                                                                        over chance events)
``paranoid`` /          :class:`Paranoid` (Sturtevant & Korf 2000:      all of perfect
``paranoid6``           alpha-beta against the coalition of the         information
                        others; depth 6 unless given)
``mcts`` / ``mcts5000`` :class:`MCTS` (1000 iterations unless given)    all of perfect
                                                                        information
``bench`` / ``heur``    :class:`BenchPlayer`                            Othello
``bench-gbg``           :class:`BenchPlayer` as GBG plays it (``gbg``)  Othello
``edax`` / ``edax1``    :class:`EdaxPlayer` (depth 1 unless given)      Othello (binary needed)
``grhino`` /            :class:`GRhinoPlayer`: the GRhino engine over   Othello (``gtp-rhino``
``grhino1`` .. ``5``    GTP at a level 1..5 (3, GRhino's default,       needed: apt package
                        unless given; :mod:`.grhino`)                   ``grhino``)
``mohex`` /             :class:`MoHexPlayer`: MoHex 2.0 over GTP with   Hex 2x2..13x13, no
``mohex1000``           that many simulations per move (10,000 unless   swap (binary needed:
                        given; :mod:`.mohex`)                           ``FARL_MOHEX``)
``bouton``              :class:`BoutonPlayer`                           two-player Nim
``basic-strategy``      :class:`BasicStrategyPlayer` (the chart of      Blackjack
                        :mod:`.blackjack`)
``equity``              :class:`EquityPlayer` (Monte-Carlo hand         Poker
                        strength against a random hand, thresholds;
                        :mod:`.poker`)
``call``                :class:`CallPlayer` (always check / call)       Poker
``ab`` / ``ab-dl``      :class:`PerfectConnectFour` (perfect; AB-DL     Connect Four 6x7
                        delays losses), from
                        :mod:`farl_agents.opponents.connect_four`
``pretrained``          the agent shipped for the game                  those listed by
                        (:mod:`farl_agents.pretrained`)                 ``farl pretrained list``
======================  ==============================================  =================

The searches (Max-N, Paranoid, MCTS and the search wrappers ``pretrained+mcts100`` ...) play on the full
state; on a game with hidden information (``GameSpec.hidden_information``: Kuhn poker) they would see the
others' cards, so :func:`make_opponent` refuses them there with that reason; ``random`` plays every game.

Names are parsed strictly (:func:`parse_opponent`): case and surrounding
blanks are ignored, nothing else. A number follows its name directly, as
decimal digits within a range (:data:`NUMBER_RANGES`: Max-N depth 1..100,
MCTS iterations 1..10,000,000, Edax depth 0..60, GRhino level 1..5, MoHex
simulations 1..10,000,000), so ``"maxn-1"``,
``"mcts_5"`` or ``"mcts0"`` are errors, not depth 1 or 5 iterations. An MCTS
opponent's node arrays are also checked against the memory limit of
:mod:`farl_agents.ntuple.budget` for the game before they are allocated.
``connect_four_player`` builds the Connect Four players with options
(``random_plies``: the opening rule of Thill et al. 2014, see
:mod:`farl_agents.evaluate`).
"""
from __future__ import annotations

import re
from typing import NamedTuple

import farl_envs
from farl_agents.opponents import grhino, mohex
from farl_agents.opponents.bench import BenchPlayer
from farl_agents.opponents.blackjack import BasicStrategyPlayer
from farl_agents.opponents.connect_four.harness import PerfectConnectFour
from farl_agents.opponents.edax import EdaxPlayer
from farl_agents.opponents.grhino import GRhinoPlayer
from farl_agents.opponents.maxn import MaxN
from farl_agents.opponents.mcts import MAX_ITERATIONS, MCTS
from farl_agents.opponents.mohex import MoHexPlayer
from farl_agents.opponents.nim import BoutonPlayer, nim3p_player
from farl_agents.opponents.paranoid import Paranoid
from farl_agents.opponents.poker import CallPlayer, EquityPlayer
from farl_agents.opponents.wrappers import refuse_hidden_information, split_wrapped, wrap
from farl_agents.players import RandomPlayer
from farl_envs.core.spec import GameSpec

__all__ = ["MaxN", "MCTS", "BenchPlayer", "BasicStrategyPlayer", "EdaxPlayer", "GRhinoPlayer", "MoHexPlayer",
           "BoutonPlayer", "RandomPlayer", "EquityPlayer", "CallPlayer",
           "PerfectConnectFour",
           "nim3p_player", "make_opponent", "connect_four_player", "parse_opponent", "OpponentName",
           "OPPONENT_NAMES", "NUMBER_RANGES"]

OPPONENT_NAMES = ("random", "maxn<depth>", "paranoid<depth>", "mcts<iterations>", "bench", "bench-gbg", "heur",
                  "edax<depth>", "grhino<level>", "mohex<simulations>", "bouton", "ab", "ab-dl", "basic-strategy",
                  "equity", "call", "pretrained")

NUMBER_RANGES = {"maxn": (1, 100), "paranoid": (1, 100), "mcts": (1, MAX_ITERATIONS), "edax": (0, 60),
                 "grhino": grhino.LEVELS, "mohex": mohex.GAMES_RANGE}
"""Inclusive range of the number in ``maxn<depth>``, ``mcts<iterations>``, ``edax<depth>``, ``grhino<level>``,
``mohex<simulations>`` (Edax's own levels stop at 60; deeper Max-N searches never finish on the games it can
play; MCTS: :data:`~.mcts.MAX_ITERATIONS`; GRhino has levels 1..5; MoHex: :data:`.mohex.GAMES_RANGE`)."""
_DEFAULTS = {"maxn": 15, "paranoid": 6, "mcts": 1000, "edax": 1, "grhino": grhino.DEFAULT_LEVEL,
             "mohex": mohex.DEFAULT_GAMES}
_PLAIN = ("random", "bench", "heur", "bench-gbg", "bouton", "ab", "ab-dl", "basic-strategy", "equity", "call",
          "pretrained")


class OpponentName(NamedTuple):
    """A parsed opponent name: ``kind`` (``"maxn"``, ``"mcts"``, ``"ab-dl"``, ...) and the number, if any."""

    kind: str
    number: int | None

    @property
    def value(self) -> int | None:
        """The number, or the kind's default (Max-N depth 15, MCTS 1000 iterations, Edax depth 1, GRhino level 3,
        MoHex 10,000 simulations)."""
        return self.number if self.number is not None else _DEFAULTS.get(self.kind)


def _forms() -> str:
    lo_hi = {k: f"{lo}..{hi}" for k, (lo, hi) in NUMBER_RANGES.items()}
    return (f"{', '.join(_PLAIN)}, maxn<depth> (depth {lo_hi['maxn']}), paranoid<depth> (depth "
            f"{lo_hi['paranoid']}), mcts<iterations> (iterations "
            f"{lo_hi['mcts']}), edax<depth> (depth {lo_hi['edax']}), grhino<level> (level {lo_hi['grhino']}), "
            f"mohex<simulations> (simulations {lo_hi['mohex']}); the number follows the name directly "
            f"(maxn10, mcts5000)")


def parse_opponent(spec, caps: dict | None = None) -> OpponentName:
    """Parse an opponent name strictly; ``ValueError`` naming the allowed forms and ranges otherwise.

    Accepted: the names of the module table, case-insensitive, with blanks
    around them; ``maxn``/``paranoid``/``mcts``/``edax``/``grhino``/``mohex`` optionally followed directly by a
    decimal number in :data:`NUMBER_RANGES`. Nothing is deleted or guessed:
    ``"maxn-1"``, ``"mcts 5"``, ``"MCTS_10000"`` and ``"mcts0"`` are refused.
    ``caps`` lowers the upper ends for a caller (``{"mcts": 200000}``: a web
    server's budget); it also applies to a kind's default number.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"opponent name must be a non-empty string, got {spec!r}; known: {_forms()}")
    key = spec.strip().lower()
    if key in _PLAIN:
        return OpponentName(key, None)
    m = re.fullmatch(r"(maxn|paranoid|mcts|edax|grhino|mohex)([0-9]*)", key)
    if m is None:
        raise ValueError(f"unknown opponent {spec!r}; known: {_forms()}")
    kind, digits = m.group(1), m.group(2) or str(_DEFAULTS[m.group(1)])
    lo, hi = NUMBER_RANGES[kind]
    hi = min(hi, (caps or {}).get(kind, hi))
    if len(digits) > len(str(hi)) or not lo <= int(digits) <= hi:
        what = {"mcts": "iterations", "grhino": "level", "mohex": "simulations"}.get(kind, "depth")
        raise ValueError(f"opponent {spec!r}: {kind}<{what}> takes {what} {lo}..{hi}, got {digits}")
    return OpponentName(kind, int(digits) if m.group(2) else None)


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

    Raises ``ValueError`` for names :func:`parse_opponent` refuses, for an MCTS
    whose node arrays would exceed the memory limit on ``game``, and for opponents that cannot
    play ``game`` (the searches: a game with hidden information; ``pretrained``: a game without a shipped
    agent, or with other parameters than the agent's; ``grhino``/``mohex``: a game or board size the engine
    does not play); ``EdaxPlayer``, ``GRhinoPlayer`` and ``MoHexPlayer`` raise ``RuntimeError`` when their
    engine is missing.
    """
    wrapped = split_wrapped(spec)
    if wrapped is not None:
        return _wrapped_pretrained(spec, wrapped, game)
    name = parse_opponent(spec)
    g = _game(game)
    kind = name.kind
    if kind == "random":
        return RandomPlayer()
    if kind in ("maxn", "paranoid", "mcts"):
        refuse_hidden_information(g, spec.strip())
    if kind in ("maxn", "paranoid"):
        return MaxN(name.value) if kind == "maxn" else Paranoid(name.value)
    if kind == "mcts":
        player = MCTS(name.value)
        player.check_memory(g)
        return player
    if kind in ("bench", "heur"):
        _require(g, ("othello",), spec)
        return BenchPlayer(kind)
    if kind == "bench-gbg":
        _require(g, ("othello",), spec)
        return BenchPlayer("bench", gbg=True)
    if kind == "edax":
        _require(g, ("othello",), spec)
        return EdaxPlayer(name.value)
    if kind == "grhino":
        _require(g, ("othello",), spec)
        return GRhinoPlayer(name.value)
    if kind == "mohex":
        _require(g, ("hex",), spec)
        mohex.check_size(g, spec)
        return MoHexPlayer(name.value)
    if kind == "bouton":
        _require(g, ("nim",), spec)
        return BoutonPlayer()
    if kind == "basic-strategy":
        _require(g, ("blackjack",), spec)
        return BasicStrategyPlayer()
    if kind in ("equity", "call"):
        _require(g, ("poker",), spec)
        return EquityPlayer() if kind == "equity" else CallPlayer()
    if kind in ("ab", "ab-dl"):
        _require(g, ("connect_four",), spec)
        return PerfectConnectFour(kind, g)
    assert kind == "pretrained", kind
    return _pretrained(game, g)


def _wrapped_pretrained(spec: str, wrapped, game):
    """``pretrained+<search>``: the search wrapper around the shipped agent (agent files: loading.load_player)."""
    if wrapped.inner.lower() != "pretrained":
        raise ValueError(f"{spec!r}: here the wrapped player must be pretrained (agent:PATH and run folders are "
                         f"read where files are: farl eval/play/serve/ladder, farl_agents.loading.load_player)")
    refuse_hidden_information(_game(game), spec.strip())  # before looking for a shipped agent (wrap() refuses too)
    agent = _pretrained(game, _game(game))
    return wrap(agent, wrapped, agent.game, display=spec.strip())


def _pretrained(game, g: GameSpec):
    from farl_agents.pretrained import load

    agent = load(g.name)
    if not isinstance(game, str) and agent.game.params != g.params:  # a name means the agent's parameters
        raise ValueError(f"the pretrained {g.name} agent plays {agent.game.params}, not {g.params}")
    return agent
