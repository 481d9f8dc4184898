"""``farl ladder`` (issue 40, part 3): the Bradley–Terry / Elo math against numbers worked out by hand, the round
robin on TicTacToe and Nim3P, resuming, and the mistakes a user can make."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from farl_agents import cli
from farl_agents import ladder as ladder_module
from farl_agents.ladder import ELO_PER_NAT, fit_elo, ladder, pairwise, player_names, rate, seatings

QUIET = {"log": lambda text: None}


# ------------------------------------------------------------------ the rating math
def test_a_75_percent_score_is_400_log10_3_elo():
    """P(A beats B) = 1 / (1 + 10^(-D/400)) = 3/4 gives D = 400 log10(3) = 190.85 (no prior: the plain MLE)."""
    elo = fit_elo([[0, 75], [25, 0]], anchor=1, prior_draws=0)
    assert elo[1] == 0.0
    assert elo[0] == pytest.approx(400 * math.log10(3), abs=1e-6)
    assert elo[0] == pytest.approx(190.85, abs=0.01)
    assert ELO_PER_NAT == pytest.approx(400 / math.log(10))


def test_the_anchor_is_zero_and_only_shifts_the_scale():
    points = [[0, 60, 80], [40, 0, 70], [20, 30, 0]]
    by_first, by_last = fit_elo(points, anchor=0, prior_draws=0), fit_elo(points, anchor=2, prior_draws=0)
    assert by_first[0] == 0.0 and by_last[2] == 0.0
    np.testing.assert_allclose(by_first - by_first[2], by_last, atol=1e-6)


def test_ratings_of_a_consistent_bradley_terry_world_are_recovered():
    """Expected points of players rated 0, 100 and 300 Elo: the fit gives back exactly those ratings."""
    true = np.array([0.0, 100.0, 300.0])
    p = 1 / (1 + 10 ** ((true[None, :] - true[:, None]) / 400))
    points = 1000 * p
    np.fill_diagonal(points, 0)
    np.testing.assert_allclose(fit_elo(points, anchor=0, prior_draws=0), true, atol=1e-6)


def test_symmetric_results_give_equal_ratings():
    """Everyone scores half against everyone: all equal, so all at the anchor's 0 (the prior changes nothing)."""
    elo = fit_elo([[0, 30, 50], [30, 0, 50], [50, 50, 0]], anchor=2)
    np.testing.assert_allclose(elo, 0.0, atol=1e-9)
    lopsided = fit_elo([[0, 70, 80], [70, 0, 80], [20, 20, 0]], anchor=2)
    assert lopsided[0] == pytest.approx(lopsided[1], abs=1e-9) and lopsided[0] > 0


def test_a_draw_counts_as_half_a_win():
    """50 wins and 50 draws in 100 games is a 75 % score: 190.85 Elo, as 75 wins and 25 losses."""
    draws = np.r_[np.ones(50), np.full(50, 0.5)]
    wins = np.r_[np.ones(75), np.zeros(25)]
    one = np.ones(100)
    by_draws, _ = rate(2, [(0, 1, draws, one)], anchor=1, prior_draws=0, resamples=2)
    by_wins, _ = rate(2, [(0, 1, wins, one)], anchor=1, prior_draws=0, resamples=2)
    assert by_draws[0] == pytest.approx(400 * math.log10(3), abs=1e-6) == pytest.approx(by_wins[0], abs=1e-6)


def test_winning_everything_stays_finite_with_one_virtual_draw():
    """100 wins of 100 against random and one virtual draw: 100.5 points of 101, odds 201, 400 log10(201) Elo."""
    elo = fit_elo([[0, 100], [0, 0]], anchor=1)
    assert elo[0] == pytest.approx(400 * math.log10(201), abs=1e-6)
    assert np.all(np.isfinite(fit_elo([[0, 10, 10], [0, 0, 10], [0, 0, 0]], anchor=2)))  # a chain of sweeps
    with pytest.raises(ValueError, match="no finite ratings"):
        fit_elo([[0, 100], [0, 0]], anchor=1, prior_draws=0)


