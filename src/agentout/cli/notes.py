"""``agentout notes``: a folder of Markdown notes as agent context, within a budget."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, cast

import click

from agentout.cli._options import (
    budget_options,
    echo_packed,
    format_option,
    record_delivery,
    reports_errors,
    tokenizer_option,
)

if TYPE_CHECKING:
    from agentout.records import Result
    from agentout.sources.notes import Direction, Vault

F = TypeVar("F", bound=Callable[..., Any])

FORMATS = ("records", "json", "text")
DIRECTIONS = ("out", "in", "both")  # as agentout.sources.notes.DIRECTIONS, kept light
MAX_NOTE_MIB = 10


class _Request:
    """DIR and the options every notes command shares: what to read, how to answer."""

    def __init__(
        self,
        directory: str,
        max_tokens: int | None,
        max_chars: int | None,
        format_name: str,
        tokenizer: str | None,
        no_cache: bool,
        max_note_mib: int,
    ) -> None:
        self.directory, self.no_cache, self.max_note_mib = directory, no_cache, max_note_mib
        self.max_tokens, self.max_chars = max_tokens, max_chars
        self.format_name, self.tokenizer = format_name, tokenizer

    def serve(self, build: Callable[[Vault], Result]) -> None:
        """Load the vault, build the result, pack it into the budget and print it."""
        from agentout.pack import pack
        from agentout.sources.notes.vault import paused_gc

        with paused_gc():  # a short run making many small objects: no cycles to collect
            result = build(self._load())
            packed = pack(
                result,
                format=self.format_name,
                max_tokens=self.max_tokens,
                max_chars=self.max_chars,
                tokenizer=self.tokenizer,
            )
        echo_packed(packed)
        record_delivery("notes", self.directory, packed)

    def _load(self) -> Vault:
        """Load the vault; every file skipped is reported on stderr, the rest is served."""
        from agentout.sources.notes import load_vault

        vault = load_vault(
            self.directory, cache=not self.no_cache, max_note_bytes=self.max_note_mib << 20
        )
        for problem in vault.problems:
            click.echo(f"agentout: {problem}", err=True)
        if vault.cache_warning:
            click.echo(f"agentout: warning: {vault.cache_warning}", err=True)
        return vault


def _vault_options(func: F) -> F:
    """DIR and the options every notes command shares, given to it as one ``request``."""

    @functools.wraps(func)
    def command(
        directory: str,
        max_tokens: int | None,
        max_chars: int | None,
        format_name: str,
        tokenizer: str | None,
        no_cache: bool,
        max_note_mib: int,
        **own: Any,
    ) -> Any:
        request = _Request(
            directory, max_tokens, max_chars, format_name, tokenizer, no_cache, max_note_mib
        )
        return func(request, **own)

    wrapped: Any = click.option(
        "--max-note-mib",
        type=click.IntRange(min=1),
        default=MAX_NOTE_MIB,
        show_default=True,
        help="Skip (and report) a note file larger than this.",
    )(command)
    wrapped = click.option(
        "--no-cache", is_flag=True, help="Parse every note; neither read nor write the cache."
    )(wrapped)
    wrapped = tokenizer_option(wrapped)
    wrapped = format_option(FORMATS, "records")(wrapped)
    wrapped = budget_options(wrapped)
    return cast(
        F, click.argument("directory", metavar="DIR")(wrapped)
    )  # the vault says what is wrong


@click.group()
def notes() -> None:
    """A folder of Markdown notes as agent context: index, context, tree, path.

    Notes are *.md files with optional YAML front matter (id, title, type, tags,
    summary, links); links are [[wiki links]], Markdown links to other notes, and
    typed front matter links. Output is qipu-style records: N (note), S
    (summary), E (edge), B (body), after a W line warning that note content is
    reference material, not instructions. Budgets are exact and whole notes only.

    \b
    A progressive-disclosure workflow:
      agentout notes index examples/vault --max-tokens 800
      agentout notes tree examples/vault budgets --max-depth 2
      agentout notes context examples/vault --note budgets --with-body --max-tokens 1500
    """


@notes.command(short_help="One N line per note, with its S: the map.")
@_vault_options
@click.option("--tag", "tags", multiple=True, metavar="TAG", help="Only notes with TAG (all).")
@click.option("--type", "types", multiple=True, metavar="TYPE", help="Only notes of TYPE (any).")
@click.option(
    "--summaries/--no-summaries", default=True, show_default=True, help="Add each S line."
)
@reports_errors
def index(
    request: _Request,
    tags: tuple[str, ...],
    types: tuple[str, ...],
    summaries: bool,
) -> None:
    """The map of the store: one N line per note (id, type, title, tags), then its S.

    Under a budget every note gets its N line first, then summaries in order while
    they fit. A tag matches nested tags too (--tag project matches project/alpha).

    \b
    Examples:
      agentout notes index examples/vault
      agentout notes index examples/vault --tag budgets --max-chars 2000
      agentout notes index examples/vault --type concept --no-summaries --format json
    """
    from agentout.sources.notes import index_result

    request.serve(lambda vault: index_result(vault, tags=tags, types=types, summaries=summaries))


@notes.command(short_help="Chosen notes: summaries, bodies on request.")
@_vault_options
@click.option("--note", "names", multiple=True, metavar="ID", help="A note to include (repeat).")
@click.option("--query", default=None, metavar="TEXT", help="Add the notes best matching TEXT.")
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="At most this many --query matches.",
)
@click.option("--with-body", is_flag=True, help="Add each note's Markdown body (B line).")
@click.option("--with-edges", is_flag=True, help="Add each note's links, both ways (E lines).")
@reports_errors
def context(
    request: _Request,
    names: tuple[str, ...],
    query: str | None,
    limit: int,
    with_body: bool,
    with_edges: bool,
) -> None:
    """The chosen notes: N (with path), S, and with --with-body the B body.

    --note takes an id, a path or a file name; --query ranks notes by relevance
    (BM25 over title, tags, summary and body) and adds the best after the named ones.

    \b
    Examples:
      agentout notes context examples/vault --note budgets --with-body
      agentout notes context examples/vault --query "exact token count" --max-tokens 600
      agentout notes context examples/vault --note budgets --with-edges --format json
    """
    if not names and not query:
        raise click.UsageError("name notes with --note ID, or find them with --query TEXT")
    from agentout.sources.notes import context_result

    request.serve(
        lambda vault: context_result(
            vault,
            notes=names,
            query=query,
            limit=limit,
            with_body=with_body,
            with_edges=with_edges,
        )
    )


_direction_option = click.option(
    "--direction",
    type=click.Choice(DIRECTIONS),
    default="both",
    show_default=True,
    help="Follow links out of a note, into it, or both.",
)


@notes.command(short_help="The link neighbourhood of a note.")
@_vault_options
@click.argument("root", metavar="ID")
@click.option(
    "--max-depth", type=click.IntRange(min=0), default=2, show_default=True, help="Links away."
)
@_direction_option
@reports_errors
def tree(
    request: _Request,
    root: str,
    max_depth: int,
    direction: str,
) -> None:
    """The link neighbourhood of ID: nearest notes first, each with the edges from it.

    Links to missing notes are listed as dangling edges (dangling=true); a cycle is
    walked once.

    \b
    Examples:
      agentout notes tree examples/vault budgets
      agentout notes tree examples/vault budgets --max-depth 1 --direction out
    """
    from agentout.sources.notes import tree_result

    request.serve(
        lambda vault: tree_result(
            vault, root, max_depth=max_depth, direction=cast("Direction", direction)
        )
    )


@notes.command(short_help="A shortest chain of links between two notes.")
@_vault_options
@click.argument("start", metavar="FROM")
@click.argument("goal", metavar="TO")
@_direction_option
@reports_errors
def path(
    request: _Request,
    start: str,
    goal: str,
    direction: str,
) -> None:
    """A shortest chain of links from FROM to TO: N lines joined by E lines.

    When there is none the header says found=false (exit status 0).

    \b
    Examples:
      agentout notes path examples/vault budgets spill-store
      agentout notes path examples/vault budgets spill-store --direction out
    """
    from agentout.sources.notes import path_result

    request.serve(
        lambda vault: path_result(vault, start, goal, direction=cast("Direction", direction))
    )
