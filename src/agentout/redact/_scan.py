"""Find secrets in bytes at chunk speed: one RE2 pass, exact rules only on the lines it hits.

The RE2 expression is one alternation of the environment's secret values (escaped
literals) and of every rule's candidate. Text with no secret costs that one pass and
nothing else: no Python runs per line. A line the pass hits is checked by the exact rules
(Python ``re``, lookarounds and all); the secrets they confirm are replaced by markers.
Private key blocks span lines: their header starts a block whose base64 body is replaced
up to the ``-----END`` line, keeping the number of lines.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from agentout.redact._found import marker
from agentout.redact._names import PUBLIC_AWS, kind_of_name
from agentout.redact._rules import Rule, RuleSet

__all__ = ["TAIL", "WINDOW", "KeyBlock", "Scanner", "Span", "plausible_value", "secret_key"]

# (start, end, priority, kind): a secret's place in a line. When two overlap, the union is
# hidden under the kind of higher priority: a value from the environment says most.
Span = tuple[int, int, int, str]
_VALUE, _FORMAT, _CONTEXT = 3, 2, 1

# Keys whose value is a secret: they end with one of these words (any case), or follow
# the environment's conventions (upper case: *_TOKEN, *_KEY, AWS_*, ...).
_KEY_WORDS = (
    r"password|passwd|passphrase|secret|token|authtoken|api[_-]?key|apikey|access[_-]?key"
    r"|private[_-]?key|secret[_-]?key|auth[_-]?key|client[_-]?secret|[_-]pass|[_-]pwd"
)
_ENV_KEY = r"(?:[A-Z0-9_]*_)?(?:TOKEN|SECRET|KEY|PASSWORD|PASS)|AWS_[A-Z0-9_]+"
# Keys that end like a secret's but hold a fact: pagination cursors, AWS settings.
_ENV_KEY_RE = re.compile(_ENV_KEY.encode())
_WORD_KEY = re.compile(rf"(?i:[A-Za-z0-9_.\-]*(?:{_KEY_WORDS}))".encode())
_NOT_SECRET_KEY = re.compile(
    rb"(?i)page|cursor|next|continuation|(?:_|\b)(?:ids?|type|name|hint|file|path|dir|len|length"
    rb"|count|size|field|prompt|label|url|uri|env|var|header|param|class|limit|expires?|ttl)\b"
)
# What may stand before a line's own text: grep's "path:12:" or "path-12-", cat -n, a diff.
_PREFIX = rb"(?:[^\s:]+:(?:\d+:)?|[^\s:]+-\d+-|[ \t]*\d+\t|[+\- ])?"
_QUOTED = rb"\"[^\"\n]*\"|'[^'\n]*'"
_COMMON_VALUES = frozenset(
    b"none null nil true false yes no str string bytes int bool boolean number object any"
    b" optional undefined empty required redacted hidden masked secret password token"
    b" changeme xxxxxxxx secretstr".split()
)
_REFERENCE = re.compile(rb"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(\))?")
_TEMPLATE = re.compile(rb"\$|\{\{|%\(|<[^>]*>\Z|\{[^}]*\}\Z")
_LETTER = re.compile(rb"[A-Za-z]")
_PLACEHOLDER = re.compile(rb"[A-Z_]+|x+|\*+|\.\.\.|<[^>]*>|#[0-9a-fA-F]{3,8}")
# client_secret_basic, password_reset_token: names of things, not secrets.
_NAMED = re.compile(rb"(?i)[a-z0-9]*_[a-z0-9_]*(?:secret|passw|token|key)[a-z0-9_]*")
_DIGIT_OR_SYMBOL = re.compile(rb"[0-9+/=~!@#%^&*]")
_MIXED_CASE = re.compile(rb".[A-Z].*[a-z]|.[a-z].*[A-Z]")
_BODY_LINE = (
    rb"(?:[^\s:]{1,256}[:-]\d+[:-]|[ \t]*\d+\t)?"
    rb"(?:[A-Za-z0-9+/=]{1,1024}|[A-Za-z][A-Za-z0-9-]{0,63}: [^\n]{0,1024}|[ \t]*)\r?"
)
_BODY = re.compile(rb"(?:" + _BODY_LINE + rb"(?:\n|\Z))*")
_MIN_ASSIGNED = 5
WINDOW = 1 << 16
TAIL = 1 << 12


@dataclass
class KeyBlock:
    """A private key block still open at the end of the bytes scanned so far."""

    open: bool = False
    marked: bool = False


def _fnmatch_regex(pattern: str) -> str:
    return "".join(".*" if c == "*" else re.escape(c) for c in pattern)


def _b(pattern: str) -> bytes:
    return pattern.encode("utf-8")


class Scanner:
    """Finds and replaces secrets in bytes; built once, used for any number of chunks.

    ``values`` maps each secret value to the variable that holds it; ``extra_names`` are
    the user's own secret variable names (``*`` allowed), also honoured in assignments.
    """

    def __init__(
        self, rules: RuleSet, values: Mapping[str, str], extra_names: Iterable[str] = ()
    ) -> None:
        self._rules = rules
        self._values = {_b(v): name for v, name in values.items()}
        self._extra = tuple(extra_names)
        self.longest_value = max((len(v) for v in self._values), default=0)
        # A line longer than ``window`` bytes is scanned in windows that overlap by ``tail``.
        self.window = WINDOW
        self.tail = max(TAIL, self.longest_value + 1)
        self._search: Any = None
        self._which: Any = None
        self._families: list[str] = []
        self._compile()

    # -- the one pass, and which families a hit line needs --------------------------------

    def _compile(self) -> None:
        """One RE2 expression for the pass over every chunk, and an RE2 set of the same
        alternatives grouped by family, which tells a hit line which exact rules to run."""
        import re2  # deferred: only a process that redacts loads it

        families: list[tuple[str, bytes]] = []
        if self._values:
            ordered = sorted(self._values, key=lambda v: (-len(v), v))
            families.append(("values", b"|".join(re.escape(v) for v in ordered)))
        candidates: dict[str, list[int]] = {}
        for index, rule in enumerate(self._rules.rules):
            candidates.setdefault(rule.candidate, []).append(index)
        for candidate, indexes in candidates.items():
            families.append((",".join(map(str, indexes)), _b(candidate)))
        words = "pass|pwd|secret|token|key|aws_" + "".join(
            "|" + _fnmatch_regex(n) for n in self._extra
        )
        families += [
            (
                "assigned",
                _b(rf"(?i:(?:{words})[a-z0-9_.\-]*[\"']?[ \t]*[:=]|--[a-z0-9_\-]*(?:{words}))"),
            ),
            ("authorization", _b(r"(?i:authorization|bearer)")),
            ("key", b"|".join(re.escape(_b(h)) for h in self._rules.key_headers)),
        ]
        options = re2.Options()
        options.encoding = re2.Options.Encoding.LATIN1
        options.log_errors = False
        options.max_mem = 64 << 20
        options.never_capture = True
        self._search = re2.compile(b"|".join(p for _, p in families), options).search
        members = re2.Set.SearchSet(options)
        for _, pattern in families:
            members.Add(pattern)
        members.Compile()
        self._which = members.Match
        self._families = [name for name, _ in families]

    # -- the exact rules, compiled on first use -------------------------------------------

    @cached_property
    def _formats(self) -> list[tuple[Rule, re.Pattern[bytes], re.Pattern[bytes] | None]]:
        compiled = []
        for rule in self._rules.rules:
            flags = re.IGNORECASE if rule.ignore_case else 0
            extend = re.compile(_b(rule.extend) + b"*") if rule.extend else None
            compiled.append((rule, re.compile(_b(rule.pattern), flags), extend))
        return compiled

    @cached_property
    def _values_re(self) -> re.Pattern[bytes] | None:
        if not self._values:
            return None
        ordered = sorted(self._values, key=lambda v: (-len(v), v))
        return re.compile(b"|".join(re.escape(v) for v in ordered))

    @cached_property
    def _keyword_word(self) -> re.Pattern[bytes]:
        return re.compile(_b("|".join(self._rules.keywords)), re.IGNORECASE)

    @cached_property
    def _assignments(self) -> tuple[re.Pattern[bytes], re.Pattern[bytes], re.Pattern[bytes]]:
        extra = "".join("|(?i:" + _fnmatch_regex(n) + ")" for n in self._extra)
        key = _b(rf"(?P<key>(?i:[A-Za-z0-9_.\-]*(?:{_KEY_WORDS}))|{_ENV_KEY}{extra})")
        end = rb"(?![A-Za-z0-9_.\-])"
        line = re.compile(
            rb"^" + _PREFIX + rb"[ \t]*(?:export[ \t]+|declare[ \t]+-x[ \t]+|set[ \t]+)?"
            rb"[\"']?" + key + end + rb"[\"']?[ \t]*(?P<sep>=|:(?=[ \t]|$))[ \t]*"
            rb"(?P<value>" + _QUOTED + rb"|[^\n]*)"
        )
        inline = re.compile(
            rb"(?<![A-Za-z0-9_.\-])[\"']?" + key + end + rb"[\"']?[ \t]*"
            rb"(?:(?P<sep>=)[ \t]*(?P<value>" + _QUOTED + rb"|[^\s\"'`,;&)}\]>]+)"
            rb"|:[ \t]*(?P<quoted>" + _QUOTED + rb"))"
        )
        flag = re.compile(
            rb"(?<![\w-])--" + key + end + rb"[ \t]+(?P<value>" + _QUOTED + rb"|[^\s\"'`]+)"
        )
        return line, inline, flag

    @cached_property
    def _authorization(self) -> tuple[re.Pattern[bytes], re.Pattern[bytes]]:
        header = re.compile(
            rb"(?i)\b(?:proxy-)?authorization[\"']?[ \t]*[:=][ \t]*[\"']?"
            rb"(?:bearer|token|basic|digest)?[ \t]*(?P<value>[A-Za-z0-9\-._~+/]+=*)"
        )
        bearer = re.compile(rb"(?i)\bbearer[ \t]+(?P<value>[A-Za-z0-9\-._~+/]{16,}=*)")
        return header, bearer

    @cached_property
    def _key_header(self) -> re.Pattern[bytes]:
        names = b"|".join(re.escape(_b(h)) for h in self._rules.key_headers)
        return re.compile(rb"-{4,5} ?(?:" + names + rb") ?-{4,5}")

    @cached_property
    def _key_end(self) -> re.Pattern[bytes]:
        return re.compile(rb"-{4,5} ?END [A-Z0-9 ]*-{4,5}")

    # -- one line -----------------------------------------------------------------------

    def spans(self, line: bytes) -> tuple[list[Span], bool]:
        """The secrets in one line (no newline in it), merged; and whether a private key
        block opens on it without closing (its body follows on the next lines)."""
        found: list[Span] = []
        opened = False
        for family in self._which(line) or ():
            name = self._families[family]
            if name == "values":
                assert self._values_re is not None
                for m in self._values_re.finditer(line):
                    found.append((m.start(), m.end(), _VALUE, "$" + self._values[m.group()]))
            elif name == "assigned":
                self._assigned(line, found)
            elif name == "authorization":
                self._authorization_spans(line, found)
            elif name == "key":
                opened = self._private_key(line, found)
            else:
                for index in map(int, name.split(",")):
                    rule, pattern, extend = self._formats[index]
                    for m in pattern.finditer(line):
                        span = self._format_span(rule, m, extend, line)
                        if span is not None:
                            found.append(span)
        return _merge(found), opened

    def _format_span(
        self, rule: Rule, m: re.Match[bytes], extend: re.Pattern[bytes] | None, line: bytes
    ) -> Span | None:
        if rule.check == "keyword":
            start, end = m.span(rule.group)
            if start < 0 or not _plausible(m.group(rule.group), None, quoted=True):
                return None
            if _NOT_SECRET_KEY.search(line[m.start() : start] + line[end : m.end()]):
                return None  # "private_key_id": "...": an identifier, as detect-secrets says
            word = self._keyword_word.search(m.group())
            kind = kind_of_name(word.group().decode("utf-8", "replace")) if word else "secret"
            return (start, end, _CONTEXT, kind)
        if rule.group:
            groups = [i for i in range(1, (m.lastindex or 0) + 1) if m.group(i)]
            if not groups:
                return None
            start, end = m.span(groups[-1])
        else:
            start, end = m.span()
        if extend is not None:
            end = extend.match(line, end).end()  # type: ignore[union-attr]
        if start >= end:
            return None
        if rule.check == "jwt" and not _valid_jwt(line[start:end]):
            return None
        return (start, end, _FORMAT, rule.kind)

    def _assigned(self, line: bytes, found: list[Span]) -> None:
        line_re, inline_re, flag_re = self._assignments
        matches = [m for m in (line_re.match(line),) if m is not None]
        matches += [*inline_re.finditer(line), *flag_re.finditer(line)]
        for m in matches:
            key = m.group("key")
            group = "value" if m.group("value") is not None else "quoted"
            if _NOT_SECRET_KEY.search(key) or key.decode("ascii", "replace") in PUBLIC_AWS:
                continue
            env_style = _ENV_KEY_RE.fullmatch(key) is not None or self._extra_key(key)
            word = _WORD_KEY.fullmatch(key) is not None
            sep = m.group("sep") if "sep" in m.re.groupindex else None
            if sep is not None:
                before, after = line[m.start("sep") - 1 : m.start("sep")], line[m.end("sep") :]
                spaced = before in (b" ", b"\t") or after[:1] in (b" ", b"\t")
                if spaced and sep == b"=" and not word:
                    continue  # NOTE_KEY = "x": a constant in code, not a shell assignment
            start, end = m.span(group)
            value = m.group(group)
            quoted = value[:1] in (b'"', b"'") and len(value) >= 2 and value[-1:] == value[:1]
            if quoted:
                start, end, value = start + 1, end - 1, value[1:-1]
            else:
                stripped = value.rstrip(b" \t\r")
                end -= len(value) - len(stripped)
                value = stripped
                if not env_style and (b" " in value or b"\t" in value):
                    continue  # secret = tmp_path / "x": code or prose
            loose = not quoted and not env_style
            kind = kind_of_name(key.decode("ascii", "replace"))
            if kind in ("token", "key") and (b" " in value or b"\t" in value):
                continue  # a token has no spaces: this is prose or a style
            if not _plausible(value, key, quoted=quoted, loose=loose):
                continue
            found.append((start, end, _CONTEXT, kind))

    def _extra_key(self, key: bytes) -> bool:
        name = key.decode("ascii", "replace").upper()
        return any(fnmatch.fnmatchcase(name, pattern.upper()) for pattern in self._extra)

    def _authorization_spans(self, line: bytes, found: list[Span]) -> None:
        header, bearer = self._authorization
        for m in header.finditer(line):
            if _plausible(m.group("value"), None, quoted=False, minimum=8):
                found.append((*m.span("value"), _CONTEXT, "authorization"))
        for m in bearer.finditer(line):
            value = m.group("value")
            if _plausible(value, None, quoted=False) and (
                _DIGIT_OR_SYMBOL.search(value) or _MIXED_CASE.match(value)
            ):
                found.append((*m.span("value"), _CONTEXT, "bearer-token"))

    def _private_key(self, line: bytes, found: list[Span]) -> bool:
        opened = False
        for m in self._key_header.finditer(line):
            end = self._key_end.search(line, m.end())
            stop = end.start() if end else len(line)
            body = line[m.end() : stop]
            if body.strip(b" \t\r\\n\"',"):
                found.append((m.end(), stop, _FORMAT, "private-key"))
            if end is None:
                opened = True
                break
        return opened

    # -- bytes made of whole lines --------------------------------------------------------

    def redact(self, data: bytes, block: KeyBlock, final: bool = True) -> tuple[bytes, list[str]]:
        """``data`` with its secrets replaced, and the kind of each. Unless ``final``,
        ``data`` ends at a line end; ``block`` carries an open private key across calls."""
        out: list[bytes] = []
        kinds: list[str] = []
        pos = 0
        n = len(data)
        if block.open:
            pos = self._body(data, 0, block, out, kinds)
        while pos < n:
            hit = self._search(data, pos)
            if hit is None:
                break
            start = max(data.rfind(b"\n", 0, hit.start()) + 1, pos)
            last = data.find(b"\n", max(hit.end() - 1, hit.start()))
            last = n if last < 0 else last
            while start <= last:  # every line the hit touches
                end = data.find(b"\n", start, last + 1)
                end = last if end < 0 else end
                out.append(data[pos:start])
                before = len(kinds)
                opened = self._line(data[start:end], out, kinds)
                pos = end
                if opened:
                    block.marked = "private-key" in kinds[before:]
                    body = min(end + 1, n)
                    out.append(data[end:body])
                    pos = self._body(data, body, block, out, kinds)
                    break
                start = end + 1
        if final:
            block.open = block.marked = False
        if pos == 0:
            return data, kinds
        out.append(data[pos:])
        return b"".join(out), kinds

    def _line(self, line: bytes, out: list[bytes], kinds: list[str]) -> bool:
        """Append ``line`` redacted; a line longer than ``window`` goes window by window."""
        start = 0
        while len(line) - start > self.window:
            text, found, cut = self.window_of(line[start : start + self.window])
            out.append(text)
            kinds += found
            start += cut
        spans, opened = self.spans(line[start:] if start else line)
        out.append(_replace(line[start:] if start else line, spans))
        kinds += [kind for _, _, _, kind in spans]
        return opened

    def window_of(self, piece: bytes) -> tuple[bytes, list[str], int]:
        """A window of a line too long to hold: its first part redacted, the kinds found
        there, and where the next window starts (``tail`` bytes before the end, or after
        a secret that crosses that point, so no secret is cut in two)."""
        spans, _ = self.spans(piece)
        cut = len(piece) - self.tail
        kept = [span for span in spans if span[0] < cut]
        if kept:
            cut = max(cut, kept[-1][1])
        return _replace(piece[:cut], kept), [kind for _, _, _, kind in kept], cut

    def _body(
        self, data: bytes, start: int, block: KeyBlock, out: list[bytes], kinds: list[str]
    ) -> int:
        """Replace the private key body that starts at ``start`` (a line start) by one
        marker and as many line ends; return where the body ends."""
        match = _BODY.match(data, start)
        end = match.end() if match else start
        body = data[start:end]
        if body.strip():
            if not block.marked:
                block.marked = True
                kinds.append("private-key")
                out.append(marker("private-key"))
            out.append(b"\n" * body.count(b"\n"))
        else:
            out.append(body)
        block.open = end >= len(data)  # it may go on in the next chunk
        if not block.open:
            block.marked = False
        return end


def _plausible(
    value: bytes,
    key: bytes | None,
    *,
    quoted: bool = True,
    loose: bool = False,
    minimum: int = 0,
) -> bool:
    """Whether an assigned value is a secret rather than a placeholder, prose or (when
    not ``quoted``) code: ``self.password``, ``get_token()``, ``str = None``."""
    value = value.strip()
    if len(value) < max(minimum, _MIN_ASSIGNED) or value.startswith(b"[secret: "):
        return False
    lower = value.lower()
    if lower in _COMMON_VALUES or (key is not None and lower == key.lower()):
        return False
    if not _LETTER.search(value) or _TEMPLATE.match(value) or _PLACEHOLDER.fullmatch(value):
        return False
    if _NAMED.fullmatch(value):
        return False
    if quoted:
        return True
    if _REFERENCE.fullmatch(value) or b"(" in value or b"[" in value:
        return False
    if b" = " in value or b"==" in value:
        return False
    return not (loose and not _DIGIT_OR_SYMBOL.search(value))


_SECRET_KEY = re.compile(_b(rf"(?i:[A-Za-z0-9_.\-]*(?:{_KEY_WORDS}))|{_ENV_KEY}"))


def secret_key(key: str) -> bool:
    """Whether a key (of a JSON object, an assignment) says its value is a secret."""
    data = key.encode("utf-8", "surrogatepass")
    return _SECRET_KEY.fullmatch(data) is not None and not _NOT_SECRET_KEY.search(data)


def plausible_value(value: str) -> bool:
    """Whether a string under a secret's key is a secret rather than a placeholder."""
    return _plausible(value.encode("utf-8", "surrogatepass"), None)


def _valid_jwt(token: bytes) -> bool:
    from detect_secrets.plugins.jwt import JwtTokenDetector  # deferred: a slow import

    return bool(JwtTokenDetector.is_formally_valid(token.decode("ascii", "replace")))


def _merge(spans: list[Span]) -> list[Span]:
    """Overlapping spans joined; each keeps the kind of its highest-priority part."""
    if len(spans) < 2:
        return spans
    spans.sort(key=lambda s: (s[0], -s[2], -s[1]))
    merged = [spans[0]]
    for start, end, priority, kind in spans[1:]:
        s0, e0, p0, k0 = merged[-1]
        if start < e0:
            best = (p0, k0) if p0 >= priority else (priority, kind)
            merged[-1] = (s0, max(e0, end), best[0], best[1])
        else:
            merged.append((start, end, priority, kind))
    return merged


def _replace(line: bytes, spans: list[Span]) -> bytes:
    if not spans:
        return line
    out: list[bytes] = []
    pos = 0
    for start, end, _, kind in spans:
        out += [line[pos:start], marker(kind)]
        pos = end
    out.append(line[pos:])
    return b"".join(out)
