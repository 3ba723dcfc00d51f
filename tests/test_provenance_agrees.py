"""One provenance, said the same everywhere: for every stored table, the rows, commits and date a page's
banner and captions state agree with the status page's list, and all of them with the store's own
count (``kvlib.book.store.table_facts``, the one function both are written from).

The comparison reads a built site (``book/_build/html``, from ``bash book/build.sh``); without one it is
skipped.  A synthetic pair of pages shows that a disagreement fails.
"""

from __future__ import annotations

import html as _html
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "book" / "_build" / "html"

# what the banner and a caption say of a stored table (kvlib.book.store.Table.label)
LABEL = re.compile(r"results/(?P<chapter>\w+)/(?P<table>\w+)\.csv\): (?:all (?P<all>[\d,]+) rows|(?P<some>[\d,]+) of "
                   r"(?P<asked>[\d,]+) rows[^,]*), computed at commits? (?P<commits>.+?) on (?P<date>\d{4}-\d\d-\d\d)")
# a row of the status page's list: | chapter | table | rows of asked | commits | updated | stale |
STATUS_ROW = re.compile(r"<tr[^>]*>\s*<td[^>]*><p><code[^>]*><span[^>]*>(?P<chapter>\w+)</span></code></p></td>\s*"
                        r"<td[^>]*><p><code[^>]*><span[^>]*>(?P<table>\w+)</span></code></p></td>\s*"
                        r"<td[^>]*><p>(?P<rows>[\d,]+) of (?P<asked>[\d,]+)</p></td>\s*<td[^>]*><p>(?P<commits>[^<]*)</p></td>"
                        r"\s*<td[^>]*><p>(?P<date>[^<]*)</p></td>", re.S)


def _text(page: str) -> str:
    return re.sub(r"\s+", " ", _html.unescape(re.sub(r"<[^>]+>", "", page)))


def page_claims(text: str) -> dict[tuple[str, str], set[tuple[int, str, str]]]:
    """``(chapter, table) -> {(rows, commits, date), ...}`` of every label on a page."""
    out: dict[tuple[str, str], set] = {}
    for m in LABEL.finditer(text):
        rows = int((m.group("all") or m.group("some")).replace(",", ""))
        out.setdefault((m.group("chapter"), m.group("table")), set()).add((rows, m.group("commits").strip(),
                                                                           m.group("date")))
    return out


def status_claims(page: str) -> dict[tuple[str, str], tuple[int, str, str]]:
    return {(m.group("chapter"), m.group("table")): (int(m.group("rows").replace(",", "")),
                                                     m.group("commits").strip(), m.group("date").strip())
            for m in STATUS_ROW.finditer(page)}


def disagreements(pages: dict[str, str], status_page: str) -> list[str]:
    status = status_claims(status_page)
    out = []
    for name, page in pages.items():
        for key, claims in page_claims(_text(page)).items():
            if len(claims) > 1:
                out.append(f"{name}: {key} is described {len(claims)} ways: {sorted(claims)}")
            if key not in status:
                out.append(f"{name}: {key} is not on the status page")
                continue
            for c in claims:
                if c != status[key]:
                    out.append(f"{name}: {key}: the page says {c}, the status page {status[key]}")
    return out


def test_a_disagreement_is_found():
    row = ('<tr><td><p><code><span>lowerbounds</span></code></p></td><td><p><code><span>tp</span></code></p></td>'
           '<td><p>12 of 12</p></td><td><p>abc1234</p></td><td><p>2026-01-02</p></td><td><p>no</p></td></tr>')
    good = "stored full-mode results (results/lowerbounds/tp.csv): all 12 rows, computed at commit abc1234 on 2026-01-02"
    assert status_claims(row) == {("lowerbounds", "tp"): (12, "abc1234", "2026-01-02")}
    assert disagreements({"a": good}, row) == []
    bad = good.replace("all 12 rows", "all 11 rows")
    assert disagreements({"a": bad}, row) and "the status page" in disagreements({"a": bad}, row)[0]
    assert disagreements({"a": good + " " + bad}, row)[0].startswith("a: ('lowerbounds', 'tp') is described 2 ways")
    assert "not on the status page" in disagreements({"a": good.replace("/tp.csv", "/tq.csv")}, row)[0]


def test_table_facts_is_the_one_count():
    from kvlib.book.store import table_facts

    f = table_facts({"n_expected": 3, "updated": "2026-01-02T10:00:00", "mode": "full"}, ["b" * 40, "a" * 40, "b" * 40])
    assert f["rows"] == 3 and f["expected"] == 3 and f["complete"] and f["date"] == "2026-01-02"
    assert f["commits"] == sorted({"a" * 40, "b" * 40})
    part = table_facts({"n_expected": 5, "created": "2026-01-01T00:00:00"}, ["a" * 40])
    assert not part["complete"] and part["date"] == "2026-01-01"


@pytest.mark.skipif(not (SITE / "chapters" / "status.html").is_file(), reason="no built site (bash book/build.sh)")
def test_banners_captions_and_status_page_agree_on_every_table():
    status = (SITE / "chapters" / "status.html").read_text(encoding="utf8")
    assert status_claims(status), "the status page lists no stored table"
    pages = {p.name: p.read_text(encoding="utf8") for p in (SITE / "chapters").glob("*.html") if p.name != "status.html"}
    assert any(page_claims(_text(p)) for p in pages.values()), "no page describes a stored table"
    problems = disagreements(pages, status)
    assert not problems, "\n".join(problems)
