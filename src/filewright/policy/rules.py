"""Who may do what to which path: ordered rules of path patterns to access levels.

Access levels, from most to least permissive:

- `write`   read and change freely
- `confirm` read freely; change only after the user approves
- `read`    read only
- `deny`    neither read nor changed, and absent from searches and listings (naming it
            directly says "access denied", where a hidden one is "not found")
- `hidden`  behaves as if the file did not exist (absent from listings and searches)

Rules use gitignore pattern syntax and are matched case-insensitively; the last rule
that matches wins. A path is checked under its name *and* under its real target, and
also with trailing dots and spaces stripped from each component and Unicode folded
(NFKC), so `.ENV`, `.env.` and a symlink to `.git/config` are all caught; the most
restrictive answer counts. Rules may be tied to the memory switch.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Iterable
from enum import StrEnum
from pathlib import Path
from typing import Any

from filewright.core.record import Frozen
from filewright.policy.index import FileVerdicts, PolicyIndex
from filewright.policy.verdicts import Shape, shape_of


class Access(StrEnum):
    WRITE = "write"
    CONFIRM = "confirm"
    READ = "read"
    DENY = "deny"
    HIDDEN = "hidden"


_STRICTNESS = {Access.WRITE: 0, Access.CONFIRM: 1, Access.READ: 2, Access.DENY: 3, Access.HIDDEN: 4}

CONFIG_FILE = ".filewright.toml"
STATE_DIR = ".filewright"


class Risk(StrEnum):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"


def risk_of(operation: str, target_exists: bool) -> Risk:
    """Risk of an operation: low for reads, medium to create or append, high to overwrite
    or replace."""
    if operation in ("read", "list", "search"):
        return Risk.LOW
    if operation == "append" or not target_exists:
        return Risk.MEDIUM
    return Risk.HIGH


class Rule(Frozen):
    """`pattern` (gitignore syntax) gets `access`; `memory` limits the rule to when the
    memory switch is on (True) or off (False)."""

    _fields = ("pattern", "access", "memory", "reason", "origin")
    __slots__ = _fields
    _uncompared = frozenset({"origin"})
    pattern: str
    access: Access
    memory: bool | None
    reason: str
    origin: str
    """Where the rule was written, "FILE:LINE" for a policy file's rule (shown by
    `filewright policy explain`); not part of the rule's identity."""

    def __init__(
        self,
        pattern: str,
        access: Access,
        memory: bool | None = None,
        reason: str = "",
        origin: str = "",
    ) -> None:
        self._set(pattern, access, memory, reason, origin)


# Always in force and not overridable: filewright's own state and temp files.
ENGINE_RULES: tuple[Rule, ...] = (
    Rule(f"/{STATE_DIR}/", Access.HIDDEN, reason="filewright state"),
    Rule("*.fwtmp", Access.HIDDEN, reason="filewright temporary file"),
    Rule(f"/{CONFIG_FILE}", Access.READ, reason="filewright policy file"),
)

# Files whose change can execute code or corrupt a repository: read-only by default.
# A name without a trailing slash matches a file *and* a directory of that name (with all
# it holds), so a `.git` file (`gitdir: ...`) is caught like the `.git` directory. Why
# each entry is here: SECURITY.md, "The protected set".
PROTECTED_NAMES: tuple[str, ...] = (
    # Version control: hooks, config (core.fsmonitor, core.hooksPath), a redirecting
    # `.git` file, submodule URLs; Mercurial's hgrc hooks.
    ".git",
    ".gitmodules",
    ".hg",
    # Git hook managers: their config runs commands at the next commit.
    ".husky",
    ".pre-commit-config.yaml",
    "lefthook.yml",
    ".lefthook.yml",
    "lefthook-local.yml",
    # Editors and agent hosts: tasks, launch and MCP server commands, settings that name
    # executables, run configurations.
    ".vscode",
    "*.code-workspace",
    ".idea",
    ".zed",
    ".cursor",
    ".gemini",
    ".codex",
    ".mcp.json",
    ".claude/settings*.json",
    ".devcontainer",
    ".devcontainer.json",
    # Build tools and package managers: configuration that names a program to run.
    ".cargo/config",
    ".cargo/config.toml",
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    ".envrc",
    # Lock files: a changed lock installs other code at the next install.
    "package-lock.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "npm-shrinkwrap.json",
    "bun.lockb",
    "uv.lock",
    "poetry.lock",
    "Pipfile.lock",
    "pdm.lock",
    "Cargo.lock",
    "Gemfile.lock",
    "composer.lock",
    "go.sum",
    # Shell start-up files (a root at $HOME).
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".cshrc",
    ".tcshrc",
    ".kshrc",
    ".config/fish/config.fish",
    ".inputrc",
    # The claude toolset's visible backups: no tool may change or plant one (a changed
    # backup would be trusted as the file's old content by whoever restores from it).
    ".claude-backups",
)

