"""The specialised MC-SF simulation (kvlib.policies.fast_mcsf) against the generic engine (kvlib.core.simulate
with mc_sf) and the plain reference engine (kvlib.core.reference): identical start times, TEL, makespan, peak
memory and decision rounds on seeded random instances of many shapes (all at zero, ties, idle gaps, waiting
requests, a tight M, outputs capped at M - s, both tie-breaks), on hypothesis-drawn instances, on the
instance families the stored tables run MC-SF on, and on the LMSYS-like workload of benchmarks/simulator.py;
every schedule through the independent checker; bad input and the command line's --engine option."""

from __future__ import annotations

import json
from pathlib import Path

from _helpers import load_module

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kvlib.policies.fast_mcsf as fast_mcsf
from kvlib import Instance, Request, check_schedule, simulate
from kvlib.cli import main
from kvlib.core.errors import ParameterError, ScheduleError, SimulationStalled
from kvlib.core.instances import section51, uniform
from kvlib.core.model import MAX_VALUE, peak_memory
from kvlib.core.reference import simulate_reference
from kvlib.policies.fast_mcsf import simulate_mcsf_fast
from kvlib.policies.jaillet import fcfs, mc_sf

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
if not SHARED.exists():
    SHARED = Path("/work/shared/data")


def assert_same(inst: Instance, tie_break: str = "index", seed: int = 0, reference: bool = True) -> None:
    """The fast path's result equals the generic engine's in every field but the timing, the reference
    engine's schedule, and the checker's reading of it."""
    fast = simulate_mcsf_fast(inst, tie_break=tie_break, seed=seed)
    gen = simulate(inst, mc_sf(tie_break), seed=seed)
    what = (tie_break, seed, inst.n, inst.memory)
    assert fast.schedule == gen.schedule, what
    for field in ("policy", "tel", "avg_latency", "makespan", "peak_memory", "rounds_decided", "evictions"):
        assert getattr(fast, field) == getattr(gen, field), (field, what)
    if reference:
        ref, _ = simulate_reference(inst, mc_sf(tie_break), seed=seed)
        assert fast.schedule == ref, what
    rep = check_schedule(inst, fast.schedule)
    assert rep.valid, (what, rep.violations[:2])
    assert rep.tel == fast.tel and rep.peak_memory == fast.peak_memory == peak_memory(inst, fast.schedule), what


