"""The read path's faster mechanisms agree with the ones they replace (issue 32).

Each test runs the replaced mechanism (kept here as the reference, or still in the tree
as the general path) and the new one on the same corpus of real-world inputs and
requires the same answer: line numbering, the small-file line split, the encoding and
content sniffing shortcuts, and path resolution by descriptors.
"""

from __future__ import annotations

import codecs
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from fsprobe import traced_calls
from hypothesis import given, settings
from hypothesis import strategies as st
from test_textread import read_slice

from filewright import Workspace
from filewright.core.result import OperationFailed
from filewright.fs import paths, textfile
from filewright.fs.textfile import TextFileError
from filewright.policy.rules import Access, Policy, Rule
from filewright.read import linesplit, media, textread
from filewright.read.linestream import Encoding, sniff_encoding
from filewright.read.textformat import numbered
from filewright.toolsets import mcpfs_format


def _numbered_reference(lines: list[str], start: int, width: int) -> str:
    """The numbering every toolset used before `numbered` (one f-string per line)."""
    return "\n".join(f"{start + i:>{width}}\t{line}" for i, line in enumerate(lines))


@pytest.mark.parametrize("start", [1, 2, 9, 10, 99, 998, 99_999, -40, -1])
def test_numbered_is_the_per_line_format(start: int) -> None:
    texts = ["", "x", "\t indented", "crlf\r", "中文", "a" * 300, " ... [truncated]"]
    for count in (0, 1, 2, 39, 40, 2048, 2049):
        lines = [texts[i % len(texts)] for i in range(count)]
        for width in (1, len(str(start + max(count, 1) - 1)), 6, 12):
            assert numbered(lines, start, width) == _numbered_reference(lines, start, width)
            # the cached column is reused, never changed by a caller
            assert numbered(lines, start, width) == _numbered_reference(lines, start, width)


# -- a small text's lines, split whole ---------------------------------------------------

_LINES = [f"line {i}: some text = {i * 7}" for i in range(60)]
_CORPUS: dict[str, bytes] = {
    "empty": b"",
    "one line, no break": b"just one line",
    "lf": "\n".join(_LINES).encode() + b"\n",
    "lf, no final break": "\n".join(_LINES).encode(),
    "crlf": "\r\n".join(_LINES).encode() + b"\r\n",
    "lone cr": "\r".join(_LINES).encode() + b"\r",
    "mixed breaks": b"a\nb\r\nc\rd\r\n\r\n\n\re",
    "blank lines": b"\n\n\n",
    "utf-8": "naïve café — 中文 😀\nzweite Zeile\n".encode() * 20,
    "utf-8 bom, crlf": codecs.BOM_UTF8 + "é\r\nü\r\n".encode() * 30,
    "utf-16 bom": codecs.BOM_UTF16_LE + "a\r\nb\nc".encode("utf-16-le"),
    "cp1252": "caf\xe9 na\xefve \u2014 \u20ac\r\n".encode("cp1252") * 30,
    "gbk": "中文的文本，这是一个测试。\n第二行也是中文。\n".encode("gbk") * 20,
    "shift_jis": "日本語のテキストです。\nこれはテストです。\n".encode("shift_jis") * 20,
    "invalid utf-8": b"ok\n\xff\xfe broken \xc3\n" + b"fine\n" * 20,
    "long lines": (b"x" * 2500 + b"\n") * 3 + b"short\n" + "é".encode() * 3000,
    "a very long line": b"y" * 20_000,
    "tabs and controls": b"\tindented\x1b[0m\n\x0cform feed\n",
}
_OPTIONS = [
    {},
    {"start": 2, "limit": 3},
    {"start": 21, "limit": 1000},
    {"start": 1, "limit": 1},
    {"start": 61},
    {"start": 62},
    {"start": 500},
    {"max_line_chars": 5},
    {"max_line_chars": 2000, "max_output_chars": 8 << 20},
    {"max_output_chars": 100},
    {"start": 3, "max_output_chars": 40, "max_line_chars": 10},
    {"count_total": False, "limit": 2},
    {"count_total": False},
]


