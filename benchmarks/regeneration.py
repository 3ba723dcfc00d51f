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
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kvlib.book.store import full_regeneration, results_root, run_record, store_summary  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--run", action="store_true", help="regenerate first (resumes; add --fresh to recompute all)")
    ap.add_argument("--fresh", action="store_true", help="with --run: recompute every row")
    ap.add_argument("--only", nargs="+", metavar="CHAPTER")
    args = ap.parse_args()
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
