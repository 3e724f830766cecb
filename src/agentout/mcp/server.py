"""``agentout serve``: agentout's library as MCP tools, every result within its budget.

Each tool is a thin shell over the same library call the CLI makes (``pack``,
``deliver_records``, ``LogSink``, ``page``, ``query``, the notes results, the pytest
plugin), returned through ``results.to_result``: the packed text, a ``resource_link`` for
each spilled file, and, where the result is data, ``structuredContent`` budgeted the same
way. The spill store is exposed as resources (``agentout://spill/NAME``).

Safety: files are read only under the roots (``Roots``) or from the spill store;
``run_command`` exists only when the server was given an allowlist; children never get
the server's stdin. Bad input becomes an error result (``isError``) with the reason.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import sys
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Annotated, Any, Literal, TypedDict

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.types import CallToolResult, Resource, ToolAnnotations
from pydantic import Field

from agentout.deliver import Delivery, PackSettings, Spool, deliver_records, finish
from agentout.errors import AgentoutError, InputError
from agentout.mcp.fit import (
    DEFAULT_MAX_TOKENS,
    MAX_TOKENS,
    MIN_TOKENS,
    SPILL_URI,
    Limits,
)
from agentout.mcp.guard import Allowlist, Roots
from agentout.mcp.process import run_bounded
from agentout.mcp.results import Reply, mime_type, to_result
from agentout.pack import pack
from agentout.records import Result
from agentout.spill import NAME_PATTERN, SpillRef, SpillStore
from agentout.tokens import Tokenizer, get_tokenizer
from agentout.truncate import truncate_string

__all__ = ["RESOURCE_READ_LIMIT", "ServerConfig", "create_server"]

RESOURCE_READ_LIMIT = 32 << 20  # a bigger spilled file is paged with read_output instead
_LISTED_RESOURCES = 500  # resources/list shows the newest this many spilled files
_MAX_TEXT = 8 << 20  # characters of a text argument (count_tokens)
_MAX_ITEMS = 1000
_SHORT = 4096  # characters of a pattern, a query, a path

INSTRUCTIONS = (
    "agentout keeps every tool result within a token budget (max_tokens) without losing "
    "anything: what does not fit is kept in a private file, named in the result and linked "
    "as an agentout://spill/ resource; page through it with read_output."
)


@dataclass(frozen=True)
class ServerConfig:
    """What ``agentout serve`` was started with."""

    roots: Roots
    allow: Allowlist
    store: SpillStore
    max_tokens: int = DEFAULT_MAX_TOKENS
    tokenizer: Tokenizer | None = None

    def limits(self, max_tokens: int | None, inline_threshold: int | None = None) -> Limits:
        return Limits.of(
            max_tokens,
            inline_threshold,
            self.tokenizer,
            self.store,
            default_tokens=self.max_tokens,
        )


# One line each: what the tool does and what comes back, for an agent choosing a tool.
DESCRIPTIONS = {
    "count_tokens": "Count the exact tokens of a text or a file (o200k_base unless another "
    "tokenizer is named).",
    "read_output": "Page through a file an earlier result spilled, by line range and/or "
    "regex, within max_tokens; the last line gives the next range.",
    "cleanup_temp_files": "Delete agentout's spilled result files older than max_age_days "
    "(default 7); returns how many, the bytes freed and their names.",
    "query_records": "Query JSON/JSONL/YAML/Markdown records (BM25 text query, FIELD=VALUE, "
    "JMESPath filter, sort) and return the best matches within max_tokens; the complete "
    "matching set is kept in a file.",
    "notes_context": "Return chosen notes of a Markdown notes folder (by id or text query): "
    "summaries first, bodies and links on request, within max_tokens.",
    "run_tests": "Run the project's pytest suite (or chosen tests) and return the failures "
    "that matter within max_tokens; the full report is kept in a file.",
}
RUN_COMMAND = (
    "Run one allowed executable ({allowed}) with its arguments, no shell, in the project "
    "root, and return the output lines that matter (errors first) within max_tokens; the "
    "complete output is kept in a file."
)

MaxTokens = Annotated[
    int | None,
    Field(
        ge=MIN_TOKENS,
        le=MAX_TOKENS,
        description="Token budget of the result, counted exactly (default: the server's, "
        f"{DEFAULT_MAX_TOKENS} unless started with --max-tokens); what does not fit is kept "
        "in a file the result names.",
    ),
]
Threshold = Annotated[
    int | None,
    Field(
        ge=0,
        le=1 << 30,
        description="Results up to this many bytes come inline; larger ones are kept in a "
        "file and summarised (default $AGENTOUT_INLINE_THRESHOLD or 8192).",
    ),
]
Short = Annotated[str, Field(max_length=_SHORT)]
Argument = Annotated[str, Field(max_length=_MAX_TEXT)]


class CountResult(TypedDict):
    """The exact count of the text (or file) by the tokenizer named."""

    tokens: int
    chars: int
    tokenizer: str
    source: str


class CleanupResult(TypedDict):
    """What was removed and freed (with dry_run: what would be); files by name."""

    removed: int
    bytes_freed: int
    dry_run: bool
    files: list[str]


@contextlib.contextmanager
def _tool_errors() -> Iterator[None]:
    """agentout's own errors (bad input, a refused path) become the tool's error result."""
    try:
        yield
    except ToolError as exc:
        raise ToolError(_clipped(str(exc))) from exc
    except (AgentoutError, ValueError, OSError) as exc:
        raise ToolError(_clipped(str(exc))) from exc


# An error message repeats the caller's argument, which may be huge: it is cut to fewer
# tokens than the smallest budget a call may ask for, so an error is within budget too.
_ERROR_TOKENS = 150


def _clipped(message: str) -> str:
    return truncate_string(message, _ERROR_TOKENS)


def _tool_message(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


class _AgentoutServer(MCPServer[Any]):
    """MCPServer whose resource list is the spill store's current files."""

    def __init__(self, store: SpillStore, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.store = store

    async def list_resources(self) -> list[Resource]:
        listed = await super().list_resources()
        stored = [f for f in self.store.files() if NAME_PATTERN.match(f.path.name)]
        for stored_file in stored[-_LISTED_RESOURCES:]:
            name = stored_file.path.name
            listed.append(
                Resource(
                    uri=SPILL_URI + name,
                    name=name,
                    mime_type=mime_type(name),
                    size=stored_file.size,
                    description="a result agentout kept complete; page it with read_output",
                )
            )
        return listed

    async def read_resource(self, uri: Any, context: Any = None) -> Any:
        """As MCPServer reads it, with each spilled file's own MIME type."""
        contents = await super().read_resource(uri, context)
        name = str(uri).removeprefix(SPILL_URI)
        if not str(uri).startswith(SPILL_URI) or not isinstance(contents, list):
            return contents
        return [replace(content, mime_type=mime_type(name)) for content in contents]


def _spill_ref(store: SpillStore, name: str) -> SpillRef:
    path = store.resolve(name)
    with store.open_ref(name) as handle:
        data = handle.read()
    lines = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    return SpillRef(path=path, ref=path.name, size=len(data), lines=lines)


def _deliver_result(result: Result, limits: Limits, kind: str) -> Delivery:
    """A ``Result`` delivered hybrid, as ``deliver_records`` delivers rows: inline when it
    fits whole, else its complete rendering spilled and the result packed with the ref."""
    settings = PackSettings(limits.max_tokens, None, "records", limits.tokenizer)
    spool = Spool(
        threshold=limits.inline_threshold,
        kind=kind,
        suffix=".txt",
        store=limits.store,
        by_content=True,
    )
    spool.write(pack(result, tokenizer=limits.tokenizer).text.encode("utf-8"))

    # "delivery", not deliver's "mode": a result's header may hold a mode of its own
    def inline(limited: bool) -> Any:
        head = {**result.header, "delivery": "inline"}
        shown = Result(result.records, head, result.summary, result.total)
        return settings.pack(shown, limited=limited)

    def reference(ref: SpillRef, head: dict[str, Any]) -> tuple[Result, None]:
        return Result(result.records, head, result.summary, result.total), None

    filed = {**result.header, "delivery": "file"}
    return finish(spool, "auto", inline, settings, filed, reference)


def create_server(config: ServerConfig) -> MCPServer[Any]:
    """The MCP server with agentout's tools and the spill store as resources."""
    server = _AgentoutServer(
        config.store,
        name="agentout",
        instructions=INSTRUCTIONS,
        version=_version(),
        log_level="WARNING",
    )
    roots, store = config.roots, config.store

    def readable(path: str) -> str:
        """A file a tool may read: under the roots, or spilled (agentout://spill/NAME)."""
        if path.startswith(SPILL_URI):
            return str(store.resolve(path[len(SPILL_URI) :]))
        return str(roots.resolve(path))

    # -- count_tokens ----------------------------------------------------------------------

    @server.tool(
        description=DESCRIPTIONS["count_tokens"],
        annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True),
    )
    def count_tokens(
        text: Annotated[
            str | None, Field(max_length=_MAX_TEXT, description="The text to count.")
        ] = None,
        path: Annotated[
            str | None,
            Field(
                max_length=_SHORT,
                description="A file to count instead (under the project roots, or an "
                "agentout://spill/ URI).",
            ),
        ] = None,
        tokenizer: Annotated[
            str | None,
            Field(
                max_length=_SHORT,
                description="o200k_base (default), cl100k_base, a model name (gpt-4o, "
                "gpt-4), or chars4.",
            ),
        ] = None,
    ) -> Annotated[CallToolResult, CountResult]:
        with _tool_errors():
            if (text is None) == (path is None):
                raise ToolError("give either text or path (exactly one of them)")
            from agentout.sources._text import read_text
            from agentout.tokens import count_stream

            tok = get_tokenizer(tokenizer)
            if text is not None:
                tokens, chars, source = tok.count(text), len(text), "text"
            else:
                assert path is not None
                lengths: list[int] = []

                def pieces(real: str = readable(path), name: str = path) -> Iterator[str]:
                    for piece in read_text(real, name=name):  # 1 MiB at a time
                        lengths.append(len(piece))
                        yield piece

                tokens = count_stream(pieces(), tok)
                chars, source = sum(lengths), path
            data: dict[str, Any] = {
                "tokens": tokens,
                "chars": chars,
                "tokenizer": tok.name,
                "source": source,
            }
            said = f"{tokens} tokens ({tok.name}), {chars} characters: {source}\n"
            return to_result(Reply(said, structured=data), config.limits(None))

    # -- read_output -----------------------------------------------------------------------

    @server.tool(
        description=DESCRIPTIONS["read_output"],
        annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True),
    )
    def read_output(
        ref: Annotated[
            str,
            Field(
                max_length=_SHORT,
                description="The spilled file: its name (ref=...), its agentout://spill/ "
                "URI, or its path in the store.",
            ),
        ],
        lines: Annotated[
            str | None,
            Field(
                max_length=64,
                description="Lines A:B (from 1), A: to the end, or :B; default all.",
            ),
        ] = None,
        grep: Annotated[
            str | None,
            Field(max_length=_SHORT, description="Only lines matching this regex."),
        ] = None,
        ignore_case: Annotated[bool, Field(description="Match grep case-insensitively.")] = False,
        part: Annotated[
            int,
            Field(
                ge=1,
                le=1 << 30,
                description="Start at this part of the first line, when a long line is "
                "shown in parts (as the last line's next says).",
            ),
        ] = 1,
        max_tokens: MaxTokens = None,
    ) -> CallToolResult:
        from agentout.page import LineRange, page

        with _tool_errors():
            limits = config.limits(max_tokens)
            name = ref[len(SPILL_URI) :] if ref.startswith(SPILL_URI) else ref
            try:
                span = LineRange.parse(lines) if lines is not None else None
                packed = page(
                    name,
                    lines=span,
                    grep=grep,
                    ignore_case=ignore_case,
                    max_tokens=limits.max_tokens,
                    tokenizer=limits.tokenizer,
                    store=store,
                    part=part,
                )
            except ValueError as exc:  # the library names its CLI flags
                message = str(exc)
                for flag in ("lines", "grep", "part"):
                    message = message.replace(f"--{flag}", flag)
                raise ToolError(message) from exc
            return to_result(Reply(packed.text), limits)

    # -- cleanup_temp_files ----------------------------------------------------------------

    @server.tool(
        description=DESCRIPTIONS["cleanup_temp_files"],
        annotations=ToolAnnotations(destructive_hint=True, idempotent_hint=True),
    )
    def cleanup_temp_files(
        max_age_days: Annotated[
            float,
            Field(
                ge=0,
                le=36500,
                description="Remove spilled files last written more than this many days "
                "ago; 0 removes them all.",
            ),
        ] = 7,
        dry_run: Annotated[bool, Field(description="Only list what would be removed.")] = False,
        max_tokens: MaxTokens = None,
        inline_threshold_bytes: Threshold = None,
    ) -> Annotated[CallToolResult, CleanupResult]:
        with _tool_errors():
            limits = config.limits(max_tokens, inline_threshold_bytes)
            removed = store.clean(max_age_days * 86400, dry_run=dry_run)
            freed = sum(stored.size for stored in removed)
            names = [stored.path.name for stored in removed]
            header = {  # a dry run says what a real one would do, in words of its own
                "would_remove" if dry_run else "removed": len(removed),
                "would_free" if dry_run else "bytes_freed": freed,
                "store": str(store.root),
            }
            delivery = deliver_records(
                ({"file": stored.path.name, "bytes": stored.size} for stored in removed),
                header=header,
                max_tokens=limits.max_tokens,
                inline_threshold=limits.inline_threshold,
                tokenizer=limits.tokenizer,
                store=store,
                kind="clean",
            )
            data: dict[str, Any] = {
                "removed": len(removed),
                "bytes_freed": freed,
                "dry_run": dry_run,
                "files": names,
            }
            reply = Reply.of_delivery(delivery)
            return to_result(Reply(reply.text, reply.refs, data, meta=reply.meta), limits)

    # -- query_records ---------------------------------------------------------------------

    @server.tool(
        description=DESCRIPTIONS["query_records"],
        annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True),
    )
    def query_records(
        paths: Annotated[
            list[Short],
            Field(
                min_length=1,
                max_length=_MAX_ITEMS,
                description="Files, directories or globs of JSON, JSONL, YAML or Markdown "
                "(front matter) records, under the project roots.",
            ),
        ],
        query: Annotated[
            str | None,
            Field(max_length=_SHORT, description="Rank records by BM25 relevance to this text."),
        ] = None,
        where: Annotated[
            list[Short],
            Field(
                max_length=100,
                description="FIELD=VALUE exact matches (dotted paths), all required.",
            ),
        ] = [],  # noqa: B006 - pydantic copies defaults; the schema shows []
        filter: Annotated[
            str | None,
            Field(
                max_length=_SHORT, description="Keep records this JMESPath expression is true for."
            ),
        ] = None,
        sort: Annotated[
            str | None,
            Field(max_length=256, description="Order by FIELD, or -FIELD descending."),
        ] = None,
        mode: Annotated[
            Literal["agent", "verbose"],
            Field(description="agent: summary fields, 3 records; verbose: every field, 10."),
        ] = "agent",
        limit: Annotated[
            int | None, Field(ge=1, le=100_000, description="At most this many records.")
        ] = None,
        max_tokens: MaxTokens = None,
        inline_threshold_bytes: Threshold = None,
    ) -> CallToolResult:
        from agentout.sources.collection import CollectionError
        from agentout.sources.collection import query as run_query
        from agentout.sources.collection.load import LoadReport, expand

        with _tool_errors():
            limits = config.limits(max_tokens, inline_threshold_bytes)
            files: list[str] = []
            for given in paths:
                matches = roots.expand(given)
                if not matches:
                    raise InputError("no files match this pattern", given)
                for real in matches:
                    if real.is_dir():
                        roots.check_tree(real)
                        for name, _ in expand(str(real), LoadReport()):
                            roots.resolve(name)
                    files.append(roots.openable(real))
            try:
                answer = run_query(
                    files,
                    query=query,
                    where=where,
                    filter=filter,
                    sort=sort,
                    mode=mode,
                    limit=limit,
                    max_tokens=limits.max_tokens,
                    tokenizer=limits.tokenizer,
                    inline_threshold=limits.inline_threshold,
                    store=store,
                )
            except CollectionError as exc:
                problems = [str(p) for p in exc.report.problems[:5]]
                more = f" ({'; '.join(problems)})" if len(problems) > 1 else ""
                raise ToolError(f"{exc}{more}") from exc
            meta: dict[str, Any] = {"matched": answer.matched, "files": answer.report.files}
            if answer.report.problems:
                meta["problems"] = [str(p) for p in answer.report.problems[:20]]
            refs = (answer.spill,) if answer.spill is not None else ()
            return to_result(Reply(answer.text, refs, meta=meta), limits)

    # -- notes_context ---------------------------------------------------------------------

    @server.tool(
        description=DESCRIPTIONS["notes_context"],
        annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True),
    )
    def notes_context(
        directory: Annotated[
            str,
            Field(max_length=_SHORT, description="The folder of Markdown notes (under the roots)."),
        ] = ".",
        notes: Annotated[
            list[Short],
            Field(max_length=_MAX_ITEMS, description="Notes to include: ids, paths or file names."),
        ] = [],  # noqa: B006 - pydantic copies defaults
        query: Annotated[
            str | None,
            Field(max_length=_SHORT, description="Add the notes best matching this text."),
        ] = None,
        limit: Annotated[
            int, Field(ge=1, le=1000, description="At most this many query matches.")
        ] = 10,
        with_body: Annotated[bool, Field(description="Add each note's Markdown body.")] = False,
        with_edges: Annotated[bool, Field(description="Add each note's links, both ways.")] = False,
        max_tokens: MaxTokens = None,
        inline_threshold_bytes: Threshold = None,
    ) -> CallToolResult:
        from agentout.sources.notes import context_result, load_vault

        with _tool_errors():
            if not notes and not query:
                raise ToolError("name notes with notes=[ID, ...], or find them with query=TEXT")
            limits = config.limits(max_tokens, inline_threshold_bytes)
            real = roots.resolve(directory)
            if not real.is_dir():
                raise InputError("not a folder of notes", directory)
            roots.check_tree(real)
            vault = load_vault(roots.openable(real))
            result = context_result(
                vault,
                notes=notes,
                query=query,
                limit=limit,
                with_body=with_body,
                with_edges=with_edges,
            )
            meta: dict[str, Any] = {}
            if vault.problems:
                meta["problems"] = [str(p) for p in vault.problems[:20]]
            delivery = _deliver_result(result, limits, kind="notes")
            return to_result(Reply.of_delivery(delivery, **meta), limits)

    # -- run_tests -------------------------------------------------------------------------

    @server.tool(
        description=DESCRIPTIONS["run_tests"],
        annotations=ToolAnnotations(read_only_hint=False, idempotent_hint=True),
    )
    def run_tests(
        tests: Annotated[
            list[Short],
            Field(
                max_length=_MAX_ITEMS,
                description="Test files, directories or node ids (file.py::test_name) "
                "under the project root; default: the whole suite.",
            ),
        ] = [],  # noqa: B006 - pydantic copies defaults
        keyword: Annotated[
            str | None,
            Field(max_length=_SHORT, description="Only tests matching this -k expression."),
        ] = None,
        marker: Annotated[
            str | None,
            Field(max_length=_SHORT, description="Only tests matching this -m expression."),
        ] = None,
        focus: Annotated[
            Literal["summary", "critical", "first-failure", "failures", "debug"],
            Field(
                description="summary: counts; critical: errors only; first-failure: one per "
                "file; failures: all; debug: all, with source lines."
            ),
        ] = "failures",
        max_failures: Annotated[
            int | None, Field(ge=1, le=100_000, description="Stop after this many failures.")
        ] = None,
        timeout_seconds: Annotated[
            float, Field(gt=0, le=86_400, description="Stop the run after this long.")
        ] = 900,
        max_tokens: MaxTokens = None,
    ) -> CallToolResult:
        with _tool_errors():
            limits = config.limits(max_tokens)
            selected = []
            for test in tests:
                # pytest reads options from "-x" and whole argument files from "@FILE"
                if test.startswith(("-", "@")):
                    raise ToolError(f"{test}: a test, not an option (use keyword, marker)")
                path, separator, node = test.partition("::")
                # what pytest gets is the checked path itself, never the caller's string
                selected.append(f"{roots.resolve(path)}{separator}{node}")
            argv = [sys.executable, "-m", "pytest", "--agent", f"--agent-focus={focus}"]
            argv += [f"--agent-limit={limits.max_tokens}", "--agent-format=records"]
            argv.append(f"--agent-tokenizer={limits.tokenizer.name}")
            # attached, so a value starting with "-" is an expression, never an option; an
            # empty one selects nothing out, as pytest's own -k "" does (a bare -k would
            # take the next argument as its expression)
            if keyword:
                argv.append(f"-k{keyword}")
            if marker:
                argv.append(f"-m{marker}")
            if max_failures is not None:
                argv.append(f"--maxfail={max_failures}")
            argv += selected
            env = {**os.environ, "AGENTOUT_SPILL_DIR": str(store.root)}
            output = bytearray()
            done = run_bounded(
                argv, output.extend, cwd=roots.first, timeout=timeout_seconds, env=env
            )
            text = output.decode("utf-8", "replace")
            if done.error:
                text = f"run_tests: {done.error}\n{text}"
            refs = []  # the plugin names the full report by its path in the store
            found = re.findall(re.escape(f"{store.root}{os.sep}") + r"([^\s\"'/]+)", text)
            for name in dict.fromkeys(found):
                with contextlib.suppress(AgentoutError, OSError):
                    refs.append(_spill_ref(store, name))
            # 0 passed, 1 failed, 5 no tests: the run's own answer; 2-4: it could not run
            failed_to_run = done.error is not None or done.exit_status not in (0, 1, 5)
            meta = {"exit": done.exit_status}
            return to_result(Reply(text, tuple(refs), error=failed_to_run, meta=meta), limits)

    # -- run_command (opt-in) ----------------------------------------------------------------

    if config.allow:
        allowed = ", ".join(sorted(config.allow.paths))

        @server.tool(
            description=RUN_COMMAND.format(allowed=allowed),
            annotations=ToolAnnotations(destructive_hint=True, open_world_hint=True),
        )
        def run_command(
            command: Annotated[
                list[Argument],
                Field(
                    min_length=1,
                    max_length=10_000,
                    description="The argument vector: an allowed executable by bare name, "
                    "then its arguments (no shell: nothing is expanded).",
                ),
            ],
            timeout_seconds: Annotated[
                float, Field(gt=0, le=86_400, description="Stop the command after this long.")
            ] = 600,
            max_tokens: MaxTokens = None,
            inline_threshold_bytes: Threshold = None,
        ) -> CallToolResult:
            from agentout.sources.log import LogSink

            with _tool_errors():
                limits = config.limits(max_tokens, inline_threshold_bytes)
                argv = config.allow.argv(command)
                sink = LogSink(inline_threshold=limits.inline_threshold, store=store, kind="run")
                done = run_bounded(argv, sink.feed, cwd=roots.first, timeout=timeout_seconds)
                header: dict[str, Any] = {
                    "cmd": _clip(shlex.join(command)),
                    "exit": done.exit_status,
                }
                if done.signal is not None:
                    header["signal"] = done.signal
                if done.error is not None:
                    header["error"] = done.error
                header["duration"] = f"{done.duration:.2f}s"
                delivery = sink.deliver(
                    header, max_tokens=limits.max_tokens, tokenizer=limits.tokenizer
                )
                reply = Reply.of_delivery(delivery, exit=done.exit_status)
                failed = done.error is not None
                return to_result(
                    Reply(reply.text, reply.refs, error=failed, meta=reply.meta), limits
                )

    # -- the spill store as resources --------------------------------------------------------

    @server.resource(
        SPILL_URI + "{name}",
        name="spilled",
        description="A result agentout kept complete (the files resources/list shows).",
    )
    def spilled(name: str) -> str:
        try:
            with store.open_ref(name) as handle:
                data = handle.read(RESOURCE_READ_LIMIT + 1)
        except (AgentoutError, OSError) as exc:
            raise ResourceError(_tool_message(exc)) from exc
        if len(data) > RESOURCE_READ_LIMIT:
            raise ResourceError(
                f"{name}: over {RESOURCE_READ_LIMIT >> 20} MiB; page it with read_output instead"
            )
        return data.decode("utf-8", "replace")

    return server


def _clip(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… (+{len(text) - limit} chars)"


def _version() -> str:
    from agentout import __version__

    return __version__
