"""`Policy.access` (rules compiled per directory) against a frozen reference.

The reference below is a copy of `Policy.access` as it was before the per-directory fast
path (issue 24): every rule's regex, last match wins, over the case-folded and the
Unicode-folded name of every path given (name and real target), the untrusted rules
only tightening. It is kept here, unchanged, so that every change to the fast path is
checked against the same verdicts: random rule sets (case, trailing dots, Unicode,
wildcards, anchored, negated, directory-only, memory-bound, trusted and untrusted, the
toolsets' profiles, user and workspace policy files) and random paths, asked in random
order of one policy (so directory states are reused), must get the same access.

Do not "fix" the reference: if verdicts are meant to change, change both on purpose.
"""

from __future__ import annotations

import functools
import os
import re
import unicodedata
from pathlib import Path

import pytest
import regex
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from pathspec.patterns.gitignore.basic import GitIgnoreBasicPattern

from filewright import Workspace
from filewright.engine.registry import REGISTRY
from filewright.policy.rules import Access, Policy, Rule


def setup_module() -> None:
    Policy.FAST_AFTER = 0  # every path through the per-directory path from the first


def teardown_module() -> None:
    Policy.FAST_AFTER = _FAST_AFTER


_FAST_AFTER = Policy.FAST_AFTER


# -- the reference: Policy.access before the fast path, frozen -------------------------------

_STRICTNESS = {Access.WRITE: 0, Access.CONFIRM: 1, Access.READ: 2, Access.DENY: 3, Access.HIDDEN: 4}


def _ref_fold(rel: str) -> str:
    parts = []
    for part in unicodedata.normalize("NFKC", rel).split("/"):
        stripped = part.rstrip(" .")
        parts.append(stripped if stripped else part)
    return "/".join(parts).casefold()


def _ref_compile(rules: list[Rule], trusted: bool) -> list[tuple[Rule, object]]:
    compiled = []
    for rule in rules:
        source, include = _ref_translate(rule.pattern.casefold())
        if include and source:
            # A pattern without wildcards or escapes is literal text and separators, which
            # `re` and `regex` match alike (`regex` spends seconds on the first match of
            # a long literal). Not part of the old code.
            literal = not any(c in rule.pattern for c in "*?[\\")
            compiled.append((rule, (re if trusted or literal else regex).compile(source)))
    return compiled


@functools.cache
def _ref_translate(pattern: str) -> tuple[str | None, bool | None]:
    """pathspec's translation of one pattern, made once per pattern (it depends on the
    pattern alone; every policy holds the ~80 built-in rules). Not part of the old code."""
    return GitIgnoreBasicPattern.pattern_to_regex(pattern)  # type: ignore[no-any-return]


class ReferencePolicy:
    def __init__(self, policy: Policy) -> None:
        self.memory = policy.memory
        self.default = policy.default
        self.compiled = _ref_compile(policy.rules, True)
        self.compiled_untrusted = _ref_compile(policy.untrusted, False)

    def _access_one(self, rel: str, is_dir: bool) -> Access:
        key = rel + "/" if is_dir and not rel.endswith("/") else rel
        access = self.default
        memory = self.memory
        for rule, rx in reversed(self.compiled):
            if (rule.memory is None or rule.memory == memory) and rx.match(key):  # type: ignore[attr-defined]
                access = rule.access
                break
        for rule, rx in reversed(self.compiled_untrusted):
            if (rule.memory is None or rule.memory == memory) and rx.match(key):  # type: ignore[attr-defined]
                if _STRICTNESS[rule.access] > _STRICTNESS[access]:
                    access = rule.access
                break
        return access

    def access(self, *rels: str, is_dir: bool = False) -> Access:
        best = Access.WRITE
        real = False
        for rel in rels:
            if rel in ("", "."):
                continue
            real = True
            for variant in {rel.casefold(), _ref_fold(rel)}:
                got = self._access_one(variant, is_dir)
                if _STRICTNESS[got] >= _STRICTNESS[best]:
                    best = got
        return best if real else self.default


# -- what the world writes -------------------------------------------------------------------

