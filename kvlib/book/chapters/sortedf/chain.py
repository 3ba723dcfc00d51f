"""The proof of 002 Theorem 3 in the chapter "Sorted-F and the ratio 48" (``notebooks/sortedf.py``).

Tables, the figure and the values the chapter glues in its sections "Theorem 3: Sorted-F against the
optimum", "The proof chain of Theorem 3 with 002's objects" and "Our variant". Every function works on
frames the chapter already holds: the stored tables ``theorem3``, ``adversarial`` and ``chain_sweep``
(:mod:`kvlib.book.chapters.sortedf.rows`), and the rows of :mod:`kvlib.theory.wyz_chain_paper` computed live
(``w58``: small instances with an optimal schedule; ``side``: Table EC.1 instances; ``spread``: the
spread family). Nothing here runs a policy except :func:`rev6_table`, which replays Sorted-F on one instance.

* Theorem 3: :func:`theorem3_small`, :func:`ratio_summary`, :func:`best_of_each_search`,
  :func:`adversarial_tables`, :func:`theorem3_values`;
* 002's objects: :func:`paper_links_table`, :func:`paper_chain_values`, :func:`side_table`,
  :func:`side_values`, :func:`spread_table`, :func:`spread_values`, :func:`lemma2_series`,
  :func:`lemma2_middle_line`, :func:`lemma2_series_table`, :func:`eps_table`, :func:`eps_values`,
  :func:`equalities_table`, :func:`equality_values`;
* our variant: :func:`searches_max`, :func:`variant_links_table`, :func:`chain_links_figure`,
  :func:`variant_values`, :func:`rev6_table`, :func:`rev6_values`, :func:`chain_sweep_runs`,
  :func:`chain_sweep_table`, :func:`theorem4_values`.

Values are returned as ``{glue key: value}`` with the Python types the prose's format specs expect
(``int``, ``float`` rounded as printed, or an already formatted ``str``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from kvlib.book.chapters.sortedf.page import dropped_sentence, plain, transposed
from kvlib.book.chapters.sortedf.rows import slug
from kvlib.policies.wyz import CHAIN_LINKS

__all__ = ["theorem3_small", "ratio_summary", "best_of_each_search", "adversarial_tables", "theorem3_values",
           "PAPER_LINK_NAMES", "paper_links_table", "paper_chain_values", "side_table", "side_values", "spread_table",
           "spread_values", "lemma2_series", "lemma2_middle_line", "lemma2_series_table", "eps_table", "eps_values",
           "equalities_table", "equality_values", "searches_max", "variant_links_table", "chain_links_figure",
           "variant_values", "rev6_table", "rev6_values", "chain_sweep_runs", "chain_sweep_table", "theorem4_values"]

# --- Theorem 3 -------------------------------------------------------------------------------------------

#: The ``theorem3`` columns under the names the page uses.
_THEOREM3_NAMES = {"upper": "OPT", "tel_sorted_f": "Sorted-F", "tel_sorted_f_lookahead": "Sorted-F (lookahead)",
                   "tel_mc_sf": "MC-SF", "separate": "Sorted-F_separate"}


def _instance_text(row, prefix: str = "") -> str:
    """``"M = .., s = .., o = .."`` of a row holding ``M``, ``s``, ``o`` (or ``best_M``, ... with ``prefix="best_"``)."""
    return f"M = {row[prefix + 'M']}, s = {row[prefix + 's']}, o = {row[prefix + 'o']}"


def theorem3_small(opt_f: pd.DataFrame) -> pd.DataFrame:
    """The rows of the stored ``theorem3`` table the IP proved optimal, renamed (``OPT``, ``Sorted-F``, ...),
    with the ratios ``"Sorted-F / OPT"``, ``"Sorted-F (lookahead) / OPT"`` and ``"MC-SF / OPT"``."""
    proved = opt_f["proved"].astype(bool)
    small = opt_f[proved].rename(columns=_THEOREM3_NAMES).reset_index(drop=True)
    for col in ("Sorted-F", "Sorted-F (lookahead)", "MC-SF"):
        small[col + " / OPT"] = small[col] / small["OPT"]
    return small


def ratio_summary(small: pd.DataFrame) -> pd.DataFrame:
    """Mean and largest of every ``"... / OPT"`` column of :func:`theorem3_small`, one row per ratio."""
    summary = small[[c for c in small if c.endswith("/ OPT")]].agg(["mean", "max"]).T
    return (summary.rename(index={"Sorted-F (lookahead) / OPT": "Sorted-F (look-ahead) / OPT"},
                           columns={"mean": "mean", "max": "largest"}).rename_axis("ratio of TELs").reset_index())


def best_of_each_search(adv_f: pd.DataFrame) -> pd.DataFrame:
    """The restart with the largest ``best_value`` of each objective of the stored ``adversarial`` table,
    indexed by objective."""
    return adv_f.loc[adv_f.groupby("objective")["best_value"].idxmax()].set_index("objective")


def adversarial_tables(best_of_obj: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Two tables of :func:`best_of_each_search`: the value each search reached with its TELs
    (``"not needed"`` where the search needs no optimum, stored as ``best_opt = -1``), and its best instance."""
    adv = best_of_obj.reset_index()
    adv_opt = adv["best_opt"].where(adv["best_opt"] >= 0)
    result = pd.DataFrame({
        "search maximises": adv["objective"].map(plain), "best value": adv["best_value"],
        "TEL of Sorted-F (rounds)": adv["best_tel_sorted_f"],
        "OPT (rounds)": adv_opt.map(lambda v: "not needed" if pd.isna(v) else f"{v:,.0f}"),
        "restart": adv["restart"], "steps": adv["steps"], "IP solves not closed": adv["unclosed"]})
    instances = pd.DataFrame({
        "search maximises": adv["objective"].map(plain), "M (tokens)": adv["best_M"],
        "prompts s (tokens)": adv["best_s"].astype(str), "outputs o (tokens)": adv["best_o"].astype(str)})
    return result, instances


