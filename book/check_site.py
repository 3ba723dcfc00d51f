#!/usr/bin/env python
"""Open every page of the built book in headless Chromium and report what a reader would trip over.

Run after the book build (``bash book/build.sh``)::

    python book/check_site.py                 # fail (exit 1) on any finding
    python book/check_site.py --report-only   # print the findings, exit 0
    python book/check_site.py --only chapters/model.html --full-page

The site (``book/_build/html``) is served on 127.0.0.1 and every page is opened
in headless Chromium (Debian packages ``chromium`` and ``chromium-driver``,
driven by selenium).  A screenshot of each page goes to
``book/_build/screenshots/NAME.png`` (NAME = the page's path, '/' -> '-').  Each
finding names the page, the kind of defect and the culprit:

``math``        TeX left in the rendered text outside MathJax's output and code: a ``$``,
                a control word (``\\frac``, ``\\text``, ``\\lambda``, ...), ``\\(``, ``\\)``,
                or a sub/superscript group (``_{``, ``^{``), anywhere in the text: prose,
                link texts, captions, titles, generated pages; or a MathJax error box;
``mathwidth``   a display equation wider than its column (MathJax's box then scrolls
                it or cuts it at the column edge: break it over lines), or a display
                equation that scrolls or is clipped inside its own box;
``tablefig``    a table captioned "Fig." (a glued table must be numbered as a table:
                ``:figclass: kvbook-table``);
``tablewidth``  a table wider than the column (even inside a scroll box: its columns
                and caption are cut at the column edge);
``rows``        a table of more than 25 rows in the flow of the page (not folded; the
                generated index pages are exempt);
``identifier``  a snake_case identifier (``tp_load``, ``best_tel_sorted_f``) in the text
                outside code, code literals and the parameters table (``.kvbook-params``);
``codename``    an identifier with an underscore (``A_min``) or a dotted code path (``ry.cr_amin``,
                ``B2.display``) in the prose (inline code included), titles, headings, captions, link
                text, the tables of contents, the previous/next links or the window title (code cells,
                code blocks, folded text, the parameters table, file names and addresses excepted);
                write it in words, or in math as the paper typesets it;
``textsize``    a legend, tick label or other text of a figure smaller than 8 px at 1280 px (the size
                the figure's PNG records, see ``kvlib.book.figtext``, times the page's scale of the
                image), or a Matplotlib figure that records no size;
``abbrev``      an abbreviation (a word with two capitals: LLM, H-SF, Relax-LP) on a page's first screen
                (the top 1,000 px, folds closed) that the glossary (``book/glossary.md``) does not
                define (units and software names in ``ABBREV_OK`` excepted);
``height``      a chapter page (``chapters/*.html`` but the status page) taller than the
                budget (``--height-budget``, 15,000 px at 1280 px with the dropdowns
                closed); every page's height is printed;
``overflow``    the page is wider than the window, or a block sticks out of the
                main column without a scroll box of its own;
``figure``      an image in the content that is not in a figure with a caption;
``nan``         a table cell that reads NaN (or <NA>, NaT);
``highs``       the text ``Running HiGHS`` (a solver banner on the page);
``path``        an absolute path of the build machine (the checkout and the directory
                holding it, the shared data directory, the home or a temporary
                directory; example commands in hand-written code blocks
                outside notebook cells are not checked);
``scale``       a chapter page (``chapters/*.html`` but the status page) without the
                banner saying whether it shows CI-scale or paper-scale numbers;
``words``       the words "issue", "session" or "previous reading" in the prose;
``repr``        a Python repr where a value belongs (``np.float64(1.03)``, ``np.True_``, ``<Figure at 0x7f...>``)
                in the prose, tables or cell outputs (code cells' sources are exempt);
``console``     an error in the browser's console (script error, missing file, ...).

Exit status: 0 if no finding (or ``--report-only``), 1 if any finding, 2 if the
check could not run (no build, no Chromium).
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import os
import re
import shutil
import socketserver
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_HTML = REPO_ROOT / "book" / "_build" / "html"
DEFAULT_SHOTS = REPO_ROOT / "book" / "_build" / "screenshots"
SKIP_DIRS = {"_static", "_sources", "_images", "_sphinx_design_static"}
WINDOW = (1280, 1000)
CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage", "--hide-scrollbars",
)
KINDS = ("math", "mathwidth", "tablefig", "tablewidth", "rows", "identifier", "codename", "height", "overflow",
         "figure", "textsize", "abbrev", "nan", "highs", "path", "words", "repr", "console")
MAX_ROWS = 25  # rows of a table shown in the flow (a longer one is folded)
MATH_FILL = 0.98  # a display equation wider than this share of its box is reported
HEIGHT_BUDGET = 15000  # px, a chapter page at 1280 px with its dropdowns closed
# pages the height budget applies to: the numbered chapters (the status page is back matter)
BUDGET_PAGE = re.compile(r"^chapters/(?!status\.html$)[^/]+\.html$")


MIN_TEXT_PX = 8  # px, the smallest legend, tick label or other text of a figure at 1280 px
FIGTEXT_KEY = "kvbook:text-px"  # the PNG chunk kvlib.book.figtext writes (its KEY; a test checks they agree)
GLOSSARY = REPO_ROOT / "book" / "glossary.md"
# Words with two capitals that are not abbreviations a reader must look up: units and names of
# software and file formats, each with why it needs no glossary entry.
ABBREV_OK = {
    "GB": "a unit (gigabyte)", "GiB": "a unit (gibibyte)", "MB": "a unit", "MiB": "a unit",
    "BibTeX": "a file format, named where the book offers a citation in it",
    "PyTorch": "a library, named with its link", "GitHub": "a web site",
    "LaTeX": "a typesetting system", "MathJax": "the library that renders the math",
    "CSV": "the file format of the stored tables (comma-separated values), named with a download link",
    "HTML": "the format of the pages", "JSON": "a file format",
    "NVIDIA": "a company, the maker of the GPUs", "SymPy": "a library (symbolic mathematics), named with its link",
    "NumPy": "a library", "SciPy": "a library", "OpenAI": "a company",
    "NaN": "not a word: a missing value, which the 'nan' kind reports where it matters",
}
# The endings of a dotted word that make it a file name or an address, not a code path.
NOT_CODE_SUFFIXES = {"csv", "json", "py", "ipynb", "html", "md", "png", "svg", "yml", "yaml", "txt", "cff",
                     "bib", "sh", "pdf", "org", "com", "io", "rs", "net", "edu", "gov", "ai"}


def glossary_terms(path: Path = GLOSSARY) -> list[str]:
    """The terms book/glossary.md defines: the unindented lines of its glossary directive (a line
    may name several, separated by commas)."""
    terms: list[str] = []
    inside = False
    for line in path.read_text(encoding="utf8").splitlines():
        if line.startswith("```{glossary}"):
            inside = True
            continue
        if inside and line.startswith("```"):
            break
        if inside and line.strip() and not line[0].isspace() and not line.startswith(":"):
            terms.extend(t.strip() for t in line.split(",") if t.strip())
            terms.append(line.strip())
    return terms


class SiteCheckError(RuntimeError):
    """The check cannot run (no build, no browser)."""


@dataclass(frozen=True)
class Finding:
    page: str
    kind: str
    culprit: str

    def __str__(self) -> str:
        return f"{self.page}: {self.kind}: {self.culprit}"


# --------------------------------------------------------------------------- pages


def list_pages(html_dir: Path) -> list[str]:
    """Relative paths of the HTML pages (no assets, no redirect stubs), sorted."""
    pages = []
    for path in sorted(html_dir.rglob("*.html")):
        rel = path.relative_to(html_dir)
        if rel.parts and rel.parts[0] in SKIP_DIRS:
            continue
        head = path.read_text(encoding="utf8", errors="replace")[:2000].lower()
        if 'http-equiv="refresh"' in head:  # index.html: a redirect to the root page
            continue
        pages.append(rel.as_posix())
    return pages


def screenshot_name(page: str) -> str:
    return re.sub(r"\.html$", "", page).replace("/", "-") + ".png"


def machine_paths(extra: Iterable[str] = ()) -> list[str]:
    """Absolute paths of this machine that must not appear on a page."""
    paths = {str(REPO_ROOT), str(REPO_ROOT.resolve()), tempfile.gettempdir(),
             str(Path.home()),
             # the directory holding the checkout (e.g. the shared data directory beside it)
             str(REPO_ROOT.resolve().parent)}
    manifest = REPO_ROOT / "chapters" / "run_manifest.json"
    try:  # the shared data directory the chapters were run with
        shared = json.loads(manifest.read_text(encoding="utf8")).get("shared_dir")
        if isinstance(shared, str):
            paths.add(shared)
    except (OSError, ValueError, AttributeError):
        pass
    paths.update(extra)
    # only absolute paths; "/" or very short ones would match everything
    return sorted(p.rstrip("/") for p in paths
                  if p and os.path.isabs(p) and len(p.rstrip("/")) > 4)


PATH_PATTERNS = (
    r"/tmp/\S", r"/var/folders/\S", r"/private/var/\S", r"/home/[A-Za-z0-9_.-]+/",
    r"/root/\S", r"/Users/[A-Za-z0-9_.-]+/", r"[A-Za-z]:\\\\Users\\\\",
)


# --------------------------------------------------------------------------- server


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args) -> None:  # noqa: A002 - stdlib signature
        pass


class _Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def serve(html_dir: Path) -> tuple[_Server, str]:
    handler = functools.partial(_QuietHandler, directory=str(html_dir))
    server = _Server(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


# --------------------------------------------------------------------------- browser


def find_chromium() -> tuple[str, str]:
    """(chromium binary, chromedriver) or SiteCheckError naming what is missing."""
    browser = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")
                    if shutil.which(n)), None)
    driver = shutil.which("chromedriver") or (
        "/usr/lib/chromium/chromedriver" if Path("/usr/lib/chromium/chromedriver").exists()
        else None)
    missing = [n for n, p in (("chromium", browser), ("chromedriver (chromium-driver)", driver))
               if not p]
    if missing:
        raise SiteCheckError(
            f"not found on PATH: {', '.join(missing)}; install with "
            "'apt-get update && apt-get install -y chromium chromium-driver'")
    return browser, driver


def start_browser(user_data_dir: str):
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError as exc:
        raise SiteCheckError("selenium is not installed: pip install -e '.[book]'") from exc
    browser, driver = find_chromium()
    opts = webdriver.ChromeOptions()
    opts.binary_location = browser
    for flag in CHROMIUM_FLAGS:
        opts.add_argument(flag)
    opts.add_argument(f"--user-data-dir={user_data_dir}")
    opts.add_argument(f"--window-size={WINDOW[0]},{WINDOW[1]}")
    opts.set_capability("goog:loggingOptions", {"browser": "ALL"})
    return webdriver.Chrome(options=opts, service=Service(executable_path=driver))


# Titles of the banner book/run_chapters.py puts at the top of every chapter page.
SCALE_TITLES = ("CI-scale numbers", "Paper-scale results", "Full mode", "Re-run with changed parameters")

# The in-page checks: one function returning a list of [kind, culprit].
PAGE_JS = r"""
const cfg = arguments[0];
const out = [];
const add = (kind, culprit) => out.push([kind, culprit]);
const main = document.querySelector('article.bd-article') || document.querySelector('main')
             || document.body;