# Names as repositories and agents spell them: plain, dotted, cased, with trailing dots and
# spaces, full-width and ligature forms (NFKC), combining marks, a full-width solidus
# (NFKC: "/"), and the names the protected set lists.
NAMES = [
    "src", "SRC", "a", "b", "lib", "docs", "gen", "fixtures", "secrets", "Secrets.",
    ".env", ".ENV", ".env.", ".env ", ".env.local", "key.pem", "KEY.PEM", "id_rsa", ".git",
    ".GIT", ".git.", "config", "settings.json", ".vscode", ".claude", "settings.local.json",
    ".filewright", ".filewright.toml", "x.fwtmp", "yarn.lock", "Cargo.lock", ".bashrc",
    "ﬁle", "ＳＲＣ", "ß", "SS", "e\u0301", "é", "a\uff0fb", "Ǆ", "ǅ", "İ", ".", "..", "a..",
    "node_modules", "build", "main.py", "x y", "[id].tsx", "*", "a*b", "résumé",
]  # fmt: skip
PATTERN_PARTS = [
    "src", "secrets", ".env", ".env.*", "*.pem", "*.PEM", "id_rsa*", ".git", "gen", "*",
    "**", "?", "[a-c]", "[!a]", "[s]rc", "fixtures", "config", "ﬁle", "SS", "ß", "é",
    "e\u0301", "x\\*", "*.py", "a*b", "settings*.json", "..", "Secrets.", ".", "ＳＲＣ",
]  # fmt: skip

names = st.sampled_from(NAMES) | st.text(
    alphabet=st.characters(codec="utf-8", exclude_characters="/\x00"), min_size=1, max_size=4
)
accesses = st.sampled_from(list(Access))


# Strategies are built once, not inside every draw (building and validating one costs more
# than drawing from it); the draws are the same.
_PARTS = st.lists(st.sampled_from(PATTERN_PARTS), min_size=1, max_size=3)
_BOOLS = st.booleans()
_TENTH = st.integers(0, 9)
_ODD = st.integers(0, 19)
_COMPONENTS = st.lists(names, min_size=1, max_size=5)
_MEMORY = st.sampled_from([None, True, False])


@st.composite
def patterns(draw: st.DrawFn) -> str:
    parts = draw(_PARTS)
    text = "/".join(parts)
    if draw(_BOOLS):
        text = "/" + text
    if draw(_BOOLS):
        text += "/"
    if draw(_TENTH) == 0:
        text = "!" + text
    return text


_PATTERNS = patterns()


@st.composite
def rules(draw: st.DrawFn) -> Rule:
    return Rule(draw(_PATTERNS), draw(accesses), draw(_MEMORY))


@st.composite
def paths(draw: st.DrawFn) -> str:
    comps = draw(_COMPONENTS)
    rel = "/".join(comps)
    odd = draw(_ODD)
    if odd == 0:
        rel += "/"
    elif odd == 1:
        rel = "/" + rel
    elif odd == 2:
        rel = rel.replace("/", "//", 1)
    elif odd == 3:
        rel += "\n"
    return rel


queries = st.lists(
    st.tuples(st.lists(paths(), min_size=1, max_size=3), st.booleans()), min_size=1, max_size=40
)


def _policy(trusted: list[Rule], untrusted: list[Rule], memory: bool, default: Access) -> Policy:
    try:
        return Policy(trusted, memory=memory, default=default, untrusted=untrusted)
    except ValueError:  # a pattern pathspec refuses (both versions raise alike)
        assume(False)
        raise


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    trusted=st.lists(rules(), max_size=8),
    untrusted=st.lists(rules(), max_size=6),
    memory=st.booleans(),
    default=accesses,
    asked=queries,
)
def test_fast_verdicts_equal_the_reference(
    trusted: list[Rule],
    untrusted: list[Rule],
    memory: bool,
    default: Access,
    asked: list[tuple[list[str], bool]],
) -> None:
    policy = _policy(trusted, untrusted, memory, default)
    ref = ReferencePolicy(policy)
    for rels, is_dir in asked:
        assert policy.access(*rels, is_dir=is_dir) == ref.access(*rels, is_dir=is_dir), (
            rels,
            is_dir,
        )


