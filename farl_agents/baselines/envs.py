"""The Gymnasium side of the baselines: what the networks see, and the opponents inside ``step``.

Nothing here imports torch; :mod:`farl_agents.baselines.players` adds the
opponents that query a network.

Observation fed to the networks (``float32[obs_dim]``, :func:`encode`)::

    [ the game's observation planes, flattened      | the legal-action mask ]
      (0/1 planes as they are; games whose entries     (1.0 legal, 0.0 not;
       go above 1 — 2048's exponents, Nim's heaps —    the last n_actions
       one-hot over 0..obs_high)                       entries)

The mask rides in the observation so that DQN's policy can mask its
q-values (see :mod:`farl_agents.baselines.dqn`) and so that the replay
buffer keeps it; MaskablePPO also gets it from ``action_masks()``. The
planes are the mover's view (the wrapper's ``observe`` kernel), so the same
network plays every seat.
"""
from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium import spaces

import farl_envs
from farl_agents.players import check_player
from farl_envs.core.rng import make_rng
from farl_envs.core.spec import TO_MOVE, GameSpec

REWARD_SCALE = {"game2048": 0.01}
"""Rewards are multiplied by this during training (2048's merge scores reach thousands)."""


def obs_dim(game: GameSpec) -> int:
    """Length of :func:`encode`'s output for ``game``."""
    cells = int(np.prod(game.obs_shape))
    per = 1 if game.obs_high <= 1 else game.obs_high + 1
    return cells * per + game.n_actions


def encode(game: GameSpec, planes: np.ndarray, mask: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """The network input for observation ``planes`` (int8, ``obs_shape``) and legal ``mask`` (``n_actions``).

    Returns ``float32[obs_dim(game)]`` (written into ``out`` when given).
    """
    if out is None:
        out = np.zeros(obs_dim(game), dtype=np.float32)
    flat = np.asarray(planes).reshape(-1)
    n = game.n_actions
    if game.obs_high <= 1:
        out[: flat.shape[0]] = flat
    else:
        per = game.obs_high + 1
        out[:-n] = 0.0
        out[np.arange(flat.shape[0]) * per + flat.astype(np.int64)] = 1.0
    out[-n:] = mask
    return out


def observe_planes(game: GameSpec, state: np.ndarray, seat: int | None = None) -> np.ndarray:
    """The int8 observation planes of kernel ``state`` for ``seat`` (default: the mover), as the AEC env and
    the registered ``farl/<Game>-v0`` ids show them."""
    seat = int(state[TO_MOVE]) if seat is None else int(seat)
    planes = np.zeros(game.obs_shape, dtype=np.int8)
    game.observe(game.p, state, seat, planes)
    return planes


def observe_state(game: GameSpec, state: np.ndarray, seat: int | None = None):
    """``(network input, int8 legal mask)`` of kernel ``state`` for ``seat`` (default: the mover)."""
    mask = np.zeros(game.n_actions, dtype=np.int8)
    game.legal_actions(game.p, state, mask)
    return encode(game, observe_planes(game, state, seat), mask), mask


class BaselineEnv(gymnasium.Wrapper):
    """A registered farl Gymnasium env (``farl/<Game>-v0``) with :func:`encode`'s observations.

    Rewards are multiplied by ``reward_scale`` (default :data:`REWARD_SCALE`
    of the game, else 1); ``action_masks()`` is passed through for
    MaskablePPO. Build it with :func:`make_env`.
    """

    def __init__(self, env: gymnasium.Env, reward_scale: float | None = None):
        super().__init__(env)
        self.game: GameSpec = env.unwrapped.aec.game
        self.reward_scale = float(REWARD_SCALE.get(self.game.name, 1.0) if reward_scale is None else reward_scale)
        self.observation_space = spaces.Box(0.0, 1.0, (obs_dim(self.game),), dtype=np.float32)

    def reset(self, *, seed=None, options=None):
        planes, info = self.env.reset(seed=seed, options=options)
        return encode(self.game, planes, info["action_mask"]), info

    def step(self, action):
        planes, reward, terminated, truncated, info = self.env.step(action)
        return (encode(self.game, planes, info["action_mask"]), float(reward) * self.reward_scale,
                terminated, truncated, info)

    def action_masks(self) -> np.ndarray:
        return self.env.unwrapped.action_masks()


def make_env(game: str, seat="alternate", opponents=None, reward_scale: float | None = None,
             **params) -> BaselineEnv:
    """``gymnasium.make("farl/<Game>-v0", seat=..., opponents=..., **params)`` wrapped in :class:`BaselineEnv`.

    ``opponents`` are policies ``fn(raw_aec_env) -> action`` (``None``:
    uniform random), see :class:`farl_envs.gym_env.SingleAgentEnv`.
    """
    spec = farl_envs.game_spec(game, **params)
    if spec.n_players == 1:
        seat, opponents = 0, None
    env = gymnasium.make(farl_envs.gymnasium_id(game), seat=seat, opponents=opponents, **params)
    return BaselineEnv(env, reward_scale)


class PlayerOpponent:
    """A harness player (``act(game, state, rng)``, e.g. ``make_opponent("mcts50", game)``) as a wrapper opponent.

    Called with the raw AEC env on the opponent's turn; its random numbers
    come from its own farl generator seeded with ``seed``.
    """

    def __init__(self, player, seed: int = 0):
        check_player(player, "opponent")
        self.player = player
        self.name = player.name
        self.rng = make_rng(seed)

    def __call__(self, aec) -> int:
        return int(self.player.act(aec.game, aec.get_state(), self.rng))

    def __repr__(self) -> str:
        return f"PlayerOpponent({self.name!r})"
