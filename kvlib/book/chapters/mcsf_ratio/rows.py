"""Row functions and key lists of the stored tables of the chapter "MC-SF's constant ratio".

Each ``*_row`` function is a row function of :mod:`kvlib.book.store` (keyword arguments = one
row's key, a flat ``dict`` of scalar outputs, every random draw seeded from the key); each
``*_keys`` function lists the keys of one table in an order that makes a partial table a fair
sample (trial-, restart- or replicate-major).  The quantities come from :mod:`kvlib.theory`
(``chain43``, ``ratio``, ``search``, ``smallest``, ``identical_grids``, ``regret``).

Column classes (what :func:`kvlib.book.store.verify_table` compares), per table:

``chain`` / ``adversarial``  exact: instance hash, MC-SF's TEL, every chain quantity that does not
    depend on a solver's time limit (our LP by cvxpy within ``rtol``); interval: ``(opt_lower,
    opt_upper)`` (certified under a time limit); ignore: ``optimal``; timing: ``seconds``.
``identical``  exact (OPT by branch and bound, no time limit; ``TI`` is an LP value, ``rtol``).
``sweep004``   exact: counts and counterexamples by branch and bound; ``highs_contradictions``
    (HiGHS's certified interval excludes the branch-and-bound optimum); ignore: ``highs_confirmed``
    (how many HiGHS proved within its time limit).
``regret``     exact (no solver).
"""

from __future__ import annotations

import json
import time
from typing import Optional, Sequence

import numpy as np

from kvlib.book.rows import instance_hash
from kvlib.book.runs import run_checked
from kvlib.core.checker import check_schedule
from kvlib.core.model import Instance
from kvlib.core.simulate import simulate
from kvlib.optimum.bounds import volume_lower_bound
from kvlib.optimum.certify import certify
from kvlib.policies import make_policy
from kvlib.theory.chain43 import chain_row, random_theorem43_instance
from kvlib.theory.identical_grids import mcsf_identical_tel
from kvlib.theory.ratio import (identical_batch_tel, identical_completion_bound, identical_dual,
                                identical_dual_violation, identical_k, identical_lp_primal, identical_lp_value,
                                identical_rho, identical_stagger_possible, identical_time_indexed_lp,
                                order_statistic_bound, theorem43_assumptions)
from kvlib.theory.regret import poisson_instance, volume_capacity
from kvlib.theory.search import hill_climb, theorem43_space
from kvlib.theory.smallest import at_zero_instances, policy_vs_opt

__all__ = ["chain_trial_row", "chain_keys", "adversarial_restart_row", "adversarial_keys", "identical_case_row",
           "identical_keys", "dense_case_row", "dense_keys", "open_region_row", "open_region_keys",
           "sweep004_row", "sweep004_keys", "sweep004_cases", "regret_row", "regret_keys",
           "CHAIN_COLUMNS"]

#: column classes of the ``chain`` and ``adversarial`` tables
CHAIN_COLUMNS = dict(interval=[("opt_lower", "opt_upper")], ignore=["optimal"], timing=["seconds"], rtol=1e-6)


def _mcsf_tel(inst: Instance) -> int:
    return int(run_checked(inst, "mc-sf")[0].tel)


def _chain(inst: Instance, time_limit: float) -> dict:
    tic = time.perf_counter()
    cert = certify(inst, method="ip", time_limit=float(time_limit))
    row = chain_row(inst, cert)
    row["optimal"] = bool(row["optimal"])
    return {"instance": instance_hash(inst), "outputs": json.dumps(sorted(inst.output.tolist())), **row,
            "seconds": round(time.perf_counter() - tic, 3)}


# --------------------------------------------------------------------------- Theorem 4.3, random instances


