"""Time-indexed LP variants at n = 20 and 40: simplex, simplex with the order-3 capacity rows, and IPM.

The LP of :func:`kvlib.optimum.timelp.time_indexed_lp` (family rows added lazily) on the
``benchmarks/exact_scaling.py`` instances (seed 0, AM1 and AM2 with n fixed), windows from the
heuristic incumbent, a fixed time budget per LP, one thread.  Each run appends one JSON line:
the certified LP bound, ``gap = (incumbent - bound) / incumbent``, rounds, family rows, converged.

    python benchmarks/lp_variants.py 20,40 30 > benchmarks/lp_variants_results.jsonl
"""
import sys, time, json, numpy as np
sys.path.insert(0, "benchmarks")
from exact_scaling import am2_fixed_n, SEED
from kvlib.core.instances import section51
from kvlib.optimum.bounds import latest_starts
from kvlib.optimum.exact import heuristic_incumbent
from kvlib.optimum.timelp import time_indexed_lp, lp_size
sizes = [int(x) for x in sys.argv[1].split(",")]
tl = float(sys.argv[2])
variants = {"simplex": dict(), "simplex+cap3": dict(capacity_orders=(3,)), "ipm": dict(solver="ipm")
            }
for n in sizes:
    for model in ("AM1", "AM2"):
        rng = np.random.default_rng([SEED, 1 if model == "AM1" else 2, n, 0])
        inst = section51(rng, 1, n_range=(n, n)) if model == "AM1" else am2_fixed_n(rng, n)
        _, ub, _ = heuristic_incumbent(inst)
        lat = latest_starts(inst, ub)
        for name, kw in variants.items():
            t = time.perf_counter()
            r = time_indexed_lp(inst, lat, time_limit=tl, threads=1, **kw)
            print(json.dumps(dict(model=model, n=n, ub=int(ub), size=lp_size(inst, lat), variant=name, bound=int(r.bound),
                                  gap=(ub - r.bound) / ub, rounds=r.rounds, rows=r.family_rows, converged=r.converged,
                                  seconds=round(time.perf_counter() - t, 1))), flush=True)
