"""OpenSpiel's AlphaZero as the study's outside reference (studies/alphazero/openspiel_az.py): the farl <->
OpenSpiel position mapping, and a tiny TicTacToe run played in farl's harness. Skipped without the optional
study dependencies (pip install flax optax chex orbax-checkpoint psutil)."""
import numpy as np
import pytest

pytest.importorskip("pyspiel")
pytest.importorskip("flax")
pytest.importorskip("optax")
pytest.importorskip("chex")
pytest.importorskip("orbax.checkpoint")
pytest.importorskip("psutil")

import pyspiel  # noqa: E402

import farl_envs  # noqa: E402
from farl_envs.core.rng import make_rng, rng_choice_mask  # noqa: E402
from studies.alphazero import openspiel_az  # noqa: E402


@pytest.mark.parametrize("game,params", [("tictactoe", {}), ("connect_four", {}), ("hex", {"size": 6})])
def test_rebuilt_openspiel_positions_follow_farls_games_move_by_move(game, params):
    spec = farl_envs.game_spec(game, **params)
    os_game = pyspiel.load_game(openspiel_az.openspiel_game_string(game, params))
    rng = make_rng(3)
    mask = np.zeros(spec.n_actions, dtype=np.int8)
    rew = np.zeros(spec.n_players)
    for _ in range(20):
        s = spec.initial_state(spec.p, rng)
        while not s[1]:
            os_state = openspiel_az.openspiel_state(os_game, spec, s)
            spec.legal_actions(spec.p, s, mask)
            assert np.flatnonzero(mask).tolist() == sorted(os_state.legal_actions())
            a = int(rng_choice_mask(rng, mask))
            spec.afterstate(spec.p, s, a, s, rew)
            os_state.apply_action(a)
            assert bool(s[1]) == os_state.is_terminal()
        assert rew.tolist() == [float(r) for r in os_state.returns()]


@pytest.mark.slow
def test_a_tiny_tictactoe_run_plays_legal_moves_and_takes_an_immediate_win(tmp_path):
    from farl_agents.evaluate import evaluate

    result = openspiel_az.train("tictactoe", {}, 0.4, 0, tmp_path / "run", verbose=False)
    assert (tmp_path / "run" / result["checkpoint"]).is_dir()
    assert openspiel_az.train("tictactoe", {}, 0.4, 0, tmp_path / "run") == result  # finished: not trained again
    agent = openspiel_az.player(tmp_path / "run", simulations=300)
    spec = agent.spec
    # X (to move) holds 0 and 1 and wins at 2; O holds 3 and 4 and threatens 5 (the tempting block); every
    # symmetry of the position, so a random mover passes with probability 5 ** -8
    base = np.array([1, 1, 0, 2, 2, 0, 0, 0, 0])
    for perm in spec.symmetries(spec.p):
        s = spec.initial_state(spec.p, make_rng(0))
        cells = np.zeros(9, dtype=np.int32)
        cells[perm] = base  # board[perm] is the board seen in that symmetry
        s[3:12] = cells
        s[0], s[2] = 0, 4
        win = [a for a in range(9) if cells[a] == 0 and _wins(cells, a)]
        assert len(win) == 1
        assert agent.act(spec, s, make_rng(1)) == win[0]
    res = evaluate(spec, agent, "random", n_games=2, seed=0)
    assert res.matchups[0].n_games == 4


def _wins(cells, a):
    c = cells.copy()
    c[a] = 1
    lines = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]]
    return any(all(c[i] == 1 for i in line) for line in lines)
