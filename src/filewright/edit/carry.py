"""Carry the model's change onto the real text: the replacement side of the ladder.

The ladder (:mod:`filewright.edit.matching`) finds the file lines that ``old`` stands for,
possibly through a normalisation; this module decides what is written there.  The rule,
right by construction:

1. **What the model changed** is the difference between ``old`` and ``new`` compared
   modulo the cosmetic normalisations (trailing whitespace, runs of spaces, typographic and
   full-width look-alikes) and one indentation frame: a line-by-line alignment
   (``difflib.SequenceMatcher``) of the non-blank lines of ``old`` and ``new``.
2. **Every line the model did not change** is written as the file has it, byte for byte
   (the file line that line of ``old`` matched).
3. **Blank lines** between two lines that ``new`` keeps or rewrites one for one are the
   file's, in number and bytes, whatever ``new`` has there: a blank line more or less next
   to lines the model did not add or remove is a slip of memory, like trailing whitespace.
   So are those at the block's edges next to such lines.
   Next to lines ``new`` inserts or drops, the file's blank lines
   are kept when ``new`` has as many there as ``old`` (or as the file); when ``old`` had the
   file's count and ``new`` another, the model changed them and ``new``'s count is written.
   When ``old`` misremembered the count and ``new`` differs from both, or lines are inserted
   into a gap ``old`` misremembered, nobody can tell what was meant: :class:`CannotCarry`
   is raised (the caller refuses and shows the real text).
4. **Changed and inserted lines** are the model's, in the file's style where that is
   unambiguous: indentation moved into the file's frame (``new`` may be written in
   ``old``'s frame or already in the file's; it is never shifted twice), tabs or spaces as
   the file uses them; at the levels that fold typography or collapse spaces, runs equal
   to the replaced file text after that folding are written as the file has them (its
   quotes, full-width punctuation, spacing), and trailing whitespace follows the file line
   it replaces.

The indentation frame of ``new``: ``old`` matched at a uniform offset ``delta`` from the
file; ``new`` is taken to be written where ``old`` was (offset 0) unless every line it keeps
from ``old`` (or, with none kept, every line it replaces one for one) moved by one same
offset and its least indented line moved by that offset too: then the whole snippet was
written in another frame (already at the file's indentation, from column 0, a level
deeper), and only that frame is undone.  A block wrapped or unwrapped on purpose keeps a
line at the old base level, so its re-indented lines stay as written.

At the exact level (``old`` needed no normalisation; ``literal``) what the model changed is its
literal text: changed and inserted lines are written as given, moved into the file's frame;
only look-alike punctuation equal to the replaced line's is restored, and trailing
whitespace and space runs only when the lines the model kept show that slip.

When the only difference between ``old`` and ``new`` is cosmetic (the rule above would
leave the file as it is), that cosmetic change is what the model asked for: at the exact
level ``new`` is written as given, at the other levels blank lines follow the count rule.

Pure functions; the caller supplies the matched file lines.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from difflib import SequenceMatcher

from filewright.edit.normalize import (
    TYPOGRAPHIC_CHARS,
    collapse_spaces,
    fold_typography,
    indent_offset,
    leading_ws,
    ws_width,
)

Restore = Callable[[str, str], str]
"""``(file_text, new_text) -> new_text`` with runs equal after the level's folding restored."""


class CannotCarry(Exception):
    """The change cannot be carried onto the real text without guessing (``reason`` says why)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def content_key(line: str) -> str:
    """A line's content as the old/new comparison sees it (cosmetic differences folded)."""
    return collapse_spaces(fold_typography(line)).strip()


@dataclass
class _Side:
    """Non-blank lines of a block (indices), their keys and widths, and the gaps around them.

    ``gaps[k]`` holds the blank lines before item ``k``; ``gaps[len(items)]`` those after the
    last item.
    """

    lines: list[str]
    items: list[int]
    keys: list[str]
    gaps: list[list[str]]


def _side(lines: list[str], fold: Callable[[str], str] | None = None) -> _Side:
    items: list[int] = []
    gaps: list[list[str]] = [[]]
    for i, line in enumerate(lines):
        if line.strip():
            items.append(i)
            gaps.append([])
        else:
            gaps[-1].append(line)
    keys = [content_key(lines[i]) for i in items]
    return _Side(lines, items, [fold(k) for k in keys] if fold else keys, gaps)


