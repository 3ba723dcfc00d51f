"""Staleness from the code a stored table's rows executed (kvlib.book.fingerprint, store.table_staleness).

Records are taken from real rows (a simulation, and the cheapest stored row of the real-trace chapter's
Table 1), then judged against an edited copy of the sources (no ``.git`` in it): what must and must
not make a table stale.
"""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from kvlib import Instance, make_policy, simulate
from kvlib.book import fingerprint as fp
from kvlib.book.store import (Store, load_manifest, read_rows, resolve_function, row_needs_shared_data,
                              table_paths, table_staleness)

ROOT = Path(__file__).resolve().parents[1]


def _simulation_row() -> dict:
    rng = np.random.default_rng(3)
    inst = Instance.from_arrays(np.sort(rng.integers(0, 40, 30)), rng.integers(1, 5, 30), rng.integers(1, 9, 30), 40)
    res = simulate(inst, make_policy("mc-sf"), seed=0)
    return {"tel": int(res.tel)}


def _realtrace_row() -> tuple:
    """The cheapest stored row of the real-trace chapter's Table 1 that needs no shared data."""
    man = load_manifest(ROOT / "results/realtrace/table1.manifest.json")
    _, rows = read_rows(ROOT / "results/realtrace/table1.csv")
    rows = sorted((r for r in rows if not row_needs_shared_data(r)), key=lambda r: float(r["_wall_s"]))
    return resolve_function(man["function"]), json.loads(rows[0]["_key"])


@pytest.fixture(scope="module")
def records():
    with fp.recording() as sim:
        _simulation_row()
    fn, key = _realtrace_row()
    with fp.recording() as rt:
        fn(**key)
    return {"sim": fp.record_of(sim), "rt": fp.record_of(rt), "sim_ids": sim, "rt_ids": rt}


@pytest.fixture()
def copy(tmp_path):
    """A copy of the kvlib sources without .git, and a function to rewrite one of its files by AST."""
    shutil.copytree(ROOT / "kvlib", tmp_path / "kvlib", ignore=shutil.ignore_patterns("__pycache__"))

    def edit(rel: str, change=None) -> None:
        path = tmp_path / rel
        tree = ast.parse(path.read_text(encoding="utf8"))
        if change is not None:
            change(tree)
        path.write_text(ast.unparse(ast.fix_missing_locations(tree)) + "\n", encoding="utf8")

    return tmp_path, edit


def _node(tree: ast.Module, qual: str) -> ast.AST:
    body = tree.body
    for part in qual.split("."):
        node = next(n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                    and n.name == part)
        body = node.body
    return node


def test_records_name_what_ran(records):
    sim, rt = records["sim"], records["rt"]
    assert "kvlib/core/simulate.py::simulate" in sim["functions"]
    assert "kvlib/policies/jaillet.py::mc_sf" in sim["functions"]
    assert sim["dependencies"].get("numpy") and sim["rows"] == 1 and not sim["conflicts"]
    assert "missing" not in sim["functions"].values() and "missing" not in sim["modules"].values()
    # the real-trace row runs code the plain simulation does not
    only_rt = set(rt["functions"]) - set(sim["functions"])
    assert any(i.startswith("kvlib/serving/") for i in only_rt), sorted(only_rt)[:10]
    # nothing that merely exists is recorded: most of kvlib did not run
    assert "kvlib/optimum/exact.py::solve" not in sim["functions"]


def test_a_copy_without_git_gives_the_same_answer(records, copy):
    root, _ = copy
    assert not (root / ".git").exists()
    for rec in (records["sim"], records["rt"]):
        assert fp.changes(rec) == [] and fp.changes(rec, fp.Sources(root)) == []


def test_docstring_comment_and_formatting_edits_stale_nothing(records, copy):
    root, edit = copy
    text = (root / "kvlib/core/simulate.py").read_text(encoding="utf8")
    (root / "kvlib/core/simulate.py").write_text("# a comment added at the top\n" + text.replace(
        "\ndef ", "\n# a comment before a function\n\n\ndef "), encoding="utf8")
    assert fp.changes(records["sim"], fp.Sources(root)) == []

    def docstrings(tree):
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.Module)) and ast.get_docstring(node):
                node.body[0].value.value += " Edited."

    # every docstring of kvlib/core edited, every file reformatted (ast.unparse drops comments and layout)
    for path in sorted((root / "kvlib/core").glob("*.py")):
        edit(path.relative_to(root).as_posix(), docstrings)
    assert "Edited." in (root / "kvlib/core/simulate.py").read_text(encoding="utf8")
    assert fp.changes(records["sim"], fp.Sources(root)) == []
    assert fp.changes(records["rt"], fp.Sources(root)) == []


