"""``agentout init``: put agentout where an agent CLI will use it, and take it out again."""

from __future__ import annotations

import importlib
import shlex
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from agentout.cli._options import EXIT_BAD_INPUT, EXIT_FAILED, reports_errors

AGENTS = ("claude", "gemini", "copilot", "cursor", "opencode", "codex")
# the agents whose hooks start agentout themselves: through the warm hook server's client
_HOOKED = ("claude", "codex", "gemini")
_SHARED_FILES = {"claude": ".mcp.json", "opencode": "opencode.json", "cursor": ".cursor/mcp.json",
                 "gemini": ".gemini/settings.json"}  # fmt: skip


@click.command()
@click.argument("agent", type=click.Choice(AGENTS), default="claude", required=False)
@click.option("--global", "global_", is_flag=True, help="The user's files, not the project's.")
@click.option("--uninstall", is_flag=True, help="Remove what any earlier init added.")
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
    type=click.Path(exists=True, file_okay=False),
    default=".",
    show_default=True,
    help="The project whose files are changed (it must exist).",
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

    Writes, into the agent's own files and nowhere else: the hooks (Claude Code:
    functions in the session's shell that reduce the commands agentout knows where
    Claude Code captures their output, and a finished command's output replaced by
    agentout's smaller form, never a permission decided; Codex: the commands its own
    rules allow run through `agentout run`; Gemini CLI, with --output-hook: shrinks a
    finished command's output), the MCP server
    (`agentout serve`; `agentout` itself in a file a team shares, when it is on PATH), and
    two lines of instructions. Other entries are never touched; running it again changes
    nothing. A copy of each file it changes is kept in agentout's data directory (listed by
    --show), never in the project. --uninstall removes whatever an earlier init added,
    whatever its flags, gives a file left as it was its exact bytes back, and keeps an
    entry another agent's install still uses (AGENTS.md). --show lists each entry, the
    copies, and runs the installed hook once.

    \b
    Examples:
      agentout init                  # Claude Code, this project
      agentout init claude --global  # Claude Code, every project
      agentout init codex --show
      agentout init gemini --uninstall
    """
    from agentout.agents import _install, _installs
    from agentout.agents._routing import agentout_command

    if output_hook and agent != "gemini":
        raise click.UsageError("--output-hook is for gemini only")
    agentout = agentout_command()
    scope = "global" if global_ else "project"
    project = Path(project_dir).resolve()
    where = "global" if global_ else str(project)
    server, note = _shared_command(agentout)
    wanted = _edits(agent, scope, project, agentout, server, no_ledger, output_hook)
    from agentout.agents._common import MCP_HINT, mcp_available

    without_mcp = not mcp_available()
    if without_mcp and not uninstall:  # an entry that would start nothing is not written
        wanted = _without_mcp(wanted)
    if show:
        _show(agent, wanted, agentout)
        return
    if uninstall:  # every variant an earlier init may have written
        variants = wanted + _edits(agent, scope, project, agentout, server, not no_ledger, True)
        edits = _unique(variants)
    else:
        edits = wanted
    for edit in edits:  # every file read first: a broken one stops init before any write
        _install.state(edit)
    if uninstall:
        shared = _still_used(agent, where)
        for edit in edits:
            user = shared.get(_install.target(edit))
            if user is not None and _install.state(edit) != "absent":
                click.echo(f"{'kept':9} {edit.describe()} (still used by {user})")
                continue
            changed = _install.apply(edit, remove=True)
            if changed or edit in wanted:
                click.echo(f"{'removed' if changed else 'absent':9} {edit.describe()}")
        _installs.record(agent, where, present=False)
        return
    added = 0
    for edit in edits:
        changed = _install.apply(edit)
        added += changed
        click.echo(f"{'added' if changed else 'unchanged':9} {edit.describe()}")
    _installs.record(agent, where, present=True)
    if added and note is not None and not global_ and agent in _SHARED_FILES and not without_mcp:
        click.echo(f"note: {_SHARED_FILES[agent]} starts the MCP server as {note}")
    if without_mcp:
        click.echo(f"note: no MCP server entry: {MCP_HINT}; then run init again")


def _edits(
    agent: str,
    scope: str,
    project: Path,
    agentout: Sequence[str],
    server: Sequence[str],
    no_ledger: bool,
    output_hook: bool,
) -> list[Any]:
    from agentout.agents._routing import hook_command

    module = importlib.import_module(f"agentout.agents.{agent}")
    extra: dict[str, Any] = {"output_hook": output_hook} if agent == "gemini" else {}
    if agent in _HOOKED:
        extra["hook"] = hook_command()
    edits: list[Any] = module.edits(
        scope=scope,
        home=Path.home(),
        project=project,
        agentout=agentout,
        ledger=not no_ledger,
        server=server,
        **extra,
    )
    return edits


def _without_mcp(edits: Sequence[Any]) -> list[Any]:
    """The edits but the MCP server's entry, and instructions that do not name its tools."""
    import dataclasses

    from agentout.agents._install import TextBlock, serves_mcp

    kept = []
    for edit in edits:
        if serves_mcp(edit):
            continue
        if isinstance(edit, TextBlock):
            lines = tuple(line for line in edit.lines if "agentout MCP tools" not in line)
            edit = dataclasses.replace(edit, lines=lines)
        kept.append(edit)
    return kept


