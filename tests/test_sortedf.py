"""Sorted-F family of 002: the selectors as written (Algorithms 2-5) and our variants, Lemma 1,
hand-checked instances, valid schedules, size limits, CLI."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kvlib import Instance, Schedule, check_schedule, make_policy, simulate
from kvlib.cli import main
from kvlib.policies.wyz_lp import tiny_optimum
from kvlib.policies.wyz import (
    CONSTRAINTS,
    F_exact,
    SelectorTooLarge,
    auto_selector,
    batch_feasible,
    brute_force_argmin,
    dp_argmin,
    exact_argmin,
    first_fit,
    lemma1_holds,
    phase1,
    quantile_argmin,
    quantile_ours_argmin,
    scaled_dp_argmin,
    scaled_dp_ours_argmin,
    scaled_parameters,
    CHAIN_LINKS,
    align_starts,
    batch_start_usage,
    batched_starts,
    group_order,
    group_starts,
    optimal_aligned,
    pow2_up,
    proof_chain,
    separate_starts,
    sorted_f,
    swap_argmin,
    swap_ours_argmin,
)

EXAMPLE1 = Instance.at_zero([63] + [1] * 21, [1] + [2] * 21, 64)


@st.composite
def small_sets(draw, max_n=8):
    M = draw(st.integers(4, 30))
    n = draw(st.integers(1, max_n))
    s = [draw(st.integers(1, M - 1)) for _ in range(n)]
    o = [draw(st.integers(1, M - si)) for si in s]
    return np.array(s), np.array(o), M


def _key(o):
    """Algorithm 1 line 4's order: F, then the larger batch."""
    return (F_exact(o), -len(o))


def _key_small(o):
    """Algorithm 2's final scan: F, then the smaller batch."""
    return (F_exact(o), len(o))


# ---------------------------------------------------------------------------
# properties of every selector


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_sets(), st.sampled_from(CONSTRAINTS))
def test_exact_equals_brute_force(inst, constraint):
    """'exact' is Algorithm 1 line 4's argmin (ties to the larger batch) under either constraint."""
    s, o, M = inst
    X = exact_argmin(s, o, M, constraint)
    Y = brute_force_argmin(s, o, M, constraint)
    assert batch_feasible(s[X], o[X], M, constraint)
    assert _key(o[X]) == _key(o[Y])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_sets())
def test_dp_is_algorithm2(inst):
    """002 Algorithm 2 (Table 3: optimal): least F under the peak constraint, ties to the smaller batch."""
    s, o, M = inst
    X = dp_argmin(s, o, M)
    Y = brute_force_argmin(s, o, M, prefer="smaller")
    assert batch_feasible(s[X], o[X], M, "peak")
    assert _key_small(o[X]) == _key_small(o[Y])
    assert F_exact(o[X]) == F_exact(o[exact_argmin(s, o, M)])


@settings(max_examples=80, deadline=None)
@given(small_sets(), st.sampled_from(CONSTRAINTS), st.floats(0.01, 0.3))
def test_our_heuristic_variants_feasible_and_not_better_than_exact(inst, constraint, eps):
    """Our variants scaled-dp-ours and swap-ours always return a feasible batch (so never beat the exact F)."""
    s, o, M = inst
    best = _key(o[exact_argmin(s, o, M, constraint)])
    for X in (scaled_dp_ours_argmin(s, o, M, constraint, epsilon=eps), swap_ours_argmin(s, o, M, constraint),
              quantile_ours_argmin(s, o, M, constraint, samples=2)):
        assert len(X) >= 1 and batch_feasible(s[X], o[X], M, constraint)
        assert _key(o[X]) >= best


