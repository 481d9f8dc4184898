"""`farl reproduce table1`: cached, resumable runs, the table and the curves (smoke budget)."""
import dataclasses
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from farl_agents import cli
from farl_agents.learners import NTupleAgent, paper_config
from farl_agents.runs import LostCheckpoint, Run, read_curve
from studies.table1 import table1


def reproduce(out, *extra) -> int:
    return cli.main(["reproduce", "table1", "--budget", "smoke", "--jobs", "1", "--quiet", "--out", str(out),
                     *map(str, extra)])


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    out = tmp_path_factory.mktemp("table1")
    # one run is already half done (as after Ctrl-C): reproduce must resume it, not restart it
    folder = table1.run_folder(out, "smoke", table1.ROWS["tictactoe"], True, 0)
    half = Run.create(folder, table1.run_spec(table1.ROWS["tictactoe"], True, 0, "smoke"))
    assert half.train(stop_after=120, progress=False) == "stopped"
    assert reproduce(out, "--rows", "tictactoe,nim", "--runs", 1) == 0
    return out


def test_outputs_and_table(results):
    md = (results / "table1_smoke.md").read_text()
    assert "farl reproduce table1 --budget smoke --jobs 1 --quiet" in md and "--rows tictactoe,nim" in md
    rows = [line for line in md.splitlines() if line.startswith("| ") and "---" not in line]
    lines = {line.split("|")[1].strip(): line for line in rows}
    ttt, nim = lines["TicTacToe"], lines["Nim 3x5"]
    assert "49 % ± 5 %" in ttt and "18 % ± 6 %" in ttt  # the paper's figures
    assert ttt.count("(1 run)") == 2 and nim.count("(1 run)") == 2  # our cells say how many runs they have
    assert "not run" in lines["Hex 6x6"] and "81 % ± 5 %" in lines["Hex 6x6"]
    assert "142,000 ± 1,000" in lines["2048"]
    assert "smoke" in md and "per run" in ttt
    for row in ("tictactoe", "nim"):
        assert (results / f"table1_smoke_{row}.png").read_bytes()[:4] == b"\x89PNG"
        for cell in ("farl-seed0", "nofarl-seed0"):
            folder = results / "table1_smoke_runs" / row / cell
            result = json.loads((folder / "result.json").read_text())
            assert result["episodes"] == 200 and 0.0 <= result["scores"]["maxn10" if row == "tictactoe"
                                                                          else "maxn15"] <= 1.0
            final = json.loads((folder / "final_eval.json").read_text())
            assert final["metric"] == "win_rate" and final["matchups"][0]["n_games"] == 4  # 2 per seat
            assert [r["episode"] for r in read_curve(folder / "curve.csv")] == [0, 100, 200]
            assert (folder / "agent.npz").is_file() and (folder / "run.json").is_file()


def test_resumed_run_equals_a_fresh_one(results, tmp_path):
    fresh = Run.create(tmp_path / "fresh", table1.run_spec(table1.ROWS["tictactoe"], True, 0, "smoke"))
    assert fresh.train(progress=False) == "done"
    cached = NTupleAgent.load(results / "table1_smoke_runs" / "tictactoe" / "farl-seed0" / "agent.npz")
    assert np.array_equal(cached.net.weights, fresh.trainer.agent.net.weights)
    farl_cfg = cached.config
    nofarl_cfg = NTupleAgent.load(results / "table1_smoke_runs" / "tictactoe" / "nofarl-seed0" / "agent.npz").config
    assert farl_cfg == paper_config("tictactoe", farl=True, seed=0, episodes=200)
    assert nofarl_cfg == paper_config("tictactoe", farl=False, seed=0, episodes=200)


