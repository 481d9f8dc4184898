"""The ASGI app of ``farl serve``: a JSON API over :mod:`farl_agents.serve.session` and the static pages.

Endpoints (every answer is JSON; a refused request gets a 4xx status and
``{"error": message}``, and the server carries on)::

    GET  /api/games                   every registered game: default parameters, board layout, opponents
    GET  /favicon.ico                 the page's icon (an SVG of static/)
    GET  /api/agents                  agent files and run folders under the served folder (+ pretrained agents
                                      and the game parameters each was trained with)
    GET  /api/runs                    run folders (with a curve.csv) under the served folder
    GET  /api/run?path=REL            one run's curve rows and evaluation results
    POST /api/spec                    {game, params} -> that game at those parameters (players, opponents ...)
    POST /api/new                     {game, params, seats: [choice per seat], seed} -> the game's view
    GET  /api/game/ID                 the view: board, legal moves, move list, result; the board's layout,
                                      pieces and each legal action's cells to click (farl_agents.serve.views)
    POST /api/game/ID/move            {action}: the person to move plays it
    POST /api/game/ID/agent           the agent to move plays (waits at most the time limit; 202 while thinking)
    POST /api/game/ID/undo            back to before the person's last move
    GET  /api/game/ID/thoughts        the value of every legal move as an agent of the game sees it

A seat choice is ``"human"``, an opponent name of
:func:`farl_agents.opponents.make_opponent` (``random``, ``maxn10``,
``mcts5000``, ``ab``, ``ab-dl``, ``bench``, ``bouton`` ...), ``"agent:REL"``
(an agent file or run folder under the served folder) or ``"pretrained"`` (the agent
:mod:`farl_agents.pretrained` ships for the game, when there is one).

Who may ask (:class:`Guard`, in front of every route). The server runs on
the user's machine, and any web page the user opens can send requests to
127.0.0.1: a "simple" cross-site POST (``Content-Type: text/plain``) needs no
permission from the server, and a page whose own name is made to resolve to
127.0.0.1 (DNS rebinding) is even same-origin to the browser. So a request is
refused (403) when

* its ``Host`` is not a loopback name (``127.0.0.1``, ``localhost``, ``[::1]``,
  any port) or one of the names the server was told to allow (``farl serve
  --allow-host``; see :mod:`farl_agents.cli.serve`),
* it carries an ``Origin`` that is not the server's own (``http://`` + its
  ``Host``), ``null`` included, or a ``Sec-Fetch-Site`` other than
  ``same-origin`` / ``none`` (an ``<img>`` or ``<script>`` of another site;
  following a link to the page is a GET navigation and allowed),

and a POST must declare ``Content-Type: application/json`` (415 otherwise;
the body may be empty) and be at most :data:`MAX_BODY_BYTES` (413, before
anything is parsed). Scripts (curl, Python) send no ``Origin`` and keep
working. Answers carry a Content-Security-Policy that allows only the
server's own scripts and styles, no framing, and ``nosniff``. Error messages
never name the served folder's absolute path.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import re
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

import farl_envs
from farl_agents import pretrained
from farl_agents.loading import game_with_params
from farl_agents.serve import files, views
from farl_agents.serve.session import HUMAN, AgentWorker, RequestError, Seat, Sessions

STATIC = Path(__file__).parent / "static"
MAX_MCTS_ITERATIONS = 200_000
MAX_MAXN_DEPTH = 20
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
"""Host names every server answers to (with any port)."""
MAX_BODY_BYTES = 1_000_000
"""Largest request body (1 MB); a game request is a few hundred bytes."""
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
SECURITY_HEADERS = [
    (b"content-security-policy", b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                                 b"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"cache-control", b"no-store"),
]
"""Headers of every answer: only the server's own scripts and styles run on its pages, nobody frames them,
no other site may embed what the server answers, and nothing is cached."""
_HOST = re.compile(r"^(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<name>[A-Za-z0-9.-]+))(?::(?P<port>[0-9]{1,5}))?$")


def host_name(value: str) -> tuple[str, int | None] | None:
    """``(name, port)`` of a ``Host`` header (name lower-case, IPv6 without brackets), or None if malformed."""
    m = _HOST.match(value)
    if not m:
        return None
    port = int(m["port"]) if m["port"] else None
    if port is not None and not 0 < port < 65536:
        return None
    return (m["v6"] or m["name"]).lower(), port


def _origin_matches(origin: str, scheme: str, name: str, port: int | None) -> bool:
    """``origin`` (an ``Origin`` header) is ``scheme://name:port``, default ports understood."""
    try:
        o = urlsplit(origin)
        o_port = o.port
    except ValueError:
        return False
    default = {"http": 80, "https": 443}.get(scheme)
    return (o.scheme == scheme and (o.hostname or "") == name and not o.path and not o.query
            and (o_port or default) == (port or default))


