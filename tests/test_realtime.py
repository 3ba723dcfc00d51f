"""Continuous-time simulator (kvlib.serving.realtime): checker-valid schedules, arrivals, determinism."""

import numpy as np
import pytest

from kvlib.serving.batchtime import default_model
from kvlib.core.checker import check_schedule
from kvlib.policies import POLICIES, make_policy
from kvlib.serving.realtime import simulate_realtime
from kvlib.core.simulate import SimulationStalled, simulate
from kvlib.book.sweeps import parallel_map
from kvlib.serving.workloads import Workload, lmsys_like, poisson_arrivals

M = 3000
OPTS = {"alpha-greedy": {"alpha": 0.3}, "alpha-beta-clearing": {"alpha": 0.3, "beta": 0.5}}


def _workload(seed=0, n=150, rate=40.0):
    rng = np.random.default_rng(seed)
    return lmsys_like(rng, n, arrival_s=poisson_arrivals(rng, n, rate))


CORE = ["mc-sf", "mc-benchmark", "fcfs", "mc-sf2", "alpha-greedy", "alpha-beta-clearing"]


@pytest.mark.parametrize("name", CORE)
def test_every_policy_valid_under_checker(name):
    w = _workload()
    pol = make_policy(name, **OPTS.get(name, {}))
    r = simulate_realtime(w, pol, memory=M, seed=1)
    assert r.completed
    rep = check_schedule(r.instance, r.schedule, allow_cancellation=pol.preemptive)
    assert rep.valid, rep.violations[:3]
    assert rep.peak_memory <= M and r.memory_after.max() <= M
    # every request became visible at the first round boundary at or after its arrival
    tau = dict(zip(r.round_index.tolist(), r.round_start_s.tolist()))
    p = r.schedule.start_array()
    assert np.all(p >= r.instance.arrival)
    for i in range(w.n):
        assert tau[int(p[i])] >= w.arrival_s[i] - 1e-12
    # latency in seconds = round-end time of the last round minus arrival
    c = p + r.instance.output
    ends = np.r_[r.round_start_s[1:], r.round_start_s[-1] + r.batch_ms[-1] / 1000]
    end_of = dict(zip((r.round_index + 1).tolist(), ends.tolist()))
    assert np.allclose(r.completion_s, [end_of[int(x)] for x in c])
    assert np.all(r.latency_s > 0)


def test_visibility_round_is_first_boundary():
    w = _workload(3, 80, 100.0)
    r = simulate_realtime(w, make_policy("mc-sf"), memory=M)
    starts = r.round_start_s
    idx = dict(zip(r.round_index.tolist(), range(len(starts))))
    for i in range(w.n):
        v = int(r.instance.arrival[i])
        if v in idx and idx[v] > 0:
            prev = starts[idx[v] - 1]
            # not visible at the previous boundary (unless the engine was idle in between)
            assert prev < w.arrival_s[i] or starts[idx[v]] == w.arrival_s[i]


def test_all_at_zero_matches_discrete_simulator():
    rng = np.random.default_rng(5)
    w = lmsys_like(rng, 200)
    for name in ("mc-sf", "mc-benchmark", "fcfs"):
        r = simulate_realtime(w, make_policy(name), memory=M)
        d = simulate(r.instance, make_policy(name))
        assert r.schedule.starts == d.schedule.starts, name


def test_determinism_under_seed():
    w = _workload(7)
    a = simulate_realtime(w, make_policy("alpha-beta-clearing", alpha=0.2, beta=0.5), memory=M, seed=4, on_stall="return")
    b = simulate_realtime(w, make_policy("alpha-beta-clearing", alpha=0.2, beta=0.5), memory=M, seed=4, on_stall="return")
    assert np.array_equal(a.latency_s, b.latency_s, equal_nan=True) and a.evictions == b.evictions
    c = simulate_realtime(w, make_policy("mc-sf"), memory=M)
    d = simulate_realtime(w, make_policy("mc-sf"), memory=M)
    assert np.array_equal(c.latency_s, d.latency_s)


def test_batch_durations_follow_the_model():
    w = _workload(2, 60)
    r = simulate_realtime(w, make_policy("fcfs"), memory=M)
    m = default_model()
    assert np.all(r.batch_ms >= m.batch_ms(0, 1, 1) - 1e-9)
    assert np.allclose(np.diff(r.round_start_s)[np.diff(r.round_index) == 1] * 1000,
                       r.batch_ms[:-1][np.diff(r.round_index) == 1])


