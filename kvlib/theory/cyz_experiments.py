"""Simulation experiments behind the A_min chapter (003 Sections 3-5, Chen, Ye and Zhou).

Every function here runs interval policies of :mod:`kvlib.policies.cyz` on
instances with all requests at ``t = 0`` and returns plain numbers or a
:class:`pandas.DataFrame`; every schedule goes through the independent checker
(``allow_cancellation=True``), and a TEL that disagrees with the checker's is
an error.  Seeds are explicit: each function documents how its random draws are
derived from the ``seed`` it receives, so a chapter that calls it reproduces
the same instances.

Conventions (our readings, stated in :mod:`kvlib.policies.cyz`): prompt
``s = 0`` where 003 Theorem 2 uses it (``interval_instance(...,
allow_zero_prompt=True)``), H-SF knows the true lengths, the other policies see
only the interval ``[lower, upper]``.  Ratios are TEL(policy) / TEL(H-SF).
"""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np
import pandas as pd

from kvlib.core.checker import check_schedule
from kvlib.policies.cyz import AMaxBatch, AMinProgress, interval_instance, run_interval
from kvlib.theory import rayleigh as ry

__all__ = [
    "checked_tel",
    "theorem2_table",
    "theorem1_worst_ratios",
    "run_distribution",
    "single_length_ratios",
    "two_point_runs",
    "measured_cross_terms",
    "lemma2_runs",
    "two_point_sweep",
    "geometric_runs",
    "decision_times",
]


def checked_tel(instance, policy, lower, upper, seed: int = 0) -> int:
    """TEL of ``policy`` (name or object) on ``instance`` with intervals ``[lower, upper]``.

    The schedule (cancelled runs included) is re-checked by :func:`kvlib.core.checker.check_schedule`;
    an invalid schedule, or a TEL that differs from the checker's, raises ``AssertionError`` naming
    the first violations.
    """
    res = run_interval(instance, policy, lower, upper, seed=seed)
    rep = check_schedule(instance, res.schedule, allow_cancellation=True)
    if not (rep.valid and rep.tel == res.tel):
        raise AssertionError(f"policy {policy!r}: schedule rejected or TEL {res.tel} != checker's {rep.tel}: "
                             f"{rep.violations[:3]}")
    return int(res.tel)


def theorem2_table(alpha_invs: Iterable[int], scales: Iterable[int], reps: int, seed: int) -> pd.DataFrame:
    """003 Theorem 2's instance grown by ``scales``: A_max and synchronous-batch A_max against H-SF.

    For ``alpha = 1/alpha_inv`` and scale ``sc``: ``l = 2 sc``, ``u = l alpha_inv``, ``M = l u``,
    ``a = 4 sc`` batches of ``u`` short requests and ``b = round(a sqrt(alpha_inv))`` batches of
    ``l`` long ones, ``s = 0``.  H-SF's simulated TEL must equal :func:`ry.thm2_hsf_tel` (asserted);
    A_max and :class:`AMaxBatch` are averaged over seeds ``seed .. seed + reps - 1``.  Columns:
    ``alpha, l, u, M, N_l, N_u, hsf, amax, ratio_ours, ratio_batch_sim, ratio_batch_model,
    batch_limit, paper_formula``.
    """
    rows = []
    for alpha_inv in alpha_invs:
        for sc in scales:
            l = sc * 2
            u = alpha_inv * l
            M = l * u
            a = 4 * sc
            b = int(round(a * np.sqrt(alpha_inv)))
            o = np.array([l] * (a * u) + [u] * (b * l))
            inst = interval_instance(o, M, 0, allow_zero_prompt=True)
            h = checked_tel(inst, "h-sf", l, u)
            if h != ry.thm2_hsf_tel(l, u, a, b):
                raise AssertionError(f"H-SF TEL {h} != closed form {ry.thm2_hsf_tel(l, u, a, b)} at l={l}, u={u}")
            am = np.mean([checked_tel(inst, "a-max", l, u, seed + r) for r in range(reps)])
            ab = np.mean([checked_tel(inst, AMaxBatch(), l, u, seed + r) for r in range(reps)])
            rows.append(dict(alpha=1 / alpha_inv, l=l, u=u, M=M, N_l=a * u, N_u=b * l, hsf=h, amax=am,
                             ratio_ours=am / h, ratio_batch_sim=ab / h,
                             ratio_batch_model=ry.thm2_batch_amax_tel(l, u, a, b) / h,
                             batch_limit=ry.thm2_batch_ratio_limit(1 / alpha_inv),
                             paper_formula=ry.amax_theorem2_ratio(1 / alpha_inv)))
    return pd.DataFrame(rows)


