"""Row functions of the chapter "Lower-bound instances" (kvlib.book.chapters.lowerbounds.rows) and their stored tables."""

from __future__ import annotations

import pytest

from kvlib.book.chapters.lowerbounds import rows as lb
from kvlib.book.store import Store, verify_table
from kvlib.theory import adversary as adv


def test_thm41_row_matches_closed_form_and_adversary():
    r = lb.thm41_row(M=36, policy="mc-sf", seed=0)
    run = adv.thm41_adversary("mc-sf", 36)
    assert r["tel"] == run.alg_tel == adv.thm41_tel_formula(36)["alg"] == r["closed_form_alg"]
    assert r["closed_form_short_first"] == adv.thm41_tel_formula(36)["short_first"]
    assert (r["b"], r["b_full"], r["n"], r["r"]) == (0, 0, 19, 33)
    assert r["opt_lower"] <= r["opt_upper"] <= r["tel"]
    assert len(r["instance"]) == 16
    # M not of the form (2k)^2: no closed form
    r50 = lb.thm41_row(M=50, policy="fcfs", seed=0)
    assert r50["closed_form_alg"] is None and r50["closed_form_short_first"] is None


def test_thm41_keys_skip_planned_policies_above_the_cap():
    keys = lb.thm41_keys([16, 400], ["mc-sf", "sorted-lp"], seed=0, planned={"sorted-lp"}, planned_max_M=100)
    assert keys == [dict(M=16, policy="mc-sf", seed=0), dict(M=16, policy="sorted-lp", seed=0),
                    dict(M=400, policy="mc-sf", seed=0)]


def test_thm41_opt_row_certifies_the_small_instance():
    r = lb.thm41_opt_row(M=16, time_limit=30)
    assert r["proved"] and r["lower"] == r["upper"] == r["explicit_upper"] == 31
    assert r["instance"] == lb.thm41_row(M=16, policy="mc-sf", seed=0)["instance"]


def test_wyz_rows():
    r = lb.wyz_row(family="thm1", M=9, seed=0)
    assert r["tel_mc_sf"] == r["closed_form_mcsf"] == adv.wyz_thm1_mcsf_tel(9)
    assert r["opt_upper"] == min(r["tel_mc_sf"], r["tel_mc_sf2"], r["tel_fcfs"], r["tel_mc_benchmark"],
                                 r["tel_pipelined"])
    assert r["opt_lower"] <= r["opt_upper"] and r["n"] == 36
    e = lb.wyz_row(family="ec1", M=16, seed=0)
    assert e["tel_pipelined"] is None and e["closed_form_mcsf"] is None and e["n"] == 16 + 64
    with pytest.raises(ValueError, match="family must be one of"):
        lb.wyz_row(family="thm3", M=9, seed=0)


def test_heavy_row_bounds():
    r = lb.heavy_row(M=64)
    assert r["opt_lower"] <= r["opt_upper"] < r["tel_mc_sf"] and r["n"] == 8 + 64


@pytest.mark.parametrize("yes", [True, False])
def test_three_partition_row(yes):
    r = lb.three_partition_row(m=2, yes=yes, trial=0, B=40, seed=0, time_limit=30)
    assert r["has_triples"] is yes and r["proved"]
    assert r["target"] == 9
    if yes:
        assert r["lower"] == r["upper"] == r["target"] == r["tel_triples"]
    else:
        assert r["lower"] > r["target"] and r["tel_triples"] is None
    # deterministic in its key
    assert lb.three_partition_row(m=2, yes=yes, trial=0, B=40, seed=0, time_limit=30)["b"] == r["b"]


@pytest.mark.parametrize("yes", [True, False])
def test_three_partition_paper_row(yes):
    """002's own reduction (M = T) on the same draw: the triples never fit, so OPT exceeds the target
    on the yes-instance too."""
    r = lb.three_partition_paper_row(m=2, yes=yes, trial=0, B=40, seed=0, time_limit=30)
    ours = lb.three_partition_row(m=2, yes=yes, trial=0, B=40, seed=0, time_limit=30)
    assert r["b"] == ours["b"] and r["instance"] != ours["instance"]
    assert r["has_triples"] is yes and r["proved"] and r["max_per_round"] == 3
    assert r["triples_fit"] is (False if yes else None)
    assert r["lower"] == r["upper"] > r["target"]


def test_a_stored_lowerbounds_table_verifies(tmp_path):
    keys = lb.thm41_keys([16, 36], ["mc-sf", "fcfs"], seed=0)
    t = Store("lowerbounds", mode="full", policy="write", root=tmp_path).table("thm41", lb.thm41_row, keys)
    assert t.complete and list(t.frame["tel"]) == [lb.thm41_row(**k)["tel"] for k in keys]
    rep = verify_table("lowerbounds", "thm41", root=tmp_path, n_fixed=2, n_seeded=2, budget_s=60)
    assert not rep.mismatches and len(rep.checked_rows) == 4
