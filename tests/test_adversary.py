"""Tests of the lower-bound families and adversaries (kvlib.theory.adversary)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from kvlib.theory.adversary import (
    find_three_partition,
    has_partition,
    heavy_short_instance,
    min_rounds_unit,
    non_preemptive_policies,
    partition_instance,
    partition_instance_ours,
    pipelined_y_schedule,
    random_three_partition,
    three_partition_instance,
    three_partition_instance_ours,
    three_partition_schedule,
    three_partition_target,
    thm41_adversary,
    thm41_displays,
    thm41_instance,
    thm41_min_alg_tel,
    thm41_paper_check,
    thm41_paper_opt_schedule,
    thm41_opt_schedules,
    thm41_opt_upper,
    thm41_release,
    thm41_tel_formula,
    wyz_ec1_instance,
    wyz_thm1_instance,
    wyz_thm1_mcsf_tel,
)
from kvlib.optimum.bounds import volume_lower_bound
from kvlib.optimum.bruteforce import brute_force_opt
from kvlib.core.checker import check_schedule
from kvlib.core.model import Schedule
from kvlib.policies import make_policy
from kvlib.core.simulate import simulate


@pytest.mark.parametrize("M", [16, 36, 64, 50])
def test_thm41_instance_sizes(M):
    inst = thm41_instance(M, b=3)
    assert inst.n == 1 + M // 2
    assert (inst.prompt[0], inst.output[0], inst.arrival[0]) == (1, M - 1, 0)
    assert np.all(inst.prompt[1:] == 1) and np.all(inst.output[1:] == 1)
    assert np.all(inst.arrival[1:] == 3 + M - math.isqrt(M) // 2)
    assert thm41_release(M, 3) == 3 + M - math.isqrt(M) // 2


@pytest.mark.parametrize("policy", ["mc-sf", "fcfs", "mc-benchmark", "mc-sf2", "h-sf", "a-max", "sorted-f"])
def test_thm41_adversary_consistent_and_valid(policy):
    run = thm41_adversary(policy, 36)
    assert run.consistent, (run.b, run.b_full)
    assert check_schedule(run.instance, run.sim.schedule).valid
    assert run.opt_upper <= run.alg_tel
    assert run.lower <= run.opt_upper


@pytest.mark.parametrize("b", [0, 2, 5, 40])
def test_thm41_later_starts(b):
    """The engine never lets a policy idle with an empty machine, so simulated policies have b = 0;
    the construction for b > 0 is still checked: explicit schedules valid, and once the long request
    can finish before r (b >= sqrt(M)/2 - 1) "long first" costs (M - 1) + M/2."""
    M = 36
    inst = thm41_instance(M, b)
    ub, name, _ = thm41_opt_upper(inst)
    for sch in thm41_opt_schedules(inst).values():
        assert check_schedule(inst, sch).valid
    if b >= math.isqrt(M) // 2 - 1:
        assert ub == (M - 1) + M // 2


def test_engine_forbids_idling():
    from kvlib.policies import Decision, LookaheadPrefix, by_output
    from kvlib.core.simulate import PolicyError

    class Lazy(LookaheadPrefix):
        def decide(self, t, running):
            return Decision() if t < 5 else super().decide(t, running)

    with pytest.raises(PolicyError):
        thm41_adversary(lambda: Lazy(by_output, "lazy"), 36)


@pytest.mark.parametrize("M", [16, 36, 64, 100])
def test_thm41_explicit_schedules_pass_checker_and_formula(M):
    inst = thm41_instance(M, 0)
    for name, sch in thm41_opt_schedules(inst).items():
        assert check_schedule(inst, sch).valid, name
    f = thm41_tel_formula(M)
    assert simulate(inst, make_policy("mc-sf")).tel == f["alg"]
    assert check_schedule(inst, thm41_opt_schedules(inst)["short first"]).tel == f["short_first"]


def test_thm41_opt_upper_is_optimal_for_M16():
    inst = thm41_instance(16, 0)
    ub, _, _ = thm41_opt_upper(inst)
    tel, _, _ = brute_force_opt(inst, upper=ub)
    assert tel == ub == 31


@pytest.mark.parametrize("M", [9, 36])
def test_wyz_sizes_and_closed_form(M):
    m = math.isqrt(M)
    inst = wyz_thm1_instance(M)
    assert inst.n == M + M * m
    assert np.all(inst.prompt[:M] == m - 1) and np.all(inst.output[:M] == 1)
    assert np.all(inst.prompt[M:] == 1) and np.all(inst.output[M:] == 2)
    sim = simulate(inst, make_policy("mc-sf"))
    assert check_schedule(inst, sim.schedule).valid
    assert sim.tel == wyz_thm1_mcsf_tel(M)
    sch = pipelined_y_schedule(inst, range(M, inst.n), range(M))
    rep = check_schedule(inst, sch)
    assert rep.valid and volume_lower_bound(inst) <= rep.tel
    ec = wyz_ec1_instance(M)
    assert ec.n == M + M * m
    assert np.all(ec.prompt[:M] == 1) and np.all(ec.output[:M] == m - 1)
    assert np.all(ec.prompt[M:] == m) and np.all(ec.output[M:] == 1)
    assert check_schedule(ec, simulate(ec, make_policy("mc-sf2")).schedule).valid


def test_heavy_short_instance():
    inst = heavy_short_instance(16)
    assert inst.n == 4 + 16
    assert check_schedule(inst, simulate(inst, make_policy("mc-sf")).schedule).valid


def test_three_partition_yes_instance_tel():
    rng = np.random.default_rng(0)
    for m in (2, 3, 4):
        B = 40
        b = random_three_partition(rng, m, B, yes=True)
        inst = three_partition_instance_ours(b, B)
        triples = find_three_partition(b, B)
        assert triples is not None
        rep = check_schedule(inst, three_partition_schedule(triples))
        assert rep.valid and rep.tel == three_partition_target(m)
        assert volume_lower_bound(inst) <= rep.tel


def test_three_partition_no_instance_exceeds_target():
    rng = np.random.default_rng(1)
    b = random_three_partition(rng, 2, 40, yes=False)
    assert find_three_partition(b, 40) is None
    inst = three_partition_instance_ours(b, 40)
    tel, _, _ = brute_force_opt(inst)
    assert tel > three_partition_target(2)


def test_three_partition_checks_conditions():
    with pytest.raises(ValueError):
        three_partition_instance_ours([2, 2, 2, 13, 10, 11], 20)  # 2 < B/4
    with pytest.raises(ValueError, match="B/4"):
        three_partition_instance([2, 2, 2, 13, 10, 11], 20)
    inst = three_partition_instance_ours([2, 2, 2, 13, 10, 11], 20, strict=False)
    four_then_two = Schedule((0, 0, 0, 0, 1, 1))
    rep = check_schedule(inst, four_then_two)
    assert rep.valid and rep.tel == 8 < three_partition_target(2)


def test_partition_makespan():
    yes = partition_instance_ours([3, 1, 1, 2, 2, 1])
    k, sch = min_rounds_unit(yes)
    assert k == 2 and check_schedule(yes, sch).makespan == 2
    no = partition_instance_ours([5, 3, 3, 3])
    assert not has_partition([5, 3, 3, 3])
    k, sch = min_rounds_unit(no)
    assert k >= 3 and check_schedule(no, sch).valid
    with pytest.raises(ValueError):
        partition_instance_ours([0, 1])


def test_002_reductions_are_the_papers_mapping():
    """002 Appendix EC.1: item x_i -> (x_i, 1) at 0 and M = T, for both reductions."""
    x, T = [11, 13, 16, 12, 14, 14], 40
    inst = three_partition_instance(x, T)
    assert list(inst.prompt) == x and set(inst.output) == {1} and set(inst.arrival) == {0}
    assert inst.memory == T
    assert three_partition_instance_ours(x, T).memory == T + 3
    p = partition_instance([3, 1, 1, 2, 2, 1])
    assert list(p.prompt) == [3, 1, 1, 2, 2, 1] and p.memory == 5


def test_002_paper_reductions_fail_on_yes_instances():
    """With M = T a yes-instance does not reach the target: the proofs' Case 1 schedules do not fit."""
    x, T = [11, 13, 16, 12, 14, 14], 40  # triples (11, 13, 16), (12, 14, 14)
    triples = find_three_partition(x, T)
    assert triples is not None
    inst = three_partition_instance(x, T)
    assert not check_schedule(inst, three_partition_schedule(triples)).valid
    tel, _, _ = brute_force_opt(inst)
    assert tel > three_partition_target(2)
    a = [3, 1, 1, 2, 2, 1]  # halves {3, 2}, {1, 1, 2, 1}
    assert has_partition(a)
    k, _ = min_rounds_unit(partition_instance(a))
    assert k >= 3
    assert min_rounds_unit(partition_instance_ours(a))[0] == 2


