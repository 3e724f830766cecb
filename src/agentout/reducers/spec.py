"""Reducers as data: a TOML file says what a reducer matches, its steps and its facts.

::

    name = "git/status"
    description = "git status as staged / unstaged / untracked lists"
    match = [["git", "status"]]          # prefixes of the command's words; "*" is any word
    complete = true                      # it drops only fixed text (hints): nothing to store
    facts = ['^\\t(?:modified|new file|deleted):\\s+(\\S.*)$']   # Python re; every match kept

    [[step]]
    skip = ['^\\s+\\(use "git ']          # drop lines matching any of these

    [[step]]
    section = { start = '^Untracked files:', label = "untracked:", item = '^\\t(?P<path>.+)$' }

The output is a list of blocks, one per line of the command's output at first, each
knowing the output lines it stands for. Steps, in order:

- ``skip = [re, ...]``: drop lines that match; ``keep = [re, ...]``: keep only those.
- ``replace = [{pattern = re, with = template}, ...]``: the first rule that matches a
  line rewrites it (``{name}`` is a named group, ``{0}`` the whole match).
- ``section = {start, label, item?, template?, join?, stop?}``: the lines after a
  ``start`` line (its named groups fill ``label``) that match ``item`` (default: any
  non-blank line, as ``{item}``), up to a blank line or a ``stop`` line, become one
  line: ``label`` then the items (each as ``template``) joined by ``join`` (", ").
- ``group = {pattern, key, header, item, terse?, join?}``: consecutive lines matching
  ``pattern`` with the same ``key`` group become one block: ``header`` once, then each
  line as ``item`` (all on the header's line, joined by ``join``, if it is given); under
  a tight budget the block shows its first ``terse`` items (1) and says how many more.
- ``dedupe = {pattern, key, line, message, title?}``: each matching line becomes
  ``line`` and the first ``message`` of each ``key`` is said once, in one block at the
  end (``title``, then ``KEY: message (×N)``).
- ``collapse = {pattern, min?}``: a run of at least ``min`` (3) lines that match is its
  first line and ``[… N more like it]``.
- ``important = [re, ...]``: blocks with a matching line come first when the budget
  decides what is left out (the rest keep their order; the last blocks next).

Patterns are RE2 (linear time, so no pattern a project ships can stall agentout);
templates use ``{name}`` for named groups and ``{count}`` where a count is meant.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from agentout.errors import InputError
from agentout.reducers import Output, Reduced
from agentout.reducers.cache import KnownTexts
from agentout.value import Value

__all__ = ["Case", "Spec", "SpecError", "SpecFile", "load_spec", "safety_problems"]


class SpecError(InputError):
    """A reducer file that cannot be used: named with its path and the key at fault."""


class _Block:
    """Lines of the reduced output, the output lines they stand for, a terse form."""

    __slots__ = ("important", "last", "lines", "n", "terse")

    def __init__(
        self,
        lines: list[str],
        n: int | None,
        last: int | None,
        terse: list[str] | None = None,
        important: bool = False,
    ) -> None:
        self.lines, self.n, self.last, self.terse, self.important = lines, n, last, terse, important


class Case(Value):
    """A fixture case: recorded output and what the reduced form must (not) contain.
    ``fixture`` is a directory with ``cmd`` (argv as JSON), ``output`` and ``exit``."""

    fixture: str
    contains: tuple[str, ...]
    not_contains: tuple[str, ...]

    def __init__(
        self, fixture: str, contains: tuple[str, ...] = (), not_contains: tuple[str, ...] = ()
    ) -> None:
        self._set(fixture=fixture, contains=contains, not_contains=not_contains)


def _compile(pattern: Any, where: str, path: str) -> Any:
    import re2

    if not isinstance(pattern, str):
        raise SpecError(f"{where}: expected a pattern (a string)", path)
    try:
        return re2.compile(pattern)
    except re2.error as exc:
        raise SpecError(f"{where}: {pattern!r} is not a valid RE2 pattern ({exc})", path) from None


_FIELD = re.compile(r"\{(\w+)\}")


def _fill(template: str, match: Any) -> str:
    """``template`` with each ``{name}`` replaced by that group (``{0}``: the match)."""
    values = {k: v or "" for k, v in match.groupdict().items()}
    values["0"] = match.group(0)
    return _FIELD.sub(lambda field: str(values.get(field.group(1), field.group(0))), template)


class Spec(Value):
    """A reducer read from TOML (see the module docstring); a ``Reducer``."""

    name: str
    description: str
    match: tuple[tuple[str, ...], ...]
    facts: tuple[str, ...]
    steps: tuple[dict[str, Any], ...]
    path: str
    cases: tuple[Case, ...]
    complete: bool
    _compiled: dict[str, Any]  # patterns compiled as they are first used

    def __init__(
        self,
        name: str,
        description: str,
        match: tuple[tuple[str, ...], ...],
        facts: tuple[str, ...],
        steps: tuple[dict[str, Any], ...],
        path: str = "<builtin>",
        cases: tuple[Case, ...] = (),
        complete: bool = False,
    ) -> None:
        self._set(
            name=name, description=description, match=match, facts=facts, steps=steps,
            path=path, cases=cases, complete=complete, _compiled={},
        )  # fmt: skip

    def matches(self, words: Sequence[str]) -> bool:
        return any(
            len(words) >= len(prefix)
            and all(want in ("*", got) for want, got in zip(prefix, words, strict=False))
            for prefix in self.match
        )

    def _re(self, pattern: str) -> Any:
        found = self._compiled.get(pattern)
        if found is None:
            found = self._compiled[pattern] = _compile(pattern, "pattern", self.path)
        return found

    def reduce(self, output: Output) -> Reduced | None:
        blocks = [_Block([line], n, n) for n, line in enumerate(output.lines, start=1)]
        for step in self.steps:
            blocks = self._apply(step, blocks)
        records = [_record(block) for block in blocks if block.lines]
        order = [i for i, block in enumerate(b for b in blocks if b.lines) if block.important]
        rest = [i for i in range(len(records)) if i not in set(order)]
        tail = rest[len(rest) // 2 :][::-1]  # then the last blocks, then the first
        ordered = order + tail + [i for i in rest if i not in set(tail)]
        return Reduced(records, ordered, complete=self.complete)

    # -- the steps --------------------------------------------------------------------------

    def _apply(self, step: dict[str, Any], blocks: list[_Block]) -> list[_Block]:
        kind = next(iter(step))
        value = step[kind]
        if kind == "skip":
            patterns = [self._re(p) for p in value]
            return _map_lines(blocks, lambda line: None if _any(patterns, line) else line)
        if kind == "keep":
            patterns = [self._re(p) for p in value]
            return _map_lines(blocks, lambda line: line if _any(patterns, line) else None)
        if kind == "replace":
            rules = [(self._re(rule["pattern"]), rule["with"]) for rule in value]
            return _map_lines(blocks, lambda line: _replace(rules, line))
        if kind == "important":
            patterns = [self._re(p) for p in value]
            for block in blocks:
                block.important = block.important or any(_any(patterns, x) for x in block.lines)
            return blocks
        if kind == "section":
            return self._section(value, blocks)
        if kind == "group":
            return self._group(value, blocks)
        if kind == "dedupe":
            return self._dedupe(value, blocks)
        if kind == "collapse":
            return self._collapse(value, blocks)
        raise SpecError(f"step: unknown kind {kind!r}", self.path)  # pragma: no cover

    def _section(self, spec: dict[str, Any], blocks: list[_Block]) -> list[_Block]:
        start = self._re(spec["start"])
        item = self._re(spec.get("item", r"^\s*(?P<item>\S.*?)\s*$"))
        stop = self._re(spec["stop"]) if "stop" in spec else None
        template, join = spec.get("template", "{item}"), spec.get("join", ", ")
        out: list[_Block] = []
        current: _Block | None = None
        items: list[str] = []

        label = spec["label"]

        def close() -> None:
            if current is not None:
                current.lines = [label + (" " + join.join(items) if items else "")]

        for block in blocks:
            line = block.lines[0] if len(block.lines) == 1 else None
            if line is not None and (opened := start.search(line)):
                close()
                current, items = _Block([], block.n, block.last), []
                label = _fill(spec["label"], opened)
                out.append(current)
                continue
            if current is not None and line is not None:
                if not line.strip():  # a blank line ends a section that has items
                    if items:
                        close()
                        current = None
                    continue
                found = item.search(line)
                if found and not (stop is not None and stop.search(line)):
                    items.append(_fill(template, found))
                    current.last = block.last
                    continue
            close()
            current = None
            out.append(block)
        close()
        return out

    def _group(self, spec: dict[str, Any], blocks: list[_Block]) -> list[_Block]:
        pattern = self._re(spec["pattern"])
        key_of, header, item = spec["key"], spec["header"], spec["item"]
        terse_items = int(spec.get("terse", 1))
        joined: str | None = spec.get("join")
        headers: dict[int, str] = {}

        def header_text(group: _Block) -> str:
            return headers[id(group)]

        out: list[_Block] = []
        current: tuple[str, _Block, list[str]] | None = None
        for block in blocks:
            found = pattern.search(block.lines[0]) if len(block.lines) == 1 else None
            if found is None:
                current = None
                out.append(block)
                continue
            key = _fill(key_of, found)
            if current is None or current[0] != key:
                group = _Block([_fill(header, found)], block.n, block.last)
                headers[id(group)] = group.lines[0]
                current = (key, group, [])
                out.append(group)
            _, group, items = current
            items.append(_fill(item, found))
            if joined is not None:  # the items on the header's line
                group.lines = [header_text(group) + " " + joined.join(items)]
                group.last = block.last
                continue
            group.lines = [group.lines[0], *items]
            group.last = block.last
            group.important = group.important or block.important
            more = len(items) - terse_items
            group.terse = [group.lines[0], *items[:terse_items]]
            if more > 0:
                group.terse.append(f"  [… {more} more]")
            else:
                group.terse = None
        return out

    def _dedupe(self, spec: dict[str, Any], blocks: list[_Block]) -> list[_Block]:
        pattern = self._re(spec["pattern"])
        first: dict[str, str] = {}
        counts: dict[str, int] = {}
        out: list[_Block] = []
        for block in blocks:
            found = pattern.search(block.lines[0]) if len(block.lines) == 1 else None
            if found is None:
                out.append(block)
                continue
            key = _fill(spec["key"], found)
            counts[key] = counts.get(key, 0) + 1
            first.setdefault(key, _fill(spec["message"], found))
            block.lines = [_fill(spec["line"], found)]
            out.append(block)
        if first:
            lines = [spec["title"]] if "title" in spec else []
            for key, message in first.items():
                times = f" (×{counts[key]})" if counts[key] > 1 else ""
                lines.append(f"{key}: {message}{times}")
            out.append(_Block(lines, None, None, important=True))
        return out

    def _collapse(self, spec: dict[str, Any], blocks: list[_Block]) -> list[_Block]:
        pattern = self._re(spec["pattern"])
        least = int(spec.get("min", 3))
        out: list[_Block] = []
        run: list[_Block] = []

        def flush() -> None:
            if len(run) >= least:
                first = run[0]
                lines = [*first.lines, f"[… {len(run) - 1} more like it]"]
                out.append(_Block(lines, first.n, run[-1].last))
            else:
                out.extend(run)
            run.clear()

        for block in blocks:
            if len(block.lines) == 1 and pattern.search(block.lines[0]):
                run.append(block)
                continue
            flush()
            out.append(block)
        flush()
        return out


def _any(patterns: Sequence[Any], line: str) -> bool:
    return any(p.search(line) for p in patterns)


def _replace(rules: Sequence[tuple[Any, str]], line: str) -> str:
    for pattern, template in rules:
        found = pattern.search(line)
        if found is not None:
            return line[: found.start()] + _fill(template, found) + line[found.end() :]
    return line


def _map_lines(blocks: list[_Block], change: Any) -> list[_Block]:
    out: list[_Block] = []
    for block in blocks:
        lines = [new for line in block.lines if (new := change(line)) is not None]
        if lines:
            block.lines = lines
            if block.terse is not None:
                block.terse = [new for line in block.terse if (new := change(line)) is not None]
            out.append(block)
    return out


def _record(block: _Block) -> Any:
    from agentout.records import Record

    full: dict[str, Any] = {"text": "\n".join(block.lines)}
    if block.n is not None:
        full.update(n=block.n, last=block.last)
    if block.terse is None:
        return Record.of(full, kind="R")
    terse = {**full, "text": "\n".join(block.terse)}
    return Record.of(terse, full, kind="R")


class SpecFile:
    """A reducer file, read only once a command could match it: a file whose text does not
    even name the command's first word (``"git"``) or a wildcard cannot, and every command
    looks through all of them. One that cannot be read is named on stderr, once, and not
    used (``agentout reducers verify`` says the same, with exit status 2)."""

    def __init__(self, path: str | Path, text: str | None = None) -> None:
        self.path = str(path)
        self._text = text
        self._loaded: Spec | None = None
        self._broken = False

    def text(self) -> str:
        if self._text is None:
            try:
                self._text = Path(self.path).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                self._text = ""
        return self._text

    def load(self) -> Spec | None:
        if self._loaded is None and not self._broken:
            try:
                self._loaded = load_spec(self.path, self.text())
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


# -- reading a file ---------------------------------------------------------------------------

_STEP_KINDS = ("skip", "keep", "replace", "section", "group", "dedupe", "collapse", "important")
_REQUIRED = {
    "section": ("start", "label"),
    "group": ("pattern", "key", "header", "item"),
    "dedupe": ("pattern", "key", "line", "message"),
    "collapse": ("pattern",),
}


_KNOWN = KnownTexts("reducer-files.json")  # checked data of the files read before


def load_spec(path: str | Path, text: str | None = None, *, check: bool = False) -> Spec:
    """Read a reducer file; ``SpecError`` naming the file and the key for anything wrong.

    Patterns are compiled when first used (every command looks its reducer up, few use
    one); ``check`` compiles them all now, as ``agentout reducers verify`` does. A text
    read and checked before is rebuilt from its data in the user cache (``cache``)."""
    name = str(path)
    if text is None:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise SpecError(f"cannot read: {exc}", name) from None
    known = None if check else _KNOWN.get(text)
    if isinstance(known, dict):
        try:
            return _built(known, name)
        except (KeyError, TypeError, ValueError, AttributeError, SpecError):
            pass  # not data this version wrote: read the text
    data = _parsed(text, name)
    _check(data, name, check)
    _KNOWN.put(text, data)
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


def _check(data: dict[str, Any], name: str, check: bool) -> None:
    """Everything ``load_spec`` promises about a file's data, or SpecError."""
    spec_name = data.get("name")
    if not isinstance(spec_name, str) or not spec_name:
        raise SpecError("name: expected a non-empty string", name)
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
    for i, fact in enumerate(facts):  # facts are checked by Python's re (agentout.facts)
        try:
            re.compile(fact)
        except re.error as exc:
            raise SpecError(f"facts[{i}]: {fact!r} is not a valid pattern ({exc})", name) from None
    steps = data.get("step", [])
    if not isinstance(steps, list):
        raise SpecError("step: expected [[step]] tables", name)
    checked = [_check_step(step, i, name, check) for i, step in enumerate(steps)]
    problems = safety_problems(_written(checked))
    if problems:
        raise SpecError(f"refused: {problems[0]}", name)


