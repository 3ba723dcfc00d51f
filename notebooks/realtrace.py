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
# :::{admonition} Findings
# :class: kvbook-findings
# - **001 Section 5.2, smallest loop-free α** (the smallest α for which
#   {term}`α-protection <alpha-beta clearing>` avoids endless clearing loops, the paper's 0.21 at high and
#   0.24 at low demand): **{glue:text}`rt_alpha_status`**; ours {glue:text}`rt_alpha_spread_hi` and
#   {glue:text}`rt_alpha_spread_lo` over the seeds ({ref}`α grid <sec-rt-alpha>`,
#   {ref}`errata <errata-001-real-data>`).
# - **001 Table 1** (the paper's {term}`MC-SF` (Memory-Constrained Shortest-First)
#   {glue:text}`rt_paper_t1_sf:.3f` s, {term}`MC-Benchmark` {glue:text}`rt_paper_t1_mb:.3f` s and
#   Benchmark $\alpha = 0.3$ {glue:text}`rt_paper_t1_a3:.3f` s): **not reproduced**; ours
#   {glue:text}`rt_t1_sf:.2f` s, {glue:text}`rt_t1_mb:.2f` s and {glue:text}`rt_t1_a3:.2f` s,
#   {glue:text}`rt_t1_order_short`, at {glue:text}`rt_t1_ratio:.2f` times the paper's level
#   ({ref}`Table 1 <sec-rt-table1>`, {ref}`errata <errata-001-real-data>`).
# - **001 Figure 3** (latency slope 1/6 for MC-SF against 1/2 for the best benchmark at high
#   demand): **not reproduced**; ours 1/{glue:text}`rt_s_sf_hi:.1f` against
#   1/{glue:text}`rt_s_b_hi:.1f` ({ref}`Figure 3 <sec-rt-fig3>`).
# - **001 Figures 6-11** (MC-SF's memory near the capacity {term}`M` of the {term}`KV cache`;
#   recommended α and β ranges): **not reproduced**; MC-SF stays within M but holds
#   {glue:text}`rt_mem_lo_mean:.0f` % of it at low demand, and our minimisers lie in 001's ranges in {glue:text}`rt_sv_inside:d` of
#   {glue:text}`rt_sv_total:d` sweeps ({ref}`memory <sec-rt-memory>`, {ref}`sweeps <sec-rt-sweeps>`).
# - **002 Relax-LP, eqs. (8)-(11)** (the linear program, {term}`LP`, of Sorted-LP and LP-Swap):
#   **reproduced**; its coarse time grid moves Sorted-LP's total end-to-end latency ({term}`TEL`)
#   by at most {glue:text}`rt_lpx_dslp_max:.2f` % ({ref}`LP check <sec-rt-lp>`).
# - **003 Algorithm 5** (multi-interval $\mathcal{A}_{\min}$ ({term}`see the glossary <A-min>`)): **reproduced**.
# - **003 Section 6, Experiment 1** (interval [1, 1000]: $\mathcal{A}_{\min}$ nearly identical to H-SF):
#   **not reproduced**: $\mathcal{A}_{\min}$ beats $\mathcal{A}_{\max}$ ({term}`see the glossary <A-max>`), as 003
#   reports, but takes {glue:text}`rt_003_wide_ratio:.2f` times H-SF's latency at {glue:text}`rt_003_n` requests
#   (verdicts on all three GPUs in {numref}`tbl-rt-gpu-verdict`); the curves of 003 Figures 5-7 are not
#   compared ({ref}`003 <sec-rt-003>`).
# - **001 Figure 5, 003 Figure 4** (LMSYS lengths) and **004 Section 7**: **not checked** (the
#   papers' random samples of conversations are not available; the book runs 001's version); our mean prompt is
#   {glue:text}`rt_len_prompt_mean:.1f` tokens, 003's 41 ({ref}`workloads <sec-rt-workloads>`).
# - **The hardware** (the papers ran on two NVIDIA {term}`A100 <A100, H100, H200>` graphics processing
#   units, {term}`GPU`s; the claims below re-run on A100, H100 and H200): **{glue:text}`rt_gpu_status`**:
#   of the {glue:text}`rt_gpu_cells:d` verdicts, {glue:text}`rt_gpu_held:d` hold or match
#   ({ref}`three GPUs <sec-rt-gpus>`).
# - **Real conversations** (001 Table 1 and its α thresholds, 002's mixed workload, 003 Experiment 1 re-run on
#   {term}`ShareGPT V3`, {glue:text}`rt_sg_label`): **{glue:text}`rt_sg_status`**: of
#   {glue:text}`rt_sg_cells:d` verdicts on the three GPUs, {glue:text}`rt_sg_held:d` hold or match
#   ({ref}`ShareGPT V3 <sec-rt-sharegpt>`).
# :::
#
# ::::{dropdown} Every claim on each GPU: the verdicts
# :::{glue:figure} rt-tab-gpu-verdict
# :name: tbl-rt-gpu-verdict
# :figclass: kvbook-table
#
# Do the papers' real-data claims survive a change of GPU? Each claim re-run with the measured
# batch-time model of each GPU at the papers' arrival rates ("same rate") and at equal utilisation
# ("same load"; 002 and 003 start every request at $t = 0$, where the two coincide). In the Splitwise rows a
# difference under 0.1 % counts as a tie (at light load no queue forms). Numbers:
# {numref}`tbl-rt-gpu-numbers` ({ref}`how <sec-rt-gpus>`; {download}`CSV </chapters/tables/realtrace-gpu-verdicts.csv>`).
# :::
# ::::
#
# *Reading guide.* The chapter re-runs the papers' real-data experiments in a continuous-time
# simulator. A hurried reader reads {ref}`001 Section 5.2 <sec-rt-001>` and
# {ref}`the disagreements <sec-rt-disagree>`, and skips the batch-time model and the workloads.
#
# The experiments are those of Jaillet et al.
# {cite}`jaillet2025online` (001 Section 5.2), Wang-Ye-Zhou {cite}`wang2025serving`
# (002 Section 7) and Chen-Ye-Zhou {cite}`chen2025adaptively` (003 Section 6), run in a
# **continuous-time** simulator: each scheduling round is one batch of the large language model (LLM)
# Llama-2-70B on two A100 GPUs, and the batch lasts as long as a batch-time model fitted to the
# profiling data of {term}`Vidur` (an LLM inference simulator) {cite}`agrawal2024vidur` says. The
# workloads are LMSYS-like {cite}`zheng2024lmsys`, arXiv summarization {cite}`cohan2018discourse`
# and the Splitwise conversation trace {cite}`patel2024splitwise`.
# **Labels.** Every result computed from our length generator is marked **synthetic (LMSYS-like)**;
# results on the arXiv and Splitwise files name the file (checksums folded below).
#
# ::::{dropdown} Data files, their checksums and the labels
# LMSYS-Chat-1M is public (behind an access agreement), but the random samples of it that the papers
# used are not available, and the book does not download the data set. The files are the public
# traces and profiles of the Vidur repository's `data/` folder and two kernel-timing files measured on
# H100 and H200 (the shared data directory beside the repository; its README says where each comes
# from). The paper-scale rows were computed from them and record their checksums, so reading them
# needs no data; only regenerating or re-verifying them does. In quick mode without the data, the
# chapter runs on embedded synthetic stand-ins and says so.
#
# :::{glue:figure} rt-tab-files
# :name: tbl-rt-files
# :figclass: kvbook-table
#
# The data files the chapter reads: the three traces, Vidur's A100 and H100 profiles and the H100 and
# H200 kernel timings, with the first {glue:text}`rt_sha_digits:d` hex digits of each SHA-256 checksum (full checksums:
# {download}`CSV </chapters/tables/realtrace-files.csv>`); in full mode the checksums recorded when the
# stored rows were computed from the files, which need not be present when the page is built.
# :::
# ::::
#
# ::::{dropdown} The plan: every stored table and its keys
# All simulations of this chapter, one {term}`stored table` per experiment, are built in order of
# priority (the tables of 001 Table 1 and Figure 3 first) and shown in the sections below.
# MC-SF, MC-Benchmark and the six benchmark configurations of 001 Section 5.2 are listed
# under the paper's names.
#
# Every simulation is one row of a stored table: one (configuration, rate, number of requests,
# seed) run of the chapter's row function, with the number of requests, a hash of the
# instance and the average latency as columns that a recomputation must reproduce exactly, and
# the scheduler's and simulator's seconds as timings. Each caption states how many rows it rests
# on and where they were computed; the keys are ordered so that an incomplete table holds every
# configuration at {glue:text}`rt_t1_rate:g` requests per second first.
#
# :::{glue:figure} rt-tab-plan
# :name: tbl-rt-plan
# :figclass: kvbook-table
#
# The stored tables of this chapter: rows planned, rows stored or computed, and where they come from.
# :::
# ::::

