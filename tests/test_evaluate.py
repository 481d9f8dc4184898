"""The evaluation harness: seats, counting, start sets, reproducibility, parallel runs, JSON."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

import farl_envs
from farl_agents.eval_results import EvalResult
from farl_agents.evaluate import evaluate, play_game
from farl_agents.openings import othello_4ply_starts, positions_after
from farl_agents.opponents import MCTS, MaxN
from farl_agents.players import CallablePlayer, RandomPlayer
from farl_envs.core.rng import make_rng
from farl_envs.core.spec import HEADER, TERMINAL


def _first_legal(game, state, rng):
    mask = np.zeros(game.n_actions, dtype=np.int8)
    game.legal_actions(game.p, state, mask)
    return int(np.flatnonzero(mask)[0])


FIRST = CallablePlayer(_first_legal, name="first")


def _comparable(result: EvalResult) -> dict:
    d = result.to_dict()
    d.pop("seconds")
    return d


def test_seats_and_counts_on_nim_1x1():
    """Nim with one item: whoever sits in seat 0 takes it and wins."""
    game = farl_envs.game_spec("nim", heaps=1, heap_size=1, max_take=1)
    r = evaluate(game, FIRST, RandomPlayer(), n_games=7, seed=0)
    m = r.matchups[0]
    assert (m.n_games, m.wins, m.draws, m.losses) == (14, 7, 0, 7)
    assert m.win_rate == 0.5 and m.mean_score == 0.0
    seat0, seat1 = m.per_seat
    assert (seat0.seat, seat0.wins, seat0.losses, seat0.win_rate, seat0.mean_score) == (0, 7, 0, 1.0, 1.0)
    assert (seat1.seat, seat1.wins, seat1.losses, seat1.win_rate, seat1.mean_score) == (1, 0, 7, 0.0, -1.0)
    assert seat0.win_rate_se == 0.0
    assert m.win_rate_se == pytest.approx(np.std([1.0] * 7 + [0.0] * 7, ddof=1) / np.sqrt(14))
    assert [g["seat"] for g in m.games] == [0] * 7 + [1] * 7
    assert all(g["plies"] == 1 and g["start"] == 0 for g in m.games)
    assert r.metric == "win_rate" and r.seats == [0, 1] and r.n_starts == 1
    only_first = evaluate(game, FIRST, RandomPlayer(), n_games=3, seats=[1], seed=0)
    assert only_first.matchups[0].per_seat[0].seat == 1 and only_first.win_rate == 0.0


def test_three_player_rotations_on_nim3p_1x1():
    """Nim3P with one item: seat 0 takes it (0), seat 1 wins (1), seat 2 gets the extra 0.2."""
    game = farl_envs.game_spec("nim3p", heaps=1, heap_size=1, max_take=1)
    r = evaluate(game, FIRST, "random", n_games=4, seed=0)
    m = r.matchups[0]
    assert r.metric == "mean_score" and m.win_rate is None and m.n_games == 12
    assert [s.mean_score for s in m.per_seat] == pytest.approx([0.0, 1.0, 0.2])
    assert m.mean_score == pytest.approx(0.4)
    for g in m.games:
        assert g["rewards"] == pytest.approx([0.0, 1.0, 0.2])
    # a tuple fills the other seats in order
    a, b = CallablePlayer(_first_legal, "a"), CallablePlayer(_first_legal, "b")
    r2 = evaluate(game, FIRST, [(a, b)], n_games=1, seed=0)
    assert r2.matchups[0].opponent == "a+b"


def test_several_players_and_opponents_make_a_grid_of_matchups():
    game = farl_envs.game_spec("tictactoe")
    r = evaluate(game, [FIRST, RandomPlayer("r1")], ["random", MaxN(9)], n_games=2, seed=0)
    assert [(m.player, m.opponent) for m in r.matchups] == [
        ("first", "random"), ("first", "Max-N9"), ("r1", "random"), ("r1", "Max-N9")]
    assert all(m.n_games == 4 for m in r.matchups)
    assert r.matchups[1].wins == 0 and r.matchups[3].wins == 0  # nobody beats Max-N
    with pytest.raises(ValueError):
        _ = r.score  # several matchups: no single headline


def test_one_player_game_2048_needs_no_opponent():
    game = farl_envs.game_spec("game2048")
    r = evaluate(game, RandomPlayer(), None, n_games=3, seed=4)
    m = r.matchups[0]
    assert r.metric == "mean_score" and m.opponent == "-" and m.n_games == 3
    assert m.mean_score > 100 and all(g["start"] == -1 for g in m.games)
    assert len({g["plies"] for g in m.games}) > 1  # fresh random starts


def test_a_random_start_is_drawn_afresh_for_every_game():
    """A game whose start draws from its rng without chance later (Rubik's cube's scramble) is evaluated on a
    fresh start per game, as 2048 is: one fixed scramble would measure a single cube. Deterministic starts stay
    the one position."""
    from farl_agents.openings import random_start, resolve_starts

    cube = farl_envs.game_spec("rubiks_cube", scramble_min=1, scramble_max=1, max_twists=1)
    assert random_start(cube) and not cube.has_chance
    assert resolve_starts(cube, "initial") == ("initial", "fresh")


    class FirstTwist:  # always the same twist: its result changes only with the scramble
        name = "first-twist"

        def act(self, game, state, rng):
            return 0

    m = evaluate(cube, FirstTwist(), None, n_games=60, seed=2, keep_games=True).matchups[0]
    assert {g["score"] for g in m.games} == {-0.04, 0.96}  # solved by that twist or not: different scrambles
    ttt = farl_envs.game_spec("tictactoe")
    assert not random_start(ttt) and resolve_starts(ttt, "initial")[1] != "fresh"


def test_start_state_sets():
    ttt = farl_envs.game_spec("tictactoe")
    r = evaluate(ttt, RandomPlayer(), RandomPlayer(), start_states="all-1ply", seed=1)
    assert r.n_starts == 9 and r.matchups[0].n_games == 18
    assert sorted(g["start"] for g in r.matchups[0].games if g["seat"] == 0) == list(range(9))
    assert all(g["plies"] <= 8 for g in r.matchups[0].games)
    r = evaluate(ttt, RandomPlayer(), RandomPlayer(), start_states=("random", 3), n_games=5, seed=1)
    assert r.start_states == "random-3ply" and all(g["plies"] <= 6 for g in r.matchups[0].games)
    starts = positions_after(ttt, 2)
    assert len(starts) == 72
    r = evaluate(ttt, RandomPlayer(), RandomPlayer(), start_states=starts[:5], n_games=10, seed=1)
    assert [g["start"] for g in r.matchups[0].games[:10]] == [0, 1, 2, 3, 4] * 2


def test_othello_4ply_start_set():
    seqs = othello_4ply_starts()
    assert len(seqs) == 244  # the paper's "all 244 4-ply start states" (move sequences)
    distinct = othello_4ply_starts(distinct=True)
    assert len(distinct) == 236 == len({s.tobytes() for s in seqs})
    assert all(s[2] == 4 and s[0] == 0 and not s[TERMINAL] for s in seqs)
    assert all((s[HEADER:] != 0).sum() == 8 for s in seqs)


def test_bad_inputs_are_rejected():
    ttt = farl_envs.game_spec("tictactoe")
    bad_state = np.zeros(ttt.state_size, dtype=np.int32)
    bad_state[HEADER] = 2  # O moved first
    for kwargs in (dict(start_states="nope"), dict(start_states=[bad_state]), dict(start_states=("random", -1)),
                   dict(start_states="othello-4ply"), dict(n_games=0), dict(seed=-1), dict(jobs=0),
                   dict(seats=[2]), dict(protocol="nope")):
        with pytest.raises(ValueError):
            evaluate(ttt, RandomPlayer(), RandomPlayer(), **kwargs)
    with pytest.raises(ValueError):
        evaluate(ttt, [], RandomPlayer())
    with pytest.raises(ValueError):
        evaluate(ttt, RandomPlayer(), None)
    with pytest.raises(ValueError):
        evaluate(ttt, object(), RandomPlayer())
    illegal = CallablePlayer(lambda g, s, rng: 99, name="cheat")
    with pytest.raises(ValueError, match="cheat"):
        evaluate(ttt, illegal, RandomPlayer(), n_games=1)


def test_same_seed_same_result_and_seed_matters():
    game = farl_envs.game_spec("connect_four", rows=4, cols=5)
    a = evaluate(game, RandomPlayer(), RandomPlayer(), n_games=20, seed=7)
    b = evaluate(game, RandomPlayer(), RandomPlayer(), n_games=20, seed=7)
    c = evaluate(game, RandomPlayer(), RandomPlayer(), n_games=20, seed=8)
    assert _comparable(a) == _comparable(b)
    assert [g["plies"] for g in a.matchups[0].games] != [g["plies"] for g in c.matchups[0].games]


def test_jobs_2_equals_jobs_1():
    game = farl_envs.game_spec("nim3p")
    kw = dict(n_games=6, seed=3, start_states="all-1ply")
    one = evaluate(game, [MCTS(50), RandomPlayer()], ["maxn15", RandomPlayer()], jobs=1, **kw)
    two = evaluate(game, [MCTS(50), RandomPlayer()], ["maxn15", RandomPlayer()], jobs=2, **kw)
    assert _comparable(one) == _comparable(two)


def test_json_round_trip(tmp_path):
    game = farl_envs.game_spec("tictactoe")
    r = evaluate(game, RandomPlayer(), MaxN(10), start_states="all-1ply", seed=2)
    path = tmp_path / "sub" / "eval.json"
    r.to_json(path)
    assert os.listdir(path.parent) == ["eval.json"]  # no temporary file left behind
    back = EvalResult.from_json(path)
    assert back == r
    assert json.loads(path.read_text())["matchups"][0]["per_seat"][1]["seat"] == 1
    assert "win rate" in r.table()


def test_play_game_does_not_touch_the_start_state():
    game = farl_envs.game_spec("tictactoe")
    s = game.initial_state(game.p, make_rng(0))
    rewards, plies = play_game(game, [RandomPlayer(), RandomPlayer()], s, make_rng(1), make_rng(2))
    assert not s.any() and 5 <= plies <= 9 and rewards.sum() == 0


def test_c4_seed002_protocol():
    r = evaluate("connect_four", RandomPlayer(), protocol="c4-seed002", n_games=3, seed=0)
    m = r.matchups[0]
    assert r.seats == [0] and m.n_games == 3 and m.wins == 0
    with pytest.raises(ValueError):
        evaluate("tictactoe", RandomPlayer(), protocol="c4-seed002")


def test_agent_game_parameters_are_used_and_checked():
    from farl_agents.learners import NTupleAgent, paper_config

    agent = NTupleAgent("nim", paper_config("nim"), max_take=5)
    agent.train(200)
    res = evaluate("nim", agent, "random", n_games=4)  # takes the agent's max_take=5
    assert sum(s["n_games"] for s in res.to_dict()["matchups"][0]["per_seat"]) == 8
    import farl_envs
    with pytest.raises(ValueError, match="was made for nim_v0"):
        evaluate(farl_envs.game_spec("nim"), agent, "random", n_games=2)


def test_games_for_chips_headline_the_mean_reward_not_the_win_rate():
    """Kuhn poker pays 1 or 2 chips: one game won by 2 and one lost by 1 is +0.5 a game, not a 50 % win rate."""
    game = farl_envs.game_spec("kuhn_poker", players=2)
    assert game.rewards_are_amounts and not game.headline_win_rate
    r = evaluate(game, RandomPlayer(), RandomPlayer(), n_games=60, seed=3, keep_games=True)
    m = r.matchups[0]
    scores = [g["score"] for g in m.games]
    assert {abs(s) for s in scores} == {1.0, 2.0}  # both stakes occur, so a win rate would lose information
    assert r.metric == "mean_score" and m.win_rate is None and m.win_rate_se is None
    assert m.score == m.mean_score == pytest.approx(np.mean(scores))
    assert m.wins == sum(s > 0 for s in scores) and m.losses == sum(s < 0 for s in scores)
    assert farl_envs.game_spec("tictactoe").headline_win_rate
    assert not farl_envs.game_spec("nim3p").headline_win_rate
