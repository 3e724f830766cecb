"""A reducer file: read and checked (``load_spec``), or used only once a command could
match it (``SpecFile``). What the file may say is in ``agentout.reducers.spec``."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from agentout.errors import InputError
from agentout.reducers.cache import KnownTexts
from agentout.reducers.model import Output, Reduced
from agentout.reducers.spec import Case, Spec, SpecError, compile_pattern

if TYPE_CHECKING:  # the paths are the callers': every command reads the reducer files
    from pathlib import Path

__all__ = ["MAX_FILE_BYTES", "SpecFile", "load_spec", "read_file", "safety_problems"]

MAX_FILE_BYTES = 32 << 10  # agentout's own are under 4 KiB


def read_file(path: str | Path) -> bytes:
    """A reducer file's bytes: a regular file of at most ``MAX_FILE_BYTES``, or
    ``SpecError`` naming it (a FIFO, a device, a directory, too large, unreadable)."""
    from agentout.read.regular import read_regular

    try:
        return read_regular(path, MAX_FILE_BYTES)
    except InputError as exc:
        raise SpecError(f"cannot read: {exc.message}", str(path)) from None
    except OSError as exc:
        raise SpecError(f"cannot read: {exc.strerror or exc}", str(path)) from None


def digest(data: bytes) -> str:
    """What trust records of a file: its SHA-256, as ``sha256:HEX``."""
    import hashlib  # OpenSSL's: loaded only when a project's files are looked at

    return "sha256:" + hashlib.sha256(data).hexdigest()


class SpecFile:
    """A reducer file, read only once a command could match it: a file whose text does not
    even name the command's first word (``"git"``) or a wildcard cannot, and every command
    looks through all of them. One that cannot be read is named on stderr, once, and not
    used (``agentout reducers verify`` says the same, with exit status 2). The file is
    read once: what is hashed for trust (``digest``) is what is used."""

    def __init__(self, path: str | Path, text: str | None = None) -> None:
        self.path = str(path)
        self._text = text
        self._bytes: bytes | None = None  # as read: what trust hashes (``digest``)
        self._digest: str | None = None
        self._problem: SpecError | None = None  # why it cannot be used
        self._loaded: Spec | None = None
        self._broken = False  # said so on stderr

    def _read(self) -> None:
        try:
            self._bytes = read_file(self.path)
            self._text = self._bytes.decode("utf-8")
        except SpecError as exc:
            self._problem, self._text = exc, ""
        except UnicodeDecodeError as exc:
            self._problem = SpecError(f"not UTF-8 ({exc.reason} at byte {exc.start})", self.path)
            self._text = ""

    def text(self) -> str:
        if self._text is None:
            self._read()
        return self._text or ""

    @property
    def digest(self) -> str | None:
        """The SHA-256 of the bytes read (None: it could not be read, or was given as text)."""
        self.text()
        if self._digest is None and self._bytes is not None:
            self._digest = digest(self._bytes)
        return self._digest

    def quiet_load(self) -> Spec:
        """The file's reducer, or the ``SpecError`` that says why there is none."""
        if self._loaded is None:
            text = self.text()
            if self._problem is None:
                try:
                    self._loaded = load_spec(self.path, text)
                except SpecError as exc:
                    self._problem = exc
            if self._problem is not None:
                raise self._problem
        assert self._loaded is not None
        return self._loaded

    def load(self) -> Spec | None:
        """The file's reducer; one that cannot be read is named on stderr, once."""
        if self._loaded is None and not self._broken:
            try:
                self.quiet_load()
            except SpecError as exc:
                self._broken = True
                sys.stderr.write(f"agentout: warning: {exc}; this reducer is not used\n")
        return self._loaded

    def matches(self, words: Sequence[str]) -> bool:
        text = self.text()
        if f'"{words[0]}"' not in text and f"'{words[0]}'" not in text and '"*"' not in text:
            return False
        spec = self.load()
        return spec is not None and spec.matches(words)

    def reduce(self, output: Output) -> Reduced | None:
        spec = self.load()
        return None if spec is None else spec.reduce(output)

    def __getattr__(self, name: str) -> Any:  # name, facts, cases, complete, description...
        if name.startswith("_"):
            raise AttributeError(name)
        spec = self.load()
        if spec is None:
            raise SpecError("cannot be read", self.path)
        return getattr(spec, name)


MAX_FILES = 32  # in one folder: each command may read them all


