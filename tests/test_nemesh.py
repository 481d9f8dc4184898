"""Nemesh (Shalita, Saranga & Haim 2013): forced moves, alpha-beta vs plain minimax, SARSA, training, files, CLI."""
import json
import pickle

import numpy as np
import pytest
from test_nemesh_features import board

import farl_envs
from farl_agents import cli
from farl_agents.evaluate import evaluate
from farl_agents.nemesh import NemeshAgent, NemeshFileError, state_features
from farl_agents.nemesh.learner import (
    AGENT,
    GAMMA,
    RANDOM,
    TRAINER,
    goodness,
    initial_weights,
    learning_rate,
    play_games,
    sarsa_step,
)
from farl_agents.nemesh.search import (
    FORCED_BLOCK,
    FORCED_WIN,
    SEARCHED,
    WIN_SCORE,
    SearchScratch,
    alphabeta_value,
    choose_move,
)
from farl_agents.nemesh.trainer import PRESETS, Session, scaled, train, train_preset
from farl_envs.core.rng import make_rng, rng_choice_mask
from farl_envs.core.spec import TERMINAL, TO_MOVE


def _choose(game, s, w, depth=2, epsilon=0.0, seed=0):
    scratch = SearchScratch(game.params["rows"], game.params["cols"], depth)
    return choose_move(game.p, s, w, depth, epsilon, *scratch.arrays(), make_rng(seed))


# ------------------------------------------------------------------ forced moves
def test_takes_the_win_even_when_its_weights_hate_it():
    # X to move wins in column 3 (XXX.X); O also threatens to win in column 6 (three in a column)
    game, s = board(".......", ".......", ".......", "......O", "......O", "XXX.X.O")
    s[TO_MOVE] = 0
    for seed in range(5):
        a, how = _choose(game, s, -initial_weights()[0], seed=seed)
        assert (a, how) == (3, FORCED_WIN)


def test_blocks_the_opponents_win():
    # X to move, no win of its own; O wins at (5,3) unless X takes column 3
    game, s = board(".......", ".......", ".......", ".......", "X.X....", "OOO.XX.")
    s[TO_MOVE] = 0
    for seed in range(5):
        a, how = _choose(game, s, np.zeros(36), seed=seed)
        assert (a, how) == (3, FORCED_BLOCK)


def test_never_plays_a_prohibited_move_when_another_exists():
    # O's win cell is (4,3), right above column 3's landing cell: X must not play column 3
    game, s = board(".......", ".......", ".......", "XXX....", "OOO....", "XOX....")
    s[TO_MOVE] = 0
    seen = set()
    for seed in range(40):  # zero weights: every move ties, the choice is random among the allowed
        a, how = _choose(game, s, np.zeros(36), depth=1, seed=seed)
        assert a != 3 and how == SEARCHED
        seen.add(a)
        a, how = _choose(game, s, np.zeros(36), depth=1, epsilon=1.0, seed=seed)  # exploring too
        assert a != 3
    assert len(seen) >= 4  # ties are broken at random


def test_plays_a_legal_move_when_every_move_is_prohibited():
    # 4x4, X to move, only column 0 open: X lands on (1,0) and O then wins at (0,0) (".OOO")
    game, s = board(".OOO", ".XXO", "XOXX", "OXOO")
    s[TO_MOVE] = 0
    a, how = _choose(game, s, np.zeros(36))
    assert (a, how) == (0, SEARCHED)


# ------------------------------------------------------------------ alpha-beta = minimax
def _minimax(game, s, w, depth, root):
    """Plain minimax (no pruning) with Nemesh's leaf values, written independently of the search."""
    mask = np.zeros(game.n_actions, dtype=np.int8)
    game.legal_actions(game.p, s, mask)
    values = []
    for a in np.flatnonzero(mask):
        child = np.empty_like(s)
        rewards = np.zeros(2)
        game.afterstate(game.p, s, int(a), child, rewards)
        left = depth - 1
        if child[TERMINAL]:
            values.append(rewards[root] * (WIN_SCORE + left))
        elif left == 0:
            values.append(float(np.dot(w, state_features(game, child))))
        else:
            values.append(_minimax(game, child, w, left, root))
    return max(values) if s[TO_MOVE] == root else min(values)


