"""Surakarta rules against a second, simple implementation and hand-traced positions.

The reference (``_Ref``) moves a capturing piece geometrically: it walks
straight along a row or column and, on leaving the board along a circuit
line, follows the corner loop to the perpendicular edge at the same distance
from that corner (the board drawing, not the kernel's tables of circuit
visits). Its end rules keep a plain list of earlier positions. The hand
positions were traced on paper on the board drawn in the module docstring.
The perft counts from the start also agree with Polygames' C++ move generator
(a third implementation), which agreed with the kernel on the legal moves of
all 66,584 positions of 400 random games in a scratch comparison.
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
from farl_envs import surakarta_v0
from farl_envs.core.kernels import kernels_of
from farl_envs.core.playout import random_playout
from farl_envs.core.rng import make_rng, rng_choice_mask
from farl_envs.core.spec import HEADER, PLY, TERMINAL, TO_MOVE
from farl_envs.games import surakarta as sk

N = 6


def _p(limit=50):
    return np.array([limit], dtype=np.int64)


def _cell(name):
    """``"c3"`` -> cell number (column letter, row number from the top)."""
    return N * (int(name[1:]) - 1) + "abcdef".index(name[0])


def _act(frm, to):
    return 36 * _cell(frm) + _cell(to)


# ------------------------------------------------------------ the reference
def _loop(y, x, dr, dc):
    """Where a piece leaving the board from (y, x) in direction (dr, dc) re-enters, or None (no loop there)."""
    if dc == 1:  # off the right edge
        if y in (1, 2):
            return 0, 5 - y, 1, 0  # round the top-right corner, down from the top edge
        if y in (3, 4):
            return 5, y, -1, 0  # round the bottom-right corner, up from the bottom edge
    elif dc == -1:  # off the left edge
        if y in (1, 2):
            return 0, y, 1, 0
        if y in (3, 4):
            return 5, 5 - y, -1, 0
    elif dr == -1:  # off the top edge
        if x in (1, 2):
            return x, 0, 0, 1  # round the top-left corner, rightwards from the left edge
        if x in (3, 4):
            return 5 - x, 5, 0, -1
    else:  # off the bottom edge
        if x in (1, 2):
            return 5 - x, 0, 0, 1
        if x in (3, 4):
            return x, 5, 0, -1
    return None


def _ref_captures(g, r, c):
    """The cells the piece on (r, c) of grid ``g`` (list of lists) can capture."""
    mark = g[r][c]
    out = set()
    for dr, dc in ((0, 1), (0, -1), (1, 0), (-1, 0)):
        y, x, vy, vx = r, c, dr, dc
        seen = set()
        loops = 0
        while (y, x, vy, vx) not in seen:
            seen.add((y, x, vy, vx))
            ny, nx = y + vy, x + vx
            if not (0 <= ny < N and 0 <= nx < N):
                back = _loop(y, x, vy, vx)
                if back is None:
                    break
                ny, nx, vy, vx = back
                loops += 1
            y, x = ny, nx
            if (y, x) == (r, c) or g[y][x] == 0:
                continue
            if g[y][x] != mark and loops:
                out.add(N * y + x)
            break
    return out


class _Ref:
    """Surakarta written plainly: grid of lists, geometric captures, a list of earlier positions."""

    def __init__(self, limit=50, grid=None, to_move=0):
        if grid is None:
            grid = [[2] * N, [2] * N, [0] * N, [0] * N, [1] * N, [1] * N]
        self.g = [list(row) for row in grid]
        self.limit = limit
        self.to_move = to_move
        self.since_capture = 0
        self.seen = [self.key()]
        self.over = False
        self.winner = None

    def key(self):
        return tuple(v for row in self.g for v in row), self.to_move

    def count(self, mark):
        return sum(row.count(mark) for row in self.g)

    def moves(self, mark):
        out = set()
        for r in range(N):
            for c in range(N):
                if self.g[r][c] != mark:
                    continue
                for dr in (-1, 0, 1):
                    for dc in (-1, 0, 1):
                        y, x = r + dr, c + dc
                        if (dr or dc) and 0 <= y < N and 0 <= x < N and self.g[y][x] == 0:
                            out.add(36 * (N * r + c) + N * y + x)
                for t in _ref_captures(self.g, r, c):
                    out.add(36 * (N * r + c) + t)
        return out

    def legal(self):
        return set() if self.over else self.moves(self.to_move + 1)

    def play(self, a):
        assert a in self.legal()
        mover = self.to_move
        (r, c), (y, x) = divmod(a // 36, N), divmod(a % 36, N)
        captured = self.g[y][x] != 0
        self.g[y][x], self.g[r][c] = self.g[r][c], 0
        self.to_move = 1 - mover
        if captured:
            self.since_capture, self.seen = 0, []
        else:
            self.since_capture += 1
        key = self.key()
        repeated = key in self.seen
        self.seen.append(key)
        mine, theirs = self.count(mover + 1), self.count(2 - mover)
        if theirs == 0:
            self.over, self.winner = True, mover
        elif repeated or self.since_capture >= self.limit:
            self.over = True
            self.winner = None if mine == theirs else (mover if mine > theirs else 1 - mover)
        elif not self.moves(2 - mover):
            self.over, self.winner = True, mover


# ------------------------------------------------------------ states by hand
def _grid(rows):
    """A grid from 6 strings (row 1 first): ``.`` empty, ``X`` player_0, ``O`` player_1."""
    return [[".XO".index(ch) for ch in row] for row in rows]


def _pack_py(cells):
    vals = []
    for half in range(2):
        vals.append(sum(int(cells[18 * half + i]) * 3 ** i for i in range(18)))
    return vals


def _state(grid, to_move, limit=50):
    """A position right after a capture (history = this board only) with ``to_move`` on move."""
    cells = np.array(grid, dtype=np.int32).ravel()
    s = np.zeros(sk.HISTORY + 2 * (limit + 1), dtype=np.int32)
    s[HEADER:HEADER + 36] = cells
    captures = 24 - int((cells != 0).sum())
    assert captures > 0
    s[TO_MOVE], s[PLY] = to_move, captures + ((captures + to_move) % 2)
    s[sk.HISTORY:sk.HISTORY + 2] = _pack_py(cells)
    return s


def _targets(s, frm):
    """Capture targets of the piece on ``frm`` (a name) in the kernel, as names."""
    mask = np.zeros(1296, np.int8)
    sk.legal_actions(_p(int((s.shape[0] - sk.HISTORY) // 2 - 1)), s, mask)
    f = _cell(frm)
    names = set()
    for a in np.flatnonzero(mask[36 * f:36 * f + 36]):
        if s[HEADER + a] != 0:
            names.add("abcdef"[a % 6] + str(a // 6 + 1))
    return names


def _after(s, a, limit=50):
    out, rew = np.empty_like(s), np.zeros(2)
    sk.afterstate(_p(limit), s, a, out, rew)
    return out, rew


# ------------------------------------------------------------ start and perft
def test_start_position_and_its_16_steps():
    p = _p()
    s = sk.initial_state(p, make_rng(0))
    assert sk.render_text(p, s).split("\n")[1:3] == ["O O O O O O  1", "O O O O O O  2"]
    mask = np.zeros(1296, np.int8)
    # the six pieces of row 5 step into row 4: 2 + 4 * 3 + 2 squares, no capture is open yet
    assert sk.legal_actions(p, s, mask) == 16
    assert {sk.make_spec().action_names[a] for a in np.flatnonzero(mask)} >= {"a5-a4", "a5-b4", "f5-f4", "c5-d4"}
    assert sk.validate(p, s) == ""


def _perft(s, depth, p):
    if depth == 0:
        return 1
    mask = np.zeros(1296, np.int8)
    sk.legal_actions(p, s, mask)
    total = 0
    for a in np.flatnonzero(mask):
        out, _ = _after(s, int(a), int(p[0]))
        total += 1 if out[TERMINAL] else _perft(out, depth - 1, p)
    return total


def _perft_ref(ref, depth):
    if depth == 0:
        return 1
    total = 0
    for a in sorted(ref.legal()):
        child = _Ref(ref.limit, ref.g, ref.to_move)
        child.since_capture, child.seen = ref.since_capture, list(ref.seen)
        child.play(a)
        total += 1 if child.over else _perft_ref(child, depth - 1)
    return total


def test_perft_from_the_start_matches_the_reference():
    p = _p()
    s = sk.initial_state(p, make_rng(0))
    assert _perft(s, 2, p) == 16 * 16  # no capture can be open in the first two plies
    assert _perft(s, 3, p) == _perft_ref(_Ref(), 3) == 5382
    # 111122: counted with the move generator of Polygames (facebookarchive/Polygames, src/games/surakarta.h,
    # a third implementation written in C++), driven level by level from a scratch program
    assert _perft(s, 4, p) == 111122


# ------------------------------------------------------------ captures traced by hand
def test_capture_over_three_empty_points_and_one_loop():
    # the iggamecenter example: c3 runs right over d3 e3 f3, round the top-right large loop, onto d1
    s = _state(_grid(["...O..",
                      "......",
                      "..X...",
                      "......",
                      "......",
                      "......"]), 0)
    assert _targets(s, "c3") == {"d1"}
    out, rew = _after(s, _act("c3", "d1"))
    assert out[HEADER + _cell("d1")] == 1 and out[HEADER + _cell("c3")] == 0
    assert out[TERMINAL] == 1 and tuple(rew) == (1.0, -1.0)  # the last piece of player_1 is gone


def test_no_capture_without_a_loop_and_own_pieces_block():
    # c3 next to d3: straight contact is no capture; every route round a loop is blocked by X
    s = _state(_grid(["......",
                      "..X...",
                      ".XXO..",
                      "..X...",
                      "......",
                      "....X."]), 0)
    assert _targets(s, "c3") == set()
    mask = np.zeros(1296, np.int8)
    sk.legal_actions(_p(), s, mask)
    assert mask[_act("c3", "d3")] == 0


def test_capture_through_two_loops_takes_the_first_opponent_met():
    # b1 goes up round the top-left small loop along row 2, round the top-right loop, down column e
    s = _state(_grid([".X....",
                      "......",
                      ".X....",
                      "......",
                      "....O.",
                      "......"]), 0)
    assert _targets(s, "b1") == {"e5"}
    # a piece of player_1 on row 2 is met first (one loop): it is the target instead
    s = _state(_grid([".X....",
                      "...O..",
                      ".X....",
                      "......",
                      "....O.",
                      "......"]), 0)
    assert _targets(s, "b1") == {"d2"}


def test_path_runs_over_the_moving_pieces_own_start_square():
    # c3 (outer crossing) to c5: down is straight contact; right and up run into X on e3;
    # left: b3 a3, top-left large loop, c1 c2, over c3 itself, c4, c5 -> capture after one loop
    s = _state(_grid(["......",
                      "......",
                      "..X.X.",
                      "......",
                      "..O...",
                      "O....."]), 0)
    assert _targets(s, "c3") == {"c5"}
    ref = _Ref(grid=_grid(["......", "......", "..X.X.", "......", "..O...", "O....."]))
    assert _ref_captures(ref.g, 2, 2) == {_cell("c5")}


def test_corner_pieces_never_capture_and_are_never_captured():
    s = _state(_grid(["X.....",
                      "......",
                      "..O...",
                      "......",
                      "......",
                      ".....O"]), 0)
    assert _targets(s, "a1") == set()
    s = _state(_grid(["O.....",
                      "......",
                      "..X...",
                      "......",
                      "......",
                      "......"]), 0)
    assert _targets(s, "c3") == set()


def test_both_circuits_from_a_point_on_both():
    # b3 lies on row 3 (outer circuit) and column b (inner circuit). Right along row 3, round the
    # top-right large loop: d1. Left, round the top-left large loop, down column c, round the bottom-left
    # loop, along row 4, round the bottom-right loop, up column d: d2 (d1 is behind it). Up column b,
    # round the top-left small loop, along row 2: d2. Down column b and round three small loops: d2.
    s = _state(_grid(["...O..",
                      "...O..",
                      ".X....",
                      "......",
                      "......",
                      "......"]), 0)
    assert _targets(s, "b3") == {"d1", "d2"}


# ------------------------------------------------------------ end rules
def test_repetition_ends_the_game_as_a_draw_with_equal_pieces():
    p = _p()
    s = sk.initial_state(p, make_rng(0))
    moves = [_act("a5", "a4"), _act("a2", "a3"), _act("a4", "a5")]
    for a in moves:
        s, rew = _after(s, a)
        assert s[TERMINAL] == 0
    s, rew = _after(s, _act("a3", "a2"))  # the start position, player_0 to move, again
    assert s[TERMINAL] == 1 and not rew.any() and s[sk.COUNTER] == 4
    assert sk.validate(p, s) == ""


def test_same_board_with_the_other_player_to_move_is_no_repetition():
    p = _p()
    s = sk.initial_state(p, make_rng(0))
    # player_0 goes round a triangle a5-a4-b4-a5 while player_1 steps a2-a3 and back: after 5 plies the board
    # is the start board but player_1 is to move
    for a in [_act("a5", "a4"), _act("a2", "a3"), _act("a4", "b4"), _act("a3", "a2"), _act("b4", "a5")]:
        s, _ = _after(s, a)
    assert np.array_equal(s[HEADER:HEADER + 36], sk.initial_state(p, make_rng(0))[HEADER:HEADER + 36])
    assert s[TO_MOVE] == 1 and s[TERMINAL] == 0


def test_repetition_with_more_pieces_wins():
    g = _grid(["OO....", "......", "......", "......", "......", "XX...X"])
    s = _state(g, 0)
    for a in [_act("f6", "f5"), _act("a1", "a2"), _act("f5", "f6")]:
        s, rew = _after(s, a)
        assert s[TERMINAL] == 0
    s, rew = _after(s, _act("a2", "a1"))
    assert s[TERMINAL] == 1 and tuple(rew) == (1.0, -1.0)  # player_1 repeated, player_0 has 3 pieces to 2


@pytest.mark.parametrize("pieces0,expected", [(3, (1.0, -1.0)), (2, (0.0, 0.0)), (1, (-1.0, 1.0))])
def test_no_capture_limit_ends_the_game_by_piece_count(pieces0, expected):
    limit = 6
    row = "X" * pieces0 + "." * (6 - pieces0)
    g = _grid(["O.O...", "......", "......", "......", "......", row[::-1]])
    s = _state(g, 0, limit=limit)
    # player_1 shuffles a1 <-> a2 style steps on row 1; player_0 walks its f6 piece without repeating
    walk0 = [("f6", "f5"), ("f5", "f4"), ("f4", "e4")]
    walk1 = [("a1", "b1"), ("c1", "d1"), ("b1", "b2")]
    plies = []
    for w0, w1 in zip(walk0, walk1):
        plies += [_act(*w0), _act(*w1)]
    for i, a in enumerate(plies):
        s, rew = _after(s, a, limit)
        assert bool(s[TERMINAL]) == (i == limit - 1)
    assert tuple(rew) == expected and s[sk.COUNTER] == limit
    assert sk.validate(_p(limit), s) == ""


def test_a_blockaded_player_loses():
    # player_1's only piece sits in the a1 corner (on no circuit) behind X on b1, a2, b2; after X's quiet move it
    # has no step and no capture
    g = _grid(["OX....", "XX....", "......", "......", "......", ".....X"])
    s = _state(g, 0)
    out, rew = _after(s, _act("f6", "f5"))
    assert out[TERMINAL] == 1 and tuple(rew) == (1.0, -1.0)
    mask = np.zeros(1296, np.int8)
    assert sk.legal_actions(_p(), out, mask) == 0
    assert sk.validate(_p(), out) == ""


def test_capturing_resets_the_counter_and_the_history():
    s = _state(_grid(["O..O..", "......", "..X...", "......", "......", "X....."]), 0)
    s, _ = _after(s, _act("a6", "a5"))
    assert s[sk.COUNTER] == 1 and s[sk.HISTORY + 2] != 0
    s, _ = _after(s, _act("a1", "b1"))
    s, _ = _after(s, _act("c3", "d1"))
    assert s[TERMINAL] == 0 and s[sk.COUNTER] == 0
    assert not s[sk.HISTORY + 2:].any()
    assert np.array_equal(sk.unpack(s[sk.HISTORY], s[sk.HISTORY + 1]), s[HEADER:HEADER + 36])


# ------------------------------------------------------------ against the reference
@pytest.mark.parametrize("limit,games,back_rate", [(50, 40, 0.0), (12, 60, 0.3), (3, 40, 0.0)])
def test_random_games_agree_with_the_reference(limit, games, back_rate):
    """Random games; with ``back_rate`` a player steps back where it came from (so positions repeat)."""
    p = _p(limit)
    rng = make_rng(300 + limit)
    coin = np.random.default_rng(limit)
    mask = np.zeros(1296, np.int8)
    rew = np.zeros(2)
    ends = set()
    for _ in range(games):
        s = sk.initial_state(p, rng)
        ref = _Ref(limit)
        last = [-1, -1]
        while True:
            count = sk.legal_actions(p, s, mask)
            assert set(np.flatnonzero(mask).tolist()) == ref.legal() and count == len(ref.legal())
            if count == 0:
                break
            a = rng_choice_mask(rng, mask)
            back = 36 * (last[ref.to_move] % 36) + last[ref.to_move] // 36
            if last[ref.to_move] >= 0 and mask[back] and coin.random() < back_rate:
                a = back
            last[ref.to_move] = a
            sk.afterstate(p, s, a, s, rew)
            ref.play(a)
            assert bool(s[TERMINAL]) == ref.over and s[TO_MOVE] == ref.to_move
            assert s[HEADER:HEADER + 36].tolist() == [v for row in ref.g for v in row]
            assert s[sk.COUNTER] == ref.since_capture
            if ref.winner is None:
                assert not rew.any()
            else:
                assert rew[ref.winner] == 1.0 and rew[1 - ref.winner] == -1.0
        assert sk.validate(p, s) == ""
        n0, n1 = ref.count(1), ref.count(2)
        ends.add("wipe-out" if 0 in (n0, n1) else "limit" if ref.since_capture >= limit else
                 "blockade" if not ref.moves(ref.to_move + 1) else "repetition")
    assert {50: {"limit"}, 12: {"limit", "repetition"}, 3: {"limit"}}[limit] <= ends


def test_perft_from_random_middle_games_matches_the_reference():
    p = _p(50)
    rng = make_rng(9)
    mask = np.zeros(1296, np.int8)
    rew = np.zeros(2)
    checked = 0
    while checked < 4:
        s = sk.initial_state(p, rng)
        ref = _Ref(50)
        for _ in range(30):
            if s[TERMINAL]:
                break
            sk.legal_actions(p, s, mask)
            a = rng_choice_mask(rng, mask)
            sk.afterstate(p, s, a, s, rew)
            ref.play(a)
        if s[TERMINAL]:
            continue
        assert _perft(s, 2, p) == _perft_ref(ref, 2)
        checked += 1


def test_random_playouts_end_with_consistent_rewards():
    spec = sk.make_spec()
    rng = make_rng(4)
    s0 = spec.initial_state(spec.p, rng)
    mask, rewards, total = np.zeros(1296, np.int8), np.zeros(2), np.zeros(2)
    for _ in range(200):
        s = s0.copy()
        plies = random_playout(kernels_of(spec), spec.p, s, mask, rewards, total, rng)
        assert s[TERMINAL] == 1 and 0 < plies <= spec.max_plies and total.sum() == 0.0
        assert tuple(total) in {(1.0, -1.0), (-1.0, 1.0), (0.0, 0.0)}
        n0, n1 = int(np.sum(s[HEADER:HEADER + 36] == 1)), int(np.sum(s[HEADER:HEADER + 36] == 2))
        probe = s.copy()
        probe[TERMINAL] = 0
        k = int(s[sk.COUNTER])
        history = [sk.unpack(s[sk.HISTORY + 2 * j], s[sk.HISTORY + 2 * j + 1]) for j in range(k + 1)]
        repeated = any(np.array_equal(history[j], history[k]) for j in range(k - 2, -1, -2))
        if 0 in (n0, n1):
            assert total[0] == (1.0 if n1 == 0 else -1.0)  # the capturer of the last piece wins
        elif repeated or k == spec.params["no_capture_limit"]:
            assert np.sign(total[0]) == np.sign(sk.piece_difference(s)) == np.sign(n0 - n1)
        else:
            assert spec.legal_actions(spec.p, probe, mask) == 0
            assert total[int(s[TO_MOVE])] == -1.0  # blockaded: the player to move loses


# ------------------------------------------------------------ validate and errors
def test_validate_reasons():
    p = _p()
    g = _grid(["OO....", "......", "......", "......", "......", "XX...X"])
    assert sk.validate(p, _state(g, 0)) == ""
    s = _state(g, 0)
    s[TO_MOVE] = 1
    assert "player to move" in sk.validate(p, s)
    s = _state(g, 0)
    s[sk.HISTORY] += 1
    assert "last history entry" in sk.validate(p, s)
    s = _state(g, 0)
    s[sk.COUNTER] = 51
    assert "0..50" in sk.validate(p, s)
    s = _state(g, 0)
    s[sk.HISTORY + 7] = 3
    assert "after the last one" in sk.validate(p, s)
    s = _state(g, 0)
    s[TERMINAL] = 1
    assert "terminal" in sk.validate(p, s)
    s = _state(g, 0)
    s[HEADER] = 5
    assert "cells must be" in sk.validate(p, s)
    s = sk.initial_state(p, make_rng(0))
    s[HEADER + 20] = 1
    assert "at most 12" in sk.validate(p, s)
    # a history whose step is no king step
    s = sk.initial_state(p, make_rng(0))
    s, _ = _after(s, _act("a5", "a4"))
    t = s.copy()
    t[HEADER + _cell("a4")], t[HEADER + _cell("a3")] = 0, 1
    t[sk.HISTORY + 2:sk.HISTORY + 4] = _pack_py(t[HEADER:HEADER + 36])
    assert "does not follow" in sk.validate(p, t)
    assert "length" in sk.validate(p, s[:-1])


def test_set_state_refuses_an_impossible_position():
    env = surakarta_v0.raw_env()
    env.reset(seed=0)
    s = sk.initial_state(_p(), make_rng(0))
    s[TERMINAL] = 1
    with pytest.raises(ValueError, match="terminal"):
        env.set_state(s)


@pytest.mark.parametrize("limit", [0, 201, "50", 50.0, True, None])
def test_bad_limit_names_the_allowed_values(limit):
    with pytest.raises(ValueError, match=r"1\.\.200"):
        sk.make_spec(no_capture_limit=limit)


def test_illegal_action_raises():
    env = surakarta_v0.env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="legal actions"):
        env.step(_act("a5", "a3"))


# ------------------------------------------------------------ spec, views, symmetries
def test_spec_fields():
    spec = sk.make_spec()
    assert spec.id == "surakarta_v0" and spec.params == {"no_capture_limit": 50}
    assert spec.n_actions == 1296 and spec.n_cells == 36 and spec.n_cell_values == 3 and spec.grid_shape == (6, 6)
    assert spec.state_size == 3 + 36 + 1 + 2 * 51 and spec.max_plies == 24 * 50
    assert spec.action_names[_act("c3", "d1")] == "c3-d1"


def test_observation_planes_and_board():
    p = _p()
    s = sk.initial_state(p, make_rng(0))
    o0, o1 = np.zeros((6, 6, 2), np.int8), np.zeros((6, 6, 2), np.int8)
    sk.observe(p, s, 0, o0)
    sk.observe(p, s, 1, o1)
    assert o0[5, 0, 0] == 1 and o0[0, 0, 1] == 1 and o0.sum() == 24
    assert np.array_equal(o0[:, :, ::-1], o1)
    b = np.empty(36, np.int32)
    sk.make_spec().board(p, s, b)  # the default board kernel: the cells as stored
    assert b.tolist() == [2] * 12 + [0] * 12 + [1] * 12


def test_symmetries_commute_with_legal_moves_and_captures():
    p = _p()
    perms, acts = sk.symmetries(p), sk.action_symmetries(p)
    assert perms.shape == (8, 36) and acts.shape == (8, 1296) and list(acts[0]) == list(range(1296))
    rng = make_rng(2)
    mask, mask_t = np.zeros(1296, np.int8), np.zeros(1296, np.int8)
    rew = np.zeros(2)
    checked = 0
    while checked < 6:
        s = sk.initial_state(p, rng)
        for _ in range(40):
            if s[TERMINAL]:
                break
            sk.legal_actions(p, s, mask)
            sk.afterstate(p, s, rng_choice_mask(rng, mask), s, rew)
        cells = s[HEADER:HEADER + 36]
        if s[TERMINAL] or (cells != 0).sum() == 24:
            continue
        base = _state(cells.reshape(6, 6).tolist(), int(s[TO_MOVE]))
        sk.legal_actions(p, base, mask)
        for k in range(8):
            t = _state(cells[perms[k]].reshape(6, 6).tolist(), int(s[TO_MOVE]))
            sk.legal_actions(p, t, mask_t)
            assert sorted(acts[k][np.flatnonzero(mask)].tolist()) == np.flatnonzero(mask_t).tolist()
        checked += 1


def test_render_text_and_rgb():
    env = surakarta_v0.env(render_mode="rgb_array")
    env.reset(seed=0)
    env.step(_act("a5", "a4"))
    img = env.render()
    assert img.dtype == np.uint8 and img.ndim == 3
    text = sk.render_text(_p(), env.unwrapped.get_state())
    assert text.split("\n")[4:6] == ["X . . . . .  4", ". X X X X X  5"] and text.endswith("1/50")


# ------------------------------------------------------------ PettingZoo, Gymnasium, generic code
@pytest.mark.parametrize("limit", [50, 4])
def test_pettingzoo_api_and_seed_tests(limit):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(surakarta_v0.env(no_capture_limit=limit), num_cycles=200)
        seed_test(lambda: surakarta_v0.env(no_capture_limit=limit), num_cycles=20)


def test_gymnasium_single_agent_wrapper():
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make(farl_envs.gymnasium_id("surakarta"), seat="alternate", no_capture_limit=10).unwrapped
    check_env(env, skip_render_check=True)
    for ep in range(4):
        env.reset(seed=ep)
        done = False
        while not done:
            _, r, done, _, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        assert r in (-1.0, 0.0, 1.0)


# -m slow: compiles Max-N and MCTS for this game alone (~5 CPU s); the default run tests that search code on other games
@pytest.mark.slow
def test_opponents_and_evaluate_play_surakarta():
    """Max-N and MCTS through make_opponent and evaluate, both seats; games end with +1/-1 or a draw."""
    game = farl_envs.game_spec("surakarta", no_capture_limit=10)
    for player in (make_opponent("maxn1", game), make_opponent("mcts20", game)):
        r = evaluate(game, player, "random", n_games=2, seed=1)
        games = r.matchups[0].games
        assert len(games) == 4 and {g["seat"] for g in games} == {0, 1}
        assert all(tuple(g["rewards"]) in {(1.0, -1.0), (-1.0, 1.0), (0.0, 0.0)} for g in games)