@pytest.mark.parametrize("name", sorted(_CORPUS))
def test_split_whole_gives_what_the_walker_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """`textread._split_range` (a small text split whole) against the walker's path it
    stands in for (`MemoryLines`, taken when `_split_range` declines)."""
    path = tmp_path / "f.txt"
    path.write_bytes(_CORPUS[name])
    calls: list[object] = []
    split_range = textread._split_range

    def counted(*args: Any) -> Any:
        calls.append(args)
        return split_range(*args)

    for options in _OPTIONS:
        monkeypatch.setattr(textread, "_split_range", counted)
        new = read_slice(path, **options)
        monkeypatch.setattr(textread, "_split_range", lambda *_args: None)
        old = read_slice(path, **options)
        assert new == old, (name, options)
    bytewise = name not in ("utf-16 bom",)
    assert bool(calls) == bytewise  # the comparison above did compare two paths


# -- what a file is, by its first bytes ----------------------------------------------------


def _sniff_reference(head: bytes, name: str = "") -> media.Sniff:
    """`media.sniff` before it skipped the magic numbers for heads no magic starts with."""
    mime = media.image_type(head)
    if mime is not None:
        return media.Sniff("image", mime)
    if media._is_pdf(head):
        return media.Sniff("pdf", "application/pdf")
    if name.lower().endswith(".ipynb"):
        return media.Sniff("notebook", "application/x-ipynb+json")
    if head[4:8] == b"ftyp":
        return media.Sniff("binary", "video/mp4", "MP4/QuickTime media")
    for offset, magic, mime_type, description in media._BINARY_MAGIC:
        if head[offset : offset + len(magic)] == magic:
            if magic in (b"BZh", b"MZ", b"ID3") and b"\x00" not in head[:4096]:
                continue
            return media.Sniff("binary", mime_type, description)
    return media.Sniff("text")


def _heads() -> list[bytes]:
    heads = [b"", b"B", b"BM", b"G", b"R", b"\x89", b"\xff", b"text", b"MZ is a word"]
    for offset, magic, _mime, _what in media._BINARY_MAGIC:
        heads.append(b"\0" * offset + magic + b"\0" * 300)
        heads.append(b"a" * offset + magic + b" plain text after it\n" * 20)
    heads += [
        b"\x89PNG\r\n\x1a\n" + b"\0" * 40,
        b"\xff\xd8\xff\xe0" + b"\0" * 40,
        b"GIF89a" + b"\0" * 20,
        b"RIFF\0\0\0\0WEBP" + b"\0" * 20,
        b"BM" + b"\0" * 12 + b"\x28\0\0\0" + b"\0" * 40,
        b"%PDF-1.7\n",
        b"\x00\x01junk%PDF-1.4\n",
        b"a text that mentions %PDF-1.4 in passing\n",
        b"\0\0\0\x18ftypmp42" + b"\0" * 20,
        b"name" + b" " * 253 + b"ustar\x0000" + b"\0" * 200,
        "naïve text\n".encode() * 50,
        codecs.BOM_UTF8 + b"bom text\n",
        codecs.BOM_UTF16_LE + "x".encode("utf-16-le"),
    ]
    return heads


@pytest.mark.parametrize("name", ["f.txt", "notes.ipynb", "IMAGE.PNG"])
def test_sniff_skips_magic_numbers_only_where_none_can_match(name: str) -> None:
    for head in _heads():
        assert media.sniff(head, name) == _sniff_reference(head, name), head[:20]


