"""Scaling of the certified hindsight optimum: the pipeline against general solvers on the plain model.

Instances (001 Section 5.1 distributions, with n fixed):

* AM1: ``kvlib.core.instances.section51(rng, 1, n_range=(n, n))`` (all at t = 0);
* AM2: M, s, o as in ``section51``; a rate ``lambda ~ U[0.5, 1.5]`` and Poisson(lambda)
  arrivals per integer time until ``n`` requests have arrived (the last slot truncated) --
  Arrival Model 2 conditioned on its size, since 001 draws the size at random.

Instance (model, n, seed) comes from ``numpy.random.default_rng([SEED, model, n, seed])``.

Solvers (each gets the same time limit and the same heuristic incumbent):

* ``pipeline``: ``kvlib.optimum.solve`` (method "pipeline": bounds, CP-SAT upper-bound search,
  time-indexed LP with conflict-family rows, reduced-cost fixing, CP-SAT event model for n <= 15);
* ``pipeline-v1`` (stored rows only, not re-run): the pipeline before its upper-bound search was added
  (commits up to 85b2a78), kept for comparison;
* ``highs``: the plain time-indexed IP of 001 eq. (1)-(4) in HiGHS (``solve(method="ip")``
  with sound windows, warm start and twin ordering; no CP-SAT phase, no extra bounds);
* ``cpsat``: CP-SAT on the exact cumulative encoding of the same IP
  (``kvlib.optimum.cpsat.cpsat_solve``, child process, hinted with the incumbent);
* ``scip``: SCIP (pyscipopt, optional) on the plain time-indexed IP (the matrix of
  ``kvlib.optimum.exact.build_sparse``, written as MPS; child process);
* ``destructive`` (not in the default grid): ``kvlib.optimum.destructive.solve_destructive``, the
  pipeline for 60% of the limit, then destructive bounds (targets above the LP refuted by the event
  model) in the rest; run with ``--solvers destructive --out benchmarks/exact_destructive_results.jsonl``.

Each run appends one JSON line to ``--out`` as soon as it ends (an interrupted run keeps its
rows, and a re-run skips the runs already there: resumable).  ``--summary`` prints, per
``(n, model, solver)``, the runs, how many were proved, the mean and worst final gap and the median
time, side by side.  Rows carry the MC-SF TEL and, when the interval is closed, MC-SF / OPT.

    python benchmarks/exact_scaling.py                       # full grid (about 320 solver-minutes)
    python benchmarks/exact_scaling.py --sizes 10,12,15,20,40 --seeds 1 --solvers pipeline,highs

The hindsight chapter also reads a longer-limit run of the pipeline on the small sizes, made with

    python benchmarks/exact_scaling.py --sizes 12,15 --solvers pipeline --time-limit 900 --threads 1 \
        --out benchmarks/exact_long_results.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from kvlib.core.instances import section51
from kvlib.core.model import Instance, Schedule
from kvlib.core.checker import check_schedule
from kvlib.core.simulate import simulate
from kvlib.optimum.exact import build_sparse, heuristic_incumbent, solve
from kvlib.policies import make_policy

SEED = 20251
COMMIT = subprocess.run(["git", "rev-parse", "--short=10", "HEAD"], capture_output=True, text=True,
                        cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip() or "unknown"
SIZES = (10, 12, 15, 20, 30, 40, 50, 60)
SOLVERS = ("pipeline", "highs", "cpsat", "scip")


def am2_fixed_n(rng: np.random.Generator, n: int) -> Instance:
    """Arrival Model 2 of 001 Section 5.1 with exactly ``n`` requests (see the module docstring)."""
    M = int(rng.integers(30, 51))
    lam = float(rng.uniform(0.5, 1.5))
    arrivals: list[int] = []
    t = 0
    while len(arrivals) < n:
        arrivals += [t] * int(rng.poisson(lam))
        t += 1
    arrival = np.array(arrivals[:n], dtype=np.int64)
    s = rng.integers(1, 6, size=n)
    o = np.array([rng.integers(1, M - si + 1) for si in s], dtype=np.int64)
    return Instance.from_arrays(arrival, s, o, M)


def instance(model: int, n: int, seed: int) -> Instance:
    rng = np.random.default_rng([SEED, model, n, seed])
    return section51(rng, 1, n_range=(n, n)) if model == 1 else am2_fixed_n(rng, n)


def run_cpsat(inst: Instance, inc, time_limit: float, threads: int) -> dict:
    from kvlib.optimum.cpsat import cpsat_solve_subprocess

    starts, tel, _ = inc
    t0 = time.perf_counter()
    r = cpsat_solve_subprocess(inst, time_limit=time_limit, workers=threads, hint=starts, upper=tel)
    upper = tel
    if r.starts is not None:
        rep = check_schedule(inst, Schedule(tuple(int(p) for p in r.starts)))
        if rep.valid:
            upper = min(upper, int(rep.tel))
    lower = min(int(r.bound), upper) if not r.status.startswith("cp-sat child failed") else 0
    return dict(lower=lower, upper=upper, status=r.status, seconds=time.perf_counter() - t0)


_SCIP_CHILD = r"""
import json, sys
import pyscipopt
d = json.loads(sys.stdin.read())
m = pyscipopt.Model()
m.hideOutput()
m.readProblem(d["mps"])
m.setParam("limits/time", d["time_limit"])
m.setParam("parallel/maxnthreads", 1)
m.setObjlimit(d["objlimit"])
m.optimize()
status = m.getStatus()
x = None
if m.getNSols() > 0:
    sol = m.getBestSol()
    x = [int(v.name[1:]) for v in m.getVars() if sol[v] > 0.5]
