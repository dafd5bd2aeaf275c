"""Shared test fixtures: small and generic."""

from __future__ import annotations

import atexit
import gc
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

# One tree snapshot for the whole suite (the adversarial tests' version, which can also
# skip entries by name).
from adversarial.support import Snapshot, take_snapshot
from hypothesis import HealthCheck, settings
from worker_prep import hypothesis_tables, prepare_for_workers
from xdist_plan import PlannedWorkStealing

# Python writes its bytecode caches while the suite runs, even where the environment says
# not to (PYTHONDONTWRITEBYTECODE is set on the machines this project is developed on):
# otherwise every worker and every subprocess the suite starts (CLI calls, MCP servers,
# crash children) compiles filewright, the MCP SDK and pydantic from source again.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False


def _memory_backed_tmpdir() -> str | None:
    """Where the suite's temporary files go: $FILEWRIGHT_TEST_TMPDIR when set (empty: the
    system's temporary directory), else /dev/shm when it is a writable tmpfs that allows
    executables and has 8 GiB free. The tests create, fsync and delete hundreds of
    thousands of files; on the disk's journal that was ~70 s of the suite's ~450 s of CPU
    and made fsyncs wait (measured: tests/test_history.py and three more files, 1.8 ->
    0.6 s system CPU). tests/test_on_disk.py runs the durability-sensitive cases on the
    checkout's own filesystem, whatever this picks."""
    chosen = os.environ.get("FILEWRIGHT_TEST_TMPDIR")
    if chosen is not None:
        return chosen or None
    shm = "/dev/shm"
    try:
        fs = os.statvfs(shm)
        with open("/proc/self/mounts", encoding="utf-8") as mounts:
            tmpfs = any(line.split()[1:3] == [shm, "tmpfs"] for line in mounts)
    except (OSError, IndexError):
        return None
    if not tmpfs or fs.f_flag & (os.ST_NOEXEC | os.ST_RDONLY):
        return None
    if fs.f_bavail * fs.f_frsize < 8 << 30 or not os.access(shm, os.W_OK | os.X_OK):
        return None
    return shm


if (_TMPDIR := _memory_backed_tmpdir()) is not None:
    os.environ["TMPDIR"] = _TMPDIR  # this process's tempfile and pytest's tmp_path, and children
    tempfile.tempdir = None

# The cyclic garbage collector: the suite allocates millions of objects that live for the
# whole run (modules, pydantic models, 3,000 test items) and the default thresholds
# (700, 10, 10) scan them again and again: ~8 % of a worker's CPU (measured: 2.1-2.2 s of
# 24.7-27.7 s over five modules). Fewer young collections and, after collection, the
# long-lived objects frozen out of every later scan (`pytest_collection_finish`) cut it to
# ~0.6-0.8 s. Only when cycles are freed changes, never what a test sees.
GC_THRESHOLDS = (50_000, 50, 50)
gc.set_threshold(*GC_THRESHOLDS)


# Session read ledgers go to the user's state directory: keep the suite's out of the
# real one (subprocesses inherit this), and remove it when the run ends.
os.environ["FILEWRIGHT_STATE_HOME"] = tempfile.mkdtemp(prefix="filewright-state-")
atexit.register(shutil.rmtree, os.environ["FILEWRIGHT_STATE_HOME"], True)


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove this process's state home also where atexit does not run (an xdist worker
    ends with os._exit)."""
    shutil.rmtree(os.environ["FILEWRIGHT_STATE_HOME"], ignore_errors=True)


# Property tests check results, never speed: a loaded machine (CI shares its cores) must
# not turn slow example generation into a failure.
# Derandomized, without an example database: the same examples on every run and machine,
# so a failure reproduces and a pass means the same thing everywhere
# (bench/stress and FILEWRIGHT_STRESS=1 explore more).
settings.register_profile(
    "filewright",
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("filewright")


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """In the main process, before xdist's workers start: what every worker would
    otherwise build for itself (tests/worker_prep.py)."""
    config = session.config
    if hasattr(config, "workerinput"):
        return
    tests = Path(__file__).parent
    if getattr(config.option, "numprocesses", 0):
        prepare_for_workers(config, tests, tests.parent / "src" / "filewright")
    else:
        hypothesis_tables()


def pytest_collection_finish(session: pytest.Session) -> None:
    """Collected: what exists now lives for the whole run; keep it out of later scans."""
    gc.collect()
    gc.freeze()


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """Workers for `-n auto` (pyproject's addopts): three for the suite or a folder of it,
    since many tests wait on subprocesses, fsync and sockets (measured on 2 cores, fresh
    clones: 2 workers 260 s, 3 workers 232 s, 4 workers 253 s); none for named files or
    tests (no start-up of workers for a quick run). $PYTEST_XDIST_AUTO_NUM_WORKERS decides
    when set."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS", "").isdigit():
        return int(os.environ["PYTEST_XDIST_AUTO_NUM_WORKERS"])
    named = [arg for arg in config.args if not arg.startswith("-")]
    if named and all("::" in arg or arg.endswith(".py") for arg in named):
        return 0
    return 3


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """`--dist worksteal` (pyproject's addopts) hands out whole modules, heaviest first
    (tests/xdist_plan.py); other `--dist` modes are xdist's own."""
    if config.getvalue("dist") != "worksteal":
        return None
    return PlannedWorkStealing(config, log)


@pytest.fixture
def snapshot() -> Callable[..., Snapshot]:
    """`snapshot(base, skip=(...))`: see `take_snapshot`."""
    return take_snapshot


@pytest.fixture(scope="session")
def filewright_exe() -> Path:
    """The installed `filewright` console script of the interpreter running the tests."""
    exe = Path(sys.executable).parent / "filewright"
    if not exe.exists():  # pragma: no cover - only on a broken environment
        pytest.fail(f"filewright command not found next to {sys.executable}")
    return exe
