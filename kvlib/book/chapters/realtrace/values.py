"""Values and tables of the chapter "Real-trace experiments in continuous time" (notebooks/realtrace.py).

The chapter reads its stored tables (:mod:`kvlib.book.chapters.realtrace.plan`) and glues what this module computes
from them, one function per section: each ``*_values`` function returns ``{glue key: value}`` (numbers,
sentences, and the section's tables styled with :func:`kvlib.book.tables.styled`), which the chapter glues
with :func:`kvlib.book.gluing.glue_all`; the other functions build the frames those values are read from
(001 Table 1, the 002 and 003 tables, the LP check).  The figures are in :mod:`kvlib.book.chapters.realtrace.figures`,
the display names in :mod:`kvlib.book.chapters.realtrace.page`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from kvlib.book.chapters.realtrace.page import compress_points, files_as_code, policy_display, sweep_table
from kvlib.book.gluing import markdown
from kvlib.book.tables import styled

__all__ = ["refit_note", "PROVENANCE_KEYS", "provenance_frame", "batchtime_values", "ATTENTION_UNAVAILABLE", "attention_keys",
           "attention_table", "attention_values", "hardware_values", "PAPER_LENGTHS", "lengths_table",
           "workload_values", "alpha_text", "alpha_values", "slope_table", "best_benchmark_slope", "fig3_values",
           "table1_frame", "table1_values", "memory_values", "sweep_summary", "sweep_sentence", "SWEEP_HEADERS",
           "sweep_values",
           "mixed002_frame", "schedulers002", "rows_at_size", "largest_complete_size", "mixed002_values", "per_source_table", "per_source_values",
           "largest_lp_size", "lp_size_values", "LPX_COLUMNS", "lp_check_values", "PREDICTION_NAMES",
           "intervals003_frame", "largest_full_size", "intervals003_values", "splitwise_values",
           "all_policies_values", "capacity_values", "table1_on_gpus", "gpu_values", "unfinished_note", "alpha_spread",
           "alpha_spread_text", "alpha_spread_verdict", "alpha_spread_cell", "alpha_spread_cells",
           "merge_cells", "steady_splitwise_cells", "load_text", "sharegpt_frames", "sharegpt_cells",
           "sharegpt_verdict_table", "sharegpt_source_note", "sharegpt_values"]


# ----------------------------------------------------------------------------------------------- batch time
def refit_note(agree) -> str:
    """What the page says about the refit of the batch-time model from the CSVs: ``agree`` True (checked
    and equal), False (checked and different) or None (not checked: the CSVs are absent)."""
    return ("the batch-time model's refit from the CSVs equals the embedded coefficients"
            + (" (checked in this build)" if agree else " (NOT in this build: see the printed check)"
               if agree is False else " (not checked in this build, whose machine lacks the CSVs; "
                                      "tests/test_batchtime.py checks it where they are)"))


#: The entries of the embedded fit's provenance record the page shows.
PROVENANCE_KEYS = ("mlp_csv", "mlp_sha256", "allreduce_csv", "allreduce_sha256", "fit_date", "layer_r2",
                   "layer_median_rel_err", "layer_max_rel_err", "allreduce_r2")


def provenance_frame(prov: dict, keys=PROVENANCE_KEYS) -> pd.DataFrame:
    """The provenance record ``prov`` as (entry, value) rows, values as text (full checksums)."""
    return pd.DataFrame({"entry": list(keys), "value": [str(prov[k]) for k in keys]})


def batchtime_values(model, prov: dict) -> dict:
    """The fit quality (R², median relative error in %) and three example batch times (ms) of ``model``."""
    from kvlib.book.chapters.realtrace.prose import BATCH_EXAMPLES as ex

    pre = ex["prefill_tokens"]
    return {"rt_r2": prov["layer_r2"], "rt_relerr": 100 * prov["layer_median_rel_err"],
            "rt_ms1": model.batch_ms(0, 1, 100), "rt_ms200": model.batch_ms(0, ex["decode_n"], ex["decode_kv"]),
            "rt_ms_pre": model.batch_ms(pre, 0, 0, pre**2)}


#: What the page says when the attention profile is absent (quick mode without the data).
ATTENTION_UNAVAILABLE = ("The comparison with Vidur's attention profile needs that file, which this build's "
                         "data folder lacks; the full-mode pages show it from stored rows")


def attention_keys() -> list[dict]:
    """The keys of the stored attention check: one per group of Vidur's A100 attention rows."""
    from kvlib.book.chapters.realtrace.data import ATTENTION_GROUPS

    return [{"kind": k, "batch_lo": lo, "batch_hi": hi, "data": "shared"} for k, lo, hi in ATTENTION_GROUPS]


