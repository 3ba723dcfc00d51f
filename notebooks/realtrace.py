# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.16.0
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# (chapter-realtrace)=
# # Real-trace experiments in continuous time
#
# This chapter re-runs the real-data experiments of the papers -- Jaillet et al.
# {cite}`jaillet2025online` (001 Section 5.2), Wang-Ye-Zhou {cite}`wang2025serving`
# (002 Section 7) and Chen-Ye-Zhou {cite}`chen2025adaptively` (003 Section 6) -- in a
# **continuous-time** simulator: each scheduling round is one batch of Llama-2-70B on
# two A100 GPUs, and the batch lasts as long as a batch-time model fitted to the
# profiling data of Vidur {cite}`agrawal2024vidur` says. The workloads are LMSYS-like
# {cite}`zheng2024lmsys`, arXiv summarization {cite}`cohan2018discourse` and the
# Splitwise conversation trace {cite}`patel2024splitwise`.
# It establishes (i) a documented batch-time model, (ii) an LMSYS-like length
# generator matched to the papers' published statistics, (iii) side-by-side
# comparisons with the papers' numbers, and (iv) the same policies on a
# production trace with real arrival times.
#
# **Labels.** The LMSYS-Chat-1M lengths the papers used are not available here;
# every result computed from our generator is marked **synthetic (LMSYS-like)**.
# Results on the arXiv and Splitwise files name the file and its SHA-256. Without
# `../shared/data` the chapter runs on an embedded synthetic stand-in and says so.
#
# Parameters (set by papermill, see `book/chapters.yml`): `mode` (`"quick"` is a
# reduced scale for CI, clearly smaller than the papers'; `"full"` is the
# papers' scale), `seed`, `shared_dir`, `user_csv` (a CSV with columns
# `prompt,output`, e.g. the real LMSYS lengths, replacing the generator), the
# parallel backend and the sizes below (`None` = the mode's default).

# %% tags=["parameters"]
mode = "quick"
seed = 0
shared_dir = "../shared/data"
user_csv = None
n_jobs = 2
backend = "loky"
memory = 16492
rates = None  # Poisson rates (per second) of 001 Sec. 5.2: [high, low]
fig3_sizes = None
fig3_runs = None
table1_n = None
table1_runs = None
alpha_grid = None
alpha_grid_n = None
sizes_002 = None
lp_sizes_002 = None
lp_exact_n = None  # size of the exact-vs-approximate LP check
sizes_003 = None
splitwise_rates = None
splitwise_n = None

# %%
import time as _time

_T0 = _time.perf_counter()
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import display

from kvlib.serving.batchtime import EMBEDDED, default_model, fit_from_csv, profile_points
from kvlib.policies import POLICIES
from kvlib.serving.experiments import (build_workload, format_alpha, policy_label, slope_of,
                                      smallest_stable_alpha)
from kvlib.book.gluing import glue_figure
from kvlib.book.gluing import glue_value as g
from kvlib.book.tables import styled
from kvlib.book.provenance import data_files
from kvlib.book.sweeps import run_specs
from kvlib.serving.workloads import (ARXIV_CSV, SPLITWISE_CSV, SYNTHETIC_LABEL, lmsys_fit_table, load_arxiv,
                             load_splitwise, resolve_shared_dir)

if mode not in ("quick", "full"):
    raise ValueError(f"mode must be 'quick' or 'full', got {mode!r}")
Q = mode == "quick"
DEFAULTS = {
    "rates": [50.0, 10.0],
    "fig3_sizes": [250, 500, 1000] if Q else list(range(1000, 10001, 1000)),
    "fig3_runs": 1 if Q else 3,
    "table1_n": 500 if Q else 1000,
    "table1_runs": 4 if Q else 50,
    "alpha_grid": [0.1, 0.2, 0.3, 0.4] if Q else [round(a, 2) for a in np.arange(0.0, 0.401, 0.01)],
    "alpha_grid_n": 500 if Q else 1000,
    "sizes_002": [200, 400] if Q else list(range(200, 2001, 200)),
    "lp_sizes_002": [200, 400] if Q else list(range(200, 2001, 200)),
    "lp_exact_n": 60 if Q else 100,
    "sizes_003": [400, 800] if Q else list(range(200, 2001, 200)),
    "splitwise_rates": [0.5, 1.0, 2.0],
    "splitwise_n": 200 if Q else 2000,
}
P = {k: (globals()[k] if globals()[k] is not None else v) for k, v in DEFAULTS.items()}
RATE_HI, RATE_LO = P["rates"]
SHARED = resolve_shared_dir(shared_dir)
print(f"This chapter was produced in {mode!r} mode with seed {seed}"
      + (" (QUICK: reduced sizes and run counts, not the papers' scale)." if Q else " (the papers' scale)."))
print("shared data directory: " + ("found" if SHARED else "not found -> embedded coefficients and synthetic stand-ins")
      + f"; user CSV: {Path(user_csv).name if user_csv else 'none (LMSYS-like generator)'}")
LM_LABEL = f"user CSV {Path(user_csv).name}" if user_csv else SYNTHETIC_LABEL
g("rt_mode", mode)
g("rt_lmlabel", LM_LABEL)
for _k in ("fig3_runs", "table1_n", "splitwise_n"):
    g(f"rt_{_k}", P[_k])
g("rt_fig3_sizes", ", ".join(f"{n:,}" for n in P["fig3_sizes"]))
g("rt_sizes_002", ", ".join(f"{n:,}" for n in P["sizes_002"]))
g("rt_sizes_003", ", ".join(f"{n:,}" for n in P["sizes_003"]))


BASE = {"shared_dir": str(SHARED) if SHARED else None, "user_csv": user_csv, "memory": memory}


def run_all(specs, desc):
    return run_specs(specs, base=BASE, n_jobs=n_jobs, backend=backend, desc=desc, progress=False)


styled(data_files(SHARED, (ARXIV_CSV, SPLITWISE_CSV, "a100_llama2_70b_mlp.csv", "a100_pairwise_nvlink_all_reduce.csv"),
                  extra=[user_csv] if user_csv else ()), caption="data files (SHA-256 of those present)")

