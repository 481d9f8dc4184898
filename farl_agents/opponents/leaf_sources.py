"""Which agent gives the searches which leaf evaluation: the Python side of :mod:`~.leaf_values`.

:func:`agent_leaf` turns a TD n-tuple agent into the :class:`~.leaf_values.NTupleLeaf` the compiled searches
read (Max-N, Paranoid, expectimax-N, PUCT); :func:`search_leaf` also lets the PUCT wrapper take a player of
the Python value protocol (:mod:`~.value_protocol`: Nemesh, descent, the SB3 baselines). Everything else is
refused with the reason. This module is kept apart from :mod:`~.leaf_values` because it reads the agents'
classes, which no compiled loop compiles in (the loops' cache stamp covers only what they compile).
"""
from __future__ import annotations

import numpy as np

from farl_agents.learners.agent import NTupleAgent
from farl_agents.learners.kernels import potential_of
from farl_agents.opponents.leaf_values import NTupleLeaf
from farl_agents.opponents.value_protocol import AfterstateValues, checked_values
from farl_envs.core.rng import make_rng
from farl_envs.core.spec import TERMINAL, GameSpec


def agent_leaf(agent, game: GameSpec) -> NTupleLeaf:
    """The compiled leaf evaluation of ``agent`` on ``game``; ``ValueError`` when the agent cannot give one.

    The agent must be an :class:`NTupleAgent` trained with TD (an afterstate value; SARSA and Q agents learn
    action values instead) for ``game`` with the same parameters. A player of the Python value protocol
    (:class:`~farl_agents.opponents.value_protocol.AfterstateValues`: Nemesh, descent, the SB3 baselines) is
    refused with the advice to use ``+mcts<N>``, whose search calls it from Python (:func:`search_leaf`).
    """
    if isinstance(agent, AfterstateValues) and not isinstance(agent, NTupleAgent):
        raise ValueError(f"{agent.name}: its values are read through a Python method (the value protocol) that "
                         f"the compiled +maxn/+paranoid/+expectimax searches cannot call; wrap it with +mcts<N> "
                         f"(PUCT calls it once per expanded position)")
    if not isinstance(agent, NTupleAgent):
        raise ValueError(f"{getattr(agent, 'name', agent)!r} has no afterstate value function a search can "
                         f"read: the search wrappers take an n-tuple agent trained with TD (td-farl), and +mcts<N> "
                         f"also a Nemesh, descent or SB3 baseline agent")
    if agent.config.algo != "td":
        raise ValueError(f"{agent.name} learned action values ({agent.config.algo}), not afterstate values: "
                         f"the search wrappers take an n-tuple agent trained with TD (td-farl)")
    _check_game(agent, game)
    scale = float(agent.config.reward_scale)
    if not np.isfinite(scale) or scale <= 0:
        raise ValueError(f"{agent.name}: reward_scale must be > 0, got {scale}")
    shaping = float(agent.config.shaping)
    return NTupleLeaf(agent.net, np.zeros(game.n_cells, dtype=np.int32),
                      np.zeros(agent.net.sym_cells.shape[:2], dtype=np.int64), bool(agent.config.tanh_output),
                      1.0 / scale, game.n_players == 2, potential_of(game, shaping), shaping,
                      np.zeros(game.n_players), bool(agent.params.maker_tables))


def search_leaf(agent, game: GameSpec):
    """What the PUCT wrapper values positions with: an :class:`NTupleLeaf` (compiled into the search loop) for
    a TD n-tuple agent, else the agent itself when it implements the Python value protocol
    (:class:`~farl_agents.opponents.value_protocol.AfterstateValues`; the search then calls it once per
    expanded position), else ``ValueError`` with the reason (:func:`agent_leaf`'s).

    A protocol player is asked once here, on ``game``'s start position, so a player that cannot answer
    (another game, a network without a value head) is refused before any search runs.
    """
    if isinstance(agent, NTupleAgent) or not isinstance(agent, AfterstateValues):
        return agent_leaf(agent, game)
    _check_game(agent, game)
    start = game.initial_state(game.p, make_rng(0))
    if not start[TERMINAL]:
        checked_values(agent, game, start)
    return agent


def _check_game(agent, game: GameSpec) -> None:
    if not agent.game.same_rules(game):  # start-only parameters may differ (GameSpec.start_params)
        raise ValueError(f"{agent.name} plays {agent.game.id} {agent.game.params}, not {game.id} {game.params}")
