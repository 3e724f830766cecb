"""The text files of a folder as git sees them: what ``agentout count DIR`` counts.

``text_files(root)`` walks ``root`` and lists its files, as paths relative to it with
``/`` between parts, sorted by those paths (code point order, which is git's byte
order for UTF-8 names), leaving out:

- ``.git`` (the repository's own folder, or a worktree's ``.git`` file);
- what ``.gitignore`` files exclude, matched as git does (``pathspec``'s
  ``GitIgnoreSpec``): each file's patterns are relative to its folder, a deeper file's
  patterns win over a shallower one's, a folder excluded is not entered (so nothing in
  it can be included again, as in git). When ``root`` is inside a repository, the
  ``.gitignore`` files of the folders above it up to the repository's top, and
  ``.git/info/exclude``, apply too (unless they exclude ``root`` itself: a folder asked
  for by name is counted);
- binary files, as git tells them: a NUL byte in the first 8000 bytes;
- symbolic links (git keeps the link, not what it points to; never followed, so no
  loop) and anything that is not a regular file.

A folder or file that cannot be read is left out and reported in ``skipped``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["BINARY_PROBE", "Tree", "is_binary", "text_files"]

BINARY_PROBE = 8000  # git's buffer_is_binary looks this far for a NUL byte
_IGNORE_FILE = ".gitignore"


@dataclass(frozen=True)
class _Rules:
    """One ignore file's patterns; a path relative to the walk is matched as
    ``lead + path[strip:]``, i.e. relative to the ignore file's folder."""

    spec: Any
    lead: str = ""
    strip: int = 0

    def verdict(self, path: str) -> bool | None:
        """True: excluded; False: included again (``!pattern``); None: no pattern matched."""
        found: bool | None = self.spec.check_file(self.lead + path[self.strip :]).include
        return found


@dataclass
class Tree:
    """The files listed (relative paths) and what could not be read (path, reason)."""

    files: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)


def is_binary(path: str | os.PathLike[str]) -> bool:
    """A NUL byte in the first 8000 bytes, as git decides."""
    with open(path, "rb") as handle:
        return b"\x00" in handle.read(BINARY_PROBE)


def text_files(root: str | os.PathLike[str]) -> Tree:
    """See the module docstring."""
    base = Path(root)
    tree = Tree()
    rules = _above(base)
    _walk(base, "", rules, tree)
    tree.files.sort()
    tree.skipped.sort()
    return tree


def _spec(path: Path) -> Any | None:
    """The patterns of an ignore file, or None if there is none to read."""
    import pathspec  # deferred: only a folder count needs it

    try:
        if not path.is_file():
            return None
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return pathspec.GitIgnoreSpec.from_lines(lines)


def _above(base: Path) -> list[_Rules]:
    """The rules of the repository ``base`` is in, from its ``info/exclude`` and from the
    ``.gitignore`` files of the folders above ``base`` (its own is the walk's)."""
    here = base.resolve()
    top = next((p for p in (here, *here.parents) if (p / ".git").exists()), None)
    if top is None:
        return []
    lead = "" if top == here else here.relative_to(top).as_posix() + "/"
    found = [(lead, _spec(top / ".git" / "info" / "exclude"))]
    for folder in reversed(here.parents):
        if folder == top or top in folder.parents:
            found.append((here.relative_to(folder).as_posix() + "/", _spec(folder / _IGNORE_FILE)))
    rules = [_Rules(spec, lead) for lead, spec in found if spec is not None]
    if lead and _last_verdict(rules, "") is True:  # each rule's lead is base's own path
        return []  # the folder asked for is itself ignored: count it all the same
    return rules


def _excluded(rules: list[_Rules], path: str, *, directory: bool) -> bool:
    return _last_verdict(rules, path + "/" if directory else path) is True


def _last_verdict(rules: list[_Rules], path: str) -> bool | None:
    for rule in reversed(rules):  # the deepest file's patterns win
        found = rule.verdict(path)
        if found is not None:
            return found
    return None


def _walk(folder: Path, rel: str, rules: list[_Rules], tree: Tree) -> None:
    spec = _spec(folder / _IGNORE_FILE)
    if spec is not None:
        rules = [*rules, _Rules(spec, "", len(rel) + 1 if rel else 0)]
    try:
        with os.scandir(folder) as listing:
            entries = sorted(listing, key=lambda entry: entry.name)
    except OSError as exc:
        tree.skipped.append((rel or ".", exc.strerror or str(exc)))
        return
    for entry in entries:
        if entry.name == ".git":
            continue
        path = f"{rel}/{entry.name}" if rel else entry.name
        try:
            if entry.is_symlink():
                continue
            if entry.is_dir(follow_symlinks=False):
                if not _excluded(rules, path, directory=True):
                    _walk(Path(entry.path), path, rules, tree)
                continue
            wanted = entry.is_file(follow_symlinks=False)
            wanted = wanted and not _excluded(rules, path, directory=False)
            if wanted and not is_binary(entry.path):  # read only what is not ignored
                tree.files.append(path)
        except OSError as exc:
            tree.skipped.append((path, exc.strerror or str(exc)))