def _encoding_reference(sample: bytes, complete: bool) -> Encoding:
    """`linestream.sniff_encoding`'s answer for a pure-ASCII sample before its shortcut:
    no BOM, the binary check, then strict UTF-8."""
    if textfile.detect_bom(sample) is not None:
        raise AssertionError("an ASCII sample cannot start with a BOM")
    if textfile.looks_binary(sample):
        raise TextFileError("binary", "file appears to be binary")
    codecs.getincrementaldecoder("utf-8")().decode(sample, final=complete)
    return Encoding("utf-8")


@pytest.mark.parametrize(
    "sample",
    [
        b"",
        b"plain ascii\n",
        b"\r\n".join([b"crlf"] * 50),
        b"\x00\x00\xfe\xff"[:2] + b"ab",  # the start of a UTF-32-BE BOM, not all of it
        b"\x00binary\x00" * 10,
        b"\x01\x02\x03\x04 mostly controls \x05\x06\x07\x08",
        b"\x1b[31mcolour\x1b[0m\n" * 5,
        bytes(range(128)),
    ],
)
def test_an_ascii_sample_is_utf8_unless_binary(sample: bytes) -> None:
    assert sample.isascii()
    for complete in (True, False):
        try:
            expected: Encoding | str = _encoding_reference(sample, complete)
        except TextFileError as exc:
            expected = exc.code
        try:
            got: Encoding | str = sniff_encoding(sample, complete=complete)
        except TextFileError as exc:
            got = exc.code
        assert got == expected


# -- resolution from the root's held descriptor ------------------------------------------------


def _workspace_with_outside(tmp_path: Path) -> tuple[Path, Path]:
    root, outside = tmp_path / "ws", tmp_path / "outside"
    (root / "sub").mkdir(parents=True)
    outside.mkdir()
    (root / "f.txt").write_text("inside\n")
    (root / "sub" / "f.txt").write_text("inside too\n")
    (outside / "f.txt").write_text("SECRET\n")
    (outside / "sub").mkdir()
    (outside / "sub" / "f.txt").write_text("SECRET\n")
    return root, outside


@pytest.mark.parametrize(
    "swap", ["root moved, link to it", "root for a link out", "sub for a link out"]
)
def test_a_swap_after_the_root_is_held_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, swap: str
) -> None:
    """Reads hold the root's descriptor and resolve from it; a root (or a directory in it)
    swapped for a symlink afterwards is refused as before, its target never read."""
    root, outside = _workspace_with_outside(tmp_path)
    tools = Workspace(root).toolset("default")
    walked: list[object] = []
    walk = paths._walk_held

    def counted(roots: list[tuple[str, str]], candidate: str) -> object:
        found = walk(roots, candidate)
        walked.append(found)
        return found

    monkeypatch.setattr(paths, "_walk_held", counted)
    for name in ("f.txt", "sub/f.txt", "f.txt"):
        assert tools.call("read", {"path": name}).ok
    assert walked[-1] is not None  # the last read was resolved from the held root
    if swap == "root moved, link to it":
        root.rename(tmp_path / "moved")
        root.symlink_to(tmp_path / "moved")
    elif swap == "root for a link out":
        root.rename(tmp_path / "moved")
        root.symlink_to(outside)
    else:
        (root / "sub").rename(tmp_path / "moved")
        (root / "sub").symlink_to(outside / "sub")
    for name in ("f.txt", "sub/f.txt", str(root / "sub" / "f.txt")):
        result = tools.call("read", {"path": name})
        assert "SECRET" not in result.text
        if swap != "sub for a link out" or "sub" in name:
            assert not result.ok
            assert "outside the workspace" in result.text, result.text


def test_links_inside_the_root_still_resolve_to_their_targets(tmp_path: Path) -> None:
    root, outside = _workspace_with_outside(tmp_path)
    (root / "link.txt").symlink_to("sub/f.txt")
    (root / "out.txt").symlink_to(outside / "f.txt")
    tools = Workspace(root).toolset("default")
    assert tools.call("read", {"path": "f.txt"}).ok  # (the root is held from here on)
    got = tools.call("read", {"path": "link.txt"})
    assert got.ok and "inside too" in got.text
    assert got.data["path"] == str(root / "link.txt")
    refused = tools.call("read", {"path": "out.txt"})
    assert not refused.ok and "SECRET" not in refused.text


