"""The smallest text of each figure, recorded in its PNG for the page check.

A legend or a tick label drawn at 9 pt is readable in a figure saved at 100 dpi and shown at its own
width, and unreadable once the page scales a wide figure down to its column.  What a reader sees is
the text's height in the PNG times the page's scale, which only the browser knows, so the figure
records its part: when a chapter's kernel turns a Matplotlib figure into a PNG (IPython's
``print_figure``, used by ``%matplotlib inline`` and by ``myst_nb.glue``), :func:`install` makes it
write a ``tEXt`` chunk named :data:`KEY` holding the smallest text's size in PNG pixels and what that
text is (``{"px": 9.7, "what": "legend 'MC-SF'"}``).  ``book/check_site.py`` reads the chunk back
from every figure of the built site and reports a text under 8 px at the page's scale.

``book/run_chapters.py`` installs it in every chapter's kernel (an IPython start-up file); a chapter
run by hand, or opened in Jupyter, makes plain PNGs.
"""

from __future__ import annotations

import json

__all__ = ["KEY", "smallest_text", "install"]

#: the keyword of the PNG text chunk
KEY = "kvbook:text-px"


def _kind(text, fig) -> str:
    """What a text of the figure is, in words: legend, tick label, axis label, title or text."""
    for ax in fig.axes:
        leg = ax.get_legend()
        if leg is not None and text in leg.get_texts():
            return "legend"
        for axis in (ax.xaxis, ax.yaxis):
            if text is axis.label:
                return "axis label"
            if text in axis.get_ticklabels(which="both"):
                return "tick label"
        if text is ax.title or text in (ax._left_title, ax._right_title):
            return "title"
    for leg in getattr(fig, "legends", []):
        if text in leg.get_texts():
            return "legend"
    return "text"


def smallest_text(fig, dpi: float | None = None) -> dict | None:
    """``{"px": size, "what": description}`` of the smallest visible, non-empty text of ``fig``, its
    height in pixels of a PNG saved at ``dpi`` (default: the figure's own), or None without text."""
    from matplotlib.text import Text

    dpi = float(dpi or fig.dpi)
    best = None
    for t in fig.findobj(Text):
        if not t.get_visible() or not t.get_text().strip() or t.get_alpha() == 0:
            continue
        # a text inside an invisible parent (a hidden axis, a removed legend) is not drawn
        if any(not a.get_visible() for a in _ancestors(t)):
            continue
        px = t.get_fontsize() * dpi / 72.0
        if best is None or px < best[0]:
            best = (px, t)
    if best is None:
        return None
    px, t = best
    label = " ".join(t.get_text().split())[:40]
    return {"px": round(px, 2), "what": f"{_kind(t, fig)} '{label}'"}


def _ancestors(artist):
    parent = getattr(artist, "axes", None)
    if parent is not None and parent is not artist:
        yield parent
    fig = artist.get_figure() if hasattr(artist, "get_figure") else None
    if fig is not None:
        yield fig


def _recording(print_figure):
    """``print_figure`` of IPython, writing the :data:`KEY` chunk into every PNG it makes."""

    def print_figure_recording(fig, fmt="png", bbox_inches="tight", base64=False, **kwargs):
        if fmt in ("png", "retina"):
            try:
                scale = 2.0 if fmt == "retina" else 1.0
                info = smallest_text(fig, float(kwargs.get("dpi") or fig.dpi) * scale)
            except Exception:  # a figure the walk cannot read is still drawn, without the record
                info = None
            if info is not None:
                kwargs["metadata"] = {**(kwargs.get("metadata") or {}), KEY: json.dumps(info)}
        return print_figure(fig, fmt, bbox_inches, base64, **kwargs)

    print_figure_recording.kvbook_recording = True
    return print_figure_recording


def install() -> None:
    """Make IPython's figure formatters (set up when Matplotlib's inline backend starts) record the
    smallest text of every PNG they make.  Idempotent."""
    from IPython.core import pylabtools

    if getattr(pylabtools.print_figure, "kvbook_recording", False):
        return
    pylabtools.print_figure = _recording(pylabtools.print_figure)
    # a formatter registered before this call keeps the old function: register it again
    try:
        from IPython import get_ipython

        ip = get_ipython()
        if ip is not None and "matplotlib" in __import__("sys").modules:
            from matplotlib.figure import Figure

            fmt = ip.display_formatter.formatters["image/png"]
            old = fmt.lookup_by_type(Figure) if Figure in fmt.type_printers else None
            if old is not None and getattr(old, "func", None) is not None:
                from functools import partial

                fmt.for_type(Figure, partial(pylabtools.print_figure, *old.args, **old.keywords))
    except Exception:
        pass
