"""The savings ledger: one row per delivery to an agent, in a local SQLite database.

Every command and tool that hands output to an agent (``run``, ``test``, ``fit``,
``records``, ``notes``, ``show``, the MCP tools) calls ``record`` once: when, in which
project, which tool and command, the tokens of the raw output (None when the raw output
is not at hand), the tokens delivered (exactly the ``tokens=`` of what was printed), the
facts kept where a reducer declares them, how long it took, the exit status, how many
secrets were kept out, the agent whose client the output was for, and the tokens of what
that client would have shown the model of the raw output (its inline limit, its
preview, its failure cut: ``agentout.ledger.clients``). Counts only: never a byte of the
output itself.

The database is ``ledger.sqlite3`` in agentout's private data directory (platformdirs,
0700; the file 0600), or ``$AGENTOUT_LEDGER_DB`` (``agentout.ledger.database``).
``AGENTOUT_LEDGER=0`` turns it off. ``record`` never raises and never delays a delivery
for long: a database still locked after its busy timeout keeps the row in the pending
file for the next count, a corrupt one is moved aside and a fresh one started, a
read-only one costs the row; each with one line on stderr.

Counting needs a tokenizer, which costs more to load than a small ``agentout run`` takes
in all, so ``record_later`` appends what is to be counted to ``ledger-pending.jsonl``
beside the database (0600, redacted text as it was delivered) and the counting is done
later, in one go (``agentout.ledger.pending``): when the ledger is read (``rows``, so
``agentout gain``), before ``agentout clean`` removes stored files, or by one detached
recorder once the file passes ``PENDING_BYTES``. A raw output that was stored is counted
from its file; one the store has removed since (past its retention) is estimated from
its size at the delivered output's tokens per byte (``raw_exact`` false). Each line is
checked before it is stored, and the lines are removed only once their rows are stored.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator

from agentout.ledger.database import ENV_DB, database_path
from agentout.ledger.pending import RAW_EXACT_BYTES, count_raw, count_shown, pending_path
from agentout.ledger.row import Row, checked

TYPE_CHECKING = False  # pathlib is imported where a path is made: `agentout run` appends a line
if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "ENV",
    "ENV_DB",
    "PENDING_BYTES",
    "RAW_EXACT_BYTES",
    "Row",
    "count_pending",
    "count_raw",
    "count_shown",
    "database_path",
    "defer",
    "enabled",
    "pending_path",
    "record",
    "record_later",
    "rows",
    "run_deferred",
]

ENV = "AGENTOUT_LEDGER"
ENV_SYNC = "AGENTOUT_LEDGER_SYNC"  # count and write before returning (tests, scripts)
_OFF = {"0", "off", "false", "no"}
_COMMAND_CHARS = 200
_CHEAP = 64 << 10  # raw output counted in the answering process only up to here
PENDING_BYTES = 1 << 20  # pending texts counted by a detached recorder from this size on


# What is left to do once the answer is out (``defer``): the warm hook server's child
# keeps the row in the pending file before it answers an agent that waits (a failure is
# said on that agent's stderr), and counts it after.
_deferred: list[Callable[[], object]] | None = None


def enabled() -> bool:
    return os.environ.get(ENV, "1").strip().lower() not in _OFF


def defer() -> None:
    """From now on, ``record_later`` keeps each row in the pending file and leaves the
    counting to ``run_deferred``: a process that answers someone waiting keeps the row
    before it answers (so a row that cannot be kept is said on the caller's stderr, and
    nothing after the answer can lose it) and counts it once it has answered."""
    global _deferred
    _deferred = []


def run_deferred() -> None:
    """Do what ``defer`` left for after the answer (count the rows kept), in order;
    later deliveries are recorded at once."""
    global _deferred
    kept, _deferred = _deferred or [], None
    for task in kept:
        task()


def record(
    *,
    tool: str,
    command: str,
    delivered_tokens: int,
    raw_tokens: int | None = None,
    raw_exact: bool = True,
    facts_kept: int | None = None,
    facts_total: int | None = None,
    duration: float | None = None,
    exit_status: int | None = None,
    secrets: int = 0,
    project: str | None = None,
    when: float | None = None,
    agent: str | None = None,
    shown_tokens: int | None = None,
) -> bool:
    """Append one delivery (made at ``when``, default now); True if it was stored, or
    waits in the pending file for a busy database. Never raises. ``agent``: whose client
    the output was for (default: the one this process runs under, ``clients.agent_of``);
    ``shown_tokens``: what that client would have shown of the raw output (``count_shown``)."""
    if not enabled():
        return False
    from agentout.ledger import pending
    from agentout.ledger.news import note

    try:
        row = checked(
            {
                "time": time.time() if when is None else when,
                "project": project if project is not None else os.getcwd(),
                "tool": tool,
                "command": _without_secrets(command[:_COMMAND_CHARS]),
                "raw_tokens": raw_tokens,
                "delivered_tokens": delivered_tokens,
                "facts_kept": facts_kept,
                "facts_total": facts_total,
                "duration": duration,
                "exit_status": exit_status,
                "secrets": secrets,
                "raw_exact": raw_exact,
                "agent": _agent(agent),
                "shown_tokens": shown_tokens,
            }
        )
    except (ValueError, TypeError, OSError) as exc:
        note(f"{exc}; this delivery is not counted")
        return False
    return pending.store(row)


def rows(path: Path | None = None, *, since: float | None = None) -> Iterator[Row]:
    """Every recorded delivery, oldest first (nothing if there is no ledger yet), the
    pending ones counted first when this is the ledger ``record_later`` writes to. A
    failure to read is an ``AgentoutError`` naming the file; never a traceback."""
    from agentout.ledger import database

    if path is None:
        path = database_path()
        if enabled() and pending_path().exists():
            count_pending()
    yield from database.read(path, since)


def count_pending() -> int:
    """Count and store every pending delivery (``agentout.ledger.pending.fold``); how many."""
    from agentout.ledger.pending import fold

    return fold()


# -- counted after the command has answered ------------------------------------------------


def _without_secrets(text: str | None) -> str | None:
    """``text`` with its secrets hidden (``agentout.redact``) before it is written: a
    command line can hold a token (``curl -H "Authorization: Bearer ..."``), and a hook's
    raw output is the tool's as it was. Its tokens are then counted with the markers."""
    if not text:
        return text
    from agentout.redact import default_redactor

    return default_redactor().redact_text(text)[0]


