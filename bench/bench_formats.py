"""Format sizes: exact o200k_base tokens of every format on the same data sets.

The peers are plain ``json.dumps`` renderings, pretty (indent=2) and compact. The
agentout columns are real outputs: the data read by the source ``agentout fit`` uses
(``agentout.read.data``), then ``pack(result, format=...)`` with no budget, header
line included: what ``agentout fit`` prints when everything fits.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import agentout
from _common import ROOT, SHARED_DATA, quick, table, verdict
from agentout import pack
from agentout.formats import Format
from agentout.formats.toon import TAB_FORMAT
from agentout.read.data import data_records

TOKENIZER = "o200k_base"
GITHUB_REPOS = "github-repos.json"
_SCALARS = (str, int, float, bool)


def flat_rows(n: int, seed: int = 17) -> list[dict[str, Any]]:
    """A uniform table: the same scalar fields in every row."""
    rng = random.Random(seed)
    products = ("lamp", "desk", "chair", "shelf", "rug", "kettle", "mug", "clock")
    return [
        {
            "sku": f"SKU-{10000 + i}",
            "product": f"{rng.choice(products)} {rng.choice(('mini', 'pro', 'max', 'lite'))}",
            "price": round(rng.uniform(3, 400), 2),
            "stock": rng.randint(0, 500),
            "active": rng.random() < 0.8,
            "warehouse": rng.choice(("AMS-1", "FRA-2", "IAD-1", "NRT-3")),
        }
        for i in range(n)
    ]


def nested_objects(n: int, seed: int = 23) -> list[dict[str, Any]]:
    """Records with nested objects and lists, as an API would return them."""
    rng = random.Random(seed)
    return [
        {
            "id": i,
            "user": {"login": f"user{rng.randint(1, 500)}", "site_admin": rng.random() < 0.05},
            "labels": rng.sample(["bug", "docs", "perf", "ui", "infra", "good first issue"], 2),
            "milestone": {"title": f"v{rng.randint(1, 4)}.{rng.randint(0, 9)}", "open": True},
            "comments": rng.randint(0, 40),
            "title": f"Crash when {rng.choice(('saving', 'loading', 'exporting'))} file #{i}",
        }
        for i in range(n)
    ]


@dataclass(frozen=True)
class DataSet:
    """One data set: its items (for the json.dumps peers) and its text (for the source)."""

    items: list[Any]
    text: str


def _from_file(path: Path) -> DataSet:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        return DataSet([json.loads(line) for line in text.splitlines() if line.strip()], text)
    return DataSet(json.loads(text), text)


def datasets() -> dict[str, DataSet]:
    """Name -> data: the bundled JSON/JSONL examples, github-repos.json, two generated."""
    found: dict[str, DataSet] = {}
    paths = sorted((ROOT / "examples" / "data").glob("*.json*"))
    paths.append(SHARED_DATA / GITHUB_REPOS)
    for path in paths:
        if path.is_file():
            found[path.name] = _from_file(path)
    n = 50 if quick() else 300
    for name, items in ((f"flat rows ({n})", flat_rows(n)), (f"nested ({n})", nested_objects(n))):
        found[f"generated: {name}"] = DataSet(items, json.dumps(items, ensure_ascii=False))
    return found


def is_flat(rows: list[Any]) -> bool:
    """Every row an object with the same keys and non-empty scalar values (CSV as is)."""
    if not rows or not all(isinstance(row, dict) for row in rows):
        return False
    keys = set(rows[0])
    return all(
        set(row) == keys and all(isinstance(v, _SCALARS) and v != "" for v in row.values())
        for row in rows
    )


@dataclass(frozen=True)
class Sizes:
    """Exact token counts of one data set in every format."""

    items: int
    pretty: int
    compact: int
    packed: dict[str, int]
    auto: int
    auto_choice: str
    flat: bool

    def lossless(self) -> dict[str, int]:
        """auto's candidates: the issue's (compact JSON, TOON ×2, CSV if flat) and records."""
        names = ("json", "toon", "toon-tab", *(("csv",) if self.flat else ()), "records")
        return {name: self.packed[name] for name in names}


def measure(name: str, data: DataSet) -> Sizes:
    rows = data.items
    result = data_records([data.text], name)
    formats: dict[str, str | Format] = {
        "records": "records",
        "json": "json",
        "toon": "toon",
        "toon-tab": TAB_FORMAT,
        "csv": "csv",
    }
    packed = {}
    for key, fmt in formats.items():
        out = pack(result, format=fmt, tokenizer=TOKENIZER)
        packed[key] = agentout.count(out.text, TOKENIZER)
    auto = pack(result, format="auto", tokenizer=TOKENIZER)
    return Sizes(
        items=len(rows),
        pretty=agentout.count(json.dumps(rows, indent=2, ensure_ascii=False), TOKENIZER),
        compact=agentout.count(
            json.dumps(rows, separators=(",", ":"), ensure_ascii=False), TOKENIZER
        ),
        packed=packed,
        auto=agentout.count(auto.text, TOKENIZER),
        auto_choice=auto.format,
        flat=is_flat(rows),
    )


def _below(size: int, pretty: int) -> str:
    return f"{(pretty - size) / pretty:.0%}"


def main() -> str:
    rows: list[list[object]] = []
    checks: list[str] = []
    all_ok = True
    sets = datasets()
    for name, data in sets.items():
        s = measure(name, data)
        smallest = min(s.lossless().values())
        ok = s.auto <= smallest
        all_ok &= ok
        csv = s.packed["csv"] if s.flat else "not flat"
        rows.append(
            [
                f"`{name}`" if not name.startswith("generated") else name,
                s.items,
                s.pretty,
                s.compact,
                s.packed["records"],
                s.packed["toon"],
                s.packed["toon-tab"],
                csv,
                f"{s.auto:,} ({s.auto_choice})",
                _below(s.auto, s.pretty),
                "yes" if ok else "**NO**",
            ]
        )
        if name == GITHUB_REPOS:
            repo_ok = s.auto <= min(s.packed["toon"], s.packed["toon-tab"])
            repo_ok &= not s.flat or s.auto <= s.packed["csv"]
            below = (s.pretty - s.auto) / s.pretty
            checks.append(
                f"**`{GITHUB_REPOS}`: auto {s.auto:,} ≤ CSV/TOON "
                f"({csv if isinstance(csv, str) else f'{csv:,}'} / {s.packed['toon']:,}): "
                f"{verdict(repo_ok)}; {below:.1%} below pretty JSON ({s.pretty:,}), "
                f"needs ≥ 40%: {verdict(below >= 0.40)}**"
            )
    if GITHUB_REPOS not in sets:
        checks.append(f"**`{GITHUB_REPOS}` not found at {SHARED_DATA}: FAIL**")
    headers = ["data set", "items", "pretty JSON", "compact JSON", "records fmt", "TOON (comma)"]
    headers += ["TOON (tab)", "CSV", "auto (choice)", "auto below pretty", "auto ≤ smallest"]
    return "\n\n".join(
        [
            "## Format sizes",
            f"Exact {TOKENIZER} tokens of each data set (a JSON array; a JSONL file's "
            "lines) in each format. Pretty and compact JSON are `json.dumps(items, "
            "indent=2)` and `json.dumps(items, separators=(',', ':'))` (both with "
            "`ensure_ascii=False`); the other columns are agentout's real output, "
            "the items read by `agentout fit`'s source, then `pack(result, format=...)` "
            "with no budget, header line included. CSV only where the items are flat and "
            "uniform.",
            table(headers, rows),
            f"**auto ≤ the smallest lossless candidate (compact JSON, TOON comma/tab, CSV "
            f"where flat, records) on every data set: {verdict(all_ok)}**",
            *checks,
        ]
    )


if __name__ == "__main__":
    print(main())