print(json.dumps({"status": status, "dual": m.getDualbound(), "x": x}))
"""


def run_scip(inst: Instance, inc, time_limit: float, threads: int) -> dict:
    import highspy as hp

    from kvlib.optimum.exact import _highs_from_sparse

    starts, tel, _ = inc
    t0 = time.perf_counter()
    model = build_sparse(inst, upper=tel, symmetry=True)
    h, nx = _highs_from_sparse(model)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "ip.mps")
        h.setOptionValue("output_flag", False)
        h.writeModel(path)
        left = time_limit - (time.perf_counter() - t0)
        payload = dict(mps=path, time_limit=max(1.0, left - 1.0), objlimit=float(tel) - 0.5)
        try:
            proc = subprocess.run([sys.executable, "-c", _SCIP_CHILD], input=json.dumps(payload), text=True,
                                  capture_output=True, timeout=left + 10)
            out = json.loads(proc.stdout.strip().splitlines()[-1])
        except (subprocess.TimeoutExpired, json.JSONDecodeError, IndexError) as exc:
            return dict(lower=0, upper=tel, status=f"scip failed: {type(exc).__name__}",
                        seconds=time.perf_counter() - t0)
    upper = tel
    if out["x"]:
        st = np.full(inst.n, -1, dtype=np.int64)
        for c in out["x"]:
            if c < nx:
                st[model.req[c]] = model.start[c]
        if np.all(st >= 0):
            rep = check_schedule(inst, Schedule(tuple(int(p) for p in st)))
            if rep.valid:
                upper = min(upper, int(rep.tel))
    if out["status"] == "infeasible":  # nothing below the incumbent (objective limit tel - 0.5)
        lower = upper
    else:
        d = out["dual"]
        lower = int(np.ceil(d - 1e-6)) if d is not None and abs(d) < 1e15 else 0
    return dict(lower=min(lower, upper), upper=upper, status=out["status"], seconds=time.perf_counter() - t0)


def run_one(solver: str, inst: Instance, inc, time_limit: float, threads: int) -> dict:
    t0 = time.perf_counter()
    if solver == "pipeline":
        r = solve(inst, time_limit=time_limit, threads=threads, method="pipeline", incumbent=inc)
        return dict(lower=r.lower, upper=r.upper, status=r.status, seconds=r.seconds,
                    proved_by=r.extra.get("proved_by", ""), lp_lb=r.extra.get("lp_lb"),
                    separation_lb=r.extra.get("separation_lb"))
    if solver == "destructive":
        from kvlib.optimum.destructive import solve_destructive

        r = solve_destructive(inst, time_limit=time_limit, threads=threads, incumbent=inc)
        return dict(lower=r.lower, upper=r.upper, status=r.status, seconds=r.seconds,
                    proved_by=r.extra.get("proved_by", ""), lp_lb=r.extra.get("lp_lb"),
                    separation_lb=r.extra.get("separation_lb"), pipeline_lower=r.extra["pipeline_lower"],
                    pipeline_upper=r.extra["pipeline_upper"], destructive_attempts=r.extra["destructive_attempts"])
    if solver == "highs":
        r = solve(inst, time_limit=time_limit, threads=threads, method="ip", incumbent=inc, cpsat=0,
                  separation=False, conflict_mip=0)
        return dict(lower=r.lower, upper=r.upper, status=r.status, seconds=r.seconds)
    if solver == "cpsat":
        return run_cpsat(inst, inc, time_limit, threads)
    if solver == "scip":
        return run_scip(inst, inc, time_limit, threads)
    raise ValueError(f"unknown solver {solver!r}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)))
    ap.add_argument("--models", default="1,2", help="arrival models (1 = AM1, 2 = AM2)")
    ap.add_argument("--seeds", type=int, default=5, help="seeds 0..SEEDS-1 per (model, n)")
    ap.add_argument("--solvers", default=",".join(SOLVERS))
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default="benchmarks/exact_scaling_results.jsonl")
    ap.add_argument("--conditions", default="",
                    help="how the machine was shared during the runs (stored in every row), e.g. 'alone'")
    ap.add_argument("--summary", action="store_true",
                    help="only print the per-(n, model, solver) summary of the rows already in --out")
    args = ap.parse_args(argv)
    if args.summary:
        return summary(args.out)
    done = done_keys(args.out)
    solvers = args.solvers.split(",")
    if "scip" in solvers:
        import importlib.util

        if importlib.util.find_spec("pyscipopt") is None:
            print("pyscipopt not installed: skipping SCIP (pip install 'kvlib[scip]')", file=sys.stderr)
            solvers.remove("scip")
    print(f"{'solver':<11} {'model':<4} {'n':>3} {'seed':>4} {'M':>3} {'lower':>6} {'upper':>6} {'gap%':>6} "
          f"{'sec':>6} {'MC-SF':>6} {'MC-SF/OPT':>9}  status")
    for n in [int(x) for x in args.sizes.split(",")]:
        for model in [int(x) for x in args.models.split(",")]:
            for seed in range(args.seeds):
                inst = instance(model, n, seed)
                inc = heuristic_incumbent(inst)
                mcsf = int(check_schedule(inst, simulate(inst, make_policy("mc-sf"), seed=0).schedule).tel)
                for solver in solvers:
                    if (solver, f"AM{model}", n, seed, float(args.time_limit)) in done:
                        continue  # resumable: this run is already in --out
                    try:
                        row = run_one(solver, inst, inc, args.time_limit, args.threads)
                    except Exception as exc:  # keep the grid running; the row records the failure
                        row = dict(lower=0, upper=inc[1], status=f"error: {type(exc).__name__}: {exc}"[:200],
                                   seconds=float("nan"))
                    gap = (row["upper"] - row["lower"]) / row["upper"]
                    optimal = row["lower"] >= row["upper"]
                    row = dict(solver=solver, model=f"AM{model}", n=n, seed=seed, M=inst.memory,
                               time_limit=args.time_limit, threads=args.threads, commit=COMMIT,
                               **({'conditions': args.conditions} if args.conditions else {}),
                               incumbent=inc[1], gap=gap, optimal=optimal, mcsf=mcsf,
                               mcsf_over_opt=(mcsf / row["upper"]) if optimal else None, **row)
                    _append(args.out, row)
                    ratio = f"{row['mcsf_over_opt']:.4f}" if optimal else ""
                    print(f"{solver:<11} AM{model:<2} {n:>3} {seed:>4} {inst.memory:>3} {row['lower']:>6} "
                          f"{row['upper']:>6} {100 * gap:>6.2f} {row['seconds']:>6.1f} {mcsf:>6} {ratio:>9}  "
                          f"{row['status'][:60]}", flush=True)
    summary(args.out)
    return 0


def _append(path: str, row: dict) -> None:
    """Append ``row`` to the JSON-lines file ``path`` (one line, written as soon as the run ends)."""
    with open(path, "a") as fh:
        fh.write(json.dumps(row) + "\n")


def _rows(path: str) -> list[dict]:
    if not os.path.exists(path):
        return []
    with open(path) as fh:
        return [json.loads(line) for line in fh if line.strip()]


def done_keys(path: str) -> set:
    """(solver, model, n, seed, time limit) of the runs already in ``path``."""
    return {(r["solver"], r["model"], int(r["n"]), int(r["seed"]), float(r["time_limit"])) for r in _rows(path)}


def summary(path: str) -> int:
    """Per (n, model, solver): runs, proved, mean and worst final gap, median seconds."""
    rows = _rows(path)
    if not rows:
        print(f"no rows in {path}")
        return 0
    groups: dict = {}
    for r in rows:
        groups.setdefault((int(r["n"]), r["model"], r["solver"], float(r["time_limit"])), []).append(r)
    print(f"\n{'n':>3} {'model':<5} {'solver':<11} {'limit':>5} {'runs':>4} {'proved':>6} {'mean gap%':>9} "
          f"{'max gap%':>8} {'median s':>8}")
    for (n, model, solver, limit), g in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1],
                                                                               SOLVERS.index(kv[0][2])
                                                                               if kv[0][2] in SOLVERS else 9)):
        gaps = [100 * float(r["gap"]) for r in g]
        secs = sorted(float(r["seconds"]) for r in g if r["seconds"] == r["seconds"])
        med = secs[len(secs) // 2] if secs else float("nan")
        print(f"{n:>3} {model:<5} {solver:<11} {limit:>5.0f} {len(g):>4} {sum(bool(r['optimal']) for r in g):>6} "
              f"{sum(gaps) / len(gaps):>9.2f} {max(gaps):>8.2f} {med:>8.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
