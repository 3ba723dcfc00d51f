"""The policies of 001 (Jaillet et al.) pinned on hand-checked instances, and every 001 policy
through the independent checker on random instances.

Conventions (001 eqs. (3) and (5)): a request started at round ``p`` holds ``s + (t' - p)`` tokens
at every ``t'`` in ``[p + 1, p + o]`` and completes at ``p + o``; instances are written
``(arrival, s, o)``.  Each derivation below follows the paper's pseudocode line by line.
"""

from __future__ import annotations

import numpy as np
import pytest
from _stalls import clearing_loop_expected
from hypothesis import example, HealthCheck, given, settings
from hypothesis import strategies as st

from kvlib import Instance, Request, SimulationStalled, check_schedule, make_policy, simulate, total_latency
from kvlib.policies.jaillet import AlphaProtection
from kvlib.policies.registry import policy_options

#: every registered policy that implements (or is our variant of) a policy of 001
POLICIES_001 = ["mc-sf", "mc-benchmark", "fcfs", "mc-benchmark-scan", "alpha-greedy", "alpha-beta-clearing",
                "alpha-beta-clearing-redraw"]
LOOKAHEAD_001 = POLICIES_001[:4]
CLEARING_001 = POLICIES_001[4:]


def _run(inst, name, **opts):
    res = simulate(inst, make_policy(name, **opts))
    rep = check_schedule(inst, res.schedule, allow_cancellation=name in CLEARING_001)
    assert rep.valid, rep.violations
    assert rep.tel == res.tel
    return res


# ---------------------------------------------------------------------------
# I1, MC-SF (001 Algorithm 1).  M = 12; r0 (0,2,4), r1 (0,3,2), r2 (0,2,5), r3 (1,2,1), r4 (3,4,3).
# t=0: waiting by o: r1 (2), r0 (4), r2 (5).
#      r1: t'=2: 3+2 = 5 <= 12, add.  r0: t'=2: 5 + (2+2) = 9; t'=4: 2+4 = 6; add.
#      r2: t'=2: 9 + (2+2) = 13 > 12 -> break.                       start r1, r0
# t=1: r3 arrives; by o: r3 (1), r2 (5).
#      r3: t'=2: r1 5 + r0 4 + r3 (2+1) 3 = 12; t'=4: r0 6; add.
#      r2: t'=2: 12 + (2+1) = 15 > 12 -> break.                        start r3
# t=2: r1 and r3 complete.  r2: t'=4: r0 6 + r2 (2+2) 4 = 10; t'=7: 2+5 = 7; add.   start r2
# t=3: r4 arrives.  r4 (ends 6): t'=4: r0 6 + r2 4 + r4 (4+1) 5 = 15 > 12 -> break.
# t=4: r0 completes.  r4 (ends 7): t'=7: r2 7 + r4 (4+3) 7 = 14 -> break.
# t=5: r4 (ends 8): t'=7: r2 7 + r4 (4+2) 6 = 13 -> break.
# t=6: r4 (ends 9): t'=7: 7 + 5 = 12; t'=9: 4+3 = 7; add.                  start r4
# starts (0, 0, 2, 1, 6); completions 4, 2, 7, 2, 9; latencies 4, 2, 7, 1, 6 -> TEL 20.
I1 = Instance.from_arrays([0, 0, 0, 1, 3], [2, 3, 2, 2, 4], [4, 2, 5, 1, 3], 12)

