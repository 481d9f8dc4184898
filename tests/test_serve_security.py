"""`farl serve` against a hostile web page and a hostile served folder (issue 37, section 2).

A page the user opens in the same browser must not drive the server: requests whose ``Origin`` is
another site, whose ``Host`` is not a loopback name (DNS rebinding) or whose POST body is not declared
JSON are refused, while scripts that send no ``Origin`` keep working. Bodies over 1 MB are refused
before they are parsed, and parsing happens off the event loop. One odd file in the served folder
(an array header declaring 10**12 entries, a corrupt deflate stream, metadata nested 100,000 deep, a
name that is not UTF-8, a FIFO) is listed as unreadable and never breaks the listings or blocks the
server. Files' contents reach the page only as text. Sessions against one agent file share one
read-only copy of its weights.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import io
import json
import os
import re
import threading
import tracemalloc
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")  # starlette's TestClient

with warnings.catch_warnings():  # starlette asks for httpx2 instead of httpx; both work
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

import farl_envs  # noqa: E402
from farl_agents.learners import NTupleAgent, paper_config  # noqa: E402
from farl_agents.runs.curve import write_curve  # noqa: E402
from farl_agents.serve import create_app  # noqa: E402
from farl_agents.serve.session import Sessions  # noqa: E402
from farl_envs.core.rng import make_rng  # noqa: E402
from farl_envs.core.spec import TERMINAL  # noqa: E402

BASE = "http://127.0.0.1:8765"
"""The address the test client pretends to talk to (a loopback Host with a port)."""
NEW_GAME = {"game": "tictactoe", "seats": ["human", "random"]}
LISTING_SECONDS = 60


@pytest.fixture(scope="module")
def agent_file(tmp_path_factory) -> Path:
    """A small TicTacToe agent file, copied into the served folders below."""
    path = tmp_path_factory.mktemp("agent") / "ttt.npz"
    agent = NTupleAgent("tictactoe", paper_config("tictactoe", episodes=100))
    agent.train(50)
    agent.save(path)
    return path


def served_client(root, **kw) -> TestClient:
    return TestClient(create_app(root, time_limit=30, **kw), base_url=BASE)


@pytest.fixture
def root(tmp_path, agent_file) -> Path:
    root = tmp_path / "served"
    root.mkdir()
    (root / "good.npz").write_bytes(agent_file.read_bytes())
    return root


@pytest.fixture
def client(root):
    with served_client(root) as c:
        yield c


def n_sessions(client) -> int:
    return len(client.app.state.farl.sessions._games)


# ------------------------------------------------------------------ cross-site requests
def test_a_cross_site_simple_request_is_refused_and_starts_nothing(client):
    """The attack of the issue: a form-like POST (text/plain) from another site's page."""
    before = n_sessions(client)
    r = client.post("/api/new", content=json.dumps(NEW_GAME),
                    headers={"Content-Type": "text/plain", "Origin": "http://evil.example"})
    assert r.status_code == 403 and "origin" in r.json()["error"].lower()
    assert n_sessions(client) == before


@pytest.mark.parametrize("origin", ["http://evil.example", "http://127.0.0.1:9999", "http://localhost:8765",
                                    "null", "https://127.0.0.1:8765"])
def test_other_origins_are_refused_on_every_route(client, origin):
    """Another site, another local server (other port), another name of this machine, a sandboxed frame."""
    assert client.get("/api/agents", headers={"Origin": origin}).status_code == 403
    assert client.post("/api/new", json=NEW_GAME, headers={"Origin": origin}).status_code == 403


def test_the_page_itself_and_scripts_without_origin_are_served(client):
    r = client.post("/api/new", json=NEW_GAME, headers={"Origin": BASE})
    assert r.status_code == 200, r.text
    r = client.post(f"/api/game/{r.json()['id']}/move", json={"action": 4})  # a script: no Origin at all
    assert r.status_code == 200 and r.json()["board"][4] == 1
    assert client.get("/", headers={"Sec-Fetch-Site": "none"}).status_code == 200  # an address typed in