PROTECTED_RULES: tuple[Rule, ...] = tuple(
    Rule(p, Access.READ, reason="protected file") for p in PROTECTED_NAMES
)


def _fold(rel: str) -> str:
    parts = []
    for part in unicodedata.normalize("NFKC", rel).split("/"):
        stripped = part.rstrip(" .")
        parts.append(stripped if stripped else part)
    return "/".join(parts).casefold()


ANSWERS_KEPT = 4096
"""Answers `Policy.access` remembers (all are forgotten when there are this many)."""


class Policy:
    """Ordered access rules evaluated for a path relative to its root.

    `rules` are trusted (a toolset's profile, the Python caller, the user's own config) and
    may loosen the protected set. `untrusted` rules come from a workspace's
    `.filewright.toml`, which arrives with whatever repository is checked out: they can
    only make a path stricter than the trusted rules say, never looser.
    """

    def __init__(
        self,
        rules: list[Rule] | tuple[Rule, ...] = (),
        *,
        memory: bool = True,
        default: Access = Access.WRITE,
        untrusted: list[Rule] | tuple[Rule, ...] = (),
    ) -> None:
        self.memory = memory
        self.default = default
        self.rules: list[Rule] = [*PROTECTED_RULES, *rules, *ENGINE_RULES]
        self.untrusted: list[Rule] = list(untrusted)
        self._compiled = [*_built_in(0), *_compile(rules, trusted=True), *_built_in(1)]
        self._compiled_untrusted = _compile(self.untrusted, trusted=False)
        self._fast: dict[tuple[bool, Access], PolicyIndex[Access]] = {}
        self._calls = 0
        # The answers given, by the names asked and what else decides them (the memory
        # switch and the default can change; the compiled rules cannot): a path read again
        # is judged by a look-up (issue 32).
        self._answers: dict[tuple[tuple[str, ...], bool, bool, Access], Access] = {}

    def _access_one(self, rel: str, is_dir: bool) -> tuple[Access, Rule | None]:
        key = rel + "/" if is_dir and not rel.endswith("/") else rel
        access, found = self.default, None
        memory = self.memory
        for rule, rx in reversed(self._compiled):
            if (rule.memory is None or rule.memory == memory) and rx.match(key):
                access, found = rule.access, rule
                break
        for rule, rx in reversed(self._compiled_untrusted):
            if (rule.memory is None or rule.memory == memory) and rx.match(key):
                if _STRICTNESS[rule.access] > _STRICTNESS[access]:
                    access, found = rule.access, rule
                break
        return access, found

    def decide(self, *rels: str, is_dir: bool) -> tuple[Access, Rule | None]:
        """The most restrictive access over every name of a path (and its folded forms).
        `is_dir` is required, as in every policy query: a rule such as `secrets/` matches
        only a directory, so the entry's type decides its answer."""
        best: tuple[Access, Rule | None] = (Access.WRITE, None)
        for rel in rels:
            if rel in ("", "."):
                continue
            for variant in {rel.casefold(), _fold(rel)}:
                got = self._access_one(variant, is_dir)
                if _STRICTNESS[got[0]] >= _STRICTNESS[best[0]]:
                    best = got
        if best[1] is None and not any(r not in ("", ".") for r in rels):
            return self.default, None
        return best

    FAST_AFTER = 16
    """Paths judged one by one (each rule's regex) before the rules are compiled per
    directory: a CLI call that reads one file does not pay for compiling them."""

    def access(self, *rels: str, is_dir: bool) -> Access:
        """The most restrictive access over every name of a path (and its folded forms):
        `decide`'s answer, from rules compiled per directory (see `verdicts`). `is_dir`
        (required): whether the entry is a directory, which directory-only rules need."""
        if self._calls < self.FAST_AFTER:
            self._calls += 1
            best: Access | None = None
            for rel in rels:
                if rel not in ("", "."):
                    got = self._access_slow(rel, is_dir)
                    if best is None or _STRICTNESS[got] > _STRICTNESS[best]:
                        best = got
            return self.default if best is None else best
        key = (rels, is_dir, self.memory, self.default)
        known = self._answers.get(key)
        if known is not None:
            return known
        fast = self._verdicts()
        best = None
        for rel in rels:
            if rel in ("", "."):
                continue
            quick = fast.access(rel, is_dir)
            got = self._access_slow(rel, is_dir) if quick is None else quick
            if best is None or _STRICTNESS[got] > _STRICTNESS[best]:
                best = got
        answer = self.default if best is None else best
        if len(self._answers) >= ANSWERS_KEPT:
            self._answers.clear()
        self._answers[key] = answer
        return answer

    def _access_slow(self, rel: str, is_dir: bool) -> Access:
        best = Access.WRITE
        for variant in {rel.casefold(), _fold(rel)}:
            got = self._access_one(variant, is_dir)[0]
            if _STRICTNESS[got] > _STRICTNESS[best]:
                best = got
        return best

    def directory_verdict(self, rel_dir: str) -> Access | None:
        """The access of every file directly in directory `rel_dir` (relative to the
        root, "" for the root) when no rule can tell them apart by name; else None."""
        return self._verdicts().directory_verdict(rel_dir)

    def file_verdicts(self, rel_dir: str) -> FileVerdicts[Access] | None:
        """The access of the files directly in directory `rel_dir` (relative to the
        root, "" for the root) bar those whose names a rule may single out (named by a
        regex); None when that is not known for this directory."""
        return self._verdicts().file_verdicts(rel_dir)

    def _verdicts(self) -> PolicyIndex[Access]:
        key = (self.memory, self.default)
        fast = self._fast.get(key)
        if fast is None:
            memory = self.memory
            fast = self._fast[key] = PolicyIndex(
                [(r.access, _shape(p)) for r, p in self._compiled if r.memory in (None, memory)],
                [
                    (r.access, _shape(p))
                    for r, p in self._compiled_untrusted
                    if r.memory in (None, memory)
                ],
                self.default,
                _STRICTNESS,
            )
        return fast

    def is_visible(self, rel: str, *, is_dir: bool) -> bool:
        return self.access(rel, is_dir=is_dir) != Access.HIDDEN


