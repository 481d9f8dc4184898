"""Search wrappers by name: ``<inner>+mcts<N>``, ``+chance<N>``, ``+maxn<D>``, ``+paranoid<D>``, ``+expectimax<D>``.

A trained agent plays stronger with a search around it at test time (GBG's wrappers; Scheiermann & Konen
2022). The name of a wrapped player is the inner player's name, a ``+`` and the search:

==================  =====================================================  ==========================
suffix              search (the inner agent's values at its leaves)        number
==================  =====================================================  ==========================
``+mcts<N>``        PUCT without rollouts, priors from the agent's values  iterations 1..10,000,000
                    (:class:`~farl_agents.opponents.puct.PUCT`); chance
                    sampled open loop, as GBG's wrapper
``+chance<N>``      the same PUCT with a child per chance outcome (closed  iterations 1..10,000,000
                    loop); games with chance only
``+maxn<D>``        Max-N (expectimax-N where the game has chance)         depth 1..100
                    (:class:`~farl_agents.opponents.maxn.MaxN`)
``+paranoid<D>``    Paranoid alpha-beta (minimax for two players)          depth 1..100
                    (:class:`~farl_agents.opponents.paranoid.Paranoid`)
``+expectimax<D>``  expectimax-N over the chance outcomes; games with      depth 1..100
                    chance only (2048, EinStein würfelt nicht!)
==================  =====================================================  ==========================

The inner player is ``pretrained`` (the shipped agent), ``agent:PATH`` or a path to an agent file or run
folder (those two are resolved by :func:`farl_agents.loading.load_player`, the layer that reads files).
It must have an afterstate value function the search can read: an n-tuple agent trained with TD (every
search, compiled with the agent's network inside), or, for the PUCT searches only, a player of the Python value
protocol (:class:`~farl_agents.opponents.value_protocol.AfterstateValues`: Nemesh, descent's f_θ, the SB3
baselines; the PUCT loop calls it once per expanded position). :func:`wrap` refuses the others with the
reason (:func:`~farl_agents.opponents.leaf_sources.search_leaf`,
:func:`~farl_agents.opponents.leaf_sources.agent_leaf`).

Parsing is strict like :func:`~farl_agents.opponents.parse_opponent`: the suffix is case-insensitive, the
number is required and follows the search's name directly, within its range (``"pretrained+mcts"``,
``"pretrained+mcts 100"`` and ``"pretrained+mcts0"`` are errors); the inner text is kept as written (a
path's case matters).
"""
from __future__ import annotations

import re
from typing import NamedTuple

from farl_agents.opponents.leaf_sources import agent_leaf, search_leaf
from farl_agents.opponents.maxn import MaxN
from farl_agents.opponents.mcts import MAX_ITERATIONS
from farl_agents.opponents.paranoid import MAX_DEPTH, Paranoid
from farl_agents.opponents.puct import PUCT
from farl_envs.core.spec import GameSpec

WRAPPER_RANGES = {"mcts": (1, MAX_ITERATIONS), "chance": (1, MAX_ITERATIONS), "maxn": (1, MAX_DEPTH),
                  "paranoid": (1, MAX_DEPTH), "expectimax": (1, MAX_DEPTH)}
"""Inclusive range of the number after each search's name."""
WRAPPER_FORMS = ("<inner>+mcts<iterations>", "<inner>+chance<iterations>", "<inner>+maxn<depth>",
                 "<inner>+paranoid<depth>", "<inner>+expectimax<depth>")
_TREE_SEARCHES = ("mcts", "chance")
"""The PUCT searches: their number counts iterations, and they take players of the Python value protocol."""
_SUFFIX = re.compile(r"(.*)\+([A-Za-z]+)([0-9]*)")


class WrappedName(NamedTuple):
    """A parsed wrapped-player name: the inner player's text, the search and its number."""

    inner: str
    search: str
    number: int


def forms() -> str:
    """The wrapped-name forms and ranges, for error messages."""
    ranges = ", ".join(f"+{k}<{'iterations' if k in _TREE_SEARCHES else 'depth'}> {lo}..{hi:,}"
                       for k, (lo, hi) in WRAPPER_RANGES.items())
    return (f"{', '.join(WRAPPER_FORMS)} ({ranges}); <inner> is pretrained, agent:PATH or a run folder, e.g. "
            f"pretrained+mcts1000")


