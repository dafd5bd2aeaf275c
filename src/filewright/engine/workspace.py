"""The workspace: roots, policy, state, confirmation, and the engine toolsets call.

`Workspace` is the public entry point. Each toolset gets an `Engine`: the workspace seen
through that toolset's policy profile. Every engine operation resolves its path in the
sandbox and checks the policy before touching anything.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import stat
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from filewright import state
from filewright.core.budget import OUTPUT_CHARS, REGEX_SECONDS
from filewright.core.record import Frozen
from filewright.core.result import OperationFailed, fail
from filewright.engine.registry import ToolsetLike, create
from filewright.fs import fsio
from filewright.fs.paths import Location, PathRefused, PathTooLong, Sandbox
from filewright.fs.textfile import TextFile, TextFileError, decode
from filewright.policy.rules import CONFIG_FILE, STATE_DIR, Access, Policy, Rule, load_rules
from filewright.policy.visibility import CheckedVisibility, Visibility
from filewright.state.statedir import ReadLedger, check_state_dir, ensure_state_dir, lstat_mode

if TYPE_CHECKING:
    from filewright.engine.watching import Watcher
    from filewright.state.history import History

DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024
# Above this a change with a streamed form is made in one pass with bounded memory, with
# exact matching only (the recovery ladder needs the text in memory); see
# docs/large-files.md for the measurements behind it.
DEFAULT_STREAM_ABOVE_BYTES = 10 * 1024 * 1024
# The one limit on the size of a file that any toolset changes (write, edit, append...).
DEFAULT_MAX_CHANGE_BYTES = 16 * 1024 * 1024 * 1024
DEFAULT_HISTORY_MAX_BYTES = 512 * 1024 * 1024


class ConfirmRequest(Frozen):
    """What a confirmation callback is asked to approve: `path` is the real path of the file
    that will change (symlinks resolved)."""

    _fields = ("path", "operation", "risk", "diff", "toolset", "created", "named")
    __slots__ = _fields
    path: str
    operation: str
    risk: str
    diff: str
    toolset: str
    created: bool
    named: str
    """The path as the agent named it, when that is not `path` (the real path)."""

    def __init__(
        self,
        path: str,
        operation: str,
        risk: str,
        diff: str,
        toolset: str,
        created: bool,
        named: str = "",
    ) -> None:
        self._set(path, operation, risk, diff, toolset, created, named)


Confirm = Callable[[ConfirmRequest], bool]


def approve_all(_request: ConfirmRequest) -> bool:
    """A confirm callback that approves everything (the CLI's --yes)."""
    return True


class Workspace:
    """One or more root directories that the tools may work in.

    `confirm` is called for changes that need approval (a callable returning True to
    approve); None means nobody can be asked, so such changes are refused; True approves
    everything. `session` names a persisted read ledger (so separate processes, like CLI
    calls, share what was read); None keeps it in memory. A persisted ledger lives in the
    user's state directory (`user_state_home()`), keyed by the roots, never in the tree:
    a read writes nothing in a root, and one that cannot record its ledger still
    succeeds. `state_dir` holds history and locks (default: `.filewright/` in the first
    root, created with its `.gitignore` at the first change; hidden from agents); given
    explicitly, it holds the session ledgers too.
    `watch` starts a file watcher that notices external changes to files the agent read.
    `dry_run` makes every change a preview. Files above `stream_above_bytes` are changed
    in streaming mode (exact matching, bounded memory); above `max_change_bytes` no
    change is made; `history_max_bytes` caps what undo history keeps in all.
    `regex_seconds` is the time all regular expressions of one tool call may take together;
    `max_output_chars` what one tool call may return in all (text characters plus bytes of
    images and documents, across every file it reads).
    """

    def __init__(
        self,
        roots: str | os.PathLike[str] | list[str | os.PathLike[str]],
        *,
        locale: str = "en",
        memory: bool = True,
        confirm: Confirm | bool | None = None,
        state_dir: str | os.PathLike[str] | None = None,
        session: str | None = None,
        max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
        rules: list[Rule] | None = None,
        keep_backups: int = 10,
        dry_run: bool = False,
        watch: bool = False,
        stream_above_bytes: int = DEFAULT_STREAM_ABOVE_BYTES,
        max_change_bytes: int = DEFAULT_MAX_CHANGE_BYTES,
        history_max_bytes: int = DEFAULT_HISTORY_MAX_BYTES,
        regex_seconds: float = REGEX_SECONDS,
        max_output_chars: int = OUTPUT_CHARS,
    ) -> None:
        root_list = [roots] if isinstance(roots, str | os.PathLike) else list(roots)
        self.sandbox = Sandbox(root_list)
        if locale not in ("en", "zh"):
            raise ValueError(f"locale must be 'en' or 'zh', not {locale!r}")
        self.locale = locale
        self.memory = memory
        if confirm is True:
            confirm = approve_all
        self.confirm: Confirm | None = confirm or None
        self.state_dir = Path(state_dir) if state_dir else self.sandbox.primary / STATE_DIR
        if state_dir:
            self.state_dir = Path(os.path.realpath(self.state_dir))
        # The default one is in the (real) root: a `.filewright` symlink there was planted.
        check_state_dir(self.state_dir)
        self.max_file_bytes = max_file_bytes
        self.dry_run = dry_run
        self.stream_above_bytes = stream_above_bytes
        self.max_change_bytes = max_change_bytes
        self.regex_seconds = regex_seconds
        self.max_output_chars = max_output_chars
        self._history_limits = (keep_backups, history_max_bytes)
        ledger_path = None
        if session is not None:
            sessions = (
                self.state_dir / "sessions"
                if state_dir
                else user_state_home() / "sessions" / roots_key(self.sandbox.roots)
            )
            ledger_path = sessions / _safe_name(session)
        self.ledger = ReadLedger(ledger_path)
        # filewright's own directories, hidden from agents even when a root holds them.
        private = [self.state_dir]
        if ledger_path is not None and not state_dir:
            private.append(Path(os.path.realpath(ledger_path.parent.parent.parent)))
        self.private_dirs: tuple[Path, ...] = tuple(private)
        # (each as a string and as the prefix of what lies below it, for `is_private`)
        self._private = tuple((str(d), str(d).rstrip(os.sep) + os.sep) for d in private)
        workspace_rules: list[Rule] = []
        for root in self.sandbox.roots:
            config = root / CONFIG_FILE
            if stat.S_ISREG(lstat_mode(config)):  # (a file, not a link: one lstat)
                workspace_rules.extend(load_rules(config))
        # A workspace's own file comes with the repository: it may only tighten.
        self.workspace_rules = workspace_rules
        policy_file = user_policy_path()
        user_rules = load_rules(policy_file) if _is_file(policy_file) else []
        self.user_rules = [*user_rules, *(rules or [])]
        # The trusted policy file may lie inside a root (a root at $HOME): agents must not
        # be able to write it, or they could loosen their own protections for next time.
        self.user_policy_file = Path(os.path.realpath(policy_file))
        self._toolsets: dict[str, ToolsetLike] = {}
        self.watcher: Watcher | None = None
        if watch:
            # deferred: watchdog (and its observer threads): heavy, loaded only to watch
            from filewright.engine.watching import Watcher

            self.watcher = Watcher(self.roots, self.state_dir, self.ledger).start()

    def close(self) -> None:
        """Stop the file watcher, if any."""
        if self.watcher is not None:
            self.watcher.stop()
            self.watcher = None

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def external_changes(self) -> list[Path]:
        """Files the agent read that changed on disk since (needs `watch=True`)."""
        return self.watcher.changed() if self.watcher is not None else []

    @property
    def roots(self) -> list[Path]:
        return list(self.sandbox.roots)

    def engine(self, profile: list[Rule] | tuple[Rule, ...] = (), *, toolset: str = "") -> Engine:
        """The engine for a toolset: profile rules first, then the workspace's own rules."""
        policy = Policy(
            [*profile, *self.user_rules], memory=self.memory, untrusted=self.workspace_rules
        )
        return Engine(self, policy, toolset)

    def toolset(self, name: str, **options: Any) -> ToolsetLike:
        """The toolset called `name` (see `filewright.engine.registry`) on this workspace."""
        key = name if not options else f"{name}:{sorted(options.items())!r}"
        if key not in self._toolsets:
            self._toolsets[key] = create(name, self, **options)
        return self._toolsets[key]

    def is_private(self, real: Path) -> bool:
        """Whether a real path is inside filewright's own state (hidden from agents)."""
        path = str(real)
        for exact, prefix in self._private:  # noqa: SIM110 (a loop: no generator per read)
            if path == exact or path.startswith(prefix):
                return True
        return False

    def ensure_state(self) -> Path:
        return ensure_state_dir(self.state_dir)

    @functools.cached_property
    def history(self) -> History:
        """The change log of the state directory, made at its first use (by a change, an
        undo or a history listing): a read records nothing in it, so a process that only
        reads never loads `state.history` (`filewright.state.History` imports it)."""
        keep, max_bytes = self._history_limits
        return state.History(self.state_dir, keep=keep, max_bytes=max_bytes)


def user_policy_path() -> Path:
    """The user's own policy file (trusted: may loosen the protected set):
    `$FILEWRIGHT_POLICY`, else `policy.toml` in the user's config directory
    (`$XDG_CONFIG_HOME/filewright` or `~/.config/filewright` on Linux, as platformdirs
    says, without importing it: every CLI call looks here; platformdirs elsewhere)."""
    override = os.environ.get("FILEWRIGHT_POLICY")
    if override:
        return Path(override)
    if sys.platform.startswith("linux"):
        base = os.environ.get("XDG_CONFIG_HOME", "").strip() or os.path.expanduser("~/.config")
        return Path(base) / "filewright" / "policy.toml"
    return Path(platform_dir("config")) / "policy.toml"


def user_state_home() -> Path:
    """filewright's directory in the user's state directory (read ledgers of sessions):
    `$FILEWRIGHT_STATE_HOME`, else `$XDG_STATE_HOME/filewright` or
    `~/.local/state/filewright` on Linux, platformdirs' `user_state_dir` elsewhere."""
    override = os.environ.get("FILEWRIGHT_STATE_HOME", "").strip()
    if override:
        return Path(override)
    if sys.platform.startswith("linux"):
        base = os.environ.get("XDG_STATE_HOME", "").strip() or os.path.expanduser("~/.local/state")
        return Path(base) / "filewright"
    return Path(platform_dir("state"))


def platform_dir(kind: str) -> str:
    """filewright's user `kind` directory ("config", "state", "data") as platformdirs
    names it on this system (`user_config_dir("filewright")`, ...)."""
    # deferred: platformdirs: loaded only where no XDG path is at hand (off Linux) or for
    # the companion's home; every CLI call reads the policy path
    import platformdirs

    return str(getattr(platformdirs, f"user_{kind}_dir")("filewright"))


def roots_key(roots: list[Path]) -> str:
    """A short name for a set of real root paths (the ledger directory of those roots)."""

    joined = "\0".join(str(r) for r in roots)
    return hashlib.sha256(joined.encode("utf-8", "surrogatepass")).hexdigest()[:24]


def _is_file(path: Path) -> bool:
    """`path.is_file()`, False when it cannot be looked at (a directory we may not search)."""
    try:
        return path.is_file()
    except OSError:
        return False


def _safe_name(name: str) -> str:
    cleaned = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:80]
    return cleaned.lstrip(".") or "default"


