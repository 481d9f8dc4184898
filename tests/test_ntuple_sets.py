"""n-tuple sets: the paper's fixed sets, and reproducible random walks / points."""
from __future__ import annotations

import numpy as np
import pytest

import farl_envs
from farl_agents.ntuple.sets import adjacency, fixed_set, random_points_set, random_walk_set


@pytest.mark.parametrize("game,shape,params", [
    ("connect_four", (70, 8), {}), ("othello", (50, 6), {}), ("game2048", (4, 6), {}),
    ("nim", (1, 3), {}), ("nim3p", (2, 3), {}), ("tictactoe", (1, 9), {}),
])
def test_fixed_sets_have_the_paper_sizes(game, shape, params):
    spec = farl_envs.game_spec(game, **params)
    tuples = fixed_set(spec)
    assert tuples.shape == shape
    assert tuples.min() >= 0 and tuples.max() < spec.n_cells
    assert all(len(set(t)) == len(t) for t in tuples.tolist())


def test_connect_four_fixed_tuples_are_connected_walks_on_our_board():
    """Thill et al. 2014's tuples were random walks: in farl's numbering they must still be 8-connected."""
    spec = farl_envs.game_spec("connect_four")
    nbrs = adjacency(spec)
    for t in fixed_set(spec).tolist():
        cells, seen, todo = set(t), {t[0]}, [t[0]]
        while todo:
            c = todo.pop()
            for d in nbrs[c]:
                if d in cells and d not in seen:
                    seen.add(d)
                    todo.append(d)
        assert seen == cells


def test_2048_fixed_tuples_include_two_rectangles():
    tuples = {tuple(sorted(t)) for t in fixed_set(farl_envs.game_spec("game2048")).tolist()}
    assert (0, 1, 4, 5, 8, 9) in tuples and (1, 2, 5, 6, 9, 10) in tuples


@pytest.mark.parametrize("game,params", [("hex", {"size": 6}), ("connect_four", {"cols": 8}), ("othello", {})])
def test_random_walks_are_connected_and_reproducible(game, params):
    spec = farl_envs.game_spec(game, **params)
    a = random_walk_set(spec, 25, 6, seed=4)
    b = random_walk_set(spec, 25, 6, seed=4)
    c = random_walk_set(spec, 25, 6, seed=5)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    nbrs = adjacency(spec)
    for t in a.tolist():
        assert len(set(t)) == 6
        assert all(any(d in t for d in nbrs[x]) for x in t)


def test_random_walks_grow_from_a_random_cell_of_the_tuple():
    """GBG's rule (a random cell of the tuple, then a free neighbour of it) makes compact 6-tuples on Hex 6x6:
    on average 8.06 adjacent cell pairs inside a tuple, where a uniform pick from the tuple's free border gives
    6.91 (20,000 draws of each rule, simulated independently for docs/notes/hex_gap_audit.md)."""
    spec = farl_envs.game_spec("hex", size=6)
    nbrs = adjacency(spec)
    tuples = random_walk_set(spec, 3000, 6, seed=1).tolist()
    pairs = [sum(1 for i, x in enumerate(t) for y in t[i + 1:] if y in nbrs[x]) for t in tuples]
    assert abs(np.mean(pairs) - 8.06) < 0.15


def test_hex_adjacency_is_the_rhombus():
    spec = farl_envs.game_spec("hex", size=3)
    assert sorted(adjacency(spec)[4]) == sorted([3, 5, 1, 7, 2, 6])   # centre: (r,c±1), (r±1,c), (r-1,c+1), (r+1,c-1)
    assert sorted(adjacency(spec)[0]) == [1, 3]


def test_random_points_and_bad_lengths():
    spec = farl_envs.game_spec("tictactoe")
    pts = random_points_set(spec, 5, 4, seed=0)
    assert pts.shape == (5, 4) and all(len(set(t)) == 4 for t in pts.tolist())
    with pytest.raises(ValueError):
        random_points_set(spec, 1, 10, seed=0)
    with pytest.raises(ValueError, match="no fixed"):
        fixed_set(farl_envs.game_spec("hex"))
