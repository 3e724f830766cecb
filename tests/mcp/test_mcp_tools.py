"""agentout's MCP tools, called through the SDK's own client, in process."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from mcp_support import call, links, make_server, run, structured_tokens, text_tokens, texts

from agentout.formats.raw import closing_fields
from agentout.formats.records import parse
from agentout.spill import SpillStore
from agentout.tokens import count

BUDGETED = {"read_output", "query_records", "notes_context", "run_tests", "cleanup_temp_files"}


def header(result: Any) -> dict[str, Any]:
    rows = parse(texts(result))
    assert rows[0][0] == "H"
    return rows[0][1]


def tools(server: Any) -> dict[str, Any]:
    from mcp import Client

    async def go() -> Any:
        async with Client(server) as client:
            return (await client.list_tools()).tools

    return {tool.name: tool for tool in run(go)}


# -- the tool list -----------------------------------------------------------------------


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


def test_run_command_is_listed_only_with_an_allowlist(project: Path, store: SpillStore) -> None:
    listed = tools(make_server(project, store, allow="echo"))
    assert "run_command" in listed
    assert "(echo)" in listed["run_command"].description


# -- count_tokens -------------------------------------------------------------------------


def test_count_tokens_of_a_text_and_of_a_file(project: Path, store: SpillStore) -> None:
    server = make_server(project, store)
    sample = "The quick brown fox jumps over the lazy dog.\n" * 3
    result = call(server, "count_tokens", text=sample)
    assert result.structured_content == {
        "tokens": count(sample),
        "chars": len(sample),
        "tokenizer": "o200k_base",
        "source": "text",
    }
    assert texts(result).startswith(f"{count(sample)} tokens (o200k_base)")
    on_file = call(server, "count_tokens", path="events.jsonl", tokenizer="gpt-4")
    content = (project / "events.jsonl").read_text()
    assert on_file.structured_content["tokens"] == count(content, "cl100k_base")
    assert on_file.structured_content["tokenizer"] == "cl100k_base"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({}, "give either text or path"),
        ({"text": "a", "path": "events.jsonl"}, "give either text or path"),
        ({"text": "a", "tokenizer": "nope"}, "unknown tokenizer 'nope'"),
        ({"path": "missing.txt"}, "missing.txt: no such file"),
        ({"path": "/etc/passwd"}, "outside the allowed roots"),
        ({"path": "../../../etc/passwd"}, "outside the allowed roots"),
        ({"path": "agentout://spill/../../etc/passwd"}, "not in the spill store"),
    ],
)
def test_count_tokens_refuses_bad_input(
    project: Path, store: SpillStore, arguments: dict[str, Any], message: str
) -> None:
    result = call(make_server(project, store), "count_tokens", **arguments)
    assert result.is_error
    assert message in texts(result)


# -- query_records, read_output, resources ---------------------------------------------------


def test_query_records_spills_the_matching_set_and_links_it(
    project: Path, store: SpillStore
) -> None:
    server = make_server(project, store)
    result = call(
        server, "query_records", paths=["events.jsonl"], where=["level=error"], max_tokens=300
    )
    assert not result.is_error
    assert text_tokens(result) <= 300
    head = header(result)
    assert head["total"] == 58  # ids 0, 7, ..., 399
    (uri,) = links(result)
    name = uri.removeprefix("agentout://spill/")
    rows = [json.loads(line) for line in (store.root / name).read_text().splitlines()]
    assert [row["id"] for row in rows] == list(range(0, 400, 7)), "the complete matching set"
    meta = result.meta["agentout"]
    assert meta["matched"] == 58
    assert meta["spilled"][0]["uri"] == uri

    async def read() -> Any:
        from mcp import Client

        async with Client(server) as client:
            listed = await client.list_resources()
            return listed, await client.read_resource(uri)

    listed, contents = run(read)
    assert uri in [str(resource.uri) for resource in listed.resources]
    assert contents.contents[0].text == (store.root / name).read_text()
    assert contents.contents[0].mime_type == "application/jsonl"

    page = call(server, "read_output", ref=uri, grep='"id": 3', max_tokens=200)
    assert not page.is_error
    assert text_tokens(page) <= 200
    found = [fields for kind, fields in parse(texts(page)) if kind == "R"]
    matching = [i for i in range(0, 400, 7) if str(i).startswith("3")]
    assert 3 <= len(found) < len(matching)
    assert [row["id"] for row in found] == matching[: len(found)], "the first matches, whole"
    footer = parse(texts(page))[-1][1]
    assert footer["next"].startswith(f"agentout show {name} --lines {found[-1]['line'] + 1}:")
    by_lines = call(server, "read_output", ref=name, lines="2:3")
    assert [f["id"] for k, f in parse(texts(by_lines)) if k == "R"] == [7, 14]


def test_query_records_over_a_knowledge_base(project: Path, store: SpillStore) -> None:
    result = call(make_server(project, store), "query_records", paths=["kb"], query="sql injection")
    assert not result.is_error
    records = [fields for kind, fields in parse(texts(result)) if kind == "R"]
    assert records
    assert "SQL" in json.dumps(records[0])


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"paths": ["/etc/passwd"]}, "outside the allowed roots"),
        ({"paths": ["../*"]}, "outside the allowed roots"),
        ({"paths": ["nothing-*.json"]}, "no files match this pattern"),
        ({"paths": []}, "List should have at least 1 item"),
        ({"paths": "events.jsonl"}, "Input should be a valid list"),
        ({"paths": ["events.jsonl"], "mode": "loud"}, "Input should be 'agent' or 'verbose'"),
        ({"paths": ["events.jsonl"], "max_tokens": 10}, "greater than or equal to 200"),
        ({"paths": ["events.jsonl"], "filter": "id >"}, "--filter"),
    ],
)
def test_query_records_refuses_bad_input(
    project: Path, store: SpillStore, arguments: dict[str, Any], message: str
) -> None:
    result = call(make_server(project, store), "query_records", **arguments)
    assert result.is_error
    assert message in texts(result)


@pytest.mark.parametrize(
    "ref",
    [
        "/etc/passwd",
        "../../etc/passwd",
        "agentout://spill/../events.jsonl",
        "20250101-run-0123456789abcdef.log",
    ],
)
def test_read_output_reads_only_the_spill_store(project: Path, store: SpillStore, ref: str) -> None:
    result = call(make_server(project, store), "read_output", ref=ref)
    assert result.is_error
    assert ("spill" in texts(result)) or ("not a file agentout spilled" in texts(result))


def test_read_output_names_its_own_parameters(project: Path, store: SpillStore) -> None:
    spilled = store.write_text("a\nb\n", kind="run", suffix=".log")
    result = call(make_server(project, store), "read_output", ref=spilled.ref, lines="3-1")
    assert result.is_error
    assert "lines '3-1': expected A:B" in texts(result)


# -- symlinks out of the roots ---------------------------------------------------------------


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


# -- notes_context, hybrid delivery --------------------------------------------------------------


def test_notes_context_warns_first_and_fits(project: Path, store: SpillStore) -> None:
    result = call(
        make_server(project, store),
        "notes_context",
        directory="vault",
        query="exact token count",
        with_body=True,
        max_tokens=600,
    )
    assert not result.is_error
    assert text_tokens(result) <= 600
    rows = parse(texts(result))
    assert rows[1][0] == "W"
    assert any(kind == "N" for kind, _ in rows)


def test_notes_context_needs_notes_or_a_query(project: Path, store: SpillStore) -> None:
    result = call(make_server(project, store), "notes_context", directory="vault")
    assert result.is_error
    assert "notes=[ID, ...], or find them with query=TEXT" in texts(result)


def test_the_inline_threshold_is_per_call_with_the_environment_as_default(
    project: Path, store: SpillStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = make_server(project, store)
    arguments = {"directory": "vault", "notes": ["budgets"], "max_tokens": 4000}
    inline = call(server, "notes_context", **arguments)
    assert header(inline)["delivery"] == "inline"
    assert links(inline) == []
    spilled = call(server, "notes_context", inline_threshold_bytes=64, **arguments)
    assert header(spilled)["delivery"] == "file"
    (uri,) = links(spilled)
    full = (store.root / uri.removeprefix("agentout://spill/")).read_text()
    assert "id=budgets" in full
    monkeypatch.setenv("AGENTOUT_INLINE_THRESHOLD", "64")
    assert header(call(server, "notes_context", **arguments))["delivery"] == "file"
    wide = call(server, "notes_context", inline_threshold_bytes=10**6, **arguments)
    assert header(wide)["delivery"] == "inline"


# -- cleanup_temp_files ----------------------------------------------------------------------------


def test_cleanup_reports_count_bytes_and_files(project: Path, store: SpillStore) -> None:
    kept = [
        store.write_text(f"output {i}\n" * (i + 1), kind="run", suffix=".log") for i in range(3)
    ]
    old = kept[0].path
    os.utime(old, (1_000_000, 1_000_000))
    server = make_server(project, store)
    dry = call(server, "cleanup_temp_files", dry_run=True)
    assert dry.structured_content == {
        "removed": 1,
        "bytes_freed": kept[0].size,
        "dry_run": True,
        "files": [kept[0].ref],
    }
    assert old.exists()
    done = call(server, "cleanup_temp_files", max_age_days=0)
    assert done.structured_content["removed"] == 3
    assert done.structured_content["bytes_freed"] == sum(ref.size for ref in kept)
    assert sorted(done.structured_content["files"]) == sorted(ref.ref for ref in kept)
    assert not any(ref.path.exists() for ref in kept)
    gone = call(server, "read_output", ref=kept[1].ref)
    assert gone.is_error
    assert "no such spilled file" in texts(gone)


def test_cleanup_of_many_files_fits_both_channels(project: Path, store: SpillStore) -> None:
    for i in range(300):
        store.write_text(f"file {i}\n", kind="run", suffix=".log")
    result = call(make_server(project, store), "cleanup_temp_files", max_age_days=0, max_tokens=300)
    assert not result.is_error
    assert text_tokens(result) <= 300
    assert structured_tokens(result) <= 300
    data = result.structured_content
    assert data["removed"] == 300
    assert 0 < len(data["files"]) < 300
    assert "read_output ref=" in data["_agentout"]["read_with"]
    assert result.meta["agentout"]["cut"] == [f"files: {len(data['files'])} of 300 items"]


# -- run_tests ------------------------------------------------------------------------------------


def test_run_tests_reports_the_failure_and_links_the_full_report(
    project: Path, store: SpillStore
) -> None:
    result = call(make_server(project, store), "run_tests", tests=["suite/test_small.py"])
    assert not result.is_error, texts(result)
    rows = parse(texts(result))
    status = next(fields for kind, fields in rows if kind == "S")
    assert status["status"] == "FAIL"
    assert status["passed"] == 1
    assert status["failed"] == 1
    failing = [fields for kind, fields in rows if kind == "R"]
    assert [row["test"] for row in failing] == ["test_bad"]
    assert result.meta["agentout"]["exit"] == 1
    (uri,) = links(result)
    assert "test_bad" in (store.root / uri.removeprefix("agentout://spill/")).read_text()


@pytest.mark.parametrize(
    ("tests", "message"),
    [
        (["../elsewhere/test_x.py"], "outside the allowed roots"),
        (["--rootdir=/"], "a test, not an option"),
        (["@/etc/hostname"], "a test, not an option"),
    ],
)
def test_run_tests_refuses_paths_out_and_options(
    project: Path, store: SpillStore, tests: list[str], message: str
) -> None:
    result = call(make_server(project, store), "run_tests", tests=tests)
    assert result.is_error
    assert message in texts(result)


def test_run_tests_never_lets_pytest_read_an_argument_file(
    project: Path, store: SpillStore, tmp_path: Path
) -> None:
    """pytest expands @FILE into arguments: a test named so must never reach it."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.env").write_text("SECRET_TOKEN=hunter2\n")
    (project / "args.txt").write_text(f"--basetemp={outside}\n")
    for test in (f"@{outside / 'secret.env'}", "@args.txt"):
        result = call(make_server(project, store), "run_tests", tests=[test])
        assert result.is_error
        assert "hunter2" not in texts(result)
    assert (outside / "secret.env").exists()


