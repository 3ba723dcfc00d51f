"""kvlib.book.amin_page: provenance notes with code-literal paths, readable and narrow tables."""

from types import SimpleNamespace

import pandas as pd

from kvlib.book.amin_page import as_fraction, joined, readable, rows_note, table, without_constant


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
    assert list(readable(df, policies={"a-min": "literal"}).policy) == ["literal", "a-min-progress", "other"]


def test_joined_and_as_fraction():
    df = pd.DataFrame({"a": [1, 2], "l": [4.0, 5.0], "u": [16, 10], "z": [0.5, 0.25]})
    out = joined(df, ["l", "u"], "(l, u)", template="({}, {})")
    assert list(out.columns) == ["a", "(l, u)", "z"] and list(out["(l, u)"]) == ["(4,\u00a016)", "(5,\u00a010)"]
    assert list(joined(df, ["a", "u"], "a, u")["a, u"]) == ["1,\u00a016", "2,\u00a010"]
    assert [as_fraction(v) for v in (0.25, 1 / 9, 1.0, 0.5)] == ["1/4", "1/9", "1", "1/2"]


def test_table_adds_padding():
    html = table(pd.DataFrame({"x": [1, 2]})).to_html()
    assert "padding: 0.2em 0.55em" in html


def test_without_constant_and_font_size():
    df = pd.DataFrame({"x": [1, 2], "runs": [3, 3]})
    out, v = without_constant(df, "runs")
    assert list(out.columns) == ["x"] and v == 3
    out, v = without_constant(pd.DataFrame({"runs": [2, 3]}), "runs")
    assert v is None and list(out.columns) == ["runs"]
    assert "font-size: 0.85em" in table(df, font_size="0.85em").to_html()
