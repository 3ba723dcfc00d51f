"""Page helpers of the hindsight chapter (``notebooks/hindsight.py``): its tables, figures and glued values.

The chapter decides which instances are solved and which rows of its stored tables are asked for; this
module only summarises what it gets back. Every ``*_values`` function returns the values the chapter
glues (with :func:`kvlib.book.gluing.glue_all`), by glue key (numbers, sentences, and styled tables padded by
:func:`kvlib.book.chapters.hindsight.bench.pad`); a ``*_figure`` function returns a Matplotlib figure for the
chapter to glue and close. The benchmark files the chapter reads are summarised in
:mod:`kvlib.book.chapters.hindsight.bench`.

* :func:`chapter_values` -- the parameters as the prose quotes them, and two sentences about the scale;
* :func:`tiny_values`, :func:`tiny_figure` -- the six-request instance solved;
* :func:`lp_comparison`, :func:`lp_display`, :func:`lp_values` -- the LP relaxation beside the certified IP
  interval at small fixed n; :func:`model_sizes`, :func:`size_values` -- the IP's size at 10 to 60 requests;
* :func:`scan_summary`, :func:`scan_display`, :func:`scan_values` -- the solver-free scan (table "scan");
* :func:`tie_summary`, :func:`tie_values` -- the readings of the tie-break (table "tiebreak");
* :func:`small_summary`, :func:`small_values`, :func:`small_figure` -- proved optima at small sizes
  (table "certified_small");
* :func:`section51_rows`, :func:`section51_display`, :func:`section51_values`, :func:`ratio_histograms` --
  the certified intervals of 001 Section 5.1 (tables "section51" and "section51_search").
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from kvlib.book.chapters.hindsight.bench import pad
from kvlib.book.section51_verdict import position
from kvlib.optimum.exact import PAPER_SECTION51

__all__ = ["chapter_values", "tiny_values", "tiny_figure", "lp_comparison", "lp_display",
           "lp_values", "model_sizes", "size_values", "POLICY_NAMES", "scan_summary", "scan_display",
           "scan_values", "PAPER_MATCHES", "PAPER_TRIALS", "tie_summary", "tie_values", "small_summary",
           "small_values", "small_figure", "section51_rows", "section51_display", "section51_values",
           "ratio_histograms"]

#: Registry names of the scan's policies -> the names the page uses.
POLICY_NAMES = {"mc-sf": "MC-SF", "mc-sf2": "MC-SF2", "mc-benchmark": "MC-Benchmark",
                "mc-benchmark-scan": "MC-Benchmark, scanning"}
#: 001 Section 5.1's count of trials in which MC-SF equals OPT on Arrival Model 1, and its trials (the paper's).
PAPER_MATCHES, PAPER_TRIALS = 114, 200


def chapter_values(*, mode: str, seed: int, trials: int, n_min: int, n_max: int, horizon_min: int,
                   horizon_max: int, time_limit: float, paper_scale: bool, stored: bool) -> dict:
    """The chapter's parameters as its prose quotes them (``hs-mode`` ... ``hs-timelimit``), the scale of
    its solver runs in words (``hs-scale-words``) and where the rows of its tables come from
    (``hs-rows-source``; ``stored``: the store is not off)."""
    return {
        "hs-mode": mode, "hs-seed": seed, "hs-trials": trials, "hs-nmin": n_min, "hs-nmax": n_max,
        "hs-hmin": horizon_min, "hs-hmax": horizon_max, "hs-timelimit": f"{time_limit:g}",
        "hs-scale-words": f"the paper's sizes ({trials} trials per arrival model)" if paper_scale else
        "small sizes in this quick build (a smoke test; the verdicts in bold are the full build's)",
        "hs-rows-source": "read from stored tables of this chapter" if stored else "computed when this page was built"}


def tiny_values(tiny, res, mcsf, lp: float) -> dict:
    """The six-request instance: its table with both schedules' starts (``hs-tiny-table``), the optimum
    ``res`` (a :class:`kvlib.optimum.exact.SolveResult`), MC-SF's TEL (``mcsf``: a simulation result), the
    LP value ``lp`` and the solve's seconds."""
    table = pd.DataFrame({"request": range(tiny.n), "arrival a": tiny.arrival, "prompt s (tokens)": tiny.prompt,
                          "output o (rounds)": tiny.output, "optimal start": res.starts,
                          "MC-SF start": mcsf.schedule.starts})
    return {"hs-tiny-table": pad(table.style.hide(axis="index")), "hs-tiny-opt": int(res.upper),
            "hs-tiny-mcsf": int(mcsf.tel), "hs-tiny-lp": f"{lp:.2f}", "hs-tiny-seconds": f"{res.seconds:.2f}"}


