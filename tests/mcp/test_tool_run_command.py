"""``run_command``, called through the SDK's own client, in process."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from mcp_support import (
    call,
    make_server,
    text_tokens,
    texts,
    tools,
)

from agentout.formats.raw import closing_fields
from agentout.store.spill import SpillStore


def test_run_command_is_listed_only_with_an_allowlist(project: Path, store: SpillStore) -> None:
    listed = tools(make_server(project, store, allow="echo"))
    assert "run_command" in listed
    assert "(echo)" in listed["run_command"].description


def test_run_command_runs_an_allowed_executable_without_a_shell(
    project: Path, store: SpillStore
) -> None:
    server = make_server(project, store, allow="echo")
    result = call(server, "run_command", command=["echo", "hi; touch pwned && echo $HOME `id`"])
    assert not result.is_error
    assert texts(result) == "hi; touch pwned && echo $HOME `id`\n", "as printed"
    assert not (project / "pwned").exists()
    assert result.meta["agentout"]["exit"] == 0


def test_run_command_spills_long_output_and_keeps_the_error(
    project: Path, store: SpillStore
) -> None:
    python = shutil.which("python3") or shutil.which("python")
    assert python is not None
    server = make_server(project, store, allow=python)
    code = "for i in range(5000): print('ok', i)\nprint('ERROR: disk full')"
    (project / "noisy.py").write_text(code)  # a script of the project's: never "-c CODE"
    name = os.path.basename(python)
    result = call(server, "run_command", command=[name, "noisy.py"], max_tokens=300)
    assert text_tokens(result) <= 300
    assert "ERROR: disk full" in texts(result)
    # the text takes the whole budget, as agentout run's does: its markers name the log
    (ident,) = set(re.findall(r"agentout show ([0-9a-f]{16})", texts(result)))
    spilled = (store.root / store.find_id(ident)).read_text()
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
    closing = closing_fields(texts(result))
    assert closing["error"] == "timed out after 0.5s; stopped"
    assert closing["exit"] == "124"  # as coreutils' timeout
    assert result.meta["agentout"]["exit"] == 124


def test_a_bare_name_runs_the_executable_found_at_start_not_a_project_file(
    project: Path, store: SpillStore
) -> None:
    server = make_server(project, store, allow="echo")  # found on PATH now
    victim = project / "victim"
    victim.write_text("keep me")
    (project / "echo").symlink_to(shutil.which("rm") or "/bin/rm")  # planted afterwards
    result = call(server, "run_command", command=["echo", "victim"])
    assert not result.is_error
    assert texts(result) == "victim\n"
    assert victim.read_text() == "keep me"


def test_a_failing_status_is_a_failed_call_with_the_output_as_printed(
    project: Path, store: SpillStore
) -> None:
    """grep finding nothing: no text at all (not an exit status line), the call failed."""
    (project / "notes.txt").write_text("nothing to see\n")
    server = make_server(project, store, allow="grep")
    result = call(server, "run_command", command=["grep", "absent", "notes.txt"])
    assert result.is_error
    assert texts(result) == ""
    assert result.meta["agentout"]["exit"] == 1
    found = call(server, "run_command", command=["grep", "nothing", "notes.txt"])
    assert not found.is_error
    assert texts(found) == "nothing to see\n"
