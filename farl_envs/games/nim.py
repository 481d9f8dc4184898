"""Nim (2 players, normal play) and Nim3P (3 players) as numba kernels.

==================  ===========================================================
players             2 (``nim``) or 3 (``nim3p``); ``player_0`` moves first
parameters          ``heaps=3``, ``heap_size=5`` (items per heap at the start),
                    ``max_take=3`` (a move takes 1..max_take items from one heap);
                    Nim3P also ``extra_rule=True``
actions             ``heaps * max_take``: ``heap * max_take + (k - 1)`` takes
                    ``k`` items from ``heap``
rewards (Nim)       normal play: whoever takes the last item wins, +1 / -1
rewards (Nim3P)     whoever takes the last item gets 0, the next player in turn
                    order wins with 1, the third player gets 0.2 with
                    ``extra_rule`` (else 0); rewards sum to 1.2 (or 1)
observation         ``int8[heaps]``: the item count of each heap
n-tuple board       ``heaps`` cells holding the counts (P = heap_size + 1)
symmetries          all permutations of the heaps
==================  ===========================================================

Nim3P is the three-player test bed of Konen & Bagheri's FARL paper (2020,
Table 1, 3 heaps of 5 with the extra rule). With ``max_take = k`` the
two-player game is solved by Bouton's rule on the heap sizes modulo ``k + 1``.

State: the common header followed by the ``heaps`` counts.

Version history: v0, first release.
"""
from __future__ import annotations

from itertools import permutations

import numpy as np
from numba import njit

from farl_envs.core.kernel_utils import copy_state
from farl_envs.core.spec import HEADER, PLY, TERMINAL, TO_MOVE, GameSpec, check_header, check_int_param
from farl_envs.games._fixed_ntuples import NIM3P_3_HEAPS, NIM_3_HEAPS

# indices into the parameter vector p
P_HEAPS, P_SIZE, P_TAKE, P_PLAYERS, P_EXTRA = 0, 1, 2, 3, 4
EXTRA_RULE_REWARD = 0.2
MAX_HEAPS = 6  # 6! = 720 symmetries; more would make symmetric n-tuple sums impractical


@njit(cache=True)
def initial_state(p, rng):
    s = np.zeros(HEADER + p[P_HEAPS], dtype=np.int32)
    for h in range(p[P_HEAPS]):
        s[HEADER + h] = p[P_SIZE]
    return s


@njit(cache=True)
def legal_actions(p, s, mask):
    mask[:] = 0
    if s[TERMINAL]:
        return 0
    take = p[P_TAKE]
    n = 0
    for h in range(p[P_HEAPS]):
        for k in range(1, min(take, s[HEADER + h]) + 1):
            mask[h * take + k - 1] = 1
            n += 1
    return n


@njit(cache=True)
def afterstate(p, s, a, out, rewards):
    copy_state(s, out)
    take = p[P_TAKE]
    heap, k = a // take, a % take + 1
    mover = s[TO_MOVE]
    n_players = p[P_PLAYERS]
    out[HEADER + heap] -= k
    out[PLY] = s[PLY] + 1
    out[TO_MOVE] = (mover + 1) % n_players
    rewards[:] = 0.0
    for h in range(p[P_HEAPS]):
        if out[HEADER + h] != 0:
            return
    out[TERMINAL] = 1
    if n_players == 2:
        rewards[mover] = 1.0
        rewards[1 - mover] = -1.0
    else:
        rewards[(mover + 1) % 3] = 1.0
        if p[P_EXTRA]:
            rewards[(mover + 2) % 3] = EXTRA_RULE_REWARD


@njit(cache=True)
def observe(p, s, seat, out):
    for h in range(p[P_HEAPS]):
        out[h] = s[HEADER + h]


def validate(p, s) -> str:
    heaps, size, take, n_players = int(p[P_HEAPS]), int(p[P_SIZE]), int(p[P_TAKE]), int(p[P_PLAYERS])
    msg = check_header(s, n_players, HEADER + heaps)
    if msg:
        return msg
    counts = s[HEADER:]
    if np.any((counts < 0) | (counts > size)):
        return f"heap counts must be in 0..{size}"
    removed, ply = int(size * heaps - counts.sum()), int(s[PLY])
    if not ply <= removed <= ply * take:
        return f"{removed} items taken cannot be {ply} moves of 1..{take} items"
    if s[TO_MOVE] != ply % n_players:
        return "player to move does not match the ply count"
    if bool(s[TERMINAL]) != (removed == size * heaps):
        return "terminal flag must be set exactly when all heaps are empty"
    return ""


