"""Helpers of kvlib.book used by the chapters: Section 5.1 trials and the schedule figure."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest

from kvlib.book.figures import schedule_figure
from kvlib.book.rows import instance_hash
from kvlib.book.chapters.hindsight.rows import SCAN_POLICIES, best_policy_trial, certified_trial
from kvlib.core.instances import section51
from kvlib.core.model import Instance, Schedule, memory_profile
from kvlib.core.simulate import simulate
from kvlib.optimum.bruteforce import brute_force_opt
from kvlib.policies import make_policy


def test_certified_trial_interval_contains_brute_force_optimum():
    row = certified_trial(model=1, trial=0, seed=3, n_range=(4, 4), horizon_range=(4, 5), time_limit=10, threads=1)
    inst = section51(np.random.default_rng([3, 1, 0]), 1, n_range=(4, 4))
    opt, _, _ = brute_force_opt(inst)
    assert row["n"] == 4 and row["M"] == inst.memory and row["instance"] == instance_hash(inst)
    assert row["lower"] <= opt <= row["upper"] <= row["heuristic"]
    assert row["mcsf"] == simulate(inst, make_policy("mc-sf"), seed=0).tel
    assert row["volume_lb"] <= row["lower"]
    assert row["optimal"] == (row["lower"] == row["upper"])
    assert row["gap"] == pytest.approx((row["upper"] - row["lower"]) / row["upper"])
    # a store row: flat scalars only, none named like the keys
    assert all(isinstance(v, (int, float, str, bool)) for v in row.values())
    assert not {"model", "trial", "seed"} & set(row)


def test_certified_trial_rows_are_stored_and_verified(tmp_path):
    from kvlib.book.store import Store, verify_table

    keys = [dict(trial=k, model=m, seed=3, n_range=[4, 5], horizon_range=[3, 4], time_limit=10.0, threads=1)
            for k in range(2) for m in (1, 2)]
    tab = Store("demo", mode="full", policy="write", root=tmp_path).table(
        "section51", certified_trial, keys, interval=[("lower", "upper")], timing=["seconds", "trial_seconds"],
        ignore=["optimal", "status", "gap", "source", "separation_lb"])
    assert tab.complete and list(tab.frame.model) == [1, 2, 1, 2]
    rep = verify_table("demo", "section51", root=tmp_path, rows=[0, 3])
    assert not rep.mismatches, [str(m) for m in rep.mismatches]


def test_best_policy_trial_is_a_certified_lower_end():
    row = best_policy_trial(model=2, trial=1, seed=0)
    inst = section51(np.random.default_rng([0, 2, 1]), 2)
    tels = {p: simulate(inst, make_policy(p), seed=0).tel for p in SCAN_POLICIES}
    assert set(SCAN_POLICIES) == {"mc-sf", "mc-sf2", "mc-benchmark", "mc-benchmark-scan"}  # four distinct policies
    assert {p: row[p] for p in SCAN_POLICIES} == tels and row["best"] == min(tels.values())
    assert tels[row["best policy"]] == row["best"] and row["instance"] == instance_hash(inst)
    assert row["ratio lower end"] >= 1.0
    # ties favour MC-SF: with MC-SF alone the lower end is exactly 1
    assert best_policy_trial(model=2, trial=1, seed=0, policies=("mc-sf",))["ratio lower end"] == 1.0
    with pytest.raises(ValueError, match="must include 'mc-sf'"):
        best_policy_trial(model=1, trial=0, seed=0, policies=("fcfs",))
    with pytest.raises(ValueError, match="arrival model"):
        best_policy_trial(model=3, trial=0, seed=0)


def test_schedule_figure_one_column_per_schedule():
    import matplotlib.pyplot as plt

    inst = Instance.at_zero(prompt=[5, 6, 1], output=[4, 3, 1], memory=10)
    res = simulate(inst, make_policy("mc-sf"))
    fig = schedule_figure(inst, {"a": res.schedule, "b": [4, 0, 0]})
    axes = fig.axes
    assert len(axes) == 4
    assert [axes[0].get_title(), axes[1].get_title()] == ["a", "b"]
    # the memory panel of column "b" plots the profile of starts (4, 0, 0), with the limit line
    ys = axes[3].lines[0].get_ydata()
    assert list(ys) == list(memory_profile(inst, Schedule((4, 0, 0))))
    assert axes[3].lines[1].get_ydata()[0] == 10  # the limit M
    plt.close(fig)
    fig = schedule_figure(inst, {"a": res.schedule, "b": [4, 0, 0]}, layout="rows")
    assert [ax.get_title() for ax in fig.axes] == ["a", "", "b", ""]
    assert list(fig.axes[3].lines[0].get_ydata()) == list(memory_profile(inst, Schedule((4, 0, 0))))
    plt.close(fig)
    with pytest.raises(ValueError, match="layout must be"):
        schedule_figure(inst, {"a": res.schedule}, layout="grid")
    with pytest.raises(ValueError, match="schedules is empty"):
        schedule_figure(inst, {})


def test_styled_tables():
    import pandas as pd

    from kvlib.book.tables import styled

    df = pd.DataFrame({"n": [1, 20000], "ratio": [1.23456, float("nan")], "whole": [9.0, 12.0], "ok": [True, False]})
    html = styled(df, caption="TEL (rounds)").to_html()
    assert "1.235" in html and "20,000" in html and "9.0" not in html and ">9<" in html
    assert "nan" not in html.lower().replace("nan;", "") and "TEL (rounds)" in html
    assert "1.2346" in styled(df, formats={"ratio": "{:.4f}"}).to_html()
    with pytest.raises(KeyError, match="not in the table"):
        styled(df, formats={"missing": "{:.1f}"})
    with pytest.raises(TypeError, match="DataFrame"):
        styled([1, 2])
