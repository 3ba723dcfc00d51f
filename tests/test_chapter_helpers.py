"""Helpers moved out of the chapters: kvlib.book (stats, gluing, runs, recording, synthetic, timing) and
kvlib.theory (chain43, chain48, identical_grids)."""

import math

import numpy as np
import pandas as pd
import pytest

from kvlib import Instance, make_policy, simulate
from kvlib.book.gluing import first_failure
from kvlib.book.recording import QueueRecorder
from kvlib.book.runs import run_checked
from kvlib.book.stats import ci, fit_exponent, t_interval
from kvlib.book.chapters.sortedf.synthetic import EC1_DISTRIBUTIONS, ec1_sample
from kvlib.book.timing import best_of
from kvlib.optimum.certify import certify
from kvlib.theory.chain43 import chain_row
from kvlib.theory.chain48 import link_table, telescoped
from kvlib.theory.identical_grids import batch_dual_grid, dense_grid, exact_grid, open_region


def test_fit_exponent_recovers_a_power_law():
    x = np.array([1, 2, 4, 8, 16, 32])
    assert fit_exponent(x, 3 * x**2.0) == pytest.approx(2.0)
    y = np.where(x < 8, 1.0, x**0.5)  # the larger half follows x^0.5, the transient is flat
    assert fit_exponent(x, y) == pytest.approx(0.5)
    assert fit_exponent(x, y, points=len(x)) == pytest.approx(4 / 7)  # all six points: slope 0.5714
    with pytest.raises(ValueError, match="positive"):
        fit_exponent([1, 2], [0, 1])


def test_t_interval_by_hand():
    m, h = t_interval([1, 2, 3])  # s = 1, n = 3, t_{0.975, 2} = 4.302653
    assert m == 2 and h == pytest.approx(4.302653 / math.sqrt(3), rel=1e-6)
    assert ci([1, 2, 3]) == "2.00 ± 2.48"
    assert ci([5]) == "5.00"
    with pytest.raises(ValueError):
        t_interval([])


def test_first_failure():
    tab = pd.DataFrame({"TEL": [10, 20, 30], "OPT lower": [5, 10, 15], "ratio <=": [2.0, 2.0, 2.0],
                        "claim": [1.0, 2.5, 3.0]}, index=[9, 36, 81])
    first, vals = first_failure(tab, "x", "TEL", "claim")
    assert first == 36
    assert vals == {"x_first_fail": 36, "x_fail_tel": 20, "x_fail_lb": 10, "x_fail_ratio": "2.000",
                    "x_fail_claim": "2.500"}
    assert first_failure(tab.assign(claim=1.0), "x", "TEL", "claim") == (None, {"x_first_fail": "none"})
    with pytest.raises(KeyError, match="nope"):
        first_failure(tab, "x", "nope", "claim")


def test_run_checked_and_queue_recorder():
    inst = Instance.at_zero([1, 1, 1, 1], [1, 1, 3, 3], 5)
    res, pol = run_checked(inst, "mc-sf")
    assert res.tel == 13 and pol.name
    rec = QueueRecorder(make_policy("mc-sf"))
    res2 = simulate(inst, rec)
    assert res2.tel == 13 and res2.schedule.starts == res.schedule.starts  # the wrapper changes no decision
    assert len(rec.waiting) == len(rec.running) > 0 and rec.waiting[0] == 4 and rec.running[0] == 0


def test_ec1_sample_ranges_and_determinism():
    for dist in EC1_DISTRIBUTIONS:
        s, o = ec1_sample(dist, np.random.default_rng(1), 500)
        assert len(s) == len(o) == 500 and s.min() >= 1 and o.min() >= 1 and s.max() <= 50 and o.max() <= 50
        s2, o2 = ec1_sample(dist, np.random.default_rng(1), 500)
        assert np.array_equal(s, s2) and np.array_equal(o, o2)
    s, o = ec1_sample("Mixed", np.random.default_rng(0), 4000)
    # 002 Appendix EC.4.2: about 20% lognormal around 40 (values > 50 redrawn on [40, 50]), the rest exponential
    assert 0.12 < np.mean(s >= 30) < 0.3 and 0.4 < np.mean(s <= 10) < 0.7 and 4 < o.mean() < 6
    s, o = ec1_sample("Binomial", np.random.default_rng(0), 4000)
    assert abs(s.mean() - 25.5) < 0.5 and abs(s.std() - 3.5) < 0.3  # Bin(49, 1/2) + 1
    with pytest.raises(ValueError, match="Gamma"):
        ec1_sample("Gamma", np.random.default_rng(0), 3)


