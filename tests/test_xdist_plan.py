"""The suite's hand-out to xdist workers (tests/xdist_plan.py): every test exactly once,
modules whole, the heaviest spread over the workers and run first."""

from __future__ import annotations

from pathlib import Path

import pytest
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


def test_prepared_bytecode_is_what_pytest_and_python_load(
    tmp_path: Path, pytestconfig: pytest.Config
) -> None:
    """tests/worker_prep.py: the rewritten bytecode it writes is accepted by pytest's own
    loader, the ordinary bytecode by Python's, and a changed source is stale again."""
    from _pytest.assertion.rewrite import _read_pyc
    from worker_prep import build, rewritten_pyc, stale_bytecode

    tests, package = tmp_path / "tests", tmp_path / "src" / "pkg"
    tests.mkdir()
    package.mkdir(parents=True)
    module = tests / "test_sample.py"
    module.write_text("def test_it():\n    x = 1\n    assert x == 2, 'no'\n")
    (package / "mod.py").write_text("VALUE = 1\n")
    stale = stale_bytecode(tests, package)
    assert stale == [("rewrite", module), ("compile", package / "mod.py")]
    for kind, source in stale:
        build(pytestconfig, kind, source)
    assert stale_bytecode(tests, package) == []
    code = _read_pyc(module, rewritten_pyc(module))
    assert code is not None
    (function,) = [c for c in code.co_consts if hasattr(c, "co_varnames")]
    assert any(name.startswith("@py_assert") for name in function.co_varnames)  # rewritten
    module.write_text("def test_it():\n    assert True\n")
    assert stale_bytecode(tests, package) == [("rewrite", module)]


def test_modules_sharing_a_heavy_import_go_to_one_worker() -> None:
    """The provider SDKs are imported by one worker, not by each (`SHARED_IMPORTS`)."""
    from xdist_plan import SHARED_IMPORTS

    (group,) = SHARED_IMPORTS
    ids = [f"{m}::t{i}" for m in sorted(group) for i in range(2)]
    ids += [f"tests/test_light_{k}.py::t" for k in range(40)]
    shares = plan(ids, 3)
    holders = {w for w, share in enumerate(shares) for i in share if ids[i].split("::")[0] in group}
    assert len(holders) == 1
    assert sorted(i for share in shares for i in share) == list(range(len(ids)))
