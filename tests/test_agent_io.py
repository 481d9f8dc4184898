"""Agent files: round trips, exact continuation, and clear errors for anything else."""
from __future__ import annotations

import importlib.metadata
import json
import os
import stat
from pathlib import Path

import numpy as np
import pytest

import farl_agents
import farl_envs
from farl_agents.learners import LearnerConfig, NTupleAgent, paper_config
from farl_agents.learners.agent_io import AgentFileError


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    agent = NTupleAgent("nim3p", paper_config("nim3p", episodes=3000))
    agent.train(1000)
    path = agent.save(tmp_path_factory.mktemp("a") / "nim3p.npz")
    return agent, path


def test_round_trip_and_exact_continuation(trained, tmp_path):
    agent, path = trained
    loaded = NTupleAgent.load(path, game="nim3p_v0")
    assert loaded.config == agent.config and loaded.episodes_done == 1000
    assert np.array_equal(loaded.tuples, agent.tuples)
    assert np.array_equal(loaded.net.weights, agent.net.weights)
    assert np.array_equal(loaded.net.tcl_n, agent.net.tcl_n) and np.array_equal(loaded.net.tcl_a, agent.net.tcl_a)
    twin = NTupleAgent.load(path)
    twin.train(500)
    loaded.train(500)
    assert np.array_equal(twin.net.weights, loaded.net.weights)
    # and the continuation equals training 1500 episodes in one go
    straight = NTupleAgent("nim3p", agent.config)
    straight.train(1500)
    assert np.array_equal(straight.net.weights, loaded.net.weights)


def test_one_version_source_and_typed_packages(trained):
    """pyproject.toml holds the version; both packages and every agent file report the installed one."""
    installed = importlib.metadata.version("farl-rl")
    assert farl_envs.__version__ == installed and farl_agents.__version__ == installed
    _, path = trained
    with np.load(path) as data:
        assert json.loads(str(data["meta"]))["farl_version"] == installed
    for package in (farl_envs, farl_agents):
        assert (Path(package.__file__).parent / "py.typed").is_file()


def test_large_tables_with_few_touched_entries_are_stored_sparse(tmp_path):
    big = NTupleAgent("connect_four", paper_config("connect_four"))
    big.train(50)
    path = big.save(tmp_path / "c4.npz")
    with np.load(path) as data:
        assert "weights_index" in data.files and "weights" not in data.files
        assert "tcl_n_index" in data.files
    assert path.stat().st_size < big.net.weights.nbytes / 20
    loaded = NTupleAgent.load(path)
    assert np.array_equal(loaded.net.weights, big.net.weights)
    assert np.array_equal(loaded.net.tcl_a, big.net.tcl_a)


def test_random_tuples_are_saved_with_the_agent(tmp_path):
    cfg = LearnerConfig(ntuples="random-walk", ntuple_count=4, ntuple_length=3, seed=11, episodes=10)
    agent = NTupleAgent("hex", cfg, size=4)
    loaded = NTupleAgent.load(agent.save(tmp_path / "hex.npz"))
    assert np.array_equal(loaded.tuples, agent.tuples)
    assert loaded.game.params == {"size": 4}


def test_save_is_atomic_and_leaves_no_temp_files(trained, tmp_path):
    agent, _ = trained
    target = tmp_path / "x.npz"
    agent.save(target)
    agent.save(target)  # overwrite in place
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.npz"]
    # readable like any file made by open() (0666 less the umask), not owner-only as a temporary file
    mask = os.umask(0o022)
    try:
        agent.save(target)
    finally:
        os.umask(mask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o644


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError):
        NTupleAgent.load(tmp_path / "nope.npz")


def test_truncated_file(trained, tmp_path):
    _, path = trained
    bad = tmp_path / "cut.npz"
    bad.write_bytes(path.read_bytes()[:300])
    with pytest.raises(AgentFileError, match="not a farl agent"):
        NTupleAgent.load(bad)


def test_foreign_npz(tmp_path):
    foreign = tmp_path / "foreign.npz"
    np.savez(foreign, x=np.arange(3))
    with pytest.raises(AgentFileError, match="no metadata"):
        NTupleAgent.load(foreign)


def test_text_file(tmp_path):
    junk = tmp_path / "junk.npz"
    junk.write_text("hello")
    with pytest.raises(AgentFileError):
        NTupleAgent.load(junk)


