"""``agentout clean``: remove agentout's own spilled files past their retention."""

from __future__ import annotations

import contextlib
import re

import click

from agentout.cli._options import reports_errors, store_option

_AGE = re.compile(r"(\d+(?:\.\d+)?)([smhdw]?)\Z")
_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400, "": 86400}


def parse_age(text: str) -> float:
    """``7d``, ``12h``, ``30m``, ``90s``, ``2w``; a bare number is days."""
    match = _AGE.match(text.strip())
    if not match:
        raise ValueError(f"--older-than {text!r}: expected a number and a unit: 7d, 12h, 30m")
    return float(match.group(1)) * _SECONDS[match.group(2)]


@click.command()
@click.option(
    "--older-than",
    metavar="AGE",
    default="7d",
    show_default=True,
    help="Remove files last written longer ago than AGE (s, m, h, d, w; 0 for all).",
)
@store_option
@click.option("--dry-run", is_flag=True, help="List what would be removed; remove nothing.")
@reports_errors
def clean(older_than: str, dry_run: bool) -> None:
    """Remove agentout's spilled files older than AGE (7 days by default).

    Only files agentout wrote are touched: regular files directly in the spill store
    (--store, ``$AGENTOUT_STORE``, ``$AGENTOUT_SPILL_DIR`` or the user cache dir), named
    as agentout names them and owned by you. Anything else there, and every symlink, is
    left alone. With an object store (s3://bucket/prefix, gs://, az://), its objects
    directly under the prefix named as agentout names them, and nothing else.

    \b
    Examples:
      agentout clean
      agentout clean --older-than 1d --dry-run
      agentout clean --older-than 0
      agentout clean --store s3://team-bucket/agentout --older-than 3d
    """
    from agentout.store.spill import SpillStore

    seconds = parse_age(older_than)
    store = SpillStore.default()
    if not dry_run:
        _count_pending_deliveries()  # each from its stored raw output, before that goes
    removed = store.clean(seconds, dry_run=dry_run)
    for stored in removed:
        click.echo(f"{'would remove' if dry_run else 'removed'} {stored.path.name} {stored.size}")
    freed = sum(stored.size for stored in removed)
    verb = "would free" if dry_run else "freed"
    files = "file" if len(removed) == 1 else "files"
    click.echo(f"{len(removed)} {files}, {verb} {freed} bytes in {store.address}")


def _count_pending_deliveries() -> None:
    from agentout.ledger import book as ledger

    if ledger.enabled() and ledger.pending_path().exists():
        with contextlib.suppress(OSError):  # the ledger never stops a clean
            ledger.count_pending()
