"""Where the pretrained agents live and what their cards say: paths and cards, importing nothing of farl.

A leaf under the learners: :meth:`farl_agents.learners.NTupleAgent.pretrained` reads its paths, and
:mod:`farl_agents.pretrained` (which loads the agents, so sits above the learners) re-exports it. The files
themselves are in the ``farl_agents/pretrained/`` folder; see :mod:`farl_agents.pretrained` for them and
:func:`farl_agents.pretrained.load` for the agents.
"""
from __future__ import annotations

import json
from pathlib import Path

FOLDER = Path(__file__).parent / "pretrained"
"""Where the shipped agents and cards live (inside the installed package)."""


def available() -> list[str]:
    """The games that have a pretrained agent (a card and its agent file), sorted."""
    return sorted(p.stem for p in FOLDER.glob("*.json") if (FOLDER / f"{p.stem}.npz").is_file())


def _key(game) -> str:
    if not isinstance(game, str):
        raise ValueError(f"game must be a game name such as 'tictactoe', got {game!r}")
    key = game.strip().lower().removesuffix("_v0")
    have = available()
    if key not in have:
        raise ValueError(f"no pretrained agent for {game!r}; pretrained agents exist for: {', '.join(have) or 'none'}"
                         f" (`farl pretrained build GAME` makes one)")
    return key


def agent_path(game: str) -> Path:
    """The agent file of ``game``'s pretrained agent; ValueError naming the available games if it has none."""
    return FOLDER / f"{_key(game)}.npz"


def card(game: str) -> dict:
    """``game``'s card (the parsed ``GAME.json``); ValueError naming the available games if it has none."""
    return json.loads((FOLDER / f"{_key(game)}.json").read_text())


def game_key(game) -> str:
    """``game`` as the name of an available pretrained agent (``connect_four_v0`` -> ``connect_four``)."""
    return _key(game)