def tiny_figure(tiny, res, mcsf):
    """The optimal schedule and MC-SF's side by side (:func:`kvlib.book.figures.schedule_figure`)."""
    from kvlib.book.figures import schedule_figure

    return schedule_figure(tiny, {f"hindsight optimum, TEL {res.upper}": res.starts,
                                  f"MC-SF, TEL {mcsf.tel}": mcsf.schedule}, figsize=(8, 4.6))


def lp_comparison(seed: int, sizes, *, time_limit: float, threads: int) -> pd.DataFrame:
    """One Arrival Model 1 instance with exactly ``n`` requests per ``n`` of ``sizes`` (draw ``k`` seeded
    ``[seed, 7, k]``), solved on the IP path (``method="ip"``) within ``time_limit`` seconds on ``threads``
    threads: the volume bound, the LP relaxation (windows from the best schedule), the separation bound, the
    certified interval, where its lower bound came from, MC-SF's TEL and LP / IP upper."""
    from kvlib.core.instances import section51
    from kvlib.core.simulate import simulate
    from kvlib.optimum.bounds import volume_lower_bound
    from kvlib.optimum.exact import lp_relaxation, solve
    from kvlib.policies import make_policy

    rows = []
    for k, n in enumerate(sizes):
        inst = section51(np.random.default_rng([seed, 7, k]), 1, n_range=(n, n))
        r = solve(inst, time_limit=time_limit, threads=threads, method="ip")  # the IP path the chapter describes
        lp = lp_relaxation(inst, upper=r.upper)
        mc = simulate(inst, make_policy("mc-sf"), seed=0).tel
        rows.append(dict(n=n, M=inst.memory, volume_LB=volume_lower_bound(inst), LP=round(lp, 2),
                         separation_LB=r.extra["separation_lb"], lower_from=r.extra["lower_source"],
                         IP_lower=r.lower, IP_upper=r.upper, proved=r.optimal, seconds=round(r.seconds, 1), MC_SF=mc,
                         LP_over_IPupper=round(lp / r.upper, 3)))
    return pd.DataFrame(rows)


def _lp_readable(lp_table: pd.DataFrame) -> pd.DataFrame:
    """:func:`lp_comparison`'s frame with the page's column headers."""
    return lp_table.rename(columns={"M": "M (tokens)", "seconds": "solve (s)", "MC_SF": "MC-SF",
                                    "volume_LB": "volume bound", "separation_LB": "separation bound",
                                    "lower_from": "lower bound from", "IP_lower": "IP lower", "IP_upper": "IP upper",
                                    "LP_over_IPupper": "LP / IP upper"})


def lp_display(lp_table: pd.DataFrame):
    """The table the chapter shows: bounds, certified IP interval and MC-SF, TEL in rounds."""
    return (_lp_readable(lp_table)[["n", "M (tokens)", "volume bound", "LP", "separation bound", "IP lower",
                                    "IP upper", "MC-SF"]]
            .style.hide(axis="index").format({"LP": "{:.2f}"})
            .set_caption("TEL (rounds): bounds, certified IP interval and MC-SF"))


def lp_values(lp_table: pd.DataFrame) -> dict:
    """Where each lower bound of :func:`lp_comparison` came from (``hs-lp-source-table``), the range of
    LP / IP upper, and on how many instances the peak-conflict MIP proved the optimum."""
    source = (_lp_readable(lp_table)[["n", "M (tokens)", "lower bound from", "proved", "solve (s)", "LP / IP upper"]]
              .style.hide(axis="index").format({"solve (s)": "{:.1f}", "LP / IP upper": "{:.3f}"})
              .set_caption("where the IP's lower bound came from"))
    return {"hs-lp-source-table": pad(source),
            "hs-lp-ratio-min": f"{lp_table.LP_over_IPupper.min():.3f}",
            "hs-lp-ratio-max": f"{lp_table.LP_over_IPupper.max():.3f}",
            "hs-lp-by-mip": int(((lp_table.lower_from == "peak-conflict MIP") & lp_table.proved).sum()),
            "hs-lp-n": int(len(lp_table))}


