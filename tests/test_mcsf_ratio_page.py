"""The presentation helpers of the chapter mcsf_ratio (kvlib.book.mcsf_ratio_page)."""

from __future__ import annotations

import importlib.util
import re

import pandas as pd
import pytest

from kvlib import Instance
from kvlib.book import mcsf_ratio_page as P
from kvlib.theory import thm43_paper as T43

# what the site check reports as raw TeX or as a snake_case identifier (book/check_site.py)
TEX = re.compile(r"\$|\\[A-Za-z]{2,}\b|\\\(|\\\)|[_^]\{")
IDENT = re.compile(r"(^|[^A-Za-z0-9_\/.-])([a-z][a-z0-9]*(?:_[a-z0-9]+)+)(?![A-Za-z0-9_\/(])")


def test_every_step_of_the_chain_has_words():
    """Every step thm43_paper emits (chain with OPT, and Appendix B.3 with OPT) is described."""
    from kvlib.optimum.bruteforce import brute_force_opt

    inst = Instance.at_zero([1] * 4, [1, 2, 3, 3], 10)
    opt = brute_force_opt(inst)[0]
    rows = [T43.chain_inequalities(inst, opt=opt), T43.b3_row(5, 1, 2, 8, exact_opt=True)]
    steps = {k[: -len(".holds")] for r in rows for k in r if k.endswith(".holds")}
    assert steps <= set(P.STEP_WORDS), sorted(steps - set(P.STEP_WORDS))


def test_step_words_are_plain_text():
    for step, words in P.STEP_WORDS.items():
        assert words and not TEX.search(words), step
        assert not IDENT.search(words), (step, words)


def test_step_table_order_and_columns():
    steps = pd.DataFrame({"step": ["B2", "L45", "zzz", "eq8"], "instances": [3, 2, 1, 2],
                          "holds on": [0, 2, 1, 2], "largest lhs / rhs": [1.5, float("nan"), 0.25, 0.5]})
    t = P.step_table(steps)
    assert list(t.columns) == ["step", "what it checks", "applies on", "holds on", "largest left / right"]
    assert list(t.step) == ["L45", "eq8", "B2", "zzz"]  # the paper's order, unknown steps last
    assert list(t["largest left / right"]) == ["-", "0.5", "1.5", "0.25"]
    assert t.loc[t.step == "zzz", "what it checks"].item() == ""
    assert t["applies on"].dtype.kind == "i"


def test_range_summary_keeps_each_row_format():
    df = pd.DataFrame({"n": [2, 4, 14], "r": [1.0, 1.25, 1.5]})
    s = P.range_summary(df, [("requests", "n", "{:,.0f}"), ("ratio", "r", "{:.3f}")])
    assert s.to_dict("records") == [
        {"quantity": "requests", "min": "2", "median": "4", "max": "14"},
        {"quantity": "ratio", "min": "1.000", "median": "1.250", "max": "1.500"}]


@pytest.mark.parametrize("label, expected", [
    ("stored full-mode results (results/mcsf_ratio/open_region.csv): all 189 rows",
     "stored full-mode results (`results/mcsf_ratio/open_region.csv`): all 189 rows"),
    ("quick mode, 6 rows computed live when this page was built",
     "quick mode, 6 rows computed live when this page was built"),
])
def test_label_md_puts_the_path_in_backticks(label, expected):
    assert P.label_text(label) == expected


def test_source_md():
    from types import SimpleNamespace

    stored = SimpleNamespace(policy="read", path="results/mcsf_ratio/chain.csv", n_rows=200)
    live = SimpleNamespace(policy="off", path="results/mcsf_ratio/chain.csv", n_rows=30)
    assert P.source_text(stored) == "stored table `results/mcsf_ratio/chain.csv`"
    assert P.source_text(live) == "30 rows computed live"
    if importlib.util.find_spec("IPython") is not None:  # the notebook's wrappers (book extra)
        assert P.source_md(stored).data == P.source_text(stored)
        assert P.label_md("x results/a/b.csv").data == "x `results/a/b.csv`"
