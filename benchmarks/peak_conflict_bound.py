"""The peak-conflict relaxation (kvlib.optimum.bounds.peak_conflict_bound) on the exact-suite instances.

For each instance of benchmarks/exact_suite.py it prints the volume bound, the
relaxation's certified lower bound and its time, and, when
benchmarks/exact_suite_results.jsonl holds a run of the default solve()
configuration at the same time limit, that run's interval and the gap left if
the new bound replaced its lower end.

    python benchmarks/peak_conflict_bound.py --time-limit 30
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from exact_suite import suite  # noqa: E402

from kvlib.optimum.bounds import peak_conflict_bound, volume_lower_bound  # noqa: E402

RESULTS = pathlib.Path(__file__).resolve().parent / "exact_suite_results.jsonl"
DEFAULT_CONFIG = "sparse+cpsat+nopresolve"  # the last configuration without the separation bound


def recorded(time_limit: float) -> dict:
    out = {}
    if RESULTS.exists():
        for line in RESULTS.read_text().splitlines():
            row = json.loads(line)
            if row.get("config") == DEFAULT_CONFIG and float(row.get("time_limit", -1)) == time_limit:
                out[row["instance"]] = row
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--time-limit", type=float, default=30.0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--only", default=None, help="comma-separated instance indices")
    args = ap.parse_args(argv)
    items = suite()
    idx = range(len(items)) if args.only is None else [int(x) for x in args.only.split(",")]
    rec = recorded(args.time_limit)
    print(f"{'instance':<16} {'n':>3} {'M':>3} {'pairs':>5} {'volume':>7} {'peak':>7} {'solved':>6} {'sec':>6} "
          f"| {'solve() lower':>13} {'upper':>6} {'gap':>6} {'gap w/ peak':>11}")
    for k in idx:
        label, inst = items[k]
        res = peak_conflict_bound(inst, time_limit=args.time_limit, threads=args.threads)
        r = rec.get(label)
        tail = "|   (no recorded solve() run at this limit)"
        if r is not None:
            lo = max(int(r["lower"]), res["bound"])
            tail = (f"| {r['lower']:>13} {r['upper']:>6} {1 - r['lower'] / r['upper']:>6.1%} "
                    f"{1 - lo / r['upper']:>11.1%}")
        print(f"{label:<16} {inst.n:>3} {inst.memory:>3} {res['pairs']:>5} {volume_lower_bound(inst):>7} "
              f"{res['bound']:>7} {str(res['relaxation_solved']):>6} {res['seconds']:>6.1f} {tail}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
