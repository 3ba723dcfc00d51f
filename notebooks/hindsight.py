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
# (chapter-hindsight)=
# # The hindsight optimum
#
# :::{admonition} Findings
# :class: kvbook-findings
# - **001 Section 3** (the {term}`hindsight optimum`, {term}`OPT`, is the optimum of the time-indexed
#   integer program, {term}`IP`, (1)-(4)): **reproduced**. Built as printed, with a horizon we prove large
#   enough, it agrees with brute force on tiny instances and proves the optimum of
#   {glue:text}`small-proved-all:d` of {glue:text}`small-trials-all:d` instances of sizes
#   {glue:text}`small-nmin:d`-{glue:text}`small-nmax:d` within {glue:text}`small-limit:s` s each
#   ({ref}`small sizes <hindsight-small>`); at the paper's sizes it gives
#   {term}`certified intervals <certified interval>` only.
# - **001 Section 5.1, Figure 2 left** (on Arrival Model 1, {term}`AM1`, Memory-Constrained
#   Shortest-First, {term}`MC-SF`, averages {glue:text}`hs-paper-am1-avg:s` times OPT; the paper's
#   number): **erratum**. On {glue:text}`hs-am1-trials:d` instances of the paper's distribution a
#   schedule accepted by the checker beats MC-SF in {glue:text}`hs-am1-beaten:d`, and the average of
#   MC-SF / OPT lies in the certified interval [{glue:text}`hs-am1-avg-lo:s`, {glue:text}`hs-am1-avg-hi:s`]
#   ({ref}`solver runs <hindsight-solver>`, {ref}`erratum <errata-001-am1>`); {glue:text}`hs-readings-am1:s`
#   ({ref}`hindsight-readings`).
# - **001 Section 5.1, Arrival Model 1** (MC-SF equals OPT in {glue:text}`hs-paper-am1-matches:s`
#   trials; the paper's count): **erratum**. Under every order of equal output lengths we tried, MC-SF
#   equals the best schedule found in at most {glue:text}`tie-max-possible:d` of
#   {glue:text}`tie-trials:d` trials; a Fisher exact test gives $p =$ {glue:text}`tie-p-fisher:s` for
#   the paper's count on the same distribution ({ref}`tie orders <hindsight-ties>`). Where OPT is
#   proved, MC-SF is optimal in {glue:text}`small-am1-yes:d` of {glue:text}`small-am1-trials:d` AM1
#   instances.
# - **001 Section 5.1, Figure 2 right** (on Arrival Model 2, {term}`AM2`, MC-SF averages
#   {glue:text}`hs-paper-am2-avg:s` times OPT; the paper's number): **{glue:text}`hs-am2-status:s`**.
#   The paper's average lies {glue:text}`hs-am2-verdict:s`. The lower end comes from checked schedules
#   of a primal search ({ref}`primal search <hindsight-primal>`), which beat the solver's best schedule in
#   {glue:text}`hs-am2-search-better:d` of {glue:text}`hs-am2-trials:d` AM2 trials
#   ({ref}`solver runs <hindsight-solver>`, {ref}`erratum <errata-001-am2>`); {glue:text}`hs-readings-am2:s`.
# :::
#
# *Reading guide.* Following 001 {cite}`jaillet2025online`, the chapter builds the IP of Section 3
# ({ref}`hindsight-ip`), solves it on a tiny instance, shows why it is hard at the paper's sizes, and
# reproduces Section 5.1 with certified intervals of MC-SF / OPT, in solver runs at
# {glue:text}`hs-scale-words:s`. A
# hurried reader can skip to {ref}`hindsight-s51`; the solver's development is folded.

# %% tags=["parameters"]
mode = "quick"  # "quick": a few small trials (CI scale); "full": 001 Section 5.1 (200 trials, 40-60 requests)
seed = 0  # seeds every random instance of the chapter
trials = None  # trials per arrival model of the solver runs (None: 4 in quick mode, 200 in full mode)
n_min = None  # fewest requests of an Arrival Model 1 instance (None: 6 in quick mode, 40 in full mode)
n_max = None  # most requests of an Arrival Model 1 instance (None: 8 in quick mode, 60 in full mode)
horizon_min = None  # shortest arrival horizon of Arrival Model 2, rounds (None: 5 in quick mode, 40 in full mode)
horizon_max = None  # longest arrival horizon of Arrival Model 2, rounds (None: 7 in quick mode, 60 in full mode)
time_limit = None  # seconds per IP solve of the solver runs (None: 5 in quick mode, 30 in full mode)
threads = 2  # solver threads per IP solve
scan_trials = 200  # trials per arrival model of the solver-free scan, at the paper scale in both modes
search_evaluations = 6000  # list decodes of the primal search per trial of the solver runs
search_windows = 12  # CP-SAT windows of the primal search per trial of the solver runs
search_jobs = 2  # trials of the primal search computed at once

# %%
import time

import matplotlib.pyplot as plt
from IPython.display import display
from myst_nb import glue

from kvlib.core.checker import check_schedule
from kvlib.optimum.exact import lp_relaxation, solve
from kvlib.core.model import Instance, Schedule
from kvlib.policies import make_policy
from kvlib.core.simulate import simulate
from kvlib.book.chapters.hindsight import bench as bench
from kvlib.book.chapters.hindsight import page as page
from kvlib.book.gluing import glue_all
from kvlib.book.chapters.hindsight.rows import (SMALL_SIZES, SMALL_TABLE_OPTIONS, best_policy_trial, certified_small_keys,
                                  certified_small_trial, certified_trial, tiebreak_trial)
from kvlib.book.chapters.hindsight.search import search_trial
from kvlib.book.chapters.hindsight.inclusive import inclusive_trial
from kvlib.book.store import Store

if mode not in ("quick", "full"):
    raise ValueError(f"mode must be 'quick' or 'full', got {mode!r}")
DEFAULTS = {
    # quick: CI scale (clearly smaller than the paper's instances)
    "quick": dict(trials=4, n_min=6, n_max=8, horizon_min=5, horizon_max=7, time_limit=5.0),
    # full: 001 Section 5.1
    "full": dict(trials=200, n_min=40, n_max=60, horizon_min=40, horizon_max=60, time_limit=30.0),
}[mode]
trials = int(trials if trials is not None else DEFAULTS["trials"])
n_min = int(n_min if n_min is not None else DEFAULTS["n_min"])
n_max = int(n_max if n_max is not None else DEFAULTS["n_max"])
horizon_min = int(horizon_min if horizon_min is not None else DEFAULTS["horizon_min"])
horizon_max = int(horizon_max if horizon_max is not None else DEFAULTS["horizon_max"])
time_limit = float(time_limit if time_limit is not None else DEFAULTS["time_limit"])
scan_trials = int(scan_trials)
store = Store("hindsight", mode=mode, parameters=dict(
    mode=mode, seed=seed, trials=trials, n_min=n_min, n_max=n_max, horizon_min=horizon_min,
    horizon_max=horizon_max, time_limit=time_limit, threads=threads, scan_trials=scan_trials,
    search_evaluations=search_evaluations, search_windows=search_windows))
CHAPTER_START = time.perf_counter()
PAPER_SCALE = (n_min, n_max, horizon_min, horizon_max) == (40, 60, 40, 60)
glue_all(page.chapter_values(mode=mode, seed=seed, trials=trials, n_min=n_min, n_max=n_max,
                                horizon_min=horizon_min, horizon_max=horizon_max, time_limit=time_limit,
                                paper_scale=PAPER_SCALE, stored=store.policy != "off"))

# %% [markdown]
# (hindsight-ip)=
# ## The integer program (001 Section 3)
#
# Take an instance $(a_i, s_i, o_i)_{i=1}^n$ with memory limit $M$ and a horizon $\bar T$. The
# variable $x_{i,p} \in \{0, 1\}$ is $1$ when request $i$ starts at time $p$, for
# $a_i \le p \le L_i$ (latest starts $L_i$ below; $\bar T = \max_i (L_i + o_i)$):
#
# \begin{align*}
# & \min \; \sum_{i} \sum_{p = a_i}^{L_i} (p + o_i - a_i)\, x_{i,p} \tag{1}\\
# & \sum_{p = a_i}^{L_i} x_{i,p} = 1, \qquad i = 1..n \tag{2}\\
# & \sum_{i} \sum_{p = t - o_i}^{t - 1} (s_i + t - p)\, x_{i,p} \le M, \qquad t = 1..\bar T \tag{3}\\
# & x_{i,p} \in \{0, 1\}. \tag{4}
# \end{align*}
#
# * (1) is the total end-to-end latency ({term}`TEL`): a request started at $p$ completes at $p + o_i$.
# * (2) every request runs exactly once, without interruption (the model is non-preemptive).
# * (3) is the memory limit at every integer time: a run started at $p$ occupies the times
#   $p+1, \dots, p+o_i$ and holds $s_i + t - p$ tokens at time $t$ (the prompt plus the tokens produced
#   so far), so the inner sum runs over the starts $p \in [t - o_i, t - 1]$ (Section 3 also reads as if a
#   run held its prompt at time $p$ too: {ref}`hindsight-readings`).
# * (4) integrality.
#
# The library writes exactly this model with cvxpy and solves it
# with the open-source solver {term}`HiGHS` (details folded below).
#
# ::::{dropdown} What the solver returns, and two sound reductions
# `kvlib.optimum.exact.solve` hands cvxpy's problem
# data to HiGHS, injects the best heuristic schedule as a warm start, stops at a time limit and
# returns a `SolveResult`: a lower bound (HiGHS's dual bound rounded up, since TEL is an integer, and
# never below the solver-free bound), the best schedule found (validated by the
# independent checker) and its TEL, the solver status and wall time; `optimal` is true only when the
# two bounds meet. Two sound reductions are on by default: among *identical* requests (same $a, s, o$)
# start times are required to be non-decreasing in the index (any schedule can be relabelled so), and the
# latest starts $L_i$ of {prf:ref}`thm-horizon`.
# ::::
#
# ### A horizon that provably suffices
#
# 001 suggests "for instance $\bar T = \sum_i (a_i + o_i)$" without an argument. We use the following.
#
# :::{prf:theorem} Latest starts
# :label: thm-horizon
#
# Let $A = \max_i a_i$, let $U$ be the TEL of any feasible schedule, and let $\mathrm{LB}(I \setminus i)$
# be any lower bound on the optimal TEL of the instance without request $i$. Every optimal schedule
# satisfies, for every $i$,
# $c_i = p_i + o_i \le \min\big(A + \sum_j o_j,\; a_i + U - \mathrm{LB}(I \setminus i)\big)$.
# Hence the IP with $L_i = \min(A + \sum_j o_j,\, a_i + U - \mathrm{LB}(I\setminus i)) - o_i$ has the same
# optimal value as the IP on an unbounded horizon.
# :::
#
# ::::{dropdown} Proof of the latest-starts theorem
# :::{prf:proof}
# *First bound (left shift).* Let $S$ be optimal with makespan $C > A + \sum_j o_j$. The times
# $A+1, \dots, C$ are more than $\sum_j o_j$ in number and a run of request $j$ occupies $o_j$ of them, so
# some $\tau \in (A, C]$ is occupied by no run. Time $C$ is occupied (by the last run to complete), so
# some run starts at $p \ge \tau$. Move every run with $p \ge \tau$ one step earlier. This respects
# arrivals ($p - 1 \ge \tau - 1 \ge A \ge a_j$). Runs with $p < \tau$ do not occupy $\tau$, hence ended
# before $\tau$, so at every $t \ge \tau$ the new memory is the old memory at $t + 1$ (only moved runs
# contribute) and at $t < \tau$ nothing changed: the new schedule is feasible and its TEL is smaller,
# contradicting optimality.
#
# *Second bound (incumbent).* If $S$ is optimal, $\mathrm{TEL}(S) \le U$. Removing request $i$ from $S$
# leaves a feasible schedule of $I \setminus i$ (memory only decreases), whose TEL is at least
# $\mathrm{LB}(I\setminus i)$. So $c_i - a_i = \mathrm{TEL}(S) - \mathrm{TEL}(S \setminus i)
# \le U - \mathrm{LB}(I \setminus i)$.
# :::
# ::::
#
# In particular the paper's suggestion $\bar T = \sum_i (a_i + o_i)$ is large enough: with
# $a_i \ge 0$ it is at least $A + \sum_i o_i$, the first bound. The theorem supplies the argument the
# paper leaves out.
#
# For $\mathrm{LB}$ we use the solver-free *memory-volume bound* (the argument behind
# 001 Lemma 4.7): the $k$-th completion satisfies $c_{(k)} \ge (a+o)_{(k)}$ and
# $c_{(k)} \ge \min_i a_i + \lceil W_k / M \rceil$, with $W_k$ the sum of the $k$ smallest volumes
# $w_i = s_i o_i + o_i(o_i+1)/2$. These volume inequalities are sums of rows (3), so the linear-programming
# ({term}`LP`) relaxation
# already implies them: they shrink the model, they do not tighten its relaxation.