def record_later(
    *,
    tool: str,
    command: str,
    delivered: str,
    raw: str | None = None,
    raw_path: str | None = None,
    tokenizer: str | None = None,
    duration: float | None = None,
    exit_status: int | None = None,
    secrets: int = 0,
    agent: str | None = None,
    limit: int | None = None,
) -> None:
    """Record a delivery whose tokens are not counted yet, without making the caller wait
    for a tokenizer: it is counted later (see the module docstring). With
    ``AGENTOUT_LEDGER_SYNC=1``, or once the tokenizer is loaded anyway, it is done here.
    ``agent`` (default: the one this process runs under) and ``limit`` (its client's
    inline limit, when not its default) say what the client would have shown of the raw
    output (``agentout.ledger.clients``). Never raises."""
    if not enabled():
        return
    from agentout.ledger import pending

    command, raw = _without_secrets(command) or "", _without_secrets(raw)
    payload = {
        "tool": tool,
        "command": command,
        "time": time.time(),
        "delivered": delivered,
        "raw": None if raw == delivered else raw,
        "raw_same": raw == delivered,
        "raw_path": raw_path,
        "raw_bytes": _size(raw_path),
        "tokenizer": tokenizer,
        "duration": duration,
        "exit_status": exit_status,
        "secrets": secrets,
        "project": os.getcwd(),
        "agent": _agent(agent),
        "limit": limit,
    }
    sync = os.environ.get(ENV_SYNC, "").strip() in ("1", "true", "yes")
    # In this process only when it costs nothing noticeable: the tokenizer is loaded and
    # the raw output is small (counting 4 MiB of it takes about half a second); but not
    # before a deferred answer (``defer``), which the row waits for in the pending file.
    cheap = "agentout.tokens" in sys.modules and raw_path is None and len(raw or "") <= _CHEAP
    if sync or (cheap and _deferred is None):
        pending.count_now(payload)
        return
    try:
        size = pending.append(payload)
    except (OSError, ValueError) as exc:
        from agentout.ledger.news import note

        note(f"{exc}; this delivery is not counted")
        return
    if _deferred is not None:  # kept before the answer; counted once it is out
        if count_pending not in _deferred:
            _deferred.append(count_pending)
    elif size >= PENDING_BYTES:
        pending.start_recorder()


def _agent(agent: str | None) -> str:
    """``agent``, or the one whose client runs this process's commands."""
    if agent is not None:
        return agent
    from agentout.ledger.clients import agent_of

    return agent_of()


def _size(path: str | None) -> int | None:
    if path is None:
        return None
    try:
        return os.stat(path).st_size
    except OSError:
        return None


if __name__ == "__main__":  # the detached recorder of earlier versions
    from agentout.ledger.news import in_recorder

    in_recorder()
    count_pending()
