#!/usr/bin/env python
"""Execute the chapters of kvbook with papermill.

For every chapter NAME listed in ``book/chapters.yml`` this script

1. converts ``notebooks/NAME.py`` (jupytext percent format) to a notebook in a
   temporary directory,
2. executes it with papermill (kernel ``python3``, working directory = the
   repository root) with the chapter's parameters for the chosen mode, and
3. tags the code cells for the page (see :func:`tag_cells`: plumbing is folded
   away behind Jupyter Book's show/hide toggle unless the cell is tagged
   ``teach``) and writes the executed notebook to ``chapters/NAME.ipynb``
   (at the repository root, generated and git-ignored; the page's URL is
   ``chapters/NAME.html``).

Kernels run with ``TQDM_DISABLE=1`` (no progress bars on the pages) and
``PYTHONWARNINGS=ignore`` (no warnings on the pages); a cell that still writes
to stderr is named in the runner's log, and ``_config.yml`` removes stderr
output from the pages.  Errors are not affected: a failing cell fails the run.

Chapters run in parallel (``--jobs``); the chapter ``status`` runs last, after
all others have finished, and reads ``chapters/run_manifest.json``, which
records per chapter: parameters, mode, wall time, start/end timestamps and the
git commit (and whether the working tree was dirty).

If any chapter fails, the script names the chapter and the failing cell's error,
does not run ``status``, removes the stale ``chapters/NAME.ipynb`` (the
failed notebook is kept as ``chapters/NAME.failed.ipynb``) and exits with
status 1.

Examples::

    python book/run_chapters.py                      # all chapters, quick mode (CI scale, live)
    python book/run_chapters.py --mode full --store read   # paper scale, from the stored results
    python book/run_chapters.py --mode full --only hindsight  # (re)generate one chapter's stored results

Full mode and the results store (``kvlib.book.store``): a chapter's expensive tables live in
``results/CHAPTER/``.  ``--store write`` (the default in full mode) reuses stored rows, computes
the missing ones and appends each as it finishes, so an interrupted regeneration resumes where it
stopped (``--fresh`` recomputes everything); the runner shows each table's progress and records
the chapter's wall time in ``results/CHAPTER/_run.json``.  ``--store read`` (the default build)
reads stored rows only.  Every page gets a banner after its title saying which scale its numbers
are (quick mode: CI scale; full mode: the stored tables with their commits and dates).
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import datetime as _dt
import json
import multiprocessing
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import time
import traceback
from pathlib import Path
from typing import Any

BOOK_DIR = Path(__file__).resolve().parent
REPO_ROOT = BOOK_DIR.parent
NOTEBOOK_DIR = REPO_ROOT / "notebooks"
EXECUTED_DIR = REPO_ROOT / "chapters"  # executed notebooks; URL chapters/NAME.html
EXECUTED_PREFIX = "chapters/"  # how _toc.yml names them
CHAPTERS_FILE = BOOK_DIR / "chapters.yml"
MANIFEST = EXECUTED_DIR / "run_manifest.json"
KERNEL_NAME = "python3"
STATUS_CHAPTER = "status"
REQUIRED_PARAMETERS = ("mode", "seed")
MODES = ("quick", "full")

# Cell tags (Jupyter Book / MyST-NB).  A code cell a reader should see is tagged
# TEACH_TAG by the chapter's author; every other code cell is folded away with
# HIDE_TAG (the reader can still open it).  Cells already carrying one of
# KEEP_TAGS are left as their author tagged them.
TEACH_TAG = "teach"
HIDE_TAG = "hide-input"
KEEP_TAGS = frozenset({TEACH_TAG, "remove-cell", "remove-input", "hide-cell", "hide-input",
                       "hide-output"})
# Environment of the kernels: no progress bars, no warnings on the pages.
KERNEL_ENV = {"TQDM_DISABLE": "1", "PYTHONWARNINGS": "ignore"}
#: how often (s) a regeneration run records its wall time so far in results/CHAPTER/_regeneration.json
REGENERATION_HEARTBEAT_S = 15.0

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class ChapterConfigError(RuntimeError):
    """chapters.yml or a notebook's parameters cell is inconsistent."""


# --------------------------------------------------------------------------- helpers


def now_iso() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def git_info(root: Path = REPO_ROOT) -> dict[str, Any]:
    """The commit checked out in ``root`` and whether the tree differs from it (the stored results in
    ``results/``, which the runner itself writes, do not count)."""

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()

    try:
        sha = git("rev-parse", "HEAD")
        porcelain = git("status", "--porcelain", "--", ".", ":(exclude)results")
    except (OSError, subprocess.CalledProcessError):
        return {"sha": "unknown", "dirty": None, "changed_paths": None}
    changed = [line for line in porcelain.splitlines() if line.strip()]
    return {"sha": sha, "dirty": bool(changed), "changed_paths": len(changed)}


def load_chapters(path: Path = CHAPTERS_FILE) -> dict[str, dict[str, dict[str, Any]]]:
    import yaml

    data = yaml.safe_load(path.read_text(encoding="utf8")) or {}
    if not isinstance(data, dict):
        raise ChapterConfigError(f"{path}: expected a mapping NAME -> {{quick: ..., full: ...}}")
    for name, modes in data.items():
        if not isinstance(modes, dict):
            raise ChapterConfigError(f"{path}: chapter {name!r}: expected a mapping of modes")
        for mode in MODES:
            params = modes.get(mode)
            if not isinstance(params, dict):
                raise ChapterConfigError(
                    f"{path}: chapter {name!r} has no parameters for mode {mode!r}"
                )
            missing = [p for p in REQUIRED_PARAMETERS if p not in params]
            if missing:
                raise ChapterConfigError(
                    f"{path}: chapter {name!r}, mode {mode!r}: missing parameter(s) {missing}"
                )
            if params["mode"] != mode:
                raise ChapterConfigError(
                    f"{path}: chapter {name!r}: the {mode!r} entry sets mode={params['mode']!r}"
                )
    return data


def toc_chapters(toc: Path = REPO_ROOT / "_toc.yml") -> list[str]:
    """Names NAME of the ``chapters/NAME`` entries of _toc.yml, in order."""
    import yaml

    names: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            f = node.get("file")
            if isinstance(f, str) and f.startswith(EXECUTED_PREFIX):
                names.append(Path(f).with_suffix("").name if f.endswith(".ipynb") else Path(f).name)
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    if toc.exists():
        data = yaml.safe_load(toc.read_text(encoding="utf8")) or {}
        root = data.get("root")
        if isinstance(root, str):
            walk({"file": root})
        walk(data)
    return names


