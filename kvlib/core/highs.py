"""Running HiGHS (``highspy``) safely from several places in one process.

HiGHS keeps one global thread pool per process.  A ``run()`` whose ``threads``
option differs from the pool's (including solves made by other libraries, e.g.
through cvxpy) fails without raising: the model status stays "Not Set" or the
MIP stops with no dual bound.  Every kvlib solve therefore goes through
:func:`run`, which resets the pool before the run and again after it, so that
it neither depends on nor leaves behind another caller's pool.
"""

from __future__ import annotations


def run(h) -> object:
    """``h.run()`` with the global thread pool reset before and after; returns its status."""
    import highspy as hp

    hp.Highs.resetGlobalScheduler(True)
    try:
        return h.run()
    finally:
        hp.Highs.resetGlobalScheduler(True)