def attention_table(att: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``kvlib.book.chapters.realtrace.data.attention_check_row`` (one per group of profile rows) with
    readable headers, errors and shares in percent."""
    return pd.DataFrame({
        "rows": [f"{k} {lo}-{hi} requests" if k == "decode" else "prefill, one prompt"
                 for k, lo, hi in zip(att.kind, att.batch_lo, att.batch_hi)],
        "profile rows": att["rows"], "median error (%)": 100 * att.median_abs_rel_err,
        "max error (%)": 100 * att.max_abs_rel_err, "attention's share of the batch (%)": 100 * att.median_attention_share,
        "missed share of the batch, median (%)": 100 * att.median_round_err,
        "missed share of the batch, max (%)": 100 * att.max_round_err})


def attention_values(att: pd.DataFrame | None, label: str | None = None) -> dict:
    """The sentence, caption and table of the assumed against the measured attention; ``att`` the stored
    rows of the check (None: the profile is absent, and the values say so)."""
    if att is None:
        return {"rt_att_text": markdown(ATTENTION_UNAVAILABLE),
                "cap_attcheck": "not computed in this quick build (the attention profile is absent)",
                "rt-tab-attcheck": styled(pd.DataFrame({"rows": ["no attention profile here"]}))}
    dec, pre = att[att.kind == "decode"], att[att.kind == "prefill"]
    # the stored medians are per group of batch sizes: their range
    text = (f"On Vidur's {int(att['rows'].sum()):,} A100 attention rows the assumption is too fast on "
            f"{'every row' if (att.too_fast_share == 1).all() else 'most rows'}, by a median "
            f"{100 * dec.median_abs_rel_err.min():.0f}-{100 * dec.median_abs_rel_err.max():.0f} % per layer for "
            f"decode (from large to small batches) and {100 * pre.median_abs_rel_err.iloc[0]:.0f} % for prefill, "
            f"missing up to {100 * att.max_round_err.max():.1f} % of a batch's time")
    return {"rt_att_text": markdown(text), "cap_attcheck": label,
            "rt-tab-attcheck": styled(attention_table(att), precision=1)}


def hardware_values(measured: dict) -> dict:
    """The tables of each GPU's fit quality and measured files (``kvlib.serving.measured.EMBEDDED``)."""
    from kvlib.book.chapters.realtrace import gpus as RG

    files = RG.files_table(measured).assign(file=lambda d: [files_as_code(f, html=True) for f in d.file])
    return {"rt-tab-fitq": styled(RG.fit_quality_table(measured),
                                  formats={"R²": "{:.4f}", "median rel. error": "{:.3f}", "max rel. error": "{:.3f}"}),
            "rt-tab-hwfiles": styled(files)}


# ------------------------------------------------------------------------------------------------ workloads
#: The LMSYS length statistics of 002 Section 7 and 003 Section 6 (the papers' numbers, tokens).
PAPER_LENGTHS = [
    {"source": "paper 002 Section 7", "unit": "tokens", "prompt_mean": 41.84, "prompt_median": 12.0,
     "output_mean": 85.35, "output_median": 43.0},
    {"source": "paper 003 Section 6 (2,000 conversations)", "unit": "tokens", "prompt_mean": 41.0,
     "prompt_median": 11.0, "output_mean": 85.0, "output_median": 43.0},
]


def lengths_table(lm, lm_label: str, seed: int) -> pd.DataFrame:
    """The papers' LMSYS length statistics (001's in words, 002's and 003's in tokens) and those of the
    workload ``lm`` (ours, last row)."""
    from kvlib.book.chapters.realtrace.rows import PAPER_LENGTHS_001

    first = {"source": "paper 001 Section 5.2 (10,000 conversations)", "unit": PAPER_LENGTHS_001["unit"],
             **{k: PAPER_LENGTHS_001[k] for k in ("prompt_mean", "prompt_median", "output_mean", "output_median")}}
    ours = {"source": f"ours: {lm_label}, {lm.n:,} requests (seed {seed})", "unit": "tokens",
            "prompt_mean": float(lm.prompt.mean()), "prompt_median": float(np.median(lm.prompt)),
            "output_mean": float(lm.output.mean()), "output_median": float(np.median(lm.output))}
    return pd.DataFrame([first, *PAPER_LENGTHS, ours])


def workload_values(lm, lm_label: str, traces: list[dict], seed: int) -> dict:
    """The workloads table, the labels of the three traces (file names as code) and the length statistics,
    from the LMSYS-like workload ``lm`` and the stored trace summaries ``traces`` (arXiv, Splitwise
    conversation, Splitwise code)."""
    from kvlib.book.chapters.realtrace.page import workload_table

    lmw = lm.summary()
    lmw["label"] = lm_label
    wl = [lmw] + [{"name": r["trace"], "label": r["label"], "n": r["n"], "sha256": r["data_sha256"],
                   **{c: r[c] for c in ("prompt_mean", "prompt_median", "output_mean", "output_median")}}
                  for r in traces]
    labels = pd.DataFrame(wl)["label"]
    length = lengths_table(lm, lm_label, seed)
    return {"rt_sw_label": markdown(files_as_code(labels[2])), "rt_code_label": markdown(files_as_code(labels[3])),
            "rt_ax_label": markdown(files_as_code(labels[1])),
            "rt-tab-workloads": styled(workload_table(wl, lm_label), precision=1),
            "rt_len_prompt_mean": length.prompt_mean.iloc[-1], "rt_len_output_mean": length.output_mean.iloc[-1],
            "rt-tab-lengths": styled(length.rename(columns=lambda c: c.replace("_", " ")), precision=2)}


# ------------------------------------------------------------------------------------------ 001 Section 5.2
def alpha_text(G: pd.DataFrame, grid, rate: float) -> str:
    """The smallest alpha of ``grid`` at and above which every stored run of alpha-protection greedy at
    ``rate`` (rows ``G``) finished, as the page writes it ("≤ a" for the grid's smallest value)."""
    from kvlib.serving.experiments import format_alpha, smallest_stable_alpha

    if len(G) == 0 or not (G.rate == rate).any():
        return "no stored run"
    try:
        a = smallest_stable_alpha(G, rate)
    except KeyError:  # no stored run at this rate yet
        a = float("nan")
    # format_alpha writes "<= x" for the grid's smallest value: shown as the sign a reader expects
    if not np.isnan(a) and a == 0 == min(grid):
        return "0 (no loop at any α of the grid)"
    return "not reached on the grid" if np.isnan(a) else format_alpha(a, grid).replace("<=", "≤")


def alpha_values(G: pd.DataFrame, grid, n: int, rate_hi: float, rate_lo: float, label: str, load=None) -> dict:
    """The smallest loop-free alpha at both rates, ours against 001's 0.21 and 0.24, and its table: the
    threshold of all seeds together (every run at and above it finished), its range over the seeds, and the
    verdict of :func:`alpha_spread_verdict` (``rt_alpha_verdict_hi``/``_lo``); ``load(rate)`` (optional) says how
    each rate loads the GPU (:func:`load_text`)."""
    from kvlib.book.chapters.realtrace.rows import PAPER_ALPHA_001

    hi, lo = alpha_text(G, grid, rate_hi), alpha_text(G, grid, rate_lo)
    sps = [alpha_spread(G, r) for r in (rate_hi, rate_lo)]
    verdicts = [alpha_spread_verdict(sp, PAPER_ALPHA_001[d]) or "no runs" for sp, d in zip(sps, ("high", "low"))]
    table = pd.DataFrame({
        "rate (requests/s)": [rate_hi, rate_lo], "smallest α, ours": [hi, lo],
        "range over the seeds": [alpha_spread_text(sp) for sp in sps],
        "smallest α, 001": [PAPER_ALPHA_001["high"], PAPER_ALPHA_001["low"]], "001 in our range": verdicts,
        "grid of α": [f"{grid[0]} to {grid[-1]}"] * 2, "requests per run": [n] * 2,
        "runs": [int((G.rate == r).sum()) if len(G) else 0 for r in (rate_hi, rate_lo)]})
    if load is not None:
        table["load"] = [load([r]) for r in (rate_hi, rate_lo)]
    both = set(verdicts)
    verdict = ("reproduced" if both == {"matches"} else "not reproduced" if both == {"differs"}
               else "reproduced at high demand only" if verdicts[0] == "matches"
               else "reproduced at low demand only" if verdicts[1] == "matches" else "not decided")
    return {"rt_alpha_hi": hi, "rt_alpha_lo": lo, "cap_alpha_grid": label,
            "rt_alpha_spread_hi": alpha_spread_text(sps[0]), "rt_alpha_spread_lo": alpha_spread_text(sps[1]),
            "rt_alpha_verdict_hi": verdicts[0], "rt_alpha_verdict_lo": verdicts[1],
            "rt_alpha_verdict": verdict, "rt_alpha_status": verdict,  # the findings' verdict (the box reads status)
            "rt_alpha_grid_txt": f"{grid[0]}, {grid[1]}, ..., {grid[-1]}" if len(grid) > 2 else ", ".join(map(str, grid)),
            "rt_alpha_grid_n": n, "rt_alpha_seeds": max((sp["seeds"] for sp in sps), default=0),
            "rt-tab-alpha": _alpha_table(table)}


def _alpha_table(table: pd.DataFrame):
    """The α table with one column per rate (it is too wide the other way round)."""
    from kvlib.book.chapters.realtrace.gpus import transposed

    t = table.assign(**{"rate (requests/s)": [f"{r:g} requests/s" for r in table["rate (requests/s)"]],
                        "smallest α, 001": [f"{v:.2f}" for v in table["smallest α, 001"]]})
    return styled(transposed(t.rename(columns={"rate (requests/s)": "rate"}), ["rate"], 2))


def slope_table(F3: pd.DataFrame, rates, order) -> pd.DataFrame:
    """Least-squares slope (s per request) of every curve of 001 Figure 3 with at least two points, its
    inverse, and 001's slope; ``rates`` are the (high, low) arrival rates."""
    from kvlib.book.chapters.realtrace.figures import fig3_curves

    rate_hi, rate_lo = rates
    slopes = []
    for r in rates:
        sub = fig3_curves(F3, r, order)
        for c in sub.columns:
            y = sub[c].dropna()
            if len(y) >= 2:
                slopes.append({"rate": r, "policy": c, "slope (s per request)": np.polyfit(y.index, y.values, 1)[0]})
    S = pd.DataFrame(slopes, columns=["rate", "policy", "slope (s per request)"])
    S["1/slope"] = 1 / S["slope (s per request)"]
    paper = {(rate_hi, "MC-SF"): "1/6", (rate_lo, "MC-SF"): "1/800"}
    S["paper (001)"] = [paper.get((r, p), "best benchmark ~1/2" if r == rate_hi else "best benchmark ~1/100")
                        for r, p in zip(S.rate, S.policy)]
    return S


def best_benchmark_slope(S: pd.DataFrame, rate: float, benchmarks) -> float:
    """The smallest slope among the ``benchmarks`` at ``rate`` (NaN when none has one)."""
    from kvlib.serving.experiments import slope_of

    v = [slope_of(S, rate, nm) for nm in benchmarks]
    v = [x for x in v if not np.isnan(x)]
    return min(v) if v else float("nan")


def fig3_values(S: pd.DataFrame, order, rate_hi: float, rate_lo: float, quick: bool) -> dict:
    """1/slope of MC-SF and of the best benchmark at both rates, and the slopes' table."""
    from kvlib.serving.experiments import slope_of

    return {"rt_s_sf_hi": 1 / slope_of(S, rate_hi, "MC-SF"), "rt_s_b_hi": 1 / best_benchmark_slope(S, rate_hi, order[1:]),
            "rt_s_sf_lo": 1 / slope_of(S, rate_lo, "MC-SF"), "rt_s_b_lo": 1 / best_benchmark_slope(S, rate_lo, order[1:]),
            "rt_fig3_sizes_note": "the paper's" if not quick else "fewer and smaller than the paper's 1,000 to 10,000",
            "rt-tab-slopes": styled(S.rename(columns={"rate": "rate (requests/s)", "paper (001)": "001's slope"}),
                                    formats={"slope (s per request)": "{:.5f}", "1/slope": "{:.1f}"})}


def table1_frame(T1: pd.DataFrame, order) -> pd.DataFrame:
    """001 Table 1: per configuration (rows in ``order``) the mean, std, max and min of the average latency
    over the finished runs, the numbers of runs and of unfinished runs, and the paper's four statistics."""
    from kvlib.book.chapters.realtrace.rows import PAPER_TABLE1

    fin = T1[T1.completed.astype(bool)]
    tab1 = fin.groupby("name")["avg_latency"].agg(["mean", "std", "max", "min"]).reindex(order)
    tab1["runs"] = T1.groupby("name").size().reindex(order).fillna(0).astype(int)
    tab1["unfinished runs"] = T1.groupby("name")["completed"].apply(lambda c: int((~c.astype(bool)).sum())).reindex(
        order).fillna(0).astype(int)
    for j, stat in enumerate(("mean", "std", "max", "min")):
        tab1[f"paper {stat}"] = [PAPER_TABLE1[nm][j] for nm in tab1.index]
    return tab1


def table1_values(tab1: pd.DataFrame, n: int, rate: float, label: str) -> dict:
    """The numbers and sentences the page quotes from 001 Table 1 (``tab1`` of :func:`table1_frame`, the
    first three rows MC-SF, MC-Benchmark, Benchmark α = 0.3), and its two tables."""
    ours = np.array([tab1.loc[k, "mean"] for k in tab1.index[:3]])
    order_ok = bool(ours[0] < ours[1] < ours[2])
    t1 = tab1.rename_axis("configuration").reset_index()
    main = (t1[["configuration", "mean", "std", "paper mean", "paper std", "runs", "unfinished runs"]]
            .rename(columns={"mean": "mean (s)", "std": "std (s)", "paper mean": "001 mean (s)",
                             "paper std": "001 std (s)", "unfinished runs": "unfinished"}))
    spread = (t1[["configuration", "min", "max", "paper min", "paper max"]]
              .rename(columns={"min": "min (s)", "max": "max (s)", "paper min": "001 min (s)", "paper max": "001 max (s)"}))
    return {
        "rt_t1_sf": tab1.loc["MC-SF", "mean"], "rt_t1_mb": tab1.loc["MC-Benchmark", "mean"],
        "rt_t1_a3": tab1.loc["Benchmark α = 0.3", "mean"], "rt_t1_n": n,
        "rt_t1_order": "agrees with the paper's (MC-SF < MC-Benchmark < alpha = 0.3)" if order_ok
        else "differs from the paper's (MC-SF < MC-Benchmark < alpha = 0.3)",
        "rt_t1_ratio": float(np.nanmean(tab1["mean"] / tab1["paper mean"])),
        "rt_t1_order_short": "in the paper's order" if order_ok else "in a different order from the paper's",
        "rt_t1_scale_note": "with the paper's 1,000 requests per run" if n == 1000
        else f"with {n:,} requests per run against the paper's 1,000",
        "rt_t1_runs": int(tab1["runs"].min()), "rt_t1_std_lo": float(tab1["std"].min()),
        "rt_t1_std_hi": float(tab1["std"].max()), "rt_t1_unfinished": int(tab1["unfinished runs"].sum()),
        "rt_t1_unfinished_cfg": ", ".join(f"{nm} ({k})" for nm, k in tab1["unfinished runs"].items() if k) or "none",
        "cap_table1": label, "rt_t1_rate": rate,
        "rt-tab-table1": styled(main, precision=3).set_properties(subset=["configuration"], **{"white-space": "nowrap"}),
        "rt-tab-table1-range": styled(spread, precision=3)}


def memory_values(mem: pd.DataFrame, memory: int, rate_hi: float) -> dict:
    """Peak, time-averaged occupancy (% of ``memory``) and "within M" of each MC-SF run of ``mem`` (tagged
    ``hi`` at ``rate_hi``, else ``lo``), and the verdict on the low-demand occupancy."""
    from kvlib.book.chapters.realtrace.rows import memory_profile_stats

    out = {}
    for _, r in mem.iterrows():
        if r["policy"] == "mc-sf":
            ms = memory_profile_stats(*r["trace"], memory)
            tag = "hi" if r["rate"] == rate_hi else "lo"
            out[f"rt_mem_{tag}_peak"] = ms["peak"]
            out[f"rt_mem_{tag}_mean"] = 100 * ms["mean_fraction"]
            out[f"rt_mem_{tag}_within"] = "yes" if ms["within"] else "no"
            if tag == "lo":
                out["rt_mem_lo_verdict"] = ("close to full, as 001 reads its Figure 9" if ms["mean_fraction"] >= 0.8
                                            else "well below the near-full use 001 reads in its Figure 9")
    return out


def sweep_summary(SW: pd.DataFrame) -> pd.DataFrame:
    """Per (rate, alpha, beta) point of the sweeps: runs, finished runs and mean latency."""
    if not len(SW):
        return SW
    return SW.groupby(["rate", "alpha", "beta"]).agg(runs=("avg_latency", "size"), finished=("completed", "sum"),
                                                     latency=("avg_latency", "mean")).reset_index()


def _greek(text: str) -> str:
    """``text`` with "alpha" and "beta" written as the Greek letters."""
    return text.replace("alpha", "α").replace("beta", "β")


def sweep_sentence(sv: pd.DataFrame | None, rate: float, swept: str, grids: dict) -> str:
    """Our minimiser(s) for both fixed values of the other parameter, and whether they lie in 001's range
    (``sv`` of ``kvlib.book.chapters.realtrace.rows.sweep_verdicts``; None: nothing stored yet)."""
    if sv is None:
        return "no stored run yet"
    parts = []
    for _, r in sv[(sv.rate == rate) & (sv.swept == swept)].iterrows():
        fixed = _greek(r["fixed"])
        if r["minimiser in range"] is None:
            parts.append(f"{fixed}: no finished point")
        else:
            parts.append(f"{fixed}: {compress_points(r['minimiser'], grids[swept])} ({r['min latency']:.2f} s), "
                         + ("inside" if r["minimiser in range"] else "outside") + f" 001's {r['paper range']}")
    return "; ".join(parts)


#: Short headers of the sweep table (the caption defines them), so that it fits its dropdown.
SWEEP_HEADERS = {"our minimiser(s)": "argmin", "min latency (s)": "min (s)", "within 5 % of min": "≤ 5 % above",
                 "missing": "looped", "001's range": "001 range", "minimiser in range": "in 001?",
                 "range within 5 %": "001 ≤ 5 %?"}


def sweep_values(SW: pd.DataFrame, rates, grids: dict, fixed, label: str, n: int) -> dict:
    """The sweeps' best points per rate, our minimisers against 001's ranges (sentences, counts) and the
    table of every sweep; ``rates`` (high, low), ``grids`` swept parameter -> its grid."""
    from kvlib.book.chapters.realtrace.rows import sweep_verdicts

    out = {"cap_sweeps": label, "rt_sweep_n": n}
    swt = sweep_summary(SW)
    for j, r in enumerate(rates):
        d = swt[(swt.rate == r) & (swt.finished == swt.runs)] if len(swt) else swt
        if len(d):
            best = d.loc[d.latency.idxmin()]
            out[f"rt_sw_best_{j}"] = f"α = {best.alpha:g}, β = {best.beta:g} ({best.latency:.1f} s)"
        else:
            out[f"rt_sw_best_{j}"] = ("no point with every run finished" if len(swt) and (swt.rate == r).any()
                                      else "no stored run yet")
    sv = sweep_verdicts(SW, {rates[0]: "high", rates[1]: "low"}, fixed=fixed, tol=0.05) if len(SW) else None
    for j, r in enumerate(rates):
        for swept in ("alpha", "beta"):
            out[f"rt_sv_{swept}_{j}"] = sweep_sentence(sv, r, swept, grids)
    if sv is not None:
        out["rt_sv_inside"] = int(sv["minimiser in range"].eq(True).sum())
        out["rt_sv_total"] = int(len(sv))
        out["rt_sv_outside"] = "; ".join(
            f"λ = {r['rate']:g}/s, {_greek(r['swept'])} sweep at " + _greek(r["fixed"])
            for _, r in sv[sv["minimiser in range"].eq(False)].iterrows()) or "none"
        table = sweep_table(sv, grids)
    else:
        out.update({"rt_sv_inside": 0, "rt_sv_total": 0, "rt_sv_outside": "no stored run yet"})
        table = pd.DataFrame({"λ (1/s)": [], "swept": []})
    out["rt-tab-sweep-verdicts"] = styled(table.rename(columns=SWEEP_HEADERS), precision=2)
    return out


# -------------------------------------------------------------------------------------------- 002 Section 7
def mixed002_frame(M2: pd.DataFrame) -> pd.DataFrame:
    """The stored 002 rows named by scheduler (``policy_label``, the selector of Sorted-F included; column
    ``name``, set in place) and sorted by name and size."""
    from kvlib.book.chapters.realtrace.plan import optional_column
    from kvlib.serving.experiments import policy_label

    M2["name"] = [policy_label(p, {"selector": sel} if sel else {}) for p, sel in
                  zip(M2["policy"], optional_column(M2, "selector"))]
    return M2.sort_values(["name", "n"], kind="stable")


def schedulers002(M2: pd.DataFrame, pol) -> tuple[list[str], list[str]]:
    """The names of the 002 schedulers present in ``M2``, in the order of ``pol`` (:class:`Policies` of
    :mod:`kvlib.book.chapters.realtrace.plan`): all of them, and those without an LP."""
    from kvlib.serving.experiments import policy_label

    order = [c for c in (policy_label(p, o) for p, o in pol.p002 + pol.lp002) if c in set(M2.name)]
    lp = {policy_label(p, o) for p, o in pol.lp002}
    return order, [c for c in order if c not in lp]


def rows_at_size(M2: pd.DataFrame, n: int, order) -> pd.DataFrame:
    """The rows of ``M2`` at ``n`` requests indexed by scheduler name, in ``order``."""
    at = M2[M2.n == n]
    return at.set_index("name").loc[[c for c in order if c in set(at.name)]]


def largest_complete_size(T2: pd.DataFrame, columns) -> int:
    """The largest size (index of ``T2``) at which every one of ``columns`` has a value (else the largest)."""
    if not len(T2):
        raise ValueError("largest_complete_size: the table has no row (no 002 run stored yet)")
    return int(max((n for n in T2.index if T2.loc[n, columns].notna().all()), default=T2.index.max()))


def _at(T: pd.DataFrame, n, col) -> float:
    """``T.loc[n, col]``, NaN when ``T`` has no column ``col``."""
    return T.loc[n, col] if col in T else float("nan")


def mixed002_values(T2: pd.DataFrame, n: int, quick: bool, label: str) -> dict:
    """The average latencies the page quotes at ``n`` requests (``T2``: size x scheduler), and the table."""
    sw, qu = "sorted-f(selector=swap)", "sorted-f(selector=quantile)"
    return {"cap_mixed002": label, "rt_002_n": n, "rt_002_sf": T2.loc[n, "mc-sf"], "rt_002_fcfs": T2.loc[n, "fcfs"],
            "rt_002_sorted": _at(T2, n, sw), "rt_002_quant": _at(T2, n, qu),
            "rt_002_quant_ratio": T2.loc[n, qu] / T2.loc[n, sw] if {qu, sw} <= set(T2) else float("nan"),
            "rt_sizes_002_note": "002's" if not quick else "fewer than 002's 200, 400, ..., 2,000",
            "rt-tab-002": styled(T2.rename(columns=policy_display).rename_axis("requests").reset_index(), precision=2)}


def per_source_table(big: pd.DataFrame) -> pd.DataFrame:
    """Per scheduler (rows of ``big``, indexed by name): mean, median and 90th percentile of the latency of
    each source's requests, and the scheduler time."""
    from kvlib.book.chapters.realtrace.figures import SOURCES, STATISTICS

    ec2 = pd.DataFrame({nm: {f"{src} {stat}": r[f"{tag}_{stat}"] for src, tag in SOURCES for stat in STATISTICS}
                        for nm, r in big.iterrows()}).T
    ec2["scheduler time (s)"] = big["scheduler_s"]
    return ec2


def per_source_values(ec2: pd.DataFrame) -> dict:
    """The mean latencies by source of MC-SF and FCFS, and the per-source table (``ec2`` of
    :func:`per_source_table`)."""
    return {"rt_ec2_sf_ax": ec2.loc["mc-sf", "arXiv mean"], "rt_ec2_sf_lm": ec2.loc["mc-sf", "LMSYS-like mean"],
            "rt_ec2_fcfs_lm": ec2.loc["fcfs", "LMSYS-like mean"], "rt_ec2_fcfs_ax": ec2.loc["fcfs", "arXiv mean"],
            "rt-tab-ec2": styled(ec2.rename(columns=lambda c: c if c.endswith("(s)") else f"{c} (s)").T
                                 .rename(columns=policy_display).rename_axis("latency statistic").reset_index(),
                                 precision=2)}


def largest_lp_size(TS: pd.DataFrame, sizes) -> int:
    """The largest size with both LP schedulers stored (``TS``: size x scheduler); else the largest of
    ``sizes``."""
    lpn = [n for n in TS.index if all(nm in TS and pd.notna(TS.loc[n, nm]) for nm in ("sorted-lp", "lp-swap"))]
    return max(lpn) if lpn else max(sizes)


def lp_size_values(horizon_row, n_lp: int, TS: pd.DataFrame, T2: pd.DataFrame) -> dict:
    """The LP's horizon and size at the largest 002 size (``horizon_row`` of
    ``kvlib.book.chapters.realtrace.data.lp_horizon_row``), the latency and scheduler time of Sorted-LP, LP-Swap and
    Sorted-F (swap) at ``n_lp`` requests, and the scheduler-time table."""
    out = {"rt_lp_H": int(horizon_row["horizon"]), "rt_lp_mvars": float(horizon_row["lp_variables_millions"]),
           "rt_lp_step": int(horizon_row["auto_step"]), "rt_lp_nmax": int(n_lp)}
    for key, nm in (("slp", "sorted-lp"), ("lps", "lp-swap"), ("sfs", "sorted-f(selector=swap)")):
        out[f"rt_002_t_{key}"] = TS.loc[n_lp, nm] if nm in TS and n_lp in TS.index else float("nan")
        out[f"rt_002_{key}"] = T2.loc[n_lp, nm] if nm in T2 and n_lp in T2.index else float("nan")
    out["rt-tab-sched"] = styled(TS.rename(columns=policy_display).rename_axis("requests").reset_index(), precision=2)
    return out


#: Headers of the LP check's tables.
LPX_COLUMNS = {
    "step": "step D (rounds)", "approx_seconds": "approximate LP (s)", "exact_value": "exact LP value",
    "approx_value": "approximate LP value", "kendall_tau": "Kendall tau", "max_rank_shift": "max rank shift",
    "exact_tel_sorted_lp": "Sorted-LP TEL, exact LP", "approx_tel_sorted_lp": "Sorted-LP TEL, approx.",
    "tel_change_sorted_lp": "Sorted-LP TEL change", "exact_tel_lp_swap": "LP-Swap TEL, exact LP",
    "approx_tel_lp_swap": "LP-Swap TEL, approx.", "tel_change_lp_swap": "LP-Swap TEL change"}


def lp_check_values(lpx: pd.DataFrame, label: str, step_max: int, n: int) -> dict:
    """The exact LP against its bucket approximation (``lpx`` of ``kvlib.book.chapters.realtrace.data.lp_orders_frame``,
    one row per step): Kendall's tau, the TEL changes in % (largest, and at ``step_max``, the step used at the
    largest size), the instance's label and the two tables."""
    big = lpx.step == step_max
    shown = lpx.rename(columns=LPX_COLUMNS)
    return {
        "rt_lpx_n": int(n), "rt_lpx_H": int(lpx.horizon.iloc[0]), "rt_lpx_exact_s": float(lpx.exact_seconds.iloc[0]),
        "rt_lpx_tau_min": float(lpx.kendall_tau.min()),
        "rt_lpx_dslp_max": 100 * float(lpx.tel_change_sorted_lp.abs().max()),
        "rt_lpx_dlps_max": 100 * float(lpx.tel_change_lp_swap.abs().max()),
        "rt_lpx_dslp_big": 100 * float(lpx.loc[big, "tel_change_sorted_lp"].iloc[0]),
        "rt_lpx_dlps_big": 100 * float(lpx.loc[big, "tel_change_lp_swap"].iloc[0]),
        "rt_lpx_label": markdown(files_as_code(label)),
        "rt-tab-lpx": styled(shown[["step D (rounds)", "approximate LP (s)", "exact LP value", "approximate LP value",
                                    "Kendall tau", "max rank shift"]], precision=4),
        "rt-tab-lpx-tel": styled(shown[["step D (rounds)", "Sorted-LP TEL, exact LP", "Sorted-LP TEL, approx.",
                                        "Sorted-LP TEL change", "LP-Swap TEL, exact LP", "LP-Swap TEL, approx.",
                                        "LP-Swap TEL change"]].rename(columns=lambda c: c.replace(" TEL", "")),
                                 precision=4)}


# ------------------------------------------------------------------------------------------- 003 Section 6
#: The 003 predictions as the page writes them (the others: "x=..." for the interval's half-width x).
PREDICTION_NAMES = {"wide": "[1,1000]", "buckets": "10 buckets"}


def intervals003_frame(M3: pd.DataFrame) -> pd.DataFrame:
    """The stored 003 rows sorted by size, with the prediction as the page writes it."""
    M3 = M3.sort_values("n", kind="stable")
    M3["pred"] = M3["pred"].map(lambda x: PREDICTION_NAMES.get(x, f"x={x}"))
    return M3


def largest_full_size(M3: pd.DataFrame, T3: pd.DataFrame, n_rows: int) -> int:
    """The largest size of ``T3`` (index: prediction, size) with all ``n_rows`` rows (every prediction and
    policy) stored in ``M3``; else the smallest size."""
    return int(max((n for n in T3.index.get_level_values(1) if (M3.n == n).sum() == n_rows), default=M3.n.min()))


def intervals003_values(T3: pd.DataFrame, n: int) -> dict:
    """Latency of A_max, A_min and H-SF at ``n`` requests for four predictions, A_min over H-SF with
    [1, 1000], and the predictions for which A_min beats A_max (``T3``: (prediction, size) x policy)."""
    out = {"rt_003_n": n}
    for key, pred in (("wide", "[1,1000]"), ("x01", "x=0.1"), ("x099", "x=0.99"), ("buckets", "10 buckets")):
        for pol in ("a-max", "a-min", "h-sf"):
            out[f"rt_003_{key}_{pol.replace('-', '')}"] = T3.loc[(pred, n), pol]
    out["rt_003_wide_ratio"] = T3.loc[("[1,1000]", n), "a-min"] / T3.loc[("[1,1000]", n), "h-sf"]
    better = [pr for pr in T3.index.get_level_values(0).unique() if T3.loc[(pr, n), "a-min"] < T3.loc[(pr, n), "a-max"]]
    out["rt_003_amin_better"] = ", ".join(better) if better else "none"
    return out


def splitwise_values(SP: pd.DataFrame, label: str, cap=None) -> dict:
    """The Splitwise table: average latency per mean arrival rate and configuration; with the capacity frame
    ``cap``, each rate's load on the A100 and whether it is overloaded (above capacity: no steady state)."""
    from kvlib.book.chapters.realtrace.plan import capacity

    t = SP.pivot_table(index="rate", columns="name", values="avg_latency").reset_index()
    out = {"cap_splitwise": label}
    if cap is not None and len(t):
        c = capacity(cap, "splitwise", "a100")
        t.insert(1, "load (rate ÷ capacity)", t["rate"] / c)
        t.insert(2, "overloaded", ["yes" if r > c else "no" for r in t["rate"]])
        out["rt_sw_capacity"] = c
        over = [f"{r:g}" for r in t["rate"] if r > c]
        out["rt_sw_overloaded"] = (f"{', '.join(over)} requests per second" if over else "none")
    out["rt-tab-splitwise"] = styled(t.rename(columns={"rate": "rate (requests/s)"}), precision=2)
    return out


def all_policies_values(C: pd.DataFrame, n: int, memory: int, label: str) -> dict:
    """Every policy on one instance (``C``, the stored rows; names and the 003 half-width set in place):
    the best and worst average latency and the table, sorted by average latency."""
    from kvlib.book.chapters.realtrace.plan import optional_column
    from kvlib.serving.experiments import policy_label

    C["name"] = [nm if p in ("mc-sf", "mc-benchmark", "alpha-greedy", "alpha-beta-clearing")
                 else policy_label(p, {"selector": sel} if sel else {})
                 for nm, p, sel in zip(C["name"], C["policy"], optional_column(C, "selector"))]
    C["pred"] = optional_column(C, "pred")
    C["name"] = [policy_display(nm) for nm in C["name"]]
    cs = C.sort_values("avg_latency")
    table = (C[["name", "pred", "completed", "valid", "avg_latency", "makespan", "evictions", "scheduler_s"]]
             .sort_values("avg_latency")
             .rename(columns={"name": "policy", "pred": "x", "avg_latency": "avg latency (s)",
                              "makespan": "makespan (s)", "scheduler_s": "sched. time (s)"}))
    return {"rt_all_n": n, "rt_memory": memory, "cap_allpolicies": label,
            "rt_all_best": f"{cs['name'].iloc[0]}'s, {cs['avg_latency'].iloc[0]:.1f} s",
            "rt_all_worst": f"{cs['name'].iloc[-1]}'s, {cs['avg_latency'].iloc[-1]:.1f} s",
            "rt-tab-all": styled(table)}


# ------------------------------------------------------------------------------------------------ three GPUs
def capacity_values(cap: pd.DataFrame, lm_label: str) -> dict:
    """H100's and H200's capacity relative to A100 on the LMSYS-like workload and the code trace, and the
    capacity table (``cap``: the stored capacity rows)."""
    from kvlib.book.chapters.realtrace import gpus as RG
    from kvlib.book.chapters.realtrace.page import WORKLOAD_NAMES

    capf = RG.capacity_frame(cap)
    out = {}
    for h in ("h100", "h200"):
        for wl, tag in (("lmsys", "lm"), ("splitwise-code", "code")):
            v = capf[(capf.workload == wl) & (capf.hardware == h)]["relative to A100"]
            out[f"rt_cap_{h}_{tag}"] = float(v.iloc[0]) if len(v) else float("nan")
    table = (capf.assign(GPU=capf.hardware.map(RG.GPU_NAMES),
                         workload=[lm_label if w == "lmsys" else WORKLOAD_NAMES.get(w, w) for w in capf.workload])
             [["workload", "GPU", "n_requests", "throughput", "relative to A100", "mean_round_ms"]]
             .rename(columns={"n_requests": "requests", "throughput": "capacity (requests/s)",
                              "mean_round_ms": "mean round (ms)"}))
    out["rt-tab-capacity"] = styled(table, precision=2)
    return out


def table1_on_gpus(T1: pd.DataFrame, gpu_t1: pd.DataFrame, rows_on, rates_on, other, rate: float) -> dict:
    """001 Table 1's runs per column of the side-by-side table: A100, each other GPU at the papers' rate and
    at the same utilisation (``rates_on``), and A100 with the assumed attention (rows of ``gpu_t1`` with
    ``attention`` "derived"); ``rows_on(table, gpu)`` the rows of a ``gpu_*`` table for one GPU."""
    from kvlib.book.chapters.realtrace import gpus as RG

    runs = {"A100": T1}
    for h in other:
        for _, r in rates_on("lmsys", h, [rate]):
            runs[f"{RG.GPU_NAMES[h]}, {r:g}/s"] = RG.at_rates(rows_on("gpu_table1", h), [r])
    derived = len(gpu_t1) and "attention" in gpu_t1
    runs["A100, assumed attention"] = gpu_t1[gpu_t1["attention"] == "derived"] if derived else gpu_t1.iloc[:0]
    return runs


def gpu_values(runs: dict, order, tabs: dict) -> dict:
    """MC-SF's 001 Table 1 latency with the assumed attention, the side-by-side table (mean latency of the
    finished runs per column of ``runs``, rows in ``order``) and where the GPU rows come from (``tabs``:
    name -> (table, frame))."""
    t1g = pd.DataFrame({k: d[d.completed.astype(bool)].groupby("name")["avg_latency"].mean() if len(d)
                        else pd.Series(dtype=float) for k, d in runs.items()}).reindex(order)
    # the runs each mean leaves out: "3 unfinished" beside it
    gone = pd.DataFrame({k: (~d.completed.astype(bool)).groupby(d["name"]).sum() if len(d) else pd.Series(dtype=float)
                         for k, d in runs.items()}).reindex(order).fillna(0).astype(int)
    shown = t1g.map(lambda v: "-" if pd.isna(v) else f"{v:.2f}")
    shown = shown.where(gone == 0, shown + gone.map(lambda k: f" ({k} unfinished)"))
    d = runs["A100, assumed attention"]
    names = ("gpu_capacity", "gpu_table1", "gpu_mixed002", "gpu_intervals003", "gpu_splitwise", "gpu_alpha")
    return {"cap_gpu": markdown("; ".join(f"`{nm}`: {tabs[nm][0].label}" for nm in names)),
            "rt_att_t1_sf": float(d[(d.name == "MC-SF") & d.completed.astype(bool)].avg_latency.mean()) if len(d)
            else float("nan"),
            "rt_gpu_t1_unfinished": int(gone.to_numpy().sum()),
            "rt-tab-gpu-t1": styled(shown.rename_axis("configuration").reset_index())}


# ------------------------------------------------------------------ unfinished and overloaded runs, α spreads
def unfinished_note(df: pd.DataFrame, by=("name",)) -> str:
    """How many runs of ``df`` (column ``completed``) were stopped unfinished, in all and per group of the
    columns ``by`` ("none" when every run finished); tables that average over the finished runs say it."""
    if not len(df) or "completed" not in df:
        return "none"
    bad = df[~df.completed.astype(bool)]
    if not len(bad):
        return "none"
    cols = [c for c in by if c in bad]
    def group(k) -> str:  # a rate written "50/s"
        return ", ".join(f"{v:g}/s" if isinstance(v, float) else str(v) for v in (k if isinstance(k, tuple) else (k,)))

    parts = [f"{group(k)}: {int(n)}" for k, n in bad.groupby(cols).size().items()] if cols else []
    return f"{len(bad)} of {len(df)}" + (f" ({'; '.join(parts)})" if parts else "")


def alpha_spread(G: pd.DataFrame, rate: float) -> dict:
    """The smallest loop-free α of each seed's grid at ``rate`` (rows ``G``: ``rate``, ``alpha``, ``seed``,
    ``completed``; :func:`kvlib.serving.experiments.smallest_stable_alpha` per seed).  ``values``: one per
    seed (NaN: loops at every α of the grid); ``lo``/``hi``: their range, ``hi`` infinite when a seed never
    stops looping; ``grid_min``/``grid_max``: the grid's ends."""
    from kvlib.serving.experiments import smallest_stable_alpha

    d = G[np.isclose(G.rate.astype(float), float(rate))] if len(G) else G
    if not len(d):
        return {"seeds": 0, "values": [], "lo": float("nan"), "hi": float("nan"), "grid_min": float("nan"),
                "grid_max": float("nan")}
    vals = []
    for _, ds in (d.groupby("seed") if "seed" in d else [(None, d)]):
        vals.append(float(smallest_stable_alpha(ds, ds.rate.iloc[0])))
    fin = [v for v in vals if not np.isnan(v)]
    return {"seeds": len(vals), "values": vals, "lo": min(fin) if fin else float("inf"),
            "hi": float("inf") if len(fin) < len(vals) else max(fin),
            "grid_min": float(d.alpha.min()), "grid_max": float(d.alpha.max())}


def _alpha_point(v: float, sp: dict) -> str:
    if np.isnan(v) or np.isinf(v):
        return f"> {sp['grid_max']:g}"
    return (("0" if v == 0 else f"≤ {v:g}") if v == sp["grid_min"] else f"{v:g}")


def alpha_spread_text(sp: dict) -> str:
    """The thresholds of :func:`alpha_spread` as a range over the seeds: "0.19 to 0.23 (3 seeds)"."""
    if not sp["seeds"]:
        return "no stored run"
    lo, hi = _alpha_point(sp["lo"], sp), _alpha_point(sp["hi"], sp)
    rng = lo if lo == hi else f"{lo} to {hi}"
    return f"{rng} ({sp['seeds']} seed{'s' if sp['seeds'] > 1 else ''})"


def alpha_spread_verdict(sp: dict, paper: float) -> str | None:
    """"matches" when the paper's threshold lies within the range of our thresholds over the seeds (a seed's
    threshold at the grid's smallest value may lie anywhere below it), else "differs"; None without runs."""
    if not sp["seeds"]:
        return None
    lo = -np.inf if sp["lo"] == sp["grid_min"] and sp["grid_min"] > 0 else sp["lo"]
    return "matches" if lo - 1e-9 <= paper <= sp["hi"] + 1e-9 else "differs"


def alpha_spread_cell(d: pd.DataFrame, paper: float) -> str:
    """A verdict cell of the smallest loop-free α: verdict, range over the seeds, rate (``d``: one rate's runs)."""
    if not len(d):
        return "no runs"
    sp = alpha_spread(d, float(d.rate.iloc[0]))
    return f"{alpha_spread_verdict(sp, paper)}: {alpha_spread_text(sp)} at {float(d.rate.iloc[0]):g}/s"


def merge_cells(cells: dict, new: dict) -> dict:
    """``cells`` (``{(claim key, comparison): {gpu: text}}``) with each GPU's text of ``new`` replacing its own;
    the GPUs ``new`` does not name keep theirs.  Returns ``cells`` (changed in place)."""
    for k, by_gpu in new.items():
        cells.setdefault(k, {}).update(by_gpu)
    return cells


def alpha_spread_cells(gpus, rates_on, frame_of, workload: str, rate_hi: float, rate_lo: float) -> dict:
    """The cells ``{("alpha_hi" | "alpha_lo", comparison): {gpu: text}}`` of the verdict table with the
    seed-spread rule (:func:`alpha_spread_cell`); ``frame_of(gpu)`` the α-grid runs on that GPU,
    ``rates_on(workload, gpu, rates)`` the (comparison, rate) pairs run there."""
    from kvlib.book.chapters.realtrace import gpus as RG
    from kvlib.book.chapters.realtrace.rows import PAPER_ALPHA_001

    cells: dict = {}
    for h in gpus:
        for key, r0, paper in (("alpha_hi", rate_hi, PAPER_ALPHA_001["high"]),
                               ("alpha_lo", rate_lo, PAPER_ALPHA_001["low"])):
            for comp, r in rates_on(workload, h, [r0]):
                cells.setdefault((key, comp), {})[h] = alpha_spread_cell(RG.at_rates(frame_of(h), [r]), paper)
    return cells


def steady_splitwise_cells(gpus, rates_on, sw_a100: pd.DataFrame, rows_on, sw_rates: dict, cap) -> dict:
    """The Splitwise cells of the verdict table from steady-state runs only: a rate above the GPU's capacity
    for the trace (:func:`kvlib.book.chapters.realtrace.plan.overloaded`) is left out and named.  ``sw_a100``: the
    A100 conversation-trace runs; ``rows_on(table, gpu)`` the ``gpu_splitwise`` rows of a GPU."""
    from kvlib.book.chapters.realtrace import gpus as RG
    from kvlib.book.chapters.realtrace.plan import overloaded

    cells: dict = {}
    for key, wl in (("sw_conv", "splitwise"), ("sw_code", "splitwise-code")):
        for h in gpus:
            src = sw_a100 if (wl == "splitwise" and h == "a100") else rows_on("gpu_splitwise", h)
            src = src[src.workload == wl] if len(src) else src
            for comp in ("rate", "load"):
                rs = [r for c, r in rates_on(wl, h, sw_rates[wl]) if c == comp]
                if not rs:
                    cells.setdefault((key, comp), {})[h] = "the reference"
                    continue
                over = [r for r in rs if overloaded(cap, wl, h, r)]
                steady = [r for r in rs if r not in over]
                text = RG.splitwise_cell(RG.at_rates(src, steady)) if steady else "no steady-state rate"
                if over:
                    text += f"; overloaded, left out: {', '.join(f'{r:g}' for r in over)}/s"
                cells.setdefault((key, comp), {})[h] = text
    return cells


def load_text(cap, workload: str, gpu: str, rates) -> str:
    """Each rate over ``gpu``'s capacity for ``workload`` ("50/s = 5.2 × capacity, overloaded")."""
    from kvlib.book.chapters.realtrace.plan import capacity

    c = capacity(cap, workload, gpu)
    return "; ".join(f"{float(r):g}/s = {float(r) / c:.2f} × capacity" + (", overloaded" if r > c else "")
                     for r in rates)


# ------------------------------------------------------------------------- ShareGPT V3 (real conversations)
def sharegpt_frames(tabs: dict) -> dict:
    """The ShareGPT V3 runs by experiment (``tabs``: name -> (table, frame), the tables of
    :data:`kvlib.book.chapters.realtrace.plan.SHAREGPT_TABLES`): ``table1``, ``alpha`` (configurations named as
    001 does), ``mixed`` (schedulers named by :func:`mixed002_frame`) and ``intervals``."""
    fr = {k: tabs[f"sg_{t}"][1].copy() for k, t in (("table1", "table1"), ("alpha", "alpha"),
                                                      ("mixed", "mixed002"), ("intervals", "intervals003"))}
    if len(fr["mixed"]):
        fr["mixed"] = mixed002_frame(fr["mixed"])
    return fr


def _on(df: pd.DataFrame, gpu: str) -> pd.DataFrame:
    return df[df["hardware"] == gpu] if len(df) and "hardware" in df else df.iloc[:0]


def sharegpt_cells(gpus, rates_on, fr: dict, rate_hi: float, rate_lo: float) -> dict:
    """The verdict cells of the papers' claims re-run on ShareGPT V3 (``fr`` of :func:`sharegpt_frames`), in the
    format of :func:`kvlib.book.chapters.realtrace.gpus.verdict_cells` and decided by its cell functions
    (001 Table 1, 002, 003) and :func:`alpha_spread_cell` (the α thresholds); ``rates_on`` gives the
    (comparison, rate) pairs of the ``sharegpt`` workload on a GPU.  On A100 the 002 and 003 verdicts cover
    every stored size."""
    from kvlib.book.chapters.realtrace import gpus as RG

    cells: dict = {}

    def put(key, comp, h, text):
        cells.setdefault((key, comp), {})[h] = text

    for h in gpus:
        for comp, r in rates_on("sharegpt", h, [rate_hi]):
            d = RG.at_rates(_on(fr["table1"], h), [r])
            for key in ("t1_sf", "t1_mb"):
                put(key, comp, h, RG.table1_cell(d, key))
        m2, m3 = _on(fr["mixed"], h), _on(fr["intervals"], h)  # no stored run yet: "no runs"
        put("mixed", "zero", h, RG.mixed_cell(m2) if len(m2) else "no runs")
        for key in ("amin_amax", "amin_hsf"):
            put(key, "zero", h, RG.intervals_cell(m3, key) if len(m3) else "no runs")
    merge_cells(cells, alpha_spread_cells(gpus, rates_on, lambda h: _on(fr["alpha"], h), "sharegpt", rate_hi, rate_lo))
    for key in ("t1_sf", "t1_mb", "alpha_hi", "alpha_lo"):
        put(key, "load", "a100", "the reference")
    return cells


#: The claims re-run on ShareGPT V3 (keys of :data:`kvlib.book.chapters.realtrace.gpus.CLAIMS`).
SHAREGPT_CLAIMS = ("t1_sf", "t1_mb", "alpha_hi", "alpha_lo", "mixed", "amin_amax", "amin_hsf")


def sharegpt_verdict_table(cells: dict, lm_cells: dict, gpus) -> pd.DataFrame:
    """One row per claim and comparison: the verdict on the synthetic LMSYS-like lengths on A100 (``lm_cells``,
    the chapter's verdict cells) beside the verdicts on ShareGPT V3 on each GPU (``cells``)."""
    from kvlib.book.chapters.realtrace import gpus as RG

    names = {"rate": "same rate", "load": "same load", "zero": "all at t = 0"}
    rows = []
    for key, text, rated in RG.CLAIMS:
        if key not in SHAREGPT_CLAIMS:
            continue
        for comp in (("rate", "load") if rated else ("zero",)):
            rows.append({"claim": text if comp != "load" else "", "comparison": names[comp],
                         "A100, synthetic (LMSYS-like)": lm_cells.get((key, comp), {}).get("a100", "-"),
                         **{RG.GPU_NAMES[h]: cells.get((key, comp), {}).get(h, "-") for h in gpus}})
    return pd.DataFrame(rows)


def sharegpt_source_note(trace_label: str) -> str:
    """What the ShareGPT section says about its source: that the rows read the file; when it is absent
    (quick mode without the shared data), that the rows run on the labelled synthetic stand-in."""
    from kvlib.serving.workloads import FALLBACK_LABEL

    if str(trace_label) != FALLBACK_LABEL:
        return "Every ShareGPT row below was computed from the file itself."
    return (f"In this build the file is absent: the ShareGPT rows below run on a synthetic stand-in drawn from its "
            f"statistics ({FALLBACK_LABEL}), not on the conversations.")


def _seconds(v) -> str:
    """A mean latency as the prose writes it: "36.9 s", or "no finished run" (NaN)."""
    return "no finished run" if pd.isna(v) else f"{float(v):.1f} s"


def sharegpt_values(fr: dict, order, cells: dict, lm_cells: dict, gpus, tab1_lm: pd.DataFrame, labels: dict,
                    rate_hi: float) -> dict:
    """The ShareGPT V3 section: its verdict table beside the LMSYS-like A100 verdicts, 001 Table 1 on A100 (ours on
    ShareGPT, ours on LMSYS-like lengths ``tab1_lm`` of :func:`table1_frame`, 001's), the 002 and 003 latencies
    on A100, the numbers the prose quotes, the verdict counts and where the rows come from (``labels``: table
    name -> label)."""
    from kvlib.book.chapters.realtrace import gpus as RG
    from kvlib.serving.sharegpt import REAL_CONVERSATIONS

    verdict = sharegpt_verdict_table(cells, lm_cells, gpus)
    n_cells, n_held = RG.decided(verdict, gpus)
    t1 = _on(fr["table1"], "a100")
    t1 = t1[np.isclose(t1.rate.astype(float), rate_hi)] if len(t1) else t1
    out = {"rt_sg_label": REAL_CONVERSATIONS, "rt_sg_cells": n_cells, "rt_sg_held": n_held,
           "cap_sharegpt": markdown("; ".join(f"`{nm}`: {lab}" for nm, lab in labels.items())),
           "rt_sg_sha": next((str(h)[:12] + "…" for df in fr.values() if len(df) and "sharegpt_sha256" in df
                              for h in df["sharegpt_sha256"] if isinstance(h, str) and h),
                             "not recorded: the file is absent from this build")}
    for key in ("t1_sf", "t1_mb", "alpha_hi", "alpha_lo", "mixed", "amin_amax", "amin_hsf"):
        comp = "zero" if key in ("mixed", "amin_amax", "amin_hsf") else "rate"
        out[f"rt_sg_{key}"] = cells.get((key, comp), {}).get("a100", "no runs")
    if len(t1):
        sg1 = table1_frame(t1, order)
        out.update({f"rt_sg_t1_{k}": _seconds(sg1.loc[nm, "mean"]) for k, nm in
                    (("sf", "MC-SF"), ("mb", "MC-Benchmark"), ("a3", "Benchmark α = 0.3"))})
        out.update({"rt_sg_t1_runs": int(sg1["runs"].min()), "rt_sg_t1_unfinished": int(sg1["unfinished runs"].sum())})
        tab = pd.DataFrame({"ShareGPT V3 mean (s)": sg1["mean"], "std (s)": sg1["std"], "runs": sg1["runs"],
                            "unfinished": sg1["unfinished runs"], "LMSYS-like mean (s)": tab1_lm["mean"].reindex(order),
                            "001 mean (s), its LMSYS sample": sg1["paper mean"]})
    else:
        out.update({k: "no stored run" for k in ("rt_sg_t1_sf", "rt_sg_t1_mb", "rt_sg_t1_a3")})
        out.update({"rt_sg_t1_runs": 0, "rt_sg_t1_unfinished": 0})
        tab = pd.DataFrame({"ShareGPT V3 mean (s)": []})
    out["rt-tab-sg-table1"] = styled(tab.rename_axis("configuration").reset_index(), precision=2)
    m2 = _on(fr["mixed"], "a100")
    t2 = m2.pivot_table(index="n", columns="name", values="avg_latency") if len(m2) else pd.DataFrame()
    out["rt-tab-sg-002"] = styled(t2.rename(columns=policy_display).rename_axis("requests").reset_index(), precision=1)
    m3 = _on(fr["intervals"], "a100")
    t3 = m3.pivot_table(index="n", columns="policy", values="avg_latency") if len(m3) else pd.DataFrame()
    out["rt-tab-sg-003"] = styled(t3.rename(columns=policy_display).rename_axis("requests").reset_index(), precision=1)
    left = {"text-align": "left"}
    out["rt-tab-sg-verdict"] = styled(verdict).set_properties(subset=["claim"], **left)
    return out
