"""Reducers as data: a TOML file says what a reducer matches, its steps and its facts.

::

    name = "git/status"
    description = "git status as staged / unstaged / untracked lists"
    match = [["git", "status"]]          # prefixes of the command's words; "*" is any word
    facts = ['^\\t(?:modified|new file|deleted):\\s+(\\S.*)$']   # RE2; every match kept

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
  line: ``label`` then the items (each as ``template``) joined by ``join`` (", "); under a
  budget too tight for all of them, as many of the first items as fit, then how many
  more there are (``[… 2990 more]``), so a long list never leaves out its label.
- ``group = {pattern, key, header, item, terse?, rest?, join?}``: consecutive lines
  matching ``pattern`` with the same ``key`` group become one block: ``header`` once,
  then each line as ``item`` (all on the header's line, joined by ``join``, if it is
  given); under a tight budget the block shows its first ``terse`` items (1) and says how
  many more, naming each of them by ``rest`` when it is given (``"{line}"``: a match's
  line number), so a cut never loses where the rest are.
- ``dedupe = {pattern, key, line, message, title?}``: each matching line becomes
  ``line`` and the first ``message`` of each ``key`` is said once, in one block at the
  end (``title``, then ``KEY: message (×N)``).
- ``collapse = {pattern, min?}``: a run of at least ``min`` (3) lines that match is its
  first line and ``[… N more like it]``.
- ``important = [re, ...]``: blocks with a matching line come first when the budget
  decides what is left out (the rest keep their order; the last blocks next).

Patterns, ``facts`` included, are RE2 (linear time, so no pattern a project ships can
stall agentout); templates use ``{name}`` for named groups and ``{count}`` where a count
is meant. ``complete = true`` says the reducer keeps every line of the output (grouped,
re-indented): its answer then needs no stored output behind it, when the answer shows it
does (``agentout.reducers.complete`` checks each one).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from agentout.errors import InputError
from agentout.frozen import Frozen
from agentout.reducers.model import Output, Reduced

__all__ = ["Case", "Spec", "SpecError", "compile_pattern"]


class SpecError(InputError):
    """A reducer file that cannot be used: named with its path and the key at fault (a
    character no reader would see in the path, which a repository chose, escaped)."""

    def __init__(self, message: str, path: str | None = None, line: int | None = None) -> None:
        from agentout.read.visible import visible

        super().__init__(message, None if path is None else visible(path), line)


class _Block:
    """Lines of the reduced output, the output lines they stand for, a terse form."""

    __slots__ = ("important", "last", "lines", "n", "shorter", "terse")

    def __init__(
        self,
        lines: list[str],
        n: int | None,
        last: int | None,
        terse: list[str] | None = None,
        important: bool = False,
    ) -> None:
        self.lines, self.n, self.last, self.terse, self.important = lines, n, last, terse, important
        self.shorter: list[str] = []  # shorter forms of a one-line block, the shortest first


class Case(Frozen):
    """A fixture case: recorded output and what the reduced form must (not) contain.
    ``fixture`` is a directory with ``cmd`` (argv as JSON), ``output`` and ``exit``."""

    fixture: str
    contains: tuple[str, ...]
    not_contains: tuple[str, ...]

    def __init__(
        self, fixture: str, contains: tuple[str, ...] = (), not_contains: tuple[str, ...] = ()
    ) -> None:
        self._set(fixture=fixture, contains=contains, not_contains=not_contains)


def compile_pattern(pattern: Any, where: str, path: str, *, lines: bool = False) -> Any:
    """``pattern`` compiled by RE2 (linear time whatever the pattern or the text), or
    ``SpecError`` naming ``path`` and ``where``; ``lines``: ``^`` and ``$`` at every line,
    as facts are read."""
    import re2

    if not isinstance(pattern, str):
        raise SpecError(f"{where}: expected a pattern (a string)", path)
    options = re2.Options()
    options.log_errors = False  # the error is ours to report, once, without RE2's log lines
    try:
        return re2.compile(f"(?m){pattern}" if lines else pattern, options)
    except re2.error as exc:
        reason = exc.args[0] if exc.args else "invalid"
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        raise SpecError(
            f"{where}: {pattern!r} is not a valid RE2 pattern ({reason})", path
        ) from None


_FIELD = re.compile(r"\{(\w+)\}")


def _fill(template: str, match: Any) -> str:
    """``template`` with each ``{name}`` replaced by that group (``{0}``: the match)."""
    values = {k: v or "" for k, v in match.groupdict().items()}
    values["0"] = match.group(0)
    return _FIELD.sub(lambda field: str(values.get(field.group(1), field.group(0))), template)


class Spec(Frozen):
    """A reducer read from TOML (see the module docstring); a ``Reducer``."""

    name: str
    description: str
    match: tuple[tuple[str, ...], ...]
    facts: tuple[str, ...]
    steps: tuple[dict[str, Any], ...]
    path: str
    cases: tuple[Case, ...]
    complete: bool
    # patterns compiled as they are first used; a tuple of them: their RE2 set
    _compiled: dict[str | tuple[str, ...], Any]

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
            found = self._compiled[pattern] = compile_pattern(pattern, "pattern", self.path)
        return found

    def _which(self, patterns: Sequence[str]) -> Callable[[str], Sequence[int]]:
        """Which of ``patterns`` a line matches, in one pass of RE2 over it (a step's list
        of patterns is searched once per line, not once per pattern)."""
        key = tuple(patterns)
        found = self._compiled.get(key)
        if found is None:
            import re2

            options = re2.Options()
            options.log_errors = False
            members = re2.Set.SearchSet(options)
            try:
                for pattern in key:
                    members.Add(pattern)
                members.Compile()
                found = self._compiled[key] = lambda line: members.Match(line) or ()
            except re2.error:  # not a valid pattern: compiled alone, it is named
                regexes = [self._re(p) for p in key]
                found = self._compiled[key] = lambda line: [
                    i for i, r in enumerate(regexes) if r.search(line)
                ]
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
            which = self._which(value)
            return _map_lines(blocks, lambda line: None if which(line) else line)
        if kind == "keep":
            which = self._which(value)
            return _map_lines(blocks, lambda line: line if which(line) else None)
        if kind == "replace":
            rules = [(self._re(rule["pattern"]), rule["with"]) for rule in value]
            which = self._which([rule["pattern"] for rule in value])
            return _map_lines(blocks, lambda line: _replace(rules, which(line), line))
        if kind == "important":
            which = self._which(value)
            for block in blocks:
                block.important = block.important or any(which(x) for x in block.lines)
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
                current.shorter = [
                    f"{label} {join.join(items[:shown])} [… {len(items) - shown} more]"
                    for shown in _SHOWN_STEPS
                    if shown < len(items) - 1
                ]

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
        rest: str | None = spec.get("rest")
        joined: str | None = spec.get("join")
        headers: dict[int, str] = {}

        def header_text(group: _Block) -> str:
            return headers[id(group)]

        out: list[_Block] = []
        current: tuple[str, _Block, list[str], list[str]] | None = None
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
                current = (key, group, [], [])
                out.append(group)
            _, group, items, names = current
            items.append(_fill(item, found))
            if rest is not None:
                names.append(_fill(rest, found))
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
                named = ": " + ", ".join(names[terse_items:]) if names else ""
                said = "more" if terse_items else "not shown"
                group.terse.append(f"  [… {more} {said}{named}]")
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


def _replace(rules: Sequence[tuple[Any, str]], hits: Sequence[int], line: str) -> str:
    """``line`` changed by the first of the ``rules`` it matches (``hits``: which)."""
    if not hits:
        return line
    pattern, template = rules[min(hits)]
    found = pattern.search(line)
    return line[: found.start()] + _fill(template, found) + line[found.end() :]


def _map_lines(blocks: list[_Block], change: Any) -> list[_Block]:
    out: list[_Block] = []
    for block in blocks:
        lines = [new for line in block.lines if (new := change(line)) is not None]
        if lines:
            block.lines = lines
            if block.terse is not None:
                block.terse = [new for line in block.terse if (new := change(line)) is not None]
            block.shorter = [new for line in block.shorter if (new := change(line)) is not None]
            out.append(block)
    return out


# A long section's shorter forms: its first items, so many of them, then how many more.
_SHOWN_STEPS = (3, 10, 30, 100, 300, 1000, 3000)


def _record(block: _Block) -> Any:
    from agentout.records import Record

    full: dict[str, Any] = {"text": "\n".join(block.lines)}
    if block.n is not None:
        full.update(n=block.n, last=block.last)
    if block.shorter and len(block.lines) == 1:
        views = [{**full, "text": text} for text in block.shorter]
        return Record.of(*views, full, kind="R")
    if block.terse is None:
        return Record.of(full, kind="R")
    terse = {**full, "text": "\n".join(block.terse)}
    return Record.of(terse, full, kind="R")
