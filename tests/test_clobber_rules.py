"""Clobber rules against hand-checked positions, a second implementation and OpenSpiel.

The second implementation below is plain Python on a dict of squares, written
from the rules as stated (a piece steps orthogonally onto an adjacent
opponent piece and removes it; the player who cannot move loses). It shares
no code with the kernels. Position counts (perft, and every position
reachable on small boards) and random games are compared against it move by
move, and random games are played in lockstep with OpenSpiel's ``clobber``
when pyspiel is installed.
"""
from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import farl_envs
from farl_agents.evaluate import evaluate
from farl_agents.opponents import make_opponent
from farl_envs import clobber_v0
from farl_envs.core.playout import playouts
from farl_envs.core.rng import make_rng
from farl_envs.core.spec import HEADER, PLY, TERMINAL, TO_MOVE
from farl_envs.games import clobber as cl

#: OpenSpiel's picture of the default 5 x 6 start (its ``str(state)``), white ``o`` bottom left
START_5X6 = """
5oxoxox
4xoxoxo
3oxoxox
2xoxoxo
1oxoxox
 abcdef"""


def _p(rows=5, cols=6):
    return np.array([rows, cols], dtype=np.int64)


# ------------------------------------------------------------ the second implementation
_STEPS = {(-1, 0): 0, (0, 1): 1, (1, 0): 2, (0, -1): 3}  # OpenSpiel's direction numbers


def _ref_start(rows, cols) -> dict:
    """Square (row, col) -> 1 white / 2 black; white on the bottom-left square, alternating."""
    return {(r, c): 1 if (rows - 1 - r + c) % 2 == 0 else 2 for r in range(rows) for c in range(cols)}


def _ref_moves(sq, mover) -> list:
    """Every move ``(from, to)`` of ``mover`` (0 white, 1 black)."""
    me = mover + 1
    return [((r, c), (r + dr, c + dc)) for (r, c), v in sq.items() if v == me
            for dr, dc in _STEPS if sq.get((r + dr, c + dc)) == 3 - me]


def _ref_play(sq, move, mover):
    """The squares after ``move`` and whether the opponent is left without a move."""
    new = dict(sq)
    new[move[1]], new[move[0]] = new[move[0]], 0
    return new, not _ref_moves(new, 1 - mover)


def _ref_action(cols, move) -> int:
    (r, c), (r2, c2) = move
    return (r * cols + c) * 4 + _STEPS[(r2 - r, c2 - c)]


# ------------------------------------------------------------ helpers on the kernels
def _state(p, diagram: str, ply: int, terminal: int = 0) -> np.ndarray:
    """A state from lines of ``.ox`` (top row first); the mover is ``ply % 2``."""
    rows = [line.strip() for line in diagram.strip().splitlines()]
    s = np.zeros(HEADER + int(p[0]) * int(p[1]), dtype=np.int32)
    s[HEADER:] = [".ox".index(ch) for ch in "".join(rows)]
    s[TO_MOVE], s[TERMINAL], s[PLY] = ply % 2, terminal, ply
    return s


def _legal(p, s) -> set:
    mask = np.zeros(int(p[0]) * int(p[1]) * 4, dtype=np.int8)
    n = cl.legal_actions(p, s, mask)
    assert n == int(mask.sum())
    return {int(a) for a in np.flatnonzero(mask)}


def _after(p, s, a):
    out = np.empty_like(s)
    rew = np.zeros(2)
    cl.afterstate(p, s, a, out, rew)
    return out, tuple(rew)


def _squares(p, s) -> dict:
    rows, cols = int(p[0]), int(p[1])
    return {(r, c): int(s[HEADER + r * cols + c]) for r in range(rows) for c in range(cols)}


# ------------------------------------------------------------ start position and hand-built positions
def test_start_position_is_openspiels_checkerboard_with_49_moves():
    p = _p()
    s = cl.initial_state(p, make_rng(0))
    assert cl.validate(p, s) == "" and list(s[:3]) == [0, 0, 0]
    assert cl.render_text(p, s) == START_5X6.strip("\n")
    # every horizontal (5 rows x 5) and vertical (4 x 6 columns) neighbour pair holds one
    # white and one black piece, and gives white exactly one move
    assert len(_legal(p, s)) == 5 * 5 + 4 * 6 == 49
    # a5 (row 0, col 0) is white: it may go right (action 1) or down (action 2), not up or left
    assert {0, 1, 2, 3} & _legal(p, s) == {1, 2}
    assert cl.piece_counts(p, s) == (15, 15) and cl.start_counts(5, 6) == (15, 15)
    assert cl.start_counts(3, 3) == (5, 4)


