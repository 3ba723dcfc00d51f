"""One trial of 001 Section 5.1 (Jaillet et al.): MC-SF against the hindsight optimum.

Both functions are *row functions* of the results store (:mod:`kvlib.book.store`): keyword
arguments only, deterministic in them, one flat ``dict`` of output columns.  Both draw the
instance by :func:`kvlib.core.instances.section51` from
``numpy.random.default_rng([seed, model, trial])`` (``model`` is the arrival model, 1 or 2), so
trial ``trial`` of either function sees the same instance when the ranges agree:

* :func:`certified_trial` simulates MC-SF, solves the time-indexed IP with
  :func:`kvlib.optimum.exact.solve` and returns the certified interval ``[lower, upper]`` of OPT,
  so that ``MC-SF / upper <= MC-SF / OPT <= MC-SF / lower``;
* :func:`certified_small_trial` is :func:`certified_trial` at a fixed small size (``n`` requests at
  ``t = 0`` for Arrival Model 1, horizon ``T = n`` for Arrival Model 2), where the solve usually
  *proves* OPT, so that MC-SF / OPT is exact and "MC-SF is optimal" is a certified yes or no;
* :func:`best_policy_trial` needs no solver: the smallest TEL among a few look-ahead policies is
  an upper bound on OPT, so ``MC-SF / best`` is a certified *lower* end of ``MC-SF / OPT``.

Every schedule is re-checked by the independent checker; a rejected schedule raises
``AssertionError`` naming the policy and trial.

Column classes for the store: in :func:`certified_trial` the instance hash, ``n``, ``M``, the
policy TELs (``mcsf``, ``heuristic``) and ``volume_lb`` are exact; ``(lower, upper)`` is an
interval (it depends on the solver's time limit and on the machine's speed); ``optimal``,
``status``, ``gap``, ``source`` and ``separation_lb`` (its cutting-plane loop is time-bounded)
depend on the machine's speed too; ``seconds`` and ``trial_seconds`` are wall times.  Every
column of :func:`best_policy_trial` is exact.
"""

from __future__ import annotations

import time

import numpy as np

from kvlib.book.rows import instance_hash
from kvlib.book.section51_trials import trial_instance
from kvlib.core.checker import check_schedule
from kvlib.core.model import Schedule
from kvlib.core.simulate import simulate
from kvlib.optimum.exact import solve
from kvlib.optimum.heuristic import heuristic_incumbent
from kvlib.policies import make_policy

__all__ = ["certified_trial", "best_policy_trial", "certified_small_trial", "certified_small_keys", "SCAN_POLICIES",
           "SMALL_SIZES", "SMALL_TABLE_OPTIONS", "tiebreak_trial", "match_count_test", "match_share_upper"]

#: The look-ahead policies whose best TEL bounds OPT from above in :func:`best_policy_trial`.
SCAN_POLICIES = ("mc-sf", "mc-sf2", "mc-benchmark", "mc-benchmark-scan")  # fcfs = mc-benchmark (001 Alg. 2)


def certified_trial(*, model: int, trial: int, seed: int, n_range, horizon_range, time_limit: float,
                    threads: int = 2) -> dict:
    """MC-SF's TEL and the certified interval of OPT on trial ``trial`` of arrival model ``model``.

    ``n_range`` (Arrival Model 1) and ``horizon_range`` (Arrival Model 2) are ``(low, high)``
    pairs passed to :func:`kvlib.core.instances.section51`; ``time_limit`` (seconds) and
    ``threads`` go to :func:`kvlib.optimum.exact.solve`.  Returns ``instance`` (hash, see
    :func:`kvlib.book.rows.instance_hash`), ``n``, ``M``, ``mcsf`` (MC-SF's TEL), ``heuristic``
    (best TEL of :func:`kvlib.optimum.heuristic.heuristic_incumbent`, computed before and
    without a time budget so that it does not depend on the machine's speed, and handed to the
    solver as its incumbent, so ``upper <= heuristic``), ``volume_lb`` (solver-free bound),
    ``lower`` and ``upper`` (OPT lies in ``[lower, upper]``), ``separation_lb``, ``optimal``
    (proved), ``status``, ``gap`` (``(upper - lower) / upper``), ``source`` (of the best
    schedule), ``starts`` (the best schedule's start times, one integer per request separated by spaces,
    so that the upper end can be re-checked without the solve), ``seconds`` (the solve) and
    ``trial_seconds`` (the whole row).
    """
    t0 = time.perf_counter()
    inst = trial_instance(model, trial, seed, n_range, horizon_range)
    mc = simulate(inst, make_policy("mc-sf"), seed=0)
    if not check_schedule(inst, mc.schedule).valid:
        raise AssertionError(f"MC-SF schedule rejected by the checker on AM{model} trial {trial}")
    inc = heuristic_incumbent(inst)
    r = solve(inst, time_limit=time_limit, threads=threads, incumbent=inc)
    if check_schedule(inst, Schedule(r.starts)).tel != r.upper:
        raise AssertionError(f"solver schedule on AM{model} trial {trial} does not have the reported TEL {r.upper}")
    return dict(instance=instance_hash(inst), n=int(inst.n), M=int(inst.memory), mcsf=int(mc.tel),
                heuristic=int(inc[1]), volume_lb=int(r.extra["volume_lb"]), lower=int(r.lower),
                upper=int(r.upper), separation_lb=int(r.extra["separation_lb"]), optimal=bool(r.optimal),
                status=str(r.status), gap=float(r.gap), source=str(r.incumbent_source),
                starts=" ".join(str(int(x)) for x in r.starts), seconds=float(r.seconds),
                trial_seconds=time.perf_counter() - t0)


