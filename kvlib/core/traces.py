"""Reading request files.

``read_instance_csv`` reads the command-line format: a header line with columns
``arrival,prompt,output`` (any order, extra columns allowed, e.g. ``lower`` and
``upper`` for interval predictions) and one request per line, integers.  Every
error names the line (1-based, the header is line 1) and the column.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kvlib.core.model import Instance, InstanceError

REQUIRED = ("arrival", "prompt", "output")


@dataclass
class RequestTable:
    """Columns read from a CSV file (``extra`` holds optional integer columns)."""

    arrival: np.ndarray
    prompt: np.ndarray
    output: np.ndarray
    extra: dict[str, np.ndarray]
    source: str
    lines: np.ndarray  # 1-based line number of each request in the file

    def instance(self, memory: int) -> Instance:
        try:
            return Instance.from_arrays(self.arrival, self.prompt, self.output, memory)
        except InstanceError as e:
            msg = str(e)
            if msg.startswith("request "):
                idx = int(msg.split()[1].rstrip(":"))
                raise InstanceError(f"{self.source}, line {int(self.lines[idx])}: {msg}") from None
            raise InstanceError(f"{self.source}: {msg}") from None


def _parse_int(text: str, where: str) -> int:
    t = text.strip()
    try:
        return int(t)
    except ValueError:
        try:
            f = float(t)
        except ValueError:
            raise InstanceError(f"{where}: {t!r} is not an integer") from None
        if f.is_integer():
            return int(f)
        raise InstanceError(f"{where}: {t!r} is not an integer") from None


def read_request_table(path: str | Path, optional: tuple[str, ...] = ("lower", "upper")) -> RequestTable:
    """Read ``arrival,prompt,output`` (+ optional columns) from ``path``."""
    path = Path(path)
    if not path.exists():
        raise InstanceError(f"{path}: no such file")
    with path.open(newline="") as fh:
        reader = csv.reader(fh)
        try:
            header = next(reader)
        except StopIteration:
            raise InstanceError(f"{path}: file is empty (expected a header line arrival,prompt,output)") from None
        cols = [h.strip().lower() for h in header]
        missing = [c for c in REQUIRED if c not in cols]
        if missing:
            raise InstanceError(
                f"{path}, line 1: missing column(s) {', '.join(missing)}; found {', '.join(cols) or 'nothing'}"
            )
        wanted = list(REQUIRED) + [c for c in optional if c in cols]
        pos = {c: cols.index(c) for c in wanted}
        data: dict[str, list[int]] = {c: [] for c in wanted}
        lines: list[int] = []
        for lineno, row in enumerate(reader, start=2):
            if not row or all(not x.strip() for x in row):
                continue
            if len(row) != len(cols):
                raise InstanceError(f"{path}, line {lineno}: expected {len(cols)} fields, found {len(row)}")
            for c in wanted:
                data[c].append(_parse_int(row[pos[c]], f"{path}, line {lineno}, column {c}"))
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
    )


def read_instance_csv(path: str | Path, memory: int) -> Instance:
    """Read a CSV file into an :class:`Instance`; errors name file, line and column."""
    return read_request_table(path).instance(memory)


def write_instance_csv(instance: Instance, path: str | Path) -> None:
    """Write ``arrival,prompt,output`` (the format :func:`read_instance_csv` reads)."""
    with Path(path).open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(REQUIRED)
        for r in instance.requests:
            w.writerow((r.arrival, r.prompt, r.output))
