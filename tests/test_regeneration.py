"""A full regeneration of a chapter's stored results spread over several runs (kvlib.book.regeneration,
book/run_chapters.py --fresh / --resume-regeneration), end to end on a two-table demo chapter."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from kvlib.book import regeneration

ROOT = Path(__file__).resolve().parents[1]

DEMO = textwrap.dedent('''\
    # %% tags=["parameters"]
    mode = "full"
    seed = 5

    # %%
    import os
    from kvlib.book.rows import policy_tel_row
    from kvlib.book.store import Store

    keys = [dict(policy=p, arrival_model=1, seed=seed, trial=t) for p in ("mc-sf", "fcfs") for t in range(2)]
    store = Store("demo", mode=mode, parameters={"seed": seed})
    a = store.table("a", policy_tel_row, keys[:2])
    if os.path.exists(os.environ["DEMO_INTERRUPT"]):
        raise RuntimeError("interrupted after table a")
    b = store.table("b", policy_tel_row, keys[2:])
    ''')


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture
def demo_repo(tmp_path, monkeypatch):
    # executes a notebook: needs the book extras (CI runs this file again after installing them)
    pytest.importorskip("papermill")
    pytest.importorskip("jupytext")
    repo = tmp_path / "repo"
    (repo / "notebooks").mkdir(parents=True)
    (repo / "kvlib").mkdir()
    (repo / "notebooks" / "demo.py").write_text(DEMO)
    (repo / "kvlib" / "code.py").write_text("x = 1\n")
    # stand-ins for the row function's module (kvlib.book.rows, in the tables' import closure) and its package
    (repo / "kvlib" / "book").mkdir()
    (repo / "kvlib" / "book" / "__init__.py").write_text("")
    (repo / "kvlib" / "book" / "rows.py").write_text("x = 1\n")
    _git(repo, "init", "-q")
    _git(repo, "-c", "user.email=t@t", "-c", "user.name=t", "add", ".")
    _git(repo, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "demo")
    sys.path.insert(0, str(ROOT / "book"))
    import run_chapters

    monkeypatch.setattr(run_chapters, "REPO_ROOT", repo)
    monkeypatch.setattr(run_chapters, "NOTEBOOK_DIR", repo / "notebooks")
    monkeypatch.setattr(run_chapters, "EXECUTED_DIR", repo / "chapters")
    monkeypatch.setattr(run_chapters, "MANIFEST", repo / "chapters" / "run_manifest.json")
    monkeypatch.setattr(run_chapters, "REGENERATION_HEARTBEAT_S", 0.2)
    (repo / "chapters").mkdir()
    monkeypatch.setenv("KVBOOK_RESULTS_DIR", str(repo / "results"))
    monkeypatch.setenv("DEMO_INTERRUPT", str(tmp_path / "interrupt"))
    # the kernel runs in the demo repository, whose stand-in kvlib/ (no __init__.py) would be imported as a
    # namespace package ahead of an editable install's finder; this checkout's kvlib on PYTHONPATH wins over it
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    saved = dict(os.environ)  # run_one sets the kernels' environment (TQDM_DISABLE, KVBOOK_*) in this process
    yield repo, run_chapters, tmp_path / "interrupt"
    os.environ.clear()
    os.environ.update(saved)


def _run(run_chapters, **kw):
    rec = run_chapters.run_one("demo", {"seed": 5}, "full", "/nonexistent", None, "write", **kw)
    if rec["status"] == "ok" and rec.get("tables"):
        run_chapters.write_regeneration_record(rec)
    return rec


def test_regeneration_in_two_pieces_records_the_sum_of_their_wall_times(demo_repo):
    repo, rc, interrupt = demo_repo
    results = repo / "results"
    assert _run(rc)["status"] == "ok"  # an ordinary run: stores both tables
    old_b = (results / "demo" / "b.csv").read_text()
    # a fresh regeneration, interrupted after its first table
    interrupt.write_text("")
    first = _run(rc, fresh=True)
    assert first["status"] == "failed" and first["regeneration"] == "running"
    ledger = regeneration.read_ledger(results, "demo")
    assert ledger["status"] == "running" and ledger["pieces"][0]["ended"] == "failed"
    assert ledger["pieces"][0]["wall_time_s"] > 0
    # table a was computed anew and moved over the stored one; the stored table b stays in place, untouched,
    # until its new rows exist (a failed --fresh run deletes no stored table)
    assert (results / "demo" / "a.csv").exists() and (results / "demo" / "b.csv").read_text() == old_b
    man_a = json.loads((results / "demo" / "a.manifest.json").read_text())
    assert man_a["regeneration"] == ledger["id"] and man_a["status"] == "complete"
    assert "regeneration" not in json.loads((results / "demo" / "b.manifest.json").read_text())
    assert not (results / ".staging" / "demo" / "a.csv").exists()
    # resumed: table a is reused, b computed; the regeneration is closed with two pieces
    interrupt.unlink()
    second = _run(rc, resume_regeneration=True)
    assert second["status"] == "ok", second.get("error")
    done = {t["table"]: t for t in second["tables"]}
    assert done["a"]["computed_now"] == 0 and done["b"]["computed_now"] == 2
    ledger = regeneration.read_ledger(results, "demo")
    assert ledger["status"] == "complete" and [p["ended"] for p in ledger["pieces"]] == ["failed", "complete"]
    run = json.loads((results / "demo" / "_run.json").read_text())
    full = run["full_regeneration"]
    assert full["pieces"] == 2 and full["rows"] == 4
    assert full["chapter_wall_time_s"] == pytest.approx(sum(p["wall_time_s"] for p in ledger["pieces"]), abs=0.2)
    assert full["chapter_wall_time_s"] > run["chapter_wall_time_s"]  # more than the last piece alone
    assert not (results / ".staging" / "demo").exists()
    # nothing left to resume
    again = _run(rc, resume_regeneration=True)
    assert again["status"] == "failed" and "already complete" in again["error"]["evalue"]


def test_resume_refuses_after_a_code_change_and_without_a_regeneration(demo_repo, monkeypatch):
    """Tables without a record of the code their rows ran: the files of their import closure and the
    chapter's source, compared with git, decide."""
    repo, rc, interrupt = demo_repo
    monkeypatch.setattr(regeneration, "recorded_changes", lambda *a: None)  # as for tables computed before records
    rec = _run(rc, resume_regeneration=True)
    assert rec["status"] == "failed" and "no regeneration to resume" in rec["error"]["evalue"]
    interrupt.write_text("")
    assert _run(rc, fresh=True)["status"] == "failed"
    (repo / "kvlib" / "book" / "rows.py").write_text("x = 2\n")  # the row function's module changes between the pieces
    interrupt.unlink()
    rec = _run(rc, resume_regeneration=True)
    assert rec["status"] == "failed"
    assert "code its rows depend on changed since commit" in rec["error"]["evalue"]
    assert "(kvlib/book/rows.py)" in rec["error"]["evalue"] and "start again with --fresh" in rec["error"]["evalue"]
    # the chapter's source counts too
    _git(repo, "checkout", "--", "kvlib/book/rows.py")
    (repo / "notebooks" / "demo.py").write_text(DEMO.replace("seed = 5", "seed = 6"))
    rec = _run(rc, resume_regeneration=True)
    assert rec["status"] == "failed" and "(notebooks/demo.py)" in rec["error"]["evalue"]