# %% tags=["parameters"]
mode = "quick"  # "quick": reduced sizes and run counts for CI; "full": the papers' scale
seed = 0  # base random seed of the workloads and arrival times
shared_dir = "../shared/data"  # directory of the traces and Vidur's profiles (absent: embedded stand-ins)
user_csv = None  # a CSV with columns prompt,output (e.g. the real LMSYS lengths) replacing the generator
n_jobs = 2  # parallel worker processes for rows computed live
backend = "loky"  # joblib backend of the workers
memory = 16492  # KV cache capacity M in tokens (001 Section 5.2)
rates = None  # Poisson rates (per second) of 001 Sec. 5.2: [high, low]; None: [50, 10]
fig3_sizes = None  # numbers of requests of 001 Figure 3; None: the mode's default
fig3_runs = None  # runs per point of 001 Figure 3; None: the mode's default
table1_n = None  # requests per run of 001 Table 1; None: the mode's default
table1_runs = None  # runs per configuration of 001 Table 1; None: the mode's default
alpha_grid = None  # grid of alpha for the smallest loop-free alpha; None: the mode's default
alpha_grid_n = None  # requests per run of the alpha grid; None: the mode's default
alpha_grid_seeds = None  # seeds per grid point; None: the mode's default
sweep_n = None  # requests per run of the alpha and beta sweeps (001 Figures 7-8, 10-11); None: default
sweep_seeds = None  # seeds per sweep point; None: the mode's default
sweep_alphas = None  # alpha values of the alpha sweeps; None: the mode's default
sweep_betas = None  # beta values of the beta sweeps; None: the mode's default
sizes_002 = None  # numbers of requests of 002 Figure 8 (non-LP schedulers); None: the mode's default
lp_sizes_002 = None  # numbers of requests for Sorted-LP and LP-Swap; None: the mode's default
lp_exact_n = None  # size of the exact-vs-approximate LP check; None: the mode's default
sizes_003 = None  # numbers of requests of 003 Figures 5-7; None: the mode's default
splitwise_rates = None  # mean arrival rates (per second) of the Splitwise runs; None: [0.25, 0.5, 1, 2]
splitwise_n = None  # requests of the Splitwise trace per run; None: the mode's default
gpus = None  # GPUs of the hardware comparison ("a100", "h100", "h200"); None: all three
gpu_runs = None  # runs per configuration of 001 Table 1 on H100 and H200; None: the mode's default
gpu_sizes = None  # numbers of requests of the 002 and 003 runs on each GPU; None: the mode's default
code_rates = None  # mean arrival rates (per second) of the Splitwise code-trace runs; None: [0.25, 0.5, 1]
sg_table1_runs = None  # runs per configuration of 001 Table 1 on ShareGPT V3, per GPU; None: the mode's default
sg_alpha_grid = None  # grid of alpha on ShareGPT V3 (its threshold lies higher); None: the mode's default

# %%
import functools
import os
import time as _time

_T0 = _time.perf_counter()
from pathlib import Path

import numpy as np
import pandas as pd
from myst_nb import glue

from kvlib.serving.batchtime import EMBEDDED, fit_from_csv
from kvlib.serving.gpus import model_for, reference_round_ms
from kvlib.serving.measured import EMBEDDED as MEASURED
from kvlib.policies import POLICIES
from kvlib.serving.experiments import build_workload, policy_label, smallest_stable_alpha
from kvlib.serving.workloads import SYNTHETIC_LABEL, lmsys_fit_table, resolve_shared_dir
from kvlib.book.chapters.realtrace import data as RD
from kvlib.book.chapters.realtrace import figures as RF
from kvlib.book.chapters.realtrace import gpus as RG
from kvlib.book.chapters.realtrace import plan as RP
from kvlib.book.chapters.realtrace import prose as RX
from kvlib.book.chapters.realtrace import values as RR
from kvlib.book.gluing import glue_all, glue_figure
from kvlib.book.gluing import glue_value as g
from kvlib.book.chapters.realtrace.rows import capacity_row
from kvlib.book.chapters.realtrace.page import (coefficient_table, data_files_display, fit_mixture_table, fit_statistics_table,
                                       policy_display, provenance_table)
from kvlib.book.store import Store
from kvlib.book.sweeps import run_specs
from kvlib.book.tables import offer_csv, styled

if mode not in ("quick", "full"):
    raise ValueError(f"mode must be 'quick' or 'full', got {mode!r}")
Q = mode == "quick"
DEFAULTS = RP.defaults(Q)
P = {k: (globals()[k] if globals()[k] is not None else v) for k, v in DEFAULTS.items()}
RATE_HI, RATE_LO = P["rates"]
SHARED = resolve_shared_dir(shared_dir)
print(f"This chapter was produced in {mode!r} mode with seed {seed}"
      + (" (QUICK: reduced sizes and run counts, not the papers' scale)." if Q else " (the papers' scale)."))
# Full mode reads its rows (and the data files' checksums) from the results store, which needs no data: the
# keys name the shared data (data = "shared") whether or not it is present here.  Quick mode computes
# everything live from what is here (data = "embedded": synthetic stand-ins where the files are absent).
DATA = "shared" if (SHARED or not Q) else "embedded"
print(RP.data_note(SHARED, Q, user_csv))
LM_LABEL = f"user CSV {Path(user_csv).name}" if user_csv else SYNTHETIC_LABEL
glue_all(RP.parameter_values(mode, LM_LABEL, P))
glue_all(RX.setting_values())  # the settings and constants the prose restates
glue_all(RX.paper_table1_values())  # 001 Table 1's averages (the paper's), for the findings

# The simulations behind the tables and figures below are rows of stored tables (kvlib.book.store):
# one row = one (configuration, rate, size, seed) run of kvlib.book.chapters.realtrace.rows.realtrace_row.
if SHARED:
    os.environ["KVBOOK_SHARED_DIR"] = str(SHARED)  # the rows (and their worker processes) read the same files
store = Store("realtrace", mode=mode, parameters={k: globals()[k] for k in ("seed", *DEFAULTS)})
LMK = {"workload": "lmsys", "memory": memory, **({"user_csv": user_csv} if user_csv else {})}
DATAK = {"memory": memory, "data": DATA, **({"user_csv": user_csv} if user_csv else {})}

# the data files; in full mode the checksums recorded when the stored rows were computed
FILES = RP.data_files_frame(store, SHARED, Q, user_csv)
offer_csv(FILES, "realtrace", "files")  # the full SHA-256 checksums
glue("rt-tab-files", styled(data_files_display(FILES)), display=False)

# MC-SF, MC-Benchmark and the six benchmark configurations of 001 Section 5.2, named as the paper does
ORDER1 = RP.paper_configs()[1]  # the configurations' names
POL = RP.policy_sets(set(POLICIES))
if POL.pending:
    print("policies pending (not in kvlib.policies.POLICIES yet):", POL.pending)
grid, nG = P["alpha_grid"], P["alpha_grid_n"]
SA, SB = P["sweep_alphas"], P["sweep_betas"]
nC = 200 if Q else 400  # requests of the table of every policy
KEYS = RP.experiment_keys(P, seed, LMK, DATAK, POL, nC)
# The hardware comparison: each GPU's capacity per workload first (the same-utilisation rates derive from it)
GPUS_ = list(dict.fromkeys(P["gpus"]))
OTHER = [h for h in GPUS_ if h != "a100"]
CAP_KEYS = RP.capacity_keys(P, seed, LMK, DATAK)
tab_cap = store.table("gpu_capacity", capacity_row, CAP_KEYS, jobs=n_jobs)
CAP = tab_cap.frame
rates_on = functools.partial(RP.comparison_rates, CAP)  # (comparison, rate) pairs of a workload on a GPU
KEYS.update(RP.gpu_keys(P, seed, LMK, DATAK, POL, rates_on))
KEYS.update(RP.sharegpt_keys(P, seed, DATAK, POL, rates_on))  # real conversations (ShareGPT V3), every GPU
SW_RATES = RP.splitwise_rates(P)
PLAN = [(name, KEYS[name]) for name in RP.PLAN_ORDER]
TABS = {name: RP.stored(store, name, keys, n_jobs) for name, keys in PLAN}

TABS["gpu_capacity"] = (tab_cap, CAP)
glue("rt-tab-plan", styled(RP.plan_table(TABS, [("gpu_capacity", CAP_KEYS), *PLAN])), display=False)

# %% [markdown]
# (sec-rt-batchtime)=
# ## The batch-time model
#
# ```{prf:definition} Batch time
# :label: rt-batchtime
# A batch of round $t$ prefills the prompts of the requests started at $t$
# ($P$ tokens, squared sizes summing to $Q$) and decodes one token for each of the
# $D$ requests started earlier, which attend to $K$ cached tokens in total. Its time
# $\tau(P, D, K)$, in ms, is given by {eq}`eq-rt-batchtime` below,
# with $L = 80$ layers and $h = 8192$: $f$ is the per-layer time of the non-attention
# operators (piecewise linear with one knee, fitted to Vidur's profile with the model split over
# the two GPUs, tensor parallelism {glue:text}`rt_tp:d`), $g$ the time of an all-reduce (summing a message over
# both GPUs) through NVLink, the GPU-to-GPU link, of a message of $2h(P+D)$ bytes
# (linear fit), $e$ the embedding, and the attention terms are **fitted to measured attention
# times**: decode $A_{\mathrm{dec}}(D, K)$ interpolated on the measured grid ({ref}`sec-rt-gpus`) and prefill
# $A_{\mathrm{pre}}(P, Q) = a' + b'P + c'Q$ on Vidur's A100 attention profile for exactly the papers'
# configuration (FlashAttention, tensor parallelism 2). Every input of the A100 model is thus one of
# Vidur's own measurements, the inputs of the simulator the papers used.
# ```
#
# ```{math}
# :label: eq-rt-batchtime
# \begin{aligned}
# \tau(P, D, K) = {} & L\,\big[f(P+D) + 2\,g\big(2h(P+D)\big) \\
# & + A_{\mathrm{dec}}(D, K) + A_{\mathrm{pre}}(P, Q)\big] + e(P+D) \quad\text{ms}
# \end{aligned}
# ```
#
# **Measured against assumed attention.** Earlier versions of this chapter *assumed* the attention
# terms (details folded below). {glue:md}`rt_att_text` ({numref}`tbl-rt-attcheck`). The assumption made
# MC-SF's 001 Table 1 latency {glue:text}`rt_att_t1_sf:.2f` s instead of {glue:text}`rt_t1_sf:.2f` s.
#
# The coefficients are embedded in the library's module of measured models (the non-attention parts in
# its batch-time module) with their provenance; when Vidur's profile files are present the chapter refits
# the non-attention parts and checks they agree (a test refits all of them).

# %% tags=["teach"]
model = model_for("a100")  # every input measured (Vidur's A100 profiles)
coef = pd.DataFrame([{k: v for k, v in EMBEDDED.items() if k != "provenance"}]).T.rename(columns={0: "value"})
if SHARED and (SHARED / "a100_llama2_70b_mlp.csv").exists():
    refit = fit_from_csv(SHARED)
    coef["refit from CSV"] = [getattr(refit, k) for k in coef.index]
    agree = all(np.isclose(coef["value"].astype(float), coef["refit from CSV"].astype(float), rtol=1e-6))
    print("refit from the CSVs agrees with the embedded coefficients:", agree)