@settings(max_examples=100, deadline=None)
@given(small_sets(), st.floats(0.01, 1.0), st.integers(1, 8))
# lambda's exact denominator is ~1e18 for these epsilons: the scaled weights once overflowed int64
@example(inst=(np.array([1, 1, 1, 1, 1, 23]), np.array([1, 1, 1, 1, 1, 1]), 27), eps=0.34513567121206523, B=8)
@example(inst=(np.array([1]), np.array([18]), 27), eps=0.34513567121206523, B=5)
def test_scaled_dp_what_algorithm3_guarantees(inst, eps, B):
    """Algorithm 3 rounds weights down, so every peak-feasible batch stays feasible for it: its F is at
    most the exact optimum, its scaled weight fits M_hat, and its true peak is below M + lambda |X|;
    with lambda = 1 it is Algorithm 2."""
    s, o, M = inst
    X = scaled_dp_argmin(s, o, M, epsilon=eps, B=B)
    par = scaled_parameters(s, o, M, eps, B)
    assert len(X) >= 1
    assert F_exact(o[X]) <= F_exact(o[dp_argmin(s, o, M)])
    assert int(par["w_hat"][X].sum()) <= par["M_hat"]
    assert int((s + o)[X].sum()) < M + par["lambda"] * len(X)
    if par["lambda"] == 1:
        assert X.tolist() == dp_argmin(s, o, M).tolist()


@settings(max_examples=100, deadline=None)
@given(small_sets(max_n=10))
def test_swap_is_a_local_optimum_of_fixed_size(inst):
    """Algorithm 4: peak-feasible, the size of the first-fit pack by s + o, and no feasible swap lowers F."""
    s, o, M = inst
    X = swap_argmin(s, o, M)
    w = s + o
    assert batch_feasible(s[X], o[X], M, "peak")
    assert len(X) == len(first_fit(s, o, M, np.argsort(w, kind="stable")))
    mem = int(w[X].sum())
    out = np.setdiff1d(np.arange(len(s)), X)
    for i in X:
        for j in out:
            assert not (o[j] < o[i] and mem - w[i] + w[j] <= M)


@settings(max_examples=100, deadline=None)
@given(small_sets(max_n=10), st.integers(0, 5))
def test_quantile_is_feasible_and_maximal(inst, seed):
    """Algorithm 5's fill pass leaves no request that would still fit; same seed, same batch."""
    s, o, M = inst
    X = quantile_argmin(s, o, M, rng=np.random.default_rng(seed))
    w = s + o
    assert len(X) >= 1 and batch_feasible(s[X], o[X], M, "peak")
    mem = int(w[X].sum())
    assert all(mem + w[j] > M for j in np.setdiff1d(np.arange(len(s)), X))
    assert X.tolist() == quantile_argmin(s, o, M, rng=np.random.default_rng(seed)).tolist()


@settings(max_examples=80, deadline=None)
@given(small_sets(max_n=12), st.sampled_from([("exact", "peak"), ("exact", "lookahead"), ("dp", "peak"),
                                               ("swap-ours", "peak"), ("swap-ours", "lookahead")]))
def test_lemma1_every_phase1_batch(inst, which):
    """002 Lemma 1 holds for every batch of an exact Phase 1 (Algorithm 2 or line 4's argmin) and of our
    removal-stable swap-ours (002's own Algorithm 4 can violate it: test_algorithm4_by_hand_D1)."""
    selector, constraint = which
    s, o, M = inst
    batches = phase1(s, o, M, selector, constraint)
    assert sorted(np.concatenate(batches).tolist()) == list(range(len(s)))
    for b in batches:
        assert lemma1_holds(o[b])
        assert batch_feasible(s[b], o[b], M, constraint)


def test_paper_selectors_reject_lookahead_and_unknown_names():
    s, o = np.array([1, 2]), np.array([1, 1])
    for name in ("dp", "scaled-dp", "swap", "quantile"):
        with pytest.raises(ValueError, match="peak constraint"):
            phase1(s, o, 10, name, "lookahead")
        with pytest.raises(ValueError, match="peak constraint"):
            sorted_f(name, phase1_constraint="lookahead")
    with pytest.raises(ValueError, match="unknown selector 'nope'"):
        sorted_f("nope")
    with pytest.raises(ValueError, match="init_order"):
        phase1(s, o, 10, "swap", init_order=[0, 1])
    with pytest.raises(ValueError, match="B must be a positive integer"):
        scaled_dp_argmin(s, o, 10, B=0)


# ---------------------------------------------------------------------------
# hand-checked instances (n <= 5), derived from 002's pseudocode


def _run(s, o, M, **kw):
    inst = Instance.at_zero(s, o, M)
    pol = sorted_f(**kw)
    res = simulate(inst, pol)
    rep = check_schedule(inst, res.schedule)
    assert rep.valid and rep.tel == res.tel, rep.violations
    return [b.tolist() for b in pol.batches], list(res.schedule.starts), res.tel


