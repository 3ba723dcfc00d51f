"""Rows of a stored table computed on a Dask cluster: the same deterministic values as the process pool,
written by the driver only, resumable, each row recording where it ran."""

from __future__ import annotations

import socket

import pytest

from kvlib.book.rows import policy_tel_row
from kvlib.book.store import Store, read_rows, table_paths

distributed = pytest.importorskip("distributed")
#: one worker runs this file under pytest-xdist: the module's local cluster starts once, not once per worker
pytestmark = pytest.mark.xdist_group("dask")

KEYS = [dict(policy=p, arrival_model=1, seed=5, trial=t) for p in ("mc-sf", "fcfs") for t in range(4)]
TIMING = {"_wall_s", "_host", "_cores"}


@pytest.fixture(scope="module")
def cluster():
    from kvlib.book.store import local_dask_cluster

    with local_dask_cluster(2) as c:
        yield c
        from kvlib.book.store import release_dask_client

        release_dask_client(c.scheduler_address)


def _rows(root, name="tels"):
    header, rows = read_rows(table_paths("demo", name, root)[0])
    return header, sorted(({k: v for k, v in r.items() if k not in TIMING} for r in rows), key=lambda r: r["_key"])


def test_dask_rows_equal_the_process_pools(tmp_path, monkeypatch, cluster):
    pool_root, dask_root = tmp_path / "pool", tmp_path / "dask"
    monkeypatch.delenv("KVBOOK_DASK", raising=False)
    Store("demo", mode="full", parameters={"seed": 5}, policy="write", root=pool_root).table(
        "tels", policy_tel_row, KEYS, jobs=2)
    monkeypatch.setenv("KVBOOK_DASK", cluster.scheduler_address)
    t = Store("demo", mode="full", parameters={"seed": 5}, policy="write", root=dask_root).table(
        "tels", policy_tel_row, KEYS)
    assert t.computed_now == len(KEYS)
    h_pool, r_pool = _rows(pool_root)
    h_dask, r_dask = _rows(dask_root)
    assert h_pool == h_dask and r_pool == r_dask  # every deterministic cell, byte for byte
    _, raw = read_rows(table_paths("demo", "tels", dask_root)[0])
    assert all(r["_host"] == socket.gethostname() and int(r["_cores"]) >= 1 for r in raw)


def test_a_dask_run_resumes_a_partial_table(tmp_path, monkeypatch, cluster):
    monkeypatch.setenv("KVBOOK_DASK", cluster.scheduler_address)
    s = lambda: Store("demo", mode="full", parameters={"seed": 5}, policy="write", root=tmp_path)  # noqa: E731
    assert s().table("tels", policy_tel_row, KEYS[:3]).computed_now == 3
    t = s().table("tels", policy_tel_row, KEYS)
    assert t.computed_now == len(KEYS) - 3 and len(t.frame) == len(KEYS)


def test_an_old_table_gets_the_host_columns_when_appended_to(tmp_path, monkeypatch):
    """A table stored before rows recorded their host keeps its old rows and gains the columns."""
    monkeypatch.delenv("KVBOOK_DASK", raising=False)
    from kvlib.book import store as st

    s = lambda: Store("demo", mode="full", parameters={"seed": 5}, policy="write", root=tmp_path)  # noqa: E731
    s().table("tels", policy_tel_row, KEYS[:2])
    path = table_paths("demo", "tels", tmp_path)[0]
    header, rows = read_rows(path)
    old = [c for c in header if c not in ("_host", "_cores")]
    st._rewrite(path, old, rows)
    s().table("tels", policy_tel_row, KEYS[:4])
    header2, rows2 = read_rows(path)
    assert header2[-2:] == ["_host", "_cores"] and len(rows2) == 4
    assert rows2[0]["_host"] == "" and rows2[3]["_host"] == socket.gethostname()


def test_an_unreachable_scheduler_is_named(tmp_path, monkeypatch):
    from kvlib.book.store import StoreError, release_dask_client

    monkeypatch.setenv("KVBOOK_DASK", "tcp://127.0.0.1:1")
    release_dask_client("tcp://127.0.0.1:1")
    with pytest.raises(StoreError, match="cannot reach the Dask scheduler"):
        Store("demo", mode="full", parameters={"seed": 5}, policy="write", root=tmp_path).table(
            "tels", policy_tel_row, KEYS[:1])
