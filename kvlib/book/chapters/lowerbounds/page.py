"""Tables, figures, verification lists and glued values of the chapter "Lower-bound instances" (notebooks/lowerbounds.py).

The chapter reads its rows from the results store (row functions in :mod:`kvlib.book.chapters.lowerbounds.rows`,
which stored results depend on: this module is kept apart from it) and narrates; everything it shows
is built here, one function per section:

* :func:`stored_values` -- the table of the chapter's stored tables and their captions;
* :func:`thm41_section`, :func:`thm41_steps_section` -- 001 Theorem 4.1: the adversary's runs, the
  certified optima, the figure, and each step of the proof with its verification list;
* :func:`thm62_section`, :func:`remark63_section` -- 004 Theorems 6.2 and 6.4, and Remark 6.3;
* :func:`wyz_frame`, :func:`wyz_show`, :func:`wyz1_section`, :func:`ec1_section` -- 002 Theorems 1
  and EC.1, and our heavy/light variant;
* :func:`three_partition_section`, :func:`partition_section` -- 002 Theorems 2 and EC.2 (both
  reductions);
* :func:`small_table`, :func:`smallest_section` -- the smallest all-at-zero instances on which MC-SF
  is not optimal.

Each ``*_section`` function returns a :class:`Section`: the values the chapter glues (key -> value,
glued as they are: no conversion, so that the page shows exactly what the chapter computed), the rows
it adds to the summary table, and, where the section has them, its figure, its verification list and
the frames it offers as CSV.  :func:`tbl` and :func:`checks_table` are the chapter's table styles.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from kvlib.book.gluing import first_failure
from kvlib.book.stats import fit_exponent
from kvlib.book.tables import styled
from kvlib.core.checker import check_schedule
from kvlib.core.model import Instance, Schedule
from kvlib.core.simulate import simulate
from kvlib.policies import make_policy
from kvlib.theory import adversary as adv
from kvlib.theory import pause62 as P62

__all__ = ["Section", "STORED_HOLDS", "SUMMARY_003", "NONE_FOUND", "THM62_POLICY_NAMES", "tbl", "checks_table",
           "yes_no", "certified_columns", "three_partition_keys", "stored_values", "thm41_section",
           "thm41_steps_section", "thm62_section", "remark63_summary", "remark63_section", "wyz_frame", "wyz_show",
           "wyz1_section", "ec1_section", "yes_no_cells", "three_partition_section", "partition_section",
           "small_table", "smallest_section"]

#: What each stored table of the chapter holds (the "holds" column of the table of stored tables).
STORED_HOLDS = {"thm41": "001 Thm 4.1: adversary runs, one per (M, policy)",
                "wyz": "002 Thms 1 and EC.1: the paper's families",
                "heavy": "002 Thm 1: our heavy/light variant",
                "tp": "002 Thm 2: our corrected reduction, certified OPT",
                "tp_paper": "002 Thm 2: the paper's reduction, certified OPT",
                "thm41_opt": "001 Thm 4.1: certified optima",
                "wyz_opt": "002 Thms 1 and EC.1: certified optima"}

#: The summary table's row for 003 Theorem 2, whose section points to the Aₘᵢₙ chapter.
SUMMARY_003 = {"construction": "003 Thm 2 (Aₘₐₓ, s = 0, M = l u)", "claimed (paper's)": "see the Aₘᵢₙ chapter",
               "measured": "-", "verdict": "covered there"}

#: What a table or a value says when the exhaustive search found nothing.
NONE_FOUND = "none found in the searched range"


@dataclass
class Section:
    """What one section of the chapter shows: ``values`` to glue (key -> value, glued as they are),
    ``summary`` rows of the summary table (in order), and where the section has them its ``figure``,
    its verification list ``checks`` (check -> holds) and the ``frames`` it offers as CSV (key -> frame)."""

    values: dict
    summary: list = field(default_factory=list)
    figure: object = None
    checks: dict = field(default_factory=dict)
    frames: dict = field(default_factory=dict)


def tbl(df, **kw):
    """``styled(df)`` with some room between the columns (long numbers side by side stay apart)."""
    return styled(df, **kw).set_table_styles([{"selector": "td, th", "props": [("padding-left", "0.4em"), ("padding-right", "0.4em")]}],
                                             overwrite=False)


def checks_table(checks: dict):
    """A verification list (check, result) as a table with yes/no results."""
    return tbl(pd.DataFrame({"check": list(checks), "holds": ["yes" if v else "no" for v in checks.values()]}))


def yes_no(flag) -> str:
    """``"yes"`` if ``flag`` is true, else ``"no"`` (how the prose states a check's result)."""
    return "yes" if flag else "no"


def certified_columns() -> dict:
    """The column classes of a stored table of certified optima, as :meth:`Store.table` takes them:
    the interval ``(lower, upper)``, the timing ``seconds``, and ``proved`` ignored (machine-dependent)."""
    return dict(interval=[("lower", "upper")], timing=["seconds"], ignore=["proved"])


def three_partition_keys(ms, trials: int, *, B: int, seed: int, time_limit: float) -> list[dict]:
    """The keys of the 3-Partition tables: one per trial, size ``m`` and yes/no (in this order)."""
    return [dict(m=m, yes=yes, trial=k, B=B, seed=seed, time_limit=time_limit)
            for k in range(trials) for m in ms for yes in (True, False)]


def stored_values(tables, *, mode: str, time_limit: float) -> dict:
    """The table of the chapter's stored tables (``lb_tbl_stored``: what each holds, rows stored /
    expected, source), how many there are and are complete, the time limit of a certified optimum,
    and each table's provenance label as ``cap_NAME`` (``cap_wyz_opt`` says "none" if that table was
    not opened)."""
    values = {
        "lb_tbl_stored": tbl(pd.DataFrame({
            "holds": [STORED_HOLDS[t.name] for t in tables], "rows": [f"{t.n_rows} / {t.n_expected}" for t in tables],
            "source": [t.label for t in tables]})),
        "lb_tables_n": len(tables),
        "lb_tables_complete": sum(t.complete for t in tables),
        "lb_time_limit": f"{time_limit:g}",
    }
    for t in tables:
        values[f"cap_{t.name}"] = t.label
    if "wyz_opt" not in {t.name for t in tables}:
        values["cap_wyz_opt"] = f"none in {mode} mode"
    return values


def _thm41_figure(mcsf41):
    """001 Theorem 4.1: the measured ratio against the paper's sqrt(M)/28, log-log."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(mcsf41.index, mcsf41["ratio >="], "o-", label="TEL(policy) / OPT upper bound (all policies)")
    ax.plot(mcsf41.index, mcsf41["sqrt(M)/28 (paper's)"], "--", label=r"paper's bound $\sqrt{M}/28$")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("M (tokens)")
    ax.set_ylabel("ratio")
    ax.set_title("001 Theorem 4.1 (the paper's instance)")
    ax.legend()
    return fig


def thm41_section(thm41, opt) -> Section:
    """001 Theorem 4.1 from the adversary's runs ``thm41`` (the chapter's frame: one row per (M, policy))
    and the stored certified optima ``opt`` (one row per M): the three tables, the figure, the
    verification list of the runs, the values the prose cites and the summary row."""
    same = thm41.groupby("M")["TEL(policy)"].nunique().max() == 1
    mcsf41 = thm41[thm41.policy == "mc-sf"].set_index("M")
    t = mcsf41.reset_index()
    values = {
        "lb_tbl_thm41": tbl(pd.DataFrame({
            "M": t["M"], "n": t["n"], "TEL": t["TEL(policy)"], "paper's TEL bound": t["TEL lower (paper's)"],
            "OPT upper": t["OPT upper"], "paper's OPT bound": t["OPT upper (paper's (13))"],
            "ratio ≥": t["ratio >="], "paper's √M/28": t["sqrt(M)/28 (paper's)"]})),
        "lb_tbl_thm41_runs": tbl(pd.DataFrame({
            "M": t["M"], "b (alone)": t["b"], "b (full instance)": t["b (full instance)"], "r": t["r"],
            "our OPT upper from": t["OPT upper from"], "OPT lower (volume)": t["OPT lower (volume)"]})),
    }
    cf = thm41.dropna(subset=["closed_form_alg"])
    formula_ok = bool(len(cf) and (cf["closed_form_alg"] == cf["TEL(policy)"]).all())
    exact41 = opt.set_index("M")
    exact41 = pd.DataFrame({
        "OPT lower (certified)": exact41["lower"], "OPT upper (certified)": exact41["upper"],
        "optimal": exact41["proved"], "our explicit upper": exact41["explicit_upper"],
        "TEL(MC-SF)": mcsf41["TEL(policy)"].reindex(exact41.index), "seconds": exact41["seconds"]})
    values["lb_tbl_thm41_exact"] = tbl(pd.DataFrame({
        "M": exact41.index, "OPT ≥ (certified)": exact41["OPT lower (certified)"].to_numpy(),
        "OPT ≤ (certified)": exact41["OPT upper (certified)"].to_numpy(),
        "proved optimal": ["yes" if v else "no" for v in exact41["optimal"].astype(bool)],
        "our explicit upper": exact41["our explicit upper"].to_numpy(), "TEL (MC-SF)": exact41["TEL(MC-SF)"].to_numpy(),
        "solve (s)": exact41["seconds"].to_numpy()}), formats={"solve (s)": "{:.1f}"})
    proved = exact41[exact41["optimal"].astype(bool)]
    explicit_is_opt = bool(len(proved) and (proved["our explicit upper"] == proved["OPT upper (certified)"]).all())
    # where the interval did not close: is the explicit schedule at least inside it?
    explicit_inside = bool((exact41["our explicit upper"] >= exact41["OPT lower (certified)"]).all())
    checks = {f"every policy has the same TEL at each M ({len(thm41)} adversary runs)": bool(same),
              "b consistent in every run (the policy starts the long request at the same time twice)":
                  bool(thm41["b consistent"].all()),
              f"closed form = simulation ({len(cf)} runs with M = (2k)^2)": formula_ok,
              "explicit schedule optimal where OPT is proved": explicit_is_opt,
              "explicit schedule >= certified lower bound everywhere": explicit_inside}
    ratio41 = mcsf41["ratio >="]
    exp41 = fit_exponent(mcsf41.index, ratio41)
    above = bool((ratio41 >= mcsf41["sqrt(M)/28 (paper's)"]).all())
    ratio_const = float(ratio41.iloc[-1] / math.sqrt(mcsf41.index[-1]))
    claim_max = mcsf41["sqrt(M)/28 (paper's)"].iloc[-1]
    values.update({
        "thm41_policies": ", ".join(sorted(set(thm41.policy))),
        "thm41_same": yes_no(same),
        "thm41_runs": len(thm41),
        "thm41_consistent": yes_no(thm41["b consistent"].all()),
        "thm41_formula_ok": yes_no(formula_ok),
        "thm41_exact_M": ", ".join(map(str, proved.index)) or "none",
        "thm41_n_proved": len(proved),
        "thm41_n_exact": len(exact41),
        "thm41_explicit_opt": yes_no(explicit_is_opt),
        "thm41_exp": f"{exp41:.2f}",
        "thm41_above": yes_no(above),
        "thm41_Mmax": int(mcsf41.index[-1]),
        "thm41_ratio_max": f"{ratio41.iloc[-1]:.2f}",
        "thm41_claim_max": f"{claim_max:.2f}",
        "thm41_const": f"{ratio_const:.3f}",
        "thm41_Mmin": int(mcsf41.index[0]),
        "thm41_nmax": int(mcsf41["n"].iloc[-1]),
        "thm41_nM": int(mcsf41.index.nunique()),
        "thm41_ub_paper_ok": yes_no(bool((mcsf41["OPT upper"] <= mcsf41["OPT upper (paper's (13))"]).all())),
        "thm41_lb_paper_ok": yes_no(bool((thm41["TEL(policy)"] >= thm41["TEL lower (paper's)"]).all())),
    })
    summary = {
        "construction": "001 Thm 4.1 (the paper's instance)",
        "claimed (paper's)": "ratio ≥ √M/28",
        "measured": f"ratio ~ M^{exp41:.2f}; {ratio41.iloc[-1]:.2f} at M = {mcsf41.index[-1]:,} (~ {ratio_const:.3f} √M)",
        "verdict": "holds at every M" if above else "fails for some M",
    }
    return Section(values, [summary], figure=_thm41_figure(mcsf41), checks=checks)


def thm41_steps_section(Ms, checks41: dict) -> Section:
    """Each step of the proof of 001 Theorem 4.1 at every memory ``M`` of ``Ms`` with ``sqrt(M)/2 >= 2``,
    for ``b = 0`` and ``b = sqrt(M)/2``: the SymPy identities, the OPT side and the algorithm side
    (tables), the verification list (``checks41`` of :func:`thm41_section` followed by the steps'
    checks, glued as ``lb_checks_thm41``), and the values at the largest ``M`` with ``b = 0``.
    ``frames["thm41-steps"]`` holds every column, for the CSV."""
    t41_disp = pd.DataFrame([{"step": d["step"], "lhs": P62.plain(d["lhs"]), "rhs": P62.plain(d["rhs"]),
                              "rhs - lhs": P62.plain(d["rhs - lhs"]), "condition": d["condition"]}
                             for d in adv.thm41_displays()])
    steps = pd.DataFrame([adv.thm41_paper_check(M_, b_) for M_ in Ms if adv.thm41_h(M_) >= 2
                          for b_ in (0, adv.thm41_h(M_))])
    values = {"lb_tbl_thm41_sympy": tbl(t41_disp)}
    values["lb_tbl_thm41_steps_opt"] = tbl(steps.assign(case=steps["case"].str.replace(">=", "≥")).rename(columns={
        "paper_opt_tel": "TEL of (13)'s schedule", "paper_opt_formula": "proof's value", "bound_13": "3.5 M",
        "our_opt_upper": "our OPT upper", "our_opt_from": "ours from"})[
        ["M", "b", "r", "case", "TEL of (13)'s schedule", "proof's value", "3.5 M", "our OPT upper", "ours from"]],
        formats={"3.5 M": "{:,.0f}"}).set_properties(subset=["case", "ours from"], **{"white-space": "nowrap"})
    values["lb_tbl_thm41_steps_alg"] = tbl(steps.rename(columns={
        "min_alg_tel": "least TEL of an algorithm", "paper_alg_lower": "(M/4) √M/2",
        "ratio": "least TEL / (13)'s TEL", "claimed": "√M/28"})[
        ["M", "b", "free", "early", "M/4", "least TEL of an algorithm", "(M/4) √M/2", "least TEL / (13)'s TEL",
         "√M/28"]], formats={"least TEL / (13)'s TEL": "{:.3f}", "√M/28": "{:.3f}"})
    ident = [d for d in adv.thm41_displays() if d["condition"] == "identity"]
    checks = {
        "identities of the proof (SymPy)": all(d["rhs - lhs"] == 0 for d in ident),
        "(13)'s schedule valid, with the proof's value, <= 3.5 M": bool(
            ((steps.paper_opt_tel == steps.paper_opt_formula) & (steps.paper_opt_tel <= steps.bound_13)).all()),
        "free tokens and early short requests <= M/4": bool(((steps.free <= steps["M/4"])
                                                            & (steps.early <= steps["M/4"])).all()),
        "least TEL of an algorithm >= (M/4) sqrt(M)/2": bool((steps.min_alg_tel >= steps.paper_alg_lower).all()),
        "least TEL / (13)'s TEL >= sqrt(M)/28": bool((steps.ratio >= steps.claimed).all()),
    }
    values["lb_checks_thm41"] = checks_table({**checks41, **checks})
    big = steps[steps.b == 0].iloc[-1]
    values.update({
        "t41s_all": yes_no(all(checks.values())),
        "t41s_rows": len(steps),
        "t41s_M": int(big.M),
        "t41s_alg": int(big.min_alg_tel),
        "t41s_alg_lb": int(big.paper_alg_lower),
        "t41s_opt13": int(big.paper_opt_tel),
        "t41s_ours": int(big.our_opt_upper),
        "t41s_early": int(big.early),
        "t41s_free": int(big.free),
        "t41s_M4": int(big["M/4"]),
        "t41s_ratio": f"{big.ratio:.2f}",
        "t41s_claim": f"{big.claimed:.2f}",
    })
    return Section(values, checks=checks, frames={"thm41-steps": steps})


#: The policies' names as the page writes them, in the table of 004 Theorem 6.2's adversary.
THM62_POLICY_NAMES = {"mc-sf": "MC-SF", "fcfs": "FCFS", "mc-benchmark": "MC-Benchmark"}


def thm62_section(Ms, k: int) -> Section:
    """004 Theorems 6.2 and 6.4 with ``epsilon = 1/k`` at the memory sizes ``Ms``: the proof's displays
    in SymPy, its three schedules in the pause model (also with prompts one token shorter), the
    adaptive adversary against three non-preemptive policies, Theorem 6.4's total mass, and the
    values the prose cites."""
    t62_disp = pd.DataFrame([{"display": d["display"], "as summed": P62.plain(d["as summed"]),
                              "as printed": P62.plain(d["as printed"]), "difference": P62.plain(d["difference"])}
                             for d in P62.displays()])
    sched, runs = [], []
    for M_ in Ms:
        sc, sc1 = P62.paper_schedules(M_, k), P62.paper_schedules(M_, k, short_prompt=M_ // k - 1)
        sched.append({"M": M_, "A1 (continue)": sc["A1"].tel,
                      "A2 (pause)": "no short request fits" if sc["A2"] is None else sc["A2"].tel,
                      "A3 (delay; OPT upper)": sc["A3"].tel,
                      "A2, prompts εM - 1": sc1["A2"].tel, "A3, prompts εM - 1": sc1["A3"].tel})
        runs += [P62.adversary_run(pol, M_, k).row() for pol in THM62_POLICY_NAMES]
    runs = pd.DataFrame(runs)
    bound = P62.paper_ratio_bound(k)
    mass = pd.DataFrame([P62.thm64_support(c, k_) for c in (1, 2, 5) for k_ in (4, 10)])
    m14 = mass[(mass.c == 1) & (mass.k == 4)].iloc[0]
    values = {
        "t62_k": k,
        "t62_claimed": int(bound["claimed"]),
        "t62_a1lim": int(bound["A1/OPT"]),
        "t62_maxM": max(Ms),
        "t62_ratio_max": f"{runs.ratio_lower.max():.3f}",
        "t62_consistent": yes_no(bool(runs.consistent.all())),
        "t64_mass": str(m14["total mass"]),
        "lb_tbl_t62_disp": tbl(t62_disp),
        "lb_tbl_t62_sched": tbl(pd.DataFrame(sched)),
        "lb_tbl_t62_adv": tbl(pd.DataFrame({
            "policy": runs["policy"].map(THM62_POLICY_NAMES),
            "M": runs["M"], "t'": runs["t_prime"],
            "consistent": ["yes" if v else "no" for v in runs["consistent"]], "TEL(policy)": runs["tel"],
            "best known schedule": runs["opt_upper"], "TEL / best known": runs["ratio_lower"]}),
            formats={"TEL / best known": "{:.3f}"}),
        "lb_tbl_t64_mass": tbl(pd.DataFrame({
            "c": mass["c"], "ε": [f"1/{k_}" for k_ in mass["k"]], "support size": mass["support size"],
            "total mass": mass["total mass"].map(str)})),
    }
    summary = {
        "construction": "004 Thm 6.2 (pause model)",
        "claimed (paper's)": f"ratio ≥ 1/ε = {int(bound['claimed'])} as M grows",
        "measured": f"non-preemptive policies ≥ {runs.ratio_lower.max():.2f} at M = {max(Ms):,}",
        "verdict": "holds; 3 slips (errata)",
    }
    return Section(values, [summary])


def _remark63_figure(r63, k: int):
    """004 Remark 6.3: the ratio bracket against the relative count q/(eps M), one line pair per M."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    for M_, g in r63.groupby("M"):
        line, = ax.plot(g["q / (eps M)"], g["ratio_low"], "o-", ms=3, label=f"M = {M_}")
        ax.plot(g["q / (eps M)"], g["ratio_high"], ":", color=line.get_color())
    ax.axvline(1.0, color="grey", lw=0.8)
    ax.set_xscale("log")
    ax.set_xlabel(r"short requests $q / (\varepsilon M)$")
    ax.set_ylabel("ratio (bracket)")
    ax.set_title(f"004 Remark 6.3, eps = 1/{k}")
    ax.legend(fontsize=8)
    return fig


