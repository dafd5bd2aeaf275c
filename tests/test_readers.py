"""The readers: text ranges and tails (streamed, any size), encodings, binary refusal,
images, PDFs, notebooks and directories, on real files made in tmp_path."""

from __future__ import annotations

import base64
import codecs
import hashlib
import io
import json
import re
import struct
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from samples import pdf, png

from filewright import Workspace
from filewright.engine.workspace import Engine
from filewright.read import linestream
from filewright.read.media import image_dimensions, parse_pages
from filewright.read.readers import (
    CUT_MARKER,
    DEFAULT_LIMIT,
    OperationFailed,
    TextSlice,
    format_claude,
    format_default,
    format_gemini,
    format_numbered,
    image_block_anthropic,
    image_block_mcp,
    inline_data_gemini,
    pdf_inline,
    read_any,
    read_lines,
    render_outcome,
)

# -- helpers ---------------------------------------------------------------------------


def engine(root: Path, **options: object) -> Engine:
    return Workspace(root, **options).engine()  # type: ignore[arg-type]


def failure(call: object) -> tuple[str, dict[str, object]]:
    with pytest.raises(OperationFailed) as info:
        call()  # type: ignore[operator]
    return info.value.failure.code, info.value.failure.detail


def reference_lines(text: str) -> list[str]:
    """Lines as `textfile` defines them: split at \\r\\n, \\r or \\n; no trailing empty."""
    parts = re.split(r"\r\n|\r|\n", text)
    return parts[:-1] if parts and parts[-1] == "" else parts


NOTEBOOK = {
    "nbformat": 4,
    "nbformat_minor": 5,
    "metadata": {"kernelspec": {"display_name": "Python 3", "name": "python3"}},
    "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Title\n", "Some *text*."]},
        {
            "cell_type": "code",
            "execution_count": 1,
            "metadata": {},
            "source": "print('hello')\n1 + 1",
            "outputs": [
                {"output_type": "stream", "name": "stdout", "text": ["hello\n"]},
                {
                    "output_type": "execute_result",
                    "execution_count": 1,
                    "metadata": {},
                    "data": {"text/plain": ["2"]},
                },
            ],
        },
        {
            "cell_type": "code",
            "execution_count": 2,
            "metadata": {},
            "source": ["plot()"],
            "outputs": [
                {
                    "output_type": "display_data",
                    "metadata": {},
                    "data": {
                        "image/png": base64.b64encode(png(2, 2)).decode(),
                        "text/plain": ["<Figure>"],
                    },
                },
            ],
        },
        {
            "cell_type": "code",
            "execution_count": 3,
            "metadata": {},
            "source": "1/0",
            "outputs": [
                {
                    "output_type": "error",
                    "ename": "ZeroDivisionError",
                    "evalue": "division by zero",
                    "traceback": ["\x1b[0;31mZeroDivisionError\x1b[0m: division by zero"],
                },
            ],
        },
    ],
}


# -- 1. text: numbering, ranges, notices ----------------------------------------------


