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
    pipelined_y_schedule,
    random_three_partition,
    three_partition_instance,
    three_partition_schedule,
    three_partition_target,
    thm41_adversary,
    thm41_instance,
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
        inst = three_partition_instance(b, B)
        triples = find_three_partition(b, B)
        assert triples is not None
        rep = check_schedule(inst, three_partition_schedule(triples))
        assert rep.valid and rep.tel == three_partition_target(m)
        assert volume_lower_bound(inst) <= rep.tel


def test_three_partition_no_instance_exceeds_target():
    rng = np.random.default_rng(1)
    b = random_three_partition(rng, 2, 40, yes=False)
    assert find_three_partition(b, 40) is None
    inst = three_partition_instance(b, 40)
    tel, _, _ = brute_force_opt(inst)
    assert tel > three_partition_target(2)


def test_three_partition_checks_conditions():
    with pytest.raises(ValueError):
        three_partition_instance([2, 2, 2, 13, 10, 11], 20)  # 2 < B/4
    inst = three_partition_instance([2, 2, 2, 13, 10, 11], 20, strict=False)
    four_then_two = Schedule((0, 0, 0, 0, 1, 1))
    rep = check_schedule(inst, four_then_two)
    assert rep.valid and rep.tel == 8 < three_partition_target(2)


def test_partition_makespan():
    yes = partition_instance([3, 1, 1, 2, 2, 1])
    k, sch = min_rounds_unit(yes)
    assert k == 2 and check_schedule(yes, sch).makespan == 2
    no = partition_instance([5, 3, 3, 3])
    assert not has_partition([5, 3, 3, 3])
    k, sch = min_rounds_unit(no)
    assert k >= 3 and check_schedule(no, sch).valid
    with pytest.raises(ValueError):
        partition_instance([0, 1])


def test_non_preemptive_list():
    names = non_preemptive_policies()
    assert "mc-sf" in names and "alpha-greedy" not in names
