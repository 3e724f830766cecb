"""Token counting: exactness and throughput against tiktoken, and the early-stop check.

tiktoken is the peer: loaded offline from the data bpe-openai ships (see
tests/reference_tiktoken.py), in the same process, on the same text, timed in
interleaved rounds.
"""

from __future__ import annotations

import json
import random
import tempfile
from collections.abc import Callable
from typing import Any

import agentout
from _common import (
    CPU,
    ROOT,
    paired_ratio,
    quick,
    race,
    ratio,
    reference_encoding,
    rounds,
    seconds,
    table,
    verdict,
)
from agentout.tokens import MAX_TOKEN_BYTES

ENCODINGS = ("o200k_base", "cl100k_base")
MB = 1_000_000

_EXACT_HEADERS = ["sample", "chars", "o200k agentout", "o200k tiktoken", "cl100k agentout"]
_EXACT_HEADERS += ["cl100k tiktoken", "identical"]
_THROUGHPUT_HEADERS = ["encoding", "text", "size", "tokens", "agentout best", "tiktoken best"]
_THROUGHPUT_HEADERS += ["agentout MB/s", "ratio (best)", "ratio (median of rounds)"]
_EARLY_HEADERS = ["text", "chars", "full count", "limit", "count_until best", "full count best"]
_EARLY_HEADERS += ["speedup (best)", "speedup (median of rounds)"]

_PROSE = (
    "The committee met on Tuesday to review the budget, and after a long discussion it "
    "agreed that the new library would open in the spring. Nobody expected the vote to be "
    "unanimous; several members had argued, loudly and at length, that the money should go "
    "to the roads instead. In the end the children's reading room tipped the balance.",
    "It was the best of times, it was the worst of times, it was the age of wisdom, it was "
    "the age of foolishness... Isn't it strange? We'd thought we'll never see it; they've "
    'seen it twice. "Quotes", (parentheses), [brackets] and {braces} — em dashes, too.',
    "Measurements: 3.14159, 2,718.28, 1e-9, 0x1F, 42%, $19.99, 6'2\", 98.6°F, 10:45 p.m. "
    "Contact: jane.doe@example.com or https://example.org/path?q=1&r=two#frag.",
)
_CJK = (
    "東京は日本の首都であり、世界で最も人口の多い都市圏の一つです。春には桜が咲き、"
    "多くの人々が花見を楽しみます。",
    "机器学习是人工智能的一个分支，它使计算机能够在没有明确编程的情况下从数据中学习。",
    "서울은 대한민국의 수도이며 한강을 중심으로 발전한 도시입니다. 전통과 현대가 공존합니다.",
    "ひらがなとカタカナ、そして漢字が混ざった文章はトークナイザーにとって難しい。",
)
_ARABIC = (
    "اللغة العربية هي إحدى أكثر اللغات انتشاراً في العالم، ويتحدث بها أكثر من ٤٠٠ مليون شخص.",
    "مرحباً بكم في المكتبة العامة. تفتح أبوابها من الساعة التاسعة صباحاً حتى الخامسة مساءً.",
    "كُتِبَ هَذَا النَّصُّ بِالتَّشْكِيلِ الكَامِلِ لِاخْتِبَارِ الحَرَكَاتِ.",
)
_EMOJI = (
    "Ship it 🚀🚀🚀 — tests are green ✅, coverage 📈, but the build 🔥 is on fire. "
    "Family: 👨‍👩‍👧‍👦 couple: 👩‍❤️‍👨 flags: 🇯🇵🇫🇷🇧🇷🏳️‍🌈 skin tones: 👍🏻👍🏽👍🏿 keycaps: 1️⃣#️⃣ "
    "faces 😀😃😄😁😆😅🤣😂🙂🙃🫠😉😊😇 ",
)
_LEVELS = ("DEBUG", "INFO", "INFO", "INFO", "WARNING", "ERROR")
_PATHS = ("/api/v1/users", "/api/v1/orders/", "/static/app.js", "/healthz", "/login")
_MESSAGES = (
    "request completed",
    "cache miss for key user:{n}",
    "retrying connection to db-{n}.internal:5432 (attempt 2/5)",
    'Traceback (most recent call last):\n  File "/srv/app/views.py", line {n}, in handle\n'
    "    return self.dispatch(request)\nKeyError: 'session_id'",
    "slow query took {n} ms: SELECT * FROM orders WHERE customer_id = $1",
)


