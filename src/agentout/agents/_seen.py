"""What one agent session has already been shown, for the hook's "same output as before".

A session (Claude Code's ``session_id``) has a small JSON file in agentout's cache,
``hook-sessions/<hash of the id>.json``: for each output the hook saw, its SHA-256, the
call that printed it (tool_use_id and the command, secrets hidden, cut to a line) and its
reference in the store when it has one. When the same bytes come back, the hook names the
earlier call instead of handing the model the output again. A compaction takes the
earlier outputs out of the model's context, so ``forget`` removes the session's file
(``PreCompact``, ``SessionStart`` with ``source: compact``).

Bounded: at most ``MAX_ENTRIES`` outputs a session (the oldest go first), files of
sessions untouched for ``KEEP_DAYS`` days are removed when another is written. Written
atomically (0600, in a 0700 directory); two hooks writing at once lose at most one
entry, never the file. Nothing here ever raises: a cache that cannot be read or written
is an empty one.
"""

from __future__ import annotations

import contextlib
import json
import os
import time

from agentout.agents._digest import sha256

TYPE_CHECKING = False  # typing is not imported at run time: the hook is timed
if TYPE_CHECKING:
    from typing import Any

__all__ = ["KEEP_DAYS", "MAX_ENTRIES", "Seen", "forget"]

MAX_ENTRIES = 200
KEEP_DAYS = 7
_MAX_FILE = 1 << 20
_FOLDER = "hook-sessions"


def _folder() -> str:
    from agentout.dirs import user_folder

    return os.path.join(user_folder("cache"), _FOLDER)


def _file(folder: str, session: str) -> str:
    name = sha256(session.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return os.path.join(folder, f"{name}.json")


class Seen:
    """One session's outputs: ``get(digest)`` the earlier call, ``add`` this one."""

    def __init__(self, session: str, folder: str | None = None) -> None:
        self.folder = folder if folder is not None else _folder()
        self.path = _file(self.folder, session)
        self.entries: dict[str, dict[str, Any]] = self._load()

    def _load(self) -> dict[str, dict[str, Any]]:
        from agentout.agents._files import read_regular

        try:
            data = json.loads(read_regular(self.path, _MAX_FILE))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict):
            return {}
        return {k: v for k, v in data.items() if isinstance(v, dict)}

    def get(self, digest: str) -> dict[str, Any] | None:
        return self.entries.get(digest)

    def add(self, digest: str, entry: dict[str, Any]) -> None:
        """Remember one output (the newest last) and write the file."""
        self.entries.pop(digest, None)
        self.entries[digest] = entry
        while len(self.entries) > MAX_ENTRIES:
            del self.entries[next(iter(self.entries))]
        with contextlib.suppress(OSError, ValueError):
            self._write()

    def _write(self) -> None:
        from pathlib import Path

        from agentout.dirs import private_dir
        from agentout.errors import SpillError

        try:
            private_dir(Path(self.folder), "the hook's session cache")
        except SpillError as exc:
            raise OSError(str(exc)) from None
        if not os.path.exists(self.path):  # a new session: the old ones are looked at
            _prune(self.folder)
        temporary = f"{self.path}.{os.getpid()}.tmp"
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(self.entries, out, ensure_ascii=False, separators=(",", ":"))
            os.replace(temporary, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise


def _prune(folder: str) -> None:
    """Remove the files of sessions untouched for ``KEEP_DAYS`` days."""
    horizon = time.time() - KEEP_DAYS * 86400
    with contextlib.suppress(OSError), os.scandir(folder) as found:
        for entry in found:
            with contextlib.suppress(OSError):
                if entry.is_file(follow_symlinks=False) and entry.stat().st_mtime < horizon:
                    os.unlink(entry.path)


def forget(session: str, folder: str | None = None) -> bool:
    """The session's outputs left the model's context (a compaction): forget them.
    True if there was anything to forget."""
    path = _file(folder if folder is not None else _folder(), session)
    try:
        os.unlink(path)
    except OSError:
        return False
    return True
