"""Every tool's response within its budget as the client receives it, over stdio.

``agentout serve`` runs as a real process driven by the SDK's own client. For each tool,
called in agent mode with results that do not fit, what the agent is shown (the text
blocks' text and each resource_link block's JSON) stays within ``max_tokens``, and so does
the structured content as compact JSON, on its own.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp_support import agent_tokens, links, structured_tokens

from agentout.mcp.child import SERVE
from processes import without_agentout_settings

BUDGETS = (200, 500, 1000)


def _project(root: Path) -> None:
    rows = [
        {"id": i, "level": "error" if i % 7 == 0 else "info", "msg": f"event {i} " + "x" * (i % 90)}
        for i in range(3000)
    ]
    (root / "events.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    (root / "noisy.py").write_text(
        "import sys\nfor i in range(4000): print(f'compiling module {i}', (i % 100) * 'y')\n"
        "print('error: undefined reference to parse_header', file=sys.stderr)\nsys.exit(2)\n"
    )
    (root / "suite" / "test_many.py").write_text(
        "import pytest\n\n@pytest.mark.parametrize('n', range(60))\n"
        "def test_n(n):\n    assert {'n': n, 'pad': 'z' * 200} == {'n': -1}\n"
    )


def calls(spill_ref: str) -> list[tuple[str, dict[str, Any]]]:
    return [
        ("count_tokens", {"path": "events.jsonl"}),
        ("query_records", {"paths": ["events.jsonl"]}),
        ("query_records", {"paths": ["events.jsonl"], "mode": "verbose"}),
        ("query_records", {"paths": ["kb"], "query": "sql injection"}),
        ("notes_context", {"directory": "vault", "query": "budgets", "with_body": True}),
        ("notes_context", {"directory": "vault", "notes": ["budgets"], "with_edges": True}),
        ("read_output", {"ref": spill_ref}),
        ("read_output", {"ref": spill_ref, "grep": "error"}),
        ("run_tests", {"tests": ["suite/test_many.py"]}),
        ("run_command", {"command": [Path(shutil.which("python3") or "python3").name, "noisy.py"]}),
        ("cleanup_temp_files", {"max_age_days": 0, "dry_run": True}),
    ]


def test_every_tool_keeps_to_its_budget_as_the_client_receives_it(
    project: Path, spill_dir: Path
) -> None:
    _project(project)
    python = Path(shutil.which("python3") or "python3").name
    env = without_agentout_settings()
    env.update(AGENTOUT_SPILL_DIR=str(spill_dir), AGENTOUT_CACHE_DIR=str(spill_dir / "c"))
    parameters = StdioServerParameters(
        command=SERVE[0],
        args=[*SERVE[1:], "--root", str(project), "--allow-commands", python],
        env=env,
        cwd=str(project),
    )
    seen: list[tuple[str, int, int, int | None]] = []

    async def go() -> None:
        with anyio.fail_after(240):
            async with Client(parameters, read_timeout_seconds=120) as client:
                await client.list_tools()  # so the client validates structured content
                first = await client.call_tool(
                    "query_records", {"paths": ["events.jsonl"], "max_tokens": 300}
                )
                (spilled,) = links(first)
                for budget in BUDGETS:
                    for name, arguments in calls(spilled):
                        # count_tokens takes no budget: its answer is one short line
                        given = {} if name == "count_tokens" else {"max_tokens": budget}
                        result = await client.call_tool(name, {**arguments, **given})
                        # a command that exits with another status is a failed call (its
                        # status is the client's to say, as a shell's Exit code N): noisy.py, 2
                        failed = name == "run_command"
                        assert result.is_error == failed, (name, arguments, budget, result)
                        shown = agent_tokens(result)
                        data = (
                            structured_tokens(result)
                            if result.structured_content is not None
                            else None
                        )
                        seen.append((name, budget, shown, data))

    anyio.run(go)
    over = [row for row in seen if row[2] > row[1] or (row[3] or 0) > row[1]]
    assert over == []
    assert len(seen) == len(BUDGETS) * len(calls("x"))
    # the budget is used, not left idle: a long command output fills at least half of it
    assert all(shown > budget // 2 for name, budget, shown, _ in seen if name == "run_command")
