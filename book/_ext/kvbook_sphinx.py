"""Sphinx extension for kvbook: labels of results, the index of results, citation, site fixes.

Registered in ``_config.yml`` (``sphinx.local_extensions``).  It does four things.

1. **Labels of theorem-like blocks** (sphinx-proof).  The book restates results of
   the four papers and proves results of its own; their labels must never collide
   ("Theorem 7" of the book is not 001's Theorem 7).  So:

   * a block that restates a paper's result is written with ``:nonumber:`` and a
     title that starts with the paper's id and the paper's own label, e.g.
     ``:::{prf:theorem} 001 Theorem 4.3 (MC-SF is O(1)-competitive)``.  It is shown
     as *001 Theorem 4.3 (MC-SF is O(1)-competitive)* -- the paper's label, without
     a number of ours -- and ``{prf:ref}`` to it reads "001 Theorem 4.3";
   * every numbered block is ours and is numbered ``K.<chapter>.<n>`` (K for
     kvbook; one counter per chapter shared by all kinds, set in ``_config.yml``
     by ``prf_realtyp_to_countertyp``), e.g. "Proposition K.3.2";
   * a block whose title starts with a paper id (``001`` ... ``004``) is a
     paper's result even if ``:nonumber:`` was forgotten: it never takes a number
     of ours (so an own result's title must not start with a paper id).

2. **Index of results**: the directive ``{kvbook-results}`` lists every
   theorem-like block of the book, chapter by chapter, linked, with its label
   and title.

3. **Citation**: the directive ``{kvbook-citation}`` renders the BibTeX entry of
   the book with the git commit and the date of the build.

4. **Tables with captions**: a ``{glue:figure}`` with ``:figclass: kvbook-table``
   (a glued table, not a picture) becomes a :class:`table_figure`, numbered and
   captioned as a table ("Table 3.2"), not as a figure.

5. **Repository link**: the setting ``kvbook_repository_url`` (``_config.yml``,
   ``sphinx.config``; empty by default) feeds the ``url`` of the BibTeX entry and
   the source links of the pages (``{kvbook-source}``); ``CITATION.cff`` carries
   the same URL (``tests/test_site_check.py`` keeps them equal).  When it is
   empty no repository link is shown, only the copies of the sources inside the
   site.

6. **An existing example label**: ``{kvbook-example-result}`` prints the label of
   the first numbered result of the book ("Proposition K.1.1"), linked, so that
   a page that shows how to cite a result names one that exists.

7. **Site fixes**: the footer's copyright is the build year; the theme starts
   in light mode (pydata-sphinx-theme logs a console error on a first visit
   when no default mode is set); inline scripts
   that Sphinx 7.4 emits twice (``const THEBE_JS_URL`` of sphinx-thebe, added
   after the builder started and then re-added by ``prepare_writing`` with
   filename ``''`` instead of ``None``; redeclaring a ``const`` is a console
   error) are emitted once.

The build date is ``SOURCE_DATE_EPOCH`` if set (reproducible builds), else now (UTC).
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)

PREFIX = "K."  # our own results: Proposition K.<chapter>.<n>
PAPER_IDS = ("001", "002", "003", "004")
_PAPER_TITLE = re.compile(r"^\s*(%s)\s+\S" % "|".join(PAPER_IDS))
ENV_KEY = "kvbook_prf"


# --------------------------------------------------------------------------- build info


def build_date() -> _dt.date:
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch:
        return _dt.datetime.fromtimestamp(int(epoch), _dt.timezone.utc).date()
    return _dt.datetime.now(_dt.timezone.utc).date()


def git_state(root: Path) -> dict[str, Any]:
    """Commit of ``root`` and whether tracked files differ from it (None if no git)."""

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True,
                              check=True).stdout.strip()

    try:
        sha = git("rev-parse", "HEAD")
        dirty = bool(git("status", "--porcelain", "--untracked-files=no"))
    except (OSError, subprocess.CalledProcessError):
        return {"sha": None, "dirty": None}
    return {"sha": sha, "dirty": dirty}


def set_copyright(app: Sphinx, config: Any) -> None:
    config.copyright = f"{build_date().year}"


def set_theme_mode(app: Sphinx, config: Any) -> None:
    """Light mode unless the reader picks another.

    Without ``default_mode`` pydata-sphinx-theme starts a first visit with the
    mode "" and logs the console error "Got invalid theme mode: ." (Jupyter
    Book's configuration has no key for it; the theme reads it from the
    template context).
    """
    ctx = dict(config.html_context or {})
    ctx.setdefault("default_mode", "light")
    config.html_context = ctx


# --------------------------------------------------------------------------- duplicate scripts


def dedupe_scripts(app: Sphinx, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    files = context.get("script_files")
    if not isinstance(files, list):
        return
    seen: set[tuple] = set()
    kept = []
    for js in files:
        filename = getattr(js, "filename", js) or ""
        attrs = getattr(js, "attributes", {}) or {}
        key = (str(filename), getattr(js, "priority", None),
               tuple(sorted((k, str(v)) for k, v in attrs.items())))
        if key in seen:
            continue
        seen.add(key)
        kept.append(js)
    files[:] = kept


# --------------------------------------------------------------------------- labels of results


def _prf_nodes():
    from sphinx_proof.nodes import NODE_TYPES, unenumerable_node

    return NODE_TYPES, unenumerable_node


def paper_label(title: str) -> bool:
    """True if a block's title starts with a paper id (001 ... 004) and a label."""
    return bool(_PAPER_TITLE.match(title))


