"""What ``agentout init`` keeps for itself, in agentout's data directory and never in a
repository: the copies of the files it changed, and which installs it made.

- **Backups.** Before init first changes a file that exists, its bytes are copied to
  ``init-backups/<hash of the path>-<name>`` (0600, in a 0700 directory; never
  overwritten). When ``--uninstall`` leaves the file holding what the copy holds, the copy's
  bytes are written back, byte for byte (indentation, key order, trailing newline), and the
  copy is removed. ``agentout init --show`` lists the copies of the files it names.
- **Installs.** ``installs.json`` lists each (agent, scope) init installed: ``"global"``, or
  a project's absolute path. ``--uninstall`` of one leaves in place an entry another
  recorded install still uses (the ``AGENTS.md`` block of both Codex and OpenCode, the one
  Copilot CLI server entry of the global and the project installs).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path

__all__ = [
    "backup_of",
    "folder",
    "installed",
    "keep_backup",
    "record",
    "restore_backup",
]

_BACKUPS = "init-backups"
_LEGACY = ".agentout-backup"  # where agentout kept its copies before: beside the file
_RECORD = "installs.json"
_MAX_RECORD = 1 << 20


def folder() -> Path:
    """agentout's data directory, where the backups and the record are."""
    from agentout.dirs import user_dir

    return user_dir("data")


def backup_of(path: Path) -> Path:
    """Where the copy of ``path`` is (or would be)."""
    where = os.path.abspath(path)
    digest = hashlib.sha256(where.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return folder() / _BACKUPS / f"{digest}-{path.name}"


def _private(directory: Path) -> None:
    from agentout.dirs import private_dir

    private_dir(directory, "agentout's data directory")


def _write_private(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` (0600) atomically."""
    _private(path.parent)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def keep_backup(path: Path) -> None:
    """Copy ``path`` before its first change, unless a copy is kept already."""
    copy = backup_of(path)
    if copy.exists():
        return
    _write_private(copy, path.read_bytes())


def restore_backup(path: Path, same: Callable[[str], bool]) -> bool:
    """Write the copy of ``path`` back and remove it, when ``same(copy_text)`` says the file
    is being left as the copy holds it; True if it was. (A copy an earlier agentout kept
    beside the file, ``FILE.agentout-backup``, is given back and removed the same way.)"""
    legacy = path.with_name(path.name + _LEGACY)
    if legacy.is_file() and not legacy.is_symlink() and _restore(path, legacy, same):
        return True
    return _restore(path, backup_of(path), same)


def _restore(path: Path, copy: Path, same: Callable[[str], bool]) -> bool:
    try:
        data = copy.read_bytes()
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    if not same(text):
        return False
    mode = path.stat().st_mode & 0o7777 if path.exists() else 0o644
    temporary = path.with_name(f".agentout-{os.getpid()}.restore")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    copy.unlink()
    if copy.parent.name == _BACKUPS:
        with contextlib.suppress(OSError):
            copy.parent.rmdir()  # the last copy: nothing of init's is left
    return True


# -- the record of installs ----------------------------------------------------------------------


def installed() -> dict[str, list[str]]:
    """agent -> the scopes it is installed in ("global" or a project's path)."""
    from agentout.agents._files import read_regular

    try:
        data = json.loads(read_regular(str(folder() / _RECORD), _MAX_RECORD))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {
        agent: [s for s in scopes if isinstance(s, str)]
        for agent, scopes in data.items()
        if isinstance(agent, str) and isinstance(scopes, list)
    }


def record(agent: str, scope: str, *, present: bool) -> None:
    """Note that ``agent`` is installed in ``scope`` (``present``), or no longer is."""
    found = installed()
    scopes = [s for s in found.get(agent, []) if s != scope]
    if present:
        scopes.append(scope)
    if scopes:
        found[agent] = sorted(scopes)
    else:
        found.pop(agent, None)
    path = folder() / _RECORD
    if not found:
        path.unlink(missing_ok=True)
        return
    text = json.dumps(found, indent=2, sort_keys=True) + "\n"
    _write_private(path, text.encode("utf-8"))
