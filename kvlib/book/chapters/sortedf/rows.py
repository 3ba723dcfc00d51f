"""Row functions of the chapter "Sorted-F and the ratio 48" (002, Wang-Ye-Zhou) for the results store.

Each function is deterministic in its keyword arguments (every random draw is seeded from them),
returns a flat ``dict`` of scalars and never prints; :mod:`kvlib.book.store` stores one row per
key.  Every schedule is validated by the independent checker (:func:`kvlib.book.runs.run_checked`
or :func:`kvlib.policies.wyz.proof_chain`).  Column conventions: ``tel_*`` are TELs in rounds
(exact), ``*_s`` / ``*_ms`` wall times (timing), ``lower`` / ``upper`` a certified interval for OPT
(interval), ``proved`` whether the IP closed within its time limit (ignore).

* :func:`ec1_row` -- 002 Table EC.1 (Appendix EC.4.2): one instance of one distribution, six policies;
* :func:`selector_row` -- 002 Table 3 (Section 5.5): the four Phase-1 selectors at one ``(n, M)``;
* :func:`opt_row` -- 002 Theorem 3: one small instance against its certified optimum, with the
  objects of our variant of the proof chain (feasible batched schedules,
  :func:`kvlib.policies.wyz.proof_chain`; 002's own objects are :mod:`kvlib.theory.wyz_chain_paper`);
* :func:`chain_sweep_row` -- the links of our variant at the Table EC.1 size, both Phase-1 constraints;
* :func:`paper_chain_ec1_row` -- 002's own optimum-free links on a Table EC.1 instance (live, not stored);
* :func:`ec1_order_row` -- Appendix EC.4.2's observations on which requests go first (live, not stored);
* :func:`adversarial_row` -- one restart of an adversarial local search (Theorem 3 or one link);
* :func:`section7_row` -- 002 Section 7 (Figure 8) in rounds on the mixed workload.
"""

from __future__ import annotations

import json
import time

import numpy as np

from kvlib.book.rows import instance_hash
from kvlib.book.runs import run_checked
from kvlib.book.chapters.sortedf.synthetic import EC1_DISTRIBUTIONS, EC1_N, ec1_sample
from kvlib.core.model import Instance
from kvlib.policies.wyz import (F_exact, dp_argmin, lemma1_holds, phase1_selector, proof_chain, quantile_argmin,
                                scaled_dp_argmin, swap_argmin)

__all__ = ["EC1_POLICIES", "TABLE3_SELECTORS", "SECTION7_POLICIES", "ADVERSARIAL_OBJECTIVES", "ec1_row",
           "selector_row", "opt_row", "chain_sweep_row", "adversarial_row", "section7_row", "slug", "table_keys",
           "sortedf_tables", "chain_frame", "paper_chain_ec1_row",
           "ec1_order_row", "EC1_ORDER_POLICIES"]

#: Table EC.1's three policies (002's columns) and three of ours for reference: label -> (registry name, options).
EC1_POLICIES = {
    "Sorted-LP": ("sorted-lp", {}),
    "Sorted-F (Swap)": ("sorted-f", {"selector": "swap"}),
    "LP-Swap": ("lp-swap", {}),
    "Sorted-F (DP)": ("sorted-f", {"selector": "dp"}),
    "MC-SF": ("mc-sf", {}),
    "FCFS": ("fcfs", {}),
}

#: 002 Table 3's four selectors: label -> (selector name, one-selection function (s, o, M, seed) -> batch).
TABLE3_SELECTORS = {
    "exact DP (Alg. 2)": ("dp", lambda s, o, M, seed: dp_argmin(s, o, M)),
    "scaled DP (Alg. 3)": ("scaled-dp", lambda s, o, M, seed: scaled_dp_argmin(s, o, M, epsilon=0.05)),
    "swap (Alg. 4)": ("swap", lambda s, o, M, seed: swap_argmin(s, o, M)),
    "quantile (Alg. 5)": ("quantile", lambda s, o, M, seed: quantile_argmin(s, o, M, rng=np.random.default_rng(seed))),
}

