"""Lines of Action rules against a second implementation written here, hand-built positions and OpenSpiel.

The reference below (``Reference``) is plain Python on an 8x8 list of lists:
it counts the pieces on a line by walking the whole line, finds groups with
a breadth-first flood fill over the 8 neighbours (the kernel grows 64-bit
bitboards instead), and remembers every board it has seen in a set (the
kernel takes moves back on bitboards). Random games are played on both in
lockstep, and, when ``open_spiel`` is installed, on pyspiel's
``lines_of_action`` too: same legal action numbers, board, player to move,
end of game and returns at every step.
"""
from __future__ import annotations

import warnings
from collections import deque

import gymnasium
import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import farl_envs
from farl_agents.evaluate import evaluate
from farl_agents.opponents import make_opponent
from farl_envs import lines_of_action_v0
from farl_envs.core.kernels import kernels_of
from farl_envs.core.playout import random_playout
from farl_envs.core.rng import make_rng, rng_choice_mask
from farl_envs.core.spec import PLY, TERMINAL, TO_MOVE
from farl_envs.games import lines_of_action as loa

SPEC = loa.make_spec()
P = SPEC.p
CELLS = loa.CELLS
DIRECTIONS = [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


# ----------------------------------------------------- a second implementation
def flood_groups(cells: set[tuple[int, int]]) -> int:
    """Number of 8-connected groups of ``cells`` (breadth-first search)."""
    left, groups = set(cells), 0
    while left:
        groups += 1
        queue = deque([left.pop()])
        while queue:
            r, c = queue.popleft()
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    n = (r + dr, c + dc)
                    if n in left:
                        left.remove(n)
                        queue.append(n)
    return groups


class Reference:
    """Lines of Action as the rules read (OpenSpiel's variant), without the kernel's shortcuts."""

    def __init__(self, max_game_length: int = 1000):
        self.max_game_length = max_game_length
        self.grid = [[0] * 8 for _ in range(8)]  # grid[row][col]: 0 empty, 1 black, 2 white
        for c in range(1, 7):
            self.grid[0][c] = self.grid[7][c] = 1
        for r in range(1, 7):
            self.grid[r][0] = self.grid[r][7] = 2
        self.to_move, self.plies, self.over, self.returns = 0, 0, False, (0.0, 0.0)
        self.seen = {self.key()}

    def key(self):
        return tuple(tuple(row) for row in self.grid)

    def pieces(self, value):
        return {(r, c) for r in range(8) for c in range(8) if self.grid[r][c] == value}

    def line_count(self, r, c, dr, dc):
        """Pieces on the whole line through (r, c) along (dr, dc), walking it from one end to the other."""
        while 0 <= r - dr < 8 and 0 <= c - dc < 8:
            r, c = r - dr, c - dc
        n = 0
        while 0 <= r < 8 and 0 <= c < 8:
            n += self.grid[r][c] != 0
            r, c = r + dr, c + dc
        return n

    def moves(self) -> list[int]:
        if self.over:
            return []
        own, opp = self.to_move + 1, 2 - self.to_move
        out = []
        for r, c in self.pieces(own):
            for dr, dc in DIRECTIONS:
                n = self.line_count(r, c, dr, dc)
                tr, tc = r + n * dr, c + n * dc
                if not (0 <= tr < 8 and 0 <= tc < 8) or self.grid[tr][tc] == own:
                    continue
                if any(self.grid[r + i * dr][c + i * dc] == opp for i in range(1, n)):
                    continue
                capture = self.grid[tr][tc] == opp
                out.append(((r * 8 + c) * 64 + tr * 8 + tc) * 2 + capture)
        return sorted(out)

    def play(self, a: int):
        f, t = a >> 7, (a >> 1) & 63
        mover = self.to_move
        self.grid[t >> 3][t & 7] = mover + 1
        self.grid[f >> 3][f & 7] = 0
        self.plies += 1
        self.to_move = 1 - mover
        winner = None
        if flood_groups(self.pieces(mover + 1)) == 1:
            winner = mover
        elif flood_groups(self.pieces(2 - mover)) == 1:
            winner = 1 - mover
        key = self.key()
        if self.plies >= self.max_game_length or key in self.seen:
            self.over = True  # draw
            return
        self.seen.add(key)
        if winner is None and not self.moves():
            winner = mover
        if winner is not None:
            self.over = True
            self.returns = (1.0, -1.0) if winner == 0 else (-1.0, 1.0)


def _cells(s) -> list[list[int]]:
    return s[CELLS:CELLS + 64].reshape(8, 8).tolist()


def _legal(s, spec=SPEC) -> list[int]:
    mask = np.zeros(spec.n_actions, np.int8)
    n = spec.legal_actions(spec.p, s, mask)
    legal = np.flatnonzero(mask).tolist()
    assert n == len(legal)
    return legal


def _step(s, a, spec=SPEC):
    out = np.empty_like(s)
    rewards = np.zeros(2)
    spec.afterstate(spec.p, s, a, out, rewards)
    return out, rewards


def _position(cells: dict[str, int], to_move: int, ply: int, spec=SPEC) -> np.ndarray:
    """A state with pieces on the named squares ({"a1": 1, ...}), empty history and consistent line counts."""
    grid = np.zeros(64, np.int32)
    for name, value in cells.items():
        grid[(int(name[1]) - 1) * 8 + "abcdefgh".index(name[0])] = value
    s = loa._state_from_cells(spec.p, grid, to_move)
    s[PLY] = ply
    return s


def _act(name: str, spec=SPEC) -> int:
    return spec.action_names.index(name)


# ------------------------------------------------------------ connectivity
def _bits(cells) -> np.uint64:
    b = 0
    for r, c in cells:
        b |= 1 << (8 * r + c)
    return np.uint64(b)


def test_connectivity_hand_cases_across_the_board_edges():
    """Cells next to each other in bit order but on opposite edges (h1 and a2) are not neighbours."""
    sq = lambda n: (int(n[1]) - 1, "abcdefgh".index(n[0]))  # noqa: E731
    cases = {("h1", "a2"): False, ("a1", "h1"): False, ("h4", "a5"): False, ("a8", "h7"): False,
             ("a1", "b2"): True, ("h8", "g7"): True, ("h1", "h2"): True, ("d4", "e5", "f4", "g3"): True,
             ("a1", "a3"): False, ("a1",): True, ("a1", "c3", "b2", "h8"): False}
    for names, connected in cases.items():
        cells = {sq(n) for n in names}
        assert (flood_groups(cells) == 1) == connected
        assert loa._connected(_bits(cells)) == connected, names


def test_connectivity_agrees_with_a_flood_fill_on_random_sets():
    rng = np.random.default_rng(0)
    edge_files = [(r, c) for r in range(8) for c in (0, 1, 6, 7)]
    all_cells = [(r, c) for r in range(8) for c in range(8)]
    seen = {True: 0, False: 0}
    for trial in range(4000):
        pool = edge_files if trial % 2 else all_cells
        k = int(rng.integers(1, 13))
        idx = rng.choice(len(pool), size=min(k, len(pool)), replace=False)
        cells = {pool[i] for i in idx}
        if trial % 4 == 3:  # grow a random walk so that connected sets are common too
            r, c = pool[idx[0]]
            cells = {(r, c)}
            while len(cells) < k:
                dr, dc = DIRECTIONS[int(rng.integers(8))]
                if 0 <= r + dr < 8 and 0 <= c + dc < 8:
                    r, c = r + dr, c + dc
                    cells.add((r, c))
        expected = flood_groups(cells) == 1
        assert loa._connected(_bits(cells)) == expected, sorted(cells)
        seen[expected] += 1
    assert min(seen.values()) > 500


# ------------------------------------------------------------ start and moves
def test_start_position_and_its_36_moves():
    s = SPEC.initial_state(P, make_rng(0))
    assert loa.render_text(P, s).splitlines() == [
        "8.xxxxxx.", "7o......o", "6o......o", "5o......o", "4o......o", "3o......o", "2o......o",
        "1.xxxxxx.", " abcdefgh"]
    names = {SPEC.action_names[a] for a in _legal(s)}
    assert len(names) == 36
    # b1 jumps its own five pieces along row 1 (six pieces on it); c1 captures a3 on its diagonal
    # (c1, b2 empty, a3: two pieces); the vertical move is 2 squares (b1 and b8 on file b)
    assert {"b1-h1", "c1xa3", "b1-b3", "g8-a8", "f8xh6"} <= names
    assert not names & {"b1-b2", "b1-b4", "a2-c2"}  # a2 is white's: not black's move
    assert loa.encode_action(1, 7, False) == _act("b1-h1") == 142  # (1 * 64 + 7) * 2, OpenSpiel's number
    assert SPEC.action_names[loa.encode_action(2, 16, True)] == "c1xa3"


def test_pieces_cannot_jump_the_opponent_but_jump_their_own():
    # row 4: black d4, white e4, black h4: three pieces, d4 moves 3 squares; rightwards it would pass e4
    s = _position({"d4": 1, "e4": 2, "h4": 1, "a8": 2, "h1": 2}, to_move=0, ply=40)
    names = {SPEC.action_names[a] for a in _legal(s)}
    assert "d4-g4" not in names  # a jump over white's e4
    assert "d4-a4" in names  # leftwards: 3 squares to a4, nothing in the way
    s = _position({"d4": 1, "e4": 1, "h4": 2, "a8": 2, "b1": 2}, to_move=0, ply=40)
    names = {SPEC.action_names[a] for a in _legal(s)}
    assert "d4-g4" in names  # jumps its own e4
    assert "e4xh4" in names  # 3 squares right, captures
    assert "d4-c4" not in names  # a move is always exactly as long as the line count


def test_kernel_and_reference_agree_on_perft():
    """Number of move sequences of length 1, 2, 3 from the start (counted by both; 3 only the kernel and pyspiel)."""
    def perft(s, depth):
        if depth == 0 or s[TERMINAL]:
            return 1
        return sum(perft(_step(s, a)[0], depth - 1) for a in _legal(s))

    def ref_perft(ref, depth):
        if depth == 0 or ref.over:
            return 1
        total = 0
        for a in ref.moves():
            child = Reference()
            child.grid = [row[:] for row in ref.grid]
            child.to_move, child.plies, child.seen = ref.to_move, ref.plies, set(ref.seen)
            child.play(a)
            total += ref_perft(child, depth - 1)
        return total

    s0 = SPEC.initial_state(P, make_rng(0))
    assert perft(s0, 1) == ref_perft(Reference(), 1) == 36
    assert perft(s0, 2) == ref_perft(Reference(), 2)


# ------------------------------------------------------------ end of the game
def test_simultaneous_connection_is_won_by_the_mover():
    # black f5xh5 joins h6 (black connected) and removes white's lone h5 (white a1-b1 connected too)
    s = _position({"f5": 1, "h6": 1, "a1": 2, "b1": 2, "h5": 2}, to_move=0, ply=20)
    assert SPEC.validate(P, s) == ""
    out, rewards = _step(s, _act("f5xh5"))
    assert out[TERMINAL] == 1 and rewards.tolist() == [1.0, -1.0]


def test_a_capture_that_connects_only_the_opponent_loses():
    s = _position({"f5": 1, "h6": 1, "a8": 1, "a1": 2, "b1": 2, "h5": 2}, to_move=0, ply=20)
    out, rewards = _step(s, _act("f5xh5"))
    assert out[TERMINAL] == 1 and rewards.tolist() == [-1.0, 1.0]


def test_move_limit_draws_even_a_winning_move():
    spec = loa.make_spec(max_game_length=21)
    s = _position({"f5": 1, "h6": 1, "a1": 2, "b1": 2, "h5": 2}, to_move=0, ply=20, spec=spec)
    out, rewards = _step(s, _act("f5xh5"), spec)
    assert out[TERMINAL] == 1 and rewards.tolist() == [0.0, 0.0]
    spec1 = loa.make_spec(max_game_length=1)
    s = spec1.initial_state(spec1.p, make_rng(0))
    out, rewards = _step(s, _act("b1-b3"), spec1)
    assert out[TERMINAL] == 1 and rewards.tolist() == [0.0, 0.0] and _legal(out, spec1) == []


def test_player_who_cannot_move_loses():
    # white a1 and h8 are each boxed in by black pieces standing next to them on every line
    cells = {"a2": 1, "b1": 1, "b2": 1, "g8": 1, "h7": 1, "g7": 1, "d5": 1, "a1": 2, "h8": 2}
    s = _position(cells, to_move=0, ply=20)
    assert SPEC.validate(P, s) == ""
    assert _legal(_position(cells, to_move=1, ply=21)) == []
    quiet = [a for a in _legal(s) if a >> 7 == 4 * 8 + 3 and not a & 1]  # the d5 piece, no capture
    assert quiet
    for a in quiet:
        out, rewards = _step(s, a)
        assert out[TERMINAL] == 1 and rewards.tolist() == [1.0, -1.0], SPEC.action_names[a]


def test_repeated_board_is_a_draw():
    s = SPEC.initial_state(P, make_rng(0))
    for name in ("b1-b3", "a2-c2", "b3-b1"):
        s, rewards = _step(s, _act(name))
        assert not s[TERMINAL]
    s, rewards = _step(s, _act("c2-a2"))  # back to the start position
    assert s[TERMINAL] == 1 and rewards.tolist() == [0.0, 0.0] and s[PLY] == 4


def test_capture_clears_the_history():
    s = SPEC.initial_state(P, make_rng(0))
    for name in ("b1-b3", "a2-c2"):
        s, _ = _step(s, _act(name))
    assert s[loa.HISTORY_LEN] == 2
    s, _ = _step(s, _act("c1xa3"))
    assert s[loa.HISTORY_LEN] == 0 and not np.any(s[loa.HISTORY:])
    assert SPEC.validate(P, s) == ""


def _random_game_against_reference(seed: int, max_game_length: int) -> str:
    spec = loa.make_spec(max_game_length=max_game_length)
    rng = np.random.default_rng(seed)
    s = spec.initial_state(spec.p, make_rng(seed))
    ref = Reference(max_game_length)
    totals = np.zeros(2)
    while True:
        legal = _legal(s, spec)
        assert legal == ref.moves()
        assert _cells(s) == ref.grid and s[TO_MOVE] == ref.to_move and bool(s[TERMINAL]) == ref.over
        if ref.over:
            assert totals.tolist() == list(ref.returns)
            return "draw" if totals[0] == 0 else "win"
        a = int(rng.choice(legal))
        s, rewards = _step(s, a, spec)
        totals += rewards
        ref.play(a)


def test_random_games_agree_with_the_reference():
    outcomes = [_random_game_against_reference(seed, 1000) for seed in range(12)]
    outcomes += [_random_game_against_reference(seed, 40) for seed in range(100, 104)]
    assert {"draw", "win"} <= set(outcomes)


def test_every_random_game_ends_with_zero_sum_rewards():
    s0 = SPEC.initial_state(P, make_rng(0))
    rng = make_rng(5)
    mask, rewards, total = np.zeros(SPEC.n_actions, np.int8), np.zeros(2), np.zeros(2)
    for _ in range(100):
        s = s0.copy()
        plies = random_playout(kernels_of(SPEC), P, s, mask, rewards, total, rng)
        assert s[TERMINAL] == 1 and 1 <= plies <= SPEC.max_plies and s[PLY] == plies
        assert total.sum() == 0 and abs(total[0]) in (0.0, 1.0)


# ------------------------------------------------------------ OpenSpiel in lockstep
def _openspiel_board(state_string: str) -> list[str]:
    return state_string.split("\n\n")[0].splitlines()


@pytest.mark.parametrize("max_game_length,games", [(1000, 25), (30, 5), (2, 2)])
def test_lockstep_with_openspiel(max_game_length, games):
    pyspiel = pytest.importorskip("pyspiel")
    game = pyspiel.load_game("lines_of_action", {"max_game_length": max_game_length})
    spec = loa.make_spec(max_game_length=max_game_length)
    assert game.num_distinct_actions() == spec.n_actions and game.max_game_length() == spec.max_plies
    rng = np.random.default_rng(max_game_length)
    for g in range(games):
        state = game.new_initial_state()
        s = spec.initial_state(spec.p, make_rng(g))
        totals = np.zeros(2)
        while True:
            assert bool(s[TERMINAL]) == state.is_terminal()
            assert loa.render_text(spec.p, s).splitlines() == _openspiel_board(str(state))
            if state.is_terminal():
                assert totals.tolist() == state.returns()
                break
            assert state.current_player() == s[TO_MOVE]
            legal = _legal(s, spec)
            assert legal == state.legal_actions()
            assert [spec.action_names[a] for a in legal[:5]] == [state.action_to_string(a) for a in legal[:5]]
            a = int(rng.choice(legal))
            state.apply_action(a)
            s, rewards = _step(s, a, spec)
            totals += rewards


def test_openspiel_also_gives_a_simultaneous_connection_to_the_mover():
    """Random games until one ends with both sides connected; pyspiel and the reference agree: the mover won."""
    pyspiel = pytest.importorskip("pyspiel")
    rng = make_rng(11)
    s0 = SPEC.initial_state(P, make_rng(0))
    mask, rewards, total = np.zeros(SPEC.n_actions, np.int8), np.zeros(2), np.zeros(2)
    for _ in range(3000):
        before = rng.copy()
        s = s0.copy()
        random_playout(kernels_of(SPEC), P, s, mask, rewards, total, rng)
        cells = s[CELLS:CELLS + 64]
        black = {(c >> 3, c & 7) for c in np.flatnonzero(cells == 1)}
        white = {(c >> 3, c & 7) for c in np.flatnonzero(cells == 2)}
        if flood_groups(black) == 1 and flood_groups(white) == 1:
            break
    else:
        pytest.fail("no random game ended with both sides connected")
    state, ref, s = pyspiel.load_game("lines_of_action").new_initial_state(), Reference(), s0.copy()
    while not s[TERMINAL]:  # replay the same game (the playout drew its moves from this generator)
        a = rng_choice_mask(before, mask) if SPEC.legal_actions(P, s, mask) else -1
        mover = int(s[TO_MOVE])
        SPEC.afterstate(P, s, a, s, rewards)
        state.apply_action(a)
        ref.play(a)
    expected = [1.0, -1.0] if mover == 0 else [-1.0, 1.0]
    assert total.tolist() == state.returns() == list(ref.returns) == expected


def test_openspiel_repetition_and_perft_3():
    pyspiel = pytest.importorskip("pyspiel")
    state = pyspiel.load_game("lines_of_action").new_initial_state()
    for name in ("b1-b3", "a2-c2", "b3-b1", "c2-a2"):
        state.apply_action(_act(name))
    assert state.is_terminal() and state.returns() == [0.0, 0.0]  # the fact test_repeated_board_is_a_draw uses

    def os_perft(st, depth):
        if depth == 0 or st.is_terminal():
            return 1
        return sum(os_perft(st.child(a), depth - 1) for a in st.legal_actions())

    def perft(s, depth):
        if depth == 0 or s[TERMINAL]:
            return 1
        return sum(perft(_step(s, a)[0], depth - 1) for a in _legal(s))

    root = pyspiel.load_game("lines_of_action").new_initial_state()
    assert perft(SPEC.initial_state(P, make_rng(0)), 3) == os_perft(root, 3)


# ------------------------------------------------------------ symmetries
def _transform(s, perm):
    """``s`` seen in the symmetry ``perm`` (cells, history moves and line counts)."""
    image = np.empty(64, np.int64)
    image[perm] = np.arange(64)
    cells = s[CELLS:CELLS + 64][perm]
    t = loa._state_from_cells(P, cells, int(s[TO_MOVE]))
    t[:CELLS] = s[:CELLS]
    k = int(s[loa.HISTORY_LEN])
    t[loa.HISTORY_LEN] = k
    for i in range(k):
        m = int(s[loa.HISTORY + i])
        t[loa.HISTORY + i] = image[m >> 6] * 64 + image[m & 63]
    return t


def test_symmetries_commute_with_moves():
    perms, acts = SPEC.symmetries(P), SPEC.action_symmetries(P)
    assert perms.shape == (8, 64) and acts.shape == (8, SPEC.n_actions)
    assert np.array_equal(perms[0], np.arange(64)) and np.array_equal(acts[0], np.arange(SPEC.n_actions))
    for k in range(8):
        assert sorted(acts[k]) == list(range(SPEC.n_actions))
    rng = np.random.default_rng(3)
    checked = 0
    for game in range(6):
        s = SPEC.initial_state(P, make_rng(game))
        for _ in range(int(rng.integers(0, 30))):
            if s[TERMINAL]:
                break
            s, _ = _step(s, int(rng.choice(_legal(s))))
        if s[TERMINAL]:
            continue
        assert SPEC.validate(P, s) == ""
        legal = _legal(s)
        for k in range(8):
            t = _transform(s, perms[k])
            assert SPEC.validate(P, t) == ""
            assert sorted(acts[k, legal].tolist()) == _legal(t)
            for a in legal[:6]:
                after, r1 = _step(s, a)
                after_t, r2 = _step(t, int(acts[k, a]))
                assert np.array_equal(after[CELLS:CELLS + 64][perms[k]], after_t[CELLS:CELLS + 64])
                assert r1.tolist() == r2.tolist() and after[TERMINAL] == after_t[TERMINAL]
                checked += 1
    assert checked > 100


# ------------------------------------------------------------ observation and rendering
def test_board_and_observation_planes():
    s = SPEC.initial_state(P, make_rng(0))
    b = np.zeros(64, np.int32)
    SPEC.board(P, s, b)
    assert b[1] == 1 and b[8] == 2 and b[0] == 0 and np.sum(b == 1) == np.sum(b == 2) == 12
    obs = np.zeros(SPEC.obs_shape, np.int8)
    SPEC.observe(P, s, 1, obs)
    assert obs[1, 0, 0] == 1 and obs[0, 1, 1] == 1 and obs[0, 0].tolist() == [0, 0] and obs.sum() == 24


def test_render_text_and_rgb():
    env = lines_of_action_v0.env(render_mode="ansi")
    env.reset(seed=0)
    env.step(_act("b1-b3"))
    text = env.render()
    assert text.splitlines()[-2] == "1..xxxxx." and text.splitlines()[-4] == "3ox.....o"
    rgb = lines_of_action_v0.env(render_mode="rgb_array")
    rgb.reset(seed=0)
    img = rgb.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[0] == img.shape[1]
    grid = loa._paint(P, rgb.unwrapped.get_state())
    assert grid[0, 1] == 1 and grid[7, 0] == 0 and grid[1, 0] == 2  # rank 8 drawn on top


# ------------------------------------------------------------ errors
@pytest.mark.parametrize("value", [0, 10001, "100", True, 2.0])
def test_bad_parameters_name_the_allowed_values(value):
    with pytest.raises(ValueError, match=r"1\.\.10000"):
        loa.make_spec(max_game_length=value)


def test_illegal_action_raises_and_leaves_the_state():
    env = lines_of_action_v0.env()
    env.reset(seed=0)
    before = env.unwrapped.get_state()
    for bad in (_act("b1-b2"), _act("a2-c2"), 8192, -1):
        with pytest.raises(ValueError, match="legal actions"):
            env.step(bad)
        assert np.array_equal(env.unwrapped.get_state(), before)


def test_impossible_positions_are_refused():
    env = lines_of_action_v0.raw_env()
    env.reset(seed=0)
    ok = _position({"f5": 1, "h6": 1, "a1": 2, "b1": 2, "h5": 2}, to_move=0, ply=20)
    env.set_state(ok)
    assert env.agent_selection == "player_0"
    start = SPEC.initial_state(P, make_rng(0))
    played, _ = _step(start, _act("b1-b3"))
    assert SPEC.validate(P, played) == ""
    bad = {}
    t = ok.copy(); t[CELLS + 5] = 3; bad["cells"] = t  # noqa: E702
    t = ok.copy(); t[loa.LINES + 4] += 1; bad["line counts"] = t  # noqa: E702
    t = ok.copy(); t[TO_MOVE] = 1; bad["player to move"] = t  # noqa: E702
    t = ok.copy(); t[PLY] = 10; bad["more pieces captured"] = t  # noqa: E702
    t = ok.copy(); t[TERMINAL] = 1; bad["terminal flag"] = t  # noqa: E702
    t = ok.copy(); t[PLY] = 1001; t[TO_MOVE] = 1; bad["beyond max_game_length"] = t  # noqa: E702
    t = ok.copy(); t[CELLS:CELLS + 64] = 0; t[CELLS] = 2; bad["each player"] = t  # noqa: E702
    t = played.copy(); t[loa.HISTORY] = 1 * 64 + 20; bad["does not fit"] = t  # noqa: E702
    t = played.copy(); t[loa.HISTORY_LEN] = t[loa.HISTORY] = 0; bad["no piece was captured"] = t  # noqa: E702
    t = played.copy(); t[loa.HISTORY + 3] = 7; bad["beyond its length"] = t  # noqa: E702
    t = _position({"f5": 1, "g6": 1, "a1": 2, "b1": 2, "h5": 2}, to_move=0, ply=20)
    bad["terminal flag"] = t  # black is connected: the game is over
    # a starting board that was reached from itself: the moves since the start return to it
    t = start.copy()
    for name in ("b1-b3", "a2-c2", "b3-b1", "c2-a2"):
        t, _ = _step(t, _act(name))
    t[TERMINAL] = 0
    bad["terminal flag "] = t
    long_history = _position({"f5": 1, "h6": 1, "a1": 2, "b1": 2, "h5": 2}, to_move=0, ply=20)
    long_history[loa.HISTORY_LEN] = 21
    bad["history length"] = long_history
    for what, b in bad.items():
        reason = SPEC.validate(P, b)
        assert what.strip() in reason, (what, reason)
        with pytest.raises(ValueError, match="not a legal position"):
            env.set_state(b)


# ------------------------------------------------------------ APIs and generic compiled code
def test_pettingzoo_api_and_seed_tests():
    api_test(lines_of_action_v0.env(), num_cycles=200)
    seed_test(lambda: lines_of_action_v0.env(max_game_length=60), num_cycles=20)


def test_gymnasium_single_agent_wrapper():
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make(farl_envs.gymnasium_id("lines_of_action"), seat="alternate", max_game_length=80).unwrapped
    check_env(env, skip_render_check=True)
    for ep in range(2):
        env.reset(seed=ep)
        done = False
        while not done:  # the move limit ends an episode as truncated, a rule's end as terminated
            _, r, terminated, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
            done = terminated or truncated
        assert r in (-1.0, 0.0, 1.0)


# -m slow: compiles Max-N and MCTS for this game alone (~5 CPU s); the default run tests that search code on other games
@pytest.mark.slow
def test_opponents_and_evaluate_play_lines_of_action():
    """Max-N and MCTS through make_opponent and evaluate, both seats; games end with zero-sum rewards."""
    game = farl_envs.game_spec("lines_of_action", max_game_length=60)
    for player in (make_opponent("maxn1", game), make_opponent("mcts20", game)):
        r = evaluate(game, player, "random", n_games=1, seed=1)
        games = r.matchups[0].games
        assert len(games) == 2 and {g["seat"] for g in games} == {0, 1}
        assert all(tuple(g["rewards"]) in {(-1.0, 1.0), (1.0, -1.0), (0.0, 0.0)} for g in games)
