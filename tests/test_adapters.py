"""farl's learners on envs farl did not write, through ``farl_envs.adapters``.

The strongest check: an agent trained on PettingZoo's (or OpenSpiel's) own
env through an adapter ends with bit-identical weights to one trained on
farl's env of the same game, from the same seed. That only holds if the
adapter shows the learner the same n-tuple boards, rewards and terminal
flags, with the candidate moves in the same order (the learner breaks ties
at random over the candidates in their order). The encodings are also pinned
by hand-checked positions, and the adapter's checks by the mistakes users
make (``copy.deepcopy`` of an ``EzPickle`` env, copies that share the board,
steps the copy cannot predict).
"""
from __future__ import annotations

import copy

import numpy as np
import pytest

import farl_envs
from farl_agents.learners import LearnerConfig, NTupleAgent, paper_config
from farl_envs.adapters import (
    AdapterMismatchError,
    AfterstateAdapter,
    adapt_connect_four_v3,
    adapt_tictactoe_v3,
)
from farl_envs.core.rng import make_rng

pytest.importorskip("pygame", reason="PettingZoo's classic games import pygame (pettingzoo[classic])")
from pettingzoo.classic.connect_four import connect_four  # noqa: E402
from pettingzoo.classic.tictactoe import tictactoe  # noqa: E402

from farl_envs.adapters.pettingzoo_classic import restore_tictactoe_v3  # noqa: E402


def _reset(env):
    env.reset()
    return env


def _same_training(game: str, adapter, config) -> tuple[NTupleAgent, NTupleAgent]:
    """One agent trained on farl's env, one on ``adapter``; both through the AEC driver, from the same seed."""
    on_farl = NTupleAgent(game, config)
    on_farl.train_aec(farl_envs.make(game), config.episodes)
    on_adapter = NTupleAgent(adapter.game, config)
    on_adapter.train_aec(adapter, config.episodes)
    return on_farl, on_adapter


# ---------------------------------------------------------------- bit-identical training
@pytest.mark.parametrize("config", [
    paper_config("tictactoe", episodes=300, learn_from_random_moves=False),
    paper_config("tictactoe", algo="sarsa", episodes=100),
], ids=["td", "sarsa"])
def test_training_on_pettingzoo_tictactoe_gives_farls_weights(config):
    on_farl, on_adapter = _same_training("tictactoe", adapt_tictactoe_v3(tictactoe.env()), config)
    assert np.count_nonzero(on_farl.net.weights) > 0
    assert np.array_equal(on_farl.net.weights, on_adapter.net.weights)
    assert np.array_equal(on_farl.agent_rng, on_adapter.agent_rng)  # the same random numbers were drawn


def test_training_on_pettingzoo_connect_four_gives_farls_weights():
    config = paper_config("connect_four", episodes=30)
    on_farl, on_adapter = _same_training("connect_four", adapt_connect_four_v3(connect_four.env()), config)
    assert np.count_nonzero(on_farl.net.weights) > 0
    assert np.array_equal(on_farl.net.weights, on_adapter.net.weights)


def test_training_on_openspiel_tic_tac_toe_through_shimmy_gives_farls_weights():
    pytest.importorskip("pyspiel")
    pytest.importorskip("shimmy")
    from farl_envs.adapters import adapt_openspiel_tic_tac_toe

    config = paper_config("tictactoe", episodes=60, learn_from_random_moves=False)
    on_farl, on_adapter = _same_training("tictactoe", adapt_openspiel_tic_tac_toe(), config)
    assert np.count_nonzero(on_farl.net.weights) > 0
    assert np.array_equal(on_farl.net.weights, on_adapter.net.weights)


def test_a_farl_env_copied_by_its_own_get_state_set_state_trains_like_itself():
    config = paper_config("nim", episodes=100)
    adapter = AfterstateAdapter(farl_envs.make("nim"), lambda raw: raw.board(), game=farl_envs.game_spec("nim"),
                                scratch=farl_envs.make_raw("nim"))
    on_farl, on_adapter = _same_training("nim", adapter, config)
    assert np.count_nonzero(on_farl.net.weights) > 0
    assert np.array_equal(on_farl.net.weights, on_adapter.net.weights)


