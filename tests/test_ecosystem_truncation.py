"""Move caps outside the rules end a game as *truncated*; draws the rules define stay terminations.

Chinese Checkers' ``max_moves`` and Lines of Action's ``max_game_length`` are limits on the length of a
game, not rules of its outcome: Gymnasium's convention reports such an end as ``truncated=True``
(``terminated=False``), which tells a learner to bootstrap instead of treating the position as final.
Surakarta's no-capture rule and Lines of Action's repetition rule decide the game (a winner or a draw by
the rules) and stay terminations. The kernels end a capped game exactly as before (terminal flag, zero
rewards), so the compiled learner loops see no difference, and the AEC learner driver, which reads both
flags, still learns bit-identical weights (checked in tests/test_shaping.py, beside the other test that compiles the
same shaped Chinese Checkers loop: one file, so two workers never compile it at once).
"""
from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import farl_envs
from farl_envs.core.spec import PLY, TERMINAL
from farl_envs.games import chinese_checkers, lines_of_action, surakarta


def _play_out(env, seed: int):
    """Random legal moves until the game is over; returns the flags and rewards ``last()`` shows each agent."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    seen = {}
    for agent in env.agent_iter():
        _, reward, term, trunc, _ = env.last()
        if term or trunc:
            seen[agent] = (term, trunc, reward)
            env.step(None)
        else:
            env.step(int(rng.choice(env.unwrapped.legal_actions())))
    return seen


@pytest.mark.parametrize("name,params", [("chinese_checkers", {"max_moves": 6}),
                                         ("chinese_checkers", {"players": 3, "max_moves": 7}),
                                         ("lines_of_action", {"max_game_length": 5})])
def test_a_move_cap_is_a_truncation_for_every_agent(name, params):
    env = farl_envs.make(name, **params)
    seen = _play_out(env, seed=0)
    assert env.unwrapped.state_array[TERMINAL]  # the kernel's end of the game is unchanged
    assert set(seen) == set(env.unwrapped.possible_agents)
    assert all(term is False and trunc is True and reward == 0.0 for term, trunc, reward in seen.values()), seen
    assert env.unwrapped.legal_actions() == []


def test_lines_of_action_ends_by_rule_are_terminations_and_only_the_cap_truncates():
    """Random Lines of Action games under a cap of 150 plies (random games last 40 to 360 plies): whatever
    ended each game, ``truncated`` is set exactly when the cap did (the cap is tested first, even over a
    connection)."""
    kinds = set()
    for seed in range(12):
        env = farl_envs.make("lines_of_action", max_game_length=150)
        seen = _play_out(env, seed)
        capped = int(env.unwrapped.state_array[PLY]) == 150
        kinds.add(capped)
        assert all(trunc == capped and term == (not capped) for term, trunc, _ in seen.values()), (seed, seen)
    assert kinds == {True, False}


def test_surakarta_no_capture_draw_stays_a_termination():
    env = farl_envs.make("surakarta", no_capture_limit=2)
    seen = _play_out(env, seed=0)
    assert all(term is True and trunc is False for term, trunc, _ in seen.values()), seen
    assert surakarta.make_spec(no_capture_limit=2).truncated is None


def test_the_games_truncated_hooks_read_only_terminal_positions():
    cc = chinese_checkers.make_spec(max_moves=1)
    s = cc.initial_state(cc.p, None)
    assert not cc.truncated(cc.p, s)
    mask = np.zeros(cc.n_actions, dtype=np.int8)
    cc.legal_actions(cc.p, s, mask)
    out = s.copy()
    cc.afterstate(cc.p, s, int(np.flatnonzero(mask[:-1])[0]), out, np.zeros(2))
    while not out[TERMINAL]:  # a hop chain may need a pass to end the turn
        cc.legal_actions(cc.p, out, mask)
        cc.afterstate(cc.p, out, chinese_checkers.PASS if mask[chinese_checkers.PASS] else int(np.flatnonzero(mask)[0]),
                      out, np.zeros(2))
    assert cc.truncated(cc.p, out)
    loa = lines_of_action.make_spec(max_game_length=1)
    s = loa.initial_state(loa.p, None)
    assert not loa.truncated(loa.p, s)
    loa.legal_actions(loa.p, s, mask := np.zeros(loa.n_actions, dtype=np.int8))
    out = s.copy()
    loa.afterstate(loa.p, s, int(np.flatnonzero(mask)[0]), out, np.zeros(2))
    assert out[TERMINAL] and loa.truncated(loa.p, out)


@pytest.mark.parametrize("game_id,params", [("farl/ChineseCheckers-v0", {"max_moves": 6}),
                                            ("farl/LinesOfAction-v0", {"max_game_length": 5})])
def test_the_gym_wrapper_reports_the_cap_as_truncated(game_id, params):
    for seat in (0, 1):
        env = gymnasium.make(game_id, seat=seat, **params)
        obs, info = env.reset(seed=seat)
        terminated = truncated = False
        steps = 0
        while not (terminated or truncated):
            mask = env.get_wrapper_attr("action_masks")()
            obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(mask)[0]))
            steps += 1
        assert truncated and not terminated and reward == 0.0 and steps > 0
        assert not info["action_mask"].any()


def test_the_gym_wrapper_still_terminates_games_that_end_by_the_rules():
    env = gymnasium.make("farl/Surakarta-v0", no_capture_limit=2)
    env.reset(seed=0)
    terminated = truncated = False
    while not (terminated or truncated):
        mask = env.get_wrapper_attr("action_masks")()
        _, _, terminated, truncated, _ = env.step(int(np.flatnonzero(mask)[0]))
    assert terminated and not truncated


@pytest.mark.parametrize("name", ["chinese_checkers", "lines_of_action", "surakarta"])
def test_the_game_docstrings_say_how_their_limits_end_a_game(name):
    doc = farl_envs.env_module(name).raw_env.__doc__ or ""
    module_doc = {"chinese_checkers": chinese_checkers, "lines_of_action": lines_of_action,
                  "surakarta": surakarta}[name].__doc__
    if name == "surakarta":
        assert "termination" in module_doc and "not a truncation" in module_doc
    else:
        assert "truncated=True" in module_doc
    assert doc  # the env class carries the game's documentation page
