"""A game's kernels as one numba *type*, so that compiled loops over any game can be cached on disk.

A loop that took the game's kernel functions as arguments (``legal_actions``,
``afterstate`` ...) could not be cached by numba: a dispatcher passed as a
value is not stable across processes, so every process compiled the loop
again for every game (~5-25 s each). Instead such loops take one small
:class:`Kernels` value. Its numba type names the kernels by
``module:function``, plus a stamp of the sources they are compiled from; the
loops call the kernels through the stubs below (``legal_actions(kernels, p,
s, mask)`` ...), which numba resolves to the game's own kernel while
compiling. The call is then direct (LLVM inlines it) as if the loop were
written for that game alone, and the loop goes to numba's disk cache like
any other ``cache=True`` function: compiled once per game, not once per
process.

**Why the stamp.** numba's cache only watches the file of the cached
function itself: a cached search loop would keep its old machine code
after an edit of ``tictactoe.py``, of ``core/rng.py`` or of the
``random_playout`` it calls. The stamp is a hash of every source a loop over
these kernels compiles in: the modules of the game's compiled functions (its
kernels and the compiled hooks it declares for searches: leaf evaluation,
chance outcomes), ``farl_envs/core/*.py`` (this module, the RNG, the spec
with its default kernels, the playout loop), the games' shared helpers
``farl_envs/games/_*.py`` and the modules of the loops themselves (``loops``
of :func:`kernels_of`, named by whoever writes such loops: farl_envs knows
only its own files). It is part of the type, and numba's cache is keyed by
the types of the arguments, so any edit of those files gives a new type,
hence a new cache entry, never stale code.

Users: :mod:`farl_envs.core.playout` (no ``loops``: its module is one of
farl_envs's own), and outside this package the searches and the learners'
self-play loops, each naming its own loop modules.
"""
from __future__ import annotations

import hashlib
import importlib
import inspect
from pathlib import Path

from numba import njit, types
from numba.extending import NativeValue, models, overload, register_model, typeof_impl, unbox

KERNEL_NAMES = ("initial_state", "legal_actions", "afterstate", "chance", "board")
"""The kernels a loop can call through the stubs (see :mod:`farl_envs.core.spec`)."""

ROOT = Path(__file__).resolve().parents[2]
"""The directory holding the ``farl_envs`` package (and the packages installed beside it): the source patterns are
relative to it."""

GAME_SOURCES = ("farl_envs/core/*.py", "farl_envs/games/_*.py")
"""Sources every game kernel may compile in, besides its own module: always part of the stamp (the playout loop of
``core/playout.py`` among them)."""

HOOK_NAMES = ("heuristic", "chance_outcome_count", "apply_chance_outcome")
"""The compiled functions a game declares for searches besides its kernels: their modules join the stamp too."""


class Kernels:
    """A game's kernels by name (``module:function`` each) and a stamp of their sources; see the module docstring."""

    __slots__ = ("names", "stamp", "_type")

    def __init__(self, names: tuple, stamp: str):
        self.names = tuple(names)
        self.stamp = stamp
        self._type = None

    def __repr__(self) -> str:
        return f"Kernels({self.names[0].split(':')[0]}, {self.stamp})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Kernels) and (self.names, self.stamp) == (other.names, other.stamp)

    def __hash__(self) -> int:
        return hash((self.names, self.stamp))

    def __getstate__(self):
        return {"names": self.names, "stamp": self.stamp}

    def __setstate__(self, d):
        self.__init__(d["names"], d["stamp"])


class KernelsType(types.Type):
    """The numba type of a :class:`Kernels` value: equal for the same kernels and sources, in any process."""

    def __init__(self, names: tuple, stamp: str):
        self.names = tuple(names)
        self.stamp = stamp
        super().__init__(name=f"Kernels({','.join(self.names)};{stamp})")


@typeof_impl.register(Kernels)
def _typeof_kernels(val, c):
    # built once per value: a search calls its compiled function once per move or node, and every call types it
    if val._type is None:
        val._type = KernelsType(val.names, val.stamp)
    return val._type


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
        h.update(str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:12]


_FOUND: dict = {}