def render_text(p, s) -> str:
    lines = [f"heap {h}: {'|' * int(c):<{int(p[P_SIZE])}} ({int(c)})" for h, c in enumerate(s[HEADER:])]
    return "\n".join(lines)


def symmetries(p) -> np.ndarray:
    return np.array(list(permutations(range(int(p[P_HEAPS])))), dtype=np.int32)


def action_symmetries(p) -> np.ndarray:
    """Taking k from heap h maps to taking k from the heap where h lands."""
    perms = symmetries(p)
    take = int(p[P_TAKE])
    out = np.empty((perms.shape[0], perms.shape[1] * take), dtype=np.int32)
    for s, perm in enumerate(perms):
        where = np.argsort(perm)  # heap h sits at position where[h] of the permuted board
        for h in range(perms.shape[1]):
            for k in range(take):
                out[s, h * take + k] = where[h] * take + k
    return out


def every_other_heap(p) -> list[list[int]]:
    """The n-tuple cells' neighbours: every other heap (the heaps have no geometry; the grid is only the
    picture's)."""
    heaps = int(p[P_HEAPS])
    return [[j for j in range(heaps) if j != h] for h in range(heaps)]


def _paint(p, s) -> np.ndarray:
    """Heaps as rows of filled cells for ``rgb_array`` rendering."""
    size = int(p[P_SIZE])
    return (np.arange(size)[None, :] < s[HEADER:, None]).astype(np.int32)


def make_spec(heaps: int = 3, heap_size: int = 5, max_take: int = 3,
              n_players: int = 2, extra_rule: bool = True) -> GameSpec:
    """Nim with ``n_players`` (2 or 3) on ``heaps`` heaps of ``heap_size`` items."""
    heaps = check_int_param("heaps", heaps, 1, MAX_HEAPS)
    heap_size = check_int_param("heap_size", heap_size, 1, 30)
    max_take = check_int_param("max_take", max_take, 1, heap_size)
    n_players = check_int_param("n_players", n_players, 2, 3)
    if not isinstance(extra_rule, (bool, np.bool_)):
        raise ValueError(f"extra_rule must be True or False, got {extra_rule!r}")
    three = n_players == 3
    params = {"heaps": heaps, "heap_size": heap_size, "max_take": max_take}
    if three:
        params["extra_rule"] = bool(extra_rule)
    p = np.array([heaps, heap_size, max_take, n_players, int(bool(extra_rule) and three)], dtype=np.int64)
    names = tuple(f"{k}@{h}" for h in range(heaps) for k in range(1, max_take + 1))
    name = "nim3p" if three else "nim"
    fixed = () if heaps != 3 else NIM3P_3_HEAPS if three else NIM_3_HEAPS
    return GameSpec(
        name=name, version=0, params=params, p=p,
        n_players=n_players, n_actions=heaps * max_take, state_size=HEADER + heaps,
        n_cells=heaps, n_cell_values=heap_size + 1, obs_shape=(heaps,), obs_high=heap_size,
        max_plies=heaps * heap_size, reward_range=(0.0, 1.0) if three else (-1.0, 1.0),
        initial_state=initial_state, legal_actions=legal_actions, afterstate=afterstate,
        observe=observe, validate=validate,
        render_text=render_text, symmetries=symmetries, action_symmetries=action_symmetries,
        action_names=names,
        cell_colors=((60, 60, 60), (220, 180, 60)), grid_shape=(heaps, heap_size), paint=_paint,
        cell_neighbours=every_other_heap, fixed_ntuples=fixed, evaluation_starts="start+1ply", view=name,
    )


def make_spec_3p(heaps: int = 3, heap_size: int = 5, max_take: int = 3, extra_rule: bool = True) -> GameSpec:
    """Three-player Nim (Nim3P), the three-player test bed of Konen & Bagheri 2020.

    Nim's rules for three players with Nim3P's rewards, see the module docstring."""
    return make_spec(heaps, heap_size, max_take, n_players=3, extra_rule=extra_rule)


def make_spec_2p(heaps: int = 3, heap_size: int = 5, max_take: int = 3) -> GameSpec:
    """Two-player Nim, see the module docstring."""
    return make_spec(heaps, heap_size, max_take, n_players=2)
