"""Claude Code's permission rules, read from its settings files and matched as it matches them.

A rule is ``Tool`` or ``Tool(specifier)``; for ``Bash`` the specifier is a command
pattern where ``*`` matches any characters (spaces included), a trailing `` *`` (or
``:*``) also matches the bare prefix, and a compound command matches a rule only part by
part. Rules come from the managed settings, the user's ``~/.claude/settings.json``, the
project's ``.claude/settings.json`` and ``.claude/settings.local.json``; deny wins over
ask, ask over allow, whatever file each comes from.

Two ways to match, because the hook only ever needs to be sure in the safe direction:

- ``could_deny_or_ask``: over-approximates. A deny or ask rule is taken to match if it
  matches any spelling of a part (its source text, its words, with leading wrappers and
  assignments removed, the whole command), or if a rule could not be read at all.
- ``surely_allowed``: under-approximates. Every part must match an allow rule both as
  written and as its words; a rule that is not plainly a ``Bash`` rule never allows.

Settings that cannot be read (bad JSON, not an object, unreadable; not a regular file, or
over ``MAX_SETTINGS``) make ``RuleSet.broken``
name the file: the hook then rewrites nothing, so it never allows more than Claude Code.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from fnmatch import fnmatchcase

TYPE_CHECKING = False  # typing is not imported at run time: the hook is timed
if TYPE_CHECKING:
    from typing import Any

    from agentout.agents._shell import Script, Segment


__all__ = ["MAX_SETTINGS", "RuleSet", "load_rules", "settings_files"]

MAX_SETTINGS = 4 << 20  # a settings file is a few kilobytes; past this it is refused

_RULE = re.compile(r"\A\s*([^()\s]+)\s*(?:\((.*)\))?\s*\Z", re.DOTALL)
_PARAM = re.compile(r"\A\s*([A-Za-z_][A-Za-z0-9_]*)\s*:(.*)\Z", re.DOTALL)
# What Claude Code strips before matching: wrappers that run their argument, and a
# leading assignment (any, for deny and ask).
_WRAPPERS = {"timeout", "time", "nice", "nohup", "stdbuf", "command", "builtin", "noglob", "xargs"}
_ASSIGNMENT = re.compile(r"\A[A-Za-z_][A-Za-z0-9_]*=")
_MANAGED_DIRS = (
    "/etc/claude-code",
    "/Library/Application Support/ClaudeCode",
    "C:/Program Files/ClaudeCode",
)
# Allow rules that auto mode drops on entry (arbitrary code execution): a wildcard rule
# for one of these programs does not count as an explicit allow there.
_AUTO_DROPPED = {
    "bash", "sh", "zsh", "fish", "dash", "ksh", "pwsh", "powershell", "python", "python3",
    "node", "deno", "bun", "ruby", "perl", "php", "lua", "npx", "pnpx", "bunx", "uvx",
    "npm", "pnpm", "yarn", "uv", "poetry", "pipx", "pdm", "hatch", "env", "sudo", "eval",
    "exec", "xargs",
}  # fmt: skip


class _Rule:
    __slots__ = ("spec", "tool")

    def __init__(self, tool: str, spec: str | None) -> None:
        self.tool = tool  # may be a glob for deny and ask
        self.spec = spec  # None: the bare tool name

    @property
    def bash(self) -> bool:
        return self.tool == "Bash"


class RuleSet:
    """The Bash-relevant rules of every settings file, and what could not be read."""

    def __init__(self) -> None:
        self.deny: list[_Rule] = []
        self.ask: list[_Rule] = []
        self.allow: list[_Rule] = []
        self.broken: str | None = None  # "FILE:LINE:COL: message", first unreadable file
        self.file_rules = False  # a Read/Edit deny or ask rule exists
        self.unknown = False  # a deny/ask entry that is not a rule we can read
        self.output_chars: Any = None  # bashOutputMaxChars, from the file that wins

    # -- the hook's questions ----------------------------------------------------------

    def could_deny_or_ask(self, script: Script, tool_input: Mapping[str, Any]) -> bool:
        if self.unknown:
            return True
        for rule in (*self.deny, *self.ask):
            if not fnmatchcase("Bash", rule.tool):
                continue
            if rule.spec is None or rule.spec.strip() in ("", "*"):
                return True
            if _param_rule_matches(rule.spec, tool_input):
                return True
            if any(_over(rule.spec, text) for text in _spellings(script)):
                return True
        return False

    def surely_allowed(self, script: Script, *, auto_mode: bool = False) -> bool:
        """Every part of the command matches an allow rule, however Claude Code spells it."""
        return bool(script.segments) and all(
            any(self._allows(rule, segment, auto_mode) for rule in self.allow)
            for segment in script.segments
        )

    def with_allow(self, *specs: str) -> RuleSet:
        """A copy with ``Bash(SPEC)`` allow rules added (``agentout discover`` asks which
        rule would let a command be routed)."""
        copy = RuleSet()
        copy.deny, copy.ask = list(self.deny), list(self.ask)
        copy.allow = [*self.allow, *(_Rule("Bash", spec) for spec in specs)]
        copy.broken, copy.file_rules, copy.unknown = self.broken, self.file_rules, self.unknown
        copy.output_chars = self.output_chars
        return copy

    def names(self, segment: Segment) -> bool:
        """Whether an allow rule names this part's program itself, as written, not through
        a wildcard (``Bash(python3 build.py)``, ``Bash(./gradlew *)``, ``Bash(make:*)``),
        and allows the part."""
        if segment.words is None:
            return False
        for rule in self.allow:
            if not rule.bash or rule.spec is None:
                continue
            first = rule.spec.strip().split(" ", 1)[0]
            first = first[:-2] if first.endswith(":*") else first
            if (
                first == segment.words[0]
                and "*" not in first
                and self._allows(rule, segment, False)
            ):
                return True
        return False

    def _allows(self, rule: _Rule, segment: Segment, auto_mode: bool) -> bool:
        if not rule.bash or segment.words is None:
            return False
        spec = "*" if rule.spec is None else rule.spec
        if auto_mode and "*" in spec:
            first = spec.strip().split(" ", 1)[0].split(":", 1)[0].rsplit("/", 1)[-1]
            if not first or "*" in first or first in _AUTO_DROPPED:
                return False
        joined = " ".join(segment.words)
        return _under(spec, segment.text.strip()) and _under(spec, joined)


# -- matching -----------------------------------------------------------------------------


@functools.lru_cache(maxsize=256)
def _pattern(spec: str, *, boundary: bool) -> re.Pattern[str]:
    """A Bash rule's specifier as a regex over the whole command text."""
    body = spec.strip()
    if body.endswith(":*"):
        body = body[:-2] + (" *" if boundary else "*")
    pieces: list[str] = []
    index = 0
    while index < len(body):
        char = body[index]
        if char == "\\" and index + 1 < len(body) and body[index + 1] == "*":
            pieces.append(re.escape("*"))
            index += 2
        elif char == "*":
            pieces.append(".*")
            index += 1
        else:
            pieces.append(re.escape(char))
            index += 1
    regex = "".join(pieces)
    if boundary and body.endswith(" *") and regex.endswith("\\ .*"):
        regex = regex[: -len("\\ .*")] + "(?:\\ .*)?"
    return re.compile(regex, re.DOTALL)


