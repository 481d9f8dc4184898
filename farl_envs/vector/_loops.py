"""The compiled loops of :mod:`farl_envs.vector`: every env of a batch stepped, reset, observed in one numba call.

The loops take the game's kernels as one :class:`~farl_envs.core.kernels.Kernels` value, as
:mod:`farl_envs.core.playout` does, so numba compiles one specialised copy per game and caches it on disk. The
value made here (:func:`vector_kernels`) names one kernel more than the core's: the game's ``observe``, at index
:data:`OBSERVE` of its names, which only the stub :func:`observe` below reads (the core's stubs read indices 0-4
and are unaffected). Its stamp covers this package's sources and ``observe``'s module, so an edit of either gives
a new cache entry, never stale code.

Chance and random starts draw from a **counter-based stream**: before every draw the game's ``uint64[1]``
generator (:mod:`farl_envs.core.rng`) is set to :func:`stream_word` of (seed, env index, episode, move), a
SplitMix64-style hash. An env's random events therefore depend on nothing but its own index and counters: not on
``num_envs``, nor on which other envs reset, nor on the order the loop visits them.
"""
from __future__ import annotations

import hashlib
import importlib
import inspect
from pathlib import Path

import numpy as np
from numba import njit
from numba.extending import overload

from farl_envs.core.kernel_utils import borrowed
from farl_envs.core.kernels import (
    KERNEL_NAMES,
    Kernels,
    KernelsType,
    afterstate,
    board,
    chance,
    compiled_name,
    initial_state,
    kernels_of,
    legal_actions,
)
from farl_envs.core.spec import TERMINAL, TO_MOVE

OBSERVE = len(KERNEL_NAMES)
"""Index of the ``observe`` kernel in the names of :func:`vector_kernels`' value."""

LOOPS = ("farl_envs/vector/*.py",)
"""The sources of the loops over :func:`vector_kernels`' value (they join its stamp)."""

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_INDEX = np.uint64(0xD6E8FEB86659FD93)
_EPISODE = np.uint64(0xA0761D6478BD642F)
_MOVE = np.uint64(0xE7037ED1A0B428DB)


_VECTOR_KERNELS: dict = {}


def vector_kernels(game) -> Kernels:
    """The :class:`Kernels` value of ``game``'s batched loops: the core kernels plus ``observe`` (see the module
    docstring). ``ValueError`` when a kernel is not a module-level ``@njit`` function."""
    found = _VECTOR_KERNELS.get(game.observe)
    base = kernels_of(game, loops=LOOPS)
    if found is None or found[0] is not base:
        name = compiled_name(game.observe)
        if not name:
            raise ValueError(f"{game.name}: the observe kernel must be a module-level @njit function")
        h = hashlib.sha1(base.stamp.encode())
        h.update(Path(inspect.getfile(game.observe.py_func)).resolve().read_bytes())
        found = _VECTOR_KERNELS[game.observe] = (base, Kernels(base.names + (name,), h.hexdigest()[:12]))
    return found[1]


def observe(kernels, p, s, seat, out):
    """The game's ``observe(p, s, seat, out)`` named by a :func:`vector_kernels` value."""
    module, _, function = kernels.names[OBSERVE].partition(":")
    return getattr(importlib.import_module(module), function)(p, s, seat, out)


@overload(observe)
def _ol_observe(kernels, p, s, seat, out):
    if isinstance(kernels, KernelsType) and len(kernels.names) > OBSERVE:
        module, _, function = kernels.names[OBSERVE].partition(":")
        fn = getattr(importlib.import_module(module), function)
        return lambda kernels, p, s, seat, out: fn(p, s, seat, out)


@njit(cache=True, inline="always")
def _mix(z):
    """SplitMix64's output function: a bijection of 64-bit words that spreads every input bit over the output."""
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def stream_word(seed, index, episode, move):
    """The generator state (a ``uint64``) env ``index`` draws from in episode ``episode`` at move ``move``.

    ``move`` 0 is the start position (``initial_state``), ``k >= 1`` the chance event after the game's ``k``-th
    move. Each counter is mixed in with its own odd constant, so neighbouring counters give unrelated words.
    """
    z = _mix(np.uint64(seed) + _GOLDEN)
    z = _mix(z ^ (np.uint64(index) * _INDEX))
    z = _mix(z ^ (np.uint64(episode) * _EPISODE))
    return _mix(z ^ (np.uint64(move) * _MOVE))


@njit(cache=True, inline="always")
def _show(kernels, p, states, i, obs, obs_flat, masks, players):
    """Observation (of the seat to move), legal-action mask and mover of env ``i``."""
    s = states[i]
    seat = s[TO_MOVE]
    players[i] = seat
    obs_flat[i, :] = 0
    observe(kernels, p, s, seat, obs[i])
    legal_actions(kernels, p, s, masks[i])


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
def step_all(kernels, p, states, actions, pending, seed, episodes, moves, rewards, returns, ended,
             obs, obs_flat, masks, players):
    """One step of every env (the actions were checked legal by the caller).

    An env with ``pending[i]`` (its game ended at the previous step) starts its next episode instead and ignores
    its action (next-step autoreset); the others play ``actions[i]`` in place, then the chance event from the
    stream. ``rewards[i]`` gets the step's reward deltas, ``returns[i]`` their sum over the episode, ``ended[i]``
    whether the game is over now (and ``pending[i]`` with it). Then every env's observation, mask and mover.
    """
    p, states, actions, pending, episodes, moves = (borrowed(p), borrowed(states), borrowed(actions),
                                                    borrowed(pending), borrowed(episodes), borrowed(moves))
    rewards, returns, ended, obs_flat, masks, players = (borrowed(rewards), borrowed(returns), borrowed(ended),
                                                         borrowed(obs_flat), borrowed(masks), borrowed(players))
    rng = np.zeros(1, dtype=np.uint64)
    n_players = rewards.shape[1]
    for i in range(states.shape[0]):
        if pending[i]:
            pending[i] = False
            ended[i] = False
            rewards[i, :] = 0.0
            _start(kernels, p, states, i, seed, episodes, moves, returns, rng)
        else:
            s = states[i]
            r = rewards[i]
            afterstate(kernels, p, s, actions[i], s, r)
            moves[i] += 1
            if s[TERMINAL] == 0:
                rng[0] = stream_word(seed, i, episodes[i], moves[i])
                chance(kernels, p, s, rng)
            for k in range(n_players):
                returns[i, k] += r[k]
            ended[i] = s[TERMINAL] != 0
            pending[i] = ended[i]
        _show(kernels, p, states, i, obs, obs_flat, masks, players)


@njit(cache=True)
def show_one(kernels, p, states, i, obs, obs_flat, masks, players):
    """Observation, mask and mover of env ``i`` alone (after ``set_state``)."""
    _show(kernels, p, states, i, obs, obs_flat, masks, players)


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