def theorem3_values(opt_f: pd.DataFrame, small: pd.DataFrame, best_of_obj: pd.DataFrame, time_limit: float) -> dict:
    """The section's numbers: instances with a certified optimum (and what became of the others), the
    ratios to OPT, the worst instance, and the best instance of the adversarial search on Sorted-F / OPT."""
    proved = opt_f["proved"].astype(bool)
    unc_hi = (opt_f.loc[~proved, "tel_sorted_f"] / opt_f.loc[~proved, "lower"]).tolist()
    worst = small.loc[small["Sorted-F / OPT"].idxmax()]
    cur = best_of_obj.loc["Sorted-F / OPT"]
    return {
        "adv_ratio": f"{cur['best_value']:.4f}", "adv_inst": _instance_text(cur, "best_"),
        "adv_tel": int(cur["best_tel_sorted_f"]), "adv_opt": int(cur["best_opt"]),
        "opt_n": len(small),
        "opt_dropped_text": dropped_sentence(int((~proved).sum()), max(unc_hi) if unc_hi else 0.0, time_limit),
        "ratio_max": f"{small['Sorted-F / OPT'].max():.4f}", "ratio_mean": f"{small['Sorted-F / OPT'].mean():.4f}",
        "ratio_max_la": f"{small['Sorted-F (lookahead) / OPT'].max():.4f}",
        "ratio_max_mcsf": f"{small['MC-SF / OPT'].max():.4f}", "ratio_worst_inst": _instance_text(worst)}


# --- 002's objects ---------------------------------------------------------------------------------------

#: Plain names of the links of :data:`kvlib.theory.wyz_chain_paper.CLAIMS` (key without ``_ratio``).
PAPER_LINK_NAMES = {"thm4": "Theorem 4: Sorted-F / separate", "thm5": "Theorem 5: separate / group",
                    "thm6": "Theorem 6: group / align", "thm8": "Theorem 8: align / Optimal (align)",
                    "thm7": "Theorem 7: Optimal (align) / OPT", "thm3": "Theorem 3: Sorted-F / OPT"}


def paper_links_table(w58: pd.DataFrame) -> pd.DataFrame:
    """Every link of 002's chain on the rows of :func:`kvlib.theory.wyz_chain_paper.chain_row`: its claim,
    the largest ratio measured and the number of instances where the claim fails."""
    from kvlib.theory.wyz_chain_paper import CLAIMS

    return pd.DataFrame([{"link (002's objects)": PAPER_LINK_NAMES[k.replace("_ratio", "")],
                          "claimed": f"{ {'<=': '≤', '<': '&lt;'}[rel]} {c}", "largest measured": w58[k].max(),
                          "violations": int((~w58[k.replace("ratio", "holds")]).sum())} for k, rel, c in CLAIMS])


