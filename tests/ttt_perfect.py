"""An exhaustive TicTacToe solver written for the tests, independent of farl's kernels."""
from __future__ import annotations

from functools import lru_cache

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def winner(board: tuple) -> int:
    for a, b, c in LINES:
        if board[a] and board[a] == board[b] == board[c]:
            return board[a]
    return 0


@lru_cache(maxsize=None)
def value(board: tuple, mark: int) -> int:
    """Game value for the player with ``mark`` (1 or 2) to move: +1 win, 0 draw, -1 loss."""
    if winner(board):
        return -1  # the previous player just won
    empties = [i for i, v in enumerate(board) if v == 0]
    if not empties:
        return 0
    return max(-value(board[:i] + (mark,) + board[i + 1:], 3 - mark) for i in empties)


def best_moves(board: tuple, mark: int) -> list[int]:
    empties = [i for i, v in enumerate(board) if v == 0]
    vals = {i: -value(board[:i] + (mark,) + board[i + 1:], 3 - mark) for i in empties}
    top = max(vals.values())
    return [i for i, v in vals.items() if v == top]


def worst_outcome(policy, agent_mark: int) -> int:
    """The agent's worst result (+1/0/-1) over every line of play of a perfect opponent (all its optimal moves)."""
    def go(board, mark):
        w = winner(board)
        if w:
            return 1 if w == agent_mark else -1
        if all(board):
            return 0
        if mark == agent_mark:
            i = policy(board, mark)
            return go(board[:i] + (mark,) + board[i + 1:], 3 - mark)
        return min(go(board[:i] + (mark,) + board[i + 1:], 3 - mark) for i in best_moves(board, mark))
    return go((0,) * 9, 1)


def suboptimal_fraction(policy) -> float:
    """Fraction of reachable non-terminal positions where ``policy``'s move loses value."""
    seen, bad = set(), 0

    def walk(board, mark):
        nonlocal bad
        if board in seen or winner(board) or all(board):
            return
        seen.add(board)
        if policy(board, mark) not in best_moves(board, mark):
            bad += 1
        for i, v in enumerate(board):
            if v == 0:
                walk(board[:i] + (mark,) + board[i + 1:], 3 - mark)
    walk((0,) * 9, 1)
    return bad / len(seen)


def agent_policy(agent):
    """A farl TicTacToe agent as a policy of this solver's boards: ``policy(board, mark) -> cell``, the agent's
    greedy move in the kernel state written by hand (seat to move, move count, the nine cells)."""
    import numpy as np

    from farl_envs.core.rng import make_rng

    rng = make_rng(0)

    def policy(board, mark):
        s = np.zeros(12, np.int32)
        s[3:] = board
        s[0] = mark - 1
        s[2] = sum(1 for v in board if v)
        return agent.act(agent.game, s, rng)
    return policy

