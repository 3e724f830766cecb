"""Claude Code's ``PostToolUse`` hook for MCP tools: any server's result within a budget.

Claude Code passes an MCP tool's result to the hook as ``tool_response`` in the form the
model is shown (checked against its behaviour, e.g. anthropics/claude-code#79944):

- a **string**, ``JSON.stringify(structuredContent)``, when the tool returned structured
  content (the text blocks are then not shown at all);
- a **list of content blocks** (``{"type": "text", "text": ...}``, images...) otherwise;
- (an object ``{"content": [...], "structuredContent": ...}``, as the MCP result itself,
  is read too, in case a version passes that.)

When what the model would be shown is over the budget, the answer is
``hookSpecificOutput.updatedMCPToolOutput`` in the same form: a string for a string, a
list of blocks for a list (the text blocks become one, other blocks stay where they
were). The text is fitted by the MCP middleware's own functions (``agentout.mcp.fit``):
lists of records packed as ``agentout fit`` packs them (several lists sharing the
budget), other JSON cut to whole items and whole lines with counts, plain text cut to
its lines that matter. A value of one string in a one-key object (``{"content": TEXT}``,
the reference servers' form) is fitted as that text and wrapped again. The complete
result, its secrets hidden (``agentout.redact``, one pass over the whole text), is in
the spill store first, and the answer ends with the exact ``agentout show`` command that
pages it. Under the budget there is no answer (the model gets the result as it was),
unless the result holds a secret: the answer is then the result with its secrets hidden.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from agentout.mcp.budgets import ClientBudget, budget_for, split_tool_name

TYPE_CHECKING = False  # typing, dataclasses, pathlib are not imported: the hook is timed
if TYPE_CHECKING:
    from typing import Any

    from agentout.mcp.fit import Limits

__all__ = ["FitFailed", "Shaped", "decide_post", "fit_body"]

_FIRST_JSON = ("{", "[")


class FitFailed(Exception):
    """The result could not be fitted (the hook then answers nothing and says why)."""


class Shaped:
    """A ``tool_response``: its form, and the text the model would be shown of it."""

    __slots__ = ("body", "form", "original")

    def __init__(self, form: str, body: str, original: Any) -> None:
        self.form = form  # "string" | "blocks" | "object"
        self.body = body
        self.original = original

    @classmethod
    def of(cls, response: Any) -> Shaped | None:
        if isinstance(response, str):
            return cls("string", response, response)
        if isinstance(response, list):
            texts = _texts(response)
            return None if texts is None else cls("blocks", "\n".join(texts), response)
        if isinstance(response, Mapping) and isinstance(response.get("content"), list):
            structured = response.get("structuredContent")
            if structured is not None:  # what Claude Code shows of such a result
                return cls("object", _compact(structured), response)
            texts = _texts(response["content"])
            return None if texts is None else cls("object", "\n".join(texts), response)
        return None

    def with_body(self, body: str) -> Any:
        """The same form holding ``body`` as its text."""
        if self.form == "string":
            return body
        blocks = self.original if self.form == "blocks" else self.original["content"]
        replaced: list[Any] = []
        for block in blocks:
            if _is_text(block):
                if not any(_is_text(b) for b in replaced):
                    replaced.append({"type": "text", "text": body})
                continue
            replaced.append(block)
        if not any(_is_text(b) for b in replaced):
            replaced.insert(0, {"type": "text", "text": body})
        if self.form == "blocks":
            return replaced
        rest = {k: v for k, v in self.original.items() if k not in ("content", "structuredContent")}
        return {**rest, "content": replaced}


def _is_text(block: Any) -> bool:
    return (
        isinstance(block, Mapping)
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
    )


def _texts(blocks: list[Any]) -> list[str] | None:
    if not all(isinstance(b, Mapping) and isinstance(b.get("type"), str) for b in blocks):
        return None
    texts = [b["text"] for b in blocks if _is_text(b)]
    return texts or None


_compact = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode  # one, reused


def _indented(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2)


def _item_lines(value: Any, depth: int = 0) -> str:
    """JSON with one item a line: the items of a top-level list, and of the lists and
    objects under a top-level object's keys, each compact. As readable by lines as
    indented JSON, and written at the C encoder's speed (``indent=`` takes the
    pure-Python one, ten times slower on a megabyte)."""
    pad = "  " * (depth + 1)
    inner = depth + 1 if depth == 0 and isinstance(value, dict) else 2
    if depth < 2 and isinstance(value, list) and value:
        items = [pad + _item_lines(item, inner) for item in value]
        return "[\n" + ",\n".join(items) + "\n" + pad[2:] + "]"
    if depth < 2 and isinstance(value, dict) and value:
        pairs = [f"{pad}{_compact(key)}: {_item_lines(v, inner)}" for key, v in value.items()]
        return "{\n" + ",\n".join(pairs) + "\n" + pad[2:] + "}"
    return _compact(value)


def _json(text: str) -> Any:
    if not text.lstrip().startswith(_FIRST_JSON):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, (dict, list)) else None


class _Content:
    """What is fitted: ``text`` (and its JSON ``value``, if it is JSON), unwrapped from a
    one-key object ``{wrap: text}``."""

    __slots__ = ("text", "value", "wrap")

    def __init__(self, text: str, value: Any, wrap: str | None) -> None:
        self.text, self.value, self.wrap = text, value, wrap

    @classmethod
    def of(cls, body: str) -> _Content:
        value = _json(body)
        if isinstance(value, dict) and len(value) == 1:
            key, only = next(iter(value.items()))
            if isinstance(only, str):
                return cls(only, _json(only), key)
        return cls(body, value, None)

    def complete(self) -> tuple[str, str]:
        """(what the store keeps, its suffix): the text exactly, or JSON that came on one
        line written one item a line (so that it pages, and greps, by lines)."""
        if self.value is None:
            return self.text, ".txt"
        if "\n" not in self.text.strip():
            return _item_lines(self.value), ".json"
        return self.text, ".json"

    def dumps(self, value: Any) -> str:
        """JSON written as the tool wrote it: indented, or on one line."""
        return _indented(value) if "\n" in self.text.strip() else _compact(value)


def decide_post(
    payload: Mapping[str, Any],
    *,
    config: Mapping[str, Any] | None = None,
    source: str | None = None,
) -> dict[str, Any] | None:
    """The hook's answer to one ``PostToolUse`` payload, or None for no answer.

    ``config`` defaults to the user's config file (``agentout.read.config``). Raises
    ``InputError`` for a bad config and ``FitFailed`` when the result cannot be fitted.
    """
    name = payload.get("tool_name")
    names = split_tool_name(name) if isinstance(name, str) else None
    if names is None:
        return None
    if config is None:  # the whole file checked: a bad one is off for every tool alike
        from agentout.agents._config import load_checked

        config, source = load_checked()
    budget = budget_for(config, *names, source=source or "config.toml")
    if budget is None:
        return None
    shaped = Shaped.of(payload.get("tool_response"))
    if shaped is None:
        return None
    body = fit_body(shaped.body, budget)
    if body is None:
        return None
    return {
        "hookSpecificOutput": {
            "hookEventName": "PostToolUse",
            "updatedMCPToolOutput": shaped.with_body(body),
        }
    }


def fit_body(body: str, budget: ClientBudget, store: Any = None) -> str | None:
    """``body`` within ``budget`` (see the module doc), or None when it fits as it is and
    holds no secret.
    ``store``: the spill store (default: the one ``agentout show`` reads)."""
    from agentout.redact import default_redactor

    clean, found = default_redactor().redact_text(body)
    if len(body.encode("utf-8", "surrogatepass")) <= budget.max_tokens:
        # a token is at least one byte: no tokenizer needed to know it fits; a secret in
        # it is still hidden (a marker never breaks the JSON a string is part of)
        return clean if found else None
    from dataclasses import replace

    from agentout.mcp.fit import Limits
    from agentout.tokens import count_until

    limits = Limits.of(budget.max_tokens, None, budget.tokenizer, store)
    if count_until(body, limits.max_tokens, limits.tokenizer) is not None:
        return clean if found else None
    content = _Content.of(clean)
    complete, suffix = content.complete()
    ref, warning = limits.try_spill(complete, kind="mcp", suffix=suffix)
    limits = replace(limits, kept=ref, pager="cli", redacted=True)
    count = limits.tokenizer.count
    if content.wrap is not None:  # leave room for the quoting, so one pass is enough
        limits = replace(limits, max_tokens=_room_when_quoted(content, limits.max_tokens, count))
    for _ in range(6):  # JSON quoting and joins cost a little more: fit again, tighter
        text = _fitted(content, limits, ref.ref if ref is not None else None, warning)
        over = count(text) - budget.max_tokens
        if over <= 0:
            return text
        room = limits.max_tokens - over - 8
        if room < 1:
            break
        limits = replace(limits, max_tokens=room)
    raise FitFailed(f"the result does not fit max_tokens={budget.max_tokens}")


def _room_when_quoted(content: _Content, budget: int, count: Any) -> int:
    """The budget for the text that, written again as ``{wrap: text}`` in JSON, is about
    ``budget``: what quoting adds per line, measured on the text's first lines, times
    the lines that budget holds. (Fitting checks the real count after; this only saves
    fitting twice.)"""
    sample = content.text[:20_000].split("\n")[:200]
    plain = max(count("\n".join(sample)), 1)
    quoted = count(_compact({content.wrap: "\n".join(sample)}))
    per_line = max(quoted - plain, 0) / len(sample)
    lines = budget * len(sample) / plain
    return max(budget - int(per_line * lines) - 8, budget // 2)


def _note(ref: str | None, warning: str | None, what: str = "") -> str:
    """The last line: what was cut, and the exact command that pages the whole result."""
    from agentout.mcp.fit import short_ref

    head = f"{what} shown; " if what else ""
    if ref is None:
        return f"[agentout: {head}{warning or 'the rest was not kept'}]"
    return f"[agentout: {head}all of it: agentout show {short_ref(ref)}]"


def _fitted(content: _Content, limits: Limits, ref: str | None, warning: str | None) -> str:
    from dataclasses import replace

    from agentout.mcp.fit import fit_records, fit_text, fit_value

    text: str | None = None
    if content.value is not None:
        text = fit_records(content.value, limits, _note(ref, warning) + "\n")
        if text is not None:
            text = text.rstrip("\n")
        else:
            note = _note(ref, warning, "x" * 80)  # room for the cuts the note will name
            room = limits.max_tokens - limits.tokenizer.count(note) - 1
            fitted = fit_value(content.value, replace(limits, max_tokens=max(room, 1)),
                               dumps=content.dumps) if room > 0 else None  # fmt: skip
            if fitted is not None:
                what = "; ".join(cut.describe() for cut in fitted[1])
                text = content.dumps(fitted[0]) + "\n" + _note(ref, warning, what)
    if text is None:
        try:
            text = fit_text(content.text, limits, hybrid=False).text.rstrip("\n")
        except ValueError as exc:
            raise FitFailed(str(exc)) from None
    if content.wrap is not None:
        return _compact({content.wrap: text})
    return text
