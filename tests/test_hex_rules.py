"""Hex rules against facts known independently of this code.

Connections are checked with a breadth-first search written here (not the
kernel's flood fill, not the module's ``validate``). The Hex theorem says a
full board holds exactly one connection; the hand-drawn positions were
worked out on paper.
"""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test

from farl_envs import hex_v0
from farl_envs.core.rng import make_rng, rng_choice_mask
from farl_envs.games import hex as hx


def _p(n):
    return np.array([n], dtype=np.int64)


def _neighbours(n, r, c):
    """The six cells touching (r, c) on the rhombus (the two on the long diagonal do not)."""
    for y, x in ((r, c - 1), (r, c + 1), (r - 1, c), (r + 1, c), (r - 1, c + 1), (r + 1, c - 1)):
        if 0 <= y < n and 0 <= x < n:
            yield y, x


def _bfs_connected(g, mark):
    """Does ``mark`` (1 top-bottom, 2 left-right) join its two edges in grid ``g``?"""
    n = g.shape[0]
    if mark == 1:
        start = [(0, c) for c in range(n) if g[0, c] == 1]
        done = lambda y, x: y == n - 1  # noqa: E731
    else:
        start = [(r, 0) for r in range(n) if g[r, 0] == 2]
        done = lambda y, x: x == n - 1  # noqa: E731
    seen = set(start)
    frontier = list(start)
    while frontier:
        nxt = []
        for y, x in frontier:
            if done(y, x):
                return True
            for yy, xx in _neighbours(n, y, x):
                if (yy, xx) not in seen and g[yy, xx] == mark:
                    seen.add((yy, xx))
                    nxt.append((yy, xx))
        frontier = nxt
    return False


def _state(g, terminal=0):
    """A state for grid ``g`` with header derived from the stone counts."""
    n = g.shape[0]
    s = np.zeros(3 + n * n, dtype=np.int32)
    s[3:] = g.ravel()
    k = int((g != 0).sum())
    s[0], s[1], s[2] = k % 2, terminal, k
    return s


def _play(n, moves):
    p = _p(n)
    s = hx.initial_state(p, make_rng(0))
    rew = np.zeros(2)
    mask = np.zeros(n * n, dtype=np.int8)
    for a in moves:
        assert hx.legal_actions(p, s, mask) > 0 and mask[a] == 1
        out = np.empty_like(s)
        hx.afterstate(p, s, a, out, rew)
        s = out
    return s, rew


# ------------------------------------------------------- the Hex theorem
def _full_boards(n):
    """Every full board of size ``n`` with player_0 holding ceil(n*n/2) stones."""
    cells = n * n
    for ones in itertools.combinations(range(cells), (cells + 1) // 2):
        g = np.full(cells, 2, dtype=np.int32)
        g[list(ones)] = 1
        yield g.reshape(n, n)


@pytest.mark.parametrize("n,count", [(2, 6), (3, 126)])
def test_every_full_board_has_exactly_one_winner(n, count):
    boards = list(_full_boards(n))
    assert len(boards) == count
    for g in boards:
        assert _bfs_connected(g, 1) != _bfs_connected(g, 2)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7])