def remark63_summary(r63, k: int) -> pd.DataFrame:
    """One row per memory ``M`` of the rows ``r63`` (:func:`kvlib.theory.pause62.remark63_row`, first
    row the smallest count): the ratio's upper end at one short request, at ``eps M`` of them and at
    the largest count; the worst count on the grid (largest lower end), our estimate q* and the lower
    end there."""
    rows = []
    for M_, g in r63.groupby("M"):
        e_ = M_ // k
        worst = g.loc[g["ratio_low"].idxmax()]
        rows.append({"M": M_, "eps M": e_, "ratio at q = 1 (at most)": g.iloc[0]["ratio_high"],
                     "ratio at q = eps M (at most)": g[g.q == e_].iloc[0]["ratio_high"],
                     "worst q (grid)": int(worst.q), "our estimate q*": P62.remark63_peak_estimate(M_, k),
                     "ratio at worst q (at least)": worst["ratio_low"],
                     "ratio at largest q (at most)": g.iloc[-1]["ratio_high"], "largest q": int(g.iloc[-1].q)})
    return pd.DataFrame(rows)


def remark63_section(Ms, k: int) -> Section:
    """004 Remark 6.3 on Theorem 6.2's instance (``epsilon = 1/k``) at the memory sizes ``Ms``, with the
    counts of :func:`kvlib.theory.pause62.remark63_counts`: the figure, the table per ``M``, the
    checks of the remark's two limits and of where the worst count lies, and the summary row."""
    r63 = pd.DataFrame([P62.remark63_row(M_, k, q) for M_ in Ms for q in P62.remark63_counts(M_, k)])
    r63["q / (eps M)"] = r63["q / (eps M)"].map(float)
    fig = _remark63_figure(r63, k)
    s = remark63_summary(r63, k)
    values = {"lb_tbl_r63": tbl(pd.DataFrame({
        "M": s["M"], "εM": s["eps M"], "q = 1: ≤": s["ratio at q = 1 (at most)"],
        "q = εM: ≤": s["ratio at q = eps M (at most)"], "worst q": s["worst q (grid)"],
        "q*": s["our estimate q*"], "worst q: ≥": s["ratio at worst q (at least)"],
        "largest q": s["largest q"], "largest q: ≤": s["ratio at largest q (at most)"]}),
        formats={"q = 1: ≤": "{:.3f}", "q = εM: ≤": "{:.3f}", "q*": "{:.1f}", "worst q: ≥": "{:.3f}",
                 "largest q: ≤": "{:.3f}"})}
    last = s.iloc[-1]
    few = bool((s["ratio at q = 1 (at most)"] < 1.0 / (1 - 1.0 / k) + 1e-9).all())
    first_high = r63.groupby("M")["ratio_high"].first()
    last_high = r63.groupby("M")["ratio_high"].last()
    many = bool(((last_high < first_high + 0.01) & (last_high < 1.25)).all())
    shift = bool((s["worst q (grid)"] < s["eps M"]).all())
    values.update({
        "r63_shift": yes_no(shift),
        "r63_few": yes_no(few),
        "r63_many": yes_no(many),
        "r63_M": int(last.M),
        "r63_eM": int(last["eps M"]),
        "r63_worst_q": int(last["worst q (grid)"]),
        "r63_est": f"{last['our estimate q*']:.0f}",
        "r63_worst": f"{last['ratio at worst q (at least)']:.2f}",
        "r63_at_eM": f"{last['ratio at q = eps M (at most)']:.2f}",
        "r63_one": f"{last['ratio at q = 1 (at most)']:.3f}",
        "r63_many_val": f"{last_high.iloc[-1]:.3f}",
        "r63_worst_all": ", ".join(f"{r['ratio at worst q (at least)']:.2f}" for _, r in s.iterrows()),
        "r63_Ms": ", ".join(str(int(m)) for m in s.M),
    })
    summary = {
        "construction": "004 Remark 6.3 (q short requests)",
        "claimed (paper's)": "few or many: small ratio; εM balanced",
        "measured": f"q = 1: {last['ratio at q = 1 (at most)']:.2f}; q = 32εM: {last_high.iloc[-1]:.2f}; "
                    f"worst q = {int(last['worst q (grid)'])} < εM = {int(last['eps M'])} at M = {int(last.M):,}",
        "verdict": "limits hold; worst q ~ √M, not εM",
    }
    return Section(values, [summary], figure=fig)


