"""Suite-wide pytest hooks.

With ``KVBOOK_SKIPPED_TESTS=FILE`` set, every test (and every module) that skips is appended to FILE,
one node id per line: ``.ci/run`` reruns exactly those after installing the book extras, instead of
rerunning whole files whose tests already ran in the first pass.
"""

from __future__ import annotations

import os


def _record(nodeid: str) -> None:
    path = os.environ.get("KVBOOK_SKIPPED_TESTS")
    if path and nodeid:
        with open(path, "a", encoding="utf8") as f:
            f.write(nodeid + "\n")


def pytest_runtest_logreport(report):
    if report.skipped:
        _record(report.nodeid)


def pytest_collectreport(report):
    if report.skipped:
        _record(report.nodeid)
