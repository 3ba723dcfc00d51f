"""Tables for the book: a :class:`pandas.DataFrame` rendered without its index, with units in headers.

:func:`styled` returns a ``pandas.io.formats.style.Styler``: the index is hidden (a meaningful
index should be turned into columns first, e.g. ``df.reset_index()``), float columns are shown
with ``precision`` decimals, float columns that hold only whole numbers are shown as integers
(no ``9.0``), missing values as ``"-"`` (no ``NaN`` cells), and ``formats`` overrides any column.
"""

from __future__ import annotations

import numpy as np

__all__ = ["styled", "offer_csv", "CSV_DIR"]

#: Where :func:`offer_csv` writes (relative to the working directory, the repository root when the
#: runner executes a chapter); git-ignored, copied into the site by the page's ``{download}`` link.
CSV_DIR = "chapters/tables"


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


def offer_csv(df, chapter: str, key: str, *, directory=None) -> str:
    """Write ``df`` as ``chapters/tables/CHAPTER-KEY.csv`` (atomically) for the page to offer.

    Returns the path relative to the repository root, to be linked from the chapter's prose as
    ``{download}`CSV </chapters/tables/CHAPTER-KEY.csv>```.  ``directory`` overrides where it goes
    (default: ``$KVBOOK_EXECUTED_DIR/tables`` if set, else :data:`CSV_DIR`).  Nothing under
    ``results/`` is ever written here.
    """
    import os
    import re
    import tempfile
    from pathlib import Path

    for what, val in (("chapter", chapter), ("key", key)):
        if not isinstance(val, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", val):
            raise ValueError(f"offer_csv: {what} must be a plain file-name part, got {val!r}")
    if directory is None:
        executed = os.environ.get("KVBOOK_EXECUTED_DIR")
        directory = Path(executed) / "tables" if executed else Path(CSV_DIR)
    directory = Path(directory)
    if "results" in directory.resolve().parts[-2:]:
        raise ValueError(f"offer_csv: refusing to write into the results store ({directory})")
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / f"{chapter}-{key}.csv"
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf8", newline="") as fh:
            df.to_csv(fh, index=False)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return f"{CSV_DIR}/{target.name}"
