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

_HEARTBEAT_AFTER = 3.0  # seconds before a quiet command gets a line on the terminal


@click.command(context_settings={"allow_interspersed_args": False})
@budget_options
@click.option(
    "--inline-threshold",
    type=click.IntRange(min=0),
    metavar="BYTES",
    default=None,
    help="Output up to BYTES is shown whole (default $AGENTOUT_INLINE_THRESHOLD or 8192).",
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
    help="Run CMD, one string, through your shell ($SHELL -c), pipes and all.",
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
@format_option(FORMAT_NAMES, "raw")
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
    format_name: str,
    tokenizer: str | None,
) -> None:
    """Run CMD and print, within the budget, what an agent needs from its output.

    The command inherits the environment, the directory and stdin; stdout and stderr
    are read merged, in order. Output that fits is printed as it was (colour and
    progress redraws resolved), with [exit N] when the status is not 0. A command
    agentout knows (git, ls, grep, linters, compilers, test runners, ...) is shown in
    its compact form, keeping every name, location and message. Output that does not
    fit keeps the lines that matter (errors with their detail, warnings, the end),
    each gap marked with the command that shows it; the complete output is stored for
    `agentout show`. The exit status is the command's (127 if not found, 128+N if
    killed by signal N, 124 on --timeout). A signal to agentout goes to the command
    and everything it started; a second one, or 3 seconds, ends them all.

    \b
    Examples:
      agentout run -- git status
      agentout run --max-tokens 800 -- pytest -x
      agentout run --shell 'make 2>&1 | tail -50'
      agentout run --timeout 600 -- cargo build
    """
    from agentout.sources.command import run as run_command

    heartbeat = _Heartbeat() if _is_terminal(sys.stderr) else None
    done = run_command(
        command,
        max_tokens=max_tokens,
        max_chars=max_chars,
        inline_threshold=inline_threshold,
        mode=mode,
        format=format_name,
        tokenizer=tokenizer,
        shell=shell,
        timeout=timeout,
        reduce=not no_reduce,
        on_tick=heartbeat.tick if heartbeat else None,
    )
    if heartbeat:
        heartbeat.clear()
    if done.delivery.warning:
        click.echo(f"agentout: warning: {done.delivery.warning}", err=True)
    packed = done.delivery.packed
    if packed is not None and packed.format == "text":
        echo_packed(packed)
    else:
        sys.stdout.write(done.delivery.text)
    sys.stdout.flush()
    given, outcome = done.delivery, done.outcome
    raw = given.ref.path if given.ref else (given.text if given.packed is None else None)
    record_delivery("run", shlex.join(command), given.packed or given.text, raw=raw,
                    tokenizer=tokenizer, duration=outcome.duration,
                    exit_status=outcome.exit_status)  # fmt: skip
    sys.exit(done.outcome.exit_status)


def _is_terminal(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


class _Heartbeat:
    """One line on the terminal while a command runs longer than a few seconds."""

    def __init__(self) -> None:
        self.shown = False

    def tick(self, seconds: float, lines: int) -> None:
        if seconds >= _HEARTBEAT_AFTER:
            sys.stderr.write(f"\r\x1b[Kagentout: running {seconds:.0f}s, {lines:,} lines so far")
            sys.stderr.flush()
            self.shown = True

    def clear(self) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