def test_pickled_object_is_refused(tmp_path):
    evil = tmp_path / "evil.npz"
    np.savez(evil, meta=np.array([{"format": "farl-agent"}], dtype=object))
    with pytest.raises(AgentFileError):
        NTupleAgent.load(evil)


def test_other_game_is_refused(trained):
    _, path = trained
    with pytest.raises(AgentFileError, match="nim3p agent, not connect_four"):
        NTupleAgent.load(path, game="connect_four")


def test_tampered_shapes_are_refused(trained, tmp_path):
    _, path = trained
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    dense = arrays.pop("weights")
    arrays["weights_index"] = np.array([10**9], np.int64)
    arrays["weights_value"] = np.array([1.0], np.float32)
    bad = tmp_path / "bad.npz"
    np.savez(bad, **arrays)
    with pytest.raises(AgentFileError, match="positions must be integers"):
        NTupleAgent.load(bad)
    arrays["weights_index"] = np.array([0], np.int64)
    arrays["weights_value"] = dense.ravel()[:1]
    meta = json.loads(str(arrays["meta"]))
    meta["config"]["wings"] = 2
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez(bad, **arrays)
    with pytest.raises(AgentFileError, match="unknown learner options"):
        NTupleAgent.load(bad)
    # a retired option: its one value that means today's learner loads (files of that time), any other is refused
    del meta["config"]["wings"]
    for value, loads in ((False, True), (True, False)):
        meta["config"]["fast_math"] = value
        arrays["meta"] = np.array(json.dumps(meta))
        np.savez(bad, **arrays)
        if loads:
            assert NTupleAgent.load(bad).config == LearnerConfig.from_dict(
                {k: v for k, v in meta["config"].items() if k != "fast_math"})
        else:
            with pytest.raises(AgentFileError, match="fast_math=True is no longer supported"):
                NTupleAgent.load(bad)


def test_agent_of_another_board_encoding_is_refused(trained, tmp_path):
    """A file records the number of cell values P; a mismatch (the game's n-tuple
    board changed since) is named, and so is a shape mismatch in an older file."""
    _, path = trained
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    meta = json.loads(str(arrays["meta"]))
    assert meta["n_cell_values"] == NTupleAgent.load(path).game.n_cell_values
    meta["n_cell_values"] += 1
    arrays["meta"] = np.array(json.dumps(meta))
    bad = tmp_path / "other_p.npz"
    np.savez(bad, **arrays)
    with pytest.raises(AgentFileError, match="valued nim3p n-tuple board.*train the agent again"):
        NTupleAgent.load(bad)
    del meta["n_cell_values"]  # an older file, whose weights no longer fit
    arrays["meta"] = np.array(json.dumps(meta))
    arrays["weights"] = np.zeros(3, np.float32)
    arrays.pop("weights_index", None), arrays.pop("weights_value", None)
    np.savez(bad, **arrays)
    with pytest.raises(AgentFileError, match="other cell values"):
        NTupleAgent.load(bad)


def test_quantize_is_exact_for_few_values_and_close_for_many():
    from farl_agents.learners.agent_io import quantize

    few = np.array([0.5, -2.0, 0.5, 3.25, -2.0], np.float32)
    codes, levels = quantize(few)
    assert np.array_equal(levels[codes], few) and levels.size == 3
    rng = np.random.default_rng(0)
    many = rng.standard_normal(200_000).astype(np.float32) * np.float32(0.01)
    codes, levels = quantize(many)
    assert codes.dtype == np.uint8 and levels.dtype == np.float32 and levels.size <= 256
    assert np.all(np.diff(levels) > 0)
    err = np.abs(levels[codes] - many)
    step = (many.max() - many.min()) / 255  # an even grid of 256 levels errs by step / 4 on average
    assert err.mean() < 0.6 * step / 4  # finer levels where the values crowd
    assert levels[0] == many.min() and levels[-1] == many.max()  # the extremes are exact
    # every value goes to its nearest level
    nearest = np.abs(many[:1000, None] - levels[None, :]).min(axis=1)
    assert np.allclose(err[:1000], nearest, rtol=0, atol=1e-9)
    with pytest.raises(ValueError, match="n_levels"):
        quantize(many, n_levels=257)


