"""The site checker (book/check_site.py) on small synthetic pages: each defect is found, a clean page passes.

Also the build plumbing of book/run_chapters.py (cell tags) and the labels of
results of book/_ext/kvbook_sphinx.py.  The browser tests are skipped when
Chromium, chromedriver or selenium is missing.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from _helpers import have_browser, load_module

import pytest

ROOT = Path(__file__).resolve().parent.parent


_load = load_module


check_site = _load("kvbook_check_site", ROOT / "book" / "check_site.py")

PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>t</title>
<link rel="icon" href="data:,">
<style>body {{ margin: 0; }} main {{ width: 600px; margin-left: 100px; }}
 pre.scroll {{ overflow-x: auto; }}</style></head>
<body><main><article class="bd-article"><section id="sec">
<h1>A page</h1>
{body}
</section></article></main></body></html>
"""

CLEAN = """
<p>The memory limit is respected at every time; the ratio is 1.25.</p>
<figure><img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==" width="200" height="100">
<figcaption>Latency against load.</figcaption></figure>
<table><tr><th>policy</th><th>TEL</th></tr><tr><td>mc-sf</td><td>12</td></tr></table>
<pre class="scroll">{long}</pre>
<pre>price = "$5"  # code may hold a dollar sign and \\frac</pre>
<mjx-container>$x$ rendered</mjx-container>
<div class="math"><mjx-container display="true" style="display: block; overflow-x: auto"><mjx-math display="true"
 style="display: inline-block; width: 300px">a = b</mjx-math></mjx-container></div>
<div class="highlight-bash"><pre>jupytext -o /tmp/model.ipynb</pre></div>
<div class="cell"><div class="cell_input"><pre>x = np.float64(1.5)  # code may build NumPy scalars</pre></div></div>
<figure class="kvbook-table"><figcaption>Table 2.1 Ratios per arrival model.</figcaption>
<table><tr><th>model</th><th>ratio</th></tr><tr><td>AM1</td><td>1.03</td></tr></table></figure>
<details><summary>How this is checked</summary><p>The memory limit <code>tp_load</code> is named in code
(folded); <a href="#sec">Sorted-F (align)</a> in words.</p></details>
<div class="kvbook-params"><table><tr><td>tp_load</td><td>16</td></tr></table></div>
<details><summary>Long table (folded)</summary><div style="height: 3000px">folded rows</div>
<table>{rows}</table></details>
<div class="math"><mjx-container display="true" style="display: block; position: relative"><mjx-math display="true"
 style="display: block; width: 100%"><mjx-c style="display: inline-block; width: 300px">x</mjx-c></mjx-math>
<mjx-labels style="position: absolute; right: 0; top: 0"><mjx-c style="display: inline-block; width: 30px">(1)</mjx-c>
</mjx-labels></mjx-container></div>
""".format(long="x" * 400, rows="".join(f"<tr><td>{i}</td></tr>" for i in range(40)))

DEFECTS = {
    "math": "<p>The ratio is $\\frac{1}{2}$ here.</p>",
    "overflow": '<div style="width: 1500px">a wide table</div>',
    "figure": '<img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==" width="200" height="100">',
    "mathwidth": '<div class="math"><mjx-container display="true" style="display: block; overflow-x: auto">'
                 '<mjx-math display="true" style="display: inline-block; width: 1500px">a + b + c</mjx-math>'
                 '</mjx-container></div>',
    "nan": "<table><tr><th>a</th></tr><tr><td>NaN</td></tr></table>",
    "highs": "<div class=\"cell_output\"><pre>Running HiGHS 1.16.0 (git hash: f3f113d)</pre></div>",
    "path": "<div class=\"cell\"><pre>wrote /tmp/kvbook-model-abc/out.csv</pre></div>",
    "words": "<p>As discussed in the issue, the numbers differ.</p>",
    "repr": "<p>The average ratio is np.float64(1.0336).</p>",
    "console": "<script>throw new Error('boom');</script>",
    # the checks added for the findings-first layout: each page fails only through its new check
    "tablefig": "<figure><table><tr><td>1</td></tr></table><figcaption>Fig. 3.2 A table.</figcaption></figure>",
    "tablewidth": '<div style="overflow-x: auto"><table style="width: 900px"><tr><td>a wide table in a '
                  'scroll box</td></tr></table></div>',
    "identifier": "<p>The load is set by tp_load and the table best_tel_sorted_f.</p>",
    "rows": "<table>" + "".join(f"<tr><td>{i}</td></tr>" for i in range(26)) + "</table>",
}

