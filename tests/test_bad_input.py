"""Bad input, table-driven: every kind gets exit code 2 from the CLI or a named kvlib exception from the API,
with a message naming the culprit (line, column, request, option); never a traceback, never a silent answer.

The CLI runs in-process (``kvlib.cli.main(argv)``) with stdout/stderr captured.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from kvlib import Instance, Schedule, check_schedule, make_policy, memory_profile, simulate
from kvlib.core.model import peak_memory, total_latency
from kvlib.optimum.bruteforce import brute_force_opt
from kvlib.optimum.exact import solve
from kvlib.cli import main
from kvlib.core.traces import convert_trace, parse_int, read_instance_csv
from kvlib.errors import (
    InstanceError,
    KvlibError,
    ParameterError,
    ScheduleError,
    UnknownPolicyError,
)

GOOD = "arrival,prompt,output\n0,2,3\n1,1,4\n"
IV = "arrival,prompt,output,lower,upper\n0,2,3,{l},{u}\n"

# (id, file text (str, or bytes), argv after the file, substring the message must contain)
CLI_CASES = [
    ("empty file", "", [], "file is empty"),
    ("blank lines only", "\n\n  \n", [], "file is empty"),
    ("header only", "arrival,prompt,output\n", [], "no requests"),
    ("header only, CRLF", "arrival,prompt,output\r\n", [], "no requests"),
    ("missing column", "arrival,prompt\n0,5\n", [], "missing column(s) output"),
    ("missing column after blank lines", "\n\narrival,prompt\n0,5\n", [], "line 3: missing column(s) output"),
    ("unknown column after blank lines", "\n \narrival,prompt,output,x\n0,5,1,1\n", [], "line 3: unknown column(s) 'x'"),
    ("extra unknown column", "arrival,prompt,output,foo\n0,2,3,1\n", [], "unknown column(s) 'foo'"),
    ("duplicate column", "arrival,prompt,prompt,output\n0,2,2,3\n", [], "duplicate column 'prompt'"),
    ("UTF-16 file", GOOD.encode("utf-16"), [], "UTF-16"),
    ("binary file", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", [], "binary data"),
    ("Latin-1 byte", "arrival,prompt,output\n0,2,3\n0,1,4 \xe9\n".encode("latin-1"), [], "line 3: not UTF-8"),
    ("too few fields", "arrival,prompt,output\n0,2\n", [], "line 2: expected 3 fields, found 2"),
    ("too many fields", "arrival,prompt,output\n0,2,3,4\n", [], "line 2: expected 3 fields, found 4"),
    ("negative arrival", "arrival,prompt,output\n-1,2,3\n", [], "line 2: request 0: arrival must be >= 0"),
    ("negative prompt", "arrival,prompt,output\n0,-2,3\n", [], "prompt size must be positive"),
    ("zero prompt", "arrival,prompt,output\n0,0,3\n", [], "line 2: request 0: prompt size must be positive"),
    ("zero output", "arrival,prompt,output\n0,2,3\n0,2,0\n", [], "line 3: request 1: output length must be"),
    ("negative output", "arrival,prompt,output\n0,2,-3\n", [], "output length must be positive"),
    ("float value", "arrival,prompt,output\n0,2.5,3\n", [], "line 2, column prompt: '2.5' is not an integer"),
    ("1e30", "arrival,prompt,output\n0,2,1e30\n", [], "column output: '1e30' is not an integer"),
    ("2**63", f"arrival,prompt,output\n{2**63},2,3\n", [], "column arrival: 9223372036854775808 is too large"),
    ("10**30 digits", f"arrival,prompt,output\n0,2,{10**30}\n", [], "column output: 1000000000000000000000000000000 is too"),
    ("text value", "arrival,prompt,output\n0,two,3\n", [], "line 2, column prompt: 'two' is not an integer"),
    ("plus sign", "arrival,prompt,output\n+3,2,3\n", [], "column arrival: '+3' is not an integer (no '+' sign)"),
    ("underscore", "arrival,prompt,output\n1_000,2,3\n", [], "'1_000' is not an integer (no '_' separators)"),
    ("Arabic-Indic digit", "arrival,prompt,output\n0,\u0663,3\n", [], "column prompt: '\u0663' is not an integer (ASCII"),
    ("fullwidth digit", "arrival,prompt,output\n0,2,\uff13\n", [], "column output: '\uff13' is not an integer (ASCII"),
    ("NaN value", "arrival,prompt,output\n0,nan,3\n", [], "column prompt: 'nan' is not an integer"),
    ("empty value", "arrival,prompt,output\n0,,3\n", [], "line 2, column prompt: '' is not an integer"),
    ("never fits", "arrival,prompt,output\n0,5,4\n0,6,9\n", ["--memory", "10"], "line 3: request 1: prompt + output = 6 + 9 = 15 exceeds"),
    ("lower > upper", IV.format(l=4, u=3), ["--policy", "a-min"], "lower = 4 exceeds upper = 3"),
    ("interval misses output", IV.format(l=4, u=9), ["--policy", "a-min"], "output = 3 is outside its interval"),
    ("lower zero", IV.format(l=0, u=9), ["--policy", "a-max"], "lower = 0 must be >= 1"),
    ("interval policy, no columns", GOOD, ["--policy", "a-min"], "column(s) lower, upper are missing"),
    ("memory 0", GOOD, ["--memory", "0"], "--memory must be positive, got 0"),
    ("memory negative", GOOD, ["--memory", "-5"], "--memory must be positive, got -5"),
    ("memory text", GOOD, ["--memory", "lots"], "argument --memory/-M: 'lots' is not an integer"),
    ("memory 1e23", GOOD, ["--memory", "1e23"], "'1e23' is not an integer (no exponent notation)"),
    ("memory 2**64", GOOD, ["--memory", str(2**64)], "is too large"),
    ("unknown policy", GOOD, ["--policy", "nope"], "unknown policy 'nope'"),
    ("misspelled policy", GOOD, ["--policy", "mc_sf"], "did you mean mc-sf"),
    ("alpha 1.5", GOOD, ["--policy", "alpha-greedy", "--alpha", "1.5"], "--alpha: must be in [0, 1), got 1.5"),
    ("alpha negative", GOOD, ["--policy", "alpha-greedy", "--alpha", "-0.1"], "--alpha: must be in [0, 1)"),
    ("alpha nan", GOOD, ["--policy", "alpha-greedy", "--alpha", "nan"], "--alpha: must be in [0, 1), got nan"),
    ("beta 0", GOOD, ["--policy", "alpha-beta-clearing", "--beta", "0"], "--beta: must be in (0, 1], got 0"),
    ("epsilon 0", GOOD, ["--policy", "sorted-f", "--epsilon", "0"], "--epsilon: must be in (0, 1], got 0"),
    ("epsilon -1", GOOD, ["--policy", "sorted-f", "--epsilon", "-1"], "--epsilon: must be in (0, 1]"),
    ("epsilon nan", GOOD, ["--policy", "sorted-f", "--epsilon", "nan"], "--epsilon: must be in (0, 1], got nan"),
    ("B 0", GOOD, ["--policy", "sorted-f", "--B", "0"], "argument --B/--batch-cap: must be a positive integer"),
    ("samples 0", GOOD, ["--policy", "sorted-f", "--samples", "0"], "argument --samples: must be a positive"),
    ("time-step 0", GOOD, ["--policy", "sorted-lp", "--time-step", "0"], "argument --time-step: must be a positive"),
    ("seed -1", GOOD, ["--seed", "-1"], "argument --seed: must be a non-negative integer, got -1"),
    ("seed float", GOOD, ["--seed", "1.5"], "argument --seed: '1.5' is not an integer"),
    ("max-rounds 0", GOOD, ["--max-rounds", "0"], "argument --max-rounds: must be a positive integer"),
    ("option for another policy", GOOD, ["--alpha", "0.3"], "policy mc-sf does not take --alpha (--alpha applies"),
    ("tie-break for sorted-f", GOOD, ["--policy", "sorted-f", "--tie-break", "random"],
     "policy sorted-f does not take --tie-break"),
    ("alpha too large for a request", "arrival,prompt,output\n0,30,5\n", ["--policy", "alpha-greedy", "--alpha", "0.9"],
     "alpha-greedy: alpha = 0.9: request 0 needs s + 1 = 31 tokens"),
    ("schedule-out unwritable", GOOD, ["--schedule-out", "/nonexistent-dir/x.csv"], "--schedule-out /nonexistent-dir"),
    # more value spellings (cli probe)
    ("trailing dot", "arrival,prompt,output\n0,5.,3\n", [], "column prompt: '5.' is not an integer (a whole number"),
    ("leading dot", "arrival,prompt,output\n0,.5,3\n", [], "column prompt: '.5' is not an integer"),
    ("nonzero fraction digits", "arrival,prompt,output\n0,2.50,3\n", [], "column prompt: '2.50' is not an integer"),
    ("two dots", "arrival,prompt,output\n0,5.0.0,3\n", [], "column prompt: '5.0.0' is not an integer"),
    ("hex value", "arrival,prompt,output\n0,0x1A,3\n", [], "column prompt: '0x1A' is not an integer"),
    ("double minus", "arrival,prompt,output\n--5,2,3\n", [], "column arrival: '--5' is not an integer"),
    ("trailing minus", "arrival,prompt,output\n5-,2,3\n", [], "column arrival: '5-' is not an integer"),
    ("minus alone", "arrival,prompt,output\n-,2,3\n", [], "column arrival: '-' is not an integer"),
    ("minus then space", "arrival,prompt,output\n- 5,2,3\n", [], "column arrival: '- 5' is not an integer"),
    ("space inside", "arrival,prompt,output\n0,5 6,3\n", [], "column prompt: '5 6' is not an integer"),
    ("quoted thousands", 'arrival,prompt,output\n0,"1,000",3\n', [], "column prompt: '1,000' is not an integer"),
    ("inf value", "arrival,prompt,output\n0,2,inf\n", [], "column output: 'inf' is not an integer"),
    ("boolean value", "arrival,prompt,output\n0,true,3\n", [], "column prompt: 'true' is not an integer"),
    ("superscript two", "arrival,prompt,output\n0,\u00b2,3\n", [], "column prompt: '\u00b2' is not an integer (ASCII"),
    ("vulgar fraction", "arrival,prompt,output\n0,\u00bd,3\n", [], "column prompt: '\u00bd' is not an integer (ASCII"),
    ("exponent 5E0", "arrival,prompt,output\n0,5E0,3\n", [], "'5E0' is not an integer (no exponent notation)"),
    ("negative zero prompt", "arrival,prompt,output\n0,-0,3\n", [], "line 2: request 0: prompt size must be positive, got 0"),
    ("NUL inside a value", b"arrival,prompt,output\n0,2\x00,3\n", [], "a NUL byte at offset 25, line 2"),
    ("UTF-16 big-endian", GOOD.encode("utf-16-be").join([b"\xfe\xff", b""]), [], "UTF-16"),
    ("gzip file", b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", [], "binary data"),
    ("xlsx file", b"PK\x03\x04\x14\x00\x06\x00\x08\x00\x00\x00!\x00", [], "binary data"),
    # shapes of the file (cli probe)
    ("tab-separated", "arrival\tprompt\toutput\n0\t2\t3\n", [], "(tab-separated? kvlib reads comma-separated values)"),
    ("semicolon-separated", "arrival;prompt;output\n0;2;3\n", [], "(semicolon-separated? kvlib reads comma-separated"),
    ("header repeated mid-file", GOOD + "arrival,prompt,output\n2,1,1\n", [],
     "line 4: a second header line (two files concatenated?)"),
    ("unterminated quote", 'arrival,prompt,output\n0,"2,3\n1,1,4\n', [], "line 2: a quoted field runs past the end of"),
    ("header of empty names", ",,\n0,2,3\n", [], "missing column(s) arrival, prompt, output"),
    ("trailing comma in header", "arrival,prompt,output,\n0,2,3\n", [], "unknown column(s) ''"),
    ("lower without upper", "arrival,prompt,output,lower\n0,2,3,1\n", ["--policy", "a-min"], "column(s) upper are missing"),
    ("lower text", IV.format(l="low", u=5), ["--policy", "a-min"], "line 2, column lower: 'low' is not an integer"),
    ("upper 2**53+1", IV.format(l=1, u=2**53 + 1), ["--policy", "a-min"], "column upper: 9007199254740993 is too large"),
    ("a-max upper never fits", IV.format(l=1, u=50), ["--policy", "a-max"], "line 2, columns prompt, upper: request 0"),
    ("a-l upper never fits", IV.format(l=1, u=50), ["--policy", "a-l"], "prompt + upper = 2 + 50 = 52 exceeds M = 40"),
    ("h-sf without columns", GOOD, ["--policy", "h-sf"], "policy h-sf needs interval predictions"),
    ("a-random without columns", GOOD, ["--policy", "a-random"], "policy a-random needs interval predictions"),
    # options (cli probe)
    ("memory 4.5", GOOD, ["--memory", "4.5"], "argument --memory/-M: '4.5' is not an integer (a whole number"),
    ("memory empty", GOOD, ["--memory", ""], "argument --memory/-M: '' is not an integer"),
    ("memory plus sign", GOOD, ["--memory", "+40"], "argument --memory/-M: '+40' is not an integer (no '+' sign)"),
    ("memory hex", GOOD, ["--memory", "0x28"], "argument --memory/-M: '0x28' is not an integer"),
    ("memory -0", GOOD, ["--memory", "-0"], "--memory must be positive, got 0"),
    ("memory too small for a request", GOOD, ["--memory", "4"], "line 2: request 0: prompt + output = 2 + 3 = 5 exceeds"),
    ("seed 2**63", GOOD, ["--seed", str(2**63)], "argument --seed: 9223372036854775808 is too large"),
    ("seed text", GOOD, ["--seed", "lucky"], "argument --seed: 'lucky' is not an integer"),
    ("seed 5000 digits", GOOD, ["--seed", "7" * 5000], "argument --seed: 7777"),
    ("max-rounds negative", GOOD, ["--max-rounds", "-3"], "argument --max-rounds: must be a positive integer"),
    ("max-rounds text", GOOD, ["--max-rounds", "many"], "argument --max-rounds: 'many' is not an integer"),
    ("stall-rounds 0", GOOD, ["--stall-rounds", "0"], "argument --stall-rounds: must be a positive integer"),
    ("stall-rounds 1e3", GOOD, ["--stall-rounds", "1e3"], "argument --stall-rounds: '1e3' is not an integer (no exp"),
    ("tie-break bogus", GOOD, ["--tie-break", "coin"], "argument --tie-break: invalid choice: 'coin'"),
    ("selector bogus", GOOD, ["--policy", "sorted-f", "--selector", "best"], "argument --selector: invalid choice"),
    ("phase2 bogus", GOOD, ["--policy", "sorted-f", "--phase2", "all"], "argument --phase2: invalid choice: 'all'"),
    ("phase1-constraint bogus", GOOD, ["--policy", "sorted-f", "--phase1-constraint", "tight"],
     "argument --phase1-constraint: invalid choice"),
    ("paper selector with lookahead", GOOD, ["--policy", "sorted-f", "--selector", "dp", "--phase1-constraint",
                                             "lookahead"], "peak constraint"),
    ("alpha hex", GOOD, ["--policy", "alpha-greedy", "--alpha", "0x1"], "argument --alpha: '0x1' is not a number"),
    ("alpha empty", GOOD, ["--policy", "alpha-greedy", "--alpha", ""], "argument --alpha: '' is not a number"),
    ("alpha inf", GOOD, ["--policy", "alpha-greedy", "--alpha", "inf"], "--alpha: must be in [0, 1), got inf"),
    ("alpha 1", GOOD, ["--policy", "alpha-greedy", "--alpha", "1"], "--alpha: must be in [0, 1), got 1"),
    ("beta 1.5", GOOD, ["--policy", "alpha-beta-clearing", "--beta", "1.5"], "--beta: must be in (0, 1], got 1.5"),
    ("beta nan", GOOD, ["--policy", "alpha-beta-clearing", "--beta", "nan"], "--beta: must be in (0, 1], got nan"),
    ("epsilon 1.5", GOOD, ["--policy", "sorted-f", "--epsilon", "1.5"], "--epsilon: must be in (0, 1], got 1.5"),
    ("B 5000 digits", GOOD, ["--policy", "sorted-f", "--B", "9" * 5000], "argument --B/--batch-cap: 9999"),
    ("time-step -1", GOOD, ["--policy", "sorted-lp", "--time-step", "-1"], "argument --time-step: must be a positive"),
    ("samples text", GOOD, ["--policy", "sorted-f", "--samples", "few"], "argument --samples: 'few' is not an integer"),
    ("policy with a trailing space", GOOD, ["--policy", "mc-sf "], "unknown policy 'mc-sf ' (did you mean mc-sf?)"),
    ("policy in capitals", GOOD, ["--policy", "MC-SF"], "unknown policy 'MC-SF' (did you mean mc-sf?)"),
    ("empty policy", GOOD, ["--policy", ""], "--policy: unknown policy ''"),
    ("beta for alpha-greedy", GOOD, ["--policy", "alpha-greedy", "--beta", "0.5"], "policy alpha-greedy does not take --beta"),
    ("time-step for sorted-f", GOOD, ["--policy", "sorted-f", "--time-step", "2"], "policy sorted-f does not take --time-step"),
    ("selector for mc-sf", GOOD, ["--selector", "dp"], "policy mc-sf does not take --selector"),
    ("phase2 for fcfs", GOOD, ["--policy", "fcfs", "--phase2", "scan"], "policy fcfs does not take --phase2"),
    ("unknown option", GOOD, ["--bogus"], "unrecognized arguments: --bogus"),
    # huge values: Python refuses int() of more than 4,300 digits with its own message and no location
    ("5000 digits", f"arrival,prompt,output\n0,2,{'9' * 5000}\n", [],
     "line 2, column output: 99999999999999999999"),
    ("5000 digits, message clipped", f"arrival,prompt,output\n0,2,{'9' * 5000}\n", [], "(5,000 characters) is too large"),
    ("5000 digits negative", f"arrival,prompt,output\n-{'9' * 5000},2,3\n", [], "line 2, column arrival: -9999"),
    ("100 KB text field", f"arrival,prompt,output\n0,{'x' * 10**5},3\n", [],
     "line 2, column prompt: 'xxxxxxxxxx"),
    ("100 KB text field, message clipped", f"arrival,prompt,output\n0,{'x' * 10**5},3\n", [],
     "(100,000 characters) is not an integer"),
    ("1 MB field", f"arrival,prompt,output\n0,{'x' * 10**6},3\n", [], "line 2: cannot parse CSV (field larger than"),
    ("memory 5000 digits", GOOD, ["--memory", "9" * 5000], "argument --memory/-M: 9999"),
    # huge headers: the message lists a few names and counts the rest
    ("100,000 unknown columns", "arrival,prompt,output," + ",".join(f"c{i}" for i in range(10**5)) + "\n0,2,3"
     + ",1" * 10**5 + "\n", [], "unknown column(s) 'c0', 'c1'"),
    ("100,000 columns, output missing", "arrival,prompt," + ",".join(f"c{i}" for i in range(10**5)) + "\n", [],
     "missing column(s) output; found arrival, prompt, c0"),
    ("100,000-character column name", "arrival,prompt,output," + "y" * 10**5 + "\n0,2,3,1\n", [],
     "unknown column(s) 'yyyyyyyyyy"),
    ("duplicate long column name", "arrival,prompt,output," + "z" * 5000 + "," + "z" * 5000 + "\n", [],
     "duplicate column 'zzzzzzzzz"),
    # options of sorted-f that the chosen selector ignores, and run-away sample counts (cli)
    ("samples without quantile-ours", GOOD, ["--policy", "sorted-f", "--samples", "8"],
     "--samples applies only with --selector quantile-ours"),
    ("samples with selector dp", GOOD, ["--policy", "sorted-f", "--selector", "dp", "--samples", "8"],
     "--samples applies only with --selector quantile-ours (got --selector dp)"),
    ("epsilon with selector swap", GOOD, ["--policy", "sorted-f", "--selector", "swap", "--epsilon", "0.1"],
     "--epsilon applies only with --selector scaled-dp or scaled-dp-ours (got --selector swap)"),
    ("B without a selector", GOOD, ["--policy", "sorted-f", "--B", "3"],
     "--B applies only with --selector scaled-dp or scaled-dp-ours (got --selector auto)"),
    ("samples 10**9", GOOD, ["--policy", "sorted-f", "--selector", "quantile-ours", "--samples", str(10**9)],
     "--samples 1000000000: more than 1,000"),
    ("samples 1001", GOOD, ["--policy", "sorted-f", "--selector", "quantile-ours", "--samples", "1001"],
     "pass --force to run anyway"),
    # malformed request CSVs, third pass (#50): encodings, columns, values
    ("UTF-32 file", GOOD.encode("utf-32"), [], "req.csv: the file is UTF-32 encoded; save it as UTF-8"),
    ("UTF-32 big-endian", b"\x00\x00\xfe\xff" + GOOD.encode("utf-32-be"), [], "the file is UTF-32 encoded"),
    ("invalid UTF-8 continuation", b"arrival,prompt,output\n0,2,3\n0,1,\xc3\x28\n", [],
     "line 3: not UTF-8 text (byte 0xc3 at offset 32)"),
    ("only a byte-order mark", "\ufeff", [], "file is empty (expected a header line"),
    ("NUL in the header", b"arri\x00val,prompt,output\n0,2,3\n", [], "a NUL byte at offset 4, line 1"),
    ("pipe-separated", "arrival|prompt|output\n0|2|3\n", [], "(pipe-separated? kvlib reads comma-separated"),
    ("JSON file", '[{"arrival":0,"prompt":2,"output":3}]\n', [], "line 1: missing column(s) arrival, prompt, "
     "output; found [{"),
    ("HTML file", "<!DOCTYPE html><html><body>404</body></html>\n", [], "found <!doctype html>"),
    ("misspelled column", "arival,prompt,output\n0,2,3\n", [], "line 1: missing column(s) arrival; found arival"),
    ("no known column", "a,b,c\n0,2,3\n", [], "missing column(s) arrival, prompt, output; found a, b, c"),
    ("duplicate lower column", "arrival,prompt,output,lower,lower\n0,2,3,1,4\n", ["--policy", "a-min"],
     "line 1: duplicate column 'lower'"),
    ("row with a trailing comma", "arrival,prompt,output\n0,2,3,\n", [], "line 2: expected 3 fields, found 4"),
    ("CR inside a quoted field", 'arrival,prompt,output\n0,"2\r",3\n', [],
     "line 2: a quoted field runs past the end of its line"),
    ("zero-width space in a value", "arrival,prompt,output\n0,2\u200b,3\n", [],
     "line 2, column prompt: '2\\u200b' is not an integer (ASCII digits 0-9 only)"),
    ("combining accent on a digit", "arrival,prompt,output\n0,2\u0301,3\n", [],
     "line 2, column prompt: '2\u0301' is not an integer (ASCII digits 0-9 only)"),
    ("-nan value", "arrival,prompt,output\n0,-nan,3\n", [], "line 2, column prompt: '-nan' is not an integer"),
    ("Infinity output", "arrival,prompt,output\n0,2,Infinity\n", [], "column output: 'Infinity' is not an integer"),
    ("arrival 1e3", "arrival,prompt,output\n1e3,2,3\n", [], "column arrival: '1e3' is not an integer (no exponent"),
    ("arrival 2**63-1", f"arrival,prompt,output\n{2**63 - 1},2,3\n", [],
     "column arrival: 9223372036854775807 is too large (kvlib accepts values up to 2**53"),
    ("upper negative", IV.format(l=1, u=-4), ["--policy", "a-min"], "line 2: lower = 1 exceeds upper = -4"),
    ("upper nan", IV.format(l=1, u="nan"), ["--policy", "a-min"], "line 2, column upper: 'nan' is not an integer"),
    ("upper empty", IV.format(l=1, u=""), ["--policy", "a-min"], "line 2, column upper: '' is not an integer"),
    ("lower fractional", IV.format(l=1.5, u=4), ["--policy", "a-min"], "column lower: '1.5' is not an integer"),
    ("lower negative", IV.format(l=-1, u=4), ["--policy", "a-min"], "line 2: lower = -1 must be >= 1"),
]

# solve-specific options (checked before any solver runs)
SOLVE_CASES = [
    ("time-limit 0", ["--time-limit", "0"], "--time-limit: must be a positive number of seconds, got 0"),
    ("time-limit nan", ["--time-limit", "nan"], "--time-limit: must be a positive number of seconds, got nan"),
    ("time-limit -1", ["--time-limit", "-1"], "--time-limit: must be a positive number"),
    ("threads 0", ["--threads", "0"], "--threads: must be between 1 and the number of CPU cores"),
    ("threads -1", ["--threads", "-1"], "--threads: must be between 1"),
    ("threads 1000", ["--threads", "1000"], "--threads: must be between 1"),
    ("solve memory 1e23", ["--memory", "1e23"], "'1e23' is not an integer (no exponent notation)"),
    ("solve memory 0", ["--memory", "0"], "--memory must be positive, got 0"),
    ("time-limit text", ["--time-limit", "soon"], "argument --time-limit: 'soon' is not a number"),
    ("time-limit empty", ["--time-limit", ""], "argument --time-limit: '' is not a number"),
    ("time-limit underscore", ["--time-limit", "1_0"], "argument --time-limit: '1_0' is not a number"),
    ("time-limit inf", ["--time-limit", "inf"], "--time-limit: must be a positive number of seconds, got inf"),
    ("time-limit 1e10", ["--time-limit", "1e10"], "--time-limit: must be a positive number of seconds, got 1e10"),
    ("threads 1.5", ["--threads", "1.5"], "argument --threads: '1.5' is not an integer"),
    ("threads text", ["--threads", "two"], "argument --threads: 'two' is not an integer"),
    ("method bogus", ["--method", "magic"], "argument --method: invalid choice: 'magic'"),
    ("formulation bogus", ["--formulation", "dense"], "argument --formulation: invalid choice: 'dense'"),
    ("solve memory plus sign", ["--memory", "+8"], "'+8' is not an integer (no '+' sign)"),
    ("solve memory too small", ["--memory", "4"], "line 2: request 0: prompt + output = 2 + 3 = 5 exceeds"),
    ("solve policy option", ["--policy", "mc-sf"], "unrecognized arguments: --policy mc-sf"),
    ("formulation with method pipeline", ["--method", "pipeline", "--formulation", "aggregated"],
     "--formulation applies only to --method ip (got --method pipeline,"),
    ("formulation plain with method pipeline", ["--formulation", "plain", "--method", "pipeline"],
     "--formulation applies only to --method ip"),
]

TH = "arrived_at,num_prefill_tokens,num_decode_tokens\n"  # a trace header

CONVERT_CASES = [
    ("unsorted arrivals", "arrived_at,num_prefill_tokens,num_decode_tokens\n1.0,5,3\n0.5,5,3\n", [],
     "line 3, column arrived_at: arrival time 0.5 is earlier than the previous row's 1.0"),
    ("negative arrival seconds", "arrived_at,num_prefill_tokens,num_decode_tokens\n-1.0,5,3\n", [],
     "line 2, column arrived_at: arrival time -1.0 is negative"),
    ("nan arrival", "arrived_at,num_prefill_tokens,num_decode_tokens\nnan,5,3\n", [], "not a finite number"),
    ("text arrival", "arrived_at,num_prefill_tokens,num_decode_tokens\nsoon,5,3\n", [],
     "line 2, column arrived_at: 'soon' is not a number of seconds"),
    ("zero decode tokens", "arrived_at,num_prefill_tokens,num_decode_tokens\n0.0,5,0\n", [],
     "line 2, column num_decode_tokens: token count must be positive, got 0"),
    ("fractional tokens", "arrived_at,num_prefill_tokens,num_decode_tokens\n0.0,5.5,3\n", [],
     "column num_prefill_tokens: '5.5' is not an integer"),
    ("no token column", "arrived_at,num_prefill_tokens\n0.0,5\n", [], "no output token column"),
    ("round-seconds 0", "arrived_at,num_prefill_tokens,num_decode_tokens\n0.0,5,3\n", ["--round-seconds", "0"],
     "--round-seconds: must be a positive number of seconds, got 0"),
    ("5000-digit token count", "arrived_at,num_prefill_tokens,num_decode_tokens\n0.0,5," + "7" * 5000 + "\n", [],
     "line 2, column num_decode_tokens: 7777"),
    ("5000-digit arrival seconds", "arrived_at,num_prefill_tokens,num_decode_tokens\n" + "1" * 5000 + ",5,3\n", [],
     "line 2, column arrived_at: 1111"),
    ("hex arrival", TH + "0x1,5,3\n", [], "line 2, column arrived_at: '0x1' is not a number of seconds"),
    ("Infinity arrival", TH + "Infinity,5,3\n", [], "line 2, column arrived_at: 'Infinity' is not a finite number"),
    ("empty arrival", TH + ",5,3\n", [], "line 2, column arrived_at: '' is not a number of seconds"),
    ("underscore arrival", TH + "1_0,5,3\n", [], "line 2, column arrived_at: '1_0' is not a number of seconds"),
    ("non-ASCII arrival", TH + "\u0661.5,5,3\n", [], "line 2, column arrived_at: '\u0661.5' is not a number"),
    ("arrival beyond 2**53 rounds", TH + "1e400,5,3\n", [], "line 2, column arrived_at: arrival 1e400 s is more than 2**53 rounds"),
    ("arrival with 101 digits", TH + "0." + "1" * 101 + ",5,3\n", [], "has more than 100 significant digits"),
    ("plus sign tokens", TH + "0.5,+5,3\n", [], "column num_prefill_tokens: '+5' is not an integer (no '+' sign)"),
    ("empty token count", TH + "0.5,,3\n", [], "line 2, column num_prefill_tokens: '' is not an integer"),
    ("negative token count", TH + "0.5,-5,3\n", [], "column num_prefill_tokens: token count must be positive, got -5"),
    ("trace too many fields", TH + "0.5,5,3,9\n", [], "line 2: expected 3 fields, found 4"),
    ("trace duplicate column", "arrived_at,arrived_at,num_decode_tokens\n0.5,5,3\n", [], "line 1: duplicate column 'arrived_at'"),
    ("trace without prompt column", "arrived_at,num_decode_tokens\n0.5,3\n", [], "no prompt token column"),
    ("trace tab-separated", "arrived_at\tnum_prefill_tokens\tnum_decode_tokens\n0\t5\t3\n", [], "(tab-separated?"),
    ("trace header repeated", TH + "0.5,5,3\n" + TH + "0.7,5,3\n", [], "line 3: a second header line"),
    ("trace unterminated quote", TH + '0.5,"5,3\n', [], "line 2: a quoted field runs past the end of its line"),
    ("trace empty file", "", [], "file is empty (expected a header line)"),
    ("trace UTF-16", "arrived_at,num_prefill_tokens,num_decode_tokens\n0.5,5,3\n".encode("utf-16"), [], "UTF-16"),
    ("trace binary", b"\x00\x01\x02", [], "binary data"),
    ("trace 1 MB field", TH + "0.5," + "9" * 10**6 + ",3\n", [], "line 2: cannot parse CSV (field larger than"),
    ("trace 100,000 columns, none known", ",".join(f"c{i}" for i in range(10**5)) + "\n", [],
     "no prompt token column; expected one of num_prefill_tokens"),
    ("round-seconds nan", TH + "0.5,5,3\n", ["--round-seconds", "nan"], "--round-seconds: must be a positive number of seconds, got nan"),
    ("round-seconds inf", TH + "0.5,5,3\n", ["--round-seconds", "inf"], "--round-seconds: must be a positive number"),
    ("round-seconds negative", TH + "0.5,5,3\n", ["--round-seconds", "-0.1"], "--round-seconds: must be a positive number"),
    ("round-seconds -0", TH + "0.5,5,3\n", ["--round-seconds", "-0"], "--round-seconds: must be a positive number"),
    ("round-seconds empty", TH + "0.5,5,3\n", ["--round-seconds", ""], "argument --round-seconds: '' is not a number"),
    ("round-seconds hex float", TH + "0.5,5,3\n", ["--round-seconds", "0x1p-3"], "'0x1p-3' is not a number"),
    ("round-seconds underscore", TH + "0.5,5,3\n", ["--round-seconds", "0_1"], "'0_1' is not a number"),
    ("round-seconds 1e10", TH + "0.5,5,3\n", ["--round-seconds", "1e10"], "--round-seconds: must be at most 1e9 seconds"),
    ("round-seconds 101 digits", TH + "0.5,5,3\n", ["--round-seconds", "0." + "1" * 101], "at most 100 significant"),
    ("round-seconds 1e-30", TH + "5,5,3\n", ["--round-seconds", "1e-30"], "arrival 5 s is more than 2**53 rounds of 1e-30 s"),
    ("trace header only", "arrived_at,num_prefill_tokens,num_decode_tokens\n", [], "no rows"),
]


def _file(tmp_path, content, name="req.csv"):
    p = tmp_path / name
    if isinstance(content, bytes):
        p.write_bytes(content)
    else:
        p.write_text(content, encoding="utf-8")
    return p


def _run(capsys, argv):
    code = main(argv)
    cap = capsys.readouterr()
    return code, cap.out, cap.err


#: No message may be longer than this (a 100,000-column header made a 989 KB message).
MAX_MESSAGE = 1500


def _assert_bad(code, out, err, expected):
    assert code == 2, (code, err)
    assert expected in err, err
    assert "Traceback" not in err and out == "", (out, err)
    assert len(err) <= MAX_MESSAGE, (len(err), err[:300])


@pytest.mark.parametrize("case", CLI_CASES, ids=[c[0] for c in CLI_CASES])
def test_cli_rejects_bad_simulate_input(tmp_path, capsys, case):
    _, content, extra, expected = case
    f = _file(tmp_path, content)
    argv = ["simulate", str(f), "--policy", "mc-sf", "--memory", "40"] + extra  # later flags win
    _assert_bad(*_run(capsys, argv), expected)


@pytest.mark.parametrize("case", SOLVE_CASES, ids=[c[0] for c in SOLVE_CASES])
def test_cli_rejects_bad_solve_options(tmp_path, capsys, case):
    name, extra, expected = case
    f = _file(tmp_path, GOOD)
    _assert_bad(*_run(capsys, ["solve", str(f), "--memory", "40"] + extra), expected)


@pytest.mark.parametrize("case", CONVERT_CASES, ids=[c[0] for c in CONVERT_CASES])
def test_cli_rejects_bad_traces(tmp_path, capsys, case):
    _, content, extra, expected = case
    f = _file(tmp_path, content, "trace.csv")
    _assert_bad(*_run(capsys, ["convert", str(f)] + extra), expected)


@pytest.mark.parametrize("cmd", ["simulate", "solve"])
def test_cli_path_errors(tmp_path, capsys, cmd):
    extra = ["--policy", "mc-sf"] if cmd == "simulate" else []
    _assert_bad(*_run(capsys, [cmd, str(tmp_path / "missing.csv"), "--memory", "40"] + extra), "no such file")
    _assert_bad(*_run(capsys, [cmd, str(tmp_path), "--memory", "40"] + extra), "is a directory")


PATH_CASES = [
    ("empty input path", lambda d: "", "FILE.csv: empty path"),
    ("input is a directory", lambda d: str(d), "is a directory"),
    ("input missing", lambda d: str(d / "missing.csv"), "no such file"),
    ("input /dev/null", lambda d: "/dev/null", "file is empty"),
    ("input path with a NUL", lambda d: str(d / "a\x00b.csv"), "a path cannot contain a NUL character"),
    # path shapes (#50): a trailing slash on a file (read the file silently before), a file as a directory
    ("input file with a trailing slash", lambda d: _touch(d / "in.csv") + "/",
     "in.csv/: not a directory (a trailing slash names a directory; drop it to read the file)"),
    ("input below a file", lambda d: _touch(d / "in.csv") + "/x.csv", "in.csv/x.csv: no such file"),
    ("input name of 300 characters", lambda d: str(d / ("q" * 300)), "cannot read (File name too long)"),
]


def _touch(p, text=GOOD) -> str:
    p.write_text(text)
    return str(p)


@pytest.mark.parametrize("cmd", ["simulate", "solve", "convert"])
@pytest.mark.parametrize("case", PATH_CASES, ids=[c[0] for c in PATH_CASES])
def test_cli_bad_input_paths(tmp_path, capsys, cmd, case):
    _, path, expected = case
    extra = {"simulate": ["--policy", "mc-sf", "--memory", "40"], "solve": ["--memory", "40"], "convert": []}[cmd]
    if cmd == "convert":
        expected = expected.replace("FILE.csv", "TRACE.csv")
    _assert_bad(*_run(capsys, [cmd, path(tmp_path)] + extra), expected)


def _same_as_input(d, f):
    import os

    hard = d / "hard.csv"
    os.link(f, hard)
    return str(hard)


def _symlink_to_input(d, f):
    link = d / "link.csv"
    link.symlink_to(f)
    return str(link)


# (id, output path from (tmp dir, input path), extra argv, substring); each runs for simulate, solve and convert
OUTPUT_CASES = [
    ("output empty path", lambda d, f: "", [], "empty path"),
    ("output blank path", lambda d, f: "  ", [], "empty path"),
    ("output is a directory", lambda d, f: str(d), [], "is a directory (name a file inside it)"),
    ("output directory missing", lambda d, f: str(d / "no" / "x.csv"), [], "does not exist"),
    ("output is the input", lambda d, f: str(f), [], "is the input file"),
    ("output is the input via ./..", lambda d, f: str(d / "sub" / "." / ".." / f.name), [], "is the input file"),
    ("output is a symlink to the input", _symlink_to_input, [], "is the input file"),
    ("output is a hard link to the input", _same_as_input, [], "is the input file"),
    ("output path with a NUL", lambda d, f: str(d / "a\x00b.csv"), [], "a path cannot contain a NUL character"),
    ("output on a full device", lambda d, f: "/dev/full", [], "No space left on device"),
    # path shapes (#50): a trailing slash wrote a regular file "new" before
    ("output new name with a trailing slash", lambda d, f: str(d / "new") + "/", [],
     "new/: not a directory (a trailing slash names a directory, and"),
    ("output existing file with a trailing slash", lambda d, f: _touch(d / "old.csv", "old\n") + "/", [],
     "old.csv/: not a directory"),
    ("output name ending in /.", lambda d, f: str(d / "new") + "/.", [], "new/.: not a directory"),
    ("output below a file", lambda d, f: str(f) + "/x.csv", [], ".csv is a file, not a directory)"),
    ("output name of 256 bytes", lambda d, f: str(d / ("q" * 256)), [],
     "(256 bytes): cannot write (a file name may have at most 255 bytes on this file system)"),
    ("output name of 128 two-byte characters", lambda d, f: str(d / ("\u00e9" * 128)), [], "(256 bytes): cannot "
     "write"),
    ("output directory with a newline, missing", lambda d, f: str(d / "a\nb" / "x.csv"), [],
     "a\\nb/x.csv': cannot write (directory '"),
]


@pytest.mark.parametrize("cmd", ["simulate", "solve", "convert"])
@pytest.mark.parametrize("case", OUTPUT_CASES, ids=[c[0] for c in OUTPUT_CASES])
def test_cli_bad_output_paths(tmp_path, capsys, cmd, case):
    import os

    name, out_path, extra, expected = case
    if name == "output on a full device" and not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    (tmp_path / "sub").mkdir()
    if cmd == "convert":
        text = "arrived_at,num_prefill_tokens,num_decode_tokens\n0.0,2,3\n"
        f = _file(tmp_path, text, "trace.csv")
        argv = ["convert", str(f), "--out", out_path(tmp_path, f)]
        option = "--out"
    else:
        text = GOOD
        f = _file(tmp_path, text)
        argv = [cmd, str(f), "--memory", "40", "--schedule-out", out_path(tmp_path, f)]
        argv += ["--policy", "mc-sf"] if cmd == "simulate" else []
        option = "--schedule-out"
    code, out, err = _run(capsys, argv + extra)
    _assert_bad(code, out, err, expected)
    assert option in err, err
    assert f.read_text() == text  # the input is never touched
    assert not (tmp_path / "new").exists()  # a trailing slash wrote a regular file "new" before


@pytest.mark.parametrize("cmd", ["simulate", "solve"])
def test_cli_schedule_to_stdout_with_json(tmp_path, capsys, cmd):
    f = _file(tmp_path, GOOD)
    argv = [cmd, str(f), "--memory", "40", "--json", "--schedule-out", "/dev/stdout"]
    argv += ["--policy", "mc-sf"] if cmd == "simulate" else []
    _assert_bad(*_run(capsys, argv), "cannot go to stdout with --json")


# (id, output name inside the temporary directory): hostile shapes that are valid names and must be written
ACCEPTED_OUTPUT_CASES = [
    ("output name of 250 characters", "n" * 246 + ".csv"),  # its temporary name exceeded 255 bytes before
    ("output name of 127 two-byte characters", "\u00e9" * 127),
    ("output name with a newline", "a\nb.csv"),
]


@pytest.mark.parametrize("cmd", ["simulate", "solve", "convert"])
@pytest.mark.parametrize("case", ACCEPTED_OUTPUT_CASES, ids=[c[0] for c in ACCEPTED_OUTPUT_CASES])
def test_cli_accepts_valid_output_names(tmp_path, capsys, cmd, case):
    """Exit 0, the file written under exactly that name (no temporary file left), and the message names it on
    one line (a control character is shown escaped)."""
    _, name = case
    target = tmp_path / name
    if cmd == "convert":
        f = _file(tmp_path, TH + "0.0,2,3\n", "trace.csv")
        argv = ["convert", str(f), "--round-seconds", "0.1", "--out", str(target)]
        said = "wrote "
    else:
        f = _file(tmp_path, GOOD)
        argv = [cmd, str(f), "--memory", "40", "--schedule-out", str(target)] + (
            ["--policy", "mc-sf"] if cmd == "simulate" else [])
        said = "written to "
    code, out, err = _run(capsys, argv)
    assert code == 0, err
    assert target.read_text().startswith("arrival,prompt,output" if cmd == "convert" else "id,arrival")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([f.name, name])
    shown = repr(str(target)) if "\n" in name else str(target)
    assert said + shown in out + err, (out, err)


# --------------------------------------------------------------------------- file modes and owners (#50)
#
# Run as an unprivileged user: root may write any file, so these kinds exist only for other users.  The
# CLI runs in one subprocess per command, which imports kvlib as root (the interpreter lives under /root,
# which other users cannot enter), drops to the user `nobody` and then runs every case in-process.

_UNPRIVILEGED = r"""
import contextlib, io, json, os, sys
import kvlib.cli as cli
cases, warm, uid, gid = json.loads(sys.argv[1])
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    cli.main(warm)  # import everything the commands import lazily, while /root is readable
if os.geteuid() == 0:
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)
results = []
for argv in cases:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(argv)
    results.append((code, out.getvalue(), err.getvalue()))
