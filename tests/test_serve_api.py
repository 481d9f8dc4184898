"""`farl serve`'s JSON API (starlette's TestClient): every endpoint, the rules it enforces, and bad requests.

The games are played with the games' kernels on the server; the checks here
use facts independent of the server code: Max-N at full depth never loses
TicTacToe, a Nim heap shrinks by exactly what was taken, the served folder's
files are the ones the test wrote, and requests naming things outside it
are refused.
"""
from __future__ import annotations

import json
import os
import threading
import warnings

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")  # starlette's TestClient

with warnings.catch_warnings():  # starlette asks for httpx2 instead of httpx; both work
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

import farl_envs  # noqa: E402
from farl_agents.cli import main  # noqa: E402
from farl_agents.learners import NTupleAgent, paper_config  # noqa: E402
from farl_agents.players import CallablePlayer  # noqa: E402
from farl_agents.runs.curve import write_curve  # noqa: E402
from farl_agents.serve import create_app  # noqa: E402


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A served folder with one TicTacToe agent file, one run folder, and a file outside it."""
    root = tmp_path_factory.mktemp("served")
    agent = NTupleAgent("tictactoe", paper_config("tictactoe", episodes=400))
    agent.train(200)
    agent.save(root / "agents" / "ttt.npz")
    run = root / "runs" / "demo"
    run.mkdir(parents=True)
    write_curve(run / "curve.csv", [
        {"episode": 0, "wall_seconds": 1.0, "score_maxn15": 0.25, "se_maxn15": 0.1},
        {"episode": 100, "wall_seconds": 2.0, "score_maxn15": 0.5, "se_maxn15": 0.05}], ["maxn15"])
    (run / "eval.json").write_text(json.dumps({"metric": "win_rate", "matchups": [
        {"player": "td-farl", "opponent": "Max-N15", "n_games": 10, "win_rate": 0.45, "win_rate_se": 0.05}]}))
    outside = tmp_path_factory.mktemp("outside")
    (outside / "secret.npz").write_bytes(b"not yours")
    os.symlink(outside, root / "link-out")
    return root, agent


@pytest.fixture(scope="module")
def client(served):
    with TestClient(create_app(served[0], time_limit=30), base_url="http://127.0.0.1") as c:
        yield c


def new(client, game, seats, **kw):
    r = client.post("/api/new", json={"game": game, "seats": seats, **kw})
    assert r.status_code == 200, r.text
    return r.json()


def test_index_and_static_pages_are_local(client):
    page = client.get("/")
    assert page.status_code == 200 and "<svg" in page.text
    assert "http://" not in page.text.replace('xmlns="http://www.w3.org/2000/svg"', "")  # no CDN
    js = client.get("/static/app.js")
    assert js.status_code == 200 and "fetch(" in js.text and "https://" not in js.text


def test_games_lists_every_registered_game_with_its_default_parameters(client):
    games = {g["id"]: g for g in client.get("/api/games").json()}
    assert set(games) == set(farl_envs.list_games())
    for gid, g in games.items():
        spec = farl_envs.game_spec(gid[:-3])
        assert g["params"] == spec.params and g["n_players"] == spec.n_players
    names = {gid: [o["name"] for o in g["opponents"]] for gid, g in games.items()}
    assert "ab" in names["connect_four_v0"] and "ab-dl" in names["connect_four_v0"]
    assert "bench" in names["othello_v0"] and "bouton" in names["nim_v0"]
    assert "basic-strategy" in names["blackjack_v0"]
    assert "equity" in names["poker_v0"] and "call" in names["poker_v0"]
    assert "maxn" not in names["game2048_v0"]  # chance events: Max-N cannot search it
    assert games["tictactoe_v0"]["cell_actions"] and not games["connect_four_v0"]["cell_actions"]


def test_tictactoe_against_maxn_never_won_and_undo(client):
    rng = np.random.default_rng(5)
    for _ in range(3):
        v = new(client, "tictactoe", ["human", "maxn"])
        assert v["board"] == [0] * 9 and len(v["legal"]) == 9 and v["human_to_move"]
        first = True
        while not v["terminal"]:
            if v["human_to_move"]:
                a = int(rng.choice([m["action"] for m in v["legal"]]))
                v = client.post(f"/api/game/{v['id']}/move", json={"action": a}).json()
                assert v["board"][a] == 1  # X is player_0's mark in the n-tuple board
                if first:  # undo takes back the move (and nothing else was played yet)
                    first = False
                    back = client.post(f"/api/game/{v['id']}/undo", json={}).json()
                    assert back["board"] == [0] * 9 and back["moves"] == []
                    v = client.post(f"/api/game/{v['id']}/move", json={"action": a}).json()
            else:
                v = client.post(f"/api/game/{v['id']}/agent", json={}).json()
        assert v["result"] in ("draw", "you lose")
        assert v["totals"][0] <= 0
        assert [m["seat"] for m in v["moves"]] == [i % 2 for i in range(len(v["moves"]))]


def test_undo_takes_back_the_agents_reply_too(client):
    v = new(client, "connect_four", ["human", "random"])
    v = client.post(f"/api/game/{v['id']}/move", json={"action": 3}).json()
    v = client.post(f"/api/game/{v['id']}/agent", json={}).json()
    assert len(v["moves"]) == 2 and v["human_to_move"]
    back = client.post(f"/api/game/{v['id']}/undo", json={}).json()
    assert back["moves"] == [] and back["to_move"] == 0 and not any(x in (1, 2) for x in back["board"])
    r = client.post(f"/api/game/{v['id']}/undo", json={})
    assert r.status_code == 409 and "nothing to undo" in r.json()["error"]


def test_nim3p_in_one_seat(client):
    v = new(client, "nim3p", ["maxn10", "human", "random"])
    while not v["terminal"]:
        if v["human_to_move"]:
            assert v["to_move"] == 1
            heaps = list(v["board"])
            m = v["legal"][0]
            take, heap = (int(x) for x in m["name"].split("@"))
            v = client.post(f"/api/game/{v['id']}/move", json={"action": m["action"]}).json()
            assert v["board"][heap] == heaps[heap] - take
        else:
            r = client.post(f"/api/game/{v['id']}/agent", json={})
            assert r.status_code == 200
            v = r.json()
    assert sum(v["board"]) == 0 and v["result"]


def test_game2048_alone_records_the_new_tiles(client):
    v = new(client, "game2048", ["human"])
    assert sum(1 for x in v["board"] if x) == 2  # the start: two tiles
    a = v["legal"][0]["action"]
    v = client.post(f"/api/game/{v['id']}/move", json={"action": a}).json()
    assert v["moves"][0]["chance"] is not None and v["moves"][0]["name"] in ("up", "right", "down", "left")


def test_agent_file_thoughts_and_its_game(client, served):
    root, agent = served
    listed = client.get("/api/agents").json()["agents"]
    assert [(a["path"], a["game"]) for a in listed] == [("agents/ttt.npz", "tictactoe")]
    v = new(client, "tictactoe", ["human", "agent:agents/ttt.npz"])
    assert v["seats"][1]["name"] == agent.name
    t = client.get(f"/api/game/{v['id']}/thoughts").json()
    game = farl_envs.game_spec("tictactoe")
    start = game.initial_state(game.p, np.zeros(1, dtype=np.uint64))
    assert set(t["values"]) == {str(a) for a in range(9)}
    for a in range(9):  # each value is the agent's afterstate value of that move (no move ends the game yet)
        after = np.empty_like(start)
        game.afterstate(game.p, start, a, after, np.zeros(2))
        assert t["values"][str(a)] == pytest.approx(agent.afterstate_value(after, 0), abs=1e-4)
    assert t["values"][str(t["best"])] == max(t["values"].values())
    v = client.post(f"/api/game/{v['id']}/move", json={"action": 0}).json()
    v = client.post(f"/api/game/{v['id']}/agent", json={}).json()
    assert v["moves"][1]["by"] == agent.name
    r = client.post("/api/new", json={"game": "connect_four", "seats": ["human", "agent:agents/ttt.npz"]})
    assert r.status_code == 400 and "tictactoe" in r.json()["error"]


def test_pretrained_agents(client):
    from farl_agents import pretrained

    listed = client.get("/api/agents").json()
    assert listed["pretrained"] == pretrained.available()
    assert listed["pretrained_params"]["nim3p"] == pretrained.load("nim3p").game.params  # max_take 5, not 3
    assert "tictactoe" in pretrained.available()
    v = new(client, "tictactoe", ["pretrained", "human"])
    v = client.post(f"/api/game/{v['id']}/agent", json={}).json()
    assert v["moves"][0]["seat"] == 0 and v["human_to_move"]
    t = client.get(f"/api/game/{v['id']}/thoughts").json()
    assert len(t["values"]) == 8 and t["kind"].startswith("afterstate value")
    # the move the overlay marks best is the move the agent plays (up to ties), in a game against itself
    v = new(client, "tictactoe", ["pretrained", "pretrained"], seed=3)
    while not v["terminal"]:
        values = client.get(f"/api/game/{v['id']}/thoughts").json()["values"]
        v = client.post(f"/api/game/{v['id']}/agent", json={}).json()
        assert values[str(v["moves"][-1]["action"])] == max(values.values())
    r = client.post("/api/new", json={"game": "othello", "seats": ["pretrained", "human"]})
    if "othello" not in pretrained.available():
        assert r.status_code == 400 and "othello" in r.json()["error"]
    else:  # the shipped Othello agent opens with one of the four legal first moves
        v = client.post(f"/api/game/{r.json()['id']}/agent", json={}).json()
        assert v["moves"][0]["action"] in [m["action"] for m in r.json()["legal"]] and v["human_to_move"]


def test_mcts_overlay_shows_visit_shares(client):
    """MCTS's values are its visit shares (one per legal move, adding up to 1); a move that wins at once gets
    the largest share."""
    from farl_agents.serve.session import Seat

    v = new(client, "tictactoe", ["mcts2000", "human"], seed=1)
    session = client.app.state.farl.sessions.get(v["id"])
    mcts = session.seats[0]
    session.seats[0] = Seat("human")  # a person plays X's first moves: X on 0 and 1, O on 3 and 4
    for a in (0, 3, 1, 4):
        client.post(f"/api/game/{v['id']}/move", json={"action": a})
    session.seats[0] = mcts
    t = client.get(f"/api/game/{v['id']}/thoughts").json()
    assert t["agent"] == "MCTS2000" and "visits" in t["kind"] and t["seat"] == 0
    assert set(t["values"]) == {"2", "5", "6", "7", "8"}
    assert sum(t["values"].values()) == pytest.approx(1.0, abs=1e-3)
    assert t["best"] == 2  # completes the top row


@pytest.mark.parametrize("opponent", ["ab", "ab-dl"])
def test_perfect_connect_four_overlay_shows_the_solver_scores(client, opponent):
    """From the empty board only the centre column wins, its two neighbours draw, the others lose
    (Allis 1988); the perfect player's overlay says so and it plays the column marked best."""
    v = new(client, "connect_four", [opponent, "human"])
    t = client.get(f"/api/game/{v['id']}/thoughts").json()
    assert t["kind"] == "exact solver score" and t["agent"] == opponent.upper()
    values = [t["values"][str(c)] for c in range(7)]
    assert values[3] > 0 and values[2] == values[4] == 0 and all(values[c] < 0 for c in (0, 1, 5, 6))
    assert t["best"] == 3
    v = client.post(f"/api/game/{v['id']}/agent", json={}).json()
    assert v["moves"][0]["action"] == 3