# Defects of an existing kind that the earlier checks missed (name -> (kind, body)).
MORE_DEFECTS = {
    "tex-in-link": ("math", '<p>See <a href="#sec">Sorted-F_{\\text{align}}</a>.</p>'),
    "tex-in-caption": ("math", '<figure><img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFc'
                               'SJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==" width="200" height="100">'
                               '<figcaption>Latency at rate \\lambda per second.</figcaption></figure>'),
    "table-in-dropdown": ("tablewidth", '<details open class="sd-dropdown"><summary>folded</summary>'
                          '<div style="width: 400px"><div style="overflow-x: auto"><table style="width: 500px">'
                          '<tr><td>wider than its dropdown</td></tr></table></div></div></details>'),
    "math-fills-box": ("mathwidth", '<div class="math"><mjx-container display="true" style="display: block; '
                       'overflow-x: auto"><mjx-math display="true" style="display: inline-block; width: 596px">'
                       'a + b + c</mjx-math></mjx-container></div>'),
    "repr-in-output": ("repr", '<div class="cell"><div class="cell_output"><pre>&lt;matplotlib.figure.Figure '
                               'object at 0x7f3a2c1d9e50&gt;</pre></div></div>'),
    "repr-numpy-bool": ("repr", "<p>MC-SF is optimal: np.True_.</p>"),
    "math-hits-its-number": ("mathwidth", '<div class="math"><mjx-container display="true" style="display: block; '
                             'position: relative"><mjx-math display="true" style="display: block; width: 100%">'
                             '<mjx-c style="display: inline-block; width: 560px">x</mjx-c></mjx-math><mjx-labels '
                             'style="position: absolute; left: 540px; top: 0"><mjx-c style="display: inline-block; '
                             'width: 30px">(5)</mjx-c></mjx-labels></mjx-container></div>'),
    "math-scrolls": ("mathwidth", '<div class="math" style="overflow-x: auto"><mjx-container display="true" '
                     'style="display: block; overflow-x: auto; width: 600px"><mjx-math display="true" '
                     'style="display: inline-block; width: 590px">a</mjx-math><span style="display: inline-block; '
                     'width: 200px">(5)</span></mjx-container></div>'),
}


browser = pytest.mark.skipif(not have_browser(check_site), reason="chromium/chromedriver/selenium missing")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    d = tmp_path_factory.mktemp("site")
    (d / "clean.html").write_text(PAGE.format(body=CLEAN), "utf8")
    for kind, body in DEFECTS.items():
        (d / f"{kind}.html").write_text(PAGE.format(body=CLEAN + body), "utf8")
    for name, (_, body) in MORE_DEFECTS.items():
        (d / f"{name}.html").write_text(PAGE.format(body=CLEAN + body), "utf8")
    (d / "dup.html").write_text(PAGE.format(
        body=CLEAN + "<script>const THEBE_JS_URL = 1;</script><script>const THEBE_JS_URL = 1;</script>"),
        "utf8")
    (d / "index.html").write_text(
        '<html><head><meta http-equiv="Refresh" content="0; url=clean.html" /></head></html>', "utf8")
    (d / "chapters").mkdir()
    (d / "chapters" / "nobanner.html").write_text(PAGE.format(body=CLEAN), "utf8")
    (d / "chapters" / "banner.html").write_text(PAGE.format(
        body='<div class="admonition note"><p class="admonition-title">Paper-scale results (full mode)</p>'
             '<p>stored</p></div>' + CLEAN), "utf8")
    banner = ('<div class="admonition note"><p class="admonition-title">Paper-scale results (full mode)</p>'
              '<p>stored</p></div>')
    (d / "chapters" / "tall.html").write_text(PAGE.format(
        body=banner + CLEAN + '<div style="height: 16000px">a long page</div>'), "utf8")
    (d / "chapters" / "folded.html").write_text(PAGE.format(
        body=banner + CLEAN + '<details><summary>details</summary><div style="height: 16000px">folded</div>'
        '</details>'), "utf8")
    (d / "tall-backmatter.html").write_text(PAGE.format(
        body=CLEAN + '<div style="height: 16000px">a long page</div>'), "utf8")
    (d / "_static").mkdir()
    (d / "_static" / "asset.html").write_text("<p>$</p>", "utf8")
    return d