def test_partition_instance_errors_name_the_culprit():
    with pytest.raises(ValueError, match=r"\[0\]"):
        partition_instance([0, 2])
    with pytest.raises(ValueError, match="even"):
        partition_instance([1, 2])
    with pytest.raises(ValueError, match=r"\[3\]"):
        partition_instance([3, 1, 2])  # T = 3: item 3 needs 4 > M


def test_non_preemptive_list():
    names = non_preemptive_policies()
    assert "mc-sf" in names and "alpha-greedy" not in names


@pytest.mark.parametrize("M", [16, 36, 64, 100, 144, 400])
@pytest.mark.parametrize("b_kind", ["zero", "h"])
def test_thm41_proof_steps(M, b_kind):
    """001 Appendix B.1 on the paper's instance: the schedule of (13) has the TEL the proof writes and
    is at most 3.5 M; any algorithm that starts the long request at b pays at least (M/4) sqrt(M)/2."""
    h = math.isqrt(M) // 2
    b = 0 if b_kind == "zero" else h
    c = thm41_paper_check(M, b)
    assert c["case"] == ("r < M" if b < h else "r >= M")
    assert c["paper_opt_tel"] == c["paper_opt_formula"] <= c["bound_13"]
    assert c["our_opt_upper"] <= c["paper_opt_tel"]
    assert c["min_alg_tel"] >= c["paper_alg_lower"]
    assert c["free"] <= c["M/4"] and c["early"] <= c["M/4"]
    assert c["ratio"] >= c["claimed"]


