"""The config the docs show works, and a bad one is never silent.

``tokenizer = "o200k"`` (the docs' spelling) was refused, and a refused config turned
every PostToolUse hook off with one line on stderr that no one reads. Now the short names
are the encodings', and a bad config is named by ``agentout init --show`` (exit status 2)
and told by the hook once per session, where the person sees it (``systemMessage``).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agentout.agents._config import first_time, load_checked, problem
from agentout.cli.main import cli
from agentout.errors import InputError
from agentout.tokens import UnknownTokenizerError, get_tokenizer, tokenizer_name

AGENTOUT = [sys.executable, "-m", "agentout"]


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "config").mkdir()
    return {
        **os.environ,
        "AGENTOUT_CONFIG_DIR": str(tmp_path / "config"),
        "AGENTOUT_SPILL_DIR": str(tmp_path / "store"),
        "AGENTOUT_LEDGER": "0",
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }


def _config(env: dict[str, str], text: str) -> Path:
    path = Path(env["AGENTOUT_CONFIG_DIR"]) / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _bash(session: str = "session-1", lines: int = 20_000) -> bytes:
    """A finished ``seq`` whose output is over Claude Code's inline limit."""
    stdout = "\n".join(str(n) for n in range(1, lines + 1))
    payload: dict[str, Any] = {
        "session_id": session,
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": f"seq 1 {lines}"},
        "tool_response": {"stdout": stdout, "stderr": "", "interrupted": False},
        "tool_use_id": "toolu_01",
    }
    return json.dumps(payload).encode()


def _mcp(session: str = "session-1") -> bytes:
    text = "\n".join(f"line {n}: some result text of the tool" for n in range(4000))
    payload = {
        "session_id": session,
        "hook_event_name": "PostToolUse",
        "tool_name": "mcp__files__read",
        "tool_input": {},
        "tool_response": [{"type": "text", "text": text}],
    }
    return json.dumps(payload).encode()


def _hook(payload: bytes, env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [*AGENTOUT, "hook", "claude"], input=payload, env=env, capture_output=True, timeout=60
    )


# -- the short names --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "encoding"),
    [("o200k", "o200k_base"), ("cl100k", "cl100k_base"), ("O200K", "o200k_base"),
     ("chars4", "chars4"), ("o200k_base", "o200k_base"), ("gpt-4o", "o200k_base")],
)  # fmt: skip
def test_short_names_are_their_encodings(name: str, encoding: str) -> None:
    assert tokenizer_name(name) == encoding
    assert get_tokenizer(name).name == encoding


@pytest.mark.parametrize("name", ["o300k", "p50k", "", "o200k_bas"])
def test_unknown_names_are_refused_without_loading(name: str) -> None:
    with pytest.raises(UnknownTokenizerError, match="o200k, cl100k"):
        tokenizer_name(name)


def test_the_docs_config_reduces_in_the_hook(env: dict[str, str]) -> None:
    """The config block of docs/cli/hook.md, and the [mcp] one, as written there."""
    _config(env, '[shell]\nmax_tokens = 4000\ntokenizer = "o200k"\n\n'
                 '[mcp]\nmax_tokens = 600\ntokenizer = "cl100k"\n')  # fmt: skip
    done = _hook(_bash(), env)
    assert (done.returncode, done.stderr) == (0, b"")
    answer = json.loads(done.stdout)["hookSpecificOutput"]["updatedToolOutput"]["stdout"]
    assert get_tokenizer("o200k_base").count(answer) <= 4000
    done = _hook(_mcp(), env)
    assert (done.returncode, done.stderr) == (0, b"")
    [block] = json.loads(done.stdout)["hookSpecificOutput"]["updatedMCPToolOutput"]
    assert get_tokenizer("cl100k_base").count(block["text"]) <= 600