def _shape(pattern: _Pattern) -> Shape:
    """The pattern's `Shape`, worked out once per compiled pattern (at most
    `PATTERNS_KEPT` kept): it depends on the pattern alone, and the built-in rules'
    patterns are shared by every policy of the process (each policy's verdict index wants
    the shapes of its ~56 rules)."""
    shape = _SHAPES.get(pattern)
    if shape is None:
        if pattern.with_re:
            compile_: Callable[[str], Any] = re.compile
        else:
            # deferred: regex: heavy, loaded only when this runs
            import regex

            compile_ = regex.compile
        shape = shape_of(pattern.source, pattern.match, compile_, pattern.literal)
        if len(_SHAPES) < PATTERNS_KEPT:
            _SHAPES[pattern] = shape
    return shape


_RE_COMPILED: dict[str, Any] = {}
_NOT_LITERAL = re.compile(r"[/*?\\[\]!\s]+")
_WILDCARDS = frozenset("*?[\\")


class _Pattern:
    """One rule's gitignore pattern as a regular expression, compiled on first real use.

    Trusted patterns compile with `re` (shared across policies); untrusted ones with the
    `regex` engine, so a pathological pattern in a repository's .filewright.toml cannot
    hang every path check. An untrusted pattern without wildcards (`*`, `?`, `[`) or
    escapes compiles with `re` too: its regex is literal text and fixed separators, with
    nothing to backtrack on, while `regex` spends time cubic in a long literal's length on
    its first match (a 1,200-name rule: ~7 s). A path lacking the pattern's longest
    literal run cannot match, so most checks never compile most patterns (start-up of a
    CLI call).
    """

    __slots__ = ("_rx", "literal", "source", "trusted", "with_re")

    def __init__(self, pattern: str, source: str, trusted: bool) -> None:
        self.source, self.trusted = source, trusted
        self.with_re = trusted or _WILDCARDS.isdisjoint(pattern)
        self._rx: Any = None
        plain = "\\" not in pattern and "[" not in pattern
        runs = _NOT_LITERAL.split(pattern.strip()) if plain else []
        self.literal = max(runs, key=len, default="")

    def match(self, key: str) -> bool:
        if self.literal and self.literal not in key:
            return False
        if self._rx is None:
            if self.with_re:
                self._rx = _RE_COMPILED.get(self.source)
                if self._rx is None:
                    self._rx = _RE_COMPILED[self.source] = re.compile(self.source)
            else:
                # deferred: regex: heavy, loaded only when this runs
                import regex

                self._rx = regex.compile(self.source)
        return self._rx.match(key) is not None