class Guard:
    """ASGI middleware refusing requests another web page could make through the user's browser.

    See the module docstring for the rules; ``allowed_hosts`` adds host
    names to the loopback ones. Every answer also gets
    :data:`SECURITY_HEADERS`.
    """

    def __init__(self, app, allowed_hosts=()):
        self.app = app
        self.hosts = set(LOOPBACK_HOSTS)
        for h in allowed_hosts:
            parsed = host_name(h.strip()) or host_name(f"[{h.strip()}]")
            if parsed is None:
                raise ValueError(f"{h!r} is not a host name or address")
            self.hosts.add(parsed[0])

    def refusal(self, scope) -> tuple[int, str] | None:
        """``(status, message)`` for a request to refuse, None for one to serve."""
        headers: dict[str, list[str]] = {}
        for k, v in scope.get("headers", []):
            headers.setdefault(k.decode("latin-1").lower(), []).append(v.decode("latin-1"))

        def one(name):
            values = headers.get(name, [])
            return values[0] if len(values) == 1 else (None if not values else "")
        host = one("host")
        parsed = host_name(host) if host else None
        if parsed is None or parsed[0] not in self.hosts:
            return 403, (f"Host {host[:100]!r} is not this server's: it answers to "
                         f"{', '.join(sorted(self.hosts))} (farl serve --allow-host adds names)"
                         if host else "a request needs one Host header naming this server")
        origin = one("origin")
        if origin is not None and not _origin_matches(origin, scope.get("scheme", "http"), *parsed):
            return 403, f"requests from other origins ({origin[:100]}) are refused: open the page this server serves"
        site = one("sec-fetch-site")
        navigation = one("sec-fetch-mode") == "navigate" and scope.get("method") in ("GET", "HEAD")
        if site is not None and site not in ("same-origin", "none") and not navigation:  # a link to the page: fine
            return 403, f"requests from other sites (Sec-Fetch-Site: {site[:30]}) are refused"
        if scope["type"] == "http" and scope.get("method", "GET") not in SAFE_METHODS:
            kind = (one("content-type") or "").split(";")[0].strip().lower()
            if kind != "application/json":
                return 415, "a POST must be sent with Content-Type: application/json"
            length = one("content-length")
            if length is not None:
                if not length.isdigit():
                    return 400, f"Content-Length {length[:30]!r} is not a number of bytes"
                if int(length) > MAX_BODY_BYTES:
                    return 413, f"the request body is {int(length):,} bytes; at most 1 MB is accepted"
        return None

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        refused = self.refusal(scope)
        if refused is not None:
            if scope["type"] == "websocket":
                return await send({"type": "websocket.close", "code": 1008})
            status, message = refused
            body = json.dumps({"error": message}, ensure_ascii=True).encode()
            await send({"type": "http.response.start", "status": status,
                        "headers": [(b"content-type", b"application/json"),
                                    (b"content-length", str(len(body)).encode()), *SECURITY_HEADERS]})
            return await send({"type": "http.response.body", "body": body})

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                names = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in SECURITY_HEADERS if k not in names]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)
        await self.app(scope, receive, send_with_headers)


