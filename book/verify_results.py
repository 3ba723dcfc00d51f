#!/usr/bin/env python
"""Check that the stored full-mode results (results/CHAPTER/TABLE.csv) come from today's code.

For every stored table (or those of ``--only CHAPTER ...``) a sample of rows is recomputed with the
table's row function (named in its manifest): the rows that were cheapest to compute (always the
same) and a few rows chosen by ``--seed``, within ``--budget`` seconds of stored compute time per
table.  A deterministic column that differs (a TEL, a decision, an instance hash, a proved optimum),
a recomputed certified interval that does not intersect the stored one, or a stored interval with
lower > upper fails the check with a message naming the table, the row and the column; so does a table
whose bytes differ from the SHA-256 its manifest recorded (an edit outside the store, whichever rows
it touched; an emptied or header-only CSV too), and a CSV without a manifest.  Rows computed
from the shared data directory (``../shared/data``, never copied into the repository) are recomputed
only where it exists; elsewhere they are reported as not eligible.  Every stored schedule of 001 Section 5.1
(hindsight's ``section51*`` tables) is re-checked by the checker of its memory rule, all rows, not a sample.

    python book/verify_results.py                 # every table, seed 0
    python book/verify_results.py --seed 7 --only hindsight --budget 120

Exit status: 0 all sampled rows reproduced, 1 a mismatch, 2 bad arguments or a malformed store.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kvlib.book.store import (MalformedStore, StoreError, list_tables, orphan_tables, results_root,  # noqa: E402
                              verify_table)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="+", metavar="CHAPTER", help="check only these chapters' tables")
    ap.add_argument("--budget", type=float, default=30.0,
                    help="stored compute seconds to re-spend per table on seed-chosen rows (default 30)")
    ap.add_argument("--fixed", type=int, default=2, help="cheapest rows always checked per table (default 2)")
    ap.add_argument("--seeded", type=int, default=3, help="seed-chosen rows per table (default 3)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the row choice (default 0)")
    ap.add_argument("--max-row", type=float, default=120.0,
                    help="do not recompute rows whose stored compute time exceeds this (default 120 s)")
    ap.add_argument("--results", default=None, help="results directory (default: results/ of the repository)")
    args = ap.parse_args(argv)
    root = Path(args.results).resolve() if args.results else results_root()
    tables = [t for t in list_tables(root) if not args.only or t[0] in args.only]
    if args.only:
        missing = sorted(set(args.only) - {c for c, _ in tables})
        if missing:
            print(f"verify_results: no stored tables for chapter(s) {missing} in {root}", file=sys.stderr)
            return 2
    orphans = [p for p in orphan_tables(root) if not args.only or p.parent.name in args.only]
    if not tables and not orphans:
        print(f"verify_results: no stored tables in {root}")
        return 0
    t0 = time.perf_counter()
    failed = malformed = 0
    for p in orphans:  # a table whose manifest is gone cannot be checked: it fails, named
        print(f"FAIL results/{p.parent.name}/{p.name}: no manifest ({p.name[:-4]}.manifest.json is missing), "
              "so nothing says how it was made and its bytes cannot be checked", file=sys.stderr)
        failed += 1
    for chapter, table in tables:
        try:
            rep = verify_table(chapter, table, budget_s=args.budget, n_fixed=args.fixed,
                               n_seeded=args.seeded, seed=args.seed, root=root,
                               max_row_s=args.max_row)
        except MalformedStore as exc:
            print(f"FAIL results/{chapter}/{table}: malformed store: {exc}", file=sys.stderr)
            malformed += 1
            continue
        except StoreError as exc:
            print(f"FAIL results/{chapter}/{table}: {exc}", file=sys.stderr)
            failed += 1
            continue
        if rep.skipped and not rep.mismatches:
            print(f"skip results/{chapter}/{table}: {rep.skipped}")
            continue
        if rep.skipped:
            print(f"FAIL results/{chapter}/{table}: not recomputed ({rep.skipped}), and:")
            for m in rep.mismatches:
                print(f"     {m}", file=sys.stderr)
            failed += 1
            continue
        status = "ok  " if not rep.mismatches else "FAIL"
        note = (f" ({rep.data_skipped} rows computed from the shared data not eligible: the data is absent)"
                if rep.data_skipped else "")
        print(f"{status} {rep.table}: rows {rep.checked_rows} recomputed in {rep.seconds:.1f} s{note}")
        for m in rep.mismatches:
            print(f"     {m}", file=sys.stderr)
        failed += bool(rep.mismatches)
    if not args.only or "hindsight" in args.only:
        failed += _recheck_schedules(root)
    print(f"verify_results: {len(tables) + len(orphans)} table(s), {failed + malformed} failing"
          + (f" ({malformed} with a malformed manifest)" if malformed else "")
          + f", {time.perf_counter() - t0:.0f} s (seed {args.seed})")
    return 2 if malformed else 1 if failed else 0


def _recheck_schedules(root: Path) -> int:
    """Re-check every stored schedule of 001 Section 5.1 with the checker of its memory rule (all rows,
    not a sample: checking is cheap); returns 1 if one is rejected, else 0."""
    from kvlib.book.section51_trials import recheck_stored

    try:
        for line in recheck_stored(root):
            print(f"ok   {line}")
    except (ValueError, KeyError) as exc:
        print(f"FAIL results/hindsight: a stored Section 5.1 schedule: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
