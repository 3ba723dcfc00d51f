#!/usr/bin/env python
"""CPU time and peak memory of kvlib's engines against issue #52's goals, next to the code at 40a481c.

Cases (each in a fresh child process, one at a time):

* ``mcsf-1e5``, ``mcsf-1e6``: :func:`kvlib.core.simulate.simulate` with MC-SF at M = 16,492 on 10^5 / 10^6
  requests of LMSYS-like lengths (:func:`kvlib.serving.workloads.lmsys_like`, outputs capped at M - s) with
  Poisson arrivals of 1.5 requests per round, seeded (the workload of ``benchmarks/scale.py``).
  Goal at 10^6: under 10 s and under 300 MB.
* ``sortedf-1e4``, ``sortedf-1e5``: the same workload with Sorted-F (default selector ``auto``: 002's swap
  search, Algorithm 4, at these sizes).  Goal at 10^5: under 60 s.
* ``realtime-splitwise``: :func:`kvlib.serving.realtime.simulate_realtime` with MC-SF at M = 16,492 on the
  Splitwise conversation trace (19,366 requests, ``splitwise_conv.csv`` of the shared data folder) with the
  default batch-time model (measured A100).  Goal: at least 5x faster than 40a481c.

A child reports the CPU seconds of the call (``time.process_time``: the machine is shared, so wall time
would include waiting for a core), the peak resident memory of the child (``ru_maxrss``) and its resident
memory just before the call (Python, NumPy, the instance), and a fingerprint: the SHA-256 of the start
times and cancelled runs, with TEL (``simulate``) or the rounds and average latency (``simulate_realtime``).
Equal fingerprints mean identical schedules.

``--baseline DIR`` runs every case a second time with ``DIR`` first on ``PYTHONPATH``: a copy of the
package at the commit to compare with, e.g. ``mkdir /tmp/base && git archive 40a481c kvlib | tar -x -C
/tmp/base``.  The script prints both rows, the speed-up and whether the fingerprints agree.

    python benchmarks/simulator.py                                  # mcsf-1e5, realtime-splitwise
    python benchmarks/simulator.py --cases mcsf-1e6 sortedf-1e5 --baseline /tmp/base --timeout 900

Figures measured on 2026-12-07 (2 cores shared with other jobs, so CPU times vary by up to ~40 % between
runs; baseline = the package at 40a481c run by ``--baseline``, same instances, identical fingerprints in
every case; peak RSS of the child process, the resident memory before the call in parentheses):

======================  ==============================  ==============================  =================
case                    40a481c                         after issue #52 item 3          goal
======================  ==============================  ==============================  =================
mcsf-1e5                3.95 - 5.42 s, 106 MB (77)      2.08 s, 90 MB (77)
mcsf-1e6                40.4 s, 527 MB (238)            16.9 s, 381 MB (245)            10 s, 300 MB
  tracemalloc peak      289 MB                          125 MB
sortedf-1e4             5.20 s                          0.59 s
sortedf-1e5             not finished in 400 s [1]_      17.5 s, 94 MB (77)              60 s
realtime-splitwise      14.98 - 15.94 s, 165 MB         2.47 s, 166 MB (6.1x)           5x
======================  ==============================  ==============================  =================

.. [1] ``benchmarks/scale.py``'s note; with today's engine and the old swap loop it took 98.6 s.

MC-SF at 10^6 misses both goals: about 17 us of CPU per request is left, spread over the engine's steps,
the policy's queue and the kept eq. (5) profile (an ``O(C)`` list update per start, ``C`` about 130
check-points here).  The child peaks at 381 MB, of which 245 MB were resident before the call (Python,
NumPy, the instance and what loading it left); the call's own allocations peak at 125 MB.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MEMORY = 16492
RATE = 1.5
CASES = {
    "mcsf-1e5": ("mc-sf", 100_000),
    "mcsf-1e6": ("mc-sf", 1_000_000),
    "sortedf-1e4": ("sorted-f", 10_000),
    "sortedf-1e5": ("sorted-f", 100_000),
    "realtime-splitwise": ("mc-sf", None),
}
GOALS = {"mcsf-1e6": "< 10 s, < 300 MB", "sortedf-1e5": "< 60 s", "realtime-splitwise": ">= 5x faster"}


def _rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _digest(starts, cancelled) -> str:
    h = hashlib.sha256()
    h.update(json.dumps([int(x) for x in starts]).encode())
    h.update(json.dumps([[int(v) for v in run] for run in cancelled]).encode())
    return h.hexdigest()[:16]


def _instance(n: int, seed: int = 0):
    import numpy as np

    from kvlib import Instance
    from kvlib.serving.workloads import lmsys_like

    rng = np.random.default_rng([seed, n])
    w = lmsys_like(rng, n)
    a = np.floor(np.cumsum(rng.exponential(1.0 / RATE, size=n))).astype(np.int64)
    return Instance.from_arrays(a, w.prompt, np.minimum(w.output, MEMORY - w.prompt), MEMORY)


def _instance_file(n: int, folder: Path) -> Path:
    """The seeded instance of size ``n`` stored as ``.npz`` (made once, in a child process, so that drawing
    it, which leaves a few hundred MB resident at 10^6, does not count in the measured child's memory)."""
    path = folder / f"simulator_lmsys_{n}.npz"
    if not path.exists():
        code = ("import sys, numpy as np; sys.path.insert(0, sys.argv[1]); from simulator import _instance; "
                "i = _instance(int(sys.argv[2])); np.savez(sys.argv[3], a=i.arrival, s=i.prompt, o=i.output)")
        subprocess.run([sys.executable, "-c", code, str(Path(__file__).resolve().parent), str(n), str(path)],
                       check=True)
    return path


def child(case: str, shared: str, instance_file: str | None, traced: bool = False) -> dict:
    import resource
    import time
    import tracemalloc

    from kvlib import make_policy

    name, n = CASES[case]
    if n is None:
        from kvlib.serving.realtime import simulate_realtime
        from kvlib.serving.workloads import load_splitwise

        w = load_splitwise(shared)
        rss0 = _rss_mb()
        if traced:
            tracemalloc.start()
        c0 = time.process_time()
        r = simulate_realtime(w, make_policy(name), memory=MEMORY)
        cpu = time.process_time() - c0
        fp = f"{_digest(r.schedule.starts, r.schedule.cancelled)} rounds {r.rounds} latency {r.avg_latency:.6f}"
        n = w.n
    else:
        import numpy as np

        from kvlib import Instance, simulate

        with np.load(instance_file) as z:
            inst = Instance.from_arrays(z["a"], z["s"], z["o"], MEMORY)
        rss0 = _rss_mb()
        if traced:
            tracemalloc.start()
        c0 = time.process_time()
        r = simulate(inst, make_policy(name))
        cpu = time.process_time() - c0
        fp = f"{_digest(r.schedule.starts, r.schedule.cancelled)} tel {r.tel}"
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    traced_mb = tracemalloc.get_traced_memory()[1] / 2**20 if traced else None
    return {"case": case, "n": n, "cpu_s": cpu, "rss_before_mb": rss0, "peak_rss_mb": peak, "fingerprint": fp,
            "traced_peak_mb": traced_mb}


def run_case(case: str, path: str, shared: str, timeout: float, instance_file: Path | None,
             traced: bool = False) -> dict | None:
    env = dict(os.environ, PYTHONPATH=path + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", case, "--shared", shared]
    if traced:
        cmd.append("--tracemalloc")
    if instance_file is not None:
        cmd += ["--instance", str(instance_file)]
    try:
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout, check=True).stdout
    except subprocess.TimeoutExpired:
        return None
    except subprocess.CalledProcessError as e:
        raise SystemExit(f"case {case} failed with {path} first on PYTHONPATH:\n{e.stderr[-2000:]}") from None
    return json.loads(out.strip().splitlines()[-1])


def _row(label: str, r: dict | None, timeout: float) -> str:
    if r is None:
        return f"  {label:<10} not finished in {timeout:.0f} s"
    if r.get("traced_peak_mb") is not None:
        return (f"  {label:<10} peak of Python allocations during the call {r['traced_peak_mb']:7.1f} MB "
                f"(tracemalloc; its CPU time is not the engine's)  {r['fingerprint']}")
    return (f"  {label:<10} {r['cpu_s']:9.2f} CPU s  peak RSS {r['peak_rss_mb']:7.0f} MB "
            f"(before the call {r['rss_before_mb']:5.0f} MB)  {r['fingerprint']}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", nargs="+", choices=list(CASES), default=["mcsf-1e5", "realtime-splitwise"])
    ap.add_argument("--baseline", metavar="DIR", default=None,
                    help="a copy of the package at the commit to compare with (its parent of kvlib/)")
    ap.add_argument("--skip-baseline", nargs="*", default=[], metavar="CASE",
                    help="cases not to run with --baseline (e.g. sortedf-1e5, which 40a481c did not finish in 400 s)")
    ap.add_argument("--shared", default=str(ROOT.parent / "shared" / "data"),
                    help="the shared data folder (for splitwise_conv.csv)")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per run before it is abandoned")
    ap.add_argument("--work", default=tempfile.gettempdir(), help="folder for the stored instances")
    ap.add_argument("--tracemalloc", action="store_true",
                    help="report the peak of the Python allocations made during the call (tracemalloc, slower) "
                         "instead of timing it: the resident memory also holds what earlier steps freed")
    ap.add_argument("--child", metavar="CASE", help=argparse.SUPPRESS)
    ap.add_argument("--instance", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        print(json.dumps(child(a.child, a.shared, a.instance, a.tracemalloc)))
        return 0
    for case in a.cases:
        name, n = CASES[case]
        print(f"{case}: {name}, " + (f"n = {n:,}" if n else "Splitwise conversation trace")
              + f", M = {MEMORY}" + (f"; goal {GOALS[case]}" if case in GOALS else ""), flush=True)
        inst = _instance_file(n, Path(a.work)) if n else None
        new = run_case(case, str(ROOT), a.shared, a.timeout, inst, a.tracemalloc)
        print(_row("today", new, a.timeout), flush=True)
        if a.baseline and case not in a.skip_baseline:
            old = run_case(case, str(Path(a.baseline).resolve()), a.shared, a.timeout, inst, a.tracemalloc)
            print(_row("baseline", old, a.timeout), flush=True)
            if old is not None and new is not None and not a.tracemalloc:
                same = "identical schedules" if old["fingerprint"] == new["fingerprint"] else "SCHEDULES DIFFER"
                print(f"  speed-up {old['cpu_s'] / new['cpu_s']:.1f}x, {same}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
