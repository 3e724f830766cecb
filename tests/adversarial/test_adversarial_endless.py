"""An endless producer does not fill the disk, and a reader that goes away stops it.

``agentout run -- yes`` stored 1.7 GB in 5 s. Past the store's cap an output keeps its
head and its tail, and agentout goes on counting it exactly, saying so on the closing
line and in the stored copy that ``agentout show`` pages. When agentout's own stdout
loses its reader (``agentout run -- yes | true``), the command is stopped as a raw
pipeline's writer would be, by SIGPIPE, and agentout exits as it would (141).
Cold and warm (a server running: the client delivers output this large itself).
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from adversarial_support import AGENTOUT, stored

from agentout.formats.raw import closing_fields
from agentout.store.cap import passed_note
from warm_server import Runtime, runtime

__all__ = ["runtime"]  # the fixture

SCRIPT = str(Path(sys.executable).parent / "agentout")
CAP = 4 << 20
_CAPPED = re.compile(r"(\d+) bytes, (\d+) lines; (\d+) bytes not kept")


def _env(path: str, store: Path, runtime: Runtime | None) -> dict[str, str]:
    env = dict(os.environ) if runtime is None else runtime.env(warm=False)
    env.update(AGENTOUT_SPILL_DIR=str(store), AGENTOUT_HOOK_SERVER="1" if path == "warm" else "0")
    return env


@pytest.fixture(params=["cold", "warm"])
def path(request: pytest.FixtureRequest, runtime: Runtime) -> str:
    if request.param == "warm":
        runtime.start()
    return str(request.param)


def test_an_endless_producer_is_kept_as_head_and_tail_and_counted(
    path: str, runtime: Runtime, tmp_path: Path
) -> None:
    store = tmp_path / "store"
    env = {**_env(path, store, runtime), "AGENTOUT_STORE_MAX_BYTES": "4MiB"}
    done = subprocess.run(
        [SCRIPT, "run", "--timeout", "3", "--", "yes"],
        capture_output=True,
        env=env,
        timeout=120,
        check=False,
    )
    text = done.stdout.decode()
    fields = closing_fields(text)
    assert done.returncode == 124, done.stderr
    assert b"Traceback" not in done.stderr
    found = _CAPPED.fullmatch(fields["capped"])
    assert found is not None, fields
    size, lines, dropped = (int(n) for n in found.groups())
    assert size == 2 * lines  # "y\n", counted to the last one
    assert size > 10 * CAP  # it ran on past the cap, counted
    [kept] = stored(store)
    data = kept.read_bytes()
    assert len(data) <= CAP + 300
    head, marker, tail = data.partition(b"\n[agentout: ")
    assert set(head) <= set(b"y\n")
    assert marker
    said, _, tail = tail.partition(b"\n")
    assert said.startswith(f"{dropped} bytes ({dropped // 2} lines) of the output".encode())
    assert set(tail) <= set(b"y\n")
    assert len(head) + 1 + len(tail) + dropped == size
    # and agentout show pages it, the line about what was left out among the rest
    named = re.search(r"agentout show ([0-9a-f]{16})\]$", text.rstrip("\n"))
    assert named is not None
    ref = named.group(1)
    shown = subprocess.run(
        [SCRIPT, "show", ref, "--grep", "not kept here"],
        capture_output=True,
        env=env,
        check=True,
    )
    assert f"{dropped} bytes ({dropped // 2} lines) of the output not kept" in shown.stdout.decode()
    assert kept.name.startswith("run_cut-")  # and every page of it says so
    page = subprocess.run(
        [SCRIPT, "show", ref, "--lines", "1:3"], capture_output=True, env=env, check=True
    )
    assert closing_fields(page.stdout.decode())["capped"].startswith("the middle not kept")


def test_the_default_cap_bounds_the_store(tmp_path: Path) -> None:
    """No setting: 256 MiB at most, however long the producer runs."""
    store = tmp_path / "store"
    env = {**os.environ, "AGENTOUT_SPILL_DIR": str(store), "AGENTOUT_HOOK_SERVER": "0"}
    env.pop("AGENTOUT_STORE_MAX_BYTES", None)
    done = subprocess.run(
        [*AGENTOUT, "run", "--shell", "yes | head -c 400000000; echo done"],
        capture_output=True,
        env=env,
        timeout=300,
        check=False,
    )
    fields = closing_fields(done.stdout.decode())
    assert done.returncode == 0, done.stderr
    assert fields["capped"].startswith("400000005 bytes, 200000001 lines; ")
    [kept] = stored(store)
    assert kept.stat().st_size <= (256 << 20) + 300
    assert kept.read_bytes()[-7:] == b"y\ndone\n"  # how it ended is kept


def test_a_reader_that_goes_away_stops_the_command_as_a_pipe_would(
    path: str, runtime: Runtime, tmp_path: Path
) -> None:
    """``agentout run -- yes | true``: the raw ``yes | true`` ends at once, yes killed by
    SIGPIPE (141); so does agentout, with that status, and the output is kept."""
    store = tmp_path / "store"
    env = {**_env(path, store, runtime), "AGENTOUT_STORE_MAX_BYTES": "4MiB"}
    read, write = os.pipe()
    started = time.monotonic()
    client = subprocess.Popen(
        [SCRIPT, "run", "--", "yes"], stdout=write, stderr=subprocess.PIPE, env=env
    )
    os.close(write)
    time.sleep(0.5)  # it runs, and reads
    os.close(read)  # the reader goes away
    _, err = client.communicate(timeout=60)
    assert client.returncode == 128 + signal.SIGPIPE
    assert time.monotonic() - started < 30
    assert b"Traceback" not in err
    assert stored(store)  # what it printed until then is kept


def test_the_cap_is_said_within_the_tightest_budget(tmp_path: Path) -> None:
    """``capped=`` is a fact, kept by every envelope, as ``exit=`` is."""
    env = {**os.environ, "AGENTOUT_SPILL_DIR": str(tmp_path), "AGENTOUT_HOOK_SERVER": "0"}
    done = subprocess.run(
        [*AGENTOUT, "run", "--max-tokens", "60", "--shell", "seq 1 2000000"],
        capture_output=True,
        env={**env, "AGENTOUT_STORE_MAX_BYTES": "1MiB"},
        timeout=120,
        check=True,
    )
    fields = closing_fields(done.stdout.decode())
    assert fields["capped"] == "14888896 bytes, 2000000 lines; 13840332 bytes not kept"


def test_a_reader_that_wants_one_line_ends_it_as_head_ends_yes(
    path: str, runtime: Runtime, tmp_path: Path
) -> None:
    """``agentout run -- yes | head -1``: raw ``yes | head -1`` ends at once, but head
    waits for a line that agentout gives only when the command ends. Past the store's cap
    agentout says so to the pipe at once: head takes that line and goes, and yes is
    stopped by SIGPIPE (141), head's status is the pipeline's, the output is kept."""
    store = tmp_path / "store"
    env = {**_env(path, store, runtime), "AGENTOUT_STORE_MAX_BYTES": "4MiB"}
    line = f'{shlex.quote(SCRIPT)} run -- yes | head -1; echo "status=${{PIPESTATUS[*]}}"'
    started = time.monotonic()
    done = subprocess.run(
        ["bash", "-c", line], capture_output=True, env=env, timeout=120, check=False
    )
    assert time.monotonic() - started < 60
    first, status = done.stdout.decode().splitlines()
    assert first == passed_note(4 << 20).rstrip("\n")
    assert status == "status=141 0"
    assert b"Traceback" not in done.stderr
    assert stored(store)


def test_what_is_said_at_the_cap_is_within_the_budget(tmp_path: Path) -> None:
    """The line said at once to a pipe counts against ``--max-tokens`` with the rest."""
    from agentout.tokens import get_tokenizer

    env = {**os.environ, "AGENTOUT_SPILL_DIR": str(tmp_path), "AGENTOUT_HOOK_SERVER": "0"}
    env["AGENTOUT_STORE_MAX_BYTES"] = "1MiB"
    read, write = os.pipe()
    client = subprocess.Popen(
        [*AGENTOUT, "run", "--max-tokens", "120", "--shell", "seq 1 2000000"],
        stdout=write,
        env=env,
    )
    os.close(write)
    with os.fdopen(read, "rb") as reader:
        text = reader.read().decode()
    assert client.wait(timeout=120) == 0
    assert text.startswith("[agentout: past the store's cap (1 MiB) and still printing;")
    assert "\n2000000\n" in text  # how it ended
    assert "over_budget" not in text
    assert get_tokenizer("o200k_base").count(text) <= 120
