"""Text files as bytes plus everything needed to write them back unchanged.

`decode` turns a file's bytes into a `TextFile`: text with newlines normalised to "\\n",
plus the encoding, BOM, each line's original ending and a content hash. `fs.textencode`
turns new text back into bytes in the same encoding, BOM and newline style, so every line
an edit did not touch is written back byte for byte. Both are pure.
"""

from __future__ import annotations

import codecs
import hashlib
import re

from filewright.core import inline
from filewright.core.record import Frozen
from filewright.fs.cjk import guess_cjk

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_EOL = re.compile(r"\r\n|\r|\n")
_SNIFF_BYTES = 8192
# Control characters that never occur in real text files (tab, LF, VT, FF, CR, ESC do).
_BINARY_CONTROL_BYTES = bytes(sorted(set(range(32)) - {9, 10, 11, 12, 13, 27}))


class TextFileError(Exception):
    """The bytes cannot be handled as text. `code`: binary | undecodable | unencodable."""

    def __init__(self, code: str, detail: str) -> None:
        self.code = code
        self.detail = detail
        super().__init__(detail)


def content_hash(data: bytes) -> str:
    """The content hash used everywhere (read ledger, stale checks): sha256 hex."""
    return hashlib.sha256(data).hexdigest()


class TextFile(Frozen):
    """A decoded text file. `text` always uses "\\n"; `eols` holds each line's real ending."""

    _fields = ("raw", "text", "encoding", "bom", "newline", "eols", "hash", "confidence")
    __slots__ = _fields
    _unshown = frozenset({"eols"})
    raw: bytes
    text: str
    encoding: str
    bom: bytes
    newline: str
    eols: tuple[str, ...]
    hash: str
    confidence: float  # how sure the encoding detection is (1.0: BOM, UTF-8, ASCII)

    def __init__(
        self,
        raw: bytes,
        text: str,
        encoding: str,
        bom: bytes,
        newline: str,
        eols: tuple[str, ...],
        hash: str,
        confidence: float = 1.0,
    ) -> None:
        self._set(raw, text, encoding, bom, newline, eols, hash, confidence)

    @property
    def mixed_newlines(self) -> bool:
        return len({e for e in self.eols if e}) > 1

    @property
    def trailing_newline(self) -> bool:
        return bool(self.eols) and self.eols[-1] != ""

    @property
    def encoding_label(self) -> str:
        """Encoding as reported to people: e.g. 'utf-8-sig' for UTF-8 with a BOM."""
        if self.bom and self.encoding == "utf-8":
            return "utf-8-sig"
        if self.bom:
            return f"{self.encoding} (BOM)"
        return self.encoding


def detect_bom(data: bytes) -> tuple[bytes, str] | None:
    for bom, name in _BOMS:
        if data.startswith(bom):
            return bom, name
    return None


def looks_binary(data: bytes) -> bool:
    """Content sniffing on the first 8 KB: NUL bytes or many non-text control bytes."""
    head = data[:_SNIFF_BYTES]
    if detect_bom(head) is not None:
        return False
    if b"\x00" in head:
        return True
    if not head:
        return False
    controls = len(head) - len(head.translate(None, _BINARY_CONTROL_BYTES))
    return controls / len(head) > 0.1


def detect_encoding(data: bytes, *, prefer_chinese: bool = False) -> tuple[str, bytes]:
    """Return (codec name, BOM) for `data`, or raise TextFileError (see `detect`)."""
    name, bom, _confidence = detect(data, prefer_chinese=prefer_chinese)
    return name, bom