# %% [markdown]
# ## The batch-time model
#
# ```{prf:definition} Batch time
# :label: rt-batchtime
# A batch of round $t$ prefills the prompts of the requests started at $t$
# ($P$ tokens, squared sizes summing to $Q$) and decodes one token for each of the
# $D$ requests started earlier, which attend to $K$ cached tokens in total. Its time
# $\tau(P, D, K)$, in ms, is given by {eq}`eq-rt-batchtime` below,
# with $L = 80$ layers and $h = 8192$: $f$ is the per-layer time of the non-attention
# operators (piecewise linear with one knee, fitted to Vidur's profile at tensor
# parallelism 2), $g$ the NVLink all-reduce time of a message of $2h(P+D)$ bytes
# (linear fit), $e$ the embedding, and the attention terms are **derived, not
# measured** (Vidur's attention profile is not available): decode attention reads
# 4,096 bytes of K and V per cached token per layer (8 KV heads x 128 x 2 x fp16),
# half on each GPU, at an assumed 2.0 TB/s HBM bandwidth per A100
# ($a_{\mathrm{dec}} = 2048/(2\cdot 10^{12})$ s per token); prefill attention costs
# $2 s^2 \cdot 4096$ FLOPs per layer per GPU at an assumed 156 TFLOP/s (half the
# A100's fp16 peak).
# ```
#
# ```{math}
# :label: eq-rt-batchtime
# \tau(P, D, K) = L\,\big[f(P+D) + 2\,g\big(2h(P+D)\big) + a_{\mathrm{dec}} K + a_{\mathrm{pre}} Q\big] + e(P+D)
# \quad\text{ms}
# ```
#
# The coefficients are embedded in `kvlib.serving.batchtime.EMBEDDED` with their provenance;
# when the CSVs are present the chapter refits them and checks they agree.

# %% tags=["teach"]
model = default_model()
prov = EMBEDDED["provenance"]
_PROV_KEYS = ("mlp_csv", "mlp_sha256", "allreduce_csv", "allreduce_sha256", "fit_date", "layer_r2",
              "layer_median_rel_err", "layer_max_rel_err", "allreduce_r2")
coef = pd.DataFrame([{k: v for k, v in EMBEDDED.items() if k != "provenance"}]).T.rename(columns={0: "value"})
if SHARED and (SHARED / "a100_llama2_70b_mlp.csv").exists():
    refit = fit_from_csv(SHARED)
    coef["refit from CSV"] = [getattr(refit, k) for k in coef.index]
    agree = all(np.isclose(coef["value"].astype(float), coef["refit from CSV"].astype(float), rtol=1e-6))
    print("refit from the CSVs agrees with the embedded coefficients:", agree)
else:
    print("CSV profiles absent: using the EMBEDDED coefficients (fitted from the files named below)")
display(styled(pd.DataFrame({"provenance": list(_PROV_KEYS), "value": [str(prov[k]) for k in _PROV_KEYS]})))
g("rt_r2", prov["layer_r2"])
g("rt_relerr", 100 * prov["layer_median_rel_err"])
g("rt_ms1", model.batch_ms(0, 1, 100))
g("rt_ms200", model.batch_ms(0, 200, 16000))
g("rt_ms_pre", model.batch_ms(2000, 0, 0, 2000**2))
styled(coef.rename_axis("coefficient").reset_index(), formats={c: "{:.6g}" for c in coef.columns})

# %%
fig, axs = plt.subplots(2, 2, figsize=(8, 6))
ax = axs.ravel()
ax[3].axis("off")
T = np.arange(1, 4097)
if SHARED and (SHARED / "a100_llama2_70b_mlp.csv").exists():
    Tm, ym = profile_points(SHARED)
    ax[0].plot(Tm, ym, ".", ms=3, label="Vidur profile (median, TP=2)")
ax[0].plot(T, model.layer_linear_ms(T), "-", label="fit f(T)")
ax[0].set(xscale="log", yscale="log", xlabel="tokens in batch T", ylabel="ms per layer", title="non-attention operators")
ax[0].legend(fontsize=8)
D = np.arange(1, 401)
for kv_per in (100, 500, 2000):
    ax[1].plot(D, model.batch_ms(0, D, D * kv_per), label=f"{kv_per} cached tokens / request")
ax[1].set(xlabel="decode requests D", ylabel="ms per batch", title="decode-only batches")
ax[1].legend(fontsize=8)
Pp = np.arange(0, 4001, 50)
for d in (0, 50, 150):
    ax[2].plot(Pp, model.batch_ms(Pp, d, d * 200, Pp**2), label=f"one prompt of P tokens + {d} decodes")
ax[2].set(xlabel="prefill tokens P", ylabel="ms per batch", title="batches with a prefill")
ax[2].legend(fontsize=8)
fig.tight_layout()
glue_figure("rt-batchtime", fig)

# %% [markdown]
# ```{glue:figure} rt-batchtime
# :name: fig-rt-batchtime
#
# The batch-time model of {prf:ref}`rt-batchtime` (Llama-2-70B on two A100s, tensor
# parallelism 2; the same in quick and full mode): per-layer time of the non-attention operators
# (fit $f$, with Vidur's profile points when the CSVs are present), decode-only batches, and
# batches with one prefill.
# ```

# %% [markdown]
# The fit of the per-layer operators ({ref}`figure <fig-rt-batchtime>`) has $R^2 =$ {glue:text}`rt_r2:.4f` and a median
# relative error of {glue:text}`rt_relerr:.1f` %. A single decode token takes
# {glue:text}`rt_ms1:.1f` ms (weight-bound), 200 decoding requests holding 16,000
# tokens {glue:text}`rt_ms200:.1f` ms, and a batch with one 2,000-token prompt
# {glue:text}`rt_ms_pre:.0f` ms.
#
# ## Workloads
#
# The LMSYS-like generator is a two-component mixture of discretised log-normals per
# length, fitted to the published statistics of the 2,000 LMSYS conversations of 003
# (a single log-normal cannot match mean, median and variance on the published range;
# see `kvlib.serving.workloads`). Prompt and output lengths are drawn independently.

# %%
fit = lmsys_fit_table(refit=not Q)
styled(fit)

# %%
wl = []
for w in (build_workload({"workload": "lmsys", "n": 2000, "seed": seed, "user_csv": user_csv}),
          load_arxiv(SHARED, fallback=True, seed=seed), load_splitwise(SHARED, fallback=True, seed=seed)):
    d = w.summary()
    d["label"] = w.label if w.label != SYNTHETIC_LABEL else LM_LABEL
    wl.append(d)
WL = pd.DataFrame(wl)
g("rt_sw_label", WL.loc[2, "label"])
g("rt_ax_label", WL.loc[1, "label"])
styled(WL, precision=1, caption="lengths in tokens")

