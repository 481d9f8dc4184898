"""2048 rules against boards worked out by hand (tile values, not exponents)."""
from __future__ import annotations

import numpy as np
import pytest

from farl_envs import game2048_v0
from farl_envs.core.rng import make_rng
from farl_envs.games import game2048 as g

P = np.zeros(1, dtype=np.int64)
UP, RIGHT, DOWN, LEFT = 0, 1, 2, 3


def _state(rows, ply=0, terminal=0) -> np.ndarray:
    """A state from 4 rows of tile values (0 empty)."""
    s = np.zeros(g.STATE_SIZE, dtype=np.int32)
    s[1], s[2] = terminal, ply
    s[3:] = [0 if v == 0 else int(v).bit_length() - 1 for row in rows for v in row]
    return s


def _values(s) -> list:
    return [[0 if e == 0 else 2 ** int(e) for e in s[3 + 4 * r: 3 + 4 * r + 4]] for r in range(4)]


def _after(s, a):
    out = np.empty_like(s)
    rew = np.zeros(1)
    g.afterstate(P, s, a, out, rew)
    return out, float(rew[0])


def _legal(s) -> set:
    mask = np.zeros(4, dtype=np.int8)
    n = g.legal_actions(P, s, mask)
    assert n == int(mask.sum())
    return set(int(a) for a in np.flatnonzero(mask))


A = [[2, 2, 2, 2],
     [2, 2, 4, 0],
     [4, 4, 4, 0],
     [2, 0, 2, 4]]

B = [[4, 4, 8, 8],
     [8, 8, 8, 8],
     [0, 2, 2, 2],
     [16, 0, 0, 16]]


@pytest.mark.parametrize("start,action,expected,score", [
    (A, LEFT, [[4, 4, 0, 0],
               [4, 4, 0, 0],
               [8, 4, 0, 0],
               [4, 4, 0, 0]], 8 + 4 + 8 + 4),
    (A, RIGHT, [[0, 0, 4, 4],
                [0, 0, 4, 4],
                [0, 0, 4, 8],
                [0, 0, 4, 4]], 8 + 4 + 8 + 4),
    (A, UP, [[4, 4, 2, 2],
             [4, 4, 8, 4],
             [2, 0, 2, 0],
             [0, 0, 0, 0]], 4 + 4 + 8),
    (A, DOWN, [[0, 0, 0, 0],
               [4, 0, 2, 0],
               [4, 4, 8, 2],
               [2, 4, 2, 4]], 4 + 4 + 8),
    (B, LEFT, [[8, 16, 0, 0],
               [16, 16, 0, 0],
               [4, 2, 0, 0],
               [32, 0, 0, 0]], 24 + 32 + 4 + 32),
    (B, RIGHT, [[0, 0, 8, 16],
                [0, 0, 16, 16],
                [0, 0, 2, 4],
                [0, 0, 0, 32]], 24 + 32 + 4 + 32),
    # B turned on its side: its rows become columns
    (np.array(B).T.tolist(), UP, np.array([[8, 16, 0, 0],
                                           [16, 16, 0, 0],
                                           [4, 2, 0, 0],
                                           [32, 0, 0, 0]]).T.tolist(), 92),
    (np.array(B).T.tolist(), DOWN, np.array([[0, 0, 8, 16],
                                             [0, 0, 16, 16],
                                             [0, 0, 2, 4],
                                             [0, 0, 0, 32]]).T.tolist(), 92),
])
def test_hand_checked_moves(start, action, expected, score):
    s = _state(start, ply=5)
    assert action in _legal(s)
    out, rew = _after(s, action)
    assert _values(out) == expected
    assert rew == score
    assert list(out[:3]) == [0, 0, 6]
    inplace = s.copy()
    rew2 = np.zeros(1)
    g.afterstate(P, inplace, action, inplace, rew2)
    assert np.array_equal(inplace, out) and rew2[0] == score


