"""Gymnasium ``VectorEnv`` s on :mod:`farl_envs.vector`: one seat against opponents, or self-play.

Every farl Gymnasium id has this module's :func:`vector_env` as its vector entry point::

    import gymnasium, farl_envs
    envs = gymnasium.make_vec("farl/ConnectFour-v0", num_envs=256, vectorization_mode="vector_entry_point")
    obs, info = envs.reset(seed=0)
    obs, rewards, terminated, truncated, info = envs.step(actions)   # actions: int[256]
    envs.action_masks()                                              # bool[256, 7], for masked PPO

:class:`SeatVectorEnv` is :class:`~farl_envs.gym_env.SingleAgentEnv` batched: the learner plays ``seat`` (an int,
or ``"alternate"``: env ``i``'s episode ``k`` at seat ``(i + k) % n_players``), the other seats are played inside
``step``: uniformly random opponents (the default, ``None``) in the same compiled loop as the learner's moves,
harness players (``act(game, state, rng)``) or opponent names (``make_opponent``'s) from Python, one call per
opponent move. The observation is the learner's seat's; the reward the learner's deltas summed over its move and
the replies; an illegal action ends that env's episode as a loss (the game's lowest reward,
``info["illegal_action"]``), so sampled actions (``action_space.sample()``) run cleanly. A game ended by a move cap
(``GameSpec.truncated``) is ``truncated``. A learner that drops out of a three-player game (Sim, Yavalath) is
not stopped early as in the single env: its opponents play the game to its end within the step (its reward
deltas after dropping out are 0 either way).

:class:`SelfPlayVectorEnv` (``self_play=True``) lets the learner play every seat, for AlphaZero-style code: the
observation is the player to move's (``info["player"]``), the reward the mover's delta of its own move, and
``info["rewards"]`` every player's deltas (``float64[num_envs, n_players]``).

Both autoreset in Gymnasium's next-step mode (``metadata["autoreset_mode"]``; stated in :mod:`farl_envs.vector`):
the step after an episode's end restarts that env and ignores its action. Random opponents and chance draw from
counter-based streams of ``reset``'s seed, so a seeded reset repeats every game. ``farl_envs.vector.sb3`` adapts
either to Stable-Baselines3's ``VecEnv`` (sb3-contrib's MaskablePPO).
"""
from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from farl_envs.core.rng import make_rng, rng_choice_mask
from farl_envs.core.spec import TERMINAL, TO_MOVE
from farl_envs.gym_env import _is_player, _opponents
from farl_envs.vector import _loops
from farl_envs.vector.game import VectorGame

SEAT_MODES = ("alternate",)


class _Base(gymnasium.vector.VectorEnv):
    """What both forms share: the batch, the spaces, seeding, the action checks."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, game: str, num_envs: int, render_mode: str | None, params: dict):
        if render_mode is not None:
            raise ValueError(f"farl's vector envs do not render (render_mode=None), got {render_mode!r}")
        self.games = VectorGame(game, num_envs, seed=0, copy=False, **params)
        g = self.games.game
        self.game = g
        self.num_envs = self.games.num_envs
        self.render_mode = None
        self.single_observation_space = spaces.Box(0, g.obs_high, g.obs_shape, dtype=np.int8)
        self.single_action_space = spaces.Discrete(g.n_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._rows = np.arange(self.num_envs)
        self._loss = float(g.reward_range[0])
        self._seeded = False

    def _seed(self, seed) -> int:
        if seed is None:
            if self._seeded:
                return None
            seed = int(np.random.SeedSequence().generate_state(1, dtype=np.uint64)[0])
        elif isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise ValueError(f"seed must be one int (env i draws from its own stream of it) or None, got {seed!r}")
        self._seeded = True
        self.action_space.seed(int(seed) & 0x7FFFFFFF)
        self.observation_space.seed(int(seed) & 0x7FFFFFFF)
        return int(seed)

    def _checked(self, actions):
        """``(moves, illegal)``: the actions as ``int64[num_envs]`` with -1 where the env does not move, and the
        envs whose action is illegal (``ValueError`` only for a wrong shape or type)."""
        g = self.games
        if not g._started:
            raise RuntimeError("call reset() first: the envs have no games yet")
        a = np.asarray(actions)
        if a.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},) (one per env), got shape {a.shape}")
        if a.dtype.kind not in "iu":
            raise ValueError(f"actions must be integers, got dtype {a.dtype}")
        plays = ~g._pending
        inside = (a >= 0) & (a < g.n_actions)
        legal = inside & (g._masks[self._rows, np.where(inside, a, 0)] != 0)
        return np.where(plays & legal, a, -1).astype(np.int64), plays & ~legal

    def _step_batch(self, moves: np.ndarray) -> np.ndarray:
        """Play ``moves`` (restarting the envs awaiting it); return which envs were restarted."""
        g = self.games
        restarted = g._pending.copy()
        g._actions[:] = moves
        _loops.step_all(g._kernels, g.game.p, g._states, g._actions, g._pending, np.uint64(g.seed), g._episodes,
                        g._moves, g._rewards, g._returns, g._ended, g._obs, g._flat_obs(), g._masks, g._players)
        return restarted

    def _truncated(self, ended: np.ndarray) -> np.ndarray:
        out = np.zeros(self.num_envs, dtype=bool)
        if self.game.truncated is not None:
            for i in np.flatnonzero(ended & (self.games._states[:, TERMINAL] != 0)):
                out[i] = bool(self.game.truncated(self.game.p, self.games._states[i]))
        return out

    def action_masks(self) -> np.ndarray:
        """``bool[num_envs, n_actions]``: the learner's legal actions in each env (all False while an env awaits its
        restart); sb3-contrib's MaskablePPO and masked PPO scripts read it."""
        return self.games._masks.astype(bool)

    def close_extras(self, **kwargs):
        pass


