"""The plan of the chapter "Real-trace experiments in continuous time" (notebooks/realtrace.py).

What the chapter runs, before anything is run: the parameter defaults of each mode (:func:`defaults`),
the configurations (:func:`cfg`, :func:`paper_configs`, :func:`policy_sets`) and the keys of each of
its stored tables, one :func:`kvlib.book.chapters.realtrace.rows.realtrace_row` per key (:func:`experiment_keys`,
:func:`capacity_keys`, :func:`gpu_keys`, :func:`sharegpt_keys` for the real conversations of ShareGPT V3), listed in the order of :data:`PLAN_ORDER`.  Within a table
the keys are ordered so that an incomplete table already holds whole runs at the high rate and the
smaller sizes.  :func:`stored` reads (or computes) one table with the paper's names of the
configurations, :func:`plan_table` summarises every table, :func:`data_files_frame` lists the data
files with their checksums, and :func:`comparison_rates` gives the arrival rates of the three-GPU
comparison.  Nothing here computes a result shown on the page.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["SWEEP_FIX", "PREDICTIONS", "SPLITWISE_CONFIGS", "PLAN_ORDER", "SHAREGPT_TABLES", "defaults", "cfg",
           "optional_column", "paper_configs", "Policies", "policy_sets", "splitwise_rates", "experiment_keys",
           "capacity_keys", "capacity", "comparison_rates", "gpu_keys", "sharegpt_keys", "overloaded", "unique_keys", "stored", "rows_on_gpu", "plan_table", "data_file_names",
           "data_files_frame", "data_note", "parameter_values"]

#: 001 Figures 7/10 fix beta at 0.1 and 0.2; Figures 8/11 fix alpha at 0.1 and 0.2.
SWEEP_FIX = (0.1, 0.2)

#: The interval predictions of 003 Section 6: [1, 1000], 10 buckets and [(1-x)o, (1+x)o] for these x.
PREDICTIONS = ["wide", "buckets", 0.1, 0.95, 0.99]

#: The stored tables in the order they are built (001 Table 1 and Figure 3 first).
PLAN_ORDER = ("table1", "fig3", "mixed002", "intervals003", "splitwise", "gpu_table1", "gpu_mixed002",
              "gpu_intervals003", "gpu_splitwise", "allpolicies", "alpha_grid", "gpu_alpha", "sg_table1",
              "sg_mixed002", "sg_intervals003", "sg_alpha", "sweeps")

#: The tables of the ShareGPT V3 experiments (real conversations; every GPU in one table, column ``hardware``).
SHAREGPT_TABLES = ("sg_table1", "sg_alpha", "sg_mixed002", "sg_intervals003")


def defaults(quick: bool) -> dict:
    """The value each ``None`` parameter of the chapter takes: reduced sizes and run counts in quick
    mode, the papers' scale otherwise (001 Section 5.2 and Appendix C, 002 Section 7, 003 Section 6)."""
    Q = bool(quick)
    return {
        "rates": [50.0, 10.0],
        "fig3_sizes": [250, 500, 1000] if Q else list(range(1000, 10001, 1000)),
        "fig3_runs": 1 if Q else 3,
        "table1_n": 500 if Q else 1000,
        "table1_runs": 4 if Q else 50,
        "alpha_grid": [0.1, 0.2, 0.3, 0.4] if Q else [round(a, 2) for a in np.arange(0.0, 0.401, 0.01)],
        "alpha_grid_n": 500 if Q else 1000,
        # three seeds per grid point on every GPU (two in quick mode), so that each threshold has a spread
        "alpha_grid_seeds": 2 if Q else 3,
        # 001 Appendix C Figures 7-8 and 10-11: beta-clearing against alpha (beta = 0.1, 0.2) and
        # against beta (alpha = 0.1, 0.2); 10,000 requests as in 001 Section 5.2's setup
        "sweep_n": 500 if Q else 10000,
        "sweep_seeds": 1 if Q else 3,
        "sweep_alphas": [0.05, 0.1, 0.2, 0.3] if Q else [0.01, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5],
        "sweep_betas": [0.05, 0.1, 0.2, 0.5] if Q else [0.01, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.7, 1.0],
        "sizes_002": [200, 400] if Q else list(range(200, 2001, 200)),
        "lp_sizes_002": [200, 400] if Q else list(range(200, 2001, 200)),
        "lp_exact_n": 60 if Q else 100,
        "sizes_003": [400, 800] if Q else list(range(200, 2001, 200)),
        # 0.25 and 0.5 lie below the A100's capacity for this trace (about 0.6/s): steady states; 1 and 2 overload it
        "splitwise_rates": [0.25, 0.5, 1.0, 2.0],
        "splitwise_n": 200 if Q else 2000,
        "gpus": ["a100", "h100", "h200"],
        "gpu_runs": 2 if Q else 20,
        "gpu_sizes": [400] if Q else [400, 1200, 2000],
        "code_rates": [0.25, 0.5, 1.0],
        # ShareGPT V3 (real conversations): runs per configuration of 001 Table 1 on each GPU; the alpha
        # grid, the 002 and 003 sizes and the GPUs are those of the LMSYS-like experiments
        "sg_table1_runs": 1 if Q else 20,
        # ShareGPT V3's longer replies loop up to larger alpha at 50/s (about 0.4 on A100): its grid reaches 0.6
        "sg_alpha_grid": [0.15, 0.3, 0.45, 0.6] if Q else [round(a, 2) for a in np.arange(0.0, 0.601, 0.01)],
    }


