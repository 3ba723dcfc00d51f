"""Glue a plain Python value into the book (myst-nb), for ``{glue:text}`` roles in the prose.

myst-nb stores a glued object's ``repr``; a NumPy scalar would then appear as
``np.float64(1.5)`` and a format spec such as ``:.2f`` would fail on it.
:func:`glue_value` converts NumPy scalars to the Python numbers they hold first.
"""

from __future__ import annotations

import numpy as np

__all__ = ["plain", "glue_value", "glue_figure"]


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
