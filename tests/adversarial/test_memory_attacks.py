"""Path attacks through the `memory` toolset, with `/memories` at the arena's root itself
(`directory="."`), so every link and name the arena plants lies inside the memory
directory: the attack list of test_path_attacks_all_toolsets, under `/memories/` and as
given, through every command. A refused call is a clear failure that names no secret and
changes nothing in the root; nothing outside is touched (the arena fixture checks)."""

from __future__ import annotations

from typing import Any

from .support import Arena, assert_clean_result, assert_no_secret, snapshot_diff
from .test_path_attacks_all_toolsets import _escapes


def memory_calls(path: str) -> list[dict[str, Any]]:
    return [
        {"command": "view", "path": path},
        {"command": "create", "path": path, "file_text": "PWNED\n"},
        {"command": "str_replace", "path": path, "old_str": "\n", "new_str": "PWNED\n"},
        {"command": "insert", "path": path, "insert_line": 0, "insert_text": "PWNED"},
        {"command": "delete", "path": path},
        {"command": "rename", "old_path": path, "new_path": "/memories/moved.txt"},
        {"command": "rename", "old_path": "/memories/a.txt", "new_path": path},
    ]


def test_escapes_are_refused_by_every_memory_command(arena: Arena) -> None:
    tools = arena.workspace(confirm=True).toolset("memory", directory=".")
    before = arena.root_snapshot()
    for raw in _escapes(arena):
        if raw.startswith("~"):  # under /memories/ a literal name inside, like any other
            continue
        paths = [raw, "/memories/.." + raw] if raw.startswith("/") else ["/memories/" + raw]
        for path in paths:
            for args in memory_calls(path):
                result = tools.call("memory", args)
                context = f"memory {args['command']}({path!r})"
                assert_clean_result(result, context)
                assert not result.ok, f"{context} succeeded: {result.text[:200]}"
                assert_no_secret(result, context)
    changed = snapshot_diff(before, arena.root_snapshot())
    assert not changed, f"the root changed although every call was refused: {changed}"
