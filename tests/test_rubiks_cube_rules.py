"""Rubik's cube rules against facts known independently of the kernels.

* every twist has order 4 (quarter) and an inverse; twists of opposite faces commute, neighbours do not;
* the 2x2x2 fixed-corner group: a breadth-first search (numba, perfect hash of the corner permutation and
  orientation, 7! * 3^6 = 3,674,160) gives the known number of positions at each distance from solved, in
  the half-turn and the quarter-turn metric (God's numbers 11 and 14);
* the 3x3x3: random scrambles stay in the group the product formula counts (equal permutation parities,
  corner twists summing to 0 mod 3, edge flips to 0 mod 2), hand-checked sequences (the sexy move's order 6,
  Reid's 20-twist superflip);
* the env: reward, termination and truncation; the scramble depth range.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from numba import njit

import farl_envs
from farl_envs.core.rng import make_rng
from farl_envs.core.spec import HEADER, PLY, TERMINAL
from farl_envs.games import rubiks_cube as rc

HALF_COUNTS = [1, 9, 54, 321, 1847, 9992, 50136, 227536, 870072, 1887748, 623800, 2644]
QUARTER_COUNTS = [1, 6, 27, 120, 534, 2256, 8969, 33058, 114149, 360508, 930588, 1350852, 782536, 90280, 276]
POCKET_ORDER = 3_674_160
CUBE_ORDER = 43_252_003_274_489_856_000


def spec(**params):
    return farl_envs.game_spec("rubiks_cube", **params)


def stickers(g, s):
    """The stickers of ``s`` (without the last-twist slot that follows them)."""
    return s[HEADER:rc.last_slot(g.p)]


def solved_state(g):
    s = np.zeros(g.state_size, dtype=np.int32)
    s[HEADER:rc.last_slot(g.p)] = np.arange(rc.last_slot(g.p) - HEADER)
    return s


def play(g, s, moves):
    """``s`` after the twists ``moves`` (names, e.g. ``"R U R' U'"``), the ply and flags as the kernel sets them."""
    names = list(g.action_names)
    rewards = np.zeros(1)
    s = s.copy()
    for m in moves.split():
        g.afterstate(g.p, s, names.index(m), s, rewards)
    return s


def same_cube(a, b):
    return np.array_equal(a[HEADER:-1], b[HEADER:-1])


def board(g, s):
    out = np.zeros(g.n_cells, dtype=np.int32)
    g.board(g.p, s, out)
    return out


# ------------------------------------------------------------------------------------------ twists
@pytest.mark.parametrize("size", [2, 3])
def test_every_quarter_twist_has_order_4_and_its_inverse_undoes_it(size):
    g = spec(size=size, metric="quarter", max_twists=100)
    start = g.initial_state(g.p, make_rng(size))
    for face in "ULFDRB"[:3 if size == 2 else 6]:
        s = start
        for k in range(1, 5):
            s = play(g, s, face)
            assert same_cube(s, start) == (k == 4), (face, k)
        assert same_cube(play(g, start, f"{face} {face}'"), start)
        assert same_cube(play(g, start, f"{face}' {face}"), start)
    h = spec(size=size, metric="half", max_twists=100)
    for face in "ULFDRB"[:3 if size == 2 else 6]:
        assert same_cube(play(h, start, f"{face}2"), play(h, start, f"{face} {face}"))
        assert same_cube(play(h, start, f"{face}'"), play(h, start, f"{face} {face} {face}"))
        assert same_cube(play(h, start, f"{face}2 {face}2"), start)


def test_opposite_faces_commute_and_neighbours_do_not():
    g = spec(size=3, metric="half", max_twists=100)
    start = g.initial_state(g.p, make_rng(5))
    for a, b in (("U", "D"), ("L", "R"), ("F", "B"), ("U2", "D'"), ("R'", "L2")):
        assert same_cube(play(g, start, f"{a} {b}"), play(g, start, f"{b} {a}"))
    for a, b in (("U", "R"), ("U", "F"), ("L", "F"), ("R", "B"), ("D", "L")):
        assert not same_cube(play(g, start, f"{a} {b}"), play(g, start, f"{b} {a}"))


def test_the_2x2x2_twists_never_move_the_drb_corner():
    g = spec(size=2, metric="half", max_twists=1000)
    rng = np.random.default_rng(0)
    s = solved_state(g)
    drb = [3 * 4 + 3, 4 * 4 + 3, 5 * 4 + 2]  # D bottom-right, R bottom-right, B bottom-left (the net's orientation)
    names = " ".join(g.action_names[i] for i in rng.integers(0, g.n_actions, 200))
    s = play(g, s, names)
    assert all(s[HEADER + f] == f for f in drb)
    assert board(g, s).max() <= 6


def test_sexy_move_has_order_6_and_the_superflip_flips_every_edge_in_place():
    g = spec(size=3, metric="half", max_twists=200)
    solved = solved_state(g)
    s = solved
    for k in range(1, 7):
        s = play(g, s, "R U R' U'")
        assert same_cube(s, solved) == (k == 6)
    # Reid's superflip in 20 half-turn twists: every edge in its slot and flipped, every corner solved
    superflip = play(g, solved, "U R2 F B R B2 R U2 L B2 R U' D' R2 F R' L B2 U2 F2")
    b = board(g, superflip)
    assert b[0:8].tolist() == list(range(8)) and not b[8:16].any()
    assert b[16:28].tolist() == list(range(12)) and b[28:40].tolist() == [1] * 12
    assert g.validate(g.p, superflip) == ""
    cp, co, ep, eo = rc.cubies(g.p, superflip)
    assert same_cube(rc.from_cubies(g.p, cp, co, ep, eo), superflip)


# ------------------------------------------------------------------------------------------ 2x2x2 BFS
@njit(cache=True)
def _perm_rank(perm):
    """Lehmer rank of a permutation of 0..len-1."""
    n = perm.shape[0]
    r = 0
    for i in range(n):
        smaller = 0
        for j in range(i + 1, n):
            if perm[j] < perm[i]:
                smaller += 1
        r = r * (n - i) + smaller
    return r


@njit(cache=True)
def _bfs(perm_move, ori_move, levels):
    """Positions per distance from solved, over index perm * 729 + ori, for at most ``levels`` levels."""
    n_perm, n_moves = perm_move.shape
    n_ori = ori_move.shape[0]
    depth = np.full(n_perm * n_ori, -1, dtype=np.int8)
    depth[0] = 0
    counts = np.zeros(levels, dtype=np.int64)
    counts[0] = 1
    for d in range(levels - 1):
        found = 0
        for i in range(n_perm * n_ori):
            if depth[i] != d:
                continue
            pi, oi = i // n_ori, i % n_ori
            for m in range(n_moves):
                j = perm_move[pi, m] * n_ori + ori_move[oi, m]
                if depth[j] < 0:
                    depth[j] = d + 1
                    found += 1
        if found == 0:
            return counts[:d + 1]
        counts[d + 1] = found
    return counts


def _slots(b):
    """Slot-indexed permutation and twists of a 2x2x2 n-tuple board (cells 0..6: each cubie's slot, 7..13: its
    twist)."""
    perm, ori = np.zeros(7, dtype=np.int64), np.zeros(7, dtype=np.int64)
    perm[b[:7]] = np.arange(7)
    ori[b[:7]] = b[7:]
    return perm, ori


@njit(cache=True)
def _perm_unrank(r, n):
    """The permutation of 0..n-1 with Lehmer rank ``r`` (inverse of :func:`_perm_rank`)."""
    digits = np.zeros(n, dtype=np.int64)
    for i in range(n - 1, -1, -1):
        digits[i] = r % (n - i)
        r //= n - i
    free = list(range(n))
    perm = np.zeros(n, dtype=np.int64)
    for i in range(n):
        perm[i] = free.pop(digits[i])
    return perm


@njit(cache=True)
def _coordinate_tables(sigma, delta):
    """Move tables on the permutation rank (7!) and orientation index (3^6, slot 6 implied) of the slots, for
    moves that put the cubie of slot ``sigma[m, k]`` into slot ``k`` and add ``delta[m, k]`` to its twist."""
    n_moves = sigma.shape[0]
    perm_move = np.zeros((5040, n_moves), dtype=np.int64)
    for r in range(5040):
        perm = _perm_unrank(r, 7)
        for m in range(n_moves):
            perm_move[r, m] = _perm_rank(perm[sigma[m]])
    ori_move = np.zeros((729, n_moves), dtype=np.int64)
    ori = np.zeros(7, dtype=np.int64)
    for oi in range(729):
        total = 0
        for k in range(6):
            ori[k] = (oi // 3 ** k) % 3
            total += ori[k]
        ori[6] = (3 - total % 3) % 3
        for m in range(n_moves):
            idx = 0
            for k in range(6):
                idx += ((ori[sigma[m, k]] + delta[m, k]) % 3) * 3 ** k
            ori_move[oi, m] = idx
    return perm_move, ori_move


def _pocket_move_tables(g):
    """Each twist's action on the slots (which slot's cubie comes in, its added twist), read from the kernel's
    twist of the solved cube through the n-tuple board, checked against the kernel on random positions, and
    the move tables on the coordinates built from it."""
    rewards = np.zeros(1)
    after = np.zeros(g.state_size, dtype=np.int32)
    sigma = np.zeros((g.n_actions, 7), dtype=np.int64)
    delta = np.zeros((g.n_actions, 7), dtype=np.int64)
    for a in range(g.n_actions):
        g.afterstate(g.p, solved_state(g), a, after, rewards)
        sigma[a], delta[a] = _slots(board(g, after))
    rng = np.random.default_rng(1)
    for _ in range(40):
        perm = rng.permutation(7)
        ori = rng.integers(0, 3, 7)
        ori[6] = (-ori[:6].sum()) % 3
        s = rc.from_cubies(g.p, np.append(perm, 7), np.append(ori, 0))
        assert _slots(board(g, s))[0].tolist() == perm.tolist()
        for a in range(g.n_actions):
            g.afterstate(g.p, s, a, after, rewards)
            new_perm, new_ori = _slots(board(g, after))
            assert new_perm.tolist() == perm[sigma[a]].tolist()
            assert new_ori.tolist() == ((ori[sigma[a]] + delta[a]) % 3).tolist()
    return _coordinate_tables(sigma, delta)


def _permutations(n):
    import itertools
    return itertools.permutations(range(n))


@pytest.mark.parametrize("metric,counts", [("half", HALF_COUNTS), ("quarter", QUARTER_COUNTS)])
def test_pocket_cube_positions_at_each_distance(metric, counts):
    g = spec(size=2, metric=metric, max_twists=100)
    perm_move, ori_move = _pocket_move_tables(g)
    assert _perm_rank(np.arange(7)) == 0
    found = _bfs(perm_move, ori_move, 30).tolist()
    assert found == counts
    assert sum(found) == POCKET_ORDER == math.factorial(7) * 3 ** 6
    assert len(found) - 1 == rc.GODS_NUMBER[(2, metric)]


# ------------------------------------------------------------------------------------------ 3x3x3 group
def _parity(perm) -> int:
    return sum(1 for i in range(len(perm)) for j in range(i + 1, len(perm)) if perm[i] > perm[j]) % 2


def test_random_3x3x3_scrambles_stay_in_the_group_the_product_formula_counts():
    assert math.factorial(8) * 3 ** 8 * math.factorial(12) * 2 ** 12 // 12 == CUBE_ORDER
    g = spec(size=3, metric="quarter", scramble_min=1, scramble_max=60, max_twists=100)
    rng = make_rng(11)
    parities, twists = set(), set()
    for _ in range(200):
        s = g.initial_state(g.p, rng)
        b = board(g, s)
        corners, corner_twist, edges, edge_flip = b[:8], b[8:16], b[16:28], b[28:40]
        assert sorted(corners) == list(range(8)) and sorted(edges) == list(range(12))
        assert _parity(corners) == _parity(edges)
        assert corner_twist.sum() % 3 == 0 and edge_flip.sum() % 2 == 0
        assert corner_twist.max() <= 2 and edge_flip.max() <= 1
        parities.add(_parity(corners))
        twists.add(tuple(corner_twist))
        assert g.validate(g.p, s) == ""
    assert parities == {0, 1} and len(twists) > 150
    # what the encoding tells apart: a twisted corner or a flipped edge alone is not a position of the group
    s = solved_state(g)
    cp, co, ep, eo = rc.cubies(g.p, s)
    co[0] = 1
    assert "multiple of 3" in g.validate(g.p, rc.from_cubies(g.p, cp, co, ep, eo))
    co[0], eo[0] = 0, 1
    assert "even" in g.validate(g.p, rc.from_cubies(g.p, cp, co, ep, eo))
    eo[0], ep[:2] = 0, [1, 0]
    assert "parity" in g.validate(g.p, rc.from_cubies(g.p, cp, co, ep, eo))


# ------------------------------------------------------------------------------------------ the env
def _start(g, moves):
    """The solved cube after ``moves``, as a start (no twist counted)."""
    s = play(g, solved_state(g), moves)
    s[PLY], s[rc.last_slot(g.p)] = 0, 0
    return s


def test_solving_in_one_twist_ends_the_episode_with_the_reward():
    env = farl_envs.make("rubiks_cube")
    env.reset(seed=0)
    raw = env.unwrapped
    g = raw.game
    raw.set_state(_start(g, "F'"))
    assert raw.afterstate(g.action_names.index("F")).terminal
    assert not raw.afterstate(g.action_names.index("F2")).terminal
    env.step(g.action_names.index("F"))
    assert raw.terminations["player_0"] and not raw.truncations["player_0"]
    assert raw.rewards["player_0"] == pytest.approx(1.0 - 0.04)
    assert "solved" in g.render_text(g.p, raw.state_array)


def test_the_twist_cap_truncates_and_every_twist_costs():
    env = farl_envs.make("rubiks_cube", size=3, metric="quarter", max_twists=3)
    env.reset(seed=4)
    raw = env.unwrapped
    raw.set_state(_start(raw.game, "R"))
    total = 0.0
    for _ in range(3):  # R U U U is not the identity
        assert not raw.state_array[TERMINAL]
        env.step(0)
        total += raw.rewards["player_0"]
    assert raw.truncations["player_0"] and not raw.terminations["player_0"]
    assert total == pytest.approx(-0.12) and raw.state_array[PLY] == 3
    bad = raw.get_state()
    bad[TERMINAL] = 0
    with pytest.raises(ValueError, match="terminal flag"):
        raw.set_state(bad)


def test_the_scramble_depth_range_is_respected():
    # quarter twists are odd permutations of the corners: the parity of the corner permutation is p mod 2
    for p_ in (1, 4, 5, 9):
        g = spec(size=2, metric="quarter", scramble_min=p_, scramble_max=p_)
        rng = make_rng(p_)
        for _ in range(50):
            s = g.initial_state(g.p, rng)
            assert s[PLY] == 0 and not s[TERMINAL] and g.validate(g.p, s) == ""
            assert _parity(board(g, s)[:7]) == p_ % 2
    g = spec(size=2, metric="quarter", scramble_min=3, scramble_max=6)
    rng = make_rng(3)
    assert {_parity(board(g, g.initial_state(g.p, rng))[:7]) for _ in range(60)} == {0, 1}
    # one twist: a neighbour of the solved cube; two half-turn twists never turn one face twice (GBG: no doublets)
    g = spec(size=2, metric="half", scramble_min=1, scramble_max=1)
    one = [stickers(g, play(g, solved_state(g), m)).tolist() for m in g.action_names]
    rng = make_rng(8)
    for _ in range(30):
        assert stickers(g, g.initial_state(g.p, rng)).tolist() in one
    g = spec(size=2, metric="half", scramble_min=2, scramble_max=2)
    for _ in range(200):
        assert stickers(g, g.initial_state(g.p, rng)).tolist() not in one


@pytest.mark.parametrize("params", [{"size": 4}, {"metric": "slice"}, {"scramble_min": 0},
                                    {"scramble_min": 5, "scramble_max": 4}, {"max_twists": 0}, {"size": True}])
def test_bad_parameters_are_refused(params):
    with pytest.raises(ValueError):
        spec(**params)


def test_sizes_observation_and_gym():
    import gymnasium

    g = spec(size=3)
    assert (g.n_actions, g.n_cells, g.n_cell_values, g.obs_shape) == (18, 40, 12, (6, 3, 3))
    assert spec(size=2, metric="quarter").n_actions == 6 and spec().params["scramble_max"] == 11
    env = gymnasium.make("farl/RubiksCube-v0", size=3, metric="quarter")
    obs, _ = env.reset(seed=0)
    assert obs.shape == (6, 3, 3) and obs.dtype == np.int8
    assert [int(obs[f, 1, 1]) for f in range(6)] == list(range(6))  # the centres never move
    assert sorted(np.bincount(obs.reshape(-1)).tolist()) == [9] * 6


# ------------------------------------------------------------------------------------------ no undoing
def legal_names(g, s):
    mask = np.zeros(g.n_actions, dtype=np.int8)
    count = g.legal_actions(g.p, s, mask)
    assert count == mask.sum()
    return {g.action_names[a] for a in np.flatnonzero(mask)}


@pytest.mark.parametrize("size", [2, 3])
def test_after_a_twist_its_inverse_is_not_legal_in_the_quarter_metric(size):
    g = spec(size=size, metric="quarter")
    every = set(g.action_names)
    assert legal_names(g, solved_state(g)) == every  # no twist played: all free
    for twist, inverse in (("U", "U'"), ("U'", "U"), ("F", "F'"), ("L'", "L")):
        assert legal_names(g, play(g, solved_state(g), twist)) == every - {inverse}, twist
    # only the twist just played counts: after U then F, U' is legal again and F' is not
    assert legal_names(g, play(g, solved_state(g), "U F")) == every - {"F'"}
    assert legal_names(g, play(g, solved_state(g), "U U")) == every - {"U'"}  # U twice is a half turn, allowed


def test_in_the_half_turn_metric_the_inverse_of_u_is_u_prime_and_u2_is_its_own():
    g = spec(size=2, metric="half")
    every = set(g.action_names)
    # U' undoes U (a quarter turn back); U2 and U stay legal (they turn on: U2 after U is U', not the start)
    assert legal_names(g, play(g, solved_state(g), "U")) == every - {"U'"}
    assert legal_names(g, play(g, solved_state(g), "U'")) == every - {"U"}
    assert legal_names(g, play(g, solved_state(g), "U2")) == every - {"U2"}
    assert legal_names(g, play(g, solved_state(g), "L F2")) == every - {"F2"}
    # what the barred twist would do: exactly undo the one before
    for first, undo in (("U", "U'"), ("U'", "U"), ("U2", "U2"), ("F", "F'")):
        assert same_cube(play(g, solved_state(g), f"{first} {undo}"), solved_state(g))


@pytest.mark.parametrize("metric", ["half", "quarter"])
def test_allow_undo_gives_every_twist_and_the_first_twist_is_always_free(metric):
    g, old = spec(size=2, metric=metric), spec(size=2, metric=metric, allow_undo=True)
    every = set(g.action_names)
    rng = make_rng(3)
    for _ in range(50):
        start = g.initial_state(g.p, rng)  # a scramble ends on some twist: the agent's first twist is still free
        assert legal_names(g, start) == every
        assert old.validate(old.p, start) == ""
        s = start
        for a in np.random.default_rng(int(start[HEADER])).integers(0, g.n_actions, 5):
            s = play(old, s, g.action_names[a])
            if s[TERMINAL]:  # solved by chance
                break
            assert legal_names(old, s) == every  # the first release's legal twists
            assert len(legal_names(g, s)) == g.n_actions - 1


def test_random_legal_play_never_undoes_a_twist():
    g = spec(size=3, metric="half", max_twists=400)
    mask = np.zeros(g.n_actions, dtype=np.int8)
    rewards = np.zeros(1)
    rng = np.random.default_rng(4)
    s = g.initial_state(g.p, make_rng(4))
    cubes = [s.copy()]
    while not s[TERMINAL]:
        g.legal_actions(g.p, s, mask)
        a = int(rng.choice(np.flatnonzero(mask)))
        g.afterstate(g.p, s, a, s, rewards)
        assert rc.last_twist(g.p, s) == a and g.validate(g.p, s) == ""
        cubes.append(s.copy())
        if len(cubes) >= 3:  # the twist after a twist never gives back the cube before it
            assert not same_cube(cubes[-1], cubes[-3])
    assert len(cubes) == 401


def test_the_last_twist_travels_with_the_state_and_is_validated():
    env = farl_envs.make("rubiks_cube", metric="quarter")
    env.reset(seed=1)
    raw = env.unwrapped
    g = raw.game
    u, u_inv = g.action_names.index("U"), g.action_names.index("U'")
    assert env.observe("player_0")["action_mask"].all()
    env.step(u)
    mask = env.observe("player_0")["action_mask"]
    assert mask[u_inv] == 0 and mask.sum() == g.n_actions - 1
    assert u_inv not in raw.afterstates() and len(raw.afterstates()) == g.n_actions - 1
    saved = raw.get_state()
    assert rc.last_twist(g.p, saved) == u and "the last U" in g.render_text(g.p, saved)
    env.reset(seed=2)
    raw.set_state(saved)
    assert env.observe("player_0")["action_mask"][u_inv] == 0
    for bad, match in ((g.n_actions + 1, "last twist"), (-1, "last twist")):
        s = saved.copy()
        s[rc.last_slot(g.p)] = bad
        assert match in g.validate(g.p, s)
    s = saved.copy()
    s[PLY] = 0
    assert "no twist is played yet" in g.validate(g.p, s)
    # the n-tuple board and the observation read the stickers alone
    fresh = saved.copy()
    fresh[rc.last_slot(g.p)] = 0
    assert board(g, fresh).tolist() == board(g, saved).tolist()
    obs = [np.zeros(g.obs_shape, dtype=np.int8) for _ in range(2)]
    g.observe(g.p, fresh, 0, obs[0])
    g.observe(g.p, saved, 0, obs[1])
    assert np.array_equal(*obs)


def test_the_batched_envs_follow_the_rule():
    from farl_envs import vector

    venv = vector.make("rubiks_cube", num_envs=4, seed=0, metric="quarter", max_twists=6)
    g = venv.game
    venv.reset()
    assert venv.action_masks().all()  # the first twists are free
    for _ in range(12):
        actions = venv.random_actions()
        venv.step(actions)
        states = venv.kernel_states()
        masks = venv.action_masks()
        for i in range(4):
            last = rc.last_twist(g.p, states[i])
            if last < 0:  # a new episode (autoreset)
                assert masks[i].all()
            elif states[i][TERMINAL]:  # awaits its autoreset
                assert last == actions[i] and not masks[i].any()
            else:
                assert masks[i].sum() == g.n_actions - 1 and masks[i][rc.INVERSE[0, 0, last]] == 0
                assert last == actions[i]


@pytest.mark.slow  # compiles the cube's TD loop, which no default test needs otherwise (~40 CPU s)
def test_compiled_self_play_and_the_aec_loop_learn_the_same_under_the_rule():
    """Both training drivers read the legal twists from the same kernel: the same weights from the same seed."""
    from farl_agents.learners import LearnerConfig, NTupleAgent

    cfg = LearnerConfig(alpha=0.25, alpha_final=0.25, epsilon=0.1, tanh_output=False, ntuples="random-walk",
                        ntuple_count=6, ntuple_length=4, episodes=300)
    g = spec(scramble_max=4, max_twists=20)
    fast, generic = NTupleAgent(g, cfg), NTupleAgent(g, cfg)
    fast.train(300)
    generic.train_aec(farl_envs.make("rubiks_cube", scramble_max=4, max_twists=20), 300)
    assert np.count_nonzero(fast.net.weights) > 0 and np.array_equal(fast.net.weights, generic.net.weights)
