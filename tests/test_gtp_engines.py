"""Engines over GTP: the client against a fake engine written here, and the real GRhino and MoHex where installed.

The fake engine (a Python script run by the test's interpreter) speaks GTP for Hex and plays the first empty
cell of its own board, so a move it makes is legal in farl only if the player kept the engine's board in step
with the harness's (every ``play`` sent, a random opening set up). Its ``FAKE_MODE`` makes it crash once,
crash always, hang or answer garbage at a chosen ``genmove``. It stands in for MoHex through ``FARL_MOHEX``.
"""
from __future__ import annotations

import os
import pickle
import re
import stat
import sys
import time

import numpy as np
import pytest

import farl_envs
from farl_agents.evaluate import evaluate
from farl_agents.opponents import make_opponent, mohex, parse_opponent
from farl_agents.opponents.grhino import GRhinoPlayer, find_grhino, othello_action, othello_vertex
from farl_agents.opponents.gtp import GTPClient, GTPError, find_binary
from farl_agents.opponents.mohex import MoHexPlayer, find_mohex, hex_cell, hex_vertex
from farl_agents.players import RandomPlayer
from farl_envs.core.rng import make_rng
from farl_envs.core.spec import HEADER, TERMINAL, TO_MOVE

FAKE_ENGINE = r'''
import os, sys, time
mode = os.environ.get("FAKE_MODE", "")
when = int(os.environ.get("FAKE_AT", "1"))
flag = os.environ.get("FAKE_FLAG", "")
size, board, genmoves = 0, {}, 0
letters = "abcdefghijklm"
print("a banner line some engines write first", flush=True)
for line in sys.stdin:
    parts = line.split()
    if not parts:
        continue
    cid = parts.pop(0) if parts[0].isdigit() else ""
    cmd, args = parts[0], parts[1:]
    ok, text = True, ""
    if cmd == "quit":
        print(f"={cid}\n", flush=True)
        break
    elif cmd == "boardsize":
        size, board = int(args[0]), {}
    elif cmd == "clear_board":
        board = {}
    elif cmd == "play":
        if args[1] in board:
            ok, text = False, "illegal move"
        board[args[1]] = args[0]
    elif cmd == "genmove":
        genmoves += 1
        if genmoves >= when and mode == "crash_once" and not os.path.exists(flag):
            open(flag, "w").close()
            os._exit(3)
        if genmoves >= when and mode == "crash_always":
            os._exit(4)
        if genmoves >= when and mode == "hang":
            time.sleep(3600)
        if genmoves >= when and mode == "garbage":
            print(f"={cid} zz99\n", flush=True)
            continue
        free = [letters[c] + str(r + 1) for r in range(size) for c in range(size)
                if letters[c] + str(r + 1) not in board]
        text = free[0]
        board[text] = args[0]
    elif cmd.startswith("param_"):
        pass
    else:
        ok, text = False, "unknown command"
    print(f"{'=' if ok else '?'}{cid} {text}\n", flush=True)
'''


@pytest.fixture
def fake_engine(tmp_path, monkeypatch):
    """A fake GTP Hex engine as an executable script; FARL_MOHEX points at it. Returns (path, set_mode)."""
    path = tmp_path / "fake-engine"
    path.write_text(f"#!{sys.executable}\n" + FAKE_ENGINE)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("FARL_MOHEX", str(path))

    def set_mode(mode: str, at: int = 1) -> None:
        monkeypatch.setenv("FAKE_MODE", mode)
        monkeypatch.setenv("FAKE_AT", str(at))
        monkeypatch.setenv("FAKE_FLAG", str(tmp_path / f"crashed-{mode}-{at}"))

    set_mode("")
    return str(path), set_mode


def hex_game(size=5):
    return farl_envs.game_spec("hex", size=size)


