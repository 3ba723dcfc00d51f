"""002's experiments in the chapter "Sorted-F and the ratio 48" (``notebooks/sortedf.py``).

Tables, figures and the values the chapter glues in its sections "Why shortest-first fails", "Table 3",
"Table EC.1", "Appendix EC.4.2's observations", "002 Section 7" and "Lemma 1 on every batch". The
functions read the stored tables ``table3``, ``ec1`` and ``section7`` (:mod:`kvlib.book.chapters.sortedf.rows`) and
the live rows of :func:`kvlib.book.chapters.sortedf.rows.ec1_order_row`; only :func:`two_type_runs` runs policies
(through the chapter's own run function, which records Phase-1 batches for Lemma 1).

* shortest-first: :func:`two_type_runs`, :func:`two_type_table`, :func:`two_type_values`;
* Table 3: :func:`table3_long`, :data:`TABLE3_MEASURES`, :func:`table3_pivot`, :func:`table3_beside_paper`,
  :func:`table3_values`;
* Table EC.1: :data:`PAPER_EC1_VALUES`, :func:`paper_ec1`, :func:`ec1_long`, :func:`ec1_paper_tables`,
  :func:`ec1_ci_table`, :func:`ec1_means`, :func:`ec1_time_table`, :func:`ec1_order_table`, :func:`ec1_values`;
* observations: :func:`order_table`, :func:`observation_values`;
* Section 7: :func:`section7_means`, :func:`section7_figure`, :func:`workload_text`, :func:`section7_table`,
  :func:`section7_claims`, :func:`claims_table`, :func:`section7_values`;
* Lemma 1: :func:`lemma1_values`.

Values are returned as ``{glue key: value}`` with the Python types the prose's format specs expect.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from kvlib.book.chapters.sortedf.page import fallback_sentence, percent_phrase
from kvlib.book.chapters.sortedf.rows import EC1_ORDER_POLICIES, EC1_POLICIES, SECTION7_POLICIES, TABLE3_SELECTORS, slug
from kvlib.book.chapters.sortedf.synthetic import EC1_DISTRIBUTIONS, EC1_N

__all__ = ["two_type_runs", "two_type_table", "two_type_values", "TABLE3_MEASURES", "table3_long", "table3_pivot",
           "table3_beside_paper", "table3_values", "PAPER_EC1_VALUES", "paper_ec1", "ec1_long", "ec1_paper_tables",
           "ec1_ci_table", "ec1_means", "ec1_time_table", "ec1_order_table", "ec1_values", "PAPER_GROUP",
           "order_table", "observation_values", "section7_means", "section7_figure", "workload_text",
           "section7_table", "section7_claims", "claims_table", "section7_values", "lemma1_values"]

# --- shortest-first on the instances of 002 Theorem 1 and Theorem EC.1 -----------------------------------


def two_type_runs(run, sizes, dp_max: int) -> pd.DataFrame:
    """TEL of MC-SF, MC-SF2, Sorted-F (Swap) and Sorted-F (DP) on the instances of 002 Theorem 1 and Theorem
    EC.1 for every memory in ``sizes``; the exact DP only where ``M <= dp_max`` (missing elsewhere).

    ``run(instance, policy name, **options)`` returns ``(result, policy)`` (the chapter's checked run)."""
    from kvlib.theory.adversary import wyz_ec1_instance, wyz_thm1_instance

    rows = []
    for M in sizes:
        for fam, gen in (("Theorem 1", wyz_thm1_instance), ("Theorem EC.1", wyz_ec1_instance)):
            inst = gen(M)
            row = {"family": fam, "M": M, "n": inst.n}
            row["MC-SF"] = run(inst, "mc-sf")[0].tel
            row["MC-SF2 (s+o first)"] = run(inst, "mc-sf2")[0].tel
            row["Sorted-F (Swap)"] = run(inst, "sorted-f", selector="swap")[0].tel
            row["Sorted-F (DP)"] = run(inst, "sorted-f")[0].tel if M <= dp_max else np.nan
            rows.append(row)
    two = pd.DataFrame(rows)
    two["Sorted-F (DP)"] = two["Sorted-F (DP)"].astype("Int64")  # TEL is an integer; missing where not run
    two["MC-SF / Sorted-F"] = two["MC-SF"] / two["Sorted-F (Swap)"]
    two["MC-SF2 / Sorted-F"] = two["MC-SF2 (s+o first)"] / two["Sorted-F (Swap)"]
    return two


def two_type_table(two: pd.DataFrame) -> pd.DataFrame:
    """:func:`two_type_runs` with short column names; a column with a missing value shows ``"not run"``
    there and thousands separators elsewhere."""
    out = two.rename(columns={"M": "M (tokens)", "MC-SF2 (s+o first)": "MC-SF2", "Sorted-F (Swap)": "Swap",
                              "Sorted-F (DP)": "DP", "MC-SF / Sorted-F": "MC-SF ÷ Swap", "MC-SF2 / Sorted-F": "MC-SF2 ÷ Swap"})
    return out.assign(**{c: out[c].map(lambda v: "not run" if pd.isna(v) else f"{v:,.0f}")
                         for c in out.columns if out[c].isna().any()})


def two_type_values(two: pd.DataFrame) -> dict:
    """The numbers of the section: rows where the swap search ties MC-SF2; at the largest ``M`` the DP was
    run on, the EC.1 ratios to Sorted-F (DP); at the largest ``M``, the ratios to Sorted-F (Swap)."""
    dp = two[two.family == "Theorem EC.1"].dropna(subset=["Sorted-F (DP)"]).iloc[-1]
    t1 = two[two.family == "Theorem 1"].iloc[-1]
    e1 = two[two.family == "Theorem EC.1"].iloc[-1]
    return {"two_rows": len(two), "two_swap_eq_mcsf2": int((two["Sorted-F (Swap)"] == two["MC-SF2 (s+o first)"]).sum()),
            "two_dp_M": int(dp["M"]), "two_dp_e1_mcsf": f"{dp['MC-SF'] / dp['Sorted-F (DP)']:.3f}",
            "two_dp_e1_swap": f"{dp['Sorted-F (Swap)'] / dp['Sorted-F (DP)']:.3f}",
            "two_M": int(t1["M"]), "two_t1_ratio": f"{t1['MC-SF / Sorted-F']:.3f}",
            "two_e1_ratio": f"{e1['MC-SF2 / Sorted-F']:.3f}", "two_e1_mcsf": f"{e1['MC-SF / Sorted-F']:.3f}"}


# --- Table 3 ---------------------------------------------------------------------------------------------

#: The four measurements of :func:`table3_long` with the decimals their tables show.
TABLE3_MEASURES = (("ms", 2), ("F / F(DP)", 4), ("Sorted-F TEL / TEL(DP)", 4), ("Sorted-F s", 2))


def table3_long(t3f: pd.DataFrame) -> pd.DataFrame:
    """The stored ``table3`` table as one row per instance and selector: time of one selection (``ms``),
    ``F / F(DP)``, the whole schedule's TEL over the exact DP's and its time (``Sorted-F s``)."""
    return pd.concat([pd.DataFrame({"M": t3f["M"], "n": t3f["n"], "selector": lab, "ms": t3f[f"ms_{slug(lab)}"],
                                    "F / F(DP)": t3f[f"f_ratio_{slug(lab)}"],
                                    "Sorted-F TEL / TEL(DP)": t3f[f"tel_{slug(lab)}"] / t3f["tel_exact_dp"],
                                    "Sorted-F s": t3f[f"sf_s_{slug(lab)}"]}) for lab in TABLE3_SELECTORS],
                     ignore_index=True)


def table3_pivot(tab3: pd.DataFrame, value: str) -> pd.DataFrame:
    """The mean of ``value`` per ``(M, n)``, one column per selector."""
    return (tab3.pivot_table(index=["M", "n"], columns="selector", values=value).reset_index()
            .rename(columns={"M": "M (tokens)"}))


def table3_beside_paper(tab3: pd.DataFrame) -> pd.DataFrame:
    """002 Table 3 (optimality, complexity, recommended scale) beside our largest measurements (over ``M``)
    at the recommended scale, or at our largest ``n`` for quantile greedy (recommended from 1,000 on)."""
    paper = {"exact DP (Alg. 2)": ("optimal", "O(n² M)", "n ≤ 100", 100),
             "scaled DP (Alg. 3)": ("(1+ε)-approx.", "O(nB/ε)", "n ≤ 200", 200),
             "swap (Alg. 4)": ("local optimum", "O(n²)", "n ≤ 500", 500),
             "quantile (Alg. 5)": ("heuristic", "O(n)", "n ≥ 1000", max(tab3.n))}
    return pd.DataFrame([{"selector": k, "optimality (paper)": v[0], "complexity (paper)": v[1],
                          "scale (paper); our n": f"{v[2]}; {v[3]:,}",
                          **tab3[(tab3.selector == k) & (tab3.n == v[3])][["ms", "Sorted-F s", "F / F(DP)"]].max()
                          .rename({"ms": "one selection (ms)", "Sorted-F s": "whole schedule (s)"})}
                         for k, v in paper.items()])


def table3_values(tab3: pd.DataFrame, t3f: pd.DataFrame) -> dict:
    """The numbers of Table 3: times at the largest ``n`` and its largest ``M``, and each selector's
    ``F / F(DP)`` range and exact matches over the grid of ``t3f`` (the stored table)."""
    largest_n = max(set(tab3.n))
    largest_M = tab3[tab3.n == largest_n].M.max()  # the largest M measured at the largest n
    big = tab3[(tab3.n == largest_n) & (tab3.M == largest_M)].groupby("selector").mean(numeric_only=True)

    def f_ratio(selector):
        return tab3[tab3.selector == selector]["F / F(DP)"]

    return {"t3_n": int(largest_n), "t3_M": int(largest_M), "t3_dp_ms": f"{big.loc['exact DP (Alg. 2)', 'ms']:.1f}",
            "t3_swap_ms": f"{big.loc['swap (Alg. 4)', 'ms']:.1f}",
            "t3_worst_swap": f"{f_ratio('swap (Alg. 4)').max():.4f}", "t3_worst_q": f"{f_ratio('quantile (Alg. 5)').max():.4f}",
            "t3_worst_sc": f"{f_ratio('scaled DP (Alg. 3)').max():.4f}", "t3_min_sc": f"{f_ratio('scaled DP (Alg. 3)').min():.4f}",
            "t3_grid": len(t3f), "t3_swap_match": int((f_ratio("swap (Alg. 4)") == 1).sum()),
            "t3_dp_sf_s": f"{big.loc['exact DP (Alg. 2)', 'Sorted-F s']:.1f}",
            "t3_swap_sf_s": f"{big.loc['swap (Alg. 4)', 'Sorted-F s']:.1f}",
            "t3_q_match": int((f_ratio("quantile (Alg. 5)") == 1).sum())}


# --- Table EC.1 ------------------------------------------------------------------------------------------

#: 002 Table EC.1: the paper's values per policy, in the order of the distributions of
#: :data:`kvlib.book.chapters.sortedf.synthetic.EC1_DISTRIBUTIONS` (in 002's own time unit).
PAPER_EC1_VALUES = {"Sorted-LP": [9763.0, 9397.3, 10943.0, 6015.7, 22133.2],
                    "Sorted-F (Swap)": [9748.3, 9416.9, 10696.7, 6016.9, 22100.1],
                    "LP-Swap": [9771.4, 9385.3, 10665.7, 6016.0, 22128.2]}

#: 002's three policies.
PAPER_GROUP = ["Sorted-LP", "Sorted-F (Swap)", "LP-Swap"]


def paper_ec1() -> pd.DataFrame:
    """:data:`PAPER_EC1_VALUES` as a frame indexed by distribution."""
    return pd.DataFrame(PAPER_EC1_VALUES, index=list(EC1_DISTRIBUTIONS))


def ec1_long(ec1_f: pd.DataFrame) -> pd.DataFrame:
    """The stored ``ec1`` table as one row per instance and policy: TEL, computing time and the average
    latency per request (TEL / n)."""
    ec1 = pd.concat([pd.DataFrame({"distribution": ec1_f["distribution"], "n": ec1_f["n"], "trial": ec1_f["trial"],
                                   "policy": lab, "TEL": ec1_f[f"tel_{slug(lab)}"], "seconds": ec1_f[f"s_{slug(lab)}"]})
                     for lab in EC1_POLICIES], ignore_index=True)
    ec1["avg latency"] = ec1["TEL"] / ec1["n"]
    return ec1


def ec1_paper_tables(ec1: pd.DataFrame, ec1_f: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """002 Table EC.1 beside ours: (the TELs of Sorted-LP and LP-Swap relative to Sorted-F (Swap), paper and
    ours; the paper's values beside our mean TELs; our mean TEL per distribution and policy)."""
    paper = paper_ec1()
    ours_tel = ec1.pivot_table(index="distribution", columns="policy", values="TEL", aggfunc="mean").reindex(paper.index)
    trials = ec1_f.groupby("distribution").size().reindex(paper.index)
    ratio = pd.DataFrame({"n": [EC1_N[d] for d in paper.index], "trials (ours)": trials}, index=paper.index)
    absolute = pd.DataFrame(index=paper.index)
    for p in paper:
        absolute[f"{p}: paper"] = paper[p].map("{:,.1f}".format)
        absolute[f"{p}: ours"] = ours_tel[p]
    for p in ("Sorted-LP", "LP-Swap"):
        ratio[f"{p}: paper"] = paper[p] / paper["Sorted-F (Swap)"]
        ratio[f"{p}: ours"] = ours_tel[p] / ours_tel["Sorted-F (Swap)"]
    return ratio.rename_axis("distribution").reset_index(), absolute.rename_axis("distribution").reset_index(), ours_tel


def ec1_ci_table(ec1: pd.DataFrame) -> pd.DataFrame:
    """Average latency per request, mean ± 95% confidence interval (:func:`kvlib.book.stats.ci`), one row per
    policy, one column per distribution."""
    from kvlib.book.stats import ci

    tab = ec1.pivot_table(index=["distribution", "n"], columns="policy", values="avg latency", aggfunc=ci)
    tab = tab[list(EC1_POLICIES)]
    return tab.reset_index("n", drop=True).T.rename_axis("policy").reset_index()


def ec1_means(ec1: pd.DataFrame) -> pd.DataFrame:
    """Mean average latency per distribution (rows) and policy (columns)."""
    return ec1.pivot_table(index="distribution", columns="policy", values="avg latency", aggfunc="mean")


def ec1_time_table(ec1: pd.DataFrame) -> pd.DataFrame:
    """Mean computing time per instance of each policy."""
    return ec1.groupby("policy")["seconds"].mean().rename("mean time per instance (s)").reset_index()


def ec1_order_table(means: pd.DataFrame) -> pd.DataFrame:
    """The policies ordered by mean average latency (best first), per distribution of ``means``."""
    order_per = {d: " < ".join(means.loc[d].sort_values().index) for d in means.index}
    return pd.DataFrame({"distribution": list(order_per),
                         "policies by mean average latency (best first)": list(order_per.values())})


def ec1_values(ec1_f: pd.DataFrame, ours_tel: pd.DataFrame, means: pd.DataFrame, lp_fallback_step: int) -> dict:
    """The numbers of Table EC.1: the Uniform / Exponential ratio (paper and ours), trials, the best policy
    per distribution, ratios of FCFS and MC-SF, the spread among 002's three policies (ours and the
    paper's, in percent) and the sentence about LP runs on the fallback grid."""
    paper = paper_ec1()
    n_fallbacks = int(ec1_f.filter(like="lp_step_").gt(0).sum().sum())  # LP runs on the fallback grid
    spread = (means[PAPER_GROUP].max(axis=1) / means[PAPER_GROUP].min(axis=1) - 1)
    mcsf_vs_group = means["MC-SF"] / means[PAPER_GROUP].min(axis=1) - 1
    swap = "Sorted-F (Swap)"
    return {"ec1_ue_paper": f"{paper.loc['Uniform', swap] / paper.loc['Exponential', swap]:.2f}",
            "ec1_ue_ours": f"{ours_tel.loc['Uniform', swap] / ours_tel.loc['Exponential', swap]:.1f}",
            "ec1_trials": int(ec1_f.groupby("distribution").size().min()), "ec1_n": EC1_N["Uniform"],
            "ec1_best": ", ".join(f"{d}: {p}" for d, p in means.idxmin(axis=1).items()),
            "ec1_fcfs_ratio": f"{(means['FCFS'] / means[swap]).min():.2f}",
            "ec1_mcsf_ratio": f"{(means['MC-SF'] / means[swap]).mean():.3f}",
            "ec1_group_spread": float(round(100 * spread.max(), 2)),
            "ec1_paper_spread": float(round(100 * (paper.max(axis=1) / paper.min(axis=1) - 1).max(), 2)),
            "ec1_mcsf_vs_group": float(round(100 * mcsf_vs_group.min(), 2)),
            "ec1_mcsf_vs_group_max": float(round(100 * mcsf_vs_group.max(), 2)),
            "ec1_fallback_text": fallback_sentence(n_fallbacks, lp_fallback_step)}


# --- Appendix EC.4.2's observations ----------------------------------------------------------------------

#: The measures of :func:`kvlib.book.chapters.sortedf.rows.ec1_order_row`: column prefix -> label.
_ORDER_MEASURES = {"rho_o": "ρ(start, o)", "rho_s": "ρ(start, s)", "early_s": "early s / mean s"}


def order_table(order: pd.DataFrame) -> pd.DataFrame:
    """Each measure of the start order, mean over the instances of each distribution, one column per policy
    of :data:`kvlib.book.chapters.sortedf.rows.EC1_ORDER_POLICIES`."""
    return pd.DataFrame([{"distribution": d, "measure": lab,
                          **{p: order.loc[order["distribution"] == d, f"{k}_{slug(p)}"].mean() for p in EC1_ORDER_POLICIES}}
                         for d in EC1_DISTRIBUTIONS for k, lab in _ORDER_MEASURES.items()])


def observation_values(order: pd.DataFrame, means: pd.DataFrame) -> dict:
    """The numbers and verdicts of 002's observations 1-3: how often Sorted-LP's start order follows ``o``
    more than ``s``, how often LP-Swap and Sorted-F (Swap) order more by prompt than Sorted-LP (``order``:
    rows of :func:`kvlib.book.chapters.sortedf.rows.ec1_order_row`), and Sorted-F (Swap) against LP-Swap on Mixed
    (``means``: :func:`ec1_means`)."""
    paper = paper_ec1()
    ro = {lab: order[f"rho_o_{slug(lab)}"] for lab in EC1_ORDER_POLICIES}
    rs = {lab: order[f"rho_s_{slug(lab)}"] for lab in EC1_ORDER_POLICIES}
    lp_o_gt_s = int((ro["Sorted-LP"] > rs["Sorted-LP"]).sum())
    half = len(order) / 2
    obs3 = means.loc["Mixed", "Sorted-F (Swap)"] / means.loc["Mixed", "LP-Swap"]
    return {"order_lp_o_min": f"{ro['Sorted-LP'].min():.2f}", "order_lp_o_gt_s": lp_o_gt_s, "order_n": len(order),
            "order_swap_s_gt_lp": int((rs["Sorted-F (Swap)"] > rs["Sorted-LP"]).sum()),
            "order_lpswap_s_gt_lp": int((rs["LP-Swap"] > rs["Sorted-LP"]).sum()),
            "obs3_mixed": f"{obs3:.4f}",
            "obs3_paper": f"{paper.loc['Mixed', 'Sorted-F (Swap)'] / paper.loc['Mixed', 'LP-Swap']:.4f}",
            "obs3_lpswap_worst": f"{(means['LP-Swap'] / means[PAPER_GROUP].min(axis=1)).max():.4f}",
            "obs1_verdict": "holds on every instance" if lp_o_gt_s == len(order)
            else ("holds on most instances" if lp_o_gt_s > half else "does not hold on most instances"),
            "obs2_verdict": "supports" if (rs["LP-Swap"] > rs["Sorted-LP"]).sum() > half else "does not support",
            "obs3_verdict": "better" if obs3 < 1 else "not better"}


# --- 002 Section 7 ---------------------------------------------------------------------------------------

def section7_means(s7: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Mean average latency (rounds) and mean wall time (s) per size ``n`` (rows) and policy of
    :data:`kvlib.book.chapters.sortedf.rows.SECTION7_POLICIES` (columns), from the stored ``section7`` table."""
    labels = list(SECTION7_POLICIES)
    latency = s7.groupby("n")[[f"avg_{slug(p)}" for p in SECTION7_POLICIES]].mean().set_axis(labels, axis=1)
    seconds = s7.groupby("n")[[f"s_{slug(p)}" for p in SECTION7_POLICIES]].mean().set_axis(labels, axis=1)
    return latency, seconds


def section7_figure(latency: pd.DataFrame):
    """002 Figure 8 in rounds: average latency per request against the number of requests, one line per policy."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 3.0))
    latency.plot(ax=ax, marker="o", ms=3)
    ax.set(xlabel="number of requests", ylabel="average latency (rounds)")
    fig.tight_layout()
    return fig


def _arxiv_part(workload: str) -> str:
    """The arXiv part of a stored workload label, in words (a file name as a code literal)."""
    part = workload.split(" + ", 1)[-1]
    return f"its arXiv part is the real trace `{part[len('real trace: '):]}`" if part.startswith("real trace: ") \
        else f"its arXiv part is {part}"


def workload_text(s7: pd.DataFrame) -> str:
    """What the arXiv part of each distinct workload of ``s7`` is (Markdown, sentences joined by ``"; "``)."""
    return "; ".join(_arxiv_part(w) for w in sorted(set(s7["workload"])))


def section7_table(latency: pd.DataFrame, s7: pd.DataFrame) -> pd.DataFrame:
    """:func:`section7_means`' latencies with the number of seeds per size."""
    return latency.reset_index().rename(columns={"n": "requests"}).assign(seeds=s7.groupby("n").size().values)


def section7_claims(latency: pd.DataFrame, seconds: pd.DataFrame) -> dict:
    """002's claims about Figure 8 and Figure EC.2 (paraphrased) -> whether each holds, size by size."""
    return {"MC-SF above Sorted-F (Swap) and Sorted-LP": (latency["MC-SF"] > latency[["Sorted-F (Swap)", "Sorted-LP"]].max(axis=1)),
            "quantile faster than swap": (seconds["Sorted-F (Quantile)"] < seconds["Sorted-F (Swap)"]),
            "swap below quantile in latency": (latency["Sorted-F (Swap)"] < latency["Sorted-F (Quantile)"]),
            "LP-Swap below Sorted-LP": (latency["LP-Swap"] < latency["Sorted-LP"]),
            "LP-Swap within 1% of Sorted-F (Swap) (Figure EC.2)": ((latency["LP-Swap"] / latency["Sorted-F (Swap)"] - 1).abs() < 0.01),
            "Sorted-F (Swap) computes faster than LP-Swap": (seconds["Sorted-F (Swap)"] < seconds["LP-Swap"])}


def claims_table(claims: dict) -> pd.DataFrame:
    """:func:`section7_claims` as ``"k of n"`` sizes where each claim holds."""
    return pd.DataFrame({"002 Section 7 claim (paraphrased)": list(claims),
                         "sizes where it holds (ours)": [f"{int(v.sum())} of {len(v)}" for v in claims.values()]})


def section7_values(latency: pd.DataFrame, claims: dict) -> dict:
    """The numbers of Section 7: sizes, where LP-Swap is below Sorted-LP, and at the largest size LP-Swap
    against Sorted-F (Swap) and Sorted-LP (percent, and in words) and quantile greedy over the swap search."""
    lps_gap = 100 * (latency["LP-Swap"] / latency["Sorted-F (Swap)"] - 1).iloc[-1]
    lp_gap = 100 * (latency["LP-Swap"] / latency["Sorted-LP"] - 1).iloc[-1]
    return {"s7_sizes": len(latency), "s7_lpswap_lp": int(claims["LP-Swap below Sorted-LP"].sum()),
            "s7_nmax": int(latency.index.max()), "s7_lps_gap": float(round(lps_gap, 2)), "s7_lp_gap": float(round(lp_gap, 2)),
            "s7_lps_gap_text": percent_phrase(lps_gap), "s7_lp_gap_text": percent_phrase(lp_gap),
            "s7_q_gap": float(round(latency["Sorted-F (Quantile)"].iloc[-1] / latency["Sorted-F (Swap)"].iloc[-1], 3))}


# --- Lemma 1 over the chapter ----------------------------------------------------------------------------

def lemma1_values(tally: tuple, opt_f: pd.DataFrame, mid_f: pd.DataFrame, ec1_f: pd.DataFrame) -> dict:
    """Lemma 1 over every Phase-1 batch of the chapter: ``tally`` is :func:`kvlib.policies.wyz.lemma1_tally`
    of the schedules built live, to which the counts of the stored tables ``theorem3`` (``opt_f``),
    ``chain_sweep`` (``mid_f``) and ``ec1`` (``ec1_f``) are added: F-minimising selectors (exact / DP) in
    ``lemma1_batches`` and ``lemma1_bad``, 002's heuristic selectors in ``lemma1_heur_*``."""
    nb, bad, nh, nh_bad = tally
    stored = [(opt_f, "batches", "lemma1_bad"), (mid_f, "batches_peak", "lemma1_bad_peak"),
              (mid_f, "batches_lookahead", "lemma1_bad_lookahead"), (ec1_f, "batches_sorted_f_dp", "lemma1_bad_sorted_f_dp")]
    return {"lemma1_batches": nb + sum(int(f[b].sum()) for f, b, _ in stored),
            "lemma1_bad": len(bad) + sum(int(f[v].sum()) for f, _, v in stored),
            "lemma1_heur_batches": nh + int(ec1_f["batches_sorted_f_swap"].sum()),
            "lemma1_heur_bad": nh_bad + int(ec1_f["lemma1_bad_sorted_f_swap"].sum())}
