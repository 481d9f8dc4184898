"""The AEC env as other libraries use it: numpy bools refused, uniform infos, ``state()``, the parallel API.

Each test here failed on farl 0.1's env before the fix it pins (issue 37, sections 5 and 6):

* ``step(np.True_)`` played action 1 where Python ``True`` is refused;
* ``infos[agent]`` gained its ``"afterstate"`` key only after the agent's first move (Tianshou's buffer
  then stores NaNs for the missing key and stops);
* ``state()`` / ``state_space`` did not exist, so PettingZoo's ``state_test`` failed, also through
  ``turn_based_aec_to_parallel``.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test, state_test
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

import farl_envs
from farl_envs.core.aec import integral_action
from farl_envs.core.spec import TERMINAL, TO_MOVE

GAMES = farl_envs.list_games()
SMALL_PARAMS = {"hex_v0": {"size": 4}, "amazons_v0": {"board_size": 6}, "outer_open_gomoku_v0": {"size": 9},
                "chinese_checkers_v0": {"max_moves": 30}, "lines_of_action_v0": {"max_game_length": 40}}


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


# ------------------------------------------------------------------ numpy bools
@pytest.mark.parametrize("flag", [np.True_, np.False_, np.bool_(True), np.array(True), np.array([True])])
def test_numpy_bools_are_not_actions(flag):
    """A numpy bool is refused exactly like Python's ``True`` / ``False``: it is no move number."""
    assert integral_action(flag) is None
    env = farl_envs.make("tictactoe")
    env.reset(seed=0)
    before = env.unwrapped.get_state()
    with pytest.raises(ValueError, match="illegal action"):
        env.step(flag)
    assert np.array_equal(env.unwrapped.get_state(), before)
    with pytest.raises(ValueError, match="illegal action"):
        env.unwrapped.afterstate(flag)


def test_numpy_bool_is_an_illegal_move_under_penalize_and_in_the_gym_wrapper():
    import gymnasium

    env = farl_envs.make("tictactoe", illegal_action="penalize")
    env.reset(seed=0)
    env.step(np.True_)
    assert env.rewards["player_0"] == -1.0 and all(env.terminations.values())
    assert env.unwrapped.get_state()[3:].sum() == 0  # no stone was placed
    gym_env = gymnasium.make("farl/TicTacToe-v0").unwrapped
    gym_env.reset(seed=0)
    _, reward, terminated, _, info = gym_env.step(np.True_)
    assert terminated and info["illegal_action"] and reward == -1.0


def test_numpy_integers_still_play():
    env = farl_envs.make("tictactoe")
    env.reset(seed=0)
    env.step(np.int8(4))
    env.step(np.array(0))
    assert list(env.unwrapped.get_state()[3:]) == [2, 0, 0, 0, 1, 0, 0, 0, 0]


