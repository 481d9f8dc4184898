"""farl_envs.vector against the AEC env, step for step, on every game.

The replay: random legal actions drive a few batched envs (short game variants, so that games end and the envs
restart by themselves); each env's trajectory is then replayed through the AEC env (``farl_envs.make``) and the
observations, masks, movers, rewards, ends and eliminated seats must match at every step. **Chance**: the AEC env
draws its chance events and random starts from its own generator (``raw._rng``, a ``uint64[1]``
:mod:`farl_envs.core.rng` state); the replay sets it to the vector env's counter-based word
(``farl_envs.vector.stream_word(seed, env, episode, move)``) before the AEC ``reset`` and before each ``step``, so
both run the game's ``chance`` kernel on the same generator state and must draw the same tile or roll.
"""
from __future__ import annotations

import pickle

import gymnasium
import numpy as np
import pytest

import farl_envs
import farl_envs.vector as fv

PARAMS = {  # small or capped variants, so that random games end within the recorded steps
    "amazons_v0": {"board_size": 6},
    "breakthrough_v0": {"rows": 5, "columns": 5},
    "chinese_checkers_v0": {"max_moves": 12},  # ends by the move cap: truncations
    "connect_four_v0": {"rows": 4, "cols": 5},
    "hex_v0": {"size": 3},
    "lines_of_action_v0": {"max_game_length": 14},  # the move cap again
    "outer_open_gomoku_v0": {"size": 5},
    "sim_v0": {"players": 3},  # players drop out (GameSpec.eliminated)
    "yavalath_v0": {"size": 3, "players": 3},
    "surakarta_v0": {"no_capture_limit": 4},
}
N_ENVS, STEPS, SEED = 3, 70, 7
LONG = {"amazons_v0": 130}  # a turn of Amazons is three decisions (queen, destination, arrow): more steps to an end


def random_actions(masks: np.ndarray, rngs: list) -> np.ndarray:
    """One uniformly random legal action per env (0 where nothing is legal: an env awaiting its autoreset)."""
    return np.array([int(r.choice(np.flatnonzero(m))) if m.any() else 0 for m, r in zip(masks, rngs)])


def record(name: str, params: dict, n_envs: int = N_ENVS, steps: int = STEPS, seed: int = SEED):
    v = fv.make(name, n_envs, seed=seed, **params)
    obs, info = v.reset()
    rngs = [np.random.default_rng(1000 + i) for i in range(n_envs)]
    trace = [dict(obs=obs, info=info)]
    for _ in range(steps):
        a = random_actions(info["action_mask"], rngs)
        obs, rew, term, trunc, info = v.step(a)
        trace.append(dict(actions=a, obs=obs, rewards=rew, terminated=term, truncated=trunc, info=info))
    return v, trace


def replay(name: str, params: dict, trace: list, i: int, seed: int = SEED) -> int:
    """Replay env ``i`` of ``trace`` through the AEC env; return the number of games it finished."""
    env = farl_envs.make(name, **params)
    raw = env.unwrapped
    agents = raw.possible_agents
    episode, moves, finished = 0, 0, 0

    def start():
        raw._rng = np.array([fv.stream_word(seed, i, episode, 0)], dtype=np.uint64)
        env.reset()

    def check_position(rec, where):
        while not raw.state_array[1] and raw.terminations[raw.agent_selection]:
            env.step(None)  # a seat that dropped out takes its dead step (the vector env skips it)
        seat = int(raw.state_array[0])
        assert rec["info"]["player"][i] == seat, where
        np.testing.assert_array_equal(rec["obs"][i], raw.observe(agents[seat])["observation"], err_msg=where)
        if raw.state_array[1]:
            assert not rec["info"]["action_mask"][i].any(), where
        else:
            assert raw.agent_selection == agents[seat], where
            np.testing.assert_array_equal(rec["info"]["action_mask"][i], raw.action_mask().astype(bool),
                                          err_msg=where)
        if "eliminated" in rec["info"] and not raw.state_array[1]:
            out = [bool(raw.terminations.get(a, True)) for a in agents]
            assert rec["info"]["eliminated"][i].tolist() == out, where

    start()
    check_position(trace[0], f"{name} env {i} reset")
    for t, rec in enumerate(trace[1:], 1):
        where = f"{name} env {i} step {t}"
        if rec["info"]["autoreset"][i]:
            assert raw.state_array[1], where
            episode, moves = episode + 1, 0
            start()
            assert not rec["terminated"][i] and not rec["truncated"][i], where
            assert not rec["rewards"][i].any(), where
        else:
            moves += 1
            raw._rng = np.array([fv.stream_word(seed, i, episode, moves)], dtype=np.uint64)
            env.step(int(rec["actions"][i]))
            expected = [raw.rewards.get(a, 0.0) for a in agents]
            np.testing.assert_array_equal(rec["rewards"][i], expected, err_msg=where)
            over = bool(raw.state_array[1])
            assert rec["terminated"][i] == (over and all(raw.terminations.values())), where
            assert rec["truncated"][i] == (over and all(raw.truncations.values())), where
            assert rec["terminated"][i] != rec["truncated"][i] or not over, where
            if over:
                finished += 1
                assert rec["info"]["_final_returns"][i], where
        check_position(rec, where)
    return finished


