"""004 Section 6 (Theorems 6.2 and 6.4) and the pause model they assume (kvlib.core.pausable)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

from kvlib.core.checker import check_schedule
from kvlib.core.errors import ScheduleError
from kvlib.core.model import Instance, Schedule
from kvlib.core.pausable import check_pausable, runs_of_starts
from kvlib.theory import pause62


def test_pause_model_equals_the_checker_on_non_preemptive_schedules():
    rng = np.random.default_rng(3)
    for _ in range(300):
        n, M = int(rng.integers(1, 6)), int(rng.integers(6, 20))
        reqs = [(int(rng.integers(0, 4)), int(rng.integers(1, 4)), 0) for _ in range(n)]
        reqs = [(a, s, int(rng.integers(1, M - s + 1))) for a, s, _ in reqs]
        inst = Instance(reqs, M)
        starts = [a + int(rng.integers(0, 6)) for a, _, _ in reqs]
        rep, ref = check_pausable(inst, runs_of_starts(inst, starts)), check_schedule(inst, Schedule(tuple(starts)))
        assert rep.valid == ref.valid and rep.tel == ref.tel and rep.pauses == 0


def test_a_paused_request_keeps_its_cache():
    inst = Instance([(0, 2, 3), (0, 3, 1)], 8)
    # request 0 runs at 1, pauses at 2 (holding 3), resumes at 3, 4; request 1 runs at 2: 3 + 4 = 7 <= 8
    ok = check_pausable(inst, [[1, 3, 4], [2]])
    assert ok.valid and ok.tel == 4 + 2 and ok.pauses == 1 and ok.peak == 7
    # with M = 6 the paused request's 3 tokens plus request 1's 4 exceed M at time 2
    bad = check_pausable(Instance([(0, 2, 3), (0, 3, 1)], 6), [[1, 3, 4], [2]])
    assert not bad.valid and "time 2: memory 7 > M = 6" in bad.violations[0]
    early = check_pausable(Instance([(2, 1, 1)], 4), [[2]])
    assert not early.valid and "before its arrival" in early.violations[0]
    with pytest.raises(ScheduleError, match="request 0: needs 3 distinct"):
        check_pausable(inst, [[1, 1, 2], [2]])
    with pytest.raises(ScheduleError, match="2 rows for 1"):
        check_pausable(Instance([(0, 1, 1)], 4), [[1], [2]])


def test_theorem62_displays():
    d = {r["display"]: r for r in pause62.displays()}
    assert d["TEL(A1) lower bound"]["equal"] and d["TEL(A2) lower bound"]["equal"]
    e, M = sp.symbols("epsilon M", positive=True)
    # the OPT bound's last equality drops the eps^2 M term of the sum before it
    assert not d["TEL(A3) = OPT upper bound"]["equal"]
    assert sp.simplify(d["TEL(A3) = OPT upper bound"]["difference"] - e**2 * M) == 0
    b = pause62.paper_ratio_bound(4)
    assert b == {"A1/OPT": 9, "A2/OPT": 4, "claimed": 4}


def test_theorem62_schedules_in_the_pause_model():
    M, k = 1024, 4
    s = pause62.paper_schedules(M, k)
    assert s["A1"].valid and s["A3"].valid
    # the paused long request holds (1 - eps) M, leaving eps M: a short request needs eps M + 1
    assert s["A2"] is None
    # with prompts one token shorter, exactly one short request fits at a time, as the proof counts
    s2 = pause62.paper_schedules(M, k, short_prompt=M // k - 1)
    assert s2["A2"].valid and s2["A2"].pauses == 1 and s2["A2"].peak == M
    assert s2["A3"].tel < s2["A2"].tel < s2["A1"].tel
    with pytest.raises(ValueError, match="multiple of k"):
        pause62.sizes(1000, 4)


@pytest.mark.parametrize("policy", ["mc-sf", "fcfs", "mc-benchmark"])
def test_theorem62_adversary_against_non_preemptive_policies(policy):
    r = pause62.adversary_run(policy, 1024, 4)
    assert r.consistent and r.t_prime == 0
    assert r.opt_upper <= r.tel and r.ratio_lower > 4  # above the claimed 1/eps = 4 already at M = 1024


def test_theorem64_distribution_mass():
    """The proof's support has c/eps + 1 points of mass eps/c each: total 1 + eps/c, not 1."""
    for c, k in ((1, 5), (2, 10), (3, 4)):
        d = pause62.thm64_support(c, k)
        assert d["support size"] == c * k + 1
        assert d["total mass"] == 1 + Fraction(1, c * k)


def test_remark63_exact_optimum_matches_brute_force():
    """M = 16, eps = 1/4: long (4, 12), q short requests (4, 1) at t = 8; the non-preemptive optimum of
    remark63_row equals branch and bound, and the bracket is ordered."""
    from kvlib.optimum.bruteforce import brute_force_opt
    from kvlib.core.model import Request

    for q in (1, 2, 3, 5):
        row = pause62.remark63_row(16, 4, q)
        inst = Instance((Request(0, 4, 12), *(Request(8, 4, 1) for _ in range(q))), 16)
        opt, _, _ = brute_force_opt(inst)
        assert row["opt"] == opt
        assert row["opt_lower"] <= row["opt"] <= row["tel_continue"]


def test_remark63_limits_and_worst_count():
    """Remark 6.3: few or many short requests give a small ratio; the worst count is near our estimate
    sqrt(2 c (1 - eps) M), well below eps M at M = 2304, where the ratio is above the ratio at eps M."""
    M, k = 2304, 4
    rows = [pause62.remark63_row(M, k, q) for q in pause62.remark63_counts(M, k)]
    by_q = {r["q"]: r for r in rows}
    assert by_q[1]["ratio_high"] < 1.34  # about 1/(1 - eps)
    assert rows[-1]["ratio_high"] < 1.25  # 32 eps M short requests: ratio tends to 1
    worst = max(rows, key=lambda r: r["ratio_low"])
    assert worst["q"] < M // k / 2
    assert worst["ratio_low"] > 2 * by_q[M // k]["ratio_high"]
    with pytest.raises(ValueError, match="q"):
        pause62.remark63_row(M, k, 0)
