#!/usr/bin/env python
"""Can a search prove more than the LP, or find better schedules with more time?  (n = 15, 20)

On the ``benchmarks/exact_scaling.py`` instances, with ``UB`` the best TEL that any committed
pipeline row found (``exact_alone_results.jsonl``, ``exact_long_results.jsonl``,
``exact_scaling_results.jsonl``; ``OPT`` where one of them proves it), one row per instance:

* ``lp``: the strengthened time-indexed LP (:func:`kvlib.optimum.timelp.time_indexed_lp`, windows of
  :func:`kvlib.optimum.bounds.latest_starts` for ``UB``, one thread, up to ``--lp-seconds``).
* **Destructive bounds** (``targets``): for ``T = ceil((1 + f) LP)``, ``f`` in ``--fractions`` (in
  increasing order, stopping at the first ``T`` not proved), the event model of
  :func:`kvlib.optimum.cpsat.event_solve` (two workers, ``--event-seconds``) over the starts of
  :func:`kvlib.optimum.destructive.target_domains` (reduced-cost fixing with ``T``, windows for ``T - 1``),
  with ``TEL <= T - 1``.  ``INFEASIBLE`` proves ``OPT >= T``: if ``OPT <= T - 1``, an optimal
  schedule lies in those windows, keeps every start under that fixing (``LP + d <= TEL <= T - 1``)
  and satisfies the model (permuting identical requests keeps all this).  So a target proved far
  below ``UB`` would be a cheap way to raise the lower bound.
* ``bb``: HiGHS branch and bound (:func:`kvlib.optimum.timelp.mip_on_lp`, one thread,
  ``--bb-seconds``) on the time-indexed IP with every family row, restricted by reduced-cost
  fixing with ``UB``: its dual bound (``OPT >= min(bb, UB)``).
* ``upper_long``: CP-SAT on the exact interval encoding (:func:`kvlib.optimum.cpsat.cpsat_solve`,
  two workers, ``--upper-seconds``, 0 skips it), hinted with the heuristic incumbent: the TEL it
  ends with, against ``UB`` (a minute of the pipeline).

Rows are appended as each instance ends (a re-run skips the instances in the file).

    python benchmarks/beyond_lp.py --sizes 15,20 --out benchmarks/beyond_lp_results.jsonl
    python benchmarks/beyond_lp.py --summary benchmarks/beyond_lp_results.jsonl
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from exact_scaling import COMMIT, _append, _rows, instance  # noqa: E402

from kvlib.optimum.bounds import latest_starts  # noqa: E402
from kvlib.optimum.cpsat import cpsat_solve_subprocess, event_solve_subprocess  # noqa: E402
from kvlib.optimum.destructive import target_domains  # noqa: E402
from kvlib.optimum.exact import heuristic_incumbent  # noqa: E402
from kvlib.optimum.timelp import mip_on_lp, time_indexed_lp  # noqa: E402

UB_FILES = ("exact_alone_results.jsonl", "exact_long_results.jsonl", "exact_scaling_results.jsonl")


def best_known() -> dict:
    """``{(model, n, seed): (UB, proved)}``: the best pipeline TEL of the committed files, and whether
    some row proves it optimal."""
    out: dict = {}
    for name in UB_FILES:
        for r in _rows(os.path.join(HERE, name)):
            if r.get("solver") != "pipeline":
                continue
            key = (r["model"], int(r["n"]), int(r["seed"]))
            ub, proved = out.get(key, (math.inf, False))
            out[key] = (min(ub, int(r["upper"])), proved or bool(r.get("optimal")))
    return out


def one(model: str, n: int, seed: int, ub: int, proved: bool, args) -> dict:
    inst = instance(1 if model == "AM1" else 2, n, seed)
    lat = latest_starts(inst, ub)
    lp = time_indexed_lp(inst, lat, time_limit=args.lp_seconds, threads=1, keep=True)
    row = dict(model=model, n=n, seed=seed, M=int(inst.memory), ub=ub, ub_proved=proved, lp=int(lp.bound),
               lp_converged=bool(lp.converged), lp_seconds=round(lp.seconds, 2))
    targets = []
    for f in args.fractions:
        T = int(math.ceil((1 + f) * lp.bound))
        if T > ub:
            break
        doms = target_domains(inst, lp, lat, T)
        t0 = time.perf_counter()
        if any(len(d) == 0 for d in doms):
            status = "INFEASIBLE (a request has no start left)"
        else:
            cr = event_solve_subprocess(inst, doms, upper=T, time_limit=args.event_seconds, workers=2,
                                        cumulative=2, lagrangian=lp.lagrangian())
            status = cr.status
        targets.append(dict(fraction=f, target=T, starts=int(sum(len(d) for d in doms)), status=status,
                            seconds=round(time.perf_counter() - t0, 2)))
        if not status.startswith("INFEASIBLE"):
            break
    row["targets"] = targets
    row["destructive"] = max([lp.bound] + [t["target"] for t in targets if t["status"].startswith("INFEASIBLE")])
    t0 = time.perf_counter()
    bb = mip_on_lp(lp, ub, time_limit=args.bb_seconds, threads=1)
    row.update(bb=int(bb["bound"]), bb_status=bb["status"], bb_nodes=int(bb["nodes"]),
               bb_seconds=round(time.perf_counter() - t0, 2))
    if args.upper_seconds > 0:
        starts, tel, _ = heuristic_incumbent(inst)
        t0 = time.perf_counter()
        cr = cpsat_solve_subprocess(inst, time_limit=args.upper_seconds, workers=2, hint=starts, upper=tel)
        row.update(upper_long=int(min(tel, cr.tel if cr.tel is not None else tel)), upper_long_status=cr.status,
                   upper_long_seconds=round(time.perf_counter() - t0, 2))
    row.update(event_seconds=args.event_seconds, bb_time_limit=args.bb_seconds, upper_time_limit=args.upper_seconds,
               commit=COMMIT)
    return row


def summary(path: str) -> int:
    rows = _rows(path)
    if not rows:
        print(f"no rows in {path}")
        return 1
    print("model n   seed UB     LP     LP gap  proved above LP        B&B    long CP-SAT")
    for r in sorted(rows, key=lambda r: (r["n"], r["model"], r["seed"])):
        gap = 100 * (r["ub"] - r["lp"]) / r["ub"]
        first = r["targets"][0] if r["targets"] else None
        dest = "-" if first is None else f"{r['destructive']} ({first['status'][:10]} at +{100 * first['fraction']:.0f}%)"
        up = r.get("upper_long", "-")
        print(f"{r['model']:<5} {r['n']:<3} {r['seed']:<4} {r['ub']:<6} {r['lp']:<6} {gap:5.1f}%  {dest:<22} "
              f"{r['bb']:<6} {up}")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="15,20")
    ap.add_argument("--seeds", default="0,1,2,3,4")
    ap.add_argument("--fractions", default="0.01,0.02,0.05", help="targets T = ceil((1 + f) LP), increasing")
    ap.add_argument("--lp-seconds", type=float, default=120.0)
    ap.add_argument("--event-seconds", type=float, default=30.0)
    ap.add_argument("--bb-seconds", type=float, default=60.0)
    ap.add_argument("--upper-seconds", type=float, default=0.0, help="long CP-SAT upper-bound search (0: skip)")
    ap.add_argument("--out", default="benchmarks/beyond_lp_results.jsonl")
    ap.add_argument("--summary", metavar="FILE", help="print the summary of a results file and exit")
    args = ap.parse_args(argv)
    if args.summary:
        return summary(args.summary)
    try:
        args.fractions = sorted(float(x) for x in args.fractions.split(","))
    except ValueError:
        ap.error(f"--fractions: comma-separated numbers expected, got {args.fractions!r}")
    if any(f <= 0 for f in args.fractions):
        ap.error("--fractions must be positive")
    for name in ("lp_seconds", "event_seconds", "bb_seconds"):
        if getattr(args, name) <= 0:
            ap.error(f"--{name.replace('_', '-')} must be positive")
    known = best_known()
    done = {(r["model"], r["n"], r["seed"]) for r in _rows(args.out)}
    for n in [int(x) for x in args.sizes.split(",")]:
        for model in ("AM1", "AM2"):
            for seed in [int(x) for x in args.seeds.split(",")]:
                key = (model, n, seed)
                if key in done or key not in known:
                    continue
                ub, proved = known[key]
                row = one(model, n, seed, ub, proved, args)
                _append(args.out, row)
                print(json.dumps(row), flush=True)
    return summary(args.out)


if __name__ == "__main__":
    sys.exit(main())