# ---------------------------------------------------------------- encodings, by hand
def test_tictactoe_v3_squares_map_to_farls_cells_as_pettingzoo_draws_them():
    # PettingZoo numbers its squares by column (0 3 6 / 1 4 7 / 2 5 8 from the top left), farl by row
    # (0 1 2 / 3 4 5 / 6 7 8): farl's top-middle cell 1 is PettingZoo's square 3, its bottom-right 8 is 8.
    env = tictactoe.env()
    adapter = adapt_tictactoe_v3(env)
    adapter.reset()
    for cell in (0, 4, 1, 8):  # X top-left, O centre, X top-middle, O bottom-right
        adapter.step(cell)
    assert env.unwrapped.board.squares == [1, 0, 0, 1, 2, 0, 0, 0, 2]
    assert adapter.board().tolist() == [1, 1, 0, 0, 2, 0, 0, 0, 2]
    assert list(adapter.afterstates()) == [2, 3, 5, 6, 7]
    # farl's top-right cell 2 is PettingZoo's square 6; taking it completes X's top row (PettingZoo's line 0-3-6)
    win = adapter.afterstate(2)
    assert win.terminal and win.player == "player_1" and win.rewards == {"player_1": 1.0, "player_2": -1.0}
    assert win.board.tolist() == [1, 1, 1, 0, 2, 0, 0, 0, 2]
    assert adapter.board().tolist() == [1, 1, 0, 0, 2, 0, 0, 0, 2]  # looking ahead did not move the env
    assert not adapter.afterstate(3).terminal
    adapter.step(2)
    assert env.unwrapped.board.squares[6] == 1
    assert adapter.terminations == {"player_1": True, "player_2": True} and adapter.rewards["player_1"] == 1
    assert adapter.infos["player_1"]["afterstate"] is win


def test_connect_four_v3_board_marks_the_cells_a_disc_can_drop_into():
    env = connect_four.env()
    adapter = adapt_connect_four_v3(env)
    adapter.reset()
    for column in (3, 3, 0):  # X, O on top of it, X in the left corner
        adapter.step(column)
    expected = np.zeros((6, 7), dtype=int)
    expected[5] = 3            # empty bottom cells are playable ...
    expected[5, 3], expected[4, 3], expected[3, 3] = 1, 2, 3    # ... and so is the cell above a disc
    expected[5, 0], expected[4, 0] = 1, 3
    assert adapter.board().tolist() == expected.ravel().tolist()
    farl_env = farl_envs.make("connect_four")
    farl_env.reset()
    for column in (3, 3, 0):
        farl_env.step(column)
    assert adapter.board().tolist() == farl_env.unwrapped.board().tolist()


def test_connect_four_v3_vertical_four_is_a_win_seen_ahead():
    adapter = adapt_connect_four_v3()
    adapter.reset()
    for column in (0, 1, 0, 1, 0, 1):
        adapter.step(column)
    after = adapter.afterstate(0)
    assert after.terminal and after.player == "player_0"
    assert after.rewards == {"player_0": 1.0, "player_1": -1.0}
    assert not adapter.afterstate(2).terminal


def test_openspiel_tic_tac_toe_cells_follow_its_rows():
    pytest.importorskip("pyspiel")
    pytest.importorskip("shimmy")
    from farl_envs.adapters import adapt_openspiel_tic_tac_toe

    adapter = adapt_openspiel_tic_tac_toe()
    adapter.reset()
    for action in (4, 0, 5):  # OpenSpiel's action 3 * row + col: x centre, o top-left, x middle-right
        adapter.step(action)
    assert str(adapter.env.unwrapped.game_state).split() == ["o..", ".xx", "..."]
    assert adapter.board().tolist() == [2, 0, 0, 0, 1, 1, 0, 0, 0]
    assert adapter.afterstate(1).rewards == {"player_0": 0.0, "player_1": 0.0}
    adapter.step(1)
    assert adapter.afterstate(3).terminal  # x completes the middle row
    assert adapter.afterstate(3).rewards == {"player_0": 1.0, "player_1": -1.0}