def _log_line(rng: random.Random, i: int) -> str:
    message = rng.choice(_MESSAGES).format(n=rng.randint(1, 9999))
    return (
        f"2025-03-{1 + i % 28:02d}T{i % 24:02d}:{i % 60:02d}:{(i * 7) % 60:02d}.{i % 1000:03d}Z "
        f"{rng.choice(_LEVELS):<7} [worker-{rng.randint(1, 8)}] "
        f"{rng.randint(1, 255)}.{rng.randint(0, 255)}.0.{rng.randint(1, 254)} "
        f"{rng.choice(('GET', 'POST', 'PUT'))} {rng.choice(_PATHS)}{rng.randint(1, 500)} "
        f"status={rng.choice((200, 200, 201, 304, 404, 500))} id={rng.getrandbits(64):016x} "
        f"{message}"
    )


def log_text(chars: int, seed: int = 7) -> str:
    """A realistic application log of about ``chars`` characters."""
    rng = random.Random(seed)
    lines: list[str] = []
    size = i = 0
    while size <= chars:
        lines.append(_log_line(rng, i))
        size += len(lines[-1]) + 1
        i += 1
    return "\n".join(lines)[:chars]


def short_lines_text(chars: int, seed: int = 11) -> str:
    """Many short lines (a word or two each), about ``chars`` characters."""
    rng = random.Random(seed)
    words = ("ok", "done", "x", "42", "fail", "a b", "-", "foo.py", "✓")
    lines: list[str] = []
    size = 0
    while size <= chars:
        lines.append(rng.choice(words))
        size += len(lines[-1]) + 1
    return "\n".join(lines)[:chars]


def _json_records(n: int, seed: int = 3) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    return [
        {
            "id": i,
            "name": f"item-{i}",
            "price": round(rng.uniform(0, 1000), 2),
            "tags": rng.sample(["red", "green", "blue", "sale", "new", "日本", "🔥"], 3),
            "owner": {"login": f"user{rng.randint(1, 99)}", "admin": rng.random() < 0.1},
            "note": None if i % 3 else 'needs "review"\tsoon\\',
        }
        for i in range(n)
    ]


def _random_unicode(chars: int, seed: int = 5) -> str:
    """Code points drawn from many scripts, combining marks and symbols included."""
    rng = random.Random(seed)
    blocks = (
        (0x20, 0x7E), (0xA0, 0x24F), (0x300, 0x36F), (0x370, 0x3FF), (0x400, 0x4FF),
        (0x590, 0x6FF), (0x900, 0x97F), (0xE00, 0xE7F), (0x3040, 0x30FF), (0x4E00, 0x9FFF),
        (0xAC00, 0xD7A3), (0x1F300, 0x1FAFF),
    )  # fmt: skip
    out = []
    for _ in range(chars):
        low, high = rng.choice(blocks)
        out.append(chr(rng.randint(low, high)))
        if rng.random() < 0.15:
            out.append(rng.choice(" \n\t"))
    return "".join(out)


def _source_code() -> str:
    files = sorted((ROOT / "src" / "agentout").rglob("*.py"))
    return "\n".join(path.read_text(encoding="utf-8") for path in files)


