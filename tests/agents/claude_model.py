"""A model of how Claude Code decides a Bash tool call, written from its documentation
(code.claude.com/docs/en/permissions, /permission-modes, /hooks), with a second bash
parser (bashlex), independent of the hook's own code.

``outcome(mode, rules, command)`` is what happens with no hook: "allow", "ask", "deny"
or "classifier" (auto mode's model decides). ``outcome_with_hook`` applies a
``PreToolUse`` answer the way the hooks reference says: deny and ask rules are evaluated
again on the input the hook returns, "allow" skips the prompt (except for the actions
no mode auto-approves), and an answer with no decision goes through the normal flow
with the updated input.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from typing import Any

import bashlex

READ_ONLY = {"ls", "cat", "echo", "pwd", "head", "tail", "grep", "find", "wc", "which", "diff"}
READ_ONLY |= {"stat", "du", "cd"}
GIT_READ_ONLY = {"status", "log", "diff", "show"}
ACCEPT_EDITS = {"mkdir", "touch", "rm", "rmdir", "mv", "cp", "sed"}
WRAPPERS = {"timeout", "time", "nice", "nohup", "stdbuf", "command", "builtin", "noglob"}
INTERPRETERS = {"python", "python3", "node", "bash", "sh", "zsh", "ruby", "perl", "deno", "bun"}
PACKAGE_RUNNERS = ("npm run", "pnpm run", "yarn run", "bun run", "uv run", "npx", "yarn")
CRITICAL = {"/", "~", "/usr", "/etc", "/home", "$HOME", "~/"}


@functools.cache
def parts(command: str) -> tuple[str, ...] | None:
    """Each simple command's text (those inside $() too); None if bashlex cannot parse."""
    try:
        trees = bashlex.parse(command)
    except Exception:
        return None
    found: list[str] = []

    class Visitor(bashlex.ast.nodevisitor):  # type: ignore[misc]
        def visitcommand(self, node: Any, parts: Any) -> None:
            words = [p for p in parts if p.kind == "word"]
            if words:
                start, end = words[0].pos[0], words[-1].pos[1]
                found.append(command[start:end])

    for tree in trees:
        Visitor().visit(tree)
    return tuple(found)


@functools.cache
def _regex(spec: str) -> re.Pattern[str]:
    spec = spec.strip()
    if spec.endswith(":*"):
        spec = spec[:-2] + " *"
    out = ""
    for index, char in enumerate(spec):
        if char == "*":
            out += "(?: .*)?" if index == len(spec) - 1 and spec.endswith(" *") else ".*"
        elif char == " " and spec.endswith(" *") and index == len(spec) - 2:
            continue  # folded into the optional group above
        else:
            out += re.escape(char)
    return re.compile(out, re.DOTALL)


def _parse(rule: str) -> tuple[str, str | None]:
    found = re.fullmatch(r"\s*([^()\s]+)\s*(?:\((.*)\))?\s*", rule, re.DOTALL)
    assert found is not None, rule
    return found.group(1), found.group(2)


def _strip(text: str, *, any_assignment: bool) -> list[str]:
    words = text.split()
    forms = [" ".join(words)]
    while words:
        if any_assignment and re.match(r"[A-Za-z_]\w*=", words[0]):
            words = words[1:]
        elif words[0] in WRAPPERS:
            words = words[1:]
            while words and (words[0].startswith("-") or words[0][:1].isdigit()):
                words = words[1:]
        else:
            break
        forms.append(" ".join(words))
    return forms


def _matches(rule: str, part: str, *, kind: str, tool_input: Mapping[str, Any]) -> bool:
    tool, spec = _parse(rule)
    if kind == "allow" and tool != "Bash":
        return False
    if not re.fullmatch(re.escape(tool).replace(r"\*", ".*"), "Bash"):
        return False
    if spec is None or spec.strip() in ("", "*"):
        return True
    param = re.fullmatch(r"\s*(\w+)\s*:(.*)", spec, re.DOTALL)
    if kind != "allow" and param and param.group(1) in tool_input and param.group(1) != "command":
        value = tool_input[param.group(1)]
        shown = ("true" if value else "false") if isinstance(value, bool) else str(value)
        return (
            re.fullmatch(re.escape(param.group(2).strip()).replace(r"\*", ".*"), shown) is not None
        )
    forms = _strip(part, any_assignment=kind != "allow") if kind != "allow" else [part.strip()]
    return any(_regex(spec).fullmatch(form) for form in forms)


