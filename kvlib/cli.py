"""Command-line interface: ``kvlib simulate``, ``kvlib solve``, ``kvlib convert``, ``kvlib batchtime`` and
``kvlib profile``.

Streams: results go to stdout; messages, warnings and progress bars to stderr.
With ``--json`` stdout carries exactly one JSON document: while the command
runs, file descriptor 1 is pointed at stderr, so nothing a library prints
(e.g. a solver's banner or log) can reach stdout before the document.

Output files (``--schedule-out``, ``--out``) are checked before any work (the input under any name, by
device and inode; a directory; ``new/``; a missing directory; a name too long; what ``>`` would refuse: a
file or a directory this user may not write) and written atomically through
:func:`kvlib.fileio.atomic_write_text` (a writable file in a read-only directory is written in place, as
``>`` would, with a note on stderr); ``-``, ``/dev/stdout`` or the file stdout is redirected to mean
standard output (taken before descriptor 1 is redirected), other devices are written directly.

Exit codes (also in ``kvlib --help``): see :data:`EXIT_CODES`.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import json
import math
import os
import sys
import time

EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_BAD_INPUT = 2
EXIT_NO_CERTIFICATE = 3
EXIT_ROUND_LIMIT = 4
EXIT_INTERRUPTED = 130

EXIT_CODES = {
    EXIT_OK: "success (solve: optimality proved)",
    EXIT_INTERNAL: "internal error (a policy broke the model, or the checker rejected a schedule): a kvlib bug, "
                   "please report it with the input",
    EXIT_BAD_INPUT: "bad input: unreadable or malformed file, invalid option, or a request that can never run "
                    "(the message names file, line, column, request or option)",
    EXIT_NO_CERTIFICATE: "solve: the solver gave no optimality certificate within --time-limit (the certified "
                         "interval lower <= OPT <= upper and the best schedule are still printed)",
    EXIT_ROUND_LIMIT: "simulate: the run reached --max-rounds, or --stall-rounds rounds passed without a "
                      "completion (a clearing loop), before every request finished",
    EXIT_INTERRUPTED: "interrupted (Ctrl-C)",
}

#: Progress bars are shown only for at least this many requests (and only when stderr is a terminal):
#: simulate counts completed requests, solve counts seconds of its time limit.
PROGRESS_MIN_REQUESTS = 1000
PROGRESS_MIN_REQUESTS_SOLVE = 30

#: ``--samples`` above this is refused unless ``--force`` (each sample is one pass over the waiting requests per
#: quantile and per Phase-1 batch: 1,000 samples take about 15 s on 200 requests, 10**9 would take days).
MAX_SAMPLES = 1_000


#: The policy options of ``kvlib simulate``: argparse dest -> flag.
POLICY_FLAGS = {
    "tie_break": "--tie-break",
    "alpha": "--alpha",
    "beta": "--beta",
    "selector": "--selector",
    "phase1_constraint": "--phase1-constraint",
    "phase2": "--phase2",
    "epsilon": "--epsilon",
    "B": "--B",
    "samples": "--samples",
    "time_step": "--time-step",
}


class _Fail(Exception):
    """Leave the command with an exit code and a message on stderr."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


# --------------------------------------------------------------------------- argument types


def _int_arg(lo: int | None = None, hi: int | None = None, what: str = "an integer"):
    def parse(text: str) -> int:
        from kvlib.core.errors import InstanceError
        from kvlib.core.traces import parse_int

        try:
            v = parse_int(text, "value")
        except InstanceError as e:
            raise argparse.ArgumentTypeError(f"{str(e).removeprefix('value: ')}") from None
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            raise argparse.ArgumentTypeError(f"must be {what}, got {text.strip()}")
        return v

    parse.__name__ = "integer"
    return parse


def _float_arg(lo: float, hi: float | None = None, *, lo_open: bool = False, hi_open: bool = False,
               what: str = "a number"):
    def parse(text: str) -> float:
        t = text.strip()
        try:
            if not t.isascii() or "_" in t:
                raise ValueError
            v = float(t)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{t!r} is not a number") from None
        if not math.isfinite(v):
            raise argparse.ArgumentTypeError(f"must be {what}, got {t}")
        if v < lo or (lo_open and v == lo) or (hi is not None and (v > hi or (hi_open and v == hi))):
            raise argparse.ArgumentTypeError(f"must be {what}, got {t}")
        return v

    parse.__name__ = "number"
    return parse


def _seconds_arg(text: str):
    """A positive number of seconds, kept exactly as written (a Decimal: ``kvlib convert`` computes rounds from
    the text, not from a binary float)."""
    from decimal import Decimal, InvalidOperation

    t = text.strip()
    try:
        if not t.isascii() or "_" in t:
            raise InvalidOperation
        v = Decimal(t)
    except InvalidOperation:
        raise argparse.ArgumentTypeError(f"{t[:60]!r} is not a number") from None
    if not v.is_finite() or v <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {t[:60]}")
    if v > 10**9 or len(v.as_tuple().digits) > 100:
        raise argparse.ArgumentTypeError(f"must be at most 1e9 seconds with at most 100 significant digits, "
                                         f"got {t[:60]}")
    return v


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


POSITIVE_INT = _int_arg(1, None, "a positive integer")
#: Token and request counts of ``kvlib batchtime`` (at most 10**9: far beyond any GPU's KV cache).
NONNEG_INT = _int_arg(0, 10**9, "an integer between 0 and 1,000,000,000")

#: Hardware configurations of :mod:`kvlib.serving.measured` (kept here so that ``--help`` needs no import).
HARDWARE_NAMES = ("a100", "h100", "h200")


def _hardware_arg(text: str) -> str:
    t = text.strip().lower()
    if t not in HARDWARE_NAMES:
        raise argparse.ArgumentTypeError(f"unknown hardware {text.strip()[:60]!r}; known: {', '.join(HARDWARE_NAMES)}")
    return t
MEMORY = _int_arg(None, None)  # sign checked by the command: "--memory must be positive, got ..."


# --------------------------------------------------------------------------- help text


def _policy_lines() -> str:
    from kvlib.policies import POLICIES
    from kvlib.policies.registry import policy_options

    width = max(len(k) for k in POLICIES)
    lines = []
    for k, (_, desc) in POLICIES.items():
        opts = [POLICY_FLAGS[o] for o in policy_options(k) if o in POLICY_FLAGS]
        lines.append(f"  {k:<{width}}  {desc}")
        lines.append(f"  {'':<{width}}    options: {', '.join(opts) if opts else 'none'}")
    return "\n".join(lines)