_PATTERNS: dict[tuple[str, bool], _Pattern | None] = {}
_SHAPES: dict[_Pattern, Shape] = {}  # (see `_shape`)
PATTERNS_KEPT = 4096
"""Compiled patterns shared by every policy of the process (the built-in and toolset
rules recur in each workspace); a pattern past this many is compiled for its policy alone."""


def _compile(rules: Iterable[Rule], *, trusted: bool) -> list[tuple[Rule, _Pattern]]:
    """Each rule with its (case-folded) pattern; rules that match nothing are left out."""
    compiled = []
    for rule in rules:
        key = (rule.pattern, trusted)
        if key in _PATTERNS:
            pattern = _PATTERNS[key]
        else:
            folded = rule.pattern.casefold()
            source = _pattern_regex(folded)
            pattern = None if source is None else _Pattern(folded, source, trusted)
            if len(_PATTERNS) < PATTERNS_KEPT:
                _PATTERNS[key] = pattern
        if pattern is not None:
            compiled.append((rule, pattern))
    return compiled


_BUILT_IN: list[list[tuple[Rule, _Pattern]]] = []


def _built_in(which: int) -> list[tuple[Rule, _Pattern]]:
    """`_compile` of `PROTECTED_RULES` (0) or `ENGINE_RULES` (1), trusted: made once (every
    policy starts and ends with them), as `_compile` of the whole list gives them."""
    if not _BUILT_IN:
        _BUILT_IN.extend(
            (
                _compile(list(PROTECTED_RULES), trusted=True),
                _compile(list(ENGINE_RULES), trusted=True),
            )
        )
    return _BUILT_IN[which]


PATTERNS_FILE = Path(__file__).with_name("patterns.json")
_patterns: dict[str, tuple[str | None, bool | None]] | None = None


