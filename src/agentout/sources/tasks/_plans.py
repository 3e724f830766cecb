"""How each runner is told to start its recipe lines through the line shell, and when
that is not done because it could change what runs.

A ``Plan`` names the shell (and for just, its arguments) the runner would have used
for each line, and builds the runner's command with the line shell in its place.
``realise`` writes the line shell's launcher into a private directory
(``tempfile.mkdtemp``: 0700, an unpredictable name): a two-line ``sh`` script that
starts ``agentout.sources.tasks.shell`` with that shell, so every runner can be given one path.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable

from agentout.frozen import Frozen
from agentout.process import python_module

__all__ = ["Plan", "Prepared", "plan", "realise"]

_MAKEFILE_BYTES = 1 << 20  # a larger makefile is not read: not wrapped
_UNSAFE_PATH = re.compile(r"[\s$'\"\\`%]")  # make splits SHELL on spaces and expands $


class Prepared:
    """The command to run instead (the same command, told to use the line shell), what
    marks the line shells' own lines in its output (``agentout.deliver.text``), and
    the private directory to remove when it is done."""

    def __init__(
        self, argv: tuple[str, ...], runner: str, own: str, folder: str | None = None
    ) -> None:
        self.argv, self.runner, self.own, self.folder = argv, runner, own, folder

    def close(self) -> None:
        if self.folder is not None:
            import shutil

            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None


class Plan(Frozen):
    """How to run a task runner with agentout's line shell: ``shell``, the program the
    runner would start each line with; ``build``, the command, given the launcher's path."""

    runner: str
    shell: str
    build: Callable[[str], tuple[str, ...]]

    def __init__(self, runner: str, shell: str, build: Callable[[str], tuple[str, ...]]) -> None:
        self._set(runner=runner, shell=shell, build=build)


def plan(program: str, argv: tuple[str, ...], cwd: str) -> Plan | None:
    if program in ("make", "gmake"):
        return _make(argv, cwd)
    if program == "just":
        return _just(argv, cwd)
    if program in ("npm", "pnpm"):
        return _npm(argv, cwd)
    return None


def realise(found: Plan) -> Prepared | None:
    """The launcher written, the command built; None when the private directory's path
    could not be given to the runner as one word."""
    import tempfile

    folder = tempfile.mkdtemp(prefix="agentout-tasks-")
    launcher = os.path.join(folder, "sh")
    if _UNSAFE_PATH.search(launcher):
        os.rmdir(folder)
        return None
    import secrets

    own = f"agentout-{secrets.token_hex(8)}:"
    options = [f"--runner={found.runner}", f"--shell={found.shell}", f"--lock={folder}/lock"]
    options += [f"--own={own}", f"--launcher={launcher}"]
    head = shlex.join([*python_module("agentout.sources.tasks.shell"), *options])
    text = f'#!/bin/sh\nexec {head} -- "$@"\n'
    fd = os.open(launcher, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o700)
    with os.fdopen(fd, "w", encoding="utf-8") as stream:
        stream.write(text)
    return Prepared(found.build(launcher), found.runner, own, folder=folder)


# -- make -----------------------------------------------------------------------------------

# Options after which make runs no recipe, or sends its output elsewhere (-O: the line
# shell would see a file, not make's output, and pass the line through anyway).
_MAKE_REFUSED_SHORT = set("nqtpvhO")
_MAKE_REFUSED_LONG = (
    "--just-print", "--dry-run", "--recon", "--question", "--touch", "--print-data-base",
    "--version", "--help", "--output-sync", "--eval", "--trace",
)  # fmt: skip
_MAKE_VALUE_SHORT = set("CfIoWE")
_MAKE_FILES = ("GNUmakefile", "makefile", "Makefile")
_ASSIGN = r"(?:(?:override|export|private|unexport)\s+)*SHELL\s*(::?=|:::=|\+=|\?=|!=|=)(.*)"
_SHELL_GLOBAL = re.compile(rf"^\s*{_ASSIGN}$")
_SHELL_ANYWHERE = re.compile(r"\bSHELL\s*(?::{1,3}=|\+=|\?=|!=|=)")
_EXPORTS_SHELL = re.compile(
    r"^\s*(?:override\s+)?export\b[^=]*\bSHELL\b|^\s*\.EXPORT_ALL_VARIABLES\s*:"
)
_ONESHELL = re.compile(r"^\.ONESHELL\s*:")
_INCLUDE = re.compile(r"^\s*(-include|sinclude|include)\s+(.*)$")