class Engine:
    """The workspace as one toolset sees it. All file access of a toolset goes through here."""

    def __init__(self, workspace: Workspace, policy: Policy, toolset: str = "") -> None:
        self.workspace = workspace
        self.policy = policy
        self.toolset = toolset

    # -- step 1 and 2: resolve and policy ------------------------------------------------

    def access(self, loc: Location) -> Access:
        """The policy's answer for a location (its name and its real target)."""
        if self.workspace.is_private(loc.real):
            return Access.HIDDEN
        names = self.policy_names(loc)
        if len(names) == 2 and names[0] == names[1]:  # named as it is: judged once
            del names[1]
        access = self.policy.access(*names, is_dir=loc.is_dir)
        if access in (Access.WRITE, Access.CONFIRM) and _same(
            loc.real, self.workspace.user_policy_file
        ):
            return Access.READ
        return access

    def policy_names(self, loc: Location) -> list[str]:
        """The names the policy judges a location by: as named, its real target and, with
        nested roots, the path relative to every root that holds it (so naming a file
        through the inner root cannot dodge an outer rule). `access` and
        `filewright.engine.explain` both ask by these."""
        roots = self.workspace.sandbox.roots
        if len(roots) == 1:
            return [loc.lexical_rel, loc.rel]
        nested = [
            loc.real.relative_to(root).as_posix()
            for root in roots
            if root != loc.root and _inside(loc.real, root)
        ]
        return [loc.lexical_rel, loc.rel, *nested]

    def is_visible_real(self, real: Path, *, is_dir: bool) -> bool:
        """For listings and searches: may this real path (its name or its content) appear
        in results? Judged under every root that holds it, like `access`."""
        if self.workspace.is_private(real):
            return False
        rels = self._rels_under_roots(real)
        if not rels:
            return False
        return _shown(self.policy.access(*rels, is_dir=is_dir))

    def _rels_under_roots(self, real: Path) -> list[str]:
        """`real` relative to every root that holds it (nested roots: more than one)."""
        return [
            real.relative_to(root).as_posix() if real != root else "."
            for root in self.workspace.sandbox.roots
            if _inside(real, root)
        ]

    def visibility(self, directory: Location, *, skip_names: Iterable[str] = ()) -> Visibility:
        """A filter for listings and searches under `directory`: gets a path relative to
        the directory (posix) and says whether it may appear in results (name, lines,
        counts). A `deny` or `hidden` file never does, nor anything in filewright's own
        directories or with a component in `skip_names`; with nested roots a path is
        judged under every root that holds it, so the verdict is the same whichever root
        or tool reaches it. Its bulk forms judge each directory once where they can (see
        `filewright.policy.visibility`)."""
        root = directory.root
        real_dir = directory.real
        # Other roots nested inside or around this one: (the part of a relative path
        # leading to that root below the directory, or "" with the directory's path
        # relative to that root when the root lies above).
        others: list[tuple[str, str]] = []
        for other in self.workspace.sandbox.roots:
            if other == root:
                continue
            if _inside(real_dir, other):
                rel = real_dir.relative_to(other).as_posix()
                others.append(("", "" if rel == "." else rel + "/"))
            elif _inside(other, real_dir):
                others.append((other.relative_to(real_dir).as_posix() + "/", ""))
        state = self.workspace.state_dir
        private_inside = [d for d in self.workspace.private_dirs if d != state and _inside(d, root)]
        if not others and not private_inside:
            return Visibility(self.policy, root, directory.rel, state, skip_names)
        base = "" if directory.rel == "." else directory.rel + "/"
        is_private = self.workspace.is_private
        policy = self.policy

        def check(rel: str, is_dir: bool) -> bool:
            rel = rel.strip("/")
            full = base + rel
            if is_private(root / full):
                return False
            names = [full]
            for below, prefix in others:
                if not below:
                    names.append(prefix + rel)
                elif rel.startswith(below):
                    names.append(rel[len(below) :])
            return _shown(policy.access(*names, is_dir=is_dir))

        return CheckedVisibility(check, self.policy, root, directory.rel, state, skip_names)

    def search_scope(
        self, directory: Location, *, skip_names: Iterable[str] = ()
    ) -> dict[str, Any]:
        """The keyword arguments every listing and search under `directory` passes to
        `filewright.search`: the policy's filter and the root whose ignore files apply."""
        return {
            "visible": self.visibility(directory, skip_names=skip_names),
            "ignore_root": directory.root,
        }

    def locate_dir(self, path: str | None) -> Location:
        """Resolve a directory to list or search (default: the first root)."""
        loc, _ = self.locate(
            path if path else str(self.workspace.sandbox.primary), purpose="list", expect="dir"
        )
        if not loc.exists:
            raise fail("not_found", path or ".", message=f"directory not found: {path}")
        return loc

    def locate(
        self, path: str, *, purpose: str = "read", expect: str = "file"
    ) -> tuple[Location, Access]:
        """Resolve `path` and check that `purpose` ("read", "write", "list") is allowed.

        Raises OperationFailed with codes: invalid, outside, symlink_loop, not_found,
        is_directory, not_directory, not_regular, hidden, denied, protected.
        """
        try:
            loc = self.workspace.sandbox.resolve(path, expect=expect)
        except PathRefused as exc:
            # What the disk says about a hidden path (a directory, not a directory, a
            # loop) would tell that it exists: a hidden name answers "not found" first. A
            # path too long for the system is refused by its text alone: that tells nothing
            # (and judging a megabyte of names cost a second).
            if (
                exc.code != "outside"
                and not isinstance(exc, PathTooLong)
                and self._hidden_by_name(path)
            ):
                raise fail("hidden", path, message=f"not found: {path}") from None
            raise fail(exc.code, path, message=exc.detail) from None
        access = self.access(loc)
        if access == Access.HIDDEN:
            raise fail("hidden", path, message=f"not found: {path}")
        if access == Access.DENY:
            raise fail("denied", path, message=f"access denied by policy: {path}")
        if purpose == "write" and access == Access.READ:
            raise fail("protected", path, message=f"protected file: {path}")
        return loc, access

    def _hidden_by_name(self, path: str) -> bool:
        """Whether the policy hides `path` judged by its text under the roots: as a file
        or as a directory (what the disk said about it is what must not be told, so a
        `secrets/` rule makes `read secrets` "not found", not "a directory")."""
        try:
            rels = self.workspace.sandbox.names_under_roots(path)
        except (ValueError, IndexError):
            return False
        rels = [r for r in rels if r not in ("", ".")]
        return bool(rels) and Access.HIDDEN in (
            self.policy.access(*rels, is_dir=False),
            self.policy.access(*rels, is_dir=True),
        )

    # -- step 3: load ---------------------------------------------------------------------

    def read_bytes(self, loc: Location, *, max_bytes: int | None = None) -> fsio.FileState:
        limit = self.workspace.max_file_bytes if max_bytes is None else max_bytes
        with disk_failures(loc.given):
            return fsio.read_bytes(loc, max_bytes=limit)

    def load_text(
        self, loc: Location, *, max_bytes: int | None = None
    ) -> tuple[TextFile, fsio.FileState]:
        """Load and decode a text file; binary or undecodable files are refused."""
        state = self.read_bytes(loc, max_bytes=max_bytes)
        try:
            return decode(state.data, prefer_chinese=self.workspace.locale == "zh"), state
        except TextFileError as exc:
            raise fail(exc.code, loc.given, message=exc.detail) from None

    def record_read(self, loc: Location, digest: str | None) -> None:
        """Remember that the agent has seen this content (for stale-read protection)."""
        self.workspace.ledger.record(loc.real, digest)

    def last_read(self, loc: Location) -> str | None:
        return self.workspace.ledger.get(loc.real)


