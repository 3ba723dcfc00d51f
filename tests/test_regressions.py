"""Regression tests for bugs found while building the book."""

from kvlib import Instance
from kvlib.exact import solve


def test_exact_solve_after_a_cvxpy_highs_solve():
    """A HiGHS solve made through cvxpy (as kvlib.lp does) left HiGHS's global thread pool at another
    size; kvlib.exact.solve then failed with 'HiGHS error (Not Set)' and a non-optimal interval."""
    import cvxpy as cp

    x = cp.Variable(3)
    cp.Problem(cp.Minimize(cp.sum(x)), [x >= 1]).solve(solver=cp.HIGHS)
    inst = Instance.at_zero([1, 1, 2, 1], [3, 1, 2, 4], 8)
    res = solve(inst, time_limit=20)
    assert res.optimal and res.lower == res.upper, res
    res1 = solve(inst, time_limit=20, threads=1)
    assert res1.optimal and res1.upper == res.upper
