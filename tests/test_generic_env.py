"""The learners train through any AEC env that offers the afterstate extension, not only farl's.

The env here is written in this file, from scratch: "race to 7", two players
alternately add 1 or 2 to a counter, whoever reaches 7 wins. Its n-tuple board
is a single cell holding the counter. The player to move at 1 and 4 loses with
best play (7 - c must not be a multiple of 3), so the first player wins by
adding 1 (to 1), then replying to reach 4.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo import AECEnv

from farl_agents.learners import LearnerConfig, NTupleAgent

GOAL = 7


@dataclass
class After:
    board: np.ndarray
    rewards: dict
    terminal: bool


class RaceEnv(AECEnv):
    metadata = {"name": "race_v0", "render_modes": []}

    def __init__(self):
        super().__init__()
        self.possible_agents = ["a", "b"]
        self.action_spaces = {a: spaces.Discrete(2) for a in self.possible_agents}
        self.observation_spaces = {a: spaces.Dict({"observation": spaces.Box(0, GOAL, (1,), np.int8),
                                                   "action_mask": spaces.Box(0, 1, (2,), np.int8)})
                                   for a in self.possible_agents}

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed=None, options=None):
        self.agents = self.possible_agents[:]
        self.count = 0
        self.agent_selection = "a"
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}

    def _mask(self):
        return np.array([self.count + k <= GOAL for k in (1, 2)], np.int8)

    def observe(self, agent):
        return {"observation": np.array([self.count], np.int8), "action_mask": self._mask()}

    def _result(self, action):
        count = self.count + action + 1
        me, other = self.agent_selection, [a for a in self.possible_agents if a != self.agent_selection][0]
        won = count == GOAL
        return count, After(np.array([count], np.int32), {me: 1.0 if won else 0.0, other: -1.0 if won else 0.0}, won)

    def afterstates(self):
        return {a: self._result(a)[1] for a in np.flatnonzero(self._mask())}

    def action_mask(self):
        return self._mask()

    def step(self, action):
        if self.terminations[self.agent_selection]:
            self._was_dead_step(action)
            return
        self.count, after = self._result(action)
        self.rewards = dict(after.rewards)
        self._cumulative_rewards[self.agent_selection] = 0
        self._accumulate_rewards()
        if after.terminal:
            self.terminations = {a: True for a in self.agents}
        self.agent_selection = "b" if self.agent_selection == "a" else "a"


class RaceSpec:
    """What the learner needs to know about the game: sizes and symmetries (none)."""
    name = "race"
    params: dict = {}
    p = np.zeros(1, np.int64)
    n_players = 2
    n_actions = 2
    n_cells = 1
    n_cell_values = GOAL + 1
    action_symmetries = None

    def symmetries(self, p):
        return np.array([[0]], np.int32)


def test_td_farl_learns_the_race_through_a_foreign_env():
    cfg = LearnerConfig(alpha=0.5, epsilon=0.2, epsilon_final=0.0, ntuples="explicit", ntuple_cells=((0,),),
                        episodes=400, seed=3)
    agent = NTupleAgent(RaceSpec(), cfg)
    results = agent.train_aec(RaceEnv(), cfg.episodes)
    assert len(results) == 400
    v = agent.net.weights[0]  # [player, counter after the move]
    # after a's move the counter at 1 or 4 (opponent to move loses) is good for a, 2/3/5/6 bad
    assert v[0, 1] > 0.5 and v[0, 4] > 0.5
    assert v[0, 2] < 0 and v[0, 3] < 0
    env = RaceEnv()
    env.reset()
    assert max(env.afterstates(), key=lambda a: v[0, env.afterstates()[a].board[0]]) == 0  # add 1 first


def test_action_masks_through_gymnasium_wrappers_and_before_reset():
    import gymnasium

    env = gymnasium.make("farl/ConnectFour-v0")
    with pytest.raises(RuntimeError, match="call reset"):
        env.get_wrapper_attr("action_masks")()
    env.reset(seed=0)
    mask = env.get_wrapper_attr("action_masks")()
    assert mask.dtype == bool and mask.shape == (7,) and mask.all()


@pytest.mark.parametrize("action", ["3", 1.5, float("inf"), float("nan"), None, True, [3], np.array([3, 4])])
def test_only_whole_numbers_are_actions(action):
    import gymnasium

    from farl_envs.core.aec import integral_action

    assert integral_action(action) is None
    env = gymnasium.make("farl/ConnectFour-v0")
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step(action)
    assert terminated and info.get("illegal_action") and reward == -1.0


@pytest.mark.parametrize("action,expected", [(3, 3), (np.int64(3), 3), (3.0, 3), (np.array(3), 3)])
def test_integral_actions_of_any_numeric_type_are_played(action, expected):
    from farl_envs.core.aec import integral_action

    assert integral_action(action) == expected


@pytest.mark.parametrize("name", ["connect_four", "game2048", "nim3p"])
def test_copies_and_pickles_continue_the_game_in_progress(name):
    import copy
    import pickle

    import farl_envs

    env = farl_envs.make(name)
    env.reset(seed=3)
    for _ in range(3):
        env.step(int(np.flatnonzero(env.unwrapped.action_mask())[0]))
    for twin in (copy.deepcopy(env), pickle.loads(pickle.dumps(env.unwrapped))):
        assert np.array_equal(twin.unwrapped.get_state(), env.unwrapped.get_state())
        assert twin.unwrapped.agent_selection == env.unwrapped.agent_selection
        a = int(np.flatnonzero(env.unwrapped.action_mask())[0])
        mine, theirs = copy.deepcopy(env), twin
        mine.step(a)
        theirs.step(a)  # the same move and the same chance draws (2048's tile) from the copied generator
        assert np.array_equal(mine.unwrapped.get_state(), theirs.unwrapped.get_state())
    gym_env = __import__("gymnasium").make("farl/ConnectFour-v0")
    gym_env.reset(seed=0)
    gym_env.step(3)
    twin_obs = copy.deepcopy(gym_env).step(2)[0]  # stepped on inside numba (was a TypingError on a fresh env)
    assert np.array_equal(twin_obs, gym_env.step(2)[0])


@pytest.mark.parametrize("wrapped", [False, True])
def test_every_call_before_reset_is_a_runtime_error(wrapped):
    """One policy: use before reset -> RuntimeError, bad type -> TypeError, bad value -> ValueError."""
    import farl_envs

    env = farl_envs.make("connect_four") if wrapped else farl_envs.make_raw("connect_four", render_mode="ansi")
    raw = env.unwrapped
    calls = [lambda: env.step(0), lambda: env.observe("player_0"), env.last, raw.afterstates,
             lambda: raw.afterstate(0), raw.board, raw.legal_actions, raw.action_mask, raw.get_state,
             lambda: raw.state_array]
    if not wrapped:
        calls.append(env.render)
    for call in calls:
        with pytest.raises(RuntimeError, match="reset"):
            call()


def test_bad_states_and_agents_raise_type_or_value_errors():
    import farl_envs

    raw = farl_envs.make_raw("connect_four")
    raw.reset(seed=0)
    before = raw.get_state()
    for bad in (None, "abc", {"a": 1}):
        with pytest.raises(TypeError, match="array of integers"):
            raw.set_state(bad)
    for bad in ([2**40] * raw.game.state_size, np.full(raw.game.state_size, 0.5), [0, 0]):
        with pytest.raises(ValueError):
            raw.set_state(bad)
    with pytest.raises(ValueError, match="unknown agent"):
        raw.observe("player_7")
    with pytest.raises(ValueError, match="legal actions"):
        raw.step(2**70)
    assert np.array_equal(raw.get_state(), before)


def test_human_mode_draws_one_window_per_step_and_rgb_images_are_readable(monkeypatch):
    """render_mode="human" shows the rgb image in a pygame window (headless: SDL's dummy driver)."""
    pytest.importorskip("pygame")
    import farl_envs
    from farl_envs.core import render
    from farl_envs.gym_env import SingleAgentEnv

    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    shown = []
    monkeypatch.setattr(render.HumanWindow, "show", lambda self, image: shown.append(image.shape))
    env = farl_envs.make("tictactoe", render_mode="human")
    env.reset(seed=0)
    env.step(4)
    assert len(shown) == 1 and shown[0][0] >= 3 * render.CELL
    gym_env = SingleAgentEnv("tictactoe", render_mode="human")
    gym_env.reset(seed=0)
    shown.clear()
    gym_env.step(int(np.flatnonzero(gym_env.action_masks())[0]))  # the learner's move and the opponent's reply
    assert len(shown) == 1
    assert env.unwrapped.metadata["render_fps"] > 0 and gym_env.metadata["render_fps"] > 0


def test_a_real_pygame_window_opens_and_closes(monkeypatch):
    pytest.importorskip("pygame")
    import farl_envs

    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    env = farl_envs.make("connect_four", render_mode="human")
    env.reset(seed=0)
    env.step(3)
    env.close()


def test_othello_legal_move_hints_do_not_look_like_discs():
    import farl_envs
    from farl_envs.core.render import render_rgb

    raw = farl_envs.make_raw("othello")
    raw.reset(seed=0)
    img = render_rgb(raw.game, raw.state_array)
    colours = {tuple(int(v) for v in img[y, x]) for y in range(0, img.shape[0], 8) for x in range(0, img.shape[1], 8)}
    black, white = (20, 20, 20), (240, 240, 240)
    hint = tuple(raw.game.cell_colors[3])
    assert hint in colours and hint not in (black, white)
