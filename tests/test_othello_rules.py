"""Othello rules against facts known independently of this code.

Sources of the expected values: the published Othello perft counts
(leaf nodes at depths 1..8 from the start), the four standard opening moves,
positions worked out by hand on paper, and two games published by Warren D.
Smith on the math-fun mailing list (an 11-move game that ends 14-1 with
empty squares left, and a 64-0 wipeout by white in which black passes 23
times). A slow plain-Python cell-scan reference of the rules, written
here independently of the bitboard kernels, is played against them move by
move over many random games.
"""
from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from farl_envs import othello_v0
from farl_envs.core.rng import make_rng
from farl_envs.games import othello as oth

P = np.zeros(1, dtype=np.int64)
PASS = 64

#: black (to move at ply 8) has no move and must pass; white's only move is then c6
FORCED_PASS = """
        ........
        ........
        ........
        OXXXXXXX
        .X.XX...
        ........
        ........
        ........"""
#: white's last disc e4 is flipped by black f4, which ends the game 6-0
ONE_COLOUR_LEFT_AFTER_F4 = """
        ........
        ........
        ...X....
        ...XO...
        ...XX...
        ........
        ........
        ........"""


def _cell(name: str) -> int:
    """``"d3"`` -> 19 (file letter, rank number; rank 1 is row 0)."""
    return 8 * (int(name[1]) - 1) + "abcdefgh".index(name[0].lower())


def _position(diagram: str, ply: int, terminal: int = 0) -> np.ndarray:
    """A state from 8 lines of ``.XO`` (rank 1 first); the mover is ``ply % 2``."""
    rows = [line.strip() for line in diagram.strip().splitlines()]
    assert len(rows) == 8 and all(len(r) == 8 for r in rows)
    s = np.zeros(oth.STATE_SIZE, dtype=np.int32)
    s[3:] = [".XO".index(ch) for ch in "".join(rows)]
    s[0], s[1], s[2] = ply % 2, terminal, ply
    assert oth.validate(P, s) == "", oth.validate(P, s)
    return s


def _legal(s) -> set:
    mask = np.zeros(65, dtype=np.int8)
    n = oth.legal_actions(P, s, mask)
    assert n == int(mask.sum())
    return set(int(a) for a in np.flatnonzero(mask))


def _after(s, a):
    out = np.empty_like(s)
    rew = np.zeros(2)
    oth.afterstate(P, s, a, out, rew)
    return out, tuple(rew)


def _discs(s) -> tuple:
    return int(np.sum(s[3:] == 1)), int(np.sum(s[3:] == 2))


@njit  # not cached: numba's cache would keep kernels compiled in from an older othello.py
def _perft(p, s, depth, masks, states, rew):
    """Leaf nodes at exactly ``depth`` plies below ``s`` (a pass is a ply)."""
    n = oth.legal_actions(p, s, masks[depth])
    if depth == 1:
        return n
    total = 0
    for a in range(oth.N_ACTIONS):
        if masks[depth, a]:
            oth.afterstate(p, s, a, states[depth], rew)
            total += _perft(p, states[depth], depth - 1, masks, states, rew)
    return total


def test_perft_from_the_start_depths_1_to_8():
    s = oth.initial_state(P, make_rng(0))
    masks = np.zeros((9, 65), dtype=np.int8)
    states = np.zeros((9, oth.STATE_SIZE), dtype=np.int32)
    rew = np.zeros(2)
    counts = [_perft(P, s, d, masks, states, rew) for d in range(1, 9)]
    assert counts == [4, 12, 56, 244, 1396, 8200, 55092, 390216]


def test_start_position_and_first_moves():
    s = oth.initial_state(P, make_rng(0))
    assert oth.validate(P, s) == ""
    assert list(s[:3]) == [0, 0, 0]
    assert {int(c) for c in np.flatnonzero(s[3:] == 2)} == {_cell("d4"), _cell("e5")} == {27, 36}
    assert {int(c) for c in np.flatnonzero(s[3:] == 1)} == {_cell("e4"), _cell("d5")} == {28, 35}
    assert _legal(s) == {19, 26, 37, 44} == {_cell(m) for m in ("d3", "c4", "f5", "e6")}


