"""The primal search of kvlib.optimum.search: every schedule checked, deterministic, exact windows."""

from __future__ import annotations

import re

import numpy as np
import pytest

from kvlib.core.checker import check_schedule
from kvlib.core.instances import uniform
from kvlib.core.model import Instance, Schedule
from kvlib.core.simulate import simulate
from kvlib.optimum.bruteforce import brute_force_opt
from kvlib.optimum.search import SEED_POLICIES, ListScheduler, primal_search, window_reoptimise
from kvlib.policies import make_policy


def _inst(seed, n=8, M=12, arrival_max=6):
    return uniform(np.random.default_rng(seed), n, M, prompt_max=3, output_max=6, arrival_max=arrival_max)


def _naive_place(inst, starts, placed, i):
    """Earliest start of ``i`` at or after its arrival that the checker accepts with ``placed`` (reference)."""
    sub = list(placed) + [i]
    small = Instance(tuple((int(inst.arrival[j]), int(inst.prompt[j]), int(inst.output[j])) for j in sub),
                     inst.memory)
    p = int(inst.arrival[i])
    while True:
        st = [int(starts[j]) for j in placed] + [p]
        if check_schedule(small, Schedule(tuple(st))).valid:
            return p
        p += 1


@pytest.mark.parametrize("seed", range(6))
def test_the_list_scheduler_places_each_request_at_its_earliest_feasible_start(seed):
    inst = _inst(seed, n=9, M=10)
    order = list(np.random.default_rng(seed).permutation(inst.n))
    starts, tel = ListScheduler(inst).decode(order)
    rep = check_schedule(inst, Schedule(tuple(int(x) for x in starts)))
    assert rep.valid and rep.tel == tel
    for k, i in enumerate(order):
        assert starts[i] == _naive_place(inst, starts, order[:k], i), (seed, k, i)


def test_incremental_decoding_equals_decoding_from_scratch():
    inst = _inst(11, n=12, M=14)
    ls = ListScheduler(inst)
    order = list(range(inst.n))
    snaps = []
    starts = np.zeros(inst.n, dtype=np.int64)
    ls.decode_from(order, 0, ls.empty(), starts, keep=snaps)
    new = order[:4] + [order[9]] + order[4:9] + order[10:]
    part = starts.copy()
    tel = ls.decode_from(new, 4, snaps[4], part)
    full, tel_full = ls.decode(new)
    assert tel == tel_full and list(part) == list(full)
    # a cut-off below the TEL stops the decode
    assert ls.decode_from(new, 4, snaps[4], part.copy(), cutoff=tel_full - 1) is None


@pytest.mark.parametrize("seed", range(5))
def test_a_window_over_every_request_is_exact(seed):
    inst = _inst(100 + seed, n=4, M=8, arrival_max=3)
    opt, _, _ = brute_force_opt(inst)
    mc = simulate(inst, make_policy("fcfs"), seed=0).schedule.start_array()
    hi = int(inst.arrival.max() + inst.output.sum())
    new, status = window_reoptimise(inst, mc, list(range(inst.n)), 0, hi, deterministic_time=10.0)
    if new is None:  # nothing strictly better: the policy's schedule is optimal
        assert status == "INFEASIBLE" and check_schedule(inst, Schedule(tuple(int(x) for x in mc))).tel == opt
    else:
        rep = check_schedule(inst, Schedule(tuple(int(x) for x in new)))
        assert rep.valid and rep.tel == opt


def test_the_search_beats_or_matches_every_seed_and_is_checked_and_deterministic():
    inst = _inst(7, n=25, M=20, arrival_max=10)
    a = primal_search(inst, evaluations=1500, windows=4, window=8, window_time=0.2, seed=3)
    b = primal_search(inst, evaluations=1500, windows=4, window=8, window_time=0.2, seed=3)
    assert a.stopped_by == "budget" and a.tel == b.tel and list(a.starts) == list(b.starts)
    rep = check_schedule(inst, Schedule(tuple(int(x) for x in a.starts)))
    assert rep.valid and rep.tel == a.tel
    for name in SEED_POLICIES:
        assert a.tel <= simulate(inst, make_policy(name), seed=0).tel
    assert a.tel <= a.seed_tel and [h[1] for h in a.history] == sorted((h[1] for h in a.history), reverse=True)


def test_the_search_finds_the_optimum_of_small_instances():
    found = 0
    for seed in range(8):
        inst = _inst(200 + seed, n=6, M=9, arrival_max=3)
        opt, _, _ = brute_force_opt(inst)
        r = primal_search(inst, evaluations=800, windows=6, window=6, window_time=0.5)
        assert r.tel >= opt
        found += r.tel == opt
    assert found >= 7, found