# The same instance under MC-Benchmark (001 Algorithm 2), arrival order r0, r1, r2 (ties at 0 by id), r3, r4:
# t=0: r0: t'=4: 6, add.  r1: t'=2: r0 4 + r1 5 = 9; t'=4: 6; add.  r2: t'=2: 9 + 4 = 13 -> break.
# t=1: r2 (ends 6): t'=2: 4 + 5 + 3 = 12; t'=4: 6 + 5 = 11; t'=6: 7; add.  r3: t'=2: 12 + 3 = 15 -> break.
# t=2: r1 completes.  r3 (ends 3): t'=3: r0 5 + r2 4 + r3 3 = 12; t'=4: 11; t'=6: 7; add.
# t=3: r3 completes; r4 arrives.  r4 (ends 6): t'=4: 6 + 5 + 5 = 16 -> break.
# t=4: r0 completes.  r4 (ends 7): t'=6: r2 7 + r4 6 = 13 -> break.
# t=5: r4 (ends 8): t'=6: 7 + 5 = 12; t'=8: 7; add.
# starts (0, 0, 1, 2, 5); completions 4, 2, 6, 3, 8; latencies 4, 2, 6, 2, 5 -> TEL 19 (MC-SF is not always better).


def test_mc_sf_hand_checked_I1():
    res = _run(I1, "mc-sf")
    assert res.schedule.starts == (0, 0, 2, 1, 6)
    assert res.tel == 20
    assert res.peak_memory == 12  # = M, at t = 2


def test_mc_benchmark_hand_checked_I1():
    res = _run(I1, "mc-benchmark")
    assert res.schedule.starts == (0, 0, 1, 2, 5)
    assert res.tel == 19



# ---------------------------------------------------------------------------
# I1Z, MC-SF on an Arrival Model 1 instance (001 Section 5.1: everything at t = 0), with a tie in o.
# M = 10; r0 (s=2, o=3), r1 (1, 3), r2 (3, 2), r3 (1, 5).  Algorithm 1's order: r2 (o=2), then the tie
# r0, r1 (o=3, broken by arrival, then id: r0 first), then r3 (o=5).
# t=0: r2: t'=2: 3+2 = 5, add.  r0 (ends 3): t'=2: 5 + (2+2) = 9; t'=3: 2+3 = 5; add.
#      r1 (ends 3): t'=2: 9 + (1+2) = 12 > 10 -> break (r3 is not tried).        start r2, r0
# t=1: r1 (ends 4): t'=2: r2 5 + r0 4 + r1 (1+1) 2 = 11 > 10 -> break.
# t=2: r2 completes.  r1 (ends 5): t'=3: r0 5 + r1 (1+1) 2 = 7; t'=5: 1+3 = 4; add.
#      r3 (ends 7): t'=3: 7 + 2 = 9; t'=5: 4 + (1+3) 4 = 8; t'=7: 1+5 = 6; add.     start r1, r3
# starts (0, 2, 0, 2); completions 3, 5, 2, 7 -> TEL 17.
# OPT = 16 (brute force): starts (2, 0, 0, 1), i.e. r1 with r2 at 0, r3 at 1, r0 at 2; usage at t'=2:
# r1 3 + r2 5 + r3 2 = 10; t'=3: r1 4 + r3 3 + r0 3 = 10; t'=5: r3 5 + r0 5 = 10 (all <= M).  MC-SF misses it because at t=1 the failing r0 (o=3) blocks r3
# ("Break the for loop"), so MC-SF is not optimal on this all-at-once instance.
I1Z = Instance.at_zero([2, 1, 3, 1], [3, 3, 2, 5], 10)


def test_mc_sf_hand_checked_I1Z_all_at_zero():
    res = _run(I1Z, "mc-sf")
    assert res.schedule.starts == (0, 2, 0, 2)
    assert res.tel == 17
    assert res.peak_memory == 9  # at t' = 2 (r2 5 + r0 4) and t' = 3 (r0 5 + r1 2 + r3 2)


def test_mc_sf_not_optimal_on_I1Z():
    from kvlib.core.model import Schedule
    from kvlib.optimum.bruteforce import enumerate_opt

    opt, starts = enumerate_opt(I1Z)
    assert opt == 16
    rep = check_schedule(I1Z, Schedule(starts))
    assert rep.valid and rep.tel == 16


