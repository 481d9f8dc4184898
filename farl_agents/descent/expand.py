"""One compiled call that expands a state: its children and their terminal facts.

The searches keep their tree in Python dictionaries (a transposition table
keyed by the state bytes) but never loop over actions in Python to build
children: :func:`expand_state` applies every legal action with the game's
kernels and returns, per child, the state, the n-tuple board, whether it is
terminal, the result w (sign of ``player_0``'s reward at that move) and the
pieces of each player (board cells 1 and 2).

Numba compiles one copy per game: :func:`expand_state` takes the game's
kernels as one :class:`~farl_envs.core.kernels.Kernels` value whose numba
type names them (plus a stamp of their sources), so the copy is cached on
disk like any ``cache=True`` function (compiled once per game, not once per
process). The price: numba types the value in Python on every call, ~1.7 µs
more per expansion than the closure over the kernels this replaced (TicTacToe:
4.5-4.8 µs CPU per call instead of 2.9 µs).

**Turns of several decisions** (Amazons: pick a queen, its destination, its
arrow, three actions of the same player; :data:`TURN_DECISIONS`). The descent
family treats a whole turn as one move: :func:`expand_turns` walks every
sequence of the mover's decisions from ``s`` until the player to move changes
or the game ends, and returns one child per completed turn. So the searches,
tree learning and f_θ only ever see positions *between* turns (for Amazons,
after the arrow: no half-made move with its lifted queen is valued or
learnt), and mobility counts whole turns. A child's action is the sequence
coded in one integer (digits ``a + 1`` in base ``n_actions + 1``, first
decision most significant); :meth:`Expander.decode` gives the actions back and
the agent plays them one per ``act`` call. From a state in the middle of a
turn (a random opening can stop there) the walk completes that turn.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from farl_agents.opponents.search_hooks import search_kernels
from farl_envs.core.kernels import afterstate, board, legal_actions

#: games whose turn is several decisions of the same player: the most decisions a turn can take
TURN_DECISIONS = {"amazons": 3}


@njit(cache=True)
def _describe_child(kernels, p, child, rewards, k, boards, terminal, result, pieces):
    """Fill row ``k`` of the expansion's arrays for ``child`` (reached with ``rewards``): its n-tuple board,
    whether it is terminal and its result for player 0 (1 win, -1 loss, 0 draw), and each side's piece count."""
    b = boards[k]
    board(kernels, p, child, b)
    if child[1] != 0:
        terminal[k] = 1
        d = rewards[0] - rewards[1]
        result[k] = 1 if d > 0 else (-1 if d < 0 else 0)
    c1 = 0
    c2 = 0
    for c in range(b.shape[0]):
        if b[c] == 1:
            c1 += 1
        elif b[c] == 2:
            c2 += 1
    pieces[k, 0] = c1
    pieces[k, 1] = c2


@njit(cache=True)
def expand_state(kernels, p, s, mask, n_cells, n_players):
    """``(actions, states, boards, terminal, result, pieces)`` of every legal action of ``s``.

    ``kernels`` is the game's :func:`~farl_agents.opponents.search_hooks.search_kernels`; ``mask``
    (``int8[n_actions]``) is scratch.
    """
    n = legal_actions(kernels, p, s, mask)
    actions = np.empty(n, dtype=np.int64)
    states = np.empty((n, s.shape[0]), dtype=np.int32)
    boards = np.empty((n, n_cells), dtype=np.int32)
    terminal = np.zeros(n, dtype=np.int8)
    result = np.zeros(n, dtype=np.int8)
    pieces = np.zeros((n, 2), dtype=np.int32)
    rewards = np.zeros(n_players)
    k = 0
    for a in range(mask.shape[0]):
        if mask[a] == 0:
            continue
        rewards[:] = 0.0
        out = states[k]
        afterstate(kernels, p, s, a, out, rewards)
        actions[k] = a
        _describe_child(kernels, p, out, rewards, k, boards, terminal, result, pieces)
        k += 1
    return actions, states, boards, terminal, result, pieces


