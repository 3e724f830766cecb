"""OpenCode: a plugin whose ``tool.execute.after`` replaces the bash tool's output with
agentout's form, the MCP server in ``opencode.json``, the instructions in ``AGENTS.md``.

OpenCode runs plugins, not command hooks: a JavaScript module in ``.opencode/plugins/``
(or ``~/.config/opencode/plugins/``) exporting ``{id, server}``, whose
``tool.execute.after(input, output)`` is called after every tool with ``output`` by
reference; for a built-in tool, what ``output.output`` holds then is what the model gets
(packages/opencode/src/session/tools.ts). The plugin ``init`` writes calls ``agentout
hook opencode`` with the command (``input.args.command``), the output, its exit status
(``output.metadata.exit``) and, when OpenCode cut it (``metadata.truncated``: 2,000
lines or 50 KB by default), the file holding all of it (``metadata.outputPath``); the
answer ``{"output": TEXT}`` replaces ``output.output``, nothing leaves it. The TUI still
shows the person the output as printed (``metadata.output``).

The answer is the same as Claude Code's ``PostToolUse`` hook gives
(``agentout.agents.claude_bash``): ``agentout run``'s delivery of the output, with the
command's reducer, secrets hidden, the whole kept in the store, within what OpenCode
shows inline; and, since OpenCode calls the plugin for a command that failed too, with
its exit status. Nothing is rewritten before a command runs: ``tool.execute.before``
argument changes have not reached the command in several OpenCode versions, and its
``permission.bash`` patterns are matched on the command a plugin leaves.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from agentout.agents._common import instructions
from agentout.agents._install import Edit, JsonEntry, OwnedFile, TextBlock

TYPE_CHECKING = False  # typing is not imported at run time: the hook is timed
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

__all__ = ["INLINE_CHARS", "PLUGIN_FIRST_LINE", "decide", "edits", "plugin"]

INLINE_CHARS = 50_000  # OpenCode's Truncate: 50 KB (or 2,000 lines) shown, the rest in a file
PLUGIN_FIRST_LINE = "// agentout: written by `agentout init opencode`; --uninstall removes it"

_PLUGIN = """%(first)s
// After the bash tool: the model gets agentout's form of the output (reduced by the
// command's reducer, or cut to what matters with the whole kept for `agentout show`),
// when that is smaller or hides a secret. Anything wrong leaves the output as it was.
const AGENTOUT = %(command)s;

export default {
  id: "agentout",
  server: async ({ $ }) => ({
    "tool.execute.after": async (input, output) => {
      if (input?.tool !== "bash" || typeof output?.output !== "string") return;
      const command = input.args?.command;
      if (typeof command !== "string") return;
      const meta = output.metadata ?? {};
      const payload = JSON.stringify({
        hook_event_name: "PostToolUse",
        tool_name: "bash",
        session_id: input.sessionID,
        tool_use_id: input.callID,
        tool_input: { command },
        tool_response: {
          output: output.output,
          exit: typeof meta.exit === "number" ? meta.exit : 0,
          outputPath: meta.truncated ? meta.outputPath ?? null : null,
        },
      });
      try {
        const stdin = new Response(payload);
        const done = await $`${AGENTOUT} hook opencode < ${stdin}`.quiet().nothrow();
        const text = done.stdout.toString();
        if (done.exitCode !== 0 || !text.trim()) return;
        const answer = JSON.parse(text);
        if (typeof answer.output === "string") output.output = answer.output;
      } catch {
        // fail open: the output as it was
      }
    },
  }),
};
"""


def plugin(agentout: Sequence[str]) -> str:
    """The plugin's source, starting ``agentout`` as ``agentout`` (a JSON array of words)."""
    return _PLUGIN % {"first": PLUGIN_FIRST_LINE, "command": json.dumps(list(agentout))}


def edits(
    *,
    scope: str,
    home: Path,
    project: Path,
    agentout: Sequence[str],
    ledger: bool = True,
    server: Sequence[str] | None = None,
) -> list[Edit]:
    """The plugin, the MCP server and (for a project) the instructions. A project's files
    are shared by its team: they start agentout as ``server`` says."""
    if scope == "global":
        base, notes = home / ".config" / "opencode", None
        config = base / "opencode.json"
    else:
        base, notes = project / ".opencode", project / "AGENTS.md"
        config = project / "opencode.json"
    started = agentout if scope == "global" or server is None else server
    entry = {"type": "local", "command": [*started, "serve"], "enabled": True}
    wanted: list[Edit] = [
        OwnedFile(
            base / "plugins" / "agentout.js", plugin(started), "plugin tool.execute.after (bash)"
        ),
        JsonEntry(config, ("mcp",), "agentout", entry, loose=True),
    ]
    if notes is not None:
        wanted.append(TextBlock(notes, instructions()))
    return wanted


def decide(payload: Mapping[str, Any]) -> dict[str, Any] | None:
    """The plugin's answer: ``{"output": TEXT}`` to put in place of the bash tool's output,
    or None to leave it. Raises ``claude_bash.BadPayload`` for a payload of another shape."""
    from agentout.agents import _persisted, claude_bash

    response = payload.get("tool_response")
    if not isinstance(response, dict) or not isinstance(response.get("output"), str):
        raise claude_bash.BadPayload("tool_response.output is not a string")
    status = response.get("exit")
    status = status if isinstance(status, int) and not isinstance(status, bool) else 0
    shaped: dict[str, Any] = {"stdout": response["output"], "stderr": "", "interrupted": False}
    if isinstance(response.get("outputPath"), str) and response["outputPath"]:
        shaped["persistedOutputPath"] = response["outputPath"]
    answer = claude_bash.decide(
        {**payload, "tool_response": shaped},
        limit=INLINE_CHARS,
        exit_status=status,
        persisted=_persisted.opencode(),
        agent="opencode",
    )
    if answer is None:
        return None
    return {"output": answer["hookSpecificOutput"]["updatedToolOutput"]["stdout"]}
