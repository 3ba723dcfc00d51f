"""The two readings of 001 Section 3's memory rule (kvlib.core.memory_rules) and Section 5.1's stored schedules."""

import shutil

import numpy as np
import pandas as pd
import pytest

from kvlib.core.checker import check_schedule
from kvlib.core.memory_rules import check_schedule_start_inclusive, inclusive_tel, shifted_instance
from kvlib.core.model import Instance, Schedule
from kvlib.core.simulate import simulate
from kvlib.policies import make_policy


def _usage_by_round(inst, starts, inclusive):
    """Memory held at every round, by the definition, one round at a time (a third implementation)."""
    horizon = max(k + o for k, o in zip(starts, inst.output)) + 1
    use = [0] * (horizon + 1)
    for k, s, o in zip(starts, inst.prompt, inst.output):
        for t in range(k if inclusive else k + 1, k + o + 1):
            use[t] += int(s) + t - k
    return use


def test_start_round_matters_on_a_two_request_instance():
    # A = (0, 1, 2) at 0 holds 2, 3 at rounds 1, 2 (and 1 at round 0 when inclusive); B = (0, 3, 1) at 2
    # holds 4 at round 3 (and 3 at round 2 when inclusive): round 2 holds 3 + 3 = 6 > 5 only when inclusive
    inst = Instance.from_arrays([0, 0], [1, 3], [2, 1], 5)
    assert check_schedule(inst, Schedule((0, 2))).valid
    rep = check_schedule_start_inclusive(inst, (0, 2))
    assert not rep.valid and "round 2" in rep.violations[0] and "memory 6" in rep.violations[0]
    assert check_schedule_start_inclusive(inst, (0, 3)).valid
    assert check_schedule_start_inclusive(inst, (0, 3)).tel == check_schedule(inst, Schedule((0, 3))).tel == 2 + 4


@pytest.mark.parametrize("seed", range(40))
def test_checker_and_reduction_agree_with_the_definition(seed):
    rng = np.random.default_rng([seed, 5])
    n = int(rng.integers(1, 6))
    M = int(rng.integers(4, 12))
    s = rng.integers(1, M, size=n)
    o = np.array([rng.integers(1, M - si + 1) for si in s])
    a = rng.integers(0, 4, size=n)
    inst = Instance.from_arrays(a, s, o, M)
    starts = tuple(int(x) for x in a + rng.integers(0, 5, size=n))
    use = _usage_by_round(inst, starts, inclusive=True)
    rep = check_schedule_start_inclusive(inst, starts)
    assert rep.valid == (max(use) <= M)
    if rep.valid:
        assert rep.peak_memory == max(use)
        assert rep.tel == sum(k + int(oi) - int(ai) for k, oi, ai in zip(starts, o, a))
    # the reduction: the same start times are start-exclusive feasible on the shifted instance exactly when
    # they are start-inclusive feasible on the original, and the total latency is n rounds larger there
    shifted = shifted_instance(inst)
    rep_shifted = check_schedule(shifted, Schedule(starts))
    assert rep_shifted.valid == rep.valid
    if rep.valid:
        assert inclusive_tel(inst, rep_shifted.tel) == rep.tel
    # a start-inclusive feasible schedule is start-exclusive feasible (never the other way round only)
    if rep.valid:
        assert check_schedule(inst, Schedule(starts)).valid


def test_checker_rejects_bad_schedules_by_name():
    inst = Instance.from_arrays([0, 3], [1, 1], [2, 2], 5)
    assert "before its arrival 3" in check_schedule_start_inclusive(inst, (0, 1)).violations[0]
    assert "3 start times for 2 requests" in check_schedule_start_inclusive(inst, (0, 3, 4)).violations[0]
    assert "not an integer" in check_schedule_start_inclusive(inst, (0, 3.5)).violations[0]
    with pytest.raises(TypeError, match="takes an Instance"):
        shifted_instance([(0, 1, 1)])