def _strip_title_format(title: nodes.title, fmt: str) -> None:
    """Undo sphinx-proof's title format (" (%t)") on a title node, in place."""
    head, _, tail = fmt.partition("%t")
    texts = [n for n in title.findall(nodes.Text)]
    if not texts:
        return
    first, last = texts[0], texts[-1]
    if head and str(first).startswith(head):
        new = nodes.Text(str(first)[len(head):])
        first.parent.replace(first, new)
        if last is first:
            last = new
    if tail and str(last).endswith(tail):
        last.parent.replace(last, nodes.Text(str(last)[: -len(tail)]))


def collect_results(app: Sphinx, doctree: nodes.document) -> None:
    """doctree-read: record every prf block; relabel the papers' results."""
    env = app.env
    store = getattr(env, ENV_KEY, None)
    if store is None:
        store = {}
        setattr(env, ENV_KEY, store)
    node_types, unenumerable_node = _prf_nodes()
    fmt = app.config.proof_title_format
    head, _, tail = fmt.partition("%t")
    classes = tuple(node_types.values()) + (unenumerable_node,)
    for order, node in enumerate(list(n for n in doctree.findall() if isinstance(n, classes))):
        raw = node.get("title", "") or ""
        title = raw[len(head):] if head and raw.startswith(head) else raw
        title = title[: -len(tail)] if tail and title.endswith(tail) else title
        is_paper = paper_label(title)
        if is_paper and not isinstance(node, unenumerable_node):
            # A paper's result never takes a number of ours, even without :nonumber:.
            node = _unnumber(env, node, unenumerable_node)
        numbered = not isinstance(node, unenumerable_node)
        if is_paper:
            node["kvbook_paper"] = True
            for t in node.findall(nodes.title):
                _strip_title_format(t, fmt)
                t["classes"].append("kvbook-paper-result")
                # sphinx-proof repeats the block's id on the title of a :nonumber:
                # block (to find it when rendering); ours does not need it, and
                # one id twice on a page is invalid HTML.
                t["ids"] = [i for i in t["ids"] if i not in node["ids"]]
                break
        text_title = title
        for t in node.findall(nodes.title):
            text_title = t.astext().strip()
            if not is_paper:
                text_title = text_title[len(head.strip()):] if head.strip() and text_title.startswith(head.strip()) else text_title
                text_title = text_title[: -len(tail.strip())] if tail.strip() and text_title.endswith(tail.strip()) else text_title
            break
        store[node["label"]] = {
            "docname": env.docname,
            "id": node["ids"][0] if node["ids"] else node["label"],
            "realtype": node.get("realtype", ""),
            "countertype": node.get("countertype", ""),
            "title": text_title.strip(),
            "paper": is_paper,
            "numbered": numbered,
            "order": order,
        }


