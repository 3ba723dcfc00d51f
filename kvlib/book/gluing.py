"""Glue values into the book (myst-nb), for ``{glue:text}`` roles in the prose.

myst-nb stores a glued object's ``repr``; a NumPy scalar would then appear as
``np.float64(1.5)`` and a format spec such as ``:.2f`` would fail on it.
:func:`glue_value` and :func:`glue_all` convert NumPy scalars to the Python numbers they hold first.
:func:`first_failure` computes the values the chapter "Lower-bound instances" glues per failed claim.
"""

from __future__ import annotations

import numpy as np

__all__ = ["plain", "glue_value", "glue_all", "glue_figure", "markdown", "first_failure"]


def plain(value):
    """``value`` with NumPy scalars (``np.float64``, ``np.int64``, ``np.bool_``) replaced by Python ones."""
    if isinstance(value, (np.floating, np.integer, np.bool_)):
        return value.item()
    return value


def glue_value(name: str, value) -> None:
    """``myst_nb.glue(name, plain(value), display=False)``: glue without showing the value in the cell."""
    from myst_nb import glue

    glue(name, plain(value), display=False)


def glue_figure(name: str, fig) -> None:
    """Glue a Matplotlib figure for a ``{glue:figure}`` directive and close it, so the code cell does
    not show it a second time."""
    import matplotlib.pyplot as plt
    from myst_nb import glue

    glue(name, fig, display=False)
    plt.close(fig)


def markdown(text: str):
    """``text`` as an IPython ``Markdown`` object, glued for ``{glue:md}`` (imported here: only chapters need
    IPython)."""
    from IPython.display import Markdown

    return Markdown(text)


def glue_all(values: dict) -> None:
    """``myst_nb.glue(name, value, display=False)`` for every item (imported here: only chapters need myst_nb)."""
    from myst_nb import glue

    for name, value in values.items():
        glue(name, plain(value), display=False)


def first_failure(table, prefix: str, tel_col: str, claim_col: str) -> tuple[int | None, dict]:
    """The first ``M`` (index of ``table``) at which the certified upper end of the ratio, column
    ``"ratio <="`` (TEL over a lower bound on OPT, column ``"OPT lower"``), is below the paper's claim in
    ``claim_col``; and the values to glue about it, named ``{prefix}_first_fail``, ``_fail_tel``,
    ``_fail_lb``, ``_fail_ratio``, ``_fail_claim`` (only the first, ``"none"``, when no ``M`` fails)."""
    for col in ("ratio <=", "OPT lower", tel_col, claim_col):
        if col not in table.columns:
            raise KeyError(f"first_failure: table has no column {col!r}")
    fails = table[table["ratio <="] < table[claim_col]]
    if not len(fails):
        return None, {f"{prefix}_first_fail": "none"}
    first = int(fails.index[0])
    return first, {
        f"{prefix}_first_fail": first,
        f"{prefix}_fail_tel": int(table.loc[first, tel_col]),
        f"{prefix}_fail_lb": int(table.loc[first, "OPT lower"]),
        f"{prefix}_fail_ratio": f"{table.loc[first, 'ratio <=']:.3f}",
        f"{prefix}_fail_claim": f"{table.loc[first, claim_col]:.3f}",
    }