def theorem1_worst_ratios(alphas: Sequence[float], reps: int, seed: int, *, l: int = 3, n: int = 60,
                          mixtures: int = 6) -> list[float]:
    """Worst simulated A_max / H-SF over two-point instances, one value per ``alpha`` (003 Theorem 1).

    ``o in {l, u}`` with ``u = round(l/alpha)``, ``s = 1``, ``M = 4(1 + u)``, ``n`` requests of
    which the first ``int(frac n)`` are short, ``frac`` on ``linspace(0, 1, mixtures)``; A_max
    with seeds ``seed .. seed + reps - 1``.
    """
    worst = []
    for al in alphas:
        u = int(round(l / al))
        M = 4 * (1 + u)
        best = 0.0
        for frac in np.linspace(0.0, 1.0, mixtures):
            o = np.where(np.arange(n) < int(frac * n), l, u)
            inst = interval_instance(o, M, 1)
            h = checked_tel(inst, "h-sf", l, u)
            best = max(best, max(checked_tel(inst, "a-max", l, u, seed + r) / h for r in range(reps)))
        worst.append(best)
    return worst


def run_distribution(support, x, memory: int, n: int, run_seed: int, *, seed: int,
                     policies: Sequence[str] = ("a-min",)) -> dict:
    """``n`` lengths drawn from ``x`` on ``support`` (``s = 0``, all at ``t = 0``); ratios to H-SF.

    Lengths come from ``default_rng([seed, run_seed, memory, max(support)])``; the policies see
    ``[min(support), max(support)]`` and run with seed ``run_seed``.  Returns ``hsf_over_fluid``
    (H-SF's TEL over the fluid ``n^2/M x^T B x`` of the *empirical* distribution), ``lemma2``
    (:func:`ry.cr_amin` of the empirical distribution) and one ratio per policy (``"a-min"``,
    ``"a-min-progress"`` for :class:`AMinProgress`, or any interval policy name).
    """
    sup = np.asarray(support)
    o = np.random.default_rng([seed, run_seed, memory, int(sup[-1])]).choice(sup, size=n, p=x)
    xs = np.array([np.mean(o == k) for k in sup])
    inst = interval_instance(o, memory, 0, allow_zero_prompt=True)
    lo, up = int(sup.min()), int(sup.max())
    h = checked_tel(inst, "h-sf", lo, up, run_seed)
    mm = np.minimum.outer(sup, sup).astype(float)
    out = dict(hsf_over_fluid=h / (n * n / memory * float(xs @ (mm**2 / 2.0) @ xs)), lemma2=ry.cr_amin(xs, sup))
    for pol in policies:
        obj = AMinProgress() if pol == "a-min-progress" else pol
        out[pol] = checked_tel(inst, obj, lo, up, run_seed) / h
    return out


def single_length_ratios(memories: Iterable[int], lengths: Iterable[int], seed: int, *, load: int = 6,
                         upper: int = 8) -> pd.DataFrame:
    """A_min / H-SF when every request has the same length ``k`` (``n = load M``, interval ``[1, upper]``).

    Columns ``M, k, amin_over_hsf``.  With ``k`` dividing ``M`` both policies run the same
    synchronised batches, so the ratio is exactly 1 (fact 1 of the chapter's reconstruction).
    """
    lengths = list(lengths)
    rows = []
    for M in memories:
        for k in lengths:
            inst = interval_instance([k] * (load * M), M, 0, allow_zero_prompt=True)
            rows.append(dict(M=M, k=k, amin_over_hsf=checked_tel(inst, "a-min", 1, upper, seed)
                             / checked_tel(inst, "h-sf", 1, upper, seed)))
    return pd.DataFrame(rows)


