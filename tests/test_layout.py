"""kvlib's layout: every module imports on its own, and subpackages depend only downwards."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

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