def check_toc(chapters: dict[str, Any]) -> list[str]:
    """Mismatches between _toc.yml and chapters.yml (each would break or hide a page)."""
    in_toc = toc_chapters()
    problems = [
        f"_toc.yml lists {EXECUTED_PREFIX}{n}, but book/chapters.yml has no chapter {n!r}"
        for n in in_toc if n not in chapters
    ]
    problems += [
        f"book/chapters.yml has chapter {n!r}, but _toc.yml has no 'file: {EXECUTED_PREFIX}{n}'"
        for n in chapters if n not in in_toc
    ]
    return problems


def ensure_kernel(name: str = KERNEL_NAME) -> None:
    """Make sure a Jupyter kernel called ``name`` exists (install ipykernel's if not)."""
    from jupyter_client.kernelspec import KernelSpecManager

    specs = KernelSpecManager().find_kernel_specs()
    if name not in specs:
        print(f"[run_chapters] kernel {name!r} not found; installing it for {sys.executable}")
        subprocess.run(
            [sys.executable, "-m", "ipykernel", "install", "--user", "--name", name],
            check=True,
        )
        return
    spec = KernelSpecManager().get_kernel_spec(name)
    exe = spec.argv[0] if spec.argv else ""
    # jupyter_client replaces a bare "python"/"python3" by sys.executable.
    if os.path.isabs(exe) and Path(exe).resolve() != Path(sys.executable).resolve():
        print(
            f"[run_chapters] warning: kernel {name!r} runs {exe}, not {sys.executable}; "
            "chapters will use that interpreter's packages",
            file=sys.stderr,
        )


def convert(name: str, workdir: Path) -> Path:
    """jupytext notebooks/NAME.py -> workdir/NAME.ipynb (kernelspec python3)."""
    import jupytext
    import nbformat

    src = NOTEBOOK_DIR / f"{name}.py"
    if not src.exists():
        raise ChapterConfigError(f"chapter {name!r}: {src.relative_to(REPO_ROOT)} does not exist")
    nb = jupytext.read(src)
    nb.metadata["kernelspec"] = {
        "name": KERNEL_NAME,
        "display_name": "Python 3 (ipykernel)",
        "language": "python",
    }
    nb.metadata.setdefault("language_info", {"name": "python"})
    out = workdir / f"{name}.ipynb"
    nbformat.write(nb, out)
    return out


def portable_path(path: Path | str) -> str:
    """``path`` relative to the repository root (the kernels' working directory).

    What the pages show (injected parameters, the status page) must not name
    directories of the build machine; an absolute path stays only where no
    relative one exists (another drive).
    """
    try:
        return Path(os.path.relpath(Path(path).resolve(), REPO_ROOT)).as_posix()
    except ValueError:
        return str(path)


def chapter_parameters(
    name: str, nb_path: Path, params: dict[str, Any], shared_dir: Path
) -> dict[str, Any]:
    """Check params against the notebook's parameters cell; add shared_dir if declared."""
    import papermill

    declared = papermill.inspect_notebook(str(nb_path))
    if not declared:
        raise ChapterConfigError(
            f"chapter {name!r}: notebooks/{name}.py has no cell tagged 'parameters'"
        )
    for p in REQUIRED_PARAMETERS:
        if p not in declared:
            raise ChapterConfigError(
                f"chapter {name!r}: the parameters cell of notebooks/{name}.py does not declare {p!r}"
            )
    unknown = [p for p in params if p not in declared]
    if unknown:
        raise ChapterConfigError(
            f"chapter {name!r}: book/chapters.yml passes {unknown}, which the parameters cell "
            f"of notebooks/{name}.py does not declare (declared: {sorted(declared)})"
        )
    params = dict(params)
    if "shared_dir" in declared and "shared_dir" not in params:
        params["shared_dir"] = portable_path(shared_dir)
    return params


def kernel_startup(folder: Path) -> Path:
    """An IPython folder whose start-up file makes the chapter's kernel record, in every figure's PNG,
    the size of its smallest text (:mod:`kvlib.book.figtext`; ``book/check_site.py`` reads it)."""
    startup = folder / "ipython" / "profile_default" / "startup"
    startup.mkdir(parents=True, exist_ok=True)
    (startup / "00-kvbook-figtext.py").write_text(
        "from kvlib.book.figtext import install\ninstall()\n", encoding="utf8")
    return folder / "ipython"


def tag_cells(nb: Any) -> int:
    """Fold away the plumbing: tag code cells ``hide-input`` unless they teach.

    Every code cell gets HIDE_TAG unless it already carries a tag in KEEP_TAGS
    (``teach`` marks a cell the chapter shows on purpose).  The ``parameters``
    cell and papermill's ``injected-parameters`` cell are hidden the same way
    (a ``teach`` tag on them is ignored): their values stay reachable through
    the toggle, and the status chapter lists them.  Returns the number of
    cells tagged.
    """
    n = 0
    for cell in nb.cells:
        if cell.get("cell_type") != "code":
            continue
        tags = list(cell.setdefault("metadata", {}).get("tags", []))
        plumbing = "parameters" in tags or "injected-parameters" in tags
        if plumbing:
            tags = [t for t in tags if t != TEACH_TAG]
        if plumbing or not KEEP_TAGS.intersection(tags):
            if HIDE_TAG not in tags:
                tags.append(HIDE_TAG)
                n += 1
        cell["metadata"]["tags"] = tags
    return n


def cells_writing_stderr(nb: Any) -> list[dict[str, Any]]:
    """Code cells with stderr output (removed from the pages; named in the log)."""
    found = []
    for index, cell in enumerate(nb.cells):
        if cell.get("cell_type") != "code":
            continue
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream" and out.get("name") == "stderr":
                text = _ANSI.sub("", "".join(out.get("text", ""))).strip()
                found.append({"cell_index": index,
                              "first_line": text.splitlines()[0][:200] if text else ""})
                break
    return found


# --------------------------------------------------------------------------- worker


def store_log_path(name: str, executed_dir: Path | None = None) -> Path:
    """Where a chapter's :class:`kvlib.book.store.Store` reports its tables and progress."""
    return (executed_dir or EXECUTED_DIR) / f"{name}.store.json"


def read_store_log(name: str, executed_dir: Path | None = None) -> dict[str, Any]:
    try:
        return json.loads(store_log_path(name, executed_dir).read_text(encoding="utf8"))
    except (OSError, json.JSONDecodeError):
        return {}


def _download(path: str) -> str:
    """A MyST download link to a repository file (copied into the built site)."""
    return f"{{download}}`{Path(path).name} </{path}>`"


def table_origin(t: dict[str, Any]) -> str:
    """What happened to a table's rows in this run, by the store's count: "read" (every row read from the
    results store), "computed live" (none was) or "mixed" (some of each)."""
    rows, live = int(t.get("rows") or 0), int(t.get("computed_now") or 0)
    if live <= 0:
        return "read"
    return "computed live" if live >= rows else "mixed"


