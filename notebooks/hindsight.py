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
#   number): **erratum**. On {glue:text}`scan-AM1-trials:d` instances of the paper's distribution a
#   schedule accepted by the checker beats MC-SF in {glue:text}`scan-AM1-notopt:d`, so MC-SF / OPT
#   averages at least {glue:text}`scan-AM1-avg:.4f`, without any solver ({ref}`scan <hindsight-scan>`,
#   {ref}`erratum <errata-001-am1>`).
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
#   ({ref}`solver runs <hindsight-solver>`, {ref}`erratum <errata-001-am2>`).
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
import re
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Markdown, display
from myst_nb import glue

from kvlib.optimum.bounds import latest_starts, left_shift_horizon, volume_lower_bound
from kvlib.core.checker import check_schedule
from kvlib.optimum.exact import PAPER_SECTION51, heuristic_incumbent, lp_relaxation, section51_summary, solve
from kvlib.core.instances import section51
from kvlib.core.model import Instance, Schedule
from kvlib.policies import make_policy
from kvlib.core.simulate import simulate
from kvlib.book.figures import schedule_figure
from kvlib.book.section51 import (SMALL_SIZES, SMALL_TABLE_OPTIONS, best_policy_trial, certified_small_keys,
                                  certified_small_trial, certified_trial, match_count_test, match_share_upper,
                                  tiebreak_trial)
from kvlib.book.section51_search import combine_with_pipeline, search_trial
from kvlib.book.section51_verdict import intervals, verdicts
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
glue("hs-mode", mode, display=False)
glue("hs-seed", seed, display=False)
glue("hs-trials", trials, display=False)
glue("hs-nmin", n_min, display=False)
glue("hs-nmax", n_max, display=False)
glue("hs-hmin", horizon_min, display=False)
glue("hs-hmax", horizon_max, display=False)
glue("hs-timelimit", f"{time_limit:g}", display=False)
PAPER_SCALE = (n_min, n_max, horizon_min, horizon_max) == (40, 60, 40, 60)


def pad(styler):
    """A table glued into a dropdown gets the cell padding that tables in cell outputs get from the CSS."""
    return styler.set_table_styles([
        {"selector": "", "props": "font-size: 0.85em; border-collapse: collapse; margin: 0.5em 0;"},
        {"selector": "th, td", "props": "padding: 0.2em 0.5em; border-bottom: 1px solid #ddd;"},
        {"selector": "thead th", "props": "border-bottom: 2px solid #999;"}], overwrite=False)


glue("hs-scale-words", f"the paper's sizes ({trials} trials per arrival model)" if PAPER_SCALE else
     "small sizes in this quick build (a smoke test; the verdicts in bold are the full build's)", display=False)
glue("hs-rows-source", "read from stored tables of this chapter" if store.policy != "off" else
     "computed when this page was built", display=False)

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
#   so far), so the inner sum runs over the starts $p \in [t - o_i, t - 1]$.
# * (4) integrality.
#
# `kvlib.optimum.exact.build_model` writes exactly this with cvxpy, and `kvlib.optimum.exact.solve` solves it
# with the open-source solver {term}`HiGHS` (details folded below).
#
# ::::{dropdown} What the solver returns, and two sound reductions
# `kvlib.optimum.exact.solve` hands cvxpy's problem
# data to HiGHS, injects the best heuristic schedule as a warm start, stops at a time limit and
# returns a `SolveResult`: a lower bound (HiGHS's dual bound rounded up, since TEL is an integer, and
# never below the solver-free bound of `kvlib.optimum.bounds`), the best schedule found (validated by the
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
# For $\mathrm{LB}$ we use the solver-free *memory-volume bound* of `kvlib.optimum.bounds` (the argument behind
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
glue("hs-tiny-table", pad(pd.DataFrame({"request": range(tiny.n), "arrival a": tiny.arrival,
                                   "prompt s (tokens)": tiny.prompt, "output o (rounds)": tiny.output,
                                   "optimal start": tiny_res.starts, "MC-SF start": tiny_mcsf.schedule.starts})
     .style.hide(axis="index")), display=False)
glue("hs-tiny-opt", int(tiny_res.upper), display=False)
glue("hs-tiny-mcsf", int(tiny_mcsf.tel), display=False)
glue("hs-tiny-lp", f"{tiny_lp:.2f}", display=False)
glue("hs-tiny-seconds", f"{tiny_res.seconds:.2f}", display=False)

# %%
fig = schedule_figure(tiny, {f"hindsight optimum, TEL {tiny_res.upper}": tiny_res.starts,
                             f"MC-SF, TEL {tiny_mcsf.tel}": tiny_mcsf.schedule}, figsize=(8, 4.6))
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
# program, {term}`MIP`, over peak conflicts):

# %%
lp_rows = []
lp_sizes = [6, 8, 10] if mode == "quick" else [6, 8, 10, 12]
for k, n in enumerate(lp_sizes):
    inst = section51(np.random.default_rng([seed, 7, k]), 1, n_range=(n, n))
    r = solve(inst, time_limit=time_limit, threads=threads, method="ip")  # the IP path described here
    lp = lp_relaxation(inst, upper=r.upper)
    mc = simulate(inst, make_policy("mc-sf"), seed=0).tel
    lp_rows.append(dict(n=n, M=inst.memory, volume_LB=volume_lower_bound(inst), LP=round(lp, 2),
                        separation_LB=r.extra["separation_lb"], lower_from=r.extra["lower_source"], IP_lower=r.lower,
                        IP_upper=r.upper, proved=r.optimal, seconds=round(r.seconds, 1), MC_SF=mc,
                        LP_over_IPupper=round(lp / r.upper, 3)))
lp_table = pd.DataFrame(lp_rows)
_lp = lp_table.rename(columns={"M": "M (tokens)", "seconds": "solve (s)", "MC_SF": "MC-SF", "volume_LB": "volume bound",
                                "separation_LB": "separation bound", "lower_from": "lower bound from",
                                "IP_lower": "IP lower", "IP_upper": "IP upper", "LP_over_IPupper": "LP / IP upper"})
display(_lp[["n", "M (tokens)", "volume bound", "LP", "separation bound", "IP lower", "IP upper", "MC-SF"]]
        .style.hide(axis="index").format({"LP": "{:.2f}"})
        .set_caption("TEL (rounds): bounds, certified IP interval and MC-SF"))
glue("hs-lp-source-table", pad(_lp[["n", "M (tokens)", "lower bound from", "proved", "solve (s)", "LP / IP upper"]]
        .style.hide(axis="index").format({"solve (s)": "{:.1f}", "LP / IP upper": "{:.3f}"})
        .set_caption("where the IP's lower bound came from")), display=False)
glue("hs-lp-ratio-min", f"{lp_table.LP_over_IPupper.min():.3f}", display=False)
glue("hs-lp-ratio-max", f"{lp_table.LP_over_IPupper.max():.3f}", display=False)
glue("hs-lp-by-mip", int(((lp_table.lower_from == "peak-conflict MIP") & lp_table.proved).sum()), display=False)
glue("hs-lp-n", int(len(lp_table)), display=False)

