"""Descent family (Cohen-Solal 2020): searches, completion, UBFMs, heuristics, selections, agent files."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import farl_envs
from farl_agents.descent.alphabeta import AlphaBeta
from farl_agents.descent.evaluation import NTupleEvaluation
from farl_agents.descent.heuristics import HEURISTICS, make_heuristic
from farl_agents.descent.search import Node, TreeSearch
from farl_agents.descent.selection import ordinal, ordinal_probabilities, select
from farl_envs.core.rng import make_rng

TTT = farl_envs.game_spec("tictactoe")


class Zero:
    """f_θ = 0 everywhere."""

    def values(self, boards):
        return np.zeros(len(boards))


class Noisy:
    """A fixed pseudo-random f_θ (so the search order is not trivial)."""

    def __init__(self, scale=1.0):
        self.scale = scale

    def values(self, boards):
        h = (np.asarray(boards, dtype=np.int64) * (np.arange(boards.shape[1]) * 7 + 3)).sum(axis=1)
        return ((h * 2654435761) % 1000 / 500.0 - 1.0) * 0.9 * self.scale


def play(game, state, a):
    out = state.copy()
    game.afterstate(game.p, state, a, out, np.zeros(game.n_players))
    return out


def minimax(game, state, memo):
    """Exhaustive minimax value (first player's view, ±1/0) of a TicTacToe position."""
    key = state.tobytes()
    if key in memo:
        return memo[key]
    mask = np.zeros(game.n_actions, dtype=np.int8)
    game.legal_actions(game.p, state, mask)
    vals = []
    for a in np.flatnonzero(mask):
        rew = np.zeros(game.n_players)
        out = state.copy()
        game.afterstate(game.p, state, a, out, rew)
        vals.append(int(np.sign(rew[0] - rew[1])) if out[1] else minimax(game, out, memo))
    v = max(vals) if state[0] == 0 else min(vals)
    memo[key] = v
    return v


def positions():
    s0 = np.ascontiguousarray(TTT.initial_state(TTT.p, make_rng(0)), dtype=np.int32)
    out = [s0]
    for moves in ([4], [0, 4], [0, 1, 4], [0, 4, 8], [1, 0, 4, 2], [0, 3, 1, 4]):
        s = s0
        for a in moves:
            s = play(TTT, s, a)
        out.append(s)
    return out


@pytest.mark.parametrize("algorithm", ["ubfm", "descent"])
@pytest.mark.parametrize("evaluation", [Zero(), Noisy()], ids=["zero", "noisy"])
def test_resolved_search_gives_exact_minimax(algorithm, evaluation):
    memo = {}
    h = make_heuristic("classic", TTT)
    for s in positions():
        ts = TreeSearch(TTT, evaluation, h, algorithm, completion=True)
        root = ts.search(s, iterations=200_000)
        exact = minimax(TTT, s, memo)
        assert root.solved, f"{algorithm} did not resolve {s}"
        assert root.r == exact and root.v == exact
        # the decision is an optimal move
        child = play(TTT, s, ts.decide(root))
        value = minimax(TTT, child, memo) if not child[1] else exact
        assert value == exact


def test_alphabeta_full_depth_matches_minimax():
    memo = {}
    h = make_heuristic("classic", TTT)
    for s in positions():
        ab = AlphaBeta(TTT, Noisy(), h)
        a, v = ab.search(s, depth=9)
        exact = minimax(TTT, s, memo)
        assert int(np.round(v / ab.big)) == exact
        child = play(TTT, s, a)
        assert (minimax(TTT, child, memo) if not child[1] else exact) == exact
        a2, v2 = ab.search(s, seconds=5.0)  # ID stops once the result is proven or the tree is exhausted
        assert int(np.round(v2 / ab.big)) == exact


def _parent(first, children):
    st = np.zeros(TTT.state_size, dtype=np.int32)
    st[0] = 0 if first else 1
    nd = Node(st, np.zeros(9, np.int32), 0.0)
    nd.children = []
    for r, v in children:
        c = Node(st, np.zeros(9, np.int32), v, r, terminal=r != 0)
        nd.children.append(c)
    nd.actions = np.arange(len(children))
    nd.counts = np.zeros(len(children), dtype=np.int64)
    nd.expanded = True
    return nd


def test_completion_prefers_winning_resolved_and_avoids_losing():
    h = make_heuristic("depth-add", TTT)
    with_c = TreeSearch(TTT, Zero(), h, "descent", completion=True)
    without = TreeSearch(TTT, Zero(), h, "descent", completion=False)
    # first player: a resolved win worth 2 beside an unresolved child worth 8
    nd = _parent(True, [(0, 8.0), (1, 2.0), (0, 5.0)])
    assert with_c.best_index(nd) == 1
    assert without.best_index(nd) == 0
    # second player (minimises): resolved win for it is r = -1
    nd = _parent(False, [(0, -8.0), (-1, -2.0)])
    assert with_c.best_index(nd) == 1 and without.best_index(nd) == 0
    # never a losing resolved child when another exists, even if it looks better
    nd = _parent(True, [(-1, 9.0), (0, -7.0)])
    assert with_c.best_index(nd) == 1 and without.best_index(nd) == 0
    nd = _parent(False, [(1, -9.0), (0, 7.0)])
    assert with_c.best_index(nd) == 1
    # the completed action selection does the same, whatever the method and annealing stage
    rng = make_rng(3)
    for method in ("egreedy", "softmax", "ordinal"):
        for progress in (0.0, 0.5, 1.0):
            for _ in range(20):
                assert select(method, [8.0, 2.0, 5.0], [0, 1, 0], True, progress, rng) == 1
                assert select(method, [9.0, -7.0, 9.5], [-1, 0, -1], True, progress, rng) == 1


def test_completion_in_a_real_position():
    """X to move can win at once (cell 2); f_θ rates every other move higher than that win."""
    s = positions()[0]
    for a in (0, 3, 1, 4):  # X 0, O 3, X 1, O 4: X wins with 2
        s = play(TTT, s, a)
    h = make_heuristic("depth-add", TTT)

    class Flattering:
        def values(self, boards):
            return np.full(len(boards), 9.0)

    ts = TreeSearch(TTT, Flattering(), h, "ubfm", completion=True)
    assert ts.act(s, iterations=1) == 2
    plain = TreeSearch(TTT, Flattering(), h, "ubfm", completion=False)
    assert plain.act(s, iterations=1) != 2


def test_ubfms_plays_most_selected_unless_a_win_is_resolved():
    ts = TreeSearch(TTT, Zero(), make_heuristic("classic", TTT), "ubfm", decision="safest")
    nd = _parent(True, [(0, 0.9), (0, 0.1), (0, 0.5)])
    nd.counts[:] = [3, 10, 5]
    assert ts.safest_index(nd) == 1
    assert ts.best_index(nd) == 0  # UBFM would play the best value
    nd.counts[:] = [10, 10, 5]  # tie on counts: better value
    assert ts.safest_index(nd) == 0
    nd = _parent(True, [(0, 0.9), (1, 1.0), (0, 0.5)])
    nd.counts[:] = [30, 0, 5]
    assert ts.safest_index(nd) == 1
    nd = _parent(False, [(0, 0.9), (0, 0.1)])
    nd.counts[:] = [7, 2]
    assert ts.safest_index(nd) == 0


def test_ubfms_counts_come_from_the_search():
    s = positions()[0]
    ts = TreeSearch(TTT, Noisy(), make_heuristic("classic", TTT), "ubfm", decision="safest")
    root = ts.search(s, iterations=300)
    assert root.counts.sum() == 300 - 1  # the first iteration only expands the root
    best_counted = int(np.argmax(root.counts))
    assert ts.decide(root) == int(root.actions[best_counted]) or root.children[ts.safest_index(root)].r == 1


@pytest.mark.parametrize("game_name,params", [("tictactoe", {}), ("hex", {"size": 5}),
                                              ("connect_four", {"rows": 6, "cols": 7}), ("othello", {})])
def test_heuristic_orderings(game_name, params):
    g = farl_envs.game_spec(game_name, **params)
    P = g.max_plies
    for name in HEURISTICS:
        if name == "score" and game_name != "othello":
            with pytest.raises(ValueError):
                make_heuristic(name, g)
            continue
        h = make_heuristic(name, g)
        for p1 in range(1, P):
            p2 = p1 + 1
            if name in ("depth-add", "depth-mul"):
                assert h.value(1, p1) > h.value(1, p2) > 0  # faster win better
                assert h.value(-1, p1) < h.value(-1, p2) < 0  # slower loss better
                assert h.value(0, p1) == 0
            if name != "score":  # the score reads the final position itself (below)
                assert abs(h.value(1, p1, 5, 3, 40, 30)) <= h.scale
        if name == "classic":
            assert (h.value(1, 5), h.value(0, 5), h.value(-1, 5)) == (1, 0, -1)
        if name in ("mobility", "presence"):
            for a, b in ((10, 0), (0, 10), (5, 5)):
                win = h.value(1, 9, a, b, a, b)
                draw = h.value(0, 9, a, b, a, b)
                loss = h.value(-1, 9, a, b, a, b)
                assert win > 1 > draw > -1 > loss
            assert h.value(1, 9, 8, 2, 8, 2) > h.value(1, 9, 2, 8, 2, 8)
        if name == "score":  # Othello's own score (GameSpec.score): black's discs minus white's on the final board
            for black, white in ((40, 24), (20, 44)):
                s = g.initial_state(g.p, make_rng(0))
                s[3:3 + 64] = [1] * black + [2] * white
                assert h.value(1 if black > white else -1, 60, state=s) == black - white
                assert abs(black - white) <= h.scale


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.floats(0.0, 1.0))
def test_ordinal_probabilities_sum_to_one_and_rank(n, exploit):
    p = ordinal_probabilities(n, exploit)
    assert p.sum() == pytest.approx(1.0)
    assert np.all(p >= -1e-12)
    assert np.all(np.diff(p) <= 1e-12)  # a better rank is never less likely


