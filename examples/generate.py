"""Write the bundled example data sets in examples/data/, the same bytes on every run.

    python examples/generate.py

The data is synthetic but shaped like the real thing: an incident tracker's JSON export
(nested objects, long free text), a web service's log (with multi-line tracebacks) and
a product analytics event stream (JSONL). The demo, the tests and the benchmarks run on
these files; regenerate them only on purpose, since tests and docs quote their numbers.
``data/search.json`` (an API response holding one array) and ``bad/`` (one file per kind
of bad input that docs/cli/fit.md shows) are small and written by hand.
"""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta, timezone
from pathlib import Path

OUT = Path(__file__).parent / "data"
START = datetime(2025, 3, 3, 8, 0, 0, tzinfo=timezone.utc)

SERVICES = ["checkout-api", "search", "auth", "billing-worker", "inventory", "web-frontend"]
TEAMS = {
    "checkout-api": "payments",
    "billing-worker": "payments",
    "search": "discovery",
    "inventory": "supply",
    "auth": "identity",
    "web-frontend": "web",
}
PEOPLE = [
    "Amara Okafor",
    "Lukas Brandt",
    "Mei Tanaka",
    "Diego Fernández",
    "Priya Raman",
    "Tomasz Wójcik",
    "Sofia Lindqvist",
    "Jamal Carter",
]
# (title, tags, numbers the title's {n} is drawn from)
SYMPTOMS = [
    ("p99 latency above {n}ms", ["latency"], [800, 1500, 2000, 5000]),
    ("error rate at {n}% for POST requests", ["errors"], [2, 5, 12, 30]),
    ("connection pool exhausted on primary database", ["database", "saturation"], [0]),
    ("pods restarting in a crash loop after deploy", ["deploy", "kubernetes"], [0]),
    ("stale results served from cache for {n} minutes", ["cache", "correctness"], [5, 20, 45]),
    ("TLS certificate expiring in {n} days", ["certificates"], [2, 5, 7, 14]),
    ("queue backlog above {n}k messages", ["queue", "saturation"], [50, 120, 400]),
    ("memory usage climbing until OOM kill", ["memory", "kubernetes"], [0]),
]
CAUSES = [
    "A missing index on orders.customer_id turned a lookup into a sequential scan once the "
    "table passed 40 million rows.",
    "The new release raised the HTTP client timeout to 30s, so slow upstream calls held "
    "worker threads and the pool ran dry.",
    "A feature flag enabled an N+1 query path for customers with more than 200 saved items.",
    "The cache key omitted the locale, so responses for one region were served to another.",
    "A cron job rotated credentials but the sidecar only reloads them on restart.",
    "Autoscaling was capped at 12 replicas after a cost review and traffic grew past it.",
    "A dependency upgrade changed the default JSON encoder and dates lost their timezone.",
    "Retry storms from a mobile client release multiplied traffic by four during a blip.",
]
FIXES = [
    "Added the index concurrently and backfilled statistics.",
    "Rolled back the release, then shipped the timeout change behind a flag.",
    "Disabled the flag and added a query-count budget to the integration tests.",
    "Included the locale in the cache key and purged the affected entries.",
    "Made the sidecar watch the secret and reload without a restart.",
    "Raised the replica cap and added an alert at 80% of it.",
    "Pinned the encoder settings and added a round-trip test for timestamps.",
    "Added jittered exponential backoff to the client and a server-side rate limit.",
]
EVENTS = [
    "alert fired",
    "on-call acknowledged",
    "incident declared",
    "mitigation applied",
    "customer comms posted",
    "metrics back to baseline",
    "resolved",
]


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def incidents(rng: random.Random, n: int = 160) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for i in range(n):
        service = rng.choice(SERVICES)
        pattern, tags, numbers = rng.choice(SYMPTOMS)
        cause = rng.randrange(len(CAUSES))
        opened = START + timedelta(minutes=rng.randrange(0, 60 * 24 * 90))
        severity = rng.choices(["sev1", "sev2", "sev3", "sev4"], weights=[1, 3, 6, 4])[0]
        status = "open" if i >= n - 9 else rng.choice(["resolved", "resolved", "monitoring"])
        steps = []
        at = opened
        for event in EVENTS[: rng.randint(3, len(EVENTS)) if status != "open" else 3]:
            steps.append({"at": _iso(at), "event": event})
            at += timedelta(minutes=rng.randint(2, 95))
        record: dict[str, object] = {
            "id": f"INC-{1000 + i}",
            "title": f"{service}: {pattern.format(n=rng.choice(numbers))}",
            "severity": severity,
            "status": status,
            "service": service,
            "opened_at": _iso(opened),
            "resolved_at": _iso(at) if status == "resolved" else None,
            "assignee": {"name": rng.choice(PEOPLE), "team": TEAMS[service]},
            "tags": sorted({*tags, rng.choice(["customer-facing", "internal", "regression"])}),
            "summary": f"{CAUSES[cause]} {FIXES[cause] if status != 'open' else ''}".strip(),
            "timeline": steps,
            "metrics": {
                "error_rate": round(rng.uniform(0, 0.2), 4),
                "p99_ms": rng.randrange(120, 9000),
                "affected_users": rng.randrange(0, 40000),
            },
        }
        out.append(record)
    return out


