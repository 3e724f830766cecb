"""``agentout test``: the agent report of a test run (any runner), or of JUnit XML."""

from __future__ import annotations

import os
import shlex
import sys
from typing import Any

import click

from agentout.cli._options import (
    EXIT_FAILED,
    EXIT_OK,
    budget_options,
    fail,
    format_option,
    record_delivery,
    reports_errors,
    store_option,
    tokenizer_option,
)
from agentout.sources.testing.settings import DEFAULT_LIMIT, FOCUS_MODES, FORMATS

_COMMAND = "agentout.test_command"
_NOT_FOUND = 127  # as a shell says it


class _SplitAtDashes(click.Command):
    """Everything after ``--`` is the test command, never parsed by click."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if "--" in args:
            cut = args.index("--")
            ctx.meta[_COMMAND] = args[cut + 1 :]
            args = args[:cut]
        return super().parse_args(ctx, args)


class _Focus(click.Choice[str]):
    """A focus mode; ``first_failure`` is taken for ``first-failure``."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and value.replace("_", "-") in self.choices:
            value = value.replace("_", "-")
        return super().convert(value, param, ctx)


@click.command(cls=_SplitAtDashes)
@click.argument("files", nargs=-1, metavar="[FILE.xml]... [-- COMMAND]")
@click.option(
    "--focus",
    type=_Focus(FOCUS_MODES),
    default="failures",
    show_default=True,
    help="summary: counts and files; critical: errors, no assertion failures; "
    "first-failure: one per file; failures: all; debug: all, with source lines.",
)
@budget_options
@format_option(FORMATS, "records")
@tokenizer_option
@store_option
@reports_errors
def test(
    files: tuple[str, ...],
    focus: str,
    max_tokens: int | None,
    max_chars: int | None,
    format_name: str,
    tokenizer: str | None,
) -> None:
    """Run tests with any runner, or read JUnit XML, and print the agent report.

    With -- COMMAND, runs it and reads the runner's own results (pytest, jest, vitest,
    go test, cargo test, cargo nextest, Maven, Gradle, node --test); with -- PYTEST_ARGS
    (or nothing), runs pytest in the project's Python (.venv/bin/python of the project,
    else python, then python3 on PATH; the report's python= says which), with or without
    agentout installed there. The exit status is the runner's. With FILE.xml files
    (JUnit XML from any runner), renders them: exit status 1 if they hold failures or
    errors, 0 if everything passed, 2 for bad input. Failures sharing a root cause are
    reported once; the last line names a private file with the full report.

    \b
    Examples:
      agentout test -- -x tests/
      agentout test -- npx jest src/
      agentout test --focus first-failure --max-tokens 1500 -- go test ./...
      agentout test -- cargo test
      agentout test target/surefire-reports/*.xml
    """
    command: list[str] | None = click.get_current_context().meta.get(_COMMAND)
    limit = DEFAULT_LIMIT if max_tokens is None else max_tokens
    for name, value in (("--max-tokens", limit), ("--max-chars", max_chars)):
        if value is not None and value < 1:
            fail(f"{name} must be at least 1, got {value}")
    if files and command is not None:
        fail("give FILE.xml files or -- COMMAND, not both")
    options: dict[str, Any] = {
        "focus": focus,
        "max_tokens": limit,
        "max_chars": max_chars,
        "format": format_name,
        "tokenizer": tokenizer,
    }
    if files:
        _not_a_test_path(files)
        sys.exit(_junit(files, options))
    sys.exit(_run(command or [], options))


def _not_a_test_path(files: tuple[str, ...]) -> None:
    """``agentout test tests/test_x.py`` means to run it: say how."""
    for name in files:
        if name.endswith((".py", ".js", ".ts", ".go", ".rs", ".java")) or os.path.isdir(name):
            fail(
                f"{name}: agentout test reads JUnit XML files; to run tests, "
                f"use: agentout test -- {name}"
            )


def _junit(files: tuple[str, ...], options: dict[str, Any]) -> int:
    from agentout.sources.testing.junit import read_junit
    from agentout.sources.testing.report import render

    run = read_junit(files)
    text = render(run, **options)
    click.echo(text, nl=False)
    record_delivery("test", " ".join(files), text, tokenizer=options.get("tokenizer"), raw=None)
    return EXIT_OK if run.passed else EXIT_FAILED


def _run(command: list[str], options: dict[str, Any]) -> int:
    """The test command in a child process; its report printed, its exit status ours."""
    from agentout.sources.testing.runners import (
        RUNNERS,
        RunnerError,
        detect,
        project_python,
        pytest_args,
        run_tests,
    )

    runner = detect(command)
    header: dict[str, str] = {}
    said = shlex.join(command)  # what the ledger names: the command as given
    if runner is None:
        if command and not command[0].startswith("-") and not _pytest_target(command[0]):
            fail(
                f"{command[0]}: not a test runner agentout knows ({', '.join(RUNNERS)}); "
                f"for pytest's own arguments, start with an option or a test path"
            )
        python, header["python"] = project_python()  # the project's, never agentout's own
        runner = pytest_args(command, python)
        said = shlex.join(["pytest", *command])
    from agentout.cli.quick import Heartbeat
    from agentout.read.visible import is_terminal

    heartbeat = Heartbeat() if is_terminal(sys.stderr) else None
    try:
        tick = heartbeat.tick if heartbeat else None
        done = run_tests(runner, **options, on_tick=tick, header=header)
    except RunnerError as exc:
        fail(str(exc), _NOT_FOUND)
    finally:
        if heartbeat:
            heartbeat.clear()
    click.echo(done.text, nl=False)
    # the raw side: what the runner printed for a person (pytest's own report), what the
    # agent would have read without agentout
    record_delivery(
        "test",
        said,
        done.text,
        tokenizer=options.get("tokenizer"),
        raw=done.printed,
        duration=done.run.duration,
        exit_status=done.exit_status,
    )
    return done.exit_status


def _pytest_target(word: str) -> bool:
    """A test path pytest takes (``tests/``, ``test_x.py``, ``test_x.py::test_y``)."""
    path = word.split("::", 1)[0]
    return path.endswith(".py") or os.path.isdir(path) or os.path.isfile(path)
