#!/usr/bin/env python
"""The strengthened time-indexed LP solved whole against by column generation, at n = 40-60.

On the ``benchmarks/exact_scaling.py`` instances (AM1 and AM2 with ``n`` fixed, seeds as given),
windows from the heuristic incumbent (:func:`kvlib.optimum.exact.heuristic_incumbent`), one
thread, the same time budget for both: :func:`kvlib.optimum.timelp.time_indexed_lp` (every
column of the windows in the LP) and :func:`kvlib.optimum.colgen.column_generation_lp` (columns
priced in).  Each run appends one JSON line (written as it goes; a re-run skips the rows already
in the file): the certified bound, rounds, family rows, converged, seconds, the LP's size, and
the separation bound of :func:`kvlib.optimum.bounds.separation_lower_bound` for reference.

    python benchmarks/lp_colgen.py --sizes 40,50,60 --seeds 0,1,2,3,4 --budget 30 \
        --out benchmarks/lp_colgen_results.jsonl
    python benchmarks/lp_colgen.py --summary benchmarks/lp_colgen_results.jsonl
    # how far column generation gets with 240 s at n = 60 (no whole-LP runs; the summary pairs none):
    python benchmarks/lp_colgen.py --sizes 60 --budget 240 --methods colgen \
        --out benchmarks/lp_colgen_long_results.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from exact_scaling import COMMIT, _append, _rows, instance  # noqa: E402

from kvlib.optimum.bounds import latest_starts, separation_lower_bound  # noqa: E402
from kvlib.optimum.colgen import column_generation_lp  # noqa: E402
from kvlib.optimum.exact import heuristic_incumbent  # noqa: E402
from kvlib.optimum.timelp import lp_size, time_indexed_lp  # noqa: E402

METHODS = ("full", "colgen")


def run(sizes, seeds, budget: float, out: str, methods=METHODS) -> None:
    done = {(r["model"], r["n"], r["seed"], r["method"], r["budget"]) for r in _rows(out)}
    for n in sizes:
        for model in ("AM1", "AM2"):
            for seed in seeds:
                todo = [m for m in methods if (model, n, seed, m, budget) not in done]
                if not todo:
                    continue
                inst = instance(1 if model == "AM1" else 2, n, seed)
                st, ub, _ = heuristic_incumbent(inst)
                lat = latest_starts(inst, ub)
                sep = int(separation_lower_bound(inst, time_limit=5.0)["bound"])
                cols, nnz = lp_size(inst, lat)
                for m in todo:
                    t = time.perf_counter()
                    if m == "full":
                        r = time_indexed_lp(inst, lat, time_limit=budget, threads=1)
                    else:
                        r = column_generation_lp(inst, lat, st, time_limit=budget, threads=1)
                    row = dict(model=model, n=n, seed=seed, M=int(inst.memory), method=m, budget=budget,
                               incumbent=int(ub), separation_lb=sep, columns=cols, nonzeros=nnz,
                               bound=int(r.bound), rounds=int(r.rounds), family_rows=int(r.family_rows),
                               converged=bool(r.converged), status=r.status,
                               seconds=round(time.perf_counter() - t, 2), commit=COMMIT)
                    _append(out, row)
                    print(json.dumps(row), flush=True)


def summary(path: str) -> int:
    rows = _rows(path)
    if not rows:
        print(f"no rows in {path}")
        return 1
    by = {}
    for r in rows:
        by.setdefault((r["n"], r["budget"]), {}).setdefault((r["model"], r["seed"]), {})[r["method"]] = r
    print("n   budget  pairs  full>sep  cg>sep  cg>full  cg=full  mean gain of max(LP, sep) over sep (full / cg)")
    for (n, b), inst in sorted(by.items()):
        pairs = [v for v in inst.values() if all(m in v for m in METHODS)]
        if not pairs:
            continue
        f_sep = sum(v["full"]["bound"] > v["full"]["separation_lb"] for v in pairs)
        c_sep = sum(v["colgen"]["bound"] > v["colgen"]["separation_lb"] for v in pairs)
        c_f = sum(v["colgen"]["bound"] > v["full"]["bound"] for v in pairs)
        eq = sum(v["colgen"]["bound"] == v["full"]["bound"] for v in pairs)

        def gain(m):
            return sum(max(v[m]["bound"], v[m]["separation_lb"]) / v[m]["separation_lb"] - 1 for v in pairs) / len(pairs)

        print(f"{n:<3} {b:<7g} {len(pairs):<6} {f_sep:<9} {c_sep:<7} {c_f:<8} {eq:<8} "
              f"{100 * gain('full'):.1f}% / {100 * gain('colgen'):.1f}%")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="40,50,60")
    ap.add_argument("--seeds", default="0,1,2,3,4")
    ap.add_argument("--budget", type=float, default=30.0, help="seconds per LP (default 30)")
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--out", default="benchmarks/lp_colgen_results.jsonl")
    ap.add_argument("--summary", metavar="FILE", help="print the summary of a results file and exit")
    args = ap.parse_args(argv)
    if args.summary:
        return summary(args.summary)
    methods = tuple(args.methods.split(","))
    bad = [m for m in methods if m not in METHODS]
    if bad:
        ap.error(f"--methods: unknown {bad}; choose from {list(METHODS)}")
    if args.budget <= 0:
        ap.error(f"--budget must be positive, got {args.budget}")
    run([int(x) for x in args.sizes.split(",")], [int(x) for x in args.seeds.split(",")], args.budget, args.out,
        methods)
    return summary(args.out)


if __name__ == "__main__":
    sys.exit(main())
