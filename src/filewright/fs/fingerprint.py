"""A large file's content identity without reading it whole: size, mtime and the sha256
of its first and last 64 KB.

Apart from `fs.bigfile` (streamed rewrites, appends: a writer thread) so that a read,
which records a large file's fingerprint in the ledger, loads neither that module nor
`threading` and `queue` (issue 32).
"""

from __future__ import annotations

import hashlib
import os

HEAD_BYTES = 64 << 10
FINGERPRINT_PREFIX = "fp1:"


def fingerprint(fd: int, st: os.stat_result) -> str:
    """size, mtime and the first and last 64 KB, hashed: cheap at any size. (Not the
    inode: undo restores a version with its mtime, and then its fingerprint.)"""
    hasher = hashlib.sha256(f"{st.st_size}:{st.st_mtime_ns}".encode())
    hasher.update(os.pread(fd, HEAD_BYTES, 0))
    hasher.update(os.pread(fd, HEAD_BYTES, max(0, st.st_size - HEAD_BYTES)))
    return FINGERPRINT_PREFIX + hasher.hexdigest()
