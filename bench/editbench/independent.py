"""Tasks where ``old`` and ``new`` are perturbed independently, next to blank lines, and in
CJK text (issue 17).

Models copy ``old_string`` from memory with a slip and write ``new_string`` correctly, or the
other way round, and their edits touch the lines next to the slip:

* ``old:<slip>`` -- ``old`` has the slip, ``new`` is the clean intended block;
* ``new:<slip>`` -- ``old`` is the real block, ``new`` has the slip;
* ``blank:*`` -- blocks with an inner blank line, edited on a line next to it;
* ``cjk:*`` -- real Chinese/Japanese text, full-width punctuation written as ASCII in
  ``old``, in ``new`` or in both.

The intended result is always the file with only the intended edit.
"""

from __future__ import annotations

import gzip
import random
import re
import unicodedata
from pathlib import Path

from bench.editbench import tasks as T
from bench.editbench.corpus import MAX_BYTES, SourceFile

SLIPS = ("curly", "collapsed", "dropped_blank", "reindent", "trailing")
OLD_ONLY = tuple(f"old:{s}" for s in SLIPS)
NEW_ONLY = tuple(f"new:{s}" for s in SLIPS)
BLANK = ("blank:old_missing", "blank:both_missing", "blank:old_trailing", "blank:insert_next")
CJK = ("cjk:ascii_both", "cjk:old_ascii", "cjk:new_ascii")
CATEGORIES = OLD_ONLY + NEW_ONLY + BLANK
CJK_CATEGORIES = CJK


def _slip(name: str, lines: list[str], rng: random.Random, ref: list[str]) -> list[str]:
    if name == "curly":
        return T.p_curly(lines, rng)
    if name == "collapsed":
        return T.p_collapse(lines, rng)
    if name == "dropped_blank":
        return T.p_drop_blank(lines, rng)
    if name == "reindent":
        return T.p_reindent(lines, rng, ref)
    if name == "trailing":
        return T.p_trailing(lines, rng)
    raise ValueError(name)


_NEEDS = {
    "curly": lambda b: any(re.search(r"\"[^\"]+\"|'[^']+'", x) for x in b),
    "collapsed": lambda b: any(re.search(r"\S[ \t]{2,}\S", x) for x in b),
    "dropped_blank": lambda b: any(not x.strip() for x in b[1:-1]),
    "reindent": lambda b: True,
    "trailing": lambda b: True,
}


def _inner_blank(b: list[str]) -> bool:
    return len(b) >= 3 and any(not x.strip() for x in b[1:-1])


def _next_to_blank(rng: random.Random, block: list[str], insert: bool) -> list[str] | None:
    """Rename on (or insert a line after) a non-blank line that touches an inner blank line."""
    cands = [
        j
        for j, x in enumerate(block)
        if x.strip()
        and ((j and not block[j - 1].strip()) or (j + 1 < len(block) and not block[j + 1].strip()))
    ]
    if not cands:
        return None
    j = rng.choice(cands)
    if insert:
        ws = T._lead(block[j])
        return [*block[: j + 1], ws + "added_v2 = compute(1)", *block[j + 1 :]]
    m = list(T._IDENT.finditer(block[j]))
    if not m:
        return None
    k = rng.choice(m)
    out = list(block)
    out[j] = block[j][: k.start()] + k.group(0) + "_v2" + block[j][k.end() :]
    return out


def make(cat: str, f: SourceFile, rng: random.Random, tid: int) -> T.Task | None:
    """One task of ``cat`` (an ``old:``, ``new:`` or ``blank:`` category) from ``f``."""
    lines = f.text.split("\n")
    slip = cat.split(":", 1)[1]
    need = _inner_blank if cat.startswith("blank:") else _NEEDS[slip]
    picked = T._pick_block(rng, lines, need)
    if picked is None:
        return None
    i, k = divmod(picked, 1000)
    block = lines[i : i + k]
    if cat.startswith("blank:"):
        edited = _next_to_blank(rng, block, insert=slip == "insert_next")
    else:
        edited = T._edit_block(rng, block)
    if edited is None:
        return None
    prng = random.Random(rng.randrange(1 << 30))
    old, new = list(block), list(edited)
    if cat.startswith("old:"):
        old = _slip(slip, block, prng, block)
    elif cat.startswith("new:"):
        new = _slip(slip, edited, prng, block)
    elif slip == "old_missing":  # old without the inner blank lines, new as intended
        old = T.p_drop_blank(block, prng)
    elif slip == "both_missing":  # both written from the same memory, without them
        old, new = T.p_drop_blank(block, prng), T.p_drop_blank(edited, prng)
    elif slip == "old_trailing":  # a stray blank line after old; new as intended
        old = [*block, "", ""]
    elif slip == "insert_next":  # a line inserted next to the gap, old without the gap
        old = T.p_drop_blank(block, prng)
    intended = "\n".join(lines[:i] + edited + lines[i + k :])
    real = "\n".join(block)
    return T.Task(
        tid, cat, f.path, f.text, "\n".join(old), "\n".join(new), intended, (i + 1, i + k), real
    )