@pytest.mark.parametrize("rows,legal", [
    ([[2, 4, 2, 4], [4, 2, 4, 2], [2, 4, 2, 4], [4, 2, 4, 0]], {RIGHT, DOWN}),
    ([[2, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]], {RIGHT, DOWN}),
    ([[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 2]], {LEFT, UP}),
    ([[0, 0, 0, 0], [0, 0, 0, 0], [0, 8, 0, 0], [0, 0, 0, 0]], {UP, RIGHT, DOWN, LEFT}),
    ([[2, 2, 4, 8], [4, 8, 16, 32], [8, 16, 32, 64], [16, 32, 64, 128]], {LEFT, RIGHT}),
    ([[2, 4, 8, 16], [2, 8, 16, 32], [4, 16, 32, 64], [8, 32, 64, 128]], {UP, DOWN}),
    ([[2, 4, 8, 16], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]], {DOWN}),
    ([[2, 4, 8, 16], [4, 8, 16, 32], [0, 0, 0, 0], [0, 0, 0, 0]], {DOWN}),
    ([[4, 0, 0, 4], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]], {LEFT, RIGHT, DOWN}),
])
def test_mask_is_exactly_the_moves_that_change_the_board(rows, legal):
    s = _state(rows)
    assert g.validate(P, s) == ""
    assert _legal(s) == legal
    for a in range(4):  # cross-check against the board each move produces
        out, _ = _after(s, a)
        assert (a in legal) == (not np.array_equal(out[3:], s[3:]))


def test_full_board_without_merges_is_terminal():
    rows = [[2, 4, 2, 4], [4, 2, 4, 2], [2, 4, 2, 4], [4, 2, 4, 2]]
    s = _state(rows)
    assert "terminal" in g.validate(P, s)
    s[1] = 1
    assert g.validate(P, s) == "" and _legal(s) == set()
    s = _state([[2, 4, 2, 4], [4, 2, 4, 2], [2, 4, 2, 4], [4, 2, 4, 4]])
    assert g.validate(P, s) == "" and _legal(s) == {UP, RIGHT, DOWN, LEFT}  # 4 4 in row 4 and in column d


def test_last_tile_ends_the_game_only_when_nothing_merges():
    start = [[2, 4, 2, 4], [4, 2, 4, 2], [2, 4, 2, 4], [4, 2, 4, 0]]
    s = _state(start)
    assert g.chance_outcomes(P, s) == [(15, 2, 0.9), (15, 4, pytest.approx(0.1))]
    two = s.copy()
    assert g.place_tile(P, two, 15, 2) == 30
    assert two[1] == 1 and _legal(two) == set() and g.validate(P, two) == ""
    four = s.copy()
    assert g.place_tile(P, four, 15, 4) == 31
    assert four[1] == 0 and _legal(four) == {UP, RIGHT, DOWN, LEFT} and g.validate(P, four) == ""
    rng = make_rng(11)
    for _ in range(50):
        t = s.copy()
        code = g.chance(P, t, rng)
        assert code in (30, 31) and t[1] == (code == 30)


def test_afterstate_never_ends_the_game():
    rng = make_rng(3)
    s = g.initial_state(P, rng)
    rew = np.zeros(1)
    mask = np.zeros(4, dtype=np.int8)
    while not s[1]:
        n = g.legal_actions(P, s, mask)
        assert n > 0
        a = int(np.flatnonzero(mask)[int(rng[0] % n)])
        g.afterstate(P, s, a, s, rew)
        assert s[1] == 0 and np.any(s[3:] == 0)
        g.chance(P, s, rng)
        assert g.validate(P, s) == ""
    assert _legal(s) == set()