# %% [markdown]
# ## A tiny instance, solved
#
# Six requests, all arriving at $t = 0$, with $M = 12$:

# %% tags=["teach"]
tiny = Instance.at_zero([2, 1, 3, 1, 2, 1], [4, 6, 2, 3, 5, 2], 12)
tiny_res = solve(tiny, time_limit=30, threads=threads)
tiny_rep = check_schedule(tiny, Schedule(tiny_res.starts))
assert tiny_res.optimal and tiny_rep.valid and tiny_rep.tel == tiny_res.upper
tiny_mcsf = simulate(tiny, make_policy("mc-sf"), seed=0)
assert check_schedule(tiny, tiny_mcsf.schedule).valid
tiny_lp = lp_relaxation(tiny)

# %%
glue_all(page.tiny_values(tiny, tiny_res, tiny_mcsf, tiny_lp))

# %%
fig = page.tiny_figure(tiny, tiny_res, tiny_mcsf)
glue("hs-fig-tiny", fig, display=False)
plt.close(fig)

# %% [markdown]
# The optimum has TEL {glue:text}`hs-tiny-opt:d` (proved in {glue:text}`hs-tiny-seconds:s` s), MC-SF
# reaches {glue:text}`hs-tiny-mcsf:d`, and the LP relaxation gives {glue:text}`hs-tiny-lp:s`. Each bar is a
# run from $p_i$ to $p_i + o_i$; the lower panels show the memory held at every integer time, which
# the checker verifies to stay at or below $M$ ({ref}`figure <fig-hs-tiny>`).
#
# ::::{dropdown} The instance and both schedules, as numbers
# ```{glue:} hs-tiny-table
# ```
# ::::
#
# ```{glue:figure} hs-fig-tiny
# :name: fig-hs-tiny
#
# The hindsight-optimal schedule (left) and MC-SF's (right) on the six-request instance ($M = 12$,
# all requests at $t = 0$; the same in quick and full mode): each run as a bar over the rounds it
# occupies (top; the tick marks the arrival) and the tokens held at every time (bottom; red: $M$).
# ```
#
# ## The LP relaxation and why the IP is hard
#
# Relaxing (4) to $0 \le x_{i,p} \le 1$ gives the LP relaxation (002 Section 6 calls this relaxation
# of the integer variables Relax-LP, its eq. (8)). On small Section 5.1 instances (Arrival Model 1,
# fixed $n$) we compare the LP value, the certified IP interval and MC-SF (the lower bounds also come from
# the bounds of the next sections: the constraint-programming solver {term}`CP-SAT` and a mixed-integer
# program, {term}`MIP`, over peak conflicts; the table is folded below).

# %%
lp_sizes = [6, 8, 10] if mode == "quick" else [6, 8, 10, 12]
lp_table = page.lp_comparison(seed, lp_sizes, time_limit=time_limit, threads=threads)
glue("hs-lp-table", page.lp_display(lp_table), display=False)
glue_all(page.lp_values(lp_table))

# %%
size_table = page.model_sizes(seed, [10, 20, 40, 60])
glue_all(page.size_values(size_table))

# %% [markdown]
# ::::{dropdown} The LP value, the certified IP interval and MC-SF on small instances
# ```{glue:} hs-lp-table
# ```
# ::::
#
# ::::{dropdown} Where each lower bound of that table came from
# ```{glue:} hs-lp-source-table
# ```
# ::::
#
# The LP value is between {glue:text}`hs-lp-ratio-min:s` and {glue:text}`hs-lp-ratio-max:s` of the best
# schedule's TEL on these instances: a fractional solution can start a small fraction of every request
# early, at little memory cost at any one time (why, folded).
#
# ::::{dropdown} Why the relaxation is weak
# The memory rows (3) only limit the *sum* of fractional profiles, and each request's profile grows
# linearly, so spreading a request over many start times costs little memory at any one time.
# ::::
#
# The model is also large: at $n = 60$ it has {glue:text}`hs-size-cols60:s` binary columns and
# {glue:text}`hs-size-nnz60:s` non-zeros in rows (3).
#
# ::::{dropdown} The model's size at 10 to 60 requests, and which horizon decides
# Its size follows from {prf:ref}`thm-horizon` without building it: the
# number of columns is $\sum_i (L_i - a_i + 1)$, and row (3) has $\sum_i o_i (L_i - a_i + 1)$
# non-zeros. For the paper's scale:
#
# ```{glue:} hs-size-table
# ```
#
# At $n = 60$ the model has {glue:text}`hs-size-cols60:s` binary columns and {glue:text}`hs-size-nnz60:s`
# non-zeros in rows (3), over a proved horizon of {glue:text}`hs-size-h60:d` although the heuristic
# schedule ends at {glue:text}`hs-size-mk60:d`: on these instances the incumbent bound of
# {prf:ref}`thm-horizon` is not the binding one, because the volume bound $\mathrm{LB}$ is far from
# the optimum, and the left-shift horizon $A + \sum o_j$ decides.
# ::::
#
# ### A second exact model: CP-SAT with an interval encoding
#
# The staircase memory of a run is a sum of rectangles: a request started at $p$ holds $s_i$ from
# $p+1$ to $p+o_i$, plus one token for each $k = 1..o_i$ from $p+k$ to $p+o_i$. So (3) is *exactly*
# one cumulative constraint of capacity $M$ over $o_i + 1$ intervals per request, all tied to one
# integer start variable $p_i$ (OR-Tools CP-SAT; proof of the equivalence in the
# module docstring). Its optimum is OPT and its proved objective bound is a valid lower bound. Two
# sound redundant constraints are added: identical requests start in index order, and requests that
# can never run at a common time are put in a no-overlap constraint:
#
# :::{prf:lemma} Non-overlapping pairs
# :label: lem-nonoverlap
#
# If $s_i + o_i + s_j + 1 > M$ and $s_j + o_j + s_i + 1 > M$, no feasible schedule runs $i$ and $j$ at
# a common integer time.
# :::
#
# ::::{dropdown} Proof of the lemma, and how `solve` uses CP-SAT
# :::{prf:proof}
# Suppose both run at time $t$ and let $c = \min(c_i, c_j) \ge t$, say $c = c_i$. At time $c$ both
# still run ($j$ started before $t$ and ends at $c_j \ge c$); $i$ holds $s_i + o_i$ (its last step) and
# $j$ at least $s_j + 1$, more than $M$ in total: a contradiction.
# :::
#
# The exact solver runs CP-SAT first (in a child process: the OR-Tools wheel bundles its own HiGHS
# and cannot share a process with `highspy`), then HiGHS warm-started from the better schedule; the
# time limit covers the heuristic incumbent, CP-SAT, the model build and HiGHS. On the tiny instance
# above CP-SAT proves the same optimum, in {glue:text}`hs-tiny-cp-seconds:s` s including the start of the
# child process (checked in the code cell below).
# ::::

# %%
from kvlib.optimum.cpsat import cpsat_solve_subprocess, non_overlap_cliques

tiny_cp = cpsat_solve_subprocess(tiny, time_limit=20, workers=threads)
assert tiny_cp.status == "OPTIMAL" and tiny_cp.tel == tiny_res.upper
assert check_schedule(tiny, Schedule(tuple(int(p) for p in tiny_cp.starts))).tel == tiny_res.upper
glue("hs-tiny-cp-seconds", f"{tiny_cp.seconds:.1f}", display=False)

