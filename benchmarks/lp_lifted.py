#!/usr/bin/env python
"""How much of the LP's gap the level-one lift closes, on instances with a proved optimum.

On the ``benchmarks/exact_scaling.py`` instances whose optimum ``OPT`` a committed results file
proves (``exact_alone_results.jsonl``, ``exact_long_results.jsonl``), with the windows of
:func:`kvlib.optimum.bounds.latest_starts` for ``UB = OPT + 1`` (they hold an optimal schedule)
reduced by :func:`kvlib.optimum.timelp.reduced_cost_fixing` with the same ``UB`` (every schedule of
TEL ``<= OPT`` keeps its columns), one row per instance and relaxation of
:func:`kvlib.optimum.lifted.lifted_lp`: ``none`` (the strengthened LP, every family row),
``completion`` (pairs + conditional memory at the completion rounds), ``run`` (conditional memory
at every round).  Rows are appended as they finish (a re-run skips those in the file): bound,
LP value, status, seconds, columns, pairs, OPT and where it was proved.

    python benchmarks/lp_lifted.py --sizes 10,12 --out benchmarks/lp_lifted_results.jsonl
    python benchmarks/lp_lifted.py --summary benchmarks/lp_lifted_results.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from exact_scaling import COMMIT, _append, _rows, instance  # noqa: E402

from kvlib.optimum.bounds import latest_starts  # noqa: E402
from kvlib.optimum.lifted import CONDITIONALS, lifted_lp  # noqa: E402
from kvlib.optimum.timelp import reduced_cost_fixing, time_indexed_lp  # noqa: E402

OPT_FILES = ("exact_alone_results.jsonl", "exact_long_results.jsonl")


def proved_optima() -> dict:
    """``{(model, n, seed): (OPT, file)}`` from the proved pipeline rows of the committed files."""
    out = {}
    for name in OPT_FILES:
        for r in _rows(os.path.join(HERE, name)):
            if r.get("solver") == "pipeline" and r.get("optimal"):
                key = (r["model"], int(r["n"]), int(r["seed"]))
                if key in out and out[key][0] != int(r["upper"]):  # pragma: no cover - would be a solver bug
                    raise SystemExit(f"{key}: proved optima differ between files ({out[key]} vs {r['upper']})")
                out.setdefault(key, (int(r["upper"]), name))
    return out


def run(sizes, seeds, conditionals, time_limit: float, out: str) -> None:
    done = {(r["model"], r["n"], r["seed"], r["conditional"]) for r in _rows(out)}
    optima = proved_optima()
    for n in sizes:
        for model in ("AM1", "AM2"):
            for seed in seeds:
                todo = [c for c in conditionals if (model, n, seed, c) not in done]
                if not todo or (model, n, seed) not in optima:
                    continue
                opt, src = optima[(model, n, seed)]
                inst = instance(1 if model == "AM1" else 2, n, seed)
                lat = latest_starts(inst, opt + 1)
                lp = time_indexed_lp(inst, lat, time_limit=600, threads=1)
                cols = reduced_cost_fixing(lp, opt + 1)
                for c in todo:
                    r = lifted_lp(inst, cols, conditional=c, time_limit=time_limit, threads=1)
                    row = dict(model=model, n=n, seed=seed, M=int(inst.memory), conditional=c, opt=opt, opt_from=src,
                               bound=r.bound, value=None if r.value != r.value else round(r.value, 6),
                               status=r.status, columns=r.columns, pairs=r.pairs, rows=r.rows,
                               seconds=round(r.seconds, 2), time_limit=time_limit, commit=COMMIT)
                    _append(out, row)
                    print(json.dumps(row), flush=True)


def summary(path: str) -> int:
    rows = _rows(path)
    if not rows:
        print(f"no rows in {path}")
        return 1
    by = {}
    for r in rows:
        by.setdefault((r["n"], r["model"], r["seed"]), {})[r["conditional"]] = r
    print("n   model seed OPT    plain   completion  run      gap closed (completion / run)")
    for (n, model, seed), v in sorted(by.items()):
        base = v.get("none")

        def cell(c):
            r = v.get(c)
            return "-" if r is None else (f"{r['value']:.2f}" if r["status"] == "Optimal" else r["status"][:10])

        def closed(c):
            r = v.get(c)
            if base is None or r is None or r["status"] != "Optimal" or base["opt"] == base["value"]:
                return "-"
            return f"{100 * (r['value'] - base['value']) / (base['opt'] - base['value']):.0f}%"

        opt = next(iter(v.values()))["opt"]
        print(f"{n:<3} {model:<5} {seed:<4} {opt:<6} {cell('none'):<7} {cell('completion'):<11} {cell('run'):<8} "
              f"{closed('completion')} / {closed('run')}")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="10,12")
    ap.add_argument("--seeds", default="0,1,2,3,4")
    ap.add_argument("--conditionals", default=",".join(CONDITIONALS))
    ap.add_argument("--time-limit", type=float, default=1800.0, help="seconds per lifted LP (default 1800)")
    ap.add_argument("--out", default="benchmarks/lp_lifted_results.jsonl")
    ap.add_argument("--summary", metavar="FILE", help="print the summary of a results file and exit")
    args = ap.parse_args(argv)
    if args.summary:
        return summary(args.summary)
    conds = tuple(args.conditionals.split(","))
    bad = [c for c in conds if c not in CONDITIONALS]
    if bad:
        ap.error(f"--conditionals: unknown {bad}; choose from {list(CONDITIONALS)}")
    if args.time_limit <= 0:
        ap.error(f"--time-limit must be positive, got {args.time_limit}")
    run([int(x) for x in args.sizes.split(",")], [int(x) for x in args.seeds.split(",")], conds,
        args.time_limit, args.out)
    return summary(args.out)


if __name__ == "__main__":
    sys.exit(main())
