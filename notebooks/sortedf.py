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
# and the LP-based schedulers) and Appendix EC.4.2 (Table EC.1). It establishes, with `kvlib.sortedf`
# and `kvlib.lp`:
#
# 1. Example 1 of 002 in our conventions, and the exchange argument behind $F$ checked symbolically;
# 2. which Phase-1 memory constraint is used and whether the choice matters;
# 3. Lemma 1 on every Phase-1 batch computed in this chapter;
# 4. the ratio Sorted-F / OPT on small instances with certified optima, an adversarial search for the
#    worst case, and the first step of the proof chain (Theorem 4) measured instance by instance;
# 5. running time and quality of the four Phase-1 selectors (Table 3 of 002);
# 6. a reproduction of Table EC.1 (five synthetic distributions) with confidence intervals.
#
# Parameters (papermill, `book/chapters.yml`): `mode` (`"quick"` for CI, `"full"` for the paper's
# scale), `seed`, `n` (requests per Table EC.1 instance; the Mixed distribution uses `2 n`),
# `trials` (Table EC.1 instances per distribution), `opt_trials` (small instances solved to
# optimality), `adv_steps` (adversarial-search steps), `time_limit` (seconds per IP solve).

# %% tags=["parameters"]
mode = "quick"
seed = 0
n = None
trials = None
opt_trials = None
adv_steps = None
time_limit = 20.0

# %%
import time

import numpy as np
import pandas as pd
import sympy as sp
from myst_nb import glue
from scipy import stats

from kvlib import Instance, Schedule, check_schedule, make_policy, simulate
from kvlib.exact import solve
from kvlib.sortedf import (
    F_exact,
    brute_force_argmin,
    dp_argmin,
    lemma1_holds,
    phase1,
    quantile_argmin,
    scaled_dp_argmin,
    separate_starts,
    sorted_f,
    swap_argmin,
)

QUICK = mode == "quick"
n = n or (30 if QUICK else 100)
trials = trials or (2 if QUICK else 30)
opt_trials = opt_trials or (20 if QUICK else 300)
adv_steps = adv_steps or (25 if QUICK else 400)
print(f"mode = {mode}, seed = {seed}, n = {n}, trials = {trials}, opt_trials = {opt_trials}, adv_steps = {adv_steps}")
T0 = time.perf_counter()
ALL_BATCHES = []  # (source, o of the batch) for the Lemma 1 check


def run(inst, name, **opts):
    """Simulate a registered policy and validate the schedule with the independent checker."""
    pol = make_policy(name, **opts)
    res = simulate(inst, pol)
    rep = check_schedule(inst, res.schedule)
    assert rep.valid and rep.tel == res.tel, rep.violations
    if getattr(pol, "batches", None) is not None:
        ALL_BATCHES.extend((name + str(sorted(opts.items())), inst.output[b]) for b in pol.batches)
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
# (`kvlib.sortedf.PlannedPrefix`, a policy run by `kvlib.simulate.simulate` and validated by
# `kvlib.checker.check_schedule` like every other policy).
#
# **Which memory constraint does Phase 1 use?** 002 Algorithm 1 writes the constraint as
# $M(X, p_i + o_i) \le M$ (the batch, started together, fits at each of its completion times; we call
# this `lookahead`), while the exact DP of Algorithm 2 — the selector of the experiments — works with
# $\sum_{i\in X}(s_i + o_i) \le M$ (all members' peaks added; `peak`). The experiments evidently used
# the DP's constraint, so `peak` is our default; `--phase1-constraint lookahead` selects the other,
# and the DP handles both exactly (items by decreasing $o$, state $(|X|, \sum s)$, adding item $i$
# allowed iff $\sum s + |X| o_i \le M$). Below we measure whether the choice matters.

# %% [markdown]
# ## Example 1: shortest-first against Sorted-F
#
# 002's Example 1: $M = 64$, one request $(s, o) = (63, 1)$ and 21 requests $(1, 2)$.

