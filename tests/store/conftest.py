"""A real S3 for the remote store's tests: moto's server on a loopback port.

Started once per module by a fixture and stopped after it; the tests reach it the way
agentout reaches any S3, through the standard environment (``AWS_ENDPOINT_URL_S3`` and
credentials), never through mocks of boto or fsspec.
"""

from __future__ import annotations

import contextlib
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


# -- peers that misbehave, for real, on loopback -----------------------------------------------


class Peer:
    """A TCP listener on 127.0.0.1 that misbehaves in one way (``kind``), each connection
    in a thread of its own; ``url`` is its endpoint, ``connections`` how many it took.

    - ``silent``: accepts and never answers (nor closes);
    - ``trickle``: answers an HTTP response one byte a second;
    - ``reset``: answers a 200 whose body stops short, then resets the connection.
    """

    def __init__(self, kind: str) -> None:
        import threading

        self.kind = kind
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.listener.settimeout(0.2)
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.connections = 0
        self.stopped = threading.Event()
        self.held: list[socket.socket] = []
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        import threading

        while not self.stopped.is_set():
            try:
                conn, _ = self.listener.accept()
            except OSError:
                continue
            self.connections += 1
            self.held.append(conn)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        import struct

        body = 1_000_000
        head = (
            f"HTTP/1.1 200 OK\r\nContent-Length: {body}\r\n"
            'Content-Type: application/octet-stream\r\nETag: "x"\r\n'
            "Last-Modified: Thu, 01 Jan 2026 00:00:00 GMT\r\n\r\n"
        ).encode()
        try:
            conn.settimeout(1.0)
            with contextlib.suppress(OSError):
                conn.recv(65536)  # the request (its head, at least)
            if self.kind == "silent":
                self.stopped.wait()
            elif self.kind == "trickle":
                for byte in head + b"x" * body:
                    if self.stopped.wait(1.0):
                        break
                    conn.sendall(bytes([byte]))
            elif self.kind == "reset":
                conn.sendall(head + b"x" * 1000)
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
        finally:
            conn.close()

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join(5)
        self.listener.close()
        for conn in self.held:
            with contextlib.suppress(OSError):
                conn.close()


@pytest.fixture
def peer(request: pytest.FixtureRequest) -> Iterator[Peer]:
    """A misbehaving peer of the kind the test is parametrized with (``indirect``)."""
    started = Peer(request.param)
    try:
        yield started
    finally:
        started.stop()
