"""Batched compiled environments: ``num_envs`` games of one farl game stepped by one numba call.

>>> import numpy as np, farl_envs.vector
>>> envs = farl_envs.vector.make("connect_four", num_envs=1024, seed=0)
>>> obs, info = envs.reset()
>>> obs.shape, info["action_mask"].shape
((1024, 6, 7, 2), (1024, 7))

Every env's state lives in preallocated arrays (``int32[num_envs, state_size]`` and the like); ``step`` checks the
actions with numpy, then one compiled loop over the game's own kernels (the same ``legal_actions``,
``afterstate``, ``chance`` and ``observe`` as the AEC env: one source of truth) plays every env, draws its chance
event and writes its observation and mask. No Python runs per env, except two documented hooks: a move cap's
``GameSpec.truncated`` for the envs whose game just ended (Chinese Checkers, Lines of Action) and
``GameSpec.eliminated`` (three-player Sim and Yavalath).

``reset(seed=None) -> (obs, info)`` and ``step(actions) -> (obs, rewards, terminated, truncated, info)``:

* ``obs``: ``int8[num_envs, *obs_shape]``, the observation of the **player to move** (``info["player"]``), the
  AEC env's ``observe(agent)["observation"]`` for that agent; on a game's last step, of ``state[0]`` of the final
  position (the seat the rules would give the turn to);
* ``rewards``: ``float64[num_envs, n_players]``, every player's reward delta of the step (the AEC env's
  ``rewards``; 0 for a player who is out);
* ``terminated`` / ``truncated``: ``bool[num_envs]``; a game ended by a move cap outside its rules
  (``GameSpec.truncated``) is truncated, every other end terminated, as in the AEC env;
* ``info["action_mask"]``: ``bool[num_envs, n_actions]``; ``info["player"]``: ``int64[num_envs]``;
  ``info["autoreset"]``: ``bool[num_envs]``, the envs this step restarted; ``info["eliminated"]``
  (games with ``GameSpec.eliminated`` only): ``bool[num_envs, n_players]``, the seats out of a game still going
  on (the AEC env terminates them, they take their dead step and leave ``agents``; here the turn simply never
  comes to them);
* on a step where some games end: ``info["final_obs"]`` (the final observation, as in ``obs``) and
  ``info["final_returns"]`` (``float64[num_envs, n_players]``, every player's rewards summed over the game),
  each with Gymnasium's boolean ``info["_final_obs"]`` / ``info["_final_returns"]`` naming the envs that ended.

**Autoreset: Gymnasium 1.x's next-step mode** (``gymnasium.vector.AutoresetMode.NEXT_STEP``). When env ``i``'s
game ends at step ``t``, step ``t`` returns its final observation, its last rewards and ``terminated[i]`` or
``truncated[i]``. Step ``t + 1`` ignores ``actions[i]`` (any value is accepted), starts env ``i``'s next game and
returns its first observation with zero rewards, ``terminated[i] = truncated[i] = False`` and
``info["autoreset"][i] = True``. Between the two, ``info["action_mask"][i]`` is all False.

**Random streams.** Chance events (2048's tile, EinStein würfelt nicht!'s die) and random starts are drawn inside
the compiled step, from a counter-based stream: before each draw, the game's SplitMix64 generator
(:mod:`farl_envs.core.rng`) is set to :func:`stream_word` ``(seed, i, episode, move)``: env index ``i``, the env's
episode counter (0 at the first ``reset``, +1 at every reset of that env) and the moves played in the episode (0
for the start position, ``k`` for the event after the ``k``-th move). Env ``i``'s games therefore depend only on
the seed, ``i`` and its own actions: the same with 3 envs or 16,384, whichever other envs reset. A replay through
the AEC env draws the same events by setting the AEC env's generator to the same word before its ``reset`` and
each ``step`` (tests/test_vector_env.py).

``afterstates()`` gives every legal action's afterstate n-tuple board, reward deltas and terminal flag for every
env in one compiled call (:class:`Afterstates`, packed per env by ``offsets``); ``get_state(i)`` /
``set_state(i, state)`` read and restore one env (:class:`EnvState`, or a plain kernel state); ``clone()`` and
pickling copy the whole batch.

The loops are ``cache=True`` numba functions over the game's :class:`~farl_envs.core.kernels.Kernels` value, so
each game's loop is compiled once and then loaded from numba's disk cache. ``farl_envs.vector.gym`` holds the
Gymnasium ``VectorEnv`` (one seat against opponents, or self-play) registered as every farl id's vector entry
point; ``farl_envs.vector.sb3`` an adapter to Stable-Baselines3's ``VecEnv``.
"""
from __future__ import annotations

from farl_envs.vector._loops import stream_word
from farl_envs.vector.game import Afterstates, EnvState, VectorGame


def make(name: str, num_envs: int, seed: int = 0, copy: bool = True, observations: bool = True,
         **params) -> VectorGame:
    """``num_envs`` games of ``name`` (e.g. ``"connect_four"`` or ``"connect_four_v0"``) with the game's
    parameters ``params`` (``cols=8``), their random streams seeded by ``seed``; call ``reset()`` first.

    ``copy=False`` returns the batch's own arrays from ``reset`` / ``step`` (overwritten by the next call) instead
    of copies, for loops that consume them at once. ``observations=False`` skips the observations at every step
    (``reset`` and ``step`` return ``None`` in their place, ``info`` has no ``final_obs``; ``observations()``
    computes them on request): for random playouts and for learners that read ``afterstates()``, about 40 % of a
    Connect Four step (``docs/results/vector_speed.md``). ``ValueError`` for ``num_envs < 1``, an unknown game or bad
    parameters.
    """
    return VectorGame(name, num_envs, seed=seed, copy=copy, observations=observations, **params)


__all__ = ["Afterstates", "EnvState", "VectorGame", "make", "stream_word"]
