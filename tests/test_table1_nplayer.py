"""The N-player Table 1 rows (beyond the paper): presets, rows, an end-to-end smoke run and the final-reward count."""
import json

import numpy as np
import pytest

import farl_envs
from farl_agents.learners.presets import nplayer_config, nplayer_game, nplayer_names
from farl_agents.ntuple.sets import make_set
from farl_agents.opponents import make_opponent
from farl_agents.players import CallablePlayer
from farl_envs.games.sim import edge_list
from studies.table1 import final_rewards, table1
from studies.table1.table1_rows import NPLAYER_ROWS, find_row, prefix

NPLAYER_KEYS = ("sim3p", "sim12_3p", "yavalath3p", "yavalath3p_taught", "chinese_checkers3p", "ewn3p",
                "ewn3p_large")


def test_the_per_ply_column_repeats_its_row_with_the_chain_through_every_ply():
    """``<row>-ply``: the row's settings (shaping and teacher included), budgets and protocol, with
    ``td_chain="ply"``, no final adaptation and λ per ply the cube root of the row's λ per entry; one column;
    ``--rows nplayer`` leaves them out, they are named one by one."""
    from studies.table1.table1_rows import NPLAYER_PLY_ROWS, parse_rows

    assert set(NPLAYER_PLY_ROWS) == {"sim12_3p-ply", "yavalath3p_taught-ply", "chinese_checkers3p-ply",
                                     "ewn3p_large-ply"}
    for key, row in NPLAYER_PLY_ROWS.items():
        base = NPLAYER_ROWS[key.removesuffix("-ply")]
        assert row.per_ply and not base.per_ply and row.farl_cells == (False,)
        assert (row.game, row.game_params, row.opponents, row.starts) == (base.game, base.game_params,
                                                                         base.opponents, base.starts)
        mine, theirs = row.config(False), base.config(False)
        assert mine.td_chain == "ply" and theirs.td_chain == "player" and not mine.farl
        assert mine.lam == pytest.approx(theirs.lam ** (1 / 3))
        assert dataclass_diff(mine, theirs) <= {"td_chain", "lam"}
        assert table1.plan(row, "paper") == table1.plan(base, "paper")
        assert table1.run_folder("o", "paper", row, False, 0).parent.name == key
    assert "sim12_3p-ply" not in [r.key for r in parse_rows("nplayer")]
    assert [r.key for r in parse_rows("ewn3p_large-ply,ewn3p_large")] == ["ewn3p_large-ply", "ewn3p_large"]


def test_presets_and_rows_fit_their_games():
    assert tuple(nplayer_names()) == NPLAYER_KEYS == tuple(NPLAYER_ROWS)
    for key in NPLAYER_KEYS:
        row = NPLAYER_ROWS[key]
        game, params = nplayer_game(key)
        assert row.game == game and row.game_params == params and params["players"] == 3
        spec = farl_envs.game_spec(game, **params)
        assert spec.n_players == 3
        farl, nofarl = row.config(True), row.config(False)
        assert farl.farl and farl.farl_terminal and not nofarl.farl and not nofarl.farl_terminal
        assert dataclass_diff(farl, nofarl) == {"farl", "farl_terminal"}  # the columns differ in FARL only
        assert farl.ntuples == "random-walk" and 1 <= farl.ntuple_length <= spec.n_cells
        for opp in row.opponents:
            make_opponent(opp.name, spec)  # raises if the opponent cannot play the game
        paper, quick, smoke = (table1.plan(row, b) for b in ("paper", "quick", "smoke"))
        assert smoke.episodes < quick.episodes <= paper.episodes == farl.episodes
        assert paper.episodes % paper.eval_every == 0 and quick.episodes % quick.eval_every == 0
        assert not row.percent and not row.paper_figures
    with pytest.raises(ValueError, match="known: sim3p, sim12_3p, yavalath3p"):
        nplayer_config("sim4p")
    with pytest.raises(ValueError, match="no N-player preset"):
        nplayer_game("nim3p")


def dataclass_diff(a, b) -> set:
    return {k for k, v in vars(a).items() if vars(b)[k] != v}


def test_row_names_and_files():
    assert [r.key for r in table1.parse_rows("nplayer")] == list(NPLAYER_KEYS)
    assert [r.key for r in table1.parse_rows("ewn3p, nim3p")] == ["ewn3p", "nim3p"]
    assert "sim3p" not in [r.key for r in table1.parse_rows("all")]  # `all` stays the paper's table
    with pytest.raises(ValueError, match="ewn3p.*nplayer"):
        table1.parse_rows("sim5p")
    with pytest.raises(ValueError, match="unknown Table 1 row 'go'"):
        find_row("go")
    assert prefix("quick", "nplayer") == "table1_nplayer_quick" and prefix("paper", "nplayer") == "table1_nplayer_long"
    assert prefix("quick") == "table1_quick"
    assert table1.run_folder("o", "quick", NPLAYER_ROWS["sim3p"], False, 3).as_posix() == \
        "o/table1_nplayer_quick_runs/sim3p/nofarl-seed3"