else:
    agree = None
    print("CSV profiles absent: using the EMBEDDED coefficients (fitted from the files named below)")

# %%
g("rt_refit_note", RR.refit_note(agree))
prov = EMBEDDED["provenance"]
offer_csv(RR.provenance_frame(prov), "realtrace", "batchtime-provenance")  # full checksums
glue("rt-tab-prov", styled(provenance_table(prov, RR.PROVENANCE_KEYS)), display=False)
glue("rt-tab-coef", styled(coefficient_table(coef), formats={c: "{:.6g}" for c in coef.columns}), display=False)
glue_all(RR.batchtime_values(model, prov))
glue_figure("rt-batchtime", RF.batchtime_figure(model, SHARED))

# derived against measured attention on Vidur's A100 rows (stored: reading them needs no data)
if SHARED or not Q:
    tab_att = store.table("attention_check", RD.attention_check_row, RR.attention_keys())
    glue_all(RR.attention_values(tab_att.frame, tab_att.label))
else:
    glue_all(RR.attention_values(None))
glue_all(RR.hardware_values(MEASURED))

# %% [markdown]
# The fit of the per-layer operators ({numref}`fig-rt-batchtime`, folded) has $R^2 =$ {glue:text}`rt_r2:.4f` and a median
# relative error of {glue:text}`rt_relerr:.1f` %. A single decode token takes
# {glue:text}`rt_ms1:.1f` ms (weight-bound), {glue:text}`rt_ex_decode_n:d` decoding requests holding
# {glue:text}`rt_ex_decode_kv:,d` tokens {glue:text}`rt_ms200:.1f` ms, and a batch with one prompt of
# {glue:text}`rt_ex_prefill:,d` tokens {glue:text}`rt_ms_pre:.0f` ms.
#
# ::::{dropdown} Fit details: the model's curves, coefficients and provenance
# :::{glue:figure} rt-batchtime
# :name: fig-rt-batchtime
#
# The batch-time model of {prf:ref}`rt-batchtime` (Llama-2-70B on two A100s, tensor
# parallelism {glue:text}`rt_tp:d`, measured attention; the same in quick and full mode): per-layer time of the non-attention operators
# (fit $f$, with Vidur's profile points when the profile files are present), decode-only batches,
# and batches with one prefill.
# :::
#
# :::{glue:figure} rt-tab-coef
# :name: tbl-rt-coef
# :figclass: kvbook-table
#
# Coefficients of the batch-time model: the embedded values and, when the profile files are
# present, the refit from them.
# :::
#
# :::{glue:figure} rt-tab-prov
# :name: tbl-rt-prov
# :figclass: kvbook-table
#
# Provenance of the embedded fit of the non-attention operators (first {glue:text}`rt_sha_digits:d` hex digits of each
# checksum; full record:
# {download}`CSV </chapters/tables/realtrace-batchtime-provenance.csv>`).
# :::
# ::::
#
# ::::{dropdown} Assumed against measured attention, and the fit quality on each GPU
# The assumption: decode reads {glue:text}`rt_kv_bytes:,d` bytes of K and V per cached token per layer at
# {glue:text}`rt_hbm_tbs:.1f` TB/s of the A100's high-bandwidth memory ({term}`HBM`); prefill runs at
# {glue:text}`rt_attn_tflops:.0f` TFLOP/s, half the A100's fp16 peak. It stays only as the documented fallback
# for a GPU without attention measurements (the measured models' "derived" attention).
#
# :::{glue:figure} rt-tab-attcheck
# :name: tbl-rt-attcheck
# :figclass: kvbook-table
#
# The assumed (derived) attention against Vidur's measured A100 attention, by group of profile
# rows: relative error per layer, the measured attention's median share of its batch's time
# (80 layers, measured model), and the share of the batch's time the assumption misses; every
# row's error has the same sign (too fast). {glue:text}`cap_attcheck`.
# :::
#
# :::{glue:figure} rt-tab-fitq
# :name: tbl-rt-fitq
# :figclass: kvbook-table
#
# Fit quality of each GPU's batch-time model per operator: R², median and largest relative error
# over the measured rows (all-reduce: R² only).
# :::
#
# :::{glue:figure} rt-tab-hwfiles
# :name: tbl-rt-hwfiles
# :figclass: kvbook-table
#
# The measured files behind each GPU's model and their SHA-256 (first {glue:text}`rt_sha_digits:d` hex digits). H200 lacks an
# all-reduce and an embedding measurement: H100's NVLink all-reduce (the same fourth-generation
# NVLink at 900 GB/s) and embedding stand in.
# :::
# ::::
#
# (sec-rt-workloads)=
# ## Workloads
#
# The LMSYS-like generator is a two-component mixture of discretised log-normals per
# length, fitted to the published statistics of the 2,000 LMSYS conversations of 003
# (a single log-normal cannot match mean, median and variance on the published range;
# {numref}`tbl-rt-fit`). Prompt and output lengths are drawn
# independently.
#
# ::::{dropdown} The fit of the LMSYS-like generator
# :::{glue:figure} rt-tab-fit
# :name: tbl-rt-fit
# :figclass: kvbook-table
#
# The published statistics of 003's 2,000 LMSYS conversations against those of our mixture.
# :::
#
# :::{glue:figure} rt-tab-mix
# :name: tbl-rt-mix
# :figclass: kvbook-table
#
# The mixture: with weight w, a discretised log-normal with parameters μ1, σ1; otherwise one with
# μ2, σ2 (clipped to the published range).
# :::
# ::::

# %%
fit = lmsys_fit_table(refit=not Q)
glue("rt-tab-fit", styled(fit_statistics_table(fit)), display=False)
glue("rt-tab-mix", styled(fit_mixture_table(fit), precision=5), display=False)
LM_N = 2000  # requests of the LMSYS-like generator whose lengths the workload table summarises
g("rt_lm_n", LM_N)
_lm = build_workload({"workload": "lmsys", "n": LM_N, "seed": seed, "user_csv": user_csv})
_tk = [{"workload": t, "seed": seed, "data": DATA} for t in ("arxiv", "splitwise", "splitwise-code")]
_tk += [{"workload": "sharegpt", "unit": u, "seed": seed, "data": DATA} for u in ("words", "tokens")]
_tr = store.table("traces", RD.trace_summary_row, _tk).frame.to_dict("records")  # the traces' length statistics
glue_all(RR.workload_values(_lm, LM_LABEL, _tr, seed))

# %% [markdown]
# ::::{dropdown} The workloads and their lengths
# :::{glue:figure} rt-tab-workloads
# :name: tbl-rt-workloads
# :figclass: kvbook-table
#
# The workloads: requests and lengths in tokens, ShareGPT V3 also in words ({glue:text}`rt_lm_n:,d` requests of the
# LMSYS-like generator; the real traces are the files of {numref}`tbl-rt-files`, read whole, ShareGPT V3's
# conversations as kept by the filter of vLLM's serving benchmark). The Splitwise code trace (long prompts,
# short outputs) is used in the three-GPU comparison, ShareGPT V3 in {ref}`sec-rt-sharegpt`.
# :::
# ::::
#
# **Words or tokens?** 001 counts *words*, 002 and 003 tokenizer tokens; our generator produces
# tokens, with mean prompt and output {glue:text}`rt_len_prompt_mean:.2f` and
# {glue:text}`rt_len_output_mean:.2f` tokens (003's: 41 and 85; details folded below).
#
# ::::{dropdown} LMSYS length statistics: the papers' and ours
# 001 Section 5.2 takes each *word* of a response as one output token and reports word counts (its
# Appendix C Figure 5 plots the number of words); 002 Section 7 and 003 Section 6 report tokenizer
# tokens of their LMSYS samples. Our generator is fitted to 003's token statistics, so its statistics
# are compared with the token statistics of 002 and 003; 001's word statistics are shown beside them
# for reference, not as the same quantity.
#
# :::{glue:figure} rt-tab-lengths
# :name: tbl-rt-lengths
# :figclass: kvbook-table
#
# LMSYS length statistics: the papers' (labelled) and ours.
# :::
# ::::

# %% [markdown]
# (sec-rt-001)=
# ## 001 Section 5.2: MC-SF against the benchmarks
#
# All results of this section are on {glue:text}`rt_lmlabel` lengths.
# Requests arrive by a Poisson process ($\lambda = 50$ per second, "high demand", and
# $\lambda = 10$, "low demand"), $M =$ {glue:text}`rt_memory:,d` tokens. MC-SF and MC-Benchmark use the
# look-ahead test; MC-Benchmark is 001 Algorithm 2 as written (arrival order, stopping at the
# first request that fails the test), the same policy as first come, first served
# ({term}`FCFS`) in the 002 section below. The
# $\alpha$-protection baselines admit up to $(1-\alpha)M$ and clear on overflow: greedy clears
# all running requests; $\beta$-clearing makes one draw per overflow event, clearing each running
# request independently with probability $\beta$, and clears the survivors too if the memory
# still exceeds $M$ (001 Section 5.2 does not say what happens then; this is our reading, and
# `alpha-beta-clearing-redraw` is our variant that redraws until the survivors fit).
#
# 001 Section 5.2 compares MC-SF with MC-Benchmark and with **six benchmark configurations**:
# $\alpha$-protection greedy with $\alpha = 0.3$ and $\alpha = 0.25$, and $\alpha$-protection
# $\beta$-clearing with $\alpha \in \{0.2, 0.1\}$ and $\beta \in \{0.2, 0.1\}$. We run exactly
# these eight and name them as the paper's Table 1 does ("Benchmark $\alpha = 0.2, \beta = 0.1$").
# Every simulation is one row of a stored table (see the plan at the top of the page).
#
# (sec-rt-alpha)=
# ### Smallest α without endless clearing
#
# A run is declared an endless clearing loop when it does not finish within ten times
# the number of rounds MC-Benchmark needs on the same workload (plus 1,000), or when no request
# completes for $4\max o + 100$ consecutive rounds. The same rule stops every run of the
# $\alpha$-protection baselines below. For each rate we report the smallest
# $\alpha$ of the grid at and above which every run of alpha-protection greedy finished
# ("≤ a" when even the smallest grid value never looped), over all seeds together and for each seed's grid
# alone: the paper's value **matches** when it lies within the range of the seeds' thresholds, and
# **differs** only when it lies outside it.
#
# *Load.* The A100 serves {glue:text}`rt_cap_a100_lm:.1f` {glue:text}`rt_lmlabel` requests per second with every
# request waiting ({term}`capacity`), so both of 001's rates overload it: each run is a burst of requests that
# queue up, not a steady state, as in 001's own runs of a fixed number of requests. The verdicts compare the
# same bursts.

