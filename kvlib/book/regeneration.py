"""A full regeneration of one chapter's stored results that may span several runs (ours).

Some chapters need more compute than one sitting allows (the hindsight chapter: about four hours
on two cores).  ``book/run_chapters.py --fresh`` therefore starts a *regeneration*: the chapter's tables are computed
anew into a staging folder (``results/.staging/CHAPTER/``, not committed), each moved over the stored
table it replaces as soon as it is complete (the store does it: ``KVBOOK_STORE_STAGING``), so a
stored table stays in place until its new rows exist, whatever happens to the run; and it opens a ledger,
``results/CHAPTER/_regeneration.json``, with one *piece* per run.  While a run is going the runner
writes its wall time into the ledger every few seconds (:func:`heartbeat`), so a run that is
interrupted (killed, machine stopped) still counts up to its last heartbeat.
``--resume-regeneration`` continues it: the rows already computed in this regeneration are kept
(the store's normal resume), the new run adds a piece.  When a run ends with every table complete
the ledger is closed and :func:`closed_record` gives the chapter's full-regeneration record: the
sum of the pieces' wall times, the number of pieces, the commits and dates.

A regeneration is resumed only on the code its rows ran: when every table it made or staged records the
code its rows executed (:mod:`kvlib.book.fingerprint`), :func:`resume` refuses (start again with
``--fresh``) exactly when one of them would now be stale (:func:`recorded_changes`); otherwise, if a file
in the import closure of one of the chapter's tables (:func:`kvlib.book.store.table_depends`) or the
chapter's source changed since its first commit, it refuses and names the files.  Work elsewhere in the
repository (another chapter, a new module, the runner itself) does not stop a regeneration.

The ledger stays true after any interruption: a plain write run of a chapter whose regeneration is
open continues it (as ``--resume-regeneration`` would) or, when the code changed since it started,
marks it ``abandoned`` with the reason (:func:`abandon`); and a ``running`` ledger whose heartbeat
stopped (the run was killed) reads as interrupted (:func:`status_of`).
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import shutil
import subprocess
from pathlib import Path

LEDGER = "_regeneration.json"
STAGING = ".staging"  # results/.staging/CHAPTER/: the tables of an open regeneration, until each is complete


def staging_root(results: Path) -> Path:
    """Where an open regeneration's tables are written until each is complete (a results root)."""
    return Path(results) / STAGING


class RegenerationError(RuntimeError):
    """A regeneration cannot be started, resumed or recorded as asked (the message says why)."""


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()


def ledger_path(results: Path, chapter: str) -> Path:
    return Path(results) / chapter / LEDGER


def read_ledger(results: Path, chapter: str) -> dict:
    """The chapter's ledger, or ``{}`` if it has none."""
    path = ledger_path(results, chapter)
    return json.loads(path.read_text(encoding="utf8")) if path.exists() else {}


def _write(results: Path, chapter: str, ledger: dict) -> None:
    path = ledger_path(results, chapter)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(ledger, indent=1) + "\n", encoding="utf8")
    os.replace(tmp, path)


def _piece(git_sha: str) -> dict:
    return {"started": _now(), "updated": _now(), "wall_time_s": 0.0, "git_sha": git_sha,
            "cores": os.cpu_count(), "ended": "running"}


def start(results: Path, chapter: str, git_sha: str) -> dict:
    """Open a new regeneration: an empty staging folder for the chapter's new tables (the stored ones stay
    where they are until each new table is complete) and a ledger with its first piece."""
    shutil.rmtree(staging_root(results) / chapter, ignore_errors=True)  # an earlier, unfinished one's rows
    started = _now()
    ledger = {"chapter": chapter, "status": "running", "started": started, "id": f"{chapter}@{started}",
              "git_sha": git_sha, "pieces": [_piece(git_sha)]}
    _write(results, chapter, ledger)
    return ledger


def depends(results: Path, chapter: str, repo: Path) -> list[str]:
    """The files the chapter's stored rows depend on: for every table of the chapter (its manifests
    in ``results/CHAPTER/`` and, during a regeneration, the staged ones), the import closure of
    its row function's module in ``repo`` as it is now, and the closure the manifest recorded;
    ``["kvlib"]`` (all of it) when no manifest names one."""
    from kvlib.book.store import import_closure

    folder = Path(results) / chapter
    files: set[str] = set()
    for manifest in sorted(folder.glob("*.manifest.json")) + sorted((staging_root(results) / chapter).glob("*.manifest.json")):
        try:
            m = json.loads(manifest.read_text(encoding="utf8"))
        except (OSError, ValueError):
            return ["kvlib"]  # unreadable: assume the worst
        files.update(m.get("depends") or [])
        module = (m.get("function") or "").partition(":")[0]
        if module.startswith("kvlib"):
            files.update(import_closure(module, Path(repo)))
    return sorted(files) or ["kvlib"]