// the page's height as a reader first sees it (every dropdown closed) ...
out.push(['__height__', String(document.documentElement.scrollHeight)]);
// a long table in the flow (not folded) makes the page hard to read in one sitting
const rowsShown = (tb) => tb.querySelectorAll(':scope > tbody > tr, :scope > tr').length;
// (the generated index pages -- general index, index of proofs -- are long lists by design)
const indexPage = /\/(genindex|prf-prf|search)\.html$/.test(location.pathname);
for (const tb of (indexPage ? [] : main.querySelectorAll('table'))) {
  // inside a closed dropdown or toggle: not in the flow
  if (tb.closest('details:not([open]), .toggle-hidden') || !tb.offsetParent ||
      (tb.checkVisibility && !tb.checkVisibility())) continue;
  const n = rowsShown(tb);
  if (n > cfg.max_rows) {
    const fig = tb.closest('figure');
    const cap = fig && fig.querySelector('figcaption') ? fig.querySelector('figcaption').textContent
      : (tb.querySelector('tr') ? tb.querySelector('tr').textContent : '');
    out.push(['rows', `table of ${n} rows in the flow (fold it, offer its CSV): "${cap.replace(/\s+/g, ' ').trim().slice(0, 70)}"`]);
  }
}
const SKIP_TEXT = 'script,style,noscript,template,textarea,svg,mjx-container,.MathJax';
const CODE = 'pre,code,kbd,samp,.highlight';
const where = (node) => {
  const el = node.nodeType === 1 ? node : node.parentElement;
  const sec = el ? el.closest('section[id]:not(#proof-content)') : null;
  return sec ? '(in #' + sec.id + ')' : '';
};
const snippet = (text, i, n) => {
  const s = Math.max(0, i - 40), e = Math.min(text.length, i + n + 40);
  return (s > 0 ? '...' : '') + text.slice(s, e).replace(/\s+/g, ' ').trim() + (e < text.length ? '...' : '');
};
function* textNodes(root, skip) {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode: (n) => (n.parentElement && n.parentElement.closest(skip))
      ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT });
  let n;
  while ((n = walker.nextNode())) yield n;
}
const limit = {};
const addLimited = (kind, culprit) => {
  limit[kind] = (limit[kind] || 0) + 1;
  if (limit[kind] <= cfg.max_per_kind) add(kind, culprit);
  else if (limit[kind] === cfg.max_per_kind + 1) add(kind, '(more of this kind on the page not listed)');
};

