"""Page helpers of the Aₘᵢₙ chapter (notebooks/amin.py): provenance notes and compact tables.

:func:`rows_note` turns a stored table's label (:attr:`kvlib.book.store.Table.label`) into Markdown
whose file path is a code literal, for ``{glue:md}`` in captions; :func:`readable` renames the
columns of a display frame to headers a reader knows (no snake_case, no TeX); :func:`joined` and
:func:`as_fraction` make narrow tables (several small keys in one column, ``1/4`` for ``0.25``);
:func:`table` is :func:`kvlib.book.tables.styled` with room between the columns (glued tables sit
in a figure, outside the padding the book's stylesheet gives to cell outputs).

The rest builds the page's tables and glued values from the frames the chapter computed or read from
its stored tables (summaries in :mod:`kvlib.book.chapters.amin.values`): ``*_table`` functions return a display frame
(the chapter styles it with :func:`table`), ``*_tables`` and ``*_facts`` functions return
``{glue name: value}`` for :func:`kvlib.book.gluing.glue_all`.  Nothing here changes a number; the
symbolic checks are in :mod:`kvlib.book.chapters.amin.algebra`, the figures in :mod:`kvlib.book.chapters.amin.figures`.
"""

from __future__ import annotations

from fractions import Fraction

__all__ = ["rows_note", "readable", "joined", "as_fraction", "without_constant", "table", "POLICY_NAMES",
           "CELL_PADDING", "seeds_text", "THM2_HEADERS", "theorem2_tables", "ec1_table", "ec7_facts",
           "coupling_table", "coupling_facts", "lemma_ec1_table", "lemma_ec1_facts", "ec5_facts", "ec6_table",
           "READINGS", "periods_csv_frame", "periods_tables", "single_length_facts", "theorem6_table",
           "cross_terms_tables", "cross_terms_facts", "lemma2_distributions", "lemma2_table", "geometric_runs_facts",
           "decision_time_facts", "corollary2_table", "figure2_table"]

#: Registry names of the policies in the chapter's frames -> the names the page uses.
POLICY_NAMES = {"a-min": "Aₘᵢₙ", "a-min-progress": "Aₘᵢₙ (progress reading)", "a-max": "Aₘₐₓ",
                "a-random": "A-random", "a-l": "Aₗ", "h-sf": "H-SF"}

#: CSS padding of the header and body cells of :func:`table`.
CELL_PADDING = "0.2em 0.55em"


def rows_note(table) -> str:
    """The table's label with its CSV path (``results/CHAPTER/NAME.csv``) as a code literal.

    A live table's label names no path and comes back unchanged."""
    label = str(table.label)
    path = str(getattr(table, "path", "") or "")
    return label.replace(path, f"`{path}`") if path and path in label else label


def readable(df, names: dict | None = None, policies: dict | None = None):
    """``df`` with its columns renamed by ``names`` and its ``policy`` cells by ``policies``
    (default :data:`POLICY_NAMES`)."""
    out = df.rename(columns=names or {})
    if "policy" in out.columns:
        table_ = POLICY_NAMES if policies is None else policies
        out = out.assign(policy=out["policy"].map(lambda p: table_.get(p, p)))
    return out


def _plain(v) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def joined(df, columns: list, name: str, sep: str = ", ", template: str | None = None):
    """``df`` with ``columns`` replaced by one text column ``name`` (at the first one's place):
    ``"a, b"`` or ``template.format(*values)``, with non-breaking spaces (a cell never wraps);
    whole floats are written as integers."""
    pos = list(df.columns).index(columns[0])
    vals = [[_plain(v) for v in row] for row in df[columns].itertuples(index=False, name=None)]
    text = [(template.format(*r) if template else sep.join(r)).replace(" ", "\u00a0") for r in vals]
    out = df.drop(columns=columns)
    out.insert(pos, name, text)
    return out


def as_fraction(x, max_denominator: int = 100) -> str:
    """``0.25 -> "1/4"``, ``1.0 -> "1"`` (the nearest fraction with a small denominator)."""
    f = Fraction(float(x)).limit_denominator(max_denominator)
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"


