"""Learning curves of a descent run: f_θ measured at fixed steps of training time.

At every ``every_seconds`` of training time t (the trainer's clock: only
self-play and fitting count, so measuring costs no training budget), the
current f_θ plays with the tournament's match player -- fixed-depth
alpha-beta (depth ``depth``, completion folded in) -- against one fixed
reference opponent (``vs``, default ``mcts100``) through
:func:`farl_agents.evaluate.evaluate`: ``games`` games per seat from random
``opening_plies``-ply openings. Every point uses the same seed, so every
point meets the same openings and the points differ by f_θ, not by luck of
the draw. Point k is taken at the first game end with t ≥ k·S (point 0 is
the untrained f_θ); one more point is taken when the budget T is used up.

Files in the run folder::

    DIR/curve.csv   one row per point: point, train_seconds, games, score
                    (win rate, draw = ½), se (its standard error), wins, draws,
                    losses, opponent, eval_seconds (wall time of the measurement)
    DIR/curve.png   score against training time, with a ±1 s.e. band

Both are rewritten whole and atomically after each point. On resume, rows
with more games than the checkpoint being resumed are dropped (they belong to
training that is about to be redone), so a killed and resumed run has no
duplicated or lost rows: every kept row describes a state on the resumed
run's history, and the next point is k = number of kept rows.
"""
from __future__ import annotations

import csv
import io
import math
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from farl_agents.atomic import atomic_file, atomic_write_text

COLUMNS = ("point", "train_seconds", "games", "score", "se", "wins", "draws", "losses", "opponent",
           "eval_seconds")


@dataclass(frozen=True)
class CurveSettings:
    """How a run measures its learning curve (saved in ``run.json`` under ``"curve"``)."""

    every_seconds: float = 15.0
    """S: training seconds between points (0: no curve)."""
    vs: str = "mcts100"
    """The reference opponent (a :func:`farl_agents.opponents.make_opponent` name)."""
    games: int = 10
    """Games per seat and point."""
    depth: int = 2
    """Alpha-beta depth of the measured player (the tournament's default)."""
    opening_plies: int = 2
    """Random plies before each game (the tournament's openings)."""
    seed: int = 0
    """Seed of every point's evaluation (the same openings at every point)."""

    def check(self, game=None) -> "CurveSettings":
        def need(ok, msg):
            if not ok:
                raise ValueError(msg)

        need(isinstance(self.every_seconds, (int, float)) and math.isfinite(self.every_seconds)
             and self.every_seconds >= 0, f"--eval-every-seconds must be a number >= 0 (0: no learning curve), "
                                          f"got {self.every_seconds!r}")
        need(isinstance(self.games, int) and self.games >= 1, f"--eval-games must be an integer >= 1, got {self.games!r}")
        need(isinstance(self.depth, int) and self.depth >= 1, f"--eval-depth must be an integer >= 1, got {self.depth!r}")
        need(isinstance(self.opening_plies, int) and self.opening_plies >= 0, "opening_plies must be >= 0")
        if game is not None and self.enabled:
            from farl_agents.opponents import make_opponent

            try:
                make_opponent(self.vs, game)
            except (ValueError, RuntimeError) as exc:
                raise ValueError(f"--eval-vs {self.vs}: {str(exc).splitlines()[0]}") from None
        return self

    @property
    def enabled(self) -> bool:
        return self.every_seconds > 0

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict | None) -> "CurveSettings | None":
        if not d:
            return None
        try:
            return cls(**d).check()
        except TypeError as exc:
            raise ValueError(f"run.json holds unknown learning-curve settings ({exc})") from None