def test_adding_or_renaming_an_unused_helper_stales_nothing(records, copy):
    root, edit = copy
    ran = set(records["sim"]["functions"]) | set(records["rt"]["functions"])

    def add_and_rename(tree):
        tree.body.append(ast.parse("def _brand_new_helper(x):\n    return 2 * x\n").body[0])
        unused = next(n for n in tree.body if isinstance(n, ast.FunctionDef)
                      and f"kvlib/core/simulate.py::{n.name}" not in ran and n.name != "_brand_new_helper")
        unused.name += "_renamed"

    edit("kvlib/core/simulate.py", add_and_rename)
    assert "_brand_new_helper" in (root / "kvlib/core/simulate.py").read_text(encoding="utf8")
    assert fp.changes(records["sim"], fp.Sources(root)) == []
    assert fp.changes(records["rt"], fp.Sources(root)) == []


def test_an_edit_inside_a_function_only_realtrace_runs_stales_realtrace_only(records, copy):
    root, edit = copy
    only_rt = sorted(i for i in set(records["rt"]["functions"]) - set(records["sim"]["functions"])
                     if i.startswith("kvlib/serving/") and "<" not in i)
    rel, _, qual = only_rt[0].partition("::")

    def body_edit(tree):
        node = _node(tree, qual)
        node.body.insert(len(node.body) - 1 if len(node.body) > 1 else 0, ast.parse("_unused_local = 0").body[0])

    edit(rel, body_edit)
    assert fp.changes(records["rt"], fp.Sources(root)) == [f"{rel}: {qual} changed"]
    assert fp.changes(records["sim"], fp.Sources(root)) == []


def test_an_edit_to_a_module_constant_a_table_uses_stales_it(records, copy):
    root, edit = copy
    rel = next(r for r in records["sim"]["modules"] if r == "kvlib/core/simulate.py")

    def constant(tree):
        node = next(n for n in tree.body if isinstance(n, (ast.Assign, ast.AnnAssign))
                    and isinstance(getattr(n, "value", None), ast.Constant)
                    and isinstance(n.value.value, (int, float)) and not isinstance(n.value.value, bool))
        node.value.value += 1

    edit(rel, constant)
    assert fp.changes(records["sim"], fp.Sources(root)) == [f"{rel}: its top-level statements changed"]


def test_a_changed_numpy_version_stales_what_used_numpy(records):
    now = records["sim"]["dependencies"]["numpy"]
    assert fp.changes(records["sim"], versions={"numpy": now}) == []
    assert fp.changes(records["sim"], versions={"numpy": "0.1"}) == [f"numpy {now} is now 0.1"]
    # a record of code whose modules import no numerical library does not depend on numpy's version
    plain = fp.record_of({"kvlib/book/fingerprint.py::_strip_doc"})
    assert plain["dependencies"] == {} and fp.changes(plain, versions={"numpy": "0.1"}) == []


def test_a_removed_function_and_conflicting_rows_are_stale(records, copy):
    root, edit = copy

    def remove(tree):
        tree.body = [n for n in tree.body if not (isinstance(n, ast.FunctionDef) and n.name == "simulate")]

    edit("kvlib/core/simulate.py", remove)
    assert "kvlib/core/simulate.py: simulate no longer exists" in fp.changes(records["sim"], fp.Sources(root))
    other = json.loads(json.dumps(records["sim"]))
    other["functions"]["kvlib/core/simulate.py::simulate"] = "0" * 16
    merged = fp.merge(records["sim"], other)
    assert merged["rows"] == 2 and merged["conflicts"] == ["functions:kvlib/core/simulate.py::simulate"]
    assert fp.changes(merged)[0].startswith("rows were computed with different code")


def test_recording_changes_no_result_and_every_function_is_instrumented():
    plain = _simulation_row()
    assert fp.install() == []
    with fp.recording() as seen:
        again = _simulation_row()
    assert again == plain and seen
    import gc
    import types

    left = [f.__code__.co_qualname for f in gc.get_objects() if isinstance(f, types.FunctionType)
            and fp._relative(f.__code__.co_filename) and fp.MARK not in f.__code__.co_names
            and fp.FIRST not in f.__code__.co_names and f.__code__ not in fp._PLAIN.values()]
    assert left == []



