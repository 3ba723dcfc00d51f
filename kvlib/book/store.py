"""The results store: expensive chapter computations as tidy, committed, re-verifiable tables.

A chapter's expensive loop (over trials, seeds, sizes) is written as a *row function* (a
module-level function of ``kvlib``, called with one row's key parameters as keyword arguments
and returning a flat ``dict`` of output columns) and a list of *keys* (one ``dict`` per row)::

    store = Store("hindsight", mode=mode, parameters=params)
    tab = store.table("section51", certified_trial, keys,
                      interval=[("lower", "upper")], timing=["seconds"], ignore=["status"])
    tab.frame      # pandas DataFrame: key columns, output columns, _commit, _wall_s
    tab.label      # "full mode, 400 of 400 rows, computed at commit 1a2b3c4 on 2026-11-23 ..."

The table lives in ``results/CHAPTER/TABLE.csv`` (one row per key, with the key columns, the
outputs, the commit that computed the row and its wall time) beside ``TABLE.manifest.json``
(row function, column classes, papermill parameters, library versions, machine, wall time,
dates, commits).  What ``table`` does depends on the store's *policy* (environment variable
``KVBOOK_STORE``, set by ``book/run_chapters.py``; unset, a full-mode store is ``live``, so a chapter
run by hand, opened in Jupyter or run by a test never writes ``results/``):

``off``    (quick mode) every row is computed live; nothing is written.
``write``  (full-mode regeneration) rows already stored for a requested key are reused, the
           missing ones are computed and appended to the CSV as each finishes (an interrupted
           run resumes where it stopped); ``KVBOOK_STORE_FRESH=1`` recomputes everything.
``read``   (the default build) only stored rows are used; a partial table is shown as such
           (its label says how many rows are stored); a missing table is an error that says
           which command produces it.
``live``   (a full-mode run by hand, or ``run_chapters.py -p ... --out DIR``) stored rows are read
           where the keys match; the other rows are computed live and never stored; the labels
           say how many of each, and the store prints which parameters differ from the book's
           run (:mod:`kvlib.book.params`).

Only ``write`` ever writes ``results/``, and a ``write`` run that computes nothing leaves every
stored file as it was.

:func:`verify_table` recomputes a sample of stored rows (a few fixed, a few chosen by a seed,
within a time budget) and reports every *exact* column that differs (TELs, decisions, hashes,
proved optima), every *interval* whose recomputation does not intersect the stored one, and
every stored interval with lower > upper.  ``book/verify_results.py`` runs it over the whole
store in CI.
"""

from __future__ import annotations

import csv
import datetime as _dt
import hashlib
import importlib
import io
import json
import math
import os
import platform
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

__all__ = ["Store", "Table", "stored_complete", "StoreError", "MalformedStore", "Mismatch", "orphan_tables", "table_staleness", "POLICIES", "results_root", "verify_table",
           "load_manifest", "table_paths", "list_tables", "key_json", "code_commit_label",
           "store_summary"]

POLICIES = ("off", "write", "read", "live")
META_COLUMNS = ("_key", "_commit", "_wall_s", "_host", "_cores")
#: bookkeeping columns added after tables were first stored: an older CSV is given them (empty for its
#: old rows) the next time a write run appends to it
LATE_META = ("_host", "_cores")
VERSION_DISTS = ("numpy", "scipy", "pandas", "highspy", "ortools", "cvxpy", "sympy", "networkx")


class StoreError(RuntimeError):
    """A stored table is missing, malformed, or inconsistent with what a chapter asks for."""


class MalformedStore(StoreError):
    """A file of the store cannot be read as what it should be (a manifest that is not JSON, ...)."""


# --------------------------------------------------------------------------- paths and git


def repo_root() -> Path:
    """The repository that holds this ``kvlib`` (``book/chapters.yml`` beside ``kvlib/``), else the cwd."""
    here = Path(__file__).resolve().parents[2]
    if (here / "book" / "chapters.yml").exists():
        return here
    return Path.cwd()


def results_root() -> Path:
    """``$KVBOOK_RESULTS_DIR`` if set, else ``results/`` at the repository root."""
    env = os.environ.get("KVBOOK_RESULTS_DIR")
    return Path(env).resolve() if env else repo_root() / "results"


def table_paths(chapter: str, table: str, root: Path | None = None) -> tuple[Path, Path]:
    """``(csv, manifest)`` paths of one stored table."""
    d = (root or results_root()) / chapter
    return d / f"{table}.csv", d / f"{table}.manifest.json"


def stored_complete(chapter: str, table: str, root: Path | None = None) -> bool:
    """Whether the table is stored with all its rows: its CSV and manifest exist and the manifest says
    ``complete`` (``root``: the results folder, default :func:`results_root`)."""
    csv_path, man_path = table_paths(chapter, table, root)
    return csv_path.exists() and man_path.exists() and load_manifest(man_path).get("status") == "complete"


