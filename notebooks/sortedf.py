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
# (chapter-sortedf)=
# # Sorted-F and the ratio 48
#
# This chapter follows 002 (Wang, Ye, Zhou {cite}`wang2025serving`): Section 2 (all $n$ requests
# arrive at $t = 0$, prompt sizes $s_i$ vary), Section 4 (the metric $F$, Sorted-F, Lemma 1,
# Theorem 3 and its proof chain, Theorems 4-7), Section 5 and Appendix EC.3 (the Phase-1 selectors
# and the LP-based schedulers) and Appendix EC.4.2 (Table EC.1). It establishes, with `kvlib.policies.wyz`
# and `kvlib.policies.wyz_lp`:
#
# 1. Example 1 of 002 in our conventions, and the exchange argument behind $F$ checked symbolically;
# 2. which Phase-1 memory constraint is used and whether the choice matters;
# 3. Lemma 1 on every Phase-1 batch computed in this chapter;
# 4. the ratio Sorted-F / OPT on small instances with certified optima, an adversarial search for the
#    worst case, and the proof chain of Theorem 3 (Theorems 4-7) measured instance by instance, with
#    the transformed schedules of Theorems 5-7 in *our reconstruction* (not 002's definitions, see
#    below);
# 5. running time and quality of the four Phase-1 selectors (Table 3 of 002);
# 6. a reproduction of Table EC.1 (five synthetic distributions) with confidence intervals.
#
# Parameters (papermill, `book/chapters.yml`): `mode` (`"quick"` for CI, `"full"` for the paper's
# scale), `seed`, `n` (requests per Table EC.1 instance; the Mixed distribution uses `2 n`),
# `trials` (Table EC.1 instances per distribution), `opt_trials` (small instances solved to
# optimality), `adv_steps` (adversarial-search steps), `chain_steps` (steps of the adversarial searches
# on the proof-chain links), `time_limit` (seconds per IP solve; instances not closed in time are
# dropped and counted), `lp_fallback_step` (time grid of the LP policies where `kvlib.policies.wyz_lp`'s default
# grid gives an infeasible LP).

# %% tags=["parameters"]
mode = "quick"
seed = 0
n = None
trials = None
opt_trials = None
adv_steps = None
time_limit = 20.0
chain_steps = None
lp_fallback_step = 20

# %%
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import sympy as sp
from IPython.display import Math, display
from myst_nb import glue

from kvlib import Instance, simulate
from kvlib.book.runs import run_checked
from kvlib.book.stats import ci
from kvlib.book.tables import styled
from kvlib.book.synthetic import EC1_DISTRIBUTIONS, ec1_sample
from kvlib.book.timing import best_of
from kvlib.optimum.certify import certify
from kvlib.theory.chain48 import link_table, telescoped
from kvlib.theory.search import hill_climb, random_at_zero_instance, variable_prompt_space
from kvlib.policies.wyz import (
    F_exact,
    dp_argmin,
    lemma1_tally,
    phase1_selector,
    quantile_argmin,
    scaled_dp_argmin,
    CHAIN_LINKS,
    proof_chain,
    sorted_f,
    swap_argmin,
)

QUICK = mode == "quick"
n = n or (30 if QUICK else 100)
trials = trials or (2 if QUICK else 30)
opt_trials = opt_trials or (20 if QUICK else 300)
adv_steps = adv_steps or (25 if QUICK else 400)
chain_steps = chain_steps or (25 if QUICK else 300)
print(f"This chapter was produced in {mode!r} mode with seed {seed}: n = {n}, trials = {trials}, "
      f"opt_trials = {opt_trials}, adv_steps = {adv_steps}, chain_steps = {chain_steps}.")
T0 = time.perf_counter()
glue("cap_chain", f"{mode} mode, seed {seed}: {opt_trials} random small instances and three adversarial searches "
                  f"({adv_steps}, {chain_steps} and {4 * chain_steps} steps), IP time limit {time_limit:g} s", display=False)
ALL_BATCHES = []  # (Phase-1 selector, o of the batch) for the Lemma 1 check


def run(inst, name, **opts):
    """Simulate a registered policy (schedule validated by the independent checker); record its Phase-1 batches."""
    res, pol = run_checked(inst, name, **opts)
    if getattr(pol, "batches", None) is not None:
        sel = phase1_selector(name, opts, inst.prompt, inst.output, inst.memory)
        ALL_BATCHES.extend((sel, inst.output[b]) for b in pol.batches)
    return res, pol


# %% [markdown]
# ## Conventions
#
# Our model ({ref}`chapter-model`): a request started at $p$ occupies times $p+1, \dots, p+o$ and holds
# $s + (t - p)$ tokens at time $t$; it completes at $p + o$; TEL $= \sum_i (p_i + o_i)$ here, since
# every $a_i = 0$. Sorted-F (002 Algorithm 1) has two phases. **Phase 1** repeatedly picks, among
# the requests not yet chosen, a batch $X$ minimising $(F(X), -|X|)$ with
#
# $$F(X) = \frac{\sum_{i \in X} o_i}{|X|^2},$$
#
# sorts it by $o$ and appends it to a list. **Phase 2** runs the list with the look-ahead admission
# test of 001 eq. (5): at every time the longest prefix of the remaining list that fits is started
# (`kvlib.policies.wyz.PlannedPrefix`, a policy run by `kvlib.core.simulate.simulate` and validated by
# `kvlib.core.checker.check_schedule` like every other policy).
#
# **Which memory constraint does Phase 1 use?** 002 Algorithm 1 writes the constraint as
# $M(X, p_i + o_i) \le M$ (the batch, started together, fits at each of its completion times; we call
# this `lookahead`), while the selectors of 002 Section 5 (Algorithms 2-5: the exact DP, the scaled DP,
# the swap search that the experiments run as Sorted-F (Swap), and quantile greedy) work with
# $\sum_{i\in X}(s_i + o_i) \le M$ (all members' peaks added; `peak`). The experiments evidently used
# the selectors' constraint, so `peak` is our default; `--phase1-constraint lookahead` selects the other,
# and Algorithm 1 line 4's argmin (`exact`, which the default selector `auto` uses at these sizes)
# handles both exactly: for `peak` with Algorithm 2's DP, for `lookahead` with our extension of it
# (items by decreasing $o$, state $(|X|, \sum s)$, adding item $i$ allowed iff
# $\sum s + |X| o_i \le M$); 002's Algorithms 2-5 take `peak` only. Below we measure whether the choice matters.

# %% [markdown]
# ## Example 1: shortest-first against Sorted-F
#
# 002's Example 1: $M = 64$, one request $(s, o) = (63, 1)$ and 21 requests $(1, 2)$.

# %% tags=["teach"]
ex1 = Instance.at_zero([63] + [1] * 21, [1] + [2] * 21, 64)
ex1_mcsf, _ = run(ex1, "mc-sf")
ex1_sf, ex1_pol = run(ex1, "sorted-f")
ex1_sfl, _ = run(ex1, "sorted-f", phase1_constraint="lookahead")
ex1_opt = certify(ex1, method="ip", time_limit=time_limit)
assert ex1_opt.proved
display(styled(pd.DataFrame({"schedule": ["MC-SF", "Sorted-F", "Sorted-F (lookahead Phase 1)", "OPT (certified)"],
                            "TEL (rounds)": [ex1_mcsf.tel, ex1_sf.tel, ex1_sfl.tel, ex1_opt.upper]})))