@pytest.mark.parametrize("rows,cols", [(8, 8), (10, 10)])
def test_olympiad_boards_start_with_every_pair_a_move(rows, cols):
    p = _p(rows, cols)
    s = cl.initial_state(p, make_rng(0))
    assert len(_legal(p, s)) == rows * (cols - 1) + (rows - 1) * cols
    assert s[HEADER + (rows - 1) * cols] == 1 and s[HEADER + (rows - 1) * cols + 1] == 2


def test_a_move_removes_the_clobbered_piece_and_empties_its_square():
    p = _p(3, 3)
    s = _state(p, """
        ox.
        .x.
        o.o""", ply=4)
    # white a3 takes b3 (right); black b3 could take a3 (left) only on black's turn; a1 and c1 are alone
    assert _legal(p, s) == {1}
    out, rew = _after(p, s, 1)
    assert _squares(p, out)[(0, 0)] == 0 and _squares(p, out)[(0, 1)] == 1
    assert out[TERMINAL] == 0 and rew == (0.0, 0.0) and list(out[:3]) == [1, 0, 5]
    assert _legal(p, out) == {(1 * 3 + 1) * 4 + 0}  # black b2 takes b3 upwards
    last, rew = _after(p, out, (1 * 3 + 1) * 4 + 0)
    # nothing touches anything of the other colour: black moved last and wins
    assert last[TERMINAL] == 1 and rew == (-1.0, 1.0) and _legal(p, last) == set()
    assert cl.validate(p, last) == ""


def test_two_by_two_line_played_by_hand():
    p = _p(2, 2)
    s = cl.initial_state(p, make_rng(0))
    assert cl.render_text(p, s) == "2xo\n1ox\n ab"
    # white a1 (row 1, col 0) may go up onto a2 or right onto b1; white b2 down onto b1 or left onto a2
    assert _legal(p, s) == {2 * 4 + 0, 2 * 4 + 1, 1 * 4 + 2, 1 * 4 + 3}
    s, rew = _after(p, s, 2 * 4 + 0)  # a1 takes a2: oo / .x
    assert _squares(p, s) == {(0, 0): 1, (0, 1): 1, (1, 0): 0, (1, 1): 2} and rew == (0.0, 0.0)
    assert _legal(p, s) == {3 * 4 + 0}  # black b1 can only take b2 (a1 is empty)
    s, rew = _after(p, s, 3 * 4 + 0)  # ox / ..
    assert _legal(p, s) == {0 * 4 + 1} and rew == (0.0, 0.0)
    s, rew = _after(p, s, 0 * 4 + 1)  # .o / ..: black has no piece left, white moved last
    assert s[TERMINAL] == 1 and rew == (1.0, -1.0) and s[PLY] == 3 == cl.make_spec(rows=2, columns=2).max_plies


def test_in_place_afterstate_matches_the_copy():
    p = _p(6, 5)
    rng = np.random.default_rng(3)
    s = cl.initial_state(p, make_rng(0))
    while not s[TERMINAL]:
        a = int(rng.choice(sorted(_legal(p, s))))
        out, rew = _after(p, s, a)
        inplace = s.copy()
        rew2 = np.zeros(2)
        cl.afterstate(p, inplace, a, inplace, rew2)
        assert np.array_equal(inplace, out) and tuple(rew2) == rew
        s = out


# ------------------------------------------------------------ counts and random games against the reference
def _perft_kernel(p, s, depth) -> int:
    if depth == 0 or s[TERMINAL]:
        return 1
    return sum(_perft_kernel(p, _after(p, s, a)[0], depth - 1) for a in _legal(p, s))


def _perft_ref(sq, mover, depth) -> int:
    if depth == 0:
        return 1
    total = 0
    for m in _ref_moves(sq, mover):
        new, over = _ref_play(sq, m, mover)
        total += 1 if over else _perft_ref(new, 1 - mover, depth - 1)
    return total


