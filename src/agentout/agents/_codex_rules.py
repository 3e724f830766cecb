"""Codex's execpolicy rules, read from its ``rules/*.rules`` files and matched as Codex
matches them, for its ``PreToolUse`` hook.

A rules file is Starlark; the only statement read is ``prefix_rule(pattern=[...],
decision="allow"|"prompt"|"forbidden", ...)`` with literal arguments: each element of the
pattern is a word or a list of alternative words, and a command matches when its first
words are the pattern's. ``decision`` defaults to ``allow``; when several rules match,
the strictest wins (forbidden, then prompt, then allow). Files: ``$CODEX_HOME/rules`` (or
``~/.codex/rules``) and the project's ``.codex/rules`` (which Codex reads for trusted
projects only: its allow rules are not counted, its prompt and forbidden rules are).

Anything else in a file (a call with a computed argument, a syntax error, a file that is
not a regular one) makes the rules unreadable, and the hook then rewrites nothing: it
never allows more than Codex would.
"""

from __future__ import annotations

import ast
import os

TYPE_CHECKING = False  # typing is not imported at run time: the hook is timed
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

__all__ = ["CodexRules", "load", "rule_files"]

_MAX_FILE = 1 << 20
_DECISIONS = {"allow": 0, "prompt": 1, "forbidden": 2}


class CodexRules:
    """Prefix rules, and the first file that could not be read (``broken``)."""

    def __init__(self) -> None:
        self.rules: list[tuple[tuple[tuple[str, ...], ...], str]] = []  # (pattern, decision)
        self.broken: str | None = None

    def decision(self, words: Sequence[str]) -> str | None:
        """The strictest decision of the rules that match ``words``; None if none does."""
        matching = [
            decision
            for pattern, decision in self.rules
            if len(words) >= len(pattern)
            and all(word in choices for word, choices in zip(words, pattern, strict=False))
        ]
        return max(matching, key=_DECISIONS.__getitem__) if matching else None

    def names(self, words: Sequence[str]) -> bool:
        """Whether an allow rule names this command's program as written."""
        return any(
            decision == "allow" and pattern and words[:1] and words[0] in pattern[0]
            for pattern, decision in self.rules
        )


def rule_files(environ: Mapping[str, str], cwd: str) -> list[tuple[str, bool]]:
    """(path, its allow rules count) of every rules file."""
    home = environ.get("CODEX_HOME", "").strip() or os.path.join(os.path.expanduser("~"), ".codex")
    found: list[tuple[str, bool]] = []
    for folder, allows in ((os.path.join(home, "rules"), True),
                           (os.path.join(cwd, ".codex", "rules"), False)):  # fmt: skip
        try:
            names = sorted(n for n in os.listdir(folder) if n.endswith(".rules"))
        except OSError:
            continue
        found.extend((os.path.join(folder, name), allows) for name in names)
    return found


def load(files: Sequence[tuple[str, bool]]) -> CodexRules:
    from agentout.agents._files import read_regular

    rules = CodexRules()
    for path, allows in files:
        try:
            tree = ast.parse(read_regular(path, _MAX_FILE).decode("utf-8"), path)
            found = [_rule(node) for node in tree.body]
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError) as exc:
            rules.broken = rules.broken or f"{path}: {exc}"
            continue
        rules.rules.extend(r for r in found if r is not None and (allows or r[1] != "allow"))
    return rules


def _rule(node: ast.stmt) -> tuple[tuple[tuple[str, ...], ...], str] | None:
    """A ``prefix_rule(...)`` statement with literal arguments; ValueError for anything
    else that could decide something."""
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
        return None  # a docstring
    if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
        raise ValueError(f"line {node.lineno}: not a prefix_rule(...) call")
    call = node.value
    if not (isinstance(call.func, ast.Name) and call.func.id == "prefix_rule") or call.args:
        raise ValueError(f"line {node.lineno}: not a prefix_rule(...) call with keywords")
    given: dict[str, Any] = {}
    for keyword in call.keywords:
        if keyword.arg is None:
            raise ValueError(f"line {node.lineno}: **arguments")
        given[keyword.arg] = ast.literal_eval(keyword.value)
    pattern = given.get("pattern")
    decision = given.get("decision", "allow")
    if not isinstance(pattern, list) or not pattern or decision not in _DECISIONS:
        raise ValueError(f"line {node.lineno}: a pattern list and a known decision")
    words: list[tuple[str, ...]] = []
    for element in pattern:
        choices = element if isinstance(element, list) else [element]
        if not choices or not all(isinstance(c, str) for c in choices):
            raise ValueError(f"line {node.lineno}: pattern elements are words")
        words.append(tuple(choices))
    return tuple(words), decision