def test_a_move_flips_lines_in_several_directions_at_once():
    s = _position("""
        .....O..
        ....O...
        ....OOX.
        ..OOO...
        ...XOX..
        ........
        ........
        ........""", ply=8)
    assert 19 in _legal(s)
    out, rew = _after(s, _cell("d3"))
    # south d4 (closed by d5), south-east e4 (closed by f5), east e3 f3
    # (closed by g3); south-west c4 is open (b5 empty) and north-east e2 f1
    # runs into the edge, so they stay white
    expected = _position("""
        .....O..
        ....O...
        ...XXXX.
        ..OXX...
        ...XOX..
        ........
        ........
        ........""", ply=9)
    assert np.array_equal(out, expected)
    assert rew == (0.0, 0.0) and _discs(out) == (8, 4)


def test_forced_pass_is_the_only_legal_action():
    s = _position(FORCED_PASS, ply=8)
    assert _legal(s) == {PASS}
    out, rew = _after(s, PASS)
    assert rew == (0.0, 0.0) and not out[1]
    assert list(out[:3]) == [1, 0, 9] and np.array_equal(out[3:], s[3:])
    assert _legal(out) == {_cell("c6")}  # a4-b5 diagonal, the only line white can close
    out2, _ = _after(out, _cell("c6"))
    assert out2[3 + _cell("b5")] == 2 and PASS not in _legal(out2)


def test_pass_is_illegal_when_a_move_exists():
    s = oth.initial_state(P, make_rng(0))
    assert PASS not in _legal(s)
    env = othello_v0.env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="legal actions"):
        env.step(PASS)


def test_game_ends_before_the_board_is_full_when_one_colour_remains():
    s = _position(ONE_COLOUR_LEFT_AFTER_F4, ply=2)
    out, rew = _after(s, _cell("f4"))
    assert out[1] == 1 and _discs(out) == (6, 0)
    assert rew == (1.0, -1.0)
    assert _legal(out) == set() and oth.validate(P, out) == ""


@pytest.mark.parametrize("change,rewards", [
    (None, (0.0, 0.0)),          # 32-32
    ("a1X", (1.0, -1.0)),        # 33-31
    ("a5O", (-1.0, 1.0)),        # 31-33
])
def test_last_move_fills_the_board_and_scores_by_disc_count(change, rewards):
    rows = ["OOOOOOOO"] * 4 + ["XXXXXXXX"] * 3 + ["XXXXXXO."]
    s = _position("\n".join(rows), ply=60)
    if change:
        s[3 + _cell(change[:2])] = ".XO".index(change[2])
    assert _legal(s) == {_cell("h8")}
    out, rew = _after(s, _cell("h8"))
    assert out[1] == 1 and out[3 + _cell("g8")] == 1 and not np.any(out[3:] == 0)
    assert rew == rewards
    assert oth.validate(P, out) == ""


def _replay(moves, mover_by_case=False):
    """Play ``moves`` (e.g. ``"f5"``); with ``mover_by_case`` an upper-case
    move is black's and a missing turn is filled by a (forced) pass.
    Returns the final state, the reward of every ply and the passes played."""
    s = oth.initial_state(P, make_rng(0))
    rewards, passes = [], 0
    for m in moves:
        if mover_by_case and s[0] != (0 if m[0].isupper() else 1):
            assert _legal(s) == {PASS}
            s, rew = _after(s, PASS)
            rewards.append(rew)
            passes += 1
        assert _cell(m) in _legal(s), (m, oth.render_text(P, s))
        s, rew = _after(s, _cell(m))
        rewards.append(rew)
    return s, rewards, passes


