"""MC-SF / OPT on small certified instances of 001 Section 5.1, Arrival Model 1 (all at t = 0).

For n in --sizes and seeds 0..--seeds-1, draws ``section51(default_rng([SEED, n, seed]), 1,
n_range=(n, n))``, certifies OPT with ``kvlib.optimum.solve`` (pipeline) within --time-limit,
and reports MC-SF's TEL (``make_policy('mc-sf')`` simulated by ``kvlib.core.simulate``) over the
proved OPT.  001 Section 5.1 reports (n in [40, 60], Gurobi) mean ratio 1.005 and 114 of 200
instances with MC-SF exactly optimal; rows not proved within the limit are reported as intervals.
One JSON line per instance goes to --out as soon as it is done.

    python benchmarks/section51_certified.py --sizes 6,8,10,12 --seeds 5
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from kvlib.core.checker import check_schedule
from kvlib.core.instances import section51
from kvlib.core.simulate import simulate
from kvlib.optimum import solve
from kvlib.policies import make_policy

SEED = 51051


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="6,8,10,12")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default="benchmarks/section51_certified_results.jsonl")
    args = ap.parse_args(argv)
    print(f"{'n':>3} {'seed':>4} {'M':>3} {'MC-SF':>6} {'lower':>6} {'upper':>6} {'proved':>6} {'MC-SF/OPT':>16} {'sec':>6}")
    ratios = []
    for n in [int(x) for x in args.sizes.split(",")]:
        for seed in range(args.seeds):
            inst = section51(np.random.default_rng([SEED, n, seed]), 1, n_range=(n, n))
            mcsf = int(check_schedule(inst, simulate(inst, make_policy("mc-sf"), seed=0).schedule).tel)
            r = solve(inst, time_limit=args.time_limit, threads=args.threads)
            lo, hi = mcsf / r.upper, mcsf / r.lower
            ratio = f"{lo:.4f}" if r.optimal else f"[{lo:.4f}, {hi:.4f}]"
            if r.optimal:
                ratios.append(lo)
            row = dict(n=n, seed=seed, M=inst.memory, mcsf=mcsf, lower=r.lower, upper=r.upper, optimal=r.optimal,
                       mcsf_over_opt=lo if r.optimal else None, ratio_interval=[lo, hi], seconds=r.seconds,
                       proved_by=r.extra.get("proved_by", ""), time_limit=args.time_limit)
            with open(args.out, "a") as fh:
                fh.write(json.dumps(row) + "\n")
            print(f"{n:>3} {seed:>4} {inst.memory:>3} {mcsf:>6} {r.lower:>6} {r.upper:>6} {str(r.optimal):>6} "
                  f"{ratio:>16} {r.seconds:>6.1f}", flush=True)
    if ratios:
        print(f"proved: {len(ratios)}; MC-SF/OPT min {min(ratios):.4f}, mean {np.mean(ratios):.4f}, "
              f"max {max(ratios):.4f}; MC-SF optimal in {sum(abs(x - 1) < 1e-12 for x in ratios)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
