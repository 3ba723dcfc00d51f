"""The primal search of kvlib.optimum.search: every schedule checked, deterministic, exact windows."""

from __future__ import annotations

import numpy as np
import pytest

from kvlib.core.checker import check_schedule
from kvlib.core.instances import uniform
from kvlib.core.model import Instance, Schedule
from kvlib.core.simulate import simulate
from kvlib.optimum.bruteforce import brute_force_opt
from kvlib.optimum.search import SEED_POLICIES, ListScheduler, primal_search, window_reoptimise
from kvlib.policies import make_policy


def _inst(seed, n=8, M=12, arrival_max=6):
    return uniform(np.random.default_rng(seed), n, M, prompt_max=3, output_max=6, arrival_max=arrival_max)


def _naive_place(inst, starts, placed, i):
    """Earliest start of ``i`` at or after its arrival that the checker accepts with ``placed`` (reference)."""
    sub = list(placed) + [i]
    small = Instance(tuple((int(inst.arrival[j]), int(inst.prompt[j]), int(inst.output[j])) for j in sub),
                     inst.memory)
    p = int(inst.arrival[i])
    while True:
        st = [int(starts[j]) for j in placed] + [p]
        if check_schedule(small, Schedule(tuple(st))).valid:
            return p
        p += 1


@pytest.mark.parametrize("seed", range(6))
def test_the_list_scheduler_places_each_request_at_its_earliest_feasible_start(seed):
    inst = _inst(seed, n=9, M=10)
    order = list(np.random.default_rng(seed).permutation(inst.n))
    starts, tel = ListScheduler(inst).decode(order)
    rep = check_schedule(inst, Schedule(tuple(int(x) for x in starts)))
    assert rep.valid and rep.tel == tel
    for k, i in enumerate(order):
        assert starts[i] == _naive_place(inst, starts, order[:k], i), (seed, k, i)


def test_incremental_decoding_equals_decoding_from_scratch():
    inst = _inst(11, n=12, M=14)
    ls = ListScheduler(inst)
    order = list(range(inst.n))
    snaps = []
    starts = np.zeros(inst.n, dtype=np.int64)
    ls.decode_from(order, 0, ls.empty(), starts, keep=snaps)
    new = order[:4] + [order[9]] + order[4:9] + order[10:]
    part = starts.copy()
    tel = ls.decode_from(new, 4, snaps[4], part)
    full, tel_full = ls.decode(new)
    assert tel == tel_full and list(part) == list(full)
    # a cut-off below the TEL stops the decode
    assert ls.decode_from(new, 4, snaps[4], part.copy(), cutoff=tel_full - 1) is None


@pytest.mark.parametrize("seed", range(5))
def test_a_window_over_every_request_is_exact(seed):
    inst = _inst(100 + seed, n=4, M=8, arrival_max=3)
    opt, _, _ = brute_force_opt(inst)
    mc = simulate(inst, make_policy("fcfs"), seed=0).schedule.start_array()
    hi = int(inst.arrival.max() + inst.output.sum())
    new, status = window_reoptimise(inst, mc, list(range(inst.n)), 0, hi, deterministic_time=10.0)
    if new is None:  # nothing strictly better: the policy's schedule is optimal
        assert status == "INFEASIBLE" and check_schedule(inst, Schedule(tuple(int(x) for x in mc))).tel == opt
    else:
        rep = check_schedule(inst, Schedule(tuple(int(x) for x in new)))
        assert rep.valid and rep.tel == opt


def test_the_search_beats_or_matches_every_seed_and_is_checked_and_deterministic():
    inst = _inst(7, n=25, M=20, arrival_max=10)
    a = primal_search(inst, evaluations=1500, windows=4, window=8, window_time=0.2, seed=3)
    b = primal_search(inst, evaluations=1500, windows=4, window=8, window_time=0.2, seed=3)
    assert a.stopped_by == "budget" and a.tel == b.tel and list(a.starts) == list(b.starts)
    rep = check_schedule(inst, Schedule(tuple(int(x) for x in a.starts)))
    assert rep.valid and rep.tel == a.tel
    for name in SEED_POLICIES:
        assert a.tel <= simulate(inst, make_policy(name), seed=0).tel
    assert a.tel <= a.seed_tel and [h[1] for h in a.history] == sorted((h[1] for h in a.history), reverse=True)


def test_the_search_finds_the_optimum_of_small_instances():
    found = 0
    for seed in range(8):
        inst = _inst(200 + seed, n=6, M=9, arrival_max=3)
        opt, _, _ = brute_force_opt(inst)
        r = primal_search(inst, evaluations=800, windows=6, window=6, window_time=0.5)
        assert r.tel >= opt
        found += r.tel == opt
    assert found >= 7, found


def test_the_wall_clock_limit_is_kept_and_patience_stops_early():
    inst = _inst(5, n=40, M=20, arrival_max=5)
    r = primal_search(inst, evaluations=None, windows=None, time_limit=1.0)
    assert r.stopped_by == "time limit" and r.seconds < 2.0
    tiny = Instance(((0, 1, 2), (0, 1, 2)), 6)
    r = primal_search(tiny, evaluations=None, windows=None, time_limit=30.0, patience=2)
    assert r.stopped_by == "patience" and r.seconds < 10 and r.tel == 4


def test_one_request_and_given_incumbents():
    one = Instance(((3, 2, 4),), 8)
    r = primal_search(one, evaluations=10, windows=1)
    assert r.tel == 4 and list(r.starts) == [3]
    inst = _inst(9, n=6, M=10)
    poor = int(inst.arrival.max()) + np.concatenate([[0], np.cumsum(inst.output)[:-1]])  # one at a time
    r = primal_search(inst, evaluations=50, windows=0, incumbent=poor)
    assert r.tel < int(np.sum(poor + inst.output - inst.arrival))
    clash = np.zeros(inst.n, dtype=np.int64) + 10**6  # all at once: over the memory limit
    with pytest.raises(ValueError, match="not a feasible schedule"):
        primal_search(inst, evaluations=50, windows=0, incumbent=clash)
    with pytest.raises(ValueError, match="not a feasible schedule"):
        primal_search(inst, evaluations=50, windows=0, incumbent=[0])  # one start for six requests
    with pytest.raises(ValueError, match="one integer start per request"):
        primal_search(inst, evaluations=50, windows=0, incumbent=["soon"] * inst.n)


@pytest.mark.parametrize("kw, words", [
    (dict(evaluations=None, windows=None), "time_limit"),
    (dict(evaluations=None, windows=3), "both None"),
    (dict(evaluations=-1, windows=3), ">= 0"),
    (dict(evaluations=10, windows=3, window=0), "window must be"),
    (dict(evaluations=10, windows=3, patience=0), "patience"),
])
def test_bad_arguments_are_named(kw, words):
    with pytest.raises(ValueError, match=words):
        primal_search(Instance(((0, 1, 1),), 4), **kw)
