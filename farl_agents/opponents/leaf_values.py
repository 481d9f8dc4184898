"""A learned agent's values where a search stops: the leaf evaluation of the search wrappers.

The searches of this package (Max-N, Paranoid, expectimax-N, and the PUCT search of
:mod:`~farl_agents.opponents.puct`) value a position where they stop with a vector of each player's
expected future reward. Without an agent that is the game's declared heuristic
(:mod:`~farl_agents.opponents.search_hooks`); *wrapped* around a trained n-tuple agent it is the agent's
own afterstate value, which is how GBG's wrappers (Scheiermann & Konen 2022; GBG's ``MaxN2Wrapper``,
``ExpectimaxNWrapper``, ``MCTSWrapperAgent``) make a learned agent stronger at test time without training
it further.

A search calls ``leaf_value(leaf, kernels, hooks, p, s, mover, out)`` for a position ``s`` that player
``mover`` has just produced by a move (an *afterstate*, before any chance event): exactly the kind of
position a player-centred TD agent learned to value. ``leaf`` is

* ``None``: the game's heuristic (``hooks``), as the plain reference opponents play;
* an :class:`NTupleLeaf` (made by :func:`agent_leaf` from an :class:`~farl_agents.learners.agent.NTupleAgent`
  trained with TD): ``out[mover] = V_mover(s)`` from the mover's own tables, in the game's reward units
  (the learner's ``reward_scale`` undone). In a two-player game, where every farl game is zero-sum, the
  other player's entry is ``-V_mover(s)``; with three or more players each other player ``i`` gets
  ``V_i(s)`` from its own tables (the only estimate the agent has; it learned ``V_i`` on positions ``i``
  produced, so it is rougher here).

The choice is made while numba compiles (the leaf's type), so the loops stay one compiled function per
game and evaluator, and the n-tuple evaluation runs inside them, with no Python per node.

Agents whose values are not numba code (Nemesh, descent's f_θ, the SB3 baselines) implement the Python value
protocol of :mod:`~.value_protocol` instead; :func:`search_leaf` routes them to the PUCT wrapper's Python
driver, and :func:`agent_leaf`, the compiled searches' gate, refuses them naming ``+mcts<N>``.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import types
from numba.extending import overload

from farl_agents.learners.agent import NTupleAgent
from farl_agents.ntuple.network import Net, board_indices, value
from farl_agents.opponents.search_hooks import heuristic
from farl_agents.opponents.value_protocol import AfterstateValues, checked_values
from farl_envs.core.kernels import board
from farl_envs.core.rng import make_rng
from farl_envs.core.spec import TERMINAL, GameSpec


class NTupleLeaf(NamedTuple):
    """An n-tuple agent's afterstate values as a leaf evaluation (see the module docstring)."""

    net: Net
    board: np.ndarray          # int32[n_cells]: scratch for the position's board
    idx: np.ndarray            # int64[n_sym, m]: scratch for its tuple indices
    tanh_output: bool          # the agent squashes its output with tanh
    scale: float               # 1 / reward_scale: network units -> the game's reward units
    zero_sum: bool             # two players: the other's value is minus the mover's


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
    return NTupleLeaf(agent.net, np.zeros(game.n_cells, dtype=np.int32),
                      np.zeros(agent.net.sym_cells.shape[:2], dtype=np.int64), bool(agent.config.tanh_output),
                      1.0 / scale, game.n_players == 2)


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
    if agent.game.id != game.id or list(agent.game.p) != list(game.p):
        raise ValueError(f"{agent.name} plays {agent.game.id} {agent.game.params}, not {game.id} {game.params}")


def leaf_value(leaf, kernels, hooks, p, s, mover, out):
    """``out`` = the value vector of afterstate ``s`` produced by ``mover`` (compiled; see the module docstring)."""
    raise NotImplementedError("leaf_value runs compiled only (inside the search loops)")


@overload(leaf_value)
def _ol_leaf_value(leaf, kernels, hooks, p, s, mover, out):
    if isinstance(leaf, (types.NoneType, types.Omitted)):
        def use_heuristic(leaf, kernels, hooks, p, s, mover, out):
            heuristic(hooks, p, s, out)
        return use_heuristic
    if isinstance(leaf, types.NamedTuple) and leaf.instance_class is NTupleLeaf:
        def use_agent(leaf, kernels, hooks, p, s, mover, out):
            board(kernels, p, s, leaf.board)
            board_indices(leaf.net, leaf.board, leaf.idx)
            if leaf.zero_sum:
                v = value(leaf.net, mover, 0, leaf.idx, leaf.tanh_output) * leaf.scale
                out[0] = -v
                out[1] = -v
                out[mover] = v
            else:
                for i in range(out.shape[0]):
                    out[i] = value(leaf.net, i, 0, leaf.idx, leaf.tanh_output) * leaf.scale
        return use_agent
    return None