def cfg(policy, alpha=None, beta=None, **extra):
    """A configuration as key entries: only the options it has."""
    return {"policy": policy, **({"alpha": alpha} if alpha is not None else {}),
            **({"beta": beta} if beta is not None else {}), **extra}


#: The configurations of the Splitwise runs (FCFS is MC-Benchmark).
SPLITWISE_CONFIGS = [cfg("mc-sf"), cfg("mc-benchmark"), cfg("alpha-greedy", 0.3)]


def optional_column(df, col) -> list:
    """The values of column ``col`` of ``df`` with NaN as ``None``; all ``None`` when the column is absent."""
    return [None if v is None or (isinstance(v, float) and np.isnan(v)) else v
            for v in (df[col] if col in df else [None] * len(df))]


def paper_configs() -> tuple[list[dict], list[str]]:
    """MC-SF, MC-Benchmark and the six benchmark configurations of 001 Section 5.2 as configurations, and
    their names as the paper writes them (in the order of 001 Appendix C Table 1)."""
    from kvlib.book.chapters.realtrace.rows import PAPER_CONFIGS, paper_name

    return [cfg(p, a, b) for p, a, b in PAPER_CONFIGS], [paper_name(p, a, b) for p, a, b in PAPER_CONFIGS]


class Policies(NamedTuple):
    """The schedulers each experiment runs, among those registered."""

    p002: list  #: (policy, options) of 002 Figure 8 without an LP
    lp002: list  #: (policy, options) of Sorted-LP and LP-Swap
    p003: list  #: the policies of 003 Section 6
    pending: list  #: the papers' policies not registered in kvlib.policies.POLICIES


def policy_sets(have) -> Policies:
    """The :class:`Policies` among the registered names ``have``."""
    p002 = [("fcfs", {}), ("mc-sf", {})]
    p002 += [(p, o) for p, o in [("sorted-f", {"selector": "swap"}), ("sorted-f", {"selector": "quantile"})]
             if p in have]
    lp002 = [(p, {}) for p in ("sorted-lp", "lp-swap") if p in have]
    p003 = [p for p in ("a-max", "a-min", "h-sf") if p in have]
    pending = [p for p in ("sorted-f", "sorted-lp", "lp-swap", "a-max", "a-min", "h-sf") if p not in have]
    return Policies(p002, lp002, p003, pending)