def wyz_frame(wyz, wyz_opt, family: str, tel_col: str, policy_col: str, claim: str):
    """One 002 family (``"thm1"`` or ``"ec1"``) from the stored frame ``wyz``: TEL (column ``tel_col``,
    read from ``policy_col``), the OPT bracket tightened by the certified interval where ``wyz_opt``
    (a frame, or None) holds one, the ratio bracket and the paper's bound (column ``claim``)."""
    w = wyz[wyz.family == family].set_index("M")
    out = pd.DataFrame({"n": w["n"], tel_col: w[policy_col], "OPT upper": w["opt_upper"], "OPT lower": w["opt_lower"]})
    if family == "thm1":
        out.insert(2, "our closed form", w["closed_form_mcsf"])
    ex = (wyz_opt[wyz_opt.family == family].set_index("M") if wyz_opt is not None
          else pd.DataFrame(columns=["lower", "upper"]))
    for M in ex.index.intersection(out.index):
        out.loc[M, "OPT lower"] = max(out.loc[M, "OPT lower"], ex.loc[M, "lower"])
        out.loc[M, "OPT upper"] = min(out.loc[M, "OPT upper"], ex.loc[M, "upper"])
    out["ratio >="] = out[tel_col] / out["OPT upper"]
    out["ratio <="] = out[tel_col] / out["OPT lower"]
    out[claim] = [adv.wyz_claimed_thm1(M) if family == "thm1" else adv.wyz_claimed_ec1(M) for M in out.index]
    return out