def chain_trial_row(*, seed: int, trial: int, n_max: int, time_limit: float) -> dict:
    """The Theorem 4.3 chain (:func:`kvlib.theory.chain43.chain_row`) on random instance ``trial``.

    The instance is ``random_theorem43_instance(default_rng([seed, trial]), n_max)``; OPT is certified
    by the IP (:func:`kvlib.optimum.certify.certify`) with ``time_limit`` seconds: ``opt_lower``,
    ``opt_upper`` bracket it, ``optimal`` says whether it was proved in time.
    """
    inst = random_theorem43_instance(np.random.default_rng([int(seed), int(trial)]), int(n_max))
    if not theorem43_assumptions(inst):  # pragma: no cover - the generator guarantees it
        raise AssertionError(f"trial {trial}: instance violates Theorem 4.3's assumptions")
    return _chain(inst, time_limit)


def chain_keys(seed: int, trials: int, n_max: int, time_limit: float) -> list[dict]:
    return [dict(seed=int(seed), trial=k, n_max=int(n_max), time_limit=float(time_limit)) for k in range(int(trials))]


def adversarial_restart_row(*, seed: int, restart: int, n_max: int, steps: int, time_limit: float) -> dict:
    """One restart of the hill climb maximising MC-SF / OS over Theorem 4.3's instances, then its chain.

    The search (:func:`kvlib.theory.search.hill_climb`, one restart, ``steps`` steps) draws from
    ``default_rng([seed, 7919, restart])`` and uses no time limit, so ``proxy`` (the best MC-SF / OS)
    and the instance it ends on are exact; OPT of that instance is certified with ``time_limit``.
    """
    n_max = int(n_max)
    search = hill_climb(lambda inst: _mcsf_tel(inst) / order_statistic_bound(inst), theorem43_space(n_max),
                        np.random.default_rng([int(seed), 7919, int(restart)]),
                        start=lambda g: random_theorem43_instance(g, n_max), steps=int(steps), restarts=1,
                        valid=theorem43_assumptions)
    run = search.runs[0]
    return {**_chain(run.best, time_limit), "proxy": float(run.value), "evaluations": int(run.evaluations)}


def adversarial_keys(seed: int, restarts: int, n_max: int, steps: int, time_limit: float) -> list[dict]:
    return [dict(seed=int(seed), restart=r, n_max=int(n_max), steps=int(steps), time_limit=float(time_limit))
            for r in range(int(restarts))]


# --------------------------------------------------------------------------- identical requests


def identical_case_row(*, M: int, s: int, o: int, n: int, node_limit: int = 2_000_000) -> dict:
    """``n`` identical requests ``(s, o)`` at 0 with memory ``M``: MC-SF, the batch form, our LP, OPT and our volume-LP quantities.

    Outputs: ``mcsf`` (simulated, checked), ``batch`` (closed form), ``stagger`` (MC-SF can start a
    request while a batch runs), ``LP`` (our LP for one type), ``opt`` (branch and bound, skipped when
    MC-SF meets the order-statistic bound; raises beyond ``node_limit`` nodes), ``D`` (our dual (25)-(27)
    at ``T*``), ``rho``, ``TI`` (time-indexed LP where it can differ from ``D``, i.e. ``n > k``; else ``D``),
    ``comp_ok`` (MC-SF's ``i``-th completion ``<= o ceil(i/k)``), ``feas_ok`` (the dual is feasible, exact
    rationals), ``strong_ok`` (primal objective == dual value, exactly).
    """
    M, s, o, n = int(M), int(s), int(o), int(n)
    inst = Instance.at_zero([s] * n, [o] * n, M)
    r = policy_vs_opt(inst, lower_bound=order_statistic_bound, node_limit=int(node_limit))
    dual = identical_dual(n, s, o, M)
    comp = np.sort(np.asarray(r["starts"]) + o) <= identical_completion_bound(n, s, o, M)
    D = float(dual.value)
    return {"mcsf": r["tel"], "batch": identical_batch_tel(n, s, o, M), "stagger": identical_stagger_possible(s, o, M),
            "LP": float(identical_lp_value(n, s, o, M)), "opt": int(r["OPT"]), "D": D,
            "rho": float(identical_rho(s, o, M)),
            "TI": float(identical_time_indexed_lp(n, s, o, M)) if n > identical_k(s, o, M) else D,
            "comp_ok": bool(comp.all()), "feas_ok": identical_dual_violation(dual) == 0,
            "strong_ok": sum(t * x for t, x in identical_lp_primal(n, s, o, M).items()) == dual.value}


