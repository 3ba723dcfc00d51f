"""The page checks for what a reader found (book/check_site.py): code names in prose, titles, the
tables of contents, captions and link text; figure text under 8 px at the page's scale; abbreviations
on a first screen that the glossary does not define.  Each synthetic page has one defect and fails
only through its check; a clean page passes.  Also the figure record of kvlib.book.figtext.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

from _helpers import have_browser, load_module

import pytest

ROOT = Path(__file__).resolve().parent.parent


_load = load_module


check_site = _load("kvbook_check_site_reader", ROOT / "book" / "check_site.py")

PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>{title}</title>
<link rel="icon" href="data:,">
<style>body {{ margin: 0; }} main {{ width: 600px; margin-left: 100px; }}</style></head>
<body><nav class="bd-sidebar-primary"><ul><li><a href="#sec">{toc}</a></li></ul></nav>
<main><article class="bd-article"><section id="sec">
<h1>A page</h1>
{body}
</section></article></main></body></html>
"""

CLEAN = """
<p>MC-SF keeps the memory limit; its total end-to-end latency (TEL) is 12 rounds in 1.5 GB.</p>
<p>The file <a class="reference download" href="#sec">tp_load.csv</a> and results/amin/periods.csv hold
the rows; see docs.python.org, e.g. the table, i.e. the rows.</p>
<div class="cell"><div class="cell_input"><pre>ry.cr_amin(A_min)</pre></div></div>
<pre>kvlib.serving.measured</pre>
<details><summary>How this is checked</summary><p>By <code>test_cr_amin</code> and <code>ry.cr_amin</code>.</p></details>
<figure><img src="{png}" style="width: {width}px"><figcaption>Latency against load.</figcaption></figure>
"""

# name -> (kind, body added to the clean page, title, table-of-contents entry)
DEFECTS = {
    "underscore-in-heading": ("codename", "<h2>A_min and the log bound</h2>", "t", "Model"),
    "dotted-in-prose": ("codename", "<p>The bound ry.cr_amin holds.</p>", "t", "Model"),
    "dotted-in-caption": ("codename", "<figure><table><tr><td>1</td></tr></table><figcaption>Table 1 "
                          "B2.display of the values.</figcaption></figure>", "t", "Model"),
    "underscore-in-link": ("codename", '<p>See <a href="#sec">A_random</a>.</p>', "t", "Model"),
    "underscore-in-toc": ("codename", "", "t", "A_max: Theorem 2"),
    "underscore-in-title": ("codename", "", "A_l and friends", "Model"),
    "code-path-in-prose": ("codename", "<p>from kvlib.serving.measured we read it</p>", "t", "Model"),
    "inline-code-in-prose": ("codename", "<p>The bound (<code>ry.cr_amin</code>) holds.</p>", "t", "Model"),
    "inline-snake-in-caption": ("codename", "<figure><table><tr><td>1</td></tr></table><figcaption>Table 2 "
                                "from <code>match_share_upper</code>.</figcaption></figure>", "t", "Model"),
    "undefined-abbreviation": ("abbrev", "<p>An XQZ serves the requests.</p>", "t", "Model"),
    "undefined-hyphenated": ("abbrev", "<p>Qzx-LP bounds the optimum.</p>", "t", "Model"),
}