def without_constant(df, column: str):
    """``(df without column, its value)`` when every row holds the same value (for the caption to
    state), else ``(df, None)``: a partial table with unequal counts keeps its column."""
    vals = df[column].unique()
    if len(vals) == 1:
        v = vals[0]
        return df.drop(columns=column), (int(v) if float(v).is_integer() else v)
    return df, None


def table(df, font_size: str | None = None, **kwargs):
    """:func:`kvlib.book.tables.styled` with :data:`CELL_PADDING` between the columns (and a smaller
    ``font_size``, e.g. ``"0.85em"``, for a wide table)."""
    from kvlib.book.tables import styled

    props = f"padding: {CELL_PADDING};" + (f" font-size: {font_size};" if font_size else "")
    return styled(df, **kwargs).set_table_styles([{"selector": "th, td", "props": props}], overwrite=False)


def seeds_text(n, column: str) -> str:
    """``"3 seeds"`` / ``"1 seed"`` for a caption when every row has ``n`` seeds; ``"the seeds of column
    “COLUMN”"`` when ``n`` is ``None`` or 0 (unequal counts, the table keeps its column)."""
    return f"{n} seed{'s' * (n != 1)}" if n else f"the seeds of column “{column}”"


#: Reader-facing headers of the two Theorem 2 tables (after :func:`kvlib.book.chapters.amin.values.theorem2_display`).
THM2_HEADERS = {"alpha": "α", "reps": "seeds", "M (tokens)": "M",
                "batch Aₘₐₓ / H-SF (closed form)": "batch Aₘₐₓ / H-SF (closed)"}


def theorem2_tables(thm2) -> dict:
    """The Theorem 2 tables of :func:`kvlib.theory.cyz_experiments.theorem2_summary`: the instances and
    TELs (``amin-tab-thm2-inst``; ``(l, u)`` in one column, ``alpha`` as a fraction, the seed count
    stated in the caption, ``thm2_seeds_s``, when it is the same on every row) and the ratios
    (``amin-tab-thm2-ratio``)."""
    from kvlib.book.chapters.amin.values import theorem2_display

    inst, ratios = theorem2_display(thm2)
    inst, seeds = without_constant(inst, "reps")
    inst = joined(inst.assign(alpha=inst.alpha.map(as_fraction)), ["l", "u"], "(l, u)", template="({}, {})")
    return {"thm2_seeds_s": seeds_text(seeds, "seeds"),
            "amin-tab-thm2-inst": table(inst.rename(columns=THM2_HEADERS), formats={"Aₘₐₓ TEL (mean)": "{:,.1f}"}),
            "amin-tab-thm2-ratio": table(ratios.assign(alpha=ratios.alpha.map(as_fraction)).rename(columns=THM2_HEADERS))}


def ec1_table(prop: dict, ec7: dict):
    """:func:`kvlib.book.chapters.amin.values.ec1_display` turned on its side: one row per quantity (as text), one column
    for Proposition EC.1's two schedules and one for eq. (EC.7) over all orders of A-random."""
    from kvlib.book.chapters.amin.values import ec1_display

    tab = (ec1_display(prop, ec7).set_index("statement").T.astype(str)
           .rename(index={"beta M": "βM", "TEL under beta M": "TEL under βM", "1/beta": "1/β"})
           .rename_axis("quantity").reset_index())
    tab.columns = ["quantity", "Proposition EC.1 (two schedules)", "eq. (EC.7) (A-random, all orders)"]
    return tab


