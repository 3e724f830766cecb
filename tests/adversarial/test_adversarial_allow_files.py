"""``--allow-commands`` lets no program run another program or write a file the call names,
nor read outside the roots: ``sort --compress-program=sh``, ``sort -o FILE`` and
``sort -T DIR`` went through, and so did the same options of the other programs one may
allow (``rg --pre``, ``split --filter``, ``less -o``, ``curl -o``, ``pytest
--basetemp``...), ``git worktree add`` and ``cat /etc/passwd``. One row per refused use,
each checked by ``allowed_argv`` (a program missing here by its name alone); those of the
programs installed here also sent to a real ``agentout serve``, which must refuse each
and leave no file anywhere; the ordinary uses of the same programs still run."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from adversarial_support import run_commands

from agentout.mcp.escapes import Refused, allowed_argv
from agentout.mcp.guard import Allowlist, Roots

# (the call, what the refusal says): OUT is a place outside the project, IN one inside it
ROWS: list[tuple[list[str], str]] = [
    (["sort", "--compress-program=sh", "-S1", "f"], "runs"),
    (["sort", "--compress-prog", "sh", "f"], "runs"),
    (["sort", "-o", "IN/sorted", "f"], "writes"),
    (["sort", "-ro", "IN/sorted", "f"], "writes"),
    (["sort", "--output=IN/sorted", "f"], "writes"),
    (["sort", "-T", "OUT", "f"], "outside"),
    (["sort", "--temporary-directory=IN", "f"], "writes"),
    (["uniq", "f", "IN/unique"], "writes"),
    (["sed", "-i", "s/a/b/", "f"], "writes"),
    (["sed", "-i.bak", "s/a/b/", "f"], "writes"),
    (["sed", "-ni", "p", "f"], "writes"),
    (["sed", "--in-place=.orig", "s/a/b/", "f"], "writes"),
    (["awk", "-oIN/pretty", "{print}", "f"], "writes"),
    (["awk", "--profile=IN/prof", "{print}", "f"], "writes"),
    (["awk", "--dump-variables", "{print}", "f"], "writes"),
    (["awk", "-l", "filefuncs", "{print}", "f"], "runs"),
    (["less", "-o", "IN/log", "f"], "writes"),
    (["less", "-OIN/log", "f"], "writes"),
    (["less", "--log-file=IN/log", "f"], "writes"),
    (["less", "-k", "keys", "f"], "runs"),
    (["more", "-o", "IN/log", "f"], "writes"),
    (["man", "-C", "man.conf", "ls"], "runs"),
    (["tree", "-o", "IN/tree.txt"], "writes"),
    (["file", "-C", "-m", "magic"], "writes"),
    (["date", "-s", "2020-01-01"], "writes"),
    (["date", "--set=2020-01-01"], "writes"),
    (["yq", "-i", ".a = 1", "f"], "writes"),
    (["yq", "-s", "IN/part", "f"], "writes"),
    (["curl", "-o", "IN/got", "file:///dev/null"], "writes"),
    (["curl", "-fsSo", "IN/got", "file:///dev/null"], "writes"),
    (["curl", "-O", "file:///dev/null"], "writes"),
    (["curl", "--output-dir", "OUT", "-O", "file:///dev/null"], "outside"),
    (["curl", "-D", "IN/headers", "file:///dev/null"], "writes"),
    (["curl", "--cookie-jar=IN/jar", "file:///dev/null"], "writes"),
    (["curl", "--trace-ascii", "IN/trace", "file:///dev/null"], "writes"),
    (["curl", "-K", "cfg", "file:///dev/null"], "writes"),
    (["curl", "-w", "%output{IN/w}x", "file:///dev/null"], "writes"),
    (["curl", "-F", "f=@/etc/hostname", "file:///dev/null"], "outside"),
    (["curl", "--data-binary", "@/etc/hostname", "file:///dev/null"], "outside"),
    (["wget", "-O", "IN/got", "http://127.0.0.1:9/"], "writes"),
    (["wget", "-P", "OUT", "http://127.0.0.1:9/"], "outside"),
    (["wget", "-o", "IN/log", "http://127.0.0.1:9/"], "writes"),
    (["wget", "--save-cookies=IN/c", "http://127.0.0.1:9/"], "writes"),
    (["wget", "-e", "robots=off", "http://127.0.0.1:9/"], "runs"),
    (["rg", "--pre", "sh", "x"], "runs"),
    (["rg", "--pre=cat", "x"], "runs"),
    (["rg", "-z", "x"], "runs"),
    (["rg", "-iz", "x"], "runs"),
    (["rg", "--search-zip", "x"], "runs"),
    (["rg", "--hostname-bin=sh", "x"], "runs"),
    (["fd", "-x", "rm"], "runs"),
    (["fd", "--exec-batch", "rm"], "runs"),
    (["fdfind", "-X", "ls"], "runs"),
    (["ag", "--pager", "sh", "x"], "runs"),
    (["ack", "--pager=sh", "x"], "runs"),
    (["zip", "-TT", "sh", "-T", "IN/a.zip", "f"], "runs"),
    (["zip", "--unzip-command=sh", "-T", "IN/a.zip", "f"], "runs"),
    (["zip", "OUT/a.zip", "f"], "outside"),
    (["zip", "-b", "OUT", "IN/a.zip", "f"], "outside"),
    (["unzip", "a.zip", "-d", "OUT"], "outside"),
    (["split", "--filter=sh", "f"], "runs"),
    (["split", "-l", "1", "f", "OUT/part-"], "outside"),
    (["csplit", "-f", "OUT/xx", "f", "1"], "outside"),
    (["patch", "-o", "OUT/patched", "f", "p.diff"], "outside"),
    (["patch", "-e", "f", "p.diff"], "runs"),
    (["patch", "-d", "OUT", "-p1"], "outside"),
    (["install", "--strip-program=sh", "-s", "f", "IN/g"], "runs"),
    (["install", "f", "OUT/g"], "outside"),
    (["cp", "f", "OUT/f"], "outside"),
    (["cp", "-t", "OUT", "f"], "outside"),
    (["mv", "f", "OUT/f"], "outside"),
    (["ln", "-s", "f", "OUT/link"], "outside"),
    (["tee", "OUT/f"], "outside"),
    (["tee", "-a", "OUT/f"], "outside"),
    (["touch", "OUT/f"], "outside"),
    (["mkdir", "-p", "OUT/d"], "outside"),
    (["rm", "-f", "OUT/f"], "outside"),
    (["rmdir", "OUT"], "outside"),
    (["truncate", "-s", "0", "OUT/f"], "outside"),
    (["shred", "OUT/f"], "outside"),
    (["chmod", "777", "OUT/f"], "outside"),
    (["dd", "if=f", "of=OUT/f"], "outside"),
    (["zstd", "-o", "OUT/f.zst", "f"], "outside"),
    (["crontab", "f"], "installs"),
    (["crontab", "-"], "installs"),
    (["crontab", "-e"], "writes"),
    (["crontab", "-r"], "writes"),
    (["pytest", "--basetemp=OUT"], "outside"),
    (["pytest", "--junitxml", "OUT/r.xml"], "outside"),
    (["pytest", "--debug=OUT/d.log"], "outside"),
    (["pytest", "-o", "cache_dir=OUT/c"], "sets where"),
    (["pytest", "-oaddopts=--basetemp=/x"], "sets where"),
    (["find", ".", "-delete"], "writes"),
    (["tar", "-cf", "OUT/new.tar", "f"], "outside"),
    (["tar", "cf", "OUT/new.tar", "f"], "outside"),
    (["tar", "-xf", "a.tar", "-C", "OUT"], "outside"),
    (["tar", "--directory=OUT", "-xf", "a.tar"], "outside"),
    (["git", "worktree", "add", "OUT/wt"], "writes"),
    (["git", "worktree", "add", "IN/wt"], "writes"),
    (["git", "worktree", "move", "a", "b"], "writes"),
    (["git", "bundle", "create", "IN/b.bundle", "HEAD"], "writes"),
    (["git", "init", "--separate-git-dir=OUT/g"], "names a program or a file"),
    (["git", "clone", "--separate-git-dir", "IN/g", ".", "IN/c"], "names a program or a file"),
    (["git", "clone", ".", "OUT/copy"], "outside"),
    (["git", "init", "OUT/repo"], "outside"),
    (["git", "difftool", "-t", "vimdiff"], "names a program"),
    (["git", "difftool", "--tool=vimdiff"], "names a program"),
    (["git", "mergetool", "--tool", "x"], "names a program"),
    (["git", "help", "log"], "runs man"),
    (["git", "log", "--help"], "runs man"),
    (["git", "fast-export", "--export-marks=IN/m", "HEAD"], "names a program or a file"),
    (["git", "diff", "--no-index", "/etc/hostname", "f"], "outside"),
    (["at", "now"], "runs the command"),
    (["tmux", "new-session", "sh"], "runs the command"),
    (["cat", "/etc/hostname"], "outside"),
    (["cat", "../../../../../../etc/hostname"], "outside"),
    (["cat", "link-out"], "outside"),
    (["head", "-n1", "/etc/passwd"], "outside"),
    (["grep", "-r", "root", "/etc"], "outside"),
    (["grep", "-f/etc/passwd", "f"], "outside"),
    (["ls", "/"], "outside"),
    (["diff", "--from-file=/etc/hostname", "f"], "outside"),
    (["jq", "--rawfile", "a", "/etc/passwd", "-n", "$a"], "outside"),
]  # fmt: skip
ALLOWED: list[list[str]] = [
    ["sort", "f"], ["sort", "-t/", "-k2", "-u", "f"], ["uniq", "-c", "f"],
    ["sed", "-n", "1p", "f"], ["awk", "-F/", "{ print $1 }", "f"], ["tree", "-L", "1"],
    ["file", "f"], ["date", "+%Y"], ["rg", "-n", "a", "f"], ["cp", "f", "IN/g"],
    ["tee", "IN/teed"], ["touch", "IN/new"], ["mkdir", "-p", "IN/d/e"], ["cat", "/dev/null"],
    ["diff", "/dev/null", "f"], ["git", "worktree", "list"], ["git", "help", "-a"],
    ["pytest", "-o", "xfail_strict=true", "--basetemp=IN/tmp"], ["zip", "IN/a.zip", "f"],
    ["split", "-l", "1", "f", "IN/part-"], ["csplit", "f", "2"], ["dd", "if=f", "of=IN/g"],
    ["make", "CC=gcc", "PREFIX=IN/usr"], ["curl", "-fsS", "file:///dev/null"],
    ["zstd", "-q", "-o", "IN/f.zst", "f"], ["grep", "-n", "a", "f"],
    ["tar", "-cf", "IN/a.tar", "f"], ["tar", "-tf", "IN/a.tar"],
]  # fmt: skip


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "f").write_text("b\na\n")
    (root / "IN").mkdir()
    (root / "link-out").symlink_to("/etc/hostname")
    (tmp_path / "OUT").mkdir()
    return root


def _place(project: Path, words: list[str]) -> list[str]:
    outside = str(project.parent / "OUT")
    return [w.replace("OUT", outside).replace("IN", str(project / "IN")) for w in words]


def _check(project: Path, command: list[str]) -> list[str]:
    found = shutil.which(command[0]) or shutil.which("true") or "/bin/true"
    return allowed_argv(Allowlist({command[0]: found}), Roots.of([project]), command)


@pytest.mark.parametrize(("command", "why"), ROWS, ids=[" ".join(c) for c, _ in ROWS])
def test_each_row_is_refused(project: Path, command: list[str], why: str) -> None:
    with pytest.raises(Refused) as refused:
        _check(project, _place(project, command))
    assert why in str(refused.value), str(refused.value)
    assert "--allow-commands" in str(refused.value)


@pytest.mark.parametrize("command", ALLOWED, ids=" ".join)
def test_the_programs_ordinary_uses_still_run(project: Path, command: list[str]) -> None:
    placed = _place(project, command)
    assert _check(project, placed)[-len(placed) + 1 :] == placed[1:]


def test_a_real_server_refuses_every_row_and_nothing_is_written(project: Path) -> None:
    rows = [_place(project, c) for c, _ in ROWS if shutil.which(c[0])]
    names = sorted({c[0] for c in rows})

    def files() -> list[str]:
        found = [*project.rglob("*"), *(project.parent / "OUT").rglob("*")]
        return sorted(str(p) for p in found if ".git" not in p.parts)

    before = files()
    results = run_commands(project, rows, names)
    for n, command in enumerate(rows, 1):
        text = results[n]["content"][0]["text"]
        assert results[n]["isError"] is True, (command, text)
        assert "--allow-commands" in text, (command, text)
    assert files() == before
    plain = [_place(project, c) for c in ALLOWED if shutil.which(c[0])]
    results = run_commands(project, plain, sorted({c[0] for c in plain}))
    refused = [(c, r["content"][0]["text"]) for c, r in zip(plain, results.values(), strict=True)
               if "--allow-commands" in r["content"][0]["text"]]  # fmt: skip
    assert refused == []
    assert (project / "IN" / "teed").exists()
