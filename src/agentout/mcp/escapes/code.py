"""Interpreters, and the text tools that hold a small one (awk, sed): code given in the
call is refused, a script must lie under the roots.

An allowed interpreter runs the project's scripts (``python build.py``, ``sh
scripts/check.sh``, ``node tools/gen.js``), never code written into the call (``python
-c``, ``sh -c``, ``node -e``, ``perl -e``...) nor a script outside the roots. awk may not
call ``system()`` nor open a pipe (``print | "cmd"``, ``"cmd" | getline``); GNU awk and
GNU sed run with their own ``--sandbox`` (no ``system()``, no pipes, no ``e``, ``r`` or
``w`` command), which the call cannot turn off.
"""

from __future__ import annotations

import functools
import re
import subprocess
from collections.abc import Sequence

from agentout.mcp.escapes._words import (
    Refused,
    Word,
    abbreviates,
    inside,
    long_named,
    scan,
    short_named,
)
from agentout.mcp.guard import Roots

__all__ = ["AWKS", "INTERPRETERS", "SHELLS", "check_awk", "check_interpreter", "sandboxed_sed"]

SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "csh", "tcsh",
                    "fish"})  # fmt: skip
AWKS = frozenset({"awk", "gawk", "mawk", "nawk", "original-awk"})
_SCRIPT_BYTES = 1 << 20  # an awk program file longer than this is refused unread
_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*|[0-9][0-9.eE]*")

# per interpreter: short options that take a value; options that are code; whether a
# word after the options is a script the interpreter reads
_Spec = tuple[str, str, tuple[str, ...]]
INTERPRETERS: dict[str, _Spec] = {
    # name: (short options with a value, short options that are code, long ones that are)
    "python": ("cmWXQ", "c", ()),
    "pypy": ("cmWXQ", "c", ()),
    "node": ("erpC", "ep", ("eval", "print")),
    "nodejs": ("erpC", "ep", ("eval", "print")),
    "perl": ("I", "eE", ()),  # its clusters are read by _perl_code
    "ruby": ("eCEFIKrTx", "e", ()),
    "php": ("cdrBREFfzt", "rBRE", ("run", "process-begin", "process-code", "process-end")),
    "lua": ("el", "e", ()),
    "luajit": ("elj", "e", ()),
    "Rscript": ("e", "e", ()),
    "osascript": ("el", "e", ()),
}
_SHELL_FILES = ("rcfile", "init-file")
# long options that take the next word (bash's, node's), so that it is not the script
_LONG_VALUES = (*_SHELL_FILES, "require", "import", "loader", "experimental-loader",
                "env-file", "input-type", "title", "conditions")  # fmt: skip
# what node loads before the script (an env file may set NODE_OPTIONS)
_PRELOADS = ("require", "import", "loader", "experimental-loader", "env-file")
_PHP_SETTINGS = ("auto_prepend_file", "auto_append_file", "extension", "zend_extension",
                 "sendmail_path")  # fmt: skip


def check_shell(name: str, args: Sequence[str], roots: Roots) -> None:
    """A shell's options, ``-`` or ``+`` (``+O extglob``), up to its script: ``-c`` in
    any cluster (fish's ``-C`` too) is code given in the call; an rc file and the
    script lie under the roots."""
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--":
            i += 1
            break
        if word in ("-o", "+o", "-O", "+O"):
            i += 2
            continue
        if word.startswith("--"):
            option, eq, value = word[2:].partition("=")
            if abbreviates(option, ("command", "init-command")):
                raise Refused(f"{name} --{option}: runs code given in the call; run a script")
            if abbreviates(option, _SHELL_FILES):
                if not eq:
                    i += 1
                    value = args[i] if i < len(args) else ""
                inside(roots, value)  # bash --rcfile FILE: a script it runs
        elif len(word) > 1 and word[0] in "-+":
            if word[0] == "-" and ("c" in word or (name == "fish" and "C" in word)):
                raise Refused(f"{name} -c: runs code given in the call; run a script")
        else:
            break
        i += 1
    if i < len(args) and args[i] != "-":  # "-": stdin, which is the null device here
        inside(roots, args[i])


def check_interpreter(name: str, args: Sequence[str], roots: Roots) -> None:
    """Refuse code given in the call, and a script outside the roots. Read in order, up
    to the script or module: what follows is the script's own arguments."""
    if name in SHELLS:
        check_shell(name, args, roots)
        return
    values, code, long_code = INTERPRETERS[name]
    if name == "perl":
        _perl_code(args)
    for word in scan(args, values=values, long_values=_LONG_VALUES, permute=False):
        if long_named([word], long_code) or short_named([word], code):
            raise Refused(f"{name} {word.name}: runs code given in the call; run a script")
        if name in ("python", "pypy") and word.name == "-m":
            return  # a module: python's own, or the project's
        if name == "php" and word.name == "-d" and (word.value or "").startswith(_PHP_SETTINGS):
            raise Refused(f"php -d {word.value}: loads code or a program")
        if name in ("node", "nodejs") and (word.name == "-r" or long_named([word], _PRELOADS)):
            _module(word, roots)
        if name == "php" and word.name == "-f":
            inside(roots, word.value or "")  # php -f FILE: the script
        if not word.name:
            if word.value != "-":  # "-": stdin, which is the null device here
                inside(roots, word.value or "")
            return


