"""Small text files are split in memory (`memorylines.MemoryLines`); these tests hold that
path to the streaming walker it replaces: the same slices, the same failures, on real files
with random content, and the same answers from the walkers themselves."""

from __future__ import annotations

import codecs
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from filewright.core.result import OperationFailed
from filewright.read import memorylines, textread
from filewright.read.linestream import Encoding, LineWalker
from filewright.read.memorylines import MemoryLines

# Text, line breaks of every kind (and pairs that are easy to get wrong), runs long enough
# to be cut or walked instead of split, and bytes that are not valid UTF-8 or cp1252.
_TEXT = st.sampled_from(
    ["a", "word ", "é", "日本", "\U0001f600", "\t", "\n", "\r\n", "\r", "\r\r\n", "\n\r", "\r\n\n"]
)
_RUN = st.integers(20, 3000).map(lambda n: "x" * n)
_BYTES = st.sampled_from([b"\xff", b"\xc3", b"\x80", b"\xe6\x97", b"\xe9", b"\x81", b"\r", b"\n"])
_MANY = st.integers(1, 200).map(lambda n: "l\n" * n)  # past the first bulk step
_PIECES = st.lists(st.one_of(_TEXT, _TEXT, _TEXT, _RUN, _BYTES, _MANY), max_size=60)
_CODECS = ["utf-8", "utf-8", "utf-8-sig", "cp1252", "utf-16-le", "ascii"]
# Split windows and long-line limits: tiny ones reach every boundary, large ones split all.
_WINDOWS = st.integers(1, 64) | st.just(1 << 20)


def _encode(pieces: list[str | bytes], name: str) -> bytes:
    """The pieces as a file in `name`'s encoding ("ascii": UTF-8, read as ASCII)."""
    if name == "utf-16-le":  # whole characters only, or nothing lines up
        text = "".join(p for p in pieces if isinstance(p, str))
        return codecs.BOM_UTF16_LE + text.encode(name)
    codec = {"utf-8-sig": "utf-8", "ascii": "utf-8"}.get(name, name)
    body = b"".join(
        p if isinstance(p, bytes) else p.encode(codec, errors="replace") for p in pieces
    )
    return codecs.BOM_UTF8 + body if name == "utf-8-sig" else body


