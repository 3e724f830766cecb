"""``agentout reducers``: which reducer reads which command, and proof that it keeps the facts."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import click

from agentout.cli._options import EXIT_FAILED, fail, reports_errors


@click.group()
def reducers() -> None:
    """Reducers: one command family's output in its compact form, every fact kept.

    A reducer is found, first match wins, in the project's .agentout/reducers/, your
    config directory's reducers/, installed packages, then agentout's own. Write one as
    a TOML file (see docs/reducers.md), check it with `verify`, or start from a copy of
    a built-in with `eject`.
    """


def _all() -> list[tuple[Any, str]]:
    from agentout.reducers.registry import entries

    return list(entries())


def _named(name: str) -> Any:
    found = _all()
    for reducer, _ in found:
        if reducer.name == name:
            return reducer
    known = ", ".join(sorted({r.name for r, _ in found}))
    fail(f"no reducer named {name!r}; known: {known}")


@reducers.command("list")
@click.option("--format", "format_name", type=click.Choice(["text", "json"]), default="text")
@reports_errors
def list_(format_name: str) -> None:
    """Every reducer, in the order they are tried: name, where it comes from, what it is.

    \b
    Example:
      agentout reducers list
    """
    rows = [
        {"name": r.name, "source": source, "description": _description(r)} for r, source in _all()
    ]
    if format_name == "json":
        click.echo(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    width = max(len(row["name"]) for row in rows)
    for row in rows:
        click.echo(f"{row['name']:<{width}}  {row['source']:<9}  {row['description']}")


def _description(reducer: Any) -> str:
    return str(getattr(reducer, "description", ""))


@reducers.command(
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False}
)
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED, metavar="CMD [ARGS]...")
@reports_errors
def which(command: tuple[str, ...]) -> None:
    """The reducer that would read CMD's output (none: the lines that matter, as printed).

    \b
    Examples:
      agentout reducers which git -C repo log -n 5
      agentout reducers which 'uv run pytest -x'
    """
    import shlex

    from agentout.reducers import command_words, find

    argv = shlex.split(command[0]) if len(command) == 1 and " " in command[0] else list(command)
    reducer = find(argv)
    words = " ".join(command_words(argv)) or "(no command)"
    if reducer is None:
        click.echo(f"none: {words} is read by the generic reducer (the lines that matter)")
        return
    source = next(s for r, s in _all() if r.name == reducer.name)
    click.echo(f"{reducer.name}  ({source}): {words}")


@reducers.command()
@click.argument("name")
@reports_errors
def show(name: str) -> None:
    """Print a reducer: its TOML file, or what a Python one keeps.

    \b
    Example:
      agentout reducers show git/status
    """
    reducer = _named(name)
    text = _toml_text(reducer)
    if text is not None:
        click.echo(text, nl=not text.endswith("\n"))
        return
    click.echo(f"# {reducer.name}: a Python reducer")
    click.echo(_description(reducer))
    click.echo("facts (every match must be kept):")
    for pattern in reducer.facts:
        click.echo(f"  {pattern}")


def _toml_text(reducer: Any) -> str | None:
    path = str(getattr(reducer, "path", ""))
    if path.startswith("<agentout>/"):
        from importlib import resources

        entry = resources.files("agentout.reducers") / "toml" / path.split("/", 1)[1]
        return entry.read_text("utf-8")
    if path.endswith(".toml"):
        return Path(path).read_text(encoding="utf-8")
    return None


@reducers.command()
@click.argument("name")
@click.option(
    "--global", "to_user", is_flag=True, help="Into your config directory, not the project."
)
@reports_errors
def eject(name: str, to_user: bool) -> None:
    """Copy a built-in reducer into .agentout/reducers/ (or your config directory) to
    change it; the copy is then used instead of the built-in.

    \b
    Example:
      agentout reducers eject git/status
    """
    from agentout.dirs import config_dir

    reducer = _named(name)
    text = _toml_text(reducer)
    if text is None:
        fail(f"{name} is a Python reducer; only TOML reducers can be ejected")
    folder = config_dir() / "reducers" if to_user else Path(".agentout") / "reducers"
    target = folder / (name.replace("/", "-") + ".toml")
    if target.exists():
        fail(f"{target}: already there; remove it first to eject again")
    folder.mkdir(parents=True, exist_ok=True)
    temp = target.with_name(f".{target.name}.partial")
    temp.write_text(text, encoding="utf-8")
    shutil.move(str(temp), str(target))
    click.echo(f"{target}: a copy of {name}; it is used instead of the built-in")


@reducers.command()
@click.argument("name", required=False)
@click.option("--require-all", is_flag=True, help="A reducer with no case fails.")
@click.option("--format", "format_name", type=click.Choice(["text", "json"]), default="text")
@reports_errors
def verify(name: str | None, require_all: bool, format_name: str) -> None:
    """Run every reducer (or NAME) on its recorded cases: every fact kept, never more
    tokens than the raw output. Exit 1 if a case fails, 2 if a reducer cannot be read.

    \b
    Examples:
      agentout reducers verify --require-all
      agentout reducers verify git/status --format json
    """
    from agentout.reducers.verify import builtin_cases, cases_for, check

    recorded = list(builtin_cases())
    chosen = [_named(name)] if name else [reducer for reducer, _ in _all()]
    outcomes: list[Any] = []
    missing: list[str] = []
    for reducer in chosen:
        cases = cases_for(reducer, recorded)
        if not cases:
            missing.append(reducer.name)
        outcomes.extend(check(reducer, case) for case in cases)
    failed = [o for o in outcomes if not o.ok]
    if format_name == "json":
        report = {
            "ok": not failed and not (require_all and missing),
            "cases": [o.as_dict() for o in outcomes],
            "without_cases": missing,
        }
        click.echo(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        for outcome in outcomes:
            mark = "ok  " if outcome.ok else "FAIL"
            click.echo(
                f"{mark} {outcome.reducer:<12} {outcome.case:<28} "
                f"{outcome.raw_tokens:>7} -> {outcome.tokens:<6} {outcome.form}"
            )
            for problem in outcome.problems:
                click.echo(f"       {problem}")
        for reducer_name in missing:
            click.echo(f"{'FAIL' if require_all else 'none'} {reducer_name:<12} no cases")
        click.echo(f"{len(outcomes) - len(failed)} of {len(outcomes)} cases passed")
    if failed or (require_all and missing):
        sys.exit(EXIT_FAILED)
