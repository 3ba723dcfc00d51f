"""Matplotlib pictures of schedules: a Gantt chart and the memory profile.

Plain functions that draw on a given ``Axes`` (no global state, no style changes), and
:func:`schedule_figure`, which puts both side by side for several schedules of one instance.
"""

from __future__ import annotations

import numpy as np

from kvlib.core.model import Instance, Schedule, memory_profile


def gantt(instance: Instance, schedule: Schedule, ax, *, label_requests: bool = True, cmap: str = "tab20"):
    """Draw each run as a bar over the rounds it occupies (``p+1 .. p+o``, i.e. ``(p, p+o]``).

    Cancelled runs (003 model) are drawn hatched.  Arrival times are marked with a tick.  With
    ``label_requests`` (and at most 30 requests) each bar gets a label ``s=.., o=..``, placed by
    :func:`fit_bar_labels`: inside the bar when it fits there, else beside it, else not drawn.
    """
    import matplotlib.pyplot as plt

    colours = plt.get_cmap(cmap)
    n = instance.n
    labels = []
    for i in range(n):
        c = colours(i % colours.N)
        p = schedule.starts[i]
        ax.broken_barh([(p, int(instance.output[i]))], (i - 0.4, 0.8), facecolors=c, edgecolor="black", linewidth=0.5)
        ax.plot([instance.arrival[i]] * 2, [i - 0.45, i + 0.45], color="black", linewidth=1.5)
        if label_requests and n <= 30:
            t = ax.text(p + instance.output[i] / 2, i, f"s={instance.prompt[i]}, o={instance.output[i]}",
                        ha="center", va="center", fontsize=7)
            labels.append((t, float(p), float(instance.output[i])))
    for i, p, r in schedule.cancelled:
        ax.broken_barh([(p, r)], (i - 0.4, 0.8), facecolors="white", edgecolor="grey", hatch="//", linewidth=0.5)
    ax.set_xlabel("time (rounds)")
    ax.set_ylabel("request")
    ax.set_yticks(range(n) if n <= 30 else [])
    ax.invert_yaxis()
    ax._kvbook_bar_labels = labels
    fit_bar_labels(ax)
    return ax


#: pixels kept free between a label and the edge of its bar (or of the axes)
LABEL_PAD_PX = 2.0


def fit_bar_labels(ax) -> dict:
    """Place the bar labels :func:`gantt` drew on ``ax`` for the axes' current size and limits.

    A label goes inside its bar (centred on the part of the bar in view) when its text fits there
    with :data:`LABEL_PAD_PX` to spare on both sides; otherwise right of the bar, or left of it,
    when it fits inside the axes there; otherwise (or when the bar is out of view) it is hidden.  Call it again after anything that changes the layout (a shared
    axis, ``tight_layout``): :func:`schedule_figure` does.  Returns the counts per placement
    (``inside``, ``right``, ``left``, ``hidden``).
    """
    counts = {"inside": 0, "right": 0, "left": 0, "hidden": 0}
    labels = getattr(ax, "_kvbook_bar_labels", [])
    if not labels:
        return counts
    fig = ax.figure
    renderer = fig.canvas.get_renderer()
    box = ax.get_window_extent(renderer)
    to_px = ax.transData.transform
    to_data = ax.transData.inverted().transform
    for t, p, o in labels:
        y = t.get_position()[1]
        # the part of the bar inside the axes, in pixels
        left_px, right_px = max(to_px((p, y))[0], box.x0), min(to_px((p + o, y))[0], box.x1)
        if right_px <= left_px:  # the bar is not in view: neither is its label
            t.set_visible(False)
            counts["hidden"] += 1
            continue
        t.set_visible(True)
        t.set_position((to_data(((left_px + right_px) / 2, 0))[0], y))
        t.set_ha("center")
        width = t.get_window_extent(renderer).width
        if width + 2 * LABEL_PAD_PX <= right_px - left_px:
            counts["inside"] += 1
            continue
        if right_px + LABEL_PAD_PX + width + LABEL_PAD_PX <= box.x1:
            t.set_position((to_data((right_px + LABEL_PAD_PX, 0))[0], y))
            t.set_ha("left")
            counts["right"] += 1
        elif left_px - LABEL_PAD_PX - width - LABEL_PAD_PX >= box.x0:
            t.set_position((to_data((left_px - LABEL_PAD_PX, 0))[0], y))
            t.set_ha("right")
            counts["left"] += 1
        else:
            t.set_visible(False)
            counts["hidden"] += 1
    return counts


def memory_plot(instance: Instance, schedule: Schedule, ax, *, label: str | None = None, show_limit: bool = True):
    """Step plot of the tokens held at each integer time, with the limit ``M``."""
    prof = memory_profile(instance, schedule)
    t = np.arange(len(prof))
    ax.step(t, prof, where="mid", label=label)
    if show_limit:
        ax.axhline(instance.memory, color="red", linestyle="--", linewidth=1, label=f"M = {instance.memory}")
    ax.set_xlabel("time t")
    ax.set_ylabel("tokens held")
    ax.set_ylim(0, instance.memory * 1.08)
    return ax


def schedule_figure(instance: Instance, schedules: dict, *, figsize=None, height_ratios=(1.3, 1),
                    layout: str = "columns"):
    """Each schedule's Gantt chart (:func:`gantt`) beside its memory profile (:func:`memory_plot`).

    ``schedules`` maps a title (e.g. ``"MC-SF, TEL 31"``) to a :class:`Schedule` or a sequence of
    start times.  ``layout="columns"``: one column per schedule, Gantt chart above memory
    (``height_ratios``); ``layout="rows"``: one row per schedule, Gantt chart left of memory (at
    most two panels side by side, for narrow pages).  All panels share the time axis.  Returns the
    figure (not shown).
    """
    import matplotlib.pyplot as plt

    if not schedules:
        raise ValueError("schedules is empty: give at least one {title: schedule}")
    if layout not in ("columns", "rows"):
        raise ValueError(f"layout must be 'columns' or 'rows', got {layout!r}")
    k = len(schedules)
    if layout == "columns":
        fig, axes = plt.subplots(2, k, figsize=figsize or (3.7 * k, 4.6), sharex=True,
                                 height_ratios=list(height_ratios), squeeze=False)
        pairs = [(axes[0, j], axes[1, j]) for j in range(k)]
    else:
        fig, axes = plt.subplots(k, 2, figsize=figsize or (8, 2.4 * k), sharex=True, squeeze=False)
        pairs = [(axes[j, 0], axes[j, 1]) for j in range(k)]
    for (ax_g, ax_m), (title, sch) in zip(pairs, schedules.items()):
        if not isinstance(sch, Schedule):
            sch = Schedule(tuple(int(p) for p in sch))
        gantt(instance, sch, ax_g)
        ax_g.set_title(title)
        memory_plot(instance, sch, ax_m)
    for ax_g, _ in pairs:  # labels placed for a provisional layout must not shape the final one
        for t, _p, _o in getattr(ax_g, "_kvbook_bar_labels", []):
            t.set_visible(False)
    fig.tight_layout()
    for ax_g, _ in pairs:  # the layout and the shared time axis are final now: place the bar labels
        fit_bar_labels(ax_g)
    return fig
