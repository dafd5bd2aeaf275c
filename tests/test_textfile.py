"""Lossless text files: every untouched byte survives an edit, in every encoding and
newline style; binary, undecodable and unencodable cases are refused untouched.

Expected bytes are always built independently of filewright: the file is assembled from
(line, ending) pairs encoded with Python's own codecs, and the expectation is the same
assembly with just the edited span replaced.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from filewright.engine.pipeline import Change, apply_change
from filewright.engine.workspace import Workspace
from filewright.fs.textencode import encode
from filewright.fs.textfile import (
    TextFileError,
    decode,
    detect_bom,
    looks_binary,
    normalise_newlines,
    split_eols,
)
from filewright.tools.base import Toolset

# -- the matrix ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Enc:
    name: str
    codec: str  # Python codec for the body (without BOM)
    bom: bytes
    lines: tuple[str, ...]  # six lines of realistic text
    new_line: str  # replaces line 2 (0-based)
    old_word: str  # a unique substring of line 4 ...
    new_word: str  # ... and what an edit puts there


ENCODINGS = [
    Enc(
        "utf-8",
        "utf-8",
        b"",
        (
            "# Notizen — café, naïve, Grüße",
            "中文：你好，世界。日本語：こんにちは。",
            "emoji: 🎉 and a combining é (e\u0301)",
            "form\x0cfeed, vertical\x0btab, line\u2028separator and next\x85line stay in-line",
            "Ελληνικά: καλημέρα κόσμε; русский: привет, мир",
            "\tindented with a tab, trailing spaces   ",
        ),
        "replaced: Ünïcödé ✓ 🚀",
        "καλημέρα",
        "γειά σου",
    ),
    Enc(
        "utf-8-bom",
        "utf-8",
        codecs.BOM_UTF8,
        (
            "Zeile eins: Grüße aus München",
            "Ligne deux : café crème, à bientôt",
            "三行目：日本語のテキスト",
            "Línea cuatro: año, señor, ¿qué tal?",
            "Rad fem: smörgåsbord och blåbär",
            "last line ✓",
        ),
        "neue Zeile: Äpfel, Öl, Übermut — ß",
        "smörgåsbord",
        "kanelbulle",
    ),
    Enc(
        "utf-16-le-bom",
        "utf-16-le",
        codecs.BOM_UTF16_LE,
        (
            "[Settings]",
            "Name=Größe und Gewicht",
            "Title=日本語のタイトル",
            "Emoji=🎉🎊",
            "Path=C:\\Users\\Zoë\\Documents",
            "End=✓",
        ),
        "Name=Fläche 面积 🚀",
        "Zoë",
        "Chloé",
    ),
    Enc(
        "utf-16-be-bom",
        "utf-16-be",
        codecs.BOM_UTF16_BE,
        (
            "Première ligne",
            "Вторая строка",
            "第三行",
            "Τέταρτη γραμμή",
            "Fünfte Zeile mit Umlauten: äöü",
            "𝄞 musical symbol (outside the BMP)",
        ),
        "Новая строка — 新的一行",
        "Umlauten",
        "Sonderzeichen",
    ),
    Enc(
        "gbk",
        "gbk",
        b"",
        (
            "第一行：你好，世界。",
            "第二行：这是一个测试文件，用来检查编码。",
            "第三行：中文文本内容较多，以便检测。",
            "第四行：编码为国标码（GBK）。",
            "第五行：春眠不觉晓，处处闻啼鸟。",
            "第六行：夜来风雨声，花落知多少。",
        ),
        "替换的一行：床前明月光，疑是地上霜。",
        "春眠不觉晓",
        "举头望明月",
    ),
    Enc(
        "shift_jis",
        "shift_jis",
        b"",
        (
            "一行目：こんにちは、世界。",
            "二行目：これはテストファイルです。",
            "三行目：日本語のテキストです。",
            "四行目：文字コードはシフトJISです。",
            "五行目：古池や蛙飛び込む水の音",
            "六行目：おわり",
        ),
        "置き換えた行：吾輩は猫である。名前はまだ無い。",
        "古池や",
        "静けさや",
    ),
    Enc(
        "cp1252",
        "cp1252",
        b"",
        (
            "Première ligne : café crème.",
            "Deuxième ligne : naïve façade, “quotes” – dash … €5.",
            "Troisième ligne : à bientôt, garçon.",
            "Vierte Zeile: Grüße aus München, Straße.",
            "Quinta línea: año, señor, ¿qué tal?",
            "Sjätte raden: smörgåsbord.",
        ),
        "Ligne remplacée : œuvre, ‘élan’ — Noël ™",
        "señor",
        "niño",
    ),
    Enc(
        "latin-1",
        "latin-1",
        b"",
        (
            "Première ligne : café crème.",
            "Deuxième ligne : naïve façade.",
            "Troisième ligne : à bientôt, garçon.",
            "Vierte Zeile: Grüße aus München, Straße.",
            "Quinta línea: año, señor, ¿qué tal?",
            "Sjätte raden: smörgåsbord, 3 × 4 ÷ 2 ± 1 °C.",
        ),
        "Ligne remplacée : déjà vu, Ørsted, þorn",
        "qué tal",
        "Å ø",
    ),
]

CR, LF, CRLF = "\r", "\n", "\r\n"
# Each style gives the endings of the six lines ("" = no newline at the end).
STYLES: dict[str, tuple[str, ...]] = {
    "lf": (LF,) * 6,
    "crlf": (CRLF,) * 6,
    "cr": (CR,) * 6,
    # In the mixed styles the edited lines (2 and 4) have a minority ending, which an
    # in-place edit must keep.
    "mixed-crlf-dominant": (CRLF, CRLF, LF, CRLF, LF, CRLF),
    "mixed-lf-dominant": (LF, LF, CRLF, LF, CR, LF),
    "lf-no-trailing": (LF,) * 5 + ("",),
    "crlf-no-trailing": (CRLF,) * 5 + ("",),
}


def dominant(eols: tuple[str, ...]) -> str:
    counts = {e: eols.count(e) for e in set(eols) if e}
    best = max(counts.values())
    return LF if counts.get(LF) == best else next(e for e, n in counts.items() if n == best)


def assemble(enc: Enc, lines: list[str], eols: list[str]) -> bytes:
    return enc.bom + b"".join(
        (line + eol).encode(enc.codec) for line, eol in zip(lines, eols, strict=True)
    )


@dataclass
class Case:
    enc: Enc
    style: str
    path: Path
    tools: Toolset

    @property
    def eols(self) -> list[str]:
        return list(STYLES[self.style])

    @property
    def lines(self) -> list[str]:
        return list(self.enc.lines)

    @property
    def original(self) -> bytes:
        return assemble(self.enc, self.lines, self.eols)


MATRIX = [(e, s) for e in ENCODINGS for s in STYLES]
MATRIX_IDS = [f"{e.name}-{s}" for e, s in MATRIX]


@pytest.fixture(params=MATRIX, ids=MATRIX_IDS)
def case(request: pytest.FixtureRequest, tmp_path: Path) -> Case:
    enc, style = request.param
    path = tmp_path / "doc.txt"
    c = Case(enc, style, path, Workspace(tmp_path).toolset("default"))
    path.write_bytes(c.original)
    return c


def _replace_line(index: int, new: str) -> Callable[[str | None], str]:
    def compute(old: str | None) -> str:
        assert old is not None
        lines = old.split("\n")
        lines[index] = new
        return "\n".join(lines)

    return compute


def test_decode_encode_is_identity(case: Case) -> None:
    tf = decode(case.original)
    assert tf.text == "\n".join(case.lines) + ("\n" if case.eols[-1] else "")
    assert tf.bom == case.enc.bom
    assert encode(tf, tf.text) == case.original
    assert tf.trailing_newline == bool(case.eols[-1])


def test_replace_one_line_through_the_pipeline(case: Case) -> None:
    outcome = apply_change(
        case.tools.engine, Change("doc.txt", "edit", _replace_line(2, case.enc.new_line))
    )
    assert outcome.ok, outcome.failure
    lines = case.lines
    lines[2] = case.enc.new_line
    assert case.path.read_bytes() == assemble(case.enc, lines, case.eols)


def test_edit_one_word_through_the_toolset(case: Case) -> None:
    assert case.tools.call("read", {"path": "doc.txt"}).ok
    result = case.tools.call(
        "edit",
        {"path": "doc.txt", "old_string": case.enc.old_word, "new_string": case.enc.new_word},
    )
    assert result.ok, result.text
    lines = case.lines
    assert lines[4].count(case.enc.old_word) == 1
    lines[4] = lines[4].replace(case.enc.old_word, case.enc.new_word)
    assert case.path.read_bytes() == assemble(case.enc, lines, case.eols)


def test_write_modified_text_through_the_toolset(case: Case) -> None:
    read = case.tools.call("read", {"path": "doc.txt"})
    assert read.ok, read.text
    text = decode(case.original).text
    lines = text.split("\n")
    lines[2] = case.enc.new_line
    result = case.tools.call("write", {"path": "doc.txt", "content": "\n".join(lines)})
    assert result.ok, result.text
    expected_lines = case.lines
    expected_lines[2] = case.enc.new_line
    assert case.path.read_bytes() == assemble(case.enc, expected_lines, case.eols)


def test_append_a_line_through_the_toolset(case: Case) -> None:
    added = case.enc.new_line
    content = ("" if case.eols[-1] else "\n") + added + "\n"
    result = case.tools.call("append", {"path": "doc.txt", "content": content})
    assert result.ok, result.text
    eols = case.eols
    dom = dominant(STYLES[case.style])
    if not eols[-1]:
        eols[-1] = dom
    expected = assemble(case.enc, [*case.lines, added], [*eols, dom])
    assert case.path.read_bytes() == expected


# -- newline behaviour -----------------------------------------------------------------------


def _tools(tmp_path: Path) -> Toolset:
    return Workspace(tmp_path).toolset("default")


def test_lf_text_into_a_crlf_file_comes_out_crlf(tmp_path: Path) -> None:
    path = tmp_path / "win.txt"
    path.write_bytes(b"one\r\ntwo\r\nthree\r\n")
    tools = _tools(tmp_path)
    assert tools.call("write", {"path": "win.txt", "content": "one\nTWO\nthree\nfour\n"}).ok
    assert path.read_bytes() == b"one\r\nTWO\r\nthree\r\nfour\r\n"
    assert tools.call("append", {"path": "win.txt", "content": "five\nsix\n"}).ok
    assert path.read_bytes() == b"one\r\nTWO\r\nthree\r\nfour\r\nfive\r\nsix\r\n"
    assert tools.call("read", {"path": "win.txt"}).ok
    result = tools.call(
        "edit", {"path": "win.txt", "old_string": "TWO\nthree", "new_string": "2\n3\n3.5"}
    )
    assert result.ok, result.text
    assert path.read_bytes() == b"one\r\n2\r\n3\r\n3.5\r\nfour\r\nfive\r\nsix\r\n"


def test_crlf_text_into_an_lf_file_comes_out_lf(tmp_path: Path) -> None:
    path = tmp_path / "unix.txt"
    path.write_bytes(b"one\ntwo\n")
    assert (
        _tools(tmp_path)
        .call("write", {"path": "unix.txt", "content": "one\r\ntwo\r\nthree\r\n"})
        .ok
    )
    assert path.read_bytes() == b"one\ntwo\nthree\n"


@pytest.mark.parametrize(
    ("eols", "dom"),
    [((CRLF, LF, CRLF, CRLF, LF), CRLF), ((LF, CRLF, LF, LF, CR), LF)],
    ids=["crlf-dominant", "lf-dominant"],
)
def test_mixed_file_keeps_untouched_endings_and_new_lines_get_the_dominant(
    tmp_path: Path, eols: tuple[str, ...], dom: str
) -> None:
    lines = ["alpha", "beta", "gamma", "delta", "epsilon"]
    path = tmp_path / "mixed.txt"
    path.write_bytes("".join(a + b for a, b in zip(lines, eols, strict=True)).encode())
    new_lines = [
        "alpha",
        "beta",
        "inserted 1",
        "inserted 2",
        "gamma",
        "delta",
        "EPSILON",
        "new end",
    ]
    result = _tools(tmp_path).call(
        "write", {"path": "mixed.txt", "content": "\n".join(new_lines) + "\n"}
    )
    assert result.ok, result.text
    expected_eols = [eols[0], eols[1], dom, dom, eols[2], eols[3], eols[4], dom]
    expected = "".join(a + b for a, b in zip(new_lines, expected_eols, strict=True)).encode()
    assert path.read_bytes() == expected


def test_split_eols_and_normalise() -> None:
    assert split_eols("a\r\nb\rc\nd") == ("a\nb\nc\nd", ("\r\n", "\r", "\n", ""))
    assert split_eols("") == ("", ("",))
    assert split_eols("x\n") == ("x\n", ("\n",))
    assert normalise_newlines("a\r\nb\rc\n") == "a\nb\nc\n"
    assert normalise_newlines("a\u2028b\x85c\x0cd") == "a\u2028b\x85c\x0cd"


# -- properties ------------------------------------------------------------------------------

UNICODE_BOMS = {
    "utf-8": ("utf-8", b""),
    "utf-8-bom": ("utf-8", codecs.BOM_UTF8),
    "utf-16-le-bom": ("utf-16-le", codecs.BOM_UTF16_LE),
    "utf-16-be-bom": ("utf-16-be", codecs.BOM_UTF16_BE),
}
LINE = st.text(
    st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\ufeff"), max_size=12
)


def _raw(codec: str, bom: bytes, pairs: list[tuple[str, str]]) -> bytes:
    return bom + "".join(line + eol for line, eol in pairs).encode(codec)


@settings(max_examples=150, derandomize=True, deadline=None)
@given(
    enc=st.sampled_from(sorted(UNICODE_BOMS)),
    pairs=st.lists(st.tuples(LINE, st.sampled_from([LF, CRLF, CR])), min_size=0, max_size=10),
    last=LINE,
)
def test_property_decode_encode_is_identity(
    enc: str, pairs: list[tuple[str, str]], last: str
) -> None:
    codec, bom = UNICODE_BOMS[enc]
    data = _raw(codec, bom, [*pairs, (last, "")])
    tf = decode(data)
    assert encode(tf, tf.text) == data


@settings(max_examples=300, derandomize=True, deadline=None)
@given(
    pairs=st.lists(st.tuples(st.sampled_from(["", "a", "b"]), st.sampled_from([LF, CRLF, CR]))),
    last=st.sampled_from(["", "a"]),
    new_lines=st.lists(st.sampled_from(["", "a", "b", "c"]), min_size=1, max_size=12),
)
def test_property_encode_never_merges_or_splits_lines(
    pairs: list[tuple[str, str]], last: str, new_lines: list[str]
) -> None:
    """Whatever endings the old file had, the new text reads back line for line (a kept
    lone CR followed by an LF must not turn into one CRLF)."""
    tf = decode(_raw("utf-8", b"", [*pairs, (last, "")]))
    new_text = "\n".join(new_lines)
    written = encode(tf, new_text).decode("utf-8")
    assert split_eols(written)[0] == new_text


@settings(max_examples=150, derandomize=True, deadline=None)
@given(
    enc=st.sampled_from(sorted(UNICODE_BOMS)),
    pairs=st.lists(st.tuples(LINE, st.sampled_from([LF, CRLF])), min_size=1, max_size=10),
    trailing=st.booleans(),
    data=st.data(),
)
def test_property_one_line_edit_changes_only_that_line(
    enc: str, pairs: list[tuple[str, str]], trailing: bool, data: st.DataObject
) -> None:
    codec, bom = UNICODE_BOMS[enc]
    if not trailing:
        pairs[-1] = (pairs[-1][0], "")
    original = _raw(codec, bom, pairs)
    index = data.draw(st.integers(0, len(pairs) - 1), label="index")
    new_line = data.draw(LINE, label="new_line")
    tf = decode(original)
    lines = tf.text.split("\n")
    lines[index] = new_line
    expected = list(pairs)
    expected[index] = (new_line, pairs[index][1])
    assert encode(tf, "\n".join(lines)) == _raw(codec, bom, expected)


# -- refusals --------------------------------------------------------------------------------

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"


def _state(path: Path) -> tuple[bytes, int, int]:
    st = path.stat()
    return path.read_bytes(), st.st_mtime_ns, st.st_ino


BINARIES = {
    "nul-bytes": b"text at first\x00\x00\x00 then NULs\n" * 4,
    "png": PNG + bytes(range(256)),
    "elf": b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 56,
    "controls": bytes([1, 2, 3, 4, 5, 6, 7, 8, 14, 15, 16]) * 20 + b"abc",
}


@pytest.mark.parametrize("data", list(BINARIES.values()), ids=list(BINARIES))
def test_binary_file_is_refused_for_text_operations(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "blob.bin"
    path.write_bytes(data)
    before = _state(path)
    assert looks_binary(data)
    with pytest.raises(TextFileError) as info:
        decode(data)
    assert info.value.code == "binary"
    tools = _tools(tmp_path)
    # (Reads are the toolset's business: it may describe an image or show a lossy view.)
    for tool, args in [
        ("edit", {"old_string": "text", "new_string": "TEXT"}),
        ("append", {"content": "more\n"}),
    ]:
        result = tools.call(tool, {"path": "blob.bin", **args})
        assert not result.ok, tool
        assert result.data["error"] == "binary", result.data
        assert "binary" in result.text.lower(), result.text
    assert _state(path) == before


UNDECODABLE = {
    # UTF-8 with one stray Latin-1 byte: a legacy code page would "decode" it losslessly,
    # but only as mojibake of the UTF-8 parts, and a write would mix two encodings.
    "utf8-with-stray-byte": "Grüße aus München — naïve café\n".encode() + b"caf\xe9 au lait\n",
    "utf8-truncated-sequence": "日本語のテキスト\n".encode() * 3 + b"\xe6\x97\n",
    "bom-then-invalid-utf8": codecs.BOM_UTF8 + b"valid start\n\xff\xfe\xfd invalid\n",
    "utf16-odd-length": codecs.BOM_UTF16_LE + "text".encode("utf-16-le") + b"\x41",
    "utf16-lone-surrogate": codecs.BOM_UTF16_LE + "ok".encode("utf-16-le") + b"\x00\xd8\x41\x00",
}


@pytest.mark.parametrize("data", list(UNDECODABLE.values()), ids=list(UNDECODABLE))
def test_undecodable_file_is_refused_and_untouched(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "broken.txt"
    path.write_bytes(data)
    before = _state(path)
    with pytest.raises(TextFileError) as info:
        decode(data)
    assert info.value.code == "undecodable"
    tools = _tools(tmp_path)
    for tool, args in [
        ("edit", {"old_string": "caf", "new_string": "CAF"}),
        ("append", {"content": "more\n"}),
    ]:
        result = tools.call(tool, {"path": "broken.txt", **args})
        assert not result.ok, tool
        assert result.data["error"] == "undecodable", result.data
        text = result.text.lower()
        assert "decod" in text or "invalid" in text, result.text
    assert _state(path) == before


def test_stray_byte_message_says_where(tmp_path: Path) -> None:
    data = "naïve façade\n".encode() + b"caf\xe9\n"
    with pytest.raises(TextFileError) as info:
        decode(data)
    assert "offset 18" in str(info.value)
    assert "0xe9" in str(info.value)


@pytest.mark.parametrize(
    ("codec", "text", "bad"),
    [
        (
            "gbk",
            "第一行：你好，世界。\n第二行：这是一个测试文件，用来检查编码。\n第三行：编码为国标码。\n",
            "🎉",
        ),
        (
            "shift_jis",
            "一行目：こんにちは、世界。\n二行目：これはテストファイルです。\n三行目：日本語です。\n",
            "🎉",
        ),
        (
            "cp1252",
            "Première ligne : café crème.\nDeuxième ligne : naïve façade.\nVierte Zeile: Grüße.\n",
            "日本",
        ),
    ],
    ids=["emoji-into-gbk", "emoji-into-shift-jis", "cjk-into-cp1252"],
)
def test_unencodable_text_is_refused_and_the_file_untouched(
    tmp_path: Path, codec: str, text: str, bad: str
) -> None:
    path = tmp_path / "legacy.txt"
    path.write_bytes(text.encode(codec))
    before = _state(path)
    tools = _tools(tmp_path)
    assert tools.call("read", {"path": "legacy.txt"}).ok
    first_line = text.split("\n")[0]
    for tool, args in [
        ("edit", {"old_string": first_line, "new_string": f"{first_line} {bad}"}),
        ("append", {"content": f"new {bad}\n"}),
        ("write", {"content": f"{text}{bad}\n"}),
    ]:
        result = tools.call(tool, {"path": "legacy.txt", **args})
        assert not result.ok, (tool, result.text)
        assert result.data["error"] == "unencodable", result.data
        assert bad[0] in result.text or "encod" in result.text.lower(), result.text
    assert _state(path) == before


@pytest.mark.parametrize(
    ("codec", "text"),
    [
        ("gbk", "# 中文注释\nprint('hello')\n"),
        ("gbk", "x = 1  # 国\n"),
        ("shift_jis", "# ｶﾀｶﾅ と ひらがな\n"),
        ("cp1252", "À« bientôt »\n"),
    ],
)
def test_short_legacy_text_is_not_mistaken_for_broken_utf8(codec: str, text: str) -> None:
    data = text.encode(codec)
    tf = decode(data)
    assert encode(tf, tf.text) == data


@pytest.mark.parametrize(
    "text",
    [
        "It’s done.\n",
        "Price: 5 €\n",
        "# naïve approach\nx = 1\n",
        "Copyright © 2024\n",
        "für dich\n",
    ],
)
def test_mostly_ascii_windows_text_is_cp1252(text: str) -> None:
    """A lone smart quote or accent in ASCII text is the commonest legacy file there is."""
    tf = decode(text.encode("cp1252"))
    assert tf.encoding == "cp1252"
    assert tf.text == text


def test_gbk_file_is_not_silently_promoted_to_gb18030() -> None:
    data = "第一行：你好，世界。\n第二行：这是一个测试文件。\n第三行：中文文本内容较多，以便检测。\n".encode(
        "gbk"
    )
    tf = decode(data)
    assert codecs.lookup(tf.encoding).name == "gbk"
    with pytest.raises(TextFileError) as info:
        encode(tf, tf.text + "🎉\n")
    assert info.value.code == "unencodable"


def test_detect_bom() -> None:
    assert detect_bom(codecs.BOM_UTF8 + b"x") == (codecs.BOM_UTF8, "utf-8")
    assert detect_bom(codecs.BOM_UTF16_LE + b"x\x00") == (codecs.BOM_UTF16_LE, "utf-16-le")
    assert detect_bom(codecs.BOM_UTF16_BE + b"\x00x") == (codecs.BOM_UTF16_BE, "utf-16-be")
    assert detect_bom(b"plain") is None


# -- modes -----------------------------------------------------------------------------------


@contextlib.contextmanager
def _umask(mask: int) -> Iterator[None]:
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


@pytest.mark.parametrize("mode", [0o640, 0o755, 0o600])  # 0o444: tests/test_read_only.py
def test_mode_bits_are_preserved(tmp_path: Path, mode: int) -> None:
    path = tmp_path / "script.sh"
    path.write_bytes(b"#!/bin/sh\necho hi\n")
    path.chmod(mode)
    tools = _tools(tmp_path)
    assert tools.call("read", {"path": "script.sh"}).ok
    result = tools.call(
        "edit", {"path": "script.sh", "old_string": "echo hi", "new_string": "echo bye"}
    )
    assert result.ok, result.text
    assert tools.call("append", {"path": "script.sh", "content": "exit 0\n"}).ok
    assert path.read_bytes() == b"#!/bin/sh\necho bye\nexit 0\n"
    assert stat.S_IMODE(path.stat().st_mode) == mode


@pytest.mark.parametrize("mask", [0o022, 0o027, 0o077, 0o002])
def test_new_file_gets_0666_minus_umask(tmp_path: Path, mask: int) -> None:
    tools = _tools(tmp_path)
    with _umask(mask):
        assert tools.call("write", {"path": f"new-{mask:o}.txt", "content": "x\n"}).ok
        assert tools.call("append", {"path": f"sub/app-{mask:o}.txt", "content": "x\n"}).ok
    assert stat.S_IMODE((tmp_path / f"new-{mask:o}.txt").stat().st_mode) == 0o666 & ~mask
    assert stat.S_IMODE((tmp_path / "sub" / f"app-{mask:o}.txt").stat().st_mode) == 0o666 & ~mask


@settings(max_examples=500, deadline=None)
@given(
    old=st.lists(st.sampled_from(["a", "b", "", "\r", "\n", "\r\n"]), max_size=12).map("".join),
    new=st.lists(st.sampled_from(["a", "b", "", "\r", "\n", "\r\n"]), max_size=12).map("".join),
)
def test_rewritten_text_reads_back_as_written(old: str, new: str) -> None:
    """Whatever mix of endings the old file has, the new text reads back line for line:
    restoring endings never merges two line breaks into one or splits one."""
    before = decode(old.encode("utf-8"))
    again = decode(encode(before, new))
    assert again.text == normalise_newlines(new)
