"""What a secret looks like: the keys that name one, the values that are one, and the
expressions every scanner shares (compiled once, on first need).
"""

from __future__ import annotations

import re
from typing import Any, Protocol

__all__ = ["TAIL", "WINDOW", "plausible_value", "secret_key", "valid_jwt"]

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
# A URL's password (``scheme://user:password@host``), as URL parsers read an authority: it
# ends at a blank, ``/``, ``?``, ``#`` or a quote, its last ``@`` ends the user's part,
# whose first ``:`` starts the password; so a password holds any other character (``@``,
# ``:``, ``!``...), and the user may be empty (``redis://:password@host``).
_AUTHORITY_CHARS = r"[^\s/?#\"'`<>\\]"
_URL_USERINFO = rf"://{_AUTHORITY_CHARS}*:{_AUTHORITY_CHARS}*@"
# What may stand before a line's own text: grep's "path:12:" or "path-12-" (a path with no "="
# in it, so a "KEY=" line is not first read as one), cat -n, a diff.
_PREFIX = rb"(?:[^\s:=]+:(?:\d+:)?|[^\s:=]+-\d+-|[ \t]*\d+\t|[+\- ])?"
_QUOTED = rb"\"[^\"\n]*\"|'[^'\n]*'"
_COMMON_VALUES = frozenset(
    b"none null nil true false yes no str string bytes int bool boolean number object any"
    b" optional undefined empty required redacted hidden masked secret password token"
    b" changeme xxxxxxxx secretstr value pass passwd pwd example placeholder dummy".split()
)
# A line of a private key's body: after a grep or cat -n prefix, a diff's or a quote's mark
# and any indentation (a YAML block scalar, code), a run of base64, maybe in a string
# literal (``"MIIE...\n"`` then ``,``, ``+`` or a backslash), or a ``Proc-Type:`` header line,
# or nothing. Spaces are read once (leading, or blank), so no line backtracks quadratically.
_BODY_LINE = (
    rb"(?:[^\s:]{1,256}[:-]\d+[:-]|[ \t]*\d+\t)?[+\->]?"
    rb"(?:[ \t]*(?:(?:[bBrRuUfF]{0,2}[\"'`])?[A-Za-z0-9+/=]{1,1024}(?:\\r)?(?:\\n)?[\"'`]?"
    rb"(?:[ \t]*[,+\\])?|[A-Za-z][A-Za-z0-9-]{0,63}: [^\n]{0,1024})[ \t]*|[ \t]*)\r?"
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
        self.authority = re.compile(rb"://(" + _AUTHORITY_CHARS.encode() + rb"*@)")


class Search(Protocol):
    def __call__(self, data: bytes, pos: int, end: int = -1) -> tuple[int, int] | None: ...


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


def _searcher(compiled: Any) -> Search:
    """``search(data, pos, end)``: the span of the first hit in ``data[pos:end]`` (``end``
    -1: to the end), or None.

    google-re2's ``search`` wraps each call in a generator and a match object; a hit line
    of secret-dense output pays that on every line, so its compiled expression is called
    directly when this google-re2 has it (the public call otherwise: slower, the same)."""
    import re2

    raw = getattr(compiled, "_regexp", None)
    anchor = getattr(getattr(re2, "_Anchor", None), "UNANCHORED", None)
    if raw is not None and anchor is not None and hasattr(raw, "Match"):
        match = raw.Match

        def direct(data: bytes, pos: int, end: int = -1) -> tuple[int, int] | None:
            span: tuple[int, int] = match(anchor, data, pos, len(data) if end < 0 else end)[0]
            return None if span[0] < 0 else span

        return direct

    def public(data: bytes, pos: int, end: int = -1) -> tuple[int, int] | None:
        found = compiled.search(data, pos, len(data) if end < 0 else end)
        return None if found is None else found.span()

    return public


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


def url_passwords(line: bytes) -> list[tuple[int, int]]:
    """Where the passwords of the URLs in ``line`` are (``_URL_USERINFO``); a stand-in
    (``user:pass@``, ``:${DB_PASSWORD}@``) is none."""
    found = []
    for m in _patterns().authority.finditer(line):  # greedy: up to the authority's last @
        colon = m.group(1).find(b":")
        if colon < 0:
            continue
        start, end = m.start(1) + colon + 1, m.end(1) - 1
        value = line[start:end]
        if value and not placeholder(value) and not _patterns().template.match(value):
            found.append((start, end))
    return found


def placeholder(value: bytes) -> bool:
    """Whether a value, however short, is a word that stands for a secret rather than one
    (``://user:pass@``, ``KEY=value``, ``<token>``, ``***``)."""
    return value.lower() in _COMMON_VALUES or _patterns().placeholder.fullmatch(value) is not None


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
