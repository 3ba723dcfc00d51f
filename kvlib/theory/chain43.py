"""001 Theorem 4.3's proof chain measured on one instance (the chapter "MC-SF's constant ratio").

:func:`random_theorem43_instance` draws an instance meeting the theorem's assumptions
(:func:`kvlib.theory.ratio.theorem43_assumptions`: all at ``t = 0``, one prompt size ``s``,
``M >= 2 max(s + o)``); :func:`chain_row` evaluates on one instance every quantity of the chain
that :mod:`kvlib.theory.ratio` defines -- MC-SF's TEL (simulated, checked by
:func:`kvlib.core.checker.check_schedule`), 001 Lemma 4.4's bound (the paper's), and our variants: the
lower bounds ``max(X / (2M), Y)`` and the order-statistic bound, LP (9) with a release constraint by
greedy and by cvxpy, whether its mean slots ``t*_o`` are non-decreasing, our upper bound on them, and the
constant our per-group span needs -- plus a certified optimum when given.  001's own objects (groups,
Lemma 4.5, LP (9) as printed, Claim 4.8, Lemma 4.7) are in :mod:`kvlib.theory.thm43_paper`.
"""

from __future__ import annotations

import numpy as np

from kvlib.core.checker import check_schedule
from kvlib.core.model import Instance
from kvlib.core.simulate import simulate
from kvlib.policies import make_policy
from kvlib.theory.ratio import (claim48_upper, group_spans, lemma44_bound, lemma47_bound, lp9_cvxpy, lp9_greedy,
                                order_statistic_bound)


def random_theorem43_instance(rng: np.random.Generator, n_max: int) -> Instance:
    """``s ~ U{1..3}``, ``M ~ U{2(s+1)+2 .. 40}``, ``n ~ U{2..n_max}``, ``o_i ~ U{1 .. floor(M/2) - s}``, all at 0.

    Every draw meets ``M >= 2 max(s + o)``.  ``n_max >= 2``; draws come from ``rng`` only.
    """
    if n_max < 2:
        raise ValueError(f"random_theorem43_instance: n_max must be >= 2, got {n_max}")
    s = int(rng.integers(1, 4))
    M = int(rng.integers(2 * (s + 1) + 2, 41))
    n = int(rng.integers(2, n_max + 1))
    o = rng.integers(1, M // 2 - s + 1, size=n)
    return Instance.at_zero([s] * n, o.tolist(), M)


def chain_row(instance: Instance, certified=None, *, with_lp: bool = True) -> dict:
    """The Theorem 4.3 chain quantities of one equal-prompt, all-at-zero instance, as one table row.

    Keys: ``n, M, s, mcsf`` (MC-SF's TEL), ``L44`` (001 Lemma 4.4's bound), ``L47`` (our
    ``max(X / (2M), Y)``), ``OS`` (our order-statistic bound), ``LPgreedy`` and, if ``with_lp``,
    ``LPcvxpy`` (our LP); ``tstar_sorted_greedy`` / ``tstar_sorted_cvxpy`` (mean slots ``t*_o``
    non-decreasing), ``claim48`` (``o <= t*_o <=`` our upper bound, :func:`kvlib.theory.ratio.claim48_upper`),
    ``L45_need`` (largest span constant of :func:`kvlib.theory.ratio.group_spans`).  With
    ``certified`` (a :class:`kvlib.optimum.certify.Certified` or :class:`kvlib.optimum.exact.SolveResult`)
    also ``opt_lower, opt_upper, optimal``.
    """
    res = simulate(instance, make_policy("mc-sf"))
    rep = check_schedule(instance, res.schedule)
    if not rep.valid or rep.tel != res.tel:  # pragma: no cover - the engine and checker disagree
        raise AssertionError(f"MC-SF's schedule fails the checker: {rep.violations[:3]}")
    row = {"n": instance.n, "M": instance.memory, "s": int(instance.prompt[0]), "mcsf": res.tel,
           "L44": lemma44_bound(instance), "L47": lemma47_bound(instance), "OS": order_statistic_bound(instance)}
    g = lp9_greedy(instance)
    row["LPgreedy"] = g.value
    row["tstar_sorted_greedy"] = bool(np.all(np.diff(g.t_star) >= -1e-9))
    row["claim48"] = bool(np.all(g.t_star >= g.outputs - 1e-9)
                          and np.all(g.t_star <= claim48_upper(instance) + 1e-9))
    if with_lp:
        c = lp9_cvxpy(instance)
        row["LPcvxpy"] = c.value
        row["tstar_sorted_cvxpy"] = bool(np.all(np.diff(c.t_star) >= -1e-6))
    row["L45_need"] = max(r["need"] for r in group_spans(instance, res.schedule.starts))
    if certified is not None:
        proved = getattr(certified, "proved", None)
        row.update(opt_lower=certified.lower, opt_upper=certified.upper,
                   optimal=certified.optimal if proved is None else proved)
    return row