def paper_chain_values(w58: pd.DataFrame, w58_links: pd.DataFrame, cex: dict, mode: str) -> dict:
    """The chain of 002's objects on the small instances (``w58``, its :func:`paper_links_table`) and the
    smallest counterexample to Theorem 8 (``cex``, :func:`kvlib.theory.wyz_chain_paper.chain_values`)."""
    others = ~w58_links["link (002's objects)"].str.startswith("Theorem 8")
    return {"w58_n": len(w58), "w58_mode": mode, "w58_thm8_bad": int((~w58["thm8_holds"]).sum()),
            "w58_other_bad": int(w58_links.loc[others, "violations"].sum()),
            "w58_thm3_max": f"{w58['thm3_ratio'].max():.4f}",
            "w58_cex_align": f"{cex['tel_align']:g}",  # exact rationals; 13 and 23/2 on the smallest instance
            "w58_cex_optalign": f"{cex['tel_opt_align']:g}", "w58_cex_opt": int(cex["tel_opt"])}


#: The per-distribution summary of the Table EC.1 rows: column -> (row column, aggregation).
_SIDE_AGG = dict(instances=("n", "size"), batches=("K", "mean"), groups=("groups", "mean"),
                 largest_group=("group_size_max", "max"), thm4_max=("thm4_ratio", "max"),
                 thm5_max=("thm5_ratio", "max"), thm6_max=("thm6_ratio", "max"), lemma1=("lemma1_holds", "sum"),
                 lemma2=("lemma2_holds", "sum"), ec3=("ec3_holds", "sum"))

#: The rows of the Table EC.1 table: (label, column of the summary, digits).
_SIDE_ROWS = [("instances", "instances", 0), ("Phase-1 batches (mean)", "batches", 1), ("groups (mean)", "groups", 1),
              ("largest group (batches)", "largest_group", 0),
              ("Theorem 4: Sorted-F / separate, largest (claimed ≤ 1)", "thm4_max", 4),
              ("Theorem 5: separate / group, largest (claimed below 4)", "thm5_max", 4),
              ("Theorem 6: group / align, largest (claimed below 2)", "thm6_max", 4),
              ("Lemma 1 holds (instances)", "lemma1", 0), ("Lemma 2 holds (instances)", "lemma2", 0),
              ("(EC.3) holds (instances)", "ec3", 0)]

_SIDE_CHECKS = ["thm4_holds", "thm5_holds", "thm6_holds", "lemma1_holds", "lemma2_holds", "ec3_holds"]
_SPREAD_CHECKS = ["lemma2_holds", "ec3_holds", "lemma2_sum_le_4", "thm4_holds", "thm5_holds", "thm6_holds"]


def _violations(frame: pd.DataFrame, checks) -> int:
    """The number of ``False`` values in the boolean columns ``checks`` of ``frame``."""
    return int((~frame[checks]).sum().sum())


def side_table(side: pd.DataFrame) -> pd.DataFrame:
    """002's optimum-free links on the Table EC.1 rows (:func:`kvlib.book.chapters.sortedf.rows.paper_chain_ec1_row`),
    one column per distribution (in the rows' order), one row per quantity."""
    return transposed(side.groupby("distribution", sort=False).agg(**_SIDE_AGG), _SIDE_ROWS)


def side_values(side: pd.DataFrame) -> dict:
    """The numbers of the Table EC.1 rows: instances, violations of any link or lemma (``side_bad``), the
    largest ratios, the largest group and the number of groups per Phase-1 batch."""
    return {"side_n": len(side), "side_bad": _violations(side, _SIDE_CHECKS),
            "side_l5": float(round(side["thm5_ratio"].max(), 4)), "side_l6": float(round(side["thm6_ratio"].max(), 4)),
            "side_l4": float(round(side["thm4_ratio"].max(), 4)), "side_amax": int(side["group_size_max"].max()),
            "side_single": f"{side['groups'].sum() / side['K'].sum():.3f}"}


