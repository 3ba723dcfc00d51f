"""Worker processes that die with the process that started them.

``book/run_chapters.py`` runs chapters in worker processes, each chapter's kernel runs the results
store's row workers; if the driver is killed (``kill -9``, a lost terminal) an orphaned worker would
go on computing and, for a chapter worker, keep its kernel appending rows to ``results/``.  Every pool
of the book therefore starts its workers with :func:`die_with_parent` as the initializer.  (A Jupyter
kernel already exits within a second of losing its parent: ipykernel's parent poller.)
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

__all__ = ["die_with_parent"]

PR_SET_PDEATHSIG = 1  # linux/prctl.h


def _watchdog(ppid: int, interval: float) -> None:
    while True:
        if os.getppid() != ppid:
            os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(interval)


def die_with_parent(interval: float = 0.5) -> str:
    """Make this process die (SIGKILL) as soon as its parent does.

    On Linux the kernel does it (``prctl(PR_SET_PDEATHSIG, SIGKILL)``); elsewhere a daemon thread
    polls the parent's pid every ``interval`` seconds.  Returns which of the two is in place."""
    import multiprocessing

    parent = multiprocessing.parent_process()  # the real parent, even if it died before this ran
    ppid = parent.pid if parent is not None and parent.pid else os.getppid()
    if os.getppid() != ppid:
        os.kill(os.getpid(), signal.SIGKILL)
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            if libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0:
                if os.getppid() != ppid:  # the parent died before the request took effect
                    os.kill(os.getpid(), signal.SIGKILL)
                return "prctl"
        except (OSError, AttributeError):
            pass
    threading.Thread(target=_watchdog, args=(ppid, interval), daemon=True, name="die-with-parent").start()
    return "watchdog"