def splitwise_rates(P: dict) -> dict:
    """Mean arrival rates per Splitwise trace (conversation, code)."""
    return {"splitwise": P["splitwise_rates"], "splitwise-code": P["code_rates"]}


def experiment_keys(P: dict, seed: int, lmk: dict, datak: dict, pol: Policies, n_all: int) -> dict:
    """The keys of the A100 tables: ``{table name: keys}``.  ``P`` holds the parameters (defaults filled
    in), ``lmk`` the key entries of an LMSYS-like workload, ``datak`` those of a workload read from the
    data files, ``n_all`` the size of the table of every policy."""
    from kvlib.book.store import key_json

    configs, _ = paper_configs()
    rate_hi = P["rates"][0]
    grid, n_grid = P["alpha_grid"], P["alpha_grid_n"]
    keys = {}
    # seed-major, then the high rate: a partial table holds whole grids at lambda = 50 first
    keys["alpha_grid"] = [{**lmk, **cfg("alpha-greedy", a), "n": n_grid, "rate": r, "seed": seed + k}
                          for k in range(P["alpha_grid_seeds"]) for r in P["rates"] for a in grid]
    # run-major, then the high rate: a partial table covers every configuration at lambda = 50 first
    keys["fig3"] = [{**lmk, **c, "n": n, "rate": r, "seed": seed + k}
                    for k in range(P["fig3_runs"]) for r in P["rates"] for n in P["fig3_sizes"] for c in configs]
    # run-major: a partial table holds whole runs of all eight configurations
    keys["table1"] = [{**lmk, **c, "n": P["table1_n"], "rate": rate_hi, "seed": seed + 1000 + k}
                      for k in range(P["table1_runs"]) for c in configs]
    sa, sb = P["sweep_alphas"], P["sweep_betas"]
    sw = []
    for k in range(P["sweep_seeds"]):  # seed-major, then the high rate, alpha sweep before beta sweep
        for r in P["rates"]:
            point = {"rate": r, "seed": seed + 2000 + k}
            sw += [cfg("alpha-beta-clearing", a, b) | point for b in SWEEP_FIX for a in sa]
            sw += [cfg("alpha-beta-clearing", a, b) | point for a in SWEEP_FIX for b in sb]
    # drop repeated points
    keys["sweeps"] = [{**lmk, "n": P["sweep_n"], **d} for d in {key_json(d): d for d in sw}.values()]
    # size-major (002's subsamples 200, 400, ..., 2,000): a partial table holds every scheduler at the smaller sizes
    keys["mixed002"] = [{**datak, "workload": "mixed002", "n": n, "seed": seed, "policy": p, **o}
                        for n in sorted(set(P["sizes_002"]) | set(P["lp_sizes_002"]))
                        for p, o in (pol.p002 if n in P["sizes_002"] else [])
                        + (pol.lp002 if n in P["lp_sizes_002"] else [])]
    # size-major (003's subsets): a partial table holds every prediction and policy at the smaller sizes
    keys["intervals003"] = [{**lmk, "n": n, "seed": seed, "policy": p, "pred": pr}
                            for n in P["sizes_003"] for pr in PREDICTIONS for p in pol.p003]
    keys["splitwise"] = [{**datak, "workload": "splitwise", "n": P["splitwise_n"], "rate": r, "seed": seed, **c}
                         for r in P["splitwise_rates"] for c in SPLITWISE_CONFIGS]
    every = [cfg("mc-sf"), cfg("mc-benchmark"), cfg("mc-sf2"), cfg("alpha-greedy", 0.3),
             cfg("alpha-beta-clearing", 0.2, 0.2)]
    every += [cfg(p, **o) for p, o in pol.p002[2:] + pol.lp002]
    every += [cfg(p, pred=0.5) for p in pol.p003]
    keys["allpolicies"] = [{**datak, "workload": "mixed002", "n": n_all, "seed": seed, **c} for c in every]
    return keys


