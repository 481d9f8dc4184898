"""The per-ply Table 1 rows (the paper's rows with the TD chain through every ply): settings, names,
and an end-to-end smoke run whose page sets them beside the player-centred runs."""
import json
from pathlib import Path

import numpy as np
import pytest

from farl_agents.learners.presets import per_ply_lambda, player_centred_lambda
from studies.table1 import table1
from studies.table1.table1_rows import PLY_ROWS, ROWS, find_row, prefix


def test_ply_rows_repeat_the_paper_rows_with_the_ply_chain_only():
    assert set(PLY_ROWS) == {"tictactoe-ply", "connect4-ply", "hex-ply", "othello-ply", "nim-ply", "nim3p-ply"}
    for key, row in PLY_ROWS.items():
        base = ROWS[row.paper_key]
        assert key == base.key + "-ply" and row.group == "ply" and not row.paper_figures
        assert (row.game, row.opponents, row.starts, row.game_params) == \
            (base.game, base.opponents, base.starts, base.game_params)
        assert table1.plan(row, "paper") == table1.plan(base, "paper")
        for farl in (True, False):
            mine, theirs = row.config(farl), base.config(farl)
            assert mine.td_chain == "ply" and theirs.td_chain == "player" and mine.farl == farl
            changed = {k for k, v in vars(mine).items() if vars(theirs)[k] != v}
            assert changed <= {"td_chain", "lam"}
            # a trace decays as much over a round of plies (two, Nim3P three) as the paper's does over one entry
            # of a player's chain
            assert np.isclose(mine.lam ** (3 if row.game == "nim3p" else 2), theirs.lam)
    assert PLY_ROWS["nim-ply"].config(True).lam == pytest.approx(0.5 ** 0.5)
    assert PLY_ROWS["connect4-ply"].percent and PLY_ROWS["connect4-ply"].config(True).lam == 0.0


def test_final_adaptation_changes_nothing_on_the_per_ply_chain():
    """Why a per-ply row trains one column: with the same seed, FARL on and off give the same weights."""
    import farl_envs
    from farl_agents.learners.agent import NTupleAgent

    row = PLY_ROWS["tictactoe-ply"]
    game = farl_envs.game_spec(row.game, **row.game_params)
    weights = {}
    for farl in (True, False):
        agent = NTupleAgent(game, row.config(farl, episodes=300, seed=4))
        agent.train(300)
        weights[farl] = agent.net.weights.copy()
    assert np.array_equal(weights[True], weights[False]) and np.abs(weights[True]).max() > 0
    centred = {farl: NTupleAgent(game, ROWS["tictactoe"].config(farl, episodes=300, seed=4)) for farl in (True, False)}
    for agent in centred.values():
        agent.train(300)
    assert not np.array_equal(centred[True].net.weights, centred[False].net.weights)   # where FARL does act


def test_per_ply_lambda_inverts_the_player_centred_one():
    for lam in (0.0, 0.3, 0.5, 0.8, 1.0):
        assert player_centred_lambda(per_ply_lambda(lam)) == pytest.approx(lam)


def test_names_and_files():
    assert [r.key for r in table1.parse_rows("ply")] == list(PLY_ROWS)
    assert [r.key for r in table1.parse_rows("connect4-ply,connect4")] == ["connect4-ply", "connect4"]
    assert "connect4-ply" not in [r.key for r in table1.parse_rows("all")]   # `all` stays the paper's table
    assert find_row("nim3p-ply").config(False).lam == pytest.approx(0.5 ** (1 / 3))  # three players
    with pytest.raises(ValueError, match="2048-ply"):
        find_row("2048-ply")   # one player: the player-centred chain already runs through every ply
    assert prefix("paper", "ply") == "table1_ply" and prefix("quick", "ply") == "table1_ply_quick"
    assert table1.run_folder("o", "paper", PLY_ROWS["hex-ply"], True, 2).as_posix() == \
        "o/table1_ply_runs/hex-ply/farl-seed2"


def test_smoke_run_end_to_end_beside_the_player_centred_runs(tmp_path):
    ply, centred = PLY_ROWS["tictactoe-ply"], ROWS["tictactoe"]
    logs = []
    assert table1.reproduce([ply, centred], runs=1, jobs=1, budget="smoke", out=tmp_path, progress=False,
                            log=logs.append) == 0
    assert "3 runs, 0 already finished" in logs[0]          # FARL and no-FARL player-centred, one column per ply
    short = next(x for x in logs if "| TicTacToe per ply |" in x)   # the short table the command prints
    assert "| -- | " in short and "not run" not in short
    run = json.loads((table1.run_folder(tmp_path, "smoke", ply, False, 0) / "run.json").read_text())
    assert run["config"]["td_chain"] == "ply" and not run["config"]["farl"]
    assert not table1.run_folder(tmp_path, "smoke", ply, True, 0).exists()
    md = (tmp_path / "table1_ply_smoke.md").read_text()
    line = next(x for x in md.splitlines() if x.startswith("| TicTacToe per ply |"))
    cells = [c.strip() for c in line.strip("|").split("|")]
    assert cells[2:4] == ["49 % ± 5 %", "18 % ± 6 %"]                 # the paper's figures of the row it repeats
    assert all(c.endswith("(1 run)") for c in cells[4:7])            # player-centred FARL, no-FARL; per ply
    assert (tmp_path / "table1_ply_smoke_tictactoe-ply.png").stat().st_size > 0
    assert "Connect" not in md                                         # rows without runs are left out
    assert "| TicTacToe per ply |" not in (tmp_path / "table1_smoke.md").read_text()


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _same(a: str, b: str) -> bool:
    """One figure written two ways: ``50.0 % ± 0.0 % (10 runs)`` and ``50.0 % ± 0.0 (10 runs)``."""
    return a.replace("%", "").split() == b.replace("%", "").split()


def test_figures_quoted_in_farl_when_are_those_of_the_per_ply_page():
    """farl_when.md copies the per-ply table's cells by hand: each must still be the page's."""
    root = Path(__file__).resolve().parents[1] / "docs" / "results"
    page = {}
    title = None
    for line in (root / "table1_ply.md").read_text().splitlines():
        if line.startswith("| ") and " per ply |" in line or (title and line.startswith("|  | ")):
            c = _cells(line)
            title = c[0].removesuffix(" per ply") or title
            page[(title.replace(" ", ""), c[1])] = (c[4], c[5], c[6])
        elif not line.startswith("|"):
            title = None
    start = (root / "farl_when.md").read_text().split("| game | vs | player-centred FARL")[1]
    body = start.splitlines()[2:]
    quoted = [_cells(x) for x in body[:next(i for i, x in enumerate(body) if not x.startswith("|"))]]
    assert len(quoted) >= 5
    for game, opponent, *figures in quoted:
        key = (game.replace(" ", ""), opponent)
        assert key in page, f"farl_when.md quotes {key}, which table1_ply.md does not have"
        assert all(_same(a, b) for a, b in zip(figures, page[key])), (key, figures, page[key])