# -- a bad config, told ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('[shell]\ntokenizer = "o300k"\n', "[shell] tokenizer: unknown tokenizer 'o300k'"),
        ('[mcp.servers.gh]\ntokenizer = "p50k"\n', "mcp.servers.gh.tokenizer: unknown"),
        ("[shel]\nenabled = false\n", "shel: unknown table (known: [shell], [mcp])"),
        ("[shell\n", ":1:"),
    ],
)
def test_a_bad_config_is_told_once_a_session(env: dict[str, str], text: str, said: str) -> None:
    path = _config(env, text)
    for payload in (_bash, _mcp):
        first = _hook(payload("session-A"), env)
        assert first.returncode == 0
        line = first.stderr.decode()
        assert line.startswith(f"agentout: hook: {path}")
        assert line.count("\n") == 1
        assert said in line
        assert line.endswith("; nothing changed\n")
        if payload is _bash:  # the first call of the session: the person is told
            told = json.loads(first.stdout)
            assert set(told) == {"systemMessage", "hookSpecificOutput"}
            assert told["systemMessage"].startswith(f"agentout: bad config: {path}")
            assert said in told["systemMessage"]
            assert "agentout init --show" in told["systemMessage"]
            specific = told["hookSpecificOutput"]
            assert specific["hookEventName"] == "PostToolUse"
            assert specific["additionalContext"] == told["systemMessage"]
            assert "updatedToolOutput" not in specific  # the result goes as it was
        else:  # told already: the result as it was, and the line on stderr only
            assert first.stdout == b""
    again = _hook(_bash("session-A"), env)
    assert (again.stdout, again.stderr.decode()) == (b"", line)
    other = _hook(_bash("session-B"), env)  # another session is told too
    assert "systemMessage" in json.loads(other.stdout)


def test_init_show_names_a_bad_config_and_fails(
    env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    project = tmp_path / "project"
    project.mkdir()
    path = _config(env, '[shell]\ntokenizer = "o200k"\n[mcp]\ntokenizer = "cl100k"\n')
    assert problem() is None
    done = CliRunner().invoke(cli, ["init", "--show", "--project", str(project)])
    assert str(path) not in done.output
    assert done.exit_code == 1  # nothing installed: that is all it says

    _config(env, '[mcp]\nmax_tokens = 5000\ntokenizer = "o200"\n')
    done = CliRunner().invoke(cli, ["init", "--show", "--project", str(project)])
    assert done.exit_code == 2
    [line] = [line for line in done.output.splitlines() if str(path) in line]
    assert line.startswith(f"broken    {path}: mcp.tokenizer: unknown tokenizer 'o200'")


def test_load_checked_reads_every_level(tmp_path: Path) -> None:
    """A bad value under a server or a tool no call has named yet is found too."""
    path = tmp_path / "config.toml"
    path.write_text("[mcp.servers.gh.tools.search]\nmax_tokens = 10\n")
    with pytest.raises(InputError, match=r"mcp\.servers\.gh\.tools\.search\.max_tokens"):
        load_checked(str(path))
    path.write_text('[mcp.servers.gh.tools.search]\nmax_tokens = 900\ntokenizer = "o200k"\n')
    config, source = load_checked(str(path))
    assert source == str(path)
    assert config["mcp"]["servers"]["gh"]["tools"]["search"]["max_tokens"] == 900


def _race(folder: str, ready: Any, out: Any) -> None:
    ready.wait()
    out.put(first_time("session-1", "the same message", folder))


def test_exactly_one_of_many_hooks_at_once_tells(tmp_path: Path) -> None:
    folder = tmp_path / "told"
    folder.mkdir(mode=0o700)
    context = multiprocessing.get_context("spawn")
    ready, out = context.Event(), context.Queue()
    workers = [context.Process(target=_race, args=(str(folder), ready, out)) for _ in range(6)]
    for worker in workers:
        worker.start()
    ready.set()
    results = [out.get(timeout=60) for _ in workers]
    for worker in workers:
        worker.join(timeout=60)
    assert sorted(results) == [False] * 5 + [True]
    assert first_time("session-1", "another message", str(folder)) is True
    assert first_time("session-2", "the same message", str(folder)) is True


def test_a_folder_that_is_not_private_tells_every_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Loud rather than silent: no mark is kept where another could forge one."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / "cache" / "agentout").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "cache" / "agentout" / "hook-told").symlink_to(tmp_path / "elsewhere")
    assert first_time("s", "m") is True
    assert first_time("s", "m") is True
    assert list((tmp_path / "elsewhere").iterdir()) == []
