"""``agentout show``: page through a spilled file within a budget."""

from __future__ import annotations

import click

from agentout.cli._options import (
    echo_packed,
    fail,
    record_delivery,
    reports_errors,
    store_option,
    tokenizer_option,
)
from agentout.formats import FORMAT_NAMES


@click.command()
@click.argument("ref", metavar="REF")
@click.option("--lines", "lines", metavar="A:B", default=None, help="Lines A to B (from 1).")
@click.option(
    "--records",
    "records",
    metavar="A:B",
    default=None,
    help="Records A to B (from 1), as `agentout fit` read the file.",
)
@click.option(
    "--part",
    type=click.IntRange(min=1),
    default=1,
    metavar="P",
    help="Start at part P of the first line (a long line is shown in parts).",
)
@click.option("--grep", metavar="PATTERN", default=None, help="Only lines matching a regex.")
@click.option("-i", "--ignore-case", is_flag=True, help="Match --grep case-insensitively.")
@click.option(
    "--max-tokens",
    type=click.IntRange(min=1),
    default=2000,
    show_default=True,
    help="Token budget for the page.",
)
@click.option(
    "--format",
    "format_name",
    type=click.Choice(FORMAT_NAMES),
    default=None,
    help="Output format (default: raw for text, records for JSONL).",
)
@store_option
@tokenizer_option
@reports_errors
def show(
    ref: str,
    lines: str | None,
    records: str | None,
    part: int,
    grep: str | None,
    ignore_case: bool,
    max_tokens: int,
    format_name: str | None,
    tokenizer: str | None,
) -> None:
    """Show a page of the spilled file REF: its name or its path in the spill store.

    The page never passes the budget; its last line says which lines it shows and
    gives the command for the next page. REF is what agentout printed (16 hex digits)
    or the stored file's name. A line longer than 2000 characters is shown in
    parts (n=7 part=3), and the next page may start inside it (--part). REF must be a
    file agentout spilled: a path outside the store, a symlink, or a file agentout did
    not write is refused (exit 2). --records A:B pages a file `agentout fit` kept by
    its records instead, as fit read them, each whole.

    \b
    Examples:
      agentout show 0123456789abcdef --lines 120:180
      agentout show run-0123456789abcdef.log
      agentout show run-0123456789abcdef.log --grep 'error|FAILED' --max-tokens 500
      agentout show run-0123456789abcdef.log --lines 7: --part 3
      agentout show 0123456789abcdef --records 13:
    """
    from agentout.store.page import LineRange, page

    if records is not None:
        if lines is not None or grep is not None or part != 1:
            fail("--records pages by records, --lines/--part/--grep by lines: use one or the other")
        from agentout.store.page_records import page_records

        packed = page_records(
            ref,
            records=LineRange.parse(records, "--records"),
            max_tokens=max_tokens,
            format=format_name,
            tokenizer=tokenizer,
        )
        echo_packed(packed)
        record_delivery("show", ref, packed)
        return
    span = LineRange.parse(lines) if lines is not None else None
    packed = page(
        ref,
        lines=span,
        part=part,
        grep=grep,
        ignore_case=ignore_case,
        max_tokens=max_tokens,
        format=format_name,
        tokenizer=tokenizer,
    )
    echo_packed(packed)
    record_delivery("show", ref, packed)