def ec7_facts(ec7: dict, readings: dict) -> dict:
    """Glue of eq. (EC.7) on four requests: the expected TELs and their quotient (``ec7_E_M``,
    ``ec7_E_small``, ``ec7_quot``, exact, as text) of ``ms.coupled_expectations``, and from
    ``ce.ec7_instance`` (``readings``) whether skipping a request that does not fit gives the same quotient
    (``ec7_skip_same``), the means and quotient when eq. (3) counts each new prompt (``ec7_eq3_*``) and
    whether every coupled pair meets both definitions (``ec7_defs_ok``).

    Raises ``ValueError`` when the two computations disagree on the engine reading, or when eq. (EC.7)
    holds under some reading (the page states that it fails under all four)."""
    r = readings["readings"]
    stop, stop3 = r[("stop", "engine")], r[("stop", "eq3")]
    if (stop["E_tel_M"], stop["E_tel_small"]) != (ec7["E_tel_M"], ec7["E_tel_small"]):
        raise ValueError("ec7_facts: coupled_expectations and ec7_instance disagree on the engine reading")
    if any(v["holds"] for v in r.values()):
        raise ValueError("ec7_facts: eq. (EC.7) holds under some reading")
    return {"ec7_skip_same": str(r[("skip", "engine")]["quotient"] == ec7["quotient"]),
            "ec7_eq3_M": str(stop3["E_tel_M"]), "ec7_eq3_small": str(stop3["E_tel_small"]),
            "ec7_eq3_quot": str(stop3["quotient"]),
            "ec7_eq3_skip_same": str(r[("skip", "eq3")]["quotient"] == stop3["quotient"]),
            "ec7_defs_ok": str(all(v["pairs_meeting_definitions"] == readings["perms"] for v in r.values())),
            "ec7_quot": str(ec7["quotient"]), "ec7_E_M": str(ec7["E_tel_M"]), "ec7_E_small": str(ec7["E_tel_small"])}


def coupling_table(cpl):
    """:func:`kvlib.book.chapters.amin.values.coupling_summary` for the page: ``(n, M, βM)`` in one column, short headers,
    without the column ``inv_beta`` (the caption states ``β = 1/2``)."""
    return joined(cpl.drop(columns="inv_beta"), ["n", "M", "small_M"], "n; M → βM", template="{}; {} → {}").rename(
        columns={"instances": "inst.", "violating": "pairs > 1/β", "violating_with_hypotheses": "of which both defs",
                 "instances_violating_mean": "inst. mean > 1/β", "largest_pair_quotient": "max pair",
                 "largest_mean_quotient": "max mean"})


def coupling_facts(cpl, perms: int) -> dict:
    """Glue of the coupled pairs: their counts summed over the rows of :func:`kvlib.book.chapters.amin.values.coupling_summary`
    and the largest mean quotient; ``perms`` is the number of permutations per instance."""
    return {"cpl_perms_n": int(perms), "cpl_pairs": int(cpl.pairs.sum()), "cpl_viol": int(cpl.violating.sum()),
            "cpl_viol_hyp": int(cpl.violating_with_hypotheses.sum()), "cpl_inst": int(cpl.instances.sum()),
            "cpl_inst_mean": int(cpl.instances_violating_mean.sum()),
            "cpl_max_mean": float(cpl.largest_mean_quotient.max())}


def lemma_ec1_table(lec1):
    """The rows of ``ms.lemma_ec1_summary`` for the page: ``(n, l, u, s)`` and ``M → αM`` in one column each,
    the largest quotient as an exact fraction, short headers."""
    tab = joined(lec1.assign(max_quotient=lec1.max_quotient.map(str)), ["n", "l", "u", "s"], "n, l, u, s")
    return joined(tab, ["M", "alpha_M"], "M → αM", template="{} → {}").rename(columns={
        "instances": "inst.", "pairs": "pairs", "ec8_holds": "(EC.8) holds", "tel_worse": "TEL larger",
        "start_later": "start later", "max_quotient": "max quotient"})


def lemma_ec1_facts(lec1) -> dict:
    """Glue of Lemma EC.1: instances and coupled pairs, the failures (instances where eq. (EC.8) fails plus
    pairs where Aₘₐₓ's TEL is larger or a request starts later) and the largest quotient (as text)."""
    fail = (lec1.instances - lec1.ec8_holds).sum() + lec1.tel_worse.sum() + lec1.start_later.sum()
    return {"lec1_inst": int(lec1.instances.sum()), "lec1_pairs": int(lec1.pairs.sum()), "lec1_fail": int(fail),
            "lec1_max": str(max(lec1.max_quotient))}


