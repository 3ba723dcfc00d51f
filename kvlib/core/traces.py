"""Reading and writing request files, and converting serving traces to them.

The request format (what ``kvlib simulate`` / ``kvlib solve`` read): a header
line naming the columns ``arrival,prompt,output`` (any order; optional
``lower`` and ``upper`` for 003 interval predictions; an ``id`` column is
allowed: read as text, not checked, and copied to the ``id`` column of the CLI's schedule output) and one
request per line.  Rules, each enforced with an
:class:`~kvlib.core.errors.InstanceError` that names the file, the line (1-based;
the header is line 1) and the column:

* UTF-8 text; a UTF-8 byte-order mark is accepted, UTF-16, UTF-32 and binary files are
  refused; ``\\r\\n`` line ends and blank lines are accepted;
* every value a plain decimal integer: ASCII digits ``0-9`` with an optional
  leading ``-`` (so negative values get a message about their sign), optionally
  followed by ``.0`` (as written by spreadsheet and pandas float columns); no
  ``+``, ``_``, exponent, spaces inside, or non-ASCII digits; at most ``2**53``;
* no duplicate and no unknown column names;
* arrivals need not be sorted: request ``i`` is the ``i``-th data line.

:func:`convert_trace` turns a Vidur/Splitwise-style trace (continuous arrival
times in seconds, prompt/decode token columns) into the request format; the
rule from seconds to rounds is documented there.
"""

from __future__ import annotations

import csv
import io
import math
from decimal import Decimal, InvalidOperation
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kvlib.core.errors import InstanceError, ParameterError
from kvlib.core.model import MAX_VALUE, Instance

REQUIRED = ("arrival", "prompt", "output")
OPTIONAL = ("lower", "upper")
IGNORED = ("id",)

#: Longest piece of input text quoted in an error message (a 1 MB field must not make a 1 MB message).
CLIP_CHARS = 60


def _clip(text: str, limit: int = CLIP_CHARS) -> str:
    """``text`` cut to ``limit`` characters, saying how long it was."""
    text = str(text)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text):,} characters)"


def _names(names, quote: bool = False, limit: int = 8) -> str:
    """At most ``limit`` names (each clipped), then how many more: a 100,000-column header stays readable."""
    f = _quote if quote else _clip
    shown = ", ".join(f(c, 40) for c in names[:limit])
    return shown + (f", ... and {len(names) - limit:,} more" if len(names) > limit else "")


def _quote(text: str, limit: int = CLIP_CHARS) -> str:
    """``repr(text)``, or for a long text the repr of its first ``limit`` characters and its length."""
    text = str(text)
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text):,} characters)"


@dataclass
class RequestTable:
    """Columns read from a CSV file (``extra`` holds optional integer columns)."""

    arrival: np.ndarray
    prompt: np.ndarray
    output: np.ndarray
    extra: dict[str, np.ndarray]
    source: str
    lines: np.ndarray  # 1-based line number of each request in the file
    ids: list[str] | None = None  # the text of the ``id`` column (stripped), when the file has one

    @property
    def n(self) -> int:
        return len(self.arrival)

    def instance(self, memory: int) -> Instance:
        try:
            return Instance.from_arrays(self.arrival, self.prompt, self.output, memory)
        except InstanceError as e:
            msg = str(e)
            if msg.startswith("request "):
                idx = int(msg.split()[1].rstrip(":"))
                raise InstanceError(f"{self.source}, line {int(self.lines[idx])}: {msg}") from None
            raise InstanceError(f"{self.source}: {msg}") from None


def _as_path(path) -> Path:
    if isinstance(path, (bytes, bytearray)) or not isinstance(path, (str, Path)) and not hasattr(path, "__fspath__"):
        raise ParameterError(f"path must be a file path (str or os.PathLike), got {_clip(repr(path))}")
    return Path(path)