def _shape(rng: np.random.Generator, kind: str) -> Instance:
    """One seeded random instance of a named shape (small M so that runs overlap and requests wait)."""
    n = int(rng.integers(1, 45))
    M = int(rng.integers(2, 70))
    s = rng.integers(1, M, n)
    o = np.minimum(rng.integers(1, M, n), M - s)  # outputs capped at M - s
    if kind == "zero":
        a = np.zeros(n, dtype=np.int64)
    elif kind == "ties":  # few distinct arrivals, outputs and prompts: many equal keys
        a = rng.integers(0, 4, n)
        o = np.minimum(rng.integers(1, 4, n), M - s)
    elif kind == "gaps":  # bursts separated by idle gaps
        a = rng.integers(0, 6, n) * int(rng.integers(1, 200))
    elif kind == "tight":  # s + o at or near M: eq. (5) binds at nearly every test
        s = rng.integers(1, max(2, M // 3), n)
        o = np.maximum(1, M - s - rng.integers(0, 3, n))
        a = np.sort(rng.integers(0, 30, n))
    else:  # "spread": a slow stream
        a = np.sort(rng.integers(0, 400, n))
    return Instance.from_arrays(a, s, o, M)


@pytest.mark.parametrize("kind", ["zero", "ties", "gaps", "tight", "spread"])
@pytest.mark.parametrize("tie_break", ["index", "random"])
def test_same_as_the_generic_and_the_reference_engine(kind, tie_break):
    rng = np.random.default_rng([52, len(kind), len(tie_break)])
    for k in range(40):
        assert_same(_shape(rng, kind), tie_break, seed=k % 4)


def test_the_comparison_can_tell_policies_apart():
    """The equality above is not vacuous: on the same shapes FCFS (another order) gives other schedules, and a
    random tie-break with another seed gives other schedules where outputs tie."""
    rng = np.random.default_rng(7)
    insts = [_shape(rng, "ties") for _ in range(40)]
    assert any(simulate_mcsf_fast(i).schedule != simulate(i, fcfs()).schedule for i in insts)
    assert any(simulate_mcsf_fast(i, tie_break="random", seed=0).schedule
               != simulate_mcsf_fast(i, tie_break="random", seed=1).schedule for i in insts)


def test_small_windows_shift_and_skipped_rounds_are_the_engines(monkeypatch):
    """A window of a few times the largest output (shifted often, and jumped over by idle gaps), and the
    rounds skipped while the head of the queue cannot fit: both exercised, both equal to the engine's."""
    calls = {"skip": 0, "shift": 0, "far": 0}
    wake, shift = fast_mcsf._wake, fast_mcsf._Window.shift

    def counting_wake(t, *args):
        nxt = wake(t, *args)
        calls["skip"] += nxt > t + 1
        return nxt

    def counting_shift(self, new_base):
        calls["shift"] += 1
        calls["far"] += new_base - self.base >= self.L
        return shift(self, new_base)

    monkeypatch.setattr(fast_mcsf, "_MIN_WINDOW", 1)
    monkeypatch.setattr(fast_mcsf, "_wake", counting_wake)
    monkeypatch.setattr(fast_mcsf._Window, "shift", counting_shift)
    rng = np.random.default_rng(5252)
    for k in range(60):
        assert_same(_shape(rng, ["gaps", "tight", "spread", "zero"][k % 4]), ["index", "random"][k % 2], seed=k)
    assert calls["skip"] > 20 and calls["shift"] > 20 and calls["far"] > 5, calls


@st.composite
def _instances(draw, max_n=14, max_arrival=12):
    M = draw(st.integers(2, 40))
    reqs = []
    for _ in range(draw(st.integers(1, max_n))):
        s = draw(st.integers(1, M - 1))
        reqs.append(Request(draw(st.integers(0, max_arrival)), s, draw(st.integers(1, M - s))))
    return Instance(tuple(reqs), M)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(inst=_instances(), tie=st.sampled_from(["index", "random"]), seed=st.integers(0, 5))
def test_hypothesis_instances(inst, tie, seed):
    assert_same(inst, tie, seed)


def test_the_instance_families_of_the_stored_tables():
    """001 Section 5.1's trials (both arrival models), uniform draws with arrivals, 001 Theorem 4.1's
    adversary, 002 Theorem 1 / EC.1 and the heavy-short instance (all at zero, many equal requests)."""
    from kvlib.theory.adversary import heavy_short_instance, thm41_instance, wyz_ec1_instance, wyz_thm1_instance

    rng = np.random.default_rng(51)
    insts = [section51(rng, model) for model in (1, 2) for _ in range(6)]
    insts += [uniform(rng, 80, 200, prompt_max=20, output_max=60, arrival_max=40) for _ in range(3)]
    insts += [thm41_instance(M, b) for M, b in ((12, 0), (20, 3), (40, 7))]
    insts += [wyz_thm1_instance(36), wyz_ec1_instance(25), heavy_short_instance(49)]
    for k, inst in enumerate(insts):
        assert_same(inst, "index", reference=inst.n <= 400)
        assert_same(inst, "random", seed=k, reference=False)


def _lmsys(n: int) -> Instance:
    """benchmarks/simulator.py's workload (its own builder): LMSYS-like lengths, outputs capped at M - s,
    Poisson arrivals of 1.5 requests per round, M = 16,492."""
    return load_module("kvbook_simulator_benchmark", ROOT / "benchmarks" / "simulator.py")._instance(n)


def test_the_lmsys_like_workload_of_the_benchmark():
    inst = _lmsys(10_000)
    assert_same(inst, "index", reference=False)
    assert_same(inst, "random", seed=3, reference=False)
    res = simulate_mcsf_fast(inst)
    assert res.peak_memory <= 16492 and res.rounds_decided > 1000  # a loaded run: requests wait


@pytest.mark.skipif(not (SHARED / "splitwise_conv.csv").exists(), reason="needs the shared Splitwise trace")
def test_the_splitwise_trace_in_rounds():
    from kvlib.cli import default_round_seconds
    from kvlib.core.traces import convert_trace

    tr = convert_trace(SHARED / "splitwise_conv.csv", default_round_seconds())
    M = 16492
    keep = tr.prompt + 1 <= M
    inst = Instance.from_arrays(tr.arrival[keep], tr.prompt[keep], np.minimum(tr.output[keep], M - tr.prompt[keep]),
                                M)
    assert_same(inst, "index", reference=False)


def test_long_outputs_go_to_the_generic_engine(monkeypatch):
    calls = []
    monkeypatch.setattr(fast_mcsf, "MAX_FAST_OUTPUT", 5)
    monkeypatch.setattr(fast_mcsf, "simulate", lambda *a, **k: calls.append(1) or simulate(*a, **k))
    rng = np.random.default_rng(3)
    inst = _shape(rng, "tight")
    while int(inst.output.max()) <= 5:
        inst = _shape(rng, "tight")
    assert_same(inst, "random", seed=2)
    assert calls


def test_huge_time_values():
    """Arrivals near 2**53: the same schedule; a start past 2**53 is the engine's ScheduleError."""
    base = MAX_VALUE - 40
    inst = Instance.from_arrays([base, base, base + 3, base + 3], [2, 3, 1, 4], [5, 4, 6, 2], 12)
    assert_same(inst)
    late = Instance.from_arrays([MAX_VALUE, MAX_VALUE], [1, 1], [3, 3], 4)
    with pytest.raises(ScheduleError) as generic:
        simulate(late, mc_sf())
    with pytest.raises(ScheduleError) as fast:
        simulate_mcsf_fast(late)
    assert str(fast.value) == str(generic.value) and "2**53" in str(fast.value)


def test_round_limit_is_the_engines():
    """Every limit below the run's rounds stops both at the same round with the same message (times, counts)."""
    inst = Instance.from_arrays([0, 0, 0, 0, 5, 9], [2, 2, 2, 2, 1, 3], [30, 30, 30, 30, 4, 2], 40)
    rounds = simulate(inst, mc_sf()).rounds_decided
    assert rounds >= 4
    for limit in range(1, rounds):
        with pytest.raises(SimulationStalled) as generic:
            simulate(inst, mc_sf(), max_rounds=limit)
        with pytest.raises(SimulationStalled) as fast:
            simulate_mcsf_fast(inst, max_rounds=limit)
        assert str(fast.value) == str(generic.value)
    assert simulate_mcsf_fast(inst, max_rounds=rounds).rounds_decided == rounds


def test_bad_input_names_the_culprit():
    inst = Instance.from_arrays([0, 1], [1, 2], [3, 1], 8)
    with pytest.raises(ValueError, match="tie_break"):
        simulate_mcsf_fast(inst, tie_break="fifo")
    with pytest.raises(ParameterError, match="instance"):
        simulate_mcsf_fast([(0, 1, 3)])
    with pytest.raises(ParameterError, match="seed"):
        simulate_mcsf_fast(inst, seed=-1)
    with pytest.raises(ParameterError, match="max_rounds"):
        simulate_mcsf_fast(inst, max_rounds=0)
    for bad in ({"known_output": [3, 1]}, {"lower": [1, 1], "upper": [3, 1]}, {"reveal_output": False},
                {"stall_rounds": 100}, {"record_decision_times": True}):
        with pytest.raises(ParameterError, match=f"does not take {next(iter(bad))}"):
            simulate_mcsf_fast(inst, **bad)  # the generic engine's options: refused, never ignored


def test_progress_is_told_every_request_once():
    seen = []
    inst = _shape(np.random.default_rng(1), "spread")
    simulate_mcsf_fast(inst, progress=seen.append)
    assert seen == [inst.n]


# ------------------------------------------------------------------ the command line


SMALL = "arrival,prompt,output\n0,2,3\n0,1,4\n1,3,2\n2,1,1\n3,4,3\n3,2,2\n"


def _cli(capsys, argv):
    code = main(argv)
    cap = capsys.readouterr()
    return code, cap.out, cap.err


@pytest.mark.parametrize("tie", [None, "random"])
def test_cli_engine_fast_prints_what_the_generic_engine_prints(tmp_path, capsys, tie):
    f = tmp_path / "req.csv"
    f.write_text(SMALL)
    argv = ["simulate", str(f), "--memory", "9", "--policy", "mc-sf", "--seed", "3"]
    argv += ["--tie-break", tie] if tie else []
    code_g, out_g, _ = _cli(capsys, argv + ["--json"])
    code_f, out_f, _ = _cli(capsys, argv + ["--json", "--engine", "fast"])
    assert code_g == code_f == 0
    assert json.loads(out_f) == json.loads(out_g)
    code_t, out_t, _ = _cli(capsys, argv + ["--engine", "fast"])
    assert code_t == 0 and "checker       schedule valid" in out_t


def test_cli_engine_fast_refuses_what_it_does_not_run(tmp_path, capsys):
    f = tmp_path / "req.csv"
    f.write_text(SMALL)
    code, out, err = _cli(capsys, ["simulate", str(f), "--memory", "9", "--policy", "fcfs", "--engine", "fast"])
    assert code == 2 and out == "" and "--engine fast runs only --policy mc-sf" in err
    code, out, err = _cli(capsys, ["simulate", str(f), "--memory", "9", "--policy", "mc-sf", "--engine", "fast",
                                   "--stall-rounds", "5"])
    assert code == 2 and "--stall-rounds does not apply to --engine fast" in err
    code, out, err = _cli(capsys, ["simulate", str(f), "--memory", "9", "--policy", "mc-sf", "--engine", "fast",
                                   "--max-rounds", "1"])
    assert code == 4 and "more than 1 decision rounds" in err
