"""What the compiled self-play loops need from numba beyond ``@njit``: a game's kernels as a type, and borrowed arrays.

**Kernels as a type (so the loops can be cached on disk).** A loop that takes
the game's kernel functions as arguments cannot be cached by numba: a
dispatcher passed as a value is not stable across processes, so every process
compiled the self-play loop again (~5-25 s per game and learner). Instead the
loops take one small :class:`Kernels` value, whose numba type names the
kernels by module and function name, plus a stamp of the sources they are
compiled from. The loops call the kernels through the stubs below
(``legal_actions(kernels, p, s, mask)`` ...); numba resolves each stub to the
game's own kernel while compiling, so the call is direct (and inlined) as if
the loop were written for that game alone, and the compiled loop goes to
numba's disk cache like any other ``cache=True`` function. The stamp (a hash
of the kernel's module, ``farl_envs/core``, the games' shared helpers and the
learner modules) is part of the type, so editing any of those sources makes a
new cache entry instead of reusing stale machine code: numba's cache only
watches the file of the cached function itself.

**Borrowed arrays (no reference counting in the hot loop).** Every array
numba passes into a function, takes from a named tuple or slices is
reference-counted with atomic instructions; with the ``Net``, ``Memory`` and
``Traces`` tuples (25 arrays) that cost more than the learning itself (a
TicTacToe ply paid ~2 µs of its ~4 µs for it).
:func:`~farl_envs.core.kernel_utils.borrowed` (shared with the playouts) returns the
same arrays without their owner (a null ``meminfo``), which numba does not
count. Only for arrays that outlive the call: the loops borrow their
arguments, which the Python caller holds until the call returns, and never
return or store a borrowed array.
"""
from __future__ import annotations

import hashlib
import importlib
import inspect
from pathlib import Path

from numba import njit, types
from numba.extending import NativeValue, models, overload, register_model, typeof_impl, unbox

KERNEL_NAMES = ("initial_state", "legal_actions", "afterstate", "chance", "board")
"""The kernels the learners' loops call (see :mod:`farl_envs.core.spec`)."""

_ROOT = Path(__file__).resolve().parents[2]
_SHARED_SOURCES = ("farl_envs/core/*.py", "farl_envs/games/_*.py", "farl_agents/ntuple/*.py",
                   "farl_agents/learners/td_farl.py", "farl_agents/learners/sarsa_farl.py",
                   "farl_agents/learners/kernels.py")


class Kernels:
    """A game's kernels by name (``module:function`` each) and a stamp of their sources; see the module docstring."""

    __slots__ = ("names", "stamp")

    def __init__(self, names: tuple, stamp: str):
        self.names = tuple(names)
        self.stamp = stamp

    def __repr__(self) -> str:
        return f"Kernels({self.names[0].split(':')[0]}, {self.stamp})"


class KernelsType(types.Type):
    """The numba type of a :class:`Kernels` value: equal for the same kernels and sources, in any process."""

    def __init__(self, names: tuple, stamp: str):
        self.names = tuple(names)
        self.stamp = stamp
        super().__init__(name=f"Kernels({','.join(self.names)};{stamp})")


@typeof_impl.register(Kernels)
def _typeof_kernels(val, c):
    return KernelsType(val.names, val.stamp)


register_model(KernelsType)(models.OpaqueModel)


@unbox(KernelsType)
def _unbox_kernels(typ, obj, c):
    return NativeValue(c.context.get_constant_null(typ))  # all the information is in the type


def _resolve(name: str):
    module, _, qualname = name.partition(":")
    return getattr(importlib.import_module(module), qualname)


def _file_hash(paths) -> str:
    h = hashlib.sha1()
    for path in sorted(set(paths)):
        h.update(str(path.relative_to(_ROOT) if path.is_relative_to(_ROOT) else path).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:12]


_CACHE: dict = {}


def kernels_of(game) -> Kernels:
    """The :class:`Kernels` of a :class:`~farl_envs.core.spec.GameSpec` (module-level ``@njit`` kernels)."""
    fns = tuple(getattr(game, k) for k in KERNEL_NAMES)
    found = _CACHE.get(fns)
    if found is None:
        names, files = [], []
        for kind, fn in zip(KERNEL_NAMES, fns):
            py = getattr(fn, "py_func", None)
            name = f"{py.__module__}:{py.__qualname__}" if py is not None else ""
            if py is None or "<locals>" in py.__qualname__ or _resolve(name) is not fn:
                raise ValueError(f"{game.name}: the {kind} kernel must be a module-level @njit function")
            names.append(name)
            files.append(Path(inspect.getfile(py)).resolve())
        for pattern in _SHARED_SOURCES:
            files.extend(_ROOT.glob(pattern))
        found = _CACHE[fns] = Kernels(tuple(names), _file_hash(files))
    return found


