"""The docs site: the game pages match the game modules' docstrings, the reST-to-Markdown conversion
keeps what the docstrings mean, and ``mkdocs build --strict`` passes (broken links and references fail).

The build test needs the ``docs`` extra (mkdocs, mkdocs-material, mkdocstrings[python]) and is skipped
without it.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from script_modules import load_script

import farl_envs

ROOT = Path(__file__).resolve().parent.parent


def _load(name: str):
    """A script of docs/ (not a package) as a module."""
    return load_script("docs", name)


rst_markdown = _load("rst_markdown")
gen_game_pages = _load("gen_game_pages")


# ------------------------------------------------------------------------------------------ conversion
def test_simple_table_becomes_a_markdown_table_with_continuation_lines_joined():
    text = "\n".join([
        "=======  ====================",
        "players  2 (``player_0`` first)",
        "actions  9: ``cell = 3 * row``",
        "         ``+ col``",
        "=======  ====================",
    ])
    lines = rst_markdown.rst_to_markdown(text).strip().splitlines()
    assert lines == [
        "|  |  |",
        "|---|---|",
        "| players | 2 (`player_0` first) |",
        "| actions | 9: `cell = 3 * row` `+ col` |",
    ]


def test_table_with_a_header_and_a_pipe_inside_a_cell():
    text = "\n".join([
        "=====  =====",
        "name   games",
        "=====  =====",
        "a|b    all",
        "=====  =====",
    ])
    lines = rst_markdown.rst_to_markdown(text).strip().splitlines()
    assert lines[0] == "| name | games |"
    assert lines[2] == "| a\\|b | all |"


def test_literal_block_becomes_a_fence_and_keeps_its_indentation():
    text = "Cell numbering::\n\n    0 | 1\n      --+--\n    2 | 3\n\nAfter."
    md = rst_markdown.rst_to_markdown(text)
    assert md == "Cell numbering:\n\n```text\n0 | 1\n  --+--\n2 | 3\n```\n\nAfter.\n"


def test_roles_literals_and_titles():
    text = "Title\n-----\nSee :class:`~farl_envs.core.spec.GameSpec`, :mod:`farl_envs.core.rng` and ``x``."
    md = rst_markdown.rst_to_markdown(text, heading_level=3)
    assert md == "### Title\n\nSee `GameSpec`, `farl_envs.core.rng` and `x`.\n"


def test_title_written_over_two_lines_is_one_heading():
    text = "Intro.\n\nTwo players (checked against\npyspiel 2.0.2)\n---------------------\nBody."
    md = rst_markdown.rst_to_markdown(text)
    assert md == "Intro.\n\n## Two players (checked against pyspiel 2.0.2)\n\nBody.\n"


def test_indented_prose_is_not_turned_into_a_code_block_but_google_sections_keep_their_indent():
    text = "Summary.\n\n    indented prose\n\nArgs:\n    game: a ``name``.\n        More on game.\n\nEnd."
    md = rst_markdown.rst_to_markdown(text)
    assert "\nindented prose\n" in md
    assert "Args:\n    game: a `name`.\n        More on game.\n" in md


def test_definition_list_items_become_bullets_with_the_definition_joined():
    text = ("Kernels:\n\n``board(p, s, out)``\n    the cells\n    into ``out``.\n"
            "``observe(p, s)``\n    planes.\n\nAfter.")
    md = rst_markdown.rst_to_markdown(text)
    assert md == "Kernels:\n\n* `board(p, s, out)`: the cells into `out`.\n* `observe(p, s)`: planes.\n\nAfter.\n"


# ------------------------------------------------------------------------------------------ game pages
def test_every_registered_game_has_an_up_to_date_page_and_a_picture():
    names = gen_game_pages.game_names()
    assert sorted(n + "_v0" for n in names) == sorted(farl_envs.list_games())
    stale = gen_game_pages.stale(names)
    assert not stale, f"stale docs files {stale}: run python docs/gen_game_pages.py"


def test_game_page_shows_the_rules_docstring_and_the_chance_semantics():
    page_2048 = gen_game_pages.page("game2048")
    # a phrase of game2048's docstring, literal block turned into a fence, the chance section
    assert "the pair\nnearest the wall" in page_2048
    assert "**chance events**" in page_2048
    page_ttt = gen_game_pages.page("tictactoe")
    assert "```text\n0 | 1 | 2\n" in page_ttt
    assert "Moves are deterministic" in page_ttt
    assert "| actions | 9 |" in page_ttt


def test_long_game_modules_state_why_and_their_pages_leave_that_note_out():
    """A game module over ~400 lines says why right under its first line; the note is about the code,
    so the game's page starts with the rules instead."""
    for name in gen_game_pages.game_names():
        module = gen_game_pages.rules_module(name)
        lines = len(Path(module.__file__).read_text(encoding="utf-8").splitlines())
        note = (module.__doc__ or "").split("\n\n")[1].lstrip()
        if lines > 400:
            assert note.startswith(gen_game_pages.SIZE_NOTE), f"{module.__name__}: {lines} lines and no reason"
        page = gen_game_pages.page(name)
        assert "400 lines" not in page, name


def test_nim3p_page_names_its_own_env_although_it_shares_nim_rules():
    page = gen_game_pages.page("nim3p")
    assert page.startswith("# nim3p_v0\n\nThree-player Nim")
    assert "From the docstring of `farl_envs.games.nim`." in page


# ------------------------------------------------------------------------------------------ the nav
def _nav_files() -> list[str]:
    """The Markdown files the nav of mkdocs.yml names (read as text: the docs extra may be missing)."""
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8").split("\nnav:\n", 1)[1]
    return re.findall(r"^\s*- (?:[^\n]*?: )?([\w/.-]+\.md)\s*$", text, flags=re.M)


def test_nav_names_existing_pages_the_user_guides_and_every_api_page():
    nav = _nav_files()
    assert len(nav) == len(set(nav)), "a page is listed twice"
    missing = [f for f in nav if not (ROOT / "docs" / f).is_file()]
    assert not missing, f"the nav names pages that do not exist: {missing}"
    for guide in ("index.md", "tutorial.md", "adapters.md", "serve.md"):
        assert guide in nav, guide
    api_pages = sorted(f"api/{p.name}" for p in (ROOT / "docs" / "api").glob("*.md"))
    assert sorted(f for f in nav if f.startswith("api/")) == api_pages
    assert {"api/pretrained.md", "api/serve.md"} <= set(api_pages)
    results = sorted(f"results/{p.name}" for p in (ROOT / "docs" / "results").glob("*.md"))
    assert sorted(f for f in nav if f.startswith("results/")) == results, "every results page is in the nav"


# ------------------------------------------------------------------------------------------ the build
@pytest.mark.slow  # ~10 s: the whole site; the default run checks the nav and the generated pages above
def test_mkdocs_build_strict(tmp_path):
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings_handlers.python")
    pytest.importorskip("material")
    site = tmp_path / "site"
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"),
                           "-d", str(site)], cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    # the API reference is made from the docstrings, the game pages carry their pictures
    api = (site / "api" / "envs" / "index.html").read_text()
    assert "make_raw" in api and "The registered Gymnasium id of game" in api
    assert "farl_agents.serve.files.load_agent" in (site / "api" / "serve" / "index.html").read_text()
    assert "farl_agents.zoo.card" in (site / "api" / "pretrained" / "index.html").read_text()
    ttt = (site / "games" / "tictactoe" / "index.html").read_text()
    assert "images/games/tictactoe.png" in ttt
    assert (site / "images" / "games" / "tictactoe.png").exists()