# %%
size_rows = []
for k, n in enumerate([10, 20, 40, 60]):
    inst = section51(np.random.default_rng([seed, 8, k]), 1, n_range=(n, n))
    start_inc, U, src = heuristic_incumbent(inst)
    L = latest_starts(inst, U)
    width = L - inst.arrival + 1
    size_rows.append(dict(n=n, M=inst.memory, horizon=int((L + inst.output).max()),
                          left_shift_horizon=left_shift_horizon(inst), incumbent_makespan=int((start_inc + inst.output).max()),
                          columns=int(width.sum()), nonzeros_row3=int((width * inst.output).sum())))
size_table = pd.DataFrame(size_rows)
glue("hs-size-table", pad(size_table.rename(columns={"M": "M (tokens)", "horizon": "horizon (rounds)",
                                   "left_shift_horizon": "left-shift horizon (rounds)",
                                   "incumbent_makespan": "incumbent makespan (rounds)",
                                   "nonzeros_row3": "non-zeros in (3)"}).style.hide(axis="index").format(thousands=",")), display=False)
last = size_table.iloc[-1]
glue("hs-size-cols60", f"{int(last['columns']):,}", display=False)
glue("hs-size-nnz60", f"{size_table.nonzeros_row3.iloc[-1]:,}", display=False)
glue("hs-size-h60", int(size_table.horizon.iloc[-1]), display=False)
glue("hs-size-mk60", int(size_table.incumbent_makespan.iloc[-1]), display=False)

# %% [markdown]
# ::::{dropdown} Where each lower bound of the table above came from
# ```{glue:} hs-lp-source-table
# ```
# ::::
#
# The LP value is between {glue:text}`hs-lp-ratio-min:s` and {glue:text}`hs-lp-ratio-max:s` of the best
# schedule's TEL on these instances. The relaxation is weak because a fractional solution can start
# a small fraction of every request early: the memory rows (3) only limit the *sum* of fractional
# profiles, and each request's profile grows linearly, so spreading a request over many start times
# costs little memory at any one time.
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
# integer start variable $p_i$ (`kvlib.optimum.cpsat`, OR-Tools CP-SAT; proof of the equivalence in the
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
# `kvlib.optimum.exact.solve` runs CP-SAT first (in a child process: the OR-Tools wheel bundles its own HiGHS
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
# Built on it, the *separation bound* (`kvlib.optimum.bounds.separation_lower_bound`, a cutting-plane LP
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
# memory-volume argument). `kvlib.optimum.bounds.separation_lower_bound` minimises $\sum_i c_i$ over these
# inequalities (for $\theta = 0.5, 0.55, \dots, 0.95$) by a cutting-plane loop: an LP in $n$ variables
# whose value is valid after any round (its times on the benchmark suite are in the first dropdown of
# {ref}`hindsight-solver-dev`). `solve` starts with it.
# Tests check the lemma and the disjointness on every schedule of six policies over 25 random
# instances (and that the separation is attained), and the bound against brute force. The same
# inequalities plus the disjunctions of the lemma as a MIP (`kvlib.optimum.bounds.peak_conflict_bound`) are
# stronger on small instances (it proves {glue:text}`hs-lp-by-mip:d` of the {glue:text}`hs-lp-n:d`
# instances of the LP table above optimal by meeting the best schedule: column "lower bound from"). In our
# runs of `benchmarks/peak_conflict_bound.py` (not repeated by this chapter) HiGHS did not solve that
# MIP within 30 s for the suite instances with $n \ge 20$, so the IP path (`solve(..., method="ip")`)
# runs it only for $n \le 12$, for at most $\min(5, 0.15\,T)$ seconds.
# ::::

# %%
# the benchmark files of the exact solver (read, not recomputed): suite, scaling, alone; tables shown folded
import json
from pathlib import Path

from kvlib.book.scaling import (beyond_lp_counts, beyond_lp_table, lift_closed, lift_table, longer_limit_table,
                                lp_method_pairs, lp_method_table, paired_solver_table, scaling_table)


def benchmark_rows(path: str) -> pd.DataFrame:
    """The rows of a committed benchmark file (one JSON object per line)."""
    return pd.DataFrame([json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()])


bench = benchmark_rows("benchmarks/exact_suite_results.jsonl")
bench = bench[bench.time_limit == 30]
order = ["windows+warm+sym", "sparse", "sparse+cpsat", "sparse+cpsat+nopresolve", "sparse+cpsat+nopresolve+sep",
         "sparse+cpsat+nopresolve+sep+mip"]
bench = bench[bench.config.isin(order)]
# short column names: each configuration adds one idea to the one before
IDEA_NAMES = dict(zip(order, ["IP via cvxpy", "sparse build", "+ CP-SAT", "+ presolve off", "+ separation", "+ MIP"]))
cell = bench.assign(cell=[f"{100 * g:.1f}\u00a0/\u00a0{t:.0f}{chr(0xa0) + '*' if o else ''}"  # no line breaks
                          for g, t, o in zip(bench.gap, bench.seconds, bench.optimal)])
ideas = cell.pivot(index="instance", columns="config", values="cell")[order]
ideas = ideas.loc[list(dict.fromkeys(bench.instance))]
glue("hs-tbl-ideas", pad(ideas.rename(columns=IDEA_NAMES).reset_index().rename_axis(columns=None)
     .style.hide(axis="index").set_caption("final gap (upper - lower) / upper in % / wall time of the whole call "
                                           "in s, 30 s limit; * proved optimal")), display=False)
before = bench[bench.config == "windows+warm+sym"].set_index("instance")
after = bench[bench.config == "sparse+cpsat+nopresolve+sep+mip"].set_index("instance")
glue("hs-bench-proved-before", int(before.optimal.sum()), display=False)
glue("hs-bench-proved-after", int(after.optimal.sum()), display=False)
glue("hs-bench-instances", int(len(after)), display=False)
glue("hs-bench-gap-before-min", float(100 * before.gap.min()), display=False)
glue("hs-bench-gap-before-max", float(100 * before.gap.max()), display=False)
glue("hs-bench-gap-after-min", float(100 * after.gap.min()), display=False)
glue("hs-bench-gap-after-max", float(100 * after.gap.max()), display=False)
glue("hs-bench-sec-before-max", float(before.seconds.max()), display=False)
glue("hs-bench-sec-after-max", float(after.seconds.max()), display=False)
glue("hs-bench-build-before-max", float(before.build_seconds.max()), display=False)
glue("hs-bench-build-after-max", float(after.build_seconds.max()), display=False)
# the bounds solve() recorded in the same runs (volume, separation LP and its time)
sep_tab = after.loc[ideas.index, ["volume_lb", "separation_lb", "separation_seconds"]].rename(
    columns={"volume_lb": "volume", "separation_lb": "separation", "separation_seconds": "seconds"})