def model_sizes(seed: int, sizes=(10, 20, 40, 60)) -> pd.DataFrame:
    """The IP's size on one Arrival Model 1 instance per ``n`` of ``sizes`` (draw ``k`` seeded
    ``[seed, 8, k]``), from the latest starts of the heuristic schedule without building the model: the proved
    horizon, the left-shift horizon, the incumbent's makespan, the columns and the non-zeros of rows (3)."""
    from kvlib.core.instances import section51
    from kvlib.optimum.bounds import latest_starts, left_shift_horizon
    from kvlib.optimum.exact import heuristic_incumbent

    rows = []
    for k, n in enumerate(sizes):
        inst = section51(np.random.default_rng([seed, 8, k]), 1, n_range=(n, n))
        start_inc, upper, _ = heuristic_incumbent(inst)
        latest = latest_starts(inst, upper)
        width = latest - inst.arrival + 1
        rows.append(dict(n=n, M=inst.memory, horizon=int((latest + inst.output).max()),
                         left_shift_horizon=left_shift_horizon(inst),
                         incumbent_makespan=int((start_inc + inst.output).max()),
                         columns=int(width.sum()), nonzeros_row3=int((width * inst.output).sum())))
    return pd.DataFrame(rows)


def size_values(size_table: pd.DataFrame) -> dict:
    """:func:`model_sizes`'s table (``hs-size-table``) and its last row's columns, non-zeros, horizon and
    incumbent makespan."""
    table = size_table.rename(columns={"M": "M (tokens)", "horizon": "horizon (rounds)",
                                       "left_shift_horizon": "left-shift horizon (rounds)",
                                       "incumbent_makespan": "incumbent makespan (rounds)",
                                       "nonzeros_row3": "non-zeros in (3)"})
    last = size_table.iloc[-1]
    return {"hs-size-table": pad(table.style.hide(axis="index").format(thousands=",")),
            "hs-size-cols60": f"{int(last['columns']):,}", "hs-size-nnz60": f"{size_table.nonzeros_row3.iloc[-1]:,}",
            "hs-size-h60": int(size_table.horizon.iloc[-1]),
            "hs-size-mk60": int(size_table.incumbent_makespan.iloc[-1])}


def scan_summary(scan: pd.DataFrame) -> pd.DataFrame:
    """Per arrival model (index ``"AM1"``, ``"AM2"``) of the scan's rows: trials, mean and largest certified
    lower end of MC-SF / OPT, and the trials in which MC-SF is certified not optimal (lower end above 1)."""
    return scan.groupby("model").agg(
        trials=("trial", "size"),
        average_lower_end=("ratio lower end", "mean"),
        worst_lower_end=("ratio lower end", "max"),
        mcsf_certified_not_optimal=("ratio lower end", lambda r: int((r > 1).sum())),
    )


def scan_display(summary: pd.DataFrame, label: str):
    """:func:`scan_summary` as the chapter shows it, captioned with the rows' ``label``."""
    return (summary.reset_index().rename(columns={
        "average_lower_end": "average lower end", "worst_lower_end": "worst lower end",
        "mcsf_certified_not_optimal": "MC-SF certified not optimal (trials)"}).style.hide(axis="index")
        .format({"average lower end": "{:.4f}", "worst lower end": "{:.4f}"})
        .set_caption(f"MC-SF / best found, a certified lower end of MC-SF / OPT ({label})"))


