"""The exact solver's committed benchmark files, as the hindsight chapter (notebooks/hindsight.py) summarises them.

The chapter reads, never recomputes, the JSON-lines files under ``benchmarks/`` that the benchmark
scripts of the same name write. Each function here takes the rows of one or two of those files
(:func:`benchmark_rows`) and returns the values the chapter glues, by glue key: numbers, sentences and
styled tables (:class:`pandas.io.formats.style.Styler`, padded by :func:`pad`). Where the chapter's
prose states a fact about a file ("the destructive variant proves fewer"), the function checks it and
raises ``ValueError`` if the file says otherwise.

* :func:`suite_values` -- ``exact_suite_results.jsonl``: the first ideas, configuration by configuration,
  and the lower bounds recorded in the runs of the last one;
* :func:`scaling_values` -- ``exact_scaling_results.jsonl``: the solvers at fixed ``n`` and the effect of
  the pipeline's upper-bound search; :func:`certified_small_bench_values` -- ``section51_certified_results.jsonl``;
* :func:`alone_values` -- ``exact_alone_results.jsonl``: the same minute on a free machine;
* :func:`colgen_values`, :func:`lift_values`, :func:`beyond_values` -- the LP by column generation, its
  level-one lift and the searches just above it;
* :func:`destructive_values` -- ``exact_destructive_results.jsonl`` beside the pipeline alone;
* :func:`longer_limit_values` -- ``exact_long_results.jsonl``: the small instances with fifteen minutes;
* :func:`pipeline_budget_values` -- the pipeline's budgets (:mod:`kvlib.optimum.pipeline`) as the prose
  states them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from kvlib.book.chapters.hindsight.scaling import (beyond_lp_counts, beyond_lp_table, lift_closed, lift_table, longer_limit_table,
                                lp_method_pairs, lp_method_table, paired_solver_table, scaling_table)

__all__ = ["pad", "benchmark_rows", "threads_used", "setting", "closed_by_n", "suite_values", "SUITE_CONFIGS",
           "IDEA_NAMES", "SCALE_SOLVERS", "scaling_values", "certified_small_bench_values", "alone_values",
           "colgen_values", "lift_values", "beyond_values", "destructive_values", "LONG_SIZES",
           "longer_limit_values", "pipeline_budget_values"]

#: The configurations of ``benchmarks/exact_suite.py`` the chapter shows, each adding one idea to the one before.
SUITE_CONFIGS = ["windows+warm+sym", "sparse", "sparse+cpsat", "sparse+cpsat+nopresolve",
                 "sparse+cpsat+nopresolve+sep", "sparse+cpsat+nopresolve+sep+mip"]
#: Short column names of :data:`SUITE_CONFIGS`.
IDEA_NAMES = dict(zip(SUITE_CONFIGS, ["IP via cvxpy", "sparse build", "+ CP-SAT", "+ presolve off", "+ separation",
                                      "+ MIP"]))
#: Solvers of ``benchmarks/exact_scaling.py`` -> the column headers of the scaling table.
SCALE_SOLVERS = {"pipeline": "pipeline", "pipeline-v1": "pipeline without upper-bound search",
                 "highs": "HiGHS (IP)", "cpsat": "CP-SAT (interval model)", "scip": "SCIP (IP)"}
#: The ``--sizes`` of the run with the longer time limit (``exact_long_results.jsonl``).
LONG_SIZES = (12, 15)


def pad(styler):
    """A table glued into a dropdown gets the cell padding that tables in cell outputs get from the CSS."""
    return styler.set_table_styles([
        {"selector": "", "props": "font-size: 0.85em; border-collapse: collapse; margin: 0.5em 0;"},
        {"selector": "th, td", "props": "padding: 0.2em 0.5em; border-bottom: 1px solid #ddd;"},
        {"selector": "thead th", "props": "border-bottom: 2px solid #999;"}], overwrite=False)


def benchmark_rows(path: str) -> pd.DataFrame:
    """The rows of a committed benchmark file (one JSON object per line)."""
    return pd.DataFrame([json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()])


def threads_used(rows: pd.DataFrame) -> str:
    """Threads per solve as ``rows`` record them ("2", "1 or 2", "not recorded")."""
    t = sorted(int(x) for x in rows.threads.dropna().unique())
    if not t:
        return "not recorded"
    return str(t[0]) if len(t) == 1 else f"{t[0]} or {t[-1]}"


def setting(rows: pd.DataFrame) -> str:
    """Time limit and threads per solve of ``rows`` ("60 s on 2 threads")."""
    threads = threads_used(rows)
    return f"{rows.time_limit.iloc[0]:g} s on {threads} thread{'s' if threads != '1' else ''}"


def closed_by_n(df: pd.DataFrame) -> str:
    """Mean share of the LP's gap closed per n ("n = 10: 30% (5 instances)")."""
    return "; ".join(f"n = {int(k)}: {100 * g.closed.mean():.0f}% ({len(g)} instance{'s' if len(g) > 1 else ''})"
                     for k, g in df.groupby("n"))


