"""The paged table layout (farl_agents.ntuple.network) learns, saves and loads exactly as the dense one.

The paged layout only changes *where* an entry lives, so every test compares it with the dense layout
trained the same way: same results per episode, same tables entry by entry, same files after a round trip.
"""
from __future__ import annotations

import numpy as np
import pytest

from farl_agents.learners import NTupleAgent, paper_config
from farl_agents.learners.agent import PAGED_FROM_BYTES
from farl_agents.learners.agent_io import get_table, put_table
from farl_agents.ntuple import network
from farl_agents.ntuple.budget import network_bytes

TABLES = ("weights", "tcl_n", "tcl_a")


def assert_same_tables(a: NTupleAgent, b: NTupleAgent) -> None:
    for name in TABLES:
        ta, tb = getattr(a.net, name), getattr(b.net, name)
        assert ta.size == 0 and tb.size == 0 or np.array_equal(network.as_dense(a.net, ta),
                                                                 network.as_dense(b.net, tb)), name


CASES = [
    # TD with TC-EXP and replacing-resetting traces over λ > 0: every branch of apply_change and the trace loop
    ("tictactoe", dict(tcl="exp", lam=0.5, trace_mode="rr"), 1500),
    # SARSA: one table per action, symmetric boards reading other actions' tables (with -m slow: its paged loop is
    # compiled for this test alone, ~30 CPU s)
    pytest.param("tictactoe", dict(algo="sarsa", tcl="id"), 800, marks=pytest.mark.slow),
    # three players, one table set each (with -m slow: its paged loop is compiled for this test alone)
    pytest.param("nim3p", dict(), 1500, marks=pytest.mark.slow),
]


@pytest.mark.parametrize("game, changes, episodes", CASES, ids=["td-tcl-exp-rr", "sarsa-tcl", "nim3p"])
def test_paged_learns_the_same_floats_as_dense(game, changes, episodes):
    cfg = paper_config(game).replace(**changes)
    dense = NTupleAgent(game, cfg, layout="dense")
    paged = NTupleAgent(game, cfg, layout="paged")
    assert not network.is_paged(dense.net) and network.is_paged(paged.net)
    assert np.array_equal(dense.train(episodes), paged.train(episodes))
    assert_same_tables(dense, paged)
    assert paged.net.pages_used[0] > 0 and np.any(paged.net.weights)


def test_paged_round_trip_continues_exactly(tmp_path):
    cfg = paper_config("tictactoe").replace(tcl="exp", lam=0.5)
    dense = NTupleAgent("tictactoe", cfg, layout="dense")
    paged = NTupleAgent("tictactoe", cfg, layout="paged")
    dense.train(1000)
    paged.train(1000)
    paged.save(tmp_path / "paged.npz")
    dense.save(tmp_path / "dense.npz")
    with np.load(tmp_path / "paged.npz") as data:
        assert "weights_index" in data.files and "weights" not in data.files  # entries, never a whole table
    expected = NTupleAgent.load(tmp_path / "dense.npz", layout="dense").train(300)
    for path in ("paged.npz", "dense.npz"):
        for layout in ("paged", "dense"):
            loaded = NTupleAgent.load(tmp_path / path, layout=layout)
            assert network.is_paged(loaded.net) == (layout == "paged")
            assert_same_tables(loaded, dense)
            assert np.array_equal(loaded.train(300), expected), (path, layout)


def test_a_table_stored_whole_loads_into_pages():
    cfg = paper_config("nim3p")
    dense = NTupleAgent("nim3p", cfg, layout="dense")
    dense.train(1500)
    arrays = {}
    put_table(arrays, "weights", dense.net.weights, 0.0)
    assert "weights" in arrays  # more than a third of nim's entries are set: the whole table is stored
    paged = NTupleAgent("nim3p", cfg, layout="paged")
    paged._load_table(arrays, "weights", paged.net.weights, 0.0)
    assert np.array_equal(network.as_dense(paged.net, paged.net.weights), dense.net.weights)


def test_a_page_never_written_reads_the_starting_values():
    cfg = paper_config("connect_four").replace(ntuple_count=4)
    paged = NTupleAgent("connect_four", cfg, layout="paged")
    dense = NTupleAgent("connect_four", cfg, layout="dense")
    paged.train(20)
    dense.train(20)
    written_keys, _ = network.written(paged.net)
    lut = network.lut_size(paged.net)
    unwritten = np.setdiff1d(np.arange(lut), written_keys)
    assert unwritten.size > 0.9 * lut  # 20 games touch few of the 4 x 4**8 entries
    slots = network.slots_of(paged.net, unwritten[:: max(1, unwritten.size // 1000)])
    assert np.all(slots < network.PAGE_SIZE)  # page 0
    assert np.all(paged.net.weights[0, :, slots] == 0)
    assert np.all(paged.net.tcl_a[0, :, slots] == np.float32(cfg.tcl_init))
    assert_same_tables(paged, dense)
    # memory follows the pages handed out, a small part of the dense tables
    assert network.stored_bytes(paged.net) < network.stored_bytes(dense.net) / 5


def test_auto_layout_pages_only_large_tables():
    big = paper_config("game2048")
    assert network_bytes(4, 6, 16, 1, 1, tcl=True) >= PAGED_FROM_BYTES  # 2048's paper net: 768 MiB dense
    assert network.is_paged(NTupleAgent("game2048", big).net)  # allocated lazily: no memory spent here
    assert not network.is_paged(NTupleAgent("tictactoe", paper_config("tictactoe")).net)
    with pytest.raises(ValueError, match="layout"):
        NTupleAgent("tictactoe", paper_config("tictactoe"), layout="sparse")
    with pytest.raises(ValueError, match="table_layout"):
        paper_config("tictactoe").replace(table_layout="sparse")
    # the setting is part of the config (a flag of farl train), the constructor's argument overrides it
    assert network.is_paged(NTupleAgent("tictactoe", paper_config("tictactoe").replace(table_layout="paged")).net)
    assert not network.is_paged(NTupleAgent("tictactoe", paper_config("tictactoe").replace(table_layout="paged"),
                                            layout="dense").net)


def test_get_table_keeps_the_last_of_repeated_positions():
    arrays = {"w_index": np.array([3, 1, 3]), "w_value": np.array([1.0, 2.0, 5.0], dtype=np.float32)}
    assert np.array_equal(get_table(arrays, "w", (1, 1, 4), 0.0).ravel(), [0.0, 2.0, 0.0, 5.0])