def test_table_only_rewrites_the_readme_block(results, tmp_path, capsys):
    readme = tmp_path / "README.md"
    readme.write_text("# x\n\nbefore\n<!-- table1:smoke start -->\nold table\n<!-- table1:smoke end -->\nafter\n")
    before = {p: p.read_text() for p in (results / "table1_smoke_runs").glob("*/*/result.json")}
    assert reproduce(results, "--table-only", "--rows", "tictactoe", "--readme", readme) == 0
    assert {p: p.read_text() for p in (results / "table1_smoke_runs").glob("*/*/result.json")} == before
    text = readme.read_text()
    assert text.startswith("# x\n\nbefore\n<!-- table1:smoke start -->\n| game |") and "old table" not in text
    assert text.endswith("<!-- table1:smoke end -->\nafter\n")
    block = [line for line in text.splitlines() if line.startswith("| TicTacToe")]
    assert len(block) == 1 and block[0].count("(1 run)") == 2 and "49 % ± 5 %" in block[0]
    assert "Nim 3x5" not in text  # only the rows asked for
    md = (results / "table1_smoke.md").read_text()
    assert "farl reproduce table1 --rows nim --budget smoke" in md  # the commands that started the runs
    # a README without the block, and a missing one: one-line errors, exit code 2
    readme.write_text("# no markers\n")
    assert reproduce(results, "--table-only", "--readme", readme) == 2
    err = capsys.readouterr().err.strip()
    assert "<!-- table1:smoke start -->" in err and "\n" not in err
    assert reproduce(results, "--table-only", "--readme", tmp_path / "missing.md") == 2


def test_second_invocation_skips_finished_runs(results, capsys):
    before = (results / "table1_smoke_runs" / "nim" / "farl-seed0" / "result.json").read_text()
    assert reproduce(results, "--rows", "nim", "--runs", 1) == 0
    out = capsys.readouterr().out
    assert "2 runs, 2 already finished, 0 to train" in out
    assert (results / "table1_smoke_runs" / "nim" / "farl-seed0" / "result.json").read_text() == before
    md = (results / "table1_smoke.md").read_text()
    assert "TicTacToe" in md and md.count("(1 run)") == 4  # rows finished earlier stay in the table


def test_foreign_run_folder_is_reported_not_overwritten(tmp_path, capsys):
    folder = table1.run_folder(tmp_path, "smoke", table1.ROWS["tictactoe"], False, 0)
    spec = table1.run_spec(table1.ROWS["tictactoe"], False, 0, "smoke")
    Run.create(folder, spec.__class__(spec.game, spec.game_params, spec.config.replace(alpha=0.3),
                                      spec.eval_vs, spec.eval_every, spec.eval_games, spec.eval_starts,
                                      spec.eval_seed))
    code = table1.reproduce([table1.ROWS["tictactoe"]], runs=1, jobs=1, budget="smoke", out=tmp_path,
                            progress=False)
    assert code == 1
    assert "other settings" in capsys.readouterr().out
    assert (folder / "error.txt").is_file() and not (folder / "result.json").exists()
    md = (tmp_path / "table1_smoke.md").read_text()
    assert "(1 run)" in md  # the FARL run finished and is tabulated


def test_unfinished_run_shows_its_progress(tmp_path):
    row = table1.ROWS["tictactoe"]
    folder = table1.run_folder(tmp_path, "smoke", row, True, 0)
    run = Run.create(folder, table1.run_spec(row, True, 0, "smoke"))
    assert run.train(stop_after=100, progress=False) == "stopped"  # as after Ctrl-C at episode 100
    points = read_curve(folder / "curve.csv")
    assert [r["episode"] for r in points] == [0, 100]
    md = table1.write_table(tmp_path, "smoke", None).read_text()
    note = [line for line in md.splitlines() if "unfinished run `farl-seed0`" in line]
    assert len(note) == 1, md
    assert "100 of 200 episodes at its last checkpoint" in note[0]
    assert f"(episode 100): {100 * points[-1]['score_maxn10']:.1f} %" in note[0]
    assert "| TicTacToe |" in md and "not run" in md.split("| TicTacToe |")[1].splitlines()[0]