# %% [markdown]
# ## 001 Section 5.2: MC-SF against the benchmarks ({glue:text}`rt_lmlabel`)
#
# Requests arrive by a Poisson process ($\lambda = 50$ per second, "high demand", and
# $\lambda = 10$, "low demand"), $M = 16{,}492$ tokens. MC-SF and MC-Benchmark use the
# look-ahead test; MC-Benchmark is 001 Algorithm 2 as written (arrival order, stopping at the
# first request that fails the test), the same policy as the `fcfs` used below. The
# $\alpha$-protection baselines admit up to $(1-\alpha)M$ and clear on overflow: greedy clears
# all running requests; $\beta$-clearing makes one draw per overflow event, clearing each running
# request independently with probability $\beta$, and clears the survivors too if the memory
# still exceeds $M$ (001 Section 5.2 does not say what happens then; this is our reading, and
# `alpha-beta-clearing-redraw` is our variant that redraws until the survivors fit).
#
# ### Smallest $\alpha$ without endless clearing
#
# A run is declared an endless clearing loop when it does not finish within ten times
# the number of rounds FCFS needs on the same workload (plus 1,000), or when no request
# completes for $4\max o + 100$ consecutive rounds. For each rate we report the smallest
# $\alpha$ of the grid at and above which every run of alpha-protection greedy finished
# ("<= a" when even the smallest grid value never looped).

# %% tags=["teach"]
grid = P["alpha_grid"]
nG = P["alpha_grid_n"]
grid_seeds = [seed] if Q else [seed, seed + 1, seed + 2]
ref = run_all([{"workload": "lmsys", "n": nG, "rate": r, "seed": s, "policy": "fcfs"} for r in P["rates"] for s in grid_seeds],
              "fcfs reference")
cap = {(r["rate"], r["seed"]): 10 * r["rounds"] + 1000 for _, r in ref.iterrows()}
G = run_all([{"workload": "lmsys", "n": nG, "rate": r, "seed": s, "policy": "alpha-greedy", "opts": {"alpha": a},
              "max_rounds": cap[(r, s)], "check": False} for r in P["rates"] for s in grid_seeds for a in grid],
            "alpha grid")
G["alpha"] = G["opts"].map(lambda o: o["alpha"])
A_HI, A_LO = (smallest_stable_alpha(G, r) for r in (RATE_HI, RATE_LO))
g("rt_alpha_hi", format_alpha(A_HI, grid))
g("rt_alpha_lo", format_alpha(A_LO, grid))
styled(pd.DataFrame({"rate (requests/s)": [RATE_HI, RATE_LO],
                     "smallest alpha (ours)": [format_alpha(A_HI, grid), format_alpha(A_LO, grid)],
                     "paper (001)": [0.21, 0.24], "grid": [f"{grid[0]}..{grid[-1]}"] * 2, "n": [nG] * 2,
                     "workload": [LM_LABEL] * 2}), formats={"paper (001)": "{:.2f}"})

# %% [markdown]
# Ours: {glue:text}`rt_alpha_hi` at high demand, {glue:text}`rt_alpha_lo` at low demand
# (the paper's: 0.21 and 0.24), on {glue:text}`rt_lmlabel` data.
#
# ### Figure 3: average latency against the number of requests

# %%
A_USE = max(0.3, float(np.nan_to_num(max(A_HI, A_LO), nan=0.3)))
BENCH = [("mc-sf", {}), ("mc-benchmark", {}), ("alpha-greedy", {"alpha": A_USE}),
         ("alpha-beta-clearing", {"alpha": A_USE, "beta": 0.5})]

F3 = run_all([{"workload": "lmsys", "n": n, "rate": r, "seed": seed + k, "policy": p, "opts": o}
              for r in P["rates"] for n in P["fig3_sizes"] for k in range(P["fig3_runs"]) for p, o in BENCH], "figure 3")
F3["name"] = [policy_label(p, o) for p, o in zip(F3["policy"], F3["opts"])]
assert F3["valid"].dropna().all()
fig, ax = plt.subplots(1, 2, figsize=(8, 3.4), sharey=False)
slopes = []
for j, r in enumerate(P["rates"]):
    sub = F3[F3.rate == r].groupby(["name", "n"])["avg_latency"].mean().unstack(0)
    for c in sub.columns:
        y = sub[c].dropna()
        ax[j].plot(y.index, y.values, "o-", label=c)
        if len(y) >= 2:
            slopes.append({"rate": r, "policy": c, "slope (s per request)": np.polyfit(y.index, y.values, 1)[0]})
    ax[j].set(title=f"λ = {r:g}/s", xlabel="number of requests", ylabel="average latency (s)")
    ax[j].legend(fontsize=6)
fig.tight_layout()
glue_figure("rt-fig3", fig)
S = pd.DataFrame(slopes)
S["1/slope"] = 1 / S["slope (s per request)"]
paper_slope = {(RATE_HI, "mc-sf"): "1/6", (RATE_LO, "mc-sf"): "1/800"}
S["paper (001)"] = [paper_slope.get((r, p), "best benchmark ~1/2" if r == RATE_HI else "best benchmark ~1/100")
                    for r, p in zip(S.rate, S.policy)]

bench_hi = min(slope_of(S, RATE_HI, policy_label(p, o)) for p, o in BENCH[1:])
bench_lo = min(slope_of(S, RATE_LO, policy_label(p, o)) for p, o in BENCH[1:])
g("rt_s_sf_hi", 1 / slope_of(S, RATE_HI, "mc-sf"))
g("rt_s_b_hi", 1 / bench_hi)
g("rt_s_sf_lo", 1 / slope_of(S, RATE_LO, "mc-sf"))
g("rt_s_b_lo", 1 / bench_lo)
styled(S.rename(columns={"rate": "rate (requests/s)"}), formats={"slope (s per request)": "{:.5f}", "1/slope": "{:.1f}"})

# %% [markdown]
# ```{glue:figure} rt-fig3
# :name: fig-rt-fig3
#
# 001 Figure 3 setting: average latency against the number of requests at $\lambda = 50$/s
# (left) and $10$/s (right); {glue:text}`rt_lmlabel` lengths, $M = 16{,}492$, sizes
# {glue:text}`rt_fig3_sizes`, {glue:text}`rt_fig3_runs` run(s) per point
# ({glue:text}`rt_mode` mode).
# ```
#
# Fitted slopes ({ref}`figure <fig-rt-fig3>`; seconds of average latency per additional request; we print
# 1/slope): at high demand MC-SF 1/{glue:text}`rt_s_sf_hi:.1f` against the best
# benchmark's 1/{glue:text}`rt_s_b_hi:.1f` (paper: about 1/6 against 1/2); at low demand
# 1/{glue:text}`rt_s_sf_lo:.0f` against 1/{glue:text}`rt_s_b_lo:.0f` (paper: 1/800 against
# 1/100). A negative or huge 1/slope means the latency does not grow measurably with
# the number of requests at that load. All {glue:text}`rt_lmlabel`.
#
# ### Table 1: repeated runs at $\lambda = 50$ (the paper: 1,000 requests, 50 runs)

