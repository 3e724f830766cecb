"""Programs other than git and the interpreters whose options run another program.

Each function refuses the options (and operands) of one family that make it start a
program the call names, or read a file that would: ``find -exec``, ``tar
--to-command``, ``rsync -e``, ``make --eval``, ``npm exec``, ``ssh -o ProxyCommand``...
A wrapper (``env CMD``, ``xargs``, ``timeout``, ``nohup``, ``sudo``...) exists to run
another program: it is refused any command.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from agentout.mcp.escapes._words import (
    Refused,
    abbreviates,
    inside,
    long_named,
    scan,
    short_named,
)
from agentout.mcp.guard import Roots

__all__ = ["RULES", "WRAPPERS"]

# programs that run the command they are given: refused any argument but --help/--version
WRAPPERS = frozenset({
    "xargs", "nohup", "timeout", "nice", "ionice", "chrt", "taskset", "setsid", "stdbuf",
    "strace", "ltrace", "sudo", "doas", "su", "runuser", "chroot", "unshare", "nsenter",
    "flock", "watch", "parallel", "time", "script", "busybox", "valgrind", "gdb", "lldb",
    "catchsegv", "firejail", "bwrap", "xvfb-run", "dbus-run-session", "systemd-run",
    "entr", "npx", "pnpx", "bunx", "uvx", "pipx", "sg", "newgrp", "expect", "at", "batch",
    "pkexec", "chronic", "trickle", "proxychains", "proxychains4", "torsocks", "faketime",
    "fakeroot", "eatmydata", "tmux", "screen", "ssh-agent", "dbus-launch", "tsp", "sem",
})  # fmt: skip


def wrapper(name: str, args: Sequence[str], roots: Roots) -> None:
    if any(arg not in ("--help", "--version") for arg in args):
        raise Refused(f"{name}: runs the command it is given")


def find(name: str, args: Sequence[str], roots: Roots) -> None:
    for arg in args:
        if arg in ("-exec", "-execdir", "-ok", "-okdir"):
            raise Refused(f"{name} {arg}: runs the command it is given")
        if arg in ("-fprint", "-fprint0", "-fprintf", "-fls", "-delete"):
            raise Refused(f"{name} {arg}: writes a file the call names (or deletes one)")


_TAR_VALUES = "bCfFgHIKLNTVX"
_TAR_LONG_VALUES = ("file", "directory", "files-from", "exclude-from", "exclude", "label",
                    "to-command", "use-compress-program", "rsh-command", "rmt-command",
                    "info-script", "new-volume-script", "checkpoint-action", "transform",
                    "owner", "group", "mode", "mtime", "newer", "format", "index-file",
                    "blocking-factor", "record-size", "tape-length", "volno-file",
                    "strip-components", "listed-incremental", "suffix")  # fmt: skip
_TAR_PLACES = ("file", "directory", "listed-incremental", "index-file")
_TAR_REFUSED = ("to-command", "use-compress-program", "rsh-command", "rmt-command",
                "info-script", "new-volume-script")  # fmt: skip


def tar(name: str, args: Sequence[str], roots: Roots) -> None:
    given = list(args)
    if given and not given[0].startswith("-"):  # the old form: "tar xzf file"
        given[0] = "-" + given[0]
    words = scan(given, values=_TAR_VALUES, long_values=_TAR_LONG_VALUES)
    found = long_named(words, _TAR_REFUSED) or short_named(words, "IF")
    if found is not None:
        raise Refused(f"{name} {found.name}: runs the program it is given")
    for word in words:
        if word.name.startswith("--che") and "exec" in (word.value or ""):
            raise Refused(f"{name} --checkpoint-action=exec: runs the command it is given")
    local = long_named(words, ("force-local",)) is not None
    for word in words:
        archive = word.value or ""
        named = word.name == "-f" or abbreviates(word.name.removeprefix("--"), ("file",))
        if named and not local and ":" in archive.split("/", 1)[0]:
            raise Refused(f"{name} -f {archive}: reaches another host through rsh")
        places = word.name in ("-f", "-C", "-g") or long_named([word], _TAR_PLACES) is not None
        if places and word.name.startswith("-") and archive != "-":
            inside(roots, archive)  # where it writes (an archive, what it extracts)


def rsync(name: str, args: Sequence[str], roots: Roots) -> None:
    words = scan(args, values="eBfTM@", long_values=("rsh", "rsync-path", "filter"))
    found = long_named(words, ("rsh", "rsync-path")) or short_named(words, "e")
    if found is not None:
        raise Refused(f"{name} {found.name}: runs the program it is given")


_MAKE_SPECIAL = {"SHELL", ".SHELLFLAGS", "MAKE", "MAKEFLAGS", "MFLAGS", "MAKEFILES",
                 "MAKESHELL", "MAKEOVERRIDES", ".RECIPEPREFIX"}  # fmt: skip
_MAKE_ASSIGNMENT = re.compile(r"([^=:!?+\s]+)\s*(::?=|:::=|\+=|\?=|!=|=)(.*)\Z", re.S)
_SHELL_CHARS = re.compile(r"[;&|$`()<>\n\\'\"*?\[\]{}~#!]")


def make(name: str, args: Sequence[str], roots: Roots) -> None:
    words = scan(args, values="CfIoWlj", long_values=("directory", "file", "makefile",
                                                        "include-dir", "eval", "old-file",
                                                        "what-if", "new-file", "assume-old",
                                                        "assume-new"))  # fmt: skip
    found = long_named(words, ("eval",)) or short_named(words, "E")
    if found is not None:
        raise Refused(f"{name} {found.name}: runs the makefile text it is given")
    here = str(roots.first)
    for word in words:
        if word.name in ("-C", "--directory") or word.name.startswith("--dir"):
            here = inside(roots, word.value or ".", here)
        elif word.name in ("-f", "-I") or word.name.startswith(("--file", "--makef", "--inc")):
            inside(roots, word.value or ".", here)
        elif not word.name:
            _make_assignment(name, word.value or "", roots)


def _make_assignment(name: str, word: str, roots: Roots) -> None:
    """A variable set on make's command line goes into the recipes' shell lines as it
    is: only names and plain words, and no program outside the roots (``CC=/tmp/x``)."""
    assigned = _MAKE_ASSIGNMENT.match(word)
    if assigned is None:
        return  # a target
    variable, operator, value = assigned.groups()
    if variable in _MAKE_SPECIAL or operator == "!=":
        raise Refused(f"{name} {variable}{operator}: chooses what make runs")
    if _SHELL_CHARS.search(value):
        raise Refused(f"{name} {variable}=: a value with shell characters runs in recipes")
    for part in value.split():
        if "/" in part and not part.startswith("-") and _program(part, roots):
            inside(roots, part)


def _program(path: str, roots: Roots) -> bool:
    """Whether ``path`` (from the first root) names a file that can be run."""
    found = os.path.join(roots.first, path)
    return os.path.isfile(found) and os.access(found, os.X_OK)


# npm, pnpm, yarn and bun: the subcommands that run a package or an editor, and the
# settings that name a program
_PACKAGE_RUNS = {"exec", "x", "dlx", "explore", "create", "init", "innit", "edit", "repl"}
_PACKAGE_SETTINGS = ("script-shell", "shell", "node-options", "editor", "browser",
                     "viewer", "git", "call", "userconfig", "eval", "print")  # fmt: skip
_PACKAGE_PLACES = ("prefix", "dir", "cwd")


def packages(name: str, args: Sequence[str], roots: Roots) -> None:
    words = scan(args, values="ceprC", long_values=(*_PACKAGE_SETTINGS, *_PACKAGE_PLACES))
    found = long_named(words, _PACKAGE_SETTINGS)
    if found is None and name == "bun":
        found = short_named(words, "ep")
    if found is not None:
        raise Refused(f"{name} {found.name}: names a program or code for {name} to run")
    for word in words:
        if word.name == "-C" or long_named([word], _PACKAGE_PLACES):
            inside(roots, word.value or ".")  # the package whose scripts run
        if word.name.startswith("--config.") and re.search(r"shell|node-options|git", word.name):
            raise Refused(f"{name} {word.name}: names a program for {name} to run")
    operands = [w.value or "" for w in words if not w.name]
    if not operands:
        return
    if operands[0] in _PACKAGE_RUNS:
        raise Refused(f"{name} {operands[0]}: runs a package, a command or an editor")
    if operands[0] in ("config", "c", "set", "delete") and (
        operands[0] in ("set", "delete") or operands[1:2] in (["set"], ["edit"], ["delete"])
    ):
        raise Refused(f"{name} {' '.join(operands[:2])}: writes a setting that can name a program")


def env(name: str, args: Sequence[str], roots: Roots) -> None:
    words = scan(args, values="uCS", long_values=("unset", "chdir", "split-string"),
                 permute=False)  # fmt: skip
    found = long_named(words, ("split-string",)) or short_named(words, "S")
    command = next((w.value for w in words if not w.name and "=" not in (w.value or "")), None)
    if found is not None or command is not None:
        raise Refused(f"{name}: runs the command it is given")


_SSH_OPTIONS = {"proxycommand", "localcommand", "permitlocalcommand", "knownhostscommand",
                "remotecommand", "match", "include"}  # fmt: skip


def ssh(name: str, args: Sequence[str], roots: Roots) -> None:
    words = scan(args, values="BbcDEeFIiJLlmOoPpQRSsWw", permute=name != "ssh")
    for word in words:
        letter = word.name[1:]
        if letter == "o":
            key = re.split(r"[\s=]", (word.value or "").strip(), maxsplit=1)[0].lower()
            if key in _SSH_OPTIONS:
                raise Refused(f"{name} -o {key}: runs a local command")
        elif letter == "F":
            raise Refused(f"{name} -F: a config file can name a local command")
        elif (letter == "S" and name != "ssh") or (letter == "D" and name == "sftp"):
            raise Refused(f"{name} -{letter}: runs the program it is given")


def editors(name: str, args: Sequence[str], roots: Roots) -> None:
    """vim and emacs run editor commands given on their command line."""
    refused = ("-c", "--cmd", "-S", "-u", "--eval", "-l", "--load", "-f", "--funcall",
               "--script", "-x", "--batch")  # fmt: skip
    for arg in args:
        if arg == "--":
            return
        if arg.startswith("+") or arg.split("=", 1)[0] in refused:
            raise Refused(f"{name} {arg.split('=', 1)[0]}: runs editor commands given in the call")


def pagers(name: str, args: Sequence[str], roots: Roots) -> None:
    """man runs the pager or browser it is given; less runs commands given with ``+``."""
    for arg in args:
        option = arg.split("=", 1)[0]
        if name == "man" and (option in ("--pager", "--html", "--browser") or
                              re.match(r"-[a-zA-Z]*[PH]", option)):  # fmt: skip
            raise Refused(f"{name} {option}: runs the program it is given")
        if name in ("less", "more") and (arg.startswith("+") or option.startswith("--lesskey")):
            raise Refused(f"{name} {option}: runs commands given in the call")


def pytest(name: str, args: Sequence[str], roots: Roots) -> None:
    """pytest runs the conftest.py files beside the tests it is given: test paths, and
    the config, root and conftest folders, lie under the roots."""
    places = ("rootdir", "confcutdir", "config-file", "basetemp")
    words = scan(args, values="cpkmo", long_values=places)
    for word in words:
        if word.name == "-c" or long_named([word], places[:3]):
            inside(roots, word.value or ".")
        elif not word.name and not (word.value or "").startswith("-"):
            inside(roots, (word.value or ".").split("::", 1)[0])


def build_tools(name: str, args: Sequence[str], roots: Roots) -> None:
    """cargo's ``--config`` (a runner, a rustc wrapper), go's ``-toolexec``, ``-exec``,
    ``-vettool`` and ``go env -w``, wget's ``--use-askpass`` and ``-e`` (wgetrc commands)."""
    refused = {
        "cargo": ("config",),
        "go": ("toolexec", "exec", "vettool"),
        "wget": ("use-askpass", "execute", "config"),
    }[name]
    for arg in args:
        if arg == "--":
            return
        option = arg.lstrip("-").split("=", 1)[0]
        if arg.startswith("-") and (option in refused or (name == "wget" and arg == "-e")):
            raise Refused(f"{name} {arg.split('=', 1)[0]}: names a program for {name} to run")
    for at, arg in enumerate(args):  # cargo builds (build.rs runs) the crate it is given
        if name == "cargo" and arg.startswith("--manifest-path"):
            given = arg.partition("=")[2] or (args[at + 1] if at + 1 < len(args) else ".")
            inside(roots, given)
    if name == "go" and args[:1] == ["env"] and any(a in ("-w", "-u") for a in args):
        raise Refused("go env -w: writes a setting (GOFLAGS can name a program go runs)")