@pytest.mark.parametrize("opponent", ["bench", "bench-gbg"])
def test_bench_overlay_shows_its_positional_scores(client, opponent):
    """Bench's values are the weighted piece count after each move (its table, counted here from the
    kernel's board); it plays a move with the largest one."""
    from farl_agents.opponents.bench import BENCH_WEIGHTS
    from farl_envs.core.spec import HEADER

    v = new(client, "othello", [opponent, "human"])
    t = client.get(f"/api/game/{v['id']}/thoughts").json()
    assert t["kind"] == "positional score after the move"
    game = farl_envs.game_spec("othello")
    start = game.initial_state(game.p, np.zeros(1, dtype=np.uint64))
    assert sorted(int(a) for a in t["values"]) == [m["action"] for m in v["legal"]]
    for a, value in t["values"].items():
        after = np.empty_like(start)
        game.afterstate(game.p, start, int(a), after, np.zeros(2))
        cells = after[HEADER:HEADER + 64]
        assert value == pytest.approx(float(BENCH_WEIGHTS @ ((cells == 1) * 1.0 - (cells == 2))))
    v = client.post(f"/api/game/{v['id']}/agent", json={}).json()
    assert t["values"][str(v["moves"][0]["action"])] == max(t["values"].values())


def test_no_scoring_player_no_values(client):
    v = new(client, "tictactoe", ["human", "random"])
    t = client.get(f"/api/game/{v['id']}/thoughts").json()
    assert t["values"] == {} and "nothing to show" in t["note"]