def test_mcsf_on_the_shifted_instance_is_algorithm_1_under_the_inclusive_rule():
    from kvlib.book.section51_trials import trial_instance

    changed = 0
    for k in range(6):
        inst = trial_instance(1, k, 2024)
        shifted = shifted_instance(inst)
        assert int((shifted.prompt == 0).sum()) == int((inst.prompt == 1).sum())
        r = simulate(shifted, make_policy("mc-sf"), seed=0)
        rep = check_schedule_start_inclusive(inst, r.schedule.starts)
        assert rep.valid and rep.tel == inclusive_tel(inst, r.tel)
        ex = simulate(inst, make_policy("mc-sf"), seed=0)
        changed += r.schedule.starts != ex.schedule.starts
    assert changed == 6  # the start round's tokens change MC-SF's schedule on every one of these trials


def test_inclusive_row_and_its_combination():
    from kvlib.book.chapters.hindsight.inclusive import inclusive_trial
    from kvlib.book.chapters.hindsight.rows import certified_trial
    from kvlib.book.chapters.hindsight.search import search_trial
    from kvlib.book.section51_trials import combine_inclusive, combine_with_pipeline

    key = dict(model=2, trial=3, seed=2024, n_range=(6, 8), horizon_range=(5, 7))
    incl = inclusive_trial(**key, evaluations=300, windows=1)
    pipe = certified_trial(**key, time_limit=5, threads=1)
    srch = search_trial(**key, evaluations=300, windows=1)
    stored = dict(model=2, trial=3, seed=2024, n_range="[6, 8]", horizon_range="[5, 7]")
    comb = combine_with_pipeline(pd.DataFrame([{**stored, **pipe}]), pd.DataFrame([{**stored, **srch}]))
    assert bool(comb.upper_checked.iloc[0])
    out = combine_inclusive(comb, pd.DataFrame([{**stored, **incl}]))
    row = out.iloc[0]
    assert row.lower <= row.upper <= row.mcsf  # OPT(exclusive) <= OPT(inclusive) <= MC-SF (inclusive)
    assert row.mcsf >= row.mcsf_exclusive or not row.exclusive_schedule_ok
    # a tampered stored schedule is caught, naming the trial
    bad = {**stored, **incl, "starts": " ".join("0" for _ in incl["starts"].split())}
    with pytest.raises(ValueError, match="arrival model 2 trial 3: the stored start-inclusive schedule"):
        combine_inclusive(comb, pd.DataFrame([bad]))
    bad_pipe = {**stored, **pipe, "starts": " ".join("0" for _ in pipe["starts"].split())}
    with pytest.raises(ValueError, match="arrival model 2 trial 3: the stored pipeline schedule"):
        combine_with_pipeline(pd.DataFrame([bad_pipe]), pd.DataFrame([{**stored, **srch}]))


