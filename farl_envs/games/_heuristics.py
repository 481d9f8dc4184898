"""What the games' leaf evaluations (``GameSpec.heuristic``) share.

A depth-limited search (Max-N, Paranoid) that stops below the root values a
non-terminal leaf by the game's ``heuristic(p, s, out)``: one number per
player, the player's expected *future* reward as far as the position shows
it. Every value lies strictly inside (-0.5, 0.5), so a win or a loss the
search sees (a reward of +-1 or more) always outweighs it, and a player who
is already out (3-player Sim and Yavalath) gets 0: nothing more can happen
to him. The heuristics of Sim, Yavalath and Chinese Checkers rate every
player by one *score* and return the player's score against the mean of the
other players still in (:func:`relative_to_others`, then squashed by
``tanh`` or scaled), so in a 2-player game the vector sums to zero like the
rewards. Each game's docstring gives its score and scale; they are plain
hand-set estimates, not fitted, and ``tests/test_search_nplayer.py`` checks
that each prefers what its game's docstring says on hand-built positions.
"""
from __future__ import annotations

from numba import njit


@njit(cache=True, inline="always")
def relative_to_others(score, alive, out):
    """``out[q]`` = ``score[q]`` minus the mean score of the other players alive (0 for players not alive, and
    for the last one alive)."""
    n = score.shape[0]
    total = 0.0
    count = 0
    for q in range(n):
        if alive[q]:
            total += score[q]
            count += 1
    for q in range(n):
        if alive[q] and count > 1:
            out[q] = score[q] - (total - score[q]) / (count - 1)
        else:
            out[q] = 0.0
