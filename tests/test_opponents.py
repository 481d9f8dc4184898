"""Reference opponents: Max-N, MCTS, Bench, Bouton, Edax adapter and the name registry."""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest

import farl_envs
from farl_agents.evaluate import evaluate
from farl_agents.opponents import (
    MCTS,
    BenchPlayer,
    BoutonPlayer,
    EdaxPlayer,
    MaxN,
    PerfectConnectFour,
    RandomPlayer,
    make_opponent,
    nim3p_player,
)
from farl_agents.opponents.bench import BENCH_WEIGHTS
from farl_agents.opponents.edax import edax_board_string, edax_move_to_action, find_edax
from farl_agents.opponents.nim import nim_sum, winning_actions
from farl_envs.core.rng import make_rng, rng_choice_mask
from farl_envs.core.spec import HEADER, TERMINAL, TO_MOVE


def _children(game, s):
    """``[(action, child, rewards)]`` for every legal action of ``s``."""
    mask = np.zeros(game.n_actions, dtype=np.int8)
    game.legal_actions(game.p, s, mask)
    out = []
    for a in np.flatnonzero(mask):
        c = np.empty_like(s)
        r = np.zeros(game.n_players)
        game.afterstate(game.p, s, int(a), c, r)
        out.append((int(a), c, r))
    return out


def _reachable(game):
    """Every non-terminal position reachable from the start (deterministic games)."""
    start = game.initial_state(game.p, make_rng(0))
    seen, stack, out = {start.tobytes()}, [start], []
    while stack:
        s = stack.pop()
        out.append(s)
        for _, c, _ in _children(game, s):
            if not c[TERMINAL] and c.tobytes() not in seen:
                seen.add(c.tobytes())
                stack.append(c)
    return out


def _reference_maxn(game):
    """Plain recursive Max-N (first best action on ties), memoised: value vector of a state."""
    @lru_cache(maxsize=None)
    def value(key):
        s = np.frombuffer(key, dtype=np.int32)
        if s[TERMINAL]:
            return (0.0,) * game.n_players
        mover = int(s[TO_MOVE])
        best = None
        for _, c, r in _children(game, s):
            v = tuple(float(x) for x in r + np.array(value(c.tobytes())))
            if best is None or v[mover] > best[mover] + 1e-9:
                best = v
        return best
    return lambda s: np.array(value(np.asarray(s, dtype=np.int32).tobytes()))


# ------------------------------------------------------------------ Max-N
def test_maxn_plays_tictactoe_perfectly_from_every_position():
    """Every move Max-N may choose (all its equal-best moves) keeps the minimax value."""
    game = farl_envs.game_spec("tictactoe")
    ref = _reference_maxn(game)
    maxn = MaxN(10)
    positions = _reachable(game)
    assert len(positions) == 4520  # 5478 legal positions, 958 of them final
    for s in positions:
        mover = int(s[TO_MOVE])
        vals = maxn.action_values(game, s)
        legal = ~np.isnan(vals[:, 0])
        best = np.nanmax(vals[:, mover])
        target = ref(s)[mover]
        assert best == target
        for a, c, r in _children(game, s):
            assert vals[a, mover] == r[mover] + ref(c)[mover]  # exact values of every move
        chosen = {maxn.act(game, s, make_rng(k)) for k in range(6)}
        assert all(legal[a] and vals[a, mover] == target for a in chosen)


def test_maxn_never_loses_tictactoe_against_any_replies():
    """Exhaustive: Max-N in either seat, every opponent reply, every tie choice of Max-N."""
    game = farl_envs.game_spec("tictactoe")
    maxn = MaxN(10)
    for seat in (0, 1):
        stack = [game.initial_state(game.p, make_rng(0))]
        finished = 0
        while stack:
            s = stack.pop()
            vals = maxn.action_values(game, s) if int(s[TO_MOVE]) == seat else None
            for a, c, r in _children(game, s):
                if vals is not None and vals[a, seat] < np.nanmax(vals[:, seat]):
                    continue  # Max-N never plays a worse move
                assert r[seat] >= 0, "Max-N lost a game"
                if c[TERMINAL]:
                    finished += 1
                else:
                    stack.append(c)
        assert finished > 100


