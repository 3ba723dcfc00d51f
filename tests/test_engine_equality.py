"""The fast engine (kvlib.core.simulate: incremental running arrays, the policies' kept check-point profile
kvlib.core.lookahead.LiveProfile) against the plain one (kvlib.core.reference) and against profiles rebuilt
from scratch: identical schedules (start times, cancelled runs), TEL and decision rounds, on seeded random
instances larger than tests/test_volume.py's (tens of requests, so that runs overlap, complete and leave
check-points behind), including told output lengths that differ from the true ones."""

from __future__ import annotations

import numpy as np
import pytest

from kvlib import Instance, check_schedule, make_policy, simulate
from kvlib.core.errors import PolicyError, SimulationStalled
from kvlib.core.model import peak_memory
from kvlib.core.lookahead import FutureMemory, LiveProfile, wake_time
from kvlib.core.protocol import PolicyContext, Running
from kvlib.core.reference import simulate_reference
from kvlib.policies import LookaheadPrefix, by_output
from kvlib.serving.realtime import simulate_realtime
from kvlib.serving.workloads import Workload

#: seeded instances per policy
CASES = 60


def random_instance(rng: np.random.Generator, n_max: int = 60) -> Instance:
    M = int(rng.integers(40, 3000))
    n = int(rng.integers(5, n_max + 1))
    s = np.minimum(np.exp(rng.uniform(0, np.log(M / 4), n)).astype(np.int64) + 1, M - 1)
    o = np.array([int(rng.integers(1, min(M - x, 80) + 1)) for x in s], dtype=np.int64)
    a = np.sort(rng.integers(0, int(rng.integers(1, 60)), n))
    return Instance.from_arrays(a, s, o, M)


def _intervals(inst: Instance, rng: np.random.Generator) -> dict:
    o, s, M = inst.output, inst.prompt, inst.memory
    lower = np.maximum(1, o - rng.integers(0, 5, inst.n))
    upper = np.minimum(o + rng.integers(0, 20, inst.n), M - s)
    return dict(lower=lower, upper=upper, reveal_output=False)


def _same_run(inst: Instance, name: str, seed: int, **kw) -> None:
    """simulate and simulate_reference agree: the same schedule, or the same error."""
    try:
        fast = simulate(inst, make_policy(name), seed=seed, **kw)
    except (PolicyError, SimulationStalled) as e:
        with pytest.raises(type(e)):
            simulate_reference(inst, make_policy(name), seed=seed, **kw)
        return
    ref, rounds = simulate_reference(inst, make_policy(name), seed=seed, **kw)
    assert fast.schedule == ref, (name, seed)
    rep = check_schedule(inst, ref, allow_cancellation=True)
    assert rep.valid and fast.tel == rep.tel, (name, seed, rep.violations[:2])
    assert fast.rounds_decided <= rounds, (name, seed)
    assert fast.peak_memory == peak_memory(inst, ref) == rep.peak_memory, (name, seed)


@pytest.mark.parametrize("name", ["mc-sf", "fcfs", "a-min", "sorted-f"])
def test_fast_engine_equals_the_reference_on_larger_random_instances(name):
    rng = np.random.default_rng([52, len(name)])
    for k in range(CASES):
        inst = random_instance(rng, n_max=20 if name == "sorted-f" else 60)
        kw = _intervals(inst, rng) if name == "a-min" else {}
        _same_run(inst, name, k, **kw)


@pytest.mark.parametrize("name", ["mc-sf", "fcfs"])
def test_fast_engine_equals_the_reference_with_wrong_told_outputs(name):
    """Told outputs longer than the true ones end runs before the policy expects (LiveProfile.remove);
    shorter ones leave runs past their check-points (and may overflow: then both engines raise)."""
    rng = np.random.default_rng([52, 7, len(name)])
    for k in range(CASES):
        inst = random_instance(rng)
        o = inst.output
        told = np.maximum(1, o + rng.integers(-3, 30, inst.n)) if k % 3 else o + rng.integers(0, 30, inst.n)
        _same_run(inst, name, k, known_output=told)


def _fresh(t, M, runs, o_told):
    ids = np.asarray(sorted(runs), dtype=np.int64)
    if len(ids) == 0:
        return FutureMemory(t, M, np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64))
    s = np.asarray([runs[i][0] for i in ids]); p = np.asarray([runs[i][1] for i in ids])
    return FutureMemory(t, M, s, p, p + o_told[ids])