def _under(spec: str, text: str) -> bool:
    if spec.strip() in ("", "*"):
        return True
    return _pattern(spec, boundary=True).fullmatch(text) is not None


def _over(spec: str, text: str) -> bool:
    """As broad as any reading: a trailing ``:*`` is a plain prefix, and the bare prefix
    of a trailing `` *`` matches too."""
    if _pattern(spec, boundary=False).fullmatch(text):
        return True
    return _pattern(spec, boundary=True).fullmatch(text) is not None


def _stripped(words: Sequence[str]) -> Iterator[tuple[str, ...]]:
    """The words, then with leading assignments and wrappers (and their options) removed."""
    current = tuple(words)
    yield current
    for _ in range(8):
        if current and _ASSIGNMENT.match(current[0]):
            current = current[1:]
        elif current and current[0] in _WRAPPERS:
            current = current[1:]
            while current and (current[0].startswith("-") or current[0][:1].isdigit()):
                current = current[1:]
        else:
            break
        yield current


def _spellings(script: Script) -> Iterator[str]:
    yield script.text.strip()
    yield " ".join(script.text.split())
    for segment in script.segments:
        yield segment.text.strip()
        yield " ".join(segment.text.split())
        words = segment.words or tuple(segment.text.split())
        for form in _stripped(words):
            if form:
                yield " ".join(form)