def _random_position(game, plies, rng):
    s = game.initial_state(game.p, rng)
    mask = np.zeros(game.n_actions, dtype=np.int8)
    rewards = np.zeros(2)
    for _ in range(plies):
        if s[TERMINAL]:
            break
        game.legal_actions(game.p, s, mask)
        game.afterstate(game.p, s, rng_choice_mask(rng, mask), s, rewards)
    return s


@pytest.mark.parametrize("rows,cols", [(6, 7), (5, 6), (6, 8)])
def test_alphabeta_value_equals_plain_minimax(rows, cols):
    game = farl_envs.game_spec("connect_four", rows=rows, cols=cols)
    rng = make_rng(rows * 100 + cols)
    nprng = np.random.default_rng(rows + cols)
    checked = 0
    for k in range(30):
        s = _random_position(game, int(nprng.integers(0, 18)), rng)
        if s[TERMINAL]:
            continue
        depth = 1 + k % 4 if cols < 8 else 1 + k % 3
        w = nprng.normal(size=36)
        scratch = SearchScratch(rows, cols, depth)
        got = alphabeta_value(game.p, s, w, depth, *scratch.arrays(), make_rng(k))
        assert got == pytest.approx(_minimax(game, s, w, depth, int(s[TO_MOVE])), rel=1e-9, abs=1e-9)
        checked += 1
    assert checked >= 15


def test_search_prefers_a_quick_win():
    # X to move can win at once in column 3 and also later; the search (no forced rules) ranks the
    # immediate win highest: value WIN_SCORE + depth - 1
    game, s = board(".......", ".......", ".......", "......O", "......O", "XXX.X.O")
    s[TO_MOVE] = 0
    scratch = SearchScratch(6, 7, 3)
    v = alphabeta_value(game.p, s, np.zeros(36), 3, *scratch.arrays(), make_rng(0))
    assert v == WIN_SCORE + 2


# ------------------------------------------------------------------ SARSA
def test_sarsa_step_moves_q_towards_the_target():
    w = np.array([0.5, -1.0, 0.0])
    phi = np.array([2.0, 1.0, 3.0])
    delta = sarsa_step(w, phi, 1.0, 0.1)  # q = 0.5*2 - 1 = 0, delta = 1
    assert delta == pytest.approx(1.0)
    assert w == pytest.approx([0.5 + 0.2, -1.0 + 0.1, 0.3])


def test_initial_weights_have_the_reports_signs():
    w, g = initial_weights(), goodness()
    assert (w[0, :18] == g).all() and (w[0, 18:] == -g).all() and (w[1] == -w[0]).all()
    assert g[14] < 0 and (np.delete(g, 14) > 0).all()  # ProhibitedMoves is bad for its owner


def test_learning_rate_falls_with_turns_and_session_offset():
    assert learning_rate(0.1, 0, 0) == pytest.approx(0.1)
    assert learning_rate(0.1, 10, 0) == pytest.approx(0.1 / 11)
    assert learning_rate(0.1, 20, 5) == pytest.approx(0.1 / 26)


def _play(game, kinds, weights, n=20, depth=2, alpha0=0.1, gamma=GAMMA, seed=0):
    scratch = SearchScratch(game.params["rows"], game.params["cols"], depth)
    results = np.zeros((n, 3))
    moves = np.zeros(2, dtype=np.int64)
    play_games(game.p, n, np.array(kinds, dtype=np.int64), np.array([depth, depth], dtype=np.int64), weights, 0,
               alpha0, gamma, moves, make_rng(seed), *scratch.arrays(), results)
    return results, moves


def test_only_the_agent_learns():
    game = farl_envs.game_spec("connect_four", rows=6, cols=7)
    w = initial_weights()
    before = w.copy()
    results, moves = _play(game, [AGENT, TRAINER], w)
    assert not np.allclose(w[0], before[0]) and (w[1] == before[1]).all()
    assert moves[0] > 0 and moves[1] == 0
    assert set(np.unique(results[:, 0])) <= {-1.0, 0.0, 1.0} and (results[:, 0] == -results[:, 1]).all()


