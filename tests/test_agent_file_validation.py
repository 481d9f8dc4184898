"""Hostile or damaged agent files and oversized networks: one clear error naming the file and the field."""
from __future__ import annotations

import json

import numpy as np
import pytest

from farl_agents.learners.agent import NTupleAgent
from farl_agents.learners.agent_io import AgentFileError
from farl_agents.learners.config import LearnerConfig
from farl_agents.ntuple.budget import LIMIT_VARIABLE, memory_limit, network_bytes

SMALL = LearnerConfig(ntuples="random-walk", ntuple_count=3, ntuple_length=3, seed=5, tcl="id")


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A small TicTacToe agent file with TCL, untrained (so its tables are stored sparse)."""
    path = tmp_path_factory.mktemp("agent") / "agent.npz"
    NTupleAgent("tictactoe", SMALL).save(path)
    return path


def _tampered(src, dst, change):
    with np.load(src, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    meta = json.loads(str(arrays["meta"]))
    change(arrays, meta)
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez(dst, **arrays)
    return dst


def test_the_untouched_file_loads(saved):
    agent = NTupleAgent.load(saved)
    assert agent.tuples.shape == (3, 3) and agent.episodes_done == 0


@pytest.mark.parametrize("field,change", [
    ("weights_value", lambda a, m: a.pop("weights_value")),
    ("episodes_done", lambda a, m: m.update(episodes_done="lots")),
    ("episodes_done", lambda a, m: m.update(episodes_done=-4)),
    ("tuples", lambda a, m: a.update(tuples=a["tuples"].astype(np.float64) + 0.5)),
    ("tuples", lambda a, m: a.pop("tuples")),
    ("weights", lambda a, m: (a.pop("weights_index"), a.pop("weights_value"),
                              a.update(weights=np.full((1, 2, 3 * 27), np.nan, dtype=np.float32)))),
    ("tcl_n_value", lambda a, m: a.update(tcl_n_index=np.array([0, 1]), tcl_n_value=np.array([1.0, 2.0]))),
    ("tcl_a", lambda a, m: a.update(tcl_a_index=np.array([0]), tcl_a_value=np.array([np.inf], np.float32))),
])
def test_a_damaged_field_is_named_with_the_file(saved, tmp_path, field, change):
    bad = _tampered(saved, tmp_path / "bad.npz", change)
    with pytest.raises(AgentFileError) as err:
        NTupleAgent.load(bad)
    assert str(bad) in str(err.value) and field in str(err.value)


def test_a_tiny_file_asking_for_a_huge_network_is_refused_before_allocating(saved, tmp_path, monkeypatch):
    # 200,000 9-tuples over TicTacToe's 3 cell values with TCL: 200000 * 3**9 * 2 players * 12 bytes = 88 GiB
    monkeypatch.setenv(LIMIT_VARIABLE, "1G")
    bad = _tampered(saved, tmp_path / "huge.npz",
                    lambda a, m: a.update(tuples=np.tile(np.arange(9, dtype=np.int32), (200_000, 1))))
    with pytest.raises(AgentFileError, match=r"88\.0 GiB.*limit is 1\.0 GiB"):
        NTupleAgent.load(bad)


def test_a_config_too_large_for_the_limit_names_the_size(monkeypatch):
    monkeypatch.setenv(LIMIT_VARIABLE, "2G")
    cfg = LearnerConfig(ntuples="random-walk", ntuple_count=200, ntuple_length=14, tcl="id")
    with pytest.raises(ValueError, match=r"needs 21\.4 GiB.*FARL_MAX_MEMORY"):  # 200 * 3**14 * 2 players * 12 bytes
        NTupleAgent("hex", cfg, size=6)


def test_network_size_arithmetic_and_the_limit_setting(monkeypatch):
    assert network_bytes(70, 8, 4, 2, 1, tcl=True) == 70 * 4**8 * 2 * 4 * 3  # the paper's Connect Four net
    monkeypatch.setenv(LIMIT_VARIABLE, "512M")
    assert memory_limit() == 512 * 2**20
    monkeypatch.setenv(LIMIT_VARIABLE, "lots")
    with pytest.raises(ValueError, match=LIMIT_VARIABLE):
        memory_limit()
    monkeypatch.delenv(LIMIT_VARIABLE)
    assert memory_limit() > 2**28