# %% [markdown]
# ### A lower bound without time indices: peak conflicts
#
# The LP relaxation is weak because it can spread requests. A relaxation over *completion times*
# cannot, and one structural fact makes it strong where the LP is weakest, on long requests:
#
# :::{prf:lemma} Peak conflicts
# :label: lem-peak-conflict
#
# Let $P_i = s_i + o_i$ (the tokens request $i$ holds in its last round). If $P_i + P_j > M$ then in
# every feasible schedule $c_i \le c_j$ implies $c_j \ge c_i + d_{ij}$ with
# $d_{ij} = \min(o_j, P_i + P_j - M) \ge 1$.
# :::
#
# Built on it, the *separation bound* (a cutting-plane LP
# over completion times whose value is valid after any round) raises the lower bound where many requests
# have peaks above $M/2$; `solve` starts with it. The proof, the construction and its tests are folded.
#
# ::::{dropdown} Proof of the lemma, and the separation bound built on it
# :::{prf:proof}
# In round $c_i$ request $i$ holds $P_i$ tokens. If $j$ runs in that round it holds
# $s_j + (c_i - p_j) \le M - P_i$ tokens, so it has made at most $M - P_i - s_j$ rounds of progress
# and $c_j = p_j + o_j \ge c_i + o_j - (M - P_i - s_j) = c_i + P_i + P_j - M$. If it does not run in
# round $c_i$ then, as $c_j \ge c_i$, it starts at $p_j \ge c_i$ and $c_j \ge c_i + o_j$.
# :::
#
# For $\theta \ge 1/2$ every pair in $K_\theta = \{j : P_j > \theta M\}$ conflicts. With
# $\tau_j = \min(P_j - M/2,\ \min_{K_\theta} o/2)$ we get $\tau_i + \tau_j \le \min(d_{ij}, d_{ji})$, so
# by the lemma the intervals $[c_j - \tau_j, c_j + \tau_j)$, $j \in K_\theta$, are pairwise disjoint
# and start no earlier than $a_j + o_j - \tau_j$: a one-machine schedule with processing times
# $2\tau_j$. Its completion times satisfy Queyranne's inequalities
# $\sum_{j \in S} p_j E_j \ge r(S)\,p(S) + \tfrac12\big(p(S)^2 + \sum_{j\in S} p_j^2\big)$ for every
# $S \subseteq K_\theta$, and so do the completion times of all requests with $p_j = w_j/M$ (the
# memory-volume argument). It minimises $\sum_i c_i$ over these
# inequalities (for $\theta = 0.5, 0.55, \dots, 0.95$) by a cutting-plane loop: an LP in $n$ variables
# whose value is valid after any round (its times on the benchmark suite are in the first dropdown of
# {ref}`hindsight-solver-dev`). `solve` starts with it.
# Tests check the lemma and the disjointness on every schedule of six policies over 25 random
# instances (and that the separation is attained), and the bound against brute force. The same
# inequalities plus the disjunctions of the lemma as a mixed-integer program are
# stronger on small instances (it proves {glue:text}`hs-lp-by-mip:d` of the {glue:text}`hs-lp-n:d`
# instances of the LP table above optimal by meeting the best schedule: column "lower bound from"). In our
# runs of `benchmarks/peak_conflict_bound.py` (not repeated by this chapter) HiGHS did not solve that
# MIP within 30 s for the suite instances with $n \ge 20$, so the IP path (`solve(..., method="ip")`)
# runs it only for $n \le 12$, for at most $\min(5, 0.15\,T)$ seconds.
# ::::

# %%
# the benchmark files of the exact solver and of the LP (read, not recomputed); tables shown folded
scaling = bench.benchmark_rows("benchmarks/exact_scaling_results.jsonl")
alone = bench.benchmark_rows("benchmarks/exact_alone_results.jsonl")
alone = alone[alone.solver == "pipeline"]
glue_all(bench.suite_values(bench.benchmark_rows("benchmarks/exact_suite_results.jsonl")))
glue_all(bench.scaling_values(scaling))
glue_all(bench.certified_small_bench_values(bench.benchmark_rows("benchmarks/section51_certified_results.jsonl")))
glue_all(bench.alone_values(scaling, alone))
glue_all(bench.colgen_values(bench.benchmark_rows("benchmarks/lp_colgen_results.jsonl")))
glue_all(bench.lift_values(bench.benchmark_rows("benchmarks/lp_lifted_results.jsonl")))
glue_all(bench.beyond_values(bench.benchmark_rows("benchmarks/beyond_lp_results.jsonl")))
glue_all(bench.destructive_values(alone, bench.benchmark_rows("benchmarks/exact_destructive_results.jsonl")))
# the pipeline's budgets, as the prose below states them
glue_all(bench.pipeline_budget_values())