sep_tab = sep_tab.astype({"volume": int, "separation": int}).round({"seconds": 2})
sep_tab["reported_lower"] = after.lower
sep_tab["sep_is_lower"] = (sep_tab.separation == sep_tab.reported_lower) & (sep_tab.separation > sep_tab.volume)
glue("hs-tbl-sep", pad(sep_tab.reset_index().rename_axis(columns=None)
        .rename(columns={"volume": "volume bound", "separation": "separation bound", "seconds": "separation LP (s)",
                         "reported_lower": "reported lower bound", "sep_is_lower": "separation is the lower bound"})
        .style.hide(axis="index").format({"separation LP (s)": "{:.2f}",
                                          "separation is the lower bound": lambda v: "yes" if v else "no"})
        .set_caption("lower bounds (TEL, rounds) recorded in the runs of the last configuration")), display=False)
glue("hs-sep-is-lower", int(sep_tab.sep_is_lower.sum()), display=False)
glue("hs-sep-above-volume", int((sep_tab.separation > sep_tab.volume).sum()), display=False)
glue("hs-sep-max-seconds", float(sep_tab.seconds.max()), display=False)

scaling = benchmark_rows("benchmarks/exact_scaling_results.jsonl")
scale_solvers = {"pipeline": "pipeline", "pipeline-v1": "pipeline without upper-bound search",
                 "highs": "HiGHS (IP)", "cpsat": "CP-SAT (interval model)", "scip": "SCIP (IP)"}
scale_tab = scaling_table(scaling, list(scale_solvers))
glue("hs-tbl-scaling", pad(scale_tab.rename(columns=scale_solvers).style.hide(axis="index").set_caption(
    "proved runs and time to proof, or final gap (upper - lower) / upper; 60 s per solve")), display=False)
pipe = scaling[scaling.solver == "pipeline"]


def _threads(rows: pd.DataFrame) -> str:
    """Threads per solve as ``rows`` record them ("2", "1 or 2", "not recorded")."""
    t = sorted(int(x) for x in rows.threads.dropna().unique())
    if not t:
        return "not recorded"
    return str(t[0]) if len(t) == 1 else f"{t[0]} or {t[-1]}"


def _setting(rows: pd.DataFrame) -> str:
    """Time limit and threads per solve of ``rows`` ("60 s on 2 threads")."""
    threads = _threads(rows)
    return f"{rows.time_limit.iloc[0]:g} s on {threads} thread{'s' if threads != '1' else ''}"


# SCIP's child process is always single-threaded, whatever its rows record
glue("hs-bench-threads", "; ".join(f"{label}: {'1' if s == 'scip' else _threads(scaling[scaling.solver == s])}"
                                   for s, label in scale_solvers.items()), display=False)
glue("hs-pipe-seeds", int(pipe.seed.nunique()), display=False)
glue("hs-pipe-proved-max-n", int(pipe[pipe.optimal].n.max()), display=False)
glue("hs-pipe-proved", int(pipe.optimal.sum()), display=False)
glue("hs-pipe-runs", int(len(pipe)), display=False)
# the upper-bound search's effect: the same instances (model, n, seed) with and without it, n >= 20
paired = pipe.merge(scaling[scaling.solver == "pipeline-v1"], on=["model", "n", "seed"], suffixes=("", "_v1"))
paired = paired[paired.n >= 20]
glue("hs-pipe-paired", int(len(paired)), display=False)
glue("hs-pipe-gap-big", float(100 * paired.gap.mean()), display=False)
glue("hs-pipe-gap-big-v1", float(100 * paired.gap_v1.mean()), display=False)
glue("hs-pipe-upper-better", int((paired.upper < paired.upper_v1).sum()), display=False)
glue("hs-pipe-lower-better", int((paired.lower > paired.lower_v1).sum()), display=False)
glue("hs-pipe-lower-gain", float(100 * ((paired.lower - paired.lower_v1) / paired.lower_v1).max()), display=False)
glue("hs-pipe-gap20", f"{100 * pipe[pipe.n == 20].gap.min():.1f}-{100 * pipe[pipe.n == 20].gap.max():.1f}", display=False)
glue("hs-pipe-gap40", f"{100 * pipe[pipe.n == 40].gap.min():.1f}-{100 * pipe[pipe.n == 40].gap.max():.1f}", display=False)
glue("hs-highs-gap40", f"{100 * scaling[(scaling.solver == 'highs') & (scaling.n == 40)].gap.min():.1f}-"
     f"{100 * scaling[(scaling.solver == 'highs') & (scaling.n == 40)].gap.max():.1f}", display=False)
small = benchmark_rows("benchmarks/section51_certified_results.jsonl")
proved = small[small.optimal]
glue("hs-small-proved", int(len(proved)), display=False)
glue("hs-small-total", int(len(small)), display=False)
glue("hs-small-nmax", int(proved.n.max()), display=False)
glue("hs-small-mean", float(proved.mcsf_over_opt.mean()), display=False)
glue("hs-small-max", float(proved.mcsf_over_opt.max()), display=False)
glue("hs-small-exact", int((proved.mcsf == proved.lower).sum()), display=False)

alone = benchmark_rows("benchmarks/exact_alone_results.jsonl")
alone = alone[alone.solver == "pipeline"]
shared = pipe[pipe.n.isin(alone.n.unique())]
alone_tab = scaling_table(pd.concat([shared.assign(solver="shared"), alone.assign(solver="alone")]),
                          ["shared", "alone"])
glue("hs-tbl-alone", pad(alone_tab.rename(columns={"shared": "cores shared with other jobs", "alone": "alone on the machine"})
        .style.hide(axis="index").set_caption(
            f"the pipeline with {_setting(alone)} per solve, on a shared "
            "and on a free machine; proved runs and time to proof, or final gap (upper - lower) / upper")), display=False)
alone_small = alone[alone.n <= 15]
shared_small = shared[shared.n <= 15]
glue("hs-alone-small-proved", int(alone_small.optimal.astype(bool).sum()), display=False)
glue("hs-alone-small-runs", int(len(alone_small)), display=False)
glue("hs-alone-small-shared", int(shared_small.optimal.astype(bool).sum()), display=False)
glue("hs-alone-nmax", int(alone_small.n.max()), display=False)
open_small = alone_small[~alone_small.optimal.astype(bool)]
glue("hs-alone-open-small", int(len(open_small)), display=False)
glue("hs-alone-open-gap", float(100 * open_small.gap.max()) if len(open_small) else 0.0, display=False)
# from n = 20 on: the mean gap per size on both machines, and which of the two bounds moved
big_pair = alone[alone.n >= 20].merge(shared, on=["model", "n", "seed"], suffixes=("", "_sh"))
glue("hs-alone-big-proved", int(big_pair.optimal.astype(bool).sum()), display=False)
glue("hs-alone-gaps", "; ".join(f"n = {int(k)}: {100 * g.gap.mean():.1f}% alone, {100 * g.gap_sh.mean():.1f}% shared"
                                for k, g in big_pair.groupby("n")), display=False)
glue("hs-alone-big-runs", int(len(big_pair)), display=False)
glue("hs-alone-big-same-lower", int((big_pair.lower == big_pair.lower_sh).sum()), display=False)
glue("hs-alone-big-higher-lower", int((big_pair.lower > big_pair.lower_sh).sum()), display=False)
glue("hs-alone-big-better-upper", int((big_pair.upper < big_pair.upper_sh).sum()), display=False)
glue("hs-alone-big-min-gap", float(100 * big_pair.groupby("n").gap.mean().min()), display=False)

