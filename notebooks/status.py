# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.16.0
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# (status)=
# # Build status
#
# This page records what produced this copy of the book: the git commit, the
# date, the Python and library versions, and for every chapter the papermill
# parameters, the mode and the wall time of its execution. It is executed by
# `book/run_chapters.py` after all other chapters, from their executed notebooks
# in `chapters/` and the runner's manifest `chapters/run_manifest.json`.

# %% tags=["parameters"]
mode = "quick"  # the book's mode: "quick" (CI scale) or "full" (paper scale)
seed = 0  # unused on this page (every chapter takes one)

# %% tags=["hide-input"]
print(f"This page was produced in {mode!r} mode with seed {seed}.")
import datetime as dt
import json
import os
import platform
import sys
from pathlib import Path

import pandas as pd
import yaml
from IPython.display import Markdown, display
from myst_nb import glue

from kvlib.book.provenance import chapter_rows, find_root, git, provenance_notes, version, yes_no

root = find_root(Path.cwd())
executed = Path(os.environ.get("KVBOOK_EXECUTED_DIR", root / "chapters"))
manifest_path = Path(os.environ.get("KVBOOK_MANIFEST", executed / "run_manifest.json"))
manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {"chapters": {}}
chapters = yaml.safe_load((root / "book" / "chapters.yml").read_text())

head = git(root, "rev-parse", "HEAD") or "unknown"
porcelain = git(root, "status", "--porcelain")
dirty_now = None if porcelain is None else bool(porcelain.strip())


def show(df):
    display(df.style.hide(axis="index"))


# %% [markdown]
# ## Build