# %% [markdown]
# (hindsight-solver-dev)=
# ### The solver, measured
#
# The solver behind the Section 5.1 runs below runs by default an
# LP-guided pipeline: conflict families for the separation bound of {prf:ref}`lem-peak-conflict`, a
# CP-SAT search for schedules, the time-indexed LP with family rows and reduced-cost fixing, and for
# $n \le$ {glue:text}`hs-pipe-exact-max-n:d` an event-based CP-SAT proof (details in the second dropdown). Within a minute on two cores
# it proves {glue:text}`hs-pipe-proved:d` of the {glue:text}`hs-pipe-runs:d` instances of the scaling
# benchmark, the largest at $n =$ {glue:text}`hs-pipe-proved-max-n:d`, and leaves a final gap of
# {glue:text}`hs-pipe-gap40:s`% at $n = 40$. A free machine, column generation, the first level of the
# Sherali-Adams lift (it closes at most {glue:text}`hs-lift-best:.0f`% of the LP's gap on any instance)
# and searches just above the LP do not close that gap: at the paper's sizes the lower bound, not the
# schedules, keeps it open, so Section 5.1 below reports certified intervals.
#
# The dropdowns keep the measurements behind these choices. Their tables are **read from the files
# committed under `benchmarks/`** that each dropdown names (written by the benchmark script of the same
# name); building this page does not recompute them. The files, for download: {download}`exact_suite_results.jsonl </benchmarks/exact_suite_results.jsonl>`, {download}`exact_scaling_results.jsonl </benchmarks/exact_scaling_results.jsonl>`, {download}`exact_alone_results.jsonl </benchmarks/exact_alone_results.jsonl>`, {download}`lp_colgen_results.jsonl </benchmarks/lp_colgen_results.jsonl>`, {download}`lp_lifted_results.jsonl </benchmarks/lp_lifted_results.jsonl>`, {download}`beyond_lp_results.jsonl </benchmarks/beyond_lp_results.jsonl>`, {download}`exact_destructive_results.jsonl </benchmarks/exact_destructive_results.jsonl>`, {download}`exact_long_results.jsonl </benchmarks/exact_long_results.jsonl>`.
#
# ::::{dropdown} The first ideas, measured on a fixed suite
# `benchmarks/exact_suite.py` solves a fixed seeded suite (AM1 with $n$ = 10, 15, 20, 30, 40, 60 and two
# AM2 instances) with a 30 s limit per solve on 2 cores. The table below is **read from the committed
# file `benchmarks/exact_suite_results.jsonl`** (measured on 2 cores shared with other jobs, so the
# seconds are inflated and noisy; it is not recomputed when this chapter runs). Configurations, each
# adding one idea to the one before: *IP via cvxpy* is the formulation through cvxpy with the incumbent
# windows, warm start and symmetry breaking (the first configuration); *sparse build* builds the same
# matrix with `scipy.sparse` (`kvlib.optimum.exact.build_sparse`, checked equal to cvxpy's by a test);
# *+ CP-SAT* adds a CP-SAT phase (30% of the limit); *+ presolve off* switches HiGHS's presolve off and
# sizes the CP-SAT phase by whether HiGHS has time for its root LP; *+ separation* first computes the
# separation bound of {prf:ref}`lem-peak-conflict` above; *+ MIP* then runs the peak-conflict MIP for
# $n \le 12$ (the default of `solve`). Each cell is the final relative gap (upper - lower) / upper in
# percent and the wall seconds of the whole call.
#
# ```{glue:} hs-tbl-ideas
# ```
#
# ```{glue:} hs-tbl-sep
# ```
#
# (`*` marks a proved optimum.) Before: {glue:text}`hs-bench-proved-before:d` of
# {glue:text}`hs-bench-instances:d` instances proved, final gaps
# {glue:text}`hs-bench-gap-before-min:.1f`-{glue:text}`hs-bench-gap-before-max:.1f`%, and the
# slowest call took {glue:text}`hs-bench-sec-before-max:.0f` s for a 30 s limit (HiGHS's presolve,
# which reduced nothing on these models, ignored the limit; model build at most
# {glue:text}`hs-bench-build-before-max:.1f` s). After: {glue:text}`hs-bench-proved-after:d` proved,
# gaps {glue:text}`hs-bench-gap-after-min:.1f`-{glue:text}`hs-bench-gap-after-max:.1f`%, slowest call
# {glue:text}`hs-bench-sec-after-max:.0f` s (build at most {glue:text}`hs-bench-build-after-max:.1f` s).
# The sparse builder removes the build cost; CP-SAT finds better schedules on the small instances
# (it is also what proves small instances fastest, e.g. the tiny one above); switching presolve off
# makes the time limit hold and lets HiGHS reach its root LP and cuts at $n = 40$-$60$; the separation
# bound of {prf:ref}`lem-peak-conflict` raises the lower bound where many requests have peaks above
# $M/2$ (it is above the volume bound on {glue:text}`hs-sep-above-volume:d` of the
# {glue:text}`hs-bench-instances:d` suite instances and is the reported lower bound on
# {glue:text}`hs-sep-is-lower:d` of them; at most {glue:text}`hs-sep-max-seconds:.1f` s each) and
# does nothing where few do.
# None of this closes the gap at the paper's scale: the remaining gap is the weakness of the lower
# bound (the LP relaxation is only a few percent above the solver-free volume bound at $n \ge 30$, and
# the separation LP ignores interactions among three or more requests), not the schedules. What did
# *not* help: the aggregated formulation (same LP value), warm start and symmetry breaking on their
# own, and clique and Chvátal-Gomory rounding rows derived from the memory rows, added to the LP up front (in ad-hoc runs
# on the $n \le 20$ suite instances, not kept in the suite file, they barely moved the LP value; HiGHS's
# own cut rounds do better but are slow).
# ::::
#
# ::::{dropdown} The LP-guided pipeline
# `solve` now runs, by default, a pipeline whose steps are each valid on their own
# (`kvlib.optimum.pipeline.solve_pipeline`; the IP above is `method="ip"`). First, an instance whose
# arrivals leave an idle gap (MC-SF has finished every earlier request by the next arrival) is split
# there: the parts are solved apart, each shifted to start at round 0, their lower bounds add up (a
# schedule of the whole restricted to a part is a schedule of the part) and their schedules, once the
# checker accepts their union, make one schedule (`kvlib.optimum.decompose`). Then, per part:
# 0. the primal list search of `kvlib.optimum.search` (below), for up to {glue:text}`hs-pipe-search-share:s`% of the
#    time limit and at most {glue:text}`hs-pipe-search-lists:s` lists, from the best policy schedule; its checked schedule is the incumbent of the next steps
#    (when the time-indexed LP of step 3 will run, the search gets only the
#    {glue:text}`hs-pipe-upper-share:s`% slot of the upper-bound search of step 2, which is then skipped, so
#    that the LP, the source of the lower bound, keeps its share of the limit);
# 1. tighter conflict families: for each $\theta$, half-widths $\tau_j$ raised one request at a time
#    while $\tau_i + \tau_j \le D_{ij}$ for every pair (by {prf:ref}`lem-peak-conflict` the intervals
#    $[c_j - \tau_j, c_j + \tau_j)$ are then pairwise disjoint), fed to the separation bound;
# 2. an upper-bound search: CP-SAT on the exact interval encoding below, started from the best
#    heuristic schedule, for {glue:text}`hs-pipe-upper-share:s`% of the time limit (skipped when the LP of the next step
#    will run, since step 0 has its slot then; half of the time limit when the LP is too large to run, all of it
#    when nothing else will run); a better schedule, once the checker accepts
#    it, shrinks the horizon of {prf:ref}`thm-horizon` for the next steps;
# 3. the time-indexed LP with one row per family and half-integer point (at most one of the family's
#    intervals covers it), added lazily; its bound is recomputed from the duals (sign-clipped, so valid
#    by weak duality for any duals) and rounded up. It uses one thread; a second upper-bound search
#    runs on the other meanwhile;
# 4. reduced-cost fixing: a start whose reduced cost lifts the LP bound above the best TEL minus one is
#    removed;
# 5. for $n \le$ {glue:text}`hs-pipe-exact-max-n:d`, an event-based CP-SAT model over the remaining starts: memory is checked only at
#    the $n$ completion rounds (between two completions no request leaves and every running request
#    grows, so the peak of such a stretch is at its last round), with the objective below the best TEL;
#    an infeasible model proves the best schedule optimal. For larger $n$ it proved nothing within a
#    minute, so the time left goes to a last upper-bound search instead.
#
# `benchmarks/exact_scaling.py` compares it with HiGHS, the open-source solver SCIP and CP-SAT on the plain model, and with
# the pipeline as it was before its upper-bound search; its runs predate step 0 and the split. The table is **read from the committed file
# `benchmarks/exact_scaling_results.jsonl`** (column *seeds*: instances per size that any solver ran;
# 60 s per solve, 2 cores shared with other jobs; it is not recomputed when this chapter runs). A cell
# is the time to proof or the final gap (upper - lower) / upper; with several seeds, each cell counts
# its own runs (a solver run on fewer seeds than the others shows "k/1" or "k/2"), how many were proved,
# and the mean and largest gap.
#
# ```{glue:} hs-tbl-scaling
# ```
#
# Threads per solve, as the rows record them: {glue:text}`hs-bench-threads:s`.
# The pipeline proves {glue:text}`hs-pipe-proved:d` of these {glue:text}`hs-pipe-runs:d` instances, the
# largest at $n =$ {glue:text}`hs-pipe-proved-max-n:d`; at $n = 20$ its final gap is
# {glue:text}`hs-pipe-gap20:s`% and at $n = 40$ {glue:text}`hs-pipe-gap40:s`% (HiGHS on the plain IP:
# {glue:text}`hs-highs-gap40:s`%). The upper-bound search of step 2 is what moved these numbers: on the
# {glue:text}`hs-pipe-paired:d` instances with $n \ge 20$ solved with and without it, the mean gap is
# {glue:text}`hs-pipe-gap-big:.1f`% against {glue:text}`hs-pipe-gap-big-v1:.1f`%, and the schedule found
# is better in {glue:text}`hs-pipe-upper-better:d` of them, while the lower bound rose in only
# {glue:text}`hs-pipe-lower-better:d` (by at most {glue:text}`hs-pipe-lower-gain:.2f`%, through the
# tighter horizon of a better schedule): the lower bound is now what keeps the gap open. So the paper's sizes ($n = 40$-$60$) stay out of reach of a proof within
# a minute on two cores; the Section 5.1 table below therefore reports certified intervals. On the small AM1 instances of `benchmarks/section51_certified.py` (file
# `benchmarks/section51_certified_results.jsonl`, read from the committed file, not recomputed; $n = 6$-$15$,
# three seeds per size) the pipeline
# proved {glue:text}`hs-small-proved:d` of {glue:text}`hs-small-total:d` instances (all with
# $n \le$ {glue:text}`hs-small-nmax:d`); on those, MC-SF / OPT has mean
# {glue:text}`hs-small-mean:.4f` and maximum {glue:text}`hs-small-max:.4f`, and MC-SF is exactly
# optimal on {glue:text}`hs-small-exact:d` of them (001 reports a mean of {glue:text}`hs-paper-am1-avg:s`
# and exact matches in {glue:text}`hs-paper-am1-matches:s` trials at $n = 40$-$60$, the paper's numbers; the
# sizes differ, so this is no comparison).
# ::::
#
# (hindsight-alone)=
# ::::{dropdown} The minute, run alone
# The runs above shared the machine's two cores with other jobs. The same script, run one instance at a
# time with nothing else on the machine (`--sizes 10,12,15,20,30,40,50,60 --solvers pipeline
# --conditions alone --out benchmarks/exact_alone_results.jsonl`; **read from the committed file**, not
# recomputed here), gives the second column of the next table: the same instances, the same 60 s on
# two threads.
#
# ```{glue:} hs-tbl-alone
# ```
#
# Alone, the pipeline proves {glue:text}`hs-alone-small-proved:d` of the
# {glue:text}`hs-alone-small-runs:d` instances with $n \le$ {glue:text}`hs-alone-nmax:d`
# (shared: {glue:text}`hs-alone-small-shared:d`); the {glue:text}`hs-alone-open-small:d` left open end
# with gaps of at most {glue:text}`hs-alone-open-gap:.1f`%. From $n = 20$ on it proves
# {glue:text}`hs-alone-big-proved:d`, and the mean gaps are: {glue:text}`hs-alone-gaps:s`. Of these
# {glue:text}`hs-alone-big-runs:d` instances, the lower bound is the same on both machines in
# {glue:text}`hs-alone-big-same-lower:d` and higher alone in {glue:text}`hs-alone-big-higher-lower:d`,
# while the schedule found is better alone in {glue:text}`hs-alone-big-better-upper:d` (the lower bound
# rises alone where the time-indexed LP gets further within its share of the minute). So a free machine
# helps at every size, but a minute still does not prove every instance with $n \le 15$, and from
# $n = 20$ on no size reaches a mean gap below {glue:text}`hs-alone-big-min-gap:.1f`%.
# ::::
#
# (hindsight-colgen)=
# ::::{dropdown} The LP by column generation
# At $n = 60$ the windows of the time-indexed LP hold one to three million non-zeros, and the pipeline
# skips the LP when its estimated size exceeds {glue:text}`hs-cg-limit:s` non-zeros per second of its
# share of the time limit (30 s of the minute, so {glue:text}`hs-cg-limit-30:s` non-zeros). By that
# limit the LP is too large on {glue:text}`hs-cg-skipped:d` of the {glue:text}`hs-cg-n60:d` instances
# with $n = 60$ above (windows from the heuristic schedule), and there the pipeline's lower bound is the
# separation bound. `kvlib.optimum.colgen.column_generation_lp` solves the
# same LP (the same rows, the same family rows added lazily) holding only the columns it needs, starting
# from a small set: those within 15 rounds of the incumbent's
# starts and each request's earliest starts. After every solve it prices every column of the windows
# with the duals $y$ and adds, per request, the eight columns of most negative reduced cost; only when none
# prices out does it add the most violated family rows. Its bound after any round keeps the assignment
# rows and relaxes the others with the sign-clipped duals (Lagrangian relaxation), so for every schedule
# $x$ inside the windows
#
# $$
# \mathrm{TEL}(x) \;\ge\; \sum_r y_r b_r + \sum_j \min_{p} \bigl(c_{j,p} - (A^{\top} y)_{j,p}\bigr),
# $$
#
# a valid lower bound whether or not the loop converged (equal to the LP value when it has). The tests
# check that converged runs give exactly the bound of the whole LP, and that reduced-cost fixing and
# the Lagrangian inequality built from it keep a brute-force optimum. `benchmarks/lp_colgen.py` runs
# both ways for 30 s on one thread, one instance at a time (on two cores, at times shared with one other
# job), on the instances of the tables above (windows from the heuristic schedule); the table is **read from the committed file
# `benchmarks/lp_colgen_results.jsonl`**, not recomputed here.
#
# ```{glue:} hs-tbl-colgen
# ```
#
# Where both converged ({glue:text}`hs-cg-both-conv:d` instances) the two bounds are equal in
# {glue:text}`hs-cg-both-equal:d`. On the {glue:text}`hs-cg-mid-runs:d` instances with $n < 60$, where
# the whole LP fits, column generation ends higher on {glue:text}`hs-cg-mid-higher:d` and lower on
# {glue:text}`hs-cg-mid-lower:d`; at $n = 60$ it ends higher than the whole LP on {glue:text}`hs-cg-60-higher:d` of the
# {glue:text}`hs-cg-n60:d` instances, though neither converges within the 30 s. On the
# {glue:text}`hs-cg-skipped:d` instances on which the pipeline skips the LP, it ends above the separation
# bound on {glue:text}`hs-cg-skip-above:d` (bound relative to the separation bound:
# {glue:text}`hs-cg-skip-detail:s`). The pipeline does not use it: on two cores the LP's 30 s would come
# out of the upper-bound search, which has the whole minute on exactly those instances, so the lower
# bound would rise at the cost of the schedule.
# ::::
#
# (hindsight-lift)=
# ::::{dropdown} The first level of the lift
# What keeps these gaps open is the LP. A standard way to tighten an LP over 0/1 columns is the first
# level of the Sherali-Adams hierarchy (the reformulation-linearization technique, RLT): a variable for the product of every two columns, and the
# rows multiplied by each column. `kvlib.optimum.lifted.lifted_lp` builds it for the strengthened LP
# over a given set of columns: for columns $c = (i, p)$ and $d = (j, q)$ of two different requests a
# variable $y_{cd}$ standing for $x_c x_d$ (none when the two cannot run together, that is when at one of
# their two completions the peak of one and what the other holds there exceed $M$), and the rows
#
# $$
# \sum_{q} y_{c,(j,q)} = x_c \quad (j \ne i), \qquad
# \sum_{d} w_d(t)\, y_{cd} \;\le\; \bigl(M - w_c(t)\bigr)\, x_c \quad (t \in T_c),
# $$
#
# where $w_d(t)$ is what column $d$ holds at round $t$ (0 when it is not running): given that request $i$
# starts at $p$, every other request starts somewhere, and memory at round $t$ stays within $M$. Either
# $T_c$ is the completion round of $c$ alone (*lift at completions*; memory at the completion rounds
# decides feasibility, as in step 4 above) or every round $c$ runs (*lift at every round*, the full
# product of the memory rows). The assignment, memory and family rows of the LP stay. A schedule with
# $y_{cd} = x_c x_d$ satisfies every row, so the value is still a lower bound, certified from the duals
# as for the LP. `benchmarks/lp_lifted.py` runs it on the instances with $n = 10$ and $12$ of the
# tables above whose optimum is proved (by the runs alone on the machine or with fifteen minutes),
# over the columns left by reduced-cost fixing with $\mathrm{UB} = \mathrm{OPT} + 1$ (every schedule of
# TEL at most OPT keeps its columns), with HiGHS's interior-point method on one thread, two instances at
# a time on two cores. The table is **read from the committed file `benchmarks/lp_lifted_results.jsonl`**,
# not recomputed here; in brackets, the share of the LP's gap $\mathrm{OPT} - \mathrm{LP}$ that the lift
# closes.
#
# ```{glue:} hs-tbl-lift
# ```
#
# The file holds {glue:text}`hs-lift-per-n:s`; a lift with *no result* was stopped for time before it
# finished. On these
# {glue:text}`hs-lift-instances:d` instances the LP is below the optimum by, on average,
# {glue:text}`hs-lift-lpgap:s`. The lift at completions closes, on average,
# {glue:text}`hs-lift-closed-c:s` of that gap; the lift at every round {glue:text}`hs-lift-closed-r:s`
# (at most {glue:text}`hs-lift-best:.0f`% on any one instance). At $n =$ {glue:text}`hs-lift-nmax:d` the lift
# at every round has a median of {glue:text}`hs-lift-pairs:s` pair variables and took a median of
# {glue:text}`hs-lift-seconds:.0f` s, far beyond the minute even where it helps. Its optimum gives every
# two requests a joint distribution of their starts that agrees with both requests' fractional starts
# and never puts the two where they cannot run together, and given the start of any one request it keeps
# memory within $M$. That this leaves most of the gap open means that conditions on pairs of requests of
# this kind do not cut off the fractional solutions that keep the LP below the optimum
# ({glue:text}`hs-lift-trend:s`).
# ::::
#
# (hindsight-beyond)=
# ::::{dropdown} A search just above the LP, and a longer search for schedules
# Three cheaper ways past the LP, measured on the instances with $n = 15$ and $n = 20$ of the tables
# above by `benchmarks/beyond_lp.py` (one instance at a time, nothing else on the machine; the table
# is **read from the committed file `benchmarks/beyond_lp_results.jsonl`**, not recomputed here).
# *Best TEL* is the best schedule any run of the files above found, marked when a run proved it optimal.
#
# * **Destructive bounds.** Pick a target $T$ above the LP bound and ask the event model of step 5
#   for a schedule of TEL at most $T - 1$, over the starts that survive reduced-cost fixing with $T$
#   and the windows of {prf:ref}`thm-horizon` for $T - 1$. If none exists, $\mathrm{OPT} \ge T$: an
#   optimal schedule of TEL at most $T - 1$ would lie in those windows and keep every start, because
#   the LP bound plus the reduced costs of its starts is at most its TEL. The lower $T$, the more starts
#   the fixing removes, so such a proof might cost much less than the one at the best TEL. Targets 1%,
#   2% and 5% above the LP, in that order, 30 s each on two workers, stopping at the first left open.
# * **Branch and bound on the LP.** HiGHS's branch and bound on the time-indexed IP with every family
#   row, over the starts that survive fixing with the best TEL, for 60 s on one thread.
# * **A longer search for schedules** (at $n = 20$). CP-SAT on the interval encoding of step 2 for
#   120 s on two workers, started from the heuristic schedule: does more time find better schedules
#   than the minute did?
#
# ```{glue:} hs-tbl-beyond
# ```
#
# On these {glue:text}`hs-beyond-instances:d` instances ($n =$ {glue:text}`hs-beyond-sizes:s`) the
# event model proved a target above the LP on {glue:text}`hs-beyond-raised:d` (the largest rise:
# {glue:text}`hs-beyond-raised-max:.1f`% of the LP); on {glue:text}`hs-beyond-targets-open:d` it could not
# even rule out a schedule 1% above the LP within 30 s. A target close to the LP leaves the search with
# little to prune: the LP bound it carries (the Lagrangian cut of step 5) cuts off a branch only once
# the branch costs more than the small margin between the LP and $T$, and the fixing keeps most starts.
# Branch and bound raised the LP on {glue:text}`hs-beyond-bb-raised:d` instances, by at most
# {glue:text}`hs-beyond-bb-max:.2f`%; on {glue:text}`hs-beyond-bb-root-only:d` it did not get past the
# root node (cutting planes) within its minute, and it never explored more than
# {glue:text}`hs-beyond-bb-nodes-max:d` nodes. The longer search for schedules
# ({glue:text}`hs-beyond-long-runs:d` runs) ended below the best TEL of the files above in
# {glue:text}`hs-beyond-long-better:d` (by at most {glue:text}`hs-beyond-long-gain:.1f`%), at it in
# {glue:text}`hs-beyond-long-same:d` and above it in {glue:text}`hs-beyond-long-worse:d`, while the LP is
# {glue:text}`hs-beyond-long-lpgap:s`% below the best TEL on the same instances. These measurements point the
# same way as the lift above: what keeps the certified gap open at $n \ge 15$ is mostly the lower bound,
# and searches that start from the LP recover at most a few percent of it within minutes.
#
# Within the minute, the destructive search can run after the pipeline:
# `kvlib.optimum.destructive.solve_destructive` gives the pipeline
# 60% of the time limit and, if the gap is still open, solves the LP again and refutes targets in the
# rest, starting 1% above the lower bound, doubling the step after a refuted target and halving it after
# one left open; a target that reaches the best TEL is the optimality proof of step 5, and a schedule the
# search finds on the way becomes the best one. The next table runs it under the conditions of the minute
# alone above (same instances, 60 s on two threads, nothing else on the machine; `benchmarks/exact_scaling.py
# --solvers destructive --conditions alone`, **read from the committed file
# `benchmarks/exact_destructive_results.jsonl`**) beside the pipeline alone.
#
# ```{glue:} hs-tbl-destr
# ```
#
# On these {glue:text}`hs-destr-instances:d` instances ($n =$ {glue:text}`hs-destr-sizes:s`) the variant
# proves {glue:text}`hs-destr-proved:d` against the pipeline's {glue:text}`hs-destr-proved-pipe:d`, and its
# mean gap is wider at every size. It does raise the lower bound on {glue:text}`hs-destr-higher:d`
# instances, but the pipeline, cut to 60% of the minute, loses proofs and finds a worse schedule on
# {glue:text}`hs-destr-worse:d`: within a minute the refuted targets gain less than the shortened pipeline
# loses, so `solve` keeps the pipeline alone and the destructive search stays a measurement tool.
# ::::

