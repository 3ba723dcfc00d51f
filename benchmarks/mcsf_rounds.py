"""Rounds per second of MC-SF at M = 16,492 (001 Proposition 4.2), fast vs naive look-ahead.

The fast policy is ``kvlib``'s MC-SF (check-point profile, ``kvlib.core.lookahead.FutureMemory``).
The naive one applies the same rule (longest prefix by ``o`` keeping eq. (5)) but rebuilds
the whole future memory profile of running + candidate requests for every tested prefix
(``kvlib.core.lookahead.naive_fits``).  Both run on the same seeded instance with requests of
LMSYS-like sizes (log-normal prompt/output, means about 41 and 85 tokens, clipped) arriving
as a Poisson stream, so that hundreds of requests run concurrently.

Usage: python benchmarks/mcsf_rounds.py [--n 3000] [--naive-n 600] [--rate 20] [--seed 0]
"""

from __future__ import annotations

import argparse
import heapq
import time

import numpy as np

from kvlib import Instance, check_schedule, make_policy, simulate
from kvlib.core.lookahead import naive_fits
from kvlib.policies import Decision, LookaheadPrefix, Running, by_output

M = 16_492


def workload(n: int, rate: float, seed: int) -> Instance:
    rng = np.random.default_rng(seed)
    s = np.clip(np.round(rng.lognormal(np.log(12), 1.4, n)), 1, 2000).astype(int)
    o = np.clip(np.round(rng.lognormal(np.log(45), 1.1, n)), 1, 2000).astype(int)
    a = np.floor(np.cumsum(rng.exponential(1 / rate, n))).astype(int)
    return Instance.from_arrays(a, s, o, M)


class NaiveMCSF(LookaheadPrefix):
    """Same rule as MC-SF; eq. (5) evaluated naively over every future time."""

    def __init__(self) -> None:
        super().__init__(by_output, "mc-sf-naive")

    def decide(self, t: int, running: Running) -> Decision:
        c = self.ctx
        ids = running.ids
        s_run, p_run = c.prompt[ids], running.starts
        e_run = p_run + c.output[ids]
        chosen: list[int] = []
        while self._heap:
            i = self._heap[0][-1]
            cand = np.array(chosen + [i])
            if not naive_fits(t, c.memory, s_run, p_run, e_run, c.prompt[cand], c.output[cand]):
                break
            heapq.heappop(self._heap)
            chosen.append(i)
        return Decision(start=chosen)


def run(inst: Instance, policy) -> tuple[float, int, object]:
    tic = time.perf_counter()
    res = simulate(inst, policy)
    wall = time.perf_counter() - tic
    return wall, res.rounds_decided, res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=3000)
    ap.add_argument("--naive-n", type=int, default=600)
    ap.add_argument("--rate", type=float, default=20.0, help="arrivals per round")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    print(f"M = {M}, LMSYS-like sizes, Poisson arrivals at {args.rate}/round, seed {args.seed}")
    print(f"{'policy':<14}{'n':>7}{'rounds':>9}{'wall s':>9}{'rounds/s':>11}{'decide ms/round':>17}{'max running':>13}")
    for n in (args.naive_n, args.n):
        inst = workload(n, args.rate, args.seed)
        wall, rounds, res = run(inst, make_policy("mc-sf"))
        assert check_schedule(inst, res.schedule).valid
        conc = _max_running(inst, res.schedule.starts)
        print(f"{'mc-sf (fast)':<14}{n:>7}{rounds:>9}{wall:>9.2f}{rounds / wall:>11.0f}"
              f"{1e3 * res.decision_seconds / rounds:>17.3f}{conc:>13}")
        if n == args.naive_n:
            wall_n, rounds_n, res_n = run(inst, NaiveMCSF())
            same = res_n.schedule.starts == res.schedule.starts
            print(f"{'mc-sf (naive)':<14}{n:>7}{rounds_n:>9}{wall_n:>9.2f}{rounds_n / wall_n:>11.0f}"
                  f"{1e3 * res_n.decision_seconds / rounds_n:>17.3f}{conc:>13}   same schedule: {same}")
            print(f"speed-up of the fast look-ahead on n = {n}: {wall_n / wall:.1f}x")
    inst = workload(10_000, args.rate, args.seed)
    wall, rounds, res = run(inst, make_policy("mc-sf"))
    print(f"n = 10,000 at M = {M}: {wall:.2f} s for {rounds} rounds ({rounds / wall:.0f} rounds/s), "
          f"TEL {res.tel}, peak memory {res.peak_memory}")


def _max_running(inst: Instance, starts) -> int:
    p = np.asarray(starts)
    e = p + inst.output
    ev = np.concatenate([np.stack([p + 1, np.ones_like(p)], 1), np.stack([e + 1, -np.ones_like(p)], 1)])
    ev = ev[np.lexsort((ev[:, 1], ev[:, 0]))]
    return int(np.cumsum(ev[:, 1]).max())


if __name__ == "__main__":
    main()
