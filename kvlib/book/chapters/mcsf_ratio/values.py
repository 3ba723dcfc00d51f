"""The numbers and tables the chapter ``mcsf_ratio`` (MC-SF's constant ratio) glues, section by section.

The chapter reads or computes its rows (stored tables through :class:`kvlib.book.store.Store`, live
calls into :mod:`kvlib.theory`) and hands them to these functions, which return what the prose
quotes: a ``dict`` glue key -> value (numbers, short texts, ``Markdown``/``Math`` objects and styled
tables), glued by the notebook in a loop (:func:`kvlib.book.gluing.glue_all`).  Every key and every
format is the one the chapter's ``{glue:...}`` references expect; the functions only summarise
(minima, maxima, counts, verdicts) and never write under ``results/``.

Sections, in the chapter's order:

* 001's own proof objects -- :func:`paper_chain` (the steps of Theorem 4.3's proof on seeded
  instances and an identical-request grid) and :func:`claim46_frame` / :func:`claim46_values`;
* random and adversarial instances -- :func:`chain_ratios`, :func:`chain_checks`,
  :func:`random_values`, :func:`adversarial_values`;
* identical requests -- :func:`identical_frame`, :func:`check_batch_sum`, :func:`staggering_values`,
  :func:`identical_ratio_values`, :func:`dense_values`, :func:`volume_lp_sympy`,
  :func:`exact_grid_values`, :func:`batch_dual_values`, :func:`open_region_values`;
* Proposition 4.2 -- :func:`timing_rows`, :func:`timing_values`;
* 004 Theorem 4.2 -- :func:`sweep_counterexamples`, :func:`sweep_values`;
* 004 Theorem 5.3 -- :func:`coupling_summary`, :func:`coupling_values`, :func:`load_values`,
  :func:`hoeffding_values`, :func:`min_output_values`, :func:`regret_opt_summary`,
  :func:`regret_opt_values`, :func:`regret_summary`, :func:`regret_values`;
* 004 Section 8.2 -- :func:`sec82_frame`, :func:`sec82_values`.

No stored table depends on this module.  SymPy, IPython and Matplotlib are imported inside the
functions that need them (importing the module stays cheap).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd

from kvlib.book.chapters.mcsf_ratio.page import step_table, step_words, range_summary, words
from kvlib.book.gluing import markdown
from kvlib.book.tables import styled
from kvlib.core.model import Instance

__all__ = ["paper_chain", "CLAIM46_CASES", "claim46_frame", "claim46_values", "chain_ratios", "chain_checks",
           "random_values", "adversarial_values", "identical_frame", "batch_formula", "check_batch_sum",
           "staggering_values", "identical_ratio_values", "dense_values", "volume_lp_sympy",
           "exact_grid_values", "batch_dual_values", "open_region_values", "timing_rows", "timing_values",
           "sweep_counterexamples", "sweep_values", "coupling_summary", "coupling_values", "load_values",
           "hoeffding_values", "min_output_values", "regret_opt_summary", "regret_opt_values",
           "regret_summary", "regret_values", "sec82_frame", "sec82_values"]


def _yes(v) -> str:
    """``"yes"`` or ``"NO"`` (a failed check is written in capitals on the page)."""
    return "yes" if v else "NO"


# --- 001's own objects (first section) ---------------------------------------------------------------

def _b3_cases(M_max: int) -> list[tuple[int, int, int, int]]:
    """``(n, s, o, M)`` of the identical-request grid of the first section: even ``M`` from 8 to ``M_max``,
    ``s`` in 1..3, ``o`` in (1, 2, 3, 5) with ``M >= 2(s + o)``, and three ``n`` around multiples of
    ``k = M // (s + o)``: ``k + 1``, ``2k + 1`` and ``4k``."""
    return [(n, s, o, M) for M in range(8, M_max + 1, 2) for s in (1, 2, 3) for o in (1, 2, 3, 5)
            if M >= 2 * (s + o) for n in (M // (s + o) + 1, 2 * (M // (s + o)) + 1, 4 * (M // (s + o)))]


def paper_chain(seed: int, trials: int, n_max: int, b3_M: int) -> tuple[dict, pd.DataFrame]:
    """Every displayed step of 001's proof of Theorem 4.3, with the paper's objects
    (:mod:`kvlib.theory.thm43_paper`), on ``trials`` seeded instances (seeds ``seed * 1000 + k``, at most
    ``n_max`` requests) and on the identical-request grid with ``M`` up to ``b3_M`` (:func:`_b3_cases`).

    Returns ``(values, steps)``: the glue values ``p43_*``, ``b2_display_fail``, ``b2_corrected_max``,
    ``c46_seeded``, ``c46_proof_seeded``, ``eq8_printed``/``eq8_derived`` (display (8) on the errata's
    hand instance: ``s = 1``, outputs (1, 2), ``M = 6``) and the styled table ``mr-tab-steps``; and
    ``steps``, the plain table (:func:`kvlib.book.chapters.mcsf_ratio.page.step_table`) the page offers as CSV."""
    from kvlib.theory import thm43_paper as T43

    rows = [T43.chain_row(seed * 1000 + k, n_max=n_max) for k in range(trials)]
    b3 = [T43.b3_row(n, s, o, M) for n, s, o, M in _b3_cases(b3_M)]
    steps = T43.summarize_steps(rows + b3)
    sym = T43.sympy_checks()
    step_of = steps.set_index("step")
    fails = list(steps.loc[steps["holds on"] < steps["instances"], "step"])
    b2d = step_of.loc["B2.display"]
    eq8 = T43.chain_inequalities(Instance.at_zero([1, 1], [1, 2], 6))
    table = step_table(steps)
    values = {
        "p43_nmax": n_max, "p43_b3_M": b3_M, "p43_b3_n": len(b3),
        "p43_sympy": f"{sum(sym.values())} of {len(sym)} identities hold; the one that does not is "
                     "the 'equality' of case 1 of Lemma B.2, which is an inequality",
        "p43_fail": markdown("; ".join(step_words(s) for s in fails) or "none"),
        "p43_trials": len(rows),
        "b2_display_fail": f"{int(b2d['instances'] - b2d['holds on'])} of {int(b2d['instances'])}",
        "b2_corrected_max": f"{T43.B2_RATIO * step_of.loc['B2.corrected', 'largest lhs / rhs']:.3f}",
        "c46_seeded": int(step_of.loc["C46", "instances"]),
        "c46_proof_seeded": int(step_of.loc["C46.proof", "instances"]),
        "eq8_printed": int(eq8["eq8.rhs"]), "eq8_derived": int(eq8["eq8.corrected.rhs"]),
        # the page shows each step in words; the step's short name stays in the CSV
        "mr-tab-steps": styled(table.drop(columns="step")).hide(axis="index").set_properties(
            subset=["what it checks"], **{"text-align": "left"}),
    }
    return values, table


#: ``(n, o, M)`` of the instances built for Claim 4.6: ``n`` identical requests ``(s, o) = (1, o)`` at 0.
CLAIM46_CASES = tuple((n, o, M) for (o, M) in [(3, 12), (4, 10), (6, 14)] for n in (15, 21, 30))

#: The Claim 4.6 columns of :func:`kvlib.theory.thm43_paper.chain_inequalities` -> the table's headers.
_C46_COLUMNS = {"C46.cases": "triples", "C46.holds": "Claim 4.6", "C46.proof.holds": "as the proof uses it",
                "C46.only_group.holds": "only its group runs", "L45.peak_full.holds": "full peaks (Lemma 4.5)"}


def claim46_frame(cases=CLAIM46_CASES) -> pd.DataFrame:
    """One row per ``(n, o, M)`` of ``cases``: ``n``, ``o``, ``M`` and the Claim 4.6 columns of
    :func:`kvlib.theory.thm43_paper.chain_inequalities` on ``n`` requests ``(1, o)`` at ``t = 0``."""
    from kvlib.theory import thm43_paper as T43

    return pd.DataFrame([{"n": n, "o": o, "M": M, **{k: r[k] for k in _C46_COLUMNS}}
                         for n, o, M in cases for r in [T43.chain_inequalities(Instance.at_zero([1] * n, [o] * n, M))]])


def claim46_values(c46: pd.DataFrame) -> dict:
    """``c46_triples`` (triples in all), ``c46_n`` (instances), ``c46_verdict`` (whether the claim and
    the two sentences stated without proof held on every instance) and the table ``mr-tab-c46``."""
    ok = bool(c46[["C46.holds", "C46.proof.holds", "C46.only_group.holds", "L45.peak_full.holds"]].all().all())
    return {"c46_triples": int(c46["C46.cases"].sum()), "c46_n": len(c46),
            "c46_verdict": "held on every one of them" if ok else "failed on at least one of them (see the table)",
            "mr-tab-c46": styled(c46.rename(columns={"M": "M (tokens)", **_C46_COLUMNS}))}


# --- random and adversarial instances ----------------------------------------------------------------

def chain_ratios(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of a chain table (:func:`kvlib.book.chapters.mcsf_ratio.rows.chain_trial_row` rows) with ``ratio_ub``
    (MC-SF over the certified lower end of OPT, at least MC-SF / OPT) and how loose the bounds are:
    ``L44_loose`` (Lemma 4.4's bound / MC-SF), ``L47_loose`` (OPT / LB2), ``OS_loose`` (OPT / OS)."""
    df = frame.copy()
    df["ratio_ub"] = df.mcsf / df.opt_lower  # >= MC-SF / OPT
    df["L44_loose"] = df.L44 / df.mcsf
    df["L47_loose"] = df.opt_upper / df.L47
    df["OS_loose"] = df.opt_upper / df.OS
    return df


def chain_checks(df: pd.DataFrame) -> dict[str, bool]:
    """The inequalities checked on every random instance (name as the page prints it -> holds on all):
    Lemma 4.4, OPT >= OS >= LB2, OPT >= our LP, cvxpy = greedy on our LP, the mean slots non-decreasing
    (greedy and cvxpy) and our upper bound on them."""
    return {
        "MC-SF ≤ Lemma 4.4": bool((df.mcsf <= df.L44).all()),
        "OPT ≥ OS ≥ LB₂ (ours)": bool(((df.opt_lower >= df.OS) & (df.OS >= df.L47 - 1e-9)).all()),
        "OPT ≥ our LP": bool((df.opt_lower >= df.LPcvxpy - 1e-6).all()),
        "our LP: cvxpy = greedy": bool(np.allclose(df.LPcvxpy, df.LPgreedy, rtol=1e-7, atol=1e-6)),
        "mean slots non-decreasing (greedy)": bool(df.tstar_sorted_greedy.all()),
        "mean slots non-decreasing (cvxpy)": bool(df.tstar_sorted_cvxpy.all()),
        "mean-slot upper bound (ours)": bool(df.claim48.all()),
    }


#: The rows of the table ``mr-tab-random``: (quantity, column of :func:`chain_ratios`, format).
RANDOM_SUMMARY = [
    ("requests n", "n", "{:,.0f}"), ("memory M (tokens)", "M", "{:,.0f}"), ("TEL of MC-SF", "mcsf", "{:,.0f}"),
    ("OPT (upper end)", "opt_upper", "{:,.0f}"), ("MC-SF / OPT (lower end)", "ratio_ub", "{:.3f}"),
    ("Lemma 4.4 bound / MC-SF", "L44_loose", "{:,.0f}"), ("OPT / LB₂", "L47_loose", "{:.2f}"),
    ("OPT / OS", "OS_loose", "{:.3f}"), ("span constant (ours)", "L45_need", "{:.2f}")]


def random_values(df: pd.DataFrame, am1: dict) -> dict:
    """What the section on random instances quotes, from :func:`chain_ratios`'s frame: the tables
    ``mr-tab-checks`` (:func:`chain_checks`), ``mr-tab-random`` (:data:`RANDOM_SUMMARY`) and
    ``mr-tab-paper`` (ours beside ``am1``, 001 Section 5.1's Arrival Model 1 with keys ``exact
    matches``, ``average``, ``worst``), and the numbers ``rand_*``."""
    checks = chain_checks(df)
    return {
        "mr-tab-checks": styled(pd.DataFrame({"check": list(checks),
                                              "holds on every instance": [_yes(v) for v in checks.values()]})),
        "mr-tab-random": styled(range_summary(df, RANDOM_SUMMARY)),
        "rand_trials": len(df),
        "rand_certified": int(df.optimal.sum()),
        "rand_all_hold": "all hold" if all(checks.values()) else "NOT all hold",
        "rand_ratio_max": f"{df.ratio_ub.max():.3f}",
        "rand_exact_share": int((df.mcsf == df.opt_upper).sum()),
        "rand_L44_min": f"{df.L44_loose.min():.0f}",
        "rand_L44_med": f"{df.L44_loose.median():.0f}",
        "rand_L47_max": f"{df.L47_loose.max():.2f}",
        "rand_OS_max": f"{df.OS_loose.max():.3f}",
        "rand_L45_max": f"{df.L45_need.max():.2f}",
        "mr-tab-paper": styled(pd.DataFrame({
            "quantity": ["instances", "MC-SF = OPT (certified)", "mean MC-SF / OPT", "worst MC-SF / OPT"],
            "ours": [str(len(df)), str(int(((df.mcsf == df.opt_upper) & df.optimal.astype(bool)).sum())),
                     f"≤ {df.ratio_ub.mean():.3f}", f"≤ {df.ratio_ub.max():.3f}"],
            "paper (001 Section 5.1, AM1)": ["200", am1["exact matches"], f"{am1['average']:.3f}",
                                             f"{am1['worst']:.3f}"]})),
    }


def _opt_cell(lo: float, up: float) -> str:
    """OPT as the page prints it: ``"1,234"`` when the certified interval is closed (the ceiling of the
    lower end reaches the upper end), else ``"1,200 to 1,234"``."""
    return f"{int(up):,}" if np.ceil(lo - 1e-9) >= up else f"{int(np.ceil(lo - 1e-9)):,} to {int(up):,}"


def adversarial_values(frame: pd.DataFrame, df: pd.DataFrame) -> dict:
    """What the adversarial search's section quotes, from its stored table ``frame``
    (:func:`kvlib.book.chapters.mcsf_ratio.rows.adversarial_restart_row` rows) and the random instances' frame ``df``
    (:func:`chain_ratios`): the tables ``mr-tab-adv`` and ``mr-tab-adv-outputs``, ``adv_max``,
    ``adv_proxy_max``, ``adv_hold`` (the chain on every restart) and ``worst_ratio`` (largest MC-SF / OPT
    over both sets)."""
    adf = frame.copy()
    adf["ratio_ub"] = adf.mcsf / adf.opt_lower
    hold = bool((adf.mcsf <= adf.L44).all() and (adf.opt_lower >= adf.OS).all() and (adf.OS >= adf.L47 - 1e-9).all()
                and np.allclose(adf.LPcvxpy, adf.LPgreedy, atol=1e-6) and adf.claim48.all()
                and adf.tstar_sorted_greedy.all())
    show = pd.DataFrame({
        "restart": adf.restart.astype(int), "n": adf.n.astype(int), "M": adf.M.astype(int), "s": adf.s.astype(int),
        "TEL of MC-SF": adf.mcsf.astype(int),
        "OPT": [_opt_cell(lo, up) for lo, up in zip(adf.opt_lower, adf.opt_upper)],
        "OS": adf.OS.astype(int), "MC-SF / OS": adf.proxy, "MC-SF / OPT": adf.ratio_ub,
        "span constant": adf.L45_need})
    outputs = pd.DataFrame({"restart": adf.restart.astype(int), "outputs (tokens)": adf.outputs.map(str)})
    return {"mr-tab-adv": styled(show), "mr-tab-adv-outputs": styled(outputs),
            "adv_max": f"{adf.ratio_ub.max():.3f}", "adv_proxy_max": f"{adf.proxy.max():.3f}",
            "adv_hold": "holds" if hold else "FAILS",
            "worst_ratio": f"{max(df.ratio_ub.max(), adf.ratio_ub.max()):.3f}"}


# --- identical requests ------------------------------------------------------------------------------

def identical_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """The identical-request table (:func:`kvlib.book.chapters.mcsf_ratio.rows.identical_case_row` rows) sorted by
    ``M, s, o, n``, with ``stagger`` as booleans and the ratios ``ratio_lp`` (MC-SF / our LP) and
    ``ratio_opt`` (MC-SF / OPT)."""
    idf = frame.sort_values(["M", "s", "o", "n"]).reset_index(drop=True)
    idf["stagger"] = idf.stagger.astype(bool)
    idf["ratio_lp"] = idf.mcsf / idf.LP
    idf["ratio_opt"] = idf.mcsf / idf.opt
    return idf


def _batch_sum():
    """SymPy's closed form of the full batches' sum ``sum_{b=1}^{q} k b o`` and its symbols ``(k, q, o)``."""
    import sympy as sp

    b, q, k, o = sp.symbols("b q k o", positive=True, integer=True)
    return sp.simplify(sp.summation(k * b * o, (b, 1, q))), (k, q, o)


def batch_formula(n: int, s: int, o: int, M: int, _closed=None) -> int:
    """MC-SF's TEL if it ran only full batches (001's (15), first line): SymPy's sum of the
    ``q = n // k`` full batches of ``k = M // (s + o)`` requests plus the last, partial batch."""
    batch_sum, (k, q, o_) = _closed or _batch_sum()
    qq, rest = divmod(n, M // (s + o))
    return int(batch_sum.subs({k: M // (s + o), q: qq, o_: o})) + rest * (qq + 1) * o


def check_batch_sum(idf: pd.DataFrame):
    """Check SymPy's batch sum (:func:`batch_formula`) against the stored batch form (column ``batch``)
    on every case of ``idf``; raise ``AssertionError`` naming the first cases where they differ.
    Returns the sum's closed form as a ``Math`` object (the glue key ``batch_sum_math``)."""
    import sympy as sp
    from IPython.display import Math

    closed = _batch_sum()
    bad = [(r.n, r.s, r.o, r.M) for r in idf.itertuples() if batch_formula(r.n, r.s, r.o, r.M, closed) != r.batch]
    if bad:
        raise AssertionError(f"the SymPy batch sum differs from identical_batch_tel at (n, s, o, M) = {bad[:3]}")
    return Math(r"\sum_{b=1}^{q} k\,b\,o = " + sp.latex(sp.factor(closed[0])))


def _case_text(r) -> str:
    return f"n = {int(r.n)}, s = {int(r.s)}, o = {int(r.o)}, M = {int(r.M)}"


def _mcsf_starts(r) -> str:
    from kvlib.book.runs import run_checked

    inst = Instance.at_zero([int(r.s)] * int(r.n), [int(r.o)] * int(r.n), int(r.M))
    return str(run_checked(inst, "mc-sf")[0].schedule.starts)


def staggering_values(idf: pd.DataFrame) -> dict:
    """Where the batch formula is MC-SF's TEL and where MC-SF staggers (:func:`identical_frame`'s frame):
    the counts ``ident_cases``, ``ident_nostag``, ``ident_nostag_eq``, ``ident_stag``, ``ident_stag_diff``,
    ``ident_stag_below``, and the smallest case (fewest requests, then smallest M) where MC-SF is below
    the batch formula, ``ident_ex*``, and the same under Theorem 4.3's ``M >= 2(s + o)``, ``ident_ex43*``
    (MC-SF simulated again for its starts).  Raises ``IndexError`` if no case staggers below the formula."""
    nostag, stag = idf[~idf.stagger], idf[idf.stagger]
    below = stag[stag.mcsf < stag.batch]
    values = {"ident_cases": len(idf), "ident_nostag": len(nostag),
              "ident_nostag_eq": int((nostag.mcsf == nostag.batch).sum()), "ident_stag": len(stag),
              "ident_stag_diff": int((stag.mcsf != stag.batch).sum()), "ident_stag_below": len(below)}
    for key, cases in (("ident_ex", below), ("ident_ex43", below[below.M >= 2 * (below.s + below.o)])):
        ex = cases.sort_values(["n", "M"]).iloc[0]
        values.update({key: _case_text(ex), f"{key}_starts": _mcsf_starts(ex), f"{key}_tel": int(ex.mcsf),
                       f"{key}_batch": int(ex.batch)})
    return values


def identical_ratio_values(idf: pd.DataFrame) -> dict:
    """MC-SF against our LP and against OPT on the exact grid: ``ident_max_lp``, ``ident_max_opt``,
    ``ident_worst`` (the case of the largest MC-SF / OPT) and ``ident_nonopt`` (cases MC-SF > OPT)."""
    worst = idf.sort_values("ratio_opt", ascending=False).iloc[0]
    return {"ident_max_lp": f"{idf.ratio_lp.max():.3f}", "ident_max_opt": f"{idf.ratio_opt.max():.4f}",
            "ident_worst": f"{_case_text(worst)} (MC-SF {int(worst.mcsf)}, OPT {int(worst.opt)})",
            "ident_nonopt": int((idf.mcsf > idf.opt).sum())}


def dense_values(ddf: pd.DataFrame, memories) -> dict:
    """The dense grid (:func:`kvlib.book.chapters.mcsf_ratio.rows.dense_case_row` rows): ``dense_memories`` in words,
    ``dense_cases``, ``dense_max`` and ``dense_argmax`` (largest MC-SF / our LP and its case), and on the
    cases ``M = s + o`` (one request at a time, where MC-SF is optimal) ``b3_seq_max``, with
    ``b3_dense_argmax_seq`` saying whether the grid's worst case is one of them."""
    dmax = ddf.sort_values("ratio_lp", ascending=False).iloc[0]
    seq = ddf[ddf.M == ddf.s + ddf.o]
    return {"dense_memories": words([int(x) for x in memories], "tokens"), "dense_cases": len(ddf),
            "dense_max": f"{ddf.ratio_lp.max():.3f}",
            "dense_argmax": f"M = {int(dmax.M)}, s = {int(dmax.s)}, o = {int(dmax.o)}, n = {int(dmax.n)}",
            "b3_seq_max": f"{seq.ratio_lp.max():.3f}",
            "b3_dense_argmax_seq": "yes" if int(dmax.M) == int(dmax.s) + int(dmax.o) else "no"}


def volume_lp_sympy() -> dict:
    """Our Lemmas V.1 and V.2 in SymPy: V.1's base case, induction step, closed form, dual value, the
    increment of ``D(T)`` and strong duality reduce to 0; V.2's inequalities are positive and its Case 2
    is ``(j - 4)/3``.  Returns the table ``mr-tab-sympy``, ``b1_ok``, ``b2_ok`` and the display ``b2_rho3``;
    raises ``AssertionError`` if a check fails."""
    import sympy as sp
    from IPython.display import Math

    n, s, o, t, T, tau, j, M = sp.symbols("n s o t T tau j M", positive=True)
    v = s * o + o * (o + 1) / 2
    lam, mu = T, 1 / v

    def L(t_):  # L(t) for o <= t <= T
        return lam - v * sp.summation(mu, (tau, t_, T - 1))

    b1_base = sp.simplify(L(o) - o)
    b1_step = sp.simplify((L(t) + v * mu) - (t + 1) - (L(t) - t))  # L(t+1) = L(t) + v mu_t; 0 if L(t) = t
    b1_closed = sp.simplify(L(t) - t)
    D_form = n * T - M * (T * (T - 1) - o * (o - 1)) / (2 * v)
    b1_value = sp.simplify(n * lam - M * sp.summation(tau * mu, (tau, o, T - 1)) - D_form)
    b1_diff = sp.simplify(D_form.subs(T, T + 1) - D_form - (n - M * T / v))
    primal = o * M * o / v + sp.summation(t * M / v, (t, o + 1, T - 1)) + T * (n - M * (T - 1) / v)
    b1_strong = sp.simplify(primal - D_form)
    om_over_v = sp.simplify(o * (s + o) / v)
    b2_omv = sp.simplify(2 - om_over_v)  # > 0
    b2_rho3 = sp.factor(3 - sp.Rational(3, 2) * om_over_v)  # rho < (3/2)(om/v) for k >= 2
    b2_rho2 = sp.factor(2 - (2 * s + o) / (s + o) * om_over_v)  # k = 1, no staggering
    b2_case2 = sp.simplify(sp.Rational(4, 3) * (j - 1) - j)
    b1_ok = b1_base == 0 and b1_step == 0 and b1_closed == 0 and b1_value == 0 and b1_diff == 0 and b1_strong == 0
    b2_ok = all(bool(e.is_positive) for e in (b2_omv, b2_rho3, b2_rho2)) and sp.simplify(b2_case2 - (j - 4) / 3) == 0
    rows = [("V.1", "L(o) − o", b1_base), ("V.1", "L(t+1) − (t+1) given L(t) = t", b1_step),
            ("V.1", "L(t) − t", b1_closed), ("V.1", "dual value − D(T)", b1_value),
            ("V.1", "D(T+1) − D(T) − (n − MT/v)", b1_diff), ("V.1", "primal − dual", b1_strong),
            ("V.2", "2 − om/v", b2_omv), ("V.2", "3 − (3/2) om/v", b2_rho3),
            ("V.2", "k = 1 without staggering", b2_rho2), ("V.2", "case 2: (4/3)(j−1) − j", b2_case2)]
    if not (b1_ok and b2_ok):
        raise AssertionError(f"SymPy does not confirm our Lemmas V.1 (ok: {b1_ok}) and V.2 (ok: {b2_ok})")
    o_s, m_s, v_s = sp.symbols("o m v", positive=True)
    return {"mr-tab-sympy": styled(pd.DataFrame([(lem, what, str(e)) for lem, what, e in rows],
                                                columns=["lemma", "quantity", "SymPy (simplified)"])),
            "b1_ok": "all reduce to 0", "b2_ok": "all positive",
            "b2_rho3": Math(sp.latex(sp.Eq(3 - sp.Rational(3, 2) * o_s * m_s / v_s, b2_rho3, evaluate=False)))}


def exact_grid_values(idf: pd.DataFrame) -> dict:
    """Our volume-LP route on the exact grid (columns of the identical-request table): ``b3_grid_ok``
    (dual <= certified OPT, MC-SF <= batch bound, ``U <= 4D`` where ``rho <= 3``, and the stored flags
    ``comp_ok``, ``feas_ok``, ``strong_ok``), ``b3_ti_ok`` (the time-indexed LP between D and OPT) and the
    largest ratios ``b3_grid_max_*``."""
    comp_ok, feas_ok, strong_ok = (bool(idf[c].astype(bool).all()) for c in ("comp_ok", "feas_ok", "strong_ok"))
    ti_ok = bool(((idf.D <= idf.TI + 1e-6) & (idf.TI <= idf.opt + 1e-6)).all())
    grid_ok = bool((idf.D <= idf.opt + 1e-9).all() and (idf.mcsf <= idf.batch).all()
                   and (idf.batch[idf.rho <= 3] <= 4 * idf.D[idf.rho <= 3] + 1e-9).all())
    return {"b3_ti_ok": _yes(ti_ok),
            "b3_grid_max_opt_ti": f"{(idf.opt / idf.TI).max():.3f}",
            "b3_grid_max_ti_dual": f"{(idf.TI / idf.D).max():.3f}",
            "b3_grid_ok": _yes(grid_ok and comp_ok and feas_ok and strong_ok),
            "b3_grid_max_opt_dual": f"{(idf.opt / idf.D).max():.3f}",
            "b3_grid_max_mcsf_dual": f"{(idf.mcsf / idf.D).max():.3f}"}


def _at(row, *cols) -> str:
    return ", ".join(f"{c} = {int(row[c])}" for c in cols)


def batch_dual_values(b3: pd.DataFrame, points: int, s_values, o_max: int) -> dict:
    """The dense closed-form grid of :func:`kvlib.theory.identical_grids.batch_dual_grid` (``b3`` and its
    ``points``): the largest ``U / D(T*)`` where Lemma V.2 applies (``rho <= 3``), under Theorem 4.3's
    assumption (``k >= 2``) and in the open region (``rho > 3``), where they are reached, and the table
    ``mr-tab-b3k`` by the number ``k`` of requests that fit at once."""
    proved, assump, open_ = b3[b3.rho <= 3], b3[b3.k >= 2], b3[b3.rho > 3]
    wa = assump.sort_values("U/D").iloc[-1]
    wo = open_.sort_values("U/D").iloc[-1]
    by_k = (b3.groupby(b3.k.clip(upper=3)).agg(cases=("U/D", "size"), max_rho=("rho", "max"),
                                               sup_U_over_D=("U/D", "max"))
            .rename(index={3: "3 or more"}).rename_axis("k").reset_index()
            .rename(columns={"cases": "triples (s, o, M)", "max_rho": "largest ρ", "sup_U_over_D": "largest U / D"}))
    return {"b3_o_max": f"{int(o_max):,}", "b3_s_values": words([int(x) for x in s_values]), "b3_cases": len(b3),
            "b3_points": int(points), "b3_sup_proved": f"{proved['U/D'].max():.3f}",
            "b3_sup_assump": f"{assump['U/D'].max():.3f}",
            "b3_sup_assump_at": f"{_at(wa, 's', 'o', 'M')} (k = {int(wa.k)}), n = {int(wa.n_worst)}",
            "b3_sup_open": f"{open_['U/D'].max():.3f}",
            "b3_sup_open_at": f"{_at(wo, 's', 'o', 'M')}, n = {int(wo.n_worst)}",
            "b3_open_cases": len(open_), "b3_rho_max_assump": f"{assump.rho.max():.4f}",
            "b3_large_q": f"{assump['U/D at q >= 1'].max():.3f}", "mr-tab-b3k": styled(by_k)}


def open_region_values(sdf3: pd.DataFrame) -> dict:
    """MC-SF simulated in the open region (:func:`kvlib.book.chapters.mcsf_ratio.rows.open_region_row` rows):
    ``b3_sim_cases``, ``b3_sim_max`` (largest MC-SF / D) and ``b3_sim_U_max`` (largest U / D)."""
    return {"b3_sim_cases": len(sdf3), "b3_sim_max": f"{sdf3['MC-SF / D'].max():.3f}",
            "b3_sim_U_max": f"{sdf3['U / D'].max():.3f}"}


# --- Proposition 4.2: decision times -----------------------------------------------------------------

def timing_rows(memories, rng) -> list[dict]:
    """MC-SF timed at every decision, one row per memory ``M`` of ``memories``: ``n = 3M`` requests at
    ``t = 0`` with prompts drawn from ``U{1..10}`` and outputs from ``U{1..M/4}`` by ``rng`` (in this order,
    one ``M`` after the other); the schedule is re-checked.  Each row has ``M``, ``n``, ``rounds``, the
    mean and largest decision time in microseconds, the mean numbers of running and waiting requests,
    and the arrays ``times`` (seconds) and ``waiting`` (queue length before each decision)."""
    from kvlib.book.recording import QueueRecorder
    from kvlib.core.checker import check_schedule
    from kvlib.core.simulate import simulate
    from kvlib.policies import make_policy

    rows = []
    for M in memories:
        n = 3 * M
        inst = Instance.at_zero(rng.integers(1, 11, size=n).tolist(), rng.integers(1, M // 4 + 1, size=n).tolist(), M)
        pol = QueueRecorder(make_policy("mc-sf"))
        res = simulate(inst, pol, record_decision_times=True)
        if not check_schedule(inst, res.schedule).valid:
            raise AssertionError(f"MC-SF's schedule at M = {M} is not valid")
        dt = np.asarray(res.decision_times)
        rows.append({"M": M, "n": n, "rounds": len(dt), "mean us": 1e6 * dt.mean(), "max us": 1e6 * dt.max(),
                     "mean running": float(np.mean(pol.running)), "mean waiting": float(np.mean(pol.waiting)),
                     "times": dt, "waiting": np.asarray(pol.waiting)})
    return rows


def timing_values(rows: list[dict]) -> dict:
    """From :func:`timing_rows` (in increasing ``M``): the table ``mr-tab-time``, the fitted exponent
    ``time_slope`` of the mean decision time in ``M`` (:func:`kvlib.book.stats.fit_exponent`) and, at the
    last (largest) ``M``, ``time_maxM``, ``time_mean_maxM``, ``time_running_maxM``, ``time_waiting_maxM``."""
    from kvlib.book.stats import fit_exponent

    tdf = pd.DataFrame(rows)
    table = tdf.drop(columns=["times", "waiting"]).rename(columns={
        "M": "M (tokens)", "n": "requests", "mean us": "mean (µs)", "max us": "max (µs)",
        "mean running": "running (mean)", "mean waiting": "waiting (mean)"})
    return {"mr-tab-time": styled(table, precision=1),
            "time_slope": f"{fit_exponent(tdf.M, tdf['mean us'], points=len(tdf)):.2f}",
            "time_maxM": int(tdf.M.max()), "time_mean_maxM": f"{tdf['mean us'].iloc[-1]:.0f}",
            "time_running_maxM": f"{tdf['mean running'].iloc[-1]:.1f}",
            "time_waiting_maxM": f"{tdf['mean waiting'].iloc[-1]:.0f}"}


# --- 004 Theorem 4.2: the sweep ----------------------------------------------------------------------

def sweep_counterexamples(sw: pd.DataFrame) -> pd.DataFrame:
    """The counterexamples of the sweep (:func:`kvlib.book.chapters.mcsf_ratio.rows.sweep004_cases`), fewest requests
    first, then by ``M`` and ``s`` (stable); columns ``n, M, s, outputs, mcsf, opt, thm43``.  Raises
    ``AssertionError`` if a HiGHS interval contradicts a branch-and-bound optimum."""
    from kvlib.book.chapters.mcsf_ratio.rows import sweep004_cases

    if int(sw.highs_contradictions.sum()) != 0:
        raise AssertionError(f"HiGHS contradicts the branch and bound:\n{sw[sw.highs_contradictions > 0]}")
    bad = pd.DataFrame(sweep004_cases(sw), columns=["n", "M", "s", "outputs", "mcsf", "opt", "thm43"])
    return bad.sort_values(["n", "M", "s"], kind="stable")


def _confirm_scope(confirm_max) -> str:
    if confirm_max is None:
        return "every counterexample is"
    plural = confirm_max != 1
    return (f"the first {confirm_max} counterexample{'s' if plural else ''} of every group (M, s, n) "
            f"{'are' if plural else 'is'}")


def sweep_values(sw: pd.DataFrame, bad: pd.DataFrame, confirm_max) -> dict:
    """The sweep of 004 Theorem 4.2 (``sw``: :func:`kvlib.book.chapters.mcsf_ratio.rows.sweep004_row` rows; ``bad``:
    :func:`sweep_counterexamples`): ``sweep_n``, ``sweep_bad``, ``sweep_confirmed``, ``sweep_exact_pct``,
    ``sweep_bad_thm43``, ``sweep_thm43``, ``sweep_worst`` (``"1"`` without counterexamples), which
    counterexamples HiGHS re-solved (``sweep_confirm_scope``, from ``confirm_max``), and the table of the
    first eight ``mr-tab-sweep``."""
    show = bad.head(8)[["n", "M", "s", "outputs", "mcsf", "opt", "thm43"]].assign(
        outputs=lambda d: d.outputs.map(str), thm43=lambda d: d.thm43.map(lambda v: "yes" if v else "no"))
    return {"sweep_confirm_scope": _confirm_scope(confirm_max), "sweep_n": int(sw.instances.sum()),
            "sweep_bad": len(bad), "sweep_confirmed": int(sw.highs_confirmed.sum()),
            "sweep_exact_pct": f"{100 * (1 - len(bad) / sw.instances.sum()):.1f}",
            "sweep_bad_thm43": int(bad.thm43.sum()), "sweep_thm43": int(sw.thm43.sum()),
            "sweep_worst": f"{(bad.mcsf / bad.opt).max():.3f}" if len(bad) else "1",
            "mr-tab-sweep": styled(show.rename(columns={
                "n": "requests", "M": "M (tokens)", "outputs": "outputs (tokens)", "mcsf": "TEL of MC-SF",
                "opt": "OPT", "thm43": "M ≥ 2(s + max o)"}))}


# --- 004 Theorem 5.3: the proof's terms, Hoeffding, regret -------------------------------------------

_CPL_AGG = dict(instances=("n", "size"), requests=("n", "sum"), times=("times", "sum"), differ=("differ", "sum"),
                CP_pos=("cp_pos", "sum"), identity=("identity", "all"), fail_i=("fail_lemma54_i", "sum"),
                fail_ii=("fail_lemma54_ii", "sum"), fail_iii=("fail_lemma54_iii", "sum"),
                fail_state=("fail_same_state", "sum"), fail_eq7=("fail_eq7", "sum"),
                fail_bound=("fail_bound", "sum"), max_span=("max_span", "max"), regret=("mcsf", "sum"))


def coupling_summary(cpl: pd.DataFrame) -> pd.DataFrame:
    """One row per (regime, T) of the coupling table (:func:`kvlib.book.chapters.mcsf_ratio.offcouple_rows.coupling_row`
    rows), in the table's order: counts summed over the replicates, whether the telescoping identity
    held on all, the largest span, and the regret per request ``(sum TEL - sum OPT) / sum n``."""
    out = cpl.groupby(["regime", "T"], sort=False).agg(**_CPL_AGG).reset_index()
    out["regret"] = [(g.mcsf.sum() - g.opt.sum()) / g.n.sum() for _, g in cpl.groupby(["regime", "T"], sort=False)]
    return out


def coupling_values(cpl: pd.DataFrame) -> dict:
    """The proof's terms over every decision time: the two tables ``mr-tab-cpl-terms`` and
    ``mr-tab-cpl-fails`` (:func:`coupling_summary`, split because one would be too wide), ``cpl_identity``
    and the counts ``cpl_times``, ``cpl_differ``, ``cpl_fail_*`` and ``cpl_span_max``."""
    s = coupling_summary(cpl)
    terms = s[["regime", "T", "instances", "requests", "times", "differ", "CP_pos", "identity", "regret"]].assign(
        identity=lambda d: d.identity.map(_yes)).rename(columns={
            "instances": "draws", "times": "decision times", "differ": "OFF differs", "CP_pos": "CP > 0",
            "identity": "Σ CP = TEL − OPT", "regret": "(TEL − OPT) / n"})
    fails = s[["regime", "T", "fail_i", "fail_ii", "fail_iii", "fail_state", "fail_eq7", "fail_bound",
               "max_span"]].rename(columns={
                   "fail_i": "5.4 (i)", "fail_ii": "5.4 (ii)", "fail_iii": "5.4 (iii)", "fail_state": "state at t̂",
                   "fail_eq7": "(7) not exact", "fail_bound": "CP bound", "max_span": "largest t̂ − t"})
    return {"mr-tab-cpl-terms": styled(terms, precision=3), "mr-tab-cpl-fails": styled(fails),
            "cpl_identity": "holds on every instance" if bool(cpl.identity.all()) else "FAILS",
            "cpl_times": int(cpl.times.sum()), "cpl_differ": int(cpl.differ.sum()),
            "cpl_fail_i": int(cpl.fail_lemma54_i.sum()), "cpl_fail_ii": int(cpl.fail_lemma54_ii.sum()),
            "cpl_fail_iii": int(cpl.fail_lemma54_iii.sum()), "cpl_fail_state": int(cpl.fail_same_state.sum()),
            "cpl_fail_bound": int(cpl.fail_bound.sum()), "cpl_span_max": int(cpl.max_span.max())}


def load_values() -> dict:
    """The load factors of the two regimes of :data:`kvlib.book.chapters.mcsf_ratio.offcouple_rows.REGIMES`
    (:func:`kvlib.theory.offcouple.load_factor`): ``oc_load_stable`` and ``oc_load_over``."""
    from kvlib.book.chapters.mcsf_ratio.offcouple_rows import REGIMES
    from kvlib.theory.offcouple import load_factor

    def load(regime):
        return f"{load_factor(**{k: REGIMES[regime][k] for k in ('M', 's', 'B', 'p', 'o_max')}):.3f}"

    return {"oc_load_stable": load("stable"), "oc_load_over": load("overloaded")}


def _prob_range(prob) -> str:
    lo, hi = f"{prob.min():.3f}", f"{prob.max():.3f}"
    if lo == hi:
        return f"{lo} at every horizon of the table"
    return f"between {lo} and {hi} over the horizons of the table"


def hoeffding_values(window: int, horizons) -> dict:
    """Lemma 5.5's display with Bernoulli arrivals (:func:`kvlib.theory.offcouple.hoeffding_display`;
    the stable regime's ``p``, ``q = 3/4``, a window of ``window`` rounds) at each horizon: the table
    ``mr-tab-hoef``, ``hoeffding_window``, ``hoef_holds``, the exact probability at the last horizon and
    over all (``hoef_prob_last``, ``hoef_prob_range``), and the bound ``hoef_bound_last`` at ``hoef_T_last``."""
    from kvlib.book.chapters.mcsf_ratio.offcouple_rows import REGIMES
    from kvlib.theory.offcouple import hoeffding_display

    p = Fraction(REGIMES["stable"]["p"]).limit_denominator(100)
    hoef = pd.DataFrame([hoeffding_display(1, p, Fraction(3, 4), window, T) for T in horizons])
    table = hoef.assign(holds=hoef.holds.map(_yes)).rename(columns={
        "T": "T (rounds)", "C": "window (rounds)", "E": "E[N]", "prob": "Pr(N ≥ (1 + 1/T) E[N]), exact",
        "bound": "Hoeffding bound", "holds": "display holds", "one_minus_bound": "1 − bound"})
    return {"mr-tab-hoef": styled(table, precision=4, formats={"1 − bound": "{:.1e}"}),
            "hoeffding_window": int(window), "hoef_holds": "holds" if bool(hoef.holds.all()) else "FAILS",
            "hoef_prob_last": f"{hoef.prob.iloc[-1]:.3f}", "hoef_prob_range": _prob_range(hoef.prob),
            "hoef_bound_last": f"1 - {hoef.one_minus_bound.iloc[-1]:.1e}", "hoef_T_last": int(hoef["T"].iloc[-1])}


def min_output_values(T: int, reps: int, seed: int) -> dict:
    """Lemma 5.6's display ``Pr(o_min <= 1) = 1 - (1 - F(1))^|R|`` on MC-SF's waiting queues
    (:func:`kvlib.theory.offcouple.min_output_display`) over ``reps`` overloaded draws of horizon ``T``:
    ``mo_exp`` (predicted count), ``mo_obs`` (observed), ``mo_times`` (decision times), ``mo_setup``."""
    from kvlib.book.chapters.mcsf_ratio.offcouple_rows import regime_instance
    from kvlib.theory.offcouple import min_output_display

    mo = [min_output_display(regime_instance("overloaded", T, r, seed), 1, 4) for r in range(reps)]
    return {"mo_exp": f"{sum(r['expected'] for r in mo):.1f}", "mo_obs": sum(r["observed"] for r in mo),
            "mo_times": sum(r["times"] for r in mo),
            "mo_setup": f"{reps} overloaded instances of T = {T} rounds, computed live"}


def regret_opt_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Means per (regime, T) of the table of :func:`kvlib.book.chapters.mcsf_ratio.offcouple_rows.regret_opt_row` rows, in
    its order: draws, mean requests, optima proved, the two ends of the regret interval
    ``(TEL - OPT) / n`` (``regret_lo`` against OPT's upper end) and OPT's average latency."""
    ro = frame.copy()
    ro["regret_lo"] = (ro.mcsf - ro.opt_upper) / ro.n
    ro["regret_hi"] = (ro.mcsf - ro.opt_lower) / ro.n
    out = (ro.groupby(["regime", "T"], sort=False)
           .agg(instances=("n", "size"), requests=("n", "mean"), proved=("proved", "sum"),
                regret_lo=("regret_lo", "mean"), regret_hi=("regret_hi", "mean"), aopt=("opt_upper", "sum"))
           .reset_index())
    out["avg latency OPT"] = [g.opt_upper.sum() / g.n.sum() for _, g in ro.groupby(["regime", "T"], sort=False)]
    return out.drop(columns="aopt")


def regret_opt_values(ro_sum: pd.DataFrame) -> dict:
    """From :func:`regret_opt_summary`: the table ``mr-tab-ro``, the regret at the first horizon and its
    interval at the last per regime (``ro_st_*`` stable, ``ro_ov_*`` overloaded) and the horizons
    ``ro_T_first``, ``ro_T_last``."""
    values = {"mr-tab-ro": styled(ro_sum.rename(columns={
        "instances": "draws", "requests": "requests (mean)", "proved": "OPT proved",
        "regret_lo": "regret (lower end)", "regret_hi": "regret (upper end)",
        "avg latency OPT": "OPT average latency"}), precision=3)}
    for reg, key in (("stable", "st"), ("overloaded", "ov")):
        g = ro_sum[ro_sum.regime == reg]
        values[f"ro_{key}_first"] = f"{g.regret_lo.iloc[0]:.3f}"
        values[f"ro_{key}_last"] = f"{g.regret_lo.iloc[-1]:.3f} to {g.regret_hi.iloc[-1]:.3f}"
    values.update(ro_T_first=int(ro_sum["T"].min()), ro_T_last=int(ro_sum["T"].max()))
    return values


def regret_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Means per (load, T) of the table of :func:`kvlib.book.chapters.mcsf_ratio.rows.regret_row` rows (Poisson
    arrivals): replicates ``seeds`` and the means of ``n``, ``avg mcsf``, ``avg LB`` and ``gap``."""
    return (frame.groupby(["load", "T"]).agg(seeds=("rep", "size"), **{c: (c, "mean") for c in
            ("n", "avg mcsf", "avg LB", "gap")}).reset_index())


def regret_values(rdf: pd.DataFrame, cap: float, seeds: int) -> dict:
    """From :func:`regret_summary` (loads 0.7 and 1.3): the table ``mr-tab-reg``, the volume capacity
    ``reg_cap``, the gap at the first and last horizon per load (``reg_lo_*``, ``reg_hi_*``), the
    horizons ``reg_T_first``, ``reg_T_last`` and the replicates ``regret_seeds``."""
    lo, hi = rdf[rdf.load == 0.7], rdf[rdf.load == 1.3]
    return {"regret_seeds": int(seeds),
            "mr-tab-reg": styled(rdf.rename(columns={
                "T": "T (rounds)", "seeds": "replicates", "n": "requests (mean)", "avg mcsf": "MC-SF avg latency",
                "avg LB": "lower bound avg", "gap": "gap (rounds)"}), precision=2),
            "reg_cap": f"{cap:.3f}", "reg_lo_first": f"{lo.gap.iloc[0]:.2f}", "reg_lo_last": f"{lo.gap.iloc[-1]:.2f}",
            "reg_hi_first": f"{hi.gap.iloc[0]:.2f}", "reg_hi_last": f"{hi.gap.iloc[-1]:.2f}",
            "reg_T_first": int(rdf["T"].min()), "reg_T_last": int(rdf["T"].max())}


# --- 004 Section 8.2 ---------------------------------------------------------------------------------

def sec82_frame(slopes: dict, requests: int = 9000) -> pd.DataFrame:
    """004 Section 8.2's arithmetic: for each demand, the stated slopes ``(Algorithm 2, best benchmark)``
    (seconds of average latency per request, as ``Fraction``), their ratio, and the rise in average
    latency they imply over ``requests`` more requests (from 1,000 to 10,000 by default)."""
    return pd.DataFrame([{"demand": case, "slope, Algorithm 2": str(a), "slope, best benchmark": str(b),
                          "ratio": str(b / a), "rise, Algorithm 2 (s)": float(a * requests),
                          "rise, benchmark (s)": float(b * requests)} for case, (a, b) in slopes.items()])


def sec82_values(sec82: pd.DataFrame) -> dict:
    """From :func:`sec82_frame` (high demand first, then low): the table ``mr-tab-s82``, the slope ratios
    ``s82_ratio_hi``/``_lo``, Algorithm 2's rise at high demand ``s82_rise_alg2`` and the latency gaps
    the slopes imply ``s82_gap_hi``/``_lo``."""
    return {"mr-tab-s82": styled(sec82, precision=1), "s82_ratio_hi": str(sec82["ratio"].iloc[0]),
            "s82_ratio_lo": str(sec82["ratio"].iloc[1]), "s82_rise_alg2": f"{sec82.iloc[0, 4]:.0f}",
            "s82_gap_hi": f"{sec82.iloc[0, 5] - sec82.iloc[0, 4]:.0f}",
            "s82_gap_lo": f"{sec82.iloc[1, 5] - sec82.iloc[1, 4]:.1f}"}