def ec5_facts(results: dict) -> dict:
    """Glue of eq. (EC.5): the supremum over the whole interval (``ec5_*_all``) and over its end points
    (``ec5_*_end``) for Aₘₐₓ (``amax``) and A-random (``arand``), as fractions ``"p/q"``, and the table
    ``amin-tab-ec5``.  Raises ``ValueError`` if eq. (EC.5) holds for one of them (the page says it fails)."""
    from kvlib.book.chapters.amin.values import ec5_display

    if any(r["holds"] for r in results.values()):
        raise ValueError("ec5_facts: eq. (EC.5) holds for some policy")
    out = {"amin-tab-ec5": table(readable(ec5_display(results), {"sup over {l..u}^n": "sup over {1,2,3}³",
                                                                 "sup over {l, u}^n": "sup over {1,3}³"}))}
    for pol, key in (("a-max", "amax"), ("a-random", "arand")):
        out[f"ec5_{key}_all"] = f"{results[pol]['sup_all'].numerator}/{results[pol]['sup_all'].denominator}"
        out[f"ec5_{key}_end"] = f"{results[pol]['sup_ends'].numerator}/{results[pol]['sup_ends'].denominator}"
    return out


def ec6_table(summary):
    """:func:`kvlib.book.chapters.amin.values.ec6_summary` for the page: ``(l, u)`` in one column, ``α`` as a fraction."""
    tab = joined(summary.assign(alpha=summary.alpha.map(as_fraction)), ["l", "u"], "(l, u)", template="({}, {})")
    return tab.rename(columns={"alpha": "α", "worst": "worst A-random / H-SF", "ec6": "(1 + 1/α)/2 (paper's)",
                               "worst_over_bound": "worst / bound"})


#: Names of the readings of Aₘᵢₙ in the periods tables.
READINGS = {"a-min": "literal", "a-min-progress": "progress"}


def periods_csv_frame(per_j):
    """The first-period rows of ``ap.periods_frame`` with the headers of the CSV the page offers."""
    return readable(per_j, {
        "scale": "c", "M": "M (tokens)", "load": "n/M", "first_share": "c(l,j) / (x(j)·n)",
        "prop1_first": "(s+l)/(s+j) (paper's)", "frac_inputs": "c(l,j) / b(l,j), inputs",
        "frac_requests": "c(l,j) / b(l,j), requests", "inputs_per_request": "inputs per request"})


def periods_tables(per_j, per_sum) -> dict:
    """The two tables of the periods section (``amin-tab-periods``: the first period per true length;
    ``amin-tab-periods-sum``: all periods, :func:`kvlib.book.chapters.amin.values.periods_summary`), their row count
    ``per_rows`` and ``per_seeds_s``: the seeds per row for the caption when the first table's column
    ``runs`` is constant (then both tables drop it), else a pointer to that column."""
    per_j_tab, seeds = without_constant(per_j.drop(columns="load"), "runs")
    per_sum_tab, _ = without_constant(per_sum, "runs") if seeds else (per_sum, None)
    first = readable(per_j_tab, {"first_share": "c(l,j) / (x(j)·n)", "prop1_first": "(s+l)/(s+j) (paper's)",
                                 "frac_inputs": "per input", "frac_requests": "per request",
                                 "inputs_per_request": "inputs / request"}, READINGS)
    every = readable(per_sum_tab, {"lemma1_dev_inputs": "Lemma 1, inputs", "lemma1_dev_requests": "Lemma 1, requests",
                                   "prop1_later_dev": "Prop. 1, i > l", "ratio": "Aₘᵢₙ / H-SF", "lemma2": "Lemma 2"},
                     READINGS)
    return {"per_seeds_s": seeds_text(seeds, "runs"),
            "amin-tab-periods": table(joined(first.rename(columns={"policy": "reading"}), ["scale", "M", "s"], "c, M, s"),
                                      font_size="0.85em"),
            "per_rows": int(len(per_j)),
            "amin-tab-periods-sum": table(joined(every.rename(columns={"policy": "reading"}), ["scale", "M", "s"],
                                                 "c, M, s"), formats={"evictions": "{:,.1f}"}, font_size="0.85em")}