def test_run_tests_takes_a_keyword_starting_with_a_dash_as_an_expression(
    project: Path, store: SpillStore, tmp_path: Path
) -> None:
    """pytest's -k idents may start with "-" (ids like ``x-fast``): never an option."""
    (project / "suite" / "test_ids.py").write_text(
        "import pytest\n\n"
        "@pytest.mark.parametrize('speed', ['x-fast', 'x-slow'])\n"
        "def test_speed(speed):\n    assert speed != 'x-fast'\n"
    )
    server = make_server(project, store)
    result = call(server, "run_tests", tests=["suite/test_ids.py"], keyword="-fast")
    status = next(fields for kind, fields in parse(texts(result)) if kind == "S")
    assert (status.get("failed"), status.get("deselected")) == (1, 1)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("mine\n")
    for field in ("keyword", "marker"):  # `--basetemp=DIR` as an option would clear DIR
        call(server, "run_tests", tests=["suite/test_ids.py"], **{field: f"--basetemp={outside}"})
        # an empty expression filters nothing, and never takes the test path as its own
        empty = call(server, "run_tests", tests=["suite/test_ids.py"], **{field: ""})
        status = next(fields for kind, fields in parse(texts(empty)) if kind == "S")
        assert (status.get("failed"), status.get("passed")) == (1, 1), field
    assert (outside / "keep.txt").read_text() == "mine\n"


