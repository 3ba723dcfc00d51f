#!/usr/bin/env python
"""Throughput of the continuous-time simulator (kvlib.serving.realtime): MC-SF, M = 16,492,
10,000 synthetic (LMSYS-like) requests, Poisson arrivals.  Prints requests/s and rounds/s.

    python benchmarks/realtime_throughput.py [--n 10000] [--rate 50] [--policy mc-sf] [--seed 0]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from kvlib.policies import make_policy
from kvlib.serving.realtime import PAPER_MEMORY, simulate_realtime
from kvlib.serving.workloads import lmsys_like, poisson_arrivals


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--rate", type=float, default=50.0)
    ap.add_argument("--policy", default="mc-sf")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    w = lmsys_like(rng, a.n, arrival_s=poisson_arrivals(rng, a.n, a.rate))
    print(f"{a.policy}: n = {a.n} synthetic (LMSYS-like) requests, Poisson rate {a.rate}/s, M = {PAPER_MEMORY}")
    for k in range(a.repeat):
        tic = time.perf_counter()
        r = simulate_realtime(w, make_policy(a.policy), memory=PAPER_MEMORY, seed=a.seed)
        dt = time.perf_counter() - tic
        print(f"  run {k}: {dt:.2f} s wall, {a.n / dt:,.0f} requests/s, {r.rounds / dt:,.0f} rounds/s "
              f"({r.rounds} rounds; policy decisions {r.decision_seconds:.2f} s); "
              f"simulated avg latency {r.avg_latency:.2f} s, makespan {r.makespan_s:.1f} s")


if __name__ == "__main__":
    main()
