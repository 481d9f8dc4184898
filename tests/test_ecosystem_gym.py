"""The Gymnasium wrapper and the render modes as plain installs and other libraries meet them.

* ``opponents=`` of ``farl/<Game>-v0`` takes a harness player (``make_opponent(...)``), an opponent name,
  a policy ``fn(raw_env)``, or a list of these, one per other seat (a single player used to fail with
  ``'MCTS' object is not iterable``);
* without pygame, ``"human"`` is not advertised in ``render_modes`` (Gymnasium's ``check_env`` and
  PettingZoo's ``render_test`` try every advertised mode). The CI environment has pygame, so the checks
  run in a subprocess where importing pygame fails.
"""
from __future__ import annotations

import subprocess
import sys
import textwrap
import warnings

import gymnasium
import numpy as np
import pytest

import farl_envs
from farl_agents.opponents import make_opponent
from farl_agents.players import CallablePlayer


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


# ------------------------------------------------------------------ opponents
def _highest_legal(game, state, rng):
    mask = np.zeros(game.n_actions, dtype=np.int8)
    game.legal_actions(game.p, state, mask)
    return int(np.flatnonzero(mask)[-1])


def test_a_single_player_object_plays_every_other_seat():
    """The issue's call: one harness player (here MCTS) as the opponent of farl/ConnectFour-v0."""
    env = gymnasium.make("farl/ConnectFour-v0", seat=1, opponents=make_opponent("mcts50", "connect_four"))
    obs, info = env.reset(seed=0)
    assert obs[..., 1].sum() == 1  # the opponent (seat 0) has made its first move
    obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert obs[..., 1].sum() == 2 and not truncated


def test_player_objects_get_the_kernel_state_and_a_reset_per_episode():
    resets = []
    player = CallablePlayer(_highest_legal, name="highest", reset_fn=lambda: resets.append(1))
    env = gymnasium.make("farl/TicTacToe-v0", seat=1, opponents=player).unwrapped
    env.reset(seed=0)
    assert list(env.aec.get_state()[3:]) == [0, 0, 0, 0, 0, 0, 0, 0, 1]  # player_0 took the highest cell
    env.step(0)
    assert list(env.aec.get_state()[3:]) == [2, 0, 0, 0, 0, 0, 0, 1, 1]
    env.reset()
    assert len(resets) == 2


def test_an_opponent_name_is_built_for_the_game():
    env = gymnasium.make("farl/Nim3P-v0", seat=0, opponents="maxn15").unwrapped
    env.reset(seed=0)
    assert all(type(o).__name__ == "MaxN" for o in env.opponents)
    env = gymnasium.make("farl/Nim3P-v0", seat=2, opponents=["random", "mcts10"]).unwrapped
    env.reset(seed=0)
    assert [type(o).__name__ for o in env.opponents] == ["RandomPlayer", "MCTS"]


def test_a_list_mixes_players_names_policies_and_none():
    calls = []

    def first_legal(raw):
        calls.append(raw.agent_selection)
        return raw.legal_actions()[0]

    env = gymnasium.make("farl/Nim3P-v0", seat=0, opponents=[first_legal, CallablePlayer(_highest_legal)])
    env.reset(seed=0)
    env.step(0)
    assert calls == ["player_1"]
    env = gymnasium.make("farl/Nim3P-v0", seat=1, opponents=[None, "random"])
    env.reset(seed=0)


def test_seeded_episodes_with_player_opponents_repeat():
    def episode():
        env = gymnasium.make("farl/ConnectFour-v0", seat="alternate", opponents="mcts10")
        obs, info = env.reset(seed=3)
        boards = [obs.copy()]
        done = False
        while not done:
            obs, _, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
            boards.append(obs.copy())
            done = terminated or truncated
        return boards

    first, second = episode(), episode()
    assert len(first) == len(second) and all(np.array_equal(a, b) for a, b in zip(first, second))


@pytest.mark.parametrize("bad,match", [
    (["random"], "2 opponents"), (["random", "random", "random"], "2 opponents"),
    (42, "opponents"), ([object(), None], "opponents"), ("no-such-player", "no-such-player"),
])
def test_bad_opponents_are_refused_with_the_accepted_forms(bad, match):
    with pytest.raises(ValueError, match=match):
        gymnasium.make("farl/Nim3P-v0", opponents=bad)


# ------------------------------------------------------------------ render modes without pygame
NO_PYGAME = """
import sys
sys.modules["pygame"] = None  # importing pygame now raises ImportError, as on a plain install
import warnings
warnings.simplefilter("ignore")
"""


def _run_without_pygame(code: str) -> str:
    result = subprocess.run([sys.executable, "-c", NO_PYGAME + textwrap.dedent(code)], capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_gymnasium_check_env_and_pettingzoo_render_test_pass_without_pygame():
    out = _run_without_pygame("""
        import gymnasium
        from gymnasium.utils.env_checker import check_env
        from pettingzoo.test import render_test
        import farl_envs
        from farl_envs import connect_four_v0, tictactoe_v0

        for game_id in ("farl/TicTacToe-v0", "farl/ConnectFour-v0"):
            env = gymnasium.make(game_id)
            assert "human" not in env.metadata["render_modes"]
            check_env(env.unwrapped)
        for module in (tictactoe_v0, connect_four_v0):
            assert "human" not in module.raw_env.metadata["render_modes"]
            render_test(module.env)
        print("checks passed")
    """)
    assert "checks passed" in out


def test_human_mode_without_pygame_is_accepted_and_drawing_names_the_extra():
    """PettingZoo's render_test builds an env with render_mode="human" before it reads the advertised modes,
    so the constructor takes it; drawing then says what to install."""
    out = _run_without_pygame("""
        import farl_envs
        from farl_envs.gym_env import SingleAgentEnv

        for env in (farl_envs.make("tictactoe", render_mode="human"), SingleAgentEnv("tictactoe", render_mode="human")):
            try:
                env.reset(seed=0)
                env.render()
            except RuntimeError as exc:
                print(exc)
    """)
    assert out.count('pip install "farl-rl[render]"') == 2


def test_human_mode_is_advertised_when_pygame_imports():
    pytest.importorskip("pygame")
    assert "human" in farl_envs.make_raw("tictactoe").metadata["render_modes"]
    assert "human" in gymnasium.make("farl/TicTacToe-v0").metadata["render_modes"]