# %% tags=["hide-input"]
build = pd.DataFrame(
    [
        ("git commit (runner)", manifest.get("git_sha", "unknown")),
        ("working tree dirty (runner)", yes_no(manifest.get("git_dirty"))),
        ("git commit (this page)", head),
        ("working tree dirty (this page)", yes_no(dirty_now)),
        ("build date (UTC)", dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")),
        ("book mode", manifest.get("mode", mode)),
        ("Python", sys.version.split()[0]),
        ("platform", platform.platform()),
        ("shared data directory",
         f"{Path(manifest.get('shared_dir', 'unknown')).name} "
         f"({'present' if manifest.get('shared_dir_exists') else 'absent'})"),
    ],
    columns=["item", "value"],
)
show(build)

# %% [markdown]
# ## Library versions
#
# Versions of the distributions installed in the environment that executed the
# chapters (as Python's package metadata reports them).

# %% tags=["hide-input"]
DISTRIBUTIONS = [
    "kvlib", "numpy", "scipy", "sympy", "pandas", "matplotlib", "cvxpy", "highspy", "ortools",
    "jupyter-book", "sphinx", "myst-nb", "papermill",
]

versions = pd.DataFrame([(d, version(d)) for d in DISTRIBUTIONS], columns=["package", "version"])
show(versions)

# %% [markdown]
# ## Chapters
#
# For each chapter: its mode, the wall time and timestamps recorded by the runner, and the commit it
# was executed at. The parameters papermill injected (from the executed notebook's metadata) are in the
# folded list below and, with their meaning, at the end of each chapter.

# %% tags=["hide-input"]
rows = chapter_rows(chapters, executed, manifest, skip=("status",))
table = pd.DataFrame(rows)
if not table.empty:
    shown = table[["chapter", "executed", "mode", "wall time (s)", "finished (UTC)", "commit"]].copy()
    shown["finished (UTC)"] = [str(v).replace("T", " ")[:16] for v in shown["finished (UTC)"]]
    display(shown.style.hide(axis="index").format({"wall time (s)": "{:.1f}"}, na_rep="-")
            .format({"chapter": "<code>{}</code>"}, escape=None))
    param_lines = "\n".join(f"- `{r['chapter']}`: `{r['parameters'] or '(defaults)'}`" for r in rows)
else:
    param_lines = "- no chapter has been executed"
glue("status_param_lines", Markdown(param_lines), display=False)

# %% [markdown]
# ::::{dropdown} Parameters papermill injected, per chapter
# ```{glue:md} status_param_lines
# :format: myst
# ```
# ::::
#
# A chapter whose commit differs from the runner's commit above was executed in
# an earlier run (e.g. `python book/run_chapters.py --only NAME`); a mode other
# than the book mode means the book mixes quick and full chapters. Both are
# listed below when they occur.

# %% tags=["hide-input"]
notes = provenance_notes(rows, manifest, mode)
display(Markdown("\n".join(notes) if notes else
                 "All chapters were executed in this run, in the same mode, at the same commit."))

# %% [markdown]
# ## Stored full-mode results
#
# The paper-scale experiments of the chapters are stored tables in `results/CHAPTER/` (one row per
# trial, instance or configuration, with the seed and every parameter that identifies it, the commit
# that computed it and its compute time; a manifest per table records the row function, parameters,
# library versions, machine and dates). The default build reads them: their numbers were computed at
# the commits listed here, not at this build's commit; quick mode computes at CI scale instead.
# *Compute time* is the sum of the stored rows' own times (what a fresh regeneration costs,
# one row at a time); *chapter run* is the wall time of the chapter's last full-mode run
# (resumable: rows already stored are not recomputed), on the machine with the given number of cores;
# *full regeneration* is the wall time of the chapter's last regeneration that recomputed every stored
# row (one too long for a single sitting is continued on the same code, and the wall times of its runs
# are summed: "in N runs"; "of an earlier set of N rows" when tables or rows were added or recomputed
# after it), measured on a shared machine (other chapters' runs may have been running at
# the same time), or "not measured". *Stale* means that code the table's rows ran was edited after they
# were computed: while a regeneration computes a row, the book records every function of the library the
# row executes, with a fingerprint of its source (docstrings, comments and layout left out), of the
# top-level statements of the modules involved and the versions of the numerical libraries; a table is
# stale exactly when one of these differs today. A table computed before that record existed is judged
# by the files its row function imports instead. Stale tables are listed first. CI recomputes a sample of
# every table's rows (`book/verify_results.py`) and fails if a deterministic value differs.

# %% tags=["hide-input"]
from kvlib.book.store import store_summary
from kvlib.book.tables import offer_csv

stored = pd.DataFrame(store_summary())
if stored.empty:
    display(Markdown("No stored results in this copy of the book."))
    glue("status_tables_md", Markdown("No stored tables."), display=False)
else:
    per_chapter = stored.groupby("chapter", sort=False).agg(
        tables=("table", "count"), rows=("rows", "sum"), rows_asked=("rows asked", "sum"),
        compute=("compute time (s)", "sum"), wall=("chapter run wall time (s)", "max"),
        full=("full regeneration wall time (s)", "max"), pieces=("full regeneration runs", "max"),
        full_rows=("full regeneration rows", "max"),
        cores=("cores", "max"), size=("size (kB)", "sum"),
        stale=("stale", lambda v: int((v != "no").sum()))).reset_index()
    per_chapter["compute time"] = [f"{v / 60:.1f} min" for v in per_chapter.compute]
    per_chapter["chapter run"] = ["-" if pd.isna(v) else f"{v / 60:.1f} min" for v in per_chapter.wall]
    per_chapter["full regeneration"] = [
        "not measured" if pd.isna(v) else f"{v / 60:.1f} min" + (f" in {int(k)} runs" if not pd.isna(k) and k > 1 else "")
        + ("" if pd.isna(fr) or int(fr) == int(n) else f" (of an earlier set of {int(fr):,} rows)")
        for v, k, fr, n in zip(per_chapter.full, per_chapter.pieces, per_chapter.full_rows, per_chapter.rows)]
    per_chapter["rows"] = [f"{a:,} of {b:,}" for a, b in zip(per_chapter.rows, per_chapter.rows_asked)]
    display(per_chapter[["chapter", "tables", "stale", "rows", "compute time", "chapter run", "full regeneration",
                         "cores"]].style.hide(axis="index").format({"chapter": "<code>{}</code>"}, escape=None))
    per_table = stored[["chapter", "table", "rows", "rows asked", "status", "commits", "stale", "updated",
                        "compute time (s)", "stale because", "staleness judged by"]].fillna("-")
    # stale (or unknown) tables first, then book order
    per_table = per_table.assign(_current=(per_table.stale == "no")).sort_values("_current", kind="stable").drop(
        columns="_current")
    csv_path = offer_csv(per_table, "status", "stored-tables")
    lines = ["| chapter | table | rows | commits | updated | stale |", "|---|---|---|---|---|---|"]
    for r in per_table.itertuples(index=False):
        lines.append(f"| `{r.chapter}` | `{r.table}` | {r.rows:,} of {r._3:,} | {r.commits} | "
                     f"{str(r.updated)[:10]} | {r.stale} |")
    glue("status_tables_md", Markdown("\n".join(lines)), display=False)
    glue("status_n_tables", len(per_table), display=False)

# %% [markdown]
# ::::{dropdown} Every stored table: rows, the commits that computed them, date, staleness
# The same list with the compute times: {download}`CSV </chapters/tables/status-stored-tables.csv>`.
#
# ```{glue:md} status_tables_md
# :format: myst
# ```
# ::::
#
# ## What the book checks
#
# One row per theorem, algorithm and experiment of the four papers, read from `book/mission.yml`:
# the chapter that treats it and the status of our check
# ({term}`reproduced`, *differs:* {term}`erratum` with a link to the errata page, *differs:*
# {term}`not reproduced`, {term}`not checked`). Rows per paper and status:

# %%
from IPython.display import HTML
from myst_nb import glue

from kvlib.book import mission

mission_file = root / "book" / "mission.yml"
mission_rows = mission.load(mission_file, chapters=list(chapters))
# rows whose status is a verdict computed from stored results (001 Section 5.1) take it from there
mission_rows, mission_changed = mission.apply_verdicts(mission_rows, root)
mission_titles = mission.chapter_titles(mission_file)
summary_df = mission.summary(mission_rows)
# pasted by the introduction (book/intro.md)
glue("mission_summary", summary_df.style.hide(axis="index"), display=False)
for key, n in mission.counts(mission_rows).items():
    glue(f"mission_n_{key.replace(':', '').replace(' ', '_')}", n, display=False)
glue("mission_n_rows", len(mission_rows), display=False)
show(summary_df)
for paper in mission.PAPERS:
    these = [r for r in mission_rows if r.paper == paper]
    glue(f"mission_table_{paper}", HTML(mission.render_html(
        these, mission_titles, chapter_href="{chapter}.html", errata_href="../book/errata.html#{erratum}",
        errata_page="../book/errata.html", show_paper=False)), display=False)
    glue(f"mission_rows_{paper}", len(these), display=False)

# %% [markdown]
# (status-mission)=
# The full table, one folded list per paper (the statuses link to the errata entries):
#
# ::::{dropdown} 001: Jaillet et al., current version ({glue:text}`mission_rows_001` items)
# ```{glue:} mission_table_001
# ```
# ::::
#
# ::::{dropdown} 004: Jaillet et al., first version ({glue:text}`mission_rows_004` items)
# ```{glue:} mission_table_004
# ```
# ::::
#
# ::::{dropdown} 002: Wang, Ye, Zhou ({glue:text}`mission_rows_002` items)
# ```{glue:} mission_table_002
# ```
# ::::
#
# ::::{dropdown} 003: Chen, Ye, Zhou ({glue:text}`mission_rows_003` items)
# ```{glue:} mission_table_003
# ```
# ::::
#
# ```{kvbook-source} notebooks/status.py
# ```