PATHS = ["/api/orders", "/api/orders/{id}", "/api/cart", "/api/search", "/login", "/healthz"]
TRACEBACK = """Traceback (most recent call last):
  File "/srv/app/handlers/orders.py", line 88, in create_order
    order = await repo.insert(payload)
  File "/srv/app/db/repo.py", line 141, in insert
    async with self.pool.acquire(timeout=self.timeout) as conn:
  File "/srv/venv/lib/python3.12/site-packages/asyncpg/pool.py", line 1024, in __aenter__
    self.connection = await self.pool._acquire(self.timeout)
asyncio.exceptions.TimeoutError: pool acquire timed out after 5.0s"""


def app_log(rng: random.Random, n: int = 2400) -> str:
    lines: list[str] = []
    at = START
    for i in range(n):
        at += timedelta(milliseconds=rng.randrange(3, 900))
        stamp = at.strftime("%Y-%m-%d %H:%M:%S,") + f"{at.microsecond // 1000:03d}"
        req = f"{rng.getrandbits(48):012x}"
        roll = rng.random()
        trouble = 1400 <= i < 1520  # the incident window: the pool runs dry
        if trouble and roll < 0.25:
            lines.append(f"{stamp} ERROR [orders] request failed req_id={req}")
            lines.extend(TRACEBACK.splitlines())
        elif (trouble and roll < 0.5) or roll < 0.03:
            wait = rng.randrange(800, 5000) if trouble else rng.randrange(200, 900)
            lines.append(
                f"{stamp} WARN  [db] slow pool acquire wait_ms={wait} in_use=20/20 req_id={req}"
            )
        elif roll < 0.05:
            lines.append(f"{stamp} DEBUG [cache] miss key=cart:{rng.randrange(10**6)} ttl=300")
        else:
            path = rng.choice(PATHS).format(id=rng.randrange(10**5, 10**6))
            method = "POST" if path in ("/api/orders", "/login") and rng.random() < 0.6 else "GET"
            status = rng.choices([200, 201, 204, 304, 404, 500], weights=[80, 6, 3, 5, 4, 2])[0]
            ms = rng.randrange(2, 60) if not trouble else rng.randrange(300, 5200)
            lines.append(
                f"{stamp} INFO  [http] {method} {path} {status} {ms}ms req_id={req} ua=Mozilla/5.0"
            )
    return "\n".join(lines) + "\n"


PAGES = ["/", "/search", "/product/{id}", "/cart", "/checkout", "/account"]


def events(rng: random.Random, n: int = 2000) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    at = START
    users = [f"u_{rng.getrandbits(32):08x}" for _ in range(120)]
    for _ in range(n):
        at += timedelta(seconds=rng.randrange(1, 40))
        user = rng.choice(users)
        kind = rng.choices(
            ["page_view", "search", "add_to_cart", "checkout_started", "purchase", "error"],
            weights=[50, 20, 12, 6, 4, 2],
        )[0]
        props: dict[str, object]
        if kind == "page_view":
            props = {"path": rng.choice(PAGES).format(id=rng.randrange(1000, 9999))}
        elif kind == "search":
            props = {
                "query": rng.choice(["usb-c hub", "standing desk", "noise cancelling", "kettle"]),
                "results": rng.randrange(0, 480),
            }
        elif kind in ("add_to_cart", "purchase"):
            items = [
                {"sku": f"SKU-{rng.randrange(10000, 99999)}", "qty": rng.randint(1, 3)}
                for _ in range(rng.randint(1, 3))
            ]
            props = {"items": items, "total_eur": round(rng.uniform(9, 480), 2)}
        elif kind == "checkout_started":
            props = {"cart_size": rng.randint(1, 7), "coupon": rng.choice([None, "SPRING10"])}
        else:
            props = {"message": "payment provider timeout", "code": "PSP_TIMEOUT"}
        out.append(
            {
                "ts": at.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "type": kind,
                "user": user,
                "session": f"s_{rng.getrandbits(24):06x}",
                "device": rng.choice(["ios", "android", "web", "web"]),
                "props": props,
            }
        )
    return out


def main() -> None:
    rng = random.Random(20250303)
    OUT.mkdir(exist_ok=True)
    text = json.dumps(incidents(rng), indent=2, ensure_ascii=False) + "\n"
    (OUT / "incidents.json").write_text(text, encoding="utf-8")
    (OUT / "app.log").write_text(app_log(rng), encoding="utf-8")
    rows = (json.dumps(e, ensure_ascii=False, separators=(",", ":")) for e in events(rng))
    (OUT / "events.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
