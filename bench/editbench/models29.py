"""Tasks generated the way models err, each side on its own (issue 29).

* ``elide:*`` -- ``old`` and ``new`` skip the middle of a block with the same elision line
  (``...``, or ``# ... existing code ...`` / ``// ... existing code ...`` by file type); the
  edit is on the first or last line; ``old`` also has trailing whitespace half the time.
* ``flat:old`` / ``flat:both`` -- a block with more than one indentation level; ``old``
  (and ``new``) written with every line at column 0.
* ``spacing:old`` / ``spacing:both`` -- spaces around punctuation changed (none after
  commas, one inside brackets) in ``old`` (and, independently chosen, in ``new``).
* ``edge:after_blank`` / ``edge:before_blank`` -- ``old`` ends (begins) with the blank line
  the file has there and carries one slip (trailing whitespace), ``new`` keeps the blank
  line and adds a line beyond it (issue 29's blank-line bug).
* ``spelling:nfd`` / ``spelling:escape`` -- the file's accented or non-ASCII characters
  written decomposed (NFD) or as ``\\uXXXX`` escapes in ``old``; ``new`` clean.

The intended result is always the file with only the intended edit.
"""

from __future__ import annotations

import random
import re
import unicodedata

from bench.editbench import tasks as T
from bench.editbench.corpus import SourceFile

CATEGORIES = (
    "elide:dots",
    "elide:comment",
    "flat:old",
    "flat:both",
    "spacing:old",
    "spacing:both",
    "edge:after_blank",
    "edge:before_blank",
    "spelling:nfd",
    "spelling:escape",
)


def _canon(line: str) -> str:
    """A line with no whitespace at all, quotes folded: looser than any ladder level."""
    return "".join(line.translate(T._CURLY).split())


def _unique(lines: list[str], block: list[str]) -> bool:
    seq = [_canon(x) for x in block if x.strip()]
    hay = [_canon(x) for x in lines if x.strip()]
    return sum(hay[p : p + len(seq)] == seq for p in range(len(hay) - len(seq) + 1)) == 1


def _pick(rng: random.Random, lines: list[str], lo: int, hi: int, need) -> int | None:  # type: ignore[no-untyped-def]
    n = len(lines)
    for _ in range(80):
        k = rng.randint(lo, hi)
        i = rng.randrange(0, max(1, n - k))
        block = lines[i : i + k]
        if len(block) < k or not block[0].strip() or not block[-1].strip():
            continue
        if sum(len(x) for x in block) > 900 or not any(T._IDENT.search(x) for x in block):
            continue
        if need(block, i) and _unique(lines, block):
            return i
    return None


def _place(rng: random.Random, lines: list[str], lo: int, hi: int, need) -> tuple[int, int] | None:  # type: ignore[no-untyped-def]
    """Where a block goes: `_pick`'s start and the largest size from `hi` down to `lo`
    whose block ends on a non-blank line, has what `need` asks and occurs once."""
    i = _pick(rng, lines, lo, hi, need)
    if i is None:
        return None
    k = next(k for k in range(hi, lo - 1, -1) if lines[i + k - 1 : i + k][0:1] != [""]
             and need(lines[i : i + k], i) and _unique(lines, lines[i : i + k]))  # fmt: skip
    return i, k


def _rename(rng: random.Random, line: str) -> str | None:
    m = list(T._IDENT.finditer(line))
    if not m:
        return None
    k = rng.choice(m)
    return line[: k.start()] + k.group(0) + "_v2" + line[k.end() :]


def _marker(path: str, cat: str, ws: str) -> str:
    if cat == "elide:dots":
        return ws + "..."
    if path.endswith((".py", ".pyi", ".toml", ".cfg", ".ini", ".txt", ".rst", ".md")):
        return ws + "# ... existing code ..."
    return ws + "// ... existing code ..."


_SPACING = (
    lambda x: re.sub(r",[ \t]+", ",", x),
    lambda x: re.sub(r"\(([^()\s])", r"( \1", x),
    lambda x: re.sub(r"\s*=\s*", "=", x, count=1),
)


def _spaced(x: str, how: int) -> str:
    return _SPACING[how](x)


def _esc(x: str) -> str:
    return "".join(c if ord(c) < 128 or ord(c) > 0xFFFF else f"\\u{ord(c):04x}" for c in x)