#: What each policy option does (the policies that take it and their defaults are added from the registry).
OPTION_TEXT = {
    "tie_break": "requests equal in the policy's order are taken by arrival time, then by line in the file (index) "
                 "or in a random order drawn from --seed (random)",
    "alpha": "protection level: admit while usage <= (1-alpha) M",
    "beta": "clearing probability",
    "selector": "Phase-1 selector. 002's: DP (Alg. 2), scaled DP (Alg. 3), local swap (Alg. 4), quantile greedy "
                "(Alg. 5); exact (Alg. 1 line 4's argmin, ties to the larger batch); our variants scaled-dp-ours, "
                "swap-ours, quantile-ours; auto: exact while its DP table fits, else swap",
    "phase1_constraint": "Phase-1 memory constraint: sum(s+o) <= M (peak) or the batch's look-ahead usage",
    "phase2": "Phase 2: longest fitting prefix of the list or scan the whole list",
    "epsilon": "with --selector scaled-dp / scaled-dp-ours only: precision; 002 Alg. 3 scales memory by "
               "lambda = max(1, epsilon*M/B)",
    "B": "with --selector scaled-dp or scaled-dp-ours only: 002 Alg. 3's B (scaled-dp) or the largest batch size "
         "(scaled-dp-ours)",
    "samples": "with --selector quantile-ours only: random orders per quantile (seeded by --seed; at most "
               "{max_samples:,} unless --force)",
    "time_step": "LP start-time grid step",
}

#: What a default of ``None`` means, per option (stated in --help instead of "None").
NONE_DEFAULT_TEXT = {
    "B": "the largest feasible batch size",
    "time_step": "automatic",
}


def _default_text(dest: str, value) -> str:
    if value is None:
        return NONE_DEFAULT_TEXT.get(dest, "none")
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _option_help(dest: str) -> str:
    """Help of a policy option, generated from the registry: the policies that take it, what it does, and each
    policy's default as its factory declares it (so --help cannot drift from the code)."""
    import inspect

    from kvlib.policies import POLICIES
    from kvlib.policies.registry import policy_options

    owners = [k for k in POLICIES if dest in policy_options(k)]
    defaults: dict[str, list[str]] = {}
    for k in owners:
        d = inspect.signature(POLICIES[k][0]).parameters[dest].default
        text = "none" if d is inspect.Parameter.empty else _default_text(dest, d)
        defaults.setdefault(text, []).append(k)
    if len(defaults) == 1:
        dtext = next(iter(defaults))
    else:
        dtext = "; ".join(f"{v} [{', '.join(ks)}]" for v, ks in defaults.items())
    body = OPTION_TEXT[dest].format(max_samples=MAX_SAMPLES)
    return f"{', '.join(owners)}: {body} (default: {dtext})".replace("%", "%%")


def _exit_lines() -> str:
    return "exit codes:\n" + "\n".join(f"  {c:<3}  {d}" for c, d in EXIT_CODES.items())


def default_round_seconds(hardware: str | None = None) -> float:
    """Default length of one round for ``kvlib convert`` (seconds), from :mod:`kvlib.serving.measured`.

    One decode round of ``hardware``'s measured batch-time model (default ``a100``: Llama-2-70B on two A100s,
    every input one of Vidur's measurements; ``h100``, ``h200``) for a batch of 16 requests that together hold
    the papers' KV limit of 16,492 tokens (:data:`kvlib.serving.hardware.PAPER_KV_CAPACITY_TOKENS`), rounded
    to 0.1 ms.  (Before the A100's attention was measured, the default was 0.0547 s, from the derived attention
    of :mod:`kvlib.serving.batchtime`.)
    """
    from decimal import Decimal

    from kvlib.serving.gpus import reference_round_ms

    ms = reference_round_ms(hardware or "a100")  # 16 requests holding the papers' 16,492 tokens
    # exactly a whole number of 0.1 ms (round(ms, 1) / 1000.0 gave 0.054700000000000006, and convert computes
    # rounds exactly from the decimal text of R)
    return float(Decimal(repr(round(ms, 1))) / 1000)


