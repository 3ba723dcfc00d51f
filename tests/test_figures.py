"""Bar labels of the Gantt charts (kvlib.book.figures): inside a bar only where they fit, else beside it."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from kvlib.book.figures import LABEL_PAD_PX, fit_bar_labels, gantt, schedule_figure  # noqa: E402
from kvlib.core.model import Instance, Schedule  # noqa: E402
from kvlib.core.simulate import simulate  # noqa: E402
from kvlib.policies import make_policy  # noqa: E402


def _label_boxes(ax):
    """(label text, its pixel box, the pixel x-range of its bar) for every bar label of ``ax``."""
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    out = []
    for t, p, o in ax._kvbook_bar_labels:
        y = t.get_position()[1]
        x0, x1 = ax.transData.transform((p, y))[0], ax.transData.transform((p + o, y))[0]
        out.append((t, t.get_window_extent(renderer) if t.get_visible() else None, (x0, x1)))
    return out


def _check_no_overflow(ax):
    """Every visible label lies wholly inside its bar, or wholly outside it and inside the axes."""
    box = ax.get_window_extent(ax.figure.canvas.get_renderer())
    placed = {"inside": 0, "beside": 0, "hidden": 0}
    for t, bb, (x0, x1) in _label_boxes(ax):
        if bb is None:
            placed["hidden"] += 1
            continue
        if bb.x0 >= x0 + LABEL_PAD_PX - 0.5 and bb.x1 <= x1 - LABEL_PAD_PX + 0.5:
            placed["inside"] += 1
            continue
        # not inside: it must not overlap the bar at all, and must stay within the axes
        assert bb.x0 >= x1 - 0.5 or bb.x1 <= x0 + 0.5, (t.get_text(), bb, (x0, x1))
        assert box.x0 - 0.5 <= bb.x0 and bb.x1 <= box.x1 + 0.5, (t.get_text(), bb, box)
        placed["beside"] += 1
    return placed


def test_labels_of_the_model_chapter_figure_do_not_overflow():
    # the three-request instance of the model chapter, in the figure size the chapter uses
    inst = Instance.at_zero(prompt=[5, 6, 1], output=[4, 3, 1], memory=10)
    schedules = {name: simulate(inst, make_policy(name)).schedule
                 for name in ("mc-sf", "mc-benchmark", "mc-benchmark-scan")}
    fig = schedule_figure(inst, schedules, layout="rows", figsize=(8, 6.6))
    for ax in fig.axes[0::2]:
        placed = _check_no_overflow(ax)
        assert placed["inside"] >= 1  # the long bars keep their labels inside
        # the one-round bar of request 2 is far too short for "s=1, o=1": never inside it
        t, bb, (x0, x1) = _label_boxes(ax)[2]
        assert bb is None or bb.x0 >= x1 - 0.5 or bb.x1 <= x0 + 0.5
    plt.close(fig)


def test_labels_fit_in_every_layout_and_width():
    inst = Instance.at_zero([2, 1, 3, 1, 2, 1], [4, 6, 2, 3, 5, 2], 12)
    res = simulate(inst, make_policy("mc-sf"))
    for layout, size in (("columns", (8, 4.6)), ("columns", (4, 3)), ("rows", (8, 4)), ("rows", (3, 4))):
        fig = schedule_figure(inst, {"a": res.schedule, "b": Schedule((0, 4, 0, 6, 9, 2))}, layout=layout,
                              figsize=size)
        for ax in (fig.axes[0::2] if layout == "rows" else fig.axes[:2]):
            _check_no_overflow(ax)
        plt.close(fig)


def test_fit_bar_labels_counts_and_wide_bars():
    # one long bar (label inside), one short bar with room to its right, one short bar at the right edge
    inst = Instance.at_zero(prompt=[1, 1, 1], output=[30, 1, 1], memory=100)
    fig, ax = plt.subplots(figsize=(4, 2))
    gantt(inst, Schedule((0, 0, 29)), ax)
    ax.set_xlim(0, 30)
    counts = fit_bar_labels(ax)
    assert counts["inside"] == 1 and counts["right"] == 1 and counts["left"] == 1 and counts["hidden"] == 0
    assert _check_no_overflow(ax) == {"inside": 1, "beside": 2, "hidden": 0}
    # a bar out of view loses its label; a bar cut by the axes keeps it over its visible part
    ax.set_xlim(-0.2, 1.2)
    assert fit_bar_labels(ax) == {"inside": 2, "right": 0, "left": 0, "hidden": 1}
    _check_no_overflow(ax)
    plt.close(fig)
    # no room on either side of the short bars: their labels are hidden rather than drawn over the bar
    fig, ax = plt.subplots(figsize=(0.8, 2))
    gantt(inst, Schedule((0, 14, 29)), ax)
    ax.set_xlim(0, 30)
    counts = fit_bar_labels(ax)
    assert counts["hidden"] >= 1, counts
    _check_no_overflow(ax)
    plt.close(fig)


def test_no_labels_for_many_requests():
    inst = Instance.at_zero(prompt=[1] * 31, output=[2] * 31, memory=1000)
    fig, ax = plt.subplots()
    gantt(inst, Schedule(tuple([0] * 31)), ax)
    assert fit_bar_labels(ax) == {"inside": 0, "right": 0, "left": 0, "hidden": 0}
    assert not ax.texts
    plt.close(fig)


@pytest.mark.parametrize("label_requests", [False])
def test_labels_can_be_switched_off(label_requests):
    inst = Instance.at_zero(prompt=[1, 2], output=[3, 4], memory=20)
    fig, ax = plt.subplots()
    gantt(inst, Schedule((0, 0)), ax, label_requests=label_requests)
    assert not ax.texts
    plt.close(fig)