def test_verify_results_rechecks_every_stored_section51_schedule(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    src = root / "results" / "hindsight"
    dst = tmp_path / "results" / "hindsight"
    dst.mkdir(parents=True)
    for name in ("section51", "section51_search"):
        for ext in (".csv", ".manifest.json"):
            shutil.copy(src / f"{name}{ext}", dst / f"{name}{ext}")
    from kvlib.book.section51_trials import recheck_stored

    lines = recheck_stored(tmp_path / "results")
    assert any("section51_search: 400 stored schedules re-checked" in x for x in lines)
    df = pd.read_csv(dst / "section51_search.csv")
    starts = df.starts.iloc[7].split()
    starts[0] = str(int(starts[0]) + 1000)  # a later start: still feasible, but its TEL is not the stored one
    df.loc[7, "starts"] = " ".join(starts)
    df.to_csv(dst / "section51_search.csv", index=False)
    with pytest.raises(ValueError, match=f"trial {int(df.trial.iloc[7])}: the stored search schedule"):
        recheck_stored(tmp_path / "results")
    cp = subprocess.run([sys.executable, str(root / "book" / "verify_results.py"), "--only", "hindsight",
                         "--results", str(tmp_path / "results"), "--budget", "0", "--fixed", "0", "--seeded", "0"],
                        capture_output=True, text=True)
    assert cp.returncode == 1 and "a stored Section 5.1 schedule" in cp.stderr


def test_hindsight_page_without_the_start_inclusive_rows(tmp_path):
    """A read-only build whose store lacks the start-inclusive table says so in every sentence that would
    state its verdicts, and keeps every glue key the pages use."""
    from types import SimpleNamespace

    from kvlib.book.chapters.hindsight import page

    assert page.inclusive_available(SimpleNamespace(policy="off", chapter="hindsight", root=tmp_path))
    read = SimpleNamespace(policy="read", chapter="hindsight", root=tmp_path)
    assert not page.inclusive_available(read)
    (tmp_path / "hindsight").mkdir()
    (tmp_path / "hindsight" / "section51_inclusive.csv").write_text("x\n1\n")
    (tmp_path / "hindsight" / "section51_inclusive.manifest.json").write_text('{"status": "running"}')
    assert not page.inclusive_available(read)
    (tmp_path / "hindsight" / "section51_inclusive.manifest.json").write_text('{"status": "complete"}')
    assert page.inclusive_available(read)
    res = pd.DataFrame({"model": ["AM1", "AM2"], "upper_checked": [True, False]})
    missing = page.inclusive_missing_values(res, "CMD")
    assert "1 of the 2 upper ends" in missing["hs-upper-checked"]
    assert "not computed at the paper's scale yet" in missing["hs-readings-am1"]
    assert missing["hs-incl-label"] == "not stored; CMD computes them"
    # the same keys as when the rows are there (the pages glue every one of them)
    rows = _tiny_section51_rows()
    full = page.section51_rows(rows["p"], rows["s"])
    assert set(page.inclusive_values(full, rows["i"], "L")) == set(missing)


def _tiny_section51_rows() -> dict:
    """One tiny Section 5.1 trial per arrival model, as the three stored tables hold it: the pipeline's rows
    (``p``), the primal search's (``s``) and the start-inclusive ones (``i``)."""
    from kvlib.book.chapters.hindsight.inclusive import inclusive_trial
    from kvlib.book.chapters.hindsight.rows import certified_trial
    from kvlib.book.chapters.hindsight.search import search_trial

    rows = {"p": [], "s": [], "i": []}
    for m in (1, 2):
        key = dict(model=m, trial=0, seed=0, n_range=(6, 7), horizon_range=(5, 6))
        st = dict(model=m, trial=0, seed=0, n_range="[6, 7]", horizon_range="[5, 6]")
        rows["p"].append({**st, **certified_trial(**key, time_limit=3, threads=1)})
        rows["s"].append({**st, **search_trial(**key, evaluations=100, windows=1)})
        rows["i"].append({**st, **inclusive_trial(**key, evaluations=100, windows=1)})
    return {k: pd.DataFrame(v) for k, v in rows.items()}


def test_the_mission_table_states_the_verdict_under_both_readings(tmp_path):
    """The status page's rows for 001 Section 5.1 end with a computed sentence on the memory rule's two
    readings: "not computed yet" while the start-inclusive table is not stored complete, then the same
    sentence as the hindsight page's."""
    from kvlib.book import mission
    from kvlib.book.chapters.hindsight import page

    rows = _tiny_section51_rows()
    base = tmp_path / "results" / "hindsight"
    base.mkdir(parents=True)
    rows["p"].to_csv(base / "section51.csv", index=False)
    rows["s"].to_csv(base / "section51_search.csv", index=False)
    written = mission.load()
    ours = [r for r in written if r.verdict]
    assert len(ours) == 2
    applied, _ = mission.apply_verdicts(written, tmp_path)
    for r in (r for r in applied if r.verdict):
        assert r.note.endswith("the verdict under the start-inclusive reading is not computed yet.")
    rows["i"].to_csv(base / "section51_inclusive.csv", index=False)
    (base / "section51_inclusive.manifest.json").write_text('{"status": "running"}')
    applied, _ = mission.apply_verdicts(written, tmp_path)
    assert all(r.note.endswith("not computed yet.") for r in applied if r.verdict)
    (base / "section51_inclusive.manifest.json").write_text('{"status": "complete"}')
    applied, _ = mission.apply_verdicts(written, tmp_path)
    values = page.inclusive_values(page.section51_rows(rows["p"], rows["s"]), rows["i"], "L")
    for before, r in zip(written, applied):
        if not r.verdict:
            assert r.note == before.note
            continue
        key = "hs-readings-" + mission.VERDICTS[r.verdict].lower()
        assert r.note.startswith(before.note) and r.note.endswith(values[key] + ".")
        assert "001 Section 3 reads two ways" in r.note
        assert "From the stored rows: the paper's average (" in r.note and "exact matches: " in r.note