def test_a_write_run_stores_the_record_and_staleness_follows_the_sources(tmp_path, copy, monkeypatch):
    from kvlib.book.rows import policy_tel_row

    keys = [dict(policy=p, arrival_model=1, seed=5, trial=t) for p in ("mc-sf", "fcfs") for t in range(2)]
    tab = Store("demo", mode="full", parameters={"seed": 5}, policy="write", root=tmp_path).table(
        "tels", policy_tel_row, keys)
    man = load_manifest(table_paths("demo", "tels", tmp_path)[1])
    assert man["code"]["rows"] == 4 and man["code"]["functions"]["kvlib/core/simulate.py::simulate"] != "missing"
    assert tab.staleness() == ("no", []) and "changed since" not in tab.label
    root, edit = copy

    def body_edit(tree):
        _node(tree, "simulate").body.insert(0, ast.parse("_unused_local = 0").body[0])

    edit("kvlib/core/simulate.py", body_edit)
    state, reasons = table_staleness(man, ["x"], 4, fp.Sources(root))
    assert state == "yes" and reasons == ["kvlib/core/simulate.py: simulate changed"]
    # a record that covers fewer rows than are stored is no record: judged the old way (git)
    assert table_staleness(man, [], 5, fp.Sources(root)) == ("no", [])


_EDIT_UNDER_A_RUN = r"""
import importlib, json, sys
from pathlib import Path

root, when = Path(sys.argv[1]), sys.argv[2]
from kvlib.book import fingerprint as fp
from kvlib.book.rows import policy_tel_row  # imports kvlib.core.simulate before any recording

key = dict(policy="mc-sf", arrival_model=1, seed=5, trial=0)
path = root / "kvlib/core/simulate.py"
text = path.read_text(encoding="utf8")
# the body of default_stall_rounds changes, no line moves
edited = text.replace("return 10 * int(instance.output.max()) + 1000", "return 10 * int(instance.output.max()) + 1001")
assert edited != text
if when == "before":
    path.write_text(edited, encoding="utf8")
    try:
        with fp.recording():
            policy_tel_row(**key)
    except RuntimeError as exc:
        print(json.dumps({"error": str(exc)}))
    sys.exit(0)
with fp.recording() as ran:
    first = policy_tel_row(**key)
before = fp.row_record(ran)
path.write_text(edited, encoding="utf8")
with fp.recording() as ran:
    second = policy_tel_row(**key)
after = fp.row_record(ran)
print(json.dumps({"same_result": first == second, "same_record": before == after,
                  "stall": "kvlib/core/simulate.py::default_stall_rounds" in after["functions"],
                  "changes": fp.changes(after, fp.Sources(root)), "now": fp.changes(after)}))
"""


def _edit_under_a_run(copy, when: str) -> dict:
    import os
    import subprocess
    import sys

    root, _ = copy
    env = {**os.environ, "PYTHONPATH": str(root), "PYTHONDONTWRITEBYTECODE": "1"}
    cp = subprocess.run([sys.executable, "-c", _EDIT_UNDER_A_RUN, str(root), when], capture_output=True,
                        text=True, env=env, cwd=root, timeout=300)
    assert cp.returncode == 0, cp.stderr[-2000:]
    return json.loads(cp.stdout.strip().splitlines()[-1])


def test_an_edit_after_the_first_recording_leaves_the_record_of_the_code_that_ran(copy):
    """A source file edited while rows are computed: the next rows' records still describe the code the
    process runs (the text it compiled), and that record is stale against the edited file."""
    out = _edit_under_a_run(copy, "after")
    assert out["stall"] and out["same_result"] and out["same_record"]
    assert out["changes"] == ["kvlib/core/simulate.py: default_stall_rounds changed"]


def test_an_edit_between_import_and_the_first_recording_stops_the_run(copy):
    """A source file edited after the process imported it but before the first recording (the
    instrumentation then compiles the file again): refused, naming the file, even though no line moved."""
    out = _edit_under_a_run(copy, "before")
    assert "kvlib/core/simulate.py" in out["error"] and "changed on disk after this process imported it" in out["error"]
    assert "default_stall_rounds" in out["error"] or "simulate.py::" in out["error"]


def test_a_write_run_takes_each_row_record_where_the_row_ran(tmp_path, monkeypatch):
    """The store joins the records its workers took; two rows that ran different code conflict."""
    from kvlib.book import store as st

    man = {}
    rec = st._CodeRecord(tmp_path / "m.json", man)
    rec.add({"recorder": fp.RECORDER, "functions": {"kvlib/x.py::f": "1"}, "modules": {}, "dependencies": {},
             "rows": 1, "conflicts": []})
    rec.add({"recorder": fp.RECORDER, "functions": {"kvlib/x.py::f": "2"}, "modules": {}, "dependencies": {},
             "rows": 1, "conflicts": []})
    assert man["code"]["rows"] == 2 and man["code"]["conflicts"] == ["functions:kvlib/x.py::f"]
