"""What ``agentout init`` writes into an agent's own files, and how it takes it back out.

Three kinds of edit, each idempotent and each reversible exactly:

- ``JsonEntry``: one named entry in a JSON object (an MCP server under ``mcpServers``, an
  environment variable under ``env``); other entries are never touched. A ``loose`` entry
  (an MCP server) is agentout's whatever path an earlier init wrote into it.
- ``JsonHook``: one hook in a Claude-Code-style ``hooks.EVENT`` list, recognised by its
  command (``... hook AGENT``); other hooks are never touched.
- ``TextBlock``: at most a few lines between two marker lines in a Markdown or TOML file.
- ``OwnedFile``: a whole file of agentout's (an OpenCode plugin), known by its first line.

Before a file that exists is first changed, a copy is kept in agentout's data directory
(``agentout.agents._installs``: never in the repository, never overwritten). Writes are
atomic, keep the file's mode, and keep a JSON file's indentation. Uninstalling removes
what was added and the containers that were left empty by it; a file left with nothing
in it is removed, and a file left as it was before init is given back its copy's bytes.
A file that is not valid JSON is refused with ``FILE:LINE:COL``, and nothing is written.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentout.agents import _installs
from agentout.errors import InputError

__all__ = ["Edit", "JsonEntry", "JsonHook", "OwnedFile", "TextBlock", "apply", "state", "target"]

_MAX_FILE = 16 << 20  # an agent's settings file; past this it is refused, not read
_CONFIG_FOLDERS = ("rules", "opencode", "plugins")  # made by init, removed when left empty
# Files this process created: a second edit of one (two hooks in one settings file) has
# nothing of the user's to back up.
_CREATED: set[Path] = set()


@dataclass(frozen=True)
class JsonEntry:
    path: Path
    keys: tuple[str, ...]  # the container, e.g. ("mcpServers",)
    name: str
    value: Any
    loose: bool = False  # an MCP server: agentout's whatever agentout path it names

    def describe(self) -> str:
        return f"{self.path}: {'.'.join((*self.keys, self.name))}"

    def ours(self, current: Any) -> bool:
        return bool(current == self.value or (self.loose and _runs_agentout_serve(current)))


@dataclass(frozen=True)
class JsonHook:
    path: Path
    event: str
    matcher: str
    command: str
    marker: str  # a hook whose command ends with this is ours, e.g. " hook claude"
    timeout: int = 10  # in the agent's unit: seconds for Claude Code, milliseconds for Gemini
    name: str | None = None  # Gemini CLI names hooks (``/hooks disable NAME``)

    def describe(self) -> str:
        return f"{self.path}: hooks.{self.event} ({self.matcher}) {self.command}"


@dataclass(frozen=True)
class TextBlock:
    path: Path
    lines: tuple[str, ...]
    comment: tuple[str, str] = ("<!-- ", " -->")
    what: str = ""  # how --show names it; default "N lines of instructions"

    def describe(self) -> str:
        return f"{self.path}: {self.what or f'{len(self.lines)} lines of instructions'}"

    @property
    def begin(self) -> str:
        return f"{self.comment[0]}agentout:begin{self.comment[1]}"

    @property
    def end(self) -> str:
        return f"{self.comment[0]}agentout:end{self.comment[1]}"


@dataclass(frozen=True)
class OwnedFile:
    """A whole file that is agentout's (a plugin): its first line says so (``first``)."""

    path: Path
    text: str
    what: str

    def describe(self) -> str:
        return f"{self.path}: {self.what}"

    @property
    def first(self) -> str:
        return self.text.split("\n", 1)[0]


Edit = JsonEntry | JsonHook | TextBlock | OwnedFile


def target(edit: Edit) -> tuple[str, ...]:
    """What an edit changes, whatever it writes there: two installs whose edits have the
    same target share that entry."""
    where = os.path.abspath(edit.path)
    if isinstance(edit, TextBlock):
        return (where, "block")
    if isinstance(edit, OwnedFile):
        return (where, "file")
    if isinstance(edit, JsonEntry):
        return (where, *edit.keys, edit.name)
    return (where, "hooks", edit.event, edit.marker)


def serves_mcp(edit: Edit) -> bool:
    """Whether the edit is an entry that starts agentout's MCP server."""
    return isinstance(edit, JsonEntry) and _runs_agentout_serve(edit.value)


def _runs_agentout_serve(value: Any) -> bool:
    """An MCP server entry that starts ``agentout serve`` (by any path, or ``-m agentout``)."""
    if not isinstance(value, dict):
        return False
    words: list[str] = []
    for key in ("command", "args"):
        part = value.get(key)
        words.extend([part] if isinstance(part, str) else part if isinstance(part, list) else [])
    names = [os.path.basename(w) for w in words if isinstance(w, str)]
    return "agentout" in names and "serve" in names