def test_thm41_min_alg_tel_is_the_policies_tel():
    for M in (16, 36, 64):
        inst = thm41_instance(M, 0)
        assert simulate(inst, make_policy("mc-sf")).tel == thm41_min_alg_tel(M, 0) == thm41_tel_formula(M)["alg"]
    # a later start shifts everything by b: TEL grows by exactly b
    assert thm41_min_alg_tel(64, 5) == thm41_min_alg_tel(64, 0) + 5


def test_thm41_paper_opt_schedule_cases():
    case, sch = thm41_paper_opt_schedule(thm41_instance(36, 0))
    assert case == "r < M" and sch.starts[0] == thm41_release(36, 0) + 2
    case, sch = thm41_paper_opt_schedule(thm41_instance(36, 3))
    assert case == "r >= M" and sch.starts[0] == 0


def test_thm41_displays_identities():
    import sympy as sp

    ident = [d for d in thm41_displays() if d["condition"] == "identity"]
    assert len(ident) == 4 and all(d["rhs - lhs"] == 0 for d in ident)
    M, r = sp.symbols("M r", positive=True)
    diffs = [d["rhs - lhs"] for d in thm41_displays()]
    assert diffs[0] == 2 * M + 1 and sp.simplify(diffs[1] - (M - r)) == 0 and diffs[2] == M - 1
    assert diffs[-1] == -1  # the proof restates r one round earlier