def _file_rule_applies(rules: Mapping[str, Sequence[str]], kind: str, part: str) -> bool:
    """Read/Edit deny and ask rules also cover the files of `cat`, `head`, `grep`..."""
    words = part.split()
    if not words or words[0] not in {"cat", "head", "tail", "sed", "grep", "ls", "find", "rg"}:
        return False
    for rule in rules.get(kind, []):
        tool, spec = _parse(rule)
        if tool in ("Read", "Edit") and spec is not None:
            target = spec.lstrip("./")
            if any(w.lstrip("./") == target for w in words[1:]):
                return True
    return False


def _read_only(part: str) -> bool:
    words = part.split()
    if not words:
        return False
    if words[0] == "git":
        return len(words) > 1 and words[1] in GIT_READ_ONLY
    if words[0] == "find" and {"-exec", "-delete", "-execdir", "-ok"} & set(words):
        return False
    return words[0] in READ_ONLY and not any(c in part for c in "*?>")


def _critical_rm(part: str) -> bool:
    words = part.split()
    return bool(words) and words[0] in ("rm", "rmdir") and bool(CRITICAL & set(words[1:]))


def _dropped_in_auto(rule: str) -> bool:
    _tool, spec = _parse(rule)
    if spec is None or spec.strip() in ("", "*"):
        return True
    first = spec.strip().split(" ")[0].split(":")[0]
    if "*" in spec and (first.rstrip("*") in INTERPRETERS or first in INTERPRETERS):
        return True
    return "*" in spec and spec.strip().startswith(PACKAGE_RUNNERS)


def outcome(
    mode: str | None,
    rules: Mapping[str, Sequence[str]],
    command: str,
    tool_input: Mapping[str, Any] | None = None,
) -> str:
    mode = mode or "default"
    tool_input = tool_input or {"command": command}
    found = parts(command)
    unparsed = found is None
    found = (command,) if found is None else found

    def hit(kind: str) -> bool:
        return any(
            _matches(rule, part, kind=kind, tool_input=tool_input)
            or _file_rule_applies(rules, kind, part)
            for rule in rules.get(kind, [])
            for part in found
        ) or any(_file_rule_applies(rules, kind, part) for part in found)

    if hit("deny"):
        return "deny"
    if hit("ask"):
        return "deny" if mode == "dontAsk" else "ask"
    critical = any(_critical_rm(part) for part in found)
    if mode == "bypassPermissions":
        return "ask" if critical else "allow"
    allow = [r for r in rules.get("allow", []) if not (mode == "auto" and _dropped_in_auto(r))]
    if not unparsed and all(
        any(_matches(rule, part, kind="allow", tool_input=tool_input) for rule in allow)
        for part in found
    ):
        return "ask" if critical else "allow"
    if not unparsed and all(_read_only(part) for part in found):
        return "allow"
    edits = all(part.split()[0] in ACCEPT_EDITS for part in found if part.split())
    if mode == "acceptEdits" and not unparsed and not critical and edits:
        return "allow"
    if mode == "auto":
        return "classifier"
    if mode == "dontAsk":
        return "deny"
    return "ask"  # default, acceptEdits, plan


def outcome_with_hook(
    mode: str | None,
    rules: Mapping[str, Sequence[str]],
    tool_input: Mapping[str, Any],
    answer: Mapping[str, Any] | None,
) -> str:
    if answer is None:
        return outcome(mode, rules, tool_input["command"], tool_input)
    specific = answer["hookSpecificOutput"]
    updated = specific.get("updatedInput", tool_input)
    command = updated["command"]
    decision = specific.get("permissionDecision")
    found = parts(command) or (command,)
    if any(
        _matches(r, p, kind="deny", tool_input=updated)
        for r in rules.get("deny", [])
        for p in found
    ):
        return "deny"
    if decision == "deny":
        return "deny"
    if any(
        _matches(r, p, kind="ask", tool_input=updated) for r in rules.get("ask", []) for p in found
    ):
        return "deny" if mode == "dontAsk" else "ask"
    if decision == "ask":
        return "ask"
    if decision == "allow":
        return "ask" if any(_critical_rm(p) for p in found) else "allow"
    return outcome(mode, rules, command, updated)