def capacity_keys(P: dict, seed: int, lmk: dict, datak: dict) -> list[dict]:
    """The keys of the capacity table: each GPU's capacity per workload (A100 always included), from which
    the same-utilisation rates derive."""
    gpus = list(dict.fromkeys(["a100", *dict.fromkeys(P["gpus"])]))
    keys = [{**lmk, "n": P["table1_n"], "seed": seed, "hardware": h} for h in gpus]
    keys += [{**datak, "workload": wl, "n": P["splitwise_n"], "seed": seed, "hardware": h}
             for wl in ("splitwise", "splitwise-code") for h in gpus]
    # ShareGPT V3 in words (001 Section 5.2's unit), the workload of its 001 runs
    keys += [{**_sharegpt_base(datak), "workload": "sharegpt", "unit": "words", "n": P["table1_n"], "seed": seed,
              "hardware": h} for h in gpus]
    return keys


def _sharegpt_base(datak: dict) -> dict:
    """The key entries of a ShareGPT V3 row: those of a data-file row without a user CSV (not read)."""
    return {k: v for k, v in datak.items() if k != "user_csv"}


def capacity(cap, workload: str, gpu: str) -> float:
    """The throughput of ``gpu`` on ``workload`` in the capacity frame ``cap``."""
    rows = cap[(cap.workload == workload) & (cap.hardware == gpu)]
    if not len(rows):
        raise KeyError(f"no capacity row for workload {workload!r} on {gpu!r}")
    return float(rows.throughput.iloc[0])


def overloaded(cap, workload: str, gpu: str, rate) -> bool:
    """Whether arrivals at ``rate`` per second exceed ``gpu``'s capacity for ``workload`` (the capacity frame
    ``cap``): the queue then grows for as long as requests arrive, so the run measures a burst, not a steady
    state."""
    return float(rate) > capacity(cap, workload, gpu)


def comparison_rates(cap, workload: str, gpu: str, rates) -> list[tuple[str, float]]:
    """(comparison, rate) pairs on ``gpu``: the papers' rates ("rate"), and on H100/H200 also the
    same-utilisation rates ("load") from the capacity frame ``cap``."""
    from kvlib.serving.gpus import equal_utilisation_rate

    out = [("rate", float(r)) for r in rates]
    if gpu == "a100":
        return out
    return out + [("load", equal_utilisation_rate(r, capacity(cap, workload, gpu), capacity(cap, workload, "a100")))
                  for r in rates]


def gpu_keys(P: dict, seed: int, lmk: dict, datak: dict, pol: Policies, rates_on) -> dict:
    """The keys of the three-GPU tables (``gpu_*``): ``{table name: keys}``; ``rates_on(workload, gpu,
    rates)`` gives the (comparison, rate) pairs run on a GPU (:func:`comparison_rates`)."""
    configs, _ = paper_configs()
    rate_hi = P["rates"][0]
    gpus = list(dict.fromkeys(P["gpus"]))
    other = [h for h in gpus if h != "a100"]
    keys = {}
    keys["gpu_table1"] = [{**lmk, **c, "n": P["table1_n"], "rate": r, "seed": seed + 1000 + k, "hardware": h}
                          for k in range(P["gpu_runs"]) for h in other for _, r in rates_on("lmsys", h, [rate_hi])
                          for c in configs]
    # the A100 with the assumed attention, for comparison
    keys["gpu_table1"] += [{**lmk, **c, "n": P["table1_n"], "rate": rate_hi, "seed": seed + 1000 + k,
                            "attention": "derived"} for k in range(P["gpu_runs"]) for c in configs]
    # seed-major like the A100's grid: a partial table holds whole grids of the first seed
    keys["gpu_alpha"] = [{**lmk, **cfg("alpha-greedy", a), "n": P["alpha_grid_n"], "rate": r, "seed": seed + k,
                          "hardware": h}
                         for k in range(P["alpha_grid_seeds"]) for h in other
                         for _, r in rates_on("lmsys", h, P["rates"]) for a in P["alpha_grid"]]
    keys["gpu_mixed002"] = [{**datak, "workload": "mixed002", "n": n, "seed": seed, "policy": p, **o, "hardware": h}
                            for h in other for n in P["gpu_sizes"] for p, o in pol.p002]
    keys["gpu_intervals003"] = [{**lmk, "n": n, "seed": seed, "policy": p, "pred": "wide", "hardware": h}
                                for h in other for n in P["gpu_sizes"] for p in pol.p003]
    sw_rates = splitwise_rates(P)
    keys["gpu_splitwise"] = [{**datak, "workload": wl, "n": P["splitwise_n"], "rate": r, "seed": seed, **c,
                              "hardware": h}
                             for wl in sw_rates for h in gpus if not (wl == "splitwise" and h == "a100")  # A100: table splitwise
                             for _, r in rates_on(wl, h, sw_rates[wl]) for c in SPLITWISE_CONFIGS]
    return {name: unique_keys(ks) for name, ks in keys.items()}


