"""A farl Gymnasium vector env as Stable-Baselines3's ``VecEnv``, for sb3-contrib's MaskablePPO.

SB3 takes its own ``VecEnv`` class, not a Gymnasium ``VectorEnv``, and expects *same-step* autoreset: when an
episode ends, ``step_wait`` returns the next episode's first observation and puts the final one in
``infos[i]["terminal_observation"]``. :class:`SB3VecEnv` does that on top of the next-step env by restarting the
ended envs right away (``restart_ended``). ``env_method("action_masks")`` gives each env's mask, which is how
MaskablePPO reads them::

    import gymnasium, farl_envs
    from farl_envs.vector.sb3 import SB3VecEnv
    from sb3_contrib import MaskablePPO

    envs = SB3VecEnv(gymnasium.make_vec("farl/TicTacToe-v0", num_envs=16, vectorization_mode="vector_entry_point"))
    MaskablePPO("MlpPolicy", envs, n_steps=64).learn(2_000)

This module imports ``stable_baselines3`` (``pip install "farl-rl[baselines]"``); ``farl_envs.vector`` itself never
does.
"""
from __future__ import annotations

import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from farl_envs.vector.gym import SeatVectorEnv, SelfPlayVectorEnv


class SB3VecEnv(VecEnv):
    """Stable-Baselines3's ``VecEnv`` over a :class:`~farl_envs.vector.gym.SeatVectorEnv` or
    :class:`~farl_envs.vector.gym.SelfPlayVectorEnv` (as ``gymnasium.make_vec`` returns them)."""

    def __init__(self, env):
        inner = getattr(env, "unwrapped", env)
        if not isinstance(inner, (SeatVectorEnv, SelfPlayVectorEnv)):
            raise TypeError(f"SB3VecEnv adapts farl's vector envs (farl_envs.vector.gym), got {type(env).__name__}")
        self.env = inner
        super().__init__(inner.num_envs, inner.single_observation_space, inner.single_action_space)
        self._actions = None

    def reset(self) -> np.ndarray:
        seed = self._seeds[0] if self._seeds and self._seeds[0] is not None else None
        obs, _ = self.env.reset(seed=seed)
        self._reset_seeds()
        return obs

    def step_async(self, actions) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs).astype(np.int64)

    def step_wait(self):
        obs, rewards, terminated, truncated, info = self.env.step(self._actions)
        dones = terminated | truncated
        infos = [{} for _ in range(self.num_envs)]
        if dones.any():
            for i in np.flatnonzero(dones):
                infos[i]["terminal_observation"] = obs[i].copy()
                infos[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
            obs = self.env.restart_ended()
        return obs, rewards.astype(np.float32), dones, infos

    def action_masks(self) -> np.ndarray:
        return self.env.action_masks()

    def close(self) -> None:
        self.env.close()

    def get_attr(self, attr_name: str, indices=None) -> list:
        return [getattr(self.env, attr_name)] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value, indices=None) -> None:
        setattr(self.env, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list:
        if method_name == "action_masks":
            return list(self.env.action_masks()[self._indices(indices)])
        result = getattr(self.env, method_name)(*method_args, **method_kwargs)
        return [result] * len(self._indices(indices))

    def env_is_wrapped(self, wrapper_class, indices=None) -> list:
        return [False] * len(self._indices(indices))

    def _indices(self, indices) -> list:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)