@pytest.mark.parametrize("site", ["cross-site", "same-site"])
def test_cross_site_loads_without_origin_are_refused(client, site):
    """An <img> or <script> tag of another page sends no Origin on GET, but browsers say where it came from;
    following a link to the page (a navigation) is fine."""
    r = client.get("/api/agents", headers={"Sec-Fetch-Site": site, "Sec-Fetch-Mode": "no-cors"})
    assert r.status_code == 403
    assert client.get("/", headers={"Sec-Fetch-Site": site, "Sec-Fetch-Mode": "navigate"}).status_code == 200
    r = client.post("/api/new", json=NEW_GAME, headers={"Sec-Fetch-Site": site, "Sec-Fetch-Mode": "navigate"})
    assert r.status_code == 403  # a form sent from another site navigates too, with a POST


def test_the_farl_serve_command_refuses_cross_origin_and_foreign_host_requests(root):
    """The same through `farl serve` itself (uvicorn on a free port), with a plain HTTP client."""
    import http.client
    import urllib.parse

    pytest.importorskip("uvicorn")
    from studies.serve_picture.browser import serving

    with serving(root) as url:
        address = urllib.parse.urlsplit(url)

        def ask(method, path, body=None, **headers):
            conn = http.client.HTTPConnection(address.hostname, address.port, timeout=60)
            try:
                conn.request(method, path, body=body, headers=headers)
                r = conn.getresponse()
                return r.status, json.loads(r.read() or b"null")
            finally:
                conn.close()
        body = json.dumps(NEW_GAME)
        status, answer = ask("POST", "/api/new", body, **{"Content-Type": "text/plain", "Origin": "http://evil.example"})
        assert status == 403 and "origin" in answer["error"]
        assert ask("GET", "/api/agents", Host="evil.example")[0] == 403
        assert ask("GET", "/api/agents", Host=f"evil.example:{address.port}")[0] == 403
        status, answer = ask("POST", "/api/new", body, **{"Content-Type": "application/json"})  # a script
        assert status == 200 and answer["seats"][1]["name"] == "random"
        page = {"Content-Type": "application/json", "Origin": url.rstrip("/")}
        assert ask("POST", "/api/new", body, **page)[0] == 200  # the page itself


def test_serve_command_host_names(tmp_path, capsys):
    from farl_agents.cli import main
    from farl_agents.cli.serve import allowed_hosts

    assert allowed_hosts("127.0.0.1", []) == [] and allowed_hosts("0.0.0.0", []) == []
    assert allowed_hosts("192.168.1.7", ["box.lan"]) == ["box.lan", "192.168.1.7"]
    assert main(["serve", str(tmp_path), "--allow-host", "http://box.lan/"]) == 2
    assert "--allow-host" in capsys.readouterr().err


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8765", "127.0.0.1.evil.example", "localhost.:8765",
                                  "127.0.0.2", "", "127.0.0.1:port"])
def test_foreign_host_headers_are_refused(client, host):
    """DNS rebinding: a page of evil.example whose name now resolves to 127.0.0.1 sends Host: evil.example."""
    r = client.get("/api/agents", headers={"Host": host})
    assert r.status_code == 403 and "host" in r.json()["error"].lower()
    r = client.post("/api/new", json=NEW_GAME, headers={"Host": host})
    assert r.status_code == 403


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.1:8765", "localhost:8765", "LOCALHOST", "[::1]:8765"])
def test_loopback_host_headers_are_served(client, host):
    assert client.get("/api/games", headers={"Host": host}).status_code == 200


def test_hosts_the_user_allowed(root):
    with served_client(root, allowed_hosts=["box.lan", "192.168.1.7"]) as c:
        assert c.get("/api/games", headers={"Host": "box.lan:8765"}).status_code == 200
        assert c.get("/api/games", headers={"Host": "192.168.1.7"}).status_code == 200
        assert c.get("/api/games", headers={"Host": "evil.example"}).status_code == 403
        r = c.post("/api/new", json=NEW_GAME, headers={"Host": "box.lan:8765", "Origin": "http://box.lan:8765"})
        assert r.status_code == 200
        r = c.post("/api/new", json=NEW_GAME, headers={"Host": "box.lan:8765", "Origin": "http://evil.example"})
        assert r.status_code == 403


