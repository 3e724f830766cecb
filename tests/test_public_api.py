"""The public surface is deliberate: this test changes only when the API does."""

from __future__ import annotations

import agentout


def test_exported_names() -> None:
    assert sorted(agentout.__all__) == sorted(
        [
            "PRESETS",
            "Budget",
            "Chars4",
            "Document",
            "Packed",
            "Preset",
            "Record",
            "Result",
            "Stats",
            "Tokenizer",
            "UnknownTokenizerError",
            "View",
            "__version__",
            "count",
            "count_stream",
            "count_until",
            "fits",
            "get_tokenizer",
            "pack",
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
