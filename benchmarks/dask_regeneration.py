#!/usr/bin/env python
"""Regeneration on a Dask cluster against the local process pool, and the whole store on N workers.

1. Regenerates one stored table (default ``lowerbounds/tp``: its row function and keys are read from
   ``results/``) into a scratch results folder with the store's local process pool (1 and 2 workers)
   and with a Dask ``LocalCluster`` (1 and 2 worker processes), prints the wall time of each, and
   checks that every run wrote the same deterministic values as the committed table.
2. Projects the wall time of regenerating the whole store on N workers from the per-row compute times
   recorded in ``results/`` (longest-row-first list scheduling of all rows, every row independent;
   a lower bound is max(total / N, longest row)).  Chapter overheads (cells that run live) are not
   included.

    python benchmarks/dask_regeneration.py                      # lowerbounds/tp, then the projection
    python benchmarks/dask_regeneration.py --table amin/theorem2 --workers 1 2 4
    python benchmarks/dask_regeneration.py --chapter lowerbounds     # every stored table of a chapter
    python benchmarks/dask_regeneration.py --projection-only

Nothing under ``results/`` is written; the scratch folder is removed at the end.
"""

from __future__ import annotations

import argparse
import heapq
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kvlib.book.store import (META_COLUMNS, Store, list_tables, load_manifest, local_dask_cluster,  # noqa: E402
                              read_rows, release_dask_client, resolve_function, results_root, table_paths)


def regenerate(chapter: str, table: str, scratch: Path, jobs: int, dask: str | None) -> tuple[float, list[dict]]:
    man = load_manifest(table_paths(chapter, table)[1])
    _, rows = read_rows(table_paths(chapter, table)[0])
    keys = [json.loads(r["_key"]) for r in rows]
    fn = resolve_function(man["function"])
    if dask:
        os.environ["KVBOOK_DASK"] = dask
    else:
        os.environ.pop("KVBOOK_DASK", None)
    store = Store(chapter, mode="full", parameters=man.get("parameters"), policy="write", root=scratch)
    t0 = time.perf_counter()
    tab = store.table(table, fn, keys, exact=man.get("exact"), interval=[tuple(p) for p in man.get("interval", [])],
                      timing=man.get("timing", []), ignore=man.get("ignore", []), jobs=jobs, progress=False)
    wall = time.perf_counter() - t0
    return wall, tab.frame.to_dict("records")


def deterministic(chapter: str, table: str, records: list[dict]) -> list[tuple]:
    man = load_manifest(table_paths(chapter, table)[1])
    skip = set(META_COLUMNS) | set(man.get("timing", [])) | set(man.get("ignore", []))
    skip |= {c for p in man.get("interval", []) for c in p}
    return sorted(tuple((k, repr(v)) for k, v in sorted(r.items()) if k not in skip) for r in records)


def projection(workers: list[int]) -> None:
    walls: list[float] = []
    for chapter, table in list_tables(results_root()):
        _, rows = read_rows(table_paths(chapter, table)[0])
        walls += [float(r.get("_wall_s") or 0.0) for r in rows]
    walls.sort(reverse=True)
    total = sum(walls)
    print(f"\nwhole store: {len(walls)} rows, {total / 3600:.2f} h of recorded row compute time, "
          f"longest row {walls[0]:.0f} s")
    print(f"{'workers':>8} {'projected wall time':>20} {'lower bound':>12} {'speed-up':>9}")
    for n in workers:
        loads = [0.0] * n
        heapq.heapify(loads)
        for w in walls:  # longest row first to the least loaded worker
            heapq.heappush(loads, heapq.heappop(loads) + w)
        span = max(loads)
        lb = max(total / n, walls[0])
        print(f"{n:>8} {span / 60:>17.1f} min {lb / 60:>8.1f} min {total / span:>8.1f}x")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--table", default="lowerbounds/tp", help="CHAPTER/TABLE to regenerate (default lowerbounds/tp)")
    ap.add_argument("--chapter", help="regenerate every stored table of this chapter (instead of --table)")
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="worker counts to time (default 1 2)")
    ap.add_argument("--projection", type=int, nargs="+", default=[1, 2, 4, 8, 16, 32, 64, 128],
                    help="worker counts of the projection")
    ap.add_argument("--projection-only", action="store_true")
    args = ap.parse_args(argv)
    targets = ([t for t in list_tables(results_root()) if t[0] == args.chapter] if args.chapter
               else [tuple(args.table.partition("/")[::2])])
    if not args.projection_only and not targets:
        print(f"no stored tables for chapter {args.chapter}", file=sys.stderr)
        return 2
    totals: dict[str, float] = {}
    for chapter, table in ([] if args.projection_only else targets):
        if not table_paths(chapter, table)[1].exists():
            print(f"no stored table {chapter}/{table}", file=sys.stderr)
            return 2
        _, committed = read_rows(table_paths(chapter, table)[0])
        print(f"regenerating results/{chapter}/{table} ({len(committed)} rows, "
              f"{sum(float(r['_wall_s'] or 0) for r in committed):.0f} s of recorded compute) on {os.cpu_count()} cores")
        reference = None
        print(f"{'executor':<28} {'wall time':>10}  same values as the first run")
        for w in args.workers:
            for kind in ("process pool", "Dask LocalCluster"):
                with tempfile.TemporaryDirectory(prefix="kvbook-dask-bench-") as tmp:
                    if kind == "process pool":
                        wall, recs = regenerate(chapter, table, Path(tmp), w, None)
                    else:
                        with local_dask_cluster(w) as cluster:
                            wall, recs = regenerate(chapter, table, Path(tmp), 1, cluster.scheduler_address)
                            release_dask_client(cluster.scheduler_address)
                label = kind + f", {w} worker" + ("s" if w > 1 else "")
                totals[label] = totals.get(label, 0.0) + wall
                det = deterministic(chapter, table, recs)
                reference = reference or det
                print(f"{kind + f', {w} worker' + ('s' if w > 1 else ''):<28} {wall:>8.1f} s  {det == reference}")
        stored = deterministic(chapter, table, [{k: v for k, v in r.items()} for r in
                                                Store(chapter, mode="full", policy="read").table(
                                                    table, resolve_function(load_manifest(
                                                        table_paths(chapter, table)[1])["function"]),
                                                    [json.loads(r["_key"]) for r in committed]).frame.to_dict("records")])
        print(f"the regenerated values equal the committed table's: {stored == reference}")
    if len(targets) > 1 and totals:
        print(f"\nall {len(targets)} tables of {args.chapter}:")
        for label, wall in totals.items():
            print(f"{label:<28} {wall:>8.1f} s")
    projection(args.projection)
    return 0


if __name__ == "__main__":
    sys.exit(main())
