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
block whose base64 body (indented, quoted, after a grep or diff prefix) is replaced up to
the ``-----END`` line, keeping the number of lines.

Coloured or obfuscated output (escape sequences, backspaces, zero-width or control
characters: ``_visible.DIRT``, one more family of the pass) is read as a reader sees it:
from the first such line of a chunk, the pass runs over the chunk's text with those taken
out (``_visible.Seen``, one C-speed substitution), each line it hits is read as printed
and as seen, and what is found is hidden in the bytes as printed, colour kept.

Nothing is compiled at import: the RE2 pass when a scanner is built, the rest when a line
first needs it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from functools import cached_property
from typing import TYPE_CHECKING, Any

from agentout.redact._names import PUBLIC_AWS, is_secret_name, kind_of_name
from agentout.redact._patterns import (
    _ASSIGNED,
    _AUTHORIZATION,
    _KEY_CHARS,
    _KEY_ENDS_BYTES,
    _LOOK_BACK,
    _TO_SEP,
    _URL_USERINFO,
    TAIL,
    WINDOW,
    _b,
    _fnmatch_regex,
    _patterns,
    _plausible,
    _re2_options,
    _searcher,
    placeholder,
    url_passwords,
    valid_jwt,
)
from agentout.redact._spans import CONTEXT, FORMAT, VALUE, Span, merge, replace
from agentout.redact._visible import DIRT, Seen, seen_lines

if TYPE_CHECKING:
    from agentout.redact._rules import Rule, RuleSet

__all__ = ["KeyBlock", "Scanner"]

# How much is read as seen once a line with something a reader does not see is met, at
# least and at most: then the bytes as printed again, so a stray control character costs
# little, and coloured output, dirty line after line, is read as seen in long stretches.
_STRETCH = (1 << 10, 1 << 16)


