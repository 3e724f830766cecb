"""Claude Code's settings files, read as it reads them, for the one setting agentout needs:
``bashOutputMaxChars``, how much of a Bash command's output it shows inline.

The files: the managed settings (``/etc/claude-code`` and its macOS and Windows places,
the server-managed cache ``~/.claude/remote-settings.json``), the user's
``~/.claude/settings.json`` (``$CLAUDE_CONFIG_DIR`` respected), the project's
``.claude/settings.json`` and ``.claude/settings.local.json``; managed settings win, then
the latest file. Each is read as a regular file of at most ``MAX_SETTINGS`` bytes; one that
cannot be read counts as absent. agentout never reads permission rules: what a person
allowed, denied or was asked is Claude Code's alone.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence

TYPE_CHECKING = False  # typing is not imported at run time: the hook is timed
if TYPE_CHECKING:
    from typing import Any

__all__ = ["MAX_SETTINGS", "config_dir", "output_chars", "project_output_chars", "settings_files"]

MAX_SETTINGS = 4 << 20  # a settings file is a few kilobytes; past this it is refused
_MANAGED_DIRS = (
    "/etc/claude-code",
    "/Library/Application Support/ClaudeCode",
    "C:/Program Files/ClaudeCode",
)


def settings_files(
    *,
    config_dir: str | os.PathLike[str],
    project_dir: str | os.PathLike[str],
    cwd: str | os.PathLike[str] | None = None,
    managed_dirs: Sequence[str | os.PathLike[str]] = _MANAGED_DIRS,
) -> list[tuple[str, str]]:
    """Every settings file that may count, as (path, role); role is "managed", "allow"
    (read) or "restrict" (files Claude Code may or may not read: never taken to set
    anything). Plain ``os.path`` strings: the hook runs after commands, pathlib costs more."""
    join = os.path.join
    config, project = os.path.abspath(config_dir), os.path.abspath(project_dir)
    files: list[tuple[str, str]] = [(join(config, "remote-settings.json"), "managed")]
    for directory in (os.fspath(d) for d in managed_dirs):
        files.append((join(directory, "managed-settings.json"), "managed"))
        drop_ins = join(directory, "managed-settings.d")
        try:
            names = sorted(n for n in os.listdir(drop_ins) if n.endswith(".json"))
        except OSError:
            names = []
        files.extend((join(drop_ins, n), "managed") for n in names if not n.startswith("."))
    files.append((join(config, "settings.json"), "allow"))
    files.append((join(config, "settings.local.json"), "restrict"))
    files.append((join(project, ".claude", "settings.json"), "allow"))
    files.append((join(project, ".claude", "settings.local.json"), "allow"))
    extra = {os.path.abspath(cwd)} if cwd is not None else set()
    for start in (project, *extra):
        extra.update(_repository_roots(start))
    for directory in sorted(extra - {project}):
        files.append((join(directory, ".claude", "settings.json"), "restrict"))
        files.append((join(directory, ".claude", "settings.local.json"), "restrict"))
    return files


def _repository_roots(start: str) -> set[str]:
    """The git work tree holding ``start`` and, for a linked worktree, its main checkout."""
    from agentout.agents._files import read_regular

    directory = start
    while True:
        marker = os.path.join(directory, ".git")
        if os.path.isdir(marker):
            return {directory}
        if os.path.isfile(marker):
            roots = {directory}
            try:
                pointer = read_regular(marker, 4096).decode("utf-8").strip()
            except (OSError, UnicodeDecodeError):
                return roots
            if pointer.startswith("gitdir:"):
                gitdir = os.path.join(directory, pointer[len("gitdir:") :].strip())
                parent = os.path.dirname(os.path.normpath(gitdir))
                if os.path.basename(parent) == "worktrees":
                    roots.add(os.path.dirname(os.path.dirname(parent)))
            return roots
        above = os.path.dirname(directory)
        if above == directory:
            return set()
        directory = above


def output_chars(files: Iterable[tuple[str | os.PathLike[str], str]]) -> Any:
    """``bashOutputMaxChars`` of the files that count (managed settings win, then the
    latest file; a "restrict" file never sets it), or None."""
    found: Any = None
    loaded = [(data, role) for path, role in files if (data := _read(path)) is not None]
    for data, role in sorted(loaded, key=lambda item: item[1] == "managed"):
        if role != "restrict" and "bashOutputMaxChars" in data:
            found = data["bashOutputMaxChars"]
    return found


def project_output_chars(payload: Mapping[str, Any], environ: Mapping[str, str]) -> Any:
    """``bashOutputMaxChars`` for the session a hook payload comes from."""
    cwd_value = payload.get("cwd")
    cwd = cwd_value if isinstance(cwd_value, str) and cwd_value else os.getcwd()
    project = environ.get("CLAUDE_PROJECT_DIR") or cwd
    files = settings_files(config_dir=config_dir(environ), project_dir=project, cwd=cwd)
    return output_chars(files)


def _read(path: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The settings object, or None (no such file, or one that cannot be used)."""
    from agentout.agents._files import read_regular

    try:
        data = json.loads(read_regular(os.fspath(path), MAX_SETTINGS).decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def config_dir(environ: Mapping[str, str] | None = None) -> str:
    """Claude Code's own directory: ``$CLAUDE_CONFIG_DIR`` or ``~/.claude``."""
    env = os.environ if environ is None else environ
    configured = env.get("CLAUDE_CONFIG_DIR", "").strip()
    return os.path.expanduser(configured or os.path.join("~", ".claude"))