def best_policy_trial(*, model: int, trial: int, seed: int, policies=SCAN_POLICIES) -> dict:
    """Solver-free certified lower end of MC-SF / OPT on trial ``trial`` (paper-scale ranges of 001).

    ``policies`` must include ``"mc-sf"``.  Returns ``instance`` (hash), ``n``, ``M``, the TEL of
    every policy (one column per policy, named by the policy), ``best`` (smallest TEL; ties favour
    MC-SF, then the earlier entry of ``policies``), ``best policy`` and ``ratio lower end =
    mc-sf / best``.
    """
    if "mc-sf" not in policies:
        raise ValueError(f"policies must include 'mc-sf', got {policies!r}")
    inst = trial_instance(model, trial, seed)
    tels = {}
    for name in policies:
        r = simulate(inst, make_policy(name), seed=0)
        if not check_schedule(inst, r.schedule).valid:
            raise AssertionError(f"{name} schedule rejected by the checker on AM{model} trial {trial}")
        tels[name] = int(r.tel)
    best_name = min(tels, key=lambda k_: (tels[k_], k_ != "mc-sf"))
    return {"instance": instance_hash(inst), "n": int(inst.n), "M": int(inst.memory), **tels,
            "best": tels[best_name], "best policy": best_name,
            "ratio lower end": tels["mc-sf"] / tels[best_name]}


#: the sizes of :func:`certified_small_keys` (full mode): AM1 ``n`` / AM2 horizon ``T``, and trials per size
SMALL_SIZES = {8: 15, 10: 15, 12: 15, 15: 10}


def certified_small_trial(*, model: int, trial: int, seed: int, size: int, time_limit: float,
                          threads: int = 1) -> dict:
    """:func:`certified_trial` on a small instance of 001 Section 5.1's distributions.

    ``size`` fixes the range that 001 draws at random: Arrival Model 1 has exactly ``size``
    requests (``n_range = (size, size)``), Arrival Model 2 a horizon of exactly ``size`` rounds
    (``horizon_range = (size, size)``, so ``n`` is random, Poisson with mean ``lambda * size``).
    ``M``, ``s_i``, ``o_i`` and ``lambda`` follow 001 Section 5.1 unchanged (``M ~ U[30, 50]``).
    The instance of ``(model, trial, seed)`` has the same ``M`` as the paper-scale trial of the
    same key (``M`` is drawn first).  Returns the columns of :func:`certified_trial` plus
    ``ratio_lo = mcsf / upper`` and ``ratio_hi = mcsf / lower`` (MC-SF / OPT lies in
    ``[ratio_lo, ratio_hi]``; one value when ``optimal``) and ``mcsf_optimal``: ``"yes"`` when
    ``mcsf == lower`` (MC-SF proved optimal), ``"no"`` when ``mcsf > upper`` (a schedule with
    smaller TEL was found, so MC-SF is certified not optimal), ``"open"`` otherwise.
    """
    if int(size) < 1:
        raise ValueError(f"size must be a positive integer, got {size!r}")
    size = int(size)
    row = certified_trial(model=model, trial=trial, seed=seed, n_range=(size, size), horizon_range=(size, size),
                          time_limit=time_limit, threads=threads)
    mc, lo, hi = row["mcsf"], row["lower"], row["upper"]
    verdict = "yes" if mc == lo else ("no" if mc > hi else "open")
    return dict(**row, ratio_lo=mc / hi, ratio_hi=mc / lo, mcsf_optimal=verdict)


def certified_small_keys(*, seed: int, sizes: dict | None = None, time_limit: float = 60.0,
                         threads: int = 1) -> list[dict]:
    """Keys of :func:`certified_small_trial`: for each ``size -> trials`` of ``sizes`` (default
    :data:`SMALL_SIZES`), trials ``0 .. trials - 1`` of both arrival models."""
    sizes = SMALL_SIZES if sizes is None else sizes
    return [dict(model=model, trial=k, seed=int(seed), size=int(size), time_limit=float(time_limit),
                 threads=int(threads))
            for size, count in sizes.items() for k in range(int(count)) for model in (1, 2)]