def read_text(path: str | Path, what: str = "request file") -> str:
    """The text of ``path`` (UTF-8, BOM stripped); :class:`InstanceError` naming the file otherwise."""
    path = _as_path(path)
    try:
        if path.is_dir():
            raise InstanceError(f"{path}: is a directory, not a {what}")
        if not path.exists():
            raise InstanceError(f"{path}: no such file")
        data = path.read_bytes()
    except PermissionError:
        raise InstanceError(f"{path}: permission denied") from None
    except OSError as e:
        raise InstanceError(f"{path}: cannot read ({e.strerror or e})") from None
    if data[:4] in (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff"):  # before UTF-16: FF FE also starts UTF-32-LE
        raise InstanceError(f"{path}: the file is UTF-32 encoded; save it as UTF-8 (plain CSV) and retry")
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise InstanceError(f"{path}: the file is UTF-16 encoded; save it as UTF-8 (plain CSV) and retry")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if b"\x00" in data:
        k = data.index(b"\x00")
        line = data.count(b"\n", 0, k) + 1
        raise InstanceError(f"{path}: binary data (a NUL byte at offset {k}, line {line}); "
                            f"expected a UTF-8 CSV {what}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise InstanceError(f"{path}, line {line}: not UTF-8 text (byte {data[e.start]:#04x} at offset {e.start}); "
                            "save the file as UTF-8") from None


def parse_int(text: str, where: str) -> int:
    """A plain decimal integer (see the module docstring); :class:`InstanceError` naming ``where`` otherwise."""
    if not isinstance(text, str):
        raise ParameterError(f"{where}: expected text, got {text!r}"[:200])
    t = text.strip()
    body = t[1:] if t.startswith("-") else t
    if body.endswith(".0") or "." in body:
        head, _, frac = body.partition(".")
        if frac and set(frac) == {"0"}:
            body = head
    if not (body and body.isascii() and body.isdigit()):
        hint = ""
        if t.startswith("+"):
            hint = " (no '+' sign)"
        elif "_" in t:
            hint = " (no '_' separators)"
        elif t and not t.isascii():
            hint = " (ASCII digits 0-9 only)"
        elif any(c in t for c in "eE") and any(ch.isdigit() for ch in t):
            hint = " (no exponent notation)"
        elif "." in t:
            hint = " (a whole number is required)"
        raise InstanceError(f"{where}: {_quote(t)} is not an integer{hint}")
    digits = body.lstrip("0") or "0"
    # more digits than 2**53 has: too large, decided before int() (which refuses over 4,300 digits itself)
    if len(digits) > len(str(MAX_VALUE)) or int(digits) > MAX_VALUE:
        raise InstanceError(f"{where}: {_clip(t)} is too large (kvlib accepts values up to 2**53 = {MAX_VALUE})")
    value = int(digits)
    return -value if t.startswith("-") else value


def _separator_hint(cols: list[str]) -> str:
    """A hint when a one-column header looks like another separator was used."""
    if len(cols) == 1:
        for sep, name in (("\t", "tab"), (";", "semicolon"), ("|", "pipe")):
            if sep in cols[0]:
                return f" ({name}-separated? kvlib reads comma-separated values)"
    return ""


def _header(path, first: list[str], allowed: tuple[str, ...], line: int = 1) -> list[str]:
    cols = [h.strip().lower() for h in first]
    seen: set[str] = set()
    for c in cols:
        if c in seen:
            raise InstanceError(f"{path}, line {line}: duplicate column {_quote(c)}")
        seen.add(c)
    return cols


def _data_rows(path, rows, ncols: int, header: list[str] | None = None):
    """The data rows of a CSV reader as ``(line number, fields)``: blank lines skipped, a row with
    another number of fields than the header, a quoted field running over a line end (an unterminated
    quote), a repeat of the header, or unparsable CSV, raised as :class:`InstanceError` naming the file
    and the line."""
    prev = rows.line_num  # the header's line
    try:
        for row in rows:
            lineno = rows.line_num
            start, prev = prev + 1, lineno  # the line the row began on
            if not row or all(not x.strip() for x in row):
                continue
            if start != lineno or any("\n" in x or "\r" in x for x in row):
                raise InstanceError(f"{path}, line {start}: a quoted field runs past the end of its line "
                                    f"(an unterminated quote \"?), up to line {lineno}")
            if header is not None and [x.strip().lower() for x in row] == header:
                raise InstanceError(f"{path}, line {lineno}: a second header line (two files concatenated?); "
                                    "remove it")
            if len(row) != ncols:
                raise InstanceError(f"{path}, line {lineno}: expected {ncols} fields, found {len(row)}")
            yield lineno, row
    except csv.Error as e:
        raise InstanceError(f"{path}, line {rows.line_num}: cannot parse CSV ({e})") from None


def read_request_table(path: str | Path, optional: tuple[str, ...] = OPTIONAL) -> RequestTable:
    """Read ``arrival,prompt,output`` (+ optional columns) from ``path``; errors name file, line and column."""
    path = _as_path(path)
    text = read_text(path)
    rows = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(rows)
        while not any(x.strip() for x in header):
            header = next(rows)
    except StopIteration:
        raise InstanceError(f"{path}: file is empty (expected a header line arrival,prompt,output)") from None
    except csv.Error as e:
        raise InstanceError(f"{path}, line {rows.line_num}: cannot parse the header ({e})") from None
    hline = rows.line_num  # the header's line (blank lines before it are skipped)
    cols = _header(path, header, REQUIRED + optional, hline)
    missing = [c for c in REQUIRED if c not in cols]
    if missing:
        raise InstanceError(
            f"{path}, line {hline}: missing column(s) {', '.join(missing)}; found {_names(cols) or 'nothing'} "
            f"(the header must name arrival,prompt,output){_separator_hint(cols)}"
        )
    unknown = [c for c in cols if c not in REQUIRED + tuple(optional) + IGNORED]
    if unknown:
        raise InstanceError(
            f"{path}, line {hline}: unknown column(s) {_names(unknown, quote=True)}; allowed: "
            f"{', '.join(REQUIRED + tuple(optional))} (and id, ignored)"
        )
    wanted = list(REQUIRED) + [c for c in optional if c in cols]
    pos = {c: cols.index(c) for c in wanted}
    data: dict[str, list[int]] = {c: [] for c in wanted}
    lines: list[int] = []
    id_pos = cols.index("id") if "id" in cols else None
    ids: list[str] | None = None if id_pos is None else []
    for lineno, row in _data_rows(path, rows, len(cols), cols):
        for c in wanted:
            data[c].append(parse_int(row[pos[c]], f"{path}, line {lineno}, column {c}"))
        if ids is not None:
            ids.append(row[id_pos].strip())
        lines.append(lineno)
    if not data["arrival"]:
        raise InstanceError(f"{path}: no requests (only a header line)")
    arrays = {c: np.asarray(v, dtype=np.int64) for c, v in data.items()}
    return RequestTable(
        arrays["arrival"],
        arrays["prompt"],
        arrays["output"],
        {c: arrays[c] for c in wanted if c not in REQUIRED},
        str(path),
        np.asarray(lines, dtype=np.int64),
        ids,
    )


def read_instance_csv(path: str | Path, memory: int) -> Instance:
    """Read a CSV file into an :class:`Instance`; errors name file, line and column."""
    return read_request_table(path).instance(memory)


def write_instance_csv(instance: Instance, path: str | Path) -> None:
    """Write ``arrival,prompt,output`` (the format :func:`read_instance_csv` reads).  Not atomic (kvlib.core
    may not import :mod:`kvlib.fileio`); the CLI writes through :func:`kvlib.fileio.atomic_write_text`."""
    with Path(path).open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(REQUIRED)
        for r in instance.requests:
            w.writerow((r.arrival, r.prompt, r.output))


# --------------------------------------------------------------------------- trace conversion

#: Column names accepted for each field of a serving trace (first match wins), e.g. Vidur / Splitwise.
TRACE_COLUMNS = {
    "arrival": ("arrived_at", "arrival_time", "arrival", "timestamp"),
    "prompt": ("num_prefill_tokens", "prompt_tokens", "prompt_len", "prompt", "input_tokens"),
    "output": ("num_decode_tokens", "decode_tokens", "output_tokens", "output_len", "output"),
}


@dataclass
class ConvertedTrace:
    """Result of :func:`convert_trace`: request columns plus what was done."""

    arrival: np.ndarray
    prompt: np.ndarray
    output: np.ndarray
    source: str
    columns: dict[str, str | None]  # field -> trace column used (None: no arrival column)
    round_seconds: float
    first_seconds: float | None
    last_seconds: float | None

    @property
    def n(self) -> int:
        return len(self.prompt)

    def csv_text(self) -> str:
        """The request CSV (``arrival,prompt,output``, one line per request, ``\\n`` line ends)."""
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(REQUIRED)
        w.writerows(zip(self.arrival.tolist(), self.prompt.tolist(), self.output.tolist()))
        return buf.getvalue()

    def write(self, path: str | Path) -> None:
        """Write :meth:`csv_text` to ``path`` (not atomic: kvlib.core may not import :mod:`kvlib.fileio`; the
        CLI writes ``csv_text()`` through :func:`kvlib.fileio.atomic_write_text`)."""
        with Path(path).open("w", newline="") as fh:
            fh.write(self.csv_text())


#: Significant digits accepted in a time in seconds (timestamps and the round length).
MAX_SECONDS_DIGITS = 100


def _parse_seconds(text: str, where: str) -> Decimal:
    """A non-negative, finite number of seconds, read exactly as a :class:`~decimal.Decimal` from its text."""
    t = text.strip()
    try:
        if not t.isascii() or "_" in t:
            raise InvalidOperation
        x = Decimal(t)
    except InvalidOperation:
        raise InstanceError(f"{where}: {_quote(t)} is not a number of seconds") from None
    if not x.is_finite():
        raise InstanceError(f"{where}: {_quote(t)} is not a finite number of seconds")
    if len(x.as_tuple().digits) > MAX_SECONDS_DIGITS:
        raise InstanceError(f"{where}: {_clip(t)} has more than {MAX_SECONDS_DIGITS} significant digits")
    if x < 0:
        raise InstanceError(f"{where}: arrival time {_clip(t)} is negative")
    return x if not x.is_zero() else Decimal(0)  # -0.0 is 0


def _round_length(round_seconds) -> Decimal:
    """``round_seconds`` (text, Decimal, int or float; a float is taken as its shortest decimal text, e.g.
    ``0.1`` -> ``Decimal('0.1')``) as an exact positive Decimal; :class:`ParameterError` otherwise."""
    bad = ParameterError(f"round_seconds must be a positive number of seconds, got {round_seconds!r}")
    if isinstance(round_seconds, bool):
        raise bad
    try:
        if isinstance(round_seconds, Decimal):
            r = round_seconds
        elif isinstance(round_seconds, float):
            r = Decimal(repr(round_seconds)) if math.isfinite(round_seconds) else Decimal("NaN")
        elif isinstance(round_seconds, int) or hasattr(round_seconds, "__index__"):
            r = Decimal(int(round_seconds.__index__()))
        elif isinstance(round_seconds, str):
            t = round_seconds.strip()
            if not t.isascii() or "_" in t:
                raise bad
            r = Decimal(t)
        else:
            raise bad
    except (InvalidOperation, ValueError):
        raise bad from None
    if not r.is_finite() or r <= 0 or len(r.as_tuple().digits) > MAX_SECONDS_DIGITS:
        raise bad
    return r


def _parts(x: Decimal) -> tuple[int, int]:
    """``x = m * 10**e`` with integers ``m >= 0`` (at most :data:`MAX_SECONDS_DIGITS` digits) and ``e``."""
    sign, digits, exp = x.as_tuple()
    m = 0
    for d in digits:
        m = 10 * m + d
    return m, int(exp)


def floor_rounds(x: Decimal, r: Decimal) -> int | None:
    """``floor(x / r)`` computed exactly in integers for Decimals ``x >= 0``, ``r > 0``; ``None`` when the
    result exceeds ``2**53`` (so a huge exponent never builds a huge integer)."""
    mx, ex = _parts(x)
    mr, er = _parts(r)
    if mx == 0:
        return 0
    k = ex - er  # x / r = (mx / mr) * 10**k
    if k >= 0:
        if k > len(str(mr)) + 17:  # mx >= 1, so x / r >= 10**k / mr > 10**16 > 2**53
            return None
        q = mx * 10**k // mr
    else:
        if -k > len(str(mx)) + 1:  # mx < 10**(-k - 1) <= mr * 10**(-k): below one round
            return 0
        q = mx // (mr * 10**-k)
    return q if q <= MAX_VALUE else None


def convert_trace(path: str | Path, round_seconds: float) -> ConvertedTrace:
    """Convert a serving trace with continuous arrival times to the request format.

    Columns: the first present name of each field in :data:`TRACE_COLUMNS`
    (Splitwise/Vidur: ``arrived_at`` in seconds, ``num_prefill_tokens``,
    ``num_decode_tokens``).  Rule from seconds to rounds: a request arriving
    ``x`` seconds into the trace arrives at round ``floor(x / round_seconds)``, computed exactly from the
    decimal text of ``x`` and of ``round_seconds`` (:func:`floor_rounds`; binary floating point put 0.3 s
    with 0.1 s rounds in round 2)
    (time 0 of the trace is round 0; with ``round_seconds`` the length of one
    batch, this is the first round boundary at or before its arrival, so it may
    be scheduled at that round's decision).  A trace without an arrival column
    (e.g. the arXiv length statistics) puts every request at round 0.  Token
    counts must be positive integers; arrival times finite, non-negative and
    non-decreasing.  Any unusable row raises :class:`InstanceError` naming the
    line, the column and the value.
    """
    path = _as_path(path)
    r = _round_length(round_seconds)
    text = read_text(path, "trace")
    rows = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(rows)
        while not any(x.strip() for x in header):  # blank lines before the header, as read_request_table
            header = next(rows)
    except StopIteration:
        raise InstanceError(f"{path}: file is empty (expected a header line)") from None
    except csv.Error as e:
        raise InstanceError(f"{path}, line {rows.line_num}: cannot parse the header ({e})") from None
    hline = rows.line_num
    cols = _header(path, header, (), hline)
    used: dict[str, str | None] = {}
    for field_, names in TRACE_COLUMNS.items():
        used[field_] = next((c for c in names if c in cols), None)
    for field_ in ("prompt", "output"):
        if used[field_] is None:
            raise InstanceError(f"{path}, line {hline}: no {field_} token column; expected one of "
                                f"{', '.join(TRACE_COLUMNS[field_])}; found {_names(cols) or 'nothing'}"
                                f"{_separator_hint(cols)}")
    pos = {f: cols.index(c) for f, c in used.items() if c is not None}
    secs: list[Decimal] = []
    rounds: list[int] = []
    s_list: list[int] = []
    o_list: list[int] = []
    lines: list[int] = []
    last: Decimal | None = None
    last_text = ""
    for lineno, row in _data_rows(path, rows, len(cols), cols):
        for f, lst in (("prompt", s_list), ("output", o_list)):
            v = parse_int(row[pos[f]], f"{path}, line {lineno}, column {used[f]}")
            if v <= 0:
                raise InstanceError(f"{path}, line {lineno}, column {used[f]}: token count must be positive, "
                                    f"got {v}")
            lst.append(v)
        if "arrival" in pos:
            where = f"{path}, line {lineno}, column {used['arrival']}"
            text_x = row[pos["arrival"]].strip()
            x = _parse_seconds(text_x, where)
            if last is not None and x < last:
                raise InstanceError(f"{where}: arrival time {_clip(text_x)} is earlier than the previous row's "
                                    f"{_clip(last_text)}; the trace must be in time order")
            k = floor_rounds(x, r)
            if k is None:
                raise InstanceError(f"{where}: arrival {_clip(text_x)} s is more than 2**53 rounds of {r:g} s, "
                                    "more than kvlib accepts")
            last, last_text = x, text_x
            secs.append(x)
            rounds.append(k)
        lines.append(lineno)
    if not lines:
        raise InstanceError(f"{path}: no rows (only a header line)")
    s = np.asarray(s_list, dtype=np.int64)
    o = np.asarray(o_list, dtype=np.int64)
    if secs:
        a = np.asarray(rounds, dtype=np.int64)
        first, lastsec = float(secs[0]), float(secs[-1])
    else:
        a = np.zeros(len(s), dtype=np.int64)
        first = lastsec = None
    return ConvertedTrace(a, s, o, str(path), used, float(r), first, lastsec)
