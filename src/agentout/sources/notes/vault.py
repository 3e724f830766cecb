"""A folder of notes: found, parsed (or taken from the cache), ids checked, links resolved.

Every ``*.md`` / ``*.markdown`` file under the folder is a note, hidden files and folders
(``.obsidian``, ``.git``) aside. A file symlink is read when the file it resolves to is
inside the folder, and refused (skipped, named) when it is outside: a vault cloned from
elsewhere must not read the user's other files. Folder symlinks are never followed: one
pointing inside would read notes twice (or loop), one pointing outside is reported. A
file that cannot be a note (broken front matter, binary data, over the size limit, an
id another file has already taken) is skipped with a ``NoteError`` naming it, and the
rest is served.

The cache keeps what parsing found for each file, keyed by its size and modification
time, so a second load parses only the files that changed. It lives in agentout's own
cache directory (``$AGENTOUT_CACHE_DIR/notes`` or the user cache dir's ``notes``), never
in the vault: a private directory (0700) of files (0600) written atomically, one per
vault. A cache file that cannot be read is ignored (and rewritten); a cache folder that
is not private (a symlink, another user's) or cannot be written is reported, not used.
It holds no secret (``agentout.redact``): a note whose title, summary, tags or links hold
one is kept as a mark that says to parse it again, under a digest of its path when the
path holds one too.
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import gc
import hashlib
import json
import os
import posixpath
import stat
import tempfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentout.dirs import private_dir
from agentout.errors import AgentoutError, InputError, SpillError
from agentout.sources.notes.graph import Edge, Graph
from agentout.sources.notes.parse import (
    NOTE_SUFFIXES,
    Link,
    NoteError,
    ParsedNote,
    decode_note,
    id_from_path,
    parse_note,
    split_front_matter,
)

__all__ = [
    "ENV_CACHE_DIR",
    "MAX_NOTE_BYTES",
    "UnknownNoteError",
    "Vault",
    "default_cache_dir",
    "load_vault",
    "paused_gc",
]

ENV_CACHE_DIR = "AGENTOUT_CACHE_DIR"
MAX_NOTE_BYTES = 10 * 1024 * 1024
# Bump when parsing changes what it finds: older caches are then ignored, not misread.
_CACHE_VERSION = 2
# What a cache entry holds for a note with a secret in it: only that it must be parsed.
_SECRET = "secret"


class UnknownNoteError(AgentoutError):
    """An id asked for that no note in the vault has."""


@dataclass(frozen=True)
class Vault:
    """The notes of one folder by id (in id order), their edges, and the files skipped.

    ``name`` is the folder as the caller gave it; messages name files under it.
    ``parsed`` counts the files parsed by this load, the others came from the cache.
    """

    root: Path
    name: str
    notes: Mapping[str, ParsedNote]
    graph: Graph
    problems: tuple[NoteError, ...]
    files: int
    parsed: int
    cache_warning: str | None = None
    _lookup: Mapping[str, str] = field(default_factory=dict, repr=False)

    @property
    def skipped(self) -> int:
        return len(self.problems)

    def find(self, name: str) -> str:
        """The id of the note ``name`` designates: an id, a path, or a file name."""
        found = _resolve_name(name, self._lookup)
        if found is None:
            close = difflib.get_close_matches(name, list(self.notes), n=3)
            hint = f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""
            raise UnknownNoteError(f"no note {name!r} in {self.name}{hint}")
        return found

    def body(self, note_id: str) -> str:
        """The note's Markdown body as the file has it now, front matter left out."""
        note = self.notes[note_id]
        display = self.display(note.path)
        outcome = _read_note(self.root, note.path, self.name)
        if isinstance(outcome, NoteError):
            raise NoteError(outcome.message, display) from None
        _, body, _ = split_front_matter(decode_note(outcome, display), display)
        return body.strip("\n")

    def display(self, relative: str) -> str:
        return _display(self.name, relative)


def _display(name: str, relative: str) -> str:
    """How messages name a note file: under the folder as the user gave it."""
    return posixpath.join(name, relative) if name not in ("", ".") else relative


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cycle collector while making many acyclic objects, then restore it.

    A large vault makes hundreds of thousands of small tuples and strings; the collector,
    triggered by allocation counts alone, would rescan them all again and again (it
    roughly doubles the time of a warm load). Nothing made here forms a cycle.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def default_cache_dir() -> Path:
    configured = os.environ.get(ENV_CACHE_DIR)
    if configured:
        return Path(configured).expanduser() / "notes"
    from agentout.dirs import user_dir

    return user_dir("cache") / "notes"