def read_slice(path: Path, **options: Any) -> tuple[str, dict[str, Any]]:
    """What read_lines_fd gives for `path`: ("slice", fields) or ("failed", failure)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        out = textread.read_lines_fd(fd, os.fstat(fd).st_size, path="f.txt", **options)
        return "slice", out.as_dict()
    except OperationFailed as exc:
        return "failed", exc.failure.as_dict()
    finally:
        os.close(fd)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    pieces=_PIECES,
    final_break=st.booleans(),
    codec=st.sampled_from(_CODECS),
    start=st.one_of(st.just(1), st.integers(1, 4), st.integers(1, 40)),
    limit=st.none() | st.integers(1, 50),
    tail=st.none() | st.integers(1, 50),
    max_line_chars=st.sampled_from([1, 3, 10, 80, 2000]),
    max_output_chars=st.none() | st.integers(1, 60) | st.integers(1, 3000),
    count_total=st.sampled_from([None, True, False]),
    window=_WINDOWS,
    long_line=_WINDOWS,
)
def test_split_path_gives_what_the_streaming_path_gives(
    tmp_path: Path,
    pieces: list[str | bytes],
    final_break: bool,
    codec: str,
    start: int,
    limit: int | None,
    tail: int | None,
    max_line_chars: int,
    max_output_chars: int | None,
    count_total: bool | None,
    window: int,
    long_line: int,
) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(_encode([*pieces, "\n"] if final_break else pieces, codec))
    options = dict(
        start=start,
        limit=limit,
        tail=tail,
        max_line_chars=max_line_chars,
        max_output_chars=max_output_chars,
        count_total=count_total,
    )
    split, streamed = _both(path, window, long_line, ascii=codec == "ascii", **options)
    assert split == streamed


def _both(
    path: Path, window: int, long_line: int, *, ascii: bool = False, **options: Any
) -> tuple[Any, Any]:
    """What the split path and the streaming path give for `path`."""
    with pytest.MonkeyPatch.context() as patch:  # per example: a fixture would outlive it
        patch.setattr(memorylines, "SPLIT_WINDOW", window)  # tiny windows: every boundary
        patch.setattr(memorylines, "LONG_LINE", min(long_line, window))
        if ascii:  # one line can fail to decode while the others do not
            patch.setattr(textread, "sniff_encoding", lambda data, complete, **_: Encoding("ascii"))
        split = read_slice(path, **options)
        patch.setattr(textread, "SPLIT_LINES", False)
        return split, read_slice(path, **options)


@pytest.mark.parametrize(
    ("data", "ascii", "options"),
    [
        # the budget runs out on a line that was cut: the cut is reported, the line not shown
        (b"ab\n" + b"x" * 50 + b"\nc\n", False, {"max_line_chars": 10, "max_output_chars": 20}),
        # ... and later, after the first bulk step
        (b"l\n" * 200 + b"x" * 50 + b"\n", False, {"max_line_chars": 5, "max_output_chars": 1200}),
        (b"l\n" * 300, False, {"max_output_chars": 500}),
        (b"x" * 90 + b"\n", False, {"max_line_chars": 10, "max_output_chars": 5}),
        # lines that do not decode: lossy when shown or looked at, not when beyond
        (b"ok\n\xe9\nok\n", True, {}),
        (b"ok\nok\n\xe9\n", True, {"tail": 2}),
        (b"ok\nok\n\xe9\n", True, {"tail": 1, "max_output_chars": 3}),
        (b"aaaa\nbbbb\n\xe9\xe9\n", True, {"max_output_chars": 8}),
        (b"aaaa\n\xe9\xe9\n", True, {"max_output_chars": 8}),
        (b"aaaa\n\xe9" + b"x" * 40 + b"\n", True, {"max_line_chars": 3}),
    ],
)
def test_edge_cases_agree(
    tmp_path: Path, data: bytes, ascii: bool, options: dict[str, Any]
) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(data)
    split, streamed = _both(path, 1 << 20, 1 << 20, ascii=ascii, **options)
    assert split == streamed
    assert split[0] == "slice"


def test_small_byte_scanned_files_take_the_split_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without this, the comparison above could be comparing the streaming path to itself."""
    cases = {"utf-8": b"a\nb\r\nc\rd", "utf-16": codecs.BOM_UTF16_LE + "a\nb".encode("utf-16-le")}
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
    kinds: dict[str, list[type]] = {}
    for split in (True, False):
        monkeypatch.setattr(textread, "SPLIT_LINES", split)
        for name in cases:
            with (tmp_path / name).open("rb") as f:
                src = textread._Source(f.fileno(), len(cases[name]), None)
                kinds.setdefault(name, []).append(type(src.walker()))
    assert kinds == {"utf-8": [MemoryLines, LineWalker], "utf-16": [LineWalker, LineWalker]}


# -- the walkers themselves ------------------------------------------------------------

_BREAKY = st.lists(
    st.sampled_from([b"a", b"bc", b"\xc3\xa9", b"\n", b"\r\n", b"\r", b"\ra", b"x" * 40]),
    min_size=5,
    max_size=80,
).map(b"".join)
_NEXT = st.tuples(st.just("next"), st.integers(1, 50))  # keep: 1 or more
_TAKE = st.tuples(
    st.just("take"), st.integers(0, 8) | st.integers(0, 8) | st.none(), st.integers(1, 50)
)
_SKIP = st.tuples(st.just("skip"), st.integers(0, 6) | st.integers(0, 6) | st.just(float("inf")))
_OPS = st.lists(
    st.one_of(
        _NEXT,
        _NEXT,
        _TAKE,
        _TAKE,
        _SKIP,
        st.tuples(st.just("has_more")),
        st.tuples(st.just("lines_left")),
    ),
    min_size=1,
    max_size=12,
)


def _take_by_lines(walker: LineWalker, n: int | None, keep: int) -> tuple[list[Any], list[int]]:
    lines: list[Any] = []
    longer: list[int] = []
    while n is None or len(lines) < n:
        got = walker.next_line(keep)
        if got is None:
            break
        if got[1]:
            longer.append(len(lines))
        lines.append(got[0])
    return lines, longer


def _apply(walker: LineWalker, op: tuple[Any, ...]) -> Any:
    name, *args = op
    if name == "skip":
        return walker.skip(args[0])
    if name == "next":
        return walker.next_line(args[0])
    if name == "take":
        if isinstance(walker, MemoryLines):
            return walker.take(args[0], args[1])
        return _take_by_lines(walker, args[0], args[1])
    if name == "has_more":
        return walker.has_more()
    return walker.lines_left()