def _built(data: dict[str, Any], name: str) -> Spec:
    """The Spec of data that ``_check`` passed (the cases are checked here)."""
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


def _pattern(pattern: Any, where: str, path: str, check: bool) -> None:
    """A pattern is a string; with ``check``, one RE2 compiles."""
    if not isinstance(pattern, str):
        raise SpecError(f"{where}: expected a pattern (a string)", path)
    if check:
        _compile(pattern, where, path)


def _check_step(step: Any, i: int, path: str, check: bool) -> dict[str, Any]:
    where = f"step[{i}]"
    if not isinstance(step, dict) or len(step) != 1 or next(iter(step)) not in _STEP_KINDS:
        raise SpecError(f"{where}: expected one of {', '.join(_STEP_KINDS)}", path)
    kind, value = next(iter(step.items()))
    if kind in ("skip", "keep", "important"):
        if not isinstance(value, list):
            raise SpecError(f"{where}.{kind}: expected a list of patterns", path)
        for j, pattern in enumerate(value):
            _pattern(pattern, f"{where}.{kind}[{j}]", path, check)
    elif kind == "replace":
        if not isinstance(value, list) or not all(
            isinstance(r, dict) and isinstance(r.get("with"), str) for r in value
        ):
            raise SpecError(f"{where}.replace: expected [{{pattern, with}}, ...]", path)
        for j, rule in enumerate(value):
            _pattern(rule.get("pattern"), f"{where}.replace[{j}].pattern", path, check)
    else:
        if not isinstance(value, dict):
            raise SpecError(f"{where}.{kind}: expected a table", path)
        for key in _REQUIRED[kind]:
            if not isinstance(value.get(key), str):
                raise SpecError(f"{where}.{kind}.{key}: expected a string", path)
        for key in ("start", "item", "stop", "pattern"):
            if key in value:
                _pattern(value[key], f"{where}.{kind}.{key}", path, check)
    return {kind: value}


_WRITTEN = {  # the keys of each step whose text goes into the output
    "replace": ("with",),
    "section": ("label", "template", "join"),
    "group": ("header", "item"),
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
    where = f"case[{i}]"
    if not isinstance(case, dict) or not isinstance(case.get("fixture"), str):
        raise SpecError(f"{where}.fixture: expected a directory name", path)
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
