"""What ``agentout gain`` shows: the ledger's rows summed, per command, per period, recent.

``Report.of(rows)`` sums exactly what the ledger holds: ``delivered`` is the sum of the
``tokens=`` of every delivery, ``raw`` the sum of the raw outputs' tokens where they
were known (``unknown`` counts the rest, whose saving is taken as 0), ``saved`` the
difference; ``shown`` the sum of what the agents' clients would have shown the model of
those outputs (``agentout.ledger.clients``: Claude Code's inline limit, its preview, its
failure cut; the whole output where a client's limit is not known), and ``shown_saved``
what was saved against that: the headline, since it is what the model would have read.
Renderings: ``as_json`` (every number), ``as_csv`` (one line per delivery,
counts only), ``as_html`` (one self-contained page: inline CSS and SVG, no script, no
network), and the terminal view in ``agentout.cli.gain``.
"""

from __future__ import annotations

import csv
import html
import io
import json
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agentout.ledger.book import Row

__all__ = ["PERIODS", "Report", "Totals", "command_key", "period_key"]

PERIODS = ("day", "week", "month")


def period_key(when: float, period: str) -> str:
    """The UTC day (2026-11-23), ISO week (2026-W48) or month (2026-11) of a time."""
    moment = time.gmtime(when)
    if period == "day":
        return time.strftime("%Y-%m-%d", moment)
    if period == "month":
        return time.strftime("%Y-%m", moment)
    import datetime

    year, week, _ = datetime.date(moment.tm_year, moment.tm_mon, moment.tm_mday).isocalendar()
    return f"{year}-W{week:02d}"


def command_key(row: Row) -> str:
    """What a row is grouped under: the tool, and for commands their first two words."""
    words = row.command.split()
    if words:
        words[0] = words[0].rsplit("/", 1)[-1]
    if row.tool in ("run", "hook") and words:
        return " ".join(words[:2] if len(words) > 1 and not words[1].startswith("-") else words[:1])
    return row.tool


@dataclass
class Totals:
    deliveries: int = 0
    raw: int = 0
    delivered: int = 0
    shown: int = 0  # what the agents' clients would have shown of the raw outputs
    unknown: int = 0  # deliveries whose raw output was not counted
    estimated: int = 0  # deliveries whose raw count was extrapolated from a prefix
    secrets: int = 0

    def add(self, row: Row) -> None:
        self.deliveries += 1
        self.delivered += row.delivered_tokens
        self.secrets += row.secrets
        if row.raw_tokens is None:
            self.unknown += 1
            self.raw += row.delivered_tokens
            self.shown += row.delivered_tokens
        else:
            self.raw += row.raw_tokens
            self.shown += row.raw_tokens if row.baseline is None else row.baseline
            self.estimated += not row.raw_exact

    @property
    def saved(self) -> int:
        return self.raw - self.delivered

    @property
    def percent(self) -> float:
        return _percent(self.saved, self.raw)

    @property
    def shown_saved(self) -> int:
        """Saved against what the clients would have shown (below 0 where agentout gave
        the model more than a client's preview or cut would have)."""
        return self.shown - self.delivered

    @property
    def shown_percent(self) -> float:
        return _percent(self.shown_saved, self.shown)

    def as_dict(self) -> dict[str, Any]:
        return {
            "deliveries": self.deliveries,
            "raw_tokens": self.raw,
            "delivered_tokens": self.delivered,
            "saved_tokens": self.saved,
            "saved_percent": self.percent,
            "raw_unknown": self.unknown,
            "raw_estimated": self.estimated,
            "secrets": self.secrets,
            "shown_tokens": self.shown,
            "shown_saved_tokens": self.shown_saved,
            "shown_saved_percent": self.shown_percent,
        }


def _percent(part: int, whole: int) -> float:
    return 0.0 if whole <= 0 else round(100 * part / whole, 1)


