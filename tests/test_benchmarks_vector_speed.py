"""benchmarks/vector_speed.py without asserting any speed: the page it writes and its flags."""
from __future__ import annotations

import pytest
from script_modules import load_script


@pytest.fixture(scope="module")
def vector_speed():
    return load_script("benchmarks", "vector_speed")


def test_writes_a_row_per_backend_and_batch_size(vector_speed, tmp_path):
    out = tmp_path / "page.md"
    argv = ["--games", "tictactoe", "--sizes", "1,4", "--backends", "farl,farl-no-obs,openspiel-loop",
            "--seconds", "0.02", "--max-python-envs", "1", "--no-anatomy", "--out", str(out)]
    assert vector_speed.main(argv) == 0
    text = out.read_text()
    rows = {line.split(" | ")[1]: line for line in text.splitlines() if line.startswith("| tictactoe |")}
    assert set(rows) >= {"farl", "farl-no-obs"}
    assert "B |" in rows["farl"]  # memory per env, measured
    if "openspiel-loop" in rows:  # OpenSpiel installed: its Python loop stops at --max-python-envs
        assert "not run (Python loop; see 1)" in rows["openspiel-loop"]
    assert "python benchmarks/vector_speed.py --games tictactoe" in text


def test_unknown_backends_and_sizes_are_refused(vector_speed, tmp_path):
    for argv in (["--backends", "farl,gym"], ["--sizes", "0"]):
        with pytest.raises(SystemExit):
            vector_speed.main(argv + ["--out", str(tmp_path / "x.md")])


@pytest.mark.parametrize("game,params", [("othello", {}), ("hex", {"size": 7}), ("connect_four", {})])
def test_anchors_play_the_real_game(vector_speed, game, params):
    """An anchor is only a ceiling if it plays the game: its random games last as long, on average, as random games
    of farl's own rules (which agree with OpenSpiel move by move). Othello's anchor does not count passes."""
    import numpy as np

    import farl_envs
    from farl_envs.core.rng import make_rng

    loop = {"othello": vector_speed.othello_bitboard_plies, "hex": vector_speed.hex_union_find_plies,
            "connect_four": vector_speed.connect_four_bitboard_plies}[game]
    extra = tuple(params.values())
    seeds = np.random.default_rng(5).integers(1, 2**62, 400)
    anchor = np.array([loop(1, int(s), *extra) for s in seeds], dtype=float)  # n_plies=1: exactly one whole game
    g = farl_envs.game_spec(game, **params)
    rng, mask, rewards, farl = np.random.default_rng(6), np.zeros(g.n_actions, np.int8), np.zeros(2), []
    for _ in range(400):
        s, plies = g.initial_state(g.p, make_rng(0)).copy(), 0
        while not s[1]:
            g.legal_actions(g.p, s, mask)
            a = int(rng.choice(np.flatnonzero(mask)))
            plies += game != "othello" or a != g.n_actions - 1  # Othello's last action is the pass
            g.afterstate(g.p, s, a, s, rewards)
        farl.append(plies)
    se = np.hypot(anchor.std(), np.std(farl)) / np.sqrt(400)
    assert abs(anchor.mean() - np.mean(farl)) < 4 * se
    if game == "hex":  # Hex cannot end drawn: every game is won before or when the board is full
        assert anchor.max() <= 49