def suite_values(rows: pd.DataFrame) -> dict:
    """``exact_suite_results.jsonl``: the table of ideas (``hs-tbl-ideas``; each cell the final gap in % and
    the wall seconds, 30 s limit), the lower bounds of the last configuration (``hs-tbl-sep``) and the counts
    the prose quotes (``hs-bench-*``, ``hs-sep-*``), first configuration against last."""
    bench = rows[rows.time_limit == 30]
    bench = bench[bench.config.isin(SUITE_CONFIGS)]
    cell = bench.assign(cell=[f"{100 * g:.1f}\u00a0/\u00a0{t:.0f}{chr(0xa0) + '*' if o else ''}"  # no line breaks
                              for g, t, o in zip(bench.gap, bench.seconds, bench.optimal)])
    ideas = cell.pivot(index="instance", columns="config", values="cell")[SUITE_CONFIGS]
    ideas = ideas.loc[list(dict.fromkeys(bench.instance))]
    out = {"hs-tbl-ideas": pad(ideas.rename(columns=IDEA_NAMES).reset_index().rename_axis(columns=None)
                               .style.hide(axis="index").set_caption(
                                   "final gap (upper - lower) / upper in % / wall time of the whole call "
                                   "in s, 30 s limit; * proved optimal"))}
    before = bench[bench.config == SUITE_CONFIGS[0]].set_index("instance")
    after = bench[bench.config == SUITE_CONFIGS[-1]].set_index("instance")
    out.update({
        "hs-bench-proved-before": int(before.optimal.sum()), "hs-bench-proved-after": int(after.optimal.sum()),
        "hs-bench-instances": int(len(after)),
        "hs-bench-gap-before-min": float(100 * before.gap.min()),
        "hs-bench-gap-before-max": float(100 * before.gap.max()),
        "hs-bench-gap-after-min": float(100 * after.gap.min()), "hs-bench-gap-after-max": float(100 * after.gap.max()),
        "hs-bench-sec-before-max": float(before.seconds.max()), "hs-bench-sec-after-max": float(after.seconds.max()),
        "hs-bench-build-before-max": float(before.build_seconds.max()),
        "hs-bench-build-after-max": float(after.build_seconds.max())})
    # the bounds solve() recorded in the same runs (volume, separation LP and its time)
    sep_tab = after.loc[ideas.index, ["volume_lb", "separation_lb", "separation_seconds"]].rename(
        columns={"volume_lb": "volume", "separation_lb": "separation", "separation_seconds": "seconds"})
    sep_tab = sep_tab.astype({"volume": int, "separation": int}).round({"seconds": 2})
    sep_tab["reported_lower"] = after.lower
    sep_tab["sep_is_lower"] = (sep_tab.separation == sep_tab.reported_lower) & (sep_tab.separation > sep_tab.volume)
    out["hs-tbl-sep"] = pad(sep_tab.reset_index().rename_axis(columns=None).rename(columns={
        "volume": "volume bound", "separation": "separation bound", "seconds": "separation LP (s)",
        "reported_lower": "reported lower bound", "sep_is_lower": "separation is the lower bound"})
        .style.hide(axis="index").format({"separation LP (s)": "{:.2f}",
                                          "separation is the lower bound": lambda v: "yes" if v else "no"})
        .set_caption("lower bounds (TEL, rounds) recorded in the runs of the last configuration"))
    out["hs-sep-is-lower"] = int(sep_tab.sep_is_lower.sum())
    out["hs-sep-above-volume"] = int((sep_tab.separation > sep_tab.volume).sum())
    out["hs-sep-max-seconds"] = float(sep_tab.seconds.max())
    return out


def _range(gaps: pd.Series) -> str:
    """The smallest and largest of ``gaps`` (fractions) in percent, "3.1-7.4"."""
    return f"{100 * gaps.min():.1f}-{100 * gaps.max():.1f}"


