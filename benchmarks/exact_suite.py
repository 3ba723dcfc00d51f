"""Benchmark of the hindsight-optimal IP (kvlib.optimum.exact) on a fixed, seeded suite.

Instances: Arrival Model 1 of 001 Section 5.1 (all at t = 0; M ~ U[30, 50],
s ~ U[1, 5], o ~ U[1, M - s]) with n fixed to 10, 15, 20, 30, 40, 60, plus two
Arrival Model 2 instances (Poisson arrivals).  Instance k is drawn from
numpy.random.default_rng([SEED, k]), so the suite never changes.

For each configuration and instance it prints n, M, the time to certify
optimality or, at the time limit, the final interval and gap.

    python benchmarks/exact_suite.py --time-limit 60 --config all
    python benchmarks/exact_suite.py --config windows+warm+sym --only 0,1,2
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from kvlib.optimum.exact import heuristic_incumbent, solve
from kvlib.core.instances import section51

SEED = 20250
SIZES = (10, 15, 20, 30, 40, 60)

#: name -> keyword arguments of kvlib.optimum.exact.solve
CONFIGS = {
    "plain": dict(formulation="plain", windows=False, warm_start=False, symmetry=False, builder="cvxpy", cpsat=0,
                   presolve="on", separation=False),
    "windows": dict(formulation="plain", windows=True, warm_start=False, symmetry=False, builder="cvxpy", cpsat=0,
                     presolve="on", separation=False),
    "windows+warm": dict(formulation="plain", windows=True, warm_start=True, symmetry=False, builder="cvxpy", cpsat=0,
                          presolve="on", separation=False),
    # the default of the previous session ("before")
    "windows+warm+sym": dict(formulation="plain", windows=True, warm_start=True, symmetry=True, builder="cvxpy",
                             cpsat=0, presolve="on", separation=False),
    "aggregated+windows+warm+sym": dict(formulation="aggregated", windows=True, warm_start=True, symmetry=True,
                                        builder="cvxpy", cpsat=0, presolve="on", separation=False),
    # idea (a): the same model built as a scipy.sparse matrix, handed to HiGHS directly
    "sparse": dict(formulation="plain", windows=True, warm_start=True, symmetry=True, builder="sparse", cpsat=0,
                   presolve="on", separation=False),
    # idea (b): CP-SAT (exact interval encoding) for 30% of the time, then HiGHS
    "sparse+cpsat": dict(formulation="plain", windows=True, warm_start=True, symmetry=True, builder="sparse",
                         cpsat="30%", presolve="on", separation=False),
    # idea (c): HiGHS presolve off (it reduced nothing and overran the limit); CP-SAT share as in
    # kvlib.optimum.exact.solve's default (30% / none / all, by whether HiGHS has time for its root LP)
    "sparse+cpsat+nopresolve": dict(formulation="plain", windows=True, warm_start=True, symmetry=True,
                                    builder="sparse", cpsat=None, presolve="off", separation=False),
    # idea (d): the LP over completion times with volume and peak-conflict (clique) inequalities,
    # kvlib.optimum.bounds.separation_lower_bound, before everything else
    "sparse+cpsat+nopresolve+sep": dict(formulation="plain", windows=True, warm_start=True, symmetry=True,
                                        builder="sparse", cpsat=None, presolve="off", separation=True,
                                        conflict_mip=0),
    # idea (e): then, for n <= 12, the peak-conflict MIP (kvlib.optimum.bounds.peak_conflict_bound; the default)
    "sparse+cpsat+nopresolve+sep+mip": dict(formulation="plain", windows=True, warm_start=True, symmetry=True,
                                            builder="sparse", cpsat=None, presolve="off", separation=True,
                                            conflict_mip=None),
}


def suite():
    """The fixed list of (label, instance)."""
    out = []
    for k, n in enumerate(SIZES):
        rng = np.random.default_rng([SEED, k])
        out.append((f"AM1 n={n}", section51(rng, 1, n_range=(n, n))))
    for k in (100, 101):
        rng = np.random.default_rng([SEED, k])
        inst = section51(rng, 2)
        out.append((f"AM2 #{k - 99} n={inst.n}", inst))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--config", default="sparse+cpsat+nopresolve+sep+mip", help="a name from CONFIGS or 'all'")
    ap.add_argument("--only", default=None, help="comma-separated instance indices")
    ap.add_argument("--json", default=None, help="append one JSON line per run to this file")
    args = ap.parse_args(argv)
    configs = list(CONFIGS) if args.config == "all" else args.config.split(",")
    items = suite()
    idx = range(len(items)) if args.only is None else [int(x) for x in args.only.split(",")]
    print(f"{'config':<28} {'instance':<16} {'n':>3} {'M':>3} {'incumb.':>7} {'lower':>7} {'upper':>7} "
          f"{'gap':>7} {'seconds':>8} {'build':>6}  status")
    sys.stdout.flush()
    for cfg in configs:
        for k in idx:
            label, inst = items[k]
            inc = heuristic_incumbent(inst)
            kw = dict(CONFIGS[cfg])
            if kw.get("cpsat") == "30%":
                kw["cpsat"] = 0.3 * args.time_limit
            res = solve(inst, time_limit=args.time_limit, threads=args.threads, incumbent=inc, **kw)
            verdict = f"certified in {res.seconds:.1f}s" if res.optimal else f"gap {100 * res.gap:.2f}% at limit"
            print(f"{cfg:<28} {label:<16} {inst.n:>3} {inst.memory:>3} {res.incumbent:>7} {res.lower:>7} "
                  f"{res.upper:>7} {100 * res.gap:>6.2f}% {res.seconds:>8.1f} {res.extra.get('build_seconds', float('nan')):>6.1f}  {verdict}")
            sys.stdout.flush()
            if args.json:
                with open(args.json, "a") as fh:
                    row = dict(config=cfg, instance=label, n=inst.n, M=inst.memory, time_limit=args.time_limit,
                               **res.as_dict())
                    row.pop("starts")
                    row.update({k: v for k, v in res.extra.items() if k.endswith("seconds")})
                    row["cpsat_status"] = res.extra.get("cpsat_status", "")
                    row["volume_lb"] = res.extra.get("volume_lb")
                    row["separation_lb"] = res.extra.get("separation_lb")
                    fh.write(json.dumps(row) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
