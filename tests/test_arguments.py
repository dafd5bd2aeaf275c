"""The light argument check agrees with pydantic, and keeps pydantic out of a plain call."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from filewright import Workspace
from filewright.tools import arguments, precomputed
from filewright.tools.base import Tool

TOOLSETS = ("default", "claude", "text_editor", "gemini", "worker", "companion", "memo")


def all_tools(tmp_path: Path) -> list[Tool]:
    ws = Workspace(tmp_path)
    tools = [t for name in TOOLSETS for t in ws.toolset(name).tools()]
    ws_off = Workspace(tmp_path, memory=False)
    tools += ws_off.toolset("companion").tools()
    editor = ws.toolset("text_editor", version="20250124")
    tools += editor.tools()
    return tools


def plain(value: Any) -> Any:
    """Namespaces and models as plain dicts, for comparing the two paths."""
    if isinstance(value, SimpleNamespace):
        return {k: plain(v) for k, v in vars(value).items()}
    if isinstance(value, BaseModel):
        return {k: plain(getattr(value, k)) for k in type(value).model_fields}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def load_precompute_script() -> Any:
    path = Path(__file__).parent.parent / "scripts" / "precompute.py"
    spec = importlib.util.spec_from_file_location("precompute_script", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_shipped_precomputed_files_are_current() -> None:
    for path, text in load_precompute_script().outputs().items():
        shipped = json.loads(path.read_text(encoding="utf-8"))
        assert shipped == json.loads(text), (
            f"{path.name} is stale (models or built-in patterns changed): "
            "run `uv run python scripts/precompute.py`"
        )


def test_every_tool_of_every_toolset_has_a_fresh_cached_schema(tmp_path: Path) -> None:
    for tool in all_tools(tmp_path):
        schema = tool.light_schema()
        assert schema == tool.params.model_json_schema(), tool.name


def test_a_stale_module_is_not_trusted(tmp_path: Path) -> None:
    shipped = json.loads(precomputed.FILE.read_text(encoding="utf-8"))
    module = "filewright.toolsets.default_params"
    assert shipped[module]["source_sha256"] == precomputed.source_hash(module)
    precomputed._fresh[module] = False  # as if the module had been edited since
    try:
        assert arguments.cached_schema(module, "ReadParams") is None
        tools = Workspace(tmp_path).toolset("default")
        result = tools.call("read", {"path": 5})
        assert not result.ok and "Input should be a valid string" in result.text
        (tmp_path / "a.txt").write_text("x\n", encoding="utf-8")
        assert tools.call("read", {"path": "a.txt"}).ok  # pydantic validates instead
    finally:
        precomputed._fresh.pop(module)


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=6,
)


_CANDIDATES: dict[type[BaseModel], st.SearchStrategy[dict[str, Any]]] = {}


def candidate_args(tool: Tool) -> st.SearchStrategy[dict[str, Any]]:
    """Argument objects near the schema: its own fields with any JSON values, plus strays.
    Built once per parameter model (not per draw: pydantic's schema generation is costly),
    so the draws are the same as building it each time."""
    cached = _CANDIDATES.get(tool.params)
    if cached is None:
        cached = _CANDIDATES[tool.params] = _candidate_args(tool.params)
    return cached


def _candidate_args(params: type[BaseModel]) -> st.SearchStrategy[dict[str, Any]]:
    schema = params.model_json_schema()
    fields = list(schema.get("properties", {}))
    nested = [
        {"old_string": "a", "new_string": "b"},
        {"old_string": "a", "new_string": "b", "replace_all": True, "stray": 1},
        {"old_string": 1},
    ]
    field_value = JSON_VALUES | st.sampled_from([0, 1, 2, -1, 20, 21, "", "x", [], [1, -1], nested])
    keys = st.sampled_from([*fields, "unexpected"]) if fields else st.just("unexpected")
    return st.dictionaries(keys, field_value, max_size=len(fields) + 1)


@pytest.fixture(scope="module")
def tools(tmp_path_factory: pytest.TempPathFactory) -> list[Tool]:
    return all_tools(tmp_path_factory.mktemp("ws"))


@settings(max_examples=600, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_the_light_check_accepts_only_what_pydantic_accepts_unchanged(
    tools: list[Tool], data: st.DataObject
) -> None:
    tool = data.draw(st.sampled_from(tools))
    args = data.draw(candidate_args(tool))
    schema = tool.light_schema()
    assert schema is not None
    light = arguments.check(schema, args)
    try:
        model = tool.params.model_validate(args)
    except ValidationError:
        assert light is None, (tool.name, args)
        return
    if light is not None:
        assert plain(light) == plain(model), (tool.name, args)


@pytest.mark.parametrize(
    ("args", "vouched"),
    [
        ({"path": "a.txt"}, True),
        ({"path": "a.txt", "offset": 3, "limit": None}, True),
        ({"path": "a.txt", "limit": 0}, False),  # below the minimum: pydantic's message
        ({"path": "a.txt", "offset": True}, False),  # a bool is not an integer here
        ({"path": "a.txt", "offset": "3"}, False),  # pydantic's lax mode decides
        ({"path": "a.txt", "offset": 3.0}, False),
        ({}, False),
        ({"path": "a.txt", "stray": 1}, False),
        ({"path": None}, False),
    ],
)
def test_read_arguments(args: dict[str, Any], vouched: bool) -> None:
    schema = arguments.cached_schema("filewright.toolsets.default_params", "ReadParams")
    assert schema is not None
    light = arguments.check(schema, args)
    assert (light is not None) == vouched
    if light is not None:
        assert light.path == "a.txt" and light.offset == args.get("offset")


def test_read_accepts_a_negative_offset() -> None:
    schema = arguments.cached_schema("filewright.toolsets.default_params", "ReadParams")
    assert schema is not None
    light = arguments.check(schema, {"path": "a.txt", "offset": -5})
    assert light is not None and light.offset == -5


def test_defaults_are_fresh_copies_and_nested_models_are_attributes() -> None:
    schema = arguments.cached_schema("filewright.toolsets.default_params", "MultiEditParams")
    assert schema is not None
    got = arguments.check(schema, {"path": "a", "edits": [{"old_string": "x", "new_string": "y"}]})
    assert got is not None
    assert got.edits[0].old_string == "x" and got.edits[0].replace_all is False
    assert got.expected_hash is None
    assert arguments.check(schema, {"path": "a", "edits": []}) is None  # minItems


def test_unknown_schema_keywords_make_the_check_unsure() -> None:
    schema = {
        "type": "object",
        "properties": {"name": {"type": "string", "pattern": "^a"}},
        "required": ["name"],
    }
    assert arguments.check(schema, {"name": "b"}) is None


READS = {
    "default": ("read", {"path": "a.txt"}),
    "claude": ("Read", {"file_path": "{root}/a.txt"}),
    "text_editor": ("str_replace_based_edit_tool", {"command": "view", "path": "{root}/a.txt"}),
    "gemini": ("read_file", {"path": "{root}/a.txt"}),
    "worker": ("write_file", {"path": "b.txt", "content": "new"}),
    "companion": ("read", {"path": "a.txt"}),
    "memo": ("memo_read", {}),
    "apply_patch": (
        "apply_patch",
        {"input": "*** Begin Patch\n*** Update File: a.txt\n-hello\n+hi\n*** End Patch"},
    ),
}


@pytest.mark.parametrize("toolset", sorted(READS))
def test_a_plain_cli_call_does_not_import_pydantic(tmp_path: Path, toolset: str) -> None:
    root = tmp_path.resolve()
    (root / "a.txt").write_text("hello\n", encoding="utf-8")
    tool, args = READS[toolset]
    args_json = json.dumps(args).replace("{root}", str(root))
    code = (
        "import sys\n"
        "from filewright.surfaces.cli.main import main\n"
        "try:\n"
        "    main(['call', '--root', sys.argv[1], '--toolset', sys.argv[2], sys.argv[3], sys.argv[4]])\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = sorted(m for m in ('pydantic', 'mcp', 'rich', 'pypdf', 'typer', 'pathspec', "
        "'filelock', 'platformdirs', 'charset_normalizer') if m in sys.modules)\n"
        "print('HEAVY', heavy)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(root), toolset, tool, args_json],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert '"ok": true' in proc.stdout, proc.stdout
    assert "HEAVY []" in proc.stdout  # also the worker's write: its lock is a plain flock
