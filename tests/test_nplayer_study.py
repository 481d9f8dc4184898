"""The N-player learning study's measurements: deciding patterns counted by hand, coverage, outcome classes."""
from __future__ import annotations

import json

import numpy as np

import farl_envs
from farl_agents.players import RandomPlayer
from farl_envs.core.rng import make_rng
from farl_envs.games import chinese_checkers as cc
from studies.nplayer import audit, cc_blockers, cc_racer
from studies.nplayer.learning import _BOARDS, ROWS, VARIANTS, published_rows, select, table


def test_yavalath_lines_counted_by_hand():
    # edge 5: rows of 5,6,7,8,9,8,7,6,5 cells on each of the 3 axes; a row of L cells holds L-k+1 lines of k
    lengths = [5, 6, 7, 8, 9, 8, 7, 6, 5]
    pats = audit.patterns(farl_envs.game_spec("yavalath", players=3))
    for k in (3, 4):
        lines = pats[f"straight lines of {k}"]
        assert len(lines) == 3 * sum(L - k + 1 for L in lengths)
        assert all(len(set(line)) == k for line in lines)


def test_sim_triangles_are_all_triples_of_nodes():
    pats = audit.patterns(farl_envs.game_spec("sim", players=3, nodes=12))
    assert len(pats["triangles"]) == 12 * 11 * 10 // 6
    assert len(set(pats["triangles"])) == len(pats["triangles"])


def test_coverage_counts_patterns_inside_one_tuple_under_symmetry():
    identity = np.arange(4)[None, :]
    mirror = np.array([[0, 1, 2, 3], [3, 2, 1, 0]])
    tuples = np.array([[0, 1, 2]])
    assert audit.coverage(tuples, identity, [(0, 1), (1, 2), (2, 3)]) == 2 / 3
    # (2, 3) is the mirror image of (1, 0): seen once the mirror is used
    assert audit.coverage(tuples, mirror, [(0, 1), (1, 2), (2, 3)]) == 1.0
    assert audit.coverage(tuples, identity, [(0, 3)]) == 0.0


def test_tictactoe_outcomes_only_in_possible_classes():
    # in TicTacToe a player can only win on his own move and lose on the opponent's: no other class may appear
    game = farl_envs.game_spec("tictactoe")
    counts = audit.outcomes(game, RandomPlayer(), RandomPlayer(), games=30, seed=3)
    for seat in (0, 1):
        assert sum(counts[seat].values()) == 30
        assert set(counts[seat]) <= {audit.CLASSES[0], audit.CLASSES[4], audit.CLASSES[5]}
        assert counts[seat][audit.CLASSES[0]] > 0 and counts[seat][audit.CLASSES[4]] > 0


def test_variants_are_train_commands_and_rows_select_in_order():
    for v in VARIANTS:
        argv = v.argv()
        assert argv[:2] == ["train", v.game] and "--set" in argv
    ids = [r.id for r in select(["yav3-gbg", "yav3-preset"])]
    assert ids == ["yav3-gbg-vs-mcts1000", "yav3-preset-vs-mcts1000"]
    assert len({r.id for r in ROWS}) == len(ROWS)


def test_chinese_checkers_targets_are_the_empty_opposite_points():
    game = farl_envs.game_spec("chinese_checkers", players=3, max_moves=6)
    s = game.initial_state(game.p, make_rng(0))
    targets = [set(cc_racer.target_holes(game.p, seat).tolist()) for seat in range(3)]
    for seat, holes in enumerate(targets):
        assert len(holes) == 10
        assert all(s[cc.CELLS + h] == 0 for h in holes)  # with 3 players nobody starts where another must go
        own = {h for h in range(cc.N_HOLES) if s[cc.CELLS + h] == seat + 1}
        assert len(own) == 10 and not own & holes
    assert not (targets[0] & targets[1] or targets[1] & targets[2] or targets[0] & targets[2])
    rnd = RandomPlayer()
    g = cc_blockers.play(game, [rnd] * 3, 0, make_rng(1), make_rng(2))
    assert g["result"] == "draw" and g["turns"] == 6 and g["own"] == 0  # no peg crosses the star in 2 turns


def test_selfplay_outcomes_count_every_game_and_agree_with_the_results():
    """TicTacToe self-play of an untrained agent with random moves: every game counted once, 5..9 plies, and the
    share with a winner is the share of result vectors with a positive entry."""
    from farl_agents.learners import NTupleAgent

    agent = NTupleAgent("tictactoe")
    row = audit.selfplay_outcomes(agent, agent.game, games=40, epsilon=0.5, seed=2)
    assert sum(row["results"].values()) == 40
    assert 5 <= row["plies"] <= 9
    assert set(row["results"]) <= {(-1.0, 1.0), (0.0, 0.0)}
    assert row["winner"] == row["results"].get((-1.0, 1.0), 0) / 40 > 0


