"""``agentout discover``: what agentout would have saved on the commands an agent ran,
and on the MCP tool results it got.

Each recorded shell call is replayed through the same library path ``agentout run``
takes (``agentout.deliver.text.deliver_output`` with the command's reducer, if one
matches), on the output the transcript holds, so the savings are exact counts: the
tokens of the recorded output against the tokens of what ``agentout run`` would have
printed for it. Each recorded MCP result goes through what the ``PostToolUse`` hook does
with it (``agentout.agents.claude_mcp.fit_body``, with the budgets of the user's config).
The store the replays need is a temporary directory, removed after.
"""

from __future__ import annotations

import shlex
import shutil
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentout.agents.transcripts import McpCall, ShellCall

__all__ = ["Family", "Replay", "Summary", "replay", "replay_mcp", "summarise", "summarise_mcp"]


@dataclass(frozen=True)
class Replay:
    raw_tokens: int
    delivered_tokens: int
    reducer: str | None  # None: no reducer matches the command (the generic path)
    form: str

    @property
    def saved(self) -> int:
        return self.raw_tokens - self.delivered_tokens


def _argv(command: str) -> tuple[tuple[str, ...], bool]:
    """(argv, run through the shell): as the hook would route it."""
    from agentout.agents._shell import analyse

    script = analyse(command)
    if script is not None and script.plain and script.simple and script.segments[0].words:
        return script.segments[0].words, False
    return (command,), True


def replay(call: ShellCall, store_dir: Path, tokenizer: Any = None) -> Replay:
    from agentout import process
    from agentout.deliver.text import TextSettings, deliver_output, text_threshold
    from agentout.reducers import find
    from agentout.sources.command import CMD_CHARS
    from agentout.store.capture import Capture
    from agentout.store.spill import SpillStore
    from agentout.tokens import get_tokenizer
    from agentout.tokens.truncate import clip

    counter = get_tokenizer(tokenizer)
    argv, shell = _argv(call.command)
    run_argv = process.shell_argv(argv[0]) if shell else argv
    threshold = text_threshold()
    capture = Capture(threshold=threshold, store=SpillStore(store_dir))
    capture.feed(call.output.encode("utf-8", "surrogateescape"))
    capture.close()
    exit_status = 1 if call.failed else 0
    header = {"cmd": clip(shlex.join(run_argv), CMD_CHARS), "exit": exit_status}
    reducer = find(run_argv)
    delivery = deliver_output(
        capture,
        TextSettings(threshold, tokenizer=tokenizer),
        argv=run_argv,
        exit_status=exit_status,
        header=header,
        reducer=reducer,
    )
    delivered = delivery.tokens if delivery.tokens is not None else counter.count(delivery.text)
    name = reducer.name if reducer is not None else None
    return Replay(counter.count(call.output), delivered, name, delivery.form)


@dataclass
class Family:
    name: str
    calls: int = 0
    raw: int = 0
    delivered: int = 0
    reducers: set[str] = field(default_factory=set)

    @property
    def saved(self) -> int:
        return self.raw - self.delivered

    def as_dict(self) -> dict[str, Any]:
        return {
            "command": self.name,
            "calls": self.calls,
            "raw_tokens": self.raw,
            "delivered_tokens": self.delivered,
            "saved_tokens": self.saved,
            "reducers": sorted(self.reducers),
        }


@dataclass
class Summary:
    calls: int = 0
    raw: int = 0
    delivered: int = 0
    families: dict[str, Family] = field(default_factory=dict)

    @property
    def saved(self) -> int:
        return self.raw - self.delivered

    def most_gained(self, limit: int = 15) -> list[Family]:
        ranked = sorted(self.families.values(), key=lambda f: (-f.saved, f.name))
        return [f for f in ranked if f.saved > 0][:limit]

    def unhandled(self, limit: int = 15) -> list[Family]:
        """Commands no reducer handles yet, by the tokens their output cost."""
        plain = [f for f in self.families.values() if not f.reducers]
        return sorted(plain, key=lambda f: (-f.raw, f.name))[:limit]


def _family(command: str) -> str:
    words = command.split()
    if not words:
        return "(empty)"
    head = words[0].rsplit("/", 1)[-1]
    if len(words) > 1 and not words[1].startswith("-") and head in _SUBCOMMANDS:
        return f"{head} {words[1]}"
    return head


_SUBCOMMANDS = {"git", "npm", "pnpm", "yarn", "cargo", "go", "docker", "kubectl", "uv", "make"}


def summarise(calls: Iterable[ShellCall], tokenizer: Any = None) -> tuple[Summary, list[Replay]]:
    summary = Summary()
    replays: list[Replay] = []
    store = Path(tempfile.mkdtemp(prefix="agentout-discover-"))
    try:
        for call in calls:
            done = replay(call, store / "spill", tokenizer)
            replays.append(done)
            summary.calls += 1
            summary.raw += done.raw_tokens
            summary.delivered += done.delivered_tokens
            family = summary.families.setdefault(
                _family(call.command), Family(_family(call.command))
            )
            family.calls += 1
            family.raw += done.raw_tokens
            family.delivered += done.delivered_tokens
            if done.reducer is not None:
                family.reducers.add(done.reducer)
    finally:
        shutil.rmtree(store, ignore_errors=True)
    return summary, replays


def replay_mcp(call: McpCall, config: Any, store_dir: Path, source: str = "config.toml") -> Replay:
    """The tokens of an MCP result as the model got it, and as the hook would answer it
    (the same when it is within its budget, a failed call, or agentout's own server)."""
    from agentout.agents.claude_mcp import Shaped, fit_body
    from agentout.mcp.budgets import budget_for, split_tool_name
    from agentout.store.spill import SpillStore
    from agentout.tokens import get_tokenizer

    shaped = Shaped.of(call.response)
    names = split_tool_name(call.tool)
    if shaped is None or names is None:
        return Replay(0, 0, None, "whole")
    budget = budget_for(config, *names, source=source)
    counter = get_tokenizer(budget.tokenizer if budget is not None else None)
    raw = counter.count(shaped.body)
    if budget is None or call.failed:
        return Replay(raw, raw, None, "whole")
    from agentout.agents.claude_mcp import FitFailed

    try:
        fitted = fit_body(shaped.body, budget, SpillStore(store_dir))
    except FitFailed:
        fitted = None
    if fitted is None:
        return Replay(raw, raw, None, "whole")
    return Replay(raw, counter.count(fitted), None, "cut")


def summarise_mcp(
    calls: Iterable[McpCall], config: Any, source: str = "config.toml"
) -> dict[str, Family]:
    """Per MCP tool (``mcp__SERVER__TOOL``): calls, tokens as got, tokens through the hook."""
    tools: dict[str, Family] = {}
    store = Path(tempfile.mkdtemp(prefix="agentout-discover-"))
    try:
        for call in calls:
            done = replay_mcp(call, config, store / "spill", source)
            family = tools.setdefault(call.tool, Family(call.tool))
            family.calls += 1
            family.raw += done.raw_tokens
            family.delivered += done.delivered_tokens
    finally:
        shutil.rmtree(store, ignore_errors=True)
    return tools
