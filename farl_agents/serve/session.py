"""One game in the browser: the position, its history, who sits where, and the agents' moves.

A :class:`Session` holds a game (a :class:`~farl_envs.core.spec.GameSpec`),
the kernel state, the moves played, and per seat either ``None`` (a person
plays it in the browser) or a harness player (:mod:`farl_agents.players`).
Everything is done with the game's own kernels (``legal_actions``,
``afterstate``, ``chance``), exactly as ``farl play`` does in the terminal,
so the rules the page shows are the rules the agents were trained on.

Undo goes back to the position before the last move a person made (the
agents' replies are taken back with it); with only agents seated it takes
back the last move.

The agents' moves and "what the agent thinks" are computed by
:class:`AgentWorker`: one background thread, so a search never blocks the
web server's event loop thread and two searches never share an agent's
buffers; a request waits for it at most ``time_limit`` seconds and otherwise
answers "still thinking" (the move is kept and applied on the next request).
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import itertools
import math
import threading
from dataclasses import dataclass, field

import numpy as np

from farl_agents.serve import views
from farl_envs.core.rng import make_rng
from farl_envs.core.spec import TERMINAL, TO_MOVE, GameSpec

HUMAN = "human"
"""The seat choice of a person playing in the browser."""


class RequestError(ValueError):
    """A request the server refuses: its ``status`` (4xx) and a message for the page."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


@dataclass
class Seat:
    """Who plays one seat: a person (``player is None``) or a harness player, and the choice that made it."""

    choice: str
    player: object = None

    @property
    def human(self) -> bool:
        return self.player is None

    @property
    def name(self) -> str:
        return "you" if self.player is None else str(self.player.name)


@dataclass
class Snapshot:
    """What undo restores: the position, the reward sums and the length of the move list then."""

    state: np.ndarray
    totals: np.ndarray
    n_moves: int


