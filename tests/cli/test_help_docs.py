"""``--help`` and the docs list the same options: every option a command's help lists is
on its page (docs/cli/NAME.md), and every option the docs give an ``agentout`` command
(on its page, or anywhere in README.md and docs/) is one its help lists.

An option is the page's when it is named in a command the docs show (``agentout show
REF --lines 1:9`` in a code span, a console block, a marker a console block prints, a
block's setup) or, on the command's own page, in a code span or a code line that starts
with it (`` `--max-record-mib N` ``). Options of other programs (``git ls-files
--others``, ``agentout run -- git log --oneline``) are not agentout's and are left alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import click
import pytest

from agentout.cli.main import cli

ROOT = Path(__file__).parents[2]

_CONTEXT = click.Context(cli)
# An option as the docs write it: `--name`, `-x`, `--name=value`.
_OPTION = re.compile(r"^(--?[A-Za-z][\w-]*)(?:=.*)?$")
# What ends the words of one agentout command in a code span or a shell line.
_END = re.compile(r"[`|;&)\]\"'<>]|\$\(")


def present_commands() -> list[str]:
    return cli.list_commands(_CONTEXT)


def _commands(
    command: click.Command, path: tuple[str, ...]
) -> list[tuple[tuple[str, ...], click.Command]]:
    found = [(path, command)]
    if isinstance(command, click.Group):
        for name in command.list_commands(_CONTEXT):
            sub = command.get_command(_CONTEXT, name)
            assert sub is not None
            found += _commands(sub, (*path, name))
    return found


def _help_options(command: click.Command) -> dict[str, click.Option]:
    """The options ``--help`` lists, each by every spelling (``-i``, ``--ignore-case``)."""
    found: dict[str, click.Option] = {}
    for param in command.get_params(_CONTEXT):
        if isinstance(param, click.Option) and not param.hidden:
            for spelling in (*param.opts, *param.secondary_opts):
                found[spelling] = param
    return found


def _top(name: str) -> click.Command:
    command = cli.get_command(_CONTEXT, name)
    assert command is not None
    return command


@dataclass(frozen=True)
class Named:
    """One option the docs give an agentout command."""

    where: str  # page:line
    path: tuple[str, ...]  # the command, subcommand included (``notes``, ``index``)
    option: str
    loose: bool = False  # a short option alone in a span (`-q TEXT`): shown, not checked


def _snippets(page: Path) -> list[tuple[int, str, str]]:
    """Where a page can name agentout's options, as (line, text, kind): every code span,
    every line of a code block, every HTML comment (a console block's setup) is "code".
    A synopsis (a code block with no language: ``agentout fit [FILE] [--format F]``, its
    lines that go on indented joined to the one above, brackets and bars taken out) is
    "synopsis". The output lines of a console block are "output": only the agentout
    commands they print (a marker's ``agentout show REF --lines A:B``) count; so are the
    spans of a table's other columns (an options table names the option first; the others
    may name another program's)."""
    from markdown_it import MarkdownIt

    found: list[tuple[int, str, str]] = []
    column = 0
    tokens = MarkdownIt("commonmark").enable("table").parse(page.read_text(encoding="utf-8"))
    for token in tokens:
        line = token.map[0] + 1 if token.map else 0
        if token.type in ("tr_open", "table_close"):
            column = 0
        elif token.type in ("td_open", "th_open"):
            column += 1
        elif token.type == "fence" and not token.info.strip():
            synopsis = re.sub(r"\n[ \t]+", " ", token.content)
            for offset, text in enumerate(synopsis.split("\n"), start=1):
                text = re.sub(r"\|(?=\s*-)", " ", text)  # `--list | --revoke`, `-i|--ignore-case`
                found.append((line + offset, re.sub(r"[][()|]", "", text), "synopsis"))
        elif token.type == "fence":
            console = token.info.strip() == "console"
            for offset, text in enumerate(token.content.split("\n"), start=1):
                prompt = re.match(r"^(?:\[[\w-]+\] )?\$ (.*)$", text)
                if console and prompt is None:
                    found.append((line + offset, text, "output"))
                else:
                    found.append((line + offset, prompt[1] if prompt else text, "code"))
        elif token.type == "html_block":
            found.append((line, token.content, "code"))
        elif token.type == "inline":
            for child in token.children or []:
                if child.type in ("code_inline", "html_inline"):
                    found.append((line, child.content, "code" if column <= 1 else "output"))
    return found


def _resolve(words: list[str]) -> tuple[tuple[str, ...], click.Command, list[str]] | None:
    """``["notes", "index", "--tag", "x"]`` -> the command it names and its arguments."""
    if not words or words[0] not in present_commands():
        return None
    path: tuple[str, ...] = (words[0],)
    command = _top(words[0])
    rest = words[1:]
    while isinstance(command, click.Group) and rest:
        sub = command.get_command(_CONTEXT, rest[0])
        if sub is None:
            break
        path, command, rest = (*path, rest[0]), sub, rest[1:]
    return path, command, rest


def _invocations(text: str) -> list[tuple[tuple[str, ...], list[str]]]:
    """Every ``agentout COMMAND ...`` in a text, with the options it gives (up to the
    end of the command, and for ``run`` and ``test`` up to ``--``, after which the words
    are the wrapped command's)."""
    found = []
    for match in re.finditer(r"(?<![\w/.-])agentout\s+(.*)", text.replace("\\\n", " ")):
        words = _END.split(match[1], maxsplit=1)[0].split()
        resolved = _resolve(words)
        if resolved is None:
            continue
        path, command, rest = resolved
        options = _help_options(command)
        given: list[str] = []
        skip = False
        for word in rest:
            if skip:
                skip = False
                continue
            if word == "--":
                break
            option = _OPTION.match(word)
            if option is None:
                if command.context_settings.get("allow_interspersed_args", True):
                    continue
                break  # the words of a command it runs or looks up (`reducers which`)
            given.append(option[1])
            known = options.get(option[1])
            skip = known is not None and not known.is_flag and "=" not in word
        found.append((path, given))
    return found


def named_options(page: Path, root: Path = ROOT) -> list[Named]:
    """Every option a page gives an agentout command; on docs/cli/NAME.md, also every
    code span or code line that starts with a long option (NAME's, by its page)."""
    own = page.stem if page.parent == root / "docs" / "cli" else None
    where = page.relative_to(root).as_posix()
    found: list[Named] = []
    for line, text, kind in _snippets(page):
        invocations = _invocations(text)
        for path, given in invocations:
            found += [Named(f"{where}:{line}", path, option) for option in given]
        if own not in present_commands() or kind == "output":
            continue
        if kind == "synopsis" and not invocations:  # `every command: [--max-tokens N]`
            options = re.findall(r"(?<![\w-])--[A-Za-z][\w-]*", text)
        else:
            options = [word for word in text.split()[:1] if re.match(r"--?[A-Za-z]", word)]
        for word in options:  # a short one may be another program's (`-P`, `-Infinity`)
            short = not word.startswith("--")
            found.append(Named(f"{where}:{line}", (own,), _option(word), loose=short))
    return found


def _option(word: str) -> str:
    return word.partition("=")[0]


def _all_options(path: tuple[str, ...]) -> dict[str, click.Option]:
    """The options of a command and, for a group named alone, of its subcommands."""
    resolved = _resolve(list(path))
    assert resolved is not None
    found: dict[str, click.Option] = {}
    for _, command in _commands(resolved[1], path):
        found |= _help_options(command)
    return found


def _pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


@pytest.mark.parametrize("name", present_commands())
def test_every_option_in_help_is_on_the_page(name: str) -> None:
    page = ROOT / "docs" / "cli" / f"{name}.md"
    on_page = {(named.path[0], named.option) for named in named_options(page)}
    missing = []
    for path, command in _commands(_top(name), (name,)):
        for spelling in _help_options(command):
            if spelling not in {"-h", "--help"} and (name, spelling) not in on_page:
                missing.append(f"{' '.join(path)} {spelling}")
    assert not missing, f"docs/cli/{name}.md does not show: {', '.join(missing)}"


@pytest.mark.parametrize("page", _pages(), ids=lambda page: page.relative_to(ROOT).as_posix())
def test_every_option_the_docs_name_is_in_help(page: Path) -> None:
    unknown = [
        f"{named.where}: agentout {' '.join(named.path)} {named.option}"
        for named in named_options(page)
        if not named.loose
        and named.option not in {"-h", "--help"}
        and named.option not in _all_options(named.path)
    ]
    assert not unknown, "options --help does not list:\n" + "\n".join(unknown)


def test_the_checks_see_an_option_in_every_form(tmp_path: Path) -> None:
    """What counts as a page naming an option, and what does not."""
    page = tmp_path / "page.md"  # not a command's page: only what `agentout ...` gives
    page.write_text(
        "Run `agentout show REF --lines 1:9 -i` or `agentout notes index --tag x`.\n\n"
        "`--max-tokens N` and `git ls-files --others` and `agentout run -- git log --oneline`\n\n"
        "| option | what |\n| --- | --- |\n| `--part N` | `--json` (jest's) |\n\n"
        '<!-- console: setup="agentout run --mode file -- cat x" -->\n'
        "```console\n$ agentout fit --max-chars 9 f\n"
        "[… 9 lines · agentout show 1234 --grep PATTERN]\n--not-an-option of ours\n```\n\n"
        "```\nagentout records PATH [--sort [-]FIELD]\n    [--format records|json]\n"
        "every command: [--store PATH]\n```\n",
        encoding="utf-8",
    )
    named = {(" ".join(n.path), n.option) for n in named_options(page, root=tmp_path)}
    assert named == {
        ("show", "--lines"),
        ("show", "-i"),
        ("notes index", "--tag"),
        ("run", "--mode"),
        ("fit", "--max-chars"),
        ("show", "--grep"),
        ("records", "--sort"),
        ("records", "--format"),
    }
    show = tmp_path / "docs" / "cli" / "show.md"  # on a command's own page: `--max-tokens N`
    show.parent.mkdir(parents=True)
    show.write_text(page.read_text(encoding="utf-8"), encoding="utf-8")
    named = {(" ".join(n.path), n.option) for n in named_options(show, root=tmp_path)}
    assert named == {
        ("show", "--lines"),
        ("show", "-i"),
        ("notes index", "--tag"),
        ("run", "--mode"),
        ("fit", "--max-chars"),
        ("show", "--grep"),
        ("records", "--sort"),
        ("records", "--format"),
        ("show", "--max-tokens"),
        ("show", "--part"),
        ("show", "--store"),
    }