# ------------------------------------------------------------------ uniform infos
def _nones(value) -> bool:
    """True when ``value`` is None or holds a None in a dict, list or tuple."""
    if value is None:
        return True
    if isinstance(value, dict):
        return any(_nones(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_nones(v) for v in value)
    return False


def _check_infos(raw, keys) -> None:
    for agent in raw.agents:
        info = raw.infos[agent]
        assert set(info) == keys, (agent, set(info), keys)
        assert not _nones(info), (agent, info)


@pytest.mark.parametrize("name", GAMES)
def test_every_agent_infos_hold_the_same_keys_without_none(name):
    """At every ``last()`` of random games (dead steps included), every agent's infos have the same keys."""
    rng = np.random.default_rng(1)
    env = farl_envs.make(name, **SMALL_PARAMS.get(name, {}))
    raw = env.unwrapped
    keys = {"afterstate", "illegal_move"} | ({"chance"} if raw.game.has_chance else set())
    for episode in range(2):
        env.reset(seed=episode)
        _check_infos(raw, keys)
        for agent in env.agent_iter(400):
            _, _, term, trunc, info = env.last()
            _check_infos(raw, keys)
            assert info["illegal_move"] is False
            assert info["afterstate"].player == agent
            env.step(None if term or trunc else int(rng.choice(raw.legal_actions())))
            _check_infos(raw, keys)


def test_infos_before_the_first_move_and_after_an_illegal_one():
    """Before its first move an agent's record has action -1 and the start position; an illegal move under
    ``penalize`` sets ``illegal_move`` and records the ended game with action -1."""
    env = farl_envs.make("connect_four", illegal_action="penalize")
    env.reset(seed=0)
    raw = env.unwrapped
    start = raw.get_state()
    for agent in raw.agents:
        rec = raw.infos[agent]["afterstate"]
        assert rec.action == -1 and rec.player == agent and np.array_equal(rec.state, start)
        assert rec.rewards == {"player_0": 0.0, "player_1": 0.0} and not rec.terminal
    env.step(3)
    assert raw.infos["player_0"]["afterstate"].action == 3
    env.step(99)
    info = raw.infos["player_1"]
    assert info["illegal_move"] is True and info["afterstate"].action == -1 and info["afterstate"].terminal
    assert info["afterstate"].rewards == {"player_0": 0.0, "player_1": -1.0}
    assert raw.infos["player_0"]["illegal_move"] is False


@pytest.mark.parametrize("name", ["game2048_v0", "einstein_wurfelt_nicht_v0"])
def test_chance_info_without_an_event_has_the_event_shape_with_minus_ones(name):
    env = farl_envs.make(name)
    env.reset(seed=0)
    raw = env.unwrapped
    blank = raw.infos[raw.agent_selection]["chance"]
    seen = None
    rng = np.random.default_rng(0)
    while not raw.state_array[TERMINAL]:
        mover = raw.agent_selection
        env.step(int(rng.choice(raw.legal_actions())))
        chance = raw.infos[mover]["chance"]
        if raw.infos[mover]["afterstate"].terminal:  # the move ended the game: no event followed
            assert chance == blank
        else:  # an event followed (in 2048 the new tile itself may end the game)
            assert chance != blank
            seen = chance
    assert type(blank) is type(seen)
    if isinstance(blank, dict):
        assert blank.keys() == seen.keys() and set(blank.values()) == {-1}
    else:
        assert len(blank) == len(seen) and set(blank) == {-1}


# ------------------------------------------------------------------ state() and the parallel API
@pytest.mark.parametrize("name", GAMES)
def test_state_is_the_first_seat_view_plus_the_mover(name):
    env = farl_envs.make(name, **SMALL_PARAMS.get(name, {}))
    raw = env.unwrapped
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(6):
        state = env.state()
        assert env.state_space.contains(state)
        obs_size = int(np.prod(raw.game.obs_shape))
        assert np.array_equal(state[:obs_size], env.observe("player_0")["observation"].ravel())
        mover = np.zeros(raw.game.n_players, dtype=np.int8)
        mover[raw.state_array[TO_MOVE]] = 1
        assert np.array_equal(state[obs_size:], mover)
        if raw.state_array[TERMINAL]:
            break
        env.step(int(rng.choice(raw.legal_actions())))


def test_state_before_reset_is_a_runtime_error():
    with pytest.raises(RuntimeError, match="reset"):
        farl_envs.make_raw("tictactoe").state()


@pytest.mark.parametrize("name", ["tictactoe_v0", "connect_four_v0", "nim3p_v0", "game2048_v0", "sim_v0",
                                  "chinese_checkers_v0"])
def test_pettingzoo_state_test_and_parallel_api_test(name):
    params = SMALL_PARAMS.get(name, {})
    if name == "sim_v0":
        params = {"players": 3}
    # state_test samples actions without the mask: under farl's default an illegal one raises, so it runs
    # with PettingZoo's classic convention (an illegal move loses and ends the game), as tools that send
    # arbitrary actions should
    state_test(farl_envs.make(name, illegal_action="penalize", **params),
               turn_based_aec_to_parallel(farl_envs.make(name, **params)))
    parallel = turn_based_aec_to_parallel(farl_envs.make(name, **params))
    parallel_api_test(parallel, num_cycles=200)
    obs, infos = parallel.reset(seed=0)
    assert parallel.state_space.contains(parallel.state())
    # one agent acts per parallel step: the one whose mask has a legal move
    movers = [a for a in parallel.agents if obs[a]["action_mask"].any()]
    assert len(movers) == 1