# %%
f_small = F_exact([2] * 21)
glue("ex1_mcsf", ex1_mcsf.tel, display=False)
glue("ex1_sf", ex1_sf.tel, display=False)
glue("ex1_opt", ex1_opt.upper, display=False)
glue("ex1_fsmall", f"{float(f_small):.4f}", display=False)
glue("ex1_match", "agree with" if (ex1_mcsf.tel, ex1_sf.tel) == (64, 45) else "differ from", display=False)

# %% [markdown]
# MC-SF starts the $o = 1$ request first; it fills the cache ($63 + 1 = 64$ at time 1), so the 21
# short requests start at time 1 and finish at 3: TEL {glue:text}`ex1_mcsf:d`. Sorted-F's first batch is
# the 21 requests $(1, 2)$ ($F = 42/441 =$ {glue:text}`ex1_fsmall:s` against $F = 1$ for the long
# prompt), they finish at 2, the long prompt at 3: TEL {glue:text}`ex1_sf:d`, which the IP
# (`kvlib.optimum.exact.solve`) certifies optimal (OPT {glue:text}`ex1_opt:d`). The paper's values are 64 and 45;
# ours {glue:text}`ex1_match:s` them. Here the conventions do not matter: both schedules are sequences of
# whole batches, and the paper's "a batch of outputs $o$ finishes $o$ rounds after it starts" is ours.
#
# ## The exchange argument behind $F$ (Example 2)
#
# Why $|X|^2$? Run two batches one after the other, $X$ first. If a batch of size $k$ with total
# output $O$ takes time $\tau = O/k$ (its average output — Lemma 1 below shows the true duration, the
# maximum output, is less than twice that), the members of $Y$ wait $\tau_X$ longer. Below SymPy
# computes the difference of total latency between the two orders. *This is our rendering of the
# exchange argument; the numbers of the paper's Example 2 are not reproduced here.*

# %% tags=["teach"]
kX, kY, OX, OY = sp.symbols("k_X k_Y O_X O_Y", positive=True)
tauX, tauY = OX / kX, OY / kY
# each member completes at its batch start + (its own output); the batch after waits the batch duration
tel_XY = OX + (kY * tauX + OY)
tel_YX = OY + (kX * tauY + OX)
diff = sp.simplify(tel_XY - tel_YX)
FX, FY = OX / kX**2, OY / kY**2
identity = sp.simplify(diff - kX * kY * (FX - FY))
assert identity == 0  # the difference is k_X k_Y (F(X) - F(Y))
TEL_XY, TEL_YX = sp.symbols(r"\mathrm{TEL}_{XY} \mathrm{TEL}_{YX}")
display(Math(sp.latex(TEL_XY - TEL_YX) + " = " + sp.latex(diff)))
glue("ex2_diff", Math(sp.latex(sp.Eq(TEL_XY - TEL_YX, kX * kY * (sp.Function("F")(sp.Symbol("X"))
                                                                  - sp.Function("F")(sp.Symbol("Y")))))),
     display=False)

# %% [markdown]
# The difference is exactly
#
# ```{glue:math} ex2_diff
# :label: eq-sortedf-exchange
# ```
#
# (SymPy: the difference computed above minus $k_X k_Y\,(F(X) - F(Y))$ simplifies to 0): putting the batch with the smaller $F$ first is
# never worse, which is the rule Phase 1 applies greedily (smallest $F$ first). With the true
# durations $\max_{i\in X} o_i$ in place of the average, Lemma 1 bounds the error by a factor 2.
#
# ## Does the Phase-1 constraint matter?
#
# On random instances (Uniform $s, o \in [1, 50]$, $M = 100$, the setting of Table EC.1) we run
# Sorted-F with the exact argmin (`auto`) under both constraints.

# %%
rng = np.random.default_rng([seed, 1])
rows = []
for t in range(max(trials, 3)):
    s = rng.integers(1, 51, n)
    o = rng.integers(1, 51, n)
    inst = Instance.at_zero(s, o, 100)
    a, _ = run(inst, "sorted-f")
    b, _ = run(inst, "sorted-f", phase1_constraint="lookahead")
    rows.append({"trial": t, "TEL peak": a.tel, "TEL lookahead": b.tel, "lookahead / peak": b.tel / a.tel})
cons = pd.DataFrame(rows)
display(styled(cons, precision=4))
glue("cons_mean", f"{cons['lookahead / peak'].mean():.4f}", display=False)
glue("cons_min", f"{cons['lookahead / peak'].min():.4f}", display=False)
glue("cons_max", f"{cons['lookahead / peak'].max():.4f}", display=False)
glue("cons_trials", len(cons), display=False)

# %% [markdown]
# Over {glue:text}`cons_trials:d` instances the ratio TEL(lookahead) / TEL(peak) ranges from
# {glue:text}`cons_min:s` to {glue:text}`cons_max:s` (mean {glue:text}`cons_mean:s`). The looser constraint
# admits larger batches in Phase 1, but Phase 2 re-checks memory anyway, so larger batches mostly
# reorder the list; which reading is better depends on the instance. The choice matters for the
# numbers, not for validity: both lists are executed under eq. (5).
#
# ## Lemma 1
#
# ```{prf:lemma} 002 Lemma 1 (a Phase-1 batch's mean output exceeds half its longest)
# :label: lem-sortedf-avg
# :nonumber:
# Every batch $X$ chosen in Phase 1 satisfies $\frac{1}{|X|}\sum_{i\in X} o_i > \frac12 \max_{i\in X} o_i$.
# ```
#
# ```{prf:proof}
# (Our write-up.) Let $k = |X| \ge 2$ (for $k = 1$ it is trivial), $O = \sum_X o_i$ and suppose
# $o_{\max} \ge 2O/k$. Removing that request keeps either memory constraint and gives
# $F(X \setminus \{\max\}) = (O - o_{\max})/(k-1)^2$, which is at most $O(k-2)/(k(k-1)^2)$ and
# hence below $O/k^2 = F(X)$ because
# $k(k-2) < (k-1)^2$ — so $X$ was not a minimiser.
# ```
#
# The proof only uses that removing the longest request does not improve $F$, so it holds for every
# batch that minimises $F$ (002 Algorithm 2 and Algorithm 1 line 4's argmin, `exact`, which `auto`
# uses) and for our own swap search (`swap-ours`, whose moves include removals; no number in this
# chapter uses it); the tests check it as a property
# (`tests/test_sortedf.py::test_lemma1_every_phase1_batch`). 002's swap search (Algorithm 4, and
# LP-Swap's Algorithm 7, which reuses it) only exchanges one request for another, so the size of its
# first-fit batch never changes, and quantile greedy (Algorithm 5) never compares $F$: Lemma 1 need
# not hold for their batches, and Theorem 3's bound, which rests on it, is not claimed for them. (The
# scaled DP of Algorithm 3 minimises $F$ for its rounded-down weights, under which removing a request
# keeps a batch feasible, so the proof applies to it too; this chapter builds no Sorted-F schedule
# with it.) Below we check the lemma on every batch of an $F$-minimising selector in this chapter and
# count the batches of 002's heuristics that violate it (the collected lists grow as the chapter runs; the final counts are in the
# last section).

# %%
nb, bad, nh, nh_bad = lemma1_tally(ALL_BATCHES)
print(f"{nb} batches of F-minimising selectors so far, {len(bad)} violate Lemma 1")
assert not bad