# %% [markdown]
# (hindsight-s51)=
# ## Section 5.1 reproduction
#
# 001 Section 5.1: $M \sim U[30, 50]$, $s_i \sim U[1, 5]$, $o_i \sim U[1, M - s_i]$; Arrival Model 1
# (AM1) puts $n \sim U[40, 60]$ requests at $t = 0$; Arrival Model 2 (AM2) draws a rate
# $\lambda \sim U[0.5, 1.5]$ and a horizon $T \sim U[40, 60]$ with Poisson($\lambda$) arrivals at each
# integer $t < T$; 200 trials per arrival model. This page asks
# for {glue:text}`hs-trials:d` trials per model, AM1 $n \in$ [{glue:text}`hs-nmin:d`,
# {glue:text}`hs-nmax:d`], AM2 $T \in$ [{glue:text}`hs-hmin:d`, {glue:text}`hs-hmax:d`],
# {glue:text}`hs-timelimit:s` s per solve on {glue:text}`hs-threads:d` solver threads
# ({glue:text}`hs-mode:s` mode, seed {glue:text}`hs-seed:d`). The rows of the tables below were
# {glue:text}`hs-rows-source:s`; each caption names the commit and date of its rows.
#
# ::::{dropdown} Solver settings differ from the paper's
# 001 Section 5.1 solves the IP of Section 3 with Gurobi
# and states neither a time limit nor an optimality gap for those solves, so its ratios are presented
# as exact. Here every solve is open-source and stops after {glue:text}`hs-timelimit:s` s on
# {glue:text}`hs-threads:d` threads, a setting the paper does not fix: our solver results are
# therefore reported as certified intervals, never as optima unless proved.
# ::::
#
# (hindsight-scan)=
# ### A certified lower end at the paper's scale, without a solver
#
# A lower end of the ratio needs no solver at all: any feasible schedule's TEL is an upper bound on
# OPT, so $\text{MC-SF}/\text{best found}$ is a certified lower bound on $\text{MC-SF}/\mathrm{OPT}$.
# Here "best found" is the smallest TEL among four look-ahead policies (MC-SF;
# {term}`MC-SF2`; {term}`MC-Benchmark` as 001 Algorithm 2 writes it; and our scanning variant of
# MC-Benchmark, which skips a request that does not fit), each schedule accepted by the checker. This is
# cheap, so it runs at the paper's full scale ($n \in [40, 60]$, {glue:text}`scan-trials:d` trials per
# arrival model, the same seeds as the full-mode solver runs below) in both modes. Each trial is one
# row of a table of results (every column, the TEL of each policy
# included, is reproducible exactly).

# %%
scan_keys = [dict(trial=k, model=model, seed=seed) for k in range(scan_trials) for model in (1, 2)]
scan_tab = store.table("scan", best_policy_trial, scan_keys)
scan = scan_tab.frame.assign(model=lambda d: "AM" + d.model.astype(str))
scan_summary = page.scan_summary(scan)
display(page.scan_display(scan_summary, scan_tab.label))
# also checks that the AM1 rows contradict the paper's numbers, as the prose below says
glue_all(page.scan_values(scan, scan_summary, scan_tab))

