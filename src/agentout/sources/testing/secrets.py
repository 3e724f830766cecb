"""A test run with its secrets hidden, before anything of it is shown or kept."""

from __future__ import annotations

from agentout.sources.testing.model import Run

__all__ = ["without_secrets"]


def without_secrets(run: Run, output: str) -> tuple[Run, str]:
    """The run's messages, values and output with secrets hidden (``agentout.redact``),
    before anything is shown or kept: a test that compares a token prints it."""
    from dataclasses import replace

    from agentout.redact import default_redactor

    redactor = default_redactor()
    if not redactor.enabled:
        return run, output

    def hide(text: str) -> str:
        return redactor.redact_cut_text(text)[0] if text else text

    def hide_or_none(text: str | None) -> str | None:
        return None if text is None else hide(text)

    failures = tuple(
        replace(
            f,
            message=hide(f.message),
            expected=hide_or_none(f.expected),
            got=hide_or_none(f.got),
            diff=hide(f.diff),
            output=hide(f.output),
            details=hide(f.details),
            source=tuple(hide(line) for line in f.source),
        )
        for f in run.failures
    )
    diagnostics = tuple(replace(d, message=hide(d.message)) for d in run.diagnostics)
    return replace(run, failures=failures, diagnostics=diagnostics), hide(output)
