"""Summary table of a 001 Section 5.1 reproduction from its stored rows (complete or partial).

The chapter "The hindsight optimum" stores one row per trial in the results store
(``results/hindsight/section51.csv``, written row by row by
``python book/run_chapters.py --mode full --only hindsight``; columns trial, model (1 or 2),
n, M, mcsf, lower, upper, optimal, seconds, ...).  This prints best / worst / average of
MC-SF / OPT as certified intervals [MC-SF/upper, MC-SF/lower], the number of trials proved
optimal, proved exact matches, and solver seconds, next to the paper's values, so that a
running full-mode computation can be inspected.

    python benchmarks/section51_table.py [results/hindsight/section51.csv]
"""

from __future__ import annotations

import argparse
import sys

import pandas as pd

from kvlib.optimum.exact import section51_summary


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", nargs="?", default="results/hindsight/section51.csv")
    args = ap.parse_args(argv)
    df = pd.read_csv(args.csv)
    for col in ("model", "mcsf", "lower", "upper", "optimal", "seconds"):
        if col not in df.columns:
            sys.exit(f"{args.csv}: column {col!r} is missing (is this a stored section51 table?)")
    df["model"] = [m if str(m).startswith("AM") else f"AM{int(m)}" for m in df.model]
    df["optimal"] = df.optimal.astype(str) == "True"
    print(f"{len(df)} trials in {args.csv} (AM1: {int((df.model == 'AM1').sum())}, "
          f"AM2: {int((df.model == 'AM2').sum())}); total solve seconds {df.seconds.sum():.0f}")
    with pd.option_context("display.width", 200, "display.max_colwidth", 40):
        print(section51_summary(df).to_string())
    return 0


if __name__ == "__main__":
    sys.exit(main())
