"""Row functions of the stored tables of "MC-SF's constant ratio" (kvlib.book.chapters.mcsf_ratio.rows)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from kvlib.book.chapters.mcsf_ratio import rows as rr
from kvlib.book.rows import instance_hash
from kvlib.book.store import Store, verify_table
from kvlib.core.model import Instance
from kvlib.theory.chain43 import random_theorem43_instance
from kvlib.theory.identical_grids import dense_grid, exact_grid, open_region
from kvlib.theory.regret import regret_gap


def test_chain_trial_row_is_the_seeded_instance_and_brackets_opt():
    row = rr.chain_trial_row(seed=3, trial=1, n_max=6, time_limit=10.0)
    inst = random_theorem43_instance(np.random.default_rng([3, 1]), 6)
    assert row["instance"] == instance_hash(inst) and row["n"] == inst.n
    assert json.loads(row["outputs"]) == sorted(inst.output.tolist())
    assert row["OS"] <= row["opt_lower"] <= row["opt_upper"] <= row["mcsf"] <= row["L44"]
    assert row["optimal"] == (row["opt_lower"] == row["opt_upper"])
    assert rr.chain_trial_row(seed=3, trial=1, n_max=6, time_limit=10.0)["instance"] == row["instance"]


def test_adversarial_restart_is_deterministic_and_meets_the_assumptions():
    a = rr.adversarial_restart_row(seed=0, restart=1, n_max=5, steps=15, time_limit=10.0)
    b = rr.adversarial_restart_row(seed=0, restart=1, n_max=5, steps=15, time_limit=10.0)
    assert a["instance"] == b["instance"] and a["proxy"] == b["proxy"] and a["evaluations"] >= 1
    assert a["proxy"] == pytest.approx(a["mcsf"] / a["OS"])
    assert a["M"] >= 2 * (a["s"] + max(json.loads(a["outputs"])))
    assert len(rr.adversarial_keys(0, 3, 5, 15, 1.0)) == 3


def test_identical_rows_match_the_grid_functions():
    keys = rr.identical_keys(6, 3)
    assert len(keys) == len({json.dumps(k, sort_keys=True) for k in keys})
    grid = exact_grid(6, 3).set_index(["M", "s", "o", "n"])
    assert len(keys) == len(grid)
    for k in keys[::7]:
        row = rr.identical_case_row(**k)
        g = grid.loc[(k["M"], k["s"], k["o"], k["n"])]
        assert (row["mcsf"], row["batch"], row["stagger"]) == (g.mcsf, g.batch, g.stagger)
        assert row["LP"] == pytest.approx(g.LP)
        assert row["D"] <= row["TI"] + 1e-6 and row["TI"] <= row["opt"] + 1e-6 and row["opt"] <= row["mcsf"]
        assert row["comp_ok"] and row["feas_ok"] and row["strong_ok"]


def test_dense_and_open_region_rows_match_the_grid_functions():
    d = dense_grid([20])
    rows = pd.DataFrame([{**k, **rr.dense_case_row(**k)} for k in rr.dense_keys([20])])
    m = d.merge(rows, on=["M", "s", "o", "q"], suffixes=("", "_row"))
    assert len(m) == len(d) == len(rows)
    assert (m.tel == m.tel_row).all() and np.allclose(m.ratio_lp, m.ratio_lp_row)
    o = open_region([5, 10], [2, 4])
    rows = pd.DataFrame([{**k, **rr.open_region_row(**k)} for k in rr.open_region_keys([5, 10], [2, 4])])
    m = o.merge(rows, on=["s", "o", "M", "n"], suffixes=("", "_row"))
    assert len(m) == len(o) == len(rows) and np.allclose(m["MC-SF / D"], m["MC-SF / D_row"])


def test_sweep004_row_finds_the_smallest_counterexample():
    row = rr.sweep004_row(M=5, s=1, n=4, o_max=5, confirm=1)
    cases = rr.sweep004_cases(pd.DataFrame([{"M": 5, "s": 1, "n": 4, **row}]))
    assert row["bad"] == len(cases) >= 1 and row["highs_contradictions"] == 0 and row["highs_confirmed"] == 1
    assert any(c["outputs"] == (1, 1, 3, 3) and c["mcsf"] > c["opt"] for c in cases)
    assert row["worst"] == max(c["mcsf"] / c["opt"] for c in cases)
    assert rr.sweep004_row(M=3, s=1, n=2, o_max=5)["bad"] == 0


def test_regret_row_matches_regret_gap():
    ref = regret_gap((0.7,), [50], 2, seed=4)
    for k in rr.regret_keys((0.7,), [50], 2, 4):
        row = rr.regret_row(**k)
        r = ref[k["rep"]]
        assert row["n"] == r["n"] and row["gap"] == pytest.approx(r["gap"], rel=1e-12)


def test_tables_store_and_verify(tmp_path, monkeypatch):
    # with a progress log, the store logs while the table's rows are still being computed
    monkeypatch.setenv("KVBOOK_STORE_LOG", str(tmp_path / "progress.json"))
    store = Store("demo_ratio", mode="full", parameters={}, policy="write", root=tmp_path)
    tab = store.table("chain", rr.chain_trial_row, rr.chain_keys(1, 2, 5, 10.0), **rr.CHAIN_COLUMNS)
    assert tab.complete and list(tab.frame.trial) == [0, 1]
    assert json.loads((tmp_path / "progress.json").read_text())["progress"]["chain"]["done"] == 2
    rep = verify_table("demo_ratio", "chain", root=tmp_path)
    assert rep.checked_rows and not rep.mismatches and rep.skipped is None, rep
