"""Search-distilled values (studies/nplayer/distill.py): the samples are the search's values from the mover's side,
the chunks resume, and the fit moves the tables towards the targets net of the agent's shaping term."""
from __future__ import annotations

import json
import threading

import numpy as np
import pytest

import farl_envs
from farl_agents import safety
from farl_agents.learners import NTupleAgent
from farl_agents.learners.config import LearnerConfig
from farl_agents.opponents.puct import PUCT
from farl_envs.core.rng import make_rng
from farl_envs.core.spec import TERMINAL, TO_MOVE
from studies.nplayer import distill

EWN = ("einstein_wurfelt_nicht", {"players": 2, "size": 5, "cell_coding": 3})


def _agent(game="tictactoe", params=None, **settings) -> NTupleAgent:
    spec = farl_envs.game_spec(game, **(params or {}))
    config = LearnerConfig(ntuples="random-walk", ntuple_count=4, ntuple_length=3, seed=3, **settings)
    agent = NTupleAgent(spec, config)
    agent.train(200)
    return agent


def _tictactoe(cells: str) -> np.ndarray:
    """A tic-tac-toe position from 9 characters (x, o, .), x to move when the counts are equal."""
    spec = farl_envs.game_spec("tictactoe")
    s = np.array(spec.initial_state(spec.p, make_rng(0)), dtype=np.int32)
    rewards = np.zeros(2)
    xs = [i for i, c in enumerate(cells) if c == "x"]
    os_ = [i for i, c in enumerate(cells) if c == "o"]
    for k in range(len(xs) + len(os_)):
        cell = xs[k // 2] if k % 2 == 0 else os_[k // 2]
        spec.afterstate(spec.p, s, cell, s, rewards)
    assert not s[TERMINAL]
    return s


def test_samples_are_the_movers_values_of_the_searched_moves():
    # o to move must block x's row 0-1-2 at cell 2; every other reply loses at once to x's win
    spec = farl_envs.game_spec("tictactoe")
    state = _tictactoe("xx..o....")
    assert state[TO_MOVE] == 1
    search = PUCT(_agent(), 3000)
    samples, visits = distill.search_samples(spec, search, state, make_rng(5), min_visits=1)
    legal = np.zeros(spec.n_actions, dtype=np.int8)
    spec.legal_actions(spec.p, state, legal)
    assert set(np.flatnonzero(visits)) <= set(np.flatnonzero(legal))
    by_cell = {}
    for after, mover, target in samples:
        assert mover == 1
        changed = np.flatnonzero(after[3:] != state[3:])
        assert len(changed) >= 1 and not after[TERMINAL]
        by_cell[int(np.flatnonzero(legal)[[np.array_equal(after, _after(spec, state, a))
                                          for a in np.flatnonzero(legal)]][0])] = target
    assert 2 in by_cell and len(by_cell) >= 4
    # the block holds the game; every other move loses: their values for o are near -1
    others = [v for c, v in by_cell.items() if c != 2]
    assert by_cell[2] > -0.3
    assert max(others) < -0.7


def _after(spec, state, a):
    after = np.array(state, copy=True)
    spec.afterstate(spec.p, after, int(a), after, np.zeros(spec.n_players))
    return after


def test_generate_resumes_and_refuses_other_settings(tmp_path, capsys):
    agent_path = tmp_path / "agent.npz"
    _agent().save(agent_path)
    out = tmp_path / "data"
    argv = ["generate", "--agent", str(agent_path), "--iterations", "50", "--min-visits", "5", "--chunks", "0,9",
            "--chunk-games", "3", "--quiet", "--out", str(out)]
    assert distill.main(argv) == 0
    files = sorted(p.name for p in out.glob("chunk-*.npz"))
    assert files == ["chunk-00000.npz", "chunk-00009.npz"]
    stamp = (out / "chunk-00000.npz").stat().st_mtime_ns
    capsys.readouterr()
    assert distill.main(argv) == 0
    assert "2 chunks on disk, 0 to play" in capsys.readouterr().out
    assert (out / "chunk-00000.npz").stat().st_mtime_ns == stamp
    with np.load(out / "chunk-00000.npz", allow_pickle=False) as z:
        assert len(z["targets"]) > 0 and np.all(np.abs(z["targets"]) <= 1.0)
        assert set(np.unique(z["movers"])) <= {0, 1}
        assert not z["afterstates"][:, TERMINAL].any()
    with pytest.raises(SystemExit, match="other settings"):
        distill.main([*argv[:4], "60", *argv[5:]])


def test_table_targets_are_the_targets_less_the_shaping_term():
    game, params = EWN
    agent = _agent(game, params, shaping=0.5, tanh_output=True)
    spec = agent.game
    rng = np.random.default_rng(1)
    env_rng = make_rng(2)
    afters, movers = [], []
    s = np.array(spec.initial_state(spec.p, env_rng), dtype=np.int32)
    mask = np.zeros(spec.n_actions, dtype=np.int8)
    while len(afters) < 30:
        if s[TERMINAL]:
            s = np.array(spec.initial_state(spec.p, env_rng), dtype=np.int32)
        spec.legal_actions(spec.p, s, mask)
        mover = int(s[TO_MOVE])
        spec.afterstate(spec.p, s, int(rng.choice(np.flatnonzero(mask))), s, np.zeros(2))
        if not s[TERMINAL]:
            afters.append(s.copy())
            movers.append(mover)
            spec.chance(spec.p, s, env_rng)
    afters, movers = np.array(afters), np.array(movers)
    targets = rng.uniform(-0.8, 0.8, len(afters))
    boards, table_targets = distill.table_inputs(agent, afters, movers, targets)
    # the agent values x as tables + w·Φ: so tables(x) - table_target = value(x) - target, sample by sample
    errors = [(agent.afterstate_value(a, m) - t) ** 2 for a, m, t in zip(afters, movers, targets)]
    assert distill.squared_error(agent, boards, movers, table_targets) == pytest.approx(np.mean(errors), rel=1e-9)
    assert not np.allclose(table_targets, targets)  # the shaping term is there to take off


def test_fit_moves_the_values_towards_the_targets(tmp_path):
    agent = _agent()
    agent_path = tmp_path / "agent.npz"
    agent.save(agent_path)
    data = tmp_path / "data"
    assert distill.main(["generate", "--agent", str(agent_path), "--iterations", "200", "--min-visits", "10",
                         "--chunks", "0,1,9", "--chunk-games", "4", "--quiet", "--out", str(data)]) == 0
    out = tmp_path / "fitted"
    assert distill.main(["fit", "--agent", str(agent_path), "--data", str(data), "--alpha", "0.5", "--epochs", "5",
                         "--out", str(out)]) == 0
    page = json.loads((out / "fit.json").read_text())
    fitted = NTupleAgent.load(out / "agent.npz")
    afters, movers, targets = distill.load_samples(data, [0, 1])
    boards, table_targets = distill.table_inputs(fitted, afters, movers, np.clip(targets, -0.99, 0.99))
    after_fit = distill.squared_error(fitted, boards, movers, table_targets)
    assert page["training_samples"] == len(targets) and page["held_out_chunks"] == 1
    assert after_fit == pytest.approx(page["after"]["training"]["mse"], abs=1e-6)
    assert after_fit < 0.5 * page["before"]["training"]["mse"]
    assert page["after"]["held_out"]["mse"] != page["before"]["held_out"]["mse"]
    # fitting the differences only: the centred error falls, the mean of each position's values is kept
    starts = distill.position_groups(afters, movers)
    again = tmp_path / "relative"
    assert distill.main(["fit", "--agent", str(agent_path), "--data", str(data), "--alpha", "0.5", "--epochs", "5",
                         "--relative", "--out", str(again)]) == 0
    rel = json.loads((again / "fit.json").read_text())
    assert rel["after"]["training"]["relative_mse"] < 0.5 * rel["before"]["training"]["relative_mse"]
    before_agent, after_agent = NTupleAgent.load(agent_path), NTupleAgent.load(again / "agent.npz")
    moved = 0
    for lo, hi in zip(starts[:-1], starts[1:]):
        if hi - lo < 2:
            continue
        old_values = [before_agent.afterstate_value(a, int(m)) for a, m in zip(afters[lo:hi], movers[lo:hi])]
        new_values = [after_agent.afterstate_value(a, int(m)) for a, m in zip(afters[lo:hi], movers[lo:hi])]
        moved += not np.allclose(old_values, new_values)
    assert moved > 0


def test_position_groups_are_the_searched_positions():
    spec = farl_envs.game_spec("tictactoe")
    search = PUCT(_agent(), 100)
    rng = make_rng(2)
    chunks, sizes = [], []
    for cells in ("x........", "xo.......", "xo..x....", "x...o....", "xx..o...."):
        samples, _ = distill.search_samples(spec, search, _tictactoe(cells), rng, min_visits=1)
        chunks += samples
        sizes.append(len(samples))
    afters = np.array([a for a, _, _ in chunks])
    movers = np.array([m for _, m, _ in chunks])
    # as in generated data, a position of a new game after a later one (the fourth) has a smaller ply count
    assert np.diff(distill.position_groups(afters, movers)).tolist() == sizes


def test_fit_refuses_a_folder_without_training_chunks(tmp_path):
    agent_path = tmp_path / "agent.npz"
    _agent().save(agent_path)
    data = tmp_path / "data"
    assert distill.main(["generate", "--agent", str(agent_path), "--iterations", "20", "--min-visits", "2",
                         "--chunks", "9", "--chunk-games", "1", "--quiet", "--out", str(data)]) == 0
    with pytest.raises(SystemExit, match="no training chunks"):
        distill.main(["fit", "--agent", str(agent_path), "--data", str(data), "--out", str(tmp_path / "f")])


class FirstGreedy:
    """The agent's greedy move, ties to the lowest action (as PUCT's selection takes the first of equal scores)."""

    def __init__(self, agent):
        self.agent = agent

    def act(self, game, state, rng):
        mask = np.zeros(game.n_actions, dtype=np.int8)
        game.legal_actions(game.p, state, mask)
        mover = int(state[TO_MOVE])
        scores = []
        for a in np.flatnonzero(mask):
            after, rewards = np.array(state, copy=True), np.zeros(game.n_players)
            game.afterstate(game.p, after, int(a), after, rewards)
            later = 0.0 if after[TERMINAL] else self.agent.afterstate_value(after, mover)
            scores.append(rewards[mover] + later)
        return int(np.flatnonzero(mask)[int(np.argmax(scores))])


def test_agreement_with_a_two_iteration_search_is_the_agents_own_choice(tmp_path):
    # PUCT's second iteration visits the root move of the largest prior, the agent's greedy choice (softmax of its
    # values, the first of equals); so that choice agrees with the search everywhere at no cost, and an untrained
    # agent (all values 0, ties drawn at random) does not
    game, params = EWN
    trained = _agent(game, params, tanh_output=True)
    untrained = NTupleAgent(trained.game, trained.config)
    result = distill.agreement(trained, [FirstGreedy(trained), untrained], iterations=2, positions=60, seed=1)
    assert result["positions"] == 60
    assert result["agreement"][0] == 1.0 and result["mean_cost"][0] == 0.0
    assert result["agreement"][1] < 0.9
    out = tmp_path / "agree.json"
    path = tmp_path / "a.npz"
    trained.save(path)
    assert distill.main(["agree", "--search-agent", str(path), "--agents", str(path), "--iterations", "2",
                         "--positions", "10", "--out", str(out)]) == 0
    page = json.loads(out.read_text())
    assert page["positions"] == 10 and 0.5 <= page["agreement"][0] <= 1.0


def test_a_stop_request_leaves_the_chunk_for_the_next_run(tmp_path, monkeypatch):
    agent_path = tmp_path / "agent.npz"
    _agent().save(agent_path)
    stop = threading.Event()
    stop.set()
    monkeypatch.setattr(safety, "_parent_stop", stop)  # as in a worker whose parent was asked to stop
    task = {"agent": str(agent_path), "iterations": 20, "chunk_games": 2, "min_visits": 2, "explore_plies": 0,
            "seed": 0, "chunk": 3, "out": str(tmp_path / "data")}
    assert distill.play_chunk(task)["status"] == "interrupted"
    assert not distill.chunk_path(tmp_path / "data", 3).exists()
    monkeypatch.setattr(safety, "_parent_stop", None)
    assert distill.play_chunk(task)["status"] == "done"
    assert distill.chunk_path(tmp_path / "data", 3).exists()


@pytest.mark.parametrize("flag", ["--iterations", "--chunk-games", "--min-visits", "--jobs"])
def test_generate_refuses_counts_below_one(flag, tmp_path, capsys):
    argv = ["generate", "--agent", "a.npz", "--chunks", "0", "--out", str(tmp_path / "d"), flag, "0"]
    with pytest.raises(SystemExit):
        distill.main(argv)
    assert f"{flag} must be >= 1" in capsys.readouterr().err


def test_a_missing_agent_is_refused_with_its_path(tmp_path):
    with pytest.raises(SystemExit, match="no agent file or run folder"):
        distill.main(["generate", "--agent", str(tmp_path / "none"), "--chunks", "0", "--out", str(tmp_path / "d")])
