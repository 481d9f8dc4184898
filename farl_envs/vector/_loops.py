"""The compiled loops of :mod:`farl_envs.vector`: every env of a batch stepped, reset, observed in one numba call.

The loops take the game's kernels as one :class:`~farl_envs.core.kernels.Kernels` value, as
:mod:`farl_envs.core.playout` does, so numba compiles one specialised copy per game and caches it on disk. The
value made here (:func:`vector_kernels`) names one kernel more than the core's, the game's ``observe``
(:func:`~farl_envs.core.kernels.kernels_with_observe`). Its stamp covers this package's sources and
``observe``'s module, so an edit of either gives a new cache entry, never stale code.

Chance and random starts draw from a **counter-based stream**: before every draw the game's ``uint64[1]``
generator (:mod:`farl_envs.core.rng`) is set to :func:`stream_word` of (seed, env index, episode, move), a
SplitMix64-style hash. An env's random events therefore depend on nothing but its own index and counters: not on
``num_envs``, nor on which other envs reset, nor on the order the loop visits them.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from farl_envs.core.kernel_utils import borrowed
from farl_envs.core.kernels import (
    Kernels,
    afterstate,
    afterstate_inline,
    board,
    chance,
    chance_inline,
    has_chance,
    initial_state,
    kernels_with_observe,
    legal_actions,
    legal_actions_inline,
    observe,
)
from farl_envs.core.rng import GOLDEN_GAMMA, mix64, rng_choice_mask, rng_choice_mask_counted
from farl_envs.core.spec import TERMINAL, TO_MOVE

LOOPS = ("farl_envs/vector/*.py",)
"""The sources of the loops over :func:`vector_kernels`' value (they join its stamp)."""

_INDEX = np.uint64(0xD6E8FEB86659FD93)
_EPISODE = np.uint64(0xA0761D6478BD642F)
_MOVE = np.uint64(0xE7037ED1A0B428DB)
OPPONENT_STREAM = np.uint64(0x8EBC6AF09C88C6E3)
"""XORed into the seed for the random opponents' choices, a stream of their own (the games' chance events keep the
seed's)."""


def vector_kernels(game) -> Kernels:
    """The :class:`Kernels` value of ``game``'s batched loops: the core kernels plus ``observe``
    (:func:`~farl_envs.core.kernels.kernels_with_observe`). ``ValueError`` when a kernel is not a module-level
    ``@njit`` function."""
    return kernels_with_observe(game, LOOPS)


@njit(cache=True)
def stream_word(seed, index, episode, move):
    """The generator state (a ``uint64``) env ``index`` draws from in episode ``episode`` at move ``move``.

    ``move`` 0 is the start position (``initial_state``), ``k >= 1`` the chance event after the game's ``k``-th
    move. Each counter is mixed in with its own odd constant, so neighbouring counters give unrelated words.
    """
    z = mix64(np.uint64(seed) + GOLDEN_GAMMA)
    z = mix64(z ^ (np.uint64(index) * _INDEX))
    z = mix64(z ^ (np.uint64(episode) * _EPISODE))
    return mix64(z ^ (np.uint64(move) * _MOVE))


@njit(cache=True, inline="always")
def _show(kernels, p, states, i, obs, obs_flat, masks, players, observing=True):
    """Observation (of the seat to move; skipped unless ``observing``), legal-action mask and mover of env ``i``."""
    s = states[i]
    seat = s[TO_MOVE]
    players[i] = seat
    if observing:
        obs_flat[i, :] = 0
        observe(kernels, p, s, seat, obs[i])
    legal_actions_inline(kernels, p, s, masks[i])


@njit(cache=True, inline="always")
def _start(kernels, p, states, i, seed, episodes, moves, returns, rng):
    """Start env ``i``'s next episode from the game's start position (its random start from the stream)."""
    episodes[i] += 1
    moves[i] = 0
    rng[0] = stream_word(seed, i, episodes[i], 0)
    start = initial_state(kernels, p, rng)
    for k in range(start.shape[0]):
        states[i, k] = start[k]
    returns[i, :] = 0.0


@njit(cache=True)
def reset_all(kernels, p, states, seed, episodes, moves, returns, obs, obs_flat, masks, players):
    """Start every env's next episode (``episodes`` +1 each) and fill the observations, masks and movers."""
    rng = np.zeros(1, dtype=np.uint64)
    for i in range(states.shape[0]):
        _start(kernels, p, states, i, seed, episodes, moves, returns, rng)
        _show(kernels, p, states, i, obs, obs_flat, masks, players)