def _precomputed_patterns() -> dict[str, tuple[str | None, bool | None]]:
    """pathspec's translations of the built-in patterns, from `patterns.json` (written
    by `scripts/precompute.py`; a pattern missing there is translated at run time)."""
    global _patterns
    if _patterns is None:
        try:
            raw = json.loads(PATTERNS_FILE.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            raw = {}
        _patterns = {
            k: (v[0], v[1])
            for k, v in (raw.items() if isinstance(raw, dict) else ())
            if isinstance(v, list) and len(v) == 2
        }
    return _patterns


def _pattern_regex(pattern: str) -> str | None:
    """The regex source of an including gitignore pattern (None: matches nothing)."""
    found = _precomputed_patterns().get(pattern)
    if found is None:
        # deferred: pathspec: heavy, loaded only when this runs
        from pathspec.patterns.gitignore.basic import GitIgnoreBasicPattern

        found = GitIgnoreBasicPattern.pattern_to_regex(pattern)
    source, include = found
    return source if include and source else None


class PolicyFileError(ValueError):
    """A policy file that cannot be used: its `path`, the `line` (1-based; None when no
    line is to blame) and the `problem`. Policy files fail closed: no workspace opens
    with a file it cannot read, rather than one whose rules are partly ignored."""

    def __init__(self, path: Path, line: int | None, problem: str) -> None:
        self.path, self.line, self.problem = path, line, problem
        where = f"{path}, line {line}" if line is not None else str(path)
        super().__init__(f"policy file {where}: {problem}")


RULE_KEYS = ("pattern", "access", "memory", "reason")
"""The keys a rule may have: any other (a misspelt `acess`) is an error, not a rule that
silently grants `write`."""


def load_rules(path: Path) -> list[Rule]:
    """Rules from a workspace's `.filewright.toml` (or the user's policy file):

    ```toml
    [[rules]]
    pattern = "secrets/"
    access = "hidden"          # write | confirm | read | deny | hidden
    memory = true              # optional: only while memory is on (false: only off)
    ```
    Raises PolicyFileError (a ValueError) naming the file, the line and the problem for
    a file that cannot be read, is not TOML, or holds anything but such rules.
    """
    # deferred: tomllib (and the datetime it parses with) only when a policy file is read
    import tomllib

    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise PolicyFileError(path, None, f"cannot read it ({exc.strerror or exc})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad_line = raw[: exc.start].count(b"\n") + 1
        raise PolicyFileError(path, bad_line, "not UTF-8 text") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        problem = str(exc)
        found = re.search(r" \(at line (\d+), column \d+\)$", problem)
        at: int | None = None
        if found:
            at = int(found.group(1))
            problem = problem[: found.start()] + found.group(0).replace(f"line {at}, ", "")
        raise PolicyFileError(path, at, f"not valid TOML: {problem}") from None
    starts = _rule_lines(text)
    for key in data:
        if key != "rules":
            raise PolicyFileError(
                path, _key_line(text, key), f"unknown key {key!r} (only [[rules]] tables)"
            )
    items = data.get("rules", [])
    if not isinstance(items, list):
        raise PolicyFileError(path, _key_line(text, "rules"), "'rules' must be [[rules]] tables")
    rules: list[Rule] = []
    inline = _key_line(text, "rules") if len(starts) < len(items) else None
    for i, item in enumerate(items):
        line: int | None = starts[i] if i < len(starts) else inline

        def bad(problem: str, line: int | None = line, i: int = i) -> PolicyFileError:
            return PolicyFileError(path, line, f"rules[{i}]: {problem}")

        if not isinstance(item, dict):
            raise bad("must be a table with a 'pattern'")
        unknown = [k for k in item if k not in RULE_KEYS]
        if unknown:
            raise bad(f"unknown key {unknown[0]!r} (a rule has {', '.join(RULE_KEYS)})")
        if not isinstance(item.get("pattern"), str):
            raise bad("needs a string 'pattern'")
        try:
            _pattern_regex(item["pattern"].casefold())
        except ValueError as exc:
            raise bad(f"pattern {item['pattern']!r} is not a gitignore pattern ({exc})") from None
        try:
            access = Access(item.get("access", "write"))
        except ValueError:
            raise bad(f"access must be one of {', '.join(a.value for a in Access)}") from None
        memory = item.get("memory")
        if memory is not None and not isinstance(memory, bool):
            raise bad("memory must be true or false")
        origin = f"{path}:{line}" if line is not None else str(path)
        rules.append(
            Rule(item["pattern"], access, memory, reason="workspace policy", origin=origin)
        )
    return rules


def _rule_lines(text: str) -> list[int]:
    """The 1-based line of each `[[rules]]` table header, in order."""
    return [
        n
        for n, line in enumerate(text.splitlines(), 1)
        if re.match(r"\s*\[\[\s*(?:rules|\"rules\"|'rules')\s*\]\]", line)
    ]


def _key_line(text: str, key: str) -> int | None:
    """The 1-based line where top-level `key` first appears (as a key or a table)."""
    name = re.escape(key)
    pattern = rf"\s*(?:\[+\s*)?(?:{name}|\"{name}\"|'{name}')\s*(?:[=.\]]|$)"
    for n, line in enumerate(text.splitlines(), 1):
        if re.match(pattern, line):
            return n
    return None