# %%
tab_grid, G = TABS["alpha_grid"]
glue_all(RR.alpha_values(G, grid, nG, RATE_HI, RATE_LO, tab_grid.label,
                         load=functools.partial(RR.load_text, CAP, "lmsys", "a100")))
g("rt_cap_a100_lm", RP.capacity(CAP, "lmsys", "a100"))

# %% [markdown]
# :::{glue:figure} rt-tab-alpha
# :name: tbl-rt-alpha
# :figclass: kvbook-table
#
# Smallest α of α-protection greedy without endless clearing, ours (all seeds together, and the range of
# the seeds' own thresholds) and 001's, whether 001's lies in our range, and each rate's load on the A100
# ({glue:text}`rt_lmlabel` lengths); {glue:text}`cap_alpha_grid`.
# :::
#
# Ours: {glue:text}`rt_alpha_hi` at high demand ({glue:text}`rt_alpha_spread_hi`: 001's value
# {glue:text}`rt_alpha_verdict_hi`), {glue:text}`rt_alpha_lo` at low demand ({glue:text}`rt_alpha_spread_lo`:
# {glue:text}`rt_alpha_verdict_lo`; the paper's: 0.21 and 0.24), on {glue:text}`rt_lmlabel` data, over the grid
# {glue:text}`rt_alpha_grid_txt` (the paper's step 0.01) with {glue:text}`rt_alpha_grid_n:d` requests per run
# (the size of the paper's grid search is not stated; ours is Table 1's).
#
# (sec-rt-fig3)=
# ### Figure 3: average latency against the number of requests

# %%
tab_f3, F3 = TABS["fig3"]
assert F3["valid"].dropna().all()
g("cap_fig3", tab_f3.label)
g("rt_fig3_unfinished", RR.unfinished_note(F3, ("name", "rate")))
glue_figure("rt-fig3", RF.fig3_figure(F3, P["rates"], ORDER1))
S = RR.slope_table(F3, P["rates"], ORDER1)
glue_all(RR.fig3_values(S, ORDER1, RATE_HI, RATE_LO, Q))

# %% [markdown]
# ```{glue:figure} rt-fig3
# :name: fig-rt-fig3
#
# 001 Figure 3 setting: average latency against the number of requests at $\lambda = 50$/s
# (left) and $10$/s (right) for MC-SF, MC-Benchmark and the six benchmark configurations of
# 001 Section 5.2; {glue:text}`rt_lmlabel` lengths, $M =$ {glue:text}`rt_memory:,d`, sizes
# {glue:text}`rt_fig3_sizes` ({glue:text}`rt_fig3_sizes_note`), up to {glue:text}`rt_fig3_runs` run(s) per point,
# averaged over the runs that finished (unfinished runs: {glue:text}`rt_fig3_unfinished`); {glue:text}`cap_fig3`.
# ```
#
# Fitted slopes ({ref}`figure <fig-rt-fig3>`; seconds of average latency per additional request; we print
# 1/slope): at high demand MC-SF 1/{glue:text}`rt_s_sf_hi:.1f` against the best
# benchmark's 1/{glue:text}`rt_s_b_hi:.1f` (paper: about 1/6 against 1/2); at low demand
# 1/{glue:text}`rt_s_sf_lo:.0f` against 1/{glue:text}`rt_s_b_lo:.0f` (paper: 1/800 against
# 1/100). A negative or huge 1/slope means the latency does not grow measurably with
# the number of requests at that load. All {glue:text}`rt_lmlabel`.
#
# ::::{dropdown} The fitted slopes of every configuration
# :::{glue:figure} rt-tab-slopes
# :name: tbl-rt-slopes
# :figclass: kvbook-table
#
# Least-squares slopes of the curves of {numref}`fig-rt-fig3`, with 001's slopes; {glue:text}`cap_fig3`.
# :::
# ::::
#
# (sec-rt-table1)=
# ### Table 1: repeated runs at 50 requests per second

# %%
tab_t1, T1 = TABS["table1"]
assert T1["valid"].dropna().all()
tab1 = RR.table1_frame(T1, ORDER1)
glue_all(RR.table1_values(tab1, P["table1_n"], RATE_HI, tab_t1.label))

# %% [markdown]
# :::{glue:figure} rt-tab-table1
# :name: tbl-rt-table1
# :figclass: kvbook-table
#
# 001 Table 1 setting: average latency over the runs that finished, {glue:text}`rt_t1_n:d`
# requests per run at {glue:text}`rt_t1_rate:g` requests per second, {glue:text}`rt_lmlabel`
# lengths; a run stopped as an endless clearing loop counts as unfinished. The 001 columns are
# 001 Appendix C Table 1 (50 runs); ours: {glue:text}`cap_table1`.
# :::
#
# ::::{dropdown} Smallest and largest average latency of the runs
# :::{glue:figure} rt-tab-table1-range
# :name: tbl-rt-table1-range
# :figclass: kvbook-table
#
# The smallest and largest average latency over the runs of {numref}`tbl-rt-table1`, ours and
# 001's.
# :::
# ::::
#
# Over at least {glue:text}`rt_t1_runs` runs of {glue:text}`rt_t1_n` requests per configuration
# ({numref}`tbl-rt-table1`): MC-SF {glue:text}`rt_t1_sf:.3f` s, MC-Benchmark
# {glue:text}`rt_t1_mb:.3f` s, Benchmark $\alpha = 0.3$ {glue:text}`rt_t1_a3:.3f` s; the paper's
# (001 Table 1): 32.112, 46.472 and 51.933. Our ordering {glue:text}`rt_t1_order`; over the
# eight configurations our averages are on average {glue:text}`rt_t1_ratio:.2f` times the
# paper's (see {ref}`sec-rt-disagree`). Our standard deviations over the seeds range from
# {glue:text}`rt_t1_std_lo:.3f` s to {glue:text}`rt_t1_std_hi:.3f` s (the paper's: 0.310 to 1.457 s);
# each of our seeds draws new lengths as well as new arrival times. Runs stopped as endless
# clearing loops: {glue:text}`rt_t1_unfinished:d` in all, by configuration:
# {glue:text}`rt_t1_unfinished_cfg`.
#
# (sec-rt-memory)=
# ### Memory over time (001 Figures 6 and 9)
#
# {numref}`fig-rt-memory` follows the KV cache memory held over one run of four policies.

# %%
_MEMP = [("mc-sf", {}, RATE_HI), ("mc-sf", {}, RATE_LO), ("mc-benchmark", {}, RATE_HI),
         ("alpha-beta-clearing", {"alpha": 0.1, "beta": 0.1}, RATE_HI)]
BASE = {"shared_dir": str(SHARED) if SHARED else None, "user_csv": user_csv, "memory": memory}
MEM = run_specs([{"workload": "lmsys", "n": P["table1_n"], "rate": r, "seed": seed, "policy": p, "opts": o,
                  "keep_trace": True} for p, o, r in _MEMP],
                base=BASE, n_jobs=n_jobs, backend=backend, desc="memory traces", progress=False)
glue_figure("rt-memory", RF.memory_figure(MEM, memory))
glue_all(RR.memory_values(MEM, memory, RATE_HI))

# %% [markdown]
# ::::{dropdown} The memory over time (figure)
# ```{glue:figure} rt-memory
# :name: fig-rt-memory
#
# KV tokens held over time (001 Figures 6 and 9 show MC-SF at high and low demand; we add
# MC-Benchmark and Benchmark $\alpha = 0.1, \beta = 0.1$ at high demand),
# {glue:text}`rt_table1_n` {glue:text}`rt_lmlabel` requests, one run each, computed live;
# dotted: $M =$ {glue:text}`rt_memory:,d` ({glue:text}`rt_mode` mode).
# ```
# ::::
#
# 001 (Appendix C) reads its Figures 6 and 9 as MC-SF staying within $M$ at both demand levels
# while using most of the memory. Ours: peak {glue:text}`rt_mem_hi_peak:,d` tokens at
# $\lambda = 50$/s and {glue:text}`rt_mem_lo_peak:,d` at $\lambda = 10$/s (within $M$:
# {glue:text}`rt_mem_hi_within` and {glue:text}`rt_mem_lo_within`); time-averaged occupancy
# {glue:text}`rt_mem_hi_mean:.0f` % and {glue:text}`rt_mem_lo_mean:.0f` % of $M$ over each run.
# Read against 001: within $M$ at both rates, as 001 reports; occupancy at $\lambda = 10$/s
# {glue:text}`rt_mem_lo_verdict`.
#
# (sec-rt-sweeps)=
# ### The α and β sweeps (001 Figures 7, 8, 10 and 11)
#
# {numref}`fig-rt-sweeps` sweeps the α and β of the α-protection β-clearing baseline.

# %%
tab_sw, SW = TABS["sweeps"]
glue_figure("rt-sweeps", RF.sweeps_figure(SW, P["rates"], SA, SB, RP.SWEEP_FIX))
glue_all(RR.sweep_values(SW, P["rates"], {"alpha": SA, "beta": SB}, RP.SWEEP_FIX, tab_sw.label, P["sweep_n"]))

