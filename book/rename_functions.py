"""Rename row functions in the stored results' records after code moves (old -> new), nothing else.

A stored table's manifest (``results/CHAPTER/TABLE.manifest.json``) names the row function that
computed it (field ``function``, ``module:qualname``), and the store refuses to reuse a table whose
manifest names another function than the one the chapter passes (:mod:`kvlib.book.store`).  When a
row function's module moves, run this in the same commit as the move::

    python book/rename_functions.py --map kvlib.book.section51=kvlib.book.chapters.hindsight.rows ...
    python book/rename_functions.py --map-file renames.txt      # one "OLD NEW" pair per line

A pair names either a module (``a.b``: every function of that module, the qualname kept) or one
function (``a.b:f``: that function only).  Only the value of the field ``function`` changes, line by
line in the file's text, in the manifests and in the run records ``_run.json`` and
``_regeneration.json`` (which name no function today): the CSVs, whose sha256 the manifests hold,
and every other field are left byte for byte.  Before anything is written, every renamed function
must resolve (:func:`kvlib.book.store.resolve_function`); ``--dry-run`` only prints the changes.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
#: the record files of a chapter's results that may name row functions
RECORDS = ("*.manifest.json", "_run.json", "_regeneration.json")
_FIELD = re.compile(r'^(\s*"function":\s*")([^"]*)(",?\s*)$', re.MULTILINE)


def rename(path: str, mapping: dict[str, str]) -> str:
    """``path`` (``module:qualname``) after the mapping: an exact function pair wins over a module pair."""
    if path in mapping:
        return mapping[path]
    mod, sep, qual = path.partition(":")
    if mod in mapping and ":" not in mapping[mod]:
        return mapping[mod] + sep + qual
    return path


def rewrite_text(text: str, mapping: dict[str, str]) -> tuple[str, list[tuple[str, str]]]:
    """The record's text with its ``function`` fields renamed, and the ``(old, new)`` pairs changed."""
    changed: list[tuple[str, str]] = []

    def sub(m: re.Match) -> str:
        new = rename(m.group(2), mapping)
        if new != m.group(2):
            changed.append((m.group(2), new))
        return m.group(1) + new + m.group(3)

    return _FIELD.sub(sub, text), changed


def record_files(results: Path) -> list[Path]:
    return sorted(p for pattern in RECORDS for p in results.glob(f"*/{pattern}"))


def parse_mapping(pairs: list[str], files: list[str]) -> dict[str, str]:
    """``OLD=NEW`` arguments and ``OLD NEW`` lines (``#`` comments allowed) as one mapping."""
    items = [p.split("=", 1) for p in pairs]
    for f in files:
        for line in Path(f).read_text(encoding="utf8").splitlines():
            line = line.split("#", 1)[0].strip()
            if line:
                items.append(line.split())
    mapping: dict[str, str] = {}
    for item in items:
        if len(item) != 2 or not all(item):
            raise SystemExit(f"rename_functions: a pair is OLD=NEW (or 'OLD NEW' in a file), got {item!r}")
        old, new = item
        if (":" in old) != (":" in new):
            raise SystemExit(f"rename_functions: {old} -> {new}: map a module to a module, a function to a function")
        if mapping.get(old, new) != new:
            raise SystemExit(f"rename_functions: {old} is mapped twice ({mapping[old]}, {new})")
        mapping[old] = new
    return mapping


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--map", action="append", default=[], metavar="OLD=NEW", help="a module or function pair")
    ap.add_argument("--map-file", action="append", default=[], metavar="FILE", help="'OLD NEW' pairs, one a line")
    ap.add_argument("--results", default=str(REPO_ROOT / "results"), help="the results folder (default: results/)")
    ap.add_argument("--dry-run", action="store_true", help="print the changes, write nothing")
    args = ap.parse_args(argv)
    mapping = parse_mapping(args.map, args.map_file)
    if not mapping:
        ap.error("give at least one --map or --map-file")
    new_texts: dict[Path, str] = {}
    renamed: set[str] = set()
    for path in record_files(Path(args.results)):
        text = path.read_text(encoding="utf8")
        new, changed = rewrite_text(text, mapping)
        if changed:
            new_texts[path] = new
            renamed.update(n for _, n in changed)
            for old, n in changed:
                print(f"{path.relative_to(args.results)}: {old} -> {n}")
    sys.path.insert(0, str(REPO_ROOT))
    from kvlib.book.store import resolve_function

    broken = []
    for name in sorted(renamed):
        try:
            resolve_function(name)
        except (ImportError, AttributeError) as e:
            broken.append(f"{name}: {type(e).__name__}: {e}")
    if broken:
        print("rename_functions: these new names do not resolve, nothing written:\n  " + "\n  ".join(broken))
        return 1
    if not args.dry_run:
        for path, text in new_texts.items():
            path.write_text(text, encoding="utf8")
    print(f"{len(new_texts)} record(s) {'would change' if args.dry_run else 'rewritten'}, "
          f"{len(renamed)} function name(s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