def test_ordinal_extremes_and_sampling():
    assert np.allclose(ordinal_probabilities(5, 0.0), 0.2)
    assert np.allclose(ordinal_probabilities(5, 1.0), [1, 0, 0, 0, 0])
    rng = make_rng(11)
    v = np.array([0.3, -0.5, 0.9, 0.1])  # best-first order for the first player: 2, 0, 3, 1
    counts = np.zeros(4)
    n = 20_000
    for _ in range(n):
        counts[ordinal(v, np.zeros(4, int), True, 0.4, rng)] += 1
    want = ordinal_probabilities(4, 0.4)[[1, 3, 0, 2]]  # child i has rank [1, 3, 0, 2][i]
    assert np.allclose(counts / n, want, atol=0.015)
    counts[:] = 0
    for _ in range(4000):
        counts[ordinal(v, np.zeros(4, int), False, 0.4, rng)] += 1  # second player: lowest value best
    assert counts[1] > counts[3] > counts[0] > counts[2]


def test_ntuple_fit_moves_values_towards_targets():
    g = farl_envs.game_spec("hex", size=4)
    ev = NTupleEvaluation(g, scale=5.0, tanh_output=False, alpha=0.5)
    rng = np.random.default_rng(0)
    boards = rng.integers(0, 3, size=(50, g.n_cells)).astype(np.int32)
    y = rng.uniform(-5, 5, size=50)
    before = np.mean((ev.values(boards) - y) ** 2)
    for _ in range(30):
        ev.fit(boards, y, rng)
    assert np.mean((ev.values(boards) - y) ** 2) < 0.2 * before


