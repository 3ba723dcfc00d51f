"""kvlib.book.amin_page: provenance notes with code-literal paths, readable table headers."""

from types import SimpleNamespace

import pandas as pd

from kvlib.book.amin_page import readable, rows_note


def test_rows_note_puts_the_path_in_a_code_literal():
    tab = SimpleNamespace(path="results/amin/ec7_coupling.csv",
                          label="stored full-mode results (results/amin/ec7_coupling.csv): all 40 rows")
    assert rows_note(tab) == "stored full-mode results (`results/amin/ec7_coupling.csv`): all 40 rows"
    live = SimpleNamespace(path="results/amin/x.csv", label="quick mode, 6 rows computed live")
    assert rows_note(live) == "quick mode, 6 rows computed live"


def test_readable_renames_columns_and_policies():
    df = pd.DataFrame({"policy": ["a-min", "a-min-progress", "other"], "lam": [1.0, 2.0, 3.0]})
    out = readable(df, {"lam": "λ_max"})
    assert list(out.columns) == ["policy", "λ_max"]
    assert list(out.policy) == ["A_min", "A_min (progress reading)", "other"]
