"""Workers of the book's process pools die with their driver (kill -9 leaves no orphan computing)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc (Linux)")


def _children(pid: int) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            if int(stat[stat.rindex(")") + 2:].split()[1]) == pid:
                out.append(int(d.name))
    return out


def _alive(pid: int) -> bool:
    try:
        stat = (Path("/proc") / str(pid) / "stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


DRIVER = {
    # the results store's row pool, as a regeneration uses it (jobs=2)
    "store": """
        import subprocess, sys
        from kvlib.book.store import _compute
        keys = [{"args": ["sleep", "60"]}, {"args": ["sleep", "61"]}]
        print("ready", flush=True)
        for _ in _compute(subprocess.run, keys, [0, 1], 2):
            pass
    """,
    # the runner's chapter pool (same construction as book/run_chapters.py main())
    "runner": """
        import concurrent.futures as cf, multiprocessing, time
        from kvlib.book.lifeline import die_with_parent
        with cf.ProcessPoolExecutor(max_workers=2, mp_context=multiprocessing.get_context("spawn"),
                                    initializer=die_with_parent) as pool:
            futs = [pool.submit(time.sleep, 60) for _ in range(2)]
            print("ready", flush=True)
            cf.wait(futs)
    """,
}


@pytest.mark.parametrize("which", sorted(DRIVER))
def test_workers_die_when_the_driver_is_killed(which):
    p = subprocess.Popen([sys.executable, "-c", textwrap.dedent(DRIVER[which])], cwd=ROOT,
                         stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "ready"
        deadline = time.time() + 30
        workers: list[int] = []
        while time.time() < deadline:
            workers = [c for c in _children(p.pid) if _alive(c)]
            # spawn's resource tracker is a child too; the pool's two workers are the ones that matter
            if len(workers) >= 2:
                break
            time.sleep(0.2)
        assert len(workers) >= 2, "the pool's workers did not start"
        time.sleep(4.0)  # let the initializers run (the workers import kvlib first)
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
        deadline = time.time() + 5
        while time.time() < deadline and any(_alive(w) for w in workers):
            time.sleep(0.1)
        left = [w for w in workers if _alive(w) and "resource_tracker" not in
                (Path("/proc") / str(w) / "cmdline").read_bytes().decode(errors="replace")]
        assert not left, f"orphaned workers still running: {left}"
    finally:
        if p.poll() is None:
            p.kill()