def test_bootstrap_error_matches_the_binomial_delta_method():
    """75 of 100: s.e. of the log-odds sqrt(1 / (n p (1 - p))) = 0.231, i.e. 40.1 Elo; the bootstrap agrees within
    its own noise, is reproducible from the seed, and the anchor has none."""
    games = (0, 1, np.r_[np.ones(75), np.zeros(25)], np.ones(100))
    elo, se = rate(2, [games], anchor=1, prior_draws=0, resamples=400, seed=3)
    delta = ELO_PER_NAT * math.sqrt(1 / (100 * 0.75 * 0.25))
    assert delta == pytest.approx(40.1, abs=0.1)
    assert se[0] == pytest.approx(delta, rel=0.2) and se[1] == 0.0
    np.testing.assert_array_equal(se, rate(2, [games], anchor=1, prior_draws=0, resamples=400, seed=3)[1])


def test_pairwise_results_of_a_game_and_the_seatings():
    assert seatings(2) == [(0, 1), (1, 0)]
    three = seatings(3)
    assert len(three) == 6 and len(set(three)) == 6
    for seat in range(3):  # each of the pair alone in every seat once
        assert sum(1 for s in three if s[seat] == 0 and s.count(0) == 1) == 1
        assert sum(1 for s in three if s[seat] == 1 and s.count(1) == 1) == 1
    assert pairwise((0, 1), [1.0, -1.0]) == (1.0, 1, 1, 0, 0)
    assert pairwise((1, 0), [0.0, 0.0]) == (0.5, 1, 0, 1, 0)
    # a alone in seat 1 finishes second: beats the copy of b in seat 2, loses to the one in seat 0
    assert pairwise((1, 0, 1), [1.0, 0.2, 0.0]) == (1.0, 2, 1, 0, 1)
    # b alone in seat 0 wins: both copies of a lose to it
    assert pairwise((1, 0, 0), [1.0, 0.2, 0.0]) == (0.0, 2, 0, 0, 2)


def test_player_names_add_the_anchor_and_refuse_duplicates():
    assert player_names("maxn1, maxn9") == (["maxn1", "maxn9", "random"], True)
    assert player_names(["Random", "mcts10"]) == (["Random", "mcts10"], False)
    with pytest.raises(ValueError, match="named twice"):
        player_names(["maxn1", "MAXN1"])
    with pytest.raises(ValueError, match="at least one player besides random"):
        player_names(["random"])


# ------------------------------------------------------------------ the round robin
@pytest.fixture(scope="module")
def ttt(tmp_path_factory):
    out = tmp_path_factory.mktemp("ladder") / "ttt"
    said = []
    result = ladder("tictactoe", ["maxn1", "maxn9"], games=20, out_dir=out, log=said.append)
    return out, result, said


def test_tictactoe_ladder_ranks_perfect_above_maxn1_above_random(ttt):
    out, result, said = ttt
    assert "farl ladder: added random as the anchor of the scale (Elo 0)" in said
    assert [p["name"] for p in result["players"]] == ["maxn9", "maxn1", "random"]
    assert all(set(p) == {"name", "elo", "elo_se", "games"} for p in result["players"])
    elo = {p["name"]: p["elo"] for p in result["players"]}
    assert elo["random"] == 0.0 and elo["maxn9"] > elo["maxn1"] > 0
    # start+1ply (10 positions) in both seats, 20 games per seat: 40 games per pair, 80 per player
    assert all(p["games"] == 80 for p in result["players"])
    assert len(result["matches"]) == 3 and all(m["games"] == 40 == m["results"] for m in result["matches"])
    by_pair = {(m["a"], m["b"]): m for m in result["matches"]}
    assert by_pair[("maxn9", "random")]["losses"] == 0 and by_pair[("maxn1", "maxn9")]["wins"] == 0
    on_disk = json.loads((out / "ladder.json").read_text())
    assert on_disk["players"] == result["players"] and on_disk["matches"] == result["matches"]
    assert on_disk["anchor"] == "random" and "virtual draw" in on_disk["method"]
    md = (out / "ladder.md").read_text()
    assert "| 1 | `maxn9` |" in md and "ladder('tictactoe'" in md
    assert (out / "ladder.png").read_bytes()[:4] == b"\x89PNG"
    assert len(list((out / "matches").glob("*.json"))) == 3


