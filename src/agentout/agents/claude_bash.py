"""Claude Code's ``PostToolUse`` hook for its ``Bash`` tool: the command has run exactly as
the agent wrote it and as Claude Code's permissions decided; agentout only replaces what
the model reads of its output, when agentout's form is smaller or hides a secret.

Claude Code applies a PostToolUse hook's ``updatedToolOutput`` to a built-in tool when it
has that tool's own output shape (anthropics/claude-code#68951; read in the shipped client
2.1.332): for Bash an object whose ``stdout`` and ``stderr`` are strings and whose
``interrupted`` is a boolean; a string, or an object of another shape, is dropped. So the
answer is the ``tool_response`` object itself, ``stdout`` replaced and ``stderr`` with its
secrets hidden, every other field kept, but for three that would make Claude Code show a
2 KB preview of its own copy of the output instead of the answer: ``persistedOutputPath``,
``persistedOutputSize``, ``stdoutHoldsOutputEnd``.

The output is ``tool_response.stdout``, or, when Claude Code kept the whole of it in a file
because it was over its inline limit (``persistedOutputPath``; ``stdout`` then holds only
its start), that file, read as a regular file of at most ``MAX_OUTPUT`` bytes (Claude Code
keeps no more). It goes through ``agentout run``'s delivery (``deliver_output``) with the
reducer of ``tool_input.command``: one command (its redirections to /dev/null or 2>&1
aside) by its words, anything else as ``run --shell`` reads it; secrets hidden as it is
read; the complete output kept in the store whenever the model is not shown all of it.
The budget, unless the config's ``[shell] max_tokens`` sets one, is what Claude Code
would show inline: ``bashOutputMaxChars`` from its settings, else
``BASH_MAX_OUTPUT_LENGTH``, else 30,000 characters.

No answer when the model is better served by the output as printed: agentout's form is
the output unchanged and hides no secret; the call ran in the background, was interrupted
or returned an image; the command was ``agentout`` already (the PreToolUse hook routed
it, or the agent ran it so: nothing is reduced twice). A command that exits with another
status than 0 never gets here: Claude Code sends it to ``PostToolUseFailure``, which
cannot replace output (anthropics/claude-code#77180); the PreToolUse rewrite is the one
way to reduce it.

The same output twice in a session (``agentout.agents._seen``): one line naming the
earlier call and the stored copy, where that saves at least ``REPEAT_SAVES`` tokens;
``[shell] dedupe = false`` turns it off.
"""

from __future__ import annotations

import os

from agentout.agents._digest import sha256
from agentout.agents._markers import show_command
from agentout.agents._routing import truthy
from agentout.agents.claude_shell import delivered

TYPE_CHECKING = False  # typing is not imported at run time: the hook is timed
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence
    from typing import Any

    from agentout.agents._persisted import Folder
    from agentout.agents._shell import Script

__all__ = [
    "INLINE_CHARS",
    "MAX_OUTPUT",
    "REPEAT_SAVES",
    "BadPayload",
    "argv_of",
    "decide",
    "inline_limit",
    "repeated",
]

INLINE_CHARS = 30_000  # Claude Code's inline limit for Bash output, by default
_SETTING_MIN, _SETTING_MAX = 4_000, 128_000  # bashOutputMaxChars is clamped to these
MAX_OUTPUT = 64 << 20  # Claude Code keeps at most 64 MiB of a command's output
REPEAT_SAVES = 200  # tokens a "same output as before" line must save
_DROPPED = ("persistedOutputPath", "persistedOutputSize", "stdoutHoldsOutputEnd")
_COMMAND_SHOWN = 80


class BadPayload(Exception):
    """The payload is not what Claude Code sends for a finished Bash call."""


# -- settings --------------------------------------------------------------------------------