def _make(argv: tuple[str, ...], cwd: str) -> Plan | None:
    if os.environ.get("MAKEFILES") or "SHELL" in os.environ.get("MAKEFLAGS", ""):
        return None
    folder, files = cwd, []
    words = list(argv[1:])
    i = 0
    while i < len(words):
        word = words[i]
        if word.split("=", 1)[0].strip(":+?!") in ("SHELL", ".SHELLFLAGS"):
            return None  # the user chose the shell: left as it is
        if word.startswith("--"):
            name, eq, value = word.partition("=")
            if name.startswith(_MAKE_REFUSED_LONG):
                return None
            if name in ("--directory", "--file", "--makefile") and not eq:
                i += 1
                value = words[i] if i < len(words) else ""
            if name == "--directory":
                folder = os.path.join(folder, value)
            elif name in ("--file", "--makefile"):
                files.append(value)
        elif word.startswith("-") and len(word) > 1:
            for at, letter in enumerate(word[1:], 1):
                if letter in _MAKE_REFUSED_SHORT:
                    return None
                if letter in _MAKE_VALUE_SHORT:
                    value = word[at + 1 :]
                    if not value:
                        i += 1
                        value = words[i] if i < len(words) else ""
                    if letter == "C":
                        folder = os.path.join(folder, value)
                    elif letter == "f":
                        files.append(value)
                    break
                if letter in "jl":
                    break  # -j, -j2, -l2: a number, or nothing
        i += 1
    if files:
        paths = [os.path.join(folder, name) for name in files]
    else:
        paths = [os.path.join(folder, name) for name in _MAKE_FILES][:3]
        paths = [next((p for p in paths if os.path.isfile(p)), "")]
    if not all(os.path.isfile(path) for path in paths):
        return None  # make says why itself
    read = _makefile_shell(paths, folder)
    if read is None:
        return None
    shell, oneshell = read
    # With .ONESHELL make runs SHELL as one program, its value not split into words:
    # the line shell is not told the target there.
    target = "" if oneshell else " --target=$@"
    return Plan("make", shell, lambda launcher: (argv[0], f"SHELL={launcher}{target}", *argv[1:]))


def _makefile_shell(paths: list[str], folder: str) -> tuple[str, bool] | None:
    """The shell the makefiles give their recipes, and whether they say ``.ONESHELL``.
    The shell is /bin/sh, or the one word of the only
    global ``SHELL = /path`` or ``SHELL := /path``; None when they set it in any other way
    (target-specific, computed, appended, several times), export it to the recipes
    (``export SHELL``, ``.EXPORT_ALL_VARIABLES``), or include a file whose name is
    computed."""
    assignments: list[tuple[str, str]] = []
    oneshell = False
    seen: set[str] = set()
    pending = list(paths)
    while pending:
        path = os.path.realpath(pending.pop(0))
        if path in seen:
            continue
        seen.add(path)
        try:
            if os.path.getsize(path) > _MAKEFILE_BYTES:
                return None
            with open(path, encoding="utf-8", errors="replace") as stream:
                text = stream.read()
        except OSError:
            return None
        for line in text.replace("\\\n", " ").splitlines():
            if line.lstrip().startswith("#"):
                continue
            included = _INCLUDE.match(line)
            if included and not line.startswith("\t"):
                names = included.group(2).split("#", 1)[0].split()
                if any(set(name) & set("$*?[]{}~") for name in names):
                    return None
                pending.extend(os.path.join(folder, name) for name in names)
                continue
            oneshell = oneshell or bool(_ONESHELL.match(line))
            if _EXPORTS_SHELL.search(line):
                return None  # recipes would see the line shell in $SHELL
            if not _SHELL_ANYWHERE.search(line):
                continue
            found = _SHELL_GLOBAL.match(line)
            if found is None or line.startswith("\t"):
                return None
            assignments.append((found.group(1), found.group(2).split("#", 1)[0].strip()))
    if not assignments:
        return "/bin/sh", oneshell
    if len(assignments) != 1:
        return None
    operator, value = assignments[0]
    if operator not in ("=", ":=", "::=", ":::=") or len(value.split()) != 1:
        return None
    if set(value) & set("$`'\"\\"):
        return None
    return value, oneshell


# -- just -----------------------------------------------------------------------------------

# Options that take a value, and flags, that leave recipes running as they would.
_JUST_VALUE = {
    "-f", "--justfile", "-d", "--working-directory", "--color", "--dotenv-filename",
    "--dotenv-path", "-E", "--command-color", "--list-heading", "--list-prefix",
}  # fmt: skip
_JUST_FLAGS = {
    "-q", "--quiet", "-v", "--verbose", "-vv", "--yes", "--unstable", "--no-deps",
    "--highlight", "--no-highlight", "--timestamp", "--explain", "--no-dotenv",
    "--check", "--allow-missing",
}  # fmt: skip
_JUST_LOCATION = {"-f", "--justfile", "-d", "--working-directory"}


def _just(argv: tuple[str, ...], cwd: str) -> Plan | None:
    words = list(argv[1:])
    location: list[str] = []
    i = 0
    while i < len(words) and words[i].startswith("-"):
        name, eq, _ = words[i].partition("=")
        if name == "--set" and not eq and i + 2 < len(words):
            i += 3
            continue
        if name in _JUST_VALUE:
            take = 1 if eq else 2
            if name in _JUST_LOCATION:
                location.extend(words[i : i + take])
            i += take
            continue
        if words[i] not in _JUST_FLAGS:
            return None  # --shell, --dump, --list, --dry-run, --command...: as it was
        i += 1
    settings = _just_shell(argv[0], location, cwd)
    if settings is None:
        return None
    shell, arguments = settings

    def build(launcher: str) -> tuple[str, ...]:
        args = [part for argument in arguments for part in ("--shell-arg", argument)]
        return (argv[0], "--shell", launcher, "--clear-shell-args", *args, *argv[1:])

    return Plan("just", shell, build)


