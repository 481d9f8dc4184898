"""Santorini rules against hand-built positions and a second implementation.

The second implementation (:class:`RefSantorini`) is written here from the
rulebook alone: (row, column) coordinates, a dict of heights, each player's
workers in a list, and a turn listed as (worker, destination, build) triples.
Unlike the kernel it does not use the shortcut "a build can always follow a
move": it looks for a whole turn (move *and* build) before saying a player is
stuck. Its action numbers come from the documented formula (placement pairs
counted here, not read from the module's table). Positions are written as
5 strings of 5 cells, row 1 first; a cell is its height (``D`` a dome) or a
worker: ``x``/``X``/``y``/``Y`` player_0's on level 0/1/2/3, ``o``/``O``/``p``/``P``
player_1's (``_position``).
"""
from __future__ import annotations

import warnings
from collections import Counter
from itertools import combinations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from farl_envs import santorini_v0
from farl_envs.core.playout import playouts
from farl_envs.core.render import CELL
from farl_envs.core.rng import make_rng, rng_choice_mask
from farl_envs.core.spec import HEADER, PLY, TERMINAL, TO_MOVE
from farl_envs.games import santorini as st


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


SPEC = st.make_spec()
STEPS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]  # as documented: NW N NE W E SW S SE


# ------------------------------------------------------- the second implementation
def ref_pair_number(i, j):
    """Index of the unordered pair {i, j} among all pairs of 25 cells listed as (0,1), (0,2) .. (23,24)."""
    i, j = min(i, j), max(i, j)
    return sum(24 - k for k in range(i)) + (j - i - 1)


class RefSantorini:
    """Santorini from the rulebook, on coordinates."""

    def __init__(self):
        self.height = {(r, c): 0 for r in range(5) for c in range(5)}
        self.workers = [[], []]
        self.to_move, self.ply, self.over = 0, 0, False

    def copy(self):
        r = RefSantorini.__new__(RefSantorini)
        r.height = dict(self.height)
        r.workers = [list(w) for w in self.workers]
        r.to_move, r.ply, r.over = self.to_move, self.ply, self.over
        return r

    def occupied(self, sq):
        return any(sq in w for w in self.workers)

    @staticmethod
    def around(sq):
        return [(sq[0] + dr, sq[1] + dc) for dr, dc in STEPS if 0 <= sq[0] + dr < 5 and 0 <= sq[1] + dc < 5]

    def turns(self, player):
        """Every whole turn of ``player`` as (from, to, build); build None for a winning move."""
        out = []
        for w in self.workers[player]:
            for to in self.around(w):
                if self.occupied(to) or self.height[to] == 4 or self.height[to] > self.height[w] + 1:
                    continue
                if self.height[w] == 2 and self.height[to] == 3:
                    out.append((w, to, None))
                    continue
                for b in self.around(to):
                    # the worker now stands on ``to`` and has left ``w``
                    busy = (b == to) or (b != w and self.occupied(b))
                    if not busy and self.height[b] < 4:
                        out.append((w, to, b))
        return out

    @staticmethod
    def number(w, to, b):
        m = STEPS.index((to[0] - w[0], to[1] - w[1]))
        if b is None:  # the winning move is numbered with the step back to where the worker came from
            b = w
        return 64 * (5 * w[0] + w[1]) + 8 * m + STEPS.index((b[0] - to[0], b[1] - to[1]))

    def legal_map(self):
        """{action number: what it does}: a pair of cells (placement) or a (from, to, build) turn."""
        if self.over:
            return {}
        if self.ply < 2:
            free = [5 * r + c for (r, c) in self.height if not self.occupied((r, c))]
            return {1600 + ref_pair_number(i, j): (i, j) for i, j in combinations(free, 2)}
        return {self.number(*t): t for t in self.turns(self.to_move)}

    def legal(self):
        return set(self.legal_map())

    def play(self, a, what=None):
        """Play action ``a`` (``what``: its entry of ``legal_map``); return the rewards [player_0, player_1]."""
        me = self.to_move
        rewards = [0.0, 0.0]
        if what is None:
            what = self.legal_map()[a]
        if self.ply < 2:
            i, j = what
            self.workers[me] = [divmod(i, 5), divmod(j, 5)]
        else:
            w, to, b = what
            self.workers[me][self.workers[me].index(w)] = to
            if b is None:
                self.over = True
            else:
                self.height[b] += 1
        self.ply += 1
        self.to_move = 1 - me
        if not self.over and self.ply >= 2 and not self.turns(self.to_move):
            self.over = True  # the player to move cannot make a whole turn
        if self.over:
            rewards[me], rewards[1 - me] = 1.0, -1.0
        return rewards

    def cells(self):
        """The board in the documented n-tuple encoding."""
        out = []
        for r in range(5):
            for c in range(5):
                h = self.height[(r, c)]
                owner = [q for q in (0, 1) if (r, c) in self.workers[q]]
                out.append(h if not owner else 5 + 4 * owner[0] + h)
        return out


