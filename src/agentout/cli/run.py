"""``agentout run``: run a command; the agent gets what matters, the rest is kept."""

from __future__ import annotations

import shlex
import sys

import click

from agentout.cli._options import (
    budget_options,
    echo_packed,
    format_option,
    record_delivery,
    reports_errors,
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
    help="Inline output up to BYTES (default $AGENTOUT_INLINE_THRESHOLD or 8192).",
)
@click.option(
    "--mode",
    type=click.Choice(["auto", "inline", "file"]),
    default="auto",
    show_default=True,
    help="inline: all output inline; file: always spill.",
)
@format_option(FORMAT_NAMES, "records")
@tokenizer_option
@click.argument("command", nargs=-1, required=True, metavar="-- CMD [ARGS]...")
@reports_errors
def run(
    command: tuple[str, ...],
    max_tokens: int | None,
    max_chars: int | None,
    inline_threshold: int | None,
    mode: str,
    format_name: str,
    tokenizer: str | None,
) -> None:
    """Run CMD and print, within the budget, what an agent needs from its output.

    The command inherits the environment, the directory and stdin; stdout and stderr
    are read merged, in order. The result names the command, its exit status and
    duration, and shows the lines that matter (errors, tracebacks, failing tests,
    warnings, the last lines) before the noise (progress bars, colour, repeats, folded
    as (×N)). Small output is shown whole; otherwise the complete output is kept in the
    spill store and the result names it, for `agentout show`. The exit status is the
    command's (127 if not found, 128+N if killed by signal N).

    \b
    Examples:
      agentout run -- make test
      agentout run --max-tokens 800 -- pytest -x
      agentout run --format json -- cargo build
    """
    from agentout.sources.command import run as run_command

    done = run_command(
        command,
        max_tokens=max_tokens,
        max_chars=max_chars,
        inline_threshold=inline_threshold,
        mode=mode,
        format=format_name,
        tokenizer=tokenizer,
    )
    if done.delivery.warning:
        click.echo(f"agentout: warning: {done.delivery.warning}", err=True)
    echo_packed(done.delivery.packed)
    sys.stdout.flush()
    spilled = done.delivery.ref.path if done.delivery.ref else None
    outcome = done.outcome
    record_delivery("run", shlex.join(command), done.delivery.packed, raw=spilled,
                    duration=outcome.duration, exit_status=outcome.exit_status)  # fmt: skip
    sys.exit(done.outcome.exit_status)