def test_adapters_pass_pettingzoos_api_test():
    from pettingzoo.test import api_test

    api_test(adapt_tictactoe_v3(), num_cycles=20)
    api_test(adapt_connect_four_v3(), num_cycles=20)


def test_an_adapted_game_without_a_farl_spec_trains_an_agent():
    adapter = AfterstateAdapter(tictactoe.env(), lambda raw: np.asarray(raw.board.squares), 9, 3,
                                restore=restore_tictactoe_v3, scratch=_reset(tictactoe.raw_env()),
                                grid_shape=(3, 3))
    assert adapter.game.n_cells == 9 and adapter.game.n_actions == 9 and adapter.game.n_players == 2
    config = LearnerConfig(ntuples="random-walk", ntuple_count=4, ntuple_length=3, episodes=50, seed=5)
    agent = NTupleAgent(adapter.game, config)
    results = agent.train_aec(adapter, config.episodes)
    assert np.count_nonzero(agent.net.weights) > 0
    assert all(r["player_1"] + r["player_2"] == 0 for r in results)  # every game ended zero-sum


# ---------------------------------------------------------------- mistakes are caught
def test_deepcopy_of_an_ezpickle_env_is_refused_before_anything_is_learned():
    adapter = AfterstateAdapter(tictactoe.env(), lambda raw: np.asarray(raw.board.squares), 9, 3,
                                clone=copy.deepcopy, name="my ttt adapter")
    agent = NTupleAgent(adapter.game, LearnerConfig(ntuples="random-points", ntuple_count=2, ntuple_length=2))
    with pytest.raises(AdapterMismatchError, match=r"my ttt adapter: action \d.*not in the env's position.*deepcopy"):
        agent.train_aec(adapter, 1)


def test_a_copy_sharing_the_board_is_refused():
    def shallow(env):
        twin = object.__new__(type(env))
        twin.__dict__.update(env.__dict__)
        return twin

    adapter = AfterstateAdapter(tictactoe.env(), lambda raw: np.asarray(raw.board.squares), 9, 3, clone=shallow)
    adapter.reset()
    with pytest.raises(AdapterMismatchError, match="changed the env itself"):
        adapter.afterstates()


def test_clone_returning_the_env_itself_is_refused():
    adapter = AfterstateAdapter(tictactoe.env(), lambda raw: np.asarray(raw.board.squares), 9, 3,
                                clone=lambda env: env)
    adapter.reset()
    with pytest.raises(AdapterMismatchError, match="the env itself"):
        adapter.afterstates()


def test_a_step_the_copy_did_not_predict_raises_naming_the_adapter_and_action():
    # 2048 adds a random tile after each move: the scratch env draws it from its own generator, the played
    # env from another, so the position reached differs from the predicted one (the adapter is for games
    # without chance, and says so loudly instead of learning from wrong afterstates)
    adapter = AfterstateAdapter(farl_envs.make("game2048"), lambda raw: raw.board(),
                                game=farl_envs.game_spec("game2048"), scratch=_reset(farl_envs.make_raw("game2048")),
                                name="2048 adapter")
    adapter.reset(seed=1)
    with pytest.raises(AdapterMismatchError, match=r"2048 adapter: action \d \(the env's \d\) by player_0 .*board"):
        for _ in range(20):
            adapter.step(adapter.legal_actions()[0])


@pytest.mark.parametrize("kwargs,message", [
    ({}, "needs a way to copy the env.*deepcopy"),
    ({"restore": restore_tictactoe_v3}, "restore needs a scratch env"),
    ({"clone": copy.copy, "scratch": tictactoe.raw_env()}, "not both"),
    ({"scratch": tictactoe.raw_env()}, "get_state"),
])
def test_an_adapter_needs_exactly_one_way_to_copy(kwargs, message):
    with pytest.raises(ValueError, match=message):
        AfterstateAdapter(tictactoe.env(), lambda raw: np.asarray(raw.board.squares), 9, 3, **kwargs)