def detect(data: bytes, *, prefer_chinese: bool = False) -> tuple[str, bytes, float]:
    """Return (codec name, BOM, confidence 0..1) for `data`, or raise TextFileError.

    BOM first, then strict UTF-8, then, for text in runs of two-byte characters, the
    East Asian codec whose decoding reads most like real text (`cjk.guess_cjk`: Chinese
    wins ties; `prefer_chinese`, e.g. for a Chinese locale, weighs it further), then
    charset-normalizer for other legacy encodings. A legacy encoding is accepted only if
    decoding and re-encoding gives the same bytes back.
    """
    found = detect_bom(data)
    if found is not None:
        bom, name = found
        try:
            data[len(bom) :].decode(name)
        except UnicodeDecodeError as exc:
            raise TextFileError(
                "undecodable", f"invalid {name} after its BOM: {exc.reason}"
            ) from None
        return name, bom, 1.0
    if looks_binary(data):
        raise TextFileError("binary", "file appears to be binary")
    try:
        data.decode("utf-8")
        return "utf-8", b"", 1.0
    except UnicodeDecodeError:
        pass
    inline.leave("legacy encoding detection")  # up to 0.5 s for 64 KB: not on an event loop
    broken = _broken_utf8(data)
    if broken is not None:
        # Short CJK text can look like UTF-8 with a few bad bytes ("学而时习之" in GBK has
        # three valid UTF-8 pairs): only a clearly plausible CJK reading overrides that.
        guessed = guess_cjk(data, prefer_chinese=prefer_chinese)
        if guessed is None or guessed[1] < _OVERRIDE_BROKEN_UTF8:
            raise TextFileError("undecodable", broken)
        return codecs.lookup(guessed[0]).name, b"", guessed[1]
    found_legacy = _detect_legacy(data, prefer_chinese)
    if found_legacy is not None:
        return found_legacy[0], b"", found_legacy[1]
    raise TextFileError(
        "undecodable",
        "file is not valid UTF-8 and no encoding decodes it without loss",
    )


# Detection scores (chaos, coherence) barely separate the Latin code pages from each
# other: French text scores as well, or better, as cp1250 or cp1257 as it does as cp1252.
# cp1252 (Latin-1's superset) is by far the most common of them, so it wins whenever it
# decodes the bytes losslessly and scores within _WESTERN_SLACK of the best candidate;
# languages it cannot represent score far worse (or fail to decode) and keep their own.
# Within one group of encodings that decode the bytes identically, the common narrow one
# is kept (so a GBK file stays GBK instead of silently becoming GB18030, which can
# encode anything).
_WESTERN = ("cp1252", "latin_1")
_WESTERN_SLACK = 0.05
_NARROW = ("gbk", "euc_jp", "cp932", "big5", "cp949")


def _canonical(name: str) -> str | None:
    try:
        return codecs.lookup(name).name.replace("-", "_")
    except LookupError:
        return None


def _lossless(data: bytes, name: str) -> bool:
    try:
        return data.decode(name).encode(name) == data
    except (UnicodeDecodeError, UnicodeEncodeError, LookupError):
        return False


_ADJACENT_HIGH = re.compile(rb"[\x80-\xff]{2}")


# Confidence reported for a single-byte guess (it rests on the bytes alone) and the
# floor of charset-normalizer's (1 - chaos) for its guesses.
_WESTERN_CONFIDENCE = 0.6
# How sure a CJK reading must be to beat "UTF-8 with invalid bytes".
_OVERRIDE_BROKEN_UTF8 = 0.75


