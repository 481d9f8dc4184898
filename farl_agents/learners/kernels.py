"""The learners' view of a game's compiled kernels: :mod:`farl_envs.core.kernels` with the learner sources in its stamp.

The self-play loops (:mod:`~farl_agents.learners.td_farl`,
:mod:`~farl_agents.learners.sarsa_farl`) take a game's kernels as one
:class:`~farl_envs.core.kernels.Kernels` value and call them through that
module's stubs (``legal_actions(kernels, p, s, mask)`` ...), so that numba
can cache the loops on disk; the module docstring there says how and why.
What is the learners' own is the list of sources in the value's stamp: the
n-tuple code and the loops themselves, so that an edit of any of them makes
a new cache entry instead of reusing stale machine code.

The per-candidate call sites use the ``*_inline`` stubs: for Nim and
TicTacToe the array passing of a plain kernel call was a third of a ply.
Arrays that outlive a call are passed borrowed
(:func:`~farl_envs.core.kernel_utils.borrowed`), so numba does not count
their references in the hot loop.

TD's progress shaping (``LearnerConfig.shaping``) reads the game's heuristic
as its potential Φ through one more value of the same kind, :class:`Potential`
(:func:`potential_of`, the stub :func:`potential`); with shaping off it names
no function and the loops compile no call.
"""
from __future__ import annotations

import importlib

from numba import types
from numba.extending import NativeValue, models, overload, register_model, typeof_impl, unbox

from farl_envs.core import kernels as _core
from farl_envs.core.kernels import (  # noqa: F401  (the stubs the loops call, as K.<name>)
    afterstate,
    afterstate_inline,
    board,
    board_inline,
    chance,
    chance_inline,
    initial_state,
    legal_actions,
    legal_actions_inline,
)

# numba's on-disk cache indexes pickle the argument types by class path. Indexes written when this module defined
# its own copy of the type name ``farl_agents.learners.kernels.KernelsType``; the name stays here so that a checkout
# with such a cache unpickles them (their entries never match again: the stamp changed) instead of failing.
KernelsType = _core.KernelsType

LEARNER_LOOPS = ("farl_agents/ntuple/*.py", "farl_agents/learners/td_farl.py", "farl_agents/learners/sarsa_farl.py",
                 "farl_agents/learners/kernels.py")
"""The sources of the learners' cached loops (joined in the stamp to the game's module and ``farl_envs``' shared
sources, the chance hooks of TD's expected targets among them)."""


def kernels_of(game) -> _core.Kernels:
    """The :class:`~farl_envs.core.kernels.Kernels` of ``game`` for the learners' loops."""
    return _core.kernels_of(game, LEARNER_LOOPS)


# ----------------------------------------------------------------------------------------------------------------
# The potential of the learners' progress shaping (LearnerConfig.shaping): the game's declared leaf evaluation
# (GameSpec.heuristic), read by the loops through one more opaque value, named like the kernels so the loops stay
# cached on disk. The heuristic's module is in the Kernels value's stamp already (core/kernels.py's HOOK_NAMES).
class Potential:
    """The function that gives the shaping potential Φ, by ``module:function`` ("" when shaping is off)."""

    __slots__ = ("name", "_type")

    def __init__(self, name: str):
        self.name = name
        self._type = None

    def __repr__(self) -> str:
        return f"Potential({self.name or 'off'})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Potential) and self.name == other.name

    def __hash__(self) -> int:
        return hash(self.name)

    def __getstate__(self):
        return {"name": self.name}

    def __setstate__(self, d):
        self.__init__(d["name"])


class PotentialType(types.Type):
    def __init__(self, name: str):
        self.fn_name = name
        super().__init__(name=f"Potential({name or 'off'})")


@typeof_impl.register(Potential)
def _typeof_potential(val, c):
    if val._type is None:
        val._type = PotentialType(val.name)
    return val._type


register_model(PotentialType)(models.OpaqueModel)


@unbox(PotentialType)
def _unbox_potential(typ, obj, c):
    return NativeValue(c.context.get_constant_null(typ))  # all the information is in the type


NO_POTENTIAL = Potential("")
"""Shaping off: the loops never read a potential (and compile no call of one)."""


def potential_of(game, shaping: float) -> Potential:
    """The :class:`Potential` of ``game`` for a shaping weight: the game's ``heuristic`` when ``shaping`` is not 0
    (ValueError for a game that declares none), else :data:`NO_POTENTIAL`."""
    if shaping == 0.0:
        return NO_POTENTIAL
    name = _core.compiled_name(game.heuristic) if getattr(game, "heuristic", None) is not None else ""
    if not name:
        raise ValueError(f"shaping needs the game's leaf evaluation (GameSpec.heuristic, a module-level @njit "
                         f"function); {getattr(game, 'id', game)} declares none")
    return Potential(name)


def potential(pot, p, s, out, player):
    """Φ_player(s): ``player``'s entry of the game's heuristic of position ``s`` (``out``: float64[n_players]
    scratch); 0.0 when shaping is off. Called from Python by the AEC driver, compiled in the self-play loop."""
    if not pot.name:
        return 0.0
    fn = getattr(importlib.import_module(pot.name.partition(":")[0]), pot.name.partition(":")[2])
    fn(p, s, out)
    return float(out[player])


@overload(potential)
def _ol_potential(pot, p, s, out, player):
    if not isinstance(pot, PotentialType):
        return None
    if not pot.fn_name:
        return lambda pot, p, s, out, player: 0.0
    module, _, qualname = pot.fn_name.partition(":")
    fn = getattr(importlib.import_module(module), qualname)

    def impl(pot, p, s, out, player):
        fn(p, s, out)
        return out[player]
    return impl
