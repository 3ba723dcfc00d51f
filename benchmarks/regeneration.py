#!/usr/bin/env python
"""How long the full-mode stored results take to (re)generate, per chapter, and how big they are.

Reads the manifests of the results store (results/CHAPTER/TABLE.manifest.json, results/CHAPTER/_run.json):
rows stored / asked, the summed compute time of the stored rows (the CPU-side cost of a fresh
regeneration, one row at a time), the wall time of the chapter's last full-mode run, the wall time of
its last *full* regeneration (every stored row recomputed: ``--fresh``, possibly continued over several
runs with ``--resume-regeneration``, whose wall times are then summed), and the cores
of the machine that ran it.  With ``--run`` it first regenerates (``book/run_chapters.py --mode full
[--only ...]``, resumable) and then reports.

    python benchmarks/regeneration.py
    python benchmarks/regeneration.py --run --only lowerbounds
    python benchmarks/regeneration.py --overhead            # the cost of recording which code rows run

``--overhead`` runs a sample of stored rows of three tables of different chapters twice, each time in a
fresh interpreter: plainly, and with the record of the code they execute
(:mod:`kvlib.book.fingerprint`, as a regeneration takes it: each row inside a recording, then its record
taken in the same process), and prints the CPU seconds of the rows with their records (the one-off
instrumentation of a process and the parse of its sources by the first record are printed apart).
Measured on 2026-12-07 (2 cores busy with a regeneration, this script at nice 19, CPU seconds, fastest
of two): realtrace/table1 1.11 -> 1.24 s (+11.4 %), sortedf/theorem3 3.04 -> 3.24 s (+6.5 %), amin/lemma2
9.37 -> 9.49 s (+1.3 %); the one-off per process 1.3 to 2.5 s.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kvlib.book.store import full_regeneration, results_root, run_record, store_summary  # noqa: E402

OVERHEAD_TABLES = ("realtrace/table1", "sortedf/theorem3", "amin/lemma2")
_ROWS = r"""
import json, sys, time
from kvlib.book.store import load_manifest, read_rows, resolve_function, row_needs_shared_data, table_paths
chapter, table, budget, record = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4] == "1"
csv_path, man_path = table_paths(chapter, table)
fn = resolve_function(load_manifest(man_path)["function"])
_, rows = read_rows(csv_path)
keys, spent = [], 0.0
for r in rows:  # stored order, up to the budget of stored compute time
    if spent >= budget:
        break
    if not row_needs_shared_data(r):
        keys.append(json.loads(r["_key"]))
        spent += float(r["_wall_s"] or 0)
setup = 0.0
if record:
    from kvlib.book import fingerprint
    t0 = time.process_time()
    fingerprint.install()
    setup = time.process_time() - t0
cpu = first = 0.0
for j, k in enumerate(keys):
    t0 = time.process_time()
    if record:  # as the store does it: the row inside a recording, then its record, in the same process
        with fingerprint.recording() as ran:
            fn(**k)
        t1 = time.process_time()
        fingerprint.row_record(ran)
        if j == 0:  # the first record parses the sources the process compiled: a one-off, reported apart
            first = time.process_time() - t1
            t0 += first
    else:
        fn(**k)
    cpu += time.process_time() - t0