class KeyBlock:
    """A private key block still open at the end of the bytes scanned so far."""

    __slots__ = ("marked", "open")

    def __init__(self) -> None:
        self.open = False
        self.marked = False


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
        self._dirt = _searcher(re2.compile(_b(DIRT), _re2_options()))
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
            ("url", _b(_URL_USERINFO)),
            ("key", b"|".join(re.escape(_b(h)) for h in self._rules.key_headers)),
            ("dirt", _b(DIRT)),  # what a reader does not see: the line is read as seen too
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

        A line with something a reader does not see (``DIRT``) is read twice: as printed,
        and as seen (``_visible.Seen``), whose secrets are mapped back to the bytes; one
        with a backspace a third time, with the backspace only taken out.

        Only the exact rules of the candidates the line matches run, unless ``every``
        (for tests: what the exact rules find whatever the candidates say)."""
        found, opened, dirty = self._spans_in(line, every)
        if dirty:
            views = [Seen(line, self._dirty)]
            if b"\x08" in line:  # a backspace may overstrike, or only be there
                views.append(Seen(line, self._dirty, "out"))
            for seen in views:
                more, opened_seen, _ = self._spans_in(seen.text, every)
                found = merge(found + seen.to_raw(more))
                opened = opened or opened_seen
        return found, opened

    def _dirty(self, data: bytes) -> bool:
        return self._dirt(data, 0) is not None

    def _spans_in(self, line: bytes, every: bool) -> tuple[list[Span], bool, bool]:
        found: list[Span] = []
        opened = dirty = False
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
                    found.append((m.start(), m.end(), VALUE, "$" + self._values[m.group()]))
            elif name == "assigned":
                self._assigned(line, found)
            elif name == "authorization":
                self._authorization_spans(line, found)
            elif name == "url":
                found += [(*span, FORMAT, "url-password") for span in url_passwords(line)]
            elif name == "key":
                opened = self._private_key(line, found)
            elif name == "dirt":
                dirty = not every or self._dirty(line)
        return merge(found), opened, dirty

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
            return (start, end, CONTEXT, kind)
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
        if rule.kind == "url-password" and placeholder(line[start:end]):
            return None  # https://user:pass@host in a README: a stand-in, not a secret
        return (start, end, FORMAT, rule.kind)

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
        found.append((start, end, CONTEXT, kind))
        return True

    def _authorization_spans(self, line: bytes, found: list[Span]) -> None:
        shared = _patterns()
        for m in shared.header.finditer(line):
            if _plausible(m.group("value"), None, quoted=False, minimum=8):
                found.append((*m.span("value"), CONTEXT, "authorization"))
        for m in shared.bearer.finditer(line):
            value = m.group("value")
            if _plausible(value, None, quoted=False) and (
                shared.digit_or_symbol.search(value) or shared.mixed_case.match(value)
            ):
                found.append((*m.span("value"), CONTEXT, "bearer-token"))

    def _private_key(self, line: bytes, found: list[Span]) -> bool:
        key_end = _patterns().key_end
        opened = False
        for m in self._key_header.finditer(line):
            end = key_end.search(line, m.end())
            stop = end.start() if end else len(line)
            body = line[m.end() : stop]
            if body.strip(b" \t\r\\n\"',"):
                found.append((m.end(), stop, FORMAT, "private-key"))
            if end is None:
                opened = True
                break
        return opened

    # -- bytes made of whole lines --------------------------------------------------------

    def redact(self, data: bytes, block: KeyBlock, final: bool = True) -> tuple[bytes, list[str]]:
        """``data`` with its secrets replaced, and the kind of each. Unless ``final``,
        ``data`` ends at a line end; ``block`` carries an open private key across calls.

        The one pass runs over the bytes as printed until it meets a line with something
        a reader does not see (colour, a backspace, a zero-width character: ``DIRT``);
        from that line it runs over the next stretch of text as seen (``_visible``), and
        what it finds there is hidden in the bytes as printed; then as printed again. Each
        line it hits is read both ways, so where the pass switches changes nothing: any
        chunking gives the same bytes."""
        hidden: list[Span] = []
        kinds: list[str] = []
        pos: int | None = 0
        stretch = _STRETCH[0]
        while pos is not None and pos < len(data):
            switch = self._walk(data, pos, block, hidden, kinds)
            if switch is None:
                break
            # Coloured output is dirty line after line: read it as seen in longer stretches.
            stretch = min(stretch * 4, _STRETCH[1]) if switch == pos else _STRETCH[0]
            pos = self._walk_seen(data, switch, stretch, block, hidden, kinds)
        if final:
            block.open = block.marked = False
        return replace(data, hidden), kinds

    def _walk(
        self, data: bytes, pos: int, block: KeyBlock, hidden: list[Span], kinds: list[str]
    ) -> int | None:
        """The pass over clean bytes from ``pos`` (a line start); where the next lines must
        be read as seen, or None."""
        n = len(data)
        if block.open:
            start, pos = pos, self._body_end(data, pos)
            if self._dirty_through(data, start, pos):
                return start
            self._hide_body(data, start, pos, self._same_line(data), block, hidden, kinds)
        while pos < n:
            hit = self._search(data, pos)
            if hit is None:
                break
            hit_start, hit_end = hit
            start = max(data.rfind(b"\n", 0, hit_start) + 1, pos)
            last = data.find(b"\n", max(hit_end - 1, hit_start))
            last = n if last < 0 else last
            if self._dirt(data, start, last) is not None:
                return start
            while start <= last:  # every line the hit touches
                end = data.find(b"\n", start, last + 1)
                end = last if end < 0 else end
                before = len(kinds)
                opened = self._line(data, start, end, hidden, kinds)
                pos = end
                if opened:
                    block.marked = "private-key" in kinds[before:]
                    body = min(end + 1, n)
                    pos = self._body_end(data, body)
                    if self._dirty_through(data, body, pos):
                        block.open = True
                        return body
                    self._hide_body(data, body, pos, self._same_line(data), block, hidden, kinds)
                    break
                start = end + 1
        return None

    def _walk_seen(
        self,
        data: bytes,
        origin: int,
        stretch: int,
        block: KeyBlock,
        hidden: list[Span],
        kinds: list[str],
    ) -> int:
        """The pass over the lines from ``origin`` for about ``stretch`` bytes as a reader
        sees them; each line it hits is read from the bytes as printed (``_line``), and a
        private key body is hidden there. Returns where the stretch ends (a line start).
        Where it ends changes nothing: a line is seen the same whatever stretch holds it."""
        end = data.find(b"\n", origin + stretch)
        stop = len(data) if end < 0 else end + 1
        raw = data[origin:stop]
        text = seen_lines(raw, self._dirt)
        n = len(text)
        lines: list[bytes] = []  # the lines of ``raw``, split on first need
        line = 0  # the line of text[counted], which starts at data[first]
        counted, first = 0, origin

        def raw_at(at: int) -> int:
            """Where the line that starts at ``at`` in the text starts in ``data``."""
            nonlocal counted, line, first
            if at >= n:
                return stop
            if not lines:
                lines.extend(raw.split(b"\n"))
            ahead = text.count(b"\n", counted, at)
            first += sum(map(len, lines[line : line + ahead])) + ahead
            line += ahead
            counted = at
            return first

        def raw_line(at: int) -> tuple[int, int]:
            """Where the line that starts at ``at`` in the text is in ``data``."""
            start = raw_at(at)
            end = data.find(b"\n", start, stop)
            return start, stop if end < 0 else end

        pos = 0
        if block.open:
            pos = self._body_end(text, 0)
            self._hide_body(text, 0, pos, raw_line, block, hidden, kinds)
        while pos < n:
            hit = self._search(text, pos)
            if hit is None:
                break
            hit_start, hit_end = hit
            start = max(text.rfind(b"\n", 0, hit_start) + 1, pos)
            last = text.find(b"\n", max(hit_end - 1, hit_start))
            last = n if last < 0 else last
            while start <= last:
                end = text.find(b"\n", start, last + 1)
                end = last if end < 0 else end
                before = len(kinds)
                opened = self._line(data, *raw_line(start), hidden, kinds)
                pos = end
                if opened:
                    block.marked = "private-key" in kinds[before:]
                    body = min(end + 1, n)
                    pos = self._body_end(text, body)
                    self._hide_body(text, body, pos, raw_line, block, hidden, kinds)
                    break
                start = end + 1
        return stop

    def _line(
        self, data: bytes, start: int, end: int, hidden: list[Span], kinds: list[str]
    ) -> bool:
        """The secrets of the line ``data[start:end]``; one longer than ``window`` is read
        window by window, as a stream reads it when it arrives in pieces."""
        while end - start > self.window:
            spans, cut = self._window(data[start : start + self.window])
            hidden += [(s + start, e + start, p, k) for s, e, p, k in spans]
            kinds += [kind for _, _, _, kind in spans]
            start += cut
        spans, opened = self.spans(data[start:end])
        hidden += [(s + start, e + start, p, k) for s, e, p, k in spans]
        kinds += [kind for _, _, _, kind in spans]
        return opened

    def window_of(self, piece: bytes) -> tuple[bytes, list[str], int]:
        """A window of a line too long to hold: its first part redacted, the kinds found
        there, and where the next window starts (``tail`` bytes before the end, or after
        a secret that crosses that point, so no secret is cut in two)."""
        kept, cut = self._window(piece)
        return replace(piece[:cut], kept), [kind for _, _, _, kind in kept], cut

    def _window(self, piece: bytes) -> tuple[list[Span], int]:
        spans, _ = self.spans(piece)
        cut = len(piece) - self.tail
        kept = [span for span in spans if span[0] < cut]
        if kept:
            cut = max(cut, kept[-1][1])
        return kept, cut

    # -- private key bodies ---------------------------------------------------------------

    def _body_end(self, data: bytes, start: int) -> int:
        """Where the private key body that starts at ``start`` (a line start) ends."""
        match = _patterns().body.match(data, start)
        return match.end() if match else start

    def _dirty_through(self, data: bytes, start: int, stop: int) -> bool:
        """Whether a body read in the bytes as printed, from ``start`` to ``stop``, or the
        line it stops at holds anything a reader does not see: then it is read as seen."""
        end = data.find(b"\n", stop)
        return self._dirt(data, start, len(data) if end < 0 else end) is not None

    @staticmethod
    def _same_line(data: bytes) -> Callable[[int], tuple[int, int]]:
        """Where a line of ``data`` is, read as printed: where it is."""

        def place(at: int) -> tuple[int, int]:
            end = data.find(b"\n", at)
            return at, len(data) if end < 0 else end

        return place

    def _hide_body(
        self,
        text: bytes,
        start: int,
        stop: int,
        raw_line: Callable[[int], tuple[int, int]],
        block: KeyBlock,
        hidden: list[Span],
        kinds: list[str],
    ) -> None:
        """Hide the private key body ``text[start:stop]`` (whole lines, as read), line by
        line in the bytes as printed (``raw_line``: where a line of the text is there):
        the block's first line that is not blank becomes its marker, the others empty,
        blank lines stay. Line by line, so the bytes are the same however the body is cut
        into chunks. It may go on in the next chunk when it runs to the end of the text."""
        pos = start
        while pos < stop:
            end = text.find(b"\n", pos, stop)
            end = stop if end < 0 else end
            if text[pos:end].strip():
                kind = ""
                if not block.marked:
                    block.marked = True
                    kinds.append("private-key")
                    kind = "private-key"
                first, last = raw_line(pos)
                hidden.append((first, last, FORMAT, kind))
            pos = end + 1
        block.open = stop >= len(text)
        if not block.open:
            block.marked = False
