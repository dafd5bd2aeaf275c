"""One deadline and one output budget per tool call (issue 30, findings 3, 4, 8, 9, 13).

Every regex operation a model's pattern reaches draws on one clock per call
(`core.budget.call_scope`, read by `core.regexes`): a call with no regex time left fails
its first regex, whichever tool and path runs it, and a pattern that is slow on every line
stops once the call's time is spent, not after each line.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
from adversarial.test_resource_budgets import call_capped
from forkserver import ForkServer, shared

from filewright import Workspace

SRC = Path(__file__).resolve().parents[1] / "src" / "filewright"

# -- finding 9: the regex time limit is per call -------------------------------------------

# (toolset, tool, args, file name, file content): each runs a model's pattern.
REGEX_CALLS: list[tuple[str, str, dict[str, Any], str, str]] = [
    ("default", "grep", {"pattern": "(?=b)b"}, "a.txt", "abc\n"),
    ("gemini", "search_file_content", {"pattern": "(?=b)b"}, "a.txt", "abc\n"),
    ("worker", "replace_in_file", {"path": "a.txt", "old": "b+", "new": "x", "regex": True},
     "a.txt", "abc\n"),
    ("default", "replace_span",
     {"path": "a.txt", "start": "b", "end": "c", "new_text": "bx c", "start_is_regex": True},
     "a.txt", "abc\n"),
    ("memo", "memo_replace_span",
     {"old_span_start_regex": "b", "old_span_end": "c", "new_text": "bxc"},
     "MEMORY.md", "abc\n"),
]  # fmt: skip


def _timed_out(result: Any) -> bool:
    text = result.text + " " + str(result.data.get("error", ""))
    return "longer than" in text or "too slow" in text


@pytest.mark.parametrize(("streamed"), [False, True], ids=["in-memory", "streamed"])
@pytest.mark.parametrize(
    ("toolset", "tool", "args", "name", "content"), REGEX_CALLS, ids=lambda v: str(v)[:24]
)
def test_every_regex_of_a_call_reads_the_calls_clock(
    tmp_path: Path, toolset: str, tool: str, args: dict[str, Any], name: str, content: str,
    streamed: bool,
) -> None:  # fmt: skip
    """With no regex time left, every path that runs a model's pattern refuses: none of
    them times its regexes on its own."""
    # (streamed: a change above stream_above_bytes; grep streams a file above 1 MB by lines)
    big = 300_000 if tool in ("grep", "search_file_content") else 40_000
    body = content * (big if streamed else 1)
    (tmp_path / name).write_text(body)
    ws = Workspace(tmp_path, confirm=True, regex_seconds=0, stream_above_bytes=100_000)
    result = ws.toolset(toolset).call(tool, args)
    assert _timed_out(result), (result.ok, result.text[:300])
    assert result.data.get("error") != "internal", result.text[:300]
    assert (tmp_path / name).read_text() == body  # nothing written


def test_the_same_calls_succeed_with_time_left(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("abc\n")
    ws = Workspace(tmp_path, confirm=True)
    assert ws.toolset("default").call("grep", {"pattern": "(?=b)b"}).data["matches"]
    ok = ws.toolset("worker").call(
        "replace_in_file", {"path": "a.txt", "old": "b+", "new": "x", "regex": True}
    )
    assert ok.ok and (tmp_path / "a.txt").read_text() == "axc\n"


def test_a_pattern_slow_on_each_line_stops_at_the_calls_limit(tmp_path: Path) -> None:
    """Each line costs a few hundredths of a second, far below any per-line limit; the
    call's 0.2 s run out after a handful of its 200 lines (4 s unbounded)."""
    (tmp_path / "slow.txt").write_text(("a" * 22 + "!\n") * 200)
    ws = Workspace(tmp_path, regex_seconds=0.2)
    result = ws.toolset("default").call("grep", {"pattern": "(?=x|(a|aa)+$)"})
    assert _timed_out(result), (result.ok, result.text[:300])


# The modules that may use the `regex` package: core/regexes.py runs every model's pattern
# on the call's clock; the others compile globs and ignore rules they translate themselves
# (no backtracking constructs).
REGEX_USERS = {"core/regexes.py", "policy/globs.py", "policy/gitignore.py", "policy/rules.py"}


