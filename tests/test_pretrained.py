"""The pretrained agents shipped in farl_agents/pretrained/: cards match their files, every entry point loads
them, the TicTacToe agent is really unbeatable, and unknown games are refused with the list of known ones."""
from __future__ import annotations

import fnmatch
import hashlib
import io
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
import tomllib

import farl_envs
from farl_agents import pretrained, zoo
from farl_agents.cli import main
from farl_agents.cli.pretrained import cards_table, read_cards
from farl_agents.learners import LearnerConfig, NTupleAgent
from farl_agents.opponents import make_opponent
from farl_envs.core.rng import make_rng
from farl_envs.core.spec import HEADER, TERMINAL, TO_MOVE
from studies.pretrained.build import STRENGTH_PLAN, build_command, no_loss, run_spec

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = pretrained.available()


def test_the_cheap_games_are_shipped():
    assert {"tictactoe", "nim", "nim3p"} <= set(SHIPPED)


@pytest.mark.parametrize("game", SHIPPED)
def test_card_matches_its_file_and_says_how_it_was_built(game):
    card = pretrained.card(game)
    path = pretrained.agent_path(game)
    data = path.read_bytes()
    assert card["sha256"] == hashlib.sha256(data).hexdigest()
    assert card["size_bytes"] == len(data)
    assert card["file"] == path.name
    assert card["game"] == game
    assert card["command"] == build_command(game, card["budget"])
    assert card["budget"] == "paper"  # shipped agents come from the paper budget, not the quick try-out
    assert card["episodes"] == run_spec(game, "paper").config.episodes
    assert card["farl_version"] and re.fullmatch(r"\d{4}-\d\d-\d\dT.*", card["built"])
    planned = [(m.opponent, m.starts) for m in STRENGTH_PLAN[game]]
    assert [(s["opponent"], s["starts"]) for s in card["strength"]] == planned
    for line in card["strength"]:
        assert np.isfinite(line["score"]) and line["se"] >= 0
        assert sum(s["games"] for s in line["per_seat"]) == line["wins"] + line["draws"] + line["losses"]
    # the file's own metadata tells the same story as the card
    agent = pretrained.load(game)
    assert agent.episodes_done == card["episodes"]
    assert agent.game.params == card["game_params"]
    # shipped without TCL accumulators; settings added to LearnerConfig after the build take their defaults
    assert agent.config == LearnerConfig.from_dict({**card["config"], "tcl": "none"})


def test_package_data_ships_every_agent_and_card():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["farl_agents"]
    folder = ROOT / "farl_agents" / "pretrained"
    files = [p.relative_to(ROOT / "farl_agents").as_posix() for p in folder.iterdir() if p.suffix in (".npz", ".json")]
    assert len(files) == 2 * len(SHIPPED)
    for name in files:
        assert any(fnmatch.fnmatch(name, pat) for pat in patterns), f"{name} is not in farl_agents' package-data"


def test_shipped_agents_fit_the_wheel_budget():
    total = sum(pretrained.agent_path(g).stat().st_size for g in SHIPPED)
    assert total < 25_000_000  # the whole wheel must stay under 30 MB


def test_four_entry_points_load_the_same_agent(capsys, monkeypatch):
    by_class = NTupleAgent.pretrained("tictactoe")
    by_module = pretrained.load("tictactoe_v0")
    by_opponent = make_opponent("Pretrained", "tictactoe")
    assert isinstance(by_opponent, NTupleAgent)
    for other in (by_module, by_opponent):
        assert np.array_equal(other.net.weights, by_class.net.weights)

    # farl play GAME --agent pretrained: the agent opens the game on the empty board when we sit second
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    assert main(["play", "tictactoe", "--agent", "pretrained", "--seat", "1"]) == 0
    out = capsys.readouterr().out
    game = farl_envs.game_spec("tictactoe")
    first = by_class.act(game, game.initial_state(game.p, make_rng(0)), make_rng(0))
    assert f"plays {game.action_names[first].lower()}" in out.lower()

    # farl info lists every shipped agent with its card's command
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    for g in SHIPPED:
        assert build_command(g, "paper") in out


def test_pretrained_nim_brings_its_table1_parameters():
    """Nim's defaults take up to 3; the paper's (and the agent's) rules take up to 5: a name means the agent's."""
    agent = make_opponent("pretrained", "nim")
    assert agent.game.params["max_take"] == 5
    with pytest.raises(ValueError, match="max_take"):
        make_opponent("pretrained", farl_envs.game_spec("nim"))  # the default max_take=3


