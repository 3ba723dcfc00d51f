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
