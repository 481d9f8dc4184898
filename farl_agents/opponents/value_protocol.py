"""The value protocol of agents whose networks are not numba code: what the Python-driven search wrapper reads.

The compiled search wrappers (:mod:`~.puct`, :mod:`~.maxn`, :mod:`~.paranoid`) evaluate a TD n-tuple
agent's tables inside their numba loops (:mod:`~.leaf_values`). The other learner families keep their value
functions in Python or torch (Nemesh's linear features, descent's f_θ, an SB3 network), so a search reads them
through one Python method per expanded position, the protocol :class:`AfterstateValues`:

``agent.afterstate_values(game, state) -> float64[n_actions, n_players]``
    for every legal action ``a`` of the non-terminal position ``state``, the agent's estimate of each
    player's return from ``state`` through ``a``: the move's reward vector ``r(state, a)`` plus the agent's
    value vector of the afterstate (the zero vector when the afterstate ends the game), in the game's
    reward units. Rows of illegal actions are NaN. An implementation values all the afterstates of
    ``state`` at once where its network allows (one batched forward).

What each family's value means (and what it approximates) is documented on its method:
:meth:`farl_agents.nemesh.agent.NemeshAgent.afterstate_values`,
:meth:`farl_agents.descent.agent.DescentAgent.afterstate_values`,
:meth:`farl_agents.baselines.players.SB3Player.afterstate_values`.

Players are told apart with ``isinstance(player, AfterstateValues)`` (a runtime-checkable
:class:`typing.Protocol`), so this module imports no family: the families import :func:`legal_afterstates`
from here, never the reverse.
"""
from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from farl_envs.core.spec import TERMINAL, GameSpec


@runtime_checkable
class AfterstateValues(Protocol):
    """A player with afterstate values a Python-driven search can read (see the module docstring)."""

    game: GameSpec
    """The game (and parameters) the agent was trained on."""
    name: str

    def afterstate_values(self, game: GameSpec, state: np.ndarray) -> np.ndarray:
        """``float64[n_actions, n_players]``: reward + the agent's value of the afterstate per legal action."""
        ...


def legal_afterstates(game: GameSpec, state: np.ndarray):
    """Every legal action of ``state`` and what it leads to, for the protocol's implementations.

    Returns ``(actions, afters, rewards, terminal)``: ``int64[k]`` legal actions in increasing order,
    ``int32[k, state_size]`` their afterstates (before any chance event), ``float64[k, n_players]`` the
    moves' reward vectors and ``bool[k]`` whether the afterstate ends the game.
    """
    state = np.ascontiguousarray(state, dtype=np.int32)
    mask = np.zeros(game.n_actions, dtype=np.int8)
    game.legal_actions(game.p, state, mask)
    actions = np.flatnonzero(mask).astype(np.int64)
    afters = np.zeros((len(actions), state.shape[0]), dtype=np.int32)
    rewards = np.zeros((len(actions), game.n_players))
    for k, a in enumerate(actions):
        game.afterstate(game.p, state, int(a), afters[k], rewards[k])
    return actions, afters, rewards, afters[:, TERMINAL] != 0


def checked_values(agent: AfterstateValues, game: GameSpec, state: np.ndarray) -> np.ndarray:
    """``agent.afterstate_values(game, state)`` checked against the protocol: ``ValueError`` naming the agent
    for a wrong shape, a NaN row for a legal action, a number for an illegal one, or an infinite value."""
    values = np.asarray(agent.afterstate_values(game, state), dtype=np.float64)
    want = (game.n_actions, game.n_players)
    if values.shape != want:
        raise ValueError(f"{agent.name}.afterstate_values gave shape {values.shape}, expected {want}")
    mask = np.zeros(game.n_actions, dtype=np.int8)
    game.legal_actions(game.p, np.ascontiguousarray(state, dtype=np.int32), mask)
    legal = mask != 0
    if np.isnan(values[legal]).any() or not np.isnan(values[~legal]).all():
        raise ValueError(f"{agent.name}.afterstate_values must give numbers for exactly the legal actions "
                         f"(NaN rows for the others)")
    if np.isinf(values[legal]).any():
        raise ValueError(f"{agent.name}.afterstate_values gave an infinite value")
    return values
