"""A repository that holds a package named ``agentout``: none of its code runs, however
agentout is reached in it. Every Python agentout starts (the ledger's recorder, the
export writer, the uploader, the task launcher, the warm server) and every command it
prints for the agent to run (``python -m agentout show REF``) imports the installed
agentout, never the current folder's.

The attack as the issue plays it: 30 ``agentout run`` calls in the repository, 34
PostToolUse calls, one run with ``AGENTOUT_LEDGER_EXPORT`` set, and calls to the warm
server with that folder as their working directory. The planted ``agentout/__init__.py``
appends to a file outside the repository when imported: it is never written."""

from __future__ import annotations

import json
import os
import re
import shlex
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agentout.agents._markers import show_command
from agentout.agents._routing import agentout_command
from agentout.process import python_module
from warm_server import CLIENT, Runtime, runtime

__all__ = ["runtime"]  # the fixture

SCRIPT = str(Path(sys.executable).parent / "agentout")  # as the hooks' rewrite starts it
RUNS, POSTS = 30, 34
DEADLINE = 60.0
SHOW = re.compile(r"(?:· |\[)([^\[\]·]*agentout show [0-9a-f]+)\]")  # the closing line's command


def plant(root: Path) -> tuple[Path, Path]:
    """A repository with ``agentout/__init__.py`` (and ``__main__``, ``ledger``, ``cli``:
    whatever a child would look for) that writes to ``pwned`` when imported."""
    repo, pwned = root / "repo", root / "pwned"
    code = f"open({str(pwned)!r}, 'a').write(__name__ + '\\n')\n"
    for package in ("agentout", "agentout/ledger", "agentout/cli", "agentout/store"):
        (repo / package).mkdir(parents=True)
        (repo / package / "__init__.py").write_text(code)
    for module in ("__main__.py", "ledger/pending.py", "ledger/export.py"):
        (repo / "agentout" / module).write_text(code)
    return repo, pwned


def ledger_env(root: Path) -> dict[str, str]:
    """The ledger on, counted by its detached recorder (not in the process that
    delivered), in a database of the test's own."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTOUT_LEDGER")}
    env["AGENTOUT_LEDGER_DB"] = str(root / "ledger.sqlite3")
    env["AGENTOUT_SPILL_DIR"] = str(root / "spill")
    env["AGENTOUT_HOOK_SERVER"] = "0"
    return env


def rows(db: Path) -> int:
    try:
        with sqlite3.connect(db) as conn:
            return int(conn.execute("select count(*) from deliveries").fetchone()[0])
    except sqlite3.Error:
        return 0


def call(
    argv: list[str], *, cwd: Path, env: dict[str, str], input: bytes | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[bytes]:  # fmt: skip
    return subprocess.run(argv, input=input, cwd=cwd, env=env, capture_output=True,
                          timeout=timeout, check=False)  # fmt: skip


def wait_for(what: str, done: object) -> None:
    deadline = time.monotonic() + DEADLINE
    while not done():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.1)


def recorded(root: Path, repo: Path) -> None:
    """The detached recorder ran in ``repo`` (rows are in the database) and has ended."""
    wait_for("the recorder counted deliveries", lambda: rows(root / "ledger.sqlite3") > 0)
    wait_for("the recorder ended", lambda: not children_in(repo, b"agentout.ledger"))


def children_in(folder: Path, name: bytes) -> list[int]:
    """Processes whose working folder is ``folder`` and whose command names ``name``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            here = os.readlink(entry / "cwd") == str(folder)
            if here and name in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def test_the_ledger_recorder_does_not_import_the_folder(tmp_path: Path) -> None:
    repo, pwned = plant(tmp_path)
    env = ledger_env(tmp_path)
    # 29 KB each, shown whole (within the client's 30,000 characters) and so in the pending
    # line: past 36 calls the pending file passes 1 MiB, and the recorder starts
    for _ in range(RUNS + 10):
        done = call([SCRIPT, "run", "--", "seq", "1", "6000"], cwd=repo, env=env)
        assert done.returncode == 0, done.stderr
    recorded(tmp_path, repo)
    assert not pwned.exists(), pwned.read_text()


