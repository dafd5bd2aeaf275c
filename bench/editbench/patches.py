"""editbench for patches: the edit tasks, written as V4A patches, applied by filewright's
apply_patch and by a plain first-hit V4A applier.

Every edit task of ``tasks.build`` (same corpus, same seed, same blocks, same intended
edits, same perturbations) becomes one ``*** Update File`` hunk: the lines of the
perturbed ``old`` and ``new`` are diffed, so the context lines carry the same model
mistakes as the edit's ``old`` (trailing spaces, re-indentation, tabs, curly quotes, line
numbers, CRLF ...). Two categories have no patch form and are left out:
``over_escaped`` (a patch is sent as lines, not as one escaped string) and
``fragment_curly`` (part of a line; hunks speak of whole lines).

Scored as the edit tasks are (``run.classify``): correct / degraded (right place, only
whitespace differs) / refused / wrong; a must-refuse task (absent, misremembered,
duplicate, duplicate after normalisation) applied anywhere is wrong.

Systems:

* ``filewright``: ``parse_patch`` then ``apply_hunks`` (what the ``apply_patch`` toolset
  runs before its commit);
* ``v4a-first-hit``: ``v4a_reference.apply_reference``, the reference appliers' rule
  (exact, then trailing whitespace, then all surrounding whitespace ignored; first place).

Run ``uv run python -m bench.editbench.patches`` (``--per-category``, ``--files``,
``--seed``, ``--show-wrong``, ``--json``).
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make ``bench`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.editbench import corpus
from bench.editbench import tasks as T
from bench.editbench.run import classify, report
from bench.editbench.v4a_reference import ReferenceError_, apply_reference
from filewright.edit.outcome import Edited
from filewright.edit.patch_apply import apply_hunks
from filewright.edit.patch_parse import PatchError, UpdateFile, parse_patch

#: Edit categories without a patch form (see the module docstring).
NO_PATCH_FORM = ("over_escaped", "fragment_curly")


def hunk_lines(old: str, new: str) -> list[str]:
    """The hunk a model writes for ``old`` -> ``new``: shared lines as context."""
    eol = "\r\n" if "\r\n" in old + new else "\n"
    a, b = old.split(eol), new.split(eol)
    out: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            out += [" " + x for x in a[i1:i2]]
            continue
        out += ["-" + x for x in a[i1:i2]]
        out += ["+" + x for x in b[j1:j2]]
    return out


#: Patch-only category: a block present twice, with an ``@@`` line naming the enclosing
#: line of the copy meant (made from the ``duplicate`` tasks; recoverable).
SCOPED = "scoped_duplicate"


def _indent(line: str) -> int:
    return len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip())


def scoped_twin(task: T.Task, tid: int) -> tuple[T.Task, str] | None:
    """A ``duplicate`` task's twin whose patch names the enclosing line of the original
    block in an ``@@`` line; None when the block has no such line that tells the copies
    apart (its block, by indentation, holds the original and not the copy)."""
    lines = task.text.split("\n")
    block = task.old.split("\n")
    k = len(block)
    starts = [i for i in range(len(lines) - k + 1) if lines[i : i + k] == block]
    if len(starts) != 2:
        return None
    # the original is the one at real_lines in the file before the copy was inserted
    orig = next((s for s in starts if s + 1 == task.real_lines[0]), None)
    if orig is None:
        orig = starts[1]
    copy = starts[0] if orig == starts[1] else starts[1]
    base = _indent(block[0])
    scope = None
    for j in range(orig - 1, -1, -1):
        if lines[j].strip() and _indent(lines[j]) < base:
            scope = j
            break
    if scope is None or lines.count(lines[scope]) != 1:
        return None
    end = scope
    for j in range(scope + 1, len(lines)):
        if lines[j].strip() and _indent(lines[j]) <= _indent(lines[scope]):
            break
        end = j
    if not scope < orig <= end or scope < copy <= end:
        return None
    intended = "\n".join(lines[:orig] + task.new.split("\n") + lines[orig + k :])
    twin = T.Task(
        tid, SCOPED, task.path, task.text, task.old, task.new, intended,
        (orig + 1, orig + k), task.old,
    )  # fmt: skip
    return twin, lines[scope].strip()


#: Patch-only categories: context and removed lines copied with a mistake, added lines
#: written cleanly in the file's style (the model writes new code fresh); recoverable.
MIXED = {
    "curly_quotes": "ctx_curly_quotes",
    "trailing_ws": "ctx_trailing_ws",
    "collapsed_spaces": "ctx_collapsed_spaces",
}


def mixed_twin(task: T.Task, tid: int) -> tuple[T.Task, list[str]] | None:
    """A twin of a line-preserving task whose added lines are clean (see `MIXED`)."""
    if task.intended is None:
        return None
    lines, want = task.text.split("\n"), task.intended.split("\n")
    i, k = task.real_lines[0] - 1, task.real_lines[1] - task.real_lines[0] + 1
    clean_old = lines[i : i + k]
    clean_new = want[i : i + k + len(want) - len(lines)]
    noisy_old = task.old.split("\n")
    if len(noisy_old) != len(clean_old):
        return None
    body: list[str] = []
    sm = difflib.SequenceMatcher(None, clean_old, clean_new, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            body += [" " + x for x in noisy_old[i1:i2]]
            continue
        body += ["-" + x for x in noisy_old[i1:i2]]
        body += ["+" + x for x in clean_new[j1:j2]]
    twin = T.Task(
        tid, MIXED[task.category], task.path, task.text, task.old, "\n".join(clean_new),
        task.intended, task.real_lines, task.real_text,
    )  # fmt: skip
    return twin, body


SCOPES: dict[int, str] = {}
BODIES: dict[int, list[str]] = {}


def as_patch(task: T.Task) -> tuple[str, str]:
    """(the whole patch, the hunk body) for ``task``; CRLF tasks send the patch in CRLF."""
    scope = SCOPES.get(task.id)
    lines = BODIES.get(task.id) or hunk_lines(task.old, task.new)
    body = [f"@@ {scope}" if scope else "@@", *lines]
    eol = "\r\n" if task.category == "crlf" else "\n"
    name = Path(task.path).name
    whole = ["*** Begin Patch", f"*** Update File: {name}", *body, "*** End Patch"]
    return eol.join(whole) + eol, "\n".join(body)


def run_filewright(
    tasks: list[T.Task],
) -> tuple[dict[int, str | None], dict[int, dict[str, Any]], float]:
    results: dict[int, str | None] = {}
    details: dict[int, dict[str, Any]] = {}
    t0 = time.perf_counter()
    for t in tasks:
        parsed = parse_patch(as_patch(t)[0])
        if isinstance(parsed, PatchError):
            results[t.id] = None
            details[t.id] = {"code": "invalid_patch", "message": parsed.message}
            continue
        op = parsed.operations[0]
        assert isinstance(op, UpdateFile)
        out = apply_hunks(t.text, op.hunks)
        if isinstance(out, Edited):
            results[t.id] = out.text
        else:
            results[t.id] = None
            details[t.id] = {"code": out.code, **out.detail}
    return results, details, time.perf_counter() - t0


def run_reference(tasks: list[T.Task]) -> dict[int, str | None]:
    out: dict[int, str | None] = {}
    for t in tasks:
        try:
            out[t.id] = apply_reference(t.text, as_patch(t)[1])
        except ReferenceError_:
            out[t.id] = None
    return out


def scaling(files: list[corpus.SourceFile]) -> dict[str, float]:
    """Seconds to apply a one-hunk patch near the end of ~1 MB and ~10 MB of real text
    (filewright and the reference, best of two), and for filewright to refuse one whose
    context is misremembered (the ladder runs, then the hints)."""
    base = "\n".join(f.text for f in files if f.ext == ".py") or "\n".join(f.text for f in files)
    out: dict[str, float] = {}
    for label, size in (("1mb", 1_000_000), ("10mb", 10_000_000)):
        text = ((base + "\n") * (size // max(1, len(base)) + 1))[:size]
        lines = text.split("\n")
        j = len(lines) - 50
        marker = "UNIQUE_MARKER_LINE = 1"
        lines[j] = marker
        text = "\n".join(lines)
        diff = f"@@\n {lines[j - 1]}\n-{marker}\n+UNIQUE_MARKER_LINE = 2\n {lines[j + 1]}"
        hunks = parse_patch(f"*** Begin Patch\n*** Update File: f\n{diff}\n*** End Patch\n")
        assert not isinstance(hunks, PatchError)
        op = hunks.operations[0]
        assert isinstance(op, UpdateFile)
        for name, fn in (
            ("filewright", lambda t=text, h=op.hunks: apply_hunks(t, h)),
            ("reference", lambda t=text, d=diff: apply_reference(t, d)),
        ):
            times = []
            for _ in range(2):
                t0 = time.perf_counter()
                fn()
                times.append(time.perf_counter() - t0)
            out[f"{name}_{label}_s"] = min(times)
        bad = op.hunks[0].__class__(
            (), ((" ", lines[j - 1] + "_zz"), ("-", marker + "x"), ("+", "y")), False, 1
        )
        t0 = time.perf_counter()
        apply_hunks(text, (bad,))
        out[f"filewright_refusal_{label}_s"] = time.perf_counter() - t0
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="editbench.patches", description=__doc__)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--per-category", type=int, default=100)
    ap.add_argument("--files", type=int, default=160)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--show-wrong", action="store_true")
    ap.add_argument("--no-scaling", action="store_true")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    files = corpus.load(args.seed, args.files)
    tasks = [
        t for t in T.build(files, args.per_category, args.seed) if t.category not in NO_PATCH_FORM
    ]
    next_id = max((t.id for t in tasks), default=0) + 1
    for t in [t for t in tasks if t.category == "duplicate"]:
        made = scoped_twin(t, next_id)
        if made is not None:
            tasks.append(made[0])
            SCOPES[next_id] = made[1]
            next_id += 1
    for t in [t for t in tasks if t.category in MIXED]:
        mixed = mixed_twin(t, next_id)
        if mixed is not None:
            tasks.append(mixed[0])
            BODIES[next_id] = mixed[1]
            next_id += 1
    print(f"corpus: {len(files)} files; patch tasks: {len(tasks)}")
    fw, details, fw_time = run_filewright(tasks)
    print(f"filewright: {fw_time:.1f}s for {len(tasks)} patches")
    systems = {"filewright": fw, "v4a-first-hit": run_reference(tasks)}
    extra = [c for c in (SCOPED, *MIXED.values()) if c not in T.RECOVER]
    T.RECOVER = (*T.RECOVER, *extra)  # shown in the report's recoverable group
    summary = report(tasks, systems, details)
    refuse = [t for t in tasks if t.category in ("duplicate", "dup_after_norm")]
    for name, res in systems.items():
        n = sum(classify(t, res.get(t.id)) == "refused" for t in refuse)
        print(f"{name:<14} ambiguous contexts refused: {n}/{len(refuse)}")
        summary[name]["ambiguous_refused"] = n
    codes = Counter(d["code"] for d in details.values())
    print(f"filewright refusal codes: {dict(codes)}")
    if args.show_wrong:
        for t in tasks:
            if classify(t, fw.get(t.id)) in ("wrong", "degraded") or (
                not t.must_refuse and fw.get(t.id) is None
            ):
                print(f"\n{classify(t, fw.get(t.id)).upper()} {t.category} {t.path} {t.real_lines}")
                print(as_patch(t)[1])
                if t.id in details:
                    print({k: v for k, v in details[t.id].items() if k != "closest"})
    if not args.no_scaling:
        sc = scaling(files)
        for label in ("1mb", "10mb"):
            fw_s, ref_s = sc[f"filewright_{label}_s"], sc[f"reference_{label}_s"]
            print(
                f"scaling {label}: apply filewright {fw_s:.3f}s, reference {ref_s:.3f}s "
                f"(ratio {fw_s / ref_s:.2f}x); refusal with hints {sc[f'filewright_refusal_{label}_s']:.2f}s"
            )
        summary["scaling"] = sc
    print(f"\ntotal {time.perf_counter() - t0:.0f}s")
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