def downloads_text(name: str, tables: list[dict[str, Any]]) -> str:
    """The files a reader can fetch from the page: the chapter's source and the stored tables it read.

    A table whose rows this run computed (a re-run with changed parameters) is not a stored table the
    page read: it is listed apart, with how many of its rows were read and how many computed live."""
    lines = [f"```{{kvbook-source}} notebooks/{name}.py\n```", ""]
    stored = []
    live = []
    for t in tables:
        path = t.get("path")
        origin = table_origin(t)
        if origin != "read":
            live.append((origin, int(t.get("rows") or 0), int(t.get("computed_now") or 0)))
            continue
        if not path or not (REPO_ROOT / path).is_file():
            continue
        item = _download(path)
        manifest = Path(path).with_suffix(".manifest.json").as_posix()
        if (REPO_ROOT / manifest).is_file():
            item += f" ({_download(manifest)})"
        stored.append(item)
    if stored:
        lines.append("Stored tables read by this page (CSV, with the manifest that records the code, "
                     "parameters, commit and machine that computed them): " + ", ".join(stored) + ".")
    if live:
        whole = [r for o, r, _ in live if o == "computed live"]
        mixed = [(r, n) for o, r, n in live if o == "mixed"]
        parts = []
        if whole:
            parts.append(f"{len(whole)} table{'s' if len(whole) != 1 else ''} computed live "
                         f"({sum(whole):,} rows)")
        if mixed:
            parts.append(f"{len(mixed)} table{'s' if len(mixed) != 1 else ''} partly read "
                         f"({sum(r - n for r, n in mixed):,} rows read from the store, "
                         f"{sum(n for _, n in mixed):,} computed live)")
        lines.append("Computed for this page, not stored: " + " and ".join(parts) + ".")
    lines.append("The executed notebook is under the download button at the top of the page.")
    return "\n".join(lines)


def currency_text(current: int, stale: int) -> str:
    """How many of a page's stored tables are current and how many stale (or of unknown currency), in words."""
    if not stale:
        return "all current" if current > 1 else "current"
    if not current:
        return "all stale" if stale > 1 else "stale"
    return f"{current} current, {stale} stale"


def banner_cell(mode: str, store: str, log: dict[str, Any], fallback: str | None = None,
                name: str | None = None, rerun: dict[str, Any] | None = None,
                mode_note: str = "", differences: list | None = None) -> Any:
    """The note at the top of a page: what scale its numbers are and where they come from.

    Quick mode is a visible warning; the paper-scale note is one folded line (its title says how many
    stored tables the page reads), which opens on the list of tables, the statement of what ran live,
    and the downloads (the chapter's jupytext source, every stored table and its manifest).

    A re-run (``rerun``, the parameters the reader changed) says which mode it ran in and why
    (``mode_note``), and which of all the chapter's parameters differ from the book's run of that mode
    (``differences``, ``(name, value, book's value)``; default: the store's comparison)."""
    import nbformat

    tables = list((log.get("tables") or {}).values())
    downloads = downloads_text(name, tables) if name else ""
    if rerun is not None and (store != "live" or not tables):
        changed = "; ".join(f"`{k}` = `{json.dumps(v)}`" for k, v in rerun.items()) or "none"
        text = (f"````{{admonition}} Re-run with changed parameters ({mode} mode)\n:class: warning\n"
                "This page is not the book's: it was executed with parameters of its reader's choice, "
                f"starting from the book's {mode}-mode values{mode_note}. Changed: {changed}. Everything on "
                f"it was computed when it was built; nothing was stored.\n\n{downloads}\n````")
    elif mode == "quick" and fallback:
        text = ("````{admonition} CI-scale numbers (quick mode)\n:class: warning\n"
                "The paper-scale results of this chapter cannot all be read here "
                f"({fallback}), so this page was built in quick mode: its experiments ran live, at "
                f"CI scale (few trials, small instances), when the page was built.\n\n{downloads}\n````")
    elif mode == "quick":
        text = ("````{admonition} CI-scale numbers (quick mode)\n:class: warning\n"
                "This page was built in quick mode: its experiments ran live, at CI scale (few trials, "
                "small instances), when the page was built. The paper-scale numbers are the stored "
                f"full-mode results, which the default build of the book shows.\n\n{downloads}\n````")
    elif store == "live":
        items = "\n".join(f"- `{t['table']}`: {t['label']}." for t in tables)
        live_rows = sum(int(t.get("computed_now") or 0) for t in tables)
        read_rows = sum(int(t.get("rows") or 0) for t in tables) - live_rows
        params = differences if differences is not None else (log.get("differences") or [])
        changed = ("; ".join(f"`{n}` = `{json.dumps(v)}` (book: `{json.dumps(b)}`)" for n, v, b in params)
                   if params else "none")
        text = ("````{admonition} Re-run with changed parameters (full mode): "
                f"{read_rows} stored rows read, {live_rows} computed for this run\n:class: warning\n"
                f"This page is not the book's: it was executed with parameters of its reader's choice{mode_note}. "
                f"Parameters that differ from the book's full-mode run: {changed}. Rows already stored "
                "for the same inputs were read from the results store; the others were computed when "
                "this page was built and were not stored.\n\n"
                f"{items}\n\n{downloads}\n````")
    elif not tables:
        text = ("````{admonition} Full mode: everything on this page was computed when it was built\n"
                ":class: note dropdown\n"
                "Everything on this page was computed live, with the full-mode parameters, at the "
                f"commit of this build (see the build status page).\n\n{downloads}\n````")
    else:
        items = "\n".join(f"- `{t['table']}`: {t['label']}." for t in tables)
        live = ("Cheap computations (identities, small examples) ran live at the commit of this build; "
                "the expensive experiments are read from these stored tables, computed at the commits "
                "they name (the build status page lists them too):")
        if store == "write":
            live = ("The expensive experiments were computed (or reused where already stored) for this "
                    "build and stored in these tables:")
        n = len(tables)
        title = (f"Paper-scale results (full mode): {n} stored table{'s' if n != 1 else ''}, "
                 "read, not recomputed")
        if store == "write":
            title = f"Paper-scale results (full mode): {n} stored table{'s' if n != 1 else ''}, regenerated"
        stale = sum(t.get("stale") not in (None, "no") for t in tables)
        title += ": " + currency_text(n - stale, stale)
        # red (a danger admonition) while any table the page reads is stale: its numbers are not citable as ours
        text = (f"````{{admonition}} {title}\n:class: {'danger' if stale else 'note'} dropdown\n{live}\n\n"
                f"{items}\n\n{downloads}\n````")
    cell = nbformat.v4.new_markdown_cell(text)
    cell.metadata["tags"] = ["kvbook-banner"]
    return cell