#: The policies of 002 Section 7 / Figure 8 (Sorted-F with the two selectors 002 ran there).
SECTION7_POLICIES = {
    "FCFS": ("fcfs", {}),
    "MC-SF": ("mc-sf", {}),
    "Sorted-F (Swap)": ("sorted-f", {"selector": "swap"}),
    "Sorted-F (Quantile)": ("sorted-f", {"selector": "quantile"}),
    "Sorted-LP": ("sorted-lp", {}),
    "LP-Swap": ("lp-swap", {}),
}

ADVERSARIAL_OBJECTIVES = ("Sorted-F / OPT", "Optimal_align / OPT", "separate / group")


def slug(label: str) -> str:
    """Column-name form of a policy or selector label: ``"Sorted-F (Swap)"`` -> ``"sorted_f_swap"``."""
    out = "".join(c.lower() if c.isalnum() else "_" for c in label.split(" (Alg")[0])
    return "_".join(p for p in out.split("_") if p)


def _lemma1_counts(name: str, opts: dict, inst: Instance, pol) -> dict:
    """Phase-1 batches of a 002 policy and how many violate 002 Lemma 1 (0, 0 for other policies)."""
    batches = getattr(pol, "batches", None) or []
    bad = sum(not lemma1_holds(inst.output[b]) for b in batches)
    return {"batches": len(batches), "lemma1_bad": int(bad),
            "selector": phase1_selector(name, opts, inst.prompt, inst.output, inst.memory) if batches else ""}


def _timed_run(inst: Instance, name: str, opts: dict):
    t0 = time.perf_counter()
    res, pol = run_checked(inst, name, **opts)
    return res, pol, time.perf_counter() - t0


# --------------------------------------------------------------------------- Table EC.1


def ec1_row(*, distribution: str, trial: int, seed: int, lp_fallback_step: int = 20) -> dict:
    """One Table EC.1 instance: ``EC1_N[distribution]`` requests from 002's distribution, ``M = 100``.

    The instance is ``ec1_sample(distribution, default_rng([seed, 6, index, trial]), n)``; every
    policy of :data:`EC1_POLICIES` runs on it.  Should an LP policy's relaxation be infeasible on
    ``kvlib.policies.wyz_lp``'s default time grid it is rerun with ``time_step=lp_fallback_step``
    (column ``lp_step_*``: 0 for the default grid).  Columns per policy ``p``: ``tel_p``, ``s_p``
    (seconds); for the two Sorted-F columns also ``batches_p`` and ``lemma1_bad_p``.
    """
    if distribution not in EC1_DISTRIBUTIONS:
        raise ValueError(f"ec1_row: unknown distribution {distribution!r} (known: {', '.join(EC1_DISTRIBUTIONS)})")
    inst = _ec1_instance(distribution, trial, seed)
    n = int(inst.n)
    out = {"n": n, "instance": instance_hash(inst)}
    for label, (name, opts) in EC1_POLICIES.items():
        k, step = slug(label), 0
        try:
            res, pol, sec = _timed_run(inst, name, opts)
        except RuntimeError:  # an LP relaxation infeasible on the default grid
            if name not in ("sorted-lp", "lp-swap"):
                raise
            step = int(lp_fallback_step)
            res, pol, sec = _timed_run(inst, name, {**opts, "time_step": step})
        out[f"tel_{k}"] = int(res.tel)
        out[f"s_{k}"] = sec
        if name in ("sorted-lp", "lp-swap"):
            out[f"lp_step_{k}"] = step
        if name == "sorted-f":
            c = _lemma1_counts(name, opts, inst, pol)
            out[f"batches_{k}"], out[f"lemma1_bad_{k}"] = c["batches"], c["lemma1_bad"]
    return out


# --------------------------------------------------------------------------- Table 3