@settings(max_examples=300, deadline=None)
@given(
    data=_BREAKY,
    start=st.integers(0, 1000),
    ops=_OPS,
    window=_WINDOWS,
    long_line=_WINDOWS,
)
def test_memory_lines_answers_as_a_line_walker(
    data: bytes, start: int, ops: list[tuple[Any, ...]], window: int, long_line: int
) -> None:
    start %= len(data) + 1
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(memorylines, "SPLIT_WINDOW", window)
        patch.setattr(memorylines, "LONG_LINE", min(long_line, window))
        fast = MemoryLines(data, start)
        body = data[start:]
        slow = LineWalker(iter([(body, len(body))] if body else []), text=False)
        for op in ops:
            assert _apply(fast, op) == _apply(slow, op), op
            assert (fast.at_line_start, fast.breaks) == (slow.at_line_start, slow.breaks), op
        assert fast.lines_left() == slow.lines_left()


@pytest.mark.parametrize(
    ("data", "lines"),
    [
        (b"", []),
        (b"a", [(b"a", "")]),
        (b"a\nb\n", [(b"a", "\n"), (b"b", "\n")]),
        (b"a\r\nb\r\n\r\n", [(b"a", "\r\n"), (b"b", "\r\n"), (b"", "\r\n")]),
        (b"a\r\nb\nc", [(b"a", "\r\n"), (b"b", "\n"), (b"c", "")]),
        (b"a\rb\r\r\nc\r", [(b"a", "\r"), (b"b", "\r"), (b"", "\r\n"), (b"c", "\r")]),
        (b"\n\r", [(b"", "\n"), (b"", "\r")]),
        (b"a\rb\rc\n", [(b"a", "\r"), (b"b", "\r"), (b"c", "\n")]),
    ],
)
def test_line_endings_of_each_kind(data: bytes, lines: list[tuple[bytes, str]]) -> None:
    walker = MemoryLines(data)
    got = []
    while (line := walker.next_line(100)) is not None:
        got.append((line[0], line[2]))
    assert got == lines
    raws = [raw for raw, _eol in lines]
    assert MemoryLines(data).take(None, 100) == (raws, [])
    assert MemoryLines(data).lines_left() == len(lines)
    one_by_one = MemoryLines(data)  # a batch of one line leaves what follows it
    assert [one_by_one.take(1, 100)[0] for _ in lines] == [[raw] for raw in raws]
    assert one_by_one.take(1, 100) == ([], [])
    first = MemoryLines(data)
    first.take(1, 100)
    assert first.lines_left() == max(len(lines) - 1, 0)


@pytest.mark.parametrize("window", [1, 2, 3, 5, 8, 64])
@pytest.mark.parametrize("long_line", [1, 4, 64])
def test_take_across_batches_and_walked_lines(window: int, long_line: int) -> None:
    """Lines from several batches, and long ones walked between them, keep their places."""
    data = b"a\n" + b"x" * 50 + b"\r\nb\rc\n" + b"y" * 30 + b"\n\nd" + b"z" * 20
    body = LineWalker(iter([(data, len(data))]), text=False)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(memorylines, "SPLIT_WINDOW", window)
        patch.setattr(memorylines, "LONG_LINE", min(long_line, window))
        assert MemoryLines(data).take(None, 10) == _take_by_lines(body, None, 10)
        walker = MemoryLines(data)
        assert [walker.take(2, 10) for _ in range(4)] == [
            ([b"a", b"x" * 10], [1]),
            ([b"b", b"c"], []),
            ([b"y" * 10, b""], [0]),
            ([b"d" + b"z" * 9], [0]),
        ]


@pytest.mark.parametrize("split", [True, False])
def test_a_cut_line_the_budget_stops_at_is_not_listed_as_cut(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, split: bool
) -> None:
    """`cut_lines` names only lines shown: a long line the budget stopped before is not."""
    monkeypatch.setattr(textread, "SPLIT_LINES", split)
    path = tmp_path / "f.txt"
    path.write_bytes(b"short\n" + b"x" * 500 + b"\nend\n")
    fd = os.open(path, os.O_RDONLY)
    try:
        got = textread.read_lines_fd(
            fd, os.fstat(fd).st_size, 1, None, max_line_chars=100, max_output_chars=50
        )
    finally:
        os.close(fd)
    assert got.lines == ["short"]
    assert got.cut_lines == []
    assert got.truncated and got.truncated_by == "budget" and got.next_offset == 2
