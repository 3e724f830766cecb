"""git log, git diff and git show, in the form an agent reads them.

- ``git log`` (its default and ``--stat`` forms): one line a commit, ``HASH DATE
  subject (author)``, the hash abbreviated as ``--oneline`` does; with ``--stat``, each
  file line (``path | 12``) and the summary under it. Bodies are left out (the output is
  stored). With ``-p``, each commit's line is followed by its diff, read as ``git diff``
  is. Other forms (``--oneline``, ``--format``, ``--graph``) are compact already.
- ``git diff`` and the patch of ``git show``: each file once (``path`` or ``old →
  new``, with ``new file``/``deleted``/``Binary`` said), every hunk header, every
  changed line, and one line of context on each side of a run of changes; ``index``
  lines go. Word diffs keep every line with a change in it: ``--word-diff`` (``[-old-]
  {+new+}``), its porcelain form, and ``--color-words``/``--word-diff=color``, whose
  changes only colour told apart (every line of their hunks is kept). ``--stat``,
  ``--numstat``, ``--name-status`` and ``--shortstat`` before a patch are kept whole.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agentout.records import Record
from agentout.reducers.model import Output, Reduced

__all__ = ["GitDiff", "GitLog", "GitShow"]

_COMMIT = re.compile(r"^commit ([0-9a-f]{7,64})(?: \((.*)\))?$")
_AUTHOR = re.compile(r"^Author:\s+(.*?)(?:\s+<[^>]*>)?$")
_DATE = re.compile(r"^(?:Author|Commit)?Date:\s+(.*)$")
_MONTHS = {
    m: i
    for i, m in enumerate(
        ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"], 1
    )
}
_GIT_DATE = re.compile(r"^\w{3} (\w{3}) (\d{1,2}) \d\d:\d\d:\d\d (\d{4}) [+-]\d{4}$")
_STAT = re.compile(r"^ (\S.*?)\s+\|\s+(\d+|Bin .*)")
_STAT_SUMMARY = re.compile(r"^ \d+ files? changed")
_ABBREV = 7
_LOG_OPTIONS_LEFT_ALONE = ("--oneline", "--format", "--pretty", "--graph")
_PATCH = ("-p", "-u", "--patch")
_STATS = ("--stat", "--numstat", "--name-status", "--shortstat", "--name-only", "--summary")
_WORD_MARK = re.compile(r"\[-.*?-\]|\{\+.*?\+\}")


def _words_have(words: Sequence[str], options: Sequence[str]) -> bool:
    return any(w == o or w.startswith(o + "=") for w in words for o in options)


def _short_date(text: str) -> str:
    found = _GIT_DATE.match(text.strip())
    if found is None:
        return text.strip()
    month, day, year = found.groups()
    return f"{year}-{_MONTHS.get(month, 0):02d}-{int(day):02d}"


class _Commit:
    """One commit as its lines are read (a plain class: see agentout.frozen)."""

    __slots__ = ("author", "date", "hash", "last", "merge", "n", "refs", "stat", "subject")

    def __init__(self, n: int, hash: str, refs: str | None = None, last: int = 0) -> None:
        self.n, self.hash, self.refs, self.last = n, hash, refs, last
        self.author = self.date = self.subject = ""
        self.stat: list[str] | None = None
        self.merge: str | None = None


def _commits(lines: Sequence[str]) -> list[_Commit] | None:
    """The commits of ``git log``'s default (or ``--stat``) form; None if it is not that."""
    commits: list[_Commit] = []
    current: _Commit | None = None
    in_message = False
    for n, line in enumerate(lines, start=1):
        head = _COMMIT.match(line)
        if head is not None:
            current = _Commit(n, head.group(1), head.group(2), last=n)
            commits.append(current)
            in_message = False
            continue
        if current is None:
            if line.strip():
                return None  # not the log's form
            continue
        current.last = n
        if line.startswith("Merge: "):
            current.merge = line[len("Merge: ") :].strip()
        elif (author := _AUTHOR.match(line)) is not None and not in_message:
            current.author = author.group(1)
        elif (date := _DATE.match(line)) is not None and not in_message:
            current.date = _short_date(date.group(1))
        elif line.startswith("    "):
            in_message = True
            if not current.subject:
                current.subject = line.strip()
        elif _STAT.match(line) or _STAT_SUMMARY.match(line):
            current.stat = [*(current.stat or []), _stat_line(line)]
        elif line.strip():
            return None
    return commits or None


def _stat_line(line: str) -> str:
    """`` path | 12 ++--`` as ``path | 12`` (the bar repeats the count)."""
    found = _STAT.match(line)
    if found is None:
        return line.strip()
    return f"{found.group(1)} | {found.group(2)}"


def _abbreviations(hashes: Sequence[str]) -> dict[str, str]:
    """Each hash at the shortest length (7 at least) that tells the shown ones apart."""
    length = _ABBREV
    while len({h[:length] for h in hashes}) < len(set(hashes)) and length < 40:
        length += 1
    return {h: h[:length] for h in hashes}


