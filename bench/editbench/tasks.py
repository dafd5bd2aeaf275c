"""Edit tasks: a real block, an intended edit, and the ``old``/``new`` a model would send.

Recoverable categories perturb ``old`` and ``new`` the same way (a model writes both in the
same style) in one of the ladder's ways; the intended result is the file with only the
intended edit.  Must-refuse categories send text that is absent, misremembered (one token
changed), present twice, or present twice only after normalisation.

Uniqueness checks here are the benchmark's own (independent of the code under test).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass

from bench.editbench.corpus import SourceFile

RECOVER = (
    "exact",
    "trailing_ws",
    "reindent",
    "tabs_spaces",
    "dropped_blank",
    "collapsed_spaces",
    "curly_quotes",
    "over_escaped",
    "line_numbers",
    "stray_blank",
    "crlf",
    "added_blank",
    "combo_reindent_ws",
    "combo_numbers_tabs",
    "fragment_curly",
)
REFUSE = (
    "absent",
    "changed_token",
    "changed_token_reindent",
    "duplicate",
    "dup_after_norm",
)
MISREMEMBERED = ("changed_token", "changed_token_reindent")
_IDENT = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]{2,}\b")
_QUOTED = re.compile(r"\"[A-Za-z][^\"]*\"|'[A-Za-z][^']*'")
_CURLY = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


@dataclass(frozen=True)
class Task:
    """One benchmark task.  ``intended`` is ``None`` for must-refuse tasks."""

    id: int
    category: str
    path: str
    text: str
    old: str
    new: str
    intended: str | None
    real_lines: tuple[int, int]
    real_text: str

    @property
    def must_refuse(self) -> bool:
        return self.intended is None


def _canon(line: str) -> str:
    return re.sub(r"\s+", " ", line.translate(_CURLY)).strip()


def _count_loose(lines: list[str], block: list[str]) -> int:
    """Occurrences of ``block`` comparing lines without any whitespace/quote/blank-line detail."""
    seq = [_canon(x) for x in block if x.strip()]
    hay_idx = [i for i, x in enumerate(lines) if x.strip()]
    hay = [_canon(lines[i]) for i in hay_idx]
    if not seq:
        return 0
    n = 0
    for p in range(len(hay) - len(seq) + 1):
        if hay[p] == seq[0] and hay[p : p + len(seq)] == seq:
            n += 1
    return n


def _pick_block(
    rng: random.Random, lines: list[str], need: Callable[[list[str]], bool]
) -> int | None:
    """Start index of a 1-6 line block, edges non-blank, loosely unique, meeting ``need``."""
    n = len(lines)
    for _ in range(60):
        k = rng.randint(1, 6)
        i = rng.randrange(0, max(1, n - k))
        block = lines[i : i + k]
        if len(block) < k or not block[0].strip() or not block[-1].strip():
            continue
        size = sum(len(x) for x in block)
        if size < 12 or size > 700 or not need(block):
            continue
        if not any(_IDENT.search(x) for x in block):
            continue
        if _count_loose(lines, block) != 1:
            continue
        return i * 1000 + k
    return None


def _edit_block(rng: random.Random, block: list[str]) -> list[str]:
    """The intended edit: rename an identifier (60%), add a line (25%) or delete one (15%)."""
    nonblank = [j for j, x in enumerate(block) if x.strip()]
    roll = rng.random()
    if roll > 0.85 and len(nonblank) >= 3:
        j = rng.choice(nonblank[1:-1])
        return block[:j] + block[j + 1 :]
    if roll > 0.6:
        j = rng.choice(nonblank)
        ws = _lead(block[j])
        return [*block[: j + 1], ws + "added_v2 = compute(1)", *block[j + 1 :]]
    cands = [(j, m) for j, x in enumerate(block) for m in _IDENT.finditer(x)]
    j, m = rng.choice(cands)
    line = block[j]
    out = list(block)
    out[j] = line[: m.start()] + m.group(0) + "_v2" + line[m.end() :]
    return out


# --------------------------------------------------------------------------- perturbations


def _lead(x: str) -> str:
    return x[: len(x) - len(x.lstrip())]


def p_trailing(lines: list[str], rng: random.Random) -> list[str]:
    """Add trailing whitespace to about half the lines (strip it where the file has some).

    Decided per line content, so ``old`` and ``new`` get the same noise on the same lines.
    """
    salt = rng.randrange(1 << 30)
    pads = [random.Random(f"{salt}:{x}").choice(["", " ", "  ", "\t", "   "]) for x in lines]
    if not any(pads):
        pads = [" "] * len(lines)
    return [x.rstrip() if x != x.rstrip() else x + p for x, p in zip(lines, pads, strict=True)]


def p_reindent(lines: list[str], _rng: random.Random, ref: list[str] | None = None) -> list[str]:
    """Dedent fully if the (reference) block is indented, else indent by four spaces.

    The decision is taken on ``ref`` (the unedited block) so ``old`` and ``new`` shift alike.
    """
    nonblank = [x for x in (ref or lines) if x.strip()]
    common = min(len(_lead(x)) for x in nonblank)
    if common >= 2 and all(_lead(x)[:common].strip() == "" for x in nonblank):
        return [x[common:] if x[:common].strip() == "" else x.lstrip() for x in lines]
    return ["    " + x if x.strip() else x for x in lines]


def p_tabs(lines: list[str], _rng: random.Random) -> list[str]:
    out = []
    for x in lines:
        ws = _lead(x)
        if "\t" in ws:
            ws2 = ws.replace("\t", "    ")
        else:
            ws2 = "\t" * (len(ws) // 4) + " " * (len(ws) % 4)
        out.append(ws2 + x[len(ws) :])
    return out


def p_drop_blank(lines: list[str], _rng: random.Random) -> list[str]:
    """Drop every interior blank line."""
    return (
        [lines[0], *(x for x in lines[1:-1] if x.strip()), lines[-1]] if len(lines) > 1 else lines
    )


def p_collapse(lines: list[str], _rng: random.Random) -> list[str]:
    return [_lead(x) + re.sub(r"[ \t]{2,}", " ", x[len(_lead(x)) :]) for x in lines]


def p_curly(lines: list[str], _rng: random.Random) -> list[str]:
    out = []
    for x in lines:
        x = re.sub(r'"([^"\n]*)"', "\u201c\\1\u201d", x)
        x = re.sub(r"'([^'\n]*)'", "\u2018\\1\u2019", x)
        out.append(x.replace("'", "\u2019"))
    return out


def _has_tabs_or_indent(b: list[str]) -> bool:
    return any(_lead(x) and (len(_lead(x)) >= 4 or "\t" in _lead(x)) for x in b if x.strip())


NEEDS: dict[str, Callable[[list[str]], bool]] = {
    "tabs_spaces": _has_tabs_or_indent,
    "dropped_blank": lambda b: any(not x.strip() for x in b[1:-1]),
    "collapsed_spaces": lambda b: any(re.search(r"\S[ \t]{2,}\S", x) for x in b),
    "curly_quotes": lambda b: any(re.search(r"\"[^\"]+\"|'[^']+'", x) for x in b),
    "over_escaped": lambda b: len(b) > 1 or any(c in '"\\\t' for c in b[0]),
    "added_blank": lambda b: len(b) > 1,
    "combo_numbers_tabs": _has_tabs_or_indent,
    "fragment_curly": lambda b: len(b) == 1 and bool(_QUOTED.search(b[0])),
}
LINE_PERTURB: dict[str, Callable[[list[str], random.Random], list[str]]] = {
    "trailing_ws": p_trailing,
    "reindent": p_reindent,
    "tabs_spaces": p_tabs,
    "dropped_blank": p_drop_blank,
    "collapsed_spaces": p_collapse,
    "curly_quotes": p_curly,
}
_PREFIXES = ("{n:>6}\t", "{n}\u2192", "{n:>5} | ", "L{n}: ")


def _perturb(cat: str, block: list[str], seed: int, first_line: int, ref: list[str]) -> str:
    """The text a model would send for ``block`` (``ref``: the unedited block) in ``cat``."""
    rng = random.Random(seed)  # same seed for old and new: same lines perturbed
    if cat == "reindent":
        return "\n".join(p_reindent(block, rng, ref))
    if cat in LINE_PERTURB:
        return "\n".join(LINE_PERTURB[cat](block, rng))
    if cat == "combo_reindent_ws":
        return "\n".join(p_trailing(p_reindent(block, rng, ref), rng))
    if cat == "added_blank":
        return "\n".join([block[0], "", *block[1:]])
    if cat == "combo_numbers_tabs":
        tabbed = p_tabs(block, rng)
        return "\n".join(f"{first_line + j:>6}\t" + x for j, x in enumerate(tabbed))
    s = "\n".join(block)
    if cat == "over_escaped":
        return json.dumps(s, ensure_ascii=False)[1:-1]
    if cat == "line_numbers":
        fmt = _PREFIXES[seed % len(_PREFIXES)]
        return "\n".join(fmt.format(n=first_line + j) + x for j, x in enumerate(block))
    if cat == "stray_blank":
        return "\n\n" + s + "\n\n"
    if cat == "crlf":
        return s.replace("\n", "\r\n")
    return s


# --------------------------------------------------------------------------- building


def _mutate_token(rng: random.Random, block: list[str]) -> list[str] | None:
    cands = [
        (j, m) for j, x in enumerate(block) for m in _IDENT.finditer(x) if len(m.group(0)) >= 4
    ]
    if not cands:
        return None
    j, m = rng.choice(cands)
    tok = m.group(0)
    k = rng.randrange(1, len(tok) - 1)
    mutated = tok[:k] + tok[k + 1] + tok[k] + tok[k + 2 :] if tok[k] != tok[k + 1] else tok + "s"
    out = list(block)
    out[j] = block[j][: m.start()] + mutated + block[j][m.end() :]
    return out


def build(files: list[SourceFile], per_category: int, seed: int) -> list[Task]:
    """``per_category`` tasks for every category, deterministic for ``seed``."""
    rng = random.Random(seed)
    tasks: list[Task] = []
    for cat in RECOVER + REFUSE:
        made = tries = 0
        while made < per_category and tries < per_category * 40:
            tries += 1
            f = files[rng.randrange(len(files))]
            t = _make(cat, f, files, rng, len(tasks))
            if t is not None:
                tasks.append(t)
                made += 1
    return tasks


def _make(
    cat: str, f: SourceFile, files: list[SourceFile], rng: random.Random, tid: int
) -> Task | None:
    lines = f.text.split("\n")
    need = NEEDS.get(cat, lambda _b: True)
    picked = _pick_block(rng, lines, need)
    if picked is None:
        return None
    i, k = divmod(picked, 1000)
    block = lines[i : i + k]
    real = "\n".join(block)
    edited = _edit_block(rng, block)
    pseed = rng.randrange(1 << 30)
    real_lines = (i + 1, i + k)

    def task(text: str, old: str, new: str, intended: str | None) -> Task:
        return Task(tid, cat, f.path, text, old, new, intended, real_lines, real)

    if cat == "fragment_curly":  # part of one line, from its first character to a quote
        line = block[0]
        m = _QUOTED.search(line)
        if m is None:
            return None
        start = len(_lead(line))
        frag = line[start : m.end()]
        edited_line = line[: m.end() - 1] + "_v2" + line[m.end() - 1 :]
        if f.text.count(frag) != 1 or start >= m.start():
            return None
        old = p_curly([frag], rng)[0]
        new = p_curly([edited_line[start : m.end() + 3]], rng)[0]
        intended = "\n".join([*lines[:i], edited_line, *lines[i + 1 :]])
        return task(f.text, old, new, intended)
    if cat in RECOVER:
        old = _perturb(cat, block, pseed, i + 1, block)
        new = _perturb(cat, edited, pseed, i + 1, block)
        intended = "\n".join(lines[:i] + edited + lines[i + k :])
        return task(f.text, old, new, intended)
    if cat == "absent":
        other = files[rng.randrange(len(files))]
        olines = other.text.split("\n")
        p = _pick_block(rng, olines, lambda _b: True)
        if p is None or other.path == f.path:
            return None
        oi, ok_ = divmod(p, 1000)
        ob = olines[oi : oi + ok_]
        canon = {_canon(x) for x in lines}
        if all(_canon(x) in canon for x in ob if x.strip()):
            return None
        return task(f.text, "\n".join(ob), "\n".join(_edit_block(rng, ob)), None)
    if cat in ("changed_token", "changed_token_reindent"):
        mutated = _mutate_token(rng, block)
        if mutated is None or _count_loose(lines, mutated) != 0:
            return None
        if cat == "changed_token_reindent":
            mutated = p_reindent(mutated, rng)
        return task(f.text, "\n".join(mutated), "\n".join(_edit_block(rng, mutated)), None)
    if cat == "duplicate":
        j = rng.randrange(0, len(lines))
        if i - 3 <= j <= i + k + 3:
            return None
        text = "\n".join(lines[:j] + block + lines[j:])
        return task(text, real, "\n".join(edited), None)
    if cat == "dup_after_norm":
        j = rng.randrange(0, len(lines))
        if i - 3 <= j <= i + k + 3:
            return None
        if pseed % 2:  # both copies equal only without trailing whitespace
            if any(x != x.rstrip() for x in block):
                return None
            copy = [x + "  " if x.strip() else x for x in block]
            old = [x + "\t" if x.strip() else x for x in block]
        else:  # both copies equal only up to a uniform indentation shift
            if any("\t" in _lead(x) for x in block):
                return None
            copy = ["\t" + x if x.strip() else x for x in block]
            old = ["  " + x if x.strip() else x for x in block]
        text = "\n".join(lines[:j] + copy + lines[j:])
        if "\n".join(old) in text:  # would be a legitimate exact match
            return None
        return task(text, "\n".join(old), "\n".join(_edit_block(rng, old)), None)
    return None