def test_published_11_move_game_ends_14_to_1():
    s, rewards, _ = _replay("f5 f4 c3 e6 f7 g6 g4 e8 g8 g5 h5".split())
    final = """
        ........
        ........
        ..X.....
        ...XXXX.
        ...XXXXX
        ....X.X.
        .....X..
        ....O.X."""
    assert np.array_equal(s, _position(final, ply=11, terminal=1))
    assert _discs(s) == (14, 1)
    assert rewards[:-1] == [(0.0, 0.0)] * 10 and rewards[-1] == (1.0, -1.0)


def test_published_wipeout_with_23_passes():
    g = "F5d6C4g5D7c7H5d8B8b7B6a7b5A6a5b4B3c6E8f8C8a8e7a4b2A2c2D2d1e2F2c5c3a1a3e6d3f6F7f1g2H2e3F4b1g1c1e1g8g7f3h1h3h4h6"
    s, rewards, passes = _replay([g[i:i + 2] for i in range(0, len(g), 2)], mover_by_case=True)
    assert passes == 23 and s[2] == 55 + 23
    assert s[1] == 1 and _discs(s)[0] == 0 and _discs(s)[1] + int(np.sum(s[3:] == 0)) == 64
    assert rewards[-1] == (-1.0, 1.0) and set(rewards[:-1]) == {(0.0, 0.0)}
    assert oth.validate(P, s) == ""


def test_in_place_afterstate_matches_copy():
    rng = np.random.default_rng(1)
    s = oth.initial_state(P, make_rng(0))
    while not s[1]:
        a = int(rng.choice(sorted(_legal(s))))
        out, rew = _after(s, a)
        inplace = s.copy()
        rew2 = np.zeros(2)
        oth.afterstate(P, inplace, a, inplace, rew2)
        assert np.array_equal(inplace, out) and tuple(rew2) == rew
        assert oth.validate(P, out) == ""
        s = out
    assert s[2] <= oth.MAX_PLIES


def test_observation_planes_are_relative_to_the_seat():
    s = oth.initial_state(P, make_rng(0))
    obs = np.zeros((8, 8, 2), dtype=np.int8)
    oth.observe(P, s, 0, obs)
    assert {(r, c) for r, c in zip(*np.nonzero(obs[:, :, 0]))} == {(3, 4), (4, 3)}  # e4, d5
    assert {(r, c) for r, c in zip(*np.nonzero(obs[:, :, 1]))} == {(3, 3), (4, 4)}  # d4, e5
    mine = obs[:, :, 0].copy()
    oth.observe(P, s, 1, obs)
    assert np.array_equal(obs[:, :, 1], mine)


def test_symmetries_preserve_the_legal_moves():
    perms = oth.symmetries(P)
    assert perms.shape == (8, 64) and np.array_equal(perms[0], np.arange(64))
    assert len({p.tobytes() for p in perms}) == 8
    rng = np.random.default_rng(4)
    s = oth.initial_state(P, make_rng(0))
    for _ in range(20):
        legal = _legal(s)
        for perm in perms:
            t = s.copy()
            t[3:] = s[3:][perm]
            moved = {a for a in _legal(t) if a != PASS}
            assert {int(perm[a]) for a in moved} == legal - {PASS}
        s, _ = _after(s, int(rng.choice(sorted(legal))))


@pytest.mark.parametrize("edit,reason", [
    (lambda s: s.__setitem__(3 + 27, 0), "centre"),
    (lambda s: s.__setitem__(3 + 0, 1), "connected"),
    (lambda s: s.__setitem__(3 + 5, 3), "cells"),
    (lambda s: s.__setitem__(2, 5), "ply"),
    (lambda s: s.__setitem__(0, 0), "ply % 2"),
    (lambda s: s.__setitem__(1, 1), "terminal"),
])
def test_validate_refuses_impossible_positions(edit, reason):
    s, _ = _after(oth.initial_state(P, make_rng(0)), 19)
    assert oth.validate(P, s) == ""
    edit(s)
    assert reason in oth.validate(P, s)