def scan_values(scan: pd.DataFrame, summary: pd.DataFrame, table) -> dict:
    """The scan's values: which policy has the smallest TEL on Arrival Model 1 (``scan-best-table``; ties
    count as MC-SF's), how often MC-SF does and ties, and per model the counts of :func:`scan_summary`.
    ``table``: the stored table (``label``, and ``frame`` with the wall seconds ``_wall_s``).  Raises
    ``ValueError`` unless, on Arrival Model 1, MC-SF is certified not optimal in a larger share of the trials
    than the paper's count allows and the average lower end exceeds the paper's average (the prose says ours
    contradict both); ``scan-AM2-against-paper`` says where the Arrival Model 2 lower end lies against the
    paper's average."""
    am1_rows = scan[scan.model == "AM1"]
    out = {"scan-best-table": pad(am1_rows["best policy"].map(POLICY_NAMES).value_counts().rename("AM1 trials")
                                  .rename_axis("smallest TEL (ties: MC-SF first)").reset_index()
                                  .style.hide(axis="index"))}
    # the count the model chapter reports on the same instances (its draw k is trial k of this table)
    others = am1_rows[[p for p in POLICY_NAMES if p != "mc-sf"]].min(axis=1)
    out["scan-AM1-mcsf-best"] = int((am1_rows["mc-sf"] <= others).sum())
    out["scan-AM1-mcsf-ties"] = int((am1_rows["mc-sf"] == others).sum())
    if int((am1_rows["best policy"] == "mc-sf").sum()) != out["scan-AM1-mcsf-best"]:
        raise ValueError("scan rows: the column 'best policy' disagrees with the policies' TELs")
    am1 = summary.loc["AM1"]
    paper_notopt = 1 - PAPER_MATCHES / PAPER_TRIALS
    if not (am1.mcsf_certified_not_optimal / am1.trials > paper_notopt
            and am1.average_lower_end > PAPER_SECTION51["AM1"]["average"]):
        raise ValueError(f"scan rows no longer contradict the paper's AM1 numbers: {am1.to_dict()}")
    am2_avg, paper_am2 = float(summary.loc["AM2"].average_lower_end), PAPER_SECTION51["AM2"]["average"]
    out["scan-AM2-against-paper"] = (
        "lies below the paper's average, so this scan alone cannot test that average; the solver runs can"
        if round(am2_avg, 4) < paper_am2 else "already lies above the paper's average")
    out.update({"scan-trials": int(am1.trials), "scan-seconds": f"{table.frame._wall_s.sum():.0f}",
                "scan-label": table.label})
    for m in ("AM1", "AM2"):
        row = summary.loc[m]
        out[f"scan-{m}-trials"] = int(row.trials)
        out[f"scan-{m}-avg"] = float(row.average_lower_end)
        out[f"scan-{m}-worst"] = float(row.worst_lower_end)
        out[f"scan-{m}-notopt"] = int(row.mcsf_certified_not_optimal)
        out[f"scan-{m}-notopt-pct"] = float(100 * row.mcsf_certified_not_optimal / row.trials)
    return out


def tie_summary(ties: pd.DataFrame, draws: int) -> pd.DataFrame:
    """One row per reading of Algorithm 1's tie-break (ties by index, then ``draws`` seeded random orders):
    trials certified not optimal, trials equal to the best schedule found, and mean MC-SF / best found."""
    readings = {"mcsf": "ties by index (ours)", **{f"mcsf_r{d}": f"ties in random order, seed {d}"
                                                    for d in range(draws)}}
    return pd.DataFrame([{
        "reading of Algorithm 1": label,
        "certified not optimal": int((ties[c] > ties.best).sum()),
        "equal to the best found": int((ties[c] == ties.best).sum()),
        "mean MC-SF / best found": float((ties[c] / ties.best).mean()),
    } for c, label in readings.items()])


def tie_values(ties: pd.DataFrame, summary: pd.DataFrame, label: str) -> dict:
    """The tie-break's values (``tie-*``): the summary table, the counts under ties by index and under the
    most favourable reading, the Fisher exact test of the paper's count against that reading's possible
    matches, the Clopper-Pearson upper bound on the share of optimal instances, and what it implies for the
    paper's matches and average; ``label``: the rows' label (also as Markdown with the CSV path as code)."""
    from kvlib.book.gluing import markdown
    from kvlib.book.chapters.hindsight.rows import match_count_test, match_share_upper

    paper_mean = PAPER_SECTION51["AM1"]["average"]
    max_possible = int(summary["equal to the best found"].max())  # the most favourable reading
    share_up = match_share_upper(max_possible, len(ties), 0.999)
    min_lower_mean = float(summary["mean MC-SF / best found"].min())
    return {
        "tie-summary-table": summary.style.hide(axis="index").format({"mean MC-SF / best found": "{:.4f}"}),
        "tie-trials": int(len(ties)), "tie-label": label,
        "tie-label-md": markdown(re.sub(r"(results/[A-Za-z0-9_./-]+\.csv)", r"`\1`", label)),
        "tie-ties-median": int(ties.ties.median()),
        "tie-index-notopt": int(summary["certified not optimal"].iloc[0]),
        "tie-index-possible": int(summary["equal to the best found"].iloc[0]),
        "tie-min-notopt": int(summary["certified not optimal"].min()), "tie-max-possible": max_possible,
        "tie-some-reading": int((ties.readings_optimal_possible > 0).sum()),
        "tie-index-mean": float(summary["mean MC-SF / best found"].iloc[0]), "tie-min-mean": min_lower_mean,
        "tie-p-fisher": f"{match_count_test(PAPER_MATCHES, PAPER_TRIALS, max_possible, len(ties)):.1e}",
        "tie-share-up": float(100 * share_up), "tie-paper-expected": float(PAPER_TRIALS * share_up),
        "tie-paper-excess": float(PAPER_MATCHES - PAPER_TRIALS * share_up),
        "tie-mean-shift": float(min_lower_mean - paper_mean), "tie-paper-matches": PAPER_MATCHES,
        "tie-paper-trials": PAPER_TRIALS, "tie-paper-pct": float(100 * PAPER_MATCHES / PAPER_TRIALS),
        "hs-paper-am1-notopt-pct": float(100 * (PAPER_TRIALS - PAPER_MATCHES) / PAPER_TRIALS)}