def test_list_pages_skips_assets_and_redirects(site):
    pages = check_site.list_pages(site)
    assert "clean.html" in pages and "math.html" in pages
    assert "index.html" not in pages
    assert not any(p.startswith("_static/") for p in pages)
    assert check_site.screenshot_name("chapters/model.html") == "chapters-model.png"


def test_machine_paths_are_absolute_and_include_the_checkout():
    paths = check_site.machine_paths(["../shared", "/", "/srv/build/kvbook"])
    assert str(ROOT.resolve()) in paths and "/srv/build/kvbook" in paths
    assert "../shared" not in paths and "/" not in paths and "" not in paths


def test_missing_site_is_a_clear_error(tmp_path):
    with pytest.raises(check_site.SiteCheckError, match="no built site"):
        check_site.check_pages(tmp_path / "nothing")


@browser
def test_each_defect_found_and_clean_page_passes(site, tmp_path):
    pages = ["clean.html", "dup.html", *(f"{k}.html" for k in DEFECTS)]
    findings = check_site.check_pages(site, pages, shots_dir=tmp_path / "shots")
    by_page: dict[str, set[str]] = {}
    for f in findings:
        by_page.setdefault(f.page, set()).add(f.kind)
    assert "clean.html" not in by_page, [str(f) for f in findings if f.page == "clean.html"]
    for kind in DEFECTS:
        assert by_page.get(f"{kind}.html") == {kind}, (kind, [str(f) for f in findings])
    dup = [f for f in findings if f.page == "dup.html"]
    assert dup and all(f.kind == "console" for f in dup)
    assert any("THEBE_JS_URL" in f.culprit for f in dup)
    # the culprit names the offending text
    math = [f for f in findings if f.page == "math.html"]
    assert any("frac" in f.culprit or "$" in f.culprit for f in math)
    assert (tmp_path / "shots" / "clean.png").stat().st_size > 0


@browser
def test_defects_the_earlier_checks_missed(site):
    """Raw TeX in link texts and captions, display math at its box's edge, tables captioned Fig.,
    tables wider than the column inside a scroll box, snake_case identifiers in prose."""
    findings = check_site.check_pages(site, [f"{n}.html" for n in MORE_DEFECTS])
    by_page: dict[str, set[str]] = {}
    for f in findings:
        by_page.setdefault(f.page, set()).add(f.kind)
    for name, (kind, _) in MORE_DEFECTS.items():
        assert by_page.get(f"{name}.html") == {kind}, (name, [str(f) for f in findings])
    culprits = " ".join(f.culprit for f in findings)
    assert "\\text" in culprits and "\\lambda" in culprits


@browser
def test_height_budget_and_every_height_reported(site, capsys):
    heights: dict[str, int] = {}
    pages = ["chapters/tall.html", "chapters/folded.html", "tall-backmatter.html"]
    findings = check_site.check_pages(site, pages, heights=heights)
    assert [(f.page, f.kind) for f in findings] == [("chapters/tall.html", "height")]
    assert "16," in findings[0].culprit or "17," in findings[0].culprit
    assert set(heights) == set(pages)
    assert heights["chapters/tall.html"] > 15000 > heights["chapters/folded.html"]
    # a lower budget catches the folded page too; every height is printed
    assert check_site.main(["--html-dir", str(site), "--no-screenshots", "--height-budget", "500",
                            "--only", "chapters/folded.html", "clean.html"]) == 1
    out = capsys.readouterr().out
    assert "page heights" in out and "chapters/folded.html (over budget)" in out
    assert "clean.html" in out and "clean.html (over budget)" not in out