REPLAYED_BY_DEFAULT = {  # games whose batched loops this file compiles for other tests anyway (one worker runs it)
    "tictactoe_v0", "connect_four_v0", "game2048_v0", "einstein_wurfelt_nicht_v0",  # chance: 2048, EWN
    "nim3p_v0", "sim_v0", "yavalath_v0",  # three players; Sim's and Yavalath's drop out
    "lines_of_action_v0",  # a move cap: truncations
}
"""Each other game compiles its own batched loops for the replay alone (~7 CPU s a game on an empty cache), so its
replay runs with ``-m slow`` (which ``.ci/run`` runs as well)."""


@pytest.mark.parametrize("name", [pytest.param(g, marks=[] if g in REPLAYED_BY_DEFAULT else [pytest.mark.slow])
                                  for g in farl_envs.list_games()])
def test_replay_through_the_aec_env(name):
    params = PARAMS.get(name, {})
    _, trace = record(name, params, steps=LONG.get(name, STEPS))
    finished = sum(replay(name, params, trace, i) for i in range(N_ENVS))
    if name != "game2048_v0":  # 2048's random games last hundreds of moves
        assert finished >= 1, f"{name}: no game ended in {STEPS} steps; the autoreset was not exercised"


@pytest.mark.parametrize("name", ["game2048_v0", "einstein_wurfelt_nicht_v0", "tictactoe_v0"])
def test_env_trajectory_does_not_depend_on_num_envs(name):
    _, small = record(name, {}, n_envs=3, steps=30)
    _, large = record(name, {}, n_envs=7, steps=30)
    for a, b in zip(small, large):
        np.testing.assert_array_equal(a["obs"], b["obs"][:3])
        np.testing.assert_array_equal(a["info"]["action_mask"], b["info"]["action_mask"][:3])
        if "rewards" in a:
            np.testing.assert_array_equal(a["rewards"], b["rewards"][:3])
            np.testing.assert_array_equal(a["terminated"], b["terminated"][:3])


def test_chance_streams_differ_between_envs_and_episodes():
    v = fv.make("game2048", 4, seed=3)
    first, _ = v.reset()
    assert len({o.tobytes() for o in first}) > 1  # each env its own random start
    again, _ = v.reset()
    assert not np.array_equal(first, again)  # the next episodes start elsewhere
    seeded, _ = v.reset(seed=3)
    np.testing.assert_array_equal(first, seeded)  # a seeded reset repeats the games


def play(v, steps: int, seed: int = 0):
    rngs = [np.random.default_rng(seed + i) for i in range(v.num_envs)]
    out = []
    masks = v.action_masks()
    for _ in range(steps):
        obs, rew, term, trunc, info = v.step(random_actions(masks, rngs))
        masks = info["action_mask"]
        out.append((obs, rew, term, trunc))
    return out


def same(xs, ys):
    for x, y in zip(xs, ys):
        for a, b in zip(x, y):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", ["game2048_v0", "einstein_wurfelt_nicht_v0", "connect_four_v0"])
