"""EinStein würfelt nicht! rules: OpenSpiel in lockstep (2 players), hand-built positions, and a plain-Python
reference implementation written here from the rules (GBG's for 3 and 4 players) for perft counts."""
from __future__ import annotations

import re

import numpy as np
import pytest

from farl_envs.core.rng import make_rng, rng_choice_mask
from farl_envs.core.spec import PLY, TERMINAL, TO_MOVE
from farl_envs.games import einstein_wurfelt_nicht as ewn

CONFIGS = [(2, 5), (3, 6), (4, 4), (4, 6)]
SPECS = {cfg: ewn.make_spec(*cfg) for cfg in CONFIGS}


# ------------------------------------------------------------------ helpers
def _empty(spec, to_move, roll, ply=0):
    s = np.zeros(spec.state_size, dtype=np.int32)
    s[TO_MOVE], s[ewn.ROLL], s[PLY] = to_move, roll, ply
    return s


def _put(spec, s, r, c, player, number):
    k, n = int(spec.p[ewn.P_CUBES]), int(spec.p[ewn.P_SIZE])
    s[ewn.CELLS + r * n + c] = 1 + k * player + number - 1


def _legal(spec, s):
    mask = np.zeros(spec.n_actions, dtype=np.int8)
    n = spec.legal_actions(spec.p, s, mask)
    assert n == int(mask.sum())
    return {int(a) for a in np.flatnonzero(mask)}


def _move(spec, s, a):
    out, rew = np.empty_like(s), np.zeros(spec.n_players)
    spec.afterstate(spec.p, s, a, out, rew)
    return out, rew


def _action(n, n_players, r, c, direction, capture):
    """The action number written out from the docstring's formula (not from the kernel)."""
    return ((r * n + c) * 3 * n_players + direction) * 2 + capture


# ============================================================ OpenSpiel lockstep
def _pyspiel_cells(state) -> list[int]:
    """farl cell codes parsed from pyspiel's board text (|b3| = black 3, |w5| = white 5, |__| = empty)."""
    tokens = re.findall(r"\|(b\d|w\d|__)\|", str(state))
    assert len(tokens) == 25
    return [0 if t == "__" else (0 if t[0] == "b" else 6) + int(t[1]) for t in tokens]


def test_start_placements_match_openspiel_for_every_rank():
    pyspiel = pytest.importorskip("pyspiel")
    game = pyspiel.load_game("einstein_wurfelt_nicht")
    spec = SPECS[(2, 5)]
    for rank in range(720):
        st = game.new_initial_state()
        st.apply_action(rank)          # black's placement
        st.apply_action(719 - rank)    # white's placement
        mine = ewn.start_position(spec.p, rank, 719 - rank, 1)
        assert _pyspiel_cells(st) == list(mine[ewn.CELLS:]), rank


