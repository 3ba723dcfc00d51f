"""List the functions longer than a limit (default 150 lines), read with :mod:`ast` (nothing is imported).

A function's length is ``end_lineno - lineno + 1`` of its ``def`` (decorators not counted, its
docstring and nested functions counted); nested functions and methods are listed by their dotted
name (``Class.method``, ``outer.inner``).  Usage::

    python benchmarks/long_functions.py [PATH ...] [--limit 150]

PATH: files or folders (default: ``kvlib``); prints ``lines  path:name``, longest first.
``tests/test_layout.py`` fails on any function of ``kvlib/`` over 150 lines outside its allow-list.
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

LIMIT = 150


def function_lengths(path: Path) -> list[tuple[str, int]]:
    """``(dotted name, lines)`` of every function and method defined in one source file."""
    out: list[tuple[str, int]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = prefix + child.name
                out.append((name, child.end_lineno - child.lineno + 1))
                visit(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            else:
                visit(child, prefix)

    visit(ast.parse(path.read_text(encoding="utf8"), str(path)), "")
    return out


def long_functions(paths, limit: int = LIMIT, root: Path | None = None) -> list[tuple[int, str]]:
    """``(lines, "path:name")`` of every function over ``limit`` lines under ``paths``, longest first;
    paths are shown relative to ``root`` when given."""
    files: list[Path] = []
    for p in map(Path, paths):
        files += sorted(p.rglob("*.py")) if p.is_dir() else [p]
    found = []
    for f in files:
        shown = f.resolve().relative_to(root.resolve()).as_posix() if root else f.as_posix()
        found += [(n, f"{shown}:{name}") for name, n in function_lengths(f) if n > limit]
    return sorted(found, key=lambda x: (-x[0], x[1]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", default=["kvlib"], help="files or folders (default: kvlib)")
    ap.add_argument("--limit", type=int, default=LIMIT, help=f"longest allowed function (default: {LIMIT})")
    args = ap.parse_args(argv)
    found = long_functions(args.paths, args.limit)
    for n, name in found:
        print(f"{n:5d}  {name}")
    print(f"{len(found)} function(s) over {args.limit} lines")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
