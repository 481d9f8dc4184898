"""Every farl env against the PettingZoo / Gymnasium / SB3 checkers, plus the afterstate extension."""
from __future__ import annotations

import copy
import gc
import pickle
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import farl_envs
from farl_envs.core.spec import TERMINAL

GAMES = farl_envs.list_games()
SMALL_PARAMS = {"hex_v0": {"size": 4}, "amazons_v0": {"board_size": 6}, "outer_open_gomoku_v0": {"size": 9}}


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def test_every_rules_module_is_registered_and_every_line_builds_its_own_game():
    """A game is its rules module plus one registry line: every module of farl_envs/games/ (the shared ``_*``
    helpers aside) builds a registered game, and each line's spec has the line's name and version."""
    games_dir = Path(farl_envs.__file__).parent / "games"
    modules = {path.stem for path in games_dir.glob("*.py") if not path.stem.startswith("_")}
    builders = {farl_envs.make_spec_function(name).__module__.rpartition(".")[2] for name in GAMES}
    assert builders == modules
    assert len(GAMES) == len(farl_envs.GAMES) >= 20 and "lines_of_action_v0" in GAMES and "rubiks_cube_v0" in GAMES
    assert "kuhn_poker_v0" in GAMES
    for name in GAMES:
        assert farl_envs.game_spec(name).id == name
        assert farl_envs.gymnasium_id(name).endswith(name[name.rindex("_v"):].replace("_", "-"))


def test_make_accepts_names_with_and_without_version():
    a = farl_envs.make("connect_four", cols=8)
    b = farl_envs.make("connect_four_v0", cols=8)
    assert a.unwrapped.game.n_actions == b.unwrapped.game.n_actions == 8


@pytest.mark.parametrize("bad", ["chess", "tictactoe_v1", ""])
def test_unknown_game_names_the_known_ones(bad):
    with pytest.raises(ValueError, match="known games"):
        farl_envs.make(bad)


@pytest.mark.parametrize("name,params", [
    ("connect_four", {"cols": 3}), ("connect_four", {"rows": 11}), ("connect_four", {"rows": "6"}),
    ("hex", {"size": 1}), ("hex", {"size": 14}), ("nim", {"heaps": 0}), ("nim", {"max_take": 9}),
    ("tictactoe", {"size": 4}), ("nim3p", {"extra_rule": "yes"}), ("amazons", {"board_size": 7}),
    ("sim", {"players": 5}), ("kuhn_poker", {"players": 4}),
    ("kuhn_poker", {"players": True}), ("sim", {"nodes": 3}), ("yavalath", {"size": 1}), ("yavalath", {"players": 4}),
    ("chinese_checkers", {"players": 5}), ("einstein_wurfelt_nicht", {"players": 5}), ("santorini", {"size": 6}),
    ("outer_open_gomoku", {"size": 4}), ("surakarta", {"no_capture_limit": 0}), ("breakthrough", {"rows": 1}),
    ("clobber", {"rows": 1}), ("rubiks_cube", {"size": 4}), ("rubiks_cube", {"metric": "slice"}),
    ("blackjack", {"decks": 9}), ("blackjack", {"dealer_hits_soft17": "no"}),
])
def test_bad_parameters_are_refused(name, params):
    with pytest.raises((ValueError, TypeError)):
        farl_envs.make(name, **params)


@pytest.mark.parametrize("name", GAMES)
def test_pettingzoo_api_test(name):
    api_test(farl_envs.make(name, **SMALL_PARAMS.get(name, {})), num_cycles=300)


@pytest.mark.parametrize("name", GAMES)
def test_pettingzoo_seed_test(name):
    seed_test(lambda: farl_envs.make(name, **SMALL_PARAMS.get(name, {})), num_cycles=20)


@pytest.mark.parametrize("name", GAMES)
def test_gymnasium_check_env(name):
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make(farl_envs.gymnasium_id(name), seat="alternate")
    check_env(env.unwrapped, skip_render_check=True)


@pytest.mark.parametrize("name", GAMES)
def test_sb3_check_env(name):
    sb3 = pytest.importorskip("stable_baselines3.common.env_checker")
    sb3.check_env(gymnasium.make(farl_envs.gymnasium_id(name), seat="random").unwrapped)


NPLAYER_VARIANTS = [("chinese_checkers_v0", {"players": 3, "max_moves": 60}),
                    ("chinese_checkers_v0", {"players": 4, "max_moves": 60}),
                    ("chinese_checkers_v0", {"players": 6, "max_moves": 60}),
                    ("einstein_wurfelt_nicht_v0", {"players": 3}),
                    ("einstein_wurfelt_nicht_v0", {"players": 4}),
                    ("einstein_wurfelt_nicht_v0", {"players": 4, "size": 4}),
                    ("sim_v0", {"players": 3}), ("yavalath_v0", {"players": 3})]