@dataclass
class Session:
    """One game in progress (see the module docstring)."""

    id: str
    game: GameSpec
    seats: list
    seed: int = 0
    state: np.ndarray = None
    totals: np.ndarray = None
    moves: list = field(default_factory=list)
    history: list = field(default_factory=list)
    pending: object = None
    """The agent move being computed (a ``concurrent.futures.Future``), or None."""
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)
    """Held while a request reads or changes this game; it lives and goes with the session."""

    def __post_init__(self):
        self.rng = make_rng(self.seed)
        self.state = self.game.initial_state(self.game.p, self.rng)
        self.totals = np.zeros(self.game.n_players)
        self._mask = np.zeros(self.game.n_actions, dtype=np.int8)
        self._rewards = np.zeros(self.game.n_players)

    # ------------------------------------------------------------------ rules
    def legal(self) -> list[int]:
        if self.state[TERMINAL]:
            return []
        self.game.legal_actions(self.game.p, self.state, self._mask)
        return [int(a) for a in np.flatnonzero(self._mask)]

    @property
    def mover(self) -> int:
        return int(self.state[TO_MOVE])

    @property
    def over(self) -> bool:
        return bool(self.state[TERMINAL])

    def action_name(self, a: int) -> str:
        names = self.game.action_names
        return str(names[a]) if names else str(a)

    def _apply(self, a: int) -> None:
        g = self.game
        seat = self.mover
        cells = views.move_cells(g, self.state, int(a))  # before the move: the cells it goes from and to
        g.afterstate(g.p, self.state, int(a), self.state, self._rewards)
        self.totals += self._rewards
        chance = None
        if g.has_chance and not self.state[TERMINAL]:
            code = int(g.chance(g.p, self.state, self.rng))
            chance = g.chance_info(code) if g.chance_info is not None else code
        self.moves.append({"seat": seat, "action": int(a), "name": self.action_name(a),
                           "by": self.seats[seat].name, "chance": _plain(chance),
                           "cells": cells})

    def human_move(self, a) -> None:
        """Play action ``a`` for the person to move; RequestError if it is not theirs or not legal."""
        self._check_idle()
        if self.over:
            raise RequestError("the game is over: start a new one or undo", 409)
        if not self.seats[self.mover].human:
            raise RequestError(f"it is {self.seats[self.mover].name}'s turn (seat {self.mover}), not yours", 409)
        if isinstance(a, bool) or not isinstance(a, int):
            raise RequestError(f"action must be an integer, got {a!r}")
        legal = self.legal()
        if a not in legal:
            raise RequestError(f"action {a} is not legal here; legal: "
                               f"{', '.join(f'{m} ({self.action_name(m)})' for m in legal)}")
        self.history.append(Snapshot(self.state.copy(), self.totals.copy(), len(self.moves)))
        self._apply(a)

    def agent_move_done(self, a: int) -> None:
        """Apply the move an agent chose (checked against the rules first)."""
        if a not in self.legal():
            raise RequestError(f"{self.seats[self.mover].name} chose the illegal action {a}", 500)
        if not any(s.human for s in self.seats):  # agents only: every move can be taken back
            self.history.append(Snapshot(self.state.copy(), self.totals.copy(), len(self.moves)))
        self._apply(a)

    def undo(self) -> None:
        self._check_idle()
        if not self.history:
            raise RequestError("nothing to undo yet", 409)
        snap = self.history.pop()
        self.state, self.totals = snap.state, snap.totals
        del self.moves[snap.n_moves:]

    def _check_idle(self) -> None:
        if self.pending is not None:
            raise RequestError("an agent is still thinking; wait for its move", 409)

    # ------------------------------------------------------------------ views
    def result_text(self) -> str | None:
        if not self.over:
            return None
        humans = [i for i, s in enumerate(self.seats) if s.human]
        if self.game.n_players == 1:
            return f"game over: score {self.totals[0]:,.0f}"
        if self.game.n_players == 2 and len(humans) == 1:
            mine = self.totals[humans[0]]
            return "you win" if mine > 0 else ("you lose" if mine < 0 else "draw")
        best = max(self.totals)
        winners = [i for i in range(self.game.n_players) if self.totals[i] == best]
        if len(winners) == self.game.n_players:
            return "draw"
        return "winner: " + ", ".join(f"seat {i} ({self.seats[i].name})" for i in winners)

    def view(self) -> dict:
        """Everything the page draws, as plain JSON."""
        g = self.game
        board = np.zeros(g.n_cells, dtype=np.int32)
        g.board(g.p, self.state, board)
        paint = g.paint(g.p, self.state).tolist() if g.paint is not None else None
        legal = self.legal()
        # hidden information (Kuhn poker): the person at the table sees only the own cards (views.visible_seats)
        visible = views.visible_seats(g, self.state, [i for i, s in enumerate(self.seats) if s.human])
        return {
            "id": self.id, "game": g.name, "params": g.params, "n_players": g.n_players,
            "seats": [{"seat": i, "human": s.human, "name": s.name, "choice": s.choice}
                      for i, s in enumerate(self.seats)],
            "to_move": self.mover, "terminal": self.over, "ply": int(self.state[2]),
            "board": board.tolist(), "paint": paint, "text": g.render_text(g.p, self.state),
            "legal": [{"action": a, "name": self.action_name(a)} for a in legal],
            "totals": [float(x) for x in self.totals], "moves": list(self.moves),
            "result": self.result_text(), "human_to_move": (not self.over) and self.seats[self.mover].human,
            "thinking": self.pending is not None, "can_undo": bool(self.history),
            "roll": views.roll(g, self.state),
            **views.describe(g, self.state, legal, visible),  # layout, pieces, each action's clicks, seat colours
            **views.private(g, self.state, visible),  # text, board and paint without the cards hidden from the viewer
        }

    # --------------------------------------------------------- agent thoughts
    def thoughts(self) -> dict:
        """Values of every legal move for the player to move, as an agent of this game sees them.

        The first seat (in seat order) whose player can score moves gives them: an n-tuple TD agent
        each move's afterstate value (plus the move's immediate reward; a terminal afterstate is worth
        its reward alone, and is left blank in a game with hidden information, where that reward would show
        the hidden cards: Kuhn poker's call), Max-N its search value, MCTS each move's share of its visits, AB / AB-DL
        the solver's score of each column, Bench its positional score (the players' ``move_scores``).
        The best one is the move that player would choose. Runs on the agent thread (see
        :class:`AgentWorker`); searches draw from their own generator, so showing the values changes
        nothing in the game.
        """
        from farl_agents.learners.agent import NTupleAgent
        from farl_agents.opponents import MCTS, BenchPlayer, MaxN, PerfectConnectFour

        g, s, mover = self.game, self.state, self.mover
        legal = self.legal()
        rng = make_rng(self.seed + 7919 * (len(self.moves) + 1))
        for seat in self.seats:
            p = seat.player
            if isinstance(p, NTupleAgent) and p.config.algo == "td":
                after = np.empty_like(s)
                rew = np.zeros(g.n_players)
                values = {}
                for a in legal:
                    g.afterstate(g.p, s, a, after, rew)
                    if after[TERMINAL] and g.hidden_information:  # its reward would tell the hidden cards
                        values[a] = math.nan
                        continue
                    v = float(rew[mover]) + (0.0 if after[TERMINAL] else p.afterstate_value(after, mover))
                    values[a] = v
                return _thought_result(p.name, "afterstate value (n-tuple network)", values, mover)
            if isinstance(p, MaxN) and legal:
                vals = p.action_values(g, s)
                return _thought_result(p.name, f"Max-N value (depth {p.depth})",
                                       {a: float(vals[a, mover]) for a in legal}, mover)
            if isinstance(p, (MCTS, BenchPlayer, PerfectConnectFour)) and legal:
                scores = p.move_scores(g, s, rng)
                return _thought_result(p.name, p.score_kind, {a: float(scores[a]) for a in legal}, mover)
        return {"agent": None, "kind": None, "values": {}, "best": None,
                "note": "no player in this game scores moves (n-tuple TD agents, Max-N, MCTS, AB, AB-DL and "
                        "Bench do): nothing to show"}