@browser
def test_chapter_pages_must_say_their_scale(site):
    findings = check_site.check_pages(site, ["chapters/nobanner.html", "chapters/banner.html"])
    assert [(f.page, f.kind) for f in findings] == [("chapters/nobanner.html", "scale")]


@browser
def test_main_report_only_and_strict(site, capsys):
    args = ["--html-dir", str(site), "--no-screenshots", "--only", "words.html"]
    assert check_site.main(args) == 1
    assert check_site.main(args + ["--report-only"]) == 0
    out = capsys.readouterr().out
    assert "words.html: words: 'issue'" in out
    assert check_site.main(["--html-dir", str(site), "--no-screenshots", "--only", "clean.html"]) == 0


# --------------------------------------------------------------------------- build plumbing


def test_tag_cells_hides_plumbing_keeps_teaching_cells():
    nbformat = pytest.importorskip("nbformat")
    run_chapters = _load("kvbook_run_chapters", ROOT / "book" / "run_chapters.py")
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Title"),
        nbformat.v4.new_code_cell("mode = 'quick'", metadata={"tags": ["parameters"]}),
        nbformat.v4.new_code_cell("mode = 'full'", metadata={"tags": ["injected-parameters"]}),
        nbformat.v4.new_code_cell("import kvlib"),
        nbformat.v4.new_code_cell("simulate(...)", metadata={"tags": ["teach"]}),
        nbformat.v4.new_code_cell("x", metadata={"tags": ["remove-cell"]}),
        nbformat.v4.new_code_cell("y", metadata={"tags": ["hide-output"]}),
        nbformat.v4.new_code_cell("z", metadata={"tags": ["remove-output"]}),
    ]
    run_chapters.tag_cells(nb)
    tags = [c.metadata.get("tags", []) for c in nb.cells]
    assert tags[0] == []
    assert "hide-input" in tags[1] and "hide-input" in tags[2]
    assert tags[3] == ["hide-input"]
    assert tags[4] == ["teach"]
    assert tags[5] == ["remove-cell"] and tags[6] == ["hide-output"]
    assert tags[7] == ["remove-output", "hide-input"]
    assert run_chapters.tag_cells(nb) == 0  # idempotent


def test_shared_dir_passed_relative_to_the_repository():
    run_chapters = _load("kvbook_run_chapters", ROOT / "book" / "run_chapters.py")
    assert run_chapters.portable_path(ROOT.parent / "shared") == "../shared"
    assert run_chapters.portable_path(ROOT / "data" / "x.csv") == "data/x.csv"


def test_paper_titles_recognised():
    pytest.importorskip("sphinx")
    pytest.importorskip("sphinx_proof")
    ext = _load("kvbook_sphinx_ext", ROOT / "book" / "_ext" / "kvbook_sphinx.py")
    assert ext.paper_label("001 Theorem 4.3 (MC-SF)")
    assert ext.paper_label("004 Theorem 4.2")
    assert not ext.paper_label("Latest starts")
    assert not ext.paper_label("0012 things")
    assert not ext.paper_label("TEL of MC-SF on 002 Theorem 1's instance")


# --------------------------------------------------------------------------- labels of results