def test_validate_requires_the_terminal_flag_when_nobody_can_move():
    s, _, _ = _replay("f5 f4 c3 e6 f7 g6 g4 e8 g8 g5 h5".split())
    s[1] = 0
    assert "terminal" in oth.validate(P, s)


def test_render_text():
    text = oth.render_text(P, oth.initial_state(P, make_rng(0)))
    assert text.splitlines()[4] == "4 . . . O X . . ."
    assert text.splitlines()[5] == "5 . . . X O . . ."


def test_api_test():
    from pettingzoo.test import api_test

    api_test(othello_v0.env(), num_cycles=200)


def _ntuple_board(s) -> np.ndarray:
    out = np.full(oth.N_CELLS, -1, dtype=np.int32)
    oth.board(P, s, out)
    return out


def test_ntuple_board_marks_the_legal_cells_of_the_next_mover():
    assert oth.make_spec().n_cell_values == 4
    b = _ntuple_board(oth.initial_state(P, make_rng(0)))
    # black to move: the four standard opening moves are the 3s
    assert {int(c) for c in np.flatnonzero(b == 3)} == {_cell(x) for x in ("d3", "c4", "f5", "e6")}
    assert {int(c) for c in np.flatnonzero(b == 1)} == {_cell("e4"), _cell("d5")}
    assert {int(c) for c in np.flatnonzero(b == 2)} == {_cell("d4"), _cell("e5")}
    assert int(np.sum(b == 0)) == 64 - 8
    # after 1. f5 white may answer f4 (parallel), f6 (diagonal) or d6 (perpendicular)
    after, _ = _after(oth.initial_state(P, make_rng(0)), _cell("f5"))
    b = _ntuple_board(after)
    assert {int(c) for c in np.flatnonzero(b == 3)} == {_cell(x) for x in ("f4", "f6", "d6")}
    assert b[_cell("f5")] == 1 and b[_cell("e5")] == 1 and b[_cell("d4")] == 2


def test_ntuple_board_when_the_mover_must_pass_or_the_game_is_over():
    s = _position(FORCED_PASS, ply=8)  # black must pass; white's only move is c6
    b = _ntuple_board(s)
    assert {int(c) for c in np.flatnonzero(b == 3)} == {_cell("c6")}
    s = _position(ONE_COLOUR_LEFT_AFTER_F4, ply=2)
    over, _ = _after(s, _cell("f4"))
    assert over[1] == 1 and not np.any(_ntuple_board(over) == 3)


# --- an independent slow reference of the rules ------------------------------
# Plain Python on an 8x8 list of lists, scanning every cell and direction the
# way the rules are stated; it shares nothing with the kernels (which work on
# bitboards), so agreeing over many random games checks the bit tricks.
_NEIGHBOURS = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0)]


def _ref_grid(s) -> list:
    return [[int(s[3 + 8 * r + c]) for c in range(8)] for r in range(8)]


def _ref_captures(grid, r, c, me) -> list:
    """The (row, col) of every disc that ``me`` playing (r, c) would flip."""
    if grid[r][c] != 0:
        return []
    caught = []
    for dr, dc in _NEIGHBOURS:
        line = []
        rr, cc = r + dr, c + dc
        while 0 <= rr < 8 and 0 <= cc < 8 and grid[rr][cc] == 3 - me:
            line.append((rr, cc))
            rr, cc = rr + dr, cc + dc
        if line and 0 <= rr < 8 and 0 <= cc < 8 and grid[rr][cc] == me:
            caught += line
    return caught


def _ref_moves(grid, me) -> set:
    return {8 * r + c for r in range(8) for c in range(8) if _ref_captures(grid, r, c, me)}


