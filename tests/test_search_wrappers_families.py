"""The PUCT wrapper around the learner families whose values live in Python or torch (Nemesh, descent's f_θ,
the SB3 baselines' MaskablePPO value head and DQN's Q-values), through the value protocol of
``farl_agents/opponents/value_protocol.py``.

What is checked against reasoning independent of the search: the Python-driven search is the compiled one
(a TD n-tuple agent seen through the protocol gives the very same visit counts as the compiled loop, also with
chance and three players); each family's ``afterstate_values`` keeps the protocol (NaN rows exactly for
illegal moves, zero-sum rows, terminal moves worth their reward alone); one iteration plays the agent's own
greedy move; on a position where the threat must be blocked a 200-iteration wrapper blocks whatever the agent;
whole games through :func:`~farl_agents.evaluate.evaluate`; agent files through ``load_player``; the compiled
depth-first wrappers refuse these agents and name ``+mcts<N>``.

Tiny agents: Nemesh 20 games against random, descent 1 s of self-play, PPO / DQN 1,000 env steps (skipped
without the ``baselines`` extra).
"""
from __future__ import annotations

import numpy as np
import pytest

import farl_envs
from farl_agents import pretrained
from farl_agents.descent.agent import DescentAgent, load_agent
from farl_agents.descent.trainer import DescentConfig, DescentTrainer
from farl_agents.evaluate import evaluate
from farl_agents.learners.agent import NTupleAgent
from farl_agents.learners.config import LearnerConfig
from farl_agents.loading import load_player
from farl_agents.nemesh import NemeshAgent
from farl_agents.nemesh.trainer import Session, train
from farl_agents.opponents.puct import PUCT
from farl_agents.opponents.value_protocol import AfterstateValues
from farl_agents.opponents.wrappers import split_wrapped, wrap
from farl_envs.core.rng import make_rng
from farl_envs.core.spec import TERMINAL, TO_MOVE

TTT = farl_envs.game_spec("tictactoe")
C4 = farl_envs.game_spec("connect_four")
FAMILIES = ("nemesh", "descent", "ppo", "dqn")


def position(game, actions):
    """The kernel state after ``actions`` from the start (no chance in these games)."""
    s = game.initial_state(game.p, make_rng(0))
    rew = np.zeros(game.n_players)
    for a in actions:
        game.afterstate(game.p, s, a, s, rew)
    return s


# X threatens to complete a line and the mover has no win of its own: the one move that does not lose.
BLUNDER = {"tictactoe": ([0, 4, 1], 2),              # X on 0 and 1, O on 4: O must take 2
           "connect_four": ([0, 0, 1, 1, 2], 3)}     # X on the bottom of columns 0-2, O above 0 and 1: O plays 3


@pytest.fixture(scope="module")
def agents(tmp_path_factory):
    """``family -> (player, saved file)``: a tiny trained agent of each family (SB3 ones only with the extra)."""
    out = {}
    folder = tmp_path_factory.mktemp("families")
    nemesh = NemeshAgent(rows=6, cols=7, depth=2, seed=1)
    train(nemesh, (Session("random", 20, 2, 0),))
    out["nemesh"] = (nemesh, nemesh.save(folder / "nemesh.npz"))
    trainer = DescentTrainer(DescentConfig(game="tictactoe", minutes=0.02, move_iterations=10, seed=3))
    trainer.run(1.0)
    descent = DescentAgent(trainer.game, trainer.evaluation, trainer.heuristic, name="descent")
    descent.save(folder / "descent.npz")
    out["descent"] = (descent, folder / "descent.npz")
    try:
        import sb3_contrib  # noqa: F401
        import torch
    except ImportError:
        return out
    torch.set_num_threads(1)
    from farl_agents.baselines.players import SB3Player
    from farl_agents.baselines.train import train_baseline

    for name, algo, extra in (("ppo", "maskable-ppo", {}), ("dqn", "dqn", {"learning_starts": 200})):
        model, info = train_baseline("tictactoe", algo, timesteps=1000, seed=0, opponent="random",
                                     out=folder / name, eval_points=1, eval_games=2, hyperparams=extra or None)
        out[name] = (SB3Player(model, TTT), info["files"]["model"])
    return out


def family(agents, name):
    if name not in agents:
        pytest.skip("needs the baselines extra (sb3_contrib, torch)")
    return agents[name]