# ---------------------------------------------------------------------------
# I2, MC-Benchmark against our scan.  M = 10, all at 0: r0 (s=5, o=4), r1 (6, 3), r2 (1, 1).
# Algorithm 2, arrival order r0, r1, r2 (ties at 0 broken by id):
# t=0: r0: t'=4: 5+4 = 9, add.  r1 (ends 3): t'=3: r0 8 + r1 9 = 17 > 10 -> break (r2 is not tried).
# t=1: r1 (ends 4): t'=4: r0 9 + r1 (6+3) 9 = 18 -> break.   t=2: t'=4: 9 + 8 = 17 -> break.
# t=3: t'=4: 9 + 7 = 16 -> break.
# t=4: r0 completes.  r1 (ends 7): 9, add.  r2 (ends 5): t'=5: r1 7 + r2 2 = 9; t'=7: 9; add.
# starts (0, 4, 4); completions 4, 7, 5 -> TEL 16.
# Scan (ours): at t=0 r2 is tried behind the failing r1: t'=1: r0 6 + r2 2 = 8; t'=4: 9; admitted.
# r1 starts at 4 as above: starts (0, 4, 0); completions 4, 7, 1 -> TEL 12.
I2 = Instance.at_zero([5, 6, 1], [4, 3, 1], 10)

# I2b, the same with arrivals: r0 (0,5,4), r1 (1,6,3), r2 (2,1,1).
# Algorithm 2: t=0 r0 (9 at 4).  t=1: r1 (ends 4): t'=4: 9 + 9 = 18 -> break.
# t=2: r2 arrives behind r1; r1 (ends 5): t'=4: 9 + 8 = 17 -> break.  t=3: t'=4: 9 + 7 = 16 -> break.
# t=4: r0 completes; r1 (9 at 7) and r2 (t'=5: 7 + 2 = 9) start.  starts (0, 4, 4);
# latencies 4, 7 - 1 = 6, 5 - 2 = 3 -> TEL 13.
# Scan: at t=2 r2 (ends 3) is tried after r1 fails: t'=3: r0 8 + r2 2 = 10; t'=4: 9; admitted.
# starts (0, 4, 2); latencies 4, 6, 1 -> TEL 11.
I2B = Instance.from_arrays([0, 1, 2], [5, 6, 1], [4, 3, 1], 10)


@pytest.mark.parametrize(
    "inst,name,starts,tel",
    [
        (I2, "mc-benchmark", (0, 4, 4), 16),
        (I2, "fcfs", (0, 4, 4), 16),
        (I2, "mc-benchmark-scan", (0, 4, 0), 12),
        (I2B, "mc-benchmark", (0, 4, 4), 13),
        (I2B, "fcfs", (0, 4, 4), 13),
        (I2B, "mc-benchmark-scan", (0, 4, 2), 11),
    ],
)
def test_mc_benchmark_hand_checked_I2(inst, name, starts, tel):
    res = _run(inst, name)
    assert res.schedule.starts == starts
    assert res.tel == tel


def test_fcfs_is_mc_benchmark():
    """``fcfs`` is the same policy as 001 Algorithm 2; only the label differs."""
    a, b = make_policy("mc-benchmark"), make_policy("fcfs")
    assert type(a) is type(b) and a._order is b._order
    assert (a.name, b.name) == ("mc-benchmark", "fcfs")