# %% tags=["teach"]
T1_POL = [("mc-sf", {}), ("mc-benchmark", {})] + [("alpha-greedy", {"alpha": a}) for a in (0.25, 0.3)] + [
    ("alpha-beta-clearing", {"alpha": 0.3, "beta": b}) for b in (0.2, 0.5)]
T1 = run_all([{"workload": "lmsys", "n": P["table1_n"], "rate": RATE_HI, "seed": seed + 1000 + k, "policy": p,
               "opts": o} for k in range(P["table1_runs"]) for p, o in T1_POL], "table 1")
T1["name"] = [policy_label(p, o) for p, o in zip(T1["policy"], T1["opts"])]
tab1 = T1.groupby("name", sort=False)["avg_latency"].agg(["mean", "std", "max", "min"])
tab1["unfinished runs"] = T1.groupby("name", sort=False)["completed"].apply(lambda c: int((~c).sum()))
tab1["paper average (001 Table 1)"] = [{"mc-sf": 32.112, "mc-benchmark": 46.472, "alpha-greedy(alpha=0.3)": 51.933}.get(i, "-")
                                       for i in tab1.index]
g("rt_t1_sf", tab1.loc["mc-sf", "mean"])
g("rt_t1_mb", tab1.loc["mc-benchmark", "mean"])
g("rt_t1_a3", tab1.loc["alpha-greedy(alpha=0.3)", "mean"])
g("rt_t1_n", P["table1_n"])
_ours = [tab1.loc[k, "mean"] for k in ("mc-sf", "mc-benchmark", "alpha-greedy(alpha=0.3)")]
_order_ok = bool(_ours[0] < _ours[1] < _ours[2])
g("rt_t1_order", "agrees with the paper's (MC-SF < MC-Benchmark < alpha = 0.3)" if _order_ok
     else "differs from the paper's (MC-SF < MC-Benchmark < alpha = 0.3)")
g("rt_t1_ratio", float(np.mean(np.array(_ours) / np.array([32.112, 46.472, 51.933]))))
g("rt_t1_runs", P["table1_runs"])
styled(tab1.rename(columns={c: f"{c} (s)" for c in ("mean", "std", "max", "min")}).rename_axis("policy").reset_index(),
       formats={"paper average (001 Table 1)": lambda v: v if isinstance(v, str) else f"{v:.3f}"},
       caption=f"{P['table1_runs']} runs of {P['table1_n']} requests, λ = {RATE_HI:g}/s, {LM_LABEL}; statistics over "
               "the runs that finished (a run stopped as an endless clearing loop counts in 'unfinished runs')")

# %% [markdown]
# Over {glue:text}`rt_t1_runs` runs of {glue:text}`rt_t1_n` requests
# ({glue:text}`rt_lmlabel`): MC-SF {glue:text}`rt_t1_sf:.3f` s, MC-Benchmark
# {glue:text}`rt_t1_mb:.3f` s, alpha-protection greedy with $\alpha = 0.3$
# {glue:text}`rt_t1_a3:.3f` s; the paper's: 32.112, 46.472 and 51.933. Our ordering
# {glue:text}`rt_t1_order`; our averages are on average {glue:text}`rt_t1_ratio:.2f`
# times the paper's (see "Disagreements" below).
#
# ### Memory over time and the $\alpha$ and $\beta$ sweeps (001 Figures 6-11)
#
# {ref}`The first figure below <fig-rt-memory>` follows the memory held over one run of four
# policies; {ref}`the second <fig-rt-sweeps>` sweeps the $\alpha$ and $\beta$ of the
# alpha-protection baselines.

# %%
MEM = run_all([{"workload": "lmsys", "n": P["table1_n"], "rate": RATE_HI, "seed": seed, "policy": p, "opts": o,
                "keep_trace": True} for p, o in T1_POL[:3] + T1_POL[-1:]], "memory traces")
fig, axs = plt.subplots(2, 2, figsize=(8, 5.2), sharey=True)
ax = axs.ravel()
for a_, (_, r) in zip(ax, MEM.iterrows()):
    ts, mem = r["trace"]
    a_.plot(ts, mem, lw=0.6)
    a_.axhline(memory, color="k", ls=":", lw=0.8)
    a_.set(title=policy_label(r["policy"], r["opts"]) + ("" if r["completed"] else "\nendless clearing: stopped"),
           xlabel="time (s)")
ax[0].set_ylabel("KV tokens held")
ax[2].set_ylabel("KV tokens held")
fig.tight_layout()
glue_figure("rt-memory", fig)

# %% [markdown]
# ```{glue:figure} rt-memory
# :name: fig-rt-memory
#
# KV tokens held over time for four policies (001 Figures 6-11 setting), $\lambda = 50$/s,
# {glue:text}`rt_table1_n` {glue:text}`rt_lmlabel` requests, one run each; dotted: $M = 16{,}492$
# ({glue:text}`rt_mode` mode).
# ```

# %%
alphas = [0.2, 0.25, 0.3, 0.35, 0.4] if Q else [round(a, 2) for a in np.arange(0.15, 0.501, 0.05)]
betas = [0.1, 0.3, 0.5, 0.7, 1.0] if Q else [0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 1.0]
SW = run_all([{"workload": "lmsys", "n": P["table1_n"], "rate": r, "seed": seed, "policy": p, "opts": {"alpha": a, **({"beta": 0.5} if p == "alpha-beta-clearing" else {})},
               "check": False} for r in P["rates"] for a in alphas for p in ("alpha-greedy", "alpha-beta-clearing")]
             + [{"workload": "lmsys", "n": P["table1_n"], "rate": r, "seed": seed, "policy": "alpha-beta-clearing",
                 "opts": {"alpha": 0.3, "beta": b}, "check": False} for r in P["rates"] for b in betas], "alpha/beta sweeps")
SW["alpha"] = SW.opts.map(lambda o: o["alpha"])
SW["beta"] = SW.opts.map(lambda o: o.get("beta", 1.0))  # alpha-greedy clears every running request (beta = 1)
fig, ax = plt.subplots(1, 2, figsize=(8, 3.4))
for r in P["rates"]:
    for p in ("alpha-greedy", "alpha-beta-clearing"):
        d = SW[(SW.rate == r) & (SW.policy == p) & (SW.alpha.isin(alphas)) & ((SW.beta == 0.5) | (p == "alpha-greedy"))]
        d = d.drop_duplicates("alpha").sort_values("alpha")
        ax[0].plot(d.alpha, d.avg_latency, "o-", label=f"{p}, λ = {r:g}/s")
    d = SW[(SW.rate == r) & (SW.policy == "alpha-beta-clearing") & (SW.alpha == 0.3)].drop_duplicates("beta").sort_values("beta")
    ax[1].plot(d.beta, d.avg_latency, "o-", label=f"α = 0.3, λ = {r:g}/s")