# the benchmark files of the LP and beyond (read, not recomputed): column generation, lift, searches above the LP
lp_rows = benchmark_rows("benchmarks/lp_colgen_results.jsonl")
glue("hs-tbl-colgen", pad(lp_method_table(lp_rows).style.hide(axis="index").set_caption(
    "the time-indexed LP solved whole and by column generation (CG), same budget, one thread: runs "
    "converged, mean certified bound relative to the separation bound, which ended higher")), display=False)
from kvlib.optimum.pipeline import LP_NNZ_PER_SECOND

lp_wide = lp_method_pairs(lp_rows).xs(30.0, level="budget")  # the 30 s runs, one row per instance
both_conv = lp_wide[lp_wide[("converged", "full")].astype(bool) & lp_wide[("converged", "colgen")].astype(bool)]
lp60 = lp_wide.loc[60]
skip60 = lp60[lp60[("nonzeros", "full")] > LP_NNZ_PER_SECOND * 30]
cg_up = skip60[("bound", "colgen")] / skip60[("separation_lb", "colgen")] - 1
glue("hs-cg-limit", f"{LP_NNZ_PER_SECOND:,}", display=False)
glue("hs-cg-limit-30", f"{30 * LP_NNZ_PER_SECOND:,}", display=False)
glue("hs-cg-n60", int(len(lp60)), display=False)
glue("hs-cg-skipped", int(len(skip60)), display=False)
glue("hs-cg-both-conv", int(len(both_conv)), display=False)
glue("hs-cg-both-equal", int((both_conv[("bound", "full")] == both_conv[("bound", "colgen")]).sum()), display=False)
glue("hs-cg-60-higher", int((lp60[("bound", "colgen")] > lp60[("bound", "full")]).sum()), display=False)
mid = lp_wide[lp_wide.index.get_level_values("n") < 60]
glue("hs-cg-mid-runs", int(len(mid)), display=False)
glue("hs-cg-mid-higher", int((mid[("bound", "colgen")] > mid[("bound", "full")]).sum()), display=False)
glue("hs-cg-mid-lower", int((mid[("bound", "colgen")] < mid[("bound", "full")]).sum()), display=False)
glue("hs-cg-skip-above", int((cg_up > 0).sum()), display=False)
glue("hs-cg-skip-detail", ", ".join(f"{100 * v:+.1f}%" for v in sorted(cg_up)), display=False)

lift_rows = benchmark_rows("benchmarks/lp_lifted_results.jsonl")
glue("hs-tbl-lift", pad(lift_table(lift_rows).style.hide(axis="index").set_caption(
    "the strengthened LP and its level-one lifts over the same columns, against the proved optimum; "
    "in brackets the share of the LP's gap closed")), display=False)
lift_c = lift_closed(lift_rows, "completion")
lift_r = lift_closed(lift_rows, "run")


def _closed_by_n(df: pd.DataFrame) -> str:
    """Mean share of the LP's gap closed per n ("n = 10: 30% (5 instances)")."""
    return "; ".join(f"n = {int(k)}: {100 * g.closed.mean():.0f}% ({len(g)} instance{'s' if len(g) > 1 else ''})"
                     for k, g in df.groupby("n"))


glue("hs-lift-instances", int(lift_rows.groupby(["model", "n", "seed"]).ngroups), display=False)
glue("hs-lift-per-n", "; ".join(f"n = {int(k)}: {g.groupby(['model', 'seed']).ngroups} instances (seeds "
                                f"{', '.join(str(int(v)) for v in sorted(g.seed.unique()))})"
                                for k, g in lift_rows.groupby("n")), display=False)
glue("hs-lift-lpgap", "; ".join(f"n = {int(k)}: {100 * g.lp_gap.mean():.1f}%" for k, g in lift_c.groupby("n")),
     display=False)
glue("hs-lift-closed-c", _closed_by_n(lift_c), display=False)
glue("hs-lift-closed-r", _closed_by_n(lift_r), display=False)
glue("hs-lift-best", float(100 * pd.concat([lift_c, lift_r]).closed.max()), display=False)
big_lift = lift_rows[(lift_rows.n == lift_rows.n.max()) & (lift_rows.conditional == "run")]
glue("hs-lift-pairs", f"{int(big_lift.pairs.median()):,}", display=False)
glue("hs-lift-seconds", float(big_lift.seconds.median()), display=False)
glue("hs-lift-nmax", int(lift_rows.n.max()), display=False)
_trend = lift_c.groupby("n").closed.mean()
glue("hs-lift-trend", "a single size" if len(_trend) < 2 else
     f"at completions: {100 * _trend.iloc[0]:.0f}% of the gap at n = {int(_trend.index[0])}, "
     f"{100 * _trend.iloc[-1]:.0f}% at n = {int(_trend.index[-1])}: "
     + ("less at the larger size" if _trend.iloc[-1] < _trend.iloc[0] else "not less at the larger size"),
     display=False)

beyond_rows = benchmark_rows("benchmarks/beyond_lp_results.jsonl")
glue("hs-tbl-beyond", pad(beyond_lp_table(beyond_rows).style.hide(axis="index").set_caption(
    "the LP bound against the best schedule known; what a search proved above the LP (destructive targets, "
    "branch and bound), and the TEL of a longer search for schedules")), display=False)
beyond = beyond_lp_counts(beyond_rows)
for _key in ("instances", "raised", "targets_open", "bb_raised", "bb_nodes_max", "bb_root_only", "long_runs",
             "long_better", "long_worse"):
    glue(f"hs-beyond-{_key.replace('_', '-')}", beyond[_key], display=False)
glue("hs-beyond-raised-max", beyond["raised_max"], display=False)
glue("hs-beyond-bb-max", beyond["bb_max"], display=False)
glue("hs-beyond-sizes", " and ".join(str(int(k)) for k in sorted(beyond_rows.n.unique())), display=False)
_ran = beyond_rows.dropna(subset=["upper_long"]) if "upper_long" in beyond_rows else beyond_rows.iloc[:0]
glue("hs-beyond-long-same", beyond["long_runs"] - beyond["long_better"] - beyond["long_worse"], display=False)
glue("hs-beyond-long-gain", float(100 * ((_ran.ub - _ran.upper_long) / _ran.ub).max()) if len(_ran) else 0.0,
     display=False)
_ran_gap = 100 * (_ran.ub - _ran.lp) / _ran.ub
glue("hs-beyond-long-lpgap", f"{_ran_gap.min():.1f}-{_ran_gap.max():.1f}" if len(_ran) else "-", display=False)
# the prose below says the long search moves the best TEL far less than the LP is below it
assert len(_ran) == 0 or float(((_ran.ub - _ran.upper_long) / _ran.ub).max()) < \
    float(((_ran.ub - _ran.lp) / _ran.ub).min())

destr_rows = benchmark_rows("benchmarks/exact_destructive_results.jsonl")
destr_pair = paired_solver_table(alone, destr_rows, ("pipeline", "+ destructive"))
glue("hs-tbl-destr", pad(destr_pair.style.hide(axis="index").set_caption(
    f"the pipeline alone and the pipeline followed by destructive bounds, {_setting(destr_rows)} per solve, "
    "on the same instances")), display=False)