def inline_limit(environ: Mapping[str, str], setting: Any = None) -> int:
    """How many characters of a Bash command's output Claude Code shows inline:
    ``bashOutputMaxChars`` (clamped to 4,000-128,000), else ``BASH_MAX_OUTPUT_LENGTH``
    (read as Claude Code reads it: leading digits, at most 150,000), else 30,000."""
    if isinstance(setting, (int, float)) and not isinstance(setting, bool) and setting > 0:
        return int(min(max(setting, _SETTING_MIN), _SETTING_MAX))
    from agentout.deliver.limits import client_limit

    return client_limit(environ)


# -- the payload -----------------------------------------------------------------------------


def _response(payload: Mapping[str, Any]) -> dict[str, Any]:
    response = payload.get("tool_response")
    if not isinstance(response, dict):
        kind = "missing" if response is None else f"a {type(response).__name__}"
        raise BadPayload(f"tool_response is {kind}, not the Bash tool's output object")
    for key in ("stdout", "stderr"):
        if not isinstance(response.get(key), str):
            raise BadPayload(f"tool_response.{key} is not a string")
    if not isinstance(response.get("interrupted"), bool):
        raise BadPayload("tool_response.interrupted is not true or false")
    return response


_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _./:@%+,-")


def _parsed(command: str) -> Script | None:
    """The command's structure: words split at spaces when it holds nothing else a shell
    reads (most commands: no parser loaded), else tree-sitter's reading."""
    from agentout.agents._shell import Script, Segment, analyse

    if command.strip() and all(char in _WORD_CHARS for char in command):
        return Script(command, (Segment(command, tuple(command.split())),), True)
    return analyse(command) if len(command) <= 100_000 else None


def _runs_agentout(script: Script | None, command: str) -> bool:
    """Whether the command's output is agentout's already: it runs agentout itself
    (``agentout run``, a path to it, ``python -m agentout``), and every other part of it
    prints nothing (``cd x && agentout run ...``). ``cat .env; agentout --version``
    prints ``.env`` as it is: its output is read like any other."""
    if script is None:
        return False  # not read whole: nothing is taken for agentout's
    parts = [s.words or tuple(s.text.split()) for s in script.segments]
    ours = [_is_agentout(part) for part in parts]
    return any(ours) and all(mine or _silent(part) for part, mine in zip(parts, ours, strict=True))


def _is_agentout(part: Sequence[str]) -> bool:
    """``agentout ...`` (by any path), or a Python running it: ``python -m agentout``,
    ``python -P -m agentout`` (the markers' own form, ``agentout.process.python_module``)."""
    head = os.path.basename(part[0]) if part else ""
    if head == "agentout":
        return True
    flags = [word for word in part[1:3] if word.startswith("-") and word != "-m"]
    rest = tuple(part[1 + len(flags) : 3 + len(flags)])
    return head.startswith("python") and rest == ("-m", "agentout")


def _silent(part: Sequence[str]) -> bool:
    """A part that prints nothing: ``cd DIR``, ``true``, ``:``, ``export``/``unset NAME``
    (``export`` alone prints the environment)."""
    head = part[0] if part else ""
    if head in ("cd", "true", ":"):
        return True
    return head in ("export", "unset") and len(part) > 1 and not part[1].startswith("-")


def argv_of(script: Script | None, command: str) -> tuple[str, ...]:
    """The words whose reducer reads the output: one command's, else ``bash -c``'s (no
    reducer: the generic digest), as ``agentout run --shell`` reads it."""
    if script is not None and script.plain and not script.operators and script.segments:
        words = script.segments[0].words
        if words:
            return words
    return ("bash", "-c", command)


def _pieces(response: Mapping[str, Any], folder: Folder) -> tuple[Iterator[bytes], int | None]:
    """The whole output in pieces, and its size (None: unknown, in the client's own file,
    read only in ``folder``, where the client keeps such files: ``agents._persisted``)."""
    path = response.get("persistedOutputPath")
    if isinstance(path, str) and path:
        from agentout.agents._files import chunks
        from agentout.agents._persisted import confined

        return chunks(confined(path, folder), MAX_OUTPUT), None
    data = response["stdout"].encode("utf-8", "surrogatepass")
    return iter((data,)), len(data)