def small_summary(cs: pd.DataFrame) -> pd.DataFrame:
    """Per (model, size) of the small certified rows (``optimal`` boolean): trials, mean n, optima proved,
    MC-SF proved optimal / certified not optimal, and mean and largest MC-SF / OPT over the proved ones."""
    return cs.groupby(["model", "size"]).agg(
        trials=("trial", "size"), n_mean=("n", "mean"), proved=("optimal", "sum"),
        mcsf_optimal=("mcsf_optimal", lambda v: int((v == "yes").sum())),
        mcsf_not_optimal=("mcsf_optimal", lambda v: int((v == "no").sum())),
        ratio_mean_proved=("ratio_lo", lambda r: float(r[cs.loc[r.index, "optimal"]].mean())),
        ratio_max_proved=("ratio_lo", lambda r: float(r[cs.loc[r.index, "optimal"]].max())),
    ).reset_index()


def small_values(cs: pd.DataFrame, label: str, sizes, limit: float) -> dict:
    """The small sizes' values (``small-*``): :func:`small_summary` as a table captioned with the rows'
    ``label``, per model the trials, proved optima and MC-SF's verdicts and ratios (NaN when none is
    proved), and the totals, the range of ``sizes`` and the time ``limit`` per solve."""
    table = small_summary(cs).rename(columns={
        "model": "model", "size": "size", "n_mean": "mean n", "proved": "OPT proved",
        "mcsf_optimal": "MC-SF optimal", "mcsf_not_optimal": "MC-SF not optimal",
        "ratio_mean_proved": "mean ratio", "ratio_max_proved": "max ratio"})
    out = {"small-table": pad(table.style.hide(axis="index")
                              .format({"mean n": "{:.1f}", "mean ratio": "{:.4f}", "max ratio": "{:.4f}"})
                              .set_caption("MC-SF against the proved optimum at small sizes: size is n requests "
                                           "(AM1) or the horizon T in rounds (AM2); MC-SF optimal: proved, not "
                                           "optimal: certified; ratio: MC-SF / OPT over the instances proved "
                                           f"({label})"))}
    for m in ("AM1", "AM2"):
        d = cs[cs.model == m]
        pr = d[d.optimal]
        key = m.lower()
        out[f"small-{key}-trials"] = int(len(d))
        out[f"small-{key}-proved"] = int(len(pr))
        out[f"small-{key}-yes"] = int((d.mcsf_optimal == "yes").sum())
        out[f"small-{key}-no"] = int((d.mcsf_optimal == "no").sum())
        out[f"small-{key}-yes-pct"] = float(100 * (pr.mcsf_optimal == "yes").mean()) if len(pr) else float("nan")
        out[f"small-{key}-mean"] = float(pr.ratio_lo.mean()) if len(pr) else float("nan")
        out[f"small-{key}-max"] = float(pr.ratio_lo.max()) if len(pr) else float("nan")
    out.update({"small-label": label, "small-proved-all": int(cs.optimal.sum()), "small-trials-all": int(len(cs)),
                "small-nmin": int(min(sizes)), "small-nmax": int(max(sizes)), "small-limit": f"{limit:g}"})
    return out


