"""The suite's hand-out to xdist workers (tests/xdist_plan.py): every test exactly once,
modules whole, the heaviest spread over the workers and run first."""

from __future__ import annotations

from xdist_plan import MODULE_COST, plan


def test_every_test_once_modules_whole_heaviest_first() -> None:
    heavy = sorted(MODULE_COST, key=MODULE_COST.__getitem__, reverse=True)[:4]
    ids = [f"{m}::t{i}" for m in heavy for i in range(3)]
    ids += [f"tests/test_light_{k}.py::t{i}" for k in range(20) for i in range(5)]
    shares = plan(ids, 4)
    flat = sorted(i for share in shares for i in share)
    assert flat == list(range(len(ids)))
    firsts = set()
    for share in shares:
        modules = [ids[i].split("::")[0] for i in share]
        for m in set(modules):  # whole: one worker, contiguous
            first, last = modules.index(m), len(modules) - modules[::-1].index(m)
            assert modules[first:last] == [m] * (last - first)
        firsts.add(modules[0])
    assert firsts == set(heavy)  # each worker starts with one of the four heaviest


def test_fewer_tests_than_workers() -> None:
    shares = plan(["tests/test_a.py::x"], 4)
    assert sorted(len(s) for s in shares) == [0, 0, 0, 1]