def test_chance_tile_distribution():
    s = _state([[2, 0, 4, 0], [0, 8, 0, 2], [4, 0, 0, 16], [0, 2, 4, 0]])
    empty = [int(c) for c in np.flatnonzero(s[3:] == 0)]
    assert len(empty) == 8
    rng = make_rng(2024)
    draws = 16000
    cells = np.zeros(16, dtype=np.int64)
    fours = 0
    for _ in range(draws):
        t = s.copy()
        code = g.chance(P, t, rng)
        cell, is_four = code >> 1, code & 1
        changed = np.flatnonzero(t[3:] != s[3:])
        assert list(changed) == [cell] and t[3 + cell] == (2 if is_four else 1)
        cells[cell] += 1
        fours += is_four
    assert 0.08 < fours / draws < 0.12
    assert cells[[c for c in range(16) if c not in empty]].sum() == 0
    expected = draws / len(empty)
    chi2 = float(np.sum((cells[empty] - expected) ** 2 / expected))
    assert chi2 < 30  # 7 degrees of freedom: p ~ 1e-4


def test_initial_state_has_two_tiles_and_follows_the_seed():
    for seed in range(20):
        s = g.initial_state(P, make_rng(seed))
        tiles = s[3:][s[3:] != 0]
        assert len(tiles) == 2 and set(tiles) <= {1, 2}
        assert list(s[:3]) == [0, 0, 0] and g.validate(P, s) == ""
    starts = {g.initial_state(P, make_rng(seed)).tobytes() for seed in range(20)}
    assert len(starts) > 10


def _play(seed):
    env = game2048_v0.env()
    env.reset(seed=seed)
    raw = env.unwrapped
    states, total = [raw.get_state()], 0.0
    while not raw.state_array[1]:
        raw.step(raw.legal_actions()[0])
        states.append(raw.get_state())
        total += raw.rewards["player_0"]
    return states, total


def test_same_seed_same_game():
    a, score_a = _play(5)
    b, score_b = _play(5)
    c, _ = _play(6)
    assert len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b)) and score_a == score_b
    assert len(a) != len(c) or not all(np.array_equal(x, y) for x, y in zip(a, c))
    assert score_a > 0


def test_env_reports_the_chance_tile():
    env = game2048_v0.env()
    env.reset(seed=1)
    raw = env.unwrapped
    a = raw.legal_actions()[0]
    after = raw.afterstate(a)
    raw.step(a)
    cell, tile = raw.infos["player_0"]["chance"]
    assert after.state[3 + cell] == 0 and raw.get_state()[3 + cell] == (1 if tile == 2 else 2)


def test_top_tiles_do_not_merge_and_ntuple_caps_at_15():
    s = _state([[2 ** 17, 2 ** 17, 2 ** 16, 2 ** 15], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]])
    assert _legal(s) == {DOWN}
    b = np.zeros(16, dtype=np.int32)
    g.board(P, s, b)
    assert list(b[:4]) == [15, 15, 15, 15] and g.MAX_EXPONENT_NTUPLE == 15
    obs = np.zeros((4, 4), dtype=np.int8)
    g.observe(P, s, 0, obs)
    assert list(obs[0]) == [17, 17, 16, 15]
    s[3] = 18
    assert "exponents" in g.validate(P, s)


def test_validate():
    s = _state([[2, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 2]])
    assert g.validate(P, s) == ""
    for i, v in ((0, 1), (1, 1), (3, -1)):
        bad = s.copy()
        bad[i] = v
        assert g.validate(P, bad) != ""
    assert "tile" in g.validate(P, _state([[0] * 4] * 4))


def test_render_text():
    s = _state([[2, 0, 0, 0], [0, 128, 0, 0], [0, 0, 0, 0], [0, 0, 0, 2048]])
    assert g.render_text(P, s).splitlines() == [
        "   2    .    .    .", "   .  128    .    .", "   .    .    .    .", "   .    .    . 2048"]


def test_symmetries_and_spec():
    spec = game2048_v0.raw_env().game
    assert spec.n_players == 1 and spec.n_actions == 4 and spec.n_cell_values == 16
    assert spec.obs_shape == (4, 4) and spec.obs_high == 17 and spec.reward_range == (0.0, 2.0 ** 18)
    perms = g.symmetries(P)
    assert perms.shape == (8, 16) and len({p.tobytes() for p in perms}) == 8


def test_api_test():
    from pettingzoo.test import api_test

    api_test(game2048_v0.env(), num_cycles=200)
