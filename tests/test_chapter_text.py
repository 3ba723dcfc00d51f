"""Source checks of the chapters' prose (notebooks/*.py, markdown cells), without executing them.

The site checker (book/check_site.py) finds defects in the built pages; these tests catch the same
kinds of wording early, and check the labels of results (CONTRIBUTING.md, "Results: the papers'
labels and ours"):

* the prose never says how the book was made ("issue", "session", "previous reading", "as quoted",
  "not available to us", "we do not have ... text");
* a prf block whose title starts with a paper id (001-004) is the paper's: ``:nonumber:`` and the
  paper's own label right after the id; a block of ours has no "(ours)" in its title (its K number
  says so);
* no display math (``$$`` or a ``math`` directive) inside a prf directive.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "notebooks").glob("*.py"))

FORBIDDEN = re.compile(
    r"\b(issues?|sessions?|previous reading|as quoted|quoted to us|not available to us|"
    r"we do not have (?:\d{3}'s|the papers?'?s?)? ?text|we did not have the papers?'? ?text)\b",
    re.IGNORECASE,
)
PRF_OPEN = re.compile(r"^(?P<fence>:{3,}|`{3,})\{prf:(?P<kind>[a-z]+)\}\s*(?P<title>.*)$")
PAPER_TITLE = re.compile(r"^00[1-4] (Theorem|Lemma|Corollary|Proposition|Definition|Claim|Remark|Example|"
                         r"Algorithm|Assumption|Conjecture)\b")


def markdown_cells(path: Path) -> list[str]:
    """The markdown cells of a jupytext percent-format chapter, as text."""
    jupytext = pytest.importorskip("jupytext")
    nb = jupytext.read(path)
    return [c.source for c in nb.cells if c.cell_type == "markdown"]


def prf_blocks(text: str):
    """(kind, title, body lines) of every prf directive in a markdown cell (fences ::: or ```)."""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = PRF_OPEN.match(lines[i].strip())
        if not m:
            i += 1
            continue
        fence, body = m.group("fence"), []
        i += 1
        while i < len(lines) and lines[i].strip() != fence:
            body.append(lines[i])
            i += 1
        yield m.group("kind"), m.group("title").strip(), body
        i += 1


def test_chapters_found():
    assert len(CHAPTERS) >= 8, [p.name for p in CHAPTERS]


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_prose_never_says_how_the_book_was_made(path):
    bad = []
    for cell in markdown_cells(path):
        for line in cell.splitlines():
            m = FORBIDDEN.search(line)
            if m:
                bad.append(f"{m.group(0)!r} in: {line.strip()[:100]}")
    assert not bad, f"{path.name}: " + "; ".join(bad)


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_prf_titles_follow_the_labels_of_results(path):
    bad = []
    for cell in markdown_cells(path):
        for kind, title, body in prf_blocks(cell):
            if kind == "proof":
                continue
            options = [b.strip() for b in body if b.strip().startswith(":")]
            if re.match(r"^00[1-4]\b", title):
                if not PAPER_TITLE.match(title):
                    bad.append(f"paper block without the paper's label after its id: {title!r}")
                if ":nonumber:" not in options:
                    bad.append(f"paper block without :nonumber:: {title!r}")
            elif re.search(r"\(ours\)|\(ours;", title):
                bad.append(f"'(ours)' in the title of a numbered block: {title!r}")
            if any(b.strip().startswith("$$") or b.strip().startswith("```{math}") for b in body):
                bad.append(f"display math inside the prf block {title!r}")
    assert not bad, f"{path.name}: " + "; ".join(bad)


def test_the_checks_catch_what_they_should():
    text = ":::{prf:theorem} 002 Theorem 3\n:label: x\nstatement\n:::\n" \
           ":::{prf:lemma} Something (ours)\n:label: y\n$$\na\n$$\n:::\n"
    blocks = list(prf_blocks(text))
    assert [(k, t) for k, t, _ in blocks] == [("theorem", "002 Theorem 3"), ("lemma", "Something (ours)")]
    assert PAPER_TITLE.match("002 Theorem 3 (Sorted-F)")
    assert not PAPER_TITLE.match("0021 things")
    assert FORBIDDEN.search("formulas quoted from our issue")
    assert FORBIDDEN.search("the previous session's reading")
    assert FORBIDDEN.search("The paper's claim (as quoted)")
    assert not FORBIDDEN.search("the Rayleigh quotient of the reconstructed forms")


PLUMBING_CALL = re.compile(r"^\s*(glue|g|glue_figure|glue_math|styled|display)\(", re.MULTILINE)


def plumbing_in_teaching_cells(source: str) -> list[str]:
    """Glue and display calls in the code cells a chapter shows (tag ``teach``): they belong in the
    hidden cell after it, so that the shown code is the computation that teaches."""
    jupytext = pytest.importorskip("jupytext")
    nb = jupytext.reads(source, fmt="py:percent")
    bad = []
    for cell in nb.cells:
        if cell.cell_type == "code" and "teach" in cell.metadata.get("tags", []):
            bad += [f"{m.group(1)}(...) in the cell starting {cell.source.strip().splitlines()[0][:60]!r}"
                    for m in PLUMBING_CALL.finditer(cell.source)]
    return bad


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_teaching_cells_hold_no_plumbing(path):
    bad = plumbing_in_teaching_cells(path.read_text(encoding="utf8"))
    assert not bad, f"{path.name}: " + "; ".join(bad)


def test_the_plumbing_check_catches_a_glue_call():
    src = '# %% tags=["teach"]\nx = 1\nglue("x", x, display=False)\n\n# %%\nglue("y", 2)\n'
    assert plumbing_in_teaching_cells(src) == ["glue(...) in the cell starting 'x = 1'"]
