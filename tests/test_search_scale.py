"""Listings and searches at tree scale, through the toolsets, with a policy in place.

Every listing and search tool answers as if the policy checked each path on its own:
what a workspace's `.filewright.toml` hides never appears (nor is counted), whatever
the depth or the casing; a glob over more files than it shows keeps the newest ones
while holding only a bounded number of them.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from filewright import Workspace
from filewright.search import find_rg, glob, globbing, list_directory

RULES = """
[[rules]]
pattern = "secrets/"
access = "hidden"
[[rules]]
pattern = "*.pem"
access = "hidden"
[[rules]]
pattern = "/build/"
access = "deny"
[[rules]]
pattern = "**/fixtures/**/*.bin"
access = "hidden"
[[rules]]
pattern = "docs/internal/"
access = "hidden"
"""

VISIBLE = [
    "src/app/main.py",
    "src/app/util.py",
    "src/app/fixtures/data.txt",
    "docs/guide.md",
    "docs/public/internal.md",
    "Secrets.py",
]
HIDDEN = [
    "secrets/token.py",
    "src/SECRETS/deep/key.py",
    "src/app/server.PEM",
    "src/app/fixtures/a/b/blob.bin",
    "docs/internal/plan.md",
    ".filewright/history.py",
    "build/out.py",  # deny: neither its name nor its lines come out (issue 22)
]


def _tree(root: Path) -> Path:
    for rel in VISIBLE + HIDDEN:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("needle = 1\n")
    (root / ".filewright.toml").write_text(RULES)
    return root


ENGINES = ["python", *(["rg"] if find_rg() else [])]


@pytest.mark.parametrize("toolset", ["default", "gemini"])
def test_glob_and_grep_show_exactly_what_the_policy_lets_through(
    tmp_path: Path, toolset: str
) -> None:
    root = _tree(tmp_path / "ws")
    tools = Workspace(root).toolset(toolset)
    names = {"default": ("glob", "grep"), "gemini": ("glob", "search_file_content")}[toolset]
    globbed = tools.call(names[0], {"pattern": "**/*.*"})
    assert globbed.ok, globbed.text
    for rel in VISIBLE:
        assert rel in globbed.text
    for rel in HIDDEN:
        assert rel not in globbed.text
    grepped = tools.call(names[1], {"pattern": "needle"})
    assert grepped.ok, grepped.text
    for rel in VISIBLE:
        assert rel in grepped.text
    for rel in HIDDEN:
        assert rel not in grepped.text


def test_gemini_search_skips_node_modules_and_the_policy_together(tmp_path: Path) -> None:
    root = _tree(tmp_path / "ws")
    (root / "node_modules" / "pkg").mkdir(parents=True)
    (root / "node_modules" / "pkg" / "index.js").write_text("needle\n")
    (root / "src" / "node_modules").write_text("needle\n")  # a file so named, too
    result = Workspace(root).toolset("gemini").call("search_file_content", {"pattern": "needle"})
    assert "index.js" not in result.text
    assert "src/node_modules" not in result.text
    assert "main.py" in result.text


def test_listing_a_directory_hides_by_name(tmp_path: Path) -> None:
    root = _tree(tmp_path / "ws")
    (root / "src" / "app" / "other.pem").write_text("x")
    listed = Workspace(root).toolset("default").call("list", {"path": "src/app"})
    assert listed.ok, listed.text
    assert "main.py" in listed.text
    assert "server.PEM" not in listed.text
    assert "other.pem" not in listed.text


@pytest.mark.parametrize("engine", ENGINES)
def test_a_glob_over_many_files_holds_few_and_keeps_the_newest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, engine: str
) -> None:
    root = tmp_path / "many"
    for i in range(400):
        path = root / f"d{i % 7}" / f"f{i:03d}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x")
        os.utime(path, ns=(10**18 + i * 10**9, 10**18 + i * 10**9))
    whole = glob(root, "**/*.txt", engine=engine, max_results=25)
    monkeypatch.setattr(globbing, "KEEP_AT_MOST", 8)
    pruned = glob(root, "**/*.txt", engine=engine, max_results=25)
    assert pruned.paths == whole.paths
    assert (pruned.total, pruned.truncated) == (400, True) == (whole.total, whole.truncated)
    assert pruned.paths[0] == "d0/f399.txt"


def test_a_limited_listing_is_the_head_of_the_full_one(tmp_path: Path) -> None:
    root = tmp_path / "wide"
    root.mkdir()
    names = ["B", "a", "a.txt", "A", "ab", "_x", "Zeta", "zeta", "é", "E", "10", "9"]
    for i, name in enumerate(names):
        if i % 3 == 0:
            (root / name).mkdir()
        else:
            (root / name).write_text("x")
    (root / "link").symlink_to("B")
    full = list_directory(root)
    assert full.total == len(names) + 1
    for limit in range(len(names) + 3):
        head = list_directory(root, limit=limit)
        assert head.entries == full.entries[:limit]
        assert head.total == full.total
    # Directories first, then files, by case-folded name, then by name.
    order = [(not e.is_dir, e.name.casefold(), e.name) for e in full.entries]
    assert order == sorted(order)