@njit(cache=True)
def check_actions(actions, pending, masks, out, illegal):
    """Copy ``actions`` (``int64``) into ``out``, 0 for an env awaiting its autoreset (which ignores its action),
    mark in ``illegal`` the other envs whose action is outside ``0..n_actions-1`` or not legal in their mask, and
    return how many they are. One pass over the batch instead of half a dozen numpy temporaries per step."""
    bad = 0
    n_actions = masks.shape[1]
    for i in range(actions.shape[0]):
        a = 0 if pending[i] else actions[i]
        illegal[i] = not pending[i] and (a < 0 or a >= n_actions or masks[i, a] == 0)
        bad += illegal[i]
        out[i] = a
    return bad


@njit(cache=True)
def step_all(kernels, p, states, actions, pending, seed, episodes, moves, rewards, returns, ended,
             obs, obs_flat, masks, players, observing=True):
    """One step of every env (the actions were checked legal by the caller).

    An env with ``pending[i]`` (its game ended at the previous step) starts its next episode instead and ignores
    its action (next-step autoreset); an env with ``actions[i] < 0`` stays as it is (zero rewards); the others
    play ``actions[i]`` in place, then the chance event from the stream. ``rewards[i]`` gets the step's reward
    deltas, ``returns[i]`` their sum over the episode, ``ended[i]`` whether the game is over now (and
    ``pending[i]`` with it). Then every env's mask and mover, and its observation when ``observing``.
    """
    p, states, actions, pending, episodes, moves = (borrowed(p), borrowed(states), borrowed(actions),
                                                    borrowed(pending), borrowed(episodes), borrowed(moves))
    rewards, returns, ended, obs_flat, masks, players = (borrowed(rewards), borrowed(returns), borrowed(ended),
                                                         borrowed(obs_flat), borrowed(masks), borrowed(players))
    obs = borrowed(obs)
    rng = np.zeros(1, dtype=np.uint64)
    n_players = rewards.shape[1]
    for i in range(states.shape[0]):
        if pending[i]:
            pending[i] = False
            ended[i] = False
            rewards[i, :] = 0.0
            _start(kernels, p, states, i, seed, episodes, moves, returns, rng)
        elif actions[i] < 0:  # a caller's "no move here" (the Gymnasium env's illegal actions and restarts)
            rewards[i, :] = 0.0
            ended[i] = False
        else:
            s = states[i]
            r = rewards[i]
            # the hot calls inlined (core/kernels.py's *_inline stubs): ~20 % of a Connect Four step
            afterstate_inline(kernels, p, s, actions[i], s, r)
            moves[i] += 1
            if has_chance(kernels) and s[TERMINAL] == 0:  # a constant: no hashing for deterministic games
                rng[0] = stream_word(seed, i, episodes[i], moves[i])
                chance_inline(kernels, p, s, rng)
            for k in range(n_players):
                returns[i, k] += r[k]
            ended[i] = s[TERMINAL] != 0
            pending[i] = ended[i]
        _show(kernels, p, states, i, obs, obs_flat, masks, players, observing)


@njit(cache=True)
def show_one(kernels, p, states, i, obs, obs_flat, masks, players):
    """Observation, mask and mover of env ``i`` alone (after ``set_state``)."""
    _show(kernels, p, states, i, obs, obs_flat, masks, players)


@njit(cache=True)
def observe_all(kernels, p, states, obs, obs_flat):
    """Every env's observation, of the seat to move (a batch that does not observe at every step)."""
    for i in range(states.shape[0]):
        s = states[i]
        obs_flat[i, :] = 0
        observe(kernels, p, s, s[TO_MOVE], obs[i])


@njit(cache=True)
def afterstates_all(kernels, p, states, masks, offsets, env, actions, boards, rewards, terminal, after, keep):
    """Every legal action's afterstate of every env, packed: the ``k``-th entry (``offsets[i] <= k <
    offsets[i + 1]`` for env ``i``) is env ``env[k]``'s action ``actions[k]``, its n-tuple board ``boards[k]``,
    reward deltas ``rewards[k]``, terminal flag ``terminal[k]`` and, with ``keep``, its state ``after[k]`` (else
    ``after`` is one scratch row)."""
    scratch = np.empty(states.shape[1], dtype=states.dtype)
    for i in range(states.shape[0]):
        k = offsets[i]
        for a in range(masks.shape[1]):
            if masks[i, a] != 0:
                out = after[k] if keep else scratch
                afterstate(kernels, p, states[i], a, out, rewards[k])
                board(kernels, p, out, boards[k])
                env[k] = i
                actions[k] = a
                terminal[k] = out[TERMINAL] != 0
                k += 1


