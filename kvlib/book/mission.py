"""The book's mission table: one row per theorem, algorithm and experiment of the four papers.

The rows live in one data file, ``book/mission.yml``; the introduction shows the table (glued from
the status chapter) and any chapter may read it.  A row names the paper (``001``-``004``), the item
as the paper numbers it (``"Theorem 4.3"``, ``"Algorithm 1 (MC-SF)"``, ``"Table 1"``), the chapter
that treats it, a status and a one-line note::

    chapters:                      # name -> title of every chapter a row may name
      model: The model
    rows:
      - paper: "001"
        item: Algorithm 1 (MC-SF)
        chapter: model             # a chapter above, "errata" (the errata page only) or "-" (none)
        status: reproduced         # one of STATUSES
        note: ...
        erratum: errata-001-b3     # label on the errata page; required for "differs: erratum"

:func:`load` reads and validates the file; every error names the row (its number, paper, item and
line in the file).  :func:`render_html` and :func:`render_markdown` produce the table;
:func:`summary` counts the rows by paper and status.

Notes are rendered as plain text inside raw HTML, where TeX would not be typeset, so a note may not
contain ``$`` (use Unicode: α, √M, ≤).
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

import pandas as pd
import yaml

STATUSES = ("reproduced", "differs: erratum", "differs: not reproduced", "not checked")
PAPERS = ("001", "002", "003", "004")
NO_CHAPTER = "-"
ERRATA = "errata"
REQUIRED = ("paper", "item", "chapter", "status", "note")
OPTIONAL = ("erratum", "verdict")
#: verdicts a row may take from stored results instead of its written status (``verdict: KEY``):
#: KEY -> arrival model of :func:`kvlib.book.section51_verdict.mission_verdict`
VERDICTS = {"section51-am1": "AM1", "section51-am2": "AM2"}


class MissionError(ValueError):
    """A malformed mission file; the message names the row (or the key) at fault."""


@dataclass(frozen=True)
class MissionRow:
    paper: str
    item: str
    chapter: str
    status: str
    note: str
    erratum: str | None = None
    line: int | None = None  # 1-based line of the row in the file, when loaded from YAML
    verdict: str | None = None  # a key of VERDICTS: the status is computed from stored results


def default_path() -> Path:
    """``book/mission.yml`` of the repository this module belongs to."""
    return Path(__file__).resolve().parents[2] / "book" / "mission.yml"


class _LineLoader(yaml.SafeLoader):
    """A safe loader that records the line of every mapping under the key ``__line__``."""


def _construct_mapping(loader: _LineLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    mapping = yaml.SafeLoader.construct_mapping(loader, node, deep=deep)
    mapping["__line__"] = node.start_mark.line + 1
    return mapping


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def _where(k: int, entry: dict) -> str:
    paper = entry.get("paper", "?") if isinstance(entry, dict) else "?"
    item = entry.get("item", "?") if isinstance(entry, dict) else "?"
    line = entry.get("__line__") if isinstance(entry, dict) else None
    at = f", line {line}" if line else ""
    return f"row {k + 1} (paper {paper!s}, item {item!r}{at})"


def parse(text: str, source: str = "mission file") -> dict:
    """The YAML document as a mapping with keys ``chapters`` and ``rows`` (not yet validated)."""
    try:
        doc = yaml.load(text, Loader=_LineLoader)
    except yaml.YAMLError as exc:
        raise MissionError(f"{source}: not valid YAML ({exc}); quote values that contain ': ', "
                           f"e.g. status: \"differs: erratum\"") from None
    if not isinstance(doc, dict):
        raise MissionError(f"{source}: expected a mapping with keys 'chapters' and 'rows'")
    unknown = sorted(set(doc) - {"chapters", "rows", "__line__"})
    if unknown:
        raise MissionError(f"{source}: unknown top-level key(s) {unknown}; expected 'chapters' and 'rows'")
    for key in ("chapters", "rows"):
        if key not in doc:
            raise MissionError(f"{source}: missing top-level key {key!r}")
    return doc


def validate(rows: Sequence[dict], chapter_titles: dict[str, str], *,
             chapters: Iterable[str] | None = None, source: str = "mission file") -> list[MissionRow]:
    """Check every row and return them as :class:`MissionRow` objects (file order).

    ``chapter_titles`` maps the chapter names a row may use to their titles; ``chapters``, if given,
    is the list of chapters that exist (e.g. the keys of ``book/chapters.yml``), and every name of
    ``chapter_titles`` must be one of them.  Raises :class:`MissionError` naming the row for: a
    missing or unknown key, a value that is not a non-empty string, an unknown paper or status, a
    missing or unknown chapter, ``"-"`` (no chapter) with a status other than ``"not checked"``,
    ``"differs: erratum"`` without an ``erratum`` label, a ``$`` in a note, and a duplicate
    ``(paper, item)``.
    """
    if not isinstance(chapter_titles, dict) or not chapter_titles:
        raise MissionError(f"{source}: 'chapters' must map chapter names to titles")
    for name, title in chapter_titles.items():
        if name == "__line__":
            continue
        if not isinstance(title, str) or not title.strip():
            raise MissionError(f"{source}: chapter {name!r} needs a non-empty title")
    known = {k for k in chapter_titles if k != "__line__"}
    if chapters is not None:
        existing = set(chapters)
        missing = sorted(known - existing)
        if missing:
            raise MissionError(f"{source}: chapter(s) {missing} are listed under 'chapters' but do not exist "
                               f"(existing: {sorted(existing)})")
    if not isinstance(rows, list) or not rows:
        raise MissionError(f"{source}: 'rows' must be a non-empty list")

    out: list[MissionRow] = []
    seen: dict[tuple[str, str], int] = {}
    for k, entry in enumerate(rows):
        where = _where(k, entry)
        if not isinstance(entry, dict):
            raise MissionError(f"{source}: {where}: expected a mapping, got {entry!r}")
        keys = set(entry) - {"__line__"}
        unknown = sorted(keys - set(REQUIRED) - set(OPTIONAL))
        if unknown:
            raise MissionError(f"{source}: {where}: unknown key(s) {unknown}")
        for key in REQUIRED:
            if key not in entry or entry[key] is None or (isinstance(entry[key], str) and not entry[key].strip()):
                raise MissionError(f"{source}: {where}: missing {key!r}")
        values = {}
        for key in REQUIRED + OPTIONAL:
            if key in entry and entry[key] is not None:
                if not isinstance(entry[key], str):
                    raise MissionError(f"{source}: {where}: {key!r} must be a string, got {entry[key]!r} "
                                       f"(quote paper ids: \"001\")")
                values[key] = entry[key].strip()
        if values["paper"] not in PAPERS:
            raise MissionError(f"{source}: {where}: unknown paper {values['paper']!r} (expected one of {list(PAPERS)})")
        if values["status"] not in STATUSES:
            raise MissionError(f"{source}: {where}: unknown status {values['status']!r} "
                               f"(expected one of {list(STATUSES)})")
        chapter = values["chapter"]
        if chapter == NO_CHAPTER:
            if values["status"] != "not checked":
                raise MissionError(f"{source}: {where}: chapter '-' (none) is only allowed with status "
                                   f"'not checked', not {values['status']!r}")
        elif chapter != ERRATA and chapter not in known:
            raise MissionError(f"{source}: {where}: unknown chapter {chapter!r} "
                               f"(expected one of {sorted(known) + [ERRATA, NO_CHAPTER]})")
        if values["status"] == "differs: erratum" and not values.get("erratum"):
            raise MissionError(f"{source}: {where}: status 'differs: erratum' needs an 'erratum' label "
                               f"(the entry's label on the errata page)")
        if values.get("verdict") is not None and values["verdict"] not in VERDICTS:
            raise MissionError(f"{source}: {where}: unknown verdict {values['verdict']!r} "
                               f"(expected one of {sorted(VERDICTS)})")
        if "$" in values["note"]:
            raise MissionError(f"{source}: {where}: the note contains '$'; notes are plain text (use α, √M, ≤)")
        ident = (values["paper"], values["item"])
        if ident in seen:
            raise MissionError(f"{source}: {where}: duplicate of row {seen[ident] + 1} "
                               f"(same paper and item)")
        seen[ident] = k
        out.append(MissionRow(values["paper"], values["item"], chapter, values["status"], values["note"],
                              values.get("erratum"), entry.get("__line__"), values.get("verdict")))
    return out


def apply_verdicts(rows: Sequence[MissionRow], root: str | Path) -> tuple[list[MissionRow], list[str]]:
    """Rows whose ``verdict`` names stored results get the status computed from them, and their note ends with
    the computed verdicts (:func:`kvlib.book.section51_verdict.mission_verdict`) and :func:`readings_note`.

    Returns ``(rows, changed)``: the rows (a row without a verdict, or whose results are not stored
    under ``root``, keeps its written status) and one line per row whose written status differs from
    the computed one (the table shows the computed one).  A computed ``"differs: erratum"`` needs the
    row's ``erratum`` label (:class:`MissionError` otherwise).
    """
    from dataclasses import replace

    wanted = [r for r in rows if r.verdict]
    if not wanted or not (Path(root) / "results" / "hindsight" / "section51_search.csv").exists():
        return list(rows), []
    from kvlib.book.section51_verdict import load_stored, load_stored_inclusive, mission_verdict

    res = load_stored(root)
    incl = load_stored_inclusive(res, root)
    out, changed = [], []
    for r in rows:
        if r.verdict:
            status, sentence = mission_verdict(res, VERDICTS[r.verdict])
            computed = f"From the stored rows: {sentence[0].lower()}{sentence[1:]}"
            r = replace(r, note=f"{r.note} {computed} {readings_note(res, incl, VERDICTS[r.verdict])}")
            if status == "differs: erratum" and not r.erratum:
                raise MissionError(f"row {r.paper} {r.item!r}: its stored results give 'differs: erratum', "
                                   "but the row has no 'erratum' label")
            if status != r.status:
                changed.append(f"{r.paper} {r.item}: written {r.status!r}, computed {status!r}")
            r = replace(r, status=status)
        out.append(r)
    return out, changed


def readings_note(res, incl, model: str) -> str:
    """The sentence a Section 5.1 row's note ends with: whether its verdict depends on the reading of 001
    Section 3's memory rule, computed from the stored rows (``res``: the book's reading; ``incl``: the
    start-inclusive one, ``None`` while not stored)."""
    from kvlib.book.section51_verdict import readings_sentence, verdicts

    head = ("001 Section 3 reads two ways (memory held from the round after a request starts, as in constraint "
            "(3), or from its start round)")
    if incl is None:
        return f"{head}; the verdict under the start-inclusive reading is not computed yet."
    return f"{head}; {readings_sentence(verdicts(res, model), verdicts(incl, model))}."


def load(path: str | Path | None = None, *, chapters: Iterable[str] | None = None) -> list[MissionRow]:
    """Read and validate the mission file (default: :func:`default_path`); see :func:`validate`."""
    path = Path(path) if path is not None else default_path()
    if not path.is_file():
        raise MissionError(f"mission file not found: {path}")
    doc = parse(path.read_text(encoding="utf-8"), source=str(path.name))
    return validate(doc["rows"], doc["chapters"], chapters=chapters, source=str(path.name))


def chapter_titles(path: str | Path | None = None) -> dict[str, str]:
    """The ``chapters`` mapping (name -> title) of the mission file."""
    path = Path(path) if path is not None else default_path()
    doc = parse(path.read_text(encoding="utf-8"), source=str(path.name))
    return {k: v for k, v in doc["chapters"].items() if k != "__line__"}


def summary(rows: Sequence[MissionRow]) -> pd.DataFrame:
    """Number of rows by paper (rows) and status (columns, in :data:`STATUSES` order), with totals."""
    df = pd.DataFrame([(r.paper, r.status) for r in rows], columns=["paper", "status"])
    table = pd.crosstab(df["paper"], df["status"]).reindex(columns=list(STATUSES), fill_value=0)
    table = table.reindex([p for p in PAPERS if p in set(df["paper"])])
    table.loc["all"] = table.sum()
    table["all"] = table.sum(axis=1)
    return table.reset_index().rename(columns={"paper": "paper"})


def counts(rows: Sequence[MissionRow]) -> dict[str, int]:
    """Number of rows per status (every status present, possibly 0)."""
    return {s: sum(r.status == s for r in rows) for s in STATUSES}


def to_frame(rows: Sequence[MissionRow], titles: dict[str, str] | None = None) -> pd.DataFrame:
    """The table as a DataFrame (columns paper, item, chapter, status, note)."""
    titles = titles or {}

    def chap(c):
        return "errata page" if c == ERRATA else ("-" if c == NO_CHAPTER else titles.get(c, c))

    return pd.DataFrame([dict(paper=r.paper, item=r.item, chapter=chap(r.chapter), status=r.status, note=r.note)
                         for r in rows])


def render_markdown(rows: Sequence[MissionRow], titles: dict[str, str] | None = None) -> str:
    """A pipe table (plain text cells, ``|`` escaped)."""
    df = to_frame(rows, titles)

    def cell(x):
        return str(x).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(df.columns) + " |", "|" + "---|" * len(df.columns)]
    lines += ["| " + " | ".join(cell(v) for v in rec) + " |" for rec in df.itertuples(index=False)]
    return "\n".join(lines) + "\n"


def render_html(rows: Sequence[MissionRow], titles: dict[str, str] | None = None, *,
                chapter_href: str = "../chapters/{chapter}.html",
                errata_href: str = "errata.html#{erratum}",
                errata_page: str = "errata.html", show_paper: bool = True) -> str:
    """The table as HTML, with links to the chapters and to the errata entries.

    The table fits its column (fixed layout, 100% wide, long words wrap), so no column is cut.
    ``show_paper=False`` leaves out the paper column (for a table of one paper's rows).
    The default links are relative to ``book/intro.html`` (the introduction); from a chapter page use
    ``chapter_href="{chapter}.html"``, ``errata_href="../book/errata.html#{erratum}"`` and
    ``errata_page="../book/errata.html"``.
    """
    titles = titles or {}
    esc = html.escape
    widths = ([("Paper", 7)] if show_paper else []) + [("Item", 27 if show_paper else 30),
                                                       ("Chapter", 16), ("Status", 13), ("Note", 37 if show_paper else 41)]
    out = ['<div class="mission-table-wrap">',
           '<table class="table mission-table" style="table-layout: fixed; width: 100%; '
           'overflow-wrap: anywhere; font-size: 0.85em">',
           "<colgroup>" + "".join(f'<col style="width: {w}%">' for _, w in widths) + "</colgroup>",
           "<thead><tr>" + "".join(f"<th>{h}</th>" for h, _ in widths) + "</tr></thead>",
           "<tbody>"]
    for r in rows:
        if r.chapter == NO_CHAPTER:
            chap = "-"
        elif r.chapter == ERRATA:
            chap = f'<a href="{esc(errata_page)}">errata page</a>'
        else:
            chap = f'<a href="{esc(chapter_href.format(chapter=r.chapter))}">{esc(titles.get(r.chapter, r.chapter))}</a>'
        status = esc(r.status)
        if r.erratum:
            status = f'<a href="{esc(errata_href.format(erratum=r.erratum))}">{status}</a>'
        paper = f"<td>{esc(r.paper)}</td>" if show_paper else ""
        out.append(f"<tr>{paper}<td>{esc(r.item)}</td><td>{chap}</td>"
                   f"<td>{status}</td><td>{esc(r.note)}</td></tr>")
    out += ["</tbody>", "</table>", "</div>"]
    return "\n".join(out) + "\n"