_INLINED: dict = {}


def _kernel(kernels, kind: str, inline: bool = False):
    """The ``kind`` kernel named by a :class:`KernelsType` (None for any other type: no match).

    ``inline``: an ``inline="always"`` copy of the game's function (the same source, so the same arithmetic),
    which numba inlines into the calling loop; see :func:`afterstate_inline`."""
    if isinstance(kernels, KernelsType):
        fn = _resolve(kernels.names[KERNEL_NAMES.index(kind)])
        if not inline:
            return fn
        found = _INLINED.get(fn)
        if found is None:
            found = _INLINED[fn] = njit(inline="always")(fn.py_func)
        return found
    return None


# The stubs the loops call. From Python they call the kernel; compiled, numba replaces each by a direct
# call of the game's kernel (the overloads below), chosen from the type of ``kernels``. Not
# ``overload(..., inline="always")``: with numba 0.68 that lost the writes of the steps inlined after such a
# call (LLVM inlines these one-line wrappers anyway).
def initial_state(kernels, p, rng):
    return _resolve(kernels.names[0])(p, rng)


def legal_actions(kernels, p, s, mask):
    return _resolve(kernels.names[1])(p, s, mask)


def afterstate(kernels, p, s, a, out, rewards):
    return _resolve(kernels.names[2])(p, s, a, out, rewards)


def chance(kernels, p, s, rng):
    return _resolve(kernels.names[3])(p, s, rng)


def board(kernels, p, s, out):
    return _resolve(kernels.names[4])(p, s, out)


@overload(initial_state)
def _ol_initial_state(kernels, p, rng):
    fn = _kernel(kernels, "initial_state")
    if fn is not None:
        return lambda kernels, p, rng: fn(p, rng)


@overload(legal_actions)
def _ol_legal_actions(kernels, p, s, mask):
    fn = _kernel(kernels, "legal_actions")
    if fn is not None:
        return lambda kernels, p, s, mask: fn(p, s, mask)


@overload(afterstate)
def _ol_afterstate(kernels, p, s, a, out, rewards):
    fn = _kernel(kernels, "afterstate")
    if fn is not None:
        return lambda kernels, p, s, a, out, rewards: fn(p, s, a, out, rewards)


@overload(chance)
def _ol_chance(kernels, p, s, rng):
    fn = _kernel(kernels, "chance")
    if fn is not None:
        return lambda kernels, p, s, rng: fn(p, s, rng)


@overload(board)
def _ol_board(kernels, p, s, out):
    fn = _kernel(kernels, "board")
    if fn is not None:
        return lambda kernels, p, s, out: fn(p, s, out)


# The kernels every candidate of every ply calls, inlined into the loop (numba IR, before type inference). A call
# of a game kernel passes each array as a structure on the stack and pays a reference-count call per array on
# entry and exit (null for the loops' borrowed arrays, but still calls): for Nim and TicTacToe that was a third of a
# ply. Only the per-candidate sites use these: inlining a kernel copies its body into the loop, and numba's compile
# time grows with every copy, so the once-per-episode and once-per-ply calls stay plain calls.
def legal_actions_inline(kernels, p, s, mask):
    return _resolve(kernels.names[1])(p, s, mask)


def afterstate_inline(kernels, p, s, a, out, rewards):
    return _resolve(kernels.names[2])(p, s, a, out, rewards)


def chance_inline(kernels, p, s, rng):
    return _resolve(kernels.names[3])(p, s, rng)


def board_inline(kernels, p, s, out):
    return _resolve(kernels.names[4])(p, s, out)


@overload(legal_actions_inline)
def _ol_legal_actions_inline(kernels, p, s, mask):
    fn = _kernel(kernels, "legal_actions", inline=True)
    if fn is not None:
        return lambda kernels, p, s, mask: fn(p, s, mask)


@overload(afterstate_inline)
def _ol_afterstate_inline(kernels, p, s, a, out, rewards):
    fn = _kernel(kernels, "afterstate", inline=True)
    if fn is not None:
        return lambda kernels, p, s, a, out, rewards: fn(p, s, a, out, rewards)


@overload(chance_inline)
def _ol_chance_inline(kernels, p, s, rng):
    fn = _kernel(kernels, "chance", inline=True)
    if fn is not None:
        return lambda kernels, p, s, rng: fn(p, s, rng)


@overload(board_inline)
def _ol_board_inline(kernels, p, s, out):
    fn = _kernel(kernels, "board", inline=True)
    if fn is not None:
        return lambda kernels, p, s, out: fn(p, s, out)
