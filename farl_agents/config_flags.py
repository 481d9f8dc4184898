"""A frozen settings dataclass as command-line flags: one flag per field, help from the field's docstring.

Every learner family keeps its settings in one frozen dataclass (the n-tuple
``LearnerConfig``, ``NemeshConfig``, ``DescentConfig``), saved with its agent
and in ``run.json``. :class:`ConfigFlags` turns such a class into ``argparse``
flags (``alpha_final`` -> ``--alpha-final``), so the help and the saved
settings cannot drift apart, and reads values of the field's type from
command-line text or from TOML/JSON values (``--set``, ``--config``).
:func:`check_field_types` holds the Python API to the same types (Python
does not enforce annotations: ``LearnerConfig(episodes=1.5)`` would pass).
"""
from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import json
import math
import numbers
import textwrap
import types
import typing

import numpy as np

INT_LIMIT = 2 ** 63
"""Integer settings must fit a signed 64-bit integer (numba and numpy store them so)."""


class FlagError(ValueError):
    """A value that does not fit its field (a one-line message for the user)."""


def settings_from_dict(cls, d: dict, what: str):
    """``cls(**d)`` for a settings dataclass, with a ValueError naming unknown keys (``what``: "Nemesh options")."""
    bad = set(d) - {f.name for f in dataclasses.fields(cls)}
    if bad:
        raise ValueError(f"unknown {what}: {', '.join(sorted(bad))}")
    return cls(**d)


def check_field_types(obj) -> None:
    """Check that every field of the settings dataclass ``obj`` holds a value of its annotated type.

    ``bool``: a bool. ``int``: an integer that is not a bool, within
    ±``INT_LIMIT``. ``float``: a real number that is not a bool, finite (NaN
    passes every ``<=`` test a range check could make, so it is refused
    here). ``str``, ``tuple`` (or a list), ``dict``: that type. ``X | None``:
    also None. Numpy scalars count as their Python kind and are stored as
    Python ``int``/``float``/``bool`` (frozen fields are set through
    ``object.__setattr__``), so the settings stay JSON-ready. Raises
    ``TypeError`` (wrong type) or ``ValueError`` (NaN, infinity, too large),
    naming the class and the field; ranges are the class's own business.
    """
    hints = typing.get_type_hints(type(obj))
    for f in dataclasses.fields(obj):
        t, optional = _optional(hints[f.name])
        value = getattr(obj, f.name)
        if value is None and optional:
            continue
        where = f"{type(obj).__name__}.{f.name}"
        got = f"got {value!r} ({type(value).__name__})"
        if t is bool:
            if not isinstance(value, (bool, np.bool_)):
                raise TypeError(f"{where} must be true or false, {got}")
            new = bool(value)
        elif t is int:
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
                raise TypeError(f"{where} must be an integer, {got}")
            new = int(value)
            if not -INT_LIMIT <= new < INT_LIMIT:
                raise ValueError(f"{where} is too large: {new} (the limit is 2**63)")
        elif t is float:
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
                raise TypeError(f"{where} must be a number, {got}")
            new = float(value)
            if not math.isfinite(new):
                raise ValueError(f"{where} must be a finite number, got {value!r}")
        elif t in (str, dict):
            if not isinstance(value, t):
                raise TypeError(f"{where} must be {'text' if t is str else 'a dict'}, {got}")
            continue
        elif t is tuple:
            if not isinstance(value, (tuple, list)):
                raise TypeError(f"{where} must be a tuple or list, {got}")
            continue
        else:
            continue
        if new is not value:
            object.__setattr__(obj, f.name, new)


def field_docs(cls) -> dict:
    """The docstring under each dataclass field, read from the source (``{field: text}``)."""
    body = ast.parse(textwrap.dedent(inspect.getsource(cls))).body[0].body
    docs = {}
    for a, b in zip(body, body[1:]):
        if (isinstance(a, ast.AnnAssign) and isinstance(a.target, ast.Name) and isinstance(b, ast.Expr)
                and isinstance(b.value, ast.Constant) and isinstance(b.value.value, str)):
            docs[a.target.id] = " ".join(b.value.value.replace("``", "").split())
    return docs


def _bool(text: str) -> bool:
    low = str(text).strip().lower()
    if low in ("1", "true", "yes", "on"):
        return True
    if low in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"expected true or false, got {text!r}")


def _optional(t):
    """``(inner type, True)`` for ``X | None``, else ``(t, False)``."""
    if isinstance(t, types.UnionType) or typing.get_origin(t) is typing.Union:
        args = [a for a in typing.get_args(t) if a is not type(None)]
        if len(args) == 1 and len(typing.get_args(t)) == 2:
            return args[0], True
    return t, False