def test_cat_n_numbering_range_and_next_offset(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("".join(f"line {i}\n" for i in range(1, 31)))
    s = read_lines(engine(tmp_path), "a.txt", 8, 3)
    assert s.lines == ["line 8", "line 9", "line 10"]
    assert (s.start, s.end, s.total_lines, s.truncated, s.truncated_by) == (
        8,
        10,
        30,
        True,
        "limit",
    )
    assert s.next_offset == 11
    assert format_numbered(s) == " 8\tline 8\n 9\tline 9\n10\tline 10"
    assert format_numbered(s, width=6) == "     8\tline 8\n     9\tline 9\n    10\tline 10"
    text = format_claude(s)
    assert text.startswith(" 8\tline 8\n")
    assert "[Showing lines 8-10 of 30. Use offset=11 to read more.]" in text
    whole = read_lines(engine(tmp_path), "a.txt")
    assert (whole.start, whole.end, whole.truncated, whole.next_offset) == (1, 30, False, None)
    assert "Showing" not in format_default(whole)


def test_default_limit_is_2000_lines(tmp_path: Path) -> None:
    (tmp_path / "long.txt").write_text("x\n" * 2500)
    s = read_lines(engine(tmp_path), "long.txt")
    assert len(s.lines) == DEFAULT_LIMIT == 2000
    assert (s.end, s.total_lines, s.next_offset) == (2000, 2500, 2001)


def test_gemini_style_plain_with_seed_prefix(tmp_path: Path) -> None:
    (tmp_path / "g.txt").write_text("".join(f"row {i}\n" for i in range(1, 501)))
    s = read_lines(engine(tmp_path), "g.txt", 1, 100)
    text = format_gemini(s)
    first, rest = text.split("\n", 1)
    assert first.startswith("[File content truncated: showing lines 1-100 of 500 total lines")
    assert rest.startswith("row 1\nrow 2\n") and "\t" not in rest
    full = read_lines(engine(tmp_path), "g.txt", 1, 1000)
    assert format_gemini(full).startswith("row 1\n")


def test_offset_past_end_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\nthree\n")
    code, detail = failure(lambda: read_lines(engine(tmp_path), "a.txt", 4, 10))
    assert code == "line_out_of_range" and detail["line"] == 4 and detail["lines"] == 3
    (tmp_path / "b.txt").write_text("one\ntwo")  # no trailing newline: still two lines
    assert read_lines(engine(tmp_path), "b.txt", 2, 1).lines == ["two"]
    code, detail = failure(lambda: read_lines(engine(tmp_path), "b.txt", 3, 1))
    assert (code, detail["lines"]) == ("line_out_of_range", 2)


def test_empty_file(tmp_path: Path) -> None:
    (tmp_path / "e.txt").write_bytes(b"")
    s = read_lines(engine(tmp_path), "e.txt")
    assert (s.lines, s.total_lines, s.truncated) == ([], 0, False)
    assert format_claude(s) == "(empty file)"
    assert failure(lambda: read_lines(engine(tmp_path), "e.txt", 2))[0] == "line_out_of_range"
    assert read_lines(engine(tmp_path), "e.txt", tail=5).lines == []


def test_long_lines_are_cut_with_marker(tmp_path: Path) -> None:
    (tmp_path / "w.txt").write_text("short\n" + "é" * 2500 + "\n" + "日" * 2000 + "\n")
    s = read_lines(engine(tmp_path), "w.txt")
    assert s.lines[0] == "short"
    assert s.lines[1] == "é" * 2000 + CUT_MARKER == "é" * 2000 + " ... [truncated]"
    assert s.lines[2] == "日" * 2000  # exactly at the limit: not cut
    assert s.cut_lines == [2]
    assert "1 line(s) longer than 2000 characters were cut" in format_default(s)
    assert read_lines(engine(tmp_path), "w.txt", max_line_chars=3).lines[0] == "sho" + CUT_MARKER
    assert format_gemini(s).startswith("[File content truncated")


def test_output_budget_stops_early_and_says_where_to_continue(tmp_path: Path) -> None:
    (tmp_path / "b.txt").write_text("".join(f"{i:04d} {'x' * 40}\n" for i in range(1, 101)))
    s = read_lines(engine(tmp_path), "b.txt", 1, None, max_output_chars=500)
    assert 0 < len(s.lines) < 100 and s.truncated_by == "budget" and s.total_lines == 100
    assert len(format_numbered(s)) <= 500
    assert f"Use offset={s.end + 1} to read more" in format_default(s)
    one = read_lines(engine(tmp_path), "b.txt", 1, None, max_output_chars=20)
    assert len(one.lines) == 1 and one.lines[0].endswith(CUT_MARKER)  # always some progress
    fits = read_lines(engine(tmp_path), "b.txt", 99, None, max_output_chars=10_000)
    assert (fits.truncated, fits.truncated_by) == (False, None)


def test_crlf_and_lone_cr_line_endings(tmp_path: Path) -> None:
    (tmp_path / "crlf.txt").write_bytes(b"alpha\r\nbeta\r\n\r\ngamma\r\n")
    (tmp_path / "cr.txt").write_bytes(b"a\rb\r\rc")
    eng = engine(tmp_path)
    s = read_lines(eng, "crlf.txt")
    assert (s.lines, s.total_lines) == (["alpha", "beta", "", "gamma"], 4)
    assert read_lines(eng, "crlf.txt", tail=2).lines == ["", "gamma"]
    assert read_lines(eng, "cr.txt").lines == ["a", "b", "", "c"]
    assert read_lines(eng, "cr.txt", 3, 2).lines == ["", "c"]


def test_tail_reads_last_lines_with_numbers(tmp_path: Path) -> None:
    (tmp_path / "t.txt").write_text("".join(f"line {i}\n" for i in range(1, 51)))
    s = read_lines(engine(tmp_path), "t.txt", tail=3)
    assert (s.lines, s.start, s.end, s.total_lines) == (
        ["line 48", "line 49", "line 50"],
        48,
        50,
        50,
    )
    assert "offset=1 and limit=47" in format_default(s)
    all_of_it = read_lines(engine(tmp_path), "t.txt", tail=100)
    assert (all_of_it.start, len(all_of_it.lines), all_of_it.truncated) == (1, 50, False)


def test_read_is_recorded_in_the_ledger(tmp_path: Path) -> None:
    data = "".join(f"{i}\n" for i in range(400_000)).encode()  # > 1 MB: the streamed path
    (tmp_path / "big.txt").write_bytes(data)
    (tmp_path / "small.txt").write_bytes(b"tiny\n")
    eng = engine(tmp_path)
    loc, _ = eng.locate("big.txt")
    s = read_lines(eng, "big.txt", 10, 5)
    assert s.hash == hashlib.sha256(data).hexdigest() == eng.last_read(loc)
    assert read_lines(eng, "big.txt", tail=5).hash == s.hash
    assert read_lines(eng, "big.txt", 10, 5, count_total=False).hash == s.hash
    loc2, _ = eng.locate("small.txt")
    read_lines(eng, "small.txt")
    assert eng.last_read(loc2) == hashlib.sha256(b"tiny\n").hexdigest()


# -- 2. large files: streamed, flat memory ---------------------------------------------


def _write_numbered(path: Path, target_bytes: int) -> int:
    """Lines f"{i:09d} {pad[: i % 70]}\n" in chunks of 100,000 until `target_bytes`.
    Built from 7 templates of 1,000 lines (line i's tail depends on i % 1000 and i % 70,
    and 1000 % 70 == 20, so on the thousand's number mod 7), its first six digits put in
    by str.replace: the same bytes as formatting each line, in a tenth of the time."""
    pad = "abcdefghij" * 8
    templates = [
        "".join(f"\0{j:03d} {pad[: (r * 1000 + j) % 70]}\n" for j in range(1000)) for r in range(7)
    ]
    count = 0
    with path.open("w", encoding="ascii") as f:
        size = 0
        while size < target_bytes:
            first = count // 1000
            chunk = "".join(
                templates[t % 7].replace("\0", f"{t:06d}") for t in range(first, first + 100)
            )
            f.write(chunk)
            size += len(chunk)
            count += 100_000
    return count


def test_100mb_file_range_and_tail_in_flat_memory(tmp_path: Path) -> None:
    path = tmp_path / "huge.log"
    total = _write_numbered(path, 100 * 1024 * 1024)
    eng = engine(tmp_path)
    tracemalloc.start()
    try:
        middle = read_lines(eng, "huge.log", total // 2, 100)
        tail = read_lines(eng, "huge.log", tail=100)
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 20 * 1024 * 1024, peak
    assert middle.lines[0].startswith(f"{total // 2 - 1:09d} ")
    assert (middle.start, middle.end, middle.total_lines) == (total // 2, total // 2 + 99, total)
    assert tail.lines[-1].startswith(f"{total - 1:09d} ") and len(tail.lines) == 100
    # Above the tail-counting size the tail is numbered from the end; counting is optional.
    assert (tail.from_end, tail.start, tail.end) == (True, -100, -1)
    assert "numbered from the end" in format_default(tail)
    counted = read_lines(eng, "huge.log", tail=2, count_total=True)
    assert (counted.start, counted.total_lines) == (total - 1, total)
    # Whole-file reads of a file above the workspace limit are refused, with its size.
    code, detail = failure(lambda: read_lines(eng, "huge.log", 1, None))
    assert code == "too_large" and str(path.stat().st_size) in str(detail["message"])


# -- block boundaries: the streamed path against a reference, on random content --------

_ALPHABET = st.sampled_from(["a", "b", " ", "é", "日", "\U0001f600", "\r", "\n", "\r\n"])


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    pieces=st.lists(_ALPHABET, max_size=60),
    codec=st.sampled_from(["utf-8", "utf-16-le", "utf-16-be", "utf-8-sig"]),
    start=st.integers(1, 12),
    limit=st.integers(1, 6),
    tail=st.integers(1, 6),
    block=st.integers(1, 9),
)
def test_streamed_reads_match_reference(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    pieces: list[str],
    codec: str,
    start: int,
    limit: int,
    tail: int,
    block: int,
) -> None:
    monkeypatch.setattr(linestream, "SMALL_FILE_BYTES", 0)  # always stream
    monkeypatch.setattr(linestream, "BLOCK_BYTES", block)  # tiny blocks: every boundary
    monkeypatch.setattr(linestream, "TAIL_FIRST_BLOCK", block)
    text = "x" + "".join(pieces)  # starts with text so no sample is empty
    boms = {"utf-16-le": codecs.BOM_UTF16_LE, "utf-16-be": codecs.BOM_UTF16_BE}
    data = boms.get(codec, b"") + text.encode(codec)
    (tmp_path / "f.txt").write_bytes(data)
    eng = engine(tmp_path)
    ref = reference_lines(text)
    if start > max(len(ref), 1):
        assert failure(lambda: read_lines(eng, "f.txt", start, limit))[0] == "line_out_of_range"
    else:
        s = read_lines(eng, "f.txt", start, limit)
        assert s.lines == ref[start - 1 : start - 1 + limit]
        assert s.total_lines == len(ref)
        assert s.truncated == (start - 1 + limit < len(ref))
    t = read_lines(eng, "f.txt", tail=tail)
    assert t.lines == ref[-tail:]
    assert (t.start, t.total_lines) == (max(len(ref) - tail + 1, 1), len(ref))
    assert t.hash == hashlib.sha256(data).hexdigest()


# -- 3. encodings ----------------------------------------------------------------------

ENCODED = {
    "utf-8": ("Grüße aus München — naïve café\n日本語\n", "utf-8"),
    "utf-8-sig": ("Grüße aus München\nzweite Zeile\n", "utf-8-sig"),
    "utf-16-le": ("Grüße\n日本語のテキスト\n", "utf-16-le (BOM)"),
    "utf-16-be": ("Grüße\n日本語のテキスト\n", "utf-16-be (BOM)"),
    "gbk": ("".join(f"中文文本测试，这是第{i}行。\n" for i in range(30)), "gbk"),
    "shift_jis": ("".join(f"日本語のテキストです、{i}行目。\n" for i in range(30)), "cp932"),
    "cp1252": (
        "".join(
            f"Le café est très bon à Paris, où l'été dure longtemps. Ligne {i}.\n"
            for i in range(30)
        ),
        "cp1252",
    ),
}


@pytest.mark.parametrize("codec", list(ENCODED))
def test_encodings_are_detected_and_reported(tmp_path: Path, codec: str) -> None:
    text, label = ENCODED[codec]
    boms = {"utf-16-le": codecs.BOM_UTF16_LE, "utf-16-be": codecs.BOM_UTF16_BE}
    (tmp_path / "enc.txt").write_bytes(boms.get(codec, b"") + text.encode(codec))
    outcome = read_any(engine(tmp_path), "enc.txt")
    assert outcome.kind == "text" and outcome.text is not None
    assert outcome.text.lines == text.splitlines()
    assert outcome.data()["encoding"] == label


@pytest.mark.parametrize("codec", ["gbk", "utf-16-le"])
def test_large_legacy_and_wide_files_stream(tmp_path: Path, codec: str) -> None:
    lines = [f"第{i}行：中文文本测试。" for i in range(120_000)]  # several MB: streamed
    bom = codecs.BOM_UTF16_LE if codec == "utf-16-le" else b""
    (tmp_path / "big.txt").write_bytes(bom + "\r\n".join(lines).encode(codec))
    eng = engine(tmp_path)
    s = read_lines(eng, "big.txt", 70_000, 3)
    assert s.lines == lines[69_999:70_002] and s.total_lines == len(lines)
    t = read_lines(eng, "big.txt", tail=2)
    assert t.lines == lines[-2:] and t.start == len(lines) - 1
    assert s.encoding == ("gbk" if codec == "gbk" else "utf-16-le (BOM)")


def test_a_stray_byte_is_shown_lossy_not_refused(tmp_path: Path) -> None:
    (tmp_path / "s.txt").write_bytes("Grüße\n".encode() * 50 + b"caf\xe9\n")
    s = read_lines(engine(tmp_path), "s.txt")
    assert s.lines[-1] == "caf\ufffd" and s.lossy
    assert "not valid utf-8" in format_default(s)


# -- 4. binary detection by content ----------------------------------------------------

BINARIES = {
    "nul-bytes": b"text first\x00\x00 then NULs\n" * 10,
    "elf": b"\x7fELF\x02\x01\x01\x00" + bytes(56),
    "zip": b"PK\x03\x04\x14\x00\x00\x00" + bytes(40),
    "gzip": b"\x1f\x8b\x08\x00" + bytes(20),
    "invalid-utf8": bytes(range(0x80, 0x100)) * 8,
}


@pytest.mark.parametrize("name", list(BINARIES))
def test_binary_content_is_refused_whatever_the_extension(tmp_path: Path, name: str) -> None:
    (tmp_path / "notes.txt").write_bytes(BINARIES[name])
    code, _ = failure(lambda: read_any(engine(tmp_path), "notes.txt"))
    assert code == "binary"
    result = Workspace(tmp_path).toolset("default").call("read", {"path": "notes.txt"})
    assert not result.ok and result.text == "Cannot display content of binary file: notes.txt"


def test_magic_numbers_beat_extensions(tmp_path: Path) -> None:
    (tmp_path / "picture.txt").write_bytes(png(3, 2))
    (tmp_path / "fake.png").write_text("just text\n")
    (tmp_path / "icon.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"/>\n')
    (tmp_path / "make_pdf.py").write_text('HEADER = b"%PDF-1.4"\n')
    eng = engine(tmp_path)
    assert read_any(eng, "make_pdf.py").kind == "text"
    assert read_any(eng, "picture.txt").kind == "image"
    assert read_any(eng, "fake.png").kind == "text"
    assert read_any(eng, "icon.svg").kind == "text"


# -- 5. images -------------------------------------------------------------------------


def test_png_image_with_dimensions_and_surface_blocks(tmp_path: Path) -> None:
    data = png(7, 5)
    (tmp_path / "img.png").write_bytes(data)
    outcome = read_any(engine(tmp_path), "img.png")
    img = outcome.image
    assert img is not None and outcome.kind == "image"
    assert (img.mime_type, img.width, img.height, img.size) == ("image/png", 7, 5, len(data))
    assert base64.b64decode(img.data) == data
    assert outcome.data()["images"] == [
        {"mime_type": "image/png", "data": img.data, "width": 7, "height": 5}
    ]
    assert image_block_mcp(img) == {"type": "image", "data": img.data, "mimeType": "image/png"}
    assert image_block_anthropic(img) == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": img.data},
    }
    assert inline_data_gemini(img) == {"inlineData": {"mimeType": "image/png", "data": img.data}}
    assert "7x5 pixels" in render_outcome(outcome)
    result = Workspace(tmp_path).toolset("default").call("read", {"path": "img.png"})
    assert result.ok and result.images[0]["mime_type"] == "image/png"


def test_other_image_formats_and_their_sizes() -> None:
    gif = b"GIF89a" + struct.pack("<HH", 9, 4) + b"\x80\x00\x00" + bytes(9)
    bmp = (
        b"BM"
        + struct.pack("<IHHI", 70, 0, 0, 54)
        + struct.pack("<IiiHH", 40, 6, -3, 1, 24)
        + bytes(24)
    )
    jpeg = (
        b"\xff\xd8\xff\xe0"
        + struct.pack(">H", 16)
        + b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
        + b"\xff\xc0"
        + struct.pack(">HBHHB", 17, 8, 30, 40, 3)
        + bytes(9)
        + b"\xff\xd9"
    )
    vp8x = b"RIFF" + struct.pack("<I", 22) + b"WEBPVP8X" + struct.pack("<I", 10) + bytes(4)
    vp8x += (99).to_bytes(3, "little") + (49).to_bytes(3, "little")
    vp8l = b"RIFF" + struct.pack("<I", 20) + b"WEBPVP8L" + struct.pack("<I", 5) + b"\x2f"
    vp8l += struct.pack("<I", (15 - 1) | ((8 - 1) << 14))
    from filewright.read.media import image_from_bytes

    for raw, mime, dims in [
        (gif, "image/gif", (9, 4)),
        (bmp, "image/bmp", (6, 3)),
        (jpeg, "image/jpeg", (40, 30)),
        (vp8x, "image/webp", (100, 50)),
        (vp8l, "image/webp", (15, 8)),
    ]:
        img = image_from_bytes(raw)
        assert (img.mime_type, (img.width, img.height)) == (mime, dims)
        assert image_dimensions(raw, mime) == dims


def test_image_size_cap(tmp_path: Path) -> None:
    (tmp_path / "img.png").write_bytes(png(40, 40))
    code, detail = failure(lambda: read_any(engine(tmp_path), "img.png", image_max_bytes=100))
    assert code == "too_large" and "over the 100 B limit" in str(detail["message"])


# -- 6. PDF ----------------------------------------------------------------------------


def test_pdf_text_page_by_page_with_ranges(tmp_path: Path) -> None:
    (tmp_path / "doc.pdf").write_bytes(
        pdf(["First page text", "Second page text", "Third page text"])
    )
    eng = engine(tmp_path)
    outcome = read_any(eng, "doc.pdf")
    assert outcome.kind == "pdf" and outcome.pdf is not None and outcome.pdf.page_count == 3
    text = render_outcome(outcome)
    assert "--- Page 1 ---\nFirst page text" in text and "--- Page 3 ---\nThird page text" in text
    two = render_outcome(read_any(eng, "doc.pdf", pages="2"))
    assert "Second page text" in two and "First page" not in two
    some = read_any(eng, "doc.pdf", pages="1,3")
    assert some.data()["pages"] == [1, 3]
    assert read_any(eng, "doc.pdf", pages="2-").data()["pages"] == [2, 3]
    assert failure(lambda: read_any(eng, "doc.pdf", pages="2-9"))[0] == "page_out_of_range"
    assert failure(lambda: read_any(eng, "doc.pdf", pages="zero"))[0] == "invalid"
    assert parse_pages("2,4-6", 10) == [2, 4, 5, 6]
    first = read_any(eng, "doc.pdf", pdf_max_pages=2)
    assert "pages='3-3'" in render_outcome(first)
    inline = pdf_inline(eng, "doc.pdf")["inlineData"]
    assert inline["mimeType"] == "application/pdf"
    assert base64.b64decode(inline["data"]) == (tmp_path / "doc.pdf").read_bytes()


def test_pdf_without_text_encrypted_and_corrupt(tmp_path: Path) -> None:
    from pypdf import PdfReader, PdfWriter

    blank = PdfWriter()
    blank.add_blank_page(200, 200)
    buf = io.BytesIO()
    blank.write(buf)
    (tmp_path / "scan.pdf").write_bytes(buf.getvalue())
    locked = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf(["secret text"]))))
    locked.encrypt("password", algorithm="RC4-128")
    buf = io.BytesIO()
    locked.write(buf)
    (tmp_path / "locked.pdf").write_bytes(buf.getvalue())
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog\n")
    eng = engine(tmp_path)
    assert "no extractable text" in render_outcome(read_any(eng, "scan.pdf"))
    assert read_any(eng, "scan.pdf").data()["has_text"] is False
    code, detail = failure(lambda: read_any(eng, "locked.pdf"))
    assert code == "encrypted" and "password" in str(detail["message"])
    assert failure(lambda: read_any(eng, "broken.pdf"))[0] == "corrupt"
    result = Workspace(tmp_path).toolset("default").call("read", {"path": "locked.pdf"})
    assert not result.ok and result.data["error"] == "encrypted"
    assert result.text.startswith("Cannot read locked.pdf: the PDF is encrypted")


