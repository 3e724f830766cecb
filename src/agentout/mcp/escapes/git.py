"""What an allowed ``git`` may not be asked: anything that makes it run a program the
call names, or write the files (its config, hooks) that would make a later git do so.

Refused, before the subcommand: ``-c`` and ``--config-env`` (``alias.x=!cmd``,
``core.sshCommand``, ``core.pager``, ``core.fsmonitor``... given for this call),
``--exec-path=DIR`` (git's own programs taken from DIR), ``--git-dir`` and
``--work-tree`` (a repository chosen by the call, whose config and hooks git runs), and
``-C DIR`` outside the roots or into a repository other than the project's (a bare one
kept as files, a ``.git`` file pointing elsewhere). The subcommand must be one of git's
commands (``git --list-cmds=main,others``), never an alias: an alias can be ``!any
program``, and git runs its own command when a name is both. Then, in any
subcommand: ``--upload-pack``, ``--receive-pack``, ``--exec``, ``--output``; and ``clone
-u/-c/--config/--template``, ``init --template``, ``rebase -x``, ``difftool
-x/--extcmd``, ``grep -O``, ``archive -o``, ``format-patch -o``, ``checkout-index
--prefix``, ``bisect run``, ``submodule foreach``, ``filter-branch``, ``instaweb``,
``send-email``'s commands, ``daemon --access-hook``, and ``config`` other than reading.
"""

from __future__ import annotations

import functools
import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

from agentout.mcp.escapes._words import Refused, Word, inside, long_named, scan, short_named
from agentout.mcp.guard import Roots

__all__ = ["check_git"]

# global options that take the next word as their value when given without "="
_GLOBAL_VALUES = {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix",
                  "--config-env", "--attr-source", "--shallow-file"}  # fmt: skip
_GLOBAL_REFUSED = {
    "-c": "sets configuration for this call (an alias or core.* setting can run any program)",
    "--config-env": "sets configuration for this call (an alias or core.* setting can run "
    "any program)",
    "--git-dir": "points git at a repository the call chooses, whose config and hooks run",
    "--work-tree": "points git at a work tree the call chooses (hooks, config)",
}
# long options refused in every subcommand (any abbreviation of them too)
_ANY_REFUSED = ("upload-pack", "receive-pack", "exec", "output")
_REFUSED_LONG = {
    "clone": ("config", "template", "separate-git-dir"),
    "init": ("template", "separate-git-dir"),
    "difftool": ("extcmd", "tool"),
    "mergetool": ("tool",),
    "fast-export": ("export-marks",),
    "fast-import": ("export-marks",),
    "grep": ("open-files-in-pager",),
    "format-patch": ("output-directory",),
    "checkout-index": ("prefix",),
    "send-email": ("sendmail-cmd", "smtp-server", "to-cmd", "cc-cmd", "header-cmd"),
    "daemon": ("access-hook",),
}
_REFUSED_SHORT = {"clone": "uc", "rebase": "x", "difftool": "xt", "mergetool": "t", "grep": "O",
                  "archive": "o", "format-patch": "o", "help": "wim"}  # fmt: skip
# short options that take a value, so that a value is not read as options
_VALUE_SHORT = {"clone": "bojuc", "rebase": "sXCx", "difftool": "tx", "mergetool": "t",
                "grep": "efABCmO", "archive": "o", "format-patch": "ovS", "commit": "mcCFt",
                "log": "n", "tag": "mFu", "config": "f"}  # fmt: skip
_REFUSED_OPERAND = {"bisect": ("run",), "submodule": ("foreach",),
                    "worktree": ("add", "move", "repair"), "bundle": ("create",)}  # fmt: skip
# the commands whose operands (after the first) are folders they write: under the roots
_WRITES_OPERANDS = {"clone": 1, "init": 0}
_REFUSED_WHOLE = {
    "filter-branch": "runs the shell commands it is given",
    "instaweb": "starts a web server and a browser it is given",
}
_HELP_RUNS = ("-w", "-i", "-m", "--web", "--info", "--man")
_CONFIG_WRITES = ("add", "replace-all", "unset", "unset-all", "rename-section",
                  "remove-section", "edit")  # fmt: skip
_CONFIG_READS = ("get", "get-all", "get-regexp", "get-urlmatch", "get-color",
                 "get-colorbool", "list")  # fmt: skip
_CONFIG_LONG_VALUES = ("file", "blob", "type", "default", "comment", "value")


