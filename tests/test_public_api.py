"""The public surface is deliberate: this test changes only when the API does."""

from __future__ import annotations

import pytest

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


def test_the_pytest_plugin_imports_nothing_it_does_not_use() -> None:
    """Every pytest run imports the plugin: with the report off it loads no pipeline."""
    import subprocess
    import sys

    code = (
        "import sys, agentout.sources.testing.plugin; "
        "print(','.join(sorted(m for m in sys.modules if m.startswith('agentout'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == [
        "agentout,agentout._lazy,agentout._version,agentout.sources,agentout.sources.testing,"
        "agentout.sources.testing.plugin,"
        "agentout.sources.testing.settings"
    ]


def test_every_exported_name_loads_from_its_module() -> None:
    import importlib

    homes = {
        "Budget": "pack.budget",
        "Delivery": "deliver.hybrid",
        "View": "records",
        "count": "tokens",
        "pack": "pack",
        "SpillStore": "store.spill",
        "ToolResult": "deliver.dual",
        "InputError": "errors",
        "smart_truncate": "tokens.truncate",
    }
    for name, module in homes.items():
        assert getattr(agentout, name) is getattr(
            importlib.import_module(f"agentout.{module}"), name
        )
    assert set(dir(agentout)) >= set(agentout.__all__)
    assert agentout.pack is importlib.import_module("agentout.pack").pack
    with pytest.raises(AttributeError, match="'nope'"):
        agentout.nope  # noqa: B018


def test_importing_the_pack_module_first_does_not_hide_the_function() -> None:
    """A fresh interpreter: the submodule is imported before the name is ever looked up."""
    import subprocess
    import sys

    code = "import agentout.pack, agentout; print(type(agentout.pack).__name__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "function"
