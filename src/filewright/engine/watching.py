"""Notice external changes to files the agent has read (watchdog), for long-running hosts.

The stale check at commit time is what guarantees no one's work is overwritten; the
watcher only lets a server say "modified externally, read it again" before an edit is
even attempted. A change counts as external when the file's content hash no longer
equals the hash the agent last read (its own writes update that hash, so they never
count).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from filewright.fs.textfile import content_hash

if TYPE_CHECKING:
    from filewright.state.statedir import ReadLedger

MAX_HASH_BYTES = 64 * 1024 * 1024


class Watcher:
    """Watches the workspace roots; `changed()` lists read files that changed on disk,
    each change once."""

    def __init__(self, roots: list[Path], state_dir: Path, ledger: ReadLedger) -> None:
        self.roots = roots
        self.state_dir = state_dir
        self.ledger = ledger
        self._suspects: set[str] = set()
        self._reported: dict[str, str | None] = {}
        self._lock = threading.Lock()
        self._observer: Any = None

    def start(self) -> Watcher:
        watcher = self

        class Handler(FileSystemEventHandler):
            def on_any_event(self, event: FileSystemEvent) -> None:
                if event.is_directory:
                    return
                for attr in ("src_path", "dest_path"):
                    path = getattr(event, attr, "")
                    if path:
                        watcher._note(str(path if isinstance(path, str) else path.decode()))

        observer = Observer()
        state = str(self.state_dir)
        for root in self.roots:
            observer.schedule(Handler(), str(root), recursive=True)
        observer.daemon = True
        observer.start()
        self._observer = observer
        self._state_prefix = state
        return self

    def stop(self) -> None:
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout=5)
            self._observer = None

    def _note(self, path: str) -> None:
        if path.startswith(self._state_prefix):
            return
        if self.ledger.get(Path(path)) is None:
            return
        with self._lock:
            self._suspects.add(path)

    def changed(self) -> list[Path]:
        """Read files whose content now differs from what the agent read (or that vanished)."""
        with self._lock:
            suspects, self._suspects = self._suspects, set()
        out: list[Path] = []
        for path in sorted(suspects):
            real = Path(path)
            seen = self.ledger.get(real)
            if seen is None:
                continue
            current = self._current_hash(real)
            if current != seen and self._reported.get(path, "") != current:
                self._reported[path] = current
                out.append(real)
        return out

    @staticmethod
    def _current_hash(real: Path) -> str | None:
        try:
            if real.stat().st_size > MAX_HASH_BYTES:
                return f"size:{real.stat().st_size}:{real.stat().st_mtime_ns}"
            return content_hash(real.read_bytes())
        except OSError:
            return None

    def is_changed(self, real: Path) -> bool:
        """True when `real` was read and has changed on disk since (checked now)."""
        seen = self.ledger.get(real)
        if seen is None:
            return False
        try:
            return content_hash(real.read_bytes()) != seen
        except OSError:
            return True