def small_figure(cs: pd.DataFrame):
    """MC-SF / OPT per small instance, one panel per arrival model: a dot per proved ratio, a grey bar per
    certified interval not proved, and the paper's mean at its own size as a dashed line."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(8, 3.2), sharey=True)
    for ax, m in zip(axes, ("AM1", "AM2")):
        d = cs[cs.model == m]
        x = d["size"] + np.linspace(-0.35, 0.35, 1 + int(d.groupby("size").size().max()))[d.groupby("size").cumcount()]
        pr = d.optimal.to_numpy()
        ax.vlines(x[~pr], d.ratio_lo[~pr], d.ratio_hi[~pr], color="0.6", lw=1,
                  label="not proved: [MC-SF/upper, MC-SF/lower]")
        ax.scatter(x[pr], d.ratio_lo[pr], s=12, color="C0", label="proved MC-SF / OPT")
        ax.axhline(PAPER_SECTION51[m]["average"], color="C3", ls="--", lw=1, label=f"paper's mean ({m}, n = 40-60)")
        ax.axhline(1.0, color="k", lw=0.5)
        ax.set_title(f"{m}: MC-SF / OPT per instance")
        ax.set_xlabel("n requests" if m == "AM1" else "horizon T")
        ax.legend(fontsize=9)
    axes[0].set_ylabel("ratio")
    top = float(np.nanmax(cs.ratio_lo[cs.optimal])) if cs.optimal.any() else 1.1
    axes[0].set_ylim(0.99, max(1.15, min(top + 0.02, 1.6)))
    fig.tight_layout()
    return fig


def section51_rows(frame: pd.DataFrame, search_frame: pd.DataFrame) -> pd.DataFrame:
    """The certified rows with the primal search's better schedules
    (:func:`kvlib.book.section51_trials.combine_with_pipeline`), ``model`` as ``"AM1"``/``"AM2"``, ``optimal``
    boolean, and the ratio intervals of :func:`kvlib.book.section51_verdict.intervals`."""
    from kvlib.book.section51_trials import combine_with_pipeline
    from kvlib.book.section51_verdict import intervals

    res = combine_with_pipeline(frame, search_frame).assign(model=lambda d: "AM" + d.model.astype(str))
    res["optimal"] = res.optimal.astype(bool)
    return intervals(res)  # ratio_lo = MC-SF / upper, ratio_hi = MC-SF / lower, match (MC-SF = OPT proved), beaten


def section51_display(res: pd.DataFrame, label: str, search_label: str):
    """:func:`kvlib.optimum.exact.section51_summary` beside the paper's numbers, captioned with the labels
    of the certified rows and of the primal search's rows."""
    from kvlib.optimum.exact import section51_summary

    summary = section51_summary(res).rename(index={"trials": "trials"})
    return (summary.reset_index().rename(columns={"index": ""}).style.hide(axis="index")
            .set_caption("MC-SF / OPT: ours as certified intervals [MC-SF/upper, MC-SF/lower], "
                         "beside the paper's (columns 'paper': 001 Section 5.1, Gurobi, n in [40, 60], "
                         f"200 trials per model). Ours: lower ends {label}; upper ends the better of those and "
                         f"{search_label}"))


def _move(before: str, after: str) -> str:
    """How a value shown with three decimals changes: ``"moves from 1.063 to 1.064"`` or ``"stays at 1.068"``."""
    return f"stays at {after}" if before == after else f"moves from {before} to {after}"


