"""kvlib.book.mission: the mission table's data file book/mission.yml, its validation and rendering."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from kvlib.book import mission as m

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = list(yaml.safe_load((ROOT / "book" / "chapters.yml").read_text()))

GOOD = """
chapters:
  model: The model
rows:
  - paper: "001"
    item: Algorithm 1 (MC-SF)
    chapter: model
    status: reproduced
    note: fine
  - paper: "004"
    item: Theorem 4.2
    chapter: errata
    status: "differs: erratum"
    erratum: errata-004-theorem-4-2
    note: a <b> & c
"""


def _load(text, tmp_path, **kw):
    p = tmp_path / "mission.yml"
    p.write_text(text)
    return m.load(p, **kw)


def test_the_book_file_is_valid_and_counts_add_up():
    rows = m.load(chapters=CHAPTERS)
    assert len(rows) >= 60
    counts = m.counts(rows)
    assert set(counts) == set(m.STATUSES) and sum(counts.values()) == len(rows)
    assert all(counts[s] > 0 for s in m.STATUSES)
    assert {r.paper for r in rows} == set(m.PAPERS)
    summ = m.summary(rows)
    assert summ.iloc[-1]["all"] == len(rows)
    assert list(summ["paper"]) == ["001", "002", "003", "004", "all"]


def test_every_erratum_label_exists_on_the_errata_page_and_every_entry_is_listed():
    page = (ROOT / "book" / "errata.md").read_text()
    labels = set(re.findall(r"^\((errata-[\w-]+)\)=", page, flags=re.M))
    rows = m.load(chapters=CHAPTERS)
    used = {r.erratum for r in rows if r.erratum}
    assert used <= labels, sorted(used - labels)
    # each entry (a label with a paper id and a name) is the erratum of at least one row
    entries = {lab for lab in labels if re.fullmatch(r"errata-00\d-.+", lab)}
    assert entries <= used, sorted(entries - used)


def test_erratum_rows_point_at_errata_of_their_paper():
    for r in m.load(chapters=CHAPTERS):
        if r.status == "differs: erratum":
            assert r.erratum.startswith(f"errata-{r.paper}-"), r


def test_load_small_file_and_render(tmp_path):
    rows = _load(GOOD, tmp_path, chapters=["model", "status"])
    assert [r.item for r in rows] == ["Algorithm 1 (MC-SF)", "Theorem 4.2"]
    assert rows[0].line == 5
    html = m.render_html(rows, {"model": "The model"})
    assert '<a href="../chapters/model.html">The model</a>' in html
    assert '<a href="errata.html#errata-004-theorem-4-2">differs: erratum</a>' in html
    assert "a &lt;b&gt; &amp; c" in html
    assert html.count("<tr>") == 3  # header + two rows
    other = m.render_html(rows, chapter_href="{chapter}.html", errata_href="../book/errata.html#{erratum}",
                          errata_page="../book/errata.html")
    assert 'href="model.html"' in other and 'href="../book/errata.html"' in other
    md = m.render_markdown(rows, {"model": "The model"})
    assert md.splitlines()[0] == "| paper | item | chapter | status | note |"
    assert len(md.splitlines()) == 4 and "| The model |" in md


@pytest.mark.parametrize("change, message", [
    (("status: reproduced", "status: done"), r"row 1 \(paper 001, item 'Algorithm 1 \(MC-SF\)', line 5\): unknown status 'done'"),
    (("    chapter: model\n", ""), r"row 1 .*missing 'chapter'"),
    (("    chapter: model\n", "    chapter: ''\n"), r"row 1 .*missing 'chapter'"),
    (("chapter: model\n    status", "chapter: nowhere\n    status"), r"row 1 .*unknown chapter 'nowhere'"),
    (("chapter: model\n    status", "chapter: \"-\"\n    status"), r"row 1 .*only allowed with status 'not checked'"),
    (("paper: \"001\"", "paper: \"005\""), r"row 1 .*unknown paper '005'"),
    (("paper: \"001\"", "paper: 1"), r"row 1 .*'paper' must be a string"),
    (("    erratum: errata-004-theorem-4-2\n", ""), r"row 2 \(paper 004, item 'Theorem 4.2'.*needs an 'erratum' label"),
    (("note: fine", "note: ratio $x$"), r"row 1 .*contains '\$'"),
    (("note: fine", "note: fine\n    colour: red"), r"row 1 .*unknown key\(s\) \['colour'\]"),
    (('status: "differs: erratum"', "status: differs: erratum"), r"(?s)not valid YAML.*quote values"),
])
def test_bad_rows_are_named(tmp_path, change, message):
    old, new = change
    assert old in GOOD
    with pytest.raises(m.MissionError, match=message):
        _load(GOOD.replace(old, new, 1), tmp_path)


def test_duplicate_rows_are_named(tmp_path):
    text = GOOD + """  - paper: "001"
    item: Algorithm 1 (MC-SF)
    chapter: model
    status: not checked
    note: again
"""
    with pytest.raises(m.MissionError, match=r"row 3 \(paper 001, item 'Algorithm 1 \(MC-SF\)', line 16\): duplicate of row 1"):
        _load(text, tmp_path)


def test_chapter_list_must_exist(tmp_path):
    with pytest.raises(m.MissionError, match=r"\['model'\] are listed under 'chapters' but do not exist"):
        _load(GOOD, tmp_path, chapters=["amin"])


def test_missing_file_and_top_level_keys(tmp_path):
    with pytest.raises(m.MissionError, match="mission file not found"):
        m.load(tmp_path / "nope.yml")
    with pytest.raises(m.MissionError, match="missing top-level key 'rows'"):
        _load("chapters: {model: The model}\n", tmp_path)
    with pytest.raises(m.MissionError, match=r"unknown top-level key\(s\) \['extra'\]"):
        _load(GOOD + "extra: 1\n", tmp_path)
