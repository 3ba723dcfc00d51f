"""kvlib's layout: every module imports on its own, and subpackages depend only downwards."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from _helpers import layout_tree

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "import_graph.py"

#: A subpackage may import only those listed before it (the top level, kvlib/__init__ and the CLI, may import any).
ORDER = ["core", "policies", "optimum", "serving", "theory", "book"]


def _modules() -> list[str]:
    out = []
    for p in sorted((ROOT / "kvlib").rglob("*.py")):
        parts = list(p.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out.append(".".join(parts))
    return out


#: Modules imported each in its own interpreter by the plain test run: every package (its ``__init__``) and
#: this many others, a different sample each day.  ``KVBOOK_ALL_MODULES=1`` imports every module (.ci/run
#: does, in a step of its own: one interpreter per module costs about 90 s of CPU).
SAMPLE = 12


def _sample(modules: list[str]) -> list[str]:
    if os.environ.get("KVBOOK_ALL_MODULES") == "1":
        return modules
    packages = [m for m in modules if (ROOT / Path(*m.split(".")) / "__init__.py").is_file()]
    others = [m for m in modules if m not in packages]
    seed = int(os.environ.get("KVBOOK_MODULE_SAMPLE_SEED") or time.strftime("%Y%j"))
    return packages + sorted(random.Random(seed).sample(others, min(SAMPLE, len(others))))


def test_every_module_imports_in_a_fresh_interpreter():
    def load(mod: str):
        r = subprocess.run([sys.executable, "-c", f"import {mod}"], cwd=ROOT, capture_output=True, text=True)
        return mod, r.returncode, r.stderr[-800:]

    modules = _modules()
    chosen = _sample(modules)
    assert set(chosen) <= set(modules) and "kvlib" in chosen and "kvlib.core" in chosen
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(load, chosen))
    failed = [f"{m}: {err}" for m, rc, err in results if rc != 0]
    assert len(modules) > 25 and len(results) == len(chosen)
    assert not failed, "\n".join(failed)


def test_import_graph_has_no_cycle_and_subpackages_depend_downwards():
    r = subprocess.run([sys.executable, str(SCRIPT)], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "module cycles: 0; subpackage cycles: 0" in r.stdout
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import import_graph as ig
    finally:
        sys.path.pop(0)
    edges = ig.subpackage_edges(ig.import_edges(ROOT / "kvlib"))
    assert ("policies", "core") in edges  # the analysis sees real edges
    upward = [(a, b, pairs[0]) for (a, b), pairs in edges.items()
              if a != "(top)" and (b == "(top)" or ORDER.index(b) >= ORDER.index(a))]
    assert not upward, f"imports against the layout order {ORDER}: {upward}"


def test_cycle_finder_finds_a_planted_cycle():
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import import_graph as ig
    finally:
        sys.path.pop(0)
    assert ig.find_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert ig.find_cycles({"a": {"b"}, "b": set()}) == []


def _script(name: str):
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        return __import__(name)
    finally:
        sys.path.pop(0)


def _tracked() -> list[str]:
    r = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True)
    return r.stdout.split()


# ------------------------------------------------------------------ chapter packages


def test_no_chapter_package_is_imported_from_outside_its_chapter():
    """A chapter package (kvlib/book/chapters/NAME) is imported by its own modules, its notebook
    notebooks/NAME.py and the top level only: never by another chapter's package or notebook, nor by
    a shared module (a module two chapters need belongs in kvlib/book/)."""
    ig = _script("import_graph")
    edges = ig.import_edges(ROOT / "kvlib")
    notebooks = ig.notebook_imports(ROOT / "notebooks")
    assert any(ig.chapter_of(b) == "hindsight" for _, b in edges)  # the walk sees chapter packages
    assert any(ig.chapter_of(t) == "realtrace" for t in notebooks["realtrace"])  # and the notebooks' imports
    assert ig.chapter_violations(edges, notebooks) == []


def test_chapter_violations_are_found_when_planted():
    ig = _script("import_graph")
    edges = {("kvlib.book.chapters.amin.page", "kvlib.book.chapters.amin.values"),  # own chapter: fine
             ("kvlib.book.chapters.amin.page", "kvlib.book.store"),  # shared: fine
             ("kvlib.book.chapters.sortedf.rows", "kvlib.book.chapters.amin.periods"),  # another chapter
             ("kvlib.book.mission", "kvlib.book.chapters.hindsight"),  # a shared module
             ("kvlib.cli", "kvlib.book.chapters.hindsight.rows")}  # the top level may
    notebooks = {"amin": {"kvlib.book.chapters.amin.values", "kvlib.book.store"},
                 "status": {"kvlib.book.chapters.hindsight.page"}}
    assert ig.chapter_violations(edges, notebooks) == [
        "kvlib.book.chapters.sortedf.rows imports kvlib.book.chapters.amin.periods",
        "kvlib.book.mission imports kvlib.book.chapters.hindsight",
        "notebooks/status.py imports kvlib.book.chapters.hindsight.page"]


def test_every_chapter_package_is_named_after_a_notebook():
    chapters = {p.name for p in (ROOT / "kvlib" / "book" / "chapters").iterdir()
                if (p / "__init__.py").exists()}
    notebooks = {p.stem for p in (ROOT / "notebooks").glob("*.py")}
    assert chapters >= {"hindsight", "realtrace", "model"}
    assert chapters <= notebooks, f"chapter packages without a notebook: {sorted(chapters - notebooks)}"


# ------------------------------------------------------------------ function length


def test_no_function_in_kvlib_is_over_150_lines():
    lf = _script("long_functions")
    found = {name: n for n, name in lf.long_functions([ROOT / "kvlib"], 150, root=ROOT)}
    assert not found, f"functions over 150 lines (split them): {found}"


def test_function_lengths_count_def_to_last_line(tmp_path):
    lf = _script("long_functions")
    src = ["def short():", "    return 1", "", "class C:", "    def long(self):"]
    src += ["        x = 1"] * 150 + ["        def inner():", "            return 2", "        return x", ""]
    (tmp_path / "m.py").write_text("\n".join(src))
    assert dict(lf.function_lengths(tmp_path / "m.py")) == {"short": 2, "C.long": 154, "C.long.inner": 2}
    assert lf.long_functions([tmp_path], 150, root=tmp_path) == [(154, "m.py:C.long")]
    assert lf.long_functions([tmp_path], 154) == []


# ------------------------------------------------------------------ stored results name importable functions


def test_every_stored_manifest_names_a_function_that_imports():
    import json

    from kvlib.book.store import _fn_path, resolve_function

    manifests = sorted((ROOT / "results").glob("*/*.manifest.json"))
    assert len(manifests) > 40
    broken = []
    for m in manifests:
        fn = json.loads(m.read_text())["function"]
        try:  # and the store, reading the table, finds the name it compares with the chapter's function
            assert _fn_path(resolve_function(fn)) == fn
        except (ImportError, AttributeError, AssertionError) as e:
            broken.append(f"{m.relative_to(ROOT)}: {fn} ({type(e).__name__})")
    assert not broken, "stored manifests name functions that do not import:\n" + "\n".join(broken)


# ------------------------------------------------------------------ CONTRIBUTING.md's tree


contributing_tree = layout_tree


def test_contributing_tree_matches_the_repository():
    tree = contributing_tree((ROOT / "CONTRIBUTING.md").read_text())
    tracked = _tracked()
    dirs = {"/".join(f.split("/")[:i]) for f in tracked for i in range(1, f.count("/") + 1)}
    assert {"kvlib", "kvlib/book/chapters", "kvlib/book/chapters/hindsight", "book/_ext"} <= set(tree)
    missing = [d for d in tree if d not in dirs]
    assert not missing, f"CONTRIBUTING.md's tree names folders that git does not track: {missing}"
    packages = {f.rsplit("/", 1)[0] for f in tracked if f.startswith("kvlib/") and f.endswith("/__init__.py")}
    absent = sorted(packages - set(tree))
    assert not absent, f"package folders under kvlib/ missing from CONTRIBUTING.md's tree: {absent}"


def test_contributing_tree_reads_nesting():
    text = "## Layout\n```\na/    x\n  b/  y\n    c/ z\n  d/\ne.py  file\nf/\n```\n"
    assert contributing_tree(text) == ["a", "a/b", "a/b/c", "a/d", "f"]
