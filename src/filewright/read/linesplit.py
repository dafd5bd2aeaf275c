"""Lines of a text as a model is shown them: decoded, cut at a length, and those of a
small text held in memory split off in one step. Pure: bytes in, lines out.

`decode_lines` decodes and cuts the lines `textread` takes from a file (strictly first,
else with U+FFFD), each cut line marked with `CUT_MARKER`. `utf8_range` and `bytes_range`
give a range of a small text's lines in one step: a UTF-8 text with LF breaks only is
decoded whole and split as text (issue 32: a 40-line file's lines in a fifth of the
instructions of splitting and decoding them one by one); any other as bytes
(`memorylines.all_lines`), then decoded and cut line by line. Both give what
`textread`'s walkers give (tests/test_textread.py, tests/test_read_fastpaths.py).
"""

from __future__ import annotations

import codecs
from typing import Any

from filewright.core.result import OperationFailed, fail
from filewright.read.linestream import MAX_CHAR_BYTES, Encoding, decode_bytes
from filewright.read.memorylines import all_lines

CUT_MARKER = " ... [truncated]"


def keep_units(bytewise: bool, max_line_chars: int) -> int:
    """What is kept of a line before it is decoded and cut: enough bytes (or characters,
    for a text scanned as text) for `max_line_chars` characters and one more."""
    return (max_line_chars + 1) * (MAX_CHAR_BYTES if bytewise else 1)


def decode_line(raw: Any, enc: Encoding, complete: bool) -> tuple[str, bool]:
    """A line's text and whether bytes were replaced; an incomplete (cut) line drops a
    character its end splits."""
    if isinstance(raw, str):
        return raw, False
    if complete:
        return decode_bytes(raw, enc)
    try:  # a cut line may end inside a character: drop the partial one
        return codecs.getincrementaldecoder(enc.codec)().decode(raw, final=False), False
    except UnicodeDecodeError:
        return raw.decode(enc.codec, errors="replace"), True


def cut_text(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, marked."""
    return text[: max(limit, 0)] + CUT_MARKER


def decode_lines(
    enc: Encoding, raws: list[bytes], longer: list[int], max_line_chars: int
) -> tuple[list[str], list[int], int]:
    """Lines decoded and cut as `textread`'s walk does one by one: (texts, indexes of the cut
    ones, index of the first that did not decode cleanly or len(raws))."""
    texts: list[str] | None = None
    cut_set = set(longer)
    if not longer:
        try:  # strict, as `decode_bytes` tries first
            if enc.codec == "utf-8":
                texts = list(map(bytes.decode, raws))
            else:
                texts = [raw.decode(enc.codec) for raw in raws]
        except UnicodeDecodeError:
            pass
    lossy_at = len(raws)
    if texts is None:
        decoded = [decode_line(raw, enc, k not in cut_set) for k, raw in enumerate(raws)]
        texts = [text for text, _lossy in decoded]
        lossy_at = next((k for k, (_text, lossy) in enumerate(decoded) if lossy), lossy_at)
    if not longer and max(map(len, texts), default=0) <= max_line_chars:
        return texts, [], lossy_at
    cuts = [k for k, text in enumerate(texts) if k in cut_set or len(text) > max_line_chars]
    for k in cuts:
        texts[k] = cut_text(texts[k], max_line_chars)
    return texts, cuts, lossy_at


# What `textread._split_range` takes from its two ways of splitting: the lines shown, the indexes of
# those cut, the index of the first that did not decode cleanly (or how many there are),
# the text's number of lines, and at least as many characters as the lines shown have
# (None: not known).
Range = tuple[list[str], list[int], int, int, int | None]


def utf8_range(
    data: bytes, base: int, first: int, limit: int | None, max_line_chars: int, path: str
) -> Range | None:
    """The lines from index `first` of a UTF-8 text with LF breaks only, decoded whole;
    None for any other text, or when a line shown is longer than `max_line_chars`."""
    every = utf8_lines(data, base)
    if every is None:
        return None
    total = len(every)
    if first and first >= total:
        raise past_the_end(path, first + 1, total)
    lines = every[first:] if limit is None else every[first : first + limit]
    chars = len(data)  # (decoded strictly from UTF-8: no more characters than bytes)
    if chars > max_line_chars and lines and max(map(len, lines)) > max_line_chars:
        return None  # (some are cut: as bytes)
    return lines, [], len(lines), total, chars


def bytes_range(
    data: bytes,
    base: int,
    enc: Encoding,
    bytewise: bool,
    first: int,
    limit: int | None,
    max_line_chars: int,
    path: str,
) -> Range:
    """The lines from index `first`, split as bytes (`memorylines.all_lines`), then decoded
    and cut as `textread` does them."""
    every = all_lines(data, base)
    total = len(every)
    if first and first >= total:
        raise past_the_end(path, first + 1, total)
    raws = every[first:] if limit is None else every[first : first + limit]
    keep = keep_units(bytewise, max_line_chars)
    longer = []
    if raws and max(map(len, raws)) > keep:
        longer = [k for k, raw in enumerate(raws) if len(raw) > keep]
    for k in longer:
        raws[k] = raws[k][:keep]
    lines, cuts, lossy_at = decode_lines(enc, raws, longer, max_line_chars)
    return lines, cuts, lossy_at, total, None


def utf8_lines(data: bytes, base: int) -> list[str] | None:
    """Every line of data[base:] decoded, when it is UTF-8 with LF breaks only: the text
    decoded whole and split at "\n" (the lines `all_lines` gives, each decoded: in UTF-8 no
    character holds the byte 0x0A). None for a text with a CR or bytes that do not decode."""
    body = data[base:] if base else data
    if b"\r" in body:
        return None
    try:
        lines = body.decode("utf-8").split("\n")
    except UnicodeDecodeError:
        return None
    if not lines[-1]:  # (after a final break, or an empty text: no line there)
        lines.pop()
    return lines


def past_the_end(path: str, start: int, total: int) -> OperationFailed:
    """The failure of a read that starts past the text's last line."""
    return fail(
        "line_out_of_range",
        path,
        line=start,
        lines=total,
        message=f"line {start} is past the end of the file ({total} lines)",
    )
