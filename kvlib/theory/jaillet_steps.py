"""Displayed steps of 004's proofs (the first version of 001) evaluated on instances inside their hypotheses.

The errata page names the proofs of 004 Theorem 4.2 (Appendix A.2), Lemmas 5.4-5.6 (Appendix B) and
Theorems 6.2 and 6.4 (Section 6).  :mod:`kvlib.theory.offcouple` and :mod:`kvlib.theory.pause62` build
the objects of Sections 5 and 6; this module adds the steps they do not evaluate, each as a function
returning both sides of the step (exact fractions), so that a test can assert which side is larger.

Conventions (004 Section 3, as in 001): a request started at ``p`` is processed in rounds
``p + 1 .. p + o`` and completes at ``c = p + o``; the proof of Theorem 4.2 calls a request *running* at
``t`` when ``p <= t < c`` (its display ``p_j(S) <= t* < c_j(S)``).

* :func:`thm42_case1` -- Case 1 of the proof of Theorem 4.2: the first time ``t*`` at which MC-SF (the
  paper's A) and a cheaper schedule S run different requests, the requests ``j`` and ``k`` of the
  exchange, and the four lines of the display for the net effect ``Delta``;
* :func:`thm64_remaining_memory` -- the sentence of the proof of Theorem 6.4 on the memory left at
  ``t = k M`` beside the long request started at ``k' M``;
* :func:`lemma55_mean_and_margin` -- the first display of the proof of Lemma 5.5 (the mean number of
  short arrivals) and its last sentence (``lambda C_1`` exceeds ``(1 + 1/T) lambda C_1 F(o_hat)``) for
  ``D = Binomial(B, p)`` and output lengths uniform on ``1..o_max`` (the law of
  :func:`kvlib.theory.offcouple.stochastic_instance`).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from kvlib.core.model import Instance, Schedule, memory_profile
from kvlib.core.simulate import simulate
from kvlib.policies import make_policy

__all__ = ["running", "thm42_case1", "thm64_remaining_memory", "lemma55_mean_and_margin"]


def running(instance: Instance, starts: Sequence[int], t: int) -> frozenset[int]:
    """Requests running at ``t`` in the proof's sense: ``p_i <= t < p_i + o_i``."""
    return frozenset(i for i, p in enumerate(starts) if p <= t < p + int(instance.output[i]))


def thm42_case1(instance: Instance, alt_starts: Sequence[int]) -> dict:
    """Case 1 of the proof of 004 Theorem 4.2 with A = MC-SF (simulated) and S = ``alt_starts``.

    Returns ``t_first`` (the first ``t`` at which the running sets differ, the proof's ``t*``),
    ``j_at_first`` (whether some request runs in S but not in A there, as the proof says),
    ``t_star`` (the first ``t`` at which some request runs in S but not in A), ``j`` (running in S, not
    in A; the longest if several), ``k`` (running in A, not in S; the shortest), the completion and
    start times the display uses, and its four lines

    ``Delta = (c_j(A) - c_j(S)) - (c_k(S) - c_k(A))``  (line 1, the definition)
    ``      = c_k(A) - c_j(S)``                           (line 2: needs ``c_j(A) = c_k(S)``)
    ``      = (p_k(A) + o_k) - (p_j(S) + o_j)``            (line 3)
    ``      = o_k - o_j``                                  (line 4: needs ``p_k(A) = p_j(S)``)

    and ``swap_peak`` -- the largest memory of S with the starts of ``j`` and ``k`` exchanged (the
    exchange the text describes), against ``M``.  ``case`` is 1 when such a ``k`` exists, else 2.
    """
    n = instance.n
    if len(alt_starts) != n:
        raise ValueError(f"alt_starts has {len(alt_starts)} entries for {n} requests")
    if any(int(a) != 0 for a in instance.arrival):
        raise ValueError("004 Theorem 4.2 is about requests that all arrive at t = 0")
    if len(set(int(s) for s in instance.prompt)) != 1:
        raise ValueError("004 Theorem 4.2 assumes one prompt size s")
    A = [int(x) for x in simulate(instance, make_policy("mc-sf")).schedule.starts]
    S = [int(x) for x in alt_starts]
    o = [int(x) for x in instance.output]
    horizon = max(max(a + oo for a, oo in zip(A, o)), max(s + oo for s, oo in zip(S, o)))
    # the proof defines t* as the first time the running sets differ and says that some j then runs in
    # S but not in A; ``t_first`` / ``j_at_first`` record whether that holds.  ``t_star`` is the first
    # time at which such a j exists (the reading under which the proof's cases are defined).
    t_first = next((t for t in range(horizon + 1) if running(instance, S, t) != running(instance, A, t)), None)
    t_star = next((t for t in range(horizon + 1) if running(instance, S, t) - running(instance, A, t)), None)
    if t_star is None or t_first is None:
        raise ValueError("S never runs a request that A does not run at the same time")
    only_S = running(instance, S, t_star) - running(instance, A, t_star)
    only_A = running(instance, A, t_star) - running(instance, S, t_star)
    j = max(only_S, key=lambda i: (o[i], -i))
    out = {"A": A, "S": S, "t_first": t_first,
           "j_at_first": bool(running(instance, S, t_first) - running(instance, A, t_first)),
           "t_star": t_star, "j": j, "case": 1 if only_A else 2}
    if not only_A:
        return out
    k = min(only_A, key=lambda i: (o[i], i))
    cA = [a + oo for a, oo in zip(A, o)]
    cS = [s + oo for s, oo in zip(S, o)]
    swapped = list(S)
    swapped[j], swapped[k] = S[k], S[j]
    peak = int(memory_profile(instance, Schedule(tuple(swapped))).max())
    out.update({"k": k, "o_j": o[j], "o_k": o[k], "c_j(A)": cA[j], "c_j(S)": cS[j], "c_k(A)": cA[k],
                "c_k(S)": cS[k], "p_k(A)": A[k], "p_j(S)": S[j],
                "line1": (cA[j] - cS[j]) - (cS[k] - cA[k]), "line2": cA[k] - cS[j],
                "line3": (A[k] + o[k]) - (S[j] + o[j]), "line4": o[k] - o[j],
                "swapped": swapped, "swap_peak": peak, "swap_fits": peak <= instance.memory})
    return out