def changed_files(repo: Path, since: str, results: Path, chapter: str) -> list[str] | None:
    """The files among the chapter's :func:`depends` and ``notebooks/CHAPTER.py`` that were modified,
    deleted, renamed or retyped between commit ``since`` and the working tree; ``None`` when git cannot
    compare them.  A module *added* since cannot change what the existing code computes unless an
    existing file was changed to import it (the rule of :func:`kvlib.book.store.code_changed_since`)."""
    paths = depends(results, chapter, repo) + [f"notebooks/{chapter}.py"]
    try:
        r = subprocess.run(["git", "diff", "--name-only", "--diff-filter=MDRT", since, "--", *paths],
                           cwd=repo, capture_output=True, text=True)
    except OSError:
        return None
    if r.returncode != 0:
        return None
    return [line for line in r.stdout.splitlines() if line.strip()]


def recorded_changes(results: Path, chapter: str, ledger: dict) -> list[str] | None:
    """For a resume: the tables this regeneration made (complete, in ``results/CHAPTER``) or staged
    (partial, in :func:`staging_root`), judged by the code their rows recorded
    (:func:`kvlib.book.store.table_staleness`).  Returns ``"TABLE: reason"`` for each whose recorded code
    differs from the working tree's (empty: the rows computed so far ran today's code), or ``None`` when
    a table lacks a record covering its rows (then the files are compared with git instead)."""
    from kvlib.book.store import load_manifest, recorded_code, table_staleness

    rid = ledger.get("id")
    manifests = [m for m in sorted((Path(results) / chapter).glob("*.manifest.json"))
                 if rid and _manifest(m).get("regeneration") == rid]
    manifests += sorted((staging_root(results) / chapter).glob("*.manifest.json"))
    out = []
    for path in manifests:
        m = load_manifest(path)
        n = int(m.get("n_rows") or 0)
        if n and recorded_code(m, n) is None:
            return None
        verdict, reasons = table_staleness(m, [], n)
        if verdict != "no":
            out += [f"{m.get('table', path.name)}: {r}" for r in reasons[:1]]
    return out


def _manifest(path: Path) -> dict:
    """The manifest at ``path``, or ``{}`` when it cannot be read (never made by a regeneration, then)."""
    try:
        return json.loads(Path(path).read_text(encoding="utf8"))
    except (OSError, ValueError):
        return {}


def resume(results: Path, chapter: str, git_sha: str, repo: Path) -> dict:
    """Add a piece to the chapter's open regeneration (see the module docstring for the conditions)."""
    ledger = read_ledger(results, chapter)
    if not ledger:
        raise RegenerationError(f"{chapter}: no regeneration to resume ({ledger_path(results, chapter)} does not "
                                f"exist): start one with --fresh")
    if ledger.get("status") != "running":
        raise RegenerationError(f"{chapter}: the regeneration started {ledger.get('started')} is already "
                                f"{ledger.get('status')}: start a new one with --fresh")
    recorded = recorded_changes(results, chapter, ledger)
    if recorded is not None:  # every table of this regeneration records the code its rows ran
        if recorded:
            raise RegenerationError(
                f"{chapter}: code that rows of this regeneration ran changed since they were computed "
                f"({'; '.join(recorded[:3])}): its rows would mix two versions of the code; start again with --fresh")
        changed = []
    else:
        changed = changed_files(repo, ledger["git_sha"], results, chapter)
    if changed is None:
        raise RegenerationError(
            f"{chapter}: the code cannot be compared with git against commit {ledger['git_sha'][:10]}, where the "
            f"regeneration started: start again with --fresh")
    if changed:
        shown = ", ".join(changed[:5]) + (f" and {len(changed) - 5} more" if len(changed) > 5 else "")
        raise RegenerationError(
            f"{chapter}: code its rows depend on changed since commit {ledger['git_sha'][:10]}, where the "
            f"regeneration started ({shown}): its rows would mix two versions of the code; start again with --fresh")
    for p in ledger["pieces"]:
        if p.get("ended") == "running":
            p["ended"] = "interrupted"
    ledger["pieces"].append(_piece(git_sha))
    _write(results, chapter, ledger)
    return ledger