# -- 7. notebooks ----------------------------------------------------------------------


def test_notebook_cells_outputs_and_images_noted(tmp_path: Path) -> None:
    raw = json.dumps(NOTEBOOK, indent=1).encode()
    (tmp_path / "nb.ipynb").write_bytes(raw)
    eng = engine(tmp_path)
    outcome = read_any(eng, "nb.ipynb")
    text = render_outcome(outcome)
    assert outcome.kind == "notebook" and outcome.cells == 4
    assert text.startswith("Jupyter Notebook (Python 3)")
    assert (
        text.index("[Cell 1] Type: markdown")
        < text.index("# Title")
        < text.index("[Cell 2] Type: code")
    )
    assert "print('hello')\n1 + 1" in text and "Output:\nhello\n2" in text
    assert "[image/png output omitted]" in text and "<Figure>" in text
    assert "iVBOR" not in text  # the image itself is not dumped
    assert "ZeroDivisionError: division by zero" in text and "\x1b" not in text
    loc, _ = eng.locate("nb.ipynb")
    assert eng.last_read(loc) == hashlib.sha256(raw).hexdigest()
    cut = read_any(eng, "nb.ipynb", max_output_chars=60)
    assert "Output limit of 60 characters" in render_outcome(cut)


def test_malformed_notebook_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "bad.ipynb").write_text('{"cells": [ {"cell_type": "code",, } ] }')
    code, detail = failure(lambda: read_any(engine(tmp_path), "bad.ipynb"))
    assert code == "invalid_notebook" and "not valid JSON" in str(detail["message"])


