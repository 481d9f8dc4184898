"""PUCT with chance nodes (``+chance<N>``, closed loop): a child per drawn outcome, its own position and priors.

The open-loop search (``+mcts<N>``, GBG's wrapper) keeps one node per sequence of actions; with chance nodes the
node an action leads to is a chance node whose children are the outcomes drawn there. These tests read the tree
the search leaves behind and check it against the game itself: the outcomes are real outcomes of the afterstate,
their visits add up to the chance node's, each outcome node's priors cover exactly the moves legal in its own
position, and on a game without chance nothing changes.
"""
from __future__ import annotations

import numpy as np
import pytest

import farl_envs
from farl_agents import pretrained
from farl_agents.learners.agent import NTupleAgent
from farl_agents.loading import load_player
from farl_agents.opponents import make_opponent
from farl_agents.opponents.puct import PUCT
from farl_agents.opponents.wrappers import split_wrapped
from farl_envs.core.rng import make_rng
from farl_envs.core.spec import TERMINAL


def _tree(player):
    """children, visits, prior, expanded and the outcome links of the search's last tree."""
    children, visits, _wsum, prior, expanded, links = player._bufs[:6]
    return children, visits, prior, expanded, links


def _outcomes(links, chance_node):
    """``{code: node}`` of the outcome children of ``chance_node``."""
    out, node = {}, links[chance_node, 0]
    while node >= 0:
        assert int(links[node, 2]) not in out, "two children for one outcome"
        out[int(links[node, 2])] = int(node)
        node = links[node, 1]
    return out


def _legal(game, s):
    mask = np.zeros(game.n_actions, dtype=np.int8)
    game.legal_actions(game.p, s, mask)
    return mask


def _visited_root_moves(player, game, s):
    """``(chance node, afterstate, {code: outcome node})`` of every root move the search visited."""
    children, _visits, _prior, _expanded, links = _tree(player)
    rew = np.zeros(game.n_players)
    for a in np.flatnonzero(_legal(game, s)):
        if children[0, a] >= 0:
            after = np.zeros_like(s)
            game.afterstate(game.p, s, int(a), after, rew)
            yield children[0, a], after, _outcomes(links, children[0, a])


def test_without_chance_the_tree_is_the_open_loop_tree():
    agent = pretrained.load("tictactoe")
    game = agent.game
    s = game.initial_state(game.p, make_rng(0))
    results = []
    for chance_nodes in (False, True):
        visits, means = PUCT(agent, 300, chance_nodes=chance_nodes).search(game, s, make_rng(3))
        results.append((visits, np.nan_to_num(means, nan=9.0)))
    assert np.array_equal(results[0][0], results[1][0]) and np.allclose(results[0][1], results[1][1])
    assert results[0][0].sum() == 299  # every iteration after the root's expansion passes one root action


def test_each_2048_tile_drawn_gets_its_own_node_and_the_visits_add_up():
    agent = pretrained.load("game2048")
    game = agent.game
    s = game.initial_state(game.p, make_rng(5))
    player = PUCT(agent, 400, chance_nodes=True)
    player.search(game, s, make_rng(1))
    visits = _tree(player)[1]
    assert player.iterations + 1 < player.last_nodes <= 2 * player.iterations + 1
    board = np.zeros(16, dtype=np.int32)
    seen = 0
    for c, after, outcomes in _visited_root_moves(player, game, s):
        game.board(game.p, after, board)
        assert outcomes, "a visited move of 2048 has its tile drawn"
        for code in outcomes:
            cell, four = divmod(code, 2)
            assert 0 <= cell < 16 and board[cell] == 0, f"tile drawn on the occupied cell {cell}"
        # the afterstate of a 2048 move never ends the game: every visit went on to one drawn tile
        assert visits[c] == sum(visits[o] for o in outcomes.values())
        seen += len(outcomes)
    assert seen > 4  # several different tiles, not one node per move as in the open loop


def test_each_ewn_roll_is_its_own_position_with_the_agents_priors_for_it():
    game = farl_envs.game_spec("einstein_wurfelt_nicht", players=2, size=5, cell_coding=1)
    agent = NTupleAgent(game)  # untrained: every move valued alike, so the priors are uniform over its legal moves
    s = game.initial_state(game.p, make_rng(2))
    player = PUCT(agent, 600, chance_nodes=True)
    player.search(game, s, make_rng(4))
    _children, visits, prior, expanded, _links = _tree(player)
    checked = 0
    for c, after, outcomes in _visited_root_moves(player, game, s):
        assert set(outcomes) <= set(range(6))
        if after[TERMINAL]:
            assert not outcomes
            continue
        assert visits[c] == sum(visits[o] for o in outcomes.values())
        for code, o in outcomes.items():
            if not expanded[o]:
                continue
            rolled = after.copy()
            rolled[farl_envs.games.einstein_wurfelt_nicht.ROLL] = code + 1
            mask = _legal(game, rolled)
            assert np.all((prior[o] >= 0) == (mask != 0)), "priors on exactly the moves this roll allows"
            assert prior[o][mask != 0].sum() == pytest.approx(1.0)
            checked += 1
    assert checked >= 6  # several rolls after several moves were expanded as positions of their own


def test_the_chance_wrapper_by_name():
    assert tuple(split_wrapped("pretrained+chance200")) == ("pretrained", "chance", 200)
    player = make_opponent("pretrained+chance50", "game2048")
    assert isinstance(player, PUCT) and player.chance_nodes and player.name.endswith("+chance50")
    assert make_opponent("pretrained+mcts50", "game2048").chance_nodes is False
    with pytest.raises(ValueError, match=r"has none: use \+mcts10"):
        load_player("pretrained+chance10", farl_envs.game_spec("tictactoe"))
    with pytest.raises(ValueError, match="chance_nodes must be True or False"):
        PUCT(pretrained.load("game2048"), 10, chance_nodes="yes")


def test_the_tree_size_counts_the_outcome_nodes():
    agent = pretrained.load("game2048")
    game = agent.game
    open_loop, closed = PUCT(agent, 1000), PUCT(agent, 1000, chance_nodes=True)
    assert closed.node_bytes(game) > 1.9 * open_loop.node_bytes(game)
    ttt = pretrained.load("tictactoe")
    assert PUCT(ttt, 1000, chance_nodes=True).node_bytes(ttt.game) == PUCT(ttt, 1000).node_bytes(ttt.game)
