"""``agentout gain``: what agentout saved, from the savings ledger."""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

from agentout.cli._options import fail, reports_errors

if TYPE_CHECKING:
    from agentout.ledger.report import Report

_SINCE = re.compile(r"\A(\d+)([hdw])\Z")


def parse_since(value: str | None, now: float | None = None) -> float | None:
    """``7d``, ``12h``, ``2w`` back from now, or a date ``2026-11-01`` (UTC)."""
    if value is None:
        return None
    now = time.time() if now is None else now
    found = _SINCE.match(value.strip())
    if found:
        seconds = {"h": 3600, "d": 86400, "w": 7 * 86400}[found.group(2)]
        return now - int(found.group(1)) * seconds
    try:
        return time.mktime(time.strptime(value.strip(), "%Y-%m-%d")) - time.timezone
    except ValueError:
        raise click.BadParameter(f"{value!r}: expected 7d, 12h, 2w or YYYY-MM-DD") from None


@click.command()
@click.option("--since", metavar="WHEN", help="Only deliveries since 7d, 12h, 2w or YYYY-MM-DD.")
@click.option("--project", metavar="DIR", help="Only deliveries made in project DIR.")
@click.option(
    "--by",
    "period",
    type=click.Choice(["day", "week", "month"]),
    default="day",
    show_default=True,
    help="Group the history by day, ISO week or month (UTC).",
)
@click.option(
    "--format",
    "format_name",
    type=click.Choice(["text", "json", "csv"]),
    default="text",
    show_default=True,
    help="text: tables and a chart; json: every number; csv: one line per delivery.",
)
@click.option("--html", "html_file", metavar="FILE", help="Also write one self-contained page.")
@click.option(
    "--export",
    "export_file",
    metavar="FILE",
    help="Write the rows to FILE instead (.jsonl or .parquet; a path or s3://… URL).",
)
@click.option("--recent", type=click.IntRange(min=0), default=10, show_default=True)
@reports_errors
def gain(
    since: str | None,
    project: str | None,
    period: str,
    format_name: str,
    html_file: str | None,
    export_file: str | None,
    recent: int,
) -> None:
    """Show the tokens agentout kept out of agents' context, from its ledger.

    Every delivery (run, the hook's routed commands, test, fit, records, notes, show,
    the MCP tools) adds one row of counts: the raw output's tokens, what the agent's
    client would have shown the model of it (Claude Code: its 30,000-character inline
    limit, its 2 KB preview past it, its cut of a failing command; the whole output for
    a client whose limit is not known), and the tokens delivered (the exact tokens= of
    what was printed). Saved is counted against what the client would have shown.
    Counts only, never output. AGENTOUT_LEDGER=0 turns the ledger off.

    \b
    Examples:
      agentout gain
      agentout gain --since 7d --by week
      agentout gain --format json
      agentout gain --html gain.html
      agentout gain --export ledger.parquet
      agentout gain --since 7d --export s3://team-bucket/ledger/alice.jsonl

    --export writes one row per delivery in a stable schema (docs/ledger-export.md),
    for DuckDB, BigQuery or ClickHouse; AGENTOUT_LEDGER_EXPORT=DIR-or-URL also writes
    each session's rows there, one new file per session.
    """
    from agentout.ledger import book as ledger
    from agentout.ledger.report import Report, as_csv

    start = parse_since(since)
    where = str(Path(project).resolve()) if project else None
    rows = [row for row in ledger.rows(since=start) if where is None or row.project == where]
    _tell_news()
    if export_file:
        from agentout.ledger.export import export

        count = export(rows, export_file)
        click.echo(f"{count} {'delivery' if count == 1 else 'deliveries'} written to {export_file}")
        return
    report = Report.of(rows, period=period, recent=recent)
    if html_file:
        try:
            Path(html_file).write_text(report.as_html(), encoding="utf-8")
        except OSError as exc:
            fail(f"{html_file}: cannot write ({exc.strerror or exc})")
    if format_name == "json":
        click.echo(report.as_json(), nl=False)
    elif format_name == "csv":
        click.echo(as_csv(rows), nl=False)
    else:
        _show(report, ledger.database_path())


def _tell_news() -> None:
    """One line on stderr when the detached recorder logged something since last time."""
    from agentout.ledger.database import database_path
    from agentout.ledger.news import news

    found = news(database_path())
    if found is not None:
        click.echo(f"agentout: ledger: {found}", err=True)


def _show(report: Report, path: Path) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(soft_wrap=False)
    total = report.total
    if not total.deliveries:
        console.print(f"No deliveries recorded yet ({path}).")
        return
    console.print(
        f"[bold]{total.shown_saved:,}[/] tokens saved of the {total.shown:,} the model would "
        f"have read ({total.shown_percent}%), {total.delivered:,} delivered in "
        f"{total.deliveries:,} deliveries"
        + (f"; {total.unknown} without a raw count" if total.unknown else "")
    )
    if total.shown != total.raw:  # the clients cut or previewed some: the whole beside it
        console.print(
            f"Of the whole outputs, {total.raw:,} tokens, {total.saved:,} saved "
            f"({total.percent}%): the agents' clients would have shown the model "
            f"{total.shown:,} of them (their inline limit, preview or failure cut)"
        )
    commands = Table(title="Per command", title_justify="left")
    for name in ("command", "runs", "raw", "shown", "delivered", "saved", "%"):
        commands.add_column(name, justify="left" if name == "command" else "right")
    for key, item in report.top_commands(15):
        commands.add_row(
            key, str(item.deliveries), f"{item.raw:,}", f"{item.shown:,}",
            f"{item.delivered:,}", f"{item.shown_saved:,}", f"{item.shown_percent}",
        )  # fmt: skip
    console.print(commands)
    console.print(_chart(report))
    history = Table(title="Recent", title_justify="left")
    for name in ("time (UTC)", "tool", "agent", "command", "shown", "delivered"):
        if name == "command":  # one line a delivery: a long command ends in "…"
            history.add_column(name, no_wrap=True, overflow="ellipsis", max_width=20)
        else:
            history.add_column(name, justify="right" if name in ("shown", "delivered") else "left")
    for row in report.recent:  # the raw side of each: gain --format csv
        history.add_row(
            time.strftime("%m-%d %H:%M", time.gmtime(row.time)), row.tool, row.agent or "-",
            row.command, "?" if row.baseline is None else f"{row.baseline:,}",
            f"{row.delivered_tokens:,}",
        )  # fmt: skip
    console.print(history)
    sys.stdout.flush()


def _chart(report: Report) -> object:
    """Tokens saved per period as bars (the last 14 periods)."""
    from rich.table import Table
    from rich.text import Text

    items = sorted(report.periods.items())[-14:]
    peak = max((item.shown_saved for _, item in items), default=0) or 1
    chart = Table(title=f"Saved per {report.period}", title_justify="left", box=None)
    chart.add_column(report.period)
    chart.add_column("saved", justify="right")
    chart.add_column("")
    for key, item in items:
        bar = Text("█" * max(0, round(30 * item.shown_saved / peak)), style="green")
        chart.add_row(key, f"{item.shown_saved:,}", bar)
    return chart
