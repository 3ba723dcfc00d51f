"""Regression tests for bugs found while building the book."""

from kvlib import Instance
from kvlib.optimum.exact import solve


def test_exact_solve_after_a_cvxpy_highs_solve():
    """A HiGHS solve made through cvxpy (as kvlib.policies.wyz_lp does) left HiGHS's global thread pool at another
    size; kvlib.optimum.exact.solve then failed with 'HiGHS error (Not Set)' and a non-optimal interval."""
    import cvxpy as cp

    x = cp.Variable(3)
    cp.Problem(cp.Minimize(cp.sum(x)), [x >= 1]).solve(solver=cp.HIGHS)
    inst = Instance.at_zero([1, 1, 2, 1], [3, 1, 2, 4], 8)
    res = solve(inst, time_limit=20)
    assert res.optimal and res.lower == res.upper, res
    res1 = solve(inst, time_limit=20, threads=1)
    assert res1.optimal and res1.upper == res.upper


def test_engines_reject_illegal_decisions():
    """Both simulators share one decision check: starting a request twice, or one that is running."""
    import pytest

    from kvlib.policies import Decision, Policy
    from kvlib.core.simulate import PolicyError, simulate

    class Twice(Policy):
        name = "twice"

        def reset(self, ctx):
            super().reset(ctx)
            self.w = []

        def on_arrival(self, t, ids):
            self.w += ids.tolist()

        def waiting_count(self):
            return len(self.w)

        def decide(self, t, running):
            return Decision(start=[self.w[0], self.w[0]])

    inst = Instance.at_zero([1, 1], [2, 2], 10)
    with pytest.raises(PolicyError, match="started request 0 at t=0, which is already running"):
        simulate(inst, Twice())