def _param_rule_matches(spec: str, tool_input: Mapping[str, Any]) -> bool:
    found = _PARAM.match(spec)
    if found is None or found.group(1) == "command" or found.group(1) not in tool_input:
        return False
    value = tool_input[found.group(1)]
    shown = json.dumps(value) if isinstance(value, bool) else str(value)
    return fnmatchcase(shown, found.group(2).strip())


# -- reading settings ----------------------------------------------------------------------


def _parse_rule(entry: Any) -> _Rule | None:
    if not isinstance(entry, str):
        return None
    found = _RULE.match(entry)
    if found is None:
        return None
    return _Rule(found.group(1), found.group(2))


def settings_files(
    *,
    config_dir: str | os.PathLike[str],
    project_dir: str | os.PathLike[str],
    cwd: str | os.PathLike[str] | None = None,
    managed_dirs: Sequence[str | os.PathLike[str]] = _MANAGED_DIRS,
) -> list[tuple[str, str]]:
    """Every settings file whose rules count, as (path, role); role is "managed",
    "allow" (its allow rules count) or "restrict" (only its deny and ask rules count:
    files Claude Code may or may not read, so only the safe half of them is used).
    Plain ``os.path`` strings: the hook runs before every command, pathlib costs more."""
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


def load_rules(files: Iterable[tuple[str | os.PathLike[str], str]]) -> RuleSet:
    rules = RuleSet()
    loaded: list[tuple[dict[str, Any], str]] = []
    for path, role in files:
        data = _read(path, rules)
        if data is not None:
            loaded.append((data, role))
    managed_only = any(
        role == "managed" and data.get("allowManagedPermissionRulesOnly") is True
        for data, role in loaded
    )
    for data, role in sorted(loaded, key=lambda item: item[1] == "managed"):
        if role != "restrict" and "bashOutputMaxChars" in data:
            rules.output_chars = data["bashOutputMaxChars"]  # managed, then the latest, win
    for data, role in loaded:
        permissions = data.get("permissions", {})
        for key in ("deny", "ask", "allow"):
            entries = permissions.get(key, [])
            if key == "allow" and (role == "restrict" or (managed_only and role != "managed")):
                continue
            for entry in entries:
                rule = _parse_rule(entry)
                if rule is None:
                    rules.unknown = rules.unknown or key != "allow"
                    continue
                if key != "allow" and rule.tool in ("Read", "Edit", "Write", "NotebookEdit"):
                    rules.file_rules = True
                getattr(rules, key).append(rule)
    return rules


def _read(path: str | os.PathLike[str], rules: RuleSet) -> dict[str, Any] | None:
    """The settings object, or None if there is no such file; a file that is there but
    cannot be used sets ``rules.broken``."""
    from agentout.agents._files import read_regular

    path = os.fspath(path)
    try:
        text = read_regular(path, MAX_SETTINGS).decode("utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        rules.broken = rules.broken or f"{path}: cannot read ({reason})"
        return None
    if not text.strip():
        return None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        rules.broken = rules.broken or f"{path}:{exc.lineno}:{exc.colno}: {exc.msg} (JSON)"
        return None
    problem = _shape_problem(data)
    if problem is not None:
        rules.broken = rules.broken or f"{path}: {problem}"
        return None
    assert isinstance(data, dict)
    return data


def _shape_problem(data: Any) -> str | None:
    if not isinstance(data, dict):
        return "settings must be a JSON object"
    permissions = data.get("permissions", {})
    if not isinstance(permissions, dict):
        return '"permissions" must be an object'
    for key in ("deny", "ask", "allow"):
        if not isinstance(permissions.get(key, []), list):
            return f'"permissions.{key}" must be a list'
    return None


def config_dir(environ: Mapping[str, str] | None = None) -> str:
    """Claude Code's own directory: ``$CLAUDE_CONFIG_DIR`` or ``~/.claude``."""
    env = os.environ if environ is None else environ
    configured = env.get("CLAUDE_CONFIG_DIR", "").strip()
    return os.path.expanduser(configured or os.path.join("~", ".claude"))
