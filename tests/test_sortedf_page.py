"""kvlib.book.sortedf_page: the wording and table helpers of the chapter "Sorted-F and the ratio 48"."""

import math

import pandas as pd

from kvlib.book.sortedf_page import cell, dropped_sentence, fallback_sentence, percent_phrase, plain, summary_table, transposed
from kvlib.policies.wyz import CHAIN_LINKS


def test_plain_spells_out_kvlib_labels():
    assert plain("Thm 4: SF / separate") == "Theorem 4: Sorted-F / separate"
    assert plain("bridge: align / Optimal_align") == "bridge: align / Optimal (align)"
    assert plain("Optimal_align / OPT") == "Optimal (align) / OPT"
    assert plain("Sorted-F_separate") == "Sorted-F (separate)"
    assert plain("Sorted-F / OPT") == "Sorted-F / OPT"  # already plain: unchanged
    for label, *_ in CHAIN_LINKS:  # no identifier and no abbreviation survives in a link label
        out = plain(label)
        assert "_" not in out and "Thm" not in out and " SF " not in f" {out} "


def test_cell():
    assert cell(float("nan")) == "-"
    assert cell(None) == "-"
    assert cell(1234.0, 0) == "1,234"
    assert cell(1.00371, 4) == "1.0037"
    assert cell("n/a") == "n/a"


def test_summary_table_is_readable_and_correct():
    tel = pd.Series([10, 20, 30, 40])
    ratio = pd.Series([0.95, 1.0, 1.05, 1.0])
    t = summary_table({"TEL (rounds)": (tel, 0), "ratio": (ratio, 4)})
    assert list(t.columns) == ["quantity", "instances", "mean", "smallest", "largest"]
    row = t.iloc[0]
    assert (row["instances"], row["mean"], row["smallest"], row["largest"]) == ("4", "25.0", "10", "40")
    assert t.iloc[1]["mean"] == "1.0000" and t.iloc[1]["largest"] == "1.0500"
    assert not any("." in v for v in t["instances"])  # counts are integers, never "200.0000"


def test_transposed_keeps_every_value():
    f = pd.DataFrame({"a": [1.0, 2.0], "b": [0.5, math.nan]}, index=["x", "y"])
    t = transposed(f, [("A", "a", 0), ("B", "b", 2)])
    assert list(t.columns) == ["quantity", "x", "y"]
    assert t.to_dict("list") == {"quantity": ["A", "B"], "x": ["1", "0.50"], "y": ["2", "-"]}


def test_sentences_follow_the_counts():
    none = dropped_sentence(0, 0.0, 10.0)
    assert "none was dropped" in none and "at most" not in none
    some = dropped_sentence(2, 1.23456, 10.0)
    assert some.startswith("2 instances") and "1.2346" in some
    assert dropped_sentence(1, 1.0, 10.0).startswith("1 instance the IP")
    assert fallback_sentence(0, 20) == "The LP-based policies never needed the fallback time grid."
    assert "20 rounds on 3 runs" in fallback_sentence(3, 20)
    assert fallback_sentence(1, 20).endswith("on 1 run.")


def test_percent_phrase():
    assert percent_phrase(-8.16) == "8.16% below"
    assert percent_phrase(0.774) == "0.77% above"
    assert percent_phrase(0.001).startswith("equal to")