def sharegpt_keys(P: dict, seed: int, datak: dict, pol: Policies, rates_on) -> dict:
    """The keys of the ShareGPT V3 tables (:data:`SHAREGPT_TABLES`; real conversations, not the papers' LMSYS
    sample), each on A100 and every GPU of ``P["gpus"]`` (column ``hardware``): 001 Table 1 and the alpha grid
    (``P["sg_alpha_grid"]``, seeds and requests per run as the LMSYS-like grid's) on word counts (001 Section 5.2 counts words) at the papers' rates and, off A100, the same-utilisation
    rates (``rates_on``, :func:`comparison_rates`); 002's mixture with ShareGPT as its short 80 % and 003's
    Experiment 1 (interval [1, 1000]) on tokens, all at ``t = 0``, at the LMSYS-like sizes on A100 and
    ``P["gpu_sizes"]`` elsewhere."""
    base = _sharegpt_base(datak)
    words = {**base, "workload": "sharegpt", "unit": "words"}
    configs, _ = paper_configs()
    gpus = list(dict.fromkeys(["a100", *P["gpus"]]))
    keys = {}
    keys["sg_table1"] = [{**words, **c, "n": P["table1_n"], "rate": r, "seed": seed + 1000 + k, "hardware": h}
                         for k in range(P["sg_table1_runs"]) for h in gpus
                         for _, r in rates_on("sharegpt", h, [P["rates"][0]]) for c in configs]
    keys["sg_alpha"] = [{**words, **cfg("alpha-greedy", a), "n": P["alpha_grid_n"], "rate": r, "seed": seed + k,
                         "hardware": h}
                        for k in range(P["alpha_grid_seeds"]) for h in gpus
                        for _, r in rates_on("sharegpt", h, P["rates"]) for a in P["sg_alpha_grid"]]
    keys["sg_mixed002"] = [{**base, "workload": "mixed002", "short": "sharegpt", "n": n, "seed": seed, "policy": p,
                            **o, "hardware": h}
                           for h in gpus for n in (P["sizes_002"] if h == "a100" else P["gpu_sizes"])
                           for p, o in pol.p002]
    keys["sg_intervals003"] = [{**base, "workload": "sharegpt", "unit": "tokens", "n": n, "seed": seed, "policy": p,
                                "pred": "wide", "hardware": h}
                               for h in gpus for n in (P["sizes_003"] if h == "a100" else P["gpu_sizes"])
                               for p in pol.p003]
    return {name: unique_keys(ks) for name, ks in keys.items()}


def unique_keys(keys: list[dict]) -> list[dict]:
    """``keys`` without repeats, in order: a same-utilisation rate can equal one of the papers' rates (e.g. 0.25/s
    on a GPU of twice the A100's capacity is 0.5/s), and one run then serves both comparisons."""
    from kvlib.book.store import key_json

    return list({key_json(k): k for k in keys}.values())