def test_resume_follows_the_code_the_rows_ran(demo_repo, monkeypatch):
    """Tables that record the code their rows executed: a change to a file they import but did not run
    (here the demo's stand-in module; the rows run this checkout's kvlib) no longer forces --fresh; a change
    to code they ran does, naming the table and the function."""
    repo, rc, interrupt = demo_repo
    results = repo / "results"
    interrupt.write_text("")
    assert _run(rc, fresh=True)["status"] == "failed"
    ledger = regeneration.read_ledger(results, "demo")
    assert regeneration.recorded_changes(results, "demo", ledger) == []  # table a records the code it ran
    (repo / "kvlib" / "book" / "rows.py").write_text("x = 2\n")  # imported by the tables, not run by their rows
    real = regeneration.recorded_changes
    monkeypatch.setattr(regeneration, "recorded_changes",
                        lambda *a: ["a: kvlib/core/simulate.py::simulate changed"])
    interrupt.unlink()
    rec = _run(rc, resume_regeneration=True)
    assert rec["status"] == "failed"
    assert "code that rows of this regeneration ran changed since they were computed" in rec["error"]["evalue"]
    assert "a: kvlib/core/simulate.py::simulate changed" in rec["error"]["evalue"]
    monkeypatch.setattr(regeneration, "recorded_changes", real)
    rec = _run(rc, resume_regeneration=True)
    assert rec["status"] == "ok", rec.get("error")
    assert regeneration.read_ledger(results, "demo")["status"] == "complete"


def test_resume_goes_on_after_changes_outside_the_tables_import_closure(demo_repo):
    """Before: any change under kvlib/ (another chapter's module, a new module, the runner's helpers)
    stopped a regeneration that takes several sittings."""
    repo, rc, interrupt = demo_repo
    results = repo / "results"
    interrupt.write_text("")
    assert _run(rc, fresh=True)["status"] == "failed"
    (repo / "kvlib" / "code.py").write_text("x = 2\n")  # a module no table's row function imports
    (repo / "kvlib" / "book" / "new_page.py").write_text("y = 1\n")  # and a new one
    _git(repo, "add", "kvlib/book/new_page.py")
    interrupt.unlink()
    rec = _run(rc, resume_regeneration=True)
    assert rec["status"] == "ok", rec.get("error")
    ledger = regeneration.read_ledger(results, "demo")
    assert ledger["status"] == "complete" and len(ledger["pieces"]) == 2


