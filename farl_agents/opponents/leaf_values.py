"""A learned agent's values where a search stops: the leaf evaluation of the search wrappers.

The searches of this package (Max-N, Paranoid, expectimax-N, and the PUCT search of
:mod:`~farl_agents.opponents.puct`) value a position where they stop with a vector of each player's
expected future reward. Without an agent that is the game's declared heuristic
(:mod:`farl_envs.core.hooks`); *wrapped* around a trained n-tuple agent it is the agent's
own afterstate value, which is how GBG's wrappers (Scheiermann & Konen 2022; GBG's ``MaxN2Wrapper``,
``ExpectimaxNWrapper``, ``MCTSWrapperAgent``) make a learned agent stronger at test time without training
it further.

A search calls ``leaf_value(leaf, kernels, hooks, p, s, mover, out)`` for a position ``s`` that player
``mover`` has just produced by a move (an *afterstate*, before any chance event): exactly the kind of
position a player-centred TD agent learned to value. ``leaf`` is

* ``None``: the game's heuristic (``hooks``), as the plain reference opponents play;
* an :class:`NTupleLeaf` (made by :func:`~.leaf_sources.agent_leaf` from an n-tuple agent trained with
  TD): ``out[mover] = V_mover(s)`` from the mover's own tables, in the game's reward units (the learner's
  ``reward_scale`` undone); for an agent trained with progress shaping the tables plus the weighted
  potential, as the agent itself plays (``NTupleAgent.afterstate_value``). In a two-player game, where every
  farl game is zero-sum, the other player's entry is ``-V_mover(s)``; with three or more players each other
  player ``i`` gets ``V_i(s)`` from its own tables (the only estimate the agent has; it learned ``V_i`` on
  positions ``i`` produced, so it is rougher here).

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

from farl_agents.learners.kernels import Potential, potential
from farl_agents.ntuple.network import Net, board_indices, value
from farl_envs.core.hooks import heuristic
from farl_envs.core.kernels import board


class NTupleLeaf(NamedTuple):
    """An n-tuple agent's afterstate values as a leaf evaluation (see the module docstring)."""

    net: Net
    board: np.ndarray          # int32[n_cells]: scratch for the position's board
    idx: np.ndarray            # int64[n_sym, m]: scratch for its tuple indices
    tanh_output: bool          # the agent squashes its output with tanh
    scale: float               # 1 / reward_scale: network units -> the game's reward units
    zero_sum: bool             # two players: the other's value is minus the mover's
    potential: Potential       # the shaping potential (the game's heuristic) of an agent trained with shaping
    shaping: float             # its weight: the agent values a position as tables + shaping x potential
    phi: np.ndarray            # float64[n_players]: scratch for the potential
    maker_tables: bool = False  # values kept per (valuer, maker) pair (the per-ply chain with N > 2 players)


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
            potential(leaf.potential, p, s, leaf.phi, 0)  # fills phi; compiled to nothing without shaping
            if leaf.zero_sum:
                v = value(leaf.net, mover, 0, leaf.idx, leaf.tanh_output)
                if leaf.shaping != 0.0:
                    v += leaf.shaping * leaf.phi[mover]
                v *= leaf.scale
                out[0] = -v
                out[1] = -v
                out[mover] = v
            else:
                n = out.shape[0]
                for i in range(n):  # i's value of an afterstate the mover made
                    v = value(leaf.net, i * n + mover if leaf.maker_tables else i, 0, leaf.idx, leaf.tanh_output)
                    if leaf.shaping != 0.0:
                        v += leaf.shaping * leaf.phi[i]
                    out[i] = v * leaf.scale
        return use_agent
    return None


def final_value(leaf, p, s, out):
    """``out`` = what a finished game ``s`` is worth beyond its rewards to the searching agent: zero, except for
    an agent trained with progress shaping, which keeps w·Φ of the final position in its values (its greedy
    choice scores a game-ending move r + w·Φ_mover(s)), so its searches must too (compiled)."""
    raise NotImplementedError("final_value runs compiled only (inside the search loops)")


@overload(final_value)
def _ol_final_value(leaf, p, s, out):
    if isinstance(leaf, (types.NoneType, types.Omitted)):
        def nothing(leaf, p, s, out):
            out[:] = 0.0
        return nothing
    if isinstance(leaf, types.NamedTuple) and leaf.instance_class is NTupleLeaf:
        def shaped(leaf, p, s, out):
            out[:] = 0.0
            if leaf.shaping != 0.0:
                potential(leaf.potential, p, s, leaf.phi, 0)
                for i in range(out.shape[0]):
                    out[i] = leaf.shaping * leaf.phi[i] * leaf.scale
        return shaped
    return None