def test_query_records_never_reads_the_servers_stdin(
    project: Path, store: SpillStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A path '-' in the root is that file (of no known kind), never standard input."""
    import io
    import sys

    (project / "-").write_text('{"from": "the file"}\n')
    stdin = io.TextIOWrapper(io.BytesIO(b'{"marker": "read-from-stdin"}\n'))
    monkeypatch.setattr(sys, "stdin", stdin)
    monkeypatch.chdir(project)
    result = call(make_server(project, store), "query_records", paths=["-"])
    assert "read-from-stdin" not in texts(result)
    assert result.is_error
    assert "./-: unknown kind of file" in texts(result)
    assert stdin.read() == '{"marker": "read-from-stdin"}\n'


def test_error_results_keep_to_the_budget(project: Path, store: SpillStore) -> None:
    long_ref = "x" * 4000
    result = call(make_server(project, store), "read_output", ref=long_ref, max_tokens=200)
    assert result.is_error
    assert count(texts(result)) <= 200


# -- run_command ------------------------------------------------------------------------------


def test_run_command_runs_an_allowed_executable_without_a_shell(
    project: Path, store: SpillStore
) -> None:
    server = make_server(project, store, allow="echo")
    result = call(server, "run_command", command=["echo", "hi; touch pwned && echo $HOME `id`"])
    assert not result.is_error
    lines = [fields for kind, fields in parse(texts(result)) if kind == "L"]
    assert lines == [{"n": 1, "text": "hi; touch pwned && echo $HOME `id`"}]
    assert not (project / "pwned").exists()
    assert header(result)["exit"] == 0


def test_run_command_spills_long_output_and_keeps_the_error(
    project: Path, store: SpillStore
) -> None:
    python = shutil.which("python3") or shutil.which("python")
    assert python is not None
    server = make_server(project, store, allow=python)
    code = "for i in range(5000): print('ok', i)\nprint('ERROR: disk full')"
    name = os.path.basename(python)
    result = call(server, "run_command", command=[name, "-c", code], max_tokens=300)
    assert text_tokens(result) <= 300
    assert "ERROR: disk full" in texts(result)
    (uri,) = links(result)
    spilled = (store.root / uri.removeprefix("agentout://spill/")).read_text()
    assert spilled.count("\n") == 5001


@pytest.mark.parametrize(
    ("command", "message"),
    [
        (["rm", "-rf", "x"], "rm: not on the allowlist; allowed: echo"),
        (["/bin/echo", "x"], "give the bare name of an allowed executable, not a path"),
        (["/bin/../usr/bin/rm", "x"], "not a path"),
        (["./echo", "x"], "not a path"),
        (["echo x"], "not on the allowlist"),
        ([], "List should have at least 1 item"),
        ("echo x", "Input should be a valid list"),
    ],
)
def test_run_command_refuses_what_is_not_allowed(
    project: Path, store: SpillStore, command: Any, message: str
) -> None:
    target = project / "victim"
    target.write_text("keep me")
    (project / "echo").symlink_to(shutil.which("rm") or "/bin/rm")  # named like an allowed exe
    result = call(make_server(project, store, allow="echo"), "run_command", command=command)
    assert result.is_error
    assert message in texts(result)
    assert target.read_text() == "keep me"


def test_run_command_stops_at_its_timeout(project: Path, store: SpillStore) -> None:
    server = make_server(project, store, allow="sleep")
    result = call(server, "run_command", command=["sleep", "30"], timeout_seconds=0.5)
    assert result.is_error
    assert header(result)["error"] == "timed out after 0.5s; stopped"
    assert header(result)["exit"] == 143  # SIGTERM


def test_read_output_follows_the_next_of_a_long_line_in_parts(
    project: Path, store: SpillStore
) -> None:
    text = "short\n" + "word " * 40_000 + "\nend\n"
    spilled = store.write_text(text, kind="run", suffix=".log")
    server = make_server(project, store)
    arguments: dict[str, Any] = {"ref": spilled.ref, "max_tokens": 600}
    parts_seen = []
    for _ in range(4):  # follow each page's next, as an agent would
        page = call(server, "read_output", **arguments)
        assert not page.is_error
        assert text_tokens(page) <= 600
        following = closing_fields(texts(page)).get("next")
        if following is None:
            break
        arguments["lines"] = following.split("--lines ")[1].split()[0]
        arguments["part"] = (
            int(following.split("--part ")[1].split()[0]) if "--part" in following else 1
        )
        parts_seen.append(arguments["part"])
    assert max(parts_seen) >= 2, "a long line is paged in parts"


def test_a_bare_name_runs_the_executable_found_at_start_not_a_project_file(
    project: Path, store: SpillStore
) -> None:
    server = make_server(project, store, allow="echo")  # found on PATH now
    victim = project / "victim"
    victim.write_text("keep me")
    (project / "echo").symlink_to(shutil.which("rm") or "/bin/rm")  # planted afterwards
    result = call(server, "run_command", command=["echo", "victim"])
    assert not result.is_error
    assert [f["text"] for k, f in parse(texts(result)) if k == "L"] == ["victim"]
    assert victim.read_text() == "keep me"
