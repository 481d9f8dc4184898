"""Sim rules (2 and 3 players) against a second implementation written here and known facts.

The reference below (``Reference``) is plain Python: it keeps the edges in a
dict, finds a loss by looking at *every* triple of nodes (the kernel looks
only at triangles through the edge just coloured) and replays the turn order
with its own list of players still in. The facts: K_n has n(n-1)/2 edges;
Ramsey's R(3,3) = 6 (every 2-colouring of K6 holds a one-coloured triangle,
while K5 has one without: the pentagon against the pentagram); two-player
Sim on K6 is a win for the second player (Mead, Rosa & Huang 1974), checked
by an exhaustive search written here on bitmasks.
"""
from __future__ import annotations

import itertools
import warnings

import gymnasium
import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import farl_envs
from farl_agents.evaluate import evaluate
from farl_agents.opponents import make_opponent
from farl_agents.opponents.maxn import MaxN
from farl_envs import sim_v0
from farl_envs.core.kernels import kernels_of
from farl_envs.core.playout import random_playout
from farl_envs.core.rng import make_rng, rng_choice_mask
from farl_envs.core.spec import HEADER, PLY, TERMINAL, TO_MOVE
from farl_envs.games import sim


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


# ----------------------------------------------------- a second implementation
class Reference:
    """Sim as the rules read, without the kernel's shortcuts."""

    def __init__(self, nodes: int, players: int):
        self.nodes, self.players = nodes, players
        self.edges = [(i, j) for i in range(nodes) for j in range(i + 1, nodes)]
        self.colour = {e: None for e in self.edges}  # seat owning the edge, or None
        self.still_in = list(range(players))
        self.to_move = 0
        self.over = False

    def copy(self) -> "Reference":
        other = Reference.__new__(Reference)
        other.nodes, other.players, other.edges = self.nodes, self.players, self.edges
        other.colour, other.still_in = dict(self.colour), list(self.still_in)
        other.to_move, other.over = self.to_move, self.over
        return other

    def key(self) -> tuple:
        return tuple(self.colour.values()), tuple(self.still_in), self.to_move, self.over

    def legal(self) -> list[int]:
        return [] if self.over else [k for k, e in enumerate(self.edges) if self.colour[e] is None]

    def has_triangle(self, seat: int) -> bool:
        for a, b, c in itertools.combinations(range(self.nodes), 3):
            if self.colour[(a, b)] == self.colour[(a, c)] == self.colour[(b, c)] == seat:
                return True
        return False

    def move(self, k: int) -> list[float]:
        """Colour edge ``k`` for the player to move; return everybody's reward for this move."""
        assert not self.over and self.colour[self.edges[k]] is None
        mover = self.to_move
        self.colour[self.edges[k]] = mover
        rewards = [0.0] * self.players
        if self.has_triangle(mover):
            rewards[mover] = -1.0
            order = self.still_in
            nxt = order[(order.index(mover) + 1) % len(order)]
            self.still_in = [q for q in order if q != mover]
            if len(self.still_in) == 1:
                rewards[self.still_in[0]] = 1.0
                self.over = True
        else:
            order = self.still_in
            nxt = order[(order.index(mover) + 1) % len(order)]
        if all(c is not None for c in self.colour.values()):
            self.over = True
        self.to_move = nxt
        return rewards


def _step(spec, s, a):
    out, rewards = np.empty_like(s), np.zeros(spec.n_players)
    spec.afterstate(spec.p, s, a, out, rewards)
    return out, rewards


def _legal(spec, s):
    mask = np.zeros(spec.n_actions, dtype=np.int8)
    n = spec.legal_actions(spec.p, s, mask)
    assert n == int(mask.sum())
    return mask


def _play(spec, moves):
    """The state after ``moves`` and the summed rewards, every move checked legal."""
    s = spec.initial_state(spec.p, make_rng(0))
    total = np.zeros(spec.n_players)
    for a in moves:
        assert _legal(spec, s)[a], f"edge {a} should be legal"
        s, r = _step(spec, s, a)
        total += r
    return s, total


def _edge(nodes, i, j):
    return sim.edge_list(nodes).index((min(i, j), max(i, j)))