ax[0].set(xlabel="α", ylabel="average latency (s)", title="α sweep")
ax[1].set(xlabel="β", ylabel="average latency (s)", title="β sweep")
for a_ in ax:
    a_.legend(fontsize=6)
fig.tight_layout()
glue_figure("rt-sweeps", fig)

# %% [markdown]
# ```{glue:figure} rt-sweeps
# :name: fig-rt-sweeps
#
# Average latency of the alpha-protection baselines against $\alpha$ (left; $\beta = 0.5$ for
# $\beta$-clearing) and of $\beta$-clearing against $\beta$ (right; $\alpha = 0.3$), one run of
# {glue:text}`rt_table1_n` {glue:text}`rt_lmlabel` requests per point ({glue:text}`rt_mode` mode).
# Missing points are runs stopped as endless clearing loops.
# ```

# %% [markdown]
# ## 002 Section 7: mixed LMSYS-like and arXiv requests at $t = 0$
#
# 80 % {glue:text}`rt_lmlabel` and 20 % arXiv ({glue:text}`rt_ax_label`) requests,
# mixed at random, all present at $t = 0$, $M = 16{,}492$; the paper's experiment has
# 2,000 requests (1,600 + 400). Latency is in seconds; "scheduler time" is the
# policy's own computation (planning at reset plus all decisions), measured on a
# shared 2-core machine (contention from other processes inflates it).
#
# **The figures.** 002 Figure 8 shows the average latency of each scheduler on
# subsamples of 200, 400, ..., 2,000 requests of the mixed data set (002 Section 7), and
# 002 Figure EC.2 (Appendix EC.5) repeats it for Sorted-F and LP-Swap alone, whose curves
# nearly coincide. We redraw Figure 8 (the Sorted-F and LP-Swap numbers of EC.2 are among
# its curves and in the scheduler-time section), then add a view of our own that is not
# a figure of 002: the distribution of the individual latencies at the largest size,
# split by source (LMSYS-like vs arXiv), which shows who pays for each policy's average.
# The scheduler times come last.
#
# **Sorted-LP and LP-Swap at 2,000 requests.** The LP relaxation is time-indexed: one
# start variable per request and round of the horizon (at {glue:text}`rt_002_n:d`
# requests the horizon is {glue:text}`rt_lp_H:d` rounds, i.e. about
# {glue:text}`rt_lp_mvars:.1f` million start variables; at 2,000 requests it is tens of
# millions, far beyond any LP solver here). We therefore solve **our coarse
# approximation** of 002's Relax-LP (`kvlib.policies.wyz_lp`, `formulation="bucket"`): start times on
# a grid of step $D$ and the memory constraint averaged over each $D$-bucket, with $D$
# chosen automatically (`kvlib.policies.wyz_lp.auto_time_step`: about $750 n$ nonzeros, at most 1.5 million); with $D = 1$ it is the exact
# relaxation. The check after the figures measures, at a size where the exact LP is
# solvable, how much this moves the LP order and the resulting TEL.

# %%
from kvlib.policies.wyz_lp import auto_time_step, compare_lp_orders, default_horizon
from kvlib.core.model import Instance

have = set(POLICIES)
P002 = [("fcfs", {}), ("mc-sf", {})]
P002 += [(p, o) for p, o in [("sorted-f", {"selector": "swap"}), ("sorted-f", {"selector": "quantile"})] if p in have]
LP002 = [(p, {}) for p in ("sorted-lp", "lp-swap") if p in have]
pending = [p for p in ("sorted-f", "sorted-lp", "lp-swap", "a-max", "a-min", "h-sf") if p not in have]
if pending:
    print("policies pending (not in kvlib.policies.POLICIES yet):", pending)
nmax2 = max(P["sizes_002"])
specs = [{"workload": "mixed002", "n": n, "seed": seed, "policy": p, "opts": o, "keep_latency": n == nmax2}
         for n in P["sizes_002"] for p, o in P002]
specs += [{"workload": "mixed002", "n": n, "seed": seed, "policy": p, "opts": o, "keep_latency": n == nmax2}
          for n in P["lp_sizes_002"] for p, o in LP002]
specs.sort(key=lambda d: -d["n"])  # the largest (slowest) runs first, so the two workers finish together
M2 = run_all(specs, "002 mixed")
M2["name"] = [policy_label(p, o) for p, o in zip(M2["policy"], M2["opts"])]
M2["scheduler_s"] = M2["reset_s"] + M2["decision_s"]
M2 = M2.sort_values(["name", "n"], kind="stable")
assert M2["valid"].all()
ORDER2 = [c for c in (policy_label(p, o) for p, o in P002 + LP002) if c in set(M2.name)]
fig, ax = plt.subplots(figsize=(6, 3.6))
for nm in ORDER2:
    d = M2[M2.name == nm]
    ax.plot(d.n, d.avg_latency, "o-", label=nm)
ax.set(xlabel="number of requests", ylabel="average latency (s)")
ax.legend(fontsize=7)
fig.tight_layout()
glue_figure("rt-002-fig8", fig)
T2 = M2.pivot_table(index="n", columns="name", values="avg_latency")[ORDER2]
g("rt_002_n", nmax2)
g("rt_002_sf", T2.loc[nmax2, "mc-sf"])
g("rt_002_fcfs", T2.loc[nmax2, "fcfs"])
g("rt_002_sorted", T2.loc[nmax2, "sorted-f(selector=swap)"] if "sorted-f(selector=swap)" in T2 else float("nan"))
g("rt_002_quant", T2.loc[nmax2, "sorted-f(selector=quantile)"] if "sorted-f(selector=quantile)" in T2 else float("nan"))
g("rt_002_quant_ratio", T2.loc[nmax2, "sorted-f(selector=quantile)"] / T2.loc[nmax2, "sorted-f(selector=swap)"]
  if {"sorted-f(selector=quantile)", "sorted-f(selector=swap)"} <= set(T2) else float("nan"))
styled(T2.reset_index(), precision=2, caption="average latency (s)")