# -- 8. directories and missing files --------------------------------------------------


def test_directory_and_missing_file(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    eng = engine(tmp_path)
    assert failure(lambda: read_any(eng, "sub"))[0] == "is_directory"
    assert failure(lambda: read_lines(eng, "sub"))[0] == "is_directory"
    assert failure(lambda: read_any(eng, "missing.txt"))[0] == "not_found"
    result = Workspace(tmp_path).toolset("default").call("read", {"path": "sub"})
    assert not result.ok and result.data["error"] == "is_directory"


def test_default_toolset_read_words_text(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("".join(f"l{i}\n" for i in range(1, 11)))
    result = (
        Workspace(tmp_path)
        .toolset("default")
        .call("read", {"path": "a.txt", "offset": 3, "limit": 2})
    )
    assert result.ok
    assert result.text == "3\tl3\n4\tl4\n\n[Showing lines 3-4 of 10. Use offset=5 to read more.]"
    assert result.data["total_lines"] == 10 and result.data["encoding"] == "utf-8"
    assert result.data["hash"] == hashlib.sha256((tmp_path / "a.txt").read_bytes()).hexdigest()


def test_text_slice_is_pure_data() -> None:
    s = TextSlice(["a", "b"], 9, 10, 12, truncated=True, truncated_by="limit")
    assert format_numbered(s) == " 9\ta\n10\tb"
    assert format_claude(s).endswith("[Showing lines 9-10 of 12. Use offset=11 to read more.]")