def load_vault(
    root: str | os.PathLike[str],
    *,
    cache: bool = True,
    cache_dir: Path | None = None,
    max_note_bytes: int = MAX_NOTE_BYTES,
) -> Vault:
    """Load the notes under ``root``; see the module docstring for what is skipped."""
    with paused_gc():
        return _load(root, cache, cache_dir, max_note_bytes)


def _load(
    root: str | os.PathLike[str], cache: bool, cache_dir: Path | None, max_note_bytes: int
) -> Vault:
    name = os.fspath(root)
    path = Path(root)
    if not path.is_dir():
        if not path.exists():
            raise InputError("no such folder", name)
        raise InputError("not a folder of notes", name)
    cache_file, warning = None, None
    if cache:
        directory = cache_dir or default_cache_dir()
        try:  # checked before reading too: a cache another user can write is no cache
            private_dir(directory, "the notes cache")
            cache_file = _cache_file(path, directory)
        except SpillError as exc:
            warning = str(exc)
        except OSError as exc:
            warning = f"cannot use the notes cache in {directory}: {exc.strerror or exc}"
    cached = _read_cache(cache_file) if cache_file else {}
    fresh: dict[str, Any] = {}
    parsed: list[ParsedNote] = []
    problems: list[NoteError] = []
    files = reparsed = 0
    display = functools.partial(_display, name)

    stale = 0  # files parsed whose cache entry must change
    for relative, info in _walk(path, name, problems, display):
        files += 1
        if info.st_size > max_note_bytes:
            limit = f"{info.st_size:,} bytes, over the {max_note_bytes:,}-byte limit"
            problems.append(NoteError(f"note is {limit}; skipped", display(relative)))
            continue
        key = [info.st_size, info.st_mtime_ns]
        entry = cached.get(relative)
        if entry is None and cached:  # a path with a secret is kept under its digest
            entry = cached.get(_secret_path_key(relative))
        outcome = _from_cache(entry, key, relative) if entry is not None else None
        if outcome is None:
            reparsed += 1
            outcome = _parse_file(path, relative, name)
            if not _secret_mark(entry, key):
                stale += 1
                entry = [*key, _to_cache(outcome)]
        fresh[relative] = entry
        if isinstance(outcome, NoteError):
            problems.append(NoteError(outcome.message, display(relative), outcome.line))
        else:
            parsed.append(outcome)

    if cache_file is not None and (stale or len(fresh) != len(cached)):
        warning = _write_cache(cache_file, path, fresh)
    notes = _unique(parsed, problems, display)
    lookup = _lookup_table(notes)
    graph = Graph(_edges(notes, lookup))
    problems.sort(key=lambda p: (p.path or "", p.line or 0))
    return Vault(path, name, notes, graph, tuple(problems), files, reparsed, warning, lookup)


# -- finding and parsing files ------------------------------------------------------------


def _walk(
    root: Path, name: str, problems: list[NoteError], display: Callable[[str], str]
) -> Iterator[tuple[str, os.stat_result]]:
    """(vault-relative POSIX path, stat) of every note file, in path order (the names in
    each folder sorted by code point, a subfolder's notes where its name sorts); symlinks
    as the module docstring says."""
    real_root = os.path.realpath(root)

    def scan(directory: str, prefix: str) -> Iterator[tuple[str, os.stat_result]]:
        try:
            with os.scandir(directory) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
        except OSError as exc:
            problems.append(NoteError(f"cannot list: {exc.strerror}", display(prefix or ".")))
            return
        for entry in entries:
            if entry.name.startswith("."):
                continue
            relative = prefix + entry.name
            is_dir = entry.is_dir(follow_symlinks=False)
            if not _is_text(entry.name):  # ids and paths are shown to the agent as text
                if is_dir or entry.name.endswith(NOTE_SUFFIXES):
                    message = _NOT_TEXT[is_dir]
                    problems.append(NoteError(message, _escaped(display(relative))))
                continue
            if is_dir:
                yield from scan(entry.path, relative + "/")
                continue
            if entry.is_symlink() and not _inside(real_root, entry.path):
                if entry.is_dir():
                    message = f"a symlink to a folder outside {name or '.'}; not followed"
                    problems.append(NoteError(message, display(relative)))
                elif entry.name.endswith(NOTE_SUFFIXES):
                    problems.append(NoteError(_outside(name), display(relative)))
                continue
            if entry.name.endswith(NOTE_SUFFIXES):
                try:
                    info = entry.stat()  # follows a file symlink (inside the folder)
                except OSError as exc:
                    problems.append(NoteError(f"cannot read: {exc.strerror}", display(relative)))
                    continue
                if stat.S_ISREG(info.st_mode):
                    yield relative, info

    yield from scan(os.fspath(root), "")


_NOT_TEXT = {
    False: "the file name is not UTF-8; rename it to read it as a note",
    True: "the folder name is not UTF-8; rename it to read its notes",
}