# ---------------------------------------------------------------------------
# I3, alpha-protection greedy (001 Section 5.2), the readings of AlphaProtection.
# M = 10, alpha = 0.2 -> admission cap (1 - alpha) M = 8; r0 (0,1,8), r1 (3,1,3).
# t=0: nothing runs; r0 needs s+1 = 2 <= 8: start r0 (holds 1 + t').
# t=1, 2: r0 holds 3, 4 at t+1 <= 10; nobody waits.
# t=3: r1 arrives.  Next-round usage of r0: 1 + 4 = 5; 5 + (1+1) = 7 <= 8: start r1.
# t=4: next round: r0 6 + r1 (1+2) 3 = 9 <= 10.
# t=5: next round: r0 7 + r1 4 = 11 > 10 -> overflow event: clear both (r0 loses 5 rounds, r1 2).
#      Both rejoin at their arrival position and are re-admitted at once: r0 2 <= 8, r1 2 + 2 = 4 <= 8.
# r0 restarts at 5 and completes at 13, r1 restarts at 5 and completes at 8.
# TEL = (13 - 0) + (8 - 3) = 18; cancelled runs (r0, p=0, 5 rounds) and (r1, p=3, 2 rounds).
I3 = Instance.from_arrays([0, 3], [1, 1], [8, 3], 10)


def test_alpha_greedy_hand_checked_I3():
    res = _run(I3, "alpha-greedy", alpha=0.2)
    assert res.schedule.starts == (5, 5)
    assert sorted(res.schedule.cancelled) == [(0, 0, 5), (1, 3, 2)]
    assert res.tel == 18
    assert res.peak_memory <= 10


# I4, the greedy loop of 001 Section 5.2.  M = 10, r0 = r1 = (0,1,6).
# alpha = 0.5 (cap 5): both start at 0 (2 + 2 = 4 <= 5).  Each holds 1 + (t' - p): at t=4 the next
# round would hold 6 + 6 = 12 > 10 -> both cleared and re-admitted at 4; the same happens every 4
# rounds: an endless loop (the engine raises SimulationStalled).
# alpha = 0.61 (cap 3.9): r0 starts (2); r1 would need 2 + 2 = 4 > 3.9 at t=0 and more later, so it
# waits until r0 completes at 6: starts (0, 6), TEL 6 + 12 = 18, no clearing.
I4 = Instance.at_zero([1, 1], [6, 6], 10)


def test_alpha_greedy_hand_checked_I4():
    with pytest.raises(SimulationStalled, match="alpha-greedy"):
        simulate(I4, make_policy("alpha-greedy", alpha=0.5), max_rounds=200)
    res = _run(I4, "alpha-greedy", alpha=0.61)
    assert res.schedule.starts == (0, 6)
    assert res.tel == 18 and res.evictions == 0


# ---------------------------------------------------------------------------
# I3 under alpha-protection beta-clearing (001 Section 5.2, Appendix C), with scripted draws:
# request i is cleared at an overflow event iff its draw u_i < beta (beta = 0.5 here).
# The only overflow event is at t=5 (next round r0 7 + r1 4 = 11 > 10), as in the greedy derivation.
# * r1 cleared only: r0 continues (7 at 6 <= 10).  r1 needs used + 2 <= 8: used = r0's next-round usage
#   7, 8, 9 at t = 5, 6, 7 -> no; r0 completes at 8, r1 starts at 8, completes 11.
#   starts (0, 8), TEL 8 + 8 = 16.
# * r0 cleared only: r1 stays (4 at 6); r0 re-admitted at 5 (4 + 2 = 6 <= 8); r1 completes 6, r0 13.
#   starts (5, 3), TEL 13 + 3 = 16.
# * both cleared: as greedy, starts (5, 5), TEL 18.
# * neither cleared: the survivors would hold 11 > 10.  alpha-beta-clearing (one draw per event):
#   the batch cannot run within M, so the survivors are cleared too -> as greedy, TEL 18, one escalation.
#   alpha-beta-clearing-redraw (ours) draws again at once; with "r1 only" on the second pass -> TEL 16.
KEEP, CLEAR = 0.9, 0.1


class _Scripted(AlphaProtection):
    """AlphaProtection whose uniform draws come from a script: one ``{request: u}`` dict per pass."""

    def __init__(self, script, **kw):
        super().__init__(**kw)
        self.script = list(script)
        self.passes = 0

    def _uniform(self, ids):
        self.passes += 1
        u = self.script.pop(0)
        return np.array([u[int(i)] for i in ids])