def _model_values(d: pd.DataFrame, v: dict, paper: dict, key: str) -> dict:
    """The values of one arrival model (rows ``d``, verdicts ``v`` of
    :func:`kvlib.book.section51_verdict.verdicts`, the paper's numbers ``paper``), keys ``hs-{key}-*``."""
    p = f"hs-{key}-"
    unbeaten = int((~d.beaten).sum())  # trials where no checked schedule beats MC-SF
    return {
        p + "trials": int(len(d)), p + "proved": int(d.optimal.sum()), p + "unproved": int((~d.optimal).sum()),
        p + "matches": int(d.match.sum()), p + "matches-hi": v["matches_hi"], p + "matches-verdict": v["matches"],
        p + "lb-volume": int((d.lower == d.volume_lb).sum()),
        p + "lb-sep": int(((d.lower == d.separation_lb) & (d.separation_lb > d.volume_lb)).sum()),
        p + "lb-lp": int((d.lower > np.maximum(d.separation_lb, d.volume_lb)).sum()),
        p + "lb-above-vol": float(100 * ((d.lower - d.volume_lb) / d.volume_lb).mean()),
        p + "gap-mean": float(100 * ((d.upper - d.lower) / d.upper).mean()),
        p + "gap-mean-pipeline": float(100 * ((d.upper_pipeline - d.lower) / d.upper_pipeline).mean()),
        p + "improved": int((d.upper_pipeline < d.heuristic).sum()),
        p + "beaten": int(d.beaten.sum()),
        p + "optimal-at-most": "in none of them" if unbeaten == 0 else f"in at most {unbeaten} of them",
        p + "search-better": int((d.search < d.upper_pipeline).sum()),
        p + "search-worse": int((d.search > d.upper_pipeline).sum()),
        p + "search-gain": float(100 * ((d.upper_pipeline - d.upper) / d.upper_pipeline).mean()),
        p + "avg-lo-pipeline": f"{(d.mcsf / d.upper_pipeline).mean():.3f}",
        p + "avg-lo-move": _move(f"{(d.mcsf / d.upper_pipeline).mean():.3f}", f"{v['avg_lo']:.3f}"),
        p + "pipeline-position": position(float(paper["average"]), float((d.mcsf / d.upper_pipeline).mean()),
                                          v["avg_hi"]) + " the interval",
        p + "verdict": v["average"],
        p + "status": "erratum" if v["average_refuted"] or v["worst_refuted"] else "not checked",
        p + "avg-lo": f"{v['avg_lo']:.3f}", p + "avg-hi": f"{v['avg_hi']:.3f}",
        p + "worst-lo": f"{v['worst_lo']:.3f}", p + "worst-hi": f"{v['worst_hi']:.3f}",
        p + "best-lo": f"{v['best_lo']:.3f}", p + "best-hi": f"{v['best_hi']:.3f}", p + "best-verdict": v["best"],
        f"hs-paper-{key}-best": f"{paper['best']:.3f}", f"hs-paper-{key}-worst": f"{paper['worst']:.3f}",
        f"hs-paper-{key}-avg": f"{paper['average']:.3f}",
        p + "above-paper-worst": v["above_paper_worst"], p + "worst-pnone": f"{v['p_worst']:.3f}",
        p + "worst-verdict": v["worst"]}


def section51_values(res: pd.DataFrame, table, search_table, *, n_keys: int, threads: int,
                     search_evaluations: int, search_windows: int, paper_scale: bool) -> dict:
    """The Section 5.1 values: the rows' labels and counts, the solver and search settings, per arrival
    model the counts, gaps and verdicts (:func:`kvlib.book.section51_verdict.verdicts`) beside the paper's
    numbers, and two sentences that depend on the build: whether the table holds all ``n_keys`` trials asked
    for, and whether the instances are at the paper's scale.  ``table``, ``search_table``: the stored tables
    (``label`` and ``frame``)."""
    from kvlib.book.section51_verdict import verdicts

    out = {"hs-s51-label": table.label, "hs-search-label": search_table.label, "hs-s51-rows": int(len(res)),
           "hs-s51-keys": int(n_keys), "hs-threads": int(threads), "hs-search-evals": f"{search_evaluations:,}",
           "hs-search-windows": int(search_windows),
           "hs-search-seconds": f"{search_table.frame.seconds.mean():.0f}"}
    verdict = {m: verdicts(res, m) for m in ("AM1", "AM2") if (res.model == m).any()}
    for m in ("AM1", "AM2"):
        out.update(_model_values(res[res.model == m], verdict[m], PAPER_SECTION51[m], m.lower()))
    out["hs-paper-am1-matches"] = f"{PAPER_MATCHES} of {PAPER_TRIALS}"
    out["hs-repro-seconds"] = f"{table.frame._wall_s.sum():.0f}"
    # sentences whose truth depends on the build: a partial table, and the scale of the instances
    out["hs-s51-coverage"] = f"all {len(res)} trials asked for" if len(res) == n_keys else \
        f"the first {len(res)} of the {n_keys} trials asked for (the table is partial)"
    out["hs-s51-scale"] = "the paper's sizes, so the comparison is a reproduction, up to the time limit" \
        if paper_scale else "much smaller than the paper's, so the comparison is a smoke test of the pipeline, " \
                            "not a reproduction"
    return out


