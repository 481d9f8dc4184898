"""Nim and Nim3P rules, checked by hand and against Bouton's theory."""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest

from farl_envs.core.rng import make_rng
from farl_envs.core.spec import HEADER, TERMINAL, TO_MOVE
from farl_envs.games import nim


def _play(spec, moves):
    s = spec.initial_state(spec.p, make_rng(0))
    total = np.zeros(spec.n_players)
    rew = np.zeros(spec.n_players)
    for a in moves:
        mask = np.zeros(spec.n_actions, dtype=np.int8)
        spec.legal_actions(spec.p, s, mask)
        assert mask[a], f"action {a} should be legal"
        out = np.empty_like(s)
        spec.afterstate(spec.p, s, a, out, rew)
        total += rew
        s = out
    return s, total


def test_action_numbering_takes_k_from_heap():
    spec = nim.make_spec_2p(heaps=3, heap_size=5, max_take=3)
    s, _ = _play(spec, [1 * 3 + (2 - 1)])  # take 2 from heap 1
    assert list(s[3:]) == [5, 3, 5] and s[0] == 1


def test_cannot_take_more_than_heap_or_max_take():
    spec = nim.make_spec_2p(heaps=2, heap_size=3, max_take=3)
    s, _ = _play(spec, [1])  # take 2 from heap 0, leaving 1
    mask = np.zeros(spec.n_actions, dtype=np.int8)
    spec.legal_actions(spec.p, s, mask)
    # heap 0 (1 left): only "take 1"; heap 1 (3 left): take 1, 2 or 3
    assert list(mask) == [1, 0, 0, 1, 1, 1]


def test_two_player_last_taker_wins():
    spec = nim.make_spec_2p(heaps=1, heap_size=4, max_take=3)
    # player_0 takes 3, player_1 takes the last one and wins
    s, total = _play(spec, [2, 0])
    assert s[1] == 1 and list(total) == [-1, 1]


@pytest.mark.parametrize("extra,expected", [(True, [0.2, 0.0, 1.0]), (False, [0.0, 0.0, 1.0])])
def test_nim3p_ending(extra, expected):
    spec = nim.make_spec_3p(heaps=1, heap_size=3, max_take=1, extra_rule=extra)
    # p0, p1, p2 each take one; p2 takes the last: p2 gets 0, the next (p0) wins 1,
    # the third (p1) gets 0.2 with the extra rule.
    s, total = _play(spec, [0, 0, 0])
    assert s[1] == 1
    want = {0: 1.0, 1: 0.2 if extra else 0.0, 2: 0.0}
    assert list(total) == [want[0], want[1], want[2]]
    assert sum(total) == pytest.approx(1.2 if extra else 1.0)


def test_bouton_rule_matches_exhaustive_search_on_3x5():
    """Solving farl's own Nim kernels exhaustively gives Bouton's rule.

    The search uses only the spec (initial state, legal moves, afterstates and
    their rewards); the rule, written here independently, says the mover loses
    exactly when the heap sizes modulo ``max_take + 1`` xor to 0.
    """
    heaps, heap_size, max_take = 3, 5, 3
    spec = nim.make_spec_2p(heaps=heaps, heap_size=heap_size, max_take=max_take)

    def children(state):
        """(afterstate, rewards) of every legal move in ``state``, by farl's kernels."""
        mask = np.zeros(spec.n_actions, dtype=np.int8)
        n = spec.legal_actions(spec.p, state, mask)
        assert n == int(mask.sum())
        for a in np.flatnonzero(mask):
            out, rewards = np.empty_like(state), np.zeros(spec.n_players)
            spec.afterstate(spec.p, state, int(a), out, rewards)
            yield out, rewards

    def key_of(state):
        return tuple(int(x) for x in state)

    @lru_cache(maxsize=None)
    def mover_wins(key):
        state = np.array(key, dtype=np.int32)
        mover = state[TO_MOVE]
        for out, rewards in children(state):
            # a finishing move is judged by farl's reward, any other by the opponent's prospects
            if rewards[mover] > 0 if out[TERMINAL] else not mover_wins(key_of(out)):
                return True
        return False

    start = spec.initial_state(spec.p, make_rng(0))
    seen, stack = {key_of(start)}, [start]
    while stack:
        state = stack.pop()
        for out, _ in children(state):
            if not out[TERMINAL] and key_of(out) not in seen:
                seen.add(key_of(out))
                stack.append(out)

    configurations = set()
    for key in seen:
        counts = key[HEADER:]
        configurations.add(counts)
        nim_sum = 0
        for c in counts:
            nim_sum ^= c % (max_take + 1)
        assert mover_wins(key) == (nim_sum != 0), f"heaps {counts}, {key[TO_MOVE]} to move"
    # every heap configuration but the empty (terminal) one was searched
    assert len(configurations) == (heap_size + 1) ** heaps - 1


def test_symmetries_are_heap_permutations():
    spec = nim.make_spec_3p()
    perms = spec.symmetries(spec.p)
    assert perms.shape == (6, 3) and len({tuple(p) for p in perms}) == 6
