"""Gemini CLI's ``AfterTool`` hook on ``run_shell_command``: the command has run, exactly
as the user's policy decided; agentout only makes what the model reads of it smaller.

Gemini CLI 0.61.0 (``packages/core/src/tools/shell.ts``, bundled in the npm package) hands
the model this ``llmContent`` for a command that finished::

    <untrusted_context>
    Output: OUTPUT or (empty)
    Error: MESSAGE            (only when the shell could not run it; tool_response.error set)
    Exit Code: N              (only when not 0)
    Signal: S                 (only when killed by one)
    Background PIDs: A, B     (only when it left processes behind)
    Process Group PGID: N     (when known)
    </untrusted_context>

(``wrapUntrusted`` writes the two tags and escapes ``</untrusted_context>`` inside; 0.45
gave the same lines without them, and they are read too.) The
OUTPUT part goes through ``agentout run``'s delivery (``deliver_output`` with the
command's reducer; the complete output, secrets hidden, kept in the store and named by
``agentout show REF``); every other line is kept as Gemini wrote it. Anything of another
shape (cancelled, backgrounded, summarised, an error) is left alone.

How the smaller text reaches the model: 0.61.0 reads no ``hookSpecificOutput.tool_output``
for ``AfterTool`` (some docs name it; ``DefaultHookOutput`` has no such getter). The one
answer it applies that replaces the result is ``decision: "deny"`` with ``reason``:
``executeToolWithHooks`` turns it into an error result whose message, the ``reason``, is
what the model receives (``{"error": REASON}``), and the user's display reads "Tool result
blocked: ...". So the text starts with a line saying the command ran.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["LEAD", "Shell", "decide", "parse", "reduced"]

OPEN, CLOSE = "<untrusted_context>\n", "\n</untrusted_context>"
LEAD = "[agentout: the command ran; below is its output, reduced (not an error)]\n"
_OUTPUT = "Output: "
# The lines shell.ts may add after the output, in the order it adds them (Error: is only
# there with tool_response.error, which is left alone).
_TAIL = (
    re.compile(r"Exit Code: -?\d+"),
    re.compile(r"Signal: \S+"),
    re.compile(r"Background PIDs: \d+(?:, \d+)*"),
    re.compile(r"Process Group PGID: \d+"),
)
_EXIT = re.compile(r"Exit Code: (-?\d+)")


@dataclass(frozen=True)
class Shell:
    """One finished command's llmContent, taken apart losslessly."""

    output: str  # as Gemini printed it (escaped as wrapUntrusted escapes it)
    tail: tuple[str, ...]  # the Exit Code/Signal/... lines, verbatim
    wrapped: bool = True  # in <untrusted_context> (0.5x on; 0.45 gave the lines bare)

    @property
    def exit_status(self) -> int:
        for line in self.tail:
            found = _EXIT.fullmatch(line)
            if found:
                return int(found.group(1))
        return 0

    def render(self, output: str) -> str:
        """The llmContent again, with ``output`` in place of the output."""
        body = "\n".join((_OUTPUT + output, *self.tail))
        if not self.wrapped:
            return body
        return OPEN + body.replace("</untrusted_context>", "&lt;/untrusted_context&gt;") + CLOSE


def parse(content: str) -> Shell | None:
    """The parts of a finished command's llmContent, or None for any other shape."""
    wrapped = content.startswith(OPEN + _OUTPUT) and content.endswith(CLOSE)
    if wrapped:
        content = content[len(OPEN) : -len(CLOSE)]
    elif not content.startswith(_OUTPUT):
        return None
    lines = content[len(_OUTPUT) :].split("\n")
    tail: list[str] = []
    order = len(_TAIL)
    while len(lines) > 1:  # the output's own first line is never a tail line
        kind = next((i for i, rule in enumerate(_TAIL) if rule.fullmatch(lines[-1])), None)
        if kind is None or kind >= order:
            break
        order = kind
        tail.insert(0, lines.pop())
    output = "\n".join(lines)
    if output == "(empty)":
        return None
    return Shell(output, tuple(tail), wrapped)


def _argv(command: str) -> tuple[list[str], str]:
    """(argv for the reducer lookup, the command line for the header)."""
    from agentout import process
    from agentout.agents._shell import analyse

    script = analyse(command)
    if script is not None and script.plain and script.simple and script.segments[0].words:
        return list(script.segments[0].words), command
    return list(process.shell_argv(command)), command


def reduced(shell: Shell, command: str) -> tuple[str, Any]:
    """(the output as ``agentout run`` would deliver it, the delivery)."""
    from agentout.deliver.limits import text_threshold
    from agentout.deliver.text import TextSettings, deliver_output
    from agentout.reducers import find
    from agentout.sources.command import CMD_CHARS
    from agentout.store.capture import Capture
    from agentout.store.spill import SpillStore
    from agentout.tokens.truncate import clip

    argv, line = _argv(command)
    redactor = _redactor()
    stream = redactor.stream() if redactor is not None else None
    threshold = text_threshold()  # as agentout run gives it: what a client shows inline
    capture = Capture(
        threshold=threshold, store=SpillStore.default(), filters=(stream,) if stream else ()
    )
    capture.feed(shell.output.encode("utf-8", "surrogateescape"))  # the store: byte-exact
    capture.close()
    header: dict[str, Any] = {"cmd": clip(line, CMD_CHARS), "exit": shell.exit_status}
    if stream is not None and stream.found.total:
        header["secrets"] = stream.found.total
    delivery = deliver_output(
        capture,
        TextSettings(threshold),
        argv=argv,
        exit_status=shell.exit_status,
        header=header,
        reducer=find(argv),
    )
    return delivery.text.rstrip("\n"), delivery


def _redactor() -> Any:
    from agentout.redact import Redactor

    found = Redactor.from_environ()
    return found if found.enabled else None


def decide(payload: Mapping[str, Any]) -> dict[str, Any] | None:
    """The AfterTool answer that replaces the result with a smaller one, or None."""
    import time

    started = time.monotonic()
    response = payload.get("tool_response")
    if not isinstance(response, dict) or response.get("error"):
        return None
    content = response.get("llmContent")
    command = payload["tool_input"]["command"]
    if not isinstance(content, str):
        return None
    shell = parse(content)
    if shell is None:
        return None
    output, delivery = reduced(shell, command)
    if delivery.form == "whole" and output.startswith(shell.output.rstrip("\n")):
        return None  # as printed, unchanged: it cannot be smaller (no tokenizer loaded to see it)
    text = LEAD + shell.render(output)
    from agentout.tokens import count_until, get_tokenizer

    counter = get_tokenizer(None)
    if count_until(content, counter.count(text), counter) is not None:  # O(answer), not O(output)
        if delivery.ref is not None:
            delivery.ref.path.unlink(missing_ok=True)  # not delivered: nothing names it
        return None
    _record(command, text, content, delivery, shell.exit_status, time.monotonic() - started)
    return {"decision": "deny", "reason": text}


def _record(
    command: str, text: str, content: str, delivery: Any, status: int, duration: float
) -> None:
    """One ledger row, as ``agentout run`` writes one: the tokens of the llmContent
    Gemini had against those of the one the model reads."""
    from agentout.ledger import book as ledger

    if ledger.enabled():
        ledger.record_later(
            tool="hook",
            agent="gemini",  # the raw side is the llmContent Gemini CLI would show
            command=command,
            delivered=text,
            raw=content,
            duration=duration,
            exit_status=status,
            secrets=delivery.secrets,
        )
