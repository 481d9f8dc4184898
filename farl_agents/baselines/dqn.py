"""DQN with legal-action masking: a small subclass of Stable-Baselines3's DQN.

SB3's DQN knows nothing of illegal actions. Instead of a reward penalty for
them (which teaches the network the rules and wastes samples), farl masks
them, using the legal-action mask that :func:`farl_agents.baselines.envs.encode`
puts in the **last n_actions entries of every observation**:

* **greedy choice** (:meth:`MaskedQNetwork._predict`): the q-values of
  illegal actions are set to ``-inf`` before the argmax, so the greedy
  action is always legal — also with untrained, random weights;
* **exploration** (:meth:`MaskedDQN.predict`, :meth:`MaskedDQN._sample_action`):
  the ε-random action and the warm-up actions before ``learning_starts``
  are drawn uniformly among the *legal* actions, not from the whole action
  space;
* **TD target**: ``forward`` returns :data:`ILLEGAL_Q` (a large finite
  negative number) for illegal actions, so ``max_a' Q_target(s', a')`` in
  SB3's unchanged ``train`` runs over the legal actions of ``s'`` only. At a
  terminal ``s'`` (empty mask) that max is ``ILLEGAL_Q``, multiplied by
  ``1 - done = 0`` — finite, so the product is exactly 0 (``-inf`` would give
  NaN).

Loading: :func:`farl_agents.baselines.load_baseline` (rebuilt from farl.json, weights only; never SB3's
``load``, which unpickles).
"""
from __future__ import annotations

import numpy as np
import torch as th
from stable_baselines3 import DQN
from stable_baselines3.dqn.policies import DQNPolicy, QNetwork

ILLEGAL_Q = -1e9
"""What ``forward`` returns for illegal actions (finite: see the module docstring)."""


def _legal(obs: th.Tensor, n_actions: int) -> th.Tensor:
    return obs.reshape(obs.shape[0], -1)[:, -n_actions:] > 0.5


class MaskedQNetwork(QNetwork):
    """Q-network whose outputs for illegal actions (mask in the observation's tail) are masked."""

    def forward(self, obs: th.Tensor) -> th.Tensor:
        q = self.q_net(self.extract_features(obs, self.features_extractor))
        return q.masked_fill(~_legal(obs, q.shape[1]), ILLEGAL_Q)

    def _predict(self, observation: th.Tensor, deterministic: bool = True) -> th.Tensor:
        q = self(observation)
        q = q.masked_fill(~_legal(observation, q.shape[1]), float("-inf"))
        return q.argmax(dim=1).reshape(-1)


class MaskedDQNPolicy(DQNPolicy):
    """``DQNPolicy`` with :class:`MaskedQNetwork` as online and target network."""

    def make_q_net(self) -> MaskedQNetwork:
        net_args = self._update_features_extractor(self.net_args, features_extractor=None)
        return MaskedQNetwork(**net_args).to(self.device)


def random_legal(obs: np.ndarray, n_actions: int, rng=np.random) -> np.ndarray:
    """One uniformly random legal action per row of ``obs`` (the mask is its tail)."""
    obs = np.asarray(obs).reshape(-1, np.asarray(obs).shape[-1])
    out = np.zeros(obs.shape[0], dtype=np.int64)
    for i, row in enumerate(obs):
        legal = np.flatnonzero(row[-n_actions:] > 0.5)
        out[i] = legal[rng.randint(len(legal))] if len(legal) else 0
    return out


class MaskedDQN(DQN):
    """SB3 ``DQN`` that explores and acts among legal actions only (see the module docstring).

    ``"MlpPolicy"`` means :class:`MaskedDQNPolicy`. A ``budget`` attribute
    (set by :func:`farl_agents.baselines.train_baseline`) may replace the
    timestep-based training progress (ε schedule) by a step-or-time one.
    """

    policy_aliases = {"MlpPolicy": MaskedDQNPolicy}
    budget = None

    def predict(self, observation, state=None, episode_start=None, deterministic: bool = False):
        n = int(self.action_space.n)
        if not deterministic and np.random.rand() < self.exploration_rate:
            action = random_legal(observation, n)
            if np.asarray(observation).ndim == 1:
                action = action[0]
            return action, state
        return self.policy.predict(observation, state, episode_start, deterministic)

    def _sample_action(self, learning_starts: int, action_noise=None, n_envs: int = 1):
        if self.num_timesteps < learning_starts:
            action = random_legal(self._last_obs, int(self.action_space.n))
        else:
            action, _ = self.predict(self._last_obs, deterministic=False)
        return action, action

    def _excluded_save_params(self) -> list[str]:
        return [*super()._excluded_save_params(), "budget"]

    def _update_current_progress_remaining(self, num_timesteps: int, total_timesteps: int) -> None:
        if self.budget is None:
            super()._update_current_progress_remaining(num_timesteps, total_timesteps)
        else:
            self._current_progress_remaining = self.budget.remaining(num_timesteps)
