"""Real files this project did not write: the running interpreter's stdlib and site-packages."""

from __future__ import annotations

import random
import site
import sysconfig
from dataclasses import dataclass
from pathlib import Path

#: File types sampled, in order; ``.py`` gets the largest share.
EXTENSIONS: tuple[str, ...] = (
    ".py",
    ".pyi",
    ".rst",
    ".txt",
    ".md",
    ".json",
    ".toml",
    ".cfg",
    ".ini",
    ".html",
    ".css",
    ".js",
    ".xml",
    ".c",
    ".h",
    ".csv",
)
MIN_BYTES, MAX_BYTES = 400, 150_000


@dataclass(frozen=True)
class SourceFile:
    """One corpus file, text newline-normalised as the engine would hand it over."""

    path: str
    ext: str
    text: str


def roots() -> list[Path]:
    """Directories searched: stdlib first, then site-packages (deduplicated)."""
    out: list[Path] = []
    cands = [sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["purelib"]]
    cands += site.getsitepackages()
    for c in cands:
        p = Path(c).resolve()
        if p.is_dir() and p not in out:
            out.append(p)
    return out


def _candidates() -> dict[str, list[Path]]:
    by_ext: dict[str, list[Path]] = {e: [] for e in EXTENSIONS}
    seen: set[Path] = set()
    for root in roots():
        for p in root.rglob("*"):
            ext = p.suffix.lower()
            if ext not in by_ext or "__pycache__" in p.parts:
                continue
            try:
                real = p.resolve()
                if real in seen or not p.is_file():
                    continue
                size = p.stat().st_size
            except OSError:
                continue
            if MIN_BYTES <= size <= MAX_BYTES:
                seen.add(real)
                by_ext[ext].append(p)
    for v in by_ext.values():
        v.sort()
    return by_ext


def load(seed: int, n_files: int) -> list[SourceFile]:
    """Sample about ``n_files`` decodable text files, deterministically for ``seed``.

    Half the files are ``.py``; the rest are spread over the other types found.
    """
    rng = random.Random(seed)
    by_ext = _candidates()
    present = [e for e in EXTENSIONS if by_ext[e]]
    quota = {e: 0 for e in present}
    quota[".py"] = n_files // 2 if ".py" in quota else 0
    others = [e for e in present if e != ".py"]
    for i in range(n_files - sum(quota.values())):
        if others:
            quota[others[i % len(others)]] += 1
    out: list[SourceFile] = []
    for ext in present:
        pool = list(by_ext[ext])
        rng.shuffle(pool)
        got = 0
        for p in pool:
            if got >= quota[ext]:
                break
            try:
                text = p.read_bytes().decode("utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            if "\x00" in text:
                continue
            text = text.replace("\r\n", "\n").replace("\r", "\n")
            if text.count("\n") < 8:
                continue
            out.append(SourceFile(str(p), ext, text))
            got += 1
    return out