# %% [markdown]
# On Arrival Model 1, MC-SF is certified **not** optimal in {glue:text}`scan-AM1-notopt:d` of
# {glue:text}`scan-AM1-trials:d` trials ({glue:text}`scan-AM1-notopt-pct:.0f`%), and MC-SF / OPT averages at
# least {glue:text}`scan-AM1-avg:.4f` (worst trial at least {glue:text}`scan-AM1-worst:.4f`). The paper reports
# an average of {glue:text}`hs-paper-am1-avg:s` and exact matches in {glue:text}`hs-paper-am1-matches:s`
# trials, i.e. MC-SF not optimal in {glue:text}`hs-paper-am1-notopt-pct:.0f`% (the paper's numbers). Our
# MC-SF is not optimal in clearly more trials than the paper's allows, and our certified average lower end
# exceeds the paper's average; the next section shows that neither our draws nor the order of ties
# explains the difference ({ref}`errata-001-am1`; what the scan assumes, folded below). On Arrival Model 2 the
# certified lower end averages
# {glue:text}`scan-AM2-avg:.4f` over {glue:text}`scan-AM2-trials:d` trials (worst
# {glue:text}`scan-AM2-worst:.4f`; the paper's average is {glue:text}`hs-paper-am2-avg:s`), which
# {glue:text}`scan-AM2-against-paper:s` ({ref}`hindsight-solver`: the paper's average lies
# {glue:text}`hs-am2-verdict:s`). Rows: {glue:text}`scan-label:s`; computing them took
# {glue:text}`scan-seconds:s` s in all.
#
# ::::{dropdown} Which policy has the smallest TEL (Arrival Model 1), and what the scan assumes
# MC-SF itself has the smallest TEL of the four policies in
# {glue:text}`scan-AM1-mcsf-best:d` of these trials (a tie would count as MC-SF's; there are
# {glue:text}`scan-AM1-mcsf-ties:d`); the model chapter draws its random
# instances with the same seeds, so its full build counts the same trials
# ({ref}`model-random`). These are our random draws of the paper's
# distribution, not the paper's instances, and the order of ties in Algorithm 1 is not fixed by the
# text. Our MC-SF and our IP use the same memory convention, that of eq. (5)
# and constraint (3) (a request started at $p$ holds $s_i + t - p$ tokens at $t \in [p + 1, p + o_i]$;
# the other reading of 001 Section 3 is redone in {ref}`hindsight-readings`); we did not run the paper's code.
#
# ```{glue:} scan-best-table
# ```
# ::::
#
# (hindsight-ties)=
# ### Every reading of the tie-break
#
# 001 Algorithm 1 sorts the waiting requests by output length and does not say how equal lengths are
# ordered; at $n = 40$-$60$ with $o_i \le 49$ most requests share their length with another, and the
# order of the ties changes the schedule. Every order of the ties is a faithful reading of the
# algorithm. A second table of results (every
# column exact) runs, on the same Arrival Model 1 instances as the scan above, MC-SF with ties broken
# by index (our default) and by five seeded random orders, together with the other policies of the
# scan; the best checked schedule among all of them bounds OPT from above.

# %%
tie_trials = scan_trials if mode == "full" else min(scan_trials, 40)
tie_draws = 5
tie_tab = store.table("tiebreak", tiebreak_trial, [dict(trial=k, seed=seed, draws=tie_draws) for k in range(tie_trials)])
ties = tie_tab.frame
tie_summary = page.tie_summary(ties, tie_draws)  # shown folded below the paragraph that reads it
glue_all(page.tie_values(ties, tie_summary, tie_tab.label))

# %% [markdown]
# The median trial has {glue:text}`tie-ties-median:d` requests whose output length is shared. With
# ties by index MC-SF is certified not optimal in {glue:text}`tie-index-notopt:d` of
# {glue:text}`tie-trials:d` trials and can be optimal (its TEL equals the best schedule found) in only
# {glue:text}`tie-index-possible:d`; no reading does better than {glue:text}`tie-max-possible:d`
# possible matches, and in {glue:text}`tie-some-reading:d` trials at least one of the six readings
# reaches the best schedule found. The certified lower end of the average MC-SF / OPT is at least
# {glue:text}`tie-min-mean:.4f` for every reading ({glue:text}`tie-index-mean:.4f` with ties by
# index), against the paper's average of {glue:text}`hs-paper-am1-avg:s` and exact matches in
# {glue:text}`hs-paper-am1-matches:s` trials.
#
# ::::{dropdown} The six readings of the tie-break, trial counts
# :::{glue:figure} tie-summary-table
# :name: tbl-hs-ties
# :figclass: kvbook-table
#
# Arrival Model 1, {glue:text}`tie-trials:d` trials: MC-SF under each tie order against the best checked
# schedule of all readings and policies; {glue:md}`tie-label-md`.
# :::
# ::::
#
# **Can different draws explain it?** No: a one-sided Fisher exact test gives $p =$
# {glue:text}`tie-p-fisher:s` for the paper's count under the most lenient reading of ours, and if the
# paper's MC-SF is Algorithm 1 as printed, about {glue:text}`tie-paper-excess:.0f` of its reported
# matches must have a reported optimum above the true one (the test and this estimate are folded below;
# see {ref}`errata-001-am1`).
#
# ::::{dropdown} The test, and what it implies for the paper's optima
# The paper's 200 trials and ours are independent samples of
# the same distribution, so if MC-SF were optimal with the same probability on both, the split of
# matches between them would be hypergeometric. Taking for ours the most favourable reading's count
# of *possible* matches (an upper bound on its true matches, which only makes the test more lenient),
# the one-sided Fisher exact test (`kvlib.book.chapters.hindsight.rows.match_count_test`) gives
# $p =$ {glue:text}`tie-p-fisher:s` for {glue:text}`tie-paper-matches:d` or more matches in the paper's
# {glue:text}`tie-paper-trials:d` trials. Put
# differently: at 99.9% confidence MC-SF is optimal on at most {glue:text}`tie-share-up:.1f`% of
# the distribution's instances (Clopper-Pearson, `match_share_upper`), i.e. in about
# {glue:text}`tie-paper-expected:.0f` of {glue:text}`tie-paper-trials:d` trials, so if the paper's MC-SF is Algorithm 1 as
# printed, about {glue:text}`tie-paper-excess:.0f` of its {glue:text}`tie-paper-matches:d` reported matches must have a reported
# optimum above the true one; and for its average ratio to be {glue:text}`hs-paper-am1-avg:s` while ours is at least
# {glue:text}`tie-min-mean:.4f`, its reported optima must lower the average ratio by at least
# {glue:text}`tie-mean-shift:.3f` (sampling error aside), that is, be about that much above the true
# optima on average.
# ::::
#
# (hindsight-small)=
# ### Certified optima where the pipeline proves them
#
# At the paper's $n = 40$-$60$ no optimum is proved within a minute here, but at smaller sizes the
# pipeline proves most of them. A third table of results draws instances from 001 Section 5.1's distribution
# with the size fixed: Arrival Model 1 with exactly $n$ requests at $t = 0$, Arrival Model 2 with a
# horizon of exactly $T$ rounds (so $n$ is random, mean $\lambda T$); $M$, $s_i$, $o_i$ and $\lambda$
# are drawn as in the paper. Each row has MC-SF's TEL, the certified interval of OPT ({glue:text}`small-limit:s` s per
# solve, one thread) and whether MC-SF is proved optimal (*yes*: MC-SF equals the lower bound), certified
# not optimal (*no*: a checked schedule has a smaller TEL) or *open*.

# %%
small_sizes = SMALL_SIZES if mode == "full" else {6: 2, 8: 2}
small_limit = 60.0 if mode == "full" else 10.0
small_tab = store.table("certified_small", certified_small_trial,
                        certified_small_keys(seed=seed, sizes=small_sizes, time_limit=small_limit, threads=1),
                        **SMALL_TABLE_OPTIONS)
cs = small_tab.frame.assign(model=lambda d: "AM" + d.model.astype(str))
cs["optimal"] = cs.optimal.astype(bool)
glue_all(page.small_values(cs, small_tab.label, small_sizes, small_limit))
fig = page.small_figure(cs)
glue("small-fig", fig, display=False)
plt.close(fig)

# %% [markdown]
# ```{glue:figure} small-fig
# :name: fig-hs-small
#
# MC-SF / OPT per instance at small sizes (Arrival Model 1 left, 2 right): a dot is a proved ratio, a
# grey bar the certified interval of an instance not proved within {glue:text}`small-limit:s` s. The
# dashed line is the paper's mean ratio, at the paper's size $n = 40$-$60$ (not these sizes). Rows:
# {glue:text}`small-label:s`.
# ```
#
# On Arrival Model 1 ($n =$ {glue:text}`small-nmin:d`-{glue:text}`small-nmax:d`) the optimum is
# proved in {glue:text}`small-am1-proved:d` of {glue:text}`small-am1-trials:d` instances; MC-SF is
# proved optimal in {glue:text}`small-am1-yes:d` and certified not optimal in
# {glue:text}`small-am1-no:d`. Over the proved instances MC-SF / OPT has mean
# {glue:text}`small-am1-mean:.4f` and maximum {glue:text}`small-am1-max:.4f`, and MC-SF is optimal in
# {glue:text}`small-am1-yes-pct:.0f`% of them. The paper reports, at $n = 40$-$60$ (its numbers, not
# these sizes), a mean of {glue:text}`hs-paper-am1-avg:s` and exact optimality in
# {glue:text}`hs-paper-am1-matches:s` trials ({glue:text}`tie-paper-pct:.0f`%). On Arrival Model 2
# the optimum is proved in {glue:text}`small-am2-proved:d` of {glue:text}`small-am2-trials:d`
# instances, MC-SF is proved optimal in {glue:text}`small-am2-yes:d`, and the proved ratios have mean
# {glue:text}`small-am2-mean:.4f` (the paper's mean at its size: {glue:text}`hs-paper-am2-avg:s`). Smaller instances are not the
# paper's, so these numbers do not refute its figures by themselves; they show that with proved
# optima, MC-SF's exact optimality is the exception on this distribution, consistent with the
# certified counts at the paper's size above.
#
# ::::{dropdown} The counts per size
# ```{glue:} small-table
# ```
# ::::
#
# (hindsight-longer)=
# ### The small instances with fifteen minutes

# %%
glue_all(bench.longer_limit_values(scaling, bench.benchmark_rows("benchmarks/exact_long_results.jsonl")))