def _png(fontsize: float, width_in: float = 6.0) -> bytes:
    """A Matplotlib PNG with a legend at ``fontsize`` pt, recording its smallest text."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from IPython.core import pylabtools

    from kvlib.book import figtext

    fig, ax = plt.subplots(figsize=(width_in, 2), dpi=100)
    ax.plot([0, 1], [0, 1], label="MC-SF")
    ax.tick_params(labelsize=12)
    ax.legend(fontsize=fontsize)
    data = figtext._recording(pylabtools.print_figure)(fig, "png")
    plt.close(fig)
    return data


browser = pytest.mark.skipif(not have_browser(check_site), reason="chromium/chromedriver/selenium missing")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    d = tmp_path_factory.mktemp("site")
    (d / "_images").mkdir()
    (d / "_images" / "ok.png").write_bytes(_png(10))
    (d / "_images" / "small.png").write_bytes(_png(10, width_in=12))  # 10 pt at 100 dpi = 13.9 px in the PNG
    plain = io.BytesIO()
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([0, 1])
    fig.savefig(plain, format="png")
    plt.close(fig)
    (d / "_images" / "plain.png").write_bytes(plain.getvalue())

    def page(name, body="", title="t", toc="Model", png="_images/ok.png", width=500):
        (d / f"{name}.html").write_text(PAGE.format(
            title=title, toc=toc, body=CLEAN.format(png=png, width=width) + body), "utf8")

    page("clean")
    for name, (_, body, title, toc) in DEFECTS.items():
        page(name, body, title, toc)
    # 13.9 px in a PNG about 1,200 px wide shown 500 px wide: about 6 px on the page
    page("small-legend", png="_images/small.png")
    page("no-record", png="_images/plain.png", width=300)
    # a figure drawn at 6 pt shown at 1.6 times its size is readable (6 pt at 100 dpi: 8.3 px in the PNG)
    (d / "_images" / "narrow.png").write_bytes(_png(6, width_in=3))
    page("enlarged", png="_images/narrow.png", width=480)
    return d


def test_figure_records_its_smallest_text():
    from kvlib.book import figtext

    data = _png(5)
    assert figtext.KEY.encode() in data
    from PIL import Image

    info = json.loads(Image.open(io.BytesIO(data)).text[figtext.KEY])
    assert info["px"] == pytest.approx(5 * 100 / 72, abs=0.01)
    assert info["what"] == "legend 'MC-SF'"
    assert check_site.FIGTEXT_KEY == figtext.KEY


def test_smallest_text_names_a_tick_label_and_skips_hidden_text():
    import matplotlib.pyplot as plt

    from kvlib.book import figtext

    fig, ax = plt.subplots(dpi=72)
    ax.plot([0, 1], [0, 1])
    ax.tick_params(axis="x", labelsize=6)
    ax.text(0.5, 0.5, "hidden", fontsize=2).set_visible(False)
    ax.text(0.5, 0.5, "   ", fontsize=1)
    fig.canvas.draw()
    info = figtext.smallest_text(fig)
    plt.close(fig)
    assert info["px"] == 6.0 and info["what"].startswith("tick label")


def test_glossary_terms_are_read_from_the_glossary(tmp_path):
    g = tmp_path / "g.md"
    g.write_text("# G\n\n```{glossary}\n:sorted:\nMC-SF\n  text\n\nAM1\nAM2\n  text\n\n001, 002\n  papers\n```\n"
                 "LLM\n", "utf8")
    terms = check_site.glossary_terms(g)
    assert {"MC-SF", "AM1", "AM2", "001", "002"} <= set(terms) and "LLM" not in terms
    assert "MC-SF" in check_site.glossary_terms()


@browser
def test_each_reader_defect_found_and_clean_page_passes(site):
    pages = ["clean.html", "enlarged.html", "small-legend.html", "no-record.html",
             *(f"{n}.html" for n in DEFECTS)]
    findings = check_site.check_pages(site, pages)
    by_page: dict[str, set[str]] = {}
    for f in findings:
        by_page.setdefault(f.page, set()).add(f.kind)
    assert "clean.html" not in by_page, [str(f) for f in findings if f.page == "clean.html"]
    assert "enlarged.html" not in by_page, [str(f) for f in findings]
    for name, (kind, *_) in DEFECTS.items():
        assert by_page.get(f"{name}.html") == {kind}, (name, [str(f) for f in findings])
    assert by_page.get("small-legend.html") == {"textsize"}, [str(f) for f in findings]
    assert by_page.get("no-record.html") == {"textsize"}, [str(f) for f in findings]
    culprits = {f.page: f.culprit for f in findings}
    assert "legend 'MC-SF'" in culprits["small-legend.html"] and "px tall" in culprits["small-legend.html"]
    assert "'A_max'" in culprits["underscore-in-toc.html"] and "navigation" in culprits["underscore-in-toc.html"]
    assert "window title" in culprits["underscore-in-title.html"]
    assert "'XQZ'" in culprits["undefined-abbreviation.html"]
    assert "'kvlib.serving.measured'" in culprits["code-path-in-prose.html"]