def _frame(old: _Side, new: _Side, tab: int, delta: int) -> int:
    """Offset of ``new``'s indentation from ``old``'s frame (see the module docstring).

    The shift that every line ``new`` keeps from ``old`` shows (or, with none kept, every
    line it replaces one for one, or with none of those the first line of every block it
    replaces by another number of lines), when it is ``delta`` (``new`` sits at the file's own
    indentation) or ``new``'s least indented line sits exactly that far from ``old``'s: the
    whole snippet was written elsewhere (from column 0, one level deeper).  Otherwise 0: lines that moved were re-indented on
    purpose (a block wrapped or unwrapped keeps a line at the old base level).
    """

    def width(side: _Side, k: int) -> int:
        return ws_width(leading_ws(side.lines[side.items[k]]), tab)

    if not old.items or not new.items:
        return 0
    kept: set[int] = set()
    replaced: set[int] = set()
    firsts: set[int] = set()  # replaced blocks of other sizes: their first lines
    sm = SequenceMatcher(None, old.keys, new.keys, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            kept |= {width(new, j1 + k) - width(old, i1 + k) for k in range(i2 - i1)}
        elif tag == "replace" and i2 - i1 == j2 - j1:
            replaced |= {width(new, j1 + k) - width(old, i1 + k) for k in range(i2 - i1)}
        elif tag == "replace":
            firsts.add(width(new, j1) - width(old, i1))
    shifts = kept or replaced or firsts
    if len(shifts) != 1:
        return 0
    shift = shifts.pop()
    old_min = min(width(old, k) for k in range(len(old.items)))
    new_min = min(width(new, k) for k in range(len(new.items)))
    return shift if shift == delta or new_min == old_min + shift else 0


def _kept_shifts(old: _Side, new: _Side, tab: int) -> set[int]:
    """How far (in columns) each line ``new`` keeps from ``old`` moved."""

    def width(side: _Side, k: int) -> int:
        return ws_width(leading_ws(side.lines[side.items[k]]), tab)

    sm = SequenceMatcher(None, old.keys, new.keys, autojunk=False)
    return {
        width(new, j1 + k) - width(old, i1 + k)
        for tag, i1, i2, j1, _j2 in sm.get_opcodes()
        if tag == "equal"
        for k in range(i2 - i1)
    }


def _trailing_slip(old: _Side, new: _Side) -> bool:
    """Does a line ``new`` keeps from ``old`` end in other whitespace than old's line?"""

    def trail(side: _Side, k: int) -> str:
        line = side.lines[side.items[k]]
        return line[len(line.rstrip()) :]

    sm = SequenceMatcher(None, old.keys, new.keys, autojunk=False)
    return any(
        trail(new, j1 + k) != trail(old, i1 + k)
        for tag, i1, i2, j1, _j2 in sm.get_opcodes()
        if tag == "equal"
        for k in range(i2 - i1)
    )


def _cosmetic_slip(old: _Side, new: _Side) -> bool:
    """Does a line ``new`` keeps from ``old`` differ from it inside (quotes, spaces)?"""
    sm = SequenceMatcher(None, old.keys, new.keys, autojunk=False)
    return any(
        new.lines[new.items[j1 + k]].strip() != old.lines[old.items[i1 + k]].strip()
        for tag, i1, i2, j1, _j2 in sm.get_opcodes()
        if tag == "equal"
        for k in range(i2 - i1)
    )


def carry_lines(
    flines: list[str],
    olines: list[str],
    nlines: list[str],
    *,
    restore: Restore | None = None,
    keep_gaps: bool = True,
    literal: bool = False,
    literal_edges: tuple[bool, bool] = (False, False),
    restore_typography_only: Restore | None = None,
    flat: bool = False,
    fold: Callable[[str], str] | None = None,
) -> list[str]:
    """The file lines that replace ``flines`` (matched by ``olines``) when ``new`` is ``nlines``.

    ``flines`` and ``olines`` must have the same non-blank lines in order (the ladder's
    match).  ``restore`` carries the level's folding onto changed lines (see module
    docstring).  With ``keep_gaps`` (the default) the blank lines between two lines that
    ``new`` keeps or rewrites one for one are the file's whatever ``new`` has there (a
    blank-line slip); without, they follow the count rule like every other gap.  With
    ``literal`` (an exact match: ``old`` needed no normalisation), the lines the model changed
    or inserted are written as given, only moved into the file's indentation frame, unless
    the lines it kept show a slip (trailing whitespace; quotes, spaces, punctuation), which
    is then undone on them too (``restore_typography_only`` otherwise); ``literal_edges`` (start, end) keeps ``new``'s own blank
    lines at those edges as given.  With ``flat`` (``old`` matched with its indentation
    flattened: no one offset maps it onto the file), a changed line keeps the indentation
    of the file line it replaces, an inserted line that of the line above it in the result
    moved by as much as ``new`` indents it from that line.  ``fold``: the level's further
    folding of a line's content (spelling, spaces next to punctuation) for telling kept
    lines from changed ones.  Raises
    :class:`CannotCarry` when blank lines cannot be carried.
    """
    old, new, file = _side(olines, fold), _side(nlines, fold), _side(flines, fold)
    if not new.items:
        return list(nlines)
    if len(old.items) != len(file.items):
        raise CannotCarry("the matched lines do not line up with old_string")
    pairs = [
        (leading_ws(flines[f]), leading_ws(olines[o]))
        for o, f in zip(old.items, file.items, strict=True)
    ]
    uniform = indent_offset(pairs)
    flat = flat and uniform is None
    tab, delta = uniform or (4, 0)
    shift = 0 if flat else delta - _frame(old, new, tab, delta)  # what new still needs
    if (
        not flat
        and shift == delta
        and len(moved := _kept_shifts(old, new, tab)) > 1
        and 0 not in moved
    ):
        # every line new keeps moved, by different amounts, and no frame explains it (a
        # tab counted as one column): writing them as sent re-indents lines the model kept
        raise CannotCarry(
            "new_string re-indents the lines it keeps from old_string by different amounts"
        )
    wsmap: dict[str, str] = {}
    if shift == delta and not flat:
        for f, o in pairs:
            wsmap.setdefault(o, f)
    use_tabs = sum(f.startswith("\t") for f, _ in pairs) > sum(f.startswith(" ") for f, _ in pairs)
    # the region indents with tabs only or spaces only: new lines are written that way too
    kinds = {c for f, _ in pairs for c in f}
    style = next(iter(kinds)) if len(kinds) == 1 else None
    any_ws_blank = any(x and not x.strip() for x in flines)
    # no line of the region ends in whitespace, or new's kept lines show trailing whitespace
    # old's do not have: new lines do not end in whitespace either
    noise_trail = all(x == x.rstrip() for x in flines if x.strip()) or _trailing_slip(old, new)

    def width(side: _Side, k: int) -> int:
        return ws_width(leading_ws(side.lines[side.items[k]]), tab)

    # compare (indentation in old's frame, content): a re-indented line is a changed line
    frame = delta - shift
    # (flat: the content only, old's indentation says nothing)
    okeys = [(0 if flat else width(old, k), key) for k, key in enumerate(old.keys)]
    nkeys = [(0 if flat else width(new, k) - frame, key) for k, key in enumerate(new.keys)]

    def restyle(ws_width_: int, rest: str) -> str:
        w = max(0, ws_width_)
        if style == "\t" or (style is None and use_tabs):
            return "\t" * (w // tab) + " " * (w % tab) + rest
        return " " * w + rest

    # flat: (the file's indentation, new's) of the last line kept or replaced, which
    # inserted lines are indented from
    anchor = [
        ws_width(leading_ws(flines[file.items[0]]), tab) if file.items else 0,
        width(old, 0) if old.items else 0,
    ]

    def reindent(line: str, fline: str | None = None) -> str:
        ws = leading_ws(line)
        rest = line[len(ws) :]
        if flat:
            if fline is not None:  # old's indentation says nothing: the file line's
                return restyle(ws_width(leading_ws(fline), tab), rest)
            return restyle(anchor[0] + ws_width(ws, tab) - anchor[1], rest)
        if ws in wsmap:
            return wsmap[ws] + rest
        in_style = style is None or not ws or set(ws) == {style}
        if shift == 0 and in_style:
            return line
        w = max(0, ws_width(ws, tab) + shift)
        if style == "\t" or (style is None and use_tabs):
            return "\t" * (w // tab) + " " * (w % tab) + rest
        return " " * w + rest

    # at an exact match, the model's text is undone only where it shows the slip on lines it
    # kept (trailing whitespace, or quotes/spaces/punctuation) and so made it on all of them
    trail_fix = not literal or _trailing_slip(old, new)
    # (typographic look-alikes and full-width punctuation always: nobody types “ for ")
    if literal and not _cosmetic_slip(old, new):
        restore = restore_typography_only
    runs_fix = restore is not None

    def changed(line: str, fline: str | None, block: str) -> str:
        line = reindent(line, fline)
        ws = leading_ws(line)
        content = line[len(ws) :]
        if fline is not None:
            if trail_fix:
                content = content.rstrip()
            if runs_fix:
                assert restore is not None
                content = restore(fline.strip(), content)
            return ws + content + (fline[len(fline.rstrip()) :] if trail_fix else "")
        if runs_fix:
            assert restore is not None
            content = restore(block, content)
        return ws + (content.rstrip() if noise_trail and trail_fix else content)

    def blanks(lines: list[str]) -> list[str]:
        return list(lines) if any_ws_blank or literal else ["" for _ in lines]

    def boundary(cands: list[int], nk: int, split: bool, after: bool = False) -> list[str]:
        n = len(new.gaps[nk])
        counts = [(len(old.gaps[c]), len(file.gaps[c]), c) for c in cands]
        faithful = all(o == f for o, f, _ in counts)
        if split and not faithful:  # lines inserted into a gap old misremembered
            o, f, c = counts[-1]
            around = split_total.get(c)
            if around == f:  # new has the file's blank lines around them: where it puts them
                return blanks(new.gaps[nk])
            if around == o == 0:  # neither has the gap: the lines join the line above
                return list(file.gaps[c]) if after else []
            if around == o and f == 0:  # old invented the gap, new kept it: the file has none
                return []
            raise CannotCarry(
                "lines are inserted next to blank lines that old_string does not have as the"
                " file has them"
            )
        # the readings of new's count here, each with the file's blank lines it keeps
        readings: list[list[str]] = []
        if len(counts) > 1:  # lines dropped between gaps
            total = sum(o for o, _, _ in counts)
            if n in (total, sum(f for _, f, _ in counts)):  # their blank lines all kept
                readings.append([x for _, _, c in counts for x in file.gaps[c]])
            if n < total and (n == 0 or n not in [o for o, _, _ in counts]):
                raise CannotCarry(
                    "new_string drops blank lines around the lines it removes; whether they"
                    " should go too cannot be told"
                )
        readings += [list(file.gaps[c]) for o, f, c in counts if n in (o, f)]
        if readings:
            if any(r != readings[0] for r in readings):
                raise CannotCarry(
                    "new_string's blank lines around the lines it removes fit more than one"
                    " reading of the file's"
                )
            return readings[0]
        if faithful:
            return blanks(new.gaps[nk])
        raise CannotCarry(
            "old_string and new_string disagree with the file on the number of blank lines"
        )

    split_total: dict[int, int] = {}  # old gap -> new's blank lines around an insert there
    out: list[str] = []
    pend: list[int] = [0]
    split = False
    anchored = True  # the lines before the current gap are kept or replaced one for one

    def gap(cands: list[int], nk: int, split: bool, both_anchored: bool) -> list[str]:
        if both_anchored and keep_gaps:
            return list(file.gaps[cands[-1]])
        return boundary(cands, nk, split, after=split)

    sm = SequenceMatcher(None, okeys, nkeys, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        one_for_one = tag == "replace" and i2 - i1 == j2 - j1
        if tag == "equal" or one_for_one:
            block = "\n".join(flines[file.items[i]].strip() for i in range(i1, i2))
            for k in range(i2 - i1):
                if k == 0:
                    out += gap(pend, j1, split, anchored and not (literal_edges[0] and j1 == 0))
                else:
                    out += gap([i1 + k], j1 + k, False, True)
                fline = flines[file.items[i1 + k]]
                nline = nlines[new.items[j1 + k]]
                if tag == "equal":
                    out.append(fline)
                else:
                    out.append(changed(nline, fline, block))
                anchor[:] = [ws_width(leading_ws(fline), tab), ws_width(leading_ws(nline), tab)]
            pend, split, anchored = [i2], False, True
            continue
        if tag == "delete":
            pend, anchored = [*pend, i2], False
            continue
        if flat and i2 > i1:  # a block replaced by another number of lines: from its first
            fw = ws_width(leading_ws(flines[file.items[i1]]), tab)
            anchor[:] = [fw, fw if j2 > j1 and width(new, j1) == fw else width(old, i1)]
        if tag == "insert" and not split:
            gap_count = len(old.gaps[pend[-1]])
            split_total[pend[-1]] = len(new.gaps[j1]) + len(new.gaps[j2])
            if (
                gap_count == len(file.gaps[pend[-1]])
                and len(new.gaps[j1]) + len(new.gaps[j2]) < gap_count
            ):
                raise CannotCarry(
                    "new_string drops blank lines next to the lines it inserts; whether they"
                    " should go cannot be told"
                )
        out += boundary(pend, j1, split or tag == "insert", after=split)
        block = "\n".join(flines[file.items[i]].strip() for i in range(i1, i2))
        for k in range(j2 - j1):
            if k:
                out += blanks(new.gaps[j1 + k])
            out.append(changed(nlines[new.items[j1 + k]], None, block))
        if tag == "insert":
            split = True
        else:
            pend, split = [i2], False
        anchored = False
    # an exact match's edges: new's own blank lines there are its literal text
    out += gap(pend, len(new.items), split, anchored and not literal_edges[1])
    return out


def fold_noise(region_text: str, new: str, old: str) -> str:
    """Fold to ASCII the typographic characters ``old`` carried but the file region lacks."""
    noise = {c for c in old if c in TYPOGRAPHIC_CHARS} - set(region_text)
    if not noise:
        return new
    return "".join(fold_typography(c) if c in noise else c for c in new)
