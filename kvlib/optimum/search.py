"""Primal search for the hindsight optimum of 001 Section 3 (ours): good schedules, fast.

The exact pipeline (:mod:`kvlib.optimum.pipeline`) proves lower bounds; at the size of 001
Section 5.1 (40-60 requests) it cannot close the gap, and the upper end of its interval is only
as good as the best schedule found.  This module searches for better schedules.  Every schedule
it returns, and every improvement it records, is validated by the independent checker
(:func:`kvlib.core.checker.check_schedule`).

Two neighbourhoods, alternated:

* **List scheduling with local search.**  A *serial schedule generator* turns a priority list of
  requests into a schedule: each request, in list order, starts at its earliest round at or after
  its arrival at which it fits on top of those already placed (memory ``s_i + j`` in its ``j``-th
  round, 001 Section 2).  The search moves requests in the list (insert one elsewhere, swap two,
  move a block), accepts a move when the TEL does not grow, and restarts from a perturbed best list
  when it stalls (iterated local search).  Seeds: the start orders of the policies'
  schedules and a few sorting rules.  A list is decoded incrementally: the memory profile after
  every list position is kept, so a move at position ``k`` re-places positions ``k..n-1`` only,
  and a decode stops as soon as its partial TEL exceeds the one to beat.
* **Large-neighbourhood search with CP-SAT.**  A window of the best schedule (the requests that
  start in an interval of rounds, at most ``window`` of them) is freed, every other request stays
  where it is, and an exact time-indexed model re-optimises the freed starts inside the interval
  (one Boolean per request and start; one memory row per round).  A better window solution is a
  better schedule.  CP-SAT runs with one worker and a *deterministic* time limit, so a search with
  the same arguments returns the same schedule on every machine (unless the wall-clock
  ``time_limit`` stops it first; the result says so).

Why both: the generator only builds schedules in which no request can start earlier on its own
(given the ones before it in the list); optimal schedules need not be of that kind when memory
grows during a run, and the windows reach the others.  Measured in ``benchmarks/primal_search.py``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from kvlib.core.checker import check_schedule
from kvlib.core.model import Instance, Schedule

__all__ = ["ListScheduler", "SearchResult", "primal_search", "window_reoptimise", "SEED_POLICIES"]

#: the list search is skipped (the seeds' best is returned, ``stopped_by="horizon"``) when its profile would
#: span more than this many rounds (``max a + sum o``) ...
SEARCH_MAX_SPAN = 2_000_000
#: ... or when (that span) x (longest output), the size of one placement's window scan, exceeds this
SEARCH_MAX_WORK = 500_000_000

#: policies whose schedules (and start orders) seed the search
SEED_POLICIES = ("mc-sf", "mc-sf2", "mc-benchmark", "fcfs")


class ListScheduler:
    """Serial schedule generator for one instance: priority list -> earliest-fit schedule.

    ``decode(order)`` returns ``(starts, tel)``; :meth:`decode_from` re-places the list from a
    position on, reusing the memory profile kept for the positions before it.
    """

    def __init__(self, instance: Instance):
        self.instance = instance
        self.n = int(instance.n)
        self.a = [int(x) for x in instance.arrival]
        self.s = [int(x) for x in instance.prompt]
        self.o = [int(x) for x in instance.output]
        self.M = int(instance.memory)
        self.cap = [self.M - si for si in self.s]
        # a request placed after every other one has finished always fits (s + o <= M), so no
        # schedule of the generator ends after max(a) + sum(o)
        self.size = max(self.a) + sum(self.o) + 2
        # W[x] = usage[x] + x: request i fits at start p iff max(W[p+1 .. p+o]) - p <= M - s_i
        self.ramp = np.arange(self.size, dtype=np.int64)
        self.prof = [np.arange(1, oi + 1, dtype=np.int64) for oi in self.o]
        self.lat0 = [oi - ai for oi, ai in zip(self.o, self.a)]  # latency = start + o - a

    def place(self, W: np.ndarray, end: int, i: int) -> int:
        """Earliest feasible start of request ``i`` on the profile ``W`` (usage + time) whose
        requests all end by round ``end``."""
        a, o = self.a[i], self.o[i]
        hi = max(a, end)
        if hi == a:
            return a
        # the windows W[p+1 .. p+o] for p = a .. hi, as a strided view of W (W is contiguous)
        win = np.ndarray((hi - a + 1, o), dtype=np.int64, buffer=W, offset=8 * (a + 1), strides=(8, 8)).max(axis=1)
        ok = win - self.ramp[a: hi + 1] <= self.cap[i]
        return a + int(ok.argmax())  # ok[-1] holds: nothing runs after ``end``

    def empty(self):
        return self.ramp.copy(), 0, 0

    def decode_from(self, order, k0: int, state, starts: np.ndarray, cutoff: float = np.inf,
                    keep: list | None = None):
        """Place ``order[k0:]`` on ``state = (W, end, tel)`` (not modified); fills ``starts``.

        Returns the TEL, or ``None`` as soon as the partial TEL exceeds ``cutoff``.  With ``keep``
        a list, the state *before* each position ``k0, k0 + 1, ...`` is appended to it.
        """
        W, end, tel = state
        W = W.copy()
        o, s, lat0, prof = self.o, self.s, self.lat0, self.prof
        for k in range(k0, len(order)):
            if keep is not None:
                keep.append((W.copy(), end, tel))
            i = order[k]
            p = self.place(W, end, i)
            W[p + 1: p + o[i] + 1] += prof[i] + s[i]
            starts[i] = p
            tel += p + lat0[i]
            if tel > cutoff:
                return None
            if p + o[i] > end:
                end = p + o[i]
        return tel

    def decode(self, order) -> tuple[np.ndarray, int]:
        starts = np.zeros(self.n, dtype=np.int64)
        tel = self.decode_from(order, 0, self.empty(), starts)
        return starts, int(tel)


@dataclass
class SearchResult:
    """Outcome of :func:`primal_search`."""

    starts: np.ndarray  #: start times of the best schedule (validated by the checker)
    tel: int  #: its TEL, as recomputed by the checker
    source: str  #: what produced it: a seed, ``"list search"`` or ``"window search"``
    seed_tel: int  #: best TEL among the seeds (the policies' schedules and the seed lists)
    seconds: float  #: wall time
    evaluations: int  #: list decodes
    windows: int  #: CP-SAT windows solved
    window_improvements: int  #: windows that improved the best schedule
    stopped_by: str  #: ``"budget"`` (deterministic), ``"time limit"`` (wall clock), ``"patience"`` or ``"horizon"``
    history: list = field(default_factory=list)  #: ``(seconds, tel, source)`` at every improvement


class _ListSearch:
    """Iterated local search over priority lists (state kept between calls of :meth:`run`)."""

    def __init__(self, ls: ListScheduler, rng: np.random.Generator, order):
        self.ls, self.rng = ls, rng
        self.set_order(order)

    def set_order(self, order):
        self.order = list(order)
        self.starts = np.zeros(self.ls.n, dtype=np.int64)
        self.snaps: list = []
        self.tel = self.ls.decode_from(self.order, 0, self.ls.empty(), self.starts, keep=self.snaps)
        self.best_order, self.best_tel, self.best_starts = list(self.order), self.tel, self.starts.copy()

    def _move(self):
        n, rng = self.ls.n, self.rng
        order = self.order
        kind = rng.random()
        if kind < 0.45:  # insert one request elsewhere
            i, j = (int(x) for x in rng.integers(0, n, 2))
            if i == j:
                return None
            new = order[:i] + order[i + 1:]
            new.insert(j, order[i])
            return new, min(i, j)
        if kind < 0.7:  # swap neighbours
            i = int(rng.integers(0, n - 1))
            new = list(order)
            new[i], new[i + 1] = new[i + 1], new[i]
            return new, i
        if kind < 0.85:  # swap two requests at most 8 positions apart
            i = int(rng.integers(0, n - 1))
            j = min(n - 1, i + 1 + int(rng.integers(0, 8)))
            new = list(order)
            new[i], new[j] = new[j], new[i]
            return new, i
        # move a block of 2-6 consecutive requests
        b = int(rng.integers(2, 7))
        if b >= n:
            return None
        i = int(rng.integers(0, n - b + 1))
        block = order[i: i + b]
        rest = order[:i] + order[i + b:]
        j = int(rng.integers(0, len(rest) + 1))
        if j == i:
            return None
        new = rest[:j] + block + rest[j:]
        return new, min(i, j)

    def run(self, evaluations: int, deadline: float, stall: int) -> tuple[int, bool]:
        """At most ``evaluations`` decodes (or until ``deadline``); returns (used, hit_deadline)."""
        ls = self.ls
        if ls.n < 2:  # one request: its list has one order
            return 0, False
        used = since = 0
        starts = np.empty(ls.n, dtype=np.int64)
        while used < evaluations:
            if used % 64 == 0 and time.perf_counter() > deadline:
                return used, True
            mv = self._move()
            if mv is None:
                continue
            new, k0 = mv
            used += 1
            since += 1
            starts[:] = self.starts
            keep: list = []
            tel = ls.decode_from(new, k0, self.snaps[k0], starts, cutoff=self.tel, keep=keep)
            if tel is not None:  # not worse: accept (plateau moves included)
                self.order, self.tel = new, tel
                self.starts[:] = starts
                self.snaps[k0:] = keep
                if tel < self.best_tel:
                    self.best_order, self.best_tel, self.best_starts = list(new), tel, starts.copy()
                    since = 0
            if since >= stall:  # perturb the best list and go on from there
                new = list(self.best_order)
                for _ in range(int(self.rng.integers(2, 6))):
                    i, j = (int(x) for x in self.rng.integers(0, ls.n, 2))
                    new.insert(j, new.pop(i))
                self.order = new
                self.starts = np.zeros(ls.n, dtype=np.int64)
                self.snaps = []
                self.tel = ls.decode_from(new, 0, ls.empty(), self.starts, keep=self.snaps)
                used += 1
                since = 0
        return used, False


def window_reoptimise(instance: Instance, starts, free, lo: int, hi: int, *, deterministic_time: float = 0.5,
                      wall_limit: float = 5.0, seed: int = 0):
    """Re-optimise the starts of the requests ``free`` inside rounds ``[lo, hi]``, all others fixed.

    Exact time-indexed CP-SAT model (one Boolean per freed request and start ``p`` with
    ``max(a_i, lo) <= p <= hi``; one memory row per round).  ``starts`` must be feasible and put
    every freed request inside ``[lo, hi]`` (it is the hint, so the model is feasible).  Returns
    ``(new_starts, status)``; ``new_starts`` is ``None`` unless a strictly better window was found.
    """
    from ortools.sat.python import cp_model

    a = [int(x) for x in instance.arrival]
    s = [int(x) for x in instance.prompt]
    o = [int(x) for x in instance.output]
    M = int(instance.memory)
    free = [int(i) for i in free]
    fset = set(free)
    top = hi + max(o[i] for i in free)
    # memory of the fixed requests on rounds lo+1 .. top
    F = np.zeros(top - lo + 1, dtype=np.int64)  # F[x - lo]
    for j in range(instance.n):
        if j in fset:
            continue
        p, oj = int(starts[j]), o[j]
        x0, x1 = max(p + 1, lo + 1), min(p + oj, top)
        if x0 <= x1:
            F[x0 - lo: x1 - lo + 1] += s[j] + np.arange(x0 - p, x1 - p + 1)
    m = cp_model.CpModel()
    rows: dict[int, tuple[list, list]] = {}
    obj_v, obj_c = [], []
    hint = {}
    for i in free:
        vs = []
        for p in range(max(a[i], lo), hi + 1):
            v = m.NewBoolVar(f"y{i}_{p}")
            vs.append(v)
            obj_v.append(v)
            obj_c.append(p)
            for x in range(p + 1, p + o[i] + 1):
                r = rows.setdefault(x, ([], []))
                r[0].append(v)
                r[1].append(s[i] + x - p)
            hint[v] = int(p == int(starts[i]))
        m.AddExactlyOne(vs)
    for x, (vs, cs) in rows.items():
        cap = M - int(F[x - lo])
        # the freed requests hold at most one start each: skip rows that cannot bind
        if sum(sorted(cs, reverse=True)[: len(free)]) <= cap:
            continue
        m.Add(cp_model.LinearExpr.WeightedSum(vs, cs) <= cap)
    current = sum(int(starts[i]) for i in free)
    m.Add(cp_model.LinearExpr.WeightedSum(obj_v, obj_c) <= current - 1)
    m.Minimize(cp_model.LinearExpr.WeightedSum(obj_v, obj_c))
    for v, h in hint.items():
        m.AddHint(v, h)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = int(seed)
    solver.parameters.max_deterministic_time = float(deterministic_time)
    solver.parameters.max_time_in_seconds = float(wall_limit)
    st = solver.Solve(m)
    name = solver.StatusName(st)
    if st not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None, name
    new = np.array(starts, dtype=np.int64)
    # read the chosen start of every freed request
    k = 0
    for i in free:
        n_p = hi + 1 - max(a[i], lo)
        vals = [solver.Value(v) for v in obj_v[k: k + n_p]]
        new[i] = max(a[i], lo) + vals.index(1)
        k += n_p
    return new, name


def _seed_orders(instance: Instance, ls: ListScheduler, policy_starts: dict) -> dict:
    a, s, o = np.asarray(instance.arrival), np.asarray(instance.prompt), np.asarray(instance.output)
    idx = np.arange(instance.n)
    orders = {f"{name} order": list(np.lexsort((idx, st))) for name, st in policy_starts.items()}
    orders["shortest output first"] = list(np.lexsort((idx, s, o, a)))
    orders["smallest peak first"] = list(np.lexsort((idx, o, s + o, a)))
    orders["smallest area first"] = list(np.lexsort((idx, o, o * (2 * s + o + 1), a)))
    return {k: [int(x) for x in v] for k, v in orders.items()}


def primal_search(instance: Instance, *, evaluations: int | None = 20_000, windows: int | None = 60, window: int = 10,
                  window_time: float = 0.5, time_limit: float | None = None, seed: int = 0,
                  incumbent=None, patience: int | None = None) -> SearchResult:
    """Best schedule found by list scheduling with local search and CP-SAT window search.

    Budget: at most ``evaluations`` list decodes and ``windows`` CP-SAT windows (each with
    ``window_time`` units of CP-SAT's deterministic time and at most ``window`` freed requests);
    with these alone the result depends only on the arguments.  ``time_limit`` (seconds) stops the
    search earlier by the wall clock (``stopped_by`` then says ``"time limit"``); with
    ``evaluations=None`` and ``windows=None`` the wall clock alone stops it (rounds of 2,000 decodes
    and 10 windows).  ``patience``: stop after this many rounds in a row (a round: list search, then
    windows) that did not improve the best schedule (``stopped_by`` then says ``"patience"``).
    ``incumbent``:
    start times of a known feasible schedule, used as one more seed (checked).  ``seed`` drives
    every random choice.
    """
    from kvlib.core.simulate import simulate
    from kvlib.policies import make_policy

    unlimited = evaluations is None and windows is None
    if unlimited and time_limit is None:
        raise ValueError("primal_search: give a budget (evaluations, windows) or a time_limit")
    if (evaluations is None) != (windows is None):
        raise ValueError("primal_search: evaluations and windows are both None (run until time_limit) or both given")
    if not unlimited and (int(evaluations) < 0 or int(windows) < 0):
        raise ValueError(f"primal_search: evaluations and windows must be >= 0, got {evaluations} and {windows}")
    if patience is not None and int(patience) < 1:
        raise ValueError(f"primal_search: patience must be >= 1 rounds, got {patience}")
    if int(window) < 1 or float(window_time) <= 0:
        raise ValueError(f"primal_search: window must be >= 1 and window_time > 0, got {window} and {window_time}")
    t0 = time.perf_counter()
    deadline = np.inf if time_limit is None else t0 + float(time_limit)
    rng = np.random.default_rng([int(seed), 37])
    best = {"tel": None, "starts": None, "source": ""}
    history: list = []

    def offer(starts, source):
        st = np.asarray(starts, dtype=np.int64)
        if best["tel"] is not None and _tel(instance, st) >= best["tel"]:
            return False
        rep = check_schedule(instance, Schedule(tuple(int(x) for x in st)))
        if not rep.valid:
            raise AssertionError(f"primal search: a {source} schedule was rejected by the checker: "
                                 f"{rep.violations[:2]}")
        if best["tel"] is None or rep.tel < best["tel"]:
            best.update(tel=int(rep.tel), starts=st.copy(), source=source)
            history.append((time.perf_counter() - t0, int(rep.tel), source))
            return True
        return False

    pol = {}
    for name in SEED_POLICIES:
        pol[name] = simulate(instance, make_policy(name), seed=0).schedule.start_array()
        offer(pol[name], name)
    if incumbent is not None:
        try:
            inc = Schedule(tuple(int(x) for x in incumbent))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"primal_search: incumbent must be one integer start per request: {exc}") from None
        rep = check_schedule(instance, inc)
        if not rep.valid:
            raise ValueError(f"primal_search: the given incumbent is not a feasible schedule: {rep.violations[:2]}")
        offer(incumbent, "given incumbent")
        pol["given incumbent"] = np.asarray(incumbent, dtype=np.int64)
    span = int(instance.arrival.max()) + int(instance.output.sum()) + 2
    if span > SEARCH_MAX_SPAN or span * int(instance.output.max()) > SEARCH_MAX_WORK:
        # the generator's profile spans max(a) + sum(o) rounds: keep the seeds' best
        return SearchResult(starts=best["starts"], tel=int(best["tel"]), source=best["source"],
                            seed_tel=int(best["tel"]), seconds=time.perf_counter() - t0, evaluations=0, windows=0,
                            window_improvements=0, stopped_by="horizon", history=history)
    ls = ListScheduler(instance)
    orders = _seed_orders(instance, ls, pol)
    seed_best = None
    for name, order in orders.items():
        st, tel = ls.decode(order)
        offer(st, name)
        if seed_best is None or tel < seed_best[0]:
            seed_best = (tel, order)
    seed_tel = int(best["tel"])
    search = _ListSearch(ls, rng, seed_best[1])
    stall = 200 + 10 * ls.n
    used = done_windows = improved_windows = 0
    size = min(int(window), ls.n)
    stopped = "budget"
    # alternate: list search, then windows over the best schedule; a window improvement restarts
    # the list search from the improved schedule's start order
    if unlimited:
        rounds, per_round_evals, per_round_windows = 10**12, 2000, 10
        evaluations = windows = 10**15
    else:
        rounds = max(1, windows // 10) if windows else 1
        per_round_evals = max(1, evaluations // rounds)
        per_round_windows = windows // rounds if windows else 0
    idle = 0
    for r in range(rounds):
        tel_before = best["tel"]
        budget = per_round_evals if r < rounds - 1 else evaluations - used
        u, hit = search.run(budget, deadline, stall)
        used += u
        offer(search.best_starts, "list search")
        if hit:
            stopped = "time limit"
            break
        nw = per_round_windows if r < rounds - 1 else windows - done_windows
        improved_here = False
        for _ in range(nw):
            if time.perf_counter() > deadline:
                stopped = "time limit"
                break
            cur = best["starts"]
            free, lo, hi = _pick_window(instance, cur, size, rng)
            # a wall-clock cap far above the deterministic limit: only a stalled machine reaches it
            wall = max(0.05, min(20.0 * window_time + 5.0, deadline - time.perf_counter()))
            new, status = window_reoptimise(instance, cur, free, lo, hi, deterministic_time=window_time,
                                            wall_limit=wall, seed=int(rng.integers(0, 2**31 - 1)))
            done_windows += 1
            # windows solved to optimality grow, windows cut by the limit shrink
            size = min(ls.n, size + 2) if status in ("OPTIMAL", "INFEASIBLE") else max(4, size - 1)
            if new is not None and offer(new, "window search"):
                improved_windows += 1
                improved_here = True
        if stopped == "time limit":
            break
        if improved_here:
            order = [int(x) for x in np.lexsort((np.arange(ls.n), best["starts"]))]
            search.set_order(order)
            used += 1
        idle = idle + 1 if best["tel"] >= tel_before else 0
        if patience is not None and idle >= int(patience) and r < rounds - 1:
            stopped = "patience"
            break
    return SearchResult(starts=best["starts"], tel=int(best["tel"]), source=best["source"], seed_tel=seed_tel,
                        seconds=time.perf_counter() - t0, evaluations=used, windows=done_windows,
                        window_improvements=improved_windows, stopped_by=stopped, history=history)


def _tel(instance: Instance, starts: np.ndarray) -> int:
    return int(np.sum(starts + instance.output - instance.arrival))


def _pick_window(instance: Instance, starts: np.ndarray, size: int, rng: np.random.Generator):
    """``size`` requests consecutive in start order, at a random place, and the rounds they span
    (widened by a few rounds on each side)."""
    n = instance.n
    order = np.lexsort((np.arange(n), starts))
    k = min(size, n)
    i = int(rng.integers(0, n - k + 1))
    free = [int(x) for x in order[i: i + k]]
    lo = int(starts[free[0]])
    hi = int(starts[free[-1]])
    pad = int(rng.integers(0, 4))
    lo = max(0, lo - pad)
    hi = hi + pad
    # requests of the window that were not chosen but start inside [lo, hi] stay fixed
    return free, lo, hi