# %% [markdown]
# ## Theorem 3: Sorted-F against the optimum
#
# ```{prf:theorem} 002 Theorem 3 (Sorted-F's competitive ratio is below 48)
# :label: thm-sortedf-48
# :nonumber:
# For all requests at $t = 0$, TEL(Sorted-F) $< 48\,$OPT.
# ```
#
# We draw small instances ($n \in [4, 7]$, $M \in [10, 24]$, $s_i \in [1, M/2]$,
# $o_i \in [1, M - s_i]$), solve each to certified optimality with the time-indexed IP of
# `kvlib.optimum.exact` (instances the solver does not close within `time_limit` are dropped and counted),
# and record TEL(Sorted-F) / OPT for both Phase-1 constraints, together with MC-SF / OPT.

# %% tags=["teach"]
UNCLOSED = []  # (instance, certified interval) of every solve not closed within time_limit


def certified_opt(inst):
    """OPT certified by kvlib.optimum.certify (the IP), or None (and the interval recorded) if not closed in time."""
    c = certify(inst, method="ip", time_limit=time_limit)
    if not c.proved:
        UNCLOSED.append((inst, c.lower, c.upper))
    return c.opt


rng = np.random.default_rng([seed, 2])
rows, dropped = [], 0
CHAIN_ROWS = []  # the proof-chain objects of every instance with a certified optimum (section below)
for t in range(opt_trials):
    inst = random_at_zero_instance(rng)
    opt = certified_opt(inst)
    if opt is None:
        dropped += 1
        continue
    sf, pol = run(inst, "sorted-f")
    sfl, _ = run(inst, "sorted-f", phase1_constraint="lookahead")
    mc, _ = run(inst, "mc-sf")
    chain = proof_chain(inst, pol.batches, sf.tel, opt)  # every transformed schedule is checked
    CHAIN_ROWS.append({"source": "random small", **chain, "M": inst.memory, "s": inst.prompt.tolist(),
                       "o": inst.output.tolist()})
    rows.append({"trial": t, "n": inst.n, "M": inst.memory, "OPT": opt, "Sorted-F": sf.tel,
                 "Sorted-F (lookahead)": sfl.tel, "MC-SF": mc.tel, "Sorted-F_separate": chain["separate"],
                 "s": inst.prompt.tolist(), "o": inst.output.tolist()})

# %%
small = pd.DataFrame(rows)
for col in ("Sorted-F", "Sorted-F (lookahead)", "MC-SF"):
    small[col + " / OPT"] = small[col] / small["OPT"]
summary = small[[c for c in small if c.endswith("/ OPT")]].agg(["mean", "max"]).T
display(styled(summary.rename_axis("ratio").reset_index(), precision=4))
worst = small.loc[small["Sorted-F / OPT"].idxmax()]
glue("opt_n", len(small), display=False)
glue("opt_dropped", dropped, display=False)
unc_hi = [simulate(i, sorted_f()).tel / lo for i, lo, up in UNCLOSED]
glue("opt_dropped_hi", float(round(max(unc_hi), 4)) if unc_hi else 0.0, display=False)
glue("ratio_max", f"{small['Sorted-F / OPT'].max():.4f}", display=False)
glue("ratio_mean", f"{small['Sorted-F / OPT'].mean():.4f}", display=False)
glue("ratio_max_la", f"{small['Sorted-F (lookahead) / OPT'].max():.4f}", display=False)
glue("ratio_max_mcsf", f"{small['MC-SF / OPT'].max():.4f}", display=False)
glue("ratio_worst_inst", f"M = {worst['M']}, s = {worst['s']}, o = {worst['o']}", display=False)

# %% [markdown]
# On {glue:text}`opt_n:d` instances with certified optima ({glue:text}`opt_dropped:d` dropped because the
# solver did not close them within `time_limit`; on those the certified interval of the IP bounds
# TEL(Sorted-F) / OPT by at most {glue:text}`opt_dropped_hi:.4f`, 0 meaning none was dropped) the largest ratio TEL(Sorted-F) / OPT is
# {glue:text}`ratio_max:s` (mean {glue:text}`ratio_mean:s`), attained at {glue:text}`ratio_worst_inst:s`;
# with the `lookahead` Phase-1 constraint the largest ratio is {glue:text}`ratio_max_la:s`, and MC-SF's
# is {glue:text}`ratio_max_mcsf:s`. Random small instances sit far below 48.
#
# ### Adversarial search
#
# To probe the worst case we run a local search over instances: start from the worst random instance
# above, change one $s_i$ or $o_i$ by a random amount (or add / remove a request), keep the change if
# TEL(Sorted-F) / OPT does not decrease, with OPT certified by the IP at every step.

# %%
def chain_of(inst, source, opt=None, with_optimal_align=True):
    """Sorted-F and the proof-chain objects (our reconstruction) of one instance, recorded in CHAIN_ROWS."""
    res, pol = run(inst, "sorted-f")
    row = proof_chain(inst, pol.batches, res.tel, opt, with_optimal_align=with_optimal_align)
    CHAIN_ROWS.append({"source": source, **row, "M": inst.memory, "s": inst.prompt.tolist(),
                       "o": inst.output.tolist()})
    return row


def ratio_of(inst):
    opt = certified_opt(inst)
    return None if opt is None else chain_of(inst, "adversarial: Sorted-F / OPT", opt)["Sorted-F"] / opt


# %% tags=["teach"]
SPACE = variable_prompt_space(n_max=8)  # prompts vary, 2..8 requests, M fixed (kvlib.theory.search)
start = Instance.at_zero(worst["s"], worst["o"], int(worst["M"]))
found = hill_climb(ratio_of, SPACE, np.random.default_rng([seed, 3]), start=start, steps=adv_steps)
cur, cur_ratio, cur_opt = found.best, found.value, certified_opt(found.best)
adv_sf = simulate(cur, sorted_f())
display(styled(pd.DataFrame([{"M (tokens)": cur.memory, "s": str(cur.prompt.tolist()), "o": str(cur.output.tolist()),
                               "TEL(Sorted-F)": adv_sf.tel, "OPT": cur_opt, "ratio": cur_ratio}]), precision=4))
glue("adv_steps", adv_steps, display=False)
glue("adv_ratio", f"{cur_ratio:.4f}", display=False)
glue("adv_inst", f"M = {cur.memory}, s = {cur.prompt.tolist()}, o = {cur.output.tolist()}", display=False)
glue("adv_tel", adv_sf.tel, display=False)
glue("adv_opt", cur_opt, display=False)