def parameter_docs(source: str) -> list[tuple[str, str, str]]:
    """(name, default as written, meaning) for each assignment of a ``parameters`` cell.

    The meaning is the comment on the assignment's first line (or the comment lines right above
    it).  Comments are found with :mod:`tokenize`, so a ``#`` inside a string is not one.  (Papermill
    does not declare a parameter whose line holds a second ``=``, even in its comment: write "M is
    (2k)^2", not "M = (2k)^2".)"""
    import ast
    import io
    import tokenize

    lines = source.splitlines()
    comments: dict[int, str] = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            comments[tok.start[0]] = tok.string.lstrip("#").strip()
    out = []
    for node in ast.parse(source).body:
        if not isinstance(node, ast.Assign) or len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            continue
        comment = comments.get(node.lineno, "")
        if not comment:
            above, k = [], node.lineno - 1
            while k >= 1 and lines[k - 1].strip().startswith("#"):
                above.insert(0, comments.get(k, ""))
                k -= 1
            comment = " ".join(a for a in above if a)
        default = ast.get_source_segment(source, node.value) or ""
        out.append((node.targets[0].id, " ".join(default.split()), comment))
    return out


def parameters_cell(nb: Any, params: dict[str, Any]) -> Any | None:
    """A folded table of the chapter's papermill parameters: name, value in this build, meaning.

    It is the one place of a page where parameter identifiers belong (the site check skips it)."""
    import nbformat

    cell = next((c for c in nb.cells if c.get("cell_type") == "code"
                 and "parameters" in c.get("metadata", {}).get("tags", [])), None)
    if cell is None:
        return None
    docs = parameter_docs(cell.source)
    if not docs:
        return None

    def show(v: Any) -> str:
        text = json.dumps(v) if not isinstance(v, str) else repr(v)
        return text.replace("|", "\\|")

    rows = ["| parameter | value in this build | meaning |", "|---|---|---|"]
    for pname, default, meaning in docs:
        value = show(params[pname]) if pname in params else default.replace("|", "\\|")
        rows.append(f"| `{pname}` | `{value}` | {meaning.replace('|', '/')} |")
    text = ("(" + "params-" + nb.metadata.get("kvbook", {}).get("chapter", "chapter") + ")=\n"
            "````{dropdown} Papermill parameters of this chapter\n:class-container: kvbook-params\n\n"
            "The values this page was built with; to re-run the chapter with others, see the "
            "introduction. These are the parameters' names in the code.\n\n"
            + "\n".join(rows) + "\n````")
    out = nbformat.v4.new_markdown_cell(text)
    out.metadata["tags"] = ["kvbook-parameters"]
    return out


def insert_banner(nb: Any, cell: Any) -> None:
    """Put the banner right under the chapter's title (the first "# " line of the first markdown cell)."""
    import nbformat

    nb.cells = [c for c in nb.cells if "kvbook-banner" not in c.get("metadata", {}).get("tags", [])]
    first = next((i for i, c in enumerate(nb.cells) if c.get("cell_type") == "markdown"), None)
    if first is None:
        nb.cells.insert(0, cell)
        return
    # split the title cell right after its "# Title" line, so the banner sits under the title
    lines = nb.cells[first].source.splitlines()
    title = next((k for k, ln in enumerate(lines) if ln.startswith("# ")), None)
    if title is not None and any(ln.strip() for ln in lines[title + 1:]):
        nb.cells[first].source = "\n".join(lines[: title + 1])
        rest = nbformat.v4.new_markdown_cell("\n".join(lines[title + 1:]).strip("\n"))
        nb.cells.insert(first + 1, rest)
    nb.cells.insert(first + 1, cell)


