"""``farl serve``: play farl's games in the browser against agents and reference opponents.

A small local web app: a JSON API (:mod:`farl_agents.serve.app`) over game
sessions played on the games' own kernels (:mod:`farl_agents.serve.session`),
each game's board and the cells each legal move is clicked as, computed from
the game's own rules (:mod:`farl_agents.serve.views`), and static HTML/JS/SVG
pages (``static/``) that need no build step, keep no rules and load nothing
from the network, so they work offline.

Why Starlette + uvicorn: the app is a dozen JSON routes and a folder of static
files. Starlette (the ASGI toolkit FastAPI is built on) gives routing, JSON
responses, static files, a thread pool for blocking work and a test client,
with two small pure-Python dependencies (anyio, and uvicorn as the server);
FastAPI would add pydantic and request models we validate by hand anyway
(every request is checked in :mod:`farl_agents.serve.app` with messages that
name the allowed values). Both are actively maintained and widely used;
Flask would need a separate WSGI server and has no async waiting for the
agent thread.

Install with ``pip install "farl-rl[web]"``; start with ``farl serve [DIR]``
(see :mod:`farl_agents.cli.serve`).
"""
from farl_agents.serve.app import create_app

__all__ = ["create_app"]
