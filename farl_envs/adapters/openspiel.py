"""A ready adapter for an OpenSpiel game through shimmy's ``OpenSpielCompatibilityV0``: TicTacToe.

OpenSpiel's ``tic_tac_toe`` numbers its actions ``3 * row + col`` and lets
``player_0`` (x) move first, as farl's ``tictactoe`` does, so the adapter
needs no renumbering; its n-tuple cells come from OpenSpiel's observation
tensor (planes: empty, o, x; the same for every observer).

Copies: one scratch shimmy env, put into the env's position by copying the
OpenSpiel state (``pyspiel.State`` deep-copies into an independent state)
and shimmy's turn bookkeeping.

Needs ``pip install shimmy open_spiel``.
"""
from __future__ import annotations

import numpy as np

import farl_envs
from farl_envs.adapters.adapter import AfterstateAdapter, copy_attributes

#: what a step of shimmy's OpenSpiel env reads and writes (besides the game, shared with the scratch env)
_SHIMMY_POSITION = ("game_state", "agents", "agent_selection", "rewards", "_cumulative_rewards", "terminations",
                    "truncations", "infos", "observations", "game_length", "simultaneous_actions")


def encode_openspiel_tic_tac_toe(raw) -> np.ndarray:
    """farl's TicTacToe cells (0 empty, 1 x = ``player_0``, 2 o) of shimmy's env on OpenSpiel's ``tic_tac_toe``.

    Read from the OpenSpiel state itself: shimmy stops updating its
    ``observations`` once the game is over.
    """
    planes = np.asarray(raw.game_state.observation_tensor(0)).reshape(3, 9)
    return (planes[2] + 2 * planes[1]).astype(np.int32)


def adapt_openspiel_tic_tac_toe(env=None) -> AfterstateAdapter:
    """OpenSpiel's ``tic_tac_toe`` in shimmy's ``OpenSpielCompatibilityV0`` as farl's ``tictactoe``.

    ``env``: such an env (default a new one).
    """
    import pyspiel
    from shimmy import OpenSpielCompatibilityV0

    if env is None:
        env = OpenSpielCompatibilityV0(game_name="tic_tac_toe")
    raw = env.unwrapped
    if raw.game_type.short_name != "tic_tac_toe":
        raise ValueError(f"adapt_openspiel_tic_tac_toe needs OpenSpiel's tic_tac_toe, got {raw.game_type.short_name}")
    scratch = OpenSpielCompatibilityV0(env=pyspiel.load_game("tic_tac_toe"))
    scratch.reset()
    return AfterstateAdapter(env, encode_openspiel_tic_tac_toe, game=farl_envs.game_spec("tictactoe"),
                             restore=copy_attributes(*_SHIMMY_POSITION), scratch=scratch,
                             name="OpenSpiel tic_tac_toe adapter")