# %% [markdown]
# ```{glue:figure} rt-002-fig8
# :name: fig-rt-002-fig8
#
# 002 Figure 8 (our reading): average latency against the number of requests, mixed workload
# (80 % {glue:text}`rt_lmlabel`, 20 % arXiv) all at $t = 0$, $M = 16{,}492$, sizes
# {glue:text}`rt_sizes_002` ({glue:text}`rt_mode` mode).
# ```
#
# *002 Figure 8, our reading* ({ref}`figure <fig-rt-002-fig8>`; average latency in seconds against the number of
# requests, {glue:text}`rt_lmlabel` + arXiv). At {glue:text}`rt_002_n:d` requests: FCFS (with the
# test (5); the same policy as MC-Benchmark, 001 Algorithm 2) {glue:text}`rt_002_fcfs:.1f` s, MC-SF
# {glue:text}`rt_002_sf:.1f` s, Sorted-F (swap: Phase 1 by 002 Algorithm 4)
# {glue:text}`rt_002_sorted:.1f` s, Sorted-F (quantile: 002 Algorithm 5)
# {glue:text}`rt_002_quant:.1f` s, i.e. {glue:text}`rt_002_quant_ratio:.2f` times Sorted-F (swap);
# Sorted-LP (002 Algorithm 6) and LP-Swap (Algorithm 7) below. Both selectors run as 002 writes
# them; Algorithm 5 fixes its thresholds at the 0.3-quantiles of a half sample and fills by
# $o / (s + o)$, so its batches need not minimise $F$.

# %%
big = M2[M2.n == nmax2].set_index("name").loc[[c for c in ORDER2 if c in set(M2[M2.n == nmax2].name)]]
fig, ax = plt.subplots(1, 2, figsize=(8, 3.6), sharey=True)
for j, src in enumerate(("LMSYS-like", "arXiv")):
    for nm, r in big.iterrows():
        lat = np.sort(r["latency_s"][r["source"] == src])
        ax[j].plot(lat, np.arange(1, len(lat) + 1) / len(lat), label=f"{nm} (mean {lat.mean():.0f} s)")
    ax[j].set(xlabel="latency (s)", title=f"{src} requests ({int((big.iloc[0]['source'] == src).sum())} of {nmax2})")
    ax[j].legend(fontsize=6)
ax[0].set_ylabel("fraction of requests")
fig.tight_layout()
glue_figure("rt-002-ec2", fig)
EC2 = pd.DataFrame({nm: {f"{src} {stat}": float(f(r["latency_s"][r["source"] == src]))
                         for src in ("LMSYS-like", "arXiv")
                         for stat, f in (("mean", np.mean), ("median", np.median), ("p90", lambda v: np.quantile(v, 0.9)))}
                    for nm, r in big.iterrows()}).T
EC2["scheduler time (s)"] = big["scheduler_s"]
g("rt_ec2_sf_ax", EC2.loc["mc-sf", "arXiv mean"])
g("rt_ec2_sf_lm", EC2.loc["mc-sf", "LMSYS-like mean"])
g("rt_ec2_fcfs_lm", EC2.loc["fcfs", "LMSYS-like mean"])
g("rt_ec2_fcfs_ax", EC2.loc["fcfs", "arXiv mean"])
styled(EC2.rename(columns=lambda c: c if c.endswith("(s)") else f"{c} (s)").rename_axis("policy").reset_index(),
       precision=2, caption="per-request latency")

# %% [markdown]
# ```{glue:figure} rt-002-ec2
# :name: fig-rt-002-ec2
#
# Per-request latency (our view of 002 Figure 8's experiment): distribution at
# {glue:text}`rt_002_n:d` requests, LMSYS-like (left) and arXiv (right) requests of the mixed
# workload, all at $t = 0$ ({glue:text}`rt_mode` mode).
# ```
#
# *Per-request latencies* ({ref}`figure <fig-rt-002-ec2>`). At {glue:text}`rt_002_n:d` requests the arXiv
# requests (long prompts) wait {glue:text}`rt_ec2_sf_ax:.0f` s on average under MC-SF
# against {glue:text}`rt_ec2_sf_lm:.0f` s for the LMSYS-like ones; under FCFS the two
# groups wait {glue:text}`rt_ec2_fcfs_lm:.0f` s and {glue:text}`rt_ec2_fcfs_ax:.0f` s.
#
# ### Scheduler computation time and the LP

# %%
fig, ax = plt.subplots(figsize=(6, 3.4))
for nm in ORDER2:
    d = M2[M2.name == nm]
    ax.plot(d.n, d.scheduler_s, "o-", label=nm)
ax.set(xlabel="number of requests", ylabel="scheduler time (s)", yscale="log")
ax.legend(fontsize=7)
fig.tight_layout()
glue_figure("rt-002-sched", fig)
TS = M2.pivot_table(index="n", columns="name", values="scheduler_s")[ORDER2]
_w = build_workload({"workload": "mixed002", "n": nmax2, "seed": seed, "shared_dir": str(SHARED) if SHARED else None,
                     "user_csv": user_csv})
_H = default_horizon(np.zeros(nmax2, dtype=np.int64), _w.prompt, _w.output, memory)
STEP_MAX = auto_time_step(np.zeros(nmax2, dtype=np.int64), _w.output, _H)
NLP = max(P["lp_sizes_002"])
g("rt_lp_H", int(_H))
g("rt_lp_mvars", float(nmax2 * _H - _w.output.sum()) / 1e6)
g("rt_lp_step", int(STEP_MAX))
g("rt_lp_nmax", int(NLP))
for key, nm in (("slp", "sorted-lp"), ("lps", "lp-swap"), ("sfs", "sorted-f(selector=swap)")):
    g(f"rt_002_t_{key}", TS.loc[NLP, nm] if nm in TS else float("nan"))
    g(f"rt_002_{key}", T2.loc[NLP, nm] if nm in T2 else float("nan"))
styled(TS.reset_index(), precision=2, caption="scheduler time (s)")

# %% [markdown]
# ```{glue:figure} rt-002-sched
# :name: fig-rt-002-sched
#
# The schedulers' own computation time (planning at reset plus all decisions, log scale) in
# the 002 Section 7 setting, measured on a shared 2-core machine ({glue:text}`rt_mode` mode).
# ```
#
# At {glue:text}`rt_lp_nmax:d` requests ({ref}`figure <fig-rt-002-sched>`) Sorted-LP reaches an average latency of
# {glue:text}`rt_002_slp:.1f` s and LP-Swap {glue:text}`rt_002_lps:.1f` s (Sorted-F (swap):
# {glue:text}`rt_002_sfs:.1f` s). Their scheduler times, {glue:text}`rt_002_t_slp:.1f` s and
# {glue:text}`rt_002_t_lps:.1f` s (Sorted-F (swap): {glue:text}`rt_002_t_sfs:.1f` s), are
# dominated by the LP (HiGHS interior point without crossover, one thread); at
# {glue:text}`rt_002_n:d` requests the horizon is {glue:text}`rt_lp_H:d` rounds and the
# grid step $D =$ {glue:text}`rt_lp_step:d` rounds. `python benchmarks/lp_scaling.py`
# prints the LP time against $n$ (with `--before`, also the former implementation's).
#
# **How much does the bucket approximation change?** On a {glue:text}`rt_lpx_n:d`-request
# instance of the same workload the exact relaxation ($D = 1$, per-time memory rows,
# solved in {glue:text}`rt_lpx_exact_s:.1f` s) is compared with the bucket model at the
# automatic step and at coarser steps up to the one used at {glue:text}`rt_002_n:d`
# requests (TEL in rounds, discrete-time simulation, every schedule checked):