@pytest.mark.parametrize("max_take", [3, 5])
def test_maxn_and_bouton_agree_on_every_nim_position(max_take):
    game = farl_envs.game_spec("nim", heaps=3, heap_size=5, max_take=max_take)
    maxn = MaxN(15)
    bouton = BoutonPlayer()
    rng = make_rng(1)
    n = 0
    for h in np.ndindex(6, 6, 6):
        removed = 15 - sum(h)
        if removed == 0 or sum(h) == 0:
            continue
        ply = removed  # one item per move: always a legal history
        s = np.array([ply % 2, 0, ply, *h], dtype=np.int32)
        assert game.validate(game.p, s) == ""
        mover = ply % 2
        win = nim_sum(h, max_take) != 0
        assert maxn.value(game, s)[mover] == (1.0 if win else -1.0)
        vals = maxn.action_values(game, s)
        good = set(winning_actions(game, s))
        assert good == {a for a in range(game.n_actions) if vals[a, mover] == 1.0}
        if win:
            assert bouton.act(game, s, rng) in good
            assert maxn.act(game, s, rng) in good
        n += 1
    assert n == 6 ** 3 - 2


def test_maxn_nim3p_moves_achieve_the_maxn_value():
    game = farl_envs.game_spec("nim3p", heaps=3, heap_size=5, max_take=3)
    ref = _reference_maxn(game)
    maxn = MaxN(15)
    positions = _reachable(game)
    assert len(positions) > 1000
    rng = make_rng(2)
    for s in positions:
        mover = int(s[TO_MOVE])
        v = ref(s)
        assert np.allclose(maxn.value(game, s), v)
        a = maxn.act(game, s, rng)
        (_, c, r), = [x for x in _children(game, s) if x[0] == a]
        assert abs(r[mover] + ref(c)[mover] - v[mover]) < 1e-9
    assert np.allclose(ref(positions[0]), [1.0, 0.2, 0.0])  # first player wins Nim3P 3x5


def test_maxn_cache_gives_the_same_values_as_no_cache():
    game = farl_envs.game_spec("nim3p", heaps=3, heap_size=3, max_take=3)
    s = game.initial_state(game.p, make_rng(0))
    big, tiny = MaxN(15), MaxN(15, cache_size=2)
    assert np.array_equal(big.action_values(game, s), tiny.action_values(game, s), equal_nan=True)
    assert tiny.last_nodes > 10 * big.last_nodes
    shallow_big, shallow_tiny = MaxN(4), MaxN(4, cache_size=2)
    for t in _reachable(game)[:200]:
        assert np.array_equal(shallow_big.action_values(game, t), shallow_tiny.action_values(game, t),
                              equal_nan=True)


def test_maxn_depth_limit_scores_zero():
    game = farl_envs.game_spec("tictactoe")
    # X: 0, 1 ; O: 3, 4 ; X to move can win at 2
    s = np.zeros(game.state_size, dtype=np.int32)
    s[2] = 4
    for c, v in ((0, 1), (1, 1), (3, 2), (4, 2)):
        s[HEADER + c] = v
    vals = MaxN(1).action_values(game, s)
    assert vals[2, 0] == 1.0
    legal = ~np.isnan(vals[:, 0])
    assert np.all(vals[legal & (np.arange(9) != 2)] == 0.0)  # cut off: worth 0
    assert MaxN(10).action_values(game, s)[8, 0] == -1.0   # deeper: O wins at 5


def test_maxn_validates_input():
    with pytest.raises(ValueError):
        MaxN(0)
    with pytest.raises(ValueError):
        MaxN(5, cache_size=1000)
    with pytest.raises(ValueError, match="heuristic"):
        MaxN(2, heuristic=1)
    assert MaxN(10).name == "Max-N10" and nim3p_player().depth == 15


def test_maxn_is_fast_on_tictactoe_and_nim3p():
    import time
    for name in ("tictactoe", "nim3p"):
        game = farl_envs.game_spec(name)
        maxn = MaxN(15)
        rng = make_rng(0)
        s = game.initial_state(game.p, rng)
        maxn.act(game, s, rng)  # compile + fill the table
        t = time.perf_counter()
        for _ in range(20):
            maxn.act(game, s, rng)
        assert (time.perf_counter() - t) / 20 < 0.01