_both = alone.merge(destr_rows, on=["model", "n", "seed"], suffixes=("", "_d"))
glue("hs-destr-sizes", " and ".join(str(int(k)) for k in sorted(_both.n.unique())), display=False)
glue("hs-destr-instances", int(len(_both)), display=False)
glue("hs-destr-proved", int(_both.optimal_d.astype(bool).sum()), display=False)
glue("hs-destr-proved-pipe", int(_both.optimal.astype(bool).sum()), display=False)
glue("hs-destr-higher", int((_both.lower_d > _both.lower).sum()), display=False)
glue("hs-destr-worse", int((_both.upper_d > _both.upper).sum()), display=False)
# the prose below says the destructive variant proves fewer and leaves wider gaps at every size
assert all(g.optimal_d.astype(bool).sum() <= g.optimal.astype(bool).sum() and g.gap_d.mean() >= g.gap.mean()
           for _, g in _both.groupby("n"))
# the pipeline's budgets, as the prose below states them
from kvlib.optimum import pipeline as _pipe

glue("hs-pipe-search-share", f"{100 * _pipe.SEARCH_SHARE:.0f}", display=False)
glue("hs-pipe-search-lists", f"{_pipe.SEARCH_EVALUATIONS:,}", display=False)
glue("hs-pipe-upper-share", f"{100 * _pipe.UPPER_SHARE:.0f}", display=False)
glue("hs-pipe-exact-max-n", _pipe.EXACT_SEARCH_MAX_N, display=False)

# %% [markdown]
# (hindsight-solver-dev)=
# ### The solver, measured
#
# The solver behind the Section 5.1 runs below, `kvlib.optimum.exact.solve`, runs by default an
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
# integer $t < T$ (`kvlib.core.instances.section51`); 200 trials per arrival model. This page asks
# for {glue:text}`hs-trials:d` trials per model, AM1 $n \in$ [{glue:text}`hs-nmin:d`,
# {glue:text}`hs-nmax:d`], AM2 $T \in$ [{glue:text}`hs-hmin:d`, {glue:text}`hs-hmax:d`],
# {glue:text}`hs-timelimit:s` s per solve on {glue:text}`hs-threads:d` solver threads
# ({glue:text}`hs-mode:s` mode, seed {glue:text}`hs-seed:d`). The rows of the tables below were
# {glue:text}`hs-rows-source:s`; each caption names the commit and date of its rows.
#
# **Solver settings differ from the paper's.** 001 Section 5.1 solves the IP of Section 3 with Gurobi
# and states neither a time limit nor an optimality gap for those solves, so its ratios are presented
# as exact. Here every solve is open-source and stops after {glue:text}`hs-timelimit:s` s on
# {glue:text}`hs-threads:d` threads, a setting the paper does not fix: our solver results are
# therefore reported as certified intervals, never as optima unless proved.
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
# row of a table of results (row function `kvlib.book.section51.best_policy_trial`; every column, the TEL of each policy
# included, is reproducible exactly).

# %%
scan_keys = [dict(trial=k, model=model, seed=seed) for k in range(scan_trials) for model in (1, 2)]
scan_tab = store.table("scan", best_policy_trial, scan_keys)
scan = scan_tab.frame.assign(model=lambda d: "AM" + d.model.astype(str))
scan_summary = scan.groupby("model").agg(
    trials=("trial", "size"),
    average_lower_end=("ratio lower end", "mean"),
    worst_lower_end=("ratio lower end", "max"),
    mcsf_certified_not_optimal=("ratio lower end", lambda r: int((r > 1).sum())),
)
display(scan_summary.reset_index().rename(columns={
    "average_lower_end": "average lower end", "worst_lower_end": "worst lower end",
    "mcsf_certified_not_optimal": "MC-SF certified not optimal (trials)"}).style.hide(axis="index")
    .format({"average lower end": "{:.4f}", "worst lower end": "{:.4f}"})
    .set_caption(f"MC-SF / best found, a certified lower end of MC-SF / OPT ({scan_tab.label})"))
POLICY_NAMES = {"mc-sf": "MC-SF", "mc-sf2": "MC-SF2", "mc-benchmark": "MC-Benchmark",
                "mc-benchmark-scan": "MC-Benchmark, scanning"}
glue("scan-best-table", pad(scan[scan.model == "AM1"]["best policy"].map(POLICY_NAMES).value_counts()
     .rename("AM1 trials").rename_axis("smallest TEL (ties: MC-SF first)").reset_index().style.hide(axis="index")),
     display=False)
# MC-SF has the smallest TEL of the four (a tie counts as MC-SF's): the count the model chapter reports on
# the same instances (its draw k is trial k of this table; tests/test_model_page.py checks it)
_am1 = scan[scan.model == "AM1"]
_others = _am1[[p for p in POLICY_NAMES if p != "mc-sf"]].min(axis=1)
glue("scan-AM1-mcsf-best", int((_am1["mc-sf"] <= _others).sum()), display=False)
glue("scan-AM1-mcsf-ties", int((_am1["mc-sf"] == _others).sum()), display=False)
assert int((_am1["best policy"] == "mc-sf").sum()) == int((_am1["mc-sf"] <= _others).sum())
# The prose below says our AM1 numbers contradict the paper's (43% not optimal, average 1.005);
# fail loudly if a parameter change or a partial table makes that false.
am1 = scan_summary.loc["AM1"]
assert am1.mcsf_certified_not_optimal / am1.trials > 0.43 and am1.average_lower_end > 1.005, am1
glue("scan-trials", int(am1.trials), display=False)
glue("scan-seconds", f"{scan_tab.frame._wall_s.sum():.0f}", display=False)
glue("scan-label", scan_tab.label, display=False)
for m in ("AM1", "AM2"):
    row = scan_summary.loc[m]
    glue(f"scan-{m}-trials", int(row.trials), display=False)
    glue(f"scan-{m}-avg", float(row.average_lower_end), display=False)
    glue(f"scan-{m}-worst", float(row.worst_lower_end), display=False)
    glue(f"scan-{m}-notopt", int(row.mcsf_certified_not_optimal), display=False)
    glue(f"scan-{m}-notopt-pct", float(100 * row.mcsf_certified_not_optimal / row.trials), display=False)