def _thought_result(name, kind, values, mover) -> dict:
    finite = {a: v for a, v in values.items() if math.isfinite(v)}
    best = max(finite, key=finite.get) if finite else None
    return {"agent": name, "kind": kind, "seat": mover, "best": best,
            "values": {str(a): (round(v, 4) if math.isfinite(v) else None) for a, v in values.items()}}


def _plain(x):
    """Chance information as JSON (tuples of numpy ints -> lists of ints, dicts kept)."""
    if x is None:
        return None
    if isinstance(x, (tuple, list)):
        return [_plain(y) for y in x]
    if isinstance(x, dict):  # EinStein's {"roll": r}
        return {str(k): _plain(y) for k, y in x.items()}
    if isinstance(x, (np.integer, int)):
        return int(x)
    return str(x)


class AgentWorker:
    """Runs agents' searches on one background thread, each awaited for at most ``time_limit`` seconds."""

    def __init__(self, time_limit: float = 30.0):
        if not time_limit > 0:
            raise ValueError(f"time_limit must be > 0 seconds, got {time_limit!r}")
        self.time_limit = float(time_limit)
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="farl-agent")

    def submit(self, fn, *args) -> concurrent.futures.Future:
        return self._pool.submit(fn, *args)

    async def wait(self, future: concurrent.futures.Future):
        """The future's result, or ``TimeoutError`` after ``time_limit`` (the work goes on in the background)."""
        return await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(future)), self.time_limit)

    def shutdown(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


class Sessions:
    """The games in progress, by id (a counter: the server is local, one person's tabs).

    Each session carries its own lock (:attr:`Session.lock`), so dropping the
    oldest games beyond :attr:`MAX` drops their locks with them: nothing kept
    per session outlives it.
    """

    MAX = 200
    """Oldest games are dropped beyond this many."""

    def __init__(self):
        self._games: dict[str, Session] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._games)

    def add(self, game: GameSpec, seats: list, seed: int) -> Session:
        with self._lock:
            sid = f"g{next(self._ids)}"
            s = Session(sid, game, seats, seed)
            self._games[sid] = s
            while len(self._games) > self.MAX:
                self._games.pop(next(iter(self._games)))
            return s

    def get(self, sid: str) -> Session:
        s = self._games.get(sid)
        if s is None:
            raise RequestError(f"no game {sid!r} (the server may have restarted): start a new game", 404)
        return s

    @property
    def locks(self) -> dict[str, threading.Lock]:
        """The per-session locks, by id (a snapshot; one per live session)."""
        with self._lock:
            return {sid: s.lock for sid, s in self._games.items()}
