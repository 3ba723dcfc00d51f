"""Parallel sweeps over seeds and parameters (joblib, switchable to Dask) with a progress bar.

:func:`parallel_map` runs ``fn(item)`` for every item with ``n_jobs`` workers
and shows a ``tqdm`` progress bar.  ``backend`` is a joblib backend name:
``"loky"`` (default, processes), ``"threading"``, ``"sequential"`` (no
parallelism, useful in tests and for debugging) or ``"dask"`` -- the last one
needs ``dask.distributed`` (imported lazily; a clear error otherwise) and uses
the current ``dask.distributed.Client`` (one is created on the local machine if
none exists), so the same sweep runs on a cluster by starting a client that
points at its scheduler before calling.

:func:`run_specs` runs real-trace experiment specs
(:func:`kvlib.serving.experiments.run_spec`) this way and returns a table.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

__all__ = ["parallel_map", "run_specs"]


def _dask_client():
    try:
        from dask.distributed import Client, get_client
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError(
            "backend='dask' needs dask.distributed (pip install 'dask[distributed]'); "
            "use backend='loky' (the default) otherwise"
        ) from e
    try:
        return get_client()
    except ValueError:
        return Client(processes=True)


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


def parallel_map(
    fn: Callable[[Any], Any],
    items: Iterable[Any],
    *,
    n_jobs: int = 2,
    backend: str = "loky",
    progress: bool = True,
    desc: str | None = None,
) -> list:
    """``[fn(x) for x in items]`` in parallel, in order, with a progress bar."""
    from joblib import Parallel, delayed, parallel_config

    items = list(items)
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(items), desc=desc, leave=False)
    else:  # no tqdm import at all: tqdm.auto warns (naming a file path) where ipywidgets is missing
        bar = _NoBar()
    if backend == "sequential" or n_jobs == 1 or len(items) <= 1:
        out = []
        for x in items:
            out.append(fn(x))
            bar.update(1)
        bar.close()
        return out
    if backend == "dask":
        _dask_client()
    elif backend not in ("loky", "threading", "multiprocessing"):
        raise ValueError(f"backend must be 'loky', 'threading', 'multiprocessing', 'sequential' or 'dask', got {backend!r}")
    out = []
    with parallel_config(backend=backend, n_jobs=n_jobs):
        gen = Parallel(return_as="generator")(delayed(fn)(x) for x in items)
        for r in gen:
            out.append(r)
            bar.update(1)
    bar.close()
    return out


def run_specs(specs: Iterable[dict], *, base: dict | None = None, n_jobs: int = 2, backend: str = "loky",
              desc: str | None = None, progress: bool = True):
    """Run every experiment spec (:func:`kvlib.serving.experiments.run_spec`) in parallel.

    Each spec is ``dict(base, **spec)``: ``base`` holds the settings shared by a chapter's runs
    (e.g. ``shared_dir``, ``user_csv``, ``memory``); a key of the spec overrides it.  Returns a
    ``pandas.DataFrame`` with one row per spec, in order.
    """
    import pandas as pd

    from kvlib.serving.experiments import run_spec

    base = dict(base or {})
    return pd.DataFrame(parallel_map(run_spec, [dict(base, **s) for s in specs], n_jobs=n_jobs, backend=backend,
                                     progress=progress, desc=desc))
