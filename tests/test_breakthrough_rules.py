"""Breakthrough rules against hand-checked positions, a second implementation and OpenSpiel.

The second implementation below is plain Python on a dict of squares, written
from the rules as stated (pieces step one row forward, straight only onto an
empty square, diagonally onto an empty square or an opponent piece, which is
captured; reaching the far row or taking the last piece wins). It shares no
code with the kernels. Position counts (perft, and every position reachable
on tiny boards) and random games are compared move by move against it, and
random games are played in lockstep with OpenSpiel's ``breakthrough`` when
pyspiel is installed.
"""
from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import farl_envs
from farl_agents.evaluate import evaluate
from farl_agents.opponents import make_opponent
from farl_envs import breakthrough_v0
from farl_envs.core.playout import playouts
from farl_envs.core.rng import make_rng
from farl_envs.core.spec import HEADER, PLY, TERMINAL, TO_MOVE
from farl_envs.games import breakthrough as bt


def _p(rows=8, cols=8):
    return np.array([rows, cols], dtype=np.int64)


# ------------------------------------------------------------ the second implementation
def _ref_start(rows, cols) -> dict:
    """Square (row, col) -> 0 empty / 1 black / 2 white; black on top."""
    depth = 2 if rows >= 6 else 1
    return {(r, c): 1 if r < depth else 2 if r >= rows - depth else 0 for r in range(rows) for c in range(cols)}


def _ref_moves(sq, rows, cols, mover) -> list:
    """Every move ``(from, to, captures)`` of ``mover`` (0 black, 1 white)."""
    me, fwd = mover + 1, (1 if mover == 0 else -1)
    out = []
    for (r, c), v in sq.items():
        if v != me:
            continue
        for dc in (-1, 0, 1):
            to = (r + fwd, c + dc)
            if to not in sq:
                continue
            if sq[to] == 0:
                out.append(((r, c), to, False))
            elif sq[to] == 3 - me and dc != 0:
                out.append(((r, c), to, True))
    return out


def _ref_play(sq, rows, move, mover):
    """The squares after ``move`` and whether it wins the game."""
    frm, to, _ = move
    new = dict(sq)
    new[frm], new[to] = 0, mover + 1
    goal = rows - 1 if mover == 0 else 0
    wins = to[0] == goal or (3 - (mover + 1)) not in new.values()
    return new, wins


def _ref_action(cols, move, mover) -> int:
    """OpenSpiel's number: mixed base (rows, cols, 6 directions, capture bit)."""
    (r, c), (_, c2), cap = move
    direction = 3 * mover + (c2 - c + 1)
    return ((r * cols + c) * 6 + direction) * 2 + int(cap)


# ------------------------------------------------------------ helpers on the kernels
def _state(p, diagram: str, ply: int, terminal: int = 0) -> np.ndarray:
    """A state from lines of ``.bw`` (top row first); the mover is ``ply % 2``."""
    rows = [line.strip() for line in diagram.strip().splitlines()]
    s = np.zeros(HEADER + int(p[0]) * int(p[1]), dtype=np.int32)
    s[HEADER:] = [".bw".index(ch) for ch in "".join(rows)]
    s[TO_MOVE], s[TERMINAL], s[PLY] = ply % 2, terminal, ply
    return s


def _legal(p, s) -> set:
    mask = np.zeros(int(p[0]) * int(p[1]) * 12, dtype=np.int8)
    n = bt.legal_actions(p, s, mask)
    assert n == int(mask.sum())
    return {int(a) for a in np.flatnonzero(mask)}


def _after(p, s, a):
    out = np.empty_like(s)
    rew = np.zeros(2)
    bt.afterstate(p, s, a, out, rew)
    return out, tuple(rew)


def _squares(p, s) -> dict:
    rows, cols = int(p[0]), int(p[1])
    return {(r, c): int(s[HEADER + r * cols + c]) for r in range(rows) for c in range(cols)}