def test_clone_pickle_and_state_round_trips(name):
    v = fv.make(name, 4, seed=11)
    v.reset()
    play(v, 15)
    copy, pickled = v.clone(), pickle.loads(pickle.dumps(v))
    saved = [v.get_state(i) for i in range(4)]
    expected = play(v, 25)
    same(play(copy, 25), expected)
    same(play(pickled, 25), expected)
    for i, s in enumerate(saved):
        v.set_state(i, s)
    same(play(v, 25), expected)


def test_afterstates_match_the_aec_env():
    v = fv.make("connect_four", 3, seed=0)
    v.reset()
    play(v, 5)
    after = v.afterstates(states=True)
    env = farl_envs.make_raw("connect_four")
    for i in range(3):
        env.reset()
        env.set_state(v.get_state(i).state)
        expected = env.afterstates()
        rows = range(after.offsets[i], after.offsets[i + 1])
        assert [int(after.actions[k]) for k in rows] == sorted(expected)
        for k in rows:
            rec = expected[int(after.actions[k])]
            assert after.env[k] == i
            np.testing.assert_array_equal(after.boards[k], rec.board)
            np.testing.assert_array_equal(after.states[k], rec.state)
            assert after.rewards[k].tolist() == [rec.rewards[a] for a in env.possible_agents]
            assert after.terminal[k] == bool(rec.state[1])


def test_set_state_takes_a_kernel_state_and_checks_it():
    v = fv.make("tictactoe", 2)
    v.reset()
    s = v.get_state(0).state.copy()
    s[3] = 1  # player_0's cross, player_1 to move
    s[0], s[2] = 1, 1
    v.set_state(1, s)
    assert v.players()[1] == 1 and not v.action_masks()[1, 0]
    s[3] = 7
    with pytest.raises(ValueError, match="not a legal position"):
        v.set_state(1, s)
    with pytest.raises(ValueError, match="shape"):
        v.set_state(1, s[:4])
    with pytest.raises(ValueError, match="env index"):
        v.get_state(2)


def test_bad_inputs_give_clear_errors():
    with pytest.raises(ValueError, match="num_envs"):
        fv.make("tictactoe", 0)
    with pytest.raises(ValueError, match="unknown game"):
        fv.make("tic_tac_toe", 2)
    v = fv.make("tictactoe", 2)
    with pytest.raises(RuntimeError, match="reset"):
        v.step([0, 0])
    v.reset()
    with pytest.raises(ValueError, match=r"shape \(2,\)"):
        v.step([0, 1, 2])
    with pytest.raises(ValueError, match="integers"):
        v.step(["a", "b"])
    v.step([4, 0])
    before = v.kernel_states()
    with pytest.raises(ValueError, match="env 0: action 4"):
        v.step([4, 1])  # cell 4 is taken in env 0
    with pytest.raises(ValueError, match="illegal"):
        v.step([9, 1])
    np.testing.assert_array_equal(v.kernel_states(), before)  # nothing was played


def test_autoreset_ignores_the_action_and_reports_the_end():
    v = fv.make("tictactoe", 1)
    v.reset()
    for a in (0, 3, 1, 4):
        v.step([a])
    obs, rew, term, trunc, info = v.step([2])  # player_0 completes the top row
    assert term[0] and not trunc[0] and rew[0].tolist() == [1.0, -1.0]
    assert not info["action_mask"].any() and info["_final_obs"][0]
    assert info["final_returns"][0].tolist() == [1.0, -1.0]
    obs, rew, term, trunc, info = v.step([123])  # ignored: the next game starts
    assert info["autoreset"][0] and not term[0] and not rew.any() and info["action_mask"].all()
    assert not obs.any()


# ---------------------------------------------------------------- the Gymnasium vector envs (farl_envs.vector.gym)

def make_vec(game_id: str, n: int, **kwargs):
    return gymnasium.make_vec(game_id, num_envs=n, vectorization_mode="vector_entry_point", **kwargs)


