"""Changing files of any size: the streamed change path, appends in place, reverse-delta
history with a size cap, the one change limit, and the claude seed's large-file rules.

Files are real and in temp dirs; the workspace's `stream_above_bytes` is set low so that
small files take the streamed path (the same code a gigabyte file takes), and a few
files are made larger than the 1 MB chunk so that matches straddle a real chunk boundary.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from forkserver import shared
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_stream_parity import both_ways

from filewright import ConfirmRequest, Result, Workspace
from filewright.edit.edits import insert_at_line
from filewright.fs import bigfile
from filewright.fs.chunked import (
    Delta,
    Format,
    LiteralReplace,
    Occurs,
    ReplaceAll,
    Reverse,
    StreamError,
    first_match_context,
    self_overlapping,
)
from filewright.fs.chunklines import InsertAfterLine, RegexReplace

UTF8 = Format("utf-8", b"", b"\n")


def _run(transform, data: bytes, size: int) -> bytes:
    out = []
    for i in range(0, len(data), size):
        out += [bytes(p) for p in transform.feed(data[i : i + size])]
    out += [bytes(p) for p in transform.finish()]
    return b"".join(out)


def _ws(root: Path, **options) -> Workspace:
    options.setdefault("stream_above_bytes", 16)
    return Workspace(root, **options)


def _lines(n: int, newline: bytes = b"\n") -> bytes:
    return b"".join(b"line %d alpha beta%s" % (i, newline) for i in range(n))


# -- the pure transforms, against the in-memory operations ------------------------------

texts = st.binary(max_size=80).map(lambda b: bytes(b"ab\n "[x % 4] for x in b))
needles = st.binary(min_size=1, max_size=4).map(lambda b: bytes(b"ab\n "[x % 4] for x in b))


@settings(max_examples=400, deadline=None)
@given(texts, needles, st.binary(max_size=4), st.integers(1, 9), st.sampled_from([None, 1, 2]))
def test_literal_replace_in_chunks_is_bytes_replace(data, old, new, size, limit) -> None:
    try:
        got = _run(LiteralReplace(old, new, limit=limit), data, size)
    except StreamError as exc:
        assert exc.code == "no_match" and old not in data
        return
    assert got == data.replace(old, new, -1 if limit is None else limit)


@settings(max_examples=300, deadline=None)
@given(texts, needles, st.binary(max_size=4), st.integers(1, 9), st.integers(1, 9))
def test_reverse_delta_gives_back_the_old_bytes(data, old, new, size, back_size) -> None:
    transform = LiteralReplace(old, new)
    try:
        got = _run(transform, data, size)
    except StreamError:
        return
    delta = Delta.from_bytes(transform.delta.to_bytes())
    assert delta.size_before == len(data) and delta.size_after == len(got)
    assert _run(Reverse(delta), got, back_size) == data


@settings(max_examples=400, deadline=None)
@given(texts, needles, st.binary(max_size=4), st.integers(1, 9), st.integers(1, 9))
def test_replace_all_by_regions_and_its_undo(data, old, new, size, back_size) -> None:
    if self_overlapping(old):
        return
    new = bytes(b"ab\nx"[x % 4] for x in new)  # often re-creates or contains `old`
    transform = ReplaceAll(old, new)
    try:
        got = _run(transform, data, size)
    except StreamError as exc:
        assert exc.code == "no_match" and old not in data
        return
    assert got == data.replace(old, new)
    delta = Delta.from_bytes(transform.delta.to_bytes())
    assert _run(Reverse(delta), got, back_size) == data


@settings(max_examples=300, deadline=None)
@given(texts, needles, st.integers(1, 9))
def test_unique_replace_counts_matches_across_chunks(data, old, size) -> None:
    # every place old occurs counts, overlapping ones too (b"bb" twice in b"bbb"), as the
    # in-memory edit counts them (docs/editing.md, "Overlapping places")
    places = sum(data.startswith(old, i) for i in range(len(data)))
    try:
        got = _run(LiteralReplace(old, b"Z", unique=True), data, size)
    except StreamError as exc:
        expected = "ambiguous" if places > 1 else "no_match"
        assert exc.code == expected
        return
    assert places == 1 and got == data.replace(old, b"Z")


@settings(max_examples=300, deadline=None)
@given(
    texts,
    st.sampled_from([r"a+", r"^b", r"b$", r"(a)(b)?", r"\n", r"\bb", r"(?<=a)b", r"a*"]),
    st.integers(1, 9),
    st.sampled_from([None, 1, 3]),
)
def test_regex_replace_in_windows_is_re_sub(data, pattern, size, limit) -> None:
    rx = re.compile(pattern, re.MULTILINE)
    text = data.decode()
    template = r"<\1>" if pattern.startswith("(a") else "X"
    try:
        transform = RegexReplace(rx, template, UTF8, limit=limit, margin=8)
        got = _run(transform, data, size)
    except StreamError as exc:
        longest = max((len(m.group()) for m in rx.finditer(text)), default=-1)
        assert (exc.code, longest) in (("no_match", -1), ("match_too_long", longest))
        assert exc.code == "no_match" or longest > 8
        return
    assert got == rx.sub(template, text, count=limit or 0).encode()
    assert _run(Reverse(transform.delta), got, 5) == data


@settings(max_examples=300, deadline=None)
@given(texts, st.integers(0, 8), st.integers(1, 9))
def test_insert_after_line_is_insert_at_line(data, line, size) -> None:
    expected = insert_at_line(data.decode(), line, "NEW")
    try:
        got = _run(InsertAfterLine(line, b"NEW\n", b"\n"), data, size)
    except StreamError as exc:
        assert exc.code == "line_out_of_range" == getattr(expected, "code", None)
        return
    assert got == expected.text.encode()


@pytest.mark.parametrize("unique", [True, False])
def test_a_replace_told_where_the_first_match_is_writes_the_same(unique: bool) -> None:
    """`clear` (the first match's offset, found by the read before the pass) lets the
    pass skip the search before it: same bytes, count, delta and verdicts, for every
    offset up to the first match and every chunk size."""
    data = b"ab\nxNEEDLE\nNEEDLExNEEDLE" if not unique else b"ab\nab\nxNEEDLE\nab"
    first = data.find(b"NEEDLE")
    for size in (1, 2, 3, 5, 7, 64):
        for clear in range(first + 1):
            got, want = (
                LiteralReplace(b"NEEDLE", b"N", limit=None if unique else 1, unique=unique, clear=c)
                for c in (clear, 0)
            )
            assert _run(got, data, size) == _run(want, data, size)
            assert (got.count, list(got.delta.gaps)) == (want.count, list(want.delta.gaps))


# -- the engine's streamed path on real files ------------------------------------------


def test_a_match_across_a_real_chunk_boundary_is_found(tmp_path: Path) -> None:
    cut = bigfile.CHUNK_BYTES
    data = b"x" * (cut - 3) + b"NEEDLE" + b"y" * 1000
    (tmp_path / "big.txt").write_bytes(data)
    tools = _ws(tmp_path).toolset("default")
    result = tools.call("edit", {"path": "big.txt", "old_string": "NEEDLE", "new_string": "N"})
    assert result.ok, result.text
    assert result.data["streamed"] is True
    assert (tmp_path / "big.txt").read_bytes() == data.replace(b"NEEDLE", b"N")


@pytest.mark.parametrize("shift", [1, 2, 3, 6])
def test_the_changed_line_is_counted_across_chunk_boundaries(tmp_path: Path, shift: int) -> None:
    before = b"a\n" * ((bigfile.CHUNK_BYTES - shift) // 2) + b"b" * (shift % 2)
    (tmp_path / "f.txt").write_bytes(before + b"NEEDLE\n" + b"z\n" * 10)
    tools = _ws(tmp_path).toolset("default")
    result = tools.call("edit", {"path": "f.txt", "old_string": "NEEDLE", "new_string": "N"})
    line = before.count(b"\n") + 1
    assert result.data["changed_lines"] == [line, line]


def test_line_endings_and_encodings_stay_as_they_were(tmp_path: Path) -> None:
    crlf = _lines(50, b"\r\n")
    (tmp_path / "crlf.txt").write_bytes(crlf)
    latin = "café olé\n".encode("cp1252") * 20 + b"caf\xe9 end\n"
    (tmp_path / "latin.txt").write_bytes(latin)
    bom = b"\xef\xbb\xbf" + _lines(20)
    (tmp_path / "bom.txt").write_bytes(bom)
    tools = _ws(tmp_path).toolset("default")
    edit = {"path": "crlf.txt", "old_string": "line 3 alpha beta\nline 4", "new_string": "A\nB"}
    assert tools.call("edit", edit).ok
    assert (tmp_path / "crlf.txt").read_bytes() == crlf.replace(
        b"line 3 alpha beta\r\nline 4", b"A\r\nB"
    )
    assert tools.call("edit", {"path": "latin.txt", "old_string": "é end", "new_string": "ë"}).ok
    assert (tmp_path / "latin.txt").read_bytes() == latin.replace(b"\xe9 end", b"\xeb")
    assert tools.call("insert", {"path": "bom.txt", "line": 0, "text": "top"}).ok
    assert (tmp_path / "bom.txt").read_bytes() == b"\xef\xbb\xbftop\n" + bom[3:]


def test_encodings_a_byte_match_could_split_are_refused_with_a_reason(tmp_path: Path) -> None:
    (tmp_path / "u16.txt").write_bytes("hello world\n".encode("utf-16") * 10)
    (tmp_path / "gbk.txt").write_bytes("中文内容，测试编码。\n".encode("gbk") * 40)
    tools = _ws(tmp_path).toolset("default")
    for name in ("u16.txt", "gbk.txt"):
        before = (tmp_path / name).read_bytes()
        result = tools.call("edit", {"path": name, "old_string": "hello", "new_string": "x"})
        assert not result.ok
        assert result.data["error"] == "unsupported_encoding", result.data
        assert "streamed changes support UTF-8 and single-byte encodings" in result.text
        assert (tmp_path / name).read_bytes() == before


def test_exact_only_above_the_threshold_and_the_message_says_so(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def f():\n    return 1\n" * 5 + "x = \u201cend\u201d\n")
    small = Workspace(tmp_path, dry_run=True).toolset("default")
    args = {"path": "a.py", "old_string": 'x = "end"', "new_string": "x = 2"}
    assert small.call("edit", args).ok  # in memory the ladder finds it (typography)
    result = _ws(tmp_path).toolset("default").call("edit", args)
    assert not result.ok
    assert result.data["error"] == "no_match"
    assert "only text that matches exactly is found" in result.data["note"]
    assert result.data["strategies_tried"] == ["exact"]


def test_worker_regex_count_and_literal_all(tmp_path: Path) -> None:
    data = _lines(200)
    (tmp_path / "log.txt").write_bytes(data)
    tools = _ws(tmp_path).toolset("worker")
    args = {"path": "log.txt", "old": r"line (\d+)", "new": r"L\1", "regex": True, "count": 5}
    result = tools.call("replace_in_file", args)
    assert result.ok, result.text
    expected = re.sub(rb"line (\d+)", rb"L\1", data, count=5)
    assert (tmp_path / "log.txt").read_bytes() == expected
    result = tools.call("replace_in_file", {"path": "log.txt", "old": "alpha", "new": "A"})
    assert result.text.startswith("Replaced 200 matches")
    assert (tmp_path / "log.txt").read_bytes() == expected.replace(b"alpha", b"A")


def test_a_dry_run_and_every_failure_write_nothing(tmp_path: Path) -> None:
    data = _lines(100)
    path = tmp_path / "a.txt"
    path.write_bytes(data)
    tools = _ws(tmp_path).toolset("default")
    dry = _ws(tmp_path, dry_run=True).toolset("default")
    calls = [
        (dry, "edit", {"path": "a.txt", "old_string": "line 5 ", "new_string": "x"}),
        (dry, "append", {"path": "a.txt", "content": "x"}),
        (dry, "insert", {"path": "a.txt", "line": 5, "text": "x"}),
        (tools, "edit", {"path": "a.txt", "old_string": "alpha", "new_string": "x"}),
        (tools, "edit", {"path": "a.txt", "old_string": "nowhere", "new_string": "x"}),
        (tools, "insert", {"path": "a.txt", "line": 500, "text": "x"}),
    ]
    for toolset, tool, args in calls:
        result = toolset.call(tool, args)
        assert result.ok == (toolset is dry), result.text
        assert path.read_bytes() == data, (tool, args)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".fwtmp")]


def test_a_file_changed_after_it_was_read_is_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes(_lines(100))
    ws = _ws(tmp_path, max_file_bytes=64)  # above 64 bytes: a fingerprint, not a hash
    tools = ws.toolset("claude")
    assert tools.call("Read", {"file_path": str(path), "limit": 2}).ok
    path.write_bytes(_lines(100).replace(b"line 7 ", b"LINE 7 "))
    result = tools.call("Write", {"file_path": str(path), "content": "new\n"})
    assert not result.ok and result.data["error"] == "stale"
    assert tools.call("Read", {"file_path": str(path), "limit": 2}).ok
    result = tools.call("Write", {"file_path": str(path), "content": "new\n"})
    assert result.ok, result.text
    assert path.read_bytes() == b"new\n"


def test_one_change_limit_for_every_toolset(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    data = _lines(100)
    path.write_bytes(data)
    ws = _ws(tmp_path, max_change_bytes=1000)
    calls = [
        ("default", "edit", {"path": "a.txt", "old_string": "line 5 ", "new_string": "x"}),
        ("default", "write", {"path": "a.txt", "content": "x"}),
        ("default", "append", {"path": "a.txt", "content": "x"}),
        ("default", "insert", {"path": "a.txt", "line": 1, "text": "x"}),
        ("worker", "append_to_file", {"path": "a.txt", "content": "x"}),
        ("worker", "write_file", {"path": "a.txt", "content": "x"}),
        ("worker", "replace_in_file", {"path": "a.txt", "old": "alpha", "new": "x"}),
    ]
    for toolset, tool, args in calls:
        result = ws.toolset(toolset).call(tool, args)
        assert not result.ok, (toolset, tool)
        assert f"{len(data)} bytes (limit 1000 bytes)" in result.text, result.text
        assert "sed -i" in result.text
        assert path.read_bytes() == data


# -- appends and history ------------------------------------------------------------------


def test_an_append_writes_in_place_and_undo_truncates(tmp_path: Path) -> None:
    path = tmp_path / "log.txt"
    data = _lines(1000)
    path.write_bytes(data)
    inode = path.stat().st_ino
    tools = _ws(tmp_path).toolset("default")
    assert tools.call("append", {"path": "log.txt", "content": "one more\n"}).ok
    assert path.stat().st_ino == inode  # no copy: the same file, grown
    assert path.read_bytes() == data + b"one more\n"
    (entry,) = tools.engine.workspace.history.entries(str(path))
    assert (entry.kind, entry.stored, entry.size_before) == ("truncate", 0, len(data))
    assert tools.call("undo", {"path": "log.txt"}).ok
    assert path.read_bytes() == data and path.stat().st_ino == inode


def test_ten_edits_keep_deltas_not_copies(tmp_path: Path) -> None:
    path = tmp_path / "big.txt"
    data = _lines(50_000)  # ~1 MB
    path.write_bytes(data)
    tools = _ws(tmp_path).toolset("default")
    for i in range(10):
        edit = {"path": "big.txt", "old_string": f"line {i * 997} alpha", "new_string": "E"}
        assert tools.call("edit", edit).ok
    history = tools.engine.workspace.history
    assert history.total_bytes() < 10 * 1000  # ten copies would be 10 MB
    for _ in range(10):
        assert tools.call("undo", {"path": "big.txt"}).ok
    assert path.read_bytes() == data


def test_the_history_cap_drops_the_oldest_with_a_notice(tmp_path: Path) -> None:
    names = ("a.txt", "b.txt", "c.txt")
    for name in names:
        (tmp_path / name).write_bytes(_lines(60_000))  # ~1.3 MB each
    ws = _ws(tmp_path, history_max_bytes=3 * 1024 * 1024)
    tools = ws.toolset("default")
    results = [tools.call("write", {"path": name, "content": "short\n"}) for name in names]
    assert all(r.ok for r in results)
    assert "history_pruned" not in results[1].data
    pruned = results[2].data["history_pruned"]
    assert [(p["path"], p["id"]) for p in pruned] == [(str(tmp_path / "a.txt"), 1)]
    assert ws.history.total_bytes() <= 3 * 1024 * 1024
    assert not tools.call("undo", {"path": "a.txt"}).ok
    assert tools.call("undo", {"path": "c.txt"}).ok
    assert (tmp_path / "c.txt").read_bytes() == _lines(60_000)
    # what one change needs beyond the cap is not kept, and the result says so
    small = _ws(tmp_path, history_max_bytes=1000).toolset("default")
    result = small.call("write", {"path": "c.txt", "content": "y"})
    assert result.ok and result.data["history"] == "skipped"
    assert "undo is not available" in result.data["history_note"]


def test_cli_history_prune(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """`filewright history --prune`: the command, forked from the test process's warm
    interpreter (tests/forkserver.py)."""
    (tmp_path / "a.txt").write_bytes(_lines(1000))
    tools = Workspace(tmp_path).toolset("default")
    for i in range(3):
        assert tools.call(
            "edit", {"path": "a.txt", "old_string": f"line {i} ", "new_string": "x"}
        ).ok
    forks = shared(request.session)
    cmd = ["filewright", "history", "--root", str(tmp_path), "--prune"]
    out = forks.run([*cmd, "--max-bytes", "0"], timeout=120)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["ok"] and len(report["data"]["dropped"]) == 3
    assert report["data"]["bytes_after"] == 0
    assert Workspace(tmp_path).history.entries(str(tmp_path / "a.txt")) == []
    bad = forks.run([*cmd, "--max-bytes", "-1"], timeout=120)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr + bad.stdout


# -- any sequence of changes and undos gives back the exact bytes ------------------------

OPS = st.one_of(
    st.tuples(st.just("edit"), st.integers(0, 400), st.sampled_from(["Q", "", "x\ny"])),
    st.tuples(st.just("all"), st.sampled_from(["alpha", "beta", "\n"]), st.sampled_from(["", "é"])),
    st.tuples(st.just("insert"), st.integers(0, 400), st.sampled_from(["ins", "a\nb"])),
    st.tuples(st.just("append"), st.sampled_from(["tail\n", "é", "x"])),
    st.tuples(st.just("write"), st.sampled_from(["", "short\n", "w" * 300])),
    st.tuples(st.just("undo")),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lines=st.integers(0, 400),
    crlf=st.booleans(),
    threshold=st.sampled_from([0, 200, 5000, 10**9]),
    ops=st.lists(OPS, max_size=12),
)
def test_any_changes_and_undos_give_back_the_exact_bytes(
    tmp_path_factory: pytest.TempPathFactory, lines: int, crlf: bool, threshold: int, ops
) -> None:
    root = tmp_path_factory.mktemp("prop")
    path = root / "f.txt"
    path.write_bytes(_lines(lines, b"\r\n" if crlf else b"\n"))
    tools = Workspace(root, stream_above_bytes=threshold).toolset("default")
    versions = [path.read_bytes()]
    for op in ops:
        kind = op[0]
        if kind == "undo":
            result = tools.call("undo", {"path": "f.txt"})
            if len(versions) > 1:
                assert result.ok, result.text
                versions.pop()
            assert path.read_bytes() == versions[-1]
            continue
        if kind == "edit":
            args = {"old_string": f"line {op[1]} ", "new_string": op[2]}
            result = tools.call("edit", {"path": "f.txt", **args})
        elif kind == "all":
            args = {"old_string": op[1], "new_string": op[2], "replace_all": True}
            result = tools.call("edit", {"path": "f.txt", **args})
        elif kind == "insert":
            result = tools.call("insert", {"path": "f.txt", "line": op[1], "text": op[2]})
        elif kind == "append":
            result = tools.call("append", {"path": "f.txt", "content": op[1]})
        else:
            result = tools.call("write", {"path": "f.txt", "content": op[1]})
        now = path.read_bytes()
        if result.ok and now != versions[-1]:
            versions.append(now)
        elif not result.ok:
            assert now == versions[-1], result.text
    while len(versions) > 1:
        assert tools.call("undo", {"path": "f.txt"}).ok
        versions.pop()
        assert path.read_bytes() == versions[-1]
    assert path.read_bytes() == versions[0]
    os.sync()


def test_a_half_written_append_is_rolled_back(tmp_path: Path) -> None:
    """The state a process killed inside its append's write leaves: the history entry
    written ahead (never confirmed) and part of the appended bytes on disk."""
    from filewright.engine.streamed import append_mark

    path = tmp_path / "log.txt"
    data = _lines(1000)
    path.write_bytes(data)
    tools = _ws(tmp_path).toolset("default")
    record = "r" * 5000 + "\n"
    assert tools.call("append", {"path": "log.txt", "content": record}).ok
    history = tools.engine.workspace.history
    history.amend_last(str(path), append_mark(len(data) + len(record), record.encode()))
    os.truncate(path, len(data) + 1234)  # the kill came mid-write
    assert tools.call("append", {"path": "log.txt", "content": "next\n"}).ok
    assert path.read_bytes() == data + b"next\n"
    assert tools.call("undo", {"path": "log.txt"}).ok
    assert path.read_bytes() == data
    assert not tools.call("undo", {"path": "log.txt"}).ok  # the torn one is gone


def test_a_span_edit_streams_with_the_in_memory_rules(tmp_path: Path) -> None:
    text = "".join(f"line {i}\n" for i in range(3000))
    text += "## Section\n<!-- BEGIN -->\nold body\nmore\n<!-- END -->\ntail\n" + text
    args = {
        "path": "doc.md",
        "search_after": "## Section",
        "start": "<!-- BEGIN -->",
        "end": "<!-- END -->",
        "new_text": "new body\n",
    }
    (tmp_path / "doc.md").write_text(text)
    assert Workspace(tmp_path).toolset("default").call("replace_span", args).ok
    expected = (tmp_path / "doc.md").read_bytes()
    (tmp_path / "doc.md").write_text(text)
    tools = _ws(tmp_path).toolset("default")
    result = tools.call("replace_span", args)
    assert result.ok and result.data["streamed"] is True, result.text
    assert (tmp_path / "doc.md").read_bytes() == expected
    assert tools.call("undo", {"path": "doc.md"}).ok
    assert (tmp_path / "doc.md").read_text() == text
    missing = tools.call("replace_span", {**args, "end": "<!-- NOWHERE -->"})
    assert not missing.ok and missing.data["error"] == "marker_not_found"
    assert (tmp_path / "doc.md").read_text() == text


def test_claude_multi_edit_streamed_names_the_edit_that_failed(tmp_path: Path) -> None:
    path = tmp_path / "big.txt"
    data = _lines(2000)
    path.write_bytes(data)
    tools = Workspace(tmp_path).toolset("claude", max_edit_bytes=1000)
    assert tools.call("Read", {"file_path": str(path), "limit": 1}).ok
    edits = [
        {"old_string": "line 1 alpha", "new_string": "ONE"},
        {"old_string": "no such text", "new_string": "x"},
    ]
    result = tools.call("MultiEdit", {"file_path": str(path), "edits": edits})
    assert not result.ok
    assert result.text.startswith(f"Edit 2 of 2 failed; no changes were made to {path}.")
    assert "old_string must match the file exactly" in result.data["streamed_note"]
    assert path.read_bytes() == data
    edits[1]["old_string"] = "line 2 alpha"
    result = tools.call("MultiEdit", {"file_path": str(path), "edits": edits})
    assert result.ok and "edited in streaming mode" in result.data["streamed_note"], result.text
    assert path.read_bytes() == data.replace(b"line 1 alpha", b"ONE", 1).replace(
        b"line 2 alpha", b"x", 1
    )


def test_companion_edit_and_write_stream(tmp_path: Path) -> None:
    data = _lines(300)
    path = tmp_path / "notes.md"
    path.write_bytes(data)
    ws = _ws(tmp_path)
    tools = ws.toolset("companion")
    result = tools.call("edit", {"path": "notes.md", "oldText": "line 17 ", "newText": "L17 "})
    assert result.ok, result.text
    assert result.text == "成功替换了 notes.md 中的文本"  # the seed's words, streamed or not
    assert result.data["streamed"] is True
    assert path.read_bytes() == data.replace(b"line 17 ", b"L17 ", 1)
    ambiguous = tools.call("edit", {"path": "notes.md", "oldText": "alpha", "newText": "x"})
    assert not ambiguous.ok and ambiguous.data["error"] == "ambiguous"
    assert path.read_bytes() == data.replace(b"line 17 ", b"L17 ", 1)
    result = tools.call("write", {"path": "notes.md", "content": "new\n"})
    assert result.ok and result.data["streamed"] is True, result.text
    assert path.read_bytes() == b"new\n"
    undo = ws.toolset("default")
    assert undo.call("undo", {"path": "notes.md"}).ok
    assert undo.call("undo", {"path": "notes.md"}).ok
    assert path.read_bytes() == data
    limited = _ws(tmp_path, max_change_bytes=1000).toolset("companion")
    refused = limited.call("edit", {"path": "notes.md", "oldText": "line 5 ", "newText": "x"})
    assert not refused.ok and refused.text == "文件过大: notes.md", refused.text
    assert path.read_bytes() == data


_OLD = "function f5() { return 5; }"
_FILES_OWN = "function f5() {\n  // ... existing code ...\n}"
_OMITTED = "function f5() {\n  // ... rest of code ...\n}"


def _placeholder_calls(root: Path, new: str) -> list[tuple[str, str, dict[str, object]]]:
    path = str(root / "a.js")
    return [
        ("default", "edit", {"path": "a.js", "old_string": _OLD, "new_string": new}),
        (
            "default",
            "multi_edit",
            {"path": "a.js", "edits": [{"old_string": _OLD, "new_string": new}]},
        ),
        ("companion", "edit", {"path": "a.js", "oldText": _OLD, "newText": new}),
        ("worker", "replace_in_file", {"path": "a.js", "old": _OLD, "new": new}),
        (
            "worker",
            "replace_in_file",
            {"path": "a.js", "old": r"return 5;", "new": new, "regex": True},
        ),
        ("gemini", "replace", {"file_path": path, "old_string": _OLD, "new_string": new}),
        (
            "text_editor",
            "str_replace_based_edit_tool",
            {"command": "str_replace", "path": path, "old_str": _OLD, "new_str": new},
        ),
        ("claude", "Edit", {"file_path": path, "old_string": _OLD, "new_string": new}),
    ]


@pytest.mark.parametrize("new", [_FILES_OWN, _OMITTED])
def test_placeholders_are_refused_streamed_as_in_memory(tmp_path: Path, new: str) -> None:
    """An omission placeholder in the new text: the same verdict and words whether the
    file is changed in memory or streamed (the file's own comment is no omission, except
    for the worker, which refuses any)."""
    body = "".join(f"function f{i}() {{ return {i}; }}\n" for i in range(300))
    text = body + "// ... existing code ...\n"
    path = tmp_path / "a.js"
    for toolset, tool, args in _placeholder_calls(tmp_path, new):
        answers = [
            (result.ok, result.text if not result.ok else "", result.data.get("streamed"), after)
            for result, after in both_ways(tmp_path, path, text, toolset, tool, args, dry_run=True)
        ]
        (ok_mem, text_mem, _, _), (ok_big, text_big, streamed_big, _) = answers
        if ok_big or toolset != "claude":  # (claude's failures carry the seed's data only)
            assert streamed_big is True, (toolset, tool, answers)
        assert (ok_mem, text_mem) == (ok_big, text_big), (toolset, tool, answers)
        expect_ok = new == _FILES_OWN and toolset != "worker"
        assert ok_big == expect_ok, (toolset, tool, answers)
        assert all(after == text for *_, after in answers)  # (dry runs: nothing written)


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.binary(max_size=300),
    needles=st.lists(st.binary(min_size=1, max_size=6), max_size=4),
    size=st.integers(1, 40),
)
def test_occurs_finds_needles_across_chunks(data: bytes, needles: list[bytes], size: int) -> None:
    seen = Occurs(needles)
    for start in range(0, len(data), size):
        seen.see(data[start : start + size])
    assert set(seen.found) == {n for n in needles if n in data}
    assert set(seen.missing) == {n for n in needles if n not in data}


def test_claude_streamed_edit_and_write_keep_the_seeds_backup(tmp_path: Path) -> None:
    data = _lines(400)
    path = tmp_path / "big.txt"
    path.write_bytes(data)
    path.chmod(0o640)
    ws = Workspace(tmp_path, stream_above_bytes=2000)
    tools = ws.toolset("claude", max_edit_bytes=1000)
    assert tools.call("Read", {"file_path": str(path), "limit": 5}).ok
    edit = {"file_path": str(path), "old_string": "line 7 ", "new_string": "L7 "}
    result = tools.call("Edit", edit)
    assert result.ok and result.data["streamed"] is True, result.text
    assert "larger than 1000 bytes" in result.data["note"]  # the threshold in force
    backup = Path(result.data["backupPath"])
    assert backup.parent == tmp_path / ".claude-backups"
    assert backup.read_bytes() == data  # the old bytes, kept as a link to the old file
    assert backup.stat().st_mode & 0o777 == 0o640
    edited = path.read_bytes()
    result = tools.call("Write", {"file_path": str(path), "content": "short\n"})
    assert result.ok and result.data["streamed"] is True, result.text
    assert Path(result.data["backupPath"]).read_bytes() == edited
    assert path.read_bytes() == b"short\n"


def test_a_planted_backup_link_stops_a_streamed_claude_edit(tmp_path: Path) -> None:
    data = _lines(400)
    path = tmp_path / "big.txt"
    path.write_bytes(data)
    outside = tmp_path.parent / (tmp_path.name + "-outside")
    outside.mkdir()
    (tmp_path / ".claude-backups").symlink_to(outside, target_is_directory=True)
    tools = Workspace(tmp_path).toolset("claude", max_edit_bytes=1000)
    assert tools.call("Read", {"file_path": str(path), "limit": 5}).ok
    result = tools.call(
        "Edit", {"file_path": str(path), "old_string": "line 7 ", "new_string": "x"}
    )
    assert not result.ok
    assert "symbolic link" in result.text, result.text
    assert path.read_bytes() == data
    assert list(outside.iterdir()) == []
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".fwtmp")] == []


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(
    lines=st.lists(st.sampled_from(["", "a", "ab c", "needle", "x needle y", "zz"]), max_size=40),
    trailing=st.booleans(),
    size=st.integers(1, 30),
    around=st.integers(1, 25),
)
def test_first_match_context_is_whole_lines_around_the_first_match(
    lines: list[str], trailing: bool, size: int, around: int
) -> None:
    data = "\n".join(lines).encode() + (b"\n" if trailing and lines else b"")
    got = first_match_context(
        (data[i : i + size] for i in range(0, len(data), size)), b"needle", around
    )
    at = data.find(b"needle")
    if at < 0:
        assert got is None
        return
    assert got is not None
    before, after, line, offset = got
    assert offset == at
    shown_from = at - (len(before) if before is not None else 0)
    assert line == data.count(b"\n", 0, shown_from) + 1
    line_start = data.rfind(b"\n", 0, at) + 1
    nl = data.find(b"\n", at + 6)
    line_end = len(data) if nl < 0 else nl + 1
    if before is None:
        assert at - line_start > around  # the match's own line does not fit
        before = data[line_start:at]
    if after is None:
        assert line_end - (at + 6) > around
        after = data[at + 6 : line_end]
    assert data[at - len(before) : at] == before and len(before) <= max(around, at - line_start)
    assert data[at + 6 : at + 6 + len(after)] == after
    assert len(after) <= max(around, line_end - at - 6)
    # whole lines: the context starts at a line start and ends at a line end (or the ends)
    assert at - len(before) == 0 or data[at - len(before) - 1 : at - len(before)] == b"\n"
    end = at + 6 + len(after)
    assert end == len(data) or data[end - 1 : end] == b"\n"
    # and nothing a whole line could have added is left out
    if at - len(before) > 0:
        assert at - data.rfind(b"\n", 0, at - len(before) - 1) - 1 > around
    if end < len(data):
        nxt = data.find(b"\n", end)
        assert (len(data) if nxt < 0 else nxt + 1) - (at + 6) > around


def _edit_asking(
    root: Path, old: str, new: str, answer: bool
) -> tuple[Result, list[ConfirmRequest], bytes]:
    """An edit of `big.cfg` (300 lines, every change asks) streamed, the confirmation
    answering `answer`: its result, the requests seen, the file's bytes before."""
    (root / ".filewright.toml").write_text('[[rules]]\npattern = "*.cfg"\naccess = "confirm"\n')
    data = _lines(300)
    (root / "big.cfg").write_bytes(data)
    seen: list[ConfirmRequest] = []

    def confirm(request: ConfirmRequest) -> bool:
        seen.append(request)
        return answer

    tools = _ws(root, confirm=confirm).toolset("default")
    result = tools.call("edit", {"path": "big.cfg", "old_string": old, "new_string": new})
    return result, seen, data


def test_a_streamed_edit_asks_with_the_diff_of_its_lines(tmp_path: Path) -> None:
    result, seen, data = _edit_asking(tmp_path, "line 150 ", "L150 ", answer=False)
    assert not result.ok and (tmp_path / "big.cfg").read_bytes() == data
    assert len(seen) == 1
    diff = seen[0].diff
    assert "@@ -148,7 +148,7 @@" in diff, diff  # the file's own line numbers
    assert "-line 150 alpha beta\n+L150 alpha beta\n" in diff


def test_keep_at_links_the_same_file_and_copies_a_swapped_one(tmp_path: Path) -> None:
    src_dir, dst_dir = tmp_path / "src", tmp_path / "dst"
    src_dir.mkdir()
    dst_dir.mkdir()
    (src_dir / "f.txt").write_bytes(b"old bytes\n")
    loc_fd = os.open(src_dir, os.O_RDONLY)
    dst_fd = os.open(dst_dir, os.O_RDONLY)
    try:
        fd = os.open(src_dir / "f.txt", os.O_RDONLY)
        opened = bigfile.Opened(fd, os.fstat(fd))
        assert bigfile.keep_at(opened, loc_fd, "f.txt", dst_fd, "a.backup", 0o600) == 10
        assert (dst_dir / "a.backup").stat().st_ino == os.fstat(fd).st_ino  # a link
        # the name now is a symlink to a secret: the open file's bytes are copied instead
        (tmp_path / "secret").write_bytes(b"secret\n")
        (src_dir / "f.txt").unlink()
        (src_dir / "f.txt").symlink_to(tmp_path / "secret")
        bigfile.keep_at(opened, loc_fd, "f.txt", dst_fd, "b.backup", 0o600)
        assert (dst_dir / "b.backup").read_bytes() == b"old bytes\n"
        assert not (dst_dir / "b.backup").is_symlink()
        assert (dst_dir / "b.backup").stat().st_mode & 0o777 == 0o600
        # a planted link at the backup's name is neither followed nor replaced
        (dst_dir / "c.backup").symlink_to(tmp_path / "secret")
        with pytest.raises(OSError):
            bigfile.keep_at(opened, loc_fd, "f.txt", dst_fd, "c.backup", 0o600)
        assert (tmp_path / "secret").read_bytes() == b"secret\n"
        os.close(fd)
    finally:
        os.close(loc_fd)
        os.close(dst_fd)


def test_a_streamed_edit_that_cannot_match_asks_nobody(tmp_path: Path) -> None:
    result, seen, data = _edit_asking(tmp_path, "absent", "x", answer=True)
    path = tmp_path / "big.cfg"
    assert not result.ok and result.data["error"] == "no_match"
    assert result.data["strategies_tried"] == ["exact"] and result.data["edit_index"] == 0
    assert "only text that matches exactly is found" in result.data["note"]
    assert seen == [] and path.read_bytes() == data


def test_a_line_aware_replace_all_is_undone_exactly(tmp_path: Path) -> None:
    """`old` sent without indentation, `new` with continuation lines: each match gets its
    line's indentation (a line-aware pass), and undo gives back the exact bytes."""
    body = "".join(f"{'    ' * (i % 3)}call(x)\nother {i}\n" for i in range(3000))
    path = tmp_path / "f.py"
    path.write_text(body)
    before = path.read_bytes()
    ws = _ws(tmp_path)
    result = ws.toolset("default").call(
        "edit",
        {"path": "f.py", "old_string": "call(x)", "new_string": "call(\n  x)", "replace_all": True},
    )
    assert result.ok and result.data["streamed"] is True, result.text
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "f.py").write_bytes(before)
    Workspace(memory).toolset("default").call(
        "edit",
        {"path": "f.py", "old_string": "call(x)", "new_string": "call(\n  x)", "replace_all": True},
    )
    assert path.read_bytes() == (memory / "f.py").read_bytes()  # the in-memory bytes
    assert b"        call(\n          x)" in path.read_bytes()  # carried per line
    assert ws.toolset("default").call("undo", {"path": "f.py"}).ok
    assert path.read_bytes() == before