def check_git(path: str, args: Sequence[str], roots: Roots) -> None:
    """Refuse ``git ARGS`` when it could run a program the call names."""
    at = _global_options(args, roots)
    if at == len(args):
        return  # git alone, --version, --exec-path: prints
    command, rest = args[at], args[at + 1 :]
    if command not in _commands(path):
        raise Refused(f"{command}: not a git command (an alias can run any program)")
    why = _REFUSED_WHOLE.get(command)
    if why:
        raise Refused(f"git {command}: {why}")
    words = scan(rest, values=_VALUE_SHORT.get(command, ""), long_values=_CONFIG_LONG_VALUES)
    refused = long_named(words, (*_ANY_REFUSED, *_REFUSED_LONG.get(command, ())))
    refused = refused or short_named(words, _REFUSED_SHORT.get(command, ""))
    if refused is not None:
        raise Refused(f"git {command} {refused.name}: names a program or a file for git to run")
    shows = command == "help" and any(not w.name or w.name in _HELP_RUNS for w in words)
    if shows or "--help" in rest:  # a page: git runs man, info or a browser to show it
        raise Refused(f"git {command} --help: runs man, info or a browser")
    operands = [w.value or "" for w in words if not w.name]
    if operands and operands[0] in _REFUSED_OPERAND.get(command, ()):
        why = "writes where the call says" if command in ("worktree", "bundle") else "runs"
        raise Refused(f"git {command} {operands[0]}: {why} the command it is given")
    for folder in operands[_WRITES_OPERANDS.get(command, len(operands)) :]:
        inside(roots, folder)  # a repository it creates: under the roots only
    if command == "config":
        _config_reads_only(words)


def _global_options(args: Sequence[str], roots: Roots) -> int:
    """Where the subcommand is; refuses the global options that choose what git runs,
    and ``-C`` leading outside the roots."""
    here = str(roots.first)
    i = 0
    while i < len(args) and args[i].startswith("-"):
        word = args[i]
        name, eq, value = word.partition("=")
        if name.startswith("-c") and name != "-c" and not name.startswith("--"):
            name = "-c"  # -ckey=value: refused like -c
        if name in _GLOBAL_REFUSED:
            raise Refused(f"git {name}: {_GLOBAL_REFUSED[name]}")
        if name == "--exec-path" and eq:
            raise Refused("git --exec-path=DIR: runs git's own programs from DIR")
        if name in _GLOBAL_VALUES and not eq:
            i += 1
            value = args[i] if i < len(args) else ""
        if name == "-C" and value:
            here = inside(roots, value, here)
            _not_in_a_bare_repository(here, roots)
        i += 1
    return i


def _not_in_a_bare_repository(here: str, roots: Roots) -> None:
    """No repository but the project's own: a bare repository kept as files under the
    roots (``evil.git/HEAD``, ``config``...), or a ``.git`` file pointing elsewhere than
    the project's ``.git`` (a submodule's or a worktree's points inside it), is one git
    would use from there, running what its config names."""
    folder = Path(here)
    while roots.holds(folder) and folder not in roots.dirs:
        if (
            (folder / "HEAD").is_file()
            and (folder / "objects").is_dir()
            and (folder / "refs").is_dir()
        ):
            raise Refused(f"git -C {here}: inside a bare repository (its config names programs)")
        if (folder / ".git").is_file() and not _points_inside_the_project(folder, roots):
            raise Refused(f"git -C {here}: a .git file there points to another repository")
        folder = folder.parent


def _points_inside_the_project(folder: Path, roots: Roots) -> bool:
    """Whether ``folder/.git`` (``gitdir: PATH``) leads into a root's own ``.git``."""
    try:
        with open(folder / ".git", encoding="utf-8", errors="replace") as stream:
            first = stream.read(4096).split("\n", 1)[0]
    except OSError:
        return False
    if not first.startswith("gitdir:"):
        return False
    target = Path(os.path.realpath(folder / first.removeprefix("gitdir:").strip()))
    return any(target.is_relative_to(root / ".git") for root in roots.dirs)


def _config_reads_only(words: list[Word]) -> None:
    """``git config`` may read settings, never write one (a setting can name a program
    a later git runs: core.fsmonitor, core.pager, alias.x=!cmd)."""
    writes = long_named(words, _CONFIG_WRITES) or short_named(words, "e")
    operands = [w.value for w in words if not w.name]
    reads = long_named(words, _CONFIG_READS) or short_named(words, "l")
    subcommand = operands[0] if operands else ""
    if subcommand in ("get", "list"):
        return
    if subcommand in ("set", "unset", "rename-section", "remove-section", "edit") or writes:
        raise Refused("git config: writes a setting (a setting can name a program git runs)")
    if not reads and len(operands) > 1:
        raise Refused("git config NAME VALUE: writes a setting (a setting can name a program)")


@functools.lru_cache(maxsize=8)
def _commands(path: str) -> frozenset[str]:
    """git's own commands and the ``git-*`` programs on PATH, never an alias."""
    try:
        done = subprocess.run(
            [path, "--list-cmds=main,others"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired):
        return frozenset()
    return frozenset(done.stdout.split()) if done.returncode == 0 else frozenset()
