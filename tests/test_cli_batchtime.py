"""kvlib batchtime, kvlib profile and kvlib convert --hardware: outputs agree with the library, defaults are stated
truthfully, and every bad input gets exit code 2 with a named message (tests/test_bad_input.py's style)."""

from __future__ import annotations

import json
import shutil
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from kvlib.cli import ROUND_BATCH, build_parser, default_round_seconds, main
from kvlib.serving.batchtime import default_model
from kvlib.serving.hardware import PAPER_KV_CAPACITY_TOKENS
from kvlib.serving.measured import HARDWARE, measured_model
from kvlib.serving import profile_gpu

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
H100_KERNELS = SHARED / "h100_llama2_70b_tp2_kernels.csv"


def _run(capsys, argv):
    code = main(argv)
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def _assert_bad(code, out, err, expected):
    assert code == 2, (code, err)
    assert expected in err, err
    assert "Traceback" not in err and out == "", (out, err)
    assert len(err) <= 1500


# --------------------------------------------------------------------------- batchtime


@pytest.mark.parametrize("hw", list(HARDWARE))
def test_batchtime_json_equals_the_library(capsys, hw):
    code, out, err = _run(capsys, ["batchtime", "--hardware", hw, "--decode", "16", "--kv", "16492", "--json"])
    assert code == 0, err
    doc = json.loads(out)
    m = measured_model(hw)
    assert doc["hardware"] == hw and doc["origin"] == "embedded coefficients"
    assert doc["total_ms"] == pytest.approx(m.batch_ms(0, 16, 16492), rel=1e-12)
    assert doc["breakdown_ms"] == pytest.approx({k: v for k, v in m.breakdown(0, 16, 16492).items() if k != "total_ms"})


def test_batchtime_text_and_default_hardware(capsys):
    code, out, _ = _run(capsys, ["batchtime", "--decode", "16", "--kv", "16492", "--prefill", "300"])
    assert code == 0
    total = measured_model("a100").batch_ms(300, 16, 16492)
    assert out.startswith("hardware            a100 (embedded coefficients; attention measured)")
    assert f"total               {total:10.3f} ms" in out
    for label in ("non-attention", "all-reduce", "decode attention", "prefill attention", "embedding"):
        assert label in out


def test_batchtime_derived_is_batchtime_py(capsys):
    code, out, _ = _run(capsys, ["batchtime", "--decode", "16", "--kv", "16492", "--attention", "derived", "--json"])
    assert code == 0
    assert json.loads(out)["total_ms"] == pytest.approx(default_model().batch_ms(0, 16, 16492), rel=1e-12)


@pytest.mark.skipif(not H100_KERNELS.exists(), reason="../shared/data absent")
def test_batchtime_from_a_kernel_file(tmp_path, capsys):
    f = tmp_path / "mine.csv"
    shutil.copy(H100_KERNELS, f)
    code, out, err = _run(capsys, ["batchtime", "--kernels", str(f), "--decode", "64", "--kv", "64000", "--json"])
    assert code == 0, err
    doc = json.loads(out)
    assert doc["hardware"] == "kernels:NVIDIA H100 80GB HBM3"
    assert doc["breakdown_ms"]["decode_attention_ms"] == pytest.approx(
        float(80 * measured_model("h100").decode_attention_ms(64, 64000)), rel=1e-6)