class FirstLegal:
    """A deterministic harness player: the lowest legal action."""

    def act(self, game, state, rng):
        mask = np.zeros(game.n_actions, dtype=np.int8)
        game.legal_actions(game.p, state, mask)
        return int(np.flatnonzero(mask)[0])


def vector_env_checks(envs, steps: int = 60):
    """What Gymnasium asks of a VectorEnv (it ships no checker for them): spaces hold what is returned, the shapes
    and dtypes of the 5-tuple, next-step autoreset declared, arbitrary sampled actions accepted, a seeded reset
    repeated exactly."""
    from gymnasium.vector import AutoresetMode

    assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    n = envs.num_envs
    runs = []
    for _ in range(2):
        obs, info = envs.reset(seed=5)
        envs.action_space.seed(9)
        assert envs.observation_space.contains(obs) and isinstance(info, dict)
        run = [obs]
        for _ in range(steps):
            obs, rew, term, trunc, info = envs.step(envs.action_space.sample())
            assert envs.observation_space.contains(obs)
            assert rew.shape == (n,) and term.shape == trunc.shape == (n,)
            assert term.dtype == trunc.dtype == np.bool_ and not (term & trunc).any()
            assert info["action_mask"].shape == (n, envs.single_action_space.n)
            run += [obs, rew, term, trunc]
        runs.append(run)
    for a, b in zip(*runs):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("kwargs", [{}, {"seat": "alternate"}, {"self_play": True}])
def test_gymnasium_vector_env_checks(kwargs):
    envs = make_vec("farl/ConnectFour-v0", 4, **kwargs)
    assert envs.num_envs == 4 and type(envs).__name__ in ("SeatVectorEnv", "SelfPlayVectorEnv")
    vector_env_checks(envs)


@pytest.mark.parametrize("game_id, kwargs", [
    ("farl/2048-v0", {}), ("farl/Nim3P-v0", {"seat": "alternate"}), ("farl/Sim-v0", {"players": 3, "seat": 2}),
    ("farl/LinesOfAction-v0", {"max_game_length": 10}), ("farl/EinsteinWurfeltNicht-v0", {"self_play": True}),
    ("farl/Yavalath-v0", {"players": 3, "size": 3, "self_play": True})])
def test_gymnasium_vector_env_checks_on_chance_three_player_and_capped_games(game_id, kwargs):
    envs = make_vec(game_id, 5, **kwargs)
    vector_env_checks(envs)
    envs.reset(seed=1)
    rngs = [np.random.default_rng(i) for i in range(5)]
    truncated = 0
    for _ in range(120):  # legal moves only: no episode ends by an illegal action
        _, _, term, trunc, info = envs.step(random_actions(envs.action_masks(), rngs))
        assert not info["illegal_action"].any()
        truncated += trunc.sum()
    assert (truncated > 0) == (game_id == "farl/LinesOfAction-v0")


def test_seat_env_matches_the_single_env_step_by_step():
    """Against a deterministic opponent (a harness player, played from Python) every env is the single Gymnasium
    env of the same seat: same observations, masks, rewards and ends; the next-step restart in between."""
    from farl_envs.gym_env import SingleAgentEnv

    n = 3
    envs = make_vec("farl/TicTacToe-v0", n, seat="alternate", opponents=FirstLegal())
    obs, info = envs.reset(seed=0)
    singles = [SingleAgentEnv("tictactoe", seat=i % 2, opponents=FirstLegal()) for i in range(n)]
    rngs = [np.random.default_rng(i) for i in range(n)]
    expected = [s.reset(seed=0)[0] for s in singles]
    episodes = [0] * n
    for _ in range(40):
        for i in range(n):
            np.testing.assert_array_equal(obs[i], expected[i])
            if not info["autoreset"][i]:
                np.testing.assert_array_equal(info["action_mask"][i], singles[i].action_masks())
        actions = random_actions(info["action_mask"], rngs)
        obs, rew, term, trunc, info = envs.step(actions)
        for i in range(n):
            if info["autoreset"][i]:
                episodes[i] += 1
                singles[i] = SingleAgentEnv("tictactoe", seat=(i + episodes[i]) % 2, opponents=FirstLegal())
                expected[i] = singles[i].reset(seed=0)[0]
                assert info["seat"][i] == (i + episodes[i]) % 2 and rew[i] == 0 and not term[i]
                continue
            o, r, te, tr, _ = singles[i].step(int(actions[i]))
            expected[i] = o
            assert (rew[i], term[i], trunc[i]) == (r, te, tr)


