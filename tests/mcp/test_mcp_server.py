"""The tool list, and the roots as every tool sees them (symlinks in and out)."""

from __future__ import annotations

from pathlib import Path

from mcp_support import (
    call,
    make_server,
    texts,
    tools,
)

from agentout.store.spill import SpillStore
from agentout.tokens import count

BUDGETED = {"read_output", "query_records", "notes_context", "run_tests", "cleanup_temp_files"}


def test_tools_have_schemas_and_one_line_descriptions(project: Path, store: SpillStore) -> None:
    listed = tools(make_server(project, store))
    assert set(listed) == {*BUDGETED, "count_tokens"}, "run_command is off without an allowlist"
    for name, tool in listed.items():
        assert tool.description
        assert "\n" not in tool.description
        assert len(tool.description) < 240, name
        assert tool.input_schema["type"] == "object"
    for name in BUDGETED:
        budget = listed[name].input_schema["properties"]["max_tokens"]
        assert budget["anyOf"][0]["minimum"] == 200
    assert set(listed["count_tokens"].output_schema["required"]) == {
        "tokens",
        "chars",
        "tokenizer",
        "source",
    }
    assert listed["cleanup_temp_files"].output_schema["properties"]["files"]["type"] == "array"


def test_a_symlink_out_of_the_roots_is_refused(
    project: Path, store: SpillStore, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.jsonl"
    secret.write_text('{"password": "hunter2"}\n')
    (project / "kb" / "linked.jsonl").symlink_to(secret)
    (project / "direct.jsonl").symlink_to(secret)
    server = make_server(project, store)
    for paths in (["kb"], ["direct.jsonl"], ["*.jsonl"]):
        result = call(server, "query_records", paths=paths)
        assert result.is_error, paths
        assert "outside the allowed roots" in texts(result)
        assert "hunter2" not in texts(result)
    assert call(server, "count_tokens", path="direct.jsonl").is_error
    (project / "vault" / "leak.md").symlink_to(secret)
    notes = call(server, "notes_context", directory="vault", query="password")
    assert notes.is_error
    assert "outside the allowed roots" in texts(notes)


def test_a_symlink_inside_the_roots_is_followed(project: Path, store: SpillStore) -> None:
    (project / "alias.jsonl").symlink_to(project / "events.jsonl")
    result = call(make_server(project, store), "count_tokens", path="alias.jsonl")
    assert result.structured_content["tokens"] == count((project / "events.jsonl").read_text())
