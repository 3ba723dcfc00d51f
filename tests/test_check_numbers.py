"""book/check_numbers.py: every number typed into a chapter's prose is glued, exempt or allowed with a
reason; the exemptions (references, years, names, a paper's labelled numbers, formula constants) hold,
and a page with a typed result fails."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("kvbook_check_numbers", ROOT / "book" / "check_numbers.py")
cn = importlib.util.module_from_spec(spec)
sys.modules["kvbook_check_numbers"] = cn
spec.loader.exec_module(cn)


def _nb(*markdown: str) -> str:
    cells = ["# %% tags=[\"parameters\"]\nmode = \"quick\"\nseed = 12345\n"]
    cells += ["# %% [markdown]\n" + "\n".join("# " + line for line in text.splitlines()) + "\n" for text in markdown]
    return "\n".join(cells)


def _numbers(*markdown: str) -> list[str]:
    return [t.number for t in cn.typed_numbers("x", _nb(*markdown))]


def test_a_typed_result_is_found():
    assert _numbers("MC-SF's average ratio is 1.0336 over 200 trials.") == ["1.0336", "200"]
    assert _numbers("The cache holds 16,492 tokens.") == ["16,492"]
    assert _numbers("With $M = 16{,}492$ tokens and $\\alpha = 0.2555$.") == ["16,492", "0.2555"]
    # a number typed on the line after an inline formula that spans two lines
    assert _numbers("the bound $x + y\n= z$ holds on 37 instances") == ["37"]
    # a value in display math, in an amsmath environment too
    assert _numbers("$$\nT = 9216 \\cdot x\n$$", "\\begin{equation*}\nx \\le 8192 \\tag{5}\n\\end{equation*}") == ["9216", "8192"]


def test_what_may_be_typed_is_not_listed():
    assert _numbers(
        "Section 5.1, Theorems 4.3 and 4.4, eq. (5), Figure 2, Table EC.1, Lemma 5.5's and 5.6's step,",
        "Appendix B.2, Algorithm 2, in 2025, 001 and 004, AM1 on A100s with Llama-2-70B, arXiv:2502.07115,",
        "request 0 and ratio 1, display (8), $t = 0, 1, 2$, $3.5M$, $\\tfrac{m(m+1)}{2}$,",
        "- a list item\n1. a numbered item",
        "{glue:text}`tel_mcsf:,d` rounds; `code 123`; [a link](https://x.org/a/123)",
        "The paper's average is 1.0336 (001 reports it over 200 trials).",
        "$$\nT = 6 \\cdot x\n$$",
        "\\begin{equation*}\nx \\le 2y \\tag{5}\n\\end{equation*}",
        "```python\nx = 12345\n```",
    ) == []


def test_allow_list_entries_need_a_reason_and_are_used(tmp_path):
    nbdir = tmp_path / "notebooks"
    nbdir.mkdir()
    (nbdir / "c.py").write_text(_nb("It took 37 rounds, and 12 more."), "utf8")
    left, unused = cn.check(["c"], nbdir, {"c": [{"quote": "took 37 rounds", "reason": "an example"},
                                                  {"quote": "gone 99", "reason": "stale"}]})
    assert [t.number for t in left] == ["12"] and len(unused) == 1 and "gone 99" in unused[0]
    left, unused = cn.check(["c"], nbdir, {"pending": {"c": 2}})
    assert not left and not unused
    left, _ = cn.check(["c"], nbdir, {"pending": {"c": 1}})
    assert [t.number for t in left] == ["37", "12"]  # more than recorded: every one is listed
    bad = tmp_path / "a.yml"
    bad.write_text("c:\n  - quote: took 37 rounds\n", "utf8")
    with pytest.raises(ValueError, match="reason"):
        cn.load_allow(bad)


def test_the_chapters_type_no_number_that_is_neither_glued_nor_allowed():
    left, unused = cn.check()
    assert not left, "\n".join(map(str, left))
    assert not unused, "\n".join(unused)
