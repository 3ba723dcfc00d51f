"""kvlib.fileio: atomic replacement keeps the old file on every failure, never leaves a partial file."""

from __future__ import annotations

import errno
import os
import stat

import pytest

from kvlib import fileio
from kvlib.fileio import atomic_open, atomic_write_bytes, atomic_write_text, is_special_path, same_file

OLD = "id,start\n0,1\n1,2\n"


def _leftovers(d):
    return sorted(p.name for p in d.iterdir() if p.name.endswith(".tmp"))


def test_writes_and_replaces(tmp_path):
    p = tmp_path / "out.csv"
    atomic_write_text(p, "a\n")
    assert p.read_text() == "a\n"
    atomic_write_text(p, "b\nc\n")
    assert p.read_text() == "b\nc\n" and _leftovers(tmp_path) == []
    atomic_write_bytes(p, b"\x00\x01")
    assert p.read_bytes() == b"\x00\x01"


def test_exception_midway_keeps_the_old_file(tmp_path):
    p = tmp_path / "out.csv"
    p.write_text(OLD)
    with pytest.raises(RuntimeError, match="midway"):
        with atomic_open(p) as fh:
            fh.write("id,start\n0,")  # cut mid-row
            raise RuntimeError("midway")
    assert p.read_text() == OLD and _leftovers(tmp_path) == []


@pytest.mark.parametrize("where", ["write", "fsync", "replace"])
def test_full_file_system_keeps_the_old_file(tmp_path, monkeypatch, where):
    """ENOSPC at the write, at the flush to disk, or at the rename: the old file survives intact."""
    p = tmp_path / "out.csv"
    p.write_text(OLD)

    def full(*a, **k):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    if where == "fsync":
        monkeypatch.setattr(fileio.os, "fsync", full)
    elif where == "replace":
        monkeypatch.setattr(fileio.os, "replace", full)
    with pytest.raises(OSError) as info:
        with atomic_open(p) as fh:
            if where == "write":
                fh.write("id,start\n")
                full()
            fh.write("x" * 100_000)
    assert info.value.errno == errno.ENOSPC
    assert p.read_text() == OLD and _leftovers(tmp_path) == []


def test_new_file_missing_directory_names_the_target(tmp_path):
    target = tmp_path / "no" / "out.csv"
    with pytest.raises(FileNotFoundError) as info:
        atomic_write_text(target, "x")
    assert info.value.filename == str(target)


def test_directory_target_refused_before_writing(tmp_path):
    with pytest.raises(IsADirectoryError):
        atomic_write_text(tmp_path, "x")
    assert _leftovers(tmp_path) == []


def test_permissions_are_kept_and_new_files_follow_the_umask(tmp_path):
    p = tmp_path / "out.csv"
    p.write_text(OLD)
    os.chmod(p, 0o640)
    atomic_write_text(p, "new\n")
    assert stat.S_IMODE(os.stat(p).st_mode) == 0o640
    q = tmp_path / "fresh.csv"
    old = os.umask(0o022)
    try:
        atomic_write_text(q, "x")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(q).st_mode) == 0o644  # not mkstemp's 0o600


def test_symlink_target_is_replaced_and_the_link_kept(tmp_path):
    real = tmp_path / "real.csv"
    real.write_text(OLD)
    link = tmp_path / "link.csv"
    link.symlink_to(real)
    atomic_write_text(link, "new\n")
    assert link.is_symlink() and real.read_text() == "new\n"


def test_special_files_are_written_directly(tmp_path):
    assert is_special_path("/dev/stdout") and is_special_path("/dev/null") and is_special_path("/proc/self/fd/1")
    assert not is_special_path(tmp_path / "x.csv")
    atomic_write_text("/dev/null", "discarded")
    if os.path.exists("/dev/full"):
        with pytest.raises(OSError) as info:
            atomic_write_text("/dev/full", "x" * 100_000)
        assert info.value.errno == errno.ENOSPC
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert is_special_path(fifo)


def test_same_file_by_identity(tmp_path):
    a = tmp_path / "a.csv"
    a.write_text(OLD)
    (tmp_path / "d").mkdir()
    (tmp_path / "l.csv").symlink_to(a)
    os.link(a, tmp_path / "h.csv")
    (tmp_path / "b.csv").write_text(OLD)
    assert same_file(a, tmp_path / "d" / "." / ".." / "a.csv")
    assert same_file(a, tmp_path / "l.csv") and same_file(a, tmp_path / "h.csv")
    assert not same_file(a, tmp_path / "b.csv") and not same_file(a, tmp_path / "missing.csv")


def test_bad_mode():
    with pytest.raises(ValueError, match="mode"):
        with atomic_open("/tmp/x", "a"):
            pass


def test_trailing_slash_on_a_new_name_is_not_a_directory(tmp_path):
    """`new/` used to be written as a regular file `new` (the temporary file renamed over the stripped path)."""
    for name in ("new/", "new/."):
        with pytest.raises(NotADirectoryError):
            atomic_write_text(str(tmp_path) + "/" + name, "x\n")
    (tmp_path / "old.csv").write_text(OLD)
    with pytest.raises(NotADirectoryError):
        atomic_write_text(str(tmp_path / "old.csv") + "/", "x\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.csv"] and (tmp_path / "old.csv").read_text() == OLD


@pytest.mark.parametrize("name", ["n" * 255, "\u00e9" * 127 + "x"])
def test_longest_names_are_written(tmp_path, name):
    """A 255-byte name: the temporary name keeps at most TEMP_STEM bytes of it (it exceeded 255 before)."""
    p = tmp_path / name
    atomic_write_text(p, "a\n")
    atomic_write_text(p, "b\n")
    assert p.read_text() == "b\n" and _leftovers(tmp_path) == []


def test_read_only_file_is_refused_like_open_for_writing(tmp_path, monkeypatch):
    """A file this process may not write is refused as `>` refuses it (the rename needs only the directory's
    permission and replaced it before).  Root may write any file, so os.access is what decides; here it is
    made to say what it says to an unprivileged user (the CLI tests run as `nobody`)."""
    p = tmp_path / "ro.csv"
    p.write_text(OLD)
    p.chmod(0o444)
    real = os.access
    monkeypatch.setattr(os, "access", lambda q, m, **k: False if os.fspath(q) == str(p) and m & os.W_OK else real(q, m))
    with pytest.raises(PermissionError):
        atomic_write_text(p, "new\n")
    assert p.read_text() == OLD and _leftovers(tmp_path) == []


def test_read_only_directory_writes_a_writable_file_in_place(tmp_path, monkeypatch):
    d = tmp_path / "d"
    d.mkdir()
    p = d / "f.csv"
    p.write_text(OLD)
    ino = p.stat().st_ino
    real = os.access
    monkeypatch.setattr(os, "access", lambda q, m, **k: False if os.fspath(q) == str(d) and m & os.W_OK else real(q, m))
    assert fileio.writes_in_place(p)
    atomic_write_text(p, "new\n")
    assert p.read_text() == "new\n" and p.stat().st_ino == ino and _leftovers(d) == []  # same inode: in place