def scaling_values(scaling: pd.DataFrame) -> dict:
    """``exact_scaling_results.jsonl``: the solvers' table (``hs-tbl-scaling``), their threads, what the
    pipeline proves, its gaps at n = 20 and 40 (HiGHS's at 40), and the effect of its upper-bound search on
    the instances with n >= 20 run with and without it (``hs-pipe-*``)."""
    scale_tab = scaling_table(scaling, list(SCALE_SOLVERS))
    out = {"hs-tbl-scaling": pad(scale_tab.rename(columns=SCALE_SOLVERS).style.hide(axis="index").set_caption(
        "proved runs and time to proof, or final gap (upper - lower) / upper; 60 s per solve"))}
    pipe = scaling[scaling.solver == "pipeline"]
    # SCIP's child process is always single-threaded, whatever its rows record
    out["hs-bench-threads"] = "; ".join(
        f"{label}: {'1' if s == 'scip' else threads_used(scaling[scaling.solver == s])}"
        for s, label in SCALE_SOLVERS.items())
    out.update({"hs-pipe-seeds": int(pipe.seed.nunique()), "hs-pipe-proved-max-n": int(pipe[pipe.optimal].n.max()),
                "hs-pipe-proved": int(pipe.optimal.sum()), "hs-pipe-runs": int(len(pipe))})
    # the upper-bound search's effect: the same instances (model, n, seed) with and without it, n >= 20
    paired = pipe.merge(scaling[scaling.solver == "pipeline-v1"], on=["model", "n", "seed"], suffixes=("", "_v1"))
    paired = paired[paired.n >= 20]
    out.update({
        "hs-pipe-paired": int(len(paired)), "hs-pipe-gap-big": float(100 * paired.gap.mean()),
        "hs-pipe-gap-big-v1": float(100 * paired.gap_v1.mean()),
        "hs-pipe-upper-better": int((paired.upper < paired.upper_v1).sum()),
        "hs-pipe-lower-better": int((paired.lower > paired.lower_v1).sum()),
        "hs-pipe-lower-gain": float(100 * ((paired.lower - paired.lower_v1) / paired.lower_v1).max()),
        "hs-pipe-gap20": _range(pipe[pipe.n == 20].gap), "hs-pipe-gap40": _range(pipe[pipe.n == 40].gap),
        "hs-highs-gap40": _range(scaling[(scaling.solver == "highs") & (scaling.n == 40)].gap)})
    return out


def certified_small_bench_values(small: pd.DataFrame) -> dict:
    """``section51_certified_results.jsonl``: how many small AM1 instances the pipeline proved, the largest
    n proved, and MC-SF / OPT over those (mean, maximum, exact matches)."""
    proved = small[small.optimal]
    return {"hs-small-proved": int(len(proved)), "hs-small-total": int(len(small)),
            "hs-small-nmax": int(proved.n.max()), "hs-small-mean": float(proved.mcsf_over_opt.mean()),
            "hs-small-max": float(proved.mcsf_over_opt.max()),
            "hs-small-exact": int((proved.mcsf == proved.lower).sum())}


