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

Every figure of farl's results is drawn by :func:`plot_panels`: the caller
describes what to draw as :class:`Panel` values holding :class:`Series`
(lines with optional ± bands, or bars with error bars) and :class:`Reference`
lines, and this module does all the matplotlib work. A run's ``curve.png``
(:func:`plot_curve`), the descent experiments (:func:`plot_series`), Table 1's
rows (``experiments/table1_report.py``), the SB3 baselines and comparisons
(``baselines/measure.py``) and Nemesh's win rates (``nemesh/experiments.py``)
all go through it.
"""
from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from farl_agents.atomic import atomic_file, atomic_write_text

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


# ---------------------------------------------------------------- the one plotter
BAND_ALPHA = 0.2
"""Opacity of the ± bands around curves."""
BAR_GROUP_WIDTH = 0.76
"""Width of a group of bars at one category (the bars of a panel's bar series side by side)."""


@dataclass(frozen=True)
class Series:
    """One curve (or one set of bars) of a panel.

    ``low``/``high``: a band around ``y`` (lines) or the ends of error bars (bars), else None.
    ``kind="bar"``: one bar per x, where ``x`` are category positions 0..n-1 (``Panel.xticklabels`` names them);
    the bar series of a panel stand side by side.
    """

    label: str | None
    x: Sequence
    y: Sequence
    low: Sequence | None = None
    high: Sequence | None = None
    kind: str = "line"
    color: str | None = None
    linestyle: str = "-"
    marker: str | None = "o"
    linewidth: float | None = None

    def __post_init__(self):
        if self.kind not in ("line", "bar"):
            raise ValueError(f"a series is a line or a bar, not {self.kind!r}")
        n = len(self.x)
        if len(self.y) != n:
            raise ValueError(f"series {self.label!r}: {n} x values but {len(self.y)} y values")
        if (self.low is None) != (self.high is None):
            raise ValueError(f"series {self.label!r}: give both ends of the band (low and high) or neither")
        if self.low is not None and not len(self.low) == len(self.high) == n:
            raise ValueError(f"series {self.label!r}: the band must have one low and one high per x ({n})")


@dataclass(frozen=True)
class Reference:
    """A horizontal line at ``y`` (e.g. a paper's final result)."""

    y: float
    label: str | None = None
    color: str | None = None
    linestyle: str = "--"


@dataclass(frozen=True)
class Panel:
    """One set of axes: its series, labels, scale, references and (optional) series on a right-hand axis."""

    series: Sequence[Series]
    title: str = ""
    xlabel: str = ""
    ylabel: str = ""
    xscale: str = "linear"
    ylim: tuple | None = None
    xticklabels: Sequence[str] | None = None
    references: Sequence[Reference] = ()
    legend: str | None = "best"
    """Where the legend goes (a matplotlib ``loc``), or None for no legend."""
    right: Sequence[Series] = ()
    right_ylabel: str = ""
    right_legend: str | None = "lower right"


def _draw_series(ax, series: Sequence[Series]) -> None:
    bars = [s for s in series if s.kind == "bar"]
    width = BAR_GROUP_WIDTH / max(1, len(bars))
    for s in series:
        x, y = np.asarray(s.x, dtype=float), np.asarray(s.y, dtype=float)
        if s.kind == "bar":
            k = bars.index(s)
            yerr = None if s.low is None else np.vstack([y - np.asarray(s.low, float), np.asarray(s.high, float) - y])
            ax.bar(x + (k - (len(bars) - 1) / 2) * width, y, width, yerr=yerr, label=s.label, color=s.color)
            continue
        (line,) = ax.plot(x, y, ls=s.linestyle, marker=s.marker, ms=3, lw=s.linewidth, color=s.color, label=s.label)
        if s.low is not None:
            ax.fill_between(x, np.asarray(s.low, float), np.asarray(s.high, float), color=line.get_color(),
                            alpha=BAND_ALPHA, linewidth=0)


def _draw_panel(ax, panel: Panel) -> None:
    _draw_series(ax, panel.series)
    for ref in panel.references:
        ax.axhline(ref.y, color=ref.color, ls=ref.linestyle, lw=1, label=ref.label)
    ax.set_xscale(panel.xscale)
    if panel.xticklabels is not None:
        ax.set_xticks(np.arange(len(panel.xticklabels)), list(panel.xticklabels))
    if panel.ylim is not None:
        ax.set_ylim(*panel.ylim)
    ax.set_xlabel(panel.xlabel)
    ax.set_ylabel(panel.ylabel)
    if panel.title:
        ax.set_title(panel.title, fontsize=9)
    ax.grid(alpha=0.3)
    if panel.legend is not None and ax.get_legend_handles_labels()[0]:
        ax.legend(loc=panel.legend, fontsize=8)
    if panel.right:
        ax2 = ax.twinx()
        _draw_series(ax2, panel.right)
        ax2.set_ylabel(panel.right_ylabel, color="grey")
        if panel.right_legend is not None:
            ax2.legend(loc=panel.right_legend, fontsize=8)


def figure(panels: Sequence[Panel], title: str | None = None, columns: int = 1, panel_size=(7.0, 4.0)):
    """The matplotlib Figure of ``panels``, ``columns`` to a row (the caller closes it)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if not panels:
        raise ValueError("nothing to plot: no panels")
    rows = -(-len(panels) // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(panel_size[0] * columns, panel_size[1] * rows), squeeze=False)
    for i, ax in enumerate(axes.flat):
        if i < len(panels):
            _draw_panel(ax, panels[i])
        else:
            ax.set_visible(False)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig


def plot_panels(path, panels: Sequence[Panel], title: str | None = None, columns: int = 1,
                panel_size=(7.0, 4.0), dpi: int = 100) -> None:
    """Draw ``panels`` into the PNG ``path`` (written atomically): every figure of farl goes through here."""
    import matplotlib.pyplot as plt

    fig = figure(panels, title, columns, panel_size)
    buf = io.BytesIO()
    try:
        fig.savefig(buf, format="png", dpi=dpi)
    finally:
        plt.close(fig)
    with atomic_file(path, "wb") as fh:
        fh.write(buf.getvalue())


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