def test_only_core_regexes_runs_a_models_pattern() -> None:
    """Going around the call's clock fails: no other module imports `regex`, and no module
    passes its own `timeout=` to a regex operation."""
    for path in SRC.rglob("*.py"):
        rel = path.relative_to(SRC).as_posix()
        source = path.read_text()
        if "regex" not in source and "timeout" not in source:
            continue
        tree = ast.parse(source)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
                module = node.module if isinstance(node, ast.ImportFrom) else None
                if "regex" in names or module == "regex":
                    assert rel in REGEX_USERS, f"{rel} imports regex: use core.regexes"
            if isinstance(node, ast.Call) and rel != "core/regexes.py":
                if not any(k.arg == "timeout" for k in node.keywords):
                    continue
                func = ast.unparse(node.func)
                regexish = any(w in func for w in ("search", "sub", "find", "match"))
                if regexish and not func.startswith("subprocess"):
                    raise AssertionError(f"{rel}: {func}(timeout=...) outside core.regexes")


# -- finding 3: a streamed change has a result budget ---------------------------------------

BIG = "B" * 20_000
# Every tool that can multiply a large file's text; each streams it (200 KB file, streamed
# above 64 KB) and would write 2 GB: the address space is capped at 1 GiB. (claude's Edit
# keeps its seed's in-memory edit of a file this size, under the in-memory budget.)
STREAMED_AMPLIFYING = [
    ("default", "edit",
     {"path": "big.txt", "old_string": "a", "new_string": BIG, "replace_all": True}),
    ("default", "multi_edit",
     {"path": "big.txt", "edits": [{"old_string": "a", "new_string": BIG, "replace_all": True}]}),
    ("gemini", "replace",
     {"file_path": "big.txt", "old_string": "a", "new_string": BIG,
      "expected_replacements": 100_000}),
    ("worker", "replace_in_file", {"path": "big.txt", "old": "a", "new": BIG}),
    ("worker", "replace_in_file",
     {"path": "big.txt", "old": "a+", "new": "\\g<0>" * 20_000, "regex": True}),
    ("worker", "replace_in_file", {"path": "big.txt", "old": "\na", "new": "\n" + BIG}),
]  # fmt: skip


@pytest.mark.parametrize("dry_run", [False, True], ids=["write", "dry-run"])
@pytest.mark.parametrize(
    ("toolset", "tool", "args"), STREAMED_AMPLIFYING, ids=lambda v: str(v)[:28]
)
def test_a_streamed_change_stops_at_its_result_limit(
    tmp_path: Path, toolset: str, tool: str, args: dict[str, Any], dry_run: bool
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "big.txt").write_text("a\n" * 100_000)
    before = (root / "big.txt").read_bytes()
    first: list[Any] = []
    if "file_path" in args:
        args = {**args, "file_path": str(root / "big.txt")}
    if toolset == "claude":
        first = [("Read", {"file_path": args["file_path"]})]
    workspace = {"stream_above_bytes": 64_000, "max_file_bytes": 1 << 20, "dry_run": dry_run}
    reply = call_capped(root, toolset, tool, args, workspace=workspace, first=first)
    assert not reply["ok"] and reply["error"] in ("too_large", "FILE_TOO_LARGE"), reply
    assert (root / "big.txt").read_bytes() == before
    assert sorted(p.name for p in root.iterdir()) in (["big.txt"], [".filewright", "big.txt"])