def alone_values(scaling: pd.DataFrame, alone: pd.DataFrame) -> dict:
    """``exact_alone_results.jsonl`` (``alone``: its pipeline rows) beside the pipeline's rows of the scaling
    file on the same sizes: the table (``hs-tbl-alone``), the counts for n <= 15 and the gaps and moved
    bounds from n = 20 on (``hs-alone-*``)."""
    pipe = scaling[scaling.solver == "pipeline"]
    shared = pipe[pipe.n.isin(alone.n.unique())]
    alone_tab = scaling_table(pd.concat([shared.assign(solver="shared"), alone.assign(solver="alone")]),
                              ["shared", "alone"])
    out = {"hs-tbl-alone": pad(alone_tab.rename(columns={"shared": "cores shared with other jobs",
                                                         "alone": "alone on the machine"})
                               .style.hide(axis="index").set_caption(
                                   f"the pipeline with {setting(alone)} per solve, on a shared and on a free "
                                   "machine; proved runs and time to proof, or final gap (upper - lower) / upper"))}
    alone_small = alone[alone.n <= 15]
    shared_small = shared[shared.n <= 15]
    open_small = alone_small[~alone_small.optimal.astype(bool)]
    out.update({"hs-alone-small-proved": int(alone_small.optimal.astype(bool).sum()),
                "hs-alone-small-runs": int(len(alone_small)),
                "hs-alone-small-shared": int(shared_small.optimal.astype(bool).sum()),
                "hs-alone-nmax": int(alone_small.n.max()), "hs-alone-open-small": int(len(open_small)),
                "hs-alone-open-gap": float(100 * open_small.gap.max()) if len(open_small) else 0.0})
    # from n = 20 on: the mean gap per size on both machines, and which of the two bounds moved
    big_pair = alone[alone.n >= 20].merge(shared, on=["model", "n", "seed"], suffixes=("", "_sh"))
    out.update({
        "hs-alone-big-proved": int(big_pair.optimal.astype(bool).sum()),
        "hs-alone-gaps": "; ".join(f"n = {int(k)}: {100 * g.gap.mean():.1f}% alone, {100 * g.gap_sh.mean():.1f}% shared"
                                   for k, g in big_pair.groupby("n")),
        "hs-alone-big-runs": int(len(big_pair)),
        "hs-alone-big-same-lower": int((big_pair.lower == big_pair.lower_sh).sum()),
        "hs-alone-big-higher-lower": int((big_pair.lower > big_pair.lower_sh).sum()),
        "hs-alone-big-better-upper": int((big_pair.upper < big_pair.upper_sh).sum()),
        "hs-alone-big-min-gap": float(100 * big_pair.groupby("n").gap.mean().min())})
    return out


def colgen_values(rows: pd.DataFrame) -> dict:
    """``lp_colgen_results.jsonl``: the whole LP against column generation (``hs-tbl-colgen``), and, on the
    30 s runs, where the two agree, which ends higher, and what column generation gives on the n = 60
    instances whose LP the pipeline skips for size (``hs-cg-*``)."""
    from kvlib.optimum.pipeline import LP_NNZ_PER_SECOND

    out = {"hs-tbl-colgen": pad(lp_method_table(rows).style.hide(axis="index").set_caption(
        "the time-indexed LP solved whole and by column generation (CG), same budget, one thread: runs "
        "converged, mean certified bound relative to the separation bound, which ended higher"))}
    lp_wide = lp_method_pairs(rows).xs(30.0, level="budget")  # the 30 s runs, one row per instance
    both_conv = lp_wide[lp_wide[("converged", "full")].astype(bool) & lp_wide[("converged", "colgen")].astype(bool)]
    lp60 = lp_wide.loc[60]
    skip60 = lp60[lp60[("nonzeros", "full")] > LP_NNZ_PER_SECOND * 30]
    cg_up = skip60[("bound", "colgen")] / skip60[("separation_lb", "colgen")] - 1
    mid = lp_wide[lp_wide.index.get_level_values("n") < 60]
    out.update({
        "hs-cg-limit": f"{LP_NNZ_PER_SECOND:,}", "hs-cg-limit-30": f"{30 * LP_NNZ_PER_SECOND:,}",
        "hs-cg-n60": int(len(lp60)), "hs-cg-skipped": int(len(skip60)), "hs-cg-both-conv": int(len(both_conv)),
        "hs-cg-both-equal": int((both_conv[("bound", "full")] == both_conv[("bound", "colgen")]).sum()),
        "hs-cg-60-higher": int((lp60[("bound", "colgen")] > lp60[("bound", "full")]).sum()),
        "hs-cg-mid-runs": int(len(mid)),
        "hs-cg-mid-higher": int((mid[("bound", "colgen")] > mid[("bound", "full")]).sum()),
        "hs-cg-mid-lower": int((mid[("bound", "colgen")] < mid[("bound", "full")]).sum()),
        "hs-cg-skip-above": int((cg_up > 0).sum()),
        "hs-cg-skip-detail": ", ".join(f"{100 * v:+.1f}%" for v in sorted(cg_up))})
    return out


