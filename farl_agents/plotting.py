"""farl's one plotter: every figure of farl's results is drawn by :func:`plot_panels`.

The caller describes what to draw as :class:`Panel` values holding :class:`Series` (lines with optional ± bands,
or bars with error bars) and :class:`Reference` lines, and this module does all the matplotlib work. A run's
``curve.png`` (:mod:`farl_agents.runs.curve`), the SB3 baselines and comparisons (``baselines/measure.py``) and
the studies' pages all go through it. It sits below the runs (it imports nothing of farl but the atomic
writes), so the learner families' own code can draw without importing the run stack.
"""
from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from farl_agents.atomic import atomic_file

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


