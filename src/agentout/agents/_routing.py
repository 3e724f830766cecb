"""Which shell commands a hook routes through ``agentout run``, and how the rewrite reads.

A command is routed when it is a plain script (see ``agentout.agents._shell``), every
part of it is a program agentout can wrap without changing what it does (``_SAFE``:
no shell state, no interactive program, no command Claude Code inspects for paths it
writes or removes), and at least one part has a reducer worth running (``worth_routing``).
A part whose program the user's allow rules name explicitly (``Bash(python3 build.py)``,
``Bash(./gradlew *)``: ``named``) is routed too, reducer or not, unless it is one of the
programs wrapping would change (``_NEVER``: shell state, files Claude Code checks,
interactive programs) or an interpreter with nothing to run: wrapping changes nothing
that runs, and the generic digest keeps what matters of output over the budget.
A single command becomes ``AGENTOUT run -- ARGV...``; a pipeline or a list becomes
``AGENTOUT run --shell 'COMMAND'``, run whole by bash as Claude Code runs it, so its
meaning never changes. ``AGENTOUT`` is the absolute path of the agentout that answered
the hook.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Callable, Sequence

from agentout.agents._shell import Script, Segment

__all__ = [
    "agentout_command",
    "hook_command",
    "reads_files",
    "rewrite",
    "routable",
    "truthy",
    "worth_routing",
]

MAX_COMMAND = 4096  # longer commands are left alone (Claude Code stops analysing at 10,000)

# Command families with a reducer worth running: argv[0] after the prefixes below.
_FAMILIES = {
    "git", "ls", "find", "tree", "grep", "egrep", "rg", "ag", "ack",
    "pytest", "py.test", "tox", "nox", "jest", "vitest", "mocha", "go", "cargo",
    "ruff", "mypy", "pyright", "pylint", "flake8", "black", "isort", "eslint", "tsc",
    "prettier", "biome", "shellcheck", "hadolint", "golangci-lint", "clippy-driver",
    "make", "just", "cmake", "ninja", "gcc", "g++", "cc", "c++", "clang", "clang++", "javac",
    "mvn", "gradle", "npm", "pnpm", "yarn", "pip", "pip3", "uv", "poetry", "dotnet",
    "bazel", "docker", "kubectl", "terraform", "helm",
}  # fmt: skip
_PREFIXES = {"env", "npx", "pnpx", "bunx", "uvx"}
# Programs that can be part of a routed pipeline or list without changing its meaning.
_SAFE = _FAMILIES | {
    "cat", "head", "tail", "wc", "sort", "uniq", "cut", "tr", "echo", "printf", "true",
    "false", "date", "pwd", "which", "diff", "stat", "du", "df", "python", "python3",
    "node", "awk", "jq", "column", "nl", "tac", "sleep", "seq", "basename", "dirname",
}  # fmt: skip
# Never routed, even when an allow rule names them: they change the shell's state, write
# or remove files Claude Code checks the paths of, or want a terminal.
_NEVER = {
    "cd", "pushd", "popd", "export", "unset", "set", "source", ".", "alias", "unalias",
    "exec", "eval", "exit", "ulimit", "umask", "shopt", "trap", "hash", "declare",
    "typeset", "local", "readonly", "wait", "jobs", "fg", "bg", "disown", "builtin",
    "rm", "rmdir", "mv", "cp", "ln", "mkdir", "touch", "chmod", "chown", "chgrp", "dd",
    "tee", "install", "truncate", "shred", "unlink", "sed", "sudo", "su", "doas",
    "vi", "vim", "nvim", "nano", "emacs", "less", "more", "man", "top", "htop", "watch",
    "ssh", "tmux", "screen", "agentout",
}  # fmt: skip
# Interpreters: routed when named only with something to run (alone they are a REPL).
_INTERPRETERS = {
    "python", "python3", "node", "bash", "sh", "zsh", "dash", "ksh", "ruby", "perl",
    "php", "deno", "bun", "lua",
}  # fmt: skip
_GIT_INTERACTIVE = {"difftool", "mergetool", "gui", "citool", "gitk", "rebase", "add", "commit"}
_FIND_ACTIONS = {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0"}
_FIND_ACTIONS |= {"-fprintf", "-fls"}


# Commands whose file operands Claude Code may check against Read and Edit rules (it
# names cat, head, tail and sed; the rest are taken in to be sure).
_FILE_COMMANDS = {
    "cat", "head", "tail", "sed", "awk", "grep", "egrep", "fgrep", "rg", "ag", "ack", "ls",
    "find", "tree", "wc", "sort", "uniq", "cut", "diff", "stat", "file", "strings", "nl",
    "tac", "jq", "du", "less", "more", "xxd", "od", "hexdump", "base64", "md5sum",
    "sha1sum", "sha256sum", "tr", "column",
}  # fmt: skip


def reads_files(script: Script) -> bool:
    """Whether a part of the command is one whose files Read/Edit rules may cover."""
    return any(
        segment.words is None or segment.words[0] in _FILE_COMMANDS for segment in script.segments
    )


def truthy(value: object) -> bool:
    """JavaScript's truth, the widest reading of a flag (``"false"``, ``[]`` and ``{}`` are
    true there): a command that may run in the background is never rewritten."""
    if isinstance(value, float) and value != value:
        return False
    return value not in (None, False, 0, "") or isinstance(value, (list, dict))


def worth_routing(argv: Sequence[str]) -> bool:
    """Whether a reducer handles this command's output (a stand-in for
    ``agentout.reducers.find(argv) is not None``, matched the same way: after ``env``,
    ``VAR=x``, ``python -m``, ``npx`` and ``uv run`` prefixes)."""
    words = list(argv)
    while words:
        head = os.path.basename(words[0])
        if head in _PREFIXES or "=" in head:
            words = words[1:]
            while head == "env" and words and "=" in words[0]:
                words = words[1:]
        elif head.startswith("python") and words[1:2] == ["-m"]:
            words = words[2:]
        elif head == "uv" and words[1:2] == ["run"]:
            words = [w for w in words[2:] if not w.startswith("-")] or words[2:]
        else:
            break
    return bool(words) and os.path.basename(words[0]) in _FAMILIES


def _safe(segment: Segment) -> bool:
    words = segment.words
    if not words:
        return False
    program = words[0]
    if "/" in program or program not in _SAFE:
        return False
    if program in ("python", "python3", "node"):  # only `python -m MODULE`: never a REPL
        return program != "node" and len(words) > 2 and words[1] == "-m" and words[2] != "agentout"
    if program == "find" and _FIND_ACTIONS & set(words):
        return False
    if program == "git":
        rest = list(words[1:])
        if rest and rest[0].startswith("-"):  # -C, -c, --git-dir...: another repository
            return False
        if not rest or rest[0] in _GIT_INTERACTIVE:
            return False
    return not (program == "awk" and "-i" in words)


def _named_part(segment: Segment) -> bool:
    """Whether a part an allow rule names may be wrapped: not one of ``_NEVER``, an
    interpreter only with a script or code to run, and a program ``_safe`` knows only
    as ``_safe`` says (``git rebase``, ``find -exec`` stay refused)."""
    words = segment.words
    if not words:
        return False
    program = os.path.basename(words[0])
    if program in _NEVER:
        return False
    if program in _INTERPRETERS or program.startswith("python"):
        return len(words) > 1 and words[1] not in ("-", "-i")
    return program not in _SAFE or _safe(segment)


def routable(script: Script, named: Callable[[Segment], bool] | None = None) -> bool:
    """Safe to wrap whole, and worth it. ``named(segment)``: whether an allow rule names
    that part's program explicitly (such a part is routed without a reducer)."""
    if not script.plain or len(script.text) > MAX_COMMAND or "\n" in script.operators:
        return False
    by_name = [
        named is not None and _named_part(segment) and named(segment) for segment in script.segments
    ]
    if not all(n or _safe(s) for s, n in zip(script.segments, by_name, strict=True)):
        return False
    return any(by_name) or any(worth_routing(s.words or ()) for s in script.segments)


def agentout_command() -> list[str]:
    """How to start this agentout again, whatever PATH says: its own script if it was
    started as one, else this Python with ``-P -m agentout`` (``process.python_module``)."""
    started = sys.argv[0] if sys.argv else ""
    if os.path.basename(started) == "agentout" and os.path.isabs(started):
        return [started]
    if os.path.basename(started) == "agentout":
        return [os.path.abspath(started)]
    from agentout.process import python_module

    return python_module("agentout")


def hook_command() -> list[str]:
    """How an agent's hook starts this agentout: this Python without its site (``-S``:
    nothing but the standard library is loaded before the answer) on the warm hook
    server's client (``hook_entry.py``), which answers cold when no server runs."""
    if os.name != "posix":  # no Unix socket, no fork: no warm server
        return agentout_command()
    client = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hook_entry.py")
    return [sys.executable, "-S", client]


def rewrite(script: Script, agentout: Sequence[str] | None = None) -> str:
    """The command that runs ``script`` through ``agentout run``."""
    head = shlex.join(agentout_command() if agentout is None else agentout)
    if script.simple:
        words = script.segments[0].words
        assert words is not None
        return f"{head} run -- {shlex.join(words)}"
    return f"{head} run --shell {shlex.quote(script.text.strip())}"
