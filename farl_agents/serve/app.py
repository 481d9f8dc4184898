"""The ASGI app of ``farl serve``: a JSON API over :mod:`farl_agents.serve.session` and the static pages.

Endpoints (every answer is JSON; a refused request gets a 4xx status and
``{"error": message}``, and the server carries on)::

    GET  /api/games                   every registered game: default parameters, board layout, opponents
    GET  /api/agents                  agent files and run folders under the served folder (+ pretrained agents
                                      and the game parameters each was trained with)
    GET  /api/runs                    run folders (with a curve.csv) under the served folder
    GET  /api/run?path=REL            one run's curve rows and evaluation results
    POST /api/new                     {game, params, seats: [choice per seat], seed} -> the game's view
    GET  /api/game/ID                 the view: board, legal moves, move list, result
    POST /api/game/ID/move            {action}: the person to move plays it
    POST /api/game/ID/agent           the agent to move plays (waits at most the time limit; 202 while thinking)
    POST /api/game/ID/undo            back to before the person's last move
    GET  /api/game/ID/thoughts        the value of every legal move as an agent of the game sees it

A seat choice is ``"human"``, an opponent name of
:func:`farl_agents.opponents.make_opponent` (``random``, ``maxn10``,
``mcts5000``, ``ab``, ``ab-dl``, ``bench``, ``bouton`` ...), ``"agent:REL"``
(an agent file or run folder under the served folder) or ``"pretrained"`` (the agent
:mod:`farl_agents.pretrained` ships for the game, when there is one).
"""
from __future__ import annotations

import asyncio
import contextlib
import threading
from pathlib import Path

import numpy as np
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

import farl_envs
from farl_agents import pretrained
from farl_agents.serve import files
from farl_agents.serve.session import HUMAN, AgentWorker, RequestError, Seat, Sessions

STATIC = Path(__file__).parent / "static"
MAX_MCTS_ITERATIONS = 200_000
MAX_MAXN_DEPTH = 20
GAME_SPECIFIC_VIEWS = ("tictactoe", "connect_four", "hex", "othello", "nim", "nim3p", "game2048")
"""Games the page draws with their own SVG; the others get the generic grid (or move buttons)."""


def _opponents(g) -> list[dict]:
    """The reference opponents that can play game ``g`` (budget: the number the page lets one edit)."""
    out = [{"name": "random", "label": "random moves"}]
    if not g.has_chance:
        out.append({"name": "maxn", "label": "Max-N (depth)", "budget": 10 if g.n_players > 2 else 15})
    out.append({"name": "mcts", "label": "MCTS (iterations)", "budget": 1000})
    if g.name == "connect_four" and (g.params.get("rows"), g.params.get("cols")) == (6, 7):
        out += [{"name": "ab", "label": "AB (perfect)"}, {"name": "ab-dl", "label": "AB-DL (perfect, delays losses)"}]
    if g.name == "othello":
        out += [{"name": "bench", "label": "Bench (heuristic)"}, {"name": "bench-gbg", "label": "Bench as GBG"}]
    if g.name == "nim":
        out.append({"name": "bouton", "label": "Bouton (perfect)"})
    return out


def game_info(name: str, g=None) -> dict:
    g = g or farl_envs.game_spec(name)
    n_grid = int(np.prod(g.grid_shape)) if g.grid_shape else 0
    return {
        "name": g.name, "id": g.id, "params": g.params, "n_players": g.n_players, "has_chance": g.has_chance,
        "n_actions": g.n_actions, "n_cells": g.n_cells, "grid_shape": list(g.grid_shape), "hex_grid": g.hex_grid,
        "cell_colors": [list(c) for c in g.cell_colors], "has_paint": g.paint is not None,
        # placement games: action a puts a piece on board cell a (the last action may be a pass)
        "cell_actions": bool(n_grid == g.n_cells and g.n_actions in (g.n_cells, g.n_cells + 1)),
        "view": g.name if g.name in GAME_SPECIFIC_VIEWS else "generic",
        "opponents": _opponents(g),
    }


