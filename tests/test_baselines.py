"""Deep-RL baselines (farl_agents.baselines): masking, the player adapter, snapshots, save/load, CLI.

The wrappers' SB3 ``check_env`` lives in test_envs_api.py. Skipped without the ``baselines`` extra.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
import torch  # noqa: E402

import farl_envs  # noqa: E402
from farl_agents.baselines import envs as benvs  # noqa: E402
from farl_agents.baselines.dqn import ILLEGAL_Q, MaskedDQN, random_legal  # noqa: E402
from farl_agents.baselines.files import load_baseline  # noqa: E402
from farl_agents.baselines.players import FrozenPolicy, SB3Player, SnapshotCallback, SnapshotOpponent, action_scores  # noqa: E402
from farl_agents.baselines.train import build_model, train_baseline  # noqa: E402
from farl_agents.evaluate import evaluate  # noqa: E402
from farl_envs.core.rng import make_rng  # noqa: E402
from farl_envs.core.spec import TERMINAL  # noqa: E402

torch.set_num_threads(1)
GAMES = [g[:-3] for g in farl_envs.list_games()]


def random_states(game, n, seed=0):
    """``n`` non-terminal positions from random games."""
    rng = np.random.default_rng(seed)
    frng = make_rng(seed)
    out = []
    mask = np.zeros(game.n_actions, dtype=np.int8)
    rew = np.zeros(game.n_players)
    while len(out) < n:
        s = game.initial_state(game.p, frng)
        while not s[TERMINAL] and len(out) < n:
            out.append(s.copy())
            game.legal_actions(game.p, s, mask)
            game.afterstate(game.p, s, int(rng.choice(np.flatnonzero(mask))), s, rew)
            if game.has_chance and not s[TERMINAL]:
                game.chance(game.p, s, frng)
    return out


def test_import_without_torch():
    code = ("import sys; sys.modules['torch'] = None; sys.modules['stable_baselines3'] = None; "
            "sys.modules['sb3_contrib'] = None\n"
            "import farl_agents, farl_agents.baselines, farl_agents.baselines.cli, farl_agents.baselines.envs\n"
            "import farl_agents.evaluate, farl_agents.learners\n"
            "from farl_agents.baselines.cli import main\n"
            "assert main(['compare', 'tictactoe', '--budget-steps', '10', '--out', '/nonexistent/x']) == 2\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "baselines' extra" in r.stderr


@pytest.mark.parametrize("name", GAMES)
def test_network_input_matches_the_wrapper(name):
    env = benvs.make_env(name, seat="alternate")
    game = env.game
    assert env.observation_space.shape == (benvs.obs_dim(game),)
    obs, info = env.reset(seed=1)
    for _ in range(30):
        state = env.unwrapped.aec.get_state()
        mine, mask = benvs.observe_state(game, state, env.unwrapped.seat)
        np.testing.assert_array_equal(obs, mine)
        np.testing.assert_array_equal(mask.astype(bool), env.action_masks())
        assert env.observation_space.contains(obs)
        obs, _, done, _, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        if done:
            obs, info = env.reset()


@pytest.mark.parametrize("name", GAMES)
def test_adapter_plays_legal_moves_in_every_game(name):
    game = farl_envs.game_spec(name)
    for algo in ("maskable-ppo", "dqn"):
        model, _ = build_model(game, algo, seed=3, opponent="random", n_envs=1)
        player = SB3Player(model, game)
        r = evaluate(game, player, "random", n_games=2, seed=5)  # raises on an illegal move
        assert r.matchups[0].n_games == 2 * game.n_players
        for s in random_states(game, 40, seed=2):
            mask = np.zeros(game.n_actions, dtype=np.int8)
            game.legal_actions(game.p, s, mask)
            assert mask[player.act(game, s, make_rng(0))]


def test_adapter_masked_greedy_is_the_argmax_over_legal_actions():
    game = farl_envs.game_spec("connect_four")
    model, _ = build_model(game, "maskable-ppo", seed=1, opponent="random", n_envs=1)
    player = SB3Player(model, game)
    for s in random_states(game, 30, seed=4):
        obs, mask = benvs.observe_state(game, s)
        torch_scores = action_scores(model.policy, obs)
        legal = np.flatnonzero(mask)
        assert player.act(game, s, make_rng(0)) == legal[np.argmax(torch_scores[legal])]
        # the numpy copy of the network agrees with torch up to the softmax's constant
        d = FrozenPolicy(model).scores(obs) - torch_scores
        assert np.ptp(d) < 1e-4


def test_adapter_rejects_a_model_of_another_game():
    model, _ = build_model(farl_envs.game_spec("tictactoe"), "dqn", opponent="random")
    with pytest.raises(ValueError, match="expects observations"):
        SB3Player(model, "connect_four")


@pytest.mark.parametrize("name", ["connect_four", "othello", "tictactoe"])
def test_dqn_masked_argmax_never_picks_an_illegal_action(name):
    game = farl_envs.game_spec(name)
    model, _ = build_model(game, "dqn", seed=0, opponent="random")
    rng = np.random.default_rng(0)
    n, dim = game.n_actions, benvs.obs_dim(game)
    obs = (rng.random((500, dim)) < 0.5).astype(np.float32)
    masks = rng.random((500, n)) < 0.2
    masks[np.arange(500), rng.integers(n, size=500)] = True  # at least one legal action
    obs[:, -n:] = masks
    # the random network would mostly pick illegal actions without the mask
    raw = model.q_net.q_net(torch.as_tensor(obs)).argmax(1).numpy()
    assert (~masks[np.arange(500), raw]).mean() > 0.5
    for eps in (0.0, 1.0, 0.5):
        model.exploration_rate = eps
        for det in (True, False):
            actions, _ = model.predict(obs, deterministic=det)
            assert masks[np.arange(500), actions].all()
    single, _ = model.predict(obs[0], deterministic=True)
    assert masks[0, int(single)]
    model._last_obs = obs[:7]
    model.num_timesteps = 0  # warm-up: uniform legal actions
    act, buf = model._sample_action(learning_starts=100, n_envs=7)
    assert masks[np.arange(7), act].all() and np.array_equal(act, buf)
    # TD target: illegal q-values are ILLEGAL_Q; a terminal (empty mask) next state adds exactly 0
    q = model.q_net(torch.as_tensor(obs[:5])).detach().numpy()
    assert np.all(q[~masks[:5]] == ILLEGAL_Q) and np.all(q[masks[:5]] > ILLEGAL_Q / 2)
    terminal = obs[:1].copy()
    terminal[:, -n:] = 0
    nxt = model.q_net_target(torch.as_tensor(terminal)).detach().max(dim=1).values
    assert torch.isfinite(nxt).all() and float((1 - 1.0) * 0.99 * nxt[0]) == 0.0
    assert all(masks[i, random_legal(obs[i], n)[0]] for i in range(50))


def test_snapshot_opponent_refreshes(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where SB3's default logger would make its folder
    game = farl_envs.game_spec("tictactoe")
    model, snap = build_model(game, "maskable-ppo", seed=0, opponent="self-play", n_envs=1,
                              hyperparams={"n_steps": 128, "batch_size": 64})
    assert isinstance(snap, SnapshotOpponent) and snap.frozen is None
    aec = farl_envs.make_raw("tictactoe")
    aec.reset(seed=0)
    assert aec.action_mask()[snap(aec)]  # random legal moves before the first copy
    cb = SnapshotCallback(snap, every=200)
    model.learn(1000, callback=cb)
    assert snap.refreshes == 1 + 1000 // 200  # at the start, then every 200 steps
    assert snap.refreshed_at == 1000
    obs, _ = benvs.observe_state(game, random_states(game, 1)[0])
    snap.refresh(model)
    assert snap.refreshes == 7
    before = snap.frozen.scores(obs).copy()
    np.testing.assert_allclose(before, FrozenPolicy(model).scores(obs), atol=1e-6)
    model.learn(256, reset_num_timesteps=False)  # further learning does not leak into the frozen copy
    assert not list(tmp_path.glob("SB3-*"))  # learn() left no SB3-<date> folder behind
    np.testing.assert_array_equal(snap.frozen.scores(obs), before)
    assert not np.allclose(FrozenPolicy(model).scores(obs), before)
    for _ in range(20):
        aec.reset()
        while not aec.state_array[TERMINAL]:
            a = snap(aec)
            assert aec.action_mask()[a]
            aec.step(a)


def test_saved_model_reloads_and_plays_identically(tmp_path):
    model, info = train_baseline("tictactoe", "dqn", timesteps=1500, seed=2, opponent="random", out=tmp_path,
                                 eval_points=1, eval_games=4, hyperparams={"learning_starts": 200})
    for f in ("model", "curve_csv", "curve_png", "run"):
        assert os.path.getsize(info["files"][f]) > 0
    assert [r["steps"] for r in info["curve"]] == [0, 1500]
    assert set(info["curve"][-1]) >= {"maxn10", "random", "seconds"}
    again = load_baseline(tmp_path)
    assert isinstance(again, MaskedDQN)
    game = farl_envs.game_spec("tictactoe")
    a, b = SB3Player(model, game), SB3Player(again, game)
    for s in random_states(game, 200, seed=9):
        assert a.act(game, s, make_rng(0)) == b.act(game, s, make_rng(0))
    ra = evaluate(game, a, ["random"], n_games=20, seed=3)
    rb = evaluate(game, SB3Player(tmp_path / "model.zip", game), ["random"], n_games=20, seed=3)
    assert [g["score"] for g in ra.matchups[0].games] == [g["score"] for g in rb.matchups[0].games]
    with pytest.raises(ValueError):
        load_baseline(tmp_path / "nothing.zip")


def test_maskable_ppo_learns_to_beat_random_at_tictactoe():
    model, info = train_baseline("tictactoe", "maskable-ppo", timesteps=8000, seed=0, opponent="random",
                                 eval_points=1, eval_games=10)
    r = evaluate("tictactoe", SB3Player(model, "tictactoe"), "random", n_games=100, seed=1).matchups[0]
    # untrained: about as many wins as losses; after 8000 steps about 80 % wins (seed 0: 163 W / 28 L of 200)
    assert r.wins > 2 * r.losses + 20, (r.wins, r.draws, r.losses)


def test_bad_input_is_a_value_error():
    with pytest.raises(ValueError, match="unknown algorithm"):
        train_baseline("tictactoe", "a2c", timesteps=10)
    with pytest.raises(ValueError, match="timesteps"):
        train_baseline("tictactoe", "dqn", timesteps=0)
    with pytest.raises(ValueError, match="minutes"):
        train_baseline("tictactoe", "dqn", minutes=-1)
    with pytest.raises(ValueError, match="unknown opponent"):
        train_baseline("tictactoe", "dqn", timesteps=10, opponent="nobody")
    with pytest.raises(ValueError, match="unknown game"):
        train_baseline("chess", "dqn", timesteps=10)
    from studies.compare.compare import compare
    with pytest.raises(ValueError, match="runs"):
        compare("tictactoe", budget_steps=10, runs=0, out_md=False)


def test_cli_baseline_and_compare(tmp_path, capsys, monkeypatch):
    from farl_agents.baselines.cli import main

    monkeypatch.chdir(tmp_path)  # the default output folders are relative to the working directory

    from farl_agents import cli

    out = tmp_path / "run"
    # `farl baseline` is an alias of `farl train --algo ...`: it says the command, then runs it
    assert cli.main(["baseline", "nim", "--algo", "maskable-ppo", "--timesteps", "300", "--out", str(out),
                     "--no-progress", "--eval-points", "1", "--eval-games", "2"]) == 0
    captured = capsys.readouterr()
    assert "deprecated" in captured.err and "farl train nim --algo maskable-ppo --timesteps 300" in captured.err
    assert json.loads((out / "run.json").read_text())["family"] == "sb3" and (out / "agent.zip").exists()
    assert "vs bouton" in captured.out
    assert main(["baseline", "nim", "--algo", "dqn", "--timesteps", "300"]) == 2  # alone it only names the command
    assert "farl train nim --algo dqn --timesteps 300" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:  # argparse's own errors (the farl CLI turns them into one line)
        main(["baseline", "nim", "--algo", "sac", "--timesteps", "3"])
    assert exc.value.code == 2
    assert cli.main(["baseline", "nim", "--algo", "dqn", "--opponent", "nobody", "--timesteps", "3"]) == 2
    assert "unknown opponent" in capsys.readouterr().err
    assert cli.main(["baseline", "nim", "--algo", "dqn", "--minutes", "3"]) == 2
    assert "--timesteps" in capsys.readouterr().err
    assert main(["compare", "tictactoe", "--budget-steps", "400", "--eval-points", "1", "--eval-games", "2",
                 "--final-games", "2"]) == 0
    md = tmp_path / "runs" / "compare-tictactoe" / "compare_tictactoe.md"  # the default: never docs/results
    assert sorted(p.name for p in md.parent.iterdir()) == [
        "compare_tictactoe.md", "compare_tictactoe.png", "dqn-seed0.json", "maskable-ppo-seed0.json",
        "settings.json", "td-farl-seed0.json"]
    assert not (tmp_path / "docs").exists()
    text = md.read_text()
    assert "python -m farl_agents.baselines compare tictactoe --budget-steps 400" in text
    for learner in ("td-farl", "maskable-ppo", "dqn"):
        assert f"| {learner} |" in text
    assert md.with_suffix(".png").stat().st_size > 0


def test_budget_progress_and_checkpoints():
    from farl_agents.baselines.measure import Budget, Checkpoints

    b = Budget(steps=1000, seconds=3600.0)
    b.start()
    assert b.remaining(250) == 0.75  # step-based whenever there is a step budget (reproducible ε schedules)
    assert not b.done(1000, seconds=10.0) and not b.done(10, seconds=3600.0) and b.done(1000, seconds=3600.0)
    c = Checkpoints(Budget(steps=800), points=4)
    assert c.step_marks == [100, 200, 400, 800] and c.time_marks == []
    assert c.due(150, 0.0) == ["steps"] and c.due(900, 0.0) == ["steps"] * 3 and c.step_marks == []
    with pytest.raises(ValueError):
        Budget()


@pytest.mark.parametrize("algo", ["maskable-ppo", "dqn"])
def test_a_model_trained_on_the_registered_gymnasium_id_plays_in_the_harness(algo):
    """An ordinary SB3 model trained on ``farl/ConnectFour-v0`` as registered (observation: the mover's
    int8 planes, 6x7x2) is a harness player; it sees exactly what the Gymnasium env showed it."""
    import gymnasium
    from sb3_contrib import MaskablePPO
    from stable_baselines3 import DQN

    env = gymnasium.make("farl/ConnectFour-v0")
    if algo == "dqn":
        model = DQN("MlpPolicy", env, learning_starts=32, buffer_size=500, seed=0, device="cpu")
    else:
        model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(64)
    assert model.observation_space.shape == (6, 7, 2)
    game = farl_envs.game_spec("connect_four")
    player = SB3Player(model, "connect_four")
    obs, info = env.reset(seed=4)
    for _ in range(6):  # the player's choice is the model's masked greedy choice on the env's own observation
        state = env.unwrapped.aec.get_state()
        scores = action_scores(model.policy, obs)
        scores[info["action_mask"] == 0] = -np.inf
        assert player.act(game, state, make_rng(0)) == int(np.argmax(scores))
        obs, _, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        if terminated or truncated:
            obs, info = env.reset()
    r = evaluate(game, player, ["random"], n_games=4, seed=1)
    assert r.matchups[0].n_games == 8  # both seats


def test_compare_keeps_each_finished_run_and_resumes(tmp_path, monkeypatch):
    """A Ctrl-C during the second run keeps the first; the same call then trains only the second."""
    from studies.compare import compare as cmp

    calls = []
    real = cmp.run_one

    def run_one(task):
        calls.append((task["learner"], task["seed"]))
        if len(calls) == 2 and task["learner"] == "dqn":
            raise KeyboardInterrupt
        return real(task)

    monkeypatch.setattr(cmp, "run_one", run_one)
    folder = tmp_path / "cmp"
    kw = dict(budget_steps=300, learners=["td-farl", "dqn"], eval_points=1, eval_games=2, final_games=2,
              out_dir=folder, verbose=False)
    with pytest.raises(KeyboardInterrupt):
        cmp.compare("nim", **kw)
    assert (folder / "td-farl-seed0.json").exists() and not (folder / "dqn-seed0.json").exists()
    first = json.loads((folder / "td-farl-seed0.json").read_text())
    calls.clear()
    out = cmp.compare("nim", **kw)
    assert calls == [("dqn", 0)]  # td-farl was not trained again
    assert out["results"]["td-farl"][0]["curve"] == first["curve"]
    assert out["files"]["md"] == str(folder / "compare_nim.md") and "| dqn |" in (folder / "compare_nim.md").read_text()
    with pytest.raises(ValueError, match="other settings"):
        cmp.compare("nim", **{**kw, "budget_steps": 400})
