"""Interval-prediction policies of 003 (kvlib.policies.cyz) and the Rayleigh-quotient matrices (kvlib.theory.rayleigh)."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kvlib.core.checker import check_schedule
from kvlib.cli import main
from kvlib.policies.cyz import INTERVAL_POLICIES, check_intervals, interval_instance, run_interval
from kvlib.core.model import InstanceError
from kvlib.policies import POLICIES


@st.composite
def interval_instances(draw):
    n = draw(st.integers(1, 14))
    s = draw(st.integers(0, 3))
    lo = draw(st.lists(st.integers(1, 6), min_size=n, max_size=n))
    width = draw(st.lists(st.integers(0, 6), min_size=n, max_size=n))
    up = [a + w for a, w in zip(lo, width)]
    o = [draw(st.integers(a, b)) for a, b in zip(lo, up)]
    M = draw(st.integers(max(s + b for b in up), max(s + b for b in up) + 25))
    inst = interval_instance(o, M, s, allow_zero_prompt=True)
    return inst, np.array(lo), np.array(up)


@settings(max_examples=60, deadline=None)
@given(interval_instances(), st.integers(0, 3))
def test_every_interval_policy_is_valid(data, seed):
    inst, lo, up = data
    for name in INTERVAL_POLICIES:
        res = run_interval(inst, name, lo, up, seed=seed)
        rep = check_schedule(inst, res.schedule, allow_cancellation=True)
        assert rep.valid, (name, rep.violations)
        assert rep.tel == res.tel
        assert rep.peak_memory <= inst.memory
        if name in ("h-sf", "a-max"):
            assert res.evictions == 0


def test_amin_memory_never_above_M_on_large_instance():
    rng = np.random.default_rng(3)
    o = rng.integers(1, 30, size=400)
    inst = interval_instance(o, 150, 2)
    res = run_interval(inst, "a-min", 1, 30, seed=1)
    rep = check_schedule(inst, res.schedule, allow_cancellation=True)
    assert rep.valid and rep.peak_memory <= 150
    assert res.evictions > 0  # the cancellation path is exercised


def test_example1_tels():
    # 003 Section 3.2, Example 1: n = 5, s = 1, o = 1, interval [1, 4], M = 10
    inst = interval_instance([1] * 5, 10, 1)
    assert run_interval(inst, "h-sf", 1, 4).tel == 5
    assert run_interval(inst, "a-max", 1, 4).tel == 9
    assert run_interval(inst, "a-min", 1, 4).tel == 5


def test_zero_prompt_needs_explicit_option():
    with pytest.raises(InstanceError):
        interval_instance([1, 2], 10, 0)
    inst = interval_instance([1, 2], 10, 0, allow_zero_prompt=True)
    assert inst.prompt.tolist() == [0, 0]
    with pytest.raises(InstanceError):
        interval_instance([11], 10, 0, allow_zero_prompt=True)


def test_check_intervals_names_the_line():
    with pytest.raises(InstanceError, match="line 7"):
        check_intervals([3, 9], [1, 1], [4, 4], lines=np.array([2, 7]), source="f.csv")


def test_registry():
    for name in INTERVAL_POLICIES:
        assert name in POLICIES
        assert POLICIES[name][0]().name == name


def test_cli_with_interval_columns(tmp_path, capsys):
    f = tmp_path / "ex1.csv"
    f.write_text("arrival,prompt,output,lower,upper\n" + "0,1,1,1,4\n" * 5)
    for name, tel in (("h-sf", 5), ("a-max", 9), ("a-min", 5)):
        assert main(["simulate", "--policy", name, "--memory", "10", "--seed", "2", str(f), "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["tel"] == tel
    bad = tmp_path / "bad.csv"
    bad.write_text("arrival,prompt,output,lower,upper\n0,1,1,1,4\n0,1,5,1,4\n")
    assert main(["simulate", "--policy", "a-min", "--memory", "10", str(bad)]) == 2
    assert "line 3" in capsys.readouterr().err
    nol = tmp_path / "nol.csv"
    nol.write_text("arrival,prompt,output\n0,1,1\n")
    assert main(["simulate", "--policy", "a-max", "--memory", "10", str(nol)]) == 2
    assert "lower" in capsys.readouterr().err


@settings(max_examples=30, deadline=None)
@given(interval_instances(), st.integers(0, 3))
def test_amin_progress_reading_is_valid(data, seed):
    from kvlib.policies.cyz import AMinProgress

    inst, lo, up = data
    res = run_interval(inst, AMinProgress(), lo, up, seed=seed)
    rep = check_schedule(inst, res.schedule, allow_cancellation=True)
    assert rep.valid and rep.tel == res.tel


def test_amin_readings_differ_on_a_two_point_instance():
    # the literal reading (eviction by stored bound) and the progress reading must not coincide
    # on a heavy-load two-point instance; both schedules are valid
    from kvlib.policies.cyz import AMinProgress

    o = np.random.default_rng(5).choice([4, 16], size=1200, p=[0.8, 0.2])
    inst = interval_instance(o, 100, 0, allow_zero_prompt=True)
    a = run_interval(inst, "a-min", 4, 16, seed=0)
    b = run_interval(inst, AMinProgress(), 4, 16, seed=0)
    for r in (a, b):
        assert check_schedule(inst, r.schedule, allow_cancellation=True).valid
    assert a.tel != b.tel


def test_amax_batch_waits_for_the_whole_batch():
    from kvlib.policies.cyz import AMaxBatch

    # s = 0, M = l u = 2 * 8: two requests per batch; a short one (o = 2) finishing early frees
    # memory that AMax reuses at once and AMaxBatch does not
    inst = interval_instance([2, 8, 2, 2, 2, 2], 16, 0, allow_zero_prompt=True)
    gaps = []
    for seed in range(3):
        a = run_interval(inst, "a-max", 2, 8, seed=seed)
        b = run_interval(inst, AMaxBatch(), 2, 8, seed=seed)
        for r in (a, b):
            assert check_schedule(inst, r.schedule).valid
        gaps.append(b.tel - a.tel)
    assert min(gaps) >= 0 and max(gaps) > 0


# --------------------------------------------------------------------------- 003's algorithms on hand-checked instances
# Convention (003 eq. (1) and 001 eq. (5), the engine's): a request started at p holds s + (t' - p) tokens
# at t' = p+1, ..., p+o and completes at p + o; TEL = sum of completion times (all arrive at 0). (003's
# eq. (3) read literally starts the count at t' = p; the errata page gives both readings where it matters.)


def _valid(inst, res, cancel=True):
    rep = check_schedule(inst, res.schedule, allow_cancellation=cancel)
    assert rep.valid and rep.tel == res.tel, rep.violations[:3]
    return res


def test_hsf_example_ec1():
    # 003 Appendix EC.1, Example EC.1: n = 4, s = 1, o = (1,2,3,4), M = 7.
    # t=0 (shortest first): o=1 -> 2 at t'=1; o=2 -> 4 at t'=1, 3 at t'=2; o=3 -> 6 at t'=1,
    #     6 at t'=2, 4 at t'=3; o=4 would need 8 at t'=1: stop.  I_0 = {1,2,3}.
    # t=1: o=4 would need 3 + 3 + 2 = 8 at t'=2.   t=2: o=4 fits (4 + 2 = 6 at t'=3, then <= 5).
    # Completions 1, 2, 3, 6: TEL 12 = the paper's "optimal input sequence" I_3 = ({1,2,3}, {}, {4}).
    inst = interval_instance([1, 2, 3, 4], 7, 1)
    for seed in range(5):
        res = _valid(inst, run_interval(inst, "h-sf", 1, 4, seed=seed), cancel=False)
        assert res.schedule.starts == (0, 0, 0, 2) and res.tel == 12


def test_amax_lookahead_packing_is_deterministic():
    # A_max (003 Algorithm 1), n = 3, s = 1, [1,3], o = (3,3,3), M = 7; every length taken as u = 3
    # (a request started at p holds 2, 3, 4 at p+1, p+2, p+3).
    # t=0: one request A (two would need 8 at t'=3).  t=1: B gives 3+2, 4+3 = 7, 4: fits; a third
    # would need 10 at t'=3.  t=2: the third needs 4 + 3 + 2 = 9 at t'=3.  t=3: A completes; C gives
    # 4 + 2 = 6 at t'=4: fits.  Starts {0, 1, 3}, TEL = 3 + 4 + 6 = 13 whatever the random sample.
    inst = interval_instance([3, 3, 3], 7, 1)
    for seed in range(20):
        res = _valid(inst, run_interval(inst, "a-max", 1, 3, seed=seed), cancel=False)
        assert sorted(res.schedule.starts) == [0, 1, 3] and res.tel == 13


def test_amax_random_sample_distribution():
    # A_max, n = 3, s = 1, [1,3], o = (1,3,3), M = 8: m_0 = 2 (two requests peak at 4 + 4 = 8).
    # The uniform 2-subset contains the short request w.p. 2/3: it ends at 1, the other long one
    # starts at 1 (t'=3: 4 + 3 = 7), TEL = 1 + 3 + 4 = 8.  W.p. 1/3 both long ones start: the short
    # one is rejected at t = 1 (11 at t'=3) and t = 2 (10) and starts at 3: TEL = 3 + 3 + 4 = 10.
    inst = interval_instance([1, 3, 3], 8, 1)
    tels = [_valid(inst, run_interval(inst, "a-max", 1, 3, seed=s), cancel=False).tel for s in range(600)]
    assert set(tels) == {8, 10}
    # fraction of TEL 8: 2/3, binomial sd 0.019 at 600 seeds; 4 sd tolerance
    assert abs(tels.count(8) / 600 - 2 / 3) < 0.08


def test_amin_hand_instance_next_round_rejoin():
    # A_min (003 Algorithm 2), n = 3, s = 1, l = 1 ([1,4]), o = (1,4,4), M = 6.
    # t=0: all bounds 1, each new request holds 2 at t'=1: all three start (6 <= 6).
    # t=1: the short one completes (latency 1); memory at t=2: 3 + 3 = 6, no eviction.
    # t=2: memory at t=3 would be 4 + 4 = 8 > 6: the two long ones tie on bound 1, one (X) is
    #      evicted at random with 2 tokens, its bound becomes 2; it rejoins after this round.
    # t=3: survivor Y is assumed to need max(1, 3+1) = 4 (holds 5 at t'=4); X (bound 2) would add 2:
    #      7 > 6, rejected.  t=4: Y completes (latency 4); X starts, runs alone to 8 (peak 5).
    # TEL = 1 + 4 + 8 = 13, starts (0,0,4) or (0,4,0), one cancellation (X, start 0, 2 tokens).
    # (Rejoining in the same round instead gives TEL 19, so this pins our reading.)
    inst = interval_instance([1, 4, 4], 6, 1)
    seen = set()
    for seed in range(40):
        res = _valid(inst, run_interval(inst, "a-min", 1, 4, seed=seed))
        assert res.tel == 13
        x = 1 if res.schedule.starts == (0, 4, 0) else 2
        assert res.schedule.starts in ((0, 4, 0), (0, 0, 4))
        assert res.schedule.cancelled == ((x, 0, 2),)
        seen.add(res.schedule.starts)
    assert len(seen) == 2


def _a_random_tels(o, M, s, rule):
    import itertools

    from kvlib.policies.cyz import ARandom

    inst = interval_instance(o, M, s)
    out = {}
    for perm in itertools.permutations(range(len(o))):
        res = _valid(inst, run_interval(inst, ARandom(rule=rule, permutation=perm), 1, max(o)), cancel=False)
        assert res.evictions == 0
        out[perm] = res.tel
    return out


def test_a_random_exact_distribution_by_enumerating_orders():
    # 003 Algorithm 4, n = 3, s = 1, o = (1,2,3), M = 5; requests named by their length.
    # (3,2,1): "3" starts (peak 4 at t'=3); "2" would need 3 + 3 = 6 at t'=2: the prefix stops;
    #   at t = 1, 2 "2" still needs 7, 6 at t'=3; at t = 3 "3" is done, "2" and "1" start. TEL 3+5+4 = 12.
    # (2,3,1): "2" starts; "3" needs 6 at t'=2: stop.  t=1: "3" fits (5 at t'=2, 4 at t'=4), "1"
    #   would need 7 at t'=2.  t=2: "1" fits.  TEL = 2 + 4 + 3 = 9.
    # (1,3,2): "1" and "3" start (4 at t'=1); "2" would need 6 at t'=1.  t=1: "2" needs 7 at t'=3;
    #   t=2: 6; t=3: starts.  TEL = 1 + 5 + 3 = 9.   (1,2,3) and (2,1,3): TEL 7 (the H-SF schedule).
    # Uniform permutation: TEL 7, 9, 12 with probabilities 1/3, 1/2, 1/6; E = 53/6.
    tels = _a_random_tels([1, 2, 3], 5, 1, "prefix")
    by_len = {tuple(p[i] + 1 for i in range(3)): t for p, t in tels.items()}  # o_i = i + 1
    assert by_len[(3, 2, 1)] == 12 and by_len[(2, 3, 1)] == 9 and by_len[(1, 3, 2)] == 9
    assert by_len[(1, 2, 3)] == 7 and by_len[(2, 1, 3)] == 7
    dist = {v: Fraction(list(tels.values()).count(v), 6) for v in set(tels.values())}
    assert dist == {7: Fraction(1, 3), 9: Fraction(1, 2), 12: Fraction(1, 6)}
    assert sum(Fraction(v) for v in tels.values()) / 6 == Fraction(53, 6)
    # the greedy-scan reading skips a request that does not fit: (3,2,1) -> "3" and "1" at 0, TEL 9
    scan = _a_random_tels([1, 2, 3], 5, 1, "scan")
    assert sorted(scan.values()) == [7, 7, 7, 9, 9, 9]


def test_a_random_seeds_draw_uniform_permutations():
    # the registered policy draws its permutation from the seeded generator: over 1200 seeds the
    # TEL frequencies approach 1/3, 1/2, 1/6 (binomial sd <= 0.015; tolerance 4 sd)
    inst = interval_instance([1, 2, 3], 5, 1)
    tels = [_valid(inst, run_interval(inst, "a-random", 1, 3, seed=s), cancel=False).tel for s in range(1200)]
    assert set(tels) == {7, 9, 12}
    for v, p in ((7, 1 / 3), (9, 1 / 2), (12, 1 / 6)):
        assert abs(tels.count(v) / 1200 - p) < 0.06
    with pytest.raises(ValueError, match="permutation"):
        from kvlib.policies.cyz import ARandom

        run_interval(inst, ARandom(permutation=[0, 0, 1]), 1, 3)


def test_a_l_hand_instance():
    # 003 Algorithm 6, n = 4, s = 1, M = 6, l = 2, u = 4, o = (4,2,2,4), FIFO r1..r4.
    # t=0: r1 (3 at t'=2), r2 (6 at t'=2) start; r3 would need 9: the prefix stops.
    # t=1: r3 would need 3 + 3 + 2 = 8 at t'=2.
    # t=2: r2 completes.  r1 has 2 tokens, unfinished: removed, estimate 4, queue r3, r4, r1.
    #      r3 (3 at t'=4... 2, 3), r4 (4 at t'=3, 6 at t'=4) start; r1 (estimate 4) would need 9 at t'=4.
    # t=3: r1 would need 3 + 3 + 2 = 8 at t'=4.
    # t=4: r3 completes; r4 has 2 tokens: removed, estimate 4, queue r1, r4.  r1 starts (ends 8,
    #      peak 5); r4 would need 10 at t'=8.   t=5,6,7: r4 would need 9, 8, 7 at t'=8.
    # t=8: r1 completes; r4 starts, completes at 12.
    # Starts (4,0,2,8), TEL = 8 + 2 + 4 + 12 = 26, deterministic; cancellations (r1,0,2), (r4,2,2).
    inst = interval_instance([4, 2, 2, 4], 6, 1)
    for seed in range(5):
        res = _valid(inst, run_interval(inst, "a-l", 2, 4, seed=seed))
        assert res.schedule.starts == (4, 0, 2, 8) and res.tel == 26
        assert res.schedule.cancelled == ((0, 0, 2), (3, 2, 2))


def test_a_l_literal_more_than_l_tokens_overflows():
    # Reading choice of ALower: removing only after *more than* l tokens (the pseudocode's words)
    # overflows on the same instance.  t=2: r1 (estimate 2, 2 tokens) is believed finished and kept;
    # r3, r4 start; at t=3 memory is 4 + 2 + 2 = 8 > 6.
    from kvlib.core.simulate import PolicyError
    from kvlib.policies.cyz import ALower

    class Literal(ALower):
        removal_extra = 1

    inst = interval_instance([4, 2, 2, 4], 6, 1)
    with pytest.raises(PolicyError, match="memory 8 > M = 6 at t=3"):
        run_interval(inst, Literal(), 2, 4)


def test_a_l_names_a_request_that_can_never_run():
    # u = 6 with s = 1 > M - s: a promoted request could never be admitted; refused before the run (a-l cannot
    # know which requests it will promote), naming the first such request and upper (#50)
    inst = interval_instance([2, 5], 6, 1)
    with pytest.raises(ValueError, match=r"request 0: prompt \+ upper = 1 \+ 6 = 7 exceeds M = 6 \(and 1 more "
                       r"request\(s\)\).*could never be admitted"):
        run_interval(inst, "a-l", 2, 6)


def test_a_min_multi_is_algorithm5_on_disjoint_bins():
    # 003 Algorithm 5, bins [1,2] and [3,4]; n = 4, s = 1, M = 6, o = (2,1,4,3): initial bounds
    # (1,1,3,3) = the bins' left ends.
    # t=0: sorted by bound: requests 1, 2 (bound 1) then 3, 4 (bound 3) in random order; 1, 2 hold
    #      4 at t'=1; the first of 3/4 (X) fits (6 at t'=1, 4 at t'=3); the fourth would need 8.
    # t=1: request 2 completes; Y (the other of 3/4) would need 3 + 3 + 2 = 8 at t'=2.
    # t=2: request 1 completes (latency 2); Y starts (X assumed to end at 3: 4 + 2 = 6 at t'=3).
    # X = request 4 (o = 3), prob 1/2: X ends at 3, Y runs to 6: TEL 2+1+6+3 = 12, no eviction.
    # X = request 3 (o = 4): at t=3 memory at t=4 would be 5 + 3 = 8; both bounds 3, evict one:
    #   X evicted (bound 3): X restarts at 4 (Y assumed to end at 5: 4 + 2 = 6), ends 8: TEL 2+1+8+5 = 16;
    #   Y evicted (bound max(3, 1) = 3): X ends at 4, Y restarts at 4, ends 7: TEL 2+1+4+7 = 14.
    # Distribution {12: 1/2, 14: 1/4, 16: 1/4}, E = 27/2.  Identical to a-min run seed by seed.
    inst = interval_instance([2, 1, 4, 3], 6, 1)
    lo, up = np.array([1, 1, 3, 3]), np.array([2, 2, 4, 4])
    tels = []
    for seed in range(800):
        res = _valid(inst, run_interval(inst, "a-min-multi", lo, up, seed=seed))
        ref = run_interval(inst, "a-min", lo, up, seed=seed)
        assert res.schedule == ref.schedule
        tels.append(res.tel)
    assert set(tels) == {12, 14, 16}
    # binomial sd at 800 seeds <= 0.018; tolerance 4 sd
    for v, p in ((12, 0.5), (14, 0.25), (16, 0.25)):
        assert abs(tels.count(v) / 800 - p) < 0.07


def test_random_evict_variants_are_ours_and_keep_the_old_behaviour():
    # the former a-random / a-l behaviours live on under their own names (not 003's algorithms)
    from kvlib.policies.cyz import ALowerRandomEvict, AMinRandomEvict

    assert "not 003" in (AMinRandomEvict.__doc__ or "") and "not 003" in (ALowerRandomEvict.__doc__ or "")
    for name in ("a-min-random-evict", "a-l-random-evict"):
        assert "ours, not 003" in POLICIES[name][1]
    o = np.random.default_rng([7, 1]).choice([2, 8], size=300, p=[0.75, 0.25])
    inst = interval_instance(o, 60, 1)
    a = _valid(inst, run_interval(inst, "a-l-random-evict", 2, 8, seed=3))
    b = _valid(inst, run_interval(inst, "a-l", 2, 8, seed=3))
    assert a.evictions > b.evictions  # random eviction re-evicts long requests; A_l removes each long one once
    assert b.evictions == int((o == 8).sum())


# --------------------------------------------------------------------------- erratum candidates (003 Appendix EC.1)


def test_proposition_ec1_fails_on_three_requests():
    # Proposition EC.1 claims TEL(I') <= TEL(I) / beta for order-preserving, optimally packed
    # schedules under memories M and beta M.  Algorithm 4 with one fixed permutation under both
    # memories (Definition EC.3's coupling): n = 3, s = 1, o = (1,1,2), order (o=2 job, then the
    # two o=1 jobs), M = 6 vs beta M = 3.
    # M = 6: all three start at 0 (6 at t'=1, 3 at t'=2): TEL = 1 + 1 + 2 = 4.
    # M = 3: the o=2 job starts at 0; the next needs 2 + 2 = 4 at t'=1 (t=0), 3 + 2 = 5 at t'=2
    # (t=1), starts at 2; the last one starts at 3: TEL = 3 + 4 + 2 = 9 > 4 / (1/2) = 8.
    from kvlib.policies.cyz import ARandom

    big = _valid(interval_instance([1, 1, 2], 6, 1), run_interval(
        interval_instance([1, 1, 2], 6, 1), ARandom(permutation=[2, 0, 1]), 1, 2), cancel=False)
    small_inst = interval_instance([1, 1, 2], 3, 1)
    small = _valid(small_inst, run_interval(small_inst, ARandom(permutation=[2, 0, 1]), 1, 2), cancel=False)
    assert big.schedule.starts == (0, 0, 0) and big.tel == 4
    assert small.schedule.starts == (2, 3, 0) and small.tel == 9
    assert small.tel > 2 * big.tel


def _amax_mean_tel_one_at_a_time(o, M, s, lo, up, seeds=300):
    """E[TEL(A_max)] when A_max can only run one request at a time: the mean over the distinct start
    orders (each equally likely: A_max's queue order is uniform), checked to be all n! orders."""
    import math

    inst = interval_instance(o, M, s)
    by_order = {}
    for seed in range(seeds):
        res = _valid(inst, run_interval(inst, "a-max", lo, up, seed=seed), cancel=False)
        starts = np.array(res.schedule.starts)
        order = tuple(np.argsort(starts, kind="stable"))
        comp = starts[list(order)] + np.asarray(o)[list(order)]
        assert np.all(starts[list(order)][1:] == comp[:-1])  # one at a time, back to back
        by_order[order] = res.tel
    assert len(by_order) == math.factorial(len(o))
    return Fraction(sum(by_order.values()), len(by_order))


def test_theorem_ec1_part1_fails_at_finite_M_for_amax():
    # Theorem EC.1 (EC.5): the worst ratio over [l,u]^n is attained on {l,u}^n.  With A_max,
    # l = 1, u = 3, s = 1, n = 3, M = 5, A_max runs one request at a time (two would need 8 or 7 or
    # 6 > 5 at t'=3), so E[TEL] = 2 sum o; H-SF is simulated.
    # o = (1,2,3): E = 12, H-SF = 7 (t=0: o=1,2; t=1: o=3): ratio 12/7, above every o in {1,3}^3
    # (best 5/3 at (1,1,3)).
    import itertools

    def ratio(o):
        inst = interval_instance(o, 5, 1)
        h = _valid(inst, run_interval(inst, "h-sf", 1, 3), cancel=False).tel
        return _amax_mean_tel_one_at_a_time(o, 5, 1, 1, 3) / h

    inner = ratio([1, 2, 3])
    assert inner == Fraction(12, 7)
    extreme = {o: ratio(list(o)) for o in itertools.combinations_with_replacement((1, 3), 3)}
    assert max(extreme.values()) == Fraction(5, 3) == extreme[(1, 1, 3)]
    assert inner > max(extreme.values())


@pytest.mark.parametrize("name", ["a-max", "a-l"])
def test_upper_that_never_fits_is_named_before_the_run(name):
    """prompt + upper > M: a-max stalled with a PolicyError that did not name upper, a-l raised a bare
    ValueError from decide (#50); both now refuse at reset, naming the request and upper."""
    from kvlib import Instance, make_policy, simulate
    from kvlib.core.errors import ParameterError

    inst = Instance.at_zero([2, 1, 3], [3, 4, 2], 10)
    with pytest.raises(ParameterError, match=rf"^{name}: request 1: prompt \+ upper = 1 \+ 50 = 51 exceeds M = 10"):
        simulate(inst, make_policy(name), lower=[1, 1, 1], upper=[3, 50, 2], reveal_output=False)


@pytest.mark.parametrize("name", ["a-max", "a-l"])
def test_a_reused_interval_policy_object_starts_afresh(name):
    """One policy object, several runs (a failed one among them): each run equals a fresh object's."""
    from kvlib import Instance, make_policy, simulate
    from kvlib.core.errors import KvlibError

    small = Instance.at_zero([2, 1, 3], [3, 4, 2], 10)
    other = Instance.at_zero([2, 1, 3, 1], [3, 4, 2, 5], 10)
    kw = dict(lower=[1, 1, 1], upper=[3, 4, 2], reveal_output=False)
    kw4 = dict(lower=[1, 1, 1, 1], upper=[3, 4, 2, 5], reveal_output=False)
    pol = make_policy(name)
    first = simulate(small, pol, seed=3, **kw)
    with pytest.raises(KvlibError):
        simulate(small, pol, seed=3, lower=[1, 1, 1], upper=[3, 50, 2], reveal_output=False)
    assert simulate(other, pol, seed=3, **kw4).schedule == simulate(other, make_policy(name), seed=3, **kw4).schedule
    assert simulate(small, pol, seed=3, **kw).schedule == first.schedule