def test_game_end_reward_is_the_whole_target():
    # gamma = 0 and zero weights: every update before the end has target 0 and prediction 0, so only
    # the final update -- towards the reward alone, the expected return after the end being 0 --
    # changes anything: w = alpha * r * phi(last afterstate), with phi >= 0. A win makes every
    # weight >= 0, a loss (the update made at the opponent's winning move) every weight <= 0.
    game = farl_envs.game_spec("connect_four", rows=6, cols=7)
    seen = set()
    for seed in range(12):
        w = np.zeros((2, 36))
        results, _ = _play(game, [AGENT, RANDOM], w, n=1, depth=1, gamma=0.0, seed=seed)
        r = results[0, 0]
        seen.add(r)
        assert (w[1] == 0).all()
        if r > 0:
            assert (w[0] >= 0).all() and w[0].sum() > 0
        elif r < 0:
            assert (w[0] <= 0).all() and w[0].sum() < 0
        else:
            assert (w[0] == 0).all()
    assert 1.0 in seen


# ------------------------------------------------------------------ training
@pytest.fixture(scope="module")
def quick_agent():
    agent = NemeshAgent(rows=6, cols=7, depth=2, seed=3)
    train_preset(agent, "quick")
    return agent


def test_quick_preset_beats_random_by_a_wide_margin(quick_agent):
    assert quick_agent.games_done == sum(s.games for s in PRESETS["quick"])
    res = evaluate(quick_agent.game, quick_agent, "random", n_games=40, seed=0)
    assert res.score >= 0.85  # random wins well under 15 % against any sane Connect Four player


def test_trained_depth3_beats_untrained_zero_weight_search():
    # the same depth-3 search with all-zero weights plays only the forced moves well
    agent = NemeshAgent(rows=6, cols=7, depth=3, seed=5)
    train_preset(agent, "quick")
    blank = NemeshAgent(rows=6, cols=7, depth=3, weights=np.zeros((2, 36)))
    res = evaluate(agent.game, agent, blank, n_games=20, start_states=("random", 2), seed=0)
    assert res.score >= 0.65


def test_training_resumes_exactly(tmp_path):
    sessions = scaled(PRESETS["quick"], 0.5)
    whole = NemeshAgent(rows=5, cols=6, seed=7)
    train(whole, sessions, chunk_games=10)
    part = NemeshAgent(rows=5, cols=6, seed=7)
    stop_at = {"n": 0}

    def stop_once(agent, results):
        stop_at["n"] += 1
        return stop_at["n"] != 3  # stop after the third chunk (inside the second session)

    train(part, sessions, chunk_games=10, on_chunk=stop_once)
    assert 0 < part.games_done < whole.games_done
    part.save(tmp_path / "half.npz")
    again = NemeshAgent.load(tmp_path / "half.npz")
    train(again, sessions, chunk_games=10)
    assert again.games_done == whole.games_done
    assert np.array_equal(again.weights, whole.weights) and np.array_equal(again.rng, whole.rng)


def test_session_checks():
    with pytest.raises(ValueError, match="opponent"):
        Session("human", 10, 3)
    with pytest.raises(ValueError, match="depth"):
        Session("self", 10, 0)
    assert [s.depth for s in PRESETS["report"]] == [3, 3, 4, 5]
    assert [s.turn_start for s in PRESETS["report"]] == [0, 0, 10, 20]
    assert [s.games for s in PRESETS["report"]] == [1_000, 100_000, 100_000, 100_000]


# ------------------------------------------------------------------ agent files
def test_save_load_round_trip(quick_agent, tmp_path):
    path = quick_agent.save(tmp_path / "nm.npz")
    back = NemeshAgent.load(path)
    assert np.array_equal(back.weights, quick_agent.weights) and np.array_equal(back.rng, quick_agent.rng)
    assert back.settings == quick_agent.settings and back.games_done == quick_agent.games_done
    assert back.progress == quick_agent.progress and back.game.params == quick_agent.game.params
    game = quick_agent.game
    s = _random_position(game, 6, make_rng(1))
    assert back.act(game, s, make_rng(9)) == quick_agent.act(game, s, make_rng(9))
    clone = pickle.loads(pickle.dumps(quick_agent))
    assert clone.act(game, s, make_rng(9)) == quick_agent.act(game, s, make_rng(9))