# %% [markdown]
# On Arrival Model 1, MC-SF is certified **not** optimal in {glue:text}`scan-AM1-notopt:d` of
# {glue:text}`scan-AM1-trials:d` trials ({glue:text}`scan-AM1-notopt-pct:.0f`%), and MC-SF / OPT averages at
# least {glue:text}`scan-AM1-avg:.4f` (worst trial at least {glue:text}`scan-AM1-worst:.4f`). The paper reports
# an average of {glue:text}`hs-paper-am1-avg:s` and exact matches in {glue:text}`hs-paper-am1-matches:s`
# trials, i.e. MC-SF not optimal in {glue:text}`hs-paper-am1-notopt-pct:.0f`% (the paper's numbers). Our
# MC-SF is not optimal in clearly more trials than the paper's allows, and our certified average lower end
# exceeds the paper's average. MC-SF itself has the smallest TEL of the four policies in
# {glue:text}`scan-AM1-mcsf-best:d` of these trials (a tie would count as MC-SF's; there are
# {glue:text}`scan-AM1-mcsf-ties:d`; the counts per policy are folded below); the model chapter draws its random
# instances with the same seeds, so its full build counts the same trials
# ({ref}`model-random`). These are our random draws of the paper's
# distribution, not the paper's instances, and the order of ties in Algorithm 1 is not fixed by the
# text; the next section shows that neither the draws nor the tie order explains the difference
# (see {ref}`errata-001-am1`). Our MC-SF and our IP use the same memory convention, that of eq. (5)
# and constraint (3) (a request started at $p$ holds $s_i + t - p$ tokens at $t \in [p + 1, p + o_i]$);
# we did not run the paper's code. On Arrival Model 2 the certified lower end averages
# {glue:text}`scan-AM2-avg:.4f` over {glue:text}`scan-AM2-trials:d` trials (worst
# {glue:text}`scan-AM2-worst:.4f`; the paper's average is {glue:text}`hs-paper-am2-avg:s`), which is
# consistent with the paper. Rows: {glue:text}`scan-label:s`; computing them took
# {glue:text}`scan-seconds:s` s in all.
#
# ::::{dropdown} Which policy has the smallest TEL (Arrival Model 1)
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
# algorithm. A second table of results (row function `kvlib.book.section51.tiebreak_trial`, every
# column exact) runs, on the same Arrival Model 1 instances as the scan above, MC-SF with ties broken
# by index (our default) and by five seeded random orders, together with the other policies of the
# scan; the best checked schedule among all of them bounds OPT from above.

# %%
tie_trials = scan_trials if mode == "full" else min(scan_trials, 40)
tie_draws = 5
tie_tab = store.table("tiebreak", tiebreak_trial, [dict(trial=k, seed=seed, draws=tie_draws) for k in range(tie_trials)])
ties = tie_tab.frame
readings = {"mcsf": "ties by index (ours)", **{f"mcsf_r{d}": f"ties in random order, seed {d}" for d in range(tie_draws)}}
tie_summary = pd.DataFrame([{
    "reading of Algorithm 1": label,
    "certified not optimal": int((ties[c] > ties.best).sum()),
    "equal to the best found": int((ties[c] == ties.best).sum()),
    "mean MC-SF / best found": float((ties[c] / ties.best).mean()),
} for c, label in readings.items()])
# shown folded below the paragraph that reads it (Table "tbl-hs-ties")
glue("tie-summary-table", tie_summary.style.hide(axis="index").format({"mean MC-SF / best found": "{:.4f}"}),
     display=False)
PAPER_MATCHES, PAPER_TRIALS, PAPER_AM1_MEAN = 114, 200, PAPER_SECTION51["AM1"]["average"]
max_possible = int(tie_summary["equal to the best found"].max())  # the most favourable reading
p_fisher = match_count_test(PAPER_MATCHES, PAPER_TRIALS, max_possible, len(ties))
share_up = match_share_upper(max_possible, len(ties), 0.999)
some_reading = int((ties.readings_optimal_possible > 0).sum())
min_lower_mean = float(tie_summary["mean MC-SF / best found"].min())
glue("tie-trials", int(len(ties)), display=False)
glue("tie-label", tie_tab.label, display=False)
glue("tie-label-md", Markdown(re.sub(r"(results/[A-Za-z0-9_./-]+\.csv)", r"`\1`", tie_tab.label)), display=False)
glue("tie-ties-median", int(ties.ties.median()), display=False)
glue("tie-index-notopt", int(tie_summary["certified not optimal"].iloc[0]), display=False)
glue("tie-index-possible", int(tie_summary["equal to the best found"].iloc[0]), display=False)
glue("tie-min-notopt", int(tie_summary["certified not optimal"].min()), display=False)
glue("tie-max-possible", max_possible, display=False)
glue("tie-some-reading", some_reading, display=False)
glue("tie-index-mean", float(tie_summary["mean MC-SF / best found"].iloc[0]), display=False)
glue("tie-min-mean", min_lower_mean, display=False)
glue("tie-p-fisher", f"{p_fisher:.1e}", display=False)
glue("tie-share-up", float(100 * share_up), display=False)
glue("tie-paper-expected", float(PAPER_TRIALS * share_up), display=False)
glue("tie-paper-excess", float(PAPER_MATCHES - PAPER_TRIALS * share_up), display=False)
glue("tie-mean-shift", float(min_lower_mean - PAPER_AM1_MEAN), display=False)
glue("tie-paper-matches", PAPER_MATCHES, display=False)
glue("tie-paper-trials", PAPER_TRIALS, display=False)
glue("tie-paper-pct", float(100 * PAPER_MATCHES / PAPER_TRIALS), display=False)
glue("hs-paper-am1-notopt-pct", float(100 * (PAPER_TRIALS - PAPER_MATCHES) / PAPER_TRIALS), display=False)

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
# the one-sided Fisher exact test (`kvlib.book.section51.match_count_test`) gives
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
# pipeline proves most of them. A third table of results (row function
# `kvlib.book.section51.certified_small_trial`) draws instances from 001 Section 5.1's distribution
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
small_summary = cs.groupby(["model", "size"]).agg(
    trials=("trial", "size"), n_mean=("n", "mean"), proved=("optimal", "sum"),
    mcsf_optimal=("mcsf_optimal", lambda v: int((v == "yes").sum())),
    mcsf_not_optimal=("mcsf_optimal", lambda v: int((v == "no").sum())),
    ratio_mean_proved=("ratio_lo", lambda r: float(r[cs.loc[r.index, "optimal"]].mean())),
    ratio_max_proved=("ratio_lo", lambda r: float(r[cs.loc[r.index, "optimal"]].max())),
).reset_index()
glue("small-table", pad(small_summary.rename(columns={
    "model": "model", "size": "size", "n_mean": "mean n", "proved": "OPT proved",
    "mcsf_optimal": "MC-SF optimal", "mcsf_not_optimal": "MC-SF not optimal",
    "ratio_mean_proved": "mean ratio", "ratio_max_proved": "max ratio"})
    .style.hide(axis="index").format({"mean n": "{:.1f}", "mean ratio": "{:.4f}", "max ratio": "{:.4f}"})
    .set_caption("MC-SF against the proved optimum at small sizes: size is n requests (AM1) or the horizon T "
                 "in rounds (AM2); MC-SF optimal: proved, not optimal: certified; ratio: MC-SF / OPT over the "
                 f"instances proved ({small_tab.label})")), display=False)
for m in ("AM1", "AM2"):
    d = cs[cs.model == m]
    pr = d[d.optimal]
    key = m.lower()
    glue(f"small-{key}-trials", int(len(d)), display=False)
    glue(f"small-{key}-proved", int(len(pr)), display=False)
    glue(f"small-{key}-yes", int((d.mcsf_optimal == "yes").sum()), display=False)
    glue(f"small-{key}-no", int((d.mcsf_optimal == "no").sum()), display=False)
    glue(f"small-{key}-yes-pct", float(100 * (pr.mcsf_optimal == "yes").mean()) if len(pr) else float("nan"),
         display=False)
    glue(f"small-{key}-mean", float(pr.ratio_lo.mean()) if len(pr) else float("nan"), display=False)
    glue(f"small-{key}-max", float(pr.ratio_lo.max()) if len(pr) else float("nan"), display=False)
