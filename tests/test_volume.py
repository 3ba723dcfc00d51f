"""Every registered policy through the independent checker at volume, the fast engine against the plain
reference engine, and inputs whose memory must grow with n rather than with the time values."""

from __future__ import annotations

import time

import numpy as np
import pytest

from kvlib import Instance, POLICIES, Schedule, check_schedule, make_policy, memory_profile, simulate
from kvlib.core.model import memory_steps, peak_memory
from kvlib.core.reference import simulate_reference
from kvlib.core.protocol import Policy
from kvlib.errors import ParameterError, PolicyError, SimulationStalled

#: Instances per policy in the volume test (21 policies x 120 = 2,520 instances; 700 each, 14,700 in all,
#: took 45 s of the suite's time; KVBOOK_VOLUME=N runs N per policy).
PER_POLICY = int(__import__("os").environ.get("KVBOOK_VOLUME") or 120)


def _loguniform_int(rng, lo: int, hi: int) -> int:
    return int(np.clip(np.exp(rng.uniform(np.log(lo), np.log(hi + 1))), lo, hi))


def random_case(rng: np.random.Generator):
    """A small instance (n in 1..8) with M log-uniform in [2, 10^5], arrivals in 0..6, prompts log-uniform in
    [1, M-1], outputs log-uniform in [1, min(M - s, 60)] (short, so a case takes milliseconds), and interval
    predictions lower <= o <= upper <= M - s for the 003 policies."""
    M = _loguniform_int(rng, 2, 10**5)
    n = int(rng.integers(1, 9))
    s = np.array([_loguniform_int(rng, 1, M - 1) for _ in range(n)], dtype=np.int64)
    o = np.array([_loguniform_int(rng, 1, min(M - x, 60)) for x in s], dtype=np.int64)
    a = rng.integers(0, 7, n)
    lo = np.array([rng.integers(1, x + 1) for x in o], dtype=np.int64)
    hi = np.array([rng.integers(x, min(M - y, 2 * x) + 1) for x, y in zip(o, s)], dtype=np.int64)
    return Instance.from_arrays(a, s, o, M), lo, hi


def _kwargs(name: str, pol, lo, hi) -> dict:
    from kvlib.policies.cyz import INTERVAL_POLICIES

    if name in INTERVAL_POLICIES:
        return dict(lower=lo, upper=hi, reveal_output=bool(getattr(pol, "hindsight", False)))
    return {}


def test_every_policy_through_the_checker_at_volume():
    rng = np.random.default_rng(20261123)
    total = valid = stalled = refused = 0
    per_policy_seconds = {}
    for name in POLICIES:
        tic = time.perf_counter()
        for k in range(PER_POLICY):
            inst, lo, hi = random_case(rng)
            pol = make_policy(name)
            kw = _kwargs(name, pol, lo, hi)
            total += 1
            try:
                res = simulate(inst, pol, seed=k, max_rounds=20 * (int(inst.output.sum()) + inst.n) + 100, **kw)
            except SimulationStalled:
                # the clearing baselines of 001 Sec. 5.2 can clear forever; no other policy may stall
                assert name in ("alpha-greedy", "alpha-beta-clearing"), (name, inst)
                stalled += 1
                continue
            except ParameterError as e:
                # alpha-protection refuses a request with s + 1 > (1 - alpha) M, by name
                assert name.startswith("alpha") and "could never be admitted" in str(e), (name, str(e))
                refused += 1
                continue
            rep = check_schedule(inst, res.schedule, allow_cancellation=pol.preemptive)
            assert rep.valid, (name, k, inst, rep.violations[:3])
            assert rep.tel == res.tel and rep.peak_memory == res.peak_memory <= inst.memory, (name, k)
            assert rep.makespan == res.makespan
            valid += 1
        per_policy_seconds[name] = time.perf_counter() - tic
    assert total >= 20 * min(PER_POLICY, 120) and total == valid + stalled + refused
    assert total == len(POLICIES) * PER_POLICY
    assert valid >= 0.9 * total, (valid, stalled, refused)


