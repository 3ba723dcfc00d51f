"""Tables for the book: a :class:`pandas.DataFrame` rendered without its index, with units in headers.

:func:`styled` returns a ``pandas.io.formats.style.Styler``: the index is hidden (a meaningful
index should be turned into columns first, e.g. ``df.reset_index()``), float columns are shown
with ``precision`` decimals, float columns that hold only whole numbers are shown as integers
(no ``9.0``), missing values as ``"-"`` (no ``NaN`` cells), and ``formats`` overrides any column.
"""

from __future__ import annotations

import numpy as np

__all__ = ["styled"]


def styled(df, *, formats: dict | None = None, precision: int = 3, caption: str | None = None,
           thousands: str = ","):
    """``df`` as a Styler with hidden index and the number formats described in the module docstring."""
    import pandas as pd

    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"styled expects a pandas DataFrame, got {type(df).__name__}")
    df = df.rename_axis(columns=None)
    fmt: dict = {}
    for col in df.columns:
        s = df[col]
        if pd.api.types.is_bool_dtype(s):
            continue
        if pd.api.types.is_float_dtype(s):
            vals = s.dropna().to_numpy()
            if len(vals) and np.all(np.isfinite(vals)) and np.all(vals == np.round(vals)):
                fmt[col] = "{:" + thousands + ".0f}"
            else:
                fmt[col] = "{:" + thousands + "." + str(precision) + "f}"
        elif pd.api.types.is_integer_dtype(s):
            fmt[col] = "{:" + thousands + "d}"
    unknown = [c for c in (formats or {}) if c not in df.columns]
    if unknown:
        raise KeyError(f"formats name columns not in the table: {unknown} (columns: {list(df.columns)})")
    fmt.update(formats or {})
    sty = df.style.hide(axis="index").format(fmt, na_rep="-")
    if caption:
        sty = sty.set_caption(caption)
    return sty
