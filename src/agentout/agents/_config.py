"""The user's ``config.toml`` as the hooks read it: checked whole, and a bad one said once
per session where the person sees it.

``load_checked`` reads the file (``agentout.read.config``) and checks every table the
hooks read, every key and value of it (``[shell]``: ``shell_settings``;
``[mcp]``: ``agentout.mcp.budgets.check``), so the hooks, ``agentout init --show`` and
``problem`` agree on whether it is good: a bad one raises ``InputError`` naming the file
and the key. A hook that meets one changes nothing (the tool's result goes to the model
as it was), and says so: one line on stderr every call, and once per session a message
for the person (``first_time``, keyed by the session id the agent gives).

``first_time`` keeps one empty file per (session, message) in a private folder of
agentout's cache (``hook-told/``, beside the sessions' ``hook-sessions/``), created with
``O_EXCL``, so of two hooks at once exactly one tells. Files older than ``KEEP_DAYS`` go
when a new one is made. A folder that is not private (another user's, a symlink), or
cannot be made, tells every time: loud rather than silent.
"""

from __future__ import annotations

import contextlib
import os
import time

from agentout.agents._digest import sha256

TYPE_CHECKING = False  # typing is not imported at run time: the hook is timed
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

__all__ = ["KEEP_DAYS", "TABLES", "first_time", "load_checked", "problem", "shell_settings"]

TABLES = ("shell", "mcp")  # the tables agentout reads from config.toml
KEEP_DAYS = 7
_FOLDER = "hook-told"
_SHELL_KEYS = {"enabled", "max_tokens", "tokenizer", "dedupe"}


def load_checked(path: str | None = None) -> tuple[dict[str, Any], str]:
    """(the config's tables, the file's path), every table checked; ``InputError`` naming
    the file and the key of the first bad value."""
    from agentout.errors import InputError
    from agentout.mcp.budgets import check
    from agentout.read.config import config_path, load

    source = config_path() if path is None else path
    config = load(source)
    unknown = sorted(set(config) - set(TABLES))
    if unknown:
        known = ", ".join(f"[{name}]" for name in TABLES)
        raise InputError(f"{unknown[0]}: unknown table (known: {known})", source)
    shell_settings(config, source)
    check(config, source=source)
    return config, source


def shell_settings(config: Mapping[str, Any], source: str) -> dict[str, Any]:
    """The config's ``[shell]`` table, checked: ``enabled`` (true), ``max_tokens`` (none:
    the agent's inline limit), ``tokenizer``, ``dedupe`` (true)."""
    from agentout.errors import InputError

    table = config.get("shell", {})
    if not isinstance(table, dict):
        raise InputError("[shell] must be a table", source)
    unknown = sorted(set(table) - _SHELL_KEYS)
    if unknown:
        known = ", ".join(sorted(_SHELL_KEYS))
        raise InputError(f"[shell] {unknown[0]}: unknown key (known: {known})", source)
    for key in ("enabled", "dedupe"):
        if not isinstance(table.get(key, True), bool):
            raise InputError(f"[shell] {key} must be true or false", source)
    tokens = table.get("max_tokens")
    if tokens is not None and (
        isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 1
    ):
        raise InputError("[shell] max_tokens must be a whole number of tokens >= 1", source)
    tokenizer = table.get("tokenizer")
    if tokenizer is not None:
        tokenizer = _tokenizer_named(tokenizer, "[shell] tokenizer", source)
    return {
        "enabled": table.get("enabled", True),
        "max_tokens": tokens,
        "tokenizer": tokenizer,
        "dedupe": table.get("dedupe", True),
    }


def _tokenizer_named(value: Any, where: str, source: str) -> str:
    """The tokenizer a config value names (``o200k`` is ``o200k_base``), checked now, as
    the hook reads the config: a name no count could use is the config's fault, said at
    its key, never a failure of the first count that needs it."""
    from agentout.errors import InputError

    if not isinstance(value, str):
        raise InputError(f"{where} must be a name", source)
    from agentout.tokens import UnknownTokenizerError, tokenizer_name

    try:
        return tokenizer_name(value)
    except UnknownTokenizerError as exc:
        raise InputError(f"{where}: {exc}", source) from None


def problem(path: str | None = None) -> str | None:
    """What is wrong with the config file (``FILE:LINE: message``), or None when it is
    good or absent."""
    from agentout.errors import InputError

    try:
        load_checked(path)
    except InputError as exc:
        return str(exc)
    return None


def _folder() -> str | None:
    """The private folder the marks live in, made if need be; None if it cannot be had."""
    from pathlib import Path

    from agentout.dirs import private_dir, user_folder
    from agentout.errors import SpillError

    folder = os.path.join(user_folder("cache"), _FOLDER)
    try:
        private_dir(Path(folder), "the hook's session marks")
    except (SpillError, OSError):
        return None
    return folder


def first_time(session: str, message: str, folder: str | None = None) -> bool:
    """Whether this session is told ``message`` now: True the first time (and whenever no
    mark can be kept), False after."""
    folder = _folder() if folder is None else folder
    if folder is None:
        return True
    key = sha256(f"{session}\0{message}".encode("utf-8", "surrogatepass")).hexdigest()[:32]
    path = os.path.join(folder, key)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        os.close(os.open(path, flags, 0o600))
    except FileExistsError:
        return False
    except OSError:
        return True
    _prune(folder)
    return True


def _prune(folder: str) -> None:
    old = time.time() - KEEP_DAYS * 86400
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        for entry in entries:
            with contextlib.suppress(OSError):
                if entry.is_file(follow_symlinks=False) and entry.stat().st_mtime < old:
                    os.unlink(entry.path)