def play_out(game, seat_players, state):
    """Play to the end from ``state``; returns the final state (every action checked for legality)."""
    s = np.array(state, dtype=np.int32)
    mask = np.zeros(game.n_actions, dtype=np.int8)
    rewards = np.zeros(game.n_players)
    rng = make_rng(5)
    while not s[TERMINAL]:
        a = seat_players[int(s[TO_MOVE])].act(game, s.copy(), rng)
        game.legal_actions(game.p, s, mask)
        assert mask[a], (a, np.flatnonzero(mask))
        game.afterstate(game.p, s, a, s, rewards)
    return s, rewards


# ------------------------------------------------------------------------------------------- vertices and names
def test_vertices_match_farl_cell_names():
    assert othello_vertex(19) == "d3" and othello_action("D3") == 19 and othello_action("h8") == 63
    assert [othello_action(othello_vertex(a)) for a in range(64)] == list(range(64))
    g = hex_game(7)
    assert hex_vertex(7, 8) == "b2" and hex_cell(7, "G7") == 48
    for cell in range(49):  # the engines' names are farl's own action names
        assert hex_vertex(7, cell) == g.action_names[cell] and hex_cell(7, hex_vertex(7, cell)) == cell
    othello = farl_envs.game_spec("othello")
    assert [othello_vertex(a) for a in range(64)] == list(othello.action_names[:64])
    for bad in ("resign", "swap-pieces", "h1", "a8", "a0", ""):
        with pytest.raises(ValueError):
            hex_cell(7, bad)
    with pytest.raises(ValueError):
        othello_action("pass")


def test_engine_names_parse_strictly():
    assert parse_opponent("grhino").value == 3 and parse_opponent(" GRhino5 ").number == 5
    assert parse_opponent("mohex").value == mohex.DEFAULT_GAMES and parse_opponent("mohex250").number == 250
    for bad, needle in (("grhino0", "level 1..5, got 0"), ("grhino6", "level 1..5"), ("grhino-1", "unknown"),
                        ("mohex0", "simulations 1..10000000, got 0"), ("mohex_5", "unknown"), ("rhino", "unknown")):
        with pytest.raises(ValueError, match=needle):
            parse_opponent(bad)


# ------------------------------------------------------------------------------------------- the fake engine
def test_fake_engine_plays_whole_games_with_random_openings(fake_engine):
    player = MoHexPlayer(100)
    g = hex_game(5)
    # from the start (clear_board + the opponent's move) and from random openings (set up by playing stones)
    for starts in ("initial", ("random", 3)):
        r = evaluate(g, player, RandomPlayer(), start_states=starts, n_games=3, seed=2)
        assert r.matchups[0].n_games == 6
    assert player.client.restarts == 0
    assert player.client.log[0] == "boardsize 5 5" and all(c.startswith("play ") for c in player.client.log[1:])
    player.close()
    assert not player.client.running


def test_the_settings_reach_the_engine_before_the_game(fake_engine):
    player = MoHexPlayer(123, max_time=7)
    assert "param_mohex max_games 123" in player.client.setup and "param_mohex max_time 7" in player.client.setup
    assert "param_game allow_swap 0" in player.client.setup and player.name == "mohex123"


def test_a_crash_restarts_the_engine_once_and_replays_the_game(fake_engine):
    _, set_mode = fake_engine
    set_mode("crash_once", at=3)
    player = MoHexPlayer(100)
    g = hex_game(5)
    final, _ = play_out(g, (player, RandomPlayer()), g.initial_state(g.p, make_rng(0)))
    assert final[TERMINAL] and player.client.restarts == 1


def test_an_engine_that_dies_twice_is_a_clear_error(fake_engine):
    path, set_mode = fake_engine
    set_mode("crash_always", at=1)
    player = MoHexPlayer(100)
    g = hex_game(5)
    with pytest.raises(RuntimeError, match=re.escape(path) + r" died twice in a row .*exited \(code 4\).*genmove b"
                       ) as e:
        play_out(g, (player, RandomPlayer()), g.initial_state(g.p, make_rng(0)))
    assert "f888938" in str(e.value)  # MoHex's known crash and the commit that has none


