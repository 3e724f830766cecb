"""The ``tokenizer`` argument of a tool call: built-in names, or a tokenizer.json under the roots.

A caller over MCP is not the user at the terminal, so a name is not a path to any file:
``hf:PATH`` (and a path ending in ``tokenizer.json``) is loaded only when it resolves,
symlinks included, to a regular file under the server's roots. Every refused path gets
the same answer, naming only what the caller wrote, whether or not it exists, so no
answer tells what lies outside the roots. Loaded files live in a small LRU cache keyed
by the file's identity (a changed file is loaded again); built-in names map onto their
encodings first, so no caller-chosen string is ever kept.
"""

from __future__ import annotations

import os
import stat
import threading
from collections import OrderedDict
from pathlib import Path

from agentout.errors import AgentoutError
from agentout.mcp.guard import Roots
from agentout.tokens import (
    MODEL_ALIASES,
    MODEL_PREFIXES,
    HuggingFaceTokenizer,
    Tokenizer,
    UnknownTokenizerError,
    get_tokenizer,
    known_tokenizers,
)

__all__ = ["CACHED_FILES", "CallTokenizers"]

CACHED_FILES = 8  # tokenizer.json files kept loaded at once
_BUILT_IN = frozenset(name.lower() for name in (*known_tokenizers(), *MODEL_ALIASES))
_SHOWN = 200  # characters of the caller's name repeated in a refusal


class CallTokenizers:
    """Resolves a call's ``tokenizer``: the server's own when None."""

    def __init__(self, roots: Roots, default: Tokenizer) -> None:
        self.roots, self.default = roots, default
        self._files: OrderedDict[tuple[str, int, int, int], Tokenizer] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def loaded(self) -> int:
        """How many tokenizer.json files are loaded now (at most ``CACHED_FILES``)."""
        with self._lock:
            return len(self._files)

    def get(self, name: str | None) -> Tokenizer:
        if name is None:
            return self.default
        key = name.strip()
        if key.startswith("hf:") or key.endswith("tokenizer.json"):
            return self._file(name, key.removeprefix("hf:"))
        return get_tokenizer(_built_in(name, key.lower().removeprefix("openai/")))

    def _file(self, name: str, path: str) -> Tokenizer:
        real, info = self._under_roots(name, path)
        identity = (str(real), info.st_dev, info.st_ino, info.st_mtime_ns)
        with self._lock:
            if identity in self._files:
                self._files.move_to_end(identity)
                return self._files[identity]
        loaded = HuggingFaceTokenizer(real)  # a broken file under the roots says why
        with self._lock:
            self._files[identity] = loaded
            while len(self._files) > CACHED_FILES:
                self._files.popitem(last=False)
        return loaded

    def _under_roots(self, name: str, path: str) -> tuple[Path, os.stat_result]:
        try:
            real = self.roots.resolve(path)
            info = real.stat()
            if stat.S_ISREG(info.st_mode):
                return real, info
        except (AgentoutError, OSError, ValueError):
            pass
        raise UnknownTokenizerError(_refused(name))


def _built_in(name: str, key: str) -> str:
    """The built-in name ``key`` stands for (an encoding, chars4, an alias), or refused."""
    if key in _BUILT_IN:
        return key
    prefixes = [prefix for prefix in MODEL_PREFIXES if key.startswith(prefix)]
    if prefixes:
        return MODEL_PREFIXES[max(prefixes, key=len)]
    raise UnknownTokenizerError(
        f"unknown tokenizer {_shown(name)}; known: {', '.join(known_tokenizers())}, a model "
        "name starting with one of those, or hf:PATH to a tokenizer.json under the roots"
    )


def _refused(name: str) -> str:
    return (
        f"tokenizer {_shown(name)}: not a tokenizer.json file under the allowed roots; "
        "give a built-in name or hf:PATH under the roots"
    )


def _shown(name: str) -> str:
    return repr(name if len(name) <= _SHOWN else name[:_SHOWN] + "…")