# -- the answer ------------------------------------------------------------------------------


def decide(
    payload: Mapping[str, Any],
    *,
    config: Mapping[str, Any] | None = None,
    source: str | None = None,
    environ: Mapping[str, str] | None = None,
    agentout: Sequence[str] | None = None,
    store: Any = None,
    seen_folder: str | None = None,
    output_setting: Any = None,
    record: bool = True,
    limit: int | None = None,
    exit_status: int = 0,
    persisted: Folder | None = None,
    agent: str = "claude",
) -> dict[str, Any] | None:
    """The hook's answer to one ``PostToolUse`` payload of ``Bash``, or None for none.

    Raises ``BadPayload`` for a payload of another shape, ``InputError`` for a bad config
    and ``OSError`` for a persisted output that cannot be read (the hook then answers
    nothing and says why). ``output_setting``: Claude Code's ``bashOutputMaxChars`` (None:
    read from its settings files); ``record``: write the ledger row (``discover`` does not).
    ``limit`` and ``exit_status``: another agent's inline limit, and the command's status
    when that agent hands over failed commands too (OpenCode); ``persisted``: the folder
    that agent keeps whole outputs in (None: Claude Code's), the only one read; ``agent``:
    whose client it is, for the ledger's row (what that client would have shown).
    """
    import time

    started = time.monotonic()
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict) or not isinstance(tool_input.get("command"), str):
        raise BadPayload("the payload has no tool_input.command")
    response = _response(payload)
    command = tool_input["command"]
    if truthy(tool_input.get("run_in_background")) or response.get("backgroundTaskId"):
        return None
    if response["interrupted"] or response.get("isImage") is True:
        return None
    script = _parsed(command)
    if _runs_agentout(script, command):
        return None
    session = payload.get("session_id")
    if isinstance(session, str) and session and delivered(session, response["stdout"]):
        return None  # agentout's functions in the session's shell delivered it already
    if config is None:  # the whole file checked: a bad one is off for every tool alike
        from agentout.agents._config import load_checked

        config, source = load_checked()
    from agentout.agents._config import shell_settings

    settings = shell_settings(config, source or "config.toml")
    if not settings["enabled"]:
        return None
    env = os.environ if environ is None else environ
    if persisted is None:
        from agentout.agents import _persisted

        persisted = _persisted.claude(env)
    pieces, size = _pieces(response, persisted)
    if size is not None and not response["stdout"].strip():
        return None
    if limit is None:
        if output_setting is None and (size is None or size > _SETTING_MIN):
            output_setting = _output_setting(payload, env)  # no limit is under _SETTING_MIN
        limit = inline_limit(env, output_setting)
    read = _Read(pieces, limit, store)
    if read.capture.size == 0:
        read.capture.discard()
        return None
    argv = argv_of(script, command)
    delivery = read.deliver(argv, limit, settings, exit_status, show_command(agentout))
    secrets = delivery.secrets
    text = None
    if delivery.form != "whole" or secrets:  # else the model reads it as printed
        text = str(delivery.text).rstrip("\n")
    ref = delivery.ref
    worth = read.capture.size >= REPEAT_SAVES  # a token is at least one byte
    if settings["dedupe"] and worth and isinstance(session, str) and session:
        from agentout.agents._seen import Seen

        seen = Seen(session, seen_folder)
        earlier = seen.get(read.digest)
        if earlier is not None:
            shown = text if text is not None else response["stdout"]
            head = show_command(agentout)
            repeat = _repeat(earlier, shown, read.redacted, ref, head, settings, store)
            if repeat is not None:
                text, ref = repeat
        seen.add(read.digest, _entry(payload.get("tool_use_id"), command, ref))
    stderr, found = _redact_text(response["stderr"]) if response["stderr"] else ("", 0)
    if text is None and found:
        text = response["stdout"]  # as printed: only its stderr held a secret
    if text is None:
        return None
    secrets += found
    if not secrets and len(text) >= read.chars:
        return None  # never more than the output (cannot happen; checked, not assumed)
    updated = {k: v for k, v in response.items() if k not in _DROPPED}
    updated["stdout"] = text
    updated["stderr"] = stderr
    if record:
        took = time.monotonic() - started
        _record(command, text, ref, read.redacted, secrets, took, exit_status, agent, limit)
    return {"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": updated}}