print(json.dumps(results))
"""


def _unprivileged_ids():
    """(uid, gid) to run as: `nobody` when root, else the current (already unprivileged) user."""
    import os
    import pwd

    if os.geteuid() != 0:
        return os.getuid(), os.getgid()
    try:
        pw = pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("running as root and there is no user 'nobody' to run the CLI as an unprivileged user")
    return pw.pw_uid, pw.pw_gid


def _run_unprivileged(cases, workdir):
    import json
    import os
    import subprocess
    import sys

    uid, gid = _unprivileged_ids()
    warm_in = _touch(workdir / "warm.csv")
    warm = ["simulate", warm_in, "--policy", "mc-sf", "--memory", "40", "--schedule-out", warm_in + ".out"]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([root] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    r = subprocess.run([sys.executable, "-c", _UNPRIVILEGED, json.dumps([cases, warm, uid, gid])], cwd=workdir,
                       capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout)


def _mode_setup(d, uid, gid):
    """The files of :data:`MODE_CASES` in ``d``; everything but root.csv and rootdir belongs to the user."""
    import os

    _touch(d / "in.csv")
    _touch(d / "trace.csv", TH + "0.0,2,3\n")
    (d / "ro.csv").write_text("old\n")
    (d / "ro.csv").chmod(0o444)
    (d / "rodir").mkdir()
    (d / "rodir" / "f.csv").write_text("old\n")
    (d / "unreadable.csv").write_text(GOOD)
    (d / "unreadable.csv").chmod(0o000)
    (d / "closed").mkdir()
    _touch(d / "closed" / "in.csv")
    (d / "rootdir").mkdir()
    for p in d.rglob("*"):
        os.chown(p, uid, gid)
    os.chown(d, uid, gid)
    (d / "root.csv").write_text("old\n")  # owned by root (when root runs the tests), mode 0644
    (d / "rootdir").chmod(0o555)
    (d / "rodir").chmod(0o555)
    (d / "closed").chmod(0o000)


# (id, argv after the command's input (None: no output option), input name, exit code, message, file -> content)
MODE_CASES = [
    ("output read-only file (0444)", "ro.csv", None, 2,
     "ro.csv: cannot write (permission denied: the file is read-only for this user; kvlib refuses to replace it, "
     "as > would)", {"ro.csv": "old\n"}),
    ("output file of another owner (0644)", "root.csv", None, 2, "root.csv: cannot write (permission denied: the "
     "file is read-only for this user", {"root.csv": "old\n"}),
    ("output new file in a read-only directory", "rodir/new.csv", None, 2,
     "rodir/new.csv: cannot write (permission denied in directory rodir)", {}),
    ("output in a read-only directory of another owner", "rootdir/new.csv", None, 2,
     "rootdir/new.csv: cannot write (permission denied in directory rootdir)", {}),
    ("output writable file in a read-only directory", "rodir/f.csv", None, 0,
     "rodir/f.csv: directory rodir is not writable, so the file is overwritten in place (not atomically", {}),
    ("input unreadable (0000)", None, "unreadable.csv", 2, "unreadable.csv: permission denied", {}),
    ("input in a directory without search permission", None, "closed/in.csv", 2, "closed/in.csv: permission "
     "denied", {}),
]


@pytest.mark.parametrize("cmd", ["simulate", "convert"])
def test_cli_file_modes_and_owners_as_an_unprivileged_user(cmd):
    import os
    import shutil
    import tempfile

    uid, gid = _unprivileged_ids()
    # a file of another owner exists only when root sets it up; otherwise root.csv is the user's own
    modes = [c for c in MODE_CASES if os.geteuid() == 0 or c[1] != "root.csv"]
    d = __import__("pathlib").Path(tempfile.mkdtemp(prefix="kvlib-modes-"))  # /tmp: reachable by `nobody`
    try:
        _mode_setup(d, uid, gid)
        option = "--out" if cmd == "convert" else "--schedule-out"
        cases = []
        for _, out, inp, _, _, _ in modes:
            src = inp or ("trace.csv" if cmd == "convert" else "in.csv")
            argv = [cmd, src] + (["--round-seconds", "0.1"] if cmd == "convert" else ["--policy", "mc-sf",
                                                                                     "--memory", "40"])
            cases.append(argv + ([option, out] if out else []))
        results = _run_unprivileged(cases, d)
        for (name, out, _, want, expected, kept), (code, stdout, err) in zip(modes, results):
            assert code == want, (name, code, err)
            assert expected in err and "Traceback" not in err, (name, err)
            if out and want == 2:
                assert option in err, (name, err)
            for f, text in kept.items():
                assert (d / f).read_text() == text, name  # refused: the file is intact
        assert (d / "rodir" / "f.csv").read_text().startswith("arrival" if cmd == "convert" else "id,")
        assert sorted(os.listdir(d / "rodir")) == ["f.csv"]
    finally:
        for p in (d / "closed", d / "rodir", d / "rootdir"):
            p.chmod(0o755)
        shutil.rmtree(d)


def test_a_large_file_error_names_the_last_line(tmp_path, capsys):
    n = 2 * 10**5  # a million lines cost 29 s of the suite (the reader parses 35,000 lines a second)
    body = "0,1,1\n" * (n - 1) + "0,1,x\n"
    f = _file(tmp_path, "arrival,prompt,output\n" + body)
    _assert_bad(*_run(capsys, ["simulate", str(f), "--policy", "fcfs", "--memory", "40"]),
                f"line {n + 1}, column output: 'x' is not an integer")


# ----------------------------------------------------------------------------------------- accepted, and right

def test_bom_crlf_blank_lines_and_reordered_columns_give_the_same_answer(tmp_path, capsys):
    import json

    plain = _file(tmp_path, GOOD, "a.csv")
    variants = [
        "\ufeff" + GOOD,  # UTF-8 byte-order mark
        GOOD.replace("\n", "\r\n"),  # CRLF
        "arrival,prompt,output\n\n0,2,3\n\n1,1,4\n\n",  # blank lines
        "output,arrival,prompt\n3,0,2\n4,1,1\n",  # reordered columns
        " Arrival , PROMPT ,output\n0, 2 ,3\n1,1,4\n",  # case and spaces in the header and fields
        "arrival,prompt,output,id\n0,2.0,3,a\n1,1,4,b\n",  # '2.0' and an ignored id column
    ]
    code, out, _ = _run(capsys, ["simulate", str(plain), "--policy", "mc-sf", "--memory", "6", "--json"])
    assert code == 0
    want = json.loads(out)
    for k, text in enumerate(variants):
        f = _file(tmp_path, text, f"v{k}.csv")
        code, out, err = _run(capsys, ["simulate", str(f), "--policy", "mc-sf", "--memory", "6", "--json"])
        assert code == 0, (k, err)
        assert json.loads(out) == want, k


def test_unsorted_arrivals_are_requests_in_file_order(tmp_path, capsys):
    """Arrivals need not be sorted: request i is the i-th line; the answer equals the sorted file's, permuted."""
    import json

    a = _file(tmp_path, "arrival,prompt,output\n3,1,2\n0,2,3\n1,1,4\n", "a.csv")
    b = _file(tmp_path, "arrival,prompt,output\n0,2,3\n1,1,4\n3,1,2\n", "b.csv")
    ra = json.loads(_run(capsys, ["simulate", str(a), "--policy", "fcfs", "--memory", "7", "--json"])[1])
    rb = json.loads(_run(capsys, ["simulate", str(b), "--policy", "fcfs", "--memory", "7", "--json"])[1])
    assert ra["tel"] == rb["tel"] and ra["starts"] == [rb["starts"][2], rb["starts"][0], rb["starts"][1]]


