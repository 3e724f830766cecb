"""The shell corpus: everyday commands in a prepared real workspace, and their facts.

- ``tools``: the extra tools the comparison needs, installed once into a private cache;
- ``workspace``: the workspace, made fresh in a private temporary directory;
- ``cases``: the commands, where they run, and the extractor of each one's facts;
- ``facts_of``: the extractors' rules;
- ``capture``: running a command as an agent's shell tool does, and rtk's rewrite of it.

Used by bench/bench_shell.py and scripts/record_command_fixtures.py (docs/bench-shell.md).
"""
