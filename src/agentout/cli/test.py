"""``agentout test``: the agent report of a pytest run, or of JUnit XML from any runner."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import click

from agentout.cli._options import (
    EXIT_BAD_INPUT,
    EXIT_FAILED,
    EXIT_OK,
    budget_options,
    fail,
    format_option,
    record_delivery,
    reports_errors,
    tokenizer_option,
)
from agentout.sources.testing.settings import DEFAULT_LIMIT, FOCUS_MODES, FORMATS, MIN_LIMIT

_PYTEST_ARGS = "agentout.pytest_args"


class _SplitAtDashes(click.Command):
    """Everything after ``--`` goes to pytest as it is, never parsed by click."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if "--" in args:
            cut = args.index("--")
            ctx.meta[_PYTEST_ARGS] = args[cut + 1 :]
            args = args[:cut]
        return super().parse_args(ctx, args)


@click.command(cls=_SplitAtDashes)
@click.argument("files", nargs=-1, metavar="[FILE.xml]... [-- PYTEST_ARGS]")
@click.option(
    "--focus",
    type=click.Choice(FOCUS_MODES),
    default="failures",
    show_default=True,
    help="summary: counts and files; critical: errors, no assertion failures; "
    "first-failure: one per file; failures: all; debug: all, with source lines.",
)
@budget_options
@format_option(FORMATS, "records")
@tokenizer_option
@reports_errors
def test(
    files: tuple[str, ...],
    focus: str,
    max_tokens: int | None,
    max_chars: int | None,
    format_name: str,
    tokenizer: str | None,
) -> None:
    """Run pytest, or read JUnit XML, and print the agent report within the budget.

    With -- PYTEST_ARGS (or nothing), runs pytest with the agent report on; the exit
    status is pytest's. With FILE.xml files (pytest --junitxml, Maven Surefire,
    go-junit-report, jest-junit, cargo-nextest), renders them in the same report: exit
    status 1 if it holds failures or errors, 0 if everything passed, 2 for bad input.
    Failures sharing a root cause are reported once; when there are failures, the
    last line names a private file with the full report (every traceback).

    \b
    Examples:
      agentout test -- -x tests/
      agentout test --focus first-failure --max-tokens 1500 -- -n 4
      agentout test target/surefire-reports/*.xml
      agentout test --format json report.xml
    """
    pytest_args: list[str] | None = click.get_current_context().meta.get(_PYTEST_ARGS)
    limit = DEFAULT_LIMIT if max_tokens is None else max_tokens
    for name, value in (("--max-tokens", limit), ("--max-chars", max_chars)):
        if value is not None and value < MIN_LIMIT:
            fail(f"{name} must be at least {MIN_LIMIT}, got {value}")
    if files and pytest_args is not None:
        fail("give FILE.xml files or -- PYTEST_ARGS, not both")
    options: dict[str, Any] = {
        "focus": focus,
        "limit": limit,
        "max_chars": max_chars,
        "format": format_name,
        "tokenizer": tokenizer,
    }
    if files:
        sys.exit(_junit(files, options))
    sys.exit(_pytest(pytest_args or [], options))


def _junit(files: tuple[str, ...], options: dict[str, Any]) -> int:
    from agentout.sources.testing.junit import read_junit
    from agentout.sources.testing.report import render

    run = read_junit(files)
    text = render(
        run,
        focus=options["focus"],
        max_tokens=options["limit"],
        max_chars=options["max_chars"],
        tokenizer=options["tokenizer"],
        format=options["format"],
    )
    click.echo(text, nl=False)
    record_delivery("test", " ".join(files), text, tokenizer=options["tokenizer"], raw=None)
    return EXIT_FAILED if run.counts.failed or run.counts.errors else EXIT_OK


def _pytest(args: list[str], options: dict[str, Any]) -> int:
    """pytest in a child process (its own imports and exit), the agent report on."""
    command = [sys.executable, "-m", "pytest", "--agent"]
    command += [f"--agent-focus={options['focus']}", f"--agent-limit={options['limit']}"]
    command.append(f"--agent-format={options['format']}")
    if options["max_chars"] is not None:
        command.append(f"--agent-max-chars={options['max_chars']}")
    if options["tokenizer"]:
        command.append(f"--agent-tokenizer={options['tokenizer']}")
    try:
        child = subprocess.Popen([*command, *args])
    except OSError as exc:
        fail(f"cannot run pytest: {exc}", EXIT_BAD_INPUT)
    while True:
        try:
            return child.wait()
        except KeyboardInterrupt:  # the child got the same Ctrl-C: let it write its report
            continue