class SeatVectorEnv(_Base):
    """One seat of ``num_envs`` games of ``game`` against opponents (see the module docstring).

    Args:
        game: a farl game name (``"connect_four"``).
        num_envs: how many games.
        seat: the learner's seat, an int or ``"alternate"``.
        opponents: one for every other seat or a list with one per other seat in seat order: ``None``
            (uniform random, compiled), a harness player or an opponent name. Policies ``fn(raw_env)`` need the
            AEC env: use :class:`~farl_envs.gym_env.SingleAgentEnv` for them.
        **params: the game's parameters.
    """

    def __init__(self, game: str, num_envs: int = 1, seat: int | str = 0, opponents=None,
                 render_mode: str | None = None, **params):
        super().__init__(game, num_envs, render_mode, params)
        n = self.game.n_players
        if isinstance(seat, str):
            if seat not in SEAT_MODES:
                raise ValueError(f"seat must be an int in 0..{n - 1} or one of {SEAT_MODES}, got {seat!r}")
        elif isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < n:
            raise ValueError(f"seat must be an int in 0..{n - 1} or one of {SEAT_MODES}, got {seat!r}")
        self.seat_mode = seat
        self.opponents = _opponents(self.game, opponents)
        for o in self.opponents:
            if not (o is None or _is_player(o)):
                raise ValueError("a vector env's opponents are None (random), harness players or opponent names; "
                                 "a policy fn(raw_env) needs the AEC env: use farl_envs.gym_env.SingleAgentEnv")
        self._all_random = all(o is None for o in self.opponents)
        self._seats = np.zeros(self.num_envs, dtype=np.int64)
        self._scratch = np.zeros(self.game.n_actions, dtype=np.int8)
        self._player_rng = make_rng(0)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start a game in every env (``seed``: one int for every env's streams; ``None`` the next games)."""
        seed = self._seed(seed)
        g = self.games
        g.reset(seed=seed)
        if seed is not None:
            self._player_rng = make_rng(seed ^ 0x5EA7)
        for o in {id(o): o for o in self.opponents if o is not None}.values():
            if callable(getattr(o, "reset", None)):
                o.reset()
        self._new_seats(np.ones(self.num_envs, dtype=bool))
        g._rewards[:] = 0.0
        self._replies()
        self._show()
        return g._obs.copy(), self._info(np.zeros(self.num_envs, dtype=bool), np.zeros(self.num_envs, dtype=bool))

    def step(self, actions):
        """The learner's ``actions[i]`` in env ``i``, then the opponents' replies; Gymnasium's 5-tuple."""
        moves, illegal = self._checked(actions)
        g = self.games
        restarted = self._step_batch(moves)
        self._new_seats(restarted)
        self._replies()
        g._pending |= illegal
        ended = g._ended | illegal
        reward = g._rewards[self._rows, self._seats].copy()
        reward[illegal] = self._loss
        truncated = self._truncated(ended & ~illegal)
        self._show()
        g._masks[g._pending] = 0
        info = self._info(restarted, illegal)
        if ended.any():
            info["final_obs"], info["_final_obs"] = g._obs.copy(), ended.copy()
        return g._obs.copy(), reward, ended & ~truncated, truncated, info

    def restart_ended(self) -> np.ndarray:
        """Restart now every env whose episode ended at the last step (instead of at the next ``step``) and
        return the observations: for adapters to same-step autoreset (``farl_envs.vector.sb3``)."""
        g = self.games
        restarted = self._step_batch(np.full(self.num_envs, -1, dtype=np.int64))
        self._new_seats(restarted)
        self._replies()
        self._show()
        g._masks[g._pending] = 0
        return g._obs.copy()

    # -------------------------------------------------------------- helpers
    def _new_seats(self, which: np.ndarray) -> None:
        if self.seat_mode == "alternate":
            self._seats[which] = (self._rows[which] + self.games._episodes[which]) % self.game.n_players
        else:
            self._seats[which] = self.seat_mode

    def _replies(self) -> None:
        g = self.games
        if self._all_random:
            _loops.random_replies(g._kernels, g.game.p, g._states, self._seats, np.uint64(g.seed), g._episodes,
                                  g._moves, g._rewards, g._returns, g._ended, g._pending, self._scratch)
            return
        game = self.game
        for i in np.flatnonzero((g._states[:, TERMINAL] == 0) & (g._states[:, TO_MOVE] != self._seats)
                                & ~g._pending):
            s = g._states[i]
            while not s[TERMINAL] and s[TO_MOVE] != self._seats[i]:
                seat = int(s[TO_MOVE])
                opponent = self.opponents[seat if seat < self._seats[i] else seat - 1]
                game.legal_actions(game.p, s, self._scratch)
                if opponent is None:
                    a = int(rng_choice_mask(self._player_rng, self._scratch))
                else:
                    a = int(opponent.act(game, s.copy(), self._player_rng))
                    if not (0 <= a < game.n_actions and self._scratch[a]):
                        raise ValueError(f"opponent {opponent!r} chose the illegal action {a} in env {i}")
                _loops.play_move(g._kernels, game.p, g._states, i, a, np.uint64(g.seed), g._episodes, g._moves,
                                 g._rewards, g._returns, g._ended, g._pending)

    def _show(self) -> None:
        g = self.games
        _loops.show_seats(g._kernels, g.game.p, g._states, self._seats, self._rows, g._obs, g._flat_obs(),
                          g._masks, g._players)

    def _info(self, restarted, illegal) -> dict:
        return {"action_mask": self.games._masks.astype(bool), "seat": self._seats.copy(),
                "autoreset": restarted, "illegal_action": illegal}


class SelfPlayVectorEnv(_Base):
    """Every seat of ``num_envs`` games of ``game`` played by the learner (see the module docstring)."""

    def __init__(self, game: str, num_envs: int = 1, render_mode: str | None = None, **params):
        super().__init__(game, num_envs, render_mode, params)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start a game in every env (``seed``: one int for every env's streams; ``None`` the next games)."""
        obs, info = self.games.reset(seed=self._seed(seed))
        return obs.copy(), self._info(info, np.zeros(self.num_envs, dtype=bool))

    def step(self, actions):
        """The player to move's ``actions[i]`` in env ``i``; Gymnasium's 5-tuple with the mover's reward."""
        moves, illegal = self._checked(actions)
        g = self.games
        mover = g._players.copy()
        restarted = self._step_batch(moves)
        g._pending |= illegal
        g._masks[illegal] = 0
        ended = g._ended | illegal
        everyone = g._rewards.copy()
        everyone[illegal] = 0.0
        everyone[illegal, mover[illegal]] = self._loss
        truncated = self._truncated(ended & ~illegal)
        info = self._info({"autoreset": restarted}, illegal)
        info["rewards"] = everyone
        if ended.any():
            info["final_obs"], info["_final_obs"] = g._obs.copy(), ended.copy()
        return g._obs.copy(), everyone[self._rows, mover], ended & ~truncated, truncated, info

    def restart_ended(self) -> np.ndarray:
        """Restart now every env whose episode ended at the last step; return the observations (see
        :meth:`SeatVectorEnv.restart_ended`)."""
        self._step_batch(np.full(self.num_envs, -1, dtype=np.int64))
        return self.games._obs.copy()

    def _info(self, info: dict, illegal) -> dict:
        g = self.games
        return {"action_mask": g._masks.astype(bool), "player": g._players.copy(), "autoreset": info["autoreset"],
                "illegal_action": illegal}


def vector_env(game: str, num_envs: int = 1, self_play: bool = False, **kwargs) -> _Base:
    """The vector entry point of every farl Gymnasium id: a :class:`SeatVectorEnv` (``seat=``, ``opponents=``, the
    game's parameters), or with ``self_play=True`` a :class:`SelfPlayVectorEnv`."""
    if self_play:
        return SelfPlayVectorEnv(game, num_envs, **kwargs)
    return SeatVectorEnv(game, num_envs, **kwargs)
