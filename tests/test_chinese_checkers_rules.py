"""Chinese Checkers rules against facts found independently of the kernels.

* The star is rebuilt here a second way, in cube coordinates: the holes ``(q, r, s)``,
  ``q + r + s = 0``, with all three coordinates >= -4 (the triangle pointing up) or all
  <= 4 (the one pointing down). Its holes, neighbours, hops and points must agree with
  the module's tables, which are built from doubled (row, column) coordinates.
* A second, plain-Python implementation of the turn rules (``Simple`` below) counts
  action sequences (perft) from the start and from a mid-game position; the first ply
  from the start is also counted by hand (14).
* Hand-drawn positions: a step, a hop chain with a branch and a forbidden return to the
  start hole, a chain ended by pass, a finished player (also one that fills its target
  in the middle of a chain), a blocked player, the move limit.
* OpenSpiel's ``pyspiel`` (when installed) is played in lockstep for 2, 3, 4 and 6
  players: random games and goal-seeking games that end with a winner.
"""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from farl_envs import chinese_checkers_v0
from farl_envs.core.kernels import kernels_of
from farl_envs.core.playout import random_playouts
from farl_envs.core.render import CELL
from farl_envs.core.rng import make_rng, rng_choice_mask
from farl_envs.core.spec import HEADER, PLY, TERMINAL, TO_MOVE
from farl_envs.games import chinese_checkers as cc

COUNTS = (2, 3, 4, 6)
PASS = 726
HOP_FROM, TURNS = HEADER + 121, HEADER + 122

# ------------------------------------------------------- the star, a second way
# direction d as a cube-coordinate step (dq, dr); up-left, up-right, left, right, down-left, down-right
CUBE_STEPS = ((0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1))


def _cube_star():
    holes = [(q, r) for q in range(-8, 9) for r in range(-8, 9)
             if min(q, r, -q - r) >= -4 or max(q, r, -q - r) <= 4]
    # drawn with rows r + 8 from the top and doubled columns 2q + r + 12; numbered row by row
    holes.sort(key=lambda h: (h[1], 2 * h[0] + h[1]))
    return holes


STAR = _cube_star()
AT = {h: i for i, h in enumerate(STAR)}


