"""Abuse of the MCP server, each attack fed as a tester fed it, and its outcome asserted.

One store per trust boundary (a server sees only what it spilled; a tokenizer file only
under the roots), no input that stalls a tool or the server, the stdio transport's
answers to broken and unanswered input, and the process groups a call starts ended on
every way the server is told to stop. Real ``agentout serve`` processes where the
attack goes through the process (signals, stdin, the wire); in process where the tool
alone is attacked, to keep the whole module fast.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp_support import call, links, make_server, texts

from agentout.mcp.child import SERVE
from agentout.mcp.config import namespace_for
from agentout.mcp.guard import Roots
from agentout.mcp.tokenizers import CACHED_FILES
from agentout.store.spill import SpillStore
from processes import without_agentout_settings

AGENTOUT = [SERVE[0], "-c", "from agentout.cli import main; main()"]
GRACE = 6.0  # seconds: no process of a call's group may be alive this long after a stop


def child_env(spill_dir: Path) -> dict[str, str]:
    env = without_agentout_settings()
    env["AGENTOUT_SPILL_DIR"] = str(spill_dir)
    env["AGENTOUT_CACHE_DIR"] = str(spill_dir.parent / "cache")
    return env


def served(project: Path, spill_dir: Path, *args: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=SERVE[0],
        args=[*SERVE[1:], "--root", str(project), *args],
        env=child_env(spill_dir),
        cwd=str(project),
    )


def own_store(root: Path) -> SpillStore:
    """The store ``agentout serve --root ROOT`` uses, made as the command makes it."""
    return SpillStore.default().namespace(namespace_for(Roots.of([root])))


# -- one store per trust boundary -------------------------------------------------------------


def test_a_server_sees_none_of_the_files_spilled_by_any_other_process(
    project: Path, spill_dir: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "secret.txt").write_text("".join(f"API_KEY_{i}=hunter2\n" for i in range(3000)))
    other = tmp_path / "other-project"
    other.mkdir()
    (other / "rows.jsonl").write_text("".join(f'{{"n": {i}}}\n' for i in range(2000)))
    # the user at the terminal, in another folder
    subprocess.run(
        [*AGENTOUT, "run", "--", "cat", "secret.txt"],
        cwd=elsewhere,
        env=child_env(spill_dir),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=60,
        check=False,
    )
    cli_files = [p for p in spill_dir.iterdir() if p.is_file() and not p.name.startswith(".")]
    assert cli_files, "agentout run kept the output"

    async def go() -> None:
        with anyio.fail_after(120):
            async with Client(served(other, spill_dir), read_timeout_seconds=60) as client:
                queried = await client.call_tool(
                    "query_records", {"paths": ["rows.jsonl"], "max_tokens": 300}
                )
                (other_uri,) = links(queried)
            other_name = other_uri.removeprefix("agentout://spill/")
            refused = [
                *(p.name for p in cli_files),
                *(str(p) for p in cli_files),
                other_name,
                str(own_store(other).root / other_name),
            ]
            async with Client(served(project, spill_dir), read_timeout_seconds=60) as client:
                listed = (await client.list_resources()).resources
                assert listed == [], "nothing spilled elsewhere is listed"
                for ref in refused:
                    page = await client.call_tool("read_output", {"ref": ref})
                    assert page.is_error, ref
                    assert "hunter2" not in texts(page)
                    # the answer for a name that exists elsewhere is the answer for none
                    gone = re.sub(r"[0-9a-f]{16}(?=\.[a-z]+$)", "0123456789abcdef", ref)
                    assert gone != ref
                    missing = await client.call_tool("read_output", {"ref": gone})
                    assert texts(page).replace(ref, "REF") == texts(missing).replace(gone, "REF")
                    with pytest.raises(Exception, match=r"no such spilled file|Unknown resource"):
                        await client.read_resource(f"agentout://spill/{ref}")
                cleaned = await client.call_tool("cleanup_temp_files", {"max_age_days": 0})
                assert cleaned.structured_content["removed"] == 0

    anyio.run(go)
    assert all(p.exists() for p in cli_files), "cleanup removed nothing it did not spill"
    assert [p for p in own_store(other).root.iterdir() if p.name.startswith("records-")]


def test_two_servers_over_the_same_roots_share_their_store(project: Path, tmp_path: Path) -> None:
    """Replicas (the same roots, resolved) see each other's files; other roots never do."""
    assert own_store(project).root == own_store(Path(os.path.relpath(project))).root
    link = tmp_path / "link"
    link.symlink_to(project)
    assert own_store(link).root == own_store(project).root
    assert own_store(project).root != own_store(tmp_path).root
    both = namespace_for(Roots.of([project, tmp_path]))
    assert both == namespace_for(Roots.of([tmp_path, project]))
    assert both not in {namespace_for(Roots.of([project])), namespace_for(Roots.of([tmp_path]))}


