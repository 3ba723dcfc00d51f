"""Certified lower end of the ratio MC-SF / OPT on the 001 Section 5.1 instances, without a solver.

For trial k of arrival model m the instance is section51(default_rng([seed, m, k])) -- the same
instances as the chapter "The hindsight optimum" in full mode.  OPT <= best, the TEL of the best
checked heuristic schedule (kvlib.optimum.exact.heuristic_incumbent: MC-SF, MC-SF2, MC-Benchmark, FCFS, each
with a left-shift local search), so MC-SF / best is a certified LOWER bound on MC-SF / OPT;
MC-SF / volume_lower_bound is a certified upper bound.

    python benchmarks/section51_scan.py --trials 200 --csv out.csv
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import pandas as pd

from kvlib.optimum.bounds import volume_lower_bound
from kvlib.core.checker import check_schedule
from kvlib.optimum.exact import heuristic_incumbent
from kvlib.core.instances import section51
from kvlib.policies import make_policy
from kvlib.core.simulate import simulate


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trials", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--csv", default=None, help="append one line per trial to this file")
    args = ap.parse_args(argv)
    rows, t0 = [], time.perf_counter()
    for k in range(args.trials):
        for model in (1, 2):
            inst = section51(np.random.default_rng([args.seed, model, k]), model)
            mc = simulate(inst, make_policy("mc-sf"), seed=0)
            assert check_schedule(inst, mc.schedule).valid
            _, best, src = heuristic_incumbent(inst)
            lb = volume_lower_bound(inst)
            rows.append(dict(model=model, trial=k, n=inst.n, M=inst.memory, mcsf=mc.tel, best=best, best_source=src,
                             volume_lb=lb, ratio_lo=mc.tel / best, ratio_hi=mc.tel / lb))
            if args.csv:
                pd.DataFrame([rows[-1]]).to_csv(args.csv, mode="a", header=len(rows) == 1, index=False)
    df = pd.DataFrame(rows)
    for m, d in df.groupby("model"):
        print(f"AM{m}: {len(d)} trials; certified MC-SF/OPT >= MC-SF/best: average {d.ratio_lo.mean():.4f}, "
              f"worst {d.ratio_lo.max():.4f}; MC-SF certified non-optimal in {int((d.ratio_lo > 1).sum())} trials; "
              f"upper end (volume bound) average {d.ratio_hi.mean():.3f}")
    print(f"{time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