def _just_shell(program: str, location: list[str], cwd: str) -> tuple[str, list[str]] | None:
    """The shell and arguments the justfile gives its recipes (``sh -cu`` unless it says),
    from ``just --dump`` (which evaluates nothing); None when a module has a shell of
    its own or the justfile cannot be read."""
    import json
    import subprocess

    try:
        done = subprocess.run(
            [program, *location, "--dump", "--dump-format", "json"],
            cwd=cwd,
            capture_output=True,
            timeout=30,
            check=False,
            stdin=subprocess.DEVNULL,
        )
        tree = json.loads(done.stdout) if done.returncode == 0 else None
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None
    if not isinstance(tree, dict):
        return None
    shells: list[object] = []

    def collect(module: dict[str, object]) -> None:
        settings = module.get("settings")
        shells.append(settings.get("shell") if isinstance(settings, dict) else None)
        modules = module.get("modules")
        for child in (modules or {}).values() if isinstance(modules, dict) else ():
            if isinstance(child, dict):
                collect(child)

    collect(tree)
    if any(shell != shells[0] for shell in shells):
        return None
    chosen = shells[0]
    if chosen is None:
        return "sh", ["-cu"]
    if not isinstance(chosen, dict):
        return None
    command, arguments = chosen.get("command"), chosen.get("arguments")
    if not isinstance(command, str) or not isinstance(arguments, list):
        return None
    if not all(isinstance(a, str) for a in arguments):
        return None
    return command, [str(a) for a in arguments]


# -- npm ------------------------------------------------------------------------------------

_NPM_SCRIPTS = {"run", "run-script", "rum", "urn", "test", "tst", "t", "start", "stop", "restart"}


def _npm(argv: tuple[str, ...], cwd: str) -> Plan | None:
    """npm, or pnpm (which reads the same npmrc, and its own config files, and takes the
    setting as ``--config.script-shell``)."""
    if len(argv) < 2 or argv[1] not in _NPM_SCRIPTS:
        return None
    ours = argv[: argv.index("--")] if "--" in argv else argv
    if any("script-shell" in word or "shell-emulator" in word for word in ours):
        return None
    if any("script_shell" in key.lower() for key in os.environ):
        return None
    pnpm = os.path.basename(argv[0]) == "pnpm"
    files = _npmrc_files(cwd) + (_pnpm_files(cwd) if pnpm else [])
    if any(_names_script_shell(path) for path in files):
        return None  # a script shell of the user's: left as it is
    option = "--config.script-shell" if pnpm else "--script-shell"
    runner = "pnpm" if pnpm else "npm"
    return Plan(runner, "sh", lambda launcher: (argv[0], f"{option}={launcher}", *argv[1:]))


def _pnpm_files(cwd: str) -> list[str]:
    """pnpm's own settings: the workspace file (and its parents') and the user's rc."""
    found = [os.path.join(folder, "pnpm-workspace.yaml") for folder in _parents(cwd)]
    config = os.environ.get("XDG_CONFIG_HOME") or os.path.expanduser("~/.config")
    found.append(os.path.join(config, "pnpm", "rc"))
    return found


def _npmrc_files(cwd: str) -> list[str]:
    """Every npmrc npm may read: the project's (and its parents', to be sure), the
    user's, the global and the built-in one beside npm."""
    here = os.path.abspath(cwd)
    found = [os.path.join(folder, ".npmrc") for folder in _parents(here)]
    found.append(os.environ.get("NPM_CONFIG_USERCONFIG") or os.path.expanduser("~/.npmrc"))
    if os.environ.get("NPM_CONFIG_GLOBALCONFIG"):
        found.append(os.environ["NPM_CONFIG_GLOBALCONFIG"])
    import shutil

    npm = shutil.which("npm")
    if npm is not None:
        real = os.path.realpath(npm)
        prefix = os.path.dirname(os.path.dirname(os.path.realpath(npm)))
        found.append(os.path.join(prefix, "etc", "npmrc"))
        found.append(os.path.join(os.path.dirname(os.path.dirname(real)), "npmrc"))
    found.append("/etc/npmrc")
    return found


def _parents(folder: str) -> list[str]:
    out = [folder]
    while os.path.dirname(out[-1]) != out[-1]:
        out.append(os.path.dirname(out[-1]))
    return out


def _names_script_shell(path: str) -> bool:
    try:
        with open(path, encoding="utf-8", errors="replace") as stream:
            text = stream.read(_MAKEFILE_BYTES)
    except OSError:
        return False
    return any(name in text for name in ("script-shell", "scriptShell", "shell-emulator"))
