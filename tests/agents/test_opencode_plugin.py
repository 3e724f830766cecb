"""The OpenCode plugin `agentout init opencode` writes: loaded by node as OpenCode loads
it (an ES module exporting ``{id, server}``), its ``tool.execute.after`` given the bash
tool's output, and ``agentout hook opencode`` answering it for real. Bun's ``$`` is
stood in for by a tagged template that runs the same argv with the same stdin."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentout.agents.hook import answer
from agentout.agents.opencode import PLUGIN_FIRST_LINE, plugin
from agentout.cli.main import cli

HARNESS = r"""
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
const [module, outputFile, command, exitCode, truncated] = process.argv.slice(2);
const loaded = (await import(module)).default;
function $(strings, ...values) {
  const argv = values[0];
  const words = strings[1].trim().split(/\s+/).filter((w) => w && w !== "<");
  const run = async () => {
    const input = await values[1].text();
    const done = spawnSync(argv[0], [...argv.slice(1), ...words], { input });
    return { exitCode: done.status, stdout: done.stdout };
  };
  const shell = { quiet: () => shell, nothrow: () => run() };
  return shell;
}
if (loaded.id !== "agentout" || typeof loaded.server !== "function") process.exit(3);
const hooks = await loaded.server({ $ });
const output = { title: "", output: readFileSync(outputFile, "utf8"),
                 metadata: { exit: Number(exitCode), truncated: truncated === "1",
                             outputPath: truncated === "1" ? outputFile : undefined } };
await hooks["tool.execute.after"](
  { tool: "bash", sessionID: "ses_1", callID: "call_1", args: { command } }, output);
process.stdout.write(output.output);
"""

NODE = shutil.which("node")
AGENTOUT = [sys.executable, "-c", "from agentout.cli import main; main()"]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    (tmp_path / "project").mkdir()
    return tmp_path / "project"


def test_init_writes_the_plugin_and_takes_it_out(project: Path) -> None:
    done = CliRunner().invoke(cli, ["init", "opencode", "--project", str(project)])
    assert done.exit_code == 0, done.output
    written = project / ".opencode" / "plugins" / "agentout.js"
    text = written.read_text()
    assert text.startswith(PLUGIN_FIRST_LINE)
    assert '"tool.execute.after"' in text
    assert "added     " in done.output
    again = CliRunner().invoke(cli, ["init", "opencode", "--project", str(project)])
    assert {line.split()[0] for line in again.output.splitlines()} == {"unchanged"}
    gone = CliRunner().invoke(cli, ["init", "opencode", "--project", str(project), "--uninstall"])
    assert gone.exit_code == 0, gone.output
    assert list(project.iterdir()) == []


def test_a_plugin_file_of_the_users_is_left_alone(project: Path) -> None:
    mine = project / ".opencode" / "plugins" / "agentout.js"
    mine.parent.mkdir(parents=True)
    mine.write_text("export default { id: 'mine' };\n")
    done = CliRunner().invoke(cli, ["init", "opencode", "--project", str(project)])
    assert done.exit_code == 2
    assert "not agentout's file" in done.output
    assert mine.read_text() == "export default { id: 'mine' };\n"


def _node(tmp_path: Path, output: str, command: str, status: int = 0, cut: bool = False) -> str:
    assert NODE is not None
    module = tmp_path / "agentout.mjs"
    module.write_text(plugin(AGENTOUT))
    harness = tmp_path / "harness.mjs"
    harness.write_text(HARNESS)
    data = tmp_path / "data"  # OpenCode keeps a cut output's whole in its tool-output folder
    given = data / "opencode" / "tool-output" / "tool_1"
    given.parent.mkdir(parents=True, exist_ok=True)
    given.write_text(output)
    done = subprocess.run(
        [NODE, str(harness), str(module), str(given), command, str(status), "1" if cut else "0"],
        capture_output=True, text=True, check=False, timeout=120,
        env={**os.environ, "XDG_DATA_HOME": str(data)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_plugin_replaces_a_long_output_and_leaves_a_short_one(tmp_path: Path) -> None:
    lines = [f"{n:06d} INFO worker ok, request {n * 7919 % 100003} served" for n in range(4000)]
    lines[2222] = "ERROR worker-3 request 17 failed: TimeoutError after 30s"
    long = "\n".join(lines)
    replaced = _node(tmp_path, long, "./serve.sh", status=1)
    assert len(replaced) < 50_000 < len(long)
    assert "ERROR worker-3 request 17 failed" in replaced
    assert "exit=1" in replaced
    assert _node(tmp_path, "hello", "echo hello") == "hello"


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_plugin_reads_the_whole_output_opencode_kept(tmp_path: Path) -> None:
    lines = [f"{n:06d} INFO request {n} ok" for n in range(6000)]
    lines[5999] = "FATAL the last line holds the error"
    replaced = _node(tmp_path, "\n".join(lines), "./serve.sh", cut=True)
    assert "FATAL the last line holds the error" in replaced


def test_bad_payloads_answer_nothing_with_one_line() -> None:
    data = {"hook_event_name": "PostToolUse", "tool_name": "bash",
            "tool_input": {"command": "ls"}, "tool_response": {"output": 3}}  # fmt: skip
    out, err = answer("opencode", json.dumps(data).encode())
    assert out == ""
    assert err is not None
    assert "tool_response.output is not a string" in err
    data["tool_name"] = "edit"
    out, err = answer("opencode", json.dumps(data).encode())
    assert (out, err is not None) == ("", True)