# ---------------------------------------------------------------- numbering
@pytest.mark.parametrize("nodes", [4, 6, 12, 20])
def test_edges_of_the_complete_graph_in_lexicographic_order(nodes):
    spec = sim.make_spec(players=2, nodes=nodes)
    assert spec.n_actions == spec.n_cells == nodes * (nodes - 1) // 2
    names = [tuple(int(x) for x in name.split("-")) for name in spec.action_names]
    assert names == sorted(names) and all(i < j for i, j in names) and len(set(names)) == len(names)


def test_k6_has_15_edges_and_defaults_follow_gbg():
    two, three = sim.make_spec(), sim.make_spec(players=3)
    assert two.n_actions == 15 and two.params == {"players": 2, "nodes": 6}
    assert three.n_actions == 66 and three.params == {"players": 3, "nodes": 12}
    assert two.action_names[:6] == ("0-1", "0-2", "0-3", "0-4", "0-5", "1-2")
    assert two.n_cell_values == 3 and three.n_cell_values == 4


# ---------------------------------------------------------- hand-built games
def test_own_triangle_loses_a_mixed_triangle_does_not():
    spec = sim.make_spec(players=2, nodes=6)
    e = lambda i, j: _edge(6, i, j)  # noqa: E731
    # p0: 0-1, 0-2; p1: 3-4, 3-5; p0 colours 1-3 (no triangle), p1 colours 4-5 and loses
    s, total = _play(spec, [e(0, 1), e(3, 4), e(0, 2), e(3, 5), e(1, 3)])
    assert not s[TERMINAL] and list(total) == [0, 0]
    # the triangle 0-1-2 is open: colouring 1-2 would lose for p0, but p1 colours it: mixed, no loss
    s2, total2 = _play(spec, [e(0, 1), e(3, 4), e(0, 2), e(3, 5), e(1, 3), e(1, 2)])
    assert not s2[TERMINAL] and list(total2) == [0, 0]
    s3, total3 = _play(spec, [e(0, 1), e(3, 4), e(0, 2), e(3, 5), e(1, 3), e(4, 5)])
    assert s3[TERMINAL] and list(total3) == [1, -1] and sim.eliminated(spec.p, s3) == (1,)
    # p0 closes its own 0-1-2 at its third edge
    s4, total4 = _play(spec, [e(0, 1), e(3, 4), e(0, 2), e(3, 5), e(1, 2)])
    assert s4[TERMINAL] and list(total4) == [-1, 1]
    assert _legal(spec, s4).sum() == 0


def test_k5_pentagon_against_pentagram_is_a_draw():
    """The 2-colouring of K5 without a one-coloured triangle (R(3,3) > 5) ends the game undecided."""
    spec = sim.make_spec(players=2, nodes=5)
    pentagon = [(0, 1), (1, 2), (2, 3), (3, 4), (0, 4)]
    pentagram = [(0, 2), (2, 4), (1, 4), (1, 3), (0, 3)]
    moves = [_edge(5, *x) for pair in zip(pentagon, pentagram) for x in pair]
    s, total = _play(spec, moves)
    assert s[TERMINAL] and s[PLY] == 10 and list(total) == [0, 0]
    assert sim.validate(spec.p, s) == ""


def test_ramsey_every_two_colouring_of_k6_has_a_one_coloured_triangle():
    """Checked over all 2^15 colourings here, then by 2000 random games of the kernel: none ends undecided."""
    edges = sim.edge_list(6)
    triangles = [[edges.index((a, b)), edges.index((a, c)), edges.index((b, c))]
                 for a, b, c in itertools.combinations(range(6), 3)]
    masks = [sum(1 << k for k in t) for t in triangles]
    full = (1 << 15) - 1
    assert all(any(m & x == m or m & (full ^ x) == m for m in masks) for x in range(1 << 15))

    spec = sim.make_spec(players=2, nodes=6)
    rng = make_rng(3)
    s0 = spec.initial_state(spec.p, rng)
    mask, rewards, total = np.zeros(15, np.int8), np.zeros(2), np.zeros(2)
    outcomes = set()
    for _ in range(2000):
        s = s0.copy()
        random_playout(kernels_of(spec), spec.p, s, mask, rewards, total, rng)
        assert sorted(total) == [-1.0, 1.0] and s[PLY] >= 5
        outcomes.add(tuple(total))
    assert outcomes == {(-1.0, 1.0), (1.0, -1.0)}
    # K5 does end undecided in random play
    spec5 = sim.make_spec(players=2, nodes=5)
    s5 = spec5.initial_state(spec5.p, rng)
    mask5 = np.zeros(10, np.int8)
    draws = 0
    for _ in range(500):
        s = s5.copy()
        random_playout(kernels_of(spec5), spec5.p, s, mask5, rewards, total, rng)
        draws += not total.any()
    assert draws > 0


