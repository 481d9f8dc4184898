"""Opponent names are parsed strictly, numbers are range-checked, MCTS's node arrays are checked before allocation."""
import pytest

import farl_envs
from farl_agents import cli
from farl_agents.opponents import MCTS, NUMBER_RANGES, make_opponent, parse_opponent
from farl_agents.opponents.mcts import MAX_ITERATIONS
from farl_envs.core.rng import make_rng


@pytest.mark.parametrize("text,kind,number", [
    ("maxn", "maxn", None), ("maxn10", "maxn", 10), (" MaxN7 ", "maxn", 7), ("mcts5000", "mcts", 5000),
    ("MCTS", "mcts", None), ("edax0", "edax", 0), ("ab-dl", "ab-dl", None), ("AB", "ab", None),
    ("bench-gbg", "bench-gbg", None), ("Pretrained", "pretrained", None), ("random", "random", None),
])
def test_documented_forms_parse(text, kind, number):
    name = parse_opponent(text)
    assert (name.kind, name.number) == (kind, number)


@pytest.mark.parametrize("text,needle", [
    ("maxn-1", "unknown opponent 'maxn-1'"), ("mcts-5", "unknown opponent"), ("MCTS_10000", "unknown opponent"),
    ("mcts 5", "unknown opponent"), ("Max-N10", "unknown opponent"), ("abdl", "unknown opponent"),
    ("mcts+5", "unknown opponent"), ("mcts\u0663", "unknown opponent"),  # an Arabic-Indic digit is not a number here
    ("maxn0", "depth 1..100, got 0"), ("maxn101", "depth 1..100"), ("edax61", "depth 0..60"),
    ("mcts0", f"iterations 1..{MAX_ITERATIONS}, got 0"),
    ("mcts99999999999999999999", f"iterations 1..{MAX_ITERATIONS}, got 99999999999999999999"),
    ("", "non-empty"), (None, "non-empty"),
])
def test_other_spellings_and_numbers_out_of_range_are_refused(text, needle):
    with pytest.raises(ValueError, match="maxn<depth>" if "unknown" in needle or "empty" in needle else "takes") as e:
        parse_opponent(text)
    assert needle in str(e.value)


def test_caps_lower_the_range_and_apply_to_the_default():
    assert parse_opponent("mcts200", caps={"mcts": 200}).number == 200
    with pytest.raises(ValueError, match=r"iterations 1\.\.200, got 201"):
        parse_opponent("mcts201", caps={"mcts": 200})
    with pytest.raises(ValueError, match=r"1\.\.500, got 1000"):  # plain "mcts" means 1000 iterations
        parse_opponent("mcts", caps={"mcts": 500})
    assert parse_opponent("mcts5", caps={"mcts": 10**12}).number == 5  # caps never widen the range
    with pytest.raises(ValueError):
        parse_opponent(f"mcts{MAX_ITERATIONS + 1}", caps={"mcts": 10**12})


def test_range_ends_are_accepted_and_build_players(monkeypatch):
    monkeypatch.setenv("FARL_MAX_MEMORY", "1G")  # the same on every machine
    ttt = farl_envs.game_spec("tictactoe")
    lo, hi = NUMBER_RANGES["maxn"]
    assert make_opponent(f"maxn{lo}", ttt).depth == lo and make_opponent(f"maxn{hi}", ttt).depth == hi
    assert make_opponent("mcts1", ttt).iterations == 1
    assert make_opponent(f"mcts{MAX_ITERATIONS}", ttt).iterations == MAX_ITERATIONS  # 10 M TicTacToe nodes: 0.6 GB


def test_mcts_node_memory_is_checked_against_the_limit_before_allocating(monkeypatch):
    hex13 = farl_envs.game_spec("hex", size=13)
    player = MCTS(MAX_ITERATIONS)
    need = player.node_bytes(hex13)
    assert need == (MAX_ITERATIONS + 1) * (4 * 169 + 8 + 8 * 2)
    monkeypatch.setenv("FARL_MAX_MEMORY", str(need - 1))
    with pytest.raises(ValueError, match="search nodes .* the limit is .*FARL_MAX_MEMORY"):
        make_opponent(f"mcts{MAX_ITERATIONS}", hex13)
    with pytest.raises(ValueError, match="search nodes"):  # the Python API checks in the search too
        player.act(hex13, hex13.initial_state(hex13.p, make_rng(0)), make_rng(1))
    assert not hasattr(player, "_bufs")
    monkeypatch.setenv("FARL_MAX_MEMORY", str(need))
    assert player.check_memory(hex13) == need


@pytest.mark.parametrize("iterations", [0, -3, MAX_ITERATIONS + 1, True, 2.0])
def test_mcts_constructor_refuses_bad_iteration_counts(iterations):
    with pytest.raises(ValueError, match=f"1..{MAX_ITERATIONS:,}"):
        MCTS(iterations)


@pytest.mark.parametrize("argv", [
    ["eval", "random", "--game", "tictactoe", "--vs", "maxn-1"],
    ["eval", "random", "--game", "tictactoe", "--vs", "mcts-5"],
    ["eval", "random", "--game", "tictactoe", "--vs", "mcts99999999999999999999"],
    ["train", "tictactoe", "--eval-vs", "maxn0"],
    ["play", "tictactoe", "--agent", "mcts_50"],
])
def test_cli_refuses_bad_opponent_names_in_one_line(argv, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and err.startswith("farl: error: ") and "Traceback" not in err
    assert "maxn<depth>" in err or " takes " in err
    assert not (tmp_path / "runs").exists()


def test_farl_serve_seats_go_through_the_same_parser_with_its_own_caps(tmp_path):
    pytest.importorskip("starlette")
    from farl_agents.serve.app import MAX_MCTS_ITERATIONS, App
    from farl_agents.serve.session import RequestError

    app, ttt = App(tmp_path), farl_envs.game_spec("tictactoe")
    for bad, needle in (("maxn-1", "unknown opponent"), ("mcts_50", "unknown opponent"),
                        (f"mcts{MAX_MCTS_ITERATIONS + 1}", f"1..{MAX_MCTS_ITERATIONS}"), ("mcts0", "got 0")):
        with pytest.raises(RequestError, match=needle):
            app.seat(bad, ttt)
    assert app.seat(" MCTS50 ", ttt).player.iterations == 50


def test_the_path_or_opponent_note_uses_the_parser(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for folder, noted in (("maxn10", True), ("random_runs", False), ("mcts-5", False)):
        (tmp_path / folder).mkdir()
        assert cli.main(["eval", folder, "--game", "tictactoe", "--vs", "random"]) == 2  # a folder, not a run
        err = capsys.readouterr().err
        assert ("is both a path and an opponent name" in err) == noted, (folder, err)