def test_seat_env_illegal_action_ends_the_episode_as_a_loss():
    envs = make_vec("farl/TicTacToe-v0", 2)
    envs.reset(seed=0)
    obs, rew, term, trunc, info = envs.step(np.array([4, 99]))
    assert rew[1] == -1.0 and term[1] and info["illegal_action"].tolist() == [False, True]
    assert not info["action_mask"][1].any()
    obs, rew, term, trunc, info = envs.step(np.array([0, 5]))
    assert info["autoreset"][1] and not term[1] and info["action_mask"][1].all()


def test_self_play_env_gives_the_mover_its_reward():
    envs = make_vec("farl/TicTacToe-v0", 1, self_play=True)
    obs, info = envs.reset(seed=0)
    for a in (0, 3, 1, 4):
        obs, rew, term, trunc, info = envs.step(np.array([a]))
    obs, rew, term, trunc, info = envs.step(np.array([2]))
    assert term[0] and rew[0] == 1.0 and info["rewards"][0].tolist() == [1.0, -1.0]


def test_vector_env_errors():
    with pytest.raises(ValueError, match="seat"):
        make_vec("farl/TicTacToe-v0", 2, seat=2)
    with pytest.raises(ValueError, match="SingleAgentEnv"):
        make_vec("farl/TicTacToe-v0", 2, opponents=lambda env: 0)
    envs = make_vec("farl/TicTacToe-v0", 2)
    with pytest.raises(RuntimeError, match="reset"):
        envs.step(np.array([0, 0]))
    envs.reset(seed=0)
    with pytest.raises(ValueError, match="shape"):
        envs.step(np.array([0]))


def test_maskable_ppo_trains_on_the_vector_env():
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from farl_envs.vector.sb3 import SB3VecEnv

    envs = SB3VecEnv(make_vec("farl/TicTacToe-v0", 16))
    model = MaskablePPO("MlpPolicy", envs, n_steps=64, batch_size=256, n_epochs=1, seed=0, device="cpu")
    model.learn(2_048)
    assert model.num_timesteps >= 2_048
    obs = envs.reset()
    actions, _ = model.predict(obs, action_masks=envs.action_masks())
    assert envs.action_masks()[np.arange(16), actions].all()


def test_random_actions_are_legal_and_reproducible():
    runs = []
    for _ in range(2):
        v = fv.make("connect_four", 5, seed=4)
        v.reset()
        actions = []
        for _ in range(60):
            a = v.random_actions()
            masks = v.action_masks()
            plays = masks.any(axis=1)
            assert masks[np.arange(5), a][plays].all()
            v.step(a)
            actions.append(a)
        runs.append(np.array(actions))
    np.testing.assert_array_equal(*runs)
    assert len(np.unique(runs[0])) > 1


@pytest.mark.parametrize("name", ["connect_four", "game2048"])
def test_a_batch_without_observations_plays_the_same_games(name):
    seen = fv.make(name, 6, seed=9)
    blind = fv.make(name, 6, seed=9, observations=False)
    obs, _ = seen.reset()
    assert blind.reset()[0] is None
    for _ in range(40):  # games end and restart on the way
        a = seen.random_actions()
        np.testing.assert_array_equal(blind.random_actions(), a)
        obs, rewards, term, trunc, info = seen.step(a)
        none, rewards2, term2, trunc2, info2 = blind.step(a)
        assert none is None and "final_obs" not in info2
        np.testing.assert_array_equal(rewards2, rewards)
        np.testing.assert_array_equal(term2, term)
        np.testing.assert_array_equal(info2["action_mask"], info["action_mask"])
        np.testing.assert_array_equal(info2["player"], info["player"])
    np.testing.assert_array_equal(blind.observations(), obs)  # computed on request: the same
    assert pickle.loads(pickle.dumps(blind)).step(blind.random_actions())[0] is None
