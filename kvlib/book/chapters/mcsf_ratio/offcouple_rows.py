"""Row functions and key lists of the chapter "MC-SF's constant ratio" for 004 Section 5 (Theorem 5.3).

``coupling``  one row per (regime, T, replicate): every term of 004's regret proof on one instance drawn
    under Theorem 5.3's assumptions (:func:`kvlib.theory.offcouple.coupling_trace`); exact (branch and
    bound, no time limit).
``regret_opt``  one row per (regime, T, replicate): MC-SF's TEL and the hindsight optimum certified by
    :func:`kvlib.optimum.certify.certify` (IP under a time limit, MC-SF as incumbent); interval
    ``(opt_lower, opt_upper)``, ignore ``proved``, timing ``seconds``.

Regimes (:data:`REGIMES`): ``M = 6``, ``s = 1``, ``o ~ U{1..4}``, Bernoulli(p) arrivals per round (bounded
support ``[0, 1]``); ``stable`` has ``p = 0.4`` (load factor 0.5), ``overloaded`` ``p = 0.95`` (1.19).
Instance of a key: :func:`kvlib.theory.offcouple.stochastic_instance` with
``default_rng([seed, T, rep, int(100 p)])``.
"""

from __future__ import annotations

import time
from typing import Sequence

import numpy as np

from kvlib.book.rows import instance_hash
from kvlib.optimum.certify import certify
from kvlib.theory.offcouple import coupling_trace, load_factor, mcsf_starts, stochastic_instance

__all__ = ["REGIMES", "regime_instance", "coupling_row", "coupling_keys", "regret_opt_row", "regret_opt_keys",
           "REGRET_OPT_COLUMNS"]

#: the two arrival regimes of the section (004 Section 5: stable and overloaded)
REGIMES = {"stable": dict(M=6, s=1, B=1, p=0.4, o_max=4), "overloaded": dict(M=6, s=1, B=1, p=0.95, o_max=4)}
REGRET_OPT_COLUMNS = dict(interval=[("opt_lower", "opt_upper")], ignore=["proved"], timing=["seconds"])


def regime_instance(regime: str, T: int, rep: int, seed: int):
    if regime not in REGIMES:
        raise ValueError(f"unknown regime {regime!r}; choose one of {sorted(REGIMES)}")
    r = REGIMES[regime]
    return stochastic_instance(np.random.default_rng([int(seed), int(T), int(rep), int(round(100 * r["p"]))]),
                               int(T), **r)


def coupling_row(*, regime: str, T: int, rep: int, seed: int) -> dict:
    """Summary of :func:`kvlib.theory.offcouple.coupling_trace` on one instance (counts over decision times)."""
    inst = regime_instance(regime, T, rep, seed)
    tr = coupling_trace(inst, node_limit=3_000_000)
    rows = tr["rows"]
    fails = {f"fail_{k}": sum(not r[k] for r in rows) for k in
             ("lemma54_i", "lemma54_ii", "lemma54_iii", "same_state", "eq7")}
    fails["fail_bound"] = sum(r["lemma54_i"] and not r["bound"] for r in rows)  # only where OC is feasible
    return {"n": inst.n, "instance": instance_hash(inst), "load": load_factor(**{k: REGIMES[regime][k] for k in
                                                                                 ("M", "s", "B", "p", "o_max")}),
            "mcsf": tr["mcsf"], "opt": tr["opt"], "cp_sum": tr["cp_sum"],
            "identity": tr["cp_sum"] == tr["mcsf"] - tr["opt"], "times": len(rows),
            "differ": sum(r["differ"] for r in rows), "cp_pos": sum(r["CP"] > 0 for r in rows),
            "max_span": max(r["span"] for r in rows), "max_span_differ": max([r["span"] for r in rows if r["differ"]],
                                                                               default=0),
            "leftovers": sum(r["leftovers"] for r in rows), **fails}


def coupling_keys(horizons: dict, reps: int, seed: int) -> list[dict]:
    """Replicate-major; ``horizons``: ``{regime: [T, ...]}``."""
    return [dict(regime=g, T=int(T), rep=r, seed=int(seed)) for r in range(int(reps)) for g, Ts in horizons.items()
            for T in Ts]


def regret_opt_row(*, regime: str, T: int, rep: int, seed: int, time_limit: float) -> dict:
    """MC-SF's TEL and a certified interval for the hindsight optimum (IP, MC-SF's schedule as incumbent)."""
    inst = regime_instance(regime, T, rep, seed)
    tel, on = mcsf_starts(inst)
    tic = time.perf_counter()
    c = certify(inst, method="ip", time_limit=float(time_limit), incumbent=on)
    return {"n": inst.n, "instance": instance_hash(inst), "mcsf": tel, "opt_lower": int(c.lower),
            "opt_upper": int(c.upper), "proved": bool(c.proved), "seconds": time.perf_counter() - tic}


def regret_opt_keys(horizons: Sequence[int], regimes: Sequence[str], reps: int, seed: int,
                    time_limit: float) -> list[dict]:
    return [dict(regime=g, T=int(T), rep=r, seed=int(seed), time_limit=float(time_limit)) for r in range(int(reps))
            for T in horizons for g in regimes]