def test_descent_solves_nim_by_boutons_rule():
    """Nim 3 heaps of 5, take 1..3: the mover loses iff the XOR of (heap mod 4) is 0."""
    g = farl_envs.game_spec("nim", heaps=3, heap_size=5, max_take=3)
    h = make_heuristic("depth-add", g)
    s0 = np.ascontiguousarray(g.initial_state(g.p, make_rng(0)), dtype=np.int32)
    rng = np.random.default_rng(4)
    for trial in range(6):
        s = s0.copy()
        for _ in range(trial):  # a few random moves
            mask = np.zeros(g.n_actions, dtype=np.int8)
            g.legal_actions(g.p, s, mask)
            s = play(g, s, int(rng.choice(np.flatnonzero(mask))))
        if s[1]:
            continue
        ts = TreeSearch(g, Noisy(h.scale), h, "descent", completion=True)
        root = ts.search(s, iterations=100_000)
        heaps = s[3:6] % 4
        mover_wins = (heaps[0] ^ heaps[1] ^ heaps[2]) != 0
        mover = 1 if s[0] == 0 else -1
        assert root.solved and root.r == (mover if mover_wins else -mover)


def test_othello_score_heuristic_and_a_short_search():
    g = farl_envs.game_spec("othello")
    h = make_heuristic("score", g)
    ev = NTupleEvaluation(g, h.scale, tanh_output=False)
    s = np.ascontiguousarray(g.initial_state(g.p, make_rng(0)), dtype=np.int32)
    for algorithm, decision in (("descent", "best"), ("ubfm", "safest")):
        ts = TreeSearch(g, ev, h, algorithm, decision=decision)
        a = ts.act(s, iterations=20)
        assert a in (19, 26, 37, 44)  # black's four legal openings
        terminal = [nd for nd in ts.table.values() if nd.terminal]
        for nd in terminal:  # descent reaches the end of the game: values are disc differences
            assert nd.v == (nd.board == 1).sum() - (nd.board == 2).sum()
        if algorithm == "descent":
            assert terminal