@pytest.mark.parametrize("rows,cols,depth", [(5, 6, 2), (4, 4, 4), (2, 7, 4)])
def test_perft_matches_the_reference(rows, cols, depth):
    p = _p(rows, cols)
    s = cl.initial_state(p, make_rng(0))
    counts = [_perft_kernel(p, s, d) for d in range(1, depth + 1)]
    assert counts == [_perft_ref(_ref_start(rows, cols), 0, d) for d in range(1, depth + 1)]


@pytest.mark.parametrize("rows,cols", [(3, 3), (2, 4), (2, 5)])
def test_every_reachable_position_and_the_winner_match_the_reference(rows, cols):
    """All positions reachable on small boards, and who wins with perfect play, from both implementations."""
    p = _p(rows, cols)
    kernel_wins = {}

    def solve_kernel(s):
        key = s.tobytes()
        if key not in kernel_wins:
            assert cl.validate(p, s) == ""
            children = [_after(p, s, a)[0] for a in sorted(_legal(p, s))]
            kernel_wins[key] = any([not solve_kernel(child) for child in children])  # a list: visit them all
        return kernel_wins[key]

    ref_wins = {}

    def solve_ref(sq, mover):
        key = (tuple(sorted(sq.items())), mover)
        if key not in ref_wins:
            children = [_ref_play(sq, m, mover)[0] for m in _ref_moves(sq, mover)]
            ref_wins[key] = any([not solve_ref(child, 1 - mover) for child in children])
        return ref_wins[key]

    first_wins = solve_kernel(cl.initial_state(p, make_rng(0)))
    assert first_wins == solve_ref(_ref_start(rows, cols), 0)
    # both tables hold every reachable position, finished games included (value False: the mover has lost)
    assert len(kernel_wins) == len(ref_wins) > 20


def _compare_with_reference(p, s, summary) -> list:
    """Check the kernels on ``s`` against the reference; return the legal actions."""
    cols = int(p[1])
    sq, mover = _squares(p, s), int(s[TO_MOVE])
    assert cl.validate(p, s) == ""
    moves = _ref_moves(sq, mover)
    assert bool(s[TERMINAL]) == (not moves)
    if s[TERMINAL]:
        assert _legal(p, s) == set()
        return []
    by_action = {_ref_action(cols, m): m for m in moves}
    assert _legal(p, s) == set(by_action)
    assert cl.mobility(p, s) == (len(moves), len(_ref_moves(sq, 1 - mover)))
    for a, m in by_action.items():
        out, rew = _after(p, s, a)
        new, over = _ref_play(sq, m, mover)
        assert _squares(p, out) == new
        assert list(out[:3]) == [1 - mover, int(over), int(s[PLY]) + 1]
        won = (1.0, -1.0) if mover == 0 else (-1.0, 1.0)
        assert rew == (won if over else (0.0, 0.0))
        summary[mover] += over
    return sorted(by_action)


@pytest.mark.parametrize("rows,cols,games", [(5, 6, 30), (8, 8, 8), (3, 7, 30), (2, 9, 30), (9, 2, 10)])
def test_random_games_agree_with_the_reference(rows, cols, games):
    p = _p(rows, cols)
    rng = np.random.default_rng(rows * 100 + cols)
    summary = {0: 0, 1: 0}  # game-ending moves seen, by mover
    for _ in range(games):
        s = cl.initial_state(p, make_rng(0))
        while True:
            legal = _compare_with_reference(p, s, summary)
            if not legal:
                break
            s, _ = _after(p, s, int(rng.choice(legal)))
        assert s[PLY] <= rows * cols - 1
    assert summary[0] > 0 and summary[1] > 0


def test_compiled_random_playouts_run():
    spec = cl.make_spec()
    plies = playouts(spec, 200, make_rng(5))
    assert 200 * 5 < plies <= 200 * spec.max_plies


# ------------------------------------------------------------ OpenSpiel
def _spiel_board(state, rows, cols) -> np.ndarray:
    planes = np.array(state.observation_tensor(0)).reshape(3, rows, cols)  # white, black, empty for player 0
    assert (planes.sum(axis=0) == 1).all()
    return (planes[0] + 2 * planes[1]).astype(np.int32).ravel()


@pytest.mark.parametrize("rows,cols,games", [(5, 6, 40), (8, 8, 15), (10, 10, 6), (3, 7, 30), (2, 9, 20),
                                             (12, 2, 10)])
