"""Nemesh's training sessions and the report's bootstrapping curriculum (Shalita, Saranga & Haim 2013,
sections 4.1.3, 7.3).

A *session* is a number of games between two of the report's player kinds
(:data:`~farl_agents.nemesh.learner.RANDOM`, ``TRAINER``, ``AGENT``) at a
search depth, with the learning-rate turn counter starting at ``turn_start``
(T0) and the exploration move counters starting afresh (each of the
report's sessions was a new run of its training program):

* ``"random"`` -- AGENT against RANDOM; the agent takes seat 1 in even games
  and seat 2 in odd ones, so both weight vectors learn ("for both player1 and
  player2");
* ``"self"`` -- AGENT against AGENT: both seats learn their own weights;
* ``"trainer"`` -- AGENT against TRAINER (the same search with the other
  seat's current weights, always exploiting, not learning), seats alternating.

Presets (``PRESETS``): ``report`` is the report's schedule -- 1,000 games
against random at depth 3, then 100,000 self-play games at depth 3, 4 and 5
with the turn counter starting at 0, 10 and 20 -- and ``quick`` a
seconds-long version for tests. :func:`scaled` shrinks a preset's game
counts for smaller budgets.

Training is resumable at any game: the agent's ``progress`` records the
preset, the session, the games done in it and the exploration counters, and
it is saved in the agent file together with the random stream.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Callable

import numpy as np

from farl_agents.nemesh.learner import AGENT, RANDOM, TRAINER, play_games

OPPONENTS = ("random", "self", "trainer")


@dataclass(frozen=True)
class Session:
    """One training session: ``games`` games of the agent against ``opponent`` at ``depth`` plies."""

    opponent: str
    games: int
    depth: int
    turn_start: int = 0

    def __post_init__(self):
        if self.opponent not in OPPONENTS:
            raise ValueError(f"session opponent must be one of {', '.join(OPPONENTS)}, got {self.opponent!r}")
        for name in ("games", "depth", "turn_start"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < (1 if name != "turn_start" else 0):
                raise ValueError(f"session {name} must be an integer >= {1 if name != 'turn_start' else 0}, got {v!r}")

    def kinds(self, game_index: int) -> np.ndarray:
        """The two seats' player kinds for the session's game ``game_index``."""
        if self.opponent == "self":
            return np.array([AGENT, AGENT], dtype=np.int64)
        other = RANDOM if self.opponent == "random" else TRAINER
        pair = [AGENT, other] if game_index % 2 == 0 else [other, AGENT]
        return np.array(pair, dtype=np.int64)


PRESETS = {
    "report": (Session("random", 1_000, 3, 0), Session("self", 100_000, 3, 0),
               Session("self", 100_000, 4, 10), Session("self", 100_000, 5, 20)),
    "quick": (Session("random", 60, 2, 0), Session("self", 60, 2, 0), Session("self", 30, 3, 10)),
}
"""Named curricula; ``report`` is section 4.1.3's."""


def preset(name: str) -> tuple[Session, ...]:
    if name not in PRESETS:
        raise ValueError(f"unknown Nemesh preset {name!r}; use one of {', '.join(PRESETS)}")
    return PRESETS[name]


def scaled(sessions, fraction: float) -> tuple[Session, ...]:
    """The sessions with their game counts multiplied by ``fraction`` (at least one game each)."""
    if not 0 < fraction <= 1e6:
        raise ValueError(f"the games fraction must be > 0, got {fraction!r}")
    return tuple(Session(s.opponent, max(1, round(s.games * fraction)), s.depth, s.turn_start) for s in sessions)


def total_games(sessions) -> int:
    return sum(s.games for s in sessions)


def sessions_to_json(sessions) -> list:
    return [asdict(s) for s in sessions]


def sessions_from_json(items) -> tuple[Session, ...]:
    try:
        return tuple(Session(**d) for d in items)
    except TypeError as exc:
        raise ValueError(f"bad session list: {exc}") from None


def start(agent, sessions) -> None:
    """Point ``agent.progress`` at the start of ``sessions`` (unless it is already inside them)."""
    want = sessions_to_json(sessions)
    if agent.progress.get("sessions") != want:
        agent.progress = {"sessions": want, "session": 0, "games": 0, "moves_made": [0, 0]}


def finished(agent) -> bool:
    prog = agent.progress
    return bool(prog) and prog["session"] >= len(prog["sessions"])


def train(agent, sessions, chunk_games: int = 50, on_chunk: Callable | None = None) -> np.ndarray:
    """Run ``sessions`` on ``agent`` from where its ``progress`` stands (resumes mid-session).

    ``on_chunk(agent, results)`` is called after every chunk of at most
    ``chunk_games`` games with their ``float64[k, 3]`` results (player 1's
    and player 2's reward, plies); it may return ``False`` to stop early (the
    agent's progress then says where to continue). Returns the results of all
    games played in this call.
    """
    sessions = tuple(sessions)
    start(agent, sessions)
    prog = agent.progress
    p = agent.game.p
    out = []
    while prog["session"] < len(sessions):
        sess = sessions[prog["session"]]
        scratch = agent.scratch(sess.depth)
        depths = np.array([sess.depth, sess.depth], dtype=np.int64)
        moves = np.array(prog["moves_made"], dtype=np.int64)
        while prog["games"] < sess.games:
            k = min(chunk_games, sess.games - prog["games"])
            results = np.zeros((k, 3))
            if sess.opponent == "self":
                play_games(p, k, sess.kinds(0), depths, agent.weights, sess.turn_start, agent.settings.alpha0,
                           agent.settings.gamma, moves, agent.rng, *scratch.arrays(), results)
            else:
                for i in range(k):  # seats alternate game by game
                    play_games(p, 1, sess.kinds(prog["games"] + i), depths, agent.weights, sess.turn_start,
                               agent.settings.alpha0, agent.settings.gamma, moves, agent.rng, *scratch.arrays(),
                               results[i:i + 1])
            if not np.all(np.isfinite(agent.weights)):
                raise RuntimeError("Nemesh's weights diverged (not finite); lower alpha0")
            prog["games"] += k
            prog["moves_made"] = [int(m) for m in moves]
            agent.games_done += k
            out.append(results)
            if on_chunk is not None and on_chunk(agent, results) is False:
                return np.concatenate(out) if out else np.zeros((0, 3))
        prog["session"] += 1
        prog["games"] = 0
        prog["moves_made"] = [0, 0]
    return np.concatenate(out) if out else np.zeros((0, 3))


def train_preset(agent, name: str = "quick", fraction: float = 1.0, **kw) -> np.ndarray:
    """Train ``agent`` on the preset ``name`` (game counts times ``fraction``)."""
    sessions = preset(name) if fraction == 1.0 else scaled(preset(name), fraction)
    return train(agent, sessions, **kw)