def test_a_streamed_change_and_its_undo_hash_the_file_only_for_a_stale_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Up to max_file_bytes an identity is a sha256 pass over the file: a change computes
    the old file's only when it compares it (a read recorded, an expected hash), and undo
    the restored file's only when it records it (for a file that was read)."""
    (tmp_path / "f.txt").write_bytes(_lines(2000))
    hashed: list[int] = []
    real = bigfile.identity

    def identity(fd: int, st: os.stat_result, limit: int) -> str:
        hashed.append(st.st_size)
        return real(fd, st, limit)

    monkeypatch.setattr(bigfile, "identity", identity)
    tools = _ws(tmp_path).toolset("default")
    for args in ({"line": 0, "text": "top"}, {"line": 3, "text": "middle"}):
        assert tools.call("insert", {"path": "f.txt", **args}).ok
    assert hashed == []  # (the new file's is hashed as it is written)
    assert tools.call("undo", {"path": "f.txt"}).ok
    assert len(hashed) == 1  # the check that the file is as the change left it
    assert tools.call("read", {"path": "f.txt", "limit": 1}).ok
    hashed.clear()
    assert tools.call("insert", {"path": "f.txt", "line": 1, "text": "again"}).ok
    assert len(hashed) == 1  # the stale check of a file that was read
    assert tools.call("undo", {"path": "f.txt"}).ok
    assert tools.call("insert", {"path": "f.txt", "line": 1, "text": "still fresh"}).ok
    assert (tmp_path / "f.txt").read_bytes().count(b"still fresh") == 1