print(json.dumps({"rows": len(keys), "cpu": cpu, "setup": setup + first}))
"""


def overhead(tables=OVERHEAD_TABLES, budget: float = 10.0, reps: int = 2) -> int:
    """Print the CPU time of a sample of rows with and without the record of the code they run."""
    import json

    print(f"{'table':<20} {'rows':>5} {'plain CPU s':>12} {'recorded CPU s':>15} {'overhead':>9} "
          f"{'instrumenting s':>16}")
    worst = float("-inf")
    for t in tables:
        chapter, table = t.split("/")
        best: dict[bool, dict] = {}
        for _ in range(reps):  # alternate, keep the fastest of each
            for record in (False, True):
                out = subprocess.run([sys.executable, "-c", _ROWS, chapter, table, str(budget), str(int(record))],
                                     capture_output=True, text=True, check=True, cwd=ROOT)
                got = json.loads(out.stdout.strip().splitlines()[-1])
                if record not in best or got["cpu"] < best[record]["cpu"]:
                    best[record] = got
        plain, rec = best[False], best[True]
        ratio = rec["cpu"] / plain["cpu"] - 1 if plain["cpu"] else float("nan")
        worst = max(worst, ratio)
        print(f"{t:<20} {plain['rows']:>5} {plain['cpu']:>12.2f} {rec['cpu']:>15.2f} {ratio:>+8.1%} "
              f"{rec['setup']:>16.2f}")
    print(f"largest overhead {worst:+.1%} (goal: under 30 %)")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--run", action="store_true", help="regenerate first (resumes; add --fresh to recompute all)")
    ap.add_argument("--fresh", action="store_true", help="with --run: recompute every row")
    ap.add_argument("--only", nargs="+", metavar="CHAPTER")
    ap.add_argument("--overhead", action="store_true",
                    help="measure the cost of recording the code rows run (three tables, fresh interpreters)")
    ap.add_argument("--budget", type=float, default=10.0, help="with --overhead: stored seconds of rows per table")
    args = ap.parse_args()
    if args.overhead:
        return overhead(budget=args.budget)
    if args.run:
        cmd = [sys.executable, str(ROOT / "book/run_chapters.py"), "--mode", "full", "--no-status"]
        cmd += ["--only", *args.only] if args.only else []
        cmd += ["--fresh"] if args.fresh else []
        subprocess.run(cmd, check=True)
    rows = [r for r in store_summary() if not args.only or r["chapter"] in args.only]
    if not rows:
        print(f"no stored tables in {results_root()}")
        return 0
    w = max(len(f"{r['chapter']}/{r['table']}") for r in rows)
    print(f"{'table':<{w}}  {'rows':>11}  {'compute s':>10}  {'chapter wall s':>14}  cores  stale  size kB")
    for r in rows:
        print(f"{r['chapter'] + '/' + r['table']:<{w}}  {r['rows']:>5}/{r['rows asked'] or 0:<5}  "
              f"{r['compute time (s)']:>10.1f}  {r['chapter run wall time (s)'] or 0:>14.1f}  "
              f"{r['cores'] or '?':>5}  {r['stale']:>5}  {r['size (kB)']:>7.1f}")
    chapters = sorted({r["chapter"] for r in rows})
    total_compute = sum(r["compute time (s)"] for r in rows)
    total_wall = sum(next((r["chapter run wall time (s)"] or 0) for r in rows if r["chapter"] == c) for c in chapters)
    print(f"\n{'chapter':<12} {'rows':>11}  {'row compute min':>15}  {'last run wall min':>17}  rows computed in last run")
    for c in chapters:
        rc = [r for r in rows if r["chapter"] == c]
        run = run_record(c)
        computed = sum(int(t.get("computed_in_this_run") or 0) for t in (run.get("tables") or {}).values())
        stored = sum(r["rows"] for r in rc)
        asked = sum(r["rows asked"] or 0 for r in rc)
        wall = run.get("chapter_wall_time_s")
        full = full_regeneration(run)
        pieces = int(full.get("pieces") or 1) if full else 0
        full_txt = (f"{full['chapter_wall_time_s'] / 60:.1f} min on {full.get('cores') or '?'} cores"
                    + (f" (summed over {pieces} runs)" if pieces > 1 else "")
                    + f", {(full.get('finished') or '')[:10]}, commit {(full.get('git_sha') or '?')[:7]}"
                    if full else "not measured")
        print(f"{c:<12} {stored:>5}/{asked:<5}  {sum(r['compute time (s)'] for r in rc) / 60:>15.1f}  "
              f"{(f'{wall / 60:.1f}' if wall else '-'):>17}  "
              + (f"{computed} of {stored} ({'a full regeneration' if computed >= stored else 'resumed: the rest were stored'})"
                 if run else "no run record") + f"; full regeneration: {full_txt}")
    size = sum(p.stat().st_size for p in results_root().rglob("*") if p.is_file())
    print(f"\n{len(rows)} tables in {len(chapters)} chapters: {total_compute / 60:.1f} min of row compute time; "
          f"last chapter runs {total_wall / 60:.1f} min wall in total; store size {size / 1e6:.2f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