def test_algorithm1_constraint_reading_A1():
    # M = 9; (s, o) = (2,1), (2,1), (2,2).
    # lookahead (line 4 literally): all three started together hold 3+3+3 = 9 at t=1 and 4 at t=2,
    #   feasible with F = 4/9 < 1/2 = F({r1,r2}) -> one batch [r1, r2, r3].
    # peak: the peaks s+o are 3, 3, 4, sum 10 > 9 -> best is {r1,r2} (F = 1/2), then {r3}.
    # Phase 2 gets the list [r1,r2,r3] either way: all start at 0 (9 tokens at t=1): TEL 1+1+2 = 4.
    s, o = [2, 2, 2], [1, 1, 2]
    assert _run(s, o, 9, selector="exact") == ([[0, 1], [2]], [0, 0, 0], 4)
    assert _run(s, o, 9, selector="exact", phase1_constraint="lookahead") == ([[0, 1, 2]], [0, 0, 0], 4)


def test_algorithm1_full_run_A2():
    # M = 9; r1..r5 = (1,1), (1,3), (1,1), (1,4), (2,5); peaks 2, 4, 2, 5, 7.
    # Phase 1: {r1,r3} F = 2/4; a 3-set has sum o >= 5 > 4.5 (F > 1/2), a 4-set 9 > 8.
    #   Rest {r2,r4,r5}: {r2,r4} (peak 9) F = 7/4 < 3, 4, 5 (singles); {r2,r5} peak 11 > 9. Then {r5}.
    # List [r1,r3,r2,r4,r5]. Phase 2 at t=0: the first four hold 8 at t=1, 8 at t=3 (r2: 4, r4: 4),
    #   5 at t=4 -> all start; r5 would add 3 at t=1 (11) -> break.  t=1: r5 would hold 5 at t=3 with
    #   r2 (4) + r4 (4) = 13; t=2: 4 at t=3 -> 12; t=3: r5 holds 3..7 over t=4..8, r4 holds 5 at t=4
    #   -> 8 <= 9: starts at 3, ends 8.  Completions 1,3,1,4,8: TEL 17.  No F ties: dp = exact.
    s, o = [1, 1, 1, 1, 2], [1, 3, 1, 4, 5]
    for sel in ("exact", "dp"):
        assert _run(s, o, 9, selector=sel) == ([[0, 2], [1, 3], [4]], [0, 0, 0, 0, 3], 17)


def test_algorithm2_tie_B1():
    # M = 6; r1 = (1,1), r2 = (1,3).  Algorithm 2's table: dp[1][2] = 1 (F = 1), dp[1][4] = 3,
    # dp[2][6] = 4 (F = 4/4 = 1).  The final scan (k = 1..n, strict <) keeps the first: {r1}.
    # Algorithm 1 line 4 (ties to the larger |X|): {r1, r2}.
    # Sorted-F: list [r1, r2] either way; both start at 0 (4 tokens at t=1, 4 at t=3): TEL 1+3 = 4.
    s, o = np.array([1, 1]), np.array([1, 3])
    assert dp_argmin(s, o, 6).tolist() == [0]
    assert exact_argmin(s, o, 6).tolist() == [0, 1]
    assert _run(s, o, 6, selector="dp") == ([[0], [1]], [0, 0], 4)
    assert _run(s, o, 6, selector="exact") == ([[0, 1]], [0, 0], 4)


def test_algorithm2_B2():
    # M = 10; r1..r3 = (2,1), r4 = (6,1).  F by size: k=1: 1, k=2: 1/2, k=3 (peak 9): 1/3; any set with r4
    # and two others has peak 13 > 10.  -> {r1,r2,r3}, then {r4}.
    # Phase 2: the three start at 0 (9 tokens at t=1); r4 adds 7 -> break; r4 starts at 1: TEL 1+1+1+2 = 5.
    assert _run([2, 2, 2, 6], [1, 1, 1, 1], 10, selector="dp") == ([[0, 1, 2], [3]], [0, 0, 0, 1], 5)