class ConfigFlags:
    """The flags of dataclass ``cls``.

    ``skip``: fields that get no flag of their own (set another way, e.g. by
    ``--algo``; ``--set`` still reaches them). ``choices``: allowed values of
    text fields.
    """

    def __init__(self, cls, skip=(), choices=None):
        self.cls = cls
        self.types = typing.get_type_hints(cls)
        self.defaults = {f.name: (f.default if f.default is not dataclasses.MISSING else None)
                         for f in dataclasses.fields(cls)}
        self.skip = tuple(skip)
        self.choices = dict(choices or {})

    @property
    def flag_fields(self) -> list[str]:
        return [n for n, t in self.types.items() if n not in self.skip and self._settable(t)]

    def _settable(self, t) -> bool:
        inner, _ = _optional(t)
        return inner in (bool, int, float, str, tuple)

    def coerce(self, name: str, value):
        """``value`` (command-line text, or a TOML/JSON value) as the type of field ``name``."""
        if name not in self.types or not self._settable(self.types[name]):
            raise FlagError(f"unknown option {name!r}; the options are {self.cls.__name__}'s fields: "
                            f"{', '.join(n for n in self.types if self._settable(self.types[n]))}")
        t, optional = _optional(self.types[name])
        text = isinstance(value, str)
        try:
            if optional and (value is None or (text and value.strip().lower() in ("none", "null"))):
                return None
            if t is bool:
                if text:
                    return _bool(value)
                if not isinstance(value, bool):
                    raise ValueError(f"expected true or false, got {value!r}")
                return value
            if t is int:
                if isinstance(value, bool) or not (text or isinstance(value, int)):
                    raise ValueError(f"expected an integer, got {value!r}")
                number = int(value)
                if not -INT_LIMIT <= number < INT_LIMIT:
                    raise ValueError(f"{number} is too large (the limit is 2**63)")
                if name == "seed" and number < 0:
                    raise ValueError(f"a seed is an integer >= 0, got {number}")
                return number
            if t is float:
                if value is None:
                    raise ValueError("a number is needed")
                if isinstance(value, bool):
                    raise ValueError(f"expected a number, got {value!r}")
                return float(value)
            if t is str:
                if not text:
                    raise ValueError(f"expected text, got {value!r}")
                choices = self.choices.get(name)
                if choices and value not in choices:
                    raise ValueError(f"expected one of {', '.join(choices)}, got {value!r}")
                return value
            if t is tuple:
                cells = json.loads(value) if text else value
                if not isinstance(cells, (list, tuple)) or not all(isinstance(c, (list, tuple)) for c in cells):
                    raise ValueError("expected a list of lists of cells, e.g. [[0,1,2],[3,4,5]]")
                return tuple(tuple(int(x) for x in c) for c in cells)
        except (ValueError, TypeError) as exc:
            raise FlagError(f"bad value for {name}: {exc}") from None
        raise FlagError(f"cannot set {name} from the command line")  # pragma: no cover

    def _parse(self, name: str):
        def parse(text):
            try:
                return self.coerce(name, text)
            except FlagError as exc:
                raise argparse.ArgumentTypeError(str(exc).removeprefix(f"bad value for {name}: ")) from None

        inner, _ = _optional(self.types[name])
        parse.__name__ = getattr(inner, "__name__", str(inner))
        return parse

    def add_to(self, parser: argparse.ArgumentParser, title: str, description: str) -> None:
        """One flag per field (``default=SUPPRESS``: only flags that were typed appear in the namespace)."""
        group = parser.add_argument_group(title, description)
        docs = field_docs(self.cls)
        for name in self.flag_fields:
            t, optional = _optional(self.types[name])
            flag = "--" + name.replace("_", "-")
            default = self.defaults[name]
            helptext = (docs.get(name, "") + f" [default {default!r}]").replace("%", "%%")
            if t is bool:
                group.add_argument(flag, action=argparse.BooleanOptionalAction, default=argparse.SUPPRESS,
                                   help=helptext)
            else:
                metavar = {int: "N", float: "X", tuple: "JSON"}.get(t, "NAME")
                if optional:
                    metavar += "|none"
                group.add_argument(flag, type=self._parse(name), default=argparse.SUPPRESS, metavar=metavar,
                                   choices=self.choices.get(name), help=helptext)

    def given(self, args) -> dict:
        """``{field: value}`` of the flags typed on the command line."""
        ns = vars(args)
        return {name: ns[name] for name in self.flag_fields if name in ns}