class _Read:
    """The output read once: into a ``Capture`` (secrets hidden as it arrives; the store
    past ``limit`` bytes), its SHA-256 (of the bytes as printed), its length (characters
    when small, else bytes: at least as many), and, when small, its bytes redacted."""

    def __init__(self, pieces: Iterator[bytes], limit: int, store: Any) -> None:
        from agentout.store.capture import Capture

        redactor = _redactor()
        self.stream = redactor.stream() if redactor is not None else None
        filters = (self.stream,) if self.stream is not None else ()
        self.capture = Capture(threshold=limit, store=store, filters=filters)
        hasher = sha256()
        size = 0
        for piece in pieces:
            hasher.update(piece)
            size += len(piece)
            self.capture.feed(piece)
        self.capture.close()
        self.digest = hasher.hexdigest()
        self.redacted = self.capture.whole(limit)
        self.chars = size
        if self.redacted is not None:
            self.chars = len(self.redacted.decode("utf-8", "replace"))

    def deliver(
        self,
        argv: Sequence[str],
        chars: int,
        settings: Mapping[str, Any],
        status: int = 0,
        command: str = "agentout",
    ) -> Any:
        """``agentout run``'s delivery of the output, within ``chars`` characters, its
        markers naming ``command show REF`` (the agentout the agent's shell can start)."""
        from agentout.deliver.text import TextSettings, deliver_output
        from agentout.formats.raw import Pager, RawFormat
        from agentout.reducers import find

        header: dict[str, Any] = {"exit": status}
        if self.stream is not None and self.stream.found.total:
            header["secrets"] = self.stream.found.total
        chars = max(chars, 1)
        max_tokens = settings["max_tokens"]
        budget = TextSettings(
            chars,
            max_tokens=max_tokens,
            # with no budget the threshold, the client's limit, bounds every form (and a
            # cut follows the client as agentout run's does); a token budget is kept to it too
            max_chars=None if max_tokens is None else chars,
            format=RawFormat(Pager.for_command(command)),
            tokenizer=settings["tokenizer"],
        )
        return deliver_output(
            self.capture, budget, argv=argv, exit_status=status, header=header, reducer=find(argv)
        )


def _redactor() -> Any:
    from agentout.redact import Redactor

    found = Redactor.from_environ()
    return found if found.enabled else None


def _redact_text(text: str) -> tuple[str, int]:
    redactor = _redactor()
    if redactor is None:
        return text, 0
    clean, found = redactor.redact_text(text)
    return clean, found.total


def _output_setting(payload: Mapping[str, Any], environ: Mapping[str, str]) -> Any:
    """``bashOutputMaxChars`` from the settings files Claude Code reads for this session."""
    from agentout.agents._claude_settings import project_output_chars

    return project_output_chars(payload, environ)