def wyz_show(w, tel_col: str, claim: str, paper_label: str):
    """A 002 family of :func:`wyz_frame` for the page: M, TEL, the OPT bracket, the ratio bracket
    (``"lo–hi"``), the paper's bound under the header ``paper_label``."""
    return tbl(pd.DataFrame({
        "M": w.index, "TEL": w[tel_col].to_numpy(), "OPT ≥": w["OPT lower"].to_numpy(),
        "OPT ≤": w["OPT upper"].to_numpy(),
        "ratio": [f"{lo:.2f}–{hi:.2f}" for lo, hi in zip(w["ratio >="], w["ratio <="])],
        paper_label: w[claim].to_numpy()}), formats={paper_label: "{:.3f}"})


def _wyz1_figure(wyz1, heavy):
    """002 Theorem 1: MC-SF's ratio bracket on the paper's family, the paper's bound, our variant."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.fill_between(wyz1.index, wyz1["ratio >="], wyz1["ratio <="], alpha=0.3, label="MC-SF ratio bracket (Thm 1 family)")
    ax.plot(wyz1.index, wyz1["(2/13) sqrt(M) (paper's)"], "--", label=r"paper's $\frac{2}{13}\sqrt{M}$")
    ax.plot(heavy.index, heavy["ratio >="], "s-", label="MC-SF ratio >=, our heavy/light variant")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("M (tokens)")
    ax.set_ylabel("ratio")
    ax.legend(fontsize=8)
    ax.set_title("002 Theorem 1")
    return fig


def wyz1_section(wyz, wyz_opt, heavy_rows) -> Section:
    """002 Theorem 1 from the stored frames (``wyz``, ``wyz_opt`` or None, and ``heavy_rows`` of our
    heavy/light variant): both tables, the figure, the closed-form check, the first memory at which the
    paper's bound fails (:func:`kvlib.book.gluing.first_failure`), the fitted exponents and two summary rows."""
    claim = "(2/13) sqrt(M) (paper's)"
    wyz1 = wyz_frame(wyz, wyz_opt, "thm1", "TEL(MC-SF)", "tel_mc_sf", claim)
    values = {"lb_tbl_wyz1": wyz_show(wyz1, "TEL(MC-SF)", claim, "paper's (2/13)√M")}
    cf1 = wyz1["our closed form"].dropna()
    formula_ok = bool(len(cf1) and (cf1 == wyz1.loc[cf1.index, "TEL(MC-SF)"]).all())
    first_fail, fail_values = first_failure(wyz1, "wyz1", "TEL(MC-SF)", claim)
    heavy = heavy_rows.set_index("M")
    heavy = pd.DataFrame({"TEL(MC-SF)": heavy["tel_mc_sf"], "OPT upper": heavy["opt_upper"], "OPT lower": heavy["opt_lower"]})
    heavy["ratio >="] = heavy["TEL(MC-SF)"] / heavy["OPT upper"]
    heavy["sqrt(M)"] = np.sqrt(heavy.index.to_numpy(dtype=float))
    values["lb_tbl_heavy"] = tbl(heavy.reset_index().rename(columns={
        "TEL(MC-SF)": "TEL (MC-SF)", "OPT upper": "OPT ≤", "OPT lower": "OPT ≥", "ratio >=": "ratio ≥", "sqrt(M)": "√M"}))
    exp_heavy = fit_exponent(heavy.index, heavy["ratio >="])
    exp1 = fit_exponent(wyz1.index, wyz1["ratio >="])
    fig = _wyz1_figure(wyz1, heavy)
    values["wyz1_formula_ok"] = yes_no(formula_ok)
    values.update(fail_values)
    values.update({
        "wyz1_exp": f"{exp1:.2f}",
        "wyz1_last_bracket": f"[{wyz1['ratio >='].iloc[-1]:.2f}, {wyz1['ratio <='].iloc[-1]:.2f}]",
        "wyz1_Mmax": int(wyz1.index[-1]),
        "wyz1_nmax": int(wyz1["n"].iloc[-1]),
        "wyz1_nM": len(wyz1),
        "wyz1_closed_n": len(cf1),
        "heavy_exp": f"{exp_heavy:.2f}",
    })
    summary = [{
        "construction": "002 Thm 1 (MC-SF; the paper's X, Y)",
        "claimed (paper's)": "ratio ≥ (2/13)√M",
        "measured": f"{wyz1['ratio >='].iloc[-1]:.2f}–{wyz1['ratio <='].iloc[-1]:.2f} at M = {wyz1.index[-1]:,}; bounded (≤ 1.6 + o(1))",
        "verdict": (f"fails from M = {first_fail} on (errata)" if first_fail else "not refuted in range"),
    }, {
        "construction": "our variant: √M × (M-1, 1) + M × (1, 2)",
        "claimed (paper's)": "(not the paper's)",
        "measured": f"MC-SF ratio ~ M^{exp_heavy:.2f}",
        "verdict": "unbounded (002's claim holds)",
    }]
    return Section(values, summary, figure=fig)