BATCHTIME_CASES = [
    ("unknown hardware", ["--hardware", "tpu", "--decode", "1", "--kv", "5"], "unknown hardware 'tpu'; known: a100"),
    ("negative decode", ["--decode", "-1", "--kv", "5"], "--decode: must be an integer between 0 and"),
    ("negative kv", ["--decode", "1", "--kv", "-5"], "--kv: must be an integer between 0 and"),
    ("negative prefill", ["--prefill", "-2"], "--prefill: must be an integer between 0 and"),
    ("non-integer decode", ["--decode", "2.5", "--kv", "5"], "--decode: '2.5' is not an integer"),
    ("text kv", ["--decode", "1", "--kv", "lots"], "--kv: 'lots' is not an integer"),
    ("exponent prefill", ["--prefill", "1e3"], "--prefill: '1e3' is not an integer (no exponent notation)"),
    ("huge decode", ["--decode", str(10**10), "--kv", str(10**10)], "--decode: must be an integer between 0 and"),
    ("empty batch", [], "the batch is empty"),
    ("kv without decode", ["--kv", "100", "--prefill", "5"], "--kv 100 given with --decode 0"),
    ("kv below decode", ["--decode", "10", "--kv", "3"], "--kv 3 is less than --decode 10"),
    ("bad attention", ["--decode", "1", "--kv", "3", "--attention", "guess"], "argument --attention: invalid choice"),
    ("derived on h100", ["--hardware", "h100", "--decode", "1", "--kv", "3", "--attention", "derived"],
     "exists only for hardware 'a100'"),
    ("kernels and hardware", ["--hardware", "h100", "--kernels", "KFILE", "--decode", "1", "--kv", "3"],
     "give either --kernels or --hardware"),
    ("missing kernels file", ["--kernels", "MISSING", "--decode", "1", "--kv", "3"], "no such kernel-timing file"),
    ("kernels is a directory", ["--kernels", "DIR", "--decode", "1", "--kv", "3"], "is a directory"),
    ("empty kernels path", ["--kernels", "", "--decode", "1", "--kv", "3"], "--kernels: empty path"),
    ("malformed kernels file", ["--kernels", "BADFILE", "--decode", "1", "--kv", "3"], "missing column(s)"),
]


@pytest.mark.parametrize("case", BATCHTIME_CASES, ids=[c[0] for c in BATCHTIME_CASES])
def test_batchtime_rejects_bad_input(tmp_path, capsys, case):
    _, extra, expected = case
    (tmp_path / "k.csv").write_text("gpu,op\nX,add\n")
    subst = {"KFILE": str(tmp_path / "k.csv"), "MISSING": str(tmp_path / "nope.csv"), "DIR": str(tmp_path),
             "BADFILE": str(tmp_path / "k.csv")}
    argv = ["batchtime"] + [subst.get(a, a) for a in extra]
    _assert_bad(*_run(capsys, argv), expected)


# --------------------------------------------------------------------------- convert --hardware


def test_convert_default_round_is_the_measured_a100_s():
    assert default_round_seconds() == default_round_seconds("a100") == 0.058  # 0.0563 s with the straight-line fit
    ms = measured_model("a100").batch_ms(0, 16, 16492)
    assert default_round_seconds() == float(Decimal(repr(round(ms, 1))) / 1000)
    # the derived attention of batchtime.py (the earlier default) gave 0.0547 s
    assert round(default_model().batch_ms(0, 16, 16492), 1) == 54.7


@pytest.mark.parametrize("hw", list(HARDWARE))
def test_convert_round_per_hardware_is_the_same_definition(hw):
    ms = measured_model(hw).batch_ms(0, ROUND_BATCH, PAPER_KV_CAPACITY_TOKENS)
    assert default_round_seconds(hw) == float(Decimal(repr(round(ms, 1))) / 1000)


def test_convert_help_states_every_default():
    sub = build_parser()._subparsers._group_actions[0].choices
    text = " ".join(sub["convert"].format_help().split())
    assert f"(default {default_round_seconds():g};" in text
    for hw in HARDWARE:
        assert f"{hw} {default_round_seconds(hw):g}" in text
    bt = " ".join(sub["batchtime"].format_help().split())
    assert "(default a100)" in bt and "(default 0)" in bt and "measured (default)" in bt
    pf = " ".join(sub["profile"].format_help().split())
    assert f"(default {profile_gpu.REPEATS})" in pf and f"(default {profile_gpu.CALLS})" in pf


