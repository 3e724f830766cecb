"""`agentout hook claude` on ``PostToolUse`` of ``Bash``: a finished command's output, as the
model reads it, replaced by agentout's form when that is smaller or hides a secret.

The payloads have the shape Claude Code 2.1.332 sends (``PostToolUseHookInput`` of the
agent SDK; the Bash output object of its zod schema: ``stdout``, ``stderr``,
``interrupted`` required, ``persistedOutputPath``/``persistedOutputSize`` when the output
was over the inline limit and ``stdout`` holds only its start), around real command
outputs (tests/fixtures/commands, and commands run here).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentout.agents import claude_bash, hook
from agentout.agents.claude_bash import BadPayload, decide, inline_limit
from agentout.reducers import facts
from agentout.tokens import count
from command_fixtures import fixtures

AGENTOUT = [sys.executable, "-c", "from agentout.cli import main; main()"]
HEAD = ["/opt/agentout/bin/agentout"]
SECRET_VALUE = "ghp_" + "R4nd0mT0k3nV4lu3F0rT3st1ng0nlyAbCdEf"  # a GitHub token's shape


def payload(command: str, stdout: str, **response: Any) -> dict[str, Any]:
    return {
        "session_id": "session-1",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": "/tmp",
        "permission_mode": "default",
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "run it"},
        "tool_response": {
            "stdout": stdout,
            "stderr": "",
            "interrupted": False,
            "isImage": False,
            "noOutputExpected": False,
            **response,
        },
        "tool_use_id": "toolu_01",
    }


def answer_of(data: dict[str, Any], **options: Any) -> dict[str, Any] | None:
    options.setdefault("config", {"shell": {"dedupe": False}})
    options.setdefault("environ", {})
    options.setdefault("agentout", HEAD)
    options.setdefault("output_setting", 0)
    return decide(data, **options)


def updated(reply: dict[str, Any] | None) -> dict[str, Any]:
    assert reply is not None
    specific = reply["hookSpecificOutput"]
    assert specific["hookEventName"] == "PostToolUse"
    assert set(specific) == {"hookEventName", "updatedToolOutput"}
    result = specific["updatedToolOutput"]
    assert isinstance(result, dict)
    return result


@pytest.fixture(autouse=True)
def private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    store = tmp_path / "store"
    monkeypatch.setenv("AGENTOUT_SPILL_DIR", str(store))
    monkeypatch.setenv("AGENTOUT_LEDGER_DB", str(tmp_path / "ledger.sqlite3"))
    monkeypatch.setenv("AGENTOUT_LEDGER_SYNC", "1")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("AGENTOUT_CONFIG_DIR", str(tmp_path / "config"))
    return store


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A git repository with 60 commits: ``git log`` prints about 9 KB."""
    root = tmp_path_factory.mktemp("repo")
    git = ["git", "-C", str(root), "-c", "commit.gpgsign=false"]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    for n in range(60):
        (root / f"module_{n}.py").write_text(f"VALUE = {n}\n")
        subprocess.run([*git, "add", "."], check=True)
        subprocess.run([*git, "commit", "-q", "-m", f"Change {n}: the parser keeps line {n}"],
                       check=True)  # fmt: skip
    return root


def run(command: str, cwd: Path) -> str:
    done = subprocess.run(["bash", "-c", command], cwd=cwd, capture_output=True, check=True)
    return done.stdout.decode().rstrip("\n")


# -- what is answered ---------------------------------------------------------------------------


def test_git_log_is_reduced_keeping_every_commit(repo: Path) -> None:
    stdout = run("git log", repo)
    result = updated(answer_of(payload("git log", stdout)))
    assert set(result) == {"stdout", "stderr", "interrupted", "isImage", "noOutputExpected"}
    assert (result["stderr"], result["interrupted"]) == ("", False)
    hashes = run("git log --format=%h", repo).split()
    assert len(hashes) == 60
    assert all(h in result["stdout"] for h in hashes)
    assert count(result["stdout"]) < count(stdout)