def test_sim_tuples_walk_on_edges_sharing_a_node():
    """Sim's random-walk tuples: every tuple is a connected set of edges, connection = a shared end node."""
    game, params = nplayer_game("sim3p")
    spec = farl_envs.game_spec(game, **params)
    cfg = nplayer_config("sim3p")
    edges = edge_list(params["nodes"])
    tuples = make_set(spec, cfg.ntuples, cfg.ntuple_count, cfg.ntuple_length, seed=5)
    assert tuples.shape == (cfg.ntuple_count, cfg.ntuple_length)
    for t in tuples:
        assert len(set(t.tolist())) == len(t)
        reached, todo = {int(t[0])}, [int(t[0])]
        while todo:  # flood fill over the tuple's edges
            e = todo.pop()
            for f in t.tolist():
                if f not in reached and set(edges[e]) & set(edges[f]):
                    reached.add(f)
                    todo.append(f)
        assert reached == set(t.tolist())


def test_final_reward_count_on_games_with_known_answers():
    """Who misses the final reward without FARL, checked by reasoning about the rules.

    Sim with 2 players on K6 always has a loser (Ramsey: R(3,3) = 6) and the loser is the player who
    made the last move, so exactly the other seat gets its reward (+1) after its last move. In TicTacToe
    the last mover wins or draws: exactly the decided games lose one seat's reward (the loser's).
    """
    sim2 = final_rewards.count(farl_envs.game_spec("sim", players=2, nodes=6), 200, seed=1)
    assert sim2["decided"] == 1.0
    assert np.allclose(sim2["lost"], 1.0 - sim2["ended"])
    ttt = final_rewards.count(farl_envs.game_spec("tictactoe"), 300, seed=2)
    assert 0.0 < ttt["decided"] < 1.0 and np.isclose(ttt["lost"].sum(), ttt["decided"])
    # with 3 players every -1 comes on the loser's own move (dropping out, or the last move of the game),
    # so a game loses at most one reward without FARL: the winner's +1
    sim3 = final_rewards.count(farl_envs.game_spec("sim", players=3, nodes=6), 200, seed=3)
    assert sim3["lost"].sum() <= sim3["decided"] + 1e-12


def test_final_reward_count_under_a_player_keeps_the_rules_facts():
    """The same facts hold whoever chooses the moves: a player that always takes the first legal edge after
    the random opening plies, on 2-player Sim K6, still loses exactly the non-last mover's reward, and its
    games differ from the random ones."""
    first = CallablePlayer(lambda game, s, rng: int(np.flatnonzero(_mask(game, s))[0]), name="first")
    game = farl_envs.game_spec("sim", players=2, nodes=6)
    played = final_rewards.count(game, 100, seed=1, agent=first)
    assert played["decided"] == 1.0 and np.allclose(played["lost"], 1.0 - played["ended"])
    assert not np.allclose(played["ended"], final_rewards.count(game, 100, seed=1)["ended"])


def _mask(game, s):
    mask = np.zeros(game.n_actions, dtype=np.int8)
    game.legal_actions(game.p, s, mask)
    return mask


@pytest.mark.slow  # compiles Chinese Checkers' TD loop (~45 CPU s cold), which no default test needs otherwise
def test_smoke_run_end_to_end_and_cached(tmp_path):
    row = NPLAYER_ROWS["chinese_checkers3p"]
    logs = []
    assert table1.reproduce([row], runs=1, jobs=1, budget="smoke", out=tmp_path, progress=False,
                            log=logs.append) == 0
    md = (tmp_path / "table1_nplayer_smoke.md").read_text()
    assert not (tmp_path / "table1_smoke.md").exists()  # the paper's table is not touched
    line = next(x for x in md.splitlines() if x.startswith("| Chinese Checkers"))
    assert line.count("(1 run)") == 2 and "| random |" in line
    assert "| Sim K6, 3 players | MCTS500 | not run | not run |" in md
    for cell in ("farl-seed0", "nofarl-seed0"):
        folder = table1.run_folder(tmp_path, "smoke", row, cell == "farl-seed0", 0)
        result = json.loads((folder / "result.json").read_text())
        assert result["episodes"] == table1.plan(row, "smoke").episodes
        final = json.loads((folder / "final_eval.json").read_text())
        assert final["matchups"][0]["n_games"] == 3  # one game in each of the three seats
        params = json.loads((folder / "run.json").read_text())["game_params"]
        assert params["players"] == 3 and params["max_moves"] == 1000
    # a second call trains nothing: both runs are cached
    logs.clear()
    assert table1.reproduce([row], runs=1, jobs=1, budget="smoke", out=tmp_path, progress=False,
                            log=logs.append) == 0
    assert "2 already finished, 0 to train" in logs[0]


def test_farl_train_takes_the_nplayer_presets_with_their_game_parameters():
    from farl_agents.learners.family import base_config, presets

    assert set(NPLAYER_KEYS) <= set(presets())
    for key in NPLAYER_KEYS:
        game, params = nplayer_game(key)
        settings, got_params = base_config("td-farl", game, key)
        assert got_params == params and settings == nplayer_config(key).to_dict()
        nofarl, _ = base_config("td", game, key)
        assert not nofarl["farl"] and not nofarl["farl_terminal"]
    with pytest.raises(ValueError, match="preset 'yavalath3p' is for yavalath, not sim"):
        base_config("td-farl", "sim", "yavalath3p")