def test_algorithm3_by_hand_C1():
    # M = 10, epsilon = 0.5, B = 1: lambda = max(1, 0.5*10/1) = 5, M_hat = floor(10/5) = 2;
    # r1..r3 = (3,1): scaled weight floor(4/5) = 0 each, so every subset fits the scaled capacity:
    # dp[1][0] = 1 (F = 1), dp[2][0] = 2 (F = 1/2), dp[3][0] = 3 (F = 1/3) -> {r1,r2,r3},
    # whose true peak sum is 12 > 10 (infeasible as a batch) and F = 1/3 < 1/2 = F* (exact).
    # Sorted-F appends it as is; Phase 2: r1, r2 at 0 (8 tokens at t=1), r3 would make 12 -> break;
    # r3 starts at 1.  TEL 1+1+2 = 4, and the schedule respects M.
    s, o = np.array([3, 3, 3]), np.array([1, 1, 1])
    par = scaled_parameters(s, o, 10, 0.5, 1)
    assert (par["lambda"], par["M_hat"], par["w_hat"].tolist()) == (5, 2, [0, 0, 0])
    assert scaled_dp_argmin(s, o, 10, epsilon=0.5, B=1).tolist() == [0, 1, 2]
    assert dp_argmin(s, o, 10).tolist() == [0, 1]
    assert scaled_dp_ours_argmin(s, o, 10, epsilon=0.5).tolist() == [0, 1]
    assert _run(s, o, 10, selector="scaled-dp", epsilon=0.5, B=1) == ([[0, 1, 2]], [0, 0, 1], 4)


def test_algorithm4_by_hand_D1():
    # M = 10; r1 = (1,1), r2 = (1,1), r3 = (1,5).  Sorted by s+o: 2, 2, 6; first fit packs all three
    # (mem = 10); there is no non-member, so no swap: {r1,r2,r3}, F = 7/9.  Mean o = 7/3 < 5/2 = max/2:
    # 002 Lemma 1 fails for Algorithm 4's batch.  The exact argmin is {r1,r2} (F = 1/2), so is swap-ours.
    # Sorted-F: the list [r1,r2,r3] either way, all start at 0 (6 tokens at t=1, 6 at t=5): TEL 7.
    s, o = np.array([1, 1, 1]), np.array([1, 1, 5])
    X = swap_argmin(s, o, 10)
    assert X.tolist() == [0, 1, 2] and not lemma1_holds(o[X])
    assert swap_ours_argmin(s, o, 10).tolist() == [0, 1]
    assert _run(s, o, 10, selector="swap") == ([[0, 1, 2]], [0, 0, 0], 7)
    assert _run(s, o, 10, selector="swap-ours") == ([[0, 1], [2]], [0, 0, 0], 7)


def test_algorithm4_by_hand_D2():
    # M = 10; r1 = (1,4), r2 = (5,1), r3 = (3,1); s+o = 5, 6, 4.  Sorted: r3, r1, r2; first fit packs
    # r3, r1 (mem 9), r2 does not fit (15).  Pass: r_out = r3 (first in the sorted order): r_in = r2
    # has o 1 < 1? no.  r_out = r1: r_in = r2, mem 9 - 5 + 6 = 10 <= 10, o 1 < 4 -> swap: {r2, r3}.
    # Next pass: the only non-member r1 has o = 4 > 1: stop.  {r2, r3}, F = 1/2 (= the exact optimum).
    assert swap_argmin(np.array([1, 5, 3]), np.array([4, 1, 1]), 10).tolist() == [1, 2]


def test_algorithm5_by_hand_E1():
    # M = 10; r1 = (1,1), r2 = (1,1), r3 = (1,3), r4 = (8,2); peaks 2, 2, 4, 10.  By o: r1, r2, r4, r3.
    # Any sample of 2 has Q_p >= 2 and Q_o >= 1, so r1, r2 pass the core test (mem 4); r4 never fits
    # (14); r3 joins in the core pass (if Q_o >= 3 and Q_p >= 4) or in the fill pass (by o/(s+o):
    # r4 0.2 does not fit, r3 0.75 fits, mem 8).  -> {r1,r2,r3}, F = 5/9 (exact: {r1,r2}, 1/2).
    # Sorted-F: [r1,r2,r3,r4]; r1..r3 at 0; r4 (9 at its first step) blocked at t=0,1,2
    # (15, 12, 13 tokens), starts when r3 ends at 3: completions 1,1,3,5 -> TEL 10.
    s, o = np.array([1, 1, 1, 8]), np.array([1, 1, 3, 2])
    for seed in range(10):
        assert quantile_argmin(s, o, 10, rng=np.random.default_rng(seed)).tolist() == [0, 1, 2]
    for seed in range(3):
        assert _run(s, o, 10, selector="quantile", seed=seed) == ([[0, 1, 2], [3]], [0, 0, 0, 3], 10)