def test_three_players_elimination_order_and_rewards():
    """K6, 3 players: player_1 closes a triangle first and is out; then player_0 closes one: player_2 wins."""
    spec = sim.make_spec(players=3, nodes=6)
    e = lambda i, j: _edge(6, i, j)  # noqa: E731
    # rounds (p0, p1, p2): p1 builds 0-1, 0-2 then closes 1-2 with its third edge (the 8th move)
    moves = [e(3, 4), e(0, 1), e(0, 5),
             e(3, 5), e(0, 2), e(1, 5),
             e(2, 4), e(1, 2)]
    s, total = _play(spec, moves)
    assert not s[TERMINAL] and list(total) == [0, -1, 0]
    assert sim.eliminated(spec.p, s) == (1,) and s[TO_MOVE] == 2  # player_1 is skipped
    # p2 then p0 alternate: p2 colours 2-3, p0 closes 3-4-5 with 4-5 and loses; p2 is the one left
    s, r = _step(spec, s, e(2, 3))
    assert s[TO_MOVE] == 0 and list(r) == [0, 0, 0]
    s, r = _step(spec, s, e(4, 5))
    assert s[TERMINAL] and list(r) == [-1, 0, 1]
    assert list(total + r) == [-1, -1, 1] and sim.eliminated(spec.p, s) == (0, 1)
    assert sim.validate(spec.p, s) == ""


def test_three_players_draw_after_one_is_out():
    """K5, 3 players: player_0 is out after its third edge (the 7th move); no second triangle: -1, 0, 0."""
    spec = sim.make_spec(players=3, nodes=5)
    e = lambda i, j: _edge(5, i, j)  # noqa: E731
    # p0: 0-1, 1-2, 0-2 (triangle, out at its third move); p1: 0-3, 1-3, 2-4 ; p2: 0-4, 1-4, 2-3; then 3-4
    moves = [e(0, 1), e(0, 3), e(0, 4),
             e(1, 2), e(1, 3), e(1, 4),
             e(0, 2)]
    s, total = _play(spec, moves)
    assert list(total) == [-1, 0, 0] and s[TO_MOVE] == 1 and not s[TERMINAL]
    s, total2 = _play(spec, moves + [e(2, 4), e(2, 3), e(3, 4)])
    # p1: 0-3, 1-3, 2-4, 3-4 (no triangle: 0-3-4 needs 0-4, p2's), p2: 0-4, 1-4, 2-3
    assert s[TERMINAL] and list(total2) == [-1, 0, 0] and sim.eliminated(spec.p, s) == (0,)
    assert sim.validate(spec.p, s) == ""


