"""``agentout fit``: a JSON, JSONL or text file as records, packed into an agent's budget."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, cast

import click

from agentout.cli._options import (
    budget_options,
    echo_packed,
    fail,
    format_option,
    record_delivery,
    reports_errors,
    store_option,
    tokenizer_option,
)

if TYPE_CHECKING:
    from agentout.read.data import InputFormat

FORMATS = ("records", "json", "toon", "text", "auto")
# as agentout.read.data, kept light
INPUT_FORMATS = ("auto", "json", "jsonl", "yaml", "toml", "csv", "tsv", "text")


@click.command()
@click.argument("file", required=False, metavar="[FILE]")
@budget_options
@format_option(FORMATS, "records")
@click.option(
    "--preset",
    type=click.Choice(["agent", "verbose"]),
    default=None,
    help="agent: 3 records in 500 tokens; verbose: 10 records, no token limit.",
)
@tokenizer_option
@click.option(
    "--input-format",
    type=click.Choice(INPUT_FORMATS),
    default="auto",
    show_default=True,
    help="How to read FILE; auto: by its extension (.yaml, .toml, .csv ...), else JSON, "
    "JSONL or text by its first characters.",
)
@click.option(
    "--max-record-mib",
    type=click.IntRange(min=1),
    default=16,
    show_default=True,
    envvar="AGENTOUT_MAX_RECORD_MIB",
    help="Refuse a record (a JSON value, a line) longer than this; bounds memory.",
)
@store_option
@reports_errors
def fit(
    file: str | None,
    max_tokens: int | None,
    max_chars: int | None,
    format_name: str,
    preset: str | None,
    tokenizer: str | None,
    input_format: str,
    max_record_mib: int,
) -> None:
    """Fit FILE (stdin when none, or -) into a budget: whole records, exact counts.

    FILE is JSON (an array, or an object holding an array of records: its other keys go
    in the header), JSONL, YAML, TOML, CSV/TSV with a header row, or text (each
    non-blank line a record). Records are taken in
    order, each at the richest view that fits (an object's scalar fields with long
    strings cut, or all of it); the header says how many were left out. When not
    every record is shown whole, the complete input is kept in agentout's spill
    store (secrets hidden): the header names it (ref=ID) and the last line gives
    the command that pages on (agentout show ID --records N:).

    \b
    Examples:
      agentout fit examples/data/incidents.json --max-tokens 500
      agentout fit examples/data/app.log --preset agent
      kubectl get pods -o json | agentout fit --max-tokens 800 --format auto
    """
    if max_tokens is None and max_chars is None and preset is None:
        fail("fit needs a budget: --max-tokens N, --max-chars N or --preset agent|verbose")
    from agentout.sources.fit import fit as fit_data

    packed = fit_data(
        file,
        format=format_name,
        max_tokens=max_tokens,
        max_chars=max_chars,
        tokenizer=tokenizer,
        preset=preset,
        input_format=cast("InputFormat", input_format),
        max_record_mib=max_record_mib,
        spill=True,
    )
    echo_packed(packed)
    record_delivery("fit", file or "-", packed, raw=Path(file) if file and file != "-" else None)
