"""How kvlib's discrete engine scales: MC-SF, FCFS, Sorted-F and A_min at M = 16,492 on 10^3..10^5 requests.

Workload (seeded): LMSYS-like prompt/output lengths (:func:`kvlib.serving.workloads.lmsys_like`, the
synthetic fit to the papers' published LMSYS statistics) with Poisson arrivals of ``--rate`` requests per
round (default 1.5, below the volume capacity of about 2 requests per round at this M), M = 16,492 (the
KV limit 001 and 004 use).  A_min (003 Alg. 2) gets intervals ``[ceil(o/2), min(2o, M - s)]``.

Each (policy, n) runs in a fresh child process (one thread) which reports the CPU time and the wall time
of ``simulate`` (on a shared machine the wall time includes waiting for a core, so the CPU time is the
one-core figure; ``decide s`` is the wall time spent inside the policy's ``decide``; the independent
checker runs afterwards and is timed separately), and the child's peak resident memory (``ru_maxrss``) together with its resident
memory just before ``simulate`` (Python, numpy and the instance).  A run that exceeds ``--timeout``
seconds is reported as not finished; ``--skip`` names runs to leave out entirely (by default Sorted-F at
10^5: with its default selector ``auto`` it uses 002's swap search (Algorithm 4) once the exact DP's table
is too large, and measured here it took 0.2 s at 10^3, 4 s at 10^4 and did not finish in 400 s at 10^5).

    python benchmarks/scale.py                    # the table in README / the report
    python benchmarks/scale.py --sizes 1000 10000 --policies mc-sf fcfs
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MEMORY = 16492


def child(name: str, n: int, rate: float, seed: int) -> dict:
    import resource

    import numpy as np

    from kvlib import Instance, check_schedule, make_policy, simulate
    from kvlib.serving.workloads import lmsys_like

    rng = np.random.default_rng([seed, n])
    w = lmsys_like(rng, n)
    a = np.floor(np.cumsum(rng.exponential(1.0 / rate, size=n))).astype(np.int64)
    s = w.prompt
    o = np.minimum(w.output, MEMORY - s)
    inst = Instance.from_arrays(a, s, o, MEMORY)
    kw = {}
    if name.startswith("a-"):
        kw = dict(lower=np.maximum(1, (o + 1) // 2), upper=np.minimum(2 * o, MEMORY - s), reveal_output=False)
    base_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    pol = make_policy(name)
    t0, c0 = time.perf_counter(), time.process_time()
    res = simulate(inst, pol, **kw)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    peak_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t1 = time.perf_counter()
    rep = check_schedule(inst, res.schedule, allow_cancellation=pol.preemptive)
    check_s = time.perf_counter() - t1
    assert rep.valid and rep.tel == res.tel, rep.violations[:3]
    return {"policy": name, "n": n, "seconds": wall, "cpu_seconds": cpu, "decide_seconds": res.decision_seconds,
            "rounds": res.rounds_decided, "makespan": res.makespan, "avg_latency": res.avg_latency,
            "check_seconds": check_s, "rss_before_mb": base_rss / 1024, "peak_rss_mb": peak_rss / 1024}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 100_000])
    ap.add_argument("--policies", nargs="+", default=["mc-sf", "fcfs", "sorted-f", "a-min"])
    ap.add_argument("--rate", type=float, default=1.5, help="Poisson arrivals per round (default 1.5)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per run before it is abandoned")
    ap.add_argument("--skip", nargs="*", default=["sorted-f:100000"],
                    help="runs to leave out, as policy:n (default: sorted-f at 10^4 and 10^5, which already times out at 10^3)")
    ap.add_argument("--json", metavar="FILE", default=None, help="also write the rows as JSON lines")
    ap.add_argument("--child", nargs=2, metavar=("POLICY", "N"), help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        print(json.dumps(child(a.child[0], int(a.child[1]), a.rate, a.seed)))
        return 0
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    rows = []
    print(f"M = {MEMORY}, LMSYS-like lengths, Poisson arrivals {a.rate}/round, seed {a.seed}, "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
    print(f"{'policy':<9} {'n':>7} {'CPU s':>7} {'wall s':>7} {'decide s':>9} {'rounds':>7} {'check s':>8} "
          f"{'RSS before MB':>13} {'peak RSS MB':>11}", flush=True)
    for n in a.sizes:
        for name in a.policies:
            if f"{name}:{n}" in a.skip:
                print(f"{name:<9} {n:>7} skipped (--skip)", flush=True)
                rows.append({"policy": name, "n": n, "skipped": "--skip"})
                continue
            cmd = [sys.executable, __file__, "--child", name, str(n), "--rate", str(a.rate), "--seed", str(a.seed)]
            try:
                r = subprocess.run(cmd, capture_output=True, text=True, timeout=a.timeout, env=env)
            except subprocess.TimeoutExpired:
                print(f"{name:<9} {n:>7} did not finish within {a.timeout:g} s", flush=True)
                rows.append({"policy": name, "n": n, "skipped": f"timeout {a.timeout:g} s"})
                continue
            if r.returncode != 0:
                msg = (r.stderr.strip().splitlines() or ["?"])[-1]
                print(f"{name:<9} {n:>7} failed: {msg}", flush=True)
                rows.append({"policy": name, "n": n, "skipped": f"failed: {msg}"})
                continue
            row = json.loads(r.stdout.strip().splitlines()[-1])
            rows.append(row)
            print(f"{name:<9} {n:>7} {row['cpu_seconds']:>7.2f} {row['seconds']:>7.2f} {row['decide_seconds']:>9.2f} "
                  f"{row['rounds']:>7} "
                  f"{row['check_seconds']:>8.2f} {row['rss_before_mb']:>13.0f} {row['peak_rss_mb']:>11.0f}",
                  flush=True)
    if a.json:
        with open(a.json, "w") as fh:
            for row in rows:
                fh.write(json.dumps(row) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
