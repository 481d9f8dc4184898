"""Outer-Open Gomoku rules against a second, simple implementation and hand-drawn positions.

The reference below (``_Ref``) keeps the board as a list of lists, finds the
opening band from the distance to the nearest edge and looks for a five by
scanning every window of five cells on the board; the kernel counts the run
through the new stone. The hand positions were worked out on paper.
"""
from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import farl_envs
from farl_agents.evaluate import evaluate
from farl_agents.opponents import make_opponent
from farl_envs import outer_open_gomoku_v0
from farl_envs.core.kernels import kernels_of
from farl_envs.core.playout import random_playout
from farl_envs.core.rng import make_rng, rng_choice_mask
from farl_envs.core.spec import HEADER, PLY, TERMINAL, TO_MOVE
from farl_envs.games import outer_open_gomoku as oog


def _p(n):
    return np.array([n], dtype=np.int64)


class _Ref:
    """Outer-Open Gomoku written plainly: list-of-lists board, whole-board scan for five."""

    def __init__(self, n):
        self.n = n
        self.g = [[0] * n for _ in range(n)]
        self.ply = 0
        self.to_move = 0
        self.winner = None
        self.over = False

    def legal(self):
        if self.over:
            return set()
        n = self.n
        out = set()
        for r in range(n):
            for c in range(n):
                if self.g[r][c]:
                    continue
                if self.ply == 0 and not (r <= 1 or c <= 1 or r >= n - 2 or c >= n - 2):
                    continue
                out.add(r * n + c)
        return out

    def five(self, mark):
        n = self.n
        for r in range(n):
            for c in range(n):
                for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    cells = [(r + k * dr, c + k * dc) for k in range(5)]
                    if all(0 <= y < n and 0 <= x < n and self.g[y][x] == mark for y, x in cells):
                        return True
        return False

    def play(self, a):
        assert a in self.legal()
        mark = self.to_move + 1
        self.g[a // self.n][a % self.n] = mark
        self.ply += 1
        if self.five(mark):
            self.over, self.winner = True, self.to_move
        elif self.ply == self.n * self.n:
            self.over = True
        self.to_move = 1 - self.to_move


def _state(g, terminal=0):
    """A state for grid ``g`` (``[n, n]``) with the header derived from the stone counts."""
    g = np.asarray(g, dtype=np.int32)
    n = g.shape[0]
    s = np.zeros(HEADER + n * n, dtype=np.int32)
    s[HEADER:] = g.ravel()
    k = int((g != 0).sum())
    s[TO_MOVE], s[TERMINAL], s[PLY] = k % 2, terminal, k
    return s


def _grid(rows):
    """A grid from strings: ``.`` empty, ``X`` player_0, ``O`` player_1."""
    return np.array([[".XO".index(ch) for ch in row] for row in rows], dtype=np.int32)


def _play(n, moves):
    p = _p(n)
    s = oog.initial_state(p, make_rng(0))
    rew = np.zeros(2)
    mask = np.zeros(n * n, dtype=np.int8)
    for a in moves:
        assert oog.legal_actions(p, s, mask) > 0 and mask[a] == 1, a
        oog.afterstate(p, s, a, s, rew)
    return s, rew


def _after(s, cell):
    n = int(round((s.shape[0] - HEADER) ** 0.5))
    out, rew = np.empty_like(s), np.zeros(2)
    oog.afterstate(_p(n), s, cell, out, rew)
    return out, rew


# ------------------------------------------------------------ the opening rule
@pytest.mark.parametrize("n,count", [(15, 225 - 11 * 11), (5, 25 - 1), (6, 36 - 4), (7, 49 - 9), (19, 361 - 15 * 15)])
def test_first_stone_only_on_the_two_outer_lines(n, count):
    p = _p(n)
    s = oog.initial_state(p, make_rng(0))
    mask = np.zeros(n * n, dtype=np.int8)
    assert oog.legal_actions(p, s, mask) == count
    inner = [r * n + c for r in range(2, n - 2) for c in range(2, n - 2)]
    assert not mask[inner].any() and mask.sum() == count
    assert mask[0] and mask[n + 1] and mask[n * n - 1]  # a corner, the cell diagonally inside it, the last corner
    # after any first stone, every other cell (the centre too) is open to player_1
    s, _ = _play(n, [1])
    assert oog.legal_actions(p, s, mask) == n * n - 1 and mask[(n // 2) * n + n // 2]


def test_a_first_stone_in_the_centre_is_refused_by_the_env():
    env = outer_open_gomoku_v0.env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="legal actions"):
        env.step(7 * 15 + 7)  # h8, the centre of the 15x15 board
    env.step(2 * 15 + 1)  # b3: column b is the second line
    env.step(7 * 15 + 7)  # player_1 may take the centre
    assert env.unwrapped.get_state()[PLY] == 2


# ------------------------------------------------------------ hand-drawn wins
def test_horizontal_five_wins_and_four_does_not():
    # X on row 1 (a1..d1), O on row 3 (the board is 9x9); X's fifth stone e1 wins
    n = 9
    moves = [0, 18, 1, 19, 2, 20, 3]
    s, rew = _play(n, moves)
    assert s[TERMINAL] == 0 and not rew.any()  # four in a row: nothing yet
    s2, rew = _play(n, moves + [21])  # O makes four too
    assert s2[TERMINAL] == 0
    s3, rew = _play(n, moves + [21, 4])
    assert s3[TERMINAL] == 1 and tuple(rew) == (1.0, -1.0)
    assert oog.render_text(_p(n), s3).split("\n")[1] == "X X X X X . . . .  1"


def test_vertical_and_both_diagonal_fives():
    g = _grid([".......",
               "X......",
               "X.O....",
               "X..O...",
               "X...O..",
               ".....O.",
               "......."])
    s = _state(g)  # X to move? 4 X, 4 O: player_0 to move
    assert s[TO_MOVE] == 0
    out, rew = _after(s, 5 * 7 + 0)  # a6 completes the column a2..a6
    assert out[TERMINAL] == 1 and tuple(rew) == (1.0, -1.0)
    out, rew = _after(s, 0)  # a1 completes a1..a5 as well
    assert out[TERMINAL] == 1
    # O's diagonal c3 d4 e5 f6: X plays elsewhere, then O completes with b2 or g7
    s2, _ = _after(s, 6 * 7 + 6)
    s2[HEADER + 6 * 7 + 6] = 0
    s2[HEADER + 6 * 7 + 0] = 1  # X on a7 instead (no five: a2..a5 and a7 with a6 empty)
    for cell in (1 * 7 + 1, 6 * 7 + 6):
        out, rew = _after(s2, cell)
        assert out[TERMINAL] == 1 and tuple(rew) == (-1.0, 1.0)
    out, rew = _after(s2, 0 * 7 + 0)  # a1 is on neither line of O
    assert out[TERMINAL] == 0
    # the anti-diagonal: X on e1 d2 c3 b4 -> a5 wins (cells (0,4) (1,3) (2,2) (3,1) (4,0))
    g = _grid(["....X..",
               "...X...",
               "..X....",
               ".X.....",
               ".......",
               "OOO....",
               "O......"])
    out, rew = _after(_state(g), 4 * 7 + 0)
    assert out[TERMINAL] == 1 and tuple(rew) == (1.0, -1.0)


def test_overline_wins():
    # X X X . X X on row 1: filling the gap makes six in a row, which wins (free-style)
    g = _grid(["XXX.XX..",
               "........",
               "OOO.O...",
               "......O.",
               "........",
               "........",
               "........",
               "........"])
    s = _state(g)
    out, rew = _after(s, 3)
    assert out[TERMINAL] == 1 and tuple(rew) == (1.0, -1.0)
    ref = _Ref(8)
    ref.g = [list(map(int, row)) for row in g]
    ref.g[0][3] = 1
    assert ref.five(1)


def test_lines_do_not_wrap_around_the_edge():
    # X on the last three cells of row 1 and the first two of row 2: consecutive cell numbers, no line
    n = 7
    g = np.zeros((n, n), np.int32)
    for cell in (4, 5, 6, 7):
        g.flat[cell] = 1
    for cell in (21, 22, 23, 24):
        g.flat[cell] = 2
    out, rew = _after(_state(g), 8)
    assert out[TERMINAL] == 0 and not rew.any()
    # nor along a diagonal whose cell numbers step by size + 1 past the right edge:
    # f1 g2 | a4 b5 c6 are cells 5 13 21 29 37 but not one line
    g = np.zeros((n, n), np.int32)
    for cell in (5, 13, 21, 29):
        g.flat[cell] = 1
    for cell in (42, 43, 44, 16):
        g.flat[cell] = 2
    out, rew = _after(_state(g), 37)
    assert out[TERMINAL] == 0 and not rew.any()


def test_full_board_without_five_is_a_draw():
    g = _grid(["XXOOX",
               "OOXXO",
               "XXOOX",
               "OOXXO",
               "XXOOX"])
    ref = _Ref(5)
    ref.g = g.tolist()
    assert not ref.five(1) and not ref.five(2)
    before = g.copy()
    before[0, 0] = 0  # X's last stone, a1
    s = _state(before)
    assert s[TO_MOVE] == 0 and s[PLY] == 24
    out, rew = _after(s, 0)
    assert out[TERMINAL] == 1 and not rew.any() and out[PLY] == 25
    mask = np.ones(25, np.int8)
    assert oog.legal_actions(_p(5), out, mask) == 0 and not mask.any()
    assert oog.validate(_p(5), out) == ""


def test_winning_on_the_last_cell_is_a_win_not_a_draw():
    g = _grid(["XXXX.",
               "OOXXO",
               "XXOOX",
               "OOXXO",
               "XOOOO"])
    assert int((g == 1).sum()) == 12 and int((g == 2).sum()) == 12
    out, rew = _after(_state(g), 4)
    assert out[TERMINAL] == 1 and tuple(rew) == (1.0, -1.0)


# ------------------------------------------------------------ against the reference
@pytest.mark.parametrize("n,games", [(5, 60), (6, 60), (7, 40), (9, 20), (15, 6), (19, 2)])
def test_random_games_agree_with_the_reference(n, games):
    p = _p(n)
    rng = make_rng(200 + n)
    mask = np.zeros(n * n, dtype=np.int8)
    rew = np.zeros(2)
    outcomes = set()
    for _ in range(games):
        s = oog.initial_state(p, rng)
        ref = _Ref(n)
        while True:
            count = oog.legal_actions(p, s, mask)
            assert set(np.flatnonzero(mask).tolist()) == ref.legal() and count == len(ref.legal())
            if count == 0:
                break
            a = rng_choice_mask(rng, mask)
            oog.afterstate(p, s, a, s, rew)
            mover = ref.to_move
            ref.play(a)
            assert bool(s[TERMINAL]) == ref.over and s[TO_MOVE] == ref.to_move and s[PLY] == ref.ply
            assert s[HEADER:].tolist() == [v for row in ref.g for v in row]
            if ref.winner is not None:
                assert rew[mover] == 1.0 and rew[1 - mover] == -1.0
            else:
                assert not rew.any()
        assert oog.validate(p, s) == ""
        outcomes.add(ref.winner)
    if 6 <= n and games >= 20:
        assert {0, 1} <= outcomes  # both colours win some random games


def _count_games(n, root, kernel):
    """(nodes, wins of player_0, wins of player_1, draws) of the whole game tree below ``root``."""
    totals = [0, 0, 0, 0]
    if kernel:
        p = _p(n)

        def walk(s):
            totals[0] += 1
            mask = np.zeros(n * n, np.int8)
            if oog.legal_actions(p, s, mask) == 0:
                return
            for a in np.flatnonzero(mask):
                out, rew = np.empty_like(s), np.zeros(2)
                oog.afterstate(p, s, int(a), out, rew)
                if out[TERMINAL]:
                    totals[0] += 1
                    totals[1 if rew[0] > 0 else 2 if rew[1] > 0 else 3] += 1
                else:
                    walk(out)

        walk(root)
    else:
        def walk_ref(ref):
            totals[0] += 1
            for a in sorted(ref.legal()):
                child = _Ref(n)
                child.g = [row[:] for row in ref.g]
                child.ply, child.to_move = ref.ply, ref.to_move
                child.play(a)
                if child.over:
                    totals[0] += 1
                    totals[1 if child.winner == 0 else 2 if child.winner == 1 else 3] += 1
                else:
                    walk_ref(child)

        walk_ref(root)
    return tuple(totals)


def test_game_tree_counts_match_the_reference():
    """Whole game trees from random 6x6 middle games with 6 empty cells: same node and outcome counts."""
    n = 6
    p = _p(n)
    rng = make_rng(5)
    rew = np.zeros(2)
    mask = np.zeros(n * n, np.int8)
    checked = 0
    while checked < 3:
        s = oog.initial_state(p, rng)
        ref = _Ref(n)
        while s[PLY] < n * n - 6 and not s[TERMINAL]:
            oog.legal_actions(p, s, mask)
            a = rng_choice_mask(rng, mask)
            oog.afterstate(p, s, a, s, rew)
            ref.play(a)
        if s[TERMINAL]:
            continue
        counts = _count_games(n, s, kernel=True)
        assert counts == _count_games(n, ref, kernel=False)
        assert counts[0] > 300
        checked += 1


def test_every_random_playout_ends_with_a_consistent_reward():
    spec = oog.make_spec(size=7)
    rng = make_rng(11)
    s0 = spec.initial_state(spec.p, rng)
    mask, rewards, total = np.zeros(49, np.int8), np.zeros(2), np.zeros(2)
    seen = set()
    for _ in range(300):
        s = s0.copy()
        plies = random_playout(kernels_of(spec), spec.p, s, mask, rewards, total, rng)
        assert s[TERMINAL] == 1 and 9 <= plies <= 49 and total.sum() == 0.0
        seen.add(tuple(total))
        assert spec.validate(spec.p, s) == ""
    assert seen <= {(1.0, -1.0), (-1.0, 1.0), (0.0, 0.0)} and len(seen) >= 2


# ------------------------------------------------------------ validate and errors
def test_validate_reasons():
    p = _p(7)
    ok = np.zeros((7, 7), np.int32)
    ok[0, 3], ok[3, 3] = 1, 2
    assert oog.validate(p, _state(ok)) == ""
    centre_only = np.zeros((7, 7), np.int32)
    centre_only[3, 3] = 1
    assert "outer band" in oog.validate(p, _state(centre_only))
    s = _state(ok)
    s[PLY] = 5
    assert "ply count" in oog.validate(p, s)
    s = _state(ok)
    s[TO_MOVE] = 1
    assert "player to move" in oog.validate(p, s)
    two_o = np.zeros((7, 7), np.int32)
    two_o[0, 0] = two_o[0, 1] = 2
    assert "moves first" in oog.validate(p, _state(two_o))
    won = _grid(["XXXXX..", "OOOO...", ".......", ".......", ".......", ".......", "......."])
    assert oog.validate(p, _state(won, terminal=1)) == ""
    assert "terminal" in oog.validate(p, _state(won, terminal=0))
    late = won.copy()
    late[6, 6] = 2
    assert "moved since" in oog.validate(p, _state(late, terminal=1))
    both = _grid(["XXXXX..", "OOOOO..", "X......", ".......", ".......", ".......", "......."])
    assert "both" in oog.validate(p, _state(both, terminal=1))
    # two separate fives of X: no single last stone made both
    went_on = _grid(["XXXXX..", "OOOO...", "OOOO...", "XXXXX..", ".......", ".......", "......O"])
    assert "went on" in oog.validate(p, _state(went_on, terminal=1))
    bad = _state(ok)
    bad[HEADER + 5] = 3
    assert "cells must be" in oog.validate(p, bad)
    assert "length" in oog.validate(p, _state(ok)[:-1])


def test_set_state_refuses_an_impossible_position():
    env = outer_open_gomoku_v0.raw_env(size=7)
    env.reset(seed=0)
    centre_only = np.zeros((7, 7), np.int32)
    centre_only[3, 3] = 1
    with pytest.raises(ValueError, match="outer band"):
        env.set_state(_state(centre_only))


@pytest.mark.parametrize("size", [4, 20, "15", 15.0, True, None])
def test_bad_size_names_the_allowed_values(size):
    with pytest.raises(ValueError, match=r"5\.\.19"):
        oog.make_spec(size)
    with pytest.raises(ValueError):
        outer_open_gomoku_v0.env(size=size)


# ------------------------------------------------------------ spec, views, symmetries
def test_spec_fields_and_defaults():
    spec = oog.make_spec()
    assert spec.id == "outer_open_gomoku_v0" and spec.params == {"size": 15} and list(spec.p) == [15]
    assert spec.n_actions == 225 and spec.n_cells == 225 and spec.n_cell_values == 3 and spec.max_plies == 225
    assert spec.state_size == 228 and spec.obs_shape == (15, 15, 2) and spec.grid_shape == (15, 15)
    assert spec.action_names[:2] == ("a1", "b1") and spec.action_names[15] == "a2" and spec.action_names[-1] == "o15"
    assert spec.chance(spec.p, spec.initial_state(spec.p, make_rng(0)), make_rng(0)) == -1


def test_observation_planes_and_board():
    p = _p(6)
    s, _ = _play(6, [0, 14])
    o0, o1 = np.zeros((6, 6, 2), np.int8), np.zeros((6, 6, 2), np.int8)
    oog.observe(p, s, 0, o0)
    oog.observe(p, s, 1, o1)
    assert o0[0, 0, 0] == 1 and o0[2, 2, 1] == 1 and o0.sum() == 2
    assert np.array_equal(o0[:, :, ::-1], o1)
    b = np.empty(36, np.int32)
    oog.make_spec(size=6).board(p, s, b)  # the default board kernel: the cells as stored
    assert b[0] == 1 and b[14] == 2 and b.sum() == 3


def test_symmetries_map_the_band_and_fives_onto_themselves():
    n = 9
    perms = oog.symmetries(_p(n))
    assert perms.shape == (8, 81) and list(perms[0]) == list(range(81))
    band = np.array([oog.in_outer_band(n, c) for c in range(81)])
    rng = np.random.default_rng(1)
    for k in range(8):
        assert np.array_equal(band[perms[k]], band)
    for _ in range(40):
        g = rng.integers(0, 3, 81).astype(np.int32)
        for k in range(8):
            t = g[perms[k]].reshape(n, n)
            assert oog._has_five(t, 1) == oog._has_five(g.reshape(n, n), 1)


def test_action_symmetries_commute_with_moves():
    n = 7
    p = _p(n)
    perms, acts = oog.symmetries(p), oog.action_symmetries(p)
    moves = [0, 24, 8, 10, 30, 31]
    s, _ = _play(n, moves)
    for k in range(8):
        t, _ = _play(n, [int(acts[k][a]) for a in moves])
        assert np.array_equal(s[HEADER:][perms[k]], t[HEADER:])


def test_render_text_and_rgb():
    env = outer_open_gomoku_v0.env(size=5, render_mode="rgb_array")
    env.reset(seed=0)
    env.step(0)
    img = env.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    text = oog.render_text(_p(5), env.unwrapped.get_state())
    assert text.split("\n")[:2] == ["a b c d e", "X . . . .  1"]


# ------------------------------------------------------------ PettingZoo, Gymnasium, generic code
@pytest.mark.parametrize("size", [15, 5])
def test_pettingzoo_api_and_seed_tests(size):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(outer_open_gomoku_v0.env(size=size), num_cycles=200)
        seed_test(lambda: outer_open_gomoku_v0.env(size=size), num_cycles=20)


def test_gymnasium_single_agent_wrapper():
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make(farl_envs.gymnasium_id("outer_open_gomoku"), seat="alternate", size=7).unwrapped
    check_env(env, skip_render_check=True)
    for ep in range(4):
        env.reset(seed=ep)
        done = False
        while not done:
            _, r, done, _, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        assert r in (-1.0, 0.0, 1.0)


# -m slow: compiles Max-N and MCTS for this game alone (~5 CPU s); the default run tests that search code on other games
@pytest.mark.slow
def test_opponents_and_evaluate_play_outer_open_gomoku():
    """Max-N and MCTS through make_opponent and evaluate, both seats; games end with +1/-1 or a draw."""
    game = farl_envs.game_spec("outer_open_gomoku", size=7)
    for player in (make_opponent("maxn2", game), make_opponent("mcts30", game)):
        r = evaluate(game, player, "random", n_games=2, seed=1)
        games = r.matchups[0].games
        assert len(games) == 4 and {g["seat"] for g in games} == {0, 1}
        assert all(tuple(g["rewards"]) in {(1.0, -1.0), (-1.0, 1.0), (0.0, 0.0)} for g in games)