# ---------------------------------------------------------------------------
# schedules, sizes


@st.composite
def instances(draw):
    M = draw(st.integers(6, 40))
    n = draw(st.integers(1, 10))
    arrivals = draw(st.booleans())
    reqs = []
    for _ in range(n):
        s = draw(st.integers(1, M - 1))
        o = draw(st.integers(1, M - s))
        a = draw(st.integers(0, 6)) if arrivals else 0
        reqs.append((a, s, o))
    return Instance(tuple(reqs), M)


POLICY_OPTIONS = [
    ("sorted-f", {}),
    ("sorted-f", {"phase1_constraint": "lookahead"}),
    ("sorted-f", {"selector": "dp"}),
    ("sorted-f", {"selector": "scaled-dp", "epsilon": 0.1}),
    ("sorted-f", {"selector": "scaled-dp", "epsilon": 0.5, "B": 1}),  # coarse: batches above M
    ("sorted-f", {"selector": "swap", "phase2": "scan"}),
    ("sorted-f", {"selector": "swap"}),
    ("sorted-f", {"selector": "quantile", "seed": 3}),
    ("sorted-f", {"selector": "scaled-dp-ours", "epsilon": 0.1, "phase1_constraint": "lookahead"}),
    ("sorted-f", {"selector": "swap-ours", "phase1_constraint": "lookahead"}),
    ("sorted-f", {"selector": "quantile-ours", "samples": 2}),
]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances(), st.integers(0, len(POLICY_OPTIONS) - 1))
def test_sorted_f_schedules_valid(inst, which):
    name, opts = POLICY_OPTIONS[which]
    res = simulate(inst, make_policy(name, **opts))
    rep = check_schedule(inst, res.schedule)
    assert rep.valid, rep.violations
    assert rep.tel == res.tel


def test_random_instances_every_selector_valid():
    """Every selector's Sorted-F schedule on seeded random instances passes the checker."""
    rng = np.random.default_rng(7)
    sels = ["auto", "exact", "dp", "scaled-dp", "swap", "quantile", "scaled-dp-ours", "swap-ours", "quantile-ours"]
    for _ in range(6):
        M = int(rng.integers(20, 60))
        s = rng.integers(1, M // 2, 12)
        o = np.array([rng.integers(1, M - x + 1) for x in s])
        inst = Instance.at_zero(s, o, M)
        for sel in sels:
            kw = {"epsilon": 0.5, "B": 1} if sel == "scaled-dp" else {}
            res = simulate(inst, sorted_f(sel, **kw))
            rep = check_schedule(inst, res.schedule)
            assert rep.valid and rep.tel == res.tel, (sel, rep.violations)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances(), st.sampled_from(["sorted-lp", "lp-swap", "sorted-lp-completion", "lp-swap-ours"]))
def test_lp_policies_valid(inst, name):
    res = simulate(inst, make_policy(name))
    rep = check_schedule(inst, res.schedule)
    assert rep.valid, rep.violations


def test_example1_numbers():
    assert simulate(EXAMPLE1, make_policy("mc-sf")).tel == 64
    for name in ("sorted-f", "sorted-lp", "lp-swap", "sorted-lp-completion", "lp-swap-ours"):
        assert simulate(EXAMPLE1, make_policy(name)).tel == 45
    for sel in ("dp", "scaled-dp", "swap", "quantile", "swap-ours", "quantile-ours", "scaled-dp-ours"):
        assert simulate(EXAMPLE1, make_policy("sorted-f", selector=sel)).tel == 45
    assert tiny_optimum(EXAMPLE1)[0] == 45


