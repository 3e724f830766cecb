"""What the server may touch: files under its roots, and executables on its allowlist.

``Roots`` confines every path a tool reads: the path is resolved (symlinks and ``..``
included) before it is checked, so a link inside a root that points outside is refused
like the outside path itself. ``Allowlist`` is ``--allow-commands``: executables named at
start, found on ``PATH`` once, then run by that absolute path; a call names one by its bare
name, and anything else (another name, any path, ``/bin/../usr/bin/rm``, ``./git``) is
refused. Commands run as an argument vector, never through a shell.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from agentout.errors import AgentoutError

__all__ = ["Allowlist", "GuardError", "Roots"]

_GLOB_CHARS = frozenset("*?[")
_MOST_MATCHES = 10_000


def _fixed_count(parts: list[str]) -> int:
    """How many leading parts of a split pattern hold no wildcard."""
    return next((i for i, part in enumerate(parts) if _GLOB_CHARS & set(part)), len(parts))


class GuardError(AgentoutError):
    """A path outside the roots, or a command not on the allowlist."""


def _within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


@dataclass(frozen=True)
class Roots:
    """The directories tools may read under; relative paths are taken from the first."""

    dirs: tuple[Path, ...]

    @classmethod
    def of(cls, dirs: Iterable[str | os.PathLike[str]]) -> Roots:
        resolved: list[Path] = []
        for given in dirs:
            path = Path(os.path.realpath(given))
            if not path.is_dir():
                why = "is a file, not a folder" if path.exists() else "no such folder"
                raise GuardError(f"--root {os.fspath(given)}: {why}")
            resolved.append(path)
        if not resolved:
            resolved.append(Path(os.path.realpath(os.getcwd())))
        return cls(tuple(dict.fromkeys(resolved)))

    @property
    def first(self) -> Path:
        return self.dirs[0]

    def resolve(self, path: str) -> Path:
        """The real path of ``path`` (relative to the first root), if under a root."""
        if "\x00" in path:
            raise GuardError(f"{path!r}: a path cannot hold a NUL character")
        candidate = Path(path)
        if not candidate.is_absolute():
            candidate = self.first / candidate
        real = Path(os.path.realpath(candidate))
        if not self.holds(real):
            raise GuardError(f"{path}: {self._outside}; refusing to read it")
        return real

    def display(self, path: Path) -> str:
        """How results name a file: relative to the first root when under it."""
        return os.path.relpath(path, self.first) if _within(path, self.first) else str(path)

    def openable(self, path: Path) -> str:
        """How to pass a checked path to a reader: relative (shorter in results) when the
        working directory is the first root, else absolute."""
        if Path(os.path.realpath(os.getcwd())) == self.first:
            shown = self.display(path)
            # "-" is stdin to the readers, and "-x" an option: keep them paths
            return os.path.join(".", shown) if shown.startswith("-") else shown
        return str(path)

    def expand(self, pattern: str) -> list[Path]:
        """The files a glob matches (relative to the first root), each checked; a plain
        path comes back as itself, checked.

        A glob's fixed part (its directories before the first wildcard) must resolve under
        a root, and ``..`` may not follow a wildcard; both refusals name only the pattern
        and depend on nothing but its text. The rest is matched inside that resolved
        directory, never through the text of the fixed part, and ``**`` does not descend
        into linked directories. A match reached through a directory outside the roots is
        left out as if it did not exist; the same file reached twice (through a link) is
        listed once; a link inside a root that points out is refused by its inside name.
        """
        if not _GLOB_CHARS & set(pattern):
            return [self.resolve(pattern)]
        if "\x00" in pattern:
            raise GuardError(f"{pattern!r}: a path cannot hold a NUL character")
        parts = pattern.split(os.sep)
        fixed = _fixed_count(parts)
        try:
            base = self.resolve(os.sep.join(parts[:fixed]) or (os.sep if parts[0] == "" else "."))
        except GuardError:
            raise GuardError(f"{pattern}: {self._outside}; refusing to read it") from None
        rest = [part for part in parts[fixed:] if part]  # "a//*" and "*/" say no more
        if ".." in rest:
            raise GuardError(f"{pattern}: '..' after a wildcard is not allowed")
        if os.path.lexists(base.joinpath(*rest)):  # a name that holds [ or *, given whole
            return [self.resolve(self.display(base.joinpath(*rest)))]
        hidden = any(part.startswith(".") for part in rest)  # as glob: only when asked for
        found: dict[Path, None] = {}
        # pathlib's ** does not follow linked directories (glob's does, without end)
        for match in base.glob(os.sep.join(rest)):
            steps = match.relative_to(base).parts
            if not hidden and any(step.startswith(".") for step in steps):
                continue
            folders = (base.joinpath(*steps[:end]) for end in range(1, len(steps)))
            if all(self.holds(Path(os.path.realpath(folder))) for folder in folders):
                found[self.resolve(self.display(match))] = None
                if len(found) > _MOST_MATCHES:
                    raise GuardError(f"{pattern}: matches over {_MOST_MATCHES:,} files; narrow it")
        return sorted(found)

    def holds(self, real: Path) -> bool:
        """Whether a resolved path is under one of the roots."""
        return any(_within(real, root) for root in self.dirs)

    @property
    def _outside(self) -> str:
        return f"outside the allowed roots ({', '.join(str(root) for root in self.dirs)})"

    def check_tree(self, directory: Path) -> None:
        """Refuse a directory holding a symlink (not hidden) that leads outside the roots:
        the readers follow file links, so a link must not be a way out."""
        for top, dirs, files in os.walk(directory):  # never into linked directories
            dirs[:] = [name for name in dirs if not name.startswith(".")]
            for name in [*dirs, *files]:
                path = os.path.join(top, name)
                if not name.startswith(".") and os.path.islink(path):
                    self.resolve(path)


@dataclass(frozen=True)
class Allowlist:
    """Executables a call may run, by bare name, each bound to a path found at start."""

    paths: dict[str, str]

    @classmethod
    def parse(cls, spec: str | None) -> Allowlist:
        """``git,make,ls``: each found on ``PATH`` now (a path is taken as given)."""
        paths: dict[str, str] = {}
        for item in (part.strip() for part in (spec or "").split(",")):
            if not item:
                continue
            found = shutil.which(item)
            if found is None:
                raise GuardError(f"--allow-commands: {item}: no such executable on PATH")
            name = os.path.basename(item)
            if name in paths and paths[name] != os.path.abspath(found):
                raise GuardError(f"--allow-commands: {name} is named twice, as different files")
            paths[name] = os.path.abspath(found)
        return cls(paths)

    def __bool__(self) -> bool:
        return bool(self.paths)

    def argv(self, command: Sequence[str]) -> list[str]:
        """``command`` with its executable replaced by the allowed absolute path."""
        if not command:
            raise GuardError("command is empty: give the executable and its arguments")
        name = command[0]
        allowed = ", ".join(sorted(self.paths)) or "none"
        if name not in self.paths:
            why = (
                "give the bare name of an allowed executable, not a path"
                if "/" in name or os.sep in name
                else "not on the allowlist"
            )
            raise GuardError(f"{name}: {why}; allowed: {allowed} (the server's --allow-commands)")
        return [self.paths[name], *command[1:]]