# ------------------------------------------------------------------- MCTS
MCTS_CASES = [
    ("tictactoe", {}, 300, 0.8),
    ("connect_four", {"rows": 4, "cols": 5}, 300, 0.8),
    ("hex", {"size": 4}, 300, 0.8),
    ("nim", {}, 300, 0.8),
    pytest.param("othello", {}, 100, 0.8, marks=pytest.mark.slow),
]


@pytest.mark.parametrize("name,params,iterations,floor", MCTS_CASES)
def test_mcts_beats_random_two_player(name, params, iterations, floor):
    game = farl_envs.game_spec(name, **params)
    r = evaluate(game, MCTS(iterations), RandomPlayer(), n_games=10 if name != "othello" else 4, seed=5)
    assert r.win_rate >= floor, r.table()


def test_mcts_beats_random_nim3p():
    game = farl_envs.game_spec("nim3p")
    mcts = evaluate(game, MCTS(1000), "random", n_games=30, seed=5).mean_score
    rand = evaluate(game, "random", "random", n_games=30, seed=5).mean_score
    assert mcts > rand + 0.15, (mcts, rand)


@pytest.mark.slow
def test_mcts_beats_random_2048():
    game = farl_envs.game_spec("game2048")
    mcts = evaluate(game, MCTS(30), None, n_games=2, seed=5).mean_score
    rand = evaluate(game, RandomPlayer(), None, n_games=20, seed=5).mean_score
    assert mcts > 2 * rand, (mcts, rand)


def test_mcts_finds_the_immediate_win_and_the_only_defence():
    game = farl_envs.game_spec("tictactoe")
    s = np.zeros(game.state_size, dtype=np.int32)
    s[2] = 4
    for c, v in ((0, 1), (1, 1), (3, 2), (4, 2)):
        s[HEADER + c] = v
    rng = make_rng(0)
    assert MCTS(500).act(game, s, rng) == 2
    visits, q = MCTS(500).search(game, s, rng)
    assert visits.argmax() == 2 and q[2, 0] == 1.0
    s2 = s.copy()  # X also on 8, O to move: O wins at once at 5 (X threatens 2)
    s2[HEADER + 8] = 1
    s2[0], s2[2] = 1, 5
    assert MCTS(500).act(game, s2, rng) == 5


def test_mcts_handles_2048_chance_by_sampling():
    game = farl_envs.game_spec("game2048")
    rng = make_rng(0)
    s = game.initial_state(game.p, rng)
    m = MCTS(200)
    a = m.act(game, s, rng)
    mask = np.zeros(game.n_actions, dtype=np.int8)
    game.legal_actions(game.p, s, mask)
    assert mask[a] and 1 < m.last_nodes <= 201


# Root visit counts, move and generator state after ``MCTS(200).search`` then
# ``act`` (seed 7, a few random plies first), recorded when MCTS still had a
# playout loop of its own: calling the shared ``random_playout`` must draw
# exactly the same random numbers.
MCTS_RECORDED = [
    ("tictactoe", {}, 2, [0, 20, 45, 25, 24, 35, 23, 28, 0], 2, 14489885969030244645),
    ("connect_four", {}, 5, [31, 23, 26, 39, 30, 19, 32], 3, 1269460664852779290),
    ("hex", {"size": 5}, 4, [0, 6, 8, 14, 9, 9, 9, 7, 9, 10, 0, 7, 11, 11, 0, 9, 13, 8, 9, 9, 12, 9, 0, 14, 7],
     23, 6016807982226627467),
    ("nim3p", {}, 1, [13, 19, 16, 32, 20, 18, 25, 31, 26], 5, 1995522467305782911),
    ("game2048", {}, 3, [50, 59, 51, 40], 2, 1657642418006880335),
]


@pytest.mark.parametrize("name,params,plies,visits,move,rng_after", MCTS_RECORDED)
def test_mcts_draws_the_recorded_random_numbers(name, params, plies, visits, move, rng_after):
    game = farl_envs.game_spec(name, **params)
    rng = make_rng(7)
    s = game.initial_state(game.p, rng)
    mask = np.zeros(game.n_actions, dtype=np.int8)
    rew = np.zeros(game.n_players)
    for _ in range(plies):
        game.legal_actions(game.p, s, mask)
        game.afterstate(game.p, s, rng_choice_mask(rng, mask), s, rew)
        if not s[TERMINAL]:
            game.chance(game.p, s, rng)
    m = MCTS(200)
    got, _ = m.search(game, s, rng)
    assert [int(v) for v in got] == visits
    assert m.act(game, s, rng) == move
    assert int(rng[0]) == rng_after