def test_a_streamed_change_within_its_limit_still_grows_the_file(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("a\n" * 100_000)
    ws = Workspace(tmp_path, stream_above_bytes=64_000, max_file_bytes=1 << 20)
    done = ws.toolset("default").call(
        "edit", {"path": "big.txt", "old_string": "a", "new_string": "bcd", "replace_all": True}
    )
    assert done.ok and done.data.get("streamed"), done.text
    assert (tmp_path / "big.txt").read_text() == "bcd\n" * 100_000
    refused = ws.toolset("default").call(
        "edit",
        {"path": "big.txt", "old_string": "b", "new_string": "xxxxxxxxxxxxx", "replace_all": True},
    )
    assert not refused.ok and refused.data["error"] == "too_large", refused.text
    assert (tmp_path / "big.txt").read_text() == "bcd\n" * 100_000


# -- finding 4: a preview is built under a budget --------------------------------------------

WRITE_DRIVER = r"""
import json, resource, sys
spec = json.loads(sys.argv[1])
resource.setrlimit(resource.RLIMIT_AS, (600 << 20, 600 << 20))
from filewright import Workspace
from filewright.policy.rules import Access, Rule
rules = [Rule("**", Access.CONFIRM)] if spec["ask"] else []
ws = Workspace(spec["root"], confirm=None if spec["ask"] else True, rules=rules,
               dry_run=spec["dry_run"], max_file_bytes=64 << 20)
ts = ws.toolset(spec["toolset"])
args = dict(spec["args"])
args[spec["key"]] = "x\n" * ((spec["mb"] << 20) // 2)
r = ts.call(spec["tool"], args)
print(json.dumps({"ok": r.ok, "error": r.data.get("error"), "text": r.text[:300],
                  "diff": len(r.data.get("diff") or "")}))
"""

# Every writing toolset's whole-file write (8 MB of 2-byte lines: a full diff of it needs
# more than the 600 MB the call may use), and the default one as a dry run and refused.
WRITES = [
    ("default", "write", {"path": "w.txt"}, "content", "write"),
    ("default", "write", {"path": "old.txt"}, "content", "write"),
    ("default", "write", {"path": "w.txt"}, "content", "dry-run"),
    ("default", "write", {"path": "w.txt"}, "content", "refused"),
    ("gemini", "write_file", {"file_path": "{root}/w.txt"}, "content", "write"),
    ("mcpfs", "write_file", {"path": "{root}/w.txt"}, "content", "write"),
    ("worker", "write_file", {"path": "w.txt"}, "content", "write"),
    ("companion", "write", {"path": "w.txt"}, "content", "write"),
]


@pytest.fixture(scope="module")
def forks(request: pytest.FixtureRequest) -> ForkServer:
    return shared(request.session)


@pytest.mark.parametrize(
    ("toolset", "tool", "args", "key", "how"), WRITES, ids=lambda v: str(v)[:20]
)
def test_a_big_write_builds_its_diff_under_a_budget(
    tmp_path: Path,
    forks: ForkServer,
    toolset: str,
    tool: str,
    args: dict[str, Any],
    key: str,
    how: str,
) -> None:
    """The driver runs in a process of its own under the address-space cap, forked from
    the warm interpreter (tests/forkserver.py), which has imported more than the driver
    needs: the cap leaves the call less room than a new interpreter would, not more."""
    import json

    (tmp_path / "old.txt").write_text("y\n" * 1000)
    args = {k: v.format(root=tmp_path) for k, v in args.items()}
    spec = {"root": str(tmp_path), "toolset": toolset, "tool": tool, "args": args, "key": key,
            "mb": 8, "ask": how == "refused", "dry_run": how == "dry-run"}  # fmt: skip
    child = forks.spawn(["write-driver", json.dumps(spec)], WRITE_DRIVER, text=True)
    out, err = child.communicate(timeout=120)
    assert child.wait() == 0, err[-1500:]
    reply = json.loads(out)
    assert reply["error"] != "internal", reply
    assert reply["diff"] <= 1_100_000, reply
    if how == "write":
        assert reply["ok"], reply
        written = tmp_path / ("old.txt" if args.get("path") == "old.txt" else "w.txt")
        assert written.stat().st_size > 7 << 20
    elif how == "refused":
        assert not reply["ok"] and not (tmp_path / "w.txt").exists(), reply


def test_a_region_diff_applies_and_is_cut_at_its_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Texts over the whole-diff size get a diff of their changed region (checked by
    `patch`, with repeated lines that let an excerpt's alignment drift) or one hunk cut at
    the limit with the note `is_clipped` recognises."""
    import random
    import shutil
    import subprocess

    from filewright.engine import diffs

    if shutil.which("patch") is None:
        pytest.skip("no patch program")
    monkeypatch.setattr(diffs, "SMALL_TEXTS", 40)
    rng = random.Random(3)
    lines = ["ab\n", "c\n", "dd\n"]
    for i in range(60):
        old = "".join(rng.choice(lines) for _ in range(rng.randint(0, 40)))
        old += rng.choice(["", "z", "y\n"])
        new = list(old)
        if i % 3 == 0 and new:
            at = rng.randrange(len(new))
            new[at : at + rng.randint(0, 5)] = rng.choice(["X\n", "", "Q"])
        elif i % 3 == 1:
            new = list("".join(rng.choice(lines) for _ in range(rng.randint(0, 40))))
        else:
            new += "tail\nmore"
        if old == "".join(new):
            continue
        (tmp_path / "f").write_text(old)
        diff = diffs.unified_diff(old, "".join(new), "f")
        subprocess.run(["patch", "-s", "-p1", "-d", str(tmp_path)], input=diff, text=True,
                       check=True)  # fmt: skip
        assert (tmp_path / "f").read_text() == "".join(new), diff
    cut = diffs.unified_diff("", "x\n" * 1000, "f", limit=200)
    assert len(cut) < 300 and diffs.is_clipped(cut), cut
    assert cut.endswith("(diff truncated: 945 more lines, 2835 more characters)\n"), cut


def test_changed_lines_come_from_a_prefix_suffix_scan() -> None:
    from filewright.engine.diffs import changed_lines

    assert changed_lines("a\nb\nc\n", "a\nB\nc\n") == (2, 2)
    assert changed_lines("", "\n") == (2, 2)
    assert changed_lines("a\n" * 1000, "a\n" * 1000 + "b") == (1001, 1001)
    assert changed_lines("x", "x") is None


# -- finding 13: an approval is bound to the bytes its diff came from ------------------------

# (toolset, tool, args): each changes "needle" in a file streamed above 64 KB.
CONFIRMED_EDITS = [
    ("default", "edit", {"path": "big.txt", "old_string": "needle", "new_string": "NEEDLE"}),
    ("worker", "replace_in_file", {"path": "big.txt", "old": "needle", "new": "NEEDLE"}),
    ("gemini", "replace",
     {"file_path": "{root}/big.txt", "old_string": "needle", "new_string": "NEEDLE"}),
    ("claude", "Edit",
     {"file_path": "{root}/big.txt", "old_string": "needle", "new_string": "NEEDLE"}),
    ("text_editor", "str_replace_based_edit_tool",
     {"command": "str_replace", "path": "{root}/big.txt", "old_str": "needle",
      "new_str": "NEEDLE"}),
    ("mcpfs", "edit_file",
     {"path": "{root}/big.txt", "edits": [{"oldText": "needle", "newText": "NEEDLE"}]}),
]  # fmt: skip


@pytest.mark.parametrize(("toolset", "tool", "args"), CONFIRMED_EDITS, ids=lambda v: str(v)[:20])
def test_a_file_changed_while_the_question_is_open_is_stale(
    tmp_path: Path, toolset: str, tool: str, args: dict[str, Any]
) -> None:
    from filewright.policy.rules import Access, Rule

    big = tmp_path / "big.txt"
    body = "x" * 99 + "\n"
    big.write_text(body * 1000 + "needle\n" + body * 1000)
    changed = "a line added while the question was open\n" + big.read_text()
    asked: list[str] = []

    def confirm(request: Any) -> bool:
        asked.append(request.diff)
        big.write_text(changed)  # another program edits the file meanwhile
        return True

    ws = Workspace(
        tmp_path,
        confirm=confirm,
        rules=[Rule("big.txt", Access.CONFIRM)],
        stream_above_bytes=64_000,
    )
    ts = ws.toolset(toolset)
    args = {k: (v.format(root=tmp_path) if isinstance(v, str) else v) for k, v in args.items()}
    if toolset in ("claude", "text_editor"):
        ts.call("Read" if toolset == "claude" else tool, {"file_path": str(big)}
                if toolset == "claude" else {"command": "view", "path": str(big)})  # fmt: skip
    result = ts.call(tool, args)
    assert asked, result.text
    assert not result.ok, result.text
    assert big.read_text() == changed


# -- finding 8: one output budget per call, for every reader ---------------------------------

BUDGET = 3000
SLACK = 600  # a line number, a cut marker: what a tool adds to a line it read

# Every tool that returns a file's content, on a file far larger than the budget:
# "lines" holds 100,000 characters in short lines, "line" one 100,000-character line.
READERS = [
    ("default", "read", {"path": "{f}"}),
    ("default", "read", {"path": "{f}", "limit": 100_000}),
    ("default", "read_many", {"paths": ["{f}"] * 5}),
    ("claude", "Read", {"file_path": "{abs}"}),
    ("gemini", "read_file", {"path": "{abs}"}),
    ("companion", "read", {"path": "{f}"}),
    ("text_editor", "str_replace_based_edit_tool", {"command": "view", "path": "{abs}"}),
    ("mcpfs", "read_file", {"path": "{abs}"}),
    ("mcpfs", "read_text_file", {"path": "{abs}"}),
    ("mcpfs", "read_text_file", {"path": "{abs}", "head": 1}),
    ("mcpfs", "read_text_file", {"path": "{abs}", "tail": 1}),
    ("mcpfs", "read_text_file", {"path": "{abs}", "head": 100_000}),
    ("mcpfs", "read_multiple_files", {"paths": ["{abs}"] * 30}),
    ("memo", "memo_read", {}),
]


def _returned(result: Any) -> int:
    blocks = result.data.get("content_blocks") or []
    raw = [b.get("data") or b.get("resource", {}).get("blob", "") for b in blocks]
    images = [i.get("data", "") for i in result.images + result.documents]
    return len(result.text) + sum(len(x) * 3 // 4 for x in raw + images)


@pytest.mark.parametrize("shape", ["lines", "line"])
@pytest.mark.parametrize(("toolset", "tool", "args"), READERS, ids=lambda v: str(v)[:24])
def test_no_reader_returns_more_than_the_calls_budget(
    tmp_path: Path, toolset: str, tool: str, args: dict[str, Any], shape: str
) -> None:
    name = "MEMORY.md" if toolset == "memo" else "big.txt"
    body = ("abcdefghi\n" * 10_000) if shape == "lines" else ("abcdefghij" * 10_000 + "\n")
    (tmp_path / name).write_text(body)
    ws = Workspace(tmp_path, max_output_chars=BUDGET)
    filled = {
        k: [x.format(f=name, abs=tmp_path / name) for x in v]
        if isinstance(v, list)
        else (v.format(f=name, abs=tmp_path / name) if isinstance(v, str) else v)
        for k, v in args.items()
    }
    ts = ws.toolset(toolset)
    result = ts.call(tool, filled)
    assert result.data.get("error") != "internal", result.text[:300]
    # The file's content returned is within the budget; around it a tool adds line numbers
    # (at most 8 characters a line), notes, and a line for each file it did not read.
    content = sum(len(line.rstrip("\n")) for line in result.text.split("\n") if "abcdefghi" in line)
    assert content <= BUDGET + SLACK, (result.ok, content, result.text[-300:])
    lines = result.text.count("\n") + 1
    files = len(filled.get("paths", [])) or 1
    assert _returned(result) <= BUDGET + SLACK + 8 * lines + 300 * files, len(result.text)


def _notebook(cells: int) -> str:
    import json

    cell = {"cell_type": "code", "source": ["print('x' * 80)\n"] * 20, "outputs": [],
            "metadata": {}, "execution_count": 1}  # fmt: skip
    return json.dumps({"cells": [cell] * cells, "metadata": {}, "nbformat": 4,
                       "nbformat_minor": 5})  # fmt: skip


@pytest.mark.parametrize(
    ("toolset", "tool", "key"),
    [("default", "read", "path"), ("claude", "Read", "file_path"), ("gemini", "read_file", "path"),
     ("mcpfs", "read_text_file", "path"), ("text_editor", "str_replace_based_edit_tool", "path")],
)  # fmt: skip
def test_a_notebook_comes_back_within_the_budget(
    tmp_path: Path, toolset: str, tool: str, key: str
) -> None:
    (tmp_path / "nb.ipynb").write_text(_notebook(200))  # 400 KB of cells
    ws = Workspace(tmp_path, max_output_chars=BUDGET)
    args = {key: str(tmp_path / "nb.ipynb")}
    if toolset == "text_editor":
        args["command"] = "view"
    result = ws.toolset(toolset).call(tool, args)
    assert result.data.get("error") != "internal", result.text[:300]
    assert _returned(result) <= BUDGET + SLACK, (len(result.text), result.text[-200:])


def test_read_media_file_keeps_the_image_limit(tmp_path: Path) -> None:
    import base64

    one_pixel = base64.b64decode(
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    )
    (tmp_path / "big.png").write_bytes(one_pixel + b"\0" * 20_000)  # trailing bytes: 20 KB
    (tmp_path / "big.bin").write_bytes(b"\1" * 20_000)
    ws = Workspace(tmp_path)
    ws.max_image_bytes = 10_000  # type: ignore[attr-defined]  # (the readers' image limit)
    mcpfs = ws.toolset("mcpfs")
    refused = mcpfs.call("read_media_file", {"path": str(tmp_path / "big.png")})
    assert not refused.ok and refused.data["error"] == "too_large", refused.text
    assert not ws.toolset("default").call("read", {"path": "big.png"}).ok  # the same limit
    small = Workspace(tmp_path, max_output_chars=BUDGET).toolset("mcpfs")
    blob = small.call("read_media_file", {"path": str(tmp_path / "big.bin")})
    assert not blob.ok and blob.data["error"] == "too_large", blob.text
