"""Random instance families (seeded; every draw comes from a ``numpy`` Generator).

``section51`` follows 001 Section 5.1: ``M ~ U[30, 50]``, ``s_i ~ U[1, 5]``,
``o_i ~ U[1, M - s_i]`` (all uniform on integers, inclusive); Arrival Model 1
puts ``n ~ U[40, 60]`` requests at ``t = 0``; Arrival Model 2 draws a rate
``lambda ~ U[0.5, 1.5]`` and a horizon ``T ~ U[40, 60]`` and releases a
Poisson(``lambda``) number of requests at each integer ``t < T``.
"""

from __future__ import annotations

import numpy as np

from kvlib.core.model import Instance


def section51(
    rng: np.random.Generator,
    arrival_model: int = 1,
    *,
    n_range: tuple[int, int] = (40, 60),
    memory_range: tuple[int, int] = (30, 50),
    prompt_range: tuple[int, int] = (1, 5),
    rate_range: tuple[float, float] = (0.5, 1.5),
    horizon_range: tuple[int, int] = (40, 60),
) -> Instance:
    """One instance of 001 Section 5.1 (Arrival Model 1 or 2); ranges are inclusive."""
    M = int(rng.integers(memory_range[0], memory_range[1] + 1))
    if arrival_model == 1:
        n = int(rng.integers(n_range[0], n_range[1] + 1))
        arrival = np.zeros(n, dtype=np.int64)
    elif arrival_model == 2:
        lam = float(rng.uniform(*rate_range))
        T = int(rng.integers(horizon_range[0], horizon_range[1] + 1))
        counts = rng.poisson(lam, size=T)
        if counts.sum() == 0:
            counts[0] = 1
        arrival = np.repeat(np.arange(T), counts)
        n = len(arrival)
    else:
        raise ValueError(f"arrival_model must be 1 or 2, got {arrival_model}")
    s = rng.integers(prompt_range[0], prompt_range[1] + 1, size=n)
    o = np.array([rng.integers(1, M - si + 1) for si in s], dtype=np.int64)
    return Instance.from_arrays(arrival, s, o, M)


def uniform(
    rng: np.random.Generator,
    n: int,
    memory: int,
    *,
    prompt_max: int,
    output_max: int,
    arrival_max: int = 0,
) -> Instance:
    """``n`` requests with ``s ~ U[1, prompt_max]``, ``o ~ U[1, output_max]``, ``a ~ U[0, arrival_max]``.

    Output lengths are clipped to ``memory - s`` so every request can run
    (the clipping is part of the distribution; it is not a resampling).
    """
    if prompt_max + 1 > memory:
        raise ValueError(f"prompt_max + 1 = {prompt_max + 1} exceeds memory {memory}")
    a = rng.integers(0, arrival_max + 1, size=n)
    s = rng.integers(1, prompt_max + 1, size=n)
    o = np.minimum(rng.integers(1, output_max + 1, size=n), memory - s)
    return Instance.from_arrays(a, s, o, memory)
