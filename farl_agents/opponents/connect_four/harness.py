"""The perfect Connect Four players behind farl's opponent protocol.

Opponents in farl answer ``act(game, state, rng) -> action`` on kernel
states with farl's random generator (see :mod:`farl_agents.evaluate`);
the solver's players take a bitboard position and a numpy generator.
``PerfectConnectFour`` converts one into the other.
"""
from __future__ import annotations

import numpy as np

from farl_agents.opponents.connect_four.bitboard import HEIGHT, WIDTH, position_from_state
from farl_agents.opponents.connect_four.players import ABDLPlayer, ABPlayer
from farl_envs.core.rng import rng_next
from farl_envs.core.spec import GameSpec


class PerfectConnectFour:
    """The solver's AB / AB-DL players behind the harness protocol ``act(game, state, rng)``.

    The kernel state (checked by the kernel's ``validate``) becomes the
    solver's bitboard position; one number drawn from the farl generator
    seeds the numpy generator of the player's random choices.
    ``random_plies=k`` makes the player follow the opening rule of Thill et
    al. 2014 (``keep_draw_opening_choice``) for the first k plies.
    """

    def __init__(self, name: str, game: GameSpec, random_plies: int = 0):
        key = name.lower().replace("_", "-")
        if key not in ("ab", "ab-dl"):
            raise ValueError(f"unknown Connect Four player {name!r}; use 'ab' or 'ab-dl'")
        if game.name != "connect_four" or game.params != {"rows": HEIGHT, "cols": WIDTH}:
            raise ValueError(f"the perfect player plays Connect Four 6x7 only, not {game.id} {game.params}")
        self.name = "AB" if key == "ab" else "AB-DL"
        cls = ABPlayer if key == "ab" else ABDLPlayer
        self._player = cls(opening_plies=random_plies)

    def act(self, game: GameSpec, state: np.ndarray, rng: np.ndarray) -> int:
        cur, mask, n = position_from_state(state)
        seed = int(rng_next(rng))
        return int(self._player.choose_position(cur, mask, n, np.random.default_rng(seed)))

    score_kind = "exact solver score"
    """What the last :meth:`move_scores` gave (``farl serve`` shows it beside the scores)."""
    SCORE_NODES = 8_000_000
    """Node budget of :meth:`move_scores` (about half a second of search on an idle core): positions that
    need more get depth-limited scores."""

    def move_scores(self, game: GameSpec, state: np.ndarray, rng: np.ndarray) -> np.ndarray:
        """``float64[7]``: the solver's score of each column for the player to move (NaN for a full column):
        ``> 0`` wins (larger: sooner), ``0`` draws, ``< 0`` loses (more negative: sooner). Exact within
        :data:`SCORE_NODES` search nodes, else depth-limited (0 then also means "not resolved");
        ``score_kind`` says which. AB plays a column with the largest score, AB-DL too (a lost
        position: the longest delay). ``rng`` is not used (the scores are deterministic)."""
        cur, mask, n = position_from_state(state)
        vals = self._player.move_scores(cur, mask, n, max_nodes=self.SCORE_NODES)
        self.score_kind = ("exact solver score" if self._player.last_mode == "exact"
                           else "solver score within a search horizon (0: draw or not resolved)")
        return np.array([np.nan if v is None else float(v) for v in vals])

    def __repr__(self) -> str:
        return self.name
