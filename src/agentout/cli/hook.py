"""``agentout hook AGENT``: the hook an agent CLI runs around its tool calls.

``agentout hook claude`` and ``agentout hook gemini`` are answered without loading click
(``agentout.cli`` dispatches them first); this command is what ``--help`` lists and
what runs when the hook is called another way.
"""

from __future__ import annotations

import sys

import click


@click.command()
@click.argument("agent", metavar="AGENT")
def hook(agent: str) -> None:
    """Answer one hook call of AGENT (claude, codex, gemini, opencode): JSON in, answer out.

    claude, PostToolUse of Bash (a command that exited 0): the model gets agentout
    run's form of the output (the command's reducer, or the lines that matter with the
    whole in the store) when it is smaller or hides a secret, within what Claude Code
    shows inline (30,000 characters, or BASH_MAX_OUTPUT_LENGTH); the same output twice
    in a session is one line naming the first ([shell] dedupe = false in config.toml
    turns that off). Never reduced twice: a command that ran agentout is left alone.

    claude, PostToolUse of an MCP tool (mcp__SERVER__TOOL): a result over its budget
    (the [mcp] table of config.toml; 5000 tokens by default) is answered fitted, in the
    same form, the whole of it in the spill store and named with `agentout show REF`.

    claude, PreToolUse of Bash: a command is routed through `agentout run` only when
    the agent would run it without asking anyone (an explicit allow rule, or
    bypassPermissions with no deny or ask rule for it); otherwise the answer is empty and
    the agent decides as it would without agentout.

    gemini (AfterTool, after run_shell_command finished): the model gets agentout
    run's smaller delivery of the output when it is fewer tokens, else {}; another MCP
    server's result over agentout's MCP budget is cut to fit. It never changes what
    runs or what is allowed.

    codex, PreToolUse of its shell tool: routed through `agentout run` (allow with
    updatedInput) only when Codex's own prefix rules allow every part of the command.

    opencode (the plugin, after the bash tool): {"output": TEXT}, agentout's form of
    the output, or nothing.

    Anything wrong (bad JSON, no command, a crash, a timeout) leaves the command and its
    output unchanged, with one line on stderr. Always exit status 0.

    \b
    Installed by:
      agentout init claude
      agentout init codex
      agentout init gemini
      agentout init opencode      (its plugin calls `agentout hook opencode`)
    """
    from agentout.agents.hook import main

    sys.exit(main([agent]))
