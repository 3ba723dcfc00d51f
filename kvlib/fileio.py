"""Writing output files without destroying what was there: atomic replacement.

:func:`atomic_open` (a context manager) and :func:`atomic_write_text` /
:func:`atomic_write_bytes` write a *regular* file through a temporary file in
the same directory, flushed and ``fsync``-ed, then renamed over the target
(``os.replace``, atomic on POSIX).  If anything fails before the rename (a full
file system, a write error, an exception in the caller's block, Ctrl-C), the
temporary file is removed and the file already at the path is left exactly as
it was: a reader sees either the old content or the complete new content, never
a file cut mid-row.

Details:

* **Permissions.**  The new file gets the mode bits of the file it replaces; a
  new file gets ``0o666`` minus the process umask (what ``open(path, "w")``
  would give), not ``mkstemp``'s ``0o600``.  Owner and group are not copied.
* **Symbolic links.**  A path that is a symbolic link is resolved first: the
  link stays and its target is replaced (as ``open(path, "w")`` would write
  through it).
* **Hard links.**  The rename gives the path a new inode, so other hard links
  to the old file keep the old content (the old file is never modified).
* **Special files.**  A path under ``/dev/`` or ``/proc/`` (``/dev/stdout``,
  ``/dev/null``, ``/dev/full``, ``/proc/self/fd/N``) or an existing non-regular
  file (a fifo, a character device, a socket) is opened and written directly:
  it cannot be replaced by a rename, and its consumer expects the bytes.
* **Directories.**  A path naming a directory raises :class:`IsADirectoryError`
  before anything is written; a path ending in ``/`` that is not an existing
  directory raises :class:`NotADirectoryError` (``open("new/", "w")`` fails too;
  the rename used to create a regular file ``new``).
* **Read-only files.**  An existing file the process may not write (mode
  ``0444`` for its owner, say) raises :class:`PermissionError`, as ``>`` or
  ``open(path, "w")`` would; the rename alone would replace it, since it needs
  only the directory's write permission.  (Root may write any file, as with
  ``>``.)
* **Read-only directories.**  Where the directory refuses a new entry but the
  existing file is writable (:func:`writes_in_place`), the file is truncated and
  written in place, as ``>`` would: not atomic, so a failure midway leaves it
  cut short (callers say so).
* **Long names.**  The temporary name keeps at most :data:`TEMP_STEM` characters
  of the target's name, so any name the file system accepts (up to 255 bytes)
  can be written.

Errors are the usual :class:`OSError` subclasses with ``filename`` set; callers
turn them into their own messages.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from typing import IO, Iterator

__all__ = ["atomic_open", "atomic_write_text", "atomic_write_bytes", "is_special_path", "same_file",
           "writes_in_place", "check_writable"]

#: Paths under these prefixes are written directly (devices, /proc/self/fd/N, /dev/stdout).
SPECIAL_PREFIXES = ("/dev/", "/proc/")

#: Characters of the target's name kept in the temporary file's name (``.NAME.XXXXXXXX.tmp``): a 250-character
#: name would otherwise give a temporary name over the 255-byte limit of common file systems.
TEMP_STEM = 100


def is_special_path(path: str | os.PathLike) -> bool:
    """True when ``path`` must be written directly rather than replaced: under ``/dev/`` or ``/proc/``,
    or an existing file that is neither a regular file nor a directory (fifo, device, socket)."""
    p = os.path.abspath(os.fspath(path))
    if p.startswith(SPECIAL_PREFIXES):
        return True
    try:
        st = os.stat(p)
    except OSError:
        return False
    return not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode))


def same_file(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """True when both paths exist and name the same file (same device and inode, after following
    symbolic links): catches ``x.csv`` vs ``dir/../x.csv``, a symbolic link and a hard link."""
    try:
        sa, sb = os.stat(a), os.stat(b)
    except (OSError, ValueError):
        return False
    return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)


def _directory_refuses_entries(target: str) -> bool:
    directory = os.path.dirname(target) or "."
    return not os.access(directory, os.W_OK | os.X_OK)


def writes_in_place(path: str | os.PathLike) -> bool:
    """True when ``path`` is an existing regular file this process may write but whose directory refuses a new
    entry (so no temporary file can be renamed over it): :func:`atomic_open` then writes it in place."""
    target = os.path.realpath(os.fspath(path))
    return (not is_special_path(target) and os.path.isfile(target) and os.access(target, os.W_OK)
            and _directory_refuses_entries(target))


def check_writable(path: str | os.PathLike) -> None:
    """Raise the :class:`OSError` that ``open(path, "w")`` would raise for the shape and modes of ``path``,
    before anything is written: :class:`NotADirectoryError` for ``new/`` (a trailing slash on a name that is
    no directory), :class:`IsADirectoryError` for a directory, :class:`PermissionError` for an existing file
    the process may not write.  Special files (:func:`is_special_path`) are not checked."""
    name = os.fspath(path)
    if is_special_path(name):
        return
    if name.endswith(("/", "/.")) and not os.path.isdir(name):
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), name)
    target = os.path.realpath(name)
    if os.path.isdir(target):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), name)
    if os.path.exists(target) and not os.access(target, os.W_OK):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), name)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike, mode: str = "w", *, encoding: str | None = "utf-8",
                newline: str | None = None) -> Iterator[IO]:
    """Open ``path`` for writing (``mode`` ``"w"`` or ``"wb"``); on a clean exit of the block the
    written content replaces the file atomically, on an exception the old file is untouched and
    the exception propagates.  See the module docstring for special files, links and permissions."""
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_open: mode must be 'w' or 'wb', got {mode!r}")
    binary = mode == "wb"
    kw = {} if binary else {"encoding": encoding, "newline": newline}
    name = os.fspath(path)
    if is_special_path(name):
        with open(name, mode, **kw) as fh:
            yield fh
        return
    check_writable(name)
    target = os.path.realpath(name)
    if writes_in_place(target):  # a read-only directory: no rename possible, write as `>` would
        with open(target, mode, **kw) as fh:
            yield fh
        return
    try:
        old_mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        old_mode = 0o666 & ~_umask()
    directory = os.path.dirname(target) or "."
    stem = os.fsdecode(os.fsencode(os.path.basename(target))[:TEMP_STEM])  # bytes: names are limited in bytes
    try:
        fd, tmp = tempfile.mkstemp(prefix="." + stem + ".", suffix=".tmp", dir=directory)
    except OSError as e:  # name the target, not the temporary file
        raise type(e)(e.errno, e.strerror, name) from None
    try:
        with os.fdopen(fd, mode, **kw) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, old_mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def atomic_write_text(path: str | os.PathLike, text: str, *, encoding: str = "utf-8", newline: str | None = "") -> None:
    """Write ``text`` to ``path`` atomically (see :func:`atomic_open`); ``newline=""`` writes ``\\n``
    as is."""
    with atomic_open(path, "w", encoding=encoding, newline=newline) as fh:
        fh.write(text)


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (see :func:`atomic_open`)."""
    with atomic_open(path, "wb") as fh:
        fh.write(data)
