"""What an evaluation returns: per-seat and per-matchup statistics, as tables and JSON.

Scores are summed rewards of the evaluated player; for two-player games a
win counts 1, a draw ½ and a loss 0 in the win rate. Standard errors are of
the mean over games.
"""
from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field

import numpy as np

from farl_agents.atomic import atomic_write_json


@dataclass
class SeatStats:
    """Results of one matchup with the evaluated player in one seat."""

    seat: int
    n_games: int
    wins: int
    draws: int
    losses: int
    mean_score: float
    score_se: float
    win_rate: float | None = None
    """None where the headline is the mean score (N players, games for chips)."""
    win_rate_se: float | None = None


@dataclass
class Matchup:
    """One evaluated player against one opponent (or one set of seat-fillers)."""

    player: str
    opponent: str
    n_games: int
    wins: int
    draws: int
    losses: int
    mean_score: float
    score_se: float
    win_rate: float | None
    win_rate_se: float | None
    per_seat: list = field(default_factory=list)
    """:class:`SeatStats` per seat the evaluated player took."""
    games: list = field(default_factory=list)
    """One dict per game: ``seat``, ``start`` (index, -1 for a fresh start),
    ``score`` (the evaluated player's final reward), ``rewards`` (everybody's),
    ``plies``."""

    @property
    def score(self) -> float:
        """The headline number: the win rate where it was measured (two players playing for a result), else the
        mean score."""
        return self.win_rate if self.win_rate is not None else self.mean_score


@dataclass
class EvalResult:
    """Everything :func:`evaluate` measured, JSON-serialisable via :meth:`to_dict`."""

    game: str
    params: dict
    n_players: int
    metric: str
    """``"win_rate"`` (two players playing for a result) or ``"mean_score"`` (N players, puzzles, chip games)."""
    start_states: str
    n_starts: int
    seats: list
    seed: int
    protocol: str | None
    matchups: list
    seconds: float = 0.0

    # single-matchup conveniences
    def _only(self) -> Matchup:
        if len(self.matchups) != 1:
            raise ValueError(f"{len(self.matchups)} matchups: index result.matchups instead")
        return self.matchups[0]

    @property
    def score(self) -> float:
        return self._only().score

    @property
    def win_rate(self):
        return self._only().win_rate

    @property
    def mean_score(self) -> float:
        return self._only().mean_score

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "EvalResult":
        d = dict(d)
        ms = []
        for m in d.pop("matchups"):
            m = dict(m)
            m["per_seat"] = [SeatStats(**s) for s in m["per_seat"]]
            ms.append(Matchup(**m))
        return cls(matchups=ms, **d)

    def to_json(self, path) -> None:
        """Write :meth:`to_dict` as JSON to ``path`` atomically (temp file + rename)."""
        atomic_write_json(path, self.to_dict())

    @classmethod
    def from_json(cls, path) -> "EvalResult":
        with open(path) as f:
            return cls.from_dict(json.load(f))

    def table(self) -> str:
        """A plain-text summary: one line per matchup and seat."""
        two = self.metric == "win_rate"
        head = f"{self.game} {self.params} starts={self.start_states} ({self.n_starts}) seed={self.seed}"
        lines = [head]
        for m in self.matchups:
            lines.append(f"{m.player} vs {m.opponent}: " + _fmt(m, two))
            for s in m.per_seat:
                lines.append(f"    seat {s.seat}: " + _fmt(s, two))
        return "\n".join(lines)


def _fmt(x, two: bool) -> str:
    if two:
        return (f"win rate {100 * x.win_rate:.1f}% +- {100 * x.win_rate_se:.1f}%  "
                f"(W/D/L {x.wins}/{x.draws}/{x.losses} of {x.n_games}), score {x.mean_score:+.3f}")
    return f"mean score {x.mean_score:.4g} +- {x.score_se:.2g} over {x.n_games} games"


def _stats(values) -> tuple[float, float]:
    v = np.asarray(values, dtype=np.float64)
    if v.size == 0:
        return float("nan"), float("nan")
    se = float(v.std(ddof=1) / math.sqrt(v.size)) if v.size > 1 else 0.0
    return float(v.mean()), se


def summarise(records: list, two: bool, seat: int | None = None) -> dict:
    scores = [r["score"] for r in records]
    wins = sum(1 for s in scores if s > 0)
    losses = sum(1 for s in scores if s < 0)
    mean, se = _stats(scores)
    out = {"n_games": len(records), "wins": wins, "draws": len(scores) - wins - losses,
           "losses": losses, "mean_score": mean, "score_se": se, "win_rate": None, "win_rate_se": None}
    if two:
        out["win_rate"], out["win_rate_se"] = _stats([1.0 if s > 0 else (0.0 if s < 0 else 0.5) for s in scores])
    if seat is not None:
        out["seat"] = seat
    return out
