"""``agentout discover``: what agentout would have saved on the commands an agent ran,
and on the MCP tool results it got.

Each recorded shell call is replayed through exactly what agentout does with it in Claude
Code (never decided by permission rules, which agentout does not read):

- **shell**: a command one of agentout's functions in the session's shell runs
  (``agentout.agents.claude_shell.reached``), failing or not, is replayed as ``agentout
  run`` delivers it (``deliver_output`` with its reducer, run's own budget; a failing
  command within what the client shows of one). A test command gets agentout's test
  report there, which a transcript cannot replay (it holds the text, not the results):
  such calls are counted through the text path and flagged ``exact=False``.
- **PostToolUse** (``agentout.agents.claude_bash.decide``): any other call that succeeded
  is replayed as the hook answers it (Claude Code's inline limit as the budget, the same
  output twice in a session named once), or counted as it was when the hook would not
  answer.
- **Neither**: any other call that failed reaches no hook that can replace output
  (``PostToolUseFailure`` cannot): a pipeline, a redirect, a program with no function.

The savings are exact counts: the tokens of the recorded output against the tokens the
model would have got. Each recorded MCP result goes through what the ``PostToolUse`` hook
does with it (``agentout.agents.claude_mcp.fit_body``, with the budgets of the user's
config). The store and session cache the replays need are a temporary directory, removed
after; no ledger row is written.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentout.agents.transcripts import McpCall, ShellCall

__all__ = [
    "HOOKS",
    "Family",
    "Replay",
    "Summary",
    "replay",
    "replay_mcp",
    "summarise",
    "summarise_mcp",
]

HOOKS = ("shell", "PostToolUse", "neither")
_SUBCOMMANDS = {"git", "npm", "pnpm", "yarn", "cargo", "go", "docker", "kubectl", "uv", "make"}


@dataclass(frozen=True)
class Replay:
    raw_tokens: int
    delivered_tokens: int
    reducer: str | None  # None: no reducer matches the command (the generic path)
    form: str
    hook: str = "neither"  # what reaches the call: one of HOOKS
    why: str = ""
    exact: bool = True  # False: a test command run by a function, counted through its text

    @property
    def saved(self) -> int:
        return self.raw_tokens - self.delivered_tokens


def _payload(call: ShellCall) -> dict[str, Any]:
    return {
        "session_id": call.session,
        "cwd": call.project,
        "permission_mode": call.mode,
        "tool_name": "Bash",
        "tool_input": {**call.tool_input, "command": call.command},
        "tool_use_id": call.tool_use_id,
    }


class Replayer:
    """What agentout would have done with each call: its functions, then PostToolUse."""

    def __init__(self, root: Path, tokenizer: Any = None, config: Mapping[str, Any] | None = None):
        from agentout.agents.claude_shell import function_names
        from agentout.tokens import get_tokenizer

        self.root, self.tokenizer = root, tokenizer
        self.counter = get_tokenizer(tokenizer)
        self.config = config if config is not None else {}
        self.names = function_names()

    def replay(self, call: ShellCall) -> Replay:
        from agentout.agents.claude_shell import reached

        raw = self.counter.count(call.output)
        payload = _payload(call)
        argv = (
            None if call.tool_input.get("run_in_background") else reached(call.command, self.names)
        )
        if argv is not None:
            return self._shell(call, argv, raw)
        if not call.failed:
            return self._post(call, payload, raw)
        why = "failed: no function of agentout's runs it (PostToolUseFailure cannot replace it)"
        return Replay(raw, raw, None, "whole", "neither", why)

    def _shell(self, call: ShellCall, argv: tuple[str, ...], raw: int) -> Replay:
        delivered, reducer, form = _run_delivery(call, argv, self.root / "spill", self.tokenizer)
        tests = _is_test_command(argv)
        why = "agentout's function in the session's shell"
        if tests:
            why += " (a test command: agentout run gives its test report, counted as its text)"
        if form == "whole" or delivered >= raw:  # the capture keeps the output as printed
            delivered = raw
        return Replay(raw, delivered, reducer, form, "shell", why, not tests)

    def _post(self, call: ShellCall, payload: dict[str, Any], raw: int) -> Replay:
        import os

        from agentout.agents import claude_bash
        from agentout.agents._shell import analyse
        from agentout.reducers import find
        from agentout.store.spill import SpillStore

        response = {"stdout": call.output, "stderr": "", "interrupted": False}
        post = {**payload, "hook_event_name": "PostToolUse", "tool_response": response}
        try:
            answer = claude_bash.decide(
                post,
                config=self.config,
                environ=os.environ,
                agentout=["agentout"],
                store=SpillStore(self.root / "spill"),
                seen_folder=str(self.root / "seen"),
                record=False,
            )
        except (claude_bash.BadPayload, OSError) as exc:
            return Replay(raw, raw, None, "whole", "PostToolUse", f"no answer: {exc}")
        if answer is None:
            return Replay(raw, raw, None, "whole", "PostToolUse", "exit 0: shown as printed")
        text = answer["hookSpecificOutput"]["updatedToolOutput"]["stdout"]
        found = find(claude_bash.argv_of(analyse(call.command), call.command))
        name = found.name if found is not None else None
        form = "repeat" if "earlier in this session" in text else ("reduced" if name else "cut")
        why = "exit 0: PostToolUse replaces the output"
        return Replay(raw, self.counter.count(text), name, form, "PostToolUse", why)


def _is_test_command(argv: tuple[str, ...]) -> bool:
    from agentout.sources.testing.programs import TEST_PROGRAMS

    return any(word.rsplit("/", 1)[-1].lower() in TEST_PROGRAMS for word in argv[:4])


def _run_delivery(
    call: ShellCall, argv: tuple[str, ...], store_dir: Path, tokenizer: Any
) -> tuple[int, str | None, str]:
    """(tokens, reducer, form) of what ``agentout run`` prints for the recorded output."""
    import shlex

    from agentout.deliver.limits import failure_threshold
    from agentout.deliver.text import TextSettings, deliver_output, text_threshold
    from agentout.reducers import find
    from agentout.sources.command import CMD_CHARS
    from agentout.store.capture import Capture
    from agentout.store.spill import SpillStore
    from agentout.tokens import get_tokenizer
    from agentout.tokens.truncate import clip

    counter = get_tokenizer(tokenizer)
    threshold = text_threshold()  # what agentout run takes: the client's inline limit
    capture = Capture(threshold=threshold, store=SpillStore(store_dir))
    capture.feed(call.output.encode("utf-8", "surrogateescape"))
    capture.close()
    exit_status = 1 if call.failed else 0
    if call.failed:
        threshold = failure_threshold(threshold)
    header = {"cmd": clip(shlex.join(argv), CMD_CHARS), "exit": exit_status}
    reducer = find(argv)
    delivery = deliver_output(
        capture,
        TextSettings(threshold, tokenizer=tokenizer),
        argv=argv,
        exit_status=exit_status,
        header=header,
        reducer=reducer,
    )
    delivered = delivery.tokens if delivery.tokens is not None else counter.count(delivery.text)
    return delivered, reducer.name if reducer is not None else None, delivery.form


def replay(call: ShellCall, store_dir: Path, tokenizer: Any = None) -> Replay:
    """One call, as the hooks would have answered it (see the module docstring)."""
    return Replayer(store_dir, tokenizer).replay(call)


@dataclass
class Family:
    name: str
    calls: int = 0
    raw: int = 0
    delivered: int = 0
    reducers: set[str] = field(default_factory=set)
    hooks: dict[str, int] = field(default_factory=dict)  # calls each way reaches

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
            "hooks": {hook: self.hooks.get(hook, 0) for hook in HOOKS},
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

    def failing(self, limit: int = 15) -> list[Family]:
        """Commands whose failures nothing of agentout's reached, by their calls."""
        found = [f for f in self.families.values() if f.hooks.get("neither")]
        return sorted(found, key=lambda f: (-f.hooks["neither"], f.name))[:limit]

    def hooks(self) -> dict[str, int]:
        return {h: sum(f.hooks.get(h, 0) for f in self.families.values()) for h in HOOKS}


def _family(command: str) -> str:  # the first words: "git log", "pytest"
    words = command.split()
    if not words:
        return "(empty)"
    head = words[0].rsplit("/", 1)[-1]
    if len(words) > 1 and not words[1].startswith("-") and head in _SUBCOMMANDS:
        return f"{head} {words[1]}"
    return head


def summarise(
    calls: Iterable[ShellCall], tokenizer: Any = None, config: Mapping[str, Any] | None = None
) -> tuple[Summary, list[Replay]]:
    summary = Summary()
    replays: list[Replay] = []
    scratch = Path(tempfile.mkdtemp(prefix="agentout-discover-"))
    try:
        replayer = Replayer(scratch, tokenizer, config)
        for call in calls:
            done = replayer.replay(call)
            replays.append(done)
            summary.calls += 1
            summary.raw += done.raw_tokens
            summary.delivered += done.delivered_tokens
            name = _family(call.command)
            family = summary.families.setdefault(name, Family(name))
            family.calls += 1
            family.raw += done.raw_tokens
            family.delivered += done.delivered_tokens
            family.hooks[done.hook] = family.hooks.get(done.hook, 0) + 1
            if done.reducer is not None:
                family.reducers.add(done.reducer)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
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
