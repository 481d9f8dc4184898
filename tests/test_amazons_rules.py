"""Amazons rules against facts known independently of the kernels.

A second, deliberately plain implementation lives here (``_Ref``: a list of
lists, whole turns as (queen, destination, arrow) triples, a player loses
when he has no whole turn). Kernel and reference are compared on random
games turn by turn; the start layouts are OpenSpiel's (``amazons.cc``),
the 2176 opening turns of 10x10 Amazons are a well-known count, and the
hand-drawn positions were worked out on paper. When pyspiel is installed
the kernels play random games in lockstep with OpenSpiel's ``amazons``.
"""
from __future__ import annotations

import random
import warnings
from collections import deque

import gymnasium
import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import farl_envs
from farl_agents.evaluate import evaluate
from farl_agents.opponents import make_opponent
from farl_envs import amazons_v0
from farl_envs.core.kernels import kernels_of
from farl_envs.core.playout import random_playout
from farl_envs.core.rng import make_rng, rng_choice_mask
from farl_envs.games import amazons as am

H = 3  # header length

# OpenSpiel amazons.cc, AmazonsState constructor: (Cross = player_0 cells, Nought = player_1 cells)
OPENSPIEL_START = {
    10: ([60, 69, 93, 96], [3, 6, 30, 39]),
    8: ([40, 47, 58, 61], [2, 5, 16, 23]),
    6: ([24, 29, 31, 34], [1, 4, 6, 11]),
}
QUEENS = "XO"


