"""Connect Four rules against facts known independently of this code.

The position counts are the published number of distinct Connect Four
positions after n plies on the standard 7x6 board (OEIS A212693); the
hand-checked games were worked out on paper. Wins and fours are checked here
with a separate whole-board scan (numpy slices), not with the kernel.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from numba import njit
from pettingzoo.test import api_test

from farl_envs import connect_four_v0
from farl_envs.core.rng import make_rng
from farl_envs.games import connect_four as cf

P76 = cf.make_spec().p  # 6 rows x 7 cols


# ----------------------------------------------------------------- helpers
def _grid(p, s):
    rows, cols = int(p[0]), int(p[1])
    return s[3 + cols:].reshape(rows, cols)


def _has_four(g, mark):
    """Independent whole-board scan for four ``mark`` in a row."""
    rows, cols = g.shape
    for r in range(rows):
        for c in range(cols):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + k * dr, c + k * dc) for k in range(4)]
                if all(0 <= y < rows and 0 <= x < cols and g[y, x] == mark for y, x in cells):
                    return True
    return False


def _play(moves, p=P76):
    """Play ``moves`` with the kernel (out-of-place); return the state and the last rewards."""
    s = cf.initial_state(p, make_rng(0))
    rew = np.zeros(2)
    mask = np.zeros(int(p[1]), dtype=np.int8)
    for a in moves:
        assert cf.legal_actions(p, s, mask) > 0 and mask[a] == 1
        out = np.empty_like(s)
        cf.afterstate(p, s, a, out, rew)
        s = out
    return s, rew


def _text(*rows):
    return "\n".join(rows)


# ----------------------------------------------------- position counting
@njit(cache=True)
def _key(p, s):
    """A unique int64 per board: per column, a bit per player_0 disc and a marker bit above the top disc."""
    rows, cols = p[0], p[1]
    base = 3 + cols
    key = 0
    for c in range(cols):
        shift = c * (rows + 1)
        h = 0
        for r in range(rows - 1, -1, -1):
            v = s[base + r * cols + c]
            if v == 0:
                break
            if v == 1:
                key |= 1 << (shift + h)
            h += 1
        key |= 1 << (shift + h)
    return key


@njit(cache=True)
def _expand(p, states, keys, parent, action):
    """All children of the non-terminal ``states``: their keys, parent rows and actions; returns the count."""
    mask = np.zeros(p[1], dtype=np.int8)
    rew = np.zeros(2)
    child = np.empty(states.shape[1], dtype=np.int32)
    n = 0
    for i in range(states.shape[0]):
        if states[i, 1]:
            continue
        cf.legal_actions(p, states[i], mask)
        for a in range(p[1]):
            if mask[a]:
                cf.afterstate(p, states[i], a, child, rew)
                keys[n] = _key(p, child)
                parent[n] = i
                action[n] = a
                n += 1
    return n


@njit(cache=True)
def _rebuild(p, states, parent, action):
    """The children ``afterstate(states[parent[j]], action[j])`` as rows of a new array."""
    out = np.empty((parent.shape[0], states.shape[1]), dtype=np.int32)
    rew = np.zeros(2)
    for j in range(parent.shape[0]):
        cf.afterstate(p, states[parent[j]], action[j], out[j], rew)
    return out


def test_distinct_positions_after_0_to_8_plies():
    """1, 7, 49, 238, 1120, 4263, 16422, 54859, 184275 (won positions counted, not extended)."""
    p = P76
    states = cf.initial_state(p, make_rng(0))[None, :].copy()
    counts = [1]
    for _ in range(8):
        m = states.shape[0] * 7
        keys, parent, action = np.empty(m, np.int64), np.empty(m, np.int64), np.empty(m, np.int64)
        n = _expand(p, states, keys, parent, action)
        _, first = np.unique(keys[:n], return_index=True)
        counts.append(len(first))
        states = _rebuild(p, states, parent[first], action[first])
    assert counts == [1, 7, 49, 238, 1120, 4263, 16422, 54859, 184275]
    # won positions after 8 plies are player_1's fours (checked by the independent scan)
    won = states[states[:, 1] == 1]
    assert len(won) > 0 and all(_has_four(_grid(p, s), 2) for s in won[:50])


# ------------------------------------------------------ hand-checked games
EMPTY = ". . . . . . ."
HEAD = "a b c d e f g"


@pytest.mark.parametrize("moves,text,rewards,over", [
    # bottom row a-d for X
    ([0, 0, 1, 1, 2, 2, 3],
     _text(HEAD, EMPTY, EMPTY, EMPTY, EMPTY, "O O O . . . .", "X X X X . . ."), (1, -1), True),
    # column a for X
    ([0, 1, 0, 1, 0, 1, 0],
     _text(HEAD, EMPTY, EMPTY, "X . . . . . .", "X O . . . . .", "X O . . . . .", "X O . . . . ."), (1, -1), True),
    # rising diagonal a1-b2-c3-d4 for X
    ([0, 1, 1, 2, 2, 3, 3, 3, 2, 6, 3],
     _text(HEAD, EMPTY, EMPTY, ". . . X . . .", ". . X O . . .", ". X X X . . .", "X O O O . . O"), (1, -1), True),
    # falling diagonal d4-e3-f2-g1 for X (the mirror image)
    ([6, 5, 5, 4, 4, 3, 3, 3, 4, 0, 3],
     _text(HEAD, EMPTY, EMPTY, ". . . X . . .", ". . . O X . .", ". . . X X X .", "O . . O O O X"), (1, -1), True),
])
def test_hand_checked_games(moves, text, rewards, over):
    s, rew = _play(moves)
    assert cf.render_text(P76, s) == text
    assert tuple(rew) == rewards
    assert bool(s[1]) == over
    assert cf.validate(P76, s) == ""
    # the four is on the board and the game was not over one move earlier
    assert _has_four(_grid(P76, s), 1)
    before, _ = _play(moves[:-1])
    assert not before[1] and not _has_four(_grid(P76, before), 1)


def test_player_1_wins_with_a_horizontal_four():
    moves = [0, 1, 1, 2, 2, 3, 4, 3, 6, 4]  # X a, O b, X b, O c, X c, O d, X e, O d, X g, O e
    s, rew = _play(moves)
    assert cf.render_text(P76, s) == _text(
        HEAD, EMPTY, EMPTY, EMPTY, EMPTY, ". X X O O . .", "X O O O X . X")
    assert not s[1] and tuple(rew) == (0, 0)
    s, rew = _play([0, 1, 0, 2, 6, 3, 0, 4])  # O takes b1 c1 d1 e1 while X stacks column a
    assert cf.render_text(P76, s) == _text(
        HEAD, EMPTY, EMPTY, EMPTY, "X . . . . . .", "X . . . . . .", "X O O O O . X")
    assert tuple(rew) == (-1, 1) and s[1] == 1 and s[0] == 0


# a full board without a four: columns alternate colours upwards, and the
# columns' bottom discs read X X O O X X O (worked out on paper)
DRAW_MOVES = ([0, 2, 2, 0] * 3) + ([1, 3, 3, 1] * 3) + ([4, 6, 6, 4] * 3) + [5] * 6
DRAW_TEXT = _text(HEAD,
                  "O O X X O O X",
                  "X X O O X X O",
                  "O O X X O O X",
                  "X X O O X X O",
                  "O O X X O O X",
                  "X X O O X X O")


def test_full_board_draw():
    s, rew = _play(DRAW_MOVES)
    assert len(DRAW_MOVES) == 42
    assert cf.render_text(P76, s) == DRAW_TEXT
    assert s[1] == 1 and s[2] == 42 and tuple(rew) == (0, 0)
    assert not _has_four(_grid(P76, s), 1) and not _has_four(_grid(P76, s), 2)
    assert cf.validate(P76, s) == ""
    mask = np.ones(7, dtype=np.int8)
    assert cf.legal_actions(P76, s, mask) == 0 and not mask.any()


def test_full_column_is_illegal():
    s, _ = _play([2] * 6)
    mask = np.zeros(7, dtype=np.int8)
    assert cf.legal_actions(P76, s, mask) == 6
    assert list(mask) == [1, 1, 0, 1, 1, 1, 1]
    env = connect_four_v0.raw_env()
    env.reset(seed=0)
    for a in [2] * 6:
        env.step(a)
    assert 2 not in env.legal_actions()
    with pytest.raises(ValueError, match="illegal action"):
        env.step(2)


def test_in_place_afterstate_matches_out_of_place():
    rng = make_rng(3)
    from farl_envs.core.rng import rng_choice_mask
    for _ in range(20):
        s = cf.initial_state(P76, rng)
        mask = np.zeros(7, dtype=np.int8)
        r1, r2 = np.zeros(2), np.zeros(2)
        while cf.legal_actions(P76, s, mask):
            a = rng_choice_mask(rng, mask)
            out = np.empty_like(s)
            cf.afterstate(P76, s, a, out, r1)
            before = s.copy()
            cf.afterstate(P76, s, a, s, r2)
            assert np.array_equal(out, s) and np.array_equal(r1, r2)
            # the kernel's win agrees with the independent scan
            mover = int(before[0]) + 1
            assert bool(s[1]) == (_has_four(_grid(P76, s), mover) or s[2] == 42)
            assert cf.validate(P76, s) == ""


# --------------------------------------------------------------- 6x8 board
def test_six_by_eight_board():
    spec = cf.make_spec(cols=8)
    p = spec.p
    assert spec.n_actions == 8 and spec.n_cells == 48 and spec.state_size == 3 + 8 + 48
    assert spec.obs_shape == (6, 8, 2) and spec.params == {"rows": 6, "cols": 8}
    assert spec.action_names == tuple("abcdefgh")
    s, rew = _play([4, 4, 5, 5, 6, 6, 7], p)  # X e1-h1
    empty = ". . . . . . . ."
    assert cf.render_text(p, s) == _text(
        "a b c d e f g h", empty, empty, empty, empty, ". . . . O O O .", ". . . . X X X X")
    assert tuple(rew) == (1, -1) and s[1] == 1


@pytest.mark.parametrize("params", [
    {"rows": 3}, {"cols": 3}, {"rows": 11}, {"cols": 11}, {"rows": "6"}, {"cols": 7.0}, {"rows": True},
])
def test_bad_params_raise_value_error(params):
    with pytest.raises(ValueError):
        cf.make_spec(**params)
    with pytest.raises(ValueError):
        connect_four_v0.env(**params)


def test_extreme_sizes_play_to_the_end():
    for rows, cols in [(4, 4), (10, 10), (4, 10), (10, 4)]:
        spec = cf.make_spec(rows=rows, cols=cols)
        env = connect_four_v0.raw_env(rows=rows, cols=cols)
        env.reset(seed=1)
        while env.legal_actions():
            env.step(env.legal_actions()[int(env.get_state()[2]) % len(env.legal_actions())])
        s = env.get_state()
        assert s[1] == 1 and spec.validate(spec.p, s) == ""


# --------------------------------------------------------------- validate
def _state(rows_text, to_move=None, terminal=0, p=P76):
    """A state from a picture (top row first, '.', 'X', 'O'), heights and counts derived."""
    rows, cols = int(p[0]), int(p[1])
    g = np.array([[".XO".index(ch) for ch in line.split()] for line in rows_text], dtype=np.int32)
    assert g.shape == (rows, cols)
    s = np.zeros(3 + cols + rows * cols, dtype=np.int32)
    s[3:3 + cols] = (g != 0).sum(axis=0)
    s[3 + cols:] = g.ravel()
    n = int((g != 0).sum())
    s[0] = n % 2 if to_move is None else to_move
    s[1] = terminal
    s[2] = n
    return s


def test_validate_refuses_a_floating_disc():
    s = _state([EMPTY, EMPTY, EMPTY, EMPTY, "X . . . . . .", EMPTY])
    assert "floating" in cf.validate(P76, s)
    env = connect_four_v0.raw_env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="floating"):
        env.set_state(s)


@pytest.mark.parametrize("picture,to_move,terminal,change,reason", [
    ([EMPTY] * 5 + ["X O . . . . ."], None, 0, None, ""),
    ([EMPTY] * 5 + ["X O . . . . ."], None, 0, ("height", 0, 2), "height"),
    ([EMPTY] * 5 + ["O O . . . . ."], None, 0, None, "moves first"),
    ([EMPTY] * 5 + ["X O . . . . ."], 1, 0, None, "player to move"),
    ([EMPTY] * 5 + ["X O . . . . ."], None, 0, ("ply", 3), "ply count"),
    ([EMPTY] * 5 + ["X O . . . . ."], None, 1, None, "terminal"),
    # a four for X, X moved last: a legal finished game (but flagged as running here)
    ([EMPTY] * 4 + ["O O O . . . .", "X X X X . . ."], None, 1, None, ""),
    ([EMPTY] * 4 + ["O O O . . . .", "X X X X . . ."], None, 0, None, "terminal"),
    # X has four but O moved last
    ([EMPTY] * 4 + ["O O O . . . .", "X X X X . . O"], None, 1, None, "player_1 has moved since"),
    # O has four but X moved last
    ([EMPTY] * 4 + ["X X X . . . .", "O O O O X . X"], None, 1, None, "player_0 has moved since"),
    # both have four
    ([EMPTY] * 4 + ["O O O O . . .", "X X X X . . ."], None, 1, None, "both players"),
    ([EMPTY, EMPTY, "O O O O . . .", "X X X X . . .", "O O O O . . .", "X X X X . . ."], None, 1, None,
     "both players"),
    # X's only top disc (d2) is not part of the four a1-d1: play went on after it
    ([EMPTY] * 4 + ["O O O X . . .", "X X X X . . O"], None, 1, None, "went on"),
    # ... whereas here d1 can have been the winning move
    ([EMPTY] * 4 + ["O O O . . . O", "X X X X . . X"], None, 1, None, ""),
])
def test_validate_reasons(picture, to_move, terminal, change, reason):
    s = _state(picture, to_move, terminal)
    if change is not None and change[0] == "height":
        s[3 + change[1]] = change[2]
    elif change is not None and change[0] == "ply":
        s[2] = change[1]
    msg = cf.validate(P76, s)
    if reason:
        assert reason in msg
    else:
        assert msg == ""


def test_validate_refuses_bad_shapes_and_values():
    s = cf.initial_state(P76, make_rng(0))
    assert "length" in cf.validate(P76, s[:-1])
    t = s.copy()
    t[3 + 7] = 5
    assert "cells must be" in cf.validate(P76, t)


# ------------------------------------------------ n-tuple board and views
def test_ntuple_board_marks_exactly_the_reachable_cells():
    rng = make_rng(7)
    from farl_envs.core.rng import rng_choice_mask
    spec = cf.make_spec()
    assert spec.n_cells == 42 and spec.n_cell_values == 4
    for _ in range(30):
        s = cf.initial_state(P76, rng)
        mask = np.zeros(7, dtype=np.int8)
        b = np.empty(42, dtype=np.int32)
        obs = np.empty((6, 7, 2), dtype=np.int8)
        while True:
            cf.board(P76, s, b)
            cf.observe(P76, s, 0, obs)
            g = obs[:, :, 0] * 1 + obs[:, :, 1] * 2  # seat 0's planes: own = player_0
            expected = g.copy()
            for c in range(7):
                empty_rows = np.flatnonzero(g[:, c] == 0)
                if len(empty_rows):
                    expected[empty_rows.max(), c] = 3
            assert np.array_equal(b.reshape(6, 7), expected)
            assert (b == 3).sum() == sum(1 for c in range(7) if (g[:, c] == 0).any())
            if not cf.legal_actions(P76, s, mask):
                break
            cf.afterstate(P76, s, rng_choice_mask(rng, mask), s, np.zeros(2))


def test_observation_planes_are_own_then_opponent_with_row_0_on_top():
    s, _ = _play([3, 3])  # X d1, O d2
    o0 = np.zeros((6, 7, 2), dtype=np.int8)
    o1 = np.zeros((6, 7, 2), dtype=np.int8)
    cf.observe(P76, s, 0, o0)
    cf.observe(P76, s, 1, o1)
    assert o0[5, 3, 0] == 1 and o0[4, 3, 1] == 1 and o0.sum() == 2
    assert o1[5, 3, 1] == 1 and o1[4, 3, 0] == 1 and o1.sum() == 2
    assert np.array_equal(o0[:, :, ::-1], o1)


def test_mirror_symmetry_maps_games_onto_mirrored_games():
    perms = cf.symmetries(P76)
    assert perms.shape == (2, 42) and list(perms[0]) == list(range(42))
    amap = cf.action_symmetries(P76)
    assert amap.shape == (2, 7) and list(amap[0]) == list(range(7)) and list(amap[1]) == [6, 5, 4, 3, 2, 1, 0]
    moves = [0, 1, 1, 2, 2, 3, 3, 3, 2, 6, 5]
    s, _ = _play(moves)
    m, _ = _play([int(amap[1][a]) for a in moves])
    b, bm = np.empty(42, np.int32), np.empty(42, np.int32)
    cf.board(P76, s, b)
    cf.board(P76, m, bm)
    assert np.array_equal(b[perms[1]], bm)


def test_spec_fields():
    spec = cf.make_spec()
    assert spec.id == "connect_four_v0" and spec.params == {"rows": 6, "cols": 7}
    assert spec.p.dtype == np.int64 and list(spec.p) == [6, 7]
    assert spec.n_actions == 7 and spec.state_size == 3 + 7 + 42 and spec.max_plies == 42
    assert len(spec.cell_colors) == 4 and spec.grid_shape == (6, 7)
    s = spec.initial_state(spec.p, make_rng(0))
    assert s.dtype == np.int32 and s.shape == (52,) and not s.any()
    assert spec.chance(spec.p, s, make_rng(0)) == -1


def test_rgb_render():
    env = connect_four_v0.env(render_mode="rgb_array")
    env.reset(seed=0)
    env.step(3)
    img = env.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3


# ------------------------------------------------------------ PettingZoo
@pytest.mark.parametrize("cols", [7, 8])
@pytest.mark.parametrize("raw", [False, True])
def test_pettingzoo_api_test(cols, raw):
    make = connect_four_v0.raw_env if raw else connect_four_v0.env
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(make(cols=cols), num_cycles=200)