def _git(*args: str, root: Path | None = None) -> str | None:
    try:
        return subprocess.run(["git", *args], cwd=root or repo_root(), capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def current_commit(paths: Sequence[str] = ("kvlib",)) -> str:
    """Short HEAD commit, with ``+dirty`` if ``paths`` have uncommitted changes; ``unknown`` without git."""
    sha = _git("rev-parse", "--short=10", "HEAD")
    if sha is None:
        return "unknown"
    dirty = _git("status", "--porcelain", "--", *paths)
    return sha + ("+dirty" if dirty else "")


def code_changed_since(commit: str, depends: Sequence[str]) -> bool | None:
    """Whether files in ``depends`` that existed at ``commit`` were changed since, in the working tree
    (None: unknown, e.g. the commit is not in this clone's history)."""
    base = commit.split("+")[0]
    if not base or base == "unknown" or _git("cat-file", "-e", base + "^{commit}") is None:
        return None
    try:
        # modified, deleted, renamed or retyped files only: a module added since cannot change what
        # the existing code computed unless an existing file was changed to use it
        r = subprocess.run(["git", "diff", "--quiet", "--diff-filter=MDRT", base, "--", *depends],
                           cwd=repo_root(), capture_output=True)
    except OSError:
        return None
    return r.returncode != 0 or commit.endswith("+dirty")


def import_closure(module: str, root: Path | None = None) -> list[str]:
    """Repository-relative files of ``module`` and of every ``kvlib`` module it imports, directly or
    not (imports inside functions included), found by reading the sources (``ast``)."""
    import ast

    from kvlib.book.fingerprint import imported_names

    root = root or repo_root()

    def path_of(mod: str) -> Path | None:
        base = root / Path(*mod.split("."))
        for cand in (base.with_suffix(".py"), base / "__init__.py"):
            if cand.exists():
                return cand
        return None

    seen: dict[str, Path] = {}
    todo = [module]
    while todo:
        mod = todo.pop()
        if mod in seen or not mod.startswith("kvlib"):
            continue
        f = path_of(mod)
        if f is None:
            continue
        seen[mod] = f
        todo += imported_names(ast.parse(f.read_text(encoding="utf8")), mod, f.name == "__init__.py")
        # a package's __init__ is imported with any of its modules
        for i in range(1, len(mod.split("."))):
            todo.append(".".join(mod.split(".")[:i]))
    return sorted(p.relative_to(root).as_posix() for p in seen.values())


def table_depends(manifest: dict) -> list[str]:
    """What a stored table depends on: the import closure of its row function's module."""
    fn = manifest.get("function") or ""
    mod = fn.partition(":")[0]
    if mod.startswith("kvlib"):
        files = import_closure(mod)
        if files:
            return files
    return manifest.get("depends") or ["kvlib"]


def recorded_code(manifest: dict, n_rows: int) -> dict | None:
    """The manifest's record of the code its rows executed (:mod:`kvlib.book.fingerprint`), if it covers
    every stored row."""
    rec = manifest.get("code")
    if not isinstance(rec, dict) or int(rec.get("rows") or 0) < n_rows or n_rows == 0:
        return None
    return rec


def table_staleness(manifest: dict, commits: Sequence[str], n_rows: int,
                    sources: Any = None) -> tuple[str, list[str]]:
    """Whether a stored table is stale: ``("no" | "yes" | "unknown", reasons)``.

    With a record of the code its rows executed (every table computed since that record exists), the
    table is stale exactly when a recorded function, a recorded module's top-level statements or a
    recorded library version differs from today's (:func:`kvlib.book.fingerprint.changes`); no git
    is needed.  A table computed before (no record, or one that misses rows) is judged the old way:
    stale when a file of its row function's import closure changed since a commit that computed it
    (``unknown`` where git cannot tell)."""
    from kvlib.book import fingerprint

    rec = recorded_code(manifest, n_rows)
    if rec is not None:
        reasons = fingerprint.changes(rec, sources)
        return ("yes" if reasons else "no"), reasons
    deps = table_depends(manifest)
    flags = [code_changed_since(c, deps) for c in commits]
    if any(f is None for f in flags):
        return "unknown", ["no record of the code its rows ran, and git cannot tell"]
    if any(flags):
        return "yes", ["a file its row function imports changed (no record of the code its rows ran)"]
    return "no", []


def stale_reason_text(reasons: Sequence[str], limit: int = 3) -> str:
    """The first few reasons a table is stale, as one clause."""
    shown = "; ".join(reasons[:limit])
    return shown + (f"; and {len(reasons) - limit} more" if len(reasons) > limit else "")


def commit_date(commit: str) -> str | None:
    out = _git("show", "-s", "--format=%cs", commit.split("+")[0]) if commit != "unknown" else None
    return out or None


def code_commit_label(commit: str) -> str:
    return commit.split("+")[0][:7] + (" (with uncommitted changes)" if commit.endswith("+dirty") else "")


# --------------------------------------------------------------------------- keys and values


def _plain(v: Any) -> Any:
    """A JSON-able, hashable-by-text form of a key value (numpy scalars, tuples -> lists)."""
    if hasattr(v, "item") and not isinstance(v, (list, tuple, dict, str)):
        v = v.item()
    if isinstance(v, tuple):
        return [_plain(x) for x in v]
    if isinstance(v, list):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, float) and v.is_integer() and abs(v) < 2**53:
        return v  # keep floats as floats: 10.0 and 10 are different keys on purpose
    return v


def key_json(key: dict) -> str:
    """Canonical text of a row key (sorted, compact JSON); the CSV's ``_key`` column."""
    return json.dumps({str(k): _plain(v) for k, v in key.items()}, sort_keys=True,
                      separators=(",", ":"))


def _cell(v: Any) -> Any:
    """A key or output value as it goes into the CSV (lists/dicts as JSON)."""
    v = _plain(v)
    if isinstance(v, (list, dict)):
        return json.dumps(v, separators=(",", ":"))
    return v


def _fn_path(fn: Callable) -> str:
    mod, qual = getattr(fn, "__module__", None), getattr(fn, "__qualname__", "")
    if not mod or "<" in qual or mod == "__main__":
        raise StoreError(f"row function {fn!r} must be a module-level function of an importable module "
                         "(define it in kvlib, not in a notebook cell)")
    return f"{mod}:{qual}"


def resolve_function(path: str) -> Callable:
    mod, _, qual = path.partition(":")
    obj: Any = importlib.import_module(mod)
    for part in qual.split("."):
        obj = getattr(obj, part)
    return obj


def _versions() -> dict[str, str]:
    from importlib import metadata

    out = {"python": sys.version.split()[0]}
    for d in VERSION_DISTS:
        try:
            out[d] = metadata.version(d)
        except metadata.PackageNotFoundError:
            pass
    return out


def _machine() -> dict[str, Any]:
    return {"cores": os.cpu_count(), "platform": platform.platform(), "processor": platform.machine()}


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


# --------------------------------------------------------------------------- CSV I/O