# ----------------------------------------------------------------------------------------- the API

SMALL = Instance.at_zero([2, 1, 3], [3, 4, 2], 10)
O = SMALL.output


def _iv(**kw):
    return dict(lower=kw.get("lower", O), upper=kw.get("upper", O), reveal_output=False)


API_CASES = [
    ("unknown policy", lambda: make_policy("nope"), UnknownPolicyError, "unknown policy 'nope'"),
    ("misspelled policy", lambda: make_policy("mc_sf"), UnknownPolicyError, "did you mean 'mc-sf'"),
    ("misspelled keyword", lambda: make_policy("mc-sf", tie_brek="index"), ParameterError, "tie_brek"),
    ("foreign option", lambda: make_policy("fcfs", alpha=0.3), ParameterError,
     "policy fcfs does not take option(s) alpha (alpha is an option of alpha-greedy"),
    ("alpha 1", lambda: make_policy("alpha-greedy", alpha=1.0), ParameterError, "option alpha must be in [0, 1)"),
    ("epsilon nan", lambda: make_policy("sorted-f", epsilon=math.nan), ParameterError, "option epsilon must be finite"),
    ("B 0", lambda: make_policy("sorted-f", B=0), ParameterError, "option B must be >= 1"),
    ("samples 0", lambda: make_policy("sorted-f", samples=0), ParameterError, "option samples must be >= 1"),
    ("time_step 0", lambda: make_policy("sorted-lp", time_step=0), ParameterError, "option time_step must be >= 1"),
    ("tie_break typo value", lambda: make_policy("mc-sf", tie_break="idx"), ParameterError, "tie_break must be"),
    ("seed -1", lambda: simulate(SMALL, make_policy("mc-sf"), seed=-1), ParameterError, "seed must be a non-negative"),
    ("seed float", lambda: simulate(SMALL, make_policy("mc-sf"), seed=1.5), ParameterError, "seed must be"),
    ("seed bool", lambda: simulate(SMALL, make_policy("mc-sf"), seed=True), ParameterError, "seed must be"),
    ("known_output length", lambda: simulate(SMALL, make_policy("mc-sf"), known_output=[1, 2]), ParameterError,
     "known_output has shape (2,), expected (3,)"),
    ("known_output NaN", lambda: simulate(SMALL, make_policy("mc-sf"), known_output=[1.0, math.nan, 2.0]),
     ParameterError, "known_output: request 1 has nan"),
    ("known_output zero", lambda: simulate(SMALL, make_policy("mc-sf"), known_output=[1, 0, 2]), ParameterError,
     "known_output: request 1 has 0, must be >= 1"),
    ("lower wrong length", lambda: simulate(SMALL, make_policy("a-min"), **_iv(lower=[1, 1])), ParameterError,
     "lower has shape (2,), expected (3,)"),
    ("lower > upper", lambda: simulate(SMALL, make_policy("a-min"), **_iv(lower=[3, 5, 2], upper=[3, 4, 2])),
     InstanceError, "request 1: interval prediction lower = 5 exceeds upper = 4"),
    ("interval misses output", lambda: simulate(SMALL, make_policy("a-min"), **_iv(lower=[1, 1, 1], upper=[2, 9, 9])),
     InstanceError, "request 0: output = 3 is outside its interval [lower, upper] = [1, 2]"),
    ("only lower", lambda: simulate(SMALL, make_policy("a-min"), lower=O, reveal_output=False), ParameterError,
     "give both lower and upper"),
    ("reveal_output False with mc-sf", lambda: simulate(SMALL, make_policy("mc-sf"), reveal_output=False),
     ParameterError, "policy mc-sf needs output lengths"),
    ("interval policy without intervals", lambda: simulate(SMALL, make_policy("a-min"), reveal_output=False),
     ParameterError, "policy a-min needs interval predictions"),
    ("max_rounds 0", lambda: simulate(SMALL, make_policy("mc-sf"), max_rounds=0), ParameterError, "max_rounds"),
    ("not a policy", lambda: simulate(SMALL, "mc-sf"), ParameterError, "policy must be a kvlib Policy"),
    ("output NaN", lambda: Instance.from_arrays([0], [1], [math.nan], 10), InstanceError,
     "request 0: output length must be an integer, got nan"),
    ("arrival 2**63", lambda: Instance.from_arrays([2**63], [1], [1], 10), InstanceError,
     "request 0: arrival = 9223372036854775808 is too large"),
    ("output 1e30", lambda: Instance.from_arrays([0], [1], [1e30], 10), InstanceError,
     "request 0: output length = 1e+30 is too large"),
    ("memory 0", lambda: Instance.at_zero([1], [1], 0), InstanceError, "memory limit M must be positive"),
    ("memory text", lambda: Instance.at_zero([1], [1], "40"), InstanceError, "memory limit M must be an integer"),
    ("memory 1e23", lambda: Instance.at_zero([1], [1], 1e23), InstanceError, "memory limit M = 1e+23 is too large"),
    ("ragged columns", lambda: Instance.from_arrays([0, 0], [1], [1, 1], 10), InstanceError, "different lengths"),
    ("request not a triple", lambda: Instance(((0, 1),), 10), InstanceError, "request 0: expected (arrival"),
    ("never fits", lambda: Instance.at_zero([5], [6], 10), InstanceError, "request 0: prompt + output = 5 + 6"),
    ("fractional start", lambda: Schedule((1.7, 0, 0)), ScheduleError, "start time of request 0 must be an integer"),
    ("text start", lambda: Schedule(("3",)), ScheduleError, "start time of request 0 must be an integer"),
    ("bad cancelled run", lambda: Schedule((0,), ((0, 1),)), ScheduleError, "cancelled run 0: expected"),
    # kvlib.core.traces (the CLI's reader) called directly
    ("read_instance_csv(None)", lambda: read_instance_csv(None, 40), ParameterError,
     "path must be a file path (str or os.PathLike), got None"),
    ("read_instance_csv(bytes)", lambda: read_instance_csv(b"x.csv", 40), ParameterError, "path must be a file path"),
    ("convert_trace(None)", lambda: convert_trace(None, 0.1), ParameterError, "path must be a file path"),
    ("convert_trace round text", lambda: convert_trace("x.csv", "abc"), ParameterError,
     "round_seconds must be a positive number of seconds, got 'abc'"),
    ("convert_trace round bool", lambda: convert_trace("x.csv", True), ParameterError,
     "round_seconds must be a positive number of seconds, got True"),
    ("convert_trace round nan", lambda: convert_trace("x.csv", math.nan), ParameterError,
     "round_seconds must be a positive number of seconds, got nan"),
    ("convert_trace round zero", lambda: convert_trace("x.csv", 0), ParameterError,
     "round_seconds must be a positive number of seconds, got 0"),
    ("parse_int(None)", lambda: parse_int(None, "where"), ParameterError, "where: expected text, got None"),
    ("parse_int(5)", lambda: parse_int(5, "where"), ParameterError, "where: expected text, got 5"),
    ("dense profile too long", lambda: memory_profile(Instance.from_arrays([10**12], [1], [1], 10),
                                                        Schedule((10**12,))), ScheduleError, "pass times="),
    # arguments of the wrong type name the argument (they used to raise TypeError / AttributeError)
    ("Instance(number)", lambda: Instance(5, 10), InstanceError, "requests must be a sequence"),
    ("Instance(text)", lambda: Instance("0,1,1", 10), InstanceError, "requests must be a sequence"),
    ("check_schedule(None, ...)", lambda: check_schedule(None, Schedule((0, 0, 0))), ScheduleError,
     "instance must be a kvlib Instance, got NoneType"),
    ("check_schedule(..., None)", lambda: check_schedule(SMALL, None), ScheduleError,
     "schedule must be a kvlib Schedule"),
    ("check_schedule(..., list)", lambda: check_schedule(SMALL, [0, 0, 0]), ScheduleError,
     "schedule must be a kvlib Schedule (Schedule(starts)), got list"),
    ("total_latency(..., None)", lambda: total_latency(SMALL, None), ScheduleError, "schedule must be"),
    ("total_latency short schedule", lambda: total_latency(SMALL, Schedule((0,))), ScheduleError,
     "schedule has 1 start times for 3 requests"),
    ("peak_memory(None, ...)", lambda: peak_memory(None, Schedule((0,))), ScheduleError, "instance must be"),
    ("solve(None)", lambda: solve(None), ParameterError, "instance must be a kvlib Instance, got NoneType"),
    ("solve time_limit text", lambda: solve(SMALL, time_limit="x"), ParameterError, "time_limit must be"),
    ("solve threads 0", lambda: solve(SMALL, threads=0), ParameterError, "threads must be an integer"),
    ("solve method typo", lambda: solve(SMALL, method="pipe"), ParameterError, "method must be 'pipeline' or 'ip'"),
    ("solve search 2", lambda: solve(SMALL, search=2.0), ParameterError, "search must be a share"),
    ("solve infeasible incumbent", lambda: solve(SMALL, incumbent=[0, 0, 0]), ParameterError, "incumbent"),
    # #50, third pass
    ("a-max upper never fits", lambda: simulate(SMALL, make_policy("a-max"), **_iv(lower=[1, 1, 1], upper=[3, 50, 2])),
     ParameterError, "a-max: request 1: prompt + upper = 1 + 50 = 51 exceeds M = 10"),
    ("a-l upper never fits", lambda: simulate(SMALL, make_policy("a-l"), **_iv(lower=[1, 1, 1], upper=[3, 4, 9])),
     ParameterError, "a-l: request 2: prompt + upper = 3 + 9 = 12 exceeds M = 10"),
    ("a-l object reused after a failed run", lambda: _reused_a_l(), ParameterError,
     "a-l: request 1: prompt + upper = 1 + 50 = 51 exceeds M = 10"),
    ("brute_force_opt n = 12", lambda: brute_force_opt(Instance.at_zero([1] * 12, list(range(1, 13)), 20)),
     ParameterError, "brute_force_opt: n = 12 requests have 479,001,600 placement orders"),
    ("brute_force_opt(None)", lambda: brute_force_opt(None), ParameterError,
     "instance must be a kvlib Instance, got NoneType"),
]


