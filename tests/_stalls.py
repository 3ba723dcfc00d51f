"""Shared by the tests of 001's clearing baselines (tests/test_core.py, tests/test_jaillet.py)."""


def clearing_loop_expected(name: str, pol, beta: float) -> bool:
    """Whether a :class:`~kvlib.core.simulate.SimulationStalled` of a 001 clearing baseline is a genuine
    clearing loop (the policy keeps evicting what it started), not a bug: full clearing (alpha-greedy,
    or beta = 1); 001's single draw per overflow event once a draw left memory above M
    (``escalations``); the instant redraw re-admitting the requests it just evicted until a draw breaks
    the cycle (``clearings``; e.g. M = 46, alpha = 0.1, beta = 0.5, seed 0 in tests/test_jaillet.py)."""
    return (name == "alpha-greedy" or beta == 1.0
            or (name == "alpha-beta-clearing" and pol.escalations > 0)
            or (name == "alpha-beta-clearing-redraw" and pol.clearings > 0))
