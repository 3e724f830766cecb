"""The public surface is deliberate: this test changes only when the API does."""

from __future__ import annotations

import agentout


def test_exported_names() -> None:
    assert sorted(agentout.__all__) == sorted(
        [
            "PRESETS",
            "AgentoutError",
            "Budget",
            "Chars4",
            "Delivery",
            "Document",
            "InputError",
            "Lines",
            "Packed",
            "Preset",
            "Record",
            "Result",
            "SpillRef",
            "SpillStore",
            "Stats",
            "ToolResult",
            "Tokenizer",
            "UnknownTokenizerError",
            "View",
            "__version__",
            "count",
            "count_stream",
            "count_until",
            "deliver_jsonl",
            "deliver_records",
            "fits",
            "format_for_llm",
            "format_for_user",
            "get_tokenizer",
            "pack",
            "smart_truncate",
            "truncate_list",
            "truncate_mapping",
            "truncate_string",
        ]
    )
    for name in agentout.__all__:
        assert hasattr(agentout, name), name


def test_version_matches_metadata() -> None:
    from importlib.metadata import version

    assert agentout.__version__ == version("agentout")


def test_import_is_light() -> None:
    """Importing agentout must not load the tokenizer tables, rich or toon."""
    import subprocess
    import sys

    code = (
        "import sys, agentout; "
        "print(','.join(m for m in ('bpe_openai', 'rich', 'toon_format', 'tiktoken') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_module_docstring_example_runs() -> None:
    import doctest

    failures, tried = doctest.testmod(agentout)
    assert tried >= 2
    assert failures == 0
