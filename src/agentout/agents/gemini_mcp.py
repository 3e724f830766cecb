"""Gemini CLI's ``AfterTool`` hook on another MCP server's tool: a result over the budget
agentout's own MCP tools keep is cut to fit as they cut theirs (``agentout.mcp.fit``).

Gemini CLI 0.61.0 names an MCP tool ``mcp_SERVER_TOOL`` (``generateValidName`` in
packages/core/src/tools/mcp-tool.ts) and hands the model its result as a list of parts,
one ``{"text": wrapUntrusted(block.text)}`` per text block (``transformMcpContentToParts``).
Only a result made of text parts is touched (an image or a blob is left alone, as is an
error, and the tools of agentout's own server, already within budget). The text of the
parts, secrets hidden, is kept complete in the store; the model gets its most important
whole lines within the budget, and the line naming the complete text (``read_output``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agentout.agents.gemini_shell import CLOSE, OPEN

__all__ = ["LEAD", "OWN_PREFIX", "PREFIX", "decide"]

PREFIX = "mcp_"
OWN_PREFIX = "mcp_agentout_"  # ``agentout init gemini`` names its server "agentout"
LEAD = "[agentout: the tool ran; below is its result, cut to fit (not an error)]\n"


def _texts(content: Any) -> list[str] | None:
    """The text of every part, unwrapped, or None when a part is not text."""
    if not isinstance(content, list) or not content:
        return None
    texts = []
    for part in content:
        if not isinstance(part, dict) or set(part) != {"text"} or not isinstance(part["text"], str):
            return None
        text = part["text"]
        if text.startswith(OPEN) and text.endswith(CLOSE):
            text = text[len(OPEN) : -len(CLOSE)]
        texts.append(text)
    return texts


def decide(payload: Mapping[str, Any]) -> dict[str, Any] | None:
    """The AfterTool answer that replaces a result over the budget, or None."""
    import time

    started = time.monotonic()
    tool = payload["tool_name"]
    response = payload.get("tool_response")
    if tool.startswith(OWN_PREFIX) or not isinstance(response, dict) or response.get("error"):
        return None
    texts = _texts(response.get("llmContent"))
    if texts is None:
        return None
    from agentout.mcp.fit import Limits, fit_text
    from agentout.tokens import count_until

    limits = Limits.of()
    whole = "\n".join(texts)
    if limits.fits(whole):
        return None  # within budget: as Gemini CLI gives it
    redactor = _redactor()
    secrets = 0
    if redactor is not None:
        whole, found = redactor.redact_text(whole)
        secrets = found.total
    fitted = fit_text(whole, limits, kind="mcp", hybrid=False)
    body = fitted.text.rstrip("\n").replace("</untrusted_context>", "&lt;/untrusted_context&gt;")
    text = LEAD + OPEN + body + CLOSE
    original = "\n".join(part["text"] for part in response["llmContent"])  # as the model reads it
    if count_until(original, limits.tokenizer.count(text), limits.tokenizer) is not None:
        return None
    _record(tool, text, original, secrets, time.monotonic() - started)
    return {"decision": "deny", "reason": text}


def _redactor() -> Any:
    from agentout.redact import Redactor

    found = Redactor.from_environ()
    return found if found.enabled else None


def _record(tool: str, text: str, original: str, secrets: int, duration: float) -> None:
    """One ledger row: the tokens of the parts Gemini had against those of the answer."""
    from agentout.ledger import book as ledger

    if ledger.enabled():
        ledger.record_later(
            tool="hook",
            agent="gemini",  # the raw side is the llmContent Gemini CLI would show
            command=tool,
            delivered=text,
            raw=original,
            duration=duration,
            secrets=secrets,
        )
