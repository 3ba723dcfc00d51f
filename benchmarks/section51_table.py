"""Summary table of a 001 Section 5.1 reproduction from its rows CSV (complete or partial).

The chapter "The hindsight optimum" writes one row per trial to ``results_csv``
as soon as the trial is done (columns model, trial, n, M, mcsf, lower, upper,
optimal, seconds, ...).  This prints best / worst / average of MC-SF / OPT as
certified intervals [MC-SF/upper, MC-SF/lower], the number of trials proved
optimal, proved exact matches, and solver seconds, next to the paper's values.

    python benchmarks/section51_table.py /tmp/s2/hindsight_full_rows.csv
"""

from __future__ import annotations

import argparse
import sys

import pandas as pd

from kvlib.optimum.exact import section51_summary


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv")
    args = ap.parse_args(argv)
    df = pd.read_csv(args.csv)
    print(f"{len(df)} trials in {args.csv} (AM1: {int((df.model == 'AM1').sum())}, "
          f"AM2: {int((df.model == 'AM2').sum())}); total solve seconds {df.seconds.sum():.0f}")
    with pd.option_context("display.width", 200, "display.max_colwidth", 40):
        print(section51_summary(df).to_string())
    return 0


if __name__ == "__main__":
    sys.exit(main())
