"""editbench: does an edit land where the model meant, and only there?

Run ``uv run python -m bench.editbench`` (or ``uv run python bench/editbench/run.py``);
``--help`` lists the flags.  See README.md in this folder.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make ``bench`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.editbench import corpus
from bench.editbench import independent as I
from bench.editbench import models29 as M
from bench.editbench import tasks as T
from filewright.edit.edits import Edited, replace
from filewright.edit.matching import find

HERE = Path(__file__).resolve().parent
AIDER_PY = os.environ.get("EDITBENCH_AIDER_PYTHON", "/tmp/aider-venv/bin/python")
MCP_DIR = os.environ.get("EDITBENCH_MCP_DIR", "/tmp/mcpfs")
MCP_LIB = "node_modules/@modelcontextprotocol/server-filesystem/dist/lib.js"
OUTCOMES = ("correct", "inexact", "refused", "wrong")


def _untouched_kept(text: str, intended: str, result: str) -> bool:
    """Does ``result`` differ from ``intended`` only on lines the intended edit changed, one
    for one?  (No line added, lost or changed that the model did not change.)"""
    orig, want, got = text.split("\n"), intended.split("\n"), result.split("\n")
    changed: set[int] = set()
    for tag, _i1, _i2, j1, j2 in SequenceMatcher(None, orig, want, autojunk=False).get_opcodes():
        if tag != "equal":
            changed |= set(range(j1, j2))
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, want, got, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if tag != "replace" or i2 - i1 != j2 - j1 or not set(range(i1, i2)) <= changed:
            return False
    return True


def classify(task: T.Task, result: str | None) -> str:
    """correct (exactly the intended file) / inexact (applied; only lines the model changed
    differ from what it meant, e.g. its quotes) / refused / wrong (anything else: a line
    added, lost or changed that the model did not change, or any edit of a must-refuse task)."""
    if result is None:
        return "refused"
    if task.intended is None:
        return "wrong"
    if result == task.intended:
        return "correct"
    if _untouched_kept(task.text, task.intended, result):
        return "inexact"
    return "wrong"


def names_real(task: T.Task, detail: dict[str, Any], top: int) -> bool:
    """Does a refusal's detail point at the real lines or show the real text?"""
    lo, hi = task.real_lines
    for c in detail.get("closest", [])[:top]:
        if c["start_line"] <= hi and lo <= c["end_line"]:
            return True
        if task.real_text.strip() and task.real_text.strip() in c["text"]:
            return True
    return False


# --------------------------------------------------------------------------- systems


def run_filewright(
    tasks: list[T.Task],
) -> tuple[dict[int, str | None], dict[int, dict[str, Any]], float]:
    results: dict[int, str | None] = {}
    details: dict[int, dict[str, Any]] = {}
    t0 = time.perf_counter()
    for t in tasks:
        res = replace(t.text, t.old, t.new)
        if isinstance(res, Edited):
            results[t.id] = res.text
        else:
            results[t.id] = None
            details[t.id] = {"code": res.code, **res.detail}
    return results, details, time.perf_counter() - t0


def run_exact(tasks: list[T.Task]) -> dict[int, str | None]:
    out: dict[int, str | None] = {}
    for t in tasks:
        ok = t.old and t.text.count(t.old) == 1
        out[t.id] = t.text.replace(t.old, t.new, 1) if ok else None
    return out


def _start_peer(cmd: list[str], tasks: list[T.Task]) -> tuple[subprocess.Popen[str], Any]:
    f = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115 (closed in _collect)
    for t in tasks:
        f.write(json.dumps({"id": t.id, "text": t.text, "old": t.old, "new": t.new}) + "\n")
    f.seek(0)
    proc = subprocess.Popen(
        cmd, stdin=f, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8"
    )
    return proc, f


def _collect(proc: subprocess.Popen[str], f: Any, timeout: float) -> dict[int, str | None] | str:
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        return "timed out"
    finally:
        f.close()
    if proc.returncode != 0:
        return f"exit {proc.returncode}: {err.strip()[-300:]}"
    res: dict[int, str | None] = {}
    for line in out.splitlines():
        d = json.loads(line)
        res[d["id"]] = d["result"]
    return res


def peers_available() -> dict[str, list[str]]:
    """Commands for the peers that are installed here (see ``--install-peers``)."""
    out: dict[str, list[str]] = {}
    if Path(AIDER_PY).exists():
        probe = subprocess.run(
            [AIDER_PY, "-c", "import aider.coders.editblock_coder"], capture_output=True
        )
        if probe.returncode == 0:
            out["aider"] = [AIDER_PY, str(HERE / "peer_aider.py")]
    lib = Path(MCP_DIR) / MCP_LIB
    if lib.exists() and subprocess.run(["node", "--version"], capture_output=True).returncode == 0:
        out["mcp-fs"] = ["node", str(HERE / "peer_mcp.mjs"), str(lib)]
    return out


