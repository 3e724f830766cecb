"""The spill store on S3 (moto's server): what holds locally holds there."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from agentout.store.address import RemoteAddress, StoreAddressError, parse_address
from agentout.store.page import LineRange, page
from agentout.store.spill import SpillError, SpillStore
from agentout.store.upload import PART
from processes import without_agentout_settings

AGENTOUT = [sys.executable, "-m", "agentout"]


def _lines(count: int, width: int = 60) -> bytes:
    return b"".join(f"{i:08d} {'x' * (width - 10)}\n".encode() for i in range(1, count + 1))


def _env(s3: Any, home: Path, store: str, **more: str) -> dict[str, str]:
    env = without_agentout_settings()
    env.update(s3.env)
    env.update(
        HOME=str(home),
        XDG_CACHE_HOME=str(home / ".cache"),
        AGENTOUT_STORE=store,
        AGENTOUT_LEDGER="0",
        **more,
    )
    return env


def _agentout(*args: str, env: dict[str, str], cwd: Path | None = None) -> Any:
    return subprocess.run(
        [*AGENTOUT, *args], env=env, capture_output=True, text=True, timeout=120, cwd=cwd
    )


def _ref(stdout: str) -> str:
    return stdout.strip().rsplit("agentout show ", 1)[1].split()[0].rstrip("]")


# -- addresses ------------------------------------------------------------------------------


def test_addresses_parse_paths_and_urls(tmp_path: Path) -> None:
    assert parse_address(str(tmp_path)) == tmp_path
    assert parse_address(f"file://{tmp_path}") == tmp_path
    assert parse_address("s3://team/agents/a1/") == RemoteAddress("s3", "team", "agents/a1")
    assert parse_address("gs://team").url == "gs://team"
    for bad in ("ftp://x/y", "s3://team/../other", "s3:///prefix", "s3://team/a?b=1", " "):
        with pytest.raises(StoreAddressError, match="AGENTOUT_STORE"):
            parse_address(bad)


def test_bad_store_option_is_one_line_exit_2(tmp_path: Path) -> None:
    done = _agentout("show", "--store", "ftp://x/y", "0123456789abcdef", env=dict(os.environ))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "agentout: --store='ftp://x/y': unknown store ftp://; use a path, file://, s3://, "
        "gs://, az://"
    ]


# -- two machines, one store ----------------------------------------------------------------


def test_run_on_one_machine_show_on_another_byte_exact(
    s3: Any, bucket: str, tmp_path: Path
) -> None:
    data = _lines(40_000)
    source = tmp_path / "output.txt"
    source.write_bytes(data)
    store = f"s3://{bucket}/agents"
    one = _env(s3, tmp_path / "home-one", store)
    two = _env(s3, tmp_path / "home-two", store)
    ran = _agentout("run", "--", "cat", str(source), env=one)
    assert ran.returncode == 0, ran.stderr
    assert ran.stderr == ""
    ref = _ref(ran.stdout)
    (name,) = [k for k in s3.keys(bucket, "agents/") if not k.endswith(".idx")]
    assert f"-{ref}." in name
    assert s3.body(bucket, name) == data  # the object is the output, byte for byte

    # The other machine pages every line back, exactly, with nothing of its own.
    shown = _agentout("show", ref, "--lines", "1:", "--max-tokens", "10000000", env=two)
    assert shown.returncode == 0, shown.stderr
    body, _, closing = shown.stdout.rpartition("[agentout:")
    assert body.encode() == data
    assert "shown=1:40000" in closing
    assert not (tmp_path / "home-two" / ".cache" / "agentout" / "spill" / name).exists()

    # Pages read through the index are the pages read through the file.
    (copies,) = (tmp_path / "home-one" / ".cache" / "agentout" / "spill" / "remote").iterdir()
    assert (copies / name.split("/")[-1]).read_bytes() == data  # the first machine's copy
    local = {**one, "AGENTOUT_STORE": str(copies)}
    for args in (
        ["--lines", "20000:"],
        ["--max-tokens", "300"],
        ["--lines", "39990:", "--format", "records"],
        ["--grep", "0000999"],
        ["--lines", "5:9", "--format", "json"],
    ):
        remote_page = _agentout("show", ref, *args, env=two)
        local_page = _agentout("show", ref, *args, env=local)
        assert remote_page.returncode == local_page.returncode == 0
        assert remote_page.stdout == local_page.stdout, args


def test_a_page_reads_a_few_ranges_not_the_object(s3: Any, bucket: str) -> None:
    store = SpillStore.at(f"s3://{bucket}/p")
    with store.open(kind="run", suffix=".log") as writer:
        for _ in range(10):
            writer.write(_lines(20_000, 100))  # 20 MB
        ref = writer.commit()
    assert ref.url == f"s3://{bucket}/p/{ref.ref}"
    reader = SpillStore.at(f"s3://{bucket}/p")  # a fresh process's view
    first = page(ref.ref, store=reader)
    assert "lines=200000" in first.text
    assert reader.remote is not None
    assert reader.remote.fetched < 64 << 10, reader.remote.fetched
    middle = SpillStore.at(f"s3://{bucket}/p")
    page(ref.ref, store=middle, lines=LineRange(123_456, None), max_tokens=500)
    assert middle.remote is not None
    assert middle.remote.fetched < 1 << 20, middle.remote.fetched


# -- names and prefixes ---------------------------------------------------------------------


def test_references_outside_the_prefix_are_refused(s3: Any, bucket: str) -> None:
    store = SpillStore.at(f"s3://{bucket}/one")
    ref = store.write_text("hello\n" * 3000, kind="run", suffix=".log")
    other = SpillStore.at(f"s3://{bucket}/two")
    s3.client.put_object(Bucket=bucket, Key="one/notes.txt", Body=b"not ours")
    for bad in (
        f"../one/{ref.ref}",
        f"one/{ref.ref}",
        f"s3://{bucket}/one/{ref.ref}",  # another prefix than the store's
        f"s3://{bucket}/two/../one/{ref.ref}",
        "notes.txt",
        f"{ref.ref}/x",
    ):
        with pytest.raises(SpillError):
            other.open_ref(bad)
    with pytest.raises(SpillError, match="no such spilled file"):
        other.open_ref(ref.ref)  # the same name under another prefix is not there
    assert other.find_id(ref.ref.split("-")[1][:16]) == ref.ref.split("-")[1][:16]
    with store.open_ref(f"s3://{bucket}/one/{ref.ref}") as handle:
        assert handle.read() == b"hello\n" * 3000
    spaces = store.namespace("server-a")
    inner = spaces.write_text("inside\n", kind="run", suffix=".log")
    assert f"one/namespaces/server-a/{inner.ref}" in s3.keys(bucket)
    assert [f.name for f in store.files()] == [ref.ref, ref.ref + ".idx"]
    with pytest.raises(SpillError):
        store.open_ref(inner.ref)


def test_names_are_random_and_unguessable(s3: Any, bucket: str) -> None:
    store = SpillStore.at(f"s3://{bucket}/p")
    names = {store.write_text("same\n", kind="run").ref for _ in range(3)}
    assert len(names) == 3  # the name is needed before the first byte goes out


# -- publication ----------------------------------------------------------------------------


def test_a_partial_object_is_never_visible(s3: Any, bucket: str) -> None:
    store = SpillStore.at(f"s3://{bucket}/p")
    chunk = _lines(10_000, 100)  # 1 MB
    writer = store.open(kind="run", suffix=".log")
    for _ in range(3 * PART // len(chunk)):
        writer.write(chunk)
    writer.flush()
    deadline = time.monotonic() + 30
    while not s3.client.list_multipart_uploads(Bucket=bucket).get("Uploads"):
        assert time.monotonic() < deadline, "no part was uploaded while the output arrived"
        time.sleep(0.05)
    assert s3.keys(bucket) == []  # parts are up, nothing is visible
    ref = writer.commit()
    assert s3.keys(bucket) == [f"p/{ref.ref}", f"p/{ref.ref}.idx"]
    assert len(s3.body(bucket, f"p/{ref.ref}")) == ref.size

    abandoned = store.open(kind="run", suffix=".log")
    for _ in range(2 * PART // len(chunk)):
        abandoned.write(chunk)
    abandoned.flush()
    abandoned.abort()
    deadline = time.monotonic() + 30
    while s3.client.list_multipart_uploads(Bucket=bucket).get("Uploads"):
        assert time.monotonic() < deadline, "the abandoned upload was not aborted"
        time.sleep(0.05)
    assert s3.keys(bucket) == [f"p/{ref.ref}", f"p/{ref.ref}.idx"]


# -- clean ----------------------------------------------------------------------------------


def test_clean_removes_only_agentouts_old_objects(s3: Any, bucket: str, tmp_path: Path) -> None:
    store = SpillStore.at(f"s3://{bucket}/p")
    ref = store.write_text("old\n" * 5000, kind="run", suffix=".log")
    store.namespace("srv").write_text("theirs\n" * 5000, kind="run")
    s3.client.put_object(Bucket=bucket, Key="p/README.txt", Body=b"keep")
    s3.client.put_object(Bucket=bucket, Key="p/run-0123456789abcdef.log.bak", Body=b"keep")
    s3.client.put_object(Bucket=bucket, Key="elsewhere/run-0123456789abcdef.log", Body=b"k")
    env = _env(s3, tmp_path / "home", f"s3://{bucket}/p")
    kept = _agentout("clean", "--older-than", "1h", env=env)
    assert kept.stdout.splitlines() == [f"0 files, freed 0 bytes in s3://{bucket}/p"]
    dry = _agentout("clean", "--older-than", "0", "--dry-run", env=env)
    assert f"would remove {ref.ref} {ref.size}" in dry.stdout
    done = _agentout("clean", "--older-than", "0", env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].startswith("2 files, freed ")
    left = s3.keys(bucket)
    assert f"p/{ref.ref}" not in left
    assert f"p/{ref.ref}.idx" not in left
    assert "p/README.txt" in left
    assert "p/run-0123456789abcdef.log.bak" in left
    assert "elsewhere/run-0123456789abcdef.log" in left
    assert any(k.startswith("p/namespaces/srv/run-") for k in left)


# -- an unreachable store -------------------------------------------------------------------


def test_unreachable_store_keeps_output_local(tmp_path: Path, closed_port: int) -> None:
    data = _lines(20_000)
    source = tmp_path / "output.txt"
    source.write_bytes(data)
    env = without_agentout_settings()
    env.update(
        HOME=str(tmp_path / "home"),
        XDG_CACHE_HOME=str(tmp_path / "home" / ".cache"),
        AGENTOUT_STORE="s3://team/agents",
        AGENTOUT_LEDGER="0",
        AWS_ACCESS_KEY_ID="testing",
        AWS_SECRET_ACCESS_KEY="testing",
        AWS_DEFAULT_REGION="us-east-1",
        AWS_ENDPOINT_URL_S3=f"http://127.0.0.1:{closed_port}",
    )
    start = time.monotonic()
    ran = _agentout("run", "--", "cat", str(source), env=env)
    assert time.monotonic() - start < 30
    assert ran.returncode == 0
    lines = ran.stderr.splitlines()
    assert len(lines) == 1, ran.stderr
    assert lines[0].startswith("agentout: store s3://team/agents unreachable (")
    assert str(tmp_path / "home" / ".cache" / "agentout" / "spill" / "remote") in lines[0]
    ref = _ref(ran.stdout)
    assert "00000001 x" in ran.stdout  # the agent still gets its output
    assert "lines=20000" in ran.stdout
    shown = _agentout("show", ref, "--lines", "1:", "--max-tokens", "10000000", env=env)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.rpartition("[agentout:")[0].encode() == data
    assert len(shown.stderr.splitlines()) == 1


def test_resolve_copies_another_machines_object_here(s3: Any, bucket: str, tmp_path: Path) -> None:
    one = SpillStore.at(f"s3://{bucket}/p")
    data = _lines(30_000)
    with one.open(kind="records", suffix=".jsonl") as writer:
        writer.write(data)
        ref = writer.commit()
    other = SpillStore(tmp_path / "other-machine", one.remote_address)
    path = other.resolve(ref.ref)  # a tool that reads the file whole, on another replica
    assert path.parent == tmp_path / "other-machine"
    assert path.read_bytes() == data
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    assert [p.name for p in (tmp_path / "other-machine").iterdir()] == [ref.ref]
    with pytest.raises(SpillError, match="no such spilled file"):
        other.resolve("run-0123456789abcdef.log")


# -- a long-lived server's uploader ---------------------------------------------------------


@pytest.fixture
def one_uploader() -> Any:
    from agentout.store.upload import in_process

    uploads = in_process(True)
    yield uploads
    in_process(False)


def test_a_server_uploads_through_its_own_uploader(
    s3: Any, bucket: str, one_uploader: Any, tmp_path: Path
) -> None:
    """No process per spill: each commit queues the file to the process's uploader and
    returns once the object and its index are in the store, small or multipart."""
    store = SpillStore.at(f"s3://{bucket}/srv").namespace("mcp-replica")
    small, large = _lines(3_000), _lines(int(2.5 * PART) // 60)
    refs = []
    for data in (small, large):
        with store.open(kind="run", suffix=".log") as writer:
            assert writer._upload is None  # no uploader process was started
            writer.write(data)
            refs.append(writer.commit())
    for ref, data in zip(refs, (small, large), strict=True):
        assert ref.url == f"s3://{bucket}/srv/namespaces/mcp-replica/{ref.ref}"
        assert s3.body(bucket, f"srv/namespaces/mcp-replica/{ref.ref}") == data
        assert f"srv/namespaces/mcp-replica/{ref.ref}.idx" in s3.keys(bucket)
    other = SpillStore(tmp_path / "other-replica", store.remote_address)
    shown = page(refs[1].ref, store=other, lines=LineRange(40_000, 40_000))
    assert "00040000 x" in shown.text
    assert not s3.client.list_multipart_uploads(Bucket=bucket).get("Uploads")


def test_many_spills_at_once_through_one_uploader_none_lost(
    s3: Any, bucket: str, one_uploader: Any
) -> None:
    """80 spills from 40 threads, more than the uploader queues: every one arrives."""
    from concurrent.futures import ThreadPoolExecutor

    store = SpillStore.at(f"s3://{bucket}/q")

    def spill(i: int) -> str:
        with store.open(kind="run", suffix=".log") as writer:
            writer.write(f"spill {i}\n".encode() * 2000)
            ref = writer.commit()
        assert ref.url is not None
        return ref.ref

    with ThreadPoolExecutor(40) as pool:
        names = list(pool.map(spill, range(80)))
    assert sorted(
        k.removeprefix("q/") for k in s3.keys(bucket, "q/") if not k.endswith(".idx")
    ) == sorted(names)
