"""What the searches, and TD's expected targets, need from a game beyond its kernels: its compiled hooks.

Max-N (:mod:`~farl_agents.opponents.maxn`) and Paranoid
(:mod:`~farl_agents.opponents.paranoid`) call three more functions than the
kernel contract of :mod:`farl_envs.core.spec` has, all of them declared by the
game on its :class:`~farl_envs.core.spec.GameSpec`:

``heuristic(p, s, out)``
    the value vector (``float64[n_players]``) of a non-terminal position where
    the search stops, an estimate of each player's *future* reward, strictly
    inside (-0.5, 0.5) so that a reward the search actually sees outweighs it
    (``GameSpec.heuristic``, documented in each game's module). A game
    without one, or a search told not to use it, gets :func:`zero_heuristic`
    ("no reward known yet").
``chance_outcome_count(p, s) -> int`` and ``apply_chance_outcome(p, s, i) -> float``
    the outcomes of the chance event after a non-terminal afterstate ``s``
    (count) and the ``i``-th of them applied in place, returning its
    probability: the compiled counterpart of a game's Python
    ``chance_outcomes``. Games with chance declare both on their spec (2048,
    EinStein würfelt nicht!); games without chance keep the spec's defaults,
    a count of 0. A game with chance that kept the defaults cannot be searched
    (``ValueError``).

The TD learner's expected targets (``LearnerConfig.chance_target``,
:mod:`farl_agents.learners.td_farl`) enumerate the same chance outcomes.

As for the kernels (:mod:`farl_envs.core.kernels`), the loops take these
functions as one :class:`SearchHooks` value whose numba type names them by
``module:function``: the loops are compiled once per game and cached on
disk. Staleness is covered by the :class:`~farl_envs.core.kernels.Kernels`
value passed beside it, whose stamp hashes the modules of the game's kernels
and hooks (:data:`~farl_envs.core.kernels.HOOK_NAMES`) and the loops'
own modules (the searches' ``farl_agents.opponents.search_hooks.SEARCH_LOOPS``).
"""
from __future__ import annotations

import importlib

from numba import njit, types
from numba.extending import NativeValue, models, overload, register_model, typeof_impl, unbox

from farl_envs.core.kernels import HOOK_NAMES, compiled_name
from farl_envs.core.spec import GameSpec, no_chance_outcome_count


@njit(cache=True)
def zero_heuristic(p, s, out):
    """No evaluation: every player's future reward is taken as 0."""
    out[:] = 0.0


def _resolve(name: str):
    module, _, qualname = name.partition(":")
    return getattr(importlib.import_module(module), qualname)


class SearchHooks:
    """A game's search hooks by name (``module:function`` each); see the module docstring."""

    __slots__ = ("names", "_type")

    def __init__(self, names: tuple):
        self.names = tuple(names)
        self._type = None

    def __repr__(self) -> str:
        return f"SearchHooks({', '.join(self.names)})"

    def __eq__(self, other) -> bool:
        return isinstance(other, SearchHooks) and self.names == other.names

    def __hash__(self) -> int:
        return hash(self.names)

    def __getstate__(self):
        return {"names": self.names}

    def __setstate__(self, d):
        self.__init__(d["names"])


class SearchHooksType(types.Type):
    def __init__(self, names: tuple):
        self.names = tuple(names)
        super().__init__(name=f"SearchHooks({','.join(self.names)})")


@typeof_impl.register(SearchHooks)
def _typeof_hooks(val, c):
    if val._type is None:
        val._type = SearchHooksType(val.names)
    return val._type


register_model(SearchHooksType)(models.OpaqueModel)


@unbox(SearchHooksType)
def _unbox_hooks(typ, obj, c):
    return NativeValue(c.context.get_constant_null(typ))


def has_heuristic(game: GameSpec) -> bool:
    """Does ``game`` declare a leaf evaluation (``GameSpec.heuristic``)?"""
    return game.heuristic is not None


def hooks_of(game: GameSpec, heuristic: bool = True) -> SearchHooks:
    """The :class:`SearchHooks` of ``game``; ``heuristic=False`` (or a game without one): the zero vector at the
    depth limit.

    Raises ``ValueError`` for a game with chance that declares no ``chance_outcome_count`` /
    ``apply_chance_outcome``, and for hooks that are not module-level ``@njit`` functions.
    """
    if game.has_chance and game.chance_outcome_count is no_chance_outcome_count:
        raise ValueError(f"{game.id} has chance events but its spec declares no chance_outcome_count / "
                         f"apply_chance_outcome: a search cannot take the expectation over them")
    h = game.heuristic if heuristic and game.heuristic is not None else zero_heuristic
    names = tuple(compiled_name(fn) for fn in (h, game.chance_outcome_count, game.apply_chance_outcome))
    for kind, name in zip(HOOK_NAMES, names):
        if not name:
            raise ValueError(f"{game.id}: the {kind} hook must be a module-level @njit function")
    return SearchHooks(names)


def _hook(hooks, kind: str):
    if isinstance(hooks, SearchHooksType):
        return _resolve(hooks.names[HOOK_NAMES.index(kind)])
    return None


# stubs the search loops call; compiled, numba replaces each by a direct call of the game's function
def heuristic(hooks, p, s, out):
    return _resolve(hooks.names[0])(p, s, out)


def chance_outcome_count(hooks, p, s):
    return _resolve(hooks.names[1])(p, s)


def apply_chance_outcome(hooks, p, s, i):
    return _resolve(hooks.names[2])(p, s, i)


@overload(heuristic)
def _ol_heuristic(hooks, p, s, out):
    fn = _hook(hooks, "heuristic")
    if fn is not None:
        return lambda hooks, p, s, out: fn(p, s, out)


@overload(chance_outcome_count)
def _ol_chance_outcome_count(hooks, p, s):
    fn = _hook(hooks, "chance_outcome_count")
    if fn is not None:
        return lambda hooks, p, s: fn(p, s)


@overload(apply_chance_outcome)
def _ol_apply_chance_outcome(hooks, p, s, i):
    fn = _hook(hooks, "apply_chance_outcome")
    if fn is not None:
        return lambda hooks, p, s, i: fn(p, s, i)
