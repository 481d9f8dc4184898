"""A whole-turn racer for Chinese Checkers: the control that asks whether faster racing alone wins against random.

A turn of farl's Chinese Checkers (OpenSpiel's) is a step, or a chain of hops by one peg split into single
actions, each hop its own ply (``chinese_checkers.py``). A player that looks one action ahead cannot value a hop
by the chain it opens, so the n-tuple agents and Max-N1 may stop a chain early or never start one that first
moves sideways. This player searches every way to finish its turn (every step, every hop chain and every point
at which to stop it) and takes the one whose end position has the most race progress (the game's own
``race_progress``: 0 at the start, 1 with the target point filled); a move that wins the game comes first. It
reads nothing but its own pegs' distances, so it measures what racing alone reaches.

    python -m studies.nplayer.cc_blockers racer --vs random --games 100
"""
from __future__ import annotations

import numpy as np

from farl_envs.core.rng import rng_below
from farl_envs.core.spec import TERMINAL, TO_MOVE
from farl_envs.games.chinese_checkers import race_progress

WIN = float("inf")


def best_turn(game, state: np.ndarray, rng) -> tuple[float, int]:
    """``(value, first action)`` of the best way for the player to move in ``state`` to finish its turn: the race
    progress of the position where the turn passes, ``inf`` for a win, ``-1`` for a loss or the move limit's
    draw. Ties are broken at random with farl's generator ``rng`` (uniformly over the tied first actions: with
    the lowest action instead it shuffles pegs back and forth in the end game and wins 58 % instead of 75 %)."""
    me = int(state[TO_MOVE])
    mask = np.zeros(game.n_actions, dtype=np.int8)
    game.legal_actions(game.p, state, mask)
    best_value, tied = -np.inf, []
    progress = np.zeros(game.n_players)
    for a in np.flatnonzero(mask):
        after, rewards = np.empty_like(state), np.zeros(game.n_players)
        game.afterstate(game.p, state, int(a), after, rewards)
        if after[TERMINAL]:
            value = WIN if rewards[me] > 0 else -1.0
        elif int(after[TO_MOVE]) == me:  # the hop chain goes on: the best way to finish it
            value = best_turn(game, after, rng)[0]
        else:
            race_progress(game.p, after, progress)
            value = float(progress[me])
        if value > best_value:
            best_value, tied = value, [int(a)]
        elif value == best_value:
            tied.append(int(a))
    return best_value, tied[rng_below(rng, len(tied))]


class WholeTurnRacer:
    """The player of :func:`best_turn`."""

    name = "racer"

    def act(self, game, state: np.ndarray, rng) -> int:
        if game.name != "chinese_checkers":
            raise ValueError(f"the whole-turn racer plays chinese_checkers, not {game.name}")
        return best_turn(game, state, rng)[1]

    def reset(self) -> None:
        pass