class App:
    """State of one server: the served folder, the games in progress, the agent thread."""

    def __init__(self, root, time_limit: float = 30.0):
        self.root = Path(root)
        if not self.root.is_dir():
            raise ValueError(f"the folder to serve must exist, got {root}")
        self.sessions = Sessions()
        self.worker = AgentWorker(time_limit)
        self.locks: dict[str, threading.Lock] = {}

    # --------------------------------------------------------------- seats
    def seat(self, choice, game) -> Seat:
        from farl_agents.opponents import make_opponent, parse_opponent

        if not isinstance(choice, str) or not choice.strip():
            raise RequestError(f"a seat must be 'human', an opponent name, 'agent:PATH' or 'pretrained', "
                               f"got {choice!r}")
        choice = choice.strip()
        if choice == HUMAN:
            return Seat(choice)
        if choice.startswith("agent:"):
            return Seat(choice, files.load_agent(self.root, choice[len("agent:"):], game))
        try:
            parse_opponent(choice, caps={"mcts": MAX_MCTS_ITERATIONS, "maxn": MAX_MAXN_DEPTH})  # forms, ranges
            return Seat(choice, make_opponent(choice, game))
        except (ValueError, RuntimeError) as exc:
            raise RequestError(str(exc)) from None

    def new_game(self, body: dict) -> dict:
        from farl_agents.cli.common import CliError, game_with_params

        name = body.get("game")
        if not isinstance(name, str):
            raise RequestError(f"game must be one of {', '.join(g[:-3] for g in farl_envs.list_games())}")
        params = body.get("params") or {}
        if not isinstance(params, dict) or not all(isinstance(v, (int, str, bool)) for v in params.values()):
            raise RequestError("params must be an object of integers, booleans or strings")
        try:
            game = game_with_params(name, params)
        except CliError as exc:
            raise RequestError(str(exc)) from None
        seats = body.get("seats")
        if not isinstance(seats, list) or len(seats) != game.n_players:
            raise RequestError(f"seats must be a list of {game.n_players} choices for {game.id} "
                               f"('human', an opponent name, 'agent:PATH' or 'pretrained'), got {seats!r}")
        seed = body.get("seed", 0)
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
            raise RequestError(f"seed must be an integer >= 0, got {seed!r}")
        chosen = [self.seat(c, game) for c in seats]
        session = self.sessions.add(game, chosen, seed)
        self.locks[session.id] = threading.Lock()
        return session.view()

    def locked(self, sid: str, fn):
        session = self.sessions.get(sid)
        with self.locks[sid]:
            return fn(session)


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _body(request: Request) -> dict:
    try:
        body = await request.json()
    except ValueError:
        raise RequestError("the request body must be a JSON object") from None
    if not isinstance(body, dict):
        raise RequestError("the request body must be a JSON object")
    return body


def _lifespan(state: App):
    @contextlib.asynccontextmanager
    async def lifespan(app):
        yield
        state.worker.shutdown()
    return lifespan


def create_app(root, time_limit: float = 30.0) -> Starlette:
    """The ``farl serve`` web app over the folder ``root``; agents' moves wait at most ``time_limit`` s."""
    state = App(root, time_limit)

    async def index(request):
        return FileResponse(STATIC / "index.html")

    async def games(request):
        return JSONResponse([game_info(g[:-3]) for g in farl_envs.list_games()])

    async def agents(request):
        found = await run_in_threadpool(files.list_agents, state.root)
        shipped = pretrained.available()
        return JSONResponse({"agents": found, "pretrained": shipped,
                             "pretrained_params": {g: pretrained.card(g)["game_params"] for g in shipped}})

    async def runs(request):
        return JSONResponse(await run_in_threadpool(files.list_runs, state.root))

    async def run(request):
        return JSONResponse(await run_in_threadpool(files.run_data, state.root, request.query_params.get("path")))

    async def new(request):
        body = await _body(request)
        return JSONResponse(await run_in_threadpool(state.new_game, body))

    async def view(request):
        sid = request.path_params["sid"]
        return JSONResponse(await run_in_threadpool(state.locked, sid, lambda s: s.view()))

    async def move(request):
        sid = request.path_params["sid"]
        body = await _body(request)
        if "action" not in body:
            raise RequestError("give the move as {\"action\": index}")

        def play(s):
            s.human_move(body["action"])
            return s.view()
        return JSONResponse(await run_in_threadpool(state.locked, sid, play))

    async def undo(request):
        sid = request.path_params["sid"]

        def back(s):
            s.undo()
            return s.view()
        return JSONResponse(await run_in_threadpool(state.locked, sid, back))

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
            return JSONResponse({**session.view(), "message": f"still thinking after {state.worker.time_limit:g} s; "
                                 "ask again for the move"}, status_code=202)
        except Exception as exc:  # the agent failed: report it, forget the move, keep serving
            def drop(s):
                if s.pending is future:
                    s.pending = None
            await run_in_threadpool(state.locked, sid, drop)
            return _error(500, f"the agent failed: {type(exc).__name__}: {exc}")

        def finish(s):
            if s.pending is future:
                s.pending = None
                s.agent_move_done(int(action))
            return s.view()
        return JSONResponse(await run_in_threadpool(state.locked, sid, finish))

    async def thoughts(request):
        session = state.sessions.get(request.path_params["sid"])
        if session.over:
            return JSONResponse({"agent": None, "values": {}, "best": None, "note": "the game is over"})
        future = state.worker.submit(session.thoughts)
        try:
            return JSONResponse(await state.worker.wait(future))
        except asyncio.TimeoutError:
            return _error(503, f"the agent needed more than {state.worker.time_limit:g} s")

    async def request_error(request, exc: RequestError):
        return _error(exc.status, str(exc))

    async def http_error(request, exc: HTTPException):
        return _error(exc.status_code, exc.detail or "error")

    async def server_error(request, exc: Exception):
        return _error(500, f"{type(exc).__name__}: {exc}")

    routes = [
        Route("/", index),
        Route("/api/games", games),
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
                    lifespan=_lifespan(state))
    app.state.farl = state
    return app