# %% [markdown]
# ::::{dropdown} The sweeps (figure)
# ```{glue:figure} rt-sweeps
# :name: fig-rt-sweeps
#
# 001 Figures 7-8 (top, $\lambda = 50$/s) and 10-11 (bottom, $\lambda = 10$/s) settings:
# average latency of $\alpha$-protection $\beta$-clearing against $\alpha$ with $\beta = 0.1, 0.2$
# (left) and against $\beta$ with $\alpha = 0.1, 0.2$ (right), {glue:text}`rt_sweep_n:d`
# {glue:text}`rt_lmlabel` requests, mean over the seeds of each point; a point is missing when one
# of its runs was stopped as an endless clearing loop; {glue:text}`cap_sweeps`.
# ```
# ::::
#
# 001 gives these sweeps as figures and states its recommended ranges in its text (Appendix C):
# at high demand $\alpha \in [0.15, 0.25]$ minimises latency and $\beta \in [0.05, 0.25]$
# performs well, at low demand $\alpha \in [0.10, 0.25]$ and $\beta \in [0.05, 0.20]$, for both
# fixed values of the other parameter; below $\alpha = 0.1$ it reports a marked degradation.
# We compare our minimisers with those ranges ({numref}`tab-rt-sweep-verdicts`, folded below). The lowest
# latency among our points with every run finished: {glue:text}`rt_sw_best_0` at
# $\lambda = 50$/s and {glue:text}`rt_sw_best_1` at $\lambda = 10$/s.
#
# Our minimisers lie inside 001's range in {glue:text}`rt_sv_inside:d` of the
# {glue:text}`rt_sv_total:d` sweeps; outside: {glue:text}`rt_sv_outside`. Our runs use
# stand-in request lengths and our batch-time model, not the paper's trace and hardware, so a
# shifted minimiser is a difference of setting, not a faulty step of the paper.
#
# ::::{dropdown} Every sweep against 001's ranges
# :::{glue:figure} rt-tab-sweep-verdicts
# :name: tab-rt-sweep-verdicts
# :figclass: kvbook-table
#
# Our sweeps against the ranges 001 Appendix C recommends: per demand rate, swept parameter and
# fixed value of the other one, the grid point(s) of lowest mean latency (*argmin*, exact ties all
# listed) and that latency (*min*), the points within 5 % of it (*≤ 5 % above*), the points missing
# because a run was stopped as an endless clearing loop (*looped*), 001's range, whether a
# minimiser lies in it (*in 001?*), and whether every finished grid point inside 001's range is
# within 5 % of our minimum (*001 ≤ 5 %?*; a–b: every grid point from a to b);
# {glue:text}`cap_sweeps`.
# :::
#
# At $\lambda = 50$/s,
# the $\alpha$ sweeps give {glue:text}`rt_sv_alpha_0`, and the $\beta$ sweeps
# {glue:text}`rt_sv_beta_0`. At $\lambda = 10$/s, the $\alpha$ sweeps give
# {glue:text}`rt_sv_alpha_1`, and the $\beta$ sweeps {glue:text}`rt_sv_beta_1`; where the
# minimum is shared by many grid points (a flat curve), "inside" says only that the range is among
# them, and the column "within 5 % of min" of {numref}`tab-rt-sweep-verdicts` is the
# better summary, including whether our points below $\alpha = 0.1$ degrade as 001 reports.
# ::::

# %% [markdown]
# (sec-rt-002)=
# ## 002 Section 7: mixed LMSYS-like and arXiv requests at $t = 0$
#
# {glue:text}`rt_mix_short_pct:d` % {glue:text}`rt_lmlabel` and {glue:text}`rt_mix_long_pct:d` % arXiv
# ({glue:md}`rt_ax_label`) requests, mixed at random as in 002, all present at $t = 0$,
# $M =$ {glue:text}`rt_memory:,d`; the paper's experiment has
# 2,000 requests (1,600 + 400). Latency is in seconds; "scheduler time" is the
# policy's own computation (planning at reset plus all decisions), measured on a
# shared 2-core machine (contention from other processes inflates it).
#
# **The figures.** 002 Figure 8 shows the average latency of each scheduler ({term}`Sorted-F`,
# {term}`Sorted-LP`, {term}`LP-Swap` and the baselines) on
# subsamples of 200, 400, ..., 2,000 requests of the mixed data set (002 Section 7), and
# 002 Figure EC.2 (Appendix EC.5) repeats it for Sorted-F and LP-Swap alone, whose curves
# nearly coincide. We redraw Figure 8 (EC.2's Sorted-F and LP-Swap curves are among
# its curves), add a view of our own (the individual latencies at the largest size by source:
# who pays for each policy's average), and end with the scheduler times.
#
# ::::{dropdown} How Sorted-LP and LP-Swap are solved at scale
# The LP relaxation is time-indexed: one start variable per request and {term}`round` of the
# horizon (at {glue:text}`rt_002_n:d` requests the horizon is {glue:text}`rt_lp_H:d` rounds,
# i.e. about {glue:text}`rt_lp_mvars:.1f` million start variables, far beyond the exact LP's
# reach here: the check below solves it for {glue:text}`rt_lpx_n:d` requests). We therefore solve **our coarse
# approximation** of 002's Relax-LP (the library's bucket formulation): start times on
# a grid of step $D$ and the memory constraint averaged over each $D$-bucket, with $D$
# chosen automatically (the smallest step whose LP has about $750 n$ nonzeros, at most
# {glue:text}`rt_lp_nnz_max_m:.1f` million); with $D = 1$ it is the exact
# relaxation. The check after the figures measures, at a size where the exact LP is
# solvable, how much this moves the LP order and the resulting TEL.
# ::::

# %%
tab_m2, M2 = TABS["mixed002"]
M2 = RR.mixed002_frame(M2)
assert M2["valid"].all()
ORDER2, _nonlp = RR.schedulers002(M2, POL)
glue_figure("rt-002-fig8", RF.mixed002_figure(M2, ORDER2, "avg_latency", "average latency (s)"))
T2 = M2.pivot_table(index="n", columns="name", values="avg_latency")[ORDER2]
nmax2 = RR.largest_complete_size(T2, _nonlp)  # the largest size with every scheduler without an LP
glue_all(RR.mixed002_values(T2, nmax2, Q, tab_m2.label))

big = RR.rows_at_size(M2, nmax2, ORDER2)
glue_figure("rt-002-ec2", RF.per_source_figure(big, nmax2))
glue_all(RR.per_source_values(RR.per_source_table(big)))

# %% [markdown]
# ```{glue:figure} rt-002-fig8
# :name: fig-rt-002-fig8
#
# 002 Figure 8 (our reading): average latency against the number of requests, mixed workload
# ({glue:text}`rt_mix_short_pct:d` % {glue:text}`rt_lmlabel`, {glue:text}`rt_mix_long_pct:d` % arXiv) all at
# $t = 0$, $M =$ {glue:text}`rt_memory:,d`, sizes
# {glue:text}`rt_sizes_002` ({glue:text}`rt_sizes_002_note`); {glue:text}`cap_mixed002`.
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
#
# ::::{dropdown} The average latencies of 002 Figure 8 as a table
# :::{glue:figure} rt-tab-002
# :name: tbl-rt-002
# :figclass: kvbook-table
#
# Average latency (s) of each scheduler against the number of requests (the curves of
# {numref}`fig-rt-002-fig8`); {glue:text}`cap_mixed002`.
# :::
# ::::
#
# *Per-request latencies*, a view of our own ({numref}`fig-rt-002-ec2`, folded). At
# {glue:text}`rt_002_n:d` requests the arXiv requests (long prompts) wait
# {glue:text}`rt_ec2_sf_ax:.0f` s on average under MC-SF against {glue:text}`rt_ec2_sf_lm:.0f` s
# for the LMSYS-like ones; under FCFS the two groups wait {glue:text}`rt_ec2_fcfs_lm:.0f` s and
# {glue:text}`rt_ec2_fcfs_ax:.0f` s.
#
# ::::{dropdown} Per-request latencies by source: figure and table
# :::{glue:figure} rt-002-ec2
# :name: fig-rt-002-ec2
#
# Per-request latency (our view of 002 Figure 8's experiment): mean, median and 90th percentile
# at {glue:text}`rt_002_n:d` requests, LMSYS-like (left) and arXiv (right) requests of the mixed
# workload, all at $t = 0$; {glue:text}`cap_mixed002`.
# :::
#
# :::{glue:figure} rt-tab-ec2
# :name: tbl-rt-ec2
# :figclass: kvbook-table
#
# Per-request latency (s) at {glue:text}`rt_002_n:d` requests by source (the bars of
# {numref}`fig-rt-002-ec2`) and the scheduler's computation time; {glue:text}`cap_mixed002`.
# :::
# ::::
#
# (sec-rt-lp)=
# ### Scheduler computation time and the LP

# %%
glue_figure("rt-002-sched", RF.mixed002_figure(M2, ORDER2, "scheduler_s", "scheduler time (s)", height=3.0, log=True))
TS = M2.pivot_table(index="n", columns="name", values="scheduler_s")[ORDER2]
_hk = {"n": nmax2, "seed": seed, "memory": memory, "data": DATA, **({"user_csv": user_csv} if user_csv else {})}
_hr = store.table("lp_horizon", RD.lp_horizon_row, [_hk]).frame.iloc[0]
STEP_MAX = int(_hr["auto_step"])
NLP = RR.largest_lp_size(TS, P["lp_sizes_002"])  # the largest size with both LP schedulers stored
glue_all(RR.lp_size_values(_hr, NLP, TS, T2))

_steps = [None] + sorted({25, 50, 100, STEP_MAX})
_xk = {"n": P["lp_exact_n"], "seed": seed, "memory": memory, "steps": _steps, "data": DATA,
       **({"user_csv": user_csv} if user_csv else {})}
