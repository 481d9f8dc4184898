"""TicTacToe rules against counts known independently of this code."""
from __future__ import annotations

import numpy as np
import pytest

from farl_envs.core.rng import make_rng
from farl_envs.games import tictactoe as ttt

P = np.zeros(1, dtype=np.int64)


def _children(s):
    mask = np.zeros(9, dtype=np.int8)
    ttt.legal_actions(P, s, mask)
    for a in np.flatnonzero(mask):
        out = np.empty_like(s)
        rew = np.zeros(2)
        ttt.afterstate(P, s, int(a), out, rew)
        yield int(a), out, rew


def test_5478_reachable_positions_and_255168_games():
    seen = set()
    games = 0
    stack = [ttt.initial_state(P, make_rng(0))]
    while stack:
        s = stack.pop()
        if s[1]:
            games += 1
        for _, child, _ in _children(s):
            stack.append(child)
    # positions: count distinct boards with a separate search that dedups
    frontier = {ttt.initial_state(P, make_rng(0)).tobytes(): ttt.initial_state(P, make_rng(0))}
    while frontier:
        seen.update(frontier)
        nxt = {}
        for s in frontier.values():
            for _, child, _ in _children(s):
                nxt.setdefault(child.tobytes(), child)
        frontier = {k: v for k, v in nxt.items() if k not in seen}
    assert games == 255_168
    assert len(seen) == 5_478


def _play(moves):
    s = ttt.initial_state(P, make_rng(0))
    rew = np.zeros(2)
    for a in moves:
        out = np.empty_like(s)
        ttt.afterstate(P, s, a, out, rew)
        s = out
    return s, rew


@pytest.mark.parametrize("moves,text,rewards,over", [
    ([0, 3, 1, 4, 2], "X X X\nO O .\n. . .", (1, -1), True),          # top row
    ([4, 0, 8, 2, 6, 1], "O O O\n. X .\nX . X", (-1, 1), True),       # O wins the top row
    ([2, 0, 4, 1, 6], "O O X\n. X .\nX . .", (1, -1), True),          # anti-diagonal
    ([4, 0, 2, 6, 3, 5, 1, 7, 8], "O X X\nX X O\nO O X", (0, 0), True),  # full board, no line
    ([4, 0], "O . .\n. X .\n. . .", (0, 0), False),
])
def test_hand_checked_games(moves, text, rewards, over):
    s, rew = _play(moves)
    assert ttt.render_text(P, s) == text
    assert tuple(rew) == rewards
    assert bool(s[1]) == over
    assert ttt.validate(P, s) == ""


def test_no_moves_after_a_win():
    s, _ = _play([0, 3, 1, 4, 2])
    mask = np.zeros(9, dtype=np.int8)
    assert ttt.legal_actions(P, s, mask) == 0 and not mask.any()


def test_symmetries_are_the_eight_of_the_square():
    perms = ttt.symmetries(P)
    assert perms.shape == (8, 9)
    assert len({tuple(p) for p in perms}) == 8
    assert list(perms[0]) == list(range(9))
    # the centre is fixed by every symmetry; corners go to corners
    assert all(p[4] == 4 for p in perms)
    assert all({p[0], p[2], p[6], p[8]} == {0, 2, 6, 8} for p in perms)
    # symmetries preserve win lines
    lines = {frozenset(line) for line in ttt.LINES.tolist()}
    for p in perms:
        assert {frozenset(int(p[c]) for c in line) for line in lines} == lines


def test_validate_refuses_impossible_boards():
    s = ttt.initial_state(P, make_rng(0))
    s[3:6] = 2  # three O, no X
    assert "X moves first" in ttt.validate(P, s)
