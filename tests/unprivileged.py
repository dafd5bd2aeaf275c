"""Running a child process without root's privileges, wherever the checkout is.

The unprivileged user `nobody` can run this interpreter only when every directory above
the checkout, the virtual environment and the Python installation lets others in. A
clone in a `mktemp -d` directory (0700) or under root's home does not, and a child run
as `nobody` there cannot even start. Then the child runs as root without the
capabilities that bypass file permissions (`setpriv --bounding-set
-dac_override,-dac_read_search`): it still owns the checkout (so it can import the
project), and the kernel applies the owner's permission bits to everything else it
touches, as it would for any ordinary user. A test that needs the child to be someone
other than the files' owner skips, saying why.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

SETPRIV = shutil.which("setpriv")
RUNUSER = shutil.which("runuser")
NOBODY = 65534
AS_NOBODY = [
    "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all", "--",
]  # fmt: skip
NO_DAC = ["--bounding-set", "-dac_override,-dac_read_search", "--inh-caps", "-all", "--"]
PRIVATE_CHECKOUT = (
    "nobody cannot run this interpreter or import filewright from here (the checkout, its "
    ".venv or Python sits under a directory other users cannot enter, e.g. a 0700 "
    "`mktemp -d`), and this test needs a user other than the files' owner"
)


@functools.cache
def nobody_can_run_python() -> bool:
    """Whether `nobody` can start this interpreter and import filewright from here."""
    if os.geteuid() != 0 or SETPRIV is None:
        return False
    probe = [SETPRIV, *AS_NOBODY, sys.executable, "-c", "import filewright"]
    try:
        return subprocess.run(probe, capture_output=True, timeout=60, cwd="/").returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def unprivileged_prefix() -> tuple[list[str], bool] | None:
    """The command prefix that drops root's privileges, and whether it becomes `nobody`
    (True) or stays the owner of the files without the permission-bypassing capabilities
    (False). None when the tests do not run as root, or no tool can drop privileges."""
    if os.geteuid() != 0:
        return None
    if nobody_can_run_python():
        assert SETPRIV is not None
        return [SETPRIV, *AS_NOBODY], True
    if SETPRIV is not None:
        return [SETPRIV, *NO_DAC], False
    return None


@contextlib.contextmanager
def reachable_dir(prefix: str = "fw-unprivileged-") -> Iterator[Path]:
    """A fresh directory every user can enter (0755, directly in /tmp, unlike pytest's
    `tmp_path`, whose ancestors are private to root), removed afterwards."""
    base = Path(tempfile.mkdtemp(dir="/tmp", prefix=prefix))
    try:
        base.chmod(0o755)
        yield base
    finally:
        for path in [base, *base.rglob("*")]:
            with contextlib.suppress(OSError):
                if path.is_dir() and not path.is_symlink():
                    path.chmod(0o755)
        shutil.rmtree(base, ignore_errors=True)