# %% [markdown]
# After {glue:text}`adv_steps:d` steps the search reached ratio {glue:text}`adv_ratio:s`
# (TEL {glue:text}`adv_tel:d` against OPT {glue:text}`adv_opt:d`) on {glue:text}`adv_inst:s`. Local search
# over tiny instances finds ratios well above the random average but nowhere near 48: the constant
# of Theorem 3 comes from multiplying the losses of the four proof steps, which are not attained
# simultaneously on instances this small.
#
# ### The proof chain, instance by instance (our reconstruction)
#
# 002 proves Theorem 3 through a chain of transformed schedules (002 Section 4):
# TEL(Sorted-F) $\le$ TEL(Sorted-F$_{\text{separate}}$) (Theorem 4) $< 4\,$TEL(Sorted-F$_{\text{group}}$)
# (Theorem 5) $< 2\,$TEL(Sorted-F$_{\text{align}}$) (Theorem 6), and Optimal$_{\text{align}} \le
# 6\,$Optimal (Theorem 7); $4 \cdot 2 \cdot 6 = 48$. The definitions below are *our
# reconstruction* — what a careful reader would expect from the names and the constants — and not
# 002's: 002 defines Sorted-F$_{\text{separate}}$ as ours (batches run one after another), but builds
# Sorted-F$_{\text{group}}$ by merging consecutive batches into groups whose last batch nearly fills
# the memory (Theorem 5), and Sorted-F$_{\text{align}}$ by replacing the outputs of each group's last
# batch by that batch's average output (before Theorem 6). The measurements of Theorems 5-7 below
# therefore test our reconstruction, not 002's proof. All four objects are
# *batched schedules* of the original instance: an ordered list of disjoint batches, each started as a
# whole, fitting the memory alone, and run one after another (`kvlib.policies.wyz.batched_starts`); each is
# built in `kvlib.policies.wyz` and validated by `kvlib.core.checker.check_schedule` on every instance.
# Write $D_X = \max_{i \in X} o_i$ for the length of a batch and $\lceil x\rceil_2$ for the smallest
# power of two $\ge x$.
#
# ```{prf:definition} Reconstructed Sorted-F$_{\text{separate}}$ (after 002 Theorem 4)
# :label: def-sf-separate
# The Phase-1 batches $X_1, X_2, \dots$ in Phase-1 order; $X_j$ starts as a whole at
# $\sum_{l<j} D_{X_l}$, when $X_{j-1}$ has completed (`separate_starts`).
# ```
#
# ```{prf:definition} Reconstructed Sorted-F$_{\text{group}}$ (after 002 Theorem 5; not 002's grouping)
# :label: def-sf-group
# The Phase-1 batches grouped into geometric length classes $c(X) = \lceil \log_2 D_X \rceil$, the
# classes run in increasing order, the batches of a class serialised in Phase-1 order, back to back
# (`group_starts`).
# ```
#
# ```{prf:definition} Reconstructed Sorted-F$_{\text{align}}$ (after 002 Theorem 6; not 002's alignment)
# :label: def-sf-align
# The group order, with every batch given a slot of the rounded length $L_X = \lceil D_X\rceil_2$
# (every output rounded up to the next power of two) that starts at the first multiple of $L_X$ not
# before the previous slot ends (`align_starts`).
# ```
#
# ```{prf:definition} Reconstructed Optimal$_{\text{align}}$ (after 002 Theorem 7)
# :label: def-opt-align
# The least TEL over **all** aligned batched schedules — any ordered partition into batches that fit
# the memory when started together, each in an aligned slot of length $L_X$ as above — computed
# exactly by dynamic programming over (remaining set, time) (`optimal_aligned`, $n \le 10$).
# Theorem 7 then says: some aligned batched schedule is within a factor 6 of the unrestricted optimum.
# ```
#
# Two consequences of these definitions must be said before any measurement. (i) Sorted-F$_{\text{align}}$
# only delays every batch of Sorted-F$_{\text{group}}$, so TEL(group) $\le$ TEL(align) and the
# Theorem 6 inequality holds *by construction*; we therefore also report the reverse ratio
# align / group, which the rounding should keep below 2. (ii) Sorted-F$_{\text{align}}$ is one
# aligned batched schedule, so TEL(align) $\ge$ Optimal$_{\text{align}}$. The chain closes to
# TEL(Sorted-F) $< 48\,$OPT only with a *bridge* TEL(Sorted-F$_{\text{align}}$) $\le$
# Optimal$_{\text{align}}$ — a step not among 002's theorems, and one that our reading of
# Sorted-F$_{\text{align}}$ cannot satisfy except with equality. So in our reconstruction the bridge
# is the greedy-against-optimum step, and we measure it too: the five ratios of
# `kvlib.policies.wyz.CHAIN_LINKS` multiply to TEL(Sorted-F) / OPT exactly, instance by instance.
#
# We measure the links on every instance of this chapter with a certified optimum (the random small
# instances and every instance the adversarial search above visited), and run two more adversarial
# searches (same moves) that maximise a link instead of the end-to-end ratio: Optimal$_{\text{align}}$
# / OPT (Theorem 7, needs a certified optimum per step) and separate / group (Theorem 5, no optimum
# needed).

# %%
def link_value(objective, source, needs_opt=True):
    """objective(chain row) of an instance, recorded in CHAIN_ROWS; None if its optimum is needed but not certified."""
    def value(inst):
        opt = certified_opt(inst) if needs_opt else None
        return None if needs_opt and opt is None else objective(chain_of(inst, source, opt, with_optimal_align=needs_opt))
    return value


def argmax_instance(objective):
    """The instance recorded so far (with a certified optimum) maximising objective(row)."""
    rows_ = [r for r in CHAIN_ROWS if r.get("OPT") is not None]
    r = max(rows_, key=objective)
    return Instance.at_zero(r["s"], r["o"], int(r["M"]))


obj7 = lambda c: c["Optimal_align"] / c["OPT"]
obj5 = lambda c: c["separate"] / c["group"]
s7 = hill_climb(link_value(obj7, "adversarial: Optimal_align / OPT"), SPACE, np.random.default_rng([seed, 7]),
                start=argmax_instance(obj7), steps=chain_steps)
s5 = hill_climb(link_value(obj5, "adversarial: separate / group", needs_opt=False), SPACE,
                np.random.default_rng([seed, 8]), start=argmax_instance(obj5), steps=4 * chain_steps)
(adv7, adv7_val), (adv5, adv5_val) = (s7.best, s7.value), (s5.best, s5.value)
chain = pd.DataFrame(CHAIN_ROWS)
chain["key"] = chain.apply(lambda r: (r["M"], tuple(r["s"]), tuple(r["o"])), axis=1)
chain = chain.drop_duplicates("key")
display(styled(chain.groupby("source").size().rename("distinct instances").reset_index()))
links, ratios = link_table(chain)
display(styled(links.reset_index().replace({"status": {"not quoted; >= 1 by construction":
                                                        "not a theorem of 002; >= 1 by construction"}})
               .assign(**{"claimed bound": lambda d: d["claimed bound"].map(lambda v: v if isinstance(v, str) else f"{v:g}")}),
               precision=4))
full = telescoped(chain)  # asserts that the five links multiply to TEL(Sorted-F) / OPT on every instance

_rows = (len(CHAIN_LINKS) + 1) // 2
fig, axes = plt.subplots(_rows, 2, figsize=(8, 2.6 * _rows))
axes = axes.ravel()
for ax in axes[len(CHAIN_LINKS):]:
    ax.axis("off")
for ax, (label, num, den, const) in zip(axes, CHAIN_LINKS):
    r = np.asarray(ratios[label], dtype=float)  # bins span the drawn axis (data and claimed bound): none is too thin to see
    ax.hist(r, bins=np.linspace(min(r.min(), 1.0) - 0.05, max(r.max(), const or 0.0) + 0.05, 41), color="tab:blue", alpha=0.8)
    if const is not None:
        ax.axvline(const, color="tab:red", linestyle="--", label=f"claimed {const:g}")
        ax.legend(fontsize=7)
    ax.set_title(label, fontsize=9)
    ax.set(xlabel="ratio", ylabel="instances")
fig.tight_layout()
glue("fig_chain_links", fig, display=False)
plt.close(fig)

L = links["max ratio"]
glue("chain_inst", len(full), display=False)
glue("chain_inst_all", len(chain), display=False)
for key, label in (("l4", "Thm 4: SF / separate"), ("l5", "Thm 5: separate / group"), ("l6", "Thm 6: group / align"),
                   ("lb", "bridge: align / Optimal_align"), ("l7", "Thm 7: Optimal_align / OPT")):
    glue(f"chain_{key}_max", float(round(L[label], 4)), display=False)
    glue(f"chain_{key}_viol", int(links.loc[label, "violations"]), display=False)
    glue(f"chain_{key}_n", int(links.loc[label, "instances"]), display=False)