@njit(cache=True)
def expand_turns(kernels, p, s, masks, stack, rew_stack, n_cells, n_players):
    """Like :func:`expand_state`, one child per *whole turn* of the player to move (see the module docstring).

    ``masks`` (``int8[D, n_actions]``), ``stack`` (``int32[D + 1, len(s)]``) and ``rew_stack``
    (``float64[D + 1, n_players]``) are scratch, D the most decisions a turn can take; a turn still
    unfinished after D decisions raises ``ValueError``. Actions are coded sequences (digits ``a + 1`` in
    base ``n_actions + 1``).
    """
    max_dec = masks.shape[0]
    n_act = masks.shape[1]
    base = n_act + 1
    width = s.shape[0]
    mover = s[0]
    cap = 64
    actions = np.empty(cap, dtype=np.int64)
    states = np.empty((cap, width), dtype=np.int32)
    rewards = np.zeros((cap, n_players))
    rew = np.zeros(n_players)
    cursor = np.zeros(max_dec, dtype=np.int64)
    codes = np.zeros(max_dec + 1, dtype=np.int64)
    stack[0, :] = s
    rew_stack[0, :] = 0.0
    count = 0
    depth = 0
    if s[1] == 0:
        legal_actions(kernels, p, stack[0], masks[0])
    else:
        depth = -1
    while depth >= 0:
        a = cursor[depth]
        while a < n_act and masks[depth, a] == 0:
            a += 1
        if a >= n_act:
            depth -= 1
            continue
        cursor[depth] = a + 1
        child = stack[depth + 1]
        rew[:] = 0.0
        afterstate(kernels, p, stack[depth], a, child, rew)
        rew_stack[depth + 1, :] = rew_stack[depth, :] + rew
        code = codes[depth] * base + (a + 1)
        if child[1] != 0 or child[0] != mover:
            if count == cap:
                cap *= 2
                grown_a = np.empty(cap, dtype=np.int64)
                grown_s = np.empty((cap, width), dtype=np.int32)
                grown_r = np.zeros((cap, n_players))
                grown_a[:count] = actions[:count]
                grown_s[:count] = states[:count]
                grown_r[:count] = rewards[:count]
                actions, states, rewards = grown_a, grown_s, grown_r
            actions[count] = code
            states[count, :] = child
            rewards[count, :] = rew_stack[depth + 1, :]
            count += 1
        else:
            if depth + 1 >= max_dec:
                raise ValueError("a turn took more decisions than TURN_DECISIONS allows")
            depth += 1
            codes[depth] = code
            cursor[depth] = 0
            legal_actions(kernels, p, child, masks[depth])
    boards = np.empty((count, n_cells), dtype=np.int32)
    terminal = np.zeros(count, dtype=np.int8)
    result = np.zeros(count, dtype=np.int8)
    pieces = np.zeros((count, 2), dtype=np.int32)
    for k in range(count):
        _describe_child(kernels, p, states[k], rewards[k], k, boards, terminal, result, pieces)
    return actions[:count].copy(), states[:count].copy(), boards, terminal, result, pieces


class Expander:
    """Expands states of one game (holds the scratch arrays); whole turns for :data:`TURN_DECISIONS` games."""

    def __init__(self, game):
        self.game = game
        self._mask = np.zeros(game.n_actions, dtype=np.int8)
        self._kernels = search_kernels(game)
        self.decisions = TURN_DECISIONS.get(game.name, 1)
        """The most decisions a turn takes (1: every action is a turn)."""
        if self.decisions > 1:
            self._masks = np.zeros((self.decisions, game.n_actions), dtype=np.int8)
            self._stack = np.zeros((self.decisions + 1, game.state_size), dtype=np.int32)
            self._rew = np.zeros((self.decisions + 1, game.n_players))

    def __call__(self, state: np.ndarray):
        """``(actions, states, boards, terminal, result, pieces)`` of every legal move (turn) of ``state``."""
        g = self.game
        if self.decisions > 1:
            return expand_turns(self._kernels, g.p, state, self._masks, self._stack, self._rew, g.n_cells,
                                g.n_players)
        return expand_state(self._kernels, g.p, state, self._mask, g.n_cells, g.n_players)

    def decode(self, action: int) -> list[int]:
        """The game actions of a move returned by :meth:`__call__` (one action unless turns are coded)."""
        action = int(action)
        if self.decisions == 1:
            return [action]
        base = self.game.n_actions + 1
        seq = []
        while action > 0:
            action, digit = divmod(action, base)
            seq.append(digit - 1)
        return seq[::-1]

    def board(self, state: np.ndarray) -> np.ndarray:
        out = np.zeros(self.game.n_cells, dtype=np.int32)
        self.game.board(self.game.p, state, out)
        return out

    def __getstate__(self):
        return {"game": self.game}

    def __setstate__(self, d):
        self.__init__(d["game"])