@pytest.fixture
def tool_results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Claude Code's folder of persisted outputs, the one a hook reads them from:
    ``~/.claude/projects/<slug>/<session>/tool-results``, in a home of the test's own."""
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    folder = home / ".claude" / "projects" / "-tmp" / "session-1" / "tool-results"
    folder.mkdir(parents=True)
    return folder


def test_every_field_is_kept_but_the_persisted_ones(tool_results: Path, repo: Path) -> None:
    whole = run("git log", repo)
    persisted = tool_results / "b1.txt"
    persisted.write_text(whole)
    extra = {
        "returnCodeInterpretation": "x",
        "gitOperation": {"commit": None},
        "persistedOutputPath": str(persisted),
        "persistedOutputSize": len(whole),
        "stdoutHoldsOutputEnd": True,
        "dangerouslyDisableSandbox": False,
    }
    result = updated(answer_of(payload("git log", whole[:2000], **extra)))
    for key in ("persistedOutputPath", "persistedOutputSize", "stdoutHoldsOutputEnd"):
        assert key not in result
    assert result["returnCodeInterpretation"] == "x"
    assert result["gitOperation"] == {"commit": None}
    assert result["dangerouslyDisableSandbox"] is False
    last = run("git log --format=%h", repo).split()[-1]
    assert last in result["stdout"]  # from the persisted file: stdout held only its start


def test_output_printed_as_it_is_gets_no_answer() -> None:
    assert answer_of(payload("echo hello", "hello")) is None
    assert answer_of(payload("python3 build.py", "built 3 targets in 0.2s")) is None
    assert answer_of(payload("true", "")) is None


def test_a_secret_is_hidden_even_in_small_output(tmp_path: Path) -> None:
    env_file = f"DEBUG=1\nGITHUB_TOKEN={SECRET_VALUE}\nPORT=8080"
    result = updated(answer_of(payload("cat .env", env_file)))
    assert SECRET_VALUE not in result["stdout"]
    assert "PORT=8080" in result["stdout"]
    assert "secret" in result["stdout"]
    stderr = f"warning: token {SECRET_VALUE} expires soon"
    result = updated(answer_of(payload("cat .env", env_file, stderr=stderr)))
    assert SECRET_VALUE not in result["stderr"]
    written = [p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()]
    assert not any(SECRET_VALUE.encode() in data for data in written)


@pytest.mark.parametrize(
    "response",
    [
        {"backgroundTaskId": "b7"},
        {"interrupted": True},
        {"isImage": True},
    ],
)
def test_background_interrupted_and_images_are_left_alone(
    repo: Path, response: dict[str, Any]
) -> None:
    assert answer_of(payload("git log", run("git log", repo), **response)) is None


@pytest.mark.parametrize("flag", [True, "true", "false", 1, [], {}, "yes"])
def test_run_in_background_of_any_truthy_value_is_left_alone(repo: Path, flag: object) -> None:
    data = payload("git log", run("git log", repo))
    data["tool_input"]["run_in_background"] = flag
    assert answer_of(data) is None


@pytest.mark.parametrize(
    "command",
    [
        "/opt/agentout/bin/agentout run -- git log",
        "agentout run --shell 'git log | head'",
        "/usr/bin/python3 -m agentout run -- git log",
        "cd x && agentout run -- git log",
    ],
)
def test_a_command_run_through_agentout_is_not_reduced_twice(repo: Path, command: str) -> None:
    assert answer_of(payload(command, run("git log", repo))) is None


def test_a_compound_command_is_read_as_run_shell_reads_it(repo: Path) -> None:
    stdout = run("git log && git log", repo)
    assert answer_of(payload("git log && git log", stdout)) is None  # 9 KB: shown whole
    small = {"BASH_MAX_OUTPUT_LENGTH": "4000"}
    result = updated(answer_of(payload("git log && git log", stdout), environ=small))
    assert len(result["stdout"]) <= 4000
    assert " show " in result["stdout"]  # cut by the generic digest: the rest is stored