def kernels_of(game, loops: tuple = ()) -> Kernels:
    """The :class:`Kernels` of a :class:`~farl_envs.core.spec.GameSpec` (its kernels must be module-level ``@njit``).

    ``loops``: glob patterns (relative to :data:`ROOT`) of the modules whose cached loops will call the stubs with
    this value; their sources join the stamp, so each family of loops (the searches, the learners) names its own.
    Empty: the loops of farl_envs itself (:mod:`farl_envs.core.playout`), already in :data:`GAME_SOURCES`.
    """
    fns = tuple(getattr(game, k) for k in KERNEL_NAMES)
    hooks = tuple(fn for fn in (getattr(game, k) for k in HOOK_NAMES) if fn is not None)
    key = (fns, hooks, tuple(loops))
    found = _FOUND.get(key)
    if found is None:
        names, files = [], []
        for kind, fn in zip(KERNEL_NAMES + HOOK_NAMES, fns + hooks):
            name = compiled_name(fn)
            if not name:
                raise ValueError(f"{game.name}: the {kind} kernel must be a module-level @njit function")
            if kind in KERNEL_NAMES:
                names.append(name)
            files.append(Path(inspect.getfile(fn.py_func)).resolve())
        found = _FOUND[key] = Kernels(tuple(names), _file_hash(files + shared_sources(loops)))
    return found


OBSERVE = len(KERNEL_NAMES)
"""Index of the game's ``observe`` in the names of a :func:`kernels_with_observe` value."""

_WITH_OBSERVE: dict = {}


def kernels_with_observe(game, loops: tuple) -> Kernels:
    """:func:`kernels_of` plus the game's ``observe`` kernel, for loops that write observations (the batched envs,
    AlphaZero's search). ``observe`` sits at index :data:`OBSERVE` of the names, which only the stub
    :func:`observe` reads (the other stubs read indices 0-4); the stamp adds ``observe``'s module, so editing it
    gives a new cache entry. ``ValueError`` when ``observe`` is not a module-level ``@njit`` function."""
    base = kernels_of(game, loops=loops)
    key = (game.observe, tuple(loops))
    found = _WITH_OBSERVE.get(key)
    if found is None or found[0] is not base:
        name = compiled_name(game.observe)
        if not name:
            raise ValueError(f"{game.name}: the observe kernel must be a module-level @njit function")
        h = hashlib.sha1(base.stamp.encode())
        h.update(Path(inspect.getfile(game.observe.py_func)).resolve().read_bytes())
        found = _WITH_OBSERVE[key] = (base, Kernels(base.names + (name,), h.hexdigest()[:12]))
    return found[1]


def compiled_name(fn) -> str:
    """``"module:function"`` of a module-level ``@njit`` function (the name a compiled loop resolves); "" for
    anything else (a plain Python function, a closure, a function its module does not hold under that name)."""
    py = getattr(fn, "py_func", None)
    if py is None or "<locals>" in py.__qualname__:
        return ""
    name = f"{py.__module__}:{py.__qualname__}"
    try:
        return name if _resolve(name) is fn else ""
    except (ImportError, AttributeError):
        return ""


def shared_sources(loops: tuple = ()) -> list:
    """The files of :data:`GAME_SOURCES` and ``loops`` (the stamp's sources besides the game's own module)."""
    files = []
    for pattern in GAME_SOURCES + tuple(loops):
        matched = sorted(ROOT.glob(pattern))
        if not matched:
            raise ValueError(f"no source matches {pattern!r} under {ROOT}")
        files.extend(path.resolve() for path in matched)
    return files


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


# The same kernels inlined into the calling loop (numba IR, before type inference), for the call sites every
# candidate of every ply runs: a plain call passes each array as a structure on the stack and pays a
# reference-count call per array on entry and exit. Inlining copies the kernel's body into the loop and numba's
# compile time grows with every copy, so only the hottest sites should use these.
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


def observe(kernels, p, s, seat, out):
    """The game's ``observe(p, s, seat, out)`` named by a :func:`kernels_with_observe` value."""
    return _resolve(kernels.names[OBSERVE])(p, s, seat, out)


@overload(observe)
def _ol_observe(kernels, p, s, seat, out):
    if isinstance(kernels, KernelsType) and len(kernels.names) > OBSERVE:
        fn = _resolve(kernels.names[OBSERVE])
        return lambda kernels, p, s, seat, out: fn(p, s, seat, out)


NO_CHANCE = "farl_envs.core.spec:no_chance"
"""The compiled name of the chance kernel of every game without chance events."""


def has_chance(kernels):
    """Whether the game draws a chance event after a move: a constant of the compiled loop (its ``Kernels`` type
    names the chance kernel), so a loop skips the stream's hashing for deterministic games at no run-time cost."""
    return kernels.names[3] != NO_CHANCE


@overload(has_chance)
def _ol_has_chance(kernels):
    if isinstance(kernels, KernelsType):
        flag = kernels.names[3] != NO_CHANCE
        return lambda kernels: flag