def _is_text(name: str) -> bool:
    """False for a name with bytes that are not UTF-8 (os.listdir escapes them, PEP 383)."""
    if name.isascii():
        return True
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _escaped(path: str) -> str:
    """``path`` with its bytes that are not UTF-8 shown as ``\\xNN``."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def _inside(real_root: str, path: str) -> bool:
    """Does ``path``, symlinks resolved, lie inside the folder whose real path is given?"""
    real = os.path.realpath(path)
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


def _outside(name: str) -> str:
    return f"a symlink to a file outside {name or '.'}; skipped"


def _read_note(root: Path, relative: str, name: str) -> bytes | NoteError:
    """The file's bytes; checked again at reading, as a file may become a symlink."""
    path = root / relative
    try:
        if path.is_symlink() and not _inside(os.path.realpath(root), os.fspath(path)):
            return NoteError(_outside(name), relative)
        return path.read_bytes()
    except OSError as exc:
        return NoteError(f"cannot read: {exc.strerror}", relative)


def _parse_file(root: Path, relative: str, name: str) -> ParsedNote | NoteError:
    data = _read_note(root, relative, name)
    if isinstance(data, NoteError):
        return data
    try:
        return parse_note(data, relative)
    except NoteError as exc:
        return exc
    except RecursionError:  # a pathological nesting depth in the Markdown itself
        return NoteError("Markdown nested too deeply to read", relative)


def _unique(
    parsed: list[ParsedNote], problems: list[NoteError], display: Callable[[str], str]
) -> dict[str, ParsedNote]:
    """Notes by id, in id order; a second file with a taken id is skipped, naming both."""
    by_id: dict[str, ParsedNote] = {}
    for note in parsed:  # path order: the first file keeps the id
        first = by_id.get(note.id)
        if first is not None:
            other = f"{display(first.path)}:{first.id_line}"
            message = f"duplicate id {note.id!r}, already taken by {other}; skipped"
            problems.append(NoteError(message, display(note.path), note.id_line))
            continue
        by_id[note.id] = note
    return {note_id: by_id[note_id] for note_id in sorted(by_id)}


# -- resolving links ----------------------------------------------------------------------


def _lookup_table(notes: Mapping[str, ParsedNote]) -> dict[str, str]:
    """Every name a link may use for a note -> its id, strongest claim first.

    Ids, then paths (with and without suffix), then file names; then the same folded
    to lower case. A weaker name never takes a stronger one's place; among equals, the
    note first in id order wins.
    """
    tiers: list[dict[str, str]] = [{}, {}, {}]
    for note_id, note in notes.items():
        tiers[0].setdefault(note_id, note_id)
        tiers[1].setdefault(note.path, note_id)
        tiers[1].setdefault(id_from_path(note.path), note_id)
        tiers[2].setdefault(posixpath.basename(id_from_path(note.path)), note_id)
    table: dict[str, str] = {}
    for tier in tiers:
        for name, note_id in tier.items():
            table.setdefault(name, note_id)
    for tier in tiers:
        for name, note_id in tier.items():
            table.setdefault("\0" + name.casefold(), note_id)
    return table


def _resolve_name(name: str, table: Mapping[str, str]) -> str | None:
    name = name.strip()
    return table.get(name) or table.get("\0" + name.casefold())


def _edges(notes: Mapping[str, ParsedNote], table: Mapping[str, str]) -> Iterator[Edge]:
    """Each note's links as edges: one per (source, target, type), the first written kept
    (typed front matter links come before body links), links to the note itself dropped."""
    seen: set[tuple[str, str, str]] = set()
    for note_id, note in notes.items():
        for link in note.links:
            edge = _edge(note_id, link, table)
            if edge is None or edge.target == note_id:
                continue
            key = (edge.source, edge.target, edge.type)
            if key not in seen:
                seen.add(key)
                yield edge


def _edge(source: str, link: Link, table: Mapping[str, str]) -> Edge | None:
    if link.via == "markdown":
        target = table.get(link.target) or table.get(id_from_path(link.target))
        if target is None and not link.target.endswith(NOTE_SUFFIXES):
            return None  # an extensionless path that is no note: a folder, a page
    else:
        target = _resolve_name(link.target, table)
        if target is None and link.target.endswith(NOTE_SUFFIXES):
            target = _resolve_name(id_from_path(link.target), table)
    if target is None:
        return Edge(source, link.target, link.type, link.via, link.line, link.heading, True)
    return Edge(source, target, link.type, link.via, link.line, link.heading)


# -- the cache ----------------------------------------------------------------------------


def _cache_file(root: Path, cache_dir: Path) -> Path:
    digest = hashlib.sha256(os.fsencode(root.resolve())).hexdigest()[:32]
    return cache_dir / f"vault-{digest}.json"


