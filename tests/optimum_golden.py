"""Recorded results of ``kvlib.optimum`` (issue #47 item 3: the refactor into steps must not change them).

``cases()`` lists named solves whose result does not depend on the machine's speed: every case either
proves its optimum with ample time left, or runs only steps with iteration budgets (the primal search
with a small ``SEARCH_EVALUATIONS``, the heuristics, the separation LP, whose bound at paper scale
depends on the speed: ``SEPARATION_TIMED``).  ``record`` keeps
what the fixture compares: lower, upper, the status without its timings, the method, the step that proved
the bound, the schedule's TEL (by the checker) and the start times.

Regenerate (only when a behaviour change is intended, and say so in the commit)::

    PYTHONPATH=$PWD:$PWD/tests python tests/optimum_golden.py > tests/data/optimum_golden.json
"""

from __future__ import annotations

import json
import re
from contextlib import contextmanager

import numpy as np

from kvlib.core.checker import check_schedule
from kvlib.core.instances import section51, uniform
from kvlib.core.model import Instance, Schedule

#: seed of the Section 5.1 draws (as kvlib.book.section51._instance: rng([seed, model, trial]))
SEED = 2025
#: list decodes of the primal search in the paper-scale cases (the pipeline's default, 20,000, takes
#: 25-60 s there, so its wall-clock share would stop it first)
PAPER_EVALUATIONS = 400
#: the small Section 5.1 draws that HiGHS proves within seconds (on the others it runs to its time limit,
#: so its bounds depend on the machine's speed)
#: cases whose lower bound is the separation LP's after its share of the time limit (5 s; it does not
#: converge there): their ``lower`` depends on the machine's speed
SEPARATION_TIMED = tuple(f"am{m}-paper{k}-search-and-bounds" for m in (1, 2) for k in range(2))
#: small Section 5.1 draws that the pipeline proves only after 48-57 s of its 60: left out (a loaded machine
#: could stop them first)
NEAR_THE_LIMIT = ((1, 2), (2, 1))
PROVED_BY_THE_IP = ((1, 1), (2, 0), (2, 2))


def small_family(k: int) -> Instance:
    """tests/test_pipeline.py's seeded family (n <= 7)."""
    rng = np.random.default_rng([4242, k])
    n = 4 + k % 4
    M = int(rng.integers(8, 12))
    return uniform(rng, n, M, prompt_max=3, output_max=M - 3 if n == 7 else M, arrival_max=3 * (k % 2))


def trial(model: int, k: int, **ranges) -> Instance:
    """Trial ``k`` of 001 Section 5.1's arrival model ``model``, drawn as kvlib.book.section51 draws it."""
    return section51(np.random.default_rng([SEED, model, k]), model, **ranges)


def with_gaps(parts: list[Instance], gap: int) -> Instance:
    """The instances one after the other, each arriving ``gap`` after the previous one's last arrival."""
    a, s, o, t = [], [], [], 0
    for p in parts:
        a.append(p.arrival + t)
        s.append(p.prompt)
        o.append(p.output)
        t = int(a[-1].max()) + gap
    return Instance.from_arrays(np.concatenate(a), np.concatenate(s), np.concatenate(o),
                                max(p.memory for p in parts))


@contextmanager
def evaluations(k: int):
    """The pipeline's primal search limited to ``k`` list decodes (restored afterwards)."""
    import kvlib.optimum.pipeline as pl

    old = pl.SEARCH_EVALUATIONS
    pl.SEARCH_EVALUATIONS = k
    try:
        yield
    finally:
        pl.SEARCH_EVALUATIONS = old


def cases():
    """``(name, thunk)`` pairs; each thunk returns a SolveResult."""
    from kvlib.optimum import solve, solve_pipeline

    out = []
    for k in range(10):
        inst = small_family(k)
        out.append((f"small{k}-pipeline", lambda inst=inst: solve(inst, time_limit=30, threads=1)))
        out.append((f"small{k}-ip", lambda inst=inst: solve(inst, time_limit=30, threads=1, method="ip")))
    for model in (1, 2):
        for k in range(3):
            inst = trial(model, k, n_range=(8, 11), horizon_range=(6, 9))
            if (model, k) not in NEAR_THE_LIMIT:
                out.append((f"am{model}-small{k}-pipeline",
                            lambda inst=inst: solve(inst, time_limit=60, threads=1)))
            if (model, k) in PROVED_BY_THE_IP:
                out.append((f"am{model}-small{k}-ip",
                            lambda inst=inst: solve(inst, time_limit=60, threads=1, method="ip", cpsat=0)))
    for model in (1, 2):
        for k in range(2):
            inst = trial(model, k)

            def paper(inst=inst):
                with evaluations(PAPER_EVALUATIONS):
                    return solve_pipeline(inst, time_limit=60, threads=1, lp=False, event=False,
                                          upper_search=False)
            out.append((f"am{model}-paper{k}-search-and-bounds", paper))
    gapped = with_gaps([small_family(0), small_family(1), small_family(2),
                        Instance.from_arrays([0], [1], [3], 8)], gap=1000)
    out.append(("gaps-pipeline", lambda: solve(gapped, time_limit=60, threads=1)))
    out.append(("gaps-ip", lambda: solve(gapped, time_limit=60, threads=1, method="ip")))
    out.append(("gaps-nosplit-pipeline", lambda: solve(gapped, time_limit=60, threads=1, split=False)))
    return out


_TIMES = re.compile(r"\d+(\.\d+)? s\b")


def record(res, instance: Instance | None = None) -> dict:
    """What the fixture keeps of a SolveResult (timings in the status masked)."""
    tel = None
    if instance is not None:
        tel = int(check_schedule(instance, Schedule(tuple(res.starts))).tel)
    return {"lower": int(res.lower), "upper": int(res.upper), "optimal": bool(res.optimal),
            "status": _TIMES.sub("<t> s", res.status), "method": res.formulation,
            "proved_by": str(res.extra.get("proved_by", res.extra.get("lower_source", ""))),
            "tel": tel, "starts": [int(p) for p in res.starts]}


def run_case(name, thunk) -> dict:
    res = thunk()
    return record(res, _instance_of(thunk))


def _instance_of(thunk) -> Instance:
    # the instance is the thunk's default argument or the closure's variable
    if thunk.__defaults__:
        return thunk.__defaults__[0]
    return thunk.__closure__[0].cell_contents


if __name__ == "__main__":
    import sys
    import time

    out = {}
    for name, thunk in cases():
        t0 = time.perf_counter()
        out[name] = run_case(name, thunk)
        print(name, f"{time.perf_counter() - t0:.1f} s", out[name]["lower"], out[name]["upper"], out[name]["status"][:90], file=sys.stderr, flush=True)
    print(json.dumps(out, indent=1, sort_keys=True))
