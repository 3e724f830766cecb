"""``agentout count``: exact token counts of files or stdin, in bounded memory."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

import click

from agentout.cli._options import reports_errors, tokenizer_option


@click.command()
@click.argument("files", nargs=-1, metavar="[FILE]...")
@tokenizer_option
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help='Print {"tokenizer", "files": [{"path", "chars", "tokens"}], "total"}.',
)
@reports_errors
def count(files: tuple[str, ...], tokenizer: str | None, as_json: bool) -> None:
    """Count the tokens in each FILE and in all (stdin when no FILE, or for -).

    Counts are exact for o200k_base (the default) and cl100k_base, offline, and
    identical to tiktoken's. Files are read 1 MiB at a time, so any size counts in
    bounded memory. A file that is not UTF-8 text (a NUL byte, invalid UTF-8) is an
    error naming the file and byte, exit status 2: a count of a replaced text would
    not be the file's.

    \b
    Examples:
      agentout count README.md docs/*.md
      git diff | agentout count --tokenizer gpt-4
      agentout count --json examples/data/app.log
    """
    from agentout.sources._text import display_name, read_text
    from agentout.tokens import count_stream, get_tokenizer

    tok = get_tokenizer(tokenizer)
    rows: list[tuple[str, int, int]] = []  # path, chars, tokens
    for path in files or ("-",):
        chars = _Chars(read_text(path))
        tokens = count_stream(chars, tok)
        rows.append((display_name(path), chars.total, tokens))
    total = sum(tokens for _, _, tokens in rows)
    if as_json:
        listed = [{"path": p, "chars": c, "tokens": t} for p, c, t in rows]
        out = {"tokenizer": tok.name, "files": listed, "total": total}
        click.echo(json.dumps(out, ensure_ascii=False))
        return
    click.echo(_table(rows, total, named=bool(files)), nl=False)


class _Chars:
    """Passes text pieces through, adding up their characters."""

    def __init__(self, pieces: Iterable[str]) -> None:
        self.pieces = pieces
        self.total = 0

    def __iter__(self) -> Iterator[str]:
        for piece in self.pieces:
            self.total += len(piece)
            yield piece


def _table(rows: list[tuple[str, int, int]], total: int, named: bool) -> str:
    """As ``wc`` prints: the count, then the name; a total line for several files."""
    if not named:
        return f"{total}\n"
    lines = [(str(tokens), path) for path, _, tokens in rows]
    if len(rows) > 1:
        lines.append((str(total), "total"))
    width = max(len(number) for number, _ in lines)
    return "".join(f"{number:>{width}} {name}\n" for number, name in lines)