def _sphinx_source(tmp_path, conf_extra: str = "") -> Path:
    """A Sphinx source folder whose conf.py loads MyST, sphinx-proof and the book's extension."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(ROOT / 'book' / '_ext')!r})\n"
        "extensions = ['myst_parser', 'sphinx_proof', 'kvbook_sphinx']\n"
        "myst_enable_extensions = ['colon_fence', 'dollarmath']\n"
        "project = 'kvbook'\nauthor = 'The kvbook authors'\n"
        "prf_realtyp_to_countertyp = {'lemma': 'theorem', 'proposition': 'theorem',"
        " 'definition': 'theorem'}\n" + conf_extra, "utf8")
    return src


def test_labels_of_results_in_a_small_sphinx_build(tmp_path):
    """A paper's result shows the paper's label, ours K.chapter.n; refs and the index agree."""
    pytest.importorskip("sphinx_proof")
    pytest.importorskip("myst_parser")
    from sphinx.application import Sphinx

    src = _sphinx_source(tmp_path)
    (src / "index.md").write_text(
        "# Book\n\n```{toctree}\n:numbered:\nch1\nresults\n```\n", "utf8")
    (src / "ch1.md").write_text("""# Chapter one

:::{prf:definition} Memory
:label: def-mem
A definition of ours.
:::

:::{prf:theorem} 001 Theorem 4.3 (MC-SF is O(1)-competitive)
:label: thm-001-4-3
:nonumber:
The paper's statement, paraphrased.
:::

:::{prf:lemma} 002 Lemma 1
:label: lem-002-1
Numbered by mistake: still the paper's label.
:::

:::{prf:proposition} Our bound
:label: prop-ours
Ours.
:::

See {prf:ref}`thm-001-4-3`, {prf:ref}`prop-ours` and {prf:ref}`lem-002-1`.
""", "utf8")
    (src / "results.md").write_text("# Results\n\n```{kvbook-results}\n```\n", "utf8")
    out = tmp_path / "out"
    app = Sphinx(str(src), str(src), str(out), str(tmp_path / "doctrees"), "html",
                 status=None, warning=None, freshenv=True, warningiserror=True)
    app.build()
    ch1 = (out / "ch1.html").read_text("utf8")
    assert "Definition K.1.1" in ch1
    assert "Proposition K.1.2" in ch1  # one counter: the paper's blocks take no number
    assert "001 Theorem 4.3 (MC-SF is O(1)-competitive)" in ch1
    assert "Theorem (001" not in ch1 and "K.1.3" not in ch1
    assert ">001 Theorem 4.3</a>" in ch1 and ">Proposition K.1.2</a>" in ch1
    assert ">002 Lemma 1</a>" in ch1
    results = (out / "results.html").read_text("utf8")
    for text in ("Definition K.1.1 (Memory)", "001 Theorem 4.3 (MC-SF is O(1)-competitive)",
                 "002 Lemma 1", "Proposition K.1.2 (Our bound)"):
        assert text in results, text
    assert 'href="ch1.html#prop-ours"' in results


def test_scale_banner_goes_under_the_title_and_names_a_missing_table():
    import nbformat

    run_chapters = _load("kvbook_run_chapters", ROOT / "book" / "run_chapters.py")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("(x)=\n# Title\n\nIntro."), nbformat.v4.new_code_cell("1")]
    for _ in range(2):  # idempotent
        run_chapters.insert_banner(nb, run_chapters.banner_cell("quick", "off", {}))
    assert [c.source.splitlines()[0] for c in nb.cells] == [
        "(x)=", "````{admonition} CI-scale numbers (quick mode)", "Intro.", "1"]
    log = {"tables": {"t": {"table": "t", "label": "stored full-mode results (results/x/t.csv): all 3 rows"}}}
    assert "Paper-scale results" in run_chapters.banner_cell("full", "read", log).source
    fb = run_chapters.banner_cell("quick", "off", {}, "results/x/t.csv has not been computed").source
    assert "cannot all be read here (results/x/t.csv has not been computed)" in fb
    rec = {"error": {"ename": "StoreError", "evalue": "results/x/t.csv does not exist: produce it with ..."}}
    assert run_chapters.missing_table(rec) == "results/x/t.csv has not been computed"
    assert run_chapters.missing_table({"error": {"ename": "ValueError", "evalue": "boom"}}) is None
    rec = {"error": {"ename": "StoreError", "evalue": "results/x/t.csv holds none of the 4 rows asked for (...)"}}
    assert run_chapters.missing_table(rec).startswith("results/x/t.csv holds no rows for this page's inputs")


def _small_build(tmp_path, pages: dict[str, str], conf_extra: str = "") -> Path:
    src = _sphinx_source(tmp_path, "numfig = True\n" + conf_extra)
    (src / "index.md").write_text(
        "# Book\n\n```{toctree}\n:numbered:\n" + "\n".join(pages) + "\n```\n", "utf8")
    (src / "notebooks").mkdir()
    (src / "notebooks" / "ch1.py").write_text("# source\n", "utf8")
    for name, text in pages.items():
        (src / f"{name}.md").write_text(text, "utf8")
    out = tmp_path / "out"
    # a separate interpreter: docutils keeps node registrations per process, so a second Sphinx
    # application in this one would warn (and -W fail) on every node class registered again
    import subprocess

    res = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-W", "-E", "-q", str(src), str(out)],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-3000:]
    return out


CH1_TABLE = """# Chapter one

