"""``agentout discover``: the savings agentout would have made on an agent's past commands."""

from __future__ import annotations

import json
from pathlib import Path

import click

from agentout.cli._options import fail, reports_errors


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


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
    """Replay agentout's Claude Code hooks on the commands in Claude Code's transcripts.

    Reads the session transcripts (PATH, else ~/.claude/projects or
    $CLAUDE_CONFIG_DIR/projects), pairs each Bash command with the output it returned,
    and replays what the hooks would have done with it, with the rules of the project it
    ran in: routed by PreToolUse (as `agentout run` prints it), replaced by PostToolUse
    (a command that succeeded), or neither (a command that failed, which no hook can
    reduce unless an allow rule lets PreToolUse route it: the rule is named). The
    numbers are exact token counts: the output the agent got against what it would have
    got. Lists the commands that would gain most, those no reducer handles yet, the
    failing ones, and the MCP tools whose results the PostToolUse hook would fit
    (budgets from the config file's [mcp] table). Reads only; lines that are not JSON
    are skipped and counted.

    \b
    Examples:
      agentout discover
      agentout discover --since 7d --project ~/src/app
      agentout discover --format json
    """
    from agentout.agents._claude_settings import config_dir
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
    config = load()
    summary, replays = summarise(found.calls, config=config)
    tools = summarise_mcp(found.mcp_calls, config, str(config_path()))
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
            "exact": all(r.exact for r in replays),
            "hooks": summary.hooks(),
            "commands": [f.as_dict() for f in summary.most_gained(limit)],
            "unhandled": [f.as_dict() for f in summary.unhandled(limit)],
            "failing": [f.as_dict() for f in summary.failing(limit)],
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
        f"{_count(summary.calls, 'shell command')} in {_count(found.files, 'transcript')}: "
        f"{summary.raw:,} tokens of output, {summary.delivered:,} through agentout's hooks "
        f"({summary.saved:,} saved, {percent}%)"
    )
    if found.broken:
        click.echo(f"{_count(found.broken, 'line')} skipped (not JSON)")
    hooks = summary.hooks()
    click.echo(
        f"Reached by agentout's functions in the session's shell: {hooks['shell']:,}; "
        f"by PostToolUse (exit 0, output replaced): {hooks['PostToolUse']:,}; "
        f"by neither (failed: a pipeline, a redirect, a program with no function): "
        f"{hooks['neither']:,}"
    )
    if not all(r.exact for r in replays):
        click.echo("(test commands are counted through their text, not their report)")
    click.echo("\nWould gain most:")
    for family in summary.most_gained(limit):
        click.echo(
            f"  {family.name:24} {family.calls:5} calls {family.raw:>10,} -> "
            f"{family.delivered:>9,} tokens"
        )
    click.echo("\nNo reducer yet (by output tokens):")
    for family in summary.unhandled(limit):
        click.echo(f"  {family.name:24} {family.calls:5} calls {family.raw:>10,} tokens")
    failing = summary.failing(limit)
    if failing:
        click.echo("\nFailed where nothing of agentout's reaches them:")
    for family in failing:
        calls = family.hooks["neither"]
        click.echo(f"  {family.name:24} {calls:5} calls {family.raw:>10,} tokens")
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
