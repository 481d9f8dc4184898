"""The studies (``studies/``, not installed) and the commands that run them from a source checkout.

From an installed wheel there is no ``studies/`` folder beside ``farl_agents``: the commands must say so in one
line and exit 2, and ``farl info`` must still work. These tests point the finder at an empty folder to be that
wheel.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from farl_agents import checkout as studies
from farl_agents import cli

ROOT = Path(__file__).resolve().parent.parent


def test_the_checkout_has_its_studies_and_the_wheel_does_not():
    assert studies.CHECKOUT == ROOT and studies.available()
    import tomllib

    find = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    assert not any(p.startswith("studies") for p in find["include"]), "studies are not part of the wheel"
    assert studies.import_study("table1.table1_rows", "reproduce").ROWS


@pytest.fixture
def wheel(monkeypatch, tmp_path):
    """farl as an installed wheel: no studies folder next to farl_agents."""
    monkeypatch.setattr(studies, "STUDIES", tmp_path / "studies")
    assert not studies.available()


@pytest.mark.parametrize("argv", [["reproduce", "table1", "--rows", "tictactoe", "--budget", "smoke"],
                                  ["reproduce", "traces"]])
def test_reproduce_from_a_wheel_says_it_needs_a_checkout(wheel, capsys, argv):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--debug" not in err
    assert "farl reproduce runs the studies of a source checkout" in err and "this installed farl has none" in err


def test_info_from_a_wheel_still_lists_the_rest(wheel, capsys):
    assert cli.main(["info"]) == 0
    out = capsys.readouterr().out
    assert "learner families" in out and "this installed farl has none" in out


def test_reproduce_writes_under_runs_unless_told(monkeypatch, tmp_path, capsys):
    """A user's runs never overwrite the shipped pages: --out defaults to runs/table1 (runs/traces)."""
    seen = {}
    table1 = studies.import_study("table1.table1", "reproduce")
    monkeypatch.setattr(table1, "tabulate", lambda out, *a: seen.setdefault("out", out))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "runs" / "table1").mkdir(parents=True)
    assert cli.main(["reproduce", "table1", "--rows", "tictactoe", "--table-only"]) == 0
    assert seen["out"] == Path("runs/table1")
    assert cli.main(["reproduce", "traces", "--table-only", "--budget", "smoke"]) == 0
    assert (tmp_path / "runs" / "traces").is_dir() or "runs/traces" in capsys.readouterr().out


def test_pretrained_build_from_a_wheel_says_it_needs_a_checkout_and_list_still_works(wheel, capsys):
    assert cli.main(["pretrained", "build", "tictactoe", "--budget", "quick"]) == 2
    err = capsys.readouterr().err
    assert "farl pretrained build runs the studies of a source checkout" in err
    assert cli.main(["pretrained", "list"]) == 0
    assert "tictactoe" in capsys.readouterr().out


def test_compare_from_a_wheel_says_it_needs_a_checkout(wheel, capsys):
    pytest.importorskip("sb3_contrib")
    assert cli.main(["compare", "tictactoe", "--budget-steps", "100", "--budget-minutes", "0.01"]) == 2
    assert "farl compare runs the studies of a source checkout" in capsys.readouterr().err


def _farl_imports(path: Path):
    """(line, module, name) of every import of farl_envs / farl_agents in ``path`` (name None for ``import m``)."""
    import ast

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, a.name, None) for a in node.names if a.name.split(".")[0].startswith("farl_"))
        elif isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").startswith("farl_"):
            yield from ((node.lineno, node.module, a.name) for a in node.names)


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))  # __version__ is public


def test_studies_import_no_private_name_of_farl():
    """The studies are built on farl's public names: no ``_``-prefixed module or name of the library."""
    found = [f"{p.relative_to(ROOT)}:{line} {module} {name or ''}"
             for p in sorted((ROOT / "studies").rglob("*.py")) for line, module, name in _farl_imports(p)
             if any(part.startswith("_") for part in module.split(".")) or _private(name or "")]
    assert not found, "\n".join(found)
    # the scan sees the studies' imports of farl at all
    assert any(m == "farl_agents.backend" for _, m, _ in _farl_imports(ROOT / "studies" / "table1" / "table1.py"))