def _unique(edits: Sequence[Any]) -> list[Any]:
    from agentout.agents._install import target

    seen: set[tuple[str, ...]] = set()
    kept = []
    for edit in edits:
        if target(edit) not in seen:
            seen.add(target(edit))
            kept.append(edit)
    return kept


def _shared_command(agentout: Sequence[str]) -> tuple[list[str], str | None]:
    """How a file a team commits starts agentout: ``agentout`` when it is on PATH (installed
    with ``uv tool install``, ``pipx install`` or into the environment), else this
    machine's path, and the note that says so."""
    if shutil.which("agentout"):
        return ["agentout"], None
    shown = shlex.join(agentout)
    return list(agentout), (
        f"{shown}, a path of this machine; put agentout on PATH (uv tool install . or "
        "pipx install .) and run init again for a command that works on every machine"
    )


def _still_used(agent: str, where: str) -> dict[tuple[str, ...], str]:
    """The targets of the other recorded installs whose entries are still there: what
    uninstalling this one must leave (target -> "AGENT SCOPE")."""
    from agentout.agents import _install, _installs
    from agentout.agents._routing import agentout_command
    from agentout.errors import InputError

    used: dict[tuple[str, ...], str] = {}
    for other, scopes in sorted(_installs.installed().items()):
        for scope in scopes:
            if (other, scope) == (agent, where) or other not in AGENTS:
                continue
            project = Path.home() if scope == "global" else Path(scope)
            kind = "global" if scope == "global" else "project"
            edits = _edits(other, kind, project, agentout_command(), ["agentout"], False, True)
            for edit in edits:
                try:
                    present = _install.state(edit) != "absent"
                except InputError:
                    present = True  # unreadable: left alone
                if present:
                    used.setdefault(_install.target(edit), f"{other} ({scope})")
    return used


def _show(agent: str, edits: Sequence[Any], agentout: Sequence[str]) -> None:
    from agentout.agents import _install, _installs

    module = importlib.import_module(f"agentout.agents.{agent}")
    problems = 0
    for edit in edits:
        state = _install.state(edit)
        problems += state != "installed"
        click.echo(f"{state:9} {edit.describe()}")
    for path in sorted({edit.path for edit in edits}):
        copy = _installs.backup_of(path)
        if copy.exists():
            click.echo(f"{'backup':9} {path}: a copy from before init, {copy}")
    check = getattr(module, "check", None)
    if check is not None and all(_install.state(e) == "installed" for e in edits):
        from agentout.agents._routing import hook_command

        trouble = check(hook_command() if agent in _HOOKED else agentout)
        click.echo(f"{'broken' if trouble else 'runs':9} {trouble or 'the hook answers'}")
        problems += trouble is not None
    from agentout.agents._config import problem

    bad_config = problem()  # the hooks change nothing while it is bad: said, exit 2
    if bad_config is not None:
        click.echo(f"{'broken':9} {bad_config}")
    raise SystemExit(EXIT_BAD_INPUT if bad_config else EXIT_FAILED if problems else 0)