def _unnumber(env: Any, node: nodes.Element, unenumerable_node: type) -> nodes.Element:
    """Replace a numbered prf node by an unnumbered one (as if written with :nonumber:)."""
    new = unenumerable_node()
    new.document = getattr(node, "document", None)
    for key in ("ids", "classes", "names"):
        new[key] = list(node.get(key, []))
    for key in ("title", "label", "countertype", "realtype"):
        if key in node:
            new[key] = node[key]
    new.source, new.line = node.source, node.line
    new.extend(node.children)
    node.replace_self(new)
    rec = getattr(env, "proof_list", {}).get(new.get("label"))
    if rec is not None:
        rec["nonumber"] = True
    return new


def purge_results(app: Sphinx, env: Any, docname: str) -> None:
    store = getattr(env, ENV_KEY, None)
    if store:
        for key in [k for k, v in store.items() if v["docname"] == docname]:
            del store[key]


def merge_results(app: Sphinx, env: Any, docnames: set, other: Any) -> None:
    store = getattr(env, ENV_KEY, None)
    if store is None:
        store = {}
        setattr(env, ENV_KEY, store)
    store.update(getattr(other, ENV_KEY, {}) or {})


def result_number(env: Any, rec: dict[str, Any]) -> str:
    nums = env.toc_fignumbers.get(rec["docname"], {}).get(rec["countertype"], {}).get(rec["id"])
    return ".".join(map(str, nums)) if nums else ""


def display_label(env: Any, label: str) -> str | None:
    """How a block is named in text: 'Proposition K.3.2' or '001 Theorem 4.3'."""
    from sphinx_proof.nodes import _ as translate

    rec = (getattr(env, ENV_KEY, {}) or {}).get(label)
    if rec is None:
        return None
    if rec["paper"]:
        # the paper's label without the parenthesised name: "001 Theorem 4.3"
        return re.split(r"\s*\(", rec["title"], maxsplit=1)[0].strip()
    kind = translate(rec["realtype"].title())
    if not rec["numbered"]:
        return kind
    number = result_number(env, rec)
    return f"{kind} {PREFIX}{number}" if number else kind


def depart_enumerable_node(self: Any, node: nodes.Element) -> None:
    """sphinx-proof's HTML depart, with our prefix K. before the number."""
    from sphinx_proof.nodes import _ as translate
    from sphinx_proof.nodes import get_node_number

    countertyp = node.attributes.get("countertype", "")
    realtyp = node.attributes.get("realtype", "")
    number = get_node_number(self, node, countertyp)
    idx = self.body.index(f"{countertyp} {number} ")
    shown = f"{PREFIX}{number}" if number else ""
    self.body[idx] = f"{translate(realtyp.title())} {shown} "
    self.body.append("</div>")


def depart_unenumerable_node(self: Any, node: nodes.Element) -> None:
    """sphinx-proof's HTML depart; a paper's result shows only the paper's label."""
    from sphinx_proof.nodes import _ as translate
    from sphinx_proof.nodes import list_rindex

    if not node.get("kvbook_paper"):
        realtyp = node.attributes.get("realtype", "")
        node_id = node.attributes.get("ids", [""])[0]
        idx = list_rindex(self.body, f'<p class="admonition-title" id="{node_id}">') + 1
        self.body.insert(idx, f'<span class="caption-number">{translate(realtyp.title())} </span>')
    self.body.append("</div>")