def _detect_legacy(data: bytes, prefer_chinese: bool = False) -> tuple[str, float] | None:
    """The most plausible legacy encoding that decodes `data` losslessly, with the
    detection's confidence, or None."""
    if not _ADJACENT_HIGH.search(data):
        # Every non-ASCII byte stands alone between ASCII ones ("It\x92s", "caf\xe9"):
        # single-byte text (CJK text comes in runs of two-byte characters), where
        # detection has too little to go on and may guess a CJK codec.
        for western in _WESTERN:
            if _lossless(data, western):
                return codecs.lookup(western).name, _WESTERN_CONFIDENCE
    guessed = guess_cjk(data, prefer_chinese=prefer_chinese)
    if guessed is not None:
        return codecs.lookup(guessed[0]).name, guessed[1]
    from charset_normalizer import from_bytes  # heavy; only for non-UTF-8 files

    ranked: list[tuple[float, float, int, int, str]] = []
    for index, match in enumerate(from_bytes(data)):
        primary = _canonical(match.encoding)
        for alias in [match.encoding, *match.could_be_from_charset]:
            name = _canonical(alias)
            # UTF-16/32 without a BOM is never text here: its newlines are NUL bytes,
            # which the binary check already refused; what remains is misdetected noise.
            if name is None or name.startswith(("utf_16", "utf_32", "utf_7")):
                continue
            narrow = 0 if name in _NARROW else (1 if name == primary else 2)
            ranked.append((match.chaos, -match.coherence, index, narrow, name))
    seen: set[str] = set()
    lossless: list[tuple[float, str]] = []
    for chaos, _coherence, _index, _narrow, name in sorted(ranked):
        if name not in seen:
            seen.add(name)
            if _lossless(data, name):
                lossless.append((chaos, name))
    if not lossless:
        return None
    best_chaos, best = lossless[0]
    for western in _WESTERN:
        for chaos, name in lossless:
            if name == western and chaos <= best_chaos + _WESTERN_SLACK:
                return codecs.lookup(name).name, round(max(0.0, 1.0 - chaos), 2)
    return codecs.lookup(best).name, round(max(0.0, 1.0 - best_chaos), 2)


_UTF8_SEQUENCE = re.compile(
    rb"[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}"
)


def _broken_utf8(data: bytes) -> str | None:
    """A message when `data` is UTF-8 with some invalid bytes, else None.

    Legacy single-byte text almost never contains valid multi-byte UTF-8 sequences, but
    a UTF-8 file with a stray byte does; decoding it as a legacy encoding would show the
    model mojibake and mix encodings on write, so it is refused instead.
    """
    valid = len(_UTF8_SEQUENCE.findall(data))
    if valid == 0:
        return None
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        invalid = len(data.decode("utf-8", "replace")) - len(data.decode("utf-8", "ignore"))
        # Legacy CJK text can contain byte pairs that happen to be valid UTF-8, but far
        # fewer than the pairs that are not; broken UTF-8 is the other way round.
        if valid >= 2 * invalid:
            return (
                f"file is UTF-8 but has invalid bytes (first at byte offset {exc.start}: "
                f"0x{data[exc.start]:02x}); it cannot be decoded without loss, so it is "
                "not edited as text"
            )
    return None


def split_eols(text: str) -> tuple[str, tuple[str, ...]]:
    """Normalise newlines to "\\n" and return each line's original ending.

    The result has one entry per line; the last is "" when the text does not end with
    a newline (so "a\\r\\nb" gives ("\\r\\n", "")).
    """
    if "\r" in text:
        eols = _EOL.findall(text)
        normalised = _EOL.sub("\n", text)
    else:  # (the same answer: every ending is "\n", the text stays as it is)
        eols = ["\n"] * text.count("\n")
        normalised = text
    if not normalised.endswith("\n") or not normalised:
        eols.append("")
    return normalised, tuple(eols)


def _dominant(eols: tuple[str, ...]) -> str:
    counts: dict[str, int] = {}
    for e in eols:
        if e:
            counts[e] = counts.get(e, 0) + 1
    if not counts:
        return "\n"
    return max(counts, key=lambda e: (counts[e], e == "\n"))


def decode(data: bytes, *, prefer_chinese: bool = False) -> TextFile:
    """Decode file bytes into a TextFile, or raise TextFileError."""
    encoding, bom, confidence = detect(data, prefer_chinese=prefer_chinese)
    text = data[len(bom) :].decode(encoding)
    normalised, eols = split_eols(text)
    return TextFile(
        raw=data,
        text=normalised,
        encoding=encoding,
        bom=bom,
        newline=_dominant(eols) if "\r" in text else "\n",
        eols=eols,
        hash=content_hash(data),
        confidence=confidence,
    )


def normalise_newlines(text: str) -> str:
    """ "\\r\\n" and lone "\\r" become "\\n"."""
    return _EOL.sub("\n", text) if "\r" in text else text
