"""Secrets never reach the model: hide credentials in what agentout hands to an agent.

>>> from agentout.redact import Redactor
>>> text, found = Redactor({}).redact_text("DB_PASSWORD=hunter2hunter2")
>>> text, found.total
('DB_PASSWORD=[secret: password]', 1)

A secret is replaced by a marker that says what it was (``[secret: github-token]``,
``[secret: $GH_TOKEN]`` for the value of an environment variable); the text around it, and
the number of lines, stay as they were. ``Found`` counts what was replaced, by kind, never
the values. What is looked for (docs/secrets.md says exactly what is and is not caught):

- the values of the environment's secret variables, literally, wherever they appear;
- credential formats, read from detect-secrets' plugins, and the few it lacks;
- values assigned to keys that name a secret (``password=``, ``"api_key": "..."``), bearer
  tokens, and private key blocks.

Two ways in: ``Redactor.stream()`` for a command's output as it arrives (``feed(chunk)``
and ``finish()``, the same bytes whatever the chunking), and ``redact_text`` /
``redact_value`` for text and JSON-like data about to be packed. ``AGENTOUT_REDACT=0``
turns it off; ``AGENTOUT_SECRET_NAMES=A,B`` adds variable names.
"""

from __future__ import annotations

from agentout.redact._found import MARKER, Found
from agentout.redact._names import ENV_NAMES, ENV_SWITCH, MIN_VALUE_LENGTH
from agentout.redact._redactor import (
    Redactor,
    default_redactor,
    redact_bytes,
    redact_text,
    redact_value,
)
from agentout.redact._stream import StreamRedactor

__all__ = [
    "ENV_NAMES",
    "ENV_SWITCH",
    "MARKER",
    "MIN_VALUE_LENGTH",
    "Found",
    "Redactor",
    "StreamRedactor",
    "default_redactor",
    "redact_bytes",
    "redact_text",
    "redact_value",
]
