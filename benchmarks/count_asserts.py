#!/usr/bin/env python
"""Count the ``assert`` statements in the test suite (by AST, so comments and strings do not count).

Making a slow test faster must not drop a check: the count before and after such a change may only rise.

    python benchmarks/count_asserts.py                # total, then per file
    python benchmarks/count_asserts.py --total        # the total only
    git stash; python benchmarks/count_asserts.py --total; git stash pop   # compare with another tree
    python benchmarks/count_asserts.py --ref 40a481c  # the same count for the tests/ of a commit
"""

from __future__ import annotations

import argparse
import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def count(source: str) -> int:
    """Number of ``assert`` statements in one Python source."""
    return sum(isinstance(node, ast.Assert) for node in ast.walk(ast.parse(source)))


def counts_in_tree(tests: Path) -> dict[str, int]:
    return {str(p.relative_to(tests.parent)): count(p.read_text(encoding="utf8"))
            for p in sorted(tests.rglob("*.py"))}


def counts_at_ref(ref: str) -> dict[str, int]:
    """The same count for ``tests/`` as committed at ``ref`` (read with git, the working tree untouched)."""
    names = subprocess.run(["git", "ls-tree", "-r", "--name-only", ref, "--", "tests"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.split()
    out = {}
    for name in sorted(n for n in names if n.endswith(".py")):
        src = subprocess.run(["git", "show", f"{ref}:{name}"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout
        out[name] = count(src)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tests", default=str(ROOT / "tests"), help="tests folder (default: this repository's)")
    ap.add_argument("--ref", help="count tests/ as committed at this git revision instead")
    ap.add_argument("--total", action="store_true", help="print the total only")
    args = ap.parse_args(argv)
    per_file = counts_at_ref(args.ref) if args.ref else counts_in_tree(Path(args.tests))
    total = sum(per_file.values())
    if not args.total:
        for name, k in per_file.items():
            print(f"{k:6d}  {name}")
    print(f"{total} assert statements in {len(per_file)} files" if not args.total else total)
    return 0


if __name__ == "__main__":
    sys.exit(main())