glue("chain_l6_rev", float(round(links.loc["Thm 6: group / align", "max reverse ratio"], 4)), display=False)
glue("chain_l5_rev", float(round(links.loc["Thm 5: separate / group", "max reverse ratio"], 4)), display=False)
rev6 = chain.loc[(chain["align"] / chain["group"]).idxmax()]
glue("rev6_inst", f"M = {rev6['M']}, s = {rev6['s']}, o = {rev6['o']}", display=False)
glue("rev6_tels", f"group {rev6['group']}, align {rev6['align']}", display=False)
glue("rev6_count", int((chain["align"] >= 2 * chain["group"]).sum()), display=False)
rev6_inst = Instance.at_zero(rev6["s"], rev6["o"], int(rev6["M"]))
rev6_b = sorted_f()
simulate(rev6_inst, rev6_b)
from kvlib.policies.wyz import align_starts, group_order, group_starts
display(styled(pd.DataFrame({"schedule": ["group", "align"],
                      "batches (group order)": [str([b.tolist() for b in group_order(rev6_b.batches, rev6_inst.output)])] * 2,
                      "starts": [group_starts(rev6_b.batches, rev6_inst.output).tolist(),
                                 align_starts(rev6_b.batches, rev6_inst.output).tolist()],
                      "TEL": [rev6["group"], rev6["align"]]}).astype({"starts": str})))
glue("chain_prod4_max", float(round(full["product of the four bounded links"].max(), 4)), display=False)
glue("chain_prod_of_max", float(round(L["Thm 4: SF / separate"] * L["Thm 5: separate / group"]
                                      * L["Thm 6: group / align"] * L["Thm 7: Optimal_align / OPT"], 4)), display=False)
glue("chain_sfopt_max", float(round(full["SF / OPT"].max(), 4)), display=False)
glue("adv7_val", float(round(adv7_val, 4)), display=False)
glue("adv7_inst", f"M = {adv7.memory}, s = {adv7.prompt.tolist()}, o = {adv7.output.tolist()}", display=False)
glue("adv5_val", float(round(adv5_val, 4)), display=False)
glue("adv5_inst", f"M = {adv5.memory}, s = {adv5.prompt.tolist()}, o = {adv5.output.tolist()}", display=False)
glue("chain_steps", chain_steps, display=False)
bad_links = [label for label in links.index if links.loc[label, "violations"] > 0]
glue("chain_failures", "none" if not bad_links else ", ".join(bad_links), display=False)

# %% [markdown]
# On {glue:text}`chain_inst:d` distinct instances with a certified optimum (random small instances
# and every instance visited by the three adversarial searches; {glue:text}`chain_inst_all:d` distinct
# instances in all, the Theorem 5 search needing no optimum) the largest ratio of each link is (the
# distributions are in {numref}`fig-sortedf-links`):
#
# | link (our reconstruction) | claimed | largest measured | violations |
# |---|---|---|---|
# | Theorem 4: Sorted-F / separate | $\le 1$ | {glue:text}`chain_l4_max:.4f` | {glue:text}`chain_l4_viol:d` of {glue:text}`chain_l4_n:d` |
# | Theorem 5: separate / group | $< 4$ | {glue:text}`chain_l5_max:.4f` | {glue:text}`chain_l5_viol:d` of {glue:text}`chain_l5_n:d` |
# | Theorem 6: group / align | $< 2$ | {glue:text}`chain_l6_max:.4f` (by construction $\le 1$) | {glue:text}`chain_l6_viol:d` of {glue:text}`chain_l6_n:d` |
# | bridge: align / Optimal$_{\text{align}}$ | (none) | {glue:text}`chain_lb_max:.4f` | – |
# | Theorem 7: Optimal$_{\text{align}}$ / OPT | $\le 6$ | {glue:text}`chain_l7_max:.4f` | {glue:text}`chain_l7_viol:d` of {glue:text}`chain_l7_n:d` |
#
# ```{glue:figure} fig_chain_links
# :name: fig-sortedf-links
#
# The proof-chain links of 002 Theorem 3, instance by instance, for our reconstruction of the
# transformed schedules; dashed: the claimed bound ({glue:text}`cap_chain:s`).
# ```
#
# Links with a violation: {glue:text}`chain_failures:s`. The reverse ratios are
# group / separate $\le$ {glue:text}`chain_l5_rev:.4f` (grouping by length class can also lose) and
# align / group $\le$ {glue:text}`chain_l6_rev:.4f` (the cost of rounding and aligning, which a factor-2
# step would bound). The adversarial search on Theorem 7 reached Optimal$_{\text{align}}$ / OPT $=$
# {glue:text}`adv7_val:.4f` at {glue:text}`adv7_inst:s`; the one on Theorem 5 reached separate / group
# $=$ {glue:text}`adv5_val:.4f` at {glue:text}`adv5_inst:s` ({glue:text}`chain_steps:d` and four times as
# many steps).
#
# **The reverse of Theorem 6.** Rounding every output up to a power of two loses less than a factor 2,
# so a reader could also expect TEL(align) $< 2\,$TEL(group) — the direction in which rounding is
# usually charged. In our reconstruction align / group is 2 or more on {glue:text}`rev6_count:d`
# instances; the largest is at {glue:text}`rev6_inst:s` ({glue:text}`rev6_tels:s`; schedules printed above). The excess comes
# from the *alignment idle* (a slot of length $L$ waits for the next multiple of $L$), not from the
# rounding, so it says more about our alignment rule than about 002: 002's Theorem 6 is in the
# other direction, and 002 aligns differently (by average outputs, see above).
#
# **The product against 48.** Per instance, the four bounded links multiply to at most
# {glue:text}`chain_prod4_max:.4f`; the product of the four largest link ratios (over different
# instances) is {glue:text}`chain_prod_of_max:.4f`, against the paper's $1 \cdot 4 \cdot 2 \cdot 6 = 48$;
# the end-to-end ratio TEL(Sorted-F) / OPT on these instances is at most {glue:text}`chain_sfopt_max:.4f`.
# Each constant is far from tight on instances of this size, which is consistent with the small
# end-to-end ratios above. A violation of Theorem 4 or 7 in this table would contradict the paper's
# step only if our definition is the paper's; a violation of Theorem 5 could as well mean that the
# paper's "group" schedule is not a reordering of the Phase-1 batches by length class.

# %% [markdown]
# The same links (without Optimal$_{\text{align}}$, which needs $n \le 10$) on instances of the
# Table EC.1 size, for both Phase-1 constraints:

# %%
th4 = small["Sorted-F"] <= small["Sorted-F_separate"]
rng = np.random.default_rng([seed, 4])
mid_rows = []
for t in range(4 * trials):
    s = rng.integers(1, 51, n)
    o = rng.integers(1, 51, n)
    inst = Instance.at_zero(s, o, 100)
    for cons_name in ("peak", "lookahead"):
        res, pol = run(inst, "sorted-f", phase1_constraint=cons_name)
        c = proof_chain(inst, pol.batches, res.tel, None, with_optimal_align=False)
        mid_rows.append({"constraint": cons_name, "Sorted-F": res.tel, "separate": c["separate"],
                         "group": c["group"], "align": c["align"]})