class GitLog:
    """git log: one line a commit (hash, date, subject), --stat kept per commit."""

    name = "git/log"
    # every commit's hash (its first 7 digits) and its subject; with -p, every file
    facts = (
        r"(?m)^commit ([0-9a-f]{7})",
        r"(?m)^Date:.*\n\n    (\S.*)$",
        r"(?m)^diff --git a/\S+ b/(\S+)$",
    )

    def matches(self, words: Sequence[str]) -> bool:
        return tuple(words[:2]) == ("git", "log") and not _words_have(
            words[2:], _LOG_OPTIONS_LEFT_ALONE
        )

    def reduce(self, output: Output) -> Reduced | None:
        if _words_have(output.words[2:], _PATCH):
            return _log_with_patches(output.lines, _Form.of(output.words))
        commits = _commits(output.lines)
        if commits is None:
            return None
        return Reduced(_log_records(commits))


def _log_with_patches(lines: Sequence[str], form: _Form) -> Reduced | None:
    """``git log -p``: each commit's line, then its diff. The order puts every commit and
    every file (its name and hunk headers, the diff record's tersest view) before any
    changed line, so a budget that cannot hold the patches still names them all."""
    starts = [i for i, line in enumerate(lines) if _COMMIT.match(line)]
    if not starts or any(line.strip() for line in lines[: starts[0]]):
        return None
    records: list[Record] = []
    commits: list[int] = []
    for start, end in zip(starts, [*starts[1:], len(lines)], strict=True):
        segment = lines[:end]
        cut = next((i for i in range(start, end) if lines[i].startswith("diff --git ")), end)
        found = _commits(segment[start:cut])
        if found is None or len(found) != 1:
            return None
        found[0].n += start
        found[0].last += start
        commits.append(len(records))
        records.append(_commit_record(found[0], found[0].hash[:_ABBREV]))
        if cut < end:
            diff = _diff_records(segment, cut, form)
            if diff is None:
                return None
            records.extend(diff)
    others = [i for i in range(len(records)) if i not in set(commits)]
    return Reduced(records, order=[*commits, *others])


def _log_records(commits: list[_Commit]) -> list[Record]:
    """One record a commit; an author shared by all of them is said once, first."""
    authors = {c.author for c in commits}
    shared = authors.pop() if len(authors) == 1 and len(commits) > 1 else None
    records = [_commit_record(c, s, shared is None) for c, s in _with_abbrevs(commits)]
    if shared:
        records.insert(0, Record.of({"text": f"(all by {shared})"}, kind="R"))
    return records


def _with_abbrevs(commits: list[_Commit]) -> list[tuple[_Commit, str]]:
    short = _abbreviations([c.hash for c in commits])
    return [(commit, short[commit.hash]) for commit in commits]


def _commit_record(commit: _Commit, short: str, with_author: bool = True) -> Record:
    refs = f" ({commit.refs})" if commit.refs else ""
    merge = f" merge {commit.merge}" if commit.merge else ""
    author = f" ({commit.author})" if commit.author and with_author else ""
    line = f"{short} {commit.date}{refs}{merge} {commit.subject}{author}"
    lines = [line, *(f"  {s}" for s in commit.stat or ())]
    full = {"text": "\n".join(lines), "n": commit.n, "last": commit.last}
    if len(lines) == 1:
        return Record.of(full, kind="R")
    return Record.of({**full, "text": line}, full, kind="R")


# -- diffs -----------------------------------------------------------------------------------

_DIFF = re.compile(r"^diff --git a/(.*) b/(.*)$")
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@")
_FILE_NOTES = (
    "new file mode", "deleted file mode", "rename from", "rename to", "copy from", "copy to",
    "Binary files", "GIT binary patch",
)  # fmt: skip
_CONTEXT = 1  # lines of context kept on each side of a run of changes
# A line of --stat, --numstat, --name-status, --shortstat or --summary before a patch.
_SUMMARY_LINE = re.compile(
    r"^ \S.*\|\s+(?:\d+|Bin)|^ \d+ files? changed|^(?:\d+|-)\t(?:\d+|-)\t\S"
    r"|^[ACDMRTUXB]\d*\t\S|^ (?:create|delete|rename|copy|mode change) |^\S.*$"
)


class _Form:
    """How a diff was asked for: word diffs mark changes inside lines, or only by colour."""

    __slots__ = ("colour", "words")

    def __init__(self, words: bool = False, colour: bool = False) -> None:
        self.words, self.colour = words, colour

    @classmethod
    def of(cls, argv_words: Sequence[str]) -> _Form:
        form = cls()
        for word in argv_words:
            if word.startswith("--color-words") or word == "--word-diff=color":
                form.words = form.colour = True
            elif word.startswith("--word-diff") and word != "--word-diff=none":
                form.words = True
        return form

    def changed(self, line: str) -> bool:
        """Whether a hunk line says what changed (rather than what stayed around it)."""
        if line.startswith(("+", "-", "\\")):
            return True
        if self.colour:  # the change is in colours now gone: every line may hold one
            return True
        return self.words and _WORD_MARK.search(line) is not None


