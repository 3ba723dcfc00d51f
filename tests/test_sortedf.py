"""Sorted-F family of 002: DP = brute force, Lemma 1, valid schedules, CLI."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kvlib import Instance, Schedule, check_schedule, make_policy, simulate
from kvlib.cli import main
from kvlib.policies.wyz_lp import tiny_optimum
from kvlib.policies.wyz import (
    CONSTRAINTS,
    F_exact,
    batch_feasible,
    brute_force_argmin,
    dp_argmin,
    lemma1_holds,
    phase1,
    scaled_dp_argmin,
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
    return (F_exact(o), -len(o))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_sets(), st.sampled_from(CONSTRAINTS))
def test_dp_equals_brute_force(inst, constraint):
    s, o, M = inst
    X = dp_argmin(s, o, M, constraint)
    Y = brute_force_argmin(s, o, M, constraint)
    assert batch_feasible(s[X], o[X], M, constraint)
    assert _key(o[X]) == _key(o[Y])


@settings(max_examples=80, deadline=None)
@given(small_sets(), st.sampled_from(CONSTRAINTS), st.floats(0.01, 0.3))
def test_heuristic_selectors_feasible_and_not_better_than_exact(inst, constraint, eps):
    s, o, M = inst
    best = _key(o[dp_argmin(s, o, M, constraint)])
    for X in (scaled_dp_argmin(s, o, M, constraint, epsilon=eps), swap_argmin(s, o, M, constraint)):
        assert len(X) >= 1 and batch_feasible(s[X], o[X], M, constraint)
        assert _key(o[X]) >= best


@settings(max_examples=80, deadline=None)
@given(small_sets(max_n=12), st.sampled_from(CONSTRAINTS), st.sampled_from(["dp", "swap"]))
def test_lemma1_every_phase1_batch(inst, constraint, selector):
    """002 Lemma 1: every batch of an exact (or removal-stable) Phase 1 has mean o > max o / 2."""
    s, o, M = inst
    batches = phase1(s, o, M, selector, constraint)
    assert sorted(np.concatenate(batches).tolist()) == list(range(len(s)))
    for b in batches:
        assert lemma1_holds(o[b])
        assert batch_feasible(s[b], o[b], M, constraint)


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
    ("sorted-f", {"selector": "scaled-dp", "epsilon": 0.1}),
    ("sorted-f", {"selector": "swap", "phase2": "scan"}),
    ("sorted-f", {"selector": "quantile", "samples": 2}),
]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances(), st.integers(0, len(POLICY_OPTIONS) - 1))
def test_sorted_f_schedules_valid(inst, which):
    name, opts = POLICY_OPTIONS[which]
    res = simulate(inst, make_policy(name, **opts))
    rep = check_schedule(inst, res.schedule)
    assert rep.valid, rep.violations
    assert rep.tel == res.tel


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances(), st.sampled_from(["sorted-lp", "lp-swap"]))
def test_lp_policies_valid(inst, name):
    res = simulate(inst, make_policy(name))
    rep = check_schedule(inst, res.schedule)
    assert rep.valid, rep.violations


def test_example1_numbers():
    assert simulate(EXAMPLE1, make_policy("mc-sf")).tel == 64
    for name in ("sorted-f", "sorted-lp", "lp-swap"):
        assert simulate(EXAMPLE1, make_policy(name)).tel == 45
    assert tiny_optimum(EXAMPLE1)[0] == 45


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
        ["--policy", "sorted-f", "--selector", "swap", "--phase1-constraint", "lookahead"],
        ["--policy", "sorted-f", "--selector", "quantile", "--samples", "2", "--seed", "3", "--phase2", "scan"],
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
    for name in ("sorted-f", "sorted-lp", "lp-swap"):
        assert name in out


# ---------------------------------------------------------------------------
# proof chain of 002 Theorem 3 (our reconstruction of the transformed schedules)


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