mid = pd.DataFrame(mid_rows)
mid["holds"] = mid["Sorted-F"] <= mid["separate"]
mid["ratio"] = mid["Sorted-F"] / mid["separate"]
mid["separate / group"] = mid["separate"] / mid["group"]
mid["align / group"] = mid["align"] / mid["group"]
_mid = mid.groupby("constraint")[["holds", "ratio", "separate / group", "align / group"]].agg(["mean", "min", "max"])
_mid.columns = [f"{a} ({b})" for a, b in _mid.columns]
_mid = _mid.T.map(lambda v: f"{v:.4f}" if isinstance(v, float) else str(v))  # one row per quantity: fits the column
display(styled(_mid.rename_axis("quantity").reset_index().rename_axis(columns=None)))
glue("th4_small_holds", int(th4.sum()), display=False)
glue("th4_small_n", len(small), display=False)
glue("th4_mid_holds", int(mid["holds"].sum()), display=False)
glue("th4_mid_n", len(mid), display=False)
glue("th4_mid_ratio", f"{mid['ratio'].max():.4f}", display=False)
glue("th4_small_ratio", f"{(small['Sorted-F'] / small['Sorted-F_separate']).max():.4f}", display=False)
glue("mid_l5_max", float(round(mid["separate / group"].max(), 4)), display=False)
glue("mid_l6_rev", float(round(mid["align / group"].max(), 4)), display=False)

# %% [markdown]
# Theorem 4 holds on {glue:text}`th4_small_holds:d` of the {glue:text}`th4_small_n:d` random small
# instances and on {glue:text}`th4_mid_holds:d` of {glue:text}`th4_mid_n:d` runs at $n = $ the Table EC.1
# size (both constraints); the largest TEL(Sorted-F) / TEL(Sorted-F$_{\text{separate}}$) is
# {glue:text}`th4_small_ratio:s` (small) and {glue:text}`th4_mid_ratio:s` (larger). There, separate / group
# is at most {glue:text}`mid_l5_max:.4f` and align / group at most {glue:text}`mid_l6_rev:.4f`. Phase 2
# is a list schedule, and list schedules under a memory constraint are not monotone in general, so
# Theorem 4 is a genuine check rather than a tautology; a failure would contradict the step of the
# proof that lets a batch start early only when that does not delay later ones.
#
# ## Why shortest-first fails with variable prompts
#
# The two-type instances of 002 Theorem 1 (shortest output first) and Theorem EC.1 (shortest $s + o$
# first) make the ratio of shortest-first grow with $M$. Their generators live in `kvlib.theory.adversary`
# (`wyz_thm1_instance`, `wyz_ec1_instance`) and the growth study, with optima, is in
# {ref}`chapter-lowerbounds`; here we only run MC-SF, MC-SF2 (shortest $s + o$ first) and Sorted-F on them.

# %%
from kvlib.theory.adversary import wyz_ec1_instance, wyz_thm1_instance

rows = []
for M in ([9, 36, 81] if QUICK else [9, 36, 81, 144, 324]):
    for fam, gen in (("Theorem 1", wyz_thm1_instance), ("Theorem EC.1", wyz_ec1_instance)):
        inst = gen(M)
        row = {"family": fam, "M": M, "n": inst.n}
        row["MC-SF"] = run(inst, "mc-sf")[0].tel
        row["MC-SF2 (s+o first)"] = run(inst, "mc-sf2")[0].tel
        row["Sorted-F (Swap)"] = run(inst, "sorted-f", selector="swap")[0].tel
        row["Sorted-F (DP)"] = run(inst, "sorted-f")[0].tel if M <= (36 if QUICK else 81) else np.nan
        rows.append(row)
two = pd.DataFrame(rows)
two["Sorted-F (DP)"] = two["Sorted-F (DP)"].astype("Int64")  # TEL is an integer; missing where not run
two["MC-SF / Sorted-F"] = two["MC-SF"] / two["Sorted-F (Swap)"]
two["MC-SF2 / Sorted-F"] = two["MC-SF2 (s+o first)"] / two["Sorted-F (Swap)"]
glue("two_rows", len(two), display=False)
glue("two_swap_eq_mcsf2", int((two["Sorted-F (Swap)"] == two["MC-SF2 (s+o first)"]).sum()), display=False)
_dp = two[two.family == "Theorem EC.1"].dropna(subset=["Sorted-F (DP)"]).iloc[-1]
glue("two_dp_M", int(_dp["M"]), display=False)
glue("two_dp_e1_mcsf", f"{_dp['MC-SF'] / _dp['Sorted-F (DP)']:.3f}", display=False)
glue("two_dp_e1_swap", f"{_dp['Sorted-F (Swap)'] / _dp['Sorted-F (DP)']:.3f}", display=False)
_two = two.rename(columns={"M": "M (tokens)"})
_two = _two.assign(**{c: _two[c].map(lambda v: "not run" if pd.isna(v) else f"{v:,.0f}")  # exact DP skipped at large M
                      for c in _two.columns if _two[c].isna().any()})
display(styled(_two))
t1 = two[two.family == "Theorem 1"].iloc[-1]
e1 = two[two.family == "Theorem EC.1"].iloc[-1]
glue("two_M", int(t1["M"]), display=False)
glue("two_t1_ratio", f"{t1['MC-SF / Sorted-F']:.3f}", display=False)
glue("two_e1_ratio", f"{e1['MC-SF2 / Sorted-F']:.3f}", display=False)
glue("two_e1_mcsf", f"{e1['MC-SF / Sorted-F']:.3f}", display=False)

# %% [markdown]
# At $M =$ {glue:text}`two_M:d` MC-SF is {glue:text}`two_t1_ratio:s` times Sorted-F (Swap) on the
# Theorem 1 instance; on the Theorem EC.1 instance MC-SF2 is {glue:text}`two_e1_ratio:s` times
# Sorted-F (Swap) and plain MC-SF {glue:text}`two_e1_mcsf:s` times. Sorted-F (Swap) runs 002's
# Algorithm 4 as written: its batch starts as the first-fit pack in increasing $s + o$ and one-for-one
# swaps never change its size, so it follows shortest-$(s + o)$-first closely (the same TEL as MC-SF2
# on {glue:text}`two_swap_eq_mcsf2:d` of the {glue:text}`two_rows:d` rows) and loses with it on the
# EC.1 family. Sorted-F with $F$-minimising batches, Sorted-F (DP) (`auto`, run where the DP is small),
# does not: at $M =$ {glue:text}`two_dp_M:d` on the EC.1 instance MC-SF is
# {glue:text}`two_dp_e1_mcsf:s` times Sorted-F (DP) and Sorted-F (Swap) {glue:text}`two_dp_e1_swap:s`
# times. Minimising $F$ weighs a request's output against how many requests share its batch rather
# than sorting by one size alone.
#
# ## Table 3: the Phase-1 selectors
#
# Running time of one Phase-1 selection (the first batch of a Uniform instance, $s, o \in [1, 50]$)
# for each selector against $n$ and $M$, and the quality $F$(selector) / $F$(exact DP). All four run
# 002's Algorithms 2-5 as written. The ratio is at least 1 for the swap search (Algorithm 4) and
# quantile greedy (Algorithm 5), whose batches fit $M$; the scaled DP (Algorithm 3) rounds the weights
# $s + o$ down, so every batch that fits stays feasible for it, its ratio is at most 1, and its batch
# may exceed $M$ (by less than $\lambda |X|$). Scaled DP uses $\varepsilon = 0.05$ and $B$ = the
# largest size of a batch that fits (002 gives neither value); quantile greedy draws its random half
# sample (Algorithm 5 line 3) from a seeded generator. Our variants (`scaled-dp-ours`, rounded up and
# always feasible; `swap-ours`, with additions and removals; `quantile-ours`) are not in this table.