@settings(max_examples=150, deadline=None)
@given(trusted=st.lists(rules(), max_size=6), untrusted=st.lists(rules(), max_size=4))
def test_memory_switch_flips_between_both_verdicts(
    trusted: list[Rule], untrusted: list[Rule]
) -> None:
    """The companion flips `policy.memory` on a live policy: the fast path follows."""
    policy = _policy(trusted, untrusted, True, Access.WRITE)
    probe = ["secrets/key.pem", "src/gen/a.py", ".env", "docs", "a/b/c/d"]
    for memory in (True, False, True):
        policy.memory = memory
        ref = ReferencePolicy(policy)
        for rel in probe:
            for is_dir in (False, True):
                assert policy.access(rel, is_dir=is_dir) == ref.access(rel, is_dir=is_dir)


@settings(max_examples=120, deadline=None)
@given(trusted=st.lists(rules(), max_size=6), untrusted=st.lists(rules(), max_size=6))
def test_directory_verdict_holds_for_every_file_in_it(
    trusted: list[Rule], untrusted: list[Rule]
) -> None:
    """When `directory_verdict` answers, every file name there gets that answer."""
    policy = _policy(trusted, untrusted, True, Access.WRITE)
    ref = ReferencePolicy(policy)
    for d in ("", "src", "src/gen", "secrets", "a/b", ".git", "docs/x.", "ＳＲＣ/é"):
        verdict = policy.directory_verdict(d)
        if verdict is None:
            continue
        for name in NAMES:
            rel = f"{d}/{name}" if d else name
            if name in (".", "..") or "\uff0f" in name:
                continue
            assert ref.access(rel) == verdict, (d, name)


# -- through real workspaces: profiles, user and workspace policy files, symlinks ------------


def _toml(rules: list[Rule]) -> str:
    out = []
    for r in rules:
        pattern = r.pattern.replace("\\", "\\\\").replace('"', '\\"')
        out.append(f'[[rules]]\npattern = "{pattern}"\naccess = "{r.access.value}"')
        if r.memory is not None:
            out.append(f"memory = {'true' if r.memory else 'false'}")
    return "\n".join(out) + "\n"


TREE = ["src/gen/a.py", "secrets/key.pem", ".env", "docs/x.md", ".git/config", "a/b/c.txt"]


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    user=st.lists(rules(), max_size=5),
    workspace=st.lists(rules(), max_size=5),
    memory=st.booleans(),
    asked=st.lists(st.lists(names, min_size=1, max_size=4), min_size=1, max_size=15),
)
def test_toolsets_with_policy_files_and_symlinks(
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    user: list[Rule],
    workspace: list[Rule],
    memory: bool,
    asked: list[list[str]],
) -> None:
    assume(not any(r.pattern.startswith("!") for r in user + workspace))
    base = tmp_path_factory.mktemp("ws")
    root = base / "root"
    for rel in TREE:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x\n")
    # A link whose target the rules may judge differently from its name.
    os.symlink("secrets/key.pem", root / "innocent.txt")
    os.symlink("secrets", root / "plain")
    (root / ".filewright.toml").write_text(_toml(workspace), encoding="utf-8")
    user_file = base / "policy.toml"
    user_file.write_text(_toml(user), encoding="utf-8")
    monkeypatch.setenv("FILEWRIGHT_POLICY", str(user_file))
    try:
        ws = Workspace(root, memory=memory)
    except ValueError:
        assume(False)
        raise
    for name in sorted(REGISTRY):
        engine = ws.toolset(name).engine  # type: ignore[attr-defined]
        policy = engine.policy
        ref = ReferencePolicy(policy)
        for comps in asked:
            rel = "/".join(comps)
            for is_dir in (False, True):
                assert policy.access(rel, is_dir=is_dir) == ref.access(rel, is_dir=is_dir)
        for link, target in (("innocent.txt", "secrets/key.pem"), ("plain/key.pem", None)):
            loc = ws.sandbox.resolve(link)
            want = ref.access(loc.lexical_rel, loc.rel, is_dir=loc.is_dir)
            assert policy.access(loc.lexical_rel, loc.rel, is_dir=loc.is_dir) == want
            if target is not None:
                assert loc.rel == target
        visible = engine.visibility(ws.sandbox.resolve(".", expect="dir"))
        for comps in asked:
            rel = "/".join(comps)
            if "\n" in rel or rel.startswith("/") or "//" in rel:
                continue
            full = Path(root, rel)
            hidden_by_state = (str(full) + "/").startswith(str(ws.state_dir) + "/")
            want = not hidden_by_state and ref.access(rel.strip("/")) not in (
                Access.HIDDEN,
                Access.DENY,
            )
            assert visible(rel, False) == want, rel


