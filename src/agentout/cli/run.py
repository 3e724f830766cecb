"""``agentout run``: run a command; the agent gets what matters, the rest is kept."""

from __future__ import annotations

from typing import Any

import click

from agentout.cli._options import (
    budget_options,
    format_option,
    reports_errors,
    store_option,
    tokenizer_option,
)
from agentout.formats import FORMAT_NAMES


@click.command(context_settings={"allow_interspersed_args": False})
@budget_options
@click.option(
    "--inline-threshold",
    type=click.IntRange(min=0),
    metavar="BYTES",
    default=None,
    help="Output up to BYTES is shown whole (default $AGENTOUT_INLINE_THRESHOLD, else what "
    "Claude Code shows inline: $BASH_MAX_OUTPUT_LENGTH or 30000 characters).",
)
@click.option(
    "--mode",
    type=click.Choice(["auto", "inline", "file"]),
    default="auto",
    show_default=True,
    help="inline: all output shown, nothing stored; file: always store it.",
)
@click.option(
    "--shell",
    "shell",
    is_flag=True,
    help="Run CMD, one string, through bash (bash -c, as Claude Code runs it), pipes and all.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    metavar="SECONDS",
    default=None,
    help="End the command and everything it started after SECONDS (exit status 124).",
)
@click.option(
    "--no-reduce",
    is_flag=True,
    help="Never use a command's reducer: the lines that matter, as printed.",
)
@click.option(
    "--keep-secrets",
    is_flag=True,
    help="Store the output with its secrets (the agent still gets them hidden).",
)
@click.option(
    "--capture",
    type=click.Choice(["claude"]),
    default=None,
    help="The output is the agent client's own capture of it (Claude Code's, from "
    "agentout's functions in its shell): run the command unchanged unless it is a "
    "foreground call's, then replace the captured output with agentout's form.",
)
@format_option(FORMAT_NAMES, "raw")
@store_option
@tokenizer_option
@click.argument("command", nargs=-1, required=True, metavar="-- CMD [ARGS]...")
@reports_errors
def run(
    command: tuple[str, ...],
    max_tokens: int | None,
    max_chars: int | None,
    inline_threshold: int | None,
    mode: str,
    shell: bool,
    timeout: float | None,
    no_reduce: bool,
    keep_secrets: bool,
    capture: str | None,
    format_name: str,
    tokenizer: str | None,
) -> None:
    """Run CMD and print, within the budget, what an agent needs from its output.

    The command inherits the environment, the directory and stdin; stdout and stderr
    are read merged, in order. Output that fits is printed as it was (colour and
    progress redraws resolved), nothing added whatever the exit status. A command
    agentout knows (git, ls, grep, linters, compilers, test runners, ...) is shown in
    its compact form, keeping every name, location and message. Output that does not
    fit keeps the lines that matter (errors with their detail, warnings, the end),
    each gap marked with the command that shows it; the complete output is stored for
    `agentout show`. Secrets (tokens, keys, passwords, the values of your
    *_TOKEN/*_KEY/... variables) are hidden as [secret: KIND], in the store too, and
    counted (secrets=N); AGENTOUT_REDACT=0 turns that off. The exit status is the
    command's (127 if not found, 128+N if killed by signal N, 124 on --timeout). A
    signal to agentout goes to the command and everything it started; a second one,
    or 3 seconds, ends them all.

    \b
    Examples:
      agentout run -- git status
      agentout run --max-tokens 800 -- pytest -x
      agentout run --shell 'make 2>&1 | tail -50'
      agentout run --timeout 600 -- cargo build
    """
    from agentout.cli.quick import deliver

    options: dict[str, Any] = {
        "command": command,
        "max_tokens": max_tokens,
        "max_chars": max_chars,
        "inline_threshold": inline_threshold,
        "mode": mode,
        "shell": shell,
        "timeout": timeout,
        "no_reduce": no_reduce,
        "keep_secrets": keep_secrets,
        "format_name": format_name,
        "tokenizer": tokenizer,
    }
    if capture is not None:
        from agentout.cli import run_capture

        run_capture.main([], {**options, "capture": capture}, warm=False)
    deliver(**options)
