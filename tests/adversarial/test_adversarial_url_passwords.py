"""URL passwords with reserved characters, an ``@`` inside or no user name were shown:
``postgres://app:Passw0rd!2024@db/prod`` and ``redis://:hunter2hunter2@cache:6379/0``
whole, ``https://deploy:p@ss:w0rd!x@host`` with ``ss:w0rd!x`` left after the marker. Each
is hidden whole now (the authority read as URL parsers read it: its last ``@`` ends the
password) on every path: ``agentout run`` cold and warm, the PostToolUse hook cold and
warm, ``fit``, the MCP server, the store and the ledger. Commit hashes, UUIDs and
checksums stay visible, in URLs and out of them (a property test)."""

from __future__ import annotations

import base64
import json
import os
import sqlite3
import subprocess
import sys
import uuid
from pathlib import Path

from adversarial_support import run_commands
from hypothesis import given, settings
from hypothesis import strategies as st

from agentout.redact import Redactor
from warm_server import CLIENT, Runtime, runtime

__all__ = ["runtime"]  # the fixture

SCRIPT = str(Path(sys.executable).parent / "agentout")
URLS = {  # as the issue writes them: the URL, its password
    "postgres://app:Passw0rd!2024@db/prod": "Passw0rd!2024",
    "https://deploy:p@ss:w0rd!x@host": "p@ss:w0rd!x",
    "redis://:hunter2hunter2@cache:6379/0": "hunter2hunter2",
}
# What shows a password, or a piece of one: each password's pieces of 5 characters.
PIECES = sorted({p[i : i + 5] for p in URLS.values() for i in range(len(p) - 4)})
KEPT = ["postgres://app:", "@db/prod", "https://deploy:", "@host", "redis://:", "@cache:6379/0"]
LINES = "".join(f"connecting to {url}\n" for url in URLS)


def _clean(text: str) -> None:
    left = [piece for piece in PIECES if piece in text]
    assert not left, (left, text)
    assert all(part in text for part in KEPT), text  # the rest of each URL stays