# -- the bulk forms of the search filter ------------------------------------------------------

PLAIN_NAMES = [n for n in NAMES if n not in (".", "..") and "\n" not in n]


@settings(max_examples=200, deadline=None)
@given(
    trusted=st.lists(rules(), max_size=5),
    untrusted=st.lists(rules(), max_size=5),
    directory=st.sampled_from([".", "src", "a/b", ".filewright", "ＳＲＣ"]),
    state=st.sampled_from([".filewright", "src/gen", "a", "a/b/secrets", "elsewhere", "."]),
    skip=st.sampled_from([(), ("node_modules", ".git")]),
    files=st.lists(
        st.lists(
            st.sampled_from(["gen", "a", "b", "secrets", "src"]) | st.sampled_from(PLAIN_NAMES),
            min_size=1,
            max_size=4,
        ),
        max_size=30,
    ),
)
def test_bulk_visibility_equals_one_path_at_a_time(
    trusted: list[Rule],
    untrusted: list[Rule],
    directory: str,
    state: str,
    skip: tuple[str, ...],
    files: list[list[str]],
) -> None:
    from filewright.policy.visibility import Visibility

    policy = _policy(trusted, untrusted, True, Access.WRITE)
    root = Path("/ws/root")
    state_dir = root.parent / "other" if state == "elsewhere" else root / state
    if state == ".":
        state_dir = root.parent
    visible = Visibility(policy, root, directory, state_dir, skip)
    one = Visibility(policy, root, directory, state_dir, skip)  # no caches shared
    rels = ["/".join(parts) for parts in files]
    want = [rel for rel in rels if one(rel, False)]
    assert [os.fsdecode(r) for r in visible.files([os.fsencode(r) for r in rels])] == want
    for rel in rels:
        rel_dir, _, name = rel.rpartition("/")
        test = visible.in_directory(rel_dir)
        assert (test is None or test(name)) == one(rel, False), rel
    by_dir: dict[str, list[str]] = {}
    for rel in rels:
        rel_dir, _, name = rel.rpartition("/")
        by_dir.setdefault(rel_dir, []).append(name)
    for rel_dir, in_dir in by_dir.items():
        prefix = rel_dir + "/" if rel_dir else ""
        want_hidden = {name for name in in_dir if not one(prefix + name, False)}
        assert visible.hidden_names(rel_dir, in_dir, []) == want_hidden, rel_dir
        want_dirs = {name for name in in_dir if not one(prefix + name, True)}
        assert visible.hidden_names(rel_dir, [], in_dir) == want_dirs, rel_dir
    # And the same as the engine's filter before the change (Path-based state check).
    ref = ReferencePolicy(policy)
    base = "" if directory == "." else directory + "/"
    for rel in rels:
        full = base + rel.strip("/")
        old = (
            not (str(root / full) + "/").startswith(str(state_dir).rstrip("/") + "/")
            and ref.access(full) not in (Access.HIDDEN, Access.DENY)
            and (not skip or set(skip).isdisjoint(rel.split("/")))
        )
        assert one(rel, False) == old, rel