glue("small-label", small_tab.label, display=False)
glue("small-proved-all", int(cs.optimal.sum()), display=False)
glue("small-trials-all", int(len(cs)), display=False)
glue("small-nmin", int(min(small_sizes)), display=False)
glue("small-nmax", int(max(small_sizes)), display=False)
glue("small-limit", f"{small_limit:g}", display=False)

fig, axes = plt.subplots(1, 2, figsize=(8, 3.2), sharey=True)
for ax, m in zip(axes, ("AM1", "AM2")):
    d = cs[cs.model == m]
    x = d["size"] + np.linspace(-0.35, 0.35, 1 + int(d.groupby("size").size().max()))[d.groupby("size").cumcount()]
    pr = d.optimal.to_numpy()
    ax.vlines(x[~pr], d.ratio_lo[~pr], d.ratio_hi[~pr], color="0.6", lw=1, label="not proved: [MC-SF/upper, MC-SF/lower]")
    ax.scatter(x[pr], d.ratio_lo[pr], s=12, color="C0", label="proved MC-SF / OPT")
    ax.axhline(PAPER_AM1_MEAN if m == "AM1" else PAPER_SECTION51["AM2"]["average"], color="C3", ls="--", lw=1,
               label=f"paper's mean ({m}, n = 40-60)")
    ax.axhline(1.0, color="k", lw=0.5)
    ax.set_title(f"{m}: MC-SF / OPT per instance")
    ax.set_xlabel("n requests" if m == "AM1" else "horizon T")
    ax.legend(fontsize=6)
axes[0].set_ylabel("ratio")
top = float(np.nanmax(cs.ratio_lo[cs.optimal])) if cs.optimal.any() else 1.1
axes[0].set_ylim(0.99, max(1.15, min(top + 0.02, 1.6)))
fig.tight_layout()
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
long_rows = benchmark_rows("benchmarks/exact_long_results.jsonl")
long_tab = longer_limit_table(scaling, long_rows)
long_pipe = long_rows[long_rows.solver == "pipeline"]
long_proved = long_pipe[long_pipe.optimal.astype(bool)]
LONG_SIZES = (12, 15)  # the --sizes of the longer run
short_pipe = scaling[(scaling.solver == "pipeline") & scaling.n.isin(LONG_SIZES)]
glue("hs-tbl-long", pad(long_tab.style.hide(axis="index").set_caption(
    f"n = {', '.join(str(int(k)) for k in sorted(long_pipe.n.unique()))}: the pipeline with "
    f"{_setting(short_pipe)} and with {_setting(long_pipe)}; certified TEL and MC-SF / OPT from the longer run")), display=False)
long_grid = int(len(short_pipe))
glue("hs-long-runs", int(len(long_pipe)), display=False)
glue("hs-long-coverage", "every one of them" if len(long_pipe) >= long_grid
     else f"{len(long_pipe)} of them (the others have not been run at this limit yet)", display=False)
glue("hs-long-grid", long_grid, display=False)
was_open = long_pipe.merge(short_pipe, on=["model", "n", "seed"], suffixes=("", "_60"))
was_open = was_open[~was_open.optimal_60.astype(bool)]
glue("hs-long-was-open", int(len(was_open)), display=False)
glue("hs-long-now-proved", int(was_open.optimal.astype(bool).sum()), display=False)
glue("hs-long-slowest", float(long_proved.seconds.max()) if len(long_proved) else 0.0, display=False)
still = long_pipe[~long_pipe.optimal.astype(bool)]
glue("hs-long-rest", "all of them were proved" if still.empty else
     f"{len(still)} stayed open, with final gaps of at most {100 * still.gap.max():.1f}%", display=False)
long_ratio = long_proved.mcsf / long_proved.upper
long_exact = int((long_proved.mcsf == long_proved.upper).sum())
glue("hs-long-proved-n", int(len(long_proved)), display=False)  # for the errata page
glue("hs-long-exact-n", long_exact, display=False)
glue("hs-long-ratio", "none was proved, so MC-SF / OPT is known on none" if long_proved.empty else
     f"on the {len(long_proved)} proved instances MC-SF / OPT has mean {long_ratio.mean():.4f} and maximum "
     f"{long_ratio.max():.4f}, and MC-SF is optimal on {long_exact} of them", display=False)

# %% [markdown]
# Of the {glue:text}`hs-long-grid:d` instances at these sizes the file holds
# {glue:text}`hs-long-coverage:s`. Of the {glue:text}`hs-long-was-open:d` among them that the minute left
# open, the longer limit proves {glue:text}`hs-long-now-proved:d`; over all
# {glue:text}`hs-long-runs:d`, {glue:text}`hs-long-rest:s`, and the slowest proof took
# {glue:text}`hs-long-slowest:.0f` s. Finally, {glue:text}`hs-long-ratio:s`.
#
# ::::{dropdown} Each instance under both limits, and how they were run
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
# Each trial is one row of a fourth table of results (row function
# `kvlib.book.section51.certified_trial`). The instance hash, $n$, $M$ and the TELs of MC-SF and of the
# best heuristic schedule are reproducible exactly; the interval [lower, upper] depends on the time
# limit and the machine's speed, so a recomputation is only required to overlap it; proved flags,
# gaps and wall times are recorded but not compared. The rows are ordered trial by trial (trial 0 of
# AM1, trial 0 of AM2, trial 1 of AM1, ...), and every count below is taken from the rows the table holds.
#
# (hindsight-primal)=
# **A primal search for the upper ends.** The primal search of `kvlib.optimum.search` (ours: list scheduling with local search, and CP-SAT
# re-optimising windows of the schedule) finds a better schedule than the pipeline in {glue:text}`hs-am1-search-better:d` of
# {glue:text}`hs-am1-trials:d` AM1 trials and {glue:text}`hs-am2-search-better:d` of
# {glue:text}`hs-am2-trials:d` AM2 trials; the lower end of MC-SF / OPT's average moves from
# {glue:text}`hs-am1-avg-lo-pipeline:s` to {glue:text}`hs-am1-avg-lo:s` (AM1) and from
# {glue:text}`hs-am2-avg-lo-pipeline:s` to {glue:text}`hs-am2-avg-lo:s` (AM2).
#
# ::::{dropdown} How the primal search works, its budget and what it found
# At these sizes the pipeline's lower bounds are far from its schedules, and its schedules come from
# CP-SAT runs of a few seconds. The primal search looks harder, in two neighbourhoods used in turn:
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
tab = store.table("section51", certified_trial, keys, interval=[("lower", "upper")],
                  timing=["seconds", "trial_seconds"],
                  ignore=["optimal", "status", "gap", "source", "separation_lb"])

# %%
if tab.frame.empty:
    raise ValueError(f"results/hindsight/section51: none of the {len(keys)} requested rows is stored "
                     "(were the parameters changed?); rerun with --mode full --only hindsight")