def run_one(
    name: str,
    params: dict[str, Any],
    mode: str,
    shared_dir: str,
    cell_timeout: float | None,
    store: str = "off",
    fresh: bool = False,
    fallback: str | None = None,
    resume_regeneration: bool = False,
    executed_dir: str | None = None,
    rerun: dict[str, Any] | None = None,
    mode_note: str = "",
) -> dict[str, Any]:
    """Convert and execute one chapter; never raises, returns a manifest record.

    ``fresh`` / ``resume_regeneration`` (with ``store="write"``): start / continue a full regeneration
    of the chapter's stored results (:mod:`kvlib.book.regeneration`: every row is computed anew into a
    staging folder, each table moved over the stored one once complete, and each run's wall time is
    recorded as it goes).  ``executed_dir``:
    where the executed notebook goes (default ``chapters/``; ``--out DIR`` puts it in ``DIR/chapters``)."""
    import threading

    import nbformat
    import papermill
    from papermill.exceptions import PapermillExecutionError

    from kvlib.book import regeneration

    os.environ["KVBOOK_STORE"] = store
    # a fresh run is a regeneration: its tables are computed anew into a staging folder (each moved over the
    # stored one once complete), so the store has nothing to reuse there
    os.environ["KVBOOK_STORE_FRESH"] = "0"
    os.environ.pop("KVBOOK_STORE_STAGING", None)
    os.environ.pop("KVBOOK_REGENERATION_ID", None)
    out_dir = Path(executed_dir) if executed_dir else EXECUTED_DIR
    out_dir.mkdir(parents=True, exist_ok=True)
    os.environ["KVBOOK_STORE_LOG"] = str(store_log_path(name, out_dir))
    store_log_path(name, out_dir).unlink(missing_ok=True)
    os.environ["KVBOOK_SHARED_DIR"] = shared_dir
    os.environ["KVBOOK_MODE"] = mode
    os.environ["KVBOOK_EXECUTED_DIR"] = str(out_dir)
    os.environ["KVBOOK_MANIFEST"] = str(out_dir / MANIFEST.name)
    os.environ.update(KERNEL_ENV)  # inherited by the papermill kernel

    git = git_info(REPO_ROOT)
    record: dict[str, Any] = {
        "chapter": name,
        "source": f"notebooks/{name}.py",
        "output": f"{EXECUTED_PREFIX}{name}.ipynb" if not executed_dir else str(Path(executed_dir) / f"{name}.ipynb"),
        "mode": mode,
        "store": store,
        "parameters": params,
        "kernel": KERNEL_NAME,
        "git_sha": git["sha"],
        "git_dirty": git["dirty"],
        "started": now_iso(),
    }
    final = out_dir / f"{name}.ipynb"
    running = out_dir / f"{name}.running.ipynb"
    failed = out_dir / f"{name}.failed.ipynb"
    t0 = time.perf_counter()
    results = REPO_ROOT / "results"
    if store == "write" and not fresh and not resume_regeneration \
            and regeneration.read_ledger(results, name).get("status") == "running":
        # an interrupted --fresh regeneration is open: this run continues it, or, if the code changed
        # since it started, closes it as abandoned (its wall time cannot be one regeneration's)
        changed = regeneration.changed_files(REPO_ROOT, regeneration.read_ledger(results, name)["git_sha"],
                                             results, name)
        if changed == []:
            resume_regeneration = True
            print(f"[run_chapters] {name}: continuing the open regeneration (as --resume-regeneration)", flush=True)
        else:
            regeneration.abandon(results, name, f"a plain run at commit {git['sha'][:10]} with changed code "
                                 "completed the tables; the rows come from more than one version of the code")
            print(f"[run_chapters] {name}: the open regeneration was abandoned (the code changed since it "
                  "started); start a new one with --fresh", flush=True)
    regen = store == "write" and (fresh or resume_regeneration)
    if regen:
        try:
            if fresh:
                ledger = regeneration.start(results, name, git["sha"])
            else:
                ledger = regeneration.resume(results, name, git["sha"], REPO_ROOT)
            os.environ["KVBOOK_STORE_STAGING"] = str(regeneration.staging_root(results))
            # a ledger opened before staging existed has no id: its started time names it
            os.environ["KVBOOK_REGENERATION_ID"] = ledger.get("id") or f"{name}@{ledger.get('started')}"
        except regeneration.RegenerationError as exc:
            record.update(status="failed", finished=now_iso(), wall_time_s=0.0,
                          error={"type": "RegenerationError", "ename": "RegenerationError", "evalue": str(exc)})
            return record
        stop_beat = threading.Event()

        def beat() -> None:
            while not stop_beat.wait(REGENERATION_HEARTBEAT_S):
                regeneration.heartbeat(results, name, t0, time.perf_counter())

        beater = threading.Thread(target=beat, daemon=True)
        beater.start()
    try:
        with tempfile.TemporaryDirectory(prefix=f"kvbook-{name}-") as tmp:
            src_nb = convert(name, Path(tmp))
            os.environ["IPYTHONDIR"] = str(kernel_startup(Path(tmp)))
            record["parameters"] = params = chapter_parameters(
                name, src_nb, params, Path(shared_dir)
            )
            papermill.execute_notebook(
                str(src_nb),
                str(running),
                parameters=params,
                kernel_name=KERNEL_NAME,
                cwd=str(REPO_ROOT),
                progress_bar=False,
                log_output=False,
                execution_timeout=cell_timeout,
            )
        nb = nbformat.read(running, as_version=4)
        tag_cells(nb)
        log = read_store_log(name, out_dir)
        record["tables"] = list((log.get("tables") or {}).values())
        if name != STATUS_CHAPTER:
            diffs = None
            if rerun is not None:
                from kvlib.book.params import differences as param_differences

                # every parameter of the chapter's parameters cell, not only those it hands to its store
                diffs = [list(d) for d in param_differences(name, mode, {"mode": mode, **params})]
            insert_banner(nb, banner_cell(mode, store, log, fallback, name=name, rerun=rerun,
                                          mode_note=mode_note, differences=diffs))
            nb.metadata.setdefault("kvbook", {})["chapter"] = name
            nb.cells = [c for c in nb.cells
                        if "kvbook-parameters" not in c.get("metadata", {}).get("tags", [])]
            pcell = parameters_cell(nb, params)
            if pcell is not None:
                nb.cells.append(pcell)
        stderr_cells = cells_writing_stderr(nb)
        if stderr_cells:
            record["stderr_cells"] = stderr_cells
        nb.metadata["kvbook"] = {
            "chapter": name,
            "mode": mode,
            "store": store,
            "parameters": params,
            "git_sha": git["sha"],
            "git_dirty": git["dirty"],
        }
        nbformat.write(nb, running)
        os.replace(running, final)
        failed.unlink(missing_ok=True)
        record["status"] = "ok"
    except PapermillExecutionError as exc:
        source = (exc.source or "").strip().splitlines()
        record["status"] = "failed"
        record["error"] = {
            "type": "cell",
            "cell_index": exc.cell_index,
            "execution_count": exc.exec_count,
            "ename": exc.ename,
            "evalue": exc.evalue,
            "cell_source_head": "\n".join(source[:8]),
            "traceback": _ANSI.sub("", "\n".join(exc.traceback or [])),
        }
    except Exception as exc:  # conversion, kernel start-up, timeout, dead kernel, ...
        record["status"] = "failed"
        record["error"] = {
            "type": type(exc).__name__,
            "ename": type(exc).__name__,
            "evalue": _ANSI.sub("", str(exc)),
            "traceback": _ANSI.sub("", traceback.format_exc()),
        }
    if record["status"] != "ok":
        if running.exists():
            os.replace(running, failed)
            record["failed_notebook"] = (f"{EXECUTED_PREFIX}{failed.name}" if not executed_dir else str(failed))
        final.unlink(missing_ok=True)  # never leave a stale chapter behind
    record["finished"] = now_iso()
    record["wall_time_s"] = round(time.perf_counter() - t0, 3)
    if regen:
        stop_beat.set()
        beater.join()
        full = regeneration.close(results, name, record.get("tables") or [], record["wall_time_s"],
                                  record["status"] == "ok")
        if full:
            record["full_regeneration"] = full | {
                "load_average_at_end": [round(v, 2) for v in os.getloadavg()] if hasattr(os, "getloadavg") else None}
        record["regeneration"] = regeneration.read_ledger(results, name).get("status")
    if fallback:
        record["fallback"] = fallback
    if store == "write" and record["status"] == "ok" and record.get("tables"):
        write_regeneration_record(record)
    return record


def write_regeneration_record(record: dict[str, Any]) -> None:
    """results/CHAPTER/_run.json: how long this chapter's full-mode (re)generation took, and where.

    A run that computed no row (every row was already stored) leaves the file as it was."""
    if not record.get("full_regeneration") and not any(int(t.get("computed_now") or 0) for t in record["tables"]):
        return
    out = REPO_ROOT / "results" / record["chapter"] / "_run.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "chapter": record["chapter"], "mode": record["mode"], "git_sha": record["git_sha"],
        "git_dirty": record["git_dirty"], "started": record["started"], "finished": record["finished"],
        "chapter_wall_time_s": record["wall_time_s"], "cores": os.cpu_count(),
        "python": sys.version.split()[0], "parameters": record["parameters"],
        "tables": {t["table"]: {"rows": t["rows"], "expected": t["expected"],
                                "computed_in_this_run": t["computed_now"],
                                "stored_compute_time_s": t["wall_time_s"]} for t in record["tables"]},
        "load_average_at_end": [round(v, 2) for v in os.getloadavg()] if hasattr(os, "getloadavg") else None,
    }
    from kvlib.book.store import full_regeneration

    previous = json.loads(out.read_text(encoding="utf8")) if out.exists() else {}
    full = record.get("full_regeneration") or full_regeneration(data) or full_regeneration(previous)
    if full:
        data["full_regeneration"] = full
    _write_atomic(out, json.dumps(data, indent=1, default=str) + "\n")


