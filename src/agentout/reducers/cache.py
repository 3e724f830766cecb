"""What every command would otherwise work out again: small JSON files in the user cache.

Two things live here: the installed entry points (``registry``) and the reducer files
already read and checked (``spec``), by their text. Reading a built-in TOML reducer costs
a TOML parser and the checks, more than the rest of finding the reducer; a file whose
text is known is rebuilt from its checked data. A cache that cannot be read is ignored
and one that cannot be written only makes the next command slower.
"""

from __future__ import annotations

import json
import os
from _thread import allocate_lock, get_ident  # threading's own: its import costs a hook 1 ms
from typing import Any

from agentout.dirs import user_folder

__all__ = ["KnownTexts", "cache_file", "load", "save"]

ENV_CACHE_DIR = "AGENTOUT_CACHE_DIR"


def cache_file(name: str) -> str:
    """The cache file ``name`` (a string: every command reads the cache, and pathlib
    would cost it more than the reading)."""
    configured = os.environ.get(ENV_CACHE_DIR)
    return os.path.join(configured if configured else user_folder("cache"), name)


MAX_BYTES = 4 << 20  # 64 reducer files of at most 16 KiB each, and their data


def load(path: str) -> Any:
    """The JSON in ``path``; None when there is none or it cannot be read (or is not a
    regular file of at most ``MAX_BYTES``)."""
    from agentout.errors import InputError
    from agentout.read.regular import read_regular

    try:
        return json.loads(read_regular(path, MAX_BYTES))
    except (OSError, ValueError, InputError):
        return None


def save(path: str, data: Any) -> None:
    """Written privately and atomically; a cache that cannot be written is only slower."""
    from pathlib import Path

    from agentout.dirs import private_dir
    from agentout.errors import SpillError

    try:
        folder, name = os.path.split(path)
        private_dir(Path(folder), "the cache")
        temp = os.path.join(folder, f".{name}.{os.getpid()}.{get_ident()}")
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(temp, flags, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as stream:
            json.dump(data, stream)
        os.replace(temp, path)
    except (OSError, SpillError, TypeError, ValueError):
        pass


class KnownTexts:
    """Data worked out from a text, kept by the text itself (the newest ``size``); a text
    longer than ``longest`` characters is not kept (every command reads the whole cache,
    and a repository may hold a large file)."""

    def __init__(self, name: str, size: int = 64, longest: int = 16 << 10) -> None:
        self.name, self.size, self.longest = name, size, longest
        self._known: dict[str, Any] | None = None
        self._lock = allocate_lock()  # the MCP server finds reducers on many threads

    def _read(self) -> dict[str, Any]:
        if self._known is None:
            found = load(cache_file(self.name))
            self._known = found if isinstance(found, dict) else {}
        return self._known

    def get(self, text: str) -> Any:
        with self._lock:
            return self._read().get(text)

    def put(self, text: str, data: Any) -> None:
        if len(text) > self.longest:
            return
        with self._lock:
            known = self._read()
            if known.get(text) == data:
                return
            known[text] = data
            while len(known) > self.size:
                del known[next(iter(known))]
            save(cache_file(self.name), known)
