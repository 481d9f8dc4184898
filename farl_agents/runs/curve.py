"""Learning curves of every run: one CSV layout, one reader, and farl's one plotter.

A curve row is taken at a *curve point* of a run (see :mod:`farl_agents.runs.run`)::

    episode         episodes (games) of training done at the point
    env_steps       environment steps of the learner (SB3 baselines; empty for the others)
    train_seconds   training time so far, evaluations excluded
    wall_seconds    wall time so far, evaluations and compilation included
    train_reward    mean reward of player 0 in the training games since the previous row
    train_plies     mean plies of those games
    score_<opp>     evaluation score against <opp>: win rate (draw = ½) for two players, else mean score
    se_<opp>        its standard error

Empty cells are ``None``. Files written by farl 0.1 n-tuple runs have no
``train_seconds`` column; they read the same, with ``None`` there.

Every figure of farl's results is drawn by farl's one plotter,
:func:`farl_agents.plotting.plot_panels` (imported here, so ``Panel``,
``Series``, ``Reference``, ``figure`` and ``plot_panels`` are also found under
this module's name): a run's ``curve.png`` (:func:`plot_curve`) and several
runs' curves (:func:`plot_series`) are drawn from the rows here.
"""
from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np

from farl_agents.atomic import atomic_write_text
from farl_agents.plotting import Panel, Reference, Series, figure, plot_panels

__all__ = ["ALONE", "COLUMNS", "Panel", "Reference", "Series", "curve_csv", "curve_panel", "figure", "plot_curve",
           "plot_panels", "plot_series", "read_curve", "score_columns", "write_curve"]

COLUMNS = ("episode", "env_steps", "train_seconds", "wall_seconds", "train_reward", "train_plies")
ALONE = "alone"
"""The evaluation "opponent" of one-player games (2048): the agent plays by itself."""
INTEGER_COLUMNS = ("episode", "env_steps")


def score_columns(eval_vs) -> list[str]:
    """``score_<opp>``, ``se_<opp>`` for every evaluation opponent, in order."""
    cols = []
    for o in eval_vs:
        cols += [f"score_{o}", f"se_{o}"]
    return cols


def curve_csv(rows: list, eval_vs) -> str:
    """The text of a ``curve.csv`` holding ``rows``."""
    cols = list(COLUMNS) + score_columns(eval_vs)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(cols)

    def cell(c, x):
        if x is None:
            return ""
        if c in INTEGER_COLUMNS:
            return int(x)
        return f"{x:.3f}" if c.endswith("_seconds") else f"{x:.7g}"

    for r in rows:
        w.writerow([cell(c, r.get(c)) for c in cols])
    return buf.getvalue()


def write_curve(path, rows: list, eval_vs) -> None:
    """Write ``rows`` to ``path`` atomically."""
    atomic_write_text(path, curve_csv(rows, eval_vs))


def read_curve(path) -> list[dict]:
    """The rows of a ``curve.csv`` as dicts of floats (None for empty cells); ``episode`` is an int.

    ``[]`` when the file does not exist; ``ValueError`` when it is not a curve file.
    """
    path = Path(path)
    if not path.exists():
        return []
    rows = []
    try:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                row = {k: (None if v == "" else (int(v) if k in INTEGER_COLUMNS else float(v))) for k, v in r.items()}
                row.setdefault("train_seconds", None)
                row.setdefault("env_steps", None)
                rows.append(row)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{path} is not a learning-curve file ({type(exc).__name__}: {exc})") from None
    return rows


def curve_panel(rows: list, eval_vs, title: str, x: str = "episode") -> Panel:
    """A run's curve as a panel: evaluation scores ± 1 s.e. (left axis), mean training reward (right axis).

    ``x`` is the column on the horizontal axis: ``episode``, ``env_steps`` or ``train_seconds``.
    """
    xs = [r.get(x) for r in rows]
    series = []
    for o in eval_vs:
        pts = [(a, r.get(f"score_{o}"), r.get(f"se_{o}")) for a, r in zip(xs, rows)]
        pts = [p for p in pts if p[0] is not None and p[1] is not None]
        if pts:
            xa, ya, ea = (np.array([np.nan if v is None else v for v in col], dtype=float) for col in zip(*pts))
            ea = np.nan_to_num(ea)
            series.append(Series(f"vs {o}" if o != ALONE else "score (greedy)", xa, ya, ya - ea, ya + ea))
    tr = [(a, r["train_reward"]) for a, r in zip(xs, rows) if a is not None and r.get("train_reward") is not None]
    right = [Series("training reward (player 0)", *map(list, zip(*tr)), color="grey", linestyle="--", marker=None,
                    linewidth=1)] if tr else []
    return Panel(series, title=title,
                 xlabel={"episode": "training episodes", "env_steps": "environment steps"}.get(x, "training seconds"),
                 ylabel="evaluation score (win rate or mean score)", legend="upper left" if eval_vs else None,
                 right=right, right_ylabel="mean training reward of player 0")


def plot_curve(rows: list, eval_vs, path, title: str, x: str = "episode") -> None:
    """Draw a run's ``curve.png`` (see :func:`curve_panel`)."""
    plot_panels(path, [curve_panel(rows, eval_vs, title, x)])


def plot_series(path, series: dict, title: str, xlabel: str = "training seconds",
                ylabel: str = "score (win = 1, draw = ½)") -> None:
    """Draw several curves in one PNG: ``{label: (x, mean, low, high)}`` (low/high: a band, or None)."""
    lines = [Series(label, xs, mean, low, high) for label, (xs, mean, low, high) in series.items()]
    plot_panels(path, [Panel(lines, title=title, xlabel=xlabel, ylabel=ylabel,
                             legend="best" if len(lines) > 1 else None)], panel_size=(6.4, 4.0))
