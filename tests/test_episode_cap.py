"""``episode_plies``: a time limit of training (GBG's episode length), not an end of the game.

A game's own cap (the cube's ``max_twists``) ends the game: the last afterstate's target is the final reward and
final adaptation pulls it towards 0. A training cap must do neither: a capped episode is cut where it stands.
The cube's cases run one episode through the AEC path (its steps are the ones every game shares, compiled once;
the compiled loop would compile the cube's own loop for one episode), whose cap matches the compiled loop's
(the TicTacToe case below).
"""
import numpy as np
import pytest

import farl_envs
from farl_agents.learners import LearnerConfig, NTupleAgent


def cube(max_twists: int):
    return farl_envs.game_spec("rubiks_cube", size=2, metric="half", scramble_min=8, scramble_max=8,
                               max_twists=max_twists)


def trained(game, algo: str, **settings) -> NTupleAgent:
    cfg = LearnerConfig(algo=algo, farl=algo == "td", farl_terminal=algo == "td", alpha=0.5, epsilon=0.0,
                        lam=0.0, tanh_output=False, ntuples="random-walk", ntuple_count=4, ntuple_length=3,
                        use_symmetry=False, episodes=10_000, seed=3, **settings)
    agent = NTupleAgent(game, cfg)
    agent.net.weights[...] = np.random.default_rng(0).normal(scale=0.1, size=agent.net.weights.shape)
    return agent


def test_a_one_ply_training_cap_changes_no_weight_where_the_games_own_cap_does():
    """One twist of a cube scrambled by 8 cannot solve it. With the game's cap at 1 twist the episode ends there
    and TD's final adaptation pulls that afterstate towards 0. With a training cap of 1 (the game allows 50)
    nothing follows the first move: no s_last to update, no end to adapt to."""
    for capped_by_game in (True, False):
        game = cube(1 if capped_by_game else 50)
        agent = trained(game, "td", episode_plies=0 if capped_by_game else 1)
        before = agent.net.weights.copy()
        totals = agent.train_aec(farl_envs.make("rubiks_cube", **game.params), 1)[0]
        assert totals["player_0"] < 0  # not solved: the step cost only
        assert (not np.array_equal(agent.net.weights, before)) == capped_by_game


def test_q_learning_bootstraps_at_a_training_cap_and_not_at_the_games_end():
    """Q-learning updates the first move once it sees the next state: inside a one-ply cap too. At the game's
    own cap the target is the final reward alone; at a training cap it adds max Q of the next state."""
    weights = []
    for capped_by_game in (True, False):
        agent = trained(cube(1 if capped_by_game else 50), "q", episode_plies=0 if capped_by_game else 1)
        game = agent.game
        before = agent.net.weights.copy()
        agent.train_aec(farl_envs.make("rubiks_cube", **game.params), 1)
        assert not np.array_equal(agent.net.weights, before)
        weights.append(agent.net.weights)
    assert not np.allclose(weights[0], weights[1])


def test_capped_episodes_stop_at_the_cap_and_learn_on_the_way():
    game = farl_envs.game_spec("tictactoe")
    agent = trained(game, "td", episode_plies=3)
    before = agent.net.weights.copy()
    res = agent.train(50)
    assert (res[:, -1] == 3).all()  # no TicTacToe game ends within 3 plies
    assert (res[:, :2] == 0).all()  # so nobody was rewarded
    assert not np.array_equal(agent.net.weights, before)  # the steps before the cap still learn


def test_the_aec_path_caps_as_the_compiled_loop_does():
    game = farl_envs.game_spec("tictactoe")
    a, b = trained(game, "td", episode_plies=4), trained(game, "td", episode_plies=4)
    a.train(20)
    b.train_aec(farl_envs.make("tictactoe"), 20)
    np.testing.assert_allclose(a.net.weights, b.net.weights, rtol=1e-5, atol=1e-7)


def test_a_negative_cap_is_refused():
    with pytest.raises(ValueError, match="episode_plies"):
        LearnerConfig(episode_plies=-1)
