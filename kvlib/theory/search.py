"""The adversarial instance search shared by the chapters: seeded hill climbing over small instances.

A chapter that looks for a bad instance for some ratio (MC-SF / OPT in "MC-SF's constant
ratio", Sorted-F / OPT and the proof-chain links in "Sorted-F and the ratio 48") runs
:func:`hill_climb`: from a start instance (given, or drawn from the generator's ``rng``), it
repeatedly applies one random :func:`mutate` step and keeps the candidate when the objective
does not decrease (ties are accepted, so the search can walk across plateaus).  Restarts draw
a new start.  Every random draw comes from the one ``numpy.random.Generator`` passed in, so a
search is a deterministic function of its seed.

All instances are "all requests at ``t = 0``" (the setting of 001 Theorem 4.3 and of 002
Sections 2-4).  What the search may visit is an :class:`InstanceSpace`:

* ``equal_prompt``: one prompt size shared by all requests (001 Theorem 4.3), or one per request;
* ``n_min``/``n_max``: bounds on the number of requests;
* ``headroom`` ``h``: every request satisfies ``h (s_i + o_i) <= M`` (``h = 2`` is Theorem 4.3's
  ``M >= 2 max(s + o)``; ``h = 1`` only asks every request to fit alone), so a request with prompt
  ``s`` has output at most ``cap(s) = M // h - s``;
* ``moves``: the move names, one drawn uniformly per step; ``fallback``: the move made instead when
  "add" (at ``n_max``) or "remove" (at ``n_min``) is not possible;
* the step sets of the shifting moves (``prompt_steps``, ``output_steps``, ``memory_steps``).

Moves (``j`` is a uniformly drawn request):

``"resample_output"``  ``o_j`` redrawn uniformly in ``1..cap(s_j)``;
``"shift_output"``     ``o_j += step``, clipped to ``1..cap(s_j)``;
``"shift_prompt"``     shared prompt: ``s += step`` (at least 1), kept only if the headroom still holds;
                       per-request: ``s_j += step`` clipped to ``1..M//h - 1``, then ``o_j`` cut to ``cap(s_j)``;
``"add"``              a new request: per-request prompt drawn in ``1..floor(new_prompt_share * M)``,
                       output in ``1..cap(s)``;
``"remove"``           request ``j`` removed;
``"shift_memory"``     ``M += step``, but not below ``h max_i (s_i + o_i)``.

:data:`THEOREM43_SPACE` and :func:`variable_prompt_space` are the two spaces the chapters use (with the
start generators :func:`kvlib.theory.chain43.random_theorem43_instance` and :func:`random_at_zero_instance`);
they reproduce, draw for draw, the two local searches the chapters had before this module.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional, Union

import numpy as np

from kvlib.core.model import Instance

MOVES = ("resample_output", "shift_output", "shift_prompt", "add", "remove", "shift_memory")


@dataclass(frozen=True)
class InstanceSpace:
    """The all-at-zero instances an adversarial search may visit, and its move set (module docstring)."""

    equal_prompt: bool
    n_min: int = 2
    n_max: int = 8
    headroom: int = 1
    moves: tuple[str, ...] = ("add", "remove", "shift_output", "shift_prompt", "shift_output")
    fallback: tuple[tuple[str, str], ...] = (("add", "shift_output"), ("remove", "shift_prompt"))
    prompt_steps: tuple[int, ...] = tuple(range(-4, 5))
    output_steps: tuple[int, ...] = tuple(range(-6, 7))
    memory_steps: tuple[int, ...] = (-2, -1, 1, 2)
    new_prompt_share: float = 0.5

    def __post_init__(self):
        bad = [m for m in self.moves if m not in MOVES]
        if bad or not self.moves:
            raise ValueError(f"InstanceSpace: unknown moves {bad} (known: {MOVES})")
        for src, dst in self.fallback:
            if src not in ("add", "remove") or dst not in MOVES or dst in ("add", "remove"):
                raise ValueError(f"InstanceSpace: fallback {src!r} -> {dst!r} must map add/remove to another move")
        if not 1 <= self.n_min <= self.n_max:
            raise ValueError(f"InstanceSpace: need 1 <= n_min <= n_max, got n_min={self.n_min}, n_max={self.n_max}")
        if self.headroom < 1:
            raise ValueError(f"InstanceSpace: headroom must be >= 1, got {self.headroom}")

    def output_cap(self, s: int, M: int) -> int:
        """Largest output a request with prompt ``s`` may have: ``M // headroom - s``."""
        return M // self.headroom - s

    def contains(self, instance: Instance) -> bool:
        """True iff ``instance`` is all at zero, within the bounds on ``n``, the headroom and (if asked) equal prompts."""
        s, o = instance.prompt, instance.output
        return (bool(np.all(instance.arrival == 0)) and self.n_min <= instance.n <= self.n_max
                and bool(np.all(self.headroom * (s + o) <= instance.memory))
                and (not self.equal_prompt or len(set(s.tolist())) == 1))