def test_runs_view(client):
    runs = client.get("/api/runs").json()
    assert [r["path"] for r in runs["runs"]] == ["runs/demo"] and runs["unreadable"] == []
    data = client.get("/api/run", params={"path": "runs/demo"}).json()
    assert [r["episode"] for r in data["rows"]] == [0, 100]
    assert [r["score_maxn15"] for r in data["rows"]] == [0.25, 0.5]
    assert data["evaluations"]["eval.json"]["matchups"][0]["opponent"] == "Max-N15"


@pytest.mark.parametrize("path, status", [("../outside", 403), ("/etc", 403), ("link-out", 403),
                                          ("runs/../../x", 403), ("agents", 404), ("nowhere", 404), ("", 400)])
def test_paths_outside_the_folder_are_refused(client, path, status):
    r = client.get("/api/run", params={"path": path})
    assert r.status_code == status, r.text
    assert r.json()["error"]


@pytest.mark.parametrize("seat", ["agent:../outside/secret.npz", "agent:/etc/passwd", "agent:link-out/secret.npz"])
def test_agent_files_outside_the_folder_are_refused(client, seat):
    r = client.post("/api/new", json={"game": "tictactoe", "seats": ["human", seat]})
    assert r.status_code == 403 and "served folder" in r.json()["error"]


