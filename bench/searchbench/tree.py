"""Deterministic generator of a large source tree for the search benchmark.

The tree imitates a real repository: a ``src/`` of packages and modules in several
languages, ``docs/``, and, ignored by a top-level ``.gitignore``, a ``build/`` output
directory, ``node_modules/``, and ``*.log`` files scattered through the sources (with a
``!keep.log`` negation).  The same seed always yields byte-identical files.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from pathlib import Path

GITIGNORE = "build/\nnode_modules/\n*.log\n!keep.log\n*.tmp\n"

# A workspace policy as a real repository might have: 20 rules (secrets hidden, build
# outputs denied, release files to confirm, a `**` rule), none of which names anything
# in the generated tree, so every file is still searched.
POLICY_RULES = (
    ("secrets/", "hidden"),
    ("*.pem", "hidden"),
    ("*.key", "hidden"),
    (".env", "hidden"),
    (".env.*", "hidden"),
    ("id_rsa*", "hidden"),
    ("*.p12", "hidden"),
    ("credentials.json", "hidden"),
    ("/build/", "deny"),
    ("/dist/", "read"),
    ("*.min.js", "read"),
    ("/vendor/", "read"),
    ("docs/internal/", "hidden"),
    ("**/fixtures/**/*.bin", "deny"),
    ("*.sqlite", "deny"),
    ("/infra/prod/", "confirm"),
    ("/config/production.yml", "confirm"),
    ("/scripts/deploy.sh", "confirm"),
    ("CHANGELOG.md", "read"),
    ("/src/generated/", "read"),
)
POLICY_TOML = "".join(
    f'[[rules]]\npattern = "{pattern}"\naccess = "{access}"\n\n' for pattern, access in POLICY_RULES
)

_WORDS = tuple(
    [
        "alpha",
        "beta",
        "gamma",
        "delta",
        "value",
        "result",
        "index",
        "count",
        "buffer",
        "stream",
        "reader",
        "writer",
        "config",
        "option",
        "handle",
        "client",
        "server",
        "request",
        "response",
        "token",
        "cache",
        "item",
        "list",
        "map",
        "parse",
        "render",
        "update",
        "create",
        "delete",
        "fetch",
        "store",
        "load",
        "save",
        "open",
        "close",
        "start",
        "stop",
    ]
)

_EXT = (".py", ".ts", ".go", ".md", ".txt")


@dataclass(frozen=True)
class TreeStats:
    """Counts of what :func:`generate` wrote."""

    files: int
    ignored_files: int
    needle_files: int


def _line(rng: random.Random) -> str:
    n = rng.randint(2, 9)
    return "    " * rng.randint(0, 2) + " ".join(rng.choice(_WORDS) for _ in range(n))


def _content(rng: random.Random, needle: bool) -> bytes:
    lines = [_line(rng) for _ in range(rng.randint(12, 40))]
    if rng.random() < 0.05:
        lines.insert(rng.randrange(len(lines)), "    # TODO: revisit this")
    if needle:
        lines.insert(
            rng.randrange(len(lines)), f"def needle_handler_{rng.randint(0, 999)}(request):"
        )
    return ("\n".join(lines) + "\n").encode()


def _write(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def generate(
    root: Path, *, packages: int = 80, modules: int = 12, files: int = 100, seed: int = 7
) -> TreeStats:
    """Write the tree under ``root`` (which must be empty or absent) and return its counts.

    With the defaults: 96,000 source files, 2,000 docs, 4,000 build outputs, 2,000
    ``node_modules`` files and about 1,000 log files: a little over 105,000 files.
    """
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    _write(root / ".gitignore", GITIGNORE.encode())
    total = 1
    ignored = 0
    needles = 0
    for p in range(packages):
        for m in range(modules):
            d = root / "src" / f"pkg{p:03d}" / f"mod{m:02d}"
            d.mkdir(parents=True, exist_ok=True)
            for f in range(files):
                needle = rng.random() < 0.005
                needles += needle
                _write(d / f"file{f:03d}{_EXT[f % len(_EXT)]}", _content(rng, needle))
                total += 1
            if m % 2 == 0:
                _write(d / f"run{m}.log", b"needle_handler in a log\n" * 3)
                total += 1
                ignored += 1
            if m == 0:
                _write(d / "keep.log", b"kept log line\n")
                total += 1
    for sub, count, is_ignored in (
        ("docs", 2000, False),
        ("build", 4000, True),
        ("node_modules", 2000, True),
    ):
        for i in range(count):
            d = root / sub / f"part{i // 100:02d}"
            d.mkdir(parents=True, exist_ok=True)
            needle = rng.random() < 0.005
            needles += needle and not is_ignored
            _write(d / f"item{i:04d}{_EXT[i % len(_EXT)]}", _content(rng, needle))
            total += 1
            ignored += is_ignored
    return TreeStats(files=total, ignored_files=ignored, needle_files=needles)
