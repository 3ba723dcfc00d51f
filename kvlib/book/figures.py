"""Matplotlib pictures of schedules: a Gantt chart and the memory profile.

Plain functions that draw on a given ``Axes`` (no global state, no style changes), and
:func:`schedule_figure`, which puts both side by side for several schedules of one instance.
"""

from __future__ import annotations

import numpy as np

from kvlib.core.model import Instance, Schedule, memory_profile


def gantt(instance: Instance, schedule: Schedule, ax, *, label_requests: bool = True, cmap: str = "tab20"):
    """Draw each run as a bar over the rounds it occupies (``p+1 .. p+o``, i.e. ``(p, p+o]``).

    Cancelled runs (003 model) are drawn hatched.  Arrival times are marked with a tick.
    """
    import matplotlib.pyplot as plt

    colours = plt.get_cmap(cmap)
    n = instance.n
    for i in range(n):
        c = colours(i % colours.N)
        p = schedule.starts[i]
        ax.broken_barh([(p, int(instance.output[i]))], (i - 0.4, 0.8), facecolors=c, edgecolor="black", linewidth=0.5)
        ax.plot([instance.arrival[i]] * 2, [i - 0.45, i + 0.45], color="black", linewidth=1.5)
        if label_requests and n <= 30:
            ax.text(p + instance.output[i] / 2, i, f"s={instance.prompt[i]}, o={instance.output[i]}",
                    ha="center", va="center", fontsize=7)
    for i, p, r in schedule.cancelled:
        ax.broken_barh([(p, r)], (i - 0.4, 0.8), facecolors="white", edgecolor="grey", hatch="//", linewidth=0.5)
    ax.set_xlabel("time (rounds)")
    ax.set_ylabel("request")
    ax.set_yticks(range(n) if n <= 30 else [])
    ax.invert_yaxis()
    return ax


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
    fig.tight_layout()
    return fig