class disk_failures:
    """Turn what the disk raises while reading `given` into OperationFailed values.

    A class rather than a `contextlib.contextmanager` generator: entered on every read
    (issue 32), where a generator's set-up costs more than the open it guards."""

    __slots__ = ("given",)

    def __init__(self, given: str) -> None:
        self.given = given

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, _tb: object
    ) -> None:
        if exc is None:
            return
        given = self.given
        if isinstance(exc, PathRefused):
            raise fail(exc.code, given, message=exc.detail, **_size(exc)) from None
        if isinstance(exc, FileNotFoundError):
            raise fail("not_found", given, message=f"file not found: {given}") from None
        if isinstance(exc, IsADirectoryError):
            raise fail("is_directory", given, message=f"path is a directory: {given}") from None
        if isinstance(exc, PermissionError):
            raise fail("permission", given, message=f"permission denied: {given}") from None
        if isinstance(exc, OSError):
            raise fail("io_error", given, message=f"{exc.strerror or exc}: {given}") from None


def _shown(access: Access) -> bool:
    """Whether a path with this access may appear in a listing or search result."""
    return access != Access.HIDDEN and access != Access.DENY


def _inside(child: Path, parent: Path) -> bool:
    """Whether `child` is `parent` or below it (both absolute and normalised, as real paths
    are: compared as strings, which a Path's string is made once for)."""
    child_str, parent_str = str(child), str(parent)
    return child_str == parent_str or child_str.startswith(parent_str.rstrip(os.sep) + os.sep)


def _same(a: Path, b: Path) -> bool:
    """`a == b` for absolute normalised paths (a string comparison; Path's `==` compares
    their parsed parts)."""
    return str(a) == str(b)


def _size(exc: PathRefused) -> dict[str, Any]:
    """For a too_large refusal: the file's `size` and the `limit`, in bytes."""

    found = re.search(r"(\d+) bytes \(limit (\d+) bytes\)", exc.detail or "")
    if exc.code != "too_large" or found is None:
        return {}
    return {"size": int(found.group(1)), "limit": int(found.group(2))}


__all__ = ["ConfirmRequest", "Engine", "OperationFailed", "Workspace", "approve_all"]
