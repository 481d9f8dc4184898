"""Property tests over random play in every game (hypothesis picks the seeds)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import farl_envs
from farl_envs.core.spec import TERMINAL

GAMES = farl_envs.list_games()
ILLEGAL_PROBES = 32
"""Illegal actions tried per ply (all of them where a game has fewer)."""
PARAMS = {"hex_v0": {"size": 5}, "connect_four_v0": {"cols": 8}, "amazons_v0": {"board_size": 6},
          "chinese_checkers_v0": {"max_moves": 200}}
"""Smaller boards, and a move cap for Chinese Checkers: random play never brings ten pegs home, so every game ran
to the default cap of 1,000 moves (18 s for the 15 examples; 200 moves check the same cap in a fifth of it)."""


def _expected_total(name, n_players):
    return {"nim3p_v0": 1.2}.get(name, 0.0 if n_players == 2 else None)


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_play_masks_termination_and_reward_sums(name, seed):
    rng = np.random.default_rng(seed)
    env = farl_envs.make(name, **PARAMS.get(name, {}))
    env.reset(seed=seed)
    raw = env.unwrapped
    game = raw.game
    totals = dict.fromkeys(raw.possible_agents, 0.0)
    plies = 0
    while not raw.state_array[TERMINAL]:
        mask = raw.action_mask()
        assert mask.any(), "a live position must have a legal action"
        assert raw.observe(raw.agent_selection)["action_mask"].tolist() == mask.tolist()
        for a in np.flatnonzero(mask):
            raw.afterstate(int(a))  # accepted
        illegal = np.flatnonzero(mask == 0)
        # every illegal action in small games; a random sample of them in games with thousands of actions
        # (Lines of Action 8,192, Surakarta 1,296), where checking all of them every ply took minutes
        probe = illegal if illegal.size <= ILLEGAL_PROBES else rng.choice(illegal, ILLEGAL_PROBES, replace=False)
        for a in probe:
            with pytest.raises(ValueError):
                raw.afterstate(int(a))
        if illegal.size:
            with pytest.raises(ValueError):
                env.step(int(rng.choice(illegal)))
        env.step(int(rng.choice(np.flatnonzero(mask))))
        plies += 1
        assert plies <= game.max_plies, "game longer than its bound"
        step_sum = sum(raw.rewards.values())
        if game.n_players == 2:
            assert step_sum == 0.0
        for agent, r in raw.rewards.items():
            totals[agent] += r
    want = _expected_total(name, game.n_players)
    if want is not None:
        assert sum(totals.values()) == pytest.approx(want)
    if name == "poker_v0":  # the chip change over the start chips, at the end: +-1 unless cut off by the cap
        if not any(raw.truncations.values()):
            assert sorted(totals.values()) == [-1.0, 1.0]
    elif game.n_players == 2:  # a win, a loss or a draw; Kuhn poker's chips: 1 or 2 (a bet called)
        wins = ([-1.0, 1.0], [-2.0, 2.0]) if name == "kuhn_poker_v0" else ([-1.0, 1.0], [0.0, 0.0])
        assert sorted(totals.values()) in wins
    if name == "game2048_v0":
        assert totals["player_0"] >= 0
    # after the end nobody has a legal move
    assert not raw.action_mask().any()
