"""The AlphaZero contest (studies/alphazero): equal CPU budgets, cached tasks, the page from finished runs.

A tiny TicTacToe contest of two contestants (TD-FARL, also searched, and AlphaZero) on budgets of seconds;
skipped without torch (the ``baselines`` extra).
"""
import json

import pytest

pytest.importorskip("torch")

from studies.alphazero import contest, contest_report  # noqa: E402

MINUTES = 0.03


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    out = tmp_path_factory.mktemp("contest")
    arena = contest.Arena("tictactoe", {}, (MINUTES,), ("maxn10", "random"), "maxn10", "start+1ply",
                          final_games=2, curve_games=1)
    mp = pytest.MonkeyPatch()
    mp.setattr(contest, "ARENAS", {"tictactoe": arena})
    mp.setattr(contest, "CALIBRATION_SECONDS", 1.0)
    results = contest.contest(["tictactoe"], seeds=1, out=out, learners=("td-farl", "alphazero"), log=lambda *a: None)
    yield out, arena, results
    mp.undo()


@pytest.mark.slow  # ~8 s: the contest study's smoke run
def test_every_contestant_gets_the_same_cpu_minutes(tiny):
    out, arena, results = tiny
    by = {r["learner"]: r for r in results}
    assert set(by) == {"td-farl", "alphazero"} and all(r["status"] == "done" for r in results)
    rate = json.loads((out / "calibration.json").read_text())["tictactoe/td-farl"]["units_per_cpu_second"]
    assert by["td-farl"]["count"] == round(rate * 60 * MINUTES)  # the episodes its own speed buys
    assert by["td-farl"]["episodes"] == by["td-farl"]["count"]
    assert by["alphazero"]["train_seconds"] >= 60 * MINUTES  # counted on its own (CPU) clock
    assert set(by["td-farl"]["scores"]) == {"td-farl", "td-farl+mcts"}  # the bare agent and the searched one
    for r in results:
        for scores in r["scores"].values():
            assert 0.0 <= scores["maxn10"]["score"] <= 0.5  # the perfect player is never beaten
            assert set(scores) == {"eval_seconds", "maxn10", "random"}
        assert [row["train_seconds"] for row in r["curve"]] == sorted(row["train_seconds"] for row in r["curve"])
        assert len(r["curve"]) >= contest.CURVE_POINTS


def test_finished_tasks_are_not_trained_again(tiny, monkeypatch):
    out, _, results = tiny

    def no_training(*a, **k):
        raise AssertionError("a finished task was trained again")

    monkeypatch.setattr(contest.Run, "create", no_training)
    monkeypatch.setattr(contest.Run, "open", no_training)
    again = contest.contest(["tictactoe"], seeds=1, out=out, learners=("td-farl", "alphazero"),
                            log=lambda *a: None)
    assert again == results


def test_the_page_has_a_row_per_contestant_and_keeps_its_answer(tiny, tmp_path):
    out, _, results = tiny
    page = tmp_path / "page.md"
    page.write_text("old\n<!-- answer -->\nThe reading.\n<!-- /answer -->\nold tail\n")
    contest_report.write_report(out, page, ["tictactoe"], seeds=1)
    text = page.read_text()
    assert "The reading." in text and "old tail" not in text
    td = [r for r in results if r["learner"] == "td-farl"][0]
    cell = td["scores"]["td-farl+mcts"]["random"]  # one run: its own s.e. over its games
    assert f"| td-farl+mcts | {MINUTES:g} | 1 |" in text
    assert f"{100 * cell['score']:.1f} ± {100 * cell['se']:.1f}" in text
    for name in ("| td-farl |", "| alphazero |"):
        assert name in text
    assert "descent" in text.split("## Still to run")[1]  # the contestants not trained are listed as left
    assert (tmp_path / "alphazero_vs_ntuple_tictactoe.png").stat().st_size > 1000


def test_farl_reproduce_alphazero_writes_the_page_from_the_runs_there(tiny, capsys):
    from farl_agents import cli

    out, _, _ = tiny
    assert cli.main(["reproduce", "alphazero", "--table-only", "--runs", "1", "--out", str(out)]) == 0
    page = out / "alphazero_vs_ntuple.md"
    assert f"wrote {page}" in capsys.readouterr().out
    assert "| td-farl+mcts |" in page.read_text()
    assert cli.main(["reproduce", "alphazero", "--table-only", "--backend", "ray", "--out", str(out)]) == 2
    assert "one run at a time" in capsys.readouterr().err


def test_a_run_stopped_by_a_signal_stops_the_contest(tmp_path, monkeypatch):
    """SIGTERM stops a run at a safe point (status ``interrupted``); the contest must stop too, not go on to
    the next task (it did: a killed contest kept training in the background)."""
    calls = []

    def stopped(out, arena, minutes, learner, seed, log=print):
        calls.append(learner)
        return {"status": "interrupted"}

    monkeypatch.setattr(contest, "run_task", stopped)
    with pytest.raises(KeyboardInterrupt):
        contest.contest(["tictactoe"], seeds=1, out=tmp_path, log=lambda *a: None)
    assert calls == ["td-farl"]
