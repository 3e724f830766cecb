"""Words as bash reads them. tree-sitter's bash grammar splits a word at a backslash-newline
that bash joins: ``git log -1 --format=%s\\<newline>--output=/path`` is four words to bash
(git writes nothing) and five to tree-sitter, whose rewrite ``agentout run -- git log -1
--format=%s --output=/path`` made git write ``/path``. The rewrite (Codex's hook, and
any agent that still routes commands) now reads the words after joining the line as
bash joins it, and a property test holds its words to bash's own for every plain
command it would rewrite."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentout.agents._routing import rewrite
from agentout.agents._shell import analyse, joined

HOOK = [sys.executable, "-c", "from agentout.cli import main; main()", "hook", "codex"]
SCRIPT = str(Path(sys.executable).parent / "agentout")


def _repository(root: Path) -> Path:
    repo = root / "repo"
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t",
           "-c", "commit.gpgsign=false"]  # fmt: skip
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "a.txt").write_text("a\n")
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "the subject"], check=True)
    return repo


def test_a_continued_word_stays_one_word_through_codexs_hook(tmp_path: Path) -> None:
    repo = _repository(tmp_path)
    target = tmp_path / "written-by-git"
    command = f"git log -1 --format=%s\\\n--output={target}"
    codex = tmp_path / "codex"
    (codex / "rules").mkdir(parents=True)
    (codex / "rules" / "default.rules").write_text(
        'prefix_rule(pattern=["git", "log"], decision="allow")\n'
    )
    payload = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": str(repo),
               "permission_mode": "default", "tool_input": {"command": command}}  # fmt: skip
    env = {**os.environ, "CODEX_HOME": str(codex), "AGENTOUT_SPILL_DIR": str(tmp_path / "s")}
    done = subprocess.run(HOOK, input=json.dumps(payload).encode(), capture_output=True,
                          env=env, cwd=repo, timeout=60, check=True)  # fmt: skip
    routed = json.loads(done.stdout)["hookSpecificOutput"]["updatedInput"]["command"]
    assert shlex.split(routed)[-1] == f"--format=%s--output={target}", routed
    ran = subprocess.run(["bash", "-c", routed], cwd=repo, env=env, capture_output=True,
                         text=True, timeout=60, check=False)  # fmt: skip
    assert not target.exists()
    as_typed = subprocess.run(["bash", "-c", command], cwd=repo, capture_output=True,
                              text=True, timeout=60, check=False)  # fmt: skip
    assert not target.exists()  # bash never wrote it either
    assert as_typed.stdout.strip() in ran.stdout


def test_the_rewrite_gives_bashs_words() -> None:
    for command, words in [
        ("git log -1 --format=%s\\\n--output=/p", ["git", "log", "-1", "--format=%s--output=/p"]),
        ('git log "--format=%s\\\n"--output=/p', ["git", "log", "--format=%s--output=/p"]),
        ("git log 'a\\\n'--output=/p", ["git", "log", "a\\\n--output=/p"]),
        ("git log a\\\\\n--output=/p", None),  # an escaped backslash: two commands
    ]:
        script = analyse(command)
        assert script is not None
        if words is None:
            assert len(script.segments) == 2
            continue
        assert script.simple, command
        assert shlex.split(rewrite(script, ["agentout"]))[3:] == words


_PIECES = st.sampled_from([
    "a", "b", "-x", "--o=", "%s", " ", "\\", "\\\n", "\n", "'", '"', "$'", "#", "=", "==",
    "\\\\", "\t", "\\ ", "=~", "!", "\\'", '\\"', ";", "(", ")", "{", "}", "[", "]", "&&",
    "2>&1", ">", "1",
])  # fmt: skip


def _bash_words(command: str) -> list[list[str]] | None:
    """The arguments bash gives each command of ``f ...`` (f prints them), or None when
    bash cannot run it."""
    script = "f() { for a; do printf '%s\\0' \"$a\"; done; printf '\\1'; }\nf " + command
    done = subprocess.run(["bash", "-c", script], capture_output=True, timeout=10, check=False)
    if done.returncode != 0 or done.stderr:
        return None
    calls = done.stdout.split(b"\x01")[:-1]
    return [[w.decode() for w in call.split(b"\0")[:-1]] for call in calls]


@given(st.lists(_PIECES, max_size=12).map("".join))
@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_a_plain_scripts_words_are_bashs(tail: str) -> None:
    """Found so, besides the continuation: ``f == a`` (the grammar took ``==`` for an
    operator and dropped it), ``f \\ a`` (a word that begins with an escaped blank, taken
    for a blank) and ``f 2>&1 a`` (``a`` taken for the redirection's second target)."""
    command = "f " + tail
    script = analyse(command)
    if script is None or not script.plain or len(script.segments) != 1:
        return
    words = script.segments[0].words
    assert words is not None
    found = _bash_words(tail)
    if found is None:
        return
    assert [list(words)[1:]] == found, (command, joined(command))
