"""Cell and action symmetries: a symmetric position's moves are the symmetric moves."""
from __future__ import annotations

import numpy as np
import pytest

import farl_envs
from farl_envs.core.rng import make_rng, rng_choice_mask
from farl_envs.core.spec import HEADER, TERMINAL

# games whose state is the header followed by the n-tuple cells in board order (Sim keeps its out bits after them)
GAMES = [("tictactoe", {}), ("othello", {}), ("game2048", {}), ("nim3p", {}), ("hex", {"size": 5}), ("yavalath", {}),
         ("santorini", {}), ("outer_open_gomoku", {"size": 7}), ("sim", {}), ("sim", {"players": 3, "nodes": 7}),
         ("breakthrough", {}), ("clobber", {}), ("clobber", {"rows": 8, "columns": 8})]


def _random_position(spec, plies, rng):
    s = spec.initial_state(spec.p, rng)
    mask = np.zeros(spec.n_actions, np.int8)
    rew = np.zeros(spec.n_players)
    for _ in range(plies):
        if s[TERMINAL]:
            break
        spec.legal_actions(spec.p, s, mask)
        spec.afterstate(spec.p, s, rng_choice_mask(rng, mask), s, rew)
        if not s[TERMINAL]:
            spec.chance(spec.p, s, rng)
    return s


@pytest.mark.parametrize("game,params", GAMES)
def test_action_symmetries_commute_with_moves(game, params):
    spec = farl_envs.game_spec(game, **params)
    perms, acts = spec.symmetries(spec.p), spec.action_symmetries(spec.p)
    assert perms.shape[0] == acts.shape[0] and acts.shape[1] == spec.n_actions
    assert np.array_equal(perms[0], np.arange(spec.n_cells)) and np.array_equal(acts[0], np.arange(spec.n_actions))
    rng = make_rng(7)
    rew = np.zeros(spec.n_players)
    checked = 0
    for plies in range(1, 12):
        s = _random_position(spec, plies, rng)
        if s[TERMINAL]:
            continue
        mask = np.zeros(spec.n_actions, np.int8)
        spec.legal_actions(spec.p, s, mask)
        for k in range(perms.shape[0]):
            t = s.copy()
            n = spec.n_cells  # the cells come first after the header (Sim keeps its out bits after them)
            t[HEADER:HEADER + n] = s[HEADER:HEADER + n][perms[k]]
            mask_t = np.zeros_like(mask)
            spec.legal_actions(spec.p, t, mask_t)
            for a in np.flatnonzero(mask):
                assert mask_t[acts[k, a]]
                after, after_t = np.empty_like(s), np.empty_like(t)
                spec.afterstate(spec.p, s, int(a), after, rew)
                spec.afterstate(spec.p, t, int(acts[k, a]), after_t, rew)
                assert np.array_equal(after[HEADER:HEADER + n][perms[k]], after_t[HEADER:HEADER + n])
                checked += 1
    assert checked > 50


def test_connect_four_mirror():
    spec = farl_envs.game_spec("connect_four", cols=8)
    assert spec.action_symmetries(spec.p).tolist() == [list(range(8)), list(range(7, -1, -1))]
