#!/usr/bin/env python
"""CPU time and peak memory of kvlib's engines against issue #52's goals, next to the code at 40a481c.

Cases (each in a fresh child process, one at a time):

* ``mcsf-1e5``, ``mcsf-1e6``: :func:`kvlib.core.simulate.simulate` with MC-SF at M = 16,492 on 10^5 / 10^6
  requests of LMSYS-like lengths (:func:`kvlib.serving.workloads.lmsys_like`, outputs capped at M - s) with
  Poisson arrivals of 1.5 requests per round, seeded (the workload of ``benchmarks/scale.py``).
  Goal at 10^6: under 10 s and under 300 MB.
* ``mcsf-fast-1e5``, ``mcsf-fast-1e6``: the same instances with
  :func:`kvlib.policies.fast_mcsf.simulate_mcsf_fast`, MC-SF's specialised simulation.  The script also runs
  (or reuses from the same invocation) ``mcsf-1e5`` / ``mcsf-1e6`` and prints whether the fingerprints agree.
  These two cases count the peak memory from just before the call (see below).
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

The fast cases (and every case with ``--reset-peak``) collect garbage after building the instance and restart
the kernel's peak count there (``/proc/self/clear_refs``), so their peak is the call's: building a 10^6
:class:`~kvlib.Instance` alone peaks at about 380 MB (``Instance.from_arrays`` holds the columns as Python
lists and builds the 10^6 ``Request`` objects twice), which is all of the 381 MB measured for ``mcsf-1e6``.

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

MC-SF at 10^6 misses both goals on the generic engine: about 17 us of CPU per request is left, spread over
the engine's steps, the policy's queue and the kept eq. (5) profile (an ``O(C)`` list update per start, ``C``
about 130 check-points here).  The child peaks at 381 MB, of which 245 MB were resident before the call (Python,
NumPy, the instance and what loading it left); the call's own allocations peak at 125 MB.

The fast path (:mod:`kvlib.policies.fast_mcsf`: eq. (5) as one slice maximum of the usage over absolute time,
one slice addition per start, the queue a heap of precomputed ranks), measured on 2026-12-07 on the same
shared machine (2 cores, one busy with a background regeneration), 10^5 run once and 10^6 twice, the generic
case in the same invocation; peak RSS counted from just before the call (``*``) or over the child's life:

======================  ==============================  ==============================  =================
case                    generic engine                  fast path                       goal
======================  ==============================  ==============================  =================
1e5 requests            1.26 s, 90 MB (77)              0.32 s, 84 MB* (78)
1e6 requests            12.7 - 13.3 s, 381 MB (237)     3.23 - 3.25 s, 277 - 280 MB*    10 s, 300 MB
                                                        (237 - 238)
  from before the call  13.7 s, 354 MB* (237) [2]_
======================  ==============================  ==============================  =================

.. [2] a third run of the generic case, with ``--reset-peak``.

Fingerprints identical in both cases (``21b9c4a97feb1705 tel 31148566``, ``6a4ca079907f4531 tel
2072703227``); the decision rounds are equal too (666,164 at 10^6; ``tests/test_fast_mcsf.py`` compares
them).  Of the 237 MB resident before the call, about 56 MB are the interpreter with NumPy and SciPy
(``import kvlib`` pulls SciPy in, not pandas) and about 155 MB the instance (tracemalloc: 23 MB of int64
columns, the rest the 10^6 ``Request`` objects and their tuple); the workload's generation runs in another
process (``_instance_file``).  The fast call adds about 40 MB: its compact columns (int32 where values fit)
and the start times (a list, then the schedule's tuple).
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
    "mcsf-fast-1e5": ("mc-sf-fast", 100_000),
    "mcsf-fast-1e6": ("mc-sf-fast", 1_000_000),
    "sortedf-1e4": ("sorted-f", 10_000),
    "sortedf-1e5": ("sorted-f", 100_000),
    "realtime-splitwise": ("mc-sf", None),
}
GOALS = {"mcsf-1e6": "< 10 s, < 300 MB", "mcsf-fast-1e6": "< 10 s, < 300 MB, the schedules of mcsf-1e6",
         "sortedf-1e5": "< 60 s", "realtime-splitwise": ">= 5x faster"}
#: a fast case's fingerprint is compared with this generic-engine case's (run for it when not run already)
SAME_AS = {"mcsf-fast-1e5": "mcsf-1e5", "mcsf-fast-1e6": "mcsf-1e6"}


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


def _reset_peak() -> float | None:
    """Collect garbage and restart the kernel's count of the peak resident memory (``VmHWM``, which
    ``ru_maxrss`` reads) at the memory resident now; returns the peak before the reset (MB), ``None`` where
    Linux refuses (``/proc/self/clear_refs``)."""
    import gc
    import resource

    gc.collect()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        return None
    return before


def child(case: str, shared: str, instance_file: str | None, traced: bool = False,
          reset_peak: bool = False) -> dict:
    import resource
    import time
    import tracemalloc

    from kvlib import make_policy

    name, n = CASES[case]
    build_peak = None
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
        if reset_peak or name == "mc-sf-fast":
            build_peak = _reset_peak()
        rss0 = _rss_mb()
        if traced:
            tracemalloc.start()
        c0 = time.process_time()
        if name == "mc-sf-fast":
            from kvlib.policies.fast_mcsf import simulate_mcsf_fast

            r = simulate_mcsf_fast(inst)
        else:
            r = simulate(inst, make_policy(name))
        cpu = time.process_time() - c0
        fp = f"{_digest(r.schedule.starts, r.schedule.cancelled)} tel {r.tel}"
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    traced_mb = tracemalloc.get_traced_memory()[1] / 2**20 if traced else None
    return {"case": case, "n": n, "cpu_s": cpu, "rss_before_mb": rss0, "peak_rss_mb": peak, "fingerprint": fp,
            "traced_peak_mb": traced_mb, "build_peak_mb": build_peak}


def run_case(case: str, path: str, shared: str, timeout: float, instance_file: Path | None,
             traced: bool = False, reset_peak: bool = False) -> dict | None:
    env = dict(os.environ, PYTHONPATH=path + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", case, "--shared", shared]
    if traced:
        cmd.append("--tracemalloc")
    if reset_peak:
        cmd.append("--reset-peak")
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
    if r.get("build_peak_mb") is not None:
        return (f"  {label:<10} {r['cpu_s']:9.2f} CPU s  peak RSS from just before the call {r['peak_rss_mb']:7.0f} MB "
                f"(before the call {r['rss_before_mb']:5.0f} MB; building the instance peaked at "
                f"{r['build_peak_mb']:.0f} MB)  {r['fingerprint']}")
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
    ap.add_argument("--reset-peak", action="store_true",
                    help="also for the generic-engine cases: restart the peak-memory count just before the call, "
                         "as the fast cases always do (building a 10^6 instance alone peaks near 380 MB)")
    ap.add_argument("--child", metavar="CASE", help=argparse.SUPPRESS)
    ap.add_argument("--instance", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        print(json.dumps(child(a.child, a.shared, a.instance, a.tracemalloc, a.reset_peak)))
        return 0
    done: dict[str, dict | None] = {}
    for case in a.cases:
        name, n = CASES[case]
        print(f"{case}: {name}, " + (f"n = {n:,}" if n else "Splitwise conversation trace")
              + f", M = {MEMORY}" + (f"; goal {GOALS[case]}" if case in GOALS else ""), flush=True)
        inst = _instance_file(n, Path(a.work)) if n else None
        new = done[case] = run_case(case, str(ROOT), a.shared, a.timeout, inst, a.tracemalloc, a.reset_peak)
        print(_row("today", new, a.timeout), flush=True)
        if case in SAME_AS:
            _compare_fast(case, new, done, a, inst)
        elif a.baseline and case not in a.skip_baseline:
            old = run_case(case, str(Path(a.baseline).resolve()), a.shared, a.timeout, inst, a.tracemalloc)
            print(_row("baseline", old, a.timeout), flush=True)
            if old is not None and new is not None and not a.tracemalloc:
                same = "identical schedules" if old["fingerprint"] == new["fingerprint"] else "SCHEDULES DIFFER"
                print(f"  speed-up {old['cpu_s'] / new['cpu_s']:.1f}x, {same}", flush=True)
    return 0


def _compare_fast(case: str, new: dict | None, done: dict, a: argparse.Namespace, inst: Path | None) -> None:
    """Print whether a fast case's fingerprint equals its generic-engine case's (run now if not run already)."""
    ref_case = SAME_AS[case]
    if ref_case not in done:
        done[ref_case] = run_case(ref_case, str(ROOT), a.shared, a.timeout, inst, a.tracemalloc, a.reset_peak)
        print(_row(ref_case, done[ref_case], a.timeout), flush=True)
    ref = done[ref_case]
    if ref is None or new is None:
        return
    same = "identical schedules" if ref["fingerprint"] == new["fingerprint"] else "SCHEDULES DIFFER"
    line = f"  against {ref_case}: {same}"
    if not a.tracemalloc:
        line += f", {ref['cpu_s'] / new['cpu_s']:.1f}x less CPU"
    print(line, flush=True)


if __name__ == "__main__":
    sys.exit(main())