def _read_cache(cache_file: Path) -> dict[str, Any]:
    """The cached entries by path; anything unexpected reads as an empty cache."""
    try:  # surrogateescape: file names that are not UTF-8, as _write_cache wrote them
        data = json.loads(cache_file.read_bytes().decode("utf-8", "surrogateescape"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("version") != _stamp():
        return {}
    files = data.get("files")
    return files if isinstance(files, dict) else {}


def _stamp() -> str:
    from agentout._version import __version__

    return f"{_CACHE_VERSION}:{__version__}"


def _to_cache(outcome: ParsedNote | NoteError) -> list[Any]:
    if isinstance(outcome, NoteError):
        return ["error", outcome.message, outcome.line]
    links = [[k.target, k.type, k.via, k.line, k.heading] for k in outcome.links]
    return [
        "note",
        outcome.id,
        outcome.title,
        outcome.type,
        list(outcome.tags),
        outcome.summary,
        links,
        outcome.id_line,
    ]


def _from_cache(entry: Any, key: list[int], relative: str) -> ParsedNote | NoteError | None:
    """The cached outcome if the file is unchanged and the entry well formed, else None."""
    try:
        size, mtime, payload = entry
        if [size, mtime] != key:
            return None
        if payload[0] == "error":
            return NoteError(str(payload[1]), relative, payload[2])
        _, note_id, title, kind, tags, summary, links, id_line = payload
        return ParsedNote(
            path=relative,
            id=note_id,
            title=title,
            type=kind,
            tags=tuple(tags),
            summary=summary,
            links=tuple(Link(*link) for link in links),
            id_line=id_line,
        )
    except (TypeError, ValueError, IndexError):
        return None


def _secret_path_key(relative: str) -> str:
    """The key of a note whose path holds a secret: a digest, never the path."""
    digest = hashlib.sha256(relative.encode("utf-8", "surrogateescape")).hexdigest()
    return f"\0{digest[:32]}"


def _secret_mark(entry: Any, key: list[int]) -> bool:
    """Whether ``entry`` says the unchanged file holds a secret: parsed, not cached."""
    try:
        size, mtime, payload = entry
        return bool([size, mtime] == key and payload == [_SECRET])
    except (TypeError, ValueError):
        return False


def _strings(value: Any) -> list[str]:
    """Every string in a cache entry's payload, nested lists included."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    return []


def _without_secrets(root: str, files: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """The root and entries to write, none holding a secret: a note that holds one is a
    mark (``_SECRET``), under its path's digest when the path holds one. One scan of
    everything finds that nothing does, as it mostly is; only then entry by entry."""
    from agentout.redact import default_redactor

    redactor = default_redactor()

    def holds(texts: list[str]) -> bool:
        joined = "\n".join(texts)
        return bool(joined) and redactor.redact_text(joined)[0] != joined

    texts = [root, *files]
    for entry in files.values():
        texts += _strings(entry)
    if not redactor.enabled or not holds(texts):
        return root, dict(files)
    clean: dict[str, Any] = {}
    for relative, (size, mtime, payload) in files.items():
        if payload != [_SECRET] and holds(_strings(payload)):
            payload = [_SECRET]
        if holds([relative]):
            clean[_secret_path_key(relative)] = [size, mtime, [_SECRET]]
        else:
            clean[relative] = [size, mtime, payload]
    return ("" if holds([root]) else root), clean


def _write_cache(cache_file: Path, root: Path, files: Mapping[str, Any]) -> str | None:
    """Write the cache atomically (0600 temporary file, then rename); a message if not."""
    place, entries = _without_secrets(os.fsdecode(root.resolve()), files)
    document = {"version": _stamp(), "root": place, "files": entries}
    temp: str | None = None
    try:
        fd, temp = tempfile.mkstemp(prefix=".vault-", suffix=".tmp", dir=cache_file.parent)
        text = json.dumps(document, ensure_ascii=False, separators=(",", ":"))
        with os.fdopen(fd, "wb") as out:  # dumps, not dump: dump encodes in small pieces
            # a file name that is not UTF-8 comes from os.listdir with its bytes escaped
            # as lone surrogates (PEP 383): written back as those bytes
            out.write(text.encode("utf-8", "surrogateescape"))
        os.replace(temp, cache_file)
        temp = None
    except OSError as exc:
        return f"cannot write the notes cache in {cache_file.parent}: {exc.strerror or exc}"
    except ValueError as exc:  # what JSON or UTF-8 cannot hold: the notes are served uncached
        return f"cannot write the notes cache in {cache_file.parent}: {exc}"
    finally:
        if temp is not None:
            with contextlib.suppress(OSError):
                os.unlink(temp)
    return None