def lift_values(rows: pd.DataFrame) -> dict:
    """``lp_lifted_results.jsonl``: the lifts against the proved optimum (``hs-tbl-lift``), the instances per
    n, the LP's gap and the share of it each lift closes, the size and time of the lift at every round at the
    largest n, and whether it closes less at the larger size (``hs-lift-*``)."""
    out = {"hs-tbl-lift": pad(lift_table(rows).style.hide(axis="index").set_caption(
        "the strengthened LP and its level-one lifts over the same columns, against the proved optimum; "
        "in brackets the share of the LP's gap closed"))}
    lift_c = lift_closed(rows, "completion")
    lift_r = lift_closed(rows, "run")
    out["hs-lift-instances"] = int(rows.groupby(["model", "n", "seed"]).ngroups)
    out["hs-lift-per-n"] = "; ".join(f"n = {int(k)}: {g.groupby(['model', 'seed']).ngroups} instances (seeds "
                                     f"{', '.join(str(int(v)) for v in sorted(g.seed.unique()))})"
                                     for k, g in rows.groupby("n"))
    out["hs-lift-lpgap"] = "; ".join(f"n = {int(k)}: {100 * g.lp_gap.mean():.1f}%" for k, g in lift_c.groupby("n"))
    out["hs-lift-closed-c"] = closed_by_n(lift_c)
    out["hs-lift-closed-r"] = closed_by_n(lift_r)
    out["hs-lift-best"] = float(100 * pd.concat([lift_c, lift_r]).closed.max())
    big_lift = rows[(rows.n == rows.n.max()) & (rows.conditional == "run")]
    out["hs-lift-pairs"] = f"{int(big_lift.pairs.median()):,}"
    out["hs-lift-seconds"] = float(big_lift.seconds.median())
    out["hs-lift-nmax"] = int(rows.n.max())
    trend = lift_c.groupby("n").closed.mean()
    out["hs-lift-trend"] = "a single size" if len(trend) < 2 else (
        f"at completions: {100 * trend.iloc[0]:.0f}% of the gap at n = {int(trend.index[0])}, "
        f"{100 * trend.iloc[-1]:.0f}% at n = {int(trend.index[-1])}: "
        + ("less at the larger size" if trend.iloc[-1] < trend.iloc[0] else "not less at the larger size"))
    return out


def beyond_values(rows: pd.DataFrame) -> dict:
    """``beyond_lp_results.jsonl``: the table (``hs-tbl-beyond``), the counts of
    :func:`kvlib.book.chapters.hindsight.scaling.beyond_lp_counts` as ``hs-beyond-*`` keys, and how the longer search for
    schedules compares with the best TEL and the LP.  Raises ``ValueError`` if the longer search moved the
    best TEL by as much as the LP lies below it (the prose says it moves it far less)."""
    out = {"hs-tbl-beyond": pad(beyond_lp_table(rows).style.hide(axis="index").set_caption(
        "the LP bound against the best schedule known; what a search proved above the LP (destructive targets, "
        "branch and bound), and the TEL of a longer search for schedules"))}
    beyond = beyond_lp_counts(rows)
    for key in ("instances", "raised", "targets_open", "bb_raised", "bb_nodes_max", "bb_root_only", "long_runs",
                "long_better", "long_worse"):
        out[f"hs-beyond-{key.replace('_', '-')}"] = beyond[key]
    out["hs-beyond-raised-max"] = beyond["raised_max"]
    out["hs-beyond-bb-max"] = beyond["bb_max"]
    out["hs-beyond-sizes"] = " and ".join(str(int(k)) for k in sorted(rows.n.unique()))
    ran = rows.dropna(subset=["upper_long"]) if "upper_long" in rows else rows.iloc[:0]
    out["hs-beyond-long-same"] = beyond["long_runs"] - beyond["long_better"] - beyond["long_worse"]
    out["hs-beyond-long-gain"] = float(100 * ((ran.ub - ran.upper_long) / ran.ub).max()) if len(ran) else 0.0
    ran_gap = 100 * (ran.ub - ran.lp) / ran.ub
    out["hs-beyond-long-lpgap"] = f"{ran_gap.min():.1f}-{ran_gap.max():.1f}" if len(ran) else "-"
    if len(ran) and not float(((ran.ub - ran.upper_long) / ran.ub).max()) < float(((ran.ub - ran.lp) / ran.ub).min()):
        raise ValueError("beyond-LP rows: the longer search moved the best TEL by as much as the LP lies below it")
    return out