class JSON(JSONResponse):
    """A JSON answer that survives any text: characters outside ASCII (and file names that are not UTF-8) are
    escaped, so rendering never fails on a string a file or a request brought in."""

    def render(self, content) -> bytes:
        return json.dumps(content, ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode("ascii")


def _opponents(g) -> list[dict]:
    """The reference opponents that can play game ``g`` (budget: the number the page lets one edit)."""
    out = [{"name": "random", "label": "random moves"}]
    if g.name == "poker":  # rule players on the mover's own view (farl_agents/opponents/poker.py)
        out += [{"name": "equity", "label": "equity (hand strength rules)"},
                {"name": "call", "label": "calling station"}]
    if g.hidden_information:  # the searches would read the others' cards (make_opponent refuses them)
        return out
    if not g.has_chance:
        out.append({"name": "maxn", "label": "Max-N (depth)", "budget": 10 if g.n_players > 2 else 15})
    out.append({"name": "mcts", "label": "MCTS (iterations)", "budget": 1000})
    if g.name == "connect_four" and (g.params.get("rows"), g.params.get("cols")) == (6, 7):
        out += [{"name": "ab", "label": "AB (perfect)"}, {"name": "ab-dl", "label": "AB-DL (perfect, delays losses)"}]
    if g.name == "othello":
        out += [{"name": "bench", "label": "Bench (heuristic)"}, {"name": "bench-gbg", "label": "Bench as GBG"}]
    if g.name == "nim":
        out.append({"name": "bouton", "label": "Bouton (perfect)"})
    if g.name == "blackjack":
        out.append({"name": "basic-strategy", "label": "basic strategy (the chart)"})
    return out + [e for e in ENGINES.get(g.name, ()) if _engine_available(e["name"], g)]


ENGINES = {
    "othello": ({"name": "edax", "label": "Edax engine (depth)", "budget": 1},
                {"name": "grhino", "label": "GRhino engine (level 1-5)", "budget": 3}),
    "hex": ({"name": "mohex", "label": "MoHex engine (simulations)", "budget": 1000},),
}
"""External engines a seat may hold, offered only where :func:`make_opponent` builds them (installed)."""
_ENGINE_CACHE: dict = {}


def _engine_available(name: str, g) -> bool:
    """Whether :func:`make_opponent` accepts engine ``name`` for ``g`` here (asked once per game and parameters;
    an engine that is not installed raises ValueError or RuntimeError). A built player is closed at once."""
    from farl_agents.opponents import make_opponent

    key = (name, g.id, tuple(sorted(g.params.items())))
    if key not in _ENGINE_CACHE:
        try:
            player = make_opponent(name, g)
        except (ValueError, RuntimeError, OSError):
            _ENGINE_CACHE[key] = False
        else:
            _ENGINE_CACHE[key] = True
            with contextlib.suppress(Exception):
                getattr(player, "close", lambda: None)()
    return _ENGINE_CACHE[key]


def game_info(name: str, g=None) -> dict:
    g = g or farl_envs.game_spec(name)
    n_grid = int(np.prod(g.grid_shape)) if g.grid_shape else 0
    return {
        "name": g.name, "id": g.id, "params": g.params, "n_players": g.n_players, "has_chance": g.has_chance,
        "n_actions": g.n_actions, "n_cells": g.n_cells, "grid_shape": list(g.grid_shape), "hex_grid": g.hex_grid,
        "cell_colors": [list(c) for c in g.cell_colors], "has_paint": g.paint is not None,
        # placement games: action a puts a piece on board cell a (the last action may be a pass)
        "cell_actions": bool(n_grid == g.n_cells and g.n_actions in (g.n_cells, g.n_cells + 1)),
        "view": g.view,  # the game's own SVG drawing on the page, or "generic" (the cell board of views.py)
        "seat_colours": views.seat_colours(g),
        "opponents": _opponents(g),
    }


class App:
    """State of one server: the served folder, the games in progress, the agent thread, the loaded agents."""

    def __init__(self, root, time_limit: float = 30.0):
        self.root = Path(root)
        if not self.root.is_dir():
            raise ValueError(f"the folder to serve must exist, got {root}")
        self.secret = str(self.root.resolve())
        self.sessions = Sessions()
        self.worker = AgentWorker(time_limit)
        self.players = files.SharedPlayers()

    def scrub(self, message: str) -> str:
        """``message`` without the served folder's absolute path."""
        return files.scrub(message, self.secret)

    # --------------------------------------------------------------- seats
    def seat(self, choice, game) -> Seat:
        from farl_agents.opponents import make_opponent, parse_opponent
        from farl_agents.opponents.wrappers import split_wrapped, wrap

        if not isinstance(choice, str) or not choice.strip():
            raise RequestError(f"a seat must be 'human', an opponent name, 'agent:PATH', 'pretrained' or a search "
                               f"around an agent such as 'pretrained+mcts1000', got {choice!r}")
        choice = choice.strip()
        if choice == HUMAN:
            return Seat(choice)
        try:
            wrapped = split_wrapped(choice, caps={"mcts": MAX_MCTS_ITERATIONS, "chance": MAX_MCTS_ITERATIONS,
                                                  "maxn": MAX_MAXN_DEPTH, "paranoid": MAX_MAXN_DEPTH,
                                                  "expectimax": MAX_MAXN_DEPTH})
        except ValueError as exc:
            raise RequestError(str(exc)) from None
        if wrapped is not None:  # a search around the inner seat's agent, which is loaded (and shared) as usual
            inner = self.seat(wrapped.inner, game)
            if inner.human:
                raise RequestError(f"{choice!r}: a person cannot be wrapped in a search")
            try:
                return Seat(choice, wrap(inner.player, wrapped, game, display=choice))
            except ValueError as exc:
                raise RequestError(self.scrub(str(exc))) from None
        if choice.startswith("agent:"):
            return Seat(choice, files.load_agent(self.root, choice[len("agent:"):], game, self.players))
        if choice.lower() == "pretrained":  # the shipped agent, shared like an agent file
            return Seat(choice, self.players.pretrained(game))
        try:
            parse_opponent(choice, caps={"mcts": MAX_MCTS_ITERATIONS, "maxn": MAX_MAXN_DEPTH})  # forms, ranges
            return Seat(choice, make_opponent(choice, game))
        except (ValueError, RuntimeError) as exc:
            raise RequestError(str(exc)) from None

    def game_of(self, body: dict):
        """The game (spec) that ``body``'s ``game`` and ``params`` name; RequestError for bad ones."""
        name = body.get("game")
        if not isinstance(name, str):
            raise RequestError(f"game must be one of {', '.join(g[:-3] for g in farl_envs.list_games())}")
        params = body.get("params") or {}
        if not isinstance(params, dict) or not all(isinstance(v, (int, str, bool)) for v in params.values()):
            raise RequestError("params must be an object of integers, booleans or strings")
        try:
            return game_with_params(name, params)
        except ValueError as exc:
            raise RequestError(str(exc)) from None

    def new_game(self, body: dict) -> dict:
        game = self.game_of(body)
        seats = body.get("seats")
        if not isinstance(seats, list) or len(seats) != game.n_players:
            raise RequestError(f"seats must be a list of {game.n_players} choices for {game.id} "
                               f"('human', an opponent name, 'agent:PATH' or 'pretrained'), got {seats!r}")
        seed = body.get("seed", 0)
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
            raise RequestError(f"seed must be an integer >= 0, got {seed!r}")
        chosen = [self.seat(c, game) for c in seats]
        return self.sessions.add(game, chosen, seed).view()

    def locked(self, sid: str, fn):
        """``fn(session)`` holding the session's lock."""
        session = self.sessions.get(sid)
        with session.lock:
            return fn(session)


def _error(status: int, message: str) -> JSONResponse:
    return JSON({"error": message}, status_code=status)


def _parse(raw: bytes) -> dict:
    """The JSON object of a request body (an empty body is ``{}``); RequestError for anything else."""
    if not raw.strip():
        return {}
    try:
        body = json.loads(raw)
    except (ValueError, RecursionError):  # RecursionError: nesting deeper than the parser's stack
        raise RequestError("the request body must be a JSON object") from None
    if not isinstance(body, dict):
        raise RequestError("the request body must be a JSON object")
    return body


async def _body(request: Request) -> dict:
    """The request's JSON object, read up to :data:`MAX_BODY_BYTES` (413 beyond: a body without a
    Content-Length is counted as it arrives) and parsed on a worker thread, off the event loop."""
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise RequestError("the request body is over 1 MB, the most accepted", 413)
        chunks.append(chunk)
    return await run_in_threadpool(_parse, b"".join(chunks))


def _lifespan(state: App):
    @contextlib.asynccontextmanager
    async def lifespan(app):
        yield
        state.worker.shutdown()
    return lifespan


def create_app(root, time_limit: float = 30.0, allowed_hosts=()) -> Starlette:
    """The ``farl serve`` web app over the folder ``root``; agents' moves wait at most ``time_limit`` s.

    ``allowed_hosts``: host names or addresses the app answers to besides the loopback ones (for a server
    other machines reach; see the module docstring).
    """
    state = App(root, time_limit)

    async def index(request):
        return FileResponse(STATIC / "index.html")

    async def games(request):
        return JSON([game_info(g[:-3]) for g in farl_envs.list_games()])

    async def spec(request):  # the game at the parameters the page's form holds: its seats follow it
        body = await _body(request)
        return JSON(await run_in_threadpool(lambda: game_info(None, state.game_of(body))))

    async def favicon(request):
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    async def agents(request):
        found = await run_in_threadpool(files.list_agents, state.root)
        shipped = pretrained.available()
        return JSON({**found, "pretrained": shipped,
                     "pretrained_params": {g: pretrained.card(g)["game_params"] for g in shipped}})

    async def runs(request):
        return JSON(await run_in_threadpool(files.list_runs, state.root))

    async def run(request):
        return JSON(await run_in_threadpool(files.run_data, state.root, request.query_params.get("path")))

    async def new(request):
        body = await _body(request)
        return JSON(await run_in_threadpool(state.new_game, body))

    async def view(request):
        sid = request.path_params["sid"]
        return JSON(await run_in_threadpool(state.locked, sid, lambda s: s.view()))

    async def move(request):
        sid = request.path_params["sid"]
        body = await _body(request)
        if "action" not in body:
            raise RequestError("give the move as {\"action\": index}")

        def play(s):
            s.human_move(body["action"])
            return s.view()
        return JSON(await run_in_threadpool(state.locked, sid, play))

    async def undo(request):
        sid = request.path_params["sid"]

        def back(s):
            s.undo()
            return s.view()
        return JSON(await run_in_threadpool(state.locked, sid, back))

    async def agent(request):
        sid = request.path_params["sid"]

        def start(s):
            if s.pending is None:
                if s.over:
                    raise RequestError("the game is over", 409)
                seat = s.seats[s.mover]
                if seat.human:
                    raise RequestError(f"seat {s.mover} is yours to move", 409)
                s.pending = state.worker.submit(seat.player.act, s.game, s.state.copy(), s.rng)
            return s, s.pending
        session, future = await run_in_threadpool(state.locked, sid, start)
        try:
            action = await state.worker.wait(future)
        except asyncio.TimeoutError:
            return JSON({**session.view(), "message": f"still thinking after {state.worker.time_limit:g} s; "
                         "ask again for the move"}, status_code=202)
        except Exception as exc:  # the agent failed: report it, forget the move, keep serving
            def drop(s):
                if s.pending is future:
                    s.pending = None
            await run_in_threadpool(state.locked, sid, drop)
            return _error(500, state.scrub(f"the agent failed: {type(exc).__name__}: {exc}"))

        def finish(s):
            if s.pending is future:
                s.pending = None
                s.agent_move_done(int(action))
            return s.view()
        return JSON(await run_in_threadpool(state.locked, sid, finish))

    async def thoughts(request):
        sid = request.path_params["sid"]
        session = state.sessions.get(sid)
        if session.over:
            return JSON({"agent": None, "values": {}, "best": None, "note": "the game is over"})
        future = state.worker.submit(state.locked, sid, lambda s: s.thoughts())  # not while a move changes it
        try:
            return JSON(await state.worker.wait(future))
        except asyncio.TimeoutError:
            return _error(503, f"the agent needed more than {state.worker.time_limit:g} s")

    async def request_error(request, exc: RequestError):
        return _error(exc.status, state.scrub(str(exc)))

    async def http_error(request, exc: HTTPException):
        return _error(exc.status_code, state.scrub(str(exc.detail or "error")))

    async def server_error(request, exc: Exception):
        return _error(500, state.scrub(f"{type(exc).__name__}: {exc}")[:500])

    routes = [
        Route("/", index),
        Route("/favicon.ico", favicon),
        Route("/api/games", games),
        Route("/api/spec", spec, methods=["POST"]),
        Route("/api/agents", agents),
        Route("/api/runs", runs),
        Route("/api/run", run),
        Route("/api/new", new, methods=["POST"]),
        Route("/api/game/{sid}", view),
        Route("/api/game/{sid}/move", move, methods=["POST"]),
        Route("/api/game/{sid}/agent", agent, methods=["POST"]),
        Route("/api/game/{sid}/undo", undo, methods=["POST"]),
        Route("/api/game/{sid}/thoughts", thoughts),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={RequestError: request_error, HTTPException: http_error,
                                                      Exception: server_error},
                    middleware=[Middleware(Guard, allowed_hosts=tuple(allowed_hosts))], lifespan=_lifespan(state))
    app.state.farl = state
    return app