_xr = store.table("lp_orders", RD.lp_orders_row, [_xk], timing=RD.lp_orders_timing(_steps)).frame.iloc[0].to_dict()
glue_all(RR.lp_check_values(RD.lp_orders_frame(_xr), _xr["label"], STEP_MAX, P["lp_exact_n"]))

# %% [markdown]
# At {glue:text}`rt_lp_nmax:d` requests ({numref}`fig-rt-002-sched`, folded) Sorted-LP reaches an average latency of
# {glue:text}`rt_002_slp:.1f` s and LP-Swap {glue:text}`rt_002_lps:.1f` s (Sorted-F (swap):
# {glue:text}`rt_002_sfs:.1f` s). Their scheduler times, {glue:text}`rt_002_t_slp:.1f` s and
# {glue:text}`rt_002_t_lps:.1f` s (Sorted-F (swap): {glue:text}`rt_002_t_sfs:.1f` s), are
# dominated by the LP ({term}`HiGHS` interior point without crossover, one thread); at
# {glue:text}`rt_002_n:d` requests the horizon is {glue:text}`rt_lp_H:d` rounds and the
# grid step $D =$ {glue:text}`rt_lp_step:d` rounds. `python benchmarks/lp_scaling.py`
# prints the LP time against $n$ (with `--before`, also the former implementation's).
#
# ::::{dropdown} The scheduler times: figure and table
# :::{glue:figure} rt-002-sched
# :name: fig-rt-002-sched
#
# The schedulers' own computation time (planning at reset plus all decisions, log scale) in
# the 002 Section 7 setting, measured on a shared 2-core machine ({glue:text}`rt_mode` mode).
# :::
#
# :::{glue:figure} rt-tab-sched
# :name: tbl-rt-sched
# :figclass: kvbook-table
#
# Scheduler time (s) against the number of requests (the curves of {numref}`fig-rt-002-sched`),
# measured when the rows were computed; {glue:text}`cap_mixed002`.
# :::
# ::::
#
# **How much does the bucket approximation change?** On a small instance the exact relaxation
# ($D = 1$) is compared with the bucket model (details and tables folded below).
#
# ::::{dropdown} The exact LP against the bucket approximation: two tables
# On a {glue:text}`rt_lpx_n:d`-request instance of the same workload the exact relaxation
# ($D = 1$, per-time memory rows, solved in {glue:text}`rt_lpx_exact_s:.1f` s) is compared with
# the bucket model at the automatic step and at coarser steps up to the one used at
# {glue:text}`rt_002_n:d` requests (TEL in rounds, discrete-time simulation, every schedule
# checked).
#
# :::{glue:figure} rt-tab-lpx
# :name: tbl-rt-lpx
# :figclass: kvbook-table
#
# The LP on {glue:text}`rt_lpx_n:d` requests ({glue:md}`rt_lpx_label`), horizon
# {glue:text}`rt_lpx_H:d` rounds: the exact LP (step 1) against the bucket approximation at
# each step; Kendall's τ and the largest rank shift compare the two orders.
# :::
#
# :::{glue:figure} rt-tab-lpx-tel
# :name: tbl-rt-lpx-tel
# :figclass: kvbook-table
#
# The schedules built from the two LP orders: TEL in rounds of Sorted-LP and LP-Swap with the
# exact and the approximate LP, and the relative change (a fraction).
# :::
# ::::
#
# Over these steps Kendall's $\tau$ between the exact and the approximate LP orders is at
# least {glue:text}`rt_lpx_tau_min:.3f`; the TEL of Sorted-LP moves by at most
# {glue:text}`rt_lpx_dslp_max:.2f` % and that of LP-Swap by at most
# {glue:text}`rt_lpx_dlps_max:.2f` % (at the step used for {glue:text}`rt_002_n:d`
# requests: {glue:text}`rt_lpx_dslp_big:.2f` % and {glue:text}`rt_lpx_dlps_big:.2f` %).
# The check is on a small instance (horizon {glue:text}`rt_lpx_H:d` rounds; the exact LP
# is out of reach at larger sizes here), so that the step used at
# {glue:text}`rt_002_n:d` requests is equally harmless there is an extrapolation, not a
# measurement.
#
# (sec-rt-003)=
# ## 003 Section 6: interval predictions

# %%
tab_m3, M3 = TABS["intervals003"]
M3 = RR.intervals003_frame(M3)
assert M3["valid"].all()
T3 = M3.pivot_table(index=["pred", "n"], columns="policy", values="avg_latency")
n3 = RR.largest_full_size(M3, T3, len(RP.PREDICTIONS) * len(POL.p003))  # every prediction and policy stored
if {"a-max", "a-min", "h-sf"} <= set(POL.p003):
    glue_all(RR.intervals003_values(T3, n3))
g("cap_intervals003", tab_m3.label)
glue_figure("rt-003", RF.intervals003_figure(M3))
_t3 = T3.rename(columns=policy_display).reset_index().rename(columns={"pred": "prediction", "n": "requests"})
offer_csv(_t3, "realtrace", "intervals003")
glue("rt-tab-003", styled(_t3, precision=2), display=False)

tab_sp, SP = TABS["splitwise"]
assert SP["valid"].dropna().all()
glue_all(RR.splitwise_values(SP, tab_sp.label, CAP))

tab_c, C = TABS["allpolicies"]
glue_all(RR.all_policies_values(C, nC, memory, tab_c.label))

# %% [markdown]
# ::::{dropdown} 003 Figures 5-7: the latency curves (figure)
# ```{glue:figure} rt-003
# :name: fig-rt-003
#
# 003 Figures 5-7 setting: average latency of $\mathcal{A}_{\max}$, $\mathcal{A}_{\min}$ and H-SF against the number of
# requests (sizes {glue:text}`rt_sizes_003`, {glue:text}`rt_lmlabel`, all at $t = 0$) for each
# interval prediction; {glue:text}`cap_intervals003`.
# ```
# ::::
#
# 003 Section 6 gives each request a predicted interval of output lengths. $\mathcal{A}_{\max}$
# ({term}`see the glossary <A-max>`) plans with the upper end of each interval, $\mathcal{A}_{\min}$
# ({term}`see the glossary <A-min>`; 003 Algorithms 2 and 5) starts from the
# lower end and raises it as a request keeps producing tokens, and {term}`H-SF` (hindsight
# shortest-first) knows the true lengths. The predictions are the uninformative $[1, 1000]$,
# 10 length buckets, and intervals $[(1-x)o, (1+x)o]$ around the true length $o$.
#
# At {glue:text}`rt_003_n` requests ({glue:text}`rt_lmlabel`; {ref}`figure <fig-rt-003>`): with the uninformative
# prediction $[1, 1000]$, $\mathcal{A}_{\max}$ {glue:text}`rt_003_wide_amax:.1f` s, $\mathcal{A}_{\min}$
# {glue:text}`rt_003_wide_amin:.1f` s, H-SF {glue:text}`rt_003_wide_hsf:.1f` s; with
# $x = 0.1$: {glue:text}`rt_003_x01_amax:.1f`, {glue:text}`rt_003_x01_amin:.1f`,
# {glue:text}`rt_003_x01_hsf:.1f` s; with $x = 0.99$: {glue:text}`rt_003_x099_amax:.1f`,
# {glue:text}`rt_003_x099_amin:.1f`, {glue:text}`rt_003_x099_hsf:.1f` s; with 10 buckets:
# {glue:text}`rt_003_buckets_amax:.1f`, {glue:text}`rt_003_buckets_amin:.1f`,
# {glue:text}`rt_003_buckets_hsf:.1f` s ($\mathcal{A}_{\max}$, $\mathcal{A}_{\min}$, H-SF). $\mathcal{A}_{\min}$ beats
# $\mathcal{A}_{\max}$ at this size for the predictions: {glue:text}`rt_003_amin_better`.
#
# ::::{dropdown} The average latencies of every prediction as a table
# :::{glue:figure} rt-tab-003
# :name: tbl-rt-003
# :figclass: kvbook-table
#
# Average latency (s) of the curves of {numref}`fig-rt-003`
# ({download}`CSV </chapters/tables/realtrace-intervals003.csv>`); {glue:text}`cap_intervals003`.
# :::
# ::::
#
# (sec-rt-splitwise)=
# ## Beyond the papers: the Splitwise trace with real arrival times
#
# The first requests of the Splitwise production trace ({glue:md}`rt_sw_label`) keep their real arrival pattern,
# rescaled to several mean rates. With prompts of about 1,150 tokens, far fewer
# requests fit in $M$ than with LMSYS-like lengths, so the sustainable rate is around
# one request per second. MC-Benchmark (001 Algorithm 2) is also the FCFS baseline here: FCFS
# names the same policy. The Splitwise code trace ({glue:md}`rt_code_label`: prompts of about 2,050
# tokens, outputs of about 28) is a second production workload; it runs on all three GPUs in
# {ref}`sec-rt-gpus` (verdicts at the top of the page).
#
# The A100's capacity for this trace is {glue:text}`rt_sw_capacity:.2f` requests per second: above it
# ({glue:text}`rt_sw_overloaded`) the queue grows for as long as requests arrive, so those runs are
# **overloaded**, shown but kept out of the verdicts, which rest on the steady-state rates only.
#
# ::::{dropdown} The Splitwise runs: average latency at each rate
# :::{glue:figure} rt-tab-splitwise
# :name: tbl-rt-splitwise
# :figclass: kvbook-table
#
# Average latency (s) on the first {glue:text}`rt_splitwise_n:d` requests of
# {glue:md}`rt_sw_label` at each mean arrival rate, with the rate over the A100's capacity for the trace and
# whether the run is overloaded; {glue:text}`cap_splitwise`.
# :::
# ::::
#
# (sec-rt-all)=
# ## Every policy on one workload
#
# One table: all policies of the four papers available in the library on the same instance,
# the mixed workload of 002 ({glue:text}`rt_mix_short_pct:d` % {glue:text}`rt_lmlabel`,
# {glue:text}`rt_mix_long_pct:d` % arXiv), all requests
# at $t = 0$ (the only setting in which the offline 002 planners apply; with
# LMSYS-like lengths alone a few hundred requests fit in $M$ at once and every policy
# coincides); the 003 policies receive intervals $[(1-x)o, (1+x)o]$ with $x = 0.5$
# (H-SF knows $o$). FCFS with the test (5) is MC-Benchmark (001 Algorithm 2) and has one row;
# {term}`MC-SF2` orders by prompt plus output length. The lowest average latency is
# {glue:text}`rt_all_best`, the highest {glue:text}`rt_all_worst` ({numref}`tbl-rt-all`, folded).
#
# ::::{dropdown} Every policy on one workload: the table
# :::{glue:figure} rt-tab-all
# :name: tbl-rt-all
# :figclass: kvbook-table
#
# Every policy on {glue:text}`rt_all_n:d` requests of the mixed 002 workload
# ({glue:text}`rt_lmlabel` + arXiv), all at $t = 0$, $M =$ {glue:text}`rt_memory:,d` tokens,
# sorted by average latency; x: the half-width of the 003 policies' intervals; {glue:text}`cap_allpolicies`.
# :::
# ::::
#
# (sec-rt-gpus)=
# ## Three GPUs: what changes with the hardware
#
# The papers' claims are re-run with each GPU's measured batch-time model, at the papers' arrival rates
# and at equal utilisation; the verdicts are {numref}`tbl-rt-gpu-verdict` at the top of the page.
#
# ::::{dropdown} How each GPU is modelled, and the two comparisons
# Each GPU's batch-time model rests on one kind of measurement for all three GPUs: the non-attention
# operators and the all-reduce of A100 and H100 are Vidur's profiles, and H200's are Vidur's H100
# operators each scaled by its H200/H100 ratio in our PyTorch timings of both GPUs (H100's all-reduce
# and embedding stand in). Plain PyTorch operators are slower than Vidur's serving kernels at small
# batches, so taking H200's layer from PyTorch and H100's from Vidur would favour the H100. Decode
# attention is interpolated on the measured grid (Vidur's A100 profile, our H100 and H200 timings;
# {numref}`tbl-rt-atterr`). The decode-only reference round ({glue:text}`rt_ref_batch:d` requests holding
# {glue:text}`rt_ref_tokens:,d` cached tokens)
# takes {glue:text}`rt_ref_a100:.1f` ms on A100, {glue:text}`rt_ref_h100:.1f` ms on H100 and
# {glue:text}`rt_ref_h200:.1f` ms on H200; on our PyTorch timings alone (the sensitivity, no A100 timing
# of that kind) {glue:text}`rt_lfl_ref_h100_pytorch:.1f` ms on H100 and
# {glue:text}`rt_lfl_ref_h200_pytorch:.1f` ms on H200 ({numref}`tbl-rt-lfl`).
#
# **Two comparisons.** A faster GPU at the papers' arrival rate is less loaded, so each rate-dependent
# experiment runs on H100 and H200 at the papers' rate ("same rate") and at the rate of equal
# utilisation ("same load"): the rate over the GPU's {term}`capacity` is the A100's. H100 serves
# {glue:text}`rt_cap_h100_lm:.2f` times and H200 {glue:text}`rt_cap_h200_lm:.2f` times as many
# LMSYS-like requests per second as A100, and {glue:text}`rt_cap_h100_code:.2f` and
# {glue:text}`rt_cap_h200_code:.2f` times as many of the code trace's long prompts
# ({numref}`tbl-rt-capacity`). The numbers behind the verdicts are folded below.
# ::::