# --------------------------------------------- against the second implementation
@pytest.mark.parametrize("players,nodes,games", [(2, 6, 300), (2, 5, 200), (3, 6, 300), (3, 12, 60), (3, 5, 200)])
def test_random_games_agree_with_the_reference(players, nodes, games):
    spec = sim.make_spec(players=players, nodes=nodes)
    rng = make_rng(players * 100 + nodes)
    finals = set()
    for _ in range(games):
        ref = Reference(nodes, players)
        s = spec.initial_state(spec.p, rng)
        total = np.zeros(players)
        while True:
            mask = _legal(spec, s)
            assert list(np.flatnonzero(mask)) == ref.legal()
            assert bool(s[TERMINAL]) == ref.over and int(s[TO_MOVE]) == ref.to_move
            assert sim.validate(spec.p, s) == ""
            assert set(sim.eliminated(spec.p, s)) == set(range(players)) - set(ref.still_in)
            cells = [0 if ref.colour[x] is None else ref.colour[x] + 1 for x in ref.edges]
            assert list(s[HEADER:HEADER + spec.n_cells]) == cells
            if ref.over:
                break
            a = rng_choice_mask(rng, mask)
            mover = int(s[TO_MOVE])
            assert mover in ref.still_in  # a player who is out never moves again
            s, r = _step(spec, s, a)
            assert list(r) == ref.move(a)
            total += r
        finals.add(tuple(total))
    if players == 2:
        allowed = {(0.0, 0.0), (1.0, -1.0), (-1.0, 1.0)}
    else:
        allowed = {(0.0, 0.0, 0.0)} | set(itertools.permutations((-1.0, 0.0, 0.0))) \
            | set(itertools.permutations((-1.0, -1.0, 1.0)))
    assert finals <= allowed
    if (players, nodes) == (3, 6):  # every kind of 3-player ending turns up
        kinds = {tuple(sorted(f)) for f in finals}
        assert kinds == {(0.0, 0.0, 0.0), (-1.0, 0.0, 0.0), (-1.0, -1.0, 1.0)}


def _as_reference_key(state, players):
    """A kernel state written as ``Reference.key()``: edge owners, seats still in, player to move, game over."""
    cells, gone = state[HEADER:-1], state[-1]
    return (tuple(None if c == 0 else c - 1 for c in cells), tuple(q for q in range(players) if not gone >> q & 1),
            state[TO_MOVE], bool(state[TERMINAL]))


@pytest.mark.parametrize("players", [2, 3])
def test_position_counts_on_k5_match_the_reference(players):
    """Distinct positions after each ply on K5, by the kernel and by the reference: the same sets."""
    spec = sim.make_spec(players=players, nodes=5)
    level = {tuple(spec.initial_state(spec.p, make_rng(0)))}
    ref_level = {(r := Reference(5, players)).key(): r}
    mask, out, rewards = np.zeros(10, np.int8), np.zeros(spec.state_size, np.int32), np.zeros(players)
    for _ply in range(10):
        nxt = set()
        for key in level:
            s = np.array(key, dtype=np.int32)
            spec.legal_actions(spec.p, s, mask)
            for a in np.flatnonzero(mask):
                spec.afterstate(spec.p, s, int(a), out, rewards)
                nxt.add(tuple(out.tolist()))
        ref_nxt = {}
        for ref in ref_level.values():
            for k in ref.legal():
                child = ref.copy()
                child.move(k)
                ref_nxt[child.key()] = child
        assert len(nxt) == len(ref_nxt)
        assert {_as_reference_key(k, players) for k in nxt} == set(ref_nxt)
        level = {k for k in nxt if not k[TERMINAL]}
        ref_level = {k: r for k, r in ref_nxt.items() if not r.over}
    assert not level and not ref_level


def test_k6_games_ending_after_5_and_6_lines():
    """Move sequences of two-player K6 Sim that end at ply 5 and 6: 15,840 and 151,200.

    The counts are published in the "Game of Sim" blog (2013, "How many games?"); by hand: at ply 5
    player_0's three edges form one of the 20 triangles (3! orders) while player_1 picked 2 of the other
    12 edges in order (20 * 6 * 132). The kernel's count sums the sequences into each position.
    """
    spec = sim.make_spec(players=2, nodes=6)
    level = {tuple(spec.initial_state(spec.p, make_rng(0))): 1}
    mask, out, rewards = np.zeros(15, np.int8), np.zeros(spec.state_size, np.int32), np.zeros(2)
    ended = []
    for _ply in range(6):
        nxt = {}
        for key, ways in level.items():
            s = np.array(key, dtype=np.int32)
            spec.legal_actions(spec.p, s, mask)
            for a in np.flatnonzero(mask):
                spec.afterstate(spec.p, s, int(a), out, rewards)
                k = tuple(out.tolist())
                nxt[k] = nxt.get(k, 0) + ways
        ended.append(sum(w for k, w in nxt.items() if k[TERMINAL]))
        level = {k: w for k, w in nxt.items() if not k[TERMINAL]}
    assert ended == [0, 0, 0, 0, 15840, 151200]