def make_domain():
    from sphinx_proof.domain import ProofDomain

    class KVProofDomain(ProofDomain):
        """sphinx-proof's domain; {prf:ref} without a text reads our label scheme."""

        def resolve_xref(self, env, fromdocname, builder, typ, target, node, contnode):
            implicit = target in contnode[0]
            res = super().resolve_xref(env, fromdocname, builder, typ, target, node, contnode)
            if res is None or not implicit:
                return res
            text = display_label(env, target)
            if text:
                res.children = []
                res += nodes.Text(text)
            return res

    return KVProofDomain


# --------------------------------------------------------------------------- index of results


class results_index(nodes.General, nodes.Element):
    """Placeholder, replaced by the list of results when the page is resolved."""


class ResultsIndexDirective(SphinxDirective):
    has_content = False
    option_spec: dict[str, Any] = {}

    def run(self) -> list[nodes.Node]:
        return [results_index("")]


def _docs_in_toc_order(env: Any, root: str) -> list[str]:
    order: list[str] = []

    def walk(doc: str) -> None:
        if doc in order:
            return
        order.append(doc)
        for child in env.toctree_includes.get(doc, []):
            walk(child)

    walk(root)
    return order


def fill_results_index(app: Sphinx, doctree: nodes.document, fromdocname: str) -> None:
    placeholders = list(doctree.findall(results_index))
    if not placeholders:
        return
    env = app.env
    store = getattr(env, ENV_KEY, {}) or {}
    by_doc: dict[str, list[dict[str, Any]]] = {}
    for label, rec in store.items():
        by_doc.setdefault(rec["docname"], []).append({**rec, "label": label})
    docs = _docs_in_toc_order(env, app.config.root_doc)
    docs += sorted(d for d in by_doc if d not in docs)
    content: list[nodes.Node] = []
    for doc in docs:
        recs = sorted(by_doc.get(doc, []), key=lambda r: r["order"])
        if not recs:
            continue
        uri = app.builder.get_relative_uri(fromdocname, doc)
        secnum = env.toc_secnumbers.get(doc, {}).get("", ())
        chapter = (".".join(map(str, secnum)) + " ") if secnum else ""
        head = nodes.paragraph(classes=["kvbook-results-chapter"])
        head += nodes.strong("", "", nodes.reference("", chapter + env.titles[doc].astext(),
                                                     refuri=uri, internal=True))
        content.append(head)
        items = nodes.bullet_list(classes=["kvbook-results"])
        for rec in recs:
            label = display_label(env, rec["label"]) or rec["realtype"].title()
            if rec["paper"]:
                shown = rec["title"]
            elif rec["title"]:
                shown = f"{label} ({rec['title']})"
            else:
                shown = label
            para = nodes.paragraph()
            para += nodes.reference("", shown, refuri=f"{uri}#{rec['id']}", internal=True)
            item = nodes.list_item()
            item += para
            items += item
        content.append(items)
    if not content:
        content = [nodes.paragraph(text="The book has no theorem-like blocks yet.")]
    for ph in placeholders:
        ph.replace_self(content)


# --------------------------------------------------------------------------- citation


def _manifest_sha(root: Path) -> str | None:
    path = root / "chapters" / "run_manifest.json"
    try:
        data = json.loads(path.read_text(encoding="utf8"))
    except (OSError, ValueError):
        return None
    sha = data.get("git_sha")
    return sha if isinstance(sha, str) and sha != "unknown" else None