# %%
ns = [25, 50, 100] if QUICK else [25, 50, 100, 200]
Ms = [100, 200] if QUICK else [100, 200, 400]
rng = np.random.default_rng([seed, 5])
rows = []
for M in Ms:
    for nn in ns:
        s = rng.integers(1, M // 2 + 1, nn)
        o = rng.integers(1, M // 2 + 1, nn)
        sels = {
            "exact DP (Alg. 2)": lambda: dp_argmin(s, o, M),
            "scaled DP (Alg. 3)": lambda: scaled_dp_argmin(s, o, M, epsilon=0.05),
            "swap (Alg. 4)": lambda: swap_argmin(s, o, M),
            "quantile (Alg. 5)": lambda: quantile_argmin(s, o, M, rng=np.random.default_rng(seed)),
        }
        ref = None
        for name, fn in sels.items():
            sec, X = best_of(fn)
            fx = F_exact(o[X])
            ref = fx if ref is None else ref
            rows.append({"M": M, "n": nn, "selector": name, "ms": 1e3 * sec, "F / F(DP)": float(fx / ref)})
tab3 = pd.DataFrame(rows)
display(styled(tab3.pivot_table(index=["M", "n"], columns="selector", values="ms")
               .rename(columns=lambda c: f"{c} (ms)").reset_index().rename(columns={"M": "M (tokens)"}), precision=2))
display(styled(tab3.pivot_table(index=["M", "n"], columns="selector", values="F / F(DP)")
               .rename(columns=lambda c: f"{c}: F / F(DP)").reset_index().rename(columns={"M": "M (tokens)"}), precision=4))
big = tab3[(tab3.n == max(ns)) & (tab3.M == max(Ms))].set_index("selector")
glue("t3_n", max(ns), display=False)
glue("t3_M", max(Ms), display=False)
glue("t3_dp_ms", f"{big.loc['exact DP (Alg. 2)', 'ms']:.1f}", display=False)
glue("t3_swap_ms", f"{big.loc['swap (Alg. 4)', 'ms']:.1f}", display=False)
glue("t3_worst_swap", f"{tab3[tab3.selector == 'swap (Alg. 4)']['F / F(DP)'].max():.4f}", display=False)
glue("t3_worst_q", f"{tab3[tab3.selector == 'quantile (Alg. 5)']['F / F(DP)'].max():.4f}", display=False)
glue("t3_worst_sc", f"{tab3[tab3.selector == 'scaled DP (Alg. 3)']['F / F(DP)'].max():.4f}", display=False)
glue("t3_min_sc", f"{tab3[tab3.selector == 'scaled DP (Alg. 3)']['F / F(DP)'].min():.4f}", display=False)
glue("t3_grid", len(Ms) * len(ns), display=False)
glue("t3_swap_match", int((tab3[tab3.selector == 'swap (Alg. 4)']['F / F(DP)'] == 1).sum()), display=False)
glue("t3_q_match", int((tab3[tab3.selector == 'quantile (Alg. 5)']['F / F(DP)'] == 1).sum()), display=False)

# %% [markdown]
# At $n =$ {glue:text}`t3_n:d`, $M =$ {glue:text}`t3_M:d` one exact-DP selection takes
# {glue:text}`t3_dp_ms:s` ms against {glue:text}`t3_swap_ms:s` ms for the swap search. Over the
# {glue:text}`t3_grid:d` grid points $F$ / $F$(DP) lies between {glue:text}`t3_min_sc:s` and
# {glue:text}`t3_worst_sc:s` for scaled DP; it is at most {glue:text}`t3_worst_swap:s` for the swap
# search, which finds the DP's $F$ on {glue:text}`t3_swap_match:d` of them (its batch keeps the size of
# its first-fit pack), and at most {glue:text}`t3_worst_q:s` for quantile greedy
# ({glue:text}`t3_q_match:d` exact). Where each is worth using: the exact DP
# ($O(n \cdot k_{\max} \cdot M)$ per selection, $k_{\max} \le M / \min(s + o)$) is affordable at
# these sizes, and `auto`, the default of `kvlib.policies.wyz.sorted_f`, uses the exact argmin
# while its table is small and the swap search above; scaled DP trades a bounded rounding of memory
# for a memory axis of $B/\varepsilon$ cells instead of $M$, useful when $M$ is in the tens of
# thousands of tokens; the swap search is the fastest, but as written it can stay far from the DP's
# batch. (The paper's Table 3 timings are not reproduced here; ours depend on this machine.)
#
# ## Table EC.1: five synthetic distributions
#
# Appendix EC.4.2 of 002: $M = 100$, $s_{\max} = o_{\max} = 50$, five distributions, $n = 100$
# (Mixed $n = 200$). **The parameters below are our choice**: 002 Appendix EC.4.2 states its own,
# which differ from ours for Normal ($\sigma = 8.33$), Binomial ($\mathrm{Bin}(49, 1/2) + 1$) and
# Exponential (scale 5), so no side-by-side comparison with the paper's Table EC.1 values is made. $s$ and $o$ are drawn independently from the same distribution.
#
# | distribution | our parameters ($s$ and $o$ alike, integers in $[1, 50]$) | why |
# |---|---|---|
# | Uniform | uniform on $\{1, \dots, 50\}$ | the only reading of "uniform up to $s_{\max} = o_{\max} = 50$" |
# | Normal | $\mathcal N(25, 10^2)$, rounded, clipped to $[1, 50]$ | centred in the range; $\pm 2.5\sigma$ stays inside it, so clipping is rare |
# | Binomial | $\mathrm{Bin}(50, 1/2)$, clipped below at 1 | the natural binomial on the range; mean 25, much narrower than Normal |
# | Exponential | $1 + \mathrm{round}(\mathrm{Exp}(\text{mean } 10))$, clipped at 50 | mostly short requests with a long tail, as in real traces; clipping affects $e^{-4.9} < 1\%$ |
# | Mixed | each request short ($s, o$ uniform on $[1, 10]$) or long ($[30, 50]$) with probability $1/2$; $2n$ requests | two well-separated types, the situation where shortest-first is weakest (Theorem 1 / EC.1) |
#
# The table reports the average latency per request (TEL / $n$), averaged over the trials, with 95%
# Student-$t$ confidence intervals. The LP-based policies use `kvlib.policies.wyz_lp`'s default time grid; should its
# LP be infeasible (an earlier version of `kvlib.policies.wyz_lp` with a fixed variable budget was, on $n = 200$
# Mixed instances) we rerun them with `time_step = lp_fallback_step`, use that grid for the rest of
# that distribution's trials, and count those runs.

# %%
POLS = {
    "Sorted-LP": ("sorted-lp", {}),
    "Sorted-F (Swap)": ("sorted-f", {"selector": "swap"}),
    "LP-Swap": ("lp-swap", {}),
    "Sorted-F (DP)": ("sorted-f", {}),
    "MC-SF": ("mc-sf", {}),
    "FCFS": ("fcfs", {}),
}
rows, lp_fallbacks, lp_coarse = [], [], set()
for dist in EC1_DISTRIBUTIONS:
    r = np.random.default_rng([seed, 6, len(dist)])
    k = 2 * n if dist == "Mixed" else n
    for t in range(trials):
        s, o = ec1_sample(dist, r, k)
        inst = Instance.at_zero(s, o, 100)
        for label, (name, opts) in POLS.items():
            tic = time.perf_counter()
            if (dist, name) in lp_coarse:  # the default grid already failed on this distribution
                lp_fallbacks.append((dist, t, label, "default grid skipped"))
                res, _ = run(inst, name, time_step=lp_fallback_step, **opts)
            else:
                try:
                    res, _ = run(inst, name, **opts)
                except RuntimeError as err:  # kvlib.policies.wyz_lp: LP relaxation infeasible on its default grid
                    if name not in ("sorted-lp", "lp-swap"):
                        raise
                    lp_fallbacks.append((dist, t, label, str(err)))
                    lp_coarse.add((dist, name))
                    res, _ = run(inst, name, time_step=lp_fallback_step, **opts)
            rows.append({"distribution": dist, "n": k, "trial": t, "policy": label,
                         "avg latency": res.tel / k, "seconds": time.perf_counter() - tic})
ec1 = pd.DataFrame(rows)


tab = ec1.pivot_table(index=["distribution", "n"], columns="policy", values="avg latency", aggfunc=ci)
tab = tab[list(POLS)]
tab["trials"] = ec1.groupby(["distribution", "n"])["trial"].nunique()
display(styled(tab.reset_index(), caption="average latency per request (rounds), mean ± 95% CI; "
                                         "the paper's Table EC.1 is not compared (other distribution parameters)"))
means = ec1.pivot_table(index="distribution", columns="policy", values="avg latency", aggfunc="mean")
best_per = means.idxmin(axis=1)
display(styled(ec1.groupby("policy")["seconds"].mean().rename("mean time per instance (s)").reset_index()))
glue("ec1_trials", trials, display=False)
glue("ec1_n", n, display=False)
glue("ec1_best", ", ".join(f"{d}: {p}" for d, p in best_per.items()), display=False)
glue("ec1_fcfs_ratio", f"{(means['FCFS'] / means['Sorted-F (Swap)']).min():.2f}", display=False)
glue("ec1_mcsf_ratio", f"{(means['MC-SF'] / means['Sorted-F (Swap)']).mean():.3f}", display=False)
order_per = {d: " < ".join(means.loc[d].sort_values().index) for d in means.index}
display(styled(pd.DataFrame({"distribution": list(order_per),
                            "policies by mean average latency (best first)": list(order_per.values())})))
paper_group = ["Sorted-LP", "Sorted-F (Swap)", "LP-Swap"]
spread = (means[paper_group].max(axis=1) / means[paper_group].min(axis=1) - 1)
glue("ec1_group_spread", float(round(100 * spread.max(), 2)), display=False)
glue("ec1_mcsf_vs_group", float(round(100 * (means["MC-SF"] / means[paper_group].min(axis=1) - 1).min(), 2)), display=False)
glue("ec1_mcsf_vs_group_max", float(round(100 * (means["MC-SF"] / means[paper_group].min(axis=1) - 1).max(), 2)), display=False)
glue("ec1_lp_fallbacks", len(lp_fallbacks), display=False)
glue("ec1_lp_fallback_step", lp_fallback_step, display=False)

# %% [markdown]
# With {glue:text}`ec1_trials:d` trials per distribution ($n =$ {glue:text}`ec1_n:d`, Mixed $2n$) the
# lowest mean per distribution is — {glue:text}`ec1_best:s`. FCFS is at least
# {glue:text}`ec1_fcfs_ratio:s` times Sorted-F (Swap) on every distribution; MC-SF / Sorted-F (Swap)
# averages {glue:text}`ec1_mcsf_ratio:s` over the distributions. The three policies of 002's table
# (Sorted-LP, Sorted-F (Swap), LP-Swap) are within {glue:text}`ec1_group_spread:.2f`% of each other
# on every distribution; MC-SF's mean is between {glue:text}`ec1_mcsf_vs_group:.2f`% and
# {glue:text}`ec1_mcsf_vs_group_max:.2f`% above the best of them (a negative value means MC-SF is
# better there). The LP-based policies needed the fallback grid (`time_step` =
# {glue:text}`ec1_lp_fallback_step:d`) on {glue:text}`ec1_lp_fallbacks:d` runs.
#
# **What can and cannot be compared with the paper.** Our distributions' parameters differ from
# 002's (see above), so there is no side-by-side comparison with the paper's Table EC.1 and no
# discrepancy with it is claimed; the order above (table "policies by mean average latency") is our
# observation only. The
# paper does not state its number of trials. In quick mode the instances are smaller than the paper's
# $n = 100$ and the intervals wide; full mode runs the paper's $n = 100$ (Mixed 200).
#
# The mixed real-data experiment of 002 Section 7 is in {ref}`chapter-realtrace`.
#
# ## Lemma 1 on every batch of this chapter

# %%
nb, bad, nh, nh_bad = lemma1_tally(ALL_BATCHES)
glue("lemma1_batches", nb, display=False)
glue("lemma1_bad", len(bad), display=False)
glue("lemma1_heur_batches", nh, display=False)
glue("lemma1_heur_bad", nh_bad, display=False)
assert not bad
glue("elapsed", f"{time.perf_counter() - T0:.0f}", display=False)

# %% [markdown]
# Lemma 1 holds on all {glue:text}`lemma1_batches:d` Phase-1 batches built by an $F$-minimising
# selector (or our swap search) in this chapter ({glue:text}`lemma1_bad:d` violations). Of the
# {glue:text}`lemma1_heur_batches:d` batches built by 002's heuristic selectors,
# {glue:text}`lemma1_heur_bad:d` violate it: Lemma 1 is a property of minimisers of $F$, and these
# selectors do not minimise $F$. The chapter ran in
# {glue:text}`elapsed:s` s.
#
# ## What was verified / what was not
#
# Verified: Example 1 (MC-SF {glue:text}`ex1_mcsf:d`, Sorted-F {glue:text}`ex1_sf:d`, certified optimal);
# the exchange identity behind $F$ (symbolically); the exact DP against brute force (property tests,
# both Phase-1 constraints); Lemma 1 on every batch and as a property; Theorem 3 on small instances
# (largest ratio {glue:text}`ratio_max:s`, adversarial {glue:text}`adv_ratio:s`, far below 48);
# Theorem 4 instance by instance; the links of Theorems 5-7 instance by instance **for our
# reconstruction of the transformed schedules** (largest ratios {glue:text}`chain_l5_max:.4f`,
# {glue:text}`chain_l6_max:.4f`, {glue:text}`chain_l7_max:.4f` against 4, 2, 6; links with a violation:
# {glue:text}`chain_failures:s`); every schedule in this chapter, including every transformed schedule
# and every Optimal$_{\text{align}}$ schedule, passed the independent checker.
#
# Not verified: 002's own Sorted-F$_{\text{group}}$ and Sorted-F$_{\text{align}}$ (ours differ from
# them, see the proof-chain section) and Optimal$_{\text{align}}$; in our reading Theorem 6 holds by
# construction and the chain does not close without a bridge step (align / Optimal$_{\text{align}}$,
# up to {glue:text}`chain_lb_max:.4f` here) that is not among 002's theorems, so the measurements
# test our reconstruction rather than the paper's proof. The scaled DP, swap search, quantile greedy and
# LP-Swap run Algorithms 3, 4, 5 and 7 as written, with values the pseudocode leaves open chosen by us
# ($\varepsilon$ and $B$, the order among ties, Algorithm 5's random half sample); the parameters of Table EC.1's five distributions are ours (not
# 002's), and the paper's Table 3 and Table EC.1 are not compared here, so no discrepancy with them is
# claimed; the Theorem 1 / EC.1 growth study is in {ref}`chapter-lowerbounds`.
