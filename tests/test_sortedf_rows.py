"""Row functions of the chapter "Sorted-F and the ratio 48" (kvlib.book.chapters.sortedf.rows) for the results store."""

from __future__ import annotations

import json

import numpy as np
import pytest

from kvlib.book.chapters.sortedf.rows import (ADVERSARIAL_OBJECTIVES, EC1_POLICIES, TABLE_SPECS, TABLE3_SELECTORS,
                                     adversarial_row, chain_frame, chain_sweep_row, ec1_row, opt_row, selector_row,
                                     slug, table_keys)
from kvlib.book.store import Store
from kvlib.book.chapters.sortedf.synthetic import EC1_DISTRIBUTIONS
from kvlib.core.model import Instance
from kvlib.optimum.certify import certify


def test_slug():
    assert slug("Sorted-F (Swap)") == "sorted_f_swap" and slug("exact DP (Alg. 2)") == "exact_dp"
    assert slug("Thm 4") == "thm_4"


def test_ec1_row_is_deterministic_and_orders_fcfs_last():
    a = ec1_row(distribution="Exponential", trial=0, seed=1)
    b = ec1_row(distribution="Exponential", trial=0, seed=1)
    tels = {k: v for k, v in a.items() if k.startswith("tel_")}
    assert tels == {k: v for k, v in b.items() if k.startswith("tel_")} and a["instance"] == b["instance"]
    assert set(tels) == {f"tel_{slug(p)}" for p in EC1_POLICIES} and a["n"] == 100
    assert tels["tel_fcfs"] >= max(v for k, v in tels.items() if k != "tel_fcfs") * 0.9
    assert a["lemma1_bad_sorted_f_dp"] == 0 and a["batches_sorted_f_dp"] >= 1  # Lemma 1 for an F-minimiser
    assert ec1_row(distribution="Exponential", trial=1, seed=1)["instance"] != a["instance"]
    with pytest.raises(ValueError, match="Gamma"):
        ec1_row(distribution="Gamma", trial=0, seed=0)


def test_selector_row_ratios():
    r = selector_row(n=30, M=60, rep=0, seed=0)
    assert r["f_ratio_exact_dp"] == 1.0
    assert r["f_ratio_swap"] >= 1.0 and r["f_ratio_quantile"] >= 1.0 and r["f_ratio_scaled_dp"] <= 1.0
    assert all(r[f"tel_{slug(s)}"] > 0 for s in TABLE3_SELECTORS)


def test_opt_row_against_an_independent_certificate():
    r = opt_row(trial=3, seed=0, time_limit=20.0)
    inst = Instance.at_zero(json.loads(r["s"]), json.loads(r["o"]), r["M"])
    c = certify(inst, method="auto", time_limit=20.0)
    assert r["proved"] and r["lower"] == r["upper"] == c.upper
    assert r["upper"] <= r["tel_sorted_f"] <= r["separate"] and r["Optimal_align"] <= r["align"]
    frame = chain_frame(__import__("pandas").DataFrame([{**r, "trial": 3}]))
    assert frame.loc[0, "OPT"] == r["upper"] and frame.loc[0, "s"] == json.loads(r["s"])


def test_chain_sweep_row_theorem4():
    r = chain_sweep_row(trial=0, seed=0, n=20)
    for c in ("peak", "lookahead"):
        assert r[f"tel_{c}"] <= r[f"separate_{c}"] and r[f"group_{c}"] <= r[f"align_{c}"]
        assert r[f"lemma1_bad_{c}"] == 0


def test_adversarial_row_separate_group_needs_no_optimum():
    r = adversarial_row(objective="separate / group", restart=0, steps=5, seed=0, time_limit=5.0)
    assert r["best_value"] >= 1.0 - 1e-12 or r["best_value"] > 0
    assert r["unclosed"] == 0 and r["best_opt"] == -1 and np.isnan(r["max_thm_7"])
    with pytest.raises(ValueError, match="objective"):
        adversarial_row(objective="x", restart=0, steps=1, seed=0, time_limit=1.0)


def test_keys_are_trial_major_and_unique(tmp_path):
    keys = table_keys(seed=0, opt_trials=2, time_limit=5.0, chain_trials=2, n=10, adv_restarts=2, adv_steps=1,
                      chain_steps=1, sel_ns=[10, 20], sel_Ms=[40], sel_reps=1, ec1_trials=2, s7_sizes=[200], s7_seeds=1,
                      lp_fallback_step=20)
    assert set(keys) == set(TABLE_SPECS)
    assert [k["distribution"] for k in keys["ec1"][:5]] == list(EC1_DISTRIBUTIONS) and keys["ec1"][5]["trial"] == 1
    assert [k["objective"] for k in keys["adversarial"][:3]] == list(ADVERSARIAL_OBJECTIVES)
    # a table written and read back through the store gives the same exact columns
    s = Store("demo", mode="full", policy="write", root=tmp_path)
    t = s.table("chain_sweep", chain_sweep_row, keys["chain_sweep"], **TABLE_SPECS["chain_sweep"][1])
    t2 = Store("demo", mode="full", policy="read", root=tmp_path).table("chain_sweep", chain_sweep_row, keys["chain_sweep"])
    assert list(t2.frame["tel_peak"]) == list(t.frame["tel_peak"]) and t2.complete