def _env(root: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTOUT_LEDGER")}
    env.update(AGENTOUT_SPILL_DIR=str(root / "store"), AGENTOUT_HOOK_SERVER="0")
    env.update(AGENTOUT_LEDGER_DB=str(root / "ledger.sqlite3"), AGENTOUT_LEDGER_SYNC="1")
    return {**env, **extra}


def _run(root: Path, *args: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run([SCRIPT, *args], cwd=root, env=env or _env(root), capture_output=True,
                          text=True, timeout=60, check=False)  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr
    return done.stdout + done.stderr


def test_the_redactor_hides_each_password_whole() -> None:
    redactor = Redactor.from_environ()
    for url, password in URLS.items():
        text, found = redactor.redact_text(f"url = {url}")
        assert password not in text
        assert text == "url = " + url.replace(password, "[secret: url-password]")
        assert found.kinds == (("url-password", 1),)


def test_agentout_run_and_its_ledger_row(tmp_path: Path) -> None:
    (tmp_path / "urls.txt").write_text(LINES)
    _clean(_run(tmp_path, "run", "--", "cat", "urls.txt"))
    _clean(_run(tmp_path, "run", "--shell", "cat urls.txt"))
    _clean(_run(tmp_path, "run", "--", "echo", *URLS))  # the command line itself
    with sqlite3.connect(tmp_path / "ledger.sqlite3") as db:
        commands = "\n".join(row[0] for row in db.execute("select command from deliveries"))
    assert "echo" in commands
    assert not [piece for piece in PIECES if piece in commands]


def test_the_store_keeps_no_password(tmp_path: Path) -> None:
    filler = "".join(f"line {i}: nothing to see\n" for i in range(20_000))
    (tmp_path / "big.txt").write_text(filler + LINES + filler)
    shown = _run(tmp_path, "run", "--", "cat", "big.txt")
    assert "agentout show" in shown
    kept = b"".join(p.read_bytes() for p in (tmp_path / "store").rglob("*") if p.is_file())
    assert b"connecting to postgres://app:" in kept
    assert not [piece for piece in PIECES if piece.encode() in kept]
    _clean(_run(tmp_path, "show", shown.rsplit("show ", 1)[1].split("]")[0], "--grep", "connect"))


def _post(stdout: str) -> bytes:
    return json.dumps({
        "session_id": "s", "hook_event_name": "PostToolUse", "tool_name": "Bash",
        "tool_input": {"command": "cat urls.txt"},
        "tool_response": {"stdout": stdout, "stderr": "", "interrupted": False},
    }).encode()  # fmt: skip


def _answer(done: subprocess.CompletedProcess[bytes]) -> str:
    assert done.returncode == 0, done.stderr
    return str(json.loads(done.stdout)["hookSpecificOutput"]["updatedToolOutput"]["stdout"])


def test_the_posttooluse_hook(tmp_path: Path) -> None:
    done = subprocess.run([SCRIPT, "hook", "claude"], input=_post(LINES), env=_env(tmp_path),
                          capture_output=True, timeout=60, check=False)  # fmt: skip
    _clean(_answer(done))


def test_served_warm(runtime: Runtime) -> None:
    runtime.start()
    (runtime.tmp / "urls.txt").write_text(LINES)
    env = {**runtime.env(warm=False), "AGENTOUT_SPILL_DIR": str(runtime.tmp / "store")}
    _clean(_run(runtime.tmp, "run", "--", "cat", "urls.txt", env=env))
    done = subprocess.run([*CLIENT, "hook", "claude"], input=_post(LINES), cwd=runtime.tmp,
                          env=runtime.env(warm=True), capture_output=True, timeout=60,
                          check=False)  # fmt: skip
    _clean(_answer(done))


def test_fit_and_the_mcp_server(tmp_path: Path) -> None:
    (tmp_path / "urls.txt").write_text(LINES)
    rows = [{"service": n, "dsn": url} for n, url in enumerate(URLS)]
    (tmp_path / "services.json").write_text(json.dumps(rows))
    _clean(_run(tmp_path, "fit", "--max-tokens", "2000", "urls.txt"))
    _clean(_run(tmp_path, "fit", "--max-tokens", "2000", "services.json"))
    results = run_commands(tmp_path, [["cat", "urls.txt"], ["cat", "services.json"]], ["cat"])
    for result in results.values():
        _clean(json.dumps(result, ensure_ascii=False).replace('\\"', '"'))


# -- what is not a password stays -------------------------------------------------------------

_HEX = st.text("0123456789abcdef", min_size=7, max_size=64)
_FACT = st.one_of(
    _HEX,
    st.uuids().map(str),
    st.binary(min_size=32, max_size=64).map(lambda b: base64.b64encode(b).decode()),
)
_TEMPLATES = [
    "commit {}", "Merge: {} {}", "{}  release.tar.gz", "sha256:{}", "id: {}", "request {}",
    "https://github.com/o/r/commit/{}", "https://host:8443/v2/{}/manifests/{}",
    "git@github.com:o/{}.git", "https://cdn.example/{}/app.js?v={}", "ref={} run={}",
    "ssh://git@host:22/{}", "https://user@host/{}", '"integrity": "sha512-{}"',
    "postgres://app@db/{}", "image ghcr.io/team/app@sha256:{}", "{}:{}@{}",
]  # fmt: skip


@given(template=st.sampled_from(_TEMPLATES), facts=st.lists(_FACT, min_size=3, max_size=3))
@settings(max_examples=400, deadline=None)
def test_hashes_uuids_and_checksums_are_never_hidden(template: str, facts: list[str]) -> None:
    line = template.format(*facts)
    assert Redactor.from_environ().redact_text(line)[0] == line


def test_the_look_alikes_of_the_issue_stay() -> None:
    text = (
        f"commit {'a1b2c3d4' * 5}\nrequest {uuid.UUID(int=7, version=4)}\n"
        f"{'0f' * 32}  app.tar.gz\nhttps://github.com/o/r/commit/{'9e' * 20}\n"
    )
    assert Redactor.from_environ().redact_text(text)[0] == text