"""The player counts beyond each game's default, which the parametrised checks above do not reach (Sim's and
Yavalath's rules tests run Gymnasium's checker with 3 players, not SB3's). Chinese Checkers gets a short move
limit so that the checkers' random episodes stay short."""


@pytest.mark.parametrize("name,params", NPLAYER_VARIANTS)
@pytest.mark.parametrize("seat", ["alternate", "random"])
def test_gymnasium_and_sb3_check_env_in_every_player_count(name, params, seat):
    from gymnasium.utils.env_checker import check_env
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    env = gymnasium.make(farl_envs.gymnasium_id(name), seat=seat, **params).unwrapped
    assert env.aec.game.n_players == params["players"]
    check_env(env, skip_render_check=True)
    sb3_check_env(gymnasium.make(farl_envs.gymnasium_id(name), seat=seat, **params).unwrapped)


def _random_walk(env, rng, max_steps=10_000):
    """Yield the raw env at every decision point of one random game."""
    raw = env.unwrapped
    for _ in range(max_steps):
        if raw.state_array[TERMINAL]:
            return
        yield raw
        raw.step(int(rng.choice(raw.legal_actions())))
    raise AssertionError("game did not end")


@pytest.mark.parametrize("name", GAMES)
def test_afterstate_matches_step_and_leaves_env_untouched(name):
    rng = np.random.default_rng(0)
    env = farl_envs.make(name, **SMALL_PARAMS.get(name, {}))
    env.reset(seed=3)
    for raw in _random_walk(env, rng):
        before = raw.get_state()
        after = raw.afterstates()
        assert sorted(after) == raw.legal_actions()
        assert np.array_equal(raw.get_state(), before)
        a = int(rng.choice(list(after)))
        mover = raw.agent_selection
        raw.step(a)
        rec = raw.infos[mover]["afterstate"]
        assert rec == after[a]
        assert all(rec.rewards[ag] == r for ag, r in raw.rewards.items())  # agents that left have no entry
        assert rec.player == mover and rec.action == a
        if raw.game.has_chance and not rec.terminal and raw.game.name == "einstein_wurfelt_nicht":
            # the die roll for the next player is state[3]; the board stays as the move left it
            assert rec.state[3] == 0 and raw.get_state()[3] == raw.infos[mover]["chance"]["roll"]
            assert np.array_equal(raw.get_state()[4:], rec.state[4:])
        elif raw.game.has_chance and not rec.terminal and raw.game.name == "poker":
            # a chance event deals public cards only: the board places it names hold them now
            from farl_envs.games.poker import BOARD
            shown, now = raw.infos[mover]["chance"], raw.get_state()
            assert all(c < 0 or now[BOARD + i] == c for i, c in enumerate(shown["board"]))
            if shown["new_hand"] < 0:  # nothing dealt
                assert np.array_equal(now[3:], rec.state[3:])
        elif raw.game.has_chance and not rec.terminal:
            cell, tile = raw.infos[mover]["chance"]
            diff = np.flatnonzero(raw.get_state()[3:] != rec.state[3:])
            assert list(diff) == [cell] and rec.state[3 + cell] == 0 and tile in (2, 4)
        else:
            assert np.array_equal(raw.get_state()[3:], rec.state[3:])
        assert rec.board.shape == (raw.game.n_cells,)
        assert rec.board.min() >= 0 and rec.board.max() < raw.game.n_cell_values
        if raw.state_array[TERMINAL]:
            break


@pytest.mark.parametrize("name", ["connect_four_v0", "game2048_v0", "othello_v0"])
def test_infos_are_light_values_that_copy_and_pickle_cheaply(name):
    """SB3's DummyVecEnv deep-copies infos every step: an afterstate must not drag the game spec along."""
    env = farl_envs.make(name)
    env.reset(seed=2)
    raw = env.unwrapped
    mover = raw.agent_selection
    env.step(raw.legal_actions()[0])
    infos = raw.infos
    data = pickle.dumps(infos)
    assert len(data) < 4000, len(data)  # the spec with its compiled functions pickles to ~13 KB
    for twin in (copy.deepcopy(infos), pickle.loads(data)):
        rec, back = infos[mover]["afterstate"], twin[mover]["afterstate"]
        assert back == rec and back is not rec
        assert np.array_equal(back.board, rec.board) and back.terminal == rec.terminal
    assert not any(isinstance(v, type(raw.game)) for v in gc.get_referents(infos[mover]["afterstate"]))