def read_rows(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    """Header and rows of a stored CSV (a truncated last line, left by a killed run, is dropped)."""
    if not path.exists():
        return [], []
    try:
        text = path.read_text(encoding="utf8")
    except UnicodeDecodeError as exc:
        raise MalformedStore(f"{path}: not a UTF-8 text table ({exc})") from None
    reader = csv.reader(io.StringIO(text))
    try:
        header = next(reader)
    except StopIteration:
        return [], []
    rows = []
    for lineno, rec in enumerate(reader, start=2):
        if len(rec) != len(header):
            if lineno == text.count("\n") + (0 if text.endswith("\n") else 1):
                break  # the last line, cut short by an interruption
            raise StoreError(f"{path}: line {lineno} has {len(rec)} fields, the header has {len(header)}")
        rows.append(dict(zip(header, rec)))
    return header, rows


def _parse(text: str) -> Any:
    """A CSV cell back to a Python value (int, float, bool, None, JSON list/dict, or str)."""
    if text == "":
        return None
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    if text in ("True", "False"):
        return text == "True"
    if text[:1] in "[{":
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            return text
    return text


def _fmt(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return "nan" if math.isnan(v) else repr(v)
    return str(v)


# --------------------------------------------------------------------------- the table


def table_facts(manifest: dict, row_commits, n_expected: int | None = None) -> dict:
    """What every page says of a stored table, computed in one place: ``rows`` (how many),
    ``expected`` (``n_expected``, default the manifest's), ``complete``, ``commits`` (the distinct commits
    that computed the rows, sorted), ``commit_text`` (as pages write them) and ``date`` (the day the table
    was last updated, else created; ``""`` if the manifest has neither).

    The banner and captions of a page (:attr:`Table.label`) and the status page (:func:`store_summary`)
    are both written from it, so that they cannot disagree (``tests/test_provenance_agrees.py``)."""
    row_commits = list(row_commits)
    commits = sorted({str(c) for c in row_commits})
    rows = len(row_commits)
    expected = manifest.get("n_expected") if n_expected is None else n_expected
    return {"rows": rows, "expected": expected, "complete": rows >= (expected or 0),
            "commits": commits, "commit_text": ", ".join(code_commit_label(c) for c in commits),
            "date": (manifest.get("updated") or manifest.get("created") or "")[:10]}


@dataclass
class Table:
    """One table of a chapter: its rows (``frame``) and where they come from (``manifest``, ``label``)."""

    chapter: str
    name: str
    policy: str
    mode: str
    frame: Any
    manifest: dict
    n_expected: int
    computed_now: int = 0

    @property
    def n_rows(self) -> int:
        return 0 if self.frame is None else len(self.frame)  # None while the table is being computed

    @property
    def complete(self) -> bool:
        return self.n_rows == self.n_expected

    @property
    def commits(self) -> list[str]:
        if self.frame is None or "_commit" not in self.frame.columns:
            return []
        return sorted({str(c) for c in self.frame["_commit"]})

    @property
    def path(self) -> str:
        return f"results/{self.chapter}/{self.name}.csv"

    def staleness(self) -> tuple[str, list[str]]:
        """``("no" | "yes" | "unknown", reasons)``: :func:`table_staleness` of this table."""
        if getattr(self, "_stale_for", None) != (id(self.manifest), self.n_rows):  # judged once per state
            self._stale, self._stale_for = table_staleness(self.manifest, self.commits, self.n_rows), (
                id(self.manifest), self.n_rows)
        return self._stale

    def stale(self) -> bool | None:
        """True when the code that computed the table's rows has changed since (None: unknown)."""
        state = self.staleness()[0]
        return None if state == "unknown" else state == "yes"

    @property
    def label(self) -> str:
        """One sentence for a caption or a page banner: mode, rows, commit(s), date, staleness."""
        if self.policy == "off":
            return (f"{self.mode} mode, {self.n_rows} rows computed live when this page was built")
        if self.policy == "live" and self.computed_now:
            read = self.n_rows - self.computed_now
            live = (f"{self.computed_now} row{'s' if self.computed_now != 1 else ''} computed live for this run "
                    "(its parameters differ from the stored rows; not stored)")
            if not read:
                return f"{self.mode} mode, {live}"
            commits = ", ".join(code_commit_label(c) for c in self.commits if c != "live") or "unknown"
            return (f"{read} of {self.n_expected} rows read from the stored {self.mode}-mode results "
                    f"({self.path}, computed at {commits}), {live}")
        facts = table_facts(self.manifest, [] if self.frame is None or "_commit" not in self.frame.columns
                            else list(self.frame["_commit"]), self.n_expected)
        commits = facts["commit_text"] or "unknown"
        # a table still being written (or cut short) has no "updated" yet: its creation date then
        date = facts["date"] or "an unknown date"
        rows = (f"all {self.n_rows} rows" if self.complete
                else f"{self.n_rows} of {self.n_expected} rows (the rest not yet computed)")
        s = (f"stored {self.manifest.get('mode', self.mode)}-mode results ({self.path}): {rows}, "
             f"computed at commit{'s' if len(self.commits) > 1 else ''} {commits} on {date}")
        wall = self.manifest.get("wall_time_s")
        if wall:
            s += f", {_human_seconds(wall)} of computing on {self.manifest.get('machine', {}).get('cores', '?')} cores"
        state, reasons = self.staleness()
        if state == "yes":
            s += "; the code it depends on has changed since"
            if recorded_code(self.manifest, self.n_rows) is not None:  # the record names what changed
                s += " (" + stale_reason_text(reasons, limit=1) + ")"
        elif state == "unknown" and self.commits:
            s += "; that commit is not in this clone's history"
        return s

    def summary(self) -> dict:
        stale = self.staleness()[0] if self.policy in ("read", "write", "live") and self.commits else None
        return {"table": self.name, "path": self.path, "policy": self.policy, "mode": self.mode,
                "rows": self.n_rows, "expected": self.n_expected, "computed_now": self.computed_now,
                "commits": self.commits, "label": self.label, "stale": stale,
                "wall_time_s": self.manifest.get("wall_time_s")}


def _human_seconds(s: float) -> str:
    s = float(s)
    if s < 1:
        return "under 1 s"
    if s < 90:
        return f"{s:.0f} s"
    if s < 5400:
        return f"{s / 60:.0f} min"
    return f"{s / 3600:.1f} h"


class Store:
    """The tables of one chapter; see the module docstring."""

    def __init__(self, chapter: str, *, mode: str, parameters: dict | None = None,
                 policy: str | None = None, root: Path | None = None):
        if mode not in ("quick", "full"):
            raise StoreError(f"mode must be 'quick' or 'full', got {mode!r}")
        # Without a policy (a chapter run by hand with papermill, opened in Jupyter, a test) the store
        # is read where it can and the rest computed live, never written: only book/run_chapters.py
        # in a write mode sets KVBOOK_STORE=write.
        by_hand = not (policy or os.environ.get("KVBOOK_STORE"))
        policy = policy or os.environ.get("KVBOOK_STORE") or ("off" if mode == "quick" else "live")
        if policy not in POLICIES:
            raise StoreError(f"KVBOOK_STORE must be one of {POLICIES}, got {policy!r}")
        if mode == "quick" and policy != "off":
            policy = "off"  # quick-mode numbers are never stored nor read from the store
        self.chapter, self.mode, self.policy = chapter, mode, policy
        self.parameters = dict(parameters or {})
        self.root = Path(root) if root else results_root()
        self.fresh = os.environ.get("KVBOOK_STORE_FRESH") == "1"
        # an open regeneration (book/run_chapters.py --fresh / --resume-regeneration): tables are written
        # into this staging root and each moved over its stored table once complete
        staging = os.environ.get("KVBOOK_STORE_STAGING") if policy == "write" else None
        self.staging = Path(staging) if staging else None
        self.regeneration_id = os.environ.get("KVBOOK_REGENERATION_ID") or None
        self.log_path = os.environ.get("KVBOOK_STORE_LOG")
        self.tables: dict[str, Table] = {}
        self._progress: dict[str, dict] = {}
        self._last_log = 0.0
        self.differences: list[tuple[str, Any, Any]] = []
        if policy == "live" and self.parameters:
            from kvlib.book.params import differences, differences_text, notebook_values

            # every parameter of the chapter's parameters cell takes part, also those it does not hand over
            self.differences = differences(chapter, mode, {"mode": mode, **notebook_values(chapter, self.parameters)})
            if self.differences and by_hand:
                print(differences_text(chapter, self.differences, mode))

    # ----------------------------------------------------------------- progress log (runner reads it)
    def _log(self, force: bool = False) -> None:
        if not self.log_path:
            return
        now = time.time()
        # at most once a second, and never more than a tenth of the time (labels read git and the sources)
        if not force and now - self._last_log < max(1.0, 10 * getattr(self, "_log_cost", 0.0)):
            return
        self._last_log = now
        data = {"chapter": self.chapter, "updated": _now(), "progress": self._progress,
                "tables": {n: t.summary() for n, t in self.tables.items()},
                "differences": [[n, _plain(v), _plain(w)] for n, v, w in self.differences]}
        tmp = self.log_path + ".tmp"
        with open(tmp, "w", encoding="utf8") as f:
            json.dump(data, f, indent=1, default=str)
        os.replace(tmp, self.log_path)
        self._log_cost = time.time() - now

    # ----------------------------------------------------------------- the one entry point
    def table(self, name: str, row: Callable[..., dict], keys: Iterable[dict], *,
              exact: Sequence[str] | None = None, interval: Sequence[tuple[str, str]] = (),
              timing: Sequence[str] = (), ignore: Sequence[str] = (), rtol: float = 1e-9,
              atol: float = 1e-12, depends: Sequence[str] | None = None, jobs: int = 1,
              progress: bool | None = None) -> Table:
        """Rows ``row(**key)`` for every key, computed, reused or read according to the policy.

        ``exact`` columns must be reproduced by a recomputation (default: every output column not
        named in ``interval``, ``timing`` or ``ignore``), floats within ``rtol``/``atol``;
        ``interval`` pairs ``(lower, upper)`` must intersect; ``timing`` and ``ignore`` columns
        are not compared.  ``depends``: paths (relative to the repository) whose change makes the
        table stale (recorded in the manifest; the labels and the status page use the import closure
        of the row function's module, :func:`import_closure`, which is also the default here).
        """
        import pandas as pd

        if not name.replace("_", "").replace("-", "").isalnum():
            raise StoreError(f"table name {name!r}: use letters, digits, '-' and '_' only")
        keys = [dict(k) for k in keys]
        if not keys:
            raise StoreError(f"table {self.chapter}/{name}: no keys given")
        kjs = [key_json(k) for k in keys]
        if len(set(kjs)) != len(kjs):
            dup = next(k for k in kjs if kjs.count(k) > 1)
            raise StoreError(f"table {self.chapter}/{name}: key {dup} is given twice")
        key_cols = list(dict.fromkeys(c for k in keys for c in k))
        fn_path = _fn_path(row)
        if depends is None:  # the files of the row function's module and of everything it imports
            depends = import_closure(row.__module__) or ["kvlib"]
        csv_path, man_path = table_paths(self.chapter, name, self.root)
        final = None  # (csv, manifest) a staged table is moved to once complete
        if self.staging is not None and not self._made_in_this_regeneration(man_path):
            final = (csv_path, man_path)
            csv_path, man_path = table_paths(self.chapter, name, self.staging)
        manifest = load_manifest(man_path) if man_path.exists() else {}

        stored: dict[str, dict] = {}
        header: list[str] = []
        if self.policy in ("write", "read", "live") and not (self.policy == "write" and self.fresh):
            header, raw = read_rows(csv_path)
            for r in raw:
                stored[r["_key"]] = r
        shown = csv_path.relative_to(self.root.parent) if self.root.parent in csv_path.parents else csv_path
        how = (f"`python book/run_chapters.py --mode full --only {self.chapter}` (or build in quick mode: "
               "MODE=quick bash book/build.sh)")
        if self.policy == "read" and not csv_path.exists():
            raise StoreError(f"{shown} does not exist: produce it with {how}")

        out_rows: dict[str, dict] = {}
        for kj in kjs:
            if kj in stored:
                out_rows[kj] = {c: _parse(v) for c, v in stored[kj].items()}
                out_rows[kj]["_key"] = kj
        missing = [i for i, kj in enumerate(kjs) if kj not in out_rows]
        if self.policy == "read" and keys and not out_rows:
            # e.g. rows computed from the shared data directory while this machine has none: the
            # keys asked for (data = "embedded") were never stored
            raise StoreError(f"{shown} holds none of the {len(keys)} rows asked for (rows computed from the shared"
                             f" data cannot be read without it): produce them with {how}")
        table_obj = Table(self.chapter, name, self.policy, self.mode, None, manifest, len(keys))
        self.tables[name] = table_obj
        self._progress[name] = {"done": len(out_rows), "expected": len(keys)}

        t_run = time.perf_counter()
        computed = 0
        if missing and self.policy in ("off", "write", "live"):
            # dirty only if a file the table depends on has uncommitted changes (not any file of kvlib)
            commit = current_commit(tuple(depends)) if self.policy == "write" else "live"
            writer = None
            if self.policy == "write":
                csv_path.parent.mkdir(parents=True, exist_ok=True)
                if self.fresh or not stored:
                    csv_path.unlink(missing_ok=True)
                    header = []
                # keep only the rows still requested; drop rows whose key is no longer asked for
                keep = [stored[kj] for kj in kjs if kj in stored]
                if header and len(keep) != len(stored):
                    _rewrite(csv_path, header, keep)
                manifest = self._manifest(name, fn_path, key_cols, exact, interval, timing, ignore,
                                          rtol, atol, depends, len(keys), manifest)
                manifest["status"] = "running"
                if not header:  # no stored row is kept: neither is the record of the code rows ran
                    manifest.pop("code", None)
                _write_json(man_path, manifest)
                writer = _RowWriter(csv_path, header)
                code = _CodeRecord(man_path, manifest)
            show = progress if progress is not None else (sys.stderr.isatty()
                                                          and os.environ.get("TQDM_DISABLE") != "1")
            bar = None
            if show:
                from tqdm.auto import tqdm
                bar = tqdm(total=len(keys), initial=len(out_rows), desc=f"{self.chapter}/{name}")
            address = dask_address()
            executor = dask_executor(address) if address else None
            for i, result, wall, host, cores, executed in _compute(row, [keys[i] for i in missing], missing, jobs,
                                                                   executor, record=writer is not None):
                rec = _row_record(fn_path, keys[i], kjs[i], key_cols, result, commit, wall, host, cores)
                if writer is not None:
                    writer.write(rec, kjs[i])
                    code.add(executed)
                out_rows[kjs[i]] = {c: (_parse(_fmt(v)) if not isinstance(v, str) else _parse(v))
                                    for c, v in rec.items()}
                out_rows[kjs[i]]["_key"] = kjs[i]
                computed += 1
                self._progress[name]["done"] = len(out_rows)
                if bar is not None:
                    bar.update(1)
                self._log()
            if bar is not None:
                bar.close()
            if writer is not None:
                writer.close()

        ordered = [out_rows[kj] for kj in kjs if kj in out_rows]
        frame = pd.DataFrame(ordered)
        if self.policy == "write" and not self._unchanged(manifest, computed, stored, out_rows, csv_path, name,
                                                          fn_path, key_cols, exact, interval, timing, ignore,
                                                          rtol, atol, depends, len(keys)):
            _, all_rows = read_rows(csv_path)
            manifest = self._manifest(name, fn_path, key_cols, exact, interval, timing, ignore, rtol,
                                      atol, depends, len(keys), manifest, computed=computed)
            walls = [float(r.get("_wall_s") or 0) for r in all_rows]
            commits: dict[str, int] = {}
            for r in all_rows:
                commits[r["_commit"]] = commits.get(r["_commit"], 0) + 1
            manifest.update({
                "status": "complete" if len(ordered) == len(keys) else "partial",
                "n_rows": len(all_rows), "n_expected": len(keys), "commits": commits,
                "wall_time_s": round(sum(walls), 1),
                "last_run": {"computed_rows": computed, "wall_time_s": round(time.perf_counter() - t_run, 1),
                             "jobs": jobs, "date": _now()},
                "updated": _now() if computed or "updated" not in manifest else manifest["updated"],
                "sha256": hashlib.sha256(csv_path.read_bytes()).hexdigest() if csv_path.exists() else None,
            })
            _write_json(man_path, manifest)
        if final is not None and manifest.get("status") == "complete" and csv_path.exists():
            self._promote(csv_path, man_path, manifest, *final)
        elif self.policy == "read" or (self.policy == "live" and len(ordered) > computed):
            if not manifest:
                raise StoreError(f"{man_path} is missing: the stored table {self.chapter}/{name} has no manifest")
            if manifest.get("function") != fn_path:
                raise StoreError(f"stored table {self.chapter}/{name} was computed by {manifest.get('function')}, "
                                 f"the chapter now asks for {fn_path}: regenerate it with "
                                 f"`python book/run_chapters.py --mode full --only {self.chapter}`")
        table_obj.frame, table_obj.manifest, table_obj.computed_now = frame, manifest, computed
        self._progress[name]["done"] = len(ordered)
        self._log(force=True)
        return table_obj

    def _made_in_this_regeneration(self, man_path: Path) -> bool:
        """Whether the stored table at ``man_path`` is complete and was made by the open regeneration."""
        if not self.regeneration_id or not man_path.exists():
            return False
        try:
            m = load_manifest(man_path)
        except StoreError:
            return False
        return m.get("regeneration") == self.regeneration_id and m.get("status") == "complete"

    def _promote(self, csv_path: Path, man_path: Path, manifest: dict, final_csv: Path, final_man: Path) -> None:
        """Move a complete staged table over the stored one (the CSV, then its manifest)."""
        manifest["regeneration"] = self.regeneration_id
        _write_json(man_path, manifest)
        final_csv.parent.mkdir(parents=True, exist_ok=True)
        os.replace(csv_path, final_csv)
        os.replace(man_path, final_man)

    def _spec(self, name, fn_path, key_cols, exact, interval, timing, ignore, rtol, atol, depends,
              n_expected) -> dict:
        """The manifest fields that describe the table (as opposed to the run that last wrote it)."""
        return {
            "chapter": self.chapter, "table": name, "function": fn_path, "mode": self.mode,
            "keys": key_cols, "exact": list(exact) if exact is not None else None,
            "interval": [list(p) for p in interval], "timing": list(timing), "ignore": list(ignore),
            "rtol": rtol, "atol": atol, "depends": list(depends), "n_expected": n_expected,
            "parameters": {k: _plain(v) for k, v in self.parameters.items()},
        }

    def _unchanged(self, manifest, computed, stored, out_rows, csv_path, name, fn_path, key_cols, exact,
                   interval, timing, ignore, rtol, atol, depends, n_expected) -> bool:
        """Whether a ``write`` run left this table as it was: nothing computed, no stored row dropped, the
        same table description, the CSV matching its recorded checksum (then nothing is rewritten)."""
        if computed or not manifest or len(stored) != len(out_rows) or not csv_path.exists():
            return False
        spec = self._spec(name, fn_path, key_cols, exact, interval, timing, ignore, rtol, atol, depends, n_expected)
        if any(json.dumps(v, default=str) != json.dumps(manifest.get(f), default=str) for f, v in spec.items()):
            return False
        want = "complete" if len(out_rows) == n_expected else "partial"
        return (manifest.get("status") == want
                and manifest.get("sha256") == hashlib.sha256(csv_path.read_bytes()).hexdigest())

    def _manifest(self, name, fn_path, key_cols, exact, interval, timing, ignore, rtol, atol, depends,
                  n_expected, old, computed: int = 1) -> dict:
        m = dict(old)
        m.update(self._spec(name, fn_path, key_cols, exact, interval, timing, ignore, rtol, atol, depends,
                            n_expected))
        # versions, machine and commit describe the run that computed rows: a run that only records a
        # new description of the table (e.g. a parameter added to the chapter) keeps them
        if computed or not all(k in m for k in ("versions", "machine", "git_head")):
            m.update({"versions": _versions(), "machine": _machine(), "git_head": current_commit()})
        m.setdefault("created", _now())
        return m

    def labels(self) -> list[str]:
        return [t.label for t in self.tables.values()]


def _row_record(fn_path: str, key: dict, kj: str, key_cols: list[str], result: Any, commit: str, wall: float,
                host: str, cores: int | None) -> dict:
    """One CSV row: the key's columns, the row function's outputs (checked) and the bookkeeping columns."""
    if not isinstance(result, dict):
        raise StoreError(f"row function {fn_path} returned {type(result).__name__} for key "
                         f"{kj}, expected a dict of output columns")
    clash = [c for c in result if c in key or c in META_COLUMNS]
    if clash:
        raise StoreError(f"row function {fn_path}: output column(s) {clash} clash with the "
                         f"key or bookkeeping columns (key {kj})")
    return {**{c: _cell(key.get(c)) for c in key_cols}, **{c: _cell(v) for c, v in result.items()},
            "_key": kj, "_commit": commit, "_wall_s": round(wall, 3), "_host": host, "_cores": cores}


class _CodeRecord:
    """A write run's record of the code its rows ran (:mod:`kvlib.book.fingerprint`), kept in the
    manifest dict it is given: each row's record joins it, and it is saved at most once a second (the
    table's final manifest saves it too; an interrupted run leaves a record that covers fewer rows than
    are stored, which :func:`table_staleness` then treats as no record)."""

    def __init__(self, man_path: Path, manifest: dict):
        from kvlib.book import fingerprint

        self.fp, self.man_path, self.manifest = fingerprint, man_path, manifest
        self.saved = time.monotonic()

    def add(self, row: dict) -> None:
        """Join one row's record (:func:`kvlib.book.fingerprint.row_record`, taken where the row ran, from the
        sources that process compiled)."""
        self.manifest["code"] = self.fp.merge(self.manifest.get("code"), row)
        if time.monotonic() - self.saved > 1.0:
            _write_json(self.man_path, self.manifest)
            self.saved = time.monotonic()


class _RowWriter:
    """Appends rows to a CSV, one flushed line at a time (so an interrupted run keeps every finished row)."""

    def __init__(self, path: Path, header: list[str]):
        self.path, self.header = path, list(header)
        if path.exists():  # drop a last line cut short by an interrupted run
            data = path.read_bytes()
            if data and not data.endswith(b"\n"):
                path.write_bytes(data[: data.rfind(b"\n") + 1])
        late = [c for c in LATE_META if self.header and c not in self.header]
        if late:  # a table stored before these columns existed: add them, empty for its old rows
            old_header, rows = read_rows(path)
            self.header = old_header + late
            _rewrite(path, self.header, rows)
        self.f = open(path, "a", encoding="utf8", newline="")

    def write(self, rec: dict, kj: str) -> None:
        cols = list(rec)
        if not self.header:
            self.header = cols
            self.f.write(_csv_line(cols))
        elif set(cols) != set(self.header):
            extra = sorted(set(cols) - set(self.header))
            lost = sorted(set(self.header) - set(cols))
            raise StoreError(f"{self.path}: row {kj} has columns that differ from the stored header "
                             f"(new: {extra}, missing: {lost}); regenerate the table with KVBOOK_STORE_FRESH=1")
        self.f.write(_csv_line([_fmt(rec[c]) for c in self.header]))
        self.f.flush()

    def close(self) -> None:
        self.f.close()


def _csv_line(values: list) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow([v if isinstance(v, str) else _fmt(v) for v in values])
    return buf.getvalue()


def _rewrite(path: Path, header: list[str], rows: list[dict]) -> None:
    tmp = path.with_suffix(".csv.tmp")
    with open(tmp, "w", encoding="utf8", newline="") as f:
        f.write(_csv_line(header))
        for r in rows:
            f.write(_csv_line([r.get(c, "") for c in header]))
    os.replace(tmp, path)


def _write_json(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=False, default=str) + "\n", encoding="utf8")
    os.replace(tmp, path)


def load_manifest(path: Path) -> dict:
    try:
        data = json.loads(Path(path).read_text(encoding="utf8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise MalformedStore(f"{path}: cannot read the manifest ({exc})") from None
    if not isinstance(data, dict):
        raise MalformedStore(f"{path}: the manifest is a JSON {type(data).__name__}, not an object")
    return data


def _timed(fn, key, record: bool = False):
    """``fn(**key)`` with its wall time, where it ran (host name and core count of the worker) and, with
    ``record``, the record of the ``kvlib`` code it executed (:func:`kvlib.book.fingerprint.recording`,
    fingerprinted here from the sources this process compiled: :func:`kvlib.book.fingerprint.row_record`;
    else None)."""
    import socket

    if record:
        from kvlib.book.fingerprint import recording, row_record

        with recording() as executed:
            t0 = time.perf_counter()
            out = fn(**key)
            wall = time.perf_counter() - t0
        return out, wall, socket.gethostname(), os.cpu_count(), row_record(executed)
    t0 = time.perf_counter()
    out = fn(**key)
    return out, time.perf_counter() - t0, socket.gethostname(), os.cpu_count(), None


def dask_address() -> str | None:
    """``$KVBOOK_DASK``: the address of a Dask distributed scheduler to send rows to (``tcp://host:8786``),
    or ``local`` for a :class:`distributed.LocalCluster` of this machine; None: the local process pool."""
    return os.environ.get("KVBOOK_DASK") or None


_CLIENTS: dict[str, Any] = {}
_DASK_MISSING = ("KVBOOK_DASK / --dask needs the Dask distributed package: pip install 'dask[distributed]' "
                 "(part of the project's test extra)")


def local_dask_cluster(n_workers: int | None = None):
    """A :class:`distributed.LocalCluster` of ``n_workers`` single-threaded worker processes (default: one
    per core), as the store and ``book/run_chapters.py --dask local`` use it."""
    try:
        from distributed import LocalCluster
    except ImportError:
        raise StoreError(_DASK_MISSING) from None
    return LocalCluster(n_workers=n_workers or os.cpu_count() or 1, threads_per_worker=1, processes=True,
                        dashboard_address=None)


def release_dask_client(address: str) -> None:
    """Close and forget the store's client of the scheduler at ``address`` (before its cluster closes)."""
    client = _CLIENTS.pop(address, None)
    if client is not None:
        client.close()


def dask_executor(address: str):
    """A ``concurrent.futures``-style executor that runs rows on the Dask cluster at ``address``."""
    try:
        from distributed import Client
    except ImportError:
        raise StoreError(_DASK_MISSING) from None
    client = _CLIENTS.get(address)
    if client is None:
        if address == "local":
            client = Client(local_dask_cluster(int(os.environ.get("KVBOOK_DASK_WORKERS") or 0) or None))
        else:
            try:
                client = Client(address, timeout="20s")
            except OSError as exc:
                raise StoreError(f"KVBOOK_DASK={address}: cannot reach the Dask scheduler ({exc})") from None
        _CLIENTS[address] = client
    return client.get_executor(pure=False)


def _compute(fn, keys, indices, jobs, executor=None, record=False):
    """Yield ``(index, result, seconds, host, cores, executed)`` for every key (``executed``: see
    :func:`_timed`): in order in this process (jobs=1 and no
    executor), or as finished on ``executor`` (any ``concurrent.futures``-style executor, e.g. a Dask
    cluster's) or on a local process pool of ``jobs`` workers.  Results come back to this process, which
    alone writes the table."""
    import concurrent.futures as cf

    if executor is not None:
        futs = {executor.submit(_timed, fn, k, record): i for i, k in zip(indices, keys)}
        for fut in cf.as_completed(futs):
            yield (futs[fut], *fut.result())
        return
    if jobs <= 1 or len(keys) <= 1:
        for i, k in zip(indices, keys):
            yield (i, *_timed(fn, k, record))
        return
    import multiprocessing

    from kvlib.book.lifeline import die_with_parent

    # workers die with this process (no orphan goes on computing after the driver is killed)
    with cf.ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn"),
                                initializer=die_with_parent) as pool:
        futs = {pool.submit(_timed, fn, k, record): i for i, k in zip(indices, keys)}
        for fut in cf.as_completed(futs):
            yield (futs[fut], *fut.result())


# --------------------------------------------------------------------------- verification


@dataclass
class Mismatch:
    """One stored value that today's code does not reproduce."""

    table: str
    row: int  # 0-based data row of the CSV (line row + 2)
    key: str
    column: str
    stored: Any
    recomputed: Any
    kind: str  # "exact", "interval", "order", "checksum" (the file's bytes against the manifest)

    def __str__(self) -> str:
        if self.kind == "checksum":
            if self.stored is None:
                return (f"{self.table}.csv: its manifest records no SHA-256, so an edit of the table cannot be "
                        f"detected (the file's SHA-256 is {self.recomputed})")
            return (f"{self.table}.csv: its bytes differ from the SHA-256 its manifest recorded when the store "
                    f"wrote it ({self.stored[:16]}..., the file now {self.recomputed[:16]}...): the table was "
                    "edited outside the store; restore it (git checkout) or regenerate it")
        where = f"{self.table}.csv row {self.row} (line {self.row + 2}; key {self.key})"
        if self.kind == "interval":
            return (f"{where}: interval {self.column} stored {self.stored}, recomputed {self.recomputed}: "
                    "they do not intersect")
        if self.kind == "order":
            return f"{where}: stored interval {self.column} = {self.stored} has lower > upper"
        return f"{where}: column {self.column!r} stored {self.stored!r}, recomputed {self.recomputed!r}"


@dataclass
class VerifyReport:
    table: str
    checked_rows: list[int] = field(default_factory=list)
    mismatches: list[Mismatch] = field(default_factory=list)
    seconds: float = 0.0
    skipped: str | None = None
    data_skipped: int = 0  # rows not eligible: computed from the shared data, which is absent


def _same(a: Any, b: Any, rtol: float, atol: float) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return bool(a) == bool(b) if isinstance(a, bool) and isinstance(b, bool) else a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        fa, fb = float(a), float(b)
        if math.isnan(fa) or math.isnan(fb):
            return math.isnan(fa) and math.isnan(fb)
        if math.isinf(fa) or math.isinf(fb):  # inf - inf is nan: equal infinities must compare equal
            return fa == fb
        return abs(fa - fb) <= atol + rtol * max(abs(fa), abs(fb))
    return a == b


def list_tables(root: Path | None = None) -> list[tuple[str, str]]:
    """``(chapter, table)`` for every manifest in the store."""
    root = root or results_root()
    return sorted((p.parent.name, p.name[: -len(".manifest.json")])
                  for p in root.glob("*/*.manifest.json"))


def orphan_tables(root: Path | None = None) -> list[Path]:
    """Stored CSVs without a manifest (``results/CHAPTER/TABLE.csv``): nothing can check them."""
    root = root or results_root()
    return sorted(p for p in root.glob("*/*.csv") if not p.with_name(p.name[:-4] + ".manifest.json").exists())


def row_needs_shared_data(row: dict[str, str]) -> bool:
    """Whether a stored row was computed from the shared data directory (``../shared/data``).

    Such a row can only be recomputed where that directory exists (it is never copied into the
    repository): it has a non-empty ``data_sha256`` column (the checksum of the data file read), a
    ``workload`` column naming a real trace, or a key ``data = "shared"``.
    """
    if (row.get("data_sha256") or "").strip():
        return True
    if "real trace" in (row.get("workload") or ""):
        return True
    try:
        return json.loads(row.get("_key") or "{}").get("data") == "shared"
    except json.JSONDecodeError:
        return False


def shared_data_available() -> bool:
    try:
        from kvlib.serving.workloads import default_shared_dir
    except ImportError:  # pragma: no cover
        return False
    return default_shared_dir() is not None


def verify_table(chapter: str, table: str, *, budget_s: float = 60.0, n_fixed: int = 2,
                 n_seeded: int = 3, seed: int = 0, rows: Sequence[int] | None = None,
                 root: Path | None = None, max_row_s: float | None = None) -> VerifyReport:
    """Recompute a sample of a stored table's rows and compare them with what is stored.

    The sample: the ``n_fixed`` rows that were cheapest to compute (always the same rows), plus
    ``n_seeded`` rows drawn with ``numpy.random.default_rng(seed)`` among the rows whose stored
    wall time fits the remaining budget (``rows`` overrides the choice).  Every stored interval is
    checked for lower <= upper (no recomputation needed).  Rows whose stored compute time exceeds
    ``max_row_s`` are not recomputed (the report says so when no row is left).
    """
    import numpy as np

    csv_path, man_path = table_paths(chapter, table, root)
    name = f"results/{chapter}/{table}"
    report = VerifyReport(name)
    if not man_path.exists():
        raise StoreError(f"{man_path}: no manifest for the stored table {name}")
    man = load_manifest(man_path)
    if not csv_path.exists():
        raise StoreError(f"{csv_path}: the stored table {name} is missing (its manifest records "
                         f"{man.get('n_rows', 'some')} rows)")
    # the bytes first: an emptied or header-only CSV is an edit like any other
    digest = hashlib.sha256(csv_path.read_bytes()).hexdigest()
    if not man.get("sha256"):
        report.mismatches.append(Mismatch(name, -1, "", "sha256", None, digest, "checksum"))
    elif digest != man["sha256"]:
        # the table's bytes are not those its manifest recorded when the store last wrote it: an edit
        # by hand (or by anything other than the store), whichever rows it touched
        report.mismatches.append(Mismatch(name, -1, "", "sha256", man["sha256"], digest, "checksum"))
    header, raw = read_rows(csv_path)
    if not raw:
        report.skipped = "no rows stored"
        if int(man.get("n_rows") or 0) > 0 and not report.mismatches:
            report.mismatches.append(Mismatch(name, -1, "", "sha256", man.get("sha256"), digest, "checksum"))
        return report
    keys_cols = man.get("keys") or []
    interval = [tuple(p) for p in man.get("interval", [])]
    skip = set(keys_cols) | set(META_COLUMNS) | set(man.get("timing", [])) | set(man.get("ignore", []))
    skip |= {c for p in interval for c in p}
    exact = man.get("exact") or [c for c in header if c not in skip]
    rtol, atol = float(man.get("rtol", 1e-9)), float(man.get("atol", 1e-12))

    for idx, r in enumerate(raw):
        for lo, hi in interval:
            vlo, vhi = _parse(r.get(lo, "")), _parse(r.get(hi, ""))
            if isinstance(vlo, (int, float)) and isinstance(vhi, (int, float)) and vlo > vhi + atol:
                report.mismatches.append(Mismatch(name, idx, r["_key"], f"[{lo}, {hi}]", (vlo, vhi), None, "order"))

    walls = [float(r.get("_wall_s") or 0.0) for r in raw]
    have_data = shared_data_available()
    usable = [i for i in range(len(raw)) if have_data or not row_needs_shared_data(raw[i])]
    report.data_skipped = len(raw) - len(usable)
    if max_row_s is not None and rows is None:
        cheap = [i for i in usable if walls[i] <= max_row_s]
        if usable and not cheap:
            report.skipped = (f"every row took more than {max_row_s:.0f} s to compute (cheapest "
                              f"{min(walls[i] for i in usable):.0f} s); not recomputed here")
            return report
        usable = cheap
    if rows is None and not usable:
        report.skipped = (f"all {len(raw)} rows were computed from the shared data directory, "
                          "which is not present here")
        return report
    if rows is None:
        order = sorted(usable, key=lambda i: (walls[i], i))
        chosen = order[:n_fixed]
        spent = sum(walls[i] for i in chosen)
        rng = np.random.default_rng(seed)
        pool = [i for i in usable if i not in chosen]
        rng.shuffle(pool)
        for i in pool:
            if len(chosen) >= n_fixed + n_seeded:
                break
            if spent + walls[i] <= budget_s:
                chosen.append(i)
                spent += walls[i]
    else:
        chosen = list(rows)
    fn = resolve_function(man["function"])
    t0 = time.perf_counter()
    for idx in chosen:
        r = raw[idx]
        key = json.loads(r["_key"])
        out = fn(**key)
        report.checked_rows.append(idx)
        for c in exact:
            if c not in out:
                report.mismatches.append(Mismatch(name, idx, r["_key"], c, _parse(r.get(c, "")),
                                                  "<missing from the recomputed row>", "exact"))
                continue
            got = _parse(_fmt(_cell(out[c])) if not isinstance(_cell(out[c]), str) else _cell(out[c]))
            want = _parse(r.get(c, ""))
            if not _same(want, got, rtol, atol):
                report.mismatches.append(Mismatch(name, idx, r["_key"], c, want, got, "exact"))
        for lo, hi in interval:
            slo, shi = _parse(r.get(lo, "")), _parse(r.get(hi, ""))
            nlo, nhi = out.get(lo), out.get(hi)
            if None in (slo, shi, nlo, nhi):
                continue
            if max(float(slo), float(nlo)) > min(float(shi), float(nhi)) + atol:
                report.mismatches.append(Mismatch(name, idx, r["_key"], f"[{lo}, {hi}]", (slo, shi),
                                                  (nlo, nhi), "interval"))
    report.seconds = time.perf_counter() - t0
    return report


# --------------------------------------------------------------------------- reporting


def run_record(chapter: str, root: Path | None = None) -> dict:
    """``results/CHAPTER/_run.json`` (the chapter's last full-mode run, written by
    ``book/run_chapters.py``), or ``{}`` if there is none."""
    path = (root or results_root()) / chapter / "_run.json"
    return json.loads(path.read_text(encoding="utf8")) if path.exists() else {}


def full_regeneration(run: dict) -> dict | None:
    """The chapter's last *full* regeneration (every stored row computed in one run) from a ``_run.json``
    record: the record itself if that run computed every row of every table, else the
    ``full_regeneration`` block carried over from an earlier run, else None."""
    if not run:
        return None
    tables = run.get("tables") or {}
    if tables and all(int(t.get("computed_in_this_run") or 0) >= int(t.get("expected") or 0) > 0
                      for t in tables.values()):
        return {k: run.get(k) for k in ("git_sha", "started", "finished", "chapter_wall_time_s", "cores",
                                         "load_average_at_end")} | {
            "rows": sum(int(t.get("rows") or 0) for t in tables.values())}
    return run.get("full_regeneration")


def store_summary(root: Path | None = None) -> list[dict]:
    """One record per stored table: rows stored/asked, status, commits, date, compute time, staleness,
    and the chapter's last regeneration wall time (``results/CHAPTER/_run.json``)."""
    root = root or results_root()
    out = []
    runs: dict[str, dict] = {}  # one _run.json per chapter, read once
    from kvlib.book.fingerprint import Sources

    sources = Sources()  # each source file parsed once for all tables
    for chapter, table in list_tables(root):
        csv_path, man_path = table_paths(chapter, table, root)
        man = load_manifest(man_path)
        _, rows = read_rows(csv_path)
        facts = table_facts(man, [r["_commit"] for r in rows])
        commits = facts["commits"]
        if chapter not in runs:
            runs[chapter] = run_record(chapter, root)
        run = runs[chapter]
        state, reasons = table_staleness(man, commits, len(rows), sources)
        out.append({
            "chapter": chapter, "table": table, "rows": len(rows),
            "rows asked": man.get("n_expected"),
            "status": "complete" if len(rows) >= (man.get("n_expected") or 0) else "partial",
            "commits": facts["commit_text"],
            "stale": state,
            "stale because": stale_reason_text(reasons) if state == "yes" else "",
            "staleness judged by": ("the code its rows executed" if recorded_code(man, len(rows)) is not None
                                    else "the files its row function imports (git)"),
            "updated": facts["date"],
            "compute time (s)": round(sum(float(r.get("_wall_s") or 0) for r in rows), 1),
            "cores": (man.get("machine") or {}).get("cores"),
            "chapter run wall time (s)": run.get("chapter_wall_time_s"),
            "full regeneration wall time (s)": (full_regeneration(run) or {}).get("chapter_wall_time_s"),
            "full regeneration runs": (full_regeneration(run) or {}).get("pieces", 1 if full_regeneration(run) else None),
            # the rows that regeneration computed (a later table or key set makes it cover fewer than today's)
            "full regeneration rows": (full_regeneration(run) or {}).get("rows"),
            "size (kB)": round(csv_path.stat().st_size / 1024, 1) if csv_path.exists() else 0.0,
        })
    return out