def test_mcts_validates_input():
    for bad in (0, -5, 1.5, True):
        with pytest.raises(ValueError):
            MCTS(bad)
    with pytest.raises(ValueError):
        MCTS(10, c=-1.0)
    with pytest.raises(ValueError):
        MCTS(10, value_range=(1, 0))
    assert MCTS(10000).name == "MCTS10000"


# ------------------------------------------------------------------ Bench
def test_bench_table_orientation_and_source_values():
    assert BENCH_WEIGHTS.shape == (64,)
    assert BENCH_WEIGHTS[0] == 80 and BENCH_WEIGHTS[7] == 76 and BENCH_WEIGHTS[56] == 87
    assert BENCH_WEIGHTS[63] == 100 and BENCH_WEIGHTS[54] == -58
    assert not np.array_equal(BENCH_WEIGHTS.reshape(8, 8), BENCH_WEIGHTS.reshape(8, 8).T)  # learned, asymmetric


def test_bench_prefers_the_corner_and_breaks_ties_randomly():
    game = farl_envs.game_spec("othello")
    rng = make_rng(0)
    s = game.initial_state(game.p, rng)
    # all four opening moves flip one disc; their scores differ only by the table
    vals = {}
    for a, c, _ in _children(game, s):
        vals[a] = sum(BENCH_WEIGHTS[i] * (1 if c[HEADER + i] == 1 else -1 if c[HEADER + i] == 2 else 0)
                      for i in range(64))
    best = max(vals.values())
    picks = {BenchPlayer().act(game, s, make_rng(k)) for k in range(20)}
    assert picks == {a for a, v in vals.items() if v == best}
    equal = BenchPlayer(np.zeros(64))  # all moves tie: uniform choice
    assert {equal.act(game, s, make_rng(k)) for k in range(40)} == set(vals)


def test_bench_beats_random_at_othello():
    r = evaluate("othello", BenchPlayer(), RandomPlayer(), start_states=("random", 4), n_games=30, seed=11)
    assert r.win_rate > 0.75, r.table()


def test_bench_rejects_other_games():
    game = farl_envs.game_spec("tictactoe")
    with pytest.raises(ValueError, match="Othello"):
        BenchPlayer().act(game, game.initial_state(game.p, make_rng(0)), make_rng(0))
    with pytest.raises(ValueError):
        BenchPlayer("nonsense")


# ----------------------------------------------------------------- Bouton
def test_bouton_is_perfect_against_maxn_and_random():
    r = evaluate("nim", BoutonPlayer(), ["maxn15", "random"], start_states="all-1ply", seed=3)
    vs_maxn, vs_random = r.matchups
    assert vs_maxn.win_rate == 0.5  # each 1-ply position is won by exactly one side
    assert vs_random.win_rate >= vs_maxn.win_rate
    for rec in vs_maxn.games:
        assert rec["score"] in (1.0, -1.0)


def test_bouton_loses_only_lost_positions():
    game = farl_envs.game_spec("nim", heaps=3, heap_size=5, max_take=5)
    rng = make_rng(4)
    for _ in range(20):
        s = game.initial_state(game.p, rng)
        rew = np.zeros(2)
        total = np.zeros(2)
        while not s[TERMINAL]:
            a = BoutonPlayer().act(game, s, rng) if s[TO_MOVE] == 0 else RandomPlayer().act(game, s, rng)
            game.afterstate(game.p, s, a, s, rew)
            total += rew
        assert total[0] == 1.0  # 5 ^ 5 ^ 5 != 0: the first player wins


# ------------------------------------------------------------------- Edax
def test_edax_board_string_and_moves():
    game = farl_envs.game_spec("othello")
    s = game.initial_state(game.p, make_rng(0))
    text = edax_board_string(s)
    assert len(text) == 65 and text[27] == "O" and text[28] == "X" and text[-1] == "X"
    assert edax_move_to_action("D3") == 19 and edax_move_to_action("a1") == 0
    assert edax_move_to_action("PS") == 64