def test_redirections_keep_the_commands_reducer(repo: Path) -> None:
    stdout = run("git log 2>&1", repo)
    plain = updated(answer_of(payload("git log", stdout)))["stdout"]
    redirected = updated(answer_of(payload("git log 2>&1", stdout)))["stdout"]
    assert redirected == plain


# -- budget -------------------------------------------------------------------------------------


def test_inline_limit_is_read_as_claude_code_reads_it() -> None:
    assert inline_limit({}) == 30_000
    assert inline_limit({"BASH_MAX_OUTPUT_LENGTH": "50000"}) == 50_000
    assert inline_limit({"BASH_MAX_OUTPUT_LENGTH": "999999"}) == 150_000
    assert inline_limit({"BASH_MAX_OUTPUT_LENGTH": "12abc"}) == 12
    assert inline_limit({"BASH_MAX_OUTPUT_LENGTH": "nope"}) == 30_000
    assert inline_limit({"BASH_MAX_OUTPUT_LENGTH": "0"}) == 30_000
    assert inline_limit({"BASH_MAX_OUTPUT_LENGTH": "50000"}, 1000) == 4_000
    assert inline_limit({}, 500_000) == 128_000


def test_settings_file_sets_the_inline_limit(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text('{"bashOutputMaxChars": 5000}')
    lines = "\n".join(f"{n:05d} the same kind of line again, number {n}" for n in range(400))
    data = payload("python3 report.py", lines)
    data["cwd"] = str(tmp_path)
    reply = decide(data, config={}, environ={"CLAUDE_PROJECT_DIR": str(tmp_path)}, agentout=HEAD)
    assert len(updated(reply)["stdout"]) <= 5000


@pytest.mark.parametrize("limit", [4000, 12_000, 30_000])
def test_output_over_the_limit_is_cut_within_it(limit: int) -> None:
    lines = [f"{n:06d} INFO worker ok, request {n * 7919 % 100003} served" for n in range(3000)]
    lines[1234] = "ERROR worker-3 request 17 failed: TimeoutError after 30s"
    stdout = "\n".join(lines)
    reply = answer_of(payload("./serve.sh", stdout), environ={"BASH_MAX_OUTPUT_LENGTH": str(limit)})
    result = updated(reply)
    assert len(result["stdout"]) <= limit
    assert "ERROR worker-3 request 17 failed" in result["stdout"]
    assert "/opt/agentout/bin/agentout show " in result["stdout"]


def test_past_the_limit_a_reduced_form_is_its_facts_and_some_context() -> None:
    """As ``agentout run`` cuts it: Claude Code would show a 2,000-character preview of an
    output past its limit, so the answer gives every match's location and some matches in
    full, not 30,000 characters of them."""
    stdout = "\n".join(
        f"src/pkg/module_{n // 15 % 40:02}.py:{10 + n}:    raise InputError(f'bad {n}', path)"
        for n in range(600)
    )
    assert len(stdout) > 30_000
    reply = answer_of(payload("grep -rn InputError src", stdout))
    shown = updated(reply)["stdout"]
    assert facts.lost(facts.extract(r"^([^:\n]+):(\d+):", stdout), shown) == []
    assert "raise InputError" in shown
    assert len(shown) <= 12_000  # 40 files' line numbers and CUT_CONTEXT_CHARS of matches


def test_config_max_tokens_is_the_budget() -> None:
    stdout = "\n".join(f"{n:06d} INFO request {n} served in {n % 97} ms" for n in range(3000))
    reply = answer_of(payload("./serve.sh", stdout), config={"shell": {"max_tokens": 300}})
    assert count(updated(reply)["stdout"]) <= 300


def test_config_turns_it_off_and_bad_config_is_input_error() -> None:
    stdout = "\n".join(f"line {n}" for n in range(20000))
    assert answer_of(payload("./x", stdout), config={"shell": {"enabled": False}}) is None
    from agentout.errors import InputError

    for bad in ({"shell": {"max_tokens": 0}}, {"shell": {"dedupe": "no"}}, {"shell": {"x": 1}},
                {"shell": 3}):  # fmt: skip
        with pytest.raises(InputError, match=r"\[shell\]"):
            answer_of(payload("./x", stdout), config=bad)


# -- the same output twice ----------------------------------------------------------------------


def test_the_same_output_twice_is_one_line_naming_the_first(repo: Path, tmp_path: Path) -> None:
    stdout = run("git log", repo)
    folder = str(tmp_path / "seen")
    first = updated(answer_of(payload("git log", stdout), seen_folder=folder, config={}))["stdout"]
    again = payload("git log", stdout)
    again["tool_use_id"] = "toolu_02"
    second = updated(answer_of(again, seen_folder=folder, config={}))["stdout"]
    assert second.count("\n") == 0
    assert "`git log` (toolu_01)" in second
    assert "/opt/agentout/bin/agentout show " in second
    assert count(first) - count(second) >= 200
    ref = second.rsplit(" show ", 1)[1].rstrip("]")
    shown = subprocess.run([*AGENTOUT, "show", ref], capture_output=True, check=True).stdout
    assert run("git log --format=%h", repo).split()[0].encode() in shown


def test_a_repeat_that_saves_little_is_shown_again(tmp_path: Path) -> None:
    folder = str(tmp_path / "seen")
    stdout = f"DEBUG=1\nTOKEN={SECRET_VALUE}"
    first = answer_of(payload("cat .env", stdout), seen_folder=folder, config={})
    assert answer_of(payload("cat .env", stdout), seen_folder=folder, config={}) == first


def test_a_repeat_of_output_shown_whole_is_stored_and_named(tmp_path: Path) -> None:
    folder = str(tmp_path / "seen")
    stdout = "\n".join(f"src/module_{n}.py: 1 passed" for n in range(300))  # not reduced
    data = payload("./check.sh", stdout[:2000])
    assert answer_of(data, seen_folder=folder, config={}) is None
    repeat = updated(answer_of(data, seen_folder=folder, config={}))["stdout"]
    assert "earlier in this session" in repeat


def test_compaction_forgets_what_the_session_was_shown(repo: Path, tmp_path: Path) -> None:
    stdout = run("git log", repo)
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache2")}

    def hook_call(data: dict[str, Any]) -> bytes:
        done = subprocess.run([*AGENTOUT, "hook", "claude"], input=json.dumps(data).encode(),
                              capture_output=True, env=env, check=True)  # fmt: skip
        assert done.stderr == b""
        return done.stdout

    def is_repeat(out: bytes) -> bool:
        return "earlier in this session" in json.loads(out)["hookSpecificOutput"][
            "updatedToolOutput"]["stdout"]  # fmt: skip

    assert not is_repeat(hook_call(payload("git log", stdout)))
    assert is_repeat(hook_call(payload("git log", stdout)))
    compact = {"session_id": "session-1", "hook_event_name": "PreCompact", "trigger": "auto",
               "custom_instructions": None}  # fmt: skip
    assert hook_call(compact) == b""  # PreCompact reads plain stdout as instructions
    assert not is_repeat(hook_call(payload("git log", stdout)))
    assert is_repeat(hook_call(payload("git log", stdout)))
    start = {"session_id": "session-1", "hook_event_name": "SessionStart", "source": "resume"}
    assert hook_call(start) == b""
    assert is_repeat(hook_call(payload("git log", stdout)))
    start["source"] = "compact"
    assert hook_call(start) == b""
    assert not is_repeat(hook_call(payload("git log", stdout)))


def test_dedupe_is_off_with_one_key(repo: Path, tmp_path: Path) -> None:
    stdout = run("git log", repo)
    folder = str(tmp_path / "seen")
    config = {"shell": {"dedupe": False}}
    first = answer_of(payload("git log", stdout), seen_folder=folder, config=config)
    assert answer_of(payload("git log", stdout), seen_folder=folder, config=config) == first


def test_another_session_is_not_the_same(repo: Path, tmp_path: Path) -> None:
    stdout = run("git log", repo)
    folder = str(tmp_path / "seen")
    first = answer_of(payload("git log", stdout), seen_folder=folder, config={})
    other = payload("git log", stdout)
    other["session_id"] = "session-2"
    assert answer_of(other, seen_folder=folder, config={}) == first


# -- the ledger ---------------------------------------------------------------------------------


def test_the_ledger_counts_raw_and_delivered_exactly(repo: Path) -> None:
    from agentout.ledger import book

    stdout = run("git log", repo)
    result = updated(answer_of(payload("git log", stdout)))
    rows = [row for row in book.rows() if row.tool == "hook"]
    assert len(rows) == 1
    assert rows[0].command == "git log"
    assert rows[0].raw_exact
    assert rows[0].raw_tokens == count(stdout)
    assert rows[0].delivered_tokens == count(result["stdout"])


# -- recorded outputs ---------------------------------------------------------------------------


@pytest.mark.parametrize("fixture", [f for f in fixtures() if f.exit == 0], ids=lambda f: f.id)
def test_recorded_outputs_keep_their_facts_and_never_grow(fixture: Any) -> None:
    stdout = fixture.output.decode("utf-8", "replace").rstrip("\n")
    reply = answer_of(payload(shlex.join(fixture.argv), stdout))
    if reply is None:
        return  # shown as printed
    text = updated(reply)["stdout"]
    assert len(text) <= 30_000
    assert count(text) <= count(stdout)
    if len(stdout.encode()) <= 30_000:
        lost = facts.lost(fixture.facts, text.encode())
        assert not lost, f"{fixture.id}: lost {lost[:3]}"


# -- bad input ----------------------------------------------------------------------------------


def _hook(data: bytes, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([*AGENTOUT, "hook", "claude"], input=data, capture_output=True,
                          env=env, check=False, timeout=60)  # fmt: skip


def _post(response: object, tool: str = "Bash") -> bytes:
    data = payload("git log", "x")
    data["tool_response"] = response
    data["tool_name"] = tool
    if response is None:
        del data["tool_response"]
    return json.dumps(data).encode()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"not json", b"<stdin>:1:1:"),
        (_post(None), b"tool_response is missing"),
        (_post("a string"), b"tool_response is a str"),
        (_post(["a", "list"]), b"tool_response is a list"),
        (_post({"stderr": "", "interrupted": False}), b"tool_response.stdout is not a string"),
        (_post({"stdout": "x", "stderr": "", "interrupted": "no"}), b"interrupted"),
        (_post({"stdout": "x", "stderr": ""}, tool="Write"), b"not Bash nor MCP"),
        (json.dumps({**payload("x", "y"), "tool_input": {}}).encode(), b"no tool_input.command"),
        (b'{"hook_event_name": "PostToolUse", "x": "' + b"a" * (65 << 20) + b'"}', b"over"),
    ],
)
def test_bad_input_changes_nothing(data: bytes, message: bytes) -> None:
    done = _hook(data)
    assert done.returncode == 0
    assert done.stdout == b""
    assert message in done.stderr, done.stderr
    assert done.stderr.count(b"\n") == 1
    assert b"Traceback" not in done.stderr


