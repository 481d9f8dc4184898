"""benchmarks/vs_gbg.py without timing: the skip paths and the table formatter."""
from __future__ import annotations

import pytest
from script_modules import load_script


@pytest.fixture(scope="module")
def vs_gbg():
    return load_script("benchmarks", "vs_gbg")


def test_skips_without_checkout(vs_gbg, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(vs_gbg.shutil, "which", lambda tool: f"/usr/bin/{tool}")
    assert vs_gbg.main(["--gbg", str(tmp_path / "no-such-gbg")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("skipped: no GBG checkout at ")
    assert vs_gbg.main([]) == 0
    assert capsys.readouterr().out.startswith("skipped: no GBG checkout given")


def test_skips_without_java(vs_gbg, tmp_path, capsys, monkeypatch):
    (tmp_path / "src" / "starters").mkdir(parents=True)
    (tmp_path / "src" / "starters" / "SetupGBG.java").write_text("")
    monkeypatch.setattr(vs_gbg.shutil, "which", lambda tool: None if tool == "java" else f"/usr/bin/{tool}")
    assert vs_gbg.main(["--gbg", str(tmp_path)]) == 0
    assert capsys.readouterr().out.startswith("skipped: java not found on PATH")


def test_skips_when_an_agent_file_is_missing(vs_gbg, tmp_path, capsys, monkeypatch):
    (tmp_path / "src" / "starters").mkdir(parents=True)
    (tmp_path / "src" / "starters" / "SetupGBG.java").write_text("")
    monkeypatch.setattr(vs_gbg.shutil, "which", lambda tool: f"/usr/bin/{tool}")
    assert vs_gbg.main(["--gbg", str(tmp_path), "--games", "tictactoe"]) == 0
    assert capsys.readouterr().out.startswith("skipped: GBG's agent file agents/TicTacToe/tdntuple3.agt.zip")


def test_every_game_has_a_gbg_agent_and_a_budget(vs_gbg):
    for game in vs_gbg.GBG_AGENTS:
        warmup, games = vs_gbg.budget(game)
        assert 1 <= warmup < games
        assert vs_gbg.budget(game, 3.0) == (3 * games // 4, 3 * games)


def test_table_formats_known_numbers(vs_gbg):
    rows = [{"game": "connect_four", "gbg": [600.0, 630.0, 615.0], "farl": [1800.0, 1600.0, 1830.0],
             "gbg_process": [500.0, 520.0, 540.0], "gbg_plies": 21.64, "farl_plies": 21.5},
            {"game": "othello", "gbg": [53.0, 59.0, 55.0], "farl": [93.0, 120.0, 100.0],
             "gbg_process": [50.0, 52.0, 51.0], "gbg_plies": 57.3, "farl_plies": 57.26}]
    lines = vs_gbg.format_table(rows).splitlines()
    assert len(lines) == 4
    assert lines[0].startswith("| game | GBG games / CPU-s")
    assert lines[2] == ("| connect_four | 600 / 615 / 630 | 1,600 / 1,800 / 1,830 | 2.93 (2.54–3.05) | 520 "
                        "| 21.6, 21.5 |")
    assert lines[3] == "| othello | 53 / 55 / 59 | 93 / 100 / 120 | 1.82 (1.58–2.26) | 51 | 57.3, 57.3 |"
