"""Numbers as the results pages print them: means with their standard errors, and percentages.

Every experiment that writes a Markdown page formats its cells here, so a
rate reads the same on every page ("83.7 % ± 15.8") and a missing value is
always shown as "–".
"""
from __future__ import annotations

import math

import numpy as np

MISSING = "–"
"""What a cell shows when its value was not measured."""


def mean_se(values) -> tuple[float, float | None, int]:
    """Mean, standard error of the mean (None for one value) and count; NaN mean for no values."""
    v = np.asarray(values, dtype=float)
    if v.size == 0:
        return math.nan, None, 0
    return float(v.mean()), (float(v.std(ddof=1) / math.sqrt(v.size)) if v.size > 1 else None), int(v.size)


def pct(x: float | None, digits: int = 1, se: float | None = None) -> str:
    """A rate in [0, 1] as a percentage, with its standard error when given."""
    if x is None:
        return MISSING
    text = f"{100 * x:.{digits}f} %"
    return text if se is None else f"{text} ± {100 * se:.{digits}f}"


def pct_mean_se(values) -> str:
    """The mean of rates as a percentage ± its standard error (0 for a single value)."""
    mean, se, _ = mean_se(values)
    return pct(mean, 1, se if se is not None else 0.0)
