"""Suite-wide pytest hooks.

With ``KVBOOK_SKIPPED_TESTS=FILE`` set, every test (and every module) that skips is appended to FILE,
one node id per line: ``.ci/run`` reruns exactly those after installing the book extras, instead of
rerunning whole files whose tests already ran in the first pass.  Under pytest-xdist (``-n``, set in
``pyproject.toml``) only the controlling process writes FILE (the workers' reports reach it), one
locked append per line, so no line is lost, doubled or interleaved.

As each test file finishes, one line says so: ``tests/test_x.py: 12 passed, 1 skipped in 3.4 s (CPU 3.1 s)``
(the sum of its tests' setup, call and teardown times, wherever they ran, and the CPU time they used: the
test process's and its finished subprocesses'); the session ends with the total CPU time of all tests.
"""

from __future__ import annotations

import os
import time

import pytest

try:  # POSIX; elsewhere an append of one short line is left to the OS
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None


def _is_worker() -> bool:
    return "PYTEST_XDIST_WORKER" in os.environ


def _record(nodeid: str) -> None:
    path = os.environ.get("KVBOOK_SKIPPED_TESTS")
    if not path or not nodeid or _is_worker():
        return
    line = (nodeid + "\n").encode("utf8")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, line)  # one write of the whole line, with O_APPEND: never interleaved
    finally:
        os.close(fd)  # closing releases the lock


def pytest_runtest_logreport(report):
    if report.skipped:
        _record(report.nodeid)


def pytest_collectreport(report):
    if report.skipped:
        _record(report.nodeid)


# ----------------------------------------------------------------------------- one line per finished file

def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Runs where the test runs (an xdist worker, or here): the CPU seconds from the start of its setup
    to the end of its teardown go into the teardown report's user_properties."""
    if call.when == "setup":
        item._kvbook_cpu = _cpu()
    elif call.when == "teardown" and hasattr(item, "_kvbook_cpu"):
        item.user_properties.append(("cpu_s", _cpu() - item._kvbook_cpu))
    yield


def _file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


class FileProgress:
    """Counts each file's finished tests in the controlling process and prints a line when the last one
    ends; the expected counts come from the collection (the workers' under xdist)."""

    def __init__(self, config):
        self.config = config
        self.expected: dict[str, int] | None = None
        self.done: dict[str, int] = {}
        self.outcomes: dict[str, dict[str, int]] = {}
        self.seconds: dict[str, float] = {}
        self.cpu: dict[str, float] = {}
        self.state: dict[str, str] = {}  # nodeid -> outcome so far
        self.printed: set[str] = set()
        self.start = time.perf_counter()

    def _set_expected(self, nodeids) -> None:
        if self.expected is None:
            counts: dict[str, int] = {}
            for nid in nodeids:
                counts[_file_of(nid)] = counts.get(_file_of(nid), 0) + 1
            self.expected = counts

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session):
        if not getattr(self.config.option, "numprocesses", None) or getattr(session, "items", None):
            self._set_expected(item.nodeid for item in session.items)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node, ids):
        self._set_expected(ids)  # every worker collects the same tests

    def pytest_runtest_logreport(self, report):
        nid = report.nodeid
        f = _file_of(nid)
        self.seconds[f] = self.seconds.get(f, 0.0) + (report.duration or 0.0)
        for name, value in getattr(report, "user_properties", ()):
            if name == "cpu_s" and report.when == "teardown":
                self.cpu[f] = self.cpu.get(f, 0.0) + value
        if report.when == "call" or report.outcome != "passed":
            prev = self.state.get(nid)
            if report.failed:
                outcome = "failed" if report.when == "call" else "error"
            elif report.skipped:
                outcome = "xfailed" if hasattr(report, "wasxfail") else "skipped"
            else:
                outcome = "xpassed" if hasattr(report, "wasxfail") else "passed"
            if prev not in ("failed", "error"):
                self.state[nid] = outcome
        if report.when == "teardown":
            outcome = self.state.pop(nid, "passed")
            counts = self.outcomes.setdefault(f, {})
            counts[outcome] = counts.get(outcome, 0) + 1
            self.done[f] = self.done.get(f, 0) + 1
            if self.expected is not None and self.done[f] >= self.expected.get(f, 0):
                self._line(f)

    def _line(self, f: str, partial: bool = False) -> None:
        if f in self.printed:
            return
        self.printed.add(f)
        counts = self.outcomes.get(f, {})
        order = ("passed", "failed", "error", "skipped", "xfailed", "xpassed")
        what = ", ".join(f"{counts[k]} {k}" for k in order if counts.get(k))
        if partial:
            what += f" ({self.done.get(f, 0)} of {self.expected.get(f, 0) if self.expected else '?'} ran)"
        elapsed = time.perf_counter() - self.start
        tr = self.config.pluginmanager.get_plugin("terminalreporter")
        text = (f"{f}: {what} in {self.seconds.get(f, 0.0):.1f} s (CPU {self.cpu.get(f, 0.0):.1f} s) "
                f"[{elapsed:.0f} s into the run]")
        if tr is not None:
            tr.write("\n")  # after the progress dots
            tr.write_line(text)

    def pytest_sessionfinish(self, session):
        for f in sorted(set(self.done) - self.printed):
            self._line(f, partial=True)
        tr = self.config.pluginmanager.get_plugin("terminalreporter")
        if tr is not None and self.done:
            tr.write("\n")
            tr.write_line(f"tests: {sum(self.seconds.values()):.0f} s in tests, CPU {sum(self.cpu.values()):.0f} s, "
                          f"{time.perf_counter() - self.start:.0f} s wall")


def pytest_configure(config):
    if not _is_worker() and not config.getoption("collectonly", False):
        config.pluginmanager.register(FileProgress(config), "kvbook-file-progress")