def make(cat: str, f: SourceFile, rng: random.Random, tid: int) -> T.Task | None:
    """One task of ``cat`` from ``f``."""
    lines = f.text.split("\n")
    kind = cat.split(":")[0]
    if kind == "elide":

        def need(b: list[str], _i: int) -> bool:
            return len(b) >= 5 and _unique(lines, b[:1]) and _unique(lines, b[-1:])

        i = _pick(rng, lines, 5, 10, need)
        if i is None:
            return None
        block = next(
            (lines[i : i + k] for k in range(10, 4, -1) if lines[i + k - 1 : i + k][0:1] != [""]
             and need(lines[i : i + k], i) and _unique(lines, lines[i : i + k])),
            None,
        )  # fmt: skip
        if block is None:
            return None
        k = len(block)
        first = rng.random() < 0.5
        j = 0 if first else k - 1
        changed = _rename(rng, block[j])
        if changed is None:
            return None
        edited = list(block)
        edited[j] = changed
        mark = _marker(f.path, cat, T._lead(block[1]))
        old = [block[0], mark, block[-1]]
        new = [edited[0], mark, edited[-1]]
        if rng.random() < 0.5:
            old = T.p_trailing(old, random.Random(tid))
    elif kind == "flat":

        def need(b: list[str], _i: int) -> bool:
            return len({T._lead(x) for x in b if x.strip()}) >= 2

        place = _place(rng, lines, 2, 6, need)
        if place is None:
            return None
        i, k = place
        block = lines[i : i + k]
        edited = T._edit_block(rng, block)
        old = [x.lstrip() for x in block]
        new = [x.lstrip() for x in edited] if cat == "flat:both" else list(edited)
    elif kind == "spacing":
        how = rng.randrange(len(_SPACING))

        def need(b: list[str], _i: int) -> bool:
            return any(_spaced(x, how) != x for x in b)

        place = _place(rng, lines, 1, 5, need)
        if place is None:
            return None
        i, k = place
        block = lines[i : i + k]
        edited = T._edit_block(rng, block)
        old = [_spaced(x, how) for x in block]
        new = list(edited)
        if cat == "spacing:both":
            how2 = rng.randrange(len(_SPACING))
            new = [_spaced(x, how2) for x in edited]
    elif kind == "edge":
        after = cat == "edge:after_blank"

        def need(b: list[str], i: int) -> bool:
            k = len(b)
            if after:
                return (
                    i + k + 1 < len(lines)
                    and not lines[i + k].strip()
                    and bool(lines[i + k + 1].strip())
                )
            return i >= 2 and not lines[i - 1].strip() and bool(lines[i - 2].strip())

        place = _place(rng, lines, 1, 4, need)
        if place is None:
            return None
        i, k = place
        block = lines[i : i + k]
        changed = _rename(rng, block[0])
        if changed is None:
            return None
        edited = [changed, *block[1:]]
        ws = T._lead(block[0])
        added = ws + "added_v2 = compute(1)"
        slipped = [block[0] + "  ", *block[1:]]  # the slip that makes a recovery needed
        if after:
            old, new = [*slipped, "", ""], [*edited, "", added, ""]
            goal = [*lines[:i], *edited, "", added, *lines[i + k + 1 :]]
        else:
            old, new = ["", *slipped], ["", added, "", *edited]
            goal = [*lines[:i], added, "", *edited, *lines[i + k :]]
        return T.Task(
            tid, cat, f.path, f.text, "\n".join(old), "\n".join(new), "\n".join(goal),
            (i + 1, i + k), "\n".join(block),
        )  # fmt: skip
    else:  # spelling
        nfd = cat == "spelling:nfd"

        def need(b: list[str], _i: int) -> bool:
            if nfd:
                return any(unicodedata.normalize("NFD", x) != x for x in b)
            return any(any(127 < ord(c) <= 0xFFFF for c in x) for x in b)

        place = _place(rng, lines, 1, 4, need)
        if place is None:
            return None
        i, k = place
        block = lines[i : i + k]
        edited = T._edit_block(rng, block)
        old = [unicodedata.normalize("NFD", x) if nfd else _esc(x) for x in block]
        new = list(edited)
    intended = "\n".join(lines[:i] + edited + lines[i + len(block) :])
    return T.Task(
        tid, cat, f.path, f.text, "\n".join(old), "\n".join(new), intended,
        (i + 1, i + len(block)), "\n".join(block),
    )  # fmt: skip


def build(
    files: list[SourceFile], extra: list[SourceFile], per_category: int, seed: int, start_id: int
) -> list[T.Task]:
    """``per_category`` tasks of every category (spelling ones also from ``extra``, the CJK
    corpus, when the code corpus has too few non-ASCII lines)."""
    rng = random.Random(seed * 53 + 29)
    out: list[T.Task] = []
    for cat in CATEGORIES:
        pool = files + extra if cat.startswith("spelling:") else files
        made = tries = 0
        while made < per_category and tries < per_category * 60:
            tries += 1
            t = make(cat, pool[rng.randrange(len(pool))], rng, start_id + len(out))
            if t is not None and t.old != t.real_text:
                out.append(t)
                made += 1
    return out
