"""The primal search (kvlib.optimum.search) against the upper bounds the book stored before it.

Two parts, both on instances of 001 Section 5.1's distributions drawn exactly as the hindsight
chapter's stored tables draw them (``kvlib.book.section51_trials.trial_instance``, seed 0):

* ``small``: the trials of ``results/hindsight/certified_small.csv`` whose optimum the exact pipeline
  *proved* (60 s per solve), at sizes 10, 12 and 15 (Arrival Model 1: n requests; Arrival Model 2:
  horizon of n rounds), at most ``--small-per-size`` per size and model.  The search runs until its
  wall-clock limit (``--small-limit``, default 10 s); the row records whether it reached OPT and when
  (the first improvement with TEL = OPT).
* ``paper``: the first ``--paper-trials`` trials per arrival model of ``results/hindsight/section51.csv``
  (n = 40-60 requests, AM1; horizon 40-60 rounds, AM2).  At each limit of ``--limits`` (default
  10, 30, 120 s; ``--long-trials`` trials get the longest) it runs, each under the same wall-clock
  limit and from the same start (the best of the policies' schedules, each followed by a left shift,
  ``kvlib.optimum.heuristic.heuristic_incumbent``):

  - ``search``: ``primal_search(..., time_limit=L)`` (one core);
  - ``highs``: the time-indexed IP of 001 (1)-(4) in HiGHS (``kvlib.optimum.exact.solve_ip``, warm
    started, ``--threads`` threads); its ``upper`` is HiGHS's incumbent (or the warm start);
  - ``cpsat``: CP-SAT on the exact cumulative model (``kvlib.optimum.cpsat.cpsat_solve``, hinted,
    ``--threads`` workers).

  Every schedule is re-checked by the independent checker.  The stored upper bound of the same trial
  (the exact pipeline, 30 s on 2 threads) is the baseline.

Each run appends one JSON line to ``--out`` when it ends; a re-run skips runs already there
(resumable).  ``--summary`` prints the tables of the closing note from the file.

    python benchmarks/primal_search.py                 # both parts (about 35 min on 2 cores)
    python benchmarks/primal_search.py --summary
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kvlib.book.section51_trials import trial_instance  # noqa: E402
from kvlib.core.checker import check_schedule  # noqa: E402
from kvlib.core.model import Schedule  # noqa: E402
from kvlib.core.simulate import simulate  # noqa: E402
from kvlib.optimum.heuristic import heuristic_incumbent  # noqa: E402
from kvlib.optimum.search import primal_search  # noqa: E402
from kvlib.policies import make_policy  # noqa: E402

COMMIT = subprocess.run(["git", "rev-parse", "--short=10", "HEAD"], capture_output=True, text=True,
                        cwd=ROOT).stdout.strip() or "unknown"
DEFAULT_OUT = ROOT / "benchmarks" / "primal_search_results.jsonl"


def _checked(inst, starts) -> int:
    rep = check_schedule(inst, Schedule(tuple(int(x) for x in starts)))
    if not rep.valid:
        raise AssertionError(f"a schedule was rejected by the checker: {rep.violations[:2]}")
    return int(rep.tel)


def run_search(inst, limit: float) -> dict:
    r = primal_search(inst, evaluations=None, windows=None, time_limit=limit)
    return dict(upper=_checked(inst, r.starts), seconds=r.seconds, history=[[round(t, 3), v] for t, v, _ in r.history],
                source=r.source, evaluations=r.evaluations, windows=r.windows)


def run_highs(inst, limit: float, threads: int, inc) -> dict:
    from kvlib.optimum.exact import solve_ip

    t0 = time.perf_counter()
    r = solve_ip(inst, time_limit=limit, threads=threads, incumbent=inc)
    return dict(upper=_checked(inst, r.starts), lower=int(r.lower), seconds=time.perf_counter() - t0, status=r.status)


def run_cpsat(inst, limit: float, threads: int, inc) -> dict:
    from kvlib.optimum.cpsat import cpsat_solve

    starts, tel, _ = inc
    t0 = time.perf_counter()
    r = cpsat_solve(inst, time_limit=limit, workers=threads, hint=starts, upper=tel)
    upper = tel if r.starts is None else min(tel, _checked(inst, r.starts))
    return dict(upper=upper, seconds=time.perf_counter() - t0, status=r.status)


def _done(path: Path) -> set:
    if not path.exists():
        return set()
    out = set()
    for line in path.read_text().splitlines():
        if line.strip():
            d = json.loads(line)
            out.add((d["part"], d["model"], d["trial"], d.get("size"), d["method"], d["limit"]))
    return out


def _append(path: Path, row: dict) -> None:
    with open(path, "a", encoding="utf8") as f:
        f.write(json.dumps(row) + "\n")


def small_part(args, done) -> None:
    import pandas as pd

    d = pd.read_csv(ROOT / "results" / "hindsight" / "certified_small.csv")
    d = d[d.optimal.astype(str).str.lower().eq("true") & d["size"].isin(args.small_sizes)]
    d = d.sort_values(["size", "model", "trial"]).groupby(["size", "model"]).head(args.small_per_size)
    for row in d.itertuples():
        key = ("small", int(row.model), int(row.trial), int(row.size), "search", args.small_limit)
        if key in done:
            continue
        size = int(row.size)
        inst = trial_instance(int(row.model), int(row.trial), int(row.seed), (size, size), (size, size))
        r = run_search(inst, args.small_limit)
        opt = int(row.upper)
        hit = next((t for t, v in r["history"] if v == opt), None)
        _append(args.out, dict(part="small", model=int(row.model), trial=int(row.trial), size=size, n=int(inst.n),
                               method="search", limit=args.small_limit, opt=opt, stored_upper=int(row.upper),
                               mcsf=int(row.mcsf), found_opt=r["upper"] == opt, seconds_to_opt=hit, commit=COMMIT,
                               **{k: v for k, v in r.items() if k != "history"}))
        print(f"small AM{row.model} size {size} trial {row.trial}: OPT {opt}, search {r['upper']}"
              f"{'' if hit is None else f' (OPT after {hit:.2f} s)'}", flush=True)


def paper_part(args, done) -> None:
    import pandas as pd

    d = pd.read_csv(ROOT / "results" / "hindsight" / "section51.csv")
    for model in (1, 2):
        for trial in range(args.paper_trials):
            row = d[(d.model == model) & (d.trial == trial)].iloc[0]
            inst = trial_instance(model, trial, 0, (40, 60), (40, 60))
            mcsf = int(simulate(inst, make_policy("mc-sf"), seed=0).tel)
            inc = heuristic_incumbent(inst)
            for limit in args.limits:
                if limit == max(args.limits) and trial >= args.long_trials:
                    continue
                for method in args.methods:
                    key = ("paper", model, trial, None, method, limit)
                    if key in done:
                        continue
                    if method == "search":
                        r = run_search(inst, limit)
                        r.pop("history")
                    elif method == "highs":
                        r = run_highs(inst, limit, args.threads, inc)
                    else:
                        r = run_cpsat(inst, limit, args.threads, inc)
                    _append(args.out, dict(part="paper", model=model, trial=trial, size=None, n=int(inst.n),
                                           method=method, limit=limit, stored_upper=int(row.upper),
                                           stored_lower=int(row.lower), mcsf=mcsf, start=int(inc[1]),
                                           threads=1 if method == "search" else args.threads, commit=COMMIT, **r))
                    print(f"paper AM{model} trial {trial} n={inst.n} {method} {limit:g} s: {r['upper']} "
                          f"(stored {int(row.upper)}, MC-SF {mcsf})", flush=True)


def summary(path: Path) -> None:
    import pandas as pd

    rows = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    df = pd.DataFrame(rows)
    sm = df[df.part == "small"]
    if len(sm):
        g = sm.groupby(["size", "model"]).agg(instances=("trial", "size"), found_opt=("found_opt", "sum"),
                                              median_s_to_opt=("seconds_to_opt", "median"),
                                              max_s_to_opt=("seconds_to_opt", "max"))
        print(f"Proved optima (n = 10-15): the search reaches OPT within {sm.limit.iloc[0]:g} s")
        print(g.to_string())
        print()
    pp = df[df.part == "paper"].copy()
    if len(pp):
        pp["improvement_%"] = 100 * (pp.stored_upper - pp.upper) / pp.stored_upper
        pp["ratio_lo"] = pp.mcsf / pp.upper
        pp["stored_ratio_lo"] = pp.mcsf / pp.stored_upper
        g = pp.groupby(["model", "limit", "method"]).agg(trials=("trial", "size"),
                                                         mean_improvement_pct=("improvement_%", "mean"),
                                                         beats_stored=("improvement_%", lambda x: int((x > 0).sum())),
                                                         mcsf_over_upper=("ratio_lo", "mean"),
                                                         stored=("stored_ratio_lo", "mean"),
                                                         seconds=("seconds", "mean"))
        print("Paper size (n = 40-60): improvement over the stored upper bound (pipeline, 30 s), "
              "and the mean of MC-SF / upper (the certified lower end of MC-SF / OPT)")
        print(g.round(4).to_string())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--parts", default="small,paper")
    ap.add_argument("--small-sizes", type=lambda s: [int(x) for x in s.split(",")], default=[10, 12, 15])
    ap.add_argument("--small-per-size", type=int, default=5)
    ap.add_argument("--small-limit", type=float, default=10.0)
    ap.add_argument("--paper-trials", type=int, default=4)
    ap.add_argument("--long-trials", type=int, default=1)
    ap.add_argument("--limits", type=lambda s: [float(x) for x in s.split(",")], default=[10.0, 30.0, 120.0])
    ap.add_argument("--methods", type=lambda s: s.split(","), default=["search", "highs", "cpsat"])
    ap.add_argument("--threads", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--summary", action="store_true", help="print the summary of --out and exit")
    args = ap.parse_args(argv)
    bad = [m for m in args.methods if m not in ("search", "highs", "cpsat")]
    if bad:
        ap.error(f"--methods: unknown {bad}; choose from search, highs, cpsat")
    if args.summary:
        if not args.out.exists():
            ap.error(f"--summary: {args.out} does not exist")
        summary(args.out)
        return 0
    done = _done(args.out)
    parts = args.parts.split(",")
    if "small" in parts:
        small_part(args, done)
    if "paper" in parts:
        paper_part(args, done)
    summary(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
