"""Time values up to 2**53: `kvlib simulate` and `kvlib solve` cost what their events cost.

Each case runs in a fresh Python process; the table gives its wall time and peak resident memory
(``ru_maxrss``).  A named kvlib error (a schedule whose start times would pass 2**53, the largest time
kvlib accepts) counts as an answer; anything else that fails is a defect.  Goals: every simulate under 2 s, every solve within its time limit plus 1.5 s, and
peak memory flat in the time values (within 100 MB of the smallest case of its kind).

    python benchmarks/huge_values.py [--time-limit 5]

Cases (``v`` runs over 10**3, 10**6, 10**9, 2**40, 2**52 and 2**53 - 8, the largest output kvlib accepts with M = v + 3):
  simulate/outputs   MC-SF, two requests of output v that cannot run together, plus one short one
  simulate/a-min     003's A_min on the same, told only the intervals [1, v] (it evicts and restarts)
  simulate/alpha     001's alpha-greedy (alpha = 0.25), one request of output v and three short ones
  simulate/a-l       003's A_lower, two-point lengths l = v // 10 and u = v (it removes and restarts)
  simulate/arrivals  MC-SF, 200 requests in 20 bursts spread over [0, v]
  simulate/many      MC-SF, 1,100 requests of output v that run one after another (their start times pass
                     2**53 from v of about 2**43: refused when the first such start comes)
  solve/arrivals     `solve`, the 3-row instance of the robustness review with the second arrival at v
  solve/outputs      `solve`, outputs v, v and 5 with M = v + 1 (checked: the interval holds OPT = 3v + 5)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

CHILD = r"""
import json, resource, sys, time
import numpy as np
from kvlib import Instance, check_schedule, make_policy, simulate, Schedule
from kvlib.optimum.exact import solve
kind, v, limit = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
if kind in ("simulate/outputs", "simulate/a-min"):
    inst = Instance.from_arrays([0, 0, 1], [2, 2, 1], [v, v, 3], v + 3)
elif kind == "simulate/alpha":
    inst = Instance.from_arrays([0, 0, 1, 3], [2, 2, 1, 1], [v, 5, 3, 4], v + 3)
elif kind == "simulate/a-l":
    inst = Instance.from_arrays([0, 0, 1, 2], [3, 3, 2, 2], [v // 10, v, v, v // 10], min(v + v // 10, 2**53))
elif kind == "simulate/arrivals":
    rng = np.random.default_rng(0)
    base = np.linspace(0, v - 100, 20).astype(np.int64)
    a = np.repeat(base, 10) + rng.integers(0, 50, 200)
    inst = Instance.from_arrays(a, rng.integers(1, 20, 200), rng.integers(1, 200, 200), 400)
elif kind == "simulate/many":
    inst = Instance.from_arrays([0] * 1100, [1] * 1100, [v] * 1100, v + 3)
elif kind == "solve/arrivals":
    inst = Instance.from_arrays([0, v, 0], [2, 1, 2], [3, 4, 3], 5)
else:
    inst = Instance.from_arrays([0, 0, 0], [1, 1, 1], [v, v, 5], v + 1)
tic = time.perf_counter()
from kvlib.errors import KvlibError
try:
    if kind == "simulate/a-min":
        r = simulate(inst, make_policy("a-min"), lower=[1, 1, 1], upper=[v, v, 3], reveal_output=False)
        ok, tel, note = check_schedule(inst, r.schedule, allow_cancellation=True).valid, r.tel, \
            f"{r.rounds_decided} decisions, {r.evictions} evictions"
    elif kind == "simulate/a-l":
        r = simulate(inst, make_policy("a-l"), lower=[v // 10] * 4, upper=[v] * 4, reveal_output=False)
        ok, tel, note = check_schedule(inst, r.schedule, allow_cancellation=True).valid, r.tel, \
            f"{r.rounds_decided} decisions, {r.evictions} removals"
    elif kind == "simulate/alpha":
        r = simulate(inst, make_policy("alpha-greedy"))
        ok, tel, note = check_schedule(inst, r.schedule, allow_cancellation=True).valid, r.tel, \
            f"{r.rounds_decided} decisions, {r.evictions} evictions"
    elif kind.startswith("simulate"):
        r = simulate(inst, make_policy("mc-sf"))
        ok, tel, note = check_schedule(inst, r.schedule).valid, r.tel, f"{r.rounds_decided} decisions"
    else:
        r = solve(inst, time_limit=limit)
        ok, tel = check_schedule(inst, Schedule(r.starts)).tel == r.upper, r.upper
        if kind == "solve/outputs":  # OPT = 3v + 5: the long ones run one after the other, the short beside the first
            ok = ok and r.lower <= 3 * v + 5 <= r.upper
        note = "optimal" if r.optimal else f"[{r.lower}, {r.upper}]"
except KvlibError as e:  # a named refusal (e.g. a start time beyond 2**53) is an answer, not a crash
    ok, tel, note = True, None, "refused: " + str(e)[:90]
secs = time.perf_counter() - tic
print(json.dumps(dict(seconds=secs, rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      ok=bool(ok), note=note)))
"""

VALUES = [10**3, 10**6, 10**9, 2**40, 2**52, 2**53 - 8]  # 2**53 - 8: outputs v with M = v + 3 <= 2**53


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--time-limit", type=float, default=5.0, help="solve's time limit in seconds (default 5)")
    args = ap.parse_args()
    print(f"{'case':<18} {'value':>18} {'seconds':>8} {'peak MB':>8}  checked  note")
    failed = []
    for kind in ("simulate/outputs", "simulate/a-min", "simulate/alpha", "simulate/a-l", "simulate/arrivals",
                 "simulate/many", "solve/arrivals", "solve/outputs"):
        rss0 = None
        for v in VALUES:
            out = subprocess.run([sys.executable, "-c", CHILD, kind, str(v), str(args.time_limit)],
                                 capture_output=True, text=True, timeout=600)
            if out.returncode:
                print(f"{kind:<18} {v:>18} failed: {out.stderr.strip().splitlines()[-1]}")
                failed.append((kind, v))
                continue
            d = json.loads(out.stdout.strip().splitlines()[-1])
            rss0 = d["rss_mb"] if rss0 is None else rss0
            limit = 2.0 if kind.startswith("simulate") else args.time_limit + 1.5
            good = d["ok"] and d["seconds"] <= limit and d["rss_mb"] <= rss0 + 100
            if not good:
                failed.append((kind, v))
            print(f"{kind:<18} {v:>18} {d['seconds']:>8.2f} {d['rss_mb']:>8.0f}  {'yes' if d['ok'] else 'NO':<7}  "
                  f"{d['note']}{'' if good else '   <- misses its goal'}")
    print("all cases within their goals" if not failed else f"{len(failed)} case(s) miss their goals: {failed}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
