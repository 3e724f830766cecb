"""``agentout.mcp.escapes``: an allowed program is run, never a way to run another one.

Each refused call would start a program the call names (or write where git looks for
one); each allowed call is an ordinary use of the program that must keep working. The
real programs are looked up on PATH (one missing here is checked by its name alone); the
attacks themselves run against a real server in tests/adversarial.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentout.mcp.escapes import Refused, allowed_argv, family
from agentout.mcp.escapes.code import awk_escape
from agentout.mcp.guard import Allowlist, GuardError, Roots

REFUSED = [
    ["git", "-c", "alias.x=!echo PWNED > f; cat /etc/hostname", "x"],
    ["git", "-calias.x=!sh", "x"],
    ["git", "--config-env=core.fsmonitor=HOME", "status"],
    ["git", "--config-env", "core.pager=HOME", "log"],
    ["git", "--exec-path=/tmp", "status"],
    ["git", "--git-dir=/tmp/other/.git", "log"],
    ["git", "--work-tree", "/tmp", "status"],
    ["git", "-C", "/tmp", "status"],
    ["git", "-C", "sub", "-C", "../..", "status"],
    ["git", "-C", "bare.git", "log"],
    ["git", "-C", "bare.git/refs", "log"],
    ["git", "-C", "pointer", "status"],
    ["git", "no-such-alias"],
    ["git", "fetch", "--upload-pack=touch x;git-upload-pack", "."],
    ["git", "fetch", "--upl=x", "origin"],
    ["git", "ls-remote", "--upload-pack", "x", "origin"],
    ["git", "pull", "--upload-pack", "x"],
    ["git", "push", "--receive-pack=x", "origin"],
    ["git", "push", "--exec=x", "origin"],
    ["git", "archive", "--exec=x", "--remote=origin", "HEAD"],
    ["git", "archive", "-o", "x.tar", "HEAD"],
    ["git", "clone", "-u", "x", "a", "b"],
    ["git", "clone", "-c", "core.fsmonitor=x", "a", "b"],
    ["git", "clone", "--config", "core.fsmonitor=x", "a", "b"],
    ["git", "clone", "--template=tpl", "a", "b"],
    ["git", "init", "--template", "tpl"],
    ["git", "rebase", "-x", "touch x", "HEAD~1"],
    ["git", "rebase", "-ix", "touch x"],
    ["git", "rebase", "--exec", "touch x"],
    ["git", "difftool", "--extcmd=x"],
    ["git", "difftool", "-x", "x"],
    ["git", "grep", "-O", "pattern"],
    ["git", "grep", "--open-files-in-pager=x", "pattern"],
    ["git", "log", "--format=%B", "--output=notes.txt"],
    ["git", "format-patch", "-o", "out", "HEAD~1"],
    ["git", "checkout-index", "-a", "--prefix=out/"],
    ["git", "bisect", "run", "touch", "x"],
    ["git", "submodule", "foreach", "touch x"],
    ["git", "submodule", "--quiet", "foreach", "touch x"],
    ["git", "filter-branch", "--tree-filter", "touch x"],
    ["git", "instaweb", "--httpd=x"],
    ["git", "config", "core.fsmonitor", "touch x"],
    ["git", "config", "--add", "alias.x", "!sh"],
    ["git", "config", "--global", "core.pager", "x"],
    ["git", "config", "set", "core.pager", "x"],
    ["git", "config", "--edit"],
    ["git", "config", "-e"],
    ["git", "log", "--", ".git/config"],
    ["find", ".", "-exec", "touch", "x", ";"],
    ["find", ".", "-execdir", "touch", "x", "+"],
    ["find", ".", "-ok", "touch", "x", ";"],
    ["find", ".", "-okdir", "touch", "x", ";"],
    ["find", ".", "-fprint", "list.txt"],
    ["tar", "--to-command=touch x", "-xf", "a.tar"],
    ["tar", "-xf", "a.tar", "--to-com", "touch x"],
    ["tar", "--use-compress-program=touch x", "-cf", "a.tar", "."],
    ["tar", "-I", "touch x", "-cf", "a.tar", "."],
    ["tar", "cIf", "touch x", "a.tar", "."],
    ["tar", "-cf", "host:a.tar", "."],
    ["tar", "--rsh-command=x", "-cf", "a.tar", "."],
    ["tar", "--checkpoint=1", "--checkpoint-action=exec=touch x", "-cf", "a.tar", "."],
    ["tar", "-F", "x", "-cf", "a.tar", "."],
    ["make", "--eval=all:;touch x"],
    ["make", "-E", "all:;touch x"],
    ["make", "-f", "/tmp/other.mk"],
    ["make", "-C", "/tmp"],
    ["make", "-I", "/tmp", "all"],
    ["make", "SHELL=/tmp/x"],
    ["make", ".SHELLFLAGS=-c touch x;"],
    ["make", "CFLAGS=;touch x"],
    ["make", "CC=$(shell touch x)"],
    ["make", "X!=touch x"],
    ["make", "CC=/bin/sh", "all"],
    ["make", "CC=ccache /bin/sh"],
    ["npm", "exec", "x"],
    ["npm", "x", "x"],
    ["npm", "explore", "x", "--", "touch x"],
    ["npm", "init", "x"],
    ["npm", "create", "x"],
    ["npm", "run", "test", "--script-shell=/tmp/x"],
    ["npm", "test", "--node-options=--require=/tmp/x.js"],
    ["npm", "config", "set", "script-shell", "/tmp/x"],
    ["npm", "set", "script-shell", "/tmp/x"],
    ["npx", "x"],
    ["npm", "run", "test", "--prefix", "/tmp"],
    ["npm", "-C", "/tmp", "test"],
    ["pnpm", "--dir=/tmp", "test"],
    ["pytest", "/tmp"],
    ["pytest", "-q", "/tmp/test_x.py::test_y"],
    ["pytest", "--rootdir=/tmp", "tests"],
    ["pytest", "-c", "/tmp/pytest.ini"],
    ["cargo", "build", "--manifest-path", "/tmp/x/Cargo.toml"],
    ["cargo", "test", "--manifest-path=/tmp/x/Cargo.toml"],
    ["env", "touch", "x"],
    ["env", "A=b", "touch", "x"],
    ["env", "-S", "touch x"],
    ["env", "--split-string=touch x"],
    ["xargs", "touch"],
    ["timeout", "5", "touch", "x"],
    ["nice", "touch", "x"],
    ["nohup", "touch", "x"],
    ["python3", "-c", "open('x', 'w')"],
    ["python3", "-Sc", "open('x', 'w')"],
    ["python3", "-I", "-c", "open('x', 'w')"],
    ["python3", "/tmp/elsewhere.py"],
    ["sh", "-c", "touch x"],
    ["sh", "-ec", "touch x"],
    ["sh", "-o", "errexit", "-c", "touch x"],
    ["sh", "/tmp/elsewhere.sh"],
    ["bash", "-c", "touch x"],
    ["bash", "--rcfile", "/tmp/rc", "-i"],
    ["bash", "+O", "extglob", "-c", "touch x"],
    ["sh", "+e", "-c", "touch x"],
    ["bash", "--init-file=/tmp/rc"],
    ["bash", "--command", "touch x"],
    ["zsh", "-o", "errexit", "-c", "touch x"],
    ["fish", "-C", "touch x"],
    ["fish", "--init-command=touch x"],
    ["dash", "-c", "touch x"],
    ["perl", "-e", "1"],
    ["perl", "-lne", "print"],
    ["perl", "-Mstrict;system(1)", "x.pl"],
    ["perl", "-I", "lib", "/tmp/x.pl"],
    ["php", "-f", "/tmp/x.php"],
    ["php", "-r", "echo 1;"],
    ["php", "-d", "auto_prepend_file=/tmp/x.php", "s.php"],
    ["node", "-e", "1"],
    ["node", "--eval=1"],
    ["node", "-p", "1"],
    ["node", "-r", "/tmp/x.js", "s.js"],
    ["node", "--import", "data:text/javascript,console.log(1)", "s.js"],
    ["node", "--import=file:///tmp/x.mjs", "s.js"],
    ["node", "--env-file=/tmp/.env", "s.js"],
    ["ruby", "-e", "1"],
    ["awk", 'BEGIN { system("touch x") }'],
    ["awk", '{ print | "sh" }'],
    ["awk", '{ "date" | getline d }'],
    ["awk", "-F:", 'BEGIN{system("x")}'],
    ["awk", "-f", "/tmp/elsewhere.awk"],
    ["sed", "-i", "s/a/b/", ".git/config"],
    ["sed", "-i", "s/a/b/", "to-git-config"],
    ["ssh", "-o", "ProxyCommand=touch x", "host"],
    ["ssh", "-oLocalCommand=touch x", "-oPermitLocalCommand=yes", "host"],
    ["ssh", "-F", "cfg", "host"],
    ["scp", "-S", "x", "a", "host:b"],
    ["rsync", "-e", "touch x", "a", "host:b"],
    ["rsync", "-avze", "x", "a", "host:b"],
    ["rsync", "--rsync-path=x", "a", "host:b"],
    ["vi", "-c", "!touch x"],
    ["vim", "+!touch x"],
    ["man", "-P", "touch x", "ls"],
    ["less", "+!touch x", "f"],
    ["wget", "--use-askpass=x", "http://example.invalid/"],
    ["wget", "-e", "use_askpass=x", "http://example.invalid/"],
    ["cargo", "--config", "build.rustc-wrapper='x'", "build"],
    ["go", "build", "-toolexec=x", "."],
    ["go", "test", "-exec", "x", "."],
    ["go", "env", "-w", "GOFLAGS=-toolexec=x"],
    ["uv", "run", "x"],
    ["poetry", "run", "x"],
]

ALLOWED = [
    ["git", "status"],
    ["git", "log", "--oneline", "-5"],
    ["git", "--no-pager", "log", "-1"],
    ["git", "-C", "sub", "status"],
    ["git", "-C", "mod", "status"],
    ["git", "--exec-path"],
    ["git", "--version"],
    ["git", "diff", "--exit-code", "--stat"],
    ["git", "log", "--output-indicator-new=+"],
    ["git", "grep", "-e", "O", "-n"],
    ["git", "commit", "-c", "HEAD", "--dry-run"],
    ["git", "cherry-pick", "-x", "HEAD"],
    ["git", "config", "--get", "core.pager"],
    ["git", "config", "user.name"],
    ["git", "config", "-l"],
    ["git", "config", "get", "user.name"],
    ["git", "show", "HEAD:.gitignore"],
    ["git", "rebase", "-Xours", "main"],
    ["find", ".", "-name", "*.py", "-print"],
    ["tar", "-czf", "a.tar.gz", "sub"],
    ["tar", "xzf", "a.tar.gz"],
    ["tar", "-cf", "./a:b.tar", "--force-local", "sub"],
    ["make", "test"],
    ["make", "-C", "sub", "-j2", "check"],
    ["make", "VERBOSE=1", "CFLAGS=-O2 -g -I/usr/include", "all"],
    ["make", "CC=gcc", "PREFIX=build/usr"],
    ["npm", "run", "test"],
    ["npm", "test"],
    ["npm", "config", "get", "registry"],
    ["npm", "--prefix", "sub", "test"],
    ["pytest", "-q", "sub", "sub/test_x.py::test_y", "-k", "not slow"],
    ["env"],
    ["env", "-i", "A=b"],
    ["nice"],
    ["python3", "s.py", "-c", "x"],
    ["python3", "-m", "pytest", "-c", "pytest.ini"],
    ["python3", "-u", "s.py"],
    ["sh", "s.sh"],
    ["bash", "-e", "s.sh", "-c"],
    ["bash", "+O", "extglob", "-x", "s.sh"],
    ["sh", "-", "x"],
    ["php", "-d", "memory_limit=-1", "s.php"],
    ["node", "--env-file=.env", "--import", "./setup.mjs", "s.js"],
    ["perl", "-Mstrict", "-w", "s.pl"],
    ["perl", "-I", "lib", "s.pl"],
    ["node", "s.js"],
    ["node", "--require", "ts-node/register", "s.js"],
    ["awk", "{ print $1 }", "f"],
    ["awk", "/err|warn/ { n++ } END { print n }"],
    ["awk", '$1 == "a" || $2 > 3 { print $1 / 2 }'],
    ["awk", '{ gsub(/[|]/, "x"); print "a|b" }  # a | b'],
    ["sed", "-n", "1,5p", "f"],
    ["ssh", "-o", "ConnectTimeout=5", "host", "uptime"],
    ["rsync", "-avz", "a", "b"],
    ["vim", "--version"],
    ["man", "ls"],
    ["less", "f"],
    ["go", "test", "./..."],
    ["cargo", "test"],
    ["uv", "sync"],
]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("project")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "sub").mkdir()
    bare = root / "bare.git"
    for folder in ("objects", "refs"):
        (bare / folder).mkdir(parents=True)
    (bare / "HEAD").write_text("ref: refs/heads/main\n")
    (root / "to-git-config").symlink_to(root / ".git" / "config")
    (root / "pointer").mkdir()
    (root / "pointer" / ".git").write_text("gitdir: ../bare.git\n")  # another repository
    (root / ".git" / "modules" / "mod").mkdir(parents=True)
    (root / "mod").mkdir()
    (root / "mod" / ".git").write_text("gitdir: ../.git/modules/mod\n")  # a submodule's
    return root


def _check(project: Path, command: list[str]) -> list[str]:
    """``command`` checked as ``--allow-commands NAME`` checks it; a program missing here
    is bound to ``true``, so that its rule (found by the name called) is still tried."""
    found = shutil.which(command[0]) or shutil.which("true") or "/bin/true"
    allow = Allowlist({command[0]: found})
    return allowed_argv(allow, Roots.of([project]), command)


@pytest.mark.parametrize("command", REFUSED, ids=" ".join)
def test_a_way_to_run_another_program_is_refused(project: Path, command: list[str]) -> None:
    with pytest.raises(Refused) as refused:
        _check(project, command)
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize("command", ALLOWED, ids=" ".join)
def test_the_program_itself_still_runs(project: Path, command: list[str]) -> None:
    argv = _check(project, command)
    assert argv[-len(command) + 1 :] == command[1:] or len(command) == 1


def test_a_program_not_on_the_list_is_refused(project: Path) -> None:
    with pytest.raises(GuardError, match="not on the allowlist; allowed: git"):
        allowed_argv(Allowlist.parse("git"), Roots.of([project]), ["sh", "-c", "x"])


def test_gnu_sed_and_gnu_awk_run_in_their_own_sandbox(project: Path) -> None:
    sed = _check(project, ["sed", "1e touch x", "f"])
    if "GNU sed" in subprocess.run([sed[0], "--version"], capture_output=True, text=True).stdout:
        assert sed[1:] == ["--sandbox", "1e touch x", "f"]
    if shutil.which("gawk"):
        assert _check(project, ["gawk", "{print}"])[1:] == ["--sandbox", "{print}"]


@pytest.mark.parametrize(
    ("name", "expected"),
    [("python3.12", "python"), ("perl5.36", "perl"), ("vim.basic", "vim"), ("7z", "7z"),
     ("git", "git"), ("pypy3", "pypy")],
)  # fmt: skip
def test_a_program_is_known_by_its_family(name: str, expected: str) -> None:
    assert family(name) == expected


@given(st.text(alphabet='abc"/|(){}$ \\\n', max_size=40))
@settings(max_examples=500)
def test_the_awk_reader_never_fails_and_sees_every_bare_pipe(program: str) -> None:
    found = awk_escape(program)
    assert found in (None, "opens a pipe (|)", "calls system()")
    if "|" not in program and "system" not in program:
        assert found is None
