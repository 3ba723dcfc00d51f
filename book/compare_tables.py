#!/usr/bin/env python
"""Which result columns a regeneration changed: every stored table against its version at a commit.

For each table in ``results/`` (or those of ``--only CHAPTER ...``) whose CSV differs from the one at
``--rev`` (default ``HEAD``), rows are matched by key and every output column is compared (floats within
``--rtol``; the table's timing columns and the store's bookkeeping columns are left out, since they always
change).  The report names, per table, the columns whose values changed, in how many rows, and the
largest relative change; keys added or dropped are counted.  Paste it into the commit that stores the
regenerated tables: any change beyond timings and the interval ends of time-limited solves is a finding
to explain on the page that shows the table.

    python book/compare_tables.py                    # working tree against HEAD
    python book/compare_tables.py --rev 40a481c --only amin lowerbounds
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kvlib.book.store import META_COLUMNS, list_tables, load_manifest, read_rows, table_paths  # noqa: E402


def _old_rows(rev: str, rel: str) -> tuple[list[str], list[dict]] | None:
    out = subprocess.run(["git", "show", f"{rev}:{rel}"], cwd=ROOT, capture_output=True, text=True)
    if out.returncode != 0:
        return None
    reader = csv.DictReader(io.StringIO(out.stdout))
    return list(reader.fieldnames or []), list(reader)


def _num(v: str) -> float | None:
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def compare(chapter: str, table: str, rev: str, rtol: float) -> dict | None:
    """Changed columns of one table against ``rev`` (None: the table is unchanged or new)."""
    csv_path, man_path = table_paths(chapter, table)
    rel = csv_path.relative_to(ROOT).as_posix()
    old = _old_rows(rev, rel)
    if old is None:
        return {"table": f"{chapter}/{table}", "new": True}
    _, new_rows = read_rows(csv_path)
    man = load_manifest(man_path)
    skip = set(META_COLUMNS) | set(man.get("timing") or []) | set(man.get("keys") or [])
    old_by = {r["_key"]: r for r in old[1]}
    new_by = {r["_key"]: r for r in new_rows}
    cols: dict[str, dict] = {}
    for k in old_by.keys() & new_by.keys():
        a, b = old_by[k], new_by[k]
        for c in sorted((set(a) | set(b)) - skip):
            va, vb = a.get(c), b.get(c)
            if va == vb:
                continue
            fa, fb = _num(va), _num(vb)
            if fa is not None and fb is not None:
                if (math.isnan(fa) and math.isnan(fb)) or abs(fa - fb) <= rtol * max(abs(fa), abs(fb), 1e-300):
                    continue
                rel_change = abs(fa - fb) / max(abs(fa), 1e-300) if fa else math.inf
            else:
                rel_change = None
            d = cols.setdefault(c, {"rows": 0, "max_rel": 0.0, "example": (k, va, vb)})
            d["rows"] += 1
            if rel_change is not None:
                d["max_rel"] = max(d["max_rel"], rel_change)
    added, dropped = len(new_by.keys() - old_by.keys()), len(old_by.keys() - new_by.keys())
    if not cols and not added and not dropped:
        return None
    return {"table": f"{chapter}/{table}", "rows": len(new_by), "columns": cols, "added": added, "dropped": dropped,
            "interval": [c for p in man.get("interval") or [] for c in p]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rev", default="HEAD", help="the commit to compare with (default HEAD)")
    ap.add_argument("--only", nargs="+", metavar="CHAPTER")
    ap.add_argument("--rtol", type=float, default=1e-9, help="relative tolerance for numbers (default 1e-9)")
    ap.add_argument("--json", action="store_true", help="print the report as JSON")
    args = ap.parse_args(argv)
    reports = []
    for chapter, table in list_tables():
        if args.only and chapter not in args.only:
            continue
        rep = compare(chapter, table, args.rev, args.rtol)
        if rep is not None:
            reports.append(rep)
    if args.json:
        print(json.dumps(reports, indent=1, default=str))
        return 0
    if not reports:
        print(f"no stored table differs from {args.rev} beyond timings")
        return 0
    for rep in reports:
        if rep.get("new"):
            print(f"{rep['table']}: new (not at {args.rev})")
            continue
        head = f"{rep['table']} ({rep['rows']} rows"
        head += f", {rep['added']} keys added" if rep["added"] else ""
        head += f", {rep['dropped']} dropped" if rep["dropped"] else ""
        print(head + "):" + ("" if rep["columns"] else " same values"))
        for c, d in sorted(rep["columns"].items()):
            kind = " (interval end)" if c in rep["interval"] else ""
            size = f", largest relative change {d['max_rel']:.3g}" if d["max_rel"] else ""
            k, va, vb = d["example"]
            print(f"    {c}{kind}: {d['rows']} rows{size}; e.g. {k}: {va} -> {vb}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