# %%
_wx = build_workload({"workload": "mixed002", "n": P["lp_exact_n"], "seed": seed,
                      "shared_dir": str(SHARED) if SHARED else None, "user_csv": user_csv})
LPX = pd.DataFrame(compare_lp_orders(
    Instance.from_arrays(np.zeros(_wx.n, dtype=np.int64), _wx.prompt, _wx.output, memory),
    steps=[None] + sorted({25, 50, 100, int(STEP_MAX)})))
g("rt_lpx_n", int(P["lp_exact_n"]))
g("rt_lpx_H", int(LPX.horizon.iloc[0]))
g("rt_lpx_exact_s", float(LPX.exact_seconds.iloc[0]))
g("rt_lpx_tau_min", float(LPX.kendall_tau.min()))
g("rt_lpx_dslp_max", 100 * float(LPX.tel_change_sorted_lp.abs().max()))
g("rt_lpx_dlps_max", 100 * float(LPX.tel_change_lp_swap.abs().max()))
g("rt_lpx_dslp_big", 100 * float(LPX.loc[LPX.step == STEP_MAX, "tel_change_sorted_lp"].iloc[0]))
g("rt_lpx_dlps_big", 100 * float(LPX.loc[LPX.step == STEP_MAX, "tel_change_lp_swap"].iloc[0]))
_lpx = LPX.rename(columns={
    "step": "step D (rounds)", "approx_seconds": "approximate LP (s)", "exact_value": "exact LP value",
    "approx_value": "approximate LP value", "kendall_tau": "Kendall tau", "max_rank_shift": "max rank shift",
    "exact_tel_sorted_lp": "Sorted-LP TEL, exact LP", "approx_tel_sorted_lp": "Sorted-LP TEL, approx.",
    "tel_change_sorted_lp": "Sorted-LP TEL change", "exact_tel_lp_swap": "LP-Swap TEL, exact LP",
    "approx_tel_lp_swap": "LP-Swap TEL, approx.", "tel_change_lp_swap": "LP-Swap TEL change"})
display(styled(_lpx[["step D (rounds)", "approximate LP (s)", "exact LP value", "approximate LP value", "Kendall tau",
                     "max rank shift"]], precision=4,
               caption=f"the LP: {_wx.n} requests ({_wx.label}), horizon {LPX.horizon.iloc[0]} rounds"))
display(styled(_lpx[["step D (rounds)", "Sorted-LP TEL, exact LP", "Sorted-LP TEL, approx.", "Sorted-LP TEL change",
                     "LP-Swap TEL, exact LP", "LP-Swap TEL, approx.", "LP-Swap TEL change"]], precision=4,
               caption="the schedules (TEL in rounds)"))

# %% [markdown]
# Over these steps Kendall's $\tau$ between the exact and the approximate LP orders is at
# least {glue:text}`rt_lpx_tau_min:.3f`; the TEL of Sorted-LP moves by at most
# {glue:text}`rt_lpx_dslp_max:.2f` % and that of LP-Swap by at most
# {glue:text}`rt_lpx_dlps_max:.2f` % (at the step used for {glue:text}`rt_002_n:d`
# requests: {glue:text}`rt_lpx_dslp_big:.2f` % and {glue:text}`rt_lpx_dlps_big:.2f` %).
# The check is on a small instance (horizon {glue:text}`rt_lpx_H:d` rounds; the exact LP
# is out of reach beyond about 100 requests here), so that the step used at 2,000
# requests is equally harmless there is an extrapolation, not a measurement.
#
# ## 003 Section 6: interval predictions

# %% tags=["teach"]
P003 = [p for p in ("a-max", "a-min", "h-sf") if p in have]
PREDS = ["wide", "buckets", 0.1, 0.95, 0.99]
M3 = run_all([{"workload": "lmsys", "n": n, "rate": None, "seed": seed, "policy": p, "pred": pr}
              for pr in PREDS for n in P["sizes_003"] for p in P003], "003 intervals")
assert M3["valid"].all()
M3["pred"] = M3["pred"].map(lambda x: {"wide": "[1,1000]", "buckets": "10 buckets"}.get(x, f"x={x}"))
fig, axs = plt.subplots(3, 2, figsize=(8, 8))
ax = axs.ravel()
ax[-1].axis("off")
for a_, (pr, d) in zip(ax, M3.groupby("pred", sort=False)):
    for p, e in d.groupby("policy"):
        a_.plot(e.n, e.avg_latency, "o-", label=p)
    a_.set(title=f"prediction {pr}", xlabel="requests", ylabel="average latency (s)")
ax[0].legend(fontsize=7)
fig.tight_layout()
glue_figure("rt-003", fig)
T3 = M3.pivot_table(index=["pred", "n"], columns="policy", values="avg_latency")
n3 = max(P["sizes_003"])
if {"a-max", "a-min", "h-sf"} <= set(P003):
    g("rt_003_n", n3)
    for pr_key, pr_name in (("wide", "[1,1000]"), ("x01", "x=0.1"), ("x099", "x=0.99")):
        for pol in ("a-max", "a-min", "h-sf"):
            g(f"rt_003_{pr_key}_{pol.replace('-', '')}", T3.loc[(pr_name, n3), pol])
    _better = [pr for pr in T3.index.get_level_values(0).unique() if T3.loc[(pr, n3), "a-min"] < T3.loc[(pr, n3), "a-max"]]
    g("rt_003_amin_better", ", ".join(_better) if _better else "none")
styled(T3.reset_index(), precision=2, caption="average latency (s)")