# --------------------------------------------------------------------------- CJK

_FULL = "，。：；（）！？「」、"
_ASCII = {
    "，": ", ",
    "。": ". ",
    "：": ": ",
    "；": "; ",
    "（": "(",
    "）": ")",
    "！": "! ",
    "？": "? ",
    "「": '"',
    "」": '"',
    "、": ", ",
}


def ascii_punct(lines: list[str]) -> list[str]:
    """Full-width punctuation typed as ASCII (with the space a Western keyboard adds)."""
    out = []
    for x in lines:
        y = "".join(_ASCII.get(c, c) for c in x)
        out.append(y.rstrip() if x == x.rstrip() else y)
    return out


def _canon_cjk(line: str) -> str:
    s = unicodedata.normalize("NFKC", line).translate(str.maketrans("。、「」", '.,""'))
    return "".join(s.split())


def _unique_cjk(lines: list[str], block: list[str]) -> bool:
    seq = [_canon_cjk(x) for x in block if x.strip()]
    hay = [_canon_cjk(x) for x in lines if x.strip()]
    n = sum(hay[p : p + len(seq)] == seq for p in range(len(hay) - len(seq) + 1))
    return n == 1


def _edit_cjk(rng: random.Random, block: list[str]) -> list[str] | None:
    """Insert a word after a CJK character of a line with full-width punctuation."""
    cands = [j for j, x in enumerate(block) if any(c in _FULL for c in x)]
    if not cands:
        return None
    j = rng.choice(cands)
    pos = [
        p for p, c in enumerate(block[j]) if "\u4e00" <= c <= "\u9fff" or "\u3040" <= c <= "\u30ff"
    ]
    if not pos:
        return None
    p = rng.choice(pos) + 1
    out = list(block)
    out[j] = block[j][:p] + "修订" + block[j][p:]
    return out


def make_cjk(cat: str, f: SourceFile, rng: random.Random, tid: int) -> T.Task | None:
    """One ``cjk:`` task from a file with full-width punctuation."""
    lines = f.text.split("\n")
    n = len(lines)
    for _ in range(60):
        k = rng.randint(1, 5)
        i = rng.randrange(0, max(1, n - k))
        block = lines[i : i + k]
        if len(block) < k or not block[0].strip() or not block[-1].strip():
            continue
        if not any(c in _FULL for x in block for c in x) or not _unique_cjk(lines, block):
            continue
        edited = _edit_cjk(rng, block)
        if edited is None:
            continue
        old, new = list(block), list(edited)
        if cat in ("cjk:ascii_both", "cjk:old_ascii"):
            old = ascii_punct(block)
        if cat in ("cjk:ascii_both", "cjk:new_ascii"):
            new = ascii_punct(edited)
        intended = "\n".join(lines[:i] + edited + lines[i + k :])
        real = "\n".join(block)
        return T.Task(
            tid, cat, f.path, f.text, "\n".join(old), "\n".join(new), intended, (i + 1, i + k), real
        )
    return None


def cjk_corpus() -> list[SourceFile]:
    """Real CJK text on this machine: Chinese man pages, GnuPG's help texts (zh, ja)."""
    paths = sorted(Path("/usr/share/man").glob("zh*/man*/*.gz"))
    paths += sorted(Path("/usr/share/gnupg").glob("help.zh*.txt"))
    paths += sorted(Path("/usr/share/gnupg").glob("help.ja.txt"))
    out: list[SourceFile] = []
    for p in paths:
        try:
            raw = gzip.decompress(p.read_bytes()) if p.suffix == ".gz" else p.read_bytes()
            text = raw.decode("utf-8")
        except (OSError, UnicodeDecodeError, gzip.BadGzipFile):
            continue
        text = text.replace("\r\n", "\n")
        if len(text) <= MAX_BYTES and sum(text.count(c) for c in _FULL) >= 5:
            out.append(SourceFile(str(p), p.suffixes[0] if p.suffix == ".gz" else p.suffix, text))
    return out


def build(files: list[SourceFile], per_category: int, seed: int, start_id: int) -> list[T.Task]:
    """``per_category`` tasks of every category here (CJK ones if a CJK corpus exists)."""
    rng = random.Random(seed * 31 + 1)
    out: list[T.Task] = []
    cjk = cjk_corpus()
    for cat in CATEGORIES + (CJK if cjk else ()):
        pool = cjk if cat.startswith("cjk:") else files
        made = tries = 0
        while made < per_category and tries < per_category * 40:
            tries += 1
            f = pool[rng.randrange(len(pool))]
            maker = make_cjk if cat.startswith("cjk:") else make
            t = maker(cat, f, rng, start_id + len(out))
            if t is not None:
                out.append(t)
                made += 1
    return out