# -- reading and writing -----------------------------------------------------------------------


def _read_text(path: Path) -> str | None:
    """The file's text; None if there is none. A file that is not a regular file, or is
    over ``_MAX_FILE`` bytes, is refused (an agent's settings are a few kilobytes)."""
    from agentout.agents._files import read_regular

    try:
        return read_regular(str(path), _MAX_FILE).decode("utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read ({exc}); nothing was changed", str(path)) from None


def _read_json(path: Path) -> dict[str, Any] | None:
    text = _read_text(path)
    if text is None:
        return None
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        message = f"{exc.msg} (JSON); nothing was changed"
        raise InputError(message, str(path), exc.lineno, exc.colno) from None
    if not isinstance(data, dict):
        raise InputError("expected a JSON object; nothing was changed", str(path))
    return data


def _write(path: Path, text: str | None, *, removing: bool = False) -> None:
    """Atomically replace ``path`` (keeping its mode), or remove it when ``text`` is None.
    Installing into a file that existed first keeps a copy of it (``_installs``); removing
    gives the file back its copy's bytes when that is what it is left holding."""
    existed = path.exists()
    if existed and not removing and path not in _CREATED:
        _installs.keep_backup(path)
    if removing and existed and _installs.restore_backup(path, lambda kept: _same(kept, text)):
        return
    if text is None:
        if existed:
            path.unlink()
            _remove_empty_parents(path.parent)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o7777 if existed else 0o644
    handle, temporary = tempfile.mkstemp(prefix=".agentout-", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.chmod(temporary, mode)
        os.replace(temporary, path)
        if not existed:
            _CREATED.add(path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _remove_empty_parents(directory: Path, levels: int = 2) -> None:
    """A configuration directory (``.claude``, ``.cursor/rules``...) left empty goes too:
    init made it, there is nothing of the user's in it."""
    for _ in range(levels):
        if not (
            directory.name.startswith(".") or directory.name in ("rules", "opencode", "plugins")
        ):
            return
        try:
            directory.rmdir()
        except OSError:  # not empty, or not ours to remove
            return
        directory = directory.parent


def _same(before: str, after: str | None) -> bool:
    if after is None:
        return not before.strip()
    try:
        return bool(json.loads(before) == json.loads(after))
    except ValueError:
        return before.strip() == after.strip()


def _indent(text: str | None) -> int | str | None:
    """The indentation a JSON file is written with: that of its first indented line (a
    tab, or a number of spaces), None for a file on one line, 2 for a new file."""
    if text is None or not text.strip():
        return 2
    for line in text.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            lead = line[: len(line) - len(stripped)]
            return "\t" if lead.startswith("\t") else len(lead)
    return None if "\n" not in text.strip() else 2


def _dump(data: dict[str, Any], like: str | None = None) -> str | None:
    """The JSON text of ``data`` in the style of ``like`` (the file's text before)."""
    if not data:
        return None
    indent = _indent(like)
    separators = (",", ": ") if indent is not None else (", ", ": ")
    text = json.dumps(data, indent=indent, ensure_ascii=False, separators=separators)
    ends = like is None or like.endswith("\n") or not like.strip()
    return text + ("\n" if ends else "")


def _container(data: dict[str, Any], keys: Sequence[str], *, create: bool) -> Any:
    node: Any = data
    for key in keys:
        if not isinstance(node, dict):
            return None
        if key not in node and create:
            node[key] = {}
        node = node.get(key)
    return node if isinstance(node, dict) else None


def _prune(data: dict[str, Any], keys: Sequence[str]) -> None:
    """Remove the containers along ``keys`` that are left empty, innermost first."""
    for depth in range(len(keys), 0, -1):
        parent = _container(data, keys[: depth - 1], create=False)
        if isinstance(parent, dict) and parent.get(keys[depth - 1]) in ({}, []):
            del parent[keys[depth - 1]]


def _ours(hook: Any, marker: str) -> bool:
    return isinstance(hook, dict) and str(hook.get("command", "")).endswith(marker)


# -- the three edits ---------------------------------------------------------------------------


def state(edit: Edit) -> str:
    """ "installed", "absent" or "different" (an entry of that name that is not ours)."""
    if isinstance(edit, OwnedFile):
        text = _read_text(edit.path)
        if text is None:
            return "absent"
        return "installed" if text == edit.text else "different"
    if isinstance(edit, TextBlock):
        text = _read_text(edit.path)
        if text is None:
            return "absent"
        block = _block(text, edit)
        if block is None:
            return "absent"
        return "installed" if block == _render_block(edit) else "different"
    data = _read_json(edit.path) or {}
    if isinstance(edit, JsonEntry):
        node = _container(data, edit.keys, create=False)
        if not isinstance(node, dict) or edit.name not in node:
            return "absent"
        return "installed" if node[edit.name] == edit.value else "different"
    groups = _container(data, ("hooks",), create=False) or {}
    found = [
        (group, hook)
        for group in groups.get(edit.event, []) if isinstance(group, dict)
        for hook in group.get("hooks", []) if _ours(hook, edit.marker)
    ]  # fmt: skip
    if not found:
        return "absent"
    group, hook = found[0]
    same = group.get("matcher") == edit.matcher and hook.get("command") == edit.command
    return "installed" if same and len(found) == 1 else "different"


def apply(edit: Edit, *, remove: bool = False) -> bool:
    """Install (or remove) one edit; True if a file changed."""
    if isinstance(edit, TextBlock):
        return _apply_text(edit, remove)
    if isinstance(edit, OwnedFile):
        return _apply_file(edit, remove)
    original = _read_text(edit.path)
    data = _read_json(edit.path)
    if data is None and remove:
        return False
    data = {} if data is None else data
    before = json.dumps(data, sort_keys=True)
    if isinstance(edit, JsonEntry):
        _apply_entry(data, edit, remove)
    else:
        _apply_hook(data, edit, remove)
    if json.dumps(data, sort_keys=True) == before:
        return False
    _write(edit.path, _dump(data, original), removing=remove)
    return True


def _apply_entry(data: dict[str, Any], edit: JsonEntry, remove: bool) -> None:
    if remove:
        node = _container(data, edit.keys, create=False)
        if isinstance(node, dict) and edit.name in node and edit.ours(node[edit.name]):
            del node[edit.name]
            _prune(data, edit.keys)
        return
    node = _container(data, edit.keys, create=True)
    if node is None:
        where = ".".join(edit.keys)
        raise InputError(f"{where} is not an object; nothing was changed", str(edit.path))
    node[edit.name] = edit.value


def _apply_hook(data: dict[str, Any], edit: JsonHook, remove: bool) -> None:
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict) or not isinstance(hooks.setdefault(edit.event, []), list):
        raise InputError(f"hooks.{edit.event} is not a list; nothing was changed", str(edit.path))
    groups = hooks[edit.event]
    for group in list(groups):  # take ours out of every group, then drop emptied groups
        if isinstance(group, dict) and isinstance(group.get("hooks"), list):
            kept = [hook for hook in group["hooks"] if not _ours(hook, edit.marker)]
            if len(kept) != len(group["hooks"]):
                group["hooks"] = kept
                if not kept:
                    groups.remove(group)
    if not remove:
        ours: dict[str, Any] = {"type": "command", "command": edit.command}
        if edit.name is not None:
            ours["name"] = edit.name
        ours["timeout"] = edit.timeout
        groups.append({"matcher": edit.matcher, "hooks": [ours]})
    _prune(data, ("hooks", edit.event))


def _render_block(edit: TextBlock) -> str:
    return "\n".join((edit.begin, *edit.lines, edit.end))


def _block(text: str, edit: TextBlock) -> str | None:
    start = text.find(edit.begin)
    end = text.find(edit.end, start)
    if start < 0 or end < 0:
        return None
    return text[start : end + len(edit.end)]


def _apply_text(edit: TextBlock, remove: bool) -> bool:
    text = _read_text(edit.path)
    current = _block(text, edit) if text is not None else None
    if remove:
        if text is None or current is None:
            return False
        rest = text.replace(current, "", 1)
        rest = rest.replace("\n\n\n", "\n\n").strip("\n")
        _write(edit.path, rest + "\n" if rest.strip() else None, removing=True)
        return True
    wanted = _render_block(edit)
    if current == wanted:
        return False
    if text is None:
        new = wanted + "\n"
    elif current is not None:
        new = text.replace(current, wanted, 1)
    else:
        new = text.rstrip("\n") + ("\n\n" if text.strip() else "") + wanted + "\n"
    _write(edit.path, new)
    return True


def _apply_file(edit: OwnedFile, remove: bool) -> bool:
    """Write the file, or remove it; a file of that name that is not agentout's (its first
    line is not ``edit.first``) is never touched."""
    text = _read_text(edit.path)
    if text is not None and text.split("\n", 1)[0] != edit.first:
        raise InputError("not agentout's file (its first line differs); left alone", str(edit.path))
    if remove:
        if text is None:
            return False
        _write(edit.path, None, removing=True)
        return True
    if text == edit.text:
        return False
    _write(edit.path, edit.text)
    return True