# ---------------------------------------------------------------- solving K6
def _solve_k6_second_player_wins():
    """Negamax over bitmasks (mover's edges, other's edges) with a table: +1 mover wins, 0 draw, -1 loses."""
    edges = sim.edge_list(6)
    full = (1 << 15) - 1
    closing = [[] for _ in edges]  # per edge: masks of the two other edges of each triangle through it
    for a, b, c in itertools.combinations(range(6), 3):
        t = [edges.index((a, b)), edges.index((a, c)), edges.index((b, c))]
        for x in t:
            closing[x].append(sum(1 << y for y in t if y != x))
    table = {}

    def value(mine, theirs):
        key = (mine, theirs)
        if key not in table:
            best = -2
            for k in range(15):
                if (mine | theirs) >> k & 1:
                    continue
                if any(mine & m == m for m in closing[k]):
                    v = -1
                elif mine | theirs | 1 << k == full:
                    v = 0
                else:
                    v = -value(theirs, mine | 1 << k)
                best = max(best, v)
                if best == 1:
                    break
            table[key] = best
        return table[key]

    return value


def test_two_player_k6_is_a_second_player_win_and_maxn_is_exact():
    value = _solve_k6_second_player_wins()
    assert value(0, 0) == -1  # the first player loses with perfect play on both sides
    spec = sim.make_spec(players=2, nodes=6)
    maxn = MaxN(depth=15, cache_size=1 << 16)
    rng = make_rng(11)
    for plies in (4, 5, 6, 7, 8, 9):
        s = spec.initial_state(spec.p, rng)
        for _ in range(plies):
            mask = _legal(spec, s)
            s, _r = _step(spec, s, rng_choice_mask(rng, mask))
            if s[TERMINAL]:
                break
        if s[TERMINAL]:
            continue
        mover = int(s[TO_MOVE])
        cells = s[HEADER:HEADER + 15]
        bits = [sum(1 << k for k in range(15) if cells[k] == q + 1) for q in range(2)]
        assert maxn.value(spec, s)[mover] == value(bits[mover], bits[1 - mover])
        a = maxn.act(spec, s, rng)
        after, r = _step(spec, s, a)
        achieved = r[mover] if after[TERMINAL] else -value(bits[1 - mover], bits[mover] | 1 << a)
        assert achieved == value(bits[mover], bits[1 - mover])


def _reference_maxn(ref: Reference, table: dict) -> tuple:
    """Max-N value vector of ``ref`` searched to the end: the summed rewards along the line where each
    mover takes the first (lowest edge) of its best moves."""
    key = ref.key()
    if key not in table:
        best = None
        for k in ref.legal():
            child = ref.copy()
            rewards = child.move(k)
            rest = (0.0,) * ref.players if child.over else _reference_maxn(child, table)
            value = tuple(r + v for r, v in zip(rewards, rest))
            if best is None or value[ref.to_move] > best[ref.to_move]:
                best = value
        table[key] = best
    return table[key]


def test_three_player_maxn_searches_k6_to_the_end():
    """Max-N with depth 15 on 3-player K6 returns the value vector of a full search written here."""
    spec = sim.make_spec(players=3, nodes=6)
    maxn = MaxN(depth=15, cache_size=1 << 16)
    rng = make_rng(21)
    values, table = [], {}
    while len(values) < 4 or not any(any(v) for v in values):
        ref = Reference(6, 3)
        s = spec.initial_state(spec.p, rng)
        for _ in range(8):
            a = rng_choice_mask(rng, _legal(spec, s))
            s, _r = _step(spec, s, a)
            ref.move(a)
        if s[TERMINAL]:
            continue
        values.append(_reference_maxn(ref, table))
        assert tuple(maxn.value(spec, s)) == values[-1]