# ------------------------------------------------------------ start position and hand-built positions
def test_start_position_and_the_22_first_moves():
    p = _p()
    s = bt.initial_state(p, make_rng(0))
    assert bt.validate(p, s) == "" and list(s[:3]) == [0, 0, 0]
    cells = s[HEADER:].reshape(8, 8)
    assert (cells[:2] == 1).all() and (cells[6:] == 2).all() and (cells[2:6] == 0).all()
    legal = _legal(p, s)
    # the 8 pieces of row 1 step to row 2: three moves each, two for the edge pieces
    assert len(legal) == 6 * 3 + 2 * 2
    # a7 (row 1, col 0): straight = direction 1 -> ((8 + 0) * 6 + 1) * 2 = 98, diagonal right -> 100
    assert {98, 100} <= legal and 96 not in legal
    # no piece of row 0 can move (its three targets are black)
    assert all(a // 12 >= 8 for a in legal)


def test_small_boards_start_with_one_row_each():
    p = _p(5, 3)
    s = bt.initial_state(p, make_rng(0))
    assert s[HEADER:].reshape(5, 3).tolist() == [[1, 1, 1], [0, 0, 0], [0, 0, 0], [0, 0, 0], [2, 2, 2]]
    p = _p(6, 3)
    s = bt.initial_state(p, make_rng(0))
    assert s[HEADER:].reshape(6, 3)[:, 0].tolist() == [1, 1, 0, 0, 2, 2]


def test_capture_only_diagonally_and_straight_needs_an_empty_square():
    p = _p(6, 4)
    s = _state(p, """
        ....
        .b..
        wwb.
        ....
        ....
        ....""", ply=10)
    # black b5 (row 1, col 1): straight onto w (row 2, col 1) is blocked, diagonal left takes w a4,
    # diagonal right is blocked by its own piece. Black c4 (row 2, col 2) has three empty targets.
    legal = _legal(p, s)
    b5 = 1 * 4 + 1
    c4 = 2 * 4 + 2
    assert {a for a in legal if a // 12 == b5} == {(b5 * 6 + 0) * 2 + 1}
    assert {a for a in legal if a // 12 == c4} == {(c4 * 6 + d) * 2 for d in (0, 1, 2)}
    assert len(legal) == 4
    out, rew = _after(p, s, (b5 * 6 + 0) * 2 + 1)
    assert rew == (0.0, 0.0) and out[TERMINAL] == 0 and list(out[:3]) == [1, 0, 11]
    assert out[HEADER + 2 * 4 + 0] == 1 and out[HEADER + b5] == 0 and bt.piece_counts(p, out) == (2, 1)


def test_white_moves_up_and_cannot_capture_straight():
    p = _p(6, 3)
    s = _state(p, """
        ...
        ...
        .b.
        .w.
        ...
        ...""", ply=11)
    legal = _legal(p, s)
    w = 3 * 3 + 1
    # white b3: straight blocked by black, diagonals (row 2, cols 0 and 2) empty: directions 3 and 5
    assert legal == {(w * 6 + 3) * 2, (w * 6 + 5) * 2}


def test_reaching_the_far_row_wins_at_once():
    p = _p(6, 3)
    s = _state(p, """
        ...
        .w.
        ...
        .b.
        ..b
        ...""", ply=13)
    w = 1 * 3 + 1
    out, rew = _after(p, s, (w * 6 + 4) * 2)  # white straight up to row 0
    assert out[TERMINAL] == 1 and rew == (-1.0, 1.0)
    assert _legal(p, out) == set() and bt.validate(p, out) == ""


def test_capturing_the_last_piece_wins_even_far_from_the_goal():
    p = _p(6, 3)
    s = _state(p, """
        ...
        .b.
        w..
        ...
        ...
        ...""", ply=12)
    b = 1 * 3 + 1
    out, rew = _after(p, s, (b * 6 + 0) * 2 + 1)
    assert out[TERMINAL] == 1 and rew == (1.0, -1.0) and bt.piece_counts(p, out) == (1, 0)
    # the same capture with another white piece left goes on
    s2 = s.copy()
    s2[HEADER + 5 * 3 + 2] = 2
    out2, rew2 = _after(p, s2, (b * 6 + 0) * 2 + 1)
    assert out2[TERMINAL] == 0 and rew2 == (0.0, 0.0)


def test_in_place_afterstate_matches_the_copy():
    p = _p(6, 5)
    rng = np.random.default_rng(3)
    s = bt.initial_state(p, make_rng(0))
    while not s[TERMINAL]:
        a = int(rng.choice(sorted(_legal(p, s))))
        out, rew = _after(p, s, a)
        inplace = s.copy()
        rew2 = np.zeros(2)
        bt.afterstate(p, inplace, a, inplace, rew2)
        assert np.array_equal(inplace, out) and tuple(rew2) == rew
        s = out


# ------------------------------------------------------------ counts and random games against the reference
def _perft_kernel(p, s, depth) -> int:
    if depth == 0 or s[TERMINAL]:
        return 1
    return sum(_perft_kernel(p, _after(p, s, a)[0], depth - 1) for a in _legal(p, s))


def _perft_ref(sq, rows, cols, mover, depth) -> int:
    if depth == 0:
        return 1
    total = 0
    for m in _ref_moves(sq, rows, cols, mover):
        new, wins = _ref_play(sq, rows, m, mover)
        total += 1 if wins else _perft_ref(new, rows, cols, 1 - mover, depth - 1)
    return total


@pytest.mark.parametrize("rows,cols,depth", [(8, 8, 3), (6, 5, 4), (4, 4, 5)])
def test_perft_matches_the_reference(rows, cols, depth):
    p = _p(rows, cols)
    s = bt.initial_state(p, make_rng(0))
    counts = [_perft_kernel(p, s, d) for d in range(1, depth + 1)]
    assert counts == [_perft_ref(_ref_start(rows, cols), rows, cols, 0, d) for d in range(1, depth + 1)]
    if (rows, cols) == (8, 8):
        assert counts[:2] == [22, 22 * 22]  # every first move of each side is independent of the other's


@pytest.mark.parametrize("rows,cols", [(3, 3), (4, 3), (3, 4)])
def test_every_reachable_position_of_tiny_boards_matches_the_reference(rows, cols):
    p = _p(rows, cols)
    seen_k, todo = set(), [bt.initial_state(p, make_rng(0))]
    while todo:
        s = todo.pop()
        key = s.tobytes()
        if key in seen_k:
            continue
        seen_k.add(key)
        assert bt.validate(p, s) == "", bt.render_text(p, s)
        todo += [_after(p, s, a)[0] for a in _legal(p, s)]
    seen_r, todo = set(), [(tuple(sorted(_ref_start(rows, cols).items())), 0, False, 0)]
    while todo:
        item = todo.pop()
        if item in seen_r:
            continue
        seen_r.add(item)
        sq, mover, over, ply = item
        if over:
            continue
        for m in _ref_moves(dict(sq), rows, cols, mover):
            new, wins = _ref_play(dict(sq), rows, m, mover)
            todo.append((tuple(sorted(new.items())), 1 - mover, wins, ply + 1))
    assert len(seen_k) == len(seen_r) > 50


def _compare_with_reference(p, s, summary) -> list:
    """Check the kernels on ``s`` against the reference; return the legal actions."""
    rows, cols = int(p[0]), int(p[1])
    sq, mover = _squares(p, s), int(s[TO_MOVE])
    assert bt.validate(p, s) == ""
    if s[TERMINAL]:
        assert _legal(p, s) == set()
        return []
    moves = _ref_moves(sq, rows, cols, mover)
    assert moves, "the mover always has a move"
    by_action = {_ref_action(cols, m, mover): m for m in moves}
    assert _legal(p, s) == set(by_action)
    for a, m in by_action.items():
        out, rew = _after(p, s, a)
        new, wins = _ref_play(sq, rows, m, mover)
        assert _squares(p, out) == new
        assert list(out[:3]) == [1 - mover, int(wins), int(s[PLY]) + 1]
        won = (1.0, -1.0) if mover == 0 else (-1.0, 1.0)
        assert rew == (won if wins else (0.0, 0.0))
        summary["captures"] += m[2]
        summary["wins by wipe-out"] += wins and m[1][0] != (rows - 1 if mover == 0 else 0)
    return sorted(by_action)


@pytest.mark.parametrize("rows,cols,games", [(8, 8, 25), (6, 5, 40), (5, 7, 40), (2, 3, 10), (3, 2, 40)])
def test_random_games_agree_with_the_reference(rows, cols, games):
    p = _p(rows, cols)
    spec = bt.make_spec(rows=rows, columns=cols)
    rng = np.random.default_rng(rows * 100 + cols)
    summary = {"captures": 0, "wins by wipe-out": 0}
    lengths = []
    for _ in range(games):
        s = bt.initial_state(p, make_rng(0))
        while True:
            legal = _compare_with_reference(p, s, summary)
            if not legal:
                break
            s, _ = _after(p, s, int(rng.choice(legal)))
        lengths.append(int(s[PLY]))
    assert max(lengths) <= spec.max_plies
    assert summary["captures"] > 0
    if (rows, cols) == (3, 2):  # two pieces a side: taking both happens in random play
        assert summary["wins by wipe-out"] > 0


def test_compiled_random_playouts_run():
    spec = bt.make_spec()
    rng = make_rng(5)
    plies = playouts(spec, 200, rng)
    assert 200 * 10 < plies <= 200 * spec.max_plies


# ------------------------------------------------------------ OpenSpiel
def _spiel_board(state, rows, cols) -> np.ndarray:
    planes = np.array(state.observation_tensor(0)).reshape(3, rows, cols)  # black, white, empty
    assert (planes.sum(axis=0) == 1).all()
    return (planes[0] + 2 * planes[1]).astype(np.int32).ravel()


@pytest.mark.parametrize("rows,cols,games", [(8, 8, 30), (6, 5, 30), (5, 7, 30), (3, 4, 30), (10, 3, 10)])
def test_lockstep_with_openspiel(rows, cols, games):
    pyspiel = pytest.importorskip("pyspiel")
    game = pyspiel.load_game("breakthrough", {"rows": rows, "columns": cols})
    spec = bt.make_spec(rows=rows, columns=cols)
    assert spec.n_actions == game.num_distinct_actions() and spec.max_plies == game.max_game_length()
    rng = np.random.default_rng(rows * cols)
    mask = np.zeros(spec.n_actions, np.int8)
    rew = np.zeros(2)
    for _ in range(games):
        st = game.new_initial_state()
        s = spec.initial_state(spec.p, make_rng(0))
        total = np.zeros(2)
        while True:
            assert np.array_equal(s[HEADER:], _spiel_board(st, rows, cols))
            assert bool(s[TERMINAL]) == st.is_terminal()
            if st.is_terminal():
                break
            assert st.current_player() == s[TO_MOVE]
            spec.legal_actions(spec.p, s, mask)
            legal = st.legal_actions()
            assert np.flatnonzero(mask).tolist() == legal
            a = int(rng.choice(legal))
            if rows == 8:
                assert spec.action_names[a] == st.action_to_string(a)
            st.apply_action(a)
            spec.afterstate(spec.p, s, a, s, rew)
            total += rew
        assert total.tolist() == st.returns() and s[PLY] == len(st.history())
        if rows == 8:
            assert bt.render_text(spec.p, s) + "\n" == str(st)


# ------------------------------------------------------------ symmetries, observation, rendering
def test_the_mirror_commutes_with_moves():
    spec = bt.make_spec(rows=6, columns=5)
    perms, acts = spec.symmetries(spec.p), spec.action_symmetries(spec.p)
    assert perms.shape == (2, 30) and np.array_equal(perms[0], np.arange(30))
    assert np.array_equal(acts[0], np.arange(spec.n_actions))
    assert sorted(acts[1].tolist()) == list(range(spec.n_actions))  # a permutation
    rng = np.random.default_rng(8)
    s = spec.initial_state(spec.p, make_rng(0))
    checked = 0
    while not s[TERMINAL]:
        legal = sorted(_legal(spec.p, s))
        t = s.copy()
        t[HEADER:] = s[HEADER:][perms[1]]
        assert _legal(spec.p, t) == {int(acts[1, a]) for a in legal}
        for a in legal:
            after, after_t = _after(spec.p, s, a)[0], _after(spec.p, t, int(acts[1, a]))[0]
            assert np.array_equal(after[HEADER:][perms[1]], after_t[HEADER:])
            checked += 1
        s, _ = _after(spec.p, s, int(rng.choice(legal)))
    assert checked > 50


def test_observation_is_relative_to_the_seat_and_shows_the_goal_row():
    spec = bt.make_spec(rows=6, columns=4)
    s = spec.initial_state(spec.p, make_rng(0))
    obs = np.zeros(spec.obs_shape, np.int8)
    bt.observe(spec.p, s, 0, obs)
    assert obs[:2, :, 0].all() and obs[4:, :, 1].all() and obs[:, :, :2].sum() == 16
    assert obs[5, :, 2].all() and obs[:, :, 2].sum() == 4
    bt.observe(spec.p, s, 1, obs)
    assert obs[4:, :, 0].all() and obs[:2, :, 1].all() and obs[0, :, 2].all() and obs[:, :, 2].sum() == 4


def test_render_text_and_rgb():
    p = _p(6, 3)
    s = bt.initial_state(p, make_rng(0))
    assert bt.render_text(p, s).splitlines() == ["6bbb", "5bbb", "4...", "3...", "2www", "1www", " abc"]
    env = breakthrough_v0.env(render_mode="rgb_array", rows=6, columns=3)
    env.reset(seed=0)
    img = env.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3


def test_action_names():
    spec = bt.make_spec()
    assert spec.action_names[98] == "a7a6" and spec.action_names[100] == "a7b6"
    assert spec.action_names[(48 * 6 + 5) * 2 + 1] == "a2b3*"


# ------------------------------------------------------------ errors
@pytest.mark.parametrize("params", [{"rows": 1}, {"rows": 27}, {"columns": 1}, {"columns": 27},
                                    {"rows": "8"}, {"columns": 8.0}, {"rows": True}])
def test_bad_parameters_name_the_allowed_values(params):
    with pytest.raises(ValueError, match=r"2\.\.26"):
        bt.make_spec(**params)


def test_illegal_action_raises_and_leaves_the_state():
    env = breakthrough_v0.env()
    env.reset(seed=0)
    before = env.unwrapped.get_state()
    for bad in (0, 99, 768):  # a back-row piece straight into its own piece; a capture bit; out of range
        with pytest.raises(ValueError):
            env.step(bad)
        assert np.array_equal(env.unwrapped.get_state(), before)


def test_impossible_positions_are_refused():
    p = _p(6, 4)
    spec = bt.make_spec(rows=6, columns=4)
    env = breakthrough_v0.raw_env(rows=6, columns=4)
    env.reset(seed=0)
    ok = _state(p, """
        bbbb
        b.bb
        .b..
        ...w
        www.
        wwww""", ply=2)
    assert bt.validate(p, ok) == ""
    env.set_state(ok)
    bad = {}
    s = ok.copy()
    s[TO_MOVE] = 1
    bad["ply % 2"] = s
    s = ok.copy()
    s[HEADER + 12] = 3
    bad["cells"] = s
    s = ok.copy()
    s[HEADER + 5] = 1
    bad["starts with"] = s  # 9 black pieces
    s = ok.copy()
    s[TERMINAL] = 1
    bad["terminal flag is set"] = s
    bad["made only 1 moves"] = _state(p, """
        bbbb
        b.b.
        .b.b
        ...w
        www.
        wwww""", ply=2)  # black moved twice in two plies
    bad["lost 2 pieces"] = _state(p, """
        bbbb
        b.bb
        .b..
        ....
        ww..
        wwww""", ply=2)  # white lost two pieces to black's single move
    bad["must be set"] = _state(p, """
        bb.b
        b.bb
        ....
        ....
        .www
        bwww""", ply=11)  # black on white's back row: won, but not marked over
    bad["already won"] = _state(p, """
        bb.b
        b.bb
        ....
        ....
        .www
        bwww""", ply=12, terminal=1)  # white to move though black had won
    for reason, s in bad.items():
        assert reason in spec.validate(spec.p, s), (reason, spec.validate(spec.p, s))
        with pytest.raises(ValueError, match="not a legal position"):
            env.set_state(s)
    won = bad["must be set"].copy()
    won[TERMINAL] = 1
    assert bt.validate(p, won) == ""


# ------------------------------------------------------------ PettingZoo, Gymnasium, generic compiled code
@pytest.mark.parametrize("params", [{}, {"rows": 5, "columns": 3}])
def test_pettingzoo_api_and_seed_tests(params):
    api_test(breakthrough_v0.env(**params), num_cycles=300)
    seed_test(lambda: breakthrough_v0.env(**params), num_cycles=30)


def test_gymnasium_single_agent_wrapper():
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make(farl_envs.gymnasium_id("breakthrough"), seat="alternate", rows=6, columns=4).unwrapped
    check_env(env, skip_render_check=True)
    for ep in range(4):
        env.reset(seed=ep)
        done = False
        while not done:
            _, r, done, _, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        assert r in (-1.0, 1.0)


# -m slow: compiles Max-N and MCTS for this game alone (~5 CPU s); the default run tests that search code on other games
@pytest.mark.slow
def test_opponents_and_evaluate_play_breakthrough():
    """Max-N and MCTS through make_opponent and evaluate, both seats; every game has a winner."""
    game = farl_envs.game_spec("breakthrough", rows=5, columns=4)
    for player in (make_opponent("maxn2", game), make_opponent("mcts30", game)):
        r = evaluate(game, player, "random", n_games=2, seed=1)
        games = r.matchups[0].games
        assert len(games) == 4 and {g["seat"] for g in games} == {0, 1}
        assert all(sorted(g["rewards"]) == [-1.0, 1.0] for g in games)
