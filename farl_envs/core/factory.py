"""Builds the ``raw_env`` class and ``env()`` function of a versioned env module."""
from __future__ import annotations

from typing import Callable

from gymnasium.utils import EzPickle
from pettingzoo.utils import wrappers

from farl_envs.core.aec import FarlAECEnv


def _forwarded(name: str) -> property:
    def get(self):
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self.env, name)

    return property(get, doc=f"The wrapped env's ``{name}`` (only after reset).")


class FastOrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order-enforcing wrapper with direct paths for the hot calls.

    Same checks as ``OrderEnforcingWrapper``; the attributes read every turn
    (``agent_selection``, ``rewards`` ...) and ``last()`` go straight to the
    wrapped env instead of through two ``__getattr__`` hops, which otherwise
    cost more than a whole farl step.
    """

    agent_selection = _forwarded("agent_selection")
    agents = _forwarded("agents")
    rewards = _forwarded("rewards")
    terminations = _forwarded("terminations")
    truncations = _forwarded("truncations")
    infos = _forwarded("infos")
    _cumulative_rewards = _forwarded("_cumulative_rewards")

    def last(self, observe: bool = True):
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)


def env_classes(make_spec: Callable, env_name: str, module: str, doc: str):
    """Return ``(raw_env, env)`` for the game whose spec ``make_spec(**params)`` builds.

    ``raw_env(render_mode=None, illegal_action="raise", **params)`` is the bare
    environment (picklable; the afterstate extension lives here) and
    ``env(**kwargs)`` wraps it in PettingZoo's order-enforcing wrapper, as the
    classic envs do. ``env(...).unwrapped`` reaches the raw env.
    """

    class raw_env(FarlAECEnv, EzPickle):  # noqa: N801 - PettingZoo's naming
        metadata = {**FarlAECEnv.metadata, "name": env_name}

        def __init__(self, render_mode: str | None = None, illegal_action: str = "raise", **params):
            EzPickle.__init__(self, render_mode=render_mode, illegal_action=illegal_action, **params)
            FarlAECEnv.__init__(self, make_spec(**params), render_mode=render_mode, illegal_action=illegal_action)

    raw_env.__module__ = module
    raw_env.__qualname__ = "raw_env"
    raw_env.__doc__ = doc

    def env(**kwargs):
        return FastOrderEnforcingWrapper(raw_env(**kwargs))

    env.__module__ = module
    env.__doc__ = f"The {env_name} environment with PettingZoo's order-enforcing wrapper.\n\n{doc}"
    return raw_env, env