# ------------------------------------------------------------- symmetries etc.
@pytest.mark.parametrize("players,nodes", [(2, 6), (3, 7)])
def test_symmetries_relabel_nodes_and_commute_with_moves(players, nodes):
    spec = sim.make_spec(players=players, nodes=nodes)
    perms, acts = spec.symmetries(spec.p), spec.action_symmetries(spec.p)
    m = spec.n_cells
    assert perms.shape == acts.shape == (2 * nodes, m)
    assert np.array_equal(perms[0], np.arange(m)) and len({tuple(x) for x in perms}) == 2 * nodes
    edges = sim.edge_list(nodes)
    rng = make_rng(5)
    s = spec.initial_state(spec.p, rng)
    for _ in range(nodes):
        s, _r = _step(spec, s, rng_choice_mask(rng, _legal(spec, s)))
    cells = s[HEADER:HEADER + m]
    # each symmetry is a relabelling of the nodes by a map of the polygon (distances along it are kept)
    for k in range(2 * nodes):
        relabelled = cells[perms[k]]
        for x in range(m):
            assert relabelled[acts[k, x]] == cells[x]
        image = {i: set.intersection(*(set(edges[acts[k, edges.index(e)]]) for e in edges if i in e))
                 for i in range(nodes)}
        assert all(len(v) == 1 for v in image.values())
        f = {i: v.pop() for i, v in image.items()}
        assert sorted(f.values()) == list(range(nodes))
        assert all((f[(i + 1) % nodes] - f[i]) % nodes in (1, nodes - 1) for i in range(nodes))
        # moves commute with the symmetry
        t = s.copy()
        t[HEADER:HEADER + m] = relabelled
        for a in np.flatnonzero(_legal(spec, s)):
            after, r = _step(spec, s, int(a))
            after_t, r_t = _step(spec, t, int(acts[k, a]))
            assert np.array_equal(after[HEADER:HEADER + m][perms[k]], after_t[HEADER:HEADER + m])
            assert np.array_equal(r, r_t) and after[TERMINAL] == after_t[TERMINAL]


def test_cell_neighbours_are_edges_sharing_a_node():
    spec = sim.make_spec(players=2, nodes=6)
    nb = spec.cell_neighbours(spec.p)
    edges = sim.edge_list(6)
    assert all(len(x) == 2 * (6 - 2) for x in nb)
    for e, near in enumerate(nb):
        assert sorted(near) == [f for f in range(15) if f != e and set(edges[f]) & set(edges[e])]


def test_observation_planes_from_each_seat():
    spec = sim.make_spec(players=3, nodes=5)
    e = lambda i, j: _edge(5, i, j)  # noqa: E731
    s, _ = _play(spec, [e(0, 1), e(0, 3), e(0, 4), e(1, 2), e(1, 3), e(1, 4), e(0, 2)])  # p0 out
    assert spec.obs_shape == (5, 5, 6)
    for seat in range(3):
        obs = np.zeros(spec.obs_shape, np.int8)
        spec.observe(spec.p, s, seat, obs)
        own = obs[:, :, 0]
        assert np.array_equal(obs[:, :, :3], obs[:, :, :3].transpose(1, 0, 2))
        mine = {(i, j) for i, j in sim.edge_list(5) if own[i, j]}
        expected = {x for k, x in enumerate(sim.edge_list(5)) if s[HEADER + k] == seat + 1}
        assert mine == expected
        nxt = {x for x in sim.edge_list(5) if obs[x[0], x[1], 1]}
        assert nxt == {x for k, x in enumerate(sim.edge_list(5)) if s[HEADER + k] == (seat + 1) % 3 + 1}
        still_in = [bool(obs[:, :, 3 + k].all()) for k in range(3)]
        assert still_in == [(seat + k) % 3 != 0 for k in range(3)]
        assert all(obs[:, :, 3 + k].all() or not obs[:, :, 3 + k].any() for k in range(3))
    assert sim.make_spec(players=2, nodes=6).obs_shape == (6, 6, 2)