@pytest.mark.parametrize("headers", [{"Content-Type": "text/plain"},
                                     {"Content-Type": "application/x-www-form-urlencoded"},
                                     {"Content-Type": "multipart/form-data; boundary=x"}, {}])
def test_posts_must_declare_json(client, headers):
    before = n_sessions(client)
    r = client.post("/api/new", content=json.dumps(NEW_GAME), headers=headers)
    assert r.status_code == 415 and "application/json" in r.json()["error"]
    assert n_sessions(client) == before


def test_bodyless_posts_must_declare_json_too(client):
    gid = client.post("/api/new", json={"game": "tictactoe", "seats": ["random", "human"]}).json()["id"]
    assert client.post(f"/api/game/{gid}/agent").status_code == 415
    r = client.post(f"/api/game/{gid}/agent", headers={"Content-Type": "application/json"})  # empty body: fine
    assert r.status_code == 200 and len(r.json()["moves"]) == 1


def test_pages_forbid_inline_scripts_and_framing(client):
    r = client.get("/")
    csp = r.headers.get("content-security-policy", "")
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp and "frame-ancestors 'none'" in csp
    assert r.headers.get("x-content-type-options") == "nosniff"
    assert "onsubmit=" not in r.text and "<script>" not in r.text  # nothing inline the policy would block


