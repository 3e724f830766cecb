"""What a reducer is: the command words it matches, the output it reads, its answer.

A reducer is matched on the command's words (``command_words``: the argv with ``env``,
``VAR=x``, ``python -m``, ``npx``, ``uv run`` and the like taken off the front, and a
tool's global options such as ``git -C DIR`` skipped), never on a substring of the
command line. It reads the output as lines (terminal escapes and redraws already
resolved) and gives records for the ``raw`` format: blocks of text that stand for output
lines, and the order they matter in. It declares its facts: patterns whose every match
in the output must survive in what it gives (``agentout.reducers.facts`` checks them).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from agentout.frozen import Frozen

if TYPE_CHECKING:  # every command looks its reducer up: the records model loads when used
    from agentout.records import Record

__all__ = [
    "REDUCE_MAX_BYTES",
    "Output",
    "Reduced",
    "Reducer",
    "command_words",
]

REDUCE_MAX_BYTES = 16 << 20  # larger output goes to the generic reducer, which streams


class Output(Frozen):
    """What a command printed, as a reducer reads it: ``argv`` as given, its
    ``command_words``, and each line as a terminal leaves it, without its newline."""

    argv: tuple[str, ...]
    words: tuple[str, ...]
    lines: list[str]
    exit_status: int

    def __init__(
        self, argv: tuple[str, ...], words: tuple[str, ...], lines: list[str], exit_status: int = 0
    ) -> None:
        self._set(argv=argv, words=words, lines=lines, exit_status=exit_status)


class Reduced(Frozen):
    """A reducer's answer: records in output order, and the ``order`` they matter in
    (None: the order given). ``complete``: everything the output says is in the records
    (only fixed text the command always prints, such as hints, was left out): nothing to
    store, no reference to give. ``notes``: counts for the closing line."""

    records: list[Record]
    order: list[int] | None
    complete: bool
    notes: dict[str, int]

    def __init__(
        self,
        records: list[Record],
        order: list[int] | None = None,
        complete: bool = False,
        notes: dict[str, int] | None = None,
    ) -> None:
        notes = {} if notes is None else notes
        self._set(records=records, order=order, complete=complete, notes=notes)


class Reducer(Protocol):
    @property
    def name(self) -> str: ...  # family/command, e.g. "git/status"

    @property
    def facts(self) -> tuple[str, ...]: ...  # regexes over the output; groups are the values

    def matches(self, words: Sequence[str]) -> bool: ...

    def reduce(self, output: Output) -> Reduced | None: ...


# -- the words of a command ------------------------------------------------------------------

# Wrappers that run the rest of the line: (words, options that take a value).
_WRAPPERS: dict[str, frozenset[str]] = {
    "env": frozenset({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}),
    "npx": frozenset({"-p", "--package", "-c", "--call"}),
    "bunx": frozenset(),
    "uvx": frozenset({"--from", "--with", "--python", "-p"}),
    "pipx": frozenset(),  # pipx run X
    "nice": frozenset({"-n", "--adjustment"}),
    "time": frozenset({"-f", "--format", "-o", "--output"}),
    "command": frozenset(),
    "exec": frozenset(),
    "nohup": frozenset(),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "timeout": frozenset({"-s", "--signal", "-k", "--kill-after"}),
}
_RUNNERS = {  # "X run CMD": the runner's subcommand, and its options that take a value
    "uv": ("run", frozenset({"--with", "--python", "-p", "--project", "--directory", "--group"})),
    "poetry": ("run", frozenset()),
    "pipx": ("run", frozenset({"--spec"})),
    "pdm": ("run", frozenset()),
    "hatch": ("run", frozenset()),
    "pnpm": ("exec", frozenset()),
    "yarn": ("exec", frozenset()),
    "bundle": ("exec", frozenset()),
}
# A tool's own options that come before its subcommand, and those that take a value.
_GLOBAL_OPTIONS = {
    "git": frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path"}),
    "cargo": frozenset({"-C", "--config", "-Z"}),
    "npm": frozenset({"--prefix", "-C", "--workspace", "-w"}),
    "docker": frozenset({"-H", "--host", "--context", "-c", "--config", "-l", "--log-level"}),
    "kubectl": frozenset({"-n", "--namespace", "--context", "--kubeconfig", "-l"}),
    "go": frozenset(),
    "make": frozenset({"-C", "--directory", "-f", "--file", "-j", "--jobs", "-I", "-o", "-W"}),
}


def _base(word: str) -> str:
    return os.path.basename(word)


def _is_assignment(word: str) -> bool:
    name, eq, _ = word.partition("=")
    return bool(eq) and name.replace("_", "a").isalnum() and not name[0].isdigit()


def _skip_options(words: list[str], i: int, takes_value: frozenset[str]) -> int:
    """Past the options at ``words[i:]`` (and their values)."""
    while i < len(words) and words[i].startswith("-") and words[i] != "-":
        if words[i] == "--":
            return i + 1
        if words[i] in takes_value:
            i += 1
        i += 1
    return i


def command_words(argv: Sequence[str]) -> tuple[str, ...]:
    """The words that say which command runs: ``env A=1 uv run python -m pytest -x``
    gives ``('pytest', '-x')``, ``git -C repo --no-pager log -n 3`` gives
    ``('git', 'log', '-n', '3')``; the command is given by its basename."""
    words = list(argv)
    i = 0
    while i < len(words):
        word = _base(words[i])
        if _is_assignment(words[i]):
            i += 1
        elif word in _WRAPPERS and not (word == "pipx" and words[i + 1 : i + 2] != ["run"]):
            i = _skip_options(words, i + 1, _WRAPPERS[word])
            if word == "pipx":
                i += 1  # "run"
            if word == "timeout" and i < len(words):
                i += 1  # the duration
        elif word in _RUNNERS and words[i + 1 : i + 2] == [_RUNNERS[word][0]]:
            i = _skip_options(words, i + 2, _RUNNERS[word][1])
        elif word.startswith("python") and words[i + 1 : i + 2] == ["-m"]:
            i += 2
        else:
            break
    if i >= len(words):
        return ()
    head = _base(words[i])
    rest = words[i + 1 :]
    if head in _GLOBAL_OPTIONS:
        j = 0
        while j < len(rest) and rest[j].startswith("-"):
            option = rest[j].split("=", 1)[0]
            j += 2 if option in _GLOBAL_OPTIONS[head] and "=" not in rest[j] else 1
        if head == "cargo" and j < len(rest) and rest[j].startswith("+"):
            j += 1  # cargo +nightly build
        return (head, *rest[j:])
    return (head, *rest)