def test_a_second_run_plays_nothing_and_a_new_player_only_its_pairs(ttt, tmp_path):
    out, first, _ = ttt
    work = tmp_path / "ttt"
    work.mkdir()
    for path in out.iterdir():  # a copy, so the module's fixture stays as it was
        if path.is_dir():
            (work / path.name).mkdir()
            for f in path.iterdir():
                (work / path.name / f.name).write_bytes(f.read_bytes())
        else:
            (work / path.name).write_bytes(path.read_bytes())
    stamps = {p.name: p.stat().st_mtime_ns for p in (work / "matches").iterdir()}
    said = []
    again = ladder("tictactoe", ["maxn9", "random", "maxn1"], games=20, out_dir=work, log=said.append)
    assert {p.name: p.stat().st_mtime_ns for p in (work / "matches").iterdir()} == stamps
    assert not any("playing" in s for s in said) and "3 of 3 matches already" in said[0]
    assert again["players"] == first["players"]
    said.clear()
    more = ladder("tictactoe", ["maxn9", "random", "maxn1", "maxn2"], games=20, out_dir=work, log=said.append)
    assert "farl ladder: playing 3 match(es) of tictactoe_v0" in said
    assert len(list((work / "matches").glob("*.json"))) == 6
    assert {p.name: p.stat().st_mtime_ns for p in (work / "matches").iterdir() if p.name in stamps} == stamps
    assert len(more["players"]) == 4 and more["players"][0]["name"] == "maxn9"
    with pytest.raises(ValueError, match="other settings: games 20 \\(now 5\\)"):
        ladder("tictactoe", ["maxn1"], games=5, out_dir=work, **QUIET)
    with pytest.raises(ValueError, match="openings 'table1' \\(now 'initial'\\)"):
        ladder("tictactoe", ["maxn1"], games=20, openings="initial", out_dir=work, **QUIET)


def test_matches_do_not_depend_on_jobs(ttt, tmp_path):
    out, first, _ = ttt
    parallel = ladder("tictactoe", ["maxn1", "maxn9"], games=20, out_dir=tmp_path / "two", jobs=2, **QUIET)
    assert parallel["matches"] == first["matches"] and parallel["players"] == first["players"]


def test_a_failed_match_is_reported_and_the_others_kept(tmp_path, monkeypatch):
    real = ladder_module.play_match

    def flaky(task):
        if task["b"] == "random" and task["a"] == "maxn2":
            return {"index": task["index"], "a": task["a"], "b": task["b"], "status": "failed", "error": "boom"}
        return real(task)

    monkeypatch.setattr(ladder_module, "play_match", flaky)
    with pytest.raises(RuntimeError, match="1 match\\(es\\) failed .*maxn2 vs random: boom"):
        ladder("tictactoe", ["maxn1", "maxn2"], games=1, out_dir=tmp_path, **QUIET)
    assert len(list((tmp_path / "matches").glob("*.json"))) == 2
    assert not (tmp_path / "ladder.json").exists()


def test_three_player_nim_ladder(tmp_path):
    result = ladder("nim3p", ["maxn1", "maxn2"], games=2, out_dir=tmp_path, **QUIET)
    assert result["n_players"] == 3 and {p["name"] for p in result["players"]} == {"random", "maxn1", "maxn2"}
    # 2 games in each of the 6 seatings; each game holds 2 pairwise results (the lone player against 2 copies)
    assert all(m["games"] == 12 and m["results"] == 24 for m in result["matches"])
    assert all(p["games"] == 24 and math.isfinite(p["elo"]) for p in result["players"])
    assert "3-player games" in result["method"]
    assert all((tmp_path / f).is_file() for f in ("ladder.json", "ladder.md", "ladder.png"))
    match = json.loads(next((tmp_path / "matches").glob("*.json")).read_text())
    assert match["seatings"] == [list(s) for s in seatings(3)] and len(match["records"]) == 12


