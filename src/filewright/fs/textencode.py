"""Text written back as bytes: the file's own encoding, BOM and newline style kept (the
write side of `fs.textfile`, apart so that reading a file loads no diffing)."""

from __future__ import annotations

import codecs
import difflib

from filewright.fs.textfile import TextFile, TextFileError, normalise_newlines


def _restore_endings(old: TextFile, new_text: str) -> str:
    """Give `new_text` ("\\n" newlines) the endings of `old`.

    Lines unchanged from the old file, and lines changed in place (a block of old lines
    replaced line for line), keep their own ending; inserted lines get the file's
    dominant ending.
    """
    new_lines = new_text.split("\n")
    if not old.mixed_newlines:
        return old.newline.join(new_lines) if old.newline != "\n" else new_text
    old_lines = old.text.split("\n")
    # old_lines has len(eols) entries (+1 when the file ends with a newline: a last "").
    old_eols = [*old.eols, ""][: len(old_lines)]
    n_old, n_new = len(old_lines), len(new_lines)
    new_eols = [old.newline] * (n_new - 1) + [""]
    untouched = [False] * n_new

    def keep(i: int, j: int, same: bool = True) -> None:
        if j < n_new - 1:
            new_eols[j] = old_eols[i] or old.newline
            untouched[j] = same

    # The common case is one edit in a long file: align the shared head and tail
    # directly and only diff what lies between.
    head = 0
    while head < min(n_old, n_new) and old_lines[head] == new_lines[head]:
        keep(head, head)
        head += 1
    tail = 0
    while tail < min(n_old, n_new) - head and old_lines[-1 - tail] == new_lines[-1 - tail]:
        keep(n_old - 1 - tail, n_new - 1 - tail)
        tail += 1
    matcher = difflib.SequenceMatcher(
        None, old_lines[head : n_old - tail], new_lines[head : n_new - tail], autojunk=False
    )
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("equal", "replace"):
            for k in range(min(i2 - i1, j2 - j1)):
                keep(head + i1 + k, head + j1 + k, same=tag == "equal")
    # A lone "\r" directly followed by a "\n" (an empty line after it) would read back
    # as one "\r\n": a line break lost. Give the empty line a "\r" too when it is new
    # (untouched lines keep their endings); otherwise end the first one with "\r\n",
    # which cannot merge with what comes before or after it.
    for j in range(n_new - 1):
        if new_eols[j] == "\r" and new_lines[j + 1] == "" and new_eols[j + 1] == "\n":
            if not untouched[j + 1]:
                new_eols[j + 1] = "\r"
            else:
                new_eols[j] = "\r\n"
    out: list[str] = []
    for line, eol in zip(new_lines, new_eols, strict=True):
        out.append(line)
        out.append(eol)
    return "".join(out)


def encode(old: TextFile | None, new_text: str, *, encoding: str | None = None) -> bytes:
    """Bytes for `new_text` written over `old` (or as a new file when `old` is None).

    An existing file keeps its encoding, BOM and newline style; a new file is written in
    `encoding` (default UTF-8) exactly as given. Raises TextFileError("unencodable")
    when the text has characters the encoding cannot represent.
    """
    if old is None:
        name = codecs.lookup(encoding or "utf-8").name
        bom = b""
        body = new_text
        if name in ("utf-8-sig",):
            name, bom = "utf-8", codecs.BOM_UTF8
        elif name in ("utf-16", "utf-32"):
            name = f"{name}-le"
            bom = codecs.BOM_UTF16_LE if name == "utf-16-le" else codecs.BOM_UTF32_LE
    else:
        name, bom = old.encoding, old.bom
        body = _restore_endings(old, normalise_newlines(new_text))
    try:
        return bom + body.encode(name)
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start : exc.end]
        raise TextFileError(
            "unencodable",
            f"the new text contains {bad!r}, which the file's encoding ({name}) cannot represent",
        ) from None
