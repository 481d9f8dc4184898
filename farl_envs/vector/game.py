"""``VectorGame``: ``num_envs`` games of one farl game in preallocated arrays, stepped by one compiled call.

See :mod:`farl_envs.vector` (the package docstring) for the API, the autoreset rule and the random streams.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

import farl_envs
from farl_envs.core.aec import integral_action
from farl_envs.core.spec import TERMINAL, GameSpec
from farl_envs.vector import _loops


class Afterstates(NamedTuple):
    """Every legal action's afterstate in every env, packed one entry per (env, legal action).

    Env ``i``'s entries are ``offsets[i]:offsets[i + 1]`` (in increasing action order); ``K = offsets[-1]`` is the
    number of legal actions over all envs. An env whose game is over (or awaits its autoreset) has none.
    """

    offsets: np.ndarray
    """``int64[num_envs + 1]``."""
    env: np.ndarray
    """``int64[K]``: the env of each entry."""
    actions: np.ndarray
    """``int64[K]``: the action."""
    boards: np.ndarray
    """``int32[K, n_cells]``: the afterstate in n-tuple cells (the game's ``board`` kernel)."""
    rewards: np.ndarray
    """``float64[K, n_players]``: every player's reward delta of the move."""
    terminal: np.ndarray
    """``bool[K]``: the move ends the game."""
    states: np.ndarray | None
    """``int32[K, state_size]``: the afterstates themselves (before any chance event), with ``states=True``."""


@dataclass(frozen=True)
class EnvState:
    """Everything about one env of a :class:`VectorGame`: ``get_state(i)`` returns it, ``set_state(i, ...)``
    restores it exactly (the random stream included)."""

    state: np.ndarray
    """The flat kernel state (``int32[state_size]``)."""
    episode: int
    """The env's episode counter (the random stream's episode)."""
    moves: int
    """Moves played in this episode (the random stream's step counter)."""
    returns: np.ndarray
    """``float64[n_players]``: rewards summed over the episode so far."""
    autoreset: bool
    """The game ended at the last step: the next ``step`` starts a new one and ignores the env's action."""


class VectorGame:
    """``num_envs`` games of one farl game, stepped together by compiled loops over the game's kernels.

    Made by :func:`farl_envs.vector.make`; see the package docstring for the API. Attributes: ``game`` (the
    :class:`~farl_envs.core.spec.GameSpec`), ``name``, ``params``, ``num_envs``, ``seed``, ``n_players``,
    ``n_actions``, ``obs_shape``.
    """

    def __init__(self, name: str, num_envs: int, seed: int = 0, copy: bool = True, observations: bool = True,
                 **params):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be an integer >= 1, got {num_envs!r}")
        self.name = farl_envs._short_name(name)
        self.params = dict(params)
        self.game: GameSpec = farl_envs.game_spec(self.name, **params)
        self.num_envs = int(num_envs)
        self.seed = _checked_seed(seed)
        self.copy = bool(copy)
        self.observing = bool(observations)
        self._kernels = _loops.vector_kernels(self.game)
        g, n = self.game, self.num_envs
        self.n_players, self.n_actions, self.obs_shape = g.n_players, g.n_actions, tuple(g.obs_shape)
        self._states = np.zeros((n, g.state_size), dtype=np.int32)
        self._episodes = np.full(n, -1, dtype=np.int64)  # reset() makes the first episode 0
        self._moves = np.zeros(n, dtype=np.int64)
        self._pending = np.zeros(n, dtype=np.bool_)
        self._ended = np.zeros(n, dtype=np.bool_)
        self._rewards = np.zeros((n, g.n_players), dtype=np.float64)
        self._returns = np.zeros((n, g.n_players), dtype=np.float64)
        self._obs = np.zeros((n,) + self.obs_shape, dtype=np.int8)
        self._masks = np.zeros((n, g.n_actions), dtype=np.int8)
        self._players = np.zeros(n, dtype=np.int64)
        self._actions = np.zeros(n, dtype=np.int64)
        self._started = False
        self._rows = np.arange(n)

    def __repr__(self) -> str:
        return f"VectorGame({self.game.id}, num_envs={self.num_envs}, seed={self.seed})"

    # ------------------------------------------------------------------ API
    def reset(self, seed: int | None = None):
        """Start a new game in every env; return ``(obs, info)``.

        ``seed``: restart the random streams from this seed, every env at episode 0 (a seeded reset repeats the
        same games); ``None`` keeps the seed and starts each env's next episode.
        """
        if seed is not None:
            self.seed = _checked_seed(seed)
            self._episodes[:] = -1
        self._pending[:] = False
        self._ended[:] = False
        self._rewards[:] = 0.0
        _loops.reset_all(self._kernels, self.game.p, self._states, np.uint64(self.seed), self._episodes,
                         self._moves, self._returns, self._obs, self._flat_obs(), self._masks, self._players)
        self._started = True
        info = self._info(np.zeros(self.num_envs, dtype=bool))
        return self._observed(), info

    def step(self, actions):
        """Play ``actions[i]`` in env ``i``; return ``(obs, rewards, terminated, truncated, info)``.

        An env whose game ended at the previous step starts its next game instead and ignores its action
        (``info["autoreset"][i]``). ``ValueError`` (and nothing played) for an action array of the wrong shape or
        type, or an illegal action in an env that plays.
        """
        self._require_reset()
        a = self._checked_actions(actions)
        autoreset = self._pending.copy()
        _loops.step_all(self._kernels, self.game.p, self._states, a, self._pending, np.uint64(self.seed),
                        self._episodes, self._moves, self._rewards, self._returns, self._ended, self._obs,
                        self._flat_obs(), self._masks, self._players, self.observing)
        ended = self._ended
        truncated = np.zeros(self.num_envs, dtype=bool)
        if self.game.truncated is not None and ended.any():  # Python, only for the games that just ended
            for i in np.flatnonzero(ended):
                truncated[i] = bool(self.game.truncated(self.game.p, self._states[i]))
        terminated = ended & ~truncated
        info = self._info(autoreset)
        if ended.any():
            if self.observing:
                info["final_obs"] = self._obs.copy()
                info["_final_obs"] = ended.copy()
            info["final_returns"] = np.where(ended[:, None], self._returns, 0.0)
            info["_final_returns"] = ended.copy()
        return self._observed(), self._out(self._rewards), terminated, truncated, info

    def afterstates(self, states: bool = False) -> Afterstates:
        """The afterstate of every legal action in every env, without stepping (:class:`Afterstates`); with
        ``states=True`` the afterstates' kernel states too. One compiled call for all envs."""
        self._require_reset()
        g = self.game
        counts = np.count_nonzero(self._masks, axis=1)
        offsets = np.zeros(self.num_envs + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        k = int(offsets[-1])
        env = np.empty(k, dtype=np.int64)
        actions = np.empty(k, dtype=np.int64)
        boards = np.empty((k, g.n_cells), dtype=np.int32)
        rewards = np.empty((k, g.n_players), dtype=np.float64)
        terminal = np.empty(k, dtype=np.bool_)
        after = np.empty((k if states else 1, g.state_size), dtype=np.int32)
        _loops.afterstates_all(self._kernels, g.p, self._states, self._masks, offsets, env, actions, boards,
                               rewards, terminal, after, bool(states))
        return Afterstates(offsets, env, actions, boards, rewards, terminal, after if states else None)

    def random_actions(self) -> np.ndarray:
        """``int64[num_envs]``: a uniformly random legal action in each env (0 where none is legal), drawn in one
        compiled call from a stream of the seed, the env and its counters (the same games give the same actions):
        random self-play and benchmarks without a Python loop."""
        self._require_reset()
        out = np.zeros(self.num_envs, dtype=np.int64)
        _loops.sample_actions(self._masks, np.uint64(self.seed), self._episodes, self._moves, out)
        return out

    def action_masks(self) -> np.ndarray:
        """``bool[num_envs, n_actions]``: the legal actions of the player to move in each env (all False where
        the game is over)."""
        self._require_reset()
        return self._masks.astype(bool)

    def get_state(self, i: int) -> EnvState:
        """Env ``i`` as an :class:`EnvState` (copies)."""
        self._require_reset()
        i = self._index(i)
        return EnvState(self._states[i].copy(), int(self._episodes[i]), int(self._moves[i]),
                        self._returns[i].copy(), bool(self._pending[i]))

    def set_state(self, i: int, state) -> None:
        """Put env ``i`` in ``state``: an :class:`EnvState` (restored exactly, random stream included) or a flat
        kernel state (a legal position of this game, checked by the game's ``validate``: ``ValueError`` with the
        reason), which env ``i`` continues from with zero returns, its random stream where it was."""
        self._require_reset()
        i = self._index(i)
        if isinstance(state, EnvState):
            s = self._checked_state(state.state)
            self._episodes[i], self._moves[i] = int(state.episode), int(state.moves)
            self._returns[i] = np.asarray(state.returns, dtype=np.float64)
            self._pending[i] = bool(state.autoreset)
        else:
            s = self._checked_state(state)
            self._returns[i] = 0.0
            self._pending[i] = False
        self._states[i] = s
        self._ended[i] = False
        _loops.show_one(self._kernels, self.game.p, self._states, i, self._obs, self._flat_obs(), self._masks,
                        self._players)

    def observations(self) -> np.ndarray:
        """The current observation of every env (of the seat to move: ``players()``); computed here for a batch
        made with ``observations=False``."""
        self._require_reset()
        if not self.observing:
            _loops.observe_all(self._kernels, self.game.p, self._states, self._obs, self._flat_obs())
        return self._obs.copy()

    def players(self) -> np.ndarray:
        """``int64[num_envs]``: the seat to move in each env (whose observation ``obs`` is)."""
        self._require_reset()
        return self._players.copy()

    def kernel_states(self) -> np.ndarray:
        """``int32[num_envs, state_size]``: a copy of every env's flat kernel state."""
        self._require_reset()
        return self._states.copy()

    def clone(self) -> VectorGame:
        """An independent copy in the same position (same seed and counters: it continues identically)."""
        other = VectorGame.__new__(VectorGame)
        other.__setstate__(self.__getstate__())
        return other

    def __getstate__(self) -> dict:
        keep = ("_states", "_episodes", "_moves", "_pending", "_ended", "_rewards", "_returns", "_obs", "_masks",
                "_players")
        d = {k: getattr(self, k).copy() for k in keep}
        d.update(name=self.name, params=self.params, num_envs=self.num_envs, seed=self.seed, copy=self.copy,
                 observations=self.observing, started=self._started)
        return d

    def __setstate__(self, d: dict) -> None:
        VectorGame.__init__(self, d["name"], d["num_envs"], seed=d["seed"], copy=d["copy"],
                            observations=d["observations"], **d["params"])
        for k, v in d.items():
            if k.startswith("_"):
                setattr(self, k, v.copy())
        self._started = d["started"]

    # -------------------------------------------------------------- helpers
    def _flat_obs(self) -> np.ndarray:
        return self._obs.reshape(self.num_envs, -1)

    def _observed(self) -> np.ndarray | None:
        return self._out(self._obs) if self.observing else None

    def _out(self, a: np.ndarray) -> np.ndarray:
        return a.copy() if self.copy else a

    def _info(self, autoreset: np.ndarray) -> dict:
        info = {"action_mask": self._masks.astype(bool), "player": self._players.copy(), "autoreset": autoreset}
        if self.game.eliminated is not None:  # 3-player Sim and Yavalath: a Python hook, called per env
            out = np.zeros((self.num_envs, self.n_players), dtype=bool)
            for i in range(self.num_envs):
                if not self._states[i, TERMINAL]:
                    out[i, list(self.game.eliminated(self.game.p, self._states[i]))] = True
            info["eliminated"] = out
        return info

    def _require_reset(self) -> None:
        if not self._started:
            raise RuntimeError(f"{self!r}: call reset() first: the envs have no games yet")

    def _index(self, i) -> int:
        j = integral_action(i)
        if j is None or not 0 <= j < self.num_envs:
            raise ValueError(f"env index must be an integer in 0..{self.num_envs - 1}, got {i!r}")
        return j

    def _checked_actions(self, actions) -> np.ndarray:
        a = np.asarray(actions)
        if a.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},) (one per env), got shape {a.shape}")
        if a.dtype.kind == "f" and np.all(np.isfinite(a)) and np.all(a == np.round(a)):
            a = a.astype(np.int64)
        if a.dtype.kind not in "iu":
            raise ValueError(f"actions must be integers, got dtype {a.dtype}")
        illegal = np.zeros(self.num_envs, dtype=np.bool_)
        if _loops.check_actions(a.astype(np.int64, copy=False), self._pending, self._masks, self._actions, illegal):
            bad = np.flatnonzero(illegal)
            shown = ", ".join(f"env {i}: action {int(a[i])} (legal: {np.flatnonzero(self._masks[i]).tolist()})"
                              for i in bad[:3])
            more = f" and {bad.size - 3} more" if bad.size > 3 else ""
            raise ValueError(f"{self.game.id}: illegal actions in {bad.size} env(s): {shown}{more}")
        return self._actions

    def _checked_state(self, state) -> np.ndarray:
        raw = np.asarray(state)
        if raw.dtype.kind not in "iu" or raw.shape != (self.game.state_size,):
            raise ValueError(f"{self.game.id}: a state is an integer array of shape ({self.game.state_size},), "
                             f"got {raw.dtype} of shape {raw.shape}")
        s = raw.astype(np.int32)
        if not np.array_equal(s, raw):
            raise ValueError(f"{self.game.id}: state entries must fit in int32")
        reason = self.game.validate(self.game.p, s)
        if reason:
            raise ValueError(f"{self.game.id}: not a legal position: {reason}")
        return s


def _checked_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be an integer, got {seed!r}")
    return int(seed) & 0xFFFFFFFFFFFFFFFF

