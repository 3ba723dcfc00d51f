"""kvlib.theory.search: the shared adversarial instance search."""

import numpy as np
import pytest

from kvlib import Instance
from kvlib.theory.chain43 import random_theorem43_instance
from kvlib.theory.ratio import theorem43_assumptions
from kvlib.theory.search import (InstanceSpace, hill_climb, mutate, random_at_zero_instance, theorem43_space,
                                 variable_prompt_space)


# The two local-search steps the chapters defined before kvlib.theory.search existed, verbatim:
# the shared mutate must reproduce them draw for draw, so the chapters' numbers do not move.
def _legacy_mutate_thm43(inst, rng, n_max):
    s = int(inst.prompt[0])
    M = inst.memory
    o = inst.output.tolist()
    move = rng.integers(0, 5)
    if move == 0:
        o[rng.integers(len(o))] = int(rng.integers(1, M // 2 - s + 1))
    elif move == 1 and len(o) < n_max:
        o.append(int(rng.integers(1, M // 2 - s + 1)))
    elif move == 2 and len(o) > 2:
        o.pop(int(rng.integers(len(o))))
    elif move == 3:
        M = max(2 * (s + max(o)), M + int(rng.choice([-2, -1, 1, 2])))
    else:
        s2 = max(1, s + int(rng.choice([-1, 1])))
        if 2 * (s2 + max(o)) <= M:
            s = s2
    return Instance.at_zero([s] * len(o), o, M)


def _legacy_mutate_sortedf(inst, r):
    s, o, M = inst.prompt.tolist(), inst.output.tolist(), inst.memory
    move = r.integers(0, 5)
    if move == 0 and len(s) < 8:
        x = int(r.integers(1, M // 2 + 1)); s.append(x); o.append(int(r.integers(1, M - x + 1)))
    elif move == 1 and len(s) > 2:
        j = int(r.integers(len(s))); s.pop(j); o.pop(j)
    else:
        j = int(r.integers(len(s)))
        if move % 2:
            s[j] = int(np.clip(s[j] + r.integers(-4, 5), 1, M - 1)); o[j] = min(o[j], M - s[j])
        else:
            o[j] = int(np.clip(o[j] + r.integers(-6, 7), 1, M - s[j]))
    return Instance.at_zero(s, o, M)


def _key(inst):
    return (int(inst.memory), tuple(inst.prompt.tolist()), tuple(inst.output.tolist()))


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_mutate_reproduces_the_theorem43_chapter_step(seed):
    a, b = np.random.default_rng(seed), np.random.default_rng(seed)
    cur = ref = random_theorem43_instance(np.random.default_rng(100 + seed), 6)
    space = theorem43_space(6)
    for _ in range(400):
        cur, ref = mutate(cur, a, space), _legacy_mutate_thm43(ref, b, 6)
        assert _key(cur) == _key(ref)
        assert theorem43_assumptions(cur) and space.contains(cur)


@pytest.mark.parametrize("seed", [0, 3])
def test_mutate_reproduces_the_sortedf_chapter_step(seed):
    a, b = np.random.default_rng(seed), np.random.default_rng(seed)
    cur = ref = random_at_zero_instance(np.random.default_rng(seed))
    space = variable_prompt_space(8)
    for _ in range(400):
        cur, ref = mutate(cur, a, space), _legacy_mutate_sortedf(ref, b)
        assert _key(cur) == _key(ref)
        assert space.contains(cur) and cur.memory == ref.memory


def test_hill_climb_is_deterministic_per_seed_and_monotone():
    space = variable_prompt_space(8)
    obj = lambda inst: float((inst.prompt + inst.output).sum()) / inst.memory  # total peak over M
    start = Instance.at_zero([1, 1], [1, 1], 12)
    r1 = hill_climb(obj, space, np.random.default_rng(5), start=start, steps=60, restarts=2)
    r2 = hill_climb(obj, space, np.random.default_rng(5), start=start, steps=60, restarts=2)
    r3 = hill_climb(obj, space, np.random.default_rng(6), start=start, steps=60, restarts=2)
    assert [(_key(r.best), r.trace) for r in r1.runs] == [(_key(r.best), r.trace) for r in r2.runs]
    assert [r.trace for r in r1.runs] != [r.trace for r in r3.runs]
    for run in r1.runs:
        assert len(run.trace) == 61 and run.trace[0] == obj(start)
        assert all(b >= a for a, b in zip(run.trace, run.trace[1:]))
        assert run.value == obj(run.best) == run.trace[-1]
    assert r1.value == max(r.value for r in r1.runs) > obj(start)


def test_hill_climb_restarts_draw_starts_and_respect_valid_and_none():
    calls = []

    def obj(inst):
        calls.append(inst.n)
        return None if inst.n == 3 else float(inst.n)  # instances with 3 requests are "not evaluable"

    res = hill_climb(obj, theorem43_space(5), np.random.default_rng(0),
                     start=lambda g: Instance.at_zero([1, 1], [1, 1], 8), steps=50, restarts=3,
                     valid=lambda inst: inst.memory <= 9)
    assert len(res.runs) == 3
    for run in res.runs:
        assert run.best.n == 2 and run.value == 2.0  # n = 3 is never accepted, so n = 4, 5 are out of reach
        assert run.best.memory <= 9
    assert 3 in calls and max(calls) == 3


def test_instance_space_rejects_bad_parameters():
    with pytest.raises(ValueError, match="unknown moves"):
        InstanceSpace(equal_prompt=True, moves=("teleport",))
    with pytest.raises(ValueError, match="n_min"):
        InstanceSpace(equal_prompt=True, n_min=3, n_max=2)
    with pytest.raises(ValueError, match="steps"):
        hill_climb(lambda i: 0.0, theorem43_space(4), np.random.default_rng(0),
                   start=Instance.at_zero([1, 1], [1, 1], 8), steps=-1)


def test_random_start_generators_meet_their_spaces():
    rng = np.random.default_rng(2)
    for _ in range(100):
        inst = random_theorem43_instance(rng, 6)
        assert theorem43_assumptions(inst) and 2 <= inst.n <= 6
        small = random_at_zero_instance(rng)
        assert 10 <= small.memory <= 24 and 4 <= small.n <= 7
        assert np.all(small.prompt <= small.memory // 2) and np.all(small.prompt + small.output <= small.memory)
