#!/usr/bin/env python
"""LP solve time of Sorted-LP / LP-Swap (kvlib.policies.wyz_lp) against the number of requests, on the
mixed workload of 002 Section 7 (80 % synthetic LMSYS-like + 20 % arXiv, all at t = 0,
M = 16,492), and how much the bucket approximation moves the orders and TELs.

    python benchmarks/lp_scaling.py                     # LP time vs n, current default
    python benchmarks/lp_scaling.py --before            # also the former implementation (cvxpy,
                                                        # per-time rows, 8,000 start variables),
                                                        # each size in a subprocess with --timeout
    python benchmarks/lp_scaling.py --compare 60 100 --seeds 0 1   # approximation vs exact LP

Times are wall-clock seconds of ``lp_relaxation`` (model build + HiGHS, threads = 1),
including the Sorted-F run that sets the horizon.  The exact LP (``formulation="per-time",
time_step=1``) is solvable up to about 100 requests here.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import time

import numpy as np
import pandas as pd

from kvlib.policies.wyz_lp import _arrays, _default_horizon, _model, compare_lp_orders, lp_relaxation
from kvlib.core.model import Instance
from kvlib.serving.experiments import build_workload

SHARED = "../shared/data"


def instance(n: int, seed: int, shared: str = SHARED) -> Instance:
    w = build_workload({"workload": "mixed002", "n": n, "seed": seed, "shared_dir": shared})
    return Instance.from_arrays(np.zeros(n, dtype=np.int64), w.prompt, w.output, 16492)


def former_lp(inst: Instance, max_vars: int = 8000):
    """The implementation before the rewrite: dense per-time rows, cvxpy + HiGHS, ~max_vars start variables."""
    import cvxpy as cp

    a, s, o, M = _arrays(inst)
    horizon = _default_horizon(a, s, o, M)
    step = max(1, int(math.ceil(len(s) * horizon / max_vars)))
    cost, A, E, vi, vt = _model(a, s, o, M, horizon, step)
    x = cp.Variable(len(cost))
    prob = cp.Problem(cp.Minimize(cost @ x), [A @ x <= M, E @ x == 1, x >= 0, x <= 1])
    prob.solve(solver=cp.HIGHS)
    return float(prob.value), step


def _former_worker(args, q):
    n, seed, shared = args
    t0 = time.perf_counter()
    val, step = former_lp(instance(n, seed, shared))
    q.put((time.perf_counter() - t0, val, step))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[200, 400, 600, 1000, 1400, 2000])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--shared", default=SHARED)
    ap.add_argument("--before", action="store_true", help="also time the former implementation")
    ap.add_argument("--timeout", type=float, default=300.0, help="per-size cap for --before (s)")
    ap.add_argument("--compare", type=int, nargs="*", default=None, help="sizes for the approximation check")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--steps", type=int, nargs="+", default=[0, 25, 50, 100, 200], help="0 = automatic")
    a = ap.parse_args()
    pd.set_option("display.width", 250)
    pd.set_option("display.max_columns", 30)

    if a.compare is None:
        rows = []
        for n in a.sizes:
            inst = instance(n, a.seed, a.shared)
            t0 = time.perf_counter()
            value, x, vi, vt, H, step = lp_relaxation(inst)
            row = {"n": n, "horizon": H, "step": step, "columns": len(vi), "seconds (new)": time.perf_counter() - t0,
                   "LP value (new)": value}
            if a.before:
                q: mp.Queue = mp.Queue()
                p = mp.Process(target=_former_worker, args=((n, a.seed, a.shared), q))
                p.start()
                p.join(a.timeout)
                if p.is_alive():
                    p.terminate()
                    p.join()
                    row["seconds (former)"] = f"> {a.timeout:.0f} (stopped)"
                else:
                    t, val, st = q.get()
                    row.update({"seconds (former)": round(t, 2), "former step": st, "LP value (former)": val})
            rows.append(row)
            print(pd.DataFrame(rows).round(2).to_string(), flush=True)
        return

    out = []
    for n in a.compare:
        for seed in a.seeds:
            rows = compare_lp_orders(instance(n, seed, a.shared), steps=[s or None for s in a.steps])
            for r in rows:
                r["seed"] = seed
            out += rows
            print(pd.DataFrame(out).round(4).to_string(), flush=True)


if __name__ == "__main__":
    main()
