"""Perfect Nim players: Bouton's rule (2 players) and Max-N (Nim3P).

Two-player Nim with moves "take 1..k items from one heap" and normal play
(taking the last item wins) is a sum of subtraction games; by the
Sprague-Grundy theorem a heap of ``h`` items is worth ``h mod (k + 1)``, and
a position is lost for the player to move exactly when the XOR ("nim-sum")
of these residues is 0 (Bouton 1901 for unlimited takes, ``k + 1 > h``).
:class:`BoutonPlayer` moves to a position of nim-sum 0 when it can (drawn
uniformly among all such moves) and plays a uniformly random move when it
is lost.

Nim3P has no such rule; its perfect player in Table 1 is Max-N15
(:func:`nim3p_player`).
"""
from __future__ import annotations

import numpy as np

from farl_agents.opponents.maxn import MaxN
from farl_envs.core.rng import rng_below
from farl_envs.core.spec import HEADER, TERMINAL, GameSpec
from farl_envs.games.nim import P_HEAPS, P_TAKE


def nim_sum(heaps, max_take: int) -> int:
    """XOR of ``h mod (max_take + 1)`` over the heaps: 0 iff the mover loses."""
    x = 0
    for h in heaps:
        x ^= int(h) % (max_take + 1)
    return x


def winning_actions(game: GameSpec, state: np.ndarray) -> list[int]:
    """The actions that leave a nim-sum of 0 (empty when the mover is lost)."""
    heaps = [int(h) for h in state[HEADER:HEADER + int(game.p[P_HEAPS])]]
    take = int(game.p[P_TAKE])
    total = nim_sum(heaps, take)
    if total == 0:
        return []
    wins = []
    for i, h in enumerate(heaps):
        for k in range(1, min(take, h) + 1):
            if total ^ (h % (take + 1)) ^ ((h - k) % (take + 1)) == 0:
                wins.append(i * take + k - 1)
    return wins


class BoutonPlayer:
    """Perfect two-player Nim (any heaps, any ``max_take``) by Bouton's rule."""

    def __init__(self, name: str = "Bouton"):
        self.name = name

    def __repr__(self) -> str:
        return f"BoutonPlayer(name={self.name!r})"

    def act(self, game: GameSpec, state: np.ndarray, rng: np.ndarray) -> int:
        if game.name != "nim" or game.n_players != 2:
            raise ValueError(f"BoutonPlayer plays two-player Nim only, got {game.id}")
        if state[TERMINAL]:
            raise ValueError(f"{game.id}: no move in a terminal position")
        moves = winning_actions(game, state)
        if not moves:
            mask = np.zeros(game.n_actions, dtype=np.int8)
            game.legal_actions(game.p, state, mask)
            moves = [int(a) for a in np.flatnonzero(mask)]
        return moves[rng_below(rng, len(moves))]


def nim3p_player(depth: int = 15, **kw) -> MaxN:
    """The perfect Nim3P opponent of Table 1: Max-N with ``depth`` (default 15)."""
    return MaxN(depth, **kw)
