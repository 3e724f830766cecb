"""The spill store on S3 (moto's server on loopback) beside the local store.

``agentout run -- cat FILE`` of a large log, once with the local store and once with
``AGENTOUT_STORE=s3://…``, in interleaved rounds, each in fresh processes: the whole
run's wall time, the peak RSS of each process agentout runs as (the agentout process
and its uploader, sampled from /proc), the object compared byte for byte with the file,
and the bytes ``show`` reads from the store for one page (the ranged reads, counted by
the store) beside the page's own bytes.

    .venv/bin/python bench/run.py --only store
    AGENTOUT_BENCH_STORE_MB=500 .venv/bin/python bench/run.py --only store
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import quick, ratio, rounds, seconds, table, verdict

MB = 1 << 20
SIZE_ENV = "AGENTOUT_BENCH_STORE_MB"
_LINE = "2026-11-24T00:00:{s:02d}Z INFO worker-{w} handled request id={i} status=200 in {ms} ms\n"


def write_log(path: Path, size: int) -> int:
    """A server log of ``size`` bytes (about), varied lines; the line count."""
    lines = 0
    written = 0
    with path.open("w") as out:
        while written < size:
            chunk = "".join(
                _LINE.format(s=i % 60, w=i % 7, i=i, ms=i % 997)
                for i in range(lines, lines + 10_000)
            )
            out.write(chunk)
            written += len(chunk)
            lines += 10_000
    return lines


def _tree(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        try:
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children") as handle:
                    todo.extend(int(p) for p in handle.read().split())
        except OSError:
            continue
    return found


def _peak(pid: int) -> tuple[str, int] | None:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            argv = handle.read().split(b"\0")
        with open(f"/proc/{pid}/status") as handle:
            status = handle.read()
    except OSError:
        return None
    if b"agentout.store.upload" in argv:
        kind = "uploader"
    elif any(part.endswith(b"agentout") for part in argv[:2]):
        kind = "agentout"
    else:
        return None  # the command itself (cat)
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return kind, int(line.split()[1]) * 1024
    return None


def run_once(env: dict[str, str], source: Path) -> dict[str, Any]:
    """One ``agentout run -- cat SOURCE``: wall time, peak RSS per process, its output."""
    agentout = str(Path(sys.executable).parent / "agentout")
    start = time.perf_counter()
    child = subprocess.Popen(
        [agentout, "run", "--", "cat", str(source)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    peaks: dict[str, int] = {}
    while child.poll() is None:
        for pid in _tree(child.pid):
            seen = _peak(pid)
            if seen is not None:
                peaks[seen[0]] = max(peaks.get(seen[0], 0), seen[1])
        time.sleep(0.02)
    elapsed = time.perf_counter() - start
    out, err = child.communicate()
    if child.returncode != 0 or err:
        raise RuntimeError(f"agentout run failed ({child.returncode}): {err.decode()[-500:]}")
    ref = out.decode().strip().rsplit("agentout show ", 1)[1].split()[0].rstrip("]")
    return {"seconds": elapsed, "peaks": peaks, "ref": ref}


_PUT = """
import sys, time, fsspec
fs = fsspec.filesystem("s3")
start = time.perf_counter()
with open(sys.argv[1], "rb") as f, fs.open(sys.argv[2], "wb", block_size=5 << 20) as out:
    while chunk := f.read(1 << 20):
        out.write(chunk)