def ec1_section(wyz, wyz_opt) -> Section:
    """002 Theorem EC.1 (MC-SF2) from the stored frames: the table, the first memory at which the
    paper's bound fails, the fitted exponent, the last ratio bracket and the summary row."""
    claim = "(2/3) sqrt(M) (paper's)"
    ec1 = wyz_frame(wyz, wyz_opt, "ec1", "TEL(MC-SF2)", "tel_mc_sf2", claim)
    first_fail, fail_values = first_failure(ec1, "ec1", "TEL(MC-SF2)", claim)
    exp_ec1 = fit_exponent(ec1.index, ec1["ratio >="])
    values = {"lb_tbl_ec1": wyz_show(ec1, "TEL(MC-SF2)", claim, "paper's (2/3)√M"), **fail_values,
              "ec1_exp": f"{exp_ec1:.2f}",
              "ec1_last_bracket": f"[{ec1['ratio >='].iloc[-1]:.2f}, {ec1['ratio <='].iloc[-1]:.2f}]"}
    summary = {
        "construction": "002 Thm EC.1 (MC-SF2; the paper's X, Y)",
        "claimed (paper's)": "ratio ≥ (2/3)√M",
        "measured": f"{ec1['ratio >='].iloc[-1]:.2f}–{ec1['ratio <='].iloc[-1]:.2f} at M = {ec1.index[-1]:,}; exponent {exp_ec1:.2f}",
        "verdict": (f"fails from M = {first_fail} on (errata)" if first_fail else "not refuted in range"),
    }
    return Section(values, [summary])


