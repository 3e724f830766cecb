"""Reading: bytes become text, lines and records here, before any budget is applied.

- ``text``: a file or stdin read as UTF-8 in pieces, with clear errors for what is not text.
- ``stream``: JSON values and lines read from text that arrives in pieces.
- ``structured``: what a file is (JSON, JSONL, YAML, TOML, CSV/TSV, Markdown, text) and
  which of its values are records; ``safe_yaml`` loads YAML 1.2 safely.
- ``data``: any of those inputs as records with views, one at a time.
- ``trouble``: the one vocabulary of trouble (errors, warnings, tracebacks, log levels in
  every common format) and ``Scan``, which finds such lines in output of any size.
- ``visible``: text as a terminal shows it, nothing hidden and nothing driven.
- ``tree``: the text files of a folder as git sees them.
- ``config``: the user's ``config.toml``.
"""
