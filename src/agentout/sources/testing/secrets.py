"""A test run with its secrets hidden, before anything of it is shown or kept."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from agentout.sources.testing.model import Diagnostic, Failure, Run

__all__ = ["without_secrets"]

_Item = TypeVar("_Item", Failure, Diagnostic)


def without_secrets(run: Run, output: str) -> tuple[Run, str]:
    """The run with every string it holds hidden of secrets (``agentout.redact``), and
    ``output`` too, before anything is shown or kept: a test that compares a token prints
    it, and a test named after one (``test_token_ghp_...``, ``test_param[AKIA...]``, a
    subtest's message) carries it in its id, its file and its place."""
    from dataclasses import replace

    from agentout.redact import default_redactor

    redactor = default_redactor()
    if not redactor.enabled:
        return run, output

    def hide(text: str) -> str:
        return redactor.redact_cut_text(text)[0] if text else text

    failures = tuple(_hidden(f, hide) for f in run.failures)
    diagnostics = tuple(_hidden(d, hide) for d in run.diagnostics)
    file_counts = run.file_counts
    if file_counts and _holds_secrets(list(file_counts), hide):
        file_counts = {hide(file): counts for file, counts in file_counts.items()}
    hidden = replace(
        run,
        failures=failures,
        diagnostics=diagnostics,
        file_counts=file_counts,
        stopped=hide(run.stopped),
    )
    return hidden, hide(output)


def _hidden(item: _Item, hide: Callable[[str], str]) -> _Item:
    """``item`` with each of its strings hidden (a tuple's too); itself when none holds a
    secret, found with one scan of them all."""
    from dataclasses import fields, replace

    values = {field.name: getattr(item, field.name) for field in fields(item)}
    texts = [v for v in values.values() if isinstance(v, str)]
    texts += [s for v in values.values() if isinstance(v, tuple) for s in v if isinstance(s, str)]
    if not _holds_secrets(texts, hide):
        return item
    changes: dict[str, Any] = {}
    for name, value in values.items():
        if isinstance(value, str):
            changes[name] = hide(value)
        elif isinstance(value, tuple):
            changes[name] = tuple(hide(v) if isinstance(v, str) else v for v in value)
    return replace(item, **changes)


def _holds_secrets(texts: list[str], hide: Callable[[str], str]) -> bool:
    """Whether hiding would change any of ``texts``: one scan of them joined by line
    ends, which finds at least what a scan of each would (every rule reads within a line,
    and a private key block that opens in one goes on in the next)."""
    joined = "\n".join(texts)
    return hide(joined) != joined