@pytest.mark.parametrize(
    "draws,starts,tel,cancelled",
    [
        ({0: KEEP, 1: CLEAR}, (0, 8), 16, [(1, 3, 2)]),
        ({0: CLEAR, 1: KEEP}, (5, 3), 16, [(0, 0, 5)]),
        ({0: CLEAR, 1: CLEAR}, (5, 5), 18, [(0, 0, 5), (1, 3, 2)]),
    ],
)
def test_alpha_beta_clearing_hand_checked_I3(draws, starts, tel, cancelled):
    pol = _Scripted([draws], alpha=0.2, beta=0.5, clearing="single")
    res = simulate(I3, pol)
    assert check_schedule(I3, res.schedule, allow_cancellation=True).valid
    assert res.schedule.starts == starts and res.tel == tel
    assert sorted(res.schedule.cancelled) == cancelled
    assert pol.passes == 1 and pol.clearings == 1 and pol.escalations == 0


def test_alpha_beta_clearing_single_draw_escalates_I3():
    pol = _Scripted([{0: KEEP, 1: KEEP}], alpha=0.2, beta=0.5, clearing="single")
    res = simulate(I3, pol)
    assert check_schedule(I3, res.schedule, allow_cancellation=True).valid
    assert res.schedule.starts == (5, 5) and res.tel == 18
    assert pol.passes == 1 and pol.escalations == 1


def test_alpha_beta_clearing_redraw_I3():
    pol = _Scripted([{0: KEEP, 1: KEEP}, {0: KEEP, 1: CLEAR}], alpha=0.2, beta=0.5, clearing="redraw")
    res = simulate(I3, pol)
    assert check_schedule(I3, res.schedule, allow_cancellation=True).valid
    assert res.schedule.starts == (0, 8) and res.tel == 16
    assert pol.passes == 2 and pol.escalations == 0


def test_factories_configure_the_paper_rules():
    g, b, r = make_policy("alpha-greedy"), make_policy("alpha-beta-clearing"), make_policy("alpha-beta-clearing-redraw")
    assert (g.name, g.beta, g.clearing) == ("alpha-greedy", 1.0, "single")
    assert (b.name, b.alpha, b.beta, b.clearing) == ("alpha-beta-clearing", 0.2, 0.1, "single")
    assert (r.name, r.clearing) == ("alpha-beta-clearing-redraw", "redraw")
    assert make_policy("alpha-beta-clearing", beta=1.0).name == "alpha-beta-clearing"
    with pytest.raises(ValueError, match="clearing must be one of"):
        AlphaProtection(0.2, 0.5, clearing="twice")


def test_beta_one_is_greedy():
    """With beta = 1 the single draw clears everybody: the greedy schedule, for any seed."""
    rng = np.random.default_rng(3)
    inst = Instance.from_arrays(rng.integers(0, 20, 30), rng.integers(1, 4, 30), rng.integers(1, 12, 30), 30)
    for seed in range(3):
        try:
            g = simulate(inst, make_policy("alpha-greedy", alpha=0.3), seed=seed, max_rounds=5000).schedule
        except SimulationStalled:
            g = "stalled"
        try:
            b = simulate(inst, make_policy("alpha-beta-clearing", alpha=0.3, beta=1.0), seed=seed,
                         max_rounds=5000).schedule
        except SimulationStalled:
            b = "stalled"
        assert g == b


# ---------------------------------------------------------------------------
# every 001 policy on random instances (with arrivals) through the independent checker


@st.composite
def _instances(draw, max_n=12, max_arrival=10):
    M = draw(st.integers(4, 50))
    n = draw(st.integers(1, max_n))
    reqs = []
    for _ in range(n):
        s = draw(st.integers(1, M - 1))
        o = draw(st.integers(1, M - s))
        reqs.append(Request(draw(st.integers(0, max_arrival)), s, o))
    return Instance(tuple(reqs), M)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(inst=_instances(), seed=st.integers(0, 5), tie=st.sampled_from(["index", "random"]),
       alpha=st.sampled_from([0.1, 0.2, 0.3]), beta=st.sampled_from([0.1, 0.2, 0.5, 1.0]))