def _winner(cells) -> int:
    """0 (no line yet) or the mark (1 or 2) that owns a full row, column or diagonal, written here from the
    rules (not the kernel's line table)."""
    b = [cells[0:3], cells[3:6], cells[6:9]]
    lines = [list(r) for r in b] + [[b[r][c] for r in range(3)] for c in range(3)]
    lines += [[b[i][i] for i in range(3)], [b[i][2 - i] for i in range(3)]]
    for line in lines:
        if line[0] != 0 and line.count(line[0]) == 3:
            return line[0]
    return 0


@pytest.mark.parametrize("seat", [0, 1])
def test_tictactoe_agent_never_loses_to_any_reply(seat):
    """Every line an opponent can choose, against the agent's own (greedy) answers: the agent never loses.

    This is stronger than playing Max-N10 (a perfect player that picks one of its equally good moves): it
    covers every opponent, perfect or not. Wins are decided by the test's own line check.
    """
    agent = NTupleAgent.pretrained("tictactoe")
    game = agent.game
    rng = make_rng(7)
    rewards = np.zeros(2)
    finished = {"win": 0, "draw": 0}

    def explore(s):
        cells = [int(v) for v in s[HEADER:HEADER + 9]]
        won = _winner(cells)
        full = all(cells)
        assert bool(s[TERMINAL]) == (won != 0 or full)
        if s[TERMINAL]:
            assert won != 2 - seat, f"the agent (seat {seat}) loses in {cells}"
            finished["win" if won else "draw"] += 1
            return
        if int(s[TO_MOVE]) == seat:
            moves = [agent.act(game, s.copy(), rng)]
        else:
            moves = [c for c in range(9) if cells[c] == 0]
        for a in moves:
            nxt = np.empty_like(s)
            game.afterstate(game.p, s, a, nxt, rewards)
            explore(nxt)

    explore(game.initial_state(game.p, rng))
    assert finished["win"] + finished["draw"] > 50  # many opponent lines were really played out
    assert finished["win"] > 0  # and a weak opponent gets beaten


def test_tictactoe_card_shows_no_loss_to_maxn10():
    for line in pretrained.card("tictactoe")["strength"]:
        assert line["opponent"] == "maxn10" and line["losses"] == 0


@pytest.mark.parametrize("bad", ["chess", "tictactoe_v1", "", "../tictactoe"])
def test_unknown_games_are_refused_with_the_known_ones(bad):
    for load in (NTupleAgent.pretrained, pretrained.load, pretrained.card):
        with pytest.raises(ValueError, match="tictactoe") as info:
            load(bad)
        assert "no pretrained agent" in str(info.value)


def test_games_without_an_agent_are_refused_everywhere(capsys, tmp_path, monkeypatch):
    # every game ships an agent: a package folder holding TicTacToe's alone stands in for one that lacks some
    for name in ("tictactoe.npz", "tictactoe.json"):
        shutil.copy(zoo.FOLDER / name, tmp_path / name)
    monkeypatch.setattr(zoo, "FOLDER", tmp_path)
    assert pretrained.available() == ["tictactoe"]
    missing = "chinese_checkers"
    with pytest.raises(ValueError, match=f"no pretrained agent for '{missing}'.*tictactoe"):
        make_opponent("pretrained", missing)
    assert main(["play", missing, "--agent", "pretrained"]) == 2
    err = capsys.readouterr().err
    assert "no pretrained agent" in err and "tictactoe" in err
    assert main(["pretrained", "build", "chess"]) == 2
    assert "connect_four" in capsys.readouterr().err
    with pytest.raises(ValueError, match="paper, quick"):
        run_spec("tictactoe", "huge")


def test_no_loss_rule():
    ref = [{"opponent": "ab", "starts": "initial", "metric": "win_rate", "score": 0.5, "se": 0.05, "losses": 10}]
    same = [dict(ref[0])]
    noisy = [dict(ref[0], score=0.46, losses=10)]
    worse = [dict(ref[0], score=0.3, losses=30)]
    more_losses = [dict(ref[0], losses=11)]
    assert no_loss(ref, same) and no_loss(ref, noisy)
    assert not no_loss(ref, worse) and not no_loss(ref, more_losses)
    with pytest.raises(ValueError):
        no_loss(ref, [dict(ref[0], opponent="ab-dl")])