def test_a_hanging_engine_times_out_and_is_stopped(fake_engine):
    path, set_mode = fake_engine
    set_mode("hang", at=1)
    player = MoHexPlayer(100)
    player.move_timeout = 1.0
    g = hex_game(5)
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=re.escape(path) + r" gave no reply to 'genmove b' within 1 s"):
        player.act(g, g.initial_state(g.p, make_rng(0)), make_rng(1))
    assert time.monotonic() - start < 10 and not player.client.running


def test_a_garbage_move_is_a_clear_error(fake_engine):
    _, set_mode = fake_engine
    set_mode("garbage", at=1)
    player = MoHexPlayer(100)
    g = hex_game(5)
    with pytest.raises(RuntimeError, match=r"answered genmove with 'zz99', not a move of hex"):
        player.act(g, g.initial_state(g.p, make_rng(0)), make_rng(1))


def test_refused_commands_and_banners(fake_engine):
    path, _ = fake_engine
    client = GTPClient([path], timeout=10)
    assert client.command("boardsize 3 3") == ""  # the banner line before the first reply is skipped
    with pytest.raises(GTPError, match=r"refused 'frobnicate': unknown command"):
        client.command("frobnicate")
    assert client.command("genmove b") == "a1"
    client.close()
    assert not client.running


def test_missing_binaries_are_clear_errors(tmp_path, monkeypatch):
    monkeypatch.setenv("FARL_MOHEX", str(tmp_path / "no-such-mohex"))
    assert find_mohex() is None  # an explicit path that names nothing: no fallback to PATH
    with pytest.raises(RuntimeError, match="MoHex was not found .*benzene-vanilla-cmake"):
        MoHexPlayer()
    with pytest.raises(RuntimeError, match="MoHex was not found"):
        make_opponent("mohex100", hex_game(5))
    monkeypatch.setenv("FARL_GRHINO", str(tmp_path / "no-such-rhino"))
    with pytest.raises(RuntimeError, match="apt-get install grhino"):
        GRhinoPlayer(1)
    with pytest.raises(RuntimeError, match="no-such-engine is missing"):
        GTPClient([str(tmp_path / "no-such-engine")]).command("name")
    assert find_binary(["surely-not-an-engine-name"]) is None


def test_a_binary_that_vanishes_is_named(fake_engine, tmp_path):
    path, _ = fake_engine
    player = MoHexPlayer(100)
    g = hex_game(5)
    player.act(g, g.initial_state(g.p, make_rng(0)), make_rng(1))
    player.close()
    os.remove(path)
    with pytest.raises(RuntimeError, match=re.escape(path) + " is missing"):
        player.act(g, g.initial_state(g.p, make_rng(0)), make_rng(1))


def test_unsupported_games_and_sizes_are_refused(fake_engine, monkeypatch):
    player = MoHexPlayer(100)
    othello = farl_envs.game_spec("othello")
    with pytest.raises(ValueError, match="MoHex plays hex only, not othello"):
        player.act(othello, othello.initial_state(othello.p, make_rng(0)), make_rng(1))
    with pytest.raises(ValueError, match="plays hex only"):
        make_opponent("mohex", othello)
    with pytest.raises(ValueError, match="plays othello only"):
        make_opponent("grhino", hex_game(5))
    monkeypatch.setattr(mohex, "SIZES", (3, 5))  # as a build with a smaller MAX_WIDTH would declare
    g = hex_game(7)
    with pytest.raises(ValueError, match=r"MoHex plays Hex sizes 3..5, not 7x7"):
        player.act(g, g.initial_state(g.p, make_rng(0)), make_rng(1))
    with pytest.raises(ValueError, match=r"sizes 3..5, not 7x7"):
        make_opponent("mohex", g)
    assert not player.client.running  # refused before anything was started
    assert player.swap is False and player.pass_action is None