# -- the policy's remembered answers ---------------------------------------------------------


def test_remembered_answers_follow_the_memory_switch_and_the_default() -> None:
    """`Policy.access` remembers its answers by the names asked, the entry type, the memory
    switch and the default: asked again after either changes, it answers as `decide` does."""
    rules = [
        Rule("MEMORY.md", Access.HIDDEN, memory=False),
        Rule("notes/", Access.READ),
        Rule("*.log", Access.DENY),
    ]
    policy = Policy(rules)
    names = [("MEMORY.md",), ("notes",), ("notes/a.txt",), ("a.log",), ("src/x.py",),
             ("link.txt", "MEMORY.md"), (".git/config",), ("",), (".",)]  # fmt: skip
    for _ in range(Policy.FAST_AFTER + 1):  # past the first calls, judged one by one
        policy.access("warm-up", is_dir=False)
    for memory in (True, False, True):
        for default in (Access.WRITE, Access.READ):
            policy.memory, policy.default = memory, default
            for rels in names:
                for is_dir in (False, True):
                    want = policy.decide(*rels, is_dir=is_dir)[0]
                    assert policy.access(*rels, is_dir=is_dir) == want, (rels, memory, default)
                    assert policy.access(*rels, is_dir=is_dir) == want  # remembered


def test_a_small_file_read_whole_stops_once_it_has_grown(tmp_path: Path) -> None:
    """`readers` reads a file whole before sniffing it only while it is small: one that has
    grown since its fstat (here: fstat said 10 bytes, it holds 100 000) is read no further
    than the limit, and read as a large file is."""
    path = tmp_path / "f.txt"
    path.write_bytes(b"0123456789\n" * 9091)
    fd = os.open(path, os.O_RDONLY)
    try:
        assert textread.read_upto(fd, 10, 64 << 10) is None
        assert textread.read_upto(fd, 10, None) == path.read_bytes()
        assert textread.read_upto(fd, 10, 200_000) == path.read_bytes()
        assert textread.read_all(fd, 10) == path.read_bytes()
    finally:
        os.close(fd)


# -- line endings of a decoded text ------------------------------------------------------------

_EOL_RE = re.compile(r"\r\n|\r|\n")


def _split_eols_reference(text: str) -> tuple[str, tuple[str, ...]]:
    """`textfile.split_eols` before texts without a CR skipped the regular expressions."""
    eols = _EOL_RE.findall(text)
    normalised = _EOL_RE.sub("\n", text) if eols else text
    if not normalised.endswith("\n") or not normalised:
        eols.append("")
    return normalised, tuple(eols)


def _with_eols_reference(text: str, eols: tuple[str, ...]) -> str:
    """`mcpfs_format.with_eols` before it counted instead of splitting first."""
    pieces = text.split("\n")
    if len(eols) < len(pieces) - 1 or all(e in ("\n", "") for e in eols):
        return text
    return "".join(
        piece + ((eols[i] or "\n") if i < len(pieces) - 1 else "") for i, piece in enumerate(pieces)
    )


_TEXTS = st.lists(st.sampled_from(["a", "é", " ", "\n", "\r", "\r\n", "\n\n", "line"])).map("".join)


@settings(max_examples=300, deadline=None)
@given(text=_TEXTS)
def test_line_endings_split_and_restored_as_before(text: str) -> None:
    got = textfile.split_eols(text)
    assert got == _split_eols_reference(text)
    normalised, eols = got
    assert mcpfs_format.with_eols(normalised, eols) == _with_eols_reference(normalised, eols)
    assert mcpfs_format.with_eols(normalised, eols[:-1]) == _with_eols_reference(
        normalised, eols[:-1]
    )
    decoded = textfile.decode(text.encode("utf-8"))
    assert decoded.newline == textfile._dominant(eols)
    assert (decoded.text, decoded.eols) == got