def test_run_whose_checkpoint_agent_is_gone_starts_again(tmp_path, capsys):
    """A fresh clone has the run folder's marker but not its (uncommitted) checkpoint agents: the
    published copy agent.npz serves when it is there, else the run starts again from episode 0."""
    row = table1.ROWS["nim"]
    folder = table1.run_folder(tmp_path, "smoke", row, True, 0)
    run = Run.create(folder, table1.run_spec(row, True, 0, "smoke"))
    assert run.train(stop_after=100, progress=False) == "stopped"
    shutil.rmtree(folder / "checkpoints")
    assert Run.open(folder).trainer.episodes == 100  # agent.npz is the checkpoint's agent
    (folder / "agent.npz").unlink()  # agents are not committed either
    with pytest.raises(LostCheckpoint, match="is missing"):
        Run.open(folder)
    assert table1.reproduce([row], runs=1, jobs=1, budget="smoke", out=tmp_path, progress=False) == 0
    assert "nim farl seed 0 started again from episode 0" in capsys.readouterr().out
    fresh = Run.create(tmp_path / "fresh", table1.run_spec(row, True, 0, "smoke"))
    assert fresh.train(progress=False) == "done"
    again = NTupleAgent.load(folder / "agent.npz")
    assert np.array_equal(again.net.weights, fresh.trainer.agent.net.weights)
    assert [r["episode"] for r in read_curve(folder / "curve.csv")] == [r["episode"] for r in fresh.rows]


def _table_line(md: str, title: str) -> str:
    return next(line for line in md.splitlines() if line.startswith(f"| {title} |"))


def test_runs_train_outside_the_published_folder(tmp_path, capsys):
    """OUT gets every file of a run but its agents; with the agents deleted the runs stay cached and the
    table is the same (it reads result.json and curve.csv, never an agent)."""
    out, agents = tmp_path / "results", tmp_path / "agents"
    row = table1.ROWS["nim"]
    assert table1.reproduce([row], runs=1, jobs=1, budget="smoke", out=out, progress=False, agents=agents) == 0
    assert not list(out.rglob("*.npz"))
    for farl in (True, False):
        published = table1.run_folder(out, "smoke", row, farl, 0)
        assert sorted(p.name for p in published.iterdir()) == sorted(table1.PUBLISHED_FILES)
        trained = table1.run_folder(agents, "smoke", row, farl, 0)
        assert (trained / "agent.npz").is_file() and (trained / "checkpoints").is_dir()
        assert (published / "result.json").read_text() == (trained / "result.json").read_text()
    line = _table_line((out / "table1_smoke.md").read_text(), "Nim 3x5")
    assert line.count("(1 run)") == 2
    shutil.rmtree(agents)
    capsys.readouterr()
    assert table1.reproduce([row], runs=1, jobs=1, budget="smoke", out=out, progress=False, agents=agents) == 0
    assert "2 runs, 2 already finished, 0 to train" in capsys.readouterr().out
    assert _table_line((out / "table1_smoke.md").read_text(), "Nim 3x5") == line
    assert not agents.exists() or not list(agents.rglob("*.npz"))


def test_published_unfinished_run_without_its_agent_starts_again(tmp_path, capsys):
    """A fresh clone has the published run.json, checkpoint marker and curve of an unfinished run but no
    agent: the run starts again from episode 0 in the agents' folder and ends as a fresh run does."""
    out, agents = tmp_path / "results", tmp_path / "agents"
    row = table1.ROWS["nim"]
    published = table1.run_folder(out, "smoke", row, True, 0)
    assert Run.create(published, table1.run_spec(row, True, 0, "smoke")).train(stop_after=100,
                                                                             progress=False) == "stopped"
    shutil.rmtree(published / "checkpoints")
    (published / "agent.npz").unlink()
    assert "100 of 200 episodes at its last checkpoint" in table1.write_table(out, "smoke", None).read_text()
    assert table1.reproduce([row], runs=1, jobs=1, budget="smoke", out=out, progress=False, agents=agents) == 0
    log = capsys.readouterr().out
    assert "nim farl seed 0 started again from episode 0: its training folder" in log
    assert not list(out.rglob("*.npz")) and (published / "result.json").is_file()
    fresh = Run.create(tmp_path / "fresh", table1.run_spec(row, True, 0, "smoke"))
    assert fresh.train(progress=False) == "done"
    again = NTupleAgent.load(table1.run_folder(agents, "smoke", row, True, 0) / "agent.npz")
    assert np.array_equal(again.net.weights, fresh.trainer.agent.net.weights)
    assert "unfinished run `farl-seed0`" not in table1.write_table(out, "smoke", None).read_text()


