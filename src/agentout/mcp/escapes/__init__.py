"""``--allow-commands`` allows a program, never a way to run another one.

``run_command`` first checks the executable against the allowlist (``guard.Allowlist``),
then hands the call's arguments to the rule of that program's family, found by its name
and by the name of the file it really is (``sh`` that is ``dash``, ``awk`` that is
``mawk``; ``python3.12`` is ``python``): ``git`` (``escapes.git``), the interpreters and
awk and sed (``escapes.code``), and the runners, wrappers and tools whose options start
a program (``escapes.tools``). A program no rule knows runs with the arguments given.

Two rules hold for every program: no argument may reach into a ``.git`` directory (by
its text, or as an existing path whose real path does), where git's config and hooks
name the programs a later ``git`` runs; and no argument may name a file or folder that
exists outside the roots (``escapes.files``: a read outside them). Then no program may be
made to write a file the call names, or run a program, through its options
(``escapes.files.TABLE``: ``sort -o``, ``sort --compress-program``...), and a program that
writes by its nature (``cp``, ``tee``, ``tar -x``) writes only under the roots.
docs/mcp.md lists everything refused.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from agentout.mcp.escapes import code, files, tools
from agentout.mcp.escapes._words import Refused
from agentout.mcp.escapes.git import check_git
from agentout.mcp.guard import Allowlist, Roots

__all__ = ["Refused", "allowed_argv", "family"]

_GIT_DIR = re.compile(r"(?:^|[/\\=:'\"\s])\.git(?:[/\\'\"\s]|\Z)", re.I)


def allowed_argv(allow: Allowlist, roots: Roots, command: Sequence[str]) -> list[str]:
    """The argument vector to run for ``command``: its executable replaced by the
    allowed path, and (GNU awk, GNU sed) its own sandbox turned on; refused
    (``Refused``, a ``GuardError``) when not allowed or when it would run another
    program."""
    argv = allow.argv(command)
    path, args = argv[0], list(command[1:])
    real = family(os.path.basename(os.path.realpath(path)))
    try:
        _no_git_dir(args, roots)
        files.reads_outside(args, roots)
        for name in dict.fromkeys((family(command[0]), real)):  # as called first: messages
            args = _checked(name, path, args, roots)
    except Refused as refused:
        why = f"the server's --allow-commands allows {command[0]}, not a way to run another"
        raise Refused(f"{refused}; refused ({why} program)") from None
    return [path, *args]


def family(name: str) -> str:
    """The name a program's rule is kept under: ``python3.12`` -> ``python``,
    ``perl5.36`` -> ``perl``, ``vim.basic`` -> ``vim``."""
    stem = name.split(".", 1)[0] or name
    return stem.rstrip("0123456789") or stem


def _checked(name: str, path: str, args: list[str], roots: Roots) -> list[str]:
    files.check_files(name, args, roots)
    if name == "git":
        check_git(path, args, roots)
    elif name in code.AWKS:
        return code.check_awk(name, path, args, roots)
    elif name in ("sed", "gsed"):
        return code.sandboxed_sed(path, args)
    elif name in code.INTERPRETERS or name in code.SHELLS:
        code.check_interpreter(name, args, roots)
    elif name in tools.RULES:
        tools.RULES[name](name, args, roots)
    return args


def _no_git_dir(args: Sequence[str], roots: Roots) -> None:
    for arg in args:
        if _GIT_DIR.search(arg):
            raise Refused(f"{arg}: reaches into .git (its config and hooks name programs)")
        if arg.startswith("-") or "\x00" in arg:
            continue
        path = os.path.join(roots.first, arg)
        if os.path.lexists(path) and _GIT_DIR.search(os.path.realpath(path)):
            raise Refused(f"{arg}: leads into .git (its config and hooks name programs)")