def ratio_histograms(res: pd.DataFrame):
    """Histograms of both ends of each trial's certified interval of MC-SF / OPT, one panel per arrival
    model, the trials proved optimal outlined in black."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(8, 3.2))
    for ax, m in zip(axes, ("AM1", "AM2")):
        d = res[res.model == m]
        top = float(d.ratio_hi.max()) if len(d) else 1.0
        bins = np.linspace(1.0, max(1.3, top + 0.01), 30)
        ax.hist(d.ratio_lo, bins=bins, alpha=0.6, label="MC-SF / upper (lower end)")
        ax.hist(d.ratio_hi, bins=bins, alpha=0.6, label="MC-SF / lower (upper end)")
        if d.optimal.any():
            ax.hist(d[d.optimal].ratio_lo, bins=bins, histtype="step", color="k", lw=2, label="proved exact")
        ax.set_title(f"{m}: ratio MC-SF / OPT ({len(d)} trials)")
        ax.set_xlabel("ratio")
        ax.set_ylabel("trials")
        ax.legend(fontsize=9)
    fig.tight_layout()
    return fig


def inclusive_values(res: pd.DataFrame, incl_frame: pd.DataFrame, label: str) -> dict:
    """Section 5.1 under both readings of 001 Section 3's memory rule (keys ``hs-incl-*`` and ``hs-readings-*``).

    ``res``: :func:`section51_rows` (the book's start-exclusive rule); ``incl_frame``: rows of
    :func:`kvlib.book.chapters.hindsight.inclusive.inclusive_trial` (every stored schedule is re-checked under
    the start-inclusive rule by :func:`kvlib.book.section51_trials.combine_inclusive`).  Per arrival model: the
    certified average and worst case of MC-SF / OPT under the start-inclusive rule (lower end: MC-SF under that
    rule over its best checked schedule; upper end: over the pipeline's lower bound, which bounds the
    start-inclusive optimum from below too), the verdicts, how many of MC-SF's start-exclusive schedules break
    the start-inclusive rule, and one sentence saying whether the verdict depends on the reading.
    """
    from kvlib.book.section51_trials import combine_inclusive
    from kvlib.book.section51_verdict import intervals, readings_sentence, verdicts

    incl = incl_frame.assign(model=lambda d: "AM" + d.model.astype(str))
    both = intervals(combine_inclusive(res, incl))
    out = {"hs-incl-label": label, "hs-incl-trials": int(len(both)),
           "hs-upper-checked": _upper_checked_text(res)}
    for m in ("AM1", "AM2"):
        d, d1 = both[both.model == m], res[res.model == m]
        if not len(d):
            continue
        v2, v1 = verdicts(both, m), verdicts(res, m)
        p = f"hs-incl-{m.lower()}-"
        out.update({p + "avg-lo": f"{v2['avg_lo']:.3f}", p + "avg-hi": f"{v2['avg_hi']:.3f}",
                    p + "verdict": v2["average"], p + "worst-verdict": v2["worst"],
                    p + "broken": int((~d.exclusive_schedule_ok.astype(bool)).sum()),
                    p + "mcsf-rise": f"{100 * float((d.mcsf / d.mcsf_exclusive).mean() - 1):.1f}",
                    p + "trials": int(len(d))})
        out[f"hs-readings-{m.lower()}"] = readings_sentence(v1, v2)
        out[p + "n"] = int(len(d1))
    return out


def inclusive_available(store, name: str = "section51_inclusive") -> bool:
    """Whether the chapter can show the start-inclusive rows: always when it computes rows (quick mode, a
    write run), and in a read-only build only when the table is stored complete."""
    from kvlib.book.store import stored_complete

    return store.policy != "read" or stored_complete(store.chapter, name, store.root)


def inclusive_missing_values(res: pd.DataFrame, command: str) -> dict:
    """The keys of :func:`inclusive_values` when the start-inclusive rows are not stored: every sentence says
    so and names the command that computes them (``command``); the count of re-checked upper ends stays."""
    why = "not computed at the paper's scale yet (its rows are not among the stored results)"
    out = {"hs-incl-label": f"not stored; {command} computes them", "hs-incl-trials": 0,
           "hs-upper-checked": _upper_checked_text(res)}
    for m in ("am1", "am2"):
        p = f"hs-incl-{m}-"
        out.update({p + "avg-lo": "-", p + "avg-hi": "-", p + "verdict": "not computed yet (rows not stored)",
                    p + "worst-verdict": "not computed yet (rows not stored)",
                    p + "broken": 0, p + "mcsf-rise": "-", p + "trials": 0, p + "n": 0,
                    f"hs-readings-{m}": f"the verdict under the other reading of the memory rule is {why}"})
    return out


def _upper_checked_text(res: pd.DataFrame) -> str:
    return (f"every one of the {len(res)} upper ends is a schedule kept in the table's rows, re-checked by the checker "
            "when the page is built" if bool(res.upper_checked.all()) else
            f"{int(res.upper_checked.sum())} of the {len(res)} upper ends are schedules kept in the tables' rows, "
            "re-checked when the page is built (the others come from solves whose schedules these rows do not keep)")