@pytest.mark.slow  # compiles the searches around a Python protocol player for this test alone (~30 CPU s)
def test_a_td_agent_through_the_python_protocol_searches_exactly_as_the_compiled_loop():
    class ThroughPython:
        """A TD n-tuple agent's leaf values (as :mod:`~.leaf_values` computes them) as a Python protocol player."""

        def __init__(self, agent):
            self.agent, self.game, self.name = agent, agent.game, "python-view"

        def afterstate_values(self, game, state):
            scale = 1.0 / self.agent.config.reward_scale
            mask = np.zeros(game.n_actions, dtype=np.int8)
            game.legal_actions(game.p, state, mask)
            out, after, rew = np.full((game.n_actions, game.n_players), np.nan), np.zeros_like(state), None
            mover = int(state[TO_MOVE])
            for a in np.flatnonzero(mask):
                rew = np.zeros(game.n_players)
                game.afterstate(game.p, state, int(a), after, rew)
                vec = np.zeros(game.n_players)
                if not after[TERMINAL] and game.n_players == 2:
                    v = self.agent.afterstate_value(after, mover) * scale
                    vec[:] = -v
                    vec[mover] = v
                elif not after[TERMINAL]:
                    vec[:] = [self.agent.afterstate_value(after, i) * scale for i in range(game.n_players)]
                out[a] = rew + vec
            return out

    # two players (TicTacToe), chance with one player (2048), chance with three players (EinStein): one game per
    # branch of the leaf and of the search; a second two-player game without chance would only compile the
    # compiled loop once more (~20 CPU s cold)
    for name, iterations in (("tictactoe", 300), ("game2048", 200), ("einstein_wurfelt_nicht", 200)):
        agent = pretrained.load(name)
        view = ThroughPython(agent)
        assert isinstance(view, AfterstateValues) and not isinstance(agent, AfterstateValues)
        game = agent.game
        s = game.initial_state(game.p, make_rng(4))
        compiled, python = PUCT(agent, iterations), PUCT(view, iterations)
        v1, q1 = compiled.search(game, s, make_rng(9))
        v2, q2 = python.search(game, s, make_rng(9))
        assert python._leaf is None and compiled._leaf is not None  # the two paths were taken
        np.testing.assert_array_equal(v1, v2, err_msg=name)
        np.testing.assert_allclose(q1, q2, rtol=1e-12, atol=1e-12, err_msg=name)
        assert compiled.last_nodes == python.last_nodes


@pytest.mark.parametrize("name", FAMILIES)
def test_afterstate_values_keep_the_protocol(agents, name):
    player, _ = family(agents, name)
    assert isinstance(player, AfterstateValues)
    game = player.game
    moves, _ = BLUNDER[game.name]
    s = position(game, moves)
    vals = player.afterstate_values(game, s)
    mask = np.zeros(game.n_actions, dtype=np.int8)
    game.legal_actions(game.p, s, mask)
    assert vals.shape == (game.n_actions, 2)
    assert np.isnan(vals[mask == 0]).all() and np.isfinite(vals[mask != 0]).all()
    np.testing.assert_allclose(vals[mask != 0, 0], -vals[mask != 0, 1])  # two players, zero-sum
    # a move that ends the game is worth its reward alone: X to move wins at once on 2
    won = position(game, [0, 4, 1, 5] if game.name == "tictactoe" else [0, 6, 0, 6, 0, 6])
    win_move = 2 if game.name == "tictactoe" else 0
    assert player.afterstate_values(game, won)[win_move].tolist() == [1.0, -1.0]


@pytest.mark.parametrize("name", FAMILIES)
def test_one_iteration_plays_the_agents_greedy_move(agents, name):
    player, _ = family(agents, name)
    game = player.game
    s = position(game, [4, 0] if game.name == "tictactoe" else [3, 3, 2])
    q = player.afterstate_values(game, s)[:, int(s[TO_MOVE])]
    greedy = set(np.flatnonzero(q == np.nanmax(q)).tolist())
    for seed in range(3):
        assert PUCT(player, 1).act(game, s, make_rng(seed)) in greedy


@pytest.mark.parametrize("name", FAMILIES)
def test_a_200_iteration_wrapper_blocks_whatever_the_agent(agents, name):
    player, _ = family(agents, name)
    game = player.game
    moves, block = BLUNDER[game.name]
    s = position(game, moves)
    wrapped = wrap(player, split_wrapped(f"{player.name}+mcts200"), game)
    assert isinstance(wrapped, PUCT)
    assert {wrapped.act(game, s, make_rng(seed)) for seed in range(4)} == {block}


@pytest.mark.parametrize("name", FAMILIES)
def test_wrapped_agents_play_whole_legal_games(agents, name):
    player, _ = family(agents, name)
    r = evaluate(player.game, [PUCT(player, 20)], "random", n_games=2, seed=1)
    assert r.matchups[0].n_games == 4


@pytest.mark.parametrize("name", FAMILIES)
def test_saved_agents_load_wrapped_and_the_compiled_searches_name_mcts(agents, name):
    _, path = family(agents, name)
    player, game = load_player(f"agent:{path}+mcts20", None)
    assert isinstance(player, PUCT) and player.name == f"agent:{path}+mcts20"
    moves, block = BLUNDER[game.name]
    assert player.act(game, position(game, moves), make_rng(0)) in range(game.n_actions)
    for search in ("maxn2", "paranoid2"):
        with pytest.raises(ValueError, match=r"\+mcts<N>"):
            load_player(f"agent:{path}+{search}", None)