print(time.perf_counter() - start)
"""


def moto_alone(env: dict[str, str], source: Path) -> float:
    """Seconds for s3fs alone to upload ``source`` to moto (in a fresh process, import
    and client set-up not counted): the floor any S3 spill of it stands on."""
    done = subprocess.run(
        [sys.executable, "-c", _PUT, str(source), "bench/floor/server.log"],
        env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return float(done.stdout)


def _sha(chunks: Any) -> str:
    digest = hashlib.sha256()
    for chunk in chunks:
        digest.update(chunk)
    return digest.hexdigest()


def main() -> str:
    try:
        from moto.server import ThreadedMotoServer
    except ImportError:
        return "## Spill store on S3\n\nSKIPPED: moto[server] is not installed."
    size = int(os.environ.get(SIZE_ENV, "20" if quick() else "200")) * MB
    work = Path(tempfile.mkdtemp(prefix="agentout-bench-store-"))
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        return _measure(server, work, size)
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)


def _measure(server: Any, work: Path, size: int) -> str:
    import logging

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    host, port = server.get_host_and_port()
    aws = {
        "AWS_ACCESS_KEY_ID": "bench",
        "AWS_SECRET_ACCESS_KEY": "bench",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ENDPOINT_URL_S3": f"http://{host}:{port}",
    }
    os.environ.update(aws)
    import boto3

    client = boto3.client("s3")
    client.create_bucket(Bucket="bench")
    source = work / "server.log"
    lines = write_log(source, size)
    real = source.stat().st_size
    base = {k: v for k, v in os.environ.items() if not k.startswith("AGENTOUT_")}
    base.update(aws, AGENTOUT_LEDGER="0", HOME=str(work / "home"))
    local_env = {**base, "AGENTOUT_SPILL_DIR": str(work / "local")}
    remote_env = {**base, "AGENTOUT_SPILL_DIR": str(work / "copies")}
    remote_env["AGENTOUT_STORE"] = "s3://bench/team/agents"
    local: list[dict[str, Any]] = []
    remote: list[dict[str, Any]] = []
    floor: list[float] = []
    for round_ in range(rounds(2, 1)):
        pair = [(local, local_env), (remote, remote_env)]
        for results, env in pair if round_ % 2 == 0 else reversed(pair):
            results.append(run_once(env, source))
            for leftover in (work / "local", work / "copies"):
                shutil.rmtree(leftover, ignore_errors=True)  # each run writes anew
        floor.append(moto_alone(base, source))
    best_floor = min(floor)
    best_local = min(r["seconds"] for r in local)
    best_remote = min(r["seconds"] for r in remote)
    slowdown = best_remote / best_local
    peak_main = max(r["peaks"].get("agentout", 0) for r in remote)
    peak_upload = max(r["peaks"].get("uploader", 0) for r in remote)
    peak_local = max(r["peaks"].get("agentout", 0) for r in local)

    # The object, byte for byte.
    ref = remote[-1]["ref"]
    keys = [o["Key"] for o in client.list_objects_v2(Bucket="bench")["Contents"]]
    key = next(k for k in keys if f"-{ref}." in k and not k.endswith(".idx"))
    body = client.get_object(Bucket="bench", Key=key)["Body"]
    with source.open("rb") as handle:
        exact = _sha(iter(lambda: body.read(MB), b"")) == _sha(iter(lambda: handle.read(MB), b""))

    # One page, as another machine reads it: count the ranged reads' bytes.
    from agentout.store.page import LineRange, page
    from agentout.store.spill import SpillStore

    os.environ["AGENTOUT_SPILL_DIR"] = str(work / "reader")
    name = key.rsplit("/", 1)[1]
    pages = []
    for label, span in (("first page", None), ("a page in the middle", LineRange(lines // 2))):
        store = SpillStore.at("s3://bench/team/agents")
        start = time.perf_counter()
        packed = page(name, store=store, lines=span)
        took = time.perf_counter() - start
        assert store.remote is not None
        shown = len(packed.text.encode("utf-8"))
        pages.append((label, shown, store.remote.fetched, took))
    page_ratio = max(fetched / shown for _, shown, fetched, _ in pages)

    ok = max(peak_main, peak_upload) < 100 * MB and slowdown <= 3 and exact and page_ratio <= 10
    rows = [
        ["local store", seconds(best_local), f"{peak_local / MB:.0f}", "-"],
        [
            "`AGENTOUT_STORE=s3://…` (moto)",
            seconds(best_remote),
            f"{peak_main / MB:.0f}",
            f"{peak_upload / MB:.0f}",
        ],
    ]
    page_rows = [
        [label, f"{shown:,}", f"{fetched:,}", f"{fetched / shown:.1f}×", seconds(took)]
        for label, shown, fetched, took in pages
    ]
    return "\n\n".join(
        [
            "## Spill store on S3",
            f"`agentout run -- cat server.log`: {real / MB:.0f} MB, {lines:,} lines (set "
            f"`{SIZE_ENV}` for another size), best of {len(local)} runs each, interleaved, "
            "every run in fresh processes; S3 is moto's server on loopback. Peak RSS is "
            "each process's high-water mark (VmHWM) sampled every 20 ms.",
            table(("store", "whole run", "agentout peak RSS (MB)", "uploader peak RSS (MB)"), rows),
            f"S3 run time / local run time: **{ratio(slowdown)}** (must be ≤ 3). "
            f"For scale, in the same rounds: s3fs alone uploads the file to this moto in "
            f"{seconds(best_floor)} ({real / MB / best_floor:.0f} MB/s), "
            f"{ratio(best_floor / best_local)} of the local run by itself; the S3 run takes "
            f"{ratio(best_remote / best_floor)} of that upload. "
            f"Largest process: **{max(peak_main, peak_upload) / MB:.0f} MB** (must be < 100). "
            f"Object byte-exact (SHA-256 of the object = of the file): **{exact}**.",
            "`show` of one page (default budget, 2000 tokens) from a fresh store, "
            "as another machine reads it; bytes read = every ranged read and the line index:",
            table(("page", "page bytes", "bytes read from S3", "read / page", "time"), page_rows),
            f"**Peak < 100 MB, ≤ 3× the local run, byte-exact, a page reads ≤ 10× its "
            f"bytes: {verdict(ok)}**",
        ]
    )


if __name__ == "__main__":
    print(main())