@pytest.mark.parametrize("body, message", [
    ({"game": "chess", "seats": ["human", "random"]}, "tictactoe"),
    ({"game": "tictactoe", "seats": ["human"]}, "2 choices"),
    ({"game": "tictactoe", "seats": ["human", "deep-blue"]}, "unknown opponent"),
    ({"game": "tictactoe", "seats": ["human", "bench"]}, "othello"),
    ({"game": "tictactoe", "seats": ["human", "mcts999999999"]}, "1..200000"),
    ({"game": "tictactoe", "seats": ["human", 7]}, "'human'"),
    ({"game": "connect_four", "params": {"rows": 99}, "seats": ["human", "random"]}, "rows"),
    ({"game": "connect_four", "params": {"depth": 3}, "seats": ["human", "random"]}, "no parameter depth"),
    ({"game": "tictactoe", "seats": ["human", "random"], "seed": -1}, "seed"),
    ({"game": "tictactoe", "seats": ["human", "agent:missing.npz"]}, "no agent file"),
])
def test_bad_new_game_requests(client, body, message):
    r = client.post("/api/new", json=body)
    assert 400 <= r.status_code < 500
    assert message in r.json()["error"]


def test_bad_move_requests_and_the_server_stays_up(client):
    v = new(client, "tictactoe", ["human", "random"])
    gid = v["id"]
    for body, status, message in [({"action": 9}, 400, "not legal"), ({"action": "a1"}, 400, "integer"),
                                  ({}, 400, "action"), ([1], 400, "JSON object")]:
        r = client.post(f"/api/game/{gid}/move", json=body)
        assert (r.status_code, message in r.json()["error"]) == (status, True), r.text
    r = client.post(f"/api/game/{gid}/move", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 400
    r = client.post(f"/api/game/{gid}/agent", json={})
    assert r.status_code == 409 and "yours" in r.json()["error"]
    client.post(f"/api/game/{gid}/move", json={"action": 4})
    r = client.post(f"/api/game/{gid}/move", json={"action": 0})
    assert r.status_code == 409 and "turn" in r.json()["error"]
    assert client.get("/api/game/nope").status_code == 404
    assert client.get("/api/nothing-here").status_code == 404
    assert client.get(f"/api/game/{gid}").json()["id"] == gid  # still serving


def test_a_slow_agent_answers_later_and_blocks_moves_meanwhile(client):
    v = new(client, "tictactoe", ["random", "human"])
    gate = threading.Event()

    def slow(game, state, rng):
        gate.wait(60)
        return 4

    app_state = client.app.state.farl
    app_state.sessions.get(v["id"]).seats[0].player = CallablePlayer(slow, "slow")
    app_state.worker.time_limit = 0.05
    try:
        r = client.post(f"/api/game/{v['id']}/agent", json={})
        assert r.status_code == 202 and r.json()["thinking"]
        assert client.post(f"/api/game/{v['id']}/undo", json={}).status_code == 409
        gate.set()
        app_state.worker.time_limit = 30
        r = client.post(f"/api/game/{v['id']}/agent", json={})
        assert r.status_code == 200 and r.json()["moves"][0]["action"] == 4 and r.json()["human_to_move"]
    finally:
        gate.set()
        app_state.worker.time_limit = 30


def test_serve_command_refuses_a_missing_folder(tmp_path, capsys):
    assert main(["serve", str(tmp_path / "missing")]) == 2
    assert "not a folder" in capsys.readouterr().err
    assert main(["serve", str(tmp_path), "--port", "70000"]) == 2


# ------------------------------------------------------------------ issue 42: every game on the board
def test_favicon_is_a_local_svg(client):
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg+xml")
    assert icon.text.lstrip().startswith("<svg") and "href" not in icon.text  # nothing fetched from elsewhere
    assert 'rel="icon"' in client.get("/").text


@pytest.mark.parametrize("game, params, n", [("sim", {"players": 3}, 3), ("sim", {}, 2), ("nim3p", {}, 3),
                                             ("chinese_checkers", {"players": 6}, 6),
                                             ("einstein_wurfelt_nicht", {"players": 4}, 4)])
def test_spec_gives_the_player_count_of_the_parameters(client, game, params, n):
    info = client.post("/api/spec", json={"game": game, "params": params}).json()
    assert info["n_players"] == n and len(info["seat_colours"]) == n
    assert len(set(info["seat_colours"])) == n  # each seat its own colour
    v = new(client, game, ["human"] + ["random"] * (n - 1), params=params)
    assert len(v["seats"]) == n and len(v["seat_colours"]) == n
    r = client.post("/api/new", json={"game": game, "params": params, "seats": ["human"] * (n + 1)})
    assert r.status_code == 400 and f"list of {n} choices" in r.json()["error"]


def test_spec_refuses_bad_parameters(client):
    r = client.post("/api/spec", json={"game": "chinese_checkers", "params": {"players": 5}})
    assert r.status_code == 400 and "players must be one of" in r.json()["error"]


SHORT = {"amazons": {"board_size": 6}, "breakthrough": {"rows": 5, "columns": 5}, "chinese_checkers": {"max_moves": 15},
         "lines_of_action": {"max_game_length": 60}, "outer_open_gomoku": {"size": 7},
         "surakarta": {"no_capture_limit": 8}, "sim": {"players": 3}, "yavalath": {"players": 3},
         "einstein_wurfelt_nicht": {"players": 3}}


@pytest.mark.parametrize("game", [g[:-3] for g in farl_envs.list_games()])
def test_every_legal_action_has_its_clicks(client, game):
    """A whole game through the API, the person's seat playing random legal actions: at every position each
    legal action's click orders are cells of the layout, no two actions share one order (a click sequence
    names one move), at most 20 actions are left to buttons, and the move's cells are its first order. A
    two-click move starts on a piece of the player to move and ends with that player's piece on the target."""
    params = SHORT.get(game, {})
    spec = farl_envs.game_spec(game, **params)
    v = new(client, game, ["human"] + ["random"] * (spec.n_players - 1), params=params)
    rng = np.random.default_rng(3)
    drawn = v["layout"] is not None
    if game not in ("tictactoe", "connect_four", "othello", "hex", "nim", "nim3p", "game2048"):
        assert drawn, f"{game} has no board layout"
    out_before = set()
    for _ in range(3000):
        if v["terminal"]:
            break
        assert v["to_move"] not in v["out"] and out_before <= set(v["out"])  # out stays out, never moves
        out_before = set(v["out"])
        if not v["human_to_move"]:
            v = client.post(f"/api/game/{v['id']}/agent", json={}).json()
            continue
        legal = [m["action"] for m in v["legal"]]
        paths = {int(a): p for a, p in v["paths"].items()}
        assert set(paths) == set(legal)
        if drawn:
            n_cells = len(v["layout"]["cells"]) + len(v["layout"].get("nodes", []))
            seen = {}
            for a, orders in paths.items():
                for order in orders:
                    assert order and all(0 <= c < n_cells for c in order), (a, order)
                    assert tuple(order) not in seen, f"{game}: {order} is {seen.get(tuple(order))} and {a}"
                    seen[tuple(order)] = a
            assert sum(1 for a in legal if not paths[a]) <= 20
        a = int(rng.choice(legal))
        before = v
        v = client.post(f"/api/game/{v['id']}/move", json={"action": a}).json()
        assert v["moves"][-1]["cells"] == (paths[a][0] if paths[a] else [])
        order = paths[a][0] if paths[a] else []
        if drawn and len(order) == 2 and game != "sim" and not (game == "santorini" and a >= 1600):
            mover = before["to_move"]
            assert before["pieces"][order[0]].get("owner") == mover
            assert v["pieces"][order[1]].get("owner") == mover
    assert v["terminal"]


def test_santorini_turn_is_worker_move_build(client):
    """Placement is two cells in either order; a turn is the worker's cell, where it goes, where it builds:
    after it the worker stands on the second cell and the third is one level higher."""
    v = new(client, "santorini", ["human", "human"])
    assert all(sorted(p) == sorted(orders[0]) for orders in v["paths"].values() for p in orders)
    assert all(len(orders) == 2 for orders in v["paths"].values())  # {i, j} clicked as i, j or j, i
    for a in (1600 + 0, 1600 + 299):  # a1,b1 for player_0; d5,e5 for player_1
        v = client.post(f"/api/game/{v['id']}/move", json={"action": a}).json()
    turn = next((int(a), p[0]) for a, p in v["paths"].items() if len(p[0]) == 3)
    a, (src, dst, build) = turn
    height = v["pieces"][build].get("height", 0)
    after = client.post(f"/api/game/{v['id']}/move", json={"action": a}).json()
    assert after["pieces"][src].get("owner") is None and after["pieces"][dst]["owner"] == 0
    assert after["pieces"][build]["height"] == height + 1


def test_einstein_shows_the_die(client):
    v = new(client, "einstein_wurfelt_nicht", ["human", "human"])
    assert 1 <= v["roll"] <= 6
    v = client.post(f"/api/game/{v['id']}/move", json={"action": v["legal"][0]["action"]}).json()
    if not v["terminal"]:
        assert v["roll"] == v["moves"][-1]["chance"]["roll"]


def test_engines_are_offered_only_where_they_build(client, monkeypatch):
    from farl_agents import opponents
    from farl_agents.serve import app as serve_app

    def refuse(name, game, **kw):
        raise RuntimeError(f"{name} is not installed")
    monkeypatch.setattr(opponents, "make_opponent", refuse)
    monkeypatch.setattr(serve_app, "_ENGINE_CACHE", {})
    names = [o["name"] for o in serve_app.game_info("othello")["opponents"]]
    assert "grhino" not in names and "edax" not in names and "bench" in names
    monkeypatch.setattr(opponents, "make_opponent", lambda name, game, **kw: object())
    monkeypatch.setattr(serve_app, "_ENGINE_CACHE", {})
    names = [o["name"] for o in serve_app.game_info("othello")["opponents"]]
    assert "grhino" in names and "edax" in names
    assert "mohex" in [o["name"] for o in serve_app.game_info("hex")["opponents"]]


def test_a_new_game_gets_the_default_board():
    """A game the serve module has never heard of (Breakthrough under another name) still gets a clickable
    board: its grid, its pieces from the n-tuple board, and each move clicked as the square its piece leaves
    and the square it reaches (read from the game's afterstate), which are the squares of the game's own
    action numbering."""
    import dataclasses

    from farl_agents.serve import views
    from farl_envs.core.rng import make_rng
    from farl_envs.games import breakthrough

    g = dataclasses.replace(farl_envs.game_spec("breakthrough"), name="march", view="generic")
    s = g.initial_state(g.p, make_rng(0))
    mask = np.zeros(g.n_actions, dtype=np.int8)
    g.legal_actions(g.p, s, mask)
    legal = [int(a) for a in np.flatnonzero(mask)]
    d = views.describe(g, s, legal)
    assert d["layout"]["kind"] == "square" and len(d["layout"]["cells"]) == 64
    for a in legal:
        r, c, direction, _ = breakthrough.decode_action(8, a)
        to = (r + breakthrough.DIR_ROW[direction]) * 8 + c + breakthrough.DIR_COL[direction]
        assert d["paths"][str(a)] == [[r * 8 + c, to]]
    assert d["pieces"][8]["owner"] == 0 and d["pieces"][48]["owner"] == 1 and d["pieces"][20] == {}


def test_kuhn_poker_shows_the_person_only_the_own_card(client):
    """Hidden information: while the hand runs, the page's text, n-tuple board, picture and pieces hold the
    person's card and never the opponent's (face down, "?"); once it is over every card is shown; a table of
    agents only shows every card (a spectator); the searches are not offered and a seat asking for one is refused."""
    import farl_envs
    from farl_envs.core.rng import make_rng

    g = farl_envs.game_spec("kuhn_poker")
    for seed in range(6):
        cards = g.initial_state(g.p, make_rng(seed))[3:5].tolist()  # the session deals from make_rng(seed)
        v = new(client, "kuhn_poker", ["human", "random"], seed=seed)
        while not v["terminal"]:
            assert v["text"].startswith(f"your card (player_0): {'JQK'[cards[0]]} |"), v["text"]
            assert "player_1:" not in v["text"]
            assert [row[0] for row in v["paint"]] == [3 + cards[0], 0]
            assert v["pieces"][0]["label"] == "JQK"[cards[0]] and v["pieces"][3]["label"] == "?"
            assert v["board"][0] in (0, cards[0] + 1)  # the last mover's card only when that is the person
            if v["human_to_move"]:
                v = client.post(f"/api/game/{v['id']}/move", json={"action": 1}).json()
            else:
                v = client.post(f"/api/game/{v['id']}/agent", json={}).json()
        assert f"player_1:{'JQK'[cards[1]]}" in v["text"] and v["pieces"][3]["label"] == "JQK"[cards[1]]
    v = new(client, "kuhn_poker", ["random", "random"], seed=1)
    assert v["pieces"][3]["label"] != "?" and "player_1:" in v["text"]
    info = client.get("/api/games").json()
    offered = next(x for x in (info["games"] if isinstance(info, dict) else info) if x["name"] == "kuhn_poker")
    assert [o["name"] for o in offered["opponents"]] == ["random"]
    r = client.post("/api/new", json={"game": "kuhn_poker", "seats": ["human", "mcts100"]})
    assert r.status_code == 400 and "hidden information" in r.json()["error"]


def test_kuhn_poker_thoughts_leave_the_hand_ending_moves_blank():
    """The value overlay of an n-tuple agent adds a move's reward; a call's reward would tell the person the
    other card, so in a game with hidden information a hand-ending move gets no value."""
    from farl_agents.learners.agent import NTupleAgent
    from farl_agents.learners.config import LearnerConfig
    from farl_agents.serve.session import Seat, Session

    agent = NTupleAgent("kuhn_poker", LearnerConfig(ntuple_length=4, ntuple_count=1))
    session = Session("k", agent.game, [Seat("agent", agent), Seat("human")], seed=0)
    session.agent_move_done(1)  # the agent bets: the person may call (ends the hand) or fold (ends it too)
    assert session.thoughts()["values"] == {"0": None, "1": None}
    fresh = Session("k2", agent.game, [Seat("human"), Seat("agent", agent)], seed=0)
    values = fresh.thoughts()["values"]  # the first move never ends the hand: both valued
    assert set(values) == {"0", "1"} and None not in values.values()
