"""Chinese Checkers' heuristic (games/chinese_checkers.py): race progress less a penalty per walled-in spoiler.

A walled-in spoiler is another player's peg in a player's target that can neither step nor hop, and could with that
player's pegs off the board. The count is checked against the rules themselves (the legal actions of the spoiler's
owner), the value against the formula worked by hand.
"""
from __future__ import annotations

import numpy as np

import farl_envs
from farl_envs.core.rng import make_rng
from farl_envs.core.spec import TERMINAL, TO_MOVE
from farl_envs.games import chinese_checkers as cc


def _game():
    return farl_envs.game_spec("chinese_checkers", players=3, max_moves=1000)


def _target(game, seat):
    return cc.POINTS[(int(game.p[cc.P_HOMES + seat]) + 3) % 6]


def _moves_from(game, s, hole, owner):
    """Does ``owner``, to move with no chain in progress, have a legal action from ``hole``?"""
    t = s.copy()
    t[TO_MOVE], t[TERMINAL], t[cc.HOP_FROM] = owner, 0, -1
    mask = np.zeros(game.n_actions, dtype=np.int8)
    game.legal_actions(game.p, t, mask)
    return bool(mask[cc.N_DIRECTIONS * hole:cc.N_DIRECTIONS * (hole + 1)].any())


def _count_by_the_rules(game, s, seat):
    """Spoilers in ``seat``'s target from which their owner has no legal action, but would have one with
    ``seat``'s pegs off the board."""
    cleared = s.copy()
    cells = cleared[cc.CELLS:cc.CELLS + cc.N_HOLES]
    cells[cells == seat + 1] = 0
    count = 0
    for h in _target(game, seat):
        owner = int(s[cc.CELLS + h]) - 1
        if owner >= 0 and owner != seat:
            count += not _moves_from(game, s, h, owner) and _moves_from(game, cleared, h, owner)
    return count


def _by_hand(game, s):
    """0.45 (own progress - mean of the others'), clipped to +-0.49, progress less 0.2 per walled-in spoiler."""
    progress = np.zeros(3)
    cc.race_progress(game.p, s, progress)
    progress -= [cc.WALLED_IN_PENALTY * _count_by_the_rules(game, s, q) for q in range(3)]
    relative = np.array([progress[q] - np.delete(progress, q).mean() for q in range(3)])
    return np.clip(0.45 * relative, -0.49, 0.49)


def _walled_position(game):
    """player_1's peg on the tip of player_0's target, each of its neighbours and each hole behind one taken by
    player_0's pegs."""
    s = np.array(game.initial_state(game.p, make_rng(0)), dtype=np.int32)
    point = (int(game.p[cc.P_HOMES]) + 3) % 6
    tip = int(next(h for h in _target(game, 0) if cc.TIP_DISTANCE[point, h] == 0))
    s[cc.CELLS + tip] = 2
    for d in range(cc.N_DIRECTIONS):
        nb, behind = int(cc.NEIGHBOUR[tip, d]), int(cc.HOP[tip, d])
        if nb >= 0:
            s[cc.CELLS + nb] = 1
            if behind >= 0:
                s[cc.CELLS + behind] = 1
    return s, tip


def test_the_walled_in_count_is_the_spoilers_without_a_legal_action():
    game, rng = _game(), np.random.default_rng(3)
    s = np.array(game.initial_state(game.p, make_rng(0)), dtype=np.int32)
    walls = 0
    for _ in range(200):  # crowded random boards (not reachable positions): walled-in pegs are common there
        s[cc.CELLS:cc.CELLS + cc.N_HOLES] = rng.choice(4, size=cc.N_HOLES, p=[0.3, 0.7 / 3, 0.7 / 3, 0.7 / 3])
        counts = [cc.walled_in_count(game.p, s, q) for q in range(3)]
        assert counts == [_count_by_the_rules(game, s, q) for q in range(3)]
        walls += sum(counts)
    assert walls > 50


def test_pegs_blocked_only_by_their_own_are_not_walled_in():
    # two players: each starts in the other's target; its tip peg and the two in the row behind it have no move
    # (the third row hops over the fourth into the centre), walled in by nobody
    game = farl_envs.game_spec("chinese_checkers", players=2)
    s = np.array(game.initial_state(game.p, make_rng(0)), dtype=np.int32)
    stuck = sum(not _moves_from(game, s, h, 1) for h in _target(game, 0))
    assert stuck == 3
    assert cc.walled_in_count(game.p, s, 0) == 0 and cc.walled_in_count(game.p, s, 1) == 0


def test_a_walled_in_spoiler_costs_its_victim_the_penalty_and_freeing_it_gives_it_back():
    game = _game()
    s, tip = _walled_position(game)
    assert cc.walled_in_count(game.p, s, 0) == 1 and cc.walled_in_count(game.p, s, 1) == 0
    walled = np.zeros(3)
    game.heuristic(game.p, s, walled)
    # open one hole behind a neighbour: the spoiler can hop out, the count is 0
    d = next(d for d in range(cc.N_DIRECTIONS) if cc.HOP[tip, d] >= 0)
    free = s.copy()
    free[cc.CELLS + int(cc.HOP[tip, d])] = 0
    assert cc.walled_in_count(game.p, free, 0) == 0
    # the hole's peg is player_0's: take its progress out by hand, the rest of the difference is the penalty
    progress_walled, progress_free = np.zeros(3), np.zeros(3)
    cc.race_progress(game.p, s, progress_walled)
    cc.race_progress(game.p, free, progress_free)
    opened = np.zeros(3)
    game.heuristic(game.p, free, opened)
    race_part = 0.45 * (progress_walled[0] - progress_free[0])
    # player_0's value drops by 0.45 * 0.2 for the wall; the others' rise by half that
    assert np.allclose(walled - opened, [race_part - 0.45 * 0.2, -race_part / 2 + 0.45 * 0.1,
                                         -race_part / 2 + 0.45 * 0.1])


def test_heuristic_matches_the_formula_by_hand_along_random_games():
    game, rng, env_rng = _game(), np.random.default_rng(5), make_rng(5)
    checked = 0
    for _ in range(2):
        s = np.array(game.initial_state(game.p, env_rng), dtype=np.int32)
        rewards, value = np.zeros(3), np.zeros(3)
        while not s[TERMINAL] and checked < 3000:
            game.heuristic(game.p, s, value)
            assert np.allclose(value, _by_hand(game, s))
            mask = np.zeros(game.n_actions, dtype=np.int8)
            game.legal_actions(game.p, s, mask)
            game.afterstate(game.p, s, int(rng.choice(np.flatnonzero(mask))), s, rewards)
            checked += 1
    assert checked > 500