def _tokenizer_file(path: Path) -> Path:
    from tokenizers import Tokenizer, models, pre_tokenizers

    made = Tokenizer(models.WordLevel({"hello": 0, "world": 1, "[UNK]": 2}, unk_token="[UNK]"))
    made.pre_tokenizer = pre_tokenizers.Whitespace()
    path.parent.mkdir(parents=True, exist_ok=True)
    made.save(str(path))
    return path


def test_a_tokenizer_path_outside_the_roots_gets_one_answer(
    project: Path, store: SpillStore, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    valid = _tokenizer_file(outside / "tokenizer.json")
    broken = outside / "broken" / "tokenizer.json"
    broken.parent.mkdir()
    broken.write_text('{"version": "1.0", "model": [')
    (project / "sneaky-tokenizer.json").symlink_to(valid)
    server = make_server(project, store)
    names = [
        f"hf:{valid}",  # a valid tokenizer.json anywhere was loaded
        f"hf:{broken}",  # its error said where its JSON breaks
        "hf:/etc/shadow",  # its error said whether the file exists
        "hf:/etc/passwd",
        "hf:/no/such/file.json",
        f"hf:{project}/../outside/tokenizer.json",
        "hf:sneaky-tokenizer.json",  # a link in the roots to a file outside
        f"{valid}",  # a bare path ending in tokenizer.json
    ]
    answers = []
    for name in names:
        result = call(server, "count_tokens", text="hello world", tokenizer=name)
        assert result.is_error, name
        answers.append(texts(result).replace(repr(name), "NAME"))
    assert len(set(answers)) == 1, answers
    assert "not a tokenizer.json file under the allowed roots" in answers[0]
    # ... whether the file exists or not: the same answer once it is gone
    valid.unlink()
    broken.unlink()
    for name in names[:2]:
        again = call(server, "count_tokens", text="hello world", tokenizer=name)
        assert texts(again).replace(repr(name), "NAME") == answers[0]


def test_a_tokenizer_under_the_roots_loads_and_the_cache_stays_small(
    project: Path, store: SpillStore
) -> None:
    from agentout.mcp.config import ServerConfig
    from agentout.mcp.guard import Allowlist
    from agentout.mcp.server import create_server

    config = ServerConfig(Roots.of([project]), Allowlist.parse(None), store)
    server = create_server(config)
    for i in range(CACHED_FILES + 5):
        _tokenizer_file(project / "tok" / str(i) / "tokenizer.json")
        counted = call(
            server, "count_tokens", text="hello world x", tokenizer=f"hf:tok/{i}/tokenizer.json"
        )
        assert counted.structured_content["tokens"] == 3
        assert config.tokenizers.loaded <= CACHED_FILES
    for i in range(300):  # names of models that map to an encoding are not kept
        counted = call(server, "count_tokens", text="hi", tokenizer=f"gpt-4o-{i}")
        assert counted.structured_content["tokenizer"] == "o200k_base"
    from agentout import tokens

    assert not any(key.startswith("gpt-4o-") for key in tokens._cache)


# -- no input stalls a tool, nor the server -----------------------------------------------


def test_a_note_of_64000_open_brackets_is_indexed(project: Path, store: SpillStore) -> None:
    (project / "vault" / "brackets.md").write_text("# Brackets\n\n" + "[[" * 64_000 + "\n")
    result = call(
        make_server(project, store), "notes_context", directory="vault", notes=["brackets"]
    )
    assert not result.is_error, texts(result)
    assert "id=brackets" in texts(result)


def test_a_catastrophic_pattern_answers_at_once(
    project: Path, store: SpillStore, spill_dir: Path
) -> None:
    spilled = store.write_text("a" * 41 + "!\n" + "a" * 41 + "\n", kind="run", suffix=".log")
    server = make_server(project, store)
    page = call(server, "read_output", ref=spilled.ref, grep="(a+)+$")
    assert not page.is_error, texts(page)
    assert "matches=1" in texts(page) or "1 of" in texts(page) or "a" * 41 in texts(page)
    refused = call(server, "read_output", ref=spilled.ref, grep=r"(a)\1")
    assert refused.is_error
    assert "RE2" in texts(refused)
    shown = subprocess.run(
        [*AGENTOUT, "show", spilled.ref, "--grep", "(a+)+$"],
        env=child_env(spill_dir),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert shown.returncode == 0, shown.stderr
    assert "a" * 41 in shown.stdout


def _pids(path: Path) -> list[int]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if path.exists() and len(path.read_text().split()) == 2:
            return [int(pid) for pid in path.read_text().split()]
        time.sleep(0.05)
    raise AssertionError("the command never started")


def _alive_in(group: int) -> list[int]:
    """Processes of ``group`` that are alive (a zombie waiting to be reaped is not)."""
    alive = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        state, _parent, pgrp = stat[stat.rindex(")") + 2 :].split()[:3]
        if int(pgrp) == group and state != "Z":
            alive.append(int(entry))
    return alive


def _gone_within(group: int, seconds: float) -> float:
    start = time.monotonic()
    while _alive_in(group):
        if time.monotonic() - start > seconds:
            raise AssertionError(f"group {group} still alive: {_alive_in(group)}")
        time.sleep(0.05)
    return time.monotonic() - start


# A script that ignores SIGTERM, as does the child it leaves in the background (run as
# "sh stubborn.sh": an allowed sh runs the project's scripts, never "sh -c CODE").
STUBBORN = "trap '' TERM; (trap '' TERM; sleep 60) & echo $$ $! > pids; wait"


def _stubborn(project: Path) -> list[str]:
    (project / "stubborn.sh").write_text(STUBBORN + "\n")
    return ["sh", "stubborn.sh"]


@pytest.mark.filterwarnings("ignore:ping is removed")  # ... in the next protocol era only
def test_ping_is_answered_while_a_call_runs_and_a_cancel_ends_its_group(
    project: Path, spill_dir: Path
) -> None:
    async def go() -> None:
        with anyio.fail_after(90):
            params = served(project, spill_dir, "--allow-commands", "sh")
            # ping is a method of the handshake era (2025-06-18), as clients speak it today
            async with Client(params, read_timeout_seconds=60, mode="legacy") as client:
                outcome: list[Any] = []
                async with anyio.create_task_group() as tasks:

                    async def running() -> None:
                        outcome.append(
                            await client.call_tool("run_command", {"command": _stubborn(project)})
                        )

                    tasks.start_soon(running)
                    leader, _ = await anyio.to_thread.run_sync(_pids, project / "pids")
                    group = os.getpgid(leader)
                    with anyio.fail_after(5):
                        await client.send_ping()
                        counted = await client.call_tool("count_tokens", {"text": "hello"})
                    assert counted.structured_content["tokens"] == 1
                    assert not outcome, "the call still runs while ping is answered"
                    tasks.cancel_scope.cancel()  # the client sends notifications/cancelled
                took = await anyio.to_thread.run_sync(_gone_within, group, GRACE)
                assert took < GRACE
                with anyio.fail_after(5):
                    await client.send_ping()  # and the server goes on

    anyio.run(go)


def _raw(project: Path, spill_dir: Path, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [*SERVE, "--root", str(project), *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=child_env(spill_dir),
        cwd=project,
    )


def _line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


OPENING = [
    {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "abuse", "version": "1"},
        },
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
]
STUBBORN_CALL = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/call",
    "params": {"name": "run_command", "arguments": {"command": ["sh", "stubborn.sh"]}},
}


@pytest.fixture
def stubborn(project: Path, spill_dir: Path) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """``agentout serve`` running a call whose command (and its child) ignore SIGTERM."""
    _stubborn(project)
    server = _raw(project, spill_dir, "--allow-commands", "sh")
    assert server.stdin is not None
    try:
        server.stdin.write(b"".join(map(_line, [*OPENING, STUBBORN_CALL])))
        server.stdin.flush()
        leader, _ = _pids(project / "pids")
        yield server, os.getpgid(leader)
    finally:
        server.kill()
        server.wait(timeout=30)
        for pipe in (server.stdin, server.stdout, server.stderr):
            if pipe is not None and not pipe.closed:
                pipe.close()


def test_one_sigterm_ends_every_group_within_the_grace(
    stubborn: tuple[subprocess.Popen[bytes], int],
) -> None:
    server, group = stubborn
    server.send_signal(signal.SIGTERM)
    assert _gone_within(group, GRACE) < GRACE
    assert server.wait(timeout=30) == 0


def test_stdin_closing_ends_the_groups_and_the_call_is_answered(
    stubborn: tuple[subprocess.Popen[bytes], int],
) -> None:
    server, group = stubborn
    assert server.stdin is not None
    assert server.stdout is not None
    server.stdin.close()
    assert _gone_within(group, GRACE) < GRACE
    replies = [json.loads(line) for line in server.stdout.read().splitlines()]
    assert server.wait(timeout=30) == 0
    (answer,) = [reply for reply in replies if reply.get("id") == 1]
    assert "error=cancelled; stopped" in answer["result"]["content"][0]["text"]
    assert answer["result"]["isError"] is True


# -- the stdio transport ------------------------------------------------------------------


def test_broken_lines_get_json_rpc_errors_and_the_server_goes_on(
    project: Path, spill_dir: Path
) -> None:
    sent = [
        *map(_line, OPENING),
        b"{not json\n",
        b'{"jsonrpc": "2.0", "id": 7, "params": {}}\n',
        b"[1, 2]\n",
        b'{"jsonrpc": "2.0", "method": 5}\n',  # a broken notification is not answered
        b"\xff\xfe\n",
        _line({"jsonrpc": "2.0", "id": 8, "method": "ping"}),
    ]
    done = subprocess.run(
        [*SERVE, "--root", str(project)],
        input=b"".join(sent),
        capture_output=True,
        env=child_env(spill_dir),
        timeout=60,
        check=False,
    )
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    errors = [(reply["id"], reply["error"]["code"]) for reply in replies if "error" in reply]
    assert errors == [(None, -32700), (7, -32600), (None, -32600), (None, -32700)]
    assert {"jsonrpc": "2.0", "id": 8, "result": {}} in replies
    assert done.returncode == 0


def test_a_line_past_the_limit_is_refused_without_being_held(
    project: Path, spill_dir: Path
) -> None:
    from agentout.mcp.stdio import MAX_LINE

    huge = b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": "' + b"y" * MAX_LINE
    sent = [
        *map(_line, OPENING),
        huge + b'"}}\n',
        _line({"jsonrpc": "2.0", "id": 2, "method": "ping"}),
    ]
    done = subprocess.run(
        [*SERVE, "--root", str(project)],
        input=b"".join(sent),
        capture_output=True,
        env=child_env(spill_dir),
        timeout=120,
        check=False,
    )
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["error"]["code"] for r in replies if "error" in r] == [-32700]
    assert {"jsonrpc": "2.0", "id": 2, "result": {}} in replies
    assert not any(r.get("id") == 1 for r in replies)