def identical_keys(M_max: int, n_max: int, s_values: Sequence[int] = (1, 2, 3), M_min: int = 4) -> list[dict]:
    """Every ``M_min <= M <= M_max``, ``s``, ``1 <= o <= M - s``, ``1 <= n <= n_max``; ``n``-major (cheap first)."""
    return [dict(M=M, s=int(s), o=o, n=n) for n in range(1, int(n_max) + 1) for M in range(int(M_min), int(M_max) + 1)
            for s in s_values for o in range(1, M - int(s) + 1)]


def dense_case_row(*, M: int, s: int, o: int, q: float) -> dict:
    """MC-SF / our LP for ``n = max(1, round(q M))`` identical requests; TEL by the batch form where MC-SF
    cannot stagger (exact there), else simulated."""
    M, s, o = int(M), int(s), int(o)
    n = max(1, int(round(float(q) * M)))
    tel = identical_batch_tel(n, s, o, M) if not identical_stagger_possible(s, o, M) else mcsf_identical_tel(n, s, o, M)
    return {"n": n, "tel": int(tel), "ratio_lp": tel / identical_lp_value(n, s, o, M)}


def dense_keys(memories: Sequence[int], s_values: Sequence[int] = (1, 2, 5, 10),
               q_values: Sequence[float] = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0)) -> list[dict]:
    """The dense grid of :func:`kvlib.theory.identical_grids.dense_grid`, ``q``-major."""
    return [dict(M=int(M), s=int(s), o=o, q=float(q)) for q in q_values for M in memories for s in s_values
            for o in sorted({1, 2, 3, 5, 8, 13, 21, (M - s) // 2, M - s} - {0}) if s + o <= M]


def open_region_row(*, s: int, o: int, M: int, n: int) -> dict:
    """One case of the region our Lemma V.2 leaves open: ``rho``, MC-SF / D and U / D (batch bound / dual)."""
    s, o, M, n = int(s), int(o), int(M), int(n)
    d = float(identical_dual(n, s, o, M).value)
    return {"rho": float(identical_rho(s, o, M)), "MC-SF / D": mcsf_identical_tel(n, s, o, M) / d,
            "U / D": identical_batch_tel(n, s, o, M) / d}


def open_region_keys(outputs: Sequence[int], ns: Sequence[int], s_values: Sequence[int] = (1, 2)) -> list[dict]:
    """``M`` in ``{2m-1, 2m-2, floor(7m/4)}`` (``m = s + o``) where ``rho > 3``; ``n``-major."""
    cases = [(s, o, M) for s in s_values for o in outputs
             for M in dict.fromkeys((2 * (s + o) - 1, 2 * (s + o) - 2, (7 * (s + o)) // 4)) if identical_rho(s, o, M) > 3]
    return [dict(s=int(s), o=int(o), M=int(M), n=int(n)) for n in ns for s, o, M in cases]


# --------------------------------------------------------------------------- 004 Theorem 4.2 sweep


def sweep004_row(*, M: int, s: int, n: int, o_max: int, confirm: Optional[int] = None,
                 time_limit: float = 10.0) -> dict:
    """Every all-at-zero instance with ``n`` requests of prompt ``s``, outputs in ``1..min(o_max, M - s)``
    (as a multiset): MC-SF against OPT by branch and bound (no solver; no search when MC-SF meets OS).

    Outputs: ``instances``, ``thm43`` (how many meet ``M >= 2(s + max o)``), ``bad`` (MC-SF not optimal),
    ``bad_thm43``, ``worst`` (largest MC-SF / OPT, 1.0 if none), ``cases`` (JSON list of
    ``[outputs, mcsf, opt, thm43]`` of the non-optimal ones, lexicographic).  The first ``confirm``
    of them (all if ``None``) are re-solved by HiGHS with ``time_limit``: ``highs_confirmed`` counts
    those it proved with the same optimum, ``highs_contradictions`` those whose certified interval
    excludes the branch-and-bound optimum (must be 0).
    """
    M, s, n = int(M), int(s), int(n)
    count = thm = 0
    cases = []
    for inst in at_zero_instances(n, M, prompts=[s], o_max=int(o_max)):
        r = policy_vs_opt(inst, lower_bound=order_statistic_bound)
        outs = inst.output.tolist()
        t43 = M >= 2 * (s + max(outs))
        count, thm = count + 1, thm + t43
        if r["tel"] > r["OPT"]:
            cases.append([outs, int(r["tel"]), int(r["OPT"]), bool(t43)])
    confirmed = contradictions = 0
    for outs, _, opt, _ in (cases if confirm is None else cases[:int(confirm)]):
        sol = certify(Instance.at_zero([s] * n, outs, M), method="ip", time_limit=float(time_limit))
        confirmed += bool(sol.proved and sol.upper == opt)
        contradictions += bool(sol.lower > opt or sol.upper < opt)
    return {"instances": count, "thm43": int(thm), "bad": len(cases), "bad_thm43": sum(c[3] for c in cases),
            "worst": max((c[1] / c[2] for c in cases), default=1.0), "cases": json.dumps(cases),
            "highs_confirmed": confirmed, "highs_contradictions": contradictions}


def sweep004_keys(M_max: int, n_max: int, o_max: int, confirm: Optional[int] = None,
                  s_values: Sequence[int] = (1, 2, 3)) -> list[dict]:
    """``n``-major (cheap first), then ``M = 2..M_max``, then ``s``; ``s < M``."""
    return [dict(M=M, s=int(s), n=n, o_max=int(o_max), confirm=confirm) for n in range(1, int(n_max) + 1)
            for M in range(2, int(M_max) + 1) for s in s_values if s < M]


def sweep004_cases(frame) -> "list[dict]":
    """The counterexamples of a ``sweep004`` table, one dict per instance (``n, M, s, outputs, mcsf, opt, thm43``)."""
    out = []
    for r in frame.itertuples():
        cases = json.loads(r.cases) if isinstance(r.cases, str) else r.cases
        out += [dict(n=int(r.n), M=int(r.M), s=int(r.s), outputs=tuple(c[0]), mcsf=c[1], opt=c[2], thm43=c[3])
                for c in cases]
    return out


# --------------------------------------------------------------------------- 004 Theorem 5.3: regret


def regret_row(*, load: float, T: int, rep: int, seed: int, M: int = 60, s_max: int = 5, o_max: int = 15) -> dict:
    """MC-SF's average latency minus the average certified volume bound on Poisson arrivals (rate ``load``
    times :func:`kvlib.theory.regret.volume_capacity`) for ``T`` rounds; the instance is drawn from
    ``default_rng([seed, T, rep, int(10 load)])`` (as :func:`kvlib.theory.regret.regret_gap`)."""
    cap = volume_capacity(int(M), int(s_max), int(o_max))
    inst = poisson_instance(np.random.default_rng([int(seed), int(T), int(rep), int(load * 10)]), load * cap, int(T),
                            int(M), int(s_max), int(o_max))
    res = simulate(inst, make_policy("mc-sf"))
    check_schedule(inst, res.schedule).raise_if_invalid()
    lb = volume_lower_bound(inst)
    return {"n": int(inst.n), "instance": instance_hash(inst), "avg mcsf": res.tel / inst.n, "avg LB": lb / inst.n,
            "gap": (res.tel - lb) / inst.n}


def regret_keys(loads: Sequence[float], horizons: Sequence[int], seeds: int, seed: int) -> list[dict]:
    """Replicate-major: every ``(T, load)`` of replicate 0 first, so a partial table covers every horizon."""
    return [dict(load=float(load), T=int(T), rep=rep, seed=int(seed)) for rep in range(int(seeds)) for T in horizons
            for load in loads]