# ------------------------------------------------------------------ mistakes
@pytest.mark.parametrize("kwargs,needle", [
    ({"players": ["maxn1", "bogus"]}, "'bogus' is neither an agent file"),
    ({"players": ["random"]}, "at least one player besides random"),
    ({"players": []}, "at least one player besides random"),
    ({"games": 0}, "games must be an integer >= 1"),
    ({"openings": "sideways"}, "unknown start states 'sideways'"),
    ({"openings": ("random", 2)}, "openings must be a start-set name"),
    ({"seed": -1}, "seed must be an integer >= 0"),
    ({"game": "game2048"}, "one-player game"),
    ({"game": "chess"}, "unknown game 'chess'"),
])
def test_bad_input_is_refused_before_any_game(kwargs, needle, tmp_path):
    args = {"game": "tictactoe", "players": ["maxn1"], "games": 2, **kwargs}
    with pytest.raises(ValueError, match=needle):
        ladder(args.pop("game"), args.pop("players"), out_dir=tmp_path / "out", **args, **QUIET)
    assert not (tmp_path / "out").exists()


def test_the_command_line(tmp_path, capsys):
    out = tmp_path / "cli"
    assert cli.main(["ladder", "tictactoe", "--players", "maxn1", "--games", "2", "--out", str(out), "--quiet"]) == 0
    said = capsys.readouterr().out
    assert "added random as the anchor" in said and "maxn1" in said and "Elo" in said
    assert "farl ladder tictactoe --players maxn1 --games 2" in (out / "ladder.md").read_text()
    for argv, needle in ((["--players", "maxn1,nobody"], "'nobody' is neither"),
                         (["--players", "random"], "at least one player besides random"),
                         (["--players", "maxn1", "--games", "0"], "--games must be >= 1"),
                         (["--players", "maxn1", "--param", "size=3"], "tictactoe has no parameter size")):
        full = ["ladder", "tictactoe", "--games", "2", "--out", str(tmp_path / "bad"), *argv]
        assert cli.main(full) == 2
        err = capsys.readouterr().err
        assert needle in err and len(err.strip().splitlines()) == 1 and "--debug" not in err


def test_a_match_file_without_all_its_games_is_refused(tmp_path):
    ladder("tictactoe", ["maxn1"], games=1, out_dir=tmp_path, **QUIET)
    path = next((tmp_path / "matches").glob("*.json"))
    match = json.loads(path.read_text())
    match["records"] = match["records"][:-1]
    path.write_text(json.dumps(match))
    with pytest.raises(ValueError, match="does not hold the 2 games of a match: delete it"):
        ladder("tictactoe", ["maxn1"], games=1, out_dir=tmp_path, **QUIET)


def test_a_stopped_ladder_keeps_its_finished_matches_and_the_rerun_plays_the_rest(tmp_path, monkeypatch):
    real, calls = ladder_module.play_match, []

    def stopped_at_the_second(task):
        calls.append(task["index"])
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(task)

    monkeypatch.setattr(ladder_module, "play_match", stopped_at_the_second)
    said = []
    with pytest.raises(KeyboardInterrupt):
        ladder("tictactoe", ["maxn1", "maxn2"], games=1, out_dir=tmp_path, log=said.append)
    assert len(list((tmp_path / "matches").glob("*.json"))) == 1 and not (tmp_path / "ladder.json").exists()
    assert "stopped with 2 match(es) left; the same command again plays them" in said[-1]
    monkeypatch.setattr(ladder_module, "play_match", real)
    said.clear()
    result = ladder("tictactoe", ["maxn1", "maxn2"], games=1, out_dir=tmp_path, log=said.append)
    assert "farl ladder: playing 2 match(es) of tictactoe_v0" in said and len(result["matches"]) == 3
