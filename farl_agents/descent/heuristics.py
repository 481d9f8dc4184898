"""Reinforcement heuristics: the terminal evaluation f_t of Cohen-Solal 2020, Section 5.1.

Every value is from the **first player's** point of view (as in the paper's
algorithms). The result of a finished game is ``w`` = +1 (first player won),
-1 (second player won) or 0 (draw).

The seed's text lost the formula symbols; the choices below are
reconstructions, each keeping the ordering the paper states:

``classic``    f = w.
``depth-add``  f = w · (P − p + 1), P the maximum number of plies of the game
               (``GameSpec.max_plies``; for Hex the board size, so a Hex win is
               worth "empty cells + 1", as the paper says), p the plies played.
               A faster win is worth more, a slower loss costs less.
``depth-mul``  f = w · (P + 1) / p: the same ordering, but a ratio instead of
               a difference (the paper's symbol is lost; a multiplicative
               depth factor is the natural reading of the name), so early
               wins stand out more than with the additive form.
``score``      the game's score at its end, as the game declares it
               (``GameSpec.score``): the piece difference n₁ − n₂ for Othello and
               Surakarta; for Amazons, which has no score of its own, the paper's
               (Remark 2) "territory of the winning player": f = w · (empty squares
               a queen of the winner reaches in any number of moves), from
               :func:`farl_envs.games.amazons.winner_territory`.
``mobility``   f = 2w + (c₁ − c₂)/(c₁ + c₂ + 1), c_i the number of legal actions
               summed over player i's turns since the start of the game. The
               result dominates (win > 1 > draw > −1 > loss; the +1 keeps the
               ratio strictly inside (−1, 1)); among games
               with the same result, more mobility for the first player is better.
``presence``   f = 2w + (n₁ − n₂)/(n₁ + n₂ + 1), n_i player i's pieces on the final
               board (board cells 1 and 2 of the n-tuple encoding), for the games
               that declare their pieces countable (``GameSpec.counts_pieces``).

Each heuristic has a ``scale`` bounding |f|; the evaluation network learns
f / scale, so one step size fits all heuristics.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

HEURISTICS = ("classic", "depth-add", "depth-mul", "score", "mobility", "presence")


@dataclass(frozen=True)
class Heuristic:
    """A terminal evaluation f_t for one game (see the module docstring)."""

    name: str
    max_plies: int
    """P: the longest possible game."""
    scale: float
    """An upper bound of |f|."""
    score: Callable | None = field(default=None, compare=False, repr=False)
    """The game's ``score(p, s)`` (``GameSpec.score``), read by the score heuristic."""
    params: np.ndarray = field(default=None, compare=False, repr=False)
    """The game's kernel parameters ``p`` (for its score)."""

    def value(self, result: int, ply: int, n1: int = 0, n2: int = 0, c1: int = 0, c2: int = 0,
              state=None) -> float:
        """f_t of a terminal state: ``result`` w, ``ply`` p, pieces n₁/n₂, summed mobilities c₁/c₂
        (``state``: the terminal state itself, read by the score heuristic)."""
        w = float(result)
        name = self.name
        if name == "classic":
            return w
        if name == "depth-add":
            return w * (self.max_plies - ply + 1)
        if name == "depth-mul":
            return w * (self.max_plies + 1) / max(ply, 1)
        if name == "score":
            if state is None:
                raise ValueError("the score heuristic needs the terminal state")
            return self.score(self.params, state)
        if name == "mobility":
            return 2.0 * w + (c1 - c2) / (c1 + c2 + 1.0)
        if name == "presence":
            return 2.0 * w + (n1 - n2) / (n1 + n2 + 1.0)
        raise ValueError(f"unknown heuristic {name!r}")


def make_heuristic(name: str, game) -> Heuristic:
    """The heuristic ``name`` for ``game`` (a GameSpec); ``ValueError`` when it makes no sense there."""
    if name not in HEURISTICS:
        raise ValueError(f"unknown heuristic {name!r}; choose one of {', '.join(HEURISTICS)}")
    if game.n_players != 2 or game.has_chance:
        raise ValueError(f"descent needs a two-player game without chance, not {game.id}")
    P = int(game.max_plies)
    if name == "score" and game.score is None:
        raise ValueError(f"the score heuristic needs a game with a score (GameSpec.score: Othello, Surakarta, "
                         f"Amazons); {game.name} has no score (use classic, depth-add or depth-mul)")
    if name == "presence" and not game.counts_pieces:
        raise ValueError(f"{game.name} has no pieces to count; use classic, depth-add or depth-mul")
    scale = {"classic": 1.0, "depth-add": float(P), "depth-mul": float(P + 1),
             "score": float(game.n_cells), "mobility": 3.0, "presence": 3.0}[name]
    return Heuristic(name, P, scale, game.score, game.p)
