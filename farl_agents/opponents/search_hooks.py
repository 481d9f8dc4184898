"""What a depth-limited search needs from a game beyond its kernels: a leaf evaluation and its chance outcomes.

Max-N (:mod:`~farl_agents.opponents.maxn`) and Paranoid
(:mod:`~farl_agents.opponents.paranoid`) call three more functions than the
kernel contract of :mod:`farl_envs.core.spec` has:

``heuristic(p, s, out)``
    the value vector (``float64[n_players]``) of a non-terminal position where
    the search stops, an estimate of each player's *future* reward, strictly
    between -1 and 1 so that a reward the search actually sees outweighs it.
    The games' heuristics are in :mod:`~farl_agents.opponents.heuristics`
    (documented there, one per game); a game without one gets the zero
    vector ("no reward known yet").
``chance_outcome_count(p, s) -> int`` and ``apply_chance_outcome(p, s, i) -> float``
    the outcomes of the chance event after a non-terminal afterstate ``s``
    (count) and the ``i``-th of them applied in place, returning its
    probability: the compiled counterpart of a game's Python
    ``chance_outcomes``. Games with chance define both next to their
    ``chance`` kernel (2048, EinStein würfelt nicht!); games without chance
    get a count of 0. A game with chance that lacks them cannot be searched
    (``ValueError``).

As for the kernels (:mod:`farl_envs.core.kernels`), the searches take these
functions as one :class:`SearchHooks` value whose numba type names them by
``module:function``: the search loops are compiled once per game and cached
on disk. Staleness is covered by the :class:`~farl_envs.core.kernels.Kernels`
value passed beside it, built by :func:`search_kernels`, whose stamp hashes
the game's module, this module, the heuristics and the search modules.
"""
from __future__ import annotations

import importlib

from numba import njit, types
from numba.extending import NativeValue, models, overload, register_model, typeof_impl, unbox

from farl_agents.opponents.heuristics import HEURISTICS, zero_heuristic
from farl_envs.core.kernels import SEARCH_LOOPS, kernels_of
from farl_envs.core.spec import GameSpec

HOOK_NAMES = ("heuristic", "chance_outcome_count", "apply_chance_outcome")

SEARCH_MODULES = SEARCH_LOOPS + ("farl_agents/opponents/search_hooks.py", "farl_agents/opponents/heuristics.py",
                                 "farl_agents/opponents/paranoid.py")
"""The sources the depth-limited searches compile in besides the game's own module (the stamp of their kernels)."""


@njit(cache=True)
def no_chance_outcome_count(p, s):
    """A game without chance: no outcome to enumerate."""
    return 0


@njit(cache=True)
def no_chance_outcome(p, s, i):
    """Never called (the count is 0); there for the type."""
    return 0.0


def _name(fn) -> str:
    py = fn.py_func
    return f"{py.__module__}:{py.__qualname__}"


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
    """Does ``game`` have a leaf evaluation in :data:`~farl_agents.opponents.heuristics.HEURISTICS`?"""
    return game.name in HEURISTICS


def hooks_of(game: GameSpec, heuristic: bool = True) -> SearchHooks:
    """The :class:`SearchHooks` of ``game``; ``heuristic=False``: the zero vector at the depth limit.

    Raises ``ValueError`` for a game with chance whose module lacks ``chance_outcome_count`` /
    ``apply_chance_outcome``.
    """
    h = HEURISTICS.get(game.name, zero_heuristic) if heuristic else zero_heuristic
    count, apply = no_chance_outcome_count, no_chance_outcome
    if game.has_chance:
        module = importlib.import_module(game.chance.py_func.__module__)
        count = getattr(module, "chance_outcome_count", None)
        apply = getattr(module, "apply_chance_outcome", None)
        if count is None or apply is None:
            raise ValueError(f"{game.id} has chance events but no chance_outcome_count / apply_chance_outcome "
                             f"in {module.__name__}: a search cannot take the expectation over them")
    return SearchHooks((_name(h), _name(count), _name(apply)))


def search_kernels(game: GameSpec):
    """The game's :class:`~farl_envs.core.kernels.Kernels`, stamped with :data:`SEARCH_MODULES` too."""
    return kernels_of(game, SEARCH_MODULES)


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
