"""Check `agentout gain --html` in a real headless Chromium: it renders, shows the same
numbers as `gain --format json`, and asks the network for nothing.

Not part of `make test`: it needs Debian's `chromium` (`apt-get install -y chromium`).
Run it from the repository root:

    .venv/bin/python scripts/gain_html_check.py            # prints PASS/FAIL lines
    .venv/bin/python scripts/gain_html_check.py --keep DIR # keeps the page and screenshot

It fills a private ledger with real deliveries (`agentout fit` and `agentout run` on
generated data), writes the page, then starts Chromium headless with a fresh profile,
every background service off and every host name resolving nowhere: `--dump-dom` gives
the rendered DOM (the totals must be the JSON's), `--screenshot` a PNG that must not be
blank, and Chromium's network log must name no request beyond the page itself. Each
Chromium run is bounded by a timeout. Exit status 0 when all checks pass.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

AGENTOUT = [sys.executable, "-c", "from agentout.cli import main; main()"]
TIMEOUT = 60
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-default-apps",
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--no-pings",
    "--disable-domain-reliability",
    "--disable-client-side-phishing-detection",
    "--disable-features=OptimizationHints,MediaRouter,Translate,AutofillServerCommunication",
    "--window-size=1200,1400",
]


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    raise SystemExit("gain_html_check: no chromium found (apt-get install -y chromium)")


def agentout(*args: str, env: dict[str, str]) -> str:
    done = subprocess.run(
        [*AGENTOUT, *args], env=env, capture_output=True, text=True, check=False, timeout=120
    )
    if done.returncode not in (0, 1):
        raise SystemExit(f"agentout {' '.join(args)} failed: {done.stderr}")
    return done.stdout


def fill_ledger(base: Path, env: dict[str, str]) -> None:
    rows = base / "events.jsonl"
    rows.write_text(
        "".join(json.dumps({"id": i, "level": "info", "n": i}) + "\n" for i in range(3000))
    )
    agentout("fit", str(rows), "--max-tokens", "300", env=env)
    agentout("run", "--", sys.executable, "-c", "print('line\\n' * 20000)", env=env)
    agentout("run", "--", "git", "--version", env=env)


def browse(browser: str, page: Path, work: Path, *args: str) -> subprocess.CompletedProcess[str]:
    profile = work / f"profile-{len(list(work.glob('profile-*')))}"
    netlog = work / f"{profile.name}.netlog.json"
    command = [
        browser,
        *FLAGS,
        f"--user-data-dir={profile}",
        f"--log-net-log={netlog}",
        *args,
        page.as_uri(),
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT, check=False)


# Chromium's own background services (time, updates, accounts) that no flag turns off
# entirely; they resolve nowhere here. The page's own requests are everything else.
BROWSER_HOSTS = ("google.com", "googleapis.com", "gvt1.com", "gstatic.com")


def _browser_own(url: str) -> bool:
    host = re.sub(r"^[a-z]+://([^/:?#]+).*$", r"\1", url)
    return any(host == h or host.endswith("." + h) for h in BROWSER_HOSTS)


def requested_urls(work: Path) -> set[str]:
    urls: set[str] = set()
    for log in work.glob("*.netlog.json"):
        urls.update(re.findall(r'"url":"([^"]+)"', log.read_text(errors="replace")))
    return urls


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--keep", type=Path, help="copy the page and the screenshot here")
    options = parser.parse_args()
    browser = chromium()
    results: list[tuple[str, bool, str]] = []
    with tempfile.TemporaryDirectory(prefix="agentout-gain-") as scratch:
        work = Path(scratch)
        env = {**os.environ, "AGENTOUT_LEDGER_DB": str(work / "ledger" / "ledger.sqlite3")}
        env["AGENTOUT_SPILL_DIR"] = str(work / "spill")
        fill_ledger(work, env)
        page = work / "gain.html"
        totals = json.loads(agentout("gain", "--html", str(page), "--format", "json", env=env))
        total = totals["total"]
        dom = browse(browser, page, work, "--dump-dom", "--virtual-time-budget=3000")
        saved = re.search(r'<b id="saved">([\d,]+)</b>', dom.stdout)
        shown = int(saved.group(1).replace(",", "")) if saved else None
        results.append(("page renders", dom.returncode == 0 and "<svg" in dom.stdout, ""))
        results.append(
            ("saved tokens shown = gain --format json", shown == total["saved_tokens"],
             f"{shown} vs {total['saved_tokens']}")
        )  # fmt: skip
        delivered = re.search(r'<b id="delivered">([\d,]+)</b>', dom.stdout)
        said = delivered.group(1).replace(",", "") if delivered else "missing"
        results.append(
            ("delivered tokens shown = gain --format json",
             said == str(total["delivered_tokens"]), said)
        )  # fmt: skip
        shot = work / "gain.png"
        browse(browser, page, work, f"--screenshot={shot}")
        size = shot.stat().st_size if shot.exists() else 0
        results.append(("screenshot taken", size > 10_000, f"{size} bytes"))
        requested = requested_urls(work)
        others = sorted(u for u in requested if not u.startswith("file://") and not _browser_own(u))
        results.append(("no network request from the page", not others, ", ".join(others[:5])))
        html = page.read_text(encoding="utf-8")
        outside = re.findall(r"(?:https?:)?//[\w.-]+|<script|\bsrc=|@import|url\(", html)
        results.append(
            ("the page names nothing outside itself", not outside, ", ".join(outside[:5]))
        )
        if options.keep:
            options.keep.mkdir(parents=True, exist_ok=True)
            shutil.copy(page, options.keep / "gain.html")
            if shot.exists():
                shutil.copy(shot, options.keep / "gain.png")
    for name, ok, detail in results:
        print(f"{'PASS' if ok else 'FAIL'} {name}" + (f" ({detail})" if detail else ""))
    return 0 if all(ok for _, ok, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