@pytest.mark.parametrize("name", list(POLICIES))
def test_fast_engine_matches_the_reference_engine(name):
    """Same schedule, cancellations included, from the heap-based engine and the plain one."""
    rng = np.random.default_rng([7, len(name)])
    for k in range(40):
        inst, lo, hi = random_case(rng)
        kw = _kwargs(name, make_policy(name), lo, hi)
        cap = 20 * (int(inst.output.sum()) + inst.n) + 100
        try:
            fast = simulate(inst, make_policy(name), seed=k, max_rounds=cap, **kw)
        except (SimulationStalled, ParameterError) as e:
            with pytest.raises(type(e)):
                simulate_reference(inst, make_policy(name), seed=k, max_rounds=cap, **kw)
            continue
        ref, rounds = simulate_reference(inst, make_policy(name), seed=k, max_rounds=cap, **kw)
        assert fast.schedule == ref, (name, k)
        # the fast engine skips rounds in which an eq. (5) policy says it would start nothing
        skips = type(make_policy(name)).idle_until is not Policy.idle_until
        assert fast.rounds_decided <= rounds if skips else fast.rounds_decided == rounds, (name, k)


def test_engine_enforces_the_memory_limit_in_rounds_without_a_decision():
    """Told outputs of 1, MC-SF starts all six requests; they really run 10 rounds and hold 90 > M = 40.
    The engine used to return TEL 60 with peak memory 90; it must stop at the first round over M."""
    inst = Instance.at_zero([5] * 6, [10] * 6, 40)
    with pytest.raises(PolicyError) as info:
        simulate(inst, make_policy("mc-sf"), known_output=[1] * 6)
    msg = str(info.value)
    assert "memory 42 > M = 40 at t=2" in msg and "running requests: 0 (started 0, holds 7)" in msg
    with pytest.raises(PolicyError, match="memory 42 > M = 40 at t=2"):
        simulate_reference(inst, make_policy("mc-sf"), known_output=[1] * 6)


def test_huge_time_values_cost_nothing():
    """Arrivals 1e12 and outputs 1e9: the checker, memory_steps, peak_memory and the engine work on events,
    so this is as cheap as small values (it used to allocate horizon-long arrays: ArrayMemoryError)."""
    a = [10**12, 10**12 + 5, 3]
    inst = Instance.from_arrays(a, [7, 3, 2], [10**9, 10**9, 10**9], 2 * 10**9 + 100)
    for name in ("mc-sf", "fcfs", "mc-benchmark"):
        res = simulate(inst, make_policy(name))
        rep = check_schedule(inst, res.schedule)
        assert rep.valid and rep.tel == res.tel
        # requests 0 and 1 run together: at the completion of request 0 they hold (7 + 1e9) + (3 + 1e9 - 5)
        assert res.peak_memory == rep.peak_memory == 7 + 10**9 + 3 + 10**9 - 5
    sched = Schedule((10**12, 10**12 + 5, 3))
    assert peak_memory(inst, sched) == 2 * 10**9 + 5
    prof = memory_profile(inst, sched, times=[0, 4, 10**9 + 3, 10**9 + 4, 10**12 + 1, 10**12 + 6])
    assert prof.tolist() == [0, 3, 2 + 10**9, 0, 8, (7 + 6) + (3 + 1)]
    steps = memory_steps(inst, sched)
    assert len(steps.times) == 6


def test_checker_reports_overflow_on_huge_times_without_a_dense_array():
    inst = Instance.from_arrays([10**12, 10**12], [5, 5], [10**9, 10**9], 10**9 + 10)
    rep = check_schedule(inst, Schedule((10**12, 10**12)))
    assert not rep.valid
    # together they hold 2 (5 + t - p) > M from t - p = (M - 10) / 2 + 1 on
    first = 10**12 + (10**9 + 10 - 10) // 2 + 1
    assert f"exceeds M = {10**9 + 10} at time {first}" in rep.violations[0]
    assert rep.violations[-1].startswith("... memory exceeded at ")
    assert rep.peak_memory == 2 * (5 + 10**9)


def test_event_profile_equals_a_dense_sweep_on_random_schedules():
    rng = np.random.default_rng(3)
    for _ in range(200):
        inst, _, _ = random_case(rng)
        starts = inst.arrival + rng.integers(0, 20, inst.n)
        sched = Schedule(tuple(int(x) for x in starts))
        horizon = int((starts + inst.output).max()) + 2
        dense = np.zeros(horizon + 1, dtype=np.int64)
        for i, p in enumerate(starts):
            for t in range(p + 1, p + int(inst.output[i]) + 1):
                dense[t] += int(inst.prompt[i]) + t - p
        assert memory_profile(inst, sched).tolist() == dense[: len(memory_profile(inst, sched))].tolist()
        assert peak_memory(inst, sched) == dense.max() == check_schedule(inst, sched).peak_memory
