"""``agentout records``: query JSON, JSONL, YAML and Markdown collections for an agent."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from agentout.cli._options import (
    echo_packed,
    fail,
    format_option,
    record_delivery,
    reports_errors,
    store_option,
    tokenizer_option,
)

if TYPE_CHECKING:
    from agentout.sources.collection.load import LoadReport

FORMATS = ("records", "json", "toon", "text", "auto")


@click.command()
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@click.option("--query", "-q", "text", metavar="TEXT", help="Rank by BM25 relevance to TEXT.")
@click.option(
    "--where",
    "-w",
    multiple=True,
    metavar="FIELD=VALUE",
    help="Exact match on a field or dotted path; repeat to require all; lists match any.",
)
@click.option(
    "--filter", "expression", metavar="EXPR", help="Keep records a JMESPath EXPR is true for."
)
@click.option(
    "--sql",
    metavar="QUERY",
    help="DuckDB SQL over JSON/JSONL files as table `records` (the sql extra).",
)
@click.option(
    "--sort", metavar="[-]FIELD", help="Order by FIELD (a dotted path); -FIELD descending."
)
@click.option(
    "--mode",
    type=click.Choice(["agent", "verbose"]),
    default="agent",
    show_default=True,
    help="agent: summary view, 3 records, 500 tokens; verbose: every field, 10 records.",
)
@click.option("--limit", type=click.IntRange(min=1), default=None, help="At most N records.")
@click.option("--max-tokens", type=click.IntRange(min=0), default=None, help="Exact token budget.")
@click.option(
    "--view",
    "view_file",
    default=None,
    help="YAML/JSON file naming the fields per mode: {agent: [...], verbose: [...]}.",
)
@format_option(FORMATS, "records")
@tokenizer_option
@click.option(
    "--delivery",
    type=click.Choice(["auto", "inline", "file"]),
    default="auto",
    show_default=True,
    help="auto: spill the complete matching set when the page leaves any out; "
    "file: always; inline: never.",
)
@store_option
@reports_errors
def records(
    paths: tuple[str, ...],
    text: str | None,
    where: tuple[str, ...],
    expression: str | None,
    sql: str | None,
    sort: str | None,
    mode: str,
    limit: int | None,
    max_tokens: int | None,
    view_file: str | None,
    format_name: str,
    tokenizer: str | None,
    delivery: str,
) -> None:
    """Query the records under PATH... (files, directories, globs; - for stdin).

    Reads JSON (an array gives one record per element), JSONL (streamed), YAML and
    Markdown front matter; a directory gives one record per file, unwrapping a single
    top-level key (as in `threat_pattern: {...}`). A bad file is reported as FILE:LINE
    on stderr and skipped; exit status 2 only when no file could be read.

    The header reports total (matched), included, omitted, tokens and truncated. When
    the page does not show the whole matching set, the set goes complete to a JSONL file
    in agentout's spill store, named in the last line with its fields and counts.

    \b
    Examples:
      agentout records examples/kb --query "sql injection"
      agentout records examples/kb --where severity=critical --mode verbose
      agentout records 'logs/*.jsonl' --filter "status >= \\`500\\`" --sort -duration_ms
      agentout records examples/kb --query upload --view examples/kb-view.yaml
      agentout records big.jsonl --sql "select * from records where status >= 500"
    """
    from agentout.sources.collection.query import CollectionError, query

    try:
        answer = query(
            paths,
            query=text,
            where=where,
            filter=expression,
            sort=sort,
            mode=mode,
            limit=limit,
            max_tokens=max_tokens,
            view=view_file,
            format=format_name,
            tokenizer=tokenizer,
            delivery=delivery,
            sql=sql,
        )
    except CollectionError as exc:
        if len(exc.report.problems) <= 1:
            fail(str(exc))
        _report(exc.report)
        fail("no records: none of the inputs could be read")
    _report(answer.report)
    echo_packed(answer.packed)
    record_delivery("records", " ".join(paths), answer.packed)


def _report(report: LoadReport) -> None:
    for problem in report.problems:
        click.echo(f"agentout: {problem}", err=True)
    if report.more_problems:
        click.echo(f"agentout: ... and {report.more_problems} more problems", err=True)