@settings(max_examples=150, deadline=None)
@given(
    trusted=st.lists(rules(), max_size=6),
    untrusted=st.lists(rules(), max_size=6),
    extra=st.lists(names, max_size=10),
)
def test_file_verdicts_single_out_every_name_they_do_not_decide(
    trusted: list[Rule], untrusted: list[Rule], extra: list[str]
) -> None:
    """A name the directory's regexes let pass gets the directory's verdict."""
    policy = _policy(trusted, untrusted, True, Access.WRITE)
    ref = ReferencePolicy(policy)
    for d in ("", "src", "src/gen", "secrets", "a/b", ".git", "docs/x.", "ＳＲＣ/é", "fixtures/a"):
        found = policy.file_verdicts(d)
        if found is None:
            continue
        for name in [*NAMES, *extra]:
            if "\uff0f" in name:
                continue
            rel = f"{d}/{name}" if d else name
            by_bytes = found.maybe is None or not found.maybe.may_match(os.fsencode(name))
            by_text = found.maybe is None or not found.maybe.may_match_text(name)
            assert by_bytes == by_text, name
            if by_bytes:
                assert ref.access(rel) == found.access, (d, name)


def test_deep_paths_and_deep_rules_need_no_recursion() -> None:
    """A path of thousands of directories, a rule of hundreds of them (a planted
    `.filewright.toml` may hold one): verdicts as the reference's, no RecursionError."""
    deep_rule = "/" + "/".join(["d"] * 1200) + "/"
    policy = Policy([Rule("x/", Access.DENY)], untrusted=[Rule(deep_rule, Access.HIDDEN)])
    ref = ReferencePolicy(policy)
    for rel in ("/".join(["d"] * 3000), "/".join(["d"] * 1199) + "/e", "d/" * 2000 + "x/y"):
        assert policy.access(rel, is_dir=False) == ref.access(rel)


def test_untrusted_rules_without_wildcards_never_reach_the_regex_engine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A planted rule of 1,200 literal names cost `regex` ~7 s on its first match (its
    time is cubic in a long literal's length); literal rules match with `re`, which
    answers alike."""
    deep_rule = "/" + "/".join(["d"] * 1200) + "/"
    untrusted = [
        Rule(deep_rule, Access.HIDDEN),
        Rule("secrets", Access.DENY),
        Rule("a/b", Access.READ),
    ]
    rels = ["/".join(["d"] * 1300), "d/d/e", "x/secrets/y", "secrets", "a/b/c", "a/c"]
    want = [ReferencePolicy(Policy([], untrusted=untrusted)).access(rel) for rel in rels]
    assert want == [
        Access.HIDDEN,
        Access.WRITE,
        Access.DENY,
        Access.DENY,
        Access.READ,
        Access.WRITE,
    ]

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("a literal rule reached the regex engine")

    monkeypatch.setattr(regex, "compile", refuse)
    for fast_after in (len(rels), 0):  # judged one path at a time, then per directory
        monkeypatch.setattr(Policy, "FAST_AFTER", fast_after)
        policy = Policy([], untrusted=untrusted)
        assert [policy.access(rel, is_dir=False) for rel in rels] == want


@pytest.mark.parametrize("first", ["fixtures/a/b", "other/a/b"])
def test_directories_sharing_states_share_verdicts_only_when_a_regex_agrees(first: str) -> None:
    """Directory verdicts are remembered per rule state; a regex rule whose text lies in
    one directory's path and not the other's must still tell them apart, whichever
    directory is asked first."""
    rules_ = [
        Rule("**/fixtures/**/*.bin", Access.DENY),
        Rule("*gen*.py", Access.READ),
        Rule("*.pem", Access.HIDDEN),
    ]
    policy = _policy(rules_, [], True, Access.WRITE)
    ref = ReferencePolicy(policy)
    dirs = [first, "other/a/b" if first.startswith("fixtures") else "fixtures/a/b", "x/gen/y"]
    for d in [*dirs, "q/a/b", "fixtures/c", "gen/a/b"]:
        found = policy.file_verdicts(d)
        if found is None:
            continue
        for name in ("x.bin", "a.py", "gen.py", "key.pem", "plain.txt"):
            if found.maybe is None or not found.maybe.may_match(name.encode()):
                assert ref.access(f"{d}/{name}") == found.access, (d, name)
            else:
                assert policy.access(f"{d}/{name}", is_dir=False) == ref.access(f"{d}/{name}"), (
                    d,
                    name,
                )