#: how :func:`certified_small_trial`'s columns are compared when a stored row is recomputed
SMALL_TABLE_OPTIONS = dict(interval=[("lower", "upper"), ("ratio_lo", "ratio_hi")],
                           timing=["seconds", "trial_seconds"],
                           ignore=["optimal", "status", "gap", "source", "separation_lb", "mcsf_optimal", "starts"])


def tiebreak_trial(*, trial: int, seed: int, draws: int = 5) -> dict:
    """MC-SF under every tie-break reading against the best schedule found, one paper-scale AM1 trial.

    001 Algorithm 1 sorts the waiting requests by ``o_i`` and does not say how equal ``o_i`` are
    ordered; with ``n = 40``-``60`` requests on ``o_i <= 49`` values, ties are frequent.  Each
    order of the ties is a faithful reading of the algorithm.  This row takes the instance of
    trial ``trial`` of Arrival Model 1 (the instance of :func:`best_policy_trial` with the same
    key) and simulates MC-SF with ties broken by index (``mcsf``, our default) and by ``draws``
    seeded random permutations (``mcsf_r0`` ...), plus the other policies of
    :data:`SCAN_POLICIES`.  Every schedule is accepted by the checker, so the smallest TEL,
    ``best``, is an upper bound on OPT, and a reading whose TEL exceeds ``best`` is certified not
    optimal on this instance.  Returns ``instance``, ``n``, ``M``, ``ties`` (requests that share
    their ``o_i`` with another), ``mcsf``, ``mcsf_r0`` ... ``mcsf_r{draws-1}``, ``best``,
    ``best policy``, ``readings_optimal_possible`` (how many of the ``1 + draws`` readings reach
    ``best``; only those can be optimal).  Every column is exact.
    """
    if int(draws) < 0:
        raise ValueError(f"draws must be >= 0, got {draws!r}")
    inst = trial_instance(1, trial, seed)
    tels: dict[str, int] = {}
    runs = [("mcsf", "mc-sf", {}, 0)] + [(f"mcsf_r{d}", "mc-sf", {"tie_break": "random"}, d) for d in range(int(draws))]
    runs += [(p, p, {}, 0) for p in SCAN_POLICIES if p != "mc-sf"]
    for col, name, opts, sim_seed in runs:
        r = simulate(inst, make_policy(name, **opts), seed=sim_seed)
        if not check_schedule(inst, r.schedule).valid:
            raise AssertionError(f"{col} schedule rejected by the checker on AM1 trial {trial}")
        tels[col] = int(r.tel)
    best_name = min(tels, key=lambda c: (tels[c], c != "mcsf"))
    _, counts = np.unique(inst.output, return_counts=True)
    readings = ["mcsf"] + [f"mcsf_r{d}" for d in range(int(draws))]
    return {"instance": instance_hash(inst), "n": int(inst.n), "M": int(inst.memory),
            "ties": int(counts[counts > 1].sum()), **tels, "best": tels[best_name], "best policy": best_name,
            "readings_optimal_possible": int(sum(tels[c] == tels[best_name] for c in readings))}


def match_count_test(paper_matches: int, paper_trials: int, our_matches: int, our_trials: int) -> float:
    """One-sided Fisher exact p-value that the paper's match share is no larger than ours.

    Both samples are iid trials of the same distribution (001 Section 5.1), so under the
    hypothesis that the paper's and our trials measure the same probability of "MC-SF = OPT", the
    2x2 table ``[[paper_matches, paper misses], [our_matches, our misses]]`` is hypergeometric.
    Returns ``P(paper matches >= paper_matches)`` under that hypothesis.  ``our_matches`` may be
    an upper bound on our true matches (e.g. trials in which MC-SF equals the best schedule
    found): the p-value grows with ``our_matches``, so a bound gives a p-value at least as large
    as the true one (the test stays valid, only more conservative).
    """
    from scipy.stats import fisher_exact

    for name, v, tot in (("paper_matches", paper_matches, paper_trials), ("our_matches", our_matches, our_trials)):
        if not 0 <= int(v) <= int(tot):
            raise ValueError(f"{name} = {v} must be between 0 and its trials {tot}")
    table = [[int(paper_matches), int(paper_trials) - int(paper_matches)],
             [int(our_matches), int(our_trials) - int(our_matches)]]
    return float(fisher_exact(table, alternative="greater").pvalue)


def match_share_upper(matches: int, trials: int, level: float = 0.999) -> float:
    """Clopper-Pearson one-sided upper confidence bound (``level``) on a match probability."""
    from scipy.stats import beta

    if not 0 <= int(matches) <= int(trials) or int(trials) < 1:
        raise ValueError(f"need 0 <= matches <= trials and trials >= 1, got {matches}, {trials}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level}")
    if matches == trials:
        return 1.0
    return float(beta.ppf(level, int(matches) + 1, int(trials) - int(matches)))
