"""kvlib.book.chapters.model.page: the model chapter's random instances are the hindsight chapter's scan instances."""

from __future__ import annotations

import pandas as pd
import pytest

from kvlib.book.chapters.model.page import MODEL_POLICIES, am1_instance, policy_tels, smallest_counts
from kvlib.book.rows import instance_hash
from kvlib.book.chapters.hindsight.rows import SCAN_POLICIES, best_policy_trial


def test_same_policies_as_the_scan():
    assert set(MODEL_POLICIES) == set(SCAN_POLICIES)


@pytest.mark.parametrize("seed", [0, 3])
def test_instances_and_tels_match_the_scan(seed):
    table = policy_tels(seed, 2)
    for k in range(2):
        scan = best_policy_trial(model=1, trial=k, seed=seed)
        assert instance_hash(am1_instance(seed, k)) == scan["instance"]
        mine = table[table.instance == k].set_index("policy").TEL
        assert {p: int(mine[p]) for p in MODEL_POLICIES} == {p: scan[p] for p in MODEL_POLICIES}
        row = table[table.instance == k].iloc[0]
        assert (row.n, row.M) == (scan["n"], scan["M"])
        # "MC-SF smallest" in the model chapter <=> "best policy" = mc-sf in the scan (ties favour MC-SF)
        wide = table[table.instance == k].pivot(index="instance", columns="policy", values="TEL")
        assert smallest_counts(wide)["best"] == int(scan["best policy"] == "mc-sf")


def test_smallest_counts_ties_and_strict():
    wide = pd.DataFrame({"mc-sf": [10, 12, 15, 9], "mc-sf2": [11, 12, 14, 9], "fcfs": [13, 13, 16, 10]})
    assert smallest_counts(wide) == {"best": 3, "strict": 1, "ties": 2, "instances": 4}
    assert smallest_counts(wide, "mc-sf2") == {"best": 3, "strict": 1, "ties": 2, "instances": 4}


def test_rejected_schedules_raise(monkeypatch):
    import kvlib.book.chapters.model.page as mp

    class Bad:
        valid, tel, violations = False, 0, ["memory 99 exceeds M"]

    monkeypatch.setattr(mp, "check_schedule", lambda inst, sch: Bad())
    with pytest.raises(AssertionError, match="exceeds"):
        policy_tels(0, 1)
