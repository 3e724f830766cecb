"""A command's arguments read as its options and operands, the way getopt and git's
parse-options read them, enough to tell which option a word is."""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence
from typing import NamedTuple

from agentout.mcp.guard import GuardError, Roots

__all__ = ["Refused", "Word", "abbreviates", "inside", "long_named", "scan", "short_named"]


class Refused(GuardError):
    """A call that would make an allowed program run another one."""


class Word(NamedTuple):
    """An option (``-x``, ``--name``) and its value, or an operand (``name`` empty)."""

    name: str
    value: str | None


def scan(
    args: Sequence[str],
    *,
    values: str = "",
    long_values: Collection[str] = (),
    permute: bool = True,
) -> list[Word]:
    """The options and operands of ``args``. A short option in ``values`` takes the rest
    of its cluster or the next word, a long one (any prefix of a name in ``long_values``,
    as getopt_long takes it) the next word unless given ``--name=value``. After ``--``
    every word is an operand; without ``permute``, so is every word after the first
    operand (a script's own arguments)."""
    out: list[Word] = []
    i = 0
    while i < len(args):
        word = args[i]
        i += 1
        if word == "--":
            out.extend(Word("", rest) for rest in args[i:])
            break
        if word.startswith("--"):
            name, eq, value = word[2:].partition("=")
            if not eq and abbreviates(name, long_values) and i < len(args):
                value, eq = args[i], "="
                i += 1
            out.append(Word("--" + name, value if eq else None))
        elif word.startswith("-") and len(word) > 1:
            for at, letter in enumerate(word[1:], 1):
                if letter in values:
                    value = word[at + 1 :]
                    if not value and i < len(args):
                        value = args[i]
                        i += 1
                    out.append(Word("-" + letter, value))
                    break
                out.append(Word("-" + letter, None))
        else:
            out.append(Word("", word))
            if not permute:
                out.extend(Word("", rest) for rest in args[i:])
                break
    return out


def abbreviates(given: str, names: Collection[str]) -> bool:
    """Whether ``given`` is one of ``names`` or the start of one, as getopt_long and
    git accept ``--upload-p`` for ``--upload-pack``."""
    return bool(given) and any(name.startswith(given) for name in names)


def long_named(words: Sequence[Word], names: Collection[str]) -> Word | None:
    """The first long option that is (or abbreviates) one of ``names``."""
    found = (w for w in words if w.name.startswith("--") and abbreviates(w.name[2:], names))
    return next(found, None)


def short_named(words: Sequence[Word], letters: str) -> Word | None:
    """The first short option that is one of ``letters``."""
    found = (w for w in words if len(w.name) == 2 and w.name[1] in letters)
    return next(found, None)


def inside(roots: Roots, path: str, start: str | None = None) -> str:
    """``path`` (relative to ``start``, else the first root) resolved, if it is under
    the roots; refused otherwise."""
    base = start if start is not None else str(roots.first)
    try:
        return str(roots.resolve(os.path.join(base, path)))
    except GuardError:
        raise Refused(f"{path}: outside the allowed roots") from None
