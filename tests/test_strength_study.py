"""The strength study (studies/strength): its rows are valid `farl eval` commands, it resumes from the rows on
disk, and its page reads the issue's targets off them."""
from __future__ import annotations

import json

import pytest

from farl_agents import cli
from studies.strength import strength


def test_every_row_names_players_and_opponents_the_parser_takes():
    from farl_agents.opponents import parse_opponent
    from farl_agents.opponents.wrappers import split_wrapped

    ids = [r.id for r in strength.ROWS]
    assert len(ids) == len(set(ids))
    for row in strength.ROWS:
        for name in (row.player, row.vs):
            if name is None or name.startswith(str(strength.RUNS)):
                continue
            wrapped = split_wrapped(name)
            if wrapped is None:
                parse_opponent(name)
            else:
                assert wrapped.inner == "pretrained" or wrapped.inner.startswith(str(strength.RUNS)), row
        assert row.argv()[:2] == ["eval", row.player]


def test_a_row_runs_once_and_the_page_reads_it(tmp_path, monkeypatch):
    row = strength.Row("ttt-agent-mcts5-vs-random", "tictactoe", "pretrained+mcts5", "random", "initial", 2)
    monkeypatch.setattr(strength, "ROWS", [row])
    first = strength.run_row(row, tmp_path)
    assert first["matchups"][0]["n_games"] == 4 and first["strength_row"]["command"] == row.command()
    calls = []
    monkeypatch.setattr(cli, "main", lambda argv: calls.append(argv) or 1)
    assert strength.run_row(row, tmp_path) == json.loads((tmp_path / f"{row.id}.json").read_text())
    assert calls == []  # resumed from disk, nothing played
    page = strength.write_page(tmp_path, tmp_path / "out").read_text()
    assert strength.cell(first) in page and f"`{row.command()}`" in page


@pytest.mark.parametrize("rate, verdict", [(0.95, "met"), (0.5, "not met")])
def test_in_short_states_whether_the_hex_target_is_met(tmp_path, rate, verdict):
    result = {"metric": "win_rate", "matchups": [{"win_rate": rate, "win_rate_se": 0.01, "n_games": 100}]}
    (tmp_path / "hex-agent-mcts1000-vs-mcts10000.json").write_text(json.dumps(result))
    lines = strength.in_short(tmp_path)
    hex_line = next(line for line in lines if line.startswith("* Hex 6x6"))
    assert hex_line.endswith(f": {verdict}.")
