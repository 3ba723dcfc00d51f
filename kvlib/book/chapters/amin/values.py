"""Display tables and glued numbers of the Aₘᵢₙ chapter (003, Chen, Ye and Zhou), from its stored tables.

Computed from the chapter's stored tables (:mod:`kvlib.book.store`; row functions in
:mod:`kvlib.theory.cyz_experiments`, :mod:`kvlib.theory.memory_scaling` and
:mod:`kvlib.book.chapters.amin.periods`).

Every function takes the (possibly partial) frames the chapter reads and derives what it shows from
the rows present: sizes, seeds and counts come from the frame, never from the chapter's parameters,
so a partial table yields a smaller but honest summary.  The ``*_facts`` functions return
``{glue name: value}`` for :func:`kvlib.book.gluing.glue_all`.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd

from kvlib.theory import rayleigh as ry

__all__ = ["theorem2_display", "theorem2_facts", "theorem6_display", "theorem6_facts", "lemma2_facts",
           "fig2_facts", "THEOREM6_AT_QUARTER", "ec1_display", "coupling_summary", "ec5_display", "ec6_summary",
           "ec6_facts", "periods_summary", "periods_facts", "corollary2_summary", "corollary2_facts"]

THEOREM6_AT_QUARTER = 1.375  # 003 Theorem 6's (3 - alpha)/2 at alpha = 1/4

_THM2_NAMES = {"N_l": "Nₗ", "N_u": "Nᵤ", "M": "M (tokens)", "hsf": "H-SF TEL", "amax": "Aₘₐₓ TEL (mean)", "ratio_ours": "Aₘₐₓ / H-SF",
               "ratio_batch_sim": "batch Aₘₐₓ / H-SF (sim.)",
               "ratio_batch_model": "batch Aₘₐₓ / H-SF (closed form)", "batch_limit": "batch limit",
               "paper_formula": "paper's limit"}
_THM2_RATIOS = ["Aₘₐₓ / H-SF", "batch Aₘₐₓ / H-SF (sim.)", "batch Aₘₐₓ / H-SF (closed form)", "batch limit",
                "paper's limit"]


def theorem2_display(thm2: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`kvlib.theory.cyz_experiments.theorem2_summary` split into the instance/TEL table and the
    ratio table, with reader-facing column names."""
    t = thm2.rename(columns=_THM2_NAMES)
    return (t[[c for c in t.columns if c not in _THM2_RATIOS]],
            t[["alpha", "M (tokens)", "reps"] + _THM2_RATIOS])


def theorem2_facts(thm2: pd.DataFrame) -> dict:
    """Values at the largest scale present for ``alpha = 1/4`` (suffix ``a4``) and ``1/9`` (``a9``):
    ``thm2_ratio_*`` (our Aₘₐₓ), ``thm2_batch_*`` (batch closed form), ``thm2_bsim_*`` (batch
    simulated), ``thm2_blim_*`` (batch limit), ``thm2_formula_*`` (the paper's limit), ``thm2_M_*``."""
    last = thm2.groupby("alpha").tail(1).set_index("alpha")
    out = {}
    for key, inv in (("a4", 4), ("a9", 9)):
        al = min(last.index, key=lambda a: abs(a - 1 / inv))
        if abs(al - 1 / inv) > 1e-12:
            raise KeyError(f"theorem2_facts: no rows for alpha = 1/{inv}")
        r = last.loc[al]
        out.update({f"thm2_ratio_{key}": float(r.ratio_ours), f"thm2_batch_{key}": float(r.ratio_batch_model),
                    f"thm2_bsim_{key}": float(r.ratio_batch_sim), f"thm2_blim_{key}": float(r.batch_limit),
                    f"thm2_formula_{key}": float(r.paper_formula), f"thm2_M_{key}": int(r.M)})
    return out