#: Requests decoding in the batch that defines the default round length of ``kvlib convert``.
ROUND_BATCH = 16


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Descriptions and epilogs as written; option help wrapped without breaking names at hyphens."""

    def _split_lines(self, text, width):
        import textwrap

        return textwrap.wrap(self._whitespace_matcher.sub(" ", text).strip(), width, break_on_hyphens=False,
                             break_long_words=False)


def build_parser() -> argparse.ArgumentParser:
    """The ``kvlib`` parser: one function per subcommand (:func:`_add_simulate`, :func:`_add_solve`,
    :func:`_add_convert`, :func:`_add_batchtime`, :func:`_add_profile`), registered in that order."""
    parser = argparse.ArgumentParser(
        prog="kvlib",
        description="Scheduling LLM inference under a KV-cache memory limit M (kvbook companion library).",
        epilog="policies (and the options each takes):\n" + _policy_lines() + "\n\n" + _exit_lines(),
        formatter_class=_HelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    _add_simulate(sub)
    _add_solve(sub)
    _add_convert(sub)
    _add_batchtime(sub)
    _add_profile(sub)
    return parser


#: ``--quiet`` of simulate and solve
QUIET_HELP = "no progress bar (bars appear only on large inputs and only when stderr is a terminal)"


def _add_simulate(sub) -> None:
    # the help states the engine's round cap, read from where it lives
    from kvlib.core.simulate import MAX_DEFAULT_ROUNDS

    sim = sub.add_parser(
        "simulate",
        help="run an online policy on a CSV of requests (columns arrival,prompt,output)",
        description="Run a policy on FILE.csv (header arrival,prompt,output in any order, optional lower,upper "
        "for the 003 interval policies; one request per line, plain integers) and print TEL, average latency, "
        "makespan and peak memory. The schedule is validated by the independent checker before anything is "
        "printed. A policy option that the chosen policy does not take is an error.",
        epilog="policies (and the options each takes):\n" + _policy_lines() + "\n\n" + _exit_lines(),
        formatter_class=_HelpFormatter,
    )
    from kvlib.policies import POLICIES

    sim.add_argument("file", metavar="FILE.csv")
    sim.add_argument("--policy", required=True, metavar="NAME", help="one of: " + ", ".join(POLICIES))
    sim.add_argument("--memory", "-M", required=True, type=MEMORY, help="KV-cache limit M in tokens")
    sim.add_argument("--seed", type=_int_arg(0, 2**63 - 1, "a non-negative integer"), default=0,
                     help="seed of the generator handed to the policy (random tie-breaks, clearing, quantile "
                     "samples; default 0)")
    sim.add_argument("--max-rounds", type=POSITIVE_INT, default=None,
                     help="stop with exit code 4 after this many decision rounds (default 10 * (sum of outputs "
                     f"+ n) + 1000, at most {MAX_DEFAULT_ROUNDS:,})")
    sim.add_argument("--stall-rounds", type=POSITIVE_INT, default=None,
                     help="stop with exit code 4 after this many decision rounds in a row with no request "
                     "completing, i.e. a clearing loop (default 10 * max output + 1000)")
    sim.add_argument("--json", action="store_true",
                     help="print one JSON object on stdout (policy, n, memory, tel, avg_latency, makespan, "
                     "peak_memory, evictions, starts); everything else goes to stderr")
    sim.add_argument("--schedule-out", metavar="FILE.csv", default=None,
                     help="write the schedule, one row per request: id,arrival,prompt,output,start,completion,"
                     "latency,evictions; id is the input's id column where it has one, else the request's number "
                     "from 0. Written atomically (a failed write keeps the file already there); the input file is refused under any name; "
                     "- or /dev/stdout puts the schedule on stdout and the report on stderr (not with --json)")
    sim.add_argument("--quiet", "-q", action="store_true", help=QUIET_HELP)
    sim.add_argument("--force", action="store_true",
                     help=f"run even when an option predicts a very long run (--samples above {MAX_SAMPLES:,})")
    _add_engine_option(sim)
    _add_policy_options(sim)


#: the engines of ``kvlib simulate --engine`` (fast: mc-sf only, :mod:`kvlib.policies.fast_mcsf`)
ENGINES = ("generic", "fast")


def _add_engine_option(sim) -> None:
    sim.add_argument("--engine", choices=ENGINES, default="generic",
                     help="generic (default): the event engine that runs every policy; fast: mc-sf only, a "
                     "specialised simulation with the generic engine's schedule, TEL, peak memory and decision "
                     "rounds, several times faster on large inputs (no --stall-rounds: mc-sf never evicts)")


def _add_policy_options(sim) -> None:
    po = sim.add_argument_group("policy options (each applies only to the policies listed under it)")
    po.add_argument("--tie-break", choices=("index", "random"), default=None, help=_option_help("tie_break"))
    po.add_argument("--alpha", type=_float_arg(0.0, 1.0, hi_open=True, what="in [0, 1)"), default=None,
                    help=_option_help("alpha"))
    po.add_argument("--beta", type=_float_arg(0.0, 1.0, lo_open=True, what="in (0, 1]"), default=None,
                    help=_option_help("beta"))
    po.add_argument("--selector", choices=("auto", "dp", "scaled-dp", "swap", "quantile", "exact", "scaled-dp-ours",
                                           "swap-ours", "quantile-ours"), default=None,
                    help=_option_help("selector"))
    po.add_argument("--phase1-constraint", choices=("peak", "lookahead"), default=None,
                    help=_option_help("phase1_constraint"))
    po.add_argument("--phase2", choices=("prefix", "scan"), default=None, help=_option_help("phase2"))
    po.add_argument("--epsilon", type=_float_arg(0.0, 1.0, lo_open=True, what="in (0, 1]"), default=None,
                    help=_option_help("epsilon"))
    po.add_argument("--B", "--batch-cap", dest="B", type=POSITIVE_INT, default=None, help=_option_help("B"))
    po.add_argument("--samples", type=POSITIVE_INT, default=None, help=_option_help("samples"))
    po.add_argument("--time-step", type=POSITIVE_INT, default=None, help=_option_help("time_step"))



def _add_solve(sub) -> None:
    # the help states the pipeline's primal-search budget, read from where it lives
    from kvlib.optimum.pipeline import SEARCH_EVALUATIONS as SOLVE_SEARCH_EVALUATIONS
    from kvlib.optimum.pipeline import SEARCH_SHARE as SOLVE_SEARCH_SHARE

    slv = sub.add_parser(
        "solve",
        help="hindsight-optimal TEL of a CSV of requests: certified interval from the time-indexed IP",
        description="Solve the time-indexed integer program of 001 eq. (1)-(4) for FILE.csv with HiGHS and print "
        "a certified interval lower <= OPT <= upper, the best schedule found (validated by the independent "
        "checker) and whether optimality is proved. Reaching the time limit is not an error of the input: the "
        "interval is printed and the exit code is 3.",
        epilog=_exit_lines(),
        formatter_class=_HelpFormatter,
    )
    slv.add_argument("file", metavar="FILE.csv")
    slv.add_argument("--memory", "-M", required=True, type=MEMORY, help="KV-cache limit M in tokens")
    slv.add_argument("--time-limit", type=_float_arg(0.0, 1e9, lo_open=True, what="a positive number of seconds"),
                     default=60.0, help="seconds for the solver (default 60)")
    ncpu = _cpu_count()
    slv.add_argument("--threads", type=_int_arg(1, ncpu, f"between 1 and the number of CPU cores ({ncpu})"),
                     default=min(2, ncpu), help=f"solver threads, 1..{ncpu} (default {min(2, ncpu)})")
    slv.add_argument("--method", choices=("pipeline", "ip"), default=None,
                     help="pipeline (default): bounds, time-indexed LP with conflict-family rows, reduced-cost "
                     "fixing, CP-SAT event model; ip: the time-indexed IP of 001 Section 3 in HiGHS")
    slv.add_argument("--search", type=_float_arg(0.0, 0.9, what="a share of --time-limit in [0, 0.9]"),
                     default=SOLVE_SEARCH_SHARE, metavar="SHARE",
                     help="share of --time-limit given to the solver's primal step, the list search of "
                     f"kvlib.optimum.search (list scheduling with iterated local search, at most "
                     f"{SOLVE_SEARCH_EVALUATIONS:,} lists), whose best schedule becomes the incumbent "
                     f"(default {SOLVE_SEARCH_SHARE:g}; 0 skips it)")
    slv.add_argument("--verbose", action="store_true", help="solver logs and pipeline progress on stderr")
    slv.add_argument("--formulation", choices=("plain", "aggregated"), default=None,
                     help="--method ip only: memory constraint written per time (plain, default) or through running "
                     "sums (aggregated); given without --method it selects --method ip")
    slv.add_argument("--json", action="store_true",
                     help="print one JSON object on stdout (lower, upper, optimal, starts, seconds, status, gap, "
                     "...); everything else goes to stderr")
    slv.add_argument("--schedule-out", metavar="FILE.csv", default=None,
                     help="write the best schedule, one row per request: id,arrival,prompt,output,start,"
                     "completion,latency,evictions; id is the input's id column where it has one, else the request's "
                     "number from 0. Written atomically (a failed write keeps the file already there); the input file is refused under any name; "
                     "- or /dev/stdout puts the schedule on stdout and the report on stderr (not with --json)")
    slv.add_argument("--quiet", "-q", action="store_true", help=QUIET_HELP)


def _add_convert(sub) -> None:
    try:
        rs = default_round_seconds()
        rs_text = f"{rs:g}"
    except Exception:  # pragma: no cover - the batch-time model is embedded
        rs, rs_text = None, "(unavailable)"
    cnv = sub.add_parser(
        "convert",
        help="convert a serving trace (arrival seconds, prompt/decode tokens) to a request CSV",
        description="Read a Vidur/Splitwise-style trace CSV and write the request CSV (arrival,prompt,output) "
        "that simulate and solve read. Columns: arrival time in seconds from arrived_at (or arrival_time, "
        "timestamp), prompt tokens from num_prefill_tokens (or prompt_tokens, ...), output tokens from "
        "num_decode_tokens (or output_tokens, ...). Rule: a request arriving x seconds into the trace arrives "
        "at round floor(x / R), R = --round-seconds, computed exactly from the decimal text of x and R. The default R = " + rs_text + " s is one decode round of "
        "kvlib's measured batch-time model for A100 (kvlib.serving.measured: Llama-2-70B on two A100s, every input "
        f"one of Vidur's measurements) for a batch of {ROUND_BATCH} requests holding M = 16,492 KV tokens; "
        "--hardware NAME takes R from the same round under that hardware's model instead. A trace without an arrival column (e.g. the "
        "arXiv length statistics) puts every request at round 0. Any unusable row (a token count that is not a "
        "positive integer, a negative, non-finite or decreasing arrival time) is an error naming its line.",
        epilog=_exit_lines(),
        formatter_class=_HelpFormatter,
    )
    cnv.add_argument("file", metavar="TRACE.csv")
    hw_rounds = ", ".join(f"{h} {default_round_seconds(h):g}" for h in HARDWARE_NAMES)
    cnv.add_argument("--round-seconds", type=_seconds_arg, default=None,
                     help=f"length R of one round in seconds (default {rs_text}; with --hardware, that hardware's "
                     f"round: {hw_rounds})")
    cnv.add_argument("--hardware", type=_hardware_arg, default=None, metavar="{" + ",".join(HARDWARE_NAMES) + "}",
                     help="take the default R from this hardware's measured batch-time model (kvlib.serving.measured): "
                     f"one decode round of {ROUND_BATCH} requests holding 16,492 KV tokens, rounded to 0.1 ms "
                     "(default a100, as above); not with --round-seconds")
    cnv.set_defaults(default_round_seconds=rs)
    cnv.add_argument("--out", "-o", metavar="FILE.csv", default=None,
                     help="write the request CSV here (default, - or /dev/stdout: stdout), atomically (a failed write "
                     "keeps the file already there; the input trace is refused under any name); the summary goes "
                     "to stderr")


def _add_batchtime(sub) -> None:
    bt = sub.add_parser(
        "batchtime",
        help="time of one batch of Llama-2-70B (tensor parallel 2) on a100, h100 or h200, with its breakdown",
        description="Print the time of one batch under kvlib's measured batch-time model (kvlib.serving.measured): "
        "non-attention operators, all-reduce and embedding fitted from Vidur's profiles (a100, h100; h200: Vidur's "
        "H100 operators scaled by the H200/H100 ratios of our kernel timings, with the H100 all-reduce standing "
        "in), attention fitted from measured times (Vidur's A100 attention profile; H100 and H200 kernel timings; "
        "decode attention interpolated on the measured grid). A batch prefills --prefill prompt tokens "
        "(one prompt) and decodes one token for each of --decode requests, which attend to --kv cached tokens in "
        "all.",
        epilog=_exit_lines(),
        formatter_class=_HelpFormatter,
    )
    bt.add_argument("--hardware", type=_hardware_arg, default=None, metavar="{" + ",".join(HARDWARE_NAMES) + "}",
                    help="which GPU's model (default a100); not with --kernels")
    bt.add_argument("--kernels", metavar="FILE.csv", default=None,
                    help="fit the model from this kernel-timing file (the output of kvlib profile) instead; the "
                    "all-reduce and embedding then come from the h100 model (one GPU measures no all-reduce)")
    bt.add_argument("--decode", type=NONNEG_INT, default=0, metavar="N",
                    help="number of requests decoding one token in the batch (default 0)")
    bt.add_argument("--kv", type=NONNEG_INT, default=0, metavar="TOKENS",
                    help="cached tokens the decoding requests attend to, in all (default 0; at least --decode when "
                    "--decode is positive, 0 when it is 0)")
    bt.add_argument("--prefill", type=NONNEG_INT, default=0, metavar="TOKENS",
                    help="prompt tokens prefilled in the batch, as one prompt (default 0)")
    bt.add_argument("--attention", choices=("measured", "line", "derived"), default="measured",
                    help="measured (default): decode attention on the surface through the measured grid "
                    "(kvlib.serving.decode_grid), prefill on its fitted curve; line: the straight-line (or roofline) "
                    "decode fit of earlier versions; derived: kvlib.serving.batchtime's assumed attention (KV cache "
                    "read at 2.0e12 bytes/s, prefill at 156e12 FLOP/s; a100 only)")
    bt.add_argument("--json", action="store_true",
                    help="print one JSON object on stdout (hardware, attention, the batch, breakdown_ms, total_ms, "
                    "origin)")


def _add_profile(sub) -> None:
    pf = sub.add_parser(
        "profile",
        help="measure the kernels of one Llama-2-70B TP-2 layer on the local GPU (needs PyTorch)",
        description="Time every operator of one tensor-parallel-2 shard of a Llama-2-70B layer on the local CUDA "
        "GPU with PyTorch and write the kernel-timing CSV that kvlib batchtime --kernels reads (the format of "
        "../shared/data/h100_llama2_70b_tp2_kernels.csv): per operator and size, the median and minimum over "
        "--repeats repeats of the mean time of --calls back-to-back calls, timed with CUDA events. Needs PyTorch "
        "(pip install 'kvlib[profile]') and a CUDA GPU; takes a few minutes.",
        epilog=_exit_lines(),
        formatter_class=_HelpFormatter,
    )
    pf.add_argument("--out", "-o", metavar="FILE.csv", required=True,
                    help="write the kernel timings here (atomically; - or /dev/stdout: stdout)")
    pf.add_argument("--repeats", type=POSITIVE_INT, default=7, help="repeats per operator and size (default 7)")
    pf.add_argument("--calls", type=POSITIVE_INT, default=20,
                    help="back-to-back calls per repeat (default 20)")
    pf.add_argument("--device", default="cuda",
                    help="PyTorch device (default cuda; cpu times with the wall clock: a check of the tool, not a GPU "
                    "profile)")
    pf.add_argument("--quiet", "-q", action="store_true", help="no progress lines on stderr")


# --------------------------------------------------------------------------- helpers


def _progress_bar(total: int, quiet: bool, desc: str, unit: str = "req", minimum: int = PROGRESS_MIN_REQUESTS):
    """A tqdm bar on stderr, or None: only for large inputs, only when stderr is a terminal, never with --quiet."""
    if quiet or total < minimum:
        return None
    try:
        if not sys.stderr.isatty():
            return None
    except (AttributeError, ValueError):
        return None
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm is a dependency
        return None
    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, leave=False, dynamic_ncols=True)


def _check_input_path(path: str, metavar: str = "FILE.csv") -> None:
    """An empty path or one with a NUL character, named before anything else (the file reader would say
    "." is a directory, or raise a bare ValueError)."""
    if path.strip() == "":
        raise _Fail(EXIT_BAD_INPUT, f"{metavar}: empty path (name the input file)")
    if "\x00" in path:
        raise _Fail(EXIT_BAD_INPUT, f"{metavar} {path!r}: a path cannot contain a NUL character")
    if path.endswith(("/", "/.")) and os.path.exists(path.rstrip("/.") or path) and not os.path.isdir(path):
        raise _Fail(EXIT_BAD_INPUT, f"{metavar} {_shown(path)}: not a directory (a trailing slash names a "
                    "directory; drop it to read the file)")


def _read_instance(path: str, memory: int):
    from kvlib.core.traces import read_request_table

    _check_input_path(path)
    if memory <= 0:
        raise _Fail(EXIT_BAD_INPUT, f"--memory must be positive, got {memory}")
    table = read_request_table(path)
    return table, table.instance(memory)


#: Output paths that mean "standard output" (``-`` and the device names of descriptor 1).
STDOUT_NAMES = ("-", "/dev/stdout", "/proc/self/fd/1", "/dev/fd/1")


def _stdout_identity() -> tuple[int, int] | None:
    """(device, inode) of the real standard output, taken before a command points descriptor 1 at stderr."""
    try:
        st = os.fstat(sys.stdout.fileno())
    except (AttributeError, ValueError, OSError, io.UnsupportedOperation):
        return None
    return st.st_dev, st.st_ino


def _is_stdout(path: str, stdout_id: tuple[int, int] | None) -> bool:
    if path == "-" or os.path.abspath(path) in STDOUT_NAMES:
        return True
    if stdout_id is None:
        return False
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return False
    return (st.st_dev, st.st_ino) == stdout_id


def _output_target(path: str | None, option: str, inputs: tuple[str, ...], stdout_id) -> str | None:
    """Check an output path before any work is done; returns the path, or ``"-"`` for standard output.

    Refused (exit 2): an empty path; the input file under any name (same device and inode: ``x.csv``,
    ``d/../x.csv``, a symbolic or hard link); a directory; ``new/`` (a trailing slash on a name that is no
    directory); a path whose directory does not exist; a file this user may not write (as ``>`` refuses it);
    a new file in a directory this user may not write.  A writable file in a read-only directory is written in
    place (a note on stderr says so)."""
    from kvlib.fileio import is_special_path, same_file

    if path is None:
        return None
    if path.strip() == "":
        raise _Fail(EXIT_BAD_INPUT, f"{option}: empty path (name a file, or - for standard output)")
    if "\x00" in path:
        raise _Fail(EXIT_BAD_INPUT, f"{option} {path!r}: a path cannot contain a NUL character")
    if _is_stdout(path, stdout_id):
        return "-"
    for src in inputs:
        if same_file(path, src):
            raise _Fail(EXIT_BAD_INPUT, f"{option} {path}: is the input file {src} (same file on disk); "
                        "refusing to overwrite it, choose another output path")
    if is_special_path(path):
        return path
    shown = _shown(path)
    if os.path.isdir(path):
        raise _Fail(EXIT_BAD_INPUT, f"{option} {shown}: is a directory (name a file inside it)")
    if path.endswith(("/", "/.")):
        raise _Fail(EXIT_BAD_INPUT, f"{option} {shown}: not a directory (a trailing slash names a directory, "
                    f"and {_shown(path.rstrip('/.') or path)} is none; drop the slash to write a file)")
    parent = os.path.dirname(os.path.realpath(path)) or "."
    where = _shown(os.path.dirname(path) or ".")
    if os.path.exists(parent) and not os.path.isdir(parent):
        raise _Fail(EXIT_BAD_INPUT, f"{option} {shown}: cannot write ({where} is a file, not a directory)")
    if not os.path.isdir(parent):
        raise _Fail(EXIT_BAD_INPUT, f"{option} {shown}: cannot write (directory {where} does not exist)")
    _check_name_length(path, option, shown, parent)
    return _writable_target(path, option, shown, parent, where)


def _check_name_length(path: str, option: str, shown: str, parent: str) -> None:
    """A file name longer than the directory's file system allows (``NAME_MAX``, 255 bytes on common ones),
    named before any work (the write would fail only at the end)."""
    size = len(os.fsencode(os.path.basename(path)))
    try:
        limit = os.pathconf(parent, "PC_NAME_MAX")
    except (OSError, ValueError, AttributeError):
        limit = 255
    if size > limit:
        raise _Fail(EXIT_BAD_INPUT, f"{option} {shown[:80]}... ({size} bytes): cannot write (a file name may "
                    f"have at most {limit} bytes on this file system)")


def _writable_target(path: str, option: str, shown: str, parent: str, where: str) -> str:
    """Refuse what ``>`` would refuse (a file or directory without write permission); say so when the file
    can only be written in place (a read-only directory: no temporary file can be renamed over it)."""
    from kvlib.fileio import writes_in_place

    if os.path.exists(path) and not os.access(path, os.W_OK):
        raise _Fail(EXIT_BAD_INPUT, f"{option} {shown}: cannot write (permission denied: the file is read-only "
                    "for this user; kvlib refuses to replace it, as > would)")
    if writes_in_place(path):
        print(f"kvlib: note: {option} {shown}: directory {where} is not writable, so the file is overwritten in "
              "place (not atomically: a failed write can leave it cut short)", file=sys.stderr)
        return path
    if not os.access(parent, os.W_OK | os.X_OK):
        raise _Fail(EXIT_BAD_INPUT, f"{option} {shown}: cannot write (permission denied in directory {where})")
    return path


def _shown(path: str) -> str:
    """A path as messages print it: as given, or quoted with escapes when it holds a control character (a
    newline in a name would otherwise split the message)."""
    return repr(path) if any(ord(c) < 32 or ord(c) == 127 for c in path) else path


def _write_output(path: str, option: str, text: str) -> None:
    """Write ``text`` to ``path`` atomically (:func:`kvlib.fileio.atomic_write_text`): a failure leaves the
    file already there intact and is reported naming the option and the path (exit 2)."""
    from kvlib.fileio import atomic_write_text

    try:
        atomic_write_text(path, text)
    except OSError as e:
        raise _Fail(EXIT_BAD_INPUT, f"{option} {_shown(path)}: cannot write ({e.strerror or e})") from None


def schedule_csv_text(instance, schedule, ids=None) -> str:
    """One row per request: id,arrival,prompt,output,start,completion,latency,evictions; ``id`` is the
    input's ``id`` column where given (``ids``), else the request's number (0-based, file order)."""
    import numpy as np

    ev = np.zeros(instance.n, dtype=np.int64)
    for i, _, _ in schedule.cancelled:
        ev[i] += 1
    p = schedule.start_array()
    c = p + instance.output
    lat = c - instance.arrival
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(("id", "arrival", "prompt", "output", "start", "completion", "latency", "evictions"))
    w.writerows(zip(range(instance.n) if ids is None else ids, instance.arrival.tolist(),
                    instance.prompt.tolist(), instance.output.tolist(), p.tolist(), c.tolist(), lat.tolist(),
                    ev.tolist()))
    return buf.getvalue()


def write_schedule_csv(path: str, instance, schedule, ids=None) -> None:
    """Write :func:`schedule_csv_text` to ``path`` atomically (the old file survives a failed write)."""
    _write_output(path, "--schedule-out", schedule_csv_text(instance, schedule, ids))


#: Interval policies that admit a request only if ``prompt + upper <= M`` (003 Alg. 1 takes every length at
#: its upper end; Alg. 6 promotes an unfinished request to its upper end): checked by the CLI beforehand.
UPPER_MUST_FIT = ("a-max", "a-l")


def _interval_options(name: str, table, memory: int) -> dict:
    """003 interval policies: pass the ``lower,upper`` columns (checked: lower <= output <= upper)."""
    import numpy as np

    from kvlib.core.errors import InstanceError
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
    if name in UPPER_MUST_FIT:
        over = np.flatnonzero(table.prompt + upper > memory)
        if len(over):
            i = int(over[0])
            more = f" (and {len(over) - 1} more line(s))" if len(over) > 1 else ""
            raise InstanceError(
                f"{table.source}, line {int(table.lines[i])}, columns prompt, upper: request {i}: prompt + upper = "
                f"{int(table.prompt[i])} + {int(upper[i])} = {int(table.prompt[i] + upper[i])} exceeds M = {memory}"
                f"{more}; policy {name} admits a request only with its upper bound in memory, so it could never "
                "start (raise --memory or lower the upper bound)")
    hindsight = bool(getattr(INTERVAL_POLICIES[name], "hindsight", False))
    return {"lower": lower, "upper": upper, "reveal_output": hindsight}


def _policy_from_args(args: argparse.Namespace):
    import difflib

    from kvlib.policies import POLICIES, make_policy
    from kvlib.policies.registry import policy_options

    name = args.policy
    if name not in POLICIES:
        close = difflib.get_close_matches(name.strip().lower().replace("_", "-"), list(POLICIES), n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise _Fail(EXIT_BAD_INPUT, f"--policy: unknown policy {name!r}{hint}; known: {', '.join(POLICIES)}")
    accepted = policy_options(name)
    given = {dest: getattr(args, dest) for dest in POLICY_FLAGS if getattr(args, dest) is not None}
    foreign = [d for d in given if d not in accepted]
    if foreign:
        parts = []
        for d in foreign:
            owners = [p for p in POLICIES if d in policy_options(p)]
            parts.append(f"{POLICY_FLAGS[d]} applies to {', '.join(owners)}")
        takes = ", ".join(POLICY_FLAGS[o] for o in accepted if o in POLICY_FLAGS) or "no options"
        raise _Fail(EXIT_BAD_INPUT, f"policy {name} does not take {', '.join(POLICY_FLAGS[d] for d in foreign)} "
                    f"({'; '.join(parts)}); {name} takes {takes}")
    selector = given.get("selector", "auto")
    for dest, needs in (("samples", ("quantile-ours",)), ("epsilon", ("scaled-dp", "scaled-dp-ours")),
                        ("B", ("scaled-dp", "scaled-dp-ours"))):
        if dest in given and selector not in needs:  # the policy would ignore it silently
            raise _Fail(EXIT_BAD_INPUT, f"{POLICY_FLAGS[dest]} applies only with --selector {' or '.join(needs)} "
                        f"(got --selector {selector}); drop it or choose that selector")
    if given.get("samples", 0) > MAX_SAMPLES and not getattr(args, "force", False):
        raise _Fail(EXIT_BAD_INPUT, f"--samples {given['samples']}: more than {MAX_SAMPLES:,} random orders per "
                    "quantile (each is a pass over the waiting requests, per quantile and per Phase-1 batch) runs "
                    "for minutes to days; pass --force to run anyway")
    if "seed" in accepted:
        given["seed"] = args.seed
    return make_policy(name, **given)


#: a policy consulted every round warns before a run whose time values span more rounds than this
STEPPING_WARN_ROUNDS = 10_000_000


def _warn_if_stepping(policy, inst, quiet: bool) -> None:
    """Say before starting when a run may take long: the policy cannot tell the engine which rounds it would
    leave unchanged (:meth:`kvlib.core.protocol.Policy.idle_until`), so the engine visits every round in
    which requests wait, and the time values span many rounds."""
    from kvlib.core.protocol import Policy

    if quiet:
        return
    span = int(inst.arrival.max()) + int(inst.output.sum())
    if type(policy).idle_until is Policy.idle_until and span > STEPPING_WARN_ROUNDS:
        print(f"kvlib: warning: policy {policy.name} is consulted every round while requests wait, and this input "
              f"spans up to {span:,} rounds (max arrival + total output): at some 10,000-40,000 rounds a second "
              "the run may take long; --max-rounds bounds it (the eq. (5) policies, e.g. mc-sf, skip idle rounds)",
              file=sys.stderr)


# --------------------------------------------------------------------------- commands


def cmd_simulate(args: argparse.Namespace, out) -> int:
    from kvlib.core.checker import check_schedule

    _check_input_path(args.file)
    policy = _policy_from_args(args)
    _check_engine(args)
    sched_out = _schedule_target(args)
    table, inst = _read_instance(args.file, args.memory)
    interval_kw = _interval_options(args.policy, table, inst.memory)
    _warn_if_stepping(policy, inst, args.quiet)
    bar = _progress_bar(inst.n, args.quiet, f"simulate {args.policy}")
    try:
        res = _run_engine(args, inst, policy, bar.update if bar is not None else None, interval_kw)
    finally:
        if bar is not None:
            bar.close()
    report = check_schedule(inst, res.schedule, allow_cancellation=policy.preemptive)
    if not report.valid or report.tel != res.tel:
        raise _Fail(EXIT_INTERNAL, "internal error: the checker rejected the policy's schedule: "
                    + "; ".join(report.violations[:3]))
    if sched_out not in (None, "-"):
        write_schedule_csv(sched_out, inst, res.schedule, table.ids)
    doc = {
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
        out.append(json.dumps(doc))
    else:
        lines = [
            f"policy        {res.policy}",
            f"requests      {inst.n}",
            f"memory M      {inst.memory}",
            f"TEL           {res.tel}",
            f"avg latency   {res.avg_latency:.4f}",
            f"makespan      {res.makespan}",
            f"peak memory   {res.peak_memory}",
        ]
        if res.evictions:
            lines.append(f"evictions     {res.evictions}")
        lines.append("checker       schedule valid")
        if sched_out == "-":  # stdout carries the schedule CSV; the report goes to stderr
            lines.append("schedule      on stdout")
            for line in lines:
                print(line, file=sys.stderr)
            out.append(schedule_csv_text(inst, res.schedule, table.ids).rstrip("\n"))
        else:
            if sched_out:
                lines.append(f"schedule      written to {_shown(sched_out)}")
            out.extend(lines)
    return EXIT_OK


def _check_engine(args: argparse.Namespace) -> None:
    """``--engine fast`` runs mc-sf alone and has no stall limit: say so before any work."""
    if getattr(args, "engine", "generic") != "fast":
        return
    if args.policy != "mc-sf":
        raise _Fail(EXIT_BAD_INPUT, f"--engine fast runs only --policy mc-sf (001 Algorithm 1), not {args.policy}; "
                    "use --engine generic (the default)")
    if args.stall_rounds is not None:
        raise _Fail(EXIT_BAD_INPUT, "--stall-rounds does not apply to --engine fast (mc-sf never evicts, so it has "
                    "no clearing loop to stop); drop it or use --engine generic")


def _run_engine(args: argparse.Namespace, inst, policy, progress, interval_kw: dict):
    """The run of ``kvlib simulate`` on the engine ``--engine`` names."""
    if getattr(args, "engine", "generic") == "fast":
        from kvlib.policies.fast_mcsf import simulate_mcsf_fast

        return simulate_mcsf_fast(inst, tie_break=policy.tie_break, seed=args.seed, max_rounds=args.max_rounds,
                                  progress=progress)
    from kvlib.core.simulate import simulate

    return simulate(inst, policy, seed=args.seed, max_rounds=args.max_rounds, stall_rounds=args.stall_rounds,
                    progress=progress, **interval_kw)


def _schedule_target(args: argparse.Namespace) -> str | None:
    """The checked ``--schedule-out`` path (``"-"``: stdout, refused with ``--json``), before any work."""
    target = _output_target(args.schedule_out, "--schedule-out", (args.file,), getattr(args, "stdout_id", None))
    if target == "-" and args.json:
        raise _Fail(EXIT_BAD_INPUT, f"--schedule-out {args.schedule_out}: the schedule cannot go to stdout with "
                    "--json (stdout carries exactly one JSON document); write it to a file")
    return target


def _solve_bar(time_limit: float, quiet: bool, n: int):
    """A seconds bar up to the time limit, ticking in a daemon thread; returns a stop function."""
    bar = _progress_bar(n, quiet, "solve", unit="s", minimum=PROGRESS_MIN_REQUESTS_SOLVE)
    if bar is None:
        return lambda: None
    import threading

    bar.reset(total=round(time_limit))
    stop = threading.Event()

    def tick():
        t0 = time.monotonic()
        while not stop.wait(1.0):
            bar.n = min(round(time.monotonic() - t0), bar.total)
            bar.refresh()

    th = threading.Thread(target=tick, daemon=True)
    th.start()

    def finish():
        stop.set()
        th.join(timeout=2)
        bar.close()

    return finish


def cmd_solve(args: argparse.Namespace, out) -> int:
    from kvlib.optimum.exact import solve
    from kvlib.core.model import Schedule

    _check_input_path(args.file)
    sched_out = _schedule_target(args)
    method = args.method
    if args.formulation is not None:
        if method == "pipeline":
            raise _Fail(EXIT_BAD_INPUT, "--formulation applies only to --method ip (got --method pipeline, which "
                        "builds its own model); drop --formulation or use --method ip")
        if method is None:
            print(f"kvlib: --formulation {args.formulation}: using --method ip (the time-indexed IP)", file=sys.stderr)
        method = "ip"
    method = method or "pipeline"
    table, inst = _read_instance(args.file, args.memory)
    finish = _solve_bar(args.time_limit, args.quiet, inst.n)
    try:
        ip_options = {"formulation": args.formulation} if args.formulation not in (None, "plain") else {}
        res = solve(inst, time_limit=args.time_limit, threads=args.threads, method=method,
                    verbose=args.verbose, search=args.search, **ip_options)
    except ValueError as e:  # named argument errors of kvlib.optimum (time limit, threads, incumbent)
        raise _Fail(EXIT_BAD_INPUT, f"solve: {_message(e)}") from None
    finally:
        finish()
    if sched_out not in (None, "-"):
        write_schedule_csv(sched_out, inst, Schedule(tuple(res.starts)), table.ids)
    if args.json:
        out.append(json.dumps(res.as_dict()))
    else:
        out.extend([
            f"requests      {inst.n}",
            f"memory M      {inst.memory}",
            f"lower bound   {res.lower}",
            f"upper bound   {res.upper}   (schedule validated by the checker)",
            f"optimal       {'yes' if res.optimal else 'no (gap %.2f%%)' % (100 * res.gap)}",
            f"solver        {'LP-guided pipeline' if res.formulation == 'pipeline' else 'HiGHS time-indexed IP (' + res.formulation + ')'}, "
            f"status {res.status}, {res.seconds:.2f} s",
            f"warm start    {res.incumbent_source} (TEL {res.incumbent})",
            "starts        " + " ".join(str(p) for p in res.starts),
        ])
        if sched_out == "-":  # stdout carries the schedule CSV; the report goes to stderr
            out.append("schedule      on stdout")
            for line in out:
                print(line, file=sys.stderr)
            out[:] = [schedule_csv_text(inst, Schedule(tuple(res.starts)), table.ids).rstrip("\n")]
        elif sched_out:
            out.append(f"schedule      written to {_shown(sched_out)}")
    if not res.optimal:
        from kvlib.optimum.result import time_spent

        why = (f"within --time-limit {args.time_limit:g} s" if time_spent(res.seconds, args.time_limit) else
               f"after {res.seconds:.1f} s of --time-limit {args.time_limit:g} s (steps skipped: {res.status})")
        print(f"kvlib: no optimality certificate {why}; the interval [{res.lower}, {res.upper}] is certified "
              f"(exit code {EXIT_NO_CERTIFICATE})", file=sys.stderr)
        return EXIT_NO_CERTIFICATE
    return EXIT_OK


def cmd_convert(args: argparse.Namespace, out) -> int:
    from kvlib.core.traces import convert_trace

    if args.hardware is not None:
        if args.round_seconds is not None:
            raise _Fail(EXIT_BAD_INPUT, f"--hardware {args.hardware} sets the default round length; give either "
                        "--round-seconds or --hardware, not both")
        from decimal import Decimal

        args.round_seconds = Decimal(repr(default_round_seconds(args.hardware)))
    elif args.round_seconds is None:
        args.round_seconds = args.default_round_seconds
    if args.round_seconds is None:  # pragma: no cover - only if the batch-time model failed
        raise _Fail(EXIT_BAD_INPUT, "--round-seconds is required (no default available)")
    _check_input_path(args.file, "TRACE.csv")
    target = _output_target(args.out, "--out", (args.file,), getattr(args, "stdout_id", None))
    tr = convert_trace(args.file, args.round_seconds)
    if target not in (None, "-"):
        _write_output(target, "--out", tr.csv_text())
    else:
        out.append(tr.csv_text().rstrip("\n"))
    cols = tr.columns
    msg = [f"read {tr.n} requests from {tr.source}"]
    if cols["arrival"] is None:
        msg.append("no arrival column: every request arrives at round 0")
    else:
        msg.append(f"arrival = floor({cols['arrival']} / {tr.round_seconds:g} s): rounds "
                   f"{int(tr.arrival.min())}..{int(tr.arrival.max())} "
                   f"(trace {tr.first_seconds:g}..{tr.last_seconds:g} s)")
    msg.append(f"prompt = {cols['prompt']}, output = {cols['output']}; max prompt + output = "
               f"{int((tr.prompt + tr.output).max())} tokens (every M below this rejects a request)")
    if target not in (None, "-"):
        msg.append(f"wrote {_shown(target)}")
    for m in msg:
        print(m, file=sys.stderr)
    return EXIT_OK


def cmd_batchtime(args: argparse.Namespace, out) -> int:
    from kvlib.serving.measured import measured_model

    if args.decode == 0 and args.prefill == 0:
        raise _Fail(EXIT_BAD_INPUT, "batchtime: the batch is empty (give --decode and/or --prefill a positive count)")
    if args.decode == 0 and args.kv > 0:
        raise _Fail(EXIT_BAD_INPUT, f"--kv {args.kv} given with --decode 0: cached tokens are read only by decoding "
                    "requests (give --decode, or drop --kv)")
    if args.decode > 0 and args.kv < args.decode:
        raise _Fail(EXIT_BAD_INPUT, f"--kv {args.kv} is less than --decode {args.decode}: each decoding request "
                    "attends to at least one cached token (--kv counts the cached tokens of all of them)")
    if args.kernels is not None:
        _check_input_path(args.kernels, "--kernels")
        if args.hardware is not None:
            raise _Fail(EXIT_BAD_INPUT, "--kernels fits the model from a file; give either --kernels or --hardware, "
                        "not both")
        model = measured_model(kernels_csv=args.kernels, attention=args.attention)
    else:
        model = measured_model(args.hardware or "a100", attention=args.attention)
    parts = model.breakdown(args.prefill, args.decode, args.kv)
    origin = model.provenance.get("origin", "")
    doc = {
        "hardware": model.hardware,
        "attention": args.attention,
        "prefill_tokens": args.prefill,
        "decode_requests": args.decode,
        "kv_tokens": args.kv,
        "breakdown_ms": {k: v for k, v in parts.items() if k != "total_ms"},
        "total_ms": parts["total_ms"],
        "origin": origin,
    }
    if args.json:
        out.append(json.dumps(doc))
        return EXIT_OK
    names = {"non_attention_ms": "non-attention", "allreduce_ms": "all-reduce", "decode_attention_ms": "decode attention",
             "prefill_attention_ms": "prefill attention", "embedding_ms": "embedding"}
    out.append(f"hardware            {model.hardware} ({origin}; attention {args.attention})")
    out.append(f"batch               {args.prefill:,} prefill tokens, {args.decode:,} decoding requests, "
               f"{args.kv:,} cached tokens")
    for k, label in names.items():
        out.append(f"{label:<20}{parts[k]:10.3f} ms")
    out.append(f"{'total':<20}{parts['total_ms']:10.3f} ms")
    return EXIT_OK


def cmd_profile(args: argparse.Namespace, out) -> int:
    from kvlib.serving import profile_gpu

    target = _output_target(args.out, "--out", (), getattr(args, "stdout_id", None))
    profile_gpu.require_torch()  # a named error (exit 2) before any work when PyTorch is absent
    say = None if args.quiet else (lambda m: print(f"kvlib profile: {m}", file=sys.stderr))
    rows = profile_gpu.profile(device=args.device, repeats=args.repeats, calls=args.calls, progress=say)
    text = profile_gpu.rows_csv_text(rows)
    if target == "-":
        out.append(text.rstrip("\n"))
    else:
        _write_output(target, "--out", text)
        print(f"kvlib profile: wrote {len(rows)} rows to {target}; use it with kvlib batchtime --kernels {target}",
              file=sys.stderr)
    return EXIT_OK


COMMANDS = {"simulate": cmd_simulate, "solve": cmd_solve, "convert": cmd_convert, "batchtime": cmd_batchtime,
            "profile": cmd_profile}


def _message(e: BaseException) -> str:
    return str(e) or type(e).__name__


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code (never raises, never prints a traceback unless
    ``KVLIB_DEBUG=1``)."""
    from kvlib.core.errors import KvlibError, ParameterError, PolicyError, SimulationStalled

    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse: --help (0, re-raised as argparse does) or a usage error (2, on stderr)
        if e.code in (0, None):
            raise
        return int(e.code) if isinstance(e.code, int) else EXIT_BAD_INPUT
    if args.command is None:
        parser.print_help()
        return EXIT_OK
    args.stdout_id = _stdout_identity()  # before descriptor 1 is pointed at stderr (outputs named /dev/stdout)
    out: list[str] = []
    debug = os.environ.get("KVLIB_DEBUG", "") not in ("", "0")
    code = EXIT_OK
    try:
        # with --json nothing but the document may reach stdout: point descriptor 1 (and sys.stdout) at stderr
        # while the command runs, so a library's stray print or C-level log goes to stderr
        guard = contextlib.ExitStack()
        if getattr(args, "json", False) or args.command in ("convert", "profile"):
            from kvlib.core.highs import stdout_fd_to

            try:
                err_fd = sys.stderr.fileno()
            except (AttributeError, ValueError, io.UnsupportedOperation):
                err_fd = None
            if err_fd is not None:
                guard.enter_context(stdout_fd_to(err_fd))
            guard.enter_context(contextlib.redirect_stdout(sys.stderr))
        with guard:
            code = COMMANDS[args.command](args, out)
    except _Fail as e:
        print(f"kvlib: error: {e}", file=sys.stderr)
        return e.code
    except SimulationStalled as e:
        print(f"kvlib: error: {e}", file=sys.stderr)
        return EXIT_ROUND_LIMIT
    except PolicyError as e:
        print(f"kvlib: internal error: {e}", file=sys.stderr)
        return EXIT_INTERNAL
    except (KvlibError, ParameterError) as e:
        print(f"kvlib: error: {_message(e)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("kvlib: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except MemoryError:
        if debug:
            raise
        print("kvlib: error: out of memory (the input is too large for this command)", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (ValueError, OverflowError) as e:
        # a check kvlib does not name yet (e.g. inside the solver): still no traceback
        if debug:
            raise
        print(f"kvlib: error: {type(e).__name__}: {_message(e)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except Exception as e:  # noqa: BLE001 - the last line of defence against tracebacks
        if debug:
            raise
        print(f"kvlib: internal error: {type(e).__name__}: {_message(e)} (set KVLIB_DEBUG=1 for the traceback; "
              "please report it with the input)", file=sys.stderr)
        return EXIT_INTERNAL
    if out:
        try:
            sys.stdout.write("\n".join(out) + "\n")
            sys.stdout.flush()
        except BrokenPipeError:  # e.g. `kvlib convert TRACE.csv | head`: the reader left, which is fine
            _stdout_to_devnull()
        except (OSError, ValueError, AttributeError) as e:  # e.g. `> /dev/full`, or stdout closed
            _stdout_to_devnull()
            why = getattr(e, "strerror", None) or ("standard output is closed" if sys.stdout is None else _message(e))
            print(f"kvlib: error: cannot write to stdout ({why})", file=sys.stderr)
            return EXIT_BAD_INPUT
    return code


def _stdout_to_devnull() -> None:
    """After a failed write to stdout: point descriptor 1 at /dev/null and drop Python's buffer, so the flush at
    interpreter exit neither fails again ("Exception ignored ...") nor changes the exit code."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