:::{prf:proposition} Our first result
:label: prop-first
Ours.
:::

:::{figure} data:,
:name: tbl-one
:figclass: kvbook-table

Ratios per arrival model.
:::

:::{figure} data:,
:name: fig-one

A picture.
:::

See {numref}`tbl-one` and {numref}`fig-one`.

```{kvbook-source} notebooks/ch1.py
```
"""


def test_tables_numbered_as_tables_example_label_and_source_links(tmp_path):
    """figclass kvbook-table -> "Table 1.1" (caption and numref); a picture stays "Fig. 1.1"; the cite
    page's example names the book's first numbered result; the source link is a download, and no
    repository link is invented while the setting is empty."""
    pytest.importorskip("sphinx_proof")
    pytest.importorskip("myst_parser")
    out = _small_build(tmp_path, {
        "ch1": CH1_TABLE,
        "cite": "# Cite\n\n```{kvbook-example-result}\n```\n\n```{kvbook-citation}\n```\n"})
    ch1 = (out / "ch1.html").read_text("utf8")
    assert "Table 1.1" in ch1 and "Fig. 1.1" in ch1
    assert ch1.count("Table 1.1") == 2 and "Fig. 1.2" not in ch1  # caption + numref; own counters
    assert 'class="reference download internal"' in ch1 and "notebooks/ch1.py" in ch1
    assert "on the repository" not in ch1
    cite = (out / "cite.html").read_text("utf8")
    assert "Proposition K.1.1" in cite and 'href="ch1.html#prop-first"' in cite
    text = re.sub(r"<[^>]+>", "", cite)
    assert "howpublished" in text and "url    =" not in text


def test_repository_url_feeds_bibtex_and_source_links(tmp_path):
    pytest.importorskip("sphinx_proof")
    pytest.importorskip("myst_parser")
    out = _small_build(tmp_path, {
        "ch1": CH1_TABLE, "cite": "# Cite\n\n```{kvbook-citation}\n```\n"},
        conf_extra="kvbook_repository_url = 'https://example.org/kvbook/'\n")
    ch1 = (out / "ch1.html").read_text("utf8")
    assert 'href="https://example.org/kvbook/blob/' in ch1 and "/notebooks/ch1.py" in ch1
    text = re.sub(r"<[^>]+>", "", (out / "cite.html").read_text("utf8"))
    assert "url    = {https://example.org/kvbook}," in text


def test_repository_url_setting_and_citation_cff_agree():
    """One setting: _config.yml's kvbook_repository_url; CITATION.cff names the same (or none)."""
    import yaml

    cfg = yaml.safe_load((ROOT / "_config.yml").read_text("utf8"))
    url = (cfg["sphinx"]["config"].get("kvbook_repository_url") or "").rstrip("/")
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text("utf8"))
    assert (cff.get("repository-code") or "").rstrip("/") == url
    if not url:
        assert "url" not in cff and "repository" not in cff


