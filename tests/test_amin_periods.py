"""kvlib.book.chapters.amin.periods: the period accounting of 003 Lemma 1 and Proposition 1."""

from __future__ import annotations

import numpy as np
import pytest

from kvlib.core.model import Schedule
from kvlib.policies.cyz import AMin, interval_instance, run_interval
from kvlib.book.chapters.amin import periods as ap


def test_replayed_bounds_equal_the_policys():
    o = np.random.default_rng(3).choice(4 * np.arange(1, 5), size=400)
    inst = interval_instance(o, 60, 0, allow_zero_prompt=True)
    pol = AMin()
    res = run_interval(inst, pol, 4, 16, seed=1)
    assert len(res.schedule.cancelled) > 0
    runs = ap.run_table(res.schedule, o, 4)
    assert np.array_equal(ap.final_bounds(runs, 4), pol.bound)


def test_hand_schedule_counts():
    # o = (2, 5), l = 2: request 1 runs 3 rounds, is evicted (bound 3), runs 1 round, is evicted
    # (bound stays 3), then completes; request 0 completes in its first run.
    sch = Schedule((0, 10), cancelled=((1, 0, 3), (1, 4, 1)))
    runs = ap.run_table(sch, [2, 5], 2)
    assert list(runs.bound) == [2, 2, 3, 3]
    cnt = ap.period_counts(runs).set_index(["i", "j"])
    assert cnt.loc[(2, 5)].tolist() == [1, 0, 1, 1]  # b_inputs, c, b_requests, d
    assert cnt.loc[(3, 5)].tolist() == [2, 1, 1, 1]
    assert cnt.loc[(2, 2)].tolist() == [1, 1, 1, 0]


def test_no_eviction_everything_in_the_first_period():
    o = [2, 3, 4, 4]
    inst = interval_instance(o, 100, 1)
    res = run_interval(inst, "a-min", 2, 4, seed=0)
    cnt = ap.period_counts(ap.run_table(res.schedule, o, 2))
    assert set(cnt.i) == {2} and (cnt.c == cnt.b_inputs).all()


def test_periods_row_invariants():
    r = ap.periods_row(scale=2, K=3, M=40, load=5, s=0, run_seed=0, seed=0)
    assert r["js"] == [4, 6] and r["l"] == 2 and r["u"] == 6 and r["n"] == 200
    # every request is input in the first period: per-request fractions are the first shares
    assert r["first_frac_requests"] == pytest.approx(r["first_share"])
    assert all(x >= 1 for x in r["first_inputs_per_request"])
    assert r["prop1_first"] == pytest.approx([2 / 4, 2 / 6])
    assert r == ap.periods_row(scale=2, K=3, M=40, load=5, s=0, run_seed=0, seed=0)
    frame = ap.periods_frame(__import__("pandas").DataFrame([dict(r, scale=2, M=40, load=5, s=0)]))
    assert list(frame.j) == [4, 6] and (frame.runs == 1).all()


def test_periods_row_bad_input():
    with pytest.raises(ValueError, match="K >= 2"):
        ap.periods_row(scale=1, K=1, M=40, load=5, s=0, run_seed=0, seed=0)
    with pytest.raises(ValueError, match="policy"):
        ap.periods_row(scale=1, K=3, M=40, load=5, s=0, run_seed=0, seed=0, policy="h-sf")
