"""Bytes that are not UTF-8 are shown as U+FFFD, and kept as they came: a short output
given whole, or a reducer's complete form of one, is then stored after all, and the
closing line names it (before, nothing was stored: the bytes were lost). Cold and warm."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from adversarial_support import stored

from warm_server import Runtime, runtime

__all__ = ["runtime"]  # the fixture

SCRIPT = str(Path(sys.executable).parent / "agentout")
_REF = re.compile(r"agentout show ([0-9a-f]{16})\]\n\Z")


@pytest.fixture(params=["cold", "warm"])
def path(request: pytest.FixtureRequest, runtime: Runtime) -> str:
    if request.param == "warm":
        runtime.start()
    return str(request.param)


def _run(
    runtime: Runtime, path: str, args: list[str], cwd: Path
) -> subprocess.CompletedProcess[bytes]:
    env = {
        **runtime.env(warm=False),
        "AGENTOUT_SPILL_DIR": str(runtime.tmp / "spill"),
        "AGENTOUT_HOOK_SERVER": "1" if path == "warm" else "0",
    }
    return subprocess.run(
        [SCRIPT, "run", *args], capture_output=True, env=env, cwd=cwd, timeout=120, check=False
    )


def test_short_invalid_utf8_is_shown_replaced_and_kept_as_it_came(
    path: str, runtime: Runtime
) -> None:
    raw = b"caf\xe9 au lait\n\xff\xfe\n"
    done = _run(runtime, path, ["--", "printf", "caf\\351 au lait\\n\\377\\376\\n"], runtime.tmp)
    text = done.stdout.decode()
    assert done.returncode == 0
    assert text.startswith("caf\ufffd au lait\n\ufffd\ufffd\n")
    found = _REF.search(text)
    assert found is not None, text
    [kept] = stored(runtime.tmp / "spill")
    assert found.group(1) in kept.name
    assert kept.read_bytes() == raw


def test_valid_utf8_given_whole_is_still_not_stored(path: str, runtime: Runtime) -> None:
    done = _run(runtime, path, ["--", "printf", "caf\\303\\251\\n"], runtime.tmp)
    assert done.stdout == "café\n".encode()
    assert stored(runtime.tmp / "spill") == []


def test_a_complete_reduced_form_of_invalid_utf8_keeps_the_bytes(
    path: str, runtime: Runtime
) -> None:
    """grep's matches grouped by file hold every line, so they stand alone: unless a line
    was not UTF-8, which they show replaced; the output is then kept and named."""
    folder = runtime.tmp / "g"
    folder.mkdir()
    for name in ("alpha", "beta"):
        lines = [
            f"needle line {i} in a file with a long path, so grouping pays\n" for i in range(8)
        ]
        (folder / f"module_with_a_long_name_{name}.py").write_text("".join(lines))
    with (folder / "module_with_a_long_name_beta.py").open("ab") as handle:
        handle.write(b"needle caf\xe9\n")
    raw = subprocess.run(["grep", "-a", "-rn", "needle", "g"], capture_output=True, cwd=runtime.tmp)
    done = _run(runtime, path, ["--", "grep", "-a", "-rn", "needle", "g"], runtime.tmp)
    text = done.stdout.decode()
    assert "  9: needle caf\ufffd\n" in text  # the reduced form, grouped by file
    found = _REF.search(text)
    assert found is not None, text
    [kept] = stored(runtime.tmp / "spill")
    assert kept.read_bytes() == raw.stdout
    assert os.path.basename(kept).count(found.group(1)) == 1