def measure(trainer, settings: CurveSettings) -> dict:
    """One point: the trainer's current f_θ (fixed-depth alpha-beta) against the reference opponent."""
    from farl_agents.descent.agent import DescentAgent
    from farl_agents.evaluate import evaluate
    from farl_agents.opponents import make_opponent

    player = DescentAgent(trainer.game, trainer.evaluation, trainer.heuristic, "ab", depth=settings.depth,
                          name=f"f_θ (ab d{settings.depth})")
    opponent = make_opponent(settings.vs, trainer.game)
    t0 = time.perf_counter()
    res = evaluate(trainer.game, [player], [opponent], n_games=settings.games,
                   start_states=("random", settings.opening_plies) if settings.opening_plies else "initial",
                   seed=settings.seed, keep_games=False)
    m = res.matchups[0]
    return {"train_seconds": round(trainer.elapsed, 3), "games": trainer.games, "score": round(m.score, 4),
            "se": round(m.win_rate_se if m.win_rate_se is not None else m.score_se, 4), "wins": m.wins,
            "draws": m.draws, "losses": m.losses, "opponent": settings.vs,
            "eval_seconds": round(time.perf_counter() - t0, 3)}


def read_curve(path) -> list[dict]:
    """The rows of a ``curve.csv`` (numbers as numbers); [] if the file does not exist."""
    path = Path(path)
    if not path.exists():
        return []
    rows = []
    try:
        with open(path, newline="") as fh:
            for row in csv.DictReader(fh):
                rows.append({"point": int(row["point"]), "train_seconds": float(row["train_seconds"]),
                             "games": int(row["games"]), "score": float(row["score"]), "se": float(row["se"]),
                             "wins": int(row["wins"]), "draws": int(row["draws"]), "losses": int(row["losses"]),
                             "opponent": row["opponent"], "eval_seconds": float(row["eval_seconds"])})
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{path} is not a learning-curve file ({type(exc).__name__}: {exc})") from None
    return rows


def plot_curves(path, series: dict, title: str, ylabel: str = "score (win = 1, draw = ½)") -> None:
    """Draw ``{label: (t, mean, low, high)}`` (low/high: the band, or None) into a PNG, atomically."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=110)
    for label, (t, mean, low, high) in series.items():
        (line,) = ax.plot(t, mean, marker="o", ms=3, label=label)
        if low is not None:
            ax.fill_between(t, low, high, color=line.get_color(), alpha=0.18, linewidth=0)
    ax.set_xlabel("training seconds")
    ax.set_ylabel(ylabel)
    ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)
    ax.set_title(title, fontsize=9)
    if len(series) > 1:
        ax.legend(fontsize=8)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    with atomic_file(path, "wb") as fh:
        fh.write(buf.getvalue())


class CurveLog:
    """The learning curve of the run in ``folder``: decides when a point is due, records and draws it."""

    def __init__(self, folder, settings: CurveSettings, title: str = ""):
        self.folder = Path(folder)
        self.settings = settings
        self.title = title
        self.rows = read_curve(self.csv_path)

    @property
    def csv_path(self) -> Path:
        return self.folder / "curve.csv"

    @property
    def png_path(self) -> Path:
        return self.folder / "curve.png"

    def align(self, games: int) -> None:
        """Keep only the rows taken at or before ``games`` (the checkpoint being resumed)."""
        kept = [r for r in self.rows if r["games"] <= games]
        if len(kept) != len(self.rows):
            self.rows = kept
            self._write()

    def due(self, trainer, final: bool = False) -> bool:
        """Is point k = len(rows) due (t ≥ k·S), or, with ``final``, has f_θ changed since the last point?"""
        if self.rows and self.rows[-1]["games"] >= trainer.games:
            return False
        return final or trainer.elapsed >= self.settings.every_seconds * len(self.rows)

    def seconds_to_next(self, trainer) -> float:
        return self.settings.every_seconds * len(self.rows) - trainer.elapsed

    def record(self, trainer) -> dict:
        row = {"point": len(self.rows), **measure(trainer, self.settings)}
        self.rows.append(row)
        self._write()
        return row

    def _write(self) -> None:
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(self.rows)
        atomic_write_text(self.csv_path, buf.getvalue())
        if self.rows:
            t = [r["train_seconds"] for r in self.rows]
            s = [r["score"] for r in self.rows]
            se = [r["se"] for r in self.rows]
            st = self.settings
            title = (f"{self.title}\nf_θ (alpha-beta depth {st.depth}) vs {st.vs}, "
                     f"{2 * st.games} games per point, band ±1 s.e.")
            plot_curves(self.png_path, {"f_θ": (t, s, [a - b for a, b in zip(s, se)],
                                                [a + b for a, b in zip(s, se)])}, title.strip())