# ------------------------------------------------------------------ request bodies
def test_a_body_over_one_megabyte_is_refused_before_parsing(client, monkeypatch):
    parsed = []
    real = json.loads
    monkeypatch.setattr(json, "loads", lambda s, *a, **k: parsed.append(len(s)) or real(s, *a, **k))
    body = json.dumps({**NEW_GAME, "pad": "x" * 1_100_000})
    r = client.post("/api/new", content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and "1 MB" in r.json()["error"]
    assert not any(n > 1_000_000 for n in parsed)


def test_a_chunked_body_over_one_megabyte_is_refused(client):
    def chunks():  # no Content-Length: the server counts as it reads
        yield b'{"game": "tictactoe", "seats": ["human", "random"], "pad": "'
        for _ in range(20):
            yield b"x" * 100_000
        yield b'"}'
    r = client.post("/api/new", content=chunks(), headers={"Content-Type": "application/json"})
    assert r.status_code == 413


def test_a_bad_content_length_is_refused(client):
    r = client.post("/api/new", content=json.dumps(NEW_GAME),
                    headers={"Content-Type": "application/json", "Content-Length": "lots"})
    assert r.status_code == 400


def test_bodies_are_parsed_off_the_event_loop(client, monkeypatch):
    on_loop = []
    real = json.loads

    def loads(s, *a, **k):
        try:
            asyncio.get_running_loop()
            on_loop.append(True)
        except RuntimeError:
            on_loop.append(False)
        return real(s, *a, **k)
    monkeypatch.setattr(json, "loads", loads)
    r = client.post("/api/new", content=json.dumps(NEW_GAME), headers={"Content-Type": "application/json"})
    assert r.status_code == 200 and on_loop and not any(on_loop)


def test_a_deeply_nested_body_is_a_bad_request(client):
    body = "[" * 100_000 + "]" * 100_000
    r = client.post("/api/new", content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and "JSON" in r.json()["error"]


# ------------------------------------------------------------------ paths and error messages
@pytest.mark.parametrize("path", ["a" * 5000, ("b" * 250 + "/") * 30 + "c", "x/" * 3000])
def test_a_huge_path_is_a_bad_request_without_the_folders_path(client, root, path):
    r = client.get("/api/run", params={"path": path})
    assert r.status_code == 400 and str(root.resolve()) not in r.text
    r = client.post("/api/new", json={"game": "tictactoe", "seats": ["human", "agent:" + path]})
    assert r.status_code == 400 and str(root.resolve()) not in r.text


def test_an_internal_error_does_not_carry_the_folders_path(root, monkeypatch):
    from farl_agents.serve import files

    def broken(folder):
        raise OSError(f"[Errno 5] Input/output error: '{Path(folder).resolve() / 'runs'}'")
    monkeypatch.setattr(files, "list_runs", broken)
    with TestClient(create_app(root), base_url=BASE, raise_server_exceptions=False) as c:
        r = c.get("/api/runs")
    assert r.status_code == 500 and "Input/output error" in r.json()["error"]
    assert str(root.resolve()) not in r.text


# ------------------------------------------------------------------ the lock table
def test_the_lock_table_shrinks_with_the_sessions(client, monkeypatch):
    monkeypatch.setattr(Sessions, "MAX", 5)
    ids = [client.post("/api/new", json=NEW_GAME).json()["id"] for _ in range(12)]
    state = client.app.state.farl
    live = set(state.sessions._games)
    assert live == set(ids[-5:])
    assert set(getattr(state, "locks", None) or state.sessions.locks) == live
    assert client.get(f"/api/game/{ids[0]}").status_code == 404
    assert client.post(f"/api/game/{ids[-1]}/move", json={"action": 0}).status_code == 200


# ------------------------------------------------------------------ odd files in the served folder
def npy_header(shape, descr="<f4") -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": descr, "fortran_order": False, "shape": shape})
    return np.lib.format.magic(1, 0) + buf.getvalue()


def copy_members(src: Path, dst: Path, replace: dict, compression=zipfile.ZIP_DEFLATED) -> None:
    """``src``'s zip members into ``dst``, those named in ``replace`` with the given bytes (None: dropped)."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", compression) as zout:
        for info in zin.infolist():
            data = replace.get(info.filename, zin.read(info.filename))
            if data is not None:
                zout.writestr(info.filename, data)
        for name, data in replace.items():
            if name not in zin.namelist() and data is not None:
                zout.writestr(name, data)


def corrupt_member(path: Path, member: str) -> None:
    """Make ``member``'s deflate stream invalid (its first byte declares the reserved block type)."""
    with zipfile.ZipFile(path) as z:
        info = z.getinfo(member)
    raw = bytearray(path.read_bytes())
    name_len, extra_len = (int.from_bytes(raw[info.header_offset + k:info.header_offset + k + 2], "little")
                           for k in (26, 28))
    start = info.header_offset + 30 + name_len + extra_len
    raw[start] = 0xFF
    path.write_bytes(bytes(raw))


def make_odd(kind: str, root: Path, agent_file: Path) -> str:
    """Put one odd file of ``kind`` into ``root``; its name as the listing should show it."""
    if kind == "trillion":
        copy_members(agent_file, root / "trillion.npz",
                     {"weights_huge.npy": npy_header((10**12,)) + bytes(64)}, zipfile.ZIP_STORED)
        return "trillion.npz"
    if kind == "deflate":
        copy_members(agent_file, root / "deflate.npz", {})
        corrupt_member(root / "deflate.npz", "meta.npy")
        return "deflate.npz"
    if kind == "deep":
        meta = np.array("[" * 100_000 + "]" * 100_000)
        buf = io.BytesIO()
        np.lib.format.write_array(buf, meta)
        copy_members(agent_file, root / "deep.npz", {"meta.npy": buf.getvalue()})
        return "deep.npz"
    if kind == "non_utf8":
        name = os.fsdecode(b"caf\xe9.npz")
        (root / name).write_bytes(agent_file.read_bytes())
        return "caf\\xe9.npz"
    if kind == "fifo":
        os.mkfifo(root / "x.npz")
        return "x.npz"
    raise AssertionError(kind)


def release_fifos(root: Path) -> None:
    """Unblock any reader stuck opening a FIFO under ``root`` (so a failing test cannot hang the run)."""
    for dirpath, _, names in os.walk(root):
        for n in names:
            p = os.path.join(dirpath, n)
            if os.path.exists(p) and not os.path.isfile(p) and not os.path.isdir(p):
                try:
                    os.close(os.open(p, os.O_WRONLY | os.O_NONBLOCK))
                except OSError:
                    pass


def get_in_time(client, root, url, **kw):
    """``client.get(url)``, failing (not hanging) when the answer takes over a minute."""
    return in_time(root, client.get, url, **kw)


def in_time(root, call, *args, **kw):
    """``call(*args, **kw)`` (a request), failing (not hanging) when it takes over a minute: a reader stuck on
    a FIFO is released first, so the request ends before the test does."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        future = pool.submit(call, *args, **kw)
        try:
            return future.result(timeout=LISTING_SECONDS)
        except concurrent.futures.TimeoutError:
            release_fifos(root)
            future.exception(timeout=LISTING_SECONDS)
            pytest.fail(f"{args[0]} did not answer in {LISTING_SECONDS} s (a FIFO opened?)")


ODD = ["trillion", "deflate", "deep", "non_utf8", "fifo"]


@pytest.mark.parametrize("kind", ODD)
def test_one_odd_agent_file_is_listed_as_unreadable_and_the_others_still_are(root, agent_file, kind):
    shown = make_odd(kind, root, agent_file)
    with served_client(root) as c:
        r = get_in_time(c, root, "/api/agents")
        assert r.status_code == 200, r.text
        listing = r.json()
        assert [(a["path"], a["game"]) for a in listing["agents"]] == [("good.npz", "tictactoe")]
        assert [u["path"] for u in listing["unreadable"]] == [shown]
        assert listing["unreadable"][0]["error"] and str(root.resolve()) not in r.text
        v = c.post("/api/new", json={"game": "tictactoe", "seats": ["human", "agent:good.npz"]})
        assert v.status_code == 200, v.text  # the others stay usable


@pytest.mark.parametrize("kind", ["trillion", "deflate", "deep", "fifo"])
def test_choosing_an_odd_agent_file_is_a_client_error(root, agent_file, kind):
    shown = make_odd(kind, root, agent_file)
    with served_client(root) as c:
        r = in_time(root, c.post, "/api/new", json={"game": "tictactoe", "seats": ["human", "agent:" + shown]})
        assert 400 <= r.status_code < 500, r.text
        assert shown in r.json()["error"] and str(root.resolve()) not in r.text
        assert c.get("/api/games").status_code == 200


def make_run(folder: Path) -> None:
    folder.mkdir(parents=True)
    write_curve(folder / "curve.csv", [{"episode": 0, "wall_seconds": 1.0, "score_random": 0.5, "se_random": 0.1}],
                ["random"])


@pytest.mark.parametrize("kind", ["deep_run_json", "fifo_run_json", "non_utf8_folder", "fifo_curve"])
def test_one_odd_run_folder_does_not_break_the_runs_listing(root, kind):
    make_run(root / "good-run")
    if kind == "deep_run_json":
        make_run(root / "odd")
        (root / "odd" / "run.json").write_text("[" * 100_000 + "]" * 100_000)
        shown = "odd"
    elif kind == "fifo_run_json":
        make_run(root / "odd")
        os.mkfifo(root / "odd" / "run.json")
        shown = "odd"
    elif kind == "fifo_curve":
        (root / "odd").mkdir()
        os.mkfifo(root / "odd" / "curve.csv")
        shown = "odd"
    else:
        make_run(root / os.fsdecode(b"r\xe9sultats"))
        shown = "r\\xe9sultats"
    with served_client(root) as c:
        r = get_in_time(c, root, "/api/runs")
        assert r.status_code == 200, r.text
        listing = r.json()
        assert "good-run" in [x["path"] for x in listing["runs"]]
        assert shown in [u["path"] for u in listing["unreadable"]] + [x["path"] for x in listing["runs"]]
        assert get_in_time(c, root, "/api/run", params={"path": "good-run"}).json()["rows"][0]["score_random"] == 0.5
        if kind == "fifo_curve":
            assert get_in_time(c, root, "/api/run", params={"path": "odd"}).status_code in (404, 422)


@pytest.mark.parametrize("content", ["[" * 100_000 + "]" * 100_000, '{"n_games": NaN, "matchups": []}'])
def test_an_odd_evaluation_file_does_not_break_the_run(root, content):
    make_run(root / "run")
    (root / "run" / "eval.json").write_text(content)
    with served_client(root) as c:
        r = c.get("/api/run", params={"path": "run"})
        assert r.status_code == 200, r.text
        assert r.json()["rows"][0]["score_random"] == 0.5
        ev = r.json()["evaluations"]["eval.json"]
        assert "error" in ev or ev["n_games"] is None


# ------------------------------------------------------------------ the page shows file content as text
APP_JS = Path(__file__).parent.parent / "farl_agents" / "serve" / "static" / "app.js"
HTML_SINKS = re.compile(r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|createContextualFragment")


def js_function(source: str, name: str) -> str:
    """The text of the top-level function ``name`` of app.js (up to the next top-level definition)."""
    m = re.search(rf"^(async )?function {name}\(.*?(?=^(async )?function |^const |^let |^init\(|\Z)", source,
                  re.S | re.M)
    assert m, f"app.js has no function {name}"
    return m.group(0)


@pytest.mark.parametrize("name", ["showPanel", "showRun", "plotCurve", "evalTables", "agentOptions",
                                  "showUnreadable"])
def test_functions_that_show_file_content_use_no_html_sinks(name):
    """The runs view (curve.csv, eval.json) and the agent list (file names) build DOM nodes with text,
    never HTML strings: a file cannot put markup, let alone a script, on the page."""
    body = js_function(APP_JS.read_text(), name)
    assert not HTML_SINKS.search(body), HTML_SINKS.search(body).group(0)


# ------------------------------------------------------------------ shared weights
def test_sessions_against_one_agent_file_share_one_read_only_copy(root, agent_file):
    with served_client(root) as c:
        state = c.app.state.farl
        ids = [c.post("/api/new", json={"game": "tictactoe", "seats": ["human", "agent:good.npz"]}).json()["id"]
               for _ in range(3)]
        players = [state.sessions.get(i).seats[1].player for i in ids]
        a, b = players[0], players[1]
        assert a is not b and a.memory is not b.memory  # each session its own scratch
        assert np.shares_memory(a.net.weights, b.net.weights) and not a.net.weights.flags.writeable
        with pytest.raises(ValueError):
            a.net.weights[...] = 0
        # they play: each session's agent answers from the shared weights
        for gid in ids[:2]:
            assert c.post(f"/api/game/{gid}/move", json={"action": 0}).status_code == 200
            r = c.post(f"/api/game/{gid}/agent", json={})
            assert r.status_code == 200 and len(r.json()["moves"]) == 2
        t = c.get(f"/api/game/{ids[2]}/thoughts").json()
        assert len(t["values"]) == 9 and t["kind"].startswith("afterstate value")
        # a file written again is read again
        agent = NTupleAgent.load(agent_file)
        agent.train(20)
        agent.save(root / "good.npz")
        gid = c.post("/api/new", json={"game": "tictactoe", "seats": ["human", "agent:good.npz"]}).json()["id"]
        assert not np.shares_memory(state.sessions.get(gid).seats[1].player.net.weights, a.net.weights)


def test_an_extra_session_with_the_pretrained_agent_costs_little_memory(root):
    """The pretrained Connect Four agent's tables are tens of MB; one more game against it must not copy
    them."""
    with served_client(root) as c:
        body = {"game": "connect_four", "seats": ["human", "pretrained"]}
        assert c.post("/api/new", json=body).status_code == 200  # loaded once
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            for _ in range(3):
                assert c.post("/api/new", json=body).status_code == 200
            per_session = (tracemalloc.get_traced_memory()[0] - before) / 3
        finally:
            tracemalloc.stop()
        assert per_session < 2e6, f"{per_session / 1e6:.1f} MB per extra session"


def test_a_nemesh_agent_file_is_shared_and_plays(root):
    from farl_agents.nemesh.agent import NemeshAgent

    NemeshAgent(rows=6, cols=7, depth=2).save(root / "nemesh.npz")
    with served_client(root) as c:
        state = c.app.state.farl
        ids = [c.post("/api/new", json={"game": "connect_four", "seats": ["human", "agent:nemesh.npz"]}).json()["id"]
               for _ in range(2)]
        a, b = (state.sessions.get(i).seats[1].player for i in ids)
        assert a is not b and np.shares_memory(a.weights, b.weights) and not a.weights.flags.writeable
        for gid in ids:
            c.post(f"/api/game/{gid}/move", json={"action": 3})
            r = c.post(f"/api/game/{gid}/agent", json={})
            assert r.status_code == 200, r.text
            assert len(r.json()["moves"]) == 2


def test_a_descent_agent_file_shares_its_evaluation_but_not_its_search(root):
    """The descent player keeps a search tree and the plan of a turn between moves: each session has its own,
    over the one evaluation f_θ read from the file."""
    from farl_agents.descent.agent import save_agent
    from farl_agents.descent.trainer import DescentConfig, DescentTrainer

    trainer = DescentTrainer(DescentConfig(game="tictactoe", minutes=0.01, move_iterations=5))
    save_agent(root / "descent.npz", trainer.game, trainer.evaluation, trainer.config.heuristic, trainer.info())
    with served_client(root) as c:
        state = c.app.state.farl
        ids = [c.post("/api/new", json={"game": "tictactoe", "seats": ["human", "agent:descent.npz"]}).json()["id"]
               for _ in range(2)]
        a, b = (state.sessions.get(i).seats[1].player for i in ids)
        assert a is not b and a.evaluation is b.evaluation and a._plan is not b._plan
        for gid in ids:
            c.post(f"/api/game/{gid}/move", json={"action": 4})
            r = c.post(f"/api/game/{gid}/agent", json={})
            assert r.status_code == 200, r.text
            assert len(r.json()["moves"]) == 2
        assert a._engine is not None and a._engine is not b._engine


def test_concurrent_sessions_do_not_trample_a_shared_agent(root):
    """Two games against one agent file, moves interleaved from two threads: each game's agent moves are
    the moves the agent makes alone in the same positions."""
    with served_client(root) as c:
        ids = [c.post("/api/new", json={"game": "tictactoe", "seats": ["human", "agent:good.npz"], "seed": s})
               .json()["id"] for s in (1, 2)]
        own = NTupleAgent.load(root / "good.npz")
        errors = []

        def play(gid, first):
            try:
                v = c.post(f"/api/game/{gid}/move", json={"action": first}).json()
                while not v["terminal"]:
                    if v["human_to_move"]:
                        v = c.post(f"/api/game/{gid}/move", json={"action": v["legal"][0]["action"]}).json()
                    else:
                        v = c.post(f"/api/game/{gid}/agent", json={}).json()
            except Exception as exc:  # reported below
                errors.append(exc)
        threads = [threading.Thread(target=play, args=(gid, first)) for gid, first in zip(ids, (0, 8))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert not errors
        g = farl_envs.game_spec("tictactoe")
        for gid in ids:
            s = g.initial_state(g.p, make_rng(0))
            for m in c.get(f"/api/game/{gid}").json()["moves"]:
                if m["seat"] == 1:  # ties may be broken either way; the chosen move's value is the largest
                    values = {}
                    for a in np.flatnonzero(_legal(g, s)):
                        after, rewards = np.empty_like(s), np.zeros(2)
                        g.afterstate(g.p, s, int(a), after, rewards)
                        values[int(a)] = rewards[1] + (0.0 if after[TERMINAL] else own.afterstate_value(after, 1))
                    assert values[m["action"]] == pytest.approx(max(values.values()), abs=1e-6)
                g.afterstate(g.p, s, m["action"], s, np.zeros(2))


def _legal(g, s):
    mask = np.zeros(g.n_actions, dtype=np.int8)
    g.legal_actions(g.p, s, mask)
    return mask