# %%
gpu_rows = functools.partial(RP.rows_on_gpu, TABS)  # the rows of a gpu_* table run on one GPU
cells = RG.verdict_cells(GPUS_, rates_on, {"table1": T1, "alpha": G, "mixed": M2, "intervals": M3, "splitwise": SP},
                         gpu_rows, rate_hi=RATE_HI, rate_lo=RATE_LO, grid=grid, sizes=P["gpu_sizes"],
                         sw_rates=SW_RATES, smallest=smallest_stable_alpha, policy_label=policy_label)
# the α thresholds judged by their spread over the seeds; the Splitwise claims by their steady-state rates only
RR.merge_cells(cells, RR.alpha_spread_cells(GPUS_, rates_on, lambda h: G if h == "a100" else gpu_rows("gpu_alpha", h),
                                            "lmsys", RATE_HI, RATE_LO))
RR.merge_cells(cells, RR.steady_splitwise_cells(GPUS_, rates_on, SP, gpu_rows, SW_RATES, CAP))
VERDICT = RG.verdict_rows(cells)
offer_csv(VERDICT, "realtrace", "gpu-verdicts")
_left = {"text-align": "left"}
_cl = "claim (the paper's numbers: A100)"
glue("rt-tab-gpu-verdict", styled(RG.summary_table(cells, GPUS_).rename(columns={"claim": _cl}))
     .set_properties(subset=[_cl], **_left, **{"min-width": "19em"}), display=False)
glue("rt-tab-gpu-numbers", styled(VERDICT).set_properties(subset=["claim"], **_left), display=False)
_n_cells, _n_held = RG.decided(VERDICT, GPUS_)
g("rt_gpu_cells", _n_cells)
g("rt_gpu_held", _n_held)
g("rt_gpu_status", RX.share_status(_n_held, _n_cells))
g("rt_gpu_runs", P["gpu_runs"])
for h in ("a100", "h100", "h200"):
    g(f"rt_ref_{h}", reference_round_ms(h))
glue_all(RR.capacity_values(CAP, LM_LABEL))
# the other kind of measurement (our PyTorch timings of H100 and H200) as a sensitivity: its capacity rows
_pt_keys = RG.sensitivity_capacity_keys(CAP_KEYS)
CAP_PT = store.table("gpu_capacity_pytorch", capacity_row, _pt_keys, jobs=n_jobs).frame if _pt_keys else CAP.iloc[:0]
glue_all(RG.like_for_like_values(pd.concat([CAP, CAP_PT]), LM_LABEL))
# 001 Table 1 on every GPU, side by side (mean latency of the finished runs, s)
_t1g = RR.table1_on_gpus(T1, TABS["gpu_table1"][1], gpu_rows, rates_on, OTHER, RATE_HI)
glue_all(RR.gpu_values(_t1g, ORDER1, TABS))

# %% [markdown]
# ::::{dropdown} The runs behind the verdicts: the numbers, capacity, 001 Table 1 on each GPU
# :::{glue:figure} rt-tab-gpu-numbers
# :name: tbl-rt-gpu-numbers
# :figclass: kvbook-table
#
# The verdicts of {numref}`tbl-rt-gpu-verdict` with the numbers that decide them: average latencies
# (s) of the two compared policies or configurations (001 Table 1: over the finished runs, {glue:text}`rt_t1_runs:d` on A100,
# {glue:text}`rt_gpu_runs:d` on H100 and H200), the range over the seeds of the smallest loop-free α with its
# arrival rate ("matches" when 001's value lies in it), latency ratios at the largest size of 002 and 003, and
# the range of MC-SF's latency over the next best policy's across the steady-state Splitwise rates (rates above
# the GPU's capacity for the trace are overloaded and left out, as named).
# :::
#
# :::{glue:figure} rt-tab-capacity
# :name: tbl-rt-capacity
# :figclass: kvbook-table
#
# Each GPU's capacity for each workload: requests per second served by MC-SF with all requests at
# $t = 0$, and the mean batch time.
# :::
#
# :::{glue:figure} rt-tab-gpu-t1
# :name: tbl-rt-gpu-t1
# :figclass: kvbook-table
#
# 001 Table 1's configurations on each GPU (average latency in seconds over the finished runs at
# {glue:text}`rt_t1_n:d` requests; A100 at {glue:text}`rt_t1_rate:g` requests per second; H100 and H200 at the papers' rate and
# at the same-utilisation rate), and on A100 with the assumed attention of earlier versions; a mean that
# leaves out unfinished runs says how many ({glue:text}`rt_gpu_t1_unfinished:d` in all).
# :::
#
# Where the rows come from: {glue:md}`cap_gpu`.
# ::::
#
# ::::{dropdown} One kind of measurement per comparison, and decode attention against the measured grid
# :::{glue:figure} rt-tab-lfl
# :name: tbl-rt-lfl
# :figclass: kvbook-table
#
# Reference round ({glue:text}`rt_ref_batch:d` requests holding {glue:text}`rt_ref_tokens:,d` cached tokens) and
# capacity per GPU, within each
# comparison relative to its first GPU. Like for like: every GPU's non-attention times from Vidur's
# profiles (H200: Vidur's H100 scaled by our measured H200/H100 operator ratios); H200 serves
# {glue:text}`rt_lfl_vidur_lm:.2f` times as many LMSYS-like requests per second as H100 and
# {glue:text}`rt_lfl_vidur_code:.2f` times as many of the code trace's. Sensitivity: our PyTorch
# timings alone, {glue:text}`rt_lfl_pytorch_lm:.2f` and {glue:text}`rt_lfl_pytorch_code:.2f` times. Attention
# is Vidur's profile on A100 and our timings on H100 and H200 in both (no other exists).
# :::
#
# :::{glue:figure} rt-tab-atterr
# :name: tbl-rt-atterr
# :figclass: kvbook-table
#
# Decode attention per layer, model against measured (|relative error|, %): the straight-line fit of
# earlier versions (A100 median {glue:text}`rt_atterr_a100_line_median:.1f` %, 95th percentile
# {glue:text}`rt_atterr_a100_line_p95:.1f` %) and the surface interpolated on the measured grid in
# log batch size and log context length (A100 {glue:text}`rt_atterr_a100_grid_median:.1f` % and
# {glue:text}`rt_atterr_a100_grid_p95:.1f` %, worst {glue:text}`rt_atterr_a100_grid_max:.1f` % where Vidur's
# 1 µs steps are sharper than the surface). On H100 and H200 the surface passes through every measured
# point; "held out" predicts each of their points from its neighbours two grid steps apart, a pessimistic
# bound on the error between measured points (A100: the rows off the surface's knots).
# :::
#
# How this is checked: `tests/test_serving_like_for_like.py`.
# ::::