class CitationDirective(SphinxDirective):
    """The BibTeX entry of the book, with the commit and the date of this build."""

    has_content = False
    option_spec = {"key": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        root = Path(self.env.srcdir)
        git = git_state(root)
        date = build_date()
        key = self.options.get("key", "kvbook")
        cfg = self.config
        title = cfg.html_title or cfg.project
        sha = git["sha"]
        version = f"git commit {sha}" if sha else "git commit unknown"
        if git["dirty"]:
            version += " with uncommitted changes"
        note = f"Built {date.isoformat()}"
        executed = _manifest_sha(root)
        if executed and sha and executed != sha:
            note += f"; chapters executed at git commit {executed}"
        url = repository_url(cfg)
        months = "jan feb mar apr may jun jul aug sep oct nov dec".split()
        bib = "\n".join([
            f"@misc{{{key},",
            f"  title  = {{{title}: an executable companion to the theory of",
            f"            {{LLM}}-inference scheduling under {{KV}}-cache limits}},",
            f"  author = {{{{{cfg.author}}}}},",
            f"  year   = {{{date.year}}},",
            f"  month  = {months[date.month - 1]},",
            f"  howpublished = {{Jupyter Book, {version}}},",
            f"  note   = {{{note}}},",
            *([f"  url    = {{{url}}},"] if url else []),
            "}",
        ])
        block = nodes.literal_block(bib, bib, language="bibtex")
        self.set_source_info(block)
        text = (f"This page was built on {date.isoformat()} from "
                + (f"commit {sha}" if sha else "an unknown commit")
                + (" (with uncommitted changes)" if git["dirty"] else "") + ".")
        return [nodes.paragraph(text=text), block]


# --------------------------------------------------------------------------- tables


class table_figure(nodes.figure):
    """A glued table with a caption: numbered and captioned as a table, not a figure."""


TABLE_CLASS = "kvbook-table"


def _figure_title(node: nodes.Element) -> str | None:
    for cap in node.findall(nodes.caption):
        return cap.astext()
    return None


class TablesAsTables(SphinxTransform):
    """Turn ``{glue:figure}`` blocks marked ``:figclass: kvbook-table`` into tables."""

    default_priority = 500

    def apply(self, **kwargs: Any) -> None:
        for fig in list(self.document.findall(nodes.figure)):
            if type(fig) is nodes.figure and TABLE_CLASS in fig.get("classes", []):
                new = table_figure(fig.rawsource, *fig.children, **fig.attributes)
                new.source, new.line = fig.source, fig.line
                fig.replace_self(new)
                # the document's id map still points at the old node: {numref} looks it up there
                for node_id in new["ids"]:
                    if self.document.ids.get(node_id) is fig:
                        self.document.ids[node_id] = new


def visit_table_figure(self: Any, node: nodes.Element) -> None:
    self.visit_figure(node)


def depart_table_figure(self: Any, node: nodes.Element) -> None:
    self.depart_figure(node)


# --------------------------------------------------------------------------- repository, sources


def repository_url(config: Any) -> str:
    """The repository URL setting, without a trailing slash ("" when unset)."""
    url = (getattr(config, "kvbook_repository_url", "") or "").strip()
    return url.rstrip("/")


def check_repository_url(app: Sphinx, config: Any) -> None:
    url = repository_url(config)
    if url and not re.match(r"^https?://[^\s/]+/\S+$", url):
        raise ValueError(
            f"_config.yml: sphinx.config.kvbook_repository_url must be an http(s) URL of the "
            f"repository or empty, got {url!r}")


class SourceDirective(SphinxDirective):
    """``{kvbook-source} PATH``: where the source of this page lives.

    A download link to the copy of ``PATH`` (relative to the repository root) inside
    the site and, when ``kvbook_repository_url`` is set, a link to the file at this
    build's commit on the repository.
    """

    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        from sphinx import addnodes

        path = self.arguments[0].lstrip("/")
        para = nodes.paragraph(classes=["kvbook-source"])
        para += nodes.Text("Source: ")
        ref = addnodes.download_reference("", "", reftarget="/" + path, refdoc=self.env.docname,
                                          refexplicit=True, refdomain="", reftype="download")
        ref += nodes.literal(path, path)
        para += ref
        url = repository_url(self.config)
        if url:
            sha = git_state(Path(self.env.srcdir))["sha"] or "HEAD"
            para += nodes.Text(" (")
            para += nodes.reference("", "on the repository", refuri=f"{url}/blob/{sha}/{path}")
            para += nodes.Text(")")
        self.set_source_info(para)
        return [para]


# --------------------------------------------------------------------------- example label


class example_result(nodes.General, nodes.Inline, nodes.Element):
    """Placeholder for the label of the book's first numbered result."""


class ExampleResultDirective(SphinxDirective):
    has_content = False

    def run(self) -> list[nodes.Node]:
        para = nodes.paragraph()
        para += example_result("")
        return [para]


def first_numbered_result(env: Any, root: str) -> dict[str, Any] | None:
    store = getattr(env, ENV_KEY, {}) or {}
    docs = _docs_in_toc_order(env, root)
    recs = [dict(v, label=k) for k, v in store.items() if v["numbered"] and not v["paper"]]
    recs.sort(key=lambda r: (docs.index(r["docname"]) if r["docname"] in docs else len(docs), r["order"]))
    return recs[0] if recs else None


def fill_example_result(app: Sphinx, doctree: nodes.document, fromdocname: str) -> None:
    holders = list(doctree.findall(example_result))
    if not holders:
        return
    rec = first_numbered_result(app.env, app.config.root_doc)
    for ph in holders:
        if rec is None:
            ph.replace_self(nodes.Text("(the book has no numbered result)"))
            continue
        label = display_label(app.env, rec["label"]) or rec["realtype"].title()
        uri = app.builder.get_relative_uri(fromdocname, rec["docname"]) + "#" + rec["id"]
        secnum = app.env.toc_secnumbers.get(rec["docname"], {}).get("", ())
        chapter = ".".join(map(str, secnum))
        span = nodes.inline(classes=["kvbook-example-result"])
        span += nodes.Text("for example \u201ckvbook, ")
        span += nodes.reference("", label, refuri=uri, internal=True)
        span += nodes.Text(f"\u201d (chapter {chapter}, {app.env.titles[rec['docname']].astext()})"
                           if chapter else "\u201d")
        ph.replace_self(span)


# --------------------------------------------------------------------------- setup


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension("sphinx_proof")
    node_types, unenumerable_node = _prf_nodes()
    from sphinx_proof.nodes import visit_enumerable_node, visit_unenumerable_node

    for node_class in node_types.values():
        app.add_node(node_class, override=True,
                     html=(visit_enumerable_node, depart_enumerable_node))
    app.add_node(unenumerable_node, override=True,
                 html=(visit_unenumerable_node, depart_unenumerable_node))
    app.add_domain(make_domain(), override=True)

    app.add_enumerable_node(table_figure, "table", _figure_title,
                            html=(visit_table_figure, depart_table_figure))
    app.add_transform(TablesAsTables)
    app.add_config_value("kvbook_repository_url", "", "env", [str])
    app.connect("config-inited", check_repository_url)
    app.add_directive("kvbook-source", SourceDirective)
    app.add_node(example_result, html=(lambda s, n: None, lambda s, n: None))
    app.add_directive("kvbook-example-result", ExampleResultDirective)
    app.connect("doctree-resolved", fill_example_result)

    app.add_node(results_index, html=(lambda s, n: None, lambda s, n: None))
    app.add_directive("kvbook-results", ResultsIndexDirective)
    app.add_directive("kvbook-citation", CitationDirective)

    app.connect("config-inited", set_copyright)
    app.connect("config-inited", set_theme_mode)
    app.connect("doctree-read", collect_results)
    app.connect("env-purge-doc", purge_results)
    app.connect("env-merge-info", merge_results)
    app.connect("doctree-resolved", fill_results_index)
    app.connect("html-page-context", dedupe_scripts, priority=900)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True,
            "env_version": 1}
