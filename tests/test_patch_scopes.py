"""Scopes: which lines an ``@@`` line names (edit.scopes), and find()'s ``scope``."""

from __future__ import annotations

from filewright.edit.matching import find
from filewright.edit.scopes import ScopeMissing, scope_blocks

PY = "class A:\n    def f(self):\n        return 1\n\n\nclass B:\n    def f(self):\n        return 1\n"


def blocks(text: str, *scopes: str) -> list[tuple[int, int]] | ScopeMissing:
    return scope_blocks(text.split("\n"), scopes)


def test_indentation_blocks_nest_and_take_in_the_blank_lines_after() -> None:
    assert blocks(PY, "class A") == [(0, 4)]
    assert blocks(PY, "class B", "def f(self):") == [(6, 8)]
    assert blocks(PY, "def f") == [(1, 4), (6, 8)]  # both: the scope alone does not decide
    assert blocks(PY, "def f(self):", "") == blocks(PY, "def f(self):")  # a bare @@ adds nothing


def test_a_scope_names_a_line_by_its_start_then_by_whole_words() -> None:
    assert blocks("def foo():\n    pass\n", "def f") == ScopeMissing("def f", 0, ())
    js = "export function foo() {\n  return 1\n}\n"
    assert blocks(js, "function foo()") == [(0, 3)]
    assert blocks("say \u201chi\u201d:\n    x\n", 'say "hi":') == [(0, 2)]  # typography folded
    missing = blocks(PY, "class A", "def g")
    assert missing == ScopeMissing("def g", 1, ("class A",))


def test_markdown_headings_by_level() -> None:
    md = "# T\n## A\na\n### A.1\nb\n## B\nc\n# U\nd\n"
    assert blocks(md, "## A") == [(1, 4)]
    assert blocks(md, "### A.1") == [(3, 4)]
    assert blocks(md, "## B") == [(5, 6)]
    assert blocks(md, "# T") == [(0, 6)]
    fenced = "## Install\n```sh\n# deps\npip install x\n```\nthen run\n## Use\n"
    assert blocks(fenced, "## Install") == [(0, 5)]  # the "# deps" comment is no heading


def test_toml_tables_and_lines_that_open_nothing() -> None:
    toml = "[a]\nx = 1\n\n[[b]]\nx = 1\n[c.d]\nx = 1\n"
    assert blocks(toml, "[a]") == [(0, 2)]
    assert blocks(toml, "[[b]]") == [(3, 4)]
    assert blocks(toml, "[c.d]") == [(5, 7)]
    sub = "[tool]\nx = 1\n[tool.ruff]\ny = 2\n[tools]\nz = 3\n"
    assert blocks(sub, "[tool]") == [(0, 3)]  # its sub-table too, not [tools]
    # a line with nothing under it: what follows it, to the end of the enclosing block
    assert blocks("a\nb\nmarker\nc\nd\n", "marker") == [(2, 5)]


def test_closing_lines_are_whole_words() -> None:
    ruby = "def a\n  x = 1\nend\nfinal = 2\n"
    assert blocks(ruby, "def a") == [(0, 2)]
    py = "def a():\n    x = 1\nfinal = compute()\n"
    assert blocks(py, "def a") == [(0, 1)]  # "final" is no "fi"


def test_go_function_with_braces() -> None:
    go = "func a() {\n\tx := 1\n}\n\nfunc main()\n{\n\tx := 1\n}\n"
    assert blocks(go, "func a") == [(0, 3)]
    assert blocks(go, "func main") == [(4, 8)]


def test_find_keeps_only_regions_inside_the_scope() -> None:
    text = "def a():\n    x = 1\n\ndef b():\n    x = 1  \n"
    old = "    x = 1\n"
    assert [r.start_line for r in find(text, old, max_matches=None).regions] == [2]
    scoped = find(text, old, max_matches=None, scope=("def b():",))
    # the exact match in a() is passed over; the ladder finds b()'s line
    assert [r.start_line for r in scoped.regions] == [5]
    assert scoped.strategy == "trailing_whitespace"
    assert find(text, old, fuzzy=False, scope=("def b():",)).regions == []
    assert [r.start_line for r in find(text, old, fuzzy=False, scope=("def a",)).regions] == [2]
    none = find(text, old, scope=("def c():",))
    assert none.error == "scope_not_found" and none.regions == []
    assert none.missing_scope == ScopeMissing("def c():", 0, ())
    nothing = find(text, "    y = 1", scope=("def b():",))
    assert nothing.regions == [] and nothing.error is None


def test_spans_answer_containment_and_overlap_among_many_blocks() -> None:
    from filewright.edit.scopes import Spans

    blocks = [(i * 10, i * 10 + 5) for i in range(10_000)] + [(3, 40)]
    spans = Spans(blocks)
    assert spans.contains(3, 40) and spans.contains(26, 29)  # in (3, 40) only
    assert not spans.contains(44, 46) and not spans.contains(2, 6)
    assert spans.contains(99_990, 99_995) and not spans.contains(99_990, 99_996)
    assert spans.overlaps(45, 51) and not spans.overlaps(46, 50)  # half-open: [40, 45) etc.
    assert not Spans([]).contains(0, 0) and not Spans([]).overlaps(0, 1)