@pytest.mark.parametrize("kind", ["fifo", "device", "directory", "missing", "huge"])
def test_a_persisted_output_that_is_not_a_file_changes_nothing(
    tool_results: Path, kind: str
) -> None:
    path = tool_results / "persisted"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        path = Path("/dev/zero")
    elif kind == "directory":
        path.mkdir()
    elif kind == "huge":
        with path.open("wb") as handle:
            handle.truncate(claude_bash.MAX_OUTPUT + 1)
    data = payload("git log", "start of it", persistedOutputPath=str(path))
    done = _hook(json.dumps(data).encode())
    assert (done.returncode, done.stdout) == (0, b"")
    assert done.stderr.count(b"\n") == 1
    assert b"Traceback" not in done.stderr


def test_binary_and_odd_text_answer_in_bounded_form(tmp_path: Path) -> None:
    odd = "".join(chr(c) for c in range(0, 0x300)) * 200 + "\udc80\ud800 end"
    data = payload("cat blob.bin", odd)
    done = _hook(json.dumps(data).encode())
    assert done.returncode == 0
    assert b"Traceback" not in done.stderr
    if done.stdout:
        result = json.loads(done.stdout)["hookSpecificOutput"]["updatedToolOutput"]
        assert len(result["stdout"]) <= 30_000


