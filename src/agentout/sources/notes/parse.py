"""One Markdown note: YAML front matter, then a body read by a CommonMark parser.

Front matter is the block between a first line ``---`` and the next ``---`` (or ``...``)
line, read with PyYAML's safe loader; its fields ``id``, ``title``, ``type``, ``tags``,
``summary`` and ``links`` are used, any others ignored. The body goes through
markdown-it-py with one extra inline rule for ``[[wiki links]]``, so a link inside a code
span or a code block is text, as a reader sees it, not a link.

Links come from three places, untyped ones being ``related``:

- typed front matter links: ``links: [{to: ID, type: supports}]`` (or a bare ``- ID``);
- wiki links: ``[[target]]``, ``[[target#heading]]``, ``[[target|alias]]``,
  ``[[target#heading|alias]]`` (Obsidian's order: heading, then alias);
- Markdown links to a relative path: ``[text](other.md)``, ``[text](../a/b.md#part)``.

Targets are kept as written here; ``vault`` resolves them against the other notes.
"""

from __future__ import annotations

import datetime
import posixpath
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, NamedTuple
from urllib.parse import unquote, urlsplit

from agentout.errors import InputError
from agentout.sources.notes.summary import extract_summary, inline_text

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.rules_inline import StateInline
    from markdown_it.token import Token

__all__ = [
    "NOTE_SUFFIXES",
    "Link",
    "NoteError",
    "ParsedNote",
    "decode_note",
    "parse_note",
    "split_front_matter",
]

NOTE_SUFFIXES = (".md", ".markdown")
DEFAULT_TYPE = "note"
RELATED = "related"

_FENCE = re.compile(r"---[ \t]*\r?\n")
_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*\r?$", re.MULTILINE)
_TYPE_NAME = re.compile(r"[A-Za-z0-9_.:/-]+\Z")
_WIKI_END = re.compile(r"\]\]|[\[\n]")
# What a text field may hold as YAML reads it: ``id: 20240105`` is an int, ``id:
# 2024-01-05`` a date; each is used as its text.
_SCALARS = (str, int, float, datetime.date)


class NoteError(InputError):
    """A note that cannot be read: ``path:line: message``; the vault skips it."""

    def __init__(self, message: str, path: str, line: int | None = None) -> None:
        super().__init__(message, path, line)


class Link(NamedTuple):  # a tuple: cheap to make from the cache
    """A link as written in a note: ``via`` is ``typed``, ``wiki`` or ``markdown``.

    ``target`` is an id or a wiki name for typed and wiki links, and a vault-relative
    POSIX path for Markdown links. ``line`` is 1-based in the file.
    """

    target: str
    type: str
    via: str
    line: int
    heading: str = ""


@dataclass(frozen=True)
class ParsedNote:
    """What one file says about itself; ``id_line`` locates the id for messages."""

    path: str
    id: str
    title: str
    type: str
    tags: tuple[str, ...]
    summary: str
    links: tuple[Link, ...]
    id_line: int


def decode_note(data: bytes, path: str) -> str:
    """The file's text, or a ``NoteError`` for binary data and invalid UTF-8."""
    nul = data.find(b"\x00")
    if nul >= 0:
        raise NoteError(
            f"binary data (a NUL byte at offset {nul}), not a note", path, _line(data, nul)
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        message = f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})"
        raise NoteError(message, path, _line(data, exc.start)) from None
    return text.removeprefix("\ufeff")


