"""kvlib.optimum.certify (the one certified-optimum helper) and kvlib.theory.smallest (exhaustive search)."""

import pytest

from kvlib import Instance, Schedule, check_schedule, make_policy, simulate
from kvlib.optimum.certify import Certified, certify
from kvlib.theory.ratio import order_statistic_bound
from kvlib.theory.smallest import at_zero_instances, policy_vs_opt, smallest_non_optimal

# 001's setting, M = 5, s = 1, outputs (1, 1, 3, 3): MC-SF has TEL 13 (starts 0, 0, 1, 4), OPT is 12
# (starts 0, 1, 0, 3: 1 + 2 + 3 + 6), the smallest instance on which MC-SF is not optimal.
CE = Instance.at_zero([1, 1, 1, 1], [1, 1, 3, 3], 5)


@pytest.mark.parametrize("method", ["bruteforce", "ip", "auto"])
def test_certify_the_smallest_counterexample(method):
    c = certify(CE, method=method, time_limit=20)
    assert isinstance(c, Certified)
    assert (c.lower, c.upper, c.proved, c.opt) == (12, 12, True, 12)
    assert c.method == ("bruteforce" if method == "auto" else method)
    assert check_schedule(CE, Schedule(c.starts)).tel == 12


def test_certify_uses_incumbent_and_bound_without_search():
    inst = Instance.at_zero([1, 1], [2, 2], 6)  # both fit together: OPT = 4 = sum of outputs
    c = certify(inst, incumbent=(0, 0), lower_bound=4)
    assert (c.upper, c.proved, c.method, c.starts) == (4, True, "bound", (0, 0))
    # TEL is an integer, so a fractional bound 3.5 is as good as 4; a bound 3 does not prove it: brute force runs
    assert certify(inst, incumbent=(0, 0), lower_bound=3.5).method == "bound"
    c2 = certify(inst, incumbent=(0, 0), lower_bound=3)
    assert (c2.upper, c2.proved, c2.method) == (4, True, "bruteforce")
    # incumbent with the cut-off: MC-SF's TEL 13 on CE is improved to 12
    mc = simulate(CE, make_policy("mc-sf"))
    c3 = certify(CE, method="bruteforce", incumbent=mc.schedule.starts, lower_bound=order_statistic_bound(CE))
    assert mc.tel == 13 and c3.upper == 12 and c3.method == "bruteforce"


def test_certify_rejects_bad_input():
    with pytest.raises(ValueError, match="method"):
        certify(CE, method="magic")
    with pytest.raises(ValueError, match="incumbent"):
        certify(CE, incumbent=(0, 0, 0, 0))  # two 3-round requests and two 1-round ones exceed M = 5
    with pytest.raises(ValueError, match="exceeds"):
        certify(CE, incumbent=(0, 0, 1, 4), lower_bound=14)


def test_at_zero_instances_counts_by_hand():
    # n = 2, M = 3, one prompt: s = 1 -> outputs {1,1}, {1,2}, {2,2}; s = 2 -> {1,1}
    eq = list(at_zero_instances(2, 3))
    assert [(int(i.prompt[0]), tuple(i.output.tolist())) for i in eq] == [(1, (1, 1)), (1, (1, 2)), (1, (2, 2)),
                                                                         (2, (1, 1))]
    # varying prompts: types (1,1), (1,2), (2,1); multisets of 2 of 3 types = 6
    assert len(list(at_zero_instances(2, 3, equal_prompt=False))) == 6
    assert len(list(at_zero_instances(3, 6, prompts=[2], o_max=2))) == 4  # {1,1,1},{1,1,2},{1,2,2},{2,2,2}


def test_smallest_non_optimal_finds_the_counterexample():
    found = smallest_non_optimal("mc-sf", equal_prompt=True, max_n=4, max_M=5)
    assert {(f["n"], f["M"]) for f in found} == {(4, 5)}
    row = [f for f in found if f["outputs"] == [1, 1, 3, 3]][0]
    assert row["prompts"] == [1, 1, 1, 1] and row["TEL(MC-SF)"] == 13 and row["OPT"] == 12
    assert smallest_non_optimal("mc-sf", equal_prompt=True, max_n=3, max_M=4) == []


def test_policy_vs_opt_bound_shortcut():
    r = policy_vs_opt(Instance.at_zero([1, 1], [2, 2], 6), lower_bound=order_statistic_bound)
    assert (r["tel"], r["OPT"], r["certified by"]) == (4, 4, "bound")
    r = policy_vs_opt(CE, lower_bound=order_statistic_bound)
    assert (r["tel"], r["OPT"], r["certified by"]) == (13, 12, "bruteforce")