def test_random_full_boards_have_exactly_one_winner(n):
    rng = np.random.default_rng(n)
    for _ in range(200):
        g = np.full(n * n, 2, dtype=np.int32)
        g[rng.permutation(n * n)[:(n * n + 1) // 2]] = 1
        g = g.reshape(n, n)
        w0, w1 = _bfs_connected(g, 1), _bfs_connected(g, 2)
        assert w0 != w1
        # the module's own check (used by validate) agrees
        assert hx._connected(g, 1) == w0 and hx._connected(g, 2) == w1


def test_kernel_detects_every_last_move_on_3x3():
    """For every full 3x3 board and every stone of the last mover: does placing it connect?"""
    p = _p(3)
    rew = np.zeros(2)
    checked = 0
    for g in _full_boards(3):  # player_0 has 5 stones, so player_0 moved last
        for cell in np.flatnonzero(g.ravel() == 1):
            before = g.copy()
            before.flat[cell] = 0
            if _bfs_connected(before, 1) or _bfs_connected(before, 2):
                continue  # the game would already be over
            s = _state(before)
            out = np.empty_like(s)
            hx.afterstate(p, s, int(cell), out, rew)
            won = _bfs_connected(g, 1)
            assert bool(out[1]) == won
            assert tuple(rew) == ((1.0, -1.0) if won else (0.0, 0.0))
            assert np.array_equal(out[3:], g.ravel()) and out[0] == 1 and out[2] == 9
            checked += 1
    assert checked > 100


@pytest.mark.parametrize("n,games", [(2, 50), (3, 50), (4, 50), (5, 40), (6, 40), (7, 30), (9, 10), (11, 5), (13, 5)])
def test_kernel_winner_agrees_with_bfs_in_random_games(n, games):
    p = _p(n)
    rng = make_rng(100 + n)
    mask = np.zeros(n * n, dtype=np.int8)
    rew = np.zeros(2)
    for _ in range(games):
        s = hx.initial_state(p, rng)
        while hx.legal_actions(p, s, mask):
            mover = int(s[0])
            a = rng_choice_mask(rng, mask)
            hx.afterstate(p, s, a, s, rew)  # in place
            g = s[3:].reshape(n, n)
            connected = _bfs_connected(g, mover + 1)
            assert bool(s[1]) == connected
            assert not _bfs_connected(g, 2 - mover)
            if connected:
                assert rew[mover] == 1.0 and rew[1 - mover] == -1.0
            else:
                assert not rew.any()
        assert s[1] == 1 and s[2] <= n * n  # every game ends with a winner
        assert hx.validate(p, s) == ""


# ------------------------------------------------------- hand-drawn games
def test_straight_column_of_player_0_wins_on_3x3():
    s, rew = _play(3, [1, 0, 4, 3, 7])  # X b1 b2 b3, O a1 a2
    assert hx.render_text(_p(3), s) == "a b c\nO X .  1\n O X .  2\n  . X .  3"
    assert s[1] == 1 and tuple(rew) == (1, -1) and s[0] == 1


def test_zigzag_chain_through_the_up_right_neighbour_wins():
    # X c1 (0,2), b2 (1,1), a3 (2,0): each step is (r+1, c-1), a neighbour
    s, rew = _play(3, [2, 0, 4, 3, 6])
    assert hx.render_text(_p(3), s) == "a b c\nO . X  1\n O X .  2\n  X . .  3"
    assert s[1] == 1 and tuple(rew) == (1, -1)


def test_chain_along_the_long_diagonal_does_not_connect():
    # X a1 (0,0), b2 (1,1), c3 (2,2): (r+1, c+1) is not a neighbour
    s, rew = _play(3, [0, 2, 4, 6, 8])
    assert hx.render_text(_p(3), s) == "a b c\nX . O  1\n . X .  2\n  O . X  3"
    assert s[1] == 0 and tuple(rew) == (0, 0)
    # ... b1 (0,1) then b3 (2,1) join b2 to the top and the bottom rows
    s, rew = _play(3, [0, 2, 4, 6, 8, 3, 1, 5])
    assert s[1] == 0
    s, rew = _play(3, [0, 2, 4, 6, 8, 3, 1, 5, 7])
    assert s[1] == 1 and tuple(rew) == (1, -1)


def test_player_1_connects_left_and_right():
    # O a2 b2 c2 across the middle row; X a1 b1 a3 never reach the bottom
    s, rew = _play(3, [0, 3, 1, 4, 6, 5])
    assert hx.render_text(_p(3), s) == "a b c\nX X .  1\n O O O  2\n  X . .  3"
    assert s[1] == 1 and tuple(rew) == (-1, 1) and s[0] == 0


def test_player_1_zigzag_uses_the_up_right_neighbour():
    # O a2 (1,0) -> b1 (0,1) is (r-1, c+1): adjacent; then b1 -> c1 (0,2)
    s, rew = _play(3, [4, 3, 7, 1, 6, 2])
    assert s[1] == 1 and tuple(rew) == (-1, 1)


def test_no_moves_after_a_win():
    s, _ = _play(3, [1, 0, 4, 3, 7])
    mask = np.ones(9, dtype=np.int8)
    assert hx.legal_actions(_p(3), s, mask) == 0 and not mask.any()


def _negamax(p, s):
    """+1 when the player to move wins with perfect play, -1 otherwise (no draws in Hex)."""
    n2 = int(p[0]) ** 2
    mask = np.zeros(n2, dtype=np.int8)
    hx.legal_actions(p, s, mask)
    best = -1
    for a in np.flatnonzero(mask):
        out = np.empty_like(s)
        rew = np.zeros(2)
        hx.afterstate(p, s, int(a), out, rew)
        v = 1 if out[1] else -_negamax(p, out)
        best = max(best, v)
    return best


def test_first_player_wins_2x2_with_perfect_play():
    p = _p(2)
    assert _negamax(p, hx.initial_state(p, make_rng(0))) == 1


# ------------------------------------------------------------- validate
def test_validate_reasons():
    p = _p(3)
    g = np.array([[1, 2, 0], [0, 0, 0], [0, 0, 0]], dtype=np.int32)
    assert hx.validate(p, _state(g)) == ""
    s = _state(g)
    s[2] = 3
    assert "ply count" in hx.validate(p, s)
    s = _state(g)
    s[0] = 1
    assert "player to move" in hx.validate(p, s)
    assert "moves first" in hx.validate(p, _state(np.array([[2, 2, 0], [0, 0, 0], [0, 0, 0]])))
    assert "moves first" in hx.validate(p, _state(np.array([[1, 1, 0], [0, 0, 0], [0, 0, 0]])))
    won = np.array([[2, 1, 0], [2, 1, 0], [0, 1, 0]], dtype=np.int32)
    assert hx.validate(p, _state(won, terminal=1)) == ""
    assert "terminal" in hx.validate(p, _state(won, terminal=0))
    # player_0 connected, then player_1 moved
    late = np.array([[2, 1, 0], [2, 1, 0], [2, 1, 0]], dtype=np.int32)
    assert "player_1 has moved since" in hx.validate(p, _state(late, terminal=1))
    # b2 can have been the winning move here (c1-b2 touch: (r+1, c-1)) ...
    last_b2 = np.array([[2, 1, 1], [2, 1, 2], [0, 1, 0]], dtype=np.int32)
    assert hx.validate(p, _state(last_b2, terminal=1)) == ""
    # ... but two disjoint connections cannot both have been made by one last stone
    went_on = np.array([[1, 2, 2, 1], [1, 2, 2, 1], [1, 2, 2, 1], [1, 2, 0, 1]], dtype=np.int32)
    assert "went on" in hx.validate(_p(4), _state(went_on, terminal=1))
    bad = _state(g)
    bad[5] = 7
    assert "cells must be" in hx.validate(p, bad)
    assert "length" in hx.validate(p, _state(g)[:-1])


def test_set_state_refuses_an_illegal_position():
    env = hex_v0.raw_env(size=3)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="moves first"):
        env.set_state(_state(np.array([[2, 2, 0], [0, 0, 0], [0, 0, 0]])))


# ------------------------------------------------ spec, views, symmetries
@pytest.mark.parametrize("size", [1, 14, "6", 6.0, True, None])
def test_bad_size_raises_value_error(size):
    with pytest.raises(ValueError):
        hx.make_spec(size)
    with pytest.raises(ValueError):
        hex_v0.env(size=size)


def test_spec_fields():
    spec = hx.make_spec()
    assert spec.id == "hex_v0" and spec.params == {"size": 6} and list(spec.p) == [6]
    assert spec.n_actions == 36 and spec.n_cells == 36 and spec.n_cell_values == 3
    assert spec.state_size == 39 and spec.obs_shape == (6, 6, 2) and spec.max_plies == 36
    assert spec.hex_grid and spec.grid_shape == (6, 6) and len(spec.cell_colors) == 3
    assert spec.action_names[:3] == ("a1", "b1", "c1") and spec.action_names[6] == "a2"
    s = spec.initial_state(spec.p, make_rng(0))
    assert s.dtype == np.int32 and s.shape == (39,) and not s.any()
    assert spec.chance(spec.p, s, make_rng(0)) == -1


def test_observation_planes_and_board():
    p = _p(4)
    s, _ = _play(4, [5, 10])
    o0, o1 = np.zeros((4, 4, 2), np.int8), np.zeros((4, 4, 2), np.int8)
    hx.observe(p, s, 0, o0)
    hx.observe(p, s, 1, o1)
    assert o0[1, 1, 0] == 1 and o0[2, 2, 1] == 1 and o0.sum() == 2
    assert np.array_equal(o0[:, :, ::-1], o1)
    b = np.empty(16, np.int32)
    hx.make_spec(size=4).board(p, s, b)  # the default board kernel: the cells as stored
    assert b[5] == 1 and b[10] == 2 and b.sum() == 3


def test_rotation_keeps_each_players_connections():
    perms = hx.symmetries(_p(5))
    assert perms.shape == (2, 25) and list(perms[0]) == list(range(25)) and list(perms[1]) == list(range(24, -1, -1))
    rng = np.random.default_rng(0)
    for _ in range(100):
        g = rng.integers(0, 3, 25).astype(np.int32)
        r = g[perms[1]].reshape(5, 5)
        g = g.reshape(5, 5)
        assert _bfs_connected(g, 1) == _bfs_connected(r, 1)
        assert _bfs_connected(g, 2) == _bfs_connected(r, 2)


def test_action_symmetries_map_games_onto_rotated_games():
    p = _p(5)
    perms, amap = hx.symmetries(p), hx.action_symmetries(p)
    assert amap.shape == (2, 25) and list(amap[1]) == list(range(24, -1, -1))
    moves = [0, 7, 12, 3, 20, 21]
    s, _ = _play(5, moves)
    r, _ = _play(5, [int(amap[1][a]) for a in moves])
    assert np.array_equal(s[3:][perms[1]], r[3:])


def test_rgb_render_and_text_indent():
    env = hex_v0.env(size=4, render_mode="rgb_array")
    env.reset(seed=0)
    env.step(0)
    img = env.render()
    assert img.dtype == np.uint8 and img.shape[2] == 3
    text = hx.render_text(_p(4), env.unwrapped.get_state()).split("\n")
    assert [len(line) - len(line.lstrip()) for line in text[1:]] == [0, 1, 2, 3]


# ------------------------------------------------------------ PettingZoo
@pytest.mark.parametrize("size,raw", [(6, False), (6, True), (2, False), (11, False)])
def test_pettingzoo_api_test(size, raw):
    make = hex_v0.raw_env if raw else hex_v0.env
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(make(size=size), num_cycles=200)
