"""book/rename_functions.py: renames the row functions named by stored records, and nothing else."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book"))
import rename_functions as rf  # noqa: E402

sys.path.pop(0)

MAP = {"kvlib.book.old_rows": "kvlib.book.chapters.hindsight.rows",
       "kvlib.other:f": "kvlib.book.chapters.hindsight.search:search_trial"}


def test_module_pairs_keep_the_function_and_function_pairs_are_exact():
    assert rf.rename("kvlib.book.old_rows:certified_trial", MAP) == "kvlib.book.chapters.hindsight.rows:certified_trial"
    assert rf.rename("kvlib.other:f", MAP) == "kvlib.book.chapters.hindsight.search:search_trial"
    assert rf.rename("kvlib.other:g", MAP) == "kvlib.other:g"
    assert rf.rename("kvlib.book.old_rows_more:x", MAP) == "kvlib.book.old_rows_more:x"  # no prefix match


def _results(tmp_path: Path) -> Path:
    d = tmp_path / "results" / "hindsight"
    d.mkdir(parents=True)
    man = {"chapter": "hindsight", "table": "t", "function": "kvlib.book.old_rows:certified_trial",
           "depends": ["kvlib/book/old_rows.py"], "note": "kvlib.book.old_rows:certified_trial", "sha256": "ab"}
    (d / "t.manifest.json").write_text(json.dumps(man, indent=1) + "\n")
    (d / "t.csv").write_text("a,function\n1,kvlib.book.old_rows:certified_trial\n")
    (d / "_run.json").write_text(json.dumps({"chapter": "hindsight", "git_sha": "x"}, indent=1) + "\n")
    return tmp_path / "results"


def test_only_the_function_field_of_the_records_changes(tmp_path):
    results = _results(tmp_path)
    before = {p.name: p.read_bytes() for p in (results / "hindsight").iterdir()}
    assert rf.main(["--map", "kvlib.book.old_rows=kvlib.book.chapters.hindsight.rows",
                    "--results", str(results)]) == 0
    after = {p.name: p.read_bytes() for p in (results / "hindsight").iterdir()}
    assert after["t.csv"] == before["t.csv"] and after["_run.json"] == before["_run.json"]
    man = json.loads(after["t.manifest.json"])
    assert man["function"] == "kvlib.book.chapters.hindsight.rows:certified_trial"
    assert man["note"] == "kvlib.book.old_rows:certified_trial" and man["depends"] == ["kvlib/book/old_rows.py"]
    old_lines = before["t.manifest.json"].decode().splitlines()
    new_lines = after["t.manifest.json"].decode().splitlines()
    assert [i for i, (a, b) in enumerate(zip(old_lines, new_lines)) if a != b] == [3]


def test_nothing_is_written_when_a_new_name_does_not_resolve(tmp_path, capsys):
    results = _results(tmp_path)
    before = (results / "hindsight" / "t.manifest.json").read_bytes()
    assert rf.main(["--map", "kvlib.book.old_rows=kvlib.book.chapters.hindsight.no_such_module",
                    "--results", str(results)]) == 1
    assert "do not resolve" in capsys.readouterr().out
    assert (results / "hindsight" / "t.manifest.json").read_bytes() == before
    assert rf.main(["--map", "kvlib.book.old_rows=kvlib.book.chapters.hindsight.rows", "--dry-run",
                    "--results", str(results)]) == 0
    assert (results / "hindsight" / "t.manifest.json").read_bytes() == before


def test_bad_mappings_are_refused(tmp_path):
    with pytest.raises(SystemExit, match="module to a module"):
        rf.parse_mapping(["kvlib.a=kvlib.b:f"], [])
    f = tmp_path / "m.txt"
    f.write_text("# old new\nkvlib.a kvlib.b\nkvlib.a kvlib.c\n")
    with pytest.raises(SystemExit, match="mapped twice"):
        rf.parse_mapping([], [str(f)])
    f.write_text("kvlib.a kvlib.b  # a comment\n")
    assert rf.parse_mapping(["kvlib.x:f=kvlib.y:g"], [str(f)]) == {"kvlib.x:f": "kvlib.y:g", "kvlib.a": "kvlib.b"}
