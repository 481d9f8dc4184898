"""Merging n-tuple agents into one (studies/nplayer/ensemble.py): the merged raw value is the members' mean."""
from __future__ import annotations

import json

import numpy as np
import pytest

import farl_envs
from farl_agents.learners import NTupleAgent
from farl_agents.learners.config import LearnerConfig
from farl_agents.runs import Run, RunSpec
from farl_envs.core.rng import make_rng
from farl_envs.core.spec import TERMINAL, TO_MOVE
from studies.nplayer import ensemble


def _trained(game: str, seed: int, **settings) -> NTupleAgent:
    config = LearnerConfig(ntuples="random-walk", ntuple_count=3, ntuple_length=3, seed=seed, **settings)
    agent = NTupleAgent(game, config)
    agent.train(300)
    return agent


def _afterstates(game: str, n: int):
    """(afterstate, player who made it) pairs from random play."""
    spec = farl_envs.game_spec(game)
    rng = np.random.default_rng(0)
    out = []
    env_rng = make_rng(1)
    while len(out) < n:
        s = np.array(spec.initial_state(spec.p, env_rng), dtype=np.int32)
        rewards = np.zeros(spec.n_players)
        while not s[TERMINAL]:
            mask = np.zeros(spec.n_actions, dtype=np.int8)
            spec.legal_actions(spec.p, s, mask)
            player = int(s[TO_MOVE])
            spec.afterstate(spec.p, s, int(rng.choice(np.flatnonzero(mask))), s, rewards)
            out.append((s.copy(), player))
    return out[:n]


def test_merged_value_is_the_mean_of_the_members():
    members = [_trained("nim3p", seed, tanh_output=False) for seed in (1, 2, 3)]
    merged = ensemble.merge(members)
    assert merged.tuples.shape[0] == sum(a.tuples.shape[0] for a in members)
    checked = 0
    for state, player in _afterstates("nim3p", 40):
        values = [a.afterstate_value(state, player) for a in members]
        assert merged.afterstate_value(state, player) == pytest.approx(np.mean(values), abs=1e-5)
        checked += any(v != 0 for v in values)
    assert checked > 10  # the members learned something: the mean is not 0 = 0


def test_merged_tanh_agent_squashes_the_mean_raw_value():
    members = [_trained("tictactoe", seed) for seed in (4, 5)]
    merged = ensemble.merge(members)
    for state, player in _afterstates("tictactoe", 30):
        raw = [np.arctanh(a.afterstate_value(state, player)) for a in members]
        assert merged.afterstate_value(state, player) == pytest.approx(np.tanh(np.mean(raw)), abs=1e-5)


def test_merged_file_loads_as_an_ordinary_agent(tmp_path):
    paths = []
    for seed in (6, 7):
        path = tmp_path / f"a{seed}.npz"
        _trained("tictactoe", seed).save(path)
        paths.append(str(path))
    assert ensemble.main([*paths, "--out", str(tmp_path / "merged")]) == 0
    loaded = NTupleAgent.load(tmp_path / "merged" / "agent.npz")
    direct = ensemble.merge([NTupleAgent.load(p) for p in paths])
    for state, player in _afterstates("tictactoe", 20):
        assert loaded.afterstate_value(state, player) == pytest.approx(direct.afterstate_value(state, player))
    assert json.loads((tmp_path / "merged" / "ensemble.json").read_text())["members"] == paths


def test_merge_refuses_what_it_cannot_average():
    td = _trained("tictactoe", 1)
    with pytest.raises(ValueError, match="at least two"):
        ensemble.merge([td])
    with pytest.raises(ValueError, match="cannot merge agents of"):
        ensemble.merge([td, _trained("nim3p", 1)])
    with pytest.raises(ValueError, match="tanh"):
        ensemble.merge([td, _trained("tictactoe", 2, tanh_output=False)])
    with pytest.raises(ValueError, match="shaping"):
        ensemble.merge([td, _trained("tictactoe", 2, shaping=1.0)])
    sarsa = NTupleAgent("tictactoe", LearnerConfig(algo="sarsa", ntuples="random-walk", ntuple_count=2,
                                                   ntuple_length=3))
    with pytest.raises(ValueError):
        ensemble.merge([sarsa, sarsa])


def test_members_repeat_a_run_with_other_seeds_and_are_not_trained_twice(tmp_path):
    config = LearnerConfig(ntuples="random-walk", ntuple_count=2, ntuple_length=3, episodes=200, seed=3)
    like = tmp_path / "ttt"
    Run.create(like, RunSpec("tictactoe", {}, config, eval_vs=("random",), eval_every=200, eval_games=2)).train(
        progress=False)
    folders = ensemble.train_members(like, [3, 5, 6])
    assert folders == [like, tmp_path / "ttt-seed5", tmp_path / "ttt-seed6"]
    seeds = [NTupleAgent.load(f / "agent.npz").config.seed for f in folders]
    assert seeds == [3, 5, 6]
    stamp = (tmp_path / "ttt-seed5" / "agent.npz").stat().st_mtime_ns
    ensemble.train_members(like, [3, 5])
    assert (tmp_path / "ttt-seed5" / "agent.npz").stat().st_mtime_ns == stamp  # finished: not trained again
    assert ensemble.main(["--like", str(like), "--seeds", "5-6", "--out", str(tmp_path / "m")]) == 0
    assert NTupleAgent.load(tmp_path / "m" / "agent.npz").tuples.shape[0] == 4


def test_seed_ranges():
    assert ensemble.seed_range("0-3") == [0, 1, 2, 3]
    assert ensemble.seed_range("2,7") == [2, 7]
    for bad in ("4", "3-3", "a-b", "1,1", "-1,2"):
        with pytest.raises(ValueError):
            ensemble.seed_range(bad)


def test_members_with_tcl_merge_into_a_player_without_it():
    members = [_trained("nim3p", seed, tanh_output=False, tcl="id") for seed in (1, 2)]
    merged = ensemble.merge(members)
    assert merged.config.tcl == "none" and merged.net.tcl_n.size == 0
    for state, player in _afterstates("nim3p", 20):
        values = [a.afterstate_value(state, player) for a in members]
        assert merged.afterstate_value(state, player) == pytest.approx(np.mean(values), abs=1e-5)
