"""Learners on envs farl did not write: farl's afterstate extension for any copyable PettingZoo AEC env.

>>> from farl_envs.adapters import adapt_connect_four_v3            # doctest: +SKIP
>>> env = adapt_connect_four_v3()       # PettingZoo's connect_four_v3 # doctest: +SKIP
>>> NTupleAgent(env.game, config).train_aec(env, 100)                # doctest: +SKIP

The contract, and how to write an adapter for another game: ``docs/adapters.md``.
"""
from farl_envs.adapters.adapter import (
    AdaptedAfterstate,
    AdaptedGame,
    AdapterMismatchError,
    AfterstateAdapter,
    copy_attributes,
)
from farl_envs.adapters.openspiel import adapt_openspiel_tic_tac_toe
from farl_envs.adapters.pettingzoo_classic import adapt_connect_four_v3, adapt_tictactoe_v3

__all__ = [
    "AdaptedAfterstate",
    "AdaptedGame",
    "AdapterMismatchError",
    "AfterstateAdapter",
    "adapt_connect_four_v3",
    "adapt_openspiel_tic_tac_toe",
    "adapt_tictactoe_v3",
    "copy_attributes",
]