def test_players_without_values_are_still_refused():
    for inner in ("random", "mcts10"):
        with pytest.raises(ValueError, match="afterstate value"):
            load_player(f"{inner}+mcts10", TTT)
    sarsa = NTupleAgent("tictactoe", LearnerConfig(algo="sarsa"))
    with pytest.raises(ValueError, match="action values"):
        wrap(sarsa, split_wrapped("sarsa+mcts10"), TTT)


def test_a_protocol_player_of_another_game_is_refused():
    nemesh = NemeshAgent(rows=6, cols=7, depth=2)
    with pytest.raises(ValueError, match="plays connect_four"):
        wrap(nemesh, split_wrapped("x+mcts10"), farl_envs.game_spec("connect_four", rows=5, cols=6))


def test_descent_values_are_the_first_players_f_theta(agents):
    descent, path = agents["descent"]
    again = load_agent(path)
    s = position(TTT, [4, 0])
    np.testing.assert_array_equal(descent.afterstate_values(TTT, s), again.afterstate_values(TTT, s))
    # the row of a move is f_θ of its afterstate (first player's view) over the heuristic's scale
    after, rew = np.zeros_like(s), np.zeros(2)
    TTT.afterstate(TTT.p, s, 8, after, rew)
    board = np.zeros(TTT.n_cells, dtype=np.int32)
    TTT.board(TTT.p, after, board)
    v = descent.evaluation.values(board[None])[0] / descent.evaluation.scale
    assert descent.afterstate_values(TTT, s)[8] == pytest.approx([v, -v])


@pytest.mark.slow  # ~7 s, descent's Amazons search
def test_descent_values_a_half_made_amazons_turn_by_its_best_completion():
    from farl_agents.descent.evaluation import NTupleEvaluation
    from farl_agents.descent.heuristics import make_heuristic

    game = farl_envs.game_spec("amazons", board_size=6)
    heuristic = make_heuristic("classic", game)
    ev = NTupleEvaluation(game, heuristic.scale, True)
    ev.set_weights(np.random.default_rng(0).normal(0.0, 0.3, ev.weights.shape).astype(np.float32))
    agent = DescentAgent(game, ev, heuristic, name="descent-amazons")
    s = game.initial_state(game.p, make_rng(0))
    vals = agent.afterstate_values(game, s)
    mask = np.zeros(game.n_actions, dtype=np.int8)
    game.legal_actions(game.p, s, mask)
    first = int(np.flatnonzero(mask)[0])  # the first queen the mover (player 0) can lift

    def completions(state):  # the boards after every way to finish the mover's turn, walked with the kernels
        m = np.zeros(game.n_actions, dtype=np.int8)
        game.legal_actions(game.p, state, m)
        for a in np.flatnonzero(m):
            nxt, rew = np.zeros_like(state), np.zeros(2)
            game.afterstate(game.p, state, int(a), nxt, rew)
            if nxt[TO_MOVE] == s[TO_MOVE] and not nxt[TERMINAL]:
                yield from completions(nxt)
            else:
                board = np.zeros(game.n_cells, dtype=np.int32)
                game.board(game.p, nxt, board)
                yield board

    lifted, rew = np.zeros_like(s), np.zeros(2)
    game.afterstate(game.p, s, first, lifted, rew)
    best = ev.values(np.stack(list(completions(lifted)))).max() / ev.scale
    assert vals[first] == pytest.approx([best, -best])


def test_sb3_values_with_three_players_and_with_one():
    pytest.importorskip("sb3_contrib")
    import torch

    from farl_agents.baselines.envs import observe_state
    from farl_agents.baselines.players import SB3Player
    from farl_agents.baselines.train import build_model

    ewn = farl_envs.game_spec("einstein_wurfelt_nicht", players=3)
    model, _ = build_model(ewn, "maskable-ppo", seed=0, opponent="random", n_envs=1)
    player = SB3Player(model, ewn)
    s = ewn.initial_state(ewn.p, make_rng(2))
    vals = player.afterstate_values(ewn, s)
    a = int(np.flatnonzero(~np.isnan(vals[:, 0]))[0])
    after, rew = np.zeros_like(s), np.zeros(3)
    ewn.afterstate(ewn.p, s, a, after, rew)
    with torch.no_grad():  # each player read from its own view of the afterstate
        obs = np.stack([observe_state(ewn, after, i)[0] for i in range(3)])
        v = model.policy.predict_values(torch.as_tensor(obs)).numpy().reshape(-1)
    np.testing.assert_allclose(vals[a], rew + v, rtol=1e-6)
    assert evaluate(ewn, [PUCT(player, 10)], "random", n_games=1, seed=1).matchups[0].n_games == 3
    g2048 = farl_envs.game_spec("game2048")
    model, _ = build_model(g2048, "dqn", seed=0, opponent="random", n_envs=1)
    player = SB3Player(model, g2048)
    assert player.afterstate_values(g2048, g2048.initial_state(g2048.p, make_rng(0))).shape == (4, 1)
    assert PUCT(player, 10).act(g2048, g2048.initial_state(g2048.p, make_rng(0)), make_rng(1)) in range(4)