def hole(row, col):
    """The hole drawn at doubled coordinates (row, col), found through the cube-coordinate star."""
    q2 = col - 12 - (row - 8)
    assert q2 % 2 == 0
    return AT[(q2 // 2, row - 8)]


def _point_of(q, r):
    """Which point (0 N, 1 NE, 2 SE, 3 S, 4 SW, 5 NW) hole (q, r) lies in; -1 for the middle hexagon."""
    s = -q - r
    for k, inside in enumerate((r < -4, q > 4, s < -4, r > 4, q < -4, s > 4)):
        if inside:
            return k
    return -1


HOMES = {2: (0, 3), 3: (0, 2, 4), 4: (0, 1, 3, 4), 6: (0, 1, 2, 3, 4, 5)}


def test_star_tables_match_the_cube_coordinate_star():
    assert len(STAR) == 121
    for i, (q, r) in enumerate(STAR):
        assert (cc.ROW[i], cc.COL[i]) == (r + 8, 2 * q + r + 12)
        for d, (dq, dr) in enumerate(CUBE_STEPS):
            nb = AT.get((q + dq, r + dr), -1)
            assert cc.NEIGHBOUR[i, d] == nb
            assert cc.HOP[i, d] == (AT.get((q + 2 * dq, r + 2 * dr), -1) if nb >= 0 else -1)
    for k in range(6):
        assert sorted(cc.POINTS[k]) == [i for i, h in enumerate(STAR) if _point_of(*h) == k]
    # the middle hexagon has 61 holes, each point 10
    assert sum(_point_of(*h) == -1 for h in STAR) == 61


def test_cell_neighbours_are_the_adjacent_holes():
    nbs = cc.cell_neighbours(None)
    for i, (q, r) in enumerate(STAR):
        assert sorted(nbs[i]) == sorted(AT[(q + dq, r + dr)] for dq, dr in CUBE_STEPS if (q + dq, r + dr) in AT)
    assert len(nbs[0]) == 2 and len(nbs[60]) == 6  # the north tip, the centre


# ------------------------------------------------ a second, simple implementation
class Simple:
    """The rules in plain Python on tuples: (holes, mover, hop_from, visited, turns, winner)."""

    def __init__(self, n, max_moves=1000):
        self.n, self.max_moves = n, max_moves
        self.target = [{i for i, h in enumerate(STAR) if _point_of(*h) == (home + 3) % 6} for home in HOMES[n]]

    def start(self):
        holes = [0] * 121
        for k, home in enumerate(HOMES[self.n]):
            for i, h in enumerate(STAR):
                if _point_of(*h) == home:
                    holes[i] = k + 1
        return tuple(holes), 0, -1, frozenset(), 0, -1

    def over(self, st):
        return st[5] >= 0 or st[4] >= self.max_moves

    def _dest(self, holes, i, d):
        q, r = STAR[i]
        dq, dr = CUBE_STEPS[d]
        over = AT.get((q + dq, r + dr))
        if over is None:
            return None, None
        return over, AT.get((q + 2 * dq, r + 2 * dr))

    def legal(self, st):
        holes, mover, hop_from, visited, _, _ = st
        if self.over(st):
            return []
        out = []
        if hop_from >= 0:
            for d in range(6):
                over, land = self._dest(holes, hop_from, d)
                if over is not None and holes[over] and land is not None and not holes[land] and land not in visited:
                    out.append(6 * hop_from + d)
            return out + [PASS]
        for i in range(121):
            if holes[i] != mover + 1:
                continue
            for d in range(6):
                over, land = self._dest(holes, i, d)
                if over is not None and (not holes[over] or (land is not None and not holes[land])):
                    out.append(6 * i + d)
        return out or [PASS]

    def play(self, st, a):
        holes, mover, hop_from, visited, turns, winner = st
        holes = list(holes)
        if a != PASS:
            i, d = divmod(a, 6)
            over, land = self._dest(holes, i, d)
            if hop_from < 0 and not holes[over]:
                holes[over], holes[i] = mover + 1, 0
                return self._end(holes, mover, turns)
            holes[land], holes[i] = mover + 1, 0
            visited = visited | {i, land}
            nxt = (tuple(holes), mover, land, visited, turns, winner)
            if len(self.legal(nxt)) > 1:
                return nxt
        return self._end(holes, mover, turns)

    def _end(self, holes, mover, turns):
        won = all(holes[i] == mover + 1 for i in self.target[mover])
        return tuple(holes), (mover + 1) % self.n, -1, frozenset(), turns + 1, mover if won else -1

    def perft(self, st, depth, stats):
        if depth == 0 or self.over(st):
            return 1
        if st[2] >= 0:
            stats["in_chain"] += 1
        return sum(self.perft(self.play(st, a), depth - 1, stats) for a in self.legal(st))


def _kernel_perft(spec, s, depth):
    if depth == 0 or s[TERMINAL]:
        return 1
    mask = np.zeros(cc.N_ACTIONS, np.int8)
    spec.legal_actions(spec.p, s, mask)
    total = 0
    rew = np.zeros(spec.n_players)
    for a in np.flatnonzero(mask):
        out = np.empty_like(s)
        spec.afterstate(spec.p, s, int(a), out, rew)
        total += _kernel_perft(spec, out, depth - 1)
    return total


def _simple_from_kernel(s):
    visited = frozenset(h for h in range(121) if (int(s[HEADER + 123 + h // 31]) >> (h % 31)) & 1)
    return tuple(int(x) for x in s[HEADER:HEADER + 121]), int(s[TO_MOVE]), int(s[HOP_FROM]), visited, int(s[TURNS]), -1


def test_first_ply_counted_by_hand():
    """player_0 (north) at the start: the 4 pegs of row 3 step down-left or down-right (8 steps); the 3
    pegs of row 2 hop down-left or down-right over row 3 onto row 4 (6 hops); nothing else moves."""
    for n in COUNTS:
        spec = cc.make_spec(n)
        s = spec.initial_state(spec.p, make_rng(0))
        mask = np.zeros(cc.N_ACTIONS, np.int8)
        assert spec.legal_actions(spec.p, s, mask) == 14
        row3 = [hole(3, c) for c in (9, 11, 13, 15)]
        row2 = [hole(2, c) for c in (10, 12, 14)]
        want = {6 * h + d for h in row3 + row2 for d in (4, 5)}
        assert set(np.flatnonzero(mask)) == want


@pytest.mark.parametrize("n", COUNTS)
def test_perft_from_the_start_agrees_with_the_simple_rules(n):
    spec = cc.make_spec(n)
    simple = Simple(n)
    s = spec.initial_state(spec.p, make_rng(0))
    assert _simple_from_kernel(s)[0] == simple.start()[0]
    stats = {"in_chain": 0}
    depth = 3
    assert _kernel_perft(spec, s, depth) == simple.perft(simple.start(), depth, stats)
    assert simple.perft(simple.start(), 1, stats) == 14


@pytest.mark.parametrize("n", COUNTS)
def test_perft_in_the_middle_game_agrees_with_the_simple_rules(n):
    """Two plies deep from every 10th position of a random game, where hop chains happen (counted)."""
    rng = make_rng(11 + n)
    stats = {"in_chain": 0}
    spec = cc.make_spec(n)
    simple = Simple(n)
    s = spec.initial_state(spec.p, rng)
    mask = np.zeros(cc.N_ACTIONS, np.int8)
    rew = np.zeros(n)
    for ply in range(150):
        if ply % 10 == 0:
            assert _kernel_perft(spec, s, 2) == simple.perft(_simple_from_kernel(s), 2, stats)
        spec.legal_actions(spec.p, s, mask)
        spec.afterstate(spec.p, s, rng_choice_mask(rng, mask), s, rew)
    assert stats["in_chain"] > 0


# -------------------------------------------------------------- hand-drawn positions
def _position(n, pegs, mover=0, turns=0, max_moves=1000):
    """A state with ``pegs`` = {(row, col): seat}; the kernels need no 10 pegs each."""
    spec = cc.make_spec(n, max_moves)
    s = np.zeros(cc.STATE_SIZE, np.int32)
    for (r, c), seat in pegs.items():
        s[HEADER + hole(r, c)] = seat + 1
    s[TO_MOVE], s[PLY], s[HOP_FROM], s[TURNS] = mover, turns, -1, turns
    return spec, s


def _legal(spec, s):
    mask = np.zeros(cc.N_ACTIONS, np.int8)
    count = spec.legal_actions(spec.p, s, mask)
    assert count == mask.sum()
    return set(int(a) for a in np.flatnonzero(mask))


def _do(spec, s, a):
    assert a in _legal(spec, s), f"{a} not legal"
    out = np.empty_like(s)
    rew = np.zeros(spec.n_players)
    spec.afterstate(spec.p, s, a, out, rew)
    return out, rew


def _pegs(s):
    return {(int(cc.ROW[h]), int(cc.COL[h])): int(s[HEADER + h]) - 1 for h in range(121) if s[HEADER + h]}


def test_a_single_step():
    spec, s = _position(2, {(8, 12): 0, (12, 0): 1})
    # the centre peg steps in all six directions; player_1's corner peg steps right and up-right only
    assert _legal(spec, s) == {6 * hole(8, 12) + d for d in range(6)}
    out, rew = _do(spec, s, 6 * hole(8, 12) + 1)  # up-right to (7, 13)
    assert _pegs(out) == {(7, 13): 0, (12, 0): 1}
    assert out[TO_MOVE] == 1 and out[TURNS] == 1 and out[PLY] == 1 and out[HOP_FROM] == -1 and not rew.any()
    assert _legal(spec, out) == {6 * hole(12, 0) + 1, 6 * hole(12, 0) + 3}
    assert np.array_equal(s, _position(2, {(8, 12): 0, (12, 0): 1})[1])  # the input state is untouched


def test_a_hop_chain_with_a_branch_and_no_way_back():
    # player_0 on (8, 8); pegs to hop over on (8, 10), (9, 13), (7, 13), (10, 12), (9, 9)
    blockers = {(8, 10): 1, (9, 13): 1, (7, 13): 1, (10, 12): 1, (9, 9): 1}
    spec, s = _position(2, {(8, 8): 0, **blockers})
    start = hole(8, 8)
    # from (8, 8): steps UL, UR, L, DL; hop R over (8, 10); DR is (9, 9): hop to (10, 10)
    assert _legal(spec, s) == {6 * start + d for d in range(6)}
    s1, rew = _do(spec, s, 6 * start + 3)  # hop right onto (8, 12)
    assert _pegs(s1) == {(8, 12): 0, **blockers} and s1[TO_MOVE] == 0 and s1[HOP_FROM] == hole(8, 12)
    assert s1[TURNS] == 0 and s1[PLY] == 1 and not rew.any()
    # in the chain: on over (7, 13) to (6, 14), over (9, 13) to (10, 14), or pass; no steps, no back hop
    mid = hole(8, 12)
    assert _legal(spec, s1) == {6 * mid + 1, 6 * mid + 5, PASS}
    s2, _ = _do(spec, s1, 6 * mid + 5)  # to (10, 14)
    assert s2[TO_MOVE] == 0 and s2[HOP_FROM] == hole(10, 14)
    assert _legal(spec, s2) == {6 * hole(10, 14) + 2, PASS}  # over (10, 12) to (10, 10)
    s3, _ = _do(spec, s2, 6 * hole(10, 14) + 2)
    # (10, 10) could hop up-left over (9, 9) back to (8, 8), the start hole: visited, so the turn ends
    assert _pegs(s3) == {(10, 10): 0, **blockers}
    assert s3[TO_MOVE] == 1 and s3[HOP_FROM] == -1 and s3[TURNS] == 1 and s3[PLY] == 3
    assert not s3[HEADER + 123:HEADER + 127].any()
    # the other branch: from (6, 14) the only hop is back over (7, 13) onto the visited (8, 12), so the
    # turn ends right after the hop, without a pass
    t, _ = _do(spec, s1, 6 * mid + 1)
    assert _pegs(t)[(6, 14)] == 0 and t[HOP_FROM] == -1 and t[TO_MOVE] == 1 and t[TURNS] == 1 and t[PLY] == 2


def test_a_chain_ends_by_pass_and_cannot_revisit_its_holes():
    # a peg hops right twice along row 8 and could hop back left over the same peg: visited, refused
    spec, s = _position(2, {(8, 4): 0, (8, 6): 1, (8, 10): 1, (9, 11): 1})
    s1, _ = _do(spec, s, 6 * hole(8, 4) + 3)  # to (8, 8)
    assert _legal(spec, s1) == {6 * hole(8, 8) + 3, PASS}  # not back left over (8, 6): (8, 4) is visited
    s2, _ = _do(spec, s1, 6 * hole(8, 8) + 3)  # to (8, 12)
    # from (8, 12): down-left over (9, 11) to (10, 10); left over (8, 10) back to (8, 8): visited
    assert _legal(spec, s2) == {6 * hole(8, 12) + 4, PASS}
    s3, rew = _do(spec, s2, PASS)
    assert _pegs(s3) == {(8, 12): 0, (8, 6): 1, (8, 10): 1, (9, 11): 1}
    assert s3[TO_MOVE] == 1 and s3[TURNS] == 1 and s3[PLY] == 3 and s3[HOP_FROM] == -1 and not rew.any()


def _south_point():
    return [(r, c) for r in range(13, 17) for c in range(25) if (r, c) in {(int(cc.ROW[h]), int(cc.COL[h]))
                                                                         for h in range(121)}]


def test_a_finished_player_wins_and_the_game_ends():
    south = _south_point()
    assert len(south) == 10 and (16, 12) in south
    # player_0 has 9 pegs in the south point, (13, 9) still empty, and a peg on (12, 8) next to it
    pegs = {rc: 0 for rc in south if rc != (13, 9)}
    pegs.update({(12, 8): 0, (0, 12): 1})
    spec, s = _position(2, pegs)
    out, rew = _do(spec, s, 6 * hole(12, 8) + 5)  # down-right to (13, 9)
    assert out[TERMINAL] == 1 and list(rew) == [1.0, -1.0] and out[TURNS] == 1
    assert _legal(spec, out) == set()
    assert "player_0 (1) wins" in cc.render_text(spec.p, out)
    # three players: seat 0's target is also the south point; the winner gets n - 1 = 2
    spec3, s3 = _position(3, pegs)
    out3, rew3 = _do(spec3, s3, 6 * hole(12, 8) + 5)
    assert out3[TERMINAL] == 1 and list(rew3) == [2.0, -1.0, -1.0]
    # player_1 (target north) stepping into its target does not end the game for anybody else
    spec, s = _position(2, {**pegs, (12, 8): 0}, mover=1, turns=1)
    out, rew = _do(spec, s, 6 * hole(0, 12) + 4)
    assert out[TERMINAL] == 0 and not rew.any()


def test_filling_the_target_in_the_middle_of_a_chain_wins_only_when_the_chain_ends():
    south = _south_point()
    # player_0 holds 9 of its 10 target holes; (11, 9) hops down-right over (12, 10) onto the tenth, (13, 11)
    pegs = {rc: 0 for rc in south if rc != (13, 11)}
    pegs.update({(11, 9): 0, (12, 10): 1, (12, 12): 1, (0, 12): 1})
    spec, s = _position(2, pegs)
    s1, rew = _do(spec, s, 6 * hole(11, 9) + 5)  # over (12, 10) onto (13, 11): all 10 target holes held
    assert all(s1[HEADER + hole(*rc)] == 1 for rc in south)
    # from (13, 11) the peg may hop on up-right over (12, 12) to (11, 13): the chain goes on, no win yet
    assert s1[TERMINAL] == 0 and not rew.any() and s1[TO_MOVE] == 0
    assert _legal(spec, s1) == {6 * hole(13, 11) + 1, PASS}
    won, rew = _do(spec, s1, PASS)
    assert won[TERMINAL] == 1 and list(rew) == [1.0, -1.0]
    left, rew = _do(spec, s1, 6 * hole(13, 11) + 1)  # hopping out again leaves the target unfilled
    assert left[TERMINAL] == 0 and not rew.any()


def test_a_blocked_player_can_only_pass():
    # player_1's single peg sits in the north tip, both neighbours held, both hops blocked
    spec, s = _position(2, {(0, 12): 1, (1, 11): 0, (1, 13): 0, (2, 10): 0, (2, 14): 0, (8, 12): 0}, mover=1, turns=1)
    assert _legal(spec, s) == {PASS}
    out, rew = _do(spec, s, PASS)
    assert _pegs(out) == _pegs(s) and out[TO_MOVE] == 0 and out[TURNS] == 2 and not rew.any()


def test_the_move_limit_counts_turns_and_draws():
    spec = cc.make_spec(2, max_moves=3)
    s = spec.initial_state(spec.p, make_rng(0))
    # turn 1: player_0 hops from (2, 10) over (3, 9) to (4, 8), where no further hop exists; then two steps
    s, _ = _do(spec, s, 6 * hole(2, 10) + 4)  # to (4, 8)
    assert s[TURNS] == 1 and s[TO_MOVE] == 1 and s[TERMINAL] == 0
    s, _ = _do(spec, s, 6 * hole(13, 9) + 0)  # player_1 steps up-left to (12, 8)
    s, rew = _do(spec, s, 6 * hole(3, 11) + 4)  # player_0 steps to (4, 10): third turn
    assert s[TERMINAL] == 1 and s[TURNS] == 3 and s[PLY] == 3 and not rew.any()
    assert _legal(spec, s) == set() and "draw" in cc.render_text(spec.p, s)
    # a win on the last allowed turn is still a win
    pegs = {rc: 0 for rc in _south_point() if rc != (13, 9)}
    pegs.update({(12, 8): 0, (0, 12): 1})
    spec, s = _position(2, pegs, turns=4, max_moves=5)
    out, rew = _do(spec, s, 6 * hole(12, 8) + 5)
    assert out[TERMINAL] == 1 and out[TURNS] == 5 and list(rew) == [1.0, -1.0]


# ------------------------------------------------------------------- validate
def _start(n=2):
    spec = cc.make_spec(n)
    return spec, spec.initial_state(spec.p, make_rng(0))


def test_validate_accepts_reachable_positions():
    rng = make_rng(3)
    for n in COUNTS:
        spec = cc.make_spec(n, max_moves=40)
        s = spec.initial_state(spec.p, rng)
        mask = np.zeros(cc.N_ACTIONS, np.int8)
        rew = np.zeros(n)
        while True:
            assert spec.validate(spec.p, s) == ""
            if not spec.legal_actions(spec.p, s, mask):
                break
            spec.afterstate(spec.p, s, rng_choice_mask(rng, mask), s, rew)


def _edited(s, changes):
    t = s.copy()
    for index, value in changes.items():
        t[index] = value
    return t


def test_validate_reasons():
    spec, s = _start()
    p = spec.p
    assert spec.validate(p, s) == ""
    assert "length" in spec.validate(p, s[:-1])
    assert "player_0 has 11 pegs" in spec.validate(p, _edited(s, {HEADER + 60: 1}))
    assert "holes must be" in spec.validate(p, _edited(s, {HEADER + 60: 3}))
    assert "must be to move" in spec.validate(p, _edited(s, {TO_MOVE: 1}))
    assert "ply count" in spec.validate(p, _edited(s, {TURNS: 2}))
    assert "turn count" in spec.validate(p, _edited(s, {TURNS: 1002, PLY: 2000}))
    assert "no hop chain" in spec.validate(p, _edited(s, {HEADER + 123: 1}))
    assert "terminal flag" in spec.validate(p, _edited(s, {TERMINAL: 1}))
    assert "not player_0" in spec.validate(p, _edited(s, {HOP_FROM: 120}))
    # player_1 (target: the north point) has filled it; player_0 sits in the north-east point
    won = s.copy()
    won[HEADER:HEADER + 121] = 0
    won[HEADER + cc.POINTS[0]] = 2
    won[HEADER + cc.POINTS[1]] = 1
    won[TURNS] = won[PLY] = 2
    assert spec.validate(p, _edited(won, {TERMINAL: 1})) == ""  # player_1 moved last and won
    assert "terminal flag" in spec.validate(p, won)
    assert "did not move last" in spec.validate(p, _edited(won, {TURNS: 3, PLY: 3, TO_MOVE: 1, TERMINAL: 1}))
    # a chain in progress: player_0 hopped from (2, 10) over (3, 9) to (4, 8), a hop that ends the turn
    visited = {hole(2, 10), hole(4, 8)}
    words = [sum(1 << (h % 31) for h in visited if h // 31 == w) for w in range(4)]
    chain = _edited(s, {HEADER + hole(2, 10): 0, HEADER + hole(4, 8): 1, HOP_FROM: hole(4, 8), PLY: 1,
                        **{HEADER + 123 + w: words[w] for w in range(4)}})
    assert "already ended" in spec.validate(p, chain)
    assert "must be empty" in spec.validate(p, _edited(chain, {HEADER + hole(2, 10): 1, HEADER + hole(0, 12): 0}))


def test_set_state_refuses_an_impossible_position():
    env = chinese_checkers_v0.raw_env()
    env.reset(seed=0)
    bad = env.get_state()
    bad[HEADER + 60] = 1
    with pytest.raises(ValueError, match="pegs"):
        env.set_state(bad)


@pytest.mark.parametrize("params", [{"players": 5}, {"players": 1}, {"players": 7}, {"players": "2"},
                                    {"players": True}, {"max_moves": 0}, {"max_moves": 100_001},
                                    {"max_moves": 1.5}])
def test_bad_parameters_raise_value_error_naming_the_allowed_values(params):
    with pytest.raises(ValueError, match=r"2, 3, 4, 6|1\.\.100000"):
        cc.make_spec(**params)
    with pytest.raises(ValueError):
        chinese_checkers_v0.env(**params)


def test_illegal_actions_raise():
    env = chinese_checkers_v0.env(players=3)
    env.reset(seed=0)
    for bad in (PASS, 0, 727, -1, "3"):
        with pytest.raises(ValueError, match="illegal action"):
            env.step(bad)


# --------------------------------------------------------- spec, views, symmetries
def test_spec_fields_and_observation_layout():
    spec = cc.make_spec(3)
    assert spec.id == "chinese_checkers_v0" and spec.params == {"players": 3, "max_moves": 1000}
    assert spec.n_actions == 727 and spec.n_cells == 121 and spec.n_cell_values == 4
    assert spec.obs_shape == (6 * 121 + 3,) and spec.state_size == 130
    assert spec.grid_shape == () and spec.paint is not None  # 121 holes are no rows x cols array
    assert spec.action_names[6 * 60 + 3] == "60R" and spec.action_names[PASS] == "pass"
    s = spec.initial_state(spec.p, make_rng(0))
    s, _ = _do(spec, s, 6 * hole(2, 10) + 5)  # player_0 hops over (3, 11) to (4, 12); the chain ends
    obs = np.zeros(spec.obs_shape, np.int8)
    spec.observe(spec.p, s, 2, obs)  # seen by player_2: planes player_2, player_0, player_1, empty
    planes = obs[:4 * 121].reshape(4, 121)
    assert planes[0, cc.POINTS[4]].all() and planes[1, hole(4, 12)] and planes[2, cc.POINTS[2]].all()
    assert planes.sum(axis=0).tolist() == [1] * 121 and planes[3].sum() == 91
    assert obs[4 * 121:4 * 121 + 3].tolist() == [0, 0, 1]  # player_1 to move = 2 seats after player_2
    assert not obs[4 * 121 + 3:].any()  # no chain going on
    board = np.zeros(121, np.int32)
    spec.board(spec.p, s, board)
    assert np.array_equal(board, s[HEADER:HEADER + 121]) and board[hole(4, 12)] == 1


def test_observation_marks_the_chain():
    spec, s = _position(2, {(8, 4): 0, (8, 6): 1, (8, 10): 1, (0, 12): 1})
    s1, _ = _do(spec, s, 6 * hole(8, 4) + 3)
    obs = np.zeros(spec.obs_shape, np.int8)
    spec.observe(spec.p, s1, 0, obs)
    base = 3 * 121 + 2
    assert np.flatnonzero(obs[base:base + 121]).tolist() == [hole(8, 8)]
    assert np.flatnonzero(obs[base + 121:]).tolist() == sorted([hole(8, 4), hole(8, 8)])


def _hexagon_symmetries():
    """The 12 symmetries of the star as hole permutations, in cube coordinates."""
    out = []
    for perm in itertools.permutations(range(3)):
        for sign in (1, -1):
            m = []
            for q, r in STAR:
                c = (q, r, -q - r)
                t = tuple(sign * c[perm[i]] for i in range(3))
                m.append(AT[(t[0], t[1])])
            out.append(m)
    return out


@pytest.mark.parametrize("n", COUNTS)
def test_symmetries_are_exactly_those_keeping_every_home_point(n):
    spec = cc.make_spec(n)
    points = [set(cc.POINTS[h].tolist()) for h in HOMES[n]]
    keeping = sorted(m for m in _hexagon_symmetries()
                     if all({m[i] for i in pt} == pt for pt in points))
    assert len(_hexagon_symmetries()) == 12 and len({tuple(m) for m in _hexagon_symmetries()}) == 12
    perms = spec.symmetries(spec.p)
    assert sorted(perms.tolist()) == keeping
    assert perms.shape[0] == (2 if n == 2 else 1) and perms[0].tolist() == list(range(121))


def test_mirror_commutes_with_moves_including_chains():
    spec = cc.make_spec(2)
    perms, acts = spec.symmetries(spec.p), spec.action_symmetries(spec.p)
    assert acts.shape == (2, 727) and acts[0].tolist() == list(range(727)) and acts[1, PASS] == PASS
    m = perms[1]

    def mirrored(s):
        t = s.copy()
        t[HEADER:HEADER + 121] = s[HEADER:HEADER + 121][m]
        t[HOP_FROM] = m[s[HOP_FROM]] if s[HOP_FROM] >= 0 else -1
        t[HEADER + 123:] = 0
        for h in range(121):
            if (int(s[HEADER + 123 + h // 31]) >> (h % 31)) & 1:
                t[HEADER + 123 + m[h] // 31] |= 1 << (m[h] % 31)
        return t

    rng = make_rng(5)
    checked = chains = 0
    s = spec.initial_state(spec.p, rng)
    rew = np.zeros(2)
    for _ in range(200):
        t = mirrored(s)
        legal = _legal(spec, s)
        assert _legal(spec, t) == {int(acts[1, a]) for a in legal}
        for a in legal:
            after, after_t = np.empty_like(s), np.empty_like(t)
            spec.afterstate(spec.p, s, a, after, rew)
            spec.afterstate(spec.p, t, int(acts[1, a]), after_t, rew)
            assert np.array_equal(mirrored(after), after_t)
            checked += 1
        chains += s[HOP_FROM] >= 0
        mask = np.zeros(727, np.int8)
        spec.legal_actions(spec.p, s, mask)
        spec.afterstate(spec.p, s, rng_choice_mask(rng, mask), s, rew)
    assert checked > 1000 and chains > 0


def test_text_and_rgb_render():
    spec, s = _start(2)
    text = cc.render_text(spec.p, s).split("\n")
    assert text[0] == " " * 12 + "1" and text[3] == " " * 9 + "1 1 1 1"
    assert text[4] == " ".join("." * 13) and text[8] == " " * 4 + " ".join("." * 9)
    assert text[16] == " " * 12 + "2" and text[17] == "turn 1: player_0 (1) to move"
    env = chinese_checkers_v0.env(players=6, render_mode="rgb_array")
    env.reset(seed=0)
    img = env.render()
    cell = CELL
    assert img.dtype == np.uint8 and img.shape == (17 * cell + 2, 25 * cell + 2, 3)
    grid = cc.paint(env.unwrapped.game.p, env.unwrapped.get_state())
    assert (grid > 0).sum() == 121 and (grid == 1).sum() == 61 and all((grid == 3 + k).sum() == 10 for k in range(6))
    ansi = chinese_checkers_v0.env(players=4, render_mode="ansi")
    ansi.reset(seed=0)
    assert "4 4 4 4" in ansi.render()


# ------------------------------------------------------------- whole games
@pytest.mark.parametrize("n", COUNTS)
def test_random_games_end_within_max_plies_and_rewards_sum_to_zero(n):
    spec = cc.make_spec(n, max_moves=300)
    rng = make_rng(20 + n)
    s = spec.initial_state(spec.p, rng)
    total = 0
    for _ in range(5):
        plies = random_playouts(kernels_of(spec), spec.p, s, 1, spec.n_actions, n, rng)
        assert 300 <= plies <= spec.max_plies
        total += plies
    assert total > 1500


def _greedy_game(spec, rng):
    """A goal-seeking game: mostly the action that brings the moving peg closest to its target's far tip.

    Returns the actions, the final state and everybody's summed rewards.
    """
    n = spec.n_players
    s = spec.initial_state(spec.p, make_rng(0))
    tips = []
    for k in range(n):
        target = cc.POINTS[(int(spec.p[cc.P_HOMES + k]) + 3) % 6]
        tips.append(STAR[max(target, key=lambda h: _hex_distance(STAR[h], (0, 0)))])
    total = np.zeros(n)
    rew = np.zeros(n)
    moves = []
    while not s[TERMINAL]:
        legal = sorted(_legal(spec, s))
        if rng.random() < 0.1:
            a = int(rng.choice(legal))
        else:
            tip = tips[int(s[TO_MOVE])]
            scores = []
            for a in legal:
                if a == PASS:
                    scores.append(0.0)
                    continue
                h, d = divmod(a, 6)
                nb = int(cc.NEIGHBOUR[h, d])
                dest = nb if s[HEADER + nb] == 0 and s[HOP_FROM] < 0 else int(cc.HOP[h, d])
                scores.append(_hex_distance(STAR[h], tip) - _hex_distance(STAR[dest], tip) + 0.5 * rng.random())
            a = legal[int(np.argmax(scores))]
        spec.afterstate(spec.p, s, a, s, rew)
        total += rew
        moves.append(a)
    return moves, s, total


def _hex_distance(a, b):
    dq, dr = a[0] - b[0], a[1] - b[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


@pytest.mark.parametrize("n", COUNTS)
def test_goal_seeking_games_are_won(n):
    spec = cc.make_spec(n)
    rng = np.random.default_rng(n)
    for _ in range(2):
        _, s, total = _greedy_game(spec, rng)
        winner = (int(s[TO_MOVE]) - 1) % n
        assert s[TURNS] < 1000 and spec.validate(spec.p, s) == ""
        assert total[winner] == n - 1 and sum(total) == 0 and sorted(total)[:-1] == [-1] * (n - 1)
        assert all(s[HEADER + h] == winner + 1 for h in cc.POINTS[(int(spec.p[cc.P_HOMES + winner]) + 3) % 6])


# ------------------------------------------------------------- OpenSpiel lockstep
def _openspiel_view(text):
    """Holes, player to move and chain hole from pyspiel's state string (its rows list the holes in order)."""
    lines = text.split("\n")
    holes = [0 if ch == "." else int(ch) for line in lines[:17] for ch in line if ch != " "]
    status = lines[17].split()
    hopping = int(status[-1].rstrip(")")) if "hopping" in lines[17] else -1
    return holes, int(status[1]), hopping


def _lockstep(pyspiel, n, max_moves, choose):
    spec = cc.make_spec(n, max_moves)
    game = pyspiel.load_game("chinese_checkers", {"players": n, "max_moves": max_moves})
    ps = game.new_initial_state()
    s = spec.initial_state(spec.p, make_rng(0))
    total, rew = np.zeros(n), np.zeros(n)
    mask = np.zeros(cc.N_ACTIONS, np.int8)
    obs = np.zeros(spec.obs_shape, np.int8)
    width = (n + 1) * 121 + n
    passes = chain_steps = 0
    while True:
        assert bool(s[TERMINAL]) == ps.is_terminal()
        holes, to_move, hopping = _openspiel_view(str(ps))
        assert holes == s[HEADER:HEADER + 121].tolist() and hopping == s[HOP_FROM]
        assert to_move == s[TO_MOVE]
        for seat in range(n):
            spec.observe(spec.p, s, seat, obs)
            assert np.array_equal(obs[:width], np.asarray(ps.observation_tensor(seat), dtype=np.int8))
        spec.legal_actions(spec.p, s, mask)
        if ps.is_terminal():
            assert not mask.any()
            break
        legal = ps.legal_actions()
        assert np.flatnonzero(mask).tolist() == legal and ps.current_player() == s[TO_MOVE]
        a = choose(s, legal)
        passes += a == PASS
        chain_steps += s[HOP_FROM] >= 0
        ps.apply_action(a)
        spec.afterstate(spec.p, s, a, s, rew)
        total += rew
    assert total.tolist() == ps.returns()
    assert s[PLY] == len(ps.history())
    return total, passes, chain_steps


@pytest.mark.parametrize("n", COUNTS)
def test_lockstep_with_openspiel_random_games(n):
    pyspiel = pytest.importorskip("pyspiel")
    rng = np.random.default_rng(100 + n)
    for max_moves in (60, 150):
        total, _, _ = _lockstep(pyspiel, n, max_moves, lambda s, legal: int(rng.choice(legal)))
        assert not total.any()  # random play does not finish a point in so few turns: drawn at the limit


@pytest.mark.parametrize("n", COUNTS)
def test_lockstep_with_openspiel_goal_seeking_games(n):
    pyspiel = pytest.importorskip("pyspiel")
    spec = cc.make_spec(n)
    rng = np.random.default_rng(200 + n)
    passes = chains = 0
    for _ in range(3):
        replay = iter(_greedy_game(spec, rng)[0])
        total, p, c = _lockstep(pyspiel, n, 1000, lambda s, legal, moves=replay: next(moves))
        assert sorted(total) == [-1] * (n - 1) + [n - 1]  # somebody won
        passes += p
        chains += c
    assert passes > 0 and chains > 0


# --------------------------------------------------------------- PettingZoo, Gymnasium
@pytest.mark.parametrize("n", COUNTS)
def test_pettingzoo_api_and_seed_tests(n):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(chinese_checkers_v0.env(players=n, max_moves=30), num_cycles=200)
        seed_test(lambda: chinese_checkers_v0.env(players=n, max_moves=30), num_cycles=50)


@pytest.mark.parametrize("n", COUNTS)
def test_gymnasium_single_agent_wrapper(n):
    from farl_envs.gym_env import SingleAgentEnv

    env = SingleAgentEnv(game="chinese_checkers", seat="alternate", players=n, max_moves=40)
    rng = np.random.default_rng(n)
    for episode in range(2):
        obs, info = env.reset(seed=episode)
        assert obs.shape == ((n + 3) * 121 + n,)
        done = False
        while not done:
            legal = np.flatnonzero(env.action_masks())
            obs, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
            done = terminated or truncated
        assert reward == 0.0  # random play is drawn at the move limit


# ------------------------------------------------------------- the generic searchers
def test_maxn_and_mcts_play_through_evaluate():
    from farl_agents.evaluate import evaluate
    from farl_agents.opponents import make_opponent

    for n in (2, 3):
        spec = cc.make_spec(n, max_moves=6)
        for name in ("maxn2", "mcts30"):
            result = evaluate(spec, make_opponent(name, spec), "random", n_games=1, seed=1)
            m = result.matchups[0]
            assert m.n_games == n  # one game in every seat
            assert all(g["plies"] >= 6 for g in m.games)
