"""A whole-turn racer for Chinese Checkers: the control that asks whether faster racing alone wins against random.

A turn of farl's Chinese Checkers (OpenSpiel's) is a step, or a chain of hops by one peg split into single
actions, each hop its own ply (``chinese_checkers.py``). A player that looks one action ahead cannot value a hop
by the chain it opens, so the n-tuple agents and Max-N1 may stop a chain early or never start one that first
moves sideways. This player searches every way to finish its turn (every step, every hop chain and every point
at which to stop it) and takes the one whose end position has the most race progress (the game's own
``race_progress``: 0 at the start, 1 with the target point filled); a move that wins the game comes first. It
reads nothing but its own pegs' distances, so it measures what racing alone reaches.

With ``wall_penalty`` > 0 (``racer-exits``) it also keeps the others' pegs in its target free to leave: an end
position loses ``wall_penalty`` of progress for each such peg that has no step and no hop left (walled in by the
racer's own pegs), so it fills the point around a spoiler only once the spoiler is gone.

    python -m studies.nplayer.cc_blockers racer --vs random --games 100
    python -m studies.nplayer.cc_blockers racer-exits --vs random --games 100
"""
from __future__ import annotations

import numpy as np

from farl_envs.core.rng import rng_below
from farl_envs.core.spec import TERMINAL, TO_MOVE
from farl_envs.games.chinese_checkers import P_HOMES, POINTS, race_progress, walled_in_count

WIN = float("inf")


def target_holes(p, seat: int) -> np.ndarray:
    """The holes of ``seat``'s target point: the point opposite its home."""
    return POINTS[(int(p[P_HOMES + seat]) + 3) % 6]


def walled_in(game, state: np.ndarray, seat: int) -> int:
    """How many of the others' pegs in ``seat``'s target can neither step nor hop (the game's
    :func:`~farl_envs.games.chinese_checkers.walled_in_count`)."""
    return int(walled_in_count(game.p, state, seat))


def best_turn(game, state: np.ndarray, rng, wall_penalty: float = 0.0) -> tuple[float, int]:
    """``(value, first action)`` of the best way for the player to move in ``state`` to finish its turn: the race
    progress of the position where the turn passes, ``inf`` for a win, ``-1`` for a loss or the move limit's
    draw; minus ``wall_penalty`` per walled-in spoiler in the target (:func:`walled_in`). Ties are broken at
    random with farl's generator ``rng``, uniformly over the tied first actions (with the lowest action instead
    it shuffles pegs back and forth in the end game: 175 wins of 300 against two random players, not 215)."""
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
            value = best_turn(game, after, rng, wall_penalty)[0]
        else:
            race_progress(game.p, after, progress)
            value = float(progress[me])
            if wall_penalty:
                value -= wall_penalty * walled_in(game, after, me)
        if value > best_value:
            best_value, tied = value, [int(a)]
        elif value == best_value:
            tied.append(int(a))
    return best_value, tied[rng_below(rng, len(tied))]


class WholeTurnRacer:
    """The player of :func:`best_turn` (``racer``; with ``wall_penalty`` the game heuristic's
    ``WALLED_IN_PENALTY``, ``racer-exits``)."""

    def __init__(self, wall_penalty: float = 0.0):
        self.wall_penalty = float(wall_penalty)
        self.name = "racer-exits" if wall_penalty else "racer"

    def act(self, game, state: np.ndarray, rng) -> int:
        if game.name != "chinese_checkers":
            raise ValueError(f"the whole-turn racer plays chinese_checkers, not {game.name}")
        return best_turn(game, state, rng, self.wall_penalty)[1]

    def reset(self) -> None:
        pass