def test_the_wall_clock_limit_is_kept_and_patience_stops_early():
    inst = _inst(5, n=40, M=20, arrival_max=5)
    r = primal_search(inst, evaluations=None, windows=None, time_limit=1.0)
    assert r.stopped_by == "time limit" and r.seconds < 2.0
    tiny = Instance(((0, 1, 2), (0, 1, 2)), 6)
    r = primal_search(tiny, evaluations=None, windows=None, time_limit=30.0, patience=2)
    assert r.stopped_by == "patience" and r.seconds < 10 and r.tel == 4


def test_one_request_and_given_incumbents():
    one = Instance(((3, 2, 4),), 8)
    r = primal_search(one, evaluations=10, windows=1)
    assert r.tel == 4 and list(r.starts) == [3]
    inst = _inst(9, n=6, M=10)
    poor = int(inst.arrival.max()) + np.concatenate([[0], np.cumsum(inst.output)[:-1]])  # one at a time
    r = primal_search(inst, evaluations=50, windows=0, incumbent=poor)
    assert r.tel < int(np.sum(poor + inst.output - inst.arrival))
    clash = np.zeros(inst.n, dtype=np.int64) + 10**6  # all at once: over the memory limit
    with pytest.raises(ValueError, match="not a feasible schedule"):
        primal_search(inst, evaluations=50, windows=0, incumbent=clash)
    with pytest.raises(ValueError, match="not a feasible schedule"):
        primal_search(inst, evaluations=50, windows=0, incumbent=[0])  # one start for six requests
    with pytest.raises(ValueError, match="one integer start per request"):
        primal_search(inst, evaluations=50, windows=0, incumbent=["soon"] * inst.n)


@pytest.mark.parametrize("kw, words", [
    (dict(evaluations=None, windows=None), "time_limit"),
    (dict(evaluations=None, windows=3), "both None"),
    (dict(evaluations=-1, windows=3), ">= 0"),
    (dict(evaluations=10, windows=3, window=0), "window must be"),
    (dict(evaluations=10, windows=3, patience=0), "patience"),
])
def test_bad_arguments_are_named(kw, words):
    with pytest.raises(ValueError, match=words):
        primal_search(Instance(((0, 1, 1),), 4), **kw)


# --- the Section 5.1 search table, its combination with the pipeline's intervals, the verdicts ---

def _pipeline_rows():
    import pandas as pd

    from kvlib.book.section51_trials import trial_instance
    from kvlib.book.rows import instance_hash

    rows = []
    for model in (1, 2):
        for trial in range(2):
            inst = trial_instance(model, trial, 0, (6, 8), (5, 7))
            mc = int(simulate(inst, make_policy("mc-sf"), seed=0).tel)
            rows.append(dict(trial=trial, model=model, seed=0, n_range="[6,8]", horizon_range="[5,7]",
                             instance=instance_hash(inst), mcsf=mc, lower=int(0.8 * mc), upper=mc + 5))
    return pd.DataFrame(rows)


def test_search_rows_combine_with_the_pipeline_and_are_rechecked():
    import pandas as pd

    from kvlib.book.chapters.hindsight.search import search_trial
    from kvlib.book.section51_trials import combine_with_pipeline

    pipe = _pipeline_rows()
    search = pd.DataFrame([dict(trial=int(r.trial), model=int(r.model),
                                **search_trial(model=int(r.model), trial=int(r.trial), seed=0, n_range=[6, 8],
                                               horizon_range=[5, 7], evaluations=200, windows=2))
                           for r in pipe.itertuples()])
    df = combine_with_pipeline(pipe, search)
    assert (df.upper == np.minimum(pipe.upper, search.search)).all() and (df.lower == pipe.lower).all()
    assert set(df.upper_from) <= {"search", "pipeline"}
    # a row of another instance, a missing row, a schedule whose TEL was edited: named errors
    bad = search.copy()
    bad.loc[0, "instance"] = "0" * 16
    with pytest.raises(ValueError, match="model 1 trial 0: the search row is for another instance"):
        combine_with_pipeline(pipe, bad)
    with pytest.raises(ValueError, match="no search row for arrival model 2 trial 1"):
        combine_with_pipeline(pipe, search.iloc[:-1])
    bad = search.copy()
    bad.loc[1, "search"] = int(bad.loc[1, "search"]) - 1
    with pytest.raises(ValueError, match="stored search schedule is rejected by the checker or its TEL"):
        combine_with_pipeline(pipe, bad)


