"""The package as a user installs it: a LICENSE file matching the metadata, typed entry points."""
from __future__ import annotations

import inspect
import sys
import typing
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    tomllib = None

import farl_envs
from farl_envs.core.aec import FarlAECEnv
from farl_envs.core.factory import FastOrderEnforcingWrapper

ROOT = Path(__file__).resolve().parent.parent


def test_the_license_file_is_the_mit_license_the_metadata_names():
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License")
    assert "Permission is hereby granted, free of charge" in text
    assert 'THE SOFTWARE IS PROVIDED "AS IS"' in text
    if tomllib is not None:
        project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
        assert project["license"] == {"text": "MIT"}


def test_make_and_make_raw_are_annotated_with_what_they_return():
    # the annotations name classes imported only for type checkers (farl_envs imports no env class eagerly)
    names = {"FastOrderEnforcingWrapper": FastOrderEnforcingWrapper, "FarlAECEnv": FarlAECEnv}
    for function, cls in ((farl_envs.make, FastOrderEnforcingWrapper), (farl_envs.make_raw, FarlAECEnv)):
        assert inspect.signature(function).return_annotation == cls.__name__
        assert typing.get_type_hints(function, localns=names)["return"] is cls
        assert isinstance(function("tictactoe"), cls)