def stored(store, name: str, keys, jobs: int):
    """The stored table ``name`` (one realtrace_row per key) and its frame with the paper's names (column
    ``name``)."""
    from kvlib.book.chapters.realtrace.rows import TIMING_COLUMNS, paper_name, realtrace_row

    tab = store.table(name, realtrace_row, keys, timing=TIMING_COLUMNS, jobs=jobs)
    df = tab.frame.copy()
    if len(df):
        df["name"] = [paper_name(p, a, b) for p, a, b in
                      zip(df["policy"], optional_column(df, "alpha"), optional_column(df, "beta"))]
    return tab, df


def rows_on_gpu(tabs: dict, name: str, gpu: str):
    """The rows of the stored table ``name`` (``tabs``: name -> (table, frame)) run on ``gpu``; none when
    the table is empty or has no ``hardware`` column."""
    df = tabs[name][1]
    return df[df["hardware"] == gpu] if len(df) and "hardware" in df else df.iloc[:0]


def plan_table(tabs: dict, plan):
    """One row per stored table of ``plan`` ((name, keys) pairs): rows planned, rows stored or computed,
    and where they come from (``tabs``: name -> (table, frame))."""
    import pandas as pd

    return pd.DataFrame([{"table": f"<code>{name}</code>", "rows": len(keys),
                          "stored or computed": tabs[name][0].n_rows, "where from": tabs[name][0].label}
                         for name, keys in plan])


def data_file_names() -> tuple:
    """The data files the chapter reads: the four traces and each GPU's measured files (once each)."""
    from kvlib.serving.measured import HARDWARE
    from kvlib.serving.sharegpt import SHAREGPT_CSV
    from kvlib.serving.workloads import ARXIV_CSV, CODE_CSV, SPLITWISE_CSV

    return (ARXIV_CSV, SPLITWISE_CSV, CODE_CSV, SHAREGPT_CSV, *dict.fromkeys(f for h in HARDWARE.values() for f in h.values()))


def data_files_frame(store, shared, quick: bool, user_csv=None):
    """The data files with their SHA-256: in quick mode those found in ``shared`` now; in full mode the
    checksums recorded when the stored rows were computed (the files need not be here)."""
    import pandas as pd

    from kvlib.book.chapters.realtrace import data as RD
    from kvlib.book.provenance import data_files

    names = data_file_names()
    if quick:
        return data_files(shared, names, extra=[user_csv] if user_csv else ())
    tab = store.table("data_files", RD.data_file_row, [{"file": f, "data": "shared"} for f in names])
    return pd.concat([RD.files_frame(tab.frame.to_dict("records")),
                      data_files(None, (), extra=[user_csv] if user_csv else ())], ignore_index=True)


def data_note(shared, quick: bool, user_csv=None) -> str:
    """The line the chapter prints about its data: the shared directory and the user CSV."""
    from pathlib import Path

    return ("shared data directory: " + ("found" if shared else
            ("not found -> stored rows are read; they record the checksums of the files they were computed from"
             if not quick else "not found -> embedded coefficients and synthetic stand-ins"))
            + f"; user CSV: {Path(user_csv).name if user_csv else 'none (LMSYS-like generator)'}")


def parameter_values(mode: str, lm_label: str, P: dict) -> dict:
    """The glued values that restate the run's parameters (mode, label of the lengths, sizes)."""
    out = {"rt_mode": mode, "rt_lmlabel": lm_label}
    for k in ("fig3_runs", "table1_n", "splitwise_n"):
        out[f"rt_{k}"] = P[k]
    for k in ("fig3_sizes", "sizes_002", "sizes_003"):
        out[f"rt_{k}"] = ", ".join(f"{n:,}" for n in P[k])
    return out
