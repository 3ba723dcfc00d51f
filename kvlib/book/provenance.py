"""Provenance of a built book: git commit, library versions, data-file checksums, chapter runs.

Used by the status page (``notebooks/status.py``), which reads the runner's manifest
``chapters/run_manifest.json`` and the executed notebooks, and by chapters that name the
data files they read (:func:`data_files`).  Nothing here raises on a missing git or a missing
file: the page reports ``"unknown"``, ``"-"`` or ``"not installed"`` instead, because a book
built from a source archive (no ``.git``) must still build.
"""

from __future__ import annotations

import hashlib
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any, Iterable

__all__ = ["find_root", "git", "yes_no", "version", "fmt_params", "file_sha256", "data_files",
           "chapter_rows", "provenance_notes"]


def find_root(start: Path) -> Path:
    """The nearest directory at or above ``start`` that holds ``book/chapters.yml`` (the repository root)."""
    start = Path(start).resolve()
    for p in (start, *start.parents):
        if (p / "book" / "chapters.yml").exists():
            return p
    raise FileNotFoundError("cannot find book/chapters.yml above " + str(start))


def git(root: Path, *args: str) -> str | None:
    """Output of ``git ARGS`` run in ``root`` (stripped), or ``None`` if git is missing or fails."""
    try:
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def yes_no(x) -> str:
    """``True -> "yes"``, ``False -> "no"``, anything else (e.g. ``None``) ``-> "unknown"``."""
    return {True: "yes", False: "no"}.get(x, "unknown")


def version(dist: str) -> str:
    """Installed version of the distribution ``dist`` (``importlib.metadata``), or ``"not installed"``."""
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def fmt_params(params: dict | None) -> str:
    """``{"mode": "quick", "seed": 0} -> "mode='quick', seed=0"`` (``repr`` of each value, in order)."""
    return ", ".join(f"{k}={v!r}" for k, v in params.items()) if params else ""


def file_sha256(path) -> str:
    """SHA-256 (hex) of the file's bytes."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def data_files(shared: Path | None, names: Iterable[str], extra: Iterable = ()):
    """Table (``pandas.DataFrame``) of the data files a chapter may read: ``file``, ``present``, ``sha256``.

    ``names`` are looked up in the directory ``shared`` (``None``: no shared directory, every file
    absent); ``extra`` are further paths (e.g. a user's CSV), listed as given.  Absent files get
    ``"-"`` as checksum.
    """
    import pandas as pd

    rows = []
    for name in names:
        p = Path(shared) / name if shared else None
        present = bool(p and p.exists())
        rows.append({"file": name, "present": present, "sha256": file_sha256(p) if present else "-"})
    for path in extra:
        present = Path(path).exists()
        rows.append({"file": str(path), "present": present, "sha256": file_sha256(path) if present else "-"})
    return pd.DataFrame(rows, columns=["file", "present", "sha256"])


def chapter_rows(chapters: Iterable[str], executed: Path, manifest: dict, *, skip=("status",)) -> list[dict]:
    """One row per chapter: whether its executed notebook exists, mode and parameters papermill
    injected (``metadata.papermill``), the runner's wall time, timestamps and commit (manifest).

    ``commit`` is the first 12 hex digits of the runner's record, with ``" (dirty)"`` when the
    working tree differed from it; ``"unknown"`` when the manifest has no record.
    """
    import nbformat

    rows = []
    for name in chapters:
        if name in skip:
            continue
        nb_path = Path(executed) / f"{name}.ipynb"
        rec = manifest.get("chapters", {}).get(name, {})
        if nb_path.exists():
            pm = nbformat.read(nb_path, as_version=4).metadata.get("papermill", {})
            params = dict(pm.get("parameters", {}))
            duration = pm.get("duration")
        else:
            params, duration = {}, None
        sha = rec.get("git_sha") or "unknown"
        rows.append({
            "chapter": name,
            "executed": "yes" if nb_path.exists() else "NO",
            "mode": params.get("mode", "unknown"),
            "parameters": fmt_params(params),
            "wall time (s)": rec.get("wall_time_s"),
            "papermill duration (s)": None if duration is None else round(duration, 2),
            "started (UTC)": rec.get("started", ""),
            "finished (UTC)": rec.get("finished", ""),
            "commit": sha[:12] + (" (dirty)" if rec.get("git_dirty") else ""),
        })
    return rows


def provenance_notes(rows: list[dict], manifest: dict, mode: str) -> list[str]:
    """Markdown bullet lines for chapters that were not executed, ran in another mode than the
    book (``manifest["mode"]``, else ``mode``), or at another commit than the runner's."""
    book_mode = manifest.get("mode", mode)
    runner_sha = str(manifest.get("git_sha", ""))[:12]
    notes: list[str] = []
    for r in rows:
        if r["executed"] != "yes":
            notes.append(f"- chapter `{r['chapter']}` has not been executed")
        if r["mode"] != book_mode:
            notes.append(f"- chapter `{r['chapter']}` ran in mode {r['mode']!r}, the book in {book_mode!r}")
        if not r["commit"].startswith(runner_sha):
            notes.append(f"- chapter `{r['chapter']}` ran at commit {r['commit']}, "
                         f"the runner at {str(manifest.get('git_sha'))[:12]}")
    return notes