# %% [markdown]
# ```{glue:figure} rt-003
# :name: fig-rt-003
#
# 003 Figures 5-7 setting: average latency of A_max, A_min and H-SF against the number of
# requests (sizes {glue:text}`rt_sizes_003`, {glue:text}`rt_lmlabel`, all at $t = 0$) for each
# interval prediction ({glue:text}`rt_mode` mode).
# ```
#
# At {glue:text}`rt_003_n` requests ({glue:text}`rt_lmlabel`; {ref}`figure <fig-rt-003>`): with the uninformative
# prediction $[1, 1000]$, A_max {glue:text}`rt_003_wide_amax:.1f` s, A_min
# {glue:text}`rt_003_wide_amin:.1f` s, H-SF {glue:text}`rt_003_wide_hsf:.1f` s; with
# $x = 0.1$: {glue:text}`rt_003_x01_amax:.1f`, {glue:text}`rt_003_x01_amin:.1f`,
# {glue:text}`rt_003_x01_hsf:.1f` s; with $x = 0.99$: {glue:text}`rt_003_x099_amax:.1f`,
# {glue:text}`rt_003_x099_amin:.1f`, {glue:text}`rt_003_x099_hsf:.1f` s. A_min beats
# A_max at this size for the predictions: {glue:text}`rt_003_amin_better`.
#
# ## Beyond the papers: the Splitwise production trace with real arrival times
#
# The first requests of {glue:text}`rt_sw_label` keep their real arrival pattern,
# rescaled to several mean rates. With prompts of about 1,150 tokens, far fewer
# requests fit in $M$ than with LMSYS-like lengths, so the sustainable rate is around
# one request per second. MC-Benchmark (001 Algorithm 2) is also the FCFS baseline here: `fcfs`
# names the same policy.

# %%
SWP = [("mc-sf", {}), ("mc-benchmark", {}), ("alpha-greedy", {"alpha": A_USE})]  # fcfs is mc-benchmark
SP = run_all([{"workload": "splitwise", "n": P["splitwise_n"], "rate": r, "seed": seed, "policy": p, "opts": o}
              for r in P["splitwise_rates"] for p, o in SWP], "splitwise")
SP["name"] = [policy_label(p, o) for p, o in zip(SP["policy"], SP["opts"])]
assert SP["valid"].dropna().all()
styled(SP.pivot_table(index="rate", columns="name", values="avg_latency").reset_index()
       .rename(columns={"rate": "rate (requests/s)"}), precision=2,
       caption=f"average latency (s), first {P['splitwise_n']} requests of {WL.loc[2, 'label']}")

# %% [markdown]
# ## Every policy on one workload
#
# One table: all policies of the four papers available in `kvlib` on the same instance,
# the mixed workload of 002 (80 % {glue:text}`rt_lmlabel`, 20 % arXiv), all requests
# at $t = 0$ (the only setting in which the offline 002 planners apply; with
# LMSYS-like lengths alone a few hundred requests fit in $M$ at once and every policy
# coincides); the 003 policies receive intervals $[(1-x)o, (1+x)o]$ with $x = 0.5$
# (H-SF knows $o$). FCFS with the test (5) is MC-Benchmark (001 Algorithm 2) and has one row.

# %%
nC = 200 if Q else 400
ALL = [("mc-sf", {}, None), ("mc-benchmark", {}, None), ("mc-sf2", {}, None),
       ("alpha-greedy", {"alpha": A_USE}, None), ("alpha-beta-clearing", {"alpha": A_USE, "beta": 0.5}, None)]
ALL += [(p, o, None) for p, o in P002[2:] + LP002]
ALL += [(p, {}, 0.5) for p in P003]
C = run_all([{"workload": "mixed002", "n": nC, "rate": None, "seed": seed, "policy": p, "opts": o, "pred": pr}
             for p, o, pr in ALL], "all policies")
C["name"] = [policy_label(p, o) for p, o in zip(C["policy"], C["opts"])]
C["scheduler_s"] = C["reset_s"] + C["decision_s"]
styled(C[["name", "pred", "completed", "valid", "avg_latency", "makespan", "evictions", "scheduler_s"]]
       .sort_values("avg_latency").rename(columns={"name": "policy", "pred": "x", "avg_latency": "avg latency (s)",
                                                   "makespan": "makespan (s)", "scheduler_s": "sched. time (s)"}),
       caption=f"{nC} requests, mixed 002 workload ({LM_LABEL} + arXiv), all at t = 0, M = {memory:,} tokens")

# %% [markdown]
# ## Disagreements with the papers
#
# The full-mode numbers are recorded in {ref}`errata-001-real-data`.
#
# * **Absolute latencies.** Our Table 1 latencies are {glue:text}`rt_t1_ratio:.2f` times
#   the paper's on average (in quick mode also with half the requests). The inputs differ in two
#   ways we cannot remove: the LMSYS lengths are synthetic (matched only in range,
#   mean, median and variance), and our batch-time model is a stand-in for Vidur's
#   predictor (fitted to the same operator profiles but with a derived attention term
#   and no CPU/scheduling overheads).
# * **The alpha threshold** depends on the same two inputs and on our definition of an
#   endless clearing loop (a round budget), so it is compared with the paper's only as
#   an order of magnitude.
# * **Figure 3 slopes** at low demand: when the system keeps up with the arrivals the
#   average latency barely grows with the number of requests, and the fitted slope is
#   dominated by noise (the paper's 1/800 and 1/100 are small slopes too).
#
# ## Timings

# %%
ELAPSED = _time.perf_counter() - _T0
g("rt_elapsed", ELAPSED)

# %% [markdown]
# This run ({glue:text}`rt_mode` mode) took {glue:text}`rt_elapsed:.0f` s. Throughput of
# the simulator alone: `python benchmarks/realtime_throughput.py` (MC-SF, 10,000
# requests, $M = 16{,}492$).
#
# ## What was verified / what was not
#
# *Verified:* the three LP models of `kvlib.policies.wyz_lp` coincide at time step 1 (tests), and the
# bucket approximation's effect on the LP order and TEL was measured against the exact LP
# above; every schedule behind every number above (except runs declared endless
# and the sweeps marked unchecked for speed) passed the independent checker at round
# level (memory $\le M$ at every round, non-preemption or valid cancellations);
# the batch-time model's refit from the CSVs equals the embedded coefficients; the
# LMSYS-like mixture reproduces the published mean, median and variance; the traces'
# SHA-256 are printed above.
#
# *Not verified:* that the bucket approximation of the LP behind Sorted-LP and LP-Swap
# changes their orders as little at {glue:text}`rt_002_n:d` requests as on the
# {glue:text}`rt_lpx_n:d`-request instance where it was compared with the exact LP; that our batch-time model matches Vidur's predictor (Vidur's
# attention profile and its regression are not available); that the synthetic
# LMSYS-like lengths behave like the real ones beyond the four published statistics
# (a reader with the data can pass `user_csv`); quick mode runs far fewer and smaller
# instances than the papers.
