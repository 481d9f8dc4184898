"""Descent family: agent files, training runs (CLI, resume), tournament, a tiny learning test."""
from __future__ import annotations

import json

import numpy as np
import pytest

import farl_envs
from farl_agents import cli
from farl_agents.descent.agent import DescentAgent, load_agent, read_agent_file
from farl_agents.descent.trainer import DescentConfig, DescentTrainer
from farl_agents.evaluate import evaluate
from farl_agents.runs import read_curve


def test_agent_file_round_trip_and_foreign_files(tmp_path):
    tr = DescentTrainer(DescentConfig(game="hex", game_params={"size": 4}, heuristic="depth-add", minutes=0.02,
                                      move_iterations=10))
    tr.run(2.0)
    agent = DescentAgent(tr.game, tr.evaluation, tr.heuristic, "ubfms", iterations=30)
    path = tmp_path / "a.npz"
    agent.save(path)
    back = load_agent(path)
    assert back.game.params == {"size": 4} and back.heuristic.name == "depth-add"
    rng = np.random.default_rng(1)
    boards = rng.integers(0, 3, size=(20, 16)).astype(np.int32)
    assert np.array_equal(back.evaluation.values(boards), tr.evaluation.values(boards))
    assert np.any(tr.evaluation.weights != 0)
    with pytest.raises(ValueError, match="not .*hex|is for hex"):
        read_agent_file(path, farl_envs.game_spec("tictactoe"))
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a readable"):
        read_agent_file(bad)
    other = tmp_path / "other.npz"
    np.savez(other, meta=np.array(json.dumps({"format": "farl-agent"})))
    with pytest.raises(ValueError, match="not a descent agent"):
        read_agent_file(other)
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    arrays["weights"] = arrays["weights"][:, :, :10]
    np.savez(tmp_path / "cut.npz", **arrays)
    with pytest.raises(ValueError, match="weights have shape"):
        read_agent_file(tmp_path / "cut.npz")


@pytest.mark.slow  # ~8 s; descent's train/eval/resume cycle stays in the default run (test_families.py)
def test_cli_train_curve_and_tournament(tmp_path, capsys, monkeypatch):
    import time

    from farl_agents.runs import run as run_module

    slow = []
    real = run_module.evaluate_agent

    def slow_evaluation(*args, **kw):  # a measurement slower than a grid step must not eat training time
        time.sleep(0.3)
        slow.append(1)
        return real(*args, **kw)

    monkeypatch.setattr(run_module, "evaluate_agent", slow_evaluation)
    out = tmp_path / "run"
    assert cli.main(["train", "tictactoe", "--algo", "descent", "--minutes", "0.02", "--move-iterations", "10",
                     "--out", str(out), "--no-progress", "--eval-vs", "random", "--eval-every-seconds", "0.4",
                     "--eval-games", "2"]) == 0
    rec = json.loads((out / "run.json").read_text())
    assert rec["family"] == "descent" and rec["eval_every"] == 0.4 and rec["eval_depth"] == 2
    rows = read_curve(out / "curve.csv")
    # a point at 0, then one at the first game end past each 0.4 s step of training time
    assert rows[0]["train_seconds"] == 0 and rows[0]["episode"] == 0 and len(slow) == len(rows)
    assert all(a["episode"] < b["episode"] for a, b in zip(rows, rows[1:]))
    assert 2 <= len(rows) <= 5 and rows[-1]["train_seconds"] >= 1.2
    for k, r in enumerate(rows[1:-1], start=1):
        assert r["train_seconds"] >= 0.4 * k
    assert cli.main(["eval", str(out), "--vs", "random", "--games", "2"]) == 0
    assert "win rate" in capsys.readouterr().out
    # bad input: one-line errors
    assert cli.main(["train", "tictactoe", "--algo", "descent", "--heuristic", "score"]) == 2
    assert cli.main(["train", "tictactoe", "--algo", "descent", "--learning", "nosuch"]) == 2
    tdir = tmp_path / "t"
    assert cli.main(["tournament", "tictactoe", "--variant", "tree:learning=tree", "--variant",
                     "terminal:learning=terminal,move_iterations=10", "--minutes", "0.01", "--depth", "1",
                     "--openings", "2", "--out", str(tdir), "--quiet", "--eval-vs", "random"]) == 0
    res = json.loads((tdir / "tournament.json").read_text())
    pct = [v["win_pct"] for v in res["variants"].values()]
    assert len(pct) == 2 and sum(pct) == pytest.approx(100.0)
    assert all(v["games"] == 4 for v in res["variants"].values())
    assert (tdir / "tree" / "curve.csv").exists() and (tdir / "terminal" / "curve.png").exists()


@pytest.mark.slow  # ~9 s of descent learning
def test_tiny_descent_learning_beats_random_clearly():
    game = farl_envs.game_spec("tictactoe")
    tr = DescentTrainer(DescentConfig(game="tictactoe", minutes=0.15, move_iterations=20, seed=3))
    untrained = DescentAgent(game, DescentTrainer(DescentConfig(game="tictactoe")).evaluation, tr.heuristic,
                             "ab", depth=1, name="untrained")
    tr.run(9.0)
    trained = DescentAgent(game, tr.evaluation, tr.heuristic, "ab", depth=1, name="trained")
    res = evaluate(game, [trained, untrained], ["random"], n_games=60, seed=5)
    after, before = res.matchups[0].win_rate, res.matchups[1].win_rate
    assert after > 0.85 and after > before + 0.1, (before, after)


@pytest.mark.parametrize("search,learning,selection,heuristic", [
    ("mcts", "tree", "softmax", "classic"), ("id", "tree", "ordinal", "depth-mul"),
    ("ubfm", "root", "egreedy", "mobility"), ("descent", "terminal", "ordinal", "presence")])
def test_every_learning_search_runs_and_learns_something(search, learning, selection, heuristic):
    tr = DescentTrainer(DescentConfig(game="tictactoe", search=search, learning=learning, selection=selection,
                                      heuristic=heuristic, minutes=0.05, move_iterations=15, move_seconds=0.005))
    tr.run(1.0)
    assert tr.games >= 2 and sum(tr.results) == tr.games
    assert np.any(tr.evaluation.weights != 0) and np.isfinite(tr.last_error)


@pytest.mark.slow
def test_conv_evaluation_trains_saves_and_loads(tmp_path):
    pytest.importorskip("torch")
    from farl_agents.descent.agent import save_agent

    tr = DescentTrainer(DescentConfig(game="tictactoe", evaluation="conv", minutes=0.2, move_iterations=10))
    tr.run(6.0)
    assert tr.games >= 2 and np.isfinite(tr.last_error)
    path = tmp_path / "conv.npz"
    save_agent(path, tr.game, tr.evaluation, "classic", tr.info())
    back = load_agent(path)
    boards = np.random.default_rng(0).integers(0, 3, size=(8, 9)).astype(np.int32)
    assert np.allclose(back.evaluation.values(boards), tr.evaluation.values(boards))
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    key = next(k for k in arrays if k.startswith("conv/"))
    arrays[key] = arrays[key][..., :1]
    np.savez(tmp_path / "cut.npz", **arrays)
    with pytest.raises(ValueError, match="expected shape"):
        read_agent_file(tmp_path / "cut.npz")
