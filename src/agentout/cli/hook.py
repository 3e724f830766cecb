"""``agentout hook AGENT``: the hook an agent CLI runs around each shell command.

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
    """Answer one hook call of AGENT (claude, gemini): read its JSON on stdin, print the answer.

    A command is routed through `agentout run` only when the agent would run it
    without asking anyone (an explicit allow rule, or bypassPermissions with no deny or
    ask rule for it); otherwise the answer is empty and the agent decides as it would
    without agentout. Anything wrong (bad JSON, no command, a crash, a timeout) leaves
    the command unchanged, with one line on stderr. Always exit status 0.

    gemini (AfterTool, after run_shell_command finished): the model gets agentout
    run's smaller delivery of the output when it is fewer tokens, else {}; another MCP
    server's result over agentout's MCP budget is cut to fit. It never changes what
    runs or what is allowed.

    \b
    Installed by:
      agentout init claude
      agentout init gemini
    """
    from agentout.agents.hook import main

    sys.exit(main([agent]))
