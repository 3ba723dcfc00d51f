"""Result helpers of kvlib.serving.experiments and kvlib.book.sweeps.run_specs."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from kvlib.book.sweeps import run_specs
from kvlib.serving.experiments import format_alpha, policy_label, slope_of, smallest_stable_alpha


def test_policy_label():
    assert policy_label("mc-sf", {}) == "mc-sf"
    assert policy_label("mc-sf") == "mc-sf"
    assert policy_label("alpha-beta-clearing", {"alpha": 0.3, "beta": 0.5}) == "alpha-beta-clearing(alpha=0.3, beta=0.5)"


def test_smallest_stable_alpha_needs_every_larger_alpha_to_complete():
    runs = pd.DataFrame({
        "rate": [50.0] * 8 + [10.0] * 4,
        "alpha": [0.1, 0.1, 0.2, 0.2, 0.3, 0.3, 0.4, 0.4, 0.1, 0.2, 0.3, 0.4],
        "completed": [True, True, True, False, True, True, True, True, False, False, False, False],
    })
    # at 50/s alpha = 0.1 completed but 0.2 had an endless loop, so the threshold is 0.3
    assert smallest_stable_alpha(runs, 50.0) == 0.3
    assert math.isnan(smallest_stable_alpha(runs, 10.0))
    with pytest.raises(KeyError, match="no run at rate 99"):
        smallest_stable_alpha(runs, 99.0)
    assert format_alpha(0.1, [0.1, 0.2]) == "<= 0.1"
    assert format_alpha(0.3, [0.1, 0.2, 0.3]) == "0.3"


def test_slope_of():
    S = pd.DataFrame({"rate": [50.0, 10.0], "policy": ["mc-sf", "mc-sf"], "slope (s per request)": [0.2, 0.01]})
    assert slope_of(S, 10.0, "mc-sf") == 0.01
    assert math.isnan(slope_of(S, 50.0, "fcfs"))


def test_run_specs_merges_base_and_keeps_order():
    specs = [{"workload": "lmsys", "n": 20, "seed": s, "policy": "mc-sf", "rate": None} for s in (0, 1)]
    df = run_specs(specs, base={"memory": 4000, "seed": 99}, n_jobs=1, progress=False)
    assert list(df.seed) == [0, 1] and list(df.memory) == [4000, 4000]
    assert df.completed.all() and df.valid.all()


def test_parallel_map_without_progress_does_not_import_tqdm():
    import subprocess
    import sys

    code = ("import sys; from kvlib.book.sweeps import parallel_map; "
            "assert parallel_map(abs, [-1, 2], n_jobs=1, progress=False) == [1, 2]; "
            "print('tqdm.auto' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