#: a running piece whose last heartbeat is older than this (s) was interrupted (the runner beats every 15 s)
STALE_AFTER_S = 120.0


def status_of(ledger: dict, now: _dt.datetime | None = None) -> str:
    """The ledger's status as it is now: ``running`` only while its heartbeat is recent; a run killed
    without closing its piece reads ``interrupted (last heartbeat at ...)``."""
    status = ledger.get("status") or "none"
    if status != "running" or not ledger.get("pieces"):
        return status
    piece = ledger["pieces"][-1]
    if piece.get("ended") != "running":
        return f"interrupted (its last run ended {piece.get('ended')}; resume with --resume-regeneration)"
    now = now or _dt.datetime.now(_dt.timezone.utc)
    try:
        last = _dt.datetime.fromisoformat(piece.get("updated") or piece["started"])
    except (KeyError, ValueError):
        return "running"
    if (now - last).total_seconds() > STALE_AFTER_S:
        return (f"interrupted (last heartbeat at {last.isoformat()}; resume with --resume-regeneration)")
    return "running"


def abandon(results: Path, chapter: str, reason: str) -> dict:
    """Close an open regeneration without a full-regeneration record: its rows were completed by runs
    that cannot be counted as one regeneration (e.g. the code changed in between)."""
    ledger = read_ledger(results, chapter)
    if not ledger or ledger.get("status") != "running":
        return ledger
    for p in ledger["pieces"]:
        if p.get("ended") == "running":
            p["ended"] = "interrupted"
    ledger.update(status="abandoned", abandoned=_now(), reason=reason)
    shutil.rmtree(staging_root(results) / chapter, ignore_errors=True)
    _write(results, chapter, ledger)
    return ledger


def heartbeat(results: Path, chapter: str, started_monotonic: float, now_monotonic: float) -> None:
    """Record the current piece's wall time so far (called every few seconds while it runs)."""
    ledger = read_ledger(results, chapter)
    if not ledger or ledger.get("status") != "running":
        return
    piece = ledger["pieces"][-1]
    piece["wall_time_s"] = round(now_monotonic - started_monotonic, 1)
    piece["updated"] = _now()
    _write(results, chapter, ledger)


def close(results: Path, chapter: str, tables: list[dict], wall_time_s: float, ok: bool) -> dict | None:
    """End the current piece; if the run succeeded with every table complete, close the regeneration
    and return its record (:func:`closed_record`), else ``None``."""
    ledger = read_ledger(results, chapter)
    if not ledger or ledger.get("status") != "running":
        return None
    piece = ledger["pieces"][-1]
    piece["wall_time_s"] = round(float(wall_time_s), 1)
    piece["updated"] = _now()
    complete = ok and bool(tables) and all(int(t["rows"]) >= int(t["expected"]) > 0 for t in tables)
    piece["ended"] = "complete" if complete else ("ok, tables incomplete" if ok else "failed")
    if complete:
        ledger["status"] = "complete"
        ledger["finished"] = piece["updated"]
        ledger["rows"] = sum(int(t["rows"]) for t in tables)
        shutil.rmtree(staging_root(results) / chapter, ignore_errors=True)
        _drop_unmade(results, chapter, ledger.get("id"), {t["table"] for t in tables if t.get("table")})
    _write(results, chapter, ledger)
    return closed_record(ledger) if complete else None


def _drop_unmade(results: Path, chapter: str, regeneration_id: str | None, made: set[str]) -> None:
    """After a complete regeneration: remove the chapter's stored tables that it did not make (tables the
    chapter no longer asks for)."""
    if not regeneration_id or not made:
        return
    for man in sorted((Path(results) / chapter).glob("*.manifest.json")):
        name = man.name[: -len(".manifest.json")]
        if name in made:
            continue
        if _manifest(man).get("regeneration") != regeneration_id:
            man.unlink()
            (man.parent / f"{name}.csv").unlink(missing_ok=True)


def closed_record(ledger: dict) -> dict:
    """The full-regeneration record of a closed ledger (the fields of ``_run.json``'s
    ``full_regeneration`` block)."""
    pieces = ledger["pieces"]
    shas = list(dict.fromkeys(p["git_sha"] for p in pieces))
    return {"git_sha": ledger["git_sha"], "started": ledger["started"], "finished": ledger.get("finished"),
            "chapter_wall_time_s": round(sum(float(p["wall_time_s"]) for p in pieces), 1),
            "cores": max(int(p.get("cores") or 0) for p in pieces) or None, "pieces": len(pieces),
            "piece_commits": shas, "rows": ledger.get("rows")}