def yes_no_cells(values) -> list[str]:
    """Table cells of a yes/no column: ``"-"`` for a missing value (None or NaN), else ``"yes"``/``"no"``."""
    return [("-" if v is None or (isinstance(v, float) and np.isnan(v)) else "yes" if v else "no") for v in values]


def _three_partition_gap() -> tuple[int, int]:
    """Why 002's proof needs items above T/4: the no-instance ``x = (2,2,2,13,10,11)``, ``T = 20``,
    reaches a TEL below the target under our reduction without that bound.  Returns (TEL, target)."""
    x = [2, 2, 2, 13, 10, 11]
    rep = check_schedule(adv.three_partition_instance_ours(x, 20, strict=False),
                         Schedule((0, 0, 0, 0, 1, 1))).raise_if_invalid()
    if adv.find_three_partition(x, 20) is not None:
        raise AssertionError("the gap instance (2, 2, 2, 13, 10, 11) must have no 3-partition")
    return rep.tel, adv.three_partition_target(2)


def three_partition_section(tp_rows, tpp_rows) -> Section:
    """002 Theorem 2 from the stored rows of our corrected reduction (``tp_rows``, ``M = T + 3``) and of
    002's own (``tpp_rows``, ``M = T``): both tables (also as ``frames["tp-ours"]``, ``["tp-paper"]``),
    whether ours separates yes from no (yes: certified OPT equal to the target; no: its lower bound
    above it), on how many yes-instances 002's reduction fails, the gap instance and two summary rows."""
    tp = tp_rows.assign(instance=lambda d: np.where(d["yes"], "yes", "no"))
    tp = tp[["m", "trial", "instance", "b", "target", "lower", "upper", "proved", "tel_triples"]].rename(columns={
        "instance": "yes", "b": "items x", "lower": "OPT ≥", "upper": "OPT ≤",
        "proved": "proved", "tel_triples": "TEL of triples"})
    tpp = tpp_rows.assign(instance=lambda d: np.where(d["yes"], "yes", "no"))
    tpp = tpp[["m", "trial", "instance", "target", "triples_fit", "max_per_round", "lower", "upper", "proved"]].rename(
        columns={"instance": "yes", "triples_fit": "one triple per round fits",
                 "max_per_round": "most per round", "lower": "OPT ≥", "upper": "OPT ≤", "proved": "proved"})
    for d in (tp, tpp):
        for c in ("proved", "one triple per round fits"):
            if c in d:
                d[c] = yes_no_cells(d[c])
    values = {"lb_tbl_tpp": tbl(tpp),
              "lb_tbl_tp": tbl(tp).set_properties(subset=["items x"], **{"min-width": "9em", "text-align": "left"})}
    # ours -- yes: OPT proved equal to the target; no: the certified lower bound already exceeds it
    yes = tp_rows[tp_rows["yes"].astype(bool)]
    no = tp_rows[~tp_rows["yes"].astype(bool)]
    tp_ok = bool((yes["has_triples"].astype(bool) & (yes["lower"] == yes["target"])
                  & (yes["upper"] == yes["target"]) & (yes["tel_triples"] == yes["target"])).all()
                 and (~no["has_triples"].astype(bool) & (no["lower"] > no["target"])).all())
    # the paper's -- on a yes-instance the proof's schedule does not fit and OPT exceeds the target
    pyes = tpp_rows[tpp_rows["yes"].astype(bool)]
    tpp_yes_fail = int(((pyes["lower"] > pyes["target"]) & ~pyes["triples_fit"].astype(bool)).sum())
    gap_tel, gap_target = _three_partition_gap()
    ms = ", ".join(map(str, sorted(set(tp["m"]))))
    values.update({"tp_gap_tel": gap_tel, "tp_gap_target": gap_target, "tp_ok": yes_no(tp_ok),
                   "tp_count": len(tp), "tp_ms": ms, "tpp_yes": len(pyes), "tpp_yes_fail": tpp_yes_fail,
                   "tpp_fit": int(pyes["triples_fit"].astype(bool).sum())})
    summary = [{
        "construction": "002 Thm 2, the paper's reduction (M = T)",
        "claimed (paper's)": "OPT = 3m(m+1)/2 iff yes",
        "measured": f"OPT > 3m(m+1)/2 on {tpp_yes_fail} of {len(pyes)} yes-instances (certified)",
        "verdict": "fails (errata)" if tpp_yes_fail else "holds",
    }, {
        "construction": "002 Thm 2, our reduction (M = T + 3)",
        "claimed (paper's)": "OPT = 3m(m+1)/2 iff yes",
        "measured": f"certified OPT on {len(tp)} instances (m = {ms})",
        "verdict": "holds" if tp_ok else "fails",
    }]
    return Section(values, summary, frames={"tp-paper": tpp, "tp-ours": tp})


