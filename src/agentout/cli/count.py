"""``agentout count``: exact token counts of files, folders or stdin, in bounded memory."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import click

from agentout.cli._options import reports_errors, tokenizer_option
from agentout.errors import InputError


@dataclass(frozen=True)
class _Row:
    path: str
    chars: int
    tokens: int
    approx: bool  # a run of over 1 MiB without a token boundary was cut


@click.command()
@click.argument("files", nargs=-1, metavar="[PATH]...")
@tokenizer_option
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help='Print {"tokenizer", "files": [{"path", "chars", "tokens"}], "total"}.',
)
@reports_errors
def count(files: tuple[str, ...], tokenizer: str | None, as_json: bool) -> None:
    """Count the tokens in each PATH and in all (stdin when no PATH, or for -).

    Counts are exact for o200k_base (the default) and cl100k_base, offline, and
    identical to tiktoken's. Files are read 1 MiB at a time, so any size counts in
    bounded memory. A file that is not UTF-8 text (a NUL byte, invalid UTF-8) is an
    error naming the file and byte, exit status 2: a count of a replaced text would
    not be the file's. A folder counts each of its files, as git sees them: what
    .gitignore excludes, .git itself, binary files (a NUL byte in the first 8000
    bytes) and symlinks are left out; a file there that is not UTF-8 is left out
    with a warning. A count marked approx had to cut a run of over 1 MiB with no
    token boundary: it may be off by a token or so at each cut.

    \b
    Examples:
      agentout count README.md docs/*.md
      agentout count src tests
      git diff | agentout count --tokenizer gpt-4
      agentout count --json examples/data/app.log
    """
    from agentout.tokens import get_tokenizer

    tok = get_tokenizer(tokenizer)
    rows: list[_Row] = []
    folders = False
    for path in files or ("-",):
        if path != "-" and os.path.isdir(path):
            folders = True
            rows.extend(_folder(path, tok))
        else:
            rows.append(_file(path, tok))
    total = sum(row.tokens for row in rows)
    approx = any(row.approx for row in rows)
    if as_json:
        listed = [_listed(row) for row in rows]
        out: dict[str, object] = {"tokenizer": tok.name, "files": listed, "total": total}
        if approx:
            out["approx"] = True
        click.echo(json.dumps(out, ensure_ascii=False))
        return
    click.echo(_table(rows, total, named=bool(files), totalled=folders), nl=False)


def _file(path: str, tok: object) -> _Row:
    from agentout.read.text import display_name, read_text
    from agentout.tokens import count_stream_cuts

    chars = _Chars(read_text(path))
    tokens, cuts = count_stream_cuts(chars, tok)  # type: ignore[arg-type]
    return _Row(display_name(path), chars.total, tokens, cuts > 0)


def _folder(path: str, tok: object) -> Iterator[_Row]:
    """Each text file of the folder, in order; what cannot be counted said on stderr."""
    from agentout.read.tree import text_files

    tree = text_files(path)
    for name, reason in tree.skipped:
        _skipped(os.path.normpath(os.path.join(path, name)), reason)
    for name in tree.files:
        try:
            yield _file(os.path.normpath(os.path.join(path, name)), tok)
        except InputError as exc:  # named by the file; one bad file spoils no count
            _skipped(str(exc), None)


def _skipped(what: str, reason: str | None) -> None:
    said = what if reason is None else f"{what}: {reason}"
    click.echo(f"agentout: warning: {said}; not counted", err=True)


def _listed(row: _Row) -> dict[str, object]:
    out: dict[str, object] = {"path": row.path, "chars": row.chars, "tokens": row.tokens}
    if row.approx:
        out["approx"] = True
    return out


class _Chars:
    """Passes text pieces through, adding up their characters."""

    def __init__(self, pieces: Iterable[str]) -> None:
        self.pieces = pieces
        self.total = 0

    def __iter__(self) -> Iterator[str]:
        for piece in self.pieces:
            self.total += len(piece)
            yield piece


def _table(rows: list[_Row], total: int, named: bool, totalled: bool) -> str:
    """As ``wc`` prints: the count, then the name (and ``(approx)``); a total line for
    several files or any folder."""
    mark = " (approx)"
    if not named:
        return f"{total}{mark if rows[0].approx else ''}\n"
    lines = [(str(row.tokens), row.path + (mark if row.approx else "")) for row in rows]
    if len(rows) > 1 or totalled:
        lines.append((str(total), "total" + (mark if any(r.approx for r in rows) else "")))
    width = max(len(number) for number, _ in lines)
    return "".join(f"{number:>{width}} {name}\n" for number, name in lines)