# %%
ex1 = Instance.at_zero([63] + [1] * 21, [1] + [2] * 21, 64)
ex1_mcsf, _ = run(ex1, "mc-sf")
ex1_sf, ex1_pol = run(ex1, "sorted-f")
ex1_sfl, _ = run(ex1, "sorted-f", phase1_constraint="lookahead")
ex1_opt = solve(ex1, time_limit=time_limit, threads=1)
assert ex1_opt.optimal
print("MC-SF TEL", ex1_mcsf.tel, "starts", ex1_mcsf.schedule.starts[:3], "...")
print("Sorted-F TEL", ex1_sf.tel, "batches", [list(map(int, b)) for b in ex1_pol.batches])
print("Sorted-F (lookahead Phase 1) TEL", ex1_sfl.tel, "; OPT", ex1_opt.upper)
f_small = F_exact([2] * 21)
glue("ex1_mcsf", ex1_mcsf.tel, display=False)
glue("ex1_sf", ex1_sf.tel, display=False)
glue("ex1_opt", ex1_opt.upper, display=False)
glue("ex1_fsmall", f"{float(f_small):.4f}", display=False)
glue("ex1_match", "agree with" if (ex1_mcsf.tel, ex1_sf.tel) == (64, 45) else "differ from", display=False)

# %% [markdown]
# MC-SF starts the $o = 1$ request first; it fills the cache ($63 + 1 = 64$ at time 1), so the 21
# short requests start at time 1 and finish at 3: TEL {glue:text}`ex1_mcsf`. Sorted-F's first batch is
# the 21 requests $(1, 2)$ ($F = 42/441 =$ {glue:text}`ex1_fsmall` against $F = 1$ for the long
# prompt), they finish at 2, the long prompt at 3: TEL {glue:text}`ex1_sf`, which the IP
# (`kvlib.exact.solve`) certifies optimal (OPT {glue:text}`ex1_opt`). The paper's values are 64 and 45;
# ours {glue:text}`ex1_match` them. Here the conventions do not matter: both schedules are sequences of
# whole batches, and the paper's "a batch of outputs $o$ finishes $o$ rounds after it starts" is ours.
#
# ## The exchange argument behind $F$ (Example 2)
#
# Why $|X|^2$? Run two batches one after the other, $X$ first. If a batch of size $k$ with total
# output $O$ takes time $\tau = O/k$ (its average output — Lemma 1 below shows the true duration, the
# maximum output, is less than twice that), the members of $Y$ wait $\tau_X$ longer. Below SymPy
# computes the difference of total latency between the two orders. *This is our rendering of the
# exchange argument; the numbers of the paper's Example 2 are not reproduced here.*

# %%
kX, kY, OX, OY = sp.symbols("k_X k_Y O_X O_Y", positive=True)
tauX, tauY = OX / kX, OY / kY
# each member completes at its batch start + (its own output); the batch after waits the batch duration
tel_XY = OX + (kY * tauX + OY)
tel_YX = OY + (kX * tauY + OX)
diff = sp.simplify(tel_XY - tel_YX)
FX, FY = OX / kX**2, OY / kY**2
identity = sp.simplify(diff - kX * kY * (FX - FY))
print("TEL(X then Y) - TEL(Y then X) =", diff, "; minus k_X k_Y (F(X) - F(Y)) =", identity)
assert identity == 0
glue("ex2_diff", f"$k_X k_Y\\,(F(X) - F(Y))$", display=False)