def destructive_values(alone: pd.DataFrame, destr: pd.DataFrame) -> dict:
    """``exact_destructive_results.jsonl`` beside the pipeline alone (``alone``: the pipeline rows of
    ``exact_alone_results.jsonl``) on the same instances: the table (``hs-tbl-destr``) and the counts
    (``hs-destr-*``).  Raises ``ValueError`` if at some n the destructive variant proves more or has a
    narrower mean gap than the pipeline (the prose says it never does)."""
    out = {"hs-tbl-destr": pad(paired_solver_table(alone, destr, ("pipeline", "+ destructive"))
                               .style.hide(axis="index").set_caption(
                                   f"the pipeline alone and the pipeline followed by destructive bounds, "
                                   f"{setting(destr)} per solve, on the same instances"))}
    both = alone.merge(destr, on=["model", "n", "seed"], suffixes=("", "_d"))
    out.update({"hs-destr-sizes": " and ".join(str(int(k)) for k in sorted(both.n.unique())),
                "hs-destr-instances": int(len(both)), "hs-destr-proved": int(both.optimal_d.astype(bool).sum()),
                "hs-destr-proved-pipe": int(both.optimal.astype(bool).sum()),
                "hs-destr-higher": int((both.lower_d > both.lower).sum()),
                "hs-destr-worse": int((both.upper_d > both.upper).sum())})
    if not all(g.optimal_d.astype(bool).sum() <= g.optimal.astype(bool).sum() and g.gap_d.mean() >= g.gap.mean()
               for _, g in both.groupby("n")):
        raise ValueError("destructive rows: at some n the destructive variant proves more or has a narrower gap")
    return out


def longer_limit_values(scaling: pd.DataFrame, long_rows: pd.DataFrame) -> dict:
    """``exact_long_results.jsonl`` against the pipeline's rows of the scaling file at :data:`LONG_SIZES`:
    the table under both limits (``hs-tbl-long``), how many of the instances the file holds, how many the
    minute left open that the longer limit proves, and MC-SF / OPT on the proved ones (``hs-long-*``)."""
    long_tab = longer_limit_table(scaling, long_rows)
    long_pipe = long_rows[long_rows.solver == "pipeline"]
    long_proved = long_pipe[long_pipe.optimal.astype(bool)]
    short_pipe = scaling[(scaling.solver == "pipeline") & scaling.n.isin(LONG_SIZES)]
    out = {"hs-tbl-long": pad(long_tab.style.hide(axis="index").set_caption(
        f"n = {', '.join(str(int(k)) for k in sorted(long_pipe.n.unique()))}: the pipeline with "
        f"{setting(short_pipe)} and with {setting(long_pipe)}; certified TEL and MC-SF / OPT from the longer run"))}
    long_grid = int(len(short_pipe))
    out["hs-long-runs"] = int(len(long_pipe))
    out["hs-long-coverage"] = "every one of them" if len(long_pipe) >= long_grid else \
        f"{len(long_pipe)} of them (the others have not been run at this limit yet)"
    out["hs-long-grid"] = long_grid
    was_open = long_pipe.merge(short_pipe, on=["model", "n", "seed"], suffixes=("", "_60"))
    was_open = was_open[~was_open.optimal_60.astype(bool)]
    out["hs-long-was-open"] = int(len(was_open))
    out["hs-long-now-proved"] = int(was_open.optimal.astype(bool).sum())
    out["hs-long-slowest"] = float(long_proved.seconds.max()) if len(long_proved) else 0.0
    still = long_pipe[~long_pipe.optimal.astype(bool)]
    out["hs-long-rest"] = "all of them were proved" if still.empty else \
        f"{len(still)} stayed open, with final gaps of at most {100 * still.gap.max():.1f}%"
    long_ratio = long_proved.mcsf / long_proved.upper
    long_exact = int((long_proved.mcsf == long_proved.upper).sum())
    out["hs-long-proved-n"] = int(len(long_proved))  # for the errata page
    out["hs-long-exact-n"] = long_exact
    out["hs-long-ratio"] = "none was proved, so MC-SF / OPT is known on none" if long_proved.empty else \
        (f"on the {len(long_proved)} proved instances MC-SF / OPT has mean {long_ratio.mean():.4f} and maximum "
         f"{long_ratio.max():.4f}, and MC-SF is optimal on {long_exact} of them")
    return out


def pipeline_budget_values() -> dict:
    """The budgets of :mod:`kvlib.optimum.pipeline` as the prose states them: the primal search's share of
    the time limit in % and its lists, the upper-bound search's share in %, the largest n of the exact search."""
    from kvlib.optimum import pipeline

    return {"hs-pipe-search-share": f"{100 * pipeline.SEARCH_SHARE:.0f}",
            "hs-pipe-search-lists": f"{pipeline.SEARCH_EVALUATIONS:,}",
            "hs-pipe-upper-share": f"{100 * pipeline.UPPER_SHARE:.0f}",
            "hs-pipe-exact-max-n": pipeline.EXACT_SEARCH_MAX_N}
