"""The fenced blocks of README.md and docs/*.md, by the marker comment above each one
(`<!-- block: NAME -->`, `<!-- loop: NAME -->`, `<!-- example: NAME -->`), for the tests
that run them (tests/test_doc_blocks.py checks that every copyable block has a marker and
that some test runs it)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
COPYABLE = {"bash", "sh", "shell", "console", "python", "py", "json", "toml"}
FENCE = re.compile(r"^```([\w-]*)\n(.*?)^```[ \t]*$", re.S | re.M)
MARKER = re.compile(r"<!-- ((?:block|loop|example): [^>]+?) -->\s*\Z")


@dataclass(frozen=True)
class Block:
    """One fenced block: its file (relative to the repository), first line, language,
    marker ("block: NAME", or None) and text."""

    file: str
    line: int
    lang: str
    marker: str | None
    text: str


def all_blocks() -> list[Block]:
    out = []
    for path in DOCS:
        source = path.read_text(encoding="utf-8")
        for m in FENCE.finditer(source):
            before = source[max(0, m.start() - 200) : m.start()]
            marked = MARKER.search(before)
            out.append(Block(
                str(path.relative_to(REPO)), source.count("\n", 0, m.start()) + 1, m.group(1),
                marked.group(1) if marked else None, m.group(2),
            ))  # fmt: skip
    return out


def block(file: str, marker: str) -> str:
    """The text of the block in `file` (e.g. "README.md", "docs/hosts.md") under
    `<!-- MARKER -->` (e.g. "block: install")."""
    found = [b for b in all_blocks() if b.file == file and b.marker == marker]
    assert len(found) == 1, f"{file} has {len(found)} blocks under <!-- {marker} -->"
    return found[0].text


def shown_after(file: str, marker: str) -> str:
    """The `text` block right after the block under `<!-- MARKER -->`: what the docs say
    it prints."""
    blocks = all_blocks()
    for i, b in enumerate(blocks):
        if b.file == file and b.marker == marker:
            following = blocks[i + 1]
            assert following.file == file and following.lang == "text", following
            return following.text
    raise AssertionError(f"{file} has no block under <!-- {marker} -->")