def test_best_of_returns_the_result():
    sec, out = best_of(lambda: sum(range(10)), reps=2)
    assert out == 45 and sec >= 0
    with pytest.raises(ValueError):
        best_of(lambda: 0, reps=0)


def test_chain_row_on_a_small_instance():
    inst = Instance.at_zero([1, 1, 1], [1, 2, 3], 8)  # all fit at once (peaks 2, 3, 4 <= 8): OPT = 6
    row = chain_row(inst, certify(inst, method="bruteforce"))
    assert (row["mcsf"], row["opt_lower"], row["opt_upper"], row["optimal"]) == (6, 6, 6, True)
    assert row["OS"] == 6 and row["L47"] <= row["OS"] <= row["opt_lower"] and row["mcsf"] <= row["L44"]
    assert row["LPcvxpy"] == pytest.approx(row["LPgreedy"], abs=1e-6) and row["claim48"]


def test_link_table_counts_violations_with_the_claimed_strictness():
    chain = pd.DataFrame({"Sorted-F": [10, 12], "separate": [10, 11], "group": [5, 3], "align": [10, 6],
                          "Optimal_align": [10, 6], "OPT": [5, 1]})
    links, ratios = link_table(chain)
    assert links.loc["Thm 4: SF / separate", "violations"] == 1  # 12 / 11 > 1
    assert links.loc["Thm 5: separate / group", "violations"] == 0  # 2 and 11/3 < 4
    assert links.loc["Thm 6: group / align", "violations"] == 0
    assert links.loc["Thm 7: Optimal_align / OPT", "violations"] == 0  # 2 and 6: "<= 6" holds at 6
    assert list(ratios["Thm 5: separate / group"]) == [2.0, 11 / 3]
    full = telescoped(chain)
    assert list(full["SF / OPT"]) == [2.0, 12.0]


def test_identical_grids_small():
    g = exact_grid(5, 2)
    # M = 4..5, s = 1..3, o = 1..M-s, n = 1..2: (3+2+1) + (4+3+2) = 15 (s, o, M) cases, 2 n each
    assert len(g) == 30
    nostag = g[~g.stagger]
    assert (nostag.mcsf == nostag.batch).all() and (g.mcsf <= g.batch).all() and (g.mcsf >= g.LP - 1e-9).all()
    with pytest.raises(AssertionError, match="batch formula"):
        exact_grid(4, 1, batch_formula=lambda n, s, o, M: -1)
    d = dense_grid([20], s_values=(1,), q_values=(0.5,))
    assert (d.ratio_lp >= 1 - 1e-9).all() and set(d.n) == {10}
    b3, points = batch_dual_grid([1], 30, n_small=10, q_grid=np.array([0.5, 1.0]))
    assert points == len(b3) * 12 and (b3["U/D"] >= 1 - 1e-9).all()
    assert (b3[b3.rho <= 3]["U/D"] <= 4 + 1e-9).all()  # our Lemma B.2
    op = open_region([5, 20], [2, 4])  # o = 5 has rho <= 3 everywhere: only o = 20 rows
    assert set(op.o) == {20} and len(op) == 2 * 3 * 2 and (op.rho > 3).all()


def test_regret_helpers():
    from kvlib.theory.regret import poisson_instance, regret_gap, volume_capacity

    assert volume_capacity(2, 1, 1) == 1.0  # vol(1, 1) = 1 + 1 = 2
    assert volume_capacity(60, 1, 2) == pytest.approx(60 / 3.5)  # vol(1,1) = 2, vol(1,2) = 5
    a = poisson_instance(np.random.default_rng(4), 0.5, 30, 20, 3, 4)
    b = poisson_instance(np.random.default_rng(4), 0.5, 30, 20, 3, 4)
    assert a.n == b.n and np.array_equal(a.arrival, b.arrival) and a.arrival.min() == 0 and a.arrival.max() < 30
    rows = regret_gap((0.5, 1.2), (10, 20), 2, seed=1, M=20, s_max=3, o_max=4)
    assert len(rows) == 8 and all(r["gap"] >= 0 for r in rows)  # the volume bound is below MC-SF's TEL
    with pytest.raises(ValueError, match="rate"):
        poisson_instance(np.random.default_rng(0), 0.0, 5, 20, 3, 4)