def test_players_pickle_without_their_process(fake_engine):
    player = MoHexPlayer(100)
    g = hex_game(5)
    player.act(g, g.initial_state(g.p, make_rng(0)), make_rng(1))
    assert player.client.running
    copy = pickle.loads(pickle.dumps(player))
    assert not copy.client.running and copy.client.log == player.client.log
    copy.reset()
    final, _ = play_out(g, (copy, RandomPlayer()), g.initial_state(g.p, make_rng(0)))  # started lazily
    assert final[TERMINAL] and copy.client.running
    copy.close()


# ------------------------------------------------------------------------------------------- GRhino
needs_grhino = pytest.mark.skipif(find_grhino() is None,
                                  reason="GRhino's gtp-rhino is not installed (apt-get install grhino)")


def parse_grhino_board(text: str) -> np.ndarray:
    """GRhino's showboard -> farl's 64 cells (0 empty, 1 black X, 2 white O), rank 1 first."""
    rows = [line.split()[1:] for line in text.splitlines() if re.match(r"\s*[1-8] ", line)]
    assert len(rows) == 8
    return np.array([".XO".index(c) for row in rows for c in row], dtype=np.int32)


@needs_grhino
def test_grhino_board_orientation_is_farl_cell_numbering():
    g = farl_envs.game_spec("othello")
    player = GRhinoPlayer(1)
    s = np.asarray(g.initial_state(g.p, make_rng(0)), dtype=np.int32)
    player.client.new_game(["boardsize 8", "clear_board"])
    assert np.array_equal(parse_grhino_board(player.client.command("showboard")), s[HEADER:])
    # black's d3 (farl 19) flips d4 (27): both black afterwards, in farl and in GRhino
    player.client.command("play b d3", game=True)
    after = s.copy()
    g.afterstate(g.p, s, 19, after, np.zeros(2))
    board = parse_grhino_board(player.client.command("showboard"))
    assert board[19] == board[27] == 1 and np.array_equal(board, after[HEADER:])
    # the engine's reply, turned into an action, makes the same board in farl as in GRhino
    reply = player.client.command("genmove w")
    nxt = after.copy()
    g.afterstate(g.p, after, othello_action(reply), nxt, np.zeros(2))
    assert np.array_equal(parse_grhino_board(player.client.command("showboard")), nxt[HEADER:])
    player.close()


@needs_grhino
def test_grhino_plays_whole_games_legally():
    g = farl_envs.game_spec("othello")
    player = make_opponent("grhino1", g)
    # from the start, and from random openings (grhino-setup_board); the harness checks every move
    r = evaluate(g, player, RandomPlayer(), n_games=1, seed=0)
    assert r.matchups[0].n_games == 2
    r = evaluate(g, player, RandomPlayer(), start_states=("random", 4), n_games=4, seed=1)
    m = r.matchups[0]
    assert m.n_games == 8 and m.wins + m.draws + m.losses == 8
    assert m.wins >= 6, "GRhino level 1 should beat random play almost always"
    assert player.client.restarts == 0
    player.close()


@needs_grhino
def test_grhino_follows_passes():
    """A position where black must pass: the pass is answered without GRhino (which skips the side itself),
    then GRhino moves for white from the same position."""
    g = farl_envs.game_spec("othello")
    moves = ("e6 f6 d3 c5 c4 e3 b5 c2 f4 e7 e8 b6 c3 d6 g7 f8 b1 g5 d7 b3 g4 h8 h6 b4 a3 f5 d2 a4 f7 h4 a7 c6 "
             "c7 g8 b2 h5 f3 h7 h3 g3 h2 d8 a5 c8 g6 a6 b7 h1").split()
    s = np.asarray(g.initial_state(g.p, make_rng(0)), dtype=np.int32)
    for m in moves:
        g.afterstate(g.p, s, othello_action(m), s, np.zeros(2))
    mask = np.zeros(65, dtype=np.int8)
    g.legal_actions(g.p, s, mask)
    assert s[TO_MOVE] == 0 and np.flatnonzero(mask).tolist() == [64]
    player = GRhinoPlayer(1)
    assert player.act(g, s.copy(), make_rng(0)) == 64
    g.afterstate(g.p, s, 64, s, np.zeros(2))
    a = player.act(g, s.copy(), make_rng(0))
    g.legal_actions(g.p, s, mask)
    assert mask[a] and a != 64
    player.close()