def _real_size(n, M, seed):
    """002 Section 7's shape: 80 % short chat requests, 20 % long-prompt summarisation requests."""
    rng = np.random.default_rng(seed)
    short = rng.random(n) < 0.8
    s = np.where(short, rng.integers(1, 200, n), rng.integers(1000, 4000, n))
    o = np.where(short, rng.integers(1, 300, n), rng.integers(20, 800, n))
    return s, o


def test_default_runs_at_real_size_and_dp_refuses():
    """n = 1,000, M = 16,492 (002 Section 7): the exact DP's table would have about 1.6e10 cells (the former
    default allocated 15 GiB here); the default 'auto' switches to Algorithm 4 and finishes, and the DP
    selectors refuse with an error naming the selectors that can run."""
    n, M = 1000, 16492
    s, o = _real_size(n, M, 0)
    inst = Instance.at_zero(s, o, M)
    assert auto_selector(s, o, M) == "swap"
    res = simulate(inst, make_policy("sorted-f"))
    assert check_schedule(inst, res.schedule).valid
    for fn in (dp_argmin, exact_argmin, scaled_dp_argmin):
        with pytest.raises(SelectorTooLarge, match="cannot run at n = 1000.*'swap'"):
            fn(s, o, M)
    with pytest.raises(ValueError, match="cannot run"):  # SelectorTooLarge is a ValueError
        phase1(s, o, M, "dp")
    with pytest.raises(SelectorTooLarge, match="n <= 18"):
        brute_force_argmin(s[:19], o[:19], M)
    # small instances keep the exact DP
    assert auto_selector(s[:50], o[:50], 200) == "exact"


def test_cli_rejects_a_selector_outside_its_constraint(tmp_path, capsys):
    f = tmp_path / "ex1.csv"
    f.write_text("arrival,prompt,output\n0,63,1\n" + "0,1,2\n" * 21)
    assert main(["simulate", str(f), "-M", "64", "--policy", "sorted-f", "--selector", "swap",
                 "--phase1-constraint", "lookahead"]) != 0
    assert "peak constraint" in capsys.readouterr().err


def test_separate_schedule_feasible_and_tiny_optimum_below():
    rng = np.random.default_rng(3)
    for _ in range(5):
        M = 14
        s = rng.integers(1, 6, 5)
        o = np.array([rng.integers(1, M - x + 1) for x in s])
        inst = Instance.at_zero(s, o, M)
        pol = sorted_f()
        res = simulate(inst, pol)
        sep = Schedule(tuple(separate_starts(pol.batches, o)))
        rep = check_schedule(inst, sep)
        assert rep.valid
        opt, starts = tiny_optimum(inst)
        assert check_schedule(inst, Schedule(tuple(starts))).tel == opt <= res.tel


