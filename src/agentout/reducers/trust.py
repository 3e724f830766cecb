"""Trust for the reducers a repository ships.

A reducer decides what an agent reads of a command's output, so a cloned repository's
``.agentout/reducers/`` could hide a line of ``git diff`` from the agent. Those files are
not used until the user trusts them: ``agentout reducers trust`` records each file's
SHA-256 under its real path in ``trusted-reducers.json`` in the user's config directory,
and a file is used only while its bytes hash to what was recorded (the bytes hashed are
the bytes then used: the file is read once). The user's own reducers (the config
directory's) and installed packages' need no trust; agentout's never do.

An ignored file never matches a command. The first time one would have, one line on
stderr says so and how to trust it: once a run at most, and once for each version of a
file (remembered in the user cache), so a task runner's recipe lines, each a run of
its own, do not say it again and again. ``agentout reducers list`` and ``which`` say it
whenever asked.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Literal

from agentout.dirs import config_dir
from agentout.errors import InputError
from agentout.reducers.cache import KnownTexts
from agentout.reducers.model import Output, Reduced
from agentout.reducers.spec import SpecError
from agentout.reducers.spec_file import SpecFile, match_of

__all__ = ["TRUST_FILE", "Ignored", "State", "TrustList", "not_yours", "shown_path"]

TRUST_FILE = "trusted-reducers.json"
MAX_BYTES = 1 << 20  # some 5,000 trusted files
State = Literal["trusted", "untrusted", "changed"]
_VERSION = 1


def shown_path(path: str | os.PathLike[str]) -> str:
    """``path`` relative to the working directory when it is inside it, else absolute;
    a character no reader would see in a name a repository chose is shown escaped."""
    from agentout.read.visible import visible

    absolute = os.path.abspath(path)
    try:
        relative = os.path.relpath(absolute)
    except ValueError:  # another drive
        relative = absolute
    outside = relative == os.pardir or relative.startswith(os.pardir + os.sep)
    return visible(absolute if outside else relative)


def not_yours(path: str | os.PathLike[str]) -> str | None:
    """Why ``path`` cannot be trusted, or None: trust is the person's own, so a reducer
    file must be this user's (another user could change it after it is trusted, or put
    it there) and lie, symlinks resolved, in the project tree whose
    ``.agentout/reducers/`` names it (a link to a file elsewhere, or a reducers folder
    that is a link out, would trust a file nobody reviewed in this project)."""
    named = Path(os.path.abspath(path))
    folder = named.parent
    if folder.name != "reducers" or folder.parent.name != ".agentout":
        return "not in a project's .agentout/reducers/ folder"
    project = Path(os.path.realpath(folder.parent.parent))
    real = Path(os.path.realpath(named))
    if not real.is_relative_to(project):
        return f"leads outside the project ({shown_path(real)}, not under {shown_path(project)})"
    for place in (real, real.parent, real.parent.parent):
        try:
            owner = os.stat(place).st_uid
        except OSError as exc:
            return f"cannot be read ({exc.strerror or exc})"
        if hasattr(os, "getuid") and owner != os.getuid():
            what = "owned" if place == real else "in a folder owned"
            return f"{what} by another user (uid {owner}), not you"
    return None


class TrustList:
    """The trusted reducer files: real path -> ``sha256:HEX`` of the bytes trusted."""

    def __init__(self, files: dict[str, str] | None = None, path: Path | None = None) -> None:
        self.files = dict(files or {})
        self.path = path if path is not None else config_dir() / TRUST_FILE

    @staticmethod
    def key(path: str | os.PathLike[str]) -> str:
        return os.path.realpath(path)

    @classmethod
    def load(cls, *, strict: bool = False) -> TrustList:
        """The recorded list; empty when there is none. One that cannot be read trusts
        nothing (``strict``: ``InputError`` naming the file instead)."""
        from agentout.read.regular import read_regular

        path = config_dir() / TRUST_FILE
        try:
            data = json.loads(read_regular(path, MAX_BYTES))
            files = data["files"]
            if data.get("version") != _VERSION or not isinstance(files, dict):
                raise ValueError("not a list of trusted files")
            if not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items()):
                raise ValueError("not a list of trusted files")
        except FileNotFoundError:
            return cls({}, path)
        except (OSError, ValueError, KeyError, TypeError, InputError) as exc:
            if strict:
                reason = exc.message if isinstance(exc, InputError) else str(exc)
                raise InputError(
                    f"cannot read the trusted reducers ({reason})", str(path)
                ) from None
            return cls({}, path)
        return cls(files, path)

    def state(self, path: str | os.PathLike[str], digest: str | None) -> State:
        recorded = self.files.get(self.key(path))
        if recorded is None:
            return "untrusted"
        return "trusted" if digest is not None and recorded == digest else "changed"

    def add(self, path: str | os.PathLike[str], digest: str) -> None:
        self.files[self.key(path)] = digest

    def remove(self, path: str | os.PathLike[str]) -> list[str]:
        """Forget ``path`` (a file, or every file under a folder); the paths forgotten."""
        keys = {self.key(path), os.path.abspath(path)}  # a file that is gone is found as named
        gone = sorted(
            k for k in self.files if k in keys or any(k.startswith(p + os.sep) for p in keys)
        )
        for k in gone:
            del self.files[k]
        return gone

    def save(self) -> None:
        """Written atomically, 0600, in the config directory (made 0700 if it is new)."""
        text = json.dumps(
            {"version": _VERSION, "files": dict(sorted(self.files.items()))}, indent=2
        )
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        temp = self.path.with_name(f".{self.path.name}.{os.getpid()}")
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        try:
            fd = os.open(temp, flags, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as stream:
                stream.write(text + "\n")
            os.replace(temp, self.path)
        except OSError as exc:
            temp.unlink(missing_ok=True)
            raise InputError(
                f"cannot record trust ({exc.strerror or exc})", str(self.path)
            ) from None


# -- a file not trusted ---------------------------------------------------------------------

_told = False  # one line a run, whatever the number of ignored files
_unread = 256 << 10  # characters of ignored files a run may parse to say so (~60 ms)
_TOLD = KnownTexts("ignored-reducers.json", size=64)  # the file versions already named


class Ignored:
    """A project reducer file that is not trusted (or changed since): it matches nothing.
    The first one in a run that would have matched a command says so on stderr, once."""

    def __init__(self, file: SpecFile, state: State) -> None:
        self.file, self.state = file, state
        self.path = file.path

    @property
    def name(self) -> str:
        """The name the file gives itself, or its file name when it cannot be read."""
        try:
            spec = self.file.quiet_load()
        except SpecError:
            from agentout.read.visible import visible

            return visible(Path(self.path).name)
        return spec.name

    @property
    def description(self) -> str:
        try:
            return self.file.quiet_load().description
        except SpecError:
            return "cannot be read"

    @property
    def facts(self) -> tuple[str, ...]:
        return ()

    @property
    def cases(self) -> tuple[Any, ...]:
        return ()

    def matches(self, words: Sequence[str]) -> bool:
        global _told
        if _told or not self.would_match(words):
            return False
        _told = True
        version = f"{TrustList.key(self.path)} {self.file.digest}"
        if _TOLD.get(version) is None:
            _TOLD.put(version, True)
            sys.stderr.write(f"agentout: {self.why()}\n")
        return False

    def why(self) -> str:
        """The line that says this file is not used, and how to use it."""
        why = "it changed since it was trusted" if self.state == "changed" else "not trusted"
        return (
            f"{shown_path(self.path)} not used for this command: {why} "
            "(`agentout reducers trust` to use it)"
        )

    def would_match(self, words: Sequence[str]) -> bool:
        """Whether the file, were it trusted, would read this command (its ``match``)."""
        global _unread
        if _unread <= 0:
            return False
        text = self.file.text()
        if f'"{words[0]}"' not in text and f"'{words[0]}'" not in text and '"*"' not in text:
            return False  # as SpecFile.matches: most files cannot match most commands
        if len(text) > _unread:
            return False  # a folder of large files costs a run no more than this
        _unread -= len(text)
        prefixes = match_of(text)
        return any(
            len(words) >= len(prefix)
            and all(want in ("*", got) for want, got in zip(prefix, words, strict=False))
            for prefix in prefixes
        )

    def reduce(self, output: Output) -> Reduced | None:
        return None


def project_files(folder: Path | None) -> Iterator[SpecFile | Ignored]:
    """The reducer files in a project's folder, in name order: each trusted one as it
    is, the others ``Ignored``."""
    from agentout.reducers.spec_file import files_in

    files = files_in(folder)
    if not files:
        return
    trusted = TrustList.load()
    for file in files:
        listed = TrustList.key(file.path) in trusted.files  # only those are read here
        state = trusted.state(file.path, file.digest) if listed else "untrusted"
        yield file if state == "trusted" else Ignored(file, state)