def thm64_remaining_memory(M: int, k_inv: int, kp_steps: int, k_steps: int) -> dict:
    """The proof of 004 Theorem 6.4 with ``eps = 1/k_inv``: the long request (prompt ``eps M``, output
    ``(1 - eps) M``) starts at ``k' M`` and the short requests arrive at ``k M``; ``k' = kp_steps * eps``
    and ``k = k' + k_steps * eps`` with ``1 <= k_steps <= k_inv - 2`` (the proof's range of ``k``).

    Returns the memory the long request leaves free at ``t = k M`` (``M - eps M - (k - k') M``), the
    proof's ``(k - k') M`` and its later ``(k' + 1 - k) M``, and the number of short requests (prompt
    ``eps M``, one output token, ``eps M + 1`` tokens each) that fit beside it, against the proof's
    ``(k - k')/eps``.
    """
    if k_inv < 3 or M % k_inv:
        raise ValueError(f"need 1/eps = k_inv >= 3 dividing M, got M = {M}, k_inv = {k_inv}")
    if not 1 <= k_steps <= k_inv - 2:
        raise ValueError(f"k - k' must be one of eps, ..., 1 - 2 eps: k_steps in 1..{k_inv - 2}, got {k_steps}")
    eps = Fraction(1, k_inv)
    kp = kp_steps * eps
    k = kp + k_steps * eps
    eps_M = M // k_inv
    free = M - eps_M - (k - kp) * M
    return {"k'": kp, "k": k, "free": free, "paper_free": (k - kp) * M, "paper_free_later": (kp + 1 - k) * M,
            "fit": int(free // (eps_M + 1)), "paper_fit": (k - kp) / eps}


def lemma55_mean_and_margin(B: int, p: Fraction, o_max: int, o_hat: int, C1: int, T: int) -> dict:
    """The proof of 004 Lemma 5.5 with arrivals ``Binomial(B, p)`` per round (mean ``lambda = B p``) and
    outputs uniform on ``1..o_max``, over a window of ``C1`` rounds.

    ``mean_short``: the exact mean number of arrivals with output *shorter than* ``o_hat``
    (``lambda C1 (o_hat - 1)/o_max``); ``display_mean``: the proof's ``lambda C1 F(o_hat)`` with
    ``F`` the cumulative distribution function (``F(o_hat) = o_hat / o_max``); ``processed``: the
    proof's ``lambda C1`` (requests processed in the window); ``threshold``: ``(1 + 1/T) lambda C1
    F(o_hat)``; ``margin_holds``: whether ``processed`` exceeds ``threshold``, the proof's last step.
    """
    if not (0 < p <= 1 and 1 <= o_hat <= o_max and B >= 1 and C1 >= 1 and T >= 1):
        raise ValueError(f"bad parameters B={B}, p={p}, o_max={o_max}, o_hat={o_hat}, C1={C1}, T={T}")
    lam = B * Fraction(p)
    F = Fraction(o_hat, o_max)
    thr = (1 + Fraction(1, T)) * lam * C1 * F
    return {"lambda": lam, "mean_short": lam * C1 * Fraction(o_hat - 1, o_max), "display_mean": lam * C1 * F,
            "processed": lam * C1, "threshold": thr, "margin_holds": lam * C1 > thr}


def _self_check() -> None:  # pragma: no cover - quick manual check
    inst = Instance.at_zero([1, 1, 1, 1], [1, 1, 3, 3], 5)
    print(thm42_case1(inst, [0, 1, 0, 3]))
    print(thm64_remaining_memory(1000, 10, 8, 1))
    print(lemma55_mean_and_margin(2, Fraction(1, 2), 4, 4, 3, 10))



if __name__ == "__main__":  # pragma: no cover
    _self_check()
