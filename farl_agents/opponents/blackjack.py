"""Blackjack's basic-strategy player: the standard chart for the game's rules (dealer stands on soft 17,
double after split), GBG's ``BasicStrategyBlackJackAgent`` without surrender, as a farl opponent.

Its expected return per round under the infinite shoe is computed exactly by
:func:`farl_envs.games._blackjack_ev.expected_return` (``policy="basic"``): -0.5712 % under farl's rules,
0.0008 points below the optimal policy's -0.5704 %.
"""
from __future__ import annotations

import numpy as np

from farl_envs.core.spec import GameSpec
from farl_envs.games._blackjack_ev import basic_strategy_action, exact_return, expected_return

__all__ = ["BasicStrategyPlayer", "exact_return", "expected_return"]
"""The player, and the game's exact infinite-shoe returns (of any board-driven player, and of the chart and
the optimal policy by dynamic programming) for the studies that measure players against them."""


class BasicStrategyPlayer:
    """Plays the basic-strategy chart in every state of ``blackjack`` (``settle`` once the round is decided)."""

    name = "basic-strategy"

    def __repr__(self) -> str:
        return "BasicStrategyPlayer()"

    def act(self, game: GameSpec, state: np.ndarray, rng: np.ndarray) -> int:
        if game.name != "blackjack":
            raise ValueError(f"the basic-strategy player plays blackjack only, not {game.id}")
        return basic_strategy_action(game, state)