# ------------------------------------------------------------------ the reference
class _Ref:
    """Amazons on a list of lists of characters: '.' empty, 'X' player_0, 'O' player_1, '#' arrow."""

    def __init__(self, n, rows=None):
        self.n = n
        if rows is None:
            rows = [["."] * n for _ in range(n)]
            for mark, cells in zip("XO", OPENSPIEL_START[n]):
                for c in cells:
                    rows[c // n][c % n] = mark
        self.g = [list(r) for r in rows]
        self.player = sum(r.count("#") for r in self.g) % 2

    def reach(self, r, c):
        """Squares a queen on (r, c) slides to over '.' squares."""
        out = []
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                if dr == dc == 0:
                    continue
                y, x = r + dr, c + dc
                while 0 <= y < self.n and 0 <= x < self.n and self.g[y][x] == ".":
                    out.append((y, x))
                    y, x = y + dr, x + dc
        return out

    def turns(self, player=None):
        """Every whole turn of ``player`` as (queen, destination, arrow) cell triples."""
        mark = QUEENS[self.player if player is None else player]
        n = self.n
        out = []
        for r in range(n):
            for c in range(n):
                if self.g[r][c] != mark:
                    continue
                self.g[r][c] = "."
                for y, x in self.reach(r, c):
                    self.g[y][x] = mark
                    for ay, ax in self.reach(y, x):
                        out.append((r * n + c, y * n + x, ay * n + ax))
                    self.g[y][x] = "."
                self.g[r][c] = mark
        return out

    def can_play(self, player):
        return any(True for _ in self.turns(player))

    def play(self, q, d, a):
        n, mark = self.n, QUEENS[self.player]
        self.g[q // n][q % n] = "."
        self.g[d // n][d % n] = mark
        self.g[a // n][a % n] = "#"
        self.player = 1 - self.player

    def text(self):
        return "\n".join("".join(r) for r in self.g)


# ------------------------------------------------------------------ helpers
def _p(n):
    return am.make_spec(n).p


def _cells_text(s, n):
    """The physical board of a kernel state as OpenSpiel prints it (no '*')."""
    cells = s[H:H + n * n]
    return "\n".join("".join(".XO#"[int(v)] for v in cells[r * n:(r + 1) * n]) for r in range(n))


def _state(rows, phase=0, src=-1, dst=-1, terminal=0):
    """A kernel state from a picture (list of strings); the header follows from the arrows and the decision."""
    n = len(rows)
    s = np.zeros(H + n * n + 11, dtype=np.int32)
    for r, line in enumerate(rows):
        for c, ch in enumerate(line.split()):
            s[H + r * n + c] = ".XO#".index(ch)
    arrows = int(np.sum(s[H:H + n * n] == 3))
    s[0], s[1], s[2] = arrows % 2, terminal, 3 * arrows + phase
    s[H + n * n:H + n * n + 3] = (phase, src, dst)
    for seat in (0, 1):
        cells = np.flatnonzero(s[H:H + n * n] == seat + 1).tolist()
        if phase == 1 and seat == s[0]:
            cells = sorted(cells + [src])
        s[H + n * n + 3 + 4 * seat:H + n * n + 7 + 4 * seat] = (cells + [-1] * 4)[:4]  # padded: wrong counts
    return s


def _step(p, s, a):
    out = np.empty_like(s)
    rew = np.zeros(2)
    am.afterstate(p, s, int(a), out, rew)
    return out, rew


def _legal(p, s):
    n = int(p[0])
    mask = np.zeros(n * n, dtype=np.int8)
    count = am.legal_actions(p, s, mask)
    legal = set(np.flatnonzero(mask).tolist())
    assert count == len(legal)
    return legal


def _kernel_turns(p, s):
    """Every whole turn reached by applying the decision kernels three times."""
    out = set()
    for q in _legal(p, s):
        s1, r1 = _step(p, s, q)
        assert s1[0] == s[0] and not s1[1] and not r1.any()
        for d in _legal(p, s1):
            s2, r2 = _step(p, s1, d)
            assert s2[0] == s[0] and not s2[1] and not r2.any()
            arrows = _legal(p, s2)
            assert arrows  # a picked queen can always finish its turn
            out.update((q, d, a) for a in arrows)
    return out


# ------------------------------------------------------------------ start and first turns
@pytest.mark.parametrize("n", [6, 8, 10])
def test_start_layout_is_openspiels(n):
    p = _p(n)
    s = am.initial_state(p, make_rng(0))
    assert s.shape == (H + n * n + 11,) and list(s[:H]) == [0, 0, 0] and list(s[H + n * n:H + n * n + 3]) == [0, -1, -1]
    x, o = OPENSPIEL_START[n]
    assert sorted(np.flatnonzero(s[H:H + n * n] == 1).tolist()) == x
    assert sorted(np.flatnonzero(s[H:H + n * n] == 2).tolist()) == o
    assert s[H + n * n + 3:].tolist() == x + o  # the queen list
    assert am.start_squares(n) == (x, o)
    assert am.validate(p, s) == ""


def test_standard_start_squares_are_named_as_in_the_rules():
    spec = am.make_spec()
    names = spec.action_names
    assert [names[c] for c in OPENSPIEL_START[10][0]] == ["a4", "j4", "d1", "g1"]
    assert [names[c] for c in OPENSPIEL_START[10][1]] == ["d10", "g10", "a7", "j7"]


def test_2176_opening_turns_on_10x10():
    """The standard Amazons opening has 2176 moves (a known count); kernels, turn_moves and reference agree."""
    p = _p(10)
    s = am.initial_state(p, make_rng(0))
    turns = _kernel_turns(p, s)
    assert len(turns) == 2176
    assert turns == set(_Ref(10).turns())
    buf = np.zeros((4000, 3), dtype=np.int32)
    k = am.turn_moves(p, s, buf)
    assert k == 2176 and set(map(tuple, buf[:k].tolist())) == turns


@pytest.mark.parametrize("n", [6, 8])
def test_opening_turns_on_small_boards_match_the_reference(n):
    p = _p(n)
    s = am.initial_state(p, make_rng(0))
    assert _kernel_turns(p, s) == set(_Ref(n).turns())


# ------------------------------------------------------------------ hand-drawn positions
BLOCKED = [
    ". O . . O .",
    "O . . . . O",
    ". . . . . .",
    ". # . . . .",
    "X . # . . X",
    ". X . . X .",
]


def test_queens_and_arrows_block_queen_moves():
    p = _p(6)
    s = _state(BLOCKED)
    assert am.validate(p, s) == "" and s[0] == 0
    assert _legal(p, s) == {24, 29, 31, 34}
    s1, _ = _step(p, s, 31)  # pick b1
    assert s1[H + 31] == 0 and list(s1[H + 36:H + 39]) == [1, 31, -1]
    # b1 reaches a1 and c1, d1 (e1 is a queen) and b2 (b3 is an arrow); c2 is an arrow
    assert _legal(p, s1) == {30, 32, 33, 25}


def test_arrow_may_land_on_and_fly_through_the_vacated_square():
    p = _p(6)
    s1, _ = _step(p, _state(BLOCKED), 31)
    s2, _ = _step(p, s1, 25)  # b1-b2
    assert s2[H + 25] == 1 and list(s2[H + 36:H + 39]) == [2, 31, 25]
    # from b2: b1 (vacated), a3, c3 d4 e5 f6, a1, c1; a2 queen, c2 and b3 arrows
    assert _legal(p, s2) == {31, 18, 20, 15, 10, 5, 30, 32}
    s1, _ = _step(p, _state(BLOCKED), 31)
    s2, _ = _step(p, s1, 30)  # b1-a1: the arrow flies right through b1 to c1 and d1
    assert {31, 32, 33} <= _legal(p, s2)
    s3, rew = _step(p, s2, 33)
    assert s3[H + 33] == 3 and s3[0] == 1 and s3[2] == 9 and list(s3[H + 36:H + 39]) == [0, -1, -1] and not rew.any()


BOXED = [
    "O # O # . .",
    "# # # # . .",
    "O # . . . .",
    "# # . . X X",
    "O # . . X X",
    "# . . . . #",
]


def test_boxing_in_the_last_free_queen_wins():
    p = _p(6)
    s = _state(BOXED)
    assert am.validate(p, s) == "" and s[0] == 0
    s1, _ = _step(p, s, 28)  # e2
    s2, _ = _step(p, s1, 33)  # to d1
    s3, rew = _step(p, s2, 32)  # arrow c1: player_1 keeps b1
    assert not s3[1] and not rew.any() and s3[0] == 1
    s3, rew = _step(p, s2, 31)  # arrow b1: player_1's queens are all shut in
    assert s3[1] == 1 and tuple(rew) == (1.0, -1.0) and s3[0] == 1
    assert _legal(p, s3) == set() and am.validate(p, s3) == ""
    ref = _Ref(6, [row.split() for row in BOXED])
    assert ref.can_play(1)  # before the arrow player_1 still has b1
    ref.play(28, 33, 31)
    assert not ref.can_play(1) and ref.text() == _cells_text(s3, 6)


STUCK_BOTH = [
    ". # # # # #",
    "# # # X # X",
    "# # # # # #",
    "# X # O # O",
    "# # # # O #",
    "# # . X # O",
]


def test_player_to_move_loses_even_when_the_shooter_is_stuck_too():
    p = _p(6)
    s = _state(STUCK_BOTH)
    assert am.validate(p, s) == "" and s[0] == 0 and s[2] == 78
    assert _legal(p, s) == {33}  # the other queens have no empty neighbour
    s1, _ = _step(p, s, 33)
    assert _legal(p, s1) == {32}
    s2, _ = _step(p, s1, 32)
    assert _legal(p, s2) == {33}  # the only arrow: back onto the square it left
    s3, rew = _step(p, s2, 33)
    assert s3[1] == 1 and tuple(rew) == (1.0, -1.0)
    ref = _Ref(6, [row.split() for row in STUCK_BOTH])
    ref.play(33, 32, 33)
    assert not ref.can_play(0) and not ref.can_play(1)


def test_territory_on_a_walled_board():
    """Arrows down file c: player_0 owns the 8 empty squares left of it, player_1 the 14 on the right."""
    rows = [
        "X . # O O O",
        "X . # O . .",
        "X . # . . .",
        "X . # . . .",
        ". . # . . .",
        ". . # . . .",
    ]
    p = _p(6)
    s = _state(rows)
    assert am.territory(p, s, np.zeros((2, 36), dtype=np.int32)) == 8 - 14


def _ref_territory(ref):
    n = ref.n
    dist = []
    for mark in "XO":
        d = {}
        queue = deque()
        for r in range(n):
            for c in range(n):
                if ref.g[r][c] == mark:
                    d[(r, c)] = 0
                    queue.append((r, c))
        while queue:
            r, c = queue.popleft()
            for y, x in ref.reach(r, c):
                if (y, x) not in d:
                    d[(y, x)] = d[(r, c)] + 1
                    queue.append((y, x))
        dist.append(d)
    score = 0
    inf = float("inf")
    for r in range(n):
        for c in range(n):
            if ref.g[r][c] == ".":
                a, b = dist[0].get((r, c), inf), dist[1].get((r, c), inf)
                score += (a < b) - (b < a)
    return score


# ------------------------------------------------------------------ random games against the reference
@pytest.mark.parametrize("n,games", [(6, 6), (8, 2), (10, 1)])
def test_random_games_agree_with_the_reference(n, games):
    p = _p(n)
    rnd = random.Random(n)
    dist = np.zeros((2, n * n), dtype=np.int32)
    buf = np.zeros((4 * n ** 4, 3), dtype=np.int32)
    for _ in range(games):
        s = am.initial_state(p, make_rng(0))
        ref = _Ref(n)
        while True:
            assert _cells_text(s, n) == ref.text() and s[0] == ref.player and am.validate(p, s) == ""
            assert am.territory(p, s, dist) == _ref_territory(ref)
            turns = ref.turns()
            k = am.turn_moves(p, s, buf)
            assert set(map(tuple, buf[:k].tolist())) == set(turns) and k == len(turns)
            if n < 10 or len(turns) < 300:  # the full decision tree only where it is small
                assert _kernel_turns(p, s) == set(turns)
            if not turns:
                assert s[1] == 1
                break
            assert s[1] == 0
            q, d, a = rnd.choice(turns)
            total = np.zeros(2)
            for action in (q, d, a):
                assert action in _legal(p, s)
                s, rew = _step(p, s, action)
                assert am.validate(p, s) == ""
                total += rew
            mover = ref.player
            ref.play(q, d, a)
            if s[1]:
                assert tuple(total) == ((1.0, -1.0) if mover == 0 else (-1.0, 1.0))
            else:
                assert not total.any()


def test_compiled_random_playouts_end_with_one_winner():
    spec = am.make_spec(6)
    rng = make_rng(3)
    mask = np.zeros(36, dtype=np.int8)
    rewards, total = np.zeros(2), np.zeros(2)
    for _ in range(200):
        s = spec.initial_state(spec.p, rng)
        plies = random_playout(kernels_of(spec), spec.p, s, mask, rewards, total, rng)
        assert s[1] == 1 and plies == s[2] and plies % 3 == 0 and plies <= spec.max_plies
        assert sorted(total.tolist()) == [-1.0, 1.0] and total[1 - s[0]] == 1.0
        assert am.validate(spec.p, s) == ""


# ------------------------------------------------------------------ OpenSpiel lockstep
@pytest.mark.parametrize("n,games", [(6, 6), (8, 3), (10, 2)])
def test_lockstep_with_openspiel(n, games):
    pyspiel = pytest.importorskip("pyspiel")
    game = pyspiel.load_game("amazons", {"board_size": n})
    spec = am.make_spec(n)
    assert game.num_distinct_actions() == spec.n_actions
    rng = make_rng(11 + n)
    rew = np.zeros(2)
    for _ in range(games):
        st = game.new_initial_state()
        s = spec.initial_state(spec.p, rng)
        total = np.zeros(2)
        while True:
            assert str(st) == _cells_text(s, n)
            assert st.is_terminal() == bool(s[1])
            legal = sorted(_legal(spec.p, s))
            assert st.legal_actions() == legal
            if st.is_terminal():
                assert st.returns() == total.tolist()
                break
            assert st.current_player() == s[0] and st.move_number() == s[2]
            a = rng_choice_mask(rng, np.isin(np.arange(n * n), legal).astype(np.int8))
            st.apply_action(int(a))
            spec.afterstate(spec.p, s, a, s, rew)
            total += rew


# ------------------------------------------------------------------ views, symmetries, spec
def test_board_observation_and_text_during_a_turn():
    p = _p(6)
    s = _state(BLOCKED)
    b = np.empty(36, dtype=np.int32)
    o = np.zeros((6, 6, 5), dtype=np.int8)
    am.board(p, s, b)
    assert np.array_equal(b, s[H:H + 36]) and set(b.tolist()) == {0, 1, 2, 3}
    s1, _ = _step(p, s, 31)
    am.board(p, s1, b)
    assert b[31] == 4 and (b == 1).sum() == 3
    am.observe(p, s1, 0, o)
    assert o[5, 1, 3] == 1 and o[:, :, 3].sum() == 1 and o[:, :, 4].sum() == 0 and o[:, :, 0].sum() == 3
    s2, _ = _step(p, s1, 25)
    am.board(p, s2, b)
    assert b[31] == 4 and b[25] == 1 and (b == 1).sum() == 4
    am.observe(p, s2, 1, o)
    assert o[5, 1, 3] == 1 and o[4, 1, 4] == 1 and o[4, 1, 1] == 1 and o[:, :, 0].sum() == 4
    assert o[:, :, 2].sum() == 2 and o[3, 1, 2] == 1
    text = am.render_text(p, s2).split("\n")
    assert text[5] == " 1 . * . . X ." and text[4] == " 2 X X # . . X"
    assert text[6] == "   a b c d e f" and text[7] == "player_0 (X) to shoot an arrow"


def test_symmetries_commute_with_every_decision():
    n = 6
    p = _p(n)
    perms, amap = am.symmetries(p), am.action_symmetries(p)
    assert perms.shape == (8, 36) and amap.shape == (8, 36) and len({tuple(r) for r in perms}) == 8
    assert np.array_equal(perms[0], np.arange(36)) and np.array_equal(amap[0], np.arange(36))

    def transform(s, k):
        t = s.copy()
        t[H:H + 36] = s[H:H + 36][perms[k]]
        for i in (H + 37, H + 38):
            if s[i] >= 0:
                t[i] = amap[k][s[i]]
        for base in (H + 39, H + 43):
            t[base:base + 4] = np.sort(amap[k][s[base:base + 4]])
        return t

    rng = make_rng(5)
    s = am.initial_state(p, rng)
    mask = np.zeros(36, dtype=np.int8)
    rew = np.zeros(2)
    checked = 0
    for _ in range(20):
        am.legal_actions(p, s, mask)
        for k in range(8):
            t = transform(s, k)
            assert am.validate(p, t) == ""
            assert _legal(p, t) == {int(amap[k][a]) for a in np.flatnonzero(mask)}
            for a in np.flatnonzero(mask)[:3]:
                after, _ = _step(p, s, a)
                after_t, _ = _step(p, t, amap[k][a])
                assert np.array_equal(transform(after, k), after_t)
                checked += 1
        am.afterstate(p, s, rng_choice_mask(rng, mask), s, rew)
    assert checked > 100


def test_spec_fields():
    spec = am.make_spec()
    assert spec.id == "amazons_v0" and spec.params == {"board_size": 10}
    assert spec.n_actions == 100 and spec.n_cells == 100 and spec.n_cell_values == 5
    assert spec.state_size == 114 and spec.obs_shape == (10, 10, 5) and spec.max_plies == 3 * 92
    assert spec.grid_shape == (10, 10) and len(spec.cell_colors) == 5 and not spec.has_chance
    assert spec.action_names[:2] == ("a10", "b10") and spec.action_names[99] == "j1"
    assert spec.chance(spec.p, spec.initial_state(spec.p, make_rng(0)), make_rng(0)) == -1


@pytest.mark.parametrize("size", [4, 7, 12, "10", 10.0, True, None])
def test_bad_board_size_names_the_allowed_values(size):
    with pytest.raises(ValueError, match=r"\(6, 8, 10\)"):
        am.make_spec(size)
    with pytest.raises(ValueError, match="board_size"):
        amazons_v0.env(board_size=size)


def test_validate_reasons():
    p = _p(6)
    s = _state(BLOCKED)
    assert am.validate(p, s) == ""

    def broken(**kw):
        t = s.copy()
        for i, v in kw.items():
            t[int(i[1:])] = v
        return am.validate(p, t)

    assert "ply count" in broken(i2=5)
    assert "player to move" in broken(i0=1)
    assert "cells must be" in broken(i3=7)
    assert "decision must be" in broken(i39=3)
    assert "-1 between turns" in broken(i40=31)
    assert "length" in am.validate(p, s[:-1])
    assert "queen list of player_0" in broken(i42=29, i43=24)  # the right squares, out of order
    assert "queen list of player_1" in broken(i46=5)
    assert "queens on the board" in am.validate(p, _state(BLOCKED[:5] + [". X . . . ."]))
    # half-made turns: lifted queen must be off the board, on an empty square with an empty neighbour
    s1, _ = _step(p, s, 31)
    assert am.validate(p, s1) == ""
    t = s1.copy()
    t[H + 37] = 24
    assert "lifted-from square must be an empty square" in am.validate(p, t)
    s2, _ = _step(p, s1, 25)
    assert am.validate(p, s2) == ""
    t = s2.copy()
    t[H + 38] = 26  # c2 is an arrow, not the moved queen
    assert "moved-to square must hold" in am.validate(p, t)
    t[H + 25], t[H + 28] = 0, 1  # the queen on e2 instead of b2: b1 cannot reach e2 in one queen move
    t[H + 38] = 28
    assert "not a queen move away" in am.validate(p, t)
    t = s1.copy()
    t[H + 25], t[H + 30], t[H + 32] = 3, 3, 3  # b1 lifted although shut in by a2 and arrows on b2, a1, c1
    t[H + 19] = 0  # (b3's arrow removed: 4 arrows, player_0 to move)
    t[2] = 3 * 4 + 1
    assert "could not have been picked" in am.validate(p, t)
    assert "terminal flag" in broken(i1=1)
    # the winning position of the boxing test with its terminal flag cleared
    s2b = _step(p, _step(p, _step(p, _state(BOXED), 28)[0], 33)[0], 31)[0]
    assert am.validate(p, s2b) == ""
    t = s2b.copy()
    t[1] = 0
    assert "terminal flag" in am.validate(p, t)


def test_set_state_refuses_an_impossible_position_and_continues_from_a_legal_one():
    env = amazons_v0.raw_env(board_size=6)
    env.reset(seed=0)
    bad = _state(BLOCKED)
    bad[0] = 1
    with pytest.raises(ValueError, match="player to move"):
        env.set_state(bad)
    env.set_state(_state(BOXED))
    assert env.agent_selection == "player_0" and env.legal_actions() == [22, 23, 28, 29]


def test_aec_env_same_agent_decides_three_times_then_the_turn_passes():
    env = amazons_v0.env(board_size=6)
    env.reset(seed=1)
    seen = []
    for _ in range(6):
        agent = env.agent_selection
        seen.append(agent)
        obs, reward, term, trunc, info = env.last()
        assert reward == 0 and not term
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        assert env.unwrapped.infos[agent]["afterstate"].player == agent
    assert seen == ["player_0"] * 3 + ["player_1"] * 3
    with pytest.raises(ValueError, match="legal actions"):
        env.step(0)  # a1 is empty: no queen of player_0 there to pick
    assert env.unwrapped.get_state()[2] == 6


def test_aec_random_games_reward_the_last_shooter():
    env = amazons_v0.raw_env(board_size=6)
    rng = np.random.default_rng(0)
    for ep in range(3):
        env.reset(seed=ep)
        totals = {a: 0.0 for a in env.possible_agents}
        last_mover = None
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            totals[agent] += reward
            if term:
                env.step(None)
                continue
            last_mover = agent
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert totals[last_mover] == 1.0 and sum(totals.values()) == 0.0


def test_rgb_render():
    env = amazons_v0.env(board_size=8, render_mode="rgb_array")
    env.reset(seed=0)
    env.step(40)
    img = env.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    env = amazons_v0.env(board_size=8, render_mode="ansi")
    env.reset(seed=0)
    assert env.render().split("\n")[0] == " 8 . . O . . O . ."


# ------------------------------------------------------------------ PettingZoo, Gymnasium, opponents
@pytest.mark.parametrize("size,raw", [(10, False), (6, True)])
def test_pettingzoo_api_and_seed_tests(size, raw):
    make = amazons_v0.raw_env if raw else amazons_v0.env
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(make(board_size=size), num_cycles=300)
        seed_test(lambda: make(board_size=size), num_cycles=30)


def test_gymnasium_single_agent_wrapper():
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make(farl_envs.gymnasium_id("amazons"), seat="alternate", board_size=6).unwrapped
    check_env(env, skip_render_check=True)
    for ep in range(2):
        env.reset(seed=ep)
        done = False
        while not done:
            obs, r, done, trunc, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        assert r in (-1.0, 1.0)


# -m slow: compiles Max-N and MCTS for this game alone (~5 CPU s); the default run tests that search code on other games
@pytest.mark.slow
def test_opponents_and_evaluate_play_amazons():
    """Max-N and MCTS through make_opponent and evaluate, both seats; every game has a winner."""
    game = farl_envs.game_spec("amazons", board_size=6)
    for player in (make_opponent("maxn2", game), make_opponent("mcts20", game)):
        r = evaluate(game, player, "random", n_games=1, seed=1)
        games = r.matchups[0].games
        assert len(games) == 2 and {g["seat"] for g in games} == {0, 1}
        assert all(sorted(g["rewards"]) == [-1.0, 1.0] for g in games)