def _post(command: str, stdout: str, cwd: Path) -> bytes:
    return json.dumps({
        "session_id": "s", "transcript_path": "/tmp/t.jsonl", "cwd": str(cwd),
        "permission_mode": "default", "hook_event_name": "PostToolUse", "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_response": {"stdout": stdout, "stderr": "", "interrupted": False},
        "tool_use_id": "toolu_1",
    }).encode()  # fmt: skip


def test_posttooluse_calls_and_their_markers_do_not_import_the_folder(tmp_path: Path) -> None:
    repo, pwned = plant(tmp_path)
    env = ledger_env(tmp_path)

    # stored, and a delivery whose pending line is about 38 KB: the recorder starts at
    # about the 28th call, as the pending file passes 1 MiB
    def listing(call: int) -> str:  # each call's own (the same output twice is deduplicated)
        return "".join(f'-rw-r--r-- 1 root root {i * 7} Jan  1 00:00 "résumé-été"{call}-{i}\n'
                       for i in range(1500))  # fmt: skip

    markers = set()
    for i in range(POSTS):
        done = call(
            [*CLIENT, "hook", "claude"],
            input=_post("ls -la", listing(i), repo),
            cwd=repo,
            env=env,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        text = json.loads(done.stdout)["hookSpecificOutput"]["updatedToolOutput"]["stdout"]
        markers.update(line for line in text.splitlines() if " show " in line)
    recorded(tmp_path, repo)
    assert not pwned.exists(), pwned.read_text()
    # what the agent is told to run, run where the agent runs it
    shown = sorted(found.group(1) for m in markers if (found := SHOW.search(m)))
    assert shown, markers
    command = shown[0]
    done = subprocess.run(command, shell=True, cwd=repo, env=env, capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "résumé-été".encode() in done.stdout
    assert not pwned.exists(), pwned.read_text()


def test_a_run_with_the_ledger_exported_does_not_import_the_folder(tmp_path: Path) -> None:
    repo, pwned = plant(tmp_path)
    bucket = tmp_path / "bucket"
    bucket.mkdir()
    env = {**ledger_env(tmp_path), "AGENTOUT_LEDGER_SYNC": "1"}
    env["AGENTOUT_LEDGER_EXPORT"] = f"local://{bucket}"  # written by the detached child
    done = call([SCRIPT, "run", "--", "echo", "hello"], cwd=repo, env=env)
    assert done.returncode == 0, done.stderr
    wait_for("the export child wrote its object", lambda: any(bucket.iterdir()))
    assert not pwned.exists(), pwned.read_text()


def test_the_warm_server_does_not_import_its_callers_folder(
    runtime: Runtime, tmp_path: Path
) -> None:
    repo, pwned = plant(tmp_path)
    bucket = tmp_path / "bucket"
    bucket.mkdir()
    runtime.start()
    env = {k: v for k, v in runtime.env(warm=False).items() if not k.startswith("AGENTOUT_LEDGER")}
    env.update(AGENTOUT_LEDGER_DB=str(tmp_path / "ledger.sqlite3"),
               AGENTOUT_SPILL_DIR=str(tmp_path / "spill"),
               AGENTOUT_LEDGER_EXPORT=f"local://{bucket}")  # fmt: skip
    before = runtime.pid()
    for _ in range(RUNS):
        done = call([SCRIPT, "run", "--", "seq", "1", "8000"], cwd=repo, env=env)
        assert done.returncode == 0, done.stderr
    hook = call(
        [*CLIENT, "hook", "claude"],
        input=_post("seq 1", "x\n" * 9, repo),
        cwd=repo,
        env=env,
        timeout=60,
    )
    assert hook.returncode == 0, hook.stderr
    assert runtime.pid() == before  # the same server answered throughout
    wait_for("the export children wrote", lambda: any(bucket.iterdir()))
    wait_for("the children ended", lambda: not children_in(repo, b"agentout."))
    assert not pwned.exists(), pwned.read_text()


def test_the_commands_agentout_prints_or_starts_never_take_the_folder(tmp_path: Path) -> None:
    """Started as ``python -m agentout`` (no script of its own): the markers, the rewrite
    and every child name this Python with the folder kept off ``sys.path``."""
    repo, pwned = plant(tmp_path)
    code = (
        "import sys, json; sys.argv[0] = '-m';"
        "from agentout.agents._markers import show_command;"
        "from agentout.agents._routing import agentout_command;"
        "print(json.dumps([show_command(), agentout_command()]))"
    )
    done = subprocess.run([sys.executable, "-P", "-c", code], cwd=tmp_path, capture_output=True,
                          timeout=60, check=True)  # fmt: skip
    shown, rewrite = json.loads(done.stdout)
    assert shlex.split(shown) == rewrite == python_module("agentout")
    for command in (shlex.split(shown), rewrite, show_command(python_module("agentout"))):
        words = command if isinstance(command, list) else shlex.split(command)
        subprocess.run([*words, "--version"], cwd=repo, capture_output=True, timeout=60, check=True)
    assert agentout_command()  # in this process too
    assert not pwned.exists(), pwned.read_text()


@pytest.mark.parametrize("version", [(3, 10), sys.version_info[:2]])
@pytest.mark.parametrize("module", ["agentout", "agentout.ledger.pending"])
def test_python_module_keeps_the_folder_off_the_path(
    tmp_path: Path, module: str, version: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``-P`` where the Python has it; on 3.10 the ``-c`` form (played here on this one)."""
    repo, pwned = plant(tmp_path)
    monkeypatch.setattr(sys, "version_info", version)
    words = python_module(module)
    monkeypatch.undo()
    argv = [*words, "--version"] if module == "agentout" else words
    env = ledger_env(tmp_path)
    subprocess.run(argv, cwd=repo, env=env, capture_output=True, timeout=60, check=True)
    assert not pwned.exists(), pwned.read_text()
    # without it, the folder's package is the one imported: the plant works
    bare = [sys.executable, "-m", module, *argv[len(words) :]]
    subprocess.run(bare, cwd=repo, env=env, capture_output=True, timeout=60, check=False)
    assert pwned.exists()


def test_the_task_launcher_does_not_import_the_folder(tmp_path: Path) -> None:
    repo, pwned = plant(tmp_path)
    (repo / "Makefile").write_text("all:\n\techo built one\n\techo built two\n")
    done = call([SCRIPT, "run", "--", "make"], cwd=repo, env=ledger_env(tmp_path))
    assert done.returncode == 0, done.stderr
    assert b"built two" in done.stdout
    assert not pwned.exists(), pwned.read_text()


def test_the_uploader_does_not_import_the_folder(tmp_path: Path) -> None:
    server_module = pytest.importorskip("moto.server", reason="moto[server] is not installed")
    server = server_module.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        aws = {
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_DEFAULT_REGION": "us-east-1",
            "AWS_ENDPOINT_URL_S3": f"http://{host}:{port}",
        }
        import boto3

        keys = {"aws_access_key_id": "testing", "aws_secret_access_key": "testing"}
        client = boto3.client("s3", endpoint_url=aws["AWS_ENDPOINT_URL_S3"], **keys)
        client.create_bucket(Bucket="team")
        repo, pwned = plant(tmp_path)
        env = {**ledger_env(tmp_path), **aws, "AGENTOUT_STORE": "s3://team/out"}
        done = call([SCRIPT, "run", "--", "seq", "1", "100000"], cwd=repo, env=env, timeout=120)
        assert done.returncode == 0, done.stderr
        assert client.list_objects_v2(Bucket="team").get("Contents"), done.stdout[-400:]
        assert not pwned.exists(), pwned.read_text()
    finally:
        server.stop()