def test_value_truth_of_an_untrained_agent_has_no_learned_spread():
    """All-zero tables value every quiet move alike (spread 0, so no correlation), and their bias is minus the
    Monte-Carlo values."""
    from farl_agents.learners import NTupleAgent

    agent = NTupleAgent("tictactoe")
    row = audit.value_truth(agent, agent.game, positions=3, rollouts=4, epsilon=1.0, seed=1)
    assert row["positions"] == 3
    assert row["learned spread"][0] == 0.0
    assert np.isnan(row["correlation"][0]) or row["correlation"][0] == 0.0
    assert -1.0 <= row["bias"][0] <= 1.0


def test_the_whole_turn_racer_sees_at_least_what_one_action_and_a_pass_see():
    """At the start of every turn of a random game the racer's best finished turn has at least the race progress
    of the best single action followed, inside a hop chain, by a pass; in some positions a longer chain does
    strictly better (what a one-action player cannot see)."""
    from studies.nplayer.cc_racer import best_turn

    game = farl_envs.game_spec("chinese_checkers", players=3, max_moves=300)
    rng, walk = make_rng(4), make_rng(5)
    s = np.array(game.initial_state(game.p, rng), dtype=np.int32)
    progress, rewards, strictly_better = np.zeros(3), np.zeros(3), 0
    for _ in range(120):
        if s[cc.HOP_FROM] < 0:  # a turn starts
            me = int(s[0])
            mask = np.zeros(game.n_actions, dtype=np.int8)
            game.legal_actions(game.p, s, mask)
            one = -np.inf
            for a in np.flatnonzero(mask):
                t = s.copy()
                game.afterstate(game.p, s, int(a), t, rewards)
                if int(t[0]) == me and not t[1]:
                    game.afterstate(game.p, t, cc.PASS, t, rewards)
                cc.race_progress(game.p, t, progress)
                one = max(one, progress[me])
            value, action = best_turn(game, s, rng)
            assert mask[action] and value >= one - 1e-12
            strictly_better += value > one + 1e-9
        a = RandomPlayer().act(game, s, walk)
        game.afterstate(game.p, s, a, s, rewards)
        if s[1]:
            break
    assert strictly_better >= 1


def test_a_spoiler_is_walled_in_only_when_it_can_neither_step_nor_hop():
    """player_1's peg on the tip of player_0's target: walled in once every neighbour and every hole behind one
    is taken by player_0's pegs; one free hole behind lets it hop out, one free neighbour lets it step."""
    from studies.nplayer.cc_racer import walled_in

    game = farl_envs.game_spec("chinese_checkers", players=3, max_moves=300)
    s = np.array(game.initial_state(game.p, make_rng(0)), dtype=np.int32)
    s[cc.CELLS:cc.CELLS + cc.N_HOLES] = 0
    target = cc_racer.target_holes(game.p, 0)
    point = (int(game.p[cc.P_HOMES]) + 3) % 6
    tip = int(next(h for h in target if cc.TIP_DISTANCE[point, h] == 0))  # the hole farthest from the centre
    assert walled_in(game, s, 0) == 0
    s[cc.CELLS + tip] = 2  # a peg of player_1
    ring = [(int(cc.NEIGHBOUR[tip, d]), int(cc.HOP[tip, d])) for d in range(6) if cc.NEIGHBOUR[tip, d] >= 0]
    assert ring and walled_in(game, s, 0) == 0  # it can step
    for nb, behind in ring:
        s[cc.CELLS + nb] = 1
        if behind >= 0:
            s[cc.CELLS + behind] = 1
    assert walled_in(game, s, 0) == 1 and walled_in(game, s, 1) == 0  # only player_0's target holds a spoiler
    hop_out = next(behind for _, behind in ring if behind >= 0)
    s[cc.CELLS + hop_out] = 0
    assert walled_in(game, s, 0) == 0


def test_the_page_keeps_published_rows_whose_result_files_are_gone(tmp_path):
    """Run folders stay out of git: rewriting the page on a machine without an earlier row's result file keeps that
    row's published line; a row never measured stays "not run yet"; a result file present wins over the page."""
    runs = tmp_path / "runs"
    runs.mkdir()
    first = table(runs)
    heading = next(line for line in first if line.startswith("### "))
    row = next(line for line in first if line.startswith("| yav3-preset |"))
    assert heading.startswith(f"### {_BOARDS[0][1]}") and "not run yet" in row
    page = tmp_path / "page.md"
    published = row.replace("– (not run yet)", "-0.65 ± 0.078 (60 games)")
    page.write_text("\n".join(line if line != row else published for line in first))
    kept = table(runs, published_rows(page))
    assert published in kept and sum("not run yet" in line for line in kept) == \
        sum("not run yet" in line for line in first) - 1
    result = {"matchups": [{"mean_score": 0.5, "score_se": 0.1, "n_games": 60, "per_seat": [{"mean_score": 0.5}] * 3}]}
    (runs / "yav3-preset-vs-mcts1000.json").write_text(json.dumps(result))
    with_file = table(runs, published_rows(page))
    assert published not in with_file and any(line.startswith("| yav3-preset |") and "+0.50" in line
                                              for line in with_file)