def files_in(folder: Path | None) -> list[SpecFile]:
    """The reducer files (``*.toml``) in ``folder``, in name order, the first
    ``MAX_FILES`` of them; none when it is not a folder."""
    if folder is None or not folder.is_dir():
        return []
    try:
        names = sorted(entry.name for entry in os.scandir(folder) if entry.name.endswith(".toml"))
    except OSError:
        return []
    return [SpecFile(folder / name) for name in names[:MAX_FILES]]


def match_of(text: str) -> tuple[tuple[str, ...], ...]:
    """The ``match`` prefixes a reducer file's text declares (none when it cannot be read
    as TOML): what an ignored file would match, known without checking the rest."""
    try:
        match = _parsed(text, "").get("match")
    except SpecError:
        return ()
    if not isinstance(match, list):
        return ()
    return tuple(
        tuple(prefix)
        for prefix in match
        if isinstance(prefix, list) and prefix and all(isinstance(w, str) for w in prefix)
    )


# -- reading a file ---------------------------------------------------------------------------

_STEP_KINDS = ("skip", "keep", "replace", "section", "group", "dedupe", "collapse", "important")
_REQUIRED = {
    "section": ("start", "label"),
    "group": ("pattern", "key", "header", "item"),
    "dedupe": ("pattern", "key", "line", "message"),
    "collapse": ("pattern",),
}


_KNOWN = KnownTexts("reducer-files.json")  # checked data of the files read before
_RULES = 2  # what the checks demand; data cached under other rules is checked again


def load_spec(path: str | Path, text: str | None = None, *, check: bool = False) -> Spec:
    """Read a reducer file; ``SpecError`` naming the file and the key for anything wrong.

    Every pattern, ``facts`` included, must compile in RE2 (linear time: no pattern a
    repository ships can stall agentout). A text read and checked before is rebuilt
    from its data in the user cache (``cache``); ``check`` checks it again."""
    name = str(path)
    if text is None:
        try:
            text = read_file(path).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise SpecError(f"not UTF-8 ({exc.reason} at byte {exc.start})", name) from None
    known = None if check else _KNOWN.get(text)
    if isinstance(known, dict) and known.get("rules") == _RULES:
        try:
            return _built(known["data"], name)
        except (KeyError, TypeError, ValueError, AttributeError, SpecError):
            pass  # not data this version wrote: read the text
    data = _parsed(text, name)
    _check(data, name)
    _KNOWN.put(text, {"rules": _RULES, "data": data})
    return _built(data, name)


def _parsed(text: str, name: str) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = getattr(exc, "lineno", None)
        raise SpecError(f"not valid TOML ({exc})", name, line) from None
    except RecursionError:  # tomllib reads nested arrays and tables by recursion
        raise SpecError("not valid TOML (nested too deeply)", name) from None


def _check(data: dict[str, Any], name: str) -> None:
    """Everything ``load_spec`` promises about a file's data, or SpecError."""
    spec_name = data.get("name")
    if not isinstance(spec_name, str) or not spec_name:
        raise SpecError("name: expected a non-empty string", name)
    description = data.get("description", "")
    if not isinstance(description, str):
        raise SpecError("description: expected a string", name)
    if "complete" in data and not isinstance(data["complete"], bool):
        raise SpecError("complete: expected true or false", name)
    match = data.get("match")
    if (
        not isinstance(match, list)
        or not match
        or not all(isinstance(p, list) and p and all(isinstance(w, str) for w in p) for p in match)
    ):
        raise SpecError('match: expected a list of word lists, e.g. [["git", "status"]]', name)
    facts = data.get("facts", [])
    if not isinstance(facts, list) or not all(isinstance(f, str) for f in facts):
        raise SpecError("facts: expected a list of patterns", name)
    for i, fact in enumerate(facts):  # read line by line, as agentout.reducers.facts reads
        compile_pattern(fact, f"facts[{i}]", name, lines=True)
    steps = data.get("step", [])
    if not isinstance(steps, list):
        raise SpecError("step: expected [[step]] tables", name)
    checked = [_check_step(step, i, name) for i, step in enumerate(steps)]
    cases = data.get("case", [])
    if not isinstance(cases, list):
        raise SpecError("case: expected [[case]] tables", name)
    for i, case in enumerate(cases):
        _check_case(case, i, name)
    words = [
        (f"match[{i}][{j}]", w) for i, prefix in enumerate(match) for j, w in enumerate(prefix)
    ]
    shown = [("name", spec_name), ("description", description), *words]
    problems = safety_problems([*shown, *_written(checked)])
    if problems:
        raise SpecError(f"refused: {problems[0]}", name)