def test_lockstep_with_openspiel_random_games():
    pyspiel = pytest.importorskip("pyspiel")
    game = pyspiel.load_game("einstein_wurfelt_nicht")
    spec = SPECS[(2, 5)]
    assert spec.n_actions == game.num_distinct_actions() == 300
    np_rng = np.random.default_rng(2024)
    captures_of_own = decided_by_capture = decided_by_corner = two_choices = 0
    for game_no in range(300):
        st = game.new_initial_state()
        black, white, roll = int(np_rng.integers(720)), int(np_rng.integers(720)), int(np_rng.integers(1, 7))
        for outcome in (black, white, roll - 1):
            st.apply_action(outcome)
        s = ewn.start_position(spec.p, black, white, roll)
        assert spec.validate(spec.p, s) == ""
        total = np.zeros(2)
        while True:
            assert bool(s[TERMINAL]) == st.is_terminal()
            assert _pyspiel_cells(st) == list(s[ewn.CELLS:])
            if st.is_terminal():
                break
            assert st.current_player() == s[TO_MOVE]
            legal = _legal(spec, s)
            assert legal == set(st.legal_actions())
            cubes = {a // 12 for a in legal}
            two_choices += len(cubes) == 2
            choices = sorted(legal)
            if game_no % 2:  # every other game hunts the opponent's cubes, so that some games end by capture
                hunting = [a for a in choices if _dest_code(s, a) and (_dest_code(s, a) - 1) // 6 != s[TO_MOVE]]
                choices = hunting or choices
            a = choices[int(np_rng.integers(len(choices)))]
            dest_code = _dest_code(s, a)
            before = (s[ewn.CELLS:] > 0).sum()
            st.apply_action(a)
            s, rew = _move(spec, s, a)
            total += rew
            if dest_code and (dest_code - 1) // 6 == (s[TO_MOVE] + 1) % 2:
                captures_of_own += 1
            if s[TERMINAL]:
                if (s[ewn.CELLS:] > 0).sum() < before and min(_counts(s, 2, 6)) == 0:
                    decided_by_capture += 1
                else:
                    decided_by_corner += 1
            else:
                assert st.is_chance_node()
                roll = int(np_rng.integers(1, 7))
                st.apply_action(roll - 1)
                ewn.apply_roll(spec.p, s, roll)
        assert list(total) == st.returns()
        assert s[PLY] <= spec.max_plies
    # the games went through the rules that matter
    assert captures_of_own > 20 and two_choices > 20 and decided_by_capture > 10 and decided_by_corner > 50


def _dest_code(s, a):
    cell, d = a // 12, (a // 2) % 6
    r, c = cell // 5 + ewn.DIRS[d, 0], cell % 5 + ewn.DIRS[d, 1]
    return int(s[ewn.CELLS + 5 * r + c])


def _counts(s, n_players, k):
    cells = s[ewn.CELLS:]
    return [int(((cells > 0) & ((cells - 1) // k == q)).sum()) for q in range(n_players)]


# ============================================= a second, plain implementation
# GBG's StartingPositions (S6P3, S4P4, S6P4) transcribed as GBG writes them: per square
# (token value, player), token value = number on the cube - 1, (-1, -1) empty.
_ = (-1, -1)
GBG_STARTS = {
    (3, 6): [[(0, 0), (2, 0), (5, 0), _, _, _],
             [(1, 0), (4, 0), _, _, _, _],
             [(3, 0), _, _, _, _, _],
             [(5, 2), _, _, _, _, (3, 1)],
             [(2, 2), (4, 2), _, _, (4, 1), (1, 1)],
             [(0, 2), (1, 2), (3, 2), (5, 1), (2, 1), (0, 1)]],
    (4, 4): [[(0, 0), (1, 0), (2, 3), (0, 3)],
             [(2, 0), _, _, (1, 3)],
             [(1, 2), _, _, (2, 1)],
             [(0, 2), (2, 2), (1, 1), (0, 1)]],
    (4, 6): [[(0, 0), (2, 0), (5, 0), (3, 3), (1, 3), (0, 3)],
             [(1, 0), (4, 0), _, _, (4, 3), (2, 3)],
             [(3, 0), _, _, _, _, (5, 3)],
             [(5, 2), _, _, _, _, (3, 1)],
             [(2, 2), (4, 2), _, _, (4, 1), (1, 1)],
             [(0, 2), (1, 2), (3, 2), (5, 1), (2, 1), (0, 1)]],
}
FORWARD = {0: [(0, 1), (1, 0), (1, 1)], 1: [(0, -1), (-1, 0), (-1, -1)],
           2: [(-1, 0), (-1, 1), (0, 1)], 3: [(0, -1), (1, 0), (1, -1)]}


class Ref:
    """EinStein würfelt nicht! on a dict {(row, col): (player, number)}, written from the rules text."""

    def __init__(self, n_players, n, k, gbg_die_rule=False):
        self.n_players, self.n, self.k, self.gbg_die_rule = n_players, n, k, gbg_die_rule
        self.goal = {0: (n - 1, n - 1), 1: (0, 0), 2: (0, n - 1), 3: (n - 1, 0)}

    def side(self, q):
        return {2: [0, 1], 3: [0, 0, 1], 4: [0, 1, 0, 1]}[self.n_players][q]

    def moves(self, board, mover, roll):
        """[(from, to)] of the legal moves, or ["pass"]."""
        own = {num: sq for sq, (pl, num) in board.items() if pl == mover}
        if roll in own:
            chosen = [roll]
        elif self.gbg_die_rule:  # GBG: look 1, 2, ... away from the roll; whatever is found first
            chosen = next([v for v in (roll - e, roll + e) if v in own] for e in range(1, self.k)
                          if roll - e in own or roll + e in own)
        else:
            lower = [v for v in own if v < roll]
            higher = [v for v in own if v > roll]
            chosen = ([max(lower)] if lower else []) + ([min(higher)] if higher else [])
        out = []
        for v in chosen:
            r, c = own[v]
            out += [((r, c), (r + dr, c + dc)) for dr, dc in FORWARD[mover]
                    if 0 <= r + dr < self.n and 0 <= c + dc < self.n]
        return out or (["pass"] if self.n_players == 3 else [])

    def play(self, board, move):
        board = dict(board)
        if move != "pass":
            src, dst = move
            board[dst] = board.pop(src)
        return board

    def winners(self, board):
        """The set of winning seats, or None while the game goes on."""
        count = {q: 0 for q in range(self.n_players)}
        for pl, _num in board.values():
            count[pl] += 1
        everyone = set(range(self.n_players))
        if self.n_players == 3:
            if board.get(self.goal[2], (None,))[0] == 2:
                return {2}
            for q in range(3):
                if count[q] == 0:
                    return {0, 1} if q == 2 else {2}
            return None
        for q in range(self.n_players):
            if board.get(self.goal[q], (None,))[0] == q:
                return {x for x in everyone if self.side(x) == self.side(q)}
            if count[q] == 0:
                return {x for x in everyone if self.side(x) != self.side(q)}
        return None

    def start(self):
        return {(r, c): (pl, val + 1) for r, row in enumerate(GBG_STARTS[(self.n_players, self.n)])
                for c, (val, pl) in enumerate(row) if pl >= 0}


def _to_ref(spec, s):
    n, k = int(spec.p[ewn.P_SIZE]), int(spec.p[ewn.P_CUBES])
    return {(i // n, i % n): ((int(v) - 1) // k, (int(v) - 1) % k + 1)
            for i, v in enumerate(s[ewn.CELLS:]) if v}


def _decode(spec, a):
    """(from, to) of action ``a`` by the docstring's formula and direction table, or "pass"."""
    n, n_players = int(spec.p[ewn.P_SIZE]), spec.n_players
    if a == n * n * 6 * n_players:
        return "pass"
    table = {0: [(1, 1), (1, 0), (0, 1)], 1: [(-1, 0), (-1, -1), (0, -1)],
             2: [(-1, 0), (-1, 1), (0, 1)], 3: [(0, -1), (1, 0), (1, -1)]}
    cell, d = a // (6 * n_players), (a // 2) % (3 * n_players)
    dr, dc = table[d // 3][d % 3]
    return (cell // n, cell % n), (cell // n + dr, cell % n + dc)


@pytest.mark.parametrize("cfg", CONFIGS)
def test_start_position(cfg):
    spec = SPECS[cfg]
    s = spec.initial_state(spec.p, make_rng(5))
    assert spec.validate(spec.p, s) == "" and s[PLY] == 0 and not s[TERMINAL]
    assert 1 <= s[ewn.ROLL] <= int(spec.p[ewn.P_CUBES])
    if cfg[0] == 2:
        assert s[TO_MOVE] == 1  # OpenSpiel: white (player_1) moves first
        squares = {q: {sq for sq, (pl, _n) in _to_ref(spec, s).items() if pl == q} for q in (0, 1)}
        assert squares[0] == {(r, c) for r in range(5) for c in range(5) if r + c <= 2}
        assert squares[1] == {(r, c) for r in range(5) for c in range(5) if r + c >= 6}
    else:
        assert s[TO_MOVE] == 0
        assert _to_ref(spec, s) == Ref(*cfg, int(spec.p[ewn.P_CUBES])).start()


def _perft(spec, s, depth):
    """Leaves of the tree of (roll, move) sequences of ``depth`` moves from afterstate-like ``s``."""
    if depth == 0 or s[TERMINAL]:
        return 1
    total = 0
    for roll in range(1, int(spec.p[ewn.P_CUBES]) + 1):
        t = s.copy()
        ewn.apply_roll(spec.p, t, roll)
        for a in _legal(spec, t):
            total += _perft(spec, _move(spec, t, a)[0], depth - 1)
    return total


def _ref_perft(ref, board, mover, depth):
    if depth == 0 or ref.winners(board) is not None:
        return 1
    return sum(_ref_perft(ref, ref.play(board, m), (mover + 1) % ref.n_players, depth - 1)
               for roll in range(1, ref.k + 1) for m in ref.moves(board, mover, roll))


@pytest.mark.parametrize("cfg", CONFIGS)
def test_perft_counts_agree_with_the_reference(cfg):
    spec = SPECS[cfg]
    ref = Ref(*cfg, int(spec.p[ewn.P_CUBES]))
    rng = make_rng(11)
    for _ in range(2):
        s = spec.initial_state(spec.p, rng)
        for depth in (1, 2, 3):
            assert _perft(spec, s, depth) == _ref_perft(ref, _to_ref(spec, s), int(s[TO_MOVE]), depth)


@pytest.mark.parametrize("cfg,die_rule", [(cfg, "official") for cfg in CONFIGS] + [((2, 5), "gbg"), ((4, 4), "gbg")])
def test_random_games_agree_with_the_reference(cfg, die_rule):
    """Every position of random games: legal moves, afterstates, end and rewards as the reference says;
    every game ends within max_plies; rewards are +1 for the winning side and -1 for the other."""
    spec = SPECS[cfg] if die_rule == "official" else ewn.make_spec(*cfg, die_rule=die_rule)
    k = int(spec.p[ewn.P_CUBES])
    ref = Ref(*cfg, k, gbg_die_rule=die_rule == "gbg")
    rng = make_rng(sum(cfg))
    passes = 0
    for _ in range(100 if die_rule == "official" else 40):
        s = spec.initial_state(spec.p, rng)
        total = np.zeros(spec.n_players)
        while not s[TERMINAL]:
            board, mover = _to_ref(spec, s), int(s[TO_MOVE])
            legal = _legal(spec, s)
            assert sorted(map(str, (_decode(spec, a) for a in legal))) == \
                sorted(map(str, ref.moves(board, mover, int(s[ewn.ROLL]))))
            for a in legal:  # the capture bit says whether the target square is occupied
                mv = _decode(spec, a)
                assert mv == "pass" or (a % 2 == 1) == (mv[1] in board)
            mask = np.zeros(spec.n_actions, dtype=np.int8)
            spec.legal_actions(spec.p, s, mask)
            a = rng_choice_mask(rng, mask)
            passes += _decode(spec, a) == "pass"
            s, rew = _move(spec, s, a)
            total += rew
            after = ref.play(board, _decode(spec, a))
            assert _to_ref(spec, s) == after
            assert s[ewn.ROLL] == 0 and s[TO_MOVE] == (mover + 1) % spec.n_players
            won = ref.winners(after)
            assert bool(s[TERMINAL]) == (won is not None)
            if won is None:
                assert not rew.any()
                spec.chance(spec.p, s, rng)
                assert 1 <= s[ewn.ROLL] <= k
            else:
                assert list(rew) == [1.0 if q in won else -1.0 for q in range(spec.n_players)]
            assert spec.validate(spec.p, s) == ""
        assert s[PLY] <= spec.max_plies
        # one side wins: team mates share their reward, the other side gets the opposite
        assert set(total) == {-1.0, 1.0}
        assert all((total[q] == total[0]) == (ref.side(q) == ref.side(0)) for q in range(spec.n_players))
    if cfg[0] == 3:
        assert passes > 0


# ===================================================== hand-built positions
def _two_player(cubes, to_move=0, roll=1, ply=11):
    """A 2-player position from {(r, c): (player, number)} (ply 11 leaves player_0 to move)."""
    spec = SPECS[(2, 5)]
    s = _empty(spec, to_move, roll, ply)
    for (r, c), (pl, num) in cubes.items():
        _put(spec, s, r, c, pl, num)
    assert spec.validate(spec.p, s) == "", spec.validate(spec.p, s)
    return spec, s


def test_rolled_cube_must_move():
    spec, s = _two_player({(0, 0): (0, 2), (2, 2): (0, 5), (4, 0): (1, 1)}, roll=5)
    A = _action
    assert _legal(spec, s) == {A(5, 2, 2, 2, 0, 0), A(5, 2, 2, 2, 1, 0), A(5, 2, 2, 2, 2, 0)}


@pytest.mark.parametrize("roll,cubes_that_move", [
    (3, {2, 5}),  # 3 is gone: nearest lower 2 and nearest higher 5
    (4, {2, 5}),
    (6, {5}),     # nothing higher: only the nearest lower
    (1, {2}),     # nothing lower: only the nearest higher
])
def test_die_rule_nearest_higher_and_lower(roll, cubes_that_move):
    where = {2: (0, 0), 5: (2, 2)}
    spec, s = _two_player({where[2]: (0, 2), where[5]: (0, 5), (4, 0): (1, 1)}, roll=roll)
    moving = {_decode(spec, a)[0] for a in _legal(spec, s)}
    assert moving == {where[v] for v in cubes_that_move}


def test_die_rule_offers_both_neighbours_at_different_distances():
    """Cubes 1 and 6 left, roll 2: the published rule (and OpenSpiel) lets either move; GBG offers the 1 only."""
    spec, s = _two_player({(1, 1): (0, 1), (0, 3): (0, 6), (4, 4): (1, 3)}, roll=2)
    assert {_decode(spec, a)[0] for a in _legal(spec, s)} == {(1, 1), (0, 3)}
    gbg = ewn.make_spec(die_rule="gbg")
    assert {_decode(gbg, a)[0] for a in _legal(gbg, s)} == {(1, 1)}


@pytest.mark.parametrize("numbers,roll,moving", [
    ((2, 5), 3, {2}), ((2, 5), 4, {5}), ((2, 4), 3, {2, 4}), ((1, 6), 5, {6}), ((3,), 1, {3}), ((4, 6), 5, {4, 6}),
])
def test_gbg_die_rule_takes_the_nearest_cube(numbers, roll, moving):
    spec = ewn.make_spec(die_rule="gbg")
    squares = [(0, 0), (1, 1), (2, 0)]
    cubes = {squares[i]: (0, v) for i, v in enumerate(numbers)}
    cubes[(4, 4)] = (1, 1)
    _, s = _two_player(cubes, roll=roll)
    where = {v: squares[i] for i, v in enumerate(numbers)}
    assert {_decode(spec, a)[0] for a in _legal(spec, s)} == {where[v] for v in moving}


def test_capturing_an_own_cube_and_an_opponent_cube():
    cubes = {(1, 1): (0, 3), (2, 2): (0, 4), (1, 2): (1, 6), (4, 4): (1, 2), (0, 1): (1, 1)}
    spec, s = _two_player(cubes, roll=3)
    A = _action
    # (1,1) -> (2,2) own cube 4, (1,1) -> (2,1) empty, (1,1) -> (1,2) white 6
    assert _legal(spec, s) == {A(5, 2, 1, 1, 0, 1), A(5, 2, 1, 1, 1, 0), A(5, 2, 1, 1, 2, 1)}
    own, rew = _move(spec, s, A(5, 2, 1, 1, 0, 1))
    assert _to_ref(spec, own)[(2, 2)] == (0, 3) and (1, 1) not in _to_ref(spec, own)
    assert _counts(own, 2, 6) == [1, 3] and not own[TERMINAL] and not rew.any()
    opp, rew = _move(spec, s, A(5, 2, 1, 1, 2, 1))
    assert _to_ref(spec, opp)[(1, 2)] == (0, 3) and _counts(opp, 2, 6) == [2, 2] and not rew.any()


def test_reaching_the_goal_corner_wins():
    spec, s = _two_player({(3, 3): (0, 1), (0, 4): (1, 1), (1, 0): (1, 2)}, roll=1)
    out, rew = _move(spec, s, _action(5, 2, 3, 3, 0, 0))  # diagonal onto (4, 4)
    assert out[TERMINAL] and list(rew) == [1.0, -1.0] and out[ewn.ROLL] == 0
    assert _legal(spec, out) == set() and spec.validate(spec.p, out) == ""
    spec, s = _two_player({(1, 1): (1, 4), (4, 3): (0, 2)}, to_move=1, roll=6, ply=12)
    out, rew = _move(spec, s, _action(5, 2, 1, 1, 4, 0))  # white up-left onto (0, 0)
    assert out[TERMINAL] and list(rew) == [-1.0, 1.0]


def test_capturing_the_last_opponent_cube_wins():
    spec, s = _two_player({(1, 1): (0, 2), (2, 2): (1, 5), (0, 4): (0, 6)}, roll=2)
    out, rew = _move(spec, s, _action(5, 2, 1, 1, 0, 1))
    assert out[TERMINAL] and list(rew) == [1.0, -1.0] and _counts(out, 2, 6) == [2, 0]


def _gbg(cfg, cubes, to_move, roll, ply):
    spec = SPECS[cfg]
    s = _empty(spec, to_move, roll, ply)
    for (r, c), (pl, num) in cubes.items():
        _put(spec, s, r, c, pl, num)
    return spec, s


def test_three_players_player_2_corner_and_lost_cubes():
    # player_2's cube 1 one step below the top-right corner; player_0 keeps one cube, player_1 two
    cubes = {(1, 5): (2, 1), (5, 5): (0, 1), (5, 4): (1, 1), (0, 0): (1, 2)}
    spec, s = _gbg((3, 6), cubes, 2, 1, 50)
    assert spec.validate(spec.p, s) == ""
    out, rew = _move(spec, s, _action(6, 3, 1, 5, 6, 0))  # up onto (0, 5)
    assert out[TERMINAL] and list(rew) == [-1.0, -1.0, 1.0]
    # player_1's cube 1 takes player_2's last cube: players 0 and 1 win
    cubes = {(2, 2): (2, 4), (3, 3): (1, 1), (5, 5): (0, 6), (0, 1): (1, 2)}
    spec, s = _gbg((3, 6), cubes, 1, 1, 49)
    assert spec.validate(spec.p, s) == ""
    out, rew = _move(spec, s, _action(6, 3, 3, 3, 4, 1))  # up-left onto (2, 2)
    assert out[TERMINAL] and list(rew) == [1.0, 1.0, -1.0]
    # player_2 takes player_0's last cube: player_2 wins
    cubes = {(3, 3): (0, 2), (4, 2): (2, 3), (5, 5): (1, 1)}
    spec, s = _gbg((3, 6), cubes, 2, 3, 50)
    out, rew = _move(spec, s, _action(6, 3, 4, 2, 7, 1))  # up-right onto (3, 3)
    assert out[TERMINAL] and list(rew) == [-1.0, -1.0, 1.0]


def test_three_players_far_corners_end_nothing_and_a_stuck_cube_passes():
    cubes = {(4, 4): (0, 1), (2, 2): (2, 1), (1, 1): (1, 1)}
    spec, s = _gbg((3, 6), cubes, 0, 1, 48)
    assert spec.validate(spec.p, s) == ""
    out, rew = _move(spec, s, _action(6, 3, 4, 4, 0, 0))  # player_0 onto its far corner (5, 5)
    assert not out[TERMINAL] and not rew.any()
    pass_action = spec.n_actions - 1
    # later: player_0 rolls, its only cube sits on (5, 5) and cannot move
    stuck = _empty(spec, 0, 4, 51)
    for (r, c), (pl, num) in {(5, 5): (0, 1), (2, 2): (2, 1), (1, 1): (1, 1)}.items():
        _put(spec, stuck, r, c, pl, num)
    assert spec.validate(spec.p, stuck) == ""
    assert _legal(spec, stuck) == {pass_action}
    after, rew = _move(spec, stuck, pass_action)
    assert list(after[ewn.CELLS:]) == list(stuck[ewn.CELLS:]) and after[TO_MOVE] == 1 and after[PLY] == 52
    assert not after[TERMINAL] and not rew.any()
    # the pass is never legal while a move exists
    _put(spec, stuck, 3, 3, 0, 2)
    assert pass_action not in _legal(spec, stuck) and _legal(spec, stuck)


def test_four_players_teams_and_seat_order():
    # player_2 reaches its corner (0, 3) on 4x4: players 0 and 2 win
    cubes = {(1, 2): (2, 1), (2, 2): (0, 1), (3, 3): (1, 1), (2, 0): (3, 1)}
    spec, s = _gbg((4, 4), cubes, 2, 1, 30)
    out, rew = _move(spec, s, _action(4, 4, 1, 2, 7, 0))
    assert out[TERMINAL] and list(rew) == [1.0, -1.0, 1.0, -1.0]
    # player_3 takes player_1's last cube: players 1 and 3 lose
    cubes = {(1, 2): (3, 1), (2, 2): (1, 2), (0, 0): (0, 1), (3, 0): (2, 1)}
    spec, s = _gbg((4, 4), cubes, 3, 1, 31)
    out, rew = _move(spec, s, _action(4, 4, 1, 2, 10, 1))  # down onto (2, 2)
    assert out[TERMINAL] and list(rew) == [1.0, -1.0, 1.0, -1.0]
    # GBG examines the seats in order: player_2 reaching its corner by taking player_0's last cube
    # there meets player_0 (no cubes: its team loses) first, so players 0 and 2 lose
    cubes = {(1, 2): (2, 1), (0, 3): (0, 1), (3, 3): (1, 1), (2, 0): (3, 1)}
    spec, s = _gbg((4, 4), cubes, 2, 1, 30)
    out, rew = _move(spec, s, _action(4, 4, 1, 2, 7, 1))
    assert out[TERMINAL] and list(rew) == [-1.0, 1.0, -1.0, 1.0]
    # ... while player_0 reaching its corner by taking player_2's last cube wins for both
    cubes = {(2, 2): (0, 1), (3, 3): (2, 1), (0, 3): (1, 1), (0, 0): (3, 1)}
    spec, s = _gbg((4, 4), cubes, 0, 1, 28)
    out, rew = _move(spec, s, _action(4, 4, 2, 2, 0, 1))
    assert out[TERMINAL] and list(rew) == [1.0, -1.0, 1.0, -1.0]


# ============================================== validate, parameters, errors
def test_validate_names_what_is_wrong():
    spec = SPECS[(2, 5)]
    good = spec.initial_state(spec.p, make_rng(1))
    assert spec.validate(spec.p, good) == ""

    def reason(**edits):
        s = good.copy()
        for index, value in edits.items():
            s[int(index[1:])] = value
        return spec.validate(spec.p, s)

    roll, first = f"i{ewn.ROLL}", f"i{ewn.CELLS}"
    assert "roll" in reason(**{roll: 0}) and "roll" in reason(**{roll: 7})
    assert "cube codes" in reason(**{first: 13}) and "cube codes" in reason(**{first: -1})
    assert "two squares" in reason(**{f"i{ewn.CELLS + 12}": int(good[ewn.CELLS])})  # a copy of cube (0, 0)
    assert "ply count" in reason(**{f"i{TO_MOVE}": 0})
    assert "captured" in reason(**{first: 0})  # a cube gone before any move
    s = good.copy()
    s[TERMINAL] = 1
    assert "roll" in spec.validate(spec.p, s)
    s[ewn.ROLL] = 0
    assert "terminal flag" in spec.validate(spec.p, s)
    # player_0 on its goal corner although player_1 made the last move (and the game not over)
    t = _empty(spec, 0, 0, 11)
    _put(spec, t, 4, 4, 0, 1)
    _put(spec, t, 0, 1, 1, 1)
    t[TERMINAL] = 1
    assert "last move" in spec.validate(spec.p, t)
    t[TERMINAL], t[ewn.ROLL] = 0, 3
    assert "terminal flag" in spec.validate(spec.p, t)
    # 3 and 4 players start from fixed squares: cubes must be where forward steps can take them
    spec3 = SPECS[(3, 6)]
    s3 = spec3.initial_state(spec3.p, make_rng(1))
    back = s3.copy()
    back[ewn.CELLS + 12], back[ewn.CELLS + 8] = 0, back[ewn.CELLS + 12]  # player_0's cube 4 (2, 0) -> (1, 2)
    assert "cannot reach" in spec3.validate(spec3.p, back)
    far = s3.copy()
    far[ewn.CELLS + 0], far[ewn.CELLS + 14] = 0, far[ewn.CELLS + 0]  # player_0's cube 1 two steps on at ply 0
    assert "needs 2 moves" in spec3.validate(spec3.p, far)
    far[PLY], far[TO_MOVE] = 3, 0  # one move of player_0 so far: still too few
    assert "needs 2 moves" in spec3.validate(spec3.p, far)
    far[PLY] = 6
    assert spec3.validate(spec3.p, far) == ""


def test_set_state_refuses_impossible_positions_and_illegal_actions_raise():
    from farl_envs import einstein_wurfelt_nicht_v0

    env = einstein_wurfelt_nicht_v0.raw_env()
    env.reset(seed=3)
    s = env.get_state()
    s[ewn.ROLL] = 0
    with pytest.raises(ValueError, match="roll"):
        env.set_state(s)
    legal = env.legal_actions()
    bad = next(a for a in range(env.game.n_actions) if a not in legal)
    with pytest.raises(ValueError, match="legal actions"):
        env.step(bad)
    with pytest.raises(ValueError, match="legal actions"):
        env.afterstate(bad)


@pytest.mark.parametrize("params,message", [
    ({"players": 5}, "players"), ({"players": 1}, "players"), ({"players": "2"}, "players"),
    ({"players": 2, "size": 6}, r"size must be one of \[5\]"), ({"players": 3, "size": 5}, r"\[6\]"),
    ({"players": 4, "size": 5}, r"\[4, 6\]"), ({"cell_coding": 4}, r"\(0, 1, 2, 3\)"),
    ({"cell_coding": True}, "cell_coding"), ({"die_rule": "nearest"}, "'official', 'gbg'"),
])
def test_bad_parameters_raise_naming_the_allowed_values(params, message):
    with pytest.raises(ValueError, match=message):
        ewn.make_spec(**params)
    with pytest.raises(ValueError):
        ewn.start_position(SPECS[(3, 6)].p, 0, 0, 1)
    with pytest.raises(ValueError, match="0..719"):
        ewn.start_position(SPECS[(2, 5)].p, 720, 0, 1)


@pytest.mark.parametrize("cfg,n_actions,n_values", [((2, 5), 300, 3), ((3, 6), 36 * 18 + 1, 4),
                                                    ((4, 4), 16 * 24, 5), ((4, 6), 36 * 24, 5)])
def test_spec_sizes(cfg, n_actions, n_values):
    spec = SPECS[cfg]
    n = cfg[1]
    assert spec.n_actions == n_actions and spec.n_cell_values == n_values and spec.n_cells == n * n
    assert spec.obs_shape == (n, n, cfg[0] + 1) and spec.has_chance and spec.reward_range == (-1.0, 1.0)
    assert len(spec.action_names) == n_actions and len(spec.cell_colors) == 1 + cfg[0] * spec.obs_high


# ======================================= n-tuple cells, observation, rendering
def test_cell_codings_and_observation():
    # player_0's cubes 1 and 4, player_1's cube 6
    cubes = {(0, 0): (0, 1), (1, 1): (0, 4), (3, 3): (1, 6)}
    # coding 3, worked by hand: player_0 with cubes 1 and 4 moves the 1 on rolls 1, 2, 3 (2 and 3 may move
    # either) and the 4 on rolls 2..6, so both stand on three or more faces; player_1's lone 6 on all six
    expected = {0: (1, 1, 2), 1: (1, 2, 6), 2: (1, 4, 12), 3: (3, 3, 6)}
    for coding, (v00, v11, v33) in expected.items():
        spec = ewn.make_spec(cell_coding=coding)
        s = _empty(spec, 0, 5, 11)
        for (r, c), (pl, num) in cubes.items():
            _put(spec, s, r, c, pl, num)
        out = np.zeros(25, dtype=np.int32)
        spec.board(spec.p, s, out)
        want = np.zeros(25, dtype=np.int32)
        want[0], want[6], want[18] = v00, v11, v33
        assert list(out) == list(want) and out.max() < spec.n_cell_values
    obs = np.zeros(spec.obs_shape, dtype=np.int8)
    spec.observe(spec.p, s, 1, obs)  # player_1's view: its own cubes in plane 0
    assert obs[3, 3, 0] == 6 and obs[0, 0, 1] == 1 and obs[1, 1, 1] == 4
    assert obs[:, :, :2].sum() == 11 and (obs[:, :, 2] == 5).all()
    # three levels on the 4x4 board (3 cubes) are the numbers themselves
    spec = ewn.make_spec(4, 4, cell_coding=1)
    s = spec.initial_state(spec.p, make_rng(0))
    out = np.zeros(16, dtype=np.int32)
    spec.board(spec.p, s, out)
    assert out[0] == 1 and out[1] == 2 and out[4] == 3 and out[3] == 1 + 9  # player_3's cube 1 at (0, 3)


@pytest.mark.parametrize("die_rule", ewn.DIE_RULES)
def test_faces_coding_counts_the_rolls_that_let_a_cube_move(die_rule):
    """``cell_coding=3`` against the move rules: along random 2-player games, every cube's class is the number of
    rolls (1..6) for which its player's legal moves include a move of that cube, capped at 3 (in the 2-player
    game a cube off its goal corner always has a forward step, so "may be chosen" and "may move" agree)."""
    spec = ewn.make_spec(cell_coding=3, die_rule=die_rule)
    rng = make_rng(3)
    classes_seen = set()
    for _ in range(30):
        s = spec.initial_state(spec.p, rng)
        while not s[TERMINAL]:
            out = np.zeros(25, dtype=np.int32)
            spec.board(spec.p, s, out)
            for q in range(2):
                probe = s.copy()
                probe[TO_MOVE] = q
                rolls = np.zeros(25, dtype=np.int64)
                for roll in range(1, 7):
                    ewn.apply_roll(spec.p, probe, roll)
                    for cell in {a // 12 for a in _legal(spec, probe)}:
                        rolls[cell] += 1
                for cell in range(25):
                    code = int(s[ewn.CELLS + cell])
                    if code and (code - 1) // 6 == q:
                        assert out[cell] == 1 + 3 * q + min(rolls[cell], 3) - 1
                        classes_seen.add(min(int(rolls[cell]), 3))
                    elif not code:
                        assert out[cell] == 0
            legal = sorted(_legal(spec, s))
            s, _rew = _move(spec, s, legal[int(rng_choice_mask(rng, np.ones(len(legal), dtype=np.int8)))])
            if not s[TERMINAL]:
                ewn.chance(spec.p, s, rng)
    assert classes_seen == {1, 2, 3}


@pytest.mark.parametrize("cfg", CONFIGS)
def test_render_text_and_rgb(cfg):
    from farl_envs import einstein_wurfelt_nicht_v0

    env = einstein_wurfelt_nicht_v0.env(players=cfg[0], size=cfg[1], render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    lines = text.split("\n")
    assert len(lines) == cfg[1] + 1 and f"roll {env.unwrapped.get_state()[ewn.ROLL]}" in lines[-1]
    assert sum(tok != "." for line in lines[:-1] for tok in line.split()) == cfg[0] * (3 if cfg[1] == 4 else 6)
    env = einstein_wurfelt_nicht_v0.env(players=cfg[0], size=cfg[1], render_mode="rgb_array")
    env.reset(seed=0)
    img = env.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    assert len({tuple(px) for px in img.reshape(-1, 3)}) >= 2 + cfg[0]  # background, empty, player colours


# ================================================================= symmetries
def test_diagonal_mirror_maps_moves_onto_moves():
    spec = SPECS[(2, 5)]
    perms, acts = spec.symmetries(spec.p), spec.action_symmetries(spec.p)
    assert perms.shape == (2, 25) and acts.shape == (2, 300)
    assert list(perms[0]) == list(range(25)) and list(acts[0]) == list(range(300))
    assert sorted(acts[1]) == list(range(300)) and list(acts[1][acts[1]]) == list(range(300))
    rng = make_rng(9)
    checked = 0
    for _ in range(40):
        s = spec.initial_state(spec.p, rng)
        while not s[TERMINAL]:
            t = s.copy()
            t[ewn.CELLS:] = s[ewn.CELLS:][perms[1]]
            assert spec.validate(spec.p, t) == ""
            legal = _legal(spec, s)
            assert {int(acts[1, a]) for a in legal} == _legal(spec, t)
            for a in legal:
                after, rew = _move(spec, s, a)
                after_t, rew_t = _move(spec, t, int(acts[1, a]))
                assert np.array_equal(after[ewn.CELLS:][perms[1]], after_t[ewn.CELLS:])
                assert np.array_equal(rew, rew_t) and after[TERMINAL] == after_t[TERMINAL]
                checked += 1
            mask = np.zeros(spec.n_actions, dtype=np.int8)
            spec.legal_actions(spec.p, s, mask)
            s, _ = _move(spec, s, rng_choice_mask(rng, mask))
            if not s[TERMINAL]:
                spec.chance(spec.p, s, rng)
    assert checked > 500
    # the mirror keeps both players' start squares
    start = {i for i in range(25) if (i // 5) + (i % 5) <= 2 or (i // 5) + (i % 5) >= 6}
    assert {int(perms[1][i]) for i in start} == start


@pytest.mark.parametrize("cfg", CONFIGS[1:])
def test_three_and_four_players_have_the_identity_only(cfg):
    spec = SPECS[cfg]
    assert spec.symmetries(spec.p).tolist() == [list(range(cfg[1] ** 2))]
    assert spec.action_symmetries(spec.p).tolist() == [list(range(spec.n_actions))]


# ============================================ PettingZoo, Gymnasium, chance info
@pytest.mark.parametrize("cfg", CONFIGS)
def test_pettingzoo_api_and_seed_tests(cfg):
    import warnings

    from pettingzoo.test import api_test, seed_test

    from farl_envs import einstein_wurfelt_nicht_v0

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(einstein_wurfelt_nicht_v0.env(players=cfg[0], size=cfg[1]), num_cycles=200)
        seed_test(lambda: einstein_wurfelt_nicht_v0.env(players=cfg[0], size=cfg[1]), num_cycles=20)


def test_infos_show_the_next_roll():
    from farl_envs import einstein_wurfelt_nicht_v0

    env = einstein_wurfelt_nicht_v0.raw_env(players=3)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    rolls = []
    while not env.state_array[TERMINAL]:
        mover = env.agent_selection
        env.step(int(rng.choice(env.legal_actions())))
        info = env.infos[mover]
        if env.state_array[TERMINAL]:
            assert info["chance"] == {"roll": -1} and info["afterstate"].terminal  # no roll after the last move
        else:
            assert info["chance"] == {"roll": int(env.state_array[ewn.ROLL])}
            assert info["afterstate"].state[ewn.ROLL] == 0
            rolls.append(info["chance"]["roll"])
    assert set(rolls) == set(range(1, 7))


@pytest.mark.parametrize("cfg", CONFIGS)
def test_gymnasium_single_agent_wrapper(cfg):
    from farl_envs.gym_env import SingleAgentEnv

    env = SingleAgentEnv(game="einstein_wurfelt_nicht", seat="alternate", players=cfg[0], size=cfg[1])
    rng = np.random.default_rng(1)
    for _ in range(2 * cfg[0]):
        obs, info = env.reset(seed=int(rng.integers(1000)))
        assert obs.shape == (cfg[1], cfg[1], cfg[0] + 1)
        done = False
        while not done:
            mask = info["action_mask"]
            obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            done = terminated or truncated
        assert reward in (-1.0, 1.0)


# ========================================================== compiled searches
@pytest.mark.parametrize("cfg", [(2, 5), (3, 6), (4, 4)])
def test_playouts_mcts_and_evaluate(cfg):
    from farl_agents.evaluate import evaluate
    from farl_agents.opponents import make_opponent
    from farl_envs.core.playout import playouts

    spec = SPECS[cfg]
    assert playouts(spec, 50, make_rng(2)) > 50
    result = evaluate(spec, make_opponent("mcts30", spec), "random", n_games=2, seed=1)
    assert result.n_players == cfg[0] and len(result.seats) == cfg[0]
    maxn = make_opponent("maxn2", spec)  # expectimax-N (hand-computed values: tests/test_search_nplayer.py)
    s = spec.initial_state(spec.p, make_rng(5))
    mask = np.zeros(spec.n_actions, dtype=np.int8)
    spec.legal_actions(spec.p, s, mask)
    assert mask[maxn.act(spec, s, make_rng(6))] == 1


def test_mcts_beats_random_in_two_player_games():
    from farl_agents.evaluate import evaluate

    result = evaluate(SPECS[(2, 5)], "mcts200", "random", n_games=20, seed=3)
    assert result.win_rate > 0.7
