"""The afterstate record returned by the afterstate extension."""
from __future__ import annotations

import numpy as np

from farl_envs.core.spec import TERMINAL, GameSpec


class Afterstate:
    """The deterministic result of one action, before any chance event.

    Attributes:
        action: the action that produced it.
        player: the agent (e.g. ``"player_0"``) that produced it.
        state: a private copy of the flat kernel state (``int32``).
        rewards: ``{agent: reward delta}`` of that action for every agent.
        terminal: True when the action ended the game.
        board: the cells in n-tuple encoding (computed on first access).

    In games without chance (all but 2048) the afterstate *is* the next
    state. In 2048 the next state adds one random tile to it.
    """

    __slots__ = ("action", "player", "state", "rewards", "terminal", "_game", "_board")

    def __init__(self, game: GameSpec, action: int, player: str, state: np.ndarray, rewards: dict):
        self._game = game
        self.action = action
        self.player = player
        self.state = state
        self.rewards = rewards
        self.terminal = bool(state[TERMINAL])
        self._board = None

    @property
    def board(self) -> np.ndarray:
        if self._board is None:
            b = np.empty(self._game.n_cells, dtype=np.int32)
            self._game.board(self._game.p, self.state, b)
            self._board = b
        return self._board

    def __eq__(self, other) -> bool:
        if not isinstance(other, Afterstate):
            return NotImplemented
        return (self.action == other.action and self.player == other.player
                and self.rewards == other.rewards and np.array_equal(self.state, other.state))

    __hash__ = None  # mutable arrays inside: not hashable

    def __repr__(self) -> str:
        return (f"Afterstate(action={self.action}, player={self.player!r}, "
                f"rewards={self.rewards}, terminal={self.terminal})")