# %%
SG = RR.sharegpt_frames(TABS)  # the ShareGPT V3 runs of every GPU
SG_CELLS = RR.sharegpt_cells(GPUS_, rates_on, SG, RATE_HI, RATE_LO)
_sg = RR.sharegpt_values(SG, ORDER1, SG_CELLS, cells, GPUS_, tab1, {nm: TABS[nm][0].label for nm in RP.SHAREGPT_TABLES},
                         RATE_HI)
glue_all(_sg)
g("rt_sg_status", RX.share_status(_sg["rt_sg_held"], _sg["rt_sg_cells"]))
offer_csv(RR.sharegpt_verdict_table(SG_CELLS, cells, GPUS_), "realtrace", "sharegpt-verdicts")
g("rt_sg_load", RR.load_text(CAP, "sharegpt", "a100", P["rates"]))
g("rt_sg_alpha_grid_txt", ", ".join(map(str, P["sg_alpha_grid"][:2])) + ", ..., " + str(P["sg_alpha_grid"][-1]))
g("rt_sg_kept", int(next(r["n"] for r in _tr if r["trace"] == "sharegpt-words")))
g("rt_sg_out_median", float(next(r["output_median"] for r in _tr if r["trace"] == "sharegpt-tokens")))
g("rt_sg_source", RR.sharegpt_source_note(next(r["label"] for r in _tr if r["trace"] == "sharegpt-tokens")))

# %% [markdown]
# (sec-rt-sharegpt)=
# ## Real conversations: ShareGPT V3
#
# The papers' random samples of LMSYS conversations are not available, so every experiment above runs on
# synthetic lengths fitted to three published statistics. {term}`ShareGPT V3` is a public set of real user-chatbot
# conversations (the data set of the serving benchmark of {term}`vLLM`, an LLM serving engine); we re-run three
# experiments on the lengths of their first turns (details folded).
#
# ::::{dropdown} The conversations, the filter and the three experiments
# The shared data directory holds the lengths of
# their first turns (first question, first reply) in Llama-2 tokens and in words. We keep the
# {glue:text}`rt_sg_kept:,d` conversations that pass vLLM's benchmark filter (prompt and reply at least
# {glue:text}`rt_sg_min_tokens:d` tokens, prompt at most {glue:text}`rt_sg_max_prompt:,d`, both together at most
# {glue:text}`rt_sg_max_total:,d`; SHA-256 of the file
# {glue:text}`rt_sg_sha`) and re-run three experiments on them, on each GPU, beside the synthetic rows:
# 001 Table 1 and the smallest loop-free α at both demands on **word** counts (001 Section 5.2 takes each
# word as a token), 002's mixed workload with ShareGPT as its short 80 % and arXiv as its long 20 %, and
# 003 Experiment 1 (every interval [1, 1000]) on tokens. These are {glue:text}`rt_sg_label`: their replies are
# far longer (median {glue:text}`rt_sg_out_median:.0f` tokens against 43 in 003's LMSYS sample), so a verdict here says how a claim fares on
# another real workload of the same kind, not whether the paper's numbers are right. On the A100, 001's rates
# are {glue:text}`rt_sg_load`. {glue:text}`rt_sg_source`
# ::::
#
# Of the {glue:text}`rt_sg_cells:d` verdicts on the three GPUs, {glue:text}`rt_sg_held:d` hold or match
# (the tables are folded).
#
# ::::{dropdown} Every claim on ShareGPT V3, on each GPU: the verdicts
# :::{glue:figure} rt-tab-sg-verdict
# :name: tbl-rt-sg-verdict
# :figclass: kvbook-table
#
# The papers' claims on {glue:text}`rt_sg_label`, on each GPU (same rate and same load as in
# {numref}`tbl-rt-gpu-verdict`), beside the verdict on the synthetic LMSYS-like lengths on A100; the same rules
# decide every cell ({download}`CSV </chapters/tables/realtrace-sharegpt-verdicts.csv>`).
# :::
# ::::
#
# ::::{dropdown} 001 Table 1, 002 and 003 on ShareGPT V3: the numbers
# On the A100 with ShareGPT lengths: MC-SF {glue:text}`rt_sg_t1_sf`, MC-Benchmark
# {glue:text}`rt_sg_t1_mb` and Benchmark $\alpha = 0.3$ {glue:text}`rt_sg_t1_a3` (mean latency) over
# {glue:text}`rt_sg_t1_runs:d` runs ({glue:text}`rt_sg_t1_unfinished:d` unfinished); the smallest loop-free α
# (over α = {glue:text}`rt_sg_alpha_grid_txt`, which reaches further than the LMSYS-like grid because the longer
# replies loop up to larger α, {glue:text}`rt_alpha_seeds:d` seeds per point): {glue:text}`rt_sg_alpha_hi` and
# {glue:text}`rt_sg_alpha_lo`; 002: {glue:text}`rt_sg_mixed`; 003 Experiment 1,
# $\mathcal{A}_{\min}$ against $\mathcal{A}_{\max}$: {glue:text}`rt_sg_amin_amax`, against H-SF: {glue:text}`rt_sg_amin_hsf`.
#
# :::{glue:figure} rt-tab-sg-table1
# :name: tbl-rt-sg-table1
# :figclass: kvbook-table
#
# 001 Table 1's configurations on ShareGPT V3 word counts (A100, {glue:text}`rt_t1_n:d` requests per run at
# {glue:text}`rt_t1_rate:g` requests per second; mean and standard deviation over the finished runs, unfinished runs counted) beside
# our mean on the synthetic LMSYS-like lengths and 001's mean on its LMSYS sample.
# :::
#
# :::{glue:figure} rt-tab-sg-002
# :name: tbl-rt-sg-002
# :figclass: kvbook-table
#
# 002's mixed workload with ShareGPT V3 (tokens) as its short 80 % and arXiv as its long 20 %, all at
# $t = 0$, A100: average latency (s) of each scheduler against the number of requests.
# :::
#
# :::{glue:figure} rt-tab-sg-003
# :name: tbl-rt-sg-003
# :figclass: kvbook-table
#
# 003 Experiment 1 on ShareGPT V3 (tokens), every request's interval [1, 1000], all at $t = 0$, A100: average
# latency (s) of $\mathcal{A}_{\max}$, $\mathcal{A}_{\min}$ and H-SF against the number of requests.
# :::
#
# Where the rows come from: {glue:md}`cap_sharegpt`.
# ::::

# %% [markdown]
# (sec-rt-disagree)=
# ## Disagreements with the papers
#
# The full-mode numbers are recorded in {ref}`errata-001-real-data`. Three differences of input explain
# them: our absolute latencies, the α threshold and the low-demand slopes of Figure 3 (details folded).
#
# ::::{dropdown} The three differences, one by one
# * **Absolute latencies.** Our Table 1 latencies are {glue:text}`rt_t1_ratio:.2f` times
#   the paper's on average ({glue:text}`rt_t1_scale_note`). The inputs differ in
#   three ways we cannot remove: the LMSYS lengths are synthetic (matched only in range,
#   mean, median and variance of 003's *token* counts), while 001's lengths are *word* counts
#   (its Section 5.2 takes each word of a response as an output token), so the two workloads
#   measure the same conversations in different units against the same $M$; and
#   our batch-time model is a stand-in for Vidur's predictor (fitted to the same operator and
#   attention profiles, but without CPU or scheduling overheads).
# * **The α threshold** depends on the same two inputs and on our definition of an
#   endless clearing loop (a round budget), and it moves from seed to seed, so the verdict asks only
#   whether the paper's value lies within the range of our seeds' thresholds.
# * **Figure 3 slopes** at low demand: when the system keeps up with the arrivals the
#   average latency barely grows with the number of requests, and the fitted slope is
#   dominated by noise (the paper's 1/800 and 1/100 are small slopes too).
# ::::
#
# (sec-rt-verified)=
# ## What was verified, what was not, and timings

# %%
ELAPSED = _time.perf_counter() - _T0
g("rt_elapsed", ELAPSED)
g("rt_scale_note", "Quick mode runs far fewer and smaller instances than the papers." if Q
  else "The full mode runs the papers' numbers of requests wherever they state them.")

# %% [markdown]
# This run ({glue:text}`rt_mode` mode) took {glue:text}`rt_elapsed:.0f` s: the cells ran live at
# the build's commit, and each caption names where the rows of its stored table come from. Throughput of the
# simulator alone: `python benchmarks/realtime_throughput.py` (MC-SF, 10,000 requests by default,
# $M =$ {glue:text}`rt_memory:,d`).
#
# ::::{dropdown} What was verified and what was not
# *Verified:* the library's three LP models coincide at time step 1 (tests), and the
# bucket approximation's effect on the LP order and TEL was measured against the exact LP
# above; every schedule behind every number above (except runs declared endless
# and the sweeps marked unchecked for speed) passed the independent checker at round
# level (memory $\le M$ at every round, non-preemption or valid cancellations);
# {glue:text}`rt_refit_note`; the
# LMSYS-like mixture reproduces the published mean, median and variance; the traces'
# SHA-256 checksums are listed in {numref}`tbl-rt-files`.
#
# *Not verified:* that the bucket approximation of the LP behind Sorted-LP and LP-Swap
# changes their orders as little at {glue:text}`rt_002_n:d` requests as on the
# {glue:text}`rt_lpx_n:d`-request instance where it was compared with the exact LP; that our batch-time model matches Vidur's predictor (a
# regression over the same profiles, not run here); that the H100 and H200 kernel timings (plain PyTorch calls
# on one GPU) match a serving engine's kernels; that the synthetic
# LMSYS-like lengths behave like the real ones beyond the four published statistics
# (a reader with the data can pass `user_csv`); that the real ShareGPT V3 conversations, whose replies are
# longer, behave like the papers' LMSYS samples. {glue:text}`rt_scale_note`
# ::::