class _Hunk:
    __slots__ = ("body", "header", "n")

    def __init__(self, n: int, header: str, body: list[tuple[int, str]]) -> None:
        self.n, self.header, self.body = n, header, body


def _diff_records(
    lines: Sequence[str], start: int = 0, form: _Form | None = None
) -> list[Record] | None:
    """One record per file of a diff in ``lines[start:]`` (what a ``--stat``-like summary
    says before it, one record too); None if it is not a git diff."""
    form = form or _Form()
    records: list[Record] = []
    i = start
    summary: list[tuple[int, str]] = []
    while i < len(lines) and not lines[i].startswith("diff --git "):
        if lines[i].strip():
            summary.append((i + 1, lines[i]))
        i += 1
    if summary:
        if i >= len(lines) or not all(_SUMMARY_LINE.match(line) for _, line in summary):
            return None
        text = "\n".join(line.rstrip() for _, line in summary)
        records.append(Record.of({"text": text, "n": summary[0][0], "last": summary[-1][0]}))
    while i < len(lines):
        head = _DIFF.match(lines[i])
        if head is None:
            return None
        first = i + 1
        old, new = head.groups()
        notes: list[str] = []
        i += 1
        while i < len(lines) and not lines[i].startswith(("@@", "diff --git ")):
            line = lines[i]
            if line.startswith(_FILE_NOTES):
                notes.append(line.replace(" mode", "").split(" 100")[0])
            i += 1
        hunks: list[_Hunk] = []
        while i < len(lines) and not lines[i].startswith("diff --git "):
            if _HUNK.match(lines[i]):
                hunks.append(_Hunk(i + 1, lines[i], []))
            elif hunks:
                hunks[-1].body.append((i + 1, lines[i]))
            i += 1
        name = new if old == new else f"{old} → {new}"
        said = [note for note in notes if not note.startswith("rename")]
        title = name + (f" ({', '.join(said)})" if said else "")
        shown = [title]
        for hunk in hunks:
            shown.append(hunk.header)
            shown.extend(_trimmed(hunk.body, form))
        terse = [title, *(h.header for h in hunks)]
        full = {"text": "\n".join(shown), "n": first, "last": i}
        if terse == shown:
            records.append(Record.of(full, kind="R"))
        else:
            records.append(Record.of({**full, "text": "\n".join(terse)}, full, kind="R"))
    return records


def _trimmed(body: Sequence[tuple[int, str]], form: _Form) -> list[str]:
    """Changed lines, with ``_CONTEXT`` lines of context around each run of them."""
    changed = [j for j, (_, line) in enumerate(body) if form.changed(line)]
    keep: set[int] = set()
    for j in changed:
        keep.update(range(max(0, j - _CONTEXT), min(len(body), j + _CONTEXT + 1)))
    out: list[str] = []
    skipped = 0
    for j, (_, line) in enumerate(body):
        if j in keep:
            if skipped and out:
                out.append(" …")
            skipped = 0
            out.append(line)
        else:
            skipped += 1
    return out


class GitDiff:
    """git diff: files, hunk headers, changed lines with one line of context."""

    name = "git/diff"
    facts = (
        r"(?m)^diff --git a/\S+ b/(\S+)$",
        r"(?m)^(@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@)",
        r"(?m)^([+-][^+\-\n].*)$",
    )

    def matches(self, words: Sequence[str]) -> bool:
        if tuple(words[:2]) != ("git", "diff"):
            return False  # a summary alone is compact already; with a patch, it is read
        return not _words_have(words[2:], _STATS) or _words_have(words[2:], _PATCH)

    def reduce(self, output: Output) -> Reduced | None:
        records = _diff_records(output.lines, 0, _Form.of(output.words))
        return None if not records else Reduced(records)


class GitShow:
    """git show: the commit as git log gives it, then its diff as git diff does."""

    name = "git/show"
    facts = (r"(?m)^commit ([0-9a-f]{7})", *GitDiff.facts)

    def matches(self, words: Sequence[str]) -> bool:
        return tuple(words[:2]) == ("git", "show") and not _words_have(
            words[2:],
            ("--stat", "--name-only", "--name-status", "--format", "--pretty", "--oneline"),
        )

    def reduce(self, output: Output) -> Reduced | None:
        lines = output.lines
        cut = next((i for i, x in enumerate(lines) if x.startswith("diff --git ")), len(lines))
        commits = _commits(lines[:cut])
        if commits is None:
            return None
        records = _log_records(commits)
        diff = _diff_records(lines, cut, _Form.of(output.words)) if cut < len(lines) else []
        if diff is None:
            return None
        return Reduced([*records, *diff])