def test_lockstep_with_openspiel(rows, cols, games):
    pyspiel = pytest.importorskip("pyspiel")
    game = pyspiel.load_game("clobber", {"rows": rows, "columns": cols})
    spec = cl.make_spec(rows=rows, columns=cols)
    assert spec.n_actions == game.num_distinct_actions() and spec.max_plies == game.max_game_length()
    rng = np.random.default_rng(rows * cols)
    mask = np.zeros(spec.n_actions, np.int8)
    rew = np.zeros(2)
    obs = np.zeros(spec.obs_shape, np.int8)
    for _ in range(games):
        st = game.new_initial_state()
        s = spec.initial_state(spec.p, make_rng(0))
        total = np.zeros(2)
        while True:
            assert np.array_equal(s[HEADER:], _spiel_board(st, rows, cols))
            assert bool(s[TERMINAL]) == st.is_terminal()
            assert cl.render_text(spec.p, s) + "\n" == str(st)
            for seat in (0, 1):
                cl.observe(spec.p, s, seat, obs)
                assert np.array_equal(np.moveaxis(obs, 2, 0).ravel(), np.array(st.observation_tensor(seat)))
            if st.is_terminal():
                break
            assert st.current_player() == s[TO_MOVE]
            spec.legal_actions(spec.p, s, mask)
            legal = st.legal_actions()
            assert np.flatnonzero(mask).tolist() == legal
            a = int(rng.choice(legal))
            assert spec.action_names[a] == st.action_to_string(a)
            st.apply_action(a)
            spec.afterstate(spec.p, s, a, s, rew)
            total += rew
        assert total.tolist() == st.returns() and s[PLY] == len(st.history())


# ------------------------------------------------------------ symmetries, observation, rendering
@pytest.mark.parametrize("rows,cols,n_sym", [(5, 6, 4), (4, 4, 8), (2, 5, 4)])
def test_symmetries_commute_with_moves(rows, cols, n_sym):
    spec = cl.make_spec(rows=rows, columns=cols)
    perms, acts = spec.symmetries(spec.p), spec.action_symmetries(spec.p)
    assert perms.shape == (n_sym, rows * cols) and acts.shape == (n_sym, spec.n_actions)
    assert len({q.tobytes() for q in perms}) == n_sym
    assert np.array_equal(perms[0], np.arange(rows * cols)) and np.array_equal(acts[0], np.arange(spec.n_actions))
    for k in range(n_sym):
        assert sorted(perms[k].tolist()) == list(range(rows * cols))
        assert sorted(acts[k].tolist()) == list(range(spec.n_actions))
    rng = np.random.default_rng(8)
    s = spec.initial_state(spec.p, make_rng(0))
    checked = 0
    while not s[TERMINAL]:
        legal = sorted(_legal(spec.p, s))
        for k in range(n_sym):
            t = s.copy()
            t[HEADER:] = s[HEADER:][perms[k]]
            assert _legal(spec.p, t) == {int(acts[k, a]) for a in legal}
            for a in legal:
                after, after_t = _after(spec.p, s, a)[0], _after(spec.p, t, int(acts[k, a]))[0]
                assert np.array_equal(after[HEADER:][perms[k]], after_t[HEADER:])
                checked += 1
        s, _ = _after(spec.p, s, int(rng.choice(legal)))
    assert checked > 20


def test_observation_planes_and_rgb():
    spec = cl.make_spec(rows=2, columns=2)
    s = _state(spec.p, """
        o.
        xo""", ply=1)
    obs = np.zeros(spec.obs_shape, np.int8)
    cl.observe(spec.p, s, 1, obs)
    assert obs[:, :, 0].tolist() == [[0, 0], [1, 0]] and obs[:, :, 1].tolist() == [[1, 0], [0, 1]]
    assert obs[:, :, 2].tolist() == [[0, 1], [0, 0]]
    env = clobber_v0.env(render_mode="rgb_array")
    env.reset(seed=0)
    img = env.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3