def test_live_profile_equals_a_rebuilt_profile_after_every_update():
    """Random starts, early completions and time steps: cps, U, K and every fits / wake_time answer of the
    kept profile equal those of a FutureMemory built from the running set at that moment."""
    rng = np.random.default_rng(520)
    for trial in range(40):
        M = int(rng.integers(50, 5000))
        n = 200
        o_told = rng.integers(1, 60, n)
        runs: dict[int, tuple[int, int]] = {}  # id -> (s, p)
        t = 0
        live = LiveProfile(t, M, np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64))
        nxt = 0
        for step in range(150):
            move = rng.integers(0, 3)
            if move == 0 and nxt < n:  # start a request now
                s = int(rng.integers(1, M // 10 + 2))
                live.add(s, int(o_told[nxt]))
                runs[nxt] = (s, t)
                nxt += 1
            elif move == 1 and runs:  # a run completes now (maybe before its believed end)
                i = int(rng.choice(sorted(runs)))
                s, p = runs.pop(i)
                e = p + int(o_told[i])
                if e > t:
                    live.remove(s, p, e)
            else:
                t += int(rng.integers(1, 8))
                live.advance(t)
            fm = _fresh(t, M, {i: r for i, r in runs.items() if r[1] + o_told[i] > t}, o_told)
            assert live.cps == fm.cps.tolist() and live.U == fm.U.tolist() and live.K == fm.K.tolist(), \
                (trial, step)
            for _ in range(3):
                s0, o0 = int(rng.integers(1, M // 4 + 2)), int(rng.integers(1, 80))
                assert live.fits(s0, o0) == fm.fits(s0, o0), (trial, step, s0, o0)
                assert wake_time(live, s0, o0, t + 50) == wake_time(fm, s0, o0, t + 50)


def test_live_profile_refuses_inconsistent_updates():
    live = LiveProfile(5, 100, np.array([3]), np.array([2]), np.array([9]))
    with pytest.raises(ValueError, match="before the profile's time 5"):
        live.advance(4)
    with pytest.raises(ValueError, match="no check-point at the run's completion time 8"):
        live.remove(3, 2, 8)


class _RebuiltMCSF(LookaheadPrefix):
    """MC-SF with the profile rebuilt from the running set at every decision (the code before #52)."""

    def __init__(self) -> None:
        super().__init__(by_output, "mc-sf")

    def _profile(self, t: int, running: Running):
        return self._future(t, running)


def test_realtime_schedules_equal_with_kept_and_rebuilt_profiles():
    """simulate_realtime with MC-SF keeping its profile and with it rebuilt every round: the same rounds,
    schedule and latencies on a seeded overloaded workload (requests wait, so MC-SF decides every round)."""
    rng = np.random.default_rng(52)
    n = 400
    w = Workload(arrival_s=np.sort(rng.uniform(0, 20, n)), prompt=rng.integers(1, 600, n),
                 output=rng.integers(1, 300, n), name="seeded", label="seeded")
    kept = simulate_realtime(w, make_policy("mc-sf"), memory=4000)
    rebuilt = simulate_realtime(w, _RebuiltMCSF(), memory=4000)
    assert kept.completed and kept.schedule == rebuilt.schedule
    assert kept.rounds == rebuilt.rounds and kept.decisions == rebuilt.decisions
    assert np.array_equal(kept.latency_s, rebuilt.latency_s) and np.array_equal(kept.batch_ms, rebuilt.batch_ms)
    assert check_schedule(kept.instance, kept.schedule).valid


def test_policy_rebuilds_its_profile_when_the_running_set_is_not_its_own():
    """A running set the policy did not start (another engine's state) is read, not trusted to the kept
    profile: the decision equals that of MC-SF rebuilding its profile every round."""
    arrival, prompt, output = np.zeros(4, np.int64), np.array([10, 10, 10, 30]), np.array([5, 6, 7, 4])
    decisions = []
    for pol in (make_policy("mc-sf"), _RebuiltMCSF()):
        pol.reset(PolicyContext(memory=60, arrival=arrival, prompt=prompt, output=output,
                                rng=np.random.default_rng(0)))
        pol.on_arrival(0, np.array([1, 2, 3]))
        # request 0 runs since 0 (15 tokens at its end, t = 5); shortest output first: 3 (o = 4) fits (47 at
        # t = 5), then 1 (59 at t = 5); 2 would make 59 + 12 = 71 > 60 at t = 5
        decisions.append(pol.decide(3, Running(np.array([0]), np.array([0]))).start)
    assert decisions[0] == decisions[1] == [3, 1]


def test_sorted_local_swap_makes_the_scans_swaps():
    """002 Algorithm 4's swap loop: the binary-search pass (order ascending in s + o) returns the batch of
    the member-by-member scan, from first-fit packs and from random starting batches."""
    from kvlib.policies.wyz import _local_swap_scan, _local_swap_sorted, first_fit, local_swap

    rng = np.random.default_rng(5252)
    for k in range(300):
        n = int(rng.integers(1, 120))
        M = int(rng.integers(20, 3000))
        s = rng.integers(1, M // 3 + 2, n)
        o = rng.integers(1, M // 3 + 2, n)
        w = s + o
        order = np.argsort(w, kind="stable")
        X = first_fit(s, o, M, order) if k % 2 else [i for i in order.tolist() if rng.random() < 0.3]
        inX = np.zeros(n, dtype=bool)
        inX[np.asarray(X, dtype=np.int64)] = True
        mem = int(w[inX].sum())
        scan = _local_swap_scan(w, o, M, inX.copy(), order, mem)
        fast = _local_swap_sorted(w, o, M, inX.copy(), order, mem)
        assert fast.tolist() == scan.tolist() == local_swap(s, o, M, X, order).tolist(), k
