"""docs/adding_a_game.md works as written: its rules module, registered from outside farl, passes PettingZoo's
``api_test`` and plays as the page says; its registry line is a line farl's own registry could hold.

The page's ``python`` blocks run in a fresh Python (the registration must not leak into this process's registry,
which other tests iterate); the block titled ``takeaway.py`` is written to that file first.
"""
from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import farl_envs

PAGE = Path(__file__).resolve().parent.parent / "docs" / "adding_a_game.md"
BLOCK = re.compile(r"^```python(?: title=\"(?P<title>[^\"]*)\")?\n(?P<code>.*?)^```", re.M | re.S)


def _blocks() -> list[tuple[str, str]]:
    """``(title, code)`` of every python block of the page, in order (title "" when it has none)."""
    return [(m["title"] or "", m["code"]) for m in BLOCK.finditer(PAGE.read_text(encoding="utf-8"))]


def test_the_page_builds_its_game_registers_it_and_passes_api_test(tmp_path):
    blocks = _blocks()
    module = [code for title, code in blocks if title == "takeaway.py"]
    script = [code for title, code in blocks if not title]
    assert len(module) == 1 and len(script) >= 3, "the page has its rules module and its script parts"
    (tmp_path / "takeaway.py").write_text(module[0], encoding="utf-8")
    (tmp_path / "walkthrough.py").write_text("\n".join(script) + '\nprint("walked through")\n', encoding="utf-8")
    proc = subprocess.run([sys.executable, "walkthrough.py"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "api_test" in "".join(script)  # the walk-through really runs PettingZoo's checker
    assert proc.stdout.splitlines()[-2:] == ["0 counters left", "walked through"]
    assert "takeaway_v0" not in farl_envs.list_games()  # the fresh Python's registry, not this one's


def test_the_page_registry_line_is_one_farl_could_hold():
    line = [code for title, code in _blocks() if title.startswith("farl_envs/__init__.py")]
    assert len(line) == 1
    entry = ast.parse("{" + line[0].strip() + "}", mode="eval").body
    key, call = entry.keys[0].value, entry.values[0]
    assert isinstance(call, ast.Call) and call.func.id == type(farl_envs.GAMES["tictactoe"]).__name__
    version, gym_id, builder = (arg.value for arg in call.args)
    assert (key, version, gym_id) == ("takeaway", 0, "farl/TakeAway-v0")
    assert builder == "farl_envs.games.takeaway:make_spec"
    own = farl_envs.GAMES["tictactoe"]
    assert own.make_spec == "farl_envs.games.tictactoe:make_spec" and own.gymnasium_id == "farl/TicTacToe-v0"
