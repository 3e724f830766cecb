"""A real S3 for the remote store's tests: moto's server on a loopback port.

Started once per module by a fixture and stopped after it; the tests reach it the way
agentout reaches any S3, through the standard environment (``AWS_ENDPOINT_URL_S3`` and
credentials), never through mocks of boto or fsspec.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest


@dataclass(frozen=True)
class S3:
    endpoint: str
    env: dict[str, str]  # what a process needs to reach it
    client: Any  # boto3's S3 client: the tests' own view of the bucket

    def keys(self, bucket: str, prefix: str = "") -> list[str]:
        found = self.client.list_objects_v2(Bucket=bucket, Prefix=prefix).get("Contents", [])
        return sorted(item["Key"] for item in found)

    def body(self, bucket: str, key: str) -> bytes:
        data: bytes = self.client.get_object(Bucket=bucket, Key=key)["Body"].read()
        return data


@pytest.fixture(scope="module")
def s3_server() -> Iterator[S3]:
    server_module = pytest.importorskip(
        "moto.server", reason="moto[server] is not installed: pip install 'moto[server]'"
    )
    server = server_module.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    env = {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ENDPOINT_URL_S3": endpoint,
    }
    saved = {name: os.environ.get(name) for name in env}
    os.environ.update(env)  # fsspec caches filesystems: one endpoint for the module
    import boto3

    client = boto3.client("s3")
    try:
        yield S3(endpoint, env, client)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        server.stop()


_buckets = iter(range(1_000_000))


@pytest.fixture
def s3(s3_server: S3, monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> S3:
    """The server, with a fresh local spill dir for this test."""
    monkeypatch.setenv("AGENTOUT_SPILL_DIR", str(tmp_path / "spill"))
    monkeypatch.delenv("AGENTOUT_STORE", raising=False)
    return s3_server


@pytest.fixture
def bucket(s3: S3) -> str:
    name = f"team-{next(_buckets)}"
    s3.client.create_bucket(Bucket=name)
    return name


@pytest.fixture
def closed_port() -> int:
    """A loopback port nothing listens on: connecting is refused at once."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port
