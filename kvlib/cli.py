"""Command-line interface: ``kvlib simulate`` (and further subcommands as they land)."""

from __future__ import annotations

import argparse
import json
import sys

from kvlib.core.checker import check_schedule
from kvlib.core.model import InstanceError
from kvlib.policies import POLICIES, make_policy
from kvlib.core.simulate import PolicyError, SimulationStalled, simulate
from kvlib.core.traces import read_request_table


def _policy_list() -> str:
    width = max(len(k) for k in POLICIES)
    return "\n".join(f"  {k:<{width}}  {desc}" for k, (_, desc) in POLICIES.items())


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kvlib",
        description="Scheduling LLM inference under a KV-cache memory limit M (kvbook companion library).",
        epilog="policies:\n" + _policy_list(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sim = sub.add_parser(
        "simulate",
        help="run an online policy on a CSV of requests (columns arrival,prompt,output)",
        description="Run a policy on FILE.csv (header arrival,prompt,output; one integer request per line) "
        "and print TEL, average latency, makespan and peak memory. The schedule is validated by the "
        "independent checker before anything is printed.",
        epilog="policies:\n" + _policy_list(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sim.add_argument("file", metavar="FILE.csv")
    sim.add_argument("--policy", required=True, choices=sorted(POLICIES), metavar="NAME",
                     help="one of: " + ", ".join(POLICIES))
    sim.add_argument("--memory", "-M", required=True, type=int, help="KV-cache limit M in tokens")
    sim.add_argument("--seed", type=int, default=0, help="seed for random tie-breaking / clearing (default 0)")
    sim.add_argument("--tie-break", choices=("index", "random"), default="index",
                     help="break ties by request order (default) or at random from --seed")
    sim.add_argument("--alpha", type=float, default=None, help="protection level for alpha-* policies")
    sim.add_argument("--beta", type=float, default=None, help="clearing probability for alpha-beta-clearing")
    sf = sim.add_argument_group("Sorted-F family (sorted-f, sorted-lp, lp-swap; 002 Algorithms 1-7)")
    sf.add_argument("--selector", choices=("dp", "scaled-dp", "swap", "quantile"), default=None,
                    help="Phase-1 selector of sorted-f: exact DP (Alg. 2, default), scaled DP (Alg. 3), "
                    "local swap search (Alg. 4), quantile greedy (Alg. 5)")
    sf.add_argument("--phase1-constraint", choices=("peak", "lookahead"), default=None,
                    help="Phase-1 memory constraint: sum(s+o) <= M (peak, default) or the batch's look-ahead usage")
    sf.add_argument("--phase2", choices=("prefix", "scan"), default=None,
                    help="Phase 2: longest fitting prefix of the list (default) or scan the whole list")
    sf.add_argument("--epsilon", type=float, default=None, help="scaled-dp: memory unit = floor(epsilon*M) (default 0.05)")
    sf.add_argument("--B", "--batch-cap", dest="B", type=int, default=None, help="scaled-dp: largest batch size")
    sf.add_argument("--samples", type=int, default=None, help="quantile: random orders per quantile (default 4; seeded by --seed)")
    sf.add_argument("--time-step", type=int, default=None, help="sorted-lp/lp-swap: LP start-time grid step (default: automatic)")
    sim.add_argument("--json", action="store_true", help="print a JSON object (tel, avg_latency, makespan, peak_memory, starts)")
    slv = sub.add_parser(
        "solve",
        help="hindsight-optimal TEL of a CSV of requests: certified interval from the time-indexed IP",
        description="Solve the time-indexed integer program of 001 eq. (1)-(4) for FILE.csv with HiGHS and print "
        "a certified interval lower <= OPT <= upper, the best schedule found (validated by the independent "
        "checker) and whether optimality is proved. A time limit never raises: it returns the interval.",
    )
    slv.add_argument("file", metavar="FILE.csv")
    slv.add_argument("--memory", "-M", required=True, type=int, help="KV-cache limit M in tokens")
    slv.add_argument("--time-limit", type=float, default=60.0, help="seconds for the solver (default 60)")
    slv.add_argument("--threads", type=int, default=2, help="solver threads (default 2)")
    slv.add_argument("--formulation", choices=("plain", "aggregated"), default="plain",
                     help="memory constraint written per time (plain) or through running sums (aggregated)")
    slv.add_argument("--json", action="store_true",
                     help="print a JSON object (lower, upper, optimal, starts, seconds, status, gap, ...)")
    return parser


def _fail(msg: str) -> int:
    print(f"kvlib: error: {msg}", file=sys.stderr)
    return 2


def _interval_options(name: str, table) -> dict:
    """003 interval policies: pass the ``lower,upper`` columns (checked: lower <= output <= upper)."""
    from kvlib.policies.cyz import INTERVAL_POLICIES, check_intervals

    if name not in INTERVAL_POLICIES:
        return {}
    missing = [c for c in ("lower", "upper") if c not in table.extra]
    if missing:
        raise InstanceError(
            f"{table.source}: policy {name} needs interval predictions, but column(s) {', '.join(missing)} "
            "are missing (header must contain arrival,prompt,output,lower,upper)"
        )
    lower, upper = table.extra["lower"], table.extra["upper"]
    check_intervals(table.output, lower, upper, lines=table.lines, source=table.source)
    hindsight = bool(getattr(INTERVAL_POLICIES[name], "hindsight", False))
    return {"lower": lower, "upper": upper, "reveal_output": hindsight}


def cmd_simulate(args: argparse.Namespace) -> int:
    if args.memory is not None and args.memory <= 0:
        return _fail(f"--memory must be positive, got {args.memory}")
    try:
        table = read_request_table(args.file)
        inst = table.instance(args.memory)
        interval_kw = _interval_options(args.policy, table)
        policy = make_policy(args.policy, tie_break=args.tie_break, alpha=args.alpha, beta=args.beta,
                             selector=args.selector, phase1_constraint=args.phase1_constraint,
                             phase2=args.phase2, epsilon=args.epsilon, B=args.B, samples=args.samples,
                             time_step=args.time_step, seed=args.seed)
    except (InstanceError, ValueError) as e:
        return _fail(str(e))
    try:
        res = simulate(inst, policy, seed=args.seed, **interval_kw)
    except (PolicyError, SimulationStalled) as e:
        return _fail(str(e))
    report = check_schedule(inst, res.schedule, allow_cancellation=policy.preemptive)
    if not report.valid or report.tel != res.tel:
        return _fail("internal error: the checker rejected the policy's schedule: " + "; ".join(report.violations[:3]))
    out = {
        "policy": res.policy,
        "n": inst.n,
        "memory": inst.memory,
        "tel": res.tel,
        "avg_latency": res.avg_latency,
        "makespan": res.makespan,
        "peak_memory": res.peak_memory,
        "evictions": res.evictions,
        "starts": list(res.schedule.starts),
    }
    if args.json:
        print(json.dumps(out))
    else:
        print(f"policy        {res.policy}")
        print(f"requests      {inst.n}")
        print(f"memory M      {inst.memory}")
        print(f"TEL           {res.tel}")
        print(f"avg latency   {res.avg_latency:.4f}")
        print(f"makespan      {res.makespan}")
        print(f"peak memory   {res.peak_memory}")
        if res.evictions:
            print(f"evictions     {res.evictions}")
        print("checker       schedule valid")
    return 0


def cmd_solve(args: argparse.Namespace) -> int:
    if args.memory <= 0:
        return _fail(f"--memory must be positive, got {args.memory}")
    if args.time_limit <= 0:
        return _fail(f"--time-limit must be positive, got {args.time_limit}")
    try:
        inst = read_request_table(args.file).instance(args.memory)
    except (InstanceError, ValueError) as e:
        return _fail(str(e))
    from kvlib.optimum.exact import solve

    res = solve(inst, time_limit=args.time_limit, threads=args.threads, formulation=args.formulation)
    if args.json:
        print(json.dumps(res.as_dict()))
    else:
        print(f"requests      {inst.n}")
        print(f"memory M      {inst.memory}")
        print(f"lower bound   {res.lower}")
        print(f"upper bound   {res.upper}   (schedule validated by the checker)")
        print(f"optimal       {'yes' if res.optimal else 'no (gap %.2f%%)' % (100 * res.gap)}")
        print(f"solver        HiGHS, status {res.status}, {res.seconds:.2f} s")
        print(f"warm start    {res.incumbent_source} (heuristic TEL {res.incumbent})")
        print("starts        " + " ".join(str(p) for p in res.starts))
    return 0


COMMANDS = {"simulate": cmd_simulate, "solve": cmd_solve}


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    return COMMANDS[args.command](args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
