"""The afterstate record returned by the afterstate extension."""
from __future__ import annotations

import numpy as np

from farl_envs.core.spec import TERMINAL


class Afterstate:
    """The deterministic result of one action, before any chance event: a plain value.

    Attributes:
        action: the action that produced it.
        player: the agent (e.g. ``"player_0"``) that produced it.
        state: a private copy of the flat kernel state (``int32``).
        board: the cells in n-tuple encoding (``int32``).
        rewards: ``{agent: reward delta}`` of that action for every agent.
        terminal: True when the action ended the game.

    In games without chance (all but 2048) the afterstate *is* the next
    state. In 2048 the next state adds one random tile to it.

    It holds no reference to the game (whose spec carries compiled
    functions), so libraries that copy or pickle ``infos`` every step (SB3's
    ``DummyVecEnv`` deep-copies them) pay for two small arrays and a dict.
    """

    __slots__ = ("action", "player", "state", "board", "rewards", "terminal")

    def __init__(self, action: int, player: str, state: np.ndarray, board: np.ndarray, rewards: dict):
        self.action = action
        self.player = player
        self.state = state
        self.board = board
        self.rewards = rewards
        self.terminal = bool(state[TERMINAL])

    def __eq__(self, other) -> bool:
        if not isinstance(other, Afterstate):
            return NotImplemented
        return (self.action == other.action and self.player == other.player
                and self.rewards == other.rewards and np.array_equal(self.state, other.state))

    __hash__ = None  # mutable arrays inside: not hashable

    def __getstate__(self):
        return tuple(getattr(self, k) for k in self.__slots__)

    def __setstate__(self, values) -> None:
        for k, v in zip(self.__slots__, values):
            setattr(self, k, v)

    def __repr__(self) -> str:
        return (f"Afterstate(action={self.action}, player={self.player!r}, "
                f"rewards={self.rewards}, terminal={self.terminal})")