# %% [markdown]
# Of the {glue:text}`hs-long-was-open:d` instances that the minute left open, fifteen minutes prove
# {glue:text}`hs-long-now-proved:d` (details folded).
#
# ::::{dropdown} Each instance under both limits, and how they were run
# Of the {glue:text}`hs-long-grid:d` instances at these sizes the file holds
# {glue:text}`hs-long-coverage:s`. Of the {glue:text}`hs-long-was-open:d` among them that the minute left
# open, the longer limit proves {glue:text}`hs-long-now-proved:d`; over all
# {glue:text}`hs-long-runs:d`, {glue:text}`hs-long-rest:s`, and the slowest proof took
# {glue:text}`hs-long-slowest:.0f` s. Finally, {glue:text}`hs-long-ratio:s`.
#
# `benchmarks/exact_scaling.py` (second dropdown of
# {ref}`hindsight-solver-dev`), run with a 900 s limit on one thread on the $n = 12$ and $n = 15$ instances
# (`--sizes 12,15 --time-limit 900 --threads 1 --out benchmarks/exact_long_results.jsonl`; 2 cores shared
# with other jobs; **read from the committed file**, not recomputed here; the runs predate the pipeline's
# primal-search step and its split at idle gaps), shows what the minute lacks. The table pairs each
# instance's outcome under both limits.
#
# ```{glue:} hs-tbl-long
# ```
# ::::
#
# (hindsight-solver)=
# ### Certified intervals from the solver and the primal search
#
# For each trial we simulate MC-SF, solve the IP (1)-(4) with the LP-guided pipeline above
# ({glue:text}`hs-timelimit:s` s per trial) and record the certified interval
# $\mathrm{lower} \le \mathrm{OPT} \le \mathrm{upper}$. The upper end is then lowered, trial by trial,
# to the best schedule of the primal search below when that is better: any schedule the checker
# accepts bounds OPT from above. The ratio $r = \text{MC-SF}/\mathrm{OPT}$ then
# lies in $[\text{MC-SF}/\mathrm{upper},\ \text{MC-SF}/\mathrm{lower}]$; it is *exact* only when the
# solver proved optimality. A trial counts as an exact match when $\text{MC-SF} = \mathrm{OPT}$ is
# proved, i.e. MC-SF equals the certified lower bound.
#
# ::::{dropdown} What a row holds, and what a recomputation must reproduce
# Each trial is one row of a fourth table of results. The instance hash, $n$, $M$ and the TELs of MC-SF and of the
# best heuristic schedule are reproducible exactly; the interval [lower, upper] depends on the time
# limit and the machine's speed, so a recomputation is only required to overlap it; proved flags,
# gaps and wall times are recorded but not compared. The rows are ordered trial by trial (trial 0 of
# AM1, trial 0 of AM2, trial 1 of AM1, ...), and every count below is taken from the rows the table holds.
# ::::
#
# (hindsight-primal)=
# **A primal search for the upper ends.** Our primal search (list scheduling with local search, and CP-SAT
# re-optimising windows of the schedule) finds a better schedule than the pipeline in {glue:text}`hs-am1-search-better:d` of
# {glue:text}`hs-am1-trials:d` AM1 trials and {glue:text}`hs-am2-search-better:d` of
# {glue:text}`hs-am2-trials:d` AM2 trials; the lower end of MC-SF / OPT's average
# {glue:text}`hs-am1-avg-lo-move:s` (AM1) and {glue:text}`hs-am2-avg-lo-move:s` (AM2). Most of the gain over
# the solver alone now comes from the pipeline's own step 0, the same list search with a share of the time limit.
#
# ::::{dropdown} How the primal search works, its budget and what it found
# At these sizes the pipeline's lower bounds are far from its schedules, and its own search (step 0 of the
# pipeline) gets only a share of the time limit. The primal search here runs on its own, with fixed budgets,
# in two neighbourhoods used in turn:
#
# - **List scheduling with local search.** A priority list of the requests becomes a schedule by placing
#   each request, in list order, at its earliest round (not before its arrival) at which it fits beside
#   those already placed. The search moves requests in the list (insert one elsewhere, swap two, move a
#   block), keeps a move unless the total latency grows, and restarts from a perturbed best list when
#   it stalls. Seeds: the start orders of four policies' schedules and three sorting rules.
# - **Windows re-optimised exactly.** Up to ten requests that start next to each other are freed, all
#   others stay, and CP-SAT solves the time-indexed model of the freed starts within their window of
#   rounds. This reaches schedules that no list produces (a request started later than it could,
#   which helps when memory grows during a run).
#
# Each trial gets {glue:text}`hs-search-evals:s` list placements and {glue:text}`hs-search-windows:d`
# windows (about {glue:text}`hs-search-seconds:s` s on one core); the search is deterministic in these
# budgets, so a recomputation with the same versions of the solvers returns the same schedule. Every
# schedule it keeps passed the independent checker, and the page re-checks every stored one against a
# freshly drawn instance before using it.
# Rows: {glue:text}`hs-search-label:s`. The search's schedule is worse than the pipeline's in
# {glue:text}`hs-am1-search-worse:d` AM1 and {glue:text}`hs-am2-search-worse:d` AM2 trials (the better of
# the two is used); the upper ends drop by {glue:text}`hs-am1-search-gain:.1f`% (AM1) and
# {glue:text}`hs-am2-search-gain:.1f`% (AM2) on average. `benchmarks/primal_search.py` measures the search
# against proved optima and against HiGHS and CP-SAT under equal time limits.
# ::::

# %% tags=["teach"]
keys = [dict(trial=k, model=model, seed=seed, n_range=[n_min, n_max], horizon_range=[horizon_min, horizon_max],
             time_limit=time_limit, threads=threads)
        for k in range(trials) for model in (1, 2)]
search_keys = [dict(trial=k, model=model, seed=seed, n_range=[n_min, n_max], horizon_range=[horizon_min, horizon_max],
                    evaluations=search_evaluations, windows=search_windows, window=10, window_time=0.5, search_seed=0)
               for k in range(trials) for model in (1, 2)]
# the search's path depends on CP-SAT's version (recorded in the manifest), so a recomputation compares the
# instance columns; every stored schedule is re-checked against its instance below instead
search_tab = store.table("section51_search", search_trial, search_keys, timing=["seconds"],
                         ignore=["search", "source", "windows_improved", "starts"], jobs=search_jobs)
# the same trials under the start-inclusive reading of the memory rule (MC-SF and the primal search)
incl_tab = (store.table("section51_inclusive", inclusive_trial, search_keys, timing=["seconds"],
                        ignore=["search", "source", "windows_improved", "starts"], jobs=search_jobs)
            if page.inclusive_available(store) else None)
tab = store.table("section51", certified_trial, keys, interval=[("lower", "upper")],
                  timing=["seconds", "trial_seconds"],
                  ignore=["optimal", "status", "gap", "source", "separation_lb", "starts"])

# %%
if tab.frame.empty:
    raise ValueError(f"results/hindsight/section51: none of the {len(keys)} requested rows is stored "
                     "(were the parameters changed?); rerun with --mode full --only hindsight")

# %%
res = page.section51_rows(tab.frame, search_tab.frame)
display(page.section51_display(res, tab.label, search_tab.label))
glue_all(page.section51_values(res, tab, search_tab, n_keys=len(keys), threads=threads,
                                  search_evaluations=search_evaluations, search_windows=search_windows,
                                  paper_scale=PAPER_SCALE))
glue_all(page.inclusive_values(res, incl_tab.frame, incl_tab.label) if incl_tab is not None else
         page.inclusive_missing_values(res, "a write run of this chapter (python book/run_chapters.py --mode full "
                                             "--only hindsight)"))

# %%
fig = page.ratio_histograms(res)
glue("hs-fig-hist", fig, display=False)
plt.close(fig)

