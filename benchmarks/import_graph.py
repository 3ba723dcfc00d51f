"""Draw kvlib's import graph between subpackages and report any import circle.

Reads every module's source with :mod:`ast` (nothing is imported), collects the
``kvlib.*`` imports (module level and inside functions alike), and prints

* the edges between subpackages (``core -> policies`` means a module of
  ``kvlib.core`` imports one of ``kvlib.policies``), with the module pairs behind
  each edge;
* every cycle among modules and among subpackages (there must be none);
* every import of a chapter package (``kvlib.book.chapters.NAME``) from outside it: from another
  chapter's package, from a shared module, or from a notebook other than ``notebooks/NAME.py``
  (there must be none; the top level, ``kvlib/__init__`` and the CLI, may import any).

Usage: ``python benchmarks/import_graph.py [--dot FILE]``; exit status 1 if a
cycle or a chapter-import violation exists.  ``tests/test_layout.py`` runs this script.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import ast


def module_name(path: Path, root: Path) -> str:
    rel = path.relative_to(root.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def imported_names(path: Path, pkg: str = "") -> set[str]:
    """Every dotted name one source file imports (``from a import b`` gives ``a`` and ``a.b``),
    relative imports resolved against ``pkg``."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            out.add(mod)
            out.update(f"{mod}.{a.name}" for a in node.names)
    return out


def import_edges(root: Path) -> set[tuple[str, str]]:
    """(importer, imported) pairs between kvlib modules, from every import statement."""
    modules = {module_name(p, root): p for p in root.rglob("*.py")}
    edges: set[tuple[str, str]] = set()
    for name, path in modules.items():
        pkg = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        for t in imported_names(path, pkg):
            if t in modules and t != name:
                edges.add((name, t))
    return edges


CHAPTERS = "kvlib.book.chapters"


def chapter_of(module: str) -> str | None:
    """``NAME`` for a module of ``kvlib.book.chapters.NAME`` (the package itself included), else None."""
    parts = module.split(".")
    return parts[3] if len(parts) > 3 and ".".join(parts[:3]) == CHAPTERS else None


def chapter_violations(edges, notebooks: dict[str, set[str]] | None = None) -> list[str]:
    """Imports of a chapter package from outside it: from another chapter package or from a shared
    ``kvlib`` module (the top level excepted), and from a notebook ``notebooks[NAME]`` (the names it
    imports) of another chapter."""
    bad = []
    for a, b in sorted(edges):
        cb = chapter_of(b)
        if cb is not None and chapter_of(a) != cb and subpackage(a) != "(top)":
            bad.append(f"{a} imports {b}")
    for nb, names in sorted((notebooks or {}).items()):
        bad += [f"notebooks/{nb}.py imports {t}" for t in sorted(names)
                if chapter_of(t) not in (None, nb)]
    return bad


def notebook_imports(folder: Path) -> dict[str, set[str]]:
    """The ``kvlib`` names each chapter source ``folder/NAME.py`` imports."""
    return {p.stem: {t for t in imported_names(p) if t.startswith("kvlib")} for p in sorted(folder.glob("*.py"))}


def subpackage(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in SUBPACKAGES) else "(top)"


SUBPACKAGES = ("core", "policies", "optimum", "serving", "theory", "book")


def subpackage_edges(edges) -> dict[tuple[str, str], list[tuple[str, str]]]:
    out: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for a, b in sorted(edges):
        sa, sb = subpackage(a), subpackage(b)
        if sa != sb:
            out.setdefault((sa, sb), []).append((a, b))
    return out


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One representative cycle per strongly connected component with a cycle (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    comps: list[list[str]] = []
    counter = [0]

    def strong(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in graph.get(v, ()):
                comps.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return comps


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dot", help="also write the subpackage graph in Graphviz dot format to this file")
    args = ap.parse_args()
    root = Path(__file__).resolve().parents[1] / "kvlib"
    edges = import_edges(root)
    chapter_bad = chapter_violations(edges, notebook_imports(root.parent / "notebooks"))
    sub = subpackage_edges(edges)
    print("subpackage import edges (importer -> imported: module pairs)")
    for (a, b), pairs in sorted(sub.items()):
        print(f"  {a:9s} -> {b:9s} {len(pairs):3d}  e.g. {pairs[0][0]} -> {pairs[0][1]}")
    mod_cycles = find_cycles({m: {t for (f, t) in edges if f == m} for m in {f for f, _ in edges}})
    sub_cycles = find_cycles({a: {b for (x, b) in sub if x == a} for (a, _) in sub})
    print(f"module cycles: {len(mod_cycles)}; subpackage cycles: {len(sub_cycles)}")
    for c in mod_cycles + sub_cycles:
        print("  strongly connected: " + ", ".join(c))
    print(f"chapter-import violations: {len(chapter_bad)}")
    for v in chapter_bad:
        print("  " + v)
    if args.dot:
        lines = ["digraph kvlib {"] + [f'  "{a}" -> "{b}" [label={len(p)}];' for (a, b), p in sorted(sub.items())] + ["}"]
        Path(args.dot).write_text("\n".join(lines) + "\n")
    return 1 if (mod_cycles or sub_cycles or chapter_bad) else 0


if __name__ == "__main__":
    raise SystemExit(main())