def test_render_text_and_rgb():
    env = sim_v0.env(render_mode="ansi", players=3, nodes=6)
    env.reset(seed=0)
    env.step(_edge(6, 1, 4))
    lines = env.render().split("\n")
    assert lines[2].split()[1:] == [".", "\\", ".", ".", "0", "."] and lines[5].split()[2] == "0"
    assert lines[-1] == "player_1 to move"
    rgb = sim_v0.env(render_mode="rgb_array", players=2, nodes=6)
    rgb.reset(seed=0)
    rgb.step(0)
    img = rgb.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[0] == img.shape[1]
    grid = sim._paint(rgb.unwrapped.game.p, rgb.unwrapped.get_state())
    assert grid[0, 1] == grid[1, 0] == 1 and grid[0, 0] == 3 and grid[0, 2] == 0


# ------------------------------------------------------------ errors
@pytest.mark.parametrize("params", [{"players": 4}, {"players": 1}, {"nodes": 3}, {"nodes": 21},
                                    {"nodes": "6"}, {"players": True}, {"players": 2.0}])
def test_bad_parameters_name_the_allowed_values(params):
    with pytest.raises(ValueError, match=r"\.\."):
        sim.make_spec(**params)


def test_illegal_action_raises_and_leaves_the_state():
    env = sim_v0.env()
    env.reset(seed=0)
    env.step(3)
    before = env.unwrapped.get_state()
    with pytest.raises(ValueError, match="legal actions"):
        env.step(3)
    assert np.array_equal(env.unwrapped.get_state(), before)


def _state(spec, cells, to_move, gone=0, terminal=0):
    s = np.zeros(spec.state_size, dtype=np.int32)
    s[HEADER:HEADER + spec.n_cells] = cells
    s[HEADER + spec.n_cells] = gone
    s[TO_MOVE], s[TERMINAL], s[PLY] = to_move, terminal, int(np.count_nonzero(cells))
    return s


def test_impossible_positions_are_refused():
    spec = sim.make_spec(players=2, nodes=6)
    env = sim_v0.raw_env()
    env.reset(seed=0)
    e = lambda i, j: _edge(6, i, j)  # noqa: E731
    ok = np.zeros(15, np.int32)
    ok[[e(0, 1), e(2, 3)]] = [1, 2]
    env.set_state(_state(spec, ok, 0))
    assert env.agent_selection == "player_0"
    bad = []
    bad.append(_state(spec, ok, 1))  # wrong player to move
    s = _state(spec, ok, 0)
    s[PLY] = 3
    bad.append(s)  # ply count
    three = ok.copy()
    three[[e(4, 5), e(1, 3)]] = 1
    bad.append(_state(spec, three, 0))  # player_0 has three edges against one
    tri = np.zeros(15, np.int32)
    tri[[e(0, 1), e(0, 2), e(1, 2)]] = 1
    tri[[e(3, 4), e(3, 5)]] = 2
    bad.append(_state(spec, tri, 1, gone=0, terminal=1))  # triangle but not marked out
    assert sim.validate(spec.p, _state(spec, tri, 1, gone=1, terminal=1)) == ""
    bad.append(_state(spec, tri, 1, gone=1, terminal=0))  # decided but not over
    bad.append(_state(spec, ok, 0, gone=2))  # out without a triangle
    two_tri = np.zeros(15, np.int32)
    two_tri[[e(0, 1), e(0, 2), e(1, 2), e(3, 4), e(3, 5), e(4, 5)]] = 1
    two_tri[[e(0, 3), e(1, 4), e(2, 5), e(0, 5)]] = 2
    bad.append(_state(spec, two_tri, 1, gone=1, terminal=1))  # two disjoint triangles: went on after a loss
    late = tri.copy()
    late[[e(0, 3)]] = 2
    late[[e(4, 5)]] = 1
    late[[e(2, 4)]] = 2
    bad.append(_state(spec, late, 0, gone=1, terminal=1))  # p0's triangle, but p1 moved last
    wrong = ok.copy()
    wrong[e(4, 5)] = 7
    bad.append(_state(spec, wrong, 1))
    for b in bad:
        assert sim.validate(spec.p, b) != ""
        with pytest.raises(ValueError, match="not a legal position"):
            env.set_state(b)