def test_heuristics_presence_follows_the_ply_and_mobility_is_symmetric():
    p = _p()
    rng = np.random.default_rng(2)
    s = cl.initial_state(p, make_rng(0))
    while not s[TERMINAL]:
        k = int(s[PLY])
        assert cl.piece_counts(p, s) == (15 - k // 2, 15 - (k + 1) // 2)
        w, b = cl.mobility(p, s)
        assert w == b == len(_legal(p, s))
        s, _ = _after(p, s, int(rng.choice(sorted(_legal(p, s)))))
    assert cl.mobility(p, s) == (0, 0)


# ------------------------------------------------------------ errors
@pytest.mark.parametrize("params,allowed", [({"rows": 1}, r"2\.\.99"), ({"rows": 100}, r"2\.\.99"),
                                            ({"columns": 27}, r"2\.\.26"), ({"columns": 1}, r"2\.\.26"),
                                            ({"rows": "5"}, r"2\.\.99"), ({"columns": 6.0}, r"2\.\.26"),
                                            ({"rows": True}, r"2\.\.99")])
def test_bad_parameters_name_the_allowed_values(params, allowed):
    with pytest.raises(ValueError, match=allowed):
        cl.make_spec(**params)


def test_illegal_action_raises_and_leaves_the_state():
    env = clobber_v0.env()
    env.reset(seed=0)
    before = env.unwrapped.get_state()
    for bad in (0, 3, 4, 120):  # a5 up (off the board), a5 left, b5 (black) right, out of range
        with pytest.raises(ValueError):
            env.step(bad)
        assert np.array_equal(env.unwrapped.get_state(), before)


def test_impossible_positions_are_refused():
    p = _p(3, 3)
    env = clobber_v0.raw_env(rows=3, columns=3)
    env.reset(seed=0)
    # the 3 x 3 start is oxo / xox / oxo; white b2 took a2 (moving left)
    ok = _state(p, """
        oxo
        o.x
        oxo""", ply=1)
    assert cl.validate(p, ok) == ""
    env.set_state(ok)
    bad = {}
    s = ok.copy()
    s[TO_MOVE] = 0
    bad["ply % 2"] = s
    s = ok.copy()
    s[HEADER + 4] = 3
    bad["cells"] = s
    s = ok.copy()
    s[PLY] = 3
    s[TO_MOVE] = 1
    bad["empty squares"] = s
    bad["white must have"] = _state(p, """
        oxo
        x.x
        oxo""", ply=1)  # a white piece vanished and no black one
    s = ok.copy()
    s[TERMINAL] = 1
    bad["still neighbours"] = s
    bad["must be set"] = _state(p, """
        o..
        ..o
        .x.""", ply=6)  # white 5-3 = 2, black 4-3 = 1, nobody touches: black moved last and won
    for reason, s in bad.items():
        assert reason in cl.validate(p, s), (reason, cl.validate(p, s))
        with pytest.raises(ValueError, match="not a legal position"):
            env.set_state(s)
    over = bad["must be set"].copy()
    over[TERMINAL] = 1
    assert cl.validate(p, over) == ""


# ------------------------------------------------------------ PettingZoo, Gymnasium, generic compiled code
@pytest.mark.parametrize("params", [{}, {"rows": 8, "columns": 8}, {"rows": 2, "columns": 3}])
def test_pettingzoo_api_and_seed_tests(params):
    api_test(clobber_v0.env(**params), num_cycles=300)
    seed_test(lambda: clobber_v0.env(**params), num_cycles=30)


def test_gymnasium_single_agent_wrapper():
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make(farl_envs.gymnasium_id("clobber"), seat="alternate", rows=4, columns=4).unwrapped
    check_env(env, skip_render_check=True)
    for ep in range(4):
        env.reset(seed=ep)
        done = False
        while not done:
            _, r, done, _, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        assert r in (-1.0, 1.0)


# -m slow: compiles Max-N and MCTS for this game alone (~5 CPU s); the default run tests that search code on other games
@pytest.mark.slow
def test_opponents_and_evaluate_play_clobber():
    """Max-N and MCTS through make_opponent and evaluate, both seats; every game has a winner."""
    game = farl_envs.game_spec("clobber", rows=3, columns=4)
    for player in (make_opponent("maxn3", game), make_opponent("mcts30", game)):
        r = evaluate(game, player, "random", n_games=2, seed=1)
        games = r.matchups[0].games
        assert len(games) == 4 and {g["seat"] for g in games} == {0, 1}
        assert all(sorted(g["rewards"]) == [-1.0, 1.0] for g in games)