def runners(name: str, args: Sequence[str], roots: Roots) -> None:
    """uv, poetry, pipenv, pdm, hatch, conda, bundle, nix, deno: their ``run``/``exec``
    runs the command it is given."""
    operands = [arg for arg in args if not arg.startswith("-")]
    if operands[:1] and operands[0] in ("run", "exec", "shell", "x", "dlx", "eval", "develop"):
        raise Refused(f"{name} {operands[0]}: runs the command it is given")
    if name == "deno" and any(arg.startswith(("http:", "https:", "data:")) for arg in args):
        raise Refused(f"{name}: runs code from a URL")


def powershell(name: str, args: Sequence[str], roots: Roots) -> None:
    """pwsh takes any abbreviation of its parameters, with - or /, in any case."""
    for arg in args:
        option = arg.lstrip("-/").split(":", 1)[0].lower()
        if arg[:1] not in ("-", "/") or not option:
            continue
        codes = ("command", "encodedcommand", "commandwithargs")
        if option in ("c", "e", "ec", "cwa") or any(full.startswith(option) for full in codes):
            raise Refused(f"{name} {arg}: runs code given in the call; run a script")


RULES = {
    "find": find, "gfind": find, "tar": tar, "gtar": tar, "bsdtar": tar, "rsync": rsync,
    "make": make, "gmake": make, "npm": packages, "pnpm": packages, "yarn": packages,
    "bun": packages, "env": env, "ssh": ssh, "scp": ssh, "sftp": ssh, "vim": editors,
    "vi": editors, "nvim": editors, "view": editors, "ex": editors, "vimdiff": editors,
    "gvim": editors, "emacs": editors, "man": pagers, "less": pagers, "more": pagers,
    "cargo": build_tools, "go": build_tools, "wget": build_tools, "uv": runners,
    "poetry": runners, "pipenv": runners, "pdm": runners, "hatch": runners,
    "conda": runners, "bundle": runners, "nix": runners, "deno": runners,
    "pwsh": powershell, "powershell": powershell, "pytest": pytest,
    **dict.fromkeys(WRAPPERS, wrapper),
}  # fmt: skip
