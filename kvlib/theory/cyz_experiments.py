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

import hashlib
from typing import Iterable, Sequence

import numpy as np
import pandas as pd

from kvlib.core.checker import check_schedule
from kvlib.policies.cyz import AMaxBatch, AMinProgress, interval_instance, run_interval
from kvlib.theory import rayleigh as ry

__all__ = [
    "checked_tel",
    "lengths_hash",
    "theorem2_row", "theorem2_keys", "theorem2_summary",
    "theorem1_row", "theorem1_keys", "theorem1_worst",
    "distribution_row", "single_length_row",
    "two_point_keys", "two_point_frame",
    "cross_term_row", "cross_term_keys", "cross_terms_summary",
    "lemma2_row", "lemma2_keys", "lemma2_summary",
    "sweep_row", "sweep_keys", "sweep_worst",
    "geometric_row", "decision_time_row",
    "bin_lower_ends", "corollary2_row", "corollary2_dists", "corollary2_keys",
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


def theorem2_row(*, alpha_inv: int, scale: int, rep: int, seed: int) -> dict:
    """One seed of 003 Theorem 2's instance (store row): TELs of H-SF, A_max and synchronous-batch A_max.

    ``alpha = 1/alpha_inv``, ``l = 2 scale``, ``u = l alpha_inv``, ``M = l u``, ``a = 4 scale``
    batches of ``u`` short requests and ``b = round(a sqrt(alpha_inv))`` batches of ``l`` long ones,
    ``s = 0``.  H-SF's simulated TEL must equal :func:`ry.thm2_hsf_tel` (asserted); A_max and
    :class:`AMaxBatch` run with seed ``seed + rep``.  ``batch_model`` is
    :func:`ry.thm2_batch_amax_tel`.
    """
    l = 2 * scale
    u = alpha_inv * l
    M = l * u
    a = 4 * scale
    b = int(round(a * np.sqrt(alpha_inv)))
    o = np.array([l] * (a * u) + [u] * (b * l))
    inst = interval_instance(o, M, 0, allow_zero_prompt=True)
    h = checked_tel(inst, "h-sf", l, u)
    if h != ry.thm2_hsf_tel(l, u, a, b):
        raise AssertionError(f"H-SF TEL {h} != closed form {ry.thm2_hsf_tel(l, u, a, b)} at l={l}, u={u}")
    return dict(l=l, u=u, M=M, N_l=a * u, N_u=b * l, hsf=h, amax=checked_tel(inst, "a-max", l, u, seed + rep),
                amax_batch=checked_tel(inst, AMaxBatch(), l, u, seed + rep),
                batch_model=int(ry.thm2_batch_amax_tel(l, u, a, b)))


def theorem2_keys(alpha_invs: Iterable[int], scales: Iterable[int], reps: int, seed: int) -> list[dict]:
    """Keys of :func:`theorem2_row`, seed-major (a partial table holds whole seeds first)."""
    return [dict(alpha_inv=int(ai), scale=int(sc), rep=r, seed=seed)
            for r in range(reps) for ai in alpha_invs for sc in scales]


def theorem2_summary(rows: pd.DataFrame) -> pd.DataFrame:
    """Mean over seeds of :func:`theorem2_row` rows per (``alpha``, scale), with the ratios to H-SF.

    Columns ``alpha, l, u, M, N_l, N_u, hsf, amax, reps, ratio_ours, ratio_batch_sim,
    ratio_batch_model, batch_limit, paper_formula`` (the last two: our synchronous-batch limit and
    the paper's Theorem 2 limit).
    """
    g = rows.groupby(["alpha_inv", "scale"], sort=False).agg(
        l=("l", "first"), u=("u", "first"), M=("M", "first"), N_l=("N_l", "first"), N_u=("N_u", "first"),
        hsf=("hsf", "first"), amax=("amax", "mean"), amax_batch=("amax_batch", "mean"),
        batch_model=("batch_model", "first"), reps=("rep", "size")).reset_index()
    g = g.sort_values(["alpha_inv", "scale"], kind="stable").reset_index(drop=True)
    alpha = 1.0 / g.alpha_inv
    return pd.DataFrame(dict(alpha=alpha, l=g.l, u=g.u, M=g.M, N_l=g.N_l, N_u=g.N_u, hsf=g.hsf, amax=g.amax,
                             reps=g.reps, ratio_ours=g.amax / g.hsf, ratio_batch_sim=g.amax_batch / g.hsf,
                             ratio_batch_model=g.batch_model / g.hsf,
                             batch_limit=[ry.thm2_batch_ratio_limit(a) for a in alpha],
                             paper_formula=[ry.amax_theorem2_ratio(a) for a in alpha]))


def theorem2_table(alpha_invs: Iterable[int], scales: Iterable[int], reps: int, seed: int) -> pd.DataFrame:
    """003 Theorem 2's instance grown by ``scales`` (:func:`theorem2_row` over seeds
    ``seed .. seed + reps - 1``, summarised by :func:`theorem2_summary`)."""
    keys = theorem2_keys(list(alpha_invs), list(scales), reps, seed)
    return theorem2_summary(pd.DataFrame([dict(k, **theorem2_row(**k)) for k in keys]))


def theorem1_row(*, l: int, u: int, n: int, n_short: int, rep: int, seed: int) -> dict:
    """A_max / H-SF on one two-point instance of 003 Theorem 1's setting (store row).

    ``o in {l, u}`` (the first ``n_short`` requests short), ``s = 1``, ``M = 4(1 + u)``; A_max runs
    with seed ``seed + rep``.
    """
    o = np.where(np.arange(n) < n_short, l, u)
    inst = interval_instance(o, 4 * (1 + u), 1)
    h = checked_tel(inst, "h-sf", l, u)
    am = checked_tel(inst, "a-max", l, u, seed + rep)
    return dict(M=4 * (1 + u), hsf=h, amax=am, ratio=am / h)


def theorem1_keys(alphas: Sequence[float], reps: int, seed: int, *, l: int = 3, n: int = 60,
                  mixtures: int = 6) -> list[dict]:
    """Keys of :func:`theorem1_row`: ``u = round(l/alpha)``, ``n_short = int(frac n)`` for ``frac`` on
    ``linspace(0, 1, mixtures)``; seed-major."""
    return [dict(l=l, u=int(round(l / al)), n=n, n_short=int(frac * n), rep=r, seed=seed)
            for r in range(reps) for al in alphas for frac in np.linspace(0.0, 1.0, mixtures)]


def theorem1_worst(rows: pd.DataFrame) -> pd.DataFrame:
    """Worst A_max / H-SF per ``u`` over :func:`theorem1_row` rows: columns ``l, u, alpha, worst, runs``."""
    g = rows.groupby(["l", "u"], sort=False).agg(worst=("ratio", "max"), runs=("ratio", "size")).reset_index()
    g.insert(2, "alpha", g.l / g.u)
    return g


def theorem1_worst_ratios(alphas: Sequence[float], reps: int, seed: int, *, l: int = 3, n: int = 60,
                          mixtures: int = 6) -> list[float]:
    """Worst simulated A_max / H-SF over two-point instances, one value per ``alpha`` (003 Theorem 1;
    :func:`theorem1_row` over :func:`theorem1_keys`)."""
    keys = theorem1_keys(alphas, reps, seed, l=l, n=n, mixtures=mixtures)
    w = theorem1_worst(pd.DataFrame([dict(k, **theorem1_row(**k)) for k in keys]))
    return [float(w.worst[w.u == int(round(l / al))].iloc[0]) for al in alphas]


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


def distribution_row(*, support: Sequence[int], probs: Sequence[float], M: int, n: int, run_seed: int,
                     seed: int, policies: Sequence[str] = ("a-min",)) -> dict:
    """:func:`run_distribution` as a store row (key: the support, its probabilities, ``M``, ``n``,
    the run seed, the base seed and the policies), plus ``instance``: :func:`lengths_hash` of the drawn
    lengths."""
    sup = np.asarray(support)
    o = np.random.default_rng([seed, run_seed, M, int(sup[-1])]).choice(sup, size=n, p=np.asarray(probs))
    return dict(instance=lengths_hash(o, M), **run_distribution(sup, np.asarray(probs), M, n, run_seed, seed=seed,
                                                                 policies=tuple(policies)))


def lengths_hash(lengths, memory: int) -> str:
    """``x`` and the first 16 hex digits of the SHA-256 of ``memory`` and the output lengths (an instance's
    fingerprint; the ``x`` keeps a CSV reader from taking an all-digit digest for a number)."""
    h = hashlib.sha256(str(int(memory)).encode())
    h.update(np.asarray(lengths, dtype=np.int64).tobytes())
    return "x" + h.hexdigest()[:16]


def single_length_row(*, M: int, k: int, load: int, upper: int, seed: int) -> dict:
    """A_min and H-SF when all ``load M`` requests have length ``k`` (interval ``[1, upper]``, ``s = 0``)."""
    inst = interval_instance([k] * (load * M), M, 0, allow_zero_prompt=True)
    am, h = checked_tel(inst, "a-min", 1, upper, seed), checked_tel(inst, "h-sf", 1, upper, seed)
    return dict(amin=am, hsf=h, amin_over_hsf=am / h)


def single_length_ratios(memories: Iterable[int], lengths: Iterable[int], seed: int, *, load: int = 6,
                         upper: int = 8) -> pd.DataFrame:
    """A_min / H-SF when every request has the same length ``k`` (``n = load M``, interval ``[1, upper]``).

    Columns ``M, k, amin_over_hsf``.  With ``k`` dividing ``M`` both policies run the same
    synchronised batches, so the ratio is exactly 1 (fact 1 in the chapter's section on Corollary 1).
    """
    lengths = list(lengths)
    return pd.DataFrame([dict(M=M, k=k, amin_over_hsf=single_length_row(M=M, k=k, load=load, upper=upper,
                                                                         seed=seed)["amin_over_hsf"])
                         for M in memories for k in lengths])


def two_point_keys(shorts: Iterable[int], memory: int, load: int, runs: int, seed: int, *, factor: int = 4,
                   p_short: float = 0.8, policies: Sequence[str] = ("a-min", "a-min-progress")) -> list[dict]:
    """Keys of :func:`distribution_row` for 003 Theorem 6's setting: lengths ``{l, factor l}`` with
    ``P(l) = p_short``, ``n = load M``, run seed ``seed + r`` (``r < runs``); run-major."""
    return [dict(support=[int(l), int(factor * l)], probs=[p_short, 1 - p_short], M=memory, n=load * memory,
                 run_seed=seed + r, seed=seed, policies=list(policies)) for r in range(runs) for l in shorts]


def two_point_frame(rows: pd.DataFrame) -> pd.DataFrame:
    """:func:`distribution_row` rows of :func:`two_point_keys` with columns ``l, u, seed`` added, sorted by ``l``."""
    out = rows.copy()
    out.insert(0, "l", [int(s[0]) for s in rows.support])
    out.insert(1, "u", [int(s[-1]) for s in rows.support])
    out.insert(2, "seed_", rows.run_seed)
    out = out.drop(columns=["seed"]).rename(columns={"seed_": "seed"})
    return out.sort_values(["l", "seed"], kind="stable").reset_index(drop=True)


def two_point_runs(shorts: Iterable[int], memory: int, load: int, runs: int, seed: int, *,
                   factor: int = 4, p_short: float = 0.8,
                   policies: Sequence[str] = ("a-min", "a-min-progress")) -> pd.DataFrame:
    """003 Theorem 6's setting: lengths ``{l, factor l}`` with ``P(l) = p_short``, ``n = load M``.

    One row per ``l`` and run seed ``seed + r`` (``r < runs``), with the columns of
    :func:`run_distribution` plus ``l, u, seed``.
    """
    keys = two_point_keys(list(shorts), memory, load, runs, seed, factor=factor, p_short=p_short, policies=policies)
    return two_point_frame(pd.DataFrame([dict(k, **distribution_row(**k)) for k in keys]))


def cross_term_row(*, i: int, j: int, rep: int, u_max: int, scale: int, M: int, n: int, seed: int) -> dict:
    """TELs of A_min and H-SF in units ``c^2 n^2/M`` (``c = scale``) on one run of the cross-term measurement.

    Lengths ``c k``, ``s = 0``, interval ``[c, c u_max]``.  ``i == j``: a pure run of length ``c i``
    (seed ``seed``; ``rep`` must be 0); ``i < j``: a half-half mixture of ``c i`` and ``c j`` shuffled
    by ``default_rng([seed, rep, i, j])`` and run with seed ``seed + rep``.  Columns ``a-min``, ``h-sf``.
    """
    if i > j or (i == j and rep != 0):
        raise ValueError(f"cross_term_row: need i <= j and rep = 0 for a pure run, got i={i}, j={j}, rep={rep}")
    c = scale
    if i == j:
        o, sd = np.full(n, c * i), seed
    else:
        o, sd = np.array([c * i] * (n // 2) + [c * j] * (n // 2)), seed + rep
        np.random.default_rng([seed, rep, i, j]).shuffle(o)
    inst = interval_instance(o, M, 0, allow_zero_prompt=True)
    return {p: checked_tel(inst, p, c, c * u_max, sd) / (c * c * n * n / M) for p in ("a-min", "h-sf")}


def cross_term_keys(u_max: int, scale: int, memory: int, n: int, reps: int, seed: int) -> list[dict]:
    """Keys of :func:`cross_term_row`: the pure runs first, then the pairs ``i < j`` seed-major."""
    base = dict(u_max=u_max, scale=scale, M=memory, n=n, seed=seed)
    return ([dict(i=k, j=k, rep=0, **base) for k in range(1, u_max + 1)]
            + [dict(i=i, j=j, rep=r, **base) for r in range(reps) for i in range(1, u_max + 1)
               for j in range(i + 1, u_max + 1)])


def cross_terms_summary(rows: pd.DataFrame) -> tuple[pd.DataFrame, dict]:
    """Cross terms ``(4 x^T A x - a_ii - a_jj) / 2`` from :func:`cross_term_row` rows, averaged over seeds.

    Returns the table (``i, j, reps, amin_measured, A_corollary1, hsf_measured, B, amin_rel_dev,
    hsf_rel_dev``; ``A_corollary1`` is 003 Corollary 1's ``a_ij`` halved; pairs whose pure runs are
    not among the rows are left out) and the diagonal ``{(policy, k): value}``.
    """
    pure_rows = rows[rows.i == rows.j]
    pure = {(p, int(r.i)): float(r[p]) for _, r in pure_rows.iterrows() for p in ("a-min", "h-sf")}
    out = []
    pairs = rows[(rows.i < rows.j)]
    for (i, j), g in pairs.groupby(["i", "j"], sort=True):
        if ("a-min", i) not in pure or ("a-min", j) not in pure:
            continue
        est = {p: np.mean((4 * g[p] - pure[(p, i)] - pure[(p, j)]) / 2) for p in ("a-min", "h-sf")}
        out.append(dict(i=int(i), j=int(j), reps=len(g), amin_measured=est["a-min"],
                        A_corollary1=float(ry.a_entry(int(i), int(j))), hsf_measured=est["h-sf"], B=i * i / 2))
    meas = pd.DataFrame(out, columns=["i", "j", "reps", "amin_measured", "A_corollary1", "hsf_measured", "B"])
    meas["amin_rel_dev"] = meas.amin_measured / meas.A_corollary1 - 1
    meas["hsf_rel_dev"] = meas.hsf_measured / meas.B - 1
    return meas, pure


def measured_cross_terms(u_max: int, scale: int, memory: int, n: int, reps: int, seed: int
                         ) -> tuple[pd.DataFrame, dict]:
    """Measure A_min's and H-SF's quadratic forms from pure and half-half runs (units ``c^2 n^2/M``):
    :func:`cross_term_row` over :func:`cross_term_keys`, summarised by :func:`cross_terms_summary`."""
    keys = cross_term_keys(u_max, scale, memory, n, reps, seed)
    return cross_terms_summary(pd.DataFrame([dict(k, **cross_term_row(**k)) for k in keys]))


def lemma2_keys(dists: dict, memories: Iterable[int], load: int, runs: int, seed: int) -> list[dict]:
    """Keys of :func:`distribution_row` for named distributions ``{name: (support, x)}`` (key ``dist``
    is the name), ``n = load M``, run seeds ``seed + r``; run-major (then distribution, then ``M``)."""
    return [dict(dist=name, support=[int(v) for v in sup], probs=[float(v) for v in x], M=M, n=load * M,
                 run_seed=seed + r, seed=seed) for r in range(runs) for name, (sup, x) in dists.items()
            for M in memories]


def lemma2_row(*, dist: str, support, probs, M: int, n: int, run_seed: int, seed: int) -> dict:
    """:func:`distribution_row` with A_min only, keyed also by the distribution's name ``dist``."""
    return distribution_row(support=support, probs=probs, M=M, n=n, run_seed=run_seed, seed=seed)


def lemma2_summary(runs_df: pd.DataFrame) -> pd.DataFrame:
    """Per (distribution, ``M``, ``n``): ``runs``, ``hsf_over_fluid`` (mean), ``ratio_min``, ``ratio_max``,
    ``lemma2`` (mean) and ``rel_dev_max = ratio_max / lemma2 - 1``."""
    summary = runs_df.groupby(["dist", "M", "n"], sort=False).agg(
        runs=("a-min", "size"), hsf_over_fluid=("hsf_over_fluid", "mean"), ratio_min=("a-min", "min"),
        ratio_max=("a-min", "max"), lemma2=("lemma2", "mean")).reset_index()
    summary["rel_dev_max"] = summary.ratio_max / summary.lemma2 - 1
    return summary


def lemma2_runs(dists: dict, memories: Iterable[int], load: int, runs: int, seed: int
                ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A_min / H-SF for named length distributions ``{name: (support, x)}`` at each memory.

    ``n = load M``; run seeds ``seed .. seed + runs - 1`` (see :func:`run_distribution`).  Returns
    every run and :func:`lemma2_summary`.
    """
    keys = lemma2_keys(dists, list(memories), load, runs, seed)
    runs_df = pd.DataFrame([dict(k, **lemma2_row(**k)) for k in keys])
    return runs_df, lemma2_summary(runs_df)


def sweep_row(*, M: int, u: int, l: int, frac: float, load: int, policies: Sequence[str], rep: int,
              seed: int) -> dict:
    """One two-point instance of the 003 Figure 2 / Theorem 7 sweep (store row): ratios to H-SF.

    ``n = load M`` lengths, the first ``int(frac n)`` equal to ``l`` and the rest to ``u``, shuffled
    by ``default_rng([seed, M, u, int(100 frac)])``, ``s = 0``, interval ``[l, u]``; each policy runs
    with seed ``seed + rep`` (H-SF with seed 0).  Columns ``instance`` (:func:`lengths_hash`),
    ``hsf`` and one ratio per policy.
    """
    n = load * M
    o = np.where(np.arange(n) < int(frac * n), l, u)
    np.random.default_rng([seed, M, u, int(100 * frac)]).shuffle(o)
    inst = interval_instance(o, M, 0, allow_zero_prompt=True)
    h = checked_tel(inst, "h-sf", l, u)
    return dict(instance=lengths_hash(o, M), hsf=h,
                **{pol: checked_tel(inst, pol, l, u, seed + rep) / h for pol in policies})


def sweep_keys(memories: Iterable[int], longs: Iterable[int], short: int, fractions: Iterable[float],
               policies: Sequence[str], reps: int, seed: int, *, load: int = 10) -> list[dict]:
    """Keys of :func:`sweep_row`: seed-major, then memory, long length, short fraction."""
    return [dict(M=int(M), u=int(u), l=int(short), frac=float(f), load=load, policies=list(policies), rep=r, seed=seed)
            for r in range(reps) for M in memories for u in longs for f in fractions]


def sweep_worst(rows: pd.DataFrame, policies: Sequence[str]) -> pd.DataFrame:
    """Worst ratio per (``M``, ``alpha = l/u``) and policy over :func:`sweep_row` rows, with ``runs``
    (rows behind each point) and ``theorem7`` (003 Theorem 7's bound on A_l at that ``alpha``)."""
    r = rows.assign(alpha=rows.l / rows.u)
    worst = r.groupby(["M", "alpha"])[list(policies)].max()
    worst["runs"] = r.groupby(["M", "alpha"]).size()
    worst["theorem7"] = ry.theorem7_bound(np.asarray(worst.index.get_level_values("alpha"), dtype=float))
    return worst


def two_point_sweep(memories: Iterable[int], longs: Iterable[int], short: int, fractions: Iterable[float],
                    policies: Sequence[str], reps: int, seed: int, *, load: int = 10
                    ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Worst two-point ratio to H-SF across ``alpha = short/u`` (the quantity of 003 Figure 2 / Theorem 7).

    :func:`sweep_row` over :func:`sweep_keys`.  Returns every run (``M, alpha, frac_short, policy,
    seed, ratio``) and :func:`sweep_worst` (without ``runs``).
    """
    keys = sweep_keys(list(memories), list(longs), short, list(fractions), policies, reps, seed, load=load)
    rows = pd.DataFrame([dict(k, **sweep_row(**k)) for k in keys])
    runs = pd.DataFrame([dict(M=r.M, alpha=r.l / r.u, frac_short=r.frac, policy=p, seed=seed + r.rep, ratio=r[p])
                         for _, r in rows.iterrows() for p in policies])
    return runs, sweep_worst(rows, policies).drop(columns="runs")


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


def geometric_row(*, q: float, u: int, scale: int, M: int, n: int, seed: int) -> dict:
    """A_min / H-SF for ``n`` geometric lengths ``(1-q) q^(k-1)``, truncated at ``u``, scaled by ``scale``.

    Lengths from ``default_rng([seed, round(1000 q), M, n])``, ``s = 0``, interval
    ``[scale, scale u]``; policies with seed ``seed``.  Columns ``instance``, ``amin_over_hsf`` and
    ``lemma2`` (:func:`ry.cr_amin` of the empirical distribution).
    """
    sup = scale * np.arange(1, u + 1)
    x = (1 - q) * q ** np.arange(u)
    o = np.random.default_rng([seed, int(round(1000 * q)), M, n]).choice(sup, size=n, p=x / x.sum())
    inst = interval_instance(o, M, 0, allow_zero_prompt=True)
    xs = np.array([np.mean(o == k) for k in sup])
    lo, up = int(sup[0]), int(sup[-1])
    return dict(instance=lengths_hash(o, M), amin_over_hsf=checked_tel(inst, "a-min", lo, up, seed)
                / checked_tel(inst, "h-sf", lo, up, seed), lemma2=ry.cr_amin(xs, sup))


def decision_time_row(*, M: int, load: int, max_length: int, seed: int) -> dict:
    """Wall time of A_min's ``decide`` per round at memory ``M`` (003 Theorem 3), as a store row.

    ``load M`` lengths uniform on ``1..max_length`` from ``default_rng([seed, M])``, ``s = 1``,
    interval ``[1, max_length]``.  ``rounds`` and ``tel`` are exact; ``mean_us`` and
    ``per_MlogM_ns`` are timings (machine-dependent).
    """
    o = np.random.default_rng([seed, M]).integers(1, max_length + 1, size=load * M)
    inst = interval_instance(o, M, 1)
    res = run_interval(inst, "a-min", 1, max_length, seed=seed, record_decision_times=True)
    t = float(np.mean(res.decision_times))
    return dict(rounds=int(res.rounds_decided), tel=int(res.tel), mean_us=1e6 * t,
                per_MlogM_ns=1e9 * t / (M * np.log(M)))


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


def bin_lower_ends(lengths, edges: Sequence[int]) -> np.ndarray:
    """003 Algorithm 5's initial bound for each length: ``l_i = max{l_k : l_k <= o_i}`` for the bins
    ``[edges[0], edges[1]], [edges[1], edges[2]], ...`` (left ends ``edges[:-1]``; a length equal to
    a shared end belongs to the bin it opens).  A length outside ``[edges[0], edges[-1]]`` is an error."""
    o = np.asarray(lengths, dtype=np.int64)
    e = np.asarray(edges, dtype=np.int64)
    if len(e) < 2 or np.any(np.diff(e) <= 0):
        raise ValueError(f"bin edges must be increasing with at least two entries, got {list(edges)}")
    bad = (o < e[0]) | (o > e[-1])
    if bad.any():
        k = int(np.argmax(bad))
        raise ValueError(f"request {k}: length {int(o[k])} lies outside the bins [{int(e[0])}, {int(e[-1])}]")
    return e[:-1][np.searchsorted(e[:-1], o, side="right") - 1]


def corollary2_row(*, edges: Sequence[int], probs: Sequence[float], scale: int, M: int, load: int,
                   run_seed: int, seed: int, dist: str = "") -> dict:
    """003 Corollary 2 (Algorithm 5, disjoint bins) on one instance: ``n = load M`` lengths on
    ``scale * {edges[0], ..., edges[-1]}`` (every integer, probabilities ``probs``), ``s = 0``, all at
    0, drawn from ``default_rng([seed, run_seed, M, scale, len(probs)])``.

    Runs the revised A_min (``a-min-multi``, initial bound the left end of each request's bin, scaled
    bins ``scale * edges``), the single-interval A_min on ``[scale edges[0], scale edges[-1]]`` and
    H-SF, all through the checker (seed ``run_seed``).  Returns both ratios to H-SF, Lemma 2's value
    for the single interval (:func:`ry.lemma2_ratio` of the empirical lengths with ``l`` the
    interval's lower end, ``s = 0``) and
    ``lambda_max(A_u, B_u)`` with ``u = edges[-1] / edges[0]`` (003 Corollary 1's quotient at
    ``alpha = l_1/u_m``, the paper's O(log 1/alpha) bound made numeric; needs ``edges[0] = 1``).
    ``dist`` only names the distribution in the stored key."""
    e = [int(v) for v in edges]
    if e[0] != 1:
        raise ValueError(f"edges must start at 1 (lengths are scaled by `scale`), got {e}")
    sup = np.arange(e[0], e[-1] + 1)
    p = np.asarray(probs, dtype=float)
    if len(p) != len(sup) or np.any(p < 0) or not np.isclose(p.sum(), 1):
        raise ValueError(f"probs must be {len(sup)} nonnegative numbers summing to 1 (one per length "
                         f"{e[0]}..{e[-1]}), got {list(probs)}")
    n = load * M
    o = scale * np.random.default_rng([seed, run_seed, M, scale, len(p)]).choice(sup, size=n, p=p)
    inst = interval_instance(o, M, 0, allow_zero_prompt=True)
    lo, up = scale * e[0], scale * e[-1]
    h = checked_tel(inst, "h-sf", lo, up, run_seed)
    multi = checked_tel(inst, "a-min-multi", bin_lower_ends(o, [scale * v for v in e]), up, run_seed)
    single = checked_tel(inst, "a-min", lo, up, run_seed)
    xs = np.array([np.mean(o == scale * k) for k in sup])
    return dict(instance=lengths_hash(o, M), multi_over_hsf=multi / h, single_over_hsf=single / h,
                lemma2_single=ry.lemma2_ratio(xs, scale * sup, s=0, l=lo), lambda_max=ry.lambda_max(e[-1] // e[0])[0])


def corollary2_dists(K: int = 8) -> dict:
    """The length distributions on ``1..K`` of the Corollary 2 check: uniform, geometric ``q = 0.7``,
    and the two-point laws ``{1, K}`` and ``{K/2, K}`` at Theorem 6's maximising short fraction
    ``1/(1 + alpha)``."""
    def two(a: int, b: int) -> list[float]:
        p = [0.0] * K
        p[a - 1], p[b - 1] = 1 / (1 + a / b), (a / b) / (1 + a / b)
        return p

    g = 0.7 ** np.arange(K)
    return {"uniform": [1 / K] * K, f"two-point {{1,{K}}}": two(1, K),
            f"two-point {{{K // 2},{K}}}": two(K // 2, K), "geometric q=0.7": list(g / g.sum())}


def corollary2_keys(dists: dict, edges: Sequence[int], scale: int, memories: Iterable[int], seeds: int, seed: int,
                    *, load: int = 10) -> list[dict]:
    """Store keys of :func:`corollary2_row` (the distribution's name is carried in ``dist``)."""
    return [dict(dist=name, edges=[int(v) for v in edges], probs=[float(v) for v in p], scale=int(scale), M=int(M),
                 load=load, run_seed=r, seed=seed) for name, p in dists.items() for M in memories for r in range(seeds)]
