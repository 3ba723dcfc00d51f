"""The look-ahead memory test of MC-SF (001 eq. (5)) and its fast evaluation.

At decision time ``t`` a set of runs ``(s_i, p_i, e_i = p_i + o_i)`` holds
``sum_i (s_i + t' - p_i) 1{p_i < t' <= e_i}`` tokens at a future time ``t'``.
Between consecutive completion times the set of live runs is fixed and the
usage grows by one token per live run per round, so its maximum over
``t' > t`` is attained at a completion time.  001 eq. (5) therefore checks the
inequality only at the completion times ``t' = e_i`` ("check-points").

:class:`FutureMemory` keeps, for the sorted distinct check-points ``c``, the
usage ``U(c)`` and the number of live runs ``K(c)``.  Adding a candidate
``(s, o)`` started at ``t`` costs ``O(C)`` for ``C`` check-points (at most the
number of running requests, and at most ``max o``), which is the
implementation behind Proposition 4.2's polynomial per-round bound: with
``C <= M`` check-points and at most ``M`` admissions per round it is ``O(M^2)``.

:func:`naive_fits` is the deliberately naive version (full profile over every
future time for every tested prefix); it exists for the benchmark and as a
second, independent implementation for tests.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate

import numpy as np


class FutureMemory:
    """Future memory usage of the running set at its completion times.

    Parameters
    ----------
    t : decision time; runs with ``e_i <= t`` are ignored (already complete).
    memory : the limit ``M``.
    prompt, start, end : arrays over the running requests (``end = start + o``,
        with ``o`` the output length the policy believes).
    """

    __slots__ = ("t", "M", "cps", "U", "K")

    def __init__(self, t: int, memory: int, prompt: np.ndarray, start: np.ndarray, end: np.ndarray) -> None:
        self.t = int(t)
        self.M = int(memory)
        end = np.asarray(end, dtype=np.int64)
        w = np.asarray(prompt, dtype=np.int64) - np.asarray(start, dtype=np.int64)
        live = end > t
        if not live.all():
            end, w = end[live], w[live]
        m = len(end)
        if m == 0:
            self.cps = np.zeros(0, dtype=np.int64)
            self.U = np.zeros(0, dtype=np.int64)
            self.K = np.zeros(0, dtype=np.int64)
            return
        order = end.argsort(kind="stable")
        e = end[order]
        suffix_w = w[order][::-1].cumsum()[::-1]
        new = np.empty(m, dtype=bool)  # first occurrence of each distinct completion time
        new[0] = True
        np.not_equal(e[1:], e[:-1], out=new[1:])
        first = new.nonzero()[0]
        cps = e[first]
        self.cps = cps
        self.K = m - first
        self.U = suffix_w[first] + cps * self.K

    def copy(self) -> "FutureMemory":
        """An independent copy (for trying a request without committing it)."""
        other = FutureMemory.__new__(FutureMemory)
        other.t, other.M = self.t, self.M
        other.cps, other.U, other.K = self.cps.copy(), self.U.copy(), self.K.copy()
        return other

    def peak(self) -> int:
        """Largest future usage of the current set (0 if empty)."""
        return int(self.U.max()) if len(self.U) else 0

    def usage_at(self, time: int) -> int:
        """Usage at a future time ``time > t``."""
        idx = int(np.searchsorted(self.cps, time, side="left"))
        if idx >= len(self.cps):
            return 0
        return int(self.U[idx] - self.K[idx] * (self.cps[idx] - time))

    def fits(self, s: int, o: int) -> bool:
        """Would starting a request ``(s, o)`` at ``t`` keep eq. (5) at every check-point?"""
        c = self.t + o
        cps = self.cps
        idx = int(cps.searchsorted(c, side="right"))
        if idx > 0:
            if int((self.U[:idx] + cps[:idx]).max()) + s - self.t > self.M:
                return False
            if int(cps[idx - 1]) == c:
                return True
        if idx < len(cps):
            u_c = int(self.U[idx]) - int(self.K[idx]) * (int(cps[idx]) - c)
        else:
            u_c = 0
        return u_c + s + o <= self.M

    def add(self, s: int, o: int) -> None:
        """Commit a request ``(s, o)`` started at ``t`` (no feasibility test)."""
        c = self.t + o
        cps = self.cps
        idx = int(cps.searchsorted(c, side="right"))
        if idx == 0 or int(cps[idx - 1]) != c:
            if idx < len(cps):
                k_c = int(self.K[idx])
                u_c = int(self.U[idx]) - k_c * (int(cps[idx]) - c)
            else:
                u_c, k_c = 0, 0
            self.cps = cps = np.concatenate((cps[:idx], np.array((c,), dtype=np.int64), cps[idx:]))
            self.U = np.concatenate((self.U[:idx], np.array((u_c,), dtype=np.int64), self.U[idx:]))
            self.K = np.concatenate((self.K[:idx], np.array((k_c,), dtype=np.int64), self.K[idx:]))
            idx += 1
        self.U[:idx] += cps[:idx] + (s - self.t)
        self.K[:idx] += 1

    def try_add(self, s: int, o: int) -> bool:
        """``fits`` then ``add``; returns whether the request was added."""
        if self.fits(s, o):
            self.add(s, o)
            return True
        return False

    def fits_mask(self, s: np.ndarray, o: np.ndarray) -> np.ndarray:
        """Vectorised :meth:`fits` for many candidates, each tested alone."""
        s = np.asarray(s, dtype=np.int64)
        o = np.asarray(o, dtype=np.int64)
        c = self.t + o
        C = len(self.cps)
        if C == 0:
            return s + o <= self.M
        idx = np.searchsorted(self.cps, c, side="right")
        prefmax = np.maximum.accumulate(self.U + self.cps)
        before = np.where(idx > 0, prefmax[np.maximum(idx - 1, 0)] + s - self.t, -1)
        ok = before <= self.M
        exact = (idx > 0) & (self.cps[np.maximum(idx - 1, 0)] == c)
        j = np.minimum(idx, C - 1)
        u_c = np.where(idx < C, self.U[j] - self.K[j] * (self.cps[j] - c), 0)
        return ok & (exact | (u_c + s + o <= self.M))


class LiveProfile:
    """The check-point profile of :class:`FutureMemory`, kept up to date from one decision time to the
    next instead of rebuilt, in plain Python lists (exact integers; cheaper than NumPy calls at the few
    hundred check-points a worker holds).

    Between decision times the profile changes only by

    * the time moving on: check-points ``c <= t`` leave (:meth:`advance`); the usage ``U(c)`` at a later
      check-point counts only runs still live at ``c``, so a run whose believed completion ``e <= t`` has
      passed changes nothing there;
    * a start (:meth:`add`, as :meth:`FutureMemory.add`);
    * a run completing before its believed completion ``e > t`` (told output lengths longer than the true
      ones): :meth:`remove` takes its ``s + c - p`` off every check-point ``c <= e``.

    Kept per check-point ``c``: ``G(c) = U(c) + c`` (the prefix test of :meth:`FutureMemory.fits` reads
    its running maximum) and ``N(c)``, the runs believed to complete at ``c``; ``K(c)`` is the sum of
    ``N`` from ``c`` on.  A check-point no run ends at any more is dropped, so ``cps``, :attr:`U` and
    :attr:`K` equal what :class:`FutureMemory` builds from the running set, and :meth:`fits` answers as
    :meth:`FutureMemory.fits` (``tests/test_engine_equality.py`` compares both, and the schedules).
    An update costs ``O(C)`` list work for ``C`` check-points; nothing is rebuilt per round.
    """

    __slots__ = ("t", "M", "cps", "G", "N")

    def __init__(self, t: int, memory: int, prompt: np.ndarray, start: np.ndarray, end: np.ndarray) -> None:
        fm = FutureMemory(t, memory, prompt, start, end)
        self.t, self.M = fm.t, fm.M
        self.cps: list[int] = fm.cps.tolist()
        self.G: list[int] = (fm.U + fm.cps).tolist()
        K = fm.K.tolist()
        self.N: list[int] = [k - k_next for k, k_next in zip(K, K[1:] + [0])]

    @property
    def U(self) -> list[int]:
        """Usage at each check-point."""
        return [g - c for g, c in zip(self.G, self.cps)]

    @property
    def K(self) -> list[int]:
        """Live runs at each check-point (those believed to complete there or later)."""
        return list(accumulate(reversed(self.N)))[::-1]

    def frozen(self) -> FutureMemory:
        """An independent :class:`FutureMemory` with the same profile."""
        fm = FutureMemory.__new__(FutureMemory)
        fm.t, fm.M = self.t, self.M
        fm.cps = np.asarray(self.cps, dtype=np.int64)
        fm.U, fm.K = np.asarray(self.U, dtype=np.int64), np.asarray(self.K, dtype=np.int64)
        return fm

    copy = frozen

    def advance(self, t: int) -> None:
        """Move the decision time on to ``t`` (not back): drop the check-points ``<= t``."""
        if t < self.t:
            raise ValueError(f"LiveProfile.advance: time {t} is before the profile's time {self.t}")
        self.t = t
        cps = self.cps
        if cps and cps[0] <= t:
            j = bisect_right(cps, t)
            del cps[:j], self.G[:j], self.N[:j]

    def _usage_from(self, idx: int, c: int) -> tuple[int, int]:
        """Usage and live runs at a time ``c`` with ``cps[idx - 1] < c <= cps[idx]`` (0, 0 past the last)."""
        cps = self.cps
        if idx >= len(cps):
            return 0, 0
        k = sum(self.N[idx:]) if idx else sum(self.N)
        c_next = cps[idx]
        return self.G[idx] - c_next - k * (c_next - c), k

    def fits(self, s: int, o: int) -> bool:
        """:meth:`FutureMemory.fits`: would starting ``(s, o)`` at ``t`` keep eq. (5) at every check-point?"""
        t = self.t
        c = t + o
        cps = self.cps
        idx = bisect_right(cps, c)
        if idx:
            if max(self.G[:idx]) + s - t > self.M:
                return False
            if cps[idx - 1] == c:
                return True
        return self._usage_from(idx, c)[0] + s + o <= self.M

    def add(self, s: int, o: int) -> None:
        """Commit a request ``(s, o)`` started at ``t`` (no feasibility test)."""
        t = self.t
        c = t + o
        cps, G = self.cps, self.G
        idx = bisect_right(cps, c)
        if idx and cps[idx - 1] == c:
            self.N[idx - 1] += 1
        else:
            u_c = self._usage_from(idx, c)[0]
            cps.insert(idx, c)
            G.insert(idx, u_c + c)
            self.N.insert(idx, 1)
            idx += 1
        d = s - t
        G[:idx] = [g + x + d for g, x in zip(G, cps[:idx])]

    def try_add(self, s: int, o: int) -> bool:
        """``fits`` then ``add``; returns whether the request was added."""
        if self.fits(s, o):
            self.add(s, o)
            return True
        return False

    def remove(self, s: int, p: int, e: int) -> None:
        """Take off a run ``(s, started at p, believed to complete at e)`` that completed at ``t < e``."""
        cps, G, N = self.cps, self.G, self.N
        idx = bisect_right(cps, e)
        if idx == 0 or cps[idx - 1] != e:
            raise ValueError(f"LiveProfile.remove: no check-point at the run's completion time {e}")
        d = s - p
        G[:idx] = [g - x - d for g, x in zip(G, cps[:idx])]
        if N[idx - 1] > 1:
            N[idx - 1] -= 1
        else:  # the last run ending there: the check-point goes
            del cps[idx - 1], G[idx - 1], N[idx - 1]


def naive_fits(
    t: int,
    memory: int,
    prompt: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
    new_prompt: np.ndarray,
    new_output: np.ndarray,
) -> bool:
    """Naive eq. (5): build the whole future profile of running + new requests.

    ``O((k + m) * H)`` for ``k`` running, ``m`` new requests and horizon ``H``.
    """
    horizon = int(max(end.max(initial=t), t + (new_output.max() if len(new_output) else 0)))
    times = np.arange(t + 1, horizon + 1)
    usage = np.zeros(len(times), dtype=np.int64)
    for s_i, p_i, e_i in zip(prompt, start, end):
        live = (times > p_i) & (times <= e_i)
        usage += np.where(live, s_i + times - p_i, 0)
    for s_i, o_i in zip(new_prompt, new_output):
        live = times <= t + o_i
        usage += np.where(live, s_i + times - t, 0)
    return bool(usage.max(initial=0) <= memory)


def earliest_fit(fm: FutureMemory, s: int, o: int, until: int) -> int | None:
    """The first time ``t'`` in ``[fm.t + 1, until]`` at which a request ``(s, o)`` would pass
    :meth:`FutureMemory.fits` if the running set stayed as it is (no arrival, no completion, no
    check-point reached: ``until < fm.cps[0]``); ``None`` if there is none.

    Exact, in ``O(C)`` for ``C`` check-points: with ``c = t' + o`` in the segment between the
    check-points ``c_k`` and ``c_(k+1)``, the prefix test reads ``t' >= max_(j<=k) (U_j + c_j) + s - M``
    and the test at ``c`` reads ``t' <= c_(k+1) - o + (M - s - o - U_(k+1)) // K_(k+1)``; at
    ``c = c_k`` only the prefix test applies.  The simulator uses it to jump over rounds in which a
    waiting request cannot start (:meth:`kvlib.policies.base.LookaheadPrefix.idle_until`).
    """
    t0, M = fm.t + 1, fm.M
    if until < t0:
        return None
    if len(fm.cps) and until >= int(fm.cps[0]):
        raise ValueError(f"earliest_fit: until = {until} reaches the first check-point {int(fm.cps[0])}")
    cps = [int(c) for c in fm.cps]
    U = [int(u) for u in fm.U]
    K = [int(k) for k in fm.K]
    C = len(cps)
    pm = None  # max_(j<=k) (U_j + c_j)
    # the candidate times of segment k (the point c = c_k, then c strictly between c_k and c_(k+1))
    # are disjoint and increase with k, so the first one that passes is the earliest
    for k in range(C + 1):
        if k >= 1:
            pm = U[k - 1] + cps[k - 1] if pm is None else max(pm, U[k - 1] + cps[k - 1])
            low_prefix = pm + s - M
            te = cps[k - 1] - o  # c = c_k exactly: only the prefix test
            if te > until:
                return None
            if te >= t0 and te >= low_prefix:
                return te
            lo = max(t0, te + 1, low_prefix)
        else:
            lo = t0
        if k < C:
            hi = min(until, cps[k] - o - 1, cps[k] - o + (M - s - o - U[k]) // K[k])
        elif s + o > M:
            return None
        else:
            hi = until
        if lo <= hi:
            return lo
    return None


def wake_time(fm: FutureMemory, s: int, o: int, until: int) -> int:
    """When a policy whose next start is a request ``(s, o)`` passing :meth:`FutureMemory.fits` should
    next be asked: the first time in ``[fm.t + 1, until]`` at which it fits (:func:`earliest_fit`), with
    ``until`` capped before the first check-point (where the running set, and so the test, changes);
    else one round after that cap."""
    if len(fm.cps):
        until = min(until, int(fm.cps[0]) - 1)
    hit = earliest_fit(fm, s, o, until)
    return until + 1 if hit is None else hit