def _built(data: dict[str, Any], name: str) -> Spec:
    """The Spec of data that ``_check`` passed."""
    return Spec(
        data["name"],
        str(data.get("description", "")),
        tuple(tuple(prefix) for prefix in data["match"]),
        tuple(data.get("facts", [])),
        tuple(data.get("step", [])),
        name,
        tuple(
            Case(
                case["fixture"],
                tuple(case.get("contains", [])),
                tuple(case.get("not_contains", [])),
            )
            for case in data.get("case", [])
        ),
        data.get("complete", False) is True,
    )


def _check_step(step: Any, i: int, path: str) -> dict[str, Any]:
    where = f"step[{i}]"
    if not isinstance(step, dict) or len(step) != 1 or next(iter(step)) not in _STEP_KINDS:
        raise SpecError(f"{where}: expected one of {', '.join(_STEP_KINDS)}", path)
    kind, value = next(iter(step.items()))
    if kind in ("skip", "keep", "important"):
        if not isinstance(value, list):
            raise SpecError(f"{where}.{kind}: expected a list of patterns", path)
        for j, pattern in enumerate(value):
            compile_pattern(pattern, f"{where}.{kind}[{j}]", path)
    elif kind == "replace":
        if not isinstance(value, list) or not all(
            isinstance(r, dict) and isinstance(r.get("with"), str) for r in value
        ):
            raise SpecError(f"{where}.replace: expected [{{pattern, with}}, ...]", path)
        for j, rule in enumerate(value):
            compile_pattern(rule.get("pattern"), f"{where}.replace[{j}].pattern", path)
    else:
        if not isinstance(value, dict):
            raise SpecError(f"{where}.{kind}: expected a table", path)
        for key in _REQUIRED[kind]:
            if not isinstance(value.get(key), str):
                raise SpecError(f"{where}.{kind}.{key}: expected a string", path)
        for key in ("start", "item", "stop", "pattern"):
            if key in value:
                compile_pattern(value[key], f"{where}.{kind}.{key}", path)
    return {kind: value}


_WRITTEN = {  # the keys of each step whose text goes into the output
    "replace": ("with",),
    "section": ("label", "template", "join"),
    "group": ("header", "item", "rest"),
    "dedupe": ("line", "message", "title"),
}


def _written(steps: Sequence[dict[str, Any]]) -> Iterator[tuple[str, str]]:
    """(where, text) for every text a reducer's steps write into its output."""
    for i, step in enumerate(steps):
        kind, value = next(iter(step.items()))
        keys = _WRITTEN.get(kind, ())
        for j, table in enumerate(value if isinstance(value, list) else [value]):
            for key in keys:
                if isinstance(table, dict) and isinstance(table.get(key), str):
                    where = f"step[{i}].{kind}" + (f"[{j}]" if isinstance(value, list) else "")
                    yield f"{where}.{key}", table[key]


def _check_case(case: Any, i: int, path: str) -> Case:
    """A case's fixture is a folder inside the reducer file's own (``verify`` resolves
    symlinks and checks again); its strings are strings."""
    where = f"case[{i}]"
    if not isinstance(case, dict) or not isinstance(case.get("fixture"), str):
        raise SpecError(f"{where}.fixture: expected a directory name", path)
    fixture = case["fixture"].replace("\\", "/")
    if not fixture or os.path.isabs(fixture) or ".." in fixture.split("/") or ":" in fixture:
        raise SpecError(
            f"{where}.fixture: {case['fixture']!r} is not a folder inside the reducer's own", path
        )
    lists = {}
    for key in ("contains", "not_contains"):
        value = case.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise SpecError(f"{where}.{key}: expected a list of strings", path)
        lists[key] = tuple(value)
    return Case(case["fixture"], lists["contains"], lists["not_contains"])


# -- what a reducer file may not say ---------------------------------------------------------

_MARKERS = ("[agentout", "[… ", "[exit ", "[secret:")
_HIDDEN = {
    *range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0), 0x061C, 0x200B, 0x200C,
    0x200D, 0x200E, 0x200F, *range(0x2028, 0x202F), *range(0x2060, 0x2065),
    *range(0x2066, 0x206A), 0xFEFF, *range(0xE0000, 0xE0080),
}  # fmt: skip


def safety_problems(texts: Iterable[tuple[str, str]]) -> list[str]:
    """For each (where, text) a reducer writes into its output: a marker agentout prints
    itself, or a character that hides or reorders text, is a problem."""
    problems = []
    for where, text in texts:
        for marker in _MARKERS:
            if marker in text:
                problems.append(f"{where}: {marker!r} is how agentout's own markers begin")
        hidden = sorted({f"U+{ord(c):04X}" for c in text if ord(c) in _HIDDEN})
        if hidden:
            problems.append(f"{where}: hidden or reordering characters {', '.join(hidden)}")
    return problems