def partition_section(rng, n: int = 8) -> Section:
    """002 Theorem EC.2 on ``n`` random Partition instances drawn from ``rng`` (4 to 7 items from 1 to 8,
    even total, every item below half the total): the exhaustive minimum makespan under 002's reduction
    and ours (each schedule checked), the table, whether ours separates yes from no, on how many
    yes-instances 002's fails, and two summary rows."""
    rows = []
    while len(rows) < n:
        n_items = int(rng.integers(4, 8))
        x = [int(v) for v in rng.integers(1, 9, size=n_items)]
        if sum(x) % 2 or 2 * (max(x) + 1) > sum(x):
            continue
        k_paper, sch_p = adv.min_rounds_unit(adv.partition_instance(x))
        k_ours, sch_o = adv.min_rounds_unit(adv.partition_instance_ours(x))
        check_schedule(adv.partition_instance(x), sch_p).raise_if_invalid()
        check_schedule(adv.partition_instance_ours(x), sch_o).raise_if_invalid()
        rows.append({"x": " ".join(map(str, x)), "partition exists": adv.has_partition(x),
                     "min makespan, 002's reduction": k_paper, "min makespan, ours": k_ours})
    part = pd.DataFrame(rows)
    ok = bool(all((r["min makespan, ours"] == 2) == r["partition exists"] and r["min makespan, ours"] >= 2
                  for r in rows))
    yes = [r for r in rows if r["partition exists"]]
    paper_fail = sum(1 for r in yes if r["min makespan, 002's reduction"] > 2)
    values = {
        "lb_tbl_part": tbl(part.assign(**{"partition exists": part["partition exists"].map({True: "yes", False: "no"})})),
        "part_ok": yes_no(ok), "part_n": len(rows), "part_yes": len(yes), "part_paper_fail": paper_fail,
    }
    summary = [{
        "construction": "002 Thm EC.2, the paper's reduction (M = T)",
        "claimed (paper's)": "makespan 2 iff yes, else ≥ 3",
        "measured": f"makespan > 2 on {paper_fail} of {len(yes)} yes-instances (exhaustive)",
        "verdict": "fails (errata)" if paper_fail else "holds",
    }, {
        "construction": "002 Thm EC.2, our reduction (M = 2T)",
        "claimed (paper's)": "makespan 2 iff yes, else ≥ 3",
        "measured": f"exhaustive min makespan on {len(rows)} random instances",
        "verdict": "holds" if ok else "fails",
    }]
    return Section(values, summary)