def test_parameters_table_from_the_parameters_cell():
    run_chapters = _load("kvbook_run_chapters_params", ROOT / "book" / "run_chapters.py")
    import nbformat

    src = ("mode = \"quick\"  # quick (CI) or full (paper scale)\nseed = 0  # seeds every draw\n"
           "# memories of the sweep\n# in tokens\nM_list = [\n    400,\n    1600,\n]\nplain = None\n"
           "label = 'a # b'  # the paper's label, not a comment inside the string\n")
    docs = run_chapters.parameter_docs(src)
    assert docs == [("mode", '"quick"', "quick (CI) or full (paper scale)"), ("seed", "0", "seeds every draw"),
                    ("M_list", "[ 400, 1600, ]", "memories of the sweep in tokens"), ("plain", "None", ""),
                    ("label", "'a # b'", "the paper's label, not a comment inside the string")]
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell(src)
    cell.metadata["tags"] = ["parameters"]
    nb.cells = [cell]
    nb.metadata["kvbook"] = {"chapter": "demo"}
    md = run_chapters.parameters_cell(nb, {"mode": "full", "M_list": [400, 1600, 6400]}).source
    assert "(params-demo)=" in md and ":class-container: kvbook-params" in md
    assert "| `mode` | `'full'` | quick (CI) or full (paper scale) |" in md
    assert "| `M_list` | `[400, 1600, 6400]` | memories of the sweep in tokens |" in md
    assert "| `seed` | `0` | seeds every draw |" in md


def test_banner_is_folded_and_offers_source_and_stored_tables():
    run_chapters = _load("kvbook_run_chapters_banner", ROOT / "book" / "run_chapters.py")
    table = "results/lowerbounds/thm41.csv"
    log = {"tables": {"thm41": {"table": "thm41", "path": table, "label": "all 156 rows"}}}
    text = run_chapters.banner_cell("full", "read", log, name="lowerbounds").source
    assert text.startswith("````{admonition} Paper-scale results (full mode): 1 stored table, read")
    assert ":class: note dropdown" in text and "`thm41`: all 156 rows." in text
    assert "{kvbook-source} notebooks/lowerbounds.py" in text
    assert "{download}`thm41.csv </results/lowerbounds/thm41.csv>`" in text
    assert "{download}`thm41.manifest.json </results/lowerbounds/thm41.manifest.json>`" in text
    assert "1 stored table, read, not recomputed: current" in text
    # the title says how many tables are current and how many stale, and turns red when any is stale
    log2 = {"tables": {"a": {"table": "a", "label": "x", "stale": "no"}, "b": {"table": "b", "label": "y",
                                                                           "stale": "yes"}}}
    text2 = run_chapters.banner_cell("full", "read", log2, name="lowerbounds").source
    assert "2 stored tables, read, not recomputed: 1 current, 1 stale" in text2.splitlines()[0]
    assert ":class: danger dropdown" in text2
    log2["tables"]["b"]["stale"] = "no"
    text3 = run_chapters.banner_cell("full", "read", log2, name="lowerbounds").source
    assert "not recomputed: all current" in text3 and ":class: note dropdown" in text3
    quick = run_chapters.banner_cell("quick", "off", {}, name="lowerbounds").source
    assert "warning" in quick and "dropdown" not in quick
    assert "{kvbook-source} notebooks/lowerbounds.py" in quick


def test_every_chapter_parameter_has_a_meaning():
    """The generated parameters table of each chapter explains every parameter (its trailing comment)."""
    run_chapters = _load("kvbook_run_chapters_meaning", ROOT / "book" / "run_chapters.py")
    for path in sorted((ROOT / "notebooks").glob("*.py")):
        text = path.read_text("utf8")
        head = '# %% tags=["parameters"]\n'
        assert head in text, path.name
        cell = text.split(head, 1)[1].split("\n# %%", 1)[0]
        docs = run_chapters.parameter_docs(cell)
        assert {"mode", "seed"} <= {d[0] for d in docs}, path.name
        missing = [d[0] for d in docs if not d[2]]
        assert not missing, f"{path.name}: parameters without a comment: {missing}"