@pytest.mark.parametrize(
    "args",
    [
        ["--policy", "sorted-f"],
        ["--policy", "sorted-f", "--selector", "scaled-dp", "--epsilon", "0.1", "--B", "8"],
        ["--policy", "sorted-f", "--phase1-constraint", "lookahead"],
        ["--policy", "sorted-f", "--selector", "swap"],
        ["--policy", "sorted-f", "--selector", "dp"],
        ["--policy", "sorted-f", "--selector", "quantile", "--seed", "3", "--phase2", "scan"],  # 002 Alg. 5 takes no --samples
        ["--policy", "sorted-lp", "--time-step", "1"],
        ["--policy", "lp-swap"],
    ],
)
def test_cli_runs_each_policy(tmp_path, capsys, args):
    f = tmp_path / "ex1.csv"
    f.write_text("arrival,prompt,output\n0,63,1\n" + "0,1,2\n" * 21)
    assert main(["simulate", str(f), "-M", "64", "--json"] + args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["tel"] == 45


def test_cli_help_lists_policies(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for name in ("sorted-f", "sorted-lp", "lp-swap", "sorted-lp-completion", "lp-swap-ours"):
        assert name in out


# ---------------------------------------------------------------------------
# our variant of 002 Theorem 3's proof chain (feasible batched schedules; 002's objects: test_wyz_chain_paper.py)


def test_pow2_up():
    assert [pow2_up(x) for x in (1, 2, 3, 4, 5, 8, 9)] == [1, 2, 4, 4, 8, 8, 16]
    with pytest.raises(ValueError, match="x >= 1"):
        pow2_up(0)


def test_batched_starts_by_hand():
    o = np.array([3, 1, 5, 2])
    batches = [np.array([1, 3]), np.array([0]), np.array([2])]
    assert separate_starts(batches, o).tolist() == [2, 0, 5, 0]
    # aligned: slots of length 2 at 0, 4 at 4 (first multiple of 4 >= 2), 8 at 8
    assert batched_starts(batches, o, aligned=True).tolist() == [4, 0, 8, 0]
    # group: classes ceil(log2 D) = 1, 2, 3 already increasing
    assert [b.tolist() for b in group_order(batches, o)] == [[1, 3], [0], [2]]
    assert [b.tolist() for b in group_order(batches[::-1], o)] == [[1, 3], [0], [2]]
    with pytest.raises(ValueError, match="partition"):
        batched_starts([np.array([0, 1])], o)


def _aligned_brute(s, o, M):
    """Every ordered partition into feasible batches, each at its earliest aligned start."""
    n = len(o)
    best = None

    def rec(rem, t, tel):
        nonlocal best
        if not rem:
            best = tel if best is None else min(best, tel)
            return
        rem = sorted(rem)
        for k in range(1, len(rem) + 1):
            for X in itertools.combinations(rem, k):
                X = list(X)
                if batch_start_usage(s[X], o[X]) > M:
                    continue
                L = pow2_up(int(o[X].max()))
                q = -(-t // L) * L
                rec(set(rem) - set(X), q + L, tel + len(X) * q + int(o[X].sum()))

    rec(set(range(n)), 0, 0)
    return best


@settings(max_examples=40, deadline=None)
@given(small_sets(max_n=5))
def test_optimal_aligned_equals_enumeration(inst):
    s, o, M = inst
    tel, batches = optimal_aligned(s, o, M)
    assert tel == _aligned_brute(s, o, M)
    p = batched_starts(batches, o, aligned=True)
    rep = check_schedule(Instance.at_zero(s, o, M), Schedule(tuple(p)))
    assert rep.valid and rep.tel == tel


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_sets(max_n=7), st.sampled_from(CONSTRAINTS))
def test_proof_chain_schedules_valid_and_telescoping(inst, constraint):
    s, o, M = inst
    instance = Instance.at_zero(s, o, M)
    pol = sorted_f(phase1_constraint=constraint)
    res = simulate(instance, pol)
    opt = res.tel  # any positive reference value makes the telescoping identity checkable
    c = proof_chain(instance, pol.batches, res.tel, opt)
    assert c["group"] <= c["align"]  # aligning only delays batches
    assert c["Optimal_align"] <= c["align"]  # align is one aligned batched schedule
    prod = np.prod([c[num] / c[den] for _, num, den, _ in CHAIN_LINKS])
    assert prod == pytest.approx(res.tel / opt)


def test_optimal_aligned_limits():
    with pytest.raises(ValueError, match="n <= 3"):
        optimal_aligned([1] * 4, [1] * 4, 10, max_n=3)
    with pytest.raises(ValueError, match="does not fit"):
        optimal_aligned([5, 1], [6, 1], 10)


def test_lemma1_tally_covers_only_f_minimisers_and_resolves_auto():
    from kvlib.policies.wyz import LEMMA1_SELECTORS, lemma1_tally, phase1_selector

    # o = (1, 1, 5): 2 * 7 = 14 < 3 * 5 = 15, the batch violates Lemma 1; (2, 3) satisfies it
    bad, good = np.array([1, 1, 5]), np.array([2, 3])
    covered, violations, others, others_bad = lemma1_tally(
        [("exact", good), ("dp", bad), ("swap", bad), ("lp-swap", good), ("swap-ours", good)])
    assert (covered, others, others_bad) == (3, 2, 1)
    assert violations == [("dp", [1, 1, 5])]
    assert "swap" not in LEMMA1_SELECTORS and "quantile" not in LEMMA1_SELECTORS
    # auto resolves to the exact DP on a small instance; other policies are named by themselves
    assert phase1_selector("sorted-f", {}, [1, 2], [3, 4], 20) == "exact"
    assert phase1_selector("sorted-f", {"selector": "swap"}, [1, 2], [3, 4], 20) == "swap"
    assert phase1_selector("lp-swap", {}, [1, 2], [3, 4], 20) == "lp-swap"