@dataclass
class Report:
    period: str
    total: Totals = field(default_factory=Totals)
    commands: dict[str, Totals] = field(default_factory=dict)
    periods: dict[str, Totals] = field(default_factory=dict)
    agents: dict[str, Totals] = field(default_factory=dict)  # "" for none known
    recent: list[Row] = field(default_factory=list)

    @classmethod
    def of(cls, rows: Iterable[Row], *, period: str = "day", recent: int = 10) -> Report:
        report = cls(period)
        kept: list[Row] = []
        for row in rows:
            report.total.add(row)
            report.commands.setdefault(command_key(row), Totals()).add(row)
            report.periods.setdefault(period_key(row.time, period), Totals()).add(row)
            report.agents.setdefault(row.agent, Totals()).add(row)
            kept.append(row)
            if len(kept) > recent:
                kept.pop(0)
        report.recent = kept[::-1]
        return report

    def top_commands(self, limit: int | None = None) -> list[tuple[str, Totals]]:
        """By tokens saved against what the clients would have shown, most first; ties by
        name (a deterministic order)."""
        ranked = sorted(self.commands.items(), key=lambda item: (-item[1].shown_saved, item[0]))
        return ranked if limit is None else ranked[:limit]

    # -- renderings ----------------------------------------------------------------------

    def as_json(self) -> str:
        data = {
            "total": self.total.as_dict(),
            "commands": [{"command": k, **v.as_dict()} for k, v in self.top_commands()],
            "period": self.period,
            "periods": [{self.period: k, **v.as_dict()} for k, v in sorted(self.periods.items())],
            "agents": [{"agent": k, **v.as_dict()} for k, v in sorted(self.agents.items())],
            "recent": [_row_dict(row) for row in self.recent],
        }
        return json.dumps(data, ensure_ascii=False, indent=2) + "\n"

    def as_html(self, title: str = "agentout gain") -> str:
        return _html(self, title)


def _row_dict(row: Row) -> dict[str, Any]:
    return {
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(row.time)),
        "project": row.project,
        "tool": row.tool,
        "command": row.command,
        "raw_tokens": row.raw_tokens,
        "raw_exact": row.raw_exact,
        "delivered_tokens": row.delivered_tokens,
        "saved_tokens": row.saved,
        "facts_kept": row.facts_kept,
        "facts_total": row.facts_total,
        "duration": row.duration,
        "exit_status": row.exit_status,
        "secrets": row.secrets,
        "agent": row.agent,
        "shown_tokens": row.baseline,
        "shown_saved_tokens": None if row.baseline is None else row.shown_saved,
    }


def as_csv(rows: Iterable[Row]) -> str:
    """Every delivery, one line each, oldest first: counts and names, never output."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    names = list(_row_dict(_EMPTY))
    writer.writerow(names)
    for row in rows:
        values = _row_dict(row)
        writer.writerow(["" if values[n] is None else values[n] for n in names])
    return out.getvalue()


_EMPTY = Row(0.0, "", "", "", None, 0, None, None, None, None, 0, True, "", None)


# -- the page ---------------------------------------------------------------------------------

_STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#1d2330;background:#fff}
h1{font-size:1.4em;margin:0 0 .2em}h2{font-size:1.1em;margin:1.6em 0 .4em}
.cards{display:flex;gap:1em;flex-wrap:wrap}.card{border:1px solid #d5dae3;border-radius:6px;
padding:.6em 1em;min-width:9em}.card b{display:block;font-size:1.5em}
table{border-collapse:collapse}td,th{padding:.25em .7em;border-bottom:1px solid #e4e7ee;
text-align:right}td:first-child,th:first-child{text-align:left}
.raw{fill:#c9d3e6}.delivered{fill:#2f6fde}svg text{font-size:11px;fill:#1d2330}
.note{color:#5b6475;font-size:.9em}
"""


_LABEL_CHARS = 24
_LABEL_ANGLE = 45  # degrees: labels slant down from their bars, parallel, never overlapping