# %% [markdown]
# The difference is exactly {glue:text}`ex2_diff`: putting the batch with the smaller $F$ first is
# never worse, which is the rule Phase 1 applies greedily (smallest $F$ first). With the true
# durations $\max_{i\in X} o_i$ in place of the average, Lemma 1 bounds the error by a factor 2.
#
# ## Does the Phase-1 constraint matter?
#
# On random instances (Uniform $s, o \in [1, 50]$, $M = 100$, the setting of Table EC.1) we run
# Sorted-F with the exact DP under both constraints.

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
display(cons.round(4))
glue("cons_mean", f"{cons['lookahead / peak'].mean():.4f}", display=False)
glue("cons_min", f"{cons['lookahead / peak'].min():.4f}", display=False)
glue("cons_max", f"{cons['lookahead / peak'].max():.4f}", display=False)
glue("cons_trials", len(cons), display=False)

# %% [markdown]
# Over {glue:text}`cons_trials` instances the ratio TEL(lookahead) / TEL(peak) ranges from
# {glue:text}`cons_min` to {glue:text}`cons_max` (mean {glue:text}`cons_mean`). The looser constraint
# admits larger batches in Phase 1, but Phase 2 re-checks memory anyway, so larger batches mostly
# reorder the list; which reading is better depends on the instance. The choice matters for the
# numbers, not for validity: both lists are executed under eq. (5).
#
# ## Lemma 1
#
# ```{prf:lemma} 002 Lemma 1
# :label: lem-sortedf-avg
# Every batch $X$ chosen in Phase 1 satisfies $\frac{1}{|X|}\sum_{i\in X} o_i > \frac12 \max_{i\in X} o_i$.
# ```
#
# ```{prf:proof}
# (Our write-up.) Let $k = |X| \ge 2$ (for $k = 1$ it is trivial), $O = \sum_X o_i$ and suppose
# $o_{\max} \ge 2O/k$. Removing that request keeps either memory constraint and gives
# $F(X \setminus \{\max\}) = (O - o_{\max})/(k-1)^2 \le O(k-2)/(k(k-1)^2) < O/k^2 = F(X)$ because
# $k(k-2) < (k-1)^2$ — so $X$ was not a minimiser.
# ```
#
# The proof only uses that removing the longest request does not improve $F$, so it holds for the
# exact DP and for the swap search (whose moves include removals); the tests check it as a property
# (`tests/test_sortedf.py::test_lemma1_every_phase1_batch`). Below we check it on every batch produced
# by the exact DP and the swap search in this chapter (the collected list grows as the chapter runs;
# the final count is in the last section).

# %%
def lemma1_report():
    exact = [(src, o) for src, o in ALL_BATCHES if "'selector', 'quantile'" not in src and "scaled-dp" not in src]
    bad = [(src, o.tolist()) for src, o in exact if not lemma1_holds(o)]
    return len(exact), bad


nb, bad = lemma1_report()
print(f"{nb} batches so far, {len(bad)} violate Lemma 1")
assert not bad

# %% [markdown]
# ## Theorem 3: Sorted-F against the optimum
#
# ```{prf:theorem} 002 Theorem 3
# :label: thm-sortedf-48
# For all requests at $t = 0$, TEL(Sorted-F) $< 48\,$OPT.
# ```
#
# We draw small instances ($n \in [4, 7]$, $M \in [10, 24]$, $s_i \in [1, M/2]$,
# $o_i \in [1, M - s_i]$), solve each to certified optimality with the time-indexed IP of
# `kvlib.exact` (instances the solver does not close within `time_limit` are dropped and counted),
# and record TEL(Sorted-F) / OPT for both Phase-1 constraints, together with MC-SF / OPT.

