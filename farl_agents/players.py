"""The Player protocol of the evaluation harness, and two trivial adapters.

A *player* is anything with a ``name`` and an ``act`` method that picks a
legal action for the player to move in a kernel state::

    class Player(Protocol):
        name: str
        def act(self, game: GameSpec, state: np.ndarray, rng: np.ndarray) -> int: ...
        def reset(self) -> None: ...          # optional, called before every game

``state`` is the flat ``int32`` kernel state of :mod:`farl_envs.core.spec`
(the player to move is ``state[0]``); players must not modify it. ``rng`` is
a farl ``uint64[1]`` generator (:mod:`farl_envs.core.rng`): every random
choice a player makes should be drawn from it, so that a seeded evaluation
is reproducible (also across worker processes). Players act on kernel states
directly, which keeps the harness fast and independent of any learner.
"""
from __future__ import annotations

from typing import Callable, Protocol, runtime_checkable

import numpy as np

from farl_envs.core.rng import rng_choice_mask
from farl_envs.core.spec import TERMINAL, GameSpec


@runtime_checkable
class Player(Protocol):
    """What :func:`farl_agents.evaluate.evaluate` needs from a player."""

    name: str

    def act(self, game: GameSpec, state: np.ndarray, rng: np.ndarray) -> int:
        """A legal action for the player to move in ``state``."""
        ...


def check_player(obj, what: str = "player") -> None:
    """Raise ``ValueError`` unless ``obj`` follows the :class:`Player` protocol."""
    if not callable(getattr(obj, "act", None)) or not isinstance(getattr(obj, "name", None), str):
        raise ValueError(f"{what} must have a str attribute 'name' and a method "
                         f"act(game, state, rng) -> int, got {obj!r}")


def reset_player(player) -> None:
    """Call ``player.reset()`` when the player has one (before every game)."""
    reset = getattr(player, "reset", None)
    if callable(reset):
        reset()


def check_search_state(game: GameSpec, state: np.ndarray) -> None:
    """A ValueError unless ``state`` is a live position of ``game`` with the game's state shape (what a search
    player needs before it looks for a move)."""
    if state.shape != (game.state_size,):
        raise ValueError(f"{game.id}: state must have shape ({game.state_size},), got {state.shape}")
    if state[TERMINAL]:
        raise ValueError(f"{game.id}: no move in a terminal position")


def legal_mask(game: GameSpec, state: np.ndarray) -> np.ndarray:
    """The ``int8`` legal-action mask of ``state``; ``ValueError`` if the game is over."""
    if state[TERMINAL]:
        raise ValueError(f"{game.id}: no move in a terminal position")
    mask = np.zeros(game.n_actions, dtype=np.int8)
    game.legal_actions(game.p, state, mask)
    return mask


class RandomPlayer:
    """Uniformly random legal moves, drawn from the harness's ``rng``."""

    def __init__(self, name: str = "random"):
        self.name = name
        self._mask = None

    def act(self, game: GameSpec, state: np.ndarray, rng: np.ndarray) -> int:
        if self._mask is None or self._mask.shape[0] != game.n_actions:
            self._mask = np.zeros(game.n_actions, dtype=np.int8)
        if state[TERMINAL] or game.legal_actions(game.p, state, self._mask) == 0:
            raise ValueError(f"{game.id}: no legal move in a terminal position")
        return int(rng_choice_mask(rng, self._mask))

    def __repr__(self) -> str:
        return f"RandomPlayer(name={self.name!r})"


class CallablePlayer:
    """Wrap ``fn(game, state, rng) -> action`` (and an optional ``reset_fn()``) as a player.

    Useful for scripted test players and for quick adapters around learners.
    Note that a lambda cannot be sent to worker processes (``jobs > 1``);
    use a module-level function there.
    """

    def __init__(self, fn: Callable, name: str | None = None, reset_fn: Callable | None = None):
        if not callable(fn):
            raise ValueError(f"fn must be callable, got {fn!r}")
        if reset_fn is not None and not callable(reset_fn):
            raise ValueError(f"reset_fn must be callable or None, got {reset_fn!r}")
        self.fn = fn
        self.reset_fn = reset_fn
        self.name = name if name is not None else getattr(fn, "__name__", "callable")

    def act(self, game: GameSpec, state: np.ndarray, rng: np.ndarray) -> int:
        return int(self.fn(game, state, rng))

    def reset(self) -> None:
        if self.reset_fn is not None:
            self.reset_fn()

    def __repr__(self) -> str:
        return f"CallablePlayer({self.name!r})"