def test_every_request_received_before_stdin_closes_is_answered(
    project: Path, spill_dir: Path
) -> None:
    calls = [
        {
            "jsonrpc": "2.0",
            "id": n,
            "method": "tools/call",
            "params": {"name": "count_tokens", "arguments": {"text": "word " * n}},
        }
        for n in range(1, 301)
    ]
    done = subprocess.run(
        [*SERVE, "--root", str(project)],
        input=b"".join(map(_line, [*OPENING, *calls])),
        capture_output=True,
        env=child_env(spill_dir),
        timeout=120,
        check=False,
    )
    replies = {reply["id"]: reply for reply in map(json.loads, done.stdout.splitlines())}
    assert sorted(n for n in replies if n) == list(range(1, 301))
    from agentout.tokens import count

    counted = [replies[n]["result"]["structuredContent"]["tokens"] for n in range(1, 301)]
    assert counted == [count("word " * n) for n in range(1, 301)]
    assert done.returncode == 0


# -- HTTP beyond loopback ---------------------------------------------------------------------


def test_beyond_loopback_the_server_needs_a_token(project: Path, spill_dir: Path) -> None:
    refused = subprocess.run(
        [*SERVE, "--http", "0", "--host", "0.0.0.0", "--root", str(project)],
        env=child_env(spill_dir),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert refused.returncode == 2
    assert refused.stderr.startswith("agentout: --host 0.0.0.0 reaches beyond this machine")
    assert "Traceback" not in refused.stderr


def _request(url: str, method: str = "POST", token: str | None = None) -> tuple[int, bytes]:
    import urllib.error
    import urllib.request

    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
    request = urllib.request.Request(
        url, data=body if method == "POST" else None, method=method, headers=headers
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read()


def test_without_the_token_every_request_is_refused(project: Path, spill_dir: Path) -> None:
    from agentout.mcp.child import serve_http

    token = "a-long-enough-secret-0123"
    env = {**child_env(spill_dir), "AGENTOUT_SERVE_TOKEN": token}
    args = ["--host", "0.0.0.0", "--stateless", "--root", str(project)]
    with serve_http(args, env) as url:
        port = url.rsplit(":", 1)[1].removesuffix("/mcp")
        local = f"http://127.0.0.1:{port}"
        for method in ("POST", "GET", "DELETE"):
            for given in (None, "wrong-token-of-enough-length", token[:-1], token + "x"):
                status, body = _request(f"{local}/mcp", method, given)
                assert status == 401, (method, given)
                assert json.loads(body)["error"] == "unauthorized"
        assert _request(f"{local}/healthz", "GET") == (200, b'{"status":"ok"}')
        status, body = _request(f"{local}/mcp", "POST", token)
        assert status == 200
        assert b'"result":{}' in body
