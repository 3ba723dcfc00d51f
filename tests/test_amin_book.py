"""kvlib.book.chapters.amin.values: the Aₘᵢₙ chapter's display tables and glued numbers, from full and partial frames."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from kvlib.book.chapters.amin import values as ab
from kvlib.theory import cyz_experiments as cx
from kvlib.theory import rayleigh as ry


def _frame(row, keys):
    return pd.DataFrame([dict(k, **row(**k)) for k in keys])


def test_theorem2_display_and_facts_use_the_largest_scale_present():
    rows = _frame(cx.theorem2_row, cx.theorem2_keys([4, 9], [1, 2], reps=1, seed=0))
    thm2 = cx.theorem2_summary(rows)
    inst, ratios = ab.theorem2_display(thm2)
    assert "Aₘₐₓ / H-SF" in ratios.columns and "Aₘₐₓ / H-SF" not in inst.columns
    f = ab.theorem2_facts(thm2)
    assert f["thm2_M_a4"] == 4 * 16 and f["thm2_M_a9"] == 4 * 36  # scale 2: l = 4, u = 4 / alpha
    assert f["thm2_formula_a4"] == pytest.approx(6.0)
    # a partial table without scale 2 at alpha = 1/9 falls back to the largest scale it has
    f1 = ab.theorem2_facts(cx.theorem2_summary(rows[~((rows.alpha_inv == 9) & (rows.scale == 2))]))
    assert f1["thm2_M_a9"] == 2 * 18
    with pytest.raises(KeyError, match="1/9"):
        ab.theorem2_facts(cx.theorem2_summary(rows[rows.alpha_inv == 4]))


def test_theorem6_facts_from_the_rows_present():
    tp = cx.two_point_frame(_frame(cx.distribution_row, cx.two_point_keys([1, 2], 40, 4, 2, 0)))
    f = ab.theorem6_facts(tp)
    assert f["tp_lmax"] == 2 and f["tp_runs"] == 2 and f["tp_total"] == 4 and f["tp_M_v"] == 40
    assert f["tp_load_v"] == 4
    assert f["tp_lit_dev"] == pytest.approx(tp[tp.l == 2]["a-min"].max() / 1.375 - 1)
    disp = ab.theorem6_display(tp)
    assert list(disp.runs) == [2, 2]
    only_l1 = ab.theorem6_facts(tp[tp.l == 1])
    assert math.isnan(only_l1["tp_dev_lo"]) and only_l1["tp_lmax"] == 1


def test_lemma2_and_fig2_facts():
    dists = {"a": ([4, 16], [0.8, 0.2])}
    runs = _frame(cx.lemma2_row, cx.lemma2_keys(dists, [20, 40], load=4, runs=1, seed=0))
    f = ab.lemma2_facts(cx.lemma2_summary(runs), runs)
    assert f["l2_M"] == 40 and f["l2_runs"] == 1 and f["l2_n_dists"] == 1
    keys = cx.sweep_keys([20, 40], [10, 20], 5, (0.0, 0.5), ("a-l", "a-min"), reps=1, seed=0, load=4)
    worst = cx.sweep_worst(_frame(cx.sweep_row, keys), ("a-l", "a-min"))
    astar = float(ry.theorem7_threshold())
    g = ab.fig2_facts(worst, astar)
    assert g["fig2_Mmax"] == 40 and g["fig2_Ms_s"] == "20, 40" and g["fig2_n_alpha"] == 2
    assert g["fig2_runs"] == "2" and g["fig2_drift"].startswith("from M = 20 to M = 40")
    assert ab._count_range(3, 5) == "3 to 5" and ab._count_range(27, 27) == "27"
    one = ab.fig2_facts(worst.loc[[20]], astar)
    assert one["fig2_Mmax"] == 20 and one["fig2_drift"].startswith("one memory only")


def test_fig2_facts_prefer_the_largest_memory_with_every_alpha():
    keys = cx.sweep_keys([20, 40], [10, 20], 5, (0.5,), ("a-l", "a-min"), reps=1, seed=0, load=4)
    worst = cx.sweep_worst(_frame(cx.sweep_row, keys[:3]), ("a-l", "a-min"))  # M = 40 has u = 10 only
    g = ab.fig2_facts(worst, float(ry.theorem7_threshold()))
    assert g["fig2_Mmax"] == 20 and g["fig2_n_alpha"] == 2 and g["fig2_Ms_s"] == "20, 40"
    assert "across the 1 values of alpha" in g["fig2_drift"]


def test_appendix_ec_displays():
    from kvlib.theory import memory_scaling as ms

    # the chapter's eq. (EC.7) instance: l = 2, u = 4 (alpha = 1/2), o = (2, 2, 2, 4), s = 2, M = 12
    tab = ab.ec1_display(ms.proposition_ec1_example(), ms.coupled_expectations((2, 2, 2, 4), 2, 12, 6, 2, 4))
    assert list(tab["quotient"]) == ["9/4", "25/12"] and not tab["inequality holds"].any()
    rows = _frame(ms.coupling_row, ms.coupling_keys([(8, 12)], 2, 4, seed=0))
    summ = ab.coupling_summary(rows)
    assert int(summ.instances.iloc[0]) == 2 and int(summ.pairs.iloc[0]) == 8
    assert summ.violating_with_hypotheses.iloc[0] <= summ.violating.iloc[0]
    e5 = ab.ec5_display({"a-max": ms.theorem_ec1_part1("a-max")})
    assert e5["sup over {l..u}^n"].iloc[0] == "12/7"
    ar = _frame(ms.a_random_two_point_row, ms.two_point_keys([(2, 8)], [0], [30], 1, seed=0, load=4))
    s6 = ab.ec6_summary(ar)
    assert len(s6) == 1 and int(s6.runs.iloc[0]) == 3
    assert ab.ec6_facts(s6)["ec6_all_below"] == "True"


def test_periods_and_corollary2_facts_from_partial_frames():
    from kvlib.book.chapters.amin import periods as ap

    keys = ap.periods_keys([1, 2], [30], [0], ["a-min"], 1, seed=0, load=4)
    rows = _frame(ap.periods_row, keys)
    f = ab.periods_facts(ap.periods_frame(rows), ab.periods_summary(rows))
    assert f["per_scale_max"] == 2 and f["per_n_configs"] == 2
    assert f["per_dev_by_scale"].startswith("c = 1: ") and "full mode only" in f["per_prog"]
    assert f["per_l2_hi_at"].startswith("c = ")
    ckeys = cx.corollary2_keys(cx.corollary2_dists(8), [1, 2, 4, 8], 2, [40], 1, seed=0, load=4)
    crows = _frame(cx.corollary2_row, ckeys)
    cs = ab.corollary2_summary(crows)
    cf = ab.corollary2_facts(crows, cs)
    assert len(cs) == 4 and cf["cor2_n"] == 4 and cf["cor2_lambda"] == pytest.approx(ry.lambda_max(8)[0])