@pytest.mark.parametrize("name", GAMES)
def test_illegal_action_raises_and_keeps_state(name):
    env = farl_envs.make(name, **SMALL_PARAMS.get(name, {}))
    env.reset(seed=1)
    raw = env.unwrapped
    illegal = [a for a in range(raw.game.n_actions) if a not in raw.legal_actions()]
    before = raw.get_state()
    for bad in illegal[:3] + [-1, raw.game.n_actions, 1.5, "x", None]:
        with pytest.raises(ValueError, match="legal actions"):
            env.step(bad)
        assert np.array_equal(raw.get_state(), before)
    with pytest.raises(ValueError):
        raw.afterstate(-1)


@pytest.mark.parametrize("name", ["tictactoe_v0", "connect_four_v0", "nim3p_v0"])
def test_penalize_mode_ends_game_with_a_loss_for_the_mover(name):
    env = farl_envs.make(name, illegal_action="penalize")
    env.reset(seed=0)
    env.step(0 if name != "tictactoe_v0" else 4)
    mover = env.agent_selection
    if name == "tictactoe_v0":
        env.step(4)
    else:
        env.step(env.unwrapped.game.n_actions + 5)
    assert env.rewards[mover] == -1
    assert all(env.terminations.values())


@pytest.mark.parametrize("name", GAMES)
def test_state_round_trip_and_bad_states_refused(name):
    env = farl_envs.make(name, **SMALL_PARAMS.get(name, {}))
    env.reset(seed=5)
    raw = env.unwrapped
    raw.step(raw.legal_actions()[0])
    s = raw.get_state()
    other = farl_envs.make(name, **SMALL_PARAMS.get(name, {}))
    other.reset(seed=0)
    other.unwrapped.set_state(s)
    assert np.array_equal(other.unwrapped.get_state(), s)
    assert other.agent_selection == raw.agent_selection
    assert other.unwrapped.legal_actions() == raw.legal_actions()
    for bad in (s[:-1], np.full_like(s, 99), np.concatenate([s, s]), s.astype(float) + 0.5):
        with pytest.raises(ValueError):
            other.unwrapped.set_state(bad)
    wrong_mover = s.copy()
    if raw.game.n_players > 1:
        wrong_mover[0] = (wrong_mover[0] + 1) % raw.game.n_players
        with pytest.raises(ValueError, match="not a legal position"):
            other.unwrapped.set_state(wrong_mover)


@pytest.mark.parametrize("name", GAMES)
def test_render_modes(name):
    for mode, kind in (("ansi", str), ("rgb_array", np.ndarray)):
        env = farl_envs.make(name, render_mode=mode, **SMALL_PARAMS.get(name, {}))
        env.reset(seed=0)
        out = env.render()
        assert isinstance(out, kind)
        if kind is np.ndarray:
            assert out.ndim == 3 and out.shape[2] == 3 and out.dtype == np.uint8


@pytest.mark.parametrize("name", GAMES)
def test_raw_env_pickles(name):
    env = farl_envs.make_raw(name, **SMALL_PARAMS.get(name, {}))
    env.reset(seed=2)
    env.step(env.legal_actions()[0])
    clone = pickle.loads(pickle.dumps(env))
    clone.reset(seed=2)
    assert clone.game.params == env.game.params


def test_gym_wrapper_plays_every_seat_and_sums_rewards():
    env = gymnasium.make("farl/Nim3P-v0", seat="alternate").unwrapped
    seats, totals = [], []
    for ep in range(6):
        obs, info = env.reset(seed=7 if ep == 0 else None)
        seats.append(info["seat"])
        total, done = 0.0, False
        while not done:
            a = int(np.flatnonzero(env.action_masks())[0])
            obs, r, done, trunc, info = env.step(a)
            total += r
        totals.append(total)
    assert seats == [0, 1, 2, 0, 1, 2]
    assert set(np.round(totals, 6)) <= {0.0, 0.2, 1.0}


def test_gym_wrapper_illegal_action_is_a_loss():
    env = gymnasium.make("farl/TicTacToe-v0").unwrapped
    env.reset(seed=0)
    env.step(4)
    taken = [a for a in range(9) if not env.action_masks()[a]]
    obs, r, done, trunc, info = env.step(taken[0])
    assert done and r == -1.0 and info["illegal_action"]
    with pytest.raises(RuntimeError):
        env.step(0)


def test_gym_wrapper_uses_given_opponent():
    calls = []

    def first_legal(raw):
        calls.append(raw.agent_selection)
        return raw.legal_actions()[0]

    env = gymnasium.make("farl/TicTacToe-v0", seat=1, opponents=first_legal).unwrapped
    obs, info = env.reset(seed=0)
    assert calls == ["player_0"] and obs[0, 0, 1] == 1  # the opponent took cell 0


def test_gym_wrapper_rejects_bad_seat():
    with pytest.raises(ValueError, match="seat"):
        gymnasium.make("farl/TicTacToe-v0", seat=2)
