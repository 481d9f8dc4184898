"""The full-budget Nemesh vs TD-FARL script on tiny budgets: stages, CPU accounting, resumption, the page."""
import json

import pytest

from studies.nemesh import full_budget


def test_same_time_episodes_scales_by_the_cpu_ratio():
    assert full_budget.same_time_episodes(600.0, 60.0, 5_000) == 50_000
    assert full_budget.same_time_episodes(1.0, 1_000.0, 10) == 1
    with pytest.raises(ValueError):
        full_budget.same_time_episodes(0.0, 60.0, 5_000)


@pytest.mark.slow  # ~60 CPU s cold (its own Nemesh and TD-FARL loops); the default run's budget is 10 minutes
def test_tiny_study_trains_evaluates_and_writes_the_page(tmp_path):
    work, page = tmp_path / "work", tmp_path / "page.md"
    argv = ["--work", str(work), "--out", str(page), "--fraction", "0.0005", "--td-episodes", "600",
            "--games", "2", "--mcts", "5"]
    assert full_budget.main(argv) == 0
    td, nm, same = (json.loads((work / f"{s}.json").read_text()) for s in ("tdfarl", "nemesh", "tdfarl-same-time"))
    assert td["episodes"] == 600 and nm["games"] == 151 and nm["cpu_seconds"] > 0
    assert same["episodes"] == full_budget.same_time_episodes(nm["cpu_seconds"], td["cpu_seconds"], 600)
    rows = json.loads((work / "eval.json").read_text())["rows"]
    assert [(r["player"], r["opponent"]) for r in rows] == [
        ("nemesh", "random"), ("td-farl-full", "random"), ("td-farl-same-time", "random"),
        ("nemesh", "mcts5"), ("td-farl-full", "mcts5"), ("td-farl-same-time", "mcts5"),
        ("nemesh", "td-farl-full"), ("nemesh", "td-farl-same-time")]
    assert [r["games"] for r in rows] == [4, 4, 4, 2, 2, 2, 4, 4]  # 2 per seat, half of it against MCTS
    text = page.read_text()
    assert "| Nemesh | the report's curriculum | 151 |" in text and "| nemesh | td-farl-full | random:2 | 4 |" in text
    # the findings come first and are read off the rows
    assert text.index("## In short") < text.index("## Training")
    h2h = next(r for r in rows if r["opponent"] == "td-farl-full")
    assert f"scores {full_budget.pct(h2h['win_rate'], se=h2h['se'])} against TD-FARL at its own budget" in text
    assert "* **Against MCTS5**" in text
    # finished stages are skipped: a second call trains nothing and keeps the results
    assert full_budget.main(argv) == 0
    assert json.loads((work / "nemesh.json").read_text()) == nm
    # the evaluation again on 2 worker processes: the same games, so the same results
    (work / "eval.json").unlink()
    (work / "eval.partial.json").unlink()
    assert full_budget.main(argv + ["--stages", "eval", "--jobs", "2"]) == 0

    def results(rows):
        return [{k: v for k, v in r.items() if k != "seconds"} for r in rows]

    assert results(json.loads((work / "eval.json").read_text())["rows"]) == results(rows)


def test_jobs_must_be_a_whole_number_of_workers(capsys):
    with pytest.raises(SystemExit):
        full_budget.main(["--jobs", "0"])
    assert "--jobs must be an integer" in capsys.readouterr().err


def test_lost_cpu_record_is_extrapolated_and_a_changed_run_refused(tmp_path):
    folder = tmp_path / "td"
    spec = full_budget.tdfarl_spec(0, 400)
    first = full_budget.train_timed(folder, spec, "test", log=lambda *a: None)
    assert first["done"] == 400 and first["estimated"] == 0
    # the process ended after the run's last checkpoint but before cpu.json: the record lags the run
    lagging = {**first, "done": 100, "cpu_seconds": 1.0, "last_rate": 0.01}
    (folder / "cpu.json").write_text(json.dumps(lagging))
    again = full_budget.train_timed(folder, spec, "test", log=lambda *a: None)
    assert again["estimated"] == 300 and again["cpu_seconds"] == pytest.approx(1.0 + 300 * 0.01)
    with pytest.raises(ValueError, match="other settings"):
        full_budget.train_timed(folder, full_budget.tdfarl_spec(0, 500), "test")