def test_the_files_a_chapters_rows_depend_on(tmp_path):
    # the hindsight chapter's committed manifests: the Section 5.1 row functions' closure, not the book's helpers
    deps = regeneration.depends(ROOT / "results", "hindsight", ROOT)
    assert "kvlib/book/chapters/hindsight/rows.py" in deps and "kvlib/optimum/pipeline.py" in deps
    assert "kvlib/core/simulate.py" in deps
    assert "kvlib/book/regeneration.py" not in deps and "kvlib/book/figures.py" not in deps
    assert not any(d.startswith("notebooks/") for d in deps)
    # no manifest (or an unreadable one): all of kvlib
    assert regeneration.depends(tmp_path, "none", ROOT) == ["kvlib"]
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "t.manifest.json").write_text("{not json")
    assert regeneration.depends(tmp_path, "bad", ROOT) == ["kvlib"]


def test_resume_regeneration_needs_store_write():
    sys.path.insert(0, str(ROOT / "book"))
    import run_chapters

    with pytest.raises(SystemExit):
        run_chapters.parse_args(["--mode", "full", "--store", "read", "--resume-regeneration"])
    with pytest.raises(SystemExit):
        run_chapters.parse_args(["--mode", "full", "--fresh", "--resume-regeneration"])
    assert run_chapters.parse_args(["--mode", "full", "--resume-regeneration"]).resume_regeneration


def _files(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {str(p.relative_to(folder)): (p.read_bytes(), p.stat().st_mtime_ns) for p in folder.rglob("*") if p.is_file()}


def test_a_plain_run_after_an_interrupted_fresh_closes_the_regeneration(demo_repo):
    """Before: the tables were finished but _regeneration.json stayed at "running"."""
    repo, rc, interrupt = demo_repo
    results = repo / "results"
    assert _run(rc)["status"] == "ok"
    interrupt.write_text("")
    assert _run(rc, fresh=True)["status"] == "failed"
    interrupt.unlink()
    rec = _run(rc)  # no --resume-regeneration
    assert rec["status"] == "ok" and rec["regeneration"] == "complete"
    ledger = regeneration.read_ledger(results, "demo")
    assert ledger["status"] == "complete" and len(ledger["pieces"]) == 2
    assert json.loads((results / "demo" / "_run.json").read_text())["full_regeneration"]["pieces"] == 2


def test_a_plain_run_after_a_code_change_abandons_the_open_regeneration(demo_repo):
    repo, rc, interrupt = demo_repo
    results = repo / "results"
    interrupt.write_text("")
    assert _run(rc, fresh=True)["status"] == "failed"
    (repo / "kvlib" / "book" / "rows.py").write_text("x = 2\n")
    interrupt.unlink()
    assert _run(rc)["status"] == "ok"
    ledger = regeneration.read_ledger(results, "demo")
    assert ledger["status"] == "abandoned" and "changed code" in ledger["reason"]
    assert regeneration.status_of(ledger) == "abandoned"


def test_a_killed_run_reads_as_interrupted():
    import datetime as dt

    now = dt.datetime(2026, 1, 1, 12, 0, tzinfo=dt.timezone.utc)
    piece = {"started": "2026-01-01T11:00:00+00:00", "updated": "2026-01-01T11:59:30+00:00", "ended": "running"}
    ledger = {"status": "running", "pieces": [piece]}
    assert regeneration.status_of(ledger, now) == "running"
    piece["updated"] = "2026-01-01T11:50:00+00:00"  # no heartbeat for 10 minutes: the run was killed
    assert regeneration.status_of(ledger, now).startswith("interrupted (last heartbeat at 2026-01-01T11:50")
    piece["ended"] = "failed"
    assert regeneration.status_of(ledger, now).startswith("interrupted (its last run ended failed")


def test_a_full_run_that_computes_nothing_leaves_results_unchanged(demo_repo):
    """Before: such a run rewrote every manifest and _run.json."""
    repo, rc, _ = demo_repo
    results = repo / "results"
    assert _run(rc)["status"] == "ok"
    before = _files(results)
    rec = _run(rc)
    assert rec["status"] == "ok" and all(t["computed_now"] == 0 for t in rec["tables"])
    assert _files(results) == before


def test_a_dask_regeneration_of_a_chapter_writes_the_process_pools_values(demo_repo, tmp_path):
    """The demo chapter regenerated through the runner with its rows on a Dask LocalCluster
    (KVBOOK_DASK, as --dask sets it) stores the same deterministic values as a run without Dask."""
    pytest.importorskip("distributed")
    repo, rc, _ = demo_repo
    results = repo / "results"

    def values():
        out = {}
        for t in ("a", "b"):
            rows = (results / "demo" / f"{t}.csv").read_text().splitlines()
            header = rows[0].split(",")
            keep = [i for i, c in enumerate(header) if c not in ("_wall_s", "_host", "_cores", "_commit")]
            out[t] = sorted(",".join(r.split(",")[i] for i in keep) for r in rows[1:])
        return out

    os.environ.pop("KVBOOK_DASK", None)
    assert _run(rc)["status"] == "ok"
    pool = values()
    from kvlib.book.store import local_dask_cluster

    with local_dask_cluster(2) as c:
        os.environ["KVBOOK_DASK"] = c.scheduler_address
        rec = _run(rc, fresh=True)
        os.environ.pop("KVBOOK_DASK", None)
    assert rec["status"] == "ok" and rec["regeneration"] == "complete", rec.get("error")
    assert all(t["computed_now"] == 2 for t in rec["tables"])
    assert values() == pool