def _ref_check_position(s, summary):
    """Compare every kernel with the reference on ``s``; return the reference's legal actions."""
    grid = _ref_grid(s)
    me = int(s[0]) + 1
    mine, theirs = _ref_moves(grid, me), _ref_moves(grid, 3 - me)
    assert bool(s[1]) == (not mine and not theirs)
    if s[1]:
        assert _legal(s) == set()
        return set()
    legal = mine or {PASS}
    assert _legal(s) == legal, oth.render_text(P, s)
    marked = {int(c) for c in np.flatnonzero(_ntuple_board(s) == 3)}
    assert marked == (mine or theirs)  # the next disc's cells, the other side's after a pass
    for a in legal:
        out, rew = _after(s, a)
        expected = [row[:] for row in grid]
        if a == PASS:
            summary["passes"] += 1
        else:
            for rr, cc in _ref_captures(grid, a // 8, a % 8, me) + [(a // 8, a % 8)]:
                expected[rr][cc] = me
        assert [int(v) for v in out[3:]] == [v for row in expected for v in row], (a, oth.render_text(P, s))
        assert list(out[[0, 2]]) == [1 - s[0], s[2] + 1]
        over = not _ref_moves(expected, 1) and not _ref_moves(expected, 2)
        assert out[1] == over
        black = sum(row.count(1) for row in expected)
        white = sum(row.count(2) for row in expected)
        win = (1.0, -1.0) if black > white else (-1.0, 1.0) if white > black else (0.0, 0.0)
        assert rew == (win if over else (0.0, 0.0))
        if over:
            summary["ends"][win] += 1
    return legal


def test_random_games_agree_with_a_slow_cell_scan_reference():
    rng = np.random.default_rng(2026)
    summary = {"passes": 0, "ends": {(1.0, -1.0): 0, (-1.0, 1.0): 0, (0.0, 0.0): 0}, "plies": 0}
    for _ in range(100):
        s = oth.initial_state(P, make_rng(0))
        while True:
            legal = _ref_check_position(s, summary)
            if not legal:
                break
            s, _ = _after(s, int(rng.choice(sorted(legal))))
            summary["plies"] += 1
    # the games met forced passes, and some candidate moves ended the game in each way
    assert summary["passes"] > 0 and summary["plies"] > 100 * 55
    assert all(n > 0 for n in summary["ends"].values()), summary



def test_bitboards_are_exact_uint64_at_the_top_bit_and_do_not_wrap_around_the_edges():
    s = np.zeros(oth.STATE_SIZE, dtype=np.int32)
    s[3 + 0], s[3 + 63], s[3 + 7], s[3 + 56] = 1, 1, 2, 2  # a1 h8 black, h1 a8 white
    black, white = oth.discs(s)
    # 2**63 + 1 has no float64: a uint64 computation that slipped into float64 would round it
    assert not isinstance(black, float) and int(black) == (1 << 63) + 1 and int(white) == (1 << 56) + (1 << 7)
    s = _position("""
        ........
        ........
        ........
        .O.OX..X
        O.XXXXX.
        ........
        ........
        ........""", ply=7)
    black, white = oth.discs(s)
    legal = oth.legal_bits(white, black)  # white to move
    # a5 (bit 32) comes right after h4 (bit 31, black) in the numbering and g4 (bit 30) is empty: a westward
    # shift that wrapped from the a file to the h file of the row above would make g4 a move
    moves = {_cell(x) for x in ("f4", "b6", "d6", "f6")}
    assert {c for c in range(64) if int(legal) >> c & 1} == moves == _ref_moves(_ref_grid(s), 2)
    assert _legal(s) == moves
    assert int(oth.flip_bits(white, black, _cell("f4"))) == 1 << _cell("e4")
    assert int(oth.flip_bits(white, black, _cell("d6"))) == (1 << _cell("d5")) | (1 << _cell("c5"))
    assert int(oth.flip_bits(white, black, _cell("g4"))) == 0
