"""How a baseline run is budgeted and measured: budgets, checkpoints, the evaluator, curve rows and plots.

Apart from :mod:`farl_agents.baselines.train` (the SB3 side) so that the
comparison (``studies/compare/compare.py``) and the tests use them
without importing torch.
"""
from __future__ import annotations

import csv
import time

from farl_agents.plotting import Panel, Series, plot_panels
from farl_envs.core.spec import GameSpec


def eval_opponents(game: GameSpec) -> list[str]:
    """The default evaluation opponents of ``game`` (names for :func:`make_opponent`); empty for 2048."""
    name = game.name
    if name == "tictactoe":
        return ["maxn10", "random"]
    if name == "connect_four":
        if game.params.get("rows") == 6 and game.params.get("cols") == 7:
            # the perfect player and its delayed-loss variant exist for the standard board only
            return ["ab", "ab-dl", "mcts200", "random"]
        return ["mcts200", "random"]
    if name == "hex":
        return ["mcts200", "random"]
    if name == "othello":
        return ["bench", "random"]
    if name == "nim":
        return ["bouton", "random"]
    if name == "nim3p":
        return ["maxn15", "random"]
    return []


def eval_games(game: GameSpec) -> int:
    """Default games per seat and opponent at each checkpoint."""
    return 50 if game.n_players > 1 else 20


# ------------------------------------------------------------------ budget
class Budget:
    """A training budget in environment steps and/or seconds of training wall-clock.

    ``done`` once every given budget is spent; evaluation time spent inside
    :meth:`paused` is not counted.
    """

    def __init__(self, steps: int | None = None, seconds: float | None = None):
        if steps is None and seconds is None:
            raise ValueError("give a budget: steps and/or seconds")
        self.steps = steps
        self.seconds = seconds
        self._t0 = None
        self._paused = 0.0

    def start(self) -> None:
        self._t0 = time.perf_counter()
        self._paused = 0.0

    def elapsed(self) -> float:
        """Training seconds so far (evaluations excluded)."""
        return 0.0 if self._t0 is None else time.perf_counter() - self._t0 - self._paused

    def paused(self):
        budget = self

        class _Pause:
            def __enter__(self):
                self.t = time.perf_counter()

            def __exit__(self, *exc):
                budget._paused += time.perf_counter() - self.t

        return _Pause()

    def fractions(self, steps: int, seconds: float | None = None) -> list[float]:
        out = []
        if self.steps is not None:
            out.append(steps / self.steps)
        if self.seconds is not None:
            out.append((self.elapsed() if seconds is None else seconds) / self.seconds)
        return out

    def remaining(self, steps: int) -> float:
        """Training progress still ahead, 1 → 0 (SB3's ``progress_remaining``, e.g. DQN's ε schedule).

        Measured in steps whenever there is a step budget, so that a run's
        first S steps do not depend on the machine's speed; by the clock otherwise.
        """
        done = steps / self.steps if self.steps is not None else self.elapsed() / self.seconds
        return float(min(max(1.0 - done, 0.0), 1.0))

    def done(self, steps: int, seconds: float | None = None) -> bool:
        """All budgets spent (``seconds``: the training time to judge by, default now)."""
        return min(self.fractions(steps, seconds)) >= 1.0


# -------------------------------------------------------------- the curve
class Checkpoints:
    """Evaluation points: ``points`` per given budget (steps and/or seconds), plus step 0.

    They are spaced by factors of 2 and end at the budget (B/2^(points-1), ...,
    B/4, B/2, B): learning curves are read on a log scale.
    """

    def __init__(self, budget: Budget, points: int = 10):
        if points < 1:
            raise ValueError(f"eval_points must be >= 1, got {points}")

        def marks(total):
            return [] if total is None else [total / 2 ** (points - 1 - k) for k in range(points)]

        self.step_marks = marks(budget.steps)
        self.time_marks = marks(budget.seconds)

    def due(self, steps: int, seconds: float) -> list[str]:
        """Which marks were passed (``"steps"`` / ``"time"``), consuming them."""
        hits = []
        while self.step_marks and steps >= self.step_marks[0] - 1e-9:
            self.step_marks.pop(0)
            hits.append("steps")
        while self.time_marks and seconds >= self.time_marks[0]:
            self.time_marks.pop(0)
            hits.append("time")
        return hits


class Evaluator:
    """``evaluator(player) -> {label: (score, se)}`` with the farl harness against fixed opponents.

    Two-player games: win rate (draw = 1/2) against each opponent, all seats;
    Nim3P: mean score with the opponent in both other seats; 2048: mean
    score (label ``"score"``).
    """

    def __init__(self, game: GameSpec, opponents=None, n_games: int | None = None, seed: int = 12345):
        from farl_agents.opponents import make_opponent

        self.game = game
        names = eval_opponents(game) if opponents is None else list(opponents)
        if game.n_players > 1 and not names:
            raise ValueError(f"{game.id}: give at least one evaluation opponent")
        self.opponents = [make_opponent(o, game) if isinstance(o, str) else o for o in names]
        self.labels = [o if isinstance(o, str) else o.name for o in names] if game.n_players > 1 else ["score"]
        self.n_games = eval_games(game) if n_games is None else int(n_games)
        self.seed = seed

    def __call__(self, player) -> dict:
        from farl_agents.evaluate import evaluate

        if self.game.n_players == 1:
            r = evaluate(self.game, player, None, n_games=self.n_games, seed=self.seed, keep_games=False)
            m = r.matchups[0]
            return {"score": (m.mean_score, m.score_se)}
        r = evaluate(self.game, player, self.opponents, n_games=self.n_games, seed=self.seed, keep_games=False)
        return {label: (m.score, m.win_rate_se if m.win_rate_se is not None else m.score_se)
                for label, m in zip(self.labels, r.matchups)}


def curve_row(steps: int, seconds: float, episodes: int, marks: list, scores: dict) -> dict:
    row = {"steps": int(steps), "seconds": round(float(seconds), 3), "episodes": int(episodes),
           "checkpoint": "+".join(marks) if marks else "start"}
    for label, (score, se) in scores.items():
        row[label] = round(float(score), 5)
        row[f"{label}_se"] = round(float(se), 5)
    return row


def write_curve_csv(rows: list, path) -> None:
    keys = list(dict.fromkeys(k for r in rows for k in r))
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        w.writerows(rows)


def plot_curves(curves: dict, labels: list, path, title: str, metric: str) -> None:
    """PNG of score vs environment steps and vs training seconds; ``curves``: {learner: rows}.

    One row of panels per evaluation label, logarithmic x axes (the start point, at 0, is left out).
    """
    styles = ["-", "--", ":", "-."]
    panels = []
    for li, label in enumerate(labels):
        for xi, (xkey, xname) in enumerate((("steps", "environment steps"), ("seconds", "training seconds"))):
            lines = []
            for ci, (learner, rows) in enumerate(curves.items()):
                pts = sorted((r[xkey], r[label]) for r in rows if label in r and r[xkey] > 0)  # log axis
                if pts:
                    lines.append(Series(learner, [p[0] for p in pts], [p[1] for p in pts],
                                        linestyle=styles[ci % len(styles)]))
            panels.append(Panel(lines, xlabel=xname, xscale="log",
                                ylabel=f"{metric} vs {label}" if label != "score" else metric,
                                legend="best" if li == 0 and xi == 0 else None))
    plot_panels(path, panels, title=title, columns=2, panel_size=(5.5, 3.2), dpi=90)