def test_bad_files_and_settings_are_value_errors(quick_agent, tmp_path):
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip")
    with pytest.raises(NemeshFileError, match="not a Nemesh agent"):
        NemeshAgent.load(junk)
    other = tmp_path / "other.npz"
    np.savez(other, meta=np.array(json.dumps({"format": "farl-agent"})))
    with pytest.raises(NemeshFileError, match="format"):
        NemeshAgent.load(other)
    path = quick_agent.save(tmp_path / "nm.npz")
    with pytest.raises(NemeshFileError, match="plays connect_four"):
        NemeshAgent.load(path, farl_envs.game_spec("connect_four", rows=6, cols=8))
    data = dict(np.load(path))
    data["weights"] = np.zeros((2, 35))
    np.savez(tmp_path / "bad.npz", **data)
    with pytest.raises(NemeshFileError, match="weights"):
        NemeshAgent.load(tmp_path / "bad.npz")
    for kw, word in (({"rows": 3}, "rows"), ({"cols": 11}, "cols"), ({"depth": 0}, "depth"),
                     ({"alpha0": -1.0}, "alpha0")):
        with pytest.raises(ValueError, match=word) as exc:
            NemeshAgent(**kw)
        assert "\n" not in str(exc.value)
    with pytest.raises(ValueError, match="plays connect_four"):
        quick_agent.act(farl_envs.game_spec("connect_four", rows=6, cols=8),
                        np.zeros(3 + 8 + 48, dtype=np.int32), make_rng(0))


# ------------------------------------------------------------------ CLI
def test_cli_train_resume_and_eval(tmp_path, capsys):
    out = tmp_path / "run"
    args = ["train", "connect_four", "--algo", "nemesh", "--param", "rows=5", "--param", "cols=6", "--preset",
            "quick", "--seed", "2", "--out", str(out), "--quiet"]
    assert cli.main(args + ["--stop-after", "60"]) == 0
    record = json.loads((out / "run.json").read_text())
    assert record["family"] == "nemesh" and record["game_params"] == {"rows": 5, "cols": 6}
    marker = json.loads((out / "checkpoint.json").read_text())
    assert marker["episodes_done"] == 60 and not marker["finished"]
    assert cli.main(["train", "--resume", str(out), "--quiet"]) == 0
    marker = json.loads((out / "checkpoint.json").read_text())
    assert marker["finished"] and marker["episodes_done"] == sum(s.games for s in PRESETS["quick"])
    resumed = NemeshAgent.load(out / "agent.npz")
    straight = tmp_path / "straight"
    assert cli.main(args[:-3] + ["--out", str(straight), "--quiet"]) == 0
    assert np.array_equal(resumed.weights, NemeshAgent.load(straight / "agent.npz").weights)
    capsys.readouterr()
    assert cli.main(["eval", str(out / "agent.npz"), "--vs", "random", "--games", "3"]) == 0
    assert "nemesh-d3 vs random" in capsys.readouterr().out


@pytest.mark.parametrize("argv,word", [
    (["--preset", "nosuch"], "preset"),
    (["--param", "cols=11"], "cols"),
    (["--depth", "0"], "depth"),
    (["--bogus"], "unrecognized"),
])
def test_cli_bad_input_is_one_line(tmp_path, capsys, argv, word):
    code = cli.main(["train", "connect_four", "--algo", "nemesh", "--out", str(tmp_path / "x"), "--quiet"] + argv)
    err = capsys.readouterr().err
    assert code == 2 and word in err and err.count("\n") == 1 and "Traceback" not in err


def test_cli_eval_of_a_broken_nemesh_file(tmp_path, capsys):
    path = tmp_path / "nm.npz"
    np.savez(path, meta=np.array(json.dumps({"format": "farl-nemesh-agent", "version": 1})))
    assert cli.main(["eval", str(path), "--vs", "random"]) == 2
    err = capsys.readouterr().err
    assert "Nemesh" in err and err.count("\n") == 1


def test_plays_through_the_pettingzoo_aec_loop_on_6x8():
    env = farl_envs.make("connect_four", rows=6, cols=8)
    agent = NemeshAgent(rows=6, cols=8, depth=2)
    rng = make_rng(0)
    wins = 0
    for game_no in range(4):
        env.reset(seed=game_no)
        seat = f"player_{game_no % 2}"
        for name in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            if term or trunc:
                if name == seat and reward > 0:
                    wins += 1
                env.step(None)
                continue
            if name == seat:
                action = agent.act(env.unwrapped.game, env.get_state(), rng)
            else:
                action = int(rng_choice_mask(rng, obs["action_mask"]))
            assert obs["action_mask"][action] == 1
            env.step(action)
    assert wins >= 3