def _line(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def split_front_matter(text: str, path: str) -> tuple[str | None, str, int]:
    """(front matter or None, body, number of lines before the body)."""
    opening = _FENCE.match(text)
    if opening is None:
        return None, text, 0
    close = _CLOSE.search(text, opening.end())
    if close is None:
        raise NoteError("front matter opened by '---' on line 1 is never closed", path, 1)
    front = text[opening.end() : close.start()]
    end = text.find("\n", close.end())
    body = "" if end < 0 else text[end + 1 :]
    return front, body, 2 + front.count("\n")


def _load_yaml(front: str, path: str) -> Mapping[str, Any]:
    # deferred: only reading notes pays for it. The one YAML 1.2 reader agentout has:
    # safe, alias bombs and depth refused, any error on a value located.
    from agentout.read.safe_yaml import load_documents

    try:
        documents = list(load_documents(front, path, first_line=2))
    except InputError as exc:
        raise NoteError(f"broken front matter: {exc.message}", path, exc.line or 1) from None
    value = documents[0] if documents else None
    if value is None:
        return {}
    if not isinstance(value, dict):
        kind = type(value).__name__
        raise NoteError(f"front matter must be a mapping of fields, got a {kind}", path, 2)
    return value


def _key_line(front: str, key: str) -> int:
    """The file line of a top-level front matter key (for messages and typed links)."""
    for number, line in enumerate(front.splitlines(), start=2):
        if line.startswith(f"{key}:") or line.startswith(f'"{key}":'):
            return number
    return 1


class _Front:
    """Typed access to front matter fields; a wrong type is a ``NoteError`` on its line."""

    def __init__(self, fields: Mapping[str, Any], text: str, path: str) -> None:
        self.fields, self.text, self.path = fields, text, path

    def fail(self, key: str, expected: str) -> NoteError:
        got = type(self.fields[key]).__name__
        return NoteError(
            f"front matter {key!r} must be {expected}, got a {got}", self.path, self.line(key)
        )

    def line(self, key: str) -> int:
        return _key_line(self.text, key)

    def scalar(self, key: str) -> str:
        value = self.fields.get(key)
        if value is None:
            return ""
        if isinstance(value, bool) or not isinstance(value, _SCALARS):
            raise self.fail(key, "a string")
        return " ".join(str(value).split())

    def tags(self) -> tuple[str, ...]:
        value = self.fields.get("tags")
        if value is None:
            return ()
        if isinstance(value, str):
            items: Sequence[Any] = value.replace(",", " ").split()
        elif isinstance(value, list):
            items = value
        else:
            raise self.fail("tags", "a list of strings")
        tags: dict[str, None] = {}
        for item in items:
            if isinstance(item, bool) or not isinstance(item, _SCALARS):
                raise self.fail("tags", "a list of strings")
            tag = str(item).strip().lstrip("#")
            if tag:
                tags.setdefault(tag)
        return tuple(tags)

    def links(self) -> Iterator[Link]:
        value = self.fields.get("links")
        if value is None:
            return
        if not isinstance(value, list):
            raise self.fail("links", "a list of {to: ID, type: TYPE}")
        line = self.line("links")
        for item in value:
            if isinstance(item, (str, int)) and not isinstance(item, bool):
                yield Link(str(item).strip(), RELATED, "typed", line)
                continue
            if not isinstance(item, dict) or not isinstance(item.get("to"), (str, int)):
                message = "front matter 'links' entries must be an id or {to: ID, type: TYPE}"
                raise NoteError(message, self.path, line)
            kind = item.get("type") or RELATED
            if not isinstance(kind, str) or not _TYPE_NAME.match(kind):
                # never repr() a container: YAML aliases can make it exponentially long
                shown = repr(kind[:40]) if isinstance(kind, str) else f"a {type(kind).__name__}"
                message = f"link type must be one word (letters, digits, _-.:/), got {shown}"
                raise NoteError(message, self.path, line)
            yield Link(str(item["to"]).strip(), kind, "typed", line)


def parse_note(data: bytes, path: str) -> ParsedNote:
    """Parse one note; ``path`` is vault-relative (POSIX) and names it in messages."""
    text = decode_note(data, path)
    front_text, body, offset = split_front_matter(text, path)
    front = _Front(
        _load_yaml(front_text, path) if front_text is not None else {}, front_text or "", path
    )
    tokens = _markdown().parse(body)
    note_id = front.scalar("id")
    title = front.scalar("title") or _first_heading(tokens) or _stem(path)
    links = [*front.links(), *_body_links(tokens, path, offset)]
    return ParsedNote(
        path=path,
        id=note_id or id_from_path(path),
        title=title,
        type=front.scalar("type") or DEFAULT_TYPE,
        tags=front.tags(),
        summary=extract_summary(front.scalar("summary"), tokens),
        links=tuple(link for link in links if link.target),
        id_line=front.line("id") if note_id else 1,
    )


def id_from_path(path: str) -> str:
    """The stable id of a note without one: its vault-relative path, suffix dropped."""
    for suffix in NOTE_SUFFIXES:
        if path.endswith(suffix):
            return path[: -len(suffix)]
    return path


def _stem(path: str) -> str:
    return posixpath.basename(id_from_path(path))


def _first_heading(tokens: Sequence[Token]) -> str:
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and token.tag == "h1":
            return inline_text(tokens[i + 1])
    return ""


def _body_links(tokens: Sequence[Token], path: str, offset: int) -> Iterator[Link]:
    for token in tokens:
        if token.type != "inline" or not token.children:
            continue
        line = offset + (token.map[0] if token.map else 0) + 1
        for child in token.children:
            if child.type in ("softbreak", "hardbreak"):
                line += 1
            elif child.type == "wikilink":
                yield Link(child.meta["target"], RELATED, "wiki", line, child.meta["heading"])
            elif child.type == "link_open":
                link = _markdown_link(str(child.attrs.get("href", "")), path, line)
                if link is not None:
                    yield link


def _markdown_link(href: str, path: str, line: int) -> Link | None:
    """A relative link to a Markdown file (or an extensionless path) as a vault path."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc or not parts.path:
        return None  # a web page, mail address, or a heading of this very note
    target = unquote(parts.path)
    base = "" if target.startswith("/") else posixpath.dirname(path)
    resolved = posixpath.normpath(posixpath.join(base, target.lstrip("/")))
    suffix = posixpath.splitext(resolved)[1]
    if suffix and suffix not in NOTE_SUFFIXES:
        return None  # an image, a PDF, ... not a note
    return Link(resolved, RELATED, "markdown", line, unquote(parts.fragment))


def _wikilink(state: StateInline, silent: bool) -> bool:
    """``[[target#heading|alias]]`` as one ``wikilink`` token (never across lines)."""
    start = state.pos
    if not state.src.startswith("[[", start):
        return False
    # The first "]]", "[" or newline ends the search: a link holds neither "[" nor a
    # newline, and each search stops at the next "[", so the searches of a paragraph
    # never overlap and together read it once (a search for "]]" alone read the rest
    # of the paragraph from every "[[": quadratic in "[[" x 64,000).
    found = _WIKI_END.search(state.src, start + 2)
    if found is None or found.group() != "]]":
        return False
    end = found.start()
    inner = state.src[start + 2 : end]
    if not inner.strip():
        return False
    if not silent:
        target, _, alias = inner.partition("|")
        name, _, heading = target.partition("#")
        token = state.push("wikilink", "", 0)
        token.content = alias.strip() or target.strip()
        token.meta = {"target": name.strip(), "heading": heading.strip()}
    state.pos = end + 2
    return True


def _unclosed(state: StateInline, silent: bool) -> bool:
    """A run of ``[`` with no ``]`` after it in the paragraph is text: no link, image or
    wiki link can start there. Said at once, so markdown-it never looks for the label's
    end from each of them (``[[`` x 64,000 spent most of its time there)."""
    src, start = state.src, state.pos
    if src[start] != "[" or start < _last_close(state):
        return False
    end = start + 1
    while end < state.posMax and src[end] == "[":
        end += 1
    if not silent:
        _add_text(state, src[start:end])
    state.pos = end
    return True


def _add_text(state: StateInline, text: str) -> None:
    """Append literal text to the paragraph's pending text, in amortised O(1):
    ``state.pending += text`` copies all of it each time (quadratic in ``[[a|`` x N)."""
    append = getattr(state, "append_pending", None)  # markdown-it-py 4.1 and later
    if append is not None:
        append(text)
    else:  # pragma: no cover - older markdown-it-py
        state.pending += text


def _last_close(state: StateInline) -> int:
    """Where the paragraph's last ``]`` is (-1: none), found once per paragraph."""
    known = state.env.get(_CLOSE_KEY)
    if known is None or known[0] is not state.src:
        known = (state.src, state.src.rfind("]"))
        state.env[_CLOSE_KEY] = known
    return int(known[1])


_CLOSE_KEY = "agentout.last_close"


@lru_cache(maxsize=1)
def _markdown() -> MarkdownIt:
    from markdown_it import MarkdownIt  # deferred: only reading notes pays for it

    md = MarkdownIt("commonmark")
    md.inline.ruler.before("link", "unclosed", _unclosed)
    md.inline.ruler.before("link", "wikilink", _wikilink)
    return md