# ------------------------------------------------------------------ helpers
WORKER_SYMBOLS = {"x": (0, 0), "X": (0, 1), "y": (0, 2), "Y": (0, 3), "o": (1, 0), "O": (1, 1), "p": (1, 2),
                  "P": (1, 3)}


def _position(rows, ply, to_move=None, terminal=0):
    """A state from 5 strings of 5 symbols: ``0``-``3`` empty height, ``D`` dome, worker symbols above."""
    s = np.zeros(st.STATE_SIZE, dtype=np.int32)
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            if ch in WORKER_SYMBOLS:
                q, h = WORKER_SYMBOLS[ch]
                s[HEADER + 5 * r + c] = 5 + 4 * q + h
            else:
                s[HEADER + 5 * r + c] = 4 if ch == "D" else int(ch)
    s[PLY] = ply
    s[TO_MOVE] = ply % 2 if to_move is None else to_move
    s[TERMINAL] = terminal
    return s


def _cell(name):
    return 5 * (int(name[1]) - 1) + "abcde".index(name[0])


def _turn(src, dst, build):
    """Action number of "move src to dst, build on build" from cell names."""
    c, t, b = _cell(src), _cell(dst), _cell(build)
    m = STEPS.index((t // 5 - c // 5, t % 5 - c % 5))
    return 64 * c + 8 * m + STEPS.index((b // 5 - t // 5, b % 5 - t % 5))


def _legal(s):
    mask = np.zeros(SPEC.n_actions, dtype=np.int8)
    n = SPEC.legal_actions(SPEC.p, s, mask)
    assert n == mask.sum()
    return set(int(a) for a in np.flatnonzero(mask))


def _after(s, a):
    out = np.empty_like(s)
    rew = np.zeros(2)
    SPEC.afterstate(SPEC.p, s, a, out, rew)
    return out, list(rew)


def _ref_from_state(s):
    ref = RefSantorini()
    for c in range(25):
        v = int(s[HEADER + c])
        sq = divmod(c, 5)
        if v >= 5:
            ref.workers[(v - 5) // 4].append(sq)
            ref.height[sq] = (v - 5) % 4
        else:
            ref.height[sq] = v
    ref.to_move, ref.ply, ref.over = int(s[TO_MOVE]), int(s[PLY]), bool(s[TERMINAL])
    return ref


# ------------------------------------------------------------- hand-built positions
def test_first_turn_counts_on_the_flat_board():
    """player_0 on a1 (a corner) and c3 (the centre), player_1 on e1 and a5; counted by hand.

    a1 moves to b1 (5 builds: a1 a2 b2 c1 c2), a2 (5: a1 b1 b2 a3 b3) or b2 (7: all neighbours but c3,
    the other worker); c3 has 8 moves, each with 8 builds minus the neighbours among a1, e1, a5:
    b2 7, c2 8, d2 7, b3 8, d3 8, b4 7, c4 8, d4 8."""
    s = _position(["x000o", "00000", "00x00", "00000", "o0000"], ply=2)
    assert st.validate(SPEC.p, s) == ""
    legal = _legal(s)
    assert len(legal) == (5 + 5 + 7) + (7 + 8 + 7 + 8 + 8 + 7 + 8 + 8) == 78
    assert _turn("a1", "b2", "a1") in legal and _turn("a1", "b2", "c3") not in legal
    assert _turn("c3", "d2", "c3") in legal and _turn("c3", "d2", "e1") not in legal


def test_move_up_at_most_one_level_and_down_any_number():
    s = _position(["x2200", "13000", "00000", "00000", "00xoo"], ply=10)
    assert st.validate(SPEC.p, s) == ""
    dests = {(a // 8) % 8 for a in _legal(s) if a // 64 == 0}
    # from a1 (level 0): b1 is level 2 (too high), b2 level 3 ... so only a2 (level 1)
    assert dests == {STEPS.index((1, 0))}
    # a worker on level 2 may step down to level 0 and up to level 3
    s = _position(["000D0", "0y300", "00000", "10000", "x00oo"], ply=12)
    assert st.validate(SPEC.p, s) == ""
    dests = {(a // 8) % 8 for a in _legal(s) if a // 64 == _cell("b2")}
    assert len(dests) == 8  # every neighbour of b2 is free and at most level 3
    s = _position(["000D0", "0x300", "00000", "10000", "x00oo"], ply=10)
    assert st.validate(SPEC.p, s) == ""
    dests = {(a // 8) % 8 for a in _legal(s) if a // 64 == _cell("b2")}
    assert dests == set(range(8)) - {STEPS.index((0, 1))}  # level 0 cannot climb to c2's level 3


def test_workers_and_domes_block_moves_and_builds():
    s = _position(["xoD00", "o0000", "00000", "00000", "0000x"], ply=6)
    assert st.validate(SPEC.p, s) == ""
    a1_turns = [a for a in _legal(s) if a // 64 == 0]
    # a1's only free neighbour is b2; from b2 the builds are every neighbour except b1, a2 (workers) and c1 (dome)
    assert {(a // 8) % 8 for a in a1_turns} == {STEPS.index((1, 1))}
    assert {_cell(SPEC.action_names[a].split("+")[1]) for a in a1_turns} == {_cell(n) for n in
                                                                               ("a1", "c2", "a3", "b3", "c3")}


def test_build_adds_a_level_and_a_dome_on_level_3():
    s = _position(["X3000", "20000", "00x00", "00000", "000oo"], ply=8)
    assert st.validate(SPEC.p, s) == ""
    after, rew = _after(s, _turn("a1", "a2", "b1"))
    assert rew == [0, 0] and not after[TERMINAL]
    assert after[HEADER + _cell("b1")] == st.DOME and after[HEADER + _cell("a2")] == 5 + 2
    assert after[HEADER + _cell("a1")] == 1 and after[TO_MOVE] == 1 and after[PLY] == 9
    assert st.validate(SPEC.p, after) == ""
    after2, _ = _after(s, _turn("a1", "b2", "a1"))  # builds on the cell it just left
    assert after2[HEADER + _cell("a1")] == 2 and after2[HEADER + _cell("b2")] == 5
    # nothing may enter the dome or build on it: the level-2 worker on a2 never names b1
    mine = after.copy()
    mine[TO_MOVE] = 0
    turns = [SPEC.action_names[a] for a in _legal(mine) if a // 64 == _cell("a2")]
    assert turns and all("b1" not in name for name in turns)


def test_moving_up_onto_level_3_wins_at_once_without_a_build():
    s = _position(["y3000", "00000", "00x00", "00001", "000oo"], ply=8)
    assert st.validate(SPEC.p, s) == ""
    legal = _legal(s)
    win = _turn("a1", "b1", "a1")
    assert win in legal
    assert all(a // 8 != win // 8 for a in legal - {win})  # the winning move has one encoding only
    after, rew = _after(s, win)
    assert rew == [1.0, -1.0] and after[TERMINAL] == 1
    assert after[HEADER + _cell("b1")] == 5 + 3 and after[HEADER + _cell("a1")] == 2  # no build
    assert st.validate(SPEC.p, after) == "" and _legal(after) == set()
    assert SPEC.action_names[win] == "a1-b1+a1"
    # a level-1 worker next to level 3 cannot climb it
    s = _position(["X3000", "00000", "00x00", "00001", "001oo"], ply=8)
    assert all((a // 8) % 8 != STEPS.index((0, 1)) for a in _legal(s) if a // 64 == 0)


def test_player_who_cannot_move_loses():
    # player_1 (to move after this turn) has workers on a1 and e5, boxed in by domes and level-2 cells
    # a1's last way out is b2 (level 1), which player_0 closes below; e5 is walled in already
    s = _position(["o2100", "D1000", "00x00", "000D3", "00x3o"], ply=20)
    assert st.validate(SPEC.p, s) == ""
    after, rew = _after(s, _turn("c3", "c2", "b2"))  # b2 becomes level 2: a1 (level 0) is stuck
    assert rew == [1.0, -1.0] and after[TERMINAL] == 1 and after[TO_MOVE] == 1
    assert st.validate(SPEC.p, after) == ""
    # the other build leaves player_1 a move: the game goes on
    after, rew = _after(s, _turn("c3", "c2", "c1"))
    assert rew == [0, 0] and not after[TERMINAL]


def test_a_move_can_always_be_followed_by_a_build():
    """The reference looks for whole turns; on random positions, a player with a move always has a turn."""
    rng = make_rng(5)
    mask = np.zeros(SPEC.n_actions, np.int8)
    rew = np.zeros(2)
    checked = 0
    for _ in range(30):
        s = SPEC.initial_state(SPEC.p, rng)
        while not s[TERMINAL]:
            if s[PLY] >= 2:
                ref = _ref_from_state(s)
                for q in (0, 1):
                    can_move = any(not ref.occupied(t) and ref.height[t] < 4 and ref.height[t] <= ref.height[w] + 1
                                   for w in ref.workers[q] for t in ref.around(w))
                    assert can_move == bool(ref.turns(q))
                    checked += 1
            SPEC.legal_actions(SPEC.p, s, mask)
            SPEC.afterstate(SPEC.p, s, rng_choice_mask(rng, mask), s, rew)
    assert checked > 1000


def test_placement_phase():
    s = SPEC.initial_state(SPEC.p, make_rng(0))
    legal = _legal(s)
    assert legal == set(range(1600, 1900))  # any 2 of the 25 cells: C(25, 2) = 300
    a = st.place_action(12, 3)
    assert a == st.place_action(3, 12) and SPEC.action_names[a] == "d1,c3"
    s, rew = _after(s, a)
    assert rew == [0, 0] and s[TO_MOVE] == 1 and s[PLY] == 1
    assert s[HEADER + 3] == s[HEADER + 12] == 5
    legal = _legal(s)
    assert len(legal) == 23 * 22 // 2  # the second player chooses 2 of the 23 free cells
    assert st.place_action(3, 4) not in legal and st.place_action(4, 5) in legal
    s, _ = _after(s, st.place_action(0, 24))
    assert s[HEADER + 0] == s[HEADER + 24] == 9 and s[TO_MOVE] == 0 and s[PLY] == 2
    assert all(a < 1600 for a in _legal(s))  # from now on only turns
    with pytest.raises(ValueError, match="two different cells"):
        st.place_action(3, 3)
    names = SPEC.action_names
    assert len(names) == len(set(names)) == SPEC.n_actions and not any(" " in n for n in names)


# --------------------------------------------------- against the second implementation
def test_random_games_agree_with_the_second_implementation():
    rng = make_rng(11)
    mask = np.zeros(SPEC.n_actions, dtype=np.int8)
    rew = np.zeros(2)
    endings = Counter()
    for _ in range(40):
        s = SPEC.initial_state(SPEC.p, rng)
        ref = RefSantorini()
        total = np.zeros(2)
        while True:
            SPEC.legal_actions(SPEC.p, s, mask)
            assert set(np.flatnonzero(mask)) == ref.legal()
            assert list(s[HEADER:]) == ref.cells() and s[TO_MOVE] == ref.to_move and s[PLY] == ref.ply
            if s[PLY] >= 2 and not s[TERMINAL]:  # the board alone tells who is to move (docstring)
                assert s[TO_MOVE] == st.heights(s).sum() % 2
            if s[TERMINAL]:
                break
            a = rng_choice_mask(rng, mask)
            SPEC.afterstate(SPEC.p, s, a, s, rew)
            assert list(rew) == ref.play(a)
            assert bool(s[TERMINAL]) == ref.over
            total += rew
            assert st.validate(SPEC.p, s) == ""
        assert ref.over and s[PLY] <= SPEC.max_plies
        climbed = 8 in s[HEADER:] or 12 in s[HEADER:]  # a worker on level 3
        endings["climb" if climbed else "stuck"] += 1
        assert sorted(total) == [-1, 1]
    assert endings["climb"] >= 1 and endings["stuck"] >= 1  # both ways of ending are compared


def _perft_kernel(s, depth, tally):
    if depth == 0 or s[TERMINAL]:
        tally[("leaf", bool(s[TERMINAL]))] += 1
        return
    for a in sorted(_legal(s)):
        out, rew = _after(s, a)
        if any(rew):
            tally[("rewards", tuple(rew))] += 1
        _perft_kernel(out, depth - 1, tally)


def _perft_ref(ref, depth, tally):
    if depth == 0 or ref.over:
        tally[("leaf", ref.over)] += 1
        return
    for a, what in sorted(ref.legal_map().items()):
        child = ref.copy()
        rew = child.play(a, what)
        if any(rew):
            tally[("rewards", tuple(rew))] += 1
        _perft_ref(child, depth - 1, tally)


def test_perft_of_the_placements():
    s0 = SPEC.initial_state(SPEC.p, make_rng(0))
    assert len(_legal(s0)) == 300
    total = sum(len(_legal(_after(s0, a)[0])) for a in range(1600, 1900))
    assert total == 300 * 253  # C(25, 2) * C(23, 2)


def test_perft_from_middle_game_positions_agrees():
    """Two-ply move counts with every outcome from random positions late in the game, where the rules bite."""
    rng = make_rng(21)
    mask = np.zeros(SPEC.n_actions, dtype=np.int8)
    rew = np.zeros(2)
    checked = 0
    outcomes = Counter()
    for game in range(40):
        s = SPEC.initial_state(SPEC.p, rng)
        stop = 20 + game % 40
        while not s[TERMINAL] and s[PLY] < stop:
            SPEC.legal_actions(SPEC.p, s, mask)
            SPEC.afterstate(SPEC.p, s, rng_choice_mask(rng, mask), s, rew)
        if s[TERMINAL]:
            continue
        tally, ref_tally = Counter(), Counter()
        _perft_kernel(s, 2, tally)
        _perft_ref(_ref_from_state(s), 2, ref_tally)
        assert tally == ref_tally
        outcomes.update(k for k in tally if k[0] == "rewards")
        checked += 1
        if checked == 12:
            break
    assert checked >= 8 and len(outcomes) == 2  # wins of either side occur within two plies


# ------------------------------------------------------------- symmetries
def test_symmetries_and_action_symmetries_commute_with_moves():
    perms, acts = SPEC.symmetries(SPEC.p), SPEC.action_symmetries(SPEC.p)
    assert perms.shape == (8, 25) and acts.shape == (8, SPEC.n_actions)
    assert np.array_equal(perms[0], np.arange(25)) and np.array_equal(acts[0], np.arange(SPEC.n_actions))
    for row in acts:
        assert sorted(row) == list(range(SPEC.n_actions))
    rng = make_rng(9)
    checked = 0
    for plies in (0, 1, 2, 7, 15, 25, 35):
        s = SPEC.initial_state(SPEC.p, rng)
        mask = np.zeros(SPEC.n_actions, np.int8)
        rew = np.zeros(2)
        while s[PLY] < plies and not s[TERMINAL]:
            SPEC.legal_actions(SPEC.p, s, mask)
            SPEC.afterstate(SPEC.p, s, rng_choice_mask(rng, mask), s, rew)
        if s[TERMINAL]:
            continue
        legal = _legal(s)
        for k in range(8):
            t = s.copy()
            t[HEADER:] = s[HEADER:][perms[k]]
            assert st.validate(SPEC.p, t) == ""
            legal_t = _legal(t)
            assert legal_t == {int(acts[k, a]) for a in legal}
            for a in sorted(legal)[::7]:
                after, r1 = _after(s, a)
                after_t, r2 = _after(t, int(acts[k, a]))
                assert np.array_equal(after[HEADER:][perms[k]], after_t[HEADER:]) and r1 == r2
                checked += 1
    assert checked > 100


# ---------------------------------------------------------- validate, params, views
def test_validate_reasons():
    good = _position(["x0000", "01000", "00x00", "00000", "o000o"], ply=3)
    assert st.validate(SPEC.p, good) == ""
    bad = good.copy()
    bad[PLY] = 4
    assert "player to move" in st.validate(SPEC.p, bad)
    bad[TO_MOVE] = 0
    assert "builds were made" in st.validate(SPEC.p, bad)
    bad = good.copy()
    bad[HEADER + 3] = 13
    assert "cells must be in 0..12" in st.validate(SPEC.p, bad)
    bad = good.copy()
    bad[HEADER + 24] = 0
    assert "workers on the board" in st.validate(SPEC.p, bad)
    early = _position(["x0000", "00000", "00x00", "00000", "00000"], ply=1)
    assert st.validate(SPEC.p, early) == ""
    early[HEADER + 7] = 1
    assert "builds were made" in st.validate(SPEC.p, early)
    on_top = _position(["Y0000", "01000", "00x00", "00000", "o000o"], ply=7, terminal=1)
    assert st.validate(SPEC.p, on_top) == ""
    on_top[TERMINAL] = 0
    assert "game must be over" in st.validate(SPEC.p, on_top)
    # player_1 to move, both workers walled in by domes: 6 domes and one block = 25 builds after 2 placements
    stuck = _position(["oD100", "DD000", "00x00", "000DD", "x00Do"], ply=27)
    assert "terminal flag must be set" in st.validate(SPEC.p, stuck)
    stuck[TERMINAL] = 1
    assert st.validate(SPEC.p, stuck) == ""
    assert "length" in st.validate(SPEC.p, good[:-1])


def test_set_state_and_illegal_actions_raise():
    env = santorini_v0.raw_env()
    env.reset(seed=0)
    s = env.get_state()
    s[HEADER] = 1
    with pytest.raises(ValueError, match="not a legal position"):
        env.set_state(s)
    env.step(st.place_action(0, 1))
    with pytest.raises(ValueError):
        env.step(st.place_action(1, 2))  # b1 is taken
    with pytest.raises(ValueError):
        env.step(_turn("a1", "a2", "a3"))  # still placement
    env.set_state(_position(["x0000", "00000", "00x00", "00000", "o000o"], ply=2))
    assert env.agent_selection == "player_0" and len(env.legal_actions()) > 0


@pytest.mark.parametrize("params", [{"size": 6}, {"gods": True}, {"players": 3}])
def test_parameters_are_refused(params):
    with pytest.raises(ValueError, match="no parameters"):
        st.make_spec(**params)
    with pytest.raises(ValueError, match="no parameters"):
        santorini_v0.env(**params)


def test_observation_planes_are_relative_to_the_observer():
    s = _position(["y1000", "0D000", "00300", "0x000", "o000O"], ply=13)
    assert st.validate(SPEC.p, s) == ""
    obs = [np.zeros(SPEC.obs_shape, np.int8) for _ in range(2)]
    for seat in range(2):
        SPEC.observe(SPEC.p, s, seat, obs[seat])
    assert obs[0][0, 0, 0] == 1 and obs[0][4, 0, 1] == obs[0][4, 4, 1] == 1 and obs[0][:, :, :2].sum() == 4
    assert obs[1][0, 0, 1] == 1 and obs[1][4, 0, 0] == obs[1][4, 4, 0] == 1
    assert np.array_equal(obs[0][:, :, 2:], obs[1][:, :, 2:])
    assert list(obs[0][0, 0, 2:]) == [1, 1, 0, 0]  # a worker on level 2
    assert list(obs[0][1, 1, 2:]) == [1, 1, 1, 1]  # a dome (on level 3)
    assert list(obs[0][2, 2, 2:]) == [1, 1, 1, 0] and list(obs[0][4, 4, 2:]) == [1, 0, 0, 0]


def test_text_and_rgb_render():
    s = _position(["y1000", "0D000", "00300", "0x000", "o000O"], ply=13)
    assert SPEC.render_text(SPEC.p, s).splitlines() == [
        "   a  b  c  d  e", "1 2X 1. 0. 0. 0.", "2 0. D. 0. 0. 0.", "3 0. 0. 3. 0. 0.",
        "4 0. 0X 0. 0. 0.", "5 0O 0. 0. 0. 1O"]
    env = santorini_v0.env(render_mode="rgb_array")
    env.reset(seed=0)
    img = env.render()
    assert img.dtype == np.uint8 and img.shape == (5 * CELL + 2, 5 * CELL + 2, 3)
    assert len(SPEC.cell_colors) == SPEC.n_cell_values and len(set(SPEC.cell_colors)) == 13
    env = santorini_v0.env(render_mode="ansi")
    env.reset(seed=0)
    assert env.render().count("0.") == 25


# ------------------------------------------------------------- PettingZoo and friends
def test_pettingzoo_api_and_seed_tests():
    api_test(santorini_v0.env(), num_cycles=200)
    api_test(santorini_v0.raw_env(), num_cycles=50)
    seed_test(santorini_v0.env, num_cycles=20)


def test_gymnasium_single_agent_wrapper():
    from gymnasium.utils.env_checker import check_env

    from farl_envs.gym_env import SingleAgentEnv

    env = SingleAgentEnv(game="santorini", seat="alternate")
    check_env(env, skip_render_check=True)
    rng = np.random.default_rng(0)
    for _ in range(4):
        env.reset()
        done = False
        while not done:
            a = int(rng.choice(np.flatnonzero(env.action_masks())))
            _, r, done, _, _ = env.step(a)
            assert -1 <= r <= 1


def test_compiled_random_playouts_end():
    plies = playouts(SPEC, 300, make_rng(3))
    # the shortest game: 2 placements, then a trap or a climb after at least 3 builds (a win needs level 3)
    assert 300 * 5 <= plies <= 300 * SPEC.max_plies


# -m slow: compiles Max-N and MCTS for this game alone (~5 CPU s); the default run tests that search code on other games
@pytest.mark.slow
def test_maxn_and_mcts_play_through_make_opponent_and_evaluate():
    from farl_agents.evaluate import evaluate
    from farl_agents.opponents import make_opponent

    for name in ("maxn2", "mcts30"):
        player = make_opponent(name, SPEC)
        result = evaluate(SPEC, player, "random", n_games=2, seed=1)
        (m,) = result.matchups
        assert m.n_games == 4 == m.wins + m.losses  # two games in every seat, no draws
        for g in m.games:
            assert sorted(g["rewards"]) == [-1, 1]


def test_maxn_takes_the_climb_and_blocks_the_opponents():
    """Two plies of Max-N see a win by climbing, and a reply that stops the opponent's climb next turn."""
    from farl_agents.opponents import make_opponent

    player = make_opponent("maxn2", SPEC)
    win = _position(["y3000", "00000", "00x00", "00001", "000oo"], ply=8)
    assert player.act(SPEC, win.copy(), make_rng(0)) == _turn("a1", "b1", "a1")
    # player_1 on d5 (level 2) threatens to climb e4 (level 3); player_0 must dome e4 (its worker c3 can
    # reach d4 and build there) or lose: every other turn leaves the climb open
    threat = _position(["x0000", "00000", "00x00", "00003", "100po"], ply=8)
    assert st.validate(SPEC.p, threat) == ""
    a = player.act(SPEC, threat.copy(), make_rng(0))
    after, _ = _after(threat, a)
    assert after[HEADER + _cell("e4")] == st.DOME