def spread_table(spread: pd.DataFrame) -> pd.DataFrame:
    """Lemma 2 and the optimum-free links on the spread family (rows of
    :func:`kvlib.theory.wyz_chain_paper.sorted_f_side`), one formatted value per quantity."""
    return pd.DataFrame({"quantity": [
        "instances", "with a group of ≥ 3 batches", "largest group (batches)", "largest ρ (claimed ≤ 1)",
        "Lemma 2 holds (instances)", "(EC.3) holds (instances)", "sum ≤ 4 · terminal holds (instances)",
        "Theorem 5: separate / group, largest (claimed below 4)",
        "Theorem 6: group / align, largest (claimed below 2)"], "value": [
        f"{len(spread):,d}", f"{int((spread['group_size_max'] >= 3).sum()):,d}", f"{int(spread['group_size_max'].max()):d}",
        f"{spread['lemma2_worst'].max():.4f}", f"{int(spread['lemma2_holds'].sum()):,d}",
        f"{int(spread['ec3_holds'].sum()):,d}", f"{int(spread['lemma2_sum_le_4'].sum()):,d}",
        f"{spread['thm5_ratio'].max():.4f}", f"{spread['thm6_ratio'].max():.4f}"]})


def spread_values(spread: pd.DataFrame) -> dict:
    """The numbers of the spread family: instances, those with a group of three or more batches, the largest
    group, the largest ρ of Lemma 2, violations of any check and Theorem 5's largest ratio."""
    return {"spread_n": len(spread), "spread_long": int((spread["group_size_max"] >= 3).sum()),
            "spread_amax": int(spread["group_size_max"].max()), "spread_rho": f"{spread['lemma2_worst'].max():.4f}",
            "spread_bad": _violations(spread, _SPREAD_CHECKS), "spread_l5": float(round(spread["thm5_ratio"].max(), 4))}


