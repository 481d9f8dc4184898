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
"""
from __future__ import annotations

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
sources)."""


def kernels_of(game) -> _core.Kernels:
    """The :class:`~farl_envs.core.kernels.Kernels` of ``game`` for the learners' loops."""
    return _core.kernels_of(game, LEARNER_LOOPS)
