"""Run a registered policy on an instance and validate its schedule, for the chapters.

:func:`run_checked` is the one line every chapter uses instead of calling
:func:`kvlib.core.simulate.simulate` directly: the schedule is re-checked by the independent
checker :func:`kvlib.core.checker.check_schedule`, and a disagreement raises an error that
names the policy and the first violations.
"""

from __future__ import annotations

from kvlib.core.checker import check_schedule
from kvlib.core.model import Instance
from kvlib.core.simulate import SimResult, simulate
from kvlib.policies import make_policy


def run_checked(instance: Instance, name: str, **options) -> tuple[SimResult, object]:
    """Simulate the policy ``make_policy(name, **options)`` on ``instance``; return ``(result, policy)``.

    Raises ``AssertionError`` naming the policy if the checker rejects the schedule or finds another TEL.
    """
    pol = make_policy(name, **options)
    res = simulate(instance, pol)
    rep = check_schedule(instance, res.schedule)
    if not rep.valid or rep.tel != res.tel:
        raise AssertionError(f"policy {name!r} {options or ''}: schedule rejected by the checker "
                             f"(TEL {res.tel} vs checked {rep.tel}): {rep.violations[:3]}")
    return res, pol