#: 001 Theorem 4.3's setting: equal prompts, ``M >= 2 max(s + o)``, ``2 <= n <= n_max`` (set ``n_max``
#: with :func:`dataclasses.replace`); moves: redraw an output, add, remove, shift ``M`` by 1 or 2, shift ``s`` by 1.
THEOREM43_SPACE = InstanceSpace(
    equal_prompt=True, n_min=2, n_max=10, headroom=2,
    moves=("resample_output", "add", "remove", "shift_memory", "shift_prompt"),
    fallback=(("add", "shift_prompt"), ("remove", "shift_prompt")),
    prompt_steps=(-1, 1), memory_steps=(-2, -1, 1, 2),
)


def theorem43_space(n_max: int) -> InstanceSpace:
    """:data:`THEOREM43_SPACE` with at most ``n_max`` requests."""
    from dataclasses import replace

    return replace(THEOREM43_SPACE, n_max=int(n_max))


def variable_prompt_space(n_max: int = 8) -> InstanceSpace:
    """002's setting (prompts vary, every request fits alone, fixed ``M``): add / remove a request, shift one
    output by up to 6 (twice as likely) or one prompt by up to 4."""
    return InstanceSpace(equal_prompt=False, n_min=2, n_max=int(n_max), headroom=1)


def mutate(instance: Instance, rng: np.random.Generator, space: InstanceSpace) -> Instance:
    """One random move of ``space`` applied to ``instance`` (see the module docstring); a new instance."""
    h = space.headroom
    M = int(instance.memory)
    s = [int(x) for x in instance.prompt]
    o = [int(x) for x in instance.output]
    move = space.moves[int(rng.integers(0, len(space.moves)))]
    if (move == "add" and len(o) >= space.n_max) or (move == "remove" and len(o) <= space.n_min):
        move = dict(space.fallback).get(move, move)
        if move in ("add", "remove"):  # no fallback given: the step changes nothing
            return instance
    if space.equal_prompt:
        p = s[0]
        if move == "resample_output":
            o[int(rng.integers(len(o)))] = int(rng.integers(1, space.output_cap(p, M) + 1))
        elif move == "shift_output":
            j = int(rng.integers(len(o)))
            o[j] = int(np.clip(o[j] + int(rng.choice(space.output_steps)), 1, space.output_cap(p, M)))
        elif move == "add":
            o.append(int(rng.integers(1, space.output_cap(p, M) + 1)))
        elif move == "remove":
            o.pop(int(rng.integers(len(o))))
        elif move == "shift_memory":
            M = max(h * (p + max(o)), M + int(rng.choice(space.memory_steps)))
        else:  # shift_prompt
            p2 = max(1, p + int(rng.choice(space.prompt_steps)))
            if h * (p2 + max(o)) <= M:
                p = p2
        return Instance.at_zero([p] * len(o), o, M)
    if move == "add":
        x = int(rng.integers(1, int(space.new_prompt_share * M) + 1))
        s.append(x)
        o.append(int(rng.integers(1, space.output_cap(x, M) + 1)))
    elif move == "remove":
        j = int(rng.integers(len(s)))
        s.pop(j)
        o.pop(j)
    elif move == "shift_memory":
        M = max(h * max(a + b for a, b in zip(s, o)), M + int(rng.choice(space.memory_steps)))
    else:
        j = int(rng.integers(len(s)))
        if move == "shift_prompt":
            s[j] = int(np.clip(s[j] + int(rng.choice(space.prompt_steps)), 1, M // h - 1))
            o[j] = min(o[j], space.output_cap(s[j], M))
        elif move == "shift_output":
            o[j] = int(np.clip(o[j] + int(rng.choice(space.output_steps)), 1, space.output_cap(s[j], M)))
        else:  # resample_output
            o[j] = int(rng.integers(1, space.output_cap(s[j], M) + 1))
    return Instance.at_zero(s, o, M)


@dataclass
class SearchRun:
    """One restart of :func:`hill_climb`: its start, the instance it ended on, that instance's objective
    value, and ``trace[k]`` = the value held after step ``k`` (``trace[0]`` is the start's)."""

    start: Instance
    best: Instance
    value: Optional[float]
    trace: list = field(default_factory=list)
    evaluations: int = 0


@dataclass
class SearchResult:
    """All restarts of one :func:`hill_climb`; ``best``/``value`` are those of the best restart (first on ties)."""

    runs: list

    @property
    def _top(self) -> SearchRun:
        scored = [r for r in self.runs if r.value is not None]
        if not scored:
            raise ValueError("hill_climb: the objective was not evaluable on any start instance")
        return max(scored, key=lambda r: r.value)

    @property
    def best(self) -> Instance:
        return self._top.best

    @property
    def value(self) -> float:
        return self._top.value


def hill_climb(
    objective: Callable[[Instance], Optional[float]],
    space: InstanceSpace,
    rng: np.random.Generator,
    *,
    start: Union[Instance, Callable[[np.random.Generator], Instance]],
    steps: int,
    restarts: int = 1,
    valid: Optional[Callable[[Instance], bool]] = None,
) -> SearchResult:
    """Maximise ``objective`` over ``space`` by local search; deterministic given ``rng``'s seed.

    Each of ``restarts`` runs starts from ``start`` (an instance, or a function drawing one from
    ``rng``), then makes ``steps`` :func:`mutate` steps; a candidate that fails ``valid`` is
    skipped without evaluating the objective, and one whose objective is ``None`` (not
    evaluable, e.g. OPT not certified in time) is rejected; otherwise it replaces the current
    instance when its value is at least the current value.
    """
    if steps < 0 or restarts < 1:
        raise ValueError(f"hill_climb: need steps >= 0 and restarts >= 1, got steps={steps}, restarts={restarts}")
    runs = []
    for _ in range(restarts):
        cur = start(rng) if callable(start) and not isinstance(start, Instance) else start
        first, val, evals = cur, objective(cur), 1
        trace = [val]
        for _ in range(steps):
            cand = mutate(cur, rng, space)
            if valid is None or valid(cand):
                v = objective(cand)
                evals += 1
                if v is not None and (val is None or v >= val):
                    cur, val = cand, v
            trace.append(val)
        runs.append(SearchRun(first, cur, val, trace, evals))
    return SearchResult(runs)


def random_at_zero_instance(rng: np.random.Generator, *, memory: tuple[int, int] = (10, 24),
                            n: tuple[int, int] = (4, 7)) -> Instance:
    """A small start instance with varying prompts (the chapter "Sorted-F and the ratio 48"), all at 0.

    ``M ~ U{memory}``, ``n ~ U{n}`` (inclusive ranges), ``s_i ~ U{1..M//2}``, ``o_i ~ U{1..M - s_i}``,
    drawn in that order from ``rng``.
    """
    if not (2 <= memory[0] <= memory[1] and 1 <= n[0] <= n[1]):
        raise ValueError(f"random_at_zero_instance: bad ranges memory={memory}, n={n}")
    M = int(rng.integers(memory[0], memory[1] + 1))
    k = int(rng.integers(n[0], n[1] + 1))
    s = rng.integers(1, M // 2 + 1, k)
    o = np.array([rng.integers(1, M - x + 1) for x in s])
    return Instance.at_zero(s, o, M)
