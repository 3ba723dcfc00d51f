"""The kvlib command line: clean --json, --schedule-out, exit codes, progress bars, convert, silent HiGHS."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from kvlib import Instance, check_schedule, make_policy, simulate
from kvlib.cli import EXIT_CODES, default_round_seconds, main
from kvlib.core.traces import convert_trace, write_instance_csv

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
if not SHARED.exists():
    SHARED = Path("/work/shared/data")
SMALL = "arrival,prompt,output\n0,2,3\n0,1,4\n1,3,2\n2,1,1\n"


def _file(tmp_path, text, name="req.csv"):
    p = tmp_path / name
    p.write_text(text)
    return p


def _run(capsys, argv):
    code = main(argv)
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def test_solve_json_is_one_document_in_a_real_process(tmp_path):
    """The reported failure: HiGHS's banner on stdout broke `kvlib solve --json | python -c json.load`."""
    f = _file(tmp_path, SMALL)
    r = subprocess.run([sys.executable, "-m", "kvlib.cli", "solve", str(f), "--memory", "8", "--json"],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)  # exactly one JSON document, nothing else
    assert doc["optimal"] and doc["lower"] == doc["upper"] == 15
    assert "HiGHS" not in r.stdout


def test_highs_is_silent_at_construction_and_run():
    code = ("import highspy, kvlib.core.highs as kh\n"
            "h = highspy.Highs(); h2 = kh.new()\n"
            "h2.addVar(0, 1); h2.changeColCost(0, 1.0); kh.run(h2)\n"
            "import cvxpy as cp\n"  # cvxpy's HiGHS interface (kvlib.theory.ratio, kvlib.optimum.exact.lp)
            "x = cp.Variable(2, integer=True)\n"
            "cp.Problem(cp.Minimize(cp.sum(x)), [x >= 1.5]).solve(solver=cp.HIGHS)\n"
            "print('ONLY-THIS')\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "ONLY-THIS\n", r.stdout


@pytest.mark.parametrize("cmd", ["simulate", "solve"])
def test_json_in_process_and_stray_prints_go_to_stderr(tmp_path, capsys, monkeypatch, cmd):
    import kvlib.optimum.exact as ke

    ks = sys.modules["kvlib.core.simulate"]  # the package attribute `simulate` is the function
    f = _file(tmp_path, SMALL)
    target = (ks, "simulate") if cmd == "simulate" else (ke, "solve")
    real = getattr(*target)

    def noisy(*a, **k):
        print("a library printing on stdout")
        return real(*a, **k)

    monkeypatch.setattr(*target, noisy)
    extra = ["--policy", "mc-sf"] if cmd == "simulate" else []
    code, out, err = _run(capsys, [cmd, str(f), "--memory", "8", "--json"] + extra)
    assert code == 0
    json.loads(out)
    assert out.count("\n") == 1


@pytest.mark.parametrize("cmd", ["simulate", "solve"])
def test_schedule_out(tmp_path, capsys, cmd):
    f = _file(tmp_path, SMALL)
    out_csv = tmp_path / "sched.csv"
    extra = ["--policy", "mc-sf"] if cmd == "simulate" else []
    code, out, _ = _run(capsys, [cmd, str(f), "--memory", "8", "--json", "--schedule-out", str(out_csv)] + extra)
    assert code == 0
    doc = json.loads(out)
    rows = list(csv.DictReader(out_csv.open()))
    assert list(rows[0]) == ["id", "arrival", "prompt", "output", "start", "completion", "latency", "evictions"]
    assert [int(r["start"]) for r in rows] == doc["starts"]
    for r in rows:
        assert int(r["completion"]) == int(r["start"]) + int(r["output"])
        assert int(r["latency"]) == int(r["completion"]) - int(r["arrival"])
        assert int(r["evictions"]) == 0
    tel = sum(int(r["latency"]) for r in rows)
    assert tel == (doc["tel"] if cmd == "simulate" else doc["upper"])


def test_schedule_out_counts_evictions(tmp_path, capsys):
    inst = Instance.from_arrays([1, 4, 0, 1], [1, 1, 1, 3], [7, 5, 2, 9], 20)  # alpha-greedy clears here
    res = simulate(inst, make_policy("alpha-greedy", alpha=0.0))
    assert res.evictions == 3
    f = tmp_path / "req.csv"
    write_instance_csv(inst, f)
    code, _, err = _run(capsys, ["simulate", str(f), "--memory", "20", "--policy", "alpha-greedy", "--alpha", "0",
                                 "--schedule-out", str(tmp_path / "s.csv")])
    assert code == 0, err
    rows = list(csv.DictReader((tmp_path / "s.csv").open()))
    per = [0] * inst.n
    for i, _, _ in res.schedule.cancelled:
        per[i] += 1
    assert [int(r["evictions"]) for r in rows] == per and sum(per) == 3


def test_help_documents_exit_codes_and_options(capsys):
    with pytest.raises(SystemExit) as e:
        main(["simulate", "--help"])
    assert e.value.code == 0
    text = capsys.readouterr().out
    for code in EXIT_CODES:
        assert f"\n  {code} " in text
    assert "options: --tie-break, --alpha" in text.replace("\n", " ").replace("  ", " ") or "--alpha" in text
    assert "by arrival time, then by line in the file" in " ".join(text.split())
    with pytest.raises(SystemExit):
        main(["convert", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert f"default R = {default_round_seconds():g} s" in text and "floor(x / R)" in text


def test_no_command_prints_help(capsys):
    code, out, _ = _run(capsys, [])
    assert code == 0 and "simulate" in out and "exit codes" in out


def test_round_limit_exit_code_and_advice(tmp_path, capsys):
    f = _file(tmp_path, "arrival,prompt,output\n0,2,30\n0,2,30\n0,2,30\n")
    code, out, err = _run(capsys, ["simulate", str(f), "--memory", "40", "--policy", "fcfs", "--max-rounds", "3"])
    assert code == 4 and out == ""
    assert "more than 3 decision rounds" in err and "--max-rounds" in err and "Traceback" not in err


def test_solve_without_certificate_exits_3(tmp_path, capsys, monkeypatch):
    import kvlib.optimum.exact as ke

    real = ke.solve

    def unproved(*a, **k):
        r = real(*a, **k)
        r.lower, r.optimal = r.lower - 1, False
        return r

    monkeypatch.setattr(ke, "solve", unproved)
    f = _file(tmp_path, SMALL)
    code, out, err = _run(capsys, ["solve", str(f), "--memory", "8", "--json"])
    assert code == 3
    doc = json.loads(out)
    assert not doc["optimal"] and "no optimality certificate" in err


class _Tty(io.StringIO):
    def isatty(self):
        return True


def _big(tmp_path, n=1500):
    rng = np.random.default_rng(0)
    inst = Instance.from_arrays(np.sort(rng.integers(0, n // 2, n)), rng.integers(1, 5, n), rng.integers(1, 6, n), 60)
    f = tmp_path / "big.csv"
    write_instance_csv(inst, f)
    return f


def test_progress_bar_only_on_a_terminal_and_not_with_quiet(tmp_path, monkeypatch, capsys):
    f = _big(tmp_path)
    argv = ["simulate", str(f), "--memory", "60", "--policy", "mc-sf"]
    code, out, err = _run(capsys, argv)  # stderr is not a terminal: no bar
    assert code == 0 and err == ""
    tty = _Tty()
    monkeypatch.setattr(sys, "stderr", tty)
    assert main(argv) == 0
    assert "simulate mc-sf" in tty.getvalue() and "req" in tty.getvalue()
    tty2 = _Tty()
    monkeypatch.setattr(sys, "stderr", tty2)
    assert main(argv + ["--quiet"]) == 0
    assert tty2.getvalue() == ""
    capsys.readouterr()


def test_convert_rule_and_round_trip(tmp_path, capsys):
    trace = _file(tmp_path, "arrived_at,num_prefill_tokens,num_decode_tokens\n0.0,10,3\n0.05,5,2\n0.1,7,1\n"
                            "0.35,2,9\n", "trace.csv")
    out_csv = tmp_path / "req.csv"
    code, out, err = _run(capsys, ["convert", str(trace), "--round-seconds", "0.1", "--out", str(out_csv)])
    assert code == 0 and out == ""
    assert "arrival = floor(arrived_at / 0.1 s)" in err
    rows = list(csv.reader(out_csv.open()))
    assert rows == [["arrival", "prompt", "output"], ["0", "10", "3"], ["0", "5", "2"], ["1", "7", "1"],
                    ["3", "2", "9"]]
    code, out, _ = _run(capsys, ["convert", str(trace), "--round-seconds", "0.1"])  # to stdout
    assert code == 0 and out.splitlines() == [",".join(r) for r in rows]
    code, out, _ = _run(capsys, ["simulate", str(out_csv), "--memory", "20", "--policy", "mc-sf", "--json"])
    assert code == 0 and json.loads(out)["n"] == 4


def test_convert_without_arrival_column_puts_everything_at_zero(tmp_path):
    trace = _file(tmp_path, "num_prefill_tokens,num_decode_tokens,num_total_tokens,pd_ratio\n10,3,13,3.3\n4,4,8,1\n",
                  "arxiv.csv")
    tr = convert_trace(trace, 0.05)
    assert tr.arrival.tolist() == [0, 0] and tr.columns["arrival"] is None


@pytest.mark.skipif(not (SHARED / "splitwise_conv.csv").exists(), reason="shared trace not available")
def test_convert_the_shipped_splitwise_trace(tmp_path, capsys):
    out_csv = tmp_path / "splitwise.csv"
    code, _, err = _run(capsys, ["convert", str(SHARED / "splitwise_conv.csv"), "--out", str(out_csv)])
    assert code == 0, err
    assert "read 19366 requests" in err
    tr = convert_trace(SHARED / "splitwise_conv.csv", default_round_seconds())
    assert tr.n == 19366 and (np.diff(tr.arrival) >= 0).all()
    assert tr.arrival[-1] == int(tr.last_seconds // default_round_seconds())


def test_default_round_seconds_is_a_decode_round_of_the_batch_time_model():
    from kvlib.serving.measured import measured_model

    ms = measured_model("a100").batch_ms(0, 16, 16492)
    assert default_round_seconds() == pytest.approx(ms / 1000, abs=5e-5)
    assert 0.01 < default_round_seconds() < 1.0


def test_policy_option_table_names_the_right_policies(capsys):
    f_err = _run(capsys, ["simulate", "x.csv", "--memory", "9", "--policy", "fcfs", "--epsilon", "0.1"])
    assert f_err[0] == 2 and "--epsilon applies to sorted-f" in f_err[2]


def test_cli_simulate_checks_its_schedule(tmp_path, capsys):
    f = _big(tmp_path, 300)
    code, out, _ = _run(capsys, ["simulate", str(f), "--memory", "60", "--policy", "fcfs", "--json"])
    doc = json.loads(out)
    from kvlib.core.traces import read_instance_csv
    from kvlib import Schedule

    inst = read_instance_csv(f, 60)
    rep = check_schedule(inst, Schedule(tuple(doc["starts"])))
    assert code == 0 and rep.valid and rep.tel == doc["tel"] and rep.peak_memory == doc["peak_memory"]


def test_clearing_loop_stops_early_with_advice(tmp_path, capsys):
    """alpha-greedy clears this instance forever; it used to run silently until a huge round limit."""
    from kvlib.core.simulate import default_stall_rounds
    from kvlib.errors import SimulationStalled

    inst = Instance.at_zero([2, 2, 1, 3], [3, 3, 5, 2], 10)
    with pytest.raises(SimulationStalled, match="no request completed in 1050 decision rounds"):
        simulate(inst, make_policy("alpha-greedy", alpha=0.2))
    assert default_stall_rounds(inst) == 1050
    f = tmp_path / "loop.csv"
    write_instance_csv(inst, f)
    code, out, err = _run(capsys, ["simulate", str(f), "--memory", "10", "--policy", "alpha-greedy", "--alpha", "0.2"])
    assert code == 4 and out == "" and "a larger --alpha" in err and "--stall-rounds" in err
    code, _, err = _run(capsys, ["simulate", str(f), "--memory", "10", "--policy", "alpha-greedy", "--alpha", "0.2",
                                 "--stall-rounds", "20"])
    assert code == 4 and "no request completed in 20 decision rounds" in err


def test_solve_progress_bar_on_a_terminal(tmp_path, monkeypatch, capsys):
    import time as _t

    import kvlib.cli as cli
    import kvlib.optimum.exact as ke

    real = ke.solve

    def slow(*a, **k):
        _t.sleep(1.5)
        return real(*a, **k)

    monkeypatch.setattr(ke, "solve", slow)
    monkeypatch.setattr(cli, "PROGRESS_MIN_REQUESTS_SOLVE", 1)
    f = _file(tmp_path, SMALL)
    tty = _Tty()
    monkeypatch.setattr(sys, "stderr", tty)
    assert main(["solve", str(f), "--memory", "8", "--time-limit", "5"]) == 0
    assert "solve" in tty.getvalue() and "/5" in tty.getvalue()


# ---------------------------------------------------------------------------- outputs never destroy inputs or files

def _same_path_spellings(tmp_path, f):
    """The input under other names: itself, dir/./../x, a symbolic link, a hard link."""
    import os

    (tmp_path / "d").mkdir(exist_ok=True)
    link = tmp_path / "link.csv"
    if not link.exists():
        link.symlink_to(f)
    hard = tmp_path / "hard.csv"
    if not hard.exists():
        os.link(f, hard)
    return [str(f), str(tmp_path / "d" / "." / ".." / f.name), str(link), str(hard)]


@pytest.mark.parametrize("cmd", ["simulate", "solve"])
def test_schedule_out_refuses_to_overwrite_the_input(tmp_path, capsys, cmd):
    text = "arrival,prompt,output\n0,2,3\n1,1,4\n"
    f = _file(tmp_path, text)
    extra = ["--policy", "mc-sf"] if cmd == "simulate" else []
    for target in _same_path_spellings(tmp_path, f):
        code, out, err = _run(capsys, [cmd, str(f), "--memory", "40", "--schedule-out", target] + extra)
        assert code == 2 and out == "", (target, code, err)
        assert "--schedule-out" in err and "is the input file" in err, err
        assert f.read_text() == text


def test_convert_out_refuses_the_input_under_any_name(tmp_path, capsys):
    text = "arrived_at,num_prefill_tokens,num_decode_tokens\n0.0,10,3\n0.25,5,2\n"
    f = _file(tmp_path, text, "trace.csv")
    for target in _same_path_spellings(tmp_path, f):
        code, out, err = _run(capsys, ["convert", str(f), "--round-seconds", "0.1", "--out", target])
        assert code == 2 and "--out" in err and "is the input file" in err, (target, err)
        assert f.read_text() == text


@pytest.mark.parametrize("cmd", ["simulate", "solve", "convert"])
def test_a_failed_write_keeps_the_file_already_there(tmp_path, capsys, monkeypatch, cmd):
    """A full file system at the flush: exit 2 naming the path, the old file intact, no partial or temporary file."""
    import errno
    import os

    import kvlib.fileio as fio

    if cmd == "convert":
        f = _file(tmp_path, "arrived_at,num_prefill_tokens,num_decode_tokens\n0.0,10,3\n", "trace.csv")
        argv = ["convert", str(f), "--round-seconds", "0.1", "--out"]
    else:
        f = _file(tmp_path, SMALL)
        argv = [cmd, str(f), "--memory", "8"] + (["--policy", "mc-sf"] if cmd == "simulate" else []) + ["--schedule-out"]
    old = tmp_path / "old.csv"
    old.write_text("a valid file\n")

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(fio.os, "fsync", full)
    code, out, err = _run(capsys, argv + [str(old)])
    assert code == 2 and str(old) in err and "No space left on device" in err and "Traceback" not in err, err
    assert old.read_text() == "a valid file\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["old.csv", f.name])


def test_schedule_out_to_dev_full_is_a_named_error(tmp_path, capsys):
    import os

    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    f = _file(tmp_path, SMALL)
    code, out, err = _run(capsys, ["simulate", str(f), "--memory", "8", "--policy", "mc-sf",
                                   "--schedule-out", "/dev/full"])
    assert code == 2 and "--schedule-out /dev/full" in err and "No space left on device" in err, err


@pytest.mark.parametrize("target", ["/dev/stdout", "-"])
def test_outputs_to_stdout_go_to_stdout(tmp_path, target):
    """`--out /dev/stdout` and `--schedule-out /dev/stdout` used to land on stderr (fd 1 points at stderr while a
    command runs); in a real process they must reach stdout, and the report then goes to stderr."""
    trace = _file(tmp_path, "arrived_at,num_prefill_tokens,num_decode_tokens\n0.0,10,3\n0.35,5,2\n", "trace.csv")
    r = subprocess.run([sys.executable, "-m", "kvlib.cli", "convert", str(trace), "--round-seconds", "0.1",
                        "--out", target], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "arrival,prompt,output\n0,10,3\n3,5,2\n" and "arrival,prompt" not in r.stderr
    f = _file(tmp_path, SMALL)
    r = subprocess.run([sys.executable, "-m", "kvlib.cli", "simulate", str(f), "--memory", "8", "--policy", "mc-sf",
                        "--schedule-out", target], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr
    rows = list(csv.reader(io.StringIO(r.stdout)))
    assert rows[0] == ["id", "arrival", "prompt", "output", "start", "completion", "latency", "evictions"]
    assert len(rows) == 5 and "TEL" in r.stderr and "TEL" not in r.stdout


def test_schedule_to_stdout_with_json_is_refused(tmp_path, capsys):
    f = _file(tmp_path, SMALL)
    code, out, err = _run(capsys, ["simulate", str(f), "--memory", "8", "--policy", "mc-sf", "--json",
                                   "--schedule-out", "-"])
    assert code == 2 and out == "" and "--json" in err and "stdout" in err, err


@pytest.mark.parametrize("cmd", ["simulate", "solve"])
def test_schedule_id_column_is_the_inputs_id(tmp_path, capsys, cmd):
    f = _file(tmp_path, "id,arrival,prompt,output\nreq-7,0,2,3\n 42 ,1,1,4\n\"a,b\",1,1,1\n")
    s = tmp_path / "s.csv"
    extra = ["--policy", "mc-sf"] if cmd == "simulate" else []
    code, _, err = _run(capsys, [cmd, str(f), "--memory", "40", "--schedule-out", str(s)] + extra)
    assert code == 0, err
    assert [r["id"] for r in csv.DictReader(s.open())] == ["req-7", "42", "a,b"]
    g = _file(tmp_path, SMALL, "noid.csv")
    code, _, err = _run(capsys, [cmd, str(g), "--memory", "8", "--schedule-out", str(s)] + extra)
    assert [r["id"] for r in csv.DictReader(s.open())] == ["0", "1", "2", "3"]


def _option_helps(capsys):
    """simulate --help: flag -> its help text (whitespace normalised)."""
    import re

    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    text = capsys.readouterr().out
    text = text.split("policies (and the options each takes)")[0]
    parts = re.split(r"\n  (--[A-Za-z0-9-]+|-[a-zA-Z])", text)
    helps = {}
    for flag, body in zip(parts[1::2], parts[2::2]):
        helps[flag] = " ".join(body.split())
    return helps


def test_help_states_the_defaults_the_code_uses(capsys):
    """The review: --help said alpha 0.25 / beta 0.5 for alpha-beta-clearing, the code uses 0.2 / 0.1.  For every
    policy and every option it takes, the option's help names the policy and the factory's default."""
    import inspect
    import re

    from kvlib.cli import POLICY_FLAGS
    from kvlib.policies import POLICIES
    from kvlib.policies.registry import policy_options

    helps = _option_helps(capsys)
    checked = 0
    for name, (factory, _) in POLICIES.items():
        params = inspect.signature(factory).parameters
        for dest in policy_options(name):
            if dest not in POLICY_FLAGS:
                continue
            h = helps[POLICY_FLAGS[dest]]
            assert re.search(rf"(^|[ ,(]){re.escape(name)}([ ,):]|$)", h.split("(default")[0]), (name, dest, h)
            m = re.search(r"\(default: (.*)\)$", h)
            assert m, (dest, h)
            groups = dict()
            for value, owners in re.findall(r"([^;]+?) \[([^\]]+)\]", m.group(1)):
                for o in owners.split(", "):
                    groups[o] = value.strip()
            stated = groups.get(name, m.group(1) if not groups else None)
            d = params[dest].default
            if d is None:
                assert stated is not None and not re.fullmatch(r"[-0-9.]+", stated), (name, dest, stated)
            else:
                assert stated == f"{d:g}" if isinstance(d, float) else stated == str(d), (name, dest, stated, d)
            checked += 1
    assert checked >= 25
    assert "0.5" not in helps["--beta"] and "[alpha-greedy]" in helps["--alpha"]


def test_force_lifts_the_samples_cap(tmp_path, capsys):
    from kvlib.cli import MAX_SAMPLES

    f = _file(tmp_path, "arrival,prompt,output\n0,2,3\n")
    argv = ["simulate", str(f), "--memory", "8", "--policy", "sorted-f", "--selector", "quantile-ours",
            "--samples", str(MAX_SAMPLES + 1)]
    code, _, err = _run(capsys, argv)
    assert code == 2 and "--force" in err
    code, out, err = _run(capsys, argv + ["--force", "--json"])
    assert code == 0 and json.loads(out)["tel"] == 3, err


@pytest.mark.parametrize("R", ["0.1", "0.01", "0.05", "0.0125", "0.3", "1e-3"])
def test_convert_rounds_every_grid_point_exactly(tmp_path, capsys, R):
    """floor(x / R) in floating point put 0.3 s (R = 0.1 s) in round 2 and 0.29 s (R = 0.01 s) in round 28; the
    rounds are now computed exactly from the text of the timestamp and of R.  Every grid point k*R arrives at
    round k, and a point 1 ns earlier at round k - 1."""
    from decimal import Decimal

    r = Decimal(R)
    ks = range(0, 1001)
    lines = ["arrived_at,num_prefill_tokens,num_decode_tokens"]
    want = []
    for k in ks:
        x = r * k
        lines.append(f"{x},1,1")
        want.append(k)
        if k:
            lines.append(f"{x + Decimal('1e-9')},1,1")  # 1 ns later: the same round
            want.append(k)
    f = _file(tmp_path, "\n".join(lines) + "\n", "grid.csv")
    code, out, err = _run(capsys, ["convert", str(f), "--round-seconds", R])
    assert code == 0, err
    got = [int(row.split(",")[0]) for row in out.splitlines()[1:]]
    assert got == want
    assert convert_trace(f, R).arrival.tolist() == want  # the API, R as text
    assert convert_trace(f, float(R)).arrival.tolist() == want  # R as a float: its shortest decimal text
    below = "arrived_at,num_prefill_tokens,num_decode_tokens\n" + "".join(
        f"{r * k - Decimal('1e-9')},1,1\n" for k in range(1, 1001))
    g = _file(tmp_path, below, "below.csv")
    assert convert_trace(g, R).arrival.tolist() == list(range(0, 1000))


def test_convert_float_rounding_was_wrong_on_the_grid():
    """The review's count, recomputed: floor(x / R) in binary floating point misplaces grid points (35% at
    R = 0.1 s, 11% at R = 0.01 s over k = 0..999) -- the reason the rounds are computed exactly."""
    import math
    from decimal import Decimal

    def wrong(R):
        r = Decimal(R)
        return sum(math.floor(float(r * k) / float(R)) != k for k in range(1000)) / 1000

    assert wrong("0.1") > 0.3 and wrong("0.01") > 0.1


# ---------------------------------------------------------------------------- no tracebacks, right exit codes

@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_stdout_on_a_full_device_is_a_named_error(tmp_path, json_flag):
    f = _file(tmp_path, SMALL)
    with open("/dev/full", "w") as full:
        r = subprocess.run([sys.executable, "-m", "kvlib.cli", "simulate", str(f), "--memory", "8", "--policy",
                            "mc-sf"] + json_flag, stdout=full, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                           timeout=120)
    assert r.returncode == 2, r.stderr
    assert "cannot write to stdout" in r.stderr and "No space left on device" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and "Exception ignored" not in r.stderr, r.stderr


@pytest.mark.parametrize("policy", ["a-max", "a-l"])
def test_upper_end_that_never_fits_names_file_line_and_columns(tmp_path, capsys, policy):
    """a-max exited 1 ("internal error ... please report"), a-l 2 with a bare ValueError: a request whose
    prompt + upper bound exceeds M can never be admitted by these policies; the CLI says so, naming the line."""
    f = _file(tmp_path, "arrival,prompt,output,lower,upper\n0,2,3,1,5\n0,2,3,1,50\n")
    code, out, err = _run(capsys, ["simulate", str(f), "--memory", "40", "--policy", policy])
    assert code == 2 and out == "", err
    assert f"{f}, line 3, columns prompt, upper: request 1: prompt + upper = 2 + 50 = 52 exceeds M = 40" in err, err
    assert f"policy {policy}" in err
    code, _, err = _run(capsys, ["simulate", str(f), "--memory", "52", "--policy", policy])
    assert code == 0, err


def test_solve_value_error_from_the_solver_is_reported(tmp_path, capsys, monkeypatch):
    """solve's ValueError handler built _Fail without a code: exit 1 with 'TypeError: _Fail.__init__() missing'."""
    import kvlib.optimum.exact as ke

    def bad(*a, **k):
        raise ValueError("incumbent: schedule has 3 starts, expected 4")

    monkeypatch.setattr(ke, "solve", bad)
    f = _file(tmp_path, SMALL)
    code, out, err = _run(capsys, ["solve", str(f), "--memory", "8"])
    assert code == 2 and out == "" and "TypeError" not in err, err
    assert "kvlib: error: solve: incumbent: schedule has 3 starts, expected 4" in err, err


def test_formulation_alone_selects_the_ip_and_says_so(tmp_path, capsys):
    f = _file(tmp_path, SMALL)
    code, out, err = _run(capsys, ["solve", str(f), "--memory", "8", "--formulation", "aggregated", "--json"])
    assert code == 0, err
    assert json.loads(out)["formulation"] == "aggregated" and "--formulation aggregated: using --method ip" in err
    code, out, err = _run(capsys, ["solve", str(f), "--memory", "8", "--json"])
    assert code == 0 and json.loads(out)["formulation"] == "pipeline" and err == ""


def test_default_round_is_exactly_its_stated_value():
    """round(ms, 1) / 1000.0 gave 0.054700000000000006, and exact rounding took that binary value at its word;
    the default is a whole number of 0.1 ms, exactly as --help states it."""
    from decimal import Decimal

    rs = default_round_seconds()
    assert (Decimal(repr(rs)) * 10000) % 1 == 0, repr(rs)
    assert repr(rs) == f"{rs:g}"


def test_convert_blank_lines_before_the_header_and_negative_zero(tmp_path, capsys):
    f = _file(tmp_path, "\n\narrived_at,num_prefill_tokens,num_decode_tokens\n-0.0,5,3\n0.25,5,3\n", "t.csv")
    code, out, err = _run(capsys, ["convert", str(f), "--round-seconds", "0.1"])
    assert code == 0, err
    assert out.splitlines() == ["arrival,prompt,output", "0,5,3", "2,5,3"]
    assert "(trace 0..0.25 s)" in err, err


def test_schedule_out_naming_the_file_stdout_is_redirected_to(tmp_path):
    """`kvlib simulate ... > out.txt --schedule-out out.txt`: an atomic rename would give out.txt a new inode while
    the shell's descriptor keeps writing the old, unlinked one (the report would vanish); the schedule goes to
    stdout instead, i.e. into out.txt, and the report to stderr."""
    f = _file(tmp_path, SMALL)
    target = tmp_path / "out.txt"
    with open(target, "w") as fh:
        r = subprocess.run([sys.executable, "-m", "kvlib.cli", "simulate", str(f), "--memory", "8", "--policy",
                            "mc-sf", "--schedule-out", str(target)], stdout=fh, stderr=subprocess.PIPE, text=True,
                           cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr
    rows = list(csv.reader(io.StringIO(target.read_text())))
    assert rows[0][0] == "id" and len(rows) == 5 and "TEL" in r.stderr


def test_solve_takes_a_long_horizon_without_a_guard(tmp_path, capsys):
    """The CLI refused (exit 2, "the solver keeps arrays over the whole horizon") a horizon above 10**8 rounds
    unless --force; the solver now splits where nothing waits and skips stages that would not fit."""
    f = _file(tmp_path, "arrival,prompt,output\n0,2,3\n1000000000,1,4\n0,2,3\n")
    code, out, err = _run(capsys, ["solve", str(f), "--memory", "5", "--time-limit", "10", "--json"])
    assert code == 0 and json.loads(out)["upper"] == 13 and json.loads(out)["lower"] == 13, err
    v = 2**53 - 8
    f = _file(tmp_path, f"arrival,prompt,output\n0,1,{v}\n0,1,{v}\n0,1,5\n")
    code, out, err = _run(capsys, ["solve", str(f), "--memory", str(v + 1), "--time-limit", "3", "--json"])
    res = json.loads(out)
    assert code in (0, 3) and res["lower"] <= 3 * v + 5 == res["upper"], err
    code, _, err = _run(capsys, ["solve", str(f), "--memory", str(v + 1), "--force"])
    assert code == 2 and "--force" in err  # nothing left for it to lift


HELP_SNAPSHOT = ROOT / "tests" / "data" / "cli_help.txt"


def _all_help(monkeypatch, capsys) -> str:
    """``kvlib --help`` and every subcommand's, at 100 columns and with 8 CPU cores (--threads' range)."""
    import kvlib.cli as cli

    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.setattr(cli, "_cpu_count", lambda: 8)
    parts = []
    for argv in ([], ["simulate"], ["solve"], ["convert"], ["batchtime"], ["profile"]):
        with pytest.raises(SystemExit):
            main(argv + ["--help"])
        parts.append(f"===== kvlib {' '.join(argv)} --help\n" + capsys.readouterr().out)
    return "".join(parts)


def test_help_is_unchanged_by_the_parser_split(monkeypatch, capsys):
    """build_parser was one 195-line function, now one function per subcommand (#47 item 4); every
    --help is byte for byte what it was (tests/data/cli_help.txt, written by the parser of 40a481c).  After a
    deliberate change of the help, rewrite the snapshot: KVLIB_REGEN_HELP=1 pytest tests/test_cli.py -k help_is_unchanged."""
    import os

    if sys.version_info[:2] != (3, 11):  # argparse's layout changes between versions (3.13: "-M, --memory M")
        pytest.skip("the help snapshot was written by Python 3.11's argparse (environment.yml's Python)")
    text = _all_help(monkeypatch, capsys)
    if os.environ.get("KVLIB_REGEN_HELP"):
        HELP_SNAPSHOT.write_text(text)
    assert text == HELP_SNAPSHOT.read_text()


def test_build_parser_functions_are_short():
    import ast

    tree = ast.parse((ROOT / "kvlib" / "cli.py").read_text())
    long = {n.name: n.end_lineno - n.lineno + 1 for n in ast.walk(tree)
            if isinstance(n, ast.FunctionDef) and n.end_lineno - n.lineno + 1 >= 150}
    assert long == {}, long
