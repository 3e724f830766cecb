"""``--allow-commands`` made a shell of the programs it allows: ``run_command ["git",
"-c", "alias.x=!echo PWNED > f; cat /etc/hostname", "x"]`` ran both commands. Each
attack here is sent to a real ``agentout serve`` over stdio, in a real git repository,
and would leave a file named ``pwned-*`` if it ran; each must be refused, nothing may be
left, and the plain uses of the same programs must still answer."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from adversarial_support import run_commands

PROGRAMS = ["git", "find", "tar", "make", "sed", "awk", "sh", "env", "timeout", "perl"]
PRESENT = [name for name in PROGRAMS if shutil.which(name)]
PYTHON = Path(shutil.which("python3") or "python3").name

ATTACKS: list[list[str]] = [
    ["git", "-c", "alias.x=!echo PWNED > pwned-issue; cat /etc/hostname", "x"],
    ["git", "-c", "core.fsmonitor=touch pwned-fsmonitor", "status"],
    ["git", "-c", "core.sshCommand=touch pwned-ssh", "fetch", "ssh://example.invalid/x"],
    ["git", "--config-env=core.fsmonitor=AGENTOUT_NOPE", "status"],
    ["git", "fetch", "--upload-pack=touch pwned-upload; git-upload-pack", "."],
    ["git", "ls-remote", "--upload-p=touch pwned-upload2; git-upload-pack", "."],
    ["git", "config", "core.fsmonitor", "touch pwned-config"],
    ["git", "log", "--format=%B", "-1", "--output=pwned-output"],
    ["git", "hostile"],  # an alias the repository's own config defines as !touch
    ["git", "-C", "bare.git", "status"],
    ["git", "--exec-path=hooks", "status"],
    ["git", "submodule", "foreach", "touch pwned-foreach"],
    ["find", ".", "-maxdepth", "0", "-exec", "touch", "pwned-find", ";"],
    ["tar", "--to-command=touch pwned-tar", "-xf", "a.tar"],
    ["tar", "-I", "touch pwned-tar2; gzip", "-cf", "b.tar", "Makefile"],
    ["make", "--eval=pwn:\n\ttouch pwned-make", "pwn"],
    ["make", "SHELL=./evil.sh", "all"],
    ["make", "WORD=x; touch pwned-make2", "all"],
    ["sed", "-n", "1e touch pwned-sed", "Makefile"],
    ["sed", "-i", "s/x/y/", ".git/config"],
    ["awk", 'BEGIN { system("touch pwned-awk") }'],
    ["awk", 'BEGIN { print "touch pwned-awk2" | "sh" }'],
    ["sh", "-c", "touch pwned-sh"],
    ["sh", "/tmp/../" + "tmp/agentout-no-such.sh"],
    [PYTHON, "-c", "open('pwned-python', 'w')"],
    ["env", "touch", "pwned-env"],
    ["timeout", "5", "touch", "pwned-timeout"],
    ["perl", "-e", "open(F, '>pwned-perl')"],
]
PLAIN: list[tuple[list[str], str]] = [
    (["git", "log", "--format=%s", "-1"], "[core]"),
    (["git", "config", "--get", "alias.hostile"], "!touch pwned-alias"),
    (["make", "all"], "word=plain"),
    (["sed", "-n", "1p", "Makefile"], "WORD = plain"),
    (["awk", "/WORD|nothing/ { print $3 }", "Makefile"], "plain"),
    (["sh", "script.sh"], "script ran"),
    (["find", ".", "-name", "Makefile"], "./Makefile"),
]


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    """A git repository with one commit whose message is git config text, an alias its
    own config defines, a bare repository kept as files, a Makefile and a tar file."""
    root = tmp_path / "project"
    root.mkdir()
    env = {**os.environ, "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@example.invalid",
           "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@example.invalid"}  # fmt: skip

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)

    git("init", "-q")
    git("config", "alias.hostile", "!touch pwned-alias")
    (root / "Makefile").write_text("WORD = plain\nall:\n\t@echo word=$(WORD)\n")
    (root / "script.sh").write_text("echo script ran\n")
    (root / "evil.sh").write_text("touch pwned-make-shell\n")
    git("add", "Makefile", "script.sh")
    git("commit", "-q", "-m", "[core]\n\tfsmonitor = touch pwned-committed")
    bare = root / "bare.git"
    for folder in ("objects", "refs"):
        (bare / folder).mkdir(parents=True)
    (bare / "HEAD").write_text("ref: refs/heads/main\n")
    (bare / "config").write_text("[core]\n\tfsmonitor = touch pwned-bare\n")
    subprocess.run(["tar", "-cf", "a.tar", "Makefile"], cwd=root, check=True)
    return root


def test_every_attack_is_refused_and_nothing_runs(repository: Path) -> None:
    attacks = [command for command in ATTACKS if command[0] in PRESENT or command[0] == PYTHON]
    results = run_commands(repository, attacks, [*PRESENT, PYTHON])
    for n, command in enumerate(attacks, 1):
        text = results[n]["content"][0]["text"]
        # refused by agentout, or (GNU sed) by the sandbox agentout turned on
        refused = results[n]["isError"] is True and "--allow-commands" in text
        assert refused or "commands disabled in sandbox mode" in text, (command, text)
    left = sorted(p.name for p in repository.parent.rglob("pwned-*"))
    assert left == []
    assert not (repository / "f").exists()
    assert "fsmonitor" not in (repository / ".git" / "config").read_text()


def test_the_programs_still_do_their_work(repository: Path) -> None:
    plain = [(command, shown) for command, shown in PLAIN if command[0] in PRESENT]
    results = run_commands(repository, [command for command, _ in plain], [*PRESENT, PYTHON])
    for n, (command, shown) in enumerate(plain, 1):
        text = results[n]["content"][0]["text"]
        assert results[n]["isError"] is False, (command, text)
        assert shown in text, (command, text)
    assert sorted(p.name for p in repository.parent.rglob("pwned-*")) == []
