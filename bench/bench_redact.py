"""Secret redaction on the command-output hot path: throughput against two peers.

Typical log text with no secret (the bundled build and test logs, and this repository's
own ``git log --stat``, repeated to 16 MB) goes through agentout's stream redactor in
64 KiB chunks, as ``agentout run`` feeds it. Peers, in the same run: a plain
``bytes.count(b"\\n")`` pass over the same bytes (the floor any scan pays), and
detect-secrets scanning line by line with the same plugins agentout reads its rules from
(``analyze_string`` of each, as its own scanner calls them). A second table does the same
on secret-dense text (``env`` output with planted tokens), and a third times what a
process pays before its first chunk: building the redactor from the cached rules.
"""

from __future__ import annotations

import random
import string
import subprocess
import sys
import time

from _common import CPU, ROOT, quick, race, ratio, rounds, seconds, table, verdict

MB = 1_000_000
CHUNK = 1 << 16
TARGET_MB_S = 200


def log_text(size: int) -> bytes:
    """Real logs and ``git log --stat``, repeated to ``size`` bytes."""
    parts = [path.read_bytes() for path in sorted((ROOT / "examples" / "logs").glob("*.log"))]
    git = subprocess.run(
        ["git", "log", "--stat", "-n", "400"], cwd=ROOT, capture_output=True, check=False
    )
    parts.append(git.stdout)
    unit = b"".join(parts)
    return (unit * (size // max(len(unit), 1) + 1))[:size]


def env_text(size: int, seed: int = 3) -> tuple[bytes, dict[str, str]]:
    """``env``-like output, one planted token in four lines."""
    rng = random.Random(seed)
    alnum = string.ascii_letters + string.digits
    env = {
        "GH_TOKEN": "ghp_" + "".join(rng.choice(alnum) for _ in range(36)),
        "DB_PASSWORD": "".join(rng.choice(alnum) for _ in range(16)),
    }
    lines = [
        f"GH_TOKEN={env['GH_TOKEN']}",
        "PATH=/usr/local/bin:/usr/bin:/bin",
        f"DB_PASSWORD={env['DB_PASSWORD']}",
        "HOME=/home/agent",
        "LANG=C.UTF-8",
        "AWS_ACCESS_KEY_ID=AKIA" + "".join(rng.choice(string.ascii_uppercase) for _ in range(16)),
        "TERM=xterm-256color",
        "SHLVL=1",
    ]
    unit = ("\n".join(lines) + "\n").encode()
    return (unit * (size // len(unit) + 1))[:size], env


def _stream(redactor: object, data: bytes) -> int:
    stream = redactor.stream()  # type: ignore[attr-defined]
    total = 0
    for i in range(0, len(data), CHUNK):
        total += len(stream.feed(data[i : i + CHUNK]))
    return total + len(stream.finish())


def _detect_secrets_plugins() -> list[object]:
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    from agentout.redact._rules import PLUGINS

    wanted = {*PLUGINS, "KeywordDetector", "PrivateKeyDetector"}
    classes = get_mapping_from_secret_type_to_class().values()
    return [cls() for cls in classes if cls.__name__ in wanted]


def _per_line(plugins: list[object], data: bytes) -> int:
    found = 0
    for line in data.decode("utf-8", "replace").splitlines():
        for plugin in plugins:
            found += sum(1 for _ in plugin.analyze_string(line))  # type: ignore[attr-defined]
    return found


def _throughput(name: str, data: bytes, redactor: object, n: int) -> tuple[list[object], float]:
    plugins = _detect_secrets_plugins()
    sample = data[: max(len(data) // 16, 1)]  # detect-secrets is timed on a slice
    timings = race(
        {
            "count": lambda: data.count(b"\n"),
            "agentout": lambda: _stream(redactor, data),
            "detect-secrets": lambda: _per_line(plugins, sample),
        },
        n,
        clock=CPU,
    )
    sizes = {"count": len(data), "agentout": len(data), "detect-secrets": len(sample)}
    mbs = {k: sizes[k] / t.median / MB for k, t in timings.items()}
    rows: list[object] = [
        [
            "`bytes.count(b'\\n')`",
            f"{sizes['count'] / MB:.1f} MB",
            seconds(timings["count"].median),
            f"{mbs['count']:,.0f}",
            "1.00×",
        ],
        [
            "agentout stream redactor, 64 KiB chunks",
            f"{sizes['agentout'] / MB:.1f} MB",
            seconds(timings["agentout"].median),
            f"{mbs['agentout']:,.0f}",
            ratio(mbs["count"] / mbs["agentout"]) + " slower",
        ],
        [
            "detect-secrets, line by line (same plugins)",
            f"{sizes['detect-secrets'] / MB:.1f} MB",
            seconds(timings["detect-secrets"].median),
            f"{mbs['detect-secrets']:,.2f}",
            ratio(mbs["count"] / mbs["detect-secrets"]) + " slower",
        ],
    ]
    return rows, mbs["agentout"] / mbs["detect-secrets"]


def _startup(n: int) -> list[list[object]]:
    from agentout.redact import Redactor
    from agentout.redact._rules import load_rules

    load_rules()  # the cache is written by the first process, read by every later one

    def build() -> None:
        redactor = Redactor.from_environ()
        redactor.redact_bytes(b"warm\n")

    samples = []
    for _ in range(n):
        start = time.perf_counter()
        build()
        samples.append(time.perf_counter() - start)
    samples.sort()
    code = "import agentout.redact"
    imports = []
    for _ in range(n):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        imports.append(time.perf_counter() - start)
    base = []
    for _ in range(n):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        base.append(time.perf_counter() - start)
    imports.sort()
    base.sort()
    return [
        [
            "build the redactor (cached rules, RE2 compile) and redact one line",
            seconds(samples[n // 2]),
        ],
        [
            "`import agentout.redact` in a fresh process, beyond `python -c pass`",
            seconds(max(imports[n // 2] - base[n // 2], 0.0)),
        ],
    ]


def main() -> str:
    from agentout.redact import Redactor

    size = 2 * MB if quick() else 16 * MB
    n = rounds(5, 2)
    logs = log_text(size)
    plain = Redactor.from_environ({})
    rows, speedup = _throughput("logs", logs, plain, n)
    agentout_mbs = float(str(rows[1][3]).replace(",", ""))
    ok = agentout_mbs >= TARGET_MB_S
    dense, env = env_text(size // 4)
    dense_rows, _ = _throughput("env", dense, Redactor.from_environ(env), n)
    headers = ["scan", "input", "median CPU time", "MB/s", "against the count"]
    lines = [
        "## Secret redaction (bench_redact.py)",
        "",
        __doc__.split("\n\n", 1)[1].strip() if __doc__ else "",
        "",
        f"**Typical log text, no secret** ({verdict(ok)}: target ≥ {TARGET_MB_S} MB/s; "
        f"agentout is {ratio(speedup)} faster than detect-secrets line by line):",
        "",
        table(headers, rows),
        "",
        "**Secret-dense text** (`env` output, a secret every other line; every hit line is "
        "checked by the exact rules):",
        "",
        table(headers, dense_rows),
        "",
        "**Before the first chunk** (wall time, median):",
        "",
        table(["step", "time"], _startup(n)),
    ]
    return "\n".join(lines)