def selector_row(*, n: int, M: int, rep: int, seed: int, full_schedule: bool = True) -> dict:
    """002 Table 3 at one ``(n, M)``: the four selectors of :data:`TABLE3_SELECTORS` on one instance.

    The instance has ``s, o`` uniform on ``1..M//2`` (``default_rng([seed, 5, M, n, rep])``).
    Per selector ``k``: ``ms_k`` (one Phase-1 selection on all ``n`` requests, best of 3, timing),
    ``size_k``, ``sum_o_k`` and ``f_ratio_k`` = F(batch) / F(exact DP's batch) (exact), and with
    ``full_schedule`` the whole Sorted-F schedule with that selector: ``tel_k`` (exact) and
    ``sf_s_k`` (seconds, timing).
    """
    rng = np.random.default_rng([seed, 5, M, n, rep])
    s = rng.integers(1, M // 2 + 1, n)
    o = rng.integers(1, M // 2 + 1, n)
    inst = Instance.at_zero(s, o, M)
    out = {"instance": instance_hash(inst)}
    ref = None
    for label, (sel, fn) in TABLE3_SELECTORS.items():
        k = slug(label)
        best, X = float("inf"), None
        for _ in range(3):
            t0 = time.perf_counter()
            X = fn(s, o, M, seed)
            best = min(best, time.perf_counter() - t0)
        fx = F_exact(o[X])
        ref = fx if ref is None else ref
        out.update({f"ms_{k}": 1e3 * best, f"size_{k}": int(len(X)), f"sum_o_{k}": int(o[X].sum()),
                    f"f_ratio_{k}": float(fx / ref)})
        if full_schedule:
            res, _, sec = _timed_run(inst, "sorted-f", {"selector": sel, "seed": seed})
            out[f"tel_{k}"], out[f"sf_s_{k}"] = int(res.tel), sec
    return out


# --------------------------------------------------------------------------- Theorem 3


def _small_instance(seed: int, stream: int, index: int) -> Instance:
    from kvlib.theory.search import random_at_zero_instance

    return random_at_zero_instance(np.random.default_rng([seed, stream, index]))


def _opt_interval(inst: Instance, time_limit: float):
    from kvlib.optimum.certify import certify

    t0 = time.perf_counter()
    c = certify(inst, method="ip", time_limit=time_limit)
    return c, time.perf_counter() - t0


def opt_row(*, trial: int, seed: int, time_limit: float) -> dict:
    """002 Theorem 3 on one small instance (``random_at_zero_instance(default_rng([seed, 2, trial]))``).

    ``lower``/``upper``: the IP's certified interval for OPT (``proved`` when they meet within
    ``time_limit``); ``tel_sorted_f`` (auto selector = the exact argmin at these sizes, peak
    constraint), ``tel_sorted_f_lookahead``, ``tel_mc_sf``; the objects of our variant of the proof
    chain (``separate``, which is 002's Sorted-F_separate, and our ``group``, ``align``,
    ``Optimal_align``, which are feasible batched schedules unlike 002's objects of the same names,
    see :mod:`kvlib.policies.wyz`: exact TELs, each schedule checked); the instance (``M``, ``s``, ``o`` as JSON lists, and its hash); Lemma 1 counts.
    """
    inst = _small_instance(seed, 2, trial)
    c, sec = _opt_interval(inst, time_limit)
    sf, pol, _ = _timed_run(inst, "sorted-f", {})
    sfl, _, _ = _timed_run(inst, "sorted-f", {"phase1_constraint": "lookahead"})
    mc, _, _ = _timed_run(inst, "mc-sf", {})
    chain = proof_chain(inst, pol.batches, sf.tel, None)
    lem = _lemma1_counts("sorted-f", {}, inst, pol)
    upper = min(int(x) for x in (c.upper, sf.tel) if x is not None)  # Sorted-F is feasible: OPT <= its TEL
    lower = int(c.lower) if c.lower is not None else 0
    return {"n": int(inst.n), "M": int(inst.memory), "s": json.dumps(inst.prompt.tolist()),
            "o": json.dumps(inst.output.tolist()), "instance": instance_hash(inst),
            "lower": lower, "upper": upper, "proved": bool(c.proved), "opt_s": sec,
            "tel_sorted_f": int(sf.tel), "tel_sorted_f_lookahead": int(sfl.tel), "tel_mc_sf": int(mc.tel),
            "separate": chain["separate"], "group": chain["group"], "align": chain["align"],
            "Optimal_align": chain["Optimal_align"], "batches": lem["batches"], "lemma1_bad": lem["lemma1_bad"]}


def chain_sweep_row(*, trial: int, seed: int, n: int, M: int = 100) -> dict:
    """The links of our variant of the proof chain (without Optimal_align) on one Uniform instance
    of the Table EC.1 size.

    ``s, o`` uniform on ``1..50`` (``default_rng([seed, 4, trial])``), memory ``M``; Sorted-F (auto
    selector) under both Phase-1 constraints; per constraint ``c``: ``tel_c``, ``separate_c``,
    ``group_c``, ``align_c`` (exact TELs, every schedule checked), ``batches_c``, ``lemma1_bad_c``
    and ``selector_c`` (the selector ``auto`` resolved to).
    """
    rng = np.random.default_rng([seed, 4, trial])
    inst = Instance.at_zero(rng.integers(1, 51, n), rng.integers(1, 51, n), M)
    out = {"instance": instance_hash(inst)}
    for cons in ("peak", "lookahead"):
        opts = {"phase1_constraint": cons}
        res, pol, sec = _timed_run(inst, "sorted-f", opts)
        c = proof_chain(inst, pol.batches, res.tel, None, with_optimal_align=False)
        lem = _lemma1_counts("sorted-f", opts, inst, pol)
        out.update({f"tel_{cons}": int(res.tel), f"separate_{cons}": c["separate"], f"group_{cons}": c["group"],
                    f"align_{cons}": c["align"], f"batches_{cons}": lem["batches"],
                    f"lemma1_bad_{cons}": lem["lemma1_bad"], f"selector_{cons}": lem["selector"], f"s_{cons}": sec})
    return out


def adversarial_row(*, objective: str, restart: int, steps: int, seed: int, time_limit: float) -> dict:
    """One restart of the adversarial local search on ``objective`` (one of :data:`ADVERSARIAL_OBJECTIVES`).

    Starts from ``random_at_zero_instance(default_rng([seed, 3, restart]))`` and makes ``steps``
    moves of :func:`kvlib.theory.search.hill_climb` over :func:`variable_prompt_space` (2..8
    requests), keeping a move when the objective does not decrease; OPT is certified by the IP
    at every step (a step whose IP is not closed within ``time_limit`` is rejected and counted
    in ``unclosed``; ``separate / group`` needs no optimum).  Returns the best value and instance
    and, over every instance visited, the largest value of each link of our variant of the proof chain
    (``max_<link>``) and of TEL(Sorted-F) / OPT.  The search path can depend on the solver's
    time limit, so these columns are stored as ``ignore``; ``start`` (the start instance's hash) is exact.
    """
    from kvlib.theory.search import hill_climb, variable_prompt_space
    from kvlib.policies.wyz import CHAIN_LINKS

    if objective not in ADVERSARIAL_OBJECTIVES:
        raise ValueError(f"adversarial_row: unknown objective {objective!r} (known: {ADVERSARIAL_OBJECTIVES})")
    needs_opt = objective != "separate / group"
    start = _small_instance(seed, 3, restart)
    seen: dict = {}
    unclosed = 0

    def value(inst: Instance):
        nonlocal unclosed
        opt = None
        if needs_opt:
            c, _ = _opt_interval(inst, time_limit)
            if not c.proved:
                unclosed += 1
                return None
            opt = c.opt
        res, pol, _ = _timed_run(inst, "sorted-f", {})
        row = proof_chain(inst, pol.batches, res.tel, opt, with_optimal_align=needs_opt)
        seen[instance_hash(inst)] = row
        if objective == "Sorted-F / OPT":
            return row["Sorted-F"] / row["OPT"]
        if objective == "Optimal_align / OPT":
            return row["Optimal_align"] / row["OPT"]
        return row["separate"] / row["group"]

    found = hill_climb(value, variable_prompt_space(n_max=8), np.random.default_rng([seed, 3, restart, 1]),
                       start=start, steps=steps)
    best = found.best
    best_row = seen.get(instance_hash(best), {})  # empty only if no instance could be evaluated
    out = {"start": instance_hash(start), "best_value": float(found.value) if found.value is not None else float("nan"),
           "best_M": int(best.memory), "best_s": json.dumps(best.prompt.tolist()),
           "best_o": json.dumps(best.output.tolist()), "visited": len(seen), "unclosed": unclosed,
           "best_tel_sorted_f": int(best_row.get("Sorted-F", -1)), "best_opt": int(best_row.get("OPT", -1))}
    rows = list(seen.values())
    for label, num, den, _ in CHAIN_LINKS:
        vals = [r[num] / r[den] for r in rows if num in r and den in r]
        out["max_" + slug(label.split(":")[0])] = float(max(vals)) if vals else float("nan")
    vals = [r["Sorted-F"] / r["OPT"] for r in rows if "OPT" in r]
    out["max_sf_opt"] = float(max(vals)) if vals else float("nan")
    return out


def _ec1_instance(distribution: str, trial: int, seed: int) -> Instance:
    """The instance of :func:`ec1_row` (``ec1_sample(distribution, default_rng([seed, 6, index, trial]), n)``)."""
    if distribution not in EC1_DISTRIBUTIONS:
        raise ValueError(f"unknown distribution {distribution!r} (known: {', '.join(EC1_DISTRIBUTIONS)})")
    n = EC1_N[distribution]
    s, o = ec1_sample(distribution, np.random.default_rng([seed, 6, EC1_DISTRIBUTIONS.index(distribution), trial]), n)
    return Instance.at_zero(s, o, 100)


def paper_chain_ec1_row(*, seed: int, trial: int, distribution: str) -> dict:
    """The optimum-free links of 002 Theorem 3's proof with 002's own objects
    (:func:`kvlib.theory.wyz_chain_paper.sorted_f_side`: Theorems 4-6, Lemmas 1-2, Definition 1,
    Inequality (2)) on the instance of :func:`ec1_row` (002's ``n``, ``M = 100``).  Deterministic;
    computed live by the chapter, not a stored table (under a second per instance)."""
    from kvlib.theory.wyz_chain_paper import sorted_f_side

    row = sorted_f_side(_ec1_instance(distribution, trial, seed))
    return {"distribution": distribution, "trial": trial, **row}


#: The policies whose start order 002 Appendix EC.4.2's "Key Observations" describe.
EC1_ORDER_POLICIES = ("Sorted-LP", "LP-Swap", "Sorted-F (Swap)")


def ec1_order_row(*, seed: int, trial: int, distribution: str, lp_fallback_step: int = 20) -> dict:
    """002 Appendix EC.4.2's observations 1-2 on the instance of :func:`ec1_row`: which requests each of
    :data:`EC1_ORDER_POLICIES` starts first.  Per policy ``p``: ``rho_o_p`` and ``rho_s_p``, the Spearman
    rank correlations of the start times with ``o`` and with ``s`` (ties averaged; positive = short
    first), and ``early_s_p``, the mean ``s`` of the first quarter of the requests by start time over
    the mean ``s`` of all.  Deterministic (the LP fallback as in :func:`ec1_row`); computed live."""
    import pandas as pd

    inst = _ec1_instance(distribution, trial, seed)
    s = pd.Series(inst.prompt.astype(float))
    o = pd.Series(inst.output.astype(float))
    out = {"distribution": distribution, "trial": trial, "n": int(inst.n)}
    for label in EC1_ORDER_POLICIES:
        name, opts = EC1_POLICIES[label]
        try:
            res, _ = run_checked(inst, name, **opts)
        except RuntimeError:  # an LP relaxation infeasible on the default grid
            res, _ = run_checked(inst, name, **{**opts, "time_step": int(lp_fallback_step)})
        p = pd.Series(np.asarray(res.schedule.starts, dtype=float))
        k = slug(label)
        out[f"rho_o_{k}"] = float(p.rank().corr(o.rank()))
        out[f"rho_s_{k}"] = float(p.rank().corr(s.rank()))
        first = np.argsort(p.to_numpy(), kind="stable")[: max(1, inst.n // 4)]
        out[f"early_s_{k}"] = float(s.iloc[first].mean() / s.mean())
    return out


# --------------------------------------------------------------------------- Section 7


def section7_row(*, n: int, seed: int) -> dict:
    """002 Section 7 (Figure 8) at ``n`` requests, in rounds of the discrete model.

    The workload is :func:`kvlib.serving.workloads.mixed_002` as built by
    :func:`kvlib.serving.experiments.build_workload` (80% LMSYS-like, 20% arXiv: the real trace
    when the shared data directory is found by
    :func:`kvlib.serving.workloads.default_shared_dir`, else the labelled stand-in; column ``workload``),
    all at ``t = 0``, ``M = 16,492`` tokens (002 Section 7).  Per policy ``p`` of
    :data:`SECTION7_POLICIES`: ``avg_p`` = TEL / n in rounds (exact) and ``s_p`` = wall seconds of
    the whole run (planning included; timing).
    """
    from kvlib.serving.experiments import build_workload
    from kvlib.serving.realtime import PAPER_MEMORY
    from kvlib.serving.workloads import default_shared_dir

    w = build_workload({"workload": "mixed002", "n": n, "seed": seed, "shared_dir": default_shared_dir()})
    inst = Instance.at_zero(w.prompt, w.output, int(PAPER_MEMORY))
    out = {"workload": w.label, "instance": instance_hash(inst), "M": int(PAPER_MEMORY)}
    for label, (name, opts) in SECTION7_POLICIES.items():
        res, _, sec = _timed_run(inst, name, opts)
        out[f"avg_{slug(label)}"] = res.tel / n
        out[f"s_{slug(label)}"] = sec
    return out


# --------------------------------------------------------------------------- the chapter's tables


def table_keys(*, seed: int, opt_trials: int, time_limit: float, chain_trials: int, n: int, adv_restarts: int,
               adv_steps: int, chain_steps: int, sel_ns, sel_Ms, sel_reps: int, ec1_trials: int, s7_sizes,
               s7_seeds: int, lp_fallback_step: int) -> dict[str, list[dict]]:
    """The key list of every stored table of the chapter, ordered so that a partial table is a fair
    sample: trial-major (every distribution / objective / constraint before the next trial) and, for
    Table 3 and Section 7, the small sizes first."""
    tl = float(time_limit)
    return {
        "theorem3": [dict(trial=t, seed=seed, time_limit=tl) for t in range(opt_trials)],
        "chain_sweep": [dict(trial=t, seed=seed, n=n) for t in range(chain_trials)],
        "section7": [dict(n=k, seed=seed + r) for k in s7_sizes for r in range(s7_seeds)],
        "table3": [dict(n=k, M=M, rep=r, seed=seed) for k in sel_ns for M in sel_Ms for r in range(sel_reps)],
        "ec1": [dict(distribution=d, trial=t, seed=seed, lp_fallback_step=lp_fallback_step)
                for t in range(ec1_trials) for d in EC1_DISTRIBUTIONS],
        "adversarial": [dict(objective=obj, restart=r, seed=seed, time_limit=tl,
                             steps={"Sorted-F / OPT": adv_steps, "separate / group": 4 * chain_steps}.get(obj, chain_steps))
                        for r in range(adv_restarts) for obj in ADVERSARIAL_OBJECTIVES],
    }


#: row function and column classes of each table (everything not named is exact).
TABLE_SPECS = {
    "theorem3": (opt_row, dict(interval=[("lower", "upper")], timing=["opt_s"], ignore=["proved"])),
    "chain_sweep": (chain_sweep_row, dict(timing=["s_peak", "s_lookahead"])),
    "section7": (section7_row, dict(timing=[f"s_{slug(p)}" for p in SECTION7_POLICIES])),
    "table3": (selector_row, dict(timing=[f"{c}_{slug(s)}" for s in TABLE3_SELECTORS for c in ("ms", "sf_s")])),
    "ec1": (ec1_row, dict(timing=[f"s_{slug(p)}" for p in EC1_POLICIES])),
    "adversarial": (adversarial_row, dict(ignore=["best_value", "best_M", "best_s", "best_o", "visited", "unclosed",
                                                  "best_tel_sorted_f", "best_opt", "max_sf_opt"]
                                          + ["max_" + k for k in ("thm_4", "thm_5", "thm_6", "bridge", "thm_7")])),
}


def sortedf_tables(store, keys: dict[str, list[dict]]) -> dict:
    """``store.table`` for every table of :data:`TABLE_SPECS` (in that order: the expensive adversarial
    searches last), with the keys of :func:`table_keys`; returns ``{name: Table}``."""
    return {name: store.table(name, fn, keys[name], **classes) for name, (fn, classes) in TABLE_SPECS.items()}


def chain_frame(theorem3):
    """The proved rows of the ``theorem3`` frame in the columns of :func:`kvlib.theory.chain48.link_table`
    (``Sorted-F``, ``separate``, ``group``, ``align``, ``Optimal_align``, ``OPT``, ``M``, ``s``, ``o`` as lists)."""
    df = theorem3[theorem3["proved"].astype(bool)].copy()
    df = df.rename(columns={"tel_sorted_f": "Sorted-F"}).assign(OPT=df["upper"])
    for c in ("s", "o"):
        df[c] = [json.loads(v) if isinstance(v, str) else list(v) for v in df[c]]
    return df.reset_index(drop=True)