// abbreviations on the first screen (as a reader first sees it: folds closed, at the top) that the
// glossary does not define
{
  const seen = new Set();
  const abbrRe = /(^|[^A-Za-z0-9_-])((?=[A-Za-z0-9-]*[A-Z][A-Za-z0-9-]*[A-Z])[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*)(?![A-Za-z0-9_-])/g;
  const known = new Set(cfg.glossary.concat(cfg.abbrev_ok));
  const words = new Set(); for (const t of cfg.glossary) for (const w of t.split(/[\s\/,()]+/)) if (w) words.add(w);
  const defined = (a) => known.has(a) || words.has(a) ||
    (/s$/.test(a) && (known.has(a.slice(0, -1)) || words.has(a.slice(0, -1))));
  for (const n of textNodes(main, SKIP_TEXT + ',' + CODE + ',.citation,dl.citation,.bibliography,.kvbook-params')) {
    const el = n.parentElement;
    if (!el || !el.offsetParent || el.closest('details:not([open]), .toggle-hidden')) continue;
    const range = document.createRange(); range.selectNodeContents(n);
    const r = range.getBoundingClientRect();
    if (r.height === 0 || r.top >= window.innerHeight) continue;
    const t = n.nodeValue; let m; abbrRe.lastIndex = 0;
    while ((m = abbrRe.exec(t))) {
      let a = m[2].replace(/'s$/, '');
      if (/^\.\d/.test(t.slice(m.index + m[0].length))) continue;  // a label: Table EC.1, Figure A.2
      // a hyphenated word: its capitalised parts are words (Memory-Constrained), an abbreviation joined
      // to lowercase words (KV-cache, LLM-inference) is that abbreviation, anything else (H-SF,
      // Relax-LP, Llama-2-70B) is one name
      const parts = a.split('-');
      const abbr = parts.filter(p => (p.match(/[A-Z]/g) || []).length >= 2 || /^[A-Z]$/.test(p));
      if (!abbr.length) continue;
      if (parts.length > 1 && parts.every(p => abbr.includes(p) || /^[a-z]/.test(p)) && !defined(a)) a = abbr.join('-');
      if (defined(a) || seen.has(a)) continue;
      seen.add(a);
      addLimited('abbrev', `'${a}' on the first screen is not in the glossary: "${snippet(t, m.index + m[1].length, m[2].length)}" ${where(n)}`);
    }
  }
}
// ... then every fold is opened, so that what it hides is checked as well
for (const d of document.querySelectorAll('details')) d.open = true;
for (const e of document.querySelectorAll('.toggle-hidden')) e.classList.remove('toggle-hidden');
// math: TeX left in the text outside MathJax output and code (prose, links, captions, titles)
const mathRe = /\$|\\[A-Za-z]{2,}\b|\\\(|\\\)|[_^]\{/g;
for (const n of textNodes(document.body, SKIP_TEXT + ',' + CODE)) {
  const t = n.nodeValue; let m; mathRe.lastIndex = 0;
  while ((m = mathRe.exec(t))) {
    addLimited('math', `'${m[0]}' in "${snippet(t, m.index, m[0].length)}" ${where(n)}`);
    break;
  }
}
for (const e of document.querySelectorAll('mjx-merror, .MathJax_Error, mjx-container [data-mjx-error]')) {
  addLimited('math', `MathJax error: ${(e.getAttribute('data-mjx-error') || e.textContent || '').slice(0, 120)} ${where(e)}`);
}

// overflow: page wider than the window; blocks sticking out of the main column
const docW = document.documentElement.scrollWidth, winW = document.documentElement.clientWidth;
if (docW > winW + 1) add('overflow', `page is ${docW}px wide in a ${winW}px window`);
const col = main.getBoundingClientRect();
const scrolls = (el) => { const s = getComputedStyle(el);
  return ['auto', 'scroll', 'hidden', 'clip'].includes(s.overflowX); };
const reported = [];
for (const el of main.querySelectorAll('*')) {
  if (reported.some(r => r.contains(el))) continue;
  const r = el.getBoundingClientRect();
  if (r.width === 0 || r.height === 0) continue;
  if (r.right <= col.right + 2 && r.left >= col.left - 2) continue;
  let boxed = false;
  for (let a = el.parentElement; a && a !== main; a = a.parentElement) {
    if (scrolls(a)) { boxed = true; break; }
  }
  if (boxed) continue;
  const st = getComputedStyle(el);
  if (st.position === 'fixed' || st.visibility === 'hidden') continue;
  reported.push(el);
  const desc = el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
    (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\s+/).slice(0, 3).join('.') : '');
  addLimited('overflow', `${desc} spans x=${Math.round(r.left)}..${Math.round(r.right)}, column x=${Math.round(col.left)}..${Math.round(col.right)} ${where(el)}`);
}

// display math wider than its column: MathJax's box scrolls or cuts it at the column edge
for (const m of main.querySelectorAll('mjx-container[display="true"] > mjx-math')) {
  const r = m.getBoundingClientRect();
  if (r.width === 0) continue;
  let left = col.left, right = col.right;
  for (let a = m.parentElement; a && a !== main; a = a.parentElement) {
    if (scrolls(a)) { const b = a.getBoundingClientRect();
      left = Math.max(left, b.left); right = Math.min(right, b.right); break; }
  }
  if (r.right > right + 2 || r.left < left - 2) {
    const c = m.closest('mjx-container');
    let tex = '';
    try { const items = window.MathJax.startup.document.getMathItemsWithin(c);
          if (items.length) tex = items[0].math; } catch (e) {}
    const label = (tex || (c && c.getAttribute('aria-label')) || m.textContent || '').replace(/\s+/g, ' ').slice(0, 80);
    addLimited('mathwidth', `display math ${Math.round(r.width)}px wide in a ${Math.round(right - left)}px column ` +
      `(cut or scrolled at its edge): "${label}" ${where(m)}`);
  }
}

// display math that scrolls or is clipped inside its own box
for (const c of main.querySelectorAll('mjx-container[display="true"]')) {
  if (c.clientWidth === 0) continue;
  const cr = c.getBoundingClientRect();
  let clipped = c.scrollWidth > c.clientWidth + 1;
  // the ink of the equation: its glyphs (mjx-c), apart from the equation number (mjx-labels),
  // which MathJax sets at the right edge of a full-width box
  let left = Infinity, right = -Infinity, tagLeft = Infinity;
  for (const g of c.querySelectorAll('mjx-c')) {
    const b = g.getBoundingClientRect();
    if (!b.width) continue;
    if (g.closest('mjx-labels')) { tagLeft = Math.min(tagLeft, b.left); continue; }
    left = Math.min(left, b.left); right = Math.max(right, b.right);
  }
  if (right < left) for (const d of c.querySelectorAll('mjx-math')) {  // no glyphs: the math box
    const b = d.getBoundingClientRect();
    if (b.width) { left = Math.min(left, b.left); right = Math.max(right, b.right); }
  }
  const widest = right > left ? right - left : 0;
  if (right > cr.right + 2 || left < cr.left - 2) clipped = true;
  if (tagLeft < Infinity && right > tagLeft - 4) clipped = true;  // runs into its equation number
  // an equation that fills its box to the last few pixels is clipped in a slightly narrower column
  const full = widest > cfg.math_fill * c.clientWidth;
  if (clipped || full) {
    let tex = '';
    try { const items = window.MathJax.startup.document.getMathItemsWithin(c);
          if (items.length) tex = items[0].math; } catch (e) {}
    const label = (tex || c.getAttribute('aria-label') || c.textContent || '').replace(/\s+/g, ' ').slice(0, 80);
    addLimited('mathwidth', (clipped ? 'display math scrolls or is clipped in its box'
      : `display math fills ${Math.round(100 * widest / c.clientWidth)}% of its box (clipped in a narrower column)`) +
      ` (${Math.round(widest)}px in ${Math.round(c.clientWidth)}px): "${label}" ${where(c)}`);
  }
}

// tables: captioned as tables, and no wider than the column (scroll box or not)
for (const fig of main.querySelectorAll('figure')) {
  const cap = fig.querySelector('figcaption');
  if (!cap || !fig.querySelector('table') || fig.querySelector('img,svg,canvas')) continue;
  const t = cap.textContent.replace(/\s+/g, ' ').trim();
  if (/^Fig(ure|\.)/.test(t)) addLimited('tablefig', `table captioned "${t.slice(0, 70)}" ${where(fig)}`);
}
for (const tb of main.querySelectorAll('table')) {
  const r = tb.getBoundingClientRect();
  if (r.width === 0) continue;
  const w = Math.max(r.width, tb.scrollWidth);
  // the room it has: the column, or the narrower box around it (a dropdown, an admonition),
  // not counting the scroll boxes between them that would only hide the cut
  let box = tb.parentElement;
  while (box && box !== main && (scrolls(box) || box.clientWidth === 0)) box = box.parentElement;
  const room = Math.min(col.width, box ? box.clientWidth : col.width);
  if (w > room + 2) {
    const fig = tb.closest('figure');
    const cap = fig && fig.querySelector('figcaption') ? fig.querySelector('figcaption').textContent : '';
    const head = (cap || (tb.querySelector('tr') ? tb.querySelector('tr').textContent : '')).replace(/\s+/g, ' ').trim().slice(0, 70);
    addLimited('tablewidth', `table ${Math.round(w)}px wide in ${Math.round(room)}px of room: "${head}" ${where(tb)}`);
  }
}

// snake_case identifiers in the text (not code, not the parameters table, not the bibliography)
const identRe = /(^|[^A-Za-z0-9_\/.-])([a-z][a-z0-9]*(?:_[a-z0-9]+)+)(?![A-Za-z0-9_\/(])/;
for (const n of textNodes(main, SKIP_TEXT + ',' + CODE + ',.kvbook-params,.citation,dl.citation,.bibliography,a.download')) {
  const t = n.nodeValue; const m = identRe.exec(t);
  if (m) addLimited('identifier', `'${m[2]}' in "${snippet(t, m.index + m[1].length, m[2].length)}" ${where(n)}`);
}

// code names: an identifier with an underscore (A_min, cr_amin) or a dotted code path (ry.cr_amin,
// B2.display) in the prose, titles, headings, captions, link text (main: the lowercase snake_case ones
// are the 'identifier' kind), the tables of contents, the previous/next links and the window title
{
  const under = /(^|[^A-Za-z0-9_\/.:@#-])([A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+)(?![A-Za-z0-9_\/(]|\.[A-Za-z0-9])/g;
  const dotted = /(^|[^A-Za-z0-9_\/.:@#-])((?:[A-Za-z_][A-Za-z0-9_]*\.)+[A-Za-z_][A-Za-z0-9_]*)(?![A-Za-z0-9_\/(-]|\.[A-Za-z0-9])/g;
  const ext = new Set(cfg.not_code_suffixes);
  const codeNames = (t, inMain) => {
    const hits = []; let m;
    under.lastIndex = 0;
    while ((m = under.exec(t))) if (!inMain || /[A-Z]/.test(m[2])) hits.push([m.index + m[1].length, m[2]]);
    dotted.lastIndex = 0;
    while ((m = dotted.exec(t))) {
      const parts = m[2].split('.');
      if (parts.some(p => p.length < 2) || ext.has(parts[parts.length - 1].toLowerCase())) continue;
      if (parts[0] === 'np') continue;  // a NumPy repr (np.True_, np.float64): the 'repr' kind reports it
      hits.push([m.index + m[1].length, m[2]]);
    }
    return hits;
  };
  const skip = SKIP_TEXT + ',' + CODE + ',.kvbook-params,.citation,dl.citation,.bibliography,a.download,.cell_input';
  const places = [[main, true]];
  for (const e of document.querySelectorAll('.bd-sidebar-primary, .bd-sidebar-secondary, .prev-next-area, .bd-header'))
    if (!main.contains(e)) places.push([e, false]);
  for (const [root, inMain] of places) {
    for (const n of textNodes(root, skip)) {
      const t = n.nodeValue;
      for (const [i, name] of codeNames(t, inMain)) {
        addLimited('codename', `'${name}' in "${snippet(t, i, name.length)}" ${inMain ? where(n) : '(in the navigation)'}`);
      }
    }
  }
  // inline code in the open prose names code too (code cells, code blocks and folded text excepted)
  for (const c of main.querySelectorAll('code')) {
    if (c.closest('pre, .cell, .highlight, details, .dropdown, .sd-dropdown, .toggle, .kvbook-params, .citation, .bibliography, a.download')) continue;
    const t = c.textContent;
    for (const [i, name] of codeNames(t, false)) {
      const p = c.closest('p, li, figcaption, td, th, h1, h2, h3, h4') || c.parentElement;
      addLimited('codename', `'${name}' (inline code) in "${snippet(p.textContent, p.textContent.indexOf(t) + i, name.length)}" ${where(c)}`);
    }
  }
  for (const [i, name] of codeNames(document.title, false))
    addLimited('codename', `'${name}' in the window title "${document.title}"`);
}

// figures: every content image in a figure with a caption
for (const img of main.querySelectorAll('img')) {
  const r = img.getBoundingClientRect();
  if (img.closest('.sidebar-primary-item,.navbar-brand,header,nav')) continue;
  if (r.width > 0 && r.width < 48 && r.height < 48) continue;  // icons
  const fig = img.closest('figure');
  const cap = fig ? fig.querySelector('figcaption') : null;
  if (!cap || !cap.textContent.trim()) {
    const raw = img.getAttribute('src') || '';
    const src = raw.startsWith('data:') ? '(inline image)' : raw.split('/').pop().slice(0, 60);
    const alt = img.getAttribute('alt') ? ` alt="${img.getAttribute('alt').slice(0, 60)}"` : '';
    addLimited('figure', `image ${src}${alt} has no caption ${where(img)}`);
  }
}

// NaN in tables
for (const c of main.querySelectorAll('td,th')) {
  const t = c.textContent.trim();
  if (/^(-?nan|<NA>|NaT)$/i.test(t)) {
    const row = c.parentElement ? c.parentElement.textContent.replace(/\s+/g, ' ').trim().slice(0, 100) : '';
    addLimited('nan', `cell '${t}' in row "${row}" ${where(c)}`);
  }
}

// whole-page text (code included): solver banners and machine paths
const allText = [];
for (const n of textNodes(document.body, 'script,style,noscript,template')) allText.push([n, n.nodeValue]);
for (const [n, t] of allText) {
  const i = t.indexOf('Running HiGHS');
  if (i >= 0) addLimited('highs', `"${snippet(t, i, 13)}" ${where(n)}`);
}
const pathRes = cfg.path_patterns.map(p => new RegExp(p));
for (const [n, t] of allText) {
  const el = n.parentElement;
  // example commands in hand-written code blocks (outside notebook cells) may name paths
  if (el && el.closest('div[class*="highlight-"]') && !el.closest('.cell')) continue;
  let hit = null;
  for (const p of cfg.machine_paths) { const i = t.indexOf(p); if (i >= 0) { hit = [i, p.length]; break; } }
  if (!hit) for (const re of pathRes) { const m = re.exec(t); if (m) { hit = [m.index, m[0].length]; break; } }
  if (hit) addLimited('path', `"${snippet(t, hit[0], hit[1])}" ${where(n)}`);
}

// scale: every chapter page says at its top which scale its numbers are (run_chapters' banner)
if (/\/chapters\/(?!status\.html)[^/]+\.html$/.test(location.pathname)) {
  const titles = [...main.querySelectorAll('.admonition .admonition-title')].map(e => e.textContent.trim());
  if (!titles.some(t => cfg.scale_titles.some(s => t.startsWith(s)))) {
    add('scale', 'no banner saying whether the page shows CI-scale or paper-scale numbers');
  }
}

// words in the prose (not code, not the bibliography)
const wordRe = /\b(issues?|sessions?|previous reading)\b/i;
for (const n of textNodes(main, SKIP_TEXT + ',' + CODE + ',.citation,dl.citation,.bibliography')) {
  const t = n.nodeValue; const m = wordRe.exec(t);
  if (m) addLimited('words', `'${m[0]}' in "${snippet(t, m.index, m[0].length)}" ${where(n)}`);
}

// Python reprs where a value belongs (a NumPy scalar glued or printed as is, an object's address)
const reprRe = /\bnp\.(float|int|uint|bool|str)[a-z0-9_]*\(|\bnp\.(True|False)_|<[A-Za-z_.][\w.]* (object )?at 0x[0-9a-f]+>/;
for (const n of textNodes(main, SKIP_TEXT + ',.cell_input')) {
  const el = n.parentElement;
  if (el && el.closest('div[class*="highlight-"]') && !el.closest('.cell')) continue;
  const t = n.nodeValue; const m = reprRe.exec(t);
  if (m) addLimited('repr', `"${snippet(t, m.index, m[0].length)}" ${where(n)}`);
}
return out;
"""

# Text in figures: each PNG the chapters' kernels made records its smallest text (kvlib.book.figtext:
# a tEXt or iTXt chunk), whose height on the page is that size times the page's scale of the image.
TEXTSIZE_JS = r"""
const done = arguments[arguments.length - 1];
const cfg = arguments[0];
const main = document.querySelector('article.bd-article') || document.querySelector('main') || document.body;
const latin1 = (b) => Array.from(b, c => String.fromCharCode(c)).join('');
function chunks(buf) {
  const b = new Uint8Array(buf), out = {};
  if (b.length < 8 || b[0] !== 0x89 || b[1] !== 0x50) return null;
  const dv = new DataView(buf);
  for (let i = 8; i + 8 <= b.length;) {
    const len = dv.getUint32(i), type = latin1(b.subarray(i + 4, i + 8)), data = b.subarray(i + 8, i + 8 + len);
    if (type === 'tEXt') { const z = data.indexOf(0); out[latin1(data.subarray(0, z))] = latin1(data.subarray(z + 1)); }
    if (type === 'iTXt') {
      const z = data.indexOf(0);
      if (data[z + 1] === 0) {  // not compressed
        let j = data.indexOf(0, z + 3); j = data.indexOf(0, j + 1);
        out[latin1(data.subarray(0, z))] = new TextDecoder().decode(data.subarray(j + 1));
      }
    }
    if (type === 'IEND') break;
    i += 12 + len;
  }
  return out;
}
(async () => {
  const res = [];
  for (const img of main.querySelectorAll('img')) {
    const w = img.getBoundingClientRect().width;
    if (!w || !img.naturalWidth || img.closest('header,nav')) continue;
    const src = img.currentSrc || img.src;
    if (!/\.png($|\?)/i.test(src) && !src.startsWith('data:image/png')) continue;
    let meta = null;
    try { meta = chunks(await (await fetch(src)).arrayBuffer()); } catch (e) { continue; }
    if (!meta) continue;
    const name = src.startsWith('data:') ? '(inline image)' : src.split('/').pop().slice(0, 60);
    const sec = img.closest('section[id]');
    const at = sec ? ' (in #' + sec.id + ')' : '';
    const rec = meta[cfg.key];
    if (!rec) {
      if (/matplotlib/i.test(meta['Software'] || '')) res.push(['textsize', `figure ${name} records no text size (made outside the chapter runner?)${at}`]);
      continue;
    }
    let info; try { info = JSON.parse(rec); } catch (e) { continue; }
    const shown = info.px * w / img.naturalWidth;
    if (shown < cfg.min_px) res.push(['textsize', `${info.what} is ${shown.toFixed(1)} px tall at ${Math.round(w)} px of ` +
      `${img.naturalWidth} px (under ${cfg.min_px} px): figure ${name}${at}`]);
  }
  done(res);
})();
"""

WAIT_MATHJAX_JS = r"""
const done = arguments[arguments.length - 1];
const mj = window.MathJax;
if (mj && mj.startup && mj.startup.promise) {
  mj.startup.promise.then(() => done('ok')).catch((e) => done('error: ' + e));
} else { done('none'); }
"""


def _console_errors(driver) -> list[str]:
    try:
        entries = driver.get_log("browser")
    except Exception:  # a driver without log support
        return []
    return [re.sub(r"\s+", " ", e.get("message", ""))[:300] for e in entries
            if e.get("level") == "SEVERE"]


def check_pages(html_dir: Path, pages: list[str] | None = None, shots_dir: Path | None = None,
                full_page: bool = False, extra_paths: Iterable[str] = (),
                max_per_kind: int = 8, log=None, heights: dict[str, int] | None = None,
                height_budget: int = HEIGHT_BUDGET) -> list[Finding]:
    """Open ``pages`` (default: all) of ``html_dir`` in Chromium; return the findings.

    ``heights``, if given, receives every page's height in px (dropdowns closed)."""
    html_dir = Path(html_dir)
    if not (html_dir / "index.html").exists() and not any(html_dir.glob("*.html")):
        raise SiteCheckError(f"no built site in {html_dir} (run: bash book/build.sh)")
    pages = list_pages(html_dir) if pages is None else pages
    for p in pages:
        if not (html_dir / p).is_file():
            raise SiteCheckError(f"page {p!r} not found in {html_dir}")
    cfg = {
        "machine_paths": machine_paths([str(html_dir.resolve()), *extra_paths]),
        "path_patterns": list(PATH_PATTERNS),
        "max_per_kind": max_per_kind,
        "scale_titles": list(SCALE_TITLES),
        "math_fill": MATH_FILL,
        "max_rows": MAX_ROWS,
        "glossary": glossary_terms(),
        "abbrev_ok": sorted(ABBREV_OK),
        "not_code_suffixes": sorted(NOT_CODE_SUFFIXES),
        "key": FIGTEXT_KEY,
        "min_px": MIN_TEXT_PX,
    }
    if shots_dir is not None:
        shots_dir.mkdir(parents=True, exist_ok=True)
    findings: list[Finding] = []
    server, base = serve(html_dir)
    with tempfile.TemporaryDirectory(prefix="kvbook-chromium-") as profile:
        driver = start_browser(profile)
        try:
            driver.set_page_load_timeout(120)
            driver.set_script_timeout(120)
            for page in pages:
                if log:
                    log(f"[check_site] {page}")
                _console_errors(driver)  # drop what an earlier page left
                driver.set_window_size(*WINDOW)
                driver.get(base + page)
                state = driver.execute_async_script(WAIT_MATHJAX_JS)
                if isinstance(state, str) and state.startswith("error"):
                    findings.append(Finding(page, "math", f"MathJax failed to start: {state}"))
                if shots_dir is not None:  # as a reader first sees it: before the checks open the folds
                    _screenshot(driver, shots_dir / screenshot_name(page), full_page)
                page_findings = driver.execute_script(PAGE_JS, cfg)  # opens the folds
                page_findings += driver.execute_async_script(TEXTSIZE_JS, cfg)
                for kind, culprit in page_findings:
                    if kind == "__height__":
                        height = int(culprit)
                        if heights is not None:
                            heights[page] = height
                        if BUDGET_PAGE.match(page) and height > height_budget:
                            findings.append(Finding(page, "height", f"page is {height:,} px tall at "
                                                    f"{WINDOW[0]} px, over the budget of {height_budget:,} px "
                                                    "(fold details into dropdowns or an appendix page)"))
                        continue
                    findings.append(Finding(page, kind, culprit))
                for msg in _console_errors(driver):
                    msg = msg.replace(base, "/")
                    findings.append(Finding(page, "console", msg))
                # every page is judged as a reader's first visit
                driver.execute_script("try { localStorage.clear(); sessionStorage.clear(); } catch (e) {}")
        finally:
            driver.quit()
            server.shutdown()
            server.server_close()
    return findings


def _screenshot(driver, path: Path, full_page: bool) -> None:
    if full_page:
        height = int(driver.execute_script(
            "return Math.min(document.documentElement.scrollHeight, 20000)"))
        driver.set_window_size(WINDOW[0], max(WINDOW[1], height))
    driver.save_screenshot(str(path))
    if full_page:
        driver.set_window_size(*WINDOW)


# --------------------------------------------------------------------------- report


def summarize(findings: list[Finding]) -> str:
    by_page: dict[str, dict[str, int]] = {}
    for f in findings:
        by_page.setdefault(f.page, {}).setdefault(f.kind, 0)
        by_page[f.page][f.kind] += 1
    lines = []
    for page, kinds in by_page.items():
        lines.append(f"  {page}: " + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--html-dir", type=Path, default=DEFAULT_HTML,
                    help="the built site (default: book/_build/html)")
    ap.add_argument("--screenshots", type=Path, default=DEFAULT_SHOTS,
                    help="where the screenshots go (default: book/_build/screenshots)")
    ap.add_argument("--no-screenshots", action="store_true")
    ap.add_argument("--full-page", action="store_true",
                    help="screenshot the whole page (up to 20,000 px), not the first screen")
    ap.add_argument("--only", nargs="+", metavar="PAGE",
                    help="check only these pages (paths relative to the site, e.g. chapters/model.html)")
    ap.add_argument("--report-only", action="store_true",
                    help="print the findings but exit 0")
    ap.add_argument("--json", type=Path, help="also write the findings to this JSON file")
    ap.add_argument("--max-per-kind", type=int, default=8,
                    help="findings of one kind listed per page (default 8)")
    ap.add_argument("--height-budget", type=int, default=HEIGHT_BUDGET,
                    help=f"largest height of a chapter page in px (default {HEIGHT_BUDGET:,})")
    args = ap.parse_args(argv)
    heights: dict[str, int] = {}
    try:
        findings = check_pages(
            args.html_dir, args.only, None if args.no_screenshots else args.screenshots,
            full_page=args.full_page, max_per_kind=args.max_per_kind,
            log=lambda m: print(m, file=sys.stderr), heights=heights,
            height_budget=args.height_budget)
    except SiteCheckError as exc:
        print(f"check_site: {exc}", file=sys.stderr)
        return 2
    n_pages = len(args.only) if args.only else len(list_pages(args.html_dir))
    print(f"page heights at {WINDOW[0]} px, dropdowns closed "
          f"(budget {args.height_budget:,} px for chapter pages):")
    for page, h in heights.items():
        mark = " (over budget)" if BUDGET_PAGE.match(page) and h > args.height_budget else ""
        print(f"  {h:>7,} px  {page}{mark}")
    for f in findings:
        print(f)
    if args.json:
        args.json.write_text(json.dumps([f.__dict__ for f in findings], indent=1) + "\n", "utf8")
    if findings:
        print(f"\ncheck_site: {len(findings)} finding(s) on "
              f"{len({f.page for f in findings})} of {n_pages} page(s):\n{summarize(findings)}")
        if args.report_only:
            print("check_site: --report-only: not failing")
            return 0
        return 1
    print(f"check_site: {n_pages} page(s), no findings"
          + ("" if args.no_screenshots else f"; screenshots in {args.screenshots}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