def _repeat(parts: tuple[str, ...], chars: int) -> str:
    text = "\n\n".join(parts)
    return ((text + "\n\n") * (chars // (len(text) + 2) + 1))[:chars]


def corpus(scale: float = 1.0) -> dict[str, str]:
    """The mixed exactness corpus: name -> text. ``scale`` shrinks it for smoke runs."""

    def size(n: int) -> int:
        return max(1, int(n * scale))

    rng = random.Random(1)
    b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    minified = json.dumps(_json_records(size(1200)), ensure_ascii=False, separators=(",", ":"))
    return {
        "prose (English)": _repeat(_PROSE, size(20_000)),
        "code (agentout's own source)": _source_code()[: size(400_000)],
        "JSON, pretty": json.dumps(_json_records(size(150)), ensure_ascii=False, indent=2),
        "logs": log_text(size(30_000)),
        "CJK (Chinese, Japanese, Korean)": _repeat(_CJK, size(10_000)),
        "Arabic (with diacritics)": _repeat(_ARABIC, size(10_000)),
        "emoji (ZWJ, flags, skin tones)": _repeat(_EMOJI, size(5_000)),
        "random Unicode, many scripts": _random_unicode(size(20_000)),
        "special-token text, as ordinary": "<|endoftext|> hi <|fim_prefix|><|im_start|>x" * 50,
        "whitespace runs": (" " * 37 + "\t\n" + "\n" * 5 + "  \r\n") * size(500),
        "long line: minified JSON": minified,
        "long line: base64": "".join(rng.choice(b64) for _ in range(size(150_000))),
        "long line: one letter repeated": "a" * size(100_000),
        "long line: digits": "".join(rng.choice("0123456789") for _ in range(size(100_000))),
        "empty": "",
    }


def exactness(samples: dict[str, str], cache_dir: str) -> tuple[list[list[object]], bool]:
    """Per-sample counts by agentout and tiktoken for both encodings; all identical?"""
    references = {name: reference_encoding(name, cache_dir) for name in ENCODINGS}
    rows: list[list[object]] = []
    identical = True
    for label, text in samples.items():
        row: list[object] = [label, len(text)]
        for name in ENCODINGS:
            ours = agentout.count(text, name)
            theirs = len(references[name].encode_ordinary(text))
            identical &= ours == theirs
            row += [ours, theirs]
        row.append("yes" if row[2] == row[3] and row[4] == row[5] else "**NO**")
        rows.append(row)
    return rows, identical


def mixed_text(target_bytes: int) -> str:
    """Realistic mixed output (no pathological runs) of ``target_bytes`` UTF-8 bytes or so."""
    parts = corpus(scale=0.25)
    keep = ("prose", "code", "JSON", "logs", "CJK", "Arabic", "emoji")
    text = "\n".join(t for k, t in parts.items() if k.startswith(keep))
    copies = target_bytes // len(text.encode("utf-8")) + 1
    out = ("\n" + text) * copies
    return out.encode("utf-8")[:target_bytes].decode("utf-8", errors="ignore")


def _throughput(cache_dir: str) -> tuple[str, bool]:
    n = rounds(11)
    size = MB // 10 if quick() else MB
    texts = {
        "mixed (prose, code, JSON, logs, CJK, Arabic, emoji)": mixed_text(size),
        "logs": log_text(size),
        "English prose": _repeat(_PROSE, size),
        "CJK": _repeat(_CJK, size // 3),
    }
    rows: list[list[object]] = []
    headline_ok = True
    for name in ENCODINGS:
        reference = reference_encoding(name, cache_dir)
        for label, text in texts.items():
            if name != ENCODINGS[0] and not label.startswith("mixed"):
                continue
            ours, theirs = agentout.count(text, name), len(reference.encode_ordinary(text))
            assert ours == theirs, f"{name} {label}: {ours} != {theirs}"
            timings = race(
                {
                    "agentout": _bind(agentout.count, text, name),
                    "tiktoken": _bind(reference.encode_ordinary, text),
                },
                n,
                clock=CPU,
            )
            a, t = timings["agentout"], timings["tiktoken"]
            best, median = t.best / a.best, paired_ratio(t, a)
            if label.startswith("mixed"):
                headline_ok &= best >= 1.5
            mb_s = len(text.encode("utf-8")) / MB / a.best
            size_mb = f"{len(text.encode('utf-8')) / MB:.2f} MB"
            rows.append(
                [
                    name,
                    label,
                    size_mb,
                    ours,
                    seconds(a.best),
                    seconds(t.best),
                    f"{mb_s:.0f} MB/s",
                    ratio(best),
                    ratio(median),
                ]
            )
    out = table(_THROUGHPUT_HEADERS, rows)
    return (
        out + f"\n\nCPU time, {n} interleaved rounds; each sample at least 50 ms (a call "
        "repeated). "
        "Ratio = tiktoken time / agentout time.",
        headline_ok,
    )


def _bind(fn: Callable[..., Any], *args: Any) -> Callable[[], Any]:
    return lambda: fn(*args)


def _early_stop() -> tuple[str, bool]:
    n = rounds(5)
    size = MB if quick() else 10 * MB
    limit = 500
    bound = limit * MAX_TOKEN_BYTES
    big = f"{size // MB} MB"
    log = log_text(size)
    required = [
        (f"{big} realistic log", log, limit),
        (f"{big} of short lines", short_lines_text(size), limit),
    ]
    # Texts the length bound lets through are counted until the limit is passed: one
    # just under the bound for 500 tokens, and a longer one that a larger limit admits.
    admitted = [
        (f"{bound - 4_000:,} chars of log", log_text(bound - 4_000), limit),
        ("600,000 chars of log", log_text(600_000), 5_000),
    ]
    ok = True
    tables = []
    for cases in (required, admitted):
        rows: list[list[object]] = []
        for label, text, lim in cases:
            full = agentout.count(text)
            assert full > lim, label
            assert agentout.count_until(text, lim) is None, label
            timings = race(
                {
                    "count_until": _bind(agentout.count_until, text, lim),
                    "count": _bind(agentout.count, text),
                },
                n,
                clock=CPU,
            )
            early, whole = timings["count_until"], timings["count"]
            speedup = whole.best / early.best
            if cases is required:
                ok &= speedup >= 100
            rows.append(
                [
                    label,
                    len(text),
                    full,
                    lim,
                    seconds(early.best),
                    seconds(whole.best),
                    ratio(speedup),
                    ratio(paired_ratio(whole, early)),
                ]
            )
        tables.append(table(_EARLY_HEADERS, rows))
    worst_text = admitted[0][1]
    timings = race(
        {
            "worst": _bind(agentout.count_until, worst_text, limit),
            "full": _bind(agentout.count, log),
        },
        n,
        clock=CPU,
    )
    worst, full_log = timings["worst"], timings["full"]
    text = (
        f"{tables[0]}\n\nA text longer than limit × {MAX_TOKEN_BYTES} characters cannot fit "
        f"(no token is longer than {MAX_TOKEN_BYTES} bytes), so the {big} texts above are "
        "decided by that bound without counting. The texts the bound lets through are "
        "counted, and counting stops once the limit is passed:\n\n"
        f"{tables[1]}\n\nSo count_until costs O(limit): whatever the text, at most "
        f"limit × {MAX_TOKEN_BYTES} characters are counted. The {len(worst_text):,}-char log "
        f"at limit {limit} took {seconds(worst.best)} against {seconds(full_log.best)} for "
        f"a full count of the {big} log in the same rounds: "
        f"{ratio(full_log.best / worst.best)} faster. CPU time, {n} interleaved rounds."
    )
    return text, ok


def main() -> str:
    with tempfile.TemporaryDirectory(prefix="agentout-bench-") as cache_dir:
        rows, identical = exactness(corpus(0.1 if quick() else 1.0), cache_dir)
        throughput, fast = _throughput(cache_dir)
    early, early_ok = _early_stop()
    exact_table = table(_EXACT_HEADERS, rows)
    return "\n\n".join(
        [
            "## Token counting",
            "### Exact counts against tiktoken",
            "`agentout.count(text, encoding)` against `len(enc.encode_ordinary(text))` of "
            "tiktoken, loaded offline from the data bpe-openai ships.",
            exact_table,
            f"**Identical for every sample, both encodings: {'yes' if identical else 'NO'}** "
            f"— {verdict(identical)}",
            "### Throughput against tiktoken `encode_ordinary`",
            "The same text, same process; must reach ≥ 1.5× on the mixed 1 MB text.",
            throughput,
            f"**agentout ≥ 1.5× tiktoken on the mixed 1 MB text (best of N), both encodings: "
            f"{verdict(fast)}**",
            "### Early stop: `count_until(text, limit)` against a full `count(text)`",
            early,
            f"**10 MB against 500 tokens ≥ 100× faster than a full count: {verdict(early_ok)}**",
        ]
    )


if __name__ == "__main__":
    print(main())