def install_peers() -> None:
    """Install aider-chat into a throwaway venv and the MCP filesystem server into a temp dir."""
    subprocess.run(["uv", "venv", "-q", str(Path(AIDER_PY).parents[1])], check=False)
    subprocess.run(["uv", "pip", "install", "-q", "--python", AIDER_PY, "aider-chat"], check=False)
    Path(MCP_DIR).mkdir(parents=True, exist_ok=True)
    subprocess.run(["npm", "init", "-y"], cwd=MCP_DIR, capture_output=True, check=False)
    subprocess.run(
        ["npm", "install", "-s", "@modelcontextprotocol/server-filesystem"],
        cwd=MCP_DIR,
        check=False,
    )


# --------------------------------------------------------------------------- scaling


def scaling(files: list[corpus.SourceFile]) -> dict[str, float]:
    """Time a no-match ladder on ~1 MB and ~10 MB of real text (and hints on 10 MB)."""
    base = "\n".join(f.text for f in files if f.ext == ".py") or "\n".join(f.text for f in files)
    reps = 10_000_000 // max(1, len(base)) + 1
    big = (base + "\n") * reps
    small, large = big[:1_000_000], big[:10_000_000]
    lines = base.split("\n")
    j = next(i for i in range(len(lines) // 3, len(lines)) if len(lines[i].strip()) > 20)
    old = "  " + lines[j].strip() + "_zz\n" + lines[j + 1].replace("e", "E", 1)

    def best(text: str) -> float:
        times = []
        for _ in range(2):
            t0 = time.perf_counter()
            assert find(text, old).count == 0
            times.append(time.perf_counter() - t0)
        return min(times)

    t1, t10 = best(small), best(large)
    t0 = time.perf_counter()
    replace(large, old, "x")
    hint10 = time.perf_counter() - t0
    return {
        "ladder_1mb_s": t1,
        "ladder_10mb_s": t10,
        "ratio": t10 / t1,
        "replace_with_hints_10mb_s": hint10,
    }


# --------------------------------------------------------------------------- report


def _cell(c: Counter[str]) -> str:
    return "/".join(f"{c[o]:>3}" for o in OUTCOMES)


def report(
    tasks: list[T.Task],
    systems: dict[str, dict[int, str | None]],
    details: dict[int, dict[str, Any]],
) -> dict[str, Any]:
    names = list(systems)
    by_cat: dict[str, dict[str, Counter[str]]] = defaultdict(lambda: defaultdict(Counter))
    for t in tasks:
        for s in names:
            by_cat[t.category][s][classify(t, systems[s].get(t.id))] += 1
    width = 16
    head = f"{'category':<24}{'n':>4}  " + "".join(f"{s:^{width + 2}}" for s in names)
    print("\nper category: correct/inexact/refused/wrong\n")
    print(head)
    print("-" * len(head))
    summary: dict[str, Any] = {"categories": {}}
    groups = (
        ("recoverable", T.RECOVER),
        ("independent slips, blank lines, CJK", I.CATEGORIES + I.CJK_CATEGORIES),
        ("issue 29: elision, flattening, spacing, edges, spellings", M.CATEGORIES),
        ("must refuse", T.REFUSE),
    )
    for group, cats in groups:
        print(f"[{group}]")
        for cat in cats:
            if cat not in by_cat:
                continue
            n = sum(by_cat[cat][names[0]].values())
            row = f"{cat:<24}{n:>4}  " + "".join(
                f" {_cell(by_cat[cat][s]):^{width}} " for s in names
            )
            print(row)
            summary["categories"][cat] = {s: dict(by_cat[cat][s]) for s in names}
    print()
    indep = set(I.CATEGORIES + I.CJK_CATEGORIES)
    models29 = set(M.CATEGORIES)
    for s in names:
        for label, pick in (
            ("recoverable", lambda t: not t.must_refuse and t.category in T.RECOVER),
            ("independent", lambda t: t.category in indep),
            ("issue 29", lambda t: t.category in models29),
        ):
            rec = [t for t in tasks if pick(t) and t.category != "exact"]
            got = Counter(classify(t, systems[s].get(t.id)) for t in rec)
            print(
                f"{s:<11} {label:<12} correct {got['correct']}/{len(rec)} "
                f"({100 * got['correct'] / max(1, len(rec)):.1f}%), applied but not exactly "
                f"intended {got['inexact']}, refused {got['refused']}, wrong {got['wrong']}"
            )
            summary.setdefault(s, {})[label] = {"n": len(rec), **got}
        ref = [t for t in tasks if t.must_refuse]
        refused_ok = sum(classify(t, systems[s].get(t.id)) == "refused" for t in ref)
        wrong = sum(classify(t, systems[s].get(t.id)) == "wrong" for t in tasks)
        print(f"{s:<11} must-refuse refused {refused_ok}/{len(ref)}; wrong edits in all {wrong}")
        summary[s]["must_refuse_refused"] = refused_ok
        summary[s]["wrong"] = wrong
    mis = [t for t in tasks if t.category in T.MISREMEMBERED and t.id in details]
    shown = [t for t in tasks if t.category in indep and t.id in details]
    if shown:
        near = sum(names_real(t, details[t.id], 3) for t in shown)
        print(
            f"filewright  refusals of independent-slip tasks showing the real lines: "
            f"{near}/{len(shown)} in the top 3 hints"
        )
    top1 = sum(names_real(t, details[t.id], 1) for t in mis)
    top3 = sum(names_real(t, details[t.id], 3) for t in mis)
    print(
        f"filewright  misremembered-text refusals naming the real line or text: "
        f"{top3}/{len(mis)} ({100 * top3 / max(1, len(mis)):.1f}%) in the top 3 hints, "
        f"{top1}/{len(mis)} ({100 * top1 / max(1, len(mis)):.1f}%) in the first"
    )
    summary["hints"] = {"misremembered": len(mis), "top1": top1, "top3": top3}
    return summary


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="editbench", description=__doc__)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument(
        "--per-category", type=int, default=100, help="tasks per category (default 100)"
    )
    ap.add_argument("--files", type=int, default=160, help="corpus files sampled (default 160)")
    ap.add_argument("--no-peers", action="store_true", help="skip aider and the MCP server")
    ap.add_argument("--install-peers", action="store_true", help="install the peers first")
    ap.add_argument("--no-scaling", action="store_true")
    ap.add_argument("--json", type=Path, help="write the summary as JSON here")
    ap.add_argument("--show-wrong", action="store_true", help="print filewright's wrong edits")
    args = ap.parse_args(argv)

    if args.install_peers:
        install_peers()
    t0 = time.perf_counter()
    files = corpus.load(args.seed, args.files)
    exts = Counter(f.ext for f in files)
    print(f"corpus: {len(files)} files ({', '.join(f'{e} {n}' for e, n in exts.most_common())})")
    tasks = T.build(files, args.per_category, args.seed)
    tasks += I.build(files, args.per_category, args.seed, len(tasks))
    tasks += M.build(files, I.cjk_corpus(), args.per_category, args.seed, len(tasks))
    print(f"tasks: {len(tasks)} ({time.perf_counter() - t0:.1f}s to build)")

    peers = {} if args.no_peers else peers_available()
    started = {name: _start_peer(cmd, tasks) for name, cmd in peers.items()}
    fw, details, fw_time = run_filewright(tasks)
    print(f"filewright: {fw_time:.1f}s for {len(tasks)} tasks")
    systems: dict[str, dict[int, str | None]] = {"filewright": fw, "exact": run_exact(tasks)}
    for name, (proc, f) in started.items():
        res = _collect(proc, f, timeout=600)
        if isinstance(res, str):
            print(f"peer {name} did not run: {res}")
        else:
            systems[name] = res
    ran = [n for n in peers if n in systems]
    print(f"peers run: {', '.join(ran) if ran else 'none'}")
    summary = report(tasks, systems, details)
    if args.show_wrong:
        for t in tasks:
            if classify(t, fw.get(t.id)) == "wrong":
                print(
                    f"\nWRONG {t.category} {t.path} lines {t.real_lines}\nold={t.old!r}\nnew={t.new!r}"
                )
    if not args.no_scaling:
        sc = scaling(files)
        print(
            f"\nscaling (no match): ladder {sc['ladder_1mb_s']:.3f}s on 1 MB, "
            f"{sc['ladder_10mb_s']:.3f}s on 10 MB, ratio {sc['ratio']:.1f}x (target <= 15x); "
            f"replace with failure hints on 10 MB {sc['replace_with_hints_10mb_s']:.2f}s"
        )
        summary["scaling"] = sc
    print(f"\ntotal {time.perf_counter() - t0:.0f}s")
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