def test_readme_table_is_the_generated_one(capsys):
    """docs/pretrained.md's table is `farl pretrained list --markdown`, pasted between its markers."""
    text = (ROOT / "docs" / "pretrained.md").read_text()
    m = re.search(r"<!-- pretrained-table -->\n(.*?)\n<!-- /pretrained-table -->", text, re.S)
    assert m, "docs/pretrained.md lacks the pretrained agents' table markers"
    assert main(["pretrained", "list", "--markdown"]) == 0
    assert m.group(1).strip() == capsys.readouterr().out.strip()
    assert m.group(1).strip() == cards_table(read_cards(pretrained.FOLDER), markdown=True)



def test_build_is_resumable_and_writes_a_matching_card(tmp_path, capsys):
    """`farl pretrained build` stopped part-way continues the same run, then measures and writes file + card."""
    runs, out = tmp_path / "runs", tmp_path / "zoo"
    args = ["pretrained", "build", "tictactoe", "--budget", "quick", "--runs", str(runs), "--out", str(out),
            "--quiet"]
    assert main(args + ["--stop-after", "1000"]) == 0
    assert "continue with: farl pretrained build tictactoe --budget quick" in capsys.readouterr().out
    assert not (out / "tictactoe.json").exists()
    assert main(args) == 0
    card = read_cards(out)[0]
    assert card["episodes"] == 3_000 and card["budget"] == "quick"
    assert card["command"] == "farl pretrained build tictactoe --budget quick"
    assert card["sha256"] == hashlib.sha256((out / "tictactoe.npz").read_bytes()).hexdigest()
    assert NTupleAgent.load(out / "tictactoe.npz").episodes_done == 3_000
    assert main(["pretrained", "list", "--dir", str(out)]) == 0
    assert "tictactoe: 3,000 episodes" in capsys.readouterr().out


@pytest.mark.slow
def test_built_wheel_holds_the_agents_and_cards(tmp_path):
    """A wheel built from the tracked files contains every shipped agent and card (and stays under 30 MB)."""
    import shutil
    import subprocess
    import sys
    import zipfile

    if shutil.which("git") is None:
        pytest.skip("needs git to list the tracked files")
    src = tmp_path / "src"
    archive = subprocess.run(["git", "archive", "HEAD"], cwd=ROOT, capture_output=True, check=True).stdout
    src.mkdir()
    subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
    subprocess.run([sys.executable, "-m", "pip", "wheel", ".", "--no-deps", "--no-build-isolation", "-q", "-w",
                    str(tmp_path / "dist")], cwd=src, check=True)
    wheel = next((tmp_path / "dist").glob("farl_rl-*.whl"))
    assert wheel.stat().st_size < 30_000_000
    names = set(zipfile.ZipFile(wheel).namelist())
    for game in SHIPPED:
        assert {f"farl_agents/pretrained/{game}.npz", f"farl_agents/pretrained/{game}.json"} <= names
    assert not any(n.startswith("studies/") for n in names), "the studies are not part of the wheel"


def test_an_agent_that_learned_nothing_is_not_shipped(tmp_path, monkeypatch):
    """A build whose weights are all still 0 (Chinese Checkers' preset: no self-play game reaches a win inside
    its move limit, so every reward is 0) plays at random: it is refused, and nothing is written."""
    from types import SimpleNamespace

    from farl_agents.learners import paper_config
    from farl_agents.runs.spec import RunError
    from studies.pretrained import build as build_module

    blank = NTupleAgent("nim", paper_config("nim"))
    run = SimpleNamespace(trainer=SimpleNamespace(agent=blank, done=20_000), folder=tmp_path / "run")
    monkeypatch.setattr(build_module, "train", lambda *a, **k: (run, "done"))
    with pytest.raises(RunError, match="every weight is still 0"):
        build_module.build("nim", out_dir=tmp_path / "zoo", log=lambda *a: None)
    assert not (tmp_path / "zoo").exists()


def test_an_all_zero_table_round_trips_in_every_masked_format(tmp_path):
    from farl_agents.learners import paper_config

    agent = NTupleAgent("nim", paper_config("nim"))
    for fmt in ("levels", "float16", "float32"):
        loaded = NTupleAgent.load(agent.save(tmp_path / f"{fmt}.npz", weight_format=fmt))
        assert not loaded.net.weights.any()
