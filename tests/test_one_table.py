"""One weight table for both players (``one_table``, Thill, Bagheri, Koch & Konen 2014's Alg. 1): the second
player's value is the negation of the first's on the same table, its updates move that table with the opposite
sign, and a TicTacToe agent so built still learns the game."""
from __future__ import annotations

import numpy as np
import pytest
from test_learners import _policy
from ttt_perfect import suboptimal_fraction

from farl_agents.learners import NTupleAgent, paper_config
from farl_agents.ntuple.network import apply_change, board_indices, build_net, raw_value
from farl_envs.games._grid import cell_action_symmetries, square_symmetries

PERMS = square_symmetries(3)
TUPLES = np.array([[0, 1, 2], [0, 4, 8], [2, 5, 8]])
BOARD = np.array([1, 0, 2, 0, 1, 0, 0, 2, 0], np.int32)
NO_SKIP = np.zeros((0, 0), dtype=np.bool_)


def _net(one_table: bool, tcl: bool = False):
    return build_net(TUPLES, 3, 2, 1, PERMS, cell_action_symmetries(PERMS, 9), True, tcl, 1e-4, one_table=one_table)


def _indices(net):
    idx = np.empty((PERMS.shape[0], TUPLES.shape[0]), np.int64)
    board_indices(net, BOARD, idx)
    return idx


def test_the_second_player_reads_the_first_players_table_negated():
    net = _net(True)
    net.weights[:, 0] = np.random.default_rng(3).normal(size=net.weights[:, 0].shape).astype(np.float32)
    net.weights[:, 1] = 99.0  # the second player's own table is never read
    idx = _indices(net)
    first = raw_value(net, 0, 0, idx)
    assert first != 0.0
    assert raw_value(net, 1, 0, idx) == -first


def test_the_second_players_update_is_the_per_player_update_mirrored_onto_table_0():
    one, two = _net(True), _net(False)
    idx = _indices(one)
    for change in (0.3, -0.7, 0.2):
        apply_change(one, 1, 0, idx, 0.05, change, False, 0.0, NO_SKIP)
        apply_change(two, 1, 0, idx, 0.05, change, False, 0.0, NO_SKIP)
    # the second player's value moved the same way on both nets ...
    assert raw_value(one, 1, 0, idx) == raw_value(two, 1, 0, idx) != 0.0
    # ... by moving table 0 the other way (and leaving table 1 alone)
    np.testing.assert_array_equal(one.weights[:, 0], -two.weights[:, 1])
    assert not one.weights[:, 1].any()


def test_tcl_accumulates_the_second_players_changes_with_their_sign_on_table_0():
    one, two = _net(True, tcl=True), _net(False, tcl=True)
    idx = _indices(one)
    for change in (0.3, -0.7, 0.2):
        apply_change(one, 1, 0, idx, 0.05, change, True, 2.7, NO_SKIP)
        apply_change(two, 1, 0, idx, 0.05, change, True, 2.7, NO_SKIP)
    start = np.float32(1e-4)  # both accumulators start there, whatever the sign of what follows
    np.testing.assert_allclose(one.tcl_n[:, 0] - start, -(two.tcl_n[:, 1] - start), atol=1e-6)
    np.testing.assert_array_equal(one.tcl_a[:, 0], two.tcl_a[:, 1])
    assert (one.tcl_a[:, 0] > start).any()


def test_one_table_needs_a_two_player_game():
    with pytest.raises(ValueError, match="two-player"):
        NTupleAgent("nim3p", paper_config("nim3p", one_table=True))


def test_where_the_players_share_no_entry_one_table_learns_exactly_what_two_tables_learn(tmp_path):
    """TicTacToe's paper preset has one 9-tuple: every board is its own entry, and the first player's afterstates
    never share one with the second's. One table then holds the first player's table minus the second's, to the
    bit, after a whole training (TD, traces, FARL): a check of every sign on the learner's path."""
    one = NTupleAgent("tictactoe", paper_config("tictactoe", seed=0, one_table=True))
    two = NTupleAgent("tictactoe", paper_config("tictactoe", seed=0))
    for agent in (one, two):
        agent.train(agent.config.episodes)
    assert not ((two.net.weights[:, 0] != 0) & (two.net.weights[:, 1] != 0)).any()
    np.testing.assert_array_equal(one.net.weights[:, 0], two.net.weights[:, 0] - two.net.weights[:, 1])
    assert not one.net.weights[:, 1].any()
    assert suboptimal_fraction(_policy(one)) < 0.1  # measured 0.010-0.014 (seeds 0-2), as with two tables
    loaded = NTupleAgent.load(one.save(tmp_path / "one.npz"))
    assert loaded.config.one_table
    np.testing.assert_array_equal(loaded.net.table_of, [0, 0])
    np.testing.assert_array_equal(loaded.net.weights, one.net.weights)
