"""The Chinese Checkers variant whose heuristic keeps spoilers an exit (studies/nplayer/cc_exits.py)."""
from __future__ import annotations

import numpy as np

import farl_envs
from farl_envs.core.rng import make_rng
from farl_envs.core.spec import TERMINAL
from farl_envs.games import chinese_checkers as cc
from studies.nplayer import cc_exits, cc_racer


def _walled_position(game):
    """player_1's peg on the tip of player_0's target, every neighbour and every hole behind one taken by
    player_0's pegs (as the racer's test builds it)."""
    s = np.array(game.initial_state(game.p, make_rng(0)), dtype=np.int32)
    target = cc_racer.target_holes(game.p, 0)
    point = (int(game.p[cc.P_HOMES]) + 3) % 6
    tip = int(next(h for h in target if cc.TIP_DISTANCE[point, h] == 0))
    s[cc.CELLS + tip] = 2
    for d in range(6):
        nb, behind = int(cc.NEIGHBOUR[tip, d]), int(cc.HOP[tip, d])
        if nb >= 0:
            s[cc.CELLS + nb] = 1
            if behind >= 0:
                s[cc.CELLS + behind] = 1
    return s


def test_the_variant_has_the_games_rules_and_parameters():
    plain = farl_envs.game_spec("chinese_checkers", players=3, max_moves=1000)
    variant = cc_exits.make_spec(players=3, max_moves=1000)
    assert variant.params == plain.params and np.array_equal(variant.p, plain.p)
    assert variant.afterstate is plain.afterstate and variant.legal_actions is plain.legal_actions
    assert variant.heuristic is not plain.heuristic and variant.name == cc_exits.NAME
    assert cc_exits.NAME not in farl_envs.list_games()  # importing the study registers nothing


def test_heuristic_equals_the_games_without_walled_in_spoilers_and_counts_them_like_the_racer():
    plain = farl_envs.game_spec("chinese_checkers", players=3, max_moves=1000)
    variant = cc_exits.make_spec(players=3, max_moves=1000)
    rng, env_rng = np.random.default_rng(3), make_rng(3)
    for _ in range(3):  # random play: pegs of every player drift into the others' targets
        s = np.array(plain.initial_state(plain.p, env_rng), dtype=np.int32)
        rewards = np.zeros(3)
        while not s[TERMINAL]:
            counts = [cc_exits.walled_in_count(plain.p, s, q) for q in range(3)]
            assert counts == [cc_racer.walled_in(plain, s, q) for q in range(3)]
            a, b = np.zeros(3), np.zeros(3)
            plain.heuristic(plain.p, s, a)
            variant.heuristic(variant.p, s, b)
            if sum(counts) == 0:
                assert np.allclose(a, b)
            mask = np.zeros(plain.n_actions, dtype=np.int8)
            plain.legal_actions(plain.p, s, mask)
            plain.afterstate(plain.p, s, int(rng.choice(np.flatnonzero(mask))), s, rewards)
    walls = 0
    for _ in range(200):  # crowded random boards (not reachable positions): walled-in pegs are common there
        s[cc.CELLS:cc.CELLS + cc.N_HOLES] = rng.choice(4, size=cc.N_HOLES, p=[0.3, 0.7 / 3, 0.7 / 3, 0.7 / 3])
        counts = [cc_exits.walled_in_count(plain.p, s, q) for q in range(3)]
        assert counts == [cc_racer.walled_in(plain, s, q) for q in range(3)]
        walls += sum(counts)
    assert walls > 50
    s = _walled_position(plain)
    assert cc_exits.walled_in_count(plain.p, s, 0) == 1
    a, b = np.zeros(3), np.zeros(3)
    plain.heuristic(plain.p, s, a)
    variant.heuristic(variant.p, s, b)
    # player_0's progress drops by the penalty: its value by 0.45 * penalty, the others' rise by half that
    penalty = 0.45 * cc_racer.EXITS_PENALTY
    assert np.allclose(b - a, [-penalty, penalty / 2, penalty / 2])
