"""Small statistics the chapters report: a fitted growth exponent and a Student-t confidence interval."""

from __future__ import annotations

import numpy as np
from scipy import stats


def fit_exponent(x, y, *, points: int | None = None) -> float:
    """Least-squares slope of ``log y`` against ``log x`` over the last ``points`` points.

    ``points`` defaults to the larger half, ``max(2, len(x) // 2)`` (the growth rate, not the
    small-size transient); ``points = len(x)`` fits all.  ``x`` ascending and positive, ``y`` positive.
    """
    x, y = np.asarray(x, float), np.asarray(y, float)
    if x.shape != y.shape or len(x) < 2:
        raise ValueError(f"fit_exponent: need two equally long arrays of length >= 2, got {x.shape} and {y.shape}")
    if np.any(x <= 0) or np.any(y <= 0):
        raise ValueError("fit_exponent: x and y must be positive (log-log fit)")
    k = max(2, len(x) // 2) if points is None else int(points)
    if not 2 <= k <= len(x):
        raise ValueError(f"fit_exponent: points must be in 2..{len(x)}, got {points}")
    return float(np.polyfit(np.log(x[-k:]), np.log(y[-k:]), 1)[0])


def t_interval(x, level: float = 0.95) -> tuple[float, float]:
    """``(mean, half-width)`` of the two-sided Student-t interval of the mean (half-width NaN if ``len(x) < 2``)."""
    x = np.asarray(x, float)
    if len(x) == 0:
        raise ValueError("t_interval: no observations")
    if len(x) < 2:
        return float(x.mean()), float("nan")
    h = stats.t.ppf(0.5 + level / 2, len(x) - 1) * x.std(ddof=1) / np.sqrt(len(x))
    return float(x.mean()), float(h)


def ci(x, level: float = 0.95, digits: int = 2) -> str:
    """``"mean ± half-width"`` of :func:`t_interval`, or just the mean for one observation."""
    m, h = t_interval(x, level)
    return f"{m:.{digits}f}" if np.isnan(h) else f"{m:.{digits}f} ± {h:.{digits}f}"