def split_wrapped(text, caps: dict | None = None) -> WrappedName | None:
    """The parts of a wrapped-player name, or None when ``text`` has no ``+`` (not a wrapped name).

    ``ValueError`` naming the forms and ranges for text with a ``+`` that is not a valid wrapped name.
    ``caps`` lowers the upper ends for a caller (``{"mcts": 200000}``: a web server's budget).
    """
    if not isinstance(text, str) or "+" not in text:
        return None
    m = _SUFFIX.fullmatch(text.strip())
    if m is None:
        raise ValueError(f"{text!r} is not a wrapped player; use {forms()}")
    inner, search, digits = m.group(1).strip(), m.group(2).lower(), m.group(3)
    if search not in WRAPPER_RANGES:
        raise ValueError(f"{text!r}: unknown search {search!r} after '+'; use {forms()}")
    if not inner:
        raise ValueError(f"{text!r}: name the wrapped player before '+', e.g. pretrained+{search}"
                         f"{WRAPPER_RANGES[search][0]}")
    what = "iterations" if search in _TREE_SEARCHES else "depth"
    lo, hi = WRAPPER_RANGES[search]
    hi = min(hi, (caps or {}).get(search, hi))
    if not digits:
        raise ValueError(f"{text!r}: +{search}<{what}> needs its {what} directly after it, e.g. {inner}+{search}"
                         f"{100 if search in _TREE_SEARCHES else 2}")
    if len(digits) > len(str(hi)) or not lo <= int(digits) <= hi:
        raise ValueError(f"{text!r}: +{search}<{what}> takes {what} {lo}..{hi:,}, got {digits}")
    return WrappedName(inner, search, int(digits))


def refuse_hidden_information(game: GameSpec, what: str) -> None:
    """``ValueError`` when ``game`` has hidden information (``GameSpec.hidden_information``): the searches
    (Max-N, Paranoid, MCTS, PUCT, expectimax-N) play on the full state and would see the others' cards."""
    if game.hidden_information:
        raise ValueError(f"{what} is a perfect-information search: it would read the hidden part of the state "
                         f"({game.id} has hidden information: the other players' cards), so it does not play "
                         f"{game.id}; use random or a learned agent that reads boards or observations")


def wrap(inner, name: WrappedName, game: GameSpec, display: str | None = None):
    """The search ``name.search`` around the player ``inner`` on ``game``; ``ValueError`` with the reason when
    ``inner`` has no afterstate values for ``game`` a search of that kind can read, or the search does not fit
    the game.

    A TD n-tuple agent gets the compiled searches (its network inside the numba loop); a player of the Python
    value protocol (:class:`~farl_agents.opponents.value_protocol.AfterstateValues`: Nemesh, descent, the SB3
    baselines) gets ``+mcts<N>`` only, the PUCT loop calling it once per expanded position (Max-N, Paranoid
    and expectimax-N are compiled depth-first searches that cannot call Python; they refuse it and name
    ``+mcts<N>``); every other player is refused with the reason, and so is every search on a game with hidden
    information (:func:`refuse_hidden_information`).
    """
    refuse_hidden_information(game, f"+{name.search}{name.number}")
    if name.search in ("chance", "expectimax") and not game.has_chance:
        instead = (f"+mcts{name.number}" if name.search == "chance"
                   else f"+maxn{name.number} or +paranoid{name.number}")
        raise ValueError(f"+{name.search}{name.number} searches over chance events and {game.id} has none: use "
                         f"{instead}")
    if name.search in _TREE_SEARCHES:
        search_leaf(inner, game)  # refuses players without a value function before anything is built
    else:
        agent_leaf(inner, game)
    label = display if display is not None else f"{inner.name}+{name.search}{name.number}"
    if name.search in _TREE_SEARCHES:
        player = PUCT(inner, name.number, name=label, chance_nodes=name.search == "chance")
        player.check_memory(game)
        return player
    if name.search == "paranoid":
        return Paranoid(name.number, agent=inner, name=label)
    return MaxN(name.number, agent=inner, name=label)
