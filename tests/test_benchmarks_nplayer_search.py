"""benchmarks/nplayer_search.py without asserting any speed: its probe positions and the page it writes."""
from __future__ import annotations

import numpy as np
import pytest
from script_modules import load_script

import farl_envs
from farl_envs.core.spec import TERMINAL


@pytest.fixture(scope="module")
def nplayer_search():
    return load_script("benchmarks", "nplayer_search")


def test_probe_positions_are_live_distinct_and_deeper_each_time(nplayer_search):
    game = farl_envs.game_spec("chinese_checkers", players=3, max_moves=300)
    positions = nplayer_search.probe_positions(game, plies=(2, 5, 9))
    assert len(positions) == 3
    assert not any(s[TERMINAL] for s in positions)
    assert len({s.tobytes() for s in positions}) == 3
    # the same seed gives the same game: the later position continues the earlier one's game
    again = nplayer_search.probe_positions(game, plies=(5,))
    assert np.array_equal(again[0], positions[1])


def test_a_game_that_ends_first_gives_only_the_positions_before_its_end(nplayer_search):
    game = farl_envs.game_spec("sim", players=3)   # 66 edges: a random game ends long before 500 moves
    positions = nplayer_search.probe_positions(game, plies=(3, 500))
    assert len(positions) == 1


@pytest.mark.slow  # ~9 s: a whole benchmark page; its probe positions stay in the default run
def test_page_names_the_limits_it_was_run_with(nplayer_search, tmp_path, monkeypatch):
    monkeypatch.setattr(nplayer_search, "GAMES", nplayer_search.GAMES[:1])   # Sim alone: the fastest to search
    raw = tmp_path / "raw.json"
    out = tmp_path / "page.md"
    assert nplayer_search.main(["--limit", "0.02", "--games", "0", "--raw", str(raw), "--out", str(out)]) == 0
    page = out.read_text()
    assert "slowest move took at most 0.02 CPU s" in page
    assert "Not measured" not in page
    rows = [line for line in page.splitlines() if line.startswith("| sim 3p (K12) |")]
    assert rows and {r.split(" | ")[1] for r in rows} == {"Max-N", "Paranoid"}
