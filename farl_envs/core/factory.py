"""Builds the ``raw_env`` class and ``env()`` function of a versioned env module."""
from __future__ import annotations

from typing import Callable

from gymnasium.utils import EzPickle
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterator

from farl_envs.core.aec import FarlAECEnv

LIVE_KEY = "_farl_live_game"
REBUILT = ("game", "_ezpickle_args", "_ezpickle_kwargs", "observation_spaces", "action_spaces", "_window")
"""Attributes the constructor makes again (the spec with its compiled kernels, the spaces, the human window); all
others are the game in progress and travel with a copy or a pickle."""


def _forwarded(name: str) -> property:
    def get(self):
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self.env, name)

    return property(get, doc=f"The wrapped env's ``{name}`` (only after reset).")


class FastOrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order-enforcing wrapper with direct paths for the hot calls.

    Same checks as ``OrderEnforcingWrapper`` (calls before ``reset`` raise
    ``RuntimeError``, farl's policy); the attributes read every turn
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
        self._require_reset("last")
        return self.env.last(observe)

    # farl's error policy (core/aec.py): a call before reset is a RuntimeError, not PettingZoo's AssertionError;
    # attributes read before reset stay AttributeErrors, so hasattr() keeps working
    # step and observe do OrderEnforcingWrapper's work here and call the env directly (two frames fewer per
    # call: on the small games a frame is a few per cent of a whole step)
    def step(self, action):
        self._require_reset("step")
        self._has_updated = True
        if not self.env.agents:
            EnvLogger.warn_step_after_terminated_truncated()
            return
        self.env.step(action)

    def observe(self, agent):
        self._require_reset("observe")
        return self.env.observe(agent)

    def render(self):
        self._require_reset("render")
        return super().render()

    def agent_iter(self, max_iter: int = 2**63):
        self._require_reset("agent_iter")
        return _FastIterator(self, max_iter)

    def _require_reset(self, call: str) -> None:
        if not self._has_reset:
            raise RuntimeError(f"call reset() first: {call}() needs a game in progress")


class _FastIterator(AECOrderEnforcingIterator):
    """PettingZoo's order-enforcing turn iterator, reading the wrapped env's agents directly (the same checks)."""

    def __next__(self):
        inner = self.env.env
        if not inner.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        if not self.env._has_updated:
            raise AssertionError("need to call step() or reset() in a loop over `agent_iter`")
        self.env._has_updated = False
        return inner.agent_selection


def check_params(make_spec: Callable, game: str, params: dict) -> None:
    """``TypeError`` naming the game's parameters (with defaults) and the nearest one, for a parameter it lacks.

    ``make("connect_four", colls=8)`` would otherwise fail inside ``make_spec``
    with Python's bare "unexpected keyword argument"; the ranges of the
    values are checked by the game's ``make_spec`` itself (``ValueError``).
    """
    import difflib
    import inspect

    signature = inspect.signature(make_spec).parameters.values()
    if any(p.kind == p.VAR_KEYWORD for p in signature):
        return  # a make_spec(**params) names what it refuses itself (Santorini: it takes no parameters)
    known = {p.name: p.default for p in signature if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    unknown = sorted(set(params) - set(known))
    if not unknown:
        return
    defaults = make_spec().params  # the values a default game uses (a signature's None may mean "derived")
    have = ", ".join(f"{k}={defaults.get(k, v)!r}" for k, v in known.items()) or "none"
    near = difflib.get_close_matches(unknown[0], list(known), n=1)
    hint = f" (did you mean {near[0]}?)" if near else ""
    raise TypeError(f"{game} has no parameter {', '.join(unknown)}{hint}; its parameters, with their defaults: "
                    f"{have}")


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
            check_params(make_spec, env_name, params)
            EzPickle.__init__(self, render_mode=render_mode, illegal_action=illegal_action, **params)
            FarlAECEnv.__init__(self, make_spec(**params), render_mode=render_mode, illegal_action=illegal_action)

        def __getstate__(self):
            """The constructor's arguments (EzPickle) and the game in progress: a copy or an unpickled env
            continues the game, it is not a fresh env that was never reset."""
            state = EzPickle.__getstate__(self)
            if self._state is not None:
                state[LIVE_KEY] = {k: v for k, v in self.__dict__.items() if k not in REBUILT}
            return state

        def __setstate__(self, state):
            state = dict(state)
            live = state.pop(LIVE_KEY, None)
            EzPickle.__setstate__(self, state)
            if live is not None:
                self.__dict__.update(live)

    raw_env.__module__ = module
    raw_env.__qualname__ = "raw_env"
    raw_env.__doc__ = doc

    def env(**kwargs):
        return FastOrderEnforcingWrapper(raw_env(**kwargs))

    env.__module__ = module
    env.__doc__ = f"The {env_name} environment with PettingZoo's order-enforcing wrapper.\n\n{doc}"
    return raw_env, env
