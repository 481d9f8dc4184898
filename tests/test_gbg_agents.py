"""studies/gbg_agents: GBG's boards in farl's cells and values, and GBG tables as farl tables.

The mappings are checked against facts written down independently of the code (GBG's Yavalath tile table in
``ConfigYavalath``'s comment, EWN's codings as GBG's ``XNTupleFuncsEWN`` documents them) and against farl's own
geometry. The exported agents themselves need java and a GBG checkout: those tests read an export the study has
written under ``runs/gbg_agents`` and are skipped, with the reason, when there is none.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import farl_envs
from studies.gbg_agents import mapping

ROOT = Path(__file__).resolve().parents[1]
EXPORTS = ROOT / "runs" / "gbg_agents"


def _yavalath(size=5, players=2):
    return farl_envs.game_spec("yavalath", size=size, players=players, swap=players == 2)


# ------------------------------------------------------------------ Yavalath
def test_yavalath_gbg_tiles_are_configyavalath_table():
    # ConfigYavalath's comment for size 5: the tile values 00-04, 09-14, 18-24, 27-34, 36-44, 46-53, 56-62,
    # 66-71, 76-80 of the 9x9 array are the actions 0..60
    rows = [range(0, 5), range(9, 15), range(18, 25), range(27, 35), range(36, 45), range(46, 54), range(56, 63),
            range(66, 72), range(76, 81)]
    expected = [t for r in rows for t in r]
    assert [9 * x + y for x, y in mapping.yavalath_gbg_tiles(5)] == expected


@pytest.mark.parametrize("size", [3, 4, 5, 6])
def test_yavalath_cells_keep_their_order_and_neighbours(size):
    game = _yavalath(size)
    cmap = mapping.cell_map(game)
    assert sorted(cmap) == list(range(game.n_cells))
    assert np.array_equal(cmap, np.arange(game.n_cells))  # both number row by row, left to right
    # GBG's six neighbours of tile (x, y) (XNTupleFuncsYavalath.adjacencySet) are farl's neighbours
    tiles = mapping.yavalath_gbg_tiles(size)
    at = {t: i for i, t in enumerate(tiles)}
    from farl_envs.games._yavalath_board import neighbour_table

    farl_nb = neighbour_table(size)
    for i, (x, y) in enumerate(tiles):
        gbg = {at[t] for t in [(x - 1, y - 1), (x - 1, y), (x, y + 1), (x + 1, y + 1), (x + 1, y), (x, y - 1)]
               if t in at}
        assert {int(cmap[j]) for j in gbg} == {int(c) for c in farl_nb[cmap[i]] if c >= 0}


def test_symmetry_sets_compare_as_sets():
    game = _yavalath()
    perms = np.asarray(game.symmetries(game.p))
    assert mapping.symmetry_perms_match(game, perms[::-1])  # any order
    wrong = perms.copy()
    wrong[3] = wrong[3][::-1]  # the point reflection of the hexagon read backwards is no symmetry in that place
    assert not mapping.symmetry_perms_match(game, wrong)
    assert not mapping.symmetry_perms_match(game, perms[:6])


def test_yavalath_state_from_gbg_tiles():
    game = _yavalath()
    tiles = [[x, y, -1] for x, y in mapping.yavalath_gbg_tiles(5)]
    tiles[0][2] = 0  # GBG's tile (0, 0): player 0's stone on farl's a1 (cell 0)
    tiles[60][2] = 1  # tile (8, 8): player 1's stone on the last cell
    board = mapping.farl_board(game, mapping.farl_state(game, {"tiles": tiles, "swap_used": False}, mover=1))
    assert board[0] == 1 and board[60] == 2 and np.count_nonzero(board) == 2


# ------------------------------------------------------------------ Sim
@pytest.mark.parametrize("nodes", [6, 15])
def test_sim_edges_keep_gbg_order(nodes):
    game = farl_envs.game_spec("sim", players=2, nodes=nodes)
    assert np.array_equal(mapping.cell_map(game), np.arange(nodes * (nodes - 1) // 2))
    edges = [0] * game.n_cells
    edges[1] = 1  # GBG's link (0, 2) coloured by player 0 (StateObserverSim.inputToActionInt(0, 2) = 1)
    edges[-1] = 2  # link (n-2, n-1) by player 1
    board = mapping.farl_board(game, mapping.farl_state(game, {"edges": edges}, mover=1))
    from farl_envs.games.sim import edge_list

    assert edge_list(nodes)[1] == (0, 2) and board[1] == 1 and board[-1] == 2


# ------------------------------------------------------------------ EWN
def _ewn(coding):
    return farl_envs.game_spec("einstein_wurfelt_nicht", players=2, size=5, cell_coding=coding)


def test_ewn_values_today():
    # coding 0: player k -> k, empty -> N = 2; coding 1: 3k + group of the value (0-1, 2-3, 4-5), empty -> 6
    assert list(mapping.value_map(_ewn(0), 3)) == [1, 2, 0]
    assert list(mapping.value_map(_ewn(1), 7)) == [1, 2, 3, 4, 5, 6, 0]
    game = _ewn(1)
    squares = [[-1, -1]] * 25
    squares = list(squares)
    squares[0] = [0, 0]  # player 0's token 0 (cube 1): GBG 0, group 0
    squares[7] = [1, 4]  # player 1's token 4 (cube 5): GBG 3 * 1 + 2 = 5
    squares[24] = [1, 2]  # player 1's token 2 (cube 3): GBG 3 + 1 = 4
    board = mapping.farl_board(game, mapping.farl_state(game, {"squares": squares}, mover=0))
    gbg = np.full(25, 6)
    gbg[[0, 7, 24]] = [0, 5, 4]
    assert np.array_equal(board, mapping.value_map(game, 7)[gbg])
    assert np.array_equal(mapping.gbg_value_of(game, 7)[board], gbg)


def test_ewn_coding_of_2021():
    # GBG's coding 1 of October 2021: empty -> N = 2, token value v of player k -> 3k + (0 if v < 3, 1 if v = 3,
    # 2 if v > 3), read off farl's cell_coding=2 values 1 + 6k + v
    gval = mapping.gbg_value_of(_ewn(2), 7, coding="2021")
    assert gval[0] == 2
    assert list(gval[1:7]) == [0, 0, 0, 1, 2, 2]  # player 0, values 0..5: 4 and 5 read as "empty"
    assert list(gval[7:13]) == [3, 3, 3, 4, 5, 5]
    with pytest.raises(ValueError):
        mapping.gbg_value_of(_ewn(1), 7, coding="2021")


# ------------------------------------------------------------------ tables
def _gbg_value(tuples, radix, luts, gbg_board, player):
    """GBG's value by GBG's index rule (first cell lowest digit, mixed radix), tanh output."""
    total = 0.0
    for t, r, lut in zip(tuples, radix, luts[player]):
        index, place = 0, 1
        for c, q in zip(t, r):
            index += gbg_board[c] * place
            place *= q
        total += lut[index]
    return np.tanh(total)


@pytest.mark.parametrize("coding", [0, 1])
def test_tables_convert_entry_by_entry(coding):
    """A GBG network with tuples of different lengths on EWN 5x5 (value map (b + 1) mod P, padding): farl's value
    of random boards equals GBG's, for both players' tables."""
    game = _ewn(coding)
    p = game.n_cell_values
    rng = np.random.default_rng(1)
    tuples = [[0, 1, 5], [6, 12, 18, 24], [3, 9]]
    radix = [[p] * len(t) for t in tuples]
    luts = [[rng.normal(size=p ** len(t)) / 3 for t in tuples] for _ in range(2)]
    export = {"tuples": tuples, "radix": radix, "sigmoid": True, "alpha": 0.2, "alpha_final": 0.2,
              "epsilon": 0.0, "epsilon_final": 0.0, "lambda": 0.0, "gamma": 1.0, "game_num": 1}
    agent = mapping.farl_agent(game, export, luts, use_symmetry=False)
    gval = mapping.gbg_value_of(game, p)
    for _ in range(20):
        squares = [[-1, -1]] * 25
        for cell in rng.choice(25, size=8, replace=False):
            squares[cell] = [int(rng.integers(2)), int(rng.integers(6))]
        state = mapping.farl_state(game, {"squares": squares}, mover=0)
        gbg_board = gval[mapping.farl_board(game, state)]
        for player in range(2):
            assert agent.afterstate_value(state, player) == pytest.approx(
                _gbg_value(tuples, radix, luts, gbg_board, player), abs=1e-6)


def test_padded_entries_no_board_reaches_stay_zero():
    game = farl_envs.game_spec("sim", players=2, nodes=6)
    luts = [[np.arange(1.0, 10.0)], [np.arange(1.0, 10.0)]]  # one 2-tuple, 3 values
    tuples, weights = mapping.convert_tables(game, [[4, 7]], [[3, 3]], luts)
    assert tuples.tolist() == [[4, 7]]
    tuples, weights = mapping.convert_tables(game, [[4, 7], [0, 1, 2]], [[3, 3], [3, 3, 3]],
                                             [[np.arange(1.0, 10.0), np.zeros(27)]] * 2)
    assert tuples.tolist() == [[4, 7, 7], [0, 1, 2]]
    first = weights[0, :27]
    reached = [a + 3 * b + 9 * b for a in range(3) for b in range(3)]  # the padded digit repeats cell 7's
    assert np.count_nonzero(first) == 9 and set(np.flatnonzero(first)) == set(reached)
    assert [first[a + 12 * b] for b in range(3) for a in range(3)] == list(np.arange(1.0, 10.0))


# ------------------------------------------------------------------ exports (java + GBG needed to make them)
@pytest.mark.parametrize("key", ["sim_k6", "ewn5_g0"])
def test_exported_agent_verifies(key):
    if not (EXPORTS / f"{key}.json").exists():
        pytest.skip(f"no GBG export {EXPORTS / key}.json: it needs java, javac and a GBG checkout "
                    f"(python -m studies.gbg_agents.gbg_agents --gbg GBG --stage export)")
    from studies.gbg_agents.gbg_agents import import_agent

    agent, report = import_agent(key, EXPORTS / key)
    assert report["status"] == "verified", json.dumps(report)[:500]
    assert report["max_abs_value_difference"] < 1e-5 and report["boards_differing"] == 0


def test_farl_train_command_carries_gbg_settings():
    from studies.gbg_agents.gbg_agents import train_command

    meta = {"tuples": [[0, 1, 2], [3, 4]], "alpha": 1.0, "alpha_final": 0.2, "epsilon": 0.3, "epsilon_final": 0.0,
            "lambda": 0.5, "horizon_cut": 0.01, "sigmoid": True, "use_symmetry": False, "symmetries_used": None,
            "game_num": 200000}
    cmd = train_command("sim_k6", meta, Path("runs/x"))
    assert cmd[:3] == ["farl", "train", "sim"]
    assert json.loads(cmd[cmd.index("--ntuple-cells") + 1]) == [[0, 1, 2], [3, 4, 4]]
    pairs = dict(zip(cmd[3::1], cmd[4::1]))
    assert pairs["--alpha-final"] == "0.2" and pairs["--lam"] == "0.5" and pairs["--episodes"] == "200000"
    assert "--no-use-symmetry" in cmd and "--tanh-output" in cmd
    # EWN agents of GBG's 2021 coding are matched by farl learning with its own coding 1
    ewn = train_command("ewn5_g012_300k", meta | {"tuples": [[0, 1]]}, Path("runs/x"), episodes=10)
    assert "cell_coding=1" in ewn and ewn[ewn.index("--episodes") + 1] == "10"