def single_length_facts(one, M_equal: int = 240) -> dict:
    """Glue of the single-length runs (``cx.single_length_row``): the table ``amin-tab-one`` (Aₘᵢₙ / H-SF
    per length ``k`` and memory), whether the ratio is exactly 1 at every ``k`` at memory ``M_equal``
    (``one_len_equal``, as text; vacuously ``"True"`` when no row has that memory) and the range of the
    ratio."""
    tab = one.pivot(index="k", columns="M", values="amin_over_hsf").rename(columns=lambda m: f"Aₘᵢₙ / H-SF, M = {m}")
    return {"amin-tab-one": table(tab.reset_index(), precision=4),
            "one_len_equal": str(bool((one[one.M == M_equal].amin_over_hsf == 1.0).all())),
            "one_len_min": float(one.amin_over_hsf.min()), "one_len_max": float(one.amin_over_hsf.max())}


def theorem6_table(tp):
    """:func:`kvlib.book.chapters.amin.values.theorem6_display` of the two-point runs for the page (``(l, u)`` in one column)."""
    from kvlib.book.chapters.amin.values import theorem6_display

    return joined(theorem6_display(tp), ["l", "u"], "(l, u)", template="({}, {})").rename(columns={
        "AMinProgress (min)": "progress reading (min)", "AMinProgress (max)": "progress reading (max)"})


def cross_terms_tables(meas, pure: dict, u: int) -> dict:
    """The measured quadratic form (``cx.cross_terms_summary``): the cross terms against Corollary 1's halved
    ``a_ij`` and ``b_ij`` (``amin-tab-meas``) and the diagonal of the pure runs of lengths ``1..u`` against
    ``k^2/2`` (``amin-tab-meas-diag``; ``pure`` maps ``(policy, k)`` to the measured value)."""
    import pandas as pd

    diag = pd.DataFrame({"k": range(1, u + 1), "Aₘᵢₙ (pure run)": [pure[("a-min", k)] for k in range(1, u + 1)],
                         "H-SF (pure run)": [pure[("h-sf", k)] for k in range(1, u + 1)],
                         "k²/2": [k * k / 2 for k in range(1, u + 1)]})
    return {"amin-tab-meas": table(joined(meas, ["i", "j"], "(i, j)", template="({}, {})").rename(columns={
                "reps": "seeds", "amin_measured": "Aₘᵢₙ measured", "A_corollary1": "a(i,j) (Cor. 1, halved)",
                "hsf_measured": "H-SF measured", "B": "b(i,j)", "amin_rel_dev": "Aₘᵢₙ rel. dev.",
                "hsf_rel_dev": "H-SF rel. dev."})),
            "amin-tab-meas-diag": table(diag, formats={"k²/2": "{:.1f}"})}


def cross_terms_facts(meas) -> dict:
    """Glue of the measured cross terms: the largest and mean absolute relative deviation of Aₘᵢₙ's from
    ``a_ij``, the largest of H-SF's from ``b_ij``, the worst pair ``"{i, j}"`` and how many of the pairs
    fall below ``a_ij``.  Raises ``ValueError`` on an empty frame."""
    if not len(meas):
        raise ValueError("cross_terms_facts: no cross terms")
    worst = meas.iloc[int(meas.amin_rel_dev.abs().idxmax())]
    return {"meas_amin_dev": float(meas.amin_rel_dev.abs().max()),
            "meas_amin_dev_mean": float(meas.amin_rel_dev.abs().mean()),
            "meas_hsf_dev": float(meas.hsf_rel_dev.abs().max()), "meas_worst_pair": f"{{{int(worst.i)}, {int(worst.j)}}}",
            "meas_n_below": int((meas.amin_rel_dev < 0).sum()), "meas_n_pairs": int(len(meas))}