def repeated(
    session: str,
    digest: str,
    shown: str,
    redacted: bytes | None,
    ref: Any,
    *,
    call: str | None,
    command: str,
    folder: str | None = None,
) -> str | None:
    """The one line that names an earlier call of the session (``session``) that printed
    the same output (``digest``: its SHA-256, as printed), when it saves at least
    ``REPEAT_SAVES`` tokens over ``shown``, what the model would read; else None. This
    call is remembered either way. For a command run in the session's shell
    (``agentout.cli.run_capture``): ``redacted``, the output as kept when ``ref`` is None."""
    from agentout.agents._config import load_checked, shell_settings
    from agentout.agents._seen import Seen

    try:
        config, source = load_checked()
        settings = shell_settings(config, source)
    except Exception:  # a bad config is said where it is read; here: no repeat
        return None
    if not settings["dedupe"]:
        return None
    seen = Seen(session, folder)
    earlier = seen.get(digest)
    line = None
    if earlier is not None:
        found = _repeat(earlier, shown, redacted, ref, show_command(), settings, None)
        if found is not None:
            line, ref = found
    seen.add(digest, _entry(call, command, ref))
    return line


def _repeat(
    earlier: Mapping[str, Any],
    shown: str,
    redacted: bytes | None,
    ref: Any,
    head: str,
    settings: Mapping[str, Any],
    store: Any,
) -> tuple[str, Any] | None:
    """(the one line that names the earlier call, the stored copy) when it saves at least
    ``REPEAT_SAVES`` tokens over ``shown``, what the model would read; else None."""
    if len(shown.encode("utf-8", "surrogatepass")) < REPEAT_SAVES:
        return None  # a token is at least one byte: it cannot save enough
    if ref is None:
        ref = _store(redacted, store)
        if ref is None:
            return None
    from agentout.deliver.text import short_ref
    from agentout.tokens import count_until, get_tokenizer

    call = str(earlier.get("call") or "an earlier call")
    what = str(earlier.get("command") or "")
    named = f"`{what}` ({call})" if what else call
    line = (
        f"[agentout: the same output as {named} earlier in this session, not repeated"
        f" · {head} show {short_ref(ref)}]"
    )
    counter = get_tokenizer(settings["tokenizer"])
    if count_until(shown, counter.count(line) + REPEAT_SAVES - 1, counter) is not None:
        return None
    return line, ref


def _store(redacted: bytes | None, store: Any) -> Any:
    """The output kept in the store (named by its content, so the same bytes get the same
    reference), for a repeat of output that was shown whole the first time."""
    if redacted is None:
        return None
    from agentout.store.spill import SpillStore

    try:
        where = store if store is not None else SpillStore.default()
        with where.open(kind="run", suffix=".log", by_content=True) as writer:
            writer.write(redacted)
            return writer.commit()
    except Exception:  # the store failed: the output is shown as it would have been
        return None


def _entry(call: Any, command: str, ref: Any) -> dict[str, Any]:
    from agentout.deliver.text import short_ref

    shown, _ = _redact_text(" ".join(command.split()))
    if len(shown) > _COMMAND_SHOWN:
        shown = shown[: _COMMAND_SHOWN - 1] + "…"
    return {
        "call": call if isinstance(call, str) else None,
        "command": shown,
        "ref": short_ref(ref) if ref is not None else None,
    }


def _record(
    command: str,
    text: str,
    ref: Any,
    redacted: bytes | None,
    secrets: int,
    duration: float,
    status: int,
    agent: str = "claude",
    limit: int | None = None,
) -> None:
    """One ledger row, as ``agentout run`` writes one: the tokens of the whole output
    (from the store, or as read, secrets hidden), and of what ``agent``'s client would
    have shown of it within ``limit``, against those of the answer."""
    from agentout.ledger import book as ledger

    if not ledger.enabled():
        return
    raw_path = str(ref.path) if ref is not None else None
    raw = None
    if raw_path is None and redacted is not None:
        raw = redacted.decode("utf-8", "replace")
    ledger.record_later(
        tool="hook",
        command=command,
        delivered=text,
        raw=raw,
        raw_path=raw_path,
        duration=duration,
        exit_status=status,
        secrets=secrets,
        agent=agent,
        limit=limit,
    )
