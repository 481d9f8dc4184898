"""Gymnasium single-agent view of any farl game, for Stable-Baselines3 and friends.

The learner plays one seat; the other seats are played by opponent policies
inside ``step``. Every game has a registered id (``farl_envs.gymnasium_id(game)``;
``farl_envs/__init__.py`` registers them), e.g. ``farl/TicTacToe-v0``,
``farl/ConnectFour-v0``, ``farl/Hex-v0``, ``farl/2048-v0``, ``farl/Nim3P-v0``::

    import gymnasium, farl_envs
    env = gymnasium.make("farl/ConnectFour-v0", seat="alternate", cols=8)

* observation: the AEC observation planes of the learner's seat;
* ``action_masks()`` (what sb3-contrib's MaskablePPO asks for) and
  ``info["action_mask"]`` give the legal actions;
* reward: the learner's reward deltas summed over its own move and the
  opponents' replies;
* an **illegal action ends the episode as a loss** for the learner (reward =
  the game's lowest reward, ``info["illegal_action"] = True``), so checkers
  and untrained policies that send arbitrary actions run cleanly.
"""
from __future__ import annotations

from typing import Callable, Sequence

import gymnasium
import numpy as np
from gymnasium import spaces

import farl_envs
from farl_envs.core.aec import FarlAECEnv, integral_action
from farl_envs.core.render import HumanWindow, render_rgb
from farl_envs.core.spec import TERMINAL

Policy = Callable[[FarlAECEnv], int]
"""An opponent: called with the raw AEC env when it is its turn, returns a legal action."""

SEAT_MODES = ("alternate", "random")


class SingleAgentEnv(gymnasium.Env):
    """One seat of a farl game as a Gymnasium environment.

    Args:
        game: game name, e.g. ``"connect_four"`` (see :func:`farl_envs.list_games`).
        seat: the learner's seat: an int, ``"alternate"`` (seat 0, 1, ...
            on successive episodes) or ``"random"``.
        opponents: ``None`` (uniform random moves), one policy for every
            other seat, or a sequence with one policy per other seat in
            seat order. A policy is called as ``policy(raw_env)``.
        render_mode: as for the AEC env.
        **params: the game's parameters, e.g. ``cols=8``.
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 2}

    def __init__(self, game: str, seat: int | str = 0, opponents: Policy | Sequence[Policy] | None = None,
                 render_mode: str | None = None, **params):
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        # the wrapper draws (once per step of the learner, opponents' moves included); the AEC env inside never does
        self.aec: FarlAECEnv = farl_envs.make_raw(game, **params)
        g = self.aec.game
        self.render_mode = render_mode
        self._window = HumanWindow(g.id, self.metadata["render_fps"]) if render_mode == "human" else None
        n = g.n_players
        if isinstance(seat, str):
            if seat not in SEAT_MODES:
                raise ValueError(f"seat must be an int in 0..{n - 1} or one of {SEAT_MODES}, got {seat!r}")
        elif isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < n:
            raise ValueError(f"seat must be an int in 0..{n - 1} or one of {SEAT_MODES}, got {seat!r}")
        self.seat_mode = seat
        if opponents is None or callable(opponents):
            self._opponents = [opponents] * (n - 1)
        else:
            self._opponents = list(opponents)
            if len(self._opponents) != n - 1 or not all(o is None or callable(o) for o in self._opponents):
                raise ValueError(f"opponents must be None, a callable, or {n - 1} callables (one per other seat)")
        self.observation_space = spaces.Box(0, g.obs_high, g.obs_shape, dtype=np.int8)
        self.action_space = spaces.Discrete(g.n_actions)
        self.seat = 0 if isinstance(seat, str) else int(seat)
        self._episodes = 0
        self._loss_reward = float(g.reward_range[0])
        self._done = None  # None until the first reset()

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:  # a seeded reset restarts everything, the seat cycle included
            self.action_space.seed(seed)
            self._episodes = 0
        n = self.aec.game.n_players
        if self.seat_mode == "alternate":
            self.seat = self._episodes % n
        elif self.seat_mode == "random":
            self.seat = int(self.np_random.integers(n))
        self._episodes += 1
        self.aec.reset(seed=None if seed is None else int(seed), options=options)
        self._done = False
        self._play_opponents()
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info()

    def _check_reset(self) -> None:
        if self._done is None:
            raise RuntimeError("call reset() first: the environment has no game yet")

    def step(self, action):
        self._check_reset()
        if self._done:
            raise RuntimeError("the episode is over: call reset() first")
        me = self.aec.possible_agents[self.seat]
        legal = self.aec.action_mask()
        a = integral_action(action)
        if a is None or not 0 <= a < legal.shape[0] or not legal[a]:
            self._done = True
            info = self._info()
            info["illegal_action"] = True
            return self._observation(), self._loss_reward, True, False, info
        self.aec.step(a)
        reward = self.aec.rewards[me]
        reward += self._play_opponents()
        if self.render_mode == "human":  # Gymnasium's convention: a human window follows every step by itself
            self.render()
        return self._observation(), float(reward), self._done, False, self._info()

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the learner's legal actions (all False when the episode is over).

        Through Gymnasium's wrappers (``gymnasium.make`` adds them) reach it with
        ``env.get_wrapper_attr("action_masks")()``, as sb3-contrib does.
        """
        self._check_reset()
        if self._done:
            return np.zeros(self.action_space.n, dtype=bool)
        return self.aec.action_mask().astype(bool)

    def render(self):
        """Render in this wrapper's ``render_mode`` (``None`` renders nothing)."""
        if self.render_mode is None:
            return None
        self._check_reset()
        game, state = self.aec.game, self.aec.state_array
        if self.render_mode == "rgb_array":
            return render_rgb(game, state)
        if self.render_mode == "human":
            self._window.show(render_rgb(game, state))
            return None
        return game.render_text(game.p, state)

    def close(self):
        if self._window is not None:
            self._window.close()

    # ---------------------------------------------------------------- helpers
    def _play_opponents(self) -> float:
        """Let the other seats move until it is the learner's turn; return the learner's reward meanwhile."""
        aec = self.aec
        me = aec.possible_agents[self.seat]
        total = 0.0
        while not self._learner_done() and aec.agent_selection != me:
            if aec.terminations[aec.agent_selection]:  # an opponent that dropped out takes its dead step
                aec.step(None)
                continue
            seat = aec.possible_agents.index(aec.agent_selection)
            policy = self._opponents[seat if seat < self.seat else seat - 1]
            if policy is None:
                action = int(self.np_random.choice(np.flatnonzero(aec.action_mask())))
            else:
                action = policy(aec)
            aec.step(action)
            total += aec.rewards[me]
        self._done = self._learner_done()
        return total

    def _learner_done(self) -> bool:
        """The game is over, or the learner's seat dropped out of it (``GameSpec.eliminated``)."""
        return bool(self.aec.state_array[TERMINAL]) or self.aec.terminations[self.aec.possible_agents[self.seat]]

    def _observation(self) -> np.ndarray:
        return self.aec.observe(self.aec.possible_agents[self.seat])["observation"]

    def _info(self) -> dict:
        return {"action_mask": self.action_masks(), "seat": self.seat}