search_keys = [dict(trial=k, model=model, seed=seed, n_range=[n_min, n_max], horizon_range=[horizon_min, horizon_max],
                    evaluations=search_evaluations, windows=search_windows, window=10, window_time=0.5, search_seed=0)
               for k in range(trials) for model in (1, 2)]
# the search's path depends on CP-SAT's version (recorded in the manifest), so a recomputation compares the
# instance columns; every stored schedule is re-checked against its instance below instead
search_tab = store.table("section51_search", search_trial, search_keys, timing=["seconds"],
                         ignore=["search", "source", "windows_improved", "starts"], jobs=search_jobs)

# %%
res = combine_with_pipeline(tab.frame, search_tab.frame).assign(model=lambda d: "AM" + d.model.astype(str))
res["optimal"] = res.optimal.astype(bool)
res = intervals(res)  # ratio_lo = MC-SF / upper, ratio_hi = MC-SF / lower, match (MC-SF = OPT proved), beaten
PAPER = PAPER_SECTION51
summary = section51_summary(res).rename(index={"trials": "trials"})
display(summary.reset_index().rename(columns={"index": ""}).style.hide(axis="index")
        .set_caption("MC-SF / OPT: ours as certified intervals [MC-SF/upper, MC-SF/lower], "
                     "beside the paper's (columns 'paper': 001 Section 5.1, Gurobi, n in [40, 60], "
                     f"200 trials per model). Ours: lower ends {tab.label}; upper ends the better of those and "
                     f"{search_tab.label}"))
glue("hs-s51-label", tab.label, display=False)
glue("hs-search-label", search_tab.label, display=False)
glue("hs-s51-rows", int(len(res)), display=False)
glue("hs-s51-keys", int(len(keys)), display=False)
glue("hs-threads", int(threads), display=False)
glue("hs-search-evals", f"{search_evaluations:,}", display=False)
glue("hs-search-windows", int(search_windows), display=False)
glue("hs-search-seconds", f"{search_tab.frame.seconds.mean():.0f}", display=False)
V = {m: verdicts(res, m) for m in ("AM1", "AM2") if (res.model == m).any()}
for m in ("AM1", "AM2"):
    d = res[res.model == m]
    key = m.lower()
    v = V[m]
    glue(f"hs-{key}-trials", int(len(d)), display=False)
    glue(f"hs-{key}-proved", int(d.optimal.sum()), display=False)
    glue(f"hs-{key}-unproved", int((~d.optimal).sum()), display=False)
    glue(f"hs-{key}-matches", int(d.match.sum()), display=False)
    glue(f"hs-{key}-matches-hi", v["matches_hi"], display=False)
    glue(f"hs-{key}-matches-verdict", v["matches"], display=False)
    glue(f"hs-{key}-lb-volume", int((d.lower == d.volume_lb).sum()), display=False)
    glue(f"hs-{key}-lb-sep", int(((d.lower == d.separation_lb) & (d.separation_lb > d.volume_lb)).sum()), display=False)
    glue(f"hs-{key}-lb-lp", int((d.lower > np.maximum(d.separation_lb, d.volume_lb)).sum()), display=False)
    glue(f"hs-{key}-lb-above-vol", float(100 * ((d.lower - d.volume_lb) / d.volume_lb).mean()), display=False)
    glue(f"hs-{key}-gap-mean", float(100 * ((d.upper - d.lower) / d.upper).mean()), display=False)
    glue(f"hs-{key}-gap-mean-pipeline", float(100 * ((d.upper_pipeline - d.lower) / d.upper_pipeline).mean()),
         display=False)
    glue(f"hs-{key}-improved", int((d.upper_pipeline < d.heuristic).sum()), display=False)
    glue(f"hs-{key}-beaten", int(d.beaten.sum()), display=False)
    glue(f"hs-{key}-not-beaten", int((~d.beaten).sum()), display=False)
    glue(f"hs-{key}-search-better", int((d.search < d.upper_pipeline).sum()), display=False)
    glue(f"hs-{key}-search-worse", int((d.search > d.upper_pipeline).sum()), display=False)
    glue(f"hs-{key}-search-gain", float(100 * ((d.upper_pipeline - d.upper) / d.upper_pipeline).mean()),
         display=False)
    glue(f"hs-{key}-avg-lo-pipeline", f"{(d.mcsf / d.upper_pipeline).mean():.3f}", display=False)
    glue(f"hs-{key}-verdict", v["average"], display=False)
    glue(f"hs-{key}-status", "erratum" if v["average_refuted"] or v["worst_refuted"] else "not checked",
         display=False)
    glue(f"hs-{key}-avg-lo", f"{v['avg_lo']:.3f}", display=False)
    glue(f"hs-{key}-avg-hi", f"{v['avg_hi']:.3f}", display=False)
    glue(f"hs-{key}-worst-lo", f"{v['worst_lo']:.3f}", display=False)
    glue(f"hs-{key}-worst-hi", f"{v['worst_hi']:.3f}", display=False)
    glue(f"hs-{key}-best-lo", f"{v['best_lo']:.3f}", display=False)
    glue(f"hs-{key}-best-hi", f"{v['best_hi']:.3f}", display=False)
    glue(f"hs-{key}-best-verdict", v["best"], display=False)
    glue(f"hs-paper-{key}-best", f"{PAPER[m]['best']:.3f}", display=False)
    glue(f"hs-paper-{key}-worst", f"{PAPER[m]['worst']:.3f}", display=False)
    glue(f"hs-paper-{key}-avg", f"{PAPER[m]['average']:.3f}", display=False)
    glue(f"hs-{key}-above-paper-worst", v["above_paper_worst"], display=False)
    glue(f"hs-{key}-worst-pnone", f"{v['p_worst']:.3f}", display=False)
    glue(f"hs-{key}-worst-verdict", v["worst"], display=False)
glue("hs-paper-am1-matches", "114 of 200", display=False)
glue("hs-repro-seconds", f"{tab.frame._wall_s.sum():.0f}", display=False)
# sentences whose truth depends on the build: a partial table, and the scale of the instances
glue("hs-s51-coverage", f"all {len(res)} trials asked for" if len(res) == len(keys) else
     f"the first {len(res)} of the {len(keys)} trials asked for (the table is partial)", display=False)
glue("hs-s51-scale", "the paper's sizes, so the comparison is a reproduction, up to the time limit" if PAPER_SCALE
     else "much smaller than the paper's, so the comparison is a smoke test of the pipeline, not a reproduction",
     display=False)

# %%
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
    ax.legend(fontsize=7)
fig.tight_layout()
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
# pipeline's schedules alone.
# ::::
#
# **What the numbers say about the paper's claim.** The paper's AM1 average
# ({glue:text}`hs-paper-am1-avg:s`) lies {glue:text}`hs-am1-verdict:s`; its AM2 average
# ({glue:text}`hs-paper-am2-avg:s`) lies {glue:text}`hs-am2-verdict:s`. The averages are over
# {glue:text}`hs-s51-coverage:s`; the instances are {glue:text}`hs-s51-scale:s`.
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
