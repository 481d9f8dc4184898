"""farl's one plotter (:mod:`farl_agents.runs.curve`) and the figures drawn through it.

The figures are checked by their data, not their pixels: what the axes hold (line points, band
edges, bar heights, error bars, reference lines), and what each results script hands the plotter
(Table 1's mean ± s.e. over runs, the SB3 comparison's points, Nemesh's win rates).
"""
import json
import math
import types

import numpy as np
import pytest

from farl_agents.baselines import measure
from farl_agents.runs import curve
from farl_agents.runs.curve import Panel, Reference, Series, curve_panel, figure, plot_panels
from studies.nemesh import experiments as nemesh_experiments
from studies.table1 import table1_report
from studies.table1.table1_rows import ROWS, run_folder


def _band_edges(collection) -> tuple[float, float]:
    """Lowest and highest y of a fill_between band."""
    ys = np.concatenate([p.vertices[:, 1] for p in collection.get_paths()])
    return float(ys.min()), float(ys.max())


def test_figure_holds_the_data_of_its_panels():
    import matplotlib.pyplot as plt

    line = Series("a", [1, 10, 100], [0.2, 0.5, 0.7], [0.1, 0.4, 0.65], [0.3, 0.6, 0.9])
    plain = Series("b", [1, 10, 100], [0.3, 0.3, 0.4], linestyle="--")
    bars = [Series("x", [0, 1, 2], [0.6, 0.7, 0.2], [0.5, 0.6, 0.1], [0.7, 0.8, 0.3], kind="bar"),
            Series("y", [0, 1, 2], [0.4, 0.1, 0.9], kind="bar")]
    panels = [Panel([line, plain], xscale="log", references=[Reference(0.45, "paper")], ylabel="score",
                    right=[Series("reward", [1, 100], [-1.0, 1.0], marker=None)]),
              Panel(bars, xticklabels=["r", "m", "ab"], ylim=(0, 1.05))]
    fig = figure(panels, title="t", columns=3)
    try:
        ax, ax_bars, unused, twin = fig.axes
        assert not unused.get_visible() and ax.get_xscale() == "log" and ax.get_ylabel() == "score"
        a, b, ref = ax.get_lines()
        assert np.allclose(a.get_xdata(), [1, 10, 100]) and np.allclose(a.get_ydata(), [0.2, 0.5, 0.7])
        assert b.get_linestyle() == "--" and np.allclose(b.get_ydata(), [0.3, 0.3, 0.4])
        assert np.allclose(ref.get_ydata(), [0.45, 0.45])
        (band,) = ax.collections
        assert np.allclose(_band_edges(band), (0.1, 0.9))
        assert np.allclose(twin.get_lines()[0].get_ydata(), [-1, 1])
        heights = [p.get_height() for p in ax_bars.patches]
        assert np.allclose(heights, [0.6, 0.7, 0.2, 0.4, 0.1, 0.9])
        lefts = [p.get_x() for p in ax_bars.patches]
        assert lefts[0] < lefts[3] < lefts[1] < lefts[4]  # the two series side by side at each category
        assert [t.get_text() for t in ax_bars.get_xticklabels()] == ["r", "m", "ab"]
        (error_bars,) = ax_bars.collections  # the error bars of "x" ("y" has none)
        err_segments = error_bars.get_segments()
        assert np.allclose([(s[0][1], s[1][1]) for s in err_segments], [(0.5, 0.7), (0.6, 0.8), (0.1, 0.3)])
    finally:
        plt.close(fig)


@pytest.mark.parametrize("kwargs,needle", [
    (dict(x=[0, 1], y=[1]), "2 x values but 1 y values"),
    (dict(x=[0, 1], y=[1, 2], low=[0, 1]), "both ends"),
    (dict(x=[0, 1], y=[1, 2], low=[0], high=[1]), "one low and one high per x"),
    (dict(x=[0], y=[1], kind="pie"), "line or a bar"),
])
def test_bad_series_are_refused(kwargs, needle):
    with pytest.raises(ValueError, match=needle):
        Series("s", **kwargs)


def test_plot_panels_writes_one_png(tmp_path):
    path = tmp_path / "f.png"
    plot_panels(path, [Panel([Series("a", [0, 1], [0, 1])])])
    assert path.read_bytes()[:4] == b"\x89PNG" and [p.name for p in tmp_path.iterdir()] == ["f.png"]
    with pytest.raises(ValueError, match="no panels"):
        plot_panels(tmp_path / "g.png", [])