def test_edax_missing_raises_clear_error(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("FARL_EDAX", raising=False)
    with pytest.raises(RuntimeError, match="edax-reversi"):
        EdaxPlayer()


@pytest.mark.skipif(find_edax() is None, reason="Edax not installed: see farl_agents.opponents.edax.INSTALL_HINT")
def test_edax_plays_legal_moves():
    r = evaluate("othello", EdaxPlayer(1), RandomPlayer(), start_states=("random", 4), n_games=2, seed=0)
    assert r.win_rate > 0.5


# --------------------------------------------------------------- registry
def test_make_opponent_parses_names():
    ttt, oth, nim = (farl_envs.game_spec(n) for n in ("tictactoe", "othello", "nim"))
    assert isinstance(make_opponent("random", ttt), RandomPlayer)
    assert make_opponent("maxn", ttt).depth == 15
    assert make_opponent("MaxN10", ttt).depth == 10
    assert make_opponent("mcts10000", "hex").iterations == 10000
    assert make_opponent("MCTS5000", "nim3p").iterations == 5000
    assert isinstance(make_opponent("bench", oth), BenchPlayer)
    assert make_opponent("heur", oth).name == "Heur"
    assert isinstance(make_opponent("bouton", nim), BoutonPlayer)
    assert make_opponent("maxn2", "game2048").depth == 2  # expectimax-N over the random tiles
    assert make_opponent("paranoid", ttt).depth == 6 and make_opponent("Paranoid4", ttt).name == "Paranoid4"
    for bad, game in (("bench", ttt), ("bouton", ttt), ("paranoid0", ttt), ("alpha", ttt), ("", ttt),
                      ("ab", ttt)):
        with pytest.raises(ValueError):
            make_opponent(bad, game)


def test_make_opponent_connect_four_solver_opens_in_the_centre():
    # Only the centre column (d, index 3) wins from the empty board; both
    # perfect players must play it (answered from the packaged opening book).
    game = farl_envs.game_spec("connect_four")
    for name, shown in (("ab", "AB"), ("ab-dl", "AB-DL"), ("AB-DL", "AB-DL")):
        p = make_opponent(name, game)
        assert isinstance(p, PerfectConnectFour) and p.name == shown
        s = game.initial_state(game.p, make_rng(0))
        assert p.act(game, s, make_rng(0)) == 3
    with pytest.raises(ValueError, match="6x7 only"):
        make_opponent("ab", farl_envs.game_spec("connect_four", rows=4, cols=5))
    with pytest.raises(ValueError, match="game name or a GameSpec"):
        make_opponent("ab", object())


def test_bench_gbg_flips_the_sign_after_pass_forcing_and_final_moves():
    """GBG's Bench counts the board from the wrong side after a move that leaves the
    opponent only the pass or ends the game; the count is worked out here in Python."""
    g = farl_envs.game_spec("othello")
    normal, gbg = make_opponent("bench", g), make_opponent("bench-gbg", g)
    assert gbg.name == "Bench-GBG" and gbg.gbg and not normal.gbg
    mask, mask2, out, rew = (np.zeros(65, np.int8), np.zeros(65, np.int8), np.zeros(g.state_size, np.int32),
                             np.zeros(2))

    def best_sets(s):
        g.legal_actions(g.p, s, mask)
        me = int(s[TO_MOVE]) + 1
        plain, flipped = {}, {}
        for a in np.flatnonzero(mask):
            g.afterstate(g.p, s, int(a), out, rew)
            cells = out[HEADER:HEADER + 64]
            v = float(np.sum(BENCH_WEIGHTS * ((cells == me) * 1.0 - ((cells != me) & (cells != 0)))))
            g.legal_actions(g.p, out, mask2)
            quirk = bool(out[TERMINAL]) or bool(mask2[64])
            plain[int(a)], flipped[int(a)] = v, (-v if quirk else v)
        top = lambda d: {a for a, v in d.items() if v == max(d.values())}  # noqa: E731
        return top(plain), top(flipped)

    rng = np.random.default_rng(5)
    differing = 0
    for game_no in range(150):
        s = g.initial_state(g.p, make_rng(game_no))
        while not s[TERMINAL]:
            plain, flipped = best_sets(s)
            if plain != flipped:
                differing += 1
                r = make_rng(game_no)
                assert gbg.act(g, s, r) in flipped and normal.act(g, s, make_rng(game_no)) in plain
            g.legal_actions(g.p, s, mask)
            g.afterstate(g.p, s, int(rng.choice(np.flatnonzero(mask))), s, rew)
    assert differing >= 3  # the quirk matters in real games
