"""Tests for filewright.search.grep: grep, glob and list_directory on real trees.

The central property: the ripgrep engine and the pure-Python engine return the same
results on the same tree, for every option.
"""

from __future__ import annotations

import io
import os
import subprocess
from pathlib import Path

import pytest

from filewright.policy.gitignore import DirRules, IgnoreSpec, Overrides, PathFilter
from filewright.policy.globs import GlobError, compile_glob, glob_to_regex
from filewright.search import (
    GlobResult,
    GrepResult,
    ListResult,
    find_rg,
    format_glob_gemini,
    format_grep_gemini,
    format_list_gemini,
    glob,
    grep,
    list_directory,
)
from filewright.search import globbing as search_glob
from filewright.search.ripgrep import (
    _records,
    cores,
    files_args,
    grep_args,
    has_pcre2,
    iter_path_batches,
)

HAVE_RG = find_rg() is not None
needs_rg = pytest.mark.skipif(not HAVE_RG, reason="no rg binary")


def policy(path: str, _is_dir: bool) -> bool:
    """A policy hiding .env files and everything under secrets/."""
    return not (path.split("/")[-1] == ".env" or path.split("/")[0] == "secrets")


def write(root: Path, rel: str, data: str | bytes) -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        p.write_text(data, encoding="utf-8", newline="")
    else:
        p.write_bytes(data)
    return p


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A tree with every hard case: ignore files at several levels, negation, hidden
    files, binary files, encodings, odd names, and symlinks pointing outside."""
    outside = tmp_path / "outside"
    write(outside, "secret.txt", "needle outside the workspace\n")
    root = tmp_path / "ws"
    write(root, ".gitignore", "*.log\n!keep.log\nbuild/\n# comment\n\n")
    write(root, "keep.log", "needle kept by negation\n")
    write(root, "debug.log", "needle in an ignored log\n")
    write(root, "build/out.txt", "needle in an ignored dir\n")
    write(root, "src/.gitignore", "gen/\n*.tmp\n!important.tmp\n")
    write(
        root,
        "src/main.py",
        "import os\n\ndef find_needle():\n    return 'Needle'\n\n# needle here\nx = 1\ny = 2\n",
    )
    write(root, "src/gen/x.py", "needle generated\n")
    write(root, "src/a.tmp", "needle tmp\n")
    write(root, "src/important.tmp", "needle important\n")
    write(root, "src/sub/.ignore", "skip_me.txt\n")
    write(root, "src/sub/skip_me.txt", "needle skipped by .ignore\n")
    write(root, "src/sub/deep.txt", "a needle deep down\nneedle again\n")
    write(root, ".hidden/h.txt", "needle in a hidden dir\n")
    write(root, ".env", "NEEDLE_TOKEN=needle\n")
    write(root, "secrets/key.txt", "needle secret\n")
    write(root, ".git/config", "needle in git\n")
    write(root, ".git/HEAD", "ref: refs/heads/main\n")
    write(root, "node_modules/pkg/index.js", "// needle in node_modules\n")
    write(root, "bin.dat", b"needle\x00binary\n")
    write(root, "late.bin", b"needle early\n" + b"x" * 70000 + b"\n\x00late nul\n")
    write(root, "utf16.txt", "needle utf16\nsecond line\n".encode("utf-16"))
    write(root, "bom.txt", b"\xef\xbb\xbfneedle after a BOM\n")
    write(root, "crlf.txt", b"needle crlf\r\nplain\r\n")
    write(root, "latin1.txt", b"needle caf\xe9\n")
    write(root, "ünïcødé/naïve.txt", "needle unicode dir\n")
    write(root, "日本語.md", "needle 日本\n")
    write(root, "weird:12:name.txt", "needle: weird:3: colon\n")
    write(root, "new\nline.txt", "needle in a file with a newline in its name\n")
    write(root, "long.txt", "x" * 900 + " needle " + "y" * 900 + "\n")
    write(root, "regex.txt", "a.b(c literal\naxb(c not literal\n")
    write(root, "many.txt", "".join(f"needle {i}\n" for i in range(30)))
    write(root, "a-b/x.txt", "needle dash dir\n")
    write(root, "a/x.txt", "needle plain dir\n")
    (root / "link_out").symlink_to(outside, target_is_directory=True)
    (root / "link_file").symlink_to(outside / "secret.txt")
    (root / "link_in").symlink_to(root / "src", target_is_directory=True)
    os.mkfifo(root / "src" / "pipe")  # would block a reader: must never be opened
    return root


def snapshot(r: GrepResult) -> tuple[object, ...]:
    files = [(f.path, [(m.line, m.text, m.is_context) for m in f.matches]) for f in r.files]
    return (files, r.total_matches, r.truncated, r.error is None)


def paths_of(r: GrepResult) -> list[str]:
    return [f.path for f in r.files]


GREP_CASES: list[tuple[str, dict[str, object]]] = [
    ("needle", {}),
    ("needle", {"case_sensitive": False}),
    ("NEEDLE", {"case_sensitive": True}),
    (r"nee+dle\s\w+", {}),
    ("^needle", {}),
    (r"crlf\r?$", {}),
    ("a.b(c", {"fixed_strings": True}),
    ("needle", {"context": 2}),
    ("needle", {"context": 1, "max_matches": 5}),
    ("needle", {"include": "*.txt"}),
    ("needle", {"include": "src/**/*.{py,tmp}"}),
    ("needle", {"include": "*.log"}),
    ("needle", {"respect_gitignore": False}),
    ("needle", {"max_matches": 7}),
    ("needle", {"max_matches": 40, "max_line_chars": 20}),
    ("needle", {"visible": policy}),
    ("needle", {"visible": policy, "respect_gitignore": False, "context": 1}),
    ("café|日本|naïve", {}),
]


@needs_rg
@pytest.mark.parametrize(("pattern", "opts"), GREP_CASES)
def test_grep_engines_agree(tree: Path, pattern: str, opts: dict[str, object]) -> None:
    rg = grep(tree, pattern, engine="rg", **opts)  # type: ignore[arg-type]
    py = grep(tree, pattern, engine="python", **opts)  # type: ignore[arg-type]
    assert rg.engine == "rg" and py.engine == "python"
    assert snapshot(rg) == snapshot(py)
    assert rg.files, "every case finds something"


@pytest.mark.parametrize("engine", ["rg", "python"])
def test_grep_finds_what_it_should_and_nothing_else(tree: Path, engine: str) -> None:
    if engine == "rg" and not HAVE_RG:
        pytest.skip("no rg binary")
    r = grep(tree, "needle", engine=engine, visible=policy, max_matches=10_000)
    found = paths_of(r)
    for expected in [
        "keep.log",
        ".hidden/h.txt",
        "weird:12:name.txt",
        "new\nline.txt",
        "ünïcødé/naïve.txt",
        "日本語.md",
        "utf16.txt",
        "bom.txt",
        "crlf.txt",
        "latin1.txt",
        "node_modules/pkg/index.js",
        "src/important.tmp",
        "src/sub/deep.txt",
    ]:
        assert expected in found, expected
    for banned in ["debug.log", "src/a.tmp", "bin.dat", "late.bin", ".env"]:
        assert banned not in found, banned
    for fragment in [".git/", "build/", "gen/", "skip_me", "secrets/", "link_", "outside"]:
        assert not any(fragment in p for p in found), fragment
    by_path = {f.path: f for f in r.files}
    assert by_path["weird:12:name.txt"].matches[0].text == "needle: weird:3: colon"
    assert by_path["crlf.txt"].matches[0].text == "needle crlf"
    assert by_path["utf16.txt"].matches[0].text == "needle utf16"
    assert by_path["bom.txt"].matches[0].text == "needle after a BOM"
    assert by_path["latin1.txt"].matches[0].text == "needle caf\ufffd"
    assert found == sorted(found, key=lambda p: p.encode().replace(b"/", b"\0"))
    assert r.total_matches == sum(len(f.matches) for f in r.files)


@pytest.mark.parametrize("engine", ["rg", "python"])
def test_grep_options(tree: Path, engine: str) -> None:
    if engine == "rg" and not HAVE_RG:
        pytest.skip("no rg binary")
    main = "src/main.py"
    sensitive = grep(tree, "Needle", engine=engine, include="*.py")
    assert [(m.line, m.text) for m in sensitive.files[0].matches] == [(4, "    return 'Needle'")]
    insensitive = grep(tree, "Needle", engine=engine, include="*.py", case_sensitive=False)
    assert [m.line for m in insensitive.files[0].matches] == [3, 4, 6]
    fixed = grep(tree, "a.b(c", engine=engine, fixed_strings=True)
    assert [(f.path, [m.line for m in f.matches]) for f in fixed.files] == [("regex.txt", [1])]
    regex = grep(tree, "a.b\\(c", engine=engine)
    assert [m.line for m in regex.files[0].matches] == [1, 2]
    ctx = grep(tree, "return", engine=engine, include=main, context=1)
    assert [(m.line, m.is_context) for m in ctx.files[0].matches] == [
        (3, True),
        (4, False),
        (5, True),
    ]
    cut = grep(tree, "needle", engine=engine, include="long.txt", max_line_chars=10)
    # a match past the cut: a window around it, saying what was left out either side
    assert (
        cut.files[0].matches[0].text
        == "[899 characters before] ...x needle y... [899 more characters]"
    )


@pytest.mark.parametrize("engine", ["rg", "python"])
def test_grep_cap_keeps_first_matches_in_path_order(tree: Path, engine: str) -> None:
    if engine == "rg" and not HAVE_RG:
        pytest.skip("no rg binary")
    full = grep(tree, "needle", engine=engine, max_matches=10_000)
    capped = grep(tree, "needle", engine=engine, max_matches=12)
    assert capped.truncated and not full.truncated
    assert capped.total_matches == 12
    flat_full = [(f.path, m.line) for f in full.files for m in f.matches][:12]
    flat_capped = [(f.path, m.line) for f in capped.files for m in f.matches]
    assert flat_capped == flat_full
    exact = grep(tree, "needle", engine=engine, max_matches=full.total_matches)
    assert not exact.truncated and exact.total_matches == full.total_matches


@needs_rg
def test_grep_cap_inside_a_big_file(tmp_path: Path) -> None:
    write(tmp_path, "big.txt", "".join(f"hit {i}\n" for i in range(10_000)))
    write(tmp_path, "big_binary.txt", "".join(f"hit {i}\n" for i in range(10_000)) + "\x00")
    for engine in ("rg", "python"):
        r = grep(tmp_path, "hit", engine=engine, max_matches=5_000, context=1)
        assert [f.path for f in r.files] == ["big.txt"]
        assert r.truncated and r.total_matches == 5_000
        assert r.files[0].matches[-1].line == 5_000


@needs_rg
def test_grep_cap_far_exceeded_reruns_in_path_order(tmp_path: Path) -> None:
    # More matches than the unordered run's budget: ripgrep is rerun in path order.
    dirs = ["a", "a-b", "a.b", "A", "ä", "a b", "a/b", "b"]  # orders that differ by method
    for i in range(64):
        name = f"{dirs[i % len(dirs)]}/f{i:02d}.txt"
        write(tmp_path, name, "".join(f"hit {j}\n" for j in range(50)))
    for cap in (10, 2_000):  # beyond the unordered run's budget, then within it
        seen: list[int] = []
        rg = grep(tmp_path, "hit", engine="rg", max_matches=cap, context=2, on_progress=seen.append)
        py = grep(tmp_path, "hit", engine="python", max_matches=cap, context=2)
        assert snapshot(rg) == snapshot(py)
        assert rg.truncated and rg.total_matches == cap
        assert seen == sorted(seen) and seen[-1] == cap


def test_unpassable_arguments(tree: Path) -> None:
    # A NUL byte cannot go into ripgrep's argv: "auto" searches with Python instead.
    r = grep(tree, "needle\x00", engine="auto")
    assert r.error is None and r.files == [] and r.engine == "python"
    assert grep(tree, "needle", include="*\x00").files == []
    assert glob(tree, "*\x00").paths == []
    if HAVE_RG:
        assert grep(tree, "needle\x00", engine="rg").error is not None


def test_tree_deeper_than_the_python_stack(tmp_path: Path) -> None:
    fd = os.open(tmp_path, os.O_RDONLY)
    for _ in range(1_200):
        os.mkdir("d", dir_fd=fd)
        sub = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = sub
    os.close(os.open("x.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd))
    os.close(fd)
    try:
        for engine in ["python", *(["rg"] if HAVE_RG else [])]:
            assert glob(tmp_path, "**/*.txt", engine=engine).total == 1
            assert grep(tmp_path, "x", include="**/*.txt", engine=engine).files == []
    finally:  # shutil.rmtree (pytest's cleanup) recurses once per level: unwind here
        fds = [os.open(tmp_path, os.O_RDONLY)]
        for _ in range(1_200):
            fds.append(os.open("d", os.O_RDONLY, dir_fd=fds[-1]))
        deepest = fds.pop()
        os.unlink("x.txt", dir_fd=deepest)
        os.close(deepest)
        while fds:
            parent = fds.pop()
            os.rmdir("d", dir_fd=parent)
            os.close(parent)


def test_missing_directory(tmp_path: Path) -> None:
    with pytest.raises(NotADirectoryError):
        grep(tmp_path / "nope", "x")
    with pytest.raises(NotADirectoryError):
        glob(tmp_path / "nope", "*")
    with pytest.raises(ValueError, match="engine must be one of"):
        grep(tmp_path, "x", engine="grep")


def test_grep_invalid_regex(tree: Path) -> None:
    py = grep(tree, "(unclosed", engine="python")
    assert py.error is not None and py.error.startswith('Invalid regular expression "(unclosed":')
    assert not py.files
    text = format_grep_gemini(py, "(unclosed", ".")
    assert text.startswith("Error during grep search operation: Invalid regular expression")
    if HAVE_RG:
        rg = grep(tree, "(unclosed", engine="rg")
        assert rg.error == 'Invalid regular expression "(unclosed": unclosed group'
        assert grep(tree, "(unclosed").error is not None


def test_grep_invalid_include(tree: Path) -> None:
    r = grep(tree, "needle", include="src/[a", engine="python")
    assert r.error is not None and "unclosed character class" in r.error


def test_grep_python_dialect_fallback(tree: Path) -> None:
    py = grep(tree, r"(?<=def )find_\w+", engine="python")
    assert [(f.path, f.matches[0].text) for f in py.files] == [
        ("src/main.py", "def find_needle():")
    ]
    rg = find_rg()
    if rg is not None:
        auto = grep(tree, r"(?<=def )find_\w+")
        assert snapshot(auto) == snapshot(py)
        strict = grep(tree, r"(?<=def )find_\w+", engine="rg")
        if has_pcre2(rg):  # ripgrep reruns with --pcre2
            assert auto.engine == "rg" and snapshot(strict) == snapshot(py)
        else:  # the ripgrep wheel: no PCRE2
            assert auto.engine == "python"
            assert strict.error is not None and "look-around" in strict.error


def test_grep_progress(tree: Path) -> None:
    seen: list[int] = []
    r = grep(tree, "needle", engine="python", on_progress=seen.append)
    assert seen and seen[-1] == r.total_matches
    assert seen == sorted(seen)


@needs_rg
def test_grep_whitelist_idiom_agrees(tmp_path: Path) -> None:
    # "*" / "!*/" / "!*.py": a directory-only negation must not re-include files.
    write(tmp_path, ".gitignore", "*\n!*/\n!*.py\n!.gitignore\n")
    write(tmp_path, "a.py", "hit\n")
    write(tmp_path, "a.txt", "hit\n")
    write(tmp_path, "d/b.py", "hit\n")
    write(tmp_path, "d/b.txt", "hit\n")
    rg = grep(tmp_path, "hit", engine="rg")
    py = grep(tmp_path, "hit", engine="python")
    assert paths_of(rg) == paths_of(py) == ["a.py", "d/b.py"]


@pytest.mark.parametrize("engine", ["rg", "python"])
def test_ignore_root_applies_parent_ignore_files(tree: Path, engine: str) -> None:
    if engine == "rg" and not HAVE_RG:
        pytest.skip("no rg binary")
    write(tree, "src/sub/trace.log", "needle log below\n")
    sub = tree / "src" / "sub"
    alone = grep(sub, "needle", engine=engine)
    assert "trace.log" in paths_of(alone)
    with_parents = grep(sub, "needle", engine=engine, ignore_root=tree)
    assert paths_of(with_parents) == ["deep.txt"]
    g = glob(sub, "*", engine=engine, ignore_root=tree)
    assert sorted(g.paths) == [".ignore", "deep.txt"]
    assert g.ignored_count == 2


# ------------------------------------------------------------------------------ glob

GLOB_CASES: list[tuple[str, dict[str, object]]] = [
    ("*.txt", {}),
    ("**/*.txt", {}),
    ("src/**/*.py", {}),
    ("**/*.{py,md,tmp}", {}),
    ("**/*.LOG", {}),
    ("**/*.MD", {"case_sensitive": False}),
    ("**/*.md", {"case_sensitive": True}),
    ("**/*.log", {"respect_gitignore": False}),
    ("**/*", {"visible": policy}),
    ("**/*", {"respect_gitignore": False, "visible": policy}),
    ("**/*", {"max_results": 5}),
    ("src/*", {}),
    ("ünïcødé/*", {}),
    ("*:12:*", {}),
]


@needs_rg
@pytest.mark.parametrize(("pattern", "opts"), GLOB_CASES)
def test_glob_engines_agree(tree: Path, pattern: str, opts: dict[str, object]) -> None:
    rg = glob(tree, pattern, engine="rg", **opts)  # type: ignore[arg-type]
    py = glob(tree, pattern, engine="python", **opts)  # type: ignore[arg-type]
    assert (rg.paths, rg.total, rg.truncated, rg.ignored_count) == (
        py.paths,
        py.total,
        py.truncated,
        py.ignored_count,
    )
    assert rg.paths


@pytest.mark.parametrize("engine", ["rg", "python"])
def test_glob_semantics(tree: Path, engine: str) -> None:
    if engine == "rg" and not HAVE_RG:
        pytest.skip("no rg binary")
    top = glob(tree, "*.txt", engine=engine)
    assert "src/sub/deep.txt" not in top.paths and "crlf.txt" in top.paths
    deep = glob(tree, "**/*.txt", engine=engine)
    assert "src/sub/deep.txt" in deep.paths
    assert not any(p.startswith(("build/", "link_", ".git/")) for p in deep.paths)
    assert "src/sub/skip_me.txt" not in deep.paths
    assert deep.ignored_count == 2  # build/out.txt, src/sub/skip_me.txt
    logs = glob(tree, "**/*.LOG", engine=engine)
    assert logs.paths == ["keep.log"] and logs.ignored_count == 1
    assert glob(tree, "**/*.LOG", engine=engine, case_sensitive=True).paths == []
    everything = glob(tree, "**/*", engine=engine, respect_gitignore=False)
    assert "debug.log" in everything.paths and everything.ignored_count == 0
    assert not any(p.startswith(("node_modules/", ".git/", "link_")) for p in everything.paths)
    assert "link_file" not in everything.paths


@pytest.mark.parametrize("engine", ["rg", "python"])
def test_glob_sorted_newest_first(tmp_path: Path, engine: str) -> None:
    if engine == "rg" and not HAVE_RG:
        pytest.skip("no rg binary")
    for name, age in [("old.ts", 300), ("new.ts", 10), ("mid.ts", 100), ("b/tie.ts", 50)]:
        p = write(tmp_path, name, "x")
        os.utime(p, (1_700_000_000 - age, 1_700_000_000 - age))
    p = write(tmp_path, "a/tie.ts", "x")
    os.utime(p, (1_700_000_000 - 50, 1_700_000_000 - 50))
    r = glob(tmp_path, "**/*.ts", engine=engine)
    assert r.paths == ["new.ts", "a/tie.ts", "b/tie.ts", "mid.ts", "old.ts"]
    capped = glob(tmp_path, "**/*.ts", engine=engine, max_results=2)
    assert capped.paths == ["new.ts", "a/tie.ts"] and capped.truncated and capped.total == 5


def test_glob_literal_path_and_errors(tmp_path: Path) -> None:
    write(tmp_path, "app/[id].tsx", "x")
    write(tmp_path, "app/i.tsx", "x")
    for engine in ["python", *(["rg"] if HAVE_RG else [])]:
        assert glob(tmp_path, "app/[id].tsx", engine=engine).paths == ["app/[id].tsx"]
        assert glob(tmp_path, "app/[ab].tsx", engine=engine).paths == []
        bad = glob(tmp_path, "app/{a,b", engine=engine)
        assert bad.error is not None and "unclosed alternate group" in bad.error
        assert glob(tmp_path, "  ", engine=engine).error == "The pattern cannot be empty."
        absolute = glob(tmp_path, str(tmp_path / "app" / "*.tsx"), engine=engine)
        assert sorted(absolute.paths) == ["app/[id].tsx", "app/i.tsx"]


# -------------------------------------------------------------------- list_directory


def test_list_directory(tree: Path) -> None:
    r = list_directory(tree, visible=policy)
    names = [(e.name, e.is_dir) for e in r.entries]
    dirs = [n for n, d in names if d]
    assert dirs == sorted(dirs, key=str.casefold)
    assert names.index(("src", True)) < names.index(("bom.txt", False))
    assert ("link_in", True) in names  # resolves inside the listed directory
    assert ("link_out", False) in names  # points outside: shown, not a directory
    link = next(e for e in r.entries if e.name == "link_out")
    assert link.is_symlink
    assert not any(n in (".env", "secrets", ".git", "debug.log", "build") for n, _ in names)
    assert r.ignored_count == 3  # .git, debug.log, build
    plain = list_directory(tree, respect_gitignore=False, ignore=["*.txt", "link_*"])
    plain_names = [e.name for e in plain.entries]
    assert ".git" in plain_names and "debug.log" in plain_names and plain.ignored_count == 0
    assert not any(n.endswith(".txt") or n.startswith("link_") for n in plain_names)
    sub = list_directory(tree / "src")
    assert [(e.name, e.is_dir) for e in sub.entries] == [
        ("sub", True),
        (".gitignore", False),
        ("important.tmp", False),
        ("main.py", False),
        ("pipe", False),
    ]
    assert sub.ignored_count == 2


# ------------------------------------------------------------------------ formatting


def test_format_grep_gemini_exact() -> None:
    from filewright.search import FileMatches, LineMatch

    r = GrepResult(
        files=[
            FileMatches(
                "src/utils.ts",
                [
                    LineMatch(15, "export function myFunction() {"),
                    LineMatch(22, "  myFunction.call();"),
                ],
            ),
            FileMatches("src/index.ts", [LineMatch(5, "import { myFunction } from './utils';")]),
        ],
        total_matches=3,
        truncated=False,
        engine="rg",
    )
    assert format_grep_gemini(r, "myFunction", ".", "*.ts") == (
        'Found 3 matches for pattern "myFunction" in path "." (filter: "*.ts"):\n'
        "---\n"
        "File: src/utils.ts\n"
        "L15: export function myFunction() {\n"
        "L22:   myFunction.call();\n"
        "---\n"
        "File: src/index.ts\n"
        "L5: import { myFunction } from './utils';\n"
        "---"
    )
    one = GrepResult(
        [FileMatches("a.py", [LineMatch(1, "a", True), LineMatch(2, "x  ")])], 1, True, "rg"
    )
    assert format_grep_gemini(one, "x", "src") == (
        'Found 1 match for pattern "x" in path "src" '
        "(results limited to 1 matches for performance):\n"
        "---\nFile: a.py\nL1- a\nL2: x\n---"
    )
    none = GrepResult([], 0, False, "python")
    assert format_grep_gemini(none, "x", ".") == 'No matches found for pattern "x" in path ".".'
    assert format_grep_gemini(none, "x", ".", "*.md") == (
        'No matches found for pattern "x" in path "." (filter: "*.md").'
    )


def test_format_glob_gemini_exact() -> None:
    r = GlobResult(["src/b.ts", "src/a.ts"], False, 2, 0, "rg")
    assert format_glob_gemini(r, "*.ts", "src", render_path=lambda p: "/ws/" + p) == (
        'Found 2 file(s) matching "*.ts" within src, sorted by modification time '
        "(newest first):\n/ws/src/b.ts\n/ws/src/a.ts"
    )
    ignored = GlobResult(["a.ts"], True, 3, 4, "rg")
    assert format_glob_gemini(ignored, "*.ts", "/ws") == (
        'Found 3 file(s) matching "*.ts" within /ws (4 additional files were ignored), '
        "sorted by modification time (newest first):\na.ts\n"
        "(showing the 1 most recently modified of 3 files; use a more specific pattern "
        "to see the others)"
    )
    assert format_glob_gemini(GlobResult([], False, 0, 0, "rg"), "*.ts", "src") == (
        'No files found matching pattern "*.ts" within src'
    )
    assert format_glob_gemini(GlobResult([], False, 0, 2, "rg"), "*.ts", "src") == (
        'No files found matching pattern "*.ts" within src (2 files were ignored)'
    )


def test_format_list_gemini_exact(tmp_path: Path) -> None:
    from filewright.search import Entry

    r = ListResult([Entry("subfolder1", True), Entry("file1.txt", False)], 0)
    assert (
        format_list_gemini(r, "/path")
        == "Directory listing for /path:\n[DIR] subfolder1\nfile1.txt"
    )
    r.ignored_count = 2
    assert format_list_gemini(r, "/p").endswith("file1.txt\n\n(2 ignored)")
    empty = list_directory(tmp_path)
    assert format_list_gemini(empty, str(tmp_path)) == f"Directory {tmp_path} is empty."


# ----------------------------------------------------------------- glob translation


@pytest.mark.parametrize(
    ("glob_text", "yes", "no"),
    [
        ("*.py", ["a.py", ".py"], ["d/a.py", "a.pyc"]),
        ("**/*.py", ["a.py", "d/e/a.py"], ["a.pyc"]),
        ("src/**/*.ts", ["src/a.ts", "src/x/y/a.ts"], ["a.ts", "srcx/a.ts"]),
        ("a/**", ["a/b", "a/b/c"], ["a", "ab/c"]),
        ("*.{ts,tsx}", ["a.ts", "a.tsx"], ["a.t"]),
        ("[!a-c]x?", ["dxy"], ["axy", "dx"]),
        ("\\*", ["*"], ["a"]),
        ("a**b", ["ab", "axxb"], ["a/b"]),
        ("**", ["a", "a/b"], []),
    ],
)
def test_glob_translation(glob_text: str, yes: list[str], no: list[str]) -> None:
    rx = compile_glob(glob_text)
    for p in yes:
        assert rx.match(p.encode()), p
    for p in no:
        assert not rx.match(p.encode()), p


def test_glob_errors_and_ignore_lines() -> None:
    for bad in ["[a", "{a", "{a,{b}}", "a\\", "[z-a]"]:
        with pytest.raises(GlobError):
            glob_to_regex(bad)
    spec = IgnoreSpec.from_lines(["*.log", "!keep.log", "build/", "/top", "\\#hash", "trail\\ "])
    assert spec.match(b"x/a.log", False) is True
    assert spec.match(b"x/keep.log", False) is False
    assert spec.match(b"build", True) is True and spec.match(b"build", False) is None
    assert spec.match(b"top", False) is True and spec.match(b"d/top", False) is None
    assert spec.match(b"#hash", False) is True
    assert spec.match(b"trail ", False) is True


# ------------------------------------------------------- fast paths of glob (and walk)

IGNORE_SHAPES = {
    ".gitignore": "*.log\n!keep.log\nfoo\n*.tmp\n/anchored.txt\nsub/*.md\n[ab].c\nx?y\n"
    "**/deep/*.z\n\\!bang\n**/star_dir/**\ntrail\\ \nonly_dir/\n",
    "a/.ignore": "!*.tmp\nname.txt\n*.PY\n!x.log\n",
    "a/b/.rgignore": "*.py\n!main.py\ndx*\n**/*.md\n",
    "a/b/deep/.gitignore": "!foo\n/q.md\n",
}
CANDIDATE_NAMES = [
    "x.log", "keep.log", "x.log\n", "foo", "foo\n", "a.tmp", "anchored.txt", "q.md", "a.c",
    "c.c", "xzy", "x.z", "!bang", "X.LOG", "main.py", "other.py", "x.PY", "name.txt",
    "only_dir", "trail ", "dx", ".log", "plain.txt", "caf\xe9.log",
]  # fmt: skip


def _reference_file_ignored(rules: DirRules, rel: bytes) -> bool:
    """The definition: first level (deepest, .rgignore > .ignore > .gitignore) with a
    matching line decides; within a file the last matching line."""
    base = rel.rpartition(b"/")[2]
    for levels in rules.levels:
        for lv in levels:
            path = lv.prefix + rel[lv.strip :] if lv.prefix or lv.strip else rel
            for g in reversed(lv.spec.globs):
                if not g.only_dir and g.regex.match(base if g.basename else path):
                    return not g.whitelist
    return False


def test_ignore_rules_quick_test_agrees_with_definition(tmp_path: Path) -> None:
    for rel, text in IGNORE_SHAPES.items():
        write(tmp_path, rel, text)
    filt = PathFilter(tmp_path)
    rels = []
    for d in ["", "a", "a/b", "a/b/deep", "sub", "a/star_dir", "a/b/deep/sub"]:
        rules = filt.rules(d.encode())
        assert rules is not None, d
        for name in CANDIDATE_NAMES:
            rel = os.fsencode(f"{d}/{name}" if d else name)
            rels.append(rel)
            base = rel.rpartition(b"/")[2]
            assert rules.is_file_ignored(rel, base) == _reference_file_ignored(rules, rel), rel
    # Batches (in any order, directories interleaved) split exactly as path by path.
    shuffled = rels[::3] + rels[1::3] + rels[2::3]
    kept, ignored = PathFilter(tmp_path).split_files(shuffled)
    assert kept == [r for r in shuffled if not filt.is_ignored(r)]
    assert ignored == [r for r in shuffled if filt.is_ignored(r)]
    assert ignored and kept


class _Trickle:
    """A stream handing out a few bytes at a time (paths split across reads)."""

    def __init__(self, data: bytes, size: int) -> None:
        self.data, self.size = data, size

    def read1(self, _n: int) -> bytes:
        chunk, self.data = self.data[: self.size], self.data[self.size :]
        return chunk

    read = read1


def test_iter_path_batches_across_reads() -> None:
    names = [b"./a.txt", b"./dir/b c.py", b"./\xffraw", b"./x", b"./" + b"y" * 50]
    data = b"\0".join(names) + b"\0"
    want = [n[2:] for n in names]
    for size in (1, 3, 7, 64, 1 << 16):
        got = [p for batch in iter_path_batches(_Trickle(data, size)) for p in batch]
        assert got == want, size
    unterminated = [p for b in iter_path_batches(_Trickle(b"./a\0./b", 2)) for p in b]
    assert unterminated == [b"a", b"b"]
    assert cores() >= 1
    assert "--threads" in files_args("/*", case_sensitive=True, respect_gitignore=True,
                                     excludes=(), threads=1)  # fmt: skip


@pytest.fixture(scope="module")
def large_listing(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tree of `test_glob_large_listing_engines_agree`, built once for its three
    cases (they only list it)."""
    tmp_path = tmp_path_factory.mktemp("large_listing")
    for rel, text in IGNORE_SHAPES.items():
        write(tmp_path, rel, text)
    long = "n" * 60
    for i in range(2400):
        d = ["", "a", "a/b", "a/b/deep", "sub", "build", "only_dir"][i % 7]
        name = f"{long}_{i:04d}{['.py', '.log', '.tmp', '.md', '.c', '.PY'][i % 6]}"
        p = write(tmp_path, f"{d}/g{i % 5}/{name}" if d else name, "x")
        if i % 3:
            os.utime(
                p, ns=(1_700_000_000_000_000_000 + (i % 11), 1_700_000_000_123_456_789 - i % 13)
            )
    for extra in CANDIDATE_NAMES:
        if not extra.endswith("\n"):
            write(tmp_path, f"a/b/{extra}", "x")
    return tmp_path