def theorem6_display(tp: pd.DataFrame) -> pd.DataFrame:
    """Min and max ratio per ``l`` of the literal Aₘᵢₙ and of ``AMinProgress`` (two-point runs of
    :func:`kvlib.theory.cyz_experiments.two_point_frame`), with the seeds behind them and Lemma 2."""
    g = tp.groupby(["l", "u"]).agg(**{
        "runs": ("a-min", "size"), "Aₘᵢₙ / H-SF (min)": ("a-min", "min"), "Aₘᵢₙ / H-SF (max)": ("a-min", "max"),
        "AMinProgress (min)": ("a-min-progress", "min"), "AMinProgress (max)": ("a-min-progress", "max"),
        "Lemma 2": ("lemma2", "mean")})
    return g.reset_index()


def theorem6_facts(tp: pd.DataFrame, bound: float = THEOREM6_AT_QUARTER) -> dict:
    """Glue of the Theorem 6 runs: the largest ``l`` present (``tp_lmax``, its seeds ``tp_runs``, the
    literal and the progress reading's ranges), deviations of the worst run per ``l >= 2`` from
    ``bound`` (``tp_dev_lo/hi``, ``tp_prog_dev``), the H-SF-like runs (``tp_low`` of ``tp_total``) and
    the integer-length range at ``l = 1`` (``tp_l1_lo/hi``, ``nan`` if absent)."""
    lmax = int(tp.l.max())
    big = tp[tp.l == lmax]
    ge2 = tp[tp.l >= 2]
    dev_l = ge2.groupby("l")["a-min"].max() / bound - 1
    one = tp[tp.l == 1]["a-min"]
    return {
        "tp_lmax": lmax, "tp_runs": int(big.seed.nunique()), "tp_thm6": bound,
        "tp_lit_lo": float(big["a-min"].min()), "tp_lit_hi": float(big["a-min"].max()),
        "tp_lit_dev": float(big["a-min"].max() / bound - 1),
        "tp_dev_lo": float(dev_l.min()) if len(dev_l) else float("nan"),
        "tp_dev_hi": float(dev_l.max()) if len(dev_l) else float("nan"),
        "tp_prog_dev": float(ge2["a-min-progress"].max() / bound - 1) if len(ge2) else float("nan"),
        "tp_prog_lo": float(big["a-min-progress"].min()), "tp_prog_hi": float(big["a-min-progress"].max()),
        "tp_low": int((tp["a-min"] < 1.2).sum()), "tp_total": int(len(tp)),
        "tp_l1_lo": float(one.min()) if len(one) else float("nan"),
        "tp_l1_hi": float(one.max()) if len(one) else float("nan"),
        "tp_M_v": int(tp.M.iloc[0]), "tp_load_v": int(tp.n.iloc[0] // tp.M.iloc[0]),
    }


def lemma2_facts(summary: pd.DataFrame, runs: pd.DataFrame) -> dict:
    """Glue of the Lemma 2 runs at the largest ``M`` present (``l2_M``): H-SF over the fluid form,
    deviation of the worst run from Lemma 2, H-SF-like runs, and for how many distributions the
    deviation shrinks from the smallest to the largest ``M`` present."""
    M_hi, M_lo = int(summary.M.max()), int(summary.M.min())
    top = summary[summary.M == M_hi]
    at = runs[runs.M == M_hi]
    trend = summary.pivot(index="dist", columns="M", values="rel_dev_max").abs().dropna()
    return {
        "l2_M": M_hi, "l2_hsf_lo": float(top.hsf_over_fluid.min()), "l2_hsf_hi": float(top.hsf_over_fluid.max()),
        "l2_dev_lo": float(top.rel_dev_max.min()), "l2_dev_hi": float(top.rel_dev_max.max()),
        "l2_low": int((at["a-min"] < 1.2).sum()), "l2_runs": int(len(at)),
        "l2_shrinks": int((trend[M_hi] < trend[M_lo]).sum()), "l2_n_dists": int(len(top)),
        "l2_sim_max": float(top.ratio_max.max()), "l2_formula_max": float(top.lemma2.max()),
    }


def fig2_facts(worst: pd.DataFrame, astar: float) -> dict:
    """Glue of the Figure 2 sweep (:func:`kvlib.theory.cyz_experiments.sweep_worst`) at the largest
    memory that has every ``alpha`` of the table (a partial table may hold only some at its largest
    memory; ``fig2_Mmax``), else at the largest memory: Aₗ against Theorem 7's bound, Aₘᵢₙ against Theorem 6's, where Aₗ beats Aₘᵢₙ
    and whether that is exactly ``alpha < astar``, and the drift of Aₗ's worst ratio across memories."""
    Ms = sorted(int(m) for m in set(worst.index.get_level_values("M")))
    alphas = set(worst.index.get_level_values("alpha"))
    full = [m for m in Ms if set(worst.loc[m].index) == alphas]  # memories with every alpha present
    M_at = full[-1] if full else Ms[-1]
    big = worst.loc[M_at]
    a = big.index.values.astype(float)
    exc = big["a-min"] - ry.theorem6_bound(a)
    t7 = big["a-l"] / big["theorem7"]
    al_better = big["a-l"] < big["a-min"]
    out = {
        "fig2_Mmax": M_at, "fig2_Ms_s": ", ".join(str(m) for m in Ms),
        "fig2_runs": _count_range(worst.runs.min(), worst.runs.max()),
        "fig2_al_worst": float(big["a-l"].max()), "fig2_amin_worst": float(big["a-min"].max()),
        "fig2_amin_n_above": int((exc > 1e-9).sum()), "fig2_n_alpha": int(len(exc)),
        "fig2_amin_exc": float(exc.max()), "fig2_t7_max": float(t7.max()), "fig2_t7_min": float(t7.min()),
        "fig2_t7_argmax": float(t7.idxmax()), "fig2_t7_above": int((t7 > 1 + 1e-9).sum()),
        "fig2_al_better": ", ".join(f"{x:.3f}" for x in big.index[al_better]) or "none",
        "fig2_switch_ok": str(bool((al_better.values == (a < float(astar))).all())),
    }
    if len(Ms) > 1:
        drift = (worst.loc[Ms[-1]]["a-l"] - worst.loc[Ms[0]]["a-l"]).dropna()
        out["fig2_drift"] = (f"from M = {Ms[0]} to M = {Ms[-1]} Aₗ's worst ratio changes by "
                             f"{drift.min():+.3f} to {drift.max():+.3f} across the {len(drift)} values of "
                             f"alpha present at both")
    else:
        out["fig2_drift"] = f"one memory only (M = {Ms[0]}) in this table; the full mode compares several"
    return out


def _count_range(lo, hi) -> str:
    """``"27"`` when both ends agree, else ``"3 to 5"`` (no "27-27")."""
    lo, hi = int(lo), int(hi)
    return str(lo) if lo == hi else f"{lo} to {hi}"


# --------------------------------------------------------------------------- Appendix EC.1 / EC.3


def _frac(x) -> str:
    x = Fraction(x)
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def ec1_display(prop: dict, ec7: dict) -> pd.DataFrame:
    """The two exact counterexamples of the Appendix EC.1 section: Proposition EC.1's three requests
    (:func:`kvlib.theory.memory_scaling.proposition_ec1_example`) and eq. (EC.7) on four requests
    (:func:`kvlib.theory.memory_scaling.coupled_expectations`), as fractions."""
    return pd.DataFrame([
        {"statement": "Proposition EC.1 (two schedules)", "o": str(prop["o"]), "s": prop["s"], "M": prop["M"],
         "beta M": int(prop["M"] * prop["beta"]), "TEL under M": _frac(prop["tel_M"]),
         "TEL under beta M": _frac(prop["tel_betaM"]),
         "quotient": _frac(Fraction(prop["tel_betaM"], prop["tel_M"])), "1/beta": _frac(1 / prop["beta"]),
         "hypotheses met": bool(prop["packed"] and prop["same_order"] and prop["feasible"]),
         "inequality holds": bool(prop["holds"])},
        {"statement": "eq. (EC.7) (A-random, all permutations)", "o": str(tuple(ec7["o"])), "s": ec7["s"],
         "M": ec7["M"], "beta M": ec7["small_M"], "TEL under M": _frac(ec7["E_tel_M"]),
         "TEL under beta M": _frac(ec7["E_tel_small"]), "quotient": _frac(ec7["quotient"]),
         "1/beta": _frac(ec7["bound"]), "hypotheses met": "-", "inequality holds": bool(ec7["holds"])},
    ])


def coupling_summary(rows: pd.DataFrame) -> pd.DataFrame:
    """Stored :func:`kvlib.theory.memory_scaling.coupling_row` rows per ``(n, M)``: instances, coupled
    pairs, pairs violating Proposition EC.1's inequality (and those of them meeting its hypotheses),
    instances whose mean over the permutations violates eq. (EC.7), and the largest quotients."""
    r = rows.assign(pairs=rows.perms, mean_viol=rows.mean_ratio > rows.inv_beta + 1e-12)
    g = r.groupby(["n", "M", "small_M"])
    return g.agg(instances=("seed", "size"), pairs=("pairs", "sum"), violating=("violations", "sum"),
                 violating_with_hypotheses=("violations_meeting_hypotheses", "sum"),
                 instances_violating_mean=("mean_viol", "sum"), largest_pair_quotient=("max_ratio", "max"),
                 largest_mean_quotient=("mean_ratio", "max"), inv_beta=("inv_beta", "first")).reset_index()


def ec5_display(results: dict) -> pd.DataFrame:
    """:func:`kvlib.theory.memory_scaling.theorem_ec1_part1` per policy: the two suprema and where."""
    return pd.DataFrame([{"policy": pol, "sup over {l..u}^n": _frac(r["sup_all"]), "attained at": str(r["argmax_all"]),
                          "sup over {l, u}^n": _frac(r["sup_ends"]), "attained at ": str(r["argmax_ends"]),
                          "(EC.5) holds": bool(r["holds"])} for pol, r in results.items()])


def ec6_summary(rows: pd.DataFrame) -> pd.DataFrame:
    """Stored :func:`kvlib.theory.memory_scaling.a_random_two_point_row` rows: per ``(l, u, s, M)``
    the worst A-random / H-SF over the short fractions and seeds, beside eq. (EC.6)'s bound."""
    r = rows.assign(alpha=rows.l / rows.u)
    g = r.groupby(["l", "u", "alpha", "s", "M"])
    out = g.agg(worst=("ratio", "max"), runs=("ratio", "size"), ec6=("ec6", "first")).reset_index()
    out["worst_over_bound"] = out.worst / out.ec6
    return out


def ec6_facts(summary: pd.DataFrame) -> dict:
    return {"ec6_worst_over_bound": float(summary.worst_over_bound.max()),
            "ec6_min_over_bound": float(summary.worst_over_bound.min()),
            "ec6_n_points": int(len(summary)), "ec6_n_runs": int(summary.runs.sum()),
            "ec6_all_below": str(bool((summary.worst <= summary.ec6).all()))}


# --------------------------------------------------------------------------- Lemma 1, Proposition 1


def periods_summary(rows: pd.DataFrame) -> pd.DataFrame:
    """Stored :func:`kvlib.book.chapters.amin.periods.periods_row` rows per configuration (means over seeds):
    evictions, Lemma 1's weighted deviations under the two readings of ``b_ij``, Proposition 1's
    deviation after the first period, Aₘᵢₙ / H-SF and Lemma 2."""
    keys = ["policy", "scale", "M", "s"]
    cols = ["evictions", "lemma1_dev_inputs", "lemma1_dev_requests", "prop1_later_dev", "ratio", "lemma2"]
    g = rows.groupby(keys)
    out = g[cols].mean().reset_index()
    out["runs"] = g.size().to_numpy()
    return out


def periods_facts(per_j: pd.DataFrame, summary: pd.DataFrame) -> dict:
    """Glue of the Lemma 1 / Proposition 1 section, over the rows present."""
    dev = per_j.first_share - per_j.prop1_first
    lit = summary[summary.policy == "a-min"]
    big = per_j[(per_j.policy == "a-min") & (per_j.scale == per_j.scale.max())]
    return {
        "per_first_dev_lo": float(dev.min()), "per_first_dev_hi": float(dev.max()),
        "per_first_absdev": float(dev.abs().mean()),
        "per_frac_in_lo": float((per_j.frac_inputs / per_j.prop1_first).min()),
        "per_frac_in_hi": float((per_j.frac_inputs / per_j.prop1_first).max()),
        "per_inputs_max": float(per_j.inputs_per_request.max()),
        "per_scale_max": int(big.scale.max()), "per_big_inputs_max": float(big.inputs_per_request.max()),
        "per_l1_in_lo": float(summary.lemma1_dev_inputs.min()), "per_l1_in_hi": float(summary.lemma1_dev_inputs.max()),
        "per_l1_rq_lo": float(summary.lemma1_dev_requests.min()),
        "per_l1_rq_hi": float(summary.lemma1_dev_requests.max()),
        "per_p1_lo": float(summary.prop1_later_dev.min()), "per_p1_hi": float(summary.prop1_later_dev.max()),
        "per_l2_lo": float((lit.ratio - lit.lemma2).min()), "per_l2_hi": float((lit.ratio - lit.lemma2).max()),
        "per_n_configs": int(len(summary)),
        "per_l2_hi_at": _l2_hi_at(lit),
        "per_prog": _prog_sentence(per_j),
        "per_dev_by_scale": "; ".join(
            f"c = {int(c)}: {float(v):.3f}" for c, v in
            (per_j[per_j.policy == "a-min"].assign(d=dev.abs()).groupby("scale").d.mean().items())),
    }


def _l2_hi_at(lit: pd.DataFrame) -> str:
    r = lit.loc[(lit.ratio - lit.lemma2).idxmax()]
    u = 4 * int(r.scale)  # periods_row's lengths are scale * {1..4}
    return f"c = {int(r.scale)}, M = {int(r.M)}, s = {int(r.s)}, where M/u = {int(r.M) / u:.1f}"


def _prog_sentence(per_j: pd.DataFrame) -> str:
    prog = per_j[per_j.policy == "a-min-progress"]
    if prog.empty:
        return "the alternative eviction order (AMinProgress) is measured in the full mode only"
    return (f"the alternative eviction order (AMinProgress) completes {prog.first_share.min():.2f}-"
            f"{prog.first_share.max():.2f} of each length in the first period, also far from Proposition 1")


# --------------------------------------------------------------------------- Corollary 2


def corollary2_summary(rows: pd.DataFrame) -> pd.DataFrame:
    """Stored :func:`kvlib.theory.cyz_experiments.corollary2_row` rows per distribution and memory:
    the worst ratios to H-SF of the revised (multi-interval) and the single-interval Aₘᵢₙ over the
    seeds, Lemma 2 for the single interval, and ``lambda_max``."""
    g = rows.groupby(["dist", "M"], sort=False)
    return g.agg(multi=("multi_over_hsf", "max"), single=("single_over_hsf", "max"),
                 lemma2_single=("lemma2_single", "max"), lambda_max=("lambda_max", "first"),
                 runs=("seed", "size")).reset_index()


def corollary2_facts(rows: pd.DataFrame, summary: pd.DataFrame) -> dict:
    return {"cor2_n": int(len(rows)), "cor2_multi_le_single": int((rows.multi_over_hsf <= rows.single_over_hsf).sum()),
            "cor2_multi_max": float(rows.multi_over_hsf.max()), "cor2_single_max": float(rows.single_over_hsf.max()),
            "cor2_lambda": float(summary.lambda_max.iloc[0]),
            "cor2_below": str(bool((rows.multi_over_hsf <= rows.lambda_max).all()))}