@pytest.mark.parametrize("actions", [[0, 0, 1], [0, 9], [], [0.5, 1]])
def test_actions_must_be_distinct_actions_of_the_env(actions):
    with pytest.raises(ValueError, match="distinct actions of the wrapped env"):
        AfterstateAdapter(tictactoe.env(), lambda raw: np.asarray(raw.board.squares), 9, 3, clone=copy.deepcopy,
                          actions=actions)


def test_sizes_come_from_the_game_or_the_arguments():
    with pytest.raises(ValueError, match="give n_cells and n_cell_values"):
        AfterstateAdapter(tictactoe.env(), lambda raw: raw.board.squares, clone=copy.deepcopy)
    with pytest.raises(ValueError, match="has 7 actions"):
        AfterstateAdapter(tictactoe.env(), lambda raw: raw.board.squares, clone=copy.deepcopy,
                          game=farl_envs.game_spec("connect_four"))


@pytest.mark.parametrize("encode,message", [
    (lambda raw: np.asarray(raw.board.squares[:8]), r"ttt: encode must return 9 integers.*shape \(8,\)"),
    (lambda raw: np.asarray(raw.board.squares) * 0.5, "ttt: encode must return 9 integers.*dtype float64"),
    (lambda raw: np.asarray(raw.board.squares) - 1, r"ttt: encode returned cell values outside 0\.\.2"),
])
def test_bad_encodings_are_named(encode, message):
    adapter = AfterstateAdapter(tictactoe.env(), encode, 9, 3, restore=restore_tictactoe_v3,
                                scratch=_reset(tictactoe.raw_env()), name="ttt")
    adapter.reset()
    with pytest.raises(ValueError, match=message):
        adapter.board()


def test_illegal_actions_are_refused_with_the_legal_ones():
    adapter = adapt_tictactoe_v3()
    adapter.reset()
    adapter.step(4)
    with pytest.raises(ValueError, match=r"illegal action 4; legal actions: \[0, 1, 2, 3, 5, 6, 7, 8\]"):
        adapter.afterstate(4)
    with pytest.raises(ValueError, match="illegal action 9"):
        adapter.step(9)


def test_the_adapter_asks_for_reset_first():
    adapter = adapt_tictactoe_v3()
    for use in (adapter.afterstates, adapter.board, adapter.action_mask, lambda: adapter.step(0)):
        with pytest.raises(RuntimeError, match="tictactoe_v3 adapter: call reset"):
            use()


def test_the_examples_of_the_adapter_guide_run():
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "adapters.md").read_text()
    blocks = [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "train_aec" in b]
    assert len(blocks) == 2
    for block in blocks:
        namespace: dict = {}
        exec(compile(block, "docs/adapters.md", "exec"), namespace)
        assert np.count_nonzero(namespace["agent"].net.weights) > 0


def test_an_agent_trained_through_a_ready_adapter_is_a_farl_agent(tmp_path):
    adapter = adapt_tictactoe_v3()
    agent = NTupleAgent(adapter.game, paper_config("tictactoe", episodes=20))
    agent.train_aec(adapter, 20)
    loaded = NTupleAgent.load(agent.save(tmp_path / "ttt.npz"), game="tictactoe")
    assert loaded.episodes_done == 20 and np.array_equal(loaded.net.weights, agent.net.weights)
    raw = farl_envs.make_raw("tictactoe")
    raw.reset(seed=0)
    raw.step(4)
    moves = [a.act(a.game, raw.get_state(), make_rng(7)) for a in (agent, loaded)]
    assert moves[0] == moves[1] and moves[0] in raw.legal_actions()  # it plays farl's game as it was trained


def test_training_on_an_env_without_the_extension_points_to_the_adapters():
    agent = NTupleAgent("tictactoe", LearnerConfig(ntuples="random-walk", ntuple_count=2, ntuple_length=3))
    with pytest.raises(TypeError, match="afterstates.*farl_envs.adapters"):
        agent.train_aec(tictactoe.env(), 1)