def test_impossible_three_player_positions_are_refused():
    spec = sim.make_spec(players=3, nodes=5)
    e = lambda i, j: _edge(5, i, j)  # noqa: E731
    moves = [e(0, 1), e(0, 3), e(0, 4), e(1, 2), e(1, 3), e(1, 4), e(0, 2)]
    s, _ = _play(spec, moves)
    assert sim.validate(spec.p, s) == ""
    t = s.copy()
    t[TO_MOVE] = 0  # player_0 is out: it cannot be on move
    assert "player to move" in sim.validate(spec.p, t)
    t = s.copy()
    t[HEADER + spec.n_cells] = 0
    assert "triangle" in sim.validate(spec.p, t)
    # one more move by player_1 then player_2: to move is player_1 again (player_0 skipped)
    s2, _ = _play(spec, moves + [e(2, 4), e(2, 3)])
    assert s2[TO_MOVE] == 1 and sim.validate(spec.p, s2) == ""
    t = s2.copy()
    t[TO_MOVE] = 2
    assert sim.validate(spec.p, t) != ""


# ------------------------------------------------------------ AEC env
def test_aec_env_terminates_the_player_who_is_out():
    env = sim_v0.env(players=3, nodes=6)
    env.reset(seed=0)
    e = lambda i, j: _edge(6, i, j)  # noqa: E731
    for a in [e(3, 4), e(0, 1), e(0, 5), e(3, 5), e(0, 2), e(1, 5), e(2, 4)]:
        env.step(a)
    assert env.agent_selection == "player_1"
    env.step(e(1, 2))  # player_1 closes 0-1-2
    assert env.terminations["player_1"] and not env.terminations["player_2"]
    assert env.agent_selection == "player_1" and env.rewards["player_1"] == -1
    env.step(None)  # its dead step
    assert "player_1" not in env.agents and env.agent_selection == "player_2"


@pytest.mark.parametrize("players", [2, 3])
def test_aec_random_games_out_players_never_move_again(players):
    env = sim_v0.env(players=players, nodes=6)
    rng = np.random.default_rng(players)
    for game in range(30):
        env.reset(seed=game)
        gone, totals = set(), dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            totals[agent] += reward
            if term or trunc:
                gone.add(agent)
                env.step(None)
                continue
            assert agent not in gone
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        values = sorted(totals.values())
        assert values in ([-1.0, 1.0], [0.0, 0.0]) if players == 2 else \
            values in ([0.0, 0.0, 0.0], [-1.0, 0.0, 0.0], [-1.0, -1.0, 1.0])


@pytest.mark.parametrize("params", [{"players": 2}, {"players": 3, "nodes": 7}, {"players": 3}])
def test_pettingzoo_api_and_seed_tests(params):
    api_test(sim_v0.env(**params), num_cycles=200)
    seed_test(lambda: sim_v0.env(**params), num_cycles=20)


@pytest.mark.parametrize("players", [2, 3])
def test_gymnasium_single_agent_wrapper(players):
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make(farl_envs.gymnasium_id("sim"), seat="alternate", players=players, nodes=6).unwrapped
    check_env(env, skip_render_check=True)
    for ep in range(2 * players):
        obs, info = env.reset(seed=ep)
        done = False
        while not done:
            obs, r, done, trunc, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        assert r in (-1.0, 0.0, 1.0)


# ------------------------------------------------------------ generic compiled code
@pytest.mark.parametrize("players", [2, 3])
def test_opponents_and_evaluate_play_sim(players):
    """Max-N and MCTS through make_opponent and evaluate, every seat; games end with Sim's reward vectors."""
    game = farl_envs.game_spec("sim", players=players, nodes=6)
    allowed = ({(-1.0, 1.0), (1.0, -1.0)} if players == 2 else
               set(itertools.permutations((-1.0, 0.0, 0.0))) | set(itertools.permutations((-1.0, -1.0, 1.0)))
               | {(0.0, 0.0, 0.0)})
    for player in (make_opponent("maxn3", game), make_opponent("mcts30", game)):
        r = evaluate(game, player, "random", n_games=2, seed=1)
        games = r.matchups[0].games
        assert len(games) == 2 * players and {g["seat"] for g in games} == set(range(players))
        assert all(tuple(g["rewards"]) in allowed for g in games)
