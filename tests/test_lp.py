"""kvlib.policies.wyz_lp: the three LP models agree where they should; the bucket approximation; bad input."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kvlib.core.checker import check_schedule
from kvlib.policies.wyz_lp import auto_time_step, compare_lp_orders, lp_order, lp_relaxation
from kvlib.core.model import Instance
from kvlib.policies import make_policy
from kvlib.core.simulate import simulate


@st.composite
def small_instances(draw):
    n = draw(st.integers(2, 7))
    M = draw(st.integers(12, 30))
    s = draw(st.lists(st.integers(1, 6), min_size=n, max_size=n))
    o = [draw(st.integers(1, M - x)) for x in s]
    a = draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    return Instance.from_arrays(a, s, o, M)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_instances(), st.integers(2, 4))
def test_models_agree(inst, step):
    H = int(inst.arrival.max() + inst.output.sum() + 2)
    v1 = {f: lp_relaxation(inst, horizon=H, time_step=1, formulation=f, solver="simplex")[0]
          for f in ("bucket", "per-time", "dense")}
    # step 1: all three are the exact relaxation
    assert v1["bucket"] == pytest.approx(v1["dense"], rel=1e-6, abs=1e-6)
    assert v1["per-time"] == pytest.approx(v1["dense"], rel=1e-6, abs=1e-6)
    # a coarser grid: running sums = dense per-time rows; both restrict the exact LP (value >=)
    vs = {f: lp_relaxation(inst, horizon=H, time_step=step, formulation=f, solver="simplex")[0]
          for f in ("bucket", "per-time", "dense")}
    assert vs["per-time"] == pytest.approx(vs["dense"], rel=1e-6, abs=1e-6)
    assert vs["dense"] >= v1["dense"] - 1e-6
    # averaging the memory rows over a bucket relaxes the grid-restricted per-time LP
    assert vs["bucket"] <= vs["dense"] + 1e-6


def test_ipm_without_crossover_gives_the_simplex_order():
    rng = np.random.default_rng(5)
    s, o = rng.integers(1, 20, 25), rng.integers(1, 40, 25)
    inst = Instance.at_zero(s, o, 120)
    r1 = lp_order(inst, time_step=2, solver="simplex")
    r2 = lp_order(inst, time_step=2, solver="ipm")
    assert sorted(r1.tolist()) == list(range(25))
    # interior point may split ties differently, never by much
    assert np.abs(r1 - r2).max() <= 3


def test_auto_time_step_respects_the_budget():
    o = np.full(500, 100)
    steps = [auto_time_step(np.zeros(500), o, 20_000, b) for b in (10**5, 10**6, 10**7)]
    assert steps[0] >= steps[1] >= steps[2] >= 1
    for D, b in zip(steps, (10**5, 10**6, 10**7)):
        assert (20_000 / D) * (o.sum() / D + 2 * 500) <= b


def test_compare_lp_orders():
    rng = np.random.default_rng(2)
    inst = Instance.at_zero(rng.integers(1, 10, 12), rng.integers(1, 25, 12), 60)
    rows = compare_lp_orders(inst, steps=[1, 5], solver="simplex")
    # step 1 of the bucket model is the exact relaxation (the optimal vertex may differ)
    assert rows[0]["approx_value"] == pytest.approx(rows[0]["exact_value"], rel=1e-7)
    assert rows[1]["step"] == 5 and rows[1]["exact_seconds"] == rows[0]["exact_seconds"]
    same = compare_lp_orders(inst, steps=[1], reference=dict(formulation="bucket", time_step=1, solver="simplex"),
                             solver="simplex")[0]
    assert same["kendall_tau"] == pytest.approx(1.0) and same["tel_change_sorted_lp"] == 0.0
    assert same["tel_change_lp_swap"] == 0.0 and same["max_rank_shift"] == 0


@pytest.mark.parametrize("name", ["sorted-lp", "lp-swap"])
def test_lp_policies_with_explicit_options(name):
    rng = np.random.default_rng(4)
    inst = Instance.at_zero(rng.integers(1, 10, 15), rng.integers(1, 30, 15), 70)
    for kw in ({"time_step": 3}, {"time_step": 1, "formulation": "per-time"}, {"max_nonzeros": 2_000}):
        res = simulate(inst, make_policy(name, **kw))
        assert check_schedule(inst, res.schedule).valid


def test_bad_lp_options_are_named():
    inst = Instance.at_zero([1, 2], [3, 4], 10)
    with pytest.raises(ValueError, match="formulation"):
        lp_relaxation(inst, formulation="nope")
    with pytest.raises(ValueError, match="time_step"):
        lp_relaxation(inst, time_step=0)
    with pytest.raises(ValueError, match="horizon"):
        lp_relaxation(inst, horizon=3, time_step=1)


def test_lp_after_other_highs_solves_with_other_thread_counts():
    # HiGHS's per-process thread pool: every kvlib solve goes through kvlib.core.highs.run, so solves
    # with different thread counts in one process must all succeed, in any order
    from kvlib.optimum.bounds import peak_conflict_bound, separation_lower_bound

    inst = Instance.at_zero([1, 2, 1, 3, 2, 1], [4, 3, 5, 2, 6, 3], 14)
    first = lp_relaxation(inst, threads=2)[0]
    separation_lower_bound(inst)
    assert peak_conflict_bound(inst, threads=1)["relaxation_solved"]
    for t in (2, 1, 2):
        assert lp_relaxation(inst, threads=t)[0] == pytest.approx(first)
    assert peak_conflict_bound(inst, threads=2)["relaxation_solved"]


# ---------------------------------------------------------------------------
# 002 Algorithms 6 and 7 as written, hand-checked (exact LP: step 1, simplex)

from kvlib.policies.wyz_lp import _policy_from_rank, lp_swap, lp_swap_phase1, sorted_lp  # noqa: E402

EXACT_LP = dict(time_step=1, formulation="per-time", solver="simplex")
F1 = Instance.at_zero([1, 3], [3, 1], 5)  # r1 = (1,3), r2 = (3,1), M = 5


def _tel(inst, pol):
    res = simulate(inst, pol)
    rep = check_schedule(inst, res.schedule)
    assert rep.valid and rep.tel == res.tel, rep.violations
    return res.tel, list(res.schedule.starts)


def test_relax_lp_by_hand_F1():
    # Relax-LP (002 eqs. (8)-(11)) on F1.  With a = x[1,0], b = x[2,0]: the row at t = 1 reads
    # 2a + 4b <= 5 (r1 holds s+1 = 2, r2 holds 4).  Objective 4 + y1 + y2 >= 4 + (1 - a) + (1 - b),
    # and a + b <= 1.75 under a, b <= 1, with equality only at a = 1, b = 3/4; putting r2's other
    # 1/4 at t = 1 is feasible (t = 2: r1 holds 3, r2 holds 4/4 = 1).  Optimum 4.25, y = (0, 1/4).
    value, x, vi, vt, _, _ = lp_relaxation(F1, **EXACT_LP)
    assert value == pytest.approx(4.25)
    y = np.bincount(vi, weights=x * vt, minlength=2)
    assert y == pytest.approx([0.0, 0.25])
    assert lp_order(F1, key="start", **EXACT_LP).tolist() == [0, 1]
    assert lp_order(F1, key="completion", **EXACT_LP).tolist() == [1, 0]  # y + o = (3, 1.25)


def test_sorted_lp_by_hand_F1():
    # Algorithm 6: order by y = [r1, r2].  t = 0: r1 starts (holds 2, 3, 4 at t = 1..3); r2 would add 4
    # at t = 1 (6 > 5) -> break; at t = 1, 2 it would make 7, 8 with r1; r1 ends at 3, r2 starts at 3.
    # Completions 3, 4: TEL 7.  Our completion order [r2, r1]: r2 at 0, r1 at 1 -> TEL 1 + 4 = 5.
    assert _tel(F1, sorted_lp(**EXACT_LP)) == (7, [0, 3])
    assert _tel(F1, make_policy("sorted-lp-completion", **EXACT_LP)) == (5, [1, 0])


def test_lp_swap_by_hand_G1():
    # Algorithm 7 on F1, y = (0, 1/4).  Iteration 1: order r1, r2; first fit takes r1 (mem 4), r2 does
    # not fit (8 > 5); swap r1 -> r2: mem 4 - 4 + 4 <= 5 and o 1 < 3 -> {r2}; no further swap.
    # Iteration 2: {r1}.  List [r2, r1]: r2 at 0, r1 at 1 -> TEL 5 (better than Sorted-LP's 7).
    pol = lp_swap(**EXACT_LP)
    assert _tel(F1, pol) == (5, [1, 0])
    assert [b.tolist() for b in pol.batches] == [[1], [0]]


def test_lp_swap_phase1_by_hand_G2():
    # Given y1 < y2 < y3; M = 6; r1 = (3,2), r2 = (1,3), r3 = (1,1), peaks 5, 4, 2.
    # Iteration 1: first fit takes r1 only (r2: 9, r3: 7); swap pass r_out = r1: r_in = r2 fits (4) but
    # o 3 > 2; r_in = r3 fits (2), o 1 < 2 -> {r3}; next pass: no non-member has o < 1.  The size stays 1
    # (Algorithm 4 cannot add r2 although {r3, r2} fits).  Iteration 2: {r1} (r2 has the larger o).
    # Iteration 3: {r2}.  List [r3, r1, r2]: r3, r1 at 0 (6 tokens at t=1, 5 at t=2); r2 blocked until
    # r1 ends at 2 (t=0: 8, t=1: 7), starts at 2, ends 5.  TEL 1 + 2 + 5 = 8.
    # Our lp-swap-ours on the same order: batches [[r3, r2], [r1]], TEL 9.
    inst = Instance.at_zero([3, 1, 1], [2, 3, 1], 6)
    rank = np.array([0, 1, 2])
    b = lp_swap_phase1(inst.prompt, inst.output, 6, rank)
    assert [x.tolist() for x in b] == [[2], [0], [1]]
    assert _tel(inst, _policy_from_rank(rank, "lp-swap", True, "paper")) == (8, [0, 2, 0])
    ours = _policy_from_rank(rank, "lp-swap-ours", True, "ours")
    assert _tel(inst, ours)[0] == 9
    assert [x.tolist() for x in ours.batches] == [[2, 1], [0]]


def test_lp_swap_start_batch_G3():
    # Given y1 < y2 < y3; M = 10; (1,1), (1,1), (1,5): first fit packs all three (2 + 2 + 6 = 10), no
    # candidate is left, so one batch {r1, r2, r3} (our best-F-prefix start would cut it to {r1, r2}).
    b = lp_swap_phase1([1, 1, 1], [1, 1, 5], 10, np.array([0, 1, 2]))
    assert [x.tolist() for x in b] == [[0, 1, 2]]
    inst = Instance.at_zero([1, 1, 1], [1, 1, 5], 10)
    ours = _policy_from_rank(np.array([0, 1, 2]), "lp-swap-ours", True, "ours")
    simulate(inst, ours)
    assert [x.tolist() for x in ours.batches] == [[0, 1], [2]]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_instances())
def test_lp_policies_follow_their_keys(inst):
    """Sorted-LP's list is ascending in y; LP-Swap's batches partition the requests, each fits the peak
    constraint, is sorted by o and has the size of its first-fit pack; all schedules pass the checker."""
    inst = Instance.at_zero(inst.prompt, inst.output, inst.memory)
    value, x, vi, vt, _, _ = lp_relaxation(inst, **EXACT_LP)
    y = np.bincount(vi, weights=x * vt, minlength=inst.n)
    rank = lp_order(inst, **EXACT_LP)
    lst = np.argsort(rank)
    assert np.all(np.diff(np.round(y[lst], 6)) >= 0)
    pol = lp_swap(**EXACT_LP)
    _tel(inst, pol)
    _tel(inst, sorted_lp(**EXACT_LP))
    s, o, M = inst.prompt, inst.output, inst.memory
    assert sorted(np.concatenate(pol.batches).tolist()) == list(range(inst.n))
    for b in pol.batches:
        assert int((s[b] + o[b]).sum()) <= M and np.all(np.diff(o[b]) >= 0)


def test_lp_variant_options_are_named():
    with pytest.raises(ValueError, match="key"):
        lp_order(F1, key="end")
    with pytest.raises(ValueError, match="peak test"):
        lp_swap(phase1_constraint="lookahead")
    with pytest.raises(ValueError, match="variant"):
        compare_lp_orders(F1, variant="nope")
    res = simulate(F1, make_policy("lp-swap-ours", phase1_constraint="lookahead"))
    assert check_schedule(F1, res.schedule).valid


def _far_apart(gap: int, n: int = 30) -> Instance:
    """n requests arriving ``gap`` rounds apart (issue #50: at 10**10 the one LP ended with HiGHS status
    'Unknown' and the CLI exited 1; a few requests took 10-40 s)."""
    import random

    r = random.Random(301)
    s = [r.randint(1, 30) for _ in range(n)]
    o = [r.randint(1, 40) for _ in range(n)]
    return Instance.from_arrays([i * gap for i in range(n)], s, o, max(x + y for x, y in zip(s, o)) + 5)


@pytest.mark.parametrize("name", ["sorted-lp", "lp-swap", "sorted-lp-completion"])
def test_lp_policies_split_at_idle_gaps_of_ten_billion_rounds(tmp_path, capsys, name):
    import json
    import time

    from kvlib.cli import main
    from kvlib.core.traces import write_instance_csv

    inst = _far_apart(10**10)
    f = tmp_path / "far.csv"
    write_instance_csv(inst, f)
    t0 = time.perf_counter()
    code = main(["simulate", str(f), "--policy", name, "--memory", str(inst.memory), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert time.perf_counter() - t0 < 20
    assert json.loads(out)["tel"] == int(inst.output.sum())  # nothing waits: every request starts on arrival


def test_idle_groups_split_only_where_the_serial_schedule_is_done():
    from kvlib.policies.wyz_lp import idle_groups

    # serial schedule: 0 runs [0, 5), 1 arrives at 3 (waits) -> [5, 7); 2 arrives at 7: a new group; 3 and 4
    # arrive together at 100 and stay together; ids in arrival order, ties by id
    groups = idle_groups([0, 3, 7, 100, 100], [5, 2, 1, 4, 4])
    assert [g.tolist() for g in groups] == [[0, 1], [2], [3, 4]]
    assert [g.tolist() for g in idle_groups([4, 0], [1, 5])] == [[1, 0]]


def test_split_lp_order_ranks_group_after_group():
    from kvlib.policies.wyz_lp import LP_SPLIT_SPAN

    # two busy periods far apart: the later one is ranked after the earlier one, each by its own LP, which
    # equals the LP of that period alone
    first = Instance.from_arrays([0, 0, 0, 1], [2, 3, 1, 2], [4, 2, 5, 3], 9)
    a = np.r_[first.arrival, first.arrival + 2 * LP_SPLIT_SPAN]
    both = Instance.from_arrays(a, np.r_[first.prompt, first.prompt], np.r_[first.output, first.output], 9)
    rank = lp_order(both)
    alone = lp_order(first)
    assert rank[:4].tolist() == alone.tolist() and rank[4:].tolist() == (alone + 4).tolist()


def test_lp_unsolved_over_a_huge_horizon_is_a_named_error(monkeypatch):
    """No idle gap to split at and HiGHS gives up: a ParameterError naming the horizon and what to do (exit 2 in
    the CLI), not the RuntimeError the CLI reports as an internal error."""
    from kvlib.core.errors import ParameterError
    from kvlib.policies import wyz_lp

    monkeypatch.setattr(wyz_lp, "_solve_highs", lambda cost, *a, **k: ("Unknown", 0.0, np.zeros(len(cost))))
    inst = Instance.from_arrays([0, 0], [1, 1], [2, 3], 10)
    with pytest.raises(ParameterError, match=r"horizon of 2,000,000 rounds was not solved \(HiGHS status 'Unknown'\)"
                       r".*--time-step"):
        lp_relaxation(inst, horizon=2_000_000, time_step=100_000)
    with pytest.raises(RuntimeError, match="LP relaxation not solved"):  # an ordinary horizon: a kvlib bug
        lp_relaxation(inst, horizon=20, time_step=1)