def two_point_runs(shorts: Iterable[int], memory: int, load: int, runs: int, seed: int, *,
                   factor: int = 4, p_short: float = 0.8,
                   policies: Sequence[str] = ("a-min", "a-min-progress")) -> pd.DataFrame:
    """003 Theorem 6's setting: lengths ``{l, factor l}`` with ``P(l) = p_short``, ``n = load M``.

    One row per ``l`` and run seed ``seed + r`` (``r < runs``), with the columns of
    :func:`run_distribution` plus ``l, u, seed``.
    """
    rows = []
    for l in shorts:
        sup = np.array([l, factor * l])
        for r in range(runs):
            rows.append(dict(l=l, u=factor * l, seed=seed + r,
                             **run_distribution(sup, np.array([p_short, 1 - p_short]), memory, load * memory,
                                                seed + r, seed=seed, policies=policies)))
    return pd.DataFrame(rows)


def measured_cross_terms(u_max: int, scale: int, memory: int, n: int, reps: int, seed: int
                         ) -> tuple[pd.DataFrame, dict]:
    """Measure A_min's and H-SF's quadratic forms from pure and half-half runs (units ``c^2 n^2/M``).

    Lengths ``c k``, ``k = 1..u_max`` (``c = scale``), ``s = 0``, interval ``[c, c u_max]``.  The
    diagonal ``a_kk`` is a pure run (seed ``seed``); the cross term of ``i < j`` is
    ``(4 x^T A x - a_ii - a_jj) / 2`` from a half-half mixture shuffled by
    ``default_rng([seed, r, i, j])`` and run with seed ``seed + r``, averaged over ``r < reps``.
    Returns the table (``i, j, amin_measured, A_corollary1, hsf_measured, B, amin_rel_dev,
    hsf_rel_dev``; ``A_corollary1`` is 003 Corollary 1's ``a_ij`` halved) and the diagonal ``{(policy, k): value}``.
    """
    c = scale

    def units(o, pol, sd):
        inst = interval_instance(o, memory, 0, allow_zero_prompt=True)
        return checked_tel(inst, pol, c, c * u_max, sd) / (c * c * n * n / memory)

    pure = {(p, k): units(np.full(n, c * k), p, seed) for p in ("a-min", "h-sf") for k in range(1, u_max + 1)}
    rows = []
    for i in range(1, u_max + 1):
        for j in range(i + 1, u_max + 1):
            est = {"a-min": [], "h-sf": []}
            for r in range(reps):
                o = np.array([c * i] * (n // 2) + [c * j] * (n // 2))
                np.random.default_rng([seed, r, i, j]).shuffle(o)
                for p in est:
                    est[p].append((4 * units(o, p, seed + r) - pure[(p, i)] - pure[(p, j)]) / 2)
            rows.append(dict(i=i, j=j, amin_measured=np.mean(est["a-min"]), A_corollary1=float(ry.a_entry(i, j)),
                             hsf_measured=np.mean(est["h-sf"]), B=i * i / 2))
    meas = pd.DataFrame(rows)
    meas["amin_rel_dev"] = meas.amin_measured / meas.A_corollary1 - 1
    meas["hsf_rel_dev"] = meas.hsf_measured / meas.B - 1
    return meas, pure


def lemma2_runs(dists: dict, memories: Iterable[int], load: int, runs: int, seed: int
                ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A_min / H-SF for named length distributions ``{name: (support, x)}`` at each memory.

    ``n = load M``; run seeds ``seed .. seed + runs - 1`` (see :func:`run_distribution`).  Returns
    every run and the summary per (distribution, ``M``, ``n``): ``hsf_over_fluid`` (mean),
    ``ratio_min``, ``ratio_max``, ``lemma2`` (mean) and ``rel_dev_max = ratio_max / lemma2 - 1``.
    """
    memories = list(memories)
    rows = []
    for name, (sup, xdist) in dists.items():
        for M in memories:
            for r in range(runs):
                rows.append(dict(dist=name, M=M, n=load * M, seed=seed + r,
                                 **run_distribution(sup, xdist, M, load * M, seed + r, seed=seed)))
    runs_df = pd.DataFrame(rows)
    summary = runs_df.groupby(["dist", "M", "n"], sort=False).agg(
        hsf_over_fluid=("hsf_over_fluid", "mean"), ratio_min=("a-min", "min"), ratio_max=("a-min", "max"),
        lemma2=("lemma2", "mean")).reset_index()
    summary["rel_dev_max"] = summary.ratio_max / summary.lemma2 - 1
    return runs_df, summary


def two_point_sweep(memories: Iterable[int], longs: Iterable[int], short: int, fractions: Iterable[float],
                    policies: Sequence[str], reps: int, seed: int, *, load: int = 10
                    ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Worst two-point ratio to H-SF across ``alpha = short/u`` (the quantity of 003 Figure 2 / Theorem 7).

    For each memory ``M``, long length ``u`` and fraction ``p`` of short requests: ``n = load M``
    lengths, the first ``int(p n)`` short, shuffled by ``default_rng([seed, M, u, int(100 p)])``,
    ``s = 0``; each policy runs with seeds ``seed .. seed + reps - 1``.  Returns every run
    (``M, alpha, frac_short, policy, seed, ratio``) and the worst ratio per (``M``, ``alpha``)
    and policy, with a column ``theorem7``: 003 Theorem 7's bound on A_l at that ``alpha``.
    """
    fractions = list(fractions)
    longs = list(longs)
    rows = []
    for M in memories:
        for u in longs:
            for frac in fractions:
                n = load * M
                o = np.where(np.arange(n) < int(frac * n), short, u)
                np.random.default_rng([seed, M, u, int(100 * frac)]).shuffle(o)
                inst = interval_instance(o, M, 0, allow_zero_prompt=True)
                h = checked_tel(inst, "h-sf", short, u)
                for pol in policies:
                    for r in range(reps):
                        rows.append(dict(M=M, alpha=short / u, frac_short=frac, policy=pol, seed=seed + r,
                                         ratio=checked_tel(inst, pol, short, u, seed + r) / h))
    runs = pd.DataFrame(rows)
    worst = runs.groupby(["M", "alpha", "policy"]).ratio.max().unstack()
    a = worst.index.get_level_values("alpha")
    worst["theorem7"] = ry.theorem7_bound(np.asarray(a, dtype=float))
    return runs, worst


def geometric_runs(qs: Iterable[float], u: int, memory: int, n: int, scale: int, rng: np.random.Generator,
                   seed: int) -> pd.DataFrame:
    """A_min / H-SF for geometric lengths ``(1-q) q^(k-1)`` truncated at ``u`` and scaled by ``scale``.

    Lengths are drawn from ``rng`` (consumed in the order of ``qs``); policies run with seed
    ``seed``.  Columns ``q, M, n, amin_over_hsf, lemma2`` (:func:`ry.cr_amin` of the empirical
    distribution).
    """
    rows = []
    sup = scale * np.arange(1, u + 1)
    lo, up = int(sup[0]), int(sup[-1])
    for q in qs:
        x = (1 - q) * q ** np.arange(u)
        x /= x.sum()
        o = rng.choice(sup, size=n, p=x)
        inst = interval_instance(o, memory, 0, allow_zero_prompt=True)
        xs = np.array([np.mean(o == k) for k in sup])
        rows.append(dict(q=q, M=memory, n=n, amin_over_hsf=checked_tel(inst, "a-min", lo, up, seed)
                         / checked_tel(inst, "h-sf", lo, up, seed), lemma2=ry.cr_amin(xs, sup)))
    return pd.DataFrame(rows)


def decision_times(memories: Iterable[int], rng: np.random.Generator, seed: int, *, load: int = 3,
                   max_length: int = 8) -> pd.DataFrame:
    """Wall time of A_min's ``decide`` per round (003 Theorem 3's ``O(M log M)`` per step).

    ``load M`` requests with lengths uniform on ``1..max_length`` drawn from ``rng``, ``s = 1``,
    interval ``[1, max_length]``.  Columns ``M, rounds, mean_us`` (µs per decision) and
    ``per_MlogM_ns``.  Timings depend on the machine; nothing here asserts on them.
    """
    rows = []
    for M in memories:
        o = rng.integers(1, max_length + 1, size=load * M)
        inst = interval_instance(o, M, 1)
        res = run_interval(inst, "a-min", 1, max_length, seed=seed, record_decision_times=True)
        t = float(np.mean(res.decision_times))
        rows.append(dict(M=M, rounds=res.rounds_decided, mean_us=1e6 * t, per_MlogM_ns=1e9 * t / (M * np.log(M))))
    return pd.DataFrame(rows)