def _write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (:func:`kvlib.fileio.atomic_write_text`), creating its folder."""
    from kvlib.fileio import atomic_write_text

    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, text)


# --------------------------------------------------------------------------- manifest


def read_manifest() -> dict[str, Any]:
    if MANIFEST.exists():
        try:
            data = json.loads(MANIFEST.read_text(encoding="utf8"))
            if isinstance(data, dict) and isinstance(data.get("chapters"), dict):
                return data
        except json.JSONDecodeError:
            pass
    return {"chapters": {}}


def write_manifest(manifest: dict[str, Any], order: list[str] | None = None) -> None:
    manifest["updated"] = now_iso()
    recs = manifest.pop("chapters", {})
    if order is not None:  # book order first, then chapters no longer in chapters.yml
        recs = {
            **{n: recs[n] for n in order if n in recs},
            **{n: r for n, r in recs.items() if n not in order},
        }
    manifest["chapters"] = recs  # after the run-level fields
    tmp = MANIFEST.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(manifest, indent=2, sort_keys=False, default=str) + "\n", "utf8")
    os.replace(tmp, MANIFEST)


def describe_failure(rec: dict[str, Any]) -> str:
    err = rec.get("error", {})
    lines = [f"chapter {rec['chapter']!r} (notebooks/{rec['chapter']}.py, mode {rec['mode']}) FAILED"]
    if err.get("type") == "cell":
        lines.append(
            f"  failing cell: In [{err.get('execution_count')}] (cell {err.get('cell_index')} "
            f"of the executed notebook), starting with:"
        )
        lines.append(textwrap.indent(err.get("cell_source_head", ""), "      | "))
    lines.append(f"  error: {err.get('ename')}: {err.get('evalue')}")
    tb = err.get("traceback", "").strip().splitlines()
    if tb:
        lines.append("  traceback (last lines):")
        lines.append(textwrap.indent("\n".join(tb[-15:]), "      "))
    if rec.get("failed_notebook"):
        lines.append(f"  executed notebook with the error: {rec['failed_notebook']}")
    return "\n".join(lines)


def report_stderr(rec: dict[str, Any]) -> None:
    """Name the cells of a chapter that wrote to stderr (the page does not show it)."""
    for c in rec.get("stderr_cells", []):
        print(f"[run_chapters] note: {rec['chapter']}: cell {c['cell_index']} wrote to stderr "
              f"(removed from the page): {c['first_line']}", file=sys.stderr)


def missing_table(rec: dict[str, Any]) -> str | None:
    """If a chapter failed because a stored table it reads does not exist yet: which one."""
    err = rec.get("error") or {}
    text = f"{err.get('ename', '')}: {err.get('evalue', '')}"
    m = re.search(r"(results/[\w.-]+/[\w.-]+\.csv) (does not exist|holds none of the \d+ rows asked for)", text)
    if err.get("ename") == "StoreError" and m:
        return (f"{m.group(1)} has not been computed" if m.group(2) == "does not exist" else
                f"{m.group(1)} holds no rows for this page's inputs: they were computed from the shared data,"
                f" absent here")
    return None


# --------------------------------------------------------------------------- progress


def _as_completed_with_progress(futures: dict, show: bool):
    """``as_completed`` that, while waiting, reports the stored-table progress of the running chapters.

    On a terminal: one tqdm bar per table (rows stored / rows asked for); otherwise a line per
    chapter every five minutes.
    """
    pending = set(futures)
    if not show:
        yield from cf.as_completed(futures)
        return
    tty = sys.stderr.isatty()
    bars: dict[str, Any] = {}
    last_line = 0.0
    while pending:
        done, pending = cf.wait(pending, timeout=2.0, return_when=cf.FIRST_COMPLETED)
        for name in sorted({futures[f] for f in pending} | {futures[f] for f in done}):
            prog = read_store_log(name).get("progress") or {}
            for table, p in prog.items():
                label = f"{name}/{table}"
                if tty:
                    from tqdm import tqdm
                    bar = bars.get(label) or bars.setdefault(
                        label, tqdm(total=p["expected"], desc=label, leave=True))
                    bar.n = p["done"]
                    bar.refresh()
        if not tty and time.time() - last_line > 300:
            last_line = time.time()
            for name in sorted(futures[f] for f in pending):
                prog = read_store_log(name).get("progress") or {}
                if prog:
                    print(f"[run_chapters] {name}: " + ", ".join(
                        f"{t} {p['done']}/{p['expected']}" for t, p in prog.items()), flush=True)
        yield from done
    for bar in bars.values():
        bar.close()


# --------------------------------------------------------------------------- re-run into a scratch folder


def render_one_page(name: str, out: Path) -> tuple[int, Path]:
    """Build ``out/chapters/NAME.ipynb`` as a one-page Jupyter Book site in ``out/_build/html``.

    The site's source folder ``out/site`` holds a copy of the book's ``_config.yml``, a table of
    contents with this chapter (and the glossary it links to), and links to the repository's
    ``book/``, ``notebooks/`` and ``results/`` (read only: the build writes only under ``out``).
    Links to other pages of the book stay unresolved (Sphinx warns; the page still renders)."""
    site = out / "site"
    site.mkdir(parents=True, exist_ok=True)
    for link, target in (("book", REPO_ROOT / "book"), ("notebooks", NOTEBOOK_DIR),
                         ("results", REPO_ROOT / "results"), ("chapters", out / "chapters")):
        p = site / link
        if p.is_symlink() or p.exists():
            p.unlink()
        p.symlink_to(target, target_is_directory=True)
    (site / "_config.yml").write_text((REPO_ROOT / "_config.yml").read_text(encoding="utf8"), encoding="utf8")
    (site / "_toc.yml").write_text(
        "format: jb-book\n"
        f"root: chapters/{name}\n"
        "chapters:\n  - file: book/glossary\n", encoding="utf8")
    jb = Path(sys.executable).with_name("jupyter-book")
    cmd = [str(jb) if jb.exists() else "jupyter-book", "build", str(site), "--path-output", str(out),
           "--builder", "html", "--keep-going", "--quiet"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    warnings = sum(1 for line in (r.stdout + r.stderr).splitlines() if "WARNING" in line)
    return (r.returncode if r.returncode else 0), out / "_build" / "html" / "index.html", warnings


def mode_note(args: argparse.Namespace) -> str:
    """Why a run has its mode, in words: given with --mode, or the default."""
    if getattr(args, "mode_given", True):
        return f"--mode {args.mode} was given"
    return ("--mode was not given, and quick is the default: CI scale, every row computed live; "
            "add --mode full for the papers' scale")


def rerun(args: argparse.Namespace, chapters: dict[str, Any], name: str, shared_dir: str) -> int:
    """``--only NAME [-p KEY VALUE ...] --out DIR``: one chapter with changed parameters, into DIR."""
    from kvlib.book.params import ParameterError, parse_overrides

    try:
        overrides = parse_overrides(name, args.param, REPO_ROOT, mode=args.mode)
    except ParameterError as exc:
        print(f"[run_chapters] {exc}", file=sys.stderr)
        return 2
    params = {**chapters[name][args.mode], **overrides}
    out = Path(args.out).expanduser().resolve()
    executed = out / "chapters"
    ensure_kernel()
    note = mode_note(args)
    print(f"[run_chapters] re-running {name} in {args.mode} mode ({note}), store {args.store}, with "
          f"{overrides or 'the book parameters'} into {out}", flush=True)
    rec = run_one(name, params, args.mode, shared_dir, args.cell_timeout, args.store,
                  executed_dir=str(executed), rerun=overrides, mode_note=f" ({args.mode} mode: {note})")
    _write_atomic(out / "run_record.json", json.dumps(rec, indent=1, default=str) + "\n")
    if rec["status"] != "ok":
        print("\n[run_chapters] " + describe_failure(rec), file=sys.stderr)
        return 1
    print(f"[run_chapters] {name}: ok in {rec['wall_time_s']:.1f} s; executed notebook: {executed / (name + '.ipynb')}")
    code, page, warnings = render_one_page(name, out)
    if code or not page.exists():
        print(f"[run_chapters] the page could not be rendered (jupyter-book exit {code}); the executed notebook "
              "is complete and can be opened in Jupyter", file=sys.stderr)
        return 1
    print(f"[run_chapters] page: {page}  (open it in a browser; {warnings} link(s) to other pages of the "
          "book are not resolved in this one-page site)")
    return 0


# --------------------------------------------------------------------------- Dask


def start_dask(address: str, workers: int | None) -> Any:
    """Point the kernels at a Dask scheduler (``KVBOOK_DASK``, read by :mod:`kvlib.book.store`).

    ``local`` starts a :class:`distributed.LocalCluster` in this process (kept alive for the run;
    every chapter's kernel connects to it); any other value is a scheduler address, used as given.
    Returns the local cluster (or None)."""
    if address != "local":
        os.environ["KVBOOK_DASK"] = address
        print(f"[run_chapters] rows are computed on the Dask scheduler at {address}", flush=True)
        return None
    from kvlib.book.store import StoreError, local_dask_cluster

    try:
        cluster = local_dask_cluster(workers)
    except StoreError as exc:
        print(f"[run_chapters] {exc}", file=sys.stderr)
        return None
    os.environ["KVBOOK_DASK"] = cluster.scheduler_address
    print(f"[run_chapters] rows are computed on a local Dask cluster of {len(cluster.workers)} workers "
          f"({cluster.scheduler_address})", flush=True)
    return cluster


# --------------------------------------------------------------------------- main


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        description="Execute kvbook's chapters (notebooks/*.py) with papermill into chapters/."
    )
    ap.add_argument("--mode", choices=MODES, default=None,
                    help="quick = CI scale, full = paper scale (default: quick; a re-run with -p says "
                         "which mode it used and why)")
    ap.add_argument("--only", nargs="+", metavar="NAME",
                    help="run only these chapters (the status chapter is re-run too, "
                         "unless --no-status)")
    ap.add_argument("--jobs", type=int, default=2,
                    help="number of chapters executed in parallel (default: 2)")
    ap.add_argument("--shared-dir", default=str(REPO_ROOT.parent / "shared"),
                    help="shared data directory (default: ../shared relative to the repository)")
    ap.add_argument("--cell-timeout", type=float, default=None,
                    help="per-cell timeout in seconds (default: none)")
    ap.add_argument("--store", choices=("auto", "write", "read", "live", "off"), default="auto",
                    help="results store (results/CHAPTER/): write = reuse stored rows, compute and "
                         "store the missing ones (resumable); read = stored rows only (the default "
                         "build); live = stored rows where the inputs match, the rest computed and not "
                         "stored; off = compute live, store nothing. auto (default): write in full "
                         "mode (live with --out), off in quick mode")
    ap.add_argument("--fresh", action="store_true",
                    help="with --store write: a full regeneration, recomputing every stored row instead of "
                         "reusing it (its wall time is recorded as it goes; see --resume-regeneration)")
    ap.add_argument("--resume-regeneration", action="store_true",
                    help="with --store write: continue an interrupted --fresh regeneration (keeps the rows it "
                         "computed; the full-regeneration wall time is the sum over its runs)")
    ap.add_argument("--dask", metavar="ADDRESS", default=os.environ.get("KVBOOK_DASK") or None,
                    help="compute the stored tables' rows on a Dask distributed cluster: the scheduler's address "
                         "(tcp://host:8786), or 'local' for a LocalCluster on this machine (--dask-workers). The "
                         "rows are still written by this machine only, one by one, and a run stays resumable "
                         "(default: $KVBOOK_DASK, else a local process pool per table)")
    ap.add_argument("--dask-workers", type=int, default=None,
                    help="with --dask local: the number of worker processes (default: the number of cores)")
    ap.add_argument("--no-status", action="store_true",
                    help="do not (re-)run the status chapter")
    ap.add_argument("--list", action="store_true", help="list the chapters and exit")
    ap.add_argument("-p", "--param", nargs=2, action="append", metavar=("NAME", "VALUE"), default=[],
                    help="re-run ONE chapter (--only NAME) with this parameter changed (repeatable; VALUE is "
                         "read as YAML: 3, 0.5, [16, 36], true); the other parameters are the book's for "
                         "--mode. Needs --out")
    ap.add_argument("--out", metavar="DIR",
                    help="write the re-run chapter (executed notebook and a one-page HTML rendering) into DIR, "
                         "a folder outside the repository; the book's chapters/ and results/ are not touched. "
                         "The store is read where the inputs match and never written (--store live)")
    args = ap.parse_args(argv)
    args.mode_given = args.mode is not None
    args.mode = args.mode or "quick"
    if args.param and not args.out:
        ap.error("-p/--param re-runs a chapter into a scratch folder: give --out DIR (outside the repository)")
    if args.out:
        if not args.only or len(args.only) != 1 or args.only[0] == STATUS_CHAPTER:
            ap.error("--out re-runs one chapter: give --only NAME with one chapter (not 'status')")
        out = Path(args.out).expanduser().resolve()
        if out == REPO_ROOT or REPO_ROOT in out.parents:
            ap.error(f"--out {args.out}: choose a folder outside the repository ({REPO_ROOT.name}/), "
                     "e.g. /tmp/rerun; the book's own files must not change")
        if out.exists() and not out.is_dir():
            ap.error(f"--out {args.out}: exists and is not a folder")
        if args.store == "auto":
            args.store = "live" if args.mode == "full" else "off"
        if args.store == "write" or args.fresh or args.resume_regeneration:
            ap.error("--out never writes the results store: drop --store write / --fresh / --resume-regeneration")
        args.no_status = True
    if args.jobs < 1:
        ap.error("--jobs must be at least 1")
    if args.dask_workers is not None and (args.dask_workers < 1 or args.dask != "local"):
        ap.error("--dask-workers N needs --dask local and N >= 1")
    if args.store == "auto":
        args.store = "write" if args.mode == "full" else "off"
    if args.mode == "quick" and args.store != "off":
        ap.error("quick-mode numbers are never stored or read from the store: use --store off (or auto)")
    if args.fresh and args.store != "write":
        ap.error("--fresh needs --store write")
    if args.resume_regeneration and (args.store != "write" or args.fresh):
        ap.error("--resume-regeneration needs --store write and no --fresh")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    chapters = load_chapters()
    if args.list:
        for name, modes in chapters.items():
            print(f"{name}: quick={modes['quick']} full={modes['full']}")
        return 0

    problems = check_toc(chapters)
    if problems:
        msg = "\n".join(f"  - {p}" for p in problems)
        if args.only:
            print(f"[run_chapters] warning: _toc.yml and book/chapters.yml disagree:\n{msg}",
                  file=sys.stderr)
        else:
            print(f"[run_chapters] _toc.yml and book/chapters.yml disagree (the book build "
                  f"would fail or silently drop a chapter):\n{msg}", file=sys.stderr)
            return 2

    if args.only:
        unknown = [n for n in args.only if n not in chapters]
        if unknown:
            print(f"[run_chapters] unknown chapter(s) {unknown}; known: {list(chapters)}",
                  file=sys.stderr)
            return 2
        selected = [n for n in chapters if n in args.only]
    else:
        selected = list(chapters)
    # The status chapter summarises all others, so it is re-run whenever anything ran.
    run_status = STATUS_CHAPTER in chapters and not args.no_status
    if args.no_status and STATUS_CHAPTER in selected:
        selected.remove(STATUS_CHAPTER)
    body = [n for n in selected if n != STATUS_CHAPTER]

    shared_dir = str(Path(args.shared_dir).expanduser().resolve())
    if args.out:
        return rerun(args, chapters, body[0], shared_dir)
    EXECUTED_DIR.mkdir(parents=True, exist_ok=True)
    ensure_kernel()

    cluster = None
    if args.dask:
        cluster = start_dask(args.dask, args.dask_workers)
        if cluster is None and args.dask == "local":
            return 2
    git = git_info(REPO_ROOT)
    manifest = read_manifest()
    manifest.update(
        {
            "mode": args.mode,
            "store": args.store,
            "git_sha": git["sha"],
            "git_dirty": git["dirty"],
            "python": sys.version.split()[0],
            "shared_dir": portable_path(shared_dir),  # relative to the repository root
            "shared_dir_exists": Path(shared_dir).is_dir(),
        }
    )
    print(f"[run_chapters] mode={args.mode} store={args.store} jobs={args.jobs} chapters={body}"
          f"{' + status' if run_status else ''} git={git['sha'][:12]}"
          f"{' (dirty)' if git['dirty'] else ''}")

    failures: list[dict[str, Any]] = []
    t0 = time.perf_counter()
    ctx = multiprocessing.get_context("spawn")
    from kvlib.book.lifeline import die_with_parent

    # a chapter worker dies with the runner, and its kernel (ipykernel's parent poller) with it:
    # after kill -9 of the runner nothing goes on writing results/
    with cf.ProcessPoolExecutor(max_workers=args.jobs, mp_context=ctx, initializer=die_with_parent) as pool:
        futures = {
            pool.submit(run_one, name, chapters[name][args.mode], args.mode, shared_dir,
                        args.cell_timeout, args.store, args.fresh, None, args.resume_regeneration): name
            for name in body
        }
        for fut in _as_completed_with_progress(futures, args.store == "write"):
            name = futures[fut]
            try:
                rec = fut.result()
            except Exception as exc:  # the worker process itself died
                rec = {"chapter": name, "mode": args.mode, "status": "failed",
                       "parameters": chapters[name][args.mode],
                       "error": {"ename": type(exc).__name__, "evalue": str(exc)}}
            manifest["chapters"][name] = rec
            write_manifest(manifest, list(chapters))
            if rec["status"] == "ok":
                print(f"[run_chapters] {name}: ok in {rec['wall_time_s']:.1f} s")
                report_stderr(rec)
            elif args.store == "read" and missing_table(rec):
                # the stored full-mode results of this chapter are incomplete: build its page in
                # quick mode instead, and say so at the top of the page
                reason = missing_table(rec)
                print(f"[run_chapters] {name}: {reason}; building it in quick mode instead", flush=True)
                rec = run_one(name, chapters[name]["quick"], "quick", shared_dir, args.cell_timeout,
                              "off", False, reason)
                manifest["chapters"][name] = rec
                write_manifest(manifest, list(chapters))
                if rec["status"] == "ok":
                    print(f"[run_chapters] {name}: ok in quick mode in {rec['wall_time_s']:.1f} s")
                else:
                    failures.append(rec)
            else:
                failures.append(rec)
                print(f"[run_chapters] {name}: FAILED", file=sys.stderr)

    if failures:
        print("\n[run_chapters] " + "\n\n".join(describe_failure(r) for r in failures),
              file=sys.stderr)
        print(f"\n[run_chapters] {len(failures)} chapter(s) failed: "
              f"{[r['chapter'] for r in failures]}; status chapter not run.", file=sys.stderr)
        return 1

    if run_status:
        # Runs alone, after all other chapters, so that it sees their results.
        rec = run_one(STATUS_CHAPTER, chapters[STATUS_CHAPTER][args.mode], args.mode,
                      shared_dir, args.cell_timeout, args.store)
        manifest["chapters"][STATUS_CHAPTER] = rec
        write_manifest(manifest, list(chapters))
        if rec["status"] != "ok":
            print("\n[run_chapters] " + describe_failure(rec), file=sys.stderr)
            return 1
        print(f"[run_chapters] {STATUS_CHAPTER}: ok in {rec['wall_time_s']:.1f} s")
        report_stderr(rec)

    print(f"[run_chapters] all chapters ok ({time.perf_counter() - t0:.1f} s); "
          f"manifest: {MANIFEST.relative_to(REPO_ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