def test_published_run_with_other_settings_is_reported(tmp_path, capsys):
    out, agents = tmp_path / "results", tmp_path / "agents"
    row = table1.ROWS["tictactoe"]
    published = table1.run_folder(out, "smoke", row, False, 0)
    spec = table1.run_spec(row, False, 0, "smoke")
    Run.create(published, dataclasses.replace(spec, config=spec.config.replace(alpha=0.3)))
    code = table1.reproduce([row], runs=1, jobs=1, budget="smoke", out=out, progress=False, agents=agents)
    assert code == 1 and "other settings" in capsys.readouterr().out
    assert not (published / "result.json").exists()


def test_agents_go_under_runs_when_out_is_the_results_folder(tmp_path, monkeypatch):
    from studies.table1.table1_rows import agents_root

    monkeypatch.chdir(tmp_path)
    assert agents_root("docs/results") == Path("runs")
    assert agents_root(tmp_path / "docs" / "results") == Path("runs")  # the same folder, spelled absolute
    assert agents_root("runs/quickstart") == Path("runs/quickstart")  # elsewhere: agents beside the results
    assert agents_root("docs/results", agents="scratch") == Path("scratch")
    assert "runs/table1_smoke_runs/" in table1.write_table(Path("docs/results"), "smoke", None).read_text()
    assert "not kept here" not in table1.write_table(Path("elsewhere"), "smoke", None).read_text()


def test_paper_figures_and_budgets():
    P = table1.PAPER_TABLE1
    assert P[("2048", "alone")] == ((142_000, 1_000), (122_000, 900))
    assert P[("connect4", "ab-dl")] == ((0.465, 0.005), (0.0, 0.001))
    assert P[("nim3p", "mcts5000")] == ((0.78, 0.02), (0.09, 0.02))
    assert P[("othello", "bench")] == ((0.95, 0.003), (0.96, 0.002))
    assert {k for k, _ in P} == set(table1.ROWS)
    for row in table1.ROWS.values():
        assert all((row.key, o.name) in P for o in row.opponents)
        paper, quick = table1.plan(row, "paper"), table1.plan(row, "quick")
        assert paper.episodes == paper_config(row.game).episodes
        assert quick.episodes <= paper.episodes and quick.final_games <= paper.final_games
    assert [r.key for r in table1.parse_rows("nim, tictactoe")] == ["nim", "tictactoe"]
    with pytest.raises(ValueError, match="unknown Table 1 row"):
        table1.parse_rows("tictactoe,go")


@pytest.mark.slow
def test_ray_backend(tmp_path):
    """Table 1 through a private Ray instance (slow: tests/test_backend.py runs Table 1 on a real two-node
    cluster in the default run, a node killed midway)."""
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False)
    try:
        code = table1.reproduce([table1.ROWS["tictactoe"]], runs=1, jobs=2, budget="smoke", out=tmp_path,
                                backend="ray", progress=False)
    finally:
        ray.shutdown()
    assert code == 0
    assert len(list((tmp_path / "table1_smoke_runs" / "tictactoe").glob("*/result.json"))) == 2


@pytest.mark.slow
def test_local_process_pool(tmp_path):
    """Two worker processes (each compiles its own training loop: slow)."""
    code = table1.reproduce([table1.ROWS["tictactoe"]], runs=1, jobs=2, budget="smoke", out=tmp_path,
                            progress=False)
    assert code == 0
    assert len(list((tmp_path / "table1_smoke_runs" / "tictactoe").glob("*/result.json"))) == 2