_PYTHON_LISTINGS: dict[tuple[str, str, int], tuple[list[str], int, bool, int]] = {}


@needs_rg
@pytest.mark.parametrize("processes", [1, 2, 3])
def test_glob_large_listing_engines_agree(
    large_listing: Path, processes: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Thousands of long paths (ripgrep's output arrives in many reads), ignore files at
    several levels, ties and distinct modification times: both engines agree, with and
    without the ignored count and a policy, whether one ripgrep walks the tree or
    several walk parts of it."""
    tmp_path = large_listing
    monkeypatch.setattr(search_glob, "cores", lambda: processes)
    for pattern in ["**/*", "**/*.py", "a/**/*.{md,log}", "*", "**/g[13]/*"]:
        for i, opts in enumerate(
            [
                {},
                {"count_ignored": False},
                {"max_results": 7},
                {"visible": lambda p, _d: "g2" not in p},
                {"visible": lambda p, _d: "g2" not in p, "count_ignored": False},
                {"respect_gitignore": False, "case_sensitive": True},
            ]
        ):
            rg = glob(tmp_path, pattern, engine="rg", **opts)  # type: ignore[arg-type]
            got = (rg.paths, rg.total, rg.truncated, rg.ignored_count)
            # The Python walk does not depend on `processes` (only ripgrep's walk is
            # split): it runs once per case for the three forms of this test.
            key = (str(tmp_path), pattern, i)
            if key not in _PYTHON_LISTINGS:
                py = glob(tmp_path, pattern, engine="python", **opts)  # type: ignore[arg-type]
                _PYTHON_LISTINGS[key] = (py.paths, py.total, py.truncated, py.ignored_count)
            assert got == _PYTHON_LISTINGS[key], (pattern, opts)
    split = search_glob.split_walk(tmp_path, Overrides([("/**/*", True)]), None, False)
    assert (split is None) == (processes == 1)
    everything = glob(tmp_path, "**/*", engine="rg", max_results=10_000)
    assert everything.total > 1000 and everything.ignored_count > 100
    # Newest first, ties in path order (component by component), checked from scratch.
    stamps = {p: os.stat(tmp_path / p).st_mtime_ns for p in everything.paths}
    assert everything.paths == sorted(
        stamps, key=lambda p: (-stamps[p], os.fsencode(p).replace(b"/", b"\0"))
    )


@needs_rg
def test_rg_records_parse_names_with_newlines_and_colons(tmp_path: Path) -> None:
    """ripgrep's `path NUL number (:|-) text` records parse whatever the name holds, and
    a grep reports such files like any other."""
    odd = "we:ird\nname-1:2.txt"
    (tmp_path / odd).write_text("a\nneedle: 3-4\nb\n")
    (tmp_path / "plain.txt").write_text("needle\n")
    rg = find_rg()
    assert rg is not None
    args = grep_args(
        "needle",
        include=None,
        case_sensitive=True,
        fixed_strings=False,
        context=1,
        respect_gitignore=False,
        sort=True,
        per_file=10,
    )
    out = subprocess.run([rg, *args], cwd=tmp_path, capture_output=True, check=False).stdout
    got = [(p, n, c, t) for p, n, c, t in _records(io.BytesIO(out))]
    assert got == [
        (b"./plain.txt", 1, False, b"needle"),
        (os.fsencode("./" + odd), 1, True, b"a"),
        (os.fsencode("./" + odd), 2, False, b"needle: 3-4"),
        (os.fsencode("./" + odd), 3, True, b"b"),
    ] or sorted(got) == sorted(
        [
            (b"./plain.txt", 1, False, b"needle"),
            (os.fsencode("./" + odd), 1, True, b"a"),
            (os.fsencode("./" + odd), 2, False, b"needle: 3-4"),
            (os.fsencode("./" + odd), 3, True, b"b"),
        ]
    )
    found = grep(tmp_path, "needle", engine="rg")
    assert sorted(f.path for f in found.files) == sorted([odd, "plain.txt"])


@needs_rg
@pytest.mark.parametrize("count_ignored", [True, False])
def test_glob_split_walk_keeps_every_rule(
    tree: Path, count_ignored: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Parts of the tree walked by separate ripgreps (which do not read the ignore files
    above their part) give exactly what one ripgrep gives: files met on the way, ignore
    files above the parts, an include glob naming directories, symlinks, case."""
    write(tree, "src/more/.gitignore", "*.tmp\n")
    write(tree, "src/more/x.tmp", "x")
    write(tree, "src/more/y.log", "x")
    write(tree, "src/more/deep/z.log", "x")
    write(tree, "SRC/Gen/x.py", "x")
    write(tree, "src/gen/inner/build/q.txt", "x")
    for i in range(9):  # enough directories below src/ for 4 walkers to go one level down
        write(tree, f"src/p{i}/build/b.txt", "x")
        write(tree, f"src/p{i}/f{i}.TXT", "x")
    # (src/gen is ignored by src/.gitignore; build/ by the root's: ripgrep walking
    # src/gen/inner alone would list q.txt, this side must drop it.)
    patterns = ["**/*", "**/*.{log,tmp,py,txt}", "src/**", "src/*/**/*.txt", "*.txt", "s*/**"]
    patterns += ["SRC/gen/*", "src/p1*/**", "src/p[13]/*", "nowhere/**", "*/*.txt", "src/*"]

    def results() -> list[tuple[object, ...]]:
        out = []
        for pattern in patterns:
            for opts in [{}, {"visible": policy}, {"respect_gitignore": False}]:
                r = glob(tree, pattern, engine="rg", count_ignored=count_ignored, **opts)  # type: ignore[arg-type]
                out.append((pattern, r.paths, r.total, r.ignored_count, r.truncated))
        return out

    monkeypatch.setattr(search_glob, "cores", lambda: 1)
    alone = results()
    for n in (2, 4):
        monkeypatch.setattr(search_glob, "cores", lambda n=n: n)
        overrides = Overrides([("/**/*", True), ("!.git", True), ("!node_modules", True)])
        split = search_glob.split_walk(tree, overrides, PathFilter(tree), not count_ignored)
        assert split is not None
        parts, loose = split
        units = [u for part in parts for u in part]
        assert len(units) == len(set(units)) and b"node_modules" not in units
        assert b"keep.log" in loose and b"link_file" not in loose
        assert not any(os.path.islink(tree / os.fsdecode(u)) for u in units)
        assert n == 2 or any(b"/" in u for u in units)  # gone one level down
        # Directories no match can be in are not walked at all.
        leading = search_glob.leading_dirs("/src/p1*/**/*.txt", case_sensitive=False)
        split = search_glob.split_walk(tree, overrides, None, False, leading)
        assert split is not None
        assert sorted(u for part in split[0] for u in part) == [b"src/p1"]
        assert search_glob.split_walk(tree, overrides, None, False, leading[:1]) != split
        leading = search_glob.leading_dirs("/src/gen/*.py", case_sensitive=False)
        split = search_glob.split_walk(tree, overrides, None, False, leading)
        assert split is not None
        assert sorted(u for part in split[0] for u in part) == [b"SRC/Gen", b"src/gen"]
        assert results() == alone
    # A "!" line in an .ignore above the parts could beat a deeper .gitignore, which a
    # ripgrep given the part would apply alone: pruning walks are then not split.
    write(tree, ".ignore", "!y.log\n")
    write(tree, "src/more/.gitignore", "*.tmp\n*.log\n")
    f = PathFilter(tree)
    overrides = Overrides([("/**/*", True)])
    assert search_glob.split_walk(tree, overrides, f, True) is None
    assert search_glob.split_walk(tree, overrides, f, False) is not None
    kept = glob(tree, "**/*.log", engine="rg", count_ignored=count_ignored)
    assert kept.paths == glob(tree, "**/*.log", engine="python").paths
    assert "src/more/y.log" in kept.paths and "src/more/deep/z.log" not in kept.paths


@needs_rg
def test_names_ending_in_a_newline_are_matched_as_ripgrep_matches_them(tmp_path: Path) -> None:
    """A glob or ignore line matches the whole name: `*.log` does not match "x.log\\n"
    (a regex `$` would, before a final newline; ripgrep does not)."""
    (tmp_path / ".gitignore").write_text("*.log\nkeep.txt\n", encoding="utf-8")
    for name in ("x.log", "x.log\n", "keep.txt", "keep.txt\n", "a.md", "a.md\n"):
        (tmp_path / name).write_text("needle\n", encoding="utf-8")
    for pattern in ("*", "*.md"):
        rg = glob(tmp_path, pattern, engine="rg")
        py = glob(tmp_path, pattern, engine="python")
        assert (rg.paths, rg.ignored_count) == (py.paths, py.ignored_count), pattern
    shown = set(glob(tmp_path, "*", engine="python").paths) - {".gitignore"}
    assert shown == {"x.log\n", "keep.txt\n", "a.md", "a.md\n"}
    assert set(glob(tmp_path, "*.md", engine="python").paths) == {"a.md"}
    rg_files = {f.path for f in grep(tmp_path, "needle", engine="rg").files}
    py_files = {f.path for f in grep(tmp_path, "needle", engine="python").files}
    assert rg_files == py_files == shown
    listed = list_directory(tmp_path, ignore=["*.md"])
    assert {e.name for e in listed.entries} - {".gitignore"} == {"x.log\n", "keep.txt\n", "a.md\n"}


@needs_rg
def test_glob_split_walk_leaves_out_the_state_directory(tmp_path: Path) -> None:
    """The split walk hands ripgrep no directory the listing keeps out whatever the policy
    says (the state directory, skipped names): a glob of a small workspace with history
    started ripgreps over `.filewright/history` and `locks` only to drop all they printed.
    What the glob answers is the same."""
    from filewright import Workspace
    from filewright.policy.visibility import Visibility

    for d in ("src", "docs"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "a.py").write_text("x = 1\n")
    ws = Workspace(tmp_path)
    tools = ws.toolset("default")
    assert tools.call("edit", {"path": "src/a.py", "old_string": "1", "new_string": "2"}).ok
    state = ws.state_dir.relative_to(tmp_path).as_posix().encode()
    assert (tmp_path / os.fsdecode(state)).is_dir()
    overrides = Overrides([("/**/*", True)])
    seen = Visibility(ws.engine().policy, tmp_path, ".", ws.state_dir, skip_names=("docs",))
    assert seen.hidden_below(state) and seen.hidden_below(state + b"/history")
    assert seen.hidden_below(b"docs") and not seen.hidden_below(b"src")
    split = search_glob.split_walk(tmp_path, overrides, None, False, None, seen.hidden_below)
    everywhere = search_glob.split_walk(tmp_path, overrides, None, False)
    if split is None or everywhere is None:
        pytest.skip("one core: the walk is not split")
    handed = [d for part in split[0] for d in part]
    assert handed == [b"src"], handed
    assert any(d.startswith(state) for part in everywhere[0] for d in part)
    listed = tools.call("glob", {"pattern": "**/*"})
    assert listed.ok and ".filewright" not in listed.text and "src/a.py" in listed.text
