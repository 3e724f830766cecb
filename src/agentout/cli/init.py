"""``agentout init``: put agentout where an agent CLI will use it, and take it out again."""

from __future__ import annotations

import importlib
from pathlib import Path

import click

from agentout.cli._options import EXIT_FAILED, reports_errors

AGENTS = ("claude", "gemini", "copilot", "cursor", "opencode", "codex")


@click.command()
@click.argument("agent", type=click.Choice(AGENTS), default="claude", required=False)
@click.option("--global", "global_", is_flag=True, help="The user's files, not the project's.")
@click.option("--uninstall", is_flag=True, help="Remove exactly what init added.")
@click.option("--show", is_flag=True, help="Say what is installed, and check that it runs.")
@click.option("--no-ledger", is_flag=True, help="Turn the savings ledger off for this agent.")
@click.option(
    "--output-hook",
    is_flag=True,
    help="Gemini CLI: also install the AfterTool hook that shrinks a finished command's "
    "output (Gemini CLI shows each result it replaces as 'Tool result blocked').",
)
@click.option(
    "--project",
    "project_dir",
    type=click.Path(file_okay=False),
    default=".",
    show_default=True,
    help="The project whose files are changed.",
)
@reports_errors
def init(
    agent: str,
    global_: bool,
    uninstall: bool,
    show: bool,
    no_ledger: bool,
    output_hook: bool,
    project_dir: str,
) -> None:
    """Install agentout for AGENT (claude, gemini, copilot, cursor, opencode, codex).

    Writes, into the agent's own files and nowhere else: the hook (Claude Code: runs
    the commands your permission rules allow through `agentout run`, never changing
    what they decide; Gemini CLI, with --output-hook: shrinks a finished command's
    output), the MCP server (`agentout serve`), and two lines of instructions.
    Other entries are never touched; a file that existed keeps a copy beside it
    (FILE.agentout-backup); running it again changes nothing. --uninstall removes exactly
    what was added. --show lists each entry and runs the installed hook once.

    \b
    Examples:
      agentout init                  # Claude Code, this project
      agentout init claude --global  # Claude Code, every project
      agentout init codex --show
      agentout init gemini --uninstall
    """
    from agentout.agents import _install
    from agentout.agents._routing import agentout_command

    if output_hook and agent != "gemini":
        raise click.UsageError("--output-hook is for gemini only")
    module = importlib.import_module(f"agentout.agents.{agent}")
    agentout = agentout_command()
    # --uninstall removes the output hook whether or not it is named
    extra = {"output_hook": output_hook or uninstall} if agent == "gemini" else {}
    edits = module.edits(
        scope="global" if global_ else "project",
        home=Path.home(),
        project=Path(project_dir).resolve(),
        agentout=agentout,
        ledger=not no_ledger,
        **extra,
    )
    if show:
        problems = 0
        for edit in edits:
            state = _install.state(edit)
            problems += state != "installed"
            click.echo(f"{state:9} {edit.describe()}")
        check = getattr(module, "check", None)
        if check is not None and all(_install.state(e) == "installed" for e in edits):
            trouble = check(agentout)
            click.echo(f"{'broken' if trouble else 'runs':9} {trouble or 'the hook answers'}")
            problems += trouble is not None
        raise SystemExit(EXIT_FAILED if problems else 0)
    for edit in edits:  # every file read first: a broken one stops init before any write
        _install.state(edit)
    for edit in edits:
        changed = _install.apply(edit, remove=uninstall)
        verb = (
            ("removed" if changed else "absent")
            if uninstall
            else ("added" if changed else "unchanged")
        )
        click.echo(f"{verb:9} {edit.describe()}")
