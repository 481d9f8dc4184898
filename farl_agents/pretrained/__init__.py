"""Pretrained agents shipped with farl: one TD-FARL agent per game, each with a generated JSON card.

For each game with an agent this folder holds ``GAME.npz`` (an ordinary farl agent file, sparse) and
``GAME.json``, its card: the command that built it (``farl pretrained build GAME``) and its budget, preset,
seed, farl version and date, its strength as measured by the evaluation harness, and the file's sha256 and
size. Nothing in a card is typed by hand: the builder study (``studies/pretrained/build.py``, run by
``farl pretrained build``) writes them. Their paths and cards are read by :mod:`farl_agents.zoo` (a leaf the
learners use too); this package adds :func:`load`.

>>> from farl_agents import pretrained
>>> pretrained.available()                          # doctest: +SKIP
['amazons', 'breakthrough', 'chinese_checkers', 'clobber', 'connect_four', ...]
>>> agent = pretrained.load("tictactoe")            # an NTupleAgent; also NTupleAgent.pretrained("tictactoe")
"""
from __future__ import annotations

from farl_agents import zoo
from farl_agents.learners.agent import NTupleAgent
from farl_agents.zoo import FOLDER, agent_path, available, card, game_key


def load(game: str) -> NTupleAgent:
    """``game``'s pretrained agent as an :class:`~farl_agents.learners.NTupleAgent` (read with the checked
    agent-file loader); ValueError naming the available games if it has none."""
    return NTupleAgent.pretrained(game)


__all__ = ["FOLDER", "agent_path", "available", "card", "game_key", "load", "zoo"]