# %% [markdown]
# ```{glue:figure} hs-fig-hist
# :name: fig-hs-hist
#
# MC-SF / OPT on Arrival Model 1 (left, {glue:text}`hs-am1-trials:d` trials) and 2 (right,
# {glue:text}`hs-am2-trials:d` trials): both ends of each trial's certified interval (the lower bound
# from the pipeline, {glue:text}`hs-timelimit:s` s per solve; the best schedule of the pipeline or the
# primal search); only the black outline, the trials proved optimal, counts exact
# ratios. The paper's Figure 2 (001), drawn the same way, histograms 200 exact ratios per model. Rows:
# {glue:text}`hs-s51-label:s`; {glue:text}`hs-search-label:s`.
# ```
#
# ::::{dropdown} Side by side, number by number
# Ours over the {glue:text}`hs-am1-trials:d` AM1 and {glue:text}`hs-am2-trials:d` AM2
# trials in the table; the paper's over 200 each. AM1: the average ratio lies in [{glue:text}`hs-am1-avg-lo:s`,
# {glue:text}`hs-am1-avg-hi:s`] (the paper's: {glue:text}`hs-paper-am1-avg:s`), the worst in
# [{glue:text}`hs-am1-worst-lo:s`, {glue:text}`hs-am1-worst-hi:s`] (the paper's:
# {glue:text}`hs-paper-am1-worst:s`, which the certified lower end alone exceeds in
# {glue:text}`hs-am1-above-paper-worst:d` trials), the best in
# [{glue:text}`hs-am1-best-lo:s`,
# {glue:text}`hs-am1-best-hi:s`] (the paper's: {glue:text}`hs-paper-am1-best:s`); proved exact matches:
# {glue:text}`hs-am1-matches:d` (the paper's: {glue:text}`hs-paper-am1-matches:s`); trials proved optimal
# {glue:text}`hs-am1-proved:d`, not proved {glue:text}`hs-am1-unproved:d`. AM2: average in
# [{glue:text}`hs-am2-avg-lo:s`, {glue:text}`hs-am2-avg-hi:s`] (the paper's: {glue:text}`hs-paper-am2-avg:s`),
# worst in [{glue:text}`hs-am2-worst-lo:s`, {glue:text}`hs-am2-worst-hi:s`] (the paper's:
# {glue:text}`hs-paper-am2-worst:s`), best in [{glue:text}`hs-am2-best-lo:s`, {glue:text}`hs-am2-best-hi:s`]
# (the paper's: {glue:text}`hs-paper-am2-best:s`); proved optimal {glue:text}`hs-am2-proved:d`, not proved
# {glue:text}`hs-am2-unproved:d`, proved exact matches {glue:text}`hs-am2-matches:d`.
# ::::
#
# ::::{dropdown} Verdicts, statistic by statistic: average, worst case, best case, exact matches
# Each paper's number is a statistic of its own 200 draws; the probabilities say how often draws alone
# would put it where it lies, from our 200 draws per model (`kvlib.book.section51_verdict`).
#
# | | Arrival Model 1 | Arrival Model 2 |
# |---|---|---|
# | average | the paper's {glue:text}`hs-paper-am1-avg:s` lies {glue:text}`hs-am1-verdict:s` | the paper's {glue:text}`hs-paper-am2-avg:s` lies {glue:text}`hs-am2-verdict:s` |
# | worst case | the paper's {glue:text}`hs-paper-am1-worst:s`: {glue:text}`hs-am1-worst-verdict:s` | the paper's {glue:text}`hs-paper-am2-worst:s`: {glue:text}`hs-am2-worst-verdict:s` |
# | best case | the paper's {glue:text}`hs-paper-am1-best:s` lies {glue:text}`hs-am1-best-verdict:s` | the paper's {glue:text}`hs-paper-am2-best:s` lies {glue:text}`hs-am2-best-verdict:s` |
# | exact matches | {glue:text}`hs-am1-matches-verdict:s` | {glue:text}`hs-am2-matches-verdict:s` |
# ::::
#
# ::::{dropdown} Where the bounds came from
# Computing the
# {glue:text}`hs-s51-rows:d` rows of the table (of the {glue:text}`hs-s51-keys:d` asked for) took
# {glue:text}`hs-repro-seconds:s` s in all. The lower bound on OPT is the solver-free volume
# bound itself in {glue:text}`hs-am1-lb-volume:d` AM1 and {glue:text}`hs-am2-lb-volume:d` AM2 trials
# (within the time limit nothing raised it), the separation bound of {prf:ref}`lem-peak-conflict`
# (above the volume bound) in {glue:text}`hs-am1-lb-sep:d` AM1 and {glue:text}`hs-am2-lb-sep:d` AM2
# trials, and the time-indexed LP of the pipeline's step 3 (above both) in {glue:text}`hs-am1-lb-lp:d` AM1
# and {glue:text}`hs-am2-lb-lp:d` AM2 trials; on average the certified lower bound lies
# {glue:text}`hs-am1-lb-above-vol:.1f`% (AM1) and {glue:text}`hs-am2-lb-above-vol:.1f`% (AM2) above the
# volume bound. The upper-bound search improved on the best heuristic schedule in
# {glue:text}`hs-am1-improved:d` AM1 and {glue:text}`hs-am2-improved:d` AM2 trials, and a schedule accepted
# by the checker (the pipeline's or the primal search's) beats MC-SF in {glue:text}`hs-am1-beaten:d` AM1
# and {glue:text}`hs-am2-beaten:d` AM2 trials; the mean final gap (upper - lower) / upper is
# {glue:text}`hs-am1-gap-mean:.1f`% (AM1) and {glue:text}`hs-am2-gap-mean:.1f`% (AM2), against
# {glue:text}`hs-am1-gap-mean-pipeline:.1f`% and {glue:text}`hs-am2-gap-mean-pipeline:.1f`% with the
# pipeline's schedules alone. Upper ends: {glue:text}`hs-upper-checked:s`.
# ::::
#
# **What the numbers say about the paper's claim.** The paper's AM1 average
# ({glue:text}`hs-paper-am1-avg:s`) lies {glue:text}`hs-am1-verdict:s`; its AM2 average
# ({glue:text}`hs-paper-am2-avg:s`) lies {glue:text}`hs-am2-verdict:s`. The averages are over
# {glue:text}`hs-s51-coverage:s`; the instances are {glue:text}`hs-s51-scale:s`.
#
# (hindsight-readings)=
# ### Two readings of the memory rule
#
# 001 Section 3 counts a request started at round $k$ as active in rounds $k + 1$ to $k + o_i$
# (constraint (3)), and two sentences later says it uses memory at every round $t \in [k, k + o_i]$,
# which would make it hold its $s_i$ prompt tokens at its start round too. This book uses the first
# reading throughout. Redone under the second, on Arrival Model 1 {glue:text}`hs-readings-am1:s`; on
# Arrival Model 2 {glue:text}`hs-readings-am2:s`.
#
# ::::{dropdown} Section 5.1 under the start-inclusive reading
# A schedule's total latency is the same number under both readings (a request still completes $o_i$
# rounds after its start); only which schedules fit changes. Under the second reading a request
# $(a_i, s_i, o_i)$ holds, at each round from its start on, exactly what $(a_i, s_i - 1, o_i + 1)$ started
# at the same round holds one round later under the first. So MC-SF (Algorithm 1 as printed, its
# eq. (5) check now under the second reading) and the primal search run unchanged on that shifted
# instance, and every schedule they return is checked on the original instance by a checker written
# for the second reading alone. A schedule that fits under the second reading fits under the first, so
# the pipeline's certified lower bound still bounds the optimum from below.
#
# | | Arrival Model 1 | Arrival Model 2 |
# |---|---|---|
# | MC-SF's schedule under the book's reading breaks the second one in | {glue:text}`hs-incl-am1-broken:d` of {glue:text}`hs-incl-am1-trials:d` trials | {glue:text}`hs-incl-am2-broken:d` of {glue:text}`hs-incl-am2-trials:d` trials |
# | MC-SF's total latency rises on average by | {glue:text}`hs-incl-am1-mcsf-rise:s`% | {glue:text}`hs-incl-am2-mcsf-rise:s`% |
# | average MC-SF / OPT, certified | [{glue:text}`hs-incl-am1-avg-lo:s`, {glue:text}`hs-incl-am1-avg-hi:s`] | [{glue:text}`hs-incl-am2-avg-lo:s`, {glue:text}`hs-incl-am2-avg-hi:s`] |
# | the paper's average ({glue:text}`hs-paper-am1-avg:s`; {glue:text}`hs-paper-am2-avg:s`) lies | {glue:text}`hs-incl-am1-verdict:s` | {glue:text}`hs-incl-am2-verdict:s` |
# | the paper's worst case ({glue:text}`hs-paper-am1-worst:s`; {glue:text}`hs-paper-am2-worst:s`) | {glue:text}`hs-incl-am1-worst-verdict:s` | {glue:text}`hs-incl-am2-worst-verdict:s` |
#
# Rows: {glue:text}`hs-incl-label:s`; lower bounds from the pipeline's rows above.
# ::::
#
# ::::{dropdown} How to read a certified interval
# 001 reports that MC-SF is within a few percent of
# the hindsight optimum on average (the paper's averages above). A lower end of an interval is a
# certified statement: MC-SF is *at least* that far from the optimum. An upper end is also certified:
# MC-SF is *at most* that far. Where the solver proves optimality the two coincide. At the paper's
# scale our open-source solve does not close the gap within the time limit (see the counts of trials
# not proved), so our full-mode run can confirm only the interval it prints. A paper's average inside
# our interval is consistent with it but not confirmed; one below it is refuted, for MC-SF as Algorithm 1
# and the optimum of (1)-(4).
# ::::

# %%
chapter_seconds = time.perf_counter() - CHAPTER_START
glue("hs-chapter-seconds", f"{chapter_seconds:.0f}", display=False)

# %% [markdown]
# The whole chapter ran in {glue:text}`hs-chapter-seconds:s` s in {glue:text}`hs-mode:s` mode
# (seed {glue:text}`hs-seed:d`).
#
# ## What was verified / what was not
#
# In short: every schedule on this page passed the independent checker, the IP and the CP-SAT model agree
# with brute force on tiny instances, and no ratio is called exact unless proved; the paper's Gurobi runs
# were not reproduced, and at the paper's sizes our certified intervals are too wide to confirm its
# averages.
#
# ::::{dropdown} Verified
# MC-SF follows 001 Algorithm 1 and eq. (5) line by line on hand-checked instances, one of
# them with all requests at $t = 0$ and a tie in $o_i$ (`tests/test_jaillet.py`). The IP's optimum equals a brute-force enumeration of start times on tiny instances
# (`tests/test_exact.py`), is at most every policy's TEL, and the LP relaxation is at most the IP;
# the vectorised builder gives exactly cvxpy's matrix of (1)-(4) (test); the CP-SAT model's optimum
# equals brute force on the same tiny instances (test), and {prf:ref}`lem-nonoverlap` is checked on
# every schedule of three policies on 30 random instances (test); every schedule reported here passed
# the independent checker; the horizon is proved ({prf:ref}`thm-horizon`); no ratio is reported as
# exact unless the lower bound (HiGHS's dual bound, CP-SAT's bound, the separation bound or the volume
# bound) meets the best schedule; {prf:ref}`lem-peak-conflict` and the disjointness of its intervals
# are checked on policy schedules, and the separation bound against brute force (tests).
# ::::
#
# ::::{dropdown} Not verified
# The paper's Gurobi runs were not reproduced (only open-source solvers are used here),
# and the paper gives no time limit or optimality gap for them, so our {glue:text}`hs-timelimit:s` s per
# solve is a setting of ours, not of 001. The solver table rests on {glue:text}`hs-s51-rows:d` of the
# {glue:text}`hs-s51-keys:d` trials it asks for ({glue:text}`hs-s51-label:s`). At
# $n \in [40, 60]$ our certified intervals are wide (mean gaps of {glue:text}`hs-am1-gap-mean:.1f`% and
# {glue:text}`hs-am2-gap-mean:.1f`% between the best schedule and the lower bound), so the paper's averages
# (the paper's {glue:text}`hs-paper-am1-avg:s` and {glue:text}`hs-paper-am2-avg:s`) are not confirmed by the solver runs; what *is* certified
# is the lower end of the ratio, and on AM1 it already exceeds the paper's average
# ({ref}`hindsight-scan`), and the paper's count of exact matches is refuted by checked schedules
# under every tie order of Algorithm 1 that we tried, with a test that rules out the draws
# ({ref}`hindsight-ties`); proved optima exist here only at smaller sizes ({ref}`hindsight-small`). Our LP relaxation relaxes the integer variables of (1)-(4) to $[0, 1]$, as
# 002 Section 6 does for its Relax-LP (eq. (8)); the two formulations were not compared constraint by
# constraint. Certified optima at $n = 40$-$60$ within a minute on 2 cores are not reached: the pipeline
# proves instances up to $n =$ {glue:text}`hs-pipe-proved-max-n:d` in the scaling benchmark, and at
# $n = 40$ its gap is still {glue:text}`hs-pipe-gap40:s`%, because no relaxation we have (the time-indexed
# LP with conflict-family rows, the separation LP, HiGHS's and CP-SAT's own bounds, the level-one lift,
# destructive targets refuted by the event model) raises the lower bound close to the best schedules at
# that scale ({ref}`the lift <hindsight-lift>`, {ref}`the searches above the LP <hindsight-beyond>`).
# ::::
