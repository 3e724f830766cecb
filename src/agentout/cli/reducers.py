"""``agentout reducers``: which reducer reads which command, and proof that it keeps the facts."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import click

from agentout.cli._options import EXIT_FAILED, fail, reports_errors
from agentout.errors import AgentoutError


@click.group()
def reducers() -> None:
    """Reducers: one command family's output in its compact form, every fact kept.

    A reducer is found, first match wins, in the project's .agentout/reducers/ (once you
    `trust` them), your config directory's reducers/, installed packages, then
    agentout's own. Write one as a TOML file (see docs/reducers.md), check it with
    `verify`, or start from a copy of a built-in with `eject`.
    """


def _all() -> list[tuple[Any, str]]:
    from agentout.reducers.registry import entries

    return list(entries())


def _named(name: str, *, ignored: bool = True) -> Any:
    """The first reducer called ``name``; ``ignored``: a project file not trusted too."""
    found = _all()
    for reducer, source in found:
        if reducer.name == name and (ignored or _state(reducer, source) in ("used", "trusted")):
            return reducer
    known = ", ".join(sorted({r.name for r, _ in found}))
    fail(f"no reducer named {name!r}; known: {known}")


@reducers.command("list")
@click.option("--format", "format_name", type=click.Choice(["text", "json"]), default="text")
@reports_errors
def list_(format_name: str) -> None:
    """Every reducer, in the order they are tried: name, where it comes from, whether it
    is used (a project's file: trusted, untrusted or changed since trusted), what it is.

    \b
    Example:
      agentout reducers list
    """
    rows = [
        {
            "name": _name(r),
            "source": source,
            "state": _state(r, source),
            "description": _description(r),
            **({"path": str(r.path)} if source == "project" else {}),
        }
        for r, source in _all()
    ]
    if format_name == "json":
        click.echo(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    width = max(len(row["name"]) for row in rows)
    for row in rows:
        click.echo(
            f"{row['name']:<{width}}  {row['source']:<9}  {row['state']:<9}  {row['description']}"
        )


def _state(reducer: Any, source: str) -> str:
    """A project's file: trusted, untrusted or changed (since trusted); the rest: used."""
    from agentout.reducers.trust import Ignored

    if isinstance(reducer, Ignored):
        return reducer.state
    return "trusted" if source == "project" else "used"


def _name(reducer: Any) -> str:
    try:
        return str(reducer.name)
    except AgentoutError:  # a file that cannot be read: its file name
        from agentout.read.visible import visible

        return visible(Path(str(getattr(reducer, "path", "?"))).name)


def _description(reducer: Any) -> str:
    try:
        return str(getattr(reducer, "description", ""))
    except AgentoutError as exc:  # a file that cannot be read says why
        return str(exc)


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

    from agentout.reducers import command_words

    argv = shlex.split(command[0]) if len(command) == 1 and " " in command[0] else list(command)
    from agentout.reducers.trust import Ignored

    words = command_words(argv)
    shown = " ".join(words) or "(no command)"
    every = _all()
    for ignored in (r for r, _ in every if isinstance(r, Ignored)):
        if words and ignored.would_match(words):
            click.echo(f"ignored: {ignored.why()}")
    used = [(r, s) for r, s in every if not isinstance(r, Ignored)]
    found = next(((r, s) for r, s in used if words and r.matches(words)), None)
    if found is None:  # as agentout.reducers.find: the first that matches
        click.echo(f"none: {shown} is read by the generic reducer (the lines that matter)")
        return
    reducer, source = found
    click.echo(f"{reducer.name}  ({source}): {shown}")


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
        from agentout.reducers.spec_file import read_file

        return read_file(path).decode("utf-8", "replace")
    return None


@reducers.command()
@click.argument("name")
@click.option(
    "--global", "to_user", is_flag=True, help="Into your config directory, not the project."
)
@reports_errors
def eject(name: str, to_user: bool) -> None:
    """Copy a built-in reducer into .agentout/reducers/ (or your config directory) to
    change it; the copy is then used instead of the built-in (a project's copy once
    you trust it: `agentout reducers trust`).

    \b
    Example:
      agentout reducers eject git/status
    """
    from agentout.dirs import config_dir

    reducer = _named(name, ignored=False)
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
    if to_user:
        click.echo(f"{target}: a copy of {name}; it is used instead of the built-in")
    else:  # a project's file is used once trusted, as any a repository ships
        click.echo(
            f"{target}: a copy of {name}; once trusted (agentout reducers trust) it is used "
            "instead of the built-in"
        )


@reducers.command()
@click.argument("path", required=False, type=click.Path(path_type=str))
@click.option("--list", "list_only", is_flag=True, help="What is trusted, and whether it changed.")
@click.option("--revoke", is_flag=True, help="Trust PATH (a file or a folder) no longer.")
@reports_errors
def trust(path: str | None, list_only: bool, revoke: bool) -> None:
    """Use a repository's reducers: record each file's SHA-256 in your config directory.

    A reducer decides what an agent reads of a command's output, so the files in a
    project's .agentout/reducers/ are ignored until you trust them, and again whenever
    one changes. PATH is a reducer file or a folder of them (default: the project's
    .agentout/reducers/). Each file is read and checked first: if one cannot be used, is
    not yours, or leads outside its project's tree (a link), nothing is recorded. Read a
    file (`agentout reducers show NAME`) before you trust it.

    \b
    Examples:
      agentout reducers trust
      agentout reducers trust .agentout/reducers/diff.toml
      agentout reducers trust --list
      agentout reducers trust --revoke
    """
    from agentout.reducers.trust import TrustList, not_yours, shown_path

    if list_only and (revoke or path):
        fail("--list takes no PATH and no --revoke")
    trusted = TrustList.load(strict=True)
    if list_only:
        _list_trusted(trusted)
        return
    target = Path(path) if path else _project_folder()
    if revoke:
        gone = trusted.remove(target)
        if not gone:
            click.echo(f"nothing under {shown_path(target)} was trusted")
            return
        trusted.save()
        for key in gone:
            click.echo(f"no longer trusted: {shown_path(key)}")
        return
    files = _reducer_files(target)
    specs = []
    for file in files:  # each checked before any is recorded: SpecError or fail, exit 2
        why = not_yours(file.path)
        if why is not None:
            fail(f"{shown_path(file.path)}: {why}; nothing trusted")
        specs.append(file.quiet_load())
    for file in files:
        assert file.digest is not None  # read from disk, so hashed
        trusted.add(file.path, file.digest)
    trusted.save()
    for file, spec in zip(files, specs, strict=True):
        words = "; ".join(" ".join(prefix) for prefix in spec.match)
        click.echo(f"trusted {shown_path(file.path)}: {spec.name} ({words}) {file.digest[:19]}")


def _project_folder() -> Path:
    from agentout.reducers.registry import project_dir

    folder = project_dir()
    if folder is None:
        fail("no .agentout/reducers/ here or above; name a reducer file or folder")
    return folder


def _reducer_files(target: Path) -> list[Any]:
    from agentout.reducers.spec_file import SpecFile, files_in

    if target.is_dir():
        files = files_in(target)
        if not files:
            fail(f"{target}: no reducer files (*.toml) to trust")
        return files
    if not target.exists():
        fail(f"{target}: no such file")
    return [SpecFile(target)]


def _list_trusted(trusted: Any) -> None:
    from agentout.reducers.spec_file import SpecFile
    from agentout.reducers.trust import shown_path

    if not trusted.files:
        click.echo("no reducer files are trusted")
        return
    for key, recorded in sorted(trusted.files.items()):
        exists = Path(key).exists()
        state = trusted.state(key, SpecFile(key).digest) if exists else "missing"
        click.echo(f"{state:<9} {shown_path(key)}  {recorded[:19]}")


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
    from agentout.reducers.verify import builtin_cases, cases_for, check, owners

    recorded = list(builtin_cases())
    chosen = [_named(name)] if name else [reducer for reducer, _ in _all()]
    chosen = [getattr(reducer, "file", reducer) for reducer in chosen]  # untrusted: checked too
    owned = owners(recorded)
    outcomes: list[Any] = []
    missing: list[str] = []
    for reducer in chosen:
        cases = cases_for(reducer, recorded, owned)
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