def _module(word: Word, roots: Roots) -> None:
    """What node preloads: a package by name, or a file under the roots; never a URL
    (``--import data:text/javascript,...`` is code given in the call)."""
    value = word.value or ""
    if re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", value):
        raise Refused(f"node {word.name} {value.split(':')[0]}:...: loads code from a URL")
    if value.startswith((".", "/")) or word.name == "--env-file":
        inside(roots, value)


def _perl_code(args: Sequence[str]) -> None:
    """perl's clusters (``-lne``, ``-Mstrict``): ``-e``/``-E`` is code, and so is a
    ``-M``/``-m`` module text with more than a name and import list in it."""
    for word in args:
        if word == "--" or not word.startswith("-") or word == "-":
            return
        letters = word[1:]
        i = 0
        while i < len(letters):
            letter = letters[i]
            if letter in "eE":
                raise Refused(f"perl -{letter}: runs code given in the call; run a script")
            if letter in "mM":
                if re.search(r"[^\w:=,.\- ]", letters[i + 1 :]):
                    raise Refused(f"perl -{letter}: the module text holds code")
                break
            if letter in "iIxdDF":
                break  # the rest of the cluster is the option's value
            i += 1
            if letter in "0lC":
                while i < len(letters) and letters[i].isalnum() and letters[i] not in "eE":
                    i += 1


def check_awk(name: str, path: str, args: Sequence[str], roots: Roots) -> list[str]:
    """The awk call to run: GNU awk under ``--sandbox``; another awk only when its
    program calls no ``system()`` and opens no pipe."""
    if name == "gawk" or _says(path, ("--version",), "GNU Awk"):
        return ["--sandbox", *args]
    words = scan(args, values="fvFW", long_values=("file", "assign", "field-separator"),
                 permute=False)  # fmt: skip
    files = [w.value or "" for w in words if w.name in ("-f", "--file")]
    if any(w.name == "-W" and (w.value or "").startswith("e") for w in words):
        raise Refused(f"{name} -W exec: give the program as text or with -f")
    if files:
        programs = [_read(inside(roots, file)) for file in files]
    else:
        operands = [w.value or "" for w in words if not w.name]
        programs = operands[:1]
    for program in programs:
        why = awk_escape(program)
        if why:
            raise Refused(f"{name}: the program {why}")
    return list(args)


# after one of these (or a keyword such as print), "/" opens a regular expression, not a
# division
_REGEX_AFTER = frozenset("(,~!{};&|=?:<>+-*%^\n")
_REGEX_KEYWORDS = frozenset({"print", "printf", "return", "in", "case"})


def awk_escape(program: str) -> str | None:
    """How an awk program runs another program (``system()``, a pipe), or None. Strings,
    regular expressions and comments are skipped; ``||`` is a logical or."""
    i, previous = 0, "("  # the last character that decides what "/" is
    while i < len(program):
        char = program[i]
        if char == '"' or (char == "/" and previous in _REGEX_AFTER):
            i = (_closing(program, i) if char == '"' else _regex_end(program, i)) + 1
            previous = "a"
            continue
        if char == "#":
            end = program.find("\n", i)
            i = len(program) if end < 0 else end
            continue
        if char == "|":
            if not program.startswith("||", i):
                return "opens a pipe (|)"
            i += 2
            previous = "|"
            continue
        name = _NAME.match(program, i)
        if name is not None:
            if name.group() == "system":
                return "calls system()"
            previous = "(" if name.group() in _REGEX_KEYWORDS else "a"
            i = name.end()
            continue
        if not char.isspace() or char == "\n":
            previous = char
        i += 1
    return None


def _closing(text: str, start: int) -> int:
    """Where the string opened at ``start`` closes (backslash escapes honoured)."""
    i = start + 1
    while i < len(text) and text[i] != '"':
        i += 2 if text[i] == "\\" else 1
    return i


def _regex_end(text: str, start: int) -> int:
    """Where the regular expression opened at ``start`` closes (``[...]`` may hold ``/``)."""
    i = start + 1
    while i < len(text) and text[i] != "/":
        if text[i] == "\\":
            i += 1
        elif text[i] == "[":
            i = text.find("]", i + 2 if text.startswith("[]", i) else i + 1)
            if i < 0:
                return len(text)
        i += 1
    return i


def sandboxed_sed(path: str, args: Sequence[str]) -> list[str]:
    """GNU sed under ``--sandbox`` (no ``e``, ``r`` or ``w``); another sed as given (BSD
    sed has no ``e`` command)."""
    return ["--sandbox", *args] if _says(path, ("--version",), "GNU sed") else list(args)


@functools.lru_cache(maxsize=16)
def _says(path: str, args: tuple[str, ...], mark: str) -> bool:
    """Whether ``PATH ARGS`` prints ``mark`` (which implementation a program is)."""
    try:
        done = subprocess.run(
            [path, *args], capture_output=True, text=True, timeout=10, check=False,
            stdin=subprocess.DEVNULL,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return False
    return mark in done.stdout


def _read(path: str) -> str:
    """An awk program file, to check it; refused when larger than ``_SCRIPT_BYTES``."""
    try:
        with open(path, "rb") as stream:
            text = stream.read(_SCRIPT_BYTES + 1)
    except OSError:
        return ""  # awk says why itself
    if len(text) > _SCRIPT_BYTES:
        raise Refused(f"{path}: an awk program over {_SCRIPT_BYTES >> 20} MiB is not read")
    return text.decode("utf-8", "replace")