@example(inst=Instance((Request(2, 3, 29), Request(1, 1, 28), Request(0, 1, 1), Request(0, 5, 28),
                        Request(2, 10, 20)), 46), seed=0, tie="index", alpha=0.1, beta=0.5)
def test_every_001_policy_passes_the_checker(inst, seed, tie, alpha, beta):
    for name in POLICIES_001:
        given = {"tie_break": tie, "alpha": alpha, "beta": beta}
        pol = make_policy(name, **{k: v for k, v in given.items() if k in policy_options(name)})
        if name in CLEARING_001 and (inst.prompt + 1 > (1 - alpha) * inst.memory).any():
            with pytest.raises(ValueError, match="could never be admitted"):
                simulate(inst, pol, seed=seed)
            continue
        try:
            res = simulate(inst, pol, seed=seed, max_rounds=20_000)
        except SimulationStalled:
            assert clearing_loop_expected(name, pol, beta), name
            continue
        rep = check_schedule(inst, res.schedule, allow_cancellation=pol.preemptive)
        assert rep.valid, (name, rep.violations)
        assert rep.tel == res.tel == total_latency(inst, res.schedule), name
        assert rep.peak_memory == res.peak_memory <= inst.memory, name
        if name in LOOKAHEAD_001:
            assert not res.schedule.cancelled
        else:
            assert res.evictions == len(res.schedule.cancelled)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(inst=_instances(), tie=st.sampled_from(["index", "random"]), seed=st.integers(0, 5))
def test_fcfs_and_mc_benchmark_agree(inst, tie, seed):
    a = simulate(inst, make_policy("mc-benchmark", tie_break=tie), seed=seed).schedule
    b = simulate(inst, make_policy("fcfs", tie_break=tie), seed=seed).schedule
    assert a == b


def test_mc_benchmark_starts_a_prefix_of_the_scan():
    """The prefix rule starts a subset of what the scan starts in the same state: at t = 0 of an
    all-at-zero instance the prefix is the scan's first run of admitted requests."""
    rng = np.random.default_rng(11)
    for _ in range(20):
        n = 8
        inst = Instance.at_zero(rng.integers(1, 4, n), rng.integers(1, 10, n), 20)
        p = simulate(inst, make_policy("mc-benchmark")).schedule.starts
        q = simulate(inst, make_policy("mc-benchmark-scan")).schedule.starts
        started_p = {i for i in range(n) if p[i] == 0}
        started_q = {i for i in range(n) if q[i] == 0}
        assert started_p <= started_q
        assert started_p == set(range(len(started_p)))  # a prefix of the arrival (id) order


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(inst=_instances(), seed=st.integers(0, 5), alpha=st.sampled_from([0.1, 0.2, 0.3]),
       beta=st.sampled_from([0.1, 0.2, 0.5]))
def test_single_draw_and_redraw_differ_only_by_escalations(inst, seed, alpha, beta):
    """The two beta-clearing rules consume the same first draw of every event; they part only at an
    event where that draw leaves memory above M (an escalation of the single-draw rule)."""
    if (inst.prompt + 1 > (1 - alpha) * inst.memory).any():
        return
    single = make_policy("alpha-beta-clearing", alpha=alpha, beta=beta)
    redraw = make_policy("alpha-beta-clearing-redraw", alpha=alpha, beta=beta)
    try:
        a = simulate(inst, single, seed=seed, max_rounds=5_000).schedule
    except SimulationStalled:
        assert single.escalations > 0
        return
    if single.escalations == 0:
        assert simulate(inst, redraw, seed=seed, max_rounds=5_000).schedule == a
