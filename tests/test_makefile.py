"""The README's two set-up commands: `make run` installs only what the main job needs, `make test` everything.

Read from the Makefile's text (running them would install packages): the main
job's target depends on the core install alone (farl and its required
dependencies, no extras: no torch, Ray or browser), the test target on every
optional extra of pyproject.toml, and the main job ends by saying how to
reach the installed ``farl`` command.
"""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAKEFILE = (ROOT / "Makefile").read_text()


def target(name: str) -> tuple[list[str], list[str]]:
    """(prerequisites, recipe lines) of a Makefile target."""
    m = re.search(rf"^{re.escape(name)}:(.*)\n((?:\t.*\n?)*)", MAKEFILE, re.M)
    assert m, f"no target {name}"
    return m.group(1).split(), [x.strip() for x in m.group(2).splitlines() if x.strip()]


def variable(name: str) -> str:
    m = re.search(rf"^{name} :?= (.*)$", MAKEFILE, re.M)
    assert m, f"no variable {name}"
    return m.group(1).strip()


def test_make_run_installs_the_core_only_and_says_how_to_use_farl():
    needs, recipe = target("run")
    assert needs == ["$(CORE)"]
    _, core = target("$(CORE)")
    installs = [line for line in core if "pip install" in line]
    assert installs == ["$(PY) -m pip install -q -e ."], installs  # no extras, no torch
    assert any("activate" in line and line.startswith("@echo") for line in recipe)


def test_make_test_installs_every_optional_extra_after_the_cpu_torch():
    needs, _ = target("test")
    assert needs == ["$(FULL)"]
    _, full = target("$(FULL)")
    optional = (ROOT / "pyproject.toml").read_text().split("[project.optional-dependencies]")[1].split("\n[")[0]
    extras = set(re.findall(r"^([a-z0-9_-]+) = \[", optional, flags=re.M))
    # bench (open-spiel) and render (pygame) are inside adapters; every other extra is named
    assert set(variable("EXTRAS").split(",")) == extras - {"bench", "render"}
    assert full.index("$(PY) -m pip install -q torch==2.13.0") < full.index('$(PY) -m pip install -q -e ".[$(EXTRAS)]"')