def test_verdicts_place_the_paper_against_the_certified_interval_and_sampling():
    import pandas as pd

    from kvlib.book.section51_verdict import intervals, mission_verdict, verdicts

    rng = np.random.default_rng(0)
    n = 200

    def rows(model, lo_ratio, width):
        mc = np.full(n, 1000)
        up = (mc / (lo_ratio + rng.normal(0, 0.01, n))).astype(int)
        return pd.DataFrame(dict(model=model, mcsf=mc, upper=up, lower=(up * (1 - width)).astype(int)))

    # AM2's paper average 1.047 far below lower ends around 1.08: refuted beyond sampling
    v = verdicts(intervals(rows("AM2", 1.08, 0.2)), "AM2")
    assert v["average_refuted"] and v["p_avg"] < 1e-4 and v["average"].startswith("below our certified interval")
    assert mission_verdict(intervals(rows("AM2", 1.08, 0.2)), "AM2")[0] == "differs: erratum"
    # just below the lower end, within sampling error: below, but not refuted
    v = verdicts(intervals(rows("AM2", 1.0485, 0.2)), "AM2")
    assert v["average"].startswith("below") and not v["average_refuted"] and "not refuted" in v["average"]
    # inside: consistent
    res = intervals(rows("AM2", 1.02, 0.2))
    v = verdicts(res, "AM2")
    assert v["average"].startswith("inside") and mission_verdict(res, "AM2")[0] == "not checked"
    assert "between" in v["matches"] and "reports no count" in v["matches"]
    with pytest.raises(ValueError, match="no rows for arrival model 'AM3'"):
        verdicts(res, "AM3")


def test_the_stored_verdicts_agree_with_the_mission_table():
    """The mission table's rows for 001 Section 5.1 take their status from the stored tables, and the
    status written in book/mission.yml agrees with it."""
    from pathlib import Path

    from kvlib.book import mission

    root = Path(__file__).resolve().parents[1]
    if not (root / "results/hindsight/section51_search.csv").exists():
        pytest.skip("no stored search table")
    rows = mission.load(root / "book/mission.yml")
    assert {r.verdict for r in rows if r.verdict} == set(mission.VERDICTS)
    applied, changed = mission.apply_verdicts(rows, root)
    assert changed == []
    assert [r.status for r in applied] == [r.status for r in rows]


def test_a_mission_verdict_key_is_checked():
    from kvlib.book import mission

    base = dict(paper="001", item="x", chapter="hindsight", status="not checked", note="n")
    with pytest.raises(mission.MissionError, match="unknown verdict 'section52'"):
        mission.validate([dict(base, verdict="section52")], {"hindsight": "H"})
    assert mission.validate([dict(base, verdict="section51-am2")], {"hindsight": "H"})[0].verdict == "section51-am2"


def test_kvlib_solve_runs_the_primal_search_as_the_pipelines_upper_bound_step(tmp_path):
    import subprocess
    import sys

    f = tmp_path / "r.csv"
    f.write_text("arrival,prompt,output\n0,2,3\n1,1,4\n0,2,3\n2,1,2\n")
    r = subprocess.run([sys.executable, "-m", "kvlib.cli", "solve", str(f), "-M", "8", "--time-limit", "20", "--verbose"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "upper bound   18" in r.stdout
    assert re.search(r"primal search: 18 \(\S.*, \d+ lists, [0-9.]+ s\)", r.stderr), r.stderr
    r = subprocess.run([sys.executable, "-m", "kvlib.cli", "solve", str(f), "-M", "8", "--search", "0", "--verbose"],
                       capture_output=True, text=True)
    assert r.returncode == 0 and "primal search" not in r.stdout + r.stderr
    r = subprocess.run([sys.executable, "-m", "kvlib.cli", "solve", str(f), "-M", "8", "--search", "1.5"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "--search" in r.stderr


def test_the_benchmark_runs_and_summarises(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    out = tmp_path / "b.jsonl"
    r = subprocess.run([sys.executable, str(root / "benchmarks/primal_search.py"), "--out", str(out),
                        "--small-sizes", "10", "--small-per-size", "1", "--small-limit", "0.5", "--paper-trials", "1",
                        "--long-trials", "0", "--limits", "0.5,1", "--methods", "search"],
                       capture_output=True, text=True, cwd=root)
    assert r.returncode == 0, r.stderr[-2000:]
    lines = out.read_text().splitlines()
    assert len(lines) == 4  # 2 small (one per model) + 2 paper (one per model at 0.5 s)
    assert "Proved optima" in r.stdout and "Paper size" in r.stdout
    again = subprocess.run([sys.executable, str(root / "benchmarks/primal_search.py"), "--out", str(out),
                            "--small-sizes", "10", "--small-per-size", "1", "--small-limit", "0.5",
                            "--paper-trials", "1", "--long-trials", "0", "--limits", "0.5,1", "--methods", "search"],
                           capture_output=True, text=True, cwd=root)
    assert again.returncode == 0 and len(out.read_text().splitlines()) == 4  # resumable: nothing re-run
