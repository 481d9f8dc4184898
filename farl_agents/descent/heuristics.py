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
``score``      the game's score at its end: f = n₁ − n₂, the piece difference, for
               Othello and Surakarta (their scores); for Amazons, which has no
               score of its own, the paper's (Remark 2) "territory of the winning
               player": f = w · (empty squares a queen of the winner reaches, over
               empty squares, in any number of moves), from
               :func:`farl_envs.games.amazons.territory`'s distances.
``mobility``   f = 2w + (c₁ − c₂)/(c₁ + c₂ + 1), c_i the number of legal actions
               summed over player i's turns since the start of the game. The
               result dominates (win > 1 > draw > −1 > loss; the +1 keeps the
               ratio strictly inside (−1, 1)); among games
               with the same result, more mobility for the first player is better.
``presence``   f = 2w + (n₁ − n₂)/(n₁ + n₂ + 1), n_i player i's pieces on the final
               board (board cells 1 and 2 of the n-tuple encoding).

Each heuristic has a ``scale`` bounding |f|; the evaluation network learns
f / scale, so one step size fits all heuristics.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

HEURISTICS = ("classic", "depth-add", "depth-mul", "score", "mobility", "presence")

#: games whose n-tuple board holds pieces of both players as cells 1 and 2
_PIECE_GAMES = ("tictactoe", "connect_four", "hex", "othello", "surakarta", "breakthrough", "clobber",
                "lines_of_action")
#: games whose score is the piece difference on that board (Othello's discs, Surakarta's pieces)
_PIECE_SCORE_GAMES = ("othello", "surakarta")
#: games with a score: the piece-difference ones and Amazons (the winner's territory)
_SCORE_GAMES = _PIECE_SCORE_GAMES + ("amazons",)


def _amazons_winner_territory(p, state, w: int) -> float:
    """w · the empty squares the winner's queens reach (Cohen-Solal 2020's Amazons score, Remark 2)."""
    from farl_envs.games import amazons

    if w == 0:
        return 0.0
    n = int(p[0])
    dist = np.zeros((2, n * n), dtype=np.int32)
    amazons.territory(p, np.ascontiguousarray(state, dtype=np.int32), dist)
    cells = np.asarray(state[3:3 + n * n])
    side = 0 if w > 0 else 1
    return float(w * int(((cells == 0) & (dist[side] <= n * n)).sum()))


@dataclass(frozen=True)
class Heuristic:
    """A terminal evaluation f_t for one game (see the module docstring)."""

    name: str
    max_plies: int
    """P: the longest possible game."""
    scale: float
    """An upper bound of |f|."""
    game: str = ""
    """The game's registry name (the score of a game without a piece difference needs the state)."""
    params: np.ndarray = field(default=None, compare=False, repr=False)
    """The game's kernel parameters ``p`` (for a score computed from the state)."""

    def value(self, result: int, ply: int, n1: int = 0, n2: int = 0, c1: int = 0, c2: int = 0,
              state=None) -> float:
        """f_t of a terminal state: ``result`` w, ``ply`` p, pieces n₁/n₂, summed mobilities c₁/c₂
        (``state``: the terminal state itself, read by Amazons' score)."""
        w = float(result)
        name = self.name
        if name == "classic":
            return w
        if name == "depth-add":
            return w * (self.max_plies - ply + 1)
        if name == "depth-mul":
            return w * (self.max_plies + 1) / max(ply, 1)
        if name == "score":
            if self.game == "amazons":
                if state is None:
                    raise ValueError("the Amazons score needs the terminal state")
                return _amazons_winner_territory(self.params, state, int(result))
            return float(n1 - n2)
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
    if name == "score" and game.name not in _SCORE_GAMES:
        raise ValueError(f"the score heuristic exists for {', '.join(_SCORE_GAMES)} only; "
                         f"{game.name} has no score "
                         f"(use classic, depth-add or depth-mul)")
    if name == "presence" and game.name not in _PIECE_GAMES:
        raise ValueError(f"{game.name} has no pieces to count; use classic, depth-add or depth-mul")
    scale = {"classic": 1.0, "depth-add": float(P), "depth-mul": float(P + 1),
             "score": float(game.n_cells), "mobility": 3.0, "presence": 3.0}[name]
    return Heuristic(name, P, scale, game.name, game.p)