# %%
def small_instance(r):
    M = int(r.integers(10, 25))
    k = int(r.integers(4, 8))
    s = r.integers(1, M // 2 + 1, k)
    o = np.array([r.integers(1, M - x + 1) for x in s])
    return Instance.at_zero(s, o, M)


def certified_opt(inst):
    res = solve(inst, time_limit=time_limit, threads=1)
    return res.upper if res.optimal else None


rng = np.random.default_rng([seed, 2])
rows, dropped = [], 0
for t in range(opt_trials):
    inst = small_instance(rng)
    opt = certified_opt(inst)
    if opt is None:
        dropped += 1
        continue
    sf, pol = run(inst, "sorted-f")
    sfl, _ = run(inst, "sorted-f", phase1_constraint="lookahead")
    mc, _ = run(inst, "mc-sf")
    sep = Schedule(tuple(separate_starts(pol.batches, inst.output)))
    rep_sep = check_schedule(inst, sep)
    assert rep_sep.valid
    rows.append({"trial": t, "n": inst.n, "M": inst.memory, "OPT": opt, "Sorted-F": sf.tel,
                 "Sorted-F (lookahead)": sfl.tel, "MC-SF": mc.tel, "Sorted-F_separate": rep_sep.tel,
                 "s": inst.prompt.tolist(), "o": inst.output.tolist()})
small = pd.DataFrame(rows)
for col in ("Sorted-F", "Sorted-F (lookahead)", "MC-SF"):
    small[col + " / OPT"] = small[col] / small["OPT"]
summary = small[[c for c in small if c.endswith("/ OPT")]].agg(["mean", "max"]).T
display(summary.round(4))
worst = small.loc[small["Sorted-F / OPT"].idxmax()]
glue("opt_n", len(small), display=False)
glue("opt_dropped", dropped, display=False)
glue("ratio_max", f"{small['Sorted-F / OPT'].max():.4f}", display=False)
glue("ratio_mean", f"{small['Sorted-F / OPT'].mean():.4f}", display=False)
glue("ratio_max_la", f"{small['Sorted-F (lookahead) / OPT'].max():.4f}", display=False)
glue("ratio_max_mcsf", f"{small['MC-SF / OPT'].max():.4f}", display=False)
glue("ratio_worst_inst", f"M = {worst['M']}, s = {worst['s']}, o = {worst['o']}", display=False)

# %% [markdown]
# On {glue:text}`opt_n` instances with certified optima ({glue:text}`opt_dropped` dropped because the
# solver did not close them in time) the largest ratio TEL(Sorted-F) / OPT is
# {glue:text}`ratio_max` (mean {glue:text}`ratio_mean`), attained at {glue:text}`ratio_worst_inst`;
# with the `lookahead` Phase-1 constraint the largest ratio is {glue:text}`ratio_max_la`, and MC-SF's
# is {glue:text}`ratio_max_mcsf`. Random small instances sit far below 48.
#
# ### Adversarial search
#
# To probe the worst case we run a local search over instances: start from the worst random instance
# above, change one $s_i$ or $o_i$ by a random amount (or add / remove a request), keep the change if
# TEL(Sorted-F) / OPT does not decrease, with OPT certified by the IP at every step.

# %%
def ratio_of(inst):
    opt = certified_opt(inst)
    if opt is None:
        return None, None
    return simulate(inst, sorted_f()).tel / opt, opt


def mutate(inst, r):
    s, o, M = inst.prompt.tolist(), inst.output.tolist(), inst.memory
    move = r.integers(0, 5)
    if move == 0 and len(s) < 8:
        x = int(r.integers(1, M // 2 + 1)); s.append(x); o.append(int(r.integers(1, M - x + 1)))
    elif move == 1 and len(s) > 2:
        j = int(r.integers(len(s))); s.pop(j); o.pop(j)
    else:
        j = int(r.integers(len(s)))
        if move % 2:
            s[j] = int(np.clip(s[j] + r.integers(-4, 5), 1, M - 1)); o[j] = min(o[j], M - s[j])
        else:
            o[j] = int(np.clip(o[j] + r.integers(-6, 7), 1, M - s[j]))
    return Instance.at_zero(s, o, M)


rng = np.random.default_rng([seed, 3])
cur = Instance.at_zero(worst["s"], worst["o"], int(worst["M"]))
cur_ratio, cur_opt = ratio_of(cur)
trace = [cur_ratio]
for step in range(adv_steps):
    cand = mutate(cur, rng)
    r_, opt_ = ratio_of(cand)
    if r_ is not None and r_ >= cur_ratio:
        cur, cur_ratio, cur_opt = cand, r_, opt_
    trace.append(cur_ratio)
adv_sf = simulate(cur, sorted_f())
print("adversarial instance: M =", cur.memory, "s =", cur.prompt.tolist(), "o =", cur.output.tolist())
print("Sorted-F TEL", adv_sf.tel, "OPT", cur_opt, "ratio", round(cur_ratio, 4))
glue("adv_steps", adv_steps, display=False)
glue("adv_ratio", f"{cur_ratio:.4f}", display=False)
glue("adv_inst", f"M = {cur.memory}, s = {cur.prompt.tolist()}, o = {cur.output.tolist()}", display=False)
glue("adv_tel", adv_sf.tel, display=False)
glue("adv_opt", cur_opt, display=False)

# %% [markdown]
# After {glue:text}`adv_steps` steps the search reached ratio {glue:text}`adv_ratio`
# (TEL {glue:text}`adv_tel` against OPT {glue:text}`adv_opt`) on {glue:text}`adv_inst`. Local search
# over tiny instances finds ratios well above the random average but nowhere near 48: the constant
# of Theorem 3 comes from multiplying the losses of the four proof steps, which are not attained
# simultaneously on instances this small.
#
# ### The proof chain, instance by instance
#
# 002 proves Theorem 3 through a chain of schedules: TEL(Sorted-F) $\le$ TEL(Sorted-F$_{\text{separate}}$)
# (Theorem 4) $< 4\,$TEL(Sorted-F$_{\text{group}}$) (Theorem 5) $< 2\,$TEL(Sorted-F$_{\text{align}}$)
# (Theorem 6), and Optimal$_{\text{align}} \le 6\,$Optimal (Theorem 7). We construct
# Sorted-F$_{\text{separate}}$ — the Phase-1 batches run one after another, each started as a whole
# when the previous batch has completed (`kvlib.sortedf.separate_starts`, validated by the checker) —
# and measure Theorem 4 on every instance of this chapter. We do **not** construct the group and
# aligned schedules of Theorems 5-7: their exact definitions are not reproduced here, so those
# inequalities are left unmeasured rather than measured against a guess.

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
        sep = Schedule(tuple(separate_starts(pol.batches, inst.output)))
        rep = check_schedule(inst, sep)
        assert rep.valid
        mid_rows.append({"constraint": cons_name, "Sorted-F": res.tel, "separate": rep.tel})
mid = pd.DataFrame(mid_rows)
mid["holds"] = mid["Sorted-F"] <= mid["separate"]
mid["ratio"] = mid["Sorted-F"] / mid["separate"]
display(mid.groupby("constraint")[["holds", "ratio"]].agg(["mean", "min", "max"]).round(4))
glue("th4_small_holds", int(th4.sum()), display=False)
glue("th4_small_n", len(small), display=False)
glue("th4_mid_holds", int(mid["holds"].sum()), display=False)
glue("th4_mid_n", len(mid), display=False)
glue("th4_mid_ratio", f"{mid['ratio'].max():.4f}", display=False)
glue("th4_small_ratio", f"{(small['Sorted-F'] / small['Sorted-F_separate']).max():.4f}", display=False)

# %% [markdown]
# Theorem 4 holds on {glue:text}`th4_small_holds` of the {glue:text}`th4_small_n` small instances and
# on {glue:text}`th4_mid_holds` of {glue:text}`th4_mid_n` runs at $n = $ the Table EC.1 size (both
# constraints); the largest TEL(Sorted-F) / TEL(Sorted-F$_{\text{separate}}$) is
# {glue:text}`th4_small_ratio` (small) and {glue:text}`th4_mid_ratio` (larger). Phase 2 is a list
# schedule, and list schedules under a memory constraint are not monotone in general, so this is a
# genuine check rather than a tautology; a failure would contradict the step of the proof that lets a
# batch start early only when that does not delay later ones.
#
# ## Why shortest-first fails with variable prompts
#
# The two-type instances of 002 Theorem 1 (shortest output first) and Theorem EC.1 (shortest $s + o$
# first) make the ratio of shortest-first grow with $M$. Their generators live in `kvlib.adversary`
# (`wyz_thm1_instance`, `wyz_ec1_instance`) and the growth study, with optima, is in
# {ref}`chapter-lowerbounds`; here we only run MC-SF, MC-SF2 (shortest $s + o$ first) and Sorted-F on them.

# %%
from kvlib.adversary import wyz_ec1_instance, wyz_thm1_instance

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
two["MC-SF / Sorted-F"] = two["MC-SF"] / two["Sorted-F (Swap)"]
two["MC-SF2 / Sorted-F"] = two["MC-SF2 (s+o first)"] / two["Sorted-F (Swap)"]
display(two.round(3))
t1 = two[two.family == "Theorem 1"].iloc[-1]
e1 = two[two.family == "Theorem EC.1"].iloc[-1]
glue("two_M", int(t1["M"]), display=False)
glue("two_t1_ratio", f"{t1['MC-SF / Sorted-F']:.3f}", display=False)
glue("two_e1_ratio", f"{e1['MC-SF2 / Sorted-F']:.3f}", display=False)
glue("two_e1_mcsf", f"{e1['MC-SF / Sorted-F']:.3f}", display=False)

# %% [markdown]
# At $M =$ {glue:text}`two_M` MC-SF is {glue:text}`two_t1_ratio` times Sorted-F on the Theorem 1
# instance, and MC-SF2 is {glue:text}`two_e1_ratio` times Sorted-F on the Theorem EC.1 instance
# (where plain MC-SF is {glue:text}`two_e1_mcsf` times Sorted-F): each shortest-first rule loses on
# the family built against it, while Sorted-F stays close to the better of the two on both (on the
# EC.1 family plain MC-SF is slightly ahead of it, see the table), because $F$ weighs a request's
# output against how many requests share its batch rather than sorting by one size alone.
#
# ## Table 3: the Phase-1 selectors
#
# Running time of one Phase-1 selection (the first batch of a Uniform instance, $s, o \in [1, 50]$)
# for each selector against $n$ and $M$, and the quality $F$(selector) / $F$(exact DP) $\ge 1$.
# Scaled DP uses $\varepsilon = 0.05$ and no size cap; quantile greedy uses 10 quantiles and 4
# seeded random orders each.

# %%
def timed(fn, reps=3):
    best = np.inf
    for _ in range(reps):
        tic = time.perf_counter(); out = fn(); best = min(best, time.perf_counter() - tic)
    return best, out


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
            sec, X = timed(fn)
            fx = F_exact(o[X])
            ref = fx if ref is None else ref
            rows.append({"M": M, "n": nn, "selector": name, "ms": 1e3 * sec, "F / F(DP)": float(fx / ref)})
tab3 = pd.DataFrame(rows)
display(tab3.pivot_table(index=["M", "n"], columns="selector", values="ms").round(2))
display(tab3.pivot_table(index=["M", "n"], columns="selector", values="F / F(DP)").round(4))
big = tab3[(tab3.n == max(ns)) & (tab3.M == max(Ms))].set_index("selector")
glue("t3_n", max(ns), display=False)
glue("t3_M", max(Ms), display=False)
glue("t3_dp_ms", f"{big.loc['exact DP (Alg. 2)', 'ms']:.1f}", display=False)
glue("t3_swap_ms", f"{big.loc['swap (Alg. 4)', 'ms']:.1f}", display=False)
glue("t3_worst_swap", f"{tab3[tab3.selector == 'swap (Alg. 4)']['F / F(DP)'].max():.4f}", display=False)
glue("t3_worst_q", f"{tab3[tab3.selector == 'quantile (Alg. 5)']['F / F(DP)'].max():.4f}", display=False)
glue("t3_worst_sc", f"{tab3[tab3.selector == 'scaled DP (Alg. 3)']['F / F(DP)'].max():.4f}", display=False)

# %% [markdown]
# At $n =$ {glue:text}`t3_n`, $M =$ {glue:text}`t3_M` one exact-DP selection takes
# {glue:text}`t3_dp_ms` ms against {glue:text}`t3_swap_ms` ms for the swap search. The worst
# $F$ / $F$(DP) over the grid is {glue:text}`t3_worst_sc` for scaled DP, {glue:text}`t3_worst_swap`
# for swap and {glue:text}`t3_worst_q` for quantile greedy. Where each is worth using: the exact DP
# ($O(n \cdot k_{\max} \cdot M)$ per selection, $k_{\max} \le M / \min(s + o)$) is affordable at
# these sizes and should be the default; scaled DP trades a bounded rounding of memory for a factor
# $1/\varepsilon$-sized table, useful when $M$ is in the tens of thousands of tokens; the swap search
# is the fastest and usually finds the DP's batch; quantile greedy is dominated here. (The paper's
# Table 3 timings are not reproduced here; ours depend on this machine.)
#
# ## Table EC.1: five synthetic distributions
#
# Appendix EC.4.2 of 002: $M = 100$, $s_{\max} = o_{\max} = 50$. *Our reading of the five
# distributions* (the paper's exact parameters are not reproduced here): Uniform on $[1, 50]$;
# Normal with mean 25 and standard deviation 10, rounded and clipped to $[1, 50]$; Binomial$(50, 1/2)$
# clipped below at 1; Exponential with mean 10, plus 1, rounded and clipped at 50; Mixed: half the
# requests short ($s, o$ uniform on $[1, 10]$) and half long ($[30, 50]$), with $2n$ requests. The
# table reports the average latency per request (TEL / $n$), averaged over the trials, with 95%
# Student-$t$ confidence intervals.

# %%
def draw(dist, r, k):
    if dist == "Uniform":
        return r.integers(1, 51, k), r.integers(1, 51, k)
    if dist == "Normal":
        f = lambda: np.clip(np.rint(r.normal(25, 10, k)), 1, 50).astype(int)
        return f(), f()
    if dist == "Binomial":
        return np.maximum(r.binomial(50, 0.5, k), 1), np.maximum(r.binomial(50, 0.5, k), 1)
    if dist == "Exponential":
        f = lambda: np.minimum(1 + np.rint(r.exponential(10, k)), 50).astype(int)
        return f(), f()
    if dist == "Mixed":
        short = r.random(k) < 0.5
        s = np.where(short, r.integers(1, 11, k), r.integers(30, 51, k))
        o = np.where(short, r.integers(1, 11, k), r.integers(30, 51, k))
        return s, o
    raise ValueError(dist)


POLS = {
    "Sorted-LP": ("sorted-lp", {}),
    "Sorted-F (Swap)": ("sorted-f", {"selector": "swap"}),
    "LP-Swap": ("lp-swap", {}),
    "Sorted-F (DP)": ("sorted-f", {}),
    "MC-SF": ("mc-sf", {}),
    "FCFS": ("fcfs", {}),
}
rows = []
for dist in ["Uniform", "Normal", "Binomial", "Exponential", "Mixed"]:
    r = np.random.default_rng([seed, 6, len(dist)])
    k = 2 * n if dist == "Mixed" else n
    for t in range(trials):
        s, o = draw(dist, r, k)
        inst = Instance.at_zero(s, o, 100)
        for label, (name, opts) in POLS.items():
            tic = time.perf_counter()
            res, _ = run(inst, name, **opts)
            rows.append({"distribution": dist, "n": k, "trial": t, "policy": label,
                         "avg latency": res.tel / k, "seconds": time.perf_counter() - tic})
ec1 = pd.DataFrame(rows)


def ci(x):
    x = np.asarray(x, float)
    if len(x) < 2:
        return f"{x.mean():.2f}"
    h = stats.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / np.sqrt(len(x))
    return f"{x.mean():.2f} ± {h:.2f}"


tab = ec1.pivot_table(index=["distribution", "n"], columns="policy", values="avg latency", aggfunc=ci)
tab = tab[list(POLS)]
tab["trials"] = ec1.groupby(["distribution", "n"])["trial"].nunique()
tab["paper's values"] = "not reproduced here"
display(tab)
means = ec1.pivot_table(index="distribution", columns="policy", values="avg latency", aggfunc="mean")
best_per = means.idxmin(axis=1)
display(ec1.groupby("policy")["seconds"].mean().round(3).rename("mean seconds per instance").to_frame())
glue("ec1_trials", trials, display=False)
glue("ec1_n", n, display=False)
glue("ec1_best", ", ".join(f"{d}: {p}" for d, p in best_per.items()), display=False)
glue("ec1_fcfs_ratio", f"{(means['FCFS'] / means['Sorted-F (Swap)']).min():.2f}", display=False)
glue("ec1_mcsf_ratio", f"{(means['MC-SF'] / means['Sorted-F (Swap)']).mean():.3f}", display=False)

# %% [markdown]
# With {glue:text}`ec1_trials` trials per distribution ($n =$ {glue:text}`ec1_n`, Mixed $2n$) the
# lowest mean per distribution is — {glue:text}`ec1_best`. FCFS is at least
# {glue:text}`ec1_fcfs_ratio` times Sorted-F (Swap) on every distribution; MC-SF / Sorted-F (Swap)
# averages {glue:text}`ec1_mcsf_ratio` over the distributions. The paper does not state its number of
# trials; its Table EC.1 values are not reproduced here, so the comparison with them is left to a
# reader holding the paper. In quick mode the instances are smaller than the paper's $n = 100$ and the
# intervals wide; full mode runs $n = 100$ (Mixed 200) with 30 trials.
#
# The mixed real-data experiment of 002 Section 7 is in {ref}`chapter-realtrace`.
#
# ## Lemma 1 on every batch of this chapter

# %%
nb, bad = lemma1_report()
glue("lemma1_batches", nb, display=False)
glue("lemma1_bad", len(bad), display=False)
print(f"Lemma 1 checked on {nb} Phase-1 batches (exact DP and swap search): {len(bad)} violations")
assert not bad
glue("elapsed", f"{time.perf_counter() - T0:.0f}", display=False)

# %% [markdown]
# Lemma 1 holds on all {glue:text}`lemma1_batches` Phase-1 batches built by the exact DP and the swap
# search in this chapter ({glue:text}`lemma1_bad` violations). The chapter ran in
# {glue:text}`elapsed` s.
#
# ## What was verified / what was not
#
# Verified: Example 1 (MC-SF {glue:text}`ex1_mcsf`, Sorted-F {glue:text}`ex1_sf`, certified optimal);
# the exchange identity behind $F$ (symbolically); the exact DP against brute force (property tests,
# both Phase-1 constraints); Lemma 1 on every batch and as a property; Theorem 3 on small instances
# (largest ratio {glue:text}`ratio_max`, adversarial {glue:text}`adv_ratio`, far below 48); Theorem 4
# instance by instance; every schedule in this chapter passed the independent checker.
#
# Not verified: Theorems 5-7 (the group and aligned schedules are not constructed); the scaled DP,
# quantile greedy and LP-Swap follow our reading of Algorithms 3, 5 and 7, whose exact parameters are
# not reproduced here; the paper's Table 3 and Table EC.1 numbers are not reproduced here, so no
# discrepancy with them is claimed; the Theorem 1 / EC.1 growth study is in {ref}`chapter-lowerbounds`.
