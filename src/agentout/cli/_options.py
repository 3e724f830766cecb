"""Options and error handling shared by every command, declared once."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

from agentout.errors import AgentoutError

if TYPE_CHECKING:
    from agentout.pack import Packed

F = TypeVar("F", bound=Callable[..., Any])

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2


def tokenizer_option(func: F) -> F:
    return click.option(
        "--tokenizer",
        default=None,
        metavar="NAME",
        envvar="AGENTOUT_TOKENIZER",
        help="o200k_base (default), cl100k_base, a model (gpt-4o, gpt-4), chars4, hf:PATH.",
    )(func)


def budget_options(func: F) -> F:
    func = click.option(
        "--max-chars", type=click.IntRange(min=0), default=None, help="Exact character budget."
    )(func)
    func = click.option(
        "--max-tokens", type=click.IntRange(min=0), default=None, help="Exact token budget."
    )(func)
    return func


def format_option(choices: tuple[str, ...], default: str) -> Callable[[F], F]:
    def decorate(func: F) -> F:
        return click.option(
            "--format",
            "format_name",
            type=click.Choice(choices),
            default=default,
            show_default=True,
            help="Output format.",
        )(func)

    return decorate


def _use_store(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    if value is None:
        return
    import os

    from agentout.store.address import ENV_STORE, StoreAddressError, parse_address

    try:
        parse_address(value, where="--store")
    except StoreAddressError as exc:
        fail(str(exc))
    os.environ[ENV_STORE] = value  # for this process and what it starts (test runners)


def store_option(func: F) -> F:
    """``--store PATH|URL``: the spill store for this command (``$AGENTOUT_STORE``)."""
    return click.option(
        "--store",
        metavar="PATH|URL",
        default=None,
        expose_value=False,
        is_eager=True,
        callback=_use_store,
        help="Spill store: a path, or s3://bucket/prefix, gs://…, az://… "
        "(default $AGENTOUT_STORE, else the local cache).",
    )(func)


def fail(message: str, status: int = EXIT_BAD_INPUT) -> NoReturn:
    click.echo(f"agentout: {message}", err=True)
    sys.exit(status)


def reports_errors(func: F) -> F:
    """Turn agentout's own errors into ``agentout: message`` and exit status 2, no traceback."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except (AgentoutError, ValueError) as exc:
            fail(str(exc))
        except BrokenPipeError:
            sys.stderr.close()
            sys.exit(EXIT_OK)

    return wrapper  # type: ignore[return-value]


def echo_packed(packed: Packed) -> None:
    """Print what pack emitted; the text format is styled in a terminal (same characters)."""
    text = packed.text
    if packed.format == "text":
        from agentout.formats.text import FORMAT as TEXT

        text = TEXT.styled(packed.document)
    click.echo(text, nl=False)


def record_delivery(
    tool: str,
    command: str,
    packed: Packed | str,
    *,
    tokenizer: str | None = None,
    raw: bytes | str | Path | None = None,
    duration: float | None = None,
    exit_status: int | None = None,
) -> None:
    """One row in the savings ledger for what was just printed (``agentout.ledger.book``):
    its exact ``tokens=``, and the raw output's tokens when ``raw`` is given, whole and as
    the agent's client would have shown them (``agentout.ledger.clients``). Never fails
    the command; off with AGENTOUT_LEDGER=0."""
    from agentout.deliver.limits import client_limit
    from agentout.ledger import book as ledger
    from agentout.ledger.clients import agent_of

    if not ledger.enabled():
        return
    if isinstance(packed, str):  # a report already rendered: its text, counted as it was
        from agentout.tokens import get_tokenizer

        counter: Any = get_tokenizer(tokenizer)
        delivered = counter.count(packed)
    else:
        counter, delivered = packed.stats.tokenizer, packed.stats.tokens
    raw_tokens, exact = ledger.count_raw(raw, counter) if raw else (None, True)
    agent = agent_of()
    shown = ledger.count_shown(raw, counter, agent, exit_status, client_limit(), raw_tokens)
    ledger.record(
        tool=tool,
        command=command,
        delivered_tokens=delivered,
        raw_tokens=raw_tokens,
        raw_exact=exact,
        duration=duration,
        exit_status=exit_status,
        agent=agent,
        shown_tokens=shown if raw else None,
    )
