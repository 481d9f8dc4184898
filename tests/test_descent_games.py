"""The descent family on the games of Cohen-Solal 2020's comparisons: whole-turn expansion (Amazons),
the Amazons score, the per-game table, and tiny-budget cells of descent and TD-FARL on every new game."""
from __future__ import annotations

import json

import numpy as np
import pytest

import farl_envs
from farl_agents.descent.agent import DescentAgent, load_agent
from farl_agents.descent.evaluation import NTupleEvaluation
from farl_agents.descent.expand import Expander
from farl_agents.descent.heuristics import make_heuristic
from farl_agents.evaluate import evaluate
from farl_envs.core.rng import make_rng
from farl_envs.games import amazons
from studies.descent import games_report, games_runner, paper_games

NEW_GAMES = ["clobber", "santorini", "breakthrough6", "oogomoku9", "surakarta", "loa", "amazons6"]


def _start(game):
    return np.ascontiguousarray(game.initial_state(game.p, make_rng(0)), dtype=np.int32)


def test_amazons_children_are_whole_turns():
    game = farl_envs.game_spec("amazons", board_size=6)
    s = _start(game)
    ex = Expander(game)
    acts, states, boards, term, res, pieces = ex(s)
    buf = np.zeros((4 * 36 * 36, 3), dtype=np.int32)
    k = amazons.turn_moves(game.p, s.copy(), buf)
    assert len(acts) == k and len(set(acts.tolist())) == k
    assert {tuple(r) for r in buf[:k].tolist()} == {tuple(ex.decode(a)) for a in acts}
    assert (states[:, 0] == 1).all()  # every child is the opponent's turn
    assert boards.max() == 3  # no lifted-queen marker: only positions after the arrow
    rewards = np.zeros(2)
    for i in (0, k // 2, k - 1):  # the coded actions, replayed through the kernels, give the child
        t = s.copy()
        for a in ex.decode(acts[i]):
            t2 = t.copy()
            game.afterstate(game.p, t, a, t2, rewards)
            t = t2
        assert np.array_equal(t, states[i])


def test_amazons_mid_turn_expansion_completes_the_turn():
    game = farl_envs.game_spec("amazons", board_size=6)
    s = _start(game)
    mask = np.zeros(game.n_actions, dtype=np.int8)
    game.legal_actions(game.p, s, mask)
    queen = int(np.flatnonzero(mask)[0])
    mid = s.copy()
    game.afterstate(game.p, s, queen, mid, np.zeros(2))
    acts = Expander(game)(mid)[0]
    buf = np.zeros((4 * 36 * 36, 3), dtype=np.int32)
    k = amazons.turn_moves(game.p, s.copy(), buf)
    assert len(acts) == int((buf[:k, 0] == queen).sum())
    assert all(len(Expander(game).decode(a)) == 2 for a in acts)


def test_descent_agent_plays_amazons_turn_by_decision():
    game = farl_envs.game_spec("amazons", board_size=6)
    ev = NTupleEvaluation(game, 1.0, True)
    ev.weights[:] = np.random.default_rng(1).normal(0, 0.1, ev.weights.shape).astype(np.float32)
    agent = DescentAgent(game, ev, make_heuristic("classic", game), "ubfms", iterations=5)
    res = evaluate(game, [agent], ["random"], n_games=1, start_states=("random", 1), seed=3)
    assert res.matchups[0].n_games == 2  # both seats, a mid-turn start included; every action was legal


def _reachable_empty(cells: np.ndarray, n: int, mark: int) -> int:
    """Empty squares a queen of ``mark`` reaches in any number of queen moves over empty squares (BFS)."""
    grid = cells.reshape(n, n)
    seen, frontier = set(), [(r, c) for r in range(n) for c in range(n) if grid[r, c] == mark]
    while frontier:
        r, c = frontier.pop()
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                if dr == dc == 0:
                    continue
                rr, cc = r + dr, c + dc
                while 0 <= rr < n and 0 <= cc < n and grid[rr, cc] == 0:
                    if (rr, cc) not in seen:
                        seen.add((rr, cc))
                        frontier.append((rr, cc))
                    rr, cc = rr + dr, cc + dc
    return len(seen)


def test_amazons_score_is_the_winners_territory():
    """The score of a finished random game (Amazons declares the winner's territory, Cohen-Solal 2020's Remark 2):
    +- the empty squares the winner's queens reach, + when player_0 won (w = its final reward)."""
    game = farl_envs.game_spec("amazons", board_size=6)
    h = make_heuristic("score", game)
    rng = np.random.default_rng(0)
    mask = np.zeros(game.n_actions, dtype=np.int8)
    seen = set()
    for _ in range(12):  # random games to their end
        s, total = _start(game), np.zeros(2)
        while not s[1]:
            game.legal_actions(game.p, s, mask)
            t, rewards = s.copy(), np.zeros(2)
            game.afterstate(game.p, s, int(rng.choice(np.flatnonzero(mask))), t, rewards)
            s, total = t, total + rewards
        w = int(total[0])
        territory = _reachable_empty(s[3:3 + 36], 6, 1 if w > 0 else 2)
        assert h.value(w, int(s[2]), state=s) == w * territory
        seen.add((w, territory > 0))
    assert {1, -1} <= {w for w, _ in seen} and any(reached for _, reached in seen)
    with pytest.raises(ValueError, match="score"):
        make_heuristic("score", farl_envs.game_spec("clobber"))
    with pytest.raises(ValueError, match="pieces"):
        make_heuristic("presence", game)


def test_game_table_heuristics_are_accepted_and_setup_checks_games():
    for gs in paper_games.GAMES.values():
        spec = farl_envs.game_spec(gs.game, **gs.params)
        for h in gs.heuristics:
            make_heuristic(h, spec)  # raises if the table names a heuristic the game does not have
    assert set(paper_games.GAMES) >= set(NEW_GAMES) | {"hex6", "othello"}
    assert paper_games.setup("tictactoe").game == "tictactoe"
    with pytest.raises(ValueError, match="two-player game without chance"):
        paper_games.setup("game2048")
    with pytest.raises(ValueError, match="unknown game"):
        paper_games.setup("chess")


DESCENT_BY_DEFAULT = {"clobber", "breakthrough6", "oogomoku9", "surakarta", "amazons6"}
"""The games the default run trains descent on; Santorini and Lines of Action (~7 and ~5 s, compiling their
searches) with ``-m slow``."""


@pytest.mark.parametrize("key", [pytest.param(k, marks=[] if k in DESCENT_BY_DEFAULT else [pytest.mark.slow])
                                 for k in NEW_GAMES])
def test_descent_runs_on_every_new_game(tmp_path, key):
    gs = paper_games.GAMES[key]
    b = games_runner.budget(gs, {"train_seconds": 0.3, "move_seconds": 0.003})
    variant = "descent-score" if "score" in gs.heuristics else "descent-tree"
    rec = games_runner.train_cell(tmp_path, gs, variant, 0, b, log=lambda *a, **k: None)
    assert rec["games"] >= 1 and sum(rec["results_first_draw_second"]) == rec["games"]
    game = farl_envs.game_spec(gs.game, **gs.params)
    agent = load_agent(games_runner.cell_folder(tmp_path, key, variant, 0) / "agent.npz", game, search="ab",
                       depth=1)
    res = evaluate(game, [agent], ["random"], n_games=1, start_states=("random", gs.opening_plies), seed=0)
    assert res.matchups[0].n_games == 2


@pytest.mark.parametrize("key", NEW_GAMES)
def test_td_farl_learns_on_every_new_game_through_the_aec_loop(key):
    """TD-FARL's turn loop over the AEC env (the same compiled steps as the fast loop, see
    test_equivalence.py) on each new game: it plays whole games and changes the weights."""
    from farl_agents.learners.agent import NTupleAgent
    from studies.descent.experiments import td_config

    gs = paper_games.GAMES[key]
    agent = NTupleAgent(gs.game, td_config(gs.game, 0, episodes=3), **gs.params)
    agent.train_aec(farl_envs.make(gs.game, **gs.params), 3)
    assert agent.episodes_done == 3 and np.count_nonzero(agent.net.weights) > 0


# The compiled self-play loop is specialised per game (~30 CPU s of numba compiling each), so these run with
# ``-m slow``; the default suite trains TD-FARL on every new game through the AEC loop above, whose steps are
# the compiled loop's (tests/test_equivalence.py).
@pytest.mark.slow
@pytest.mark.parametrize("key", NEW_GAMES)
def test_td_farl_trains_compiled_on_every_new_game(tmp_path, key):
    from farl_agents.learners.agent import NTupleAgent
    from studies.descent.experiments import train_td

    gs = paper_games.GAMES[key]
    info = train_td(gs.game, gs.params, 0.2, 0, tmp_path / "td.npz", probe_episodes=4)
    assert info["episodes"] >= 2
    assert NTupleAgent.load(tmp_path / "td.npz").episodes_done == info["episodes"]


@pytest.mark.slow  # ~6 s: the games study's cells and report
def test_cells_are_cached_and_merged_into_the_report(tmp_path):
    key = "clobber"
    over = {"train_seconds": 0.3, "move_seconds": 0.003, "openings": 1}
    quiet = {"log": lambda *a, **k: None}
    games_runner.run_game(tmp_path, key, [0, 1], ["heuristic"], over, **quiet)
    gs = paper_games.GAMES[key]
    names = paper_games.variants_of("heuristic", gs)
    assert names == ["descent-tree", "descent-depth-add", "descent-depth-mul", "descent-mobility"]
    marks = {v: (games_runner.cell_folder(tmp_path, key, v, 0) / "cell.json").stat().st_mtime_ns for v in names}
    games_runner.run_game(tmp_path, key, [0, 1], ["heuristic"], over, **quiet)  # all cached: nothing reruns
    assert marks == {v: (games_runner.cell_folder(tmp_path, key, v, 0) / "cell.json").stat().st_mtime_ns
                     for v in names}
    summary = games_runner.collect(tmp_path, [key, "hex6"], [0, 1, 2])
    exp = summary["games"][key]["experiments"]["heuristic"]
    assert exp["reps_done"] == [0, 1]
    t0 = json.loads(games_runner.tournament_file(tmp_path, key, "heuristic", 0).read_text())
    t1 = json.loads(games_runner.tournament_file(tmp_path, key, "heuristic", 1).read_text())
    for v in names:
        r = exp["variants"][v]
        assert r["per_rep"] == [t0["variants"][v]["win_pct"], t1["variants"][v]["win_pct"]]
        assert r["mean"] == pytest.approx(np.mean(r["per_rep"]))
    # every variant meets every other: the win rates of one repetition average to 50 %
    assert np.mean([t0["variants"][v]["win_pct"] for v in names]) == pytest.approx(50.0)
    md = games_report.markdown(summary, "CMD", "nice CMD")
    assert "cumulative mobility" in md and "Hex 6×6" in md and "nice CMD" in md
    assert "(2 of 3 reps run)" in md and "not run" in md
    claim = paper_games.CLAIMS["heuristic"][1][1]
    each = sum(claim({v: t["variants"][v]["win_pct"] for v in names}) for t in (t0, t1))
    assert f"{each}/2 (2 of 3 reps run)" in md


def test_paper_orderings_on_hand_made_win_rates():
    holds = {exp: lambda w, exp=exp: [fn(w) for _, fn in paper_games.CLAIMS[exp]] for exp in paper_games.CLAIMS}
    data = {"id-tree": 60, "mcts-tree": 50, "id-root": 40, "mcts-root": 45, "id-terminal": 70, "mcts-terminal": 30}
    assert holds["data"](data) == [True]  # 55 > max(42.5, 50)
    assert holds["data"]({**data, "mcts-terminal": 45}) == [False]  # terminal's mean 57.5 is higher
    search = {"descent-tree": 70, "ubfm-tree": 60, "mcts-tree": 40, "mcts-root": 30, "id-tree": 50, "id-root": 50}
    assert holds["search"](search) == [True, True]
    assert holds["search"]({**search, "ubfm-tree": 75, "id-tree": 76}) == [False, False]
    heur = {"descent-tree": 30, "descent-depth-add": 60, "descent-depth-mul": 50, "descent-mobility": 55}
    assert holds["heuristic"](heur) == [True, True]
    assert holds["heuristic"]({**heur, "descent-score": 59}) == [True, False]  # score exists but is not best
    assert holds["heuristic"]({**heur, "descent-mobility": 65, "descent-tree": 52}) == [False, False]


def test_experiments_entry_writes_the_games_report_and_refuses_bad_input(tmp_path):
    from studies.descent.experiments import main

    report, summary = tmp_path / "r.md", tmp_path / "s.json"
    args = ["--stage", "games-report", "--out", str(tmp_path / "none"), "--games", "hex6,clobber", "--reps", "2",
            "--report", str(report), "--summary", str(summary)]
    assert main(args) == 0
    assert "Hex 6×6 (data 0/2, search 0/2, heuristic 0/2)" in report.read_text()
    assert json.loads(summary.read_text())["games"]["clobber"]["experiments"]["data"]["reps_done"] == []
    with pytest.raises(SystemExit, match="unknown game 'chess'"):
        main(args[:4] + ["--games", "chess"])
    with pytest.raises(SystemExit, match="unknown experiment"):
        main(args + ["--experiments", "speed"])
    with pytest.raises(SystemExit, match="reps"):
        main(args[:6] + ["--reps", "0"])
