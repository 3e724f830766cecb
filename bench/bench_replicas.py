"""Two MCP replicas sharing S3 beside two sharing a local store, in the same run.

The load is the replicas section of ``bench_mcp``: ``agentout serve --http 0 --stateless
--allow-commands seq`` twice over the same roots, and from a pool of threads, pairs of
``tools/call`` requests: ``run_command seq 1 N`` through one replica (its output kept
whole in the store), then ``read_output`` of one line of that very file through the
other. Once over a local store both replicas share (``AGENTOUT_SPILL_DIR``), once over
``AGENTOUT_STORE=s3://…`` (moto's server on loopback, a process of its own), each
replica then with a local directory of its own, so the other replica's file can only
come from S3. Rounds alternate which store goes first; each store's best round counts.

Checked after each round, outside the timing: every call answered, every line read
back is the line asked for, and every kept file is byte for byte what ``seq`` printed
(read from the store the replicas wrote to). The target (issue 28): the S3 replicas
manage at least 1/4 of the calls per second of the local ones.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from _common import WALL, quick, ratio, rounds, seconds, table, verdict
from agentout.mcp.child import serve_http
from agentout.mcp.config import namespace_for
from agentout.mcp.guard import Roots
from agentout.store.spill import SpillStore
from bench_mcp import _tool

TARGET = 0.25  # S3 calls/s over local calls/s, at least
BUCKET = "replicas"
_MOTO = (
    "import sys, time\n"
    "from moto.server import ThreadedMotoServer\n"
    "server = ThreadedMotoServer(ip_address='127.0.0.1', port=0, verbose=False)\n"
    "server.start()\n"
    "print(server.get_host_and_port()[1], flush=True)\n"
    "sys.stdin.read()\n"  # until the benchmark closes our stdin
    "server.stop()\n"
)


def settings() -> tuple[int, int]:
    """(tools/call requests per round, concurrent workers)."""
    return (40, 4) if quick() else (200, 8)


def _pair(urls: list[str], pair: int) -> tuple[str, int]:
    """One spill through one replica, one line of it read through the other: (the
    reference, the number of lines seq printed); raises on any wrong answer."""
    first, second = urls[pair % 2], urls[(pair + 1) % 2]
    lines = 3000 + pair
    arguments = {
        "command": ["seq", "1", str(lines)],
        "inline_threshold_bytes": 0,
        "max_tokens": 300,
    }
    ran = _tool(first, 2 * pair, "run_command", arguments)
    spilled = ran.get("_meta", {}).get("agentout", {}).get("spilled", [])
    if len(spilled) != 1:
        raise RuntimeError(f"pair {pair}: {len(spilled)} files spilled")
    ref = spilled[0]["ref"]
    wanted = 1 + (pair * 7919) % lines
    paged = _tool(second, 2 * pair + 1, "read_output", {"ref": ref, "lines": f"{wanted}:{wanted}"})
    if str(wanted) not in paged["content"][0]["text"].splitlines():
        raise RuntimeError(f"pair {pair}: line {wanted} of {ref} not read back")
    return ref, lines


def _round(urls: list[str], total: int, workers: int) -> tuple[float, list[tuple[str, int]]]:
    start = WALL()
    with ThreadPoolExecutor(workers) as pool:
        done = list(pool.map(lambda p: _pair(urls, p), range(total // 2)))
    return WALL() - start, done


def _check(store: SpillStore, done: list[tuple[str, int]]) -> int:
    """How many kept files are not byte for byte what seq printed."""
    wrong = 0
    for ref, lines in done:
        expected = "".join(f"{n}\n" for n in range(1, lines + 1)).encode()
        with store.open_ref(ref) as handle:
            wrong += handle.read() != expected
    return wrong


def _moto(work: Path) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [sys.executable, "-c", _MOTO],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=work,
    )
    assert process.stdout is not None
    return process, f"http://127.0.0.1:{process.stdout.readline().strip()}"


def main() -> str:
    try:
        import moto.server
    except ImportError:
        return "## MCP replicas on S3\n\nSKIPPED: moto[server] is not installed."
    work = Path(tempfile.mkdtemp(prefix="agentout-bench-replicas-s3-"))
    moto, endpoint = _moto(work)
    try:
        return _measure(work, endpoint)
    finally:
        assert moto.stdin is not None
        moto.stdin.close()
        moto.wait(30)
        shutil.rmtree(work, ignore_errors=True)


def _measure(work: Path, endpoint: str) -> str:
    aws = {
        "AWS_ACCESS_KEY_ID": "bench",
        "AWS_SECRET_ACCESS_KEY": "bench",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ENDPOINT_URL_S3": endpoint,
    }
    os.environ.update(aws)
    import boto3

    boto3.client("s3").create_bucket(Bucket=BUCKET)
    total, workers = settings()
    base = {k: v for k, v in os.environ.items() if not k.startswith("AGENTOUT_")}
    base.update(aws, AGENTOUT_LEDGER="0", AGENTOUT_CACHE_DIR=str(work / "cache"))
    args = ["--root", str(work), "--stateless", "--allow-commands", "seq"]
    namespace = namespace_for(Roots.of([work]))
    local_env = {**base, "AGENTOUT_SPILL_DIR": str(work / "local")}
    url = f"s3://{BUCKET}/agents"
    s3_envs = [
        {**base, "AGENTOUT_STORE": url, "AGENTOUT_SPILL_DIR": str(work / f"copies-{i}")}
        for i in (1, 2)
    ]
    os.environ["AGENTOUT_SPILL_DIR"] = str(work / "checker")  # the checker's own copies
    stores = {
        "local store": SpillStore(work / "local").namespace(namespace),
        "S3 (moto)": SpillStore.at(url).namespace(namespace),
    }
    best: dict[str, float] = {}
    wrong = {name: 0 for name in stores}
    with (
        serve_http(args, local_env) as one,
        serve_http(args, local_env) as two,
        serve_http(args, s3_envs[0]) as three,
        serve_http(args, s3_envs[1]) as four,
    ):
        replicas = {"local store": [one, two], "S3 (moto)": [three, four]}
        for urls in replicas.values():
            _round(urls, 8, 4)  # warm-up: tokenizers loaded, S3 clients made
        for round_ in range(rounds(3, 1)):
            order = list(replicas) if round_ % 2 == 0 else list(reversed(replicas))
            for name in order:
                took, done = _round(replicas[name], total, workers)
                best[name] = min(best.get(name, took), took)
                wrong[name] += _check(stores[name], done)
    local_rate = total / best["local store"]
    s3_rate = total / best["S3 (moto)"]
    share = s3_rate / local_rate
    ok = share >= TARGET and not any(wrong.values())
    rows = [
        [name, seconds(best[name]), f"{total / best[name]:,.0f}", wrong[name]] for name in replicas
    ]
    return "\n\n".join(
        [
            "## MCP replicas on S3",
            f"Two `agentout serve --http 0 --stateless --allow-commands seq` replicas over one "
            f"store, {total:,} `tools/call` requests a round from {workers} threads: half "
            "`run_command seq 1 N` (the output kept whole) through one replica, each followed "
            "by `read_output` of one line of that file through the other. The same load over a "
            "local store both share, and over S3 (moto's server on loopback, its own process; "
            "each S3 replica keeps its copies in a directory of its own, so the other's file "
            "comes from S3), in alternating rounds; best round of "
            f"{rounds(3, 1)} each. A server sends its spills through one uploader in the "
            "process (`agentout.store.upload.Uploads`: a bounded queue, 4 threads, one client).",
            table(("store", f"{total:,} calls", "calls/s", "kept files not byte-exact"), rows),
            f"S3 calls/s / local calls/s: **{ratio(share)}** ({s3_rate:,.0f} against "
            f"{local_rate:,.0f}; must be at least {TARGET:.2f}×).",
            f"**Replicas on S3 at ≥ 1/4 of the local rate, every kept file byte-exact: "
            f"{verdict(ok)}**",
        ]
    )


if __name__ == "__main__":
    print(main())
