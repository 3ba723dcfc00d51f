"""Running HiGHS (``highspy``) safely and silently from several places in one process.

Thread pool.  HiGHS keeps one global thread pool per process.  A ``run()``
whose ``threads`` option differs from the pool's (including solves made by
other libraries, e.g. through cvxpy) fails without raising: the model status
stays "Not Set" or the MIP stops with no dual bound.  Every kvlib solve
therefore goes through :func:`run`, which resets the pool before the run and
again after it, so that it neither depends on nor leaves behind another
caller's pool.

Silence.  HiGHS writes to the process's file descriptor 1 from C++, where
Python's ``sys.stdout`` redirection cannot catch it: a copyright banner at the
first ``highspy.Highs()`` construction in a process (highspy 1.16: once per
process, whichever object is built first, ours or cvxpy's), and its solver log
during ``run()`` unless ``output_flag`` is off.  Importing this module builds
one throw-away ``Highs`` object with descriptor 1 pointed at ``/dev/null``
(:func:`_swallow_banner`), so the banner is spent before any kvlib or cvxpy
object is built; :func:`run` switches ``output_flag`` and ``log_to_console``
off unless ``verbose=True``; :func:`new` builds a silent object.  cvxpy's
HiGHS interface passes ``log_to_console = verbose`` (default False).
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager


@contextmanager
def stdout_fd_to(target_fd: int | None = None):
    """Point file descriptor 1 at ``target_fd`` (default ``/dev/null``) for the block, then restore it.

    Flushes Python's ``sys.stdout`` before and after so nothing buffered moves.
    Does nothing (yields) if descriptor 1 cannot be duplicated (e.g. no real stdout).
    """
    try:
        sys.stdout.flush()
    except (AttributeError, ValueError, OSError):
        pass
    try:
        saved = os.dup(1)
    except OSError:
        yield
        return
    devnull = None
    try:
        if target_fd is None:
            devnull = os.open(os.devnull, os.O_WRONLY)
            target_fd = devnull
        os.dup2(target_fd, 1)
        yield
    finally:
        try:
            sys.stdout.flush()
        except (AttributeError, ValueError, OSError):
            pass
        os.dup2(saved, 1)
        os.close(saved)
        if devnull is not None:
            os.close(devnull)


_BANNER_SPENT = False


def _swallow_banner() -> None:
    """Build the process's first ``Highs`` object with descriptor 1 silenced (prints the banner nowhere)."""
    global _BANNER_SPENT
    if _BANNER_SPENT:
        return
    try:
        import highspy as hp
    except ImportError:  # pragma: no cover - highspy is a dependency
        return
    with stdout_fd_to(None):
        h = hp.Highs()
        h.setOptionValue("output_flag", False)
    _BANNER_SPENT = True


def quiet(h, verbose: bool = False):
    """Switch HiGHS's console output on ``h`` off (or on with ``verbose=True``); returns ``h``."""
    h.setOptionValue("output_flag", bool(verbose))
    h.setOptionValue("log_to_console", bool(verbose))
    return h


def new(verbose: bool = False):
    """A ``highspy.Highs`` object that prints nothing (unless ``verbose``)."""
    import highspy as hp

    _swallow_banner()
    return quiet(hp.Highs(), verbose)


def run(h, verbose: bool | None = None) -> object:
    """``h.run()`` with the global thread pool reset before and after; returns its status.

    Silent unless asked: ``verbose=True``, or ``verbose=None`` (default) with the
    environment variable ``KVLIB_HIGHS_LOG=1``, lets HiGHS print its log (to
    descriptor 1, as HiGHS always does).  Any ``output_flag`` the caller set is
    overridden, so no kvlib solve prints by accident.
    """
    import highspy as hp

    if verbose is None:
        verbose = os.environ.get("KVLIB_HIGHS_LOG", "") not in ("", "0")
    quiet(h, verbose)
    hp.Highs.resetGlobalScheduler(True)
    try:
        return h.run()
    finally:
        hp.Highs.resetGlobalScheduler(True)


_swallow_banner()
