"""``agentout discover``: the savings agentout would have made on an agent's past commands."""

from __future__ import annotations

import json
from pathlib import Path

import click

from agentout.cli._options import fail, reports_errors


@click.command()
@click.argument("path", required=False, type=click.Path(), metavar="[PATH]")
@click.option("--since", metavar="WHEN", help="Only commands since 7d, 12h, 2w or YYYY-MM-DD.")
@click.option("--project", metavar="DIR", help="Only commands run in project DIR.")
@click.option(
    "--format",
    "format_name",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
)
@click.option("--limit", type=click.IntRange(min=1), default=15, show_default=True)
@reports_errors
def discover(
    path: str | None, since: str | None, project: str | None, format_name: str, limit: int
) -> None:
    """Replay agentout on the shell commands in Claude Code's transcripts.

    Reads the session transcripts (PATH, else ~/.claude/projects or
    $CLAUDE_CONFIG_DIR/projects), pairs each Bash command with the output it returned,
    and runs that output through what `agentout run` would do, so the numbers are exact
    token counts: the output the agent got against what agentout would have printed.
    Lists the commands that would gain most and those no reducer handles yet, and the
    MCP tools whose results the PostToolUse hook would fit (budgets from the config
    file's [mcp] table). Reads only; lines that are not JSON are skipped and counted.

    \b
    Examples:
      agentout discover
      agentout discover --since 7d --project ~/src/app
      agentout discover --format json
    """
    from agentout.agents._claude_rules import config_dir
    from agentout.agents.discover import summarise, summarise_mcp
    from agentout.agents.transcripts import read
    from agentout.cli.gain import parse_since
    from agentout.read.config import config_path, load

    root = Path(path) if path else Path(config_dir()) / "projects"
    if not root.exists():
        usual = "Claude Code keeps transcripts in ~/.claude/projects"
        fail(f"{root}: no such file or folder ({usual})")
    where = str(Path(project).expanduser().resolve()) if project else None
    found = read(root, since=parse_since(since), project=where)
    summary, _ = summarise(found.calls)
    tools = summarise_mcp(found.mcp_calls, load(), str(config_path()))
    gaining = sorted((f for f in tools.values() if f.saved > 0), key=lambda f: (-f.saved, f.name))[
        :limit
    ]
    if format_name == "json":
        data = {
            "files": found.files,
            "lines": found.lines,
            "broken_lines": found.broken,
            "unanswered": found.unanswered,
            "calls": summary.calls,
            "raw_tokens": summary.raw,
            "delivered_tokens": summary.delivered,
            "saved_tokens": summary.saved,
            "commands": [f.as_dict() for f in summary.most_gained(limit)],
            "unhandled": [f.as_dict() for f in summary.unhandled(limit)],
            "mcp_calls": len(found.mcp_calls),
            "mcp_raw_tokens": sum(f.raw for f in tools.values()),
            "mcp_delivered_tokens": sum(f.delivered for f in tools.values()),
            "mcp_tools": [
                {
                    "tool": f.name,
                    "calls": f.calls,
                    "raw_tokens": f.raw,
                    "delivered_tokens": f.delivered,
                    "saved_tokens": f.saved,
                }
                for f in gaining
            ],
        }
        click.echo(json.dumps(data, indent=2, ensure_ascii=False))
        return
    percent = 0.0 if summary.raw <= 0 else round(100 * summary.saved / summary.raw, 1)
    click.echo(
        f"{summary.calls} shell commands in {found.files} transcripts: {summary.raw:,} tokens "
        f"of output, {summary.delivered:,} through agentout ({summary.saved:,} saved, {percent}%)"
    )
    if found.broken:
        click.echo(f"{found.broken} lines skipped (not JSON)")
    click.echo("\nWould gain most:")
    for family in summary.most_gained(limit):
        click.echo(
            f"  {family.name:24} {family.calls:5} calls {family.raw:>10,} -> "
            f"{family.delivered:>9,} tokens"
        )
    click.echo("\nNo reducer yet (by output tokens):")
    for family in summary.unhandled(limit):
        click.echo(f"  {family.name:24} {family.calls:5} calls {family.raw:>10,} tokens")
    if found.mcp_calls:
        raw = sum(f.raw for f in tools.values())
        saved = raw - sum(f.delivered for f in tools.values())
        share = 0.0 if raw <= 0 else round(100 * saved / raw, 1)
        click.echo(
            f"\n{len(found.mcp_calls)} MCP tool results: {raw:,} tokens, "
            f"{saved:,} saved by the PostToolUse hook ({share}%)"
        )
        if gaining:
            click.echo("MCP tools that would gain:")
        for family in gaining:
            click.echo(
                f"  {family.name:40} {family.calls:5} calls {family.raw:>10,} -> "
                f"{family.delivered:>9,} tokens"
            )