@njit(cache=True, inline="always")
def _move(kernels, p, s, i, a, seed, episodes, moves, rewards, returns, delta, rng):
    """Play action ``a`` in env ``i``'s state ``s``, then its chance event from the game's own stream, and add the
    move's reward deltas to ``rewards[i]`` and ``returns[i]`` (``delta``, ``rng``: scratch)."""
    afterstate(kernels, p, s, a, s, delta)
    moves[i] += 1
    if has_chance(kernels) and s[TERMINAL] == 0:
        rng[0] = stream_word(seed, i, episodes[i], moves[i])
        chance(kernels, p, s, rng)
    for k in range(delta.shape[0]):
        rewards[i, k] += delta[k]
        returns[i, k] += delta[k]


@njit(cache=True)
def random_replies(kernels, p, states, seats, seed, episodes, moves, rewards, returns, ended, pending, scratch):
    """Uniformly random moves for every seat but ``seats[i]`` in env ``i``, until ``seats[i]`` is to move or the
    game is over (a seat that dropped out never is: its opponents then play to the end).

    Each choice draws from the stream of ``seed ^ OPPONENT_STREAM`` at (env, episode, move), each chance event from
    the game's own stream, as in :func:`step_all`; the moves' reward deltas add to ``rewards[i]`` and
    ``returns[i]``. ``ended[i]`` / ``pending[i]`` are set for a game over. ``scratch``: ``int8[n_actions]``.
    """
    p, states, seats, episodes, moves = borrowed(p), borrowed(states), borrowed(seats), borrowed(episodes), \
        borrowed(moves)
    rewards, returns, ended, pending, scratch = borrowed(rewards), borrowed(returns), borrowed(ended), \
        borrowed(pending), borrowed(scratch)
    rng = np.zeros(1, dtype=np.uint64)
    delta = np.zeros(rewards.shape[1])
    opponents = np.uint64(seed) ^ OPPONENT_STREAM
    for i in range(states.shape[0]):
        s = states[i]
        if pending[i] and s[TERMINAL] == 0:
            continue  # a game given up by an illegal move: nothing to play until its restart
        while s[TERMINAL] == 0 and s[TO_MOVE] != seats[i]:
            n = legal_actions(kernels, p, s, scratch)
            rng[0] = stream_word(opponents, i, episodes[i], moves[i])
            a = rng_choice_mask_counted(rng, scratch, n)
            _move(kernels, p, s, i, a, seed, episodes, moves, rewards, returns, delta, rng)
        if s[TERMINAL] != 0:
            ended[i] = True
            pending[i] = True


@njit(cache=True)
def show_seats(kernels, p, states, seats, which, obs, obs_flat, masks, players):
    """Observation of env ``i`` from seat ``seats[i]`` for every ``i`` in ``which``, with its mask (all zero unless
    that seat is to move) and the seat to move."""
    for i in which:
        s = states[i]
        players[i] = s[TO_MOVE]
        obs_flat[i, :] = 0
        observe(kernels, p, s, seats[i], obs[i])
        legal_actions(kernels, p, s, masks[i])
        if s[TO_MOVE] != seats[i]:
            masks[i, :] = 0


@njit(cache=True)
def play_move(kernels, p, states, i, a, seed, episodes, moves, rewards, returns, ended, pending):
    """Play the legal action ``a`` in env ``i`` (then its chance event), adding the reward deltas to ``rewards[i]``
    and ``returns[i]``: one opponent's move chosen in Python."""
    s = states[i]
    _move(kernels, p, s, i, a, seed, episodes, moves, rewards, returns, np.zeros(rewards.shape[1]),
          np.zeros(1, dtype=np.uint64))
    if s[TERMINAL] != 0:
        ended[i] = True
        pending[i] = True


SAMPLE_STREAM = np.uint64(0x2545F4914F6CDD1D)
"""XORed into the seed for :func:`sample_actions`' stream."""


@njit(cache=True)
def sample_actions(masks, seed, episodes, moves, out):
    """A uniformly random legal action per env into ``out`` (0 where ``masks[i]`` has none), from the stream of
    ``seed ^ SAMPLE_STREAM`` at the env's (episode, move): the same actions for the same games."""
    rng = np.zeros(1, dtype=np.uint64)
    sampler = np.uint64(seed) ^ SAMPLE_STREAM
    for i in range(masks.shape[0]):
        rng[0] = stream_word(sampler, i, episodes[i], moves[i])
        a = rng_choice_mask(rng, masks[i])
        out[i] = a if a >= 0 else 0