def lemma2_series(a: int):
    """The sum that 002 bounds after Lemma 2, exactly: the sum of (1/2)^⌊(a−i)/2⌋ over i = 1..a."""
    import sympy as sp

    return sum(sp.Rational(1, 2 ** ((a - i) // 2)) for i in range(1, a + 1))


def lemma2_middle_line(a: int):
    """The middle line of 002's display after Lemma 2, exactly: 2 (1 − (1/2)^⌊(a−1)/2⌋) / (1 − 1/2)."""
    import sympy as sp

    return 2 * (1 - sp.Rational(1, 2 ** ((a - 1) // 2))) / sp.Rational(1, 2)


def lemma2_series_table(largest: int = 8) -> pd.DataFrame:
    """:func:`lemma2_series`, :func:`lemma2_middle_line` and their difference for group sizes 1..``largest``."""
    sizes = list(range(1, largest + 1))
    return pd.DataFrame({"group size a": sizes, "sum of (1/2)^⌊(a−i)/2⌋ over i ≤ a": [str(lemma2_series(a)) for a in sizes],
                         "002's middle line": [str(lemma2_middle_line(a)) for a in sizes],
                         "sum minus middle line": [str(lemma2_series(a) - lemma2_middle_line(a)) for a in sizes]})


def _eps_row(f: pd.DataFrame, has_W: bool) -> dict:
    """Definition 1 and Inequalities (2)-(3) on one family; (3) needs the temporal groups (``has_W``)."""
    return {"instances": len(f), "eps_M": (f["eps"] / f["M"]).max(), "fill": f["def1_terminal_fill_min"].min(),
            "def1": int(f["def1_eps_holds"].sum()), "eta": f["ineq2_eta_min"].min(), "half": int(f["ineq2_holds"].sum()),
            "ineq2": int(f["ineq2_eps_holds"].sum()), "W_fill": f["eq3_W_fill_min"].min() if has_W else np.nan,
            "eq3": int(f["eq3_eps_holds"].sum()) if has_W else np.nan}


_EPS_ROWS = [("instances", "instances", 0), ("ε / M, largest", "eps_M", 3), ("terminal batch's fill / M, smallest", "fill", 3),
             ("Definition 1 with ε holds (instances)", "def1", 0), ("smallest quantity of (2)", "eta", 3),
             ("(2) above 1/2 holds (instances)", "half", 0), ("(2) with ε holds (instances)", "ineq2", 0),
             ("fill of a batch W / M, smallest", "W_fill", 3), ("(3) with ε holds (instances)", "eq3", 0)]


def eps_table(w58: pd.DataFrame, side: pd.DataFrame, spread: pd.DataFrame) -> pd.DataFrame:
    """The finite content of Definition 1 and Inequalities (2)-(3) on the three families, one column each."""
    eps = pd.DataFrame({"small (optimum known)": _eps_row(w58, True), "Table EC.1": _eps_row(side, False),
                        "spread": _eps_row(spread, False)}).T
    return transposed(eps, _EPS_ROWS, first="quantity (family →)")


def eps_values(w58: pd.DataFrame, side: pd.DataFrame, spread: pd.DataFrame) -> dict:
    """Per family, the instances where (2) holds above 1/2 without the slack, and whether every check with
    the slack ε holds on every instance (``"all"`` or ``"not all"``)."""
    out = {}
    for k, f in (("small", w58), ("ec1", side), ("spread", spread)):
        out[f"eps_{k}_half"] = int(f["ineq2_holds"].sum())
        out[f"eps_{k}_n"] = len(f)
    checks = ((w58, "def1_eps_holds"), (w58, "ineq2_eps_holds"), (w58, "eq3_eps_holds"), (side, "def1_eps_holds"),
              (side, "ineq2_eps_holds"), (spread, "def1_eps_holds"), (spread, "ineq2_eps_holds"))
    out["eps_all_ok"] = "all" if all(f[c].all() for f, c in checks) else "not all"
    out["eps_ec1_eta"] = f"{side['ineq2_eta_min'].min():.3f}"
    return out


def equalities_table(hb: dict, hd: dict) -> pd.DataFrame:
    """The two displayed equalities of 002 that fail, on their smallest instances: ``hb`` (Theorem 5, on
    s = (1, 1, 6), o = (5, 5, 1), M = 12) and ``hd`` (Theorem 7, on s = (6, 2), o = (4, 5), M = 12), both
    from :func:`kvlib.theory.wyz_chain_paper.chain_values`."""
    return pd.DataFrame([
        {"step of 002": "Theorem 5, last line: TEL of Sorted-F (separate)", "instance": "s = (1, 1, 6), o = (5, 5, 1), M = 12",
         "002's expression": hb["tel_separate_paper"], "true value": hb["tel_separate"], "true value is": "the checker's TEL"},
        {"step of 002": "Theorem 7, last equality (scaled cut times as printed)", "instance": "s = (6, 2), o = (4, 5), M = 12",
         "002's expression": hd["thm7_final_expr"], "true value": hd["tel_opt"], "true value is": "OPT"}])


def equality_values(hb: dict, hd: dict, w58: pd.DataFrame, side: pd.DataFrame) -> dict:
    """The numbers of the two equalities (see :func:`equalities_table`), and how often each fails on the
    small instances (Theorem 7) and the Table EC.1 instances (Theorem 5)."""
    return {"hb_sep": int(hb["tel_separate"]), "hb_sep_paper": int(hb["tel_separate_paper"]),
            "hb_group": int(hb["tel_group"]), "hd_opt": int(hd["tel_opt"]), "hd_expr": int(hd["thm7_final_expr"]),
            "w58_thm7_identity": int((~w58["thm7_final_identity_holds"]).sum()),
            "w58_thm7_identity_T": int(w58["thm7_identity_with_T_holds"].sum()),
            "sep_formula_off": int((~side["thm5_separate_formula_exact"]).sum()),
            "sep_formula_bound": int(side["thm5_holds_paper_formula"].sum())}


# --- our variant -----------------------------------------------------------------------------------------

def searches_max(links: pd.DataFrame, adv_f: pd.DataFrame) -> list:
    """For every link of ``links`` (indexed by the labels of :data:`kvlib.policies.wyz.CHAIN_LINKS`), the
    largest value the adversarial searches saw over every instance they visited (``max_<slug>`` columns of
    the stored ``adversarial`` table; NaN where no column exists)."""
    adv_max = adv_f.filter(like="max_").max()
    return [adv_max.get("max_" + slug(lab.split(":")[0]), np.nan) for lab in links.index]


_LINK_ROWS = [("002's constant", "claimed bound", 0), ("instances", "instances", 0), ("largest ratio", "max ratio", 4),
              ("mean ratio", "mean ratio", 4), ("violations", "violations", 0),
              ("largest reverse ratio", "max reverse ratio", 4), ("searches' largest", "searches' max", 4),
              ("remark", "status", 0)]


def variant_links_table(links: pd.DataFrame) -> pd.DataFrame:
    """:func:`kvlib.theory.chain48.link_table` (with its ``"searches' max"`` column) turned into one column per
    link (``"Theorem 4"``, ..., ``"bridge"``) and one row per quantity, with ≤ and ≥ in the remarks."""
    short = {lab: lab.split(":")[0].replace("Thm", "Theorem") for lab in links.index}
    pretty = links.assign(status=links["status"].str.replace("<=", "≤").str.replace(">=", "≥")).rename(index=short)
    return transposed(pretty, _LINK_ROWS, first="link of our variant")


def chain_links_figure(ratios: dict):
    """One histogram per link of :data:`kvlib.policies.wyz.CHAIN_LINKS` (``ratios``: label -> ratios), with
    002's constant dashed; two panels a row."""
    import matplotlib.pyplot as plt

    rows = (len(CHAIN_LINKS) + 1) // 2
    fig, axes = plt.subplots(rows, 2, figsize=(8, 2.6 * rows))
    axes = axes.ravel()
    for ax in axes[len(CHAIN_LINKS):]:
        ax.axis("off")
    for ax, (label, num, den, const) in zip(axes, CHAIN_LINKS):
        r = np.asarray(ratios[label], dtype=float)  # bins span the drawn axis (data and claimed bound): none is too thin
        ax.hist(r, bins=np.linspace(min(r.min(), 1.0) - 0.05, max(r.max(), const or 0.0) + 0.05, 41), color="tab:blue", alpha=0.8)
        if const is not None:
            ax.axvline(const, color="tab:red", linestyle="--", label=f"claimed {const:g}")
            ax.legend(fontsize=9)
        ax.set_title(plain(label), fontsize=9)
        ax.set(xlabel="ratio", ylabel="instances")
    fig.tight_layout()
    return fig


#: Glue-key part -> label of the link in :data:`kvlib.policies.wyz.CHAIN_LINKS`.
_LINK_KEYS = (("l4", "Thm 4: SF / separate"), ("l5", "Thm 5: separate / group"), ("l6", "Thm 6: group / align"),
              ("lb", "bridge: align / Optimal_align"), ("l7", "Thm 7: Optimal_align / OPT"))


def variant_values(links: pd.DataFrame, chain: pd.DataFrame, full: pd.DataFrame, adv_f: pd.DataFrame,
                   best_of_obj: pd.DataFrame) -> dict:
    """The numbers of our variant: per link its largest ratio (random instances and searches), violations and
    instances; the reverse ratios; the products against 48; the searches on single links; the failing links.

    ``links`` is :func:`kvlib.theory.chain48.link_table` with ``"searches' max"``, ``chain`` its input and
    ``full`` :func:`kvlib.theory.chain48.telescoped`."""
    largest = links[["max ratio", "searches' max"]].max(axis=1)
    out = {"chain_inst": len(full), "chain_inst_all": int(len(chain) + adv_f["visited"].sum())}
    for key, label in _LINK_KEYS:
        out[f"chain_{key}_max"] = float(round(largest[label], 4))
        out[f"chain_{key}_viol"] = int(links.loc[label, "violations"])
        out[f"chain_{key}_n"] = int(links.loc[label, "instances"])
    out["chain_l6_rev"] = float(round(links.loc["Thm 6: group / align", "max reverse ratio"], 4))
    out["chain_l5_rev"] = float(round(links.loc["Thm 5: separate / group", "max reverse ratio"], 4))
    out["chain_prod4_max"] = float(round(full["product of the four bounded links"].max(), 4))
    out["chain_prod_of_max"] = float(round(largest["Thm 4: SF / separate"] * largest["Thm 5: separate / group"]
                                           * largest["Thm 6: group / align"] * largest["Thm 7: Optimal_align / OPT"], 4))
    out["chain_sfopt_max"] = float(round(full["SF / OPT"].max(), 4))
    for k, objective in (("adv7", "Optimal_align / OPT"), ("adv5", "separate / group")):
        row = best_of_obj.loc[objective]
        out[f"{k}_val"] = float(round(row["best_value"], 4))
        out[f"{k}_inst"] = _instance_text(row, "best_")
    bad_links = [plain(label) for label in links.index if links.loc[label, "violations"] > 0]
    out["chain_failures"] = "none" if not bad_links else ", ".join(bad_links)
    return out


def _largest_align_over_group(chain: pd.DataFrame) -> pd.Series:
    """The row of ``chain`` with the largest align / group."""
    return chain.loc[(chain["align"] / chain["group"]).idxmax()]


def rev6_values(chain: pd.DataFrame) -> dict:
    """The instance with the largest align / group of our variant, its two TELs, and how many instances
    have align at least twice group."""
    rev6 = _largest_align_over_group(chain)
    return {"rev6_inst": _instance_text(rev6), "rev6_tels": f"group {rev6['group']}, align {rev6['align']}",
            "rev6_count": int((chain["align"] >= 2 * chain["group"]).sum())}


def rev6_table(chain: pd.DataFrame) -> pd.DataFrame:
    """The variant's group and align schedules on the instance with the largest align / group: Sorted-F's
    Phase-1 batches in group order, the starts of each schedule and its TEL."""
    from kvlib.core.model import Instance
    from kvlib.core.simulate import simulate
    from kvlib.policies.wyz import align_starts, group_order, group_starts, sorted_f

    rev6 = _largest_align_over_group(chain)
    inst = Instance.at_zero(rev6["s"], rev6["o"], int(rev6["M"]))
    pol = sorted_f()
    simulate(inst, pol)
    return pd.DataFrame({"schedule": ["group", "align"],
                         "batches (group order)": [str([b.tolist() for b in group_order(pol.batches, inst.output)])] * 2,
                         "starts": [group_starts(pol.batches, inst.output).tolist(),
                                    align_starts(pol.batches, inst.output).tolist()],
                         "TEL (rounds)": [rev6["group"], rev6["align"]]}).astype({"starts": str})


def chain_sweep_runs(mid_f: pd.DataFrame) -> pd.DataFrame:
    """The stored ``chain_sweep`` table as one row per run (per instance and Phase-1 constraint), with
    Theorem 4 (``holds``, ``ratio``: Sorted-F / separate) and the ratios separate / group and align / group."""
    mid = pd.concat([pd.DataFrame({"constraint": c, "Sorted-F": mid_f[f"tel_{c}"],
                                   **{k: mid_f[f"{k}_{c}"] for k in ("separate", "group", "align")}})
                     for c in ("peak", "lookahead")], ignore_index=True)
    mid["holds"] = mid["Sorted-F"] <= mid["separate"]
    mid["ratio"] = mid["Sorted-F"] / mid["separate"]
    mid["separate / group"] = mid["separate"] / mid["group"]
    mid["align / group"] = mid["align"] / mid["group"]
    return mid


def chain_sweep_table(mid: pd.DataFrame) -> pd.DataFrame:
    """Mean, smallest and largest of each quantity of :func:`chain_sweep_runs` per constraint, one row per
    quantity (Theorem 4 as shares and yes/no)."""
    t = mid.groupby("constraint")[["holds", "ratio", "separate / group", "align / group"]].agg(["mean", "min", "max"])
    t = t.rename(columns={"holds": "Theorem 4 holds (share)", "ratio": "Sorted-F / separate", "min": "smallest",
                          "max": "largest"}, index={"lookahead": "look-ahead"})
    t.columns = [f"{a}, {b}" for a, b in t.columns]
    t = t.T.map(lambda v: ("yes" if v else "no") if isinstance(v, (bool, np.bool_)) else f"{v:.4f}")
    t = t.rename(index={"Theorem 4 holds (share), mean": "Theorem 4 holds: share of the runs",
                        "Theorem 4 holds (share), smallest": "Theorem 4 holds on every run",
                        "Theorem 4 holds (share), largest": "Theorem 4 holds on some run"})
    return t.rename_axis("quantity (constraint →)").reset_index().rename_axis(columns=None)


def theorem4_values(small: pd.DataFrame, mid: pd.DataFrame) -> dict:
    """002's Theorem 4 on the small instances (:func:`theorem3_small`) and on the runs of
    :func:`chain_sweep_runs`, with the largest link ratios of the latter."""
    return {"th4_small_holds": int((small["Sorted-F"] <= small["Sorted-F_separate"]).sum()), "th4_small_n": len(small),
            "th4_mid_holds": int(mid["holds"].sum()), "th4_mid_n": len(mid), "th4_mid_ratio": f"{mid['ratio'].max():.4f}",
            "th4_small_ratio": f"{(small['Sorted-F'] / small['Sorted-F_separate']).max():.4f}",
            "mid_l5_max": float(round(mid["separate / group"].max(), 4)),
            "mid_l6_rev": float(round(mid["align / group"].max(), 4))}