def test_run_curve_panel_scores_bands_and_training_reward():
    rows = [{"episode": e, "train_reward": None if e == 0 else e / 1000, "score_random": 0.5 + e / 4000,
             "se_random": 0.05, "score_maxn10": None if e == 500 else e / 4000, "se_maxn10": 0.0}
            for e in (0, 500, 1000)]
    panel = curve_panel(rows, ["random", "maxn10"], "t", x="episode")
    random, maxn = panel.series
    assert random.label == "vs random" and np.allclose(random.y, [0.5, 0.625, 0.75])
    assert np.allclose(random.high - random.low, 0.1)
    assert list(maxn.x) == [0, 1000]  # the point without a score is left out
    assert panel.right[0].x == [500, 1000] and panel.xlabel == "training episodes"


def _captured(monkeypatch, module):
    """The panels (and keyword arguments) ``module`` hands to plot_panels, instead of drawing them."""
    got = {}

    def capture(path, panels, **kwargs):
        got.update(path=path, panels=panels, **kwargs)

    monkeypatch.setattr(module, "plot_panels", capture)
    return got


def test_table1_row_curve_is_the_mean_and_se_over_runs(tmp_path, monkeypatch):
    row = ROWS["tictactoe"]
    col = f"score_{row.curve_opponent.name}"
    scores = {(True, 0): [0.1, 0.5], (True, 1): [0.3, 0.9], (False, 0): [0.2, 0.2]}
    for (farl, seed), ys in scores.items():
        folder = run_folder(tmp_path, "quick", row, farl, seed)
        curve.write_curve(folder / "curve.csv", [{"episode": e, col: y, f"se_{row.curve_opponent.name}": 0.01}
                                                 for e, y in zip((0, 100), ys)], [row.curve_opponent.name])
    got = _captured(monkeypatch, table1_report)
    assert table1_report.plot_row(tmp_path, "quick", row) == tmp_path / f"table1_quick_{row.key}.png"
    farl, nofarl = got["panels"][0].series
    assert list(farl.x) == [0, 100] and np.allclose(farl.y, [20, 70])  # percent, mean of the two runs
    se = np.array([np.std([0.1, 0.3], ddof=1), np.std([0.5, 0.9], ddof=1)]) / math.sqrt(2) * 100
    assert np.allclose(farl.high - farl.y, se) and np.allclose(farl.y - farl.low, se)
    assert farl.label == "FARL (2 runs)" and nofarl.label == "no-FARL (1 run)"
    assert np.allclose(nofarl.y, [20, 20]) and np.allclose(nofarl.high, nofarl.low)  # one run: no band


def test_baseline_curves_leave_out_the_start_on_log_axes(monkeypatch):
    got = _captured(monkeypatch, measure)
    rows = [measure.curve_row(s, s / 100, 0, [], {"random": (s / 1000, 0.1)}) for s in (300, 0, 100)]
    measure.plot_curves({"dqn": rows}, ["random"], "x.png", "t", "win rate")
    by_steps, by_seconds = got["panels"]
    (line,) = by_steps.series
    assert by_steps.xscale == "log" and line.x == [100, 300] and line.y == [0.1, 0.3]
    assert by_seconds.series[0].x == [1.0, 3.0] and got["columns"] == 2


def test_nemesh_win_rate_bars(tmp_path, monkeypatch):
    rows = [{"player": p, "opponent": o, "win_rate": w, "se": 0.05}
            for p, o, w in (("nemesh d3", "random", 0.9), ("td-farl", "random", 0.8), ("nemesh d3", "ab", 0.1),
                            ("td-farl", "ab", 0.2), ("nemesh d3", "td-farl", 0.5))]
    (tmp_path / "eval-7x6.json").write_text(json.dumps({"rows": rows}))
    got = _captured(monkeypatch, nemesh_experiments)
    assert nemesh_experiments._plot(types.SimpleNamespace(work=str(tmp_path)), tmp_path / "n.png")
    (panel,) = got["panels"]
    nemesh, td = panel.series
    assert list(panel.xticklabels) == ["random", "ab"] and nemesh.kind == td.kind == "bar"
    assert np.allclose(nemesh.y, [0.9, 0.1]) and np.allclose(td.y, [0.8, 0.2]) and np.allclose(td.high - td.y, 0.05)
