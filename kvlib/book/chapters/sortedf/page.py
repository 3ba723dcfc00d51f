"""Presentation helpers of the chapter "Sorted-F and the ratio 48" (``notebooks/sortedf.py``).

Only wording and table layout: no number is computed here that the chapter does not compute itself.

* :func:`plain` turns kvlib's short labels (``"Thm 5: SF / separate"``, ``"Optimal_align / OPT"``)
  into the plain words the page uses (``"Theorem 5: Sorted-F / separate"``, ``"Optimal (align) / OPT"``);
* :func:`cell` formats one table cell (``"-"`` for a missing value, thousands separators);
* :func:`summary_table` is a readable replacement for ``DataFrame.describe()``: named statistics,
  an integer count, only the columns asked for;
* :func:`transposed` turns a small frame with one row per group into one row per quantity (a table
  that is too wide for the column becomes a tall, narrow one);
* :func:`dropped_sentence` and :func:`fallback_sentence` are sentences whose wording depends on a
  count (nothing is said about dropped instances or fallback runs that did not happen);
  :func:`percent_phrase` says a signed relative difference in words ("8.16% below").
"""

from __future__ import annotations

import math
import re

import pandas as pd

__all__ = ["plain", "cell", "summary_table", "transposed", "dropped_sentence", "fallback_sentence", "percent_phrase"]


def plain(label: str) -> str:
    """``label`` with kvlib's abbreviations spelled out (``Thm``, ``SF``, ``Optimal_align``)."""
    out = re.sub(r"\bOptimal_align\b", "Optimal (align)", str(label))
    out = re.sub(r"\bSorted-F_(separate|group|align)\b", r"Sorted-F (\1)", out)
    out = re.sub(r"(?<![-\w])SF\b", "Sorted-F", out)
    return re.sub(r"\bThm\b", "Theorem", out)


def cell(value, digits: int = 4) -> str:
    """One table cell: ``"-"`` if missing, else ``value`` with ``digits`` decimals and thousands separators."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return "-"
    if isinstance(value, str):
        return value
    return f"{float(value):,.{digits}f}"


def summary_table(columns: dict, *, first: str = "quantity") -> pd.DataFrame:
    """One row per entry ``label: (series, digits)``: the number of values, their mean, smallest and largest.

    The count is an integer; the statistics are formatted with ``digits`` decimals (so a TEL in
    rounds reads ``"1,234"`` and a ratio ``"1.0037"``)."""
    rows = []
    for label, (series, digits) in columns.items():
        s = pd.Series(series, dtype=float).dropna()
        rows.append({first: label, "instances": f"{len(s):,d}", "mean": cell(s.mean(), max(digits, 1)),
                     "smallest": cell(s.min(), digits), "largest": cell(s.max(), digits)})
    return pd.DataFrame(rows)


def transposed(frame: pd.DataFrame, rows, *, first: str = "quantity") -> pd.DataFrame:
    """``frame``'s index values as columns, one row per ``(label, column, digits)`` of ``rows``."""
    out = {first: [label for label, _, _ in rows]}
    for key in frame.index:
        out[str(key)] = [cell(frame.loc[key, col], digits) for _, col, digits in rows]
    return pd.DataFrame(out)


def dropped_sentence(n_dropped: int, worst_bound: float, time_limit: float) -> str:
    """What became of the instances the IP did not close within ``time_limit`` seconds."""
    if n_dropped == 0:
        return f"the IP closed every instance within its time limit of {time_limit:g} s, so none was dropped"
    what = "instance" if n_dropped == 1 else "instances"
    return (f"{n_dropped} {what} the IP did not close within its time limit of {time_limit:g} s were dropped; "
            f"on them the IP's certified interval bounds TEL(Sorted-F) / OPT by at most {worst_bound:.4f}")


def fallback_sentence(n_fallbacks: int, step: int) -> str:
    """Whether the LP-based policies needed the coarser fallback time grid."""
    if n_fallbacks == 0:
        return "The LP-based policies never needed the fallback time grid."
    what = "run" if n_fallbacks == 1 else "runs"
    return f"The LP-based policies needed the fallback time grid of {step} rounds on {n_fallbacks} {what}."


def percent_phrase(percent: float) -> str:
    """A signed difference in percent as words: ``-8.16`` -> ``"8.16% below"``, ``0.77`` -> ``"0.77% above"``."""
    if round(percent, 2) == 0:
        return "equal to (within 0.01% of)"
    return f"{abs(percent):.2f}% {'below' if percent < 0 else 'above'}"