def test_a_100_mb_output_answers_in_bounded_time_or_not_at_all(tool_results: Path) -> None:
    path = tool_results / "persisted.txt"
    line = b"0123456789 abcdefghij the same line of a very long output, again and again\n"
    with path.open("wb") as handle:
        for _ in range((100 << 20) // (len(line) * 1000)):
            handle.write(line * 1000)
    data = payload("./generate.sh", "0123456789", persistedOutputPath=str(path))
    done = _hook(json.dumps(data).encode())
    assert done.returncode == 0
    assert done.stdout == b""  # over the 64 MiB Claude Code keeps: not read
    assert b"over" in done.stderr


# -- properties ---------------------------------------------------------------------------------

_LINES = st.lists(
    st.one_of(
        st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=60),
        st.sampled_from(["ERROR: disk full", "warning: unused x", "ok", f"TOKEN={SECRET_VALUE}"]),
    ),
    max_size=400,
)


@given(lines=_LINES, limit=st.sampled_from([4000, 6000, 30_000]))
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_an_answer_is_never_over_the_limit_nor_larger_nor_secret(
    lines: list[str], limit: int
) -> None:
    stdout = "\n".join(lines)
    reply = answer_of(payload("./tool", stdout), environ={"BASH_MAX_OUTPUT_LENGTH": str(limit)})
    if reply is None:
        assert SECRET_VALUE not in stdout or not stdout.strip()
        return
    text = updated(reply)["stdout"]
    assert SECRET_VALUE not in text
    assert len(text) <= limit
    if SECRET_VALUE not in stdout:
        assert len(text) < len(stdout)