# ------------------------------------------------------------------------------------------- MoHex
needs_mohex = pytest.mark.skipif(find_mohex() is None,
                                 reason="MoHex is not built: set FARL_MOHEX (docs/engines.md)")


@needs_mohex
@pytest.mark.parametrize("seat", [0, 1])
def test_mohex_winner_agrees_with_farl(seat):
    """On a finished game the engine's own final_score names the winner farl rewarded (colours and
    orientation mapped correctly: black = player_0 connects top and bottom)."""
    g = hex_game(7)
    player = MoHexPlayer(200, seed=1)
    seats = [RandomPlayer(), RandomPlayer()]
    seats[seat] = player
    final, rewards = play_out(g, seats, g.initial_state(g.p, make_rng(0)))
    player.follow(g, final)  # the last move, if the other player made it
    winner = int(np.argmax(rewards))
    assert player.client.command("final_score") == ("B+" if winner == 0 else "W+")
    assert winner == seat, "MoHex with 200 simulations should beat random play on 7x7"
    player.close()


@needs_mohex
def test_mohex_plays_from_random_openings():
    g = hex_game(7)
    player = make_opponent("mohex200", g)
    r = evaluate(g, player, RandomPlayer(), start_states=("random", 2), n_games=2, seed=4)
    m = r.matchups[0]
    assert m.n_games == 4 and m.wins >= 3
    player.close()


# ------------------------------------------------------------------------------------------- Edax's process
FAKE_EDAX = r'''
import os, sys
flag = os.environ.get("FAKE_FLAG", "")
for line in sys.stdin:
    if line.startswith("go"):
        if flag and not os.path.exists(flag):
            open(flag, "w").close()
            os._exit(5)
        print("Edax plays D3", flush=True)
    elif line.startswith("quit"):
        break
'''


def test_edax_runs_on_the_shared_process_layer(tmp_path, monkeypatch):
    """A fake Edax (its own text protocol: setboard, go -> 'Edax plays D3'), crashing at its first move:
    the adapter starts it once more for the same move, then quits it and removes its working folder."""
    from farl_agents.opponents.edax import EdaxPlayer

    path = tmp_path / "edax"
    path.write_text(f"#!{sys.executable}\n" + FAKE_EDAX)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    weights = tmp_path / "eval.dat"
    weights.write_bytes(b"x")
    monkeypatch.setenv("FAKE_FLAG", str(tmp_path / "crashed"))
    edax = EdaxPlayer(1, binary=str(path), eval_file=str(weights))
    g = farl_envs.game_spec("othello")
    assert edax.act(g, g.initial_state(g.p, make_rng(0)), make_rng(1)) == 19
    assert edax._proc is not None and (tmp_path / "crashed").exists()
    folder = edax._dir.name
    copy = pickle.loads(pickle.dumps(edax))
    assert copy._proc is None
    edax.close()
    assert edax._proc is None and not os.path.exists(folder)
    monkeypatch.setenv("FAKE_FLAG", "")
    assert copy.act(g, g.initial_state(g.p, make_rng(0)), make_rng(1)) == 19
    copy.close()


def test_a_refused_setting_stops_the_engine(fake_engine):
    path, _ = fake_engine
    client = GTPClient([path], timeout=10, setup=["frobnicate 1"])
    with pytest.raises(GTPError, match="refused 'frobnicate 1'"):
        client.command("name")
    assert not client.running