def lemma2_distributions(c: int) -> dict:
    """The four length distributions of the Lemma 2 check, lengths scaled by ``c``: name -> (support,
    probabilities)."""
    import numpy as np

    return {
        "uniform on c{1..4}": (c * np.arange(1, 5), np.ones(4) / 4),
        "two-point c{1,4}, p=0.8": (c * np.array([1, 4]), np.array([0.8, 0.2])),
        "geometric q=0.5 on c{1..8}": (c * np.arange(1, 9), 0.5 ** np.arange(8) / (0.5 ** np.arange(8)).sum()),
        "uniform on c{2..8}": (c * np.arange(2, 9), np.ones(7) / 7),
    }


def lemma2_table(lem2):
    """``cx.lemma2_summary`` for the page (without ``n``, which the text states as ``n_per_M`` times ``M``)."""
    return lem2.drop(columns="n").rename(columns={
        "dist": "lengths", "M": "M (tokens)", "hsf_over_fluid": "H-SF / fluid", "ratio_min": "Aₘᵢₙ / H-SF (min)",
        "ratio_max": "Aₘᵢₙ / H-SF (max)", "lemma2": "Lemma 2", "rel_dev_max": "max rel. dev."})


def geometric_runs_facts(geo) -> dict:
    """Glue of the simulated geometric lengths (``cx.geometric_row``): the table ``amin-tab-geo``, the largest
    simulated ratio and Lemma 2 value, the values of ``q`` (as text) and the largest memory."""
    return {"amin-tab-geo": table(geo[["q", "M", "n", "amin_over_hsf", "lemma2"]].rename(
                columns={"M": "M (tokens)", "amin_over_hsf": "Aₘᵢₙ / H-SF", "lemma2": "Lemma 2"}), precision=4),
            "geo_sim_max": float(geo.amin_over_hsf.max()), "geo_sim_l2": float(geo.lemma2.max()),
            "geo_qs_s": ", ".join(f"{float(q):g}" for q in geo.q), "geo_M": int(geo.M.max())}


def decision_time_facts(timing, tolerance: float = 1.2) -> dict:
    """Glue of Theorem 3's timings (columns ``M``, ``rounds``, ``mean_us``, ``per_MlogM_ns``, by increasing
    ``M``): the table ``amin-tab-t3``, the mean step at the largest memory, the time per ``M log M`` there
    over that at the smallest (``t3_ratio``) and the sentence it supports (``t3_trend``: not growing when
    the ratio is at most ``tolerance``)."""
    if not len(timing):
        raise ValueError("decision_time_facts: no timings")
    ratio = float(timing.per_MlogM_ns.iloc[-1] / timing.per_MlogM_ns.iloc[0])
    return {"amin-tab-t3": table(timing.rename(columns={"M": "M (tokens)", "mean_us": "mean per step (µs)",
                                                        "per_MlogM_ns": "per M log M (ns)"}), precision=0),
            "t3_us": f"{timing.mean_us.iloc[-1]:.0f}", "t3_M": int(timing.M.iloc[-1]), "t3_ratio": ratio,
            "t3_trend": "it does not grow, consistent with Theorem 3" if ratio <= tolerance else
                        "it grows with M here, more than Theorem 3's bound allows for large M"}


def corollary2_table(cor2):
    """:func:`kvlib.book.chapters.amin.values.corollary2_summary` with reader-facing headers."""
    return cor2.rename(columns={
        "dist": "lengths (on c{1..8})", "M": "M (tokens)", "multi": "revised Aₘᵢₙ / H-SF (worst)",
        "single": "Aₘᵢₙ on [c, 8c] / H-SF (worst)", "lemma2_single": "Lemma 2 (single interval)",
        "lambda_max": "λₘₐₓ(A₈, B₈)"})


def figure2_table(worst):
    """``cx.sweep_worst`` of the Figure 2 runs as a flat table with reader-facing headers (also the CSV)."""
    return worst.reset_index().rename(columns={"M": "M (tokens)", "alpha": "α", "a-l": "Aₗ (worst)",
                                               "a-min": "Aₘᵢₙ (worst)", "a-random": "A-random (worst)",
                                               "theorem7": "Theorem 7 bound", "runs": "runs"})