def test_hook_module_answers_post_bash(repo: Path) -> None:
    out, err = hook.answer("claude", json.dumps(payload("git log", run("git log", repo))).encode())
    assert err is None
    assert json.loads(out)["hookSpecificOutput"]["updatedToolOutput"]["stdout"]


def test_bad_payload_is_its_own_error() -> None:
    with pytest.raises(BadPayload):
        answer_of({"tool_name": "Bash", "tool_input": {"command": "x"}, "tool_response": []})


# -- markers the agent can run -----------------------------------------------------------------


def test_markers_name_the_agentout_that_answered_and_count_exactly() -> None:
    lines = [f"{n:06d} INFO worker ok, request {n * 7919 % 100003} served" for n in range(3000)]
    text = updated(answer_of(payload("./serve.sh", "\n".join(lines))))["stdout"]
    closing = text.rsplit("\n", 1)[-1]
    assert closing.startswith("[agentout: ")
    assert " · /opt/agentout/bin/agentout show " in closing
    assert "· agentout show" not in text
    tokens = int(closing.split("tokens=", 1)[1].split()[0])
    assert tokens == count(text)


def test_show_command_is_plain_agentout_when_that_is_this_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentout.agents._markers import show_command

    script = tmp_path / "bin" / "agentout"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{script.parent}:/usr/bin")
    assert show_command([str(script)]) == "agentout"
    assert show_command(["/elsewhere/agentout"]) == "/elsewhere/agentout"
    assert show_command(["/usr/bin/python3", "-m", "agentout"]) == "/usr/bin/python3 -m agentout"
    monkeypatch.setenv("PATH", "/usr/bin")
    assert show_command([str(script)]) == str(script)


def test_a_secret_only_in_stderr_is_hidden_too() -> None:
    result = updated(answer_of(payload("./deploy.sh", "deployed", stderr=f"token={SECRET_VALUE}")))
    assert result["stdout"] == "deployed"
    assert SECRET_VALUE not in result["stderr"]