@pytest.mark.parametrize("name", sorted(_CORPUS))
def test_corpus_line_endings_as_before(name: str) -> None:
    try:
        decoded = textfile.decode(_CORPUS[name])
    except TextFileError:
        return  # (binary or undecodable: refused, as before)
    text = decoded.raw[len(decoded.bom) :].decode(decoded.encoding)
    assert (decoded.text, decoded.eols) == _split_eols_reference(text)
    assert decoded.newline == textfile._dominant(decoded.eols)
    assert mcpfs_format.with_eols(decoded.text, decoded.eols) == text


# -- opens and stats per read ------------------------------------------------------------------

READS = r"""
import os, sys
from filewright import Workspace
tools = Workspace(sys.argv[1]).toolset("default")
for _ in range(3):  # (the first read holds the root's descriptor)
    assert tools.call("read", {"path": "sub/f.txt"}).ok
os.write(1, b"")  # (the mark strace looks for)
assert tools.call("read", {"path": "sub/f.txt"}).ok
os.getppid()  # (the end mark)
"""


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed")
def test_a_read_makes_at_most_4_opens_and_stats(tmp_path: Path) -> None:
    """Once the root is held, a read of a file one directory down stats each name below
    the root once from the root's descriptor and opens the directory and the file: no
    lstat of every component from `/` (8 opens and stats at 15a47d7, for a file in the
    root itself)."""
    root, _outside = _workspace_with_outside(tmp_path)
    traced = "openat,open,newfstatat,fstat,statx,stat,lstat,readlink"
    calls = traced_calls(tmp_path / "strace.txt", traced, READS, str(root))
    opens_and_stats = [c for c in calls if not c.startswith("readlink")]
    # sub, sub/f.txt (stats from the root's descriptor); sub, f.txt (opens); f.txt (fstat)
    assert 0 < len(opens_and_stats) <= 5, calls
    assert not any(c.startswith(("lstat", "stat(")) for c in calls), calls
    assert sum(c.startswith("readlink") for c in calls) <= 1, calls  # the root, once a call


@pytest.mark.parametrize("name", sorted(_CORPUS))
def test_a_utf8_text_split_as_text_gives_its_lines_split_as_bytes(name: str) -> None:
    """`linesplit.utf8_range` (decoded whole, split at LF) against `bytes_range` (split as
    bytes, decoded line by line), wherever it answers; it answers for the UTF-8 texts with
    LF breaks only and lines within the limit."""
    data = _CORPUS[name]
    base = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
    utf8 = Encoding("utf-8", data[:base])
    answered = []
    for first, limit, max_line_chars in [(0, None, 2000), (0, 3, 2000), (5, 10, 2000),
                                         (0, None, 20), (59, None, 2000)]:  # fmt: skip
        try:
            text = linesplit.utf8_range(data, base, first, limit, max_line_chars, "f.txt")
        except OperationFailed as exc:
            with pytest.raises(OperationFailed) as info:
                linesplit.bytes_range(data, base, utf8, True, first, limit, max_line_chars, "f")
            assert info.value.failure.detail == exc.failure.detail
            continue
        if text is None:
            continue
        answered.append(first)
        got = linesplit.bytes_range(data, base, utf8, True, first, limit, max_line_chars, "f")
        assert text[:4] == got[:4], (name, first, limit, max_line_chars)
        assert text[4] is not None and text[4] >= sum(map(len, text[0]))
    plain_utf8 = name in ("empty", "one line, no break", "lf", "lf, no final break", "utf-8",
                          "blank lines", "tabs and controls")  # fmt: skip
    assert bool(answered) == plain_utf8, name
