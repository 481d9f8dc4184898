"""Ready adapters for PettingZoo's own ``tictactoe_v3`` and ``connect_four_v3``.

Each maps the PettingZoo game onto the farl game it plays, so an agent made
for farl's game (``NTupleAgent("tictactoe", ...)``) trains on PettingZoo's
env and learns exactly what it learns on farl's: the same n-tuple cells and
cell values, the same candidate actions in the same order, the same rewards.

Copies: one scratch ``raw_env`` per adapter, put into the env's position by
copying what a step reads and writes: the board and the AEC turn bookkeeping
(written out per attribute: the deep copies of :func:`copy_attributes` made
TicTacToe training 2.3 times slower).

PettingZoo's classic games draw with pygame, so they need it installed
(``pip install "pettingzoo[classic]"``).
"""
from __future__ import annotations

import numpy as np

import farl_envs
from farl_envs.adapters.adapter import AfterstateAdapter

#: PettingZoo numbers TicTacToe's squares by column (its docs: 0 3 6 / 1 4 7 / 2 5 8, drawn that way);
#: farl by row (0 1 2 / 3 4 5 / 6 7 8). Entry c is PettingZoo's square for farl's cell c.
TICTACTOE_V3_SQUARE_OF_CELL = np.array([3 * (c % 3) + c // 3 for c in range(9)])


def _restore_turns(twin, env) -> None:
    """Copy the AEC turn bookkeeping of a classic env (agents, whose turn, rewards, flags, infos) onto ``twin``."""
    twin.agents = env.agents.copy()
    twin.agent_selection = env.agent_selection
    mine, theirs = twin._agent_selector, env._agent_selector
    mine.agent_order = theirs.agent_order.copy()
    mine._current_agent = theirs._current_agent
    mine.selected_agent = theirs.selected_agent
    twin.rewards = env.rewards.copy()
    twin._cumulative_rewards = env._cumulative_rewards.copy()
    twin.terminations = env.terminations.copy()
    twin.truncations = env.truncations.copy()
    twin.infos = {a: dict(i) for a, i in env.infos.items()}


def restore_tictactoe_v3(twin, env) -> None:
    """Put the ``tictactoe_v3`` raw env ``twin`` into ``env``'s position (board squares and turn bookkeeping)."""
    twin.board.squares = env.board.squares.copy()
    _restore_turns(twin, env)


def restore_connect_four_v3(twin, env) -> None:
    """Put the ``connect_four_v3`` raw env ``twin`` into ``env``'s position (board list and turn bookkeeping)."""
    twin.board = env.board.copy()
    _restore_turns(twin, env)


def encode_tictactoe_v3(raw) -> np.ndarray:
    """farl's TicTacToe cells of a ``tictactoe_v3`` raw env: 0 empty, 1 first player's (X), 2 second's (O).

    PettingZoo marks ``player_1``'s squares 1 and ``player_2``'s 2, the
    values farl gives its ``player_0`` (who moves first) and ``player_1``.
    """
    return np.asarray(raw.board.squares, dtype=np.int32)[TICTACTOE_V3_SQUARE_OF_CELL]


def encode_connect_four_v3(raw) -> np.ndarray:
    """farl's Connect Four cells of a ``connect_four_v3`` raw env.

    Both number the 42 cells row by row from the top (``7 * row + col``) and
    mark ``player_0``'s discs 1 and ``player_1``'s 2; farl's n-tuple encoding
    adds 3 for an empty cell a disc can be dropped into now (the bottom row,
    or a filled cell below), leaving 0 for the empty cells above those.
    """
    b = np.asarray(raw.board, dtype=np.int32).reshape(6, 7)
    empty = b == 0
    supported = np.vstack([b[1:] != 0, np.ones((1, 7), dtype=bool)])
    out = b.copy()
    out[empty & supported] = 3
    return out.ravel()


def adapt_tictactoe_v3(env=None) -> AfterstateAdapter:
    """PettingZoo's ``tictactoe_v3`` as farl's ``tictactoe``; ``env``: such an env (default a new one).

    The adapter's actions are farl's cells (row by row); ``step(c)`` plays
    PettingZoo's square ``TICTACTOE_V3_SQUARE_OF_CELL[c]``.
    """
    from pettingzoo.classic.tictactoe import tictactoe

    env = tictactoe.env() if env is None else env
    scratch = tictactoe.raw_env()
    scratch.reset()
    return AfterstateAdapter(env, encode_tictactoe_v3, game=farl_envs.game_spec("tictactoe"),
                             restore=restore_tictactoe_v3, scratch=scratch, actions=TICTACTOE_V3_SQUARE_OF_CELL,
                             name="tictactoe_v3 adapter")


def adapt_connect_four_v3(env=None) -> AfterstateAdapter:
    """PettingZoo's ``connect_four_v3`` as farl's 6x7 ``connect_four`` (actions: columns 0..6 in both).

    ``env``: such an env (default a new ``connect_four_v3.env()``).
    """
    from pettingzoo.classic.connect_four import connect_four

    env = connect_four.env() if env is None else env
    scratch = connect_four.raw_env()
    scratch.reset()
    return AfterstateAdapter(env, encode_connect_four_v3, game=farl_envs.game_spec("connect_four"),
                             restore=restore_connect_four_v3, scratch=scratch, name="connect_four_v3 adapter")