def small_table(rows):
    """The instances found by :func:`kvlib.theory.smallest.smallest_non_optimal`, with tuples as text
    (no raw column names); one row saying so if none was found."""
    if not rows:
        return tbl(pd.DataFrame({"result": [NONE_FOUND]}))
    d = pd.DataFrame(rows)
    return tbl(d.assign(**{c: d[c].map(lambda v: str(tuple(v))) for c in ("prompts", "outputs", "optimal starts")}))


def smallest_section(small_eq, small_gen) -> Section:
    """The smallest all-at-zero instances on which MC-SF is not optimal, with equal prompts
    (``small_eq``) and varying ones (``small_gen``): both tables, MC-SF's start times against an optimal
    schedule's on the first equal-prompt instance (checked), the values the prose cites ("none found"
    where a search found nothing) and the summary row."""
    values = {"lb_tbl_small_eq": small_table(small_eq), "lb_tbl_small_gen": small_table(small_gen)}
    if small_eq:
        e0 = small_eq[0]
        inst0 = Instance.at_zero(e0["prompts"], e0["outputs"], e0["M"])
        check_schedule(inst0, Schedule(e0["optimal starts"])).raise_if_invalid()
        values["lb_tbl_small_sched"] = tbl(pd.DataFrame({
            "schedule": ["MC-SF", "optimal"],
            "starts": [str(tuple(simulate(inst0, make_policy("mc-sf")).schedule.starts)), str(tuple(e0["optimal starts"]))]}))
        values.update({
            "small_eq": f"n = {e0['n']}, M = {e0['M']}, s = {e0['prompts'][0]}, o = {tuple(e0['outputs'])}",
            "small_eq_alg": e0["TEL(MC-SF)"], "small_eq_opt": e0["OPT"], "small_eq_count": len(small_eq)})
    else:
        values["lb_tbl_small_sched"] = tbl(pd.DataFrame({"result": [NONE_FOUND]}))
        values.update({k: "none found" for k in ("small_eq", "small_eq_alg", "small_eq_opt", "small_eq_count")})
    if small_gen:
        g0 = small_gen[0]
        values.update({
            "small_gen": f"n = {g0['n']}, M = {g0['M']}, (s, o) = {tuple(zip(g0['prompts'], g0['outputs']))}",
            "small_gen_alg": g0["TEL(MC-SF)"], "small_gen_opt": g0["OPT"]})
    else:
        values.update({k: "none found" for k in ("small_gen", "small_gen_alg", "small_gen_opt")})
    summary = {
        "construction": "smallest instance, all at 0, MC-SF not optimal",
        "claimed (paper's)": "004 Thm 4.2: optimal when all arrive at 0",
        "measured": (f"equal prompts: n = {small_eq[0]['n']}, M = {small_eq[0]['M']}, TEL {small_eq[0]['TEL(MC-SF)']} vs OPT {small_eq[0]['OPT']}"
                     if small_eq else "none in the searched range"),
        "verdict": "counterexample (MC-SF chapter)" if small_eq else "no counterexample in range",
    }
    return Section(values, [summary])
