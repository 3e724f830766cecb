"""Find secrets in bytes at chunk speed: one RE2 pass, exact rules only on the lines it hits.

The RE2 expression is one alternation of the environment's secret values (escaped
literals) and of candidates that match only the shapes a secret comes in: each format's
own expression (a known prefix: ``ghp_``, ``AKIA``, ``eyJ``, ``://user:pass@``), a key that
names a secret right before ``=`` or ``:`` (``DB_PASSWORD=``, ``"api_key":``), a ``--token``
flag, an ``Authorization`` header, a ``Bearer`` token, a private key header. Text with no
secret costs that one pass and nothing else: no Python runs per line, and log text hits
it a few times per megabyte at most. A line the pass hits is checked by the exact rules
(Python ``re``, lookarounds and all) of the candidates it matches; the secrets they
confirm are replaced by markers. Private key blocks span lines: their header starts a
block whose base64 body is replaced up to the ``-----END`` line, keeping the number of
lines.

Nothing is compiled at import: the RE2 pass when a scanner is built, the rest when a line
first needs it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from functools import cached_property
from typing import TYPE_CHECKING, Any

from agentout.redact._found import marker
from agentout.redact._names import PUBLIC_AWS, is_secret_name, kind_of_name

if TYPE_CHECKING:
    from agentout.redact._rules import Rule, RuleSet
    from agentout.redact._stream import KeyBlock

__all__ = ["TAIL", "WINDOW", "Scanner", "Span", "plausible_value", "secret_key"]

# (start, end, priority, kind): a secret's place in a line. When two overlap, the union is
# hidden under the kind of higher priority: a value from the environment says most.
Span = tuple[int, int, int, str]
_VALUE, _FORMAT, _CONTEXT = 3, 2, 1

# Keys whose value is a secret: they end with one of these words (any case), or follow
# the environment's conventions (upper case: *_TOKEN, *_KEY, AWS_*, ...).
_JOINED = (
    ("api", "key"),
    ("access", "key"),
    ("private", "key"),
    ("secret", "key"),
    ("auth", "key"),
    ("client", "secret"),
)
_KEY_ENDS = (
    *("password", "passwd", "passphrase", "secret", "token", "_pass", "-pass", "_pwd", "-pwd"),
    *(f"{a}{sep}{b}" for a, b in _JOINED for sep in ("_", "-", "")),
)
_KEY_WORDS = "|".join(re.escape(word) for word in _KEY_ENDS)
_ENV_KEY = r"(?:[A-Z0-9_]*_)?(?:TOKEN|SECRET|KEY|PASSWORD|PASS)|AWS_[A-Z0-9_]+"
_KEY_ENDS_BYTES = tuple(word.encode() for word in _KEY_ENDS)
_KEY_CHARS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-"
# The names of things, not secrets (client_secret_basic, password_reset_token): a value of
# these characters, with one of these words after its first "_".
_NAME_CHARS = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
_NAME_WORDS = (b"secret", b"passw", b"token", b"key")
# What follows a key in an assignment, up to its separator: a closing quote, spaces.
_TO_SEP = r"[\"']?[ \t]*[:=]"
# The candidates of the context rules: a key word right before its separator (the words
# of _ENV_KEY that _KEY_WORDS lacks are upper case), a flag, a header, a bearer token.
_ASSIGNED = (
    rf"(?i:{_KEY_WORDS}){_TO_SEP}|(?:KEY|PASS|AWS_[A-Z0-9_]+){_TO_SEP}"
    rf"|--[A-Za-z0-9_.\-]*(?:(?i:{_KEY_WORDS})|KEY|PASS|AWS_[A-Z0-9_]+)[ \t]"
)
_AUTHORIZATION = r"(?i:authorization[\"']?[ \t]*[:=]|bearer[ \t]+[A-Za-z0-9\-._~+/]{16})"
# What may stand before a line's own text: grep's "path:12:" or "path-12-" (a path with no "="
# in it, so a "KEY=" line is not first read as one), cat -n, a diff.
_PREFIX = rb"(?:[^\s:=]+:(?:\d+:)?|[^\s:=]+-\d+-|[ \t]*\d+\t|[+\- ])?"
_QUOTED = rb"\"[^\"\n]*\"|'[^'\n]*'"
_COMMON_VALUES = frozenset(
    b"none null nil true false yes no str string bytes int bool boolean number object any"
    b" optional undefined empty required redacted hidden masked secret password token"
    b" changeme xxxxxxxx secretstr".split()
)
_BODY_LINE = (
    rb"(?:[^\s:]{1,256}[:-]\d+[:-]|[ \t]*\d+\t)?"
    rb"(?:[A-Za-z0-9+/=]{1,1024}|[A-Za-z][A-Za-z0-9-]{0,63}: [^\n]{0,1024}|[ \t]*)\r?"
)
_MIN_ASSIGNED = 5
_LOOK_BACK = 256  # how far before a separator its key may start
WINDOW = 1 << 16
TAIL = 1 << 12


class _Patterns:
    """The Python expressions every scanner shares, compiled once, on first need."""

    def __init__(self) -> None:
        self.secret_key = re.compile(rf"(?i:[A-Za-z0-9_.\-]*(?:{_KEY_WORDS}))|{_ENV_KEY}".encode())
        # Keys that end like a secret's but hold a fact: pagination cursors, AWS settings.
        self.not_secret_key = re.compile(
            rb"(?i)page|cursor|next|continuation|(?:_|\b)(?:ids?|type|name|hint|file|path|dir"
            rb"|len|length|count|size|field|prompt|label|url|uri|env|var|header|param|class"
            rb"|limit|expires?|ttl)\b"
        )
        self.reference = re.compile(rb"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(\))?")
        self.template = re.compile(rb"\$|\{\{|%\(|<[^>]*>\Z|\{[^}]*\}\Z")
        self.placeholder = re.compile(rb"[A-Z_]+|x+|\*+|\.\.\.|<[^>]*>|#[0-9a-fA-F]{3,8}")
        self.digit_or_symbol = re.compile(rb"[0-9+/=~!@#%^&*]")
        self.mixed_case = re.compile(rb".[A-Z].*[a-z]|.[a-z].*[A-Z]")
        self.body = re.compile(rb"(?:" + _BODY_LINE + rb"(?:\n|\Z))*")
        self.header = re.compile(
            rb"(?i)\b(?:proxy-)?authorization[\"']?[ \t]*[:=][ \t]*[\"']?"
            rb"(?:bearer|token|basic|digest)?[ \t]*(?P<value>[A-Za-z0-9\-._~+/]+=*)"
        )
        self.bearer = re.compile(rb"(?i)\bbearer[ \t]+(?P<value>[A-Za-z0-9\-._~+/]{16,}=*)")
        self.key_end = re.compile(rb"-{4,5} ?END [A-Z0-9 ]*-{4,5}")
        # Assignments: a key (a whole run of key characters, taken at once: the lookahead
        # keeps the expression from trying each shorter run), its separator, and then,
        # read from there, its value. Whether the key names a secret is checked after.
        run = rb"(?=(?P<run>[A-Za-z0-9_.\-]+))(?P=run)"
        self.line = re.compile(
            rb"^" + _PREFIX + rb"[ \t]*(?:export[ \t]+|declare[ \t]+-x[ \t]+|set[ \t]+)?"
            rb"[\"']?(?P<key>" + run + rb")[\"']?[ \t]*(?P<sep>=|:(?=[ \t]|$))"
        )
        self.separator = re.compile(rb"[=:]")
        self.flag = re.compile(rb"(?<![\w-])--(?P<key>" + run + rb")[ \t]+")
        self.line_value = re.compile(rb"[ \t]*(?:" + _QUOTED + rb"|[^\n]*)")
        self.equals_value = re.compile(rb"[ \t]*(?:" + _QUOTED + rb"|[^\s\"'`,;&)}\]>]+)")
        self.colon_value = re.compile(rb"[ \t]*(?:" + _QUOTED + rb")")
        self.flag_value = re.compile(_QUOTED + rb"|[^\s\"'`]+")


_SHARED: _Patterns | None = None


def _patterns() -> _Patterns:
    global _SHARED
    if _SHARED is None:
        _SHARED = _Patterns()
    return _SHARED


def _fnmatch_regex(pattern: str) -> str:
    return "".join(".*" if c == "*" else re.escape(c) for c in pattern)


def _b(pattern: str) -> bytes:
    return pattern.encode("utf-8")


def _re2_options() -> Any:
    import re2  # deferred: only a process that redacts loads it

    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1
    options.log_errors = False
    options.max_mem = 64 << 20
    options.never_capture = True
    return options


def _searcher(compiled: Any) -> Callable[[bytes, int], tuple[int, int] | None]:
    """``search(data, pos)``: the span of the first hit at or after ``pos``, or None.

    google-re2's ``search`` wraps each call in a generator and a match object; a hit line
    of secret-dense output pays that on every line, so its compiled expression is called
    directly when this google-re2 has it (the public call otherwise: slower, the same)."""
    import re2

    raw = getattr(compiled, "_regexp", None)
    anchor = getattr(getattr(re2, "_Anchor", None), "UNANCHORED", None)
    if raw is not None and anchor is not None and hasattr(raw, "Match"):
        match = raw.Match

        def direct(data: bytes, pos: int) -> tuple[int, int] | None:
            span: tuple[int, int] = match(anchor, data, pos, len(data))[0]
            return None if span[0] < 0 else span

        return direct

    def public(data: bytes, pos: int) -> tuple[int, int] | None:
        found = compiled.search(data, pos)
        return None if found is None else found.span()

    return public


class Scanner:
    """Finds and replaces secrets in bytes; built once, used for any number of chunks.

    ``values`` maps each secret value to the variable that holds it; ``extra_names`` are
    the user's own secret variable names (``*`` allowed), also honoured in assignments.
    """

    def __init__(
        self, rules: RuleSet, values: Mapping[str, str], extra_names: Iterable[str] = ()
    ) -> None:
        import re2  # deferred: only a process that redacts loads it

        self._rules = rules
        self._values = {_b(v): name for v, name in values.items()}
        self._extra = tuple(extra_names)
        self.longest_value = max((len(v) for v in self._values), default=0)
        # A line longer than ``window`` bytes is scanned in windows that overlap by ``tail``.
        self.window = WINDOW
        self.tail = max(TAIL, self.longest_value + 1)
        self._families = self._candidates()
        combined = b"|".join(pattern for _, pattern in self._families)
        self._search = _searcher(re2.compile(combined, _re2_options()))
        # What to do with a line each family hits: "values", "assigned", ..., or the
        # indexes of the rules that share the family's candidate.
        self._actions: list[str | tuple[int, ...]] = [
            tuple(map(int, name.split(","))) if name[0].isdigit() else name
            for name, _ in self._families
        ]

    # -- the one pass, and which families a hit line needs --------------------------------

    def _candidates(self) -> list[tuple[str, bytes]]:
        """Each family's RE2 candidate: the values, each distinct rule candidate (named by
        the indexes of its rules), the assignments, the headers, the private keys."""
        families: list[tuple[str, bytes]] = []
        if self._values:
            ordered = sorted(self._values, key=lambda v: (-len(v), v))
            families.append(("values", b"|".join(re.escape(v) for v in ordered)))
        candidates: dict[str, list[int]] = {}
        for index, rule in enumerate(self._rules.rules):
            candidates.setdefault(rule.candidate, []).append(index)
        for candidate, indexes in candidates.items():
            families.append((",".join(map(str, indexes)), _b(candidate)))
        assigned = _ASSIGNED
        for name in self._extra:
            extra = _fnmatch_regex(name)
            assigned += rf"|(?i:{extra}){_TO_SEP}|--(?i:{extra})[ \t]"
        families += [
            ("assigned", _b(assigned)),
            ("authorization", _b(_AUTHORIZATION)),
            ("key", b"|".join(re.escape(_b(h)) for h in self._rules.key_headers)),
        ]
        return families

    @cached_property
    def _which(self) -> Any:
        """The RE2 set of the families: which of them a hit line matches."""
        import re2

        members = re2.Set.SearchSet(_re2_options())
        for _, pattern in self._families:
            members.Add(pattern)
        members.Compile()
        return members.Match

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
    def _values_re(self) -> re.Pattern[bytes]:
        ordered = sorted(self._values, key=lambda v: (-len(v), v))
        return re.compile(b"|".join(re.escape(v) for v in ordered))

    @cached_property
    def _keyword_word(self) -> re.Pattern[bytes]:
        return re.compile(_b("|".join(self._rules.keywords)), re.IGNORECASE)

    @cached_property
    def _key_header(self) -> re.Pattern[bytes]:
        names = b"|".join(re.escape(_b(h)) for h in self._rules.key_headers)
        return re.compile(rb"-{4,5} ?(?:" + names + rb") ?-{4,5}")

    # -- one line -----------------------------------------------------------------------

    def spans(self, line: bytes, every: bool = False) -> tuple[list[Span], bool]:
        """The secrets in one line (no newline in it), merged; and whether a private key
        block opens on it without closing (its body follows on the next lines).

        Only the exact rules of the candidates the line matches run, unless ``every``
        (for tests: what the exact rules find whatever the candidates say)."""
        found: list[Span] = []
        opened = False
        families = range(len(self._families)) if every else self._which(line) or ()
        for family in families:
            name = self._actions[family]
            if isinstance(name, tuple):
                for index in name:
                    rule, pattern, extend = self._formats[index]
                    for m in pattern.finditer(line):
                        span = self._format_span(rule, m, extend, line)
                        if span is not None:
                            found.append(span)
            elif name == "values":
                for m in self._values_re.finditer(line):
                    found.append((m.start(), m.end(), _VALUE, "$" + self._values[m.group()]))
            elif name == "assigned":
                self._assigned(line, found)
            elif name == "authorization":
                self._authorization_spans(line, found)
            elif name == "key":
                opened = self._private_key(line, found)
        return _merge(found), opened

    def _format_span(
        self, rule: Rule, m: re.Match[bytes], extend: re.Pattern[bytes] | None, line: bytes
    ) -> Span | None:
        if rule.check == "keyword":
            start, end = m.span(rule.group)
            if start < 0 or not _plausible(m.group(rule.group), None, quoted=True):
                return None
            if _patterns().not_secret_key.search(line[m.start() : start] + line[end : m.end()]):
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
        if rule.check == "jwt" and not valid_jwt(line[start:end]):
            return None
        return (start, end, _FORMAT, rule.kind)

    def _assigned(self, line: bytes, found: list[Span]) -> None:
        """Values assigned to keys that name a secret: ``KEY=value`` and ``key: value``
        lines (after a grep or ``cat -n`` prefix, ``export``, ``set``), ``key=value`` and
        ``"key": "value"`` anywhere, and ``--key value`` flags."""
        shared = _patterns()
        head = shared.line.match(line)
        whole = -1  # where the key of a whole-line assignment starts
        if head is not None:
            value = shared.line_value.match(line, head.end())
            key_start, key_end = head.span("key")
            if self._assignment(line, key_start, key_end, head.start("sep"), value, found):
                whole = key_start
        # Anywhere in the line: each "=" and ":" after a key (a whole run of key
        # characters, then maybe a closing quote and spaces), read from the separator back.
        for sep in shared.separator.finditer(line):
            at = sep.start()
            before = line[max(at - _LOOK_BACK, 0) : at].rstrip(b" \t")
            if before[-1:] in (b'"', b"'"):
                before = before[:-1]
            key_end = at - _LOOK_BACK + len(before) if at > _LOOK_BACK else len(before)
            key_start = key_end - len(before) + len(before.rstrip(_KEY_CHARS))
            if key_start in (key_end, whole):
                continue  # no key, or the line's own, already read with all that follows
            reader = shared.equals_value if sep.group() == b"=" else shared.colon_value
            value = reader.match(line, at + 1)
            if value is not None:
                self._assignment(line, key_start, key_end, at, value, found)
        if b"--" in line:
            for flag in shared.flag.finditer(line):
                value = shared.flag_value.match(line, flag.end())
                if value is not None:
                    key_start, key_end = flag.span("key")
                    self._assignment(line, key_start, key_end, -1, value, found)

    def _assignment(
        self,
        line: bytes,
        key_start: int,
        key_end: int,
        sep: int,
        value_match: re.Match[bytes] | None,
        found: list[Span],
    ) -> bool:
        """Whether the value of this assignment (``sep``: where its separator is, -1 for
        a flag) is a secret; if so, its span is added."""
        if value_match is None:
            return False
        key = line[key_start:key_end]
        name = key.decode("ascii", "replace")
        env_style = is_secret_name(name, self._extra)
        word = key.lower().endswith(_KEY_ENDS_BYTES)
        if not (env_style or word) or name in PUBLIC_AWS:
            return False
        if _patterns().not_secret_key.search(key):
            return False
        if sep >= 0:
            around = (line[sep - 1 : sep], line[sep + 1 : sep + 2])
            spaced = b" " in around or b"\t" in around
            if spaced and line[sep] == 61 and not word:  # 61: "="
                return False  # NOTE_KEY = "x": a constant in code, not a shell assignment
        start, end = value_match.span()
        value = value_match.group()
        skipped = len(value) - len(value.lstrip(b" \t"))
        start, value = start + skipped, value[skipped:]
        quoted = value[:1] in (b'"', b"'") and len(value) >= 2 and value[-1:] == value[:1]
        if quoted:
            start, end, value = start + 1, end - 1, value[1:-1]
        else:
            stripped = value.rstrip(b" \t\r")
            end -= len(value) - len(stripped)
            value = stripped
            if not env_style and (b" " in value or b"\t" in value):
                return False  # secret = tmp_path / "x": code or prose
        loose = not quoted and not env_style
        kind = kind_of_name(name)
        if kind in ("token", "key") and (b" " in value or b"\t" in value):
            return False  # a token has no spaces: this is prose or a style
        if not _plausible(value, key, quoted=quoted, loose=loose):
            return False
        found.append((start, end, _CONTEXT, kind))
        return True

    def _authorization_spans(self, line: bytes, found: list[Span]) -> None:
        shared = _patterns()
        for m in shared.header.finditer(line):
            if _plausible(m.group("value"), None, quoted=False, minimum=8):
                found.append((*m.span("value"), _CONTEXT, "authorization"))
        for m in shared.bearer.finditer(line):
            value = m.group("value")
            if _plausible(value, None, quoted=False) and (
                shared.digit_or_symbol.search(value) or shared.mixed_case.match(value)
            ):
                found.append((*m.span("value"), _CONTEXT, "bearer-token"))

    def _private_key(self, line: bytes, found: list[Span]) -> bool:
        key_end = _patterns().key_end
        opened = False
        for m in self._key_header.finditer(line):
            end = key_end.search(line, m.end())
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
            hit_start, hit_end = hit
            start = max(data.rfind(b"\n", 0, hit_start) + 1, pos)
            last = data.find(b"\n", max(hit_end - 1, hit_start))
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
        match = _patterns().body.match(data, start)
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
    shared = _patterns()
    if lower == value.upper():  # no letter
        return False
    if shared.template.match(value) or shared.placeholder.fullmatch(value) or _named(lower):
        return False
    if quoted:
        return True
    if b"(" in value or b"[" in value or (b"." in value and shared.reference.fullmatch(value)):
        return False
    if b" = " in value or b"==" in value:
        return False
    return not (loose and not shared.digit_or_symbol.search(value))


def _named(lower: bytes) -> bool:
    """Whether a value (in lower case) is the name of a thing: ``client_secret_basic``."""
    first = lower.find(b"_")
    if first < 0 or lower.translate(None, _NAME_CHARS):
        return False
    rest = lower[first + 1 :]
    return any(word in rest for word in _NAME_WORDS)


def secret_key(key: str) -> bool:
    """Whether a key (of a JSON object, an assignment) says its value is a secret."""
    data = key.encode("utf-8", "surrogatepass")
    shared = _patterns()
    return shared.secret_key.fullmatch(data) is not None and not shared.not_secret_key.search(data)


def plausible_value(value: str) -> bool:
    """Whether a string under a secret's key is a secret rather than a placeholder."""
    return _plausible(value.encode("utf-8", "surrogatepass"), None)


def valid_jwt(token: bytes) -> bool:
    """Whether ``token`` is a JSON Web Token in form: detect-secrets' own check
    (``JwtTokenDetector.is_formally_valid``: every dotted part base64url, the first two
    JSON), written out here because importing detect-secrets costs a fifth of a second."""
    import base64
    import binascii
    import json

    for index, part in enumerate(token.split(b".")):
        if len(part) % 4 == 1:
            return False
        try:  # padded as detect-secrets pads: "==" after 2 extra characters, "===" after 3
            decoded = base64.urlsafe_b64decode(part + b"=" * (len(part) % 4))
            if index < 2:
                json.loads(decoded.decode("utf-8"))
        except (binascii.Error, ValueError, UnicodeDecodeError):
            return False
    return True


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