def _reused_a_l():
    """One a-l object: a good run, then a run whose upper bound never fits (a bare ValueError from decide)."""
    pol = make_policy("a-l")
    simulate(SMALL, pol, **_iv(lower=[1, 1, 1]))
    simulate(SMALL, pol, **_iv(lower=[1, 1, 1], upper=[3, 50, 2]))


@pytest.mark.parametrize("case", API_CASES, ids=[c[0] for c in API_CASES])
def test_api_raises_named_errors(case):
    _, call, exc, expected = case
    with pytest.raises(exc) as info:
        call()
    assert isinstance(info.value, KvlibError)
    assert expected in str(info.value), str(info.value)


def test_at_least_three_hundred_fifty_kinds():
    """Distinct kinds of hostile input, each with its exit code and a message naming the culprit: the tables'
    ids (a kind shared by two tables, e.g. "memory 0" in the CLI and the API, counts once), the path, output and
    accepted-output-name cases per command, the file-mode cases per command (run as an unprivileged user), the
    stdout case per command, and the large file.  (304 before issue #50's third pass.)"""
    kinds = {c[0] for c in CLI_CASES + SOLVE_CASES + CONVERT_CASES + API_CASES}
    kinds |= {(c[0], cmd) for c in PATH_CASES + OUTPUT_CASES + ACCEPTED_OUTPUT_CASES
              for cmd in ("simulate", "solve", "convert")}
    kinds |= {(c[0], cmd) for c in MODE_CASES for cmd in ("simulate", "convert")}
    kinds |= {("schedule to stdout with --json", cmd) for cmd in ("simulate", "solve")}
    kinds.add("a large file (200,000 requests), the last one bad")
    assert len(kinds) >= 350, len(kinds)
