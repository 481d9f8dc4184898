"""Where numba keeps farl's compiled code, and a cheaper copy of numba's IR while it inlines.

**One cache per user.** farl's compiled loops (``cache=True``) are kept on disk so that a game's loop
is compiled once, not once per process. :func:`use_user_cache` (called by ``farl_envs/__init__.py``
before any farl module decorates a function) points numba at one folder for the command line, the
library and the test suite alike:

* ``NUMBA_CACHE_DIR`` when the user set it (numba's own setting wins);
* else ``$FARL_CACHE_DIR/numba`` when ``FARL_CACHE_DIR`` is set;
* else ``$XDG_CACHE_HOME/farl/numba``, by default ``~/.cache/farl/numba``.

The folder goes into the environment, so worker processes and ``farl`` subprocesses share it; if
numba was imported before farl, its ``config.CACHE_DIR`` is set too (numba reads it when a function
with ``cache=True`` is decorated, which farl's modules do when they are imported).

**Inlining's copies.** farl's learner loops inline their steps (``inline="always"``, see
``docs/results/train_speed.md``), and numba copies the callee's IR for every call site it inlines,
one block at a time with ``copy.deepcopy``. Each block's copy also copies the function's whole
variable scope: every variable of the function (a few thousand once the steps are inlined) as a new
``Var``, so one inlining costs blocks x variables; for TicTacToe's TD loop that was 4.7 million
``Var`` copies, 60 % of its compile time under a profiler (docs/results/cold_start.md). The inliner reads those
copied scopes only for the variables' names and locations, and then moves the copied blocks into the
caller's scope. :func:`fast_inline_copies` gives numba's ``Scope`` a ``__deepcopy__``, while it is
active, whose copy holds the *same* ``Var`` objects in a new table (the statements in the blocks are
still copied as before; numba itself moves ``Var`` objects between scopes this way when it merges
scopes). farl enters it only around its own compilations (:class:`farl_agents.compile_notice.CompileWatch`,
``NTupleAgent.train`` and ``train_aec``), so code that others compile in the same process is untouched. The compiled
code is the same: the learners' weights and random draws are bit-identical (tests/test_compile_notice.py,
tests/test_equivalence.py). It is skipped when ``Scope`` does not have exactly the attributes it
copies (a numba it was not written for) and when ``FARL_NUMBA_FAST_COPY=0``.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

CACHE_ENV = "FARL_CACHE_DIR"
"""The environment variable naming farl's user cache folder (numba's cache is its ``numba`` subfolder)."""
FAST_COPY_ENV = "FARL_NUMBA_FAST_COPY"
"""``0`` keeps numba's generic deep copy of the IR scope (for measurements, or if the faster one misbehaves)."""
_SCOPE_FIELDS = {"parent", "localvars", "loc", "redefined", "var_redefinitions"}


def user_cache_dir() -> Path:
    """farl's cache folder: ``$FARL_CACHE_DIR``, else ``$XDG_CACHE_HOME/farl``, else ``~/.cache/farl``."""
    given = os.environ.get(CACHE_ENV)
    if given:
        return Path(given).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "farl"


def numba_cache_dir() -> Path:
    """The folder numba caches farl's compiled code in (``NUMBA_CACHE_DIR`` if set, else the user cache's)."""
    given = os.environ.get("NUMBA_CACHE_DIR")
    return Path(given).expanduser() if given else user_cache_dir() / "numba"


def use_user_cache() -> Path:
    """Point numba at :func:`numba_cache_dir` (environment, and numba's config if numba is already loaded)."""
    folder = numba_cache_dir()
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    numba_config = sys.modules.get("numba.core.config")
    if numba_config is not None:
        numba_config.CACHE_DIR = str(folder)
    return folder


class _FastInlineCopies:
    """The context manager of :func:`fast_inline_copies` (re-entrant: nested uses share one patch)."""

    depth = 0
    saved = None

    def __enter__(self):
        cls = type(self)
        if cls.depth == 0 and _fast_copy_applies():
            from numba.core import ir

            cls.saved = ("__deepcopy__" in vars(ir.Scope), vars(ir.Scope).get("__deepcopy__"))
            ir.Scope.__deepcopy__ = _copy_scope
        cls.depth += 1
        return self

    def __exit__(self, *exc):
        cls = type(self)
        cls.depth -= 1
        if cls.depth == 0 and cls.saved is not None:
            from numba.core import ir

            had, old = cls.saved
            if had:
                ir.Scope.__deepcopy__ = old
            else:
                del ir.Scope.__deepcopy__
            cls.saved = None
        return False


def fast_inline_copies() -> _FastInlineCopies:
    """While active, numba's inliner copies IR scopes as described in the module docstring."""
    return _FastInlineCopies()


def _fast_copy_applies() -> bool:
    """Not switched off, and numba's ``Scope`` is the one :func:`_copy_scope` was written for (checked once)."""
    global _NUMBA_FITS
    if os.environ.get(FAST_COPY_ENV, "1") == "0":
        return False
    if _NUMBA_FITS is None:
        from numba.core import ir

        probe = ir.Scope(None, ir.Loc("farl", 0))
        _NUMBA_FITS = (set(vars(probe)) == _SCOPE_FIELDS and set(vars(probe.localvars)) == {"_con"}
                       and "__deepcopy__" not in vars(ir.Scope) and "__deepcopy__" not in vars(ir.VarMap))
    return _NUMBA_FITS


_NUMBA_FITS = None


def _copy_scope(scope, memo):
    """A copy of an IR ``Scope`` for numba's inliner: a new scope and variable table holding the same ``Var``
    objects (the generic deep copy made a new ``Var`` of each, a few thousand per block copied)."""
    import copy
    from collections import defaultdict

    from numba.core import ir

    new = ir.Scope.__new__(ir.Scope)
    memo[id(scope)] = new
    new.parent = copy.deepcopy(scope.parent, memo)
    localvars = ir.VarMap.__new__(ir.VarMap)
    localvars._con = dict(scope.localvars._con)
    new.localvars = localvars
    new.loc = scope.loc
    new.redefined = defaultdict(int, scope.redefined)
    new.var_redefinitions = defaultdict(set, {k: set(v) for k, v in scope.var_redefinitions.items()})
    return new
