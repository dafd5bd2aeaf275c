"""What the main process builds once before pytest-xdist's workers start.

Each worker imports every test module to collect the suite. On a fresh checkout that
means rewriting the asserts of ~125 test modules (pytest's assertion rewriting) and
compiling filewright, in every worker, at the same time; and hypothesis builds its
Unicode tables on a first run. Measured on a fresh clone: a worker's collection cost
12-13 s of CPU, against ~4 s once this bytecode exists. `prepare_for_workers` does it
once, on two processes, and writes what the workers then find: pytest's own rewritten
bytecode (the format pytest checks against the source's hash) and the interpreter's
ordinary bytecode. A checkout that has run the suite before has nothing stale and
pays a few milliseconds of checks.
"""

from __future__ import annotations

import contextlib
import importlib.util
import multiprocessing
import py_compile
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest
from _pytest.assertion import assertstate_key
from _pytest.assertion.rewrite import PYC_TAIL, _rewrite_test, _write_pyc, get_cache_dir

Job = tuple[str, Path | None]


def hypothesis_tables() -> None:
    """Hypothesis's Unicode tables (kept in its `.hypothesis/` cache once built)."""
    try:
        from hypothesis.internal.charmap import charmap, intervals_from_codec
    except ImportError:  # pragma: no cover - another hypothesis version
        return
    with warnings.catch_warnings():  # (hypothesis warns of storage used before its session)
        warnings.simplefilter("ignore")
        charmap()
        intervals_from_codec("utf-8")


def rewritten_pyc(source: Path) -> Path:
    """Where pytest keeps the assertion-rewritten bytecode of a test module."""
    return get_cache_dir(source) / (source.name[:-3] + PYC_TAIL)


def stale_bytecode(tests: Path, package: Path) -> list[Job]:
    """Test modules and conftests under `tests` whose rewritten bytecode is missing or
    out of date ("rewrite"), and modules of `package` without bytecode ("compile")."""
    stale: list[Job] = []
    for source in sorted([*tests.rglob("test_*.py"), *tests.rglob("conftest.py")]):
        try:
            with open(rewritten_pyc(source), "rb") as cached:
                header = cached.read(16)
            fresh = header[8:16] == importlib.util.source_hash(source.read_bytes())[:8]
        except OSError:
            fresh = False
        if not fresh:
            stale.append(("rewrite", source))
    for source in sorted(package.rglob("*.py")):
        if not Path(importlib.util.cache_from_source(str(source))).exists():
            stale.append(("compile", source))
    return stale


def build(config: pytest.Config, kind: str, source: Path | None) -> None:
    """One job: the tables, a module's ordinary bytecode, or its rewritten bytecode."""
    if kind == "tables":
        hypothesis_tables()
    elif kind == "compile" and source is not None:
        py_compile.compile(str(source), doraise=False)
    elif kind == "rewrite" and source is not None:
        source_hash, code = _rewrite_test(source, config)
        rewritten_pyc(source).parent.mkdir(exist_ok=True)
        _write_pyc(config.stash[assertstate_key], code, source_hash, rewritten_pyc(source))


_CONFIG: list[pytest.Config] = []  # the forked processes' view of the session's config


def _build_in_pool(job: Job) -> None:
    with contextlib.suppress(Exception):  # the worker meets the same error and reports it
        build(_CONFIG[0], *job)


def prepare_for_workers(config: pytest.Config, tests: Path, package: Path) -> None:
    """Build what is stale, on two forked processes, with hypothesis's tables."""
    stale = stale_bytecode(tests, package)
    if not stale:
        hypothesis_tables()
        return
    _CONFIG[:] = [config]
    jobs: list[Job] = [("tables", None), *stale]
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork")) as pool:
        list(pool.map(_build_in_pool, jobs, chunksize=4))
