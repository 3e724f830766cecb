"""The real Claude Code client, run offline against a fake of the Messages API on loopback.

What agentout claims about Claude Code is proved here against the client itself, pinned
(``scripts/claude_code.py``; ``make test`` installs it under ``.venv/claude-code``), not
against a model of it. A session: the client runs ``claude -p`` in a project of its own,
with a home of its own, as an unprivileged user (as root, Claude Code refuses
``bypassPermissions``); the fake API answers each turn with the next Bash call of a
script, then ends the turn. What the model reads is the ``tool_result`` the client sends
back to the API; ``--include-hook-events`` shows every hook call and answer.

Used by tests/agents/test_claude_client.py and bench/bench_claude.py.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 180.0  # a whole session, hooks and commands included, on a busy machine


def _installer() -> Any:
    spec = importlib.util.spec_from_file_location(
        "claude_code_install", ROOT / "scripts" / "claude_code.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


VERSION: str = _installer().VERSION


def client_path() -> Path:
    """The pinned client: ``$AGENTOUT_TEST_CLAUDE_CODE``, else where ``make test`` put it."""
    given = os.environ.get("AGENTOUT_TEST_CLAUDE_CODE")
    path = Path(given) if given else ROOT / ".venv" / "claude-code" / VERSION / "claude"
    if not path.is_file():
        raise AssertionError(
            f"Claude Code {VERSION} is not installed at {path}: run `make claude-code` "
            "(or `python3 scripts/claude_code.py .venv/claude-code`)"
        )
    return path


# -- the fake Messages API -----------------------------------------------------------------


class FakeAPI:
    """``POST /v1/messages`` on 127.0.0.1: while the conversation has fewer tool results
    than ``script`` has calls, the next call (a Bash ``tool_use``); then ``end_turn``.
    Every request is kept (``requests``)."""

    def __init__(self) -> None:
        self.script: list[dict[str, Any]] = []
        self.requests: list[dict[str, Any]] = []
        self.base: int | None = None  # tool results in the conversation when a run began
        self.lock = threading.Lock()
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
                with api.lock:
                    api.requests.append({"path": self.path, "body": body})
                if "count_tokens" in self.path:
                    self._json({"input_tokens": 1})
                    return
                self._stream(api.answer(body))

            def _json(self, value: Any) -> None:
                data = json.dumps(value).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, events: list[dict[str, Any]]) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("connection", "close")
                self.close_connection = True
                self.end_headers()
                for event in events:
                    self.wfile.write(
                        f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()
                    )
                self.wfile.flush()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def answer(self, body: Mapping[str, Any]) -> list[dict[str, Any]]:
        tools = {tool.get("name") for tool in body.get("tools", [])}
        done = _results(body)
        if self.base is None:  # a resumed session holds the earlier calls' results
            self.base = done
        done -= self.base
        start = {
            "type": "message_start",
            "message": {
                "id": f"msg_{len(self.requests)}", "type": "message", "role": "assistant",
                "model": body.get("model", "claude"), "content": [], "stop_reason": None,
                "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1},
            },
        }  # fmt: skip
        if "Bash" in tools and done < len(self.script):
            number = self.base + done + 1  # unique in a resumed conversation too
            block = {"type": "tool_use", "id": f"toolu_{number:02d}", "name": "Bash", "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(self.script[done])}
            stop = "tool_use"
        else:
            block = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": "done"}
            stop = "end_turn"
        return [
            start,
            {"type": "content_block_start", "index": 0, "content_block": block},
            {"type": "content_block_delta", "index": 0, "delta": delta},
            {"type": "content_block_stop", "index": 0},
            {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
             "usage": {"output_tokens": 1}},
            {"type": "message_stop"},
        ]  # fmt: skip

    def begin(self, script: list[dict[str, Any]]) -> None:
        """A new run of the client, whose model makes the calls of ``script``."""
        self.script, self.base = script, None
        self.requests.clear()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _results(body: Mapping[str, Any]) -> int:
    """How many tool results the conversation of a request holds."""
    return sum(
        1
        for message in body.get("messages", [])
        if message.get("role") == "user" and isinstance(message.get("content"), list)
        for block in message["content"]
        if isinstance(block, dict) and block.get("type") == "tool_result"
    )


# -- a session's results -------------------------------------------------------------------


class Result:
    """One Bash call as the model reads it."""

    def __init__(self, call: str, content: str, is_error: bool) -> None:
        self.call, self.content, self.is_error = call, content, is_error

    def __repr__(self) -> str:
        return f"Result({self.call!r}, {self.content[:200]!r}, is_error={self.is_error})"


class Session:
    """What one ``claude -p`` run printed: its stream (``events``) and, per Bash call in
    order, what the model read of it (``results``, from the requests the API got)."""

    def __init__(
        self, events: list[dict[str, Any]], requests: list[dict[str, Any]], stderr: str
    ) -> None:
        self.events, self.stderr = events, stderr
        self.results: list[Result] = []
        seen: set[str] = set()  # the results of earlier runs (a resumed session) are not this run's
        if requests:
            seen = {r.call for r in _tool_results(requests[0]["body"])}
        for request in requests:
            for result in _tool_results(request["body"]):
                if result.call not in seen:
                    seen.add(result.call)
                    self.results.append(result)
        init = [e for e in events if e.get("type") == "system" and e.get("subtype") == "init"]
        self.session_id: str = init[0]["session_id"] if init else ""

    def hooks(self, event: str | None = None) -> list[dict[str, Any]]:
        """The hook answers of the session (``hook_response`` events), of one event."""
        found = [
            e
            for e in self.events
            if e.get("type") == "system" and e.get("subtype") == "hook_response"
        ]
        return [e for e in found if event is None or e.get("hook_event") == event]

    def texts(self) -> list[str]:
        return [result.content for result in self.results]


def _tool_results(body: Mapping[str, Any]) -> list[Result]:
    found = []
    for message in body.get("messages", []):
        content = message.get("content")
        if message.get("role") != "user" or not isinstance(content, list):
            continue
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                text = _text(block.get("content"))
                found.append(
                    Result(str(block.get("tool_use_id")), text, bool(block.get("is_error")))
                )
    return found


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict))
    return ""


# -- a sandbox: a project and a home for the client ----------------------------------------


class Sandbox:
    """A project and a home of their own; agentout's store, ledger, config and warm server
    all inside that home, the client's temporary files in the sandbox too."""

    def __init__(self, api: FakeAPI, project: Path | None = None, path: str = "") -> None:
        """``project``: a folder of the caller's to work in (default: one of its own);
        ``path``: folders put first on the client's PATH."""
        self.api = api
        self.root = Path(tempfile.mkdtemp(prefix="agentout-claude-"))
        os.chmod(self.root, 0o755)
        self.home = self.root / "home"
        self.project = project if project is not None else self.root / "project"
        self.home.mkdir()
        self.project.mkdir(exist_ok=True)
        (self.home / "run").mkdir(mode=0o700)
        (self.root / "tmp").mkdir()
        self.extra_path = path

    def path(self, relative: str) -> Path:
        return self.project / relative

    def write(self, relative: str, text: str) -> Path:
        target = self.project / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        return target

    def environ(self, **extra: str) -> dict[str, str]:
        """The client's whole environment (nothing of the test process's leaks in)."""
        env = {
            "PATH": ":".join(
                p
                for p in (
                    self.extra_path,
                    str(ROOT / ".venv" / "bin"),
                    "/usr/local/bin:/usr/bin:/bin",
                )
                if p
            ),
            "HOME": str(self.home),
            "XDG_RUNTIME_DIR": str(self.home / "run"),
            "TMPDIR": str(self.root / "tmp"),
            "LANG": "C.UTF-8",
            "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{self.api.port}",
            "ANTHROPIC_API_KEY": "dummy",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "AGENTOUT_LEDGER_SYNC": "1",
            "GIT_AUTHOR_NAME": "agentout tests",
            "GIT_AUTHOR_EMAIL": "tests@agentout.invalid",
            "GIT_COMMITTER_NAME": "agentout tests",
            "GIT_COMMITTER_EMAIL": "tests@agentout.invalid",
        }
        env.update(extra)
        return env

    def agentout(
        self, *args: str, env: Mapping[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        """``agentout ARGS`` in the project, as the client runs, with its home."""
        return self._as_user(
            [str(ROOT / ".venv" / "bin" / "agentout"), *args],
            env=self.environ(**(env or {})),
        )

    def init(self, *args: str) -> None:
        """``agentout init claude`` in the project, as a person would run it."""
        done = self.agentout("init", "claude", *args)
        assert done.returncode == 0, done.stderr

    def _as_user(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str],
        timeout: float = TIMEOUT,
        cwd: Path | None = None,
    ) -> subprocess.CompletedProcess[str]:
        prefix: list[str] = []
        if os.geteuid() == 0:
            # a user namespace of its own where root is mapped to nobody: the client is
            # nobody there (as root it refuses bypassPermissions) with no capability, while
            # the files it reads (this Python, installed under root's home) and writes stay
            # root's outside
            prefix = ["unshare", "--user", "--map-user=65534", "--map-group=65534"]
        return subprocess.run(
            [*prefix, *argv],
            cwd=cwd or self.project,
            env=dict(env),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    def session(
        self,
        calls: Sequence[str | Mapping[str, Any]],
        *,
        mode: str = "default",
        args: Sequence[str] = ("--allowedTools", "Bash"),
        resume: str | None = None,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
    ) -> Session:
        """One ``claude -p`` run whose model makes ``calls`` (a command, or a Bash input)
        in turn. ``args``: the client's own flags; by default ``--allowedTools Bash``
        stands for a person who approves each command."""
        self.api.begin(
            [
                {"command": call, "description": "run"} if isinstance(call, str) else dict(call)
                for call in calls
            ]
        )
        argv = [
            str(client_path()), "-p", "go", "--output-format", "stream-json", "--verbose",
            "--include-hook-events", "--permission-mode", mode, *args,
        ]  # fmt: skip
        if resume is not None:
            argv += ["--resume", resume]
        done = self._as_user(argv, env=self.environ(**(env or {})), cwd=cwd)
        events = []
        for line in done.stdout.splitlines():
            with contextlib.suppress(ValueError):
                events.append(json.loads(line))
        assert done.returncode == 0, f"claude exited {done.returncode}: {done.stderr[-2000:]}"
        return Session(events, list(self.api.requests), done.stderr)

    def close(self) -> None:
        """End every process the sandbox's user left (warm servers, background calls)
        and remove the sandbox."""
        _end_processes(str(self.home))
        shutil.rmtree(self.root, ignore_errors=True)


def _end_processes(mark: str) -> None:
    """SIGKILL every process whose environment names ``mark`` (the sandbox's home)."""
    needle = os.fsencode(f"HOME={mark}")
    deadline = time.monotonic() + 5.0
    while True:
        found = []
        for entry in Path("/proc").glob("[0-9]*"):
            try:
                if needle in (entry / "environ").read_bytes().split(b"\0"):
                    found.append(int(entry.name))
            except OSError:
                continue
        found = [pid for pid in found if pid != os.getpid()]
        if not found or time.monotonic() > deadline:
            return
        for pid in found:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.1)


@contextlib.contextmanager
def sandbox(project: Path | None = None, path: str = "") -> Iterator[Sandbox]:
    """A sandbox and its fake API, ended with every process its client left."""
    api = FakeAPI()
    box = Sandbox(api, project, path)
    try:
        yield box
    finally:
        box.close()
        api.close()


def run_python(code: str) -> str:
    """A ``python3 -c`` command line for ``code``."""
    import shlex

    return f"python3 -c {shlex.quote(code)}"


__all__ = [
    "VERSION",
    "FakeAPI",
    "Result",
    "Sandbox",
    "Session",
    "client_path",
    "run_python",
    "sandbox",
]