def test_endless_clearing_is_detected():
    # two requests that cannot both finish: greedy clearing with alpha = 0 loops forever
    w = Workload(np.zeros(2), np.array([40, 40]), np.array([60, 60]), "loop", "test")
    with pytest.raises(SimulationStalled):
        simulate_realtime(w, make_policy("alpha-greedy", alpha=0.0), memory=150, stall_window=500)
    r = simulate_realtime(w, make_policy("alpha-greedy", alpha=0.0), memory=150, stall_window=500, on_stall="return")
    assert not r.completed and r.stall_reason and np.isnan(r.avg_latency)


def _run(seed):
    return simulate_realtime(_workload(seed, 60), make_policy("mc-sf"), memory=M).avg_latency


def test_parallel_map_order_and_backends():
    seq = parallel_map(_run, range(3), backend="sequential", progress=False)
    thr = parallel_map(_run, range(3), backend="threading", n_jobs=2, progress=False)
    assert seq == thr
    with pytest.raises(ValueError, match="backend"):
        parallel_map(_run, range(2), backend="nope", progress=False)


OFFLINE = [("sorted-f", {"selector": "swap"}), ("sorted-f", {"selector": "quantile"}), ("sorted-lp", {})]
INTERVAL = ["a-max", "a-min", "h-sf"]


@pytest.mark.parametrize("name,opts", [p for p in OFFLINE if p[0] in POLICIES])
def test_offline_002_policies_all_at_zero(name, opts):
    w = lmsys_like(np.random.default_rng(11), 40)
    r = simulate_realtime(w, make_policy(name, **opts), memory=1500)
    assert check_schedule(r.instance, r.schedule).valid


@pytest.mark.parametrize("name", [p for p in INTERVAL if p in POLICIES])
def test_interval_policies(name):
    rng = np.random.default_rng(12)
    w = lmsys_like(rng, 60)
    lo, hi = np.maximum(1, (0.5 * w.output).astype(int)), (1.5 * w.output).astype(int) + 1
    pol = make_policy(name)
    hind = bool(getattr(pol, "hindsight", False))
    r = simulate_realtime(w, pol, memory=1500, lower=lo, upper=hi, reveal_output=hind)
    rep = check_schedule(r.instance, r.schedule, allow_cancellation=pol.preemptive)
    assert rep.valid, rep.violations[:3]


def test_realexp_intervals_contain_truth_and_run_spec():
    from kvlib.serving.experiments import intervals, run_spec

    o = np.array([1, 5, 100, 101, 883])
    for pred in ("wide", "buckets", 0.1, 0.95, 0.99):
        lo, hi = intervals(o, pred)
        assert np.all((lo >= 1) & (lo <= o) & (o <= hi)), pred
    assert intervals(o, "buckets")[0].tolist() == [1, 1, 1, 101, 801]
    r = run_spec({"workload": "lmsys", "n": 60, "rate": 20.0, "seed": 0, "policy": "mc-sf", "memory": M})
    assert r["completed"] and r["valid"] and r["label"] == "synthetic (LMSYS-like)"
    r = run_spec({"workload": "lmsys", "n": 60, "rate": None, "seed": 0, "policy": "a-min", "pred": 0.5, "memory": 1500})
    assert r["completed"] and r["valid"]


def test_user_csv_replaces_the_generator(tmp_path):
    from kvlib.serving.experiments import build_workload

    p = tmp_path / "lmsys.csv"
    p.write_text("prompt,output\n" + "".join(f"{3 + i % 7},{5 + i % 11}\n" for i in range(50)))
    w = build_workload({"workload": "lmsys", "n": 30, "rate": 5.0, "seed": 1, "user_csv": str(p)})
    assert w.label == "user CSV: lmsys.csv" and w.n == 30 and np.all(w.prompt <= 9)


def test_dask_backend_missing_is_a_clear_error(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "dask.distributed", None)  # makes `import dask.distributed` fail
    with pytest.raises(ImportError, match="dask"):
        parallel_map(_run, range(2), backend="dask", progress=False)


def test_dask_backend_runs_on_a_local_cluster(tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    seq = parallel_map(_run, range(3), backend="sequential", progress=False)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None,
                                  local_directory=str(tmp_path)) as cl, distributed.Client(cl) as client:
        with distributed.get_task_stream(client) as stream:
            out = parallel_map(_run, range(3), backend="dask", n_jobs=2, progress=False)
        assert out == seq
        assert len(stream.data) >= 1  # the tasks went through this client's scheduler