def _bars(items: Sequence[tuple[str, Totals]], label: str) -> str:
    """An SVG chart: one pair of bars (what the clients would have shown, delivered) per
    label. Each label slants down from under its pair at 45°: parallel lines ``(2 * bar +
    gap) * sin 45°`` (54 px) apart, several times the 11 px text, however long the names
    (cut at 24 characters, the whole name in the bar's tooltip)."""
    if not items:
        return '<p class="note">Nothing recorded yet.</p>'
    bar, gap, height = 18, 40, 180
    room = 150  # below the bars and right of the last one: the slanted labels
    width = 40 + (2 * bar + gap) * len(items) + room
    peak = max(max(t.shown, t.delivered) for _, t in items) or 1
    parts = [
        f'<svg role="img" aria-label="{html.escape(label)}" width="{width}" '
        f'height="{height + room}" viewBox="0 0 {width} {height + room}">'
    ]
    for index, (name, totals) in enumerate(items):
        x = 30 + index * (2 * bar + gap)
        pairs = (
            (0, totals.shown, "raw", "shown"),
            (bar, totals.delivered, "delivered", "delivered"),
        )
        for offset, value, kind, said in pairs:
            tall = round(height * value / peak)
            parts.append(
                f'<rect class="{kind}" x="{x + offset}" y="{height - tall + 10}" '
                f'width="{bar - 2}" height="{tall}"><title>{html.escape(name)} {said}: '
                f"{value} tokens</title></rect>"
            )
        shown = name if len(name) <= _LABEL_CHARS else name[: _LABEL_CHARS - 1] + "…"
        anchor_x, anchor_y = x + bar, height + 24
        parts.append(
            f'<text x="{anchor_x}" y="{anchor_y}" '
            f'transform="rotate({_LABEL_ANGLE} {anchor_x} {anchor_y})">{html.escape(shown)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _table(head: Sequence[str], body: Iterable[Sequence[object]]) -> str:
    cells = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    rows = [f"<tr>{cells}</tr>"]
    for values in body:
        rows.append("<tr>" + "".join(f"<td>{html.escape(str(v))}</td>" for v in values) + "</tr>")
    return "<table>" + "".join(rows) + "</table>"


def _html(report: Report, title: str) -> str:
    total = report.total
    cards = "".join(
        f'<div class="card"><span>{name}</span><b id="{key}">{value}</b></div>'
        for key, name, value in (
            (
                "shown_saved",
                "tokens saved of what the clients would show",
                f"{total.shown_saved:,}",
            ),
            ("shown_percent", "saved of it", f"{total.shown_percent}%"),
            ("delivered", "tokens delivered", f"{total.delivered:,}"),
            ("shown", "tokens the clients would show", f"{total.shown:,}"),
            ("saved", "tokens saved of the whole outputs", f"{total.saved:,}"),
            ("raw", "raw tokens", f"{total.raw:,}"),
            ("deliveries", "deliveries", f"{total.deliveries:,}"),
        )
    )
    periods = sorted(report.periods.items())[-30:]
    commands = report.top_commands(15)
    command_rows = [
        (k, v.deliveries, f"{v.raw:,}", f"{v.shown:,}", f"{v.delivered:,}",
         f"{v.shown_saved:,}", f"{v.shown_percent}%")
        for k, v in commands
    ]  # fmt: skip
    recent_rows = [
        (
            time.strftime("%Y-%m-%d %H:%M", time.gmtime(r.time)),
            r.tool,
            r.agent or "-",
            r.command[:60],
            "?" if r.raw_tokens is None else f"{r.raw_tokens:,}",
            "?" if r.baseline is None else f"{r.baseline:,}",
            f"{r.delivered_tokens:,}",
        )
        for r in report.recent
    ]
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>"
        f"<h1>{html.escape(title)}</h1>"
        '<p class="note">Tokens the model would have read without agentout (the raw output '
        "as each agent's client shows it: Claude Code's inline limit, its preview, its "
        "failure cut; the whole output where a client's limit is not known) against what "
        "agentout delivered, and the whole raw output beside it. Raw counts not known are "
        "taken as delivered (no saving claimed).</p>"
        f'<div class="cards">{cards}</div>'
        f"<h2>Per {report.period}</h2>{_bars(periods, 'per ' + report.period)}"
        f"<h2>Per command</h2>{_bars(commands[:10], 'per command')}"
        + _table(("command", "deliveries", "raw", "shown", "delivered", "saved", "%"), command_rows)
        + "<h2>Recent</h2>"
        + _table(
            ("time (UTC)", "tool", "agent", "command", "raw", "shown", "delivered"), recent_rows
        )
        + "</body></html>\n"
    )