def test_masked_weights_round_trip_and_are_checked(trained, tmp_path):
    from farl_agents.learners.agent_io import quantize

    agent, _ = trained
    copy = NTupleAgent("nim3p", agent.config)
    w = copy.net.weights.reshape(-1)
    w[:] = agent.net.weights.reshape(-1)
    live = np.flatnonzero(w)
    codes, levels = quantize(w[live], n_levels=16)
    w[live] = levels[codes]
    with pytest.raises(ValueError, match="at most 256"):
        many = NTupleAgent("nim3p", agent.config)
        many.net.weights.reshape(-1)[:300] = np.arange(1, 301, dtype=np.float32)
        many.save(tmp_path / "many.npz", weight_format="levels")
    with pytest.raises(ValueError, match="not float16 numbers"):
        odd = NTupleAgent("nim3p", agent.config)
        odd.net.weights.reshape(-1)[0] = np.float32(0.1)  # not a float16 number
        odd.save(tmp_path / "odd.npz", weight_format="float16")
    with pytest.raises(ValueError, match="unknown format"):
        copy.save(tmp_path / "x.npz", weight_format="int8")
    path = copy.save(tmp_path / "coded.npz", weight_format="levels")
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    assert "weights" not in arrays and arrays["weights_codes"].dtype == np.uint8
    assert arrays["weights_codes"].size == np.count_nonzero(copy.net.weights)
    assert np.array_equal(NTupleAgent.load(path).net.weights, copy.net.weights)  # exact
    half = NTupleAgent("nim3p", agent.config)
    half.net.weights[...] = agent.net.weights.astype(np.float16)
    with np.load(half.save(tmp_path / "half.npz", weight_format="float16")) as data:
        assert data["weights_values"].dtype == np.float16
    assert np.array_equal(NTupleAgent.load(tmp_path / "half.npz").net.weights, half.net.weights)

    def broken(**changes):
        bad = dict(arrays, **changes)
        target = tmp_path / "bad.npz"
        np.savez(target, **bad)
        return target

    with pytest.raises(AgentFileError, match="weights_codes.*one uint8 per marked entry"):
        NTupleAgent.load(broken(weights_codes=arrays["weights_codes"][:-1]))
    with pytest.raises(AgentFileError, match="refers to level"):
        NTupleAgent.load(broken(weights_levels=arrays["weights_levels"][:1]))
    with pytest.raises(AgentFileError, match="weights_mask"):
        NTupleAgent.load(broken(weights_mask=arrays["weights_mask"][:-1]))
    with pytest.raises(AgentFileError, match="not finite"):
        NTupleAgent.load(broken(weights_levels=np.full_like(arrays["weights_levels"], np.nan)))
    with pytest.raises(AgentFileError, match="weights_values.*one float16 or float32 per marked entry"):
        NTupleAgent.load(broken(weights_values=np.zeros(3, np.float64)))
    no_levels = {k: v for k, v in arrays.items() if k != "weights_levels"}
    np.savez(tmp_path / "bad2.npz", **no_levels)
    with pytest.raises(AgentFileError, match="weights_levels.*missing"):
        NTupleAgent.load(tmp_path / "bad2.npz")


def test_playing_copies_keep_what_their_storage_says(trained):
    from studies.pretrained.build import STORAGES, playing_copy

    agent, _ = trained
    w = agent.net.weights
    assert np.array_equal(playing_copy(agent).net.weights, w) and playing_copy(agent).net.tcl_n.size == 0
    assert np.array_equal(playing_copy(agent, "float16-rounded").net.weights, w.astype(np.float16))
    half = playing_copy(agent, "float16-largest-half").net.weights
    live = np.abs(w[w != 0])
    assert np.count_nonzero(half) == np.count_nonzero(live >= np.median(live))  # the larger half kept
    kept = half != 0
    assert np.array_equal(half[kept], w[kept].astype(np.float16).astype(np.float32))
    coded = playing_copy(agent, "coded-256").net.weights
    assert np.unique(coded[coded != 0]).size <= 256
    assert set(STORAGES) == {"coded-256", "float16-largest-half", "float16-rounded", "float32"}
    with pytest.raises(ValueError, match="unknown storage"):
        playing_copy(agent, "int4")
