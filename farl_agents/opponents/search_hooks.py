"""The kernels' value of every search loop: which sources a cached search loop is compiled from.

The game's compiled hooks the searches call besides its kernels (leaf evaluation, chance outcomes) are
:mod:`farl_envs.core.hooks`; this module names the search loops' own sources, joined to the stamp of the
:class:`~farl_envs.core.kernels.Kernels` value passed beside those hooks (:func:`search_kernels`).
"""
from __future__ import annotations

from farl_envs.core import hooks as _hooks
from farl_envs.core.kernels import kernels_of
from farl_envs.core.spec import GameSpec

# numba's on-disk cache indexes pickle the argument types by class path. Indexes written when this module defined
# the hooks' type keep naming ``farl_agents.opponents.search_hooks.SearchHooksType``; the name stays here so that
# a checkout with such a cache unpickles them (their entries never match again: the stamp changed) instead of
# failing.
SearchHooksType = _hooks.SearchHooksType

SEARCH_LOOPS = ("farl_agents/opponents/mcts.py", "farl_agents/opponents/maxn.py", "farl_agents/opponents/paranoid.py",
                "farl_agents/opponents/bench.py", "farl_agents/opponents/puct.py",
                "farl_agents/opponents/leaf_values.py", "farl_agents/ntuple/network.py",
                "farl_agents/learners/kernels.py", "farl_agents/descent/expand.py")
"""The modules of farl's cached search loops over a game's kernels (MCTS, PUCT, Max-N, Paranoid, Othello's Bench
player, Descent's expansion) and of the agents' leaf values (the n-tuple network's evaluation and
a shaped agent's potential are compiled into the wrapped searches): the sources of :func:`search_kernels`'
stamp besides the game's own (farl_envs' playout loop, which MCTS calls, and the hooks of
:mod:`farl_envs.core.hooks` are always in it)."""


def search_kernels(game: GameSpec):
    """The game's :class:`~farl_envs.core.kernels.Kernels` for the search loops (stamped with
    :data:`SEARCH_LOOPS`)."""
    return kernels_of(game, SEARCH_LOOPS)