def test_convert_with_hardware_uses_its_round(tmp_path, capsys):
    f = tmp_path / "t.csv"
    f.write_text("arrived_at,num_prefill_tokens,num_decode_tokens\n0,5,3\n1.0,4,2\n")
    code, out, err = _run(capsys, ["convert", str(f), "--hardware", "h100"])
    assert code == 0, err
    r = Decimal(repr(default_round_seconds("h100")))
    assert out.splitlines()[2] == f"{int(Decimal(1) // r)},4,2"
    assert f"/ {default_round_seconds('h100'):g} s" in err
    code, out0, err0 = _run(capsys, ["convert", str(f)])
    assert code == 0 and "/ 0.058 s" in err0 and out0.splitlines()[2] == f"{int(Decimal(1) // Decimal('0.058'))},4,2"


CONVERT_HW_CASES = [
    ("unknown hardware", ["--hardware", "v100"], "unknown hardware 'v100'; known: a100, h100, h200"),
    ("hardware and round seconds", ["--hardware", "a100", "--round-seconds", "0.1"], "not both"),
]


@pytest.mark.parametrize("case", CONVERT_HW_CASES, ids=[c[0] for c in CONVERT_HW_CASES])
def test_convert_hardware_bad_input(tmp_path, capsys, case):
    f = tmp_path / "t.csv"
    f.write_text("arrived_at,num_prefill_tokens,num_decode_tokens\n0,5,3\n")
    _assert_bad(*_run(capsys, ["convert", str(f)] + case[1]), case[2])


# --------------------------------------------------------------------------- profile (no PyTorch here)


def test_profile_without_torch_names_the_extra(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)
    code, out, err = _run(capsys, ["profile", "--out", str(tmp_path / "k.csv")])
    _assert_bad(code, out, err, "install the profile extra: pip install 'kvlib[profile]'")
    assert not (tmp_path / "k.csv").exists()


PROFILE_CASES = [
    ("no --out", [], "the following arguments are required: --out"),
    ("out is a directory", ["--out", "DIR"], "--out DIR: is a directory"),
    ("out in a missing directory", ["--out", "DIR/none/k.csv"], "does not exist"),
    ("zero repeats", ["--out", "DIR/k.csv", "--repeats", "0"], "--repeats: must be a positive integer"),
    ("text calls", ["--out", "DIR/k.csv", "--calls", "many"], "--calls: 'many' is not an integer"),
]


@pytest.mark.parametrize("case", PROFILE_CASES, ids=[c[0] for c in PROFILE_CASES])
def test_profile_rejects_bad_options(tmp_path, capsys, case):
    argv = ["profile"] + [a.replace("DIR", str(tmp_path)) for a in case[1]]
    _assert_bad(*_run(capsys, argv), case[2].replace("DIR", str(tmp_path)))


def test_profile_command_writes_a_file_batchtime_reads(tmp_path, capsys, monkeypatch):
    """The command's wiring (checks, atomic write, hand-over to --kernels) with the measuring step replaced by a
    synthetic profile (no PyTorch or GPU here)."""
    from test_measured import _synthetic_rows

    seen = {}
    monkeypatch.setattr(profile_gpu, "require_torch", lambda: object())

    def fake_profile(**kw):
        seen.update(kw)
        return _synthetic_rows()

    monkeypatch.setattr(profile_gpu, "profile", fake_profile)
    f = tmp_path / "mine.csv"
    code, out, err = _run(capsys, ["profile", "--out", str(f), "--repeats", "3", "--quiet"])
    assert code == 0, err
    assert seen["repeats"] == 3 and seen["calls"] == profile_gpu.CALLS and seen["progress"] is None
    assert f"wrote {24 * 8 + 54 + 9} rows to {f}" in err
    code, out, err = _run(capsys, ["batchtime", "--kernels", str(f), "--decode", "16", "--kv", "16492", "--json"])
    assert code == 0, err
    assert json.loads(out)["hardware"] == "kernels:Synthetic GPU"
